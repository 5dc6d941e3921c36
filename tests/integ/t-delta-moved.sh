#!/bin/sh
# t-delta-moved: a file whose path moved between two versions still
# comes as a delta, by the version rule (docs/formats.md section 14.1):
# its path the same but for its numbers, the file of the old path
# removed by the same update.  cairn-publish -f pairs the two loadsets
# so, and lapply asks the new file as a delta from the removed one:
#  - kernel-like modules, lib/modules/6.1.0-9-amd64 to 6.1.0-10-amd64:
#    the new path sorts first, the old file is still there when asked;
#  - opt/app/v55 to v56 and libx.so.1.2 to libx.so.1.3: the old file is
#    removed first, held open by lapply until its successor is asked
#    (with -j 2, where a file is asked only at its turn);
#  - a file whose key differs (x1.txt gone, y1.txt new) comes whole.
# Every tree ends byte for byte the new version; lapply -v and cairnd's
# session-end line count the same deltas.  With descriptors for only
# two held bases (ulimit -n), the third removed first comes whole.
. "$top_srcdir/tests/integ/lib.sh"
need_zstd
need_tool cairnd cairn-publish ktcheck fsdiff lapply
need_root
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
umask 022

R=$T/repo
mkdir -p "$R/command" "$R/transcript" "$R/file" "$R/special" \
    "$R/tmp/transcript" "$R/tmp/file" || fail "mkdir"
. "$top_srcdir/tests/integ/dstorelib.sh"
echo '127.0.0.1 app.K' >"$R/config"
: >"$R/command/app.K"
C=$T/client
ROOT=$T/root
mkdir -p "$C" "$ROOT" || fail "mkdir"
: >"$C/command.K"
touch -d "@$T0" "$C/command.K"

# version PATH SEED [KEY]: file $T/ref/PATH, 200 KB of random bytes
# of its own (drawn from KEY, by default PATH with its directories'
# numbers left out: a delta from another file is worth nothing), a few
# of them differing by SEED.
version()
{
	mkdir -p "$(dirname "$T/ref/$1")" || fail "mkdir $1"
	python3 -c 'import random, re, sys
key = sys.argv[4] if len(sys.argv) > 4 else \
    re.sub(r"[0-9]+(?=.*/)", "#", sys.argv[1])
data = bytearray(random.Random(key).randbytes(200000))
for i in range(0, len(data), 40000):
    data[i] = int(sys.argv[2]) & 255
open(sys.argv[3], "wb").write(data)' "$1" "$2" "$T/ref/$1" ${3:+"$3"} ||
	    fail "version $1"
}

MODS="kernel/a.ko kernel/b.ko kernel/c.ko"
APPS="mod1.bin mod2.bin mod3.bin"

# --- version 1, published, and the client brought to it
for m in $MODS; do
	version "lib/modules/6.1.0-9-amd64/$m" 1
done
for m in $APPS; do
	version "opt/app/v55/$m" 1
done
version usr/lib/libx.so.1.2 1 libx
version opt/other/x1.txt 1
version opt/other/same.txt 1
find "$T/ref" -exec touch -h -d @1700000000 {} +
stage app.T
publish 0 -k app.K app.T
cp -a "$T/ref" "$T/v1" || fail "cp v1"

# pull LAPPLY-OPTIONS...: ktcheck, fsdiff -A and lapply into $ROOT, as a
# client does; lapply's output in $T/out and $T/err.
pull()
{
	run_client ktcheck -c sha1 -K "$C/command.K"
	[ "$RC" -le 1 ] || fail "ktcheck: exit $RC: $(cat "$T/err")"
	in_dir "$ROOT" "$FSDIFF" -A -c sha1 -K "$C/command.K" \
	    -o "$T/apply.T" . || fail "fsdiff -A"
	run_capture "$T/out" "$T/err" in_dir "$ROOT" "$LAPPLY" \
	    -h 127.0.0.1 -p "$PORT" "$@" "$T/apply.T"
	assert_eq 0 "$RC" "lapply $*: $(cat "$T/err")"
}

# same_as DIR LABEL: the client tree is DIR byte for byte.
same_as()
{
	diff -r --no-dereference "$1" "$ROOT" >"$T/diff" 2>&1 ||
	    fail "$2: the tree is not the loadset: $(cat "$T/diff")"
	assert_no_files "$2: temp files left" "$ROOT" -name '*.radmind.*'
}

start_cairnd "$R"
pull -c sha1
same_as "$T/v1" "version 1"
stop_cairnd
cp -a "$ROOT" "$T/root1" || fail "cp root1"

# --- version 2: every versioned path moves, contents change a little
rm -rf "$T/ref/lib/modules/6.1.0-9-amd64" "$T/ref/opt/app/v55" \
    "$T/ref/usr/lib/libx.so.1.2" "$T/ref/opt/other/x1.txt"
for m in $MODS; do
	version "lib/modules/6.1.0-10-amd64/$m" 2
done
for m in $APPS; do
	version "opt/app/v56/$m" 2
done
version usr/lib/libx.so.1.3 2 libx
version opt/other/y1.txt 2
find "$T/ref" -exec touch -h -d @1700000100 {} +
stage app.T
publish 0 -f app.T
grep -q '^app.T: 7 deltas to build' "$T/pout" ||
    fail "-f: $(cat "$T/pout")"
publish 0 -d
grep -q '^deltas: 7 built' "$T/pout" || fail "-d: $(cat "$T/pout")"
cp -a "$T/ref" "$T/v2" || fail "cp v2"

reset()
{
	rm -rf "$ROOT" && cp -a "$T/root1" "$ROOT" || fail "reset"
	: >"$SLOG"
}

# deltas N LABEL: lapply -v says N files came as deltas, none fetched
# again, and the sessions cairnd ended count N deltas in all.
deltas()
{
	grep -q "^delta: $1 files by delta, [0-9]* bytes on the wire for [0-9]* bytes whole; 0 fetched whole after a failed delta\$" \
	    "$T/out" || fail "$2: lapply -v: $(cat "$T/out")"
	wait_kids 0
	_n=0
	for _s in $(sed -n 's/.*delta requests [0-9]*: \([0-9]*\) as deltas.*/\1/p' "$SLOG"); do
		_n=$((_n + _s))
	done
	assert_eq "$1" "$_n" "$2: deltas in cairnd's session-end lines"
}

# asked VERB PATH: cairnd's trace shows PATH asked with VERB.
asked()
{
	grep -q "^<<< $1 .*FILE app\.T \./$2\$" "$SLOG" ||
	    fail "$2 not asked with $1: $(grep '^<<<' "$SLOG")"
}

start_cairnd "$R" -d

# --- one session: every moved file by delta, the other one whole
reset
pull -c sha1 -v
same_as "$T/v2" "one session"
deltas 7 "one session"
asked DELTA lib/modules/6.1.0-10-amd64/kernel/a.ko
asked DELTA opt/app/v56/mod1.bin
asked DELTA usr/lib/libx.so.1.3
asked RETR opt/other/y1.txt

# --- -j 2: the removed bases are held until their successor is asked
reset
pull -c sha1 -v -j 2
same_as "$T/v2" "-j 2"
deltas 7 "-j 2"

# --- room for two held bases only: the third removed first comes whole
reset
pull_low()
{
	ulimit -n 1026 || fail "ulimit -n"
	pull -c sha1 -v -j 2
}
pull_low
same_as "$T/v2" "two held"
deltas 6 "two held"
asked DELTA opt/app/v56/mod1.bin
asked DELTA opt/app/v56/mod2.bin
asked RETR opt/app/v56/mod3.bin
asked DELTA usr/lib/libx.so.1.3

# --- without -c nothing is asked as a delta, and the tree is the same
reset
pull -v
same_as "$T/v2" "no -c"
grep -q '^<<< DELTA' "$SLOG" && fail "no -c: DELTA asked"
stop_cairnd
exit 0
