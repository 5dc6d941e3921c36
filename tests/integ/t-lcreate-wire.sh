#!/bin/sh
# lcreate + cairnd on the wire, compared line by line (terminators
# included) with the session recorded between Radmind's lcreate and
# Radmind's daemon (vectors/wire/lcreate.txt), through a recording
# proxy: STOR TRANSCRIPT and STOR FILE pipelined, CRLF, no REPO, QUIT
# after the last reply.  Only the banner's host name and version differ.
# Skipped when the vectors are not available ($CAIRN_VECTORS).
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lcreate
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
V=${CAIRN_VECTORS:-$top_srcdir/tests/vectors}
[ -f "$V/wire/lcreate.txt" ] || skip "no wire vectors (set CAIRN_VECTORS)"
make_repo "$T/repo"
start_cairnd "$T/repo"

# The loadset of the recording: tiny.T and its three files.
mkdir -p "$T/up/opt" || fail "mkdir"
printf 'tiny\n' >"$T/up/opt/a file"
printf 'x' >"$T/up/opt/x"
: >"$T/up/opt/zero"
sed -n 's/^# tiny.T: //p' "$V/wire/lcreate.txt" >"$T/tiny.T"
[ "$(wc -c <"$T/tiny.T")" -eq 429 ] || fail "tiny.T not rebuilt from the vector"

start_proxy "$T/wire.log.ready" recproxy.py "$T/wire.log" 1
cd "$T/up" || fail "cd"
run_capture "$T/out" "$T/err" "$LCREATE" -h 127.0.0.1 -p "$PPORT" "$T/tiny.T"
wait "$PROXY" || fail "proxy failed"
[ "$RC" -eq 0 ] || fail "lcreate exit $RC: $(cat "$T/err")"

awk -v host="$HOST" -v ver="$VERSION" '
    /^=== connection/ { print; next }
    /^(C|S|CZ|SZ): / {
	sub(/^S: 200-RAP 1 [^ ]* [^ ]* /, "S: 200-RAP 1 " host " " ver " ")
	print
    }' "$V/wire/lcreate.txt" >"$T/exp"
assert_file_eq "$T/exp" "$T/wire.log" "lcreate session"
sed -n 's/^# out: //p' "$V/wire/lcreate.txt" |
    sed "s|<scratch>|$T|" >"$T/exp.out"
assert_file_eq "$T/exp.out" "$T/out" "lcreate output"
sed -n 's/^# server tmp: //p' "$V/wire/lcreate.txt" >"$T/exp.tmp"
(cd "$T/repo/tmp" && find . | sort) >"$T/got.tmp"
assert_file_eq "$T/exp.tmp" "$T/got.tmp" "server tmp/ tree"
cmp -s "$T/tiny.T" "$T/repo/tmp/transcript/tiny.T" || fail "transcript bytes"
cmp -s "$T/up/opt/a file" "$T/repo/tmp/file/tiny.T/opt/a file" || fail "a file"
exit 0
