#!/usr/bin/env python3
# dropproxy.py SERVERPORT PORTFILE NTH BYTES
# A TCP proxy for several connections: relays each connection accepted on
# a free port of 127.0.0.1 (written to PORTFILE) to 127.0.0.1:SERVERPORT,
# both ways.  The NTH connection (1 for the first accepted) is closed,
# both sides, once BYTES bytes from the server have been passed on to
# the client: a server that drops one session mid-transfer.  Serves at
# most 32 connections and ends once every one accepted has ended (and
# none came for 2 s) or after 60 s in all.
import sys
import time

from testnet import Relay, listen, serve


class Drop(Relay):
    """A relay that, on the nth connection, ends once limit bytes from
    the server have been passed on."""

    def __init__(self, client, port, deadline, cut):
        # A client's half-close is passed on; the server's end ends it.
        Relay.__init__(self, client, port, None, deadline,
                       halfclose=(self.CLIENT,))
        self.cut = cut
        self.passed = 0

    def passing(self, side, data):
        if side == self.SERVER and self.cut is not None:
            if self.passed + len(data) >= self.cut:
                return data[:self.cut - self.passed], True
            self.passed += len(data)
        return data, False


def main():
    sport, portfile = int(sys.argv[1]), sys.argv[2]
    nth, limit = int(sys.argv[3]), int(sys.argv[4])
    deadline = time.monotonic() + 60
    ls = listen(32, 2.0, portfile=portfile)
    serve(ls, lambda c, n: Drop(c, sport, deadline,
                                limit if n == nth else None).run(),
          32, deadline, threaded=True)


if __name__ == '__main__':
    main()
