/*
 * fuzz_inflate.c: the compressed input of a connection (common/conn.c
 * over common/zstream.c).
 *
 * The input is what a peer sends after COMP ZLIB, read twice:
 *   - blocks: compression starts at once and conn_read takes the data
 *     in pieces of varying size.  What it returns must be, byte for byte,
 *     a prefix of what zlib's own inflate makes of the input (all of it
 *     when the input is a valid, unfinished stream), so the output stays
 *     within zlib's bound of about 1032 bytes per input byte;
 *   - lines: the first line is read in clear (as the "320" reply), then
 *     compression starts with whatever was read ahead, and lines are
 *     read until an error: each within the line cap, with no terminator
 *     in it.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "buf.h"
#include "cerr.h"
#include "conn.h"
#include "xmalloc.h"
#include "zconn.h"
#include "fuzz.h"

#define RATIO		1032	/* deflate's largest expansion */
#define LINE_CAP	4096
#define INPUT_MAX	(64 * 1024)	/* what a socket holds at once */

static size_t
bound(size_t size)
{
	return RATIO * size + 64;
}

/*
 * Reference: zlib inflate of the whole input, as far as it goes, into b.
 * Returns nonzero when it used all the input without an error or a
 * stream end.
 */
static int
reference(const uint8_t *data, size_t size, struct buf *b)
{
	z_stream	 z;
	unsigned char	 chunk[16384];
	int		 r;

	memset(&z, 0, sizeof(z));
	FUZZ_SETUP(inflateInit(&z) == Z_OK);
	z.next_in = (unsigned char *)(uintptr_t)data;
	z.avail_in = (uInt)size;
	do {
		z.next_out = chunk;
		z.avail_out = sizeof(chunk);
		r = inflate(&z, Z_SYNC_FLUSH);
		/* within deflate's largest expansion */
		FUZZ_CHECK(buf_add(b, chunk, sizeof(chunk) - z.avail_out) ==
		    0);
	} while (r == Z_OK && z.avail_out == 0);
	inflateEnd(&z);
	return (r == Z_OK || r == Z_BUF_ERROR) && z.avail_in == 0;
}

static void
blocks(const uint8_t *data, size_t size)
{
	static const size_t	 piece[] = { 1, 7, 4096, 65536, 13, 512 };
	struct connstats	 st;
	struct conn		*c;
	struct cerr		 err;
	struct buf		*ref;
	const unsigned char	*rp;
	unsigned char		*buf;
	size_t			 got = 0, i = 0;
	ssize_t			 r;
	int			 clean;

	ref = buf_new(bound(size));
	clean = reference(data, size, ref);
	rp = (const unsigned char *)buf_data(ref);
	buf = xmalloc(65536);
	c = conn_new(fuzz_socket(data, size, NULL), "fuzz");
	conn_set_timeout(c, 2000);
	FUZZ_SETUP(zconn_start(c, 1, 0, &err) == 0);
	for (;;) {
		r = conn_read(c, buf, piece[i++ % 6], &err);
		if (r == -1)
			break;
		FUZZ_CHECK(r > 0);
		FUZZ_CHECK(got + (size_t)r <= buf_len(ref));
		FUZZ_CHECK(memcmp(buf, rp + got, (size_t)r) == 0);
		got += (size_t)r;
	}
	if (clean) {
		FUZZ_CHECK(got == buf_len(ref));
		FUZZ_CHECK(conn_eof(c));
	}
	conn_stats(c, &st);
	FUZZ_CHECK(st.raw_in == got);
	FUZZ_CHECK(st.wire_in <= size);
	conn_free(c);
	free(buf);
	buf_free(ref);
}

static void
lines(const uint8_t *data, size_t size)
{
	struct connstats	 st;
	struct conn		*c;
	struct cerr		 err;
	char			*line;
	ssize_t			 n;
	size_t			 total = 0;

	c = conn_new(fuzz_socket(data, size, NULL), "fuzz");
	conn_set_maxline(c, LINE_CAP);
	conn_set_timeout(c, 2000);
	if (conn_getline(c, &line, &err) == -1) {
		conn_free(c);
		return;
	}
	FUZZ_SETUP(zconn_start(c, 1, 0, &err) == 0);
	while ((n = conn_getline(c, &line, &err)) != -1) {
		FUZZ_CHECK((size_t)n == strlen(line));
		FUZZ_CHECK((size_t)n <= LINE_CAP);
		FUZZ_CHECK(strpbrk(line, "\r\n") == NULL);
		total += (size_t)n + 1;
		FUZZ_CHECK(total <= bound(size));
	}
	conn_stats(c, &st);
	FUZZ_CHECK(st.raw_in <= bound(size));
	conn_free(c);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > INPUT_MAX)
		return 0;
	blocks(data, size);
	lines(data, size);
	return 0;
}
