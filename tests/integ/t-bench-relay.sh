#!/bin/sh
# The cairn-bench link relay at 1, 20 and 100 Mbit/s: no round trip through
# it is shorter than its rtt, every byte arrives and is counted, no
# transfer is faster than the link (the bytes' serialization time plus
# half the rtt), and a sender is pushed back once the relay holds its
# queue (kernel buffers included).  Lower bounds on time only, which a loaded machine cannot
# break.  Sizes are about 0.3 s of link time per direction.
. "$top_srcdir/tests/integ/lib.sh"

probe=$top_builddir/tests/bench/relay-probe
[ -x "$probe" ] || fail "$probe was not built"

for spec in "1000000 20000 40000" "20000000 4000 800000" \
    "100000000 2000 4000000"; do
	# shellcheck disable=SC2086
	"$probe" $spec ||
	    note_fail "relay check failed for rate/rtt/bytes $spec"
done
end_test
