#!/bin/sh
# cairnd's STARTTLS state machine (docs/protocol.md 5.7, 7;
# docs/security.md 3, 6.E):
# what is allowed before TLS, 530 and close for the rest, no parameters,
# clear text pipelined behind STARTTLS refused (never obeyed), a second
# STARTTLS refused, a host not in config after TLS, a TLS 1.1 client
# refused; at -w 2 no client certificate, one from another CA or an
# expired one; at -w 3/4 a revoked one (CRL); start-up errors.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/tlslib.sh"
R=$T/repo
make_repo "$R"
tls_repo "$R"

# expect NAME ARGS...: tlspeer client ARGS... must print exactly $T/exp.
expect()
{
	_name=$1
	shift
	tlspeer client "$PORT" "$@" >"$T/out" 2>"$T/perr" || :
	assert_file_eq "$T/exp" "$T/out" "$_name"
}

start_cairnd "$R" -d -w 1 -Z 6
# Before TLS: QUIT NOOP HELP work, LOGIN is unknown, STAT ends it.
{
	banner ZAUTO
	printf '202 NOOP OK\r\n203 What is this, SMTP?\r\n'
	printf '500 Command LOGIN unrecognized\r\n'
	printf '501 Syntax error (no parameters allowed)\r\n'
	printf '530 Must issue a STARTTLS command first\r\n'
} >"$T/exp"
rap "$PORT" 'NOOP\r\nHELP\r\nLOGIN a b\r\nSTARTTLS now\r\nSTAT COMMAND\nNOOP\r\n' \
    >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "pre-TLS STAT"
for req in 'RETR COMMAND' 'STOR TRANSCRIPT x.T' 'REPO ev msg' 'COMP ZLIB 6'; do
	{
		banner ZAUTO
		printf '530 Must issue a STARTTLS command first\r\n'
	} >"$T/exp"
	rap "$PORT" "$req\\r\\nNOOP\\r\\n" >"$T/out" || fail "rap"
	assert_file_eq "$T/exp" "$T/out" "pre-TLS $req"
done
[ -e "$R/tmp/transcript/x.T" ] && fail "STOR before TLS stored something"

# Clear text pipelined behind STARTTLS: refused, and never obeyed.
{
	banner ZAUTO
	printf '501 Data after STARTTLS, closing connection\r\n'
} >"$T/exp"
rap "$PORT" 'STARTTLS\r\nNOOP\r\n' >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "pipelined after STARTTLS"
grep -q 'data in clear after STARTTLS' "$SLOG" || fail "not logged"
# ... whatever the command behind it.
{
	banner ZAUTO
	printf '501 Data after STARTTLS, closing connection\r\n'
} >"$T/exp"
rap "$PORT" 'STARTTLS\r\nSTAT COMMAND\n' >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "pipelined STAT after STARTTLS"

# Inside TLS: NOOP, a second STARTTLS refused, then the real thing, and
# compression inside TLS is refused only as a syntax matter (-Z given).
{
	banner ZAUTO
	printf '220 Ready to start TLS\r\n'
	printf '202 NOOP OK\r\n'
	printf '501 TLS already started\r\n'
	printf '230 Returning STAT information\r\n'
	printf 'f command 444 0 0 %s %s %s\r\n' "$T0" \
	    "$(wc -c <"$R/command/test.K" | tr -d ' ')" \
	    "$(sha1b64 "$R/command/test.K")"
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
expect "inside TLS" 'STARTTLS\r\n' 'NOOP\r\nSTARTTLS\r\nSTAT COMMAND\nQUIT\r\n' \
    --ca "$PKI/ca.pem"

# E4: a TLS 1.1 ClientHello is refused.
tlspeer client "$PORT" 'STARTTLS\r\n' 'NOOP\r\n' --tls11 >"$T/out" 2>&1
rc=$?
assert_eq 3 "$rc" "TLS 1.1 client: $(cat "$T/out")"
grep -q 'TLS handshake failed' "$T/out" || fail "TLS 1.1: $(cat "$T/out")"
grep -q 'TLS handshake: .*\(unsupported protocol\|no protocols\|version\)' \
    "$SLOG" || fail "TLS 1.1: server log: $(cat "$SLOG")"
stop_cairnd

# A host not in config learns that only after TLS.
cp "$R/config" "$T/config.saved"
echo '10.9.9.9 test.K' >"$R/config"
: >"$SLOG"
start_cairnd "$R" -d -w 1
tlspeer client "$PORT" 'STARTTLS\r\n' \
    'NOOP\r\nSTARTTLS\r\nSTAT COMMAND\nNOOP\r\n' >"$T/out" 2>&1 ||
    fail "tlspeer: $(cat "$T/out")"
sed '1,3d' "$T/out" >"$T/got"
{
	printf '202 NOOP OK\r\n'
	printf '500 Command STARTTLS unrecognized\r\n'
} >"$T/exp"
head -n 2 "$T/got" >"$T/got2"
assert_file_eq "$T/exp" "$T/got2" "unknown host after TLS"
grep -q '^500 No access for ' "$T/got" || fail "unknown host: $(cat "$T/got")"
[ "$(wc -l <"$T/got")" -eq 3 ] || fail "unknown host: session went on"
grep -q 'host not in config (certificate name -)' "$SLOG" ||
    fail "not logged: $(cat "$SLOG")"
stop_cairnd
cp "$T/config.saved" "$R/config"

# -w 2: every client without an acceptable certificate is refused in the
# handshake, and the server never reads a command.
mkdir "$T/c"
# mutual NAME LOG-PATTERN KTCHECK-ARGS...
mutual()
{
	_name=$1 _pat=$2
	shift 2
	: >"$SLOG"
	run_capture "$T/out" "$T/err" "$KTCHECK" -v -K "$T/c/command.K" \
	    -p "$PORT" -h 127.0.0.1 -x "$PKI/ca.pem" "$@"
	assert_eq 2 "$RC" "$_name: exit status ($(cat "$T/err"))"
	grep -q 'TLS' "$T/err" || fail "$_name: client message: $(cat "$T/err")"
	# The child logs when it is done; wait for that (bounded).
	wait_log "$_pat"
	no_commands_after_tls "$_name"
	[ -e "$T/c/command.K" ] && fail "$_name: command.K written"
	return 0
}
sh "$MKCA" -o "$PKI" -S 20200101000000Z -E 20200201000000Z \
    client oldclient >/dev/null || fail "mkca oldclient"
start_cairnd "$R" -d -w 2
mutual "no client certificate" 'peer did not return a certificate' -w 1
mutual "client certificate from another CA" \
    'certificate verification failed: unable to get local issuer certificate' \
    -w 2 -y "$EVIL/client1.pem" -z "$EVIL/client1.pem"
mutual "expired client certificate" \
    'certificate verification failed: certificate has expired' \
    -w 2 -y "$PKI/oldclient.pem" -z "$PKI/oldclient.pem"
# Raw: no certificate at all.
tlspeer client "$PORT" 'STARTTLS\r\n' 'STAT COMMAND\n' --ca "$PKI/ca.pem" \
    >"$T/out" 2>&1 || :
grep -q '^230' "$T/out" && fail "served without a client certificate"
stop_cairnd

# -w 3 / -w 4 with a CRL: a revoked client certificate is refused.
sh "$MKCA" -o "$PKI" client client2 >/dev/null || fail "mkca client2"
sh "$MKCA" -o "$PKI" revoke client2 >/dev/null || fail "mkca revoke"
sh "$MKCA" -o "$PKI" crl >/dev/null || fail "mkca crl"
for level in 3 4; do
	: >"$SLOG"
	start_cairnd "$R" -d -w "$level" -C "$PKI/crl.pem"
	mutual "revoked at -w $level" \
	    'certificate verification failed: certificate revoked' \
	    -w 2 -y "$PKI/client2.pem" -z "$PKI/client2.pem"
	rm -rf "$T/ok"
	mkdir "$T/ok"
	run_capture "$T/out" "$T/err" "$KTCHECK" -K "$T/ok/command.K" \
	    -p "$PORT" -h 127.0.0.1 -x "$PKI/ca.pem" -w 2 \
	    -y "$PKI/client1.pem" -z "$PKI/client1.pem"
	assert_eq 1 "$RC" "-w $level, valid certificate: $(cat "$T/err")"
	assert_file_eq "$R/transcript/test.T" "$T/ok/test.T"
	stop_cairnd
done

# Start-up errors exit 1 with the file named.
run_capture "$T/out" "$T/err" "$CAIRND" -f -D "$R" -w 2 -C "$PKI/crl.pem"
assert_eq 2 "$RC" "-C at -w 2 (usage)"
grep -q -- '-C requires -w 3' "$T/err" || fail "-C at -w 2: $(cat "$T/err")"
run_capture "$T/out" "$T/err" "$CAIRND" -f -D "$R" -w 1 -y "$T/none.pem"
assert_eq 1 "$RC" "-y missing"
grep -q "$T/none.pem: cannot load certificate" "$T/err" ||
    fail "-y missing: $(cat "$T/err")"
run_capture "$T/out" "$T/err" "$CAIRND" -f -D "$R" -w 1 \
    -y "$PKI/localhost.pem" -z "$PKI/client1.pem"
assert_eq 1 "$RC" "-z mismatch"
grep -q "client1.pem: cannot load private key: key values mismatch" "$T/err" ||
    fail "-z mismatch: $(cat "$T/err")"
# A key others may read, or that another user owns, is refused; its
# group may read it.
cp "$PKI/localhost.pem" "$T/key.pem" || fail "cp key"
chmod 0644 "$T/key.pem"
run_capture "$T/out" "$T/err" "$CAIRND" -f -D "$R" -w 1 \
    -y "$PKI/localhost.pem" -z "$T/key.pem"
assert_eq 1 "$RC" "-z readable by others"
grep -qF "$T/key.pem: readable by others (mode 0644): refused as a private key (chmod o-rw,g-w)" \
    "$T/err" || fail "-z readable by others: $(cat "$T/err")"
chmod 0640 "$T/key.pem"
if [ "$(id -u)" -eq 0 ]; then
	chown nobody "$T/key.pem" || fail "chown"
	run_capture "$T/out" "$T/err" "$CAIRND" -f -D "$R" -w 1 \
	    -y "$PKI/localhost.pem" -z "$T/key.pem"
	assert_eq 1 "$RC" "-z owned by nobody"
	grep -qF "$T/key.pem: owned by uid $(id -u nobody), neither root nor this user: refused as a private key" \
	    "$T/err" || fail "-z owned by nobody: $(cat "$T/err")"
	chown 0 "$T/key.pem" || fail "chown"
fi
: >"$SLOG"
start_cairnd "$R" -w 1 -y "$PKI/localhost.pem" -z "$T/key.pem"
tlspeer client "$PORT" 'STARTTLS\r\n' 'NOOP\r\n' >"$T/out" 2>&1 ||
    fail "-z 0640: $(cat "$T/out")"
grep -q '^202 NOOP OK' "$T/out" || fail "-z 0640: $(cat "$T/out")"
stop_cairnd
exit 0
