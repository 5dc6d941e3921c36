#!/bin/sh
# cairn-bench --update: an update of two small generated trees (about
# 2.8 MB: files changed in place, one moved, one removed, one added, a
# hard link added) pulled whole and by delta over loopback, one run,
# with the real cairn-publish (-k, -f, -d), cairnd, ktcheck, fsdiff and
# lapply, and by rsync -z from an rsync daemon when rsync is installed.
# Checks what the report holds, not how fast anything went: exit 0, a
# table with a whole and a delta row per level (6 and auto by default),
# each with the client's CPU and a positive peak RSS, files by delta and
# the store's hits on the delta rows, fewer bytes on the wire by delta
# than whole; the rsync row (its bytes from --stats, a positive RSS),
# the line on the server CPU by delta against building the deltas, the
# line of ratios; the CSV (its columns, a line per level and mode and
# one for rsync, the counters).  The rsync pull is checked to leave NEW:
# an rsync that drops -H (NEW's hard link then comes as a second file)
# fails the run; without rsync in PATH the report says so and has no
# rsync row.  Without rsync installed the test says so and checks the
# rest.  Then the usage errors: a missing tree, one tree, a file for a
# tree, -d beside --update (exit 2, the message naming the problem), and
# --help listing --update.
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
ln "$N/etc/conf1" "$N/etc/conf1.hard"
# rsync is optional: without it the rsync row is not there to check.
RSYNC=
if command -v rsync >/dev/null 2>&1; then
	RSYNC=$(command -v rsync)
else
	echo "rsync not installed: skipping the checks of the rsync -z row"
fi

run_capture "$T/out" "$T/err" "$CAIRN_BENCH" -q -B "$top_builddir" \
    -w "$T/work" -L loopback -n 1 --csv "$T/u.csv" --update "$O" "$N"
if [ "$RC" -ne 0 ]; then
	cat "$T/out" "$T/err" >&2
	fail "cairn-bench --update exited $RC"
fi
cat "$T/out"

# The summary, the build of the deltas, a table for the link.
[ -n "$RSYNC" ] && with=", and rsync -z" || with=
grep -q "^cairn-bench: update from $O (15 files, [0-9.]* MB) to $N (16 files, [0-9.]* MB); levels 6,auto; whole and delta$with; 1 run each\$" \
    "$T/out" || fail "no summary line"
grep -q '^cairn-publish -d built the deltas in [0-9.]* s of CPU ([0-9.]* s wall)$' \
    "$T/out" || fail "no line on building the deltas"
if [ -n "$RSYNC" ]; then
	grep -qx "rsync -z: $RSYNC, from a daemon serving $N" "$T/out" ||
	    fail "no line naming rsync"
fi
grep -q '^loopback (unshaped, rtt 0 ms)$' "$T/out" || fail "no table"
grep -q '^  level  *mode  *time s  *srv cpu  *cli cpu  *rss MiB  *down MB  *up MB  *deltas  *delta MB  *whole MB  *failed  *hits  *misses$' \
    "$T/out" || fail "no table header"
for l in 6 auto; do
	grep -q "^  $l  *whole  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *-  *-  *-  *-  *-  *-\$" \
	    "$T/out" || fail "-Z $l: no whole row"
	# Files by delta (the four changed in place at least), none failed,
	# as many hits of the store.
	awk -v l="$l" '$1 == l && $2 == "delta" {
	    n++; if (!($9 >= 4 && $12 == 0 && $13 == $9)) bad = 1 }
	    END { exit bad || n != 1 }' "$T/out" ||
	    fail "-Z $l: no delta row with files by delta: $(grep "^  $l " "$T/out")"
done
# Every row: the client's CPU and peak RSS (lapply's; rsync's) above 0.
awk '$2 == "whole" || $2 == "delta" || $2 == "rsync" {
    n++; if (!($5 > 0 && $6 > 0)) bad = 1 } END { exit bad || n < 4 }' \
    "$T/out" ||
    fail "a row without client CPU or peak RSS: $(grep '^  [-6a]' "$T/out")"
if [ -n "$RSYNC" ]; then
	# rsync's row: its time, bytes down (--stats); nothing by delta.
	grep -q '^  -  *rsync  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *[0-9.]*  *-  *-  *-  *-  *-  *-$' \
	    "$T/out" || fail "no rsync row: $(grep rsync "$T/out")"
	awk '$2 == "rsync" { n++; if (!($3 > 0 && $7 > 0)) bad = 1 }
	    END { exit bad || n != 1 }' "$T/out" ||
	    fail "rsync row: $(grep '^  -  *rsync' "$T/out")"
	ratios='^  ratios: bytes, delta -Z 6 / whole -Z 6 [0-9.]*, / rsync -z [0-9.]*; time, delta -Z auto / whole -Z auto [0-9.]*, / whole -Z 6 [0-9.]*; client peak RSS, delta -Z auto - whole -Z 6: [-+][0-9.]* MiB$'
else
	ratios='^  ratios: bytes, delta -Z 6 / whole -Z 6 [0-9.]*; time, delta -Z auto / whole -Z auto [0-9.]*, / whole -Z 6 [0-9.]*; client peak RSS, delta -Z auto - whole -Z 6: [-+][0-9.]* MiB$'
fi
grep -q '^  delta/whole: -Z 6 [0-9.]*x the bytes, [0-9.]*x the time ([a-z0-9% ]*); -Z auto [0-9.]*x the bytes, [0-9.]*x the time ([a-z0-9% ]*)$' \
    "$T/out" || fail "no line of delta/whole ratios"
grep -q '^  server CPU by delta, the deltas built once in [0-9.]* s of CPU: -Z 6 [0-9.]* s ([0-9.]* of building them); -Z auto [0-9.]* s ([0-9.]* of building them)$' \
    "$T/out" || fail "no line on the server CPU by delta against building"
grep -q "$ratios" "$T/out" || fail "no line of the update's ratios"
grep -q '^  best on loopback: \(whole\|delta\) -Z \(6\|auto\), [0-9.]* s (\(whole\|delta\) at the same level: [0-9.]* s, [0-9.]*x)$' \
    "$T/out" || fail "no best line"

# The CSV: its columns, a line per level and mode, every cell filled.
assert_eq "link,rate_bit_s,rtt_ms,level,mode,runs,time_median_s,\
time_min_s,time_max_s,lapply_median_s,server_cpu_s,client_cpu_s,\
wire_down_bytes,wire_up_bytes,delta_files,delta_wire_bytes,\
delta_whole_bytes,delta_failed,store_requests,store_hits,\
store_delta_bytes,store_misses,wire_ratio,time_ratio,build_cpu_s,\
client_peak_rss_kib" \
    "$(head -1 "$T/u.csv")" "CSV header"
[ -n "$RSYNC" ] && with=" -,rsync" || with=
assert_eq "6,whole 6,delta auto,whole auto,delta$with" \
    "$(sed 1d "$T/u.csv" | cut -d, -f4,5 | tr '\n' ' ' | sed 's/ $//')" \
    "CSV rows"
awk -F, 'NR > 1 { for (i = 1; i <= 26; i++) if ($i == "") bad = 1;
    if (NF != 26 || $1 != "loopback" || $6 != 1 || !($26 > 0)) bad = 1 }
    END { exit bad }' "$T/u.csv" ||
    fail "CSV: a row with an empty or missing cell, or no peak RSS"
if [ -n "$RSYNC" ]; then
	# rsync: time, server and client CPU, bytes down; no lapply, no deltas.
	awk -F, '$5 == "rsync" { n++; if (!($7 > 0 && $11 >= 0 && $12 > 0 &&
	    $13 > 0 && $10 == "-" && $15 == "-" && $24 == "-")) bad = 1 }
	    END { exit bad || n != 1 }' "$T/u.csv" ||
	    fail "CSV: the rsync line: $(grep ',rsync,' "$T/u.csv")"
fi
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

if [ -n "$RSYNC" ]; then
	# An rsync that leaves a tree other than NEW fails the run: this one
	# drops -H, so NEW's hard link comes as a file of its own.
	mkdir "$T/bin"
	{
		echo '#!/bin/sh'
		echo 'for a; do'
		echo '	shift'
		echo '	[ "$a" = -H ] || set -- "$@" "$a"'
		echo 'done'
		echo "exec '$RSYNC' \"\$@\""
	} >"$T/bin/rsync"
	chmod +x "$T/bin/rsync"
	run_capture "$T/o" "$T/e" env PATH="$T/bin:$PATH" "$CAIRN_BENCH" -q \
	    -B "$top_builddir" -w "$T/work-h" -L loopback -n 1 -l 6 \
	    --update "$O" "$N"
	assert_eq 1 "$RC" "an rsync without -H"
	grep -q "loopback rsync -z: $T/work-h/run/root differs from the loadset it should hold" \
	    "$T/e" || fail "rsync without -H: $(cat "$T/e")"
	grep -q 'conf1.hard' "$T/e" ||
	    fail "rsync without -H: the hard link is not named: $(cat "$T/e")"
fi
# Without rsync in PATH: a line says so, and there is no rsync row.
run_capture "$T/o" "$T/e" env PATH=/nonexistent "$CAIRN_BENCH" -q \
    -B "$top_builddir" -w "$T/work-n" -L loopback -n 1 -l 6 \
    --update "$O" "$N"
if [ "$RC" -ne 0 ]; then
	cat "$T/o" "$T/e" >&2
	fail "cairn-bench --update without rsync exited $RC"
fi
grep -qx 'rsync not installed: no rsync -z row' "$T/o" ||
    fail "without rsync: no line saying so"
grep -q '^  -  *rsync' "$T/o" && fail "without rsync: an rsync row"
grep -q '^  ratios: bytes, delta -Z 6 / whole -Z 6 [0-9.]*$' "$T/o" ||
    fail "without rsync (-l 6): the line of ratios: $(grep ratios "$T/o")"

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
