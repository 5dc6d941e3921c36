#!/bin/sh
# cairnd's listener when its own system calls fail (docs/security.md F1),
# through the fault injector:
#  1. fork fails (EAGAIN: out of processes): the client is refused with
#     "420 Server busy", as -m refuses one, not closed on without a word;
#     the log names it; the next client is served.
#  2. A session process killed by a signal: the log names its peer.
#  3. ppoll fails for good (ENOMEM): the listener waits before it polls
#     again, not spinning on the error, and still takes SIGTERM.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
need_shim
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
errno()
{
	python3 -c "import errno; print(errno.$1)"
}

# 1. The first fork fails.
LD_PRELOAD=$SHIM CAIRN_SHIM_FAIL=fork:1:$(errno EAGAIN)
export LD_PRELOAD CAIRN_SHIM_FAIL
start_cairnd "$T/repo"
unset LD_PRELOAD CAIRN_SHIM_FAIL
rap "$PORT" 'NOOP\r\nQUIT\r\n' >"$T/out" || fail "rap"
grep -q '^420 Server busy' "$T/out" ||
    fail "fork failed: not refused with 420: $(cat "$T/out")"
wait_log 'connection from 127\.0\.0\.1 refused: fork: Resource temporarily unavailable'
# The listener pauses for a second after it; the next client waits for
# it in the listen queue and is served.
noop_ok "after fork failed"

# 2. A session killed: its peer is named.
bg_start "$T/held" python3 -c 'import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
open(sys.argv[2], "w").close()
time.sleep(60)' "$PORT" "$T/held"
wait_kids 1
kid=$(cairnd_kids)
kill -KILL "$kid"
wait_log "child $kid killed by signal 9 (connection from 127\\.0\\.0\\.1)"
stop_cairnd

# 3. Every ppoll fails.
: >"$SLOG"
LD_PRELOAD=$SHIM CAIRN_SHIM_FAIL=ppoll:1:$(errno ENOMEM):1000000000
export LD_PRELOAD CAIRN_SHIM_FAIL
start_cairnd "$T/repo"
unset LD_PRELOAD CAIRN_SHIM_FAIL
# A listener spinning on the error never lets SIGTERM in: kill it if
# this fails.
on_fail 'kill -KILL "$SPID" 2>/dev/null'
wait_log 'poll: Cannot allocate memory'
sleep 1
n=$(grep -c 'poll: Cannot allocate memory' "$SLOG")
[ "$n" -le 20 ] || fail "$n 'poll' lines: the listener spun on the error"
kill -TERM "$SPID"
# Ended: gone, or a zombie waiting for this shell.
ended()
{
	case $(sed 's/.*) \([A-Za-z]\) .*/\1/' "/proc/$SPID/stat" 2>/dev/null) in
	''|Z)	return 0 ;;
	esac
	return 1
}
retry 100 ended ||
    fail "SIGTERM not taken while ppoll fails"
wait_log 'shutting down'
exit 0
