# tests/integ/dstorelib.sh: making a repository's store of bases and
# deltas for the tests, the way an administrator does: a tree staged as
# lcreate leaves an upload, published with cairn-publish.  Sourced after
# lib.sh (mk_tmpdir done); the caller sets R, the repository.  APPLY is
# tests/integ/delta-apply, to apply a delta to its basis.
#
#	stage NAME		$T/ref as the upload NAME (tmp/file/NAME,
#				tmp/transcript/NAME, made by fsdiff -C -c
#				sha1)
#	publish WANT ARGS...	cairn-publish -D $R ARGS..., exit WANT
#				(else fail); output in $T/pout, $T/perr
#	digest FILE		FILE's sha1 as transcripts print it
#	name FILE		the same with '/' as '_' (a name in the
#				store)
#	text FILE SEED LINES	text like a library's strings: LINES
#				lines, a few of them differing by SEED
APPLY=$top_builddir/tests/integ/delta-apply
[ -x "$APPLY" ] || fail "$APPLY was not built"
: >"$T/empty.K"

stage()
{
	rm -rf "${R:?}/tmp/file/$1"
	mkdir -p "$R/tmp/file/$1" && cp -a "$T/ref/." "$R/tmp/file/$1/" ||
	    fail "stage $1"
	in_dir "$T/ref" "$FSDIFF" -C -c sha1 -K "$T/empty.K" \
	    -o "$R/tmp/transcript/$1" . || fail "fsdiff -C $1"
}

publish()
{
	_want=$1
	shift
	run_capture "$T/pout" "$T/perr" "$CAIRN_PUBLISH" -D "$R" "$@"
	[ "$RC" -eq "$_want" ] ||
	    fail "cairn-publish $*: exit $RC, want $_want: $(cat "$T/pout" "$T/perr")"
}

digest()
{
	python3 -c 'import base64, hashlib, sys
d = hashlib.sha1(open(sys.argv[1], "rb").read()).digest()
print(base64.b64encode(d).decode())' "$1"
}

name()
{
	digest "$1" | tr / _
}

text()
{
	python3 -c 'import sys
seed, n = int(sys.argv[2]), int(sys.argv[3])
with open(sys.argv[1], "w") as f:
    for i in range(n):
        f.write("symbol_%d_%d = %d; /* %s */\n" %
            (i, (i * 7919) % 1000, (i * i + (seed if i % 500 == 0 else 0)),
             "x" * (i % 37)))' "$@" || fail "text $1"
}
