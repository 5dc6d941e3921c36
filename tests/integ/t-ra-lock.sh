#!/bin/sh
# t-ra-lock: while one cairn-ra run holds the run lock (held here by a
# preapply hook that waits), a second run of any verb that runs the
# tools exits at once with status 6 and leaves the status file alone;
# once the first is done, the lock is free again.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/ralib.sh"

printf 'alpha\n' >"$SRC/a"
chmod 755 "$SRC" "$R"
ra_publish
start_cairnd "$REPO"
ra_conf

# The hook waits for $T/go, at most 30 s.
mkhook "$RADMIND/preapply" 10-wait "touch '$T/started'
i=0
while [ ! -e '$T/go' ] && [ \$i -lt 300 ]; do sleep 0.1; i=\$((i + 1)); done"

"$RA" -f "$T/ra.conf" update >"$T/first.out" 2>"$T/first.err" &
first=$!
at_exit "touch '$T/go'; wait $first 2>/dev/null"
retry 200 test -e "$T/started" || fail "the first run never reached its hook"

for verb in update auto force trip create; do
	ra "$verb"
	assert_eq 6 "$RC" "$verb while locked: $(cat "$T/ra.err")"
	grep -q 'another cairn-ra run is in progress' "$T/ra.err" ||
	    fail "$verb: stderr: $(cat "$T/ra.err")"
done
grep -q 'another cairn-ra run is in progress' "$SYSLOGF" ||
    fail "auto did not log the lock: $(cat "$SYSLOGF")"
[ ! -e "$STATUS" ] || fail "a locked-out run wrote the status file"
[ ! -e "$R/a" ] || fail "applied while the hook waits"

touch "$T/go"
rc=0
wait "$first" || rc=$?
assert_eq 0 "$rc" "first run: $(cat "$T/first.err")"
assert_file_eq "$SRC/a" "$R/a" "a"
assert_eq 0 "$(metric last_run_exit_code update)" "first run's status"

# The lock is free again, and a daemon that a hook leaves behind does
# not hold it.
rm -f "$RADMIND/preapply/10-wait"
mkhook "$RADMIND/postapply" 10-daemon "sleep 30 </dev/null >/dev/null 2>&1 &
echo \$! >'$T/daemon.pid'"
at_exit "[ -s '$T/daemon.pid' ] && kill \$(cat '$T/daemon.pid') 2>/dev/null"
rm -f "$R/a"
ra force
assert_eq 0 "$RC" "force after the first run: $(cat "$T/ra.err")"
[ -s "$T/daemon.pid" ] || fail "the postapply hook did not run"
ra trip
assert_eq 0 "$RC" "trip after a hook left a daemon: $(cat "$T/ra.err")"
end_test
