#!/bin/sh
# Certificate corners of docs/security.md E1-E3 that t-tls-verify.sh and
# t-tls-server.sh leave out.  E1: a self-signed server certificate.  E2:
# an IP address the certificate carries only as a DNS name or as its
# common name (an address matches an iPAddress entry and nothing else);
# a wildcard matches one whole leftmost label: *.example.com is not
# a.b.example.com, b*.example.com is not b.example.com, while
# *.example.com is b.example.com (the names are 127.0.0.1 in a private
# hosts file, in a mount namespace of their own; skipped without one).
# E3: cairnd -w 3 and -w 4 with no revocation list at all refuse every
# client certificate ("unable to get certificate CRL") rather than take
# it unchecked; with the CRL of an intermediate CA alone, its client
# passes at -w 3 (the client's certificate checked) but not at -w 4
# (every certificate of the chain), which takes it once the root's CRL
# is there too.  The client ends with exit 2 and the verification error,
# and the server never receives a command.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/tlslib.sh"
R=$T/repo
make_repo "$R"
tls_repo "$R"
mkdir "$T/c"

# issue NAME SUBJECT [SAN]: a server certificate and key, NAME.pem in
# $PKI, signed by the test CA, with the subject and subjectAltName given
# (none if SAN is empty).
issue()
{
	_ext=$T/$1.ext
	{
		echo 'basicConstraints = CA:FALSE'
		echo 'keyUsage = digitalSignature, keyEncipherment'
		echo 'extendedKeyUsage = serverAuth'
		[ -n "${3:-}" ] && echo "subjectAltName = $3"
	} >"$_ext"
	openssl req -new -newkey rsa:2048 -nodes -subj "$2" \
	    -keyout "$T/$1.key" -out "$T/$1.csr" 2>"$T/openssl.err" &&
	    openssl x509 -req -in "$T/$1.csr" -CA "$PKI/ca.pem" \
	    -CAkey "$PKI/ca.key" -CAcreateserial -days 30 -sha256 \
	    -extfile "$_ext" -out "$T/$1.crt" 2>>"$T/openssl.err" ||
	    fail "openssl $1: $(cat "$T/openssl.err")"
	cat "$T/$1.crt" "$T/$1.key" >"$PKI/$1.pem"
}

# serve PEM [CAIRND-ARGS...]: cairnd -d at -w 1 (unless the arguments
# say otherwise) with PEM as its certificate.
serve()
{
	stop_cairnd
	cp "$1" "$R/cert/cert.pem"
	shift
	: >"$SLOG"
	start_cairnd "$R" -d ${1+"$@"}
}

# refused WHAT MESSAGE-PATTERN ARGS...: ktcheck fails with exit 2, says
# MESSAGE-PATTERN, sends nothing after STARTTLS and writes nothing.
refused()
{
	_what=$1 _pat=$2
	shift 2
	run_capture "$T/out" "$T/err" "$@" -v -K "$T/c/command.K" -p "$PORT"
	assert_eq 2 "$RC" "$_what: exit status ($(cat "$T/err"))"
	grep -q -- "$_pat" "$T/err" ||
	    fail "$_what: message: $(grep -v '^[<>]' "$T/err")"
	if sed -n '/^>>> STARTTLS/,$p' "$T/err" | grep '^>>> ' |
	    grep -qv '^>>> STARTTLS$'; then
		fail "$_what: client sent a command: $(cat "$T/err")"
	fi
	[ -e "$T/c/command.K" ] && fail "$_what: command.K written"
	no_commands_after_tls "$_what"
	return 0
}

# E1: self-signed, with the right names; the client trusts the test CA.
openssl req -x509 -newkey rsa:2048 -nodes -days 30 -subj /CN=localhost \
    -addext 'subjectAltName = DNS:localhost, IP:127.0.0.1' \
    -keyout "$T/self.key" -out "$T/self.crt" 2>"$T/openssl.err" ||
    fail "openssl self-signed: $(cat "$T/openssl.err")"
cat "$T/self.crt" "$T/self.key" >"$PKI/self.pem"
SLOG=$T/cairnd.log
serve "$PKI/self.pem" -w 1
refused "self-signed" \
    'certificate verification failed: self.signed certificate' \
    "$KTCHECK" -w 1 -x "$PKI/ca.pem" -h 127.0.0.1

# E2: 127.0.0.1 as a DNS name only, then as the common name only.
issue ipdns /CN=127.0.0.1 'DNS:127.0.0.1'
serve "$PKI/ipdns.pem" -w 1
refused "IP as a DNS name" \
    'certificate verification failed: IP address mismatch' \
    "$KTCHECK" -w 1 -x "$PKI/ca.pem" -h 127.0.0.1
issue ipcn /CN=127.0.0.1
serve "$PKI/ipcn.pem" -w 1
refused "IP as the common name" \
    'certificate verification failed: IP address mismatch' \
    "$KTCHECK" -w 1 -x "$PKI/ca.pem" -h 127.0.0.1

# E2, wildcards, where example.com names can be made to reach us.
if unshare -m true 2>/dev/null; then
	printf '127.0.0.1 localhost a.b.example.com b.example.com\n' \
	    >"$T/hosts"
	# hosts KTCHECK-ARGS...: ktcheck with $T/hosts as /etc/hosts.
	hosts()
	{
		unshare -m sh -c 'mount --bind "$1" /etc/hosts && shift &&
		    exec "$@"' sh "$T/hosts" "$KTCHECK" "$@"
	}
	issue wild /CN=wild 'DNS:*.example.com'
	serve "$PKI/wild.pem" -w 1
	refused "*.example.com for a.b.example.com" \
	    'certificate verification failed: hostname mismatch' \
	    hosts -w 1 -x "$PKI/ca.pem" -h a.b.example.com
	rm -rf "$T/ok"
	mkdir "$T/ok"
	run_capture "$T/out" "$T/err" hosts -w 1 -x "$PKI/ca.pem" \
	    -h b.example.com -K "$T/ok/command.K" -p "$PORT"
	assert_eq 1 "$RC" "*.example.com for b.example.com: $(cat "$T/err")"
	assert_file_eq "$R/transcript/test.T" "$T/ok/test.T"
	issue partial /CN=partial 'DNS:b*.example.com'
	serve "$PKI/partial.pem" -w 1
	refused "b*.example.com for b.example.com" \
	    'certificate verification failed: hostname mismatch' \
	    hosts -w 1 -x "$PKI/ca.pem" -h b.example.com
else
	not_run "wildcard names (no mount namespace)"
fi

# E3: -w 3 and -w 4 without any CRL: a valid client certificate is
# refused in the handshake, and the server says why.
for level in 3 4; do
	serve "$PKI/localhost.pem" -w "$level"
	run_capture "$T/out" "$T/err" "$KTCHECK" -v -K "$T/c/command.K" \
	    -p "$PORT" -h 127.0.0.1 -x "$PKI/ca.pem" -w 2 \
	    -y "$PKI/client1.pem" -z "$PKI/client1.pem"
	assert_eq 2 "$RC" "-w $level without a CRL: $(cat "$T/err")"
	[ -e "$T/c/command.K" ] && fail "-w $level without a CRL: served"
	wait_log 'certificate verification failed: unable to get certificate CRL'
	no_commands_after_tls "-w $level without a CRL"
done

# E3: -w 3 checks the client's own certificate against a CRL, -w 4 every
# certificate of its chain.  A client certificate from an intermediate CA
# (signed by the test CA), with the intermediate's CRL alone: accepted at
# -w 3, refused at -w 4 (no CRL for the intermediate itself); with the
# test CA's CRL beside it, accepted at -w 4 too.
INT=$T/int
sh "$MKCA" -o "$INT" ca "cairn test intermediate" >/dev/null ||
    fail "mkca intermediate"
printf '%s\n' 'basicConstraints = critical, CA:TRUE' \
    'keyUsage = critical, keyCertSign, cRLSign' \
    'subjectKeyIdentifier = hash' >"$T/int.ext"
openssl x509 -in "$INT/ca.pem" -CA "$PKI/ca.pem" -CAkey "$PKI/ca.key" \
    -CAcreateserial -days 30 -extfile "$T/int.ext" -out "$T/int.crt" \
    2>"$T/openssl.err" || fail "openssl intermediate: $(cat "$T/openssl.err")"
sh "$MKCA" -o "$INT" client client1 >/dev/null || fail "mkca int client"
sh "$MKCA" -o "$INT" crl >/dev/null || fail "mkca int crl"
sh "$MKCA" -o "$PKI" crl >/dev/null || fail "mkca crl"
# The client's file: its certificate, its key, then the intermediate.
cat "$INT/client1.pem" "$T/int.crt" >"$T/iclient.pem"
chmod 600 "$T/iclient.pem"
cat "$INT/crl.pem" "$PKI/crl.pem" >"$T/crls.pem"
# chained LEVEL CRL RC: ktcheck with that certificate against cairnd -w
# LEVEL -C CRL ends with RC (1: served, 2: refused).
chained()
{
	serve "$PKI/localhost.pem" -w "$1" -C "$2"
	rm -rf "$T/ok"
	mkdir "$T/ok"
	run_capture "$T/out" "$T/err" "$KTCHECK" -K "$T/ok/command.K" \
	    -p "$PORT" -h 127.0.0.1 -x "$PKI/ca.pem" -w 2 \
	    -y "$T/iclient.pem" -z "$T/iclient.pem"
	assert_eq "$3" "$RC" "-w $1 -C $(basename "$2"): $(cat "$T/err")"
}
chained 3 "$INT/crl.pem" 1
assert_file_eq "$R/transcript/test.T" "$T/ok/test.T"
chained 4 "$INT/crl.pem" 2
[ -e "$T/ok/command.K" ] && fail "-w 4 without the intermediate's CRL: served"
wait_log 'certificate verification failed: unable to get certificate CRL'
no_commands_after_tls "-w 4 without the intermediate's CRL"
chained 4 "$T/crls.pem" 1
assert_file_eq "$R/transcript/test.T" "$T/ok/test.T"
stop_cairnd
exit 0
