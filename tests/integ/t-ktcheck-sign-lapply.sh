#!/bin/sh
# A client with a public key pinned, the whole pull (ktcheck -k, fsdiff
# -A, lapply -k) against a signed release with SHA-256 transcripts: the
# files arrive.  lapply with a key pinned refuses, exit 2 and the tree
# untouched, to run without -c or with a digest weaker than SHA-256, and
# an applicable transcript whose downloaded files carry weaker checksums;
# a file changed on the server after publishing is refused by its
# checksum, nothing applied.  Without a key pinned, lapply -c sha1 works
# as before.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck fsdiff lapply
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
echo '127.0.0.1 app.K' >"$R/config"
echo 'p app.T' >"$R/command/app.K"
printf 'one\n' >"$T/ref/etc/one"
printf 'two two\n' >"$T/ref/etc/two"
find "$T/ref" -exec touch -h -d @1700000000 {} +
in_dir "$T/ref" "$FSDIFF" -C -c sha256 -K /dev/null . \
    >"$R/transcript/app.T" || fail "fsdiff -C"
cp -a "$T/ref" "$R/file/app.T" || fail "cp"
rel_keygen admin
mkdir "$T/pinned" && cp "$T/keys/admin.pub" "$T/pinned/" || fail "pin"
rel_publish "$R" 1 admin
start_cairnd "$R"

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

# 4. The signed release, -c sha256: applied.
lap -k "$T/pinned" -c sha256
assert_eq 0 "$RC" "signed: $(cat "$T/err")"
diff -r "$T/ref" "$ROOT" >"$T/diff" 2>&1 ||
    fail "signed: not the loadset: $(cat "$T/diff")"

# 5. No key pinned: lapply as always (here without -c).
rm -rf "$ROOT" && mkdir "$ROOT" || fail "reset root"
in_dir "$ROOT" "$FSDIFF" -A -c sha256 -K "$C/command.K" \
    -o "$T/apply.T" . || fail "fsdiff -A"
lap
assert_eq 0 "$RC" "no key: $(cat "$T/err")"
diff -r "$T/ref" "$ROOT" >"$T/diff" 2>&1 ||
    fail "no key: not the loadset: $(cat "$T/diff")"
end_test
