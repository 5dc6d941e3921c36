/*
 * check_conn.c: the connection layers (common/conn.c with transport.c,
 * connin.c, connout.c and connra.c; zconn.c, zstream.c, proto.c) over a
 * socketpair.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "buf.h"
#include "cerr.h"
#include "conn.h"
#include "log.h"
#include "proto.h"
#include "xmalloc.h"
#include "zconn.h"
#include "zstream.h"
#include "unit.h"

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

START_TEST(test_terminators)
{
	struct conn	*c;

	pair();
	c = conn_new(sv[0], "peer");
	put("a\r\nb\nc\rd\0e\r", 11);
	ck_assert_str_eq(getl(c), "a");
	ck_assert_str_eq(getl(c), "b");
	ck_assert_str_eq(getl(c), "c");
	ck_assert_str_eq(getl(c), "d");
	ck_assert_str_eq(getl(c), "e");
	/* The LF of that CRLF arrives later: still one terminator. */
	put("\nf\n\n", 4);
	ck_assert_str_eq(getl(c), "f");
	ck_assert_str_eq(getl(c), "");
	conn_free(c);
	close(sv[1]);
}
END_TEST

START_TEST(test_block_after_line)
{
	struct conn	*c;
	struct cerr	 err;
	char		 b[16];

	pair();
	c = conn_new(sv[0], "peer");
	put("5\r", 2);
	ck_assert_str_eq(getl(c), "5");
	put("\nab\ncd.\r\n", 9);
	ck_assert_int_eq(conn_read(c, b, 5, &err), 5);
	ck_assert_mem_eq(b, "ab\ncd", 5);
	ck_assert_str_eq(getl(c), ".");
	conn_free(c);
	close(sv[1]);
}
END_TEST

START_TEST(test_eof_toolong_timeout)
{
	struct conn	*c;
	struct cerr	 err;
	char		*line;

	pair();
	c = conn_new(sv[0], "peer");
	conn_set_maxline(c, 10);
	put("0123456789\n", 11);
	ck_assert_str_eq(getl(c), "0123456789");
	put("0123456789A", 11);
	ck_assert_int_eq(conn_getline(c, &line, &err), -1);
	ck_assert(conn_toolong(c));
	ck_assert(!conn_eof(c));
	conn_free(c);
	close(sv[1]);

	pair();
	c = conn_new(sv[0], "peer");
	conn_set_timeout(c, 100);
	ck_assert_int_eq(conn_getline(c, &line, &err), -1);
	ck_assert(!conn_eof(c));
	ck_assert_ptr_nonnull(strstr(err.msg, "timed out"));
	close(sv[1]);
	ck_assert_int_eq(conn_getline(c, &line, &err), -1);
	ck_assert(conn_eof(c));
	conn_free(c);
}
END_TEST

START_TEST(test_linetimes)
{
	struct conn	*c;
	struct cerr	 err;
	char		*line;

	/* Nothing comes: the wait for a line runs out. */
	pair();
	c = conn_new(sv[0], "peer");
	conn_set_linetimes(c, 100, 5000);
	ck_assert_int_eq(conn_getline(c, &line, &err), -1);
	ck_assert(!conn_eof(c));
	ck_assert_ptr_nonnull(strstr(err.msg, "no line in 0.1 s"));
	conn_free(c);
	close(sv[1]);

	/* A line begins and stalls: the line time runs out. */
	pair();
	c = conn_new(sv[0], "peer");
	conn_set_linetimes(c, 5000, 100);
	put("NOOP", 4);
	ck_assert_int_eq(conn_getline(c, &line, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg,
	    "line not complete 0.1 s after it began"));
	conn_free(c);
	close(sv[1]);

	/* Whole lines pass, and each waits afresh. */
	pair();
	c = conn_new(sv[0], "peer");
	conn_set_linetimes(c, 200, 100);
	put("NOOP\nQUIT\n", 10);
	ck_assert_str_eq(getl(c), "NOOP");
	ck_assert_str_eq(getl(c), "QUIT");
	conn_free(c);
	close(sv[1]);
}
END_TEST

/* Queue a compressed stream of n copies of text after "COMP\n". */
static void
put_zstream(const char *text, size_t n)
{
	struct zstream	*z;
	struct buf	*b;
	struct cerr	 err;
	size_t		 i, len = strlen(text);

	z = zstream_new(9, &err);
	b = buf_new(1 << 20);
	ck_assert_int_eq(buf_add(b, "COMP\n", 5), 0);
	for (i = 0; i < n; i++)
		ck_assert_int_eq(zstream_deflate(z, text, len, ZS_NOFLUSH, b,
		    &err), 0);
	ck_assert_int_eq(zstream_deflate(z, NULL, 0, ZS_SYNC, b, &err), 0);
	ck_assert_uint_lt(buf_len(b), 100000);
	put(buf_data(b), buf_len(b));
	buf_free(b);
	zstream_free(z);
}

START_TEST(test_zlib_linecap)
{
	struct conn		*c;
	struct connstats	 st;
	struct cerr		 err;
	char			*line;

	/* 8 MiB without a newline: no more than the cap is inflated. */
	pair();
	c = conn_new(sv[0], "peer");
	conn_set_maxline(c, 1000);
	put_zstream("AAAAAAAAAAAAAAAA", 512 * 1024);
	ck_assert_str_eq(getl(c), "COMP");
	ck_assert_int_eq(zconn_start(c, 6, 0, &err), 0);
	ck_assert_int_eq(conn_getline(c, &line, &err), -1);
	ck_assert(conn_toolong(c));
	conn_stats(c, &st);
	ck_assert_uint_le(st.raw_in, 5 + 1001);
	conn_free(c);
	close(sv[1]);
}
END_TEST

/*
 * 200000 NOOP lines, about 700:1, against a bound of 100:1: stopped
 * within the first windows (read-ahead inflated in one window is
 * credited to that one); with ahead, read through conn_readahead.
 */
static void
zratio_run(int ahead)
{
	struct conn	*c;
	struct cerr	 err;
	char		*line;
	size_t		 n;
	ssize_t		 r;

	pair();
	c = conn_new(sv[0], "peer");
	put_zstream("NOOP\r\n", 200000);
	close(sv[1]);
	ck_assert_str_eq(getl(c), "COMP");
	ck_assert_int_eq(zconn_start(c, 6, 100, &err), 0);
	if (ahead)
		ck_assert_int_eq(conn_readahead(c, &err), 0);
	for (n = 0; (r = conn_getline(c, &line, &err)) != -1; n++)
		ck_assert_str_eq(line, "NOOP");
	ck_assert_uint_lt(n, 3 * ZCONN_WINDOW / 6);
	ck_assert_ptr_nonnull(strstr(err.msg, "inflate more than 100:1"));
	conn_free(c);
}

START_TEST(test_zlib_ratio)
{
	struct conn	*c;
	struct cerr	 err;
	char		*line;
	size_t		 n;
	ssize_t		 r;

	zratio_run(0);

	/* Without the bound they are all read. */
	pair();
	c = conn_new(sv[0], "peer");
	put_zstream("NOOP\r\n", 200000);
	close(sv[1]);
	ck_assert_str_eq(getl(c), "COMP");
	ck_assert_int_eq(zconn_start(c, 6, 0, &err), 0);
	for (n = 0; (r = conn_getline(c, &line, &err)) != -1; n++)
		ck_assert_str_eq(line, "NOOP");
	ck_assert_uint_eq(n, 200000);
	ck_assert(conn_eof(c));
	conn_free(c);
}
END_TEST

/* Child: write lines and a large block compressed, changing level. */
static void
zwriter(int fd)
{
	struct conn	*c;
	struct cerr	 err;
	char		*big;
	size_t		 i;
	int		 ok = 1;

	c = conn_new(fd, "writer");
	big = xmalloc(1 << 20);
	for (i = 0; i < (1 << 20); i++)
		big[i] = (char)(i % 251 < 200 ? 'a' + i % 7 : i);
	ok &= conn_printf(c, &err, "320 go\r\n") == 0;
	ok &= zconn_start(c, 1, 0, &err) == 0;
	ok &= conn_printf(c, &err, "220 on\r\n") == 0;
	ok &= conn_write(c, big, 1 << 20, &err) == 0;
	ok &= zconn_set_level(c, 9, &err) == 0;
	ok &= conn_printf(c, &err, "after level change\r\n") == 0;
	ok &= conn_flush_full(c, &err) == 0;
	ok &= conn_printf(c, &err, "last\r\n") == 0;
	ok &= conn_flush(c, &err) == 0;
	_exit(ok ? 0 : 1);
}

/* Read what zwriter writes; with ahead, on a read-ahead thread. */
static void
zreader(int ahead, struct connstats *st)
{
	struct conn		*c;
	struct cerr		 err;
	char			*big;
	size_t			 got = 0, i;
	ssize_t			 n;
	pid_t			 pid;
	int			 status;

	pair();
	if ((pid = fork()) == 0) {
		close(sv[0]);
		zwriter(sv[1]);
	}
	close(sv[1]);
	c = conn_new(sv[0], "reader");
	ck_assert_str_eq(getl(c), "320 go");
	ck_assert_int_eq(zconn_start(c, 6, 0, &err), 0);
	ck_assert_str_eq(getl(c), "220 on");
	if (ahead)
		ck_assert_int_eq(conn_readahead(c, &err), 0);
	big = xmalloc(1 << 20);
	while (got < (1 << 20)) {
		n = conn_read(c, big + got, (1 << 20) - got, &err);
		ck_assert_int_gt(n, 0);
		got += (size_t)n;
	}
	for (i = 0; i < (1 << 20); i++)
		if (big[i] != (char)(i % 251 < 200 ? 'a' + i % 7 : i))
			ck_abort_msg("byte %zu differs", i);
	ck_assert_str_eq(getl(c), "after level change");
	ck_assert_str_eq(getl(c), "last");
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	/* Everything is in: the end of the stream is seen, and counted. */
	ck_assert_int_eq(conn_read(c, big, 1, &err), -1);
	ck_assert(conn_eof(c));
	conn_stats(c, st);
	ck_assert_uint_lt(st->wire_in * 4, st->raw_in);
	free(big);
	conn_free(c);
}

START_TEST(test_zlib_roundtrip)
{
	struct connstats	 st;

	zreader(0, &st);
}
END_TEST

START_TEST(test_zlib_thread)
{
	struct connstats	 st, st0;
	struct conn		*c;
	struct cerr		 err;
	char			*line;

	/* Through the ring (more than it holds): same bytes, same counts. */
	zreader(0, &st0);
	zreader(1, &st);
	ck_assert_uint_eq(st.raw_in, st0.raw_in);
	ck_assert_uint_eq(st.wire_in, st0.wire_in);

	/* Not for a connection without compression. */
	pair();
	c = conn_new(sv[0], "peer");
	ck_assert_int_eq(conn_readahead(c, &err), 1);
	conn_free(c);
	close(sv[1]);

	/* The inflate-ratio bound holds as when reading in place. */
	zratio_run(1);

	/* Silence: the reader's deadline, the words of a plain wait. */
	pair();
	c = conn_new(sv[0], "peer");
	conn_set_timeout(c, 200);
	put_zstream("NOOP\r\n", 1);
	ck_assert_str_eq(getl(c), "COMP");
	ck_assert_int_eq(zconn_start(c, 6, 0, &err), 0);
	ck_assert_int_eq(conn_readahead(c, &err), 0);
	ck_assert_str_eq(getl(c), "NOOP");
	ck_assert_int_eq(conn_getline(c, &line, &err), -1);
	ck_assert_str_eq(err.msg, "peer: timed out waiting for data");

	/* Garbage after it: the inflate error, once the lines are read. */
	put("\xff\xff\xff\xff", 4);
	ck_assert_int_eq(conn_getline(c, &line, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "peer: "));
	ck_assert(!conn_eof(c));
	conn_free(c);
	close(sv[1]);

	/* The peer gone in the middle of a line. */
	pair();
	c = conn_new(sv[0], "peer");
	put_zstream("NOOP\r\nNO", 1);
	close(sv[1]);
	ck_assert_str_eq(getl(c), "COMP");
	ck_assert_int_eq(zconn_start(c, 6, 0, &err), 0);
	ck_assert_int_eq(conn_readahead(c, &err), 0);
	ck_assert_str_eq(getl(c), "NOOP");
	ck_assert_int_eq(conn_getline(c, &line, &err), -1);
	ck_assert_str_eq(err.msg,
	    "peer: connection closed in the middle of a line");
	conn_free(c);
}
END_TEST

START_TEST(test_zlib_readahead)
{
	struct zstream	*z;
	struct buf	*b;
	struct conn	*c;
	struct cerr	 err;

	/* "COMP" line and compressed bytes arrive in one segment. */
	z = zstream_new(6, &err);
	b = buf_new(1 << 20);
	ck_assert_int_eq(buf_add(b, "COMP ZLIB 6\r\n", 13), 0);
	ck_assert_int_eq(zstream_deflate(z, "NOOP\r\nQUIT\r\n", 12, ZS_SYNC, b,
	    &err), 0);
	pair();
	c = conn_new(sv[0], "peer");
	put(buf_data(b), buf_len(b));
	ck_assert_str_eq(getl(c), "COMP ZLIB 6");
	ck_assert_int_eq(zconn_start(c, 6, 0, &err), 0);
	ck_assert_str_eq(getl(c), "NOOP");
	ck_assert_str_eq(getl(c), "QUIT");
	/* Garbage in the compressed stream is an error, not a line. */
	put("\xff\xff\xff\xff", 4);
	close(sv[1]);
	{
		char	*line;

		ck_assert_int_eq(conn_getline(c, &line, &err), -1);
	}
	conn_free(c);
	buf_free(b);
	zstream_free(z);
}
END_TEST

/*
 * Line deadlines hold the same when the read-ahead thread reads: its
 * time-out is the wait for a line, or for the rest of one.
 */
START_TEST(test_zlib_readahead_linetimes)
{
	struct zstream	*z;
	struct buf	*b;
	struct conn	*c;
	struct cerr	 err;
	char		*line;
	int		 i;

	for (i = 0; i < 2; i++) {
		z = zstream_new(6, &err);
		b = buf_new(1 << 20);
		ck_assert_int_eq(buf_add(b, "COMP ZLIB 6\r\n", 13), 0);
		ck_assert_int_eq(zstream_deflate(z, "NOOP\r\nNO", i == 0 ?
		    6 : 8, ZS_SYNC, b, &err), 0);
		pair();
		c = conn_new(sv[0], "peer");
		put(buf_data(b), buf_len(b));
		ck_assert_str_eq(getl(c), "COMP ZLIB 6");
		ck_assert_int_eq(zconn_start(c, 6, 0, &err), 0);
		ck_assert_int_eq(conn_readahead(c, &err), 0);
		ck_assert_str_eq(getl(c), "NOOP");
		if (i == 0) {
			/* Nothing more comes: the wait for a line runs out. */
			conn_set_linetimes(c, 100, 5000);
			ck_assert_int_eq(conn_getline(c, &line, &err), -1);
			ck_assert_str_eq(err.msg, "peer: no line in 0.1 s");
		} else {
			/* "NO" and no more: the line time runs out. */
			conn_set_linetimes(c, 5000, 100);
			ck_assert_int_eq(conn_getline(c, &line, &err), -1);
			ck_assert_str_eq(err.msg,
			    "peer: line not complete 0.1 s after it began");
		}
		ck_assert(!conn_eof(c));
		conn_free(c);
		close(sv[1]);
		buf_free(b);
		zstream_free(z);
	}
}
END_TEST

START_TEST(test_proto)
{
	struct conn	*c;
	struct cerr	 err;
	char		 line[64], *av[4], *text;
	uint64_t	 caps;
	int64_t		 v;
	int		 code;

	strcpy(line, " RETR\tFILE  a\nb ");
	ck_assert_int_eq(proto_split(line, av, 4), 4);
	ck_assert_str_eq(av[0], "RETR");
	ck_assert_str_eq(av[3], "b");
	strcpy(line, "a b c");
	ck_assert_int_eq(proto_split(line, av, 2), -1);
	strcpy(line, "  ");
	ck_assert_int_eq(proto_split(line, av, 2), 0);

	ck_assert(proto_verb_is("stat", "STATUS", 4));
	ck_assert(proto_verb_is("STATUS", "STATUS", 4));
	ck_assert(!proto_verb_is("STA", "STATUS", 4));
	ck_assert(!proto_verb_is("STATUSX", "STATUS", 4));
	ck_assert(proto_cap_match("zlib", "ZLIB"));
	ck_assert(proto_cap_match("ZL", "ZLIB"));
	ck_assert(!proto_cap_match("REPO", "ZLIB"));

	ck_assert_int_eq(proto_parse_size("0", &v), 0);
	ck_assert_int_eq(proto_parse_size("9223372036854775807", &v), 0);
	ck_assert(v == INT64_MAX);
	ck_assert_int_eq(proto_parse_size("9223372036854775808", &v), -1);
	ck_assert_int_eq(proto_parse_size("-1", &v), -1);
	ck_assert_int_eq(proto_parse_size(" 12", &v), -1);
	ck_assert_int_eq(proto_parse_size("12 ", &v), -1);
	ck_assert_int_eq(proto_parse_size("1e3", &v), -1);
	ck_assert_int_eq(proto_parse_size("", &v), -1);

	pair();
	c = conn_new(sv[0], "peer");
	text = "200-RAP 1 h v radmind access protocol\r\n"
	    "200 capa zlib REPO\r\n"
	    "200 RAP 1 old server\r\n"
	    "230-one\r\n230-two\r\n230 three\r\n"
	    "23x bad\r\n";
	put(text, strlen(text));
	ck_assert_int_eq(proto_banner(c, &caps, &err), 0);
	ck_assert_uint_eq(caps, PROTO_CAP_ZLIB | PROTO_CAP_REPO);
	ck_assert_int_eq(proto_banner(c, &caps, &err), 0);
	ck_assert_uint_eq(caps, 0);
	ck_assert_int_eq(proto_reply(c, &code, &text, &err), 0);
	ck_assert_int_eq(code, 230);
	ck_assert_str_eq(text, "230 three");
	ck_assert_int_eq(proto_reply(c, &code, &text, &err), -1);
	conn_free(c);
	close(sv[1]);
}
END_TEST

/*
 * A reply has one budget: continuation lines without end, a reply
 * larger than the byte cap, and lines that each come in time but never
 * finish the reply are errors naming the peer.
 */
START_TEST(test_reply_budget)
{
	struct conn	*c;
	struct cerr	 err;
	uint64_t	 caps;
	char		*text;
	int		 code, i;
	pid_t		 pid;

	/* A flood of "230-" lines: stopped at the line cap. */
	pair();
	c = conn_new(sv[0], "peer[127.0.0.1]");
	for (i = 0; i < PROTO_REPLY_MAXLINES + 8; i++)
		put("230-more\r\n", 10);
	ck_assert_int_eq(proto_reply(c, &code, &text, &err), -1);
	ck_assert_msg(strstr(err.msg, "peer[127.0.0.1]: reply longer than") ==
	    err.msg, "message: %s", err.msg);
	conn_free(c);
	close(sv[1]);

	/* The same in a banner. */
	pair();
	c = conn_new(sv[0], "peer");
	for (i = 0; i < PROTO_REPLY_MAXLINES + 8; i++)
		put("200-more\r\n", 10);
	ck_assert_int_eq(proto_banner(c, &caps, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "reply longer than"));
	conn_free(c);
	close(sv[1]);

	/* Few lines, too many bytes. */
	pair();
	c = conn_new(sv[0], "peer");
	conn_set_maxline(c, 1 << 20);
	{
		static char	 big[PROTO_REPLY_MAXBYTES + 16];

		memset(big, 'y', sizeof(big));
		memcpy(big, "230-", 4);
		big[sizeof(big) - 1] = '\n';
		if (fork() == 0) {
			close(sv[0]);
			(void)write(sv[1], big, sizeof(big));
			_exit(0);
		}
	}
	ck_assert_int_eq(proto_reply(c, &code, &text, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "reply longer than"));
	conn_free(c);
	close(sv[1]);
	(void)wait(NULL);

	/*
	 * Lines that each arrive well within the timeout, but the reply as
	 * a whole does not end before it: an error, not a wait for ever.
	 */
	pair();
	c = conn_new(sv[0], "peer");
	conn_set_timeout(c, 600);
	if ((pid = fork()) == 0) {
		close(sv[0]);
		for (i = 0; i < 12; i++) {
			usleep(150 * 1000);
			if (write(sv[1], "230-slow\r\n", 10) != 10)
				_exit(0);
		}
		(void)write(sv[1], "230 done\r\n", 10);
		_exit(0);
	}
	close(sv[1]);
	ck_assert_int_eq(proto_reply(c, &code, &text, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "peer: "));
	conn_free(c);
	kill(pid, SIGKILL);
	(void)waitpid(pid, NULL, 0);
}
END_TEST

/* What a trace callback saw: "<dir>:<line>" for each call, one a line. */
struct tracelog {
	char	 text[256];
	size_t	 len;
	int	 calls;
};

static void
trace_cb(void *arg, int dir, const char *line, size_t len)
{
	struct tracelog	*t = arg;
	int		 n;

	n = snprintf(t->text + t->len, sizeof(t->text) - t->len, "%s:%.*s\n",
	    dir == CONN_TRACE_IN ? "in" : dir == CONN_TRACE_OUT ? "out" : "?",
	    (int)len, line);
	ck_assert(n > 0 && (size_t)n < sizeof(t->text) - t->len);
	t->len += (size_t)n;
	t->calls++;
}

/*
 * The callback sees the lines read and the lines sent (terminator
 * stripped, length given), never block data; without one, nothing.
 */
START_TEST(test_trace_callback)
{
	struct tracelog	 t;
	struct conn	*c;
	struct cerr	 err;
	char		 b[64];
	ssize_t		 n;

	memset(&t, 0, sizeof(t));
	pair();
	c = conn_new(sv[0], "peer");
	conn_set_trace(c, trace_cb, &t);
	ck_assert_int_eq(conn_printf(c, &err, "STAT %s\r\n", "x.T"), 0);
	ck_assert_int_eq(conn_write(c, "raw\n", 4, &err), 0);
	ck_assert_int_eq(conn_flush(c, &err), 0);
	n = read(sv[1], b, sizeof(b));
	ck_assert_int_eq(n, 14);
	ck_assert_mem_eq(b, "STAT x.T\r\nraw\n", 14);
	put("230 ok\r\n3\nabc.\n", 15);
	ck_assert_str_eq(getl(c), "230 ok");
	ck_assert_str_eq(getl(c), "3");
	ck_assert_int_eq(conn_read(c, b, 3, &err), 3);
	ck_assert_str_eq(getl(c), ".");
	ck_assert_str_eq(t.text, "out:STAT x.T\nin:230 ok\nin:3\nin:.\n");

	conn_set_trace(c, NULL, NULL);
	put("quiet\n", 6);
	ck_assert_str_eq(getl(c), "quiet");
	ck_assert_int_eq(conn_printf(c, &err, "QUIT\r\n"), 0);
	ck_assert_int_eq(t.calls, 4);
	conn_free(c);
	close(sv[1]);
}
END_TEST

static Suite *
conn_suite(void)
{
	Suite	*s = suite_create("conn");
	TCase	*tc;

	signal(SIGPIPE, SIG_IGN);
	tc = tcase_create("lines");
	/* bounded work, but a loaded machine or a sanitizer build is slow */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_terminators);
	tcase_add_test(tc, test_block_after_line);
	tcase_add_test(tc, test_eof_toolong_timeout);
	tcase_add_test(tc, test_linetimes);
	suite_add_tcase(s, tc);

	tc = tcase_create("zlib");
	/* bounded work, but a loaded machine or a sanitizer build is slow */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_zlib_roundtrip);
	tcase_add_test(tc, test_zlib_thread);
	tcase_add_test(tc, test_zlib_readahead);
	tcase_add_test(tc, test_zlib_readahead_linetimes);
	tcase_add_test(tc, test_zlib_linecap);
	tcase_add_test(tc, test_zlib_ratio);
	suite_add_tcase(s, tc);

	tc = tcase_create("proto");
	/* bounded work, but a loaded machine or a sanitizer build is slow */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_proto);
	tcase_add_test(tc, test_reply_budget);
	tcase_add_test(tc, test_trace_callback);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(conn_suite());
}
