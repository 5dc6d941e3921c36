#!/bin/sh
# repo against cairnd: the report goes out as "REPO <event> <encoded
# message>" (CRLF), the server logs it at NOTICE as "report <host> <ip>
# - - <event> <message>"; the message comes from the arguments or the
# first line of stdin; usage errors exit 2; a server without REPO in its
# CAPA line gives "server does not support reporting" and exit 2.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd repo
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
start_cairnd "$T/repo"

run_client repo -e deploy hello "big  world"
assert_eq 0 "$RC" "args: exit ($(cat "$T/err"))"
assert_file_eq /dev/null "$T/out" "args: output"
grep -q '^report [^ ]* 127\.0\.0\.1 - - deploy hello big  world$' "$SLOG" ||
    fail "args: report not logged"

printf 'from stdin\nsecond line\n' | {
	"$REPO" -h 127.0.0.1 -p "$PORT" -e ev2 >"$T/out" 2>"$T/err"
	echo $? >"$T/rc"
}
assert_eq 0 "$(cat "$T/rc")" "stdin: exit ($(cat "$T/err"))"
grep -q '^report [^ ]* 127\.0\.0\.1 - - ev2 from stdin$' "$SLOG" ||
    fail "stdin: report not logged"
grep -q 'second line' "$SLOG" && fail "stdin: second line sent"

# The bytes on the wire, through the recording proxy.
start_proxy "$T/wire.log.ready" recproxy.py "$T/wire.log" 1
"$REPO" -h 127.0.0.1 -p "$PPORT" -e wire 'a b\c	d' >"$T/out" 2>&1 ||
    fail "wire: $(cat "$T/out")"
wait "$PROXY" || fail "proxy failed"
{
	echo '=== connection'
	banner | sed 's/\r$//; s/^/S: /; s/$/\\r\\n/'
	printf 'C: REPO wire a\\\\bb\\\\\\\\c\\\\td\\r\\n\n'
	printf 'S: 215 Report successful\\r\\n\n'
	printf 'C: QUIT\\r\\n\n'
	printf 'S: 201 QUIT OK, closing connection\\r\\n\n'
} >"$T/exp"
assert_file_eq "$T/exp" "$T/wire.log" "REPO on the wire"

# Usage errors: exit 2.
run_client repo hello
assert_eq 2 "$RC" "no -e: exit"
run_client repo -e "two words" hello
assert_eq 2 "$RC" "event with a space: exit"
assert_eq "two words: event must be one word" "$(head -n 1 "$T/err")"
run_client repo -e x -Z 12 hello
assert_eq 2 "$RC" "bad -Z: exit"
assert_eq "12: invalid compression level ($(zforms))" \
    "$(head -n 1 "$T/err")"
run_client repo -e x ""
assert_eq 2 "$RC" "empty message: exit"
assert_eq "repo: empty message" "$(cat "$T/err")"

# A server whose banner has no CAPA line: no REPO.
# peer.py answers a QUIT, if one comes, and closes.
printf '%s\n' 'send 200 RAP 1 old 1.0 radmind access protocol\r\n' 'recv' \
    'send 201 QUIT OK, closing connection\r\n' 'close' >"$T/fake"
start_peer "$T/fake" "$T/fake.log"
run_capture "$T/out" "$T/err" "$REPO" -h 127.0.0.1 -p "$PEERPORT" -e x hello
wait "$PEERPID"
assert_eq 2 "$RC" "no REPO: exit"
assert_eq "127.0.0.1: server does not support reporting" "$(cat "$T/err")"
exit 0
