#!/bin/sh
# t-ra-tls: cairn-ra passes its TLS settings to the tools: TLSLEVEL 2
# with CAFILE, CERTFILE and KEYFILE (under a directory name with a
# blank) and compression updates from a cairnd that requires client
# certificates; without TLS the same server refuses, and update exits 2
# with nothing applied.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/tlslib.sh"
. "$top_srcdir/tests/integ/ralib.sh"

printf 'alpha\n' >"$SRC/a"
chmod 755 "$SRC" "$R"
ra_publish
tls_repo "$REPO"
K="$T/my pki"
mkdir "$K" && cp "$PKI/ca.pem" "$PKI/client1.pem" "$K/" || fail "cp pki"
start_cairnd "$REPO" -d -w 2 -Z 6

ra_conf TLSLEVEL=0
ra update
assert_eq 2 "$RC" "update without TLS: $(cat "$T/ra.err")"
[ -s "$T/ra.err" ] || fail "update without TLS: no message"
[ ! -e "$R/a" ] || fail "applied without TLS"

ra_conf TLSLEVEL=2 ZLEVEL=6 "CAFILE='$K/ca.pem'" "CERTFILE='$K/client1.pem'" \
    "KEYFILE='$K/client1.pem'"
ra update
assert_eq 0 "$RC" "update over TLS: $(cat "$T/ra.err")"
assert_file_eq "$SRC/a" "$R/a" "a"
grep -q 'TLS started' "$SLOG" || fail "no TLS: $(cat "$SLOG")"
[ "$(metric bytes_wire update)" -gt 0 ] || fail "no bytes counted"
end_test
