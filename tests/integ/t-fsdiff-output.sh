#!/bin/sh
# t-fsdiff-output: fsdiff -o and lsort -o replace their output file only
# by a run that succeeds.  A run that fails (a missing path, a bad
# transcript, a write that fails halfway: a file size limit) leaves an
# existing output file as it was, bytes, mode, inode and mtime, and no
# temporary file; onto a new name it leaves nothing, not even an empty
# file.  A run that succeeds writes what it writes on standard output,
# and the file keeps its mode; a symbolic link given to -o is written
# through, as before.  An interrupted run (SIGINT, SIGTERM, SIGHUP while
# its temporary file exists) dies of the signal and
# leaves the output file as it was, and no temporary file.
. "$top_srcdir/tests/integ/lib.sh"
need_tool fsdiff lsort
mk_tmpdir
cd "$T" || fail "cd $T"

mkdir r
for i in 0 1 2 3 4 5 6 7 8 9; do
	for j in 0 1 2 3 4 5 6 7 8 9; do
		mkfile "r/d$i/file-with-a-long-name-$j" "$i$j" "$T0"
	done
done
: >empty.K
printf 'p bad.T\n' >bad.K
printf 'f ./b 0644 0 0 1 1 -\nf ./a 0644 0 0 1 1 -\n' >bad.T

# old NAME: an existing output file NAME, mode 0600, mtime T0.
old()
{
	printf 'old\n' >"$1"
	chmod 0600 "$1"
	touch -d "@$T0" "$1"
	stat -c '%i %a %s %Y' "$1" >"$1.stat"
}

# kept LABEL NAME: NAME is as old made it, and no temporary file is left.
kept()
{
	assert_eq "old" "$(cat "$2")" "$1: contents"
	assert_eq "$(cat "$2.stat")" "$(stat -c '%i %a %s %Y' "$2")" \
	    "$1: inode, mode, size, mtime"
	assert_no_files "$1: temporary file left" . -name "$2.*" ! -name '*.stat'
}

# none LABEL NAME: nothing at all was made under NAME.
none()
{
	assert_no_files "$1: something left" . -name "$2*"
}

# 1. fsdiff: a missing path.
old out.T
run_capture err.out err.err "$FSDIFF" -C -K empty.K -o out.T r/nosuch
assert_eq 2 "$RC" "missing path exit"
grep -q 'r/nosuch: No such file or directory' err.err || fail "$(cat err.err)"
kept "missing path" out.T
run_capture err.out err.err "$FSDIFF" -C -K empty.K -o new.T r/nosuch
assert_eq 2 "$RC" "missing path, new file exit"
none "missing path, new file" new.T

# 2. fsdiff: a bad transcript.
run_capture err.out err.err "$FSDIFF" -A -K bad.K -o out.T r
assert_eq 2 "$RC" "bad transcript exit"
grep -q 'bad.T: line 2: ' err.err || fail "bad transcript: $(cat err.err)"
kept "bad transcript" out.T
run_capture err.out err.err "$FSDIFF" -A -K bad.K -o new.T r
assert_eq 2 "$RC" "bad transcript, new file exit"
none "bad transcript, new file" new.T

# 3. fsdiff -1: one path of two missing, after output for the other.
run_capture err.out err.err "$FSDIFF" -1 -o out.T r/d0 r/nosuch
assert_eq 2 "$RC" "-1 exit"
kept "-1 with a missing path" out.T

# 4. A write that fails halfway: the file size limit (SIGXFSZ ignored,
# so that write(2) fails with EFBIG) lets 1 KiB through.
run_capture err.out err.err sh -c 'trap "" XFSZ; ulimit -f 2 &&
    exec "$0" -C -K empty.K -o out.T r' "$FSDIFF"
assert_eq 2 "$RC" "fsdiff, file size limit exit"
grep -q 'File too large' err.err || fail "fsdiff EFBIG: $(cat err.err)"
kept "fsdiff, file size limit" out.T
"$FSDIFF" -C -K empty.K r >big.T || fail "fsdiff to stdout"
[ "$(wc -c <big.T)" -gt 4096 ] || fail "big.T is too small"
run_capture err.out err.err sh -c 'trap "" XFSZ; ulimit -f 2 &&
    exec "$0" -o out.T big.T' "$LSORT"
[ "$RC" -ne 0 ] || fail "lsort, file size limit: exit 0"
grep -q 'out.T: File too large' err.err || fail "lsort EFBIG: $(cat err.err)"
kept "lsort, file size limit" out.T
run_capture err.out err.err "$LSORT" -o new.T nosuch.T
[ "$RC" -ne 0 ] || fail "lsort, missing input: exit 0"
none "lsort, missing input" new.T

# 5. Success: the same as on standard output; the mode stays.
run_capture ok.out ok.err "$FSDIFF" -C -K empty.K -o out.T r
assert_eq 0 "$RC" "fsdiff exit ($(cat ok.err))"
assert_file_eq big.T out.T "fsdiff -o"
assert_eq 600 "$(stat -c %a out.T)" "mode of out.T"
assert_no_files "temporary file left" . -name 'out.T.*' ! -name '*.stat'
run_capture ok.out ok.err "$FSDIFF" -C -K empty.K -o new.T r
assert_eq 0 "$RC" "fsdiff, new file exit"
assert_file_eq big.T new.T "fsdiff -o, new file"
cp out.T sorted.T
run_capture ok.out ok.err "$LSORT" -o sorted.T sorted.T
assert_eq 0 "$RC" "lsort -o in place exit"
assert_file_eq big.T sorted.T "lsort -o in place"
assert_eq 600 "$(stat -c %a sorted.T)" "mode of sorted.T"

# 6. A symbolic link is written through: the link stays.
old target.T
ln -s target.T link.T
run_capture ok.out ok.err "$FSDIFF" -C -K empty.K -o link.T r
assert_eq 0 "$RC" "fsdiff -o link exit"
[ -L link.T ] || fail "link.T is no longer a symbolic link"
assert_file_eq big.T target.T "fsdiff -o through a link"
# 7. Interrupted while its temporary file exists (fsdiff -1 waiting for
#    more paths on a FIFO): dies of the signal, the old file kept.
tmp_made()
{
	for _f in int.T.*; do
		[ -e "$_f" ] && [ "$_f" != int.T.stat ] && return 0
	done
	return 1
}
gone()
{
	! kill -0 "$1" 2>/dev/null
}
for sig in INT TERM HUP; do
	old int.T
	rm -f in.fifo
	mkfifo in.fifo || fail "mkfifo"
	# A background job of a script starts with SIGINT ignored.
	env --default-signal="$sig" "$FSDIFF" -1 -K empty.K -o int.T - \
	    <in.fifo 2>int.err &
	pid=$!
	exec 3>in.fifo
	printf './r/d0\n' >&3
	retry 300 tmp_made || fail "fsdiff -o, SIG$sig: no temporary file"
	kill -"$sig" "$pid"
	if ! retry 300 gone "$pid"; then
		kill -9 "$pid"
		fail "fsdiff -o, SIG$sig: still running"
	fi
	wait "$pid"
	RC=$?
	exec 3>&-
	case $sig in
	INT)	want=130 ;;
	TERM)	want=143 ;;
	HUP)	want=129 ;;
	esac
	assert_eq "$want" "$RC" "fsdiff -o, SIG$sig: exit ($(cat int.err))"
	kept "fsdiff -o, SIG$sig" int.T
done
end_test
