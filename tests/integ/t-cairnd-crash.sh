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
PEER="$top_srcdir/tests/integ/limpeer.py"
head -c 8388608 /dev/urandom >"$T/repo/file/test.T/etc/big" ||
    fail "big file"
# No core file from the crash.
ulimit -c 0 2>/dev/null

# kids: the session children of the daemon.
kids()
{
	cat "/proc/$SPID/task/$SPID/children" 2>/dev/null
}
# wait_nkids N: bounded wait until the daemon has N session children.
wait_nkids()
{
	_n=0
	while [ "$(kids | wc -w)" -ne "$1" ] && [ "$_n" -lt 100 ]; do
		_n=$((_n + 1))
		sleep 0.1
	done
	[ "$(kids | wc -w)" -eq "$1" ] ||
	    fail "$(kids | wc -w) session children, expected $1"
}
# field KEY FILE: the value of KEY=... in FILE.
field()
{
	sed -n "s/^$1=//p" "$2" | head -n 1
}

start_cairnd "$T/repo" -m 3
python3 "$PEER" "$PORT" retr ./etc/big 0 "$T/go" >"$T/retr" &
RPID=$!
n=0
while [ "$n" -lt 100 ] && ! grep -q '^size=' "$T/retr"; do
	n=$((n + 1))
	sleep 0.1
done
grep -q '^size=8388608' "$T/retr" || fail "RETR: $(cat "$T/retr")"
wait_nkids 1
downloader=$(kids)
python3 "$PEER" "$PORT" hold 1 "$T/go" >"$T/victim" &
VPID=$!
wait_nkids 2
victim=
for k in $(kids); do
	[ "$k" -ne $downloader ] && victim=$k
done
[ -n "$victim" ] || fail "no session child for the second client"
kill -SEGV "$victim"
# Reaped: gone from the process table, not left a zombie.
n=0
while [ -e "/proc/$victim" ] && [ "$n" -lt 100 ]; do
	n=$((n + 1))
	sleep 0.1
done
[ -e "/proc/$victim" ] &&
    fail "child $victim not reaped: $(cat "/proc/$victim/stat")"
# Under the sanitizers the child's SEGV handler reports and aborts, so
# any killing signal will do as long as it is logged.
grep -q "child $victim killed by signal [0-9]" "$SLOG" ||
    fail "crash not logged: $(cat "$SLOG")"
kill -0 "$SPID" || fail "the daemon died"
# A new client is served while the download is still paused.
rap "$PORT" 'NOOP\r\nQUIT\r\n' >"$T/out" || fail "rap"
grep -q '^202 NOOP OK' "$T/out" || fail "no service after the crash: $(cat "$T/out")"
touch "$T/go"
wait "$RPID" || fail "limpeer retr"
wait "$VPID"
assert_eq 8388608 "$(field got "$T/retr")" "download size"
assert_eq "$(python3 -c 'import hashlib, sys
print(hashlib.sha1(open(sys.argv[1], "rb").read()).hexdigest())' "$T/repo/file/test.T/etc/big")" \
    "$(field sha1 "$T/retr")" "download content"
assert_eq . "$(field end "$T/retr")" "download terminator"
# All three slots are free again.
n=0
while :; do
	python3 "$PEER" "$PORT" hold 3 >"$T/hold" || fail "limpeer hold"
	[ "$(grep -c '^reply=200-RAP 1 ' "$T/hold")" -eq 3 ] && break
	n=$((n + 1))
	[ "$n" -lt 30 ] || fail "-m 3: not served: $(cat "$T/hold")"
	sleep 0.1
done
# No zombie children left behind.
n=0
while [ "$n" -lt 50 ]; do
	z=0
	for k in $(kids); do
		st=$(sed 's/.*) //; s/ .*//' "/proc/$k/stat" 2>/dev/null)
		[ "$st" = Z ] && z=$((z + 1))
	done
	[ "$z" -eq 0 ] && break
	n=$((n + 1))
	sleep 0.1
done
[ "$z" -eq 0 ] || fail "$z zombie children"
exit 0
