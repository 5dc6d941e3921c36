# tests/integ/testnet.py: what the scripted peers of the integration
# tests share.  They run as "python3 tests/integ/NAME.py", so this file,
# beside them, is on their module path.
import os
import socket


def listen(portfile, backlog, timeout):
    """Listen on a free port of 127.0.0.1 and write the port to portfile,
    whole (written aside and renamed), for the test to read once the file
    exists.  Accepts time out after timeout seconds."""
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(('127.0.0.1', 0))
    ls.listen(backlog)
    ls.settimeout(timeout)
    with open(portfile + '.tmp', 'w') as f:
        f.write('%d\n' % ls.getsockname()[1])
    os.rename(portfile + '.tmp', portfile)
    return ls


def recv_until(sock, buf, marker):
    """Read until marker is in buf; return buf (or what came before
    EOF)."""
    while marker not in buf:
        data = sock.recv(4096)
        if not data:
            break
        buf += data
    return buf
