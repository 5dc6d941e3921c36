#!/bin/sh
# ktcheck with a key pinned holds the names of a command file to the
# release as the server reads them: decoded.  A transcript whose name
# has a space ("\b" in the command file) is taken when the release lists
# it.  And a name is never held to the release's entry of its encoded
# spelling taken literally: with both a transcript "a b.T" and one whose
# name is "a\bb.T" in the release, the server serving the second's
# signed content for "p a\bb.T" (the first, decoded) is refused, nothing
# put in place.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/releaselib.sh"
R=$T/repo
make_repo "$R"
rel_keygen admin
mkdir "$T/pinned" && cp "$T/keys/admin.pub" "$T/pinned/" || fail "pin"
cp "$R/transcript/test.T" "$R/transcript/my app.T" || fail "cp"
printf 'p my\\bapp.T\nn neg.T\n' >"$R/command/test.K"
rel_publish "$R" 1 admin
start_cairnd "$R"
on_fail 'cat "$SLOG"'

C=$T/client
mkdir "$C"
kt()
{
	run_client ktcheck -c sha1 -k "$T/pinned" -K "$C/command.K" "$@"
}

# 1. A name with a space: taken, and taken again.
kt
assert_eq 1 "$RC" "space: exit ($(cat "$T/err"))"
grep -q 'my\\bapp.T: updated' "$T/out" || fail "space: $(cat "$T/out")"
kt
assert_eq 0 "$RC" "space again: exit ($(cat "$T/err"))"

# 2. "a b.T" and "a\bb.T" both signed; the server serves the second's
# content (of the same size) as the first.
printf 'd ./one 0755 0 0\n' >"$R/transcript/a b.T"
printf 'd ./two 0755 0 0\n' >"$R/transcript/a\\bb.T"
printf 'p a\\bb.T\n' >"$R/command/test.K"
rel_publish "$R" 2 admin
cp "$R/transcript/a\\bb.T" "$R/transcript/a b.T" || fail "swap"
rm -rf "$C" && mkdir "$C" || fail "client"
kt
assert_eq 3 "$RC" "literal spelling: exit ($(cat "$T/err"))"
grep -q 'a\\bb.T: not the file release 2 lists' "$T/err" ||
    fail "literal spelling: $(cat "$T/err")"
[ -e "$C/a\\bb.T" ] && fail "literal spelling: put in place"
end_test
