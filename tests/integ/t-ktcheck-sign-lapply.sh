#!/bin/sh
# A client with a public key pinned, the whole pull (ktcheck -k, fsdiff
# -A, lapply -k) against a signed release with SHA-256 transcripts: the
# files arrive.  lapply with a key pinned refuses, exit 2 and the tree
# untouched, to run without -c or with a digest weaker than SHA-256, and
# an applicable transcript whose downloaded files carry weaker checksums;
# a file changed on the server after publishing is refused by its
# checksum, nothing applied.  Special files (two hosts, the release
# signed by cairn-publish with their stat entries): the client's own
# arrive with their content and mode, held to the sha256 that ktcheck
# wrote in special.T; one changed on the server after ktcheck is
# refused by its checksum.  Without a key pinned, lapply -c sha1 works
# as before.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck fsdiff lapply cairn-publish
need_root
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/releaselib.sh"
umask 022
FSDIFF=$(tool_path fsdiff)
LAPPLY=$(tool_path lapply)

R=$T/repo
mkdir -p "$R/command" "$R/transcript" "$R/file" "$T/ref/etc" ||
    fail "mkdir"
printf '127.0.0.1 app.K\nother.example app.K\n' >"$R/config"
printf 'p app.T\ns ./etc/hostname\n' >"$R/command/app.K"
mkdir -p "$R/special/127.0.0.1/etc" "$R/special/other.example/etc" ||
    fail "mkdir special"
printf 'client\n' >"$R/special/127.0.0.1/etc/hostname"
printf 'f ./etc/hostname 0600 0 0 1700000000 7 -\n' >"$R/special/127.0.0.1.T"
printf 'other host\n' >"$R/special/other.example/etc/hostname"
printf 'f ./etc/hostname 0644 0 0 1700000000 11 -\n' \
    >"$R/special/other.example.T"
printf 'one\n' >"$T/ref/etc/one"
printf 'two two\n' >"$T/ref/etc/two"
find "$T/ref" -exec touch -h -d @1700000000 {} +
in_dir "$T/ref" "$FSDIFF" -C -c sha256 -K /dev/null . \
    >"$R/transcript/app.T" || fail "fsdiff -C"
cp -a "$T/ref" "$R/file/app.T" || fail "cp"
rel_keygen admin
mkdir "$T/pinned" && cp "$T/keys/admin.pub" "$T/pinned/" || fail "pin"
rel_publish_tool "$R" admin
start_cairnd "$R"
# what the client gets: the loadset and its special file
cp -a "$T/ref" "$T/want" && cp "$R/special/127.0.0.1/etc/hostname" \
    "$T/want/etc/hostname" && chmod 0600 "$T/want/etc/hostname" &&
    touch -d @1700000000 "$T/want/etc" || fail "want"

C=$T/client
ROOT=$T/root
mkdir -p "$C" "$ROOT" || fail "mkdir"

# lap OPTIONS...: lapply the applicable transcript $T/apply.T into $ROOT.
lap()
{
	run_capture "$T/out" "$T/err" in_dir "$ROOT" "$LAPPLY" \
	    -h 127.0.0.1 -p "$PORT" "$@" "$T/apply.T"
}

# untouched LABEL: exit 2, nothing in $ROOT.
untouched()
{
	assert_eq 2 "$RC" "$1: exit ($(cat "$T/err"))"
	[ -z "$(ls -A "$ROOT")" ] || fail "$1: the tree changed: $(ls -AR "$ROOT")"
}

run_client ktcheck -c sha1 -k "$T/pinned" -K "$C/command.K"
assert_eq 1 "$RC" "ktcheck: $(cat "$T/err")"
in_dir "$ROOT" "$FSDIFF" -A -c sha256 -K "$C/command.K" \
    -o "$T/apply.T" . || fail "fsdiff -A"

# 1. Without -c, or with -c sha1: refused, nothing done.
lap -k "$T/pinned"
untouched "no -c"
grep -q "keys pinned in $T/pinned: lapply needs -c sha256 or stronger" \
    "$T/err" || fail "no -c: $(cat "$T/err")"
lap -k "$T/pinned" -c sha1
untouched "-c sha1"
grep -q 'needs -c sha256 or stronger (sha384, sha512), not sha1' \
    "$T/err" || fail "-c sha1: $(cat "$T/err")"

# 2. Weaker checksums in the transcript lines (SHA-1, as a loadset made
# with fsdiff -c sha1 has): refused before anything.
sed 's/^\(+ f .*\) [A-Za-z0-9+/=]\{44\}$/\1 IlljY7PeQLBvmB+4XYIxLowO1RE=/' \
    "$T/apply.T" >"$T/apply1.T" || fail "sed"
cmp -s "$T/apply.T" "$T/apply1.T" && fail "no + line in $(cat "$T/apply.T")"
run_capture "$T/out" "$T/err" in_dir "$ROOT" "$LAPPLY" -h 127.0.0.1 \
    -p "$PORT" -k "$T/pinned" -c sha256 "$T/apply1.T"
untouched "sha1 transcript"
grep -q 'checksum "IlljY7PeQLBvmB+4XYIxLowO1RE=" is not a sha256 digest: refusing' \
    "$T/err" || fail "sha1 transcript: $(cat "$T/err")"

# 3. A file changed on the server after publishing: its checksum
# refuses it (the only file to come: nothing applied).
mkdir -p "$ROOT/etc" && cp -a "$T/ref/etc/one" "$ROOT/etc/one" ||
    fail "cp one"
in_dir "$ROOT" "$FSDIFF" -A -c sha256 -K "$C/command.K" \
    -o "$T/apply.T" . || fail "fsdiff -A"
cp -a "$R/file/app.T/etc/two" "$T/two.orig"
printf 'TWO TWO\n' >"$R/file/app.T/etc/two"
touch -d @1700000000 "$R/file/app.T/etc/two"
lap -k "$T/pinned" -c sha256
[ "$RC" -ne 0 ] || fail "changed file: accepted"
grep -q 'checksum' "$T/err" || fail "changed file: $(cat "$T/err")"
[ -e "$ROOT/etc/two" ] && fail "changed file: applied"
cp -a "$T/two.orig" "$R/file/app.T/etc/two"

# 4. A special file changed on the server after ktcheck: its sha256 in
# special.T refuses it.
rm -rf "$ROOT" && mkdir "$ROOT" || fail "reset root"
in_dir "$ROOT" "$FSDIFF" -A -c sha256 -K "$C/command.K" \
    -o "$T/apply.T" . || fail "fsdiff -A"
grep -q '^special.T:$' "$T/apply.T" || fail "no special: $(cat "$T/apply.T")"
cp -a "$R/special/127.0.0.1/etc/hostname" "$T/hostname.orig"
printf 'CLIENT\n' >"$R/special/127.0.0.1/etc/hostname"
lap -k "$T/pinned" -c sha256
[ "$RC" -ne 0 ] || fail "changed special: accepted"
grep -q 'SPECIAL ./etc/hostname' "$T/err" &&
    grep -q 'checksum in transcript does not match' "$T/err" ||
    fail "changed special: $(cat "$T/err")"
[ -e "$ROOT/etc/hostname" ] && fail "changed special: applied"
cp -a "$T/hostname.orig" "$R/special/127.0.0.1/etc/hostname"

# 5. The signed release, -c sha256: applied, the special file with its
# content and mode.
rm -rf "$ROOT" && mkdir "$ROOT" || fail "reset root"
lap -k "$T/pinned" -c sha256
assert_eq 0 "$RC" "signed: $(cat "$T/err")"
diff -r "$T/want" "$ROOT" >"$T/diff" 2>&1 ||
    fail "signed: not the loadset: $(cat "$T/diff")"
assert_eq 600 "$(stat -c %a "$ROOT/etc/hostname")" "special file's mode"

# 6. No key pinned: lapply as always (here without -c).
rm -rf "$ROOT" && mkdir "$ROOT" || fail "reset root"
in_dir "$ROOT" "$FSDIFF" -A -c sha256 -K "$C/command.K" \
    -o "$T/apply.T" . || fail "fsdiff -A"
lap
assert_eq 0 "$RC" "no key: $(cat "$T/err")"
diff -r "$T/want" "$ROOT" >"$T/diff" 2>&1 ||
    fail "no key: not the loadset: $(cat "$T/diff")"
end_test
