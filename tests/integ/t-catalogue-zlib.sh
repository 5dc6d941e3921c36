#!/bin/sh
# Compression side channel (docs/security.md D5): under cairnd -Z, a client
# inside TLS (where only the sizes show) fetches a secret file and then a
# file whose content is a guess of the secret, 50 guesses, the right one
# among them.  The compressed bytes of the guess file's reply must not
# depend on what was sent before it: for every guess they are the same
# whether the secret or a decoy of the same length came first (the
# history is reset at file boundaries).  (In clear the history runs on:
# t-cairnd-zbytes.sh.)
. "$top_srcdir/tests/integ/lib.sh"
need_tool cairnd
mk_tmpdir
. "$top_srcdir/tests/integ/netlib.sh"
. "$top_srcdir/tests/integ/tlslib.sh"
make_repo "$T/repo"
tls_repo "$T/repo"
E=$T/repo/file/test.T/etc
printf 'token=7f3a9c1e5b2d8f40\n' >"$E/secret"
printf 'token=0000000000000000\n' >"$E/decoy"

start_cairnd "$T/repo" -Z 9 -w 1
python3 - "$PORT" "$E/guess" "$PKI/ca.pem" >"$T/out" 2>&1 <<'PY' ||
import random, socket, ssl, sys, zlib
port, guessfile, ca = int(sys.argv[1]), sys.argv[2], sys.argv[3]

def session(first):
    s = socket.create_connection(('127.0.0.1', port), 10)
    s.settimeout(10)
    got = b''
    while b'\r\n200 ' not in got or not got.endswith(b'\n'):
        d = s.recv(4096)
        if not d:
            raise SystemExit('no banner')
        got += d
    s.sendall(b'STARTTLS\r\n')
    got = b''
    while not got.endswith(b'\n'):
        d = s.recv(1)
        if not d:
            raise SystemExit('no reply to STARTTLS')
        got += d
    if not got.startswith(b'220 '):
        raise SystemExit('STARTTLS: %r' % got)
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    ctx.load_verify_locations(ca)
    s = ctx.wrap_socket(s)
    got = b''
    s.sendall(b'COMP ZLIB 9\r\n')
    while b'320 ' not in got or not got.split(b'320 ', 1)[1].count(b'\n'):
        got += s.recv(4096)
    z = zlib.compressobj()
    inf = zlib.decompressobj()
    left = got.split(b'320 ', 1)[1].split(b'\n', 1)[1]
    def ask(req, end, left=b''):
        s.sendall(z.compress(req) + z.flush(zlib.Z_SYNC_FLUSH))
        raw = b''
        plain = inf.decompress(left)
        while not plain.endswith(end):
            try:
                d = s.recv(65536)
            except socket.timeout:
                raise SystemExit('timeout: %r %r' % (plain, raw))
            if not d:
                raise SystemExit('closed: %r' % plain)
            raw += d
            plain += inf.decompress(d)
        return raw, plain
    ask(b'NOOP\r\n', b'202 NOOP OK\r\n', left)
    ask(b'RETR FILE test.T ./etc/' + first + b'\n', b'\n.\r\n')
    raw, plain = ask(b'RETR FILE test.T ./etc/guess\n', b'\n.\r\n')
    s.close()
    return raw, plain

r = random.Random(5)
guesses = ['%016x' % r.getrandbits(64) for _ in range(49)]
guesses.insert(17, '7f3a9c1e5b2d8f40')
bad = 0
for g in guesses:
    with open(guessfile, 'w') as f:
        f.write('token=%s\n' % g)
    a, pa = session(b'secret')
    b, pb = session(b'decoy')
    if pa != pb or not pa.endswith(('token=%s\n.\r\n' % g).encode()):
        raise SystemExit('D5: wrong reply for guess %s: %r' % (g, pa))
    if a != b:
        print('D5: guess %s: %d compressed bytes after the secret, %d '
              'after the decoy' % (g, len(a), len(b)))
        bad += 1
sys.exit(1 if bad else 0)
PY
    fail "D5: $(cat "$T/out")"
exit 0
