#!/bin/sh
# t-ra-units: the systemd units built for cairn-ra: a oneshot service
# running "cairn-ra auto" from the installed sbin, counting skipped runs
# (5, 6) as success, with no [Install] section of its own; a nightly
# timer with a random delay and Persistent=true, installable but not
# enabled.  The cron example runs "cairn-ra auto" as root after a random
# sleep.  systemd-analyze verify checks both units when it is installed
# (that part alone is skipped otherwise).  The example configuration
# matches the script's defaults.
. "$top_srcdir/tests/integ/lib.sh"
mk_tmpdir

S=$top_builddir/client/cairn-ra.service
TM=$top_builddir/client/cairn-ra.timer
CRON=$top_srcdir/contrib/cairn-ra.cron
for f in "$S" "$TM" "$CRON"; do
	[ -f "$f" ] || fail "$f was not built"
done
! grep -q '@[a-z]*@' "$S" "$TM" || fail "unsubstituted variables"

has()
{
	grep -qx "$2" "$1" || note_fail "${1##*/}: no line '$2'"
}
has "$S" 'Type=oneshot'
has "$S" 'SuccessExitStatus=5 6'
has "$S" 'After=network-online.target'
has "$S" 'Wants=network-online.target'
grep -qx 'ExecStart=/.*/cairn-ra auto' "$S" ||
    note_fail "service: ExecStart: $(grep ExecStart "$S")"
grep -q '^\[Install\]' "$S" && note_fail "service has an [Install] section"
has "$TM" '\[Timer\]'
grep -qx 'OnCalendar=.*' "$TM" || note_fail "timer: no OnCalendar"
grep -qx 'RandomizedDelaySec=[1-9][0-9]*[smh]*' "$TM" ||
    note_fail "timer: RandomizedDelaySec: $(grep Randomized "$TM")"
has "$TM" 'Persistent=true'
has "$TM" 'WantedBy=timers.target'

# cron: minute hour day month weekday user command.
grep -v '^#\|^$\|^[A-Z]*=' "$CRON" >"$T/cron.lines"
assert_eq 1 "$(wc -l <"$T/cron.lines")" "cron entries"
awk 'NF < 7 || $6 != "root" { exit 1 }' "$T/cron.lines" ||
    note_fail "cron entry: $(cat "$T/cron.lines")"
grep -q 'cairn-ra auto$' "$T/cron.lines" || note_fail "cron: no cairn-ra auto"

# The example configuration names the variables cairn-ra knows, with
# their defaults.
DEF=$top_srcdir/contrib/cairn-ra.default
sed -n 's/^#\([A-Z_]*=.*\)/\1/p' "$DEF" >"$T/defaults"
[ -s "$T/defaults" ] || fail "no settings in $DEF"
while IFS= read -r line; do
	case $line in
	CAFILE=*|CERTFILE=*|KEYFILE=*|COMMANDFILE=*)
		# The tools' defaults, not set by cairn-ra.
		grep -q "^${line%%=*}=" "$top_builddir/client/cairn-ra" ;;
	*)	grep -qxF "$line" "$top_builddir/client/cairn-ra" ;;
	esac || note_fail "$DEF: $line is not cairn-ra's default"
done <"$T/defaults"

if command -v systemd-analyze >/dev/null 2>&1; then
	# The service must name a program that exists: the built script.
	mkdir "$T/units"
	sed "s|^ExecStart=.*/cairn-ra |ExecStart=$top_builddir/client/cairn-ra |" \
	    "$S" >"$T/units/cairn-ra.service"
	cp "$TM" "$T/units/cairn-ra.timer"
	if ! (cd "$T/units" && systemd-analyze verify --man=no \
	    ./cairn-ra.service ./cairn-ra.timer) >"$T/verify" 2>&1; then
		note_fail "systemd-analyze verify: $(cat "$T/verify")"
	elif [ -s "$T/verify" ]; then
		note_fail "systemd-analyze verify: $(cat "$T/verify")"
	fi
else
	not_run "systemd-analyze verify (not installed)"
fi
end_test
