#!/usr/bin/env python3
# dropproxy.py SERVERPORT PORTFILE NTH BYTES
# A TCP proxy for several connections: relays each connection accepted on
# a free port of 127.0.0.1 (written to PORTFILE) to 127.0.0.1:SERVERPORT,
# both ways.  The NTH connection (1 for the first accepted) is closed,
# both sides, once BYTES bytes from the server have been passed on to
# the client: a server that drops one session mid-transfer.  Serves at
# most 32 connections and ends once every one accepted has ended (and
# none came for 2 s) or after 60 s in all.
import select
import socket
import sys
import threading
import time

from testnet import listen

sport, portfile = int(sys.argv[1]), sys.argv[2]
nth, limit = int(sys.argv[3]), int(sys.argv[4])
deadline = time.time() + 60


def relay(c, n):
    try:
        s = socket.create_connection(('127.0.0.1', sport), 10)
    except OSError:
        c.close()
        return
    passed = 0
    try:
        while time.time() < deadline:
            r, _, _ = select.select([c, s], [], [], 0.5)
            if c in r:
                d = c.recv(65536)
                if not d:
                    s.shutdown(socket.SHUT_WR)
                    break
                s.sendall(d)
            if s in r:
                d = s.recv(65536)
                if not d:
                    break
                if n == nth and passed + len(d) >= limit:
                    c.sendall(d[:limit - passed])
                    break
                passed += len(d)
                c.sendall(d)
        # Drain what is left of a session ending normally (QUIT reply).
        if n != nth:
            s.settimeout(5)
            while True:
                d = s.recv(65536)
                if not d:
                    break
                c.sendall(d)
    except OSError:
        pass
    finally:
        for x in (c, s):
            try:
                x.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            x.close()


ls = listen(portfile, 32, 2.0)
threads = []
accepted = 0
while time.time() < deadline and accepted < 32:
    try:
        c, _ = ls.accept()
    except socket.timeout:
        if accepted > 0 and not any(t.is_alive() for t in threads):
            break
        continue
    accepted += 1
    t = threading.Thread(target=relay, args=(c, accepted), daemon=True)
    t.start()
    threads.append(t)
for t in threads:
    t.join(max(0.0, deadline - time.time()))
