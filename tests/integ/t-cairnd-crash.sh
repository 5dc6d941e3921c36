#!/bin/sh
# cairnd: a session that crashes affects no other.  With -m 3, one
# client is in the middle of a download (8 MiB, it pauses after the
# first MiB) when the session child of another is killed with SIGSEGV:
# the download completes intact, the daemon logs and reaps the dead
# child (no zombie left), a new client is served, and three clients at
# once are served again (the connection count did not drift).
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
head -c 8388608 /dev/urandom >"$T/repo/file/test.T/etc/big" ||
    fail "big file"
# No core file from the crash.
ulimit -c 0 2>/dev/null

start_cairnd "$T/repo" -m 3
limpeer "$PORT" retr ./etc/big 0 "$T/go" >"$T/retr" &
RPID=$!
retry 100 grep -q '^size=' "$T/retr"
grep -q '^size=8388608' "$T/retr" || fail "RETR: $(cat "$T/retr")"
wait_kids 1
downloader=$(cairnd_kids)
limpeer "$PORT" hold 1 "$T/go" >"$T/victim" &
VPID=$!
wait_kids 2
victim=
for k in $(cairnd_kids); do
	[ "$k" -ne $downloader ] && victim=$k
done
[ -n "$victim" ] || fail "no session child for the second client"
kill -SEGV "$victim"
# Reaped: gone from the process table, not left a zombie.
retry 100 test ! -e "/proc/$victim" ||
    fail "child $victim not reaped: $(cat "/proc/$victim/stat")"
# Under the sanitizers the child's SEGV handler reports and aborts, so
# any killing signal will do as long as it is logged (the daemon logs
# just after it reaps the child: wait for the line, bounded).
retry 100 grep -q "child $victim killed by signal [0-9]" "$SLOG" ||
    fail "crash not logged: $(cat "$SLOG")"
kill -0 "$SPID" || fail "the daemon died"
# A new client is served while the download is still paused.
noop_ok "after the crash"
touch "$T/go"
wait "$RPID" || fail "limpeer retr"
wait "$VPID"
assert_eq 8388608 "$(field got "$T/retr")" "download size"
assert_eq "$(sha1hex "$T/repo/file/test.T/etc/big")" \
    "$(field sha1 "$T/retr")" "download content"
assert_eq . "$(field end "$T/retr")" "download terminator"
# All three slots are free again.
wait_served 3
# No zombie children left behind.
# zombies: how many session children are zombies.
zombies()
{
	for k in $(cairnd_kids); do
		sed 's/.*) //; s/ .*//' "/proc/$k/stat" 2>/dev/null
	done | grep -c '^Z$'
}
no_zombies()
{
	[ "$(zombies)" -eq 0 ]
}
retry 50 no_zombies || fail "$(zombies) zombie children"
exit 0
