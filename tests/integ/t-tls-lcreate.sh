#!/bin/sh
# lcreate, repo and lfdiff against cairnd over TLS: an upload at -w 1 and
# at -w 2 with a client certificate and compression lands byte for byte;
# repo is logged and lfdiff compares through TLS; a server without TLS
# gets no upload (no fallback to clear text).
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lcreate repo lfdiff fsdiff
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/tlslib.sh"
R=$T/repo
make_repo "$R"
tls_repo "$R"

mkdir -p "$T/src/d" || fail "mkdir"
cd "$T/src" || fail "cd"
printf 'over tls\n' >"d/a file"
python3 -c 'import os, sys; sys.stdout.buffer.write(os.urandom(600000))' >d/bin
: >d/empty
echo >"$T/empty.K"
"$FSDIFF" -C -c sha1 -K "$T/empty.K" -o "$T/up.T" . || fail "fsdiff -C"
# up NAME OPTIONS...: upload as NAME, check the server's copy.
up()
{
	_n=$1
	shift
	run_capture "$T/out" "$T/err" "$LCREATE" -h 127.0.0.1 -p "$PORT" \
	    -x "$PKI/ca.pem" -t "$_n" -c sha1 "$@" "$T/up.T"
	assert_eq 0 "$RC" "lcreate $*: $(cat "$T/err")"
	cmp -s "$T/up.T" "$R/tmp/transcript/$_n" || fail "$_n: transcript"
	for f in "d/a file" d/bin d/empty; do
		cmp -s "$f" "$R/tmp/file/$_n/$f" || fail "$_n: $f differs"
	done
}

start_cairnd "$R" -d -w 1
up w1.T -w 1
grep -q 'TLS started' "$SLOG" || fail "no TLS: $(cat "$SLOG")"
"$REPO" -h 127.0.0.1 -p "$PORT" -x "$PKI/ca.pem" -w 1 \
    -e tls hello over tls || fail "repo over TLS"
grep -q ' - tls hello over tls$' "$SLOG" || fail "repo not logged"
stop_cairnd
: >"$SLOG"

start_cairnd "$R" -d -w 2 -Z 6
up w2.T -w 2 -Z 9 -y "$PKI/client1.pem" -z "$PKI/client1.pem"
grep -q 'certificate name client1$' "$SLOG" || fail "no client cert"
grep -q 'session end: zlib level 6, ' "$SLOG" || fail "no zlib"
# lfdiff through TLS: the uploaded copy once published.
mv "$R/tmp/transcript/w2.T" "$R/transcript/" &&
    mv "$R/tmp/file/w2.T" "$R/file/" || fail "mv"
echo 'p w2.T' >>"$R/command/test.K"
printf 'changed\n' >"d/a file"
run_capture "$T/out" "$T/err" "$LFDIFF" -h 127.0.0.1 \
    -p "$PORT" -x "$PKI/ca.pem" -w 2 -y "$PKI/client1.pem" \
    -z "$PKI/client1.pem" -T w2.T "./d/a file"
assert_eq 1 "$RC" "lfdiff over TLS: $(cat "$T/err")"
printf '1c1\n< over tls\n---\n> changed\n' >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "lfdiff over TLS"
printf 'over tls\n' >"d/a file"
stop_cairnd

# No fallback: a server without TLS gets nothing.
start_cairnd "$R"
run_capture "$T/out" "$T/err" "$LCREATE" -h 127.0.0.1 -p "$PORT" \
    -x "$PKI/ca.pem" -w 1 -t clear.T "$T/up.T"
[ "$RC" -eq 2 ] || fail "lcreate without TLS: exit $RC"
[ -e "$R/tmp/transcript/clear.T" ] && fail "uploaded in clear"
exit 0
