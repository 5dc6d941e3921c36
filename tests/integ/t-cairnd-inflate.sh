#!/bin/sh
# cairnd under compression: the request line cap counts decompressed
# bytes and a line that never ends costs no more than the cap (a zlib
# stream of 64 MiB without a newline); compressed lines that inflate
# more than 100:1 (a bomb of NOOP lines) end the session; the memory of
# a session child stays bounded while it is fed a bomb and while it
# sends a compressed file to a client that does not read; other clients
# are served meanwhile.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
# Memory per connection documented in cairnd(8), in KiB.
MAXKB=2048
# Sanitizer builds: no memory checks.
memcheck=1
memchecked || memcheck=0

# anon PID: the anonymous memory (KiB) of process PID.
anon()
{
	awk '/^RssAnon:/ { print $2 }' "/proc/$1/status"
}

start_cairnd "$T/repo" -Z 9

# 1. 64 MiB of 'A' in one compressed line: cut off at the cap (16 KiB),
#    with "500 Line too long", and the session inflated no more than the
#    cap (its log line counts the plain bytes received).
limpeer "$PORT" bomb "$SPID" 64 'A' >"$T/bomb" || fail "limpeer bomb"
grep -qx 'reply=500 Line too long, closing connection' "$T/bomb" ||
    fail "long compressed line: $(cat "$T/bomb")"
c=$(field closed_s "$T/bomb")
[ -n "$c" ] && [ "$c" != open ] || fail "long line: not closed: $(cat "$T/bomb")"
got=$(sed -n 's/.*session end: zlib level 9, sent [0-9]* bytes ([0-9]* on the wire, ratio [0-9.]*), received \([0-9]*\) bytes.*/\1/p' "$SLOG" | head -n 1)
[ -n "$got" ] || fail "no session end line: $(cat "$SLOG")"
[ "$got" -le 16500 ] ||
    fail "long line: $got plain bytes inflated for a 16 KiB cap"
if [ "$memcheck" -eq 1 ]; then
	a0=$(field anon0_kb "$T/bomb")
	am=$(field anonmax_kb "$T/bomb")
	[ "$a0" -gt 0 ] || fail "no memory figures: $(cat "$T/bomb")"
	[ $((am - a0)) -le "$MAXKB" ] ||
	    fail "long line: session grew by $((am - a0)) KiB"
fi
noop_ok "after a long compressed line"

# 2. A bomb of NOOP lines (about 700:1): the session ends at the first
#    window of 64 KiB of lines, with "444", long before 64 MiB of NOOPs
#    (13 million) are answered.
limpeer "$PORT" bomb "$SPID" 64 'NOOP\r\n' >"$T/bomb" ||
    fail "limpeer bomb"
grep -qx 'reply=444 Server closing connection' "$T/bomb" ||
    fail "NOOP bomb: no 444: $(cat "$T/bomb")"
n=$(field noop_ok "$T/bomb")
[ "$n" -le 20000 ] || fail "NOOP bomb: $n NOOPs answered"
c=$(field closed_s "$T/bomb")
[ -n "$c" ] && [ "$c" != open ] || fail "NOOP bomb: not closed: $(cat "$T/bomb")"
grep -q 'compressed lines inflate more than 100:1' "$SLOG" ||
    fail "NOOP bomb not logged: $(cat "$SLOG")"
noop_ok "after a NOOP bomb"

# 3. Ordinary compressed commands are not a bomb: the 2000 STAT lines
#    of a client pipelining its requests are all answered.
python3 - "$PORT" >"$T/stats" <<'PY' || fail "pipelined STATs"
import socket, sys, zlib
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), 10)
s.settimeout(10)
buf = b''
while b'CAPA' not in buf:
    buf += s.recv(4096)
s.sendall(b'COMP ZLIB 9\r\n')
while b'\r\n320 ' not in buf or b'\r\n' not in buf[buf.index(b'\r\n320 ') + 2:]:
    buf += s.recv(4096)
# What follows the 320 line is compressed.
i = buf.index(b'\r\n', buf.index(b'\r\n320 ') + 2) + 2
rest = buf[i:]
d = zlib.compressobj(9)
req = b''.join(b'STAT SPECIAL ./etc/file%05d\n' % i for i in range(2000))
s.sendall(d.compress(req + b'QUIT\r\n') + d.flush(zlib.Z_SYNC_FLUSH))
inf = zlib.decompressobj()
out = inf.decompress(rest)
while True:
    data = s.recv(65536)
    if not data:
        break
    out += inf.decompress(data)
sys.stdout.write(out.decode('latin-1'))
PY
n=$(grep -c "^531 " "$T/stats")
assert_eq 2000 "$n" "pipelined STATs answered"
grep -q '^201 QUIT OK' "$T/stats" || fail "pipelined STATs: no QUIT reply"

# 4. Memory while sending a compressed file (8 MiB, incompressible) to a
#    client that stops reading after the first MiB: the child waits on a
#    full socket with bounded buffers.
head -c 8388608 /dev/urandom >"$T/repo/file/test.T/etc/big" ||
    fail "big file"
limpeer "$PORT" hold 1 "$T/go0" >"$T/idle" &
HPID=$!
wait_kids 1
idlekid=$(cairnd_kids)
a0=$(anon $idlekid)
touch "$T/go0"
wait "$HPID"
limpeer "$PORT" retr ./etc/big 9 "$T/go" >"$T/retr" &
RPID=$!
retry 100 grep -q '^size=' "$T/retr"
grep -q '^size=8388608' "$T/retr" || fail "RETR: $(cat "$T/retr")"
sleep 1
for k in $(cairnd_kids); do
	a=$(anon "$k")
	if [ "$memcheck" -eq 1 ] && [ -n "$a" ]; then
		[ $((a - a0)) -le "$MAXKB" ] ||
		    fail "compressed RETR: session grew by $((a - a0)) KiB"
	fi
done
# Another client is served meanwhile.
noop_ok "during a blocked RETR"
touch "$T/go"
wait "$RPID" || fail "limpeer retr"
assert_eq "$(sha1hex "$T/repo/file/test.T/etc/big")" \
    "$(field sha1 "$T/retr")" "compressed RETR content"
assert_eq . "$(field end "$T/retr")" "compressed RETR terminator"
exit 0
