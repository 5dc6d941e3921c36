#!/bin/sh
# The stat entries of a release manifest (docs/formats.md section 15):
# cairn-publish -m lists, for every host special directory
# special/<dir>/<key> that config (and its @include files) implies, each
# regular file below it with its size, sha256 and the metadata cairnd's
# STAT SPECIAL lookup gives it: a per-file .T, the host's .T, the
# server-wide special.T, the default f 444 0 0; asked as ./p and as /p
# (both when transcripts name both spellings, only the named one
# otherwise).  Checked line for line, in order: two hosts of one <dir>,
# a host of a <dir> named only in an included file, a directory read
# both as a <dir> and as a <key>, a file ending in .T, a symbolic link
# and a command file whose <dir> does not exist (nothing listed), and
# metadata no client takes (skipped with a warning).  Without config,
# no stat entry.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairn-publish
need_cmd sha256sum base64 xxd
mk_tmpdir
umask 022

R=$T/repo
mkdir -p "$R/command/lab" "$R/transcript" "$R/special/web1/etc" \
    "$R/special/web2/etc" "$R/special/lab/10.0.0.5/etc" \
    "$R/special/db/db1/etc" || fail "mkdir"
cat >"$R/config" <<EOF
# hosts
web1	web.K
web2	web.K
10.0.0.*	lab/kiosk.K
nosuch	none/x.K
@include $T/more.cfg
EOF
printf 'db*\tdb/db.K\n' >"$T/more.cfg"
: >"$R/command/web.K"
printf 'web1\n' >"$R/special/web1/etc/hostname"
printf 's1\n' >"$R/special/web1/etc/shadow"
printf 'f ./etc/shadow 0600 0 42 1700000000 3 -\n' \
    >"$R/special/web1/etc/shadow.T"
printf 'f ./etc/hostname 0644 0 0 1700000000 5 -\n' >"$R/special/web1.T"
printf 'web-2\n' >"$R/special/web2/etc/hostname"
ln -s hostname "$R/special/web2/etc/link" || fail "ln"
printf 'b\n' >"$R/special/web2/etc/bad"
printf 'f ./etc/bad rw-r--r-- 0 0 1700000000 2 -\n' \
    >"$R/special/web2/etc/bad.T"
printf 'hi\n' >"$R/special/lab/10.0.0.5/etc/motd"
printf 'f ./etc/motd 0444 1 1 1700000000 3 -\n' >"$R/special/lab/10.0.0.5.T"
printf 'x\n' >"$R/special/db/db1/etc/x"
{
	printf 'f ./etc/hostname 0640 0 0 1700000000 6 -\n'
	printf 'f /etc/hostname 0604 0 0 1700000000 6 -\n'
} >"$R/transcript/special.T"

# b64sha256 FILE: FILE's sha256 as a manifest writes it.
b64sha256()
{
	sha256sum <"$1" | cut -c1-64 | xxd -r -p | base64
}

# st FILE META PATH: the stat line of FILE (below special/).
st()
{
	printf 'stat %s %s %s %s\n' "$(stat -c %s "$R/special/$1")" \
	    "$(b64sha256 "$R/special/$1")" "$2" "$3"
}

run_capture "$T/out" "$T/err" "$CAIRN_PUBLISH" -D "$R" -m
assert_eq 0 "$RC" "cairn-publish -m: $(cat "$T/err")"
M=$R/release/pending/manifest
{
	# <dir> "", <key> lab: the same files as special/lab/<key> below
	st lab/10.0.0.5.T 'f 444 0 0' 10.0.0.5.T
	st lab/10.0.0.5/etc/motd 'f 444 0 0' 10.0.0.5/etc/motd
	st db/db1/etc/x 'f 444 0 0' db1/etc/x
	# web1: the host's .T for ./, special.T for /
	st web1/etc/hostname 'f 0604 0 0' etc/hostname
	st web1/etc/hostname 'f 0644 0 0' etc/hostname
	# web2: special.T for both spellings
	st web2/etc/hostname 'f 0604 0 0' etc/hostname
	st web2/etc/hostname 'f 0640 0 0' etc/hostname
	# lab/10.0.0.5: its host's .T names ./ only
	st lab/10.0.0.5/etc/motd 'f 0444 1 1' etc/motd
	# web1: the per-file .T names ./ only; it is listed itself
	st web1/etc/shadow 'f 0600 0 42' etc/shadow
	st web1/etc/shadow.T 'f 444 0 0' etc/shadow.T
	# db (an @include's <dir>): nothing names it
	st db/db1/etc/x 'f 444 0 0' etc/x
	# web2/etc/bad: its mode is no mode, only its .T is listed
	st web2/etc/bad.T 'f 444 0 0' etc/bad.T
} >"$T/want.unsorted"
# the order: path, then size, digest, metadata
LC_ALL=C sort -t ' ' -k 8,8 -k 2,2n -k 3,3 -k 4 "$T/want.unsorted" \
    >"$T/want"
grep '^stat ' "$M" >"$T/got"
assert_file_eq "$T/want" "$T/got" "stat entries"
grep -q 'special/web2/etc/bad: type, mode, uid, gid "f rw-r--r-- 0 0" are not a file'"'"'s: not in the release' \
    "$T/err" || fail "no warning for etc/bad: $(cat "$T/err")"
# the rest of the manifest is as before: one entry per file
assert_eq "$(find "$R/command" "$R/transcript" "$R/special" -type f -o -type l |
    wc -l | tr -d ' ')" "$(grep -c '^\(command\|transcript\|special\) ' "$M")" \
    "file entries"
assert_eq "end $(($(wc -l <"$T/want") + $(grep -c '^\(command\|transcript\|special\) ' "$M")))" \
    "$(tail -n 1 "$M")" "end line"
grep -q 'manifest of 13 files' "$T/out" || fail "count: $(cat "$T/out")"

# Without config, no stat entry.
mv "$R/config" "$T/config.saved" || fail "mv"
run_capture "$T/out" "$T/err" "$CAIRN_PUBLISH" -D "$R" -m
assert_eq 0 "$RC" "cairn-publish -m, no config: $(cat "$T/err")"
grep -q '^stat ' "$M" && fail "no config: $(grep '^stat ' "$M")"
end_test
