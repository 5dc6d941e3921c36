#!/bin/sh
# t-lapply-links: an object with a name outside the apply root is never
# changed in place, and no "h" line links a new name to it.  A local user
# who can write a managed directory plants a hard link there to a file
# outside the root (possible where fs.protected_hardlinks is 0, and on
# other systems); lapply must then replace the managed name with a copy
# carrying the declared metadata, leaving the outside file's mode, owner,
# mtime and link count alone.  Links that stay inside the root, even
# across directories, are still changed in place.
. "$top_srcdir/tests/integ/lib.sh"
need_tool lapply
mk_tmpdir
. "$top_srcdir/tests/integ/lapply-lib.sh"
plant
mkdir "$R/home"
ln "$OUT/victim" "$R/home/x" 2>/dev/null ||
    skip "cannot make hard links here"
V=$(stat -c '%i %a %u %g %Y %s' "$OUT/victim")
sum=$(sha1b64 "$OUT/victim")

# victim_intact LINKS: the outside file is as planted, with LINKS links.
victim_intact()
{
	[ "$(stat -c '%i %a %u %g %Y %s' "$OUT/victim")" = "$V" ] ||
	    fail "outside file changed: $(stat -c '%i %a %u %g %Y %s' "$OUT/victim")"
	[ "$(stat -c %h "$OUT/victim")" = "$1" ] ||
	    fail "outside file has $(stat -c %h "$OUT/victim") links, not $1"
	[ "$(cat "$OUT/victim")" = "sentinel bytes" ] || fail "content changed"
}

# 1. A metadata-only line (mode 0600 -> 0644) on the planted link.
printf 'f ./home/x\t0644 %s %s 1500000000 15 %s\n' "$U" "$G" "$sum" \
    > "$T/meta.T"
apply "$T/meta.T" -c sha1
expect_rc 0
expect_out "No network connection
./home/x: updating mode"
grep -q "line 1: ./home/x: 2 links, not all inside the root: replacing it" \
    "$T/err" || fail "no warning about the outside name"
victim_intact 1
[ "$(stat -c '%a %h %Y' "$R/home/x")" = "644 1 1500000000" ] ||
    fail "managed name not replaced: $(stat -c '%a %h %Y' "$R/home/x")"
[ "$(cat "$R/home/x")" = "sentinel bytes" ] || fail "copy differs"
[ "$(ls -A "$R/home")" = x ] || fail "debris: $(ls -A "$R/home")"

# 2. The copy is verified: a checksum that does not match refuses it.
rm "$R/home/x"
ln "$OUT/victim" "$R/home/x"
printf 'f ./home/x\t0644 %s %s 1500000000 15 %s\n' "$U" "$G" \
    2jmj7l5rSw0yVb/vlWAYkK/YBwk= > "$T/bad.T"
apply "$T/bad.T" -c sha1
expect_rc 2
grep -q "checksum does not match the transcript" "$T/err" ||
    fail "no checksum error"
victim_intact 2
[ "$(ls -A "$R/home")" = x ] || fail "debris: $(ls -A "$R/home")"

# 3. An "h" line to the planted link: the target is replaced by a copy
#    first, so the new name never joins the outside file's inode.
printf 'h ./home/y\t./home/x\n' > "$T/h.T"
apply "$T/h.T"
expect_rc 0
expect_out "No network connection
./home/y: hard linked to ./home/x"
victim_intact 1
[ "$(stat -c %h "$R/home/x")" = 2 ] || fail "x and y are not linked"
[ "$(stat -c %i "$R/home/x")" = "$(stat -c %i "$R/home/y")" ] ||
    fail "y is not x"
[ "$(stat -c '%a %Y' "$R/home/x")" = "600 1500000000" ] ||
    fail "the copy lost its metadata: $(stat -c '%a %Y' "$R/home/x")"

# 4. Links that all lie inside the root, across directories, are changed
#    in place: same inode, no warning.
mkdir "$R/a" "$R/b"
printf 'inside\n' > "$R/a/f"
chmod 0600 "$R/a/f"
touch -d @1500000000 "$R/a/f"
ln "$R/a/f" "$R/b/g"
ino=$(stat -c %i "$R/a/f")
printf 'f ./a/f\t0644 %s %s 1500000000 7 -\n' "$U" "$G" > "$T/in.T"
apply "$T/in.T"
expect_rc 0
expect_out "No network connection
./a/f: updating mode"
[ ! -s "$T/err" ] || fail "unexpected stderr"
[ "$(stat -c '%i %a %h' "$R/b/g")" = "$ino 644 2" ] ||
    fail "not changed in place: $(stat -c '%i %a %h' "$R/b/g")"
check_sentinel "end"
exit 0
