/*
 * delta.c: make and apply deltas, a target file as one zstd frame with
 * a basis file as its prefix (docs/formats.md section 13).  The only
 * file calling zstd.
 *
 * The header and the zstd frame header are read here, by hand, before
 * zstd sees a byte: their sizes and flags decide what is allocated, so
 * they are checked against the limits of delta.h first.
 *
 * Built without zstd (configure --without-zstd), every function that
 * would make or apply a delta fails saying so, and delta_built() tells
 * the callers not to offer or ask for one.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "cksum.h"
#include "delta.h"
#include "fsutil.h"
#include "log.h"
#include "xmalloc.h"

#ifdef HAVE_ZSTD

#include <zstd.h>

#define DELTA_MAGIC		"CDLT"
#define DELTA_VERSION		1
#define DELTA_FIXED		24	/* header bytes before the names */
#define DELTA_ZMAGIC		0xFD2FB528U	/* zstd frame, little endian */
#define DELTA_FRAMEHDRMAX	14	/* without a dictionary ID */
#define DELTA_WINDOWLOG_MIN	10	/* RFC 8878 */
#define DELTA_READSZ		(128 * 1024)

#if (2 * DELTA_MAXFILE) > (1LL << DELTA_WINDOWLOG_MAX)
#error "DELTA_WINDOWLOG_MAX must cover a basis and a target"
#endif

enum delta_state {
	DELTA_HEAD,		/* reading the header and frame header */
	DELTA_FRAME,		/* zstd decodes */
	DELTA_DONE,		/* the frame has ended */
	DELTA_FAILED
};

struct delta_apply {
	enum delta_state	 state;
	int			 basisfd, outfd;
	struct cksum		*digest;
	unsigned char		 head[DELTA_HDRMAX + DELTA_FRAMEHDRMAX];
	size_t			 hlen;		/* bytes in head */
	size_t			 hsize;		/* header size, 0: not known */
	uint64_t		 bsize, tsize;	/* from the header */
	char			 name[DELTA_NAMEMAX + 1];
	char			 bdigest[DELTA_DIGESTMAX + 1];
	uint64_t		 fed;		/* delta bytes taken */
	uint64_t		 made;		/* target bytes written */
	int64_t			 want;		/* target size expected, -1 any */
	unsigned char		*basis;
	ZSTD_DCtx		*dctx;
	unsigned char		*obuf;
	size_t			 osize;
};

static void
delta_put64(unsigned char *p, uint64_t v)
{
	int	 i;

	for (i = 7; i >= 0; i--) {
		p[i] = v & 0xff;
		v >>= 8;
	}
}

static uint64_t
delta_get64(const unsigned char *p)
{
	uint64_t	 v = 0;
	int		 i;

	for (i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/* Little-endian, n bytes (zstd's frame header). */
static uint64_t
delta_getle(const unsigned char *p, size_t n)
{
	uint64_t	 v = 0;

	while (n-- > 0)
		v = v << 8 | p[n];
	return v;
}

int
delta_built(void)
{
	return 1;
}

size_t
delta_bound(uint64_t size)
{
	if (size > (uint64_t)DELTA_MAXFILE)
		size = DELTA_MAXFILE;
	return DELTA_HDRMAX + ZSTD_compressBound((size_t)size);
}

/* Nonzero if the n bytes at s are all in set. */
static int
delta_allin(const char *s, size_t n, const char *set)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (s[i] == '\0' || strchr(set, s[i]) == NULL)
			return 0;
	return 1;
}

#define DELTA_NAMECHARS		"abcdefghijklmnopqrstuvwxyz0123456789-"
#define DELTA_B64CHARS		"ABCDEFGHIJKLMNOPQRSTUVWXYZ" \
				"abcdefghijklmnopqrstuvwxyz0123456789+/="

/* The basis's digest, or -1 with err if name is not a digest here. */
static int
delta_digest(const char *name, const void *p, size_t len,
    char out[CKSUM_B64MAX], struct cerr *err)
{
	if (cksum_data(name, p, len, out) == 0)
		return 0;
	cerr_set(err, "delta: basis digest %s: unsupported checksum", name);
	return -1;
}

/*
 * Read the regular file at fd, from offset 0, into a new buffer of
 * exactly size bytes: a file of any other size is an error (what names
 * the file in it).
 */
static unsigned char *
delta_slurp(int fd, uint64_t size, const char *what, struct cerr *err)
{
	struct stat	 st;
	unsigned char	*p, extra;
	size_t		 off = 0;
	ssize_t		 n;

	if (fstat(fd, &st) == -1) {
		cerr_errno(err, "delta: %s", what);
		return NULL;
	}
	if (!S_ISREG(st.st_mode)) {
		cerr_set(err, "delta: %s is not a regular file", what);
		return NULL;
	}
	if ((uint64_t)st.st_size != size) {
		cerr_set(err, "delta: %s is %lld bytes, not %llu", what,
		    (long long)st.st_size, (unsigned long long)size);
		return NULL;
	}
	p = xmalloc(size > 0 ? (size_t)size : 1);
	for (;;) {
		n = pread(fd, off < size ? p + off : &extra,
		    off < size ? (size_t)size - off : 1, (off_t)off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			cerr_errno(err, "delta: %s: read", what);
			break;
		}
		if (n == 0 && off == size)
			return p;
		if (n == 0 || off == size) {
			cerr_set(err, "delta: %s changed size while read",
			    what);
			break;
		}
		off += (size_t)n;
	}
	free(p);
	return NULL;
}

int
delta_make(const void *basis, size_t bsize, const void *target,
    size_t tsize, const char *digest, int level, struct buf *out,
    struct cerr *err)
{
	unsigned char	 hdr[DELTA_HDRMAX];
	char		 b64[CKSUM_B64MAX];
	ZSTD_CCtx	*cctx;
	size_t		 nlen = 0, dlen = 0, bound, r;
	unsigned	 wlog;
	void		*dst, *copy = NULL;
	uintptr_t	 b0 = (uintptr_t)basis, t0 = (uintptr_t)target;

	if (bsize > (uint64_t)DELTA_MAXFILE ||
	    tsize > (uint64_t)DELTA_MAXFILE) {
		cerr_set(err, "delta: %zu bytes is over the delta maximum "
		    "of %lld", bsize > tsize ? bsize : tsize,
		    (long long)DELTA_MAXFILE);
		return -1;
	}
	if (level < ZSTD_minCLevel() || level > ZSTD_maxCLevel()) {
		cerr_set(err, "delta: level %d is not a zstd level", level);
		return -1;
	}
	b64[0] = '\0';
	if (digest != NULL) {
		nlen = strlen(digest);
		if (nlen == 0 || nlen > DELTA_NAMEMAX ||
		    !delta_allin(digest, nlen, DELTA_NAMECHARS)) {
			cerr_set(err, "delta: basis digest %s: unsupported "
			    "checksum", digest);
			return -1;
		}
		if (delta_digest(digest, basis, bsize, b64, err) == -1)
			return -1;
		dlen = strlen(b64);
	}
	memcpy(hdr, DELTA_MAGIC, 4);
	hdr[4] = DELTA_VERSION;
	hdr[5] = (unsigned char)nlen;
	hdr[6] = (unsigned char)dlen;
	hdr[7] = 0;
	delta_put64(hdr + 8, bsize);
	delta_put64(hdr + 16, tsize);
	memcpy(hdr + DELTA_FIXED, digest == NULL ? "" : digest, nlen);
	memcpy(hdr + DELTA_FIXED + nlen, b64, dlen);
	if (buf_add(out, hdr, DELTA_FIXED + nlen + dlen) == -1)
		goto toolong;

	/* the window reaches from the target's end to the basis's start */
	for (wlog = DELTA_WINDOWLOG_MIN; wlog < DELTA_WINDOWLOG_MAX &&
	    (1ULL << wlog) < (uint64_t)bsize + tsize; wlog++)
		;
	if ((cctx = ZSTD_createCCtx()) == NULL)
		fatalx("out of memory");
	bound = ZSTD_compressBound(tsize);
	r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, level);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_windowLog, (int)wlog);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(cctx,
		    ZSTD_c_enableLongDistanceMatching, 1);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_contentSizeFlag, 1);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(cctx, ZSTD_c_dictIDFlag, 0);
	if (!ZSTD_isError(r) && bsize > 0)
		r = ZSTD_CCtx_refPrefix(cctx, basis, bsize);
	/* zstd drops the part of a prefix that overlaps its input */
	if (bsize > 0 && tsize > 0 && b0 < t0 + tsize && t0 < b0 + bsize) {
		copy = xmalloc(tsize);
		memcpy(copy, target, tsize);
		target = copy;
	}
	if (!ZSTD_isError(r)) {
		if ((dst = buf_reserve(out, bound)) == NULL) {
			ZSTD_freeCCtx(cctx);
			free(copy);
			goto toolong;
		}
		r = ZSTD_compress2(cctx, dst, bound, target, tsize);
	}
	ZSTD_freeCCtx(cctx);
	free(copy);
	if (ZSTD_isError(r)) {
		cerr_set(err, "delta: zstd: %s", ZSTD_getErrorName(r));
		return -1;
	}
	buf_commit(out, r);
	return 0;
toolong:
	cerr_set(err, "delta: the output buffer is too small");
	return -1;
}

int
delta_make_fd(int basisfd, int targetfd, int outfd, const char *digest,
    int level, struct cerr *err)
{
	struct stat	 bst, tst;
	unsigned char	*basis = NULL, *target = NULL;
	struct buf	*out = NULL;
	int		 rc = -1;

	if (fstat(basisfd, &bst) == -1 || fstat(targetfd, &tst) == -1) {
		cerr_errno(err, "delta: fstat");
		return -1;
	}
	if (bst.st_size > DELTA_MAXFILE || tst.st_size > DELTA_MAXFILE) {
		cerr_set(err, "delta: %lld bytes is over the delta maximum "
		    "of %lld", (long long)(bst.st_size > tst.st_size ?
		    bst.st_size : tst.st_size), (long long)DELTA_MAXFILE);
		return -1;
	}
	if ((basis = delta_slurp(basisfd, (uint64_t)bst.st_size, "basis",
	    err)) == NULL ||
	    (target = delta_slurp(targetfd, (uint64_t)tst.st_size,
	    "target", err)) == NULL)
		goto out;
	out = buf_new(delta_bound((uint64_t)tst.st_size));
	if (delta_make(basis, (size_t)bst.st_size, target,
	    (size_t)tst.st_size, digest, level, out, err) == -1)
		goto out;
	if (fs_write_all(outfd, buf_data(out), buf_len(out)) == -1) {
		cerr_errno(err, "delta: write");
		goto out;
	}
	rc = 0;
out:
	buf_free(out);
	free(target);
	free(basis);
	return rc;
}

struct delta_apply *
delta_apply_new(int basisfd, int outfd, struct cksum *digest)
{
	struct delta_apply	*d;

	d = xcalloc(1, sizeof(*d));
	d->state = DELTA_HEAD;
	d->basisfd = basisfd;
	d->outfd = outfd;
	d->digest = digest;
	d->want = -1;
	return d;
}

void
delta_apply_want(struct delta_apply *d, int64_t size)
{
	d->want = size;
}

void
delta_apply_free(struct delta_apply *d)
{
	if (d == NULL)
		return;
	ZSTD_freeDCtx(d->dctx);
	free(d->obuf);
	free(d->basis);
	free(d);
}

int64_t
delta_apply_size(const struct delta_apply *d)
{
	return d->hsize > 0 ? (int64_t)d->tsize : -1;
}

/* The delta's own header, once its DELTA_FIXED bytes are in. */
static int
delta_header(struct delta_apply *d, struct cerr *err)
{
	const unsigned char	*h = d->head;
	size_t			 nlen, dlen;

	if (memcmp(h, DELTA_MAGIC, 4) != 0) {
		cerr_set(err, "delta: not a delta (no \"" DELTA_MAGIC
		    "\" at its start)");
		return -1;
	}
	if (h[4] != DELTA_VERSION) {
		cerr_set(err, "delta: version %u is not supported (only %u)",
		    h[4], DELTA_VERSION);
		return -1;
	}
	nlen = h[5];
	dlen = h[6];
	if (nlen > DELTA_NAMEMAX || dlen > DELTA_DIGESTMAX ||
	    (nlen == 0) != (dlen == 0) || h[7] != 0) {
		cerr_set(err, "delta: bad header (digest name %zu bytes, "
		    "digest %zu bytes, reserved byte %u)", nlen, dlen, h[7]);
		return -1;
	}
	d->bsize = delta_get64(h + 8);
	d->tsize = delta_get64(h + 16);
	if (d->bsize > (uint64_t)DELTA_MAXFILE ||
	    d->tsize > (uint64_t)DELTA_MAXFILE) {
		cerr_set(err, "delta: basis of %llu bytes, target of %llu: "
		    "over the delta maximum of %lld",
		    (unsigned long long)d->bsize,
		    (unsigned long long)d->tsize, (long long)DELTA_MAXFILE);
		return -1;
	}
	d->hsize = DELTA_FIXED + nlen + dlen;
	return 0;
}

/* The names after the fixed part, once they are in. */
static int
delta_names(struct delta_apply *d, struct cerr *err)
{
	const char	*p = (const char *)d->head + DELTA_FIXED;
	size_t		 nlen = d->head[5], dlen = d->head[6];

	if (!delta_allin(p, nlen, DELTA_NAMECHARS) ||
	    !delta_allin(p + nlen, dlen, DELTA_B64CHARS)) {
		cerr_set(err, "delta: bad header (digest name or digest)");
		return -1;
	}
	memcpy(d->name, p, nlen);
	d->name[nlen] = '\0';
	memcpy(d->bdigest, p + nlen, dlen);
	d->bdigest[dlen] = '\0';
	return 0;
}

/*
 * The zstd frame header at f (its first 5 bytes are in): its size, or
 * -1 with err set if it is not one this module makes: one frame, its
 * content size the header's target size, a checksum, no dictionary ID,
 * a window within DELTA_WINDOWLOG_MAX.
 */
static ssize_t
delta_framesize(const unsigned char *f, struct cerr *err)
{
	static const size_t	 fcsize[4] = { 0, 2, 4, 8 };
	unsigned		 fhd = f[4];
	int			 single = (fhd >> 5) & 1;

	if (delta_getle(f, 4) != DELTA_ZMAGIC) {
		cerr_set(err, "delta: no zstd frame after the header");
		return -1;
	}
	if ((fhd & 0x08) != 0 || (fhd & 0x03) != 0 || (fhd & 0x04) == 0 ||
	    ((fhd >> 6) == 0 && !single)) {
		cerr_set(err, "delta: zstd frame header 0x%02x: a frame "
		    "without content size or checksum, or with a "
		    "dictionary ID", fhd);
		return -1;
	}
	return 5 + !single + ((fhd >> 6) == 0 ? 1 : fcsize[fhd >> 6]);
}

static int
delta_frame(const struct delta_apply *d, const unsigned char *f,
    struct cerr *err)
{
	unsigned	 fhd = f[4], wd;
	int		 single = (fhd >> 5) & 1;
	size_t		 n = (fhd >> 6) == 0 ? 1 : (size_t)1 << (fhd >> 6);
	uint64_t	 fcs, window;

	fcs = delta_getle(f + 5 + !single, n);
	if (n == 2)
		fcs += 256;
	if (fcs != d->tsize) {
		cerr_set(err, "delta: the zstd frame holds %llu bytes, the "
		    "header says %llu", (unsigned long long)fcs,
		    (unsigned long long)d->tsize);
		return -1;
	}
	if (!single) {
		wd = f[5];
		window = 1ULL << (DELTA_WINDOWLOG_MIN + (wd >> 3));
		window += (window >> 3) * (wd & 7);
		if (window > (1ULL << DELTA_WINDOWLOG_MAX)) {
			cerr_set(err, "delta: zstd window of %llu bytes is "
			    "over the limit of %llu",
			    (unsigned long long)window,
			    1ULL << DELTA_WINDOWLOG_MAX);
			return -1;
		}
	}
	return 0;
}

/* Read the basis, check it, and set up the decoder. */
static int
delta_start(struct delta_apply *d, struct cerr *err)
{
	char	 b64[CKSUM_B64MAX];
	size_t	 r;

	if ((d->basis = delta_slurp(d->basisfd, d->bsize, "basis",
	    err)) == NULL)
		return -1;
	if (d->name[0] != '\0') {
		if (delta_digest(d->name, d->basis, (size_t)d->bsize, b64,
		    err) == -1)
			return -1;
		if (strcmp(b64, d->bdigest) != 0) {
			cerr_set(err, "delta: the basis is not the one the "
			    "delta was made from (%s %s, the delta's %s)",
			    d->name, b64, d->bdigest);
			return -1;
		}
	}
	if ((d->dctx = ZSTD_createDCtx()) == NULL)
		fatalx("out of memory");
	r = ZSTD_DCtx_setParameter(d->dctx, ZSTD_d_windowLogMax,
	    DELTA_WINDOWLOG_MAX);
	if (!ZSTD_isError(r) && d->bsize > 0)
		r = ZSTD_DCtx_refPrefix(d->dctx, d->basis, (size_t)d->bsize);
	if (ZSTD_isError(r)) {
		cerr_set(err, "delta: zstd: %s", ZSTD_getErrorName(r));
		return -1;
	}
	d->osize = ZSTD_DStreamOutSize();
	d->obuf = xmalloc(d->osize);
	return 0;
}

/* Decode len bytes of the frame, writing what comes out. */
static int
delta_decode(struct delta_apply *d, const void *p, size_t len,
    struct cerr *err)
{
	ZSTD_inBuffer	 in = { p, len, 0 };
	ZSTD_outBuffer	 out;
	size_t		 r;

	for (;;) {
		out.dst = d->obuf;
		out.size = d->osize;
		out.pos = 0;
		r = ZSTD_decompressStream(d->dctx, &out, &in);
		if (ZSTD_isError(r)) {
			cerr_set(err, "delta: corrupt: zstd: %s",
			    ZSTD_getErrorName(r));
			return -1;
		}
		d->made += out.pos;
		if (d->made > d->tsize) {
			cerr_set(err, "delta: corrupt: more than the %llu "
			    "bytes of the target",
			    (unsigned long long)d->tsize);
			return -1;
		}
		if (out.pos > 0 && fs_write_all(d->outfd, d->obuf,
		    out.pos) == -1) {
			cerr_errno(err, "delta: write");
			return -1;
		}
		if (d->digest != NULL)
			cksum_update(d->digest, d->obuf, out.pos);
		if (r == 0) {
			d->state = DELTA_DONE;
			if (in.pos < in.size) {
				cerr_set(err, "delta: corrupt: %zu bytes "
				    "after its zstd frame", in.size - in.pos);
				return -1;
			}
			return 0;
		}
		if (in.pos == in.size && out.pos < out.size)
			return 0;
	}
}

/*
 * Take bytes into the head (header and frame header) until it is
 * complete; *used gets how many were taken.  Returns 1 when the head is
 * complete and checked, 0 when more is needed, -1 with err.
 */
static int
delta_head(struct delta_apply *d, const unsigned char *p, size_t len,
    size_t *used, struct cerr *err)
{
	size_t	 want, n;
	ssize_t	 fsize = 0;

	*used = 0;
	for (;;) {
		if (d->hlen < DELTA_FIXED)
			want = DELTA_FIXED;
		else if (d->hsize == 0) {
			if (delta_header(d, err) == -1)
				return -1;
			continue;
		} else if (d->hlen < d->hsize + 5)
			want = d->hsize + 5;
		else {
			if (fsize == 0) {
				if ((fsize = delta_framesize(
				    d->head + d->hsize, err)) == -1)
					return -1;
			}
			want = d->hsize + (size_t)fsize;
			if (d->hlen == want) {
				if (delta_names(d, err) == -1 ||
				    delta_frame(d, d->head + d->hsize,
				    err) == -1)
					return -1;
				return 1;
			}
		}
		n = want - d->hlen;
		if (n > len - *used)
			n = len - *used;
		memcpy(d->head + d->hlen, p + *used, n);
		d->hlen += n;
		*used += n;
		if (d->hlen < want)
			return 0;
	}
}

int
delta_apply_feed(struct delta_apply *d, const void *p, size_t len,
    struct cerr *err)
{
	size_t	 used = 0;
	int	 r;

	if (d->state == DELTA_FAILED) {
		cerr_set(err, "delta: already failed");
		return -1;
	}
	if (d->state == DELTA_DONE && len > 0) {
		cerr_set(err, "delta: corrupt: %zu bytes after its zstd "
		    "frame", len);
		goto fail;
	}
	if (d->state == DELTA_HEAD) {
		if ((r = delta_head(d, p, len, &used, err)) == -1)
			goto fail;
		if (r == 0)
			return 0;
		if (d->want >= 0 && d->tsize != (uint64_t)d->want) {
			cerr_set(err, "delta: makes %llu bytes, not the %lld "
			    "expected", (unsigned long long)d->tsize,
			    (long long)d->want);
			goto fail;
		}
		if (delta_start(d, err) == -1)
			goto fail;
		d->state = DELTA_FRAME;
		d->fed = d->hlen;
		if (delta_decode(d, d->head + d->hsize, d->hlen - d->hsize,
		    err) == -1)
			goto fail;
		p = (const unsigned char *)p + used;
		len -= used;
	}
	d->fed += len;
	if (d->fed > delta_bound(d->tsize)) {
		cerr_set(err, "delta: corrupt: longer than a delta of %llu "
		    "bytes can be", (unsigned long long)d->tsize);
		goto fail;
	}
	if (len > 0 && delta_decode(d, p, len, err) == -1)
		goto fail;
	return 0;
fail:
	d->state = DELTA_FAILED;
	return -1;
}

int
delta_apply_end(struct delta_apply *d, struct cerr *err)
{
	switch (d->state) {
	case DELTA_DONE:
		if (d->made == d->tsize)
			return 0;
		cerr_set(err, "delta: corrupt: %llu bytes of %llu",
		    (unsigned long long)d->made,
		    (unsigned long long)d->tsize);
		break;
	case DELTA_FAILED:
		cerr_set(err, "delta: already failed");
		return -1;
	case DELTA_HEAD:
		cerr_set(err, "delta: truncated in its header (%zu bytes)",
		    d->hlen);
		break;
	case DELTA_FRAME:
		cerr_set(err, "delta: truncated (%llu bytes of the target "
		    "of %llu made)", (unsigned long long)d->made,
		    (unsigned long long)d->tsize);
		break;
	}
	d->state = DELTA_FAILED;
	return -1;
}

int
delta_apply_fd(int basisfd, int deltafd, int outfd, struct cksum *digest,
    struct cerr *err)
{
	struct delta_apply	*d;
	unsigned char		*buf;
	ssize_t			 n;
	int			 rc = -1;

	d = delta_apply_new(basisfd, outfd, digest);
	buf = xmalloc(DELTA_READSZ);
	for (;;) {
		n = read(deltafd, buf, DELTA_READSZ);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			cerr_errno(err, "delta: read");
			goto out;
		}
		if (n == 0)
			break;
		if (delta_apply_feed(d, buf, (size_t)n, err) == -1)
			goto out;
	}
	rc = delta_apply_end(d, err);
out:
	free(buf);
	delta_apply_free(d);
	return rc;
}

#else /* !HAVE_ZSTD */

#define DELTA_NOTBUILT	"delta transfer is not built in (configured " \
			"--without-zstd)"

struct delta_apply {
	int			 spent;
};

int
delta_built(void)
{
	return 0;
}

size_t
delta_bound(uint64_t size)
{
	if (size > (uint64_t)DELTA_MAXFILE)
		size = DELTA_MAXFILE;
	return DELTA_HDRMAX + (size_t)size;
}

int
delta_make(const void *basis, size_t bsize, const void *target,
    size_t tsize, const char *digest, int level, struct buf *out,
    struct cerr *err)
{
	(void)basis;
	(void)bsize;
	(void)target;
	(void)tsize;
	(void)digest;
	(void)level;
	(void)out;
	cerr_set(err, "%s", DELTA_NOTBUILT);
	return -1;
}

int
delta_make_fd(int basisfd, int targetfd, int outfd, const char *digest,
    int level, struct cerr *err)
{
	(void)basisfd;
	(void)targetfd;
	(void)outfd;
	(void)digest;
	(void)level;
	cerr_set(err, "%s", DELTA_NOTBUILT);
	return -1;
}

struct delta_apply *
delta_apply_new(int basisfd, int outfd, struct cksum *digest)
{
	(void)basisfd;
	(void)outfd;
	(void)digest;
	return xcalloc(1, sizeof(struct delta_apply));
}

int
delta_apply_feed(struct delta_apply *d, const void *p, size_t len,
    struct cerr *err)
{
	(void)p;
	(void)len;
	d->spent = 1;
	cerr_set(err, "%s", DELTA_NOTBUILT);
	return -1;
}

int
delta_apply_end(struct delta_apply *d, struct cerr *err)
{
	d->spent = 1;
	cerr_set(err, "%s", DELTA_NOTBUILT);
	return -1;
}

void
delta_apply_want(struct delta_apply *d, int64_t size)
{
	(void)d;
	(void)size;
}

void
delta_apply_free(struct delta_apply *d)
{
	free(d);
}

int64_t
delta_apply_size(const struct delta_apply *d)
{
	(void)d;
	return -1;
}

int
delta_apply_fd(int basisfd, int deltafd, int outfd, struct cksum *digest,
    struct cerr *err)
{
	(void)basisfd;
	(void)deltafd;
	(void)outfd;
	(void)digest;
	cerr_set(err, "%s", DELTA_NOTBUILT);
	return -1;
}

#endif /* HAVE_ZSTD */
