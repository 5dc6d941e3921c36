#!/usr/bin/env python3
# recproxy.py LISTENPORT SERVERPORT LOG NCONN
# A recording TCP proxy for RAP sessions: accepts NCONN connections on
# 127.0.0.1:LISTENPORT one after the other, relays each to SERVERPORT and
# appends to LOG, per connection, "=== connection" and then one line per
# protocol line in arrival order: "C: " client to server, "S: " server to
# client, "CZ: "/"SZ: " for lines carried inside the zlib stream (after
# the client's COMP line / the server's 320 line).  Bytes are escaped:
# \r \n \t \\ printable ASCII as is, anything else \xNN.  All waits bounded.
import sys
import time
import zlib

from testnet import Relay, listen, serve

def esc(b):
    out = []
    for c in b:
        if c == 13:
            out.append('\\r')
        elif c == 10:
            out.append('\\n')
        elif c == 9:
            out.append('\\t')
        elif c == 92:
            out.append('\\\\')
        elif 32 <= c < 127:
            out.append(chr(c))
        else:
            out.append('\\x%02x' % c)
    return ''.join(out)


class Side:
    def __init__(self, tag, trigger):
        self.tag = tag
        self.trigger = trigger      # line prefix that switches to zlib
        self.buf = b''
        self.inf = None

    def feed(self, data, log):
        if self.inf is not None:
            data = self.inf.decompress(data)
        self.buf += data
        while True:
            i = self.buf.find(b'\n')
            if i < 0:
                return
            line, self.buf = self.buf[:i + 1], self.buf[i + 1:]
            tag = self.tag + ('Z' if self.inf is not None else '')
            log.write('%s: %s\n' % (tag, esc(line)))
            if self.inf is None and line.startswith(self.trigger):
                # Whatever follows this line is compressed.
                rest, self.buf = self.buf, b''
                self.inf = zlib.decompressobj()
                if rest:
                    self.feed(rest, log)
                return

    def flush(self, log):
        if self.buf:
            tag = self.tag + ('Z' if self.inf is not None else '')
            log.write('%s: %s\n' % (tag, esc(self.buf)))
            self.buf = b''


class Recorder(Relay):
    """A relay that logs each side's lines."""

    def __init__(self, client, port, log):
        Relay.__init__(self, client, port, 30, time.monotonic() + 600)
        self.log = log
        self.sides = (Side('C', b'COMP'), Side('S', b'320 '))

    def passing(self, side, data):
        self.sides[side].feed(data, self.log)
        return data, False


def main():
    lport, sport, logname, nconn = (int(sys.argv[1]), int(sys.argv[2]),
                                    sys.argv[3], int(sys.argv[4]))
    ls = listen(5, 30, port=lport, ready=logname + '.ready')
    with open(logname, 'a') as log:
        def record(c, n):
            log.write('=== connection\n')
            r = Recorder(c, sport, log)
            r.run()
            for side in r.sides:
                side.flush(log)
            log.flush()
        got = serve(ls, record, nconn, time.monotonic() + 600)
    if got < nconn:
        sys.exit('recproxy.py: %d of %d connections came' % (got, nconn))
    return 0


sys.exit(main())
