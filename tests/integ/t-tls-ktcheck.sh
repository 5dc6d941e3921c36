#!/bin/sh
# ktcheck against cairnd over TLS: -w 1 (server verified by IP and by
# name, CA file and hashed CA directory), -w 1 with compression, -w 2
# (client certificate; config matched by its CN, which selects the
# special directory) with compression; downloads are byte-identical and
# both sides report TLS.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/tlslib.sh"
R=$T/repo
make_repo "$R"
tls_repo "$R"

# kt DIR ARGS...: run ktcheck into a fresh DIR, expect exit 1 (updates).
kt()
{
	_d=$1
	shift
	rm -rf "$_d"
	mkdir -p "$_d"
	run_capture "$T/out" "$T/err" "$KTCHECK" -K "$_d/command.K" \
	    -p "$PORT" "$@"
	assert_eq 1 "$RC" "ktcheck $*: $(cat "$T/err")"
	assert_file_eq "$R/command/test.K" "$_d/command.K"
	assert_file_eq "$R/transcript/test.T" "$_d/test.T"
	assert_file_eq "$R/transcript/neg.T" "$_d/neg.T"
}

start_cairnd "$R" -d -w 1
kt "$T/c1" -w 1 -x "$PKI/ca.pem" -h 127.0.0.1 -v
grep -qx '>>> STARTTLS' "$T/err" || fail "no STARTTLS sent"
grep -qx '<<< 220 Ready to start TLS' "$T/err" || fail "no 220"
grep -q 'TLS started (TLSv1\.[23] ' "$SLOG" || fail "server: $(cat "$SLOG")"
grep -q 'certificate name -$' "$SLOG" || fail "-w 1 asked for a client cert"
printf 'f ./etc/hostname 0640 0 0 1700000000 8 %s\n' \
    "$(sha1b64 "$R/special/127.0.0.1/etc/hostname")" >"$T/exp"
assert_file_eq "$T/exp" "$T/c1/special.T" "special.T (-w 1)"
# By name, and with a hashed CA directory instead of the file.
kt "$T/c2" -w 1 -x "$PKI/ca.pem" -h localhost
mkdir "$T/cadir"
cp "$PKI/ca.pem" "$T/cadir/"
openssl rehash "$T/cadir" 2>/dev/null || c_rehash "$T/cadir" >/dev/null ||
    fail "cannot hash $T/cadir"
kt "$T/c3" -w 1 -P "$T/cadir" -h localhost
stop_cairnd
: >"$SLOG"

# -w 1 with compression: zlib inside TLS.
start_cairnd "$R" -d -w 1 -Z 6
kt "$T/c4" -w 1 -Z 9 -x "$PKI/ca.pem" -h 127.0.0.1 -v
grep -qx '<<< 320 Ready to start ZLIB compression level 6' "$T/err" ||
    fail "no 320: $(cat "$T/err")"
grep -q 'session end: zlib level 6, ' "$SLOG" || fail "server: $(cat "$SLOG")"
# COMP came after STARTTLS.
sed -n '/^<<< STARTTLS/,$p' "$SLOG" | grep -q '^<<< COMP ZLIB 9' ||
    fail "COMP not inside TLS"
stop_cairnd
: >"$SLOG"

# -w 2: the client certificate's CN is matched first.
{
	echo 'client1 test.K'
	echo '127.0.0.1 test.K'
} >"$R/config"
mkdir -p "$R/special/client1/etc"
printf 'by certificate\n' >"$R/special/client1/etc/hostname"
touch -d "@$T0" "$R/special/client1/etc/hostname"
start_cairnd "$R" -d -w 2 -Z 9
kt "$T/c5" -w 2 -Z 1 -x "$PKI/ca.pem" -y "$PKI/client1.pem" \
    -z "$PKI/client1.pem" -h localhost
grep -q 'certificate name client1$' "$SLOG" || fail "server: $(cat "$SLOG")"
grep -q 'special directory special/client1$' "$SLOG" ||
    fail "CN did not select the special directory: $(cat "$SLOG")"
grep -q 'report localhost 127.0.0.1 client1 - ktcheck' "$SLOG" ||
    fail "REPO line without the CN: $(cat "$SLOG")"
printf 'f ./etc/hostname 0640 0 0 1700000000 15 %s\n' \
    "$(sha1b64 "$R/special/client1/etc/hostname")" >"$T/exp"
assert_file_eq "$T/exp" "$T/c5/special.T" "special.T (-w 2)"
grep -q 'session end: zlib level 1, ' "$SLOG" || fail "no zlib at -w 2"
# An up-to-date client over TLS: exit 0.
run_capture "$T/out" "$T/err" "$KTCHECK" -c sha1 -K "$T/c5/command.K" \
    -p "$PORT" -w 2 -x "$PKI/ca.pem" -y "$PKI/client1.pem" \
    -z "$PKI/client1.pem" -h localhost
assert_eq 0 "$RC" "second run: $(cat "$T/err")"
stop_cairnd
exit 0
