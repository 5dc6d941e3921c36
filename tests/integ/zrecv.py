#!/usr/bin/env python3
"""A Radmind-protocol receiver written apart from cairn: Python's zlib.

zrecv.py PORT LEVEL OUTDIR TRANSCRIPT PATH...

Reads the banner, asks "COMP ZLIB LEVEL" (a number, or AUTO), then
retrieves "FILE TRANSCRIPT PATH" for each PATH (already encoded) over
one connection, inflating the server's one never-finished zlib stream
with zlib.decompressobj, and writes body i to OUTDIR/i.  Prints the
banner's CAPA line and the 320 reply.  Exits 1 on any protocol error.
"""
import socket
import sys
import zlib

DEADLINE = 30


class Stream:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""
        self.inflater = None
        self.deflater = None

    def _more(self):
        data = self.sock.recv(65536)
        if not data:
            raise SystemExit("zrecv: connection closed")
        if self.inflater is not None:
            data = self.inflater.decompress(data)
            if self.inflater.eof:
                raise SystemExit("zrecv: stream finished by the server")
        self.buf += data

    def line(self):
        while b"\n" not in self.buf:
            self._more()
        line, self.buf = self.buf.split(b"\n", 1)
        return line.rstrip(b"\r").decode("latin-1")

    def take(self, n):
        while len(self.buf) < n:
            self._more()
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def send(self, text):
        data = text.encode("latin-1")
        if self.deflater is not None:
            data = self.deflater.compress(data) + \
                self.deflater.flush(zlib.Z_SYNC_FLUSH)
        self.sock.sendall(data)


def main():
    port, level, outdir, tran = sys.argv[1:5]
    paths = sys.argv[5:]
    sock = socket.create_connection(("127.0.0.1", int(port)), DEADLINE)
    sock.settimeout(DEADLINE)
    s = Stream(sock)
    while True:
        line = s.line()
        if not line.startswith("2"):
            raise SystemExit("zrecv: banner: " + line)
        if "CAPA" in line:
            print(line[4:])
        if line[3] != "-":
            break
    s.send("COMP ZLIB %s\r\n" % level)
    line = s.line()
    if not line.startswith("320"):
        raise SystemExit("zrecv: COMP: " + line)
    print(line)
    # Both directions compressed from here; any bytes already read
    # after the 320 line are compressed too.
    rest, s.buf = s.buf, b""
    s.inflater = zlib.decompressobj()
    s.buf = s.inflater.decompress(rest)
    s.deflater = zlib.compressobj(6)
    line = s.line()
    if not line.startswith("220"):
        raise SystemExit("zrecv: COMP: " + line)
    for i, p in enumerate(paths):
        s.send("RETR FILE %s %s\r\n" % (tran, p))
        line = s.line()
        if not line.startswith("240"):
            raise SystemExit("zrecv: RETR %s: %s" % (p, line))
        size = int(s.line())
        body = s.take(size)
        if s.line() != ".":
            raise SystemExit("zrecv: RETR %s: no terminating dot" % p)
        with open("%s/%d" % (outdir, i), "wb") as f:
            f.write(body)
    s.send("QUIT\r\n")
    line = s.line()
    if not line.startswith("201"):
        raise SystemExit("zrecv: QUIT: " + line)


if __name__ == "__main__":
    main()
