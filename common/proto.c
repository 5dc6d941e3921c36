/*
 * proto.c: RAP 1 reply reading, banner parsing, verbs (proto.h).
 */
#include "config.h"

#include <ctype.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "cerr.h"
#include "conn.h"
#include "log.h"
#include "proto.h"

int
proto_split(char *line, char **av, int max)
{
	int	 n = 0;
	char	*p = line;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (*p == '\0')
			return n;
		if (n == max)
			return -1;
		av[n++] = p;
		while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\n')
			p++;
		if (*p != '\0')
			*p++ = '\0';
	}
}

int
proto_verb_is(const char *tok, const char *verb, size_t min)
{
	size_t	 len = strlen(tok);

	if (len < min || len > strlen(verb))
		return 0;
	return strncasecmp(tok, verb, len) == 0;
}

/* Code of a reply line, or -1; *more is set for "NNN-" lines. */
static int
proto_code(const char *line, int *more)
{
	if (!isdigit((unsigned char)line[0]) ||
	    !isdigit((unsigned char)line[1]) ||
	    !isdigit((unsigned char)line[2]))
		return -1;
	switch (line[3]) {
	case '-':
		*more = 1;
		break;
	case ' ':
	case '\0':
		*more = 0;
		break;
	default:
		return -1;
	}
	return (line[0] - '0') * 100 + (line[1] - '0') * 10 + (line[2] - '0');
}

void
proto_budget_init(struct conn *c, struct proto_budget *b)
{
	b->deadline = conn_deadline(c);
	b->lines = PROTO_REPLY_MAXLINES;
	b->bytes = PROTO_REPLY_MAXBYTES;
}

int
proto_line(struct conn *c, struct proto_budget *b, char **line,
    struct cerr *err)
{
	ssize_t	 len;

	if (b->lines == 0) {
		cerr_set(err, "%s: reply longer than %d lines", conn_peer(c),
		    PROTO_REPLY_MAXLINES);
		return -1;
	}
	if (b->deadline >= 0 && conn_now() >= b->deadline) {
		cerr_set(err, "%s: reply not complete in time", conn_peer(c));
		return -1;
	}
	len = conn_getline_until(c, line, b->deadline, b->bytes, err);
	if (len == -1) {
		if (conn_toolong(c))
			cerr_set(err, "%s: reply longer than %d bytes",
			    conn_peer(c), PROTO_REPLY_MAXBYTES);
		else if (!conn_eof(c) && b->deadline >= 0 &&
		    conn_now() >= b->deadline)
			cerr_set(err, "%s: reply not complete in time",
			    conn_peer(c));
		return -1;
	}
	b->lines--;
	/* The terminator counts too: a reply of empty lines ends. */
	b->bytes = (size_t)len + 1 >= b->bytes ? 0 : b->bytes - (size_t)len - 1;
	return 0;
}

int
proto_reply(struct conn *c, int *code, char **text, struct cerr *err)
{
	struct proto_budget	 b;

	proto_budget_init(c, &b);
	return proto_reply_in(c, &b, code, text, err);
}

/*
 * A reply's text is for people: a byte that is no printable ASCII
 * becomes '?', so that no peer writes escape sequences on a terminal
 * through a message that quotes it.
 */
static void
proto_tame(char *s)
{
	unsigned char	*p;

	for (p = (unsigned char *)s; *p != '\0'; p++)
		if (*p < 0x20 || *p >= 0x7f)
			*p = '?';
}

int
proto_reply_in(struct conn *c, struct proto_budget *b, int *code,
    char **text, struct cerr *err)
{
	char	*line, q[256];
	int	 more;

	do {
		if (proto_line(c, b, &line, err) == -1)
			return -1;
		if ((*code = proto_code(line, &more)) == -1) {
			/* Peer bytes: escaped, never raw on a terminal. */
			proto_quote(q, sizeof(q), line, 200);
			cerr_set(err, "%s: bad reply \"%s\"", conn_peer(c), q);
			return -1;
		}
	} while (more);
	proto_tame(line);
	*text = line;
	return 0;
}

int
proto_cap_match(const char *entry, const char *want)
{
	size_t	 n = strlen(entry);

	if (n > 4)
		n = 4;
	if (n == 0)
		return 0;
	return strncasecmp(entry, want, n) == 0;
}

void
proto_quote(char *dst, size_t len, const char *src, size_t max)
{
	static const char	 hex[] = "0123456789abcdef";
	size_t			 i, o = 0;
	unsigned char		 ch;

	if (len == 0)
		return;
	for (i = 0; src[i] != '\0'; i++) {
		ch = (unsigned char)src[i];
		if (i == max || o + 8 >= len) {
			/* Room for "..." and the NUL is kept. */
			if (o + 4 <= len) {
				memcpy(dst + o, "...", 3);
				o += 3;
			}
			break;
		}
		if (ch >= 0x20 && ch < 0x7f && ch != '\\' && ch != '"')
			dst[o++] = (char)ch;
		else {
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[ch >> 4];
			dst[o++] = hex[ch & 0xf];
		}
	}
	dst[o] = '\0';
}

/*
 * The first line of a greeting could not be read: say whether the peer
 * is silent, closed, or sent something that is no RAP line.
 */
static void
proto_nogreeting(struct conn *c, const struct proto_budget *b, int64_t t0,
    struct cerr *err)
{
	if (conn_toolong(c))
		cerr_set(err, "%s: not a Radmind or cairn server (a first "
		    "line longer than %d bytes)", conn_peer(c),
		    PROTO_REPLY_MAXBYTES);
	else if (conn_eof(c))
		cerr_set(err, "%s: closed the connection without a greeting",
		    conn_peer(c));
	else if (b->deadline >= 0 && conn_now() >= b->deadline)
		cerr_set(err, "%s: not a Radmind or cairn server (%s within "
		    "%lld s)", conn_peer(c), conn_pending(c) > 0 ?
		    "no complete greeting line" : "no greeting",
		    (long long)((b->deadline - t0 + 500) / 1000));
	/* Else a read error, as conn worded it. */
}

/*
 * [cairn] "<NAME>=<value>" (the name in any case, the value 1 to max in
 * decimal digits, no sign): the value, or 0 when cap is not that.
 */
static unsigned
proto_cap_value(const char *cap, const char *name, unsigned max)
{
	const char	*p;
	size_t		 n = strlen(name);
	uint64_t	 v = 0;

	if (strncasecmp(cap, name, n) != 0 || cap[n] != '=')
		return 0;
	for (p = cap + n + 1; *p >= '0' && *p <= '9' && v <= max; p++)
		v = v * 10 + (unsigned)(*p - '0');
	if (p == cap + n + 1 || *p != '\0' || v > max)
		return 0;
	return (unsigned)v;
}

/*
 * [cairn] "ZSTD=<max>" (<max> 1 to 99): zstd up to level <max>;
 * "ZDICT=<bytes>" (1 to 1048576): a zstd dictionary of that size, RETR
 * ZDICT; "ZDICTID=<id>" (1 to 2^31 - 1): its zstd ID, by which a client
 * that kept it names it (ZDICT).  Anything else near them is no offer.
 */
static void
proto_cap_zstd(const char *cap, uint64_t *caps)
{
	uint64_t	 v;

	if ((v = proto_cap_value(cap, "ZSTD", 99)) != 0)
		*caps = (*caps & ~(uint64_t)(PROTO_CAP_ZSTD | (0xffU << 8))) |
		    PROTO_CAP_ZSTD | (v << 8);
	if ((v = proto_cap_value(cap, "ZDICT", 1048576)) != 0)
		*caps = (*caps & ~(uint64_t)(PROTO_CAP_ZDICT |
		    (0x7ffU << 16))) | PROTO_CAP_ZDICT |
		    ((v + 1023) / 1024) << 16;
	if ((v = proto_cap_value(cap, "ZDICTID", 0x7fffffff)) != 0)
		*caps = (*caps & 0xffffffffU) | v << 32;
}

int
proto_banner(struct conn *c, uint64_t *caps, struct cerr *err)
{
	struct proto_budget	 b;
	char			*line, *av[32], q[96];
	size_t			 n;
	int64_t			 t0 = conn_now();
	int			 ac, i, more, code, first = 1;

	*caps = 0;
	proto_budget_init(c, &b);
	do {
		if (proto_line(c, &b, &line, err) == -1) {
			if (first)
				proto_nogreeting(c, &b, t0, err);
			return -1;
		}
		code = proto_code(line, &more);
		proto_quote(q, sizeof(q), line, 64);
		if (code == -1) {
			/* SSH-2.0-..., HTTP/1.1 ..., anything but RAP. */
			cerr_set(err, first ? "%s: not a Radmind or cairn "
			    "server (it sent \"%s\")" : "%s: bad greeting "
			    "line \"%s\"", conn_peer(c), q);
			return -1;
		}
		if (code / 100 != 2) {
			/* A server that refuses: its reply, quoted. */
			cerr_set(err, "%s: %s", conn_peer(c), q);
			return code < 100 ? -1 : code;
		}
		first = 0;
		if (line[3] == '\0')
			continue;
		if ((ac = proto_split(line + 4, av, 32)) < 1)
			continue;
		n = strlen(av[0]);
		if (n > 12)
			n = 12;
		if (strncasecmp(av[0], "CAPAbilities", n) != 0)
			continue;
		for (i = 1; i < ac; i++) {
			if (proto_cap_match(av[i], "ZLIB"))
				*caps |= PROTO_CAP_ZLIB;
			if (proto_cap_match(av[i], "REPO"))
				*caps |= PROTO_CAP_REPO;
			/* Ours: the whole name, no Radmind prefix rule. */
			if (strcasecmp(av[i], "ZAUTO") == 0)
				*caps |= PROTO_CAP_ZAUTO;
			if (strcasecmp(av[i], "DELTA") == 0)
				*caps |= PROTO_CAP_DELTA;
			if (strcasecmp(av[i], "MANIFEST") == 0)
				*caps |= PROTO_CAP_MANIFEST;
			proto_cap_zstd(av[i], caps);
		}
	} while (more);
	return 0;
}

int
proto_parse_size(const char *s, int64_t *out)
{
	int64_t	 v = 0;

	if (*s == '\0')
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9')
			return -1;
		if (v > (INT64_MAX - (*s - '0')) / 10)
			return -1;
		v = v * 10 + (*s - '0');
	}
	*out = v;
	return 0;
}

void
proto_trace(void *arg, int dir, const char *line, size_t len)
{
	const char	*tag;
	char		 q[1024];
	size_t		 i, o;
	unsigned char	 ch;

	(void)arg;
	tag = dir == CONN_TRACE_IN ? "<<<" : dir == CONN_TRACE_OUT ? ">>>" :
	    "---";
	/* A line with bytes no terminal should get: those as \xNN. */
	for (i = 0; i < len; i++)
		if ((unsigned char)line[i] < 0x20 ||
		    (unsigned char)line[i] >= 0x7f)
			break;
	if (i == len) {
		log_info("%s %.*s", tag, (int)len, line);
		return;
	}
	for (i = 0, o = 0; i < len && o + 8 < sizeof(q); i++) {
		ch = (unsigned char)line[i];
		if (ch >= 0x20 && ch < 0x7f && ch != '\\')
			q[o++] = (char)ch;
		else
			o += (size_t)snprintf(q + o, sizeof(q) - o, "\\x%02x",
			    ch);
	}
	q[o] = '\0';
	log_info("%s %s%s", tag, q, i < len ? "..." : "");
}
