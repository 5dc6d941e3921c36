#!/usr/bin/env python3
# limpeer.py: misbehaving RAP clients for the cairnd limits tests.
#
#   limpeer.py PORT SCENARIO [ARG...] [+ SCENARIO [ARG...]]...
#
# Runs the scenarios side by side, each on its own connection(s), and
# prints what each saw as "key=value" lines (replies as "reply=<line>"),
# prefixed with "<scenario>." when there are several, so that a shell
# test can check them with grep.  Every wait is bounded.
#
#   bomb CAIRNDPID MIB TEXT
#       COMP ZLIB 9, then send a deflate stream of TEXT (Python escapes)
#       repeated to about MIB MiB, sync-flushed every MiB (a whole number
#       of TEXTs), without reading.  Samples the session child's
#       anonymous memory (RssAnon: its heap and stacks, not the shared
#       libraries) while feeding and prints anon0_kb (just after the
#       banner), anonmax_kb, fed_mib (how much was sent before the server
#       stopped reading or closed), closed_s (seconds from the first
#       compressed byte until the server closed, 60 s at most after the
#       last byte sent), noop_ok (how many
#       "202 NOOP OK" came back) and every other reply after the 320.
#   silent
#       Read the banner and send nothing; print closed_s and the replies
#       after the banner (60 s at most).
#   halfhello
#       STARTTLS, then the start of a TLS ClientHello and silence; print
#       closed_s (60 s at most).
#   tlsidle SECONDS
#       STARTTLS and a TLS handshake (no verification), then wait SECONDS
#       and send NOOP; print noop_ok (1 if it was answered).
#   noops COUNT SECONDS
#       One NOOP every SECONDS, COUNT times; print noop_ok (202 replies)
#       and closed_s (or "open" if still open at the end).
#   trickle SECONDS
#       Send a command line one byte every SECONDS and never end it;
#       print sent (bytes), closed_s (from the first byte) and replies
#       (60 s at most).
#   stortrickle SECONDS
#       STOR TRANSCRIPT trickle.T of 100000 bytes, then its body one byte
#       every SECONDS; print sent (body bytes), closed_s (from the first
#       body byte) and replies (60 s at most).
#   flood CAIRNDPID COUNT TEXT
#       Send TEXT (Python escapes: request lines) COUNT times on one
#       connection, then QUIT, reading the replies as they come (a thread
#       sends, so neither side blocks the other).  Samples the session
#       child's RssAnon once a tenth of the replies are in (anon1_kb) and
#       keeps the largest value seen after that (anonmax_kb); prints
#       sent (how many TEXTs went out), lines (reply lines received),
#       the count of each reply code (code_NNN=...) and closed_s.
#       Bounded by 300 s.
#   stall CAIRNDPID PATH
#       RETR FILE test.T PATH with a small receive buffer, read the
#       reply's first lines and nothing more; then wait (150 s at most)
#       for the session child to exit, sampling its RssAnon.  Prints
#       size, anon0_kb (once the download is stuck), anonmax_kb and
#       gone_s (seconds until the child exited, or "open").
#   busy
#       Once every other scenario has its banner, connect and print the
#       first reply line.
#   hold N [GOFILE]
#       Open N connections one after the other, print the first line
#       each gets, keep them open until GOFILE exists (10 s at most; no
#       GOFILE: close at once).
#   burst N
#       Open N connections at once (non-blocking) and print how many
#       complete the TCP handshake within 1 s (established=...).
#   retr PATH LEVEL GOFILE
#       With LEVEL > 0 COMP ZLIB LEVEL first; RETR FILE test.T PATH; read
#       the first MiB, print size, then wait for GOFILE (10 s at most)
#       and read the rest; print got (body bytes), sha1 and end (the
#       terminator line).
import hashlib
import os
import select
import socket
import sys
import threading
import time
import zlib

import testnet
from testnet import Conn, read_banner, recv_until, tls_context, unescape

TIMEOUT = 10.0


def connect(port, rcvbuf=None):
    return testnet.connect(port, TIMEOUT, rcvbuf=rcvbuf)


def drain(s, limit):
    """Read until EOF; return (bytes, True) or (bytes, False) if open."""
    got, end = testnet.drain(s, limit)
    return got, end is not None


class Out:
    """The lines one scenario prints."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.lines = []

    def put(self, key, value):
        self.lines.append('%s%s=%s' % (self.prefix, key, value))

    def now(self, key, value):
        print('%s%s=%s' % (self.prefix, key, value))
        sys.stdout.flush()

    def closed(self, closed, t0):
        self.put('closed_s', '%.0f' % (time.time() - t0) if closed
                 else 'open')

    def replies(self, data):
        for line in data.split(b'\r\n'):
            if line:
                self.put('reply', line.decode('latin-1'))


def children(pid):
    try:
        with open('/proc/%d/task/%d/children' % (pid, pid)) as f:
            return [int(x) for x in f.read().split()]
    except OSError:
        return []


def new_child(pid, before):
    """The first child of pid not in before, waiting up to 5 s; None."""
    for _ in range(50):
        new = [k for k in children(pid) if k not in before]
        if new:
            return new[0]
        time.sleep(0.1)
    return None


def status(pid, key):
    try:
        with open('/proc/%d/status' % pid) as f:
            for line in f:
                if line.startswith(key + ':'):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def bomb(port, args, out, ready):
    dpid, mib, text = int(args[0]), int(args[1]), unescape(args[2])
    before = set(children(dpid))
    s = connect(port)
    read_banner(s)
    ready()
    kid = new_child(dpid, before)
    anon0 = status(kid, 'RssAnon') if kid else 0
    s.sendall(b'COMP ZLIB 9\r\n')
    # The 320 line comes in clear, everything after it compressed.
    head = recv_until(s, b'', b'320 ')
    if b'320 ' in head:
        head = recv_until(s, head, b'\r\n', head.index(b'320 '))
    if b'320 ' not in head:
        out.put('error', 'no 320 reply')
        return
    rest = head[head.index(b'\r\n', head.index(b'320 ')) + 2:]
    d = zlib.compressobj(9)
    chunk = text * max(1, (1 << 20) // len(text))
    anonmax = anon0
    fed = 0
    t0 = time.time()
    s.setblocking(False)
    try:
        while fed < mib and time.time() - t0 < TIMEOUT:
            z = d.compress(chunk) + d.flush(zlib.Z_SYNC_FLUSH)
            off = 0
            while off < len(z) and time.time() - t0 < TIMEOUT:
                try:
                    off += s.send(z[off:])
                except BlockingIOError:
                    select.select([], [s], [], 0.1)
                if kid:
                    anonmax = max(anonmax, status(kid, 'RssAnon'))
            if off < len(z):
                break
            fed += 1
    except OSError:
        pass
    anonmax = max(anonmax, status(kid, 'RssAnon') if kid else 0)
    s.setblocking(True)
    try:
        s.shutdown(socket.SHUT_WR)
    except OSError:
        pass
    data, closed = drain(s, 60)
    plain = zlib.decompressobj().decompress(rest + data)
    ok = plain.count(b'202 NOOP OK\r\n')
    out.put('anon0_kb', anon0)
    out.put('anonmax_kb', anonmax)
    out.put('fed_mib', fed)
    out.put('noop_ok', ok)
    out.closed(closed, t0)
    out.replies(plain.replace(b'202 NOOP OK\r\n', b''))


def silent(port, args, out, ready):
    s = connect(port)
    read_banner(s)
    ready()
    t0 = time.time()
    data, closed = drain(s, 60)
    out.closed(closed, t0)
    out.replies(data)


def halfhello(port, args, out, ready):
    s = connect(port)
    read_banner(s)
    ready()
    t0 = time.time()
    s.sendall(b'STARTTLS\r\n')
    recv_until(s, b'', b'220 ')
    # A TLS record header announcing 512 bytes of handshake, the start of
    # a ClientHello, and then only part of the promised bytes.
    s.sendall(bytes.fromhex('16030102000100') + b'\x01' * 33)
    data, closed = drain(s, 60)
    out.closed(closed, t0)


def tlsidle(port, args, out, ready):
    pause = float(args[0])
    s = connect(port)
    read_banner(s)
    s.sendall(b'STARTTLS\r\n')
    buf = recv_until(s, b'', b'220 ')
    recv_until(s, buf[buf.index(b'220 '):], b'\r\n')
    t = tls_context().wrap_socket(s)
    ready()
    time.sleep(pause)
    ok = 0
    try:
        t.sendall(b'NOOP\r\n')
        if recv_until(t, b'', b'\r\n').startswith(b'202 '):
            ok = 1
        t.sendall(b'QUIT\r\n')
    except OSError:
        pass
    out.put('noop_ok', ok)


def noops(port, args, out, ready):
    count, pause = int(args[0]), float(args[1])
    s = connect(port)
    read_banner(s)
    ready()
    t0 = time.time()
    ok = 0
    closed = False
    for _ in range(count):
        try:
            s.sendall(b'NOOP\r\n')
            buf = recv_until(s, b'', b'\r\n')
        except OSError:
            closed = True
            break
        if not buf.startswith(b'202 '):
            closed = True
            break
        ok += 1
        time.sleep(pause)
    out.put('noop_ok', ok)
    out.closed(closed, t0)


def drip(s, data, pause, out):
    """Send data one byte every pause seconds until all is sent, the
    server closes or 60 s pass; print sent, closed_s and the replies."""
    sent = 0
    t0 = time.time()
    got = b''
    closed = False
    s.settimeout(pause)
    while sent < len(data) and time.time() - t0 < 60 and not closed:
        try:
            s.send(data[sent:sent + 1])
            sent += 1
            d = s.recv(4096)
            if not d:
                closed = True
            got += d
        except socket.timeout:
            pass
        except OSError:
            closed = True
    out.put('sent', sent)
    out.closed(closed, t0)
    out.replies(got)


def trickle(port, args, out, ready):
    s = connect(port)
    read_banner(s)
    ready()
    drip(s, b'NOOP' + b' x' * 200, float(args[0]), out)


def stortrickle(port, args, out, ready):
    s = connect(port)
    read_banner(s)
    ready()
    s.sendall(b'STOR TRANSCRIPT trickle.T\r\n100000\r\n')
    drip(s, b'd' * 100000, float(args[0]), out)


def hold(port, args, out, ready):
    n = int(args[0])
    gofile = args[1] if len(args) > 1 else None
    socks = []
    for _ in range(n):
        s = connect(port)
        first = recv_until(s, b'', b'\r\n')
        out.put('reply', first.split(b'\r\n')[0].decode('latin-1'))
        socks.append(s)
    ready()
    t0 = time.time()
    while gofile and not os.path.exists(gofile) and time.time() - t0 < TIMEOUT:
        time.sleep(0.05)
    for s in socks:
        s.close()


def burst(port, args, out, ready):
    n = int(args[0])
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.setblocking(False)
        try:
            s.connect(('127.0.0.1', port))
        except BlockingIOError:
            pass
        socks.append(s)
    done = set()
    t0 = time.time()
    while len(done) < n and time.time() - t0 < 1.0:
        _, w, _ = select.select([], [s for s in socks if s not in done],
                                [], 0.1)
        for s in w:
            if s.getsockopt(socket.SOL_SOCKET, socket.SO_ERROR) == 0:
                done.add(s)
    ready()
    out.put('established', len(done))
    for s in socks:
        s.close()


class Reader(Conn):
    """Plain bytes from the server, inflated once compression is on;
    the end of the connection before a line is an error."""

    def line(self):
        line = Conn.line(self)
        if line is None:
            raise EOFError(bytes(self.buf))
        return line


def retr(port, args, out, ready):
    path, level, gofile = args[0].encode(), int(args[1]), args[2]
    s = connect(port)
    r = Reader(s, TIMEOUT)
    while not r.line().startswith(b'200 '):
        pass
    if level > 0:
        r.send(b'COMP ZLIB %d\r\n' % level)
        if not r.line().startswith(b'320 '):
            out.put('error', 'COMP refused')
            return
        r.compress(level)
        r.line()
    r.send(b'RETR FILE test.T ' + path + b'\n')
    if not r.line().startswith(b'240 '):
        out.put('error', 'RETR refused')
        return
    n = int(r.line())
    r.fill(min(n, 1 << 20))
    # The shell waits for this line before it looks at the server.
    out.now('size', n)
    ready()
    t0 = time.time()
    while not os.path.exists(gofile) and time.time() - t0 < TIMEOUT:
        time.sleep(0.05)
    body, end = r.body(n)
    out.put('got', len(body))
    out.put('sha1', hashlib.sha1(body).hexdigest())
    out.put('end', (end or b'').decode('latin-1'))
    s.close()


def stall(port, args, out, ready):
    dpid, path = int(args[0]), args[1].encode()
    before = set(children(dpid))
    s = connect(port, rcvbuf=4096)
    r = Reader(s, TIMEOUT)
    while not r.line().startswith(b'200 '):
        pass
    kid = new_child(dpid, before)
    if kid is None:
        out.put('error', 'no session child')
        return
    r.send(b'RETR FILE test.T ' + path + b'\r\n')
    if not r.line().startswith(b'240 '):
        out.put('error', 'RETR refused')
        return
    out.now('size', int(r.line()))
    ready()
    time.sleep(1)
    anon0 = anonmax = status(kid, 'RssAnon')
    t0 = time.time()
    gone = False
    while time.time() - t0 < 150:
        if kid not in children(dpid):
            gone = True
            break
        anonmax = max(anonmax, status(kid, 'RssAnon'))
        time.sleep(0.5)
    out.put('anon0_kb', anon0)
    out.put('anonmax_kb', anonmax)
    out.put('gone_s', '%.0f' % (time.time() - t0) if gone else 'open')
    s.close()


def flood(port, args, out, ready):
    dpid, count, text = int(args[0]), int(args[1]), unescape(args[2])
    limit = 300.0
    before = set(children(dpid))
    s = connect(port)
    head = read_banner(s)
    ready()
    kid = new_child(dpid, before)
    if kid is None:
        out.put('error', 'no session child')
        return
    expect = count * text.count(b'\n')
    t0 = time.time()

    # The socket blocks with no timeout: a timeout would also bound each
    # sendall, which gives up (having sent an unknown part) whenever the
    # server is busy for a moment, and the flood would end early.  The
    # reader waits in select instead, and shutting the socket down at
    # the end releases a sender still blocked.
    s.settimeout(None)
    sent = [0]

    def send():
        per = max(1, 65536 // len(text))
        left = count
        try:
            while left > 0 and time.time() - t0 < limit:
                n = min(per, left)
                s.sendall(text * n)
                left -= n
                sent[0] += n
            s.sendall(b'QUIT\r\n')
        except OSError:
            pass
    sender = threading.Thread(target=send, daemon=True)
    sender.start()
    codes = {}
    lines = 0
    anon1 = anonmax = 0
    carry = head[head.rindex(b'\r\n') + 2:] if b'\r\n' in head else b''
    closed = False
    while time.time() - t0 < limit:
        if not select.select([s], [], [], 1.0)[0]:
            continue
        try:
            d = s.recv(1 << 18)
        except OSError:
            closed = True
            break
        if not d:
            closed = True
            break
        parts = (carry + d).split(b'\r\n')
        carry = parts.pop()
        for line in parts:
            lines += 1
            c = line[:3].decode('latin-1')
            codes[c] = codes.get(c, 0) + 1
        if anon1 == 0 and lines >= expect // 10:
            anon1 = anonmax = status(kid, 'RssAnon')
        elif anon1:
            anonmax = max(anonmax, status(kid, 'RssAnon'))
    try:
        s.shutdown(socket.SHUT_RDWR)
    except OSError:
        pass
    sender.join(TIMEOUT)
    out.put('sent', sent[0])
    out.put('lines', lines)
    for c in sorted(codes):
        out.put('code_' + c, codes[c])
    out.put('anon1_kb', anon1)
    out.put('anonmax_kb', anonmax)
    out.closed(closed, t0)


def busy(port, args, out, ready):
    out.waitothers()
    s = connect(port)
    first = recv_until(s, b'', b'\r\n')
    out.put('reply', first.split(b'\r\n')[0].decode('latin-1'))
    s.close()


SCENARIOS = {
    'bomb': bomb, 'silent': silent, 'halfhello': halfhello,
    'tlsidle': tlsidle, 'noops': noops, 'trickle': trickle, 'hold': hold,
    'burst': burst, 'retr': retr, 'busy': busy, 'flood': flood,
    'stall': stall,
    'stortrickle': stortrickle,
}


def main():
    port = int(sys.argv[1])
    runs, cur = [], []
    for a in sys.argv[2:] + ['+']:
        if a == '+':
            if cur:
                runs.append(cur)
            cur = []
        else:
            cur.append(a)
    for run in runs:
        if run[0] not in SCENARIOS:
            sys.exit('limpeer.py: unknown scenario ' + run[0])
    events = [threading.Event() for _ in runs]
    others = [e for e, run in zip(events, runs) if run[0] != 'busy']
    outs = [Out(run[0] + '.' if len(runs) > 1 else '') for run in runs]
    threads = []
    for run, out, ev in zip(runs, outs, events):
        out.waitothers = lambda: [e.wait(TIMEOUT) for e in others]

        def body(f=SCENARIOS[run[0]], a=run[1:], o=out, e=ev):
            try:
                f(port, a, o, e.set)
            except (OSError, EOFError, ValueError) as x:
                o.put('error', repr(x))
            finally:
                e.set()
        t = threading.Thread(target=body)
        t.start()
        threads.append(t)
    for t in threads:
        t.join()
    for out in outs:
        for line in out.lines:
            print(line)
    return 0


sys.exit(main())
