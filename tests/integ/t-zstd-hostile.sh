#!/bin/sh
# t-zstd-hostile: a zstd frame asking for a window larger than the 2 MiB
# both ends allow (docs/security.md D7) is refused before anything is
# allocated for it, with a message naming the peer: by cairnd, from a
# client (tests/integ/peer.py) that asked COMP ZSTD, and by ktcheck, from
# a server that offered ZSTD=3.  So is a frame in one of zstd's legacy
# formats, which the window bound would not cover, and a stream that is
# not zstd at all.  The frames are written by hand: header bytes, then a
# raw block.  A server offering a zstd dictionary (ZDICT=) that sends
# bytes that are none ends lapply's session before a file is written, the
# dictionary's fault named; so does one that sends more than the 1 MiB a
# dictionary may have, left unread.
. "$top_srcdir/tests/integ/lib.sh"
need_zstd
need_tool cairnd ktcheck lapply
need_cmd python3
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"

# Frame headers: magic 28 b5 2f fd, descriptor 00 (no size, no checksum),
# window descriptor (log - 10) << 3.  Then a raw block holding "NOOP\r\n"
# (header: size 6 << 3, not last, type raw), or "220 ok\r\n".
HUGE='\x28\xb5\x2f\xfd\x00\xa0'			# window 1 GiB (log 30)
OVER='\x28\xb5\x2f\xfd\x00\x60'			# 4 MiB (log 22): libzstd
						# alone would take it
LEGACY='\x27\xb5\x2f\xfd\x00\x00\x00\x00'	# v0.7's magic
BLOCK='\x30\x00\x00NOOP\r\n'
SBLOCK='\x40\x00\x00220 ok\r\n'			# 8 bytes

# client_frame BYTES MESSAGE: a client asks COMP ZSTD, then sends BYTES;
# cairnd ends the session and logs MESSAGE with the client's name.
client_frame()
{
	printf '%s\n' 'skip 200 CAPA' 'send COMP ZSTD 3\r\n' 'expect 320' \
	    "raw $1" 'drain' >"$T/script"
	: >"$SLOG"
	timeout 60 python3 "$top_srcdir/tests/integ/peer.py" client "$PORT" \
	    "$T/script" "$T/peer.log" || fail "peer.py: $?"
	retry 100 grep -q "$2" "$SLOG" ||
	    fail "cairnd: no \"$2\": $(cat "$SLOG")"
	grep "$2" "$SLOG" | grep -q '127\.0\.0\.1' ||
	    fail "cairnd: the client not named: $(grep "$2" "$SLOG")"
	grep -q 'session end: zstd level 3' "$SLOG" ||
	    fail "cairnd: no session end: $(cat "$SLOG")"
	grep -q '^<<< 202 ' "$T/peer.log" &&
	    fail "cairnd: the NOOP was served: $(cat "$T/peer.log")"
}

# -d: the requests served are in the log.
start_cairnd "$T/repo" -Z 6 -d
client_frame "$HUGE$BLOCK" \
    'zstd frame asks for a window larger than 2048 KiB, the most allowed: refused'
client_frame "$OVER$BLOCK" \
    'zstd frame asks for a window larger than 2048 KiB, the most allowed: refused'
client_frame "$LEGACY$BLOCK" 'zstd: not a zstd frame (starts 27b52ffd)'
client_frame 'NOOP\r\n' 'zstd: not a zstd frame (starts 4e4f4f50)'
# The same frame with a 2 MiB window (log 21, descriptor 0x58) is served.
: >"$SLOG"
printf '%s\n' 'skip 200 CAPA' 'send COMP ZSTD 3\r\n' 'expect 320' \
    'raw \x28\xb5\x2f\xfd\x00\x58\x30\x00\x00NOOP\r\n' 'drain' >"$T/script"
timeout 60 python3 "$top_srcdir/tests/integ/peer.py" client "$PORT" \
    "$T/script" "$T/peer.log" &
PY=$!
retry 100 grep -q '<<< NOOP' "$SLOG" ||
    fail "a 2 MiB window refused: $(cat "$SLOG")"
kill "$PY" 2>/dev/null
wait "$PY" 2>/dev/null
stop_cairnd

# server_frame BYTES MESSAGE: ktcheck -Z zstd:3 against a server sending
# BYTES after its 320 reply: exit 2, MESSAGE on stderr after the server's
# name, nothing written.
server_frame()
{
	rm -rf "$T/c"
	mkdir "$T/c"
	printf '%s\n' 'send 200-RAP 1 evil peer.py radmind access protocol\r\n200 CAPA ZLIB REPO ZSTD=3\r\n' \
	    'skip COMP' 'send 320 Ready to start ZSTD compression level 3\r\n' \
	    "raw $1" 'drain' >"$T/script"
	start_peer "$T/script" "$T/peer.log"
	run_capture "$T/out" "$T/err" timeout 60 "$KTCHECK" -Z zstd:3 \
	    -K "$T/c/command.K" -h 127.0.0.1 -p "$PEERPORT"
	kill "$PEERPID" 2>/dev/null
	wait "$PEERPID" 2>/dev/null
	assert_eq 2 "$RC" "ktcheck: $(cat "$T/err")"
	grep -q "^127\.0\.0\.1.*: $2" "$T/err" ||
	    fail "ktcheck: no \"$2\" naming the server: $(cat "$T/err")"
	[ -z "$(ls -A "$T/c")" ] || fail "written: $(ls -A "$T/c")"
}

server_frame "$HUGE$SBLOCK" \
    'zstd frame asks for a window larger than 2048 KiB, the most allowed: refused'
server_frame "$OVER$SBLOCK" \
    'zstd frame asks for a window larger than 2048 KiB, the most allowed: refused'
server_frame "$LEGACY$SBLOCK" \
    'zstd: not a zstd frame (starts 27b52ffd)'

# COMP ZSTD AUTO leaves the codec to the server: one that grants zlib
# (its banner lists it) is spoken to in zlib, -v saying so; one naming a
# codec its banner does not list, or none, ends the session with an
# error naming it, nothing written.
server_auto()
{
	rm -rf "$T/c"
	mkdir "$T/c"
	printf '%s\n' 'send 200-RAP 1 evil peer.py radmind access protocol\r\n200 CAPA ZLIB REPO ZAUTO ZSTD=3\r\n' \
	    'expect COMP ZSTD AUTO' "send 320 Ready to start $1 compression level 6 auto\\r\\n" \
	    "$2" "send 220 $1 compression level 6 auto enabled\\r\\n" 'recv' \
	    'close' >"$T/script"
	start_peer "$T/script" "$T/peer.log"
	run_capture "$T/out" "$T/err" timeout 60 "$KTCHECK" -v -Z auto \
	    -K "$T/c/command.K" -h 127.0.0.1 -p "$PEERPORT"
	kill "$PEERPID" 2>/dev/null
	wait "$PEERPID" 2>/dev/null
	[ -z "$(ls -A "$T/c")" ] || fail "written: $(ls -A "$T/c")"
}
server_auto ZLIB 'zlib'
grep -q '127.0.0.1: zlib compression level auto, 0 to 6' "$T/err" ||
    fail "ZLIB granted: $(cat "$T/err")"
# The request after the switch came deflated, and read as such.
grep -Eq '^<<< (STAT|RETR) ' "$T/peer.log" ||
    fail "no deflated request: $(cat "$T/peer.log")"
server_auto LZMA 'sleep 0'
assert_eq 2 "$RC" "LZMA granted: $(cat "$T/err")"
grep -q '^127\.0\.0\.1: COMP: 320 Ready to start LZMA compression level 6 auto' \
    "$T/err" || fail "LZMA granted: $(cat "$T/err")"
# rawframe TEXT: TEXT (Python escapes) as one complete frame of one raw
# block, in peer.py's escapes.
rawframe()
{
	python3 -c 'import sys
d = sys.argv[1].encode().decode("unicode_escape").encode("latin-1")
b = len(d) << 3 | 1
f = b"\x28\xb5\x2f\xfd\x00\x38" + bytes([b & 255, b >> 8 & 255, b >> 16]) + d
print("".join("\\x%02x" % c for c in f))' "$1"
}

# dict_server SECONDS REPLIES [KEPT]: a server offering dictionary 7
# that answers, after COMP, with REPLIES (Python escapes) in one frame,
# then waits; lapply, about to fetch 100000 bytes (more than 16 times
# the 1 KiB 100 rounds to), given SECONDS, must end the session before
# it writes a file.  With KEPT, lapply has kept dictionary 7 of that
# server, those bytes, and names it first.
mkdir -p "$T/root"
{
	echo 'test.T:'
	printf '+ f ./big\t0644 0 0 1700000000 100000 -\n'
} >"$T/big.T"
dict_server()
{
	printf '%s\n' 'send 200-RAP 1 evil peer.py radmind access protocol\r\n200 CAPA ZLIB REPO ZSTD=3 ZDICT=100 ZDICTID=7\r\n' \
	    'skip COMP' 'send 320 Ready to start ZSTD compression level 3\r\n' \
	    "raw $(rawframe "220 ZSTD compression level 3 enabled\\r\\n$2")" \
	    'drain' >"$T/script"
	start_peer "$T/script" "$T/peer.log"
	rm -rf "$CAIRN_ZDICTDIR"
	if [ -n "${3-}" ]; then
		mkdir -m 700 -p "$CAIRN_ZDICTDIR" || fail "mkdir"
		printf '%s' "$3" >"$CAIRN_ZDICTDIR/$(kept_name 7 \
		    "127.0.0.1:$PEERPORT")" || fail "kept file"
	fi
	run_capture "$T/out" "$T/err" in_dir "$T/root" timeout "$1" \
	    "$LAPPLY" -Z zstd:3 -h 127.0.0.1 -p "$PEERPORT" "$T/big.T"
	kill "$PEERPID" 2>/dev/null
	wait "$PEERPID" 2>/dev/null
	assert_eq 2 "$RC" "lapply, answered $2: $(cat "$T/err")"
	[ -z "$(ls -A "$T/root")" ] || fail "written: $(ls -A "$T/root")"
}

# A dictionary that is none.
dict_server 60 '240 Retrieving file\r\n24\r\nnot a dictionary at all..\r\n'
grep -q '127\.0\.0\.1.*: not a zstd dictionary' "$T/err" ||
    fail "lapply: no error naming the dictionary: $(cat "$T/err")"

# A dictionary of 2,000,000 bytes, over the 1 MiB bound: its size line
# alone ends the session (the server's frames would be made with it):
# lapply does not wait for the bytes, which never come (peer.py waits 30 s
# for a line, lapply is given 20).
dict_server 20 '240 Retrieving file\r\n2000000\r\n'
grep -q 'zdict: 2000000 bytes, more than the 1048576 accepted' "$T/err" ||
    fail "lapply: no error naming the dictionary's size: $(cat "$T/err")"

# A server closing (421) when lapply names the dictionary it kept: the
# session ends there, with the server's reply, and nothing more is asked
# of it (RETR ZDICT would wait on a closed session).
dict_server 20 '421 Service closing for maintenance\r\n' 'kept earlier'
grep -q 'ZDICT: 421 Service closing for maintenance' "$T/err" ||
    fail "lapply: no 421 quoted: $(cat "$T/err")"
exit 0
