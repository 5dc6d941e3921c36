#!/bin/sh
# t-cairnd-upload-stop: cairnd stopped as a whole in the middle of an
# upload, its listener and the session child both sent SIGTERM (as
# systemd stops a unit): no listener is left to reap the session and
# remove what it stored (cairnd(8), Uploads).  The next cairnd started on
# the repository removes the upload its marker tmp/.stor.<pid> names,
# since no process <pid> runs any more, and says so; the same name then
# uploads again instead of meeting "551 Transcript exists".  A marker of
# a session still running is left alone.
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

# In the middle of the big file (lcreate reads it in 1 MiB chunks):
# SIGTERM to the listener, and once it has shut down, to the session.
cat >"$T/stop.sh" <<EOF
c=\$(pgrep -P $SPID)
kill -TERM $SPID
n=0
until grep -q 'shutting down' "$SLOG"; do
	n=\$((n + 1)); [ \$n -le 100 ] || break
	sleep 0.1
done
sleep 0.2
kill -TERM \$c
EOF
run_capture "$T/out" "$T/err" in_dir "$T/src" \
    env LD_PRELOAD="$SHIM" CAIRN_SHIM_STOP=read:8 \
    CAIRN_SHIM_RUN="sh $T/stop.sh" "$LCREATE" -t up.T -h 127.0.0.1 \
    -p "$PORT" "$T/up.T"
[ "$RC" -ne 0 ] || fail "lcreate succeeded"
grep -q 'shutting down' "$SLOG" || fail "cairnd did not shut down"
stop_cairnd
# The session is gone and left its upload and marker behind.
[ -e "$R/tmp/file/up.T" ] || fail "no upload left to remove"
marker=$(cd "$R/tmp" && ls -A | grep '^\.stor\.') ||
    fail "no marker left: $(ls -A "$R/tmp")"
pid=${marker#.stor.}
retry 100 test ! -e "/proc/$pid" || fail "session $pid still running"

# A marker of a running process (this shell) naming another upload.
mkdir "$R/tmp/file/live.T" && : >"$R/tmp/transcript/live.T" ||
    fail "live.T"
ln -s live.T "$R/tmp/.stor.$$" || fail "live marker"

start_cairnd "$R"
grep -q "upload of up.T by session $pid, which did not finish: removed" \
    "$SLOG" || fail "removal not logged: $(cat "$SLOG")"
no_upload "$R" up.T
[ ! -e "$R/tmp/$marker" ] || fail "marker $marker left"
[ -d "$R/tmp/file/live.T" ] && [ -e "$R/tmp/transcript/live.T" ] &&
    [ -L "$R/tmp/.stor.$$" ] || fail "the running session's upload removed"
rm -rf "$R/tmp/file/live.T" "$R/tmp/transcript/live.T" "$R/tmp/.stor.$$"

run_capture "$T/out" "$T/err" in_dir "$T/src" \
    "$LCREATE" -t up.T -h 127.0.0.1 -p "$PORT" "$T/up.T"
assert_eq 0 "$RC" "upload again: $(cat "$T/err")"
cmp -s "$T/up.T" "$R/tmp/transcript/up.T" || fail "transcript"
cmp -s "$T/src/b/big" "$R/tmp/file/up.T/b/big" || fail "b/big"
stop_cairnd
exit 0
