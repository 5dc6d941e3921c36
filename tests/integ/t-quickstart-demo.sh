#!/bin/sh
# The quick start's demonstration says what happens truthfully: the
# server allows levels up to 9 and the client chooses 6, special.T is
# explained, and its last line is one a newcomer can read whose figures
# are lapply's own (files pulled, bytes, bytes on the wire, level 6,
# what compression saved).  It runs here as `quickstart --installed` over
# the build's programs, linked into a bin and an sbin directory as a
# package would install them; a bad option is a usage error (exit 2).
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd cairn-bench fsdiff ktcheck lapply
need_cmd python3
mk_tmpdir

mkdir -p "$T/bin" "$T/sbin" || fail "mkdir"
ln -s "$CAIRND" "$T/sbin/cairnd" || fail "ln"
for t in cairn-bench fsdiff ktcheck lapply; do
	ln -s "$(tool_path "$t")" "$T/bin/$t" || fail "ln $t"
done

run_capture "$T/out" "$T/err" env TMPDIR="$T" CAIRN_BINDIR="$T/bin" \
    CAIRN_SBINDIR="$T/sbin" bash "$top_srcdir/quickstart" --installed
assert_eq 0 "$RC" "quickstart --installed: $(cat "$T/err")"

grep -q '^==> cairnd -Z 9 on 127\.0\.0\.1:[0-9]*: clients may ask for zlib levels up to 9$' \
    "$T/out" || fail "no server header: $(cat "$T/out")"
grep -q "(the client chooses level 6, within the server's 9)" "$T/out" ||
    fail "the client's choice is not said"
grep -q 'special\.T lists the files the server keeps for this host' \
    "$T/out" || fail "special.T is not explained"

# The closing line, the last, and its figures against the transcript.
line=$(grep '^==> pulled ' "$T/out") || fail "no closing line"
[ "$(grep -c '^==> pulled ' "$T/out")" = 1 ] || fail "several closing lines"
assert_eq "$line" "$(tail -n 1 "$T/out")" "the last line"
echo "$line" | grep -Eq '^==> pulled [0-9]+ files in [0-9]+\.[0-9]{2} s: [0-9.]+ MB sent as [0-9.]+ MB on the wire \(zlib level 6\), compression saved [0-9.]+%$' ||
    fail "closing line: $line"
n=$(echo "$line" | sed 's/^==> pulled \([0-9]*\) files.*/\1/')
want=$(sed -n 's/^    \([0-9]*\) files to download$/\1/p' "$T/out")
assert_eq "$want" "$n" "files pulled"
[ "$n" -gt 0 ] || fail "no files pulled"
# The sample holds compressible text: something was saved, and the wire
# figure is below the sent one.
echo "$line" | python3 -c '
import re, sys
m = re.search(r"([0-9.]+) MB sent as ([0-9.]+) MB on the wire.*saved ([0-9.]+)%",
              sys.stdin.read())
raw, wire, saved = map(float, m.groups())
sys.exit(0 if wire < raw and saved > 0 else 1)' ||
    fail "compression saved nothing: $line"
grep -q 'identical: content, modes and mtimes' "$T/out" ||
    fail "no verification"
# Nothing of the demonstration is left behind.
ls "$T" | grep -q '^cairn-quickstart\.' && fail "temporary directory left"

run_capture "$T/out" "$T/err" bash "$top_srcdir/quickstart" --bogus
assert_eq 2 "$RC" "quickstart --bogus"
grep -q '^usage: quickstart' "$T/err" || fail "no usage line"
exit 0
