#!/bin/sh
# cairnd -X behind a real HAProxy in TCP mode: one backend with
# send-proxy (v1), one with send-proxy-v2 and the tcp-check sequence of
# contrib/haproxy.cfg.  HAProxy reaches cairnd from 127.0.0.3 (listed in
# -X); ktcheck on 127.0.0.1 gets 127.0.0.1's command file through both,
# and the log names it.  The health check (a v2 LOCAL header) keeps the
# server up, marks it down while the repository has no command
# directory, and up again once it is back.  At -w 1, TLS runs from
# ktcheck through HAProxy to cairnd, and config is matched by the
# address the header named.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/tlslib.sh"
command -v haproxy >/dev/null 2>&1 || skip "haproxy is not installed"
python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.3", 0))' \
    2>/dev/null || skip "127.0.0.3 is not a local address"
make_repo "$T/repo"
R=$T/repo
start_cairnd "$R" -X 127.0.0.3
on_fail 'echo "--- cairnd:"; cat "$SLOG"; echo "--- haproxy:"; cat "$T/hap.log"'

F1=$(free_port) || fail "no free port"
F2=$(free_port) || fail "no free port"
[ "$F1" != "$F2" ] || F2=$(free_port)
HPID=

# hap_start: HAProxy in front of cairnd's $PORT, frontends $F1 (v1) and
# $F2 (v2 and checks).
hap_start()
{
	cat >"$T/haproxy.cfg" <<CFG
global
	maxconn 100
	stats socket $T/hap.sock mode 600 level admin
defaults
	mode tcp
	timeout connect 5s
	timeout client 30s
	timeout server 30s
frontend v1
	bind 127.0.0.1:$F1
	default_backend v1
frontend v2
	bind 127.0.0.1:$F2
	default_backend v2
backend v1
	server c1 127.0.0.1:$PORT send-proxy source 127.0.0.3
backend v2
	balance source
	option tcp-check
	tcp-check expect rstring ^200
	tcp-check send NOOP\\r\\n
	tcp-check expect rstring ^202
	tcp-check send QUIT\\r\\n
	tcp-check expect rstring ^201
	server c2 127.0.0.1:$PORT send-proxy-v2 check-send-proxy source 127.0.0.3 check inter 200ms fall 1 rise 1
CFG
	haproxy -c -f "$T/haproxy.cfg" >"$T/hap.check" 2>&1 ||
	    fail "haproxy -c: $(cat "$T/hap.check")"
	bg_start "$T/hap.sock" haproxy -db -f "$T/haproxy.cfg" \
	    >>"$T/hap.log" 2>&1
	HPID=$BGPID
	wait_port "$F1" 100 || fail "haproxy does not listen"
}

hap_stop()
{
	kill "$HPID" 2>/dev/null
	wait "$HPID" 2>/dev/null
	rm -f "$T/hap.sock"
}

hap_start

# status WANT: the v2 server's health as HAProxy sees it is WANT.
status()
{
	python3 - "$T/hap.sock" "$1" <<'PY'
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.settimeout(5)
s.connect(sys.argv[1])
s.sendall(b'show stat\n')
got = b''
while True:
    d = s.recv(65536)
    if not d:
        break
    got += d
for line in got.decode().splitlines():
    f = line.split(',')
    if len(f) > 17 and f[0] == 'v2' and f[1] == 'c2':
        sys.exit(0 if f[17].startswith(sys.argv[2]) else 1)
sys.exit(1)
PY
}
# kt DIR PORT: ktcheck through the balancer's PORT into DIR.
kt()
{
	mkdir -p "$1"
	: >"$1/command.K"
	_port=$PORT
	PORT=$2
	run_client ktcheck -K "$1/command.K"
	PORT=$_port
}

kt "$T/c1" "$F1"
assert_eq 1 "$RC" "ktcheck via send-proxy ($(cat "$T/err"))"
assert_file_eq "$R/command/test.K" "$T/c1/command.K" "send-proxy"
retry 100 status UP || fail "v2 server not UP: $(cat "$T/hap.log")"
kt "$T/c2" "$F2"
assert_eq 1 "$RC" "ktcheck via send-proxy-v2 ($(cat "$T/err"))"
assert_file_eq "$R/command/test.K" "$T/c2/command.K" "send-proxy-v2"
wait_log '\[127\.0\.0\.1\]: connect via 127\.0\.0\.3'
grep -q 'refused' "$SLOG" && fail "refusals: $(cat "$SLOG")"

# The checks came as LOCAL: the balancer itself, not matched in config.
wait_log '\[127\.0\.0\.3\]: connect via 127\.0\.0\.3'
grep -q 'host not in config' "$SLOG" && fail "a check was matched: $(cat "$SLOG")"

mv "$R/command" "$R/command.away" || fail "mv"
retry 100 status DOWN || fail "v2 server not DOWN without command/"
wait_log 'repository unusable: command: No such file or directory'
mv "$R/command.away" "$R/command" || fail "mv back"
retry 100 status UP || fail "v2 server not UP again"
hap_stop
stop_cairnd

# TLS passes through: at -w 1, STARTTLS runs from ktcheck to cairnd and
# the host is then matched by the address the header named; the checks
# still pass (NOOP needs no TLS).
tls_repo "$R"
: >"$SLOG"
start_cairnd "$R" -X 127.0.0.3 -w 1
hap_start
retry 100 status UP || fail "-w 1: v2 server not UP"
rm -rf "$T/c3"
mkdir "$T/c3"
run_capture "$T/out" "$T/err" "$(tool_path ktcheck)" -h 127.0.0.1 \
    -p "$F2" -w 1 -x "$PKI/ca.pem" -K "$T/c3/command.K"
assert_eq 1 "$RC" "ktcheck -w 1 via send-proxy-v2 ($(cat "$T/err"))"
assert_file_eq "$R/command/test.K" "$T/c3/command.K" "-w 1"
wait_log '\[127\.0\.0\.1\]: TLS started (TLSv1\.[23] '
grep -q 'host not in config' "$SLOG" && fail "-w 1: $(cat "$SLOG")"
exit 0
