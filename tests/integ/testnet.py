# tests/integ/testnet.py: the one speaker of the Radmind access protocol
# that the scripted peers and proxies of the integration tests are built
# on.  They run as "python3 tests/integ/NAME.py", so this file, beside
# them, is on their module path.  It shares no code with cairn.
#
# Every wait here is bounded: a read waits at most its socket's timeout,
# a line at most its connection's timeout in all and MAXLINE bytes; a
# relay ends when idle or at its deadline; an accept loop takes at most
# its count of connections, before its deadline.
import os
import select
import socket
import ssl
import threading
import time
import zlib

MAXLINE = 1 << 20


def unescape(s):
    """TEXT given on a command line or in a script, with Python string
    escapes (\\r \\n \\x00 ...), as bytes."""
    return s.encode('latin-1').decode('unicode_escape').encode('latin-1')


# --- sockets ---------------------------------------------------------------

def listen(backlog, timeout, portfile=None, port=0, ready=None):
    """Listen on 127.0.0.1:port (0: a free one).  With portfile, write the
    port there, whole (written aside and renamed), for the test to read
    once the file exists; with ready, create that file once listening.
    Accepts time out after timeout seconds."""
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(('127.0.0.1', port))
    ls.listen(backlog)
    ls.settimeout(timeout)
    if portfile:
        with open(portfile + '.tmp', 'w') as f:
            f.write('%d\n' % ls.getsockname()[1])
        os.rename(portfile + '.tmp', portfile)
    if ready:
        open(ready, 'w').close()
    return ls


def connect(port, timeout, source=None, rcvbuf=None):
    """A connection to 127.0.0.1:port from the local address source (any
    of 127/8; default: the system's choice), reads and writes timing out
    after timeout seconds; rcvbuf sets a small receive buffer first."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    try:
        if rcvbuf:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
        s.settimeout(timeout)
        if source:
            s.bind((source, 0))
        s.connect(('127.0.0.1', port))
    except OSError:
        s.close()
        raise
    return s


def close(*socks):
    """Close each socket, sending its FIN first; errors do not matter."""
    for x in socks:
        try:
            x.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        x.close()


def recv_until(sock, buf, marker, start=0):
    """Read until marker is in buf at or after start; return buf (or what
    came before EOF).  Bounded by MAXLINE more bytes and the socket's
    timeout in all (then socket.timeout)."""
    end = time.monotonic() + (sock.gettimeout() or 60.0)
    most = len(buf) + MAXLINE
    while buf.find(marker, start) < 0 and len(buf) < most:
        if time.monotonic() > end:
            raise socket.timeout('no %r within the wait' % marker)
        data = sock.recv(65536)
        if not data:
            break
        buf += data
    return buf


def drain(sock, limit, inflate=None, data=b''):
    """Read until the other side closes, limit seconds at most; inflate
    what comes with the zlib decompressor inflate (data: bytes read
    before, as they came).  Returns (bytes, end): end is None if the
    connection was still open at the limit, '' at its end of file, and
    the name of the error that ended it otherwise (a reset, a TLS
    alert)."""
    out = bytearray(inflate.decompress(data) if inflate else data)
    end = time.monotonic() + limit
    while True:
        left = end - time.monotonic()
        if left <= 0:
            return bytes(out), None
        sock.settimeout(left)
        try:
            d = sock.recv(65536)
        except socket.timeout:
            return bytes(out), None
        except OSError as e:
            return bytes(out), e.__class__.__name__
        if not d:
            return bytes(out), ''
        out += inflate.decompress(d) if inflate else d


def tls_context(server=False, ca=None, cert=None, tls11=False):
    """A TLS context: a client one verifies the server against ca (no
    ca: no verification, no name check); cert is a PEM holding the
    certificate and its key; tls11 allows TLS 1.1 only (security level
    0), as an outdated peer would."""
    if server:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    else:
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
    return ctx


# --- the protocol ----------------------------------------------------------

def banner(host, version, capa):
    """A server's banner: the greeting and its capabilities."""
    return (b'200-RAP 1 %s %s radmind access protocol\r\n'
            b'200 CAPA %s\r\n' % (host, version, capa))


def read_banner(sock):
    """Read a server's banner, up to the end of its CAPA line; returns
    the bytes read (a few more may have come in the same segment)."""
    buf = recv_until(sock, b'', b'CAPA')
    i = buf.find(b'CAPA')
    return recv_until(sock, buf, b'\n', i) if i >= 0 else buf


def retr_head(size):
    """The start of a RETR reply announcing size bytes; the body and
    RETR_END follow."""
    return b'240 Retrieving file\r\n%d\r\n' % size


RETR_END = b'.\r\n'


def delta_req(alg, basis, tname, path):
    """A DELTA request (docs/protocol.md 5.11): FILE tname path (tokens
    as a transcript writes them) for a client holding the file whose
    digest alg (sha1, ...) is basis (base64, as transcripts print it).
    All arguments are bytes; the line ends in CRLF."""
    return b'DELTA %s %s FILE %s %s\r\n' % (alg, basis, tname, path)


class Conn:
    """One side of a protocol connection: lines and bodies in, bytes
    out; once compress() is called, both ways go through zlib (one
    stream each way, sync-flushed after each send, never finished).

    A read waits at most timeout seconds (the socket's), a line at most
    that in all and maxline bytes; each line is logged to log (a binary
    file) as "<<< line" if given.  more() raises what the socket raises;
    subclasses may catch it."""

    def __init__(self, sock, timeout, log=None, maxline=MAXLINE):
        self.s = sock
        self.s.settimeout(timeout)
        self.wait = timeout
        self.log = log
        self.maxline = maxline
        self.buf = bytearray()
        self.inflate = None
        self.deflate = None
        self.closed = False

    def compress(self, level=-1):
        """From here on, inflate what comes (bytes already read too) and
        deflate what is sent at level."""
        self.inflate = zlib.decompressobj()
        self.buf = bytearray(self.inflate.decompress(bytes(self.buf)))
        self.deflate = zlib.compressobj(level)

    def send(self, data, raw=False):
        """Send data (deflated once compression is on, unless raw).  Once
        the other side is gone, sends are dropped (closed is set)."""
        if self.closed:
            return
        if self.deflate is not None and not raw:
            data = self.deflate.compress(data) + \
                self.deflate.flush(zlib.Z_SYNC_FLUSH)
        try:
            self.s.sendall(data)
        except OSError:
            self.closed = True

    def reply(self, *lines):
        """Send each line with its CRLF."""
        self.send(b''.join(line + b'\r\n' for line in lines))

    def more(self, end=None):
        """Read once more into buf; False at end of file.  end: the
        monotonic time after which that counts as a timeout."""
        if end is not None and time.monotonic() > end:
            raise socket.timeout('nothing whole within %s s' % self.wait)
        data = self.s.recv(65536)
        if not data:
            return False
        if self.inflate is not None:
            data = self.inflate.decompress(data)
        self.buf += data
        return True

    def ready(self):
        """Wait until buf holds a whole line; return how many it holds
        (0: the connection ended first).  A line longer than maxline is
        an error (ValueError)."""
        end = time.monotonic() + self.wait if self.wait else None
        while b'\n' not in self.buf:
            if len(self.buf) > self.maxline:
                raise ValueError('a line longer than %d bytes' %
                                 self.maxline)
            if not self.more(end):
                return 0
        return self.buf.count(b'\n')

    def line(self, keep=False):
        """The next line without its LF (nor a CR before it; keep: with
        both); None if the connection ends first."""
        if not self.ready():
            return None
        i = self.buf.find(b'\n')
        whole = bytes(self.buf[:i + 1])
        del self.buf[:i + 1]
        line = whole[:-1].rstrip(b'\r')
        if self.log:
            self.log.write(b'<<< ' + line + b'\n')
            self.log.flush()
        return whole if keep else line

    def fill(self, n):
        """Read until buf holds n bytes; False if the connection ends
        first.  Each read gives at least a byte, so this ends."""
        while len(self.buf) < n:
            if not self.more():
                return False
        return True

    def fetched(self):
        """The reply to a RETR or DELTA: (reply line, body).  After a 240
        or 241 line the size line must be digits only and the body be
        followed by a "." line (else ValueError: the stream is out of
        step); any other reply has no body (None).  None for the line if
        the connection ends first."""
        line = self.line()
        if line is None or line[:4] not in (b'240 ', b'241 '):
            return line, None
        size = self.line()
        if size is None or not size.isdigit():
            raise ValueError('after %r: size line %r' % (line, size))
        body, end = self.body(int(size))
        if end != b'.':
            raise ValueError('after %r: %r instead of "."' % (line, end))
        return line, body

    def body(self, size):
        """The body of a RETR reply whose size line was read, and the line
        after it ("." if all is well): (body, end), the body shorter and
        end None if the connection ended first."""
        self.fill(size)
        body = bytes(self.buf[:size])
        del self.buf[:size]
        return body, self.line() if len(body) == size else None


# --- servers and proxies ---------------------------------------------------

def serve(ls, handle, most, deadline, threaded=False):
    """Accept connections on ls, at most most of them and until the
    monotonic time deadline, and run handle(sock, n) on each (n counts
    from 1): one after the other, or each in a thread of its own.  The
    first connection is waited for until the deadline; after it, an
    accept that times out (ls's timeout) ends the loop if none is still
    being handled.  Returns how many came."""
    threads = []
    n = 0
    while n < most and time.monotonic() < deadline:
        try:
            c, _ = ls.accept()
        except socket.timeout:
            if n > 0 and not any(t.is_alive() for t in threads):
                break
            continue
        n += 1
        if threaded:
            t = threading.Thread(target=handle, args=(c, n), daemon=True)
            t.start()
            threads.append(t)
        else:
            handle(c, n)
    for t in threads:
        t.join(max(0.0, deadline - time.monotonic()))
    return n


class Relay:
    """A proxy's connection: bytes both ways between the client's socket
    and the server's until both are done.  Hooks for subclasses:
    upstream() makes the server's socket; passing(side, data) sees what
    a side (CLIENT or SERVER) sent and returns what to pass on and
    whether to end the relay after it; budget(side) is how many bytes
    may be read from a side now (0: not now; tick: how often to ask
    again).  An end of file from a side in halfclose is passed on to the
    other as a half-close; from another side it ends the relay.  Bounded:
    idle seconds without a byte (None: no such bound) and the monotonic
    time deadline end it, and a write to either side waits 30 s at most."""
    CLIENT, SERVER = 0, 1
    tick = 0.05

    def __init__(self, client, port, idle, deadline,
                 halfclose=(CLIENT, SERVER)):
        self.c = client
        self.c.settimeout(30)
        self.port = port
        self.idle = idle
        self.deadline = deadline
        self.halfclose = halfclose

    def upstream(self):
        return connect(self.port, 10)

    def passing(self, side, data):
        return data, False

    def budget(self, side):
        return 65536

    def run(self):
        try:
            s = self.upstream()
        except OSError:
            self.c.close()
            return
        try:
            self.pump([self.c, s])
        except OSError:
            pass
        finally:
            close(self.c, s)

    def pump(self, socks):
        live = [self.CLIENT, self.SERVER]
        last = time.monotonic()
        while live:
            now = time.monotonic()
            if now >= self.deadline or \
                    (self.idle is not None and now - last >= self.idle):
                return
            want = [i for i in live if self.budget(i) > 0]
            wait = self.deadline - now
            if self.idle is not None:
                wait = min(wait, self.idle - (now - last))
            if len(want) < len(live):
                wait = min(wait, self.tick)
            r, _, _ = select.select([socks[i] for i in want], [], [],
                                    max(0.0, wait))
            for i in want:
                if socks[i] not in r:
                    continue
                last = time.monotonic()
                d = socks[i].recv(min(self.budget(i), 65536))
                other = socks[1 - i]
                if not d:
                    if i not in self.halfclose:
                        return
                    live.remove(i)
                    try:
                        other.shutdown(socket.SHUT_WR)
                    except OSError:
                        pass
                    continue
                d, stop = self.passing(i, d)
                other.sendall(d)
                if stop:
                    return
