#!/bin/sh
# t-cairnd-stor-room: what cairnd leaves free on the file system of tmp/
# (a tmpfs of 10 MiB and 1000 inodes in a mount namespace of the test's
# own).  Two uploads side by side that each fit above the -N floor
# alone but not together: the second is refused when it declares its
# size, since the first one's space is reserved as soon as it is
# accepted; the first completes.  A loadset of empty files that would
# take the last inodes: refused once 1% of them and 64 more are left,
# the refusal naming the reason and logged with the counts, nothing of
# the loadset kept; a loadset within the floor is stored.  And the space
# is reserved 64 MiB at a time as the body arrives, so that a client
# sending slowly does not hold what it declared; a quota that refuses the
# reservation is told as a quota.
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
need_root
in_mount_ns
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
make_repo "$T/repo"
R=$T/repo
mkdir -p "$R/tmp" || fail "mkdir tmp"
mount -t tmpfs -o size=10m,nr_inodes=1000 tmpfs "$R/tmp" ||
    skip "no tmpfs could be mounted"
at_exit "umount -l '$R/tmp'"
start_cairnd "$R" -N 3

# The uploading clients' helpers (their port the first argument):
# conn(port) connects and reads the
# banner, until(s, want) reads replies until want is among them (20 s at
# most), stor(s, t, size) uploads transcript t listing ./big of size
# bytes and begins STOR FILE t ./big, begin(...) does all three and
# sends the first bytes.
cat >"$T/storc.py" <<'PY'
import socket, sys, time

port = int(sys.argv[1])
MIB = 1 << 20

def conn(port):
    s = socket.create_connection(('127.0.0.1', port), timeout=20)
    buf = b''
    while b'CAPA' not in buf or not buf.endswith(b'\n'):
        d = s.recv(4096)
        if not d:
            sys.exit('no banner')
        buf += d
    return s

def until(s, want, buf=b''):
    t0 = time.time()
    try:
        while want not in buf and time.time() - t0 < 20:
            d = s.recv(4096)
            if not d:
                break
            buf += d
    except socket.timeout:
        pass
    return buf

def stor(s, name, size):
    t = b'f ./big 0644 0 0 1700000000 %d -\n' % size
    s.sendall(b'STOR TRANSCRIPT %s\r\n%d\r\n%s.\r\n' % (name, len(t), t))
    s.sendall(b'STOR FILE %s ./big\r\n%d\r\n' % (name, size))

def begin(port, label, name, size, sent):
    # An upload of size bytes, sent bytes of it sent; print how many
    # 350s it got (2: the transcript's and the file's).
    s = conn(port)
    stor(s, name, size)
    s.sendall(label[:1].encode() * sent)
    got = until(s, b'350 Storing file\r\n' * 2)
    print('%s.first=%d' % (label, got.count(b'350 Storing file')))
    return s
PY

# 1. a.T declares 4 MiB and sends 1 MiB of it; then b.T declares 4 MiB:
# 10 MiB less a.T's 4 MiB leaves less than 3 MiB after b.T (without a.T's
# reservation, 9 MiB were free and 5 MiB would be left).  Then a.T sends
# the rest.
PYTHONPATH=$T python3 - "$PORT" >"$T/side" <<'PY' || fail "side by side: $(cat "$T/side")"
from storc import MIB, begin, conn, port, stor, until

a = begin(port, 'a', b'a.T', 4 * MIB, MIB)
b = conn(port)
stor(b, b'b.T', 4 * MIB)
got = until(b, b'555')
for line in got.decode().splitlines():
    print('b.reply=' + line)
b.close()
a.sendall(b'a' * (3 * MIB) + b'.\r\nQUIT\r\n')
got = until(a, b'201')
for line in got.decode().splitlines():
    print('a.reply=' + line)
a.close()
PY
cat "$T/side"
assert_eq 2 "$(field a.first "$T/side")" "a.T accepted"
grep -qx 'b.reply=555 tmp/file/b.T/./big: No space left on device (the server keeps 3 MiB free: cairnd -N)' \
    "$T/side" || fail "b.T not refused: $(cat "$T/side")"
grep -q 'STOR tmp/file/b.T/./big: 4194304 bytes refused, [0-9]* bytes free' \
    "$SLOG" || fail "b.T's refusal not logged: $(cat "$SLOG")"
grep -qx 'a.reply=201 QUIT OK, closing connection' "$T/side" ||
    fail "a.T: $(cat "$T/side")"
assert_eq 1 "$(grep -c '^a.reply=250 File stored' "$T/side")" "a.T stored"
assert_eq 4194304 "$(stat -c %s "$R/tmp/file/a.T/big")" "a.T's file"
no_upload "$R" b.T
avail=$(df -B1 --output=avail "$R/tmp" | tail -n 1)
[ "$avail" -ge 3145728 ] || fail "the floor is broken: $avail bytes free"
rm -rf "$R/tmp/file/a.T" "$R/tmp/transcript/a.T"

# 2. The inodes: 1000 empty files pipelined into c.T.  The floor is
# 1000 / 100 + 64 = 74 free inodes.
inodes()
{
	python3 - "$PORT" "$1" "$2" >"$T/ino" <<'PY' || fail "$2 files: $(cat "$T/ino")"
import socket, sys, time
port, name, n = int(sys.argv[1]), sys.argv[2].encode(), int(sys.argv[3])
s = socket.create_connection(('127.0.0.1', port), timeout=20)
t = b''.join(b'f ./f%04d 0644 0 0 1700000000 0 -\n' % i for i in range(n))
req = b'STOR TRANSCRIPT %s\r\n%d\r\n%s.\r\n' % (name, len(t), t)
req += b''.join(b'STOR FILE %s ./f%04d\r\n0\r\n.\r\n' % (name, i)
                for i in range(n))
s.sendall(req + b'QUIT\r\n')
buf = b''
t0 = time.time()
while time.time() - t0 < 60:
    d = s.recv(65536)
    if not d:
        break
    buf += d
for line in buf.decode().splitlines():
    if not line.startswith(('350 ', '250 ', '200')):
        print('reply=' + line)
print('stored=%d' % buf.count(b'250 File stored'))
PY
}
inodes c.T 1000
cat "$T/ino"
grep -qx 'reply=555 tmp/file/c.T/./f[0-9]*: No space left on device (the server keeps 1% of its inodes free)' \
    "$T/ino" || fail "inodes: $(cat "$T/ino")"
grep -q 'STOR tmp/file/c.T/./f[0-9]*: refused, 74 inodes free, floor 74$' \
    "$SLOG" || fail "inode refusal not logged: $(cat "$SLOG")"
no_upload "$R" c.T
# Within the floor, everything is stored.
inodes d.T 300
assert_eq "reply=201 QUIT OK, closing connection" "$(grep '^reply=' "$T/ino")" \
    "300 files"
assert_eq 301 "$(field stored "$T/ino")" "300 files and the transcript"
[ -f "$R/tmp/file/d.T/f0299" ] || fail "300 files: the last one missing"
rm -rf "$R/tmp/file/d.T" "$R/tmp/transcript/d.T"

# 3. The space is reserved 64 MiB at a time, ahead of what arrived: a
# client that declares 100 MiB and sends slowly holds 64 MiB, not 100,
# and e.T's 50 MiB fits beside it (160 MiB, less 64, less 50, leaves more
# than the 16 MiB floor).  When the first client has sent 64 MiB, its
# next 36 would leave less than the floor: it is refused then, and
# nothing of it is kept.
mount -o remount,size=160m "$R/tmp" || fail "remount the tmpfs"
stop_cairnd
: >"$SLOG"
start_cairnd "$R" -N 16
PYTHONPATH=$T python3 - "$PORT" >"$T/win" <<'PY' || fail "windows: $(cat "$T/win")"
from storc import MIB, begin, conn, port, stor, until

a = begin(port, 'w', b'w.T', 100 * MIB, MIB)
e = conn(port)
stor(e, b'e.T', 50 * MIB)
for _ in range(50):
    e.sendall(b'e' * MIB)
e.sendall(b'.\r\nQUIT\r\n')
for line in until(e, b'201').decode().splitlines():
    print('e.reply=' + line)
e.close()
try:
    for _ in range(99):
        a.sendall(b'w' * MIB)
except OSError:
    pass
for line in until(a, b'555').decode().splitlines():
    print('w.reply=' + line)
a.close()
PY
cat "$T/win"
assert_eq 2 "$(field w.first "$T/win")" "w.T accepted"
assert_eq 2 "$(grep -c '^e.reply=250 File stored' "$T/win")" "e.T stored"
assert_eq 52428800 "$(stat -c %s "$R/tmp/file/e.T/big")" "e.T's file"
grep -qx 'w.reply=555 tmp/file/w.T/./big: No space left on device (the server keeps 16 MiB free: cairnd -N)' \
    "$T/win" || fail "w.T's next 36 MiB not refused: $(cat "$T/win")"
grep -q 'STOR tmp/file/w.T/./big: 37748736 bytes refused, [0-9]* bytes free once reserved, floor 16777216 (-N)' \
    "$SLOG" || fail "w.T's refusal not logged: $(cat "$SLOG")"
no_upload "$R" w.T

# 4. A disk quota that refuses the reservation is told as what it is,
# not as the loadset's -T limit: the fault injector fails the session's
# first fallocate with EDQUOT.
need_shim
stop_cairnd
: >"$SLOG"
LD_PRELOAD=$SHIM
CAIRN_SHIM_FAIL=fallocate:1:$(python3 -c 'import errno; print(errno.EDQUOT)')
export LD_PRELOAD CAIRN_SHIM_FAIL
start_cairnd "$R" -N 16
unset LD_PRELOAD CAIRN_SHIM_FAIL
PYTHONPATH=$T python3 - "$PORT" >"$T/quota" <<'PY' || fail "quota: $(cat "$T/quota")"
from storc import conn, port, stor, until

s = conn(port)
stor(s, b'q.T', 4096)
for line in until(s, b'555').decode().splitlines():
    print('q.reply=' + line)
PY
grep -qx 'q.reply=555 tmp/transcript/q.T: Disk quota exceeded' "$T/quota" ||
    fail "quota: $(cat "$T/quota")"
! grep -q -- '-T' "$T/quota" || fail "quota told as -T: $(cat "$T/quota")"
grep -q 'cannot reserve them: Disk quota exceeded' "$SLOG" ||
    fail "quota not logged: $(cat "$SLOG")"
no_upload "$R" q.T
exit 0
