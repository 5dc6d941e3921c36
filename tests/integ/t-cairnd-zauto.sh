#!/bin/sh
# Compression that pays by itself: the automatic level (COMP ZLIB AUTO,
# offered as ZAUTO in the banner), incompressible bodies sent as stored
# blocks, and the compressed cache spliced into the stream.  A receiver
# written apart from cairn (Python's zlib) inflates every stream; the
# automatic level never goes above the cap; a cached body whose source
# changed is never served; ktcheck -Z auto falls back to a fixed level
# against a server without ZAUTO and says so with -v.  Temporary files a
# killed writer left in the cache are removed.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd ktcheck
need_cmd python3
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
R=$T/repo
F=$R/file/test.T/etc
ZRECV="python3 $top_srcdir/tests/integ/zrecv.py"

# Text (compressible), random bytes, and gzip output (incompressible).
python3 -c 'import sys
for i in range(60000):
    sys.stdout.write("line %06d of a configuration file, key%d = value%d\n" % (i, i % 97, i % 13))' \
    >"$F/text" || fail "text"
head -c 1500000 /dev/urandom >"$F/random" || fail "random"
head -c 900000 /dev/urandom | base64 | gzip -c >"$F/text.gz" || fail "gz"
# Every byte value, repeated: entropy 8 bits per byte, yet compressible.
python3 -c 'import sys; sys.stdout.buffer.write(bytes(range(256)) * 4096)' \
    >"$F/pattern" || fail "pattern"
# Sources must have settled before the cache trusts them (cairnd(8) -c).
sleep 3

# zrecv_ok LEVEL NAME...: fetch over one session, compare every body.
zrecv_ok()
{
	_lv=$1
	shift
	rm -rf "$T/got"
	mkdir "$T/got"
	_paths=
	for _n in "$@"; do
		_paths="$_paths ./etc/$_n"
	done
	# shellcheck disable=SC2086
	$ZRECV "$PORT" "$_lv" "$T/got" test.T $_paths >"$T/zout" 2>"$T/zerr" ||
	    fail "zrecv $_lv $*: $(cat "$T/zerr")"
	_i=0
	for _n in "$@"; do
		cmp -s "$F/$_n" "$T/got/$_i" ||
		    fail "zrecv $_lv: body of $_n differs"
		_i=$((_i + 1))
	done
}

# levels_at_most CAP: every "bytes by level" entry of the log is <= CAP.
levels_at_most()
{
	grep 'session bodies:' "$SLOG" >"$T/hist" || fail "no body counters"
	python3 - "$1" "$T/hist" <<'PY' || fail "level above $1: $(cat "$T/hist")"
import re, sys
cap = int(sys.argv[1])
for line in open(sys.argv[2]):
    m = re.search(r'bytes by level((?: \d:\d+)+)', line)
    if m is None:
        sys.exit(1)
    for tok in m.group(1).split():
        if int(tok.split(':')[0]) > cap:
            sys.exit(1)
PY
}

# 1. Default policy: ZAUTO offered; the automatic level and stored
#    blocks for the incompressible bodies.  (The automatic level starts
#    at 0, where a loopback link keeps it: the cache is filled at fixed
#    levels below, and by -W for automatic sessions.)
start_cairnd "$R" -Z 9 -c "$T/cache"
zrecv_ok AUTO text random text.gz pattern text
# ZSTD=3 comes with zstd, when it is built in.
want='CAPA ZLIB REPO ZAUTO'
have_zstd && want="$want ZSTD=3"
grep -qx "$want" "$T/zout" || fail "banner: $(cat "$T/zout")"
grep -qx '320 Ready to start ZLIB compression level 9 auto' "$T/zout" ||
    fail "320: $(cat "$T/zout")"
wait_log 'session bodies:'
grep -q 'stored 2 files' "$SLOG" ||
    fail "random and text.gz (only) not sent stored: $(grep bodies: "$SLOG")"
levels_at_most 9

# 2. A fixed level is that level: a miss at level 6 fills level 6, the
#    next session at 6 is served from the cache.
: >"$SLOG"
zrecv_ok 6 text
grep -qx '320 Ready to start ZLIB compression level 6' "$T/zout" ||
    fail "320 at 6: $(cat "$T/zout")"
zrecv_ok 6 text
wait_log 'cached 1 files'
ls "$T/cache/z" | grep -q '\.6$' || fail "no level 6 entry"
levels_at_most 6

# 3. The source changes (same size, same mtime): never the old bytes.
python3 -c 'import sys
data = bytearray(open(sys.argv[1], "rb").read())
data[100:110] = b"CHANGED!!!"
open(sys.argv[1], "r+b").write(data)' "$F/text" || fail "change text"
touch -d "@$T0" "$F/text"
: >"$SLOG"
zrecv_ok 6 text
zrecv_ok AUTO text
wait_log 'session bodies:'
if grep -q 'cached 1 files' "$SLOG"; then
	fail "served a cache entry of a changed file: $(cat "$SLOG")"
fi
stop_cairnd

# 4. The cap: -Z 3 keeps the automatic level at 3 or below.
: >"$SLOG"
# Base64 text: compressible, but not much, so that enough compressed
# bytes go by for the policy to believe a fast link and change level.
head -c 6000000 /dev/urandom | base64 >"$F/b64" || fail "b64"
# -Y 0: no zstd, which ktcheck -Z auto below would take instead.  What
# the sessions above remembered of this peer's link is forgotten.
[ -f "$R/tmp/.links" ] || fail "no tmp/.links after automatic sessions"
rm -f "$R/tmp/.links"
start_cairnd "$R" -Z 3 -Y 0 -d
zrecv_ok AUTO text random b64 text
grep -qx '320 Ready to start ZLIB compression level 3 auto' "$T/zout" ||
    fail "320 at cap 3: $(cat "$T/zout")"
wait_log 'session bodies:'
levels_at_most 3
# -d traces every change of level the session counted, with its reasons,
# and none goes above the cap.
python3 - "$SLOG" <<'PY' || fail "policy trace: $(grep -e '---' -e 'level changes' "$SLOG")"
import re, sys
counted = traced = 0
for line in open(sys.argv[1]):
    m = re.search(r'level changes (\d+)', line)
    if m:
        counted += int(m.group(1))
    m = re.search(r'--- zlib auto: level (\d) -> (\d): link .* plain MB/s( \d[=~][0-9.]+)+$', line)
    if m:
        traced += 1
        if int(m.group(2)) > 3 or m.group(1) == m.group(2):
            sys.exit(1)
    elif 'zlib auto:' in line:
        sys.exit(1)
print("policy trace: %d changes counted, %d traced" % (counted, traced), file=sys.stderr)
sys.exit(0 if counted == traced else 1)
PY
# What the session learned of the link is kept for the next session
# with this peer (tmp/.links), which starts from it and says so with -d.
grep -q 'zlib level auto, 0 to 3, from level 0 (no link remembered)' \
    "$SLOG" || fail "first session: $(grep 'level auto' "$SLOG")"
[ -f "$R/tmp/.links" ] || fail "no tmp/.links"
: >"$SLOG"
zrecv_ok AUTO text
wait_log 'session bodies:'
grep -Eq 'zlib level auto, 0 to 3, from level [0-3] \(remembered: link [=>] [0-9.]+ MB/s\)' \
    "$SLOG" || fail "second session: $(grep 'level auto' "$SLOG")"
# ktcheck -Z auto against ZAUTO: the automatic level, said with -v.
mkdir "$T/c1"
run_client ktcheck -v -Z auto -K "$T/c1/command.K"
assert_eq 1 "$RC" "ktcheck -Z auto: $(cat "$T/err")"
grep -q '>>> COMP ZLIB AUTO' "$T/err" || fail "no COMP ZLIB AUTO: $(cat "$T/err")"
grep -q 'compression level auto, 0 to 3' "$T/err" ||
    fail "-v does not say auto: $(cat "$T/err")"
assert_file_eq "$R/transcript/test.T" "$T/c1/test.T" "test.T under auto"
stop_cairnd

# 5. -W fills the cache ahead of the clients from the transcripts: the
#    text at level 9 (served spliced to a fixed-level client and to an
#    automatic one), the random bytes recorded as incompressible.
#    Bad -W levels are a usage error; -W without -c too.
{
	printf 'f ./etc/text 0644 0 0 1700000000 %s -\n' "$(wc -c <"$F/text")"
	printf 'f ./etc/random 0644 0 0 1700000000 %s -\n' \
	    "$(wc -c <"$F/random")"
} >"$R/transcript/test.T"
touch -d "@$T0" "$R/transcript/test.T"
sleep 3
rm -rf "$T/cache"
run_capture "$T/wout" "$T/werr" "$CAIRND" -D "$R" -c "$T/cache" -W 9,x
assert_eq 2 "$RC" "-W 9,x: $(cat "$T/werr")"
run_capture "$T/wout" "$T/werr" "$CAIRND" -D "$R" -W 9
assert_eq 2 "$RC" "-W without -c: $(cat "$T/werr")"
run_capture "$T/wout" "$T/werr" "$CAIRND" -D "$R" -A sometimes
assert_eq 2 "$RC" "-A sometimes: $(cat "$T/werr")"
grep -q 'sometimes: not auto or fixed' "$T/werr" || fail "-A: $(cat "$T/werr")"
run_capture "$T/wout" "$T/werr" "$CAIRND" -D "$R" -c "$T/cache" -S 12q -W 9
assert_eq 2 "$RC" "-S 12q: $(cat "$T/werr")"
# What a killed session or -W run left (".tmp.<pid>.<n>" of a process
# that is gone, unchanged for a minute) is removed when the cache is
# opened; a live process's temporary file is left alone, and so is one
# written to lately (its writer may be on another host sharing the
# cache, where the number names another process).
DEAD=$(sh -c 'echo $$')
mkdir -p "$T/cache/z" "$T/cache/i"
for _t in .tmp.$DEAD.0 i/.tmp.$DEAD.1 z/.tmp.$DEAD.2 z/.tmp.$$.3 \
    z/.tmp.$DEAD.5; do
	echo partial >"$T/cache/$_t"
done
touch -d '2 minutes ago' "$T/cache/.tmp.$DEAD.0" "$T/cache/i/.tmp.$DEAD.1" \
    "$T/cache/z/.tmp.$DEAD.2" "$T/cache/z/.tmp.$$.3" || fail "touch"
run_capture "$T/wout" "$T/werr" "$CAIRND" -D "$R" -c "$T/cache" -W 9
assert_eq 0 "$RC" "-W 9: $(cat "$T/werr")"
for _t in .tmp.$DEAD.0 i/.tmp.$DEAD.1 z/.tmp.$DEAD.2; do
	[ ! -e "$T/cache/$_t" ] || fail "-W: stale $_t left"
done
[ -e "$T/cache/z/.tmp.$$.3" ] || fail "-W: a live process's temp removed"
[ -e "$T/cache/z/.tmp.$DEAD.5" ] || fail "-W: a temp written lately removed"
rm -f "$T/cache/z/.tmp.$$.3" "$T/cache/z/.tmp.$DEAD.5"
# The text, and the three transcripts ktcheck would fetch.
grep -q 'cache warmed: 5 files, 4 entries made' "$T/werr" ||
    fail "-W summary: $(cat "$T/werr")"
grep -q '1 incompressible' "$T/werr" || fail "-W verdict: $(cat "$T/werr")"
# The bound: an entry larger than -S is removed once made.
run_capture "$T/wout" "$T/werr" "$CAIRND" -D "$R" -c "$T/small" -S 4k -W 9
assert_eq 0 "$RC" "-S 4k -W 9: $(cat "$T/werr")"
[ -z "$(ls "$T/small/z")" ] || fail "-S 4k: entries kept: $(ls -l "$T/small/z")"
# The cache is the -g user's to write, and -W runs as root: z/ and i/
# are held from when the cache is opened.  z/ swapped for a symbolic
# link to a directory of root's just before -W's first rename (the -g
# user's move) sends nothing there: root's files are neither trimmed
# (-S 4k, and they are older than anything in the cache) nor joined by
# an entry.
need_shim
V=$T/victim
mkdir "$V" "$T/race" || fail "mkdir victim"
for _i in 1 2 3; do
	head -c 8192 /dev/urandom >"$V/secret$_i" || fail "secret"
done
touch -d '1 hour ago' "$V"/secret* || fail "touch secrets"
ls -l "$V" >"$T/victim.before"
run_capture "$T/wout" "$T/werr" env LD_PRELOAD="$SHIM" \
    CAIRN_SHIM_STOP=renameat:1 \
    CAIRN_SHIM_RUN="cd '$T/race' && mv z z.old && ln -s '$V' z" \
    "$CAIRND" -D "$R" -c "$T/race" -S 4k -W 9
assert_eq 0 "$RC" "-W, z/ swapped: $(cat "$T/werr")"
[ -L "$T/race/z" ] || fail "-W, z/ swapped: the swap did not happen"
ls -l "$V" >"$T/victim.after"
assert_file_eq "$T/victim.before" "$T/victim.after" \
    "-W, z/ swapped: root's directory"
# The cache holds the repository's files: private, whatever the umask.
for _d in "$T/small" "$T/small/z" "$T/small/i"; do
	assert_eq 700 "$(stat -c %a "$_d")" "mode of $_d"
done
for _f in "$T/cache/z"/* "$T/cache/i"/*; do
	assert_eq 600 "$(stat -c %a "$_f")" "mode of $_f"
done
# A cache an earlier version left open (0755) is made private as
# cairnd opens it.
chmod 755 "$T/cache" "$T/cache/z" "$T/cache/i" || fail "chmod"
: >"$SLOG"
start_cairnd "$R" -Z 9 -c "$T/cache"
for _d in "$T/cache" "$T/cache/z" "$T/cache/i"; do
	assert_eq 700 "$(stat -c %a "$_d")" "mode of $_d, reopened"
done
# ... and by the daemon's trim once sessions end, in z/ (a session killed
# while it filled an entry).
echo partial >"$T/cache/z/.tmp.$DEAD.4"
touch -d '2 minutes ago' "$T/cache/z/.tmp.$DEAD.4" || fail "touch"
zrecv_ok 9 text random
wait_log 'session bodies:'
grep -q 'stored 1 files .*cached 1 files' "$SLOG" ||
    fail "-W entry not used: $(grep bodies: "$SLOG")"
stale_gone() { [ ! -e "$T/cache/z/.tmp.$DEAD.4" ]; }
retry 100 stale_gone || fail "trim: stale z/.tmp.$DEAD.4 left"
: >"$SLOG"
zrecv_ok AUTO text
wait_log 'cached 1 files'
stop_cairnd

# 6. -A fixed: exactly Radmind's banner; -Z auto falls back to level 1.
: >"$SLOG"
start_cairnd "$R" -Z 9 -A fixed
zrecv_ok 6 text random
grep -qx 'CAPA ZLIB REPO' "$T/zout" || fail "banner -A fixed: $(cat "$T/zout")"
wait_log 'session bodies:'
grep -q 'bytes by level 6:[0-9]*;' "$SLOG" ||
    fail "-A fixed: not all at level 6: $(grep bodies: "$SLOG")"
mkdir "$T/c2"
run_client ktcheck -v -Z auto -K "$T/c2/command.K"
assert_eq 1 "$RC" "ktcheck -Z auto, -A fixed: $(cat "$T/err")"
grep -q 'offers no automatic level: compression level 1' "$T/err" ||
    fail "no fallback message: $(cat "$T/err")"
grep -q '>>> COMP ZLIB 1' "$T/err" || fail "no COMP ZLIB 1: $(cat "$T/err")"
assert_file_eq "$R/transcript/test.T" "$T/c2/test.T" "test.T fallback"
stop_cairnd
end_test
