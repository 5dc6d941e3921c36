#!/bin/sh
# ktcheck with a public key pinned (-k) takes only what the administrator
# signed.  A signed release is accepted, its serial recorded in
# release.state, and accepted again on the next run.  Refused, with exit
# status 3, a message saying why, and the client's directory (command
# files, transcripts, release.state) exactly as it was: a transcript or a
# command file changed on the server after publishing, a transcript the
# release does not name, an older release replayed with its valid
# signature (rollback), a release past its expiry, a transcript of an
# older release served with a newer command file, a release signed by a
# key not pinned, the same serial with another manifest, a server that
# offers no release (banner without MANIFEST: cairnd without one, and a
# Radmind-like peer), a manifest cut short or too large.  A transcript
# changed on the server with its size kept is never fetched: the
# client's copy is what the release lists.  Special files (two hosts, a
# release signed by cairn-publish with their stat entries): accepted,
# special.T carrying their sha256; refused, nothing changed, when a
# special file's content changed after publishing, when its mode changed
# in the host's special transcript after publishing, and when the
# release does not list it.  A transcript and an included command file
# named with a leading "./" are held to the release's entries of their
# names without it.  Without a key pinned, nothing of this is asked or
# written.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck cairn-publish
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/releaselib.sh"
R=$T/repo
make_repo "$R"
printf 'p test.T\nn neg.T\n' >"$R/command/test.K"
rel_keygen admin
rel_keygen other
mkdir "$T/pinned" && cp "$T/keys/admin.pub" "$T/pinned/" || fail "pin"
start_cairnd "$R"

C=$T/client
mkdir "$C"
kt()
{
	run_client ktcheck -c sha1 -k "$T/pinned" -K "$C/command.K" "$@"
}

# snap NAME: every entry of the client directory, inode, mode, size,
# mtime and content, into $T/NAME.
snap()
{
	(cd "$C" && find . -mindepth 1 -printf '%p %y %i %m %s %T@\n' |
	    LC_ALL=C sort &&
	    find . -type f -exec sha1sum {} + | LC_ALL=C sort) >"$T/$1" ||
	    fail "snap $1"
}

# refused LABEL PATTERN: ktcheck exits 3 saying PATTERN (grep -E) and
# leaves the client directory as it was.
refused()
{
	snap before
	kt
	assert_eq 3 "$RC" "$1: exit ($(cat "$T/err"))"
	grep -Eq "$2" "$T/err" || fail "$1: message: $(cat "$T/err")"
	grep -q 'refusing' "$T/err" || fail "$1: message: $(cat "$T/err")"
	snap after
	assert_file_eq "$T/before" "$T/after" "$1: client directory"
}

# state N: release.state records release N (its manifest in
# $T/manifest.N).
state()
{
	{
		echo "serial $1"
		echo "digest sha256 $(openssl dgst -sha256 -binary \
		    "$T/manifest.$1" | base64)"
		echo "expires $(sed -n 's/^expires //p' "$T/manifest.$1")"
	} >"$T/want.state"
	assert_file_eq "$T/want.state" "$C/release.state" "state $1"
}

# 1. A server without a release, keys pinned: refused.
refused "no release" 'offers no signed release \(keys pinned in .*pinned\)'

# 2. No key pinned (the default directory has none), from a server with
# a release: nothing asked, no state written, as before.
rel_publish "$R" 1 admin
mkdir "$T/nokey" || fail "mkdir"
run_client ktcheck -c sha1 -K "$T/nokey/command.K" -v
assert_eq 1 "$RC" "no key: exit ($(cat "$T/err"))"
grep -q 'CAPA REPO MANIFEST' "$T/err" || fail "no key: trace: $(cat "$T/err")"
grep -q 'RETR MANIFEST\|SIGNATURE' "$T/err" &&
    fail "no key: asked for the release: $(cat "$T/err")"
[ -e "$T/nokey/release.state" ] && fail "no key: a state file"

# 3. A signed release: accepted, recorded, accepted again (the state
# file, already recording it, left as it is: not written anew).
kt
assert_eq 1 "$RC" "release 1: exit ($(cat "$T/err"))"
grep -q 'test.T: updated' "$T/out" || fail "release 1: $(cat "$T/out")"
state 1
ino=$(stat -c %i "$C/release.state") || fail "stat release.state"
kt
assert_eq 0 "$RC" "release 1 again: exit ($(cat "$T/err"))"
state 1
assert_eq "$ino" "$(stat -c %i "$C/release.state")" \
    "release 1 again: release.state written anew"

# 4. A transcript changed on the server after publishing.
cp "$R/transcript/test.T" "$T/test.T.1"
printf 'f ./etc/evil 0644 0 0 1700000000 12 IlljY7PeQLBvmB+4XYIxLowO1RE=\n' \
    >>"$R/transcript/test.T"
refused "transcript changed" "test.T: the server's is not the file release 1 lists"
# The same change made by a client with no copy yet: refused before the
# download (the server gives another size than the release lists), so
# that the 4 MB the server would send are never received.
mkdir "$T/fresh" && cp "$C/command.K" "$C/release.state" "$T/fresh/" ||
    fail "fresh"
cp "$R/transcript/test.T" "$T/test.T.changed" || fail "cp"
head -c 4194304 /dev/zero | tr '\000' 'x' >>"$R/transcript/test.T" ||
    fail "grow test.T"
run_client ktcheck -v -c sha1 -k "$T/pinned" -K "$T/fresh/command.K"
assert_eq 3 "$RC" "transcript changed, no copy: exit ($(cat "$T/err"))"
grep -q "test.T: the server's is not the file release 1 lists (size differs" \
    "$T/err" || fail "transcript changed, no copy: $(cat "$T/err")"
[ -e "$T/fresh/test.T" ] && fail "transcript changed, no copy: put in place"
got=$(sed -n 's/^bytes: received \([0-9]*\) .*/\1/p' "$T/out")
[ -n "$got" ] && [ "$got" -lt 1048576 ] ||
    fail "transcript changed, no copy: received ${got:-?} bytes"
cp "$T/test.T.changed" "$R/transcript/test.T" || fail "cp"
# A change of the same size: the client's copy is what the release lists
# and stays; nothing is fetched.
cp "$T/test.T.1" "$R/transcript/test.T"
sed 's/0644/0600/' "$T/test.T.1" >"$R/transcript/test.T"
cmp -s "$T/test.T.1" "$R/transcript/test.T" && fail "the same-size change"
snap before
kt
assert_eq 0 "$RC" "same-size change: exit ($(cat "$T/err"))"
snap after
assert_file_eq "$T/before" "$T/after" "same-size change: client directory"
cp "$T/test.T.1" "$R/transcript/test.T"

# 5. The command file changed on the server after publishing.
cp "$R/command/test.K" "$T/test.K.1"
printf 'p test.T\n' >"$R/command/test.K"
refused "command file changed" "command.K: not the file release 1 lists"

# 6. A transcript the release does not name (the command file names it,
# and the release was made before it existed).
printf 'p test.T\nn neg.T\np new.T\n' >"$R/command/test.K"
rm -f "$R/transcript/new.T"
rel_publish "$R" 2 admin
printf 'd ./opt 0755 0 0\n' >"$R/transcript/new.T"
refused "transcript not named" "new.T: not in release 2"
rm "$R/transcript/new.T"
cp "$T/test.K.1" "$R/command/test.K"

# 7. Release 3 accepted (and ktcheck -C run); then release 2's files,
# manifest and signature replayed (rollback).
printf 'f ./etc/three 0644 0 0 1700000000 12 IlljY7PeQLBvmB+4XYIxLowO1RE=\n' \
    >>"$R/transcript/test.T"
cp "$R/transcript/test.T" "$T/test.T.3"
rel_publish "$R" 3 admin
kt
assert_eq 1 "$RC" "release 3: exit ($(cat "$T/err"))"
state 3
# ktcheck -C removes what no command file names, never the state: else
# the next run would take any older release as its first.
kt -C
assert_eq 0 "$RC" "release 3, -C: exit ($(cat "$T/err"))"
state 3
rel_install "$R" 2 "$T/manifest.2" "$T/manifest.2.sig"
refused "rollback" "release 2 is older than release 3 accepted before \(rollback\)"

# 8. Mix and match: release 4's command file with release 1's test.T.
printf 'p test.T\n' >"$R/command/test.K"
rel_publish "$R" 4 admin
cp "$T/test.T.1" "$R/transcript/test.T"
refused "mix and match" "test.T: (the server.s is )?not the file release 4 lists"
cp "$T/test.T.3" "$R/transcript/test.T"
cp "$T/test.K.1" "$R/command/test.K"

# 9. Expired: created and expired in the past (freeze).
now=$(date +%s)
rel_publish "$R" 5 admin $((now - 7200)) $((now - 3600))
refused "expired" "release 5 expired at [0-9-]+ [0-9:]+ UTC"

# 10. Signed by a key not pinned.
rel_publish "$R" 6 other
refused "unpinned key" "release not signed by a key pinned in .*pinned"

# 11. The serial accepted (3) with another manifest.
rel_publish "$R" 3 admin $((now - 10)) $((now + 86400))
refused "serial reused" "release 3 is not the release 3 accepted before \(serial reused\)"

# 12. A manifest cut short (its signature is over the whole).
rel_publish "$R" 7 admin
head -c 100 "$T/manifest.7" >"$R/release/7/manifest"
refused "truncated" "release not signed by a key pinned"
# ... and one cut short and signed (a broken publisher): the parser.
head -c 100 "$T/manifest.7" >"$T/manifest.8"
rel_sign "$T/manifest.8" admin >"$T/manifest.8.sig"
rel_install "$R" 8 "$T/manifest.8" "$T/manifest.8.sig"
refused "truncated, signed" "release manifest: line [0-9]+"

# 13. A manifest too large for a client (cairnd does not serve it).
mkdir -p "$R/release/9" && truncate -s $((64 * 1024 * 1024 + 1)) \
    "$R/release/9/manifest" && cp "$T/manifest.7.sig" "$R/release/9/manifest.sig" ||
    fail "big manifest"
ln -sfn 9 "$R/release/.tmp.current" &&
    mv -T "$R/release/.tmp.current" "$R/release/current" || fail "swap 9"
refused "oversized" "release manifest.*Unable to access"

# 14. Special files of two hosts, published and signed by cairn-publish:
# the client (127.0.0.1) gets its own, each with its metadata: the
# host's special transcript, a per-file .T.
rel_install "$R" 7 "$T/manifest.7" "$T/manifest.7.sig"	# after 13
printf '127.0.0.1 test.K\nother.example test.K\n' >"$R/config"
mkdir -p "$R/special/other.example/etc" || fail "mkdir"
printf 'other\n' >"$R/special/other.example/etc/hostname"
printf 'f ./etc/hostname 0640 0 7 1700000000 8 -\n' >"$R/special/127.0.0.1.T"
printf 'secret\n' >"$R/special/127.0.0.1/etc/shadow"
printf 'f ./etc/shadow 0600 0 42 1700000000 7 -\n' \
    >"$R/special/127.0.0.1/etc/shadow.T"
printf 'p test.T\nn neg.T\ns ./etc/hostname\ns ./etc/shadow\n' \
    >"$R/command/test.K"
rel_publish_tool "$R" admin
S14=$REL_SERIAL
grep -q '^stat 6 .* f 0640 0 0 etc/hostname$' "$T/manifest.$S14" ||
    fail "release $S14: the other host's file: $(grep '^stat' "$T/manifest.$S14")"
kt
assert_eq 1 "$RC" "specials: exit ($(cat "$T/err"))"
state "$S14"
b64()
{
	openssl dgst -sha256 -binary "$1" | base64
}
{
	printf 'f ./etc/hostname 0640 0 7 %s 8 %s\n' \
	    "$(stat -c %Y "$R/special/127.0.0.1/etc/hostname")" \
	    "$(b64 "$R/special/127.0.0.1/etc/hostname")"
	printf 'f ./etc/shadow 0600 0 42 %s 7 %s\n' \
	    "$(stat -c %Y "$R/special/127.0.0.1/etc/shadow")" \
	    "$(b64 "$R/special/127.0.0.1/etc/shadow")"
} >"$T/want.special"
assert_file_eq "$T/want.special" "$C/special.T" "special.T, sha256"
kt
assert_eq 0 "$RC" "specials again: exit ($(cat "$T/err"))"

# 14a. A special file's content changed on the server after publishing.
printf 'client2\n' >"$R/special/127.0.0.1/etc/hostname"
refused "special content" "special file \./etc/hostname: not the file release $S14 lists \(size or sha256 digest differs"
printf 'client1\n' >"$R/special/127.0.0.1/etc/hostname"
# ... or the other host's content, listed with other metadata.
printf 'other\n' >"$R/special/127.0.0.1/etc/hostname"
refused "other host's content" "special file \./etc/hostname: served as f 0640 0 7, release $S14 lists it as f 0640 0 0"
printf 'client1\n' >"$R/special/127.0.0.1/etc/hostname"

# 14b. Its mode changed in the host's special transcript after
# publishing.
printf 'f ./etc/hostname 0644 0 7 1700000000 8 -\n' >"$R/special/127.0.0.1.T"
refused "special mode" "special file \./etc/hostname: served as f 0644 0 7, release $S14 lists it as f 0640 0 7"
printf 'f ./etc/hostname 0640 0 7 1700000000 8 -\n' >"$R/special/127.0.0.1.T"

# 14c. A special file the release does not list (it came after).
printf 'p test.T\nn neg.T\ns ./etc/hostname\ns ./etc/shadow\ns ./etc/new\n' \
    >"$R/command/test.K"
rel_publish_tool "$R" admin
printf 'new\n' >"$R/special/127.0.0.1/etc/new"
refused "special not listed" "special file \./etc/new: not in release $REL_SERIAL"
rm "$R/special/127.0.0.1/etc/new"
cp "$T/test.K.1" "$R/command/test.K"

# 15. A Radmind-like server: its banner lists no MANIFEST.
cat >"$T/radmind.script" <<EOF
send 200-RAP 1 radmind 1.14.1 radmind access protocol\r\n200 CAPA ZLIB REPO\r\n
skip REPO
send 215 Report successful\r\n
skip QUIT
send 201 QUIT OK, closing connection\r\n
EOF
start_peer "$T/radmind.script" "$T/peer.log"
snap before
run_capture "$T/out" "$T/err" "$(tool_path ktcheck)" -c sha1 \
    -k "$T/pinned" -K "$C/command.K" -h 127.0.0.1 -p "$PEERPORT"
wait "$PEERPID"
assert_eq 3 "$RC" "radmind peer: exit ($(cat "$T/err"))"
grep -q 'offers no signed release' "$T/err" ||
    fail "radmind peer: $(cat "$T/err")"
grep -q 'STAT\|RETR' "$T/peer.log" && fail "radmind peer: asked $(cat "$T/peer.log")"
snap after
assert_file_eq "$T/before" "$T/after" "radmind peer: client directory"

# 16. Back to a good release (the files the client has): accepted,
# recorded.
rel_publish "$R" 99 admin
kt
assert_eq 1 "$RC" "release 99: exit ($(cat "$T/err"))"
state 99
kt
assert_eq 0 "$RC" "release 99 again: exit ($(cat "$T/err"))"
state 99

# 17. Command files naming a transcript and an included command file
# with a leading "./": the release lists them without it, and takes
# them.
mkdir -p "$R/command/inc" || fail "mkdir inc"
printf 'n neg.T\n' >"$R/command/inc/sub.K"
printf 'p ./test.T\nk ./inc/sub.K\n' >"$R/command/test.K"
rel_publish "$R" 100 admin
kt
assert_eq 1 "$RC" "./ names: exit ($(cat "$T/err"))"
grep -q 'inc/sub.K: updated' "$T/out" || fail "./ names: $(cat "$T/out")"
state 100
kt
assert_eq 0 "$RC" "./ names again: exit ($(cat "$T/err"))"
# ... and a "./" name is held to the release all the same.
printf 'f ./etc/evil 0644 0 0 1700000000 12 IlljY7PeQLBvmB+4XYIxLowO1RE=\n' \
    >>"$R/transcript/test.T"
refused "./ name changed" "test.T: the server's is not the file release 100 lists"

# 18. -n for a client not set up yet: the release checked, the command
# file missing, nothing made.
run_client ktcheck -n -c sha1 -k "$T/pinned" -K "$T/new/sub/command.K"
assert_eq 1 "$RC" "-n, no directory: exit ($(cat "$T/err"))"
grep -q 'command.K: missing' "$T/out" || fail "-n, no directory: $(cat "$T/out")"
[ -e "$T/new" ] && fail "-n, no directory: the command directory made"
end_test
