#!/bin/sh
# t-ra-usage: cairn-ra -V prints the package version, like the tools;
# usage errors exit 2 with a usage line and touch nothing, and so does
# KEYS with a checksum weaker than SHA-256 for the verbs that apply.
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
    "-f $T/missing update" '-Z 10 update' '-Z zstd:0 update' \
    '-Z zstd:20 update' '-Z zstd: update' '-Z ZSTD:3 update'; do
	n=$((n + 1))
	# shellcheck disable=SC2086
	run_capture "$T/out" "$T/err" "$RA" -f "$T/conf" $args
	[ -z "$args" ] || [ "$args" = '-f' ] &&
	    run_capture "$T/out" "$T/err" "$RA" $args
	assert_eq 2 "$RC" "cairn-ra $args: exit status ($(cat "$T/err"))"
	[ -s "$T/err" ] || fail "cairn-ra $args: no message"
done
# Every -Z form the tools take passes cairn-ra's own check (the run then
# stops at the missing working directory, before any tool runs).
for z in 0 9 auto zstd zstd:1 zstd:19; do
	run_capture "$T/out" "$T/err" "$RA" -f "$T/conf" -D "$T/nowhere" \
	    -Z "$z" update
	grep -q 'level must' "$T/err" && fail "-Z $z refused: $(cat "$T/err")"
	grep -q 'no such directory' "$T/err" ||
	    fail "-Z $z: $(cat "$T/err")"
done
# KEYS with a checksum no signed release vouches for (-c is sha1, or
# none): lapply would refuse every run, and auto retry it; refused at
# once for the verbs that apply, not for those that do not.
. "$top_srcdir/tests/integ/releaselib.sh"
rel_keygen admin
mkdir "$T/pinned" && cp "$T/keys/admin.pub" "$T/pinned/" || fail "pin"
printf 'RADMIND_DIR=%s\nSTATUS_FILE=%s\nKEYS=%s\n' "$T/radmind" \
    "$T/status.prom" "$T/pinned" >"$T/kconf"
for args in '-c update' '-c auto' '-c force' 'update'; do
	# shellcheck disable=SC2086
	run_capture "$T/out" "$T/err" "$RA" -f "$T/kconf" $args
	assert_eq 2 "$RC" "KEYS, cairn-ra $args: exit status ($(cat "$T/err"))"
	grep -q 'KEYS needs CHECKSUM=sha256 or stronger' "$T/err" ||
	    fail "KEYS, cairn-ra $args: $(cat "$T/err")"
done
printf 'CHECKSUM=sha256\n' >>"$T/kconf"
run_capture "$T/out" "$T/err" "$RA" -f "$T/kconf" -D "$T/nowhere" update
grep -q 'KEYS needs' "$T/err" && fail "KEYS with sha256 refused: $(cat "$T/err")"
grep -q 'no such directory' "$T/err" || fail "KEYS with sha256: $(cat "$T/err")"
run_capture "$T/out" "$T/err" "$RA" -f "$T/kconf" -c checkin
grep -q 'KEYS needs' "$T/err" && fail "checkin refused for KEYS: $(cat "$T/err")"
# A configuration file named without a slash is the one in the current
# directory (not looked up in PATH).
run_capture "$T/out" "$T/err" in_dir "$T" "$RA" -f conf checkin
assert_eq 1 "$RC" "checkin with -f conf: $(cat "$T/err")"
grep -q 'not checked out' "$T/err" || fail "-f conf: $(cat "$T/err")"
[ ! -e "$T/radmind" ] && [ ! -e "$T/status.prom" ] ||
    fail "a usage error created files"
end_test
