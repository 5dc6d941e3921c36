#!/bin/sh
# The administrator's workflow end to end against cairnd at -w 0
# (README.md, "Walkthrough"): capture a reference tree with fsdiff -C,
# upload it with lcreate, and with cairn-publish verify it on the server,
# move it into transcript/ and file/ and name it in the host's command
# file; then, on an empty client root: ktcheck, fsdiff -A, lapply.  The
# client tree must then equal the reference tree: same objects, contents,
# modes and times (compared through fsdiff -C of both trees).
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lcreate fsdiff cairn-publish ktcheck lapply
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
umask 022

# Server: one host, one command file, nothing in it yet.
R=$T/repo
mkdir -p "$R/command" "$R/transcript" "$R/file" "$R/special" "$R/tmp" ||
    fail "mkdir"
echo '127.0.0.1 app.K' >"$R/config"
: >"$R/command/app.K"
start_cairnd "$R" -Z 9

# Reference machine: the software to capture.
mkdir -p "$T/ref/opt/app/bin" "$T/ref/opt/app/share/doc dir" \
    "$T/ref/etc/app" || fail "mkdir"
cd "$T/ref" || fail "cd"
printf '#!/bin/sh\necho app\n' >opt/app/bin/app
chmod 0755 opt/app/bin/app
printf 'port = 8080\n' >etc/app/app.conf
chmod 0640 etc/app/app.conf
: >"opt/app/share/doc dir/EMPTY"
python3 -c 'import os, sys; sys.stdout.buffer.write(os.urandom(1 << 20) + bytes(range(256)))' \
    >opt/app/share/data.bin
ln -s bin/app opt/app/current
find . -exec touch -h -d @1700000000 {} +
echo >"$T/empty.K"

# B.4: capture.  B.6: upload (stored as app-1.0.T).
"$FSDIFF" -C -c sha1 -K "$T/empty.K" -o "$T/app-1.0.T" . ||
    fail "fsdiff -C failed"
run_capture "$T/out" "$T/err" "$LCREATE" -h 127.0.0.1 -p "$PORT" -w 0 \
    -Z 1 -c sha1 "$T/app-1.0.T"
[ "$RC" -eq 0 ] || fail "lcreate exit $RC: $(cat "$T/err")"
[ "$(grep -c ': stored$' "$T/out")" -eq 5 ] ||
    fail "lcreate: expected 5 stored messages: $(cat "$T/out")"

# B.7: verify on the server; B.8: move into service; B.9: reference it;
# all three with cairn-publish.
run_capture "$T/out" "$T/err" "$CAIRN_PUBLISH" -D "$R" -k app.K app-1.0.T
[ "$RC" -eq 0 ] || fail "cairn-publish exit $RC: $(cat "$T/out" "$T/err")"
assert_eq 'p app-1.0.T' "$(cat "$R/command/app.K")" "command/app.K"

# C: the managed client, starting empty.
mkdir -p "$T/client" "$T/croot" || fail "mkdir"
: >"$T/client/command.K"
run_capture "$T/out" "$T/err" "$KTCHECK" -K "$T/client/command.K" \
    -h 127.0.0.1 -p "$PORT" -c sha1
assert_eq 1 "$RC" "ktcheck: exit ($(cat "$T/err"))"
cmp -s "$R/transcript/app-1.0.T" "$T/client/app-1.0.T" ||
    fail "ktcheck: transcript not fetched"
cd "$T/croot" || fail "cd"
chmod 0755 . && touch -d @1700000000 .
"$FSDIFF" -A -c sha1 -K "$T/client/command.K" -o "$T/apply.T" . ||
    fail "fsdiff -A failed"
run_capture "$T/out" "$T/err" "$LAPPLY" -h 127.0.0.1 -p "$PORT" -c sha1 \
    -Z 6 "$T/apply.T"
[ "$RC" -eq 0 ] || fail "lapply exit $RC: $(cat "$T/err")"

# The client tree equals the reference tree.
cd "$T/ref" && "$FSDIFF" -C -c sha1 -K "$T/empty.K" -o "$T/ref.T" . ||
    fail "fsdiff ref"
cd "$T/croot" && "$FSDIFF" -C -c sha1 -K "$T/empty.K" -o "$T/croot.T" . ||
    fail "fsdiff croot"
assert_eq 13 "$(wc -l <"$T/ref.T")" "objects in the reference tree"
assert_file_eq "$T/ref.T" "$T/croot.T" "client tree (fsdiff -C)"
cmp -s "$T/ref/opt/app/share/data.bin" "$T/croot/opt/app/share/data.bin" ||
    fail "data.bin differs"
# And nothing is left to do.
"$FSDIFF" -A -c sha1 -K "$T/client/command.K" -o "$T/again.T" . ||
    fail "fsdiff -A again"
assert_file_eq /dev/null "$T/again.T" "second fsdiff -A"
exit 0
