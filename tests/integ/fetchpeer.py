#!/usr/bin/env python3
# fetchpeer.py: a scripted client that asks cairnd for files, with RETR
# and DELTA, and keeps what comes back.
#
#   fetchpeer.py [-s ADDR] [-z LEVEL] PORT OUTDIR REQUEST...
#       Connect to 127.0.0.1:PORT (from the local address ADDR, any of
#       127/8, with -s), keep the banner in OUTDIR/banner (as
#       it came); with -z, "COMP ZLIB LEVEL" first, and from its 320 line
#       on both ways compressed.  Then send every REQUEST (Python string
#       escapes allowed; CRLF added) in one write, then QUIT, and read
#       the replies in order: for the Nth (from 1), print "N <reply
#       line>" and keep its body, if it has one (240, 241), in OUTDIR/N.
#
# Every wait is bounded: a read 30 s, a line 30 s in all.  Exit 0 when
# every reply came, 1 when the connection ended or fell out of step
# first.
import sys

from testnet import Conn, connect, read_banner, unescape

TIMEOUT = 30.0


def main():
    args = sys.argv[1:]
    level = source = None
    while args and args[0] in ('-s', '-z'):
        if args[0] == '-s':
            source = args[1]
        else:
            level = int(args[1])
        args = args[2:]
    port, outdir, reqs = int(args[0]), args[1], args[2:]
    sock = connect(port, TIMEOUT, source)
    ban = read_banner(sock)
    with open(outdir + '/banner', 'wb') as f:
        f.write(ban)
    c = Conn(sock, TIMEOUT)
    if level is not None:
        c.send(b'COMP ZLIB %d\r\n' % level)
        line = c.line()
        if line is None or not line.startswith(b'320 '):
            sys.exit('fetchpeer.py: COMP: %r' % line)
        c.compress()
        line = c.line()
        if line is None or not line.startswith(b'220 '):
            sys.exit('fetchpeer.py: COMP: %r' % line)
    c.send(b''.join(unescape(r) + b'\r\n' for r in reqs) + b'QUIT\r\n')
    out = sys.stdout.buffer
    for n in range(1, len(reqs) + 1):
        try:
            line, body = c.fetched()
        except ValueError as e:
            sys.exit('fetchpeer.py: reply %d: %s' % (n, e))
        if line is None:
            sys.exit('fetchpeer.py: the connection ended before reply %d'
                     % n)
        out.write(b'%d %s\n' % (n, line))
        if body is not None:
            with open('%s/%d' % (outdir, n), 'wb') as f:
                f.write(body)
    out.flush()
    line = c.line()
    if line is None or not line.startswith(b'201 '):
        sys.exit('fetchpeer.py: QUIT: %r' % line)
    return 0


if __name__ == '__main__':
    sys.exit(main())
