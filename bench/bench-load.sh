#!/bin/bash
# bench-load.sh: many concurrent pulls from one cairnd on loopback while a
# hostile client floods it with connections and another trickles a line.
#
# Run through `make bench` or `make bench-load`, or by hand with
# top_builddir, top_srcdir and BENCH_DATA set.  A small corpus (the
# loadset, $BENCH_LOAD_SIZE, default 8M: about 200 files; generated
# and cached in $BENCH_DATA) is published in a scratch
# repository served by one cairnd (-Z 9 -m $BENCH_LOAD_MAX -s
# $BENCH_LOAD_PERADDR -t $BENCH_LOAD_LINETIME, default 20) on 127.0.0.1.
# Then, all started at once:
#
#   - $BENCH_LOAD_CLIENTS (default 200) honest clients from 127.0.0.1, each
#     pulling into its own empty root with its own command directory:
#	ktcheck -Z L; fsdiff -A -c sha1; lapply -Z L -c sha1
#     at L = 0, 1, 6, 9 in turn;
#   - bench/load-flood.py from 127.0.0.2: rounds of up to $BENCH_LOAD_FLOOD
#     connections opened at once and held for 10 s, then closed;
#   - bench/load-trickle.py from 127.0.0.3: one byte a second of a line
#     that never ends, on one connection at a time.
#
# The hostile clients use other loopback addresses than the honest ones
# (Linux routes all of 127/8 to lo, and cairnd listening on 127.0.0.1
# accepts connections from any of them), so the per-address cap -s limits
# the flood without touching the honest clients.  -s defaults to twice
# the honest clients plus 50, as a client's ktcheck session may still be
# counted when its lapply connects; -m to twice -s plus 10, above the
# honest load plus the flood held to -s.
#
# Everything is bounded: the honest clients run under timeout(1) against
# one deadline ($BENCH_LOAD_DEADLINE seconds, default 600); a client not
# done by then is killed and counted as an error.  A client error is a
# ktcheck exit other than 0 or 1 (updated), any non-zero exit of fsdiff or
# lapply, or a root that differs from the loadset (diff -r
# --no-dereference for contents; fsdiff -C -c sha1 of the root against the published transcript for
# contents, types, modes, owners, sizes and mtimes).
#
# Printed: errors, p50/p99 pull time (ktcheck + fsdiff + lapply wall time
# of each client that succeeded), peak RSS of the daemon and its session
# processes (the sum of their RSS from ps every 0.5 s; shared pages count
# once per process, so this overstates memory), the daemon's CPU time
# (time(1) on the listening process: its own user and system time plus
# that of every session process it reaped, waited for before it stops),
# the flood connections accepted and refused, and when the trickler was
# closed.  The figures are appended to $top_builddir/bench-load.txt, the
# daemon's log is left in $top_builddir/bench-load.log.
# Figures only: nothing here passes or fails on speed.
BENCH_NAME=bench-load
. "${top_srcdir:?top_srcdir must be set}/bench/benchlib.sh"
SIZE=${BENCH_LOAD_SIZE:-8M}
NCLI=${BENCH_LOAD_CLIENTS:-200}
DEADLINE=${BENCH_LOAD_DEADLINE:-600}
# Each honest client holds at most two sessions at once: its ktcheck
# session may not have exited (or been reaped) yet when its lapply
# connects, which on a loaded machine takes seconds.  -s covers that with
# room to spare, and -m covers the honest clients plus a flood held to -s.
PERADDR=${BENCH_LOAD_PERADDR:-$((2 * NCLI + 50))}
MAXCONN=${BENCH_LOAD_MAX:-$((2 * PERADDR + 10))}
NFLOOD=${BENCH_LOAD_FLOOD:-500}
LINETIME=${BENCH_LOAD_LINETIME:-20}
LEVELS=(0 1 6 9)
bench_need bench/cairn-bench server/cairnd client/ktcheck client/fsdiff \
    client/lapply
command -v timeout >/dev/null || {
	echo "$BENCH_NAME: timeout(1) is required (coreutils)" >&2
	exit 1
}
corpus=$(bench_corpus "$SIZE")

# The flood holds up to $NFLOOD sockets in one process.
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt $((NFLOOD + 64)) ]; then
	ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-load.XXXXXX")
srvpid= floodpid= tricklepid= samplerpid=
cleanup()
{
	local p
	for p in "$floodpid" "$tricklepid" "$samplerpid"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null || true
	done
	[ -n "$srvpid" ] && kill "$(cat "$tmp/cairnd.pid" 2>/dev/null)" 2>/dev/null || true
	wait 2>/dev/null || true
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 130' HUP INT TERM

# Repository: transcript of the loadset, its files hard-linked into file/.
bench_repo "$corpus" load.T
cat "$R/file/load.T"/*/* >/dev/null 2>&1 || true

start_server -m "$MAXCONN" -s "$PERADDR" -t "$LINETIME"
dpid=$(cat "$tmp/cairnd.pid")

# sampler: peak of the summed RSS (KiB) of the daemon and its children,
# and of the number of children, every 0.5 s; bounded by the deadline.
sampler()
{
	local n=0 max=$(((DEADLINE + 120) * 2)) rss kids peak=0 peakk=0
	while [ ! -e "$tmp/sampler.stop" ] && [ "$n" -lt "$max" ]; do
		read -r rss kids < <(ps -o rss= -p "$dpid" --ppid "$dpid" |
		    awk '{ s += $1; n++ } END { print s + 0, (n > 0 ? n - 1 : 0) }')
		[ "$rss" -gt "$peak" ] && peak=$rss
		[ "$kids" -gt "$peakk" ] && peakk=$kids
		echo "$peak $peakk" >"$tmp/sampler.out"
		n=$((n + 1))
		sleep 0.5
	done
}

# client I: one honest pull; writes "I L START END KTCHECK FSDIFF LAPPLY"
# to $tmp/c/I/result.
client()
{
	local i=$1 L=${LEVELS[$(($1 % 4))]} d=$tmp/c/$1 s e k=0 f=0 a=0
	mkdir -p "$d/cmd" "$d/root"
	s=$(date +%s.%N)
	timeout -k 5 "$(left)" "$B/client/ktcheck" -q -h 127.0.0.1 -p "$PORT" \
	    -Z "$L" -c sha1 -K "$d/cmd/command.K" >"$d/log" 2>&1 || k=$?
	if [ "$k" -le 1 ]; then
		(cd "$d/root" && timeout -k 5 "$(left)" "$B/client/fsdiff" -A \
		    -c sha1 -K "$d/cmd/command.K" -o "$d/apply.T" .) \
		    >>"$d/log" 2>&1 || f=$?
	else
		f=-
	fi
	if [ "$f" = 0 ]; then
		(cd "$d/root" && timeout -k 5 "$(left)" "$B/client/lapply" -q \
		    -h 127.0.0.1 -p "$PORT" -Z "$L" -c sha1 "$d/apply.T") \
		    >>"$d/log" 2>&1 || a=$?
	else
		a=-
	fi
	e=$(date +%s.%N)
	echo "$i $L $s $e $k $f $a" >"$d/result"
}

# left: seconds until the deadline, at least 1.
left()
{
	local l=$((tend - $(date +%s)))
	[ "$l" -lt 1 ] && l=1
	echo "$l"
}

echo "cairn load benchmark: $NCLI clients, $nfiles files, $((raw / 1000)) kB" \
    "each, loopback, $(nproc) CPUs"
echo "cairnd -Z 9 -m $MAXCONN -s $PERADDR -t $LINETIME on 127.0.0.1;" \
    "honest clients from 127.0.0.1, flood ($NFLOOD at a time) from" \
    "127.0.0.2, trickle from 127.0.0.3"

sampler &
samplerpid=$!
tstart=$(date +%s)
tend=$((tstart + DEADLINE))
python3 "$top_srcdir/bench/load-flood.py" 127.0.0.1 "$PORT" 127.0.0.2 \
    "$NFLOOD" 10 "$DEADLINE" >"$tmp/flood.out" 2>&1 &
floodpid=$!
python3 "$top_srcdir/bench/load-trickle.py" 127.0.0.1 "$PORT" 127.0.0.3 \
    "$DEADLINE" >"$tmp/trickle.out" 2>&1 &
tricklepid=$!
# let the flood take its share first
sleep 1
t0=$(date +%s.%N)
declare -a cpids=()
for i in $(seq 1 "$NCLI"); do
	client "$i" &
	cpids+=($!)
done
# Every client is bounded by timeout(1); this wait is bounded as well.
for p in "${cpids[@]}"; do
	while kill -0 "$p" 2>/dev/null && [ "$(date +%s)" -lt $((tend + 15)) ]; do
		sleep 1
	done
	kill -0 "$p" 2>/dev/null && kill -KILL "$p" 2>/dev/null || true
done
t1=$(date +%s.%N)

# A short run may end before the line time: give the trickler (bounded)
# time to see its first connection closed.
while ! grep -q 'closed after' "$tmp/trickle.out" &&
    [ "$(date +%s)" -lt $((tstart + LINETIME + 10)) ]; do
	sleep 1
done
kill -TERM "$floodpid" "$tricklepid" 2>/dev/null || true
wait "$floodpid" "$tricklepid" 2>/dev/null || true
floodpid= tricklepid=
# Wait (bounded) for the daemon to reap every session, so that time(1)
# counts their CPU time, then stop it.
for _ in $(seq 100); do
	[ -z "$(ps -o pid= --ppid "$dpid")" ] && break
	sleep 0.2
done
touch "$tmp/sampler.stop"
wait "$samplerpid" 2>/dev/null || true
samplerpid=
stop_server
cp "$tmp/srv.log" "$top_builddir/bench-load.log"

# Verify every root: contents with diff -r, and the whole transcript
# (types, modes, owners, sizes, mtimes, SHA-1) with fsdiff -C.
grep -v '^f \./MANIFEST\.txt' "$R/transcript/load.T" >"$tmp/want.T"
errs=0 killed=0 bad=0
: >"$tmp/times" >"$tmp/errors"
for i in $(seq 1 "$NCLI"); do
	d=$tmp/c/$i
	if [ ! -s "$d/result" ]; then
		echo "client $i: no result" >>"$tmp/errors"
		errs=$((errs + 1))
		killed=$((killed + 1))
		continue
	fi
	read -r _ L s e k f a <"$d/result"
	if [ "$k" -gt 1 ] || [ "$f" != 0 ] || [ "$a" != 0 ]; then
		echo "client $i (-Z $L): ktcheck $k fsdiff $f lapply $a:" \
		    "$(tail -n 1 "$d/log")" >>"$tmp/errors"
		errs=$((errs + 1))
		case " $k $f $a " in *" 124 "*|*" 137 "*) killed=$((killed + 1)) ;; esac
		continue
	fi
	if ! diff -r -q --no-dereference --exclude=MANIFEST.txt "$corpus" \
	    "$d/root" >/dev/null 2>&1 ||
	    ! (cd "$d/root" && "$B/client/fsdiff" -C -c sha1 -K "$tmp/empty.K" .) |
	    cmp -s - "$tmp/want.T"; then
		echo "client $i (-Z $L): pulled tree differs from the loadset" \
		    >>"$tmp/errors"
		errs=$((errs + 1))
		bad=$((bad + 1))
		continue
	fi
	echo "$s $e $L" >>"$tmp/times"
done
nok=$(wc -l <"$tmp/times")

read -r srvu srvs <"$tmp/srv.time"
read -r peakrss peakkids <"$tmp/sampler.out" 2>/dev/null || peakrss=0 peakkids=0
flood=$(tail -n 1 "$tmp/flood.out")
faccepted=$(echo "$flood" | sed -n 's/.* accepted \([0-9]*\).*/\1/p')
frefused=$(echo "$flood" | sed -n 's/.* refused \([0-9]*\).*/\1/p')
ffailed=$(echo "$flood" | sed -n 's/.* failed \([0-9]*\).*/\1/p')
fdropped=$(echo "$flood" | sed -n 's/.* dropped \([0-9]*\).*/\1/p')
funans=$(echo "$flood" | sed -n 's/.* unanswered \([0-9]*\).*/\1/p')
fpeak=$(echo "$flood" | sed -n 's/.* peak-held \([0-9]*\).*/\1/p')
frounds=$(echo "$flood" | sed -n 's/.* rounds \([0-9]*\).*/\1/p')
tfirst=$(tail -n 1 "$tmp/trickle.out" | sed -n 's/.* first-close \([^ ]*\).*/\1/p')
tclosed=$(tail -n 1 "$tmp/trickle.out" | sed -n 's/.* closed-by-server \([0-9]*\).*/\1/p')
treply=$(grep -m 1 'closed after' "$tmp/trickle.out" | sed 's/.*reply: //' || true)
refs=$(grep -c 'from 127.0.0.2 refused' "$tmp/srv.log" || true)
refh=$(grep -c 'from 127.0.0.1 refused' "$tmp/srv.log" || true)
busy=$(grep -c 'refused: server busy' "$tmp/srv.log" || true)

# p50/p99 (nearest rank) of the pull time, overall and per level.
pct()
{
	sort -n | awk -v p="$1" '{ v[NR] = $1 } END {
		if (NR == 0) { print "-"; exit }
		r = int(p / 100 * NR + 0.999999); if (r < 1) r = 1
		printf "%.2f\n", v[r] }'
}
p50=$(awk '{ print $2 - $1 }' "$tmp/times" | pct 50)
p99=$(awk '{ print $2 - $1 }' "$tmp/times" | pct 99)
wall=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
cpu=$(awk -v u="$srvu" -v s="$srvs" 'BEGIN { printf "%.2f", u + s }')

echo
printf '%-6s %8s %8s %8s %8s\n' level clients ok p50_s p99_s
for L in "${LEVELS[@]}"; do
	n=0
	for i in $(seq 1 "$NCLI"); do
		[ "${LEVELS[$((i % 4))]}" = "$L" ] && n=$((n + 1))
	done
	printf '%-6s %8d %8d %8s %8s\n' "-Z $L" "$n" \
	    "$(awk -v L="$L" '$3 == L' "$tmp/times" | wc -l)" \
	    "$(awk -v L="$L" '$3 == L { print $2 - $1 }' "$tmp/times" | pct 50)" \
	    "$(awk -v L="$L" '$3 == L { print $2 - $1 }' "$tmp/times" | pct 99)"
done
printf '%-6s %8d %8d %8s %8s\n' all "$NCLI" "$nok" "$p50" "$p99"
echo
{
	echo "load $(date -u +%Y-%m-%dT%H:%M:%SZ): $NCLI clients, $nfiles files," \
	    "$((raw / 1000)) kB each, $(nproc) CPUs"
	echo "honest-client errors: $errs of $NCLI ($killed killed at the" \
	    "${DEADLINE} s deadline, $bad trees differing)"
	echo "pull time (ktcheck+fsdiff+lapply): p50 $p50 s, p99 $p99 s;" \
	    "all $NCLI done in $wall s"
	echo "daemon peak RSS: $((peakrss / 1024)) MiB summed over the daemon" \
	    "and up to $peakkids sessions"
	echo "daemon CPU time: $cpu s (user $srvu, system $srvs; with every" \
	    "reaped session)"
	echo "flood connections: $faccepted accepted, $frefused refused," \
	    "$fdropped dropped, $funans unanswered within 10 s," \
	    "${ffailed:-0} failed locally in ${frounds:-0} rounds of up to" \
	    "$NFLOOD (at most $fpeak held at once); cairnd logged $refs" \
	    "-s refusals of 127.0.0.2, $refh of 127.0.0.1, $busy -m refusals"
	echo "trickler: first closed after ${tfirst:-never} s (-t $LINETIME)," \
	    "reply '${treply:-none}'; closed $tclosed times"
} | tee -a "$top_builddir/bench-load.txt"
if [ -s "$tmp/errors" ]; then
	echo
	echo "client errors (first 10):"
	head -n 10 "$tmp/errors"
fi
