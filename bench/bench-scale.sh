#!/bin/bash
# bench-scale.sh: many clients pulling through HAProxy from three cairnd
# (one primary, two replicas kept in step by cairn-replicate) while a new
# generation of the loadset is published and one cairnd is killed and
# restarted; then the same run against one cairnd without HAProxy.
#
# Run through `make bench-scale`, or by hand with top_builddir,
# top_srcdir and BENCH_DATA set; tests/integ/t-scale-small.sh runs it
# small.  Everything runs on loopback.  The environment sets:
#
#   BENCH_SCALE_CLIENTS	clients (default 300)
#   BENCH_SCALE_SIZE	the loadset, a cairn-bench corpus (default 512K: a
#			few dozen files, generated and cached in $BENCH_DATA)
#   BENCH_SCALE_MODES	"haproxy single" (default), or one of them
#   BENCH_SCALE_DEADLINE	seconds a run may take (default 600); a client
#			not done by then is killed and counted as an error
#   BENCH_SCALE_RETRIES	RETRIES of cairn-ra auto (default 6, RETRY_DELAY 1)
#   BENCH_SCALE_RAMP_MS	the clients' starts are spread evenly over this
#			many milliseconds (default 100 a 3 clients: 10 s
#			for 300), so that some start before the new
#			generation is published and some after
#   BENCH_SCALE_OUT	where the summary lines are also written
#   BENCH_SCALE_KEEP	if set, the scratch directory is kept
#   BENCH_SCALE_LOGDIR	where bench-scale.txt and bench-scale.log go
#			(default $top_builddir)
#
# The loadset: generation 1 (gen1.T) is the corpus; generation 2
# (gen2.T) is the same paths with every third file changed.  On the
# primary, gen1.T is published with `cairn-publish -k scale.K`; config
# maps each client's own address to scale.K and the replicas' address to
# replica.K (`k scale.K`), and nothing else: a client the server did not
# see by its real address gets no command file.
#
# Clients: each is `cairn-ra auto` with its own radmind directory and
# working directory (an empty root), at -Z 0, 1, 6 and auto in turn,
# with CHECKSUM=sha1, RETRIES=$BENCH_SCALE_RETRIES and RETRY_DELAY=1: a
# failure of ktcheck or lapply (a daemon refusing or resetting while it
# restarts, a replica without the files or with other bytes than the
# transcript it served before the balancer moved the client) is retried,
# as cairn-ra(8) documents.  The clients have no option to choose their
# source address, so bench/srcaddr.c, built here with cc and preloaded,
# binds each client's connections to its own loopback address
# (127.1.x.y; Linux routes all of 127/8 to lo).  HAProxy
# (balance source, hash-type consistent, send-proxy-v2, health checks,
# as contrib/haproxy.cfg recommends, every 2 s with a 5 s timeout: at
# 300 clients on 2 CPUs a daemon may take seconds to answer, and a check
# that gives up sooner takes every server out; retries and redispatch
# send a connection a restarting daemon refused to another server) reaches each cairnd from 127.0.0.3,
# which every cairnd trusts with -X; the replicas' cairn-replicate
# connects to the primary directly from 127.0.0.250.
#
# A run: the clients start over the ramp.  When a quarter of them are done,
# gen2.T is published on the primary (cairn-publish -k scale.K, then
# scale.K is switched to name gen2.T alone, by rename); the replicas
# take it up on their next cairn-replicate (each runs in a loop, one run
# a second).  When half are done, the first replica's cairnd (in the
# single mode: the only cairnd) is killed (SIGKILL) and restarted two
# seconds later on the same port.  When every client is done, the
# replicas are brought in step and every client runs `cairn-ra auto`
# once more (the final run, not timed).
#
# Printed, one line each run ("scale: key=value ..."):
#   errors	clients whose cairn-ra auto did not exit 0 (after its
#		retries), in the timed run and in the final run
#   retried	clients that retried at least once, and the retries
#   mixed	clients whose tree (diff -r) is neither generation's
#		reference tree; gen1, gen2: those equal to each
#   newest	clients at gen2.T after the final run
#   pulls_s	clients / (last end - first start) of the timed run
#   p50, p99	cairn-ra auto wall time of the timed run, seconds
#   per daemon: CPU seconds (user + system of the daemon and the session
#		processes it reaped, time(1)) and max RSS in KiB (the
#		largest of those processes); a killed daemon's figures are
#		added to those of its restart, and its sessions that were
#		cut off are not counted; HAProxy's from /proc
# and at the end the ratio of pulls per second through HAProxy to one
# cairnd.  The lines are appended to $LOGDIR/bench-scale.txt, the
# daemons' logs left in $LOGDIR/bench-scale.log.
# Figures only: the exit status is 0 unless the harness itself failed;
# the test checks errors, mixed and newest.
BENCH_NAME=bench-scale
. "${top_srcdir:?top_srcdir must be set}/bench/benchlib.sh"
NCLI=${BENCH_SCALE_CLIENTS:-300}
SIZE=${BENCH_SCALE_SIZE:-512K}
MODES=${BENCH_SCALE_MODES:-haproxy single}
DEADLINE=${BENCH_SCALE_DEADLINE:-600}
RETRIES=${BENCH_SCALE_RETRIES:-6}
RAMP_MS=${BENCH_SCALE_RAMP_MS:-$((NCLI * 1000 / 30))}
OUT=${BENCH_SCALE_OUT:-}
LOGDIR=${BENCH_SCALE_LOGDIR:-$top_builddir}
LEVELS=(0 1 6 auto)
bench_need bench/cairn-bench server/cairnd server/cairn-publish \
    server/cairn-replicate client/cairn-ra client/ktcheck client/fsdiff \
    client/lapply
for t in timeout cc; do
	command -v $t >/dev/null || {
		echo "$BENCH_NAME: $t is required" >&2
		exit 1
	}
done
case " $MODES " in
*" haproxy "*)
	command -v haproxy >/dev/null || PATH=$PATH:/usr/sbin
	command -v haproxy >/dev/null || {
		echo "$BENCH_NAME: haproxy is required (Debian package haproxy)" >&2
		exit 1
	} ;;
esac
[ "$NCLI" -ge 4 ] && [ "$NCLI" -le 60000 ] || {
	echo "$BENCH_NAME: BENCH_SCALE_CLIENTS: 4 to 60000" >&2
	exit 2
}
corpus=$(bench_corpus "$SIZE")

# HAProxy holds two sockets a connection; each client holds at most two
# sessions at once.
want=$((8 * NCLI + 256))
if [ "$(ulimit -n)" != unlimited ] && [ "$(ulimit -n)" -lt "$want" ]; then
	ulimit -n "$want" 2>/dev/null || ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/cairn-scale.XXXXXX")
DPIDS=() TPIDS=() HPID= REPLOOPS=()
cleanup()
{
	local p
	touch "$tmp/stop" 2>/dev/null || true
	for p in "${REPLOOPS[@]}" "$HPID"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null || true
	done
	for p in "${DPIDS[@]}"; do
		[ -n "$p" ] && kill "$p" 2>/dev/null || true
	done
	wait 2>/dev/null || true
	if [ -n "${BENCH_SCALE_KEEP:-}" ]; then
		echo "$BENCH_NAME: kept $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT
trap 'exit 130' HUP INT TERM

cc -shared -fPIC -O2 -o "$tmp/srcaddr.so" "$top_srcdir/bench/srcaddr.c" -ldl
# In a sanitizer build the preloaded shim comes before the sanitizer's
# runtime: let it (as the tests' fault shim does).
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}verify_asan_link_order=0"
export ASAN_OPTIONS

# addr I: client I's source address.
addr()
{
	echo "127.1.$(($1 / 250)).$(($1 % 250 + 1))"
}

# Reference trees and transcripts of both generations.
mkdir -p "$tmp/ref"
cp -a "$corpus" "$tmp/ref/gen1"
rm -f "$tmp/ref/gen1/MANIFEST.txt"
cp -a "$tmp/ref/gen1" "$tmp/ref/gen2"
n=0
while IFS= read -r f; do
	n=$((n + 1))
	[ $((n % 3)) -eq 0 ] && printf 'generation 2 of %s\n' "$f" >>"$tmp/ref/gen2/$f"
done < <(cd "$tmp/ref/gen2" && find . -type f | sort)
: >"$tmp/empty.K"
for g in gen1 gen2; do
	(cd "$tmp/ref/$g" && "$B/client/fsdiff" -C -c sha1 -K "$tmp/empty.K" .) \
	    >"$tmp/ref/$g.T"
done
nfiles=$(grep -c '^f ' "$tmp/ref/gen1.T")

# stage REPO G: put generation G's upload into REPO/tmp.
stage()
{
	mkdir -p "$1/tmp/transcript" "$1/tmp/file"
	cp "$tmp/ref/$2.T" "$1/tmp/transcript/$2.T"
	cp -a "$tmp/ref/$2" "$1/tmp/file/$2.T"
}

# publish REPO G: generation G into service, and scale.K switched to it.
publish()
{
	stage "$1" "$2"
	"$B/server/cairn-publish" -D "$1" -k scale.K "$2.T" >/dev/null
	printf 'p %s.T\n' "$2" >"$1/command/.scale.K.new"
	mv "$1/command/.scale.K.new" "$1/command/scale.K"
}

# mkrepo DIR: an empty repository with the config of every server.
mkrepo()
{
	local i
	mkdir -p "$1/command" "$1/transcript" "$1/file" "$1/tmp"
	{
		echo "127.0.0.250 replica.K"
		for i in $(seq 0 $((NCLI - 1))); do
			echo "$(addr "$i") scale.K"
		done
	} >"$1/config"
}

# start_daemon K PORT REPO: cairnd K (0, 1, 2) under time(1), started
# as every script starts it (cairnd_launch, tests/integ/cairndlib.sh).
_scale_timed()
{
	/usr/bin/time -f '%U %S %M' -a -o "$tmp/d$_scale_k.time" "$@"
}

start_daemon()
{
	local k=$1 port=$2 repo=$3
	_scale_k=$k
	CAIRND=$B/server/cairnd
	CAIRND_ADDR=127.0.0.1
	CAIRND_PORT=$port
	CAIRND_WRAP=_scale_timed
	CAIRND_PIDFILE=$tmp/d$k.pid
	cairnd_launch "$tmp/d$k.log" "$repo" -Z 9 -X 127.0.0.3 \
	    -m $((4 * NCLI + 64)) -s $((4 * NCLI + 64)) || {
		echo "$BENCH_NAME: cairnd $k did not start" >&2
		exit 1
	}
	TPIDS[$k]=$SPID
	DPIDS[$k]=$CAIRND_PID
}

stop_daemon()
{
	kill -TERM "${DPIDS[$1]}" 2>/dev/null || true
	wait "${TPIDS[$1]}" 2>/dev/null || true
	DPIDS[$1]=
}

# replicate K: bring replica K in step with the primary once; status 0
# when it is (cairn-replicate's 0 in step, 1 brought in step).
replicate()
{
	local rc=0
	CAIRN_BENCH_SRC=127.0.0.250 LD_PRELOAD=$tmp/srcaddr.so \
	    "$B/server/cairn-replicate" -D "$tmp/r$1" -h 127.0.0.1 \
	    -p "${DPORT[0]}" -K replica.K || rc=$?
	[ "$rc" -le 1 ]
}

# reploop K: replicate K once a second until $tmp/stop; bounded.
reploop()
{
	local n=0
	while [ ! -e "$tmp/stop" ] && [ "$n" -lt $((DEADLINE + 60)) ]; do
		replicate "$1" >>"$tmp/rep$1.log" 2>&1 || true
		n=$((n + 1))
		sleep 1
	done
}

# client I: cairn-ra auto for client I; "I START END RC RETRIES" into
# $tmp/c/I/result (appended: one line a run).
client()
{
	local i=$1 d=$tmp/c/$1 s e rc=0 r
	s=$(date +%s.%N)
	CAIRN_BENCH_SRC=$(addr "$i") LD_PRELOAD=$tmp/srcaddr.so \
	    CAIRN_RA_BINDIR=$B/client timeout -k 5 "$(left)" \
	    "$B/client/cairn-ra" -f "$d/ra.conf" auto >>"$d/out" 2>&1 || rc=$?
	e=$(date +%s.%N)
	r=$(grep -c 'retry [0-9]* of' "$d/ra.log" 2>/dev/null || true)
	echo "$i $s $e $rc ${r:-0}" >>"$d/result"
}

mkclient()
{
	local i=$1 d=$tmp/c/$1
	mkdir -p "$d/rd/client" "$d/root"
	: >"$d/rd/client/command.K"
	cat >"$d/ra.conf" <<EOF
SERVER=127.0.0.1
PORT=$CPORT
ZLEVEL=${LEVELS[$((i % 4))]}
CHECKSUM=sha1
RADMIND_DIR=$d/rd
WORKDIR=$d/root
STATUS_FILE=
RETRIES=$RETRIES
RETRY_DELAY=1
RETRY_MAX_DELAY=8
SYSLOG="$tmp/syslog $d/ra.log"
EOF
}

left()
{
	local l=$((tend - $(date +%s)))
	[ "$l" -ge 1 ] || l=1
	echo "$l"
}

ndone()
{
	{ cat "$tmp"/c/*/result 2>/dev/null || true; } | wc -l
}

cat >"$tmp/syslog" <<'EOF'
#!/bin/sh
f=$1
shift
echo "$*" >>"$f"
EOF
chmod +x "$tmp/syslog"

hap_start()
{
	local k
	{
		cat <<EOF
global
	maxconn $((4 * NCLI + 64))
	stats socket $tmp/hap.sock mode 600 level admin
defaults
	mode tcp
	timeout connect 5s
	timeout client 1h
	timeout server 1h
	# A server that refuses (a daemon restarting) is left for another.
	retries 3
	option redispatch 1
	timeout check 5s
frontend radmind
	bind 127.0.0.1:$CPORT
	default_backend cairnd
backend cairnd
	balance source
	hash-type consistent
	option tcp-check
	tcp-check expect rstring ^200
	tcp-check send NOOP\\r\\n
	tcp-check expect rstring ^202
	tcp-check send QUIT\\r\\n
	tcp-check expect rstring ^201
	default-server send-proxy-v2 check-send-proxy source 127.0.0.3 check inter 2s fall 2 rise 2
EOF
		for k in 0 1 2; do
			echo "	server cairn$k 127.0.0.1:${DPORT[$k]}"
		done
	} >"$tmp/haproxy.cfg"
	haproxy -c -f "$tmp/haproxy.cfg" >"$tmp/hap.check" 2>&1 || {
		cat "$tmp/hap.check" >&2
		exit 1
	}
	haproxy -db -f "$tmp/haproxy.cfg" >>"$tmp/hap.log" 2>&1 &
	HPID=$!
	for k in $(seq 200); do
		(exec 3<>"/dev/tcp/127.0.0.1/$CPORT") 2>/dev/null && return 0
		sleep 0.05
	done
	echo "$BENCH_NAME: haproxy did not start" >&2
	cat "$tmp/hap.log" >&2
	exit 1
}

# proc_cpu_rss PID: "CPU-seconds max-RSS-KiB" of a live process.
proc_cpu_rss()
{
	local hz
	hz=$(getconf CLK_TCK)
	awk -v hz="$hz" '{ sub(/^.*\) /, ""); printf "%.2f ", ($12 + $13) / hz }' \
	    "/proc/$1/stat"
	awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"
}

# daemon_figures K: "CPU-seconds max-RSS" of every run of cairnd K.
daemon_figures()
{
	grep -E '^[0-9.]+ [0-9.]+ [0-9]+$' "$tmp/d$1.time" |
	    awk '{ c += $1 + $2; if ($3 > m) m = $3 } END { printf "%.2f %d\n", c, m }'
}

# run MODE: one whole run; prints its summary line.
run()
{
	local mode=$1 k ndaemons i t0 pubdone=0 killdone=0 n line
	rm -rf "$tmp/p" "$tmp/r1" "$tmp/r2" "$tmp/c" "$tmp"/d?.* "$tmp/stop" \
	    "$tmp"/rep?.log "$tmp/hap.log"
	mkdir -p "$tmp/c"
	mkrepo "$tmp/p"
	publish "$tmp/p" gen1
	printf 'k scale.K\n' >"$tmp/p/command/replica.K"
	DPORT=()
	if [ "$mode" = haproxy ]; then
		ndaemons=3
	else
		ndaemons=1
	fi
	for k in $(seq 0 $((ndaemons - 1))); do
		DPORT[$k]=$(bench_port)
	done
	start_daemon 0 "${DPORT[0]}" "$tmp/p"
	REPLOOPS=()
	if [ "$mode" = haproxy ]; then
		for k in 1 2; do
			mkrepo "$tmp/r$k"
			replicate "$k" >>"$tmp/rep$k.log" 2>&1 || {
				cat "$tmp/rep$k.log" >&2
				exit 1
			}
			start_daemon "$k" "${DPORT[$k]}" "$tmp/r$k"
			reploop "$k" &
			REPLOOPS+=($!)
		done
		CPORT=$(bench_port)
		hap_start
		# Every server up before the clients start.
		for n in $(seq 100); do
			[ "$(echo 'show stat' | python3 -c '
import socket, sys
s = socket.socket(socket.AF_UNIX); s.connect(sys.argv[1]); s.sendall(b"show stat\n")
d = b""
while True:
    b = s.recv(65536)
    if not b: break
    d += b
print(sum(1 for l in d.decode().splitlines() if l.split(",")[0] == "cairnd" and l.split(",")[1].startswith("cairn") and ",UP," in l))
' "$tmp/hap.sock")" = 3 ] && break
			sleep 0.1
		done
		kill_k=1
	else
		CPORT=${DPORT[0]}
		kill_k=0
	fi
	for i in $(seq 0 $((NCLI - 1))); do
		mkclient "$i"
	done

	tend=$(($(date +%s) + DEADLINE))
	t0=$(date +%s.%N)
	for i in $(seq 0 $((NCLI - 1))); do
		{
			sleep "$(awk -v i="$i" -v n="$NCLI" -v r="$RAMP_MS" \
			    'BEGIN { printf "%.3f", i * r / n / 1000 }')"
			client "$i"
		} &
	done
	# Publish at a quarter, kill at a half; bounded by the deadline.
	while [ "$(date +%s)" -lt $((tend + 10)) ]; do
		n=$(ndone)
		if [ "$pubdone" = 0 ] && [ "$n" -ge $((NCLI / 4)) ]; then
			publish "$tmp/p" gen2
			pubdone=1
		fi
		if [ "$killdone" = 0 ] && [ "$n" -ge $((NCLI / 2)) ]; then
			kill -KILL "${DPIDS[$kill_k]}"
			wait "${TPIDS[$kill_k]}" 2>/dev/null || true
			sleep 2
			start_daemon "$kill_k" "${DPORT[$kill_k]}" \
			    "$(if [ "$kill_k" = 0 ]; then echo "$tmp/p"; else echo "$tmp/r$kill_k"; fi)"
			killdone=1
		fi
		[ "$n" -ge "$NCLI" ] && break
		sleep 0.2
	done
	wait_clients
	# The timed run's figures and trees.
	line="scale: mode=$mode clients=$NCLI files=$nfiles published=$pubdone killed=$killdone"
	line="$line $(stats 1) $(trees)"

	# Final run: every server in step, then every client once more.
	touch "$tmp/stop"
	for p in "${REPLOOPS[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	REPLOOPS=()
	if [ "$mode" = haproxy ]; then
		for k in 1 2; do
			replicate "$k" >>"$tmp/rep$k.log" 2>&1
			cmp -s "$tmp/p/command/scale.K" "$tmp/r$k/command/scale.K" || {
				echo "$BENCH_NAME: replica $k not in step" >&2
				cat "$tmp/rep$k.log" >&2
				exit 1
			}
		done
	fi
	tend=$(($(date +%s) + DEADLINE))
	for i in $(seq 0 $((NCLI - 1))); do
		client "$i" &
	done
	wait_clients
	line="$line final_$(stats 2 | sed 's/ .*//') $(trees | sed 's/^mixed=\([0-9]*\) gen1=[0-9]* gen2=\([0-9]*\)/final_mixed=\1 newest=\2/')"

	# Daemon figures.
	if [ "$mode" = haproxy ]; then
		line="$line haproxy_cpu_rss=$(proc_cpu_rss "$HPID" | tr ' ' ,)"
		kill "$HPID" 2>/dev/null || true
		wait "$HPID" 2>/dev/null || true
		HPID=
	fi
	for k in $(seq 0 $((ndaemons - 1))); do
		stop_daemon "$k"
		line="$line cairnd${k}_cpu_rss=$(daemon_figures "$k" | tr ' ' ,)"
		cat "$tmp/d$k.log" >>"$LOGDIR/bench-scale.log"
	done
	echo "$line"
	echo "$line" >"$tmp/last"
	[ -z "$OUT" ] || echo "$line" >>"$OUT"
	echo "$line" >>"$LOGDIR/bench-scale.txt"
}

# wait_clients: every client of this round done (they are bounded by
# the deadline through timeout(1)).
wait_clients()
{
	local p
	for p in $(jobs -p); do
		case " ${REPLOOPS[*]} $HPID ${TPIDS[*]} " in
		*" $p "*) ;;
		*) wait "$p" 2>/dev/null || true ;;
		esac
	done
}

# stats RUN: errors, retries and timings of run RUN (1 timed, 2 final)
# of every client.
stats()
{
	local r
	for r in "$tmp"/c/*/result; do
		sed -n "${1}p" "$r"
	done >"$tmp/stats.in"
	# Durations sorted, for the percentiles.
	awk '{ print $3 - $2 }' "$tmp/stats.in" | sort -n >"$tmp/stats.d"
	awk -v want="$NCLI" -v dfile="$tmp/stats.d" '
	{ n++; if ($4 != 0) err++; if ($5 > 0) { ret++; rt += $5 }
	  if (s == "" || $2 < s) s = $2; if ($3 > e) e = $3 }
	END {
		err += want - n
		m = 0
		while ((getline x <dfile) > 0)
			d[++m] = x
		p50 = m ? d[int((m - 1) * 0.50) + 1] : 0
		p99 = m ? d[int((m - 1) * 0.99) + 1] : 0
		printf "errors=%d retried=%d retries=%d pulls_s=%.1f p50=%.2f p99=%.2f wall=%.1f\n",
		    err, ret, rt, (e > s ? n / (e - s) : 0), p50, p99, e - s
	}' "$tmp/stats.in"
}

# trees: clients whose root is gen1's tree, gen2's, or neither.
trees()
{
	local i g1=0 g2=0 mx=0
	for i in $(seq 0 $((NCLI - 1))); do
		if diff -rq --no-dereference "$tmp/c/$i/root" "$tmp/ref/gen2" \
		    >/dev/null 2>&1; then
			g2=$((g2 + 1))
		elif diff -rq --no-dereference "$tmp/c/$i/root" "$tmp/ref/gen1" \
		    >/dev/null 2>&1; then
			g1=$((g1 + 1))
		else
			mx=$((mx + 1))
			diff -rq --no-dereference "$tmp/c/$i/root" \
			    "$tmp/ref/gen2" 2>&1 | head -3 |
			    sed "s/^/$BENCH_NAME: client $i: /" >&2
			tail -5 "$tmp/c/$i/out" "$tmp/c/$i/ra.log" 2>/dev/null |
			    sed "s/^/$BENCH_NAME: client $i: /" >&2
		fi
	done
	echo "mixed=$mx gen1=$g1 gen2=$g2"
}

: >"$LOGDIR/bench-scale.log"
echo "$BENCH_NAME: $NCLI clients, $nfiles files a generation, $(nproc) CPUs" \
    "($(date -u +%Y-%m-%dT%H:%MZ))" | tee -a "$LOGDIR/bench-scale.txt"
hrate= srate=
for mode in $MODES; do
	run "$mode"
	rate=$(sed -n 's/.* pulls_s=\([0-9.]*\).*/\1/p' "$tmp/last")
	case $mode in
	haproxy) hrate=$rate ;;
	single) srate=$rate ;;
	esac
done
if [ -n "$hrate" ] && [ -n "$srate" ]; then
	line=$(awk -v h="$hrate" -v s="$srate" \
	    'BEGIN { printf "scale: ratio haproxy/single pulls_s=%.2f\n", (s > 0 ? h / s : 0) }')
	echo "$line"
	[ -z "$OUT" ] || echo "$line" >>"$OUT"
	echo "$line" >>"$LOGDIR/bench-scale.txt"
fi
