#!/bin/sh
# t-cairnd-stor-syncfail: cairnd makes a full batch of uploaded files
# durable on a thread of the session while the next batch arrives.  When
# that sync fails (EIO, injected with strace into every syncfs and fsync
# of the session), no file of the batch may be confirmed: the client gets
# the refusal naming the error, the daemon logs it, nothing of the upload
# stays in tmp/, and the daemon serves on.  Once the disk is healthy
# again (strace detached) the same upload completes.  Every log line of
# the failure names the client.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lcreate fsdiff
need_cmd strace python3
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
STRACE=$(command -v strace)
# LeakSanitizer cannot run under ptrace.
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"
export ASAN_OPTIONS
"$STRACE" -qq -o /dev/null -e trace=fsync \
    -e inject=fsync:error=EIO true 2>/dev/null ||
    skip "strace cannot inject faults here"

R=$T/repo
make_repo "$R"
start_cairnd "$R"

# 300 small files: more than one batch (cairnd syncs 128 at a time).
python3 - "$T/src" <<'PY' || fail "source tree"
import os, sys
for d in range(3):
    os.makedirs("%s/d%d" % (sys.argv[1], d))
    for i in range(100):
        with open("%s/d%d/f%03d" % (sys.argv[1], d, i), "w") as f:
            f.write("file %d of directory %d\n" % (i, d))
PY
(cd "$T/src" && "$FSDIFF" -C -c sha1 -K /dev/null .) >"$T/up.T" ||
    fail "fsdiff -C"

# traced: the listener (and every session it forks) is under strace.
traced()
{
	_tp=$(awk '$1 == "TracerPid:" { print $2 }' "/proc/$SPID/status")
	[ -n "$_tp" ] && [ "$_tp" != 0 ]
}
untraced()
{
	! traced
}

"$STRACE" -f -qq -o /dev/null -e trace=syncfs,fsync \
    -e inject=syncfs:error=EIO -e inject=fsync:error=EIO -p "$SPID" &
STPID=$!
at_exit 'kill $STPID 2>/dev/null; wait $STPID 2>/dev/null'
retry 100 traced || skip "strace cannot attach to cairnd here"

run_capture "$T/out" "$T/err" in_dir "$T/src" \
    "$LCREATE" -t up.T -h 127.0.0.1 -p "$PORT" "$T/up.T"
[ "$RC" -ne 0 ] || fail "upload confirmed though no sync succeeded"
grep -q 'Input/output error' "$T/err" ||
    fail "refusal does not name the error: $(cat "$T/err")"
retry 100 upload_gone "$R" up.T ||
    fail "a refused upload left something in tmp/: $(ls -R "$R/tmp")"
wait_log 'Input/output error'
# Each log line of the failure names the client it was serving.
if grep 'Input/output error' "$SLOG" | grep -v '\[127\.0\.0\.1\]: '; then
	fail "a log line of the failed sync does not name the client"
fi

kill "$STPID"
wait "$STPID" 2>/dev/null
retry 100 untraced || fail "strace did not detach"
noop_ok "after a failed sync"

run_capture "$T/out" "$T/err" in_dir "$T/src" \
    "$LCREATE" -t up.T -h 127.0.0.1 -p "$PORT" "$T/up.T"
assert_eq 0 "$RC" "upload after the disk recovered: $(cat "$T/err")"
cmp -s "$T/up.T" "$R/tmp/transcript/up.T" || fail "transcript"
(cd "$T/src" && find . -type f | sort) >"$T/want"
(cd "$R/tmp/file/up.T" && find . -type f | sort) >"$T/got"
cmp -s "$T/want" "$T/got" || fail "uploaded files differ"
for f in $(cat "$T/want"); do
	cmp -s "$T/src/$f" "$R/tmp/file/up.T/$f" || fail "content of $f"
done
stop_cairnd
exit 0
