#!/usr/bin/env python3
# peer.py: a small, independent speaker of the Radmind access protocol for
# hostile-peer tests.  It plays either side and sends any bytes at any pace,
# in clear or through zlib, following a script; it shares no code with cairn.
#
#   peer.py server PORTFILE SCRIPT [LOG]
#       Listen on 127.0.0.1 (a free port, written to PORTFILE), accept one
#       connection, run SCRIPT on it, then exit.
#   peer.py client PORT SCRIPT [LOG]
#       Connect to 127.0.0.1:PORT and run SCRIPT.
#
# SCRIPT is a file of commands, one per line ('#' starts a comment).  TEXT
# arguments take Python string escapes (\r \n \x00 ...).
#   send TEXT             send TEXT
#   repeat N SECS TEXT    send TEXT N times, SECS seconds apart
#   trickle SECS TEXT     send TEXT one byte at a time, SECS seconds apart
#   body N                send N bytes of filler ('x'), in 64 KiB writes
#   recv                  read one line (logged)
#   expect PREFIX         read one line; fail (exit 3) unless it starts so
#   skip PREFIX           read lines until one starts with PREFIX
#   zlib                  from here on, deflate what is sent (sync flush
#                         after each command) and inflate what is read
#   raw TEXT              send TEXT as it is, not deflated even after zlib
#                         (bytes that break the compressed stream)
#   sleep SECS            wait
#   shutdown              half-close (no more sending)
#   drain                 read until the other side closes
#   close                 close the connection now
#   reset                 close the connection with a TCP reset (RST, by
#                         SO_LINGER 0) instead of a FIN
# Every line received is appended to LOG (if given) as "<<< line".  Every
# wait is bounded: a read waits at most 30 s, and the whole run at most
# 120 s (then exit 4).  Exit 0 when the script ran to its end, even if the
# other side closed meanwhile (later sends are then dropped).
import os
import signal
import socket
import struct
import sys
import time

from testnet import Conn, connect, listen, unescape

READWAIT = 30.0
RUNLIMIT = 120


class Peer(Conn):
    """A connection whose reads end quietly: a timeout or an error is
    the end of what the other side sends."""

    def more(self, end=None):
        try:
            return Conn.more(self, end)
        except OSError:
            return False


def run(peer, script):
    for raw in open(script, encoding='latin-1'):
        raw = raw.rstrip('\n')
        if not raw.strip() or raw.lstrip().startswith('#'):
            continue
        cmd, _, arg = raw.strip().partition(' ')
        if cmd == 'send':
            peer.send(unescape(arg))
        elif cmd == 'raw':
            peer.send(unescape(arg), raw=True)
        elif cmd == 'repeat':
            n, secs, text = arg.split(' ', 2)
            data = unescape(text)
            for _ in range(int(n)):
                peer.send(data)
                if peer.closed:
                    break
                if float(secs) > 0:
                    time.sleep(float(secs))
        elif cmd == 'trickle':
            secs, text = arg.split(' ', 1)
            for b in unescape(text):
                peer.send(bytes([b]))
                if peer.closed:
                    break
                time.sleep(float(secs))
        elif cmd == 'body':
            left = int(arg)
            chunk = b'x' * 65536
            while left > 0 and not peer.closed:
                n = min(left, len(chunk))
                peer.send(chunk[:n])
                left -= n
        elif cmd == 'recv':
            peer.line()
        elif cmd == 'expect':
            line = peer.line()
            if line is None or not line.startswith(unescape(arg)):
                sys.stderr.write('peer.py: expected %r, got %r\n' %
                                 (arg, line))
                return 3
        elif cmd == 'skip':
            want = unescape(arg)
            while True:
                line = peer.line()
                if line is None:
                    sys.stderr.write('peer.py: no line starting %r\n' % arg)
                    return 3
                if line.startswith(want):
                    break
        elif cmd == 'zlib':
            peer.compress()
        elif cmd == 'sleep':
            time.sleep(float(arg))
        elif cmd == 'shutdown':
            try:
                peer.s.shutdown(socket.SHUT_WR)
            except OSError:
                pass
            peer.closed = True
        elif cmd == 'drain':
            while peer.line() is not None:
                pass
        elif cmd == 'close':
            peer.s.close()
            peer.closed = True
            return 0
        elif cmd == 'reset':
            peer.s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER,
                              struct.pack('ii', 1, 0))
            peer.s.close()
            peer.closed = True
            return 0
        else:
            sys.stderr.write('peer.py: unknown command %r\n' % cmd)
            return 2
    return 0


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ('server', 'client'):
        sys.stderr.write('usage: peer.py server PORTFILE SCRIPT [LOG]\n'
                         '       peer.py client PORT SCRIPT [LOG]\n')
        return 2
    signal.signal(signal.SIGALRM, lambda *a: os._exit(4))
    signal.alarm(RUNLIMIT)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    role, where, script = sys.argv[1:4]
    log = open(sys.argv[4], 'ab') if len(sys.argv) > 4 else None
    if role == 'server':
        ls = listen(4, READWAIT, portfile=where)
        try:
            s, _ = ls.accept()
        except socket.timeout:
            sys.stderr.write('peer.py: no connection\n')
            return 1
        ls.close()
    else:
        s = connect(int(where), READWAIT)
    # A line may be a whole uploaded file: bound it loosely.
    rc = run(Peer(s, READWAIT, log, maxline=1 << 26), script)
    try:
        s.close()
    except OSError:
        pass
    return rc


if __name__ == '__main__':
    sys.exit(main())
