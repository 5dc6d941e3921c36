#!/bin/sh
# cairn-ra with a key pinned (KEYS in its configuration, passed to
# ktcheck and lapply as -k): a signed release with SHA-256 transcripts is
# applied, and the status file gives its serial and expiry; a release
# signed by a key not pinned is refused: exit 8, nothing applied, the
# metric cairn_ra_release_refused 1, the accepted release's serial kept;
# create then exits 8 too, uploading nothing, and trip says the release
# was refused, not that the server cannot be reached.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd fsdiff ktcheck lapply
need_root
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/ralib.sh"
. "$top_srcdir/tests/integ/releaselib.sh"
umask 022

# The loadset ra.T of $SRC, with SHA-256 checksums.
publish_sha256()
{
	mkdir -p "$REPO/command" "$REPO/transcript" "$REPO/file" ||
	    fail "mkdir"
	echo "127.0.0.1 ra.K" >"$REPO/config"
	echo "p ra.T" >"$REPO/command/ra.K"
	in_dir "$SRC" "$(tool_path fsdiff)" -C -c sha256 -K /dev/null . \
	    >"$REPO/transcript/ra.T" || fail "fsdiff -C"
	rm -rf "$REPO/file/ra.T" && cp -a "$SRC" "$REPO/file/ra.T" ||
	    fail "cp"
}

printf 'alpha\n' >"$SRC/a"
chmod 755 "$SRC" "$R"
publish_sha256
rel_keygen admin
rel_keygen other
mkdir "$T/pinned" && cp "$T/keys/admin.pub" "$T/pinned/" || fail "pin"
now=$(date +%s)
rel_publish "$REPO" 1 admin "$now" $((now + 86400))
start_cairnd "$REPO"
ra_conf CHECKSUM=sha256 "KEYS='$T/pinned'"

# 1. Signed: applied, serial and expiry in the status file.
ra update
assert_eq 0 "$RC" "signed: $(cat "$T/ra.err")"
assert_file_eq "$SRC/a" "$R/a" "a"
assert_eq 1 "$(metric release_serial update)" "serial"
assert_eq $((now + 86400)) "$(metric release_expiry_timestamp_seconds update)" \
    "expiry"
assert_eq 0 "$(metric release_refused update)" "refused"

# 2. A new loadset signed by a key not pinned: refused, nothing applied.
printf 'bravo\n' >"$SRC/a"
publish_sha256
rel_publish "$REPO" 2 other
ra update
assert_eq 8 "$RC" "unpinned: $(cat "$T/ra.err")"
grep -q 'not signed by a key pinned' "$T/ra.err" ||
    fail "unpinned: $(cat "$T/ra.err")"
assert_eq "alpha" "$(cat "$R/a")" "unpinned: a changed"
assert_eq 1 "$(metric release_refused update)" "refused"
assert_eq 1 "$(metric release_serial update)" "serial kept"
assert_eq 8 "$(metric last_run_exit_code update)" "exit code metric"

# 3. The same refusal under create: exit 8, nothing uploaded; under
# trip, the audit goes on against the local transcripts, saying the
# release was refused (the server was reached).
ra create
assert_eq 8 "$RC" "create: $(cat "$T/ra.err")"
grep -q 'not signed by a key pinned' "$T/ra.err" ||
    fail "create: $(cat "$T/ra.err")"
grep -q 'release was refused: nothing uploaded' "$T/ra.err" ||
    fail "create: $(cat "$T/ra.err")"
[ -n "$(ls "$REPO/tmp/transcript" 2>/dev/null)" ] &&
    fail "create: uploaded $(ls "$REPO/tmp/transcript")"
ra trip
grep -q 'release was refused: auditing against the local' "$T/ra.err" ||
    fail "trip: $(cat "$T/ra.err")"
grep -q 'cannot reach' "$T/ra.err" && fail "trip: $(cat "$T/ra.err")"
end_test
