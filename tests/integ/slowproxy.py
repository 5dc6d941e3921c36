#!/usr/bin/env python3
# slowproxy.py LISTENPORT SERVERPORT READYFILE [RATE]
# A throttling TCP proxy for one connection: accepts one connection on
# 127.0.0.1:LISTENPORT, relays it to 127.0.0.1:SERVERPORT, passing the
# client's bytes on at most RATE bytes per second (default 1 MiB/s) and
# the server's at full speed.  Creates READYFILE once listening.  Ends
# when either side closes; every wait is bounded (120 s in all).
import os
import select
import socket
import sys
import time

lport, sport, ready = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
rate = int(sys.argv[4]) if len(sys.argv) > 4 else 1 << 20
deadline = time.time() + 120

ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("127.0.0.1", lport))
ls.listen(1)
open(ready, "w").close()
ls.settimeout(60)
c, _ = ls.accept()
s = socket.create_connection(("127.0.0.1", sport), 10)
tick = 0.05
budget = max(1, int(rate * tick))
last = time.time()
allow = budget
try:
    while time.time() < deadline:
        r, _, _ = select.select([c, s], [], [], tick)
        now = time.time()
        if now - last >= tick:
            allow = budget
            last = now
        if s in r:
            d = s.recv(65536)
            if not d:
                break
            c.sendall(d)
        if c in r and allow >= 1:
            d = c.recv(min(allow, 65536))
            if not d:
                break
            allow -= len(d)
            s.sendall(d)
        elif c in r:
            time.sleep(max(0.0, tick - (now - last)))
except OSError:
    pass
for x in (c, s):
    try:
        x.close()
    except OSError:
        pass
