#!/bin/sh
# cairn-bench --shaper tc: the server and the tools in two network
# namespaces joined by a tbf-shaped veth pair (10 Mbit/s, the relay adding
# 6 ms of rtt).  The link must hold the tools back: no level-0 pull is
# faster than its bytes at 10 Mbit/s, none shorter than two rtts (lower
# bounds, which a loaded machine cannot break); level 6 must send fewer
# bytes than level 0 and than the files hold, and the namespaces must be
# gone afterwards.  Skips without root, iproute2 or network namespaces.
. "$top_srcdir/tests/integ/lib.sh"

need_root
need_cmd ip tc
need_tool cairnd ktcheck lapply fsdiff cairn-bench
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

run_capture "$T/out" "$T/err" "$CAIRN_BENCH" -q -B "$top_builddir" -w "$T/work" \
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
[ "$(wc -l <"$T/r.csv")" -eq 3 ] || fail "CSV: expected 3 lines"
# The bytes down at level 0 took at least their time at 10 Mbit/s (less
# 10% for the token bucket's burst); level 6 compressed the text.
awk -F, 'NR > 1 && $4 == 0 { t0 = $6; d0 = $13; w0 = $13 + $14 }
    NR > 1 && $4 == 6 { w6 = $13 + $14; raw = $12 }
    END { exit !(d0 > 0 && t0 >= 0.9 * d0 * 8 / 10000000 &&
    w6 < w0 && w6 < raw) }' "$T/r.csv" ||
    fail "faster than the link, or level 6 saved nothing: $(cat "$T/r.csv")"
# The rtt reached the tools: a pull takes at least a few round trips.
awk -F, 'NR > 1 && $6 < 0.012 { exit 1 }' "$T/r.csv" ||
    fail "a pull shorter than two rtts"
exit 0
