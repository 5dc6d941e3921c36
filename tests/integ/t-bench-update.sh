#!/bin/sh
# cairn-bench --update: an update of two small generated trees (about
# 2.8 MB: files changed in place, one moved, one removed, one added)
# pulled whole and by delta over loopback, one run, with the real
# cairn-publish (-k, -f, -d), cairnd, ktcheck, fsdiff and lapply.  Checks
# what the report holds, not how fast anything went: exit 0, a table
# with a whole and a delta row per level (6 and auto by default), files
# by delta and the store's hits on the delta rows, fewer bytes on the
# wire by delta than whole; the CSV (its columns, a line per level and
# mode, the counters).  Then the usage errors: a missing tree, one tree,
# a file for a tree, -d beside --update (exit 2, the message naming the
# problem), and --help listing --update.
. "$top_srcdir/tests/integ/lib.sh"
need_zstd

need_tool cairnd cairn-publish ktcheck lapply fsdiff cairn-bench
mk_tmpdir

O=$T/OLD N=$T/NEW
mkdir -p "$O/etc" "$O/usr/lib" "$O/var/log"
# Program-like files: slices of cairn-bench itself, 200 KB each.
for i in 1 2 3 4 5 6 7 8; do
	{ head -c 200000 "$CAIRN_BENCH"; echo "lib $i"; } >"$O/usr/lib/lib$i.so"
done
for i in 1 2 3 4 5 6; do
	seq 1 $((i * 3000)) | sed "s/^/conf $i line /" >"$O/etc/conf$i"
done
seq 1 20000 >"$O/var/log/old.log"
ln -s lib1.so "$O/usr/lib/link.so"
cp -pR "$O" "$N" || fail "cp OLD NEW"
# Changed in place (each has its old version at its path: a basis).
for i in 1 2 3; do
	echo "patched $i" >>"$N/usr/lib/lib$i.so"
done
sed 's/line 100$/line one hundred/' "$O/etc/conf4" >"$N/etc/conf4"
touch -r "$O/etc/conf4" "$N/etc/conf4"
# Moved, removed, added.
mv "$N/etc/conf5" "$N/etc/conf5.d"
rm "$N/var/log/old.log"
seq 5 30000 >"$N/var/log/new.log"

run_capture "$T/out" "$T/err" "$CAIRN_BENCH" -q -B "$top_builddir" \
    -w "$T/work" -L loopback -n 1 --csv "$T/u.csv" --update "$O" "$N"
if [ "$RC" -ne 0 ]; then
	cat "$T/out" "$T/err" >&2
	fail "cairn-bench --update exited $RC"
fi
cat "$T/out"

# The summary, the build of the deltas, a table for the link.
grep -q "^cairn-bench: update from $O (15 files, [0-9.]* MB) to $N (15 files, [0-9.]* MB); levels 6,auto; whole and delta; 1 run each\$" \
    "$T/out" || fail "no summary line"
grep -q '^cairn-publish -d built the deltas in [0-9.]* s of CPU ([0-9.]* s wall)$' \
    "$T/out" || fail "no line on building the deltas"
grep -q '^loopback (unshaped, rtt 0 ms)$' "$T/out" || fail "no table"
grep -q '^  level  *mode  *time s  *srv cpu  *down MB  *up MB  *deltas  *delta MB  *whole MB  *failed  *hits  *misses$' \
    "$T/out" || fail "no table header"
for l in 6 auto; do
	grep -q "^  $l  *whole  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *-  *-  *-  *-  *-  *-\$" \
	    "$T/out" || fail "-Z $l: no whole row"
	# Files by delta (the four changed in place at least), none failed,
	# as many hits of the store.
	awk -v l="$l" '$1 == l && $2 == "delta" {
	    n++; if (!($7 >= 4 && $10 == 0 && $11 == $7)) bad = 1 }
	    END { exit bad || n != 1 }' "$T/out" ||
	    fail "-Z $l: no delta row with files by delta: $(grep "^  $l " "$T/out")"
done
grep -q '^  delta/whole: -Z 6 [0-9.]*x the bytes, [0-9.]*x the time ([a-z0-9% ]*); -Z auto [0-9.]*x the bytes, [0-9.]*x the time ([a-z0-9% ]*)$' \
    "$T/out" || fail "no line of ratios"
grep -q '^  best on loopback: \(whole\|delta\) -Z \(6\|auto\), [0-9.]* s (\(whole\|delta\) at the same level: [0-9.]* s, [0-9.]*x)$' \
    "$T/out" || fail "no best line"

# The CSV: its columns, a line per level and mode, every cell filled.
assert_eq "link,rate_bit_s,rtt_ms,level,mode,runs,time_median_s,\
time_min_s,time_max_s,lapply_median_s,server_cpu_s,client_cpu_s,\
wire_down_bytes,wire_up_bytes,delta_files,delta_wire_bytes,\
delta_whole_bytes,delta_failed,store_requests,store_hits,\
store_delta_bytes,store_misses,wire_ratio,time_ratio,build_cpu_s" \
    "$(head -1 "$T/u.csv")" "CSV header"
assert_eq "6,whole 6,delta auto,whole auto,delta" \
    "$(sed 1d "$T/u.csv" | cut -d, -f4,5 | tr '\n' ' ' | sed 's/ $//')" \
    "CSV rows"
awk -F, 'NR > 1 { for (i = 1; i <= 25; i++) if ($i == "") bad = 1;
    if (NF != 25 || $1 != "loopback" || $6 != 1) bad = 1 } END { exit bad }' \
    "$T/u.csv" || fail "CSV: a row with an empty or missing cell"
# Whole: nothing by delta, no ratio.  By delta: files by delta, their
# bytes on the wire fewer than whole, none failed, every request of the
# store a hit, and fewer bytes on the wire than the whole pull of the
# same level (wire_ratio below 1).
awk -F, 'NR > 1 && $5 == "whole" { w[$4] = $13 + $14
    if ($15 != 0 || $19 != 0 || $23 != "-" || $24 != "-") exit 1 }
    NR > 1 && $5 == "delta" { n++
    if (!($15 >= 4 && $16 > 0 && $16 < $17 && $18 == 0 && $20 == $15 &&
    $19 == $20 + $22 && $23 < 1 && $13 + $14 < w[$4])) exit 1 }
    END { exit n != 2 }' "$T/u.csv" ||
    fail "CSV: the delta counters: $(cut -d, -f4,5,13- "$T/u.csv")"

# Usage errors: exit 2, the problem named.
run_capture "$T/o" "$T/e" "$CAIRN_BENCH" --update "$O" "$T/no-such-tree"
assert_eq 2 "$RC" "--update with a missing tree"
grep -q -- "--update $T/no-such-tree: No such file or directory" "$T/e" ||
    fail "missing tree: $(cat "$T/e")"
run_capture "$T/o" "$T/e" "$CAIRN_BENCH" --update "$O"
assert_eq 2 "$RC" "--update with one tree"
grep -q -- '--update takes two trees, OLD and NEW (1 given)' "$T/e" ||
    fail "one tree: $(cat "$T/e")"
run_capture "$T/o" "$T/e" "$CAIRN_BENCH" --update "$O" "$N/etc/conf1"
assert_eq 2 "$RC" "--update with a file"
grep -q -- "--update $N/etc/conf1: not a directory" "$T/e" ||
    fail "a file: $(cat "$T/e")"
run_capture "$T/o" "$T/e" "$CAIRN_BENCH" -d "$O" --update "$O" "$N"
assert_eq 2 "$RC" "--update with -d"
grep -q -- '--update pulls the trees it is given: -d and -s do not apply' \
    "$T/e" || fail "-d: $(cat "$T/e")"
run_capture "$T/o" "$T/e" "$CAIRN_BENCH" --help
assert_eq 0 "$RC" "--help"
grep -q -- '--update old new' "$T/o" || fail "--help does not list --update"
grep -q -- '--update old new$' "$T/o" || fail "--help: no --update synopsis"
end_test
