#!/usr/bin/env python3
"""A zstd receiver written apart from cairn: the zstd command decodes.

zstdrecv.py [--zdict | --kept FILE ID] PORT LEVEL OUTDIR TRANSCRIPT PATH...

Reads the banner, asks "COMP ZSTD LEVEL", then sends "RETR FILE
TRANSCRIPT PATH" for each PATH (already encoded) and QUIT, each request
in a zstd frame of its own made by hand (one raw block: no encoder
needed), and keeps every byte the server sends after its 320 line until
it closes.  That stream is cut into frames by their headers and block
headers alone (RFC 8878 section 3.1), not decoded here: every frame but
the last must be complete, and the last one, which the server leaves
open (the stream is never finished), must end on a block boundary, and
no frame may carry a content size, a checksum or a dictionary ID
(docs/protocol.md section 9.2: a sender writes none of them).

With --zdict, "RETR ZDICT" is asked first (section 9.3): frames after
the one that ends its reply may carry the dictionary's ID, and each is
decoded with "zstd -d -D OUTDIR/zdict", the dictionary as received.
With --kept, "ZDICT ID SHA256" names FILE, a dictionary kept from an
earlier session, by its ID and its SHA-256 in base64: after the frame
that ends the 225 reply, frames are decoded with FILE.  The
frames, the open one ended by an empty last raw block, are decoded by
"zstd -d -c", which must succeed; the decoded replies are checked (220,
then 240, size, body and "." per PATH, then 201), and body i is written
to OUTDIR/i.  OUTDIR/wire holds the raw stream, OUTDIR/frames the offset
and length of each frame, one a line.  Prints the banner's CAPA line,
the 320 reply and the number of frames.  Exits 1 on any error.
"""
import base64
import hashlib
import subprocess
import sys
import time

from testnet import connect, read_banner, recv_until

DEADLINE = 30
MAGIC = b'\x28\xb5\x2f\xfd'


def frame(data):
    """data as one frame: no content size, no checksum, window 128 KiB,
    one last raw block (data is short: a request line)."""
    assert len(data) < 128 * 1024
    n = len(data) << 3 | 1
    return MAGIC + b'\x00' + bytes([(17 - 10) << 3]) + \
        bytes([n & 0xff, n >> 8 & 0xff, n >> 16 & 0xff]) + data


def frames(wire, dictok=False):
    """[(offset, length, complete, dictid)] of the frames of wire;
    SystemExit if it is not a sequence of zstd frames, the last one
    possibly open on a block boundary; with dictok a frame may carry a
    dictionary ID."""
    out = []
    i = 0
    while i < len(wire):
        start = i
        if wire[i:i + 4] != MAGIC:
            raise SystemExit('zstdrecv: no frame at offset %d: %s' %
                             (i, wire[i:i + 4].hex()))
        if i + 5 > len(wire):
            raise SystemExit('zstdrecv: frame header cut at %d' % i)
        fhd = wire[i + 4]
        fcs_flag, single = fhd >> 6, fhd >> 5 & 1
        if fhd & 0x08:
            raise SystemExit('zstdrecv: reserved bit set at %d' % i)
        if fhd & (0xe4 if dictok else 0xe7):
            raise SystemExit('zstdrecv: the frame at %d carries a content '
                             'size, a checksum or a dictionary ID '
                             '(descriptor %02x)' % (i, fhd))
        checksum, did = fhd >> 2 & 1, fhd & 3
        hlen = 5 + (0 if single else 1) + (0, 1, 2, 4)[did] + \
            ((1 if single else 0), 2, 4, 8)[fcs_flag]
        dstart = i + 5 + (0 if single else 1)
        dictid = int.from_bytes(wire[dstart:dstart + (0, 1, 2, 4)[did]],
                                'little')
        i += hlen
        last = False
        while i < len(wire) and not last:
            if i + 3 > len(wire):
                raise SystemExit('zstdrecv: block header cut at %d' % i)
            b = wire[i] | wire[i + 1] << 8 | wire[i + 2] << 16
            last, btype, size = b & 1, b >> 1 & 3, b >> 3
            if btype == 3:
                raise SystemExit('zstdrecv: reserved block type at %d' % i)
            i += 3 + (1 if btype == 1 else size)
            if i > len(wire):
                raise SystemExit('zstdrecv: block cut at %d' % i)
        if last:
            i += 4 if checksum else 0
        if i > len(wire):
            raise SystemExit('zstdrecv: checksum cut at %d' % i)
        out.append((start, i - start, bool(last), dictid))
    for off, _, done, _ in out[:-1]:
        if not done:
            raise SystemExit('zstdrecv: open frame at %d before the last'
                             % off)
    return out


class Replies:
    """The decoded replies, read line by line and body by body."""

    def __init__(self, data):
        self.data = data
        self.pos = 0

    def line(self):
        j = self.data.find(b'\r\n', self.pos)
        if j < 0:
            raise SystemExit('zstdrecv: decoded stream ends in a line')
        line = self.data[self.pos:j].decode('latin-1')
        self.pos = j + 2
        return line

    def body(self, n):
        if self.pos + n > len(self.data):
            raise SystemExit('zstdrecv: decoded stream ends in a body')
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b


def unzstd(data, zdict=None):
    """data decoded by the zstd command (with the dictionary file)."""
    cmd = ['zstd', '-q', '-d', '-c'] + (['-D', zdict] if zdict else [])
    z = subprocess.run(cmd, input=data, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, timeout=DEADLINE,
                       check=False)
    if z.returncode != 0:
        raise SystemExit('zstdrecv: zstd -d: %s' %
                         z.stderr.decode('latin-1').strip())
    return z.stdout


def decode(wire, fr, outdir, zdict, kept=None):
    """The frames fr of wire decoded; with zdict, frame by frame, those
    after the end of the RETR ZDICT reply with the dictionary it
    carried, written to OUTDIR/zdict; with kept, those after the end of
    the 225 reply to ZDICT with that file."""
    if not zdict and not kept:
        # The open frame ends on a block boundary: an empty last raw
        # block ends it for a decoder that wants whole frames.
        tail = b'' if not fr or fr[-1][2] else b'\x01\x00\x00'
        return unzstd(wire + tail)
    out = b''
    have = None
    for off, n, done, dictid in fr:
        if dictid and not have:
            raise SystemExit('zstdrecv: frame at %d names dictionary %d '
                             'before one was sent' % (off, dictid))
        data = wire[off:off + n] + (b'' if done else b'\x01\x00\x00')
        out += unzstd(data, have)
        if have is None and kept:
            r = Replies(out)
            try:
                r.line()
                if r.line().startswith('225'):
                    have = kept
            except SystemExit:
                pass
        elif have is None:
            r = Replies(out)
            try:
                r.line()
                if r.line().startswith('240'):
                    body = r.body(int(r.line()))
                    if r.line() == '.':
                        have = '%s/zdict' % outdir
                        with open(have, 'wb') as f:
                            f.write(body)
            except SystemExit:
                pass
    return out


def main():
    zdict = len(sys.argv) > 1 and sys.argv[1] == '--zdict'
    if zdict:
        del sys.argv[1]
    kept = None
    if len(sys.argv) > 3 and sys.argv[1] == '--kept':
        kept, keptid = sys.argv[2:4]
        del sys.argv[1:4]
        with open(kept, 'rb') as f:
            keptsum = base64.b64encode(hashlib.sha256(f.read()).digest())
    port, level, outdir, tran = sys.argv[1:5]
    paths = sys.argv[5:]
    s = connect(int(port), DEADLINE)
    buf = read_banner(s)
    for line in buf.split(b'\r\n'):
        if b'CAPA' in line:
            print(line[4:].decode('latin-1'))
    s.sendall(b'COMP ZSTD %s\r\n' % level.encode())
    start = buf.find(b'CAPA')
    start = buf.find(b'\n', start) + 1
    buf = recv_until(s, buf, b'\n', start)
    end = buf.find(b'\n', start)
    line = buf[start:end].rstrip(b'\r').decode('latin-1')
    if not line.startswith('320'):
        raise SystemExit('zstdrecv: COMP: ' + line)
    print(line)
    # Everything after the 320 line is zstd, both ways.
    wire = bytearray(buf[end + 1:])
    if zdict:
        s.sendall(frame(b'RETR ZDICT\r\n'))
    if kept:
        s.sendall(frame(b'ZDICT %s %s\r\n' % (keptid.encode(), keptsum)))
    for p in paths:
        s.sendall(frame(('RETR FILE %s %s\r\n' % (tran, p)).encode(
            'latin-1')))
    s.sendall(frame(b'QUIT\r\n'))
    limit = time.monotonic() + DEADLINE
    while True:
        if time.monotonic() > limit:
            raise SystemExit('zstdrecv: the server did not close')
        d = s.recv(65536)
        if not d:
            break
        wire += d
    s.close()
    wire = bytes(wire)
    with open('%s/wire' % outdir, 'wb') as f:
        f.write(wire)
    fr = frames(wire, zdict or kept)
    with open('%s/frames' % outdir, 'w') as f:
        for off, n, _, dictid in fr:
            f.write('%d %d %d\n' % (off, n, dictid))
    print('frames %d' % len(fr))
    print('dictionary frames %d' % sum(1 for x in fr if x[3]))
    r = Replies(decode(wire, fr, outdir, zdict, kept))
    line = r.line()
    if not line.startswith('220'):
        raise SystemExit('zstdrecv: COMP: ' + line)
    if zdict:
        line = r.line()
        if not line.startswith('240'):
            raise SystemExit('zstdrecv: RETR ZDICT: ' + line)
        r.body(int(r.line()))
        if r.line() != '.':
            raise SystemExit('zstdrecv: RETR ZDICT: no terminating dot')
    if kept:
        line = r.line()
        if not line.startswith('225'):
            raise SystemExit('zstdrecv: ZDICT: ' + line)
    for i, p in enumerate(paths):
        line = r.line()
        if not line.startswith('240'):
            raise SystemExit('zstdrecv: RETR %s: %s' % (p, line))
        size = r.line()
        if not size.isdigit():
            raise SystemExit('zstdrecv: RETR %s: size %r' % (p, size))
        body = r.body(int(size))
        if r.line() != '.':
            raise SystemExit('zstdrecv: RETR %s: no terminating dot' % p)
        with open('%s/%d' % (outdir, i), 'wb') as f:
            f.write(body)
    line = r.line()
    if not line.startswith('201'):
        raise SystemExit('zstdrecv: QUIT: ' + line)
    if r.pos != len(r.data):
        raise SystemExit('zstdrecv: bytes after 201')


if __name__ == '__main__':
    main()
