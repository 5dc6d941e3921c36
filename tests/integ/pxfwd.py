#!/usr/bin/env python3
# pxfwd.py LISTENPORT SERVERPORT READY MODEFILE
# A forwarder in front of cairnd that speaks the PROXY protocol: accepts
# connections on 127.0.0.1:LISTENPORT (creates READY once listening) and
# for each one reads MODEFILE, one line "MODE [CLAIM [SOURCE]]":
#   MODE    v1, v2 (a header claiming the client address CLAIM), local
#           (v2 LOCAL), unknown (v1 UNKNOWN), none (no header), or
#           garbage (a v1 header with a bad address)
#   SOURCE  the address the forwarder connects to cairnd from (any
#           127/8 address; default 127.0.0.1)
# then connects to 127.0.0.1:SERVERPORT, sends the header and relays
# bytes both ways until either side closes.  Every wait is bounded.
import ipaddress
import socket
import struct
import sys
import time

from testnet import Relay, connect, listen, serve

TIMEOUT = 30.0
SIG = b'\r\n\r\n\x00\r\nQUIT\n'


def header(mode, claim, sport, dport):
    if mode == 'none':
        return b''
    if mode == 'unknown':
        return b'PROXY UNKNOWN\r\n'
    if mode == 'local':
        return SIG + bytes([0x20, 0x00, 0, 0])
    if mode == 'garbage':
        return b'PROXY TCP4 192.0.2.300 127.0.0.1 1 2\r\n'
    ip = ipaddress.ip_address(claim)
    if mode == 'v1':
        fam = 'TCP4' if ip.version == 4 else 'TCP6'
        dst = '127.0.0.1' if ip.version == 4 else '::1'
        return ('PROXY %s %s %s %d %d\r\n' % (fam, claim, dst, sport,
                dport)).encode()
    if ip.version == 4:
        addrs = ip.packed + socket.inet_aton('127.0.0.1')
        fam = 0x11
    else:
        addrs = ip.packed + ipaddress.ip_address('::1').packed
        fam = 0x21
    body = addrs + struct.pack('!HH', sport, dport)
    body += bytes([0x04, 0x00, 0x03]) + b'abc'    # a TLV, skipped
    return SIG + bytes([0x21, fam]) + struct.pack('!H', len(body)) + body


class Forward(Relay):
    """A relay whose connection to the server starts with the header
    MODEFILE asks for."""

    def __init__(self, client, port, modefile, deadline):
        # A client's half-close is passed on; the server's end ends it.
        Relay.__init__(self, client, port, TIMEOUT, deadline,
                       halfclose=(self.CLIENT,))
        self.modefile = modefile

    def upstream(self):
        with open(self.modefile) as f:
            words = f.read().split()
        mode = words[0]
        claim = words[1] if len(words) > 1 else '192.0.2.1'
        source = words[2] if len(words) > 2 else '127.0.0.1'
        s = connect(self.port, TIMEOUT, source)
        try:
            s.sendall(header(mode, claim, self.c.getpeername()[1],
                             self.port))
        except OSError:
            s.close()
            raise
        return s


def main():
    lport, sport, ready, modefile = (int(sys.argv[1]), int(sys.argv[2]),
                                     sys.argv[3], sys.argv[4])
    deadline = time.monotonic() + 600
    ls = listen(16, 300, port=lport, ready=ready)
    serve(ls, lambda c, n: Forward(c, sport, modefile, deadline).run(),
          1000, deadline, threaded=True)


if __name__ == '__main__':
    main()
