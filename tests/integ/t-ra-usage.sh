#!/bin/sh
# t-ra-usage: cairn-ra -V prints the package version, like the tools;
# usage errors exit 2 with a usage line and touch nothing.
. "$top_srcdir/tests/integ/lib.sh"
mk_tmpdir
RA=$top_builddir/client/cairn-ra
[ -x "$RA" ] || fail "cairn-ra was not built"
CAIRN_RA_CONFIG=/nonexistent
export CAIRN_RA_CONFIG
V=$(sed -n 's/^#define PACKAGE_VERSION "\(.*\)"$/\1/p' "$top_builddir/config.h")
[ -n "$V" ] || fail "no PACKAGE_VERSION in $top_builddir/config.h"

run_capture "$T/out" "$T/err" "$RA" -V
assert_eq 0 "$RC" "-V exit status"
assert_eq "$V" "$(cat "$T/out")" "-V output"
[ ! -s "$T/err" ] || fail "-V: stderr: $(cat "$T/err")"

printf 'RADMIND_DIR=%s\nSTATUS_FILE=%s\n' "$T/radmind" "$T/status.prom" \
    >"$T/conf"
n=0
for args in '' '-x update' 'frobnicate' 'update extra arg' 'checkout x' \
    'create a b' '-w 5 update' '-q -% update' '-h' '-f' '-p 12x update' \
    "-f $T/missing update"; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	run_capture "$T/out" "$T/err" "$RA" -f "$T/conf" $args
	[ -z "$args" ] || [ "$args" = '-f' ] &&
	    run_capture "$T/out" "$T/err" "$RA" $args
	assert_eq 2 "$RC" "cairn-ra $args: exit status ($(cat "$T/err"))"
	[ -s "$T/err" ] || fail "cairn-ra $args: no message"
done
# A configuration file named without a slash is the one in the current
# directory (not looked up in PATH).
run_capture "$T/out" "$T/err" in_dir "$T" "$RA" -f conf checkin
assert_eq 1 "$RC" "checkin with -f conf: $(cat "$T/err")"
grep -q 'not checked out' "$T/err" || fail "-f conf: $(cat "$T/err")"
[ ! -e "$T/radmind" ] && [ ! -e "$T/status.prom" ] ||
    fail "a usage error created files"
end_test
