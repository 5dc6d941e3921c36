#!/bin/sh
# cairnd takes its signals while connections wait (cairnd(8), Signals):
# the listener keeps SIGTERM and SIGCHLD blocked outside its wait for
# connections, and that wait lets them in only when it has to sleep, not
# when a connection is already queued.  Under a steady stream of
# connections SIGTERM would never stop the daemon and finished sessions
# would never be reaped (their -m and -s slots held).  Deterministic:
# just before the listener's first wait (the fault shim's stop hook on
# ppoll) a client connects and SIGTERM is sent; the daemon must stop
# without starting a session for that client.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
need_shim
make_repo "$T/repo"

CAIRND_PORT=$(cairnd_free_port) || fail "no free port"
# The hook runs in sh -c, a child of cairnd: $PPID is the listener.
cat >"$T/hook.sh" <<EOF
$PYTHON "$top_srcdir/tests/integ/bannerwait.py" $CAIRND_PORT "$T/connected" "$T/reply" &
n=0
until [ -e "$T/connected" ]; do
	n=\$((n + 1)); [ \$n -le 100 ] || break
	sleep 0.1
done
kill -TERM \$PPID
EOF
LD_PRELOAD=$SHIM
CAIRN_SHIM_STOP=ppoll:1
CAIRN_SHIM_RUN=". $T/hook.sh"
export LD_PRELOAD CAIRN_SHIM_STOP CAIRN_SHIM_RUN
start_cairnd "$T/repo"
unset LD_PRELOAD CAIRN_SHIM_STOP CAIRN_SHIM_RUN
[ -e "$T/connected" ] || fail "the hook's client did not connect"
wait_log 'shutting down'
retry 300 test -e "$T/reply" || fail "the client got no answer"
if grep -q '^200' "$T/reply"; then
	fail "a session started after SIGTERM: $(cat "$SLOG")"
fi
grep -q 'connect$' "$SLOG" && fail "a session started after SIGTERM"
stop_cairnd
exit 0
