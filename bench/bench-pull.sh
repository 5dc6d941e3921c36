#!/bin/bash
# bench-pull.sh: a full pull of the standard corpus from cairnd on loopback
# at zlib levels 0, 1, 6 and 9 and zstd levels 1 and 3, beside `cp -a` of
# the same tree and an in-process deflate of the corpus at zlib's levels.
#
# Run through `make bench`, or by hand with top_builddir, top_srcdir and
# BENCH_DATA set.  The corpus ($BENCH_PULL_SIZE, default 250M, generated
# and cached in $BENCH_DATA) is published in a scratch
# repository; for each level a fresh cairnd (-Z 9, and -Y at the highest
# zstd level of $BENCH_PULL_LEVELS) serves one
#   lapply -Z LEVEL -c sha1
# into an empty root (after ktcheck and fsdiff -A), so that the daemon's
# CPU time (its children included) belongs to that pull alone.  Printed per
# level: wall time, server and client CPU seconds, bytes before and after
# compression (the daemon's session line), MB/s, the ratios the targets
# speak of, and the server CPU seconds per GB of files; then that figure
# per codec and level.  Figures only: nothing here passes or fails on
# speed.
BENCH_NAME=bench-pull
. "${top_srcdir:?top_srcdir must be set}/bench/benchlib.sh"
SIZE=${BENCH_PULL_SIZE:-250M}
LEVELS=${BENCH_PULL_LEVELS:-0 1 6 9 zstd:1 zstd:3}
# cairnd offers zstd up to the highest of its levels asked (-Y 0: none).
ZSTD_MAX=0
for L in $LEVELS; do
	case $L in
	zstd:*) [ "${L#zstd:}" -gt "$ZSTD_MAX" ] && ZSTD_MAX=${L#zstd:} ;;
	esac
done
bench_need bench/cairn-bench server/cairnd client/ktcheck client/fsdiff \
    client/lapply bench/zbench
corpus=$(bench_corpus "$SIZE")

bench_scratch pull
# Repository: transcript of the corpus, its files hard-linked into file/;
# the client's command file and applicable transcript (made once).
bench_repo "$corpus" bench.T
bench_client

echo "cairn pull benchmark: $nfiles files, $((raw / 1000000)) MB, loopback, $(nproc) CPUs"
# cp -a reference (warm cache), twice, keep the faster
cat "$corpus"/usr/bin/* >/dev/null 2>&1 || true
best=
for n in 1 2; do
	sync
	sleep "${BENCH_PULL_SETTLE:-3}"
	s=$(date +%s.%N)
	cp -a "$corpus" "$tmp/cp$n"
	sync -f "$tmp/cp$n" 2>/dev/null || true
	e=$(date +%s.%N)
	t=$(echo "$e - $s" | bc -l 2>/dev/null || python3 -c "print($e - $s)")
	if [ -z "$best" ] || python3 -c "import sys; sys.exit(0 if $t < $best else 1)"; then best=$t; fi
done
cpa=$best
printf 'cp -a: %.2f s (%.0f MB/s)\n\n' "$cpa" "$(python3 -c "print($raw / 1e6 / $cpa)")"

printf '%-7s %8s %8s %8s %12s %12s %8s %8s %9s %9s %8s\n' level wall_s srv_cpu cli_cpu raw_bytes wire_bytes MB/s vs_cp srv_zMB/s wall/cpu srv_s/GB
mapfile -t files < <(find "$corpus" -type f ! -name MANIFEST.txt)

# pull LABEL LEVEL [client options -- server options]: one timed lapply
# into an empty root from a fresh cairnd; prints a table row and sets WALL.
pull()
{
	local label=$1 L=$2 s e su ss cu cs line sent wire zref root
	local -a copt=() sopt=()
	shift 2
	while [ $# -gt 0 ] && [ "$1" != -- ]; do copt+=("$1"); shift; done
	[ $# -gt 0 ] && shift
	sopt=("$@")
	# A fresh root per run, and nothing deleted just before a timed run:
	# on ext4, creating files right after many were deleted costs a scan
	# of the recently freed inodes, which would bill one run for another.
	NRUN=$((NRUN + 1))
	root=$tmp/roots/$NRUN
	mkdir -p "$root"
	sync
	sleep "${BENCH_PULL_SETTLE:-3}"
	start_server -Y "$ZSTD_MAX" "${sopt[@]+"${sopt[@]}"}"
	s=$(date +%s.%N)
	(cd "$root" && /usr/bin/time -f '%U %S' -o "$tmp/cli.time" \
	    "$B/client/lapply" -q -h 127.0.0.1 -p "$PORT" -Z "$L" -c sha1 \
	    "${copt[@]+"${copt[@]}"}" "$tmp/apply.T")
	e=$(date +%s.%N)
	stop_server
	read -r su ss <"$tmp/srv.time"
	read -r cu cs <"$tmp/cli.time"
	line=$(grep 'session end' "$tmp/srv.log" | tail -n 1)
	sent=$(echo "$line" | sed -n 's/.* sent \([0-9]*\) bytes (\([0-9]*\) on the wire.*/\1/p')
	wire=$(echo "$line" | sed -n 's/.* sent \([0-9]*\) bytes (\([0-9]*\) on the wire.*/\2/p')
	# in-process deflate of the same data at this zlib level (level 0
	# and zstd's: none)
	zref=-
	case $L in
	[1-9])
		if [ -z "${ZREF[$L]:-}" ]; then
			ZREF[$L]=$("$B/bench/zbench" "$L" "${files[@]}" | awk '{ print $5 }')
		fi
		zref=${ZREF[$L]}
		;;
	esac
	WALL=$(python3 -c "print($e - $s)")
	python3 - "$label" "$s" "$e" "$su" "$ss" "$cu" "$cs" "$sent" "$wire" "$cpa" "$zref" "$raw" <<'PY' | tee -a "$tmp/rows"
import sys
L, s, e, su, ss, cu, cs, sent, wire, cpa, zref, raw = sys.argv[1:]
wall = float(e) - float(s)
srv = float(su) + float(ss)
cli = float(cu) + float(cs)
sent = int(sent or 0); wire = int(wire or 0)
mbs = sent / 1e6 / wall if wall else 0
ratio = wall / float(cpa)
if zref != '-' and srv > 0:
    # server compression throughput vs raw deflate: raw MB / server CPU
    zs = '%.0f%%' % (100 * (sent / 1e6 / srv) / float(zref))
else:
    zs = '-'
print('%-7s %8.2f %8.2f %8.2f %12d %12d %8.1f %7.2fx %9s %8.2fx %8.2f' % (
    L, wall, srv, cli, sent, wire, mbs, ratio, zs, wall / max(srv, cli),
    srv / (int(raw) / 1e9)))
PY
	# the pulled tree must equal the corpus (content, mode, mtime)
	if ! diff -r -q --no-dereference --exclude=MANIFEST.txt "$corpus" \
	    "$root" >/dev/null; then
		echo "bench-pull: $label: pulled tree differs from the corpus" >&2
		exit 1
	fi
}

declare -A ZREF=()
NRUN=0
: >"$tmp/rows"
for L in $LEVELS; do
	pull "$L" "$L"
done
# Server CPU per GB of files, per codec, at the levels run.
echo
echo "server CPU per GB of files (cairnd's CPU seconds / GB pulled), by codec:"
awk '{ c = $1 ~ /^zstd:/ ? "zstd" : "zlib"; l = $1; sub(/^zstd:/, "", l)
    s[c] = s[c] sprintf(" %s %.2f s;", l, $NF) }
    END { for (c in s) printf "  %s:%s\n", c, s[c] }' "$tmp/rows" | sort

# TLS cost at level 1: the same pull with STARTTLS (-w 1) and without, A B A B.
if command -v openssl >/dev/null; then
	echo
	echo "TLS cost at level 1 (cairnd -w 1, a throwaway CA from contrib/cairn-mkca):"
	ca=$tmp/ca
	mkdir -p "$ca"
	sh "$top_srcdir/contrib/cairn-mkca" -o "$ca" ca >/dev/null 2>&1
	sh "$top_srcdir/contrib/cairn-mkca" -o "$ca" server localhost 127.0.0.1 >/dev/null 2>&1
	plain=() tls=()
	for _ in 1 2; do
		pull 1 1; plain+=("$WALL")
		pull 1+tls 1 -w 1 -x "$ca/ca.pem" -- -w 1 -x "$ca/ca.pem" \
		    -y "$ca/localhost.pem" -z "$ca/localhost.pem"
		tls+=("$WALL")
	done
	python3 -c "
import sys
p = sorted(float(x) for x in sys.argv[1:3]); t = sorted(float(x) for x in sys.argv[3:5])
print('TLS/plain wall time at level 1: %.2fx (best of 2: %.2f s vs %.2f s; target <= 1.15x)' % (t[0] / p[0], t[0], p[0]))
" "${plain[@]}" "${tls[@]}"
fi
echo
echo "srv_zMB/s: the daemon's compression throughput (raw MB per server CPU second)"
echo "as a share of an in-process zlib deflate of the same files at that level."
echo "wall/cpu: wall time over the larger of server and client CPU time."
echo "srv_s/GB: the daemon's CPU seconds per GB (10^9 bytes) of files pulled."
