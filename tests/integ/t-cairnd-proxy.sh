#!/bin/sh
# cairnd -X behind a PROXY protocol forwarder (tests/integ/pxfwd.py) on
# 127.0.0.1: config is matched by the client address a v1 and a v2
# header claim (ktcheck gets that host's command file) and the log names
# it; a v2 LOCAL header (a balancer's health check) gets the banner and
# the verbs that need no host; a listed address without a header, a
# header from an unlisted address (127.0.0.2) and a malformed header are
# refused with a log line while others are still served; -s counts the
# claimed clients; a repository without its command directory answers
# 421 instead of the banner; a bad -X is a usage error (2).
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
R=$T/repo
{
	echo '192.0.2.7 claimed.K'
	echo '2001:db8::8 v6.K'
	echo '127.0.0.1 test.K'
} >"$R/config"
printf 'p test.T\n' >"$R/command/claimed.K"
printf 'n neg.T\n' >"$R/command/v6.K"
# 127.0.0.2 must be usable as a source address (Linux loopback is /8).
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.2", 0))' \
    2>/dev/null || skip "127.0.0.2 is not a local address"

# A bad -X is a usage error (2) naming the option.
for bad in 10.0.0.0/33 host.example 10.0.0.1, ::1/129; do
	run_capture "$T/out" "$T/err" "$CAIRND" -f -D "$R" -X "$bad"
	assert_eq 2 "$RC" "-X $bad exit status"
	grep -q -- "-X $bad" "$T/err" || fail "-X $bad: $(cat "$T/err")"
done

start_cairnd "$R" -X 127.0.0.1,::1
MODE=$T/mode
echo none >"$MODE"
start_proxy "$T/px.ready" pxfwd.py "$T/px.ready" "$MODE"

# mode LINE: what the forwarder does for the next connections.
mode()
{
	echo "$*" >"$MODE"
}

# kt DIR: ktcheck through the forwarder into DIR.
kt()
{
	mkdir -p "$1"
	: >"$1/command.K"
	_port=$PORT
	PORT=$PPORT
	run_client ktcheck -K "$1/command.K"
	PORT=$_port
}

# v1: the claimed address picks claimed.K.
mode v1 192.0.2.7
kt "$T/c1"
assert_eq 1 "$RC" "ktcheck via v1 ($(cat "$T/err"))"
assert_file_eq "$R/command/claimed.K" "$T/c1/command.K" "v1: command file"
wait_log '192\.0\.2\.7\]: connect via 127\.0\.0\.1'

# v2 (with a TLV), an IPv6 client.
mode v2 2001:db8::8
kt "$T/c2"
assert_eq 1 "$RC" "ktcheck via v2 ($(cat "$T/err"))"
assert_file_eq "$R/command/v6.K" "$T/c2/command.K" "v2: command file"
wait_log '2001:db8::8\]: connect via 127\.0\.0\.1'

# v2 LOCAL: the balancer itself; the banner, NOOP, no host's files.
mode local
{
	banner
	printf '202 NOOP OK\r\n'
	printf '500 No access for localhost\r\n'
} >"$T/exp"
rap "$PPORT" 'NOOP\r\nSTAT COMMAND\r\n' >"$T/out" || fail "rap"
sed 's/No access for 127.0.0.1/No access for localhost/' "$T/out" >"$T/out2"
assert_file_eq "$T/exp" "$T/out2" "LOCAL"
# v1 UNKNOWN is the same.
mode unknown
rap "$PPORT" 'NOOP\r\nSTAT COMMAND\r\n' >"$T/out" || fail "rap"
sed 's/No access for 127.0.0.1/No access for localhost/' "$T/out" >"$T/out2"
assert_file_eq "$T/exp" "$T/out2" "UNKNOWN"

# A listed address must send a header: a client talking RAP at once is
# refused before the banner.
: >"$T/exp"
rap "$PORT" 'NOOP\r\n' >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "no header"
wait_log 'connection from 127\.0\.0\.1 refused: PROXY header: no PROXY header'

# A malformed header is refused, and the daemon keeps serving.
mode garbage
rap "$PPORT" 'NOOP\r\n' >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "garbage header"
wait_log 'connection from 127\.0\.0\.1 refused: PROXY header: v1 header: bad source address'
mode v1 192.0.2.7
rap "$PPORT" 'NOOP\r\n' >"$T/out" || fail "rap"
grep -q '^202 NOOP OK' "$T/out" || fail "after garbage: $(cat "$T/out")"

# A header from an address not listed (127.0.0.2) is refused.
mode v1 192.0.2.7 127.0.0.2
rap "$PPORT" 'NOOP\r\n' >"$T/out" || fail "rap"
grep -q 'NOOP OK' "$T/out" && fail "unlisted: served: $(cat "$T/out")"
wait_log '127\.0\.0\.2\]: refused: PROXY header from an address not listed in -X'
# ... while that address without a header is an ordinary client.
mode none 192.0.2.7 127.0.0.2
rap "$PPORT" 'NOOP\r\n' >"$T/out" || fail "rap"
printf '500 No access for %s\r\n' 127.0.0.2 >"$T/exp"
sed 's/No access for .*/No access for 127.0.0.2\r/' "$T/out" >"$T/out2"
assert_file_eq "$T/exp" "$T/out2" "unlisted, no header"

# Health: without the command directory, 421 replaces the banner.
mode local
mv "$R/command" "$R/command.away" || fail "mv"
printf '421 Service not available, repository unusable (command: No such file or directory)\r\n' >"$T/exp"
rap "$PPORT" 'NOOP\r\n' >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "no command directory"
wait_log 'repository unusable: command: No such file or directory'
mv "$R/command.away" "$R/command" || fail "mv back"
rap "$PPORT" 'NOOP\r\n' >"$T/out" || fail "rap"
grep -q '^202 NOOP OK' "$T/out" || fail "repository back: $(cat "$T/out")"
stop_cairnd
kill "$PROXY" 2>/dev/null

# -s 1 counts the clients the headers name, not the forwarder.
start_cairnd "$R" -X 127.0.0.1 -s 1
start_proxy "$T/px2.ready" pxfwd.py "$T/px2.ready" "$MODE"
mode v1 192.0.2.7
python3 - "$PPORT" "$MODE" >"$T/out" <<'PY' || fail "-s 1: $(cat "$T/out")"
import socket, sys
port, modefile = int(sys.argv[1]), sys.argv[2]

def first_reply(claim):
    with open(modefile, 'w') as f:
        f.write('v1 %s\n' % claim)
    s = socket.create_connection(('127.0.0.1', port), 10)
    s.settimeout(10)
    got = b''
    while not got.endswith(b'\r\n') or got.startswith(b'200-') and \
            got.count(b'\r\n') < 2:
        d = s.recv(4096)
        if not d:
            break
        got += d
    return s, got

a, ga = first_reply('192.0.2.7')
b, gb = first_reply('192.0.2.7')
c, gc = first_reply('192.0.2.9')
print(ga, gb, gc)
ok = ga.startswith(b'200-') and gb == b'420 Server busy\r\n' and \
    gc.startswith(b'500 No access')
sys.exit(0 if ok else 1)
PY
wait_log 'connection from 192\.0\.2\.7 via 127\.0\.0\.1 refused: 1 connections from that address (-s 1)'
exit 0
