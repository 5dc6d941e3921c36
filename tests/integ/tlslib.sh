# tests/integ/tlslib.sh: a throwaway PKI for the TLS tests.  Source after
# lib.sh, mk_tmpdir and netlib.sh.  Skips (77) without the openssl tool.
#
# Provided:
#	PKI=$T/pki		the test CA (contrib/cairn-mkca): ca.pem,
#				localhost.pem (server: DNS localhost,
#				IP 127.0.0.1), client1.pem (client, CN client1)
#	EVIL=$T/evil		another CA with the same names
#	tls_repo DIR		install PKI's ca.pem and localhost.pem as
#				DIR/cert/ca.pem and DIR/cert/cert.pem
#	TLSPEER			tests/integ/tlspeer.py
#	tlspeer ARGS...		run it
#	no_commands_after_tls	fail if the cairnd -d trace ($SLOG) shows
#				any request after STARTTLS but QUIT
# Without lib.sh and mk_tmpdir, $T is empty and every path below would
# name the real root: refuse (99, a hard error) rather than run.
if ! command -v mk_tmpdir >/dev/null 2>&1 || [ -z "${T:-}" ] ||
    [ ! -d "$T" ]; then
	echo "tlslib.sh: source lib.sh and run mk_tmpdir first" >&2
	exit 99
fi

need_cmd openssl
MKCA="$top_srcdir/contrib/cairn-mkca"
PKI=$T/pki
EVIL=$T/evil
TLSPEER="$top_srcdir/tests/integ/tlspeer.py"

sh "$MKCA" -o "$PKI" ca "cairn test CA" >/dev/null || fail "mkca ca"
sh "$MKCA" -o "$PKI" server localhost 127.0.0.1 >/dev/null ||
    fail "mkca server"
sh "$MKCA" -o "$PKI" client client1 >/dev/null || fail "mkca client"
sh "$MKCA" -o "$EVIL" ca "cairn test CA" >/dev/null || fail "mkca evil ca"
sh "$MKCA" -o "$EVIL" server localhost 127.0.0.1 >/dev/null ||
    fail "mkca evil server"
sh "$MKCA" -o "$EVIL" client client1 >/dev/null || fail "mkca evil client"

tls_repo()
{
	mkdir -p "$1/cert" || fail "mkdir $1/cert"
	cp "$PKI/ca.pem" "$1/cert/ca.pem" || fail "cp ca.pem"
	cp "$PKI/localhost.pem" "$1/cert/cert.pem" || fail "cp cert.pem"
}

tlspeer()
{
	python3 "$TLSPEER" "$@"
}

no_commands_after_tls()
{
	sed -n '/^<<< STARTTLS/,$p' "$SLOG" | grep '^<<< ' |
	    grep -v '^<<< STARTTLS$' | grep -v '^<<< QUIT$' >"$T/leak" || :
	if [ -s "$T/leak" ]; then
		cat "$SLOG" >&2
		fail "${1:-}: the server received commands: $(cat "$T/leak")"
	fi
}
