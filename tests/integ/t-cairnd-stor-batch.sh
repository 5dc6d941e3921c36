#!/bin/sh
# t-cairnd-stor-batch: cairnd holds the 250 of a stored file (and every
# reply after it) until the file's batch is synced (docs/protocol.md
# section 5.6, Durability), yet every client gets its replies:
#   - one that waits for each reply before sending more (the replies are
#     released when the server is about to wait for it);
#   - one that pipelines more uploads than a batch holds, then QUIT: the
#     replies come back complete and in order;
#   - one whose pipelined upload is refused after some files were stored:
#     the replies held for those come first, then the refusal, and
#     nothing of the upload is kept.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
need_cmd python3
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"

R=$T/repo
make_repo "$R"
start_cairnd "$R"

# speak MODE NAME: run the client; prints what it received.
speak()
{
	python3 - "$PORT" "$1" "$2" <<'PY'
import socket, sys

port, mode, name = int(sys.argv[1]), sys.argv[2], sys.argv[3]
s = socket.create_connection(('127.0.0.1', port), timeout=10)
f = s.makefile('rb')

def line():
    l = f.readline()
    if not l:
        sys.exit('connection closed')
    return l.decode('latin-1')

def banner():
    while not line().startswith('200 '):
        pass

def upload(kind, path, data):
    req = 'STOR %s %s%s\r\n' % (kind, name, ' ' + path if path else '')
    return (req.encode() + b'%d\r\n' % len(data) + data + b'.\r\n')

banner()
out = []
if mode == 'wait':
    # Stop and wait: every reply must arrive before the next request.
    for kind, path, data in [('TRANSCRIPT', None, b'f ./a\n'),
                             ('FILE', './a', b'a\n'), ('FILE', './d/b', b'b\n')]:
        req = upload(kind, path, data)
        head, rest = req.split(b'\r\n', 1)
        s.sendall(head + b'\r\n')
        out.append(line())
        s.sendall(rest)
        out.append(line())
    s.sendall(b'QUIT\r\n')
    out.append(line())
elif mode == 'pipe':
    buf = upload('TRANSCRIPT', None, b'many\n')
    for i in range(300):
        buf += upload('FILE', './d%d/f%d' % (i % 7, i), b'file %d\n' % i)
    s.sendall(buf + b'QUIT\r\n')
    for i in range(2 * 301 + 1):
        out.append(line())
elif mode == 'refused':
    buf = upload('TRANSCRIPT', None, b'few\n')
    for i in range(5):
        buf += upload('FILE', './f%d' % i, b'file %d\n' % i)
    buf += b'STOR FILE other.T ./x\r\n2\r\nx\n.\r\n'
    s.sendall(buf)
    while True:
        l = f.readline()
        if not l:
            break
        out.append(l.decode('latin-1'))
sys.stdout.write(''.join(out))
PY
}

expect_replies()
{
	_n=$1 _last=$2
	{
		i=0
		while [ "$i" -lt "$_n" ]; do
			printf '350 Storing file\r\n250 File stored\r\n'
			i=$((i + 1))
		done
		printf '%s\r\n' "$_last"
	} >"$T/exp"
}

# Stop and wait.
speak wait w.T >"$T/out" || fail "stop-and-wait client: $(cat "$T/out")"
expect_replies 3 '201 QUIT OK, closing connection'
assert_file_eq "$T/exp" "$T/out" "stop-and-wait replies"
assert_eq 'a' "$(cat "$R/tmp/file/w.T/a")" "w.T: ./a"
assert_eq 'b' "$(cat "$R/tmp/file/w.T/d/b")" "w.T: ./d/b"

# Pipelined, more than one batch.
speak pipe p.T >"$T/out" || fail "pipelining client"
expect_replies 301 '201 QUIT OK, closing connection'
assert_file_eq "$T/exp" "$T/out" "pipelined replies"
assert_eq 300 "$(find "$R/tmp/file/p.T" -type f | wc -l)" "p.T: files"
assert_eq 'file 299' "$(cat "$R/tmp/file/p.T/d5/f299")" "p.T: last file"

# Refused after five stored files.
speak refused r.T >"$T/out" || fail "refused client"
expect_replies 6 '552 Incorrect Transcript other.T'
assert_file_eq "$T/exp" "$T/out" "replies before the refusal"
no_upload "$R" r.T
exit 0
