#!/bin/sh
# t-readme-fuzz: the README's "Fuzzing" section counts the libFuzzer
# targets there are: one a tests/fuzz/fuzz_<target>.c, each listed in
# FUZZ_TARGETS (tests/fuzz/local.mk), which `make fuzz` runs, and each
# with its seeds in tests/fuzz/corpus/<target>/.
. "$top_srcdir/tests/integ/lib.sh"
mk_tmpdir

targets=$(sed -n 's/^FUZZ_TARGETS = //p' "$top_srcdir/tests/fuzz/local.mk")
[ -n "$targets" ] || fail "no FUZZ_TARGETS in tests/fuzz/local.mk"
n=0
for t in $targets; do
	n=$((n + 1))
	[ -f "$top_srcdir/tests/fuzz/fuzz_$t.c" ] ||
	    note_fail "FUZZ_TARGETS names $t: no tests/fuzz/fuzz_$t.c"
	[ -d "$top_srcdir/tests/fuzz/corpus/$t" ] ||
	    note_fail "$t: no seeds in tests/fuzz/corpus/$t"
done
for f in "$top_srcdir"/tests/fuzz/fuzz_*.c; do
	t=${f##*/fuzz_}
	t=${t%.c}
	case " $targets " in
	*" $t "*)	;;
	*)	note_fail "tests/fuzz/fuzz_$t.c is not in FUZZ_TARGETS" ;;
	esac
done
set -- zero one two three four five six seven eight nine ten eleven twelve
[ "$n" -lt $# ] || fail "$n targets: more than this test can spell"
shift "$n"
word=$1
sed -n '/^## Fuzzing/,/^## /p' "$top_srcdir/README.md" >"$T/fuzz.md"
grep -q 'libFuzzer targets' "$T/fuzz.md" || fail "no Fuzzing section in README.md"
tr '\n' ' ' <"$T/fuzz.md" | grep -q "builds $word libFuzzer targets" ||
    note_fail "README.md does not say \"builds $word libFuzzer targets\":" \
    "$(grep -o 'builds [a-z0-9]* libFuzzer' "$T/fuzz.md")"
end_test
