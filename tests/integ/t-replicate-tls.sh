#!/bin/sh
# t-replicate-tls: cairn-replicate takes the clients' TLS and compression
# options: a replica whose certificate (CN replica) the primary's config
# maps to replica.K pulls at -w 2 with -Z and ends byte-identical.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd cairn-replicate cairn-publish fsdiff
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/tlslib.sh"
umask 022

P=$T/primary
R=$T/replica
mkdir -p "$P/command" "$P/transcript" "$P/file" "$R" || fail mkdir
tls_repo "$P"
mkfile "$T/tree/etc/motd" "over TLS"
mkfile "$T/tree/bin/tool" "#!/bin/sh"
in_dir "$T/tree" "$FSDIFF" -C -c sha1 -K /dev/null . \
    >"$P/transcript/app.T" || fail "fsdiff -C"
cp -a "$T/tree" "$P/file/app.T" || fail "cp -a"
# The certificate name is matched first: the replica by its CN, any
# other client of 127.0.0.1 by its address.
printf 'client1 replica.K\n127.0.0.1 app.K\n' >"$P/config"
printf 'k app.K\n' >"$P/command/replica.K"
printf 'p app.T\n' >"$P/command/app.K"
start_cairnd "$P" -w 2 -Z 9

for run in 1 2; do
	run_capture "$T/out" "$T/err" "$CAIRN_REPLICATE" -w 2 -Z 6 \
	    -x "$PKI/ca.pem" -y "$PKI/client1.pem" -z "$PKI/client1.pem" \
	    -h localhost -p "$PORT" -D "$R"
	assert_eq "$((2 - run))" "$RC" "run $run: $(cat "$T/err")"
done
grep -q 'certificate name client1$' "$SLOG" || fail "no client certificate"
for d in command transcript file; do
	diff -r "$P/$d" "$R/$d" >"$T/diff" 2>&1 ||
	    fail "$d differs: $(cat "$T/diff")"
done

# Without a certificate the primary does not know the replica.
rm -rf "$T/r2"
mkdir "$T/r2"
run_capture "$T/out" "$T/err" "$CAIRN_REPLICATE" -w 1 -x "$PKI/ca.pem" \
    -h localhost -p "$PORT" -D "$T/r2"
assert_eq 2 "$RC" "without a certificate"
end_test
