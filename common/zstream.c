/*
 * zstream.c: zlib deflate/inflate for one connection (see zstream.h).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "buf.h"
#include "cerr.h"
#include "compat.h"
#include "xmalloc.h"
#include "zstream.h"

#define ZS_OUTCHUNK	(64 * 1024)

struct zstream {
	z_stream	 def;		/* raw deflate: we write the header */
	z_stream	 inf;
	int		 level;
	int		 defok, infok;
	int		 infdone;
	int		 hdrsent;	/* the two-byte zlib header is out */
	int		 aligned;	/* output ends in a sync or full flush */
	int		 fresh;		/* ... a full flush: no history */
};

/*
 * The RFC 1950 header zlib itself would write for level (window bits
 * 15): 78 01, 78 5e, 78 9c or 78 da.  The stream is never finished, so
 * the Adler-32 trailer that a raw deflate stream cannot give is never
 * needed; and a raw stream can be reset after a splice without a second
 * header.
 */
static int
zstream_header(struct zstream *z, struct buf *out, struct cerr *err)
{
	unsigned char	 h[2];
	unsigned int	 v, lf;

	if (z->hdrsent)
		return 0;
	lf = z->level < 2 ? 0 : z->level < 6 ? 1 : z->level == 6 ? 2 : 3;
	v = (0x78U << 8) | (lf << 6);
	v += 31 - v % 31;
	h[0] = (unsigned char)(v >> 8);
	h[1] = (unsigned char)(v & 0xff);
	if (buf_add(out, h, 2) == -1) {
		cerr_set(err, "compressed output buffer full");
		return -1;
	}
	z->hdrsent = 1;
	return 0;
}

struct zstream *
zstream_new(int level, struct cerr *err)
{
	struct zstream	*z;

	z = xcalloc(1, sizeof(*z));
	z->level = level;
	if (deflateInit2(&z->def, level, Z_DEFLATED, -MAX_WBITS, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK) {
		cerr_set(err, "deflateInit: %s",
		    z->def.msg ? z->def.msg : "failed");
		zstream_free(z);
		return NULL;
	}
	z->defok = 1;
	z->fresh = 1;
	if (inflateInit(&z->inf) != Z_OK) {
		cerr_set(err, "inflateInit: %s",
		    z->inf.msg ? z->inf.msg : "failed");
		zstream_free(z);
		return NULL;
	}
	z->infok = 1;
#if ZLIB_VERNUM >= 0x1290
	/*
	 * The stream is never finished, so its Adler-32 is never checked:
	 * do not compute it over every byte received.
	 */
	(void)inflateValidate(&z->inf, 0);
#endif
	return z;
}

void
zstream_free(struct zstream *z)
{
	if (z == NULL)
		return;
	if (z->defok)
		deflateEnd(&z->def);
	if (z->infok)
		inflateEnd(&z->inf);
	free(z);
}

int
zstream_level(const struct zstream *z)
{
	return z->level;
}

/*
 * Run deflate over whatever input is set up in z->def with the given
 * zlib flush mode until the input is used and, for a flush, all output
 * is out.  Output goes to out in chunks.
 */
static int
zstream_run(struct zstream *z, int zflush, struct buf *out, struct cerr *err)
{
	unsigned char	*p;
	int		 r;

	for (;;) {
		if ((p = buf_reserve(out, ZS_OUTCHUNK)) == NULL) {
			cerr_set(err, "compressed output buffer full");
			return -1;
		}
		z->def.next_out = p;
		z->def.avail_out = ZS_OUTCHUNK;
		r = deflate(&z->def, zflush);
		buf_commit(out, ZS_OUTCHUNK - z->def.avail_out);
		if (r != Z_OK && r != Z_BUF_ERROR) {
			cerr_set(err, "deflate: %s",
			    z->def.msg ? z->def.msg : "error");
			return -1;
		}
		/* Done when input is consumed and deflate had room to spare. */
		if (z->def.avail_in == 0 && z->def.avail_out != 0)
			return 0;
	}
}

int
zstream_deflate(struct zstream *z, const void *in, size_t len, int flush,
    struct buf *out, struct cerr *err)
{
	const unsigned char	*p = in;
	int			 zflush;
	uInt			 n;

	if (zstream_header(z, out, err) == -1)
		return -1;
	if (len > 0)
		z->aligned = z->fresh = 0;
	/* Feed in pieces zlib's uInt can count. */
	while (len > 0) {
		n = len > (1U << 30) ? (1U << 30) : (uInt)len;
		z->def.next_in = (unsigned char *)(uintptr_t)p;
		z->def.avail_in = n;
		if (zstream_run(z, Z_NO_FLUSH, out, err) == -1)
			return -1;
		p += n;
		len -= n;
	}
	if (flush == ZS_NOFLUSH)
		return 0;
	zflush = flush == ZS_FULL ? Z_FULL_FLUSH : Z_SYNC_FLUSH;
	z->def.next_in = NULL;
	z->def.avail_in = 0;
	if (zstream_run(z, zflush, out, err) == -1)
		return -1;
	z->aligned = 1;
	if (flush == ZS_FULL)
		z->fresh = 1;
	return 0;
}

void
zstream_headless(struct zstream *z)
{
	z->hdrsent = 1;
	z->aligned = z->fresh = 1;
}

ssize_t
zstream_trial(const void *p, size_t n)
{
	unsigned char	 out[ZS_TRIALMAX + 512];
	z_stream	 zs;
	ssize_t		 len;

	if (n > ZS_TRIALMAX)
		n = ZS_TRIALMAX;
	memset(&zs, 0, sizeof(zs));
	/* A window and tables no larger than the trial needs. */
	if (deflateInit2(&zs, 1, Z_DEFLATED, -13, 5, Z_DEFAULT_STRATEGY) !=
	    Z_OK)
		return -1;
	zs.next_in = (unsigned char *)(uintptr_t)p;
	zs.avail_in = (uInt)n;
	zs.next_out = out;
	zs.avail_out = sizeof(out);
	len = deflate(&zs, Z_FINISH) == Z_STREAM_END ?
	    (ssize_t)(sizeof(out) - zs.avail_out) : -1;
	deflateEnd(&zs);
	return len;
}

int
zstream_aligned(const struct zstream *z)
{
	return z->aligned;
}

int
zstream_fresh(const struct zstream *z)
{
	return z->fresh;
}

int
zstream_splice(struct zstream *z, const void *p, size_t len,
    struct buf *out, struct cerr *err)
{
	if (!z->aligned) {
		cerr_set(err, "splice without a flush before it");
		return -1;
	}
	if (zstream_header(z, out, err) == -1)
		return -1;
	if (buf_add(out, p, len) == -1) {
		cerr_set(err, "compressed output buffer full");
		return -1;
	}
	return 0;
}

int
zstream_resume(struct zstream *z, struct cerr *err)
{
	if (deflateReset(&z->def) != Z_OK) {
		cerr_set(err, "deflateReset: %s",
		    z->def.msg ? z->def.msg : "error");
		return -1;
	}
	z->aligned = z->fresh = 1;
	return 0;
}

int
zstream_setlevel(struct zstream *z, int level, struct buf *out,
    struct cerr *err)
{
	unsigned char	*p;
	size_t		 before;
	int		 r;

	if (level == z->level)
		return 0;
	if (zstream_header(z, out, err) == -1)
		return -1;
	z->def.next_in = NULL;
	z->def.avail_in = 0;
	before = buf_len(out);
	for (;;) {
		if ((p = buf_reserve(out, ZS_OUTCHUNK)) == NULL) {
			cerr_set(err, "compressed output buffer full");
			return -1;
		}
		z->def.next_out = p;
		z->def.avail_out = ZS_OUTCHUNK;
		r = deflateParams(&z->def, level, Z_DEFAULT_STRATEGY);
		buf_commit(out, ZS_OUTCHUNK - z->def.avail_out);
		if (r == Z_OK)
			break;
		/* Z_BUF_ERROR: it needs more room to flush the old level. */
		if (r != Z_BUF_ERROR || z->def.avail_out != 0) {
			cerr_set(err, "deflateParams: %s",
			    z->def.msg ? z->def.msg : "error");
			return -1;
		}
	}
	/* Ending the old level's block need not end on a byte. */
	if (buf_len(out) > before)
		z->aligned = 0;
	z->level = level;
	return 0;
}

ssize_t
zstream_inflate(struct zstream *z, const unsigned char **in, size_t *inlen,
    void *out, size_t outlen, struct cerr *err)
{
	size_t	 inn;
	int	 r;

	if (z->infdone) {
		cerr_set(err, "compressed stream ended by peer");
		return -1;
	}
	if (outlen > UINT_MAX)
		outlen = UINT_MAX;
	inn = *inlen > UINT_MAX ? UINT_MAX : *inlen;
	z->inf.next_in = (unsigned char *)(uintptr_t)*in;
	z->inf.avail_in = (uInt)inn;
	z->inf.next_out = out;
	z->inf.avail_out = (uInt)outlen;
	r = inflate(&z->inf, Z_SYNC_FLUSH);
	*in += inn - z->inf.avail_in;
	*inlen -= inn - z->inf.avail_in;
	switch (r) {
	case Z_OK:
	case Z_BUF_ERROR:	/* no progress possible: needs input */
		break;
	case Z_STREAM_END:
		/* A Radmind peer never finishes; treat it as a broken stream. */
		z->infdone = 1;
		cerr_set(err, "compressed stream ended by peer");
		return -1;
	default:
		cerr_set(err, "inflate: %s", z->inf.msg ? z->inf.msg :
		    "corrupt compressed data");
		return -1;
	}
	return (ssize_t)(outlen - z->inf.avail_out);
}
