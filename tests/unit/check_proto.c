/*
 * check_proto.c: the RAP layer over a connection (common/proto.c): reply
 * codes and continuation lines, the budget of one reply, size lines,
 * tokens and verbs, the banner and its capabilities, quoting what a peer
 * sent, and the -v / -d trace.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "conn.h"
#include "log.h"
#include "proto.h"
#include "unit.h"

static int	 sv[2];

/* A connection named "peer" on one end of a socketpair; the other is sv[1]. */
static struct conn *
pair(void)
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	return conn_new(sv[0], "peer");
}

static void
put(const void *p, size_t n)
{
	ck_assert_int_eq(write(sv[1], p, n), (ssize_t)n);
}

static void
unpair(struct conn *c)
{
	conn_free(c);
	close(sv[1]);
}

/*
 * More than a socket buffer holds: a child writes n bytes at p, times
 * times, and exits; the connection (line cap 1 MiB) reads them.
 */
static struct conn *
writer(const void *p, size_t n, int times, pid_t *pid)
{
	struct conn	*c;
	int		 i;

	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	if ((*pid = fork()) == 0) {
		close(sv[0]);
		for (i = 0; i < times; i++)
			if (write(sv[1], p, n) != (ssize_t)n)
				_exit(1);
		_exit(0);
	}
	ck_assert_int_ne(*pid, -1);
	close(sv[1]);
	c = conn_new(sv[0], "peer");
	conn_set_maxline(c, 1 << 20);
	return c;
}

/* Nonzero if s holds nothing but printable ASCII. */
static int
printable(const char *s)
{
	for (; *s != '\0'; s++)
		if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
			return 0;
	return 1;
}

/*
 * One reply of n bytes: proto_reply must give code and the last line
 * (code -1: it must fail, with a message naming the peer).
 */
static void
reply_is(const char *bytes, size_t n, int want, const char *text)
{
	struct conn	*c = pair();
	struct cerr	 err = { "" };
	char		*t;
	int		 code = -2, r;

	put(bytes, n);
	close(sv[1]);
	r = proto_reply(c, &code, &t, &err);
	if (want == -1) {
		ck_assert_msg(r == -1, "reply \"%.*s\" taken as code %d",
		    (int)n, bytes, code);
		ck_assert_msg(strncmp(err.msg, "peer: ", 6) == 0,
		    "reply \"%.*s\": message \"%s\" names no peer", (int)n,
		    bytes, err.msg);
	} else {
		ck_assert_msg(r == 0, "reply \"%.*s\" refused: %s", (int)n,
		    bytes, err.msg);
		ck_assert_int_eq(code, want);
		ck_assert_str_eq(t, text);
	}
	conn_free(c);
}

#define REPLY_IS(s, want, text)	reply_is((s), sizeof(s) - 1, (want), (text))

/* Three ASCII digits, then a space, the end, or '-' and more lines. */
START_TEST(test_reply_codes)
{
	REPLY_IS("230 Returning STAT information\r\n", 230,
	    "230 Returning STAT information");
	REPLY_IS("200\r\n", 200, "200");
	REPLY_IS("200 \n", 200, "200 ");
	REPLY_IS("540 no\r", 540, "540 no");
	REPLY_IS("999 top\n", 999, "999 top");
	REPLY_IS("000 zero\n", 0, "000 zero");

	/* Short, non-digit, a bad fourth byte, over-long codes. */
	REPLY_IS("\r\n", -1, NULL);
	REPLY_IS("2\r\n", -1, NULL);
	REPLY_IS("20\r\n", -1, NULL);
	REPLY_IS("20 ok\r\n", -1, NULL);
	REPLY_IS("2x0 ok\r\n", -1, NULL);
	REPLY_IS("x30 ok\r\n", -1, NULL);
	REPLY_IS("23x ok\r\n", -1, NULL);
	REPLY_IS(" 230 ok\r\n", -1, NULL);
	REPLY_IS("+23 ok\r\n", -1, NULL);
	REPLY_IS("-23 ok\r\n", -1, NULL);
	REPLY_IS("2300 ok\r\n", -1, NULL);
	REPLY_IS("23000\r\n", -1, NULL);
	REPLY_IS("230\tok\r\n", -1, NULL);
	REPLY_IS("230_ok\r\n", -1, NULL);
	REPLY_IS("230+\r\n", -1, NULL);
	REPLY_IS("230\x1b[2J\r\n", -1, NULL);
	REPLY_IS("\xd9\xa2\xd9\xa3\xd9\xa0 ok\r\n", -1, NULL);
	REPLY_IS("\xff\xff\xff ok\r\n", -1, NULL);
	REPLY_IS("SSH-2.0-OpenSSH_9.2\r\n", -1, NULL);
	/* Nothing at all, a reply cut in the middle, a line without end. */
	REPLY_IS("", -1, NULL);
	REPLY_IS("230-more\r\n", -1, NULL);
	REPLY_IS("202 ok", -1, NULL);
}
END_TEST

/*
 * A NUL byte ends a line as LF does (docs/protocol.md section 2): the
 * bytes after it are the next line, never the rest of this reply.
 */
START_TEST(test_reply_nul)
{
	struct conn	*c;
	struct cerr	 err;
	char		*t;
	int		 code;

	c = pair();
	put("230\0 text\r\n", 11);
	ck_assert_int_eq(proto_reply(c, &code, &t, &err), 0);
	ck_assert_int_eq(code, 230);
	ck_assert_str_eq(t, "230");
	ck_assert_int_eq(proto_reply(c, &code, &t, &err), -1);
	ck_assert_ptr_nonnull(strstr(err.msg, "bad reply"));
	unpair(c);

	REPLY_IS("23\0" "0 ok\r\n", -1, NULL);
	REPLY_IS("\0" "230 ok\r\n", -1, NULL);
	/* A continuation cut by a NUL: the rest is no reply line. */
	REPLY_IS("230-a\0b\r\n230 c\r\n", -1, NULL);
}
END_TEST

START_TEST(test_reply_continuation)
{
	/* The code and text are the last line's, whatever came before. */
	REPLY_IS("230-one\r\n230-two\r\n230 three\r\n", 230, "230 three");
	REPLY_IS("220-a\n540 refused\n", 540, "540 refused");
	REPLY_IS("230-\r\n230\r\n", 230, "230");
	REPLY_IS("230-a\r230-b\n230 c\r\n", 230, "230 c");
	/* Each line must be a reply line. */
	REPLY_IS("230-one\r\nfoo\r\n230 two\r\n", -1, NULL);
	REPLY_IS("230-one\r\n\r\n230 two\r\n", -1, NULL);
	REPLY_IS("230-one\r\n230x two\r\n", -1, NULL);
	REPLY_IS("230-one\r\n 230 two\r\n", -1, NULL);
	/* The peer closes before the last line. */
	REPLY_IS("230-one\r\n230-two\r\n", -1, NULL);
}
END_TEST

/*
 * What is quoted of a line that is no reply: printable, escaped, cut
 * short, and with the peer's name first.
 */
START_TEST(test_reply_bad_quoted)
{
	struct conn	*c;
	struct cerr	 err;
	char		*t, line[400];
	int		 code;

	c = pair();
	put("\x1b]0;owned\x07\x1b[2J\"\\\xff\r\n", 19);
	ck_assert_int_eq(proto_reply(c, &code, &t, &err), -1);
	ck_assert_str_eq(err.msg, "peer: bad reply \"\\x1b]0;owned\\x07"
	    "\\x1b[2J\\x22\\x5c\\xff\"");
	unpair(c);

	/* A long line: cut, and the message still ends in a quote. */
	memset(line, '\x1b', sizeof(line));
	memcpy(line + sizeof(line) - 2, "\r\n", 2);
	c = pair();
	put(line, sizeof(line));
	ck_assert_int_eq(proto_reply(c, &code, &t, &err), -1);
	ck_assert_msg(printable(err.msg), "unprintable: %s", err.msg);
	ck_assert_ptr_nonnull(strstr(err.msg, "...\""));
	ck_assert_uint_lt(strlen(err.msg), 300);
	unpair(c);
}
END_TEST

/* The line cap: 64 lines in all, the 65th refused, not read. */
START_TEST(test_reply_lines_cap)
{
	struct conn		*c;
	struct proto_budget	 b;
	struct cerr		 err;
	char			*t, *line;
	int			 code, i;

	c = pair();
	for (i = 0; i < PROTO_REPLY_MAXLINES - 1; i++)
		put("230-more\r\n", 10);
	put("230 last\r\n", 10);
	ck_assert_int_eq(proto_reply(c, &code, &t, &err), 0);
	ck_assert_int_eq(code, 230);
	ck_assert_str_eq(t, "230 last");
	/* The next reply has a budget of its own. */
	put("202 ok\r\n", 8);
	ck_assert_int_eq(proto_reply(c, &code, &t, &err), 0);
	ck_assert_int_eq(code, 202);
	unpair(c);

	c = pair();
	for (i = 0; i < PROTO_REPLY_MAXLINES; i++)
		put("230-more\r\n", 10);
	put("230 last\r\n", 10);
	ck_assert_int_eq(proto_reply(c, &code, &t, &err), -1);
	ck_assert_str_eq(err.msg, "peer: reply longer than 64 lines");
	unpair(c);

	/*
	 * The lines that follow a reply share its budget: a RETR reply of
	 * 62 lines leaves room for a size line and the "." line, no more.
	 */
	c = pair();
	for (i = 0; i < PROTO_REPLY_MAXLINES - 3; i++)
		put("240-more\r\n", 10);
	put("240 Retrieving file\r\n3\r\n.\r\nextra\r\n", 34);
	proto_budget_init(c, &b);
	ck_assert_int_eq(proto_reply_in(c, &b, &code, &t, &err), 0);
	ck_assert_int_eq(code, 240);
	ck_assert_int_eq(proto_line(c, &b, &line, &err), 0);
	ck_assert_str_eq(line, "3");
	ck_assert_int_eq(proto_line(c, &b, &line, &err), 0);
	ck_assert_str_eq(line, ".");
	ck_assert_int_eq(proto_line(c, &b, &line, &err), -1);
	ck_assert_str_eq(err.msg, "peer: reply longer than 64 lines");
	unpair(c);
}
END_TEST

/* The byte cap counts every line of the reply, and its terminator. */
START_TEST(test_reply_bytes_cap)
{
	struct conn		*c;
	struct proto_budget	 b;
	struct cerr		 err;
	static char		 big[PROTO_REPLY_MAXBYTES];
	char			*t, *line;
	int			 code;
	pid_t			 pid;

	/* One line of 40000 bytes fits; another of 40000 does not. */
	memset(big, 'y', sizeof(big));
	memcpy(big, "230-", 4);
	big[40000] = '\n';
	c = writer(big, 40001, 2, &pid);
	proto_budget_init(c, &b);
	ck_assert_int_eq(proto_line(c, &b, &line, &err), 0);
	ck_assert_uint_eq(strlen(line), 40000);
	ck_assert_uint_eq(b.bytes, PROTO_REPLY_MAXBYTES - 40001);
	ck_assert_int_eq(proto_line(c, &b, &line, &err), -1);
	ck_assert_str_eq(err.msg, "peer: reply longer than 65536 bytes");
	conn_free(c);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);

	/* A reply just under the cap is whole. */
	memset(big, 'z', sizeof(big));
	memcpy(big, "230-", 4);
	big[PROTO_REPLY_MAXBYTES - 100] = '\n';
	memcpy(big + PROTO_REPLY_MAXBYTES - 99, "230 done\r\n", 10);
	c = writer(big, PROTO_REPLY_MAXBYTES - 89, 1, &pid);
	ck_assert_int_eq(proto_reply(c, &code, &t, &err), 0);
	ck_assert_int_eq(code, 230);
	ck_assert_str_eq(t, "230 done");
	conn_free(c);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
}
END_TEST

/* A budget whose deadline has passed reads nothing, even a line at hand. */
START_TEST(test_reply_deadline)
{
	struct conn		*c;
	struct proto_budget	 b;
	struct cerr		 err;
	char			*line;

	c = pair();
	put("230 ok\r\n", 8);
	proto_budget_init(c, &b);
	ck_assert_int_eq(proto_line(c, &b, &line, &err), 0);
	put("230 ok\r\n", 8);
	b.deadline = conn_now() - 1;
	ck_assert_int_eq(proto_line(c, &b, &line, &err), -1);
	ck_assert_str_eq(err.msg, "peer: reply not complete in time");

	/* No deadline: whatever the clock says. */
	b.deadline = -1;
	ck_assert_int_eq(proto_line(c, &b, &line, &err), 0);
	ck_assert_str_eq(line, "230 ok");

	/* A line that does not come in time. */
	conn_set_timeout(c, 100);
	proto_budget_init(c, &b);
	put("230 o", 5);
	ck_assert_int_eq(proto_line(c, &b, &line, &err), -1);
	ck_assert_str_eq(err.msg, "peer: reply not complete in time");
	unpair(c);
}
END_TEST

/* Nothing but decimal digits, at most 2^63 - 1 (docs/protocol.md). */
START_TEST(test_parse_size)
{
	static const struct {
		const char	*s;
		int64_t		 v;
	} good[] = {
		{ "0", 0 },
		{ "7", 7 },
		{ "00", 0 },
		{ "0012", 12 },
		{ "4096", 4096 },
		{ "2147483648", 2147483648LL },
		{ "4294967296", 4294967296LL },
		{ "9223372036854775806", INT64_MAX - 1 },
		{ "9223372036854775807", INT64_MAX },
		/* Leading zeros do not count against the bound. */
		{ "000000000000000000000000009223372036854775807", INT64_MAX },
	};
	static const char *const bad[] = {
		"", "-1", "-0", "+1", "abc", "1e3", "1E3", " 12", "12 ", "\t12",
		"12\t", "12 junk", "12junk", "0x10", "1.0", "1,000", "1_000",
		"\xef\xbc\x91", "1\xff", "\xd9\xa1",
		"9223372036854775808",		/* INT64_MAX + 1 */
		"9223372036854775810",
		"9223372036854775817",
		"18446744073709551615",		/* UINT64_MAX */
		"18446744073709551616",		/* wraps to 0 in 64 bits */
		"36893488147419103232",		/* 2^65: wraps to 0 too */
		"99999999999999999999",		/* twenty digits */
		"92233720368547758070",
		"100000000000000000000000000000000000000000",
	};
	int64_t	 v;
	size_t	 i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
		v = -1;
		ck_assert_msg(proto_parse_size(good[i].s, &v) == 0,
		    "\"%s\" refused", good[i].s);
		ck_assert_msg(v == good[i].v, "\"%s\": %lld", good[i].s,
		    (long long)v);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		v = -1;
		ck_assert_msg(proto_parse_size(bad[i], &v) == -1,
		    "\"%s\" taken as %lld", bad[i], (long long)v);
	}
}
END_TEST

START_TEST(test_split)
{
	char	 line[128], *av[PROTO_MAXARGS + 1];
	int	 i;

	strcpy(line, "RETR FILE a.T");
	ck_assert_int_eq(proto_split(line, av, PROTO_MAXARGS), 3);
	ck_assert_str_eq(av[0], "RETR");
	ck_assert_str_eq(av[1], "FILE");
	ck_assert_str_eq(av[2], "a.T");
	/* In place: the tokens point into the line. */
	ck_assert_ptr_eq(av[0], line);
	ck_assert_ptr_eq(av[2], line + 10);

	/* Runs of spaces, tabs and LF; no empty tokens. */
	strcpy(line, " \t STAT\t\tTRANSCRIPT\n\nx.T \t\n");
	ck_assert_int_eq(proto_split(line, av, PROTO_MAXARGS), 3);
	ck_assert_str_eq(av[0], "STAT");
	ck_assert_str_eq(av[1], "TRANSCRIPT");
	ck_assert_str_eq(av[2], "x.T");

	/* CR, backslash and other bytes are part of a token. */
	strcpy(line, "a\rb c\\ d\x01" "e \xff");
	ck_assert_int_eq(proto_split(line, av, PROTO_MAXARGS), 4);
	ck_assert_str_eq(av[0], "a\rb");
	ck_assert_str_eq(av[1], "c\\");
	ck_assert_str_eq(av[2], "d\x01" "e");
	ck_assert_str_eq(av[3], "\xff");

	strcpy(line, "");
	ck_assert_int_eq(proto_split(line, av, PROTO_MAXARGS), 0);
	strcpy(line, " \t\n ");
	ck_assert_int_eq(proto_split(line, av, PROTO_MAXARGS), 0);
	strcpy(line, "x");
	ck_assert_int_eq(proto_split(line, av, 0), -1);
	strcpy(line, "  ");
	ck_assert_int_eq(proto_split(line, av, 0), 0);

	/* Exactly max tokens; one more is an error, trailing blanks not. */
	strcpy(line, "1 2 3 4 5 6 7 8   ");
	ck_assert_int_eq(proto_split(line, av, PROTO_MAXARGS), PROTO_MAXARGS);
	for (i = 0; i < PROTO_MAXARGS; i++)
		ck_assert_int_eq(av[i][0], '1' + i);
	strcpy(line, "1 2 3 4 5 6 7 8 9");
	ck_assert_int_eq(proto_split(line, av, PROTO_MAXARGS), -1);
}
END_TEST

START_TEST(test_verbs_caps)
{
	ck_assert(proto_verb_is("STATUS", "STATUS", 4));
	ck_assert(proto_verb_is("status", "STATUS", 4));
	ck_assert(proto_verb_is("StAt", "STATUS", 4));
	ck_assert(proto_verb_is("STATU", "STATUS", 4));
	ck_assert(!proto_verb_is("STA", "STATUS", 4));
	ck_assert(!proto_verb_is("STATUSX", "STATUS", 4));
	ck_assert(!proto_verb_is("STATX", "STATUS", 4));
	ck_assert(!proto_verb_is("STOP", "STATUS", 2));
	ck_assert(!proto_verb_is("", "STATUS", 1));
	ck_assert(proto_verb_is("R", "RETRIEVE", 1));
	ck_assert(!proto_verb_is("RETR ", "RETRIEVE", 4));

	/* Radmind's rule: the entry's first four bytes, or all of it. */
	ck_assert(proto_cap_match("ZLIB", "ZLIB"));
	ck_assert(proto_cap_match("zlib", "ZLIB"));
	ck_assert(proto_cap_match("Z", "ZLIB"));
	ck_assert(proto_cap_match("ZLIBX", "ZLIB"));
	ck_assert(proto_cap_match("repository", "REPO"));
	ck_assert(!proto_cap_match("", "ZLIB"));
	ck_assert(!proto_cap_match("ZAUTO", "ZLIB"));
	ck_assert(!proto_cap_match("REPO", "ZLIB"));
	ck_assert(!proto_cap_match("ZLIX", "ZLIB"));
}
END_TEST

/* proto_banner on bytes; returns its result, caps and message. */
static int
banner(const char *bytes, size_t n, int keep_open, uint64_t *caps,
    struct cerr *err)
{
	struct conn	*c = pair();
	int		 r;

	put(bytes, n);
	if (!keep_open)
		close(sv[1]);
	conn_set_timeout(c, 600);
	*caps = 0xdead;
	r = proto_banner(c, caps, err);
	conn_free(c);
	if (keep_open)
		close(sv[1]);
	return r;
}

#define BANNER(s, caps, err)	banner((s), sizeof(s) - 1, 0, (caps), (err))

START_TEST(test_banner_caps)
{
	struct cerr	 err;
	uint64_t	 caps;

	ck_assert_int_eq(BANNER("200 RAP 1 h 1.14 radmind access protocol\r\n",
	    &caps, &err), 0);
	ck_assert_uint_eq(caps, 0);

	ck_assert_int_eq(BANNER("200-RAP 1 h cairn radmind access protocol\r\n"
	    "200 CAPA ZLIB REPO ZAUTO\r\n", &caps, &err), 0);
	ck_assert_uint_eq(caps, PROTO_CAP_ZLIB | PROTO_CAP_REPO |
	    PROTO_CAP_ZAUTO);

	/* The word may be abbreviated, any case, anywhere in the banner. */
	ck_assert_int_eq(BANNER("200-capab zlib\r\n200-\r\n200 RAP 1 h\r\n",
	    &caps, &err), 0);
	ck_assert_uint_eq(caps, PROTO_CAP_ZLIB);
	ck_assert_int_eq(BANNER("200-CAPA\r\n200 \r\n", &caps, &err), 0);
	ck_assert_uint_eq(caps, 0);

	/* ZAUTO is cairn's: the whole name, no prefix rule. */
	ck_assert_int_eq(BANNER("200 CAPA ZAUT zauto\r\n", &caps, &err), 0);
	ck_assert_uint_eq(caps, PROTO_CAP_ZAUTO);
	ck_assert_int_eq(BANNER("200 CAPA ZAUTOMATIC\r\n", &caps, &err), 0);
	ck_assert_uint_eq(caps, 0);

	/* So is DELTA, listed after the other words. */
	ck_assert_int_eq(BANNER("200-RAP 1 h cairn radmind access protocol\r\n"
	    "200 CAPA ZLIB REPO ZAUTO DELTA\r\n", &caps, &err), 0);
	ck_assert_uint_eq(caps, PROTO_CAP_ZLIB | PROTO_CAP_REPO |
	    PROTO_CAP_ZAUTO | PROTO_CAP_DELTA);
	ck_assert_int_eq(BANNER("200 CAPA delta\r\n", &caps, &err), 0);
	ck_assert_uint_eq(caps, PROTO_CAP_DELTA);
	ck_assert_int_eq(BANNER("200 CAPA DELT DELTAS\r\n", &caps, &err), 0);
	ck_assert_uint_eq(caps, 0);

	/* ZSTD=<max> is cairn's: the name, "=", 1 to 99; else no offer. */
	ck_assert_int_eq(BANNER("200-RAP 1 h cairn radmind access protocol\r\n"
	    "200 CAPA ZLIB REPO ZAUTO ZSTD=3 DELTA\r\n", &caps, &err), 0);
	ck_assert_uint_eq(caps & 0xff, PROTO_CAP_ZLIB | PROTO_CAP_REPO |
	    PROTO_CAP_ZAUTO | PROTO_CAP_ZSTD | PROTO_CAP_DELTA);
	ck_assert_uint_eq(PROTO_CAP_ZSTDMAX(caps), 3);
	ck_assert_int_eq(BANNER("200 CAPA zstd=19\r\n", &caps, &err), 0);
	ck_assert_uint_eq(caps, PROTO_CAP_ZSTD | (19U << 8));
	ck_assert_int_eq(BANNER("200 CAPA ZSTD ZSTD= ZSTD=0 ZSTD=100 ZSTD=-1 "
	    "ZSTD=+3 ZSTD=3x ZSTD=999999999999 ZSTDX=3 ZST=3\r\n", &caps,
	    &err), 0);
	ck_assert_uint_eq(caps, 0);
	/* Not ZLIB to the prefix rule either. */
	ck_assert_int_eq(BANNER("200 CAPA REPO ZSTD=3\r\n", &caps, &err), 0);
	ck_assert_uint_eq(caps, PROTO_CAP_REPO | PROTO_CAP_ZSTD | (3U << 8));

	/* ZDICT=<bytes>: 1 to 1048576, kept in KiB rounded up. */
	ck_assert_int_eq(BANNER("200 CAPA ZLIB REPO ZSTD=3 ZDICT=114688\r\n",
	    &caps, &err), 0);
	ck_assert(caps & PROTO_CAP_ZDICT);
	ck_assert_uint_eq(PROTO_CAP_ZDICTKB(caps), 112);
	ck_assert_uint_eq(PROTO_CAP_ZSTDMAX(caps), 3);
	ck_assert_int_eq(BANNER("200 CAPA zdict=1\r\n", &caps, &err), 0);
	ck_assert_uint_eq(caps, PROTO_CAP_ZDICT | (1U << 16));
	ck_assert_int_eq(BANNER("200 CAPA ZDICT=1048576\r\n", &caps, &err), 0);
	ck_assert_uint_eq(PROTO_CAP_ZDICTKB(caps), 1024);
	ck_assert_int_eq(BANNER("200 CAPA ZDICT ZDICT= ZDICT=0 ZDICT=1048577 "
	    "ZDICT=-1 ZDICT=1k ZDICT=99999999999999 ZDICTX=3 ZDIC=3\r\n",
	    &caps, &err), 0);
	ck_assert_uint_eq(caps, 0);
	/* ZDICTID=<id>: 1 to 2^31 - 1, the dictionary's zstd ID. */
	ck_assert_int_eq(BANNER("200 CAPA ZSTD=3 ZDICT=1048576 "
	    "ZDICTID=2147483647\r\n", &caps, &err), 0);
	ck_assert_uint_eq(PROTO_CAP_ZDICTID(caps), 2147483647U);
	ck_assert_uint_eq(PROTO_CAP_ZDICTKB(caps), 1024);
	ck_assert_uint_eq(PROTO_CAP_ZSTDMAX(caps), 3);
	ck_assert_int_eq(BANNER("200 CAPA zdictid=32768\r\n", &caps, &err), 0);
	ck_assert_uint_eq(caps, (uint64_t)32768 << 32);
	ck_assert_int_eq(BANNER("200 CAPA ZDICTID ZDICTID= ZDICTID=0 "
	    "ZDICTID=2147483648 ZDICTID=4294967297 ZDICTID=99999999999999999999 "
	    "ZDICTID=-5 ZDICTID=5x\r\n", &caps, &err), 0);
	ck_assert_uint_eq(caps, 0);

	/* Capability names on a line that is no CAPA line count for nothing. */
	ck_assert_int_eq(BANNER("200-RAP 1 ZLIB REPO\r\n200 hello ZAUTO\r\n",
	    &caps, &err), 0);
	ck_assert_uint_eq(caps, 0);
	ck_assert_int_eq(BANNER("200 CAPAX ZLIB\r\n", &caps, &err), 0);
	ck_assert_uint_eq(caps, 0);

	/* The banner ends at its last line: what follows is not read. */
	ck_assert_int_eq(BANNER("200 RAP 1\r\n200 CAPA ZLIB\r\n", &caps,
	    &err), 0);
	ck_assert_uint_eq(caps, 0);
}
END_TEST

START_TEST(test_banner_refused)
{
	struct cerr	 err;
	uint64_t	 caps;

	/* A server that refuses: its code, and its reply quoted. */
	ck_assert_int_eq(BANNER("420 Server busy\r\n", &caps, &err), 420);
	ck_assert_str_eq(err.msg, "peer: 420 Server busy");
	ck_assert_uint_eq(caps, 0);
	ck_assert_int_eq(BANNER("421-Service not available\r\n", &caps, &err),
	    421);
	ck_assert_int_eq(BANNER("500 \x1b[2Jno\r\n", &caps, &err), 500);
	ck_assert_str_eq(err.msg, "peer: 500 \\x1b[2Jno");
	ck_assert_int_eq(BANNER("200-CAPA ZLIB\r\n530 go away\r\n", &caps,
	    &err), 530);
	ck_assert_uint_eq(caps, PROTO_CAP_ZLIB);
	ck_assert_int_eq(BANNER("300 what\r\n", &caps, &err), 300);
	/* No code a caller could take for success or a count. */
	ck_assert_int_eq(BANNER("099 low\r\n", &caps, &err), -1);
	ck_assert_str_eq(err.msg, "peer: 099 low");
	ck_assert_int_eq(BANNER("000 zero\r\n", &caps, &err), -1);
}
END_TEST

START_TEST(test_banner_not_rap)
{
	struct cerr	 err;
	uint64_t	 caps;
	char		 line[300];
	struct conn	*c;
	pid_t		 pid;
	static char	 big[PROTO_REPLY_MAXBYTES + 100];

	ck_assert_int_eq(BANNER("SSH-2.0-OpenSSH_9.2p1 \x1b[31mred\r\n", &caps,
	    &err), -1);
	ck_assert_str_eq(err.msg, "peer: not a Radmind or cairn server (it "
	    "sent \"SSH-2.0-OpenSSH_9.2p1 \\x1b[31mred\")");
	ck_assert_int_eq(BANNER("HTTP/1.1 400 Bad Request\r\n", &caps, &err),
	    -1);
	ck_assert_str_eq(err.msg, "peer: not a Radmind or cairn server (it "
	    "sent \"HTTP/1.1 400 Bad Request\")");
	ck_assert_int_eq(BANNER("\r\n", &caps, &err), -1);
	ck_assert_str_eq(err.msg, "peer: not a Radmind or cairn server (it "
	    "sent \"\")");

	/* Cut at 64 bytes of the line. */
	memset(line, 'A', sizeof(line));
	memcpy(line + sizeof(line) - 2, "\r\n", 2);
	ck_assert_int_eq(banner(line, sizeof(line), 0, &caps, &err), -1);
	ck_assert_str_eq(err.msg, "peer: not a Radmind or cairn server (it "
	    "sent \"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"
	    "AAAA...\")");

	/* A later line that is no reply. */
	ck_assert_int_eq(BANNER("200-RAP 1\r\nHTTP/1.1 \"400\"\r\n", &caps,
	    &err), -1);
	ck_assert_str_eq(err.msg,
	    "peer: bad greeting line \"HTTP/1.1 \\x22400\\x22\"");

	/* Closed, silent, half a line, a first line without end. */
	ck_assert_int_eq(BANNER("", &caps, &err), -1);
	ck_assert_str_eq(err.msg,
	    "peer: closed the connection without a greeting");
	ck_assert_int_eq(banner("", 0, 1, &caps, &err), -1);
	ck_assert_str_eq(err.msg, "peer: not a Radmind or cairn server (no "
	    "greeting within 1 s)");
	ck_assert_int_eq(banner("200 RAP", 7, 1, &caps, &err), -1);
	ck_assert_str_eq(err.msg, "peer: not a Radmind or cairn server (no "
	    "complete greeting line within 1 s)");

	memset(big, 'x', sizeof(big));
	c = writer(big, sizeof(big), 1, &pid);
	ck_assert_int_eq(proto_banner(c, &caps, &err), -1);
	ck_assert_str_eq(err.msg, "peer: not a Radmind or cairn server (a "
	    "first line longer than 65536 bytes)");
	conn_free(c);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);

	/* Gone after the first line: no talk of a missing greeting. */
	ck_assert_int_eq(BANNER("200-RAP 1\r\n", &caps, &err), -1);
	ck_assert_ptr_null(strstr(err.msg, "greeting"));
	ck_assert_ptr_nonnull(strstr(err.msg, "peer"));
}
END_TEST

/* dst gets at most len bytes, NUL included, whatever src holds. */
START_TEST(test_quote)
{
	static const char	 hostile[] =
	    "ok \x1b[2J\x07\"q\"\\\x7f\x80\xff\r\n\t end";
	char			 dst[80], full[256];
	size_t			 len, i, n;

	proto_quote(dst, sizeof(dst), "plain text, 1-2-3 ~!", 64);
	ck_assert_str_eq(dst, "plain text, 1-2-3 ~!");
	proto_quote(dst, sizeof(dst), "\x1b\x7f\xff\\\"\t", 64);
	ck_assert_str_eq(dst, "\\x1b\\x7f\\xff\\x5c\\x22\\x09");
	proto_quote(dst, sizeof(dst), "", 64);
	ck_assert_str_eq(dst, "");

	/* max bytes of src, then "..."; exactly max bytes: no "...". */
	proto_quote(dst, sizeof(dst), "abcdef", 3);
	ck_assert_str_eq(dst, "abc...");
	proto_quote(dst, sizeof(dst), "abc", 3);
	ck_assert_str_eq(dst, "abc");
	proto_quote(dst, sizeof(dst), "abcdef", 0);
	ck_assert_str_eq(dst, "...");

	/*
	 * A full dst: never overrun, always ended, printable, and either
	 * all of it or a start of it marked "...".
	 */
	proto_quote(full, sizeof(full), hostile, 1000);
	ck_assert_str_eq(full, "ok \\x1b[2J\\x07\\x22q\\x22\\x5c\\x7f\\x80"
	    "\\xff\\x0d\\x0a\\x09 end");
	for (len = 0; len < sizeof(dst); len++) {
		memset(dst, '#', sizeof(dst));
		proto_quote(dst, len, hostile, 1000);
		for (i = len; i < sizeof(dst); i++)
			ck_assert_msg(dst[i] == '#', "len %zu: byte %zu "
			    "written", len, i);
		if (len == 0)
			continue;
		ck_assert_msg(memchr(dst, '\0', len) != NULL, "len %zu: no "
		    "NUL", len);
		ck_assert_msg(printable(dst), "len %zu: \"%s\"", len, dst);
		if (strcmp(dst, full) == 0)
			continue;
		n = strlen(dst);
		if (len < 4) {
			ck_assert_str_eq(dst, "");
			continue;
		}
		ck_assert_msg(n >= 3 && strcmp(dst + n - 3, "...") == 0 &&
		    strncmp(dst, full, n - 3) == 0, "len %zu: \"%s\"", len, dst);
	}
}
END_TEST

/* proto_trace: "<<< line", ">>> line", "--- note", len bytes of line. */
START_TEST(test_trace)
{
	char	 out[256];
	ssize_t	 n;
	int	 p[2], saved;

	log_init("check_proto", LOG_TO_STDERR, 0);
	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_ne(saved = dup(2), -1);
	ck_assert_int_ne(dup2(p[1], 2), -1);
	proto_trace(NULL, CONN_TRACE_IN, "230 ok", 6);
	proto_trace(NULL, CONN_TRACE_OUT, "QUIT\r\nNOT THIS", 4);
	proto_trace(NULL, CONN_TRACE_NOTE, "level 6 -> 1", 12);
	proto_trace(NULL, CONN_TRACE_IN, "", 0);
	/* A peer's control bytes are shown as \xNN, and so is '\\' then. */
	proto_trace(NULL, CONN_TRACE_IN, "545 \x1b[2J\\x\x07", 11);
	ck_assert_int_ne(dup2(saved, 2), -1);
	close(saved);
	close(p[1]);
	n = read(p[0], out, sizeof(out) - 1);
	close(p[0]);
	ck_assert_int_gt(n, 0);
	out[n] = '\0';
	ck_assert_str_eq(out, "<<< 230 ok\n>>> QUIT\n--- level 6 -> 1\n<<< \n"
	    "<<< 545 \\x1b[2J\\x5cx\\x07\n");
}
END_TEST

static Suite *
proto_suite(void)
{
	Suite	*s = suite_create("proto");
	TCase	*tc;

	signal(SIGPIPE, SIG_IGN);
	tc = tcase_create("replies");
	/* bounded work, but a loaded machine or a sanitizer build is slow */
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_reply_codes);
	tcase_add_test(tc, test_reply_nul);
	tcase_add_test(tc, test_reply_continuation);
	tcase_add_test(tc, test_reply_bad_quoted);
	tcase_add_test(tc, test_reply_lines_cap);
	tcase_add_test(tc, test_reply_bytes_cap);
	tcase_add_test(tc, test_reply_deadline);
	suite_add_tcase(s, tc);

	tc = tcase_create("parsing");
	tcase_add_test(tc, test_parse_size);
	tcase_add_test(tc, test_split);
	tcase_add_test(tc, test_verbs_caps);
	tcase_add_test(tc, test_quote);
	tcase_add_test(tc, test_trace);
	suite_add_tcase(s, tc);

	tc = tcase_create("banner");
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_banner_caps);
	tcase_add_test(tc, test_banner_refused);
	tcase_add_test(tc, test_banner_not_rap);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(proto_suite());
}
