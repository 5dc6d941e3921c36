#!/usr/bin/env python3
"""load-flood.py: hostile helper of bench-load.sh, a connection flood.

Usage: load-flood.py HOST PORT SOURCE MAXCONN HOLD DURATION

In rounds, until DURATION seconds have passed (or SIGTERM): open up to
MAXCONN connections to HOST:PORT from the local address SOURCE, all at
once, without sending anything; read the first reply line of each (for up
to HOLD seconds) and hold those the server kept until HOLD seconds after
the round began; then close them all and start again.  A connection that
got a banner ('200') counts as accepted; one whose first line is anything
else ('420 Server busy') as refused; one closed or reset before a line as
dropped; one with no line within HOLD seconds (still in the listen queue)
as unanswered.  At the end, one line:

  flood: rounds R attempted A accepted C refused F dropped D unanswered U
    failed E peak-held P

(on one line; failed: the local connect itself failed, e.g. out of ports
or fds).
Python 3 stdlib only.
"""

import errno
import selectors
import signal
import socket
import sys
import time


def main():
    host, port, src = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    maxconn, hold, duration = int(sys.argv[4]), float(sys.argv[5]), \
        float(sys.argv[6])
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    signal.signal(signal.SIGINT, lambda *a: stop.append(1))
    end = time.monotonic() + duration
    tot = {"rounds": 0, "attempted": 0, "accepted": 0, "refused": 0,
           "dropped": 0, "unanswered": 0, "failed": 0, "peak": 0}

    while not stop and time.monotonic() < end:
        t0 = time.monotonic()
        tot["rounds"] += 1
        sel = selectors.DefaultSelector()
        socks = {}
        for _ in range(maxconn):
            if stop:
                break
            tot["attempted"] += 1
            try:
                s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            except OSError:
                tot["failed"] += 1
                continue
            try:
                s.bind((src, 0))
                s.setblocking(False)
                rc = s.connect_ex((host, port))
                if rc not in (0, errno.EINPROGRESS):
                    raise OSError(rc, "connect")
            except OSError:
                s.close()
                tot["failed"] += 1
                continue
            socks[s] = b""
            sel.register(s, selectors.EVENT_READ)
        held = []
        deadline = t0 + hold
        while socks and not stop:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            for key, _ in sel.select(min(left, 0.5)):
                s = key.fileobj
                try:
                    data = s.recv(512)
                except OSError:
                    data = b""
                if data:
                    socks[s] += data
                    if b"\n" not in socks[s]:
                        continue
                sel.unregister(s)
                first = socks.pop(s)
                if first.startswith(b"200"):
                    tot["accepted"] += 1
                    held.append(s)
                elif not first:
                    tot["dropped"] += 1
                    s.close()
                else:
                    tot["refused"] += 1
                    s.close()
        # no reply at all within HOLD: neither banner nor refusal
        for s in socks:
            tot["unanswered"] += 1
            sel.unregister(s)
            s.close()
        tot["peak"] = max(tot["peak"], len(held))
        while not stop and time.monotonic() < deadline:
            time.sleep(min(0.2, deadline - time.monotonic()))
        for s in held:
            s.close()
        sel.close()
    print("flood: rounds %(rounds)d attempted %(attempted)d accepted "
          "%(accepted)d refused %(refused)d dropped %(dropped)d unanswered "
          "%(unanswered)d failed %(failed)d peak-held %(peak)d" % tot,
          flush=True)


if __name__ == "__main__":
    main()
