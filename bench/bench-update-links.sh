#!/bin/bash
# bench-update-links.sh: a real update, whole files against deltas, on
# each link profile: cairn-bench --update on the Debian update corpus
# (bench/make-update-corpus: OLD/ and NEW/ from two versions of some 25
# packages, cached in $BENCH_DATA/update-corpus).  cairn-bench publishes
# OLD, brings a client to it, publishes NEW over it with cairn-publish -f
# and -d, and pulls the update whole and by delta at -Z 6 and -Z auto
# over each link through its relay; every pull is checked to leave NEW.
# The report is printed, the CSV left in $top_builddir/bench-update-links.csv.
# Figures only: nothing here fails on speed.
#
# Run through `make bench` or `make bench-update-links`, or by hand with
# top_builddir, top_srcdir and BENCH_DATA set.  Skips (exit 0, saying so)
# when the archive cannot be reached and nothing is cached.
#   BENCH_UPDATE_FETCH	seconds for make-update-corpus (default 900)
#   BENCH_UPDATE_LINKS	cairn-bench's links (gigabit fast-ethernet 802.11g;
#			dsl adds some 10 minutes)
#   BENCH_UPDATE_REPS	runs of each level and mode on each link (1)
BENCH_NAME=bench-update-links
. "${top_srcdir:?top_srcdir must be set}/bench/benchlib.sh"
bench_need bench/cairn-bench server/cairnd server/cairn-publish \
    client/ktcheck client/fsdiff client/lapply
CORPUS=$BENCH_DATA/update-corpus
LINKS=${BENCH_UPDATE_LINKS:-gigabit fast-ethernet 802.11g}

# full DIR: DIR is a directory with something in it.
full()
{
	[ -d "$1" ] && [ -n "$(ls -A "$1")" ]
}

rc=0
sh "$top_srcdir/bench/make-update-corpus" -d "$CORPUS" \
    -t "${BENCH_UPDATE_FETCH:-900}" >&2 || rc=$?
[ "$rc" -ne 2 ] || exit 2
if ! full "$CORPUS/OLD" || ! full "$CORPUS/NEW"; then
	echo "$BENCH_NAME: skipped: no update corpus in $CORPUS (the Debian archive is unreachable and nothing is cached)"
	exit 0
fi
# make-update-corpus fails before it touches the trees when apt has no
# package lists: the trees of an earlier run are then used.
[ "$rc" -eq 0 ] ||
    echo "$BENCH_NAME: make-update-corpus failed; using the trees cached in $CORPUS" >&2

set --
for l in $LINKS; do
	set -- "$@" -L "$l"
done
"$B/bench/cairn-bench" -B "$B" "$@" -n "${BENCH_UPDATE_REPS:-1}" \
    --csv "$B/bench-update-links.csv" --update "$CORPUS/OLD" "$CORPUS/NEW"
