#!/bin/sh
# Upload limits and interrupted uploads: an upload over cairnd's -M size
# limit, or one that would leave less than -N megabytes free, is refused
# (555) before its data is taken, and the server keeps nothing of that
# upload; a loadset over -n files or -T bytes likewise, lcreate printing
# the server's reason; an lcreate killed in the middle of a large file leaves nothing
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

# -n and -T: a loadset with more files and directories, or more bytes,
# than cairnd takes for one loadset is refused; lcreate prints the
# server's reason, naming the limit, and exits 2; nothing is kept.
# up.T makes ./d and two files: three entries, 2 MiB and a bit.
start_cairnd "$R" -n 2
run_client lcreate -t files.T "$T/up.T"
assert_eq 2 "$RC" "over -n: exit"
assert_eq "555 files.T: loadset file limit (2, cairnd -n) reached" \
    "$(tail -n 1 "$T/err")"
no_upload "$R" files.T
stop_cairnd
start_cairnd "$R" -T 1m
run_client lcreate -t bytes.T "$T/up.T"
assert_eq 2 "$RC" "over -T: exit"
assert_eq "555 bytes.T: loadset byte limit (1048576, cairnd -T) reached" \
    "$(tail -n 1 "$T/err")"
no_upload "$R" bytes.T
stop_cairnd
# Thousands of zero-length uploads (-N), pipelined well beyond lcreate's
# window of replies, into a limit of 1000: refused at the 1001st.
mkdir "$T/many" || fail "mkdir"
i=0
while [ "$i" -lt 3000 ]; do
	: >"$T/many/f$i"
	i=$((i + 1))
done
in_dir "$T/many" "$FSDIFF" -C -c sha1 -K "$T/empty.K" -o "$T/many.T" . ||
    fail "fsdiff -C many"
start_cairnd "$R" -n 1000
run_client lcreate -N "$T/many.T"
assert_eq 2 "$RC" "-N over -n: exit"
assert_eq "555 many.T: loadset file limit (1000, cairnd -n) reached" \
    "$(tail -n 1 "$T/err")"
no_upload "$R" many.T
grep -q 'loadset many.T has 1000 files and directories, limit 1000 (-n)' \
    "$SLOG" || fail "-n refusal not logged"
# Within the limits the same loadsets are taken.
run_client lcreate -t within.T "$T/up.T"
assert_eq 0 "$RC" "within -n: exit ($(cat "$T/err"))"
cmp -s d/big "$R/tmp/file/within.T/d/big" || fail "within -n: big file"
stop_cairnd
start_cairnd "$R" -n 3000 -T 3m
run_client lcreate -N "$T/many.T"
assert_eq 0 "$RC" "-N within -n: exit ($(cat "$T/err"))"
assert_eq 3000 "$(find "$R/tmp/file/many.T" -type f | wc -l)" "-N: files"
run_client lcreate -t within2.T "$T/up.T"
assert_eq 0 "$RC" "within -T: exit ($(cat "$T/err"))"
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
