#!/bin/sh
# t-zstd-zdict: the zstd dictionary of cairnd's cache (docs/protocol.md
# section 9.3).  cairnd -W zstd:19 trains one on the repository and makes
# its zstd entries with it; the zstd command decodes such an entry with
# the dictionary file and not without it.  The banner offers it as
# ZDICT=<bytes> ZDICTID=<id>; a lapply pulling enough takes it (-v says
# so), lands the tree byte for byte with every compressible body from
# the cache, sends fewer bytes than from entries made without it, and
# keeps it (privately); a lapply pulling little does not fetch it, but
# names the one it kept (ZDICT) and so pulls in fewer bytes; a kept one
# that is not the server's is refused.  A receiver apart from cairn
# takes it with RETR ZDICT, and with ZDICT from a file, and decodes the
# whole stream with the zstd command.  A zlib
# session is refused it; a damaged dictionary file stops cairnd with
# the file named.  The dictionary holds pieces of files: it is trained
# only on transcripts every command file of config lists (nothing of a
# transcript only another host may fetch is in it), offered only to a
# host that may fetch each of them, and only while they are as they
# were; -W trains a new one once they changed, which a running cairnd
# takes.
. "$top_srcdir/tests/integ/lib.sh"
need_zstd
need_tool cairnd ktcheck fsdiff lapply
need_cmd python3 zstd
need_root
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
umask 022

# The loadset: text in many small files (where a dictionary helps most),
# 1 MB of random bytes, some larger text.
SRC=$T/src
text_loadset "$SRC"
mkdir -p "$SRC/etc/conf.d" || fail "mkdir"
i=0
while [ $i -lt 300 ]; do
	printf '# configuration of service %d\nenabled = yes\nuser = svc%d\nlisten = 127.0.0.%d:%d\nlog_level = info\nretries = %d\ntimeout = 30\n' \
	    $i $i $((i % 250 + 1)) $((8000 + i)) $((i % 7)) \
	    >"$SRC/etc/conf.d/svc$i.conf"
	i=$((i + 1))
done
find "$SRC" -exec touch -h -d "@$T0" {} +
R=$T/repo
tree_repo "$R" "$SRC" app
# Another host's command file lists app.T and secret.T: the dictionary
# may hold nothing of secret.T, which 127.0.0.1 may not fetch.
mkdir -p "$T/secret/etc" || fail "mkdir"
python3 -c 'import sys
with open(sys.argv[1], "w") as f:
    for i in range(4000):
        f.write("TOPSECRET password of account %d is hunter%d\n" % (i, i))' \
    "$T/secret/etc/secret.conf" || fail "secret"
find "$T/secret" -exec touch -h -d "@$T0" {} +
in_dir "$T/secret" "$FSDIFF" -C -c sha1 -K /dev/null . \
    >"$R/transcript/secret.T" || fail "fsdiff -C secret"
cp -a "$T/secret" "$R/file/secret.T" || fail "cp secret"
printf 'p app.T\np secret.T\n' >"$R/command/other.K"
echo "otherhost.example other.K" >>"$R/config"
touch -d "@$T0" "$R/command/other.K" "$R/transcript/secret.T"
F=$R/file/app.T
C=$T/client
ROOT=$T/root
ZSTDRECV="python3 $top_srcdir/tests/integ/zstdrecv.py"
# Sources must have settled before the cache trusts them (cairnd(8) -c).
sleep 3

# entry NAME SUFFIX: the cache entry of file NAME of app.T named SUFFIX.
entry()
{
	zcache_entry "$F/$1" "$T/cache/z" "$2"
}

# pull WHAT TRANSCRIPT: lapply -v -Z zstd:19 of TRANSCRIPT into a new
# $ROOT, the bytes it received in $WIRE.
pull()
{
	rm -rf "$ROOT"
	mkdir -p "$ROOT" || fail "mkdir"
	run_capture "$T/out" "$T/err" in_dir "$ROOT" "$LAPPLY" -v \
	    -h 127.0.0.1 -p "$PORT" -c sha1 -Z zstd:19 "$2"
	assert_eq 0 "$RC" "lapply ($1): $(cat "$T/err")"
	WIRE=$(sed -n 's/.*zstd stats +++ In: [0-9]*:\([0-9]*\).*/\1/p' "$T/out")
	[ -n "$WIRE" ] || fail "lapply ($1): no byte count: $(cat "$T/err")"
}

# 1. Entries made without a dictionary first (-W before there was one
#    is -W 9: zlib only, no dictionary), then the sizes to beat: a pull
#    at zstd:19 that fills zstd entries without one, and a second that
#    is served them.
run_capture "$T/wout" "$T/werr" "$CAIRND" -D "$R" -c "$T/plain" -W 9
assert_eq 0 "$RC" "-W 9: $(cat "$T/werr")"
[ ! -e "$T/plain/zdict" ] || fail "-W 9 trained a zstd dictionary"
start_cairnd "$R" -Z 9 -Y 19 -c "$T/plain"
mkdir -p "$C" || fail "mkdir"
run_client ktcheck -Z zstd:3 -c sha1 -K "$C/command.K"
[ "$RC" -le 1 ] || fail "ktcheck: exit $RC: $(cat "$T/err")"
mkdir -p "$ROOT" || fail "mkdir"
in_dir "$ROOT" "$FSDIFF" -A -c sha1 -K "$C/command.K" -o "$T/apply.T" . ||
    fail "fsdiff -A"
pull "fill, no dictionary" "$T/apply.T"
pull "no dictionary" "$T/apply.T"
PLAIN=$WIRE
grep -q 'dictionary' "$T/err" && fail "a dictionary without one: $(cat "$T/err")"
line=$(bodies 3 "no dictionary")
case $line in
*'deflated 0 files 0 -> 0 bytes, stored 1 files 1048576 bytes, cached 304 files'*) ;;
*)	fail "second pull not from the cache: $line" ;;
esac
stop_cairnd

# 2. -W zstd:19 trains the dictionary, says so, and makes the entries
#    with it: named and headed with its id, decoded by the zstd command
#    with the dictionary file only.
run_capture "$T/wout" "$T/werr" "$CAIRND" -D "$R" -c "$T/cache" -W zstd:19
assert_eq 0 "$RC" "-W zstd:19: $(cat "$T/werr")"
grep -q 'zstd dictionary [0-9]*: [0-9]* bytes, trained on [0-9]* files' \
    "$T/werr" || fail "-W: no dictionary: $(cat "$T/werr")"
[ -f "$T/cache/zdict" ] || fail "no $T/cache/zdict"
ID=$(sed -n 's/.*zstd dictionary \([0-9]*\):.*/\1/p' "$T/werr")
grep -q TOPSECRET "$T/cache/zdict" &&
    fail "the dictionary holds pieces of secret.T"
grep -q 'app\.T$' "$T/cache/zdict.src" || fail "zdict.src: $(cat "$T/cache/zdict.src")"
grep -q 'secret\.T' "$T/cache/zdict.src" && fail "zdict.src: secret.T"
SIZE=$(wc -c <"$T/cache/zdict")
[ "$SIZE" -le 1048576 ] || fail "dictionary of $SIZE bytes"
E=$(entry etc/conf.d/svc7.conf ".zstd19d$ID")
[ -f "$E" ] || fail "no entry $E: $(ls "$T/cache/z" | head)"
head -c 64 "$E" | grep -q "^cairn-zcache 1 zstd 19 [0-9]* [0-9]* $ID " ||
    fail "header: $(head -c 64 "$E")"
tail -c +65 "$E" | zstd -q -d -c -D "$T/cache/zdict" >"$T/e" ||
    fail "zstd -D of the entry"
cmp -s "$T/e" "$F/etc/conf.d/svc7.conf" || fail "the entry decodes wrong"
tail -c +65 "$E" | zstd -q -d -c >/dev/null 2>&1 &&
    fail "the entry decodes without the dictionary"
# A second -W keeps the dictionary and finds every entry made.
run_capture "$T/wout" "$T/werr" "$CAIRND" -D "$R" -c "$T/cache" -W zstd:19
assert_eq 0 "$RC" "-W again: $(cat "$T/werr")"
grep -q 'trained' "$T/werr" && fail "-W again trained: $(cat "$T/werr")"
grep -q 'cache warmed: [0-9]* files, 0 entries made' "$T/werr" ||
    fail "-W again: $(cat "$T/werr")"

# 3. The banner offers it; a full pull takes it, lands the tree, every
#    compressible body from the dictionary's entries, in fewer bytes.
rm -f "$SLOG"
start_cairnd "$R" -Z 9 -Y 19 -c "$T/cache"
rap "$PORT" 'QUIT\r\n' >"$T/banner" || fail "rap"
grep -q "^200 CAPA ZLIB REPO ZAUTO ZSTD=19 ZDICT=$SIZE ZDICTID=$ID" \
    "$T/banner" || fail "banner: $(cat "$T/banner")"
pull "dictionary" "$T/apply.T"
assert_tree_eq "$SRC" "$ROOT" "tree pulled with the dictionary"
grep -q "127.0.0.1: zstd dictionary $ID in use (fetched, kept in $CAIRN_ZDICTDIR)" \
    "$T/err" || fail "lapply -v: $(cat "$T/err")"
# Kept for the sessions to come, privately (pieces of files), named by
# the ID and the server as named (lapply -h, -p; kept_name).
KN=$(kept_name "$ID" "127.0.0.1:$PORT") || fail "kept_name"
cmp -s "$CAIRN_ZDICTDIR/$KN" "$T/cache/zdict" || fail "kept: another file"
assert_eq 700 "$(stat -c %a "$CAIRN_ZDICTDIR")" "mode of the kept directory"
assert_eq 600 "$(stat -c %a "$CAIRN_ZDICTDIR/$KN")" "mode of the kept file"
line=$(bodies 1 "dictionary")
case $line in
*'deflated 0 files 0 -> 0 bytes, stored 1 files 1048576 bytes, cached 304 files'*) ;;
*)	fail "dictionary pull not from the cache: $line" ;;
esac
[ "$WIRE" -lt "$PLAIN" ] ||
    fail "with the dictionary $WIRE bytes, without $PLAIN"
echo "$TEST_NAME: $PLAIN bytes without the dictionary, $WIRE with it"

# 4. A pull of a few small files does not fetch it, and still lands;
#    with the one kept, it names it (ZDICT) instead, in fewer bytes than
#    without (the dictionary is not sent again).  A kept file that is not
#    the server's, byte for byte, is refused, and the pull goes on
#    without it; a full pull then fetches and keeps it again.
grep -v 'notes\|random\|conf\.d/svc[02-9]\|conf\.d/svc1[0-9][0-9]' \
    "$T/apply.T" >"$T/small.T"
grep -q 'svc1[0-9]*\.conf' "$T/small.T" ||
    fail "small.T has no file: $(cat "$T/small.T")"
KEEP=$CAIRN_ZDICTDIR
CAIRN_ZDICTDIR= pull "small, none kept" "$T/small.T"
grep -q 'dictionary' "$T/err" && fail "small pull took it: $(cat "$T/err")"
cmp -s "$ROOT/etc/conf.d/svc17.conf" "$F/etc/conf.d/svc17.conf" ||
    fail "small pull: svc17.conf"
SMALL=$WIRE
pull "small, kept" "$T/small.T"
grep -q "127.0.0.1: zstd dictionary $ID in use (kept from an earlier session)" \
    "$T/err" || fail "lapply -v, kept: $(cat "$T/err")"
cmp -s "$ROOT/etc/conf.d/svc17.conf" "$F/etc/conf.d/svc17.conf" ||
    fail "small pull, kept: svc17.conf"
[ "$WIRE" -lt "$SMALL" ] ||
    fail "small pull: $WIRE bytes with the kept dictionary, $SMALL without"
echo "$TEST_NAME: small pull: $SMALL bytes without the dictionary," \
    "$WIRE with the one kept"
python3 -c 'import sys
p = sys.argv[1]
d = bytearray(open(p, "rb").read())
d[len(d) // 2] ^= 0x55
open(p, "wb").write(bytes(d))' "$KEEP/$KN" || fail "damage"
pull "small, kept one damaged" "$T/small.T"
grep -q "ZDICT: .*Unable to access zdict.*: going on without it" "$T/err" ||
    fail "lapply -v, damaged: $(cat "$T/err")"
cmp -s "$ROOT/etc/conf.d/svc17.conf" "$F/etc/conf.d/svc17.conf" ||
    fail "small pull, damaged: svc17.conf"
pull "full, kept one damaged" "$T/apply.T"
assert_tree_eq "$SRC" "$ROOT" "tree pulled, the kept dictionary damaged"
grep -q "zstd dictionary $ID in use (fetched, kept in" "$T/err" ||
    fail "lapply -v, refetched: $(cat "$T/err")"
cmp -s "$KEEP/$KN" "$T/cache/zdict" || fail "not kept again"

# 4b. What is kept is hostile too.  One kept for another server, of the
#     same ID, is not named to this one (it would learn from the digest
#     what this client holds); one that is a link to another file, or in
#     a directory of another user's, is not read, and -v says why.  The
#     pulls go on without it.
mv "$KEEP/$KN" "$KEEP/$(kept_name "$ID" "127.0.0.1:1")" || fail "mv"
pull "small, kept for another server" "$T/small.T"
grep -q 'dictionary' "$T/err" &&
    fail "named another server's dictionary: $(cat "$T/err")"
rm -f "$KEEP"/* || fail "rm"
cp "$T/cache/zdict" "$T/zdict.copy" || fail "cp"
ln "$T/zdict.copy" "$KEEP/$KN" || fail "ln"
pull "small, kept one a link" "$T/small.T"
grep -q "$KEEP/$KN: not a file of this user's own: not used" "$T/err" ||
    fail "lapply, a link kept: $(cat "$T/err")"
grep -q 'in use (kept' "$T/err" && fail "a link was used: $(cat "$T/err")"
rm -f "$KEEP/$KN" || fail "rm"
cp "$T/cache/zdict" "$KEEP/$KN" || fail "cp"
chown nobody "$KEEP" || fail "chown"
pull "small, directory of another user's" "$T/small.T"
grep -q "$KEEP: owned by uid [0-9]*, not by this user: not used" "$T/err" ||
    fail "lapply, another user's directory: $(cat "$T/err")"
grep -q 'in use (kept' "$T/err" && fail "another's was used: $(cat "$T/err")"
cmp -s "$ROOT/etc/conf.d/svc17.conf" "$F/etc/conf.d/svc17.conf" ||
    fail "small pull, another user's directory: svc17.conf"
chown root "$KEEP" || fail "chown"
pull "small, kept again" "$T/small.T"
grep -q "zstd dictionary $ID in use (kept from an earlier session)" \
    "$T/err" || fail "lapply -v, kept again: $(cat "$T/err")"

# 5. A receiver apart from cairn: RETR ZDICT, the bodies after it in
#    frames made with it, all decoded by the zstd command.
rm -rf "$T/got"
mkdir "$T/got" || fail "mkdir"
$ZSTDRECV --zdict "$PORT" 19 "$T/got" app.T ./etc/conf.d/svc3.conf \
    ./etc/conf.d/svc4.conf >"$T/zout" 2>"$T/zerr" ||
    fail "zstdrecv --zdict: $(cat "$T/zerr")"
cmp -s "$T/got/zdict" "$T/cache/zdict" || fail "RETR ZDICT: another file"
cmp -s "$T/got/0" "$F/etc/conf.d/svc3.conf" || fail "svc3 differs"
cmp -s "$T/got/1" "$F/etc/conf.d/svc4.conf" || fail "svc4 differs"
grep -q '^dictionary frames [1-9]' "$T/zout" ||
    fail "no frame made with the dictionary: $(cat "$T/zout")"
# ... and ZDICT, naming the one it kept.
rm -rf "$T/got"
mkdir "$T/got" || fail "mkdir"
$ZSTDRECV --kept "$KEEP/$KN" "$ID" "$PORT" 19 "$T/got" app.T \
    ./etc/conf.d/svc5.conf >"$T/zout" 2>"$T/zerr" ||
    fail "zstdrecv --kept: $(cat "$T/zerr")"
cmp -s "$T/got/0" "$F/etc/conf.d/svc5.conf" || fail "svc5 differs"
grep -q '^dictionary frames [1-9]' "$T/zout" ||
    fail "ZDICT: no frame made with the dictionary: $(cat "$T/zout")"

# 6. A zlib session is refused it, either way, and goes on.
SUM=$(python3 -c 'import base64, hashlib, sys
print(base64.b64encode(hashlib.sha256(open(sys.argv[1], "rb").read()).digest()).decode())' \
    "$T/cache/zdict") || fail "sha256"
rap "$PORT" "RETR ZDICT\\r\\nZDICT $ID $SUM\\r\\nZDICT\\r\\nQUIT\\r\\n" \
    >"$T/rout" || fail "rap"
[ "$(grep -c '^543 Unable to access zdict\.' "$T/rout")" -eq 2 ] ||
    fail "RETR ZDICT and ZDICT in clear: $(cat "$T/rout")"
grep -q '^501 ' "$T/rout" || fail "ZDICT without arguments: $(cat "$T/rout")"
grep -q '^201 ' "$T/rout" || fail "no QUIT reply: $(cat "$T/rout")"
stop_cairnd

# 7. A host whose command file no longer lists app.T is not offered it;
#    nor is anyone once app.T changed; -W then trains a new one.
printf 'p secret.T\n' >"$R/command/app.K"
start_cairnd "$R" -Z 9 -Y 19 -c "$T/cache"
rap "$PORT" 'QUIT\r\n' >"$T/banner" || fail "rap"
grep -q "ZDICT" "$T/banner" && fail "offered to a host without app.T: $(cat "$T/banner")"
stop_cairnd
printf 'p app.T\n' >"$R/command/app.K"
touch -d "@$T0" "$R/command/app.K"
touch "$R/transcript/app.T"
rm -f "$SLOG"
start_cairnd "$R" -Z 9 -Y 19 -c "$T/cache"
rap "$PORT" 'QUIT\r\n' >"$T/banner" || fail "rap"
grep -q "ZDICT" "$T/banner" && fail "offered after app.T changed: $(cat "$T/banner")"
run_capture "$T/wout" "$T/werr" "$CAIRND" -D "$R" -c "$T/cache" -W zstd:19
assert_eq 0 "$RC" "-W after the change: $(cat "$T/werr")"
grep -q "zstd dictionary $ID: the transcripts it was trained on changed: training a new one" \
    "$T/werr" || fail "-W did not retrain: $(cat "$T/werr")"
grep -q 'zstd dictionary [0-9]*: [0-9]* bytes, trained on' "$T/werr" ||
    fail "-W: no new dictionary: $(cat "$T/werr")"
# The running cairnd takes the new one as sessions end (within 10 s).
offered()
{
	rap "$PORT" 'QUIT\r\n' >"$T/banner" || return 255
	grep -q "ZDICT=" "$T/banner"
}
retry 200 offered || fail "the new dictionary not taken: $(cat "$SLOG")"
grep -q 'zstd dictionary [0-9]* of .*/zdict in use' "$SLOG" ||
    fail "not logged: $(cat "$SLOG")"
stop_cairnd

# 8. A dictionary file that is not one: cairnd does not start, and says
#    which file.
printf 'not a dictionary at all\n' >"$T/cache/zdict"
run_capture "$T/dout" "$T/derr" "$CAIRND" -D "$R" -c "$T/cache" -W zstd:3
[ "$RC" -ne 0 ] || fail "cairnd took a damaged dictionary"
grep -q "$T/cache/zdict: not a zstd dictionary" "$T/derr" ||
    fail "damaged dictionary: $(cat "$T/derr")"
end_test
