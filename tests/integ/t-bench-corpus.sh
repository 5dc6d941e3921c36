#!/bin/sh
# cairn-bench --make-corpus, the one corpus generator: a corpus holds
# every class at its share of the bytes (15% configuration, 20% source,
# 20% logs, 10% random, 10% gzip; the ELF class takes what the host has)
# and a MANIFEST.txt; the same size and seed give the same tree, through
# bench/gen-corpus too; files mode makes exactly N files at the class
# shares by count, no directory over 200 files, and another seed another
# tree; a directory in the way is refused.
. "$top_srcdir/tests/integ/lib.sh"

need_tool cairn-bench
mk_tmpdir

size=1048576
run_capture "$T/out" "$T/err" "$CAIRN_BENCH" --make-corpus "$T/a" 1M
[ "$RC" -eq 0 ] || { cat "$T/err" >&2; fail "--make-corpus exited $RC"; }
assert_file_eq "$T/out" "$T/a/MANIFEST.txt" "summary and MANIFEST.txt"
assert_eq "seed 1 size $size" "$(sed -n 1p "$T/out")" "summary header"
# The text, random and gzip classes fill their shares exactly.
for cs in config:15 source:20 log:20 random:10 gzip:10; do
	c=${cs%:*}
	want=$((size * ${cs#*:} / 100))
	got=$(awk -v c="$c" '$1 == c { print $5 }' "$T/out")
	assert_eq "$want" "$got" "bytes of class $c"
done
for d in etc usr/src var/log usr/share/media usr/share/archives; do
	[ -n "$(find "$T/a/$d" -type f | head -1)" ] || fail "nothing in $d"
done
gz=$(find "$T/a/usr/share/archives" -type f -name '*.gz' | head -1)
head -c 2 "$gz" | od -An -tx1 | grep -q '1f 8b' || fail "$gz is not gzip"
# The files and bytes the summary counts are those in the tree.
assert_eq "$(awk '$1 == "total" { print $3 }' "$T/out")" \
    "$(find "$T/a" -type f ! -name MANIFEST.txt | wc -l | tr -d ' ')" \
    "files counted"

# The same size and seed, through the front end: the same tree.
export CAIRN_BENCH
run_capture "$T/out2" "$T/err2" "$top_srcdir/bench/gen-corpus" --seed 1 \
    "$T/b" 1M
[ "$RC" -eq 0 ] || { cat "$T/err2" >&2; fail "gen-corpus exited $RC"; }
diff -r "$T/a" "$T/b" >/dev/null || fail "same size and seed, other tree"

# Files mode: exactly N files, the shares by count; another seed differs.
run_capture "$T/out" "$T/err" "$CAIRN_BENCH" --make-corpus "$T/f5" --files 400 \
    --seed 5
[ "$RC" -eq 0 ] || { cat "$T/err" >&2; fail "--files exited $RC"; }
assert_eq "seed 5 files 400" "$(sed -n 1p "$T/out")" "files summary header"
assert_eq 400 "$(find "$T/f5" -type f | wc -l | tr -d ' ')" "files made"
[ -e "$T/f5/MANIFEST.txt" ] && fail "files mode wrote a MANIFEST.txt"
for cn in config:60 source:80 log:80 random:40 gzip:40 elf:100; do
	assert_eq "${cn#*:}" "$(awk -v c="${cn%:*}" '$1 == c { print $3 }' \
	    "$T/out")" "files of class ${cn%:*}"
done
assert_eq 60 "$(find "$T/f5/etc" -type f | wc -l | tr -d ' ')" "files in etc"
find "$T/f5" -type d | while read -r d; do
	[ "$(find "$d" -maxdepth 1 -type f | wc -l)" -le 200 ] ||
	    fail "$d holds more than 200 files"
done || exit 1
run_capture "$T/out" "$T/err" "$CAIRN_BENCH" --make-corpus "$T/f6" --files 400 \
    --seed 6
[ "$RC" -eq 0 ] || { cat "$T/err" >&2; fail "--seed 6 exited $RC"; }
diff -r "$T/f5" "$T/f6" >/dev/null && fail "seeds 5 and 6 made the same tree"

# A directory in the way is refused (a failure, exit 1); usage errors 2.
run_capture "$T/out" "$T/err" "$CAIRN_BENCH" --make-corpus "$T/a" 1M
assert_eq 1 "$RC" "--make-corpus into a full directory"
grep -q "$T/a exists and is not an empty directory" "$T/err" ||
    fail "no message for a full directory"
run_capture "$T/out" "$T/err" "$CAIRN_BENCH" --make-corpus "$T/c" 1M --files 3
assert_eq 2 "$RC" "size and --files together"
run_capture "$T/out" "$T/err" "$CAIRN_BENCH" --files 3
assert_eq 2 "$RC" "--files without --make-corpus"
run_capture "$T/out" "$T/err" "$CAIRN_BENCH" --make-corpus "$T/c" 1X
assert_eq 2 "$RC" "a bad size"
[ -e "$T/c" ] && fail "a usage error made $T/c"
exit 0
