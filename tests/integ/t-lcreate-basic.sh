#!/bin/sh
# lcreate against cairnd: a loadset captured by fsdiff -C (names with
# spaces and tabs, empty files, binary content, a file larger than one
# read chunk, a symlink that is not uploaded) lands byte for byte in the
# server's tmp/; the messages are Radmind's.  Also -t, -T, -N, -q, an
# existing transcript, an applicable transcript, -l, and compression
# (-Z 6 against cairnd -Z 9) with -v's byte counters, and -Z auto.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lcreate fsdiff
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
R=$T/repo
# -Y 0: zlib alone, whose automatic level -Z auto is to take below.
start_cairnd "$R" -Z 9 -Y 0

# The reference tree.
mkdir -p "$T/src/etc" "$T/src/sp ace/d" "$T/src/bin" || fail "mkdir"
cd "$T/src" || fail "cd"
printf 'hello\n' >etc/motd
printf 'tab\n' >"sp ace/f	tab"
: >"sp ace/d/empty"
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 64)' \
    >bin/all-bytes
python3 -c 'import os, sys; sys.stdout.buffer.write(os.urandom(3 * 1024 * 1024 + 17))' \
    >bin/big
python3 -c 'import sys; sys.stdout.buffer.write(b"cairn text line\n" * 65536)' \
    >etc/text
ln -s motd etc/motd.link
echo >"$T/empty.K"
"$FSDIFF" -C -c sha1 -K "$T/empty.K" -o "$T/up.T" . ||
    fail "fsdiff -C failed"

# decode_f TRANSCRIPT: the decoded paths of its f lines, one per line.
decode_f()
{
	python3 - "$1" <<'PY'
import sys
esc = {'b': ' ', 't': '\t', 'n': '\n', 'r': '\r', '\\': '\\'}
for line in open(sys.argv[1], encoding='latin-1'):
    tok = line.split()
    if len(tok) == 8 and tok[0] == 'f':
        out, i, p = [], 0, tok[1]
        while i < len(p):
            if p[i] == '\\':
                out.append(esc[p[i + 1]]); i += 2
            else:
                out.append(p[i]); i += 1
        print(''.join(out))
PY
}
decode_f "$T/up.T" >"$T/files"
[ "$(wc -l <"$T/files")" -eq 6 ] || fail "expected 6 files in up.T"

# check_tree NAME TRANSCRIPT: tmp/ holds TRANSCRIPT as NAME and exactly
# its f files, byte for byte.
check_tree()
{
	cmp -s "$2" "$R/tmp/transcript/$1" || fail "$1: transcript differs"
	decode_f "$2" >"$T/tree.files"
	while IFS= read -r p; do
		cmp -s "$p" "$R/tmp/file/$1/$p" || fail "$1: $p differs"
	done <"$T/tree.files"
	n=$(find "$R/tmp/file/$1" ! -type d | wc -l)
	assert_eq "$(wc -l <"$T/tree.files")" "$n" "$1: objects in tmp/file"
}

# Plain upload: messages in transcript order, tree byte-exact.
run_capture "$T/out" "$T/err" "$LCREATE" -h 127.0.0.1 -p "$PORT" -c sha1 \
    "$T/up.T"
[ "$RC" -eq 0 ] || fail "lcreate exit $RC: $(cat "$T/err")"
# Complete once lcreate has exited: no upload marker left for
# cairn-publish to take as one still in progress.
ls -A "$R/tmp" | grep -q '^\.stor\.' &&
    fail "upload marker left after lcreate: $(ls -lA "$R/tmp")"
{
	echo "$T/up.T: stored"
	sed 's/$/: stored/' "$T/files"
} >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "lcreate output"
assert_file_eq /dev/null "$T/err" "lcreate stderr"
check_tree up.T "$T/up.T"
[ -e "$R/tmp/file/up.T/etc/motd.link" ] && fail "symlink was uploaded"

# Same transcript again: the server refuses, nothing changes.
run_capture "$T/out" "$T/err" "$LCREATE" -h 127.0.0.1 -p "$PORT" "$T/up.T"
assert_eq 2 "$RC" "existing transcript: exit"
assert_eq "551 Transcript exists" "$(cat "$T/err")" "existing transcript"
check_tree up.T "$T/up.T"

# -t NAME -q: stored under another name, nothing printed.
run_capture "$T/out" "$T/err" "$LCREATE" -q -t other.T -h 127.0.0.1 \
    -p "$PORT" "$T/up.T"
[ "$RC" -eq 0 ] || fail "lcreate -q -t exit $RC: $(cat "$T/err")"
assert_file_eq /dev/null "$T/out" "-q output"
check_tree other.T "$T/up.T"

# -T: the transcript only.
run_capture "$T/out" "$T/err" "$LCREATE" -T -t tonly.T -h 127.0.0.1 \
    -p "$PORT" "$T/up.T"
[ "$RC" -eq 0 ] || fail "lcreate -T exit $RC: $(cat "$T/err")"
assert_eq "$T/up.T: stored" "$(cat "$T/out")" "-T output"
cmp -s "$T/up.T" "$R/tmp/transcript/tonly.T" || fail "-T: transcript"
assert_eq "" "$(find "$R/tmp/file/tonly.T" -mindepth 1)" "-T: no files"

# -N: a negative transcript whose files need not exist; zero-length files.
{
	printf 'd ./var                                \t0755     0     0\n'
	printf 'f ./var/log/no\\bsuch                    \t0644     0     0 1700000000    4096 -\n'
	printf 'f ./var/log/wtmp                       \t0664     0     0 1700000000  123456 -\n'
} >"$T/neg.T"
run_capture "$T/out" "$T/err" "$LCREATE" -N -h 127.0.0.1 -p "$PORT" \
    "$T/neg.T"
[ "$RC" -eq 0 ] || fail "lcreate -N exit $RC: $(cat "$T/err")"
printf '%s\n' "$T/neg.T: stored" './var/log/no such: stored as zero length file' \
    './var/log/wtmp: stored as zero length file' >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "-N output"
for f in "no such" wtmp; do
	[ -f "$R/tmp/file/neg.T/var/log/$f" ] &&
	    [ ! -s "$R/tmp/file/neg.T/var/log/$f" ] || fail "-N: $f not empty"
done

# An applicable transcript (with a "name:" header) cannot be uploaded.
{
	echo 'base.T:'
	sed -n 3p "$T/up.T"
} >"$T/apply.T"
run_capture "$T/out" "$T/err" "$LCREATE" -h 127.0.0.1 -p "$PORT" \
    "$T/apply.T"
assert_eq 2 "$RC" "applicable: exit"
assert_eq "Appliable transcripts cannot be uploaded." "$(cat "$T/err")"
[ -e "$R/tmp/transcript/apply.T" ] && fail "applicable transcript uploaded"

# -l: no LOGIN in cairn.
run_capture "$T/out" "$T/err" "$LCREATE" -l -w 1 -h 127.0.0.1 -p "$PORT" \
    "$T/up.T"
assert_eq 2 "$RC" "-l: exit"
grep -q 'LOGIN not supported' "$T/err" || fail "-l: $(cat "$T/err")"

# -q with -v, -% with -v: usage errors.
run_capture "$T/out" "$T/err" "$LCREATE" -q -v "$T/up.T"
assert_eq 2 "$RC" "-q -v: exit"
grep -q '^usage: lcreate' "$T/err" || fail "-q -v: no usage"

# -Z 6: negotiated (server max 9), same bytes, text compressed on the wire.
run_capture "$T/out" "$T/err" "$LCREATE" -Z 6 -v -t zlib.T -h 127.0.0.1 \
    -p "$PORT" "$T/up.T"
[ "$RC" -eq 0 ] || fail "lcreate -Z 6 exit $RC: $(cat "$T/err")"
grep -q '^>>> COMP ZLIB 6' "$T/err" || fail "-Z 6: no COMP line"
check_tree zlib.T "$T/up.T"
stats=$(grep '^bytes: received ' "$T/out") || fail "-v: no byte counters"
# "bytes: received R (W on the wire), sent RAW (WIRE on the wire), ..."
set -- $(echo "$stats" | tr -c '0-9\n' ' ')
raw=$3 wire=$4
[ "$raw" -gt 4000000 ] || fail "-v: raw count $raw too small"
[ "$wire" -lt "$raw" ] || fail "-v: compressed $wire not below raw $raw"

# -Z auto (cairnd offers ZAUTO): same bytes; the random file went as
# stored blocks, said by -v with the bytes sent per level.
run_capture "$T/out" "$T/err" "$LCREATE" -Z auto -v -t auto.T -h 127.0.0.1 \
    -p "$PORT" "$T/up.T"
[ "$RC" -eq 0 ] || fail "lcreate -Z auto exit $RC: $(cat "$T/err")"
grep -q '^>>> COMP ZLIB AUTO' "$T/err" || fail "-Z auto: no COMP line"
check_tree auto.T "$T/up.T"
grep -q '^files sent stored (incompressible): 1, 3145745 bytes' "$T/out" ||
    fail "-Z auto: random file not sent stored: $(cat "$T/out")"
grep -q '^bytes sent by level: 0:' "$T/out" ||
    fail "-Z auto: no level counts: $(cat "$T/out")"

# -%: progress lines only, ending at 100.
run_capture "$T/out" "$T/err" "$LCREATE" -% -t pct.T -h 127.0.0.1 \
    -p "$PORT" "$T/up.T"
[ "$RC" -eq 0 ] || fail "lcreate -% exit $RC: $(cat "$T/err")"
grep -v '^%[0-9][0-9]* ' "$T/out" && fail "-%: not only progress lines"
assert_eq "%100 $(tail -n 1 "$T/files")" "$(tail -n 1 "$T/out")" "-% last line"
check_tree pct.T "$T/up.T"
exit 0
