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

# The server's own time is not the client's.  The fault injector makes
# the session's first syncfs (of the transcript, while the session waits
# for more of the file after it) take 3 s; meanwhile the client keeps
# sending the file's 2 MiB body at 640 KiB/s from a small send buffer,
# well within -E 2 for every 256 KiB.  The upload is stored.
need_shim
: >"$SLOG"
LD_PRELOAD=$SHIM
CAIRN_SHIM_STOP=syncfs:1
CAIRN_SHIM_RUN="sleep 3"
export LD_PRELOAD CAIRN_SHIM_STOP CAIRN_SHIM_RUN
start_cairnd "$T/repo" -E 2
unset LD_PRELOAD CAIRN_SHIM_STOP CAIRN_SHIM_RUN
python3 - "$PORT" >"$T/own" <<'PY' || fail "paced upload: $(cat "$T/own")"
import socket, sys, time

s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 16384)
s.settimeout(30)
s.connect(('127.0.0.1', int(sys.argv[1])))
f = s.makefile('rb')
while not f.readline().startswith(b'200 '):
    pass
body = b'x' * (2 << 20)
s.sendall(b'STOR TRANSCRIPT own.T\r\n6\r\norder\n.\r\n'
    b'STOR FILE own.T ./big\r\n%d\r\n' % len(body))
for i in range(0, len(body), 65536):
    s.sendall(body[i:i + 65536])
    time.sleep(0.1)
s.sendall(b'.\r\nQUIT\r\n')
for _ in range(8):
    l = f.readline()
    if not l:
        break
    print(l.decode('latin-1').rstrip('\r\n'))
PY
assert_eq 2 "$(grep -c '^250 ' "$T/own")" "paced upload: $(cat "$T/own")"
! grep -q 'timed out' "$SLOG" || fail "paced upload timed out: $(cat "$SLOG")"
assert_eq $((2 << 20)) "$(wc -c <"$T/repo/tmp/file/own.T/big")" "stored"
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
