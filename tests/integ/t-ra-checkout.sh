#!/bin/sh
# t-ra-checkout: checkout records who and when; while the machine is
# checked out, auto and force refuse (exit 5, logged, nothing applied,
# the status file says so), update runs for the owner alone, and only
# the owner may check in; checkin releases it and auto runs again.
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

ra -U alice checkout
assert_eq 0 "$RC" "checkout: $(cat "$T/ra.err")"
CO=$RADMIND/client/.CheckedOut
assert_eq alice "$(sed -n 1p "$CO")" "checkout file: user"
sed -n 2p "$CO" | grep -q '^[0-9]\{4\}-[0-9][0-9]-[0-9][0-9]T[0-9:]*Z$' ||
    fail "checkout file: time: $(sed -n 2p "$CO")"

ra -U alice auto
assert_eq 5 "$RC" "auto while checked out: $(cat "$T/ra.err")"
grep -q 'checked out by alice' "$SYSLOGF" ||
    fail "auto did not log the checkout: $(cat "$SYSLOGF")"
ra -U bob force
assert_eq 5 "$RC" "force while checked out: $(cat "$T/ra.err")"
[ ! -e "$R/a" ] || fail "applied while checked out"
assert_eq 5 "$(metric last_run_exit_code auto)" "auto's exit code metric"

# update: for the owner only.
ra -U bob update
assert_eq 5 "$RC" "update by another user: $(cat "$T/ra.err")"
[ ! -e "$R/a" ] || fail "applied for another user"
ra -U alice update
assert_eq 0 "$RC" "update by the owner: $(cat "$T/ra.err")"
assert_file_eq "$SRC/a" "$R/a" "a after the owner's update"

ra -U bob checkout
assert_eq 5 "$RC" "checkout by another user: $(cat "$T/ra.err")"
ra -U alice checkout
assert_eq 1 "$RC" "checkout again: $(cat "$T/ra.err")"
ra -U bob checkin
assert_eq 5 "$RC" "checkin by another user: $(cat "$T/ra.err")"
[ -s "$CO" ] || fail "checkout file gone after bob's checkin"

ra -U alice checkin
assert_eq 0 "$RC" "checkin: $(cat "$T/ra.err")"
[ ! -e "$CO" ] || fail "checkout file left after checkin"
ra checkin
assert_eq 1 "$RC" "checkin when not checked out"

printf 'alpha, version 2\n' >"$SRC/a"
ra_publish
ra auto
assert_eq 0 "$RC" "auto after checkin: $(cat "$T/ra.err")"
assert_file_eq "$SRC/a" "$R/a" "a after auto"
[ ! -s "$T/ra.out" ] || fail "auto printed: $(cat "$T/ra.out")"

# -F takes another user's checkout over.
ra -U alice checkout
ra -U bob -F checkout
assert_eq 0 "$RC" "forced checkout: $(cat "$T/ra.err")"
assert_eq bob "$(sed -n 1p "$CO")" "checkout file after takeover"
end_test
