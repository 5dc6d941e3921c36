#!/bin/sh
# t-replicate-release: cairn-replicate copies the primary's signed
# release (release/current's manifest and signature) to the replica
# byte for byte, as a new release/<serial> directory and a swap of
# release/current, after the files it lists; a run with nothing new
# leaves it; -n only says it is out of date.  The replica holds no key,
# and a client with the key pinned takes the release from the replica.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd cairn-replicate cairn-publish ktcheck
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/releaselib.sh"
umask 022
CAIRN_REPLICATE=$(tool_path cairn-replicate)

P=$T/primary
R=$T/replica
make_repo "$P"
printf 'k test.K\n' >"$P/command/replica.K"
printf 'p test.T\nn neg.T\n' >"$P/command/test.K"
echo "127.0.0.1 replica.K" >"$P/config"
mkdir -p "$R" || fail mkdir
rel_keygen admin
rel_publish "$P" 1 admin
start_cairnd "$P"

replicate()
{
	run_capture "$T/out" "$T/err" "$CAIRN_REPLICATE" -h 127.0.0.1 \
	    -p "$PORT" -D "$R" "$@"
}

# same_release N: the replica serves release N, the primary's bytes.
same_release()
{
	assert_eq "$1" "$(readlink "$R/release/current")" "current"
	cmp -s "$P/release/$1/manifest" "$R/release/$1/manifest" &&
	    cmp -s "$P/release/$1/manifest.sig" "$R/release/$1/manifest.sig" ||
	    fail "release $1: not the primary's bytes"
	[ -z "$(find "$R/release" -name '.tmp*')" ] || fail "temp left"
}

# 1. The first run copies release 1.
replicate
assert_eq 1 "$RC" "first run: $(cat "$T/err")"
grep -q '^release 1: updated$' "$T/out" || fail "first run: $(cat "$T/out")"
same_release 1

# 2. Nothing new: nothing done.
replicate
assert_eq 0 "$RC" "in step: $(cat "$T/err")"
grep -q 'release' "$T/out" && fail "in step: $(cat "$T/out")"

# 3. Release 2 on the primary: -n says so, a run copies it.
printf 'p test.T\n' >"$P/command/test.K"
rel_publish "$P" 2 admin
replicate -n
assert_eq 1 "$RC" "-n: $(cat "$T/err")"
grep -q '^release 2: out of date$' "$T/out" || fail "-n: $(cat "$T/out")"
same_release 1
replicate
assert_eq 1 "$RC" "release 2: $(cat "$T/err")"
grep -q '^release 2: updated$' "$T/out" || fail "release 2: $(cat "$T/out")"
same_release 2

# 3b. Release 3: the two newest are kept on the replica, as on the
# primary, and release 1's directory goes.
printf 'p test.T\n# 3\n' >"$P/command/test.K"
rel_publish "$P" 3 admin
replicate
assert_eq 1 "$RC" "release 3: $(cat "$T/err")"
same_release 3
[ -d "$R/release/2" ] || fail "release 2 not kept beside 3"
[ -e "$R/release/1" ] && fail "release 1 left on the replica"

# 3c. The primary goes back to release 2, with a command file changed
# since: the replica refuses the release before it replaces anything,
# and keeps serving release 3 with the command files that go with it.
cp "$R/command/test.K" "$T/test.K.3" || fail "cp"
ln -sfn 2 "$P/release/current.new" && mv -T "$P/release/current.new" \
    "$P/release/current" || fail "roll the primary back"
printf 'p test.T\n# back\n' >"$P/command/test.K"
replicate
assert_eq 2 "$RC" "rolled back: $(cat "$T/out")"
grep -q 'release 2: release 3 is installed already: nothing replaced' \
    "$T/err" || fail "rolled back: $(cat "$T/err")"
cmp -s "$T/test.K.3" "$R/command/test.K" ||
    fail "a command file replaced under release 3"
same_release 3
ln -sfn 3 "$P/release/current.new" && mv -T "$P/release/current.new" \
    "$P/release/current" || fail "the primary forward again"
printf 'p test.T\n# 3\n' >"$P/command/test.K"

# 4. A client with the key pinned takes it from the replica.
stop_cairnd
echo '127.0.0.1 test.K' >"$R/config"
start_cairnd "$R"
mkdir "$T/pinned" "$T/client" && cp "$T/keys/admin.pub" "$T/pinned/" ||
    fail "pin"
run_client ktcheck -c sha1 -k "$T/pinned" -K "$T/client/command.K"
assert_eq 1 "$RC" "client of the replica: $(cat "$T/err")"
grep -q '^serial 3$' "$T/client/release.state" || fail "state"
end_test
