#!/bin/sh
# t-lapply-fserrors: a file-system operation that fails names the
# program, the transcript and its line, the path, the operation and the
# cause: "lapply: T: line N: PATH: OP: strerror" (lapply(1),
# DIAGNOSTICS).  Run as nobody: chown, chmod and set times of objects it
# may not change.  In a read-only bind mount (a mount namespace of its
# own): mkdir, a missing prefix made with -C, remove of a file and of a
# directory, link, symlink, mkfifo, mknod, and the temp file of a
# download (create).  Under a file size limit: the write of a download.
# A transcript read from standard input is named "(stdin)".  Root only
# (running as another user, mounts, devices).
. "$top_srcdir/tests/integ/lib.sh"
need_root
need_tool lapply
need_cmd setpriv unshare python3
mk_tmpdir
. "$top_srcdir/tests/integ/lapply-lib.sh"
NOBODY=65534
EPERM='Operation not permitted'
EROFS='Read-only file system'

# nobody TRANSCRIPT: lapply -n TRANSCRIPT in $R as nobody.
nobody()
{
	chmod 0644 "$1"
	run_capture "$T/out" "$T/err" in_dir "$R" setpriv --reuid=$NOBODY \
	    --regid=$NOBODY --clear-groups "$LAPPLY" -n "$1"
}
chmod 0755 "$T"
chown $NOBODY:$NOBODY "$R"

# --- chown: nobody's own file, declared root's.  Mode and mtime are
# already right, so chown is the first step.
: >"$R/own"
chown $NOBODY:$NOBODY "$R/own"
chmod 0644 "$R/own"
touch -d @1700000000 "$R/own"
printf 'f ./own\t0644 0 0 1700000000 0 -\n' >"$T/chown.T"
nobody "$T/chown.T"
expect_rc 2
expect_err "lapply: $T/chown.T: line 1: ./own: chown: $EPERM"
[ "$(stat -c %u "$R/own")" = $NOBODY ] || fail "chown: owner changed"

# --- set times: root's file, writable by all, another mtime declared.
: >"$R/rootf"
chmod 0666 "$R/rootf"
touch -d @1700000000 "$R/rootf"
printf 'f ./rootf\t0666 0 0 1600000000 0 -\n' >"$T/times.T"
nobody "$T/times.T"
expect_rc 2
expect_err "lapply: $T/times.T: line 1: ./rootf: set times: $EPERM"
[ "$(stat -c %Y "$R/rootf")" = 1700000000 ] || fail "set times: mtime changed"

# --- chmod: root's file, same mtime, another mode declared.
printf 'f ./rootf\t0600 0 0 1700000000 0 -\n' >"$T/chmod.T"
nobody "$T/chmod.T"
expect_rc 2
expect_err "lapply: $T/chmod.T: line 1: ./rootf: chmod: $EPERM"
[ "$(stat -c %a "$R/rootf")" = 666 ] || fail "chmod: mode changed"
rm -f "$R/own" "$R/rootf"
chown 0:0 "$R"

# --- read-only mount: every operation that changes ./ro fails with its
# own name.
mkdir "$R/ro" "$R/ro/d"
printf 'x\n' >"$R/ro/f"
# ro TRANSCRIPT [LAPPLY-ARGS...]: lapply in $R with ./ro mounted
# read-only; -n unless other arguments are given.
ro()
{
	_ro_t=$1
	shift
	[ $# -gt 0 ] || set -- -n
	run_capture "$T/out" "$T/err" in_dir "$R" unshare -m sh -c \
	    'mount --bind ro ro && mount -o remount,bind,ro ro && exec "$@"' \
	    sh "$LAPPLY" "$@" "$_ro_t"
}
unshare -m sh -c 'mount --bind "$1" "$1" && mount -o remount,bind,ro "$1"' \
    sh "$R/ro" 2>/dev/null || skip "the nobody part passed; no read-only bind mount here"

# rocase NAME LINE OP: a transcript of the one line LINE fails in ./ro
# with "OP: Read-only file system" for the path of the line.
rocase()
{
	printf '%s\n' "$2" >"$T/$1.T"
	_rc_path=$(printf '%s\n' "$2" | sed 's/^- //' | cut -f1 | cut -d' ' -f2)
	ro "$T/$1.T"
	expect_rc 2
	expect_err "lapply: $T/$1.T: line 1: $_rc_path: $3: $EROFS"
}
rocase mkdir "$(printf 'd ./ro/new\t0755 0 0')" mkdir
rocase unlink "$(printf -- '- f ./ro/f\t0644 0 0 1700000000 2 -')" remove
rocase rmdir "$(printf -- '- d ./ro/d\t0755 0 0')" remove
rocase link "$(printf 'h ./ro/h\t./ro/f')" link
rocase symlink "$(printf 'l ./ro/l\t0777 0 0 f')" symlink
rocase mkfifo "$(printf 'p ./ro/p\t0644 0 0')" mkfifo
rocase mknod "$(printf 'c ./ro/c\t0666 0 0 1 3')" mknod
[ "$(ls -A "$R/ro" | tr '\n' ' ')" = "d f " ] ||
    fail "read-only: in ./ro: $(ls -A "$R/ro")"

# The line number is the transcript's, and earlier lines are applied.
printf 'd ./a\t0755 0 0\nd ./ro/new\t0755 0 0\n' >"$T/two.T"
ro "$T/two.T"
expect_rc 1
expect_err "lapply: $T/two.T: line 2: ./ro/new: mkdir: $EROFS"

# A missing prefix (-C) names the directory it could not make.
printf 'd ./ro/m1/m2\t0755 0 0\n' >"$T/prefix.T"
ro "$T/prefix.T" -n -C
expect_rc 2
expect_err "lapply: $T/prefix.T: line 1: ./ro/m1: mkdir: $EROFS"

# Read from standard input: the transcript is "(stdin)".
printf 'd ./ro/new\t0755 0 0\n' |
    run_capture "$T/out" "$T/err" in_dir "$R" unshare -m sh -c \
    'mount --bind ro ro && mount -o remount,bind,ro ro && exec "$@"' \
    sh "$LAPPLY" -n
expect_rc 2
expect_err "lapply: (stdin): line 1: ./ro/new: mkdir: $EROFS"

# --- downloads: the temp file cannot be created in ./ro; then, under a
# file size limit, it cannot be written.
S=$T/srv
mkdir -p "$S/file/test.T/ro"
printf 'new f\n' >"$S/file/test.T/ro/f"
head -c 300000 /dev/zero >"$S/file/test.T/big"
{
	echo 'test.T:'
	fline './ro/f' "$S/file/test.T/ro/f" 0644
} >"$T/create.T"
serve_files "$S"
ro "$T/create.T" -h 127.0.0.1 -p "$PORT" -c sha1
wait "$SRVPID"
expect_rc 2
expect_err "lapply: $T/create.T: line 2: ./ro/f: create: $EROFS"
[ "$(cat "$R/ro/f")" = x ] || fail "create: ./ro/f changed"

{
	echo 'test.T:'
	fline './big' "$S/file/test.T/big" 0644
} >"$T/write.T"
serve_files "$S"
# 128 blocks: 64 or 128 KiB, whichever the shell counts in.
run_capture "$T/out" "$T/err" in_dir "$R" sh -c 'ulimit -f 128 &&
    exec "$@"' sh "$LAPPLY" -c sha1 -h 127.0.0.1 -p "$PORT" "$T/write.T"
wait "$SRVPID"
expect_rc 2
expect_err "lapply: $T/write.T: line 2: ./big: write: File too large"
[ ! -e "$R/big" ] || fail "write: ./big created"
assert_no_files "write: temp files left" "$R" -name '*.radmind.*'
exit 0
