/*
 * fuzz_reply.c: server replies as a client reads them (common/proto.c
 * over common/conn.c).
 *
 * The input is what a server sends: it is written to a socket whose
 * sending side is then closed, and read as the clients do: the banner,
 * then replies until an error or the end.  A 230 reply is followed by
 * its STAT line, a 240 reply by a size line, that many bytes and ".".
 * Checked:
 *   - the capabilities are ZLIB, REPO and ZAUTO at most;
 *   - a reply's code is the three digits its last line starts with;
 *   - proto_parse_size accepts exactly the strings of decimal digits
 *     whose value fits in 63 bits, and reads that value.
 */
#include "config.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cerr.h"
#include "conn.h"
#include "proto.h"
#include "xmalloc.h"
#include "fuzz.h"

#define LINE_MAX_FUZZ	1024		/* small, to reach the cap */
#define BODY_MAX	(64 * 1024)	/* read at most this much of a body */

/* proto_parse_size against a plain reading of the same string. */
static int
size_check(const char *s, int64_t *v)
{
	const char	*digits;
	char		 back[32];
	size_t		 n;
	int		 ok, r;

	n = strlen(s);
	ok = n > 0 && strspn(s, "0123456789") == n;
	digits = s + strspn(s, "0");
	if (*digits == '\0' && n > 0)
		digits--;	/* all zeros: keep one */
	if (ok)
		ok = strlen(digits) < 19 || (strlen(digits) == 19 &&
		    strcmp(digits, "9223372036854775807") <= 0);
	*v = -1;
	r = proto_parse_size(s, v);
	FUZZ_CHECK((r == 0) == ok);
	if (r == 0) {
		FUZZ_CHECK(*v >= 0);
		snprintf(back, sizeof(back), "%" PRId64, *v);
		FUZZ_CHECK(strcmp(back, digits) == 0);
	} else
		FUZZ_CHECK(*v == -1);
	return r;
}

/* "f <name> <mode> <uid> <gid> <mtime> <size> <cksum>", as ktcheck. */
static int
stat_line(struct conn *c, struct cerr *err)
{
	char	*line, *copy, *av[9];
	int64_t	 v;

	if (conn_getline(c, &line, err) == -1)
		return -1;
	copy = xstrdup(line);
	if (proto_split(copy, av, 9) == 8) {
		(void)size_check(av[5], &v);
		(void)size_check(av[6], &v);
	}
	free(copy);
	return 0;
}

/* "<size>" CRLF, size bytes, "." CRLF. */
static int
body(struct conn *c, struct cerr *err)
{
	unsigned char	 buf[4096];
	char		*line;
	int64_t		 size, left;
	ssize_t		 r;

	if (conn_getline(c, &line, err) == -1)
		return -1;
	if (size_check(line, &size) == -1)
		return -1;
	for (left = size < BODY_MAX ? size : BODY_MAX; left > 0; left -= r) {
		r = conn_read(c, buf, left < (int64_t)sizeof(buf) ?
		    (size_t)left : sizeof(buf), err);
		if (r == -1)
			return -1;
		FUZZ_CHECK(r > 0 && r <= left);
	}
	if (size > BODY_MAX)
		return -1;
	if (conn_getline(c, &line, err) == -1)
		return -1;
	return strcmp(line, ".") == 0 ? 0 : -1;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct conn	*c;
	struct cerr	 err;
	uint64_t	 caps;
	char		*text;
	int		 code;

	c = conn_new(fuzz_socket(data, size, NULL), "fuzz");
	conn_set_maxline(c, LINE_MAX_FUZZ);
	conn_set_timeout(c, 2000);
	if (proto_banner(c, &caps, &err) == 0) {
		FUZZ_CHECK((caps & ~(uint64_t)(PROTO_CAP_ZLIB |
		    PROTO_CAP_REPO | PROTO_CAP_ZAUTO | PROTO_CAP_DELTA |
		    PROTO_CAP_MANIFEST | PROTO_CAP_ZSTD | PROTO_CAP_ZDICT |
		    (0xffU << 8) | (0x7ffU << 16)) &
		    ~((uint64_t)0x7fffffff << 32)) == 0);
		FUZZ_CHECK(((caps & PROTO_CAP_ZSTD) != 0) ==
		    (PROTO_CAP_ZSTDMAX(caps) != 0));
		FUZZ_CHECK(PROTO_CAP_ZSTDMAX(caps) <= 99);
		FUZZ_CHECK(((caps & PROTO_CAP_ZDICT) != 0) ==
		    (PROTO_CAP_ZDICTKB(caps) != 0));
		FUZZ_CHECK(PROTO_CAP_ZDICTKB(caps) <= 1024);
		while (proto_reply(c, &code, &text, &err) == 0) {
			FUZZ_CHECK(code >= 0 && code <= 999);
			FUZZ_CHECK(strlen(text) >= 3 && strlen(text) <=
			    LINE_MAX_FUZZ);
			FUZZ_CHECK(isdigit((unsigned char)text[0]) &&
			    isdigit((unsigned char)text[1]) &&
			    isdigit((unsigned char)text[2]));
			FUZZ_CHECK(code == (text[0] - '0') * 100 +
			    (text[1] - '0') * 10 + (text[2] - '0'));
			FUZZ_CHECK(text[3] == ' ' || text[3] == '\0');
			if (code == RAP_STAT_OK && stat_line(c, &err) == -1)
				break;
			if (code == RAP_RETR_OK && body(c, &err) == -1)
				break;
		}
	}
	conn_free(c);
	return 0;
}
