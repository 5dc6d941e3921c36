#!/usr/bin/env python3
# tlspeer.py: a raw RAP speaker with STARTTLS, for the TLS tests.
#
#   tlspeer.py client PORT REQUEST [TREQUEST] [options]
#       Read the banner, send REQUEST in clear (Python string escapes
#       allowed).  If a "220 Ready to start TLS" reply arrives, run the
#       TLS handshake and send TREQUEST inside TLS.  Print every byte
#       received (clear and decrypted, in order) until the server closes;
#       a failed handshake prints "TLS handshake failed: <reason>" and
#       exits 3.  Options:
#         --ca FILE        verify the server against FILE (default: none)
#         --cert FILE      present this certificate (cert + key PEM)
#         --tls11          offer TLS 1.1 only (security level 0)
#   tlspeer.py server PORTFILE MODE CERTFILE LOG
#       A fake server for one connection: banner, then waits for
#       STARTTLS and answers by MODE:
#         refuse   "500 Command STARTTLS unrecognized", then serves
#                  requests in clear (replies 230 to anything)
#         junk     "220 Ready to start TLS" and plaintext right behind it
#         tls11    "220 Ready to start TLS", then TLS 1.1 only
#       Writes its port to PORTFILE once listening; every line received
#       in clear after STARTTLS is appended to LOG.
#
# Every wait is bounded: a read 10 s, the server's close 30 s.
import socket
import ssl
import sys

from testnet import (Conn, banner, connect, drain, listen, read_banner,
                     recv_until, tls_context, unescape)

TIMEOUT = 10.0
# How long the server has to say all and close.
DRAIN = 30.0


def recv_all(sock):
    """All the server sends until it closes; an error or the wait running
    out ends it with a line "[ErrorName]"."""
    out, end = drain(sock, DRAIN)
    if end is None:
        end = socket.timeout.__name__
    return out + (b'[%s]\n' % end.encode() if end else b'')


def client(args):
    port = int(args[0])
    req = unescape(args[1])
    treq = b''
    rest = args[2:]
    if rest and not rest[0].startswith('--'):
        treq = unescape(rest[0])
        rest = rest[1:]
    ca = cert = None
    tls11 = False
    while rest:
        opt = rest.pop(0)
        if opt == '--ca':
            ca = rest.pop(0)
        elif opt == '--cert':
            cert = rest.pop(0)
        elif opt == '--tls11':
            tls11 = True
        else:
            raise SystemExit('tlspeer.py: unknown option ' + opt)
    out = sys.stdout.buffer
    s = connect(port, TIMEOUT)
    got = read_banner(s)
    s.sendall(req)
    if b'STARTTLS' not in req.upper() and b'STAR' not in req.upper():
        out.write(got + recv_all(s))
        return 0
    got = recv_until(s, got, b'220 Ready to start TLS\r\n')
    out.write(got)
    out.flush()
    if b'220 Ready to start TLS\r\n' not in got:
        out.write(recv_all(s))
        return 0
    ctx = tls_context(ca=ca, cert=cert, tls11=tls11)
    try:
        t = ctx.wrap_socket(s)
        t.sendall(treq)
        # Read replies to the first request before the next, so that a
        # server closing after a refusal is seen as such.
        data = recv_all(t)
    except (ssl.SSLError, OSError) as e:
        out.write(('TLS handshake failed: %s\n' % e).encode())
        return 3
    out.write(data)
    return 0


def server(args):
    portfile, mode, certfile, logfile = args
    ls = listen(1, TIMEOUT, portfile=portfile)
    s, _ = ls.accept()
    c = Conn(s, TIMEOUT)
    log = open(logfile, 'ab')
    c.send(banner(b'fake', b'1.0', b'ZLIB REPO'))
    line = c.line(keep=True)
    if line is None or not line.upper().startswith(b'STAR'):
        log.write(b'no STARTTLS: ' + (line or b'') + bytes(c.buf))
        return 1
    if mode == 'refuse':
        # Whatever comes in clear is logged and answered, chunk by chunk.
        c.reply(b'500 Command STARTTLS unrecognized')
        try:
            for _ in range(1000):
                if not c.buf and not c.more():
                    break
                log.write(bytes(c.buf))
                del c.buf[:]
                c.reply(b'230 Returning STAT information')
        except OSError:
            pass
    elif mode == 'junk':
        c.reply(b'220 Ready to start TLS', b'201 QUIT OK')
        s.settimeout(3)
        try:
            c.more()
        except OSError:
            pass
        log.write(bytes(c.buf))
    elif mode == 'tls11':
        c.reply(b'220 Ready to start TLS')
        ctx = tls_context(server=True, cert=certfile, tls11=True)
        try:
            t = ctx.wrap_socket(s, server_side=True)
            log.write(b'handshake succeeded\n')
            log.write(t.recv(4096))
        except (ssl.SSLError, OSError) as e:
            sys.stderr.write('fake server: %s\n' % e)
    s.close()
    log.close()
    return 0


def main():
    if sys.argv[1] == 'client':
        return client(sys.argv[2:])
    if sys.argv[1] == 'server':
        return server(sys.argv[2:])
    raise SystemExit('usage: tlspeer.py client|server ...')


if __name__ == '__main__':
    sys.exit(main())
