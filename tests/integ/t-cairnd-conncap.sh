#!/bin/sh
# cairnd connection limits: at most -s connections from one address
# (default 32), the next one answered "420 Server busy" like -m and
# logged with the address, service again once one leaves; -s 0 lifts
# the cap; the listen queue (default 1024) takes a burst of 100
# connections while the daemon is stopped, where -b 5 does not.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"

# banners FILE: how many connections of FILE got the banner.
banners()
{
	grep -c '^reply=200-RAP 1 ' "$1"
}
# busy FILE: how many got "420 Server busy".
busy()
{
	grep -c '^reply=420 Server busy$' "$1"
}

# -s 2: the third connection from 127.0.0.1 is refused and logged.
start_cairnd "$T/repo" -s 2
limpeer "$PORT" hold 3 >"$T/out" || fail "limpeer hold"
assert_eq 2 "$(banners "$T/out")" "-s 2: served"
assert_eq 1 "$(busy "$T/out")" "-s 2: refused"
grep -q 'connection from 127.0.0.1 refused: 2 connections from that address (-s 2)' "$SLOG" ||
    fail "-s 2: refusal not logged: $(cat "$SLOG")"
wait_served 2
stop_cairnd

# The default is 32.
start_cairnd "$T/repo"
limpeer "$PORT" hold 33 >"$T/out" || fail "limpeer hold"
assert_eq 32 "$(banners "$T/out")" "default: served"
assert_eq 1 "$(busy "$T/out")" "default: refused"
stop_cairnd

# -s 0: no cap.  The listen queue: 100 connections complete their
# handshake while the daemon is stopped, and are served once it goes on.
start_cairnd "$T/repo" -s 0
limpeer "$PORT" hold 40 >"$T/out" || fail "limpeer hold"
assert_eq 40 "$(banners "$T/out")" "-s 0: served"
if command -v ss >/dev/null 2>&1; then
	q=$(ss -Hltn "sport = :$PORT" | awk '{ print $3 }')
	max=$(cat /proc/sys/net/core/somaxconn 2>/dev/null || echo 1024)
	[ "$max" -gt 1024 ] && max=1024
	assert_eq "$max" "$q" "listen queue length"
else
	not_run "the listen queue length (no ss)"
fi
kill -STOP "$SPID"
limpeer "$PORT" burst 100 >"$T/out"
kill -CONT "$SPID"
assert_eq 100 "$(sed -n 's/^established=//p' "$T/out")" \
    "connections established while the daemon was stopped"
wait_served 1
stop_cairnd

# With -b 5 the same burst does not get through.
start_cairnd "$T/repo" -s 0 -b 5
kill -STOP "$SPID"
limpeer "$PORT" burst 100 >"$T/out"
kill -CONT "$SPID"
n=$(sed -n 's/^established=//p' "$T/out")
[ "$n" -lt 100 ] || fail "-b 5: all $n connections established"
wait_served 1
exit 0
