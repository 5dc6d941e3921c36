#!/bin/sh
# t-fsdiff-paths: fsdiff over several paths writes one transcript, the
# same as one run per path concatenated and sorted with lsort, whatever
# the order of the paths; a path given twice or inside another is walked
# once; relative and absolute paths cannot be mixed (exit 2); a missing
# path is named; -I sorts the paths case-insensitively; -% counts over
# all paths; -1 prints one line per path; and an applicable transcript
# over several paths is applied by lapply -n, after which those paths
# are clean and the others untouched.
. "$top_srcdir/tests/integ/lib.sh"
need_tool fsdiff lsort lapply
mk_tmpdir
. "$top_srcdir/tests/integ/lapply-lib.sh"

# Names that sort differently under strcmp and transcript order (a-c and
# a.f after a's subtree) and under -I (C before a only with case).
cd "$R" || fail "cd $R"
for p in a/x/one a/x/two a/y a-c/three a.f b/four b/skip C/five c/d/six; do
	mkfile "$p" "$p
" "$T0"
done
ln -s ../a/y b/link
chmod 0755 a a/x a-c b C c c/d
: >"$T/empty.K"

# multi NAME OPTS -- PATHS: one run over PATHS into NAME.multi, and one
# run per path concatenated, without its "transcript:" headers, and
# sorted into NAME.single; both must exit 0.
multi()
{
	_m=$1
	shift
	_o=
	while [ "$1" != -- ]; do
		_o="$_o $1"
		shift
	done
	shift
	# shellcheck disable=SC2086
	run_capture "$T/$_m.multi" "$T/$_m.err" "$FSDIFF" $_o "$@"
	[ "$RC" -eq 0 ] || fail "$_m: fsdiff$_o $*: exit $RC: $(cat "$T/$_m.err")"
	: >"$T/$_m.cat"
	for _p in "$@"; do
		# shellcheck disable=SC2086
		run_capture "$T/$_m.one" "$T/$_m.err" "$FSDIFF" $_o "$_p"
		[ "$RC" -eq 0 ] || fail "$_m: fsdiff$_o $_p: exit $RC"
		cat "$T/$_m.one" >>"$T/$_m.cat"
	done
	case "$_o" in
	*-I*)	_li=-I ;;
	*)	_li= ;;
	esac
	grep -v '^[^ 	]*:$' "$T/$_m.cat" >"$T/$_m.lines"
	# shellcheck disable=SC2086
	"$LSORT" $_li -o "$T/$_m.single" "$T/$_m.lines" ||
	    fail "$_m: lsort failed"
}

# --- several paths = single runs re-sorted, in any order
multi c1 -C -c sha1 -K "$T/empty.K" -- b a-c a
assert_file_eq "$T/c1.single" "$T/c1.multi" "-C b a-c a"
[ "$(wc -l <"$T/c1.multi")" -eq 11 ] ||
    fail "-C b a-c a: $(wc -l <"$T/c1.multi") lines"
head -n 1 "$T/c1.multi" | grep -q '^d \./a  ' || fail "-C: ./a not first"
for order in "a b a-c" "a-c a b" "b a a-c"; do
	# shellcheck disable=SC2086
	multi c2 -C -c sha1 -K "$T/empty.K" -- $order
	assert_file_eq "$T/c1.multi" "$T/c2.multi" "-C $order"
done

# the same with absolute paths
multi c3 -C -K "$T/empty.K" -- "$R/c/d" "$R/a.f" "$R/C"
assert_file_eq "$T/c3.single" "$T/c3.multi" "-C absolute"
head -n 1 "$T/c3.multi" | grep -q "^d $R/C[[:space:]]" || fail "absolute: not C first"

# -I: C sorts after a, a.f and b
multi ci -I -C -K "$T/empty.K" -- b C a.f a
assert_file_eq "$T/ci.single" "$T/ci.multi" "-I -C"
sed -n 's/^[a-z] \([^ 	]*\).*/\1/p' "$T/ci.multi" | tr '\n' ' ' >"$T/ci.paths"
assert_eq "./a ./a/x ./a/x/one ./a/x/two ./a/y ./a.f ./b ./b/four ./b/link ./b/skip ./C ./C/five " \
    "$(cat "$T/ci.paths")" "-I order"

# --- overlapping and duplicate paths: each object once
run_capture "$T/all.T" "$T/all.err" "$FSDIFF" -C -c sha1 -K "$T/empty.K" .
[ "$RC" -eq 0 ] || fail "fsdiff -C .: exit $RC"
for set in ". ./a" "./a/x . a b/" "./ . c/d/six"; do
	# shellcheck disable=SC2086
	run_capture "$T/ov.T" "$T/ov.err" "$FSDIFF" -C -c sha1 -K "$T/empty.K" $set
	[ "$RC" -eq 0 ] || fail "-C $set: exit $RC"
	assert_file_eq "$T/all.T" "$T/ov.T" "-C $set"
done
for set in "a a" "a/ ./a a/x a//" "./a/x/one a ./a/x"; do
	# shellcheck disable=SC2086
	run_capture "$T/ov.T" "$T/ov.err" "$FSDIFF" -C -c sha1 -K "$T/empty.K" $set
	[ "$RC" -eq 0 ] || fail "-C $set: exit $RC"
	run_capture "$T/a.T" "$T/a.err" "$FSDIFF" -C -c sha1 -K "$T/empty.K" a
	assert_file_eq "$T/a.T" "$T/ov.T" "-C $set"
done
run_capture "$T/ov.T" "$T/ov.err" "$FSDIFF" -C -K "$T/empty.K" "$R/a" "$R/" \
    "$R"
[ "$RC" -eq 0 ] || fail "-C $R/a $R/ $R: exit $RC"
run_capture "$T/abs.T" "$T/abs.err" "$FSDIFF" -C -K "$T/empty.K" "$R"
assert_file_eq "$T/abs.T" "$T/ov.T" "-C $R/a $R/ $R"

# a file linked into another path is an h line, as under their parent
ln a-c/three c/hl
run_capture "$T/hl.T" "$T/hl.err" "$FSDIFF" -C -K "$T/empty.K" c a-c
assert_eq 0 "$RC" "-C c a-c (hard link): exit status"
grep -q '^f ./a-c/three ' "$T/hl.T" || fail "hard link: no f line"
grep -q '^h ./c/hl[[:space:]]*./a-c/three$' "$T/hl.T" ||
    fail "hard link: no h line: $(cat "$T/hl.T")"
rm c/hl

# --- usage errors and missing paths
for set in "a $R/b" "/ ." "$R/a ./b" "a/../b b" "a/./x b" "a//x b"; do
	# shellcheck disable=SC2086
	run_capture "$T/u.out" "$T/u.err" "$FSDIFF" -C -K "$T/empty.K" $set
	assert_eq 2 "$RC" "-C $set: exit status"
	[ -s "$T/u.out" ] && fail "-C $set: output on stdout"
	grep -q '^usage: fsdiff .* path \.\.\.$' "$T/u.err" ||
	    fail "-C $set: no usage line: $(cat "$T/u.err")"
done
run_capture "$T/u.out" "$T/u.err" "$FSDIFF" -C -K "$T/empty.K" a "$R/b"
grep -q "^a, $R/b: paths must be all relative or all absolute\$" "$T/u.err" ||
    fail "mixed paths: message: $(cat "$T/u.err")"
run_capture "$T/u.out" "$T/u.err" "$FSDIFF" -1 -K "$T/empty.K" a -
assert_eq 2 "$RC" "-1 a -: exit status"

run_capture "$T/m.out" "$T/m.err" "$FSDIFF" -C -K "$T/empty.K" nope a gone/x
assert_eq 2 "$RC" "missing paths: exit status"
[ -s "$T/m.out" ] && fail "missing paths: output on stdout"
printf '%s\n' './gone/x: No such file or directory' \
    './nope: No such file or directory' >"$T/m.want"
assert_file_eq "$T/m.want" "$T/m.err" "missing paths: messages"

# --- -% counts over all paths (each path half of 0..100 here)
run_capture "$T/p.out" "$T/p.err" "$FSDIFF" -C -% -o "$T/p.T" \
    -K "$T/empty.K" b a
assert_eq 0 "$RC" "-% exit status"
cat >"$T/p.want" <<'EOF2'
%00 ./a
%12 ./a/x/two
%25 ./a/y
%50 ./b
%66 ./b/link
%83 ./b/skip
%100
EOF2
assert_file_eq "$T/p.want" "$T/p.out" "-% over two paths"
run_capture "$T/p2.T" "$T/p2.err" "$FSDIFF" -C -K "$T/empty.K" a b
assert_file_eq "$T/p2.T" "$T/p.T" "-% transcript"

# --- -1: one line per path, sorted, duplicates once
run_capture "$T/s.out" "$T/s.err" "$FSDIFF" -1 -K "$T/empty.K" b/four a a.f b/four
assert_eq 0 "$RC" "-1 exit status"
: >"$T/s.cat"
for p in a a.f b/four; do
	"$FSDIFF" -1 -K "$T/empty.K" "$p" >>"$T/s.cat" || fail "-1 $p"
done
assert_file_eq "$T/s.cat" "$T/s.out" "-1 several paths"
run_capture "$T/s.out" "$T/s.err" "$FSDIFF" -1 -K "$T/empty.K" nope a
assert_eq 2 "$RC" "-1 missing path: exit status"
assert_eq "./nope: No such file or directory" "$(cat "$T/s.err")" "-1 missing"
"$FSDIFF" -1 -K "$T/empty.K" a >"$T/s1.out" || fail "-1 a"
assert_file_eq "$T/s1.out" "$T/s.out" "-1 missing path: the rest"

# --- -A over several paths, then lapply -n
cp "$T/all.T" "$T/base.T"
printf 'p base.T\nx ./b/skip\n' >"$T/base.K"
chmod 0700 a/x c/d			# metadata, in a path and outside
rm a/x/two				# missing
printf 'new\n' >b/new			# not in the transcript
rm b/link && ln -s ../a.f b/link	# another target
printf 'changed\n' >b/skip		# excluded
mkdir b/newdir && : >b/newdir/f

# lapply -n skips the "+" line of ./a/x/two
multi a1 -A -c sha1 -K "$T/base.K" -- b a
grep -v '^[^ 	]*:$' "$T/a1.multi" >"$T/a1.nohdr"
assert_file_eq "$T/a1.single" "$T/a1.nohdr" "-A b a: lines"
[ "$(grep -c '^[^ 	]*:$' "$T/a1.multi")" -eq 1 ] || fail "-A b a: headers"
grep -q '^- f ./b/new ' "$T/a1.multi" || fail "-A: no removal of ./b/new"
grep -q 'skip' "$T/a1.multi" && fail "-A: excluded ./b/skip listed"
grep -q '^d ./c/d ' "$T/a1.multi" && fail "-A: ./c/d outside the paths"

apply "$T/a1.multi"
expect_rc 0
expect_out "No network connection
./a/x: updating mode
./b/link: symbolic linked to ../a/y
./b/new: deleted
./b/newdir/f: deleted
./b/newdir: deleted"
[ "$(info a/x)" = "directory 755 $U $G" ] || fail "a/x: $(info a/x)"
[ "$(readlink b/link)" = ../a/y ] || fail "b/link: $(readlink b/link)"
[ "$(info c/d)" = "directory 700 $U $G" ] || fail "c/d changed: $(info c/d)"
[ "$(cat b/skip)" = changed ] || fail "excluded b/skip changed"

# afterwards only the download line for ./a/x/two is left there
run_capture "$T/a2.out" "$T/a2.err" "$FSDIFF" -A -c sha1 -K "$T/base.K" a b
assert_eq 0 "$RC" "-A after lapply: exit status"
printf 'base.T:\n+ ' >"$T/a2.want"
grep '^f ./a/x/two ' "$T/base.T" >>"$T/a2.want"
assert_file_eq "$T/a2.want" "$T/a2.out" "-A after lapply"
exit 0
