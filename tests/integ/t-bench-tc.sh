#!/bin/sh
# cairn-bench --shaper tc: the server and the tools in two network
# namespaces joined by a tbf-shaped veth pair (10 Mbit/s, the relay adding
# 6 ms of rtt).  The level-0 check must show the link near its rate:
# payload 65-101% of the setting (tbf counts Ethernet frames, and TCP over
# a real queue rarely fills it); level 6 must save bytes, and the
# namespaces must be gone afterwards.  Skips without
# root, iproute2, network namespaces, or the built cairnd/ktcheck/lapply.
. "$top_srcdir/tests/integ/lib.sh"

need_root
need_cmd ip tc
for t in cairnd ktcheck lapply; do
	tool_path "$t" >/dev/null || skip "$t is not built yet"
done
need_tool fsdiff cairn-bench
bench=$(tool_path cairn-bench)
mk_tmpdir

probe=cbench-probe-$$
ip netns add "$probe" 2>/dev/null || skip "cannot create network namespaces"
ip netns del "$probe"
# Namespaces of other runs (a bench killed earlier) are not this run's.
ip netns list | awk '/^cbench-/ { print $1 }' | sort >"$T/ns.before"

mkdir -p "$T/data/etc"
i=0
while [ $i -lt 12000 ]; do
	echo "line $i: option_$((i % 50)) = value $((i % 13)) for the server"
	i=$((i + 1))
done >"$T/data/etc/big.conf"
cp "$T/data/etc/big.conf" "$T/data/etc/copy.conf"

run_capture "$T/out" "$T/err" "$bench" -q -B "$top_builddir" -w "$T/work" \
    -d "$T/data" -l 0,6 -L rate=10mbit,rtt=6ms -n 1 --shaper tc \
    --csv "$T/r.csv"
cat "$T/out"
if [ "$RC" -ne 0 ]; then
	cat "$T/err" >&2
	fail "cairn-bench --shaper tc exited $RC"
fi
ip netns list | awk '/^cbench-/ { print $1 }' | sort >"$T/ns.after"
left=$(comm -13 "$T/ns.before" "$T/ns.after" | tr '\n' ' ')
[ -z "$left" ] || fail "namespaces left behind: $left$(cat "$T/err")"
grep -q '^link 10mbit/6ms: 10 Mbit/s, rtt 6 ms: level 0 delivered ' \
    "$T/out" || fail "no level-0 check"
awk -F, 'NR > 1 && $4 == 0 { d = $17; w0 = $13 + $14 }
    NR > 1 && $4 == 6 { w6 = $13 + $14 }
    END { exit !(d >= 6500000 && d <= 10100000 && w6 < w0 * 0.7) }' \
    "$T/r.csv" || fail "rate or bytes off: $(cat "$T/r.csv")"
# The rtt reached the tools: a pull takes at least a few round trips.
awk -F, 'NR > 1 && $6 < 0.012 { exit 1 }' "$T/r.csv" ||
    fail "a pull shorter than two rtts"
exit 0
