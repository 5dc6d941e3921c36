#!/bin/sh
# cairn-bench's line per run: with its output in a file or a pipe, every
# finished run gets a line on stdout as it ends (link, level, run
# number, time, wire bytes, server CPU), before the tables; -q leaves
# them out; on a terminal (stdout and stderr both) the bar alone shows
# the progress, as before.  One fixed level, loopback, one run, a tiny
# tree: it checks what is printed, not how fast anything went.
. "$top_srcdir/tests/integ/lib.sh"

need_tool cairnd ktcheck lapply fsdiff cairn-bench
mk_tmpdir
need_cmd python3

data=$T/data
mkdir -p "$data/etc"
for i in 1 2 3; do
	seq 1 2000 >"$data/etc/f$i"
done
RUNLINE='^run loopback -Z 1 1/1: [0-9.]* s (lapply [0-9.]* s), wire [1-9][0-9]* bytes ([0-9]* down, [0-9]* up), server CPU [0-9.]* s$'

# bench OUT ERR OPTIONS...: a sweep of level 1 on loopback, one run.
bench()
{
	_o=$1 _e=$2
	shift 2
	rm -rf "$T/work"
	run_capture "$_o" "$_e" "$CAIRN_BENCH" -B "$top_builddir" \
	    -w "$T/work" -d "$data" -l 1 -L loopback -n 1 "$@"
	if [ "$RC" -ne 0 ]; then
		cat "$_o" "$_e" >&2
		fail "cairn-bench $* exited $RC"
	fi
}

# Into a file: the run's line, after the link check, before the table.
bench "$T/out" "$T/err"
cat "$T/out"
[ "$(grep -c '^run ' "$T/out")" -eq 1 ] || fail "not one line per run"
grep -q "$RUNLINE" "$T/out" || fail "run line: $(grep '^run ' "$T/out")"
check=$(grep -n '^link loopback: ' "$T/out" | cut -d: -f1)
run=$(grep -n '^run loopback ' "$T/out" | cut -d: -f1)
table=$(grep -n '^loopback (' "$T/out" | cut -d: -f1)
[ -n "$check" ] && [ -n "$table" ] || fail "no link check or no table"
[ "$check" -lt "$run" ] && [ "$run" -lt "$table" ] ||
    fail "the run line is not between the link check and the table"
[ -s "$T/err" ] && fail "stderr: $(cat "$T/err")"

# Through a pipe, as it goes: the same line.
rm -rf "$T/work"
"$CAIRN_BENCH" -B "$top_builddir" -w "$T/work" -d "$data" -l 1 \
    -L loopback -n 1 2>"$T/err" | cat >"$T/out2"
grep -q "$RUNLINE" "$T/out2" || fail "pipe: no run line: $(cat "$T/out2")"

# -q: no line per run.
bench "$T/outq" "$T/errq" -q
grep -q '^run ' "$T/outq" && fail "-q: a run line"
grep -q '^loopback (' "$T/outq" || fail "-q: no table"

# On a terminal: the bar, no run line.
rm -rf "$T/work"
python3 "$top_srcdir/tests/integ/ptyrun.py" -t 120 "$T/tty" \
    "$CAIRN_BENCH" -B "$top_builddir" -w "$T/work" -d "$data" -l 1 \
    -L loopback -n 1 || fail "on a terminal: exit $?"
python3 "$top_srcdir/tests/integ/ptyrun.py" -S "$T/tty" "$T/tty.screen" \
    "$T/tty.drawn" || fail "cannot replay the terminal"
grep -q '^run ' "$T/tty.screen" && fail "terminal: a run line"
grep -q '^loopback (' "$T/tty.screen" || fail "terminal: no table"
grep -q '\[#*\.*\] *[0-9]*% ' "$T/tty" || fail "terminal: no bar"
exit 0
