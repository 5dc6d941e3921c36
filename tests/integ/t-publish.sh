#!/bin/sh
# cairn-publish(8) end to end against cairnd at -w 0: a loadset uploaded
# with lcreate is verified and put into service with one command, after
# which a client pulls it (ktcheck, fsdiff -A, lapply) into an empty
# root.  Also: -n changes nothing; a corrupt upload publishes nothing
# and the message names the file and the line; a published loadset is
# not overwritten without -f and is replaced with it, but the same
# loadset uploaded again is no change (exit 0, the upload removed); -k
# adds "p T" to a command file once; hostile names and usage errors are
# refused.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lcreate fsdiff lcksum ktcheck lapply cairn-publish
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
umask 022

R=$T/repo
mkdir -p "$R/command" "$R/transcript" "$R/file" "$R/special" "$R/tmp" ||
    fail "mkdir"
echo '127.0.0.1 app.K' >"$R/config"
: >"$R/command/app.K"
start_cairnd "$R" -Z 9

# The reference tree of version 1, captured and uploaded.
mkdir -p "$T/ref/opt/app/bin" "$T/ref/etc/app" || fail "mkdir"
printf '#!/bin/sh\necho app\n' >"$T/ref/opt/app/bin/app"
chmod 0755 "$T/ref/opt/app/bin/app"
printf 'port = 8080\n' >"$T/ref/etc/app/app.conf"
python3 -c 'import os, sys; sys.stdout.buffer.write(os.urandom(300000))' \
    >"$T/ref/opt/app/data.bin"
find "$T/ref" -exec touch -h -d @1700000000 {} +
. "$top_srcdir/tests/integ/dstorelib.sh"

# upload NAME: capture $T/ref and upload it as NAME.
upload()
{
	in_dir "$T/ref" "$FSDIFF" -C -c sha1 -K "$T/empty.K" \
	    -o "$T/$1" . || fail "fsdiff -C"
	run_capture "$T/out" "$T/err" in_dir "$T/ref" "$LCREATE" -h 127.0.0.1 -p "$PORT" \
	    -w 0 -c sha1 "$T/$1"
	[ "$RC" -eq 0 ] || fail "lcreate $1: exit $RC: $(cat "$T/err")"
	# lcreate is done once QUIT is answered; cairnd's session marks
	# the upload as its own until it ends, and cairn-publish waits for
	# that (refused as "still being uploaded" before).
	retry 100 no_stor_mark || fail "lcreate $1: the session did not end"
}

# no_stor_mark: no session of cairnd holds an upload in $R/tmp.
no_stor_mark()
{
	for _m in "$R"/tmp/.stor.*; do
		[ -e "$_m" ] || [ -L "$_m" ] || continue
		return 1
	done
	return 0
}

# pull: a client pulls its loadsets into $T/croot, which then must
# match $T/ref.
pull()
{
	rm -rf "$T/client" "$T/croot"
	mkdir -p "$T/client" "$T/croot" || fail "mkdir"
	: >"$T/client/command.K"
	run_capture "$T/out" "$T/err" "$KTCHECK" -K "$T/client/command.K" \
	    -h 127.0.0.1 -p "$PORT" -c sha1
	assert_eq 1 "$RC" "ktcheck: exit ($(cat "$T/err"))"
	chmod 0755 "$T/croot" && touch -d @1700000000 "$T/croot"
	in_dir "$T/croot" "$FSDIFF" -A -c sha1 -K "$T/client/command.K" \
	    -o "$T/apply.T" . || fail "fsdiff -A"
	run_capture "$T/out" "$T/err" in_dir "$T/croot" "$LAPPLY" -h 127.0.0.1 -p "$PORT" \
	    -c sha1 "$T/apply.T"
	[ "$RC" -eq 0 ] || fail "lapply exit $RC: $(cat "$T/err")"
	in_dir "$T/ref" "$FSDIFF" -C -c sha1 -K "$T/empty.K" \
	    -o "$T/ref.T" . || fail "fsdiff ref"
	in_dir "$T/croot" "$FSDIFF" -C -c sha1 -K "$T/empty.K" \
	    -o "$T/croot.T" . || fail "fsdiff croot"
	assert_file_eq "$T/ref.T" "$T/croot.T" "client tree (fsdiff -C)"
}

# Usage, version and hostile names: exit 2, nothing touched.
publish 2
publish 2 -Q app-1.0.T
publish 2 a.T b.T
publish 2 -c nosuchdigest app-1.0.T
"$CAIRN_PUBLISH" -V >"$T/v" || fail "-V"
assert_eq "$("$CAIRND" -V | head -n 1)" "$(head -n 1 "$T/v")" "-V"
upload app-1.0.T
for n in ../app-1.0.T .. . '' tmp/transcript/app-1.0.T \
    ../tmp/transcript/app-1.0.T; do
	publish 2 "$n"
	grep -q 'not a transcript name' "$T/perr" ||
	    fail "name '$n': $(cat "$T/perr")"
done
for k in ../config ../../x.K sub/../../x.K ''; do
	publish 2 -k "$k" app-1.0.T
	grep -q 'not a command file' "$T/perr" ||
	    fail "-k '$k': $(cat "$T/perr")"
done
publish 2 nosuch.T
# A symbolic link in place of the upload is not followed.
ln -s "$T/app-1.0.T" "$R/tmp/transcript/link.T" || fail "ln"
publish 2 link.T
grep -q 'tmp/transcript/link.T: not a regular file' "$T/perr" ||
    fail "link.T: $(cat "$T/perr")"
rm -f "$R/tmp/transcript/link.T"
[ -f "$R/tmp/transcript/app-1.0.T" ] && [ -d "$R/tmp/file/app-1.0.T" ] ||
    fail "upload moved by a refused command"
assert_no_files "refused commands published" "$R/transcript" "$R/file" \
    -mindepth 1

# -n: says what it would do and does nothing.
publish 0 -n -k app.K app-1.0.T
grep -q '^would rename tmp/file/app-1.0.T and file/app-1.0.T$' "$T/pout" &&
    grep -q '^would rename tmp/transcript/app-1.0.T to transcript/app-1.0.T$' \
    "$T/pout" && grep -q '^would add "p app-1.0.T" to command/app.K$' \
    "$T/pout" || fail "-n: $(cat "$T/pout")"
assert_no_files "-n published" "$R/transcript" "$R/file" -mindepth 1
[ -s "$R/command/app.K" ] && fail "-n wrote the command file"

# Publish: in service, nothing left in tmp, named once by app.K.
publish 0 -k app.K app-1.0.T
assert_eq "app-1.0.T: published" "$(cat "$T/pout")" "publish output"
cmp -s "$T/app-1.0.T" "$R/transcript/app-1.0.T" ||
    fail "transcript not in service"
assert_tree_eq "$T/ref" "$R/file/app-1.0.T" "file/app-1.0.T"
assert_no_files "left in tmp" "$R/tmp/transcript" "$R/tmp/file" -mindepth 1
printf 'p app-1.0.T\n' >"$T/want.K"
assert_file_eq "$T/want.K" "$R/command/app.K" "command/app.K"
# The same command again: done already, app.K unchanged.
publish 0 -k app.K app-1.0.T
assert_eq "app-1.0.T: already published" "$(cat "$T/pout")" "re-run"
assert_file_eq "$T/want.K" "$R/command/app.K" "command/app.K after re-run"
assert_no_files "temporary command files" "$R/command" -name '.*'
# The same loadset uploaded again (a script run twice): nothing to
# replace, so nothing is refused; the upload is gone from tmp/.  With -n
# that is said and nothing removed.
upload app-1.0.T
publish 0 -n app-1.0.T
grep -q '^would remove tmp/transcript/app-1.0.T and tmp/file/app-1.0.T (the same as in service)$' \
    "$T/pout" || fail "-n, same upload: $(cat "$T/pout")"
[ -f "$R/tmp/transcript/app-1.0.T" ] && [ -d "$R/tmp/file/app-1.0.T" ] ||
    fail "-n removed the upload"
publish 0 -k app.K app-1.0.T
assert_eq "app-1.0.T: already published, the same as the upload: nothing changed" \
    "$(cat "$T/pout")" "the same upload again"
assert_no_files "the same upload left in tmp" "$R/tmp/transcript" \
    "$R/tmp/file" -mindepth 1
cmp -s "$T/app-1.0.T" "$R/transcript/app-1.0.T" ||
    fail "transcript changed by the same upload"
assert_tree_eq "$T/ref" "$R/file/app-1.0.T" "file/app-1.0.T, same upload"
assert_file_eq "$T/want.K" "$R/command/app.K" "command/app.K, same upload"
# The same transcript, but a file in service no longer matches it: the
# upload would change something, so it is refused without -f.
upload app-1.0.T
cp "$R/file/app-1.0.T/etc/app/app.conf" "$T/app.conf.saved" || fail "cp"
printf 'port = 1\n' >"$R/file/app-1.0.T/etc/app/app.conf"
publish 1 app-1.0.T
grep -q 'app-1.0.T: already published (transcript exists); -f replaces it' \
    "$T/perr" || fail "same transcript, damaged files: $(cat "$T/perr")"
[ -f "$R/tmp/transcript/app-1.0.T" ] || fail "refused upload removed"
cp "$T/app.conf.saved" "$R/file/app-1.0.T/etc/app/app.conf" || fail "cp"
# A different upload under the name is refused as before (below); this
# one, now the same as in service, goes.
publish 0 app-1.0.T
assert_no_files "the same upload left in tmp" "$R/tmp/transcript" \
    "$R/tmp/file" -mindepth 1
# A command file that is a symbolic link is not written through.
cp "$R/config" "$T/config"
ln -s ../config "$R/command/evil.K" || fail "ln"
publish 2 -k evil.K app-1.0.T
assert_file_eq "$T/config" "$R/config" "config after -k evil.K"
rm -f "$R/command/evil.K"
pull

# -k on an existing file without a final newline, in a subdirectory,
# and on a missing one: appended once.
mkdir -p "$R/command/hosts" || fail "mkdir"
printf 'p base.T' >"$R/command/hosts/a.K"
publish 0 -v -k hosts/a.K -k hosts/new.K -k hosts/a.K app-1.0.T
grep -q '^add "p app-1.0.T" to command/hosts/a.K$' "$T/pout" &&
    grep -q '^command/hosts/a.K already names app-1.0.T$' "$T/pout" ||
    fail "-v -k: $(cat "$T/pout")"
printf 'p base.T\np app-1.0.T\n' >"$T/want.K"
assert_file_eq "$T/want.K" "$R/command/hosts/a.K" "command/hosts/a.K"
assert_eq "p app-1.0.T" "$(cat "$R/command/hosts/new.K")" "new.K"

# Two publishes editing one command file at once must not lose a line:
# the edit waits for the lock on the command file's directory.
need_cmd flock mkfifo
mkfifo "$T/release" || fail "mkfifo"
# The holder waits for the release at most 60 s, whatever happens here.
flock -x "$R/command/hosts" timeout 60 sh -c "read x <'$T/release'" &
holder=$!
n=0
until [ -e "$T/locked" ] || [ "$n" -gt 50 ]; do
	# the holder has the lock once flock -n fails
	flock -n -x "$R/command/hosts" true || : >"$T/locked"
	n=$((n + 1))
	sleep 0.1
done
[ -e "$T/locked" ] || fail "the lock holder did not start"
"$CAIRN_PUBLISH" -D "$R" -k hosts/locked.K app-1.0.T >"$T/lout" 2>&1 &
pub=$!
sleep 1
[ -e "$R/command/hosts/locked.K" ] &&
    fail "command file written while its directory was locked"
echo go >"$T/release"
wait "$holder"
n=0
while kill -0 "$pub" 2>/dev/null && [ "$n" -lt 100 ]; do
	n=$((n + 1))
	sleep 0.1
done
wait "$pub" || fail "publish under the lock: $(cat "$T/lout")"
assert_eq "p app-1.0.T" "$(cat "$R/command/hosts/locked.K")" "locked.K"

# A corrupt upload: nothing published, the file and line named.
upload app-2.0.T
printf 'x' >>"$R/tmp/file/app-2.0.T/opt/app/data.bin"
line=$(grep -n ' \./opt/app/data\.bin ' "$T/app-2.0.T" | cut -d: -f1)
publish 1 -k app.K app-2.0.T
grep -q "tmp/transcript/app-2.0.T: line $line: \./opt/app/data\.bin: size wrong" \
    "$T/perr" && grep -q 'verification failed: nothing published' "$T/perr" ||
    fail "corrupt upload: $(cat "$T/perr")"
if [ -e "$R/transcript/app-2.0.T" ] || [ -e "$R/file/app-2.0.T" ]; then
	fail "corrupt upload published"
fi
[ -f "$R/tmp/transcript/app-2.0.T" ] || fail "corrupt upload removed"
grep -q app-2.0.T "$R/command/app.K" && fail "app.K names a corrupt upload"
# Same size, other content: the checksum catches it.
cp "$T/ref/opt/app/data.bin" "$R/tmp/file/app-2.0.T/opt/app/data.bin" ||
    fail "cp"
head -c 5 /dev/zero | dd of="$R/tmp/file/app-2.0.T/opt/app/data.bin" \
    conv=notrunc 2>/dev/null
publish 1 app-2.0.T
grep -q "line $line: \./opt/app/data\.bin: checksum wrong" "$T/perr" ||
    fail "checksum: $(cat "$T/perr")"
# A missing file.
rm -f "$R/tmp/file/app-2.0.T/etc/app/app.conf"
publish 1 app-2.0.T
grep -q "tmp/transcript/app-2.0.T: line [0-9]*: open \./etc/app/app\.conf: No such file or directory" \
    "$T/perr" ||
    fail "missing file: $(cat "$T/perr")"
[ -e "$R/transcript/app-2.0.T" ] && fail "corrupt upload published"

# Version 1 again, changed: refused without -f, replaced with -f.
printf 'port = 9090\n' >"$T/ref/etc/app/app.conf"
touch -d @1700000000 "$T/ref/etc/app/app.conf"
cp "$R/transcript/app-1.0.T" "$T/old.T"
upload app-1.0.T
publish 1 app-1.0.T
grep -q 'app-1.0.T: already published (transcript exists); -f replaces it' \
    "$T/perr" || fail "overwrite: $(cat "$T/perr")"
assert_file_eq "$T/old.T" "$R/transcript/app-1.0.T" "refused: transcript"
grep -q 8080 "$R/file/app-1.0.T/etc/app/app.conf" || fail "refused: files"
publish 0 -f -k app.K app-1.0.T
assert_file_eq "$T/app-1.0.T" "$R/transcript/app-1.0.T" "-f: transcript"
assert_tree_eq "$T/ref" "$R/file/app-1.0.T" "-f: file/app-1.0.T"
assert_no_files "-f: left in tmp" "$R/tmp/transcript" "$R/tmp/file" \
    -name app-1.0.T
printf 'p app-1.0.T\n' >"$T/want.K"
assert_file_eq "$T/want.K" "$R/command/app.K" "command/app.K after -f"
run_capture "$T/out" "$T/err" "$LCKSUM" -n -c sha1 -D "$R" \
    "$R/transcript/app-1.0.T"
[ "$RC" -eq 0 ] || fail "lcksum -n after -f: $(cat "$T/out" "$T/err")"
pull
exit 0
