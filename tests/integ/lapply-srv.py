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
# At the end LOGFILE gets "maxqueue N": the most request lines that were
# already waiting when the server started answering one (> 1 means the
# client pipelines its requests).  Every wait is bounded (20 s).
import os
import socket
import sys

from testnet import RETR_END, Conn, banner, listen, retr_head

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


def main():
    root, portfile, logfile = sys.argv[1:4]
    faults = {}
    rest = sys.argv[4:]
    for i in range(0, len(rest), 2):
        faults[rest[i + 1].encode()] = rest[i]

    ls = listen(1, TIMEOUT, portfile=portfile)
    log = open(logfile, 'wb', buffering=0)
    try:
        s, _ = ls.accept()
    except socket.timeout:
        log.write(b'no connection\n')
        return 1
    c = Conn(s, TIMEOUT)
    c.send(banner(b'test', b'lapply-srv', b'REPO'))
    maxq = 0
    try:
        while True:
            # Lines already waiting, counted before the next is answered.
            waiting = c.ready()
            if not waiting:
                return 0
            maxq = max(maxq, waiting)
            line = c.line()
            log.write(line + b'\n')
            av = line.split()
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
            if fault == 'refuse' or not os.path.isfile(fn):
                c.reply(b'540 File not found')
                continue
            with open(fn, 'rb') as f:
                body = f.read()
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
        log.write(b'maxqueue %d\n' % maxq)
        s.close()


if __name__ == '__main__':
    sys.exit(main())
