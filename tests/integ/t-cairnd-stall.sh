#!/bin/sh
# A client that does not read (docs/security.md F3): it asks for a 32 MiB
# file with a small receive buffer and reads nothing of the body.  The
# session child waits on the full socket for at most the transfer time
# (60 s for each write, cairnd(8)), then gives up, logs the timeout and
# exits; its memory does not grow with the file meanwhile, and other
# clients are served while it is stuck.  The wait is bounded (150 s).
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
# Sanitizer builds: no memory checks.
memcheck=1
memchecked || memcheck=0
truncate -s 32M "$T/repo/file/test.T/etc/big" || fail "big file"

start_cairnd "$T/repo"
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
grep -q 'timed out' "$SLOG" || fail "no timeout logged: $(cat "$SLOG")"
if [ "$memcheck" -eq 1 ]; then
	mem_flat "$T/stall" anon0_kb 256 "the stuck session"
fi
noop_ok "after the stuck session"
stop_cairnd
exit 0
