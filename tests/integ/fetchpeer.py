#!/usr/bin/env python3
# fetchpeer.py: a scripted client that asks cairnd for files, with RETR
# and DELTA, and keeps what comes back.
#
#   fetchpeer.py [-s ADDR] [-z LEVEL] [-f FILE] [-q] PORT OUTDIR REQUEST...
#       Connect to 127.0.0.1:PORT (from the local address ADDR, any of
#       127/8, with -s), keep the banner in OUTDIR/banner (as
#       it came); with -z, "COMP ZLIB LEVEL" first, and from its 320 line
#       on both ways compressed.  Then send every REQUEST (Python string
#       escapes allowed; CRLF added), and those of FILE, one a line
#       as it is (transcript paths keep their backslashes),
#       then QUIT, from a thread of their own, while the replies are
#       read in order: for the Nth (from 1), print "N <reply line>" and
#       keep its body, if it has one (240, 241), in OUTDIR/N (with -q,
#       only count the replies by code and their bodies' bytes, and
#       print "CODE COUNT BYTES" lines at the end).
#
# Every wait is bounded: a read 30 s, a line 30 s in all.  Exit 0 when
# every reply came, 1 when the connection ended or fell out of step
# first.
import collections
import sys
import threading

from testnet import Conn, connect, read_banner, unescape

TIMEOUT = 30.0


def main():
    args = sys.argv[1:]
    level = source = None
    quiet = False
    reqs = []
    while args and args[0] in ('-s', '-z', '-f', '-q'):
        if args[0] == '-q':
            quiet = True
            args = args[1:]
            continue
        if args[0] == '-s':
            source = args[1]
        elif args[0] == '-f':
            with open(args[1], 'rb') as f:
                reqs += [line.rstrip(b'\n') for line in f]
        else:
            level = int(args[1])
        args = args[2:]
    port, outdir = int(args[0]), args[1]
    reqs = [unescape(r) for r in args[2:]] + reqs
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
    # The replies are read while the requests go: no side waits on the
    # other's buffers.
    sender = threading.Thread(target=c.send, daemon=True, args=(
        b''.join(r + b'\r\n' for r in reqs) + b'QUIT\r\n',))
    sender.start()
    out = sys.stdout.buffer
    counts = collections.OrderedDict()
    for n in range(1, len(reqs) + 1):
        try:
            line, body = c.fetched()
        except ValueError as e:
            sys.exit('fetchpeer.py: reply %d: %s' % (n, e))
        if line is None:
            sys.exit('fetchpeer.py: the connection ended before reply %d'
                     % n)
        if quiet:
            k = line[:3]
            m, b = counts.get(k, (0, 0))
            counts[k] = (m + 1, b + (len(body) if body else 0))
            continue
        out.write(b'%d %s\n' % (n, line))
        if body is not None:
            with open('%s/%d' % (outdir, n), 'wb') as f:
                f.write(body)
    for k, (m, b) in counts.items():
        out.write(b'%s %d %d\n' % (k, m, b))
    out.flush()
    sender.join(TIMEOUT)
    line = c.line()
    if line is None or not line.startswith(b'201 '):
        sys.exit('fetchpeer.py: QUIT: %r' % line)
    return 0


if __name__ == '__main__':
    sys.exit(main())
