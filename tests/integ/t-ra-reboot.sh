#!/bin/sh
# t-ra-reboot: cairn-ra auto runs the reboot command only when a
# postapply hook asked for it (created $CAIRN_RA_REBOOT), after writing
# the status file; update only says so.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/ralib.sh"

printf 'alpha\n' >"$SRC/a"
chmod 755 "$SRC" "$R"
ra_publish
start_cairnd "$REPO"
# The reboot command records what the status file said at the time.
ra_conf "REBOOT_CMD='grep reboot_requested.*auto \"$STATUS\" >\"$T/rebooted\"'"

# A hook that does not ask.
mkhook "$RADMIND/postapply" 10-quiet 'exit 0'
ra auto
assert_eq 0 "$RC" "auto: $(cat "$T/ra.err")"
assert_file_eq "$SRC/a" "$R/a" "a"
[ ! -e "$T/rebooted" ] || fail "rebooted though no hook asked"
assert_eq 0 "$(metric reboot_requested auto)" "reboot metric"

# A hook that asks: one reboot, after the status file was written.
mkhook "$RADMIND/postapply" 20-ask 'touch "$CAIRN_RA_REBOOT"'
printf 'alpha, version 2\n' >"$SRC/a"
ra_publish
ra auto
assert_eq 0 "$RC" "auto with a reboot: $(cat "$T/ra.err")"
assert_file_eq "$SRC/a" "$R/a" "a, version 2"
[ -e "$T/rebooted" ] || fail "no reboot: $(cat "$SYSLOGF")"
assert_eq 'cairn_ra_reboot_requested{verb="auto"} 1' "$(cat "$T/rebooted")" \
    "status file at the reboot"
grep -q 'asked for a reboot' "$SYSLOGF" || fail "log: $(cat "$SYSLOGF")"
[ ! -e "$RADMIND/cairn-ra.reboot" ] || fail "reboot request left behind"

# Nothing new: no hooks, no reboot.
rm -f "$T/rebooted"
ra auto
assert_eq 0 "$RC" "auto, nothing new: $(cat "$T/ra.err")"
[ ! -e "$T/rebooted" ] || fail "rebooted with nothing applied"

# update: told, not rebooted.
printf 'alpha, version 3\n' >"$SRC/a"
ra_publish
ra update
assert_eq 0 "$RC" "update: $(cat "$T/ra.err")"
[ ! -e "$T/rebooted" ] || fail "update rebooted"
grep -q 'asked for a reboot' "$T/ra.err" || fail "stderr: $(cat "$T/ra.err")"
assert_eq 1 "$(metric reboot_requested update)" "reboot metric of update"
end_test
