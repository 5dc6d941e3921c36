#!/bin/sh
# t-lapply-delta: lapply asks a changed file as a delta from the file it
# replaces (DELTA, docs/protocol.md section 5.11) when the server lists
# DELTA and -c is given, against tests/integ/lapply-srv.py serving
# deltas made by tests/integ/delta-make.  Checked: the tree after lapply
# is the target byte for byte, files with a basis go as DELTA and new
# ones as RETR, and -v counts them; a drifted local file (a basis the
# server has no delta from) gets the whole file; a delta from another
# basis, a corrupt and a truncated delta, and one that makes another
# size than the transcript's (refused before decoding) end in the whole
# file fetched at once, and the old file stays intact when that fetch is
# refused; a
# basis swapped for a symbolic link, a FIFO or a hard link is never read
# (the file goes as RETR, the link's target untouched); -j 2 does the
# same; more files than bases may be open at once all go as DELTA, with
# -j 8 too;
# without DELTA offered, or without -c, only RETR is sent.
. "$top_srcdir/tests/integ/lib.sh"
need_zstd
need_tool lapply
mk_tmpdir
. "$top_srcdir/tests/integ/lapply-lib.sh"
need_cmd python3
MAKE=$top_builddir/tests/integ/delta-make
[ -x "$MAKE" ] || fail "$MAKE was not built"
S=$T/srv
mkdir -p "$S/file/test.T/etc" "$S/delta" "$T/old/etc" || fail "mkdir"

# text FILE SEED: some 40 KB of text, mostly the same for any seed.
text()
{
	python3 -c 'import sys
seed = int(sys.argv[2])
with open(sys.argv[1], "w") as f:
    for i in range(1200):
        f.write("line %d of the file, %d\n" %
            (i, i * 7919 + (seed if i % 300 == 0 else 0)))' "$@" ||
	    fail "text $1"
}

# name FILE: its sha1 as transcripts print it, '/' as '_'.
name()
{
	sha1b64 "$1" | tr / _
}

# delta OLD NEW: the server's delta from file OLD to file NEW.
delta()
{
	"$MAKE" "$1" "$2" "$S/delta/$(name "$1").$(name "$2")" ||
	    fail "delta-make $1 $2"
}

# The old versions (kept in $T/old) and the new ones the server serves.
for f in a b c d e; do
	text "$T/old/$f" 1
	text "$S/file/test.T/$f" 2
	delta "$T/old/$f" "$S/file/test.T/$f"
done
text "$T/old/etc/conf" 3
text "$S/file/test.T/etc/conf" 4
delta "$T/old/etc/conf" "$S/file/test.T/etc/conf"
text "$S/file/test.T/new" 5
for f in link fifo hard; do
	text "$T/old/$f" 6
	text "$S/file/test.T/$f" 7
	delta "$T/old/$f" "$S/file/test.T/$f"
done

# The transcript: every file, as the server has it.
{
	echo "test.T:"
	for f in a b c d e etc/conf fifo hard link new; do
		fline "./$f" "$S/file/test.T/$f" 0644
	done
} >"$T/a.T"

# reset: the apply root holds the old versions (no new file).
reset()
{
	rm -rf "$R" && mkdir "$R" && cp -a "$T/old/." "$R/" ||
	    fail "reset"
}

# same_tree: every file of the transcript is the server's, byte for byte.
same_tree()
{
	for _f in a b c d e etc/conf fifo hard link new; do
		[ -f "$R/$_f" ] && [ ! -L "$R/$_f" ] ||
		    fail "$1: ./$_f is no regular file"
		cmp -s "$R/$_f" "$S/file/test.T/$_f" ||
		    fail "$1: ./$_f is not the server's"
	done
	assert_no_files "$1: temp files left" "$R" -name '*.radmind.*'
}

# requests VERB: the paths requested with VERB, sorted.
requests()
{
	awk -v v="$1" '$1 == v { print $NF }' "$T/log" | sort
}

# expect_requests VERB PATHS...: exactly PATHS were asked with VERB.
expect_requests()
{
	_v=$1
	shift
	requests "$_v" >"$T/got"
	printf '%s\n' "$@" | sed '/^$/d' | sort >"$T/want"
	assert_file_eq "$T/want" "$T/got" "$_v requests"
}

# --- every file with a basis goes as DELTA; the tree is the target
reset
serve_files "$S" delta - conns 2
net_apply "$R" "$T/a.T" -c sha1 -v
expect_rc 0
same_tree "delta"
expect_requests DELTA ./a ./b ./c ./d ./e ./etc/conf ./fifo ./hard ./link
expect_requests RETR ./new
grep -q '^DELTA sha1 [^ ]* FILE test.T ./a$' "$T/log" ||
    fail "no DELTA request in the protocol's form: $(cat "$T/log")"
# Each DELTA names the digest of the old file.
_want=$(sha1b64 "$T/old/a")
grep -q "^DELTA sha1 $_want FILE test.T ./a\$" "$T/log" ||
    fail "DELTA for ./a does not name its basis $_want"
grep -q '^delta: 9 files by delta, [0-9]* bytes on the wire for [0-9]* bytes whole; 0 fetched whole after a failed delta$' \
    "$T/out" || fail "no delta counters in -v: $(cat "$T/out")"
_wire=$(sed -n 's/^delta: 9 files by delta, \([0-9]*\) bytes.*/\1/p' "$T/out")
_whole=$(sed -n 's/^delta: .* for \([0-9]*\) bytes whole.*/\1/p' "$T/out")
[ "$_wire" -lt "$_whole" ] ||
    fail "deltas of $_wire bytes for $_whole bytes whole"

# --- a drifted file: no delta from its basis, the whole file comes
reset
printf 'local change\n' >>"$R/b"
_drift=$(sha1b64 "$R/b")
serve_files "$S" delta - conns 2
net_apply "$R" "$T/a.T" -c sha1 -v
expect_rc 0
same_tree "drifted"
grep -q "^DELTA sha1 $_drift FILE test.T ./b\$" "$T/log" ||
    fail "DELTA for ./b does not name the drifted file's digest"
grep -q '^delta: 8 files by delta, .* 0 fetched whole after a failed delta$' \
    "$T/out" || fail "drifted: counters: $(cat "$T/out")"

# --- a delta from another basis, a corrupt and a truncated delta: the
# whole file is fetched at once (RETR, on a session of its own)
reset
sed 's/^line 5 of/LINE 5 of/' "$T/old/b" >"$T/other" || fail "other"
delta "$T/other" "$S/file/test.T/b"
serve_files "$S" delta - conns 2 dwrong ./b dcorrupt ./c dtrunc ./d
net_apply "$R" "$T/a.T" -c sha1 -v
rm -f "$S/delta/$(name "$T/other").$(name "$S/file/test.T/b")"
expect_rc 0
same_tree "failed deltas"
expect_requests RETR ./b ./c ./d ./new
grep -q '^delta: 6 files by delta, .* 3 fetched whole after a failed delta$' \
    "$T/out" || fail "failed deltas: counters: $(cat "$T/out")"
for _f in b c d; do
	grep -q "line [0-9]*: \./$_f: delta: .*; fetching the whole file\$" \
	    "$T/err" || fail "-v does not say the delta of ./$_f failed: $(cat "$T/err")"
done
grep -q 'basis is not the one' "$T/err" || fail "wrong basis: $(cat "$T/err")"
grep -q 'd: delta: truncated' "$T/err" || fail "truncated: $(cat "$T/err")"
grep -q 'c: delta: corrupt' "$T/err" || fail "corrupt: $(cat "$T/err")"

# --- a delta that makes another size than the transcript's (its header
# and its frame agreeing, at 20 MiB): refused when its header is read,
# before anything is decoded, and the whole file fetched
reset
head -c 20971520 /dev/zero >"$T/big" || fail "big"
"$MAKE" "$T/old/etc/conf" "$T/big" \
    "$S/delta/$(name "$T/old/etc/conf").$(name "$S/file/test.T/etc/conf")" ||
    fail "delta-make big"
serve_files "$S" delta - conns 2
net_apply "$R" "$T/a.T" -c sha1 -v
delta "$T/old/etc/conf" "$S/file/test.T/etc/conf"
expect_rc 0
same_tree "a delta of another size"
expect_requests RETR ./etc/conf ./new
_esize=$(wc -c <"$S/file/test.T/etc/conf")
grep -q "\./etc/conf: delta: makes 20971520 bytes, not the $_esize expected; fetching the whole file\$" \
    "$T/err" || fail "a delta of another size: $(cat "$T/err")"

# --- the whole file refused after a failed delta: the old file stays
reset
serve_files "$S" delta - conns 2 drefetch ./c
net_apply "$R" "$T/a.T" -c sha1
[ "$RC" -ne 0 ] || fail "a file that could not be fetched: exit 0"
cmp -s "$R/c" "$T/old/c" || fail "./c changed after its delta failed"
assert_no_files "refused: temp files left" "$R" -name '*.radmind.*'
expect_requests RETR ./c ./new

# --- bases swapped between fsdiff and lapply: a symbolic link (to a
# file outside the root), a FIFO, a hard link: never read, asked whole
reset
rm -f "$R/link" "$R/fifo" "$R/hard"
cp "$T/old/link" "$OUT/victim" || fail "victim"
ln -s "$OUT/victim" "$R/link" || fail "ln -s"
mkfifo "$R/fifo" || fail "mkfifo"
cp "$T/old/hard" "$R/hard" && ln "$R/hard" "$R/hard2" || fail "ln"
serve_files "$S" delta - conns 2
net_apply "$R" "$T/a.T" -c sha1
expect_rc 0
same_tree "swapped"
expect_requests DELTA ./a ./b ./c ./d ./e ./etc/conf
expect_requests RETR ./fifo ./hard ./link ./new
cmp -s "$OUT/victim" "$T/old/link" || fail "the link's target changed"
cmp -s "$R/hard2" "$T/old/hard" || fail "the other name of ./hard changed"

# --- -j 2: the same over two sessions
reset
serve_files "$S" delta - conns 3 dcorrupt ./e
net_apply "$R" "$T/a.T" -c sha1 -j 2 -v
expect_rc 0
same_tree "-j 2"
expect_requests DELTA ./a ./b ./c ./d ./e ./etc/conf ./fifo ./hard ./link
expect_requests RETR ./e ./new
grep -q '^delta: 8 files by delta, .* 1 fetched whole after a failed delta$' \
    "$T/out" || fail "-j 2: counters: $(cat "$T/out")"

# --- more files than bases may be open at once (64): every one still
# goes as DELTA, the window waiting for a basis rather than asking whole
reset
mkdir -p "$R/many" "$S/file/test.T/many" || fail "mkdir many"
head -c 2000 "$T/old/a" >"$T/common"
for i in $(seq -w 0 99); do
	{ echo "file $i, first version"; cat "$T/common"; } >"$R/many/f$i"
	{ echo "file $i, second version"; cat "$T/common"; } \
	    >"$S/file/test.T/many/f$i"
	delta "$R/many/f$i" "$S/file/test.T/many/f$i"
done
{
	echo "test.T:"
	for i in $(seq -w 0 99); do
		fline "./many/f$i" "$S/file/test.T/many/f$i" 0644
	done
} >"$T/many.T"
serve_files "$S" delta -
net_apply "$R" "$T/many.T" -c sha1 -v
expect_rc 0
[ "$(requests DELTA | wc -l)" -eq 100 ] ||
    fail "of 100 files, $(requests DELTA | wc -l) went as DELTA"
requests RETR | grep -q . && fail "RETR with bases to spare"
grep -q '^delta: 100 files by delta' "$T/out" ||
    fail "many: counters: $(cat "$T/out")"
for i in $(seq -w 0 99); do
	cmp -s "$R/many/f$i" "$S/file/test.T/many/f$i" ||
	    fail "./many/f$i is not the server's"
done
# And over 8 sessions (-j 8), whose queue holds up to 128 downloads: a
# file queued while 64 bases are open waits for one, as above.
for i in $(seq -w 0 99); do
	{ echo "file $i, first version"; cat "$T/common"; } >"$R/many/f$i"
done
serve_files "$S" delta - conns 8
net_apply "$R" "$T/many.T" -c sha1 -j 8 -v
expect_rc 0
[ "$(requests DELTA | wc -l)" -eq 100 ] ||
    fail "-j 8: of 100 files, $(requests DELTA | wc -l) went as DELTA"
requests RETR | grep -q . && fail "-j 8: RETR with bases to spare"
for i in $(seq -w 0 99); do
	cmp -s "$R/many/f$i" "$S/file/test.T/many/f$i" ||
	    fail "-j 8: ./many/f$i is not the server's"
done
rm -rf "$S/file/test.T/many"

# --- a server without DELTA, or no -c: RETR as ever
reset
serve_files "$S"
net_apply "$R" "$T/a.T" -c sha1 -v
expect_rc 0
same_tree "no DELTA offered"
expect_requests DELTA
grep -q '^delta:' "$T/out" && fail "delta counters without DELTA"
reset
serve_files "$S" delta -
net_apply "$R" "$T/a.T"
expect_rc 0
same_tree "no -c"
expect_requests DELTA

exit 0
