#!/bin/sh
# cairn-bench: a short sweep (levels 0 and 6, loopback and a 50 Mbit/s,
# 2 ms link, one run) over a small text tree against a real cairnd, with
# the real ktcheck, fsdiff and lapply.  Checks what the report holds, not
# how fast anything went (timing belongs to make bench): the table, the
# CSV files (their columns, a row per link and level, every cell filled,
# fewer bytes on the wire at level 6 than at level 0 and than the files
# hold; cairnd's counters: the one file that will not shrink sent stored,
# the plain bytes by level adding up to what was sent), the SVG (well-formed, one line per link); -l auto,1 (auto's row,
# its line against the best fixed level, its bytes by level, its CSV
# row); -l 0,zstd:1 (zstd's row, counters and CSV row, fewer bytes than
# level 0) and zstd levels out of range; --make-repo from a
# generated corpus; -B relative, missing or without the tools; usage
# errors and --help.
. "$top_srcdir/tests/integ/lib.sh"

need_tool cairnd ktcheck lapply fsdiff cairn-bench
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
# And one file that will not shrink.
head -c 262144 /dev/urandom >"$data/usr/share/doc/blob.bin" || fail "blob"

run_capture "$T/out" "$T/err" "$CAIRN_BENCH" -q -B "$top_builddir" -w "$T/work" \
    -d "$data" -l 0,6 -L loopback -L rate=50mbit,rtt=2ms -n 1 \
    --csv "$T/r.csv" --runs-csv "$T/runs.csv" --svg "$T/r.svg"
if [ "$RC" -ne 0 ]; then
	cat "$T/out" "$T/err" >&2
	fail "cairn-bench exited $RC"
fi
cat "$T/out"

# The report: the data and levels, the link checks, a table per link with
# a row per level, a verdict per link, the model and a recommendation.
grep -q '^cairn-bench: data, [0-9]* files, [0-9.]* MB; levels 0,6; 1 run' \
    "$T/out" || fail "no summary line"
grep -q '^link loopback: unshaped, rtt 0 ms: level 0 delivered ' "$T/out" ||
    fail "no level-0 check of loopback"
grep -q '^link 50mbit/2ms: 50 Mbit/s, rtt 2 ms: level 0 delivered ' \
    "$T/out" || fail "no level-0 check of the 50 Mbit/s link"
for l in loopback 50mbit/2ms; do
	sed -n "\\|^$l (|,/^  best:/p" "$T/out" >"$T/table"
	grep -q '^  level  *time s ' "$T/table" || fail "$l: no table header"
	grep -q '^  0  *[0-9.]* ' "$T/table" || fail "$l: no level-0 row"
	grep -q '^  6  *[0-9.]* ' "$T/table" || fail "$l: no level-6 row"
done
[ "$(grep -c '^  best: -Z [06]\. On ' "$T/out")" -eq 2 ] ||
    fail "not one verdict per link"
grep -q '^Model: time(level, rate) = ' "$T/out" || fail "no model"
grep -q '^  best level by link rate: ' "$T/out" || fail "no rate bands"
grep -q '^  cairnd -Z [06]$' "$T/out" || fail "no cairnd -Z recommendation"
[ "$(grep -c '^  ktcheck -Z [06] -c sha1 \.\.\.; lapply -Z [06] -c sha1' \
    "$T/out")" -ge 1 ] || fail "no client recommendation"

# The CSV: its 28 columns, a row per link and level, every cell filled.
assert_eq "link,rate_bit_s,rtt_ms,level,runs,time_median_s,time_min_s,\
time_max_s,lapply_median_s,server_cpu_s,client_cpu_s,raw_bytes,\
wire_down_bytes,wire_up_bytes,wire_ratio,server_MB_s,delivered_bit_s,\
link_flagged,best_level,crossover_bit_s,stored_bytes,stored_files,\
cached_bytes,cached_files,level_bytes,level_changes,codec,\
server_cpu_s_per_GB" "$(head -1 "$T/r.csv")" "CSV header"
assert_eq "loopback,0,0.000,0 loopback,0,0.000,6 50mbit/2ms,50000000,2.000,0 \
50mbit/2ms,50000000,2.000,6" "$(sed 1d "$T/r.csv" | cut -d, -f1-4 |
    tr '\n' ' ' | sed 's/ $//')" "CSV rows"
awk -F, 'NR > 1 { for (i = 1; i <= 28; i++) if ($i == "") bad = 1;
    if (NF != 28 || $5 != 1 || $27 != "zlib") bad = 1 } END { exit bad }' \
    "$T/r.csv" ||
    fail "CSV: a row with an empty or missing cell"
# Level 0 carries the files' bytes and level 6 fewer: the data is text.
awk -F, 'NR > 1 && $4 == 0 { w0[$1] = $13 + $14; if ($13 < $12) exit 1 }
    NR > 1 && $4 == 6 { w6[$1] = $13 + $14; if ($13 >= $12) exit 1 }
    END { n = 0; for (l in w0) { n++; if (!(w6[l] < w0[l])) exit 1 }
    exit n != 2 }' "$T/r.csv" ||
    fail "CSV: level 6 does not send fewer bytes than level 0 and the files"
# cairnd's counters: uncompressed, none; at level 6, the random file
# (and nothing else) sent stored, no cache, no change of level, and the
# plain bytes by level (stored ones at 0) adding up to all that was sent
# but the greeting and the negotiation before each compressed stream.
awk -F, 'NR > 1 && $4 == 0 && $21 $22 $23 $24 $25 $26 != "0000--" { exit 1 }
    NR > 1 && $4 == 6 { n++; if ($21 != 262144 || $22 != 1 || $23 != 0 ||
    $24 != 0 || $26 != "0.0") exit 1; k = split($25, lv, " "); sum = 0
    for (i = 1; i <= k; i++) { split(lv[i], p, ":")
    if (p[1] != 0 && p[1] != 6) exit 1; sum += p[2] }
    if (k != 2 || sum > $12 || sum < $12 - 1024) exit 1 }
    END { exit n != 2 }' "$T/r.csv" ||
    fail "CSV: the body counters: $(cut -d, -f4,12,21- "$T/r.csv")"
grep -q '^  sent stored (would not shrink), MB (files) per run: 6 0\.26 (1)$' \
    "$T/out" || fail "no line of the bodies sent stored"
grep -q 'served from the cache' "$T/out" && fail "a cache line without a cache"
# The runs CSV: its 17 columns, a row per run.
assert_eq "link,rate_bit_s,rtt_ms,level,run,time_s,lapply_s,server_cpu_s,\
client_cpu_s,raw_bytes,wire_down_bytes,wire_up_bytes,stored_bytes,\
cached_bytes,level_bytes,level_changes,codec" \
    "$(head -1 "$T/runs.csv")" "runs CSV header"
[ "$(awk -F, 'NR > 1 && NF == 17 && $5 == 1' "$T/runs.csv" | wc -l)" -eq 4 ] ||
    fail "runs CSV: expected 4 runs of 17 columns"
awk -F, 'NR > 1 && $4 == 6 && ($13 != 262144 || $14 != 0) { exit 1 }' \
    "$T/runs.csv" || fail "runs CSV: the body counters"

# The SVG: well-formed, a polyline per link plus the savings panel.
head -1 "$T/r.svg" | grep -q '^<?xml' || fail "SVG: no XML declaration"
tail -1 "$T/r.svg" | grep -q '^</svg>$' || fail "SVG: not closed"
[ "$(grep -c '<polyline' "$T/r.svg")" -eq 3 ] ||
    fail "SVG: expected 3 polylines (2 links, 1 savings)"
grep -q '>50mbit/2ms (best -Z [06])' "$T/r.svg" || fail "SVG: no legend"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' \
	    "$T/r.svg" || fail "SVG: not well-formed XML"
else
	not_run "the SVG's XML check (no python3)"
fi

# -Z auto beside a fixed level: its own row in each table, a line per link
# against the fastest fixed level, a CSV row named auto without a
# crossover, and no place in the model or the recommendation.
run_capture "$T/outa" "$T/erra" "$CAIRN_BENCH" -q -B "$top_builddir" \
    -w "$T/worka" -d "$data" -l auto,1 -L loopback -n 1 --csv "$T/a.csv" \
    --svg "$T/a.svg"
if [ "$RC" -ne 0 ]; then
	cat "$T/outa" "$T/erra" >&2
	fail "cairn-bench -l auto,1 exited $RC"
fi
cat "$T/outa"
grep -q '^cairn-bench: data, .*; levels 1,auto; 1 run' "$T/outa" ||
    fail "auto: no summary line with the levels"
sed -n '\|^loopback (|,/^  best:/p' "$T/outa" >"$T/table"
grep -q '^  1  *[0-9.]* ' "$T/table" || fail "auto: no level-1 row"
grep -q '^  auto  *[0-9.]* ' "$T/table" || fail "auto: no auto row"
# Without level 0 among the levels, what level 1 saved is still counted
# against level 0 (the link check's run), not against itself.
awk '$1 == 1 { s = $8; sub("%", "", s); exit !(s > 20) }' "$T/table" ||
    fail "auto: level 1 saved nothing: $(grep '^  1 ' "$T/table")"
grep -q '^  auto: [0-9.]* s, best fixed -Z 1: [0-9.]* s ([0-9.]*x)$' \
    "$T/outa" || fail "auto: no line against the best fixed level"
# The best level: 1, or auto when it beat level 1 by more than 5% (which
# of the two depends on timing here; t-bench-advice checks the rule on
# known figures); the recommendation follows it.
if grep -q '^  best: -Z auto\. ' "$T/outa"; then
	grep -q '^  best fixed level: -Z 1\. ' "$T/outa" ||
	    fail "auto best: no best fixed level"
	grep -q '^  ktcheck -Z auto -c sha1 ' "$T/outa" ||
	    fail "auto best: not recommended"
else
	grep -q '^  best: -Z 1\. ' "$T/outa" || fail "auto: no best level"
	grep -q -- '-Z auto' "$T/outa" && fail "auto: recommended, not best"
fi
sed -n '/^Model: /,/^  best level by link rate/p' "$T/outa" |
    grep -q '^  auto ' && fail "auto: in the model"
assert_eq "loopback,0,0.000,1 loopback,0,0.000,auto" \
    "$(sed 1d "$T/a.csv" | cut -d, -f1-4 | tr '\n' ' ' | sed 's/ $//')" \
    "auto: CSV rows"
awk -F, 'NR > 1 && $4 == "auto" { n++; if (NF != 28 || $20 != "-" ||
    $13 == "" || $6 == "" || $21 != 262144) bad = 1 } END { exit bad || n != 1 }' \
    "$T/a.csv" || fail "auto: CSV row"
# auto's plain bytes by level: shares of the levels of the codec cairnd
# chose (zstd where it is built in).
codec=zlib
have_zstd && codec=zstd
grep -Eq "^  auto \($codec\), plain bytes by level:( [0-9]+ [0-9.]+%)+; [0-9.]+ changes of level per run\$" \
    "$T/outa" || fail "auto: no bytes by level"
grep -q 'text-anchor="middle">auto</text>' "$T/a.svg" ||
    fail "auto: no auto label in the SVG"
[ "$(grep -c '<polyline' "$T/a.svg")" -eq 2 ] ||
    fail "SVG: expected 2 polylines (1 link, 1 savings) with auto"
if command -v python3 >/dev/null 2>&1; then
	python3 -c 'import sys, xml.etree.ElementTree as E; E.parse(sys.argv[1])' \
	    "$T/a.svg" || fail "auto SVG: not well-formed XML"
else
	not_run "the auto SVG's XML check (no python3)"
fi
run_capture "$T/out3" "$T/err3" "$CAIRN_BENCH" -l auto
[ "$RC" -eq 2 ] || fail "--levels auto alone: exit $RC"
grep -q -- '--levels auto' "$T/err3" || fail "--levels auto alone: no message"

if have_zstd; then
	# zstd beside zlib: -l 0,zstd:1 runs cairnd with -Y 1; zstd:1 has its
	# row in the table, with server CPU per GB, and in the CSV, named by its
	# codec, with fewer bytes on the wire than level 0; cairnd's counters of
	# its zstd sessions are its own: the random file sent stored, the plain
	# bytes by zstd's level 1 (and 0, stored) adding up to what was sent.
	run_capture "$T/outz" "$T/errz" "$CAIRN_BENCH" -q -B "$top_builddir" \
	    -w "$T/workz" -d "$data" -l 0,zstd:1 -L loopback -n 1 \
	    --csv "$T/z.csv" --runs-csv "$T/zruns.csv" --svg "$T/z.svg"
	if [ "$RC" -ne 0 ]; then
		cat "$T/outz" "$T/errz" >&2
		fail "cairn-bench -l 0,zstd:1 exited $RC"
	fi
	cat "$T/outz"
	grep -q '^cairn-bench: data, .*; levels 0,zstd:1; 1 run' "$T/outz" ||
	    fail "zstd: no summary line with the levels"
	sed -n '\|^loopback (|,/^  best:/p' "$T/outz" >"$T/table"
	grep -q '^  level  *time s .* srv s/GB$' "$T/table" || fail "zstd: no s/GB column"
	grep -Eq '^  zstd:1  *[0-9.]+ .* [0-9.]+$' "$T/table" || fail "zstd: no zstd:1 row"
	grep -q 'went by another codec' "$T/outz" &&
	    fail "zstd: sessions went by zlib: $(grep -h 'session end' "$T/workz"/*.log)"
	grep -q '^  sent stored (would not shrink), MB (files) per run: zstd:1 0\.26 (1)$' \
	    "$T/outz" || fail "zstd: no line of the bodies sent stored"
	assert_eq "loopback,0,0.000,0,zlib loopback,0,0.000,zstd:1,zstd" \
	    "$(sed 1d "$T/z.csv" | cut -d, -f1-4,27 | tr '\n' ' ' | sed 's/ $//')" \
	    "zstd: CSV rows"
	awk -F, 'NR > 1 && $4 == 0 { w0 = $13 + $14 }
	    NR > 1 && $4 == "zstd:1" { n++; wz = $13 + $14
	    if ($21 != 262144 || $22 != 1 || $26 != "0.0" || $28 == "") exit 1
	    k = split($25, lv, " "); sum = 0
	    for (i = 1; i <= k; i++) { split(lv[i], p, ":")
	    if (p[1] != 0 && p[1] != 1) exit 1; sum += p[2] }
	    if (k != 2 || sum > $12 || sum < $12 - 1024) exit 1 }
	    END { exit n != 1 || !(wz < w0) }' "$T/z.csv" ||
	    fail "zstd: CSV row: $(cut -d, -f4,12-14,21- "$T/z.csv")"
	awk -F, 'NR > 1 && $4 == "zstd:1" { n++; if ($13 != 262144 || $17 != "zstd")
	    exit 1 } END { exit n != 1 }' "$T/zruns.csv" ||
	    fail "zstd: runs CSV: $(cat "$T/zruns.csv")"
	grep -q 'stroke-dasharray="6 3" points=' "$T/z.svg" ||
	    fail "zstd: no zstd series in the SVG"
else
	not_run "zstd beside zlib (zstd is not built in)"
fi
# A zstd level out of 1 to 19, or no number, is a usage error.
for l in zstd:0 zstd:20 zstd:x zstd: zstd:3-1 zlib:3; do
	run_capture "$T/out3" "$T/err3" "$CAIRN_BENCH" -l "0,$l"
	[ "$RC" -eq 2 ] || fail "--levels 0,$l: exit $RC"
	grep -q -- "--levels 0,$l: " "$T/err3" || fail "--levels 0,$l: no message"
done

# --make-repo from a generated corpus.
run_capture "$T/out2" "$T/err2" "$CAIRN_BENCH" -B "$top_builddir" -w "$T/work2" \
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

# -B relative to the working directory: resolved once, before the tools
# run in the repository and the client's root, where it named nothing.
run_capture "$T/outb" "$T/errb" in_dir "$top_builddir/client" \
    "$CAIRN_BENCH" -q -B .. -w "$T/workb" -d "$data" -l 0 -L loopback -n 1
[ "$RC" -eq 0 ] || { cat "$T/errb" >&2; fail "-B ..: exit $RC"; }
grep -q '^loopback (' "$T/outb" || fail "-B ..: no table"
run_capture "$T/out3" "$T/err3" "$CAIRN_BENCH" -B "$T/no-such-dir" -l 0
[ "$RC" -eq 2 ] || fail "-B missing: exit $RC"
grep -q -- "--bindir $T/no-such-dir: " "$T/err3" || fail "-B missing: message"
mkdir "$T/empty"
run_capture "$T/out3" "$T/err3" "$CAIRN_BENCH" -B "$T/empty" -l 0
[ "$RC" -eq 1 ] || fail "-B without the tools: exit $RC"
grep -q -- "not found in --bindir $T/empty" "$T/err3" ||
    fail "-B without the tools: message"

# Usage errors exit 2 and name the option.
run_capture "$T/out3" "$T/err3" "$CAIRN_BENCH" -L rate=fast
[ "$RC" -eq 2 ] || fail "bad --link: exit $RC"
grep -q -- '--link rate=fast' "$T/err3" || fail "bad --link: no message"
run_capture "$T/out3" "$T/err3" "$CAIRN_BENCH" -l 3-12
[ "$RC" -eq 2 ] || fail "bad --levels: exit $RC"
grep -q -- '--levels 3-12' "$T/err3" || fail "bad --levels: no message"
# --cache takes cairnd -W's levels, checked before anything is built.
_zc="0 auto 9,x"
have_zstd && _zc="$_zc zstd:0"
for c in $_zc; do
	run_capture "$T/out3" "$T/err3" "$CAIRN_BENCH" -l 0,9 --cache "$c"
	[ "$RC" -eq 2 ] || fail "--cache $c: exit $RC"
	grep -q -- "--cache $c: levels are 1 to 9" "$T/err3" ||
	    fail "--cache $c: message: $(cat "$T/err3")"
done
run_capture "$T/out3" "$T/err3" "$CAIRN_BENCH" --no-such-option
[ "$RC" -eq 2 ] || fail "unknown option: exit $RC"
grep -q '^usage: cairn-bench ' "$T/err3" || fail "unknown option: no usage"

# --help: the synopsis, every option and every link profile, on stdout.
run_capture "$T/out3" "$T/err3" "$CAIRN_BENCH" --help
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
