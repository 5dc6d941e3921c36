/*
 * check_zstdconn.c: zstd compression of a connection (common/zstdconn.c)
 * over a socketpair: a round trip with flushes, level changes and raw
 * blocks mid-stream (also through the read-ahead thread); a stream cut
 * short; garbage, legacy frames and frames asking for too large a
 * window; the inflate guard on lines; the memory a session's zstd
 * contexts hold at each level, which the default maximum keeps at most
 * 8 MiB; and a dictionary taken mid-stream by both ends, refused when
 * it is none, and a frame made with one the reader does not have.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "conn.h"
#include "xmalloc.h"
#include "zconn.h"
#include "zlevel.h"
#include "zstdconn.h"
#include "unit.h"

#ifdef HAVE_ZSTD
#include <zstd.h>

#define BIG		(1 << 20)
#define RAWLEN		(300 * 1024)	/* more than two raw blocks */

static int	 sv[2];

static void
pair(void)
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
}

static void
put(const void *p, size_t n)
{
	ck_assert_int_eq(write(sv[1], p, n), (ssize_t)n);
}

static const char *
getl(struct conn *c)
{
	struct cerr	 err;
	char		*line;

	if (conn_getline(c, &line, &err) == -1)
		ck_abort_msg("conn_getline: %s", err.msg);
	return line;
}

/* Text that compresses, byte i of it. */
static char
textbyte(size_t i)
{
	return (char)(i % 251 < 200 ? 'a' + i % 7 : i);
}

/* Bytes that do not (a fixed generator: the reader checks them). */
static unsigned char
noisebyte(size_t i)
{
	uint32_t	 x = (uint32_t)i * 2654435761U;

	x ^= x >> 15;
	x *= 2246822519U;
	return (unsigned char)(x >> 13);
}

/*
 * Child: lines and blocks in zstd at level, the level changed to 9, a
 * block pinned to raw blocks, full and sync flushes between them; with
 * memonly, 2 MiB at level and then what its contexts hold.
 */
static void
zwriter(int fd, int level, int memonly)
{
	struct conn	*c;
	struct cerr	 err;
	char		*big;
	unsigned char	*noise;
	size_t		 i;
	int		 ok = 1;

	c = conn_new(fd, "writer");
	big = xmalloc(BIG);
	for (i = 0; i < BIG; i++)
		big[i] = textbyte(i);
	noise = xmalloc(RAWLEN);
	for (i = 0; i < RAWLEN; i++)
		noise[i] = noisebyte(i);
	ok &= conn_printf(c, &err, "320 go\r\n") == 0;
	ok &= zstdconn_start(c, level, 0, &err) == 0;
	ok &= conn_printf(c, &err, "220 on\r\n") == 0;
	ok &= conn_flush(c, &err) == 0;
	ok &= conn_write(c, big, BIG, &err) == 0;
	if (memonly) {
		/* One level: what a session at that level holds. */
		ok &= conn_write(c, big, BIG, &err) == 0;
		ok &= conn_printf(c, &err, "mem %zu\r\n",
		    zstdconn_memory(c)) == 0;
		ok &= conn_flush(c, &err) == 0;
		_exit(ok ? 0 : 1);
	}
	ok &= zstdconn_set_level(c, 9, &err) == 0;
	ok &= zstdconn_level(c) == 9;
	ok &= conn_printf(c, &err, "after level change\r\n") == 0;
	ok &= conn_flush_full(c, &err) == 0;
	ok &= zstdconn_pin_level(c, 0, &err) == 0;
	ok &= zstdconn_level(c) == 0;
	ok &= conn_write(c, noise, RAWLEN, &err) == 0;
	ok &= conn_flush(c, &err) == 0;
	ok &= zstdconn_pin_level(c, -1, &err) == 0;
	ok &= zstdconn_level(c) == 9;
	ok &= conn_printf(c, &err, "after raw\r\n") == 0;
	ok &= conn_flush_full(c, &err) == 0;
	ok &= conn_flush_full(c, &err) == 0;	/* nothing more to end */
	ok &= conn_printf(c, &err, "last\r\n") == 0;
	ok &= conn_write(c, big, BIG, &err) == 0;
	ok &= conn_printf(c, &err, "mem %zu\r\n", zstdconn_memory(c)) == 0;
	ok &= conn_flush(c, &err) == 0;
	_exit(ok ? 0 : 1);
}

/*
 * Read what zwriter writes at level; with ahead, on a read-ahead
 * thread.  *wmem: what the writer's contexts held, *rmem the reader's.
 */
static void
zreader(int level, int ahead, int memonly, struct connstats *st,
    size_t *wmem, size_t *rmem)
{
	struct conn	*c;
	struct cerr	 err;
	char		*buf;
	const char	*l;
	size_t		 got, i;
	ssize_t		 n;
	pid_t		 pid;
	int		 status;

	pair();
	if ((pid = fork()) == 0) {
		close(sv[0]);
		zwriter(sv[1], level, memonly);
	}
	close(sv[1]);
	c = conn_new(sv[0], "reader");
	ck_assert_str_eq(getl(c), "320 go");
	ck_assert_int_eq(zstdconn_start(c, 3, 0, &err), 0);
	ck_assert(zstdconn_on(c));
	ck_assert(!zconn_on(c));
	ck_assert_str_eq(getl(c), "220 on");
	if (ahead)
		ck_assert_int_eq(conn_readahead(c, &err), 0);
	buf = xmalloc(BIG);
	for (got = 0; got < BIG; got += (size_t)n)
		ck_assert_int_gt(n = conn_read(c, buf + got, BIG - got, &err),
		    0);
	for (i = 0; i < BIG; i++)
		if (buf[i] != textbyte(i))
			ck_abort_msg("text byte %zu differs", i);
	if (memonly)
		goto last;
	ck_assert_str_eq(getl(c), "after level change");
	for (got = 0; got < RAWLEN; got += (size_t)n)
		ck_assert_int_gt(n = conn_read(c, buf + got, RAWLEN - got,
		    &err), 0);
	for (i = 0; i < RAWLEN; i++)
		if ((unsigned char)buf[i] != noisebyte(i))
			ck_abort_msg("raw byte %zu differs", i);
	ck_assert_str_eq(getl(c), "after raw");
	ck_assert_str_eq(getl(c), "last");
last:
	for (got = 0; got < BIG; got += (size_t)n)
		ck_assert_int_gt(n = conn_read(c, buf + got, BIG - got, &err),
		    0);
	l = getl(c);
	ck_assert_int_eq(strncmp(l, "mem ", 4), 0);
	*wmem = strtoul(l + 4, NULL, 10);
	*rmem = zstdconn_memory(c);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* Everything is in: the end of the stream is seen. */
	ck_assert_int_eq(conn_read(c, buf, 1, &err), -1);
	ck_assert(conn_eof(c));
	conn_stats(c, st);
	free(buf);
	conn_free(c);
}

START_TEST(test_roundtrip)
{
	struct connstats	 st, st0;
	size_t			 wmem, rmem;

	zreader(1, 0, 0, &st0, &wmem, &rmem);
	/* Text shrinks; the noise (raw blocks) costs its size and headers. */
	ck_assert_uint_gt(st0.wire_in, RAWLEN);
	ck_assert_uint_lt(st0.wire_in, RAWLEN + BIG / 4);
	/* Through the read-ahead thread: same bytes, same counts. */
	zreader(1, 1, 0, &st, &wmem, &rmem);
	ck_assert_uint_eq(st.raw_in, st0.raw_in);
	ck_assert_uint_eq(st.wire_in, st0.wire_in);
}
END_TEST

/*
 * The memory of a session's contexts after a transfer, per level: the
 * sender's at that level, the receiver's (its window is bounded, at any
 * level of the peer).  At the default maximum level a session's sender
 * and the largest receiver together hold at most 8 MiB.
 */
START_TEST(test_memory)
{
	struct connstats	 st;
	size_t			 wmem, rmem;
	int			 l;

	for (l = 1; l <= ZSTDCONN_MAXLEVEL; l++) {
		zreader(l, 0, 1, &st, &wmem, &rmem);
		fprintf(stderr, "zstd level %2d: compressing %6zu KiB, "
		    "decompressing %5zu KiB, session %6zu KiB\n", l,
		    wmem / 1024, rmem / 1024, (wmem + rmem) / 1024);
		/* Whatever the peer's level, its frames' window is bounded. */
		ck_assert_uint_le(rmem, ZSTDCONN_WINDOW + 512 * 1024);
		if (l <= zlevel_default_max(ZLEVEL_ZSTD))
			ck_assert_uint_le(wmem + ZSTDCONN_WINDOW + 512 * 1024,
			    8 * 1024 * 1024);
	}
}
END_TEST

/*
 * A session at level 19 that sends only replies, flushed one by one, and
 * a body that will not shrink (raw blocks) after a reply: every reply
 * arrives whole, and the sender never makes the stream's context, whose
 * tables at level 19 are 36 MB; small frames get a context fitted to
 * them.
 */
START_TEST(test_small_replies)
{
	struct conn	*c;
	struct cerr	 err;
	unsigned char	*noise;
	const char	*l;
	char		 want[64];
	size_t		 i, got;
	ssize_t		 n;
	pid_t		 pid;
	int		 status, ok = 1;

	noise = xmalloc(RAWLEN);
	pair();
	if ((pid = fork()) == 0) {
		close(sv[0]);
		c = conn_new(sv[1], "writer");
		for (i = 0; i < RAWLEN; i++)
			noise[i] = noisebyte(i);
		ok &= zstdconn_start(c, 19, 0, &err) == 0;
		for (i = 0; i < 200; i++) {
			ok &= conn_printf(c, &err, "200 reply %zu of the "
			    "session\r\n", i) == 0;
			ok &= (i % 2 ? conn_flush(c, &err) :
			    conn_flush_full(c, &err)) == 0;
		}
		ok &= conn_printf(c, &err, "240 raw follows\r\n") == 0;
		ok &= zstdconn_pin_level(c, 0, &err) == 0;
		ok &= conn_write(c, noise, RAWLEN, &err) == 0;
		ok &= zstdconn_pin_level(c, -1, &err) == 0;
		ok &= conn_printf(c, &err, "mem %zu\r\n",
		    zstdconn_memory(c)) == 0;
		ok &= conn_flush(c, &err) == 0;
		_exit(ok ? 0 : 1);
	}
	close(sv[1]);
	c = conn_new(sv[0], "reader");
	ck_assert_int_eq(zstdconn_start(c, 3, 0, &err), 0);
	for (i = 0; i < 200; i++) {
		(void)snprintf(want, sizeof(want), "200 reply %zu of the "
		    "session", i);
		ck_assert_str_eq(getl(c), want);
	}
	ck_assert_str_eq(getl(c), "240 raw follows");
	for (got = 0; got < RAWLEN; got += (size_t)n) {
		ck_assert_int_gt(n = conn_read(c, noise + got, RAWLEN - got,
		    &err), 0);
	}
	for (i = 0; i < RAWLEN; i++)
		if (noise[i] != noisebyte(i))
			ck_abort_msg("raw byte %zu differs", i);
	l = getl(c);
	ck_assert_int_eq(strncmp(l, "mem ", 4), 0);
	ck_assert_uint_lt(strtoul(l + 4, NULL, 10), 1024 * 1024);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	free(noise);
	conn_free(c);
}
END_TEST

/* A zstd frame of the n bytes at p, made by libzstd at level. */
static size_t
frame(const void *p, size_t n, int level, void *out, size_t outlen)
{
	size_t	 r = ZSTD_compress(out, outlen, p, n, level);

	ck_assert(!ZSTD_isError(r));
	return r;
}

/* Start a reader whose peer is sv[1], zstd on; err's message on -1. */
static struct conn *
zconn_reader(void)
{
	struct conn	*c;
	struct cerr	 err;

	pair();
	c = conn_new(sv[0], "peer");
	conn_set_maxline(c, 1000);
	put("COMP\r\n", 6);
	ck_assert_str_eq(getl(c), "COMP");
	ck_assert_int_eq(zstdconn_start(c, 1, 0, &err), 0);
	return c;
}

START_TEST(test_cut_short)
{
	struct conn	*c;
	struct cerr	 err;
	char		 text[4000], z[8192], *line;
	size_t		 n, i;

	for (i = 0; i < sizeof(text); i++)
		text[i] = (i + 1) % 80 == 0 ? '\n' : 'a' + (char)(i % 13);
	n = frame(text, sizeof(text), 3, z, sizeof(z));
	/* Every cut: the lines before it, never a byte more, then EOF. */
	for (i = 1; i < n; i += 7) {
		c = zconn_reader();
		put(z, i);
		close(sv[1]);
		while (conn_getline(c, &line, &err) != -1)
			ck_assert_uint_eq(strlen(line), 79);
		ck_assert_msg(conn_eof(c), "cut at %zu: %s", i, err.msg);
		conn_free(c);
	}
}
END_TEST

/*
 * Feed bytes after the switch: the read fails (after the line first, if
 * not NULL), err holds want.
 */
static void
refused(const void *p, size_t n, const char *first, const char *want)
{
	struct conn	*c;
	struct cerr	 err;
	char		*line;

	c = zconn_reader();
	put(p, n);
	close(sv[1]);
	if (first != NULL)
		ck_assert_str_eq(getl(c), first);
	ck_assert_msg(conn_getline(c, &line, &err) == -1, "read a line where "
	    "\"%s\" was due", want);
	ck_assert_msg(strstr(err.msg, want) != NULL && strncmp(err.msg,
	    "peer: ", 6) == 0, "\"%s\", not \"%s\"", err.msg, want);
	ck_assert(!conn_eof(c));
	conn_free(c);
}

START_TEST(test_garbage)
{
	unsigned char	 z[256], g[512];
	size_t		 n, i;
	/* Headers asking for 4 MiB (log 22) and 1 GiB, then a raw block. */
	static const unsigned char	 w22[] = { 0x28, 0xb5, 0x2f, 0xfd,
	    0x00, 0x60, 0x30, 0x00, 0x00, 'N', 'O', 'O', 'P', '\r', '\n' };
	static const unsigned char	 w30[] = { 0x28, 0xb5, 0x2f, 0xfd,
	    0x00, 0xa0, 0x30, 0x00, 0x00, 'N', 'O', 'O', 'P', '\r', '\n' };
	static const unsigned char	 w21[] = { 0x28, 0xb5, 0x2f, 0xfd,
	    0x00, 0x58, 0x30, 0x00, 0x00, 'N', 'O', 'O', 'P', '\r', '\n' };
	/* A skippable frame, and v0.7's magic. */
	static const unsigned char	 skip[] = { 0x50, 0x2a, 0x4d, 0x18,
	    0x00, 0x00, 0x00, 0x00 };
	static const unsigned char	 legacy[] = { 0x27, 0xb5, 0x2f, 0xfd,
	    0x00, 0x00, 0x00, 0x00 };
	struct conn	*c;

	refused("NOOP\r\n", 6, NULL, "not a zstd frame (starts 4e4f4f50)");
	refused(w22, sizeof(w22), NULL, "window larger than 2048 KiB");
	refused(w30, sizeof(w30), NULL, "window larger than 2048 KiB");
	refused(skip, sizeof(skip), NULL, "not a zstd frame");
	refused(legacy, sizeof(legacy), NULL, "not a zstd frame (starts 27b52ffd)");
	/* A good frame, then one that is not. */
	n = frame("NOOP\r\n", 6, 1, z, sizeof(z));
	memcpy(z + n, "junk", 4);
	refused(z, n + 4, "NOOP", "not a zstd frame (starts 6a756e6b)");
	/* A good header, then noise. */
	for (i = 0; i < sizeof(g); i++)
		g[i] = noisebyte(i);
	memcpy(g, w21, 6);
	refused(g, sizeof(g), NULL, "zstd: ");

	/* The 2 MiB window is taken. */
	c = zconn_reader();
	put(w21, sizeof(w21));
	ck_assert_str_eq(getl(c), "NOOP");
	conn_free(c);
	close(sv[1]);
}
END_TEST

/* 200000 NOOP lines in one frame: stopped by a bound of 100:1. */
START_TEST(test_ratio)
{
	struct conn	*c;
	struct cerr	 err;
	char		*text, *z, *line;
	size_t		 n, len = 200000 * 6, zlen;
	pid_t		 pid;
	int		 status;

	text = xmalloc(len);
	for (n = 0; n < len; n += 6)
		memcpy(text + n, "NOOP\r\n", 6);
	z = xmalloc(ZSTD_compressBound(len));
	zlen = frame(text, len, 3, z, ZSTD_compressBound(len));
	pair();
	if ((pid = fork()) == 0) {
		close(sv[0]);
		_exit(write(sv[1], z, zlen) == (ssize_t)zlen ? 0 : 1);
	}
	close(sv[1]);
	c = conn_new(sv[0], "peer");
	ck_assert_int_eq(zstdconn_start(c, 1, 100, &err), 0);
	for (n = 0; conn_getline(c, &line, &err) != -1; n++)
		ck_assert_str_eq(line, "NOOP");
	ck_assert_uint_lt(n, 3 * ZCONN_WINDOW / 6);
	ck_assert_ptr_nonnull(strstr(err.msg, "inflate more than 100:1"));
	conn_free(c);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	free(text);
	free(z);
}
END_TEST

/*
 * A dictionary trained on lines like those dtext makes: 400 samples of
 * some 1.5 KiB.  The caller frees it.
 */
static void
dline(char *buf, size_t len, size_t i)
{
	(void)snprintf(buf, len, "service %zu: enabled = yes, user = svc%zu, "
	    "listen = 127.0.0.%zu:%zu, log_level = info, timeout = 30\n",
	    i, i, i % 250 + 1, 8000 + i);
}

static struct zstdconn_dict *
dtrained(void)
{
	struct zstdconn_dict	*d;
	struct cerr		 err;
	char			*samples, line[200], *dict;
	size_t			 sizes[400], off = 0, i, j, dlen;

	samples = xmalloc(400 * 2048);
	for (i = 0; i < 400; i++) {
		sizes[i] = 0;
		for (j = 0; j < 12; j++) {
			dline(line, sizeof(line), i * 12 + j);
			memcpy(samples + off, line, strlen(line));
			off += strlen(line);
			sizes[i] += strlen(line);
		}
	}
	dict = xmalloc(ZSTDCONN_DICTSIZE);
	ck_assert_msg(zstdconn_dict_train(samples, sizes, 400, dict,
	    ZSTDCONN_DICTSIZE, &dlen, &err) == 0, "%s", err.msg);
	d = zstdconn_dict_new(dict, dlen, &err);
	ck_assert_msg(d != NULL, "%s", err.msg);
	ck_assert_uint_ne(zstdconn_dict_id(d), 0);
	free(dict);
	free(samples);
	return d;
}

/* The output of a frame kept apart (zstdconn_set_capture). */
static unsigned char	 capbuf[65536];
static size_t		 caplen;

static void
capture(void *arg, const void *p, size_t n)
{
	(void)arg;
	if (caplen + n <= sizeof(capbuf))
		memcpy(capbuf + caplen, p, n);
	caplen += n;
}

/*
 * Both ends take a dictionary after a line (the writer's frame ended
 * first), the reader through its read-ahead thread or not, and the
 * writer goes on once the reader took it (as a server waits for the
 * client's next request after the reply that hands it over; a reader
 * that has decoded into the next frame before it takes the dictionary
 * refuses that frame, as it must): what follows
 * arrives whole, in frames made with it (their header names it, and
 * libzstd decodes one with it alone), and smaller than without it; a
 * dictionary is taken once.  A frame maker with it makes such frames
 * too.
 */
static void
dict_session(int ahead, int use, size_t *wire)
{
	struct zstdconn_dict	*d;
	struct connstats	 st;
	struct conn		*c;
	struct cerr		 err;
	char			 line[200], want[200], *out;
	size_t			 i;
	pid_t			 pid;
	int			 status, ok = 1, go[2];
	char			 b;

	d = dtrained();
	pair();
	ck_assert_int_eq(pipe(go), 0);
	if ((pid = fork()) == 0) {
		close(sv[0]);
		close(go[1]);
		c = conn_new(sv[1], "writer");
		ok &= zstdconn_start(c, 19, 0, &err) == 0;
		ok &= conn_printf(c, &err, "dictionary next\r\n") == 0;
		ok &= conn_flush_full(c, &err) == 0;
		if (use) {
			ok &= zstdconn_use_dict(c, d, 1, &err) == 0;
			ok &= zstdconn_dict_used(c) == zstdconn_dict_id(d);
			ok &= zstdconn_use_dict(c, d, 1, &err) == -1;
		}
		ok &= read(go[0], &b, 1) == 1;
		zstdconn_set_capture(c, capture, NULL);
		for (i = 0; i < 100; i++) {
			dline(line, sizeof(line), 5000 + i);
			ok &= conn_printf(c, &err, "%s", line) == 0;
		}
		ok &= conn_flush_full(c, &err) == 0;
		zstdconn_set_capture(c, NULL, NULL);
		/* One frame, naming the dictionary, decoded with it alone. */
		ok &= caplen <= sizeof(capbuf);
		ok &= ZSTD_getDictID_fromFrame(capbuf, caplen) ==
		    (use ? zstdconn_dict_id(d) : 0);
		out = xmalloc(100 * 200);
		if (use) {
			const void	*dd;
			size_t		 dl, r;
			ZSTD_DCtx	*dc = ZSTD_createDCtx();

			dd = zstdconn_dict_data(d, &dl);
			r = ZSTD_decompress_usingDict(dc, out, 100 * 200,
			    capbuf, caplen, dd, dl);
			ok &= !ZSTD_isError(r) && r > 1000 &&
			    memcmp(out, "service 5000:", 13) == 0;
			ZSTD_freeDCtx(dc);
		}
		free(out);
		ok &= conn_printf(c, &err, "end\r\n") == 0;
		ok &= conn_flush(c, &err) == 0;
		_exit(ok ? 0 : 1);
	}
	close(sv[1]);
	close(go[0]);
	c = conn_new(sv[0], "reader");
	ck_assert_int_eq(zstdconn_start(c, 3, 0, &err), 0);
	if (ahead)
		ck_assert_int_eq(conn_readahead(c, &err), 0);
	ck_assert_str_eq(getl(c), "dictionary next");
	if (use)
		ck_assert_int_eq(zstdconn_use_dict(c, d, 1, &err), 0);
	ck_assert_int_eq(write(go[1], "g", 1), 1);
	close(go[1]);
	for (i = 0; i < 100; i++) {
		dline(want, sizeof(want), 5000 + i);
		want[strlen(want) - 1] = '\0';
		ck_assert_str_eq(getl(c), want);
	}
	ck_assert_str_eq(getl(c), "end");
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
	    "writer failed");
	conn_stats(c, &st);
	*wire = st.wire_in;
	conn_free(c);
	zstdconn_dict_free(d);
}

START_TEST(test_dict_session)
{
	size_t	 with, ahead, without;

	dict_session(0, 1, &with);
	dict_session(1, 1, &ahead);
	dict_session(0, 0, &without);
	ck_assert_uint_eq(ahead, with);
	ck_assert_msg(with < without, "with the dictionary %zu bytes, "
	    "without %zu", with, without);
}
END_TEST

START_TEST(test_dict_frame)
{
	struct zstdconn_dict	*d;
	struct zstdconn_frame	*f;
	struct cerr		 err;
	struct buf		*out;
	char			 line[200], *plain;
	const void		*dd;
	size_t			 dl, r;
	ZSTD_DCtx		*dc;

	d = dtrained();
	ck_assert_ptr_nonnull(f = zstdconn_frame_new(19, d, &err));
	out = buf_new(1 << 20);
	dline(line, sizeof(line), 7777);
	ck_assert_int_eq(zstdconn_frame_add(f, line, strlen(line), 1, out,
	    &err), 0);
	ck_assert_uint_eq(ZSTD_getDictID_fromFrame(buf_data(out),
	    buf_len(out)), zstdconn_dict_id(d));
	/* Far smaller than the line: the dictionary holds most of it. */
	ck_assert_uint_lt(buf_len(out), strlen(line) / 2);
	plain = xmalloc(1024);
	dc = ZSTD_createDCtx();
	dd = zstdconn_dict_data(d, &dl);
	r = ZSTD_decompress_usingDict(dc, plain, 1024, buf_data(out),
	    buf_len(out), dd, dl);
	ck_assert(!ZSTD_isError(r));
	ck_assert_uint_eq(r, strlen(line));
	ck_assert(memcmp(plain, line, r) == 0);
	/* Without it: refused. */
	r = ZSTD_decompressDCtx(dc, plain, 1024, buf_data(out), buf_len(out));
	ck_assert(ZSTD_isError(r));
	ck_assert_uint_gt(zstdconn_dict_memory(d), dl);
	ZSTD_freeDCtx(dc);
	free(plain);
	buf_free(out);
	zstdconn_frame_free(f);
	zstdconn_dict_free(d);
}
END_TEST

/*
 * What is no dictionary is refused, with a message: bytes without its
 * header, a header with damaged tables, one too large; and a frame made
 * with a dictionary the reader does not use.
 */
START_TEST(test_dict_bad)
{
	struct zstdconn_dict	*d, *bad;
	struct zstdconn_frame	*f;
	struct cerr		 err;
	struct buf		*out;
	unsigned char		*copy;
	const void		*dd;
	size_t			 dl, i;
	char			 line[200];

	ck_assert_ptr_null(zstdconn_dict_new("not a dictionary at all", 23,
	    &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "not a zstd dictionary"));
	d = dtrained();
	dd = zstdconn_dict_data(d, &dl);
	copy = xmalloc(ZSTDCONN_DICTMAX + 1);
	memcpy(copy, dd, dl);
	/* Its entropy tables (after magic and id) turned to noise. */
	for (i = 8; i < 200; i++)
		copy[i] = noisebyte(i);
	bad = zstdconn_dict_new(copy, dl, &err);
	ck_assert_msg(bad == NULL, "damaged tables taken");
	ck_assert_ptr_nonnull(strstr(err.msg, "damaged"));
	memcpy(copy, dd, dl);
	ck_assert_ptr_null(zstdconn_dict_new(copy, ZSTDCONN_DICTMAX + 1,
	    &err));
	ck_assert_ptr_nonnull(strstr(err.msg, "more than"));

	/* A frame made with it, to a reader without it. */
	ck_assert_ptr_nonnull(f = zstdconn_frame_new(3, d, &err));
	out = buf_new(1 << 20);
	dline(line, sizeof(line), 1);
	ck_assert_int_eq(zstdconn_frame_add(f, line, strlen(line), 1, out,
	    &err), 0);
	refused(buf_data(out), buf_len(out), NULL,
	    "made with a dictionary this session does not use");
	buf_free(out);
	zstdconn_frame_free(f);
	free(copy);
	zstdconn_dict_free(d);
}
END_TEST

static Suite *
zstdconn_suite(void)
{
	Suite	*s = suite_create("zstdconn");
	TCase	*tc;

	signal(SIGPIPE, SIG_IGN);
	tc = tcase_create("zstd");
	/* bounded work, but a loaded machine or a sanitizer build is slow */
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_cut_short);
	tcase_add_test(tc, test_garbage);
	tcase_add_test(tc, test_ratio);
	tcase_add_test(tc, test_memory);
	tcase_add_test(tc, test_small_replies);
	tcase_add_test(tc, test_dict_session);
	tcase_add_test(tc, test_dict_frame);
	tcase_add_test(tc, test_dict_bad);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(zstdconn_suite());
}

#else /* !HAVE_ZSTD */

int
main(void)
{
	return unit_skip(UNIT_NOZSTD);
}

#endif /* HAVE_ZSTD */
