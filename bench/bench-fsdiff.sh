#!/bin/bash
# bench-fsdiff.sh: fsdiff -C -c sha1 throughput against sha1sum, and peak RSS.
#
# Run through `make bench`, or by hand with top_builddir, top_srcdir and
# BENCH_DATA set.  Generates (once, cached in $BENCH_DATA) a tree of
# $BENCH_FILES small files with cairn-bench --make-corpus --files, warms
# the page cache, then times, alternately (A B A B ...), $BENCH_ROUNDS
# rounds of
#   A: fsdiff -C -c sha1 -K <empty command file> .
#   B: find . -type f -print0 | xargs -0 sha1sum
# and prints the medians: files/s, MB/s, the wall time ratio A/B and the
# peak RSS of fsdiff.  Then the peak RSS of fsdiff on $BENCH_FILES_BIG files.
# Figures only: nothing here passes or fails on speed.
BENCH_NAME=bench
. "${top_srcdir:?top_srcdir must be set}/bench/benchlib.sh"
BENCH_FILES=${BENCH_FILES:-100000}
BENCH_FILES_BIG=${BENCH_FILES_BIG:-400000}
BENCH_ROUNDS=${BENCH_ROUNDS:-3}
BENCH_SEED=${BENCH_SEED:-1}

FSDIFF=$B/client/fsdiff
for t in "$FSDIFF" "$B/bench/cairn-bench"; do
	[ -x "$t" ] || { echo "bench: $t not built (run make first)" >&2; exit 1; }
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-bench.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' HUP INT TERM
: >"$tmp/empty.K"

# warm DIR: read every file once so all timed runs start from a warm cache.
warm()
{
	(cd "$1" && find . -type f -print0 | xargs -0 cat >/dev/null)
}

now_ns()
{
	date +%s%N
}

# rss_run OUT CMD...: run CMD (stdout to /dev/null); write its peak RSS in
# KiB to OUT.  Exit status is CMD's.
if [ -x /usr/bin/time ]; then
	rss_run()
	{
		local out=$1
		shift
		/usr/bin/time -f %M -o "$out" "$@" >/dev/null
	}
else
	rss_run()
	{
		local out=$1
		shift
		python3 -c 'import os, subprocess, sys
p = subprocess.Popen(sys.argv[2:], stdout=subprocess.DEVNULL)
_, status, ru = os.wait4(p.pid, 0)
open(sys.argv[1], "w").write("%d\n" % ru.ru_maxrss)
sys.exit(os.waitstatus_to_exitcode(status) & 0xff)' "$out" "$@"
	}
fi

run_fsdiff()
{
	(cd "$1" && rss_run "$tmp/rss" "$FSDIFF" -C -c sha1 -K "$tmp/empty.K" .)
}

run_sha1sum()
{
	(cd "$1" && find . -type f -print0 | xargs -0 sha1sum >/dev/null)
}

median()
{
	sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}

# check_transcript DIR N: one untimed run; the transcript must list N files.
check_transcript()
{
	local got
	(cd "$1" && "$FSDIFF" -C -c sha1 -K "$tmp/empty.K" .) >"$tmp/out.T" ||
	    { echo "bench: fsdiff failed in $1" >&2; exit 1; }
	got=$(grep -c '^f ' "$tmp/out.T" || true)
	if [ "$got" -ne "$2" ]; then
		echo "bench: fsdiff listed $got files in $1, expected $2" >&2
		exit 1
	fi
}

dir=$(bench_files "$BENCH_FILES")
bytes=$(find "$dir" -type f -printf '%s\n' | awk '{ s += $1 } END { printf "%d", s }')
warm "$dir"
check_transcript "$dir" "$BENCH_FILES"
run_sha1sum "$dir"

: >"$tmp/a"
: >"$tmp/b"
: >"$tmp/rssa"
for r in $(seq 1 "$BENCH_ROUNDS"); do
	t0=$(now_ns)
	run_fsdiff "$dir" || { echo "bench: fsdiff failed" >&2; exit 1; }
	t1=$(now_ns)
	cat "$tmp/rss" >>"$tmp/rssa"
	run_sha1sum "$dir"
	t2=$(now_ns)
	echo $((t1 - t0)) >>"$tmp/a"
	echo $((t2 - t1)) >>"$tmp/b"
	echo "bench: round $r: fsdiff $(awk -v n=$((t1 - t0)) 'BEGIN { printf "%.3f", n / 1e9 }') s," \
	    "sha1sum $(awk -v n=$((t2 - t1)) 'BEGIN { printf "%.3f", n / 1e9 }') s" >&2
done
ta=$(median <"$tmp/a")
tb=$(median <"$tmp/b")
rss=$(sort -n "$tmp/rssa" | tail -n 1)

echo "fsdiff -C -c sha1 on $BENCH_FILES files, $bytes bytes, warm cache, median of $BENCH_ROUNDS (A B alternating):"
awk -v ta="$ta" -v tb="$tb" -v n="$BENCH_FILES" -v b="$bytes" -v rss="$rss" 'BEGIN {
	sa = ta / 1e9; sb = tb / 1e9
	printf "  fsdiff:            %8.3f s  %10.0f files/s  %8.1f MB/s  peak RSS %d KiB\n", sa, n / sa, b / sa / 1e6, rss
	printf "  find|xargs sha1sum: %7.3f s  %10.0f files/s  %8.1f MB/s\n", sb, n / sb, b / sb / 1e6
	printf "  wall time ratio fsdiff/sha1sum: %.2f\n", sa / sb
}'

big=$(bench_files "$BENCH_FILES_BIG")
warm "$big"
t0=$(now_ns)
run_fsdiff "$big" || { echo "bench: fsdiff failed in $big" >&2; exit 1; }
t1=$(now_ns)
rssbig=$(cat "$tmp/rss")
awk -v n="$BENCH_FILES_BIG" -v rss="$rssbig" -v rss0="$rss" -v n0="$BENCH_FILES" -v t=$((t1 - t0)) 'BEGIN {
	printf "fsdiff -C -c sha1 on %d files: peak RSS %d KiB (%.2fx the %d-file figure), %.3f s\n", n, rss, rss / rss0, n0, t / 1e9
}'
