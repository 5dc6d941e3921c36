#!/bin/sh
# Upload limits and interrupted uploads: an upload over cairnd's -M size
# limit, or one that would leave less than -N megabytes free, is refused
# (555) before its data is taken, and the server keeps nothing of that
# upload; an lcreate killed in the middle of a large file leaves nothing
# of its upload in tmp/ either; the daemon keeps serving throughout.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lcreate fsdiff
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
R=$T/repo

mkdir -p "$T/src/d" || fail "mkdir"
cd "$T/src" || fail "cd"
printf 'small\n' >d/small
head -c 2097152 /dev/zero | tr '\0' 'z' >d/big
echo >"$T/empty.K"
"$FSDIFF" -C -c sha1 -K "$T/empty.K" -o "$T/up.T" . || fail "fsdiff -C"

# -M 1m: the 2 MiB file is refused, the upload removed.
start_cairnd "$R" -M 1m
run_client lcreate -t big.T "$T/up.T"
assert_eq 2 "$RC" "over -M: exit"
assert_eq "555 tmp/file/big.T/./d/big: File too large" "$(tail -n 1 "$T/err")"
no_upload "$R" big.T
grep -q 'STOR tmp/file/big.T/./d/big: 2097152 bytes refused, limit 1048576' \
    "$SLOG" || fail "refusal not logged"
# Still serving; under the limit is fine.
sed '/d\/big/d' "$T/up.T" >"$T/small.T"
run_client lcreate "$T/small.T"
assert_eq 0 "$RC" "under -M: exit ($(cat "$T/err"))"
cmp -s d/small "$R/tmp/file/small.T/d/small" || fail "small file"
stop_cairnd

# -N: a floor above the free space refuses even the transcript.
start_cairnd "$R" -N 2000000000
run_client lcreate -t floor.T "$T/up.T"
assert_eq 2 "$RC" "under the floor: exit"
assert_eq "555 tmp/transcript/floor.T: No space left on device (the server keeps 2000000000 MiB free: cairnd -N)" \
    "$(cat "$T/err")"
no_upload "$R" floor.T
stop_cairnd

# Killed mid-file: through a proxy passing 1 MiB/s, wait until the big
# file has started arriving, kill lcreate, and wait (bounded) for the
# server to drop the upload.
start_cairnd "$R"
head -c 8388608 /dev/zero | tr '\0' 'k' >d/big
"$FSDIFF" -C -c sha1 -K "$T/empty.K" -o "$T/kill.T" . || fail "fsdiff -C"
start_proxy "$T/proxy.ready" slowproxy.py "$T/proxy.ready" 1048576
"$LCREATE" -q -h 127.0.0.1 -p "$PPORT" "$T/kill.T" >"$T/out" 2>&1 &
LPID=$!
# big_started: the big file has begun to arrive (lcreate still running).
big_started()
{
	[ -s "$R/tmp/file/kill.T/d/big" ] && return 0
	kill -0 "$LPID" 2>/dev/null || fail "lcreate ended early: $(cat "$T/out")"
	return 1
}
retry 200 big_started || fail "upload of the big file never started"
kill -9 "$LPID"
wait "$LPID" 2>/dev/null
retry 200 upload_gone "$R" kill.T || fail "interrupted upload left in tmp/"
wait "$PROXY"
grep -q 'upload of kill.T did not end with QUIT: removed' "$SLOG" ||
    fail "removal not logged"
# And the same upload succeeds afterwards.
run_client lcreate "$T/kill.T"
assert_eq 0 "$RC" "retry: exit ($(cat "$T/err"))"
cmp -s d/big "$R/tmp/file/kill.T/d/big" || fail "retry: big file differs"
exit 0
