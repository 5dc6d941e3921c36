#!/bin/sh
# A server name with several addresses: the client tries every address
# of the name, in the resolver's order, and is served by the first that
# answers.  The resolver is real: the test runs in a mount namespace of
# its own whose /etc/hosts gives twoaddr.test the addresses 127.0.0.3
# (nothing listens there) and 127.0.0.2 (cairnd), in that order.
. "$top_srcdir/tests/integ/lib.sh"
need_root
in_mount_ns
need_tool cairnd ktcheck
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"

printf '127.0.0.1 localhost\n127.0.0.3 twoaddr.test\n127.0.0.2 twoaddr.test\n' \
    >"$T/hosts"
private_hosts "$T/hosts"
[ "$(getent ahostsv4 twoaddr.test | awk '$2 == "STREAM" { print $1 }' |
    tr '\n' ' ')" = "127.0.0.3 127.0.0.2 " ] ||
    fail "the namespace's resolver: $(getent ahostsv4 twoaddr.test)"

make_repo "$T/repo"
echo '127.0.0.2 test.K' >>"$T/repo/config"
CAIRND_ADDR=127.0.0.2 start_cairnd "$T/repo"
C=$T/client
mkdir "$C"
: >"$C/command.K"
touch -d "@$T0" "$C/command.K"
run_capture "$T/out" "$T/err" timeout 60 "$KTCHECK" -v -K "$C/command.K" \
    -h twoaddr.test -p "$PORT"
[ "$RC" != 124 ] || fail "ktcheck: still waiting after 60 s"
assert_eq 1 "$RC" "exit ($(cat "$T/err"))"
assert_file_eq "$T/repo/transcript/test.T" "$C/test.T" "test.T"
grep -q "^trying twoaddr.test\\[127.0.0.3\\]:$PORT\$" "$T/err" ||
    fail "the first address was not tried: $(cat "$T/err")"
grep -q "^twoaddr.test\\[127.0.0.3\\]:$PORT: connect: Connection refused: trying twoaddr.test\\[127.0.0.2\\]:$PORT\$" \
    "$T/err" || fail "-v does not say why it moved on: $(cat "$T/err")"
end_test
