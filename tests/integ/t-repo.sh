#!/bin/sh
# repo against cairnd: the report goes out as "REPO <event> <encoded
# message>" (CRLF), the server logs it at NOTICE as "report <host> <ip>
# - - <event> <message>"; the message comes from the arguments or the
# first line of stdin; usage errors exit 1; a server without REPO in its
# CAPA line gives "server does not support reporting" and exit 2.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd repo
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
REPO=$(tool_path repo)
make_repo "$T/repo"
start_cairnd "$T/repo"

rp()
{
	run_capture "$T/out" "$T/err" "$REPO" -h 127.0.0.1 -p "$PORT" "$@"
}

rp -e deploy hello "big  world"
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
PPORT=$(free_port)
python3 "$top_srcdir/tests/integ/recproxy.py" "$PPORT" "$PORT" \
    "$T/wire.log" 1 &
PROXY=$!
i=0
while [ ! -f "$T/wire.log.ready" ]; do
	i=$((i + 1))
	[ "$i" -lt 100 ] || fail "proxy did not start"
	sleep 0.1
done
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

# Usage errors: exit 1.
rp hello
assert_eq 1 "$RC" "no -e: exit"
rp -e "two words" hello
assert_eq 1 "$RC" "event with a space: exit"
assert_eq "two words: event must be one word" "$(head -n 1 "$T/err")"
rp -e x -Z 12 hello
assert_eq 1 "$RC" "bad -Z: exit"
assert_eq "12: invalid compression level" "$(cat "$T/err")"
rp -e x ""
assert_eq 1 "$RC" "empty message: exit"
assert_eq "repo: empty message" "$(cat "$T/err")"

# A server whose banner has no CAPA line: no REPO.
FPORT=$(free_port)
python3 - "$FPORT" "$T/fake.ready" <<'PY' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(1)
open(sys.argv[2], "w").close()
s.settimeout(30)
c, _ = s.accept()
c.settimeout(30)
c.sendall(b"200 RAP 1 old 1.0 radmind access protocol\r\n")
f = c.makefile("rb")
line = f.readline()
if line.startswith(b"QUIT"):
    c.sendall(b"201 QUIT OK, closing connection\r\n")
c.close()
PY
FAKE=$!
i=0
while [ ! -f "$T/fake.ready" ]; do
	i=$((i + 1))
	[ "$i" -lt 100 ] || fail "fake server did not start"
	sleep 0.1
done
run_capture "$T/out" "$T/err" "$REPO" -h 127.0.0.1 -p "$FPORT" -e x hello
wait "$FAKE"
assert_eq 2 "$RC" "no REPO: exit"
assert_eq "127.0.0.1: server does not support reporting" "$(cat "$T/err")"
exit 0
