#!/bin/sh
# t-cairnd-upload-crash: the cairnd session child killed (SIGKILL) during an
# lcreate upload.  cairnd keeps an upload only if its session ends with
# QUIT (cairnd(8), Uploads); a session killed outright cannot clean up
# after itself, so the daemon does it when it reaps the child.  At every
# kill point tmp/ must end up holding nothing of that upload (never half
# of it), and the same name must then upload again successfully.
#
# The kill points are deterministic: tests/integ/shim.so stops lcreate
# just before its Nth open (the files are opened in transcript order,
# after the transcript was sent) or its Nth read (in the middle of an
# 8 MiB file read in 1 MiB chunks) and kills the child of the daemon.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lcreate fsdiff
need_cmd python3 pgrep
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
need_shim

R=$T/repo
make_repo "$R"
start_cairnd "$R"

upload_src "$T/src"

# gone NAME: nothing of upload NAME is left in tmp/ (bounded wait for
# the daemon to reap the killed child: 10 s).
gone()
{
	retry 100 clean_tmp "$1" && return 0
	ls -lAR "$R/tmp" >&2
	return 1
}
# clean_tmp NAME: nothing of upload NAME, nor anything else new, in tmp/.
clean_tmp()
{
	upload_gone "$R" "$1" &&
	    [ -z "$(ls -A "$R/tmp" | grep -v '^file$' | grep -v '^transcript$')" ]
}

# complete NAME: tmp/ holds upload NAME whole.
complete()
{
	cmp -s "$T/up.T" "$R/tmp/transcript/$1" || fail "$1: transcript"
	for f in a/first b/big c/last; do
		cmp -s "$T/src/$f" "$R/tmp/file/$1/$f" || fail "$1: $f"
	done
	assert_eq 3 "$(find "$R/tmp/file/$1" -type f | wc -l)" "$1: files"
}

KILL="kill -9 \$(pgrep -P $SPID) 2>/dev/null; :"

KILLS=0

# killat NAME STOP: upload as NAME, killing the session at STOP.
killat()
{
	run_capture "$T/out" "$T/err" in_dir "$T/src" \
	    env LD_PRELOAD="$SHIM" CAIRN_SHIM_STOP="$2" \
	    CAIRN_SHIM_RUN="$KILL" "$LCREATE" -t "$1" -h 127.0.0.1 \
	    -p "$PORT" "$T/up.T"
	[ "$RC" -ne 0 ] || fail "$2: lcreate succeeded"
	gone "$1" || fail "$2: a killed upload left something in tmp/"
	_k=$(grep -c "killed by signal 9" "$SLOG")
	[ "$_k" -gt "$KILLS" ] || fail "$2: no session was killed"
	KILLS=$_k
}

# upload NAME: an upload that completes.
upload()
{
	run_capture "$T/out" "$T/err" in_dir "$T/src" \
	    "$LCREATE" -t "$1" -h 127.0.0.1 -p "$PORT" "$T/up.T"
	assert_eq 0 "$RC" "upload $1: $(cat "$T/err")"
	complete "$1"
}

for stop in open:1 open:2 read:8 open:3; do
	name=k-$(echo "$stop" | tr : -).T
	killat "$name" "$stop"
	upload "$name"
done
# The kill in the middle of the big file left a part the daemon removed.
grep -q 'upload of k-read-8.T by session [0-9]*, which did not finish: removed' \
    "$SLOG" || fail "read:8: no removal by the daemon logged"
# A complete upload stays complete when a later session is killed.
killat other.T open:2
complete k-open-1.T
exit 0
