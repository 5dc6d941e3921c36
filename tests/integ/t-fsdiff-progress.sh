#!/bin/sh
# fsdiff -% (and its synonym -v): Radmind's progress lines.  Each object
# owns a share of 0..100 that a directory splits evenly among its
# entries; "%NN path" is printed when a share starts at a new percentage,
# and "%100" at the end.  The transcript written with -o is the same with
# or without -%, -% needs -o, and -1 prints its one path.  -W warnings
# go to standard output too, never into the -o transcript.
. "$top_srcdir/tests/integ/lib.sh"
need_tool fsdiff
mk_tmpdir
cd "$T" || fail "cd $T"

mkdir -p r/d r/e
for p in r/a r/b r/c r/d/x r/d/y r/e/p r/e/q r/e/s; do
	echo "$p" >"$p"
done
: >empty.K

run_capture pct.out pct.err fsdiff -C -% -o pct.T -K empty.K r
assert_eq 0 "$RC" "fsdiff -% exit status"
[ -s pct.err ] && fail "fsdiff -%: unexpected stderr: $(cat pct.err)"
cat >pct.want <<'EOF2'
%00 ./r
%20 ./r/b
%40 ./r/c
%60 ./r/d
%70 ./r/d/y
%80 ./r/e
%86 ./r/e/q
%93 ./r/e/s
%100
EOF2
assert_file_eq pct.want pct.out "fsdiff -% progress lines"

# the transcript itself does not change
run_capture plain.out plain.err fsdiff -C -o plain.T -K empty.K r
assert_eq 0 "$RC" "fsdiff -C exit status"
[ -s plain.out ] && fail "fsdiff -o: unexpected stdout"
assert_file_eq plain.T pct.T "transcript written with -%"
[ "$(wc -l <pct.T)" -eq 11 ] || fail "transcript: $(wc -l <pct.T) lines"

# -v is the same option
run_capture v.out v.err fsdiff -C -v -o v.T -K empty.K r
assert_eq 0 "$RC" "fsdiff -v exit status"
assert_file_eq pct.want v.out "fsdiff -v progress lines"

# -A runs the same walk
printf 'p t.T\n' >k.K
printf 'd ./r 0755 0 0\n' >t.T
run_capture a.out a.err fsdiff -A -% -o a.T -K k.K r
assert_eq 0 "$RC" "fsdiff -A -% exit status"
assert_file_eq pct.want a.out "fsdiff -A -% progress lines"

# -1: the one path, then %100
run_capture one.out one.err fsdiff -1 -% -o one.T r/a
assert_eq 0 "$RC" "fsdiff -1 -% exit status"
printf '%%00 ./r/a\n%%100\n' >one.want
assert_file_eq one.want one.out "fsdiff -1 -% progress lines"

# -W: excluded objects are announced on stdout, between progress lines
printf 'x ./r/c\n' >x.K
run_capture w.out w.err fsdiff -C -W -% -o w.T -K x.K r
assert_eq 0 "$RC" "fsdiff -W -% exit status"
sed '/^%40 /a\
#! Warning: excluding ./r/c' pct.want >w.want
assert_file_eq w.want w.out "fsdiff -W -% stdout"
grep -v '^f ./r/c[[:space:]]' pct.T >w.T.want
assert_file_eq w.T.want w.T "fsdiff -W -o transcript"

# -% without -o is a usage error
run_capture noo.out noo.err fsdiff -C -% -K empty.K r
assert_eq 2 "$RC" "fsdiff -% without -o"
[ -s noo.out ] && fail "fsdiff -% without -o: unexpected stdout"
grep -q '^usage: fsdiff ' noo.err || fail "fsdiff -% without -o: no usage"
exit 0
