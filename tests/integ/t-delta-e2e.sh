#!/bin/sh
# t-delta-e2e: delta transfer end to end, the real tools on both sides.
# A loadset published with cairn-publish, a client tree brought to it by
# the real pull path (ktcheck, fsdiff -A, lapply), a new version
# published over it (cairn-publish -f) with its deltas built (-d), and
# the client pulling again with -c sha1: the tree is the new version
# byte for byte (fsdiff -C finds nothing to record), lapply -v and
# cairnd's session-end line count the same deltas; the same with -j 2,
# and over TLS (-w 1) with -Z 6.  A file changed on the client since
# the first pull comes whole and ends right; a path holding a symbolic
# link or a FIFO when lapply runs comes whole and nothing is read
# through it.  A client that never asks DELTA (lapply without -c)
# sends only RETR, and ktcheck is unchanged by the banner's DELTA.  A
# third version published as a new loadset succeeding the second
# (cairn-publish -r), the command file naming it, comes as deltas from
# the second's files, one of them named with a space, at -Z auto.
. "$top_srcdir/tests/integ/lib.sh"
need_zstd
need_tool cairnd cairn-publish ktcheck fsdiff lapply
need_root
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/tlslib.sh"
umask 022

R=$T/repo
mkdir -p "$R/command" "$R/transcript" "$R/file" "$R/special" \
    "$R/tmp/transcript" "$R/tmp/file" || fail "mkdir"
. "$top_srcdir/tests/integ/dstorelib.sh"
tls_repo "$R"
echo '127.0.0.1 app.K' >"$R/config"
: >"$R/command/app.K"
C=$T/client
ROOT=$T/root
mkdir -p "$C" "$ROOT" || fail "mkdir"
: >"$C/command.K"
touch -d "@$T0" "$C/command.K"

# The files that change between the versions, each some 200 KB of text
# of which a few lines differ, and those that do not.
CHANGED="opt/app/lib1.so opt/app/lib2.so opt/app/lib3.so opt/app/data.txt
etc/app/app.conf opt/app/drift.txt opt/app/link.txt opt/app/fifo.txt"
SPACED="opt/app/lib 4.so"

# version PATH SEED: file $T/ref/PATH, some 200 KB of text, its first line
# its name, a few of its lines differing by SEED.
version()
{
	text "$T/lines" "$2" 4000
	{ echo "$1"; cat "$T/lines"; } >"$T/ref/$1" || fail "version $1"
}

# --- version 1, published, and the client brought to it
mkdir -p "$T/ref/opt/app" "$T/ref/etc/app" || fail "mkdir"
for f in $CHANGED opt/app/same.txt; do
	version "$f" 1
done
version "$SPACED" 1
text "$T/ref/opt/app/gone.txt" 1 100
find "$T/ref" -exec touch -h -d @1700000000 {} +
stage app.T
publish 0 -k app.K app.T
cp -a "$T/ref" "$T/v1" || fail "cp v1"

# pull LAPPLY-OPTIONS...: ktcheck, fsdiff -A and lapply into $ROOT, as a
# client does; lapply's output in $T/out and $T/err.  NET holds the
# options of both ktcheck and lapply (TLS).  PRE_APPLY, if set, is a
# command run between fsdiff and lapply.
PRE_APPLY=
NET=
pull()
{
	# shellcheck disable=SC2086
	run_client ktcheck $NET -c sha1 -K "$C/command.K"
	[ "$RC" -le 1 ] || fail "ktcheck: exit $RC: $(cat "$T/err")"
	in_dir "$ROOT" "$FSDIFF" -A -c sha1 -K "$C/command.K" \
	    -o "$T/apply.T" . || fail "fsdiff -A"
	[ -z "$PRE_APPLY" ] || "$PRE_APPLY"
	# shellcheck disable=SC2086
	run_capture "$T/out" "$T/err" in_dir "$ROOT" "$LAPPLY" \
	    -h 127.0.0.1 -p "$PORT" $NET "$@" "$T/apply.T"
	assert_eq 0 "$RC" "lapply $*: $(cat "$T/err")"
}

# same_as DIR LABEL: the client tree is DIR byte for byte, and fsdiff -C
# against the command file finds nothing to record.
same_as()
{
	diff -r --no-dereference "$1" "$ROOT" >"$T/diff" 2>&1 ||
	    fail "$2: the tree is not the loadset: $(cat "$T/diff")"
	in_dir "$ROOT" "$FSDIFF" -C -c sha1 -K "$C/command.K" \
	    -o "$T/left.T" . || fail "$2: fsdiff -C"
	[ ! -s "$T/left.T" ] ||
	    fail "$2: fsdiff -C finds differences: $(cat "$T/left.T")"
	assert_no_files "$2: temp files left" "$ROOT" -name '*.radmind.*'
}

start_cairnd "$R"
pull -c sha1
same_as "$T/v1" "version 1"
grep -q 'DELTA' "$SLOG" && fail "version 1: DELTA without a store"
stop_cairnd
cp -a "$ROOT" "$T/root1" || fail "cp root1"

# --- version 2 over it (-f), its deltas built (-d)
for f in $CHANGED; do
	version "$f" 2
done
version "$SPACED" 2
rm "$T/ref/opt/app/gone.txt"
version opt/app/new.txt 3
find "$T/ref" -exec touch -h -d @1700000100 {} +
stage app.T
publish 0 -f app.T
publish 0 -d
grep -q '^deltas: 9 built' "$T/pout" || fail "-d: $(cat "$T/pout")"
cp -a "$T/ref" "$T/v2" || fail "cp v2"

# reset: the client tree as version 1 left it.
reset()
{
	rm -rf "$ROOT" && cp -a "$T/root1" "$ROOT" || fail "reset"
	: >"$SLOG"
	PRE_APPLY=
}

# deltas N LABEL: lapply -v says N files came as deltas, none fetched
# again, and every session cairnd ended counts N deltas in all.
deltas()
{
	grep -q "^delta: $1 files by delta, [0-9]* bytes on the wire for [0-9]* bytes whole; 0 fetched whole after a failed delta\$" \
	    "$T/out" || fail "$2: lapply -v: $(cat "$T/out")"
	_w=$(sed -n 's/^delta: .* by delta, \([0-9]*\) bytes on the wire.*/\1/p' "$T/out")
	_f=$(sed -n 's/^delta: .* for \([0-9]*\) bytes whole.*/\1/p' "$T/out")
	[ "$_w" -lt "$_f" ] || fail "$2: deltas of $_w bytes for $_f whole"
	wait_kids 0
	_n=0
	_b=0
	for _s in $(sed -n 's/.*delta requests [0-9]*: \([0-9]*\) as deltas (\([0-9]*\) bytes.*/\1:\2/p' "$SLOG"); do
		_n=$((_n + ${_s%:*}))
		_b=$((_b + ${_s#*:}))
	done
	assert_eq "$1" "$_n" "$2: deltas in cairnd's session-end lines"
	assert_eq "$_w" "$_b" "$2: delta bytes, lapply's and cairnd's"
}

# requests VERB: how many requests of files with VERB cairnd's trace
# shows.
requests()
{
	grep -c "^<<< $1 .*FILE app\.T " "$SLOG"
}

# --- a pull with deltas: every changed file comes as one
start_cairnd "$R" -d
reset
pull -c sha1 -v
same_as "$T/v2" "deltas"
deltas 9 "deltas"
assert_eq 9 "$(requests DELTA)" "DELTA requests"
grep -q '^<<< RETR FILE app.T ./opt/app/new.txt$' "$SLOG" ||
    fail "the new file was not asked with RETR"

# --- -j 2: the same over two download sessions
reset
pull -c sha1 -v -j 2
same_as "$T/v2" "-j 2"
deltas 9 "-j 2"

# --- a file changed on the client since version 1: it comes whole
reset
printf 'changed here\n' >>"$ROOT/opt/app/drift.txt"
pull -c sha1 -v
same_as "$T/v2" "drifted"
deltas 8 "drifted"
grep -q 'delta requests 9: 8 as deltas (.*), 1 as whole files$' "$SLOG" ||
    fail "drifted: cairnd's count: $(cat "$SLOG")"
grep -q '^<<< DELTA sha1 [^ ]* FILE app.T ./opt/app/drift.txt$' "$SLOG" ||
    fail "drifted: not asked as DELTA"

# --- a symbolic link and a FIFO where files were when lapply runs:
# asked whole, nothing read through them
reset
cp "$T/v1/opt/app/link.txt" "$T/victim" || fail "cp victim"
swap()
{
	rm -f "$ROOT/opt/app/link.txt" "$ROOT/opt/app/fifo.txt" || fail "rm"
	ln -s "$T/victim" "$ROOT/opt/app/link.txt" || fail "ln -s"
	mkfifo "$ROOT/opt/app/fifo.txt" || fail "mkfifo"
}
PRE_APPLY=swap
pull -c sha1 -v
same_as "$T/v2" "swapped"
deltas 7 "swapped"
grep -q '^<<< RETR FILE app.T ./opt/app/link.txt$' "$SLOG" ||
    fail "swapped: the symbolic link's path not asked whole"
grep -q '^<<< RETR FILE app.T ./opt/app/fifo.txt$' "$SLOG" ||
    fail "swapped: the FIFO's path not asked whole"
cmp -s "$T/victim" "$T/v1/opt/app/link.txt" ||
    fail "swapped: the link's target changed"

# --- a client that never asks DELTA: RETR only, the same tree
reset
pull
same_as "$T/v2" "without -c"
assert_eq 0 "$(requests DELTA)" "DELTA requests without -c"
assert_eq 10 "$(requests RETR)" "RETR requests without -c"
grep -q 'delta requests' "$SLOG" && fail "without -c: deltas counted"
stop_cairnd

# --- over TLS with compression
start_cairnd "$R" -w 1 -Z 6
reset
NET="-w 1 -x $PKI/ca.pem"
pull -c sha1 -v -Z 6
same_as "$T/v2" "TLS"
deltas 9 "TLS"
grep -q 'session end: zlib level 6, .*delta requests 9: 9 as deltas' \
    "$SLOG" || fail "TLS: $(cat "$SLOG")"
stop_cairnd

# --- version 3 as a new loadset succeeding version 2 (-r), the command
# file naming it instead: deltas from the files version 2 left, with -Z
# auto
for f in "$SPACED" opt/app/lib2.so opt/app/new.txt; do
	version "$f" 4
done
find "$T/ref" -exec touch -h -d @1700000200 {} +
stage app3.T
publish 0 -r app.T app3.T
publish 0 -d
grep -q '^deltas: 3 built' "$T/pout" || fail "-r, -d: $(cat "$T/pout")"
printf 'p app3.T\n' >"$R/command/app.K"
start_cairnd "$R" -d -Z 6
NET=
: >"$SLOG"
pull -c sha1 -v -Z auto
same_as "$T/ref" "-r"
deltas 3 "-r"
grep -q '^<<< DELTA sha1 [^ ]* FILE app3.T ./opt/app/lib\\b4.so$' \
    "$SLOG" || fail "-r: no DELTA for ./opt/app/lib 4.so"
stop_cairnd
exit 0
