#!/bin/sh
# lfdiff against cairnd: the transcript that provides a path is found
# through the command file (as ktcheck left it), the server copy fetched
# (RETR FILE, or RETR SPECIAL for special.T) and given to diff as the left
# side; diff's options pass through (-c, -C n, -X "..."), -T and -S pick
# the source by hand; errors exit 2; no temporary file is left behind.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lfdiff ktcheck
need_cmd diff
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
start_cairnd "$T/repo"

mkdir -p "$T/client" "$T/root/etc" "$T/tmpd" || fail "mkdir"
: >"$T/client/command.K"
"$KTCHECK" -q -K "$T/client/command.K" -h 127.0.0.1 -p "$PORT" -c sha1 \
    >"$T/kt.out" 2>&1
[ -f "$T/client/test.T" ] || fail "ktcheck did not fetch test.T: $(cat "$T/kt.out")"
TMPDIR=$T/tmpd
export TMPDIR

cd "$T/root" || fail "cd"
printf 'hello there\n' >etc/motd
printf 'no newline at end' >etc/issue
printf 'client2\n' >etc/hostname
printf 'x\n' >etc/unlisted
lf()
{
	run_client lfdiff -K "$T/client/command.K" "$@"
}

# Different: diff's normal output, server copy on the left, exit 1.
lf ./etc/motd
assert_eq 1 "$RC" "motd: exit ($(cat "$T/err"))"
printf '1c1\n< hello world\n---\n> hello there\n' >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "motd diff"
# Same: exit 0, nothing printed.
lf ./etc/issue
assert_eq 0 "$RC" "issue: exit ($(cat "$T/err"))"
assert_file_eq /dev/null "$T/out" "issue diff"
# Options passed to diff.
lf -c ./etc/motd
assert_eq 1 "$RC" "-c: exit"
head -n 1 "$T/out" | grep -q '^\*\*\* -' || fail "-c: not a context diff"
lf -X "-u -L server -L local" ./etc/motd
assert_eq 1 "$RC" "-X: exit ($(cat "$T/err"))"
printf -- '--- server\n+++ local\n@@ -1 +1 @@\n-hello world\n+hello there\n' \
    >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "-X -u diff"
lf -C 0 -X "-L s -L l" ./etc/motd
assert_eq 1 "$RC" "-C 0: exit"
grep -q '^\*\*\* 1 \*\*\*\*$' "$T/out" || fail "-C 0: $(cat "$T/out")"
lf -s ./etc/issue
assert_eq 0 "$RC" "-s: exit"
assert_eq "Files - and ./etc/issue are identical" "$(cat "$T/out")"

# special.T wins for ./etc/hostname: the host's special copy.
lf ./etc/hostname
assert_eq 1 "$RC" "special: exit ($(cat "$T/err"))"
printf '1c1\n< client1\n---\n> client2\n' >"$T/exp"
assert_file_eq "$T/exp" "$T/out" "special diff"
# -S and -T by hand.
lf -S ./etc/hostname
assert_eq 1 "$RC" "-S: exit"
assert_file_eq "$T/exp" "$T/out" "-S diff"
lf -T test.T ./etc/issue
assert_eq 0 "$RC" "-T: exit ($(cat "$T/err"))"

# Errors: exit 2 with a message naming the path.
lf ./etc/unlisted
assert_eq 2 "$RC" "unlisted: exit"
assert_eq "./etc/unlisted: not found in any transcript" "$(cat "$T/err")"
lf ./etc/missing
assert_eq 2 "$RC" "missing: exit"
assert_eq "./etc/missing: No such file or directory" "$(cat "$T/err")"
lf -T test.T ./etc/unlisted
assert_eq 2 "$RC" "-T unlisted: exit"
grep -q '^543 ' "$T/err" || fail "-T unlisted: $(cat "$T/err")"
lf -S -T test.T ./etc/motd
assert_eq 2 "$RC" "-S -T: exit"
# -u is octal here: 9 is no umask (the wording lapply uses too).
lf -u 9 ./etc/motd
assert_eq 2 "$RC" "-u 9: exit"
assert_eq "9: invalid umask" "$(head -n 1 "$T/err")"

assert_eq "" "$(ls -A "$T/tmpd")" "temporary files left"
exit 0
