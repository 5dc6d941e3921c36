#!/bin/sh
# t-ra-retry: cairn-ra auto against a server that is down retries with a
# doubling delay (bounded by RETRY_MAX_DELAY), logging each retry to
# syslog, and gives up with exit status 7 after RETRIES retries; when the
# server comes up while it waits, the next retry applies the loadset.
# A retry after a failed lapply (a file the server could not serve)
# compares the tree again, though nothing is new on the server.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/ralib.sh"

printf 'alpha\n' >"$SRC/a"
chmod 755 "$SRC" "$R"
ra_publish
PORT=$(free_port) || fail "no free port"

# Down all along: 1 s, then 2 s, then give up.
ra_conf RETRIES=2 RETRY_DELAY=1 RETRY_MAX_DELAY=10
ra auto
assert_eq 7 "$RC" "auto with no server: $(cat "$T/ra.err")"
grep -q 'retry 1 of 2 in 1s' "$SYSLOGF" || fail "log: $(cat "$SYSLOGF")"
grep -q 'retry 2 of 2 in 2s' "$SYSLOGF" || fail "log: $(cat "$SYSLOGF")"
grep -q 'giving up after 2 retries' "$SYSLOGF" || fail "log: $(cat "$SYSLOGF")"
assert_eq 2 "$(grep -c 'retry [0-9]* of' "$SYSLOGF")" "retries logged"
assert_eq 7 "$(metric last_run_exit_code auto)" "exit code metric"
assert_eq 2 "$(metric retries auto)" "retries metric"
[ ! -e "$R/a" ] || fail "a applied with no server"

# Down, then up: the server starts once the first retry is logged.
: >"$SYSLOGF"
ra_conf RETRIES=20 RETRY_DELAY=1 RETRY_MAX_DELAY=1
"$RA" -f "$T/ra.conf" auto >"$T/auto.out" 2>"$T/auto.err" &
auto=$!
at_exit "kill $auto 2>/dev/null; wait $auto 2>/dev/null"
retry 300 grep -q 'retry 1 of 20' "$SYSLOGF" ||
    fail "no retry logged: $(cat "$SYSLOGF")"
CAIRND_PORT=$PORT start_cairnd "$REPO"
rc=0
wait "$auto" || rc=$?
assert_eq 0 "$rc" "auto: $(cat "$T/auto.err") $(cat "$SYSLOGF")"
assert_file_eq "$SRC/a" "$R/a" "a after auto"
n=$(metric retries auto)
[ "$n" -ge 1 ] && [ "$n" -le 20 ] || fail "retries metric $n"
assert_eq "$n" "$(grep -c 'retry [0-9]* of 20' "$SYSLOGF")" "retries logged"
grep -q 'auto: done' "$SYSLOGF" || fail "log: $(cat "$SYSLOGF")"
[ ! -s "$T/auto.out" ] || fail "auto printed: $(cat "$T/auto.out")"

# lapply fails: the server lacks b's file.  The command file and the
# transcript are then current, but the retry must compare the tree
# again rather than stop at "nothing new"; b's file is put back once the
# first retry is logged.
printf 'bravo\n' >"$SRC/b"
ra_publish
mv "$REPO/file/ra.T/b" "$T/b.away" || fail "mv"
: >"$SYSLOGF"
"$RA" -f "$T/ra.conf" auto >"$T/auto.out" 2>"$T/auto.err" &
auto=$!
retry 300 grep -q 'retry 1 of 20' "$SYSLOGF" ||
    fail "no retry after the failed lapply: $(cat "$SYSLOGF")"
mv "$T/b.away" "$REPO/file/ra.T/b" || fail "mv back"
rc=0
wait "$auto" || rc=$?
assert_eq 0 "$rc" "auto after a failed lapply: $(cat "$T/auto.err")"
assert_file_eq "$SRC/b" "$R/b" "b after the retry"
assert_file_eq "$SRC/a" "$R/a" "a after the retry"
end_test
