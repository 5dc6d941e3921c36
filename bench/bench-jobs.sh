#!/bin/bash
# bench-jobs.sh: lapply -j, downloads over several sessions.  A pull of
# the standard corpus ($BENCH_JOBS_SIZE MB, default 64; made by the one
# corpus generator and cached in $BENCH_DATA) from cairnd -Z 9 on
# loopback with
#   lapply -Z $BENCH_JOBS_LEVEL (default 6) -j N
# for N in $BENCH_JOBS_N (default "1 4"), $BENCH_JOBS_RUNS runs each
# (default 3, interleaved), into a fresh empty root each time.  Printed:
# every run's wall time and CPU seconds, then per N the median wall
# time, the throughput and its ratio to -j 1.  For reference (unless
# BENCH_JOBS_REF=0), as many independent lapply -j 1 pulls at once as
# there are CPUs: the speedup the machine itself gives two unrelated
# sessions at that moment, the most -j can hope for.  Figures only:
# nothing here passes or fails on speed.
#
# Run through `make bench`, or by hand with top_builddir, top_srcdir and
# BENCH_DATA set.
BENCH_NAME=bench-jobs
. "${top_srcdir:?top_srcdir must be set}/bench/benchlib.sh"
SIZE=${BENCH_JOBS_SIZE:-64}
LEVEL=${BENCH_JOBS_LEVEL:-6}
JOBS=${BENCH_JOBS_N:-1 4}
RUNS=${BENCH_JOBS_RUNS:-3}
bench_need server/cairnd client/ktcheck client/fsdiff client/lapply

corpus=$(bench_corpus "${SIZE}M")
bench_scratch jobs
bench_repo "$corpus" jobs.T
bench_client

echo "cairn lapply -j benchmark: $nfiles files, $((raw / 1000000)) MB (standard corpus)," \
    "cairnd -Z 9, lapply -Z $LEVEL, loopback, $(nproc) CPUs"
printf '%-4s %4s %8s %8s %8s %8s\n' -j run wall_s srv_cpu cli_cpu MB/s

# pull N RUN: one timed lapply -j N into a fresh root; appends the wall
# time to $tmp/wall.N.  The roots stay until the end: on ext4, creating
# files right after many were deleted costs a scan of the recently freed
# inodes, which would bill one run for the one before.
NRUN=0
pull()
{
	local n=$1 run=$2 root s e su ss cu cs
	NRUN=$((NRUN + 1))
	root=$tmp/roots/$NRUN
	mkdir -p "$root"
	sync
	sleep "${BENCH_JOBS_SETTLE:-2}"
	start_server
	s=$(date +%s.%N)
	(cd "$root" && /usr/bin/time -f '%U %S' -o "$tmp/cli.time" \
	    "$B/client/lapply" -q -h 127.0.0.1 -p "$PORT" -Z "$LEVEL" \
	    -j "$n" "$tmp/apply.T")
	e=$(date +%s.%N)
	stop_server
	read -r su ss <"$tmp/srv.time"
	read -r cu cs <"$tmp/cli.time"
	python3 -c "
import sys
s, e, su, ss, cu, cs, raw = map(float, sys.argv[3:10])
w = e - s
print('%-4s %4s %8.2f %8.2f %8.2f %8.1f' % (sys.argv[1], sys.argv[2], w,
    su + ss, cu + cs, raw / 1e6 / w))
with open(sys.argv[10], 'a') as f:
    f.write('%f %f\n' % (w, su + ss + cu + cs))
" "$n" "$run" "$s" "$e" "$su" "$ss" "$cu" "$cs" "$raw" "$tmp/wall.$n"
	if ! diff -r -q --no-dereference -x MANIFEST.txt "$corpus" "$root" \
	    >/dev/null; then
		echo "$BENCH_NAME: -j $n: pulled tree differs from the corpus" >&2
		exit 1
	fi
}

# par RUN: the machine's own parallel capacity, for reference: as many
# independent lapply -j 1 pulls at once as there are CPUs, each into its
# own root; appends the wall time for all of them to $tmp/par.
par()
{
	local k ncpu s e pids=()
	ncpu=$(nproc)
	NRUN=$((NRUN + 1))
	for k in $(seq "$ncpu"); do
		mkdir -p "$tmp/roots/$NRUN.$k"
	done
	sync
	sleep "${BENCH_JOBS_SETTLE:-2}"
	start_server
	s=$(date +%s.%N)
	for k in $(seq "$ncpu"); do
		(cd "$tmp/roots/$NRUN.$k" && "$B/client/lapply" -q \
		    -h 127.0.0.1 -p "$PORT" -Z "$LEVEL" "$tmp/apply.T") &
		pids+=("$!")
	done
	wait "${pids[@]}"
	e=$(date +%s.%N)
	stop_server
	python3 -c "print('%f' % ($e - $s))" >>"$tmp/par"
}

for run in $(seq "$RUNS"); do
	for n in $JOBS; do
		pull "$n" "$run"
	done
	[ "${BENCH_JOBS_REF:-1}" = 0 ] || par "$run"
done

echo
first=${JOBS%% *}
python3 - "$raw" "$first" "$tmp" "$(nproc)" $JOBS <<'PY'
import statistics, sys
raw, first, tmp = float(sys.argv[1]), sys.argv[2], sys.argv[3]
ncpu = int(sys.argv[4])
med, floor = {}, {}
for n in sys.argv[5:]:
    with open('%s/wall.%s' % (tmp, n)) as f:
        rows = [tuple(map(float, x.split())) for x in f]
    med[n] = statistics.median(r[0] for r in rows)
    floor[n] = statistics.median(r[1] for r in rows) / ncpu
for n in sys.argv[5:]:
    print('-j %-2s median wall %6.2f s  %6.1f MB/s  throughput %.2fx of -j %s'
          '  (CPU floor %.2f s)' % (n, med[n], raw / 1e6 / med[n],
          med[first] / med[n], first, floor[n]))
print('CPU floor: server and client CPU seconds over %d CPUs, the least wall'
      ' time the run could take with nothing else running.' % ncpu)
try:
    with open('%s/par' % tmp) as f:
        par = statistics.median(float(x) for x in f)
except OSError:
    par = None
if par is not None:
    # Per tree pulled: the speedup the machine itself allows right now.
    print('reference: %d independent -j 1 pulls at once, median %.2f s for'
          ' all: %.1f MB/s, %.2fx of one -j %s' % (ncpu, par,
          ncpu * raw / 1e6 / par, med[first] * ncpu / par, first))
PY
