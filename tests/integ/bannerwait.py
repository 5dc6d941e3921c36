#!/usr/bin/env python3
"""bannerwait.py PORT CONNECTED OUT [TIMEOUT]: connect to 127.0.0.1:PORT,
create the file CONNECTED once the connection is made (the kernel
completes the handshake whether or not cairnd has taken it), and wait up
to TIMEOUT seconds (60) for the first line of the banner.  What arrived
is written to OUT, in one rename, so a reader never sees half of it."""
import os
import socket
import sys

port, connected, out = int(sys.argv[1]), sys.argv[2], sys.argv[3]
timeout = float(sys.argv[4]) if len(sys.argv) > 4 else 60.0
s = socket.create_connection(("127.0.0.1", port))
open(connected, "w").close()
s.settimeout(timeout)
data = b""
try:
    while b"\r\n" not in data:
        b = s.recv(4096)
        if not b:
            break
        data += b
except OSError:
    pass
with open(out + ".tmp", "wb") as f:
    f.write(data)
os.rename(out + ".tmp", out)
