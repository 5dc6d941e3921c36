/*
 * fuzz_request.c: request lines as cairnd reads and dispatches them
 * (server/session.c, common/proto.c, common/conn.c).
 *
 * session.c is compiled into this file, so that its own dispatcher and
 * verb table (static there) run, not a copy.  The input is what a client
 * sends on an authorized connection without TLS: lines are read with the
 * daemon's request-length cap, split, matched to a verb and acted on, as
 * in sess_serve.  The repository is /dev/null: not a directory, so STAT,
 * RETR and STOR parse and check their arguments but find and create
 * nothing.  COMP ZLIB (and COMP ZSTD) turns on compression in both
 * directions, like the daemon does.  Checked:
 *   - each request line is within the cap and holds no line terminator;
 *   - proto_split yields non-empty tokens free of separators, in order;
 *   - every argument decode_path accepts re-encodes and decodes back;
 *   - everything the server sends back (inflated, or decoded as zstd,
 *     after "320") is a sequence of "NNN text" CRLF lines.
 */
#include "session.c"

#include <syslog.h>
#include <zlib.h>
#include <zstd.h>

#include "buf.h"
#include "fuzz.h"

#define REPLY_MAX	(1024 * 1024)

static struct sopts	 opts;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	opts.zlimit.max[ZLEVEL_ZLIB] = 6;
	opts.zlimit.max[ZLEVEL_ZSTD] = 3;
	opts.zlimit.autook = 1;
	opts.tls = 0;
	opts.umask = 022;
	opts.minfree = STOR_MINFREE;
	FUZZ_SETUP((opts.rootfd = open("/dev/null", O_RDONLY | O_CLOEXEC))
	    != -1);
	strlcpy(opts.hostname, "depot.example.net", sizeof(opts.hostname));
	/* Format every message, send none (no priority is that urgent). */
	log_init("fuzz_request", LOG_TO_SYSLOG, LOG_DAEMON);
	log_setlevel(-1);
	return 0;
}

/* The pieces sess_dispatch is built from, on a copy of the line. */
static void
probe(const char *line)
{
	char	*copy, *av[SESS_MAXARGS], *d, *e, *d2;
	int	 ac, i;

	copy = xstrdup(line);
	ac = proto_split(copy, av, SESS_MAXARGS);
	FUZZ_CHECK(ac >= -1 && ac <= SESS_MAXARGS);
	if (ac == -1)
		ac = SESS_MAXARGS;
	for (i = 0; i < ac; i++) {
		FUZZ_CHECK(av[i][0] != '\0');
		FUZZ_CHECK(strpbrk(av[i], " \t\n") == NULL);
		FUZZ_CHECK(i == 0 || av[i] > av[i - 1]);
		FUZZ_CHECK(av[i] >= copy &&
		    av[i] + strlen(av[i]) <= copy + strlen(line));
		if (decode_path(av[i], &d) == -1)
			continue;
		e = encode_dup(d);
		FUZZ_CHECK(decode_path(e, &d2) == 0 && strcmp(d, d2) == 0);
		free(d2);
		free(e);
		free(d);
	}
	free(copy);
}

/* Check that p[0 .. n) is whole reply lines; returns bytes checked. */
static size_t
check_lines(const unsigned char *p, size_t n, int *zlib)
{
	const unsigned char	*eol;
	size_t			 off = 0, len;

	while (off < n) {
		eol = memchr(p + off, '\n', n - off);
		FUZZ_CHECK(eol != NULL);
		len = (size_t)(eol - (p + off)) + 1;
		FUZZ_CHECK(len >= 6);
		FUZZ_CHECK(p[off] >= '2' && p[off] <= '5');
		FUZZ_CHECK(isdigit(p[off + 1]) && isdigit(p[off + 2]));
		FUZZ_CHECK(p[off + 3] == ' ');
		FUZZ_CHECK(p[off + len - 2] == '\r');
		FUZZ_CHECK(memchr(p + off, '\r', len - 2) == NULL);
		off += len;
		if (memcmp(p + off - len, "320 ", 4) == 0) {
			/* "320 Ready to start ZSTD ...": 2; ZLIB: 1 */
			*zlib = memmem(p + off - len, len, "ZSTD", 4) != NULL ?
			    2 : 1;
			break;
		}
	}
	return off;
}

/* Inflate what follows "320" (sync-flushed, never finished). */
static void
check_compressed(const unsigned char *p, size_t n)
{
	z_stream	 z;
	struct buf	*b;
	unsigned char	 chunk[16384];
	int		 r, zlib = 0;

	memset(&z, 0, sizeof(z));
	FUZZ_SETUP(inflateInit(&z) == Z_OK);
	b = buf_new(REPLY_MAX);
	z.next_in = (unsigned char *)(uintptr_t)p;
	z.avail_in = (uInt)n;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		r = inflate(&z, Z_SYNC_FLUSH);
		FUZZ_CHECK(r == Z_OK || (r == Z_BUF_ERROR && n == 0));
		FUZZ_CHECK(buf_add(b, chunk, sizeof(chunk) - z.avail_out) ==
		    0);
	} while (z.avail_out == 0);
	FUZZ_CHECK(z.avail_in == 0);
	FUZZ_CHECK(check_lines((const unsigned char *)buf_data(b),
	    buf_len(b), &zlib) == buf_len(b));
	FUZZ_CHECK(!zlib);
	inflateEnd(&z);
	buf_free(b);
}

/* Decode the zstd frames that follow "320" (flushed, never ended). */
static void
check_zstd(const unsigned char *p, size_t n)
{
	ZSTD_DCtx	*dc;
	ZSTD_inBuffer	 ib = { p, n, 0 };
	ZSTD_outBuffer	 ob;
	struct buf	*b;
	unsigned char	 chunk[16384];
	size_t		 r;
	int		 zlib = 0;

	FUZZ_SETUP((dc = ZSTD_createDCtx()) != NULL);
	FUZZ_SETUP(!ZSTD_isError(ZSTD_DCtx_setParameter(dc,
	    ZSTD_d_windowLogMax, 21)));
	b = buf_new(REPLY_MAX);
	do {
		ob.dst = chunk;
		ob.size = sizeof(chunk);
		ob.pos = 0;
		r = ZSTD_decompressStream(dc, &ob, &ib);
		FUZZ_CHECK(!ZSTD_isError(r));
		FUZZ_CHECK(buf_add(b, chunk, ob.pos) == 0);
	} while (ib.pos < ib.size || ob.pos == ob.size);
	FUZZ_CHECK(check_lines((const unsigned char *)buf_data(b),
	    buf_len(b), &zlib) == buf_len(b));
	FUZZ_CHECK(!zlib);
	ZSTD_freeDCtx(dc);
	buf_free(b);
}

static void
check_replies(int fd)
{
	struct buf	*b;
	unsigned char	 chunk[16384];
	const unsigned char *p;
	size_t		 off;
	ssize_t		 r;
	int		 zlib = 0;

	b = buf_new(REPLY_MAX);
	for (;;) {
		r = read(fd, chunk, sizeof(chunk));
		if (r == -1 && errno == EINTR)
			continue;
		FUZZ_SETUP(r != -1);
		if (r == 0)
			break;
		FUZZ_CHECK(buf_add(b, chunk, (size_t)r) == 0);
	}
	p = (const unsigned char *)buf_data(b);
	off = check_lines(p, buf_len(b), &zlib);
	if (zlib == 2)
		check_zstd(p + off, buf_len(b) - off);
	else if (zlib)
		check_compressed(p + off, buf_len(b) - off);
	else
		FUZZ_CHECK(off == buf_len(b));
	buf_free(b);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sess	 s;
	struct cerr	 err;
	char		*line;
	int		 peer;

	memset(&s, 0, sizeof(s));
	s.opts = &opts;
	s.status = 1;
	s.state = SESS_AUTH;
	strlcpy(s.ip, "192.0.2.10", sizeof(s.ip));
	strlcpy(s.host, "client.example.edu", sizeof(s.host));
	s.cmdfile = xstrdup("client.K");
	s.key = xstrdup("client.example.edu");
	s.specialdir = xstrdup("special/client.example.edu");
	s.acl = xcalloc(3, sizeof(*s.acl));
	s.acl[s.nacl++] = xstrdup("shared.K");
	s.acl[s.nacl++] = xstrdup("base.T");
	s.acl[s.nacl++] = xstrdup("web base.T");
	s.conn = conn_new(fuzz_socket(data, size, &peer), "fuzz");
	conn_set_maxline(s.conn, PROTO_REQMAX);
	conn_set_timeout(s.conn, 2000);

	while (!s.close) {
		if (conn_getline(s.conn, &line, &err) == -1) {
			if (conn_toolong(s.conn))
				peer_reply(&s, RAP_UNRECOGNIZED,
				    "Line too long, closing connection");
			break;
		}
		FUZZ_CHECK(strlen(line) <= PROTO_REQMAX);
		FUZZ_CHECK(strpbrk(line, "\r\n") == NULL);
		probe(line);
		if (sess_dispatch(&s, line) == SESS_CLOSE)
			break;
		if (s.errors >= SESS_MAXERRORS) {
			peer_reply(&s, RAP_UNAVAILABLE, "Too many errors, "
			    "closing transmission channel");
			break;
		}
	}
	stor_finish(&s);
	(void)conn_flush(s.conn, NULL);
	conn_free(s.conn);
	sess_free(&s);
	check_replies(peer);
	close(peer);
	return 0;
}
