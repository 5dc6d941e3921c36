#!/bin/bash
# bench-update-links.sh: a real update, whole files against deltas and
# rsync -z: cairn-bench --update on the Debian update corpus
# (bench/make-update-corpus: OLD/ and NEW/ from two versions of some 25
# packages, cached in $BENCH_DATA/update-corpus).  cairn-bench publishes
# OLD, brings a client to it, publishes NEW over it with cairn-publish -f
# and -d, and pulls the update whole and by delta at -Z 6 and -Z auto,
# and by rsync -z from an rsync daemon serving NEW when rsync is
# installed, over each link; every pull is checked to leave NEW.  It
# reports per pull the time, the server's and the client's CPU, the
# client's peak RSS and the bytes on the wire, the server CPU by delta
# against that of building the deltas, and the ratios of the update.
# The report is printed, the CSV left in $top_builddir/$BENCH_NAME.csv.
# Figures only: nothing here fails on speed.
#
# Two ways, chosen by BENCH_UPDATE_SHAPER:
#   tc     `make bench-update`: --shaper tc (tbf on a veth pair between
#          two network namespaces; root, ip and tc), gigabit and 802.11g
#          (20 Mbit/s) by default
#   relay  `make bench-update-links` and `make bench`: cairn-bench's
#          relay, gigabit, fast-ethernet and 802.11g by default
# Run through make, or by hand with top_builddir, top_srcdir and
# BENCH_DATA set.  Skips (exit 0, saying so) when the archive cannot be
# reached and nothing is cached, and with tc without root, ip or tc.
#   BENCH_UPDATE_SHAPER	tc or relay (relay)
#   BENCH_UPDATE_FETCH	seconds for make-update-corpus (default 900)
#   BENCH_UPDATE_LINKS	cairn-bench's links (see above; dsl adds some 10
#			minutes)
#   BENCH_UPDATE_REPS	runs of each level and mode on each link (1)
SHAPER=${BENCH_UPDATE_SHAPER:-relay}
case $SHAPER in
tc)	BENCH_NAME=bench-update
	DEFLINKS="gigabit 802.11g" ;;
relay)	BENCH_NAME=bench-update-links
	DEFLINKS="gigabit fast-ethernet 802.11g" ;;
*)	echo "bench-update-links.sh: BENCH_UPDATE_SHAPER=$SHAPER: expected tc or relay" >&2
	exit 2 ;;
esac
. "${top_srcdir:?top_srcdir must be set}/bench/benchlib.sh"
bench_need bench/cairn-bench server/cairnd server/cairn-publish \
    client/ktcheck client/fsdiff client/lapply
CORPUS=$BENCH_DATA/update-corpus
LINKS=${BENCH_UPDATE_LINKS:-$DEFLINKS}

skip()
{
	echo "$BENCH_NAME: skipped: $*"
	exit 0
}

# full DIR: DIR is a directory with something in it.
full()
{
	[ -d "$1" ] && [ -n "$(ls -A "$1")" ]
}

if [ "$SHAPER" = tc ]; then
	[ "$(id -u)" -eq 0 ] || skip "--shaper tc needs root (network namespaces, tc)"
	for t in ip tc; do
		command -v "$t" >/dev/null 2>&1 || skip "$t not found (Debian package iproute2)"
	done
fi

rc=0
sh "$top_srcdir/bench/make-update-corpus" -d "$CORPUS" \
    -t "${BENCH_UPDATE_FETCH:-900}" >&2 || rc=$?
[ "$rc" -ne 2 ] || exit 2
if ! full "$CORPUS/OLD" || ! full "$CORPUS/NEW"; then
	skip "no update corpus in $CORPUS (the Debian archive is unreachable and nothing is cached)"
fi
# make-update-corpus fails before it touches the trees when apt has no
# package lists: the trees of an earlier run are then used.
[ "$rc" -eq 0 ] ||
    echo "$BENCH_NAME: make-update-corpus failed; using the trees cached in $CORPUS" >&2

set --
for l in $LINKS; do
	set -- "$@" -L "$l"
done
"$B/bench/cairn-bench" -B "$B" --shaper "$SHAPER" "$@" \
    -n "${BENCH_UPDATE_REPS:-1}" --csv "$B/$BENCH_NAME.csv" \
    --update "$CORPUS/OLD" "$CORPUS/NEW"
