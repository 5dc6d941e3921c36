#!/bin/sh
# cairnd COMP: level clamped to 1..-Z max as Radmind does, 320 in clear
# then everything compressed both ways (one zlib stream per direction,
# never finished), error replies, COMP twice, and read-ahead after the
# COMP line treated as compressed; a corrupt stream ends the session,
# also in the middle of an upload, which is then removed (D3).
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"

start_cairnd "$T/repo" -Z 6 -A fixed

# comp LEVEL-TOKEN EFFECTIVE: negotiate, then NOOP + STAT + QUIT compressed.
comp()
{
	{
		banner ZLIB
		printf '320 Ready to start ZLIB compression level %s\r\n' "$2"
		printf '220 ZLIB compression level %s enabled\r\n' "$2"
		printf '202 NOOP OK\r\n'
		printf '230 Returning STAT information\r\n'
		printf 'f neg.T 444 0 0 1700000000 17 /FFwxaO2EtGejSW4EcJAGglL+eU=\r\n'
		printf '240 Retrieving file\r\n17\r\nd ./var 0755 0 0\n.\r\n'
		printf '201 QUIT OK, closing connection\r\n'
	} >"$T/exp"
	rap ${3:-} "$PORT" "COMP ZLIB $1\r\n" \
	    'NOOP\r\nSTAT TRANSCRIPT neg.T\nRETR TRANSCRIPT neg.T\nQUIT\r\n' \
	    >"$T/out" || fail "rap (level $1)"
	assert_file_eq "$T/exp" "$T/out" "COMP ZLIB $1"
}
comp 6 6
comp 3 3
comp 1 1
comp 9 6
comp 99999999999999999999 6
comp 0 1
comp -5 1
comp abc 1
comp 2 2 --eager

# No level token: the server's maximum.
{
	banner ZLIB
	printf '320 Ready to start ZLIB compression level 6\r\n'
	printf '220 ZLIB compression level 6 enabled\r\n'
	printf '501 Compression already enabled\r\n'
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
rap "$PORT" 'compress zlib\r\n' 'COMP ZLIB 5\r\nQUIT\r\n' >"$T/out" ||
    fail "rap"
assert_file_eq "$T/exp" "$T/out" "COMP without level, COMP twice"

# Errors leave the session uncompressed.
{
	banner ZLIB
	printf '525 GZIP: unknown compression type\r\n'
	printf '501 Syntax error\r\n'
	printf '501 Syntax error\r\n'
	printf '202 NOOP OK\r\n'
	printf '201 QUIT OK, closing connection\r\n'
} >"$T/exp"
rap "$PORT" 'COMP GZIP 5\r\nCOMP\r\nCOMP ZLIB 1 2\r\nNOOP\r\nQUIT\r\n' \
    >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "COMP errors"

# Corrupt compressed input ends that session; the daemon goes on.
python3 - "$PORT" <<'PY' || fail "corrupt stream"
import socket, sys
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), 30)
s.settimeout(30)
s.sendall(b'COMP ZLIB 1\r\n')
got = b''
while b'320 ' not in got:
    got += s.recv(4096)
s.sendall(b'\x78\x9c\xff\xff\xff\xff garbage')
s.shutdown(socket.SHUT_WR)
while s.recv(4096):
    pass
PY
{
	banner ZLIB
	printf '202 NOOP OK\r\n'
} >"$T/exp"
rap "$PORT" 'NOOP\r\n' >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "after a corrupt stream"

# ... and in the middle of an upload (docs/security.md D3): half of a
# file's body arrives, then a block of reserved type.  The session ends,
# nothing of the upload stays in tmp/, and the daemon goes on.
: >"$SLOG"
python3 - "$PORT" "$T/repo" <<'PY' || fail "corrupt upload"
import os, socket, sys, time, zlib
s = socket.create_connection(('127.0.0.1', int(sys.argv[1])), 30)
s.settimeout(30)
s.sendall(b'COMP ZLIB 6\r\n')
got = b''
while b'320 ' not in got or b'\r\n' not in got[got.index(b'320 '):]:
    got += s.recv(4096)
# What follows the 320 line (the zlib header, if it came along) is the
# start of the compressed replies.
inf = zlib.decompressobj()
d = zlib.compressobj(6)
replies = inf.decompress(got[got.index(b'\r\n', got.index(b'320 ')) + 2:])

def send(data):
    s.sendall(d.compress(data) + d.flush(zlib.Z_SYNC_FLUSH))

def wait_for(text, n):
    global replies
    while replies.count(text) < n:
        data = s.recv(4096)
        if not data:
            sys.exit('closed early: %r' % replies)
        replies += inf.decompress(data)

tline = (b'f ./a                                    0644     0     0 '
         b'1700000000     100 -\n')
send(b'STOR TRANSCRIPT broken.T\r\n%d\r\n' % len(tline) + tline + b'.\r\n')
wait_for(b'250 ', 1)
send(b'STOR FILE broken.T ./a\r\n100\r\n' + b'x' * 50)
wait_for(b'350 ', 2)
if not os.path.exists(sys.argv[2] + '/tmp/transcript/broken.T'):
    sys.exit('the upload did not start: %r' % replies)
time.sleep(0.5)
s.sendall(b'\xff\xff\xff\xff\xff\xff\xff\xff')
s.shutdown(socket.SHUT_WR)
while s.recv(4096):
    pass
PY
retry 100 upload_gone "$T/repo" broken.T || no_upload "$T/repo" broken.T
grep -q 'inflate: invalid block type' "$SLOG" || fail "corrupt upload: log"
rap "$PORT" 'NOOP\r\n' >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "after a corrupt upload"
stop_cairnd

# Without -Z: not enabled.
start_cairnd "$T/repo"
{
	banner
	printf '501 Compression not enabled\r\n'
} >"$T/exp"
rap "$PORT" 'COMP ZLIB 6\r\n' >"$T/out" || fail "rap"
assert_file_eq "$T/exp" "$T/out" "COMP without -Z"
exit 0
