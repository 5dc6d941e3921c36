#!/bin/sh
# The client verifies the server (docs/security.md 6.E1-E4, E6): a certificate
# from an untrusted CA, a name or IP the certificate does not carry, an
# expired or not yet valid certificate, a TLS 1.1-only server, a server
# that refuses STARTTLS (no fallback to clear text) and one that sends
# clear text behind its "220".  Each ends in exit 2 with a message naming
# the problem, and the server never receives a command.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/tlslib.sh"
R=$T/repo
make_repo "$R"
tls_repo "$R"
mkdir "$T/c"

# refused WHAT MESSAGE-PATTERN ARGS...: ktcheck must fail with exit 2,
# say MESSAGE-PATTERN, send nothing after STARTTLS and write nothing.
refused()
{
	_what=$1 _pat=$2
	shift 2
	run_capture "$T/out" "$T/err" "$KTCHECK" -v -K "$T/c/command.K" \
	    -p "$PORT" "$@"
	assert_eq 2 "$RC" "$_what: exit status ($(cat "$T/err"))"
	grep -q -- "$_pat" "$T/err" ||
	    fail "$_what: message: $(grep -v '^[<>]' "$T/err")"
	if sed -n '/^>>> STARTTLS/,$p' "$T/err" | grep '^>>> ' |
	    grep -qv '^>>> STARTTLS$'; then
		fail "$_what: client sent a command: $(cat "$T/err")"
	fi
	[ -e "$T/c/command.K" ] && fail "$_what: command.K written"
	return 0
}

# E1: the server's certificate comes from a CA the client does not trust.
start_cairnd "$R" -d -w 1
refused "untrusted CA" \
    'certificate verification failed: unable to get local issuer certificate' \
    -w 1 -x "$EVIL/ca.pem" -h 127.0.0.1
no_commands_after_tls "untrusted CA"
# A missing CA file is a local error, before any connection.
refused "missing CA" "$T/nonexistent.pem: cannot load CA file" \
    -w 1 -x "$T/nonexistent.pem" -h 127.0.0.1
stop_cairnd

# E2: a certificate for other.example only (CN and SAN): neither the IP
# nor the name the client was given matches.
sh "$MKCA" -o "$PKI" server other.example >/dev/null || fail "mkca other"
mkdir -p "$T/r2"
make_repo "$T/r2"
tls_repo "$T/r2"
cp "$PKI/other.example.pem" "$T/r2/cert/cert.pem"
start_cairnd "$T/r2" -d -w 1
refused "other.example by IP" \
    'certificate verification failed: IP address mismatch' \
    -w 1 -x "$PKI/ca.pem" -h 127.0.0.1
refused "other.example by name" \
    'certificate verification failed: hostname mismatch' \
    -w 1 -x "$PKI/ca.pem" -h localhost
no_commands_after_tls "other.example"
stop_cairnd

# E3: expired and not yet valid.
sh "$MKCA" -o "$PKI" -S 20200101000000Z -E 20200201000000Z \
    server expired 127.0.0.1 >/dev/null || fail "mkca expired"
sh "$MKCA" -o "$PKI" -S 20990101000000Z -E 20990201000000Z \
    server future 127.0.0.1 >/dev/null || fail "mkca future"
cp "$PKI/expired.pem" "$T/r2/cert/cert.pem"
: >"$SLOG"
start_cairnd "$T/r2" -d -w 1
refused "expired" 'certificate verification failed: certificate has expired' \
    -w 1 -x "$PKI/ca.pem" -h 127.0.0.1
no_commands_after_tls "expired"
stop_cairnd
cp "$PKI/future.pem" "$T/r2/cert/cert.pem"
: >"$SLOG"
start_cairnd "$T/r2" -d -w 1
refused "not yet valid" \
    'certificate verification failed: certificate is not yet valid' \
    -w 1 -x "$PKI/ca.pem" -h 127.0.0.1
no_commands_after_tls "not yet valid"
stop_cairnd

# E6: a server (or a man in the middle) that refuses STARTTLS.  First
# cairnd -w 0 itself, then a fake that would happily serve in clear.
: >"$SLOG"
start_cairnd "$R" -d
refused "cairnd -w 0" \
    'STARTTLS refused: 500 Command STARTTLS unrecognized (TLS is required' \
    -w 1 -x "$PKI/ca.pem" -h 127.0.0.1
stop_cairnd
# fake MODE: start tlspeer.py's fake server; sets FPID and PORT.
fake()
{
	: >"$T/flog"
	bg_start "$T/fport" python3 "$TLSPEER" server "$T/fport" "$1" \
	    "$PKI/localhost.pem" "$T/flog"
	FPID=$BGPID
	PORT=$(cat "$T/fport")
}
fake refuse
refused "stripped STARTTLS" 'STARTTLS refused: 500' \
    -w 2 -x "$PKI/ca.pem" -y "$PKI/client1.pem" -z "$PKI/client1.pem" \
    -h 127.0.0.1
wait "$FPID"
[ -s "$T/flog" ] && fail "client spoke in clear: $(cat "$T/flog")"

# Clear text right behind the 220: an injection attempt, not TLS.
fake junk
refused "data after 220" 'received in clear after STARTTLS' \
    -w 1 -x "$PKI/ca.pem" -h 127.0.0.1
wait "$FPID"
[ -s "$T/flog" ] && fail "client went on after junk: $(od -c "$T/flog")"

# E4: a server that speaks TLS 1.1 at most.
fake tls11
refused "TLS 1.1 server" 'TLS handshake: .*\(unsupported protocol\|no protocols available\|version\)' \
    -w 1 -x "$PKI/ca.pem" -h 127.0.0.1
wait "$FPID"
grep -q 'handshake succeeded' "$T/flog" && fail "TLS 1.1 handshake succeeded"
exit 0
