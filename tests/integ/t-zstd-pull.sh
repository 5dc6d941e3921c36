#!/bin/sh
# t-zstd-pull: zstd between cairn peers (docs/protocol.md section 9.2),
# on the real pull path (ktcheck, fsdiff -A, lapply -c sha1): against
# cairnd -Z 6, which offers zstd up to 3 by default ("ZSTD=3" in the
# banner), -Z zstd:3 asks "COMP ZSTD 3" and the tree lands byte for
# byte, text and incompressible data alike (sent as raw blocks), also
# with -j 2 and inside TLS (-w 2), and for uploads (lcreate -Z zstd:1);
# -Z auto asks "COMP ZSTD AUTO" of a cairnd offering zstd and the
# automatic level, which answers with zstd's automatic level up to its
# -Y, and the tree lands byte for byte; a level above -Y is clamped.  A
# cairnd that does not offer zstd (-Y
# 0, or -A fixed, whose banner stays Radmind's) gets zlib, and -v says
# so; cairnd -Y alone offers zstd only.  A Radmind client (rap.py:
# COMP ZLIB 6) still gets exactly zlib level 6 from a cairnd offering
# zstd.
. "$top_srcdir/tests/integ/lib.sh"
need_zstd
need_tool cairnd ktcheck fsdiff lapply lcreate
need_root
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/tlslib.sh"
umask 022

# The loadset: some 2 MB of text, 1 MB of random bytes, small files.
SRC=$T/src
text_loadset "$SRC"
printf 'hello world\n' >"$SRC/etc/motd"
: >"$SRC/etc/empty"
ln -s motd "$SRC/etc/motd.link"
find "$SRC" -exec touch -h -d "@$T0" {} +
R=$T/repo
tree_repo "$R" "$SRC" app
tls_repo "$R"
C=$T/client
ROOT=$T/root

# pull OPTIONS...: ktcheck -v, fsdiff -A and lapply -v -c sha1 into a new
# $ROOT, with OPTIONS to both (and $LX to lapply); the tree must be the
# loadset's.  ktcheck's trace in $T/kt.err, lapply's in $T/err and its
# report in $T/out.
LX=
pull()
{
	rm -rf "$C" "$ROOT"
	mkdir -p "$C" "$ROOT" || fail "mkdir"
	run_client ktcheck -v "$@" -c sha1 -K "$C/command.K"
	[ "$RC" -le 1 ] || fail "ktcheck $*: exit $RC: $(cat "$T/err")"
	cp "$T/err" "$T/kt.err"
	in_dir "$ROOT" "$FSDIFF" -A -c sha1 -K "$C/command.K" \
	    -o "$T/apply.T" . || fail "fsdiff -A"
	# shellcheck disable=SC2086
	run_capture "$T/out" "$T/err" in_dir "$ROOT" "$LAPPLY" -v \
	    -h 127.0.0.1 -p "$PORT" -c sha1 $LX "$@" "$T/apply.T"
	assert_eq 0 "$RC" "lapply $*: $(cat "$T/err")"
	assert_tree_eq "$SRC" "$ROOT" "tree pulled with $*"
}

# has FILE LINE WHAT: FILE holds LINE, a whole line.
has()
{
	grep -qxF "$2" "$1" || fail "$3: no \"$2\" in: $(cat "$1")"
}

# --- cairnd -Z 6: zstd up to 3 offered by default
start_cairnd "$R" -Z 6
pull -Z zstd:3
has "$T/kt.err" '<<< 200 CAPA ZLIB REPO ZAUTO ZSTD=3' "banner"
has "$T/kt.err" '>>> COMP ZSTD 3' "ktcheck"
has "$T/kt.err" '<<< 320 Ready to start ZSTD compression level 3' "ktcheck"
has "$T/kt.err" '<<< 220 ZSTD compression level 3 enabled' "ktcheck"
has "$T/err" '>>> COMP ZSTD 3' "lapply"
grep -q '^zstd stats +++ In: ' "$T/out" || fail "lapply -v: $(cat "$T/out")"
# The text came compressed, the random bytes as they are: the wire
# carries far less than the 3 MB, but more than the random megabyte.
python3 - "$T/out" <<'PY' || fail "byte counts: $(cat "$T/out")"
import re, sys
m = re.search(r'bytes: received (\d+) \((\d+) on the wire\), .* zstd level 3,',
              open(sys.argv[1]).read())
raw, wire = int(m.group(1)), int(m.group(2))
sys.exit(0 if raw > 3000000 and 1048576 < wire < 1500000 else 1)
PY
retry 100 grep -q 'session end: zstd level 3, ' "$SLOG" ||
    fail "server log: $(cat "$SLOG")"
assert_eq 2 "$(grep -c 'session end: zstd level 3, ' "$SLOG")" \
    "zstd sessions (ktcheck, lapply)"
grep -q 'session bodies: .*stored 1 files 1048576 bytes' "$SLOG" ||
    fail "random.bin not sent raw: $(cat "$SLOG")"

# -j 2: every download session in zstd.
: >"$SLOG"
LX='-j 2'
pull -Z zstd:3
LX=
wait_kids 0
assert_eq 3 "$(grep -c 'session end: zstd level 3, ' "$SLOG")" \
    "zstd sessions (ktcheck, lapply -j 2)"

# -Z auto of a server offering zstd and ZAUTO: zstd's automatic level,
# which the server names, up to -Y; the session ends in zstd.  -Z zstd:
# zstd's level 3.
: >"$SLOG"
pull -Z auto
has "$T/kt.err" '>>> COMP ZSTD AUTO' "-Z auto"
has "$T/kt.err" '<<< 320 Ready to start ZSTD compression level 3 auto' \
    "-Z auto"
has "$T/kt.err" '<<< 220 ZSTD compression level 3 auto enabled' "-Z auto"
has "$T/err" '127.0.0.1: zstd compression level auto, 0 to 3' "-Z auto -v"
grep -q 'COMP ZLIB' "$T/kt.err" && fail "-Z auto: $(cat "$T/kt.err")"
retry 100 grep -q 'session end: zstd level auto, now ' "$SLOG" ||
    fail "-Z auto: server log: $(cat "$SLOG")"
pull -Z zstd
has "$T/kt.err" '>>> COMP ZSTD 3' "-Z zstd"
has "$T/err" '127.0.0.1: zstd compression level 3' "-Z zstd -v"
# Uploads: lcreate -Z zstd:1 sends the loadset in zstd, and cairnd
# stores it byte for byte.
in_dir "$SRC" "$FSDIFF" -C -c sha1 -K /dev/null -o "$T/up.T" . ||
    fail "fsdiff -C"
run_capture "$T/out" "$T/err" in_dir "$SRC" "$(tool_path lcreate)" -v \
    -Z zstd:1 -t up.T \
    -h 127.0.0.1 -p "$PORT" "$T/up.T"
assert_eq 0 "$RC" "lcreate -Z zstd:1: $(cat "$T/err")"
has "$T/err" '>>> COMP ZSTD 1' "lcreate -Z zstd:1"
cmp -s "$T/up.T" "$R/tmp/transcript/up.T" || fail "uploaded transcript"
for f in usr/share/doc/notes0.txt usr/share/doc/notes3.txt \
    var/lib/random.bin etc/motd etc/empty; do
	assert_file_eq "$SRC/$f" "$R/tmp/file/up.T/$f" "uploaded $f"
done
# A Radmind client asks for zlib and gets exactly the level it asks.
rap "$PORT" 'COMP ZLIB 6\r\n' 'QUIT\r\n' >"$T/rap" || fail "rap"
grep -q '^320 Ready to start ZLIB compression level 6.$' "$T/rap" ||
    fail "Radmind client: $(cat "$T/rap")"
grep -q '^220 ZLIB compression level 6 enabled.$' "$T/rap" ||
    fail "Radmind client: $(cat "$T/rap")"
stop_cairnd

# A level above the server's -Y is clamped to it.
: >"$SLOG"
start_cairnd "$R" -Z 6 -Y 2
pull -Z zstd:9
has "$T/kt.err" '<<< 200 CAPA ZLIB REPO ZAUTO ZSTD=2' "-Y 2 banner"
has "$T/kt.err" '<<< 320 Ready to start ZSTD compression level 2' "-Y 2"
stop_cairnd

# Inside TLS, with a client certificate.
: >"$SLOG"
start_cairnd "$R" -w 2 -Z 6
pull -Z zstd:3 -w 2 -x "$PKI/ca.pem" -y "$PKI/client1.pem" \
    -z "$PKI/client1.pem"
has "$T/kt.err" '>>> COMP ZSTD 3' "TLS"
grep -q 'TLS started' "$SLOG" || fail "no TLS: $(cat "$SLOG")"
retry 100 grep -q 'session end: zstd level 3, ' "$SLOG" ||
    fail "TLS: server log: $(cat "$SLOG")"
stop_cairnd

# Not offered: -Y 0, and -A fixed (Radmind's banner): zlib, said by -v.
for opts in "-Y 0" "-A fixed"; do
	# shellcheck disable=SC2086
	start_cairnd "$R" -Z 6 $opts
	pull -Z zstd:3
	has "$T/kt.err" '127.0.0.1 offers no zstd: zlib' "$opts"
	grep -q 'ZSTD' "$T/kt.err" && fail "$opts: $(cat "$T/kt.err")"
	grep -q '^zlib stats +++ In: ' "$T/out" ||
	    fail "$opts: lapply -v: $(cat "$T/out")"
	pull -Z auto
	grep -q '>>> COMP ZLIB' "$T/kt.err" || fail "$opts -Z auto: no zlib"
	grep -q 'ZSTD' "$T/kt.err" && fail "$opts -Z auto: $(cat "$T/kt.err")"
	stop_cairnd
done
# zstd at a fixed level only (-Z 0 -Y 5: "ZSTD=5", no ZAUTO): -Z auto
# asks for nothing, and -v says why.
start_cairnd "$R" -Z 0 -Y 5
pull -Z auto
has "$T/kt.err" '127.0.0.1 offers no automatic level: compression level 0' \
    "-Z 0 -Y 5, -Z auto"
grep -q '>>> COMP' "$T/kt.err" && fail "-Z 0 -Y 5: $(cat "$T/kt.err")"
stop_cairnd
start_cairnd "$R" -Z 6 -A fixed
rap "$PORT" 'QUIT\r\n' >"$T/rap" || fail "rap"
grep -q '^200 CAPA ZLIB REPO.$' "$T/rap" || fail "-A fixed: $(cat "$T/rap")"
stop_cairnd

# COMP of a codec not offered, of none offered.
start_cairnd "$R" -Z 6 -Y 0
rap "$PORT" 'COMP ZSTD 3\r\nQUIT\r\n' >"$T/rap" || fail "rap"
grep -q '^501 ZSTD compression not enabled.$' "$T/rap" ||
    fail "COMP ZSTD of -Y 0: $(cat "$T/rap")"
stop_cairnd
start_cairnd "$R"
rap "$PORT" 'COMP ZSTD 3\r\nQUIT\r\n' >"$T/rap" || fail "rap"
grep -q '^501 Compression not enabled.$' "$T/rap" ||
    fail "COMP ZSTD without compression: $(cat "$T/rap")"
stop_cairnd

# -Y alone: zstd only; a zlib level finds no ZLIB, and COMP ZLIB is
# refused.
start_cairnd "$R" -Y 3
rap "$PORT" 'COMP ZLIB 6\r\nQUIT\r\n' >"$T/rap" || fail "rap"
grep -q '^501 ZLIB compression not enabled.$' "$T/rap" ||
    fail "COMP ZLIB of -Y alone: $(cat "$T/rap")"
pull -Z zstd:1
has "$T/kt.err" '<<< 200 CAPA REPO ZSTD=3' "-Y alone"
has "$T/kt.err" '<<< 220 ZSTD compression level 1 enabled' "-Y alone"
pull -Z 6
grep -qx 'compression capability mismatch, compression disabled' \
    "$T/err" || fail "-Y alone, -Z 6: $(cat "$T/err")"
stop_cairnd
exit 0
