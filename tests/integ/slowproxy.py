#!/usr/bin/env python3
# slowproxy.py LISTENPORT SERVERPORT READYFILE [RATE]
# A throttling TCP proxy for one connection: accepts one connection on
# 127.0.0.1:LISTENPORT, relays it to 127.0.0.1:SERVERPORT, passing the
# client's bytes on at most RATE bytes per second (default 1 MiB/s) and
# the server's at full speed.  Creates READYFILE once listening.  Ends
# when either side closes; every wait is bounded (120 s in all).
import sys
import time

from testnet import Relay, listen, serve


class Slow(Relay):
    """A relay passing the client's bytes on at most rate a second."""

    def __init__(self, client, port, rate, deadline):
        # Either side's end of file ends it.
        Relay.__init__(self, client, port, None, deadline, halfclose=())
        self.per_tick = max(1, int(rate * self.tick))
        self.allow = self.per_tick
        self.last = time.monotonic()

    def budget(self, side):
        if side == self.SERVER:
            return 65536
        now = time.monotonic()
        if now - self.last >= self.tick:
            self.allow = self.per_tick
            self.last = now
        return self.allow

    def passing(self, side, data):
        if side == self.CLIENT:
            self.allow -= len(data)
        return data, False


def main():
    lport, sport, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rate = int(sys.argv[4]) if len(sys.argv) > 4 else 1 << 20
    deadline = time.monotonic() + 120
    ls = listen(1, 60, port=lport, ready=ready)
    serve(ls, lambda c, n: Slow(c, sport, rate, deadline).run(), 1,
          deadline)


if __name__ == '__main__':
    main()
