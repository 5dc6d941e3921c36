/*
 * fuzz_zstd.c: the zstd input of a connection (common/conn.c over
 * common/zstdconn.c).
 *
 * The input is what a peer sends after COMP ZSTD, read twice:
 *   - blocks: zstd starts at once and conn_read takes the data in pieces
 *     of varying size.  What it returns must be, byte for byte, a prefix
 *     of what libzstd's own streaming decoder makes of the input under
 *     the same window bound, frame after frame while each starts with
 *     the zstd magic number, a frame's checksum ignored (how much of a
 *     frame comes out before its checksum fails depends on the buffers);
 *     and all of it when the input is such frames, the last possibly
 *     unfinished, whose checksums hold;
 *   - lines: the first line is read in clear (as the "320" reply), then
 *     zstd starts with whatever was read ahead, and lines are read until
 *     an error: each within the line cap, with no terminator in it.
 *   - dictionary: an input "D", a 16-bit little-endian length k, k bytes,
 *     the rest: the k bytes taken as a dictionary (docs/protocol.md
 *     section 9.3), refused with a message or checked and used, and the
 *     rest read as a stream that took it; what is read must be a prefix
 *     of what libzstd's decoder makes of it with that dictionary.
 * zstd expands far more than deflate (an RLE block of 128 KiB from four
 * bytes), so every read stops at OUT_MAX bytes.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_d_forceIgnoreChecksum */
#include <zstd.h>

#include "buf.h"
#include "cerr.h"
#include "conn.h"
#include "xmalloc.h"
#include "zstdconn.h"
#include "fuzz.h"

#define LINE_CAP	4096
#define INPUT_MAX	(16 * 1024)
#define OUT_MAX		(8 * 1024 * 1024)

static const unsigned char magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

/*
 * Reference: libzstd's decoder over the input, frame by frame, as far as
 * it goes, into b (at most OUT_MAX bytes), checksums ignored if nocheck.
 * The input is offered a byte at a time, so that every block is given
 * out before the next one can fail (libzstd drops what it holds when it
 * fails): the most a reader can get.  Returns nonzero when it used all
 * the input without an error and within OUT_MAX.
 */
static int
reference(const uint8_t *data, size_t size, struct buf *b, int nocheck,
    const void *dict, size_t dlen)
{
	ZSTD_DCtx	*d;
	ZSTD_inBuffer	 in = { data, 0, 0 };
	ZSTD_outBuffer	 out;
	unsigned char	 chunk[16384];
	size_t		 r, n;
	int		 start = 1, ok = 1;

	FUZZ_SETUP((d = ZSTD_createDCtx()) != NULL);
	FUZZ_SETUP(!ZSTD_isError(ZSTD_DCtx_setParameter(d,
	    ZSTD_d_windowLogMax, ZSTDCONN_WINDOWLOG)));
	FUZZ_SETUP(!ZSTD_isError(ZSTD_DCtx_setParameter(d,
	    ZSTD_d_forceIgnoreChecksum, nocheck ? ZSTD_d_ignoreChecksum :
	    ZSTD_d_validateChecksum)));
	if (dict != NULL)
		FUZZ_SETUP(!ZSTD_isError(ZSTD_DCtx_loadDictionary(d, dict,
		    dlen)));
	for (;;) {
		if (start) {
			if (in.pos == size)
				break;
			n = size - in.pos < 4 ? size - in.pos : 4;
			if (memcmp(data + in.pos, magic, n) != 0)
				ok = 0;
			if (n < 4 || !ok)
				break;
			start = 0;
		}
		if (in.pos == in.size && in.size < size)
			in.size++;
		out.dst = chunk;
		out.size = sizeof(chunk);
		out.pos = 0;
		r = ZSTD_decompressStream(d, &out, &in);
		if (buf_len(b) + out.pos > OUT_MAX) {
			ok = 0;
			break;
		}
		FUZZ_CHECK(buf_add(b, chunk, out.pos) == 0);
		if (ZSTD_isError(r)) {
			ok = 0;
			break;
		}
		if (r == 0)
			start = 1;
		else if (out.pos < out.size && in.pos == size)
			break;
	}
	ZSTD_freeDCtx(d);
	return ok;
}

static void
blocks(const uint8_t *data, size_t size, struct zstdconn_dict *dict)
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

	const void		*dp = NULL;
	size_t			 dl = 0;

	if (dict != NULL)
		dp = zstdconn_dict_data(dict, &dl);
	ref = buf_new(OUT_MAX);
	clean = reference(data, size, ref, 0, dp, dl);
	buf_reset(ref);
	(void)reference(data, size, ref, 1, dp, dl);
	rp = (const unsigned char *)buf_data(ref);
	buf = xmalloc(65536);
	c = conn_new(fuzz_socket(data, size, NULL), "fuzz");
	conn_set_timeout(c, 2000);
	FUZZ_SETUP(zstdconn_start(c, 1, 0, &err) == 0);
	if (dict != NULL)
		FUZZ_SETUP(zstdconn_use_dict(c, dict, 0, &err) == 0);
	while (got < OUT_MAX) {
		r = conn_read(c, buf, piece[i++ % 6], &err);
		if (r == -1)
			break;
		FUZZ_CHECK(r > 0);
		if (got + (size_t)r > buf_len(ref)) {
			/* Beyond what the reference kept: only when cut. */
			FUZZ_CHECK(buf_len(ref) + 16384 > OUT_MAX);
			break;
		}
		FUZZ_CHECK(memcmp(buf, rp + got, (size_t)r) == 0);
		got += (size_t)r;
	}
	if (clean) {
		FUZZ_CHECK(got == buf_len(ref));
		FUZZ_CHECK(conn_eof(c));
	}
	conn_stats(c, &st);
	FUZZ_CHECK(st.wire_in <= size);
	conn_free(c);
	free(buf);
	buf_free(ref);
}

static void
lines(const uint8_t *data, size_t size)
{
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
	FUZZ_SETUP(zstdconn_start(c, 1, 0, &err) == 0);
	while (total < OUT_MAX &&
	    (n = conn_getline(c, &line, &err)) != -1) {
		FUZZ_CHECK((size_t)n == strlen(line));
		FUZZ_CHECK((size_t)n <= LINE_CAP);
		FUZZ_CHECK(strpbrk(line, "\r\n") == NULL);
		total += (size_t)n + 1;
	}
	conn_free(c);
}

/* "D", k, k bytes of dictionary, the stream: see the top. */
static void
dictionary(const uint8_t *data, size_t size)
{
	struct zstdconn_dict	*d;
	struct cerr		 err;
	size_t			 k;

	if (size < 3 || data[0] != 'D')
		return;
	k = (size_t)data[1] | (size_t)data[2] << 8;
	if (k > size - 3)
		return;
	if ((d = zstdconn_dict_new(data + 3, k, &err)) == NULL) {
		FUZZ_CHECK(err.msg[0] != '\0');
		return;
	}
	blocks(data + 3 + k, size - 3 - k, d);
	zstdconn_dict_free(d);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size > INPUT_MAX)
		return 0;
	blocks(data, size, NULL);
	lines(data, size);
	dictionary(data, size);
	return 0;
}
