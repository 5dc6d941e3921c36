#!/bin/sh
# Signed releases at publish (cairn-publish(8) -s, -S, -m, -E;
# cairn-sign(8)): a publish with -s makes release/current, whose
# manifest names every command file, transcript and special file with
# its size and sha256 (checked here with sha256sum and base64) and whose
# signature cairn-sign -c verifies; each publish takes the next serial
# and only the two newest serial directories are kept; -S refuses a
# signature of another manifest, and one by a key release/keys/ does not
# hold, leaving current as it was, and installs a good offline
# signature; -m alone writes a pending manifest; usage errors exit 2.
. "$top_srcdir/tests/integ/lib.sh"
need_tool fsdiff cairn-publish cairn-sign
need_cmd sha256sum base64 xxd
mk_tmpdir
umask 022

R=$T/repo
mkdir -p "$R/command/hosts" "$R/transcript" "$R/file" "$R/special" \
    "$R/tmp/transcript" "$R/tmp/file" || fail "mkdir"
. "$top_srcdir/tests/integ/dstorelib.sh"

printf 'p app.T\n' >"$R/command/default.K"
printf 'k default.K\n' >"$R/command/hosts/web 1.K"
: >"$R/transcript/special.T"
mkdir -p "$R/special/web1/etc" || fail "mkdir"
printf '10.0.0.1 web1\n' >"$R/special/web1/etc/hosts"
printf 'f ./etc/hosts 0644 0 0 1700000000 14 -\n' >"$R/special/web1.T"

mkdir -p "$T/ref/opt/app" || fail "mkdir"
printf 'version 1\n' >"$T/ref/opt/app/version"
find "$T/ref" -exec touch -h -d @1700000000 {} +

# Keys: one to sign on the server, one offline, one nobody trusts.
in_dir "$T" "$CAIRN_SIGN" -g server >/dev/null || fail "cairn-sign -g"
in_dir "$T" "$CAIRN_SIGN" -g offline >/dev/null || fail "cairn-sign -g"
in_dir "$T" "$CAIRN_SIGN" -g other >/dev/null || fail "cairn-sign -g"
assert_eq 600 "$(stat -c %a "$T/server.key")" "private key mode"
assert_eq "$("$CAIRN_SIGN" -l "$T/server.pub")" \
    "$("$CAIRN_SIGN" -l "$T/server.key")" "key id of both halves"

# b64sha256 FILE: FILE's sha256 as a manifest writes it.
b64sha256()
{
	sha256sum <"$1" | cut -c1-64 | xxd -r -p | base64
}

# expect_entries MANIFEST: MANIFEST has exactly one entry per file of
# command/, transcript/ and special/, each with its size and sha256.
expect_entries()
{
	: >"$T/want"
	for _k in command transcript special; do
		(cd "$R/$_k" && find . -type f | sed 's|^\./||' |
		    LC_ALL=C sort) | while IFS= read -r _f; do
			_e=$(printf '%s' "$_f" | sed 's/\\/\\\\/g; s/ /\\b/g')
			printf '%s %s %s %s\n' "$_k" \
			    "$(stat -c %s "$R/$_k/$_f")" \
			    "$(b64sha256 "$R/$_k/$_f")" "$_e"
		done >>"$T/want"
	done
	sed -n '/^\(command\|transcript\|special\) /p' "$1" >"$T/got"
	assert_file_eq "$T/want" "$T/got" "manifest entries of $1"
	assert_eq "end $(wc -l <"$T/want" | tr -d ' ')" "$(tail -n 1 "$1")" \
	    "end line of $1"
}

# serial_of MANIFEST
serial_of()
{
	sed -n 's/^serial //p' "$1"
}

# Usage errors: exit 2, no release made.
stage app.T
publish 2 -E 0 app.T
publish 2 -E garbage app.T
publish 2 -E 30x app.T
publish 2 -E 11000d app.T
publish 2 -m app.T
publish 2 -m -S "$T/x.sig"
publish 2 -S "$T/x.sig" -s "$T/server.key"
publish 2 -d -m
[ ! -e "$R/release" ] || fail "usage errors made $R/release"

# A publish signed on the server: release 1, current.
publish 0 -s "$T/server.key" -E 2d app.T
grep -q 'release 1: installed' "$T/pout" || fail "publish -s: $(cat "$T/pout")"
assert_eq 1 "$(readlink "$R/release/current")" "release/current"
M=$R/release/current/manifest
head -n 5 "$M" >"$T/head"
assert_eq "cairn-manifest 1" "$(sed -n 1p "$T/head")" "magic"
assert_eq 1 "$(serial_of "$M")" "serial"
assert_eq "digest sha256" "$(sed -n 5p "$T/head")" "digest line"
created=$(sed -n 's/^created //p' "$M")
expires=$(sed -n 's/^expires //p' "$M")
assert_eq 172800 "$((expires - created))" "-E 2d"
expect_entries "$M"
grep -q '^command [0-9]* [^ ]* hosts/web\\b1.K$' "$M" ||
    fail "the name with a space is not encoded: $(cat "$M")"
grep -q '^transcript [0-9]* [^ ]* app.T$' "$M" || fail "app.T missing"
run_capture "$T/cout" "$T/cerr" "$CAIRN_SIGN" -K "$T/server.pub" -c "$M" \
    "$R/release/current/manifest.sig"
assert_eq 0 "$RC" "cairn-sign -c: $(cat "$T/cerr")"
grep -q "^key $("$CAIRN_SIGN" -l "$T/server.pub")\$" "$T/cout" ||
    fail "cairn-sign -c: key id: $(cat "$T/cout")"
grep -q '^serial 1$' "$T/cout" || fail "cairn-sign -c: $(cat "$T/cout")"
run_capture "$T/cout" "$T/cerr" "$CAIRN_SIGN" -K "$T/other.pub" -c "$M" \
    "$R/release/current/manifest.sig"
assert_eq 1 "$RC" "cairn-sign -c with a key that did not sign"
[ ! -e "$R/release/pending/manifest" ] ||
    fail "the installed manifest is still pending"

# The next publishes take the next serials; two serial directories stay.
printf 'version 2\n' >"$T/ref/opt/app/version"
stage app-2.T
publish 0 -s "$T/server.key" app-2.T
assert_eq 2 "$(readlink "$R/release/current")" "release/current"
assert_eq 2 "$(serial_of "$R/release/current/manifest")" "serial"
expect_entries "$R/release/current/manifest"
[ -d "$R/release/1" ] || fail "release 1 removed too early"
publish 0 -m -s "$T/server.key"
publish 0 -m -s "$T/server.key"
assert_eq 4 "$(readlink "$R/release/current")" "release/current"
[ ! -e "$R/release/1" ] && [ ! -e "$R/release/2" ] ||
    fail "old releases kept: $(ls "$R/release")"
[ -d "$R/release/3" ] || fail "release 3 removed: $(ls "$R/release")"

# Offline: a publish without -s leaves the manifest pending, current as
# it was.
printf 'version 3\n' >"$T/ref/opt/app/version"
stage app-3.T
publish 0 app-3.T
grep -q 'release 5: waiting for its signature' "$T/pout" ||
    fail "publish: $(cat "$T/pout")"
assert_eq 4 "$(readlink "$R/release/current")" "current before -S"
P=$R/release/pending/manifest
assert_eq 5 "$(serial_of "$P")" "pending serial"
expect_entries "$P"

# A signature of another manifest (release 4's): refused.
mkdir -p "$R/release/keys" || fail "mkdir"
cp "$T/offline.pub" "$R/release/keys/offline.pub" || fail "cp"
"$CAIRN_SIGN" -k "$T/offline.key" "$R/release/current/manifest" \
    >"$T/stale.sig" 2>/dev/null || fail "cairn-sign -k"
publish 1 -S "$T/stale.sig"
grep -q 'bad signature by key' "$T/perr" || fail "-S stale: $(cat "$T/perr")"
assert_eq 4 "$(readlink "$R/release/current")" "current after a refusal"
[ -f "$P" ] || fail "the pending manifest went"

# A malformed signature file: refused.
printf 'cairn-signature 1\nend 0\n' >"$T/bad.sig"
publish 1 -S "$T/bad.sig"
grep -q 'line 2: no signature' "$T/perr" || fail "-S bad: $(cat "$T/perr")"

# The pending manifest signed offline (on a copy): installed.
cp "$P" "$T/offline-manifest" || fail "cp"
"$CAIRN_SIGN" -k "$T/offline.key" -o "$T/good.sig" "$T/offline-manifest" \
    2>/dev/null || fail "cairn-sign -k"
# ... but not while release/keys/ holds only another key
rm -f "$R/release/keys/offline.pub"
cp "$T/other.pub" "$R/release/keys/other.pub" || fail "cp"
publish 1 -S "$T/good.sig"
grep -q 'not signed by a pinned key' "$T/perr" ||
    fail "-S by a key not in release/keys: $(cat "$T/perr")"
assert_eq 4 "$(readlink "$R/release/current")" "current after a refusal"
# ... nor with no key there at all
rm -f "$R/release/keys/other.pub"
publish 1 -S "$T/good.sig"
grep -q 'no public key' "$T/perr" || fail "-S, no keys: $(cat "$T/perr")"
cp "$T/offline.pub" "$R/release/keys/offline.pub" || fail "cp"
publish 0 -S "$T/good.sig"
assert_eq 5 "$(readlink "$R/release/current")" "current after -S"
cmp -s "$T/offline-manifest" "$R/release/5/manifest" ||
    fail "the installed manifest is not the one signed"
cmp -s "$T/good.sig" "$R/release/5/manifest.sig" ||
    fail "the installed signature is not the one given"
[ ! -e "$P" ] || fail "the installed manifest is still pending"
run_capture "$T/cout" "$T/cerr" "$CAIRN_SIGN" -K "$R/release/keys" \
    -c "$R/release/current/manifest" "$R/release/current/manifest.sig"
assert_eq 0 "$RC" "cairn-sign -c: $(cat "$T/cerr")"
# again: nothing pending any more
publish 2 -S "$T/good.sig"
grep -q 'no manifest waiting' "$T/perr" || fail "-S again: $(cat "$T/perr")"

# -m alone: a new pending manifest, the serial after current.
publish 0 -m -E 90m
assert_eq 6 "$(serial_of "$P")" "-m serial"
created=$(sed -n 's/^created //p' "$P")
expires=$(sed -n 's/^expires //p' "$P")
assert_eq 5400 "$((expires - created))" "-E 90m"
assert_eq 5 "$(readlink "$R/release/current")" "current after -m"

# A symbolic link out of the repository: no manifest, said.
ln -s /etc/passwd "$R/command/evil.K" || fail "ln"
publish 2 -m
grep -q 'command/evil.K: symbolic link to /etc/passwd, outside' \
    "$T/perr" || fail "-m with a link out: $(cat "$T/perr")"
assert_eq 6 "$(serial_of "$P")" "pending after a failed -m"
rm -f "$R/command/evil.K"
end_test
