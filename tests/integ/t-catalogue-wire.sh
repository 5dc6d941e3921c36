#!/bin/sh
# Hostile bytes on the wire (docs/security.md A2, A3, A5, A6, A8, D1, D3,
# G2).  Against cairnd: a NUL inside a command ends that line
# (docs/protocol.md 2), so each part gets its own error reply and none
# runs as another valid command (A2); an unknown verb, wrong argument
# counts, 1000 arguments, a lone CR, a lone LF and a bare CRLF each get a
# 5xx reply and the server hangs up after its error limit (A3); a transcript the command
# file does not list gets the same "no access" reply whether it exists
# or not, with nothing of its size, time or checksum (A5); COMP levels
# 10 and -1 are clamped (D1).  Against lapply, a server (peer.py) that
# sends no banner (A3), a malformed or lying size line (A6), more bytes
# than announced, no "." terminator, ".." or an early "." (A8), a
# compressed stream that turns corrupt or stops inside a block in the
# middle of a file, a bit flipped in a stored block's length check, and
# one in its data, which only the checksum (-c) catches (D3), a TCP
# reset in the middle of a file, in clear and compressed (G2): exit 2,
# the message names the server and the problem, the old file stays as it
# was, no temp file is left and bytes after the fault are never taken as
# the reply for the next file.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd lapply
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
mkdir -p "$T/repo/file/other.T/etc"
printf 'secret other\n' >"$T/repo/file/other.T/etc/motd"
cp "$T/repo/transcript/test.T" "$T/repo/transcript/other.T"

start_cairnd "$T/repo" -Z 6

# A2: NUL ends a line; neither part is a valid command.
{
	banner ZAUTO
	printf '540 RETR Syntax error\r\n'
	printf '500 Command COMMAND unrecognized\r\n'
	printf '540 No access for a\r\n'
	printf '500 Command b unrecognized\r\n'
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
rap "$PORT" 'RETR\x00 COMMAND\r\nSTAT TRANSCRIPT a\x00b\r\nQUIT\r\n' \
    >"$T/out" || fail "A2: rap"
assert_file_eq "$T/exp" "$T/out" "A2 NUL in a command"

# A3: every bad line gets a 5xx; the error limit ends the session.
many=$(python3 -c 'print(" a" * 1000, end="")')
{
	banner ZAUTO
	printf '501 Syntax error (too many arguments)\r\n'
	printf '500 Command FOO unrecognized\r\n'
	printf '501 Illegal null command\r\n'
	printf '202 NOOP OK\r\n'
	printf '501 Illegal null command\r\n'
	printf '202 NOOP OK\r\n'
	printf '501 Illegal null command\r\n'
	printf '540 RETR Syntax error\r\n'
	printf '530 STAT Syntax error\r\n'
	printf '501 Syntax error\r\n'
	printf '500 Command X unrecognized\r\n'
	printf '500 Command Y unrecognized\r\n'
	printf '421 Too many errors, closing transmission channel\r\n'
} >"$T/exp"
rap "$PORT" "STAT$many\\r\\nFOO\\r\\n\\rNOOP\\r\\n\\nNOOP\\r\\n\\r\\nRETR FILE\\r\\nSTAT a b c\\r\\nCOMP\\r\\nX\\r\\nY\\r\\nZ\\r\\nNOOP\\r\\n" \
    >"$T/out" || fail "A3: rap"
assert_file_eq "$T/exp" "$T/out" "A3 bad lines and the error limit"

# A5: an unlisted transcript that exists looks like one that does not.
{
	banner ZAUTO
	printf '540 No access for other.T\r\n'
	printf '540 No access for other.T\r\n'
	printf '540 No access for other.T:./etc/motd\r\n'
	printf '540 No access for nosuch.T\r\n'
	printf '540 No access for nosuch.T\r\n'
	printf '540 No access for nosuch.T:./etc/motd\r\n'
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
rap "$PORT" 'STAT TRANSCRIPT other.T\nRETR TRANSCRIPT other.T\nRETR FILE other.T ./etc/motd\nSTAT TRANSCRIPT nosuch.T\nRETR TRANSCRIPT nosuch.T\nRETR FILE nosuch.T ./etc/motd\nQUIT\r\n' \
    >"$T/out" || fail "A5: rap"
assert_file_eq "$T/exp" "$T/out" "A5 unlisted transcript"

# D1: out-of-range levels are clamped to 1..-Z max.
for lv in 10:6 -1:1; do
	{
		banner ZAUTO
		printf '320 Ready to start ZLIB compression level %s\r\n' "${lv#*:}"
		printf '220 ZLIB compression level %s enabled\r\n' "${lv#*:}"
		printf '202 NOOP OK\r\n'
	} >"$T/exp"
	rap "$PORT" "COMP ZLIB ${lv%:*}\\r\\n" 'NOOP\r\n' >"$T/out" ||
	    fail "D1: rap"
	assert_file_eq "$T/exp" "$T/out" "D1 COMP ZLIB ${lv%:*}"
done
stop_cairnd

# --- lapply against a scripted server
R=$T/root
mkdir "$R"
U=$(id -u)
G=$(id -g)
# The transcript: ./a and ./b, 12 bytes each ("hello world\n").
printf 'hello world\n' >"$T/hello"
SUM=$(sha1b64 "$T/hello")
{
	echo 'test.T:'
	printf '+ f ./a\t0644 %s %s 1700000000 12 %s\n' "$U" "$G" "$SUM"
	printf '+ f ./b\t0644 %s %s 1700000000 12 %s\n' "$U" "$G" "$SUM"
} >"$T/ab.T"
BANNER='send 200-RAP 1 peer 1.0 radmind access protocol\r\n200 CAPA REPO\r\n'
ZBANNER='send 200-RAP 1 peer 1.0 radmind access protocol\r\n200 CAPA ZLIB REPO\r\n'

# hostile CASE REPLY...: lapply downloads ./a and ./b from a peer that
# sends the banner (unless REPLY starts with "nobanner"), waits for the
# first RETR and then runs the peer.py commands REPLY.  If REPLY starts
# with "zlib", lapply asks for -Z 6 and the peer agrees to it first, so
# REPLY runs in compressed mode.  ./a holds "old" beforehand.  Expects
# exit 2, ./a unchanged, ./b absent, no temp file; stderr in $T/err.
# HOSTILE_OPTS: more lapply options.
HOSTILE_OPTS=
hostile()
{
	_case=$1
	shift
	rm -rf "$R"/* "$R"/.[!.]*
	printf 'old\n' >"$R/a"
	touch -d @1600000000 "$R/a"
	_old=$(stat -c '%i %a %Y %s' "$R/a")
	_z=
	{
		if [ "$1" = zlib ]; then
			shift
			_z='-Z 6'
			printf "%s\n" "$ZBANNER" 'skip COMP' \
			    'send 320 Ready to start ZLIB compression level 6\r\n' \
			    zlib 'send 220 ZLIB compression level 6 enabled\r\n' \
			    'skip RETR'
		elif [ "$1" = nobanner ]; then
			shift
		else
			printf "%s\n" "$BANNER"
			echo 'skip RETR'
		fi
		for _l in "$@"; do
			printf "%s\n" "$_l"
		done
		echo 'drain'
	} >"$T/script"
	start_peer "$T/script" "$T/peer.log"
	_t0=$(date +%s)
	run_capture "$T/out" "$T/err" in_dir "$R" "$LAPPLY" $_z $HOSTILE_OPTS \
	    -h 127.0.0.1 -p "$PEERPORT" "$T/ab.T"
	wait "$PEERPID"
	[ $(($(date +%s) - _t0)) -le 60 ] ||
	    fail "$_case: lapply took more than 60 s"
	[ "$RC" = 2 ] || fail "$_case: exit $RC, expected 2: $(cat "$T/err")"
	[ "$(stat -c '%i %a %Y %s' "$R/a")" = "$_old" ] &&
	    [ "$(cat "$R/a")" = old ] || fail "$_case: ./a changed"
	[ -e "$R/b" ] && fail "$_case: ./b was created"
	_left=$(ls -A "$R")
	[ "$_left" = a ] || fail "$_case: left in the root: $_left"
	return 0
}

# err_line TEXT: stderr holds the line TEXT.
err_line()
{
	grep -qxF "$1" "$T/err" ||
	    fail "$_case: no line \"$1\" in: $(cat "$T/err")"
}

# A3: no banner.
hostile 'A3 no banner' nobanner 'send hello\r\n'
grep -q 'hello' "$T/err" || fail "A3 no banner: $(cat "$T/err")"
hostile 'A3 closed before the banner' nobanner 'close'
[ -s "$T/err" ] || fail "A3 closed before the banner: no message"

# A6: malformed size lines, each refused before anything is written.
for sz in '-1' 'abc' '' '1e3' ' 12' '12 junk' '99999999999999999999'; do
	hostile "A6 size \"$sz\"" \
	    "send 240 Retrieving file\\r\\n$sz\\r\\nhello world\\n.\\r\\n"
	err_line "127.0.0.1: bad file size \"$sz\""
done
# A6: a size that differs from the transcript's.
hostile 'A6 size 13' 'send 240 Retrieving file\r\n13\r\nhello world\n\n.\r\n' \
    'sleep 1' 'close'
grep -q 'size in transcript does not match size from server' "$T/err" ||
    fail "A6 size 13: $(cat "$T/err")"

# A8: more bytes than announced, the surplus shaped as the reply for ./b.
hostile 'A8 surplus' 'send 240 Retrieving file\r\n12\r\nhello world\n240 Retrieving file\r\n12\r\nhello world\n.\r\n'
err_line '127.0.0.1: file not terminated by "."'
# No terminator: the body, then the reply for ./b.
hostile 'A8 no terminator' 'send 240 Retrieving file\r\n12\r\nhello world\n' \
    'send 240 Retrieving file\r\n12\r\nhello world\n.\r\n'
err_line '127.0.0.1: file not terminated by "."'
hostile 'A8 ".."' 'send 240 Retrieving file\r\n12\r\nhello world\n..\r\n' \
    'send 240 Retrieving file\r\n12\r\nhello world\n.\r\n'
err_line '127.0.0.1: file not terminated by "."'
# "." early: 6 bytes and ".", then the server closes.
hostile 'A8 early "."' 'send 240 Retrieving file\r\n12\r\nhello\n.\r\n' \
    'sleep 1' 'close'
grep -q '^127\.0\.0\.1: ' "$T/err" || fail "A8 early: $(cat "$T/err")"

# D3: the compressed stream turns corrupt in the middle of the body (a
# block of reserved type after a sync flush).
hostile 'D3 corrupt' zlib 'send 240 Retrieving file\r\n12\r\nhello' \
    'raw \xff\xff\xff\xff\xff\xff\xff\xff'
err_line '127.0.0.1: inflate: invalid block type'
# ... or stops inside a block (the header of a fixed-code block and the
# first five bits of a code), then FIN (a half-close: the peer reads on,
# so what lapply sent never turns the close into a reset).
hostile 'D3 truncated' zlib 'send 240 Retrieving file\r\n12\r\nhello' \
    'raw \x02' 'shutdown'
err_line '127.0.0.1: connection closed'
# A bit flipped in the length check of a stored block (NLEN no longer
# the complement of LEN): inflate itself refuses it.
hostile 'D3 flipped NLEN' zlib 'send 240 Retrieving file\r\n12\r\nhello' \
    'raw \x00\x07\x00\xf8\xfe world\n' 'sleep 1' 'close'
err_line '127.0.0.1: inflate: invalid stored block lengths'
# A bit flipped in the data of a stored block ("o" 0x6f, "n" 0x6e): the
# stream still inflates, to the right size, so only the checksum tells;
# with -c the download is refused and discarded.
HOSTILE_OPTS='-c sha1'
hostile 'D3 flipped data' zlib 'send 240 Retrieving file\r\n12\r\nhello' \
    'raw \x00\x0a\x00\xf5\xff wnrld\n.\r\n' 'sleep 1' 'close'
err_line 'line 2: checksum in transcript does not match checksum from server'
grep -q "^127\.0\.0\.1: \./a: the server's copy does not match" "$T/err" ||
    fail "D3 flipped data: $(cat "$T/err")"
HOSTILE_OPTS=

# G2: a TCP reset (not a FIN) in the middle of the body, in clear and
# compressed.
hostile 'G2 reset' 'send 240 Retrieving file\r\n12\r\nhello' 'sleep 1' reset
err_line '127.0.0.1: read: Connection reset by peer'
# In words, not as the request line.
err_line "lapply: $T/ab.T: line 2: ./a: not downloaded, the session with 127.0.0.1 ended"
grep -q '^FILE ' "$T/err" && fail "G2 reset: a request line: $(cat "$T/err")"
hostile 'G2 reset, zlib' zlib 'send 240 Retrieving file\r\n12\r\nhello' \
    'sleep 1' reset
err_line '127.0.0.1: read: Connection reset by peer'
exit 0
