#!/bin/sh
# t-lapply-vectors: the Radmind conformance cases for lapply
# (vectors/lapply-n, vectors/lapply-err-plus-no-header), byte for byte.
# lapply-n ends with an fsdiff of the result.
. "$top_srcdir/tests/integ/lib.sh"
need_root
need_tool lapply fsdiff
need_cmd python3
mk_tmpdir
. "$top_srcdir/tests/integ/lapply-lib.sh"
V=${CAIRN_VECTORS:-$top_srcdir/tests/vectors}
[ -x "$V/make-trees" ] && [ -d "$V/lapply-n" ] ||
    skip "conformance vectors not found (set CAIRN_VECTORS)"
TREES=$T/trees
bash "$V/make-trees" "$TREES" > "$T/make-trees.log" 2>&1 ||
    fail "make-trees failed"
BIN=$(cd "$(dirname "$LAPPLY")" && pwd)

# runcase NAME: run the case's cmd, output in $T/out $T/err, status $RC.
runcase()
{
	ln -sfn "$V/$1" "$TREES/case"
	run_capture "$T/out" "$T/err" in_dir "$TREES" env PATH="$BIN:$PATH" \
	    bash case/cmd
}

runcase lapply-err-plus-no-header
cmp -s "$T/out" "$V/lapply-err-plus-no-header/stdout" || fail "err: stdout"
cmp -s "$T/err" "$V/lapply-err-plus-no-header/stderr" || fail "err: stderr"
[ "$RC" = "$(cat "$V/lapply-err-plus-no-header/rc")" ] || fail "err: rc $RC"

runcase lapply-n
cmp -s "$T/err" "$V/lapply-n/stderr" || fail "lapply-n: stderr"
[ "$RC" = "$(cat "$V/lapply-n/rc")" ] || fail "lapply-n: rc $RC"
cmp -s "$T/out" "$V/lapply-n/stdout" || fail "lapply-n: stdout"
exit 0
