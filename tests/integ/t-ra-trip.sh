#!/bin/sh
# t-ra-trip: cairn-ra trip exits 0 when the file system matches the
# transcripts and 1, with a report, when it drifted; it changes nothing,
# neither the file system nor the command files and transcripts, even
# when the server has updates (it says so).  The status file counts the
# drift.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/ralib.sh"

printf 'alpha\n' >"$SRC/a"
printf 'bravo\n' >"$SRC/b"
chmod 755 "$SRC" "$R"
ra_publish
start_cairnd "$REPO"
ra_conf

ra force
assert_eq 0 "$RC" "force: $(cat "$T/ra.err")"
ra trip
assert_eq 0 "$RC" "trip without drift: $(cat "$T/ra.err")"
grep -q 'No drift' "$T/ra.out" || fail "trip: $(cat "$T/ra.out")"
assert_eq 0 "$(metric drift_objects trip)" "drift objects"
assert_eq 0 "$(metric last_run_exit_code trip)" "exit code metric"

# Drift: a changed file and an extra one; and news on the server.
printf 'tampered\n' >"$R/a"
printf 'extra\n' >"$R/x"
printf 'charlie\n' >"$SRC/c"
ra_publish
tree_stat "$R" >"$T/root.before"
tree_stat "$RADMIND" >"$T/radmind.before"
find "$RADMIND" -type f -exec cat {} + | cksum >>"$T/radmind.before"
ra trip
assert_eq 1 "$RC" "trip with drift: $(cat "$T/ra.err")"
grep -q '^Trip failure: ' "$T/ra.out" || fail "no report: $(cat "$T/ra.out")"
grep -q 'out of date' "$T/ra.out" || fail "server news not reported"
grep -q '^f \./a ' "$T/ra.out" || fail "a not reported: $(cat "$T/ra.out")"
grep -q '^f \./x ' "$T/ra.out" || fail "x not reported: $(cat "$T/ra.out")"
assert_eq 2 "$(metric drift_objects trip)" "drift objects"
assert_eq 1 "$(metric last_run_exit_code trip)" "exit code metric"
assert_eq 1 "$(metric last_run_success trip)" "success metric"
tree_stat "$R" >"$T/root.after"
assert_file_eq "$T/root.before" "$T/root.after" "apply root after trip"
tree_stat "$RADMIND" >"$T/radmind.after"
find "$RADMIND" -type f -exec cat {} + | cksum >>"$T/radmind.after"
# The run lock file aside, the radmind directory is as it was.
assert_file_eq "$T/radmind.before" "$T/radmind.after" \
    "radmind directory after trip"
assert_eq tampered "$(cat "$R/a")" "a after trip"

# No server: the audit still runs, on the local transcripts.
stop_cairnd
ra trip
assert_eq 1 "$RC" "trip without a server: $(cat "$T/ra.err")"
grep -q 'local transcripts' "$T/ra.err" || fail "no warning: $(cat "$T/ra.err")"
end_test
