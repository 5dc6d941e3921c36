#!/bin/sh
# A client that does not read (docs/security.md F3): it asks for a 32 MiB
# file with a small receive buffer and reads nothing of the body.  The
# session child waits on the full socket for at most the transfer time
# (-E, 60 s by default, here 5 s, for each write, cairnd(8)), then gives
# up, logs the timeout and exits; its memory does not grow with the file
# meanwhile, and other clients are served while it is stuck.  The wait
# is bounded (150 s).  -E out of range is a usage error.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
# Sanitizer builds: no memory checks.
memcheck=1
memchecked || memcheck=0
truncate -s 32M "$T/repo/file/test.T/etc/big" || fail "big file"

for t in 0 86401 5s; do
	run_capture "$T/out" "$T/err" "$CAIRND" -E "$t"
	assert_eq 2 "$RC" "-E $t: $(cat "$T/err")"
	grep -q "transfer time $t: " "$T/err" || fail "-E $t: $(cat "$T/err")"
done
# The default, as the daemon reads its settings.
start_cairnd "$T/repo" -L debug
wait_log 'idle 3600 s, transfer 60 s'
stop_cairnd

: >"$SLOG"
start_cairnd "$T/repo" -L debug -E 5
wait_log 'transfer 5 s'
limpeer "$PORT" stall "$SPID" ./etc/big >"$T/stall" &
LPID=$!
retry 100 grep -q '^size=' "$T/stall" || fail "no RETR reply: $(cat "$T/stall")"
grep -qx 'size=33554432' "$T/stall" || fail "RETR: $(cat "$T/stall")"
noop_ok "while a download is stuck"
RC=0
wait "$LPID" || RC=$?
cat "$T/stall"
assert_eq 0 "$RC" "limpeer stall"
g=$(field gone_s "$T/stall")
[ -n "$g" ] && [ "$g" != open ] || fail "the stuck session never ended"
# Ended by -E 5, not by the 60-second default (a bound with room to
# spare, not a measure of speed).
[ "$g" -lt 45 ] || fail "the stuck session lasted $g s: -E 5 not applied"
grep -q 'timed out' "$SLOG" || fail "no timeout logged: $(cat "$SLOG")"
if [ "$memcheck" -eq 1 ]; then
	mem_flat "$T/stall" anon0_kb 256 "the stuck session"
fi
noop_ok "after the stuck session"
stop_cairnd
exit 0
