#!/bin/sh
# lapply against cairnd over TLS: -w 1 by IP and -w 2 with a client
# certificate and compression (zlib inside TLS), also over three sessions
# (-j 3); the files land byte for byte, and a server that refuses STARTTLS leaves the tree untouched.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lapply
need_root
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/tlslib.sh"
R=$T/repo
make_repo "$R"
tls_repo "$R"
umask 022
# The applicable transcript: create everything test.T lists (files are
# downloads, "+").
{
	printf 'test.T:\n'
	grep -v '^d \.[ 	]' "$R/transcript/test.T" | sed 's/^f /+ f /'
} >"$T/apply.T"

# run LAPPLY-OPTIONS...
run()
{
	rm -rf "$T/c"
	mkdir "$T/c"
	run_capture "$T/out" "$T/err" in_dir "$T/c" "$LAPPLY" \
	    -h 127.0.0.1 -p "$PORT" -x "$PKI/ca.pem" "$@" "$T/apply.T"
	assert_eq 0 "$RC" "lapply $*: $(cat "$T/err")"
	for f in bin/hi "etc/bin ary" etc/empty etc/issue etc/motd; do
		assert_file_eq "$R/file/test.T/$f" "$T/c/$f" "$f ($*)"
	done
}

start_cairnd "$R" -d -w 1
run -w 1
grep -q 'TLS started' "$SLOG" || fail "no TLS: $(cat "$SLOG")"
stop_cairnd
: >"$SLOG"
start_cairnd "$R" -d -w 2 -Z 6
run -w 2 -Z 9 -y "$PKI/client1.pem" -z "$PKI/client1.pem" -c sha1
grep -q 'certificate name client1$' "$SLOG" || fail "no client cert: $(cat "$SLOG")"
grep -q 'session end: zlib level 6, ' "$SLOG" || fail "no zlib: $(cat "$SLOG")"
# -j 3: every download session set up as the first one, certificate and
# zlib inside TLS included.
wait_kids 0
: >"$SLOG"
run -w 2 -Z 9 -y "$PKI/client1.pem" -z "$PKI/client1.pem" -c sha1 -j 3
wait_kids 0
assert_eq 3 "$(grep -c 'certificate name client1$' "$SLOG")" \
    "sessions with the client certificate (-j 3)"
assert_eq 3 "$(grep -c 'session end: zlib level 6, ' "$SLOG")" \
    "sessions with zlib (-j 3)"
stop_cairnd

# No fallback: a server without TLS, nothing applied.
start_cairnd "$R"
rm -rf "$T/c"
mkdir "$T/c"
run_capture "$T/out" "$T/err" in_dir "$T/c" \
    "$LAPPLY" -h 127.0.0.1 -p "$PORT" -x "$PKI/ca.pem" -w 1 \
    "$T/apply.T"
[ "$RC" -ne 0 ] || fail "lapply went on without TLS"
grep -q 'STARTTLS refused' "$T/err" || fail "message: $(cat "$T/err")"
[ -z "$(ls -A "$T/c")" ] || fail "lapply changed the tree: $(ls -A "$T/c")"
stop_cairnd
exit 0
