#!/usr/bin/env python3
"""A Radmind-protocol receiver written apart from cairn: Python's zlib.

zrecv.py PORT LEVEL OUTDIR TRANSCRIPT PATH...

Reads the banner, asks "COMP ZLIB LEVEL" (a number, or AUTO), then
retrieves "FILE TRANSCRIPT PATH" for each PATH (already encoded) over
one connection, inflating the server's one never-finished zlib stream
with zlib.decompressobj, and writes body i to OUTDIR/i.  Prints the
banner's CAPA line and the 320 reply.  Exits 1 on any protocol error.
"""
import sys

from testnet import Conn, connect

DEADLINE = 30


class Stream(Conn):
    """The connection to the server; its end, or the end of its zlib
    stream, is an error."""

    def more(self, end=None):
        if not Conn.more(self, end):
            raise SystemExit("zrecv: connection closed")
        if self.inflate is not None and self.inflate.eof:
            raise SystemExit("zrecv: stream finished by the server")
        return True

    def text(self):
        return self.line().decode("latin-1")


def main():
    port, level, outdir, tran = sys.argv[1:5]
    paths = sys.argv[5:]
    s = Stream(connect(int(port), DEADLINE), DEADLINE)
    while True:
        line = s.text()
        if not line.startswith("2"):
            raise SystemExit("zrecv: banner: " + line)
        if "CAPA" in line:
            print(line[4:])
        if line[3] != "-":
            break
    s.send(b"COMP ZLIB %s\r\n" % level.encode())
    line = s.text()
    if not line.startswith("320"):
        raise SystemExit("zrecv: COMP: " + line)
    print(line)
    # Both directions compressed from here; any bytes already read
    # after the 320 line are compressed too.
    s.compress(6)
    line = s.text()
    if not line.startswith("220"):
        raise SystemExit("zrecv: COMP: " + line)
    for i, p in enumerate(paths):
        s.send(("RETR FILE %s %s\r\n" % (tran, p)).encode("latin-1"))
        line = s.text()
        if not line.startswith("240"):
            raise SystemExit("zrecv: RETR %s: %s" % (p, line))
        body, end = s.body(int(s.line()))
        if end != b".":
            raise SystemExit("zrecv: RETR %s: no terminating dot" % p)
        with open("%s/%d" % (outdir, i), "wb") as f:
            f.write(body)
    s.send(b"QUIT\r\n")
    line = s.text()
    if not line.startswith("201"):
        raise SystemExit("zrecv: QUIT: " + line)


if __name__ == "__main__":
    main()
