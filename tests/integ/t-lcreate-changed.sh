#!/bin/sh
# t-lcreate-changed: a file that changes after lcreate checked the
# transcript and before it is sent makes the whole upload fail, and the
# server keeps nothing of it (lcreate(1); cairnd(8), Uploads): the upload
# is abandoned without QUIT.  Changes: the file grew, the same size with
# other content under -c, the file replaced by a symbolic link to a
# regular file of the same size, its directory replaced by a symbolic
# link to a directory holding a file of the same name, size and content.  Each time the same name then uploads
# whole, so nothing was left behind to meet "Transcript exists".
#
# The change is made at a fixed point: tests/integ/shim.so stops lcreate
# just before its Nth open(2) and runs the change.  lcreate opens the
# transcript (1), then the files in transcript order: a/first (2),
# b/mid (3), c/last (4).
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lcreate fsdiff
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
need_shim

R=$T/repo
make_repo "$R"
start_cairnd "$R" -Z 9

mkdir -p "$T/src/a" "$T/src/b" "$T/src/c" || fail "mkdir"
printf 'first\n' >"$T/src/a/first"
python3 -c 'import sys; sys.stdout.buffer.write(b"middle line\n" * 100000)' \
    >"$T/src/b/mid"
printf 'last\n' >"$T/src/c/last"
(cd "$T/src" && "$FSDIFF" -C -c sha1 -K /dev/null .) >"$T/up.T" ||
    fail "fsdiff -C"
cp "$T/src/c/last" "$T/last.orig" || fail "cp"

# restore: put c/last back as it was captured.
restore()
{
	if [ -d "$T/src/c.real" ]; then
		rm -f "$T/src/c"
		mv "$T/src/c.real" "$T/src/c" || fail "restore c"
	fi
	rm -f "$T/src/c/last"
	cp "$T/last.orig" "$T/src/c/last" || fail "restore c/last"
}

# changed NAME HOOK PATTERN [OPTS...]: upload as NAME, running HOOK just
# before c/last is opened; lcreate must fail saying PATTERN (grep -E) and
# tmp/ must hold nothing of NAME; then the same name uploads whole.
changed()
{
	_n=$1 _hook=$2 _pat=$3
	shift 3
	run_capture "$T/out" "$T/err" in_dir "$T/src" \
	    env LD_PRELOAD="$SHIM" CAIRN_SHIM_STOP=open:4 \
	    CAIRN_SHIM_RUN="$_hook" "$LCREATE" -t "$_n" "$@" \
	    -h 127.0.0.1 -p "$PORT" "$T/up.T"
	assert_eq 2 "$RC" "$_n: lcreate exit status"
	grep -Eq "$_pat" "$T/err" ||
	    fail "$_n: stderr does not say '$_pat': $(cat "$T/err")"
	# lcreate waited for the server to close: it has dropped the upload.
	no_upload "$R" "$_n"
	grep -q "./c/last: stored" "$T/out" && fail "$_n: c/last reported stored"

	restore
	run_capture "$T/out" "$T/err" in_dir "$T/src" "$LCREATE" -t "$_n" \
	    "$@" -h 127.0.0.1 -p "$PORT" "$T/up.T"
	assert_eq 0 "$RC" "$_n: upload again: $(cat "$T/err")"
	cmp -s "$T/up.T" "$R/tmp/transcript/$_n" || fail "$_n: transcript"
	for f in a/first b/mid c/last; do
		cmp -s "$T/src/$f" "$R/tmp/file/$_n/$f" || fail "$_n: $f"
	done
}

# Grew: the size no longer matches the transcript.
changed grew.T "printf 'last, and longer\\n' >'$T/src/c/last'" \
    'line [0-9]+: size in transcript does not match size of file'
# Same size, other content: only the digest computed while sending (-c)
# can tell; the final "." is never sent.
changed same.T "printf 'LAST\\n' >'$T/src/c/last'" \
    'line [0-9]+: checksum listed in transcript wrong' -c sha1
# Replaced by a symbolic link to a file of the same size and content:
# the scan saw a regular file, and the link is not followed.
printf 'last\n' >"$T/other"
changed link.T "rm -f '$T/src/c/last' && ln -s '$T/other' '$T/src/c/last'" \
    'c/last: '
# The directory c replaced by a symbolic link to a directory holding a
# file of the same name, size and content: the file is found beyond a
# link, and is not uploaded as the one listed.
mkdir -p "$T/elsewhere"
printf 'last\n' >"$T/elsewhere/last"
changed dirlink.T "mv '$T/src/c' '$T/src/c.real' && ln -s '$T/elsewhere' '$T/src/c'" \
    'c/last: Too many levels of symbolic links'
# Without a change the hook point is harmless: the upload is whole.
changed_none()
{
	run_capture "$T/out" "$T/err" in_dir "$T/src" \
	    env LD_PRELOAD="$SHIM" CAIRN_SHIM_STOP=open:4 CAIRN_SHIM_RUN=: \
	    "$LCREATE" -t none.T -c sha1 -h 127.0.0.1 -p "$PORT" "$T/up.T"
	assert_eq 0 "$RC" "none.T: $(cat "$T/err")"
	grep -q "c/last: stored" "$T/out" || fail "none.T: c/last not stored"
}
changed_none
exit 0
