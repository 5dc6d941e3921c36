#!/bin/sh
# The cairn-bench link relay: at 1, 20 and 100 Mbit/s it never delivers
# more than its rate (+5%) nor under 80% of it, and no round trip through
# it is shorter than its rtt.  Sizes are about 1.2 s of link time per
# direction, so each link takes under 3 s.
. "$top_srcdir/tests/integ/lib.sh"

probe=$top_builddir/tests/bench/relay-probe
[ -x "$probe" ] || fail "$probe was not built"

rc=0
for spec in "1000000 20000 150000" "20000000 4000 3000000" \
    "100000000 2000 15000000"; do
	# shellcheck disable=SC2086
	if ! "$probe" $spec; then
		echo "$TEST_NAME: relay check failed for rate/rtt/bytes $spec" >&2
		rc=1
	fi
done
exit $rc
