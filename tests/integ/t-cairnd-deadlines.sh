#!/bin/sh
# cairnd deadlines, with short settings: a command line that has begun
# must be complete within -t however slowly it trickles in, and each
# 256 KiB of an upload within -E; a client may be idle for -I between
# commands and no more; at TLS level 1 a
# client that sends nothing, stalls in the TLS handshake or only sends
# NOOPs is dropped once the grace time (-G) from connecting is over, and
# its slot is free again; once TLS is up the grace time no longer
# applies.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"

# closed SCENARIO LABEL: the server closed the connection (as the last
# limpeer output, $OUT, tells).  limpeer waits 60 s at most, a bound that
# only keeps the test from hanging: which deadline closed it is told by
# the log line and the reply checked with it, not by the clock.
closed()
{
	_c=$(field "$1.closed_s" "$OUT")
	[ -n "$_c" ] && [ "$_c" != open ] ||
	    fail "$2: not closed: $(grep "^$1\." "$OUT")"
}

# Level 0: a 2-second line time, a 2-second idle time and a 2-second
# transfer time.  A client trickling a line (one byte every 0.5 s), one
# trickling an upload's body as slowly, a silent one and a busy one (a
# NOOP every 0.5 s for 3 s) run side by side.
start_cairnd "$T/repo" -t 2 -I 2 -E 2
OUT=$T/a
limpeer "$PORT" trickle 0.5 + stortrickle 0.5 + silent + noops 6 0.5 \
    >"$T/a" || fail "limpeer"
closed trickle "trickled line"
s=$(field trickle.sent "$OUT")
[ "$s" -lt 100 ] || fail "trickled line: $s bytes accepted"
grep -qx 'trickle.reply=444 Server closing connection' "$T/a" ||
    fail "trickled line: $(cat "$T/a")"
grep -q 'line not complete 2 s after it began' "$SLOG" ||
    fail "line time not logged: $(cat "$SLOG")"
# -E bounds each 256 KiB of an upload's body (here all 100000 bytes),
# not each read: the trickled body ends the session.
closed stortrickle "trickled upload"
s=$(field stortrickle.sent "$OUT")
[ "$s" -lt 100 ] || fail "trickled upload: $s bytes accepted"
grep -qx 'stortrickle.reply=555 Length doesn.t match sent data tmp/transcript/trickle.T' \
    "$T/a" || fail "trickled upload: $(cat "$T/a")"
grep -q 'timed out' "$SLOG" || fail "upload time not logged: $(cat "$SLOG")"
[ ! -e "$T/repo/tmp/transcript/trickle.T" ] ||
    fail "trickled upload: its transcript left in tmp/"
closed silent "idle client"
grep -qx 'silent.reply=444 Server closing connection' "$T/a" ||
    fail "idle client: $(cat "$T/a")"
grep -q 'no line in 2 s' "$SLOG" || fail "idle time not logged: $(cat "$SLOG")"
assert_eq 6 "$(field noops.noop_ok "$OUT")" "busy client: NOOPs answered"
assert_eq open "$(field noops.closed_s "$OUT")" "busy client"
stop_cairnd

# Level 1 needs TLS material.
command -v openssl >/dev/null 2>&1 ||
    skip "level 0 passed; the TLS part needs openssl"
. "$top_srcdir/tests/integ/tlslib.sh"
tls_repo "$T/repo"

# -G 2 and room for four sessions: a client that completes TLS, a silent
# one, one that stalls in the handshake and one that sends NOOPs in
# clear fill the server, and a fifth is refused.  The three without TLS
# are dropped at the grace time; the one with TLS may idle past it.
# Then there is room for four again.
: >"$SLOG"
start_cairnd "$T/repo" -w 1 -G 2 -m 4
OUT=$T/b
limpeer "$PORT" tlsidle 3 + silent + halfhello + noops 100 0.5 + \
    busy >"$T/b" || fail "limpeer"
grep -qx 'busy.reply=420 Server busy' "$T/b" || fail "-m 4: $(cat "$T/b")"
closed silent "silent client before TLS"
closed halfhello "half a ClientHello"
closed noops "NOOPs before TLS"
n=$(field noops.noop_ok "$OUT")
[ "$n" -lt 100 ] || fail "NOOPs before TLS: all $n answered"
n=$(grep -c 'not authorized within 2 s' "$SLOG")
assert_eq 3 "$n" "grace time log lines"
assert_eq 1 "$(field tlsidle.noop_ok "$OUT")" "idle after TLS"
# The slots are free again (bounded retries while the daemon reaps).
wait_served 4
exit 0
