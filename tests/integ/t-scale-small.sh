#!/bin/sh
# t-scale-small: bench/bench-scale.sh with 20 clients through a real
# HAProxy in front of three cairnd (a primary and two replicas kept in
# step by cairn-replicate), while a new generation of the loadset is
# published and a replica's cairnd is killed and restarted.  Every
# client (cairn-ra auto, retrying what cairn-ra retries) must succeed,
# every tree must be exactly one published generation, and after the
# final run every client must be at the newest one.  Nothing here
# depends on timings: the figures the harness prints are not checked.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd cairn-publish cairn-replicate cairn-ra ktcheck fsdiff lapply
mk_tmpdir
command -v haproxy >/dev/null 2>&1 || PATH=$PATH:/usr/sbin
command -v haproxy >/dev/null 2>&1 || skip "haproxy is not installed"

N=20
BENCH_SCALE_CLIENTS=$N BENCH_SCALE_MODES=haproxy BENCH_SCALE_DEADLINE=300 \
    BENCH_SCALE_OUT=$T/summary BENCH_SCALE_LOGDIR=$T BENCH_DATA=$T/data \
    top_builddir=$top_builddir top_srcdir=$top_srcdir \
    bash "$top_srcdir/bench/bench-scale.sh" >"$T/out" 2>&1
RC=$?
on_fail 'echo "--- bench-scale:"; cat "$T/out"; echo "--- daemons:"; tail -50 "$T/bench-scale.log"'
assert_eq 0 "$RC" "bench-scale.sh exit status"

line=$(grep '^scale: mode=haproxy ' "$T/summary")
[ -n "$line" ] || fail "no summary line"
# field KEY: the value of KEY= in the summary line.
field()
{
	echo " $line " | sed -n "s/.* $1=\([^ ]*\) .*/\1/p"
}
assert_eq "$N" "$(field clients)" "clients"
assert_eq 1 "$(field published)" "the new generation was published"
assert_eq 1 "$(field killed)" "a daemon was killed and restarted"
assert_eq 0 "$(field errors)" "honest client errors"
assert_eq 0 "$(field mixed)" "mixed trees"
assert_eq "$N" $(($(field gen1) + $(field gen2))) "trees at a generation"
assert_eq 0 "$(field final_errors)" "errors in the final run"
assert_eq 0 "$(field final_mixed)" "mixed trees after the final run"
assert_eq "$N" "$(field newest)" "clients at the newest generation"
exit 0
