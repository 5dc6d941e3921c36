#!/bin/sh
# cairnd out of file descriptors (docs/security.md F1): with its soft
# RLIMIT_NOFILE lowered to the descriptors it holds, accept fails with
# EMFILE.  The listener logs it and stops accepting for a while instead
# of trying again at once: a few "accept: Too many open files" lines, not
# one per turn of a loop spinning on the queued connection.  The daemon
# lives on, and once descriptors are back the client that waited in the
# listen queue is served, and so are new ones.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"

# nofile PID [SOFT]: print the soft limit of PID; with SOFT, set it.
nofile()
{
	python3 - "$@" <<'PY'
import resource, sys
pid = int(sys.argv[1])
soft, hard = resource.prlimit(pid, resource.RLIMIT_NOFILE)
if len(sys.argv) > 2:
    resource.prlimit(pid, resource.RLIMIT_NOFILE, (int(sys.argv[2]), hard))
print(soft)
PY
}

start_cairnd "$T/repo"
[ -d "/proc/$SPID/fd" ] || skip "no /proc/PID/fd"
# The lowest descriptor free: the next accept would take it.
low=0
while [ -e "/proc/$SPID/fd/$low" ] && [ "$low" -lt 1024 ]; do
	low=$((low + 1))
done
soft=$(nofile "$SPID" "$low") || skip "cannot lower cairnd's RLIMIT_NOFILE"

# A client connects (the kernel completes the handshake) and waits for
# the banner while cairnd cannot take the connection.
bg_start "$T/waiting" python3 "$top_srcdir/tests/integ/bannerwait.py" \
    "$PORT" "$T/waiting" "$T/banner" 120
# A listener spinning on accept never takes SIGTERM (the queued
# connection is ready each time it would): kill it if this fails.
on_fail 'kill -KILL "$SPID" 2>/dev/null'
wait_log 'accept: Too many open files'
# A spinning listener logs hundreds of thousands of lines a second; one
# that waits before it tries again, a handful over this second.
sleep 1
kill -0 "$SPID" 2>/dev/null || fail "cairnd died: $(tail -5 "$SLOG")"
n=$(grep -c 'accept: Too many open files' "$SLOG")
[ "$n" -le 20 ] ||
    fail "$n 'accept: Too many open files' lines: accept tried again at once"

# Descriptors again: the waiting client gets its banner, others too.
nofile "$SPID" "$soft" >/dev/null || fail "cannot restore the limit"
retry 300 test -s "$T/banner" || fail "the queued client was not served"
grep -q '^200-RAP 1 ' "$T/banner" ||
    fail "queued client: $(cat "$T/banner")"
noop_ok "after EMFILE"
stop_cairnd
exit 0
