#!/bin/sh
# cairnd limits and daemon behaviour: -m answered with 420, over-long
# request line, error limit, -w > 0 without TLS material refused, -V,
# -i pidfile removed on SIGTERM, IPv6 listening when no -a is given.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"

# -m 1: a second simultaneous connection is told the server is busy.
start_cairnd "$T/repo" -m 1
printf '420 Server busy\r\n' >"$T/exp"
rap --busy "$PORT" >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "-m 1"
# Once the first one is gone, service resumes (bounded retries while the
# daemon reaps the finished child).
# served: a NOOP is answered.
served()
{
	rap "$PORT" 'NOOP\r\n' >"$T/out" || fail "rap"
	grep -q '^202 NOOP OK' "$T/out"
}
retry 50 served || fail "-m 1: no service after the first client left"
stop_cairnd

start_cairnd "$T/repo"
# A request line over the cap (16 KiB) ends the session with a 500.
long=$(python3 -c 'print("A" * 20000, end="")')
{
	banner
	printf '500 Line too long, closing connection\r\n'
} >"$T/exp"
rap "$PORT" "NOOP $long\r\nNOOP\r\n" >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "long line"
# The daemon still serves others.
{
	banner
	printf '202 NOOP OK\r\n'
} >"$T/exp"
rap "$PORT" 'NOOP\r\n' >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "after a long line"

# Ten protocol errors and the server hangs up.
{
	banner
	for i in 1 2 3 4 5 6 7 8 9 10; do
		printf '500 Command X%s unrecognized\r\n' "$i"
	done
	printf '421 Too many errors, closing transmission channel\r\n'
} >"$T/exp"
rap "$PORT" 'X1\nX2\nX3\nX4\nX5\nX6\nX7\nX8\nX9\nX10\nNOOP\n' >"$T/out" ||
    fail "rap"
assert_file_eq "$T/exp" "$T/out" "error limit"
stop_cairnd

# TLS levels without a certificate are refused with a clear message and
# exit 1 (cannot start); usage errors exit 2.
run_capture "$T/out" "$T/err" "$CAIRND" -f -D "$T/repo" -w 1
assert_eq 1 "$RC" "-w 1 exit status"
grep -q 'cert/cert.pem: cannot load certificate' "$T/err" ||
    fail "-w 1: $(cat "$T/err")"
run_capture "$T/out" "$T/err" "$CAIRND" -Z 10
assert_eq 2 "$RC" "-Z 10 exit status"
run_capture "$T/out" "$T/err" "$CAIRND" -V
assert_eq 0 "$RC" "-V exit status"
[ -s "$T/out" ] || fail "-V printed nothing"

# -i pidfile; SIGTERM removes it; the daemon created the repository.
mkdir "$T/empty"
start_cairnd "$T/empty" -i "$T/cairnd.pid"
[ -f "$T/cairnd.pid" ] || fail "no pidfile"
assert_eq "$SPID" "$(cat "$T/cairnd.pid")" "pidfile content"
for d in command file special tmp tmp/file tmp/transcript transcript; do
	[ -d "$T/empty/$d" ] || fail "start-up did not create $d"
done
stop_cairnd
[ -f "$T/cairnd.pid" ] && fail "pidfile left after SIGTERM"

# Without -a the daemon listens on IPv6 too (when the host has it).
if python3 -c 'import socket; s = socket.socket(socket.AF_INET6); s.bind(("::1", 0))' 2>/dev/null; then
	echo '* test.K' >"$T/repo/config"
	CAIRND_ADDR=
	start_cairnd "$T/repo"
	CAIRND_ADDR=127.0.0.1
	python3 - "$PORT" <<'PY' || fail "IPv6: $(cat "$SLOG")"
import socket, sys
s = socket.create_connection(('::1', int(sys.argv[1])), 10)
s.settimeout(10)
s.sendall(b'QUIT\r\n')
got = b''
while True:
    d = s.recv(4096)
    if not d:
        break
    got += d
sys.exit(0 if got.endswith(b'201 QUIT OK, closing connection\r\n') else 1)
PY
	stop_cairnd
else
	not_run "IPv6 (no ::1 here)"
fi
exit 0
