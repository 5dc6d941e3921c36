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
# Every wait is bounded (10 s).
import socket
import ssl
import sys

from testnet import listen, recv_until

TIMEOUT = 10.0


def unescape(s):
    return s.encode('latin-1').decode('unicode_escape').encode('latin-1')


def recv_all(sock):
    out = b''
    while True:
        try:
            data = sock.recv(65536)
        except (ConnectionResetError, ssl.SSLError, socket.timeout) as e:
            out += ('[%s]\n' % e.__class__.__name__).encode()
            break
        if not data:
            break
        out += data
    return out


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
    s = socket.create_connection(('127.0.0.1', port), TIMEOUT)
    s.settimeout(TIMEOUT)
    got = recv_until(s, b'', b'CAPA')
    got = recv_until(s, got, b'\n')
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
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False
    if ca:
        ctx.load_verify_locations(ca)
    else:
        ctx.verify_mode = ssl.CERT_NONE
    if cert:
        ctx.load_cert_chain(cert)
    if tls11:
        ctx.set_ciphers('DEFAULT:@SECLEVEL=0')
        ctx.minimum_version = ssl.TLSVersion.TLSv1_1
        ctx.maximum_version = ssl.TLSVersion.TLSv1_1
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
    ls = listen(portfile, 1, TIMEOUT)
    c, _ = ls.accept()
    c.settimeout(TIMEOUT)
    log = open(logfile, 'ab')
    c.sendall(b'200-RAP 1 fake 1.0 radmind access protocol\r\n'
              b'200 CAPA ZLIB REPO\r\n')
    buf = recv_until(c, b'', b'\n')
    if not buf.upper().startswith(b'STAR'):
        log.write(b'no STARTTLS: ' + buf)
        return 1
    if mode == 'refuse':
        c.sendall(b'500 Command STARTTLS unrecognized\r\n')
        try:
            while True:
                data = c.recv(4096)
                if not data:
                    break
                log.write(data)
                c.sendall(b'230 Returning STAT information\r\n')
        except OSError:
            pass
    elif mode == 'junk':
        c.sendall(b'220 Ready to start TLS\r\n201 QUIT OK\r\n')
        c.settimeout(3)
        try:
            log.write(c.recv(4096))
        except OSError:
            pass
    elif mode == 'tls11':
        c.sendall(b'220 Ready to start TLS\r\n')
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.set_ciphers('DEFAULT:@SECLEVEL=0')
        ctx.minimum_version = ssl.TLSVersion.TLSv1_1
        ctx.maximum_version = ssl.TLSVersion.TLSv1_1
        ctx.load_cert_chain(certfile)
        try:
            t = ctx.wrap_socket(c, server_side=True)
            log.write(b'handshake succeeded\n')
            log.write(t.recv(4096))
        except (ssl.SSLError, OSError) as e:
            sys.stderr.write('fake server: %s\n' % e)
    c.close()
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
