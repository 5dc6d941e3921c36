#!/bin/sh
# t-catalogue-apply: lapply against hostile file-system states
# (docs/security.md C5, C9, C10).  As root: a character device line where a
# symbolic link to a file outside the root stands replaces the link and
# never touches what it points to (C5); run as nobody, a device line
# fails with "mknod: Operation not permitted" and exit 2, never success
# (C5), and a directory under a parent without write permission fails
# with "mkdir: Permission denied" naming the transcript and line, exit 2,
# nothing left behind (C9).
# A download onto an immutable file and a directory or a download in a
# read-only mount fail naming the path and the error; what came before
# is kept (exit 1), nothing after is done, no temporary file is left
# (C9).
# The apply root is a symbolic link that is pointed elsewhere while a
# download is in progress: the file still lands in the directory the
# root was at the start, and nothing in the new one (C10).  Root only
# (device numbers, and running as another user).
. "$top_srcdir/tests/integ/lib.sh"
need_root
need_tool lapply
need_cmd setpriv python3
mk_tmpdir
. "$top_srcdir/tests/integ/lapply-lib.sh"
. "$top_srcdir/tests/integ/netlib.sh"
NOBODY=65534

# --- C5: mknod over a symbolic link never follows it.
plant
ln -s "$OUT/victim" "$R/null"
printf 'c ./null\t0666 0 0 1 3\n' > "$T/c5.T"
apply "$T/c5.T"
expect_rc 0
[ -c "$R/null" ] || fail "C5: ./null is not a character device"
[ "$(stat -c '%t %T %a' "$R/null")" = "1 3 666" ] ||
    fail "C5: ./null is $(stat -c '%t %T %a' "$R/null")"
check_sentinel C5
rm -f "$R/null"

# nobody LAPPLY-ARGS...: run lapply -n in $R as nobody.
nobody()
{
	run_capture "$T/out" "$T/err" in_dir "$R" setpriv --reuid=$NOBODY \
	    --regid=$NOBODY --clear-groups "$LAPPLY" -n "$@"
}

# --- C5: devices as an unprivileged user are an error.
chown $NOBODY "$R"
printf 'c ./null\t0666 %s %s 1 3\n' $NOBODY $NOBODY > "$T/c5u.T"
chmod 0644 "$T/c5u.T"
chmod 0755 "$T"
nobody "$T/c5u.T"
expect_rc 2
expect_err "lapply: $T/c5u.T: line 1: ./null: mknod: Operation not permitted"
[ -e "$R/null" ] && fail "C5: ./null created as nobody"
printf 'b ./sda\t0660 %s %s 8 0\n' $NOBODY $NOBODY > "$T/c5b.T"
chmod 0644 "$T/c5b.T"
nobody "$T/c5b.T"
expect_rc 2
expect_err "lapply: $T/c5b.T: line 1: ./sda: mknod: Operation not permitted"

# --- C9: EACCES on a parent.
mkdir "$R/ro"
chown $NOBODY "$R/ro"
chmod 0555 "$R/ro"
printf 'd ./ro\t0555 %s 0\nd ./ro/new\t0755 %s 0\n' $NOBODY $NOBODY \
    > "$T/c9.T"
chmod 0644 "$T/c9.T"
nobody "$T/c9.T"
expect_rc 2
expect_err "lapply: $T/c9.T: line 2: ./ro/new: mkdir: Permission denied"
[ -z "$(ls -A "$R/ro")" ] || fail "C9: left in ./ro: $(ls -A "$R/ro")"
[ "$(ls -A "$R")" = ro ] || fail "C9: left in the root: $(ls -A "$R")"
rm -rf "$R/ro"

# --- C9: an immutable file (chattr +i) that a download must replace, and
# a read-only mount under the root (a bind mount in a mount namespace of
# its own).  lapply stops at the failing line, naming it and the error;
# what came before stays applied (exit 1), nothing after is touched, the
# file keeps its old content, and no temporary file is left.  Each part
# is skipped where the file system or the kernel does not allow it.
S=$T/srv
mkdir -p "$S/file/test.T"
printf 'new a\n' >"$S/file/test.T/a"
printf 'new content\n' >"$S/file/test.T/imm"
printf 'new z\n' >"$S/file/test.T/z"
{
	echo "test.T:"
	fline './a' "$S/file/test.T/a" 0644
	fline './imm' "$S/file/test.T/imm" 0644
	fline './z' "$S/file/test.T/z" 0644
} >"$T/c9i.T"
printf 'old\n' >"$R/imm"
if chattr +i "$R/imm" 2>/dev/null; then
	at_exit 'chattr -i "$R/imm" 2>/dev/null'
	serve_files "$S"
	net_apply "$R" "$T/c9i.T" -c sha1
	chattr -i "$R/imm"
	expect_rc 1
	grep -q '\./imm: .*Operation not permitted' "$T/err" ||
	    fail "C9 immutable: message: $(cat "$T/err")"
	[ "$(cat "$R/imm")" = old ] || fail "C9 immutable: ./imm changed"
	[ "$(cat "$R/a")" = "new a" ] || fail "C9 immutable: ./a not applied"
	[ -e "$R/z" ] && fail "C9 immutable: went on past ./imm"
	[ "$(ls -A "$R" | tr '\n' ' ')" = "a imm " ] ||
	    fail "C9 immutable: left in the root: $(ls -A "$R")"
else
	not_run "C9 immutable (no immutable flag here)"
fi
rm -rf "$R"/*

mkdir "$R/ro"
mkdir "$S/file/test.T/ro"
printf 'new f\n' >"$S/file/test.T/ro/f"
printf 'd ./a\t0755 0 0\nd ./ro/sub\t0755 0 0\nd ./z\t0755 0 0\n' >"$T/c9d.T"
{
	echo "test.T:"
	fline './ro/f' "$S/file/test.T/ro/f" 0644
} >"$T/c9f.T"
# ro LAPPLY-ARGS...: lapply in $R with ./ro mounted read-only.
ro()
{
	run_capture "$T/out" "$T/err" in_dir "$R" unshare -m sh -c \
	    'mount --bind ro ro && mount -o remount,bind,ro ro && exec "$@"' \
	    sh "$LAPPLY" "$@"
}
if unshare -m sh -c 'mount --bind "$1" "$1" &&
    mount -o remount,bind,ro "$1"' sh "$R/ro" 2>/dev/null; then
	ro -n "$T/c9d.T"
	expect_rc 1
	expect_err "lapply: $T/c9d.T: line 2: ./ro/sub: mkdir: Read-only file system"
	[ "$(ls -A "$R" | tr '\n' ' ')" = "a ro " ] ||
	    fail "C9 read-only: in the root: $(ls -A "$R")"
	[ -z "$(ls -A "$R/ro")" ] ||
	    fail "C9 read-only: in ./ro: $(ls -A "$R/ro")"
	rmdir "$R/a"
	serve_files "$S"
	ro -h 127.0.0.1 -p "$PORT" -c sha1 "$T/c9f.T"
	wait "$SRVPID"
	expect_rc 2
	grep -q '\./ro/f: .*Read-only file system' "$T/err" ||
	    fail "C9 read-only download: message: $(cat "$T/err")"
	[ -z "$(ls -A "$R/ro")" ] ||
	    fail "C9 read-only download: in ./ro: $(ls -A "$R/ro")"
else
	not_run "C9 read-only (no read-only bind mount here)"
fi
rm -rf "$R/ro"

# --- C10: the root swapped during a download.
mkdir "$T/real1" "$T/real2"
ln -s "$T/real1" "$T/link"
printf 'hello world\n' >"$T/hello"
SUM=$(sha1b64 "$T/hello")
{
	echo 'test.T:'
	printf '+ f ./a\t0644 0 0 1700000000 12 %s\n' "$SUM"
} > "$T/c10.T"
{
	printf '%s\n' 'send 200-RAP 1 peer 1.0 radmind access protocol\r\n200 CAPA REPO\r\n'
	printf '%s\n' 'skip RETR'
	printf '%s\n' 'send 240 Retrieving file\r\n12\r\nhello'
	printf '%s\n' 'sleep 2'
	printf '%s\n' 'send  world\n.\r\n'
	printf '%s\n' 'skip REPO' 'send 215 Report successful\r\n'
	printf '%s\n' 'skip QUIT' 'send 201 QUIT OK, closing connection\r\n'
	printf '%s\n' 'drain'
} > "$T/script"
start_peer "$T/script" "$T/peer.log"
in_dir "$T/link" "$LAPPLY" -h 127.0.0.1 -p "$PEERPORT" "$T/c10.T" \
    >"$T/out" 2>"$T/err" &
LPID=$!
# Wait (at most 10 s) for the request, then point the root elsewhere.
retry 100 grep -qs '^<<< RETR' "$T/peer.log" || fail "C10: no request"
ln -s "$T/real2" "$T/link2"
mv -T "$T/link2" "$T/link"
[ "$(readlink "$T/link")" = "$T/real2" ] || fail "C10: swap failed"
RC=0
wait $LPID || RC=$?
wait $PEERPID
expect_rc 0
[ "$(cat "$T/real1/a" 2>/dev/null)" = "hello world" ] ||
    fail "C10: ./a not in the original root"
[ -z "$(ls -A "$T/real2")" ] ||
    fail "C10: written to the new root: $(ls -A "$T/real2")"
exit 0
