#!/bin/sh
# What a build says of zstd is what it does, with or without it
# (configure --without-zstd).  cairnd -V's last line says it, and
# config.h agrees; then, against a cairnd -Z 6 serving a repository that
# holds a store of deltas (delta/):
#   with zstd: the banner lists ZSTD=3 and DELTA, DELTA is a verb, COMP
#     ZSTD 3 is granted, lapply -Z zstd:3 pulls with zstd;
#   without: the banner is "CAPA ZLIB REPO ZAUTO", byte for byte that of
#     a cairnd that never had either; DELTA is answered as an unknown
#     verb, word for word as one; COMP ZSTD is a codec not offered, as
#     from a cairnd -Y 0; cairnd -Y 3, cairnd -W 9,zstd:3 and lapply
#     -Z zstd:3 are usage errors (exit 2) naming the reason; cairn-publish -d exits 2 saying
#     deltas are not built in; a pull with zlib works.
# And lapply -c asks a server that lists DELTA for deltas only with zstd.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd cairn-publish fsdiff lapply
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
umask 022

# The build's word, and config.h's.
run_capture "$T/v" "$T/verr" "$CAIRND" -V
assert_eq 0 "$RC" "cairnd -V"
case $(sed -n '$p' "$T/v") in
'with zstd: delta transfer, zstd compression')
	built=1 ;;
'without zstd: no delta transfer, no zstd compression')
	built=0 ;;
*)	fail "cairnd -V says nothing of zstd: $(cat "$T/v")" ;;
esac
if have_zstd; then
	assert_eq 1 "$built" "cairnd -V against config.h (HAVE_ZSTD)"
else
	assert_eq 0 "$built" "cairnd -V against config.h (no HAVE_ZSTD)"
fi
# lapply -V is Radmind's: the version and the digests, nothing of zstd.
run_capture "$T/lv" "$T/lverr" "$LAPPLY" -V
grep -q zstd "$T/lv" && fail "lapply -V: $(cat "$T/lv")"

# A loadset, and a store of deltas beside it, as cairn-publish leaves one.
SRC=$T/src
mkdir -p "$SRC/etc" "$SRC/usr/share/doc" || fail "mkdir"
i=0
while [ "$i" -lt 2000 ]; do
	echo "line $i of the notes: the quick brown fox"
	i=$((i + 1))
done >"$SRC/usr/share/doc/notes.txt"
printf 'hello world\n' >"$SRC/etc/motd"
find "$SRC" -exec touch -h -d "@$T0" {} +
R=$T/repo
tree_repo "$R" "$SRC" app
mkdir -p "$R/delta/sha1/base" "$R/delta/sha1/owner" "$R/delta/sha1/delta" \
    "$R/delta/sha1/queue" || fail "mkdir delta"

start_cairnd "$R" -Z 6
rap "$PORT" 'DELTA sha1 AAAA FILE app.T etc/motd\r\nFOO\r\nCOMP ZSTD 3\r\nQUIT\r\n' \
    | tr -d '\r' >"$T/out" || fail "rap"
capa=$(sed -n 's/^200 CAPA //p' "$T/out")
if [ "$built" -eq 1 ]; then
	assert_eq 'ZLIB REPO ZAUTO ZSTD=3 DELTA' "$capa" "banner with zstd"
	grep -q '^500 Command DELTA unrecognized' "$T/out" &&
	    fail "DELTA unrecognized with zstd: $(cat "$T/out")"
	grep -q '^320 Ready to start ZSTD compression level 3' "$T/out" ||
	    fail "COMP ZSTD 3 with zstd: $(cat "$T/out")"
else
	assert_eq 'ZLIB REPO ZAUTO' "$capa" "banner without zstd"
	# DELTA as FOO: the same reply, the verb's name apart.
	grep -qx '500 Command DELTA unrecognized' "$T/out" ||
	    fail "DELTA without zstd: $(cat "$T/out")"
	grep -qx '500 Command FOO unrecognized' "$T/out" ||
	    fail "FOO: $(cat "$T/out")"
	grep -x '[0-9]* ZSTD compression not enabled' "$T/out" >"$T/nozstd" ||
	    fail "COMP ZSTD without zstd: $(cat "$T/out")"
fi
stop_cairnd

if [ "$built" -eq 0 ]; then
	# COMP ZSTD is refused as by a cairnd with zstd but -Y 0; -Y 0 is
	# the only -Y taken.
	start_cairnd "$R" -Z 6 -Y 0
	rap "$PORT" 'COMP ZSTD 3\r\nQUIT\r\n' | tr -d '\r' >"$T/out0" ||
	    fail "rap -Y 0"
	grep -x '[0-9]* ZSTD compression not enabled' "$T/out0" >"$T/y0" ||
	    fail "COMP ZSTD with -Y 0: $(cat "$T/out0")"
	assert_file_eq "$T/y0" "$T/nozstd" "COMP ZSTD refused as with -Y 0"
	stop_cairnd
	run_capture "$T/out" "$T/err" "$CAIRND" -Y 3 -V
	assert_eq 2 "$RC" "cairnd -Y 3 without zstd"
	grep -q -- '-Y: 3: zstd is not built in (configured --without-zstd)' \
	    "$T/err" || fail "cairnd -Y 3: $(cat "$T/err")"
	run_capture "$T/out" "$T/err" "$CAIRND" -D "$R" -c "$T/cache" \
	    -W 9,zstd:3
	assert_eq 2 "$RC" "cairnd -W 9,zstd:3 without zstd"
	grep -q -- '-W 9,zstd:3: zstd:3: zstd is not built in (configured --without-zstd)' \
	    "$T/err" || fail "cairnd -W 9,zstd:3: $(cat "$T/err")"
	run_capture "$T/out" "$T/err" "$CAIRN_PUBLISH" -D "$R" -d
	assert_eq 2 "$RC" "cairn-publish -d without zstd"
	grep -q 'delta transfer is not built in' "$T/err" ||
	    fail "cairn-publish -d: $(cat "$T/err")"
fi

# A pull: -Z zstd:3 with zstd; without, that is a usage error, and -Z 6
# pulls.
start_cairnd "$R" -Z 6
ROOT=$T/pull
# The client's command file and transcript, as ktcheck leaves them.
mkdir -p "$T/client" && cp "$R/command/app.K" "$T/client/command.K" &&
    cp "$R/transcript/app.T" "$T/client/app.T" || fail "client files"
pull()
{
	rm -rf "$ROOT" && mkdir -p "$ROOT" || fail "mkdir"
	in_dir "$ROOT" "$FSDIFF" -A -c sha1 -K "$T/client/command.K" \
	    -o "$T/apply.T" . || fail "fsdiff -A"
	run_capture "$T/out" "$T/err" in_dir "$ROOT" "$LAPPLY" -v \
	    -h 127.0.0.1 -p "$PORT" -c sha1 "$@" "$T/apply.T"
}
if [ "$built" -eq 1 ]; then
	pull -Z zstd:3
	assert_eq 0 "$RC" "lapply -Z zstd:3: $(cat "$T/err")"
	grep -q '>>> COMP ZSTD 3' "$T/err" || fail "no COMP ZSTD: $(cat "$T/err")"
else
	pull -Z zstd:3
	assert_eq 2 "$RC" "lapply -Z zstd:3 without zstd"
	grep -q 'zstd:3: zstd is not built in (configured --without-zstd)' \
	    "$T/err" || fail "lapply -Z zstd:3: $(cat "$T/err")"
	[ -z "$(ls -A "$ROOT")" ] || fail "lapply -Z zstd:3 touched $ROOT"
	pull -Z 6
	assert_eq 0 "$RC" "lapply -Z 6: $(cat "$T/err")"
	grep -q '>>> COMP ZLIB 6' "$T/err" || fail "no COMP ZLIB: $(cat "$T/err")"
	grep -q 'DELTA' "$T/err" && fail "lapply asked DELTA: $(cat "$T/err")"
fi
cmp -s "$SRC/usr/share/doc/notes.txt" "$ROOT/usr/share/doc/notes.txt" ||
    fail "notes.txt not pulled"
cmp -s "$SRC/etc/motd" "$ROOT/etc/motd" || fail "motd not pulled"
stop_cairnd

# lapply -c against a server that lists DELTA, an old version at the
# path: it asks DELTA only with zstd built in.
. "$top_srcdir/tests/integ/lapply-lib.sh"
S=$T/srv
mkdir -p "$S/file/test.T/etc" "$S/delta" "$R/etc" || fail "mkdir"
printf 'the new version\n' >"$S/file/test.T/etc/motd"
printf 'the old version\n' >"$R/etc/motd"
{
	echo "test.T:"
	fline ./etc/motd "$S/file/test.T/etc/motd" 0644
} >"$T/d.T"
serve_files "$S" delta -
net_apply "$R" "$T/d.T" -c sha1
assert_eq 0 "$RC" "lapply -c against DELTA: $(cat "$T/err")"
cmp -s "$S/file/test.T/etc/motd" "$R/etc/motd" || fail "motd not updated"
if [ "$built" -eq 1 ]; then
	grep -q DELTA "$T/log" || fail "no DELTA asked: $(cat "$T/log")"
else
	grep -q DELTA "$T/log" && fail "DELTA asked: $(cat "$T/log")"
fi
end_test
