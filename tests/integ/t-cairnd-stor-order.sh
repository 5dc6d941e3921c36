#!/bin/sh
# t-cairnd-stor-order: "250 File stored" means the file is on disk.  cairnd
# syncs a full batch of uploads on a thread while it receives the next;
# the replies of a batch may go out only once that batch is synced.  A
# pipelining client uploads 300 files (more than two batches of 128) and
# logs every reply as it arrives; the fault injector stops the session
# just before its second syncfs (the one for files 129-256) and counts
# the 250s the client has by then: at most the transcript's and the 128
# of the first batch.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
need_cmd python3
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
need_shim

R=$T/repo
make_repo "$R"
: >"$T/replies"
# At the second syncfs: give the client a moment to read whatever was
# sent, then count its 250s.
LD_PRELOAD=$SHIM
CAIRN_SHIM_STOP=syncfs:2
CAIRN_SHIM_RUN="sleep 1; grep -c '^250' '$T/replies' >'$T/at-sync'"
export LD_PRELOAD CAIRN_SHIM_STOP CAIRN_SHIM_RUN
start_cairnd "$R"
unset LD_PRELOAD CAIRN_SHIM_STOP CAIRN_SHIM_RUN

python3 - "$PORT" "$T/replies" <<'PY' || fail "pipelining client"
import socket, sys

port, log = int(sys.argv[1]), sys.argv[2]
s = socket.create_connection(('127.0.0.1', port), timeout=30)
f = s.makefile('rb')
while not f.readline().decode('latin-1').startswith('200 '):
    pass

def upload(kind, path, data):
    req = 'STOR %s o.T%s\r\n' % (kind, ' ' + path if path else '')
    return req.encode() + b'%d\r\n' % len(data) + data + b'.\r\n'

buf = upload('TRANSCRIPT', None, b'order\n')
for i in range(300):
    buf += upload('FILE', './d%d/f%d' % (i % 3, i), b'file %d\n' % i)
s.sendall(buf + b'QUIT\r\n')
with open(log, 'a') as out:
    for i in range(2 * 301 + 1):
        l = f.readline()
        if not l:
            sys.exit('connection closed after %d replies' % i)
        out.write(l.decode('latin-1').rstrip('\r\n') + '\n')
        out.flush()
PY
[ -s "$T/at-sync" ] || fail "the session never reached its second syncfs"
n=$(cat "$T/at-sync")
[ "$n" -le 129 ] ||
    fail "$n files confirmed before the second batch was synced"
assert_eq 301 "$(grep -c '^250' "$T/replies")" "250s in all"
assert_eq 300 "$(find "$R/tmp/file/o.T" -type f | wc -l)" "files stored"
stop_cairnd
exit 0
