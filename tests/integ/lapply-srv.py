#!/usr/bin/env python3
# lapply-srv.py: a minimal RAP file server for the lapply tests, able to
# misbehave on purpose.  Serves RETR FILE <T> <path> from
# ROOT/file/<T>/<decoded path> and RETR SPECIAL <path> from
# ROOT/special/<decoded path>, answers REPO and QUIT, and logs every
# request line it receives.
#
#   lapply-srv.py ROOT PORTFILE LOGFILE [FAULT PATH]...
#
# Listens on 127.0.0.1 on a free port (written to PORTFILE), serves one
# connection, then exits.  FAULTs, each for one decoded path:
#   bigger   announce and send one byte more than the file has
#   short    announce the real size, send half, then close
#   refuse   reply "540 File not found"
#   flip     send the file with its first byte changed
# and for the run (PATH is a number or "-"):
#   conns N  serve N connections, each in a thread of its own (the last
#            within 20 s of the first)
#   delta -  list DELTA in the banner and answer "DELTA sha1 <basis> FILE
#            <T> <path>" with the delta ROOT/delta/<basis>.<target>
#            ('/' in digests as '_'; target: the sha1 of the file
#            served) as a 241 reply, or the whole file when there is
#            none; DELTA faults, each for one decoded path:
#   dcorrupt   a byte of the delta's zstd frame changed (its 6th last)
#   dtrunc     the delta's last 4 bytes left out (its size line says so)
#   dwrong     a delta to the target from any basis, whatever was asked
#   drefetch   as dcorrupt, then the RETR of that path refused
# At the end LOGFILE gets "maxqueue N": the most request lines that were
# already waiting when the server started answering one (> 1 means the
# client pipelines its requests).  Every wait is bounded (20 s).
import base64
import glob
import hashlib
import os
import socket
import sys
import threading
import time

from testnet import RETR_END, Conn, banner, listen, retr_head, serve

TIMEOUT = 20.0


def decode(tok):
    out = bytearray()
    i = 0
    esc = {ord('b'): b' ', ord('t'): b'\t', ord('n'): b'\n',
           ord('r'): b'\r', ord('\\'): b'\\'}
    while i < len(tok):
        c = tok[i]
        if c == ord('\\') and i + 1 < len(tok) and tok[i + 1] in esc:
            out += esc[tok[i + 1]]
            i += 2
        else:
            out.append(c)
            i += 1
    return bytes(out)


def rel(path):
    if path.startswith(b'./'):
        return path[2:]
    return path.lstrip(b'/')


def b64name(data):
    return base64.b64encode(hashlib.sha1(data).digest()).replace(b'/', b'_')


def delta_for(root, basis, body, fault):
    """The delta to send for a target of bytes body from the basis of
    sha1 basis (as the request has it), or None."""
    d = os.path.join(root.encode(), b'delta')
    target = b64name(body)
    if fault == 'dwrong':
        found = sorted(glob.glob(os.path.join(d, b'*.' + target)))
        fn = found[0] if found else None
    else:
        fn = os.path.join(d, basis.replace(b'/', b'_') + b'.' + target)
    if fn is None or not os.path.isfile(fn):
        return None
    with open(fn, 'rb') as f:
        delta = f.read()
    if fault in ('dcorrupt', 'drefetch'):
        i = len(delta) - 6
        delta = delta[:i] + bytes([delta[i] ^ 0x55]) + delta[i + 1:]
    if fault == 'dtrunc':
        delta = delta[:-4]
    return delta


LOCK = threading.Lock()
REFUSED = set()		# paths whose RETR is refused (drefetch)


def main():
    root, portfile, logfile = sys.argv[1:4]
    faults = {}
    rest = sys.argv[4:]
    for i in range(0, len(rest), 2):
        faults[rest[i + 1].encode()] = rest[i]
    conns = 1
    for k, v in list(faults.items()):
        if v == 'conns':
            conns = int(k)
            del faults[k]
    offer = any(v == 'delta' for v in faults.values())

    ls = listen(4, TIMEOUT, portfile=portfile)
    log = open(logfile, 'wb', buffering=0)
    if conns > 1:
        ls.settimeout(2.0)
        n = serve(ls, lambda s, n: session(s, root, log, faults, offer),
                  conns, time.monotonic() + TIMEOUT, threaded=True)
        return 0 if n > 0 else 1
    try:
        s, _ = ls.accept()
    except socket.timeout:
        log.write(b'no connection\n')
        return 1
    return session(s, root, log, faults, offer)


def session(s, root, log, faults, offer):
    """Serve the connection s."""
    c = Conn(s, TIMEOUT)
    c.send(banner(b'test', b'lapply-srv', b'REPO DELTA' if offer else
                  b'REPO'))
    maxq = 0
    try:
        while True:
            # Lines already waiting, counted before the next is answered.
            waiting = c.ready()
            if not waiting:
                return 0
            maxq = max(maxq, waiting)
            line = c.line()
            with LOCK:
                log.write(line + b'\n')
            av = line.split()
            basis = None
            if offer and av[:1] == [b'DELTA'] and len(av) == 6 and \
                    av[3] == b'FILE':
                basis = av[2] if av[1] == b'sha1' else b'-'
                av = [b'RETR'] + av[3:]
            if av[:1] == [b'QUIT']:
                c.reply(b'201 QUIT OK, closing connection')
                return 0
            if av[:1] == [b'REPO']:
                c.reply(b'215 Report successful')
                continue
            if av[:2] == [b'RETR', b'FILE'] and len(av) == 4:
                path = decode(av[3])
                fn = os.path.join(root.encode(), b'file', av[2],
                                  rel(path))
            elif av[:2] == [b'RETR', b'SPECIAL'] and len(av) == 3:
                path = decode(av[2])
                fn = os.path.join(root.encode(), b'special',
                                  rel(path))
            else:
                c.reply(b'500 Command unrecognized')
                continue
            fault = faults.get(path)
            if fault == 'refuse' or not os.path.isfile(fn) or \
                    (basis is None and path in REFUSED):
                c.reply(b'540 File not found')
                continue
            with open(fn, 'rb') as f:
                body = f.read()
            delta = None
            if basis is not None:
                delta = delta_for(root, basis, body, fault)
            if delta is not None:
                if fault == 'drefetch':
                    REFUSED.add(path)
                c.send(b'241 Retrieving delta\r\n%d\r\n' % len(delta) +
                       delta + RETR_END)
                continue
            if fault == 'flip' and body:
                body = bytes([body[0] ^ 1]) + body[1:]
            if fault == 'bigger':
                body += b'X'
            c.send(retr_head(len(body)))
            if fault == 'short':
                c.send(body[:len(body) // 2])
                s.shutdown(socket.SHUT_RDWR)
                return 0
            c.send(body + RETR_END)
    except (socket.timeout, ConnectionError, ValueError) as e:
        log.write(b'error: ' + str(e).encode() + b'\n')
        return 1
    finally:
        with LOCK:
            log.write(b'maxqueue %d\n' % maxq)
        s.close()


if __name__ == '__main__':
    sys.exit(main())
