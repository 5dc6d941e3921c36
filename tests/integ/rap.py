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
# Every wait is bounded: a read 10 s, the server's close 60 s; exit status
# 0 unless a connection fails.
import os
import socket
import sys
import zlib

from testnet import Conn, connect, drain, read_banner, unescape

TIMEOUT = 10.0
# How long the server has to say all and close.
DRAIN = 60.0


def rap_connect(port):
    # RAP_SOURCE: the local address to connect from (127.0.0.0/8 is ours).
    return connect(port, TIMEOUT, os.environ.get('RAP_SOURCE'))


def rest(sock, inflater=None, data=b''):
    """All the server sends until it closes (a reset ends it too)."""
    out, end = drain(sock, DRAIN, inflater, data)
    if end is None:
        sys.stdout.buffer.write(out)
        sys.exit('rap.py: the server did not close within %d s' % DRAIN)
    return out


def main():
    args = sys.argv[1:]
    if args[0] == '--busy':
        port = int(args[1])
        first = rap_connect(port)
        read_banner(first)
        second = rap_connect(port)
        sys.stdout.buffer.write(rest(second))
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
    s = rap_connect(port)
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
        data = rest(s)
        sys.stdout.buffer.write(data.hex().encode() + b'\n' if raw
                                else data)
        return 0
    # The lines up to the 320 reply, exactly as they came.
    c = Conn(s, TIMEOUT)
    head = b''
    while True:
        line = c.line(keep=True)
        if line is None:
            sys.stdout.buffer.write(head + bytes(c.buf))
            return 0
        head += line
        if line.startswith(b'320 ') and line.endswith(b'\r\n'):
            break
    sys.stdout.buffer.write(head)
    if not eager:
        s.sendall(d.compress(zreq) + d.flush(zlib.Z_SYNC_FLUSH))
    s.shutdown(socket.SHUT_WR)
    inf = zlib.decompressobj()
    if c.buf and c.buf[0] != 0x78:
        sys.stderr.write('server stream does not start with a zlib header\n')
        return 3
    sys.stdout.buffer.write(rest(s, inf, bytes(c.buf)))
    if inf.eof:
        sys.stderr.write('server finished its zlib stream\n')
        return 3
    return 0


sys.exit(main())
