#!/bin/sh
# cairnd answers DELTA (docs/protocol.md 5.11) from the store that
# cairn-publish -f and -d made: a delta (241) only when the basis is a
# base the client may use and the target is what the transcript it
# names says of the path; the whole file (240, byte for byte RETR's
# reply) for a wrong basis, a base of a loadset not on the client's
# command files, another host's special file, malformed digests and
# algorithms, a path the transcript does not list, a file out of step
# with its transcript, and from a cairnd without a store; RETR's errors
# for what RETR refuses; a transcript that lists the path twice gives
# no delta.  The banner lists DELTA only with a store, and
# is otherwise byte for byte what it was.  Under compression the delta
# goes as stored blocks; the session's log line counts the deltas.
. "$top_srcdir/tests/integ/lib.sh"
need_zstd
need_tool fsdiff cairn-publish cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
umask 022
FETCH=$top_srcdir/tests/integ/fetchpeer.py

R=$T/repo
mkdir -p "$R/command" "$R/transcript" "$R/file" "$R/tmp/transcript" \
    "$R/tmp/file" "$R/special/127.0.0.9/etc" || fail "mkdir"
. "$top_srcdir/tests/integ/dstorelib.sh"

# fetch OUT [fetchpeer.py options] REQUEST...: one session; its replies
# in $T/OUT.txt, its bodies in $T/OUT/.
fetch()
{
	_o=$1
	shift
	rm -rf "${T:?}/$_o" && mkdir "$T/$_o" || fail "mkdir $_o"
	_src=
	if [ "$1" = -s ]; then
		_src="-s $2"
		shift 2
	fi
	# shellcheck disable=SC2086
	python3 "$FETCH" $_src "$@" >"$T/$_o.txt" 2>"$T/$_o.err" ||
	    fail "fetchpeer $_o: $(cat "$T/$_o.err" "$T/$_o.txt")"
}

# reply OUT N WANT: reply N of session OUT is the line WANT.
reply()
{
	assert_eq "$3" "$(sed -n "s/^$2 //p" "$T/$1.txt")" "$1: reply $2"
}

# body OUT N FILE: reply N of session OUT came with FILE's bytes.
body()
{
	cmp -s "$T/$1/$2" "$3" || fail "$1: reply $2: not the bytes of $3"
}

# applies OUT N BASIS NEW: reply N is a delta that turns BASIS into NEW.
applies()
{
	"$APPLY" "$3" "$T/$1/$2" "$T/applied" ||
	    fail "$1: reply $2: the delta does not apply to $3"
	cmp -s "$T/applied" "$4" || fail "$1: reply $2: not $4 once applied"
}

# Version 1 of app.T, and of other.T, a loadset the client may not read.
mkdir -p "$T/ref/opt/app" || fail "mkdir"
text "$T/ref/opt/app/lib.so" 1 8000
text "$T/ref/opt/app/conf.txt" 1 2000
find "$T/ref" -exec touch -h -d @1700000000 {} +
stage app.T
publish 0 app.T
cp -a "$T/ref" "$T/v1" || fail "cp"
rm -rf "$T/ref" && mkdir -p "$T/ref/opt/other" || fail "mkdir"
text "$T/ref/opt/other/x.txt" 7 3000
stage other.T
publish 0 other.T
cp "$T/ref/opt/other/x.txt" "$T/other-v1" || fail "cp"

# Version 2 of both (-f): app.T gets the file other.T's version 2 has.
text "$T/ref/opt/other/x.txt" 8 3000
find "$T/ref" -exec touch -h -d @1700000100 {} +
stage other.T
publish 0 -f other.T
rm -rf "$T/ref" && cp -a "$T/v1" "$T/ref" || fail "cp"
text "$T/ref/opt/app/lib.so" 2 8000
text "$T/ref/opt/app/conf.txt" 2 2000
cp "$R/file/other.T/opt/other/x.txt" "$T/ref/opt/app/shared.txt" || fail "cp"
find "$T/ref" -exec touch -h -d @1700000100 {} +
stage app.T
publish 0 -f app.T
publish 0 -d
grep -q '^deltas: 3 built' "$T/pout" || fail "-d: $(cat "$T/pout")"
F=$R/file/app.T/opt/app
# A file of the tree its transcript does not list.
cp "$T/v1/opt/app/conf.txt" "$F/extra.txt" || fail "cp"
# Another host's special file.
printf 'secret of another host\n' >"$R/special/127.0.0.9/etc/secret"

printf '127.0.0.1 app.K\n127.0.0.2 both.K\n127.0.0.9 app.K\n' >"$R/config"
printf 'p app.T\n' >"$R/command/app.K"
printf 'p app.T\np other.T\n' >"$R/command/both.K"
start_cairnd "$R" -H off -Z 6 -A fixed

LIB=$(digest "$T/v1/opt/app/lib.so")
CONF=$(digest "$T/v1/opt/app/conf.txt")
OTHER=$(digest "$T/other-v1")
SECRET=$(digest "$R/special/127.0.0.9/etc/secret")
NEWLIB=$(digest "$F/lib.so")
SHA1_EMPTY=2jmj7l5rSw0yVb/vlWAYkK/YBwk=
LONG=$(printf '%0300d' 0)

# One session, every answer in order.
fetch plain "$PORT" "$T/plain" \
    "DELTA sha1 $LIB FILE app.T ./opt/app/lib.so" \
    "DELTA SHA1 $CONF FILE app.T ./opt/app/conf.txt" \
    "DELT sha1 $SHA1_EMPTY FILE app.T ./opt/app/lib.so" \
    "DELTA sha1 $OTHER FILE app.T ./opt/app/shared.txt" \
    "DELTA sha1 $SECRET FILE app.T ./opt/app/shared.txt" \
    "RETR FILE app.T ./opt/app/shared.txt" \
    "DELTA sha1 $NEWLIB FILE app.T ./opt/app/lib.so" \
    "DELTA sha1 abc FILE app.T ./opt/app/lib.so" \
    "DELTA sha1 ../../../../config FILE app.T ./opt/app/lib.so" \
    "DELTA sha1 $LONG FILE app.T ./opt/app/lib.so" \
    "DELTA sha1 _${LIB#?} FILE app.T ./opt/app/lib.so" \
    "DELTA sha256 $LIB FILE app.T ./opt/app/lib.so" \
    "DELTA ../sha1 $LIB FILE app.T ./opt/app/lib.so" \
    "DELTA nosuch $LIB FILE app.T ./opt/app/lib.so" \
    "DELTA sha1 $CONF FILE app.T ./opt/app/extra.txt" \
    "DELTA sha1 $LIB FILE app.T ./opt/app/nosuch" \
    "RETR FILE app.T ./opt/app/nosuch" \
    "DELTA sha1 $LIB FILE other.T ./opt/other/x.txt" \
    "DELTA sha1 $LIB TRANSCRIPT app.T" \
    "DELTA sha1 $LIB FILE app.T" \
    "DELTA sha1" \
    "DELTA" \
    "DELTA sha1 $LIB FILE app.T ../opt/app/lib.so"
grep -qx '200 CAPA ZLIB REPO DELTA.' "$T/plain/banner" ||
    fail "banner with a store: $(cat "$T/plain/banner")"
# The right basis: deltas that give the new files.
reply plain 1 '241 Retrieving delta'
applies plain 1 "$T/v1/opt/app/lib.so" "$F/lib.so"
[ "$(wc -c <"$T/plain/1")" -lt "$(wc -c <"$F/lib.so")" ] ||
    fail "the delta is not smaller than the file"
reply plain 2 '241 Retrieving delta'
applies plain 2 "$T/v1/opt/app/conf.txt" "$F/conf.txt"
# Anything else: RETR's whole file, the same bytes whatever the reason.
for n in 3 4 5 6 7 8 9 10 11 12 13 14; do
	case $n in
	3|7|8|9|10|11|12|13|14)	f=lib.so ;;
	*)			f=shared.txt ;;
	esac
	reply plain $n '240 Retrieving file'
	body plain $n "$F/$f"
done
reply plain 15 '240 Retrieving file'
body plain 15 "$F/extra.txt"
# RETR's errors, word for word.
reply plain 16 '543 Unable to access file/app.T/./opt/app/nosuch.'
reply plain 17 '543 Unable to access file/app.T/./opt/app/nosuch.'
reply plain 18 '540 No access for other.T:./opt/other/x.txt'
for n in 19 20 21 22 23; do
	reply plain $n '540 RETR Syntax error'
done
[ ! -e "$T/plain/16" ] && [ ! -e "$T/plain/18" ] ||
    fail "a body with an error"

# A host whose command files name other.T may have its base used.
fetch both -s 127.0.0.2 "$PORT" "$T/both" \
    "DELTA sha1 $OTHER FILE app.T ./opt/app/shared.txt" \
    "DELTA sha1 $OTHER FILE other.T ./opt/other/x.txt"
reply both 1 '241 Retrieving delta'
applies both 1 "$T/other-v1" "$F/shared.txt"
reply both 2 '241 Retrieving delta'
applies both 2 "$T/other-v1" "$R/file/other.T/opt/other/x.txt"

# The session's log line: of the fourteen DELTA requests served (not
# those refused), two had deltas, twelve whole files.
wait_log 'delta requests 14: 2 as deltas'
d=$(($(wc -c <"$T/plain/1") + $(wc -c <"$T/plain/2")))
w=$(($(wc -c <"$F/lib.so") + $(wc -c <"$F/conf.txt")))
grep -q "127.0.0.1.*session end: .*, delta requests 14: 2 as deltas ($d bytes, $w whole), 12 as whole files$" \
    "$SLOG" || fail "session end: $(grep 'session end' "$SLOG")"

# Compressed (-Z 6 -A fixed): the delta, as stored blocks (level 0),
# and the whole file, deflated.
fetch zlib -z 6 "$PORT" "$T/zlib" \
    "DELTA sha1 $LIB FILE app.T ./opt/app/lib.so" \
    "DELTA sha1 $CONF FILE app.T ./opt/app/lib.so"
reply zlib 1 '241 Retrieving delta'
cmp -s "$T/zlib/1" "$T/plain/1" || fail "compressed: another delta"
reply zlib 2 '240 Retrieving file'
body zlib 2 "$F/lib.so"
wait_log 'delta requests 2: 1 as deltas'
dz=$(wc -c <"$T/zlib/1")
grep 'session bodies' "$SLOG" | tail -n 1 >"$T/bodies"
python3 - "$T/bodies" "$dz" "$(wc -c <"$F/lib.so")" <<'PY' ||
import re, sys
line = open(sys.argv[1]).read()
dsize, fsize = int(sys.argv[2]), int(sys.argv[3])
lv = dict((int(a), int(b)) for a, b in re.findall(r' (\d):(\d+)', line))
# Level 0 is the delta and nothing else: -A fixed stores nothing else.
if not dsize <= lv.get(0, 0) < dsize + 64:
    sys.exit('level 0 bytes %s, the delta %d' % (lv.get(0), dsize))
if not re.search(r'deflated 1 files %d ' % fsize, line):
    sys.exit('the whole file not counted as deflated')
PY
	fail "compressed: $(cat "$T/bodies")"

# Transcripts are read as hostile too: a line that does not parse is
# passed over; a path listed twice gives no delta.  (The base's owners
# are edited to name these loadsets, so that only the transcript
# differs.)
cp -a "$R/file/app.T" "$R/file/dup.T" && cp -a "$R/file/app.T" "$R/file/dup2.T" ||
    fail "cp"
{ echo 'x this line does not parse'; cat "$R/transcript/app.T"; } \
    >"$R/transcript/dup.T" || fail "dup.T"
sed 's|^\(f ./opt/app/lib.so .*\)$|\1\n\1|' "$R/transcript/app.T" \
    >"$R/transcript/dup2.T" || fail "dup2.T"
assert_eq 2 "$(grep -c '^f ./opt/app/lib.so ' "$R/transcript/dup2.T")" \
    "lib.so lines in dup2.T"
printf 'dup.T\ndup2.T\n' >>"$R/delta/sha1/owner/$(name "$T/v1/opt/app/lib.so")" ||
    fail "owners"
printf '127.0.0.3 dup.K\n' >>"$R/config"
printf 'p dup.T\np dup2.T\n' >"$R/command/dup.K"
fetch dup -s 127.0.0.3 "$PORT" "$T/dup" \
    "DELTA sha1 $LIB FILE dup.T ./opt/app/lib.so" \
    "DELTA sha1 $LIB FILE dup2.T ./opt/app/lib.so"
reply dup 1 '241 Retrieving delta'
applies dup 1 "$T/v1/opt/app/lib.so" "$F/lib.so"
reply dup 2 '240 Retrieving file'
body dup 2 "$F/lib.so"

# A file no longer the one its transcript lists: the whole file.
text "$F/lib.so" 3 9000
fetch changed "$PORT" "$T/changed" \
    "DELTA sha1 $LIB FILE app.T ./opt/app/lib.so"
reply changed 1 '240 Retrieving file'
body changed 1 "$F/lib.so"
stop_cairnd

# Without a store: the banner of old, and DELTA gives the whole file.
mv "$R/delta" "$T/delta" || fail "mv"
start_cairnd "$R" -H off
fetch nostore "$PORT" "$T/nostore" \
    "DELTA sha1 $CONF FILE app.T ./opt/app/conf.txt"
banner >"$T/want"
cmp -s "$T/want" "$T/nostore/banner" ||
    fail "banner without a store: $(cat "$T/nostore/banner")"
reply nostore 1 '240 Retrieving file'
body nostore 1 "$F/conf.txt"
echo "$TEST_NAME: ok"
