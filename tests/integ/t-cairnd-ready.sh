#!/bin/sh
# cairnd tells when it is ready (cairnd(8), "Starting"): the -i pid file
# gets its content only once the sockets listen, so a connection made as
# soon as it appears is accepted (over several starts); it is renamed
# into place, leaving no temporary file, and a failed start leaves none.
# Under NOTIFY_SOCKET (systemd's Type=notify) cairnd sends "READY=1" on
# that datagram socket, a path or an abstract "@" name, once it listens.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"

# connect_now PORT: one connection attempt, no retry.
connect_now()
{
	python3 -c 'import socket, sys
socket.create_connection(("127.0.0.1", int(sys.argv[1])), 5).close()' "$1"
}

_pid_ready()
{
	[ -s "$T/run/cairnd.pid" ] && return 0
	kill -0 "$RPID" 2>/dev/null || return 255
	return 1
}

RPID=
stop_ready()
{
	if [ -n "$RPID" ]; then
		kill "$RPID" 2>/dev/null
		wait "$RPID" 2>/dev/null
		RPID=
	fi
}
at_exit stop_ready

# start_ready: cairnd -f -i on a free port, waiting (bounded) for the pid
# file to have content; a lost port is retried with another.
start_ready()
{
	_try=0
	while [ "$_try" -lt 5 ]; do
		_try=$((_try + 1))
		PORT=$(free_port) || fail "no free port"
		"$CAIRND" -f -a 127.0.0.1 -p "$PORT" -D "$T/repo" \
		    -i "$T/run/cairnd.pid" 2>>"$T/cairnd.log" &
		RPID=$!
		retry 100 _pid_ready && return 0
		stop_ready
	done
	cat "$T/cairnd.log" >&2
	fail "cairnd did not write its pid file"
}

mkdir -p "$T/run"
i=0
while [ "$i" -lt 8 ]; do
	i=$((i + 1))
	start_ready
	connect_now "$PORT" || fail "start $i: pid file before the port listens"
	assert_eq "$RPID" "$(cat "$T/run/cairnd.pid")" "start $i: pid"
	stop_ready
	[ -e "$T/run/cairnd.pid" ] && fail "start $i: pid file left at exit"
	assert_eq "" "$(ls "$T/run")" "start $i: files left in the pid directory"
done

# A start that fails (no such repository) leaves no pid file, nor a
# temporary one.
run_capture "$T/out" "$T/err" "$CAIRND" -f -a 127.0.0.1 -p "$(free_port)" \
    -D "$T/no-such-repo" -i "$T/run/cairnd.pid"
assert_eq 1 "$RC" "failed start: exit status"
assert_eq "" "$(ls "$T/run")" "failed start: files left in the pid directory"
# An unwritable place for the pid file fails the start at once.
run_capture "$T/out" "$T/err" "$CAIRND" -f -a 127.0.0.1 -p "$(free_port)" \
    -D "$T/repo" -i "$T/no-such-dir/cairnd.pid"
assert_eq 1 "$RC" "pid file in a missing directory: exit status"
grep -q "no-such-dir/cairnd.pid" "$T/err" || fail "pid file error: $(cat "$T/err")"

# NOTIFY_SOCKET: a listener receives one datagram and, right then, makes
# one connection to the port; it prints what it got and whether the
# connection was accepted.
cat >"$T/notify.py" <<'EOF'
import socket, sys
name, port, ready, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
s = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
s.bind("\0" + name[1:] if name.startswith("@") else name)
open(ready, "w").close()
s.settimeout(30)
try:
    msg = s.recv(4096).decode()
except socket.timeout:
    msg = "timeout"
try:
    socket.create_connection(("127.0.0.1", port), 5).close()
    conn = "connected"
except OSError as e:
    conn = "refused: %s" % e
with open(out, "w") as f:
    f.write("%s %s\n" % (msg, conn))
EOF

# notify_run NAME: start cairnd with NOTIFY_SOCKET=NAME and check what the
# listener received.
notify_run()
{
	rm -f "$T/notify.out"
	PORT=$(free_port) || fail "no free port"
	bg_start "$T/notify.ready" python3 "$T/notify.py" "$1" "$PORT" \
	    "$T/notify.ready" "$T/notify.out"
	NPID=$BGPID
	NOTIFY_SOCKET=$1 "$CAIRND" -f -a 127.0.0.1 -p "$PORT" -D "$T/repo" \
	    2>>"$T/cairnd.log" &
	RPID=$!
	wait "$NPID"
	stop_ready
	[ -f "$T/notify.out" ] || fail "NOTIFY_SOCKET $1: listener wrote nothing"
	assert_eq "READY=1 connected" "$(cat "$T/notify.out")" \
	    "NOTIFY_SOCKET $1"
}
notify_run "$T/notify.sock"
notify_run "@cairn-test-notify-$$"
exit 0
