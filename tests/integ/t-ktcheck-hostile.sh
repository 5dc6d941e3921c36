#!/bin/sh
# t-ktcheck-hostile: a hostile server (tests/integ/peer.py) cannot hold
# ktcheck or fill its disk.  Replies without end (continuation lines, a
# banner of endless lines, one endless line) fail fast with a message
# naming the server; a declared size over the 1 GiB limit for command
# files and transcripts is refused before anything is written, and so is
# a RETR size that differs from the STAT size; as root, a size that does
# not fit the file system (with 16 MiB kept free) is refused up front.
# Nothing is left in the command directory.  A compressed stream that
# turns corrupt, or stops inside a block, in the middle of a command
# file (docs/security.md D3) fails with exit 2 and a message naming the
# server; the old command file stays as it was, and nothing else is
# left.  A command file naming a transcript outside the command
# directory is refused.
. "$top_srcdir/tests/integ/lib.sh"
need_tool ktcheck
need_cmd python3
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
C=$T/client
mkdir "$C"

BANNER='send 200 RAP 1 evil peer.py radmind access protocol\r\n'
STATHDR='send 230 Returning STAT information\r\n'
# After a refusal ktcheck still ends the session with QUIT and waits for
# the reply (bounded, like every reply): answer it rather than make it
# wait the time out.  Every line before it is still logged.
QUIT='skip QUIT
send 201 QUIT OK, closing connection\r\n
drain'

# hostile SCRIPT-TEXT: run ktcheck against a peer running the script
# (what the peer receives in $T/peer.log); sets RC, output in $T/out and
# $T/err.  Bounded by timeout(1).
hostile()
{
	printf '%s\n' "$1" >"$T/script"
	start_peer "$T/script" "$T/peer.log"
	run_capture "$T/out" "$T/err" timeout 60 "$KTCHECK" ${KTZ:-} \
	    -K "$C/command.K" -h 127.0.0.1 -p "$PEERPORT"
	kill "$PEERPID" 2>/dev/null
	wait "$PEERPID" 2>/dev/null
	[ "$RC" != 124 ] || fail "ktcheck still waiting after 60 s"
}

clean()
{
	[ -z "$(ls -A "$C")" ] || fail "left in the command directory: $(ls -A "$C")"
}

# 1. Continuation lines without end.
hostile "$BANNER
recv
repeat 100000 0 230-and more\\r\\n"
assert_eq 2 "$RC" "endless reply exit"
grep -q '127.0.0.1\[127.0.0.1\]: reply longer than 64 lines\|: reply longer than 64 lines' "$T/err" ||
    fail "endless reply: $(cat "$T/err")"
clean

# 2. A banner without end.
hostile "repeat 100000 0 200-welcome\\r\\n"
assert_eq 2 "$RC" "endless banner exit"
grep -q 'reply longer than 64 lines' "$T/err" || fail "endless banner: $(cat "$T/err")"

# 3. One line without end.
hostile "$BANNER
recv
send 230-
body 2000000"
assert_eq 2 "$RC" "endless line exit"
grep -q 'reply longer than 65536 bytes\|line longer than' "$T/err" ||
    fail "endless line: $(cat "$T/err")"
clean

# 4. A command file of 10 TiB.
hostile "$BANNER
recv
$STATHDR
send f command.K 0644 0 0 1700000000 10995116277760 -\\r\\n
$QUIT"
assert_eq 2 "$RC" "huge STAT exit"
grep -q "COMMAND $C/command.K is 10995116277760 bytes, more than the 1073741824 a command file or transcript may have" "$T/err" ||
    fail "huge STAT: $(cat "$T/err")"
grep -q '^<<< RETR' "$T/peer.log" && fail "asked for the huge file"
clean

# 5. A RETR size other than the STAT size.
hostile "$BANNER
recv
$STATHDR
send f command.K 0644 0 0 1700000000 10 -\\r\\n
recv
send 240 Retrieving file\\r\\n999999\\r\\n
body 999999
send .\\r\\n
$QUIT"
assert_eq 2 "$RC" "lying RETR size exit"
grep -q 'command.K: size in STAT reply does not match size from server' "$T/err" ||
    fail "lying size: $(cat "$T/err")"
clean

# 6. D3: the compressed stream breaks in the middle of the new command
# file, after its first five bytes: a block of reserved type, or the
# header of a fixed-code block and five bits of a code, then FIN (a
# half-close).  The old command file stays.
# corrupt LABEL MESSAGE PEER-COMMANDS: one such run; stderr holds the
# line MESSAGE.
corrupt()
{
	printf 'old\n' > "$C/command.K"
	touch -d @1600000000 "$C/command.K"
	OLD=$(stat -c '%i %a %Y %s' "$C/command.K")
	KTZ='-Z 6'
	hostile "send 200-RAP 1 evil peer.py radmind access protocol\\r\\n200 CAPA ZLIB REPO\\r\\n
skip COMP
send 320 Ready to start ZLIB compression level 6\\r\\n
zlib
send 220 ZLIB compression level 6 enabled\\r\\n
skip STAT
$STATHDR
send f command.K 0644 0 0 1700000000 10 -\\r\\n
skip RETR
send 240 Retrieving file\\r\\n10\\r\\nhello
$3
drain"
	KTZ=
	assert_eq 2 "$RC" "$1: exit"
	grep -qxF "$2" "$T/err" || fail "$1: $(cat "$T/err")"
	grep -q '^<<< RETR' "$T/peer.log" || fail "$1: no RETR"
	[ "$(stat -c '%i %a %Y %s' "$C/command.K")" = "$OLD" ] &&
	    [ "$(cat "$C/command.K")" = old ] || fail "$1: command.K changed"
	rm "$C/command.K"
	clean
}
corrupt 'corrupt stream' '127.0.0.1: inflate: invalid block type' \
    'raw \xff\xff\xff\xff\xff\xff\xff\xff'
corrupt 'stream cut in a block' '127.0.0.1: connection closed' "raw \\x02
shutdown"

# 8. A command file naming a transcript outside the command directory
# (cairnd refuses to serve one; a Radmind server does not): exit 2
# naming it, nothing fetched, nothing left.
hostile "$BANNER
recv
$STATHDR
send f command.K 0644 0 0 1700000000 12 -\\r\\n
recv
send 240 Retrieving file\\r\\n12\\r\\np ../evil.T\\n
send .\\r\\n
$QUIT"
assert_eq 2 "$RC" "escaping name exit"
grep -q 'command.K: line 1: ../evil.T: name outside the command directory' \
    "$T/err" || fail "escaping name: $(cat "$T/err")"
grep -q '^<<< STAT .*evil' "$T/peer.log" && fail "asked for ../evil.T"
[ -e "$T/evil.T" ] && fail "wrote outside the command directory"
rm -f "$C/command.K"
clean

# 7. As root: a size that does not fit a small file system.
if [ "$(id -u)" = 0 ] && mkdir "$T/small" &&
    mount -t tmpfs -o size=32m tmpfs "$T/small" 2>/dev/null; then
	at_exit "umount '$T/small'"
	C=$T/small/client
	mkdir "$C"
	hostile "$BANNER
recv
$STATHDR
send f command.K 0644 0 0 1700000000 20000000 -\\r\\n
recv
send 240 Retrieving file\\r\\n20000000\\r\\n
body 20000000
send .\\r\\n
$QUIT"
	assert_eq 2 "$RC" "no room exit"
	grep -q "$C/command.K: 20000000 bytes do not fit: [0-9]* bytes free, 16777216 kept free" "$T/err" ||
	    fail "no room: $(cat "$T/err")"
	clean
else
	not_run "the free-space case (needs root and a tmpfs)"
fi
exit 0
