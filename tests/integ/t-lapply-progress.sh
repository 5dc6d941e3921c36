#!/bin/sh
# t-lapply-progress: lapply's status line, run on a pseudo-terminal
# against cairnd.  With stdout and stderr on the terminal, the line is
# drawn in place and shows the final totals (6/6 files, every byte),
# the messages come out as without it and nothing is left of the line
# at the end; with only stderr on the terminal, stdout is exactly the
# messages; through pipes no line is drawn at all; -q draws nothing;
# -% prints exactly the lines it prints into a pipe.  With -Z and -j 3
# the line shows what compression saved, counting each session once.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lapply
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/lapply-lib.sh"
PTYRUN="$top_srcdir/tests/integ/ptyrun.py"

REPO=$T/repo
make_repo "$REPO"
F=$REPO/file/test.T
mkdir -p "$F/p"
# Six files of 64 KiB of text: 384.0 KiB to download, and compressible.
for i in 1 2 3 4 5 6; do
	yes "line of file $i, the same again and again" | head -c 65536 \
	    >"$F/p/f$i"
done
{
	echo 'test.T:'
	echo "d ./p 0755 $U $G"
	flines "$F/p" ./p 0644 "$U" "$G" f1 f2 f3 f4 f5 f6
} >"$T/apply.T"
TOTALS='6/6 files  384.0 KiB/384.0 KiB'

# ptyrun LOG LAPPLY-OPTIONS...: lapply on a terminal into a fresh root;
# sets RC, the screen it leaves in LOG.screen, the lines drawn in
# LOG.drawn.  PTYOUT, if set, takes stdout instead of the terminal.
ptyrun()
{
	_log=$1
	shift
	rm -rf "$R"
	mkdir "$R"
	RC=0
	in_dir "$R" python3 "$PTYRUN" ${PTYOUT:+-o "$PTYOUT"} -t 60 "$_log" \
	    "$LAPPLY" -h 127.0.0.1 -p "$PORT" -c sha1 "$@" "$T/apply.T" ||
	    RC=$?
	python3 "$PTYRUN" -S "$_log" "$_log.screen" "$_log.drawn" ||
	    fail "cannot replay $_log"
}

# pipe LAPPLY-OPTIONS...: lapply into pipes, into a fresh root.
pipe()
{
	rm -rf "$R"
	mkdir "$R"
	run_capture "$T/out" "$T/err" in_dir "$R" "$LAPPLY" -h 127.0.0.1 \
	    -p "$PORT" -c sha1 "$@" "$T/apply.T"
}

start_cairnd "$REPO" -Z 9

# No terminal: no status line, the messages alone.
pipe
assert_eq 0 "$RC" "pipe: $(cat "$T/err")"
[ -s "$T/err" ] && fail "pipe: stderr: $(cat "$T/err")"
grep -q "$(printf '\r')" "$T/out" && fail "pipe: a carriage return on stdout"
assert_eq 7 "$(wc -l <"$T/out")" "pipe: messages"
cp "$T/out" "$T/messages"
for i in 1 2 3 4 5 6; do
	assert_file_eq "$F/p/f$i" "$R/p/f$i" "pipe: f$i"
done

# Both on the terminal: the line, then the messages alone on the screen.
ptyrun "$T/tty"
assert_eq 0 "$RC" "tty: $(cat "$T/tty")"
grep -q "^100%  $TOTALS" "$T/tty.drawn" ||
    fail "tty: no line with the final totals: $(cat "$T/tty.drawn")"
grep -q '^  0%  0/6 files  0 B/384.0 KiB' "$T/tty.drawn" ||
    fail "tty: no first line: $(cat "$T/tty.drawn")"
assert_file_eq "$T/messages" "$T/tty.screen" "tty: the screen"
for i in 1 2 3 4 5 6; do
	assert_file_eq "$F/p/f$i" "$R/p/f$i" "tty: f$i"
done

# Only stderr on the terminal: stdout holds the messages, nothing more.
PTYOUT=$T/ttyout ptyrun "$T/tty2"
assert_eq 0 "$RC" "stderr tty: $(cat "$T/tty2")"
assert_file_eq "$T/messages" "$T/ttyout" "stderr tty: stdout"
grep -q "^100%  $TOTALS" "$T/tty2.drawn" ||
    fail "stderr tty: no final totals: $(cat "$T/tty2.drawn")"
[ -s "$T/tty2.screen" ] && fail "stderr tty: left on the screen: \
$(cat "$T/tty2.screen")"

# -q: nothing at all on the terminal.
ptyrun "$T/quiet" -q
assert_eq 0 "$RC" "-q: $(cat "$T/quiet")"
[ -s "$T/quiet" ] && fail "-q: terminal output: $(cat -A "$T/quiet")"

# -%: Radmind's percent lines, as into a pipe, no status line.  Where
# the percentage grows depends on how the data arrives, so the lines of
# a download are checked for their form; without one (-n) they are the
# very lines printed into a pipe.
# percent_ok FILE: "%NN path" lines, growing, the paths in transcript
# order, ending at %100.
percent_ok()
{
	awk 'BEGIN { last = -1; o["./p"] = 0
	    for (i = 1; i <= 6; i++) o["./p/f" i] = i }
	    !/^%[0-9][0-9]+ \.\/p(\/f[1-6])?$/ { exit 1 }
	    { pct = substr($1, 2) + 0; if (pct <= last) exit 1
	    if (o[$2] < op) exit 1; op = o[$2]; last = pct }
	    END { exit last != 100 }' "$1"
}
pipe -%
assert_eq 0 "$RC" "-% pipe: $(cat "$T/err")"
percent_ok "$T/out" || fail "-% pipe: $(cat "$T/out")"
ptyrun "$T/pct" -%
assert_eq 0 "$RC" "-% tty: $(cat "$T/pct")"
percent_ok "$T/pct.screen" || fail "-% tty: $(cat "$T/pct.screen")"
grep -q "$(printf '\033')" "$T/pct" && fail "-% tty: escape sequences: \
$(cat -A "$T/pct")"
pipe -% -n
assert_eq 0 "$RC" "-% -n pipe: $(cat "$T/err")"
cp "$T/out" "$T/percent"
ptyrun "$T/pctn" -% -n
assert_eq 0 "$RC" "-% -n tty: $(cat "$T/pctn")"
assert_file_eq "$T/percent" "$T/pctn.screen" "-% -n on a terminal"
grep -q "$(printf '\033')" "$T/pctn" && fail "-% -n tty: escape sequences"

# Compression over three sessions: the totals, and what zlib saved on
# what the sessions received, each session counted once (the data is
# 384 KiB; its requests and replies add little).
# saved LOG: the bytes before inflating of the last line drawn, in KiB.
saved()
{
	tail -n 1 "$1" | sed -n \
	    's/.*  zlib \([0-9.]*\) KiB -> [0-9.]* [KiB]* ([0-9.]*% saved)$/\1/p'
}
for j in 1 3; do
	ptyrun "$T/z$j" -Z 6 -j "$j"
	assert_eq 0 "$RC" "-Z 6 -j $j: $(cat "$T/z$j")"
	tail -n 1 "$T/z$j.drawn" | grep -q "^100%  $TOTALS  .*  zlib " ||
	    fail "-Z 6 -j $j: last line: $(cat "$T/z$j.drawn")"
	raw=$(saved "$T/z$j.drawn")
	[ -n "$raw" ] || fail "-Z 6 -j $j: no compression: $(cat "$T/z$j.drawn")"
	awk -v r="$raw" 'BEGIN { exit !(r >= 384 && r < 400) }' ||
	    fail "-Z 6 -j $j: $raw KiB received before inflating"
	assert_file_eq "$T/messages" "$T/z$j.screen" "-Z 6 -j $j: the screen"
	for i in 1 2 3 4 5 6; do
		assert_file_eq "$F/p/f$i" "$R/p/f$i" "-Z 6 -j $j: f$i"
	done
done
stop_cairnd
end_test
