#!/bin/sh
# lcreate reads the whole transcript with the one transcript reader
# before it connects: a transcript out of sort order, a malformed line,
# an unknown type or a line without its last newline stops it with exit
# status 2 and "<transcript>: line N: <problem>", with and without -T,
# and nothing reaches the server: no connection (a recording proxy in
# front of cairnd sees only the good upload that follows), nothing in
# the server's tmp/.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lcreate fsdiff
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
R=$T/repo
start_cairnd "$R"
start_proxy "$T/wire.log.ready" recproxy.py "$T/wire.log" 1

mkdir -p "$T/src/a" || fail "mkdir"
cd "$T/src" || fail "cd"
printf 'one\n' >a/one
printf 'two\n' >a/two
printf 'three\n' >a/three
echo >"$T/empty.K"
"$FSDIFF" -C -c sha1 -K "$T/empty.K" -o "$T/good.T" . || fail "fsdiff -C"
[ "$(grep -c '^f ' "$T/good.T")" -eq 3 ] || fail "expected 3 files"

# refuse NAME MSG: lcreate, plain and with -T, refuses the transcript
# $T/NAME with "$T/NAME: MSG", and the server holds nothing of it.
refuse()
{
	_name=$1 _msg=$2
	for _opt in "" -T; do
		run_capture "$T/out" "$T/err" "$LCREATE" $_opt -h 127.0.0.1 \
		    -p "$PPORT" -c sha1 "$T/$_name"
		assert_eq 2 "$RC" "$_name $_opt: exit ($(cat "$T/err"))"
		printf '%s\n' "$T/$_name: $_msg" >"$T/exp"
		assert_file_eq "$T/exp" "$T/err" "$_name $_opt: stderr"
		assert_file_eq /dev/null "$T/out" "$_name $_opt: stdout"
		no_upload "$R" "$_name"
	done
}

# Out of order: the last two lines swapped.
n=$(wc -l <"$T/good.T")
{
	head -n $((n - 2)) "$T/good.T"
	tail -n 1 "$T/good.T"
	tail -n 2 "$T/good.T" | head -n 1
} >"$T/unsorted.T"
refuse unsorted.T "line $n: bad sort order"

# A malformed line: the first f line without its checksum field.  The
# message is the one lcksum gives for it.
f=$(grep -n '^f ' "$T/good.T" | head -n 1 | cut -d: -f1)
sed "${f}s/ [^ ]*\$//" "$T/good.T" >"$T/short.T"
cmp -s "$T/good.T" "$T/short.T" && fail "short.T: no line changed"
run_capture "$T/lck.out" "$T/lck.err" lcksum -n -c sha1 "$T/short.T"
grep -q "line $f: " "$T/lck.err" || fail "short.T: lcksum finds no error"
refuse short.T "$(sed -n 's/.*short.T: //p' "$T/lck.err" | head -n 1)"

# An unknown type.
sed "${f}s/^f /q /" "$T/good.T" >"$T/type.T"
run_capture "$T/lck.out" "$T/lck.err" lcksum -n -c sha1 "$T/type.T"
grep -q "line $f: " "$T/lck.err" || fail "type.T: lcksum finds no error"
refuse type.T "$(sed -n 's/.*type.T: //p' "$T/lck.err" | head -n 1)"

# No newline after the last line.
head -c -1 "$T/good.T" >"$T/nolf.T"
refuse nolf.T "line $n: incomplete last line (no newline)"

# The proxy saw no connection: the good transcript is the first upload.
run_capture "$T/out" "$T/err" "$LCREATE" -h 127.0.0.1 -p "$PPORT" -c sha1 \
    "$T/good.T"
assert_eq 0 "$RC" "good.T: exit ($(cat "$T/err"))"
wait "$PROXY"
assert_eq 1 "$(grep -c '^=== connection' "$T/wire.log")" "connections"
grep -q '^C: STOR TRANSCRIPT good.T\\r' "$T/wire.log" ||
    fail "the connection is not the good upload: $(head "$T/wire.log")"
[ -f "$R/tmp/transcript/good.T" ] || fail "good.T was not stored"
exit 0
