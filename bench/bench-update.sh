#!/bin/bash
# bench-update.sh: delta transfer on a real update, the real tools end to
# end.  bench/make-update-corpus makes OLD/ and NEW/ from two versions of
# some 25 Debian packages (cached in $BENCH_DATA/update-corpus).  OLD is
# published as a loadset with cairn-publish, a client root is brought to
# it by the real pull (ktcheck, fsdiff -A, lapply -c sha1), NEW is
# published over it with cairn-publish -f and its deltas built with -d.
# Then lapply -c sha1 pulls the update into a copy of that root, on each
# link (gigabit, 20 Mbit/s: tbf on the loopback of a network namespace of
# this script's own, MTU 1500), as
#   whole -Z 6      today's pull: no store of deltas, level 6
#   whole -Z auto   the same, the level left to the server (-A auto)
#   delta -Z auto   the store of deltas in place (banner DELTA)
#   delta -Z 6
# and, for comparison, rsync -a -z --delete from an rsync daemon serving
# NEW (when rsync is installed).  Each pull is checked to leave NEW byte
# for byte (diff -r).  Printed: the bytes on the wire (both directions,
# from cairnd's session-end lines, rsync's --stats), the wall time of
# the client, the server's CPU seconds and the client's peak RSS
# (/usr/bin/time); the CPU of building the deltas (cairn-publish -d)
# against that of serving a second client from them; and the targets,
# met or not.  Figures only: nothing here fails on speed.
#
# Run through `make bench-update` (root needed, for the namespace and
# tc), or by hand with top_builddir, top_srcdir and BENCH_DATA set.
# Skips (exit 0, saying so) when the archive cannot be reached and
# nothing is cached, or without root, unshare or tc.
#   BENCH_UPDATE_FETCH	seconds for make-update-corpus (default 900)
#   BENCH_UPDATE_RUN	seconds for one pull before it is killed (600)
#   BENCH_UPDATE_LINKS	links, among gigabit and 20mbit (both)
BENCH_NAME=bench-update
. "${top_srcdir:?top_srcdir must be set}/bench/benchlib.sh"
bench_need server/cairnd server/cairn-publish client/ktcheck \
    client/fsdiff client/lapply
CORPUS=$BENCH_DATA/update-corpus
RUNMAX=${BENCH_UPDATE_RUN:-600}
LINKS=${BENCH_UPDATE_LINKS:-gigabit 20mbit}

skip()
{
	echo "$BENCH_NAME: skipped: $*"
	exit 0
}

# --- outside the namespace: the corpus, then the rest in a namespace
if [ "${1:-}" != --in-namespace ]; then
	[ "$(id -u)" -eq 0 ] || skip "needs root (a network namespace, tc)"
	for t in unshare tc ip timeout; do
		command -v "$t" >/dev/null 2>&1 || skip "$t not found"
	done
	rc=0
	sh "$top_srcdir/bench/make-update-corpus" -d "$CORPUS" \
	    -t "${BENCH_UPDATE_FETCH:-900}" >&2 || rc=$?
	[ "$rc" -ne 2 ] || exit 2
	[ "$rc" -eq 0 ] && [ -d "$CORPUS/OLD" ] && [ -d "$CORPUS/NEW" ] ||
	    skip "no update corpus (the archive is unreachable?)"
	exec unshare -n "$BASH" "$0" --in-namespace
fi

ip link set lo mtu 1500 up
# shape LINK: the loopback as LINK (tbf, a bucket of 4 ms at the rate,
# as cairn-bench --shaper tc does), or unshaped.
shape()
{
	local rate burst
	case $1 in
	gigabit)	rate=1000000000 ;;
	20mbit)		rate=20000000 ;;
	none)		tc qdisc del dev lo root 2>/dev/null || :
			return 0 ;;
	*)		echo "$BENCH_NAME: unknown link $1" >&2; exit 2 ;;
	esac
	burst=$((rate / 8 / 250))
	[ "$burst" -ge 3028 ] || burst=3028
	tc qdisc replace dev lo root tbf rate "${rate}bit" burst "$burst" \
	    latency 100ms
}

bench_scratch update
rspid=
trap '[ -n "$srvpid" ] && kill "$srvpid" 2>/dev/null
[ -n "$rspid" ] && kill "$rspid" 2>/dev/null
rm -rf "$tmp"' EXIT
OLD=$CORPUS/OLD
NEW=$CORPUS/NEW
R=$tmp/repo
C=$tmp/client
mkdir -p "$R/command" "$R/transcript" "$R/file" "$R/special" \
    "$R/tmp/transcript" "$R/tmp/file" "$C"
printf '* up.K\n' >"$R/config"
: >"$tmp/empty.K"

# stage DIR: DIR as the upload up.T, as lcreate leaves it.
stage()
{
	rm -rf "$R/tmp/file/up.T"
	cp -a "$1" "$R/tmp/file/up.T"
	(cd "$1" && "$B/client/fsdiff" -C -c sha1 -K "$tmp/empty.K" \
	    -o "$R/tmp/transcript/up.T" .)
}

# wire: the bytes on the wire, both ways, of every session in srv.log.
wire()
{
	sed -n 's/.*session end: .*sent [0-9]* bytes (\([0-9]*\) on the wire.*received [0-9]* bytes (\([0-9]*\) on the wire.*/\1 \2/p' \
	    "$tmp/srv.log" | awk '{ s += $1 + $2 } END { print s + 0 }'
}

# cpu_of PID: its CPU seconds and those of its reaped children.
cpu_of()
{
	awk -v hz="$(getconf CLK_TCK)" \
	    '{ sub(/.*\) /, ""); print ($12 + $13 + $14 + $15) / hz }' \
	    "/proc/$1/stat"
}

# no_kids: wait (bounded) until cairnd has no session child left.
no_kids()
{
	local n=0
	while [ -n "$(cat /proc/"$CAIRND_PID"/task/*/children 2>/dev/null)" ]; do
		n=$((n + 1))
		[ "$n" -le 300 ] || { echo "$BENCH_NAME: sessions linger" >&2; exit 1; }
		sleep 0.1
	done
}

# pull ROOT OPTS...: lapply -c sha1 of $tmp/apply.T into ROOT, timed;
# its -v output in $tmp/pull.out, wall seconds, peak RSS and CPU
# seconds in $tmp/cli.time.
pull()
{
	local root=$1
	shift
	(cd "$root" && timeout "$RUNMAX" /usr/bin/time -f '%e %M %U %S' \
	    -o "$tmp/cli.time" "$B/client/lapply" -h 127.0.0.1 -p "$PORT" \
	    -c sha1 -v "$@" "$tmp/apply.T") >"$tmp/pull.out" 2>"$tmp/pull.err" || {
		echo "$BENCH_NAME: lapply $*: failed" >&2
		cat "$tmp/pull.err" >&2
		exit 1
	}
}

# same ROOT WHAT: ROOT is NEW byte for byte.
same()
{
	diff -r --no-dereference -q "$NEW" "$1" >"$tmp/diff" 2>&1 || {
		echo "$BENCH_NAME: $2: the tree is not NEW:" >&2
		head -20 "$tmp/diff" >&2
		exit 1
	}
}

# --- OLD published, a client brought to it
shape none
stage "$OLD"
"$B/server/cairn-publish" -D "$R" -k up.K up.T >/dev/null
start_server
"$B/client/ktcheck" -q -h 127.0.0.1 -p "$PORT" -c sha1 -K "$C/command.K" ||
    [ $? -eq 1 ]
mkdir "$tmp/root-old"
(cd "$tmp/root-old" && "$B/client/fsdiff" -A -c sha1 -K "$C/command.K" \
    -o "$tmp/apply.T" .)
pull "$tmp/root-old" -Z 6
stop_server
diff -r --no-dereference -q "$OLD" "$tmp/root-old" >/dev/null ||
    { echo "$BENCH_NAME: the client is not OLD" >&2; exit 1; }

# --- NEW over it (-f), the deltas built (-d), the client's update listed
stage "$NEW"
"$B/server/cairn-publish" -D "$R" -f up.T >"$tmp/publish.out"
/usr/bin/time -f '%e %U %S' -o "$tmp/build.time" \
    "$B/server/cairn-publish" -D "$R" -d >"$tmp/build.out"
read -r build_wall build_u build_s <"$tmp/build.time"
build_cpu=$(echo "$build_u $build_s" | awk '{ print $1 + $2 }')
start_server
"$B/client/ktcheck" -q -h 127.0.0.1 -p "$PORT" -c sha1 -K "$C/command.K" ||
    [ $? -eq 1 ]
stop_server
(cd "$tmp/root-old" && "$B/client/fsdiff" -A -c sha1 -K "$C/command.K" \
    -o "$tmp/apply.T" .)
nold=$(find "$OLD" -type f | wc -l)
nnew=$(find "$NEW" -type f | wc -l)
rawnew=$(du -sb "$NEW" | cut -f1)
ndl=$(grep -c '^[+] f ' "$tmp/apply.T" || :)
echo "cairn update benchmark: $nold files -> $nnew files ($((rawnew / 1000000)) MB), $ndl to download, $(nproc) CPUs"
# The downloads with no file at their path in OLD (a new name, such as
# the modules directory of a kernel, named by its ABI) go whole whatever
# the mode but by the version rule (docs/formats.md section 14.1).
nobasis=$(awk '$1 == "+" && $2 == "f" { print $(NF - 1), $3 }' "$tmp/apply.T" |
    while read -r size path; do
	path=${path//\\b/ }
	[ -f "$OLD/$path" ] || echo "$size"
    done | awk '{ n++; s += $1 } END { printf "%d files, %d MB", n, s / 1e6 }')
echo "downloads with no file at their path before (a delta only by the version rule): $nobasis"
echo "cairn-publish -d: $(cat "$tmp/build.out")"
printf 'cairn-publish -d: %.2f s wall, %.2f s CPU\n\n' "$build_wall" "$build_cpu"

printf '%-14s %-8s %12s %8s %8s %8s %8s  %s\n' mode link wire_bytes \
    wall_s srv_cpu cli_cpu rss_MiB deltas
# run MODE LINK ZOPT: one pull of the update into a copy of the OLD
# root, from a fresh cairnd, with (MODE delta) or without (whole) the
# store; prints a row and sets W_<mode>_<link> etc.
run()
{
	local mode=$1 link=$2 z=$3 key wall rss cu cs su ss w d
	rm -rf "$tmp/run"
	cp -a "$tmp/root-old" "$tmp/run"
	[ "$mode" = delta ] || mv "$R/delta" "$R/delta.off"
	shape "$link"
	sync
	start_server
	pull "$tmp/run" -Z "$z"
	stop_server
	shape none
	[ "$mode" = delta ] || mv "$R/delta.off" "$R/delta"
	same "$tmp/run" "$mode -Z $z over $link"
	read -r wall rss cu cs <"$tmp/cli.time"
	read -r su ss <"$tmp/srv.time"
	w=$(wire)
	d=$(sed -n 's/^delta: \([0-9]*\) files by delta.*/\1/p' "$tmp/pull.out")
	key=${mode}_${z}_${link}
	eval "W_$key=$w T_$key=$wall M_$key=$rss"
	printf '%-14s %-8s %12d %8.2f %8.2f %8.2f %8.1f  %s\n' "$mode -Z $z" \
	    "$link" "$w" "$wall" "$(echo "$su $ss" | awk '{ print $1 + $2 }')" \
	    "$(echo "$cu $cs" | awk '{ print $1 + $2 }')" \
	    "$(echo "$rss" | awk '{ print $1 / 1024 }')" "${d:-0}"
}

for link in $LINKS; do
	run whole "$link" 6
	run whole "$link" auto
	run delta "$link" auto
	run delta "$link" 6
done

# rsync -z of the same update, from a daemon serving NEW.
rsync_run()
{
	local link=$1 port wall rss cu cs sent recv
	rm -rf "$tmp/run"
	cp -a "$tmp/root-old" "$tmp/run"
	port=$(bench_port)
	cat >"$tmp/rsyncd.conf" <<-EOF
	use chroot = no
	pid file = $tmp/rsyncd.pid
	[new]
	path = $NEW
	read only = yes
	uid = 0
	gid = 0
	EOF
	rsync --daemon --no-detach --address=127.0.0.1 --port="$port" \
	    --config="$tmp/rsyncd.conf" 2>"$tmp/rsyncd.err" &
	rspid=$!
	local n=0
	until rsync "rsync://127.0.0.1:$port/" >/dev/null 2>&1; do
		n=$((n + 1))
		[ "$n" -le 100 ] || { echo "$BENCH_NAME: rsyncd did not start" >&2; exit 1; }
		sleep 0.1
	done
	shape "$link"
	sync
	timeout "$RUNMAX" /usr/bin/time -f '%e %M %U %S' -o "$tmp/cli.time" \
	    rsync -a -z --delete --stats "rsync://127.0.0.1:$port/new/" \
	    "$tmp/run/" >"$tmp/rsync.out" 2>&1 || {
		cat "$tmp/rsync.out" >&2
		exit 1
	}
	shape none
	kill "$rspid"
	wait "$rspid" 2>/dev/null || :
	rspid=
	same "$tmp/run" "rsync -z over $link"
	read -r wall rss cu cs <"$tmp/cli.time"
	sent=$(sed -n 's/^Total bytes sent: \([0-9,]*\).*/\1/p' "$tmp/rsync.out" | tr -d ,)
	recv=$(sed -n 's/^Total bytes received: \([0-9,]*\).*/\1/p' "$tmp/rsync.out" | tr -d ,)
	eval "W_rsync_$link=$((sent + recv)) T_rsync_$link=$wall"
	printf '%-14s %-8s %12d %8.2f %8s %8.2f %8.1f  %s\n' "rsync -z" "$link" \
	    $((sent + recv)) "$wall" - "$(echo "$cu $cs" | awk '{ print $1 + $2 }')" \
	    "$(echo "$rss" | awk '{ print $1 / 1024 }')" -
}
if command -v rsync >/dev/null 2>&1; then
	for link in $LINKS; do
		rsync_run "$link"
	done
else
	echo "rsync not installed: no rsync -z comparison"
fi

# --- the server's CPU for a second client, the deltas already built
rm -rf "$tmp/run" "$tmp/run2"
cp -a "$tmp/root-old" "$tmp/run"
cp -a "$tmp/root-old" "$tmp/run2"
start_server
pull "$tmp/run" -Z auto
no_kids
c1=$(cpu_of "$CAIRND_PID")
pull "$tmp/run2" -Z auto
no_kids
c2=$(cpu_of "$CAIRND_PID")
stop_server
same "$tmp/run2" "second client"
second=$(echo "$c1 $c2" | awk '{ print $2 - $1 }')
printf '\nserver CPU for a second client with deltas: %.2f s; building them: %.2f s\n' \
    "$second" "$build_cpu"

# --- the targets
ratio()
{
	awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.3f", a / b; else print "-" }'
}
# target WHAT VALUE LIMIT: say whether VALUE <= LIMIT.
target()
{
	if awk -v v="$2" -v l="$3" 'BEGIN { exit !(v != "-" && v <= l) }'; then
		echo "  met:     $1: $2 (at most $3)"
	else
		echo "  NOT MET: $1: $2 (at most $3)"
	fi
}
echo
echo "targets:"
# Wire bytes: the deltas at -Z 6 (the bytes -Z auto spends on a fast
# link are its choice of speed over size).
for link in $LINKS; do
	eval "wz6=\$W_whole_6_$link wd=\$W_delta_6_$link"
	target "wire bytes, deltas -Z 6 / whole -Z 6 ($link)" \
	    "$(ratio "$wd" "$wz6")" 0.30
	if eval "[ -n \"\${W_rsync_$link:-}\" ]"; then
		eval "wr=\$W_rsync_$link"
		target "wire bytes, deltas -Z 6 / rsync -z ($link)" \
		    "$(ratio "$wd" "$wr")" 1
	fi
done
case " $LINKS " in
*" 20mbit "*)
	target "20 Mbit/s time, deltas -Z auto / whole -Z auto" \
	    "$(ratio "$T_delta_auto_20mbit" "$T_whole_auto_20mbit")" 0.35 ;;
esac
case " $LINKS " in
*" gigabit "*)
	target "gigabit time, deltas -Z auto / whole -Z 6" \
	    "$(ratio "$T_delta_auto_gigabit" "$T_whole_6_gigabit")" 1
	target "gigabit time, deltas -Z auto / whole -Z auto" \
	    "$(ratio "$T_delta_auto_gigabit" "$T_whole_auto_gigabit")" 1
	target "client RSS, deltas -Z auto - whole -Z 6 (MiB)" \
	    "$(awk -v a="$M_delta_auto_gigabit" -v b="$M_whole_6_gigabit" \
	    'BEGIN { printf "%.1f", (a - b) / 1024 }')" 64 ;;
esac
target "second-client CPU / CPU of building" "$(ratio "$second" "$build_cpu")" 0.1
