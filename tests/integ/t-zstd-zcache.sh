#!/bin/sh
# t-zstd-zcache: cairnd's cache of compressed bodies (-c, -W) for zstd
# sessions as for zlib ones.  cairnd -W zstd:3,6 fills zstd and zlib
# entries from the transcripts; a zstd pull (ktcheck, fsdiff -A, lapply
# -Z zstd:3) lands the tree byte for byte with every compressible body
# from the cache; a receiver apart from cairn (tests/integ/zstdrecv.py)
# cuts the raw stream into frames and decodes it with the zstd command,
# and the cache's entries are whole frames of it; no frame carries a
# content size (docs/protocol.md 9.2), not even one of the few lines
# between two spliced bodies, given to zstd whole.  An entry is served
# only to a session of its own codec and level, even when a file of one
# codec is put under the other's name; a zstd session fills the entries
# it lacks; a source changed after its entry was made is not served
# from the cache.  Bad -W levels are usage errors.  On a cache whose file
# system is full, what a session cannot write keeps no descriptor open.
. "$top_srcdir/tests/integ/lib.sh"
need_zstd
need_tool cairnd ktcheck fsdiff lapply
need_cmd python3 zstd
need_root
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
umask 022

# The loadset: some 2 MB of text, 1 MB of random bytes, a small file.
SRC=$T/src
text_loadset "$SRC"
printf 'hello world, hello world, hello world\n' >"$SRC/etc/motd"
find "$SRC" -exec touch -h -d "@$T0" {} +
R=$T/repo
tree_repo "$R" "$SRC" app
F=$R/file/app.T
C=$T/client
ROOT=$T/root
ZSTDRECV="python3 $top_srcdir/tests/integ/zstdrecv.py"
ZRECV="python3 $top_srcdir/tests/integ/zrecv.py"
# Sources must have settled before the cache trusts them (cairnd(8) -c).
sleep 3

# recv PROG LEVEL NAME...: fetch ./NAME... of app.T over one session of
# PROG (zstdrecv or zrecv) and compare every body with the repository's.
recv()
{
	_prog=$1
	_lv=$2
	shift 2
	rm -rf "$T/got"
	mkdir "$T/got"
	_paths=
	for _n in "$@"; do
		_paths="$_paths ./$_n"
	done
	# shellcheck disable=SC2086
	$_prog "$PORT" "$_lv" "$T/got" app.T $_paths >"$T/zout" 2>"$T/zerr" ||
	    fail "$_prog $_lv $*: $(cat "$T/zerr")"
	_i=0
	for _n in "$@"; do
		cmp -s "$F/$_n" "$T/got/$_i" ||
		    fail "$_prog $_lv: body of $_n differs"
		_i=$((_i + 1))
	done
}

# entry NAME SUFFIX: the cache entry of file NAME of app.T named SUFFIX.
entry()
{
	zcache_entry "$F/$1" "$T/cache/z" "$2"
}

# 1. Bad -W levels: usage errors naming both codecs' levels.
for lv in zstd:0 zstd:20 auto 0 zlib:3 9,zstd:x; do
	run_capture "$T/wout" "$T/werr" "$CAIRND" -D "$R" -c "$T/cache" \
	    -W "$lv"
	assert_eq 2 "$RC" "-W $lv: $(cat "$T/werr")"
	grep -q -- "-W $lv: levels are 1 to 9, or zstd:1 to zstd:19" \
	    "$T/werr" || fail "-W $lv: $(cat "$T/werr")"
done

# 2. -W zstd:3,6 (and a duplicate): the text and the small file at both,
#    and the transcript itself (ktcheck fetches it), zstd's entries named
#    apart, their headers naming the codec; the random bytes recorded as
#    incompressible.
run_capture "$T/wout" "$T/werr" "$CAIRND" -D "$R" -c "$T/cache" \
    -W zstd:3,6,zstd:3
assert_eq 0 "$RC" "-W zstd:3,6: $(cat "$T/werr")"
grep -q 'cache warmed: 7 files, 12 entries made' "$T/werr" ||
    fail "-W summary: $(cat "$T/werr")"
TZ3=$(F=$R/transcript entry app.T .zstd3)
[ -f "$TZ3" ] || fail "no entry of the transcript: $(ls "$T/cache/z")"
grep -q '1 incompressible, 0 failed' "$T/werr" ||
    fail "-W verdict: $(cat "$T/werr")"
N0Z3=$(entry usr/share/doc/notes0.txt .zstd3)
N0Z6=$(entry usr/share/doc/notes0.txt .6)
if [ ! -f "$N0Z3" ] || [ ! -f "$N0Z6" ]; then
	fail "entries: $(ls "$T/cache/z")"
fi
head -c 21 "$N0Z3" | grep -qx 'cairn-zcache 1 zstd 3' ||
    fail "zstd header: $(head -c 64 "$N0Z3")"
head -c 21 "$N0Z6" | grep -qx 'cairn-zcache 1 zlib 6' ||
    fail "zlib header: $(head -c 64 "$N0Z6")"
# A zstd entry is one whole frame: the zstd command decodes it alone.
tail -c +65 "$N0Z3" | zstd -q -d -c >"$T/n0" || fail "zstd -d of the entry"
cmp -s "$T/n0" "$F/usr/share/doc/notes0.txt" || fail "the entry decodes wrong"

# 3. A zstd pull from the warm cache: the tree byte for byte, and every
#    body lapply got came from the cache (none compressed live).
start_cairnd "$R" -Z 9 -Y 6 -c "$T/cache"
rm -rf "$C" "$ROOT"
mkdir -p "$C" "$ROOT" || fail "mkdir"
run_client ktcheck -Z zstd:3 -c sha1 -K "$C/command.K"
[ "$RC" -le 1 ] || fail "ktcheck: exit $RC: $(cat "$T/err")"
in_dir "$ROOT" "$FSDIFF" -A -c sha1 -K "$C/command.K" -o "$T/apply.T" . ||
    fail "fsdiff -A"
run_capture "$T/out" "$T/err" in_dir "$ROOT" "$LAPPLY" -v \
    -h 127.0.0.1 -p "$PORT" -c sha1 -Z zstd:3 "$T/apply.T"
assert_eq 0 "$RC" "lapply -Z zstd:3: $(cat "$T/err")"
assert_tree_eq "$SRC" "$ROOT" "tree pulled with zstd:3 from the cache"
line=$(bodies 2 "lapply")
case $line in
*'deflated 0 files 0 -> 0 bytes, stored 1 files 1048576 bytes, cached 5 files'*) ;;
*)	fail "lapply's bodies not from the cache: $line" ;;
esac
echo "$line" | grep -q 'bytes by level 0:1048576 3:' ||
    fail "levels: $line"
grep -q 'session end: zstd level 3, ' "$SLOG" || fail "not zstd: $(cat "$SLOG")"

# 4. The raw stream, decoded by the zstd command: a cached body is a
#    whole frame of it, byte for byte the entry's.
: >"$SLOG"
recv "$ZSTDRECV" 3 usr/share/doc/notes0.txt var/lib/random.bin \
    usr/share/doc/notes1.txt
grep -qx '320 Ready to start ZSTD compression level 3' "$T/zout" ||
    fail "320: $(cat "$T/zout")"
line=$(bodies 1 "zstdrecv")
case $line in
*'deflated 0 files 0 -> 0 bytes, stored 1 files 1048576 bytes, cached 2 files'*) ;;
*)	fail "zstdrecv's bodies not from the cache: $line" ;;
esac
python3 - "$T/got/wire" "$T/got/frames" "$N0Z3" \
    "$(entry usr/share/doc/notes1.txt .zstd3)" <<'PY' ||
import sys
wire = open(sys.argv[1], "rb").read()
frames = [tuple(map(int, l.split()))[:2] for l in open(sys.argv[2])]
for e in sys.argv[3:]:
    data = open(e, "rb").read()[64:]
    at = wire.find(data)
    if (at, len(data)) not in frames:
        print("%s: not a frame of the stream (at %d)" % (e, at))
        sys.exit(1)
PY
    fail "cached frames: $(cat "$T/got/frames")"

# 5. Each codec its own entries.  A zlib session at 3 finds no entry
#    even under the zlib name of zstd's (its header says zstd) and fills
#    its own; at 6 it gets the zlib entry -W made.  A zstd session at 6
#    finds none even under the zstd name of zlib's (its header says
#    zlib), fills one, and the next session gets it.
N0L3=$(entry usr/share/doc/notes0.txt .3)
N0Z6F=$(entry usr/share/doc/notes0.txt .zstd6)
cp "$N0Z3" "$N0L3" || fail "cp"
cp "$N0Z6" "$N0Z6F" || fail "cp"
: >"$SLOG"
recv "$ZRECV" 3 usr/share/doc/notes0.txt
line=$(bodies 1 "zlib 3")
case $line in
*'deflated 1 files'*'cached 0 files'*) ;;
*)	fail "zlib 3 served a zstd entry: $line" ;;
esac
head -c 21 "$N0L3" | grep -qx 'cairn-zcache 1 zlib 3' ||
    fail "zlib 3 entry not made: $(head -c 64 "$N0L3")"
recv "$ZRECV" 6 usr/share/doc/notes0.txt
line=$(bodies 2 "zlib 6")
case $line in
*'deflated 0 files'*'cached 1 files'*) ;;
*)	fail "zlib 6 not from the cache: $line" ;;
esac
recv "$ZSTDRECV" 6 usr/share/doc/notes0.txt
line=$(bodies 3 "zstd 6")
case $line in
*'deflated 1 files'*'cached 0 files'*) ;;
*)	fail "zstd 6 served a zlib entry: $line" ;;
esac
head -c 21 "$N0Z6F" | grep -qx 'cairn-zcache 1 zstd 6' ||
    fail "zstd 6 entry not made: $(head -c 64 "$N0Z6F")"
recv "$ZSTDRECV" 6 usr/share/doc/notes0.txt
line=$(bodies 4 "zstd 6 again")
case $line in
*'deflated 0 files'*'cached 1 files'*) ;;
*)	fail "zstd 6 entry not used: $line" ;;
esac

# 6. The source changes (same size, same modification time): its
#    entries are never served again, whatever the codec.
python3 -c 'import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[100:110] = b"CHANGED!!!"
open(sys.argv[1], "r+b").write(data)' "$F/usr/share/doc/notes0.txt" ||
    fail "change notes0"
touch -d "@$T0" "$F/usr/share/doc/notes0.txt"
: >"$SLOG"
recv "$ZSTDRECV" 3 usr/share/doc/notes0.txt usr/share/doc/notes2.txt
line=$(bodies 1 "changed")
case $line in
*'deflated 1 files'*'cached 1 files'*) ;;
*)	fail "changed source served from the cache: $line" ;;
esac
recv "$ZSTDRECV" 6 usr/share/doc/notes0.txt
line=$(bodies 2 "changed, zstd 6")
case $line in
*'cached 0 files'*) ;;
*)	fail "changed source served from the cache at zstd 6: $line" ;;
esac
stop_cairnd

# 7. The cache's file system is full: every entry and verdict the session
#    cannot write is given up with its descriptor closed, so that a long
#    session does not run out of them.  One session asks for the random
#    file 20 times (a verdict written each time, each failing) and a
#    text file 20 times (an entry each time); before its QUIT, none of
#    its descriptors names a file of the cache.
if mkdir "$T/full" && mount -t tmpfs -o size=64k tmpfs "$T/full" 2>/dev/null
then
	at_exit "umount '$T/full'"
	head -c 1048576 /dev/zero >"$T/full/fill" 2>/dev/null
	start_cairnd "$R" -Z 9 -Y 3 -c "$T/full"
	python3 - "$PORT" "$SPID" "$T/full" <<'PY' >"$T/fdout" 2>&1 ||
import os, sys, time
sys.path.insert(0, os.path.join(os.environ["top_srcdir"], "tests/integ"))
from testnet import connect, read_banner, recv_until
from zstdrecv import frame
port, spid, full = int(sys.argv[1]), sys.argv[2], sys.argv[3]
s = connect(port, 10)
read_banner(s)
s.sendall(b"COMP ZSTD 3\r\n")
recv_until(s, b"", b"\n")
for i in range(20):
    s.sendall(frame(b"RETR FILE app.T ./var/lib/random.bin\r\n"))
    s.sendall(frame(b"RETR FILE app.T ./usr/share/doc/notes1.txt\r\n"))
# Everything asked has been sent once the server falls silent.
s.settimeout(1)
got, end = 0, time.time() + 30
while time.time() < end:
    try:
        b = s.recv(1 << 16)
    except OSError:
        break
    if not b:
        sys.exit("the server closed the session after %d bytes" % got)
    got += len(b)
kids = open("/proc/%s/task/%s/children" % (spid, spid)).read().split()
if len(kids) != 1:
    sys.exit("session children: %r" % kids)
fds = os.listdir("/proc/%s/fd" % kids[0])
held = []
for fd in fds:
    try:
        t = os.readlink("/proc/%s/fd/%s" % (kids[0], fd))
    except OSError:
        continue
    if t.startswith(full + "/") and ".tmp." in t:
        held.append(t)
print("%d bytes, %d descriptors, %d on cache files" % (got, len(fds), len(held)))
s.sendall(frame(b"QUIT\r\n"))
s.close()
sys.exit("descriptors left on the cache's files: %r" % held if held else 0)
PY
	    fail "full cache: $(cat "$T/fdout")"
	wait_log 'session bodies:'
	grep -q 'stored 20 files' "$SLOG" ||
	    fail "full cache, the random file: $(grep 'session bodies' "$SLOG")"
	stop_cairnd
	ls -a "$T/full/i" "$T/full/z" 2>/dev/null | grep -q '^\.tmp\.' &&
	    fail "temporary files left in the full cache: $(ls -aR "$T/full")"
else
	not_run "the full cache (needs root and a tmpfs)"
fi
end_test
