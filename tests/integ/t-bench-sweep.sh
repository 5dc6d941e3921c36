#!/bin/sh
# cairn-bench: a short sweep (levels 0 and 6, loopback and a 50 Mbit/s,
# 2 ms link, one run) over a small text tree against a real cairnd, with
# the real ktcheck, fsdiff and lapply.  Checks the table, the CSV (every
# cell filled, fewer wire bytes at level 6 than at 0, sane times and
# rates) and the SVG (well-formed, one line per link).  Also a generated
# corpus and --make-repo.  Skips while cairnd, ktcheck or lapply are not
# built.
. "$top_srcdir/tests/integ/lib.sh"

for t in cairnd ktcheck lapply; do
	tool_path "$t" >/dev/null || skip "$t is not built yet"
done
need_tool fsdiff cairn-bench
bench=$(tool_path cairn-bench)
mk_tmpdir

# A text tree: config-like files and a log, about 600 KB.
data=$T/data
mkdir -p "$data/etc/conf.d" "$data/var/log" "$data/usr/share/doc"
i=0
while [ $i -lt 40 ]; do
	j=0
	while [ $j -lt 60 ]; do
		echo "option_$j = value $i $j # the default for server $i"
		j=$((j + 1))
	done >"$data/etc/conf.d/file$i.conf"
	i=$((i + 1))
done
i=0
while [ $i -lt 4000 ]; do
	echo "Nov 22 10:$((i % 60)):00 web$((i % 12)) sshd[$i]: Accepted publickey for user$((i % 7)) port $((40000 + i))"
	i=$((i + 1))
done >"$data/var/log/messages"
ln -s ../../etc/conf.d/file1.conf "$data/usr/share/doc/link"

run_capture "$T/out" "$T/err" "$bench" -q -B "$top_builddir" -w "$T/work" \
    -d "$data" -l 0,6 -L loopback -L rate=50mbit,rtt=2ms -n 1 \
    --csv "$T/r.csv" --svg "$T/r.svg"
if [ "$RC" -ne 0 ]; then
	cat "$T/out" "$T/err" >&2
	fail "cairn-bench exited $RC"
fi
cat "$T/out"

# The table: the link check, both links, a verdict and a recommendation.
grep -q '^link loopback: unshaped, rtt 0 ms: level 0 delivered ' "$T/out" ||
    fail "no level-0 check of loopback"
grep -q '^link 50mbit/2ms: 50 Mbit/s, rtt 2 ms: level 0 delivered ' \
    "$T/out" || fail "no level-0 check of the 50 Mbit/s link"
[ "$(grep -c '^  best: -Z [06]\. On ' "$T/out")" -eq 2 ] ||
    fail "not one verdict per link"
grep -q '^  cairnd -Z [0-9]$' "$T/out" || fail "no cairnd -Z recommendation"
[ "$(grep -c '^  ktcheck -Z [06] -c sha1 \.\.\.; lapply -Z [06] -c sha1' \
    "$T/out")" -ge 1 ] || fail "no client recommendation"
grep -q '^  0 .*0\.0% ' "$T/out" || fail "no level-0 row in the table"

# The CSV: a header of 20 columns and 4 rows with every cell filled.
[ "$(wc -l <"$T/r.csv")" -eq 5 ] || fail "CSV: expected 5 lines"
head -1 "$T/r.csv" | grep -q '^link,rate_bit_s,rtt_ms,level,' ||
    fail "CSV: bad header"
awk -F, 'NR > 1 { for (i = 1; i <= 20; i++) if ($i == "") bad = 1;
    if (NF != 20) bad = 1 } END { exit bad }' "$T/r.csv" ||
    fail "CSV: a row with an empty or missing cell"
awk -F, 'NR > 1 && $4 == 0 { w0[$1] = $13 + $14 }
    NR > 1 && $4 == 6 { w6[$1] = $13 + $14 }
    END { n = 0; for (l in w0) { n++; if (!(w6[l] < w0[l] * 0.7)) exit 1 }
    exit n != 2 }' "$T/r.csv" ||
    fail "CSV: level 6 does not save 30% of the wire bytes of level 0"
# Level 0 carries at least the files' bytes; times are positive and CPU
# seconds not negative (a tiny run can be accounted 0 s);
# the 50 Mbit/s link delivered no more than 105% of its rate.
awk -F, 'NR > 1 && $4 == 0 && $13 < $12 { exit 1 }
    NR > 1 && ($6 <= 0 || $10 < 0 || $11 < 0 || $7 > $6 || $6 > $8) {
    exit 1 }
    NR > 1 && $2 == 50000000 && ($17 > 52500000 || $17 < 10000000) {
    exit 1 }' "$T/r.csv" ||
    fail "CSV: implausible bytes, times or rate: $(cat "$T/r.csv")"

# The SVG: well-formed, a polyline per link plus the savings panel.
head -1 "$T/r.svg" | grep -q '^<?xml' || fail "SVG: no XML declaration"
tail -1 "$T/r.svg" | grep -q '^</svg>$' || fail "SVG: not closed"
[ "$(grep -c '<polyline' "$T/r.svg")" -eq 3 ] ||
    fail "SVG: expected 3 polylines (2 links, 1 savings)"
grep -q '>50mbit/2ms (best -Z [06])' "$T/r.svg" || fail "SVG: no legend"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' \
	    "$T/r.svg" || fail "SVG: not well-formed XML"
fi

# --make-repo, with the built-in corpus generator (used below 1 MiB).
run_capture "$T/out2" "$T/err2" "$bench" -B "$top_builddir" -w "$T/work2" \
    -s 256K --make-repo "$T/repo"
[ "$RC" -eq 0 ] || { cat "$T/err2" >&2; fail "--make-repo exited $RC"; }
grep -q "^repository in $T/repo: [1-9][0-9]* files" "$T/out2" ||
    fail "--make-repo: no summary"
[ -s "$T/repo/transcript/bench.T" ] || fail "--make-repo: no transcript"
[ "$(cat "$T/repo/config")" = "* bench.K" ] || fail "--make-repo: config"
[ "$(cat "$T/repo/command/bench.K")" = "p bench.T" ] ||
    fail "--make-repo: command file"
n=$(grep -c '^f ' "$T/repo/transcript/bench.T")
m=$(find "$T/repo/file/bench.T" -type f | wc -l)
[ "$n" -eq "$m" ] || fail "--make-repo: $n files listed, $m stored"

# Usage errors exit 2 and name the option.
run_capture "$T/out3" "$T/err3" "$bench" -L rate=fast
[ "$RC" -eq 2 ] || fail "bad --link: exit $RC"
grep -q -- '--link rate=fast' "$T/err3" || fail "bad --link: no message"
run_capture "$T/out3" "$T/err3" "$bench" -l 3-12
[ "$RC" -eq 2 ] || fail "bad --levels: exit $RC"
grep -q -- '--levels 3-12' "$T/err3" || fail "bad --levels: no message"
run_capture "$T/out3" "$T/err3" "$bench" --no-such-option
[ "$RC" -eq 2 ] || fail "unknown option: exit $RC"
grep -q '^usage: cairn-bench ' "$T/err3" || fail "unknown option: no usage"

# --help: the synopsis, every option and every link profile, on stdout.
run_capture "$T/out3" "$T/err3" "$bench" --help
[ "$RC" -eq 0 ] || fail "--help: exit $RC"
[ -s "$T/err3" ] && fail "--help: unexpected stderr"
grep -q '^usage: cairn-bench ' "$T/out3" || fail "--help: no synopsis"
for o in --bindir --data --corpus --levels --link --reps --work --keep \
    --quiet --csv --runs-csv --svg --shaper --server --make-repo \
    --make-corpus --files --seed --help; do
	grep -q -- "$o" "$T/out3" || fail "--help does not list $o"
done
for p in loopback 10gbit gigabit fast-ethernet 802.11g dsl 3g modem; do
	grep -q "^  $p  *[0-9a-z]*  *[0-9]*ms\$" "$T/out3" ||
	    fail "--help does not list the profile $p"
done
exit 0
