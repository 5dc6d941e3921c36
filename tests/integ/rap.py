#!/usr/bin/env python3
# rap.py: a raw RAP speaker for the cairnd tests.  It sends exactly the
# bytes it is given and prints exactly the bytes it receives, so tests
# can assert reply lines byte for byte (CRLF included).
#
#   rap.py PORT REQUEST [ZREQUEST]
#       Send REQUEST (Python string escapes allowed: \r \n \x00 ...).
#       With ZREQUEST: read until a "320 " line arrives, then deflate
#       ZREQUEST (one zlib stream, sync flush, never finished) and inflate
#       everything the server sends after the 320 line.  Then half-close
#       and print all received (plain) bytes until the server closes.
#   rap.py --busy PORT
#       Hold one connection open (banner read), open a second one and
#       print what the second one receives.
#   rap.py --eager PORT REQUEST ZREQUEST
#       As above but send the compressed ZREQUEST right behind REQUEST in
#       the same write, without waiting for the 320 line (tests the exact
#       switch point of the server's input).
#   rap.py --raw PORT REQUEST
#       As the first form but print the received bytes before any
#       inflating, in hex (to look at zlib framing).
#
# RAP_SOURCE=ADDR in the environment connects from the local address ADDR.
#
# Every wait is bounded (10 s); exit status 0 unless a connection fails.
import os
import socket
import sys
import zlib

TIMEOUT = 10.0


def unescape(s):
    return s.encode('latin-1').decode('unicode_escape').encode('latin-1')


def recv_all(sock, inflater=None, prefix=b''):
    out = bytearray()
    if prefix:
        out += inflater.decompress(prefix) if inflater else prefix
    while True:
        try:
            data = sock.recv(65536)
        except ConnectionResetError:
            break
        if not data:
            break
        out += inflater.decompress(data) if inflater else data
    return bytes(out)


def connect(port):
    # RAP_SOURCE: the local address to connect from (127.0.0.0/8 is ours).
    src = os.environ.get('RAP_SOURCE')
    s = socket.create_connection(('127.0.0.1', port), TIMEOUT,
                                 (src, 0) if src else None)
    s.settimeout(TIMEOUT)
    return s


def main():
    args = sys.argv[1:]
    if args[0] == '--busy':
        port = int(args[1])
        first = connect(port)
        got = b''
        while b'CAPA' not in got:
            data = first.recv(4096)
            if not data:
                break
            got += data
        second = connect(port)
        sys.stdout.buffer.write(recv_all(second))
        second.close()
        first.close()
        return 0
    raw = eager = False
    if args[0] == '--eager':
        eager = True
        args = args[1:]
    if args[0] == '--raw':
        raw = True
        args = args[1:]
    port = int(args[0])
    req = unescape(args[1])
    zreq = unescape(args[2]) if len(args) > 2 else None
    s = connect(port)
    d = zlib.compressobj(6)
    if eager:
        s.sendall(req + d.compress(zreq) + d.flush(zlib.Z_SYNC_FLUSH))
    else:
        s.sendall(req)
    if zreq is None:
        try:
            s.shutdown(socket.SHUT_WR)
        except OSError:
            pass    # the server has closed already: read what it sent
        data = recv_all(s)
        sys.stdout.buffer.write(data.hex().encode() + b'\n' if raw
                                else data)
        return 0
    plain = b''
    while True:
        i = plain.find(b'\n320 ')
        j = plain.find(b'\r\n', i + 1) if i >= 0 else -1
        if plain.startswith(b'320 '):
            i, j = -1, plain.find(b'\r\n')
        if j >= 0:
            break
        data = s.recv(4096)
        if not data:
            sys.stdout.buffer.write(plain)
            return 0
        plain += data
    head, rest = plain[:j + 2], plain[j + 2:]
    sys.stdout.buffer.write(head)
    if not eager:
        s.sendall(d.compress(zreq) + d.flush(zlib.Z_SYNC_FLUSH))
    s.shutdown(socket.SHUT_WR)
    inf = zlib.decompressobj()
    if rest and rest[0] != 0x78:
        sys.stderr.write('server stream does not start with a zlib header\n')
        return 3
    sys.stdout.buffer.write(recv_all(s, inf, rest))
    if inf.eof:
        sys.stderr.write('server finished its zlib stream\n')
        return 3
    return 0


sys.exit(main())
