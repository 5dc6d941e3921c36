#!/usr/bin/env python3
"""load-trickle.py: hostile helper of bench-load.sh, a slow sender.

Usage: load-trickle.py HOST PORT SOURCE DURATION

Connects to HOST:PORT from the local address SOURCE, reads the banner and
then sends one byte a second of a command line that never ends, until the
server closes the connection; then connects again, until DURATION seconds
have passed (or SIGTERM).  One line per closed connection:

  trickle: closed after S s, N bytes sent, reply: TEXT

and at the end:

  trickle: connections C closed-by-server K first-close S

Python 3 stdlib only.
"""

import signal
import socket
import sys
import time


def main():
    host, port, src = sys.argv[1], int(sys.argv[2]), sys.argv[3]
    duration = float(sys.argv[4])
    stop = []
    signal.signal(signal.SIGTERM, lambda *a: stop.append(1))
    signal.signal(signal.SIGINT, lambda *a: stop.append(1))
    end = time.monotonic() + duration
    conns = closed = 0
    first = None

    while not stop and time.monotonic() < end:
        conns += 1
        try:
            s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            s.bind((src, 0))
            s.settimeout(10)
            s.connect((host, port))
            banner = b""
            while banner.count(b"\n") < 2 and not stop:
                b = s.recv(512)
                if not b:
                    break
                banner += b
        except OSError as e:
            print("trickle: connect: %s" % e, flush=True)
            time.sleep(1)
            continue
        t0 = time.monotonic()
        sent = 0
        reply = b""
        s.settimeout(1)
        while not stop and time.monotonic() < end:
            try:
                s.sendall(b"N" if sent == 0 else b"O")
                sent += 1
            except OSError:
                break
            try:
                b = s.recv(512)
                if not b:
                    break
                reply += b
            except socket.timeout:
                continue
            except OSError:
                break
        s.close()
        if stop or time.monotonic() >= end:
            break
        took = time.monotonic() - t0
        closed += 1
        if first is None:
            first = took
        print("trickle: closed after %.1f s, %d bytes sent, reply: %s" % (
            took, sent, reply.decode("latin-1").strip() or "(none)"),
            flush=True)
    print("trickle: connections %d closed-by-server %d first-close %s" % (
        conns, closed, "%.1f" % first if first is not None else "-"),
        flush=True)


if __name__ == "__main__":
    main()
