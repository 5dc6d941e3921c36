/*
 * zstdconn.c: zstd compression of a connection (zstdconn.h).
 *
 * A struct zstdconn is the filter's arg (conn.h, struct conn_filter):
 * the compression and decompression contexts, the inflate guard, the
 * level state and the counters.  The decode side (zstdconn_decode)
 * touches only the decompression context and dinframe, which the
 * read-ahead thread may run beside everything else.
 *
 * Built without zstd (configure --without-zstd), the functions are
 * those of a connection zstd is never on: zstdconn_start fails saying
 * so, and nothing ever offers or asks for zstd (zlevel.c).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cerr.h"
#include "conn.h"
#include "xmalloc.h"
#include "zauto.h"
#include "zconn.h"
#include "zstdconn.h"

#ifdef HAVE_ZSTD

#define ZSTD_STATIC_LINKING_ONLY	/* ZSTD_getCParams: a level's window */
#include <zdict.h>
#include <zstd.h>
#include <zstd_errors.h>

#define ZSTDCONN_OUTCHUNK	(64 * 1024)	/* output made per step */
#define ZSTDCONN_SCRATCH	(8 * CONN_IOSIZE + 65536) /* level changes */
#define ZSTDCONN_RAWBLOCK	(128 * 1024)	/* the largest block */
#define ZSTDCONN_SMALL		(16 * 1024)	/* a small whole frame */
#define ZSTDCONN_NELEM(a)	(sizeof(a) / sizeof((a)[0]))

/* A frame's first bytes: its magic number, little-endian. */
static const unsigned char zstdconn_magic[4] = { 0x28, 0xb5, 0x2f, 0xfd };

/*
 * The header of a frame of raw blocks: the magic number; a frame header
 * descriptor with no content size, no checksum and no dictionary; and a
 * window descriptor of 128 KiB (exponent 17 - 10, no mantissa), the
 * most a block may hold.
 */
static const unsigned char zstdconn_rawhdr[6] = {
	0x28, 0xb5, 0x2f, 0xfd, 0x00, (17 - 10) << 3
};

struct zstdconn {
	struct conn	*c;
	ZSTD_CCtx	*cc;
	ZSTD_DCtx	*dc;
	ZSTD_CCtx	*trial;		/* level 1 trials (zauto.h), or NULL */
	ZSTD_CCtx	*small;		/* small whole frames, or NULL */
	struct buf	*tmp;		/* output made outside encode */
	int		 level;		/* output level now, 0: raw blocks */
	int		 base;		/* the level when not pinned */
	int		 pin;		/* pinned level, -1: none */
	int		 inframe;	/* a frame of output is open */
	/*
	 * Bytes given with no frame open, held until a flush makes them a
	 * small frame, or more make them the start of a frame.
	 */
	unsigned char	 hold[ZSTDCONN_SMALL];
	size_t		 nhold;
	int		 dirty;		/* input given since the last flush */
	int		 dinframe;	/* decode: inside a frame */
	struct zconn_guard guard;	/* inflate guard on lines */
	struct zconn_meter meter;	/* the automatic level, if on */
	zconn_capture_fn capfn;		/* sees compressed output, NULL */
	void		*caparg;
	/*
	 * The dictionary (zstdconn_use_dict), or NULL; the level of the
	 * compressor's reference to it (-1: none yet); the decoder's, from
	 * the next frame on (set by the thread that asked for it, taken by
	 * the one that decodes).
	 */
	struct zstdconn_dict *dict;
	int		 dictenc;	/* this side's frames made with it */
	int		 dlevel;
	ZSTD_DDict	*ddpend;

	/* Counters (struct connstats). */
	uint64_t	 zout;
	uint64_t	 lvl_raw[ZSTDCONN_MAXLEVEL + 1];
	uint64_t	 spliced_raw, spliced_wire;
};

/* A maker of one frame, for a cache entry (zstdconn_frame_new). */
struct zstdconn_frame {
	ZSTD_CCtx	*cc;
};

/*
 * A dictionary: its bytes, its id, the decoder's digested form, and the
 * encoder's, one per level, made at the first frame of that level.
 */
struct zstdconn_dict {
	unsigned char	*data;
	size_t		 len;
	unsigned	 id;
	ZSTD_DDict	*dd;
	ZSTD_CDict	*cd[ZSTDCONN_MAXLEVEL + 1];
	struct buf	*frame;		/* zstdconn_dict_frame, or NULL */
};

static const struct conn_filter zstdconn_ops;

static struct zstdconn *
zstdconn_get(const struct conn *c)
{
	return conn_filter(c, &zstdconn_ops);
}

/*
 * Set the compressor cc to level (1 and up), with the window level uses
 * by default but never more than ZSTDCONN_WINDOW, and its match tables
 * no larger than that window can use (zstd sizes them so for an input
 * of known size; the stream's size is never known): at level 19 the
 * tables for zstd's default 8 MiB window alone would hold 85 MB.  Only
 * between frames.  The stream and the maker of cache entries both set
 * theirs so.
 */
static int
zstdconn_cparams(ZSTD_CCtx *cc, int level, struct cerr *err)
{
	ZSTD_compressionParameters	 cp;
	size_t				 r;

	cp = ZSTD_getCParams(level, ZSTD_CONTENTSIZE_UNKNOWN, 0);
	if (cp.windowLog > ZSTDCONN_WINDOWLOG)
		cp.windowLog = ZSTDCONN_WINDOWLOG;
	/* Tables for an input of one window: what the window can use. */
	cp = ZSTD_adjustCParams(cp, 1ULL << cp.windowLog, 0);
	r = ZSTD_CCtx_setParameter(cc, ZSTD_c_compressionLevel, level);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(cc, ZSTD_c_windowLog,
		    (int)cp.windowLog);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(cc, ZSTD_c_hashLog,
		    (int)cp.hashLog);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(cc, ZSTD_c_chainLog,
		    (int)cp.chainLog);
	if (ZSTD_isError(r)) {
		cerr_set(err, "zstd level %d: %s", level, ZSTD_getErrorName(r));
		return -1;
	}
	return 0;
}

/* The stream's compressor at level: zstdconn_cparams. */
static int
zstdconn_params(struct zstdconn *zs, int level, struct cerr *err)
{
	return zstdconn_cparams(zs->cc, level, err);
}

/* Raw blocks for len bytes at p onto out, opening a frame if none is. */
static int
zstdconn_raw(struct zstdconn *zs, const unsigned char *p, size_t len,
    struct buf *out, struct cerr *err)
{
	unsigned char	 bh[3];
	size_t		 n;

	if (len > 0 && !zs->inframe) {
		if (buf_add(out, zstdconn_rawhdr, sizeof(zstdconn_rawhdr)) ==
		    -1)
			goto full;
		zs->inframe = 1;
	}
	while (len > 0) {
		n = len > ZSTDCONN_RAWBLOCK ? ZSTDCONN_RAWBLOCK : len;
		/* Block header: not last, type 0 (raw), size; 24 bits LE. */
		bh[0] = (unsigned char)((n << 3) & 0xff);
		bh[1] = (unsigned char)((n >> 5) & 0xff);
		bh[2] = (unsigned char)((n >> 13) & 0xff);
		if (buf_add(out, bh, sizeof(bh)) == -1 ||
		    buf_add(out, p, n) == -1)
			goto full;
		p += n;
		len -= n;
	}
	return 0;
full:
	cerr_set(err, "compressed output buffer full");
	return -1;
}

/* End the open frame of raw blocks: an empty last raw block. */
static int
zstdconn_rawend(struct zstdconn *zs, struct buf *out, struct cerr *err)
{
	static const unsigned char	 last[3] = { 0x01, 0x00, 0x00 };

	if (!zs->inframe)
		return 0;
	if (buf_add(out, last, sizeof(last)) == -1) {
		cerr_set(err, "compressed output buffer full");
		return -1;
	}
	zs->inframe = 0;
	return 0;
}

/*
 * Compress len bytes at p onto out with cc, then end as mode says: the
 * one loop of ZSTD_compressStream2, for the stream and for the maker of
 * cache entries.
 */
static int
zstdconn_compress(ZSTD_CCtx *cc, const void *p, size_t len,
    ZSTD_EndDirective mode, struct buf *out, struct cerr *err)
{
	ZSTD_inBuffer	 ib = { p, len, 0 };
	ZSTD_outBuffer	 ob;
	size_t		 r;

	for (;;) {
		if ((ob.dst = buf_reserve(out, ZSTDCONN_OUTCHUNK)) == NULL) {
			cerr_set(err, "compressed output buffer full");
			return -1;
		}
		ob.size = ZSTDCONN_OUTCHUNK;
		ob.pos = 0;
		r = ZSTD_compressStream2(cc, &ob, &ib, mode);
		buf_commit(out, ob.pos);
		if (ZSTD_isError(r)) {
			cerr_set(err, "zstd: %s", ZSTD_getErrorName(r));
			return -1;
		}
		/* Done: input taken, and with a flush nothing left in it. */
		if (ib.pos == ib.size && (mode == ZSTD_e_continue ? ob.pos <
		    ob.size : r == 0))
			break;
	}
	return 0;
}

/*
 * The compressor cc, between frames, from its next frame on: with the
 * dictionary d at level (its digested form made at the first use of
 * the level).
 */
int
zstdconn_dict_prepare(struct zstdconn_dict *d, int level, struct cerr *err)
{
	if (level < 1 || level > ZSTDCONN_MAXLEVEL) {
		cerr_set(err, "zstd dictionary %u: no level %d", d->id, level);
		return -1;
	}
	if (d->cd[level] == NULL && (d->cd[level] =
	    ZSTD_createCDict_byReference(d->data, d->len, level)) == NULL) {
		cerr_set(err, "zstd dictionary %u at level %d: out of memory",
		    d->id, level);
		return -1;
	}
	return 0;
}

static int
zstdconn_refdict(ZSTD_CCtx *cc, struct zstdconn_dict *d, int level,
    struct cerr *err)
{
	size_t	 r;

	if (zstdconn_dict_prepare(d, level, err) == -1)
		return -1;
	r = ZSTD_CCtx_refCDict(cc, d->cd[level]);
	if (ZSTD_isError(r)) {
		cerr_set(err, "zstd dictionary %u: %s", d->id,
		    ZSTD_getErrorName(r));
		return -1;
	}
	return 0;
}

/*
 * The bytes held as one whole frame, at the stream's level but in a
 * context of its own, told the frame's size so that zstd fits its
 * tables to it.
 */
static int
zstdconn_small(struct zstdconn *zs, struct buf *out, struct cerr *err)
{
	size_t	 r, n;

	if (zs->small == NULL && (zs->small = ZSTD_createCCtx()) == NULL) {
		cerr_set(err, "zstd: out of memory");
		return -1;
	}
	r = ZSTD_CCtx_setParameter(zs->small, ZSTD_c_compressionLevel,
	    zs->level);
	if (!ZSTD_isError(r))
		r = ZSTD_CCtx_setParameter(zs->small, ZSTD_c_contentSizeFlag,
		    0);
	if (ZSTD_isError(r)) {
		cerr_set(err, "zstd level %d: %s", zs->level,
		    ZSTD_getErrorName(r));
		return -1;
	}
	/*
	 * Small frames gain the most from a dictionary, and little from a
	 * high level: they take it at ZSTDCONN_DICTLEVEL at most, whose
	 * digested form is quick to make (a client's requests at level 19
	 * would otherwise wait 150 ms for a 1 MiB dictionary's).
	 */
	if (zs->dict != NULL && zs->dictenc && zstdconn_refdict(zs->small,
	    zs->dict, zs->level < ZSTDCONN_DICTLEVEL ? zs->level :
	    ZSTDCONN_DICTLEVEL, err) == -1)
		return -1;
	n = zs->nhold;
	zs->nhold = 0;
	return zstdconn_compress(zs->small, zs->hold, n, ZSTD_e_end, out, err);
}

/*
 * The stream's compressor: zstdconn_compress, keeping inframe.
 *
 * A few bytes given with no frame open (a reply, the lines before a
 * body spliced from the cache) are held: flushed, they are a frame of
 * their own (the end of a frame is a flush too), made by zstdconn_small.
 * The stream's context is never made to fit them, and never made at all
 * while every body comes from the cache: at level 19 its tables are
 * 36 MB, and clearing them cost a session more than all its replies.
 *
 * A frame
 * is never told its size, as ZSTD_e_end with all of it at once would:
 * zstd would fit the frame's tables to it, and between frames of other
 * sizes (the few lines around a spliced body, then a body) it drops and
 * remakes the context's tables, 36 MB at level 19 each time.  The
 * frame is begun first, then ended: every frame has the same tables.
 */
static int
zstdconn_run(struct zstdconn *zs, const void *p, size_t len,
    ZSTD_EndDirective mode, struct buf *out, struct cerr *err)
{
	size_t	 n;

	if (!zs->inframe && len <= ZSTDCONN_SMALL - zs->nhold) {
		if (len > 0)
			memcpy(zs->hold + zs->nhold, p, len);
		zs->nhold += len;
		if (mode == ZSTD_e_continue || zs->nhold == 0)
			return 0;
		return zstdconn_small(zs, out, err);
	}
	/* A frame of the stream's context starts: with the dictionary. */
	if (!zs->inframe && zs->dict != NULL && zs->dictenc &&
	    zs->dlevel != zs->level) {
		if (zstdconn_refdict(zs->cc, zs->dict, zs->level, err) == -1)
			return -1;
		zs->dlevel = zs->level;
	}
	if (zs->nhold > 0) {
		/* More than a small frame: the held bytes begin one. */
		n = zs->nhold;
		zs->nhold = 0;
		if (zstdconn_compress(zs->cc, zs->hold, n, ZSTD_e_continue,
		    out, err) == -1)
			return -1;
		zs->inframe = 1;
	}
	if (mode == ZSTD_e_end && !zs->inframe && len > 0) {
		if (zstdconn_compress(zs->cc, p, len, ZSTD_e_continue, out,
		    err) == -1)
			return -1;
		p = NULL;
		len = 0;
	}
	if (zstdconn_compress(zs->cc, p, len, mode, out, err) == -1)
		return -1;
	if (mode == ZSTD_e_end)
		zs->inframe = 0;
	else if (len > 0)
		zs->inframe = 1;
	return 0;
}

/*
 * A trial compression at level 1 of a sample (zauto.h), apart from the
 * stream, in a context of its own made at the first trial.
 */
static ssize_t
zstdconn_trial(void *arg, const void *p, size_t len)
{
	struct zstdconn	*zs = arg;
	void		*dst;
	size_t		 cap, r;

	if (zs->trial == NULL && (zs->trial = ZSTD_createCCtx()) == NULL)
		return -1;
	cap = ZSTD_compressBound(len);
	dst = xmalloc(cap);
	r = ZSTD_compressCCtx(zs->trial, dst, cap, p, len, 1);
	free(dst);
	return ZSTD_isError(r) ? -1 : (ssize_t)r;
}

/* Output made (onto out from before on): capture and count it. */
static void
zstdconn_made(struct zstdconn *zs, struct buf *out, size_t before)
{
	if (zs->capfn != NULL && buf_len(out) > before)
		zs->capfn(zs->caparg, (const unsigned char *)buf_data(out) +
		    before, buf_len(out) - before);
	zs->zout += buf_len(out) - before;
}

static int
zstdconn_encode(void *arg, const void *p, size_t len, int flush,
    struct buf *out, struct cerr *err)
{
	struct zstdconn	*zs = arg;
	size_t		 before = buf_len(out);
	uint64_t	 t0;
	int		 r;

	if (len == 0 && (flush == CONN_FLUSH_NONE ||
	    (flush == CONN_FLUSH_SYNC && !zs->dirty) ||
	    (flush == CONN_FLUSH_FULL && !zs->inframe && zs->nhold == 0)))
		return 0;
	if (zs->level == 0 && zs->pin < 0)
		zconn_meter_trial(&zs->meter, p, len, zstdconn_trial, zs);
	t0 = zconn_meter_now(&zs->meter);
	if (zs->level == 0) {
		/* A raw block is on a byte boundary: a flush adds nothing. */
		r = zstdconn_raw(zs, p, len, out, err);
		if (r == 0 && flush == CONN_FLUSH_FULL)
			r = zstdconn_rawend(zs, out, err);
	} else
		r = zstdconn_run(zs, p, len, flush == CONN_FLUSH_FULL ?
		    ZSTD_e_end : flush == CONN_FLUSH_SYNC ? ZSTD_e_flush :
		    ZSTD_e_continue, out, err);
	if (r == -1)
		return -1;
	zconn_meter_add(&zs->meter, len, buf_len(out) - before, t0);
	zs->dirty = flush == CONN_FLUSH_NONE && (zs->dirty || len > 0);
	zstdconn_made(zs, out, before);
	if ((size_t)zs->level < ZSTDCONN_NELEM(zs->lvl_raw))
		zs->lvl_raw[zs->level] += len;
	return 0;
}

static ssize_t
zstdconn_decode(void *arg, const unsigned char **in, size_t *inlen,
    void *out, size_t outlen, struct cerr *err)
{
	struct zstdconn	*zs = arg;
	ZSTD_inBuffer	 ib;
	ZSTD_outBuffer	 ob = { out, outlen, 0 };
	ZSTD_DDict	*dd;
	size_t		 r, n;

	for (;;) {
		if (!zs->dinframe) {
			/*
			 * A frame starts: it must be a zstd frame, not one
			 * of the legacy formats (which the window bound
			 * does not cover) nor a skippable frame.
			 */
			if (ob.pos > 0 || *inlen == 0)
				return (ssize_t)ob.pos;
			n = *inlen < sizeof(zstdconn_magic) ? *inlen :
			    sizeof(zstdconn_magic);
			if (memcmp(*in, zstdconn_magic, n) != 0) {
				cerr_set(err, "zstd: not a zstd frame "
				    "(starts %02x%02x%02x%02x)", (*in)[0],
				    n > 1 ? (*in)[1] : 0, n > 2 ? (*in)[2] : 0,
				    n > 3 ? (*in)[3] : 0);
				return -1;
			}
			if (n < sizeof(zstdconn_magic))
				return 0;
			dd = __atomic_exchange_n(&zs->ddpend, NULL,
			    __ATOMIC_ACQ_REL);
			if (dd != NULL && ZSTD_isError(r =
			    ZSTD_DCtx_refDDict(zs->dc, dd))) {
				cerr_set(err, "zstd dictionary: %s",
				    ZSTD_getErrorName(r));
				return -1;
			}
			zs->dinframe = 1;
		}
		ib.src = *in;
		ib.size = *inlen;
		ib.pos = 0;
		n = ob.pos;
		r = ZSTD_decompressStream(zs->dc, &ob, &ib);
		*in += ib.pos;
		*inlen -= ib.pos;
		if (ZSTD_isError(r)) {
			if (ZSTD_getErrorCode(r) ==
			    ZSTD_error_frameParameter_windowTooLarge)
				cerr_set(err, "zstd frame asks for a window "
				    "larger than %d KiB, the most allowed: "
				    "refused", ZSTDCONN_WINDOW / 1024);
			else if (ZSTD_getErrorCode(r) ==
			    ZSTD_error_dictionary_wrong)
				cerr_set(err, "zstd frame made with a "
				    "dictionary this session does not use: "
				    "refused");
			else
				cerr_set(err, "zstd: %s",
				    ZSTD_getErrorName(r));
			return -1;
		}
		if (r == 0) {
			zs->dinframe = 0;	/* decoded and all given */
			continue;
		}
		if (ob.pos == ob.size || *inlen == 0 ||
		    (ib.pos == 0 && ob.pos == n))
			return (ssize_t)ob.pos;
	}
}

/* Change the output level; any output (the frame's end) goes to out. */
static int
zstdconn_zlevel(struct zstdconn *zs, int level, struct buf *out,
    struct cerr *err)
{
	size_t	 before = buf_len(out);

	if (level == zs->level)
		return 0;
	if (zs->level == 0) {
		if (zstdconn_rawend(zs, out, err) == -1)
			return -1;
	} else if ((zs->inframe || zs->nhold > 0) &&
	    zstdconn_run(zs, NULL, 0, ZSTD_e_end, out, err) == -1)
		return -1;
	zstdconn_made(zs, out, before);
	zs->dirty = 0;
	if (level > 0 && zstdconn_params(zs, level, err) == -1)
		return -1;
	zs->level = level;
	return 0;
}

/* As zstdconn_zlevel, outside encode: the output joins the connection's. */
static int
zstdconn_relevel(struct zstdconn *zs, int level, struct cerr *err)
{
	struct cerr	 zerr;
	int		 r;

	if (level == zs->level)
		return 0;
	/* What was queued belongs to the level it was queued under. */
	if (conn_drain(zs->c, err) == -1)
		return -1;
	buf_reset(zs->tmp);
	if (zstdconn_zlevel(zs, level, zs->tmp, &zerr) == -1) {
		cerr_set(err, "%s: %s", conn_peer(zs->c), zerr.msg);
		return -1;
	}
	r = conn_wire_queue(zs->c, buf_data(zs->tmp), buf_len(zs->tmp), err);
	buf_reset(zs->tmp);
	return r;
}

/*
 * After output was compressed and written: give the automatic level
 * what was measured, and take its choice; a change of level ends the
 * frame (its end goes to out).  Not while pinned; and while output is
 * captured (a cache keeps one level's frame) the level stays: the
 * sample waits.
 */
static int
zstdconn_sent(void *arg, struct buf *out, struct cerr *err)
{
	struct zstdconn	*zs = arg;
	int		 level;

	if (zs->meter.za == NULL || zs->meter.raw == 0 || zs->capfn != NULL)
		return 0;
	if (zs->pin >= 0) {
		zconn_meter_zero(&zs->meter, zs->c);
		return 0;
	}
	level = zconn_meter_sample(&zs->meter, zs->c, zs->level, "zstd");
	if (level == zs->level)
		return 0;
	zs->base = level;
	return zstdconn_zlevel(zs, level, out, err);
}

static int
zstdconn_lines(void *arg, size_t n, uint64_t used, struct cerr *err)
{
	struct zstdconn	*zs = arg;

	return zconn_guard_lines(&zs->guard, n, used, err);
}

static void
zstdconn_stats(void *arg, struct connstats *st)
{
	struct zstdconn	*zs = arg;
	size_t		 i;

	st->level = zs->level;
	st->zout = zs->zout;
	for (i = 0; i < ZSTDCONN_NELEM(zs->lvl_raw) &&
	    i < ZSTDCONN_NELEM(st->lvl_raw); i++)
		st->lvl_raw[i] = zs->lvl_raw[i];
	st->spliced_raw = zs->spliced_raw;
	st->spliced_wire = zs->spliced_wire;
	st->zswitches = zs->meter.switches;
	/* Spliced bodies are plain bytes sent that conn never saw. */
	st->raw_out += zs->spliced_raw;
}

static void
zstdconn_free(void *arg)
{
	struct zstdconn	*zs = arg;

	if (zs == NULL)
		return;
	ZSTD_freeCCtx(zs->cc);
	ZSTD_freeCCtx(zs->trial);
	ZSTD_freeCCtx(zs->small);
	ZSTD_freeDCtx(zs->dc);
	zauto_free(zs->meter.za);
	buf_free(zs->tmp);
	free(zs);
}

static const struct conn_filter zstdconn_ops = {
	zstdconn_encode,
	zstdconn_decode,
	zstdconn_sent,
	zstdconn_lines,
	zstdconn_stats,
	zstdconn_free
};

int
zstdconn_start(struct conn *c, int level, int ratio, struct cerr *err)
{
	struct zstdconn	*zs;
	struct cerr	 zerr;
	size_t		 r;

	if (conn_filtered(c)) {
		cerr_set(err, "%s: compression already on", conn_peer(c));
		return -1;
	}
	zs = xcalloc(1, sizeof(*zs));
	zs->c = c;
	zs->tmp = buf_new(ZSTDCONN_SCRATCH);
	zs->pin = -1;
	zs->dlevel = -1;
	zs->guard.ratio = ratio;
	if ((zs->cc = ZSTD_createCCtx()) == NULL ||
	    (zs->dc = ZSTD_createDCtx()) == NULL) {
		cerr_set(err, "%s: zstd: out of memory", conn_peer(c));
		zstdconn_free(zs);
		return -1;
	}
	r = ZSTD_DCtx_setParameter(zs->dc, ZSTD_d_windowLogMax,
	    ZSTDCONN_WINDOWLOG);
	if (ZSTD_isError(r)) {
		cerr_set(err, "%s: zstd: %s", conn_peer(c),
		    ZSTD_getErrorName(r));
		zstdconn_free(zs);
		return -1;
	}
	if (level > 0 && zstdconn_params(zs, level, &zerr) == -1) {
		cerr_set(err, "%s: %s", conn_peer(c), zerr.msg);
		zstdconn_free(zs);
		return -1;
	}
	zs->level = zs->base = level;
	if (conn_set_filter(c, &zstdconn_ops, zs, err) == -1) {
		zstdconn_free(zs);
		return -1;
	}
	return 0;
}

int
zstdconn_on(const struct conn *c)
{
	return zstdconn_get(c) != NULL;
}

int
zstdconn_set_level(struct conn *c, int level, struct cerr *err)
{
	struct zstdconn	*zs = zstdconn_get(c);

	if (zs == NULL) {
		cerr_set(err, "%s: compression is off", conn_peer(c));
		return -1;
	}
	zconn_meter_stop(&zs->meter, c);
	zs->base = level;
	if (zs->pin >= 0)
		return 0;
	return zstdconn_relevel(zs, level, err);
}

int
zstdconn_set_auto(struct conn *c, int cap, struct cerr *err)
{
	struct zstdconn	*zs = zstdconn_get(c);

	if (zs == NULL) {
		cerr_set(err, "%s: compression is off", conn_peer(c));
		return -1;
	}
	zconn_meter_start(&zs->meter, c, ZAUTO_ZSTD, cap, zs->level);
	return 0;
}

int
zstdconn_recall(struct conn *c, const struct zauto_memo *m, struct cerr *err)
{
	struct zstdconn	*zs = zstdconn_get(c);

	if (zs == NULL || zs->meter.za == NULL)
		return 0;
	zauto_recall(zs->meter.za, m);
	zs->base = zauto_level(zs->meter.za);
	if (zs->pin >= 0)
		return 0;
	return zstdconn_relevel(zs, zs->base, err);
}

int
zstdconn_memo(const struct conn *c, struct zauto_memo *m)
{
	struct zstdconn	*zs = zstdconn_get(c);

	if (zs == NULL || zs->meter.za == NULL)
		return -1;
	return zauto_memo(zs->meter.za, m);
}

int
zstdconn_pin_level(struct conn *c, int level, struct cerr *err)
{
	struct zstdconn	*zs = zstdconn_get(c);
	struct cerr	 zerr;

	if (zs == NULL)
		return 0;
	if (level < 0)
		level = -1;
	if (level == zs->pin)
		return 0;
	/* The measurements so far belong to the level before. */
	if (zs->meter.za != NULL && conn_drain(c, err) == -1)
		return -1;
	buf_reset(zs->tmp);
	if (zstdconn_sent(zs, zs->tmp, &zerr) == -1) {
		cerr_set(err, "%s: %s", conn_peer(c), zerr.msg);
		return -1;
	}
	if (conn_wire_queue(c, buf_data(zs->tmp), buf_len(zs->tmp), err) == -1)
		return -1;
	zs->pin = level;
	return zstdconn_relevel(zs, level >= 0 ? level : zs->meter.za != NULL ?
	    zauto_level(zs->meter.za) : zs->base, err);
}

int
zstdconn_level(const struct conn *c)
{
	struct zstdconn	*zs = zstdconn_get(c);

	return zs != NULL ? zs->level : 0;
}

size_t
zstdconn_memory(const struct conn *c)
{
	struct zstdconn	*zs = zstdconn_get(c);

	if (zs == NULL)
		return 0;
	return ZSTD_sizeof_CCtx(zs->cc) + ZSTD_sizeof_DCtx(zs->dc) +
	    ZSTD_sizeof_CCtx(zs->trial) + ZSTD_sizeof_CCtx(zs->small);
}

void
zstdconn_set_capture(struct conn *c, zconn_capture_fn fn, void *arg)
{
	struct zstdconn	*zs = zstdconn_get(c);

	if (zs == NULL)
		return;
	zs->capfn = fn;
	zs->caparg = arg;
}

int
zstdconn_splice(struct conn *c, const void *p, size_t len, struct cerr *err)
{
	struct zstdconn	*zs = zstdconn_get(c);

	/* Between frames only: the stream's last one ended, nothing since. */
	if (zs == NULL || zs->inframe || zs->nhold > 0 ||
	    conn_queued(c) > 0) {
		cerr_set(err, "%s: splice outside a flushed stream",
		    conn_peer(c));
		return -1;
	}
	zs->zout += len;
	zs->spliced_wire += len;
	return conn_wire_queue(c, p, len, err);
}

int
zstdconn_splice_end(struct conn *c, uint64_t raw, int level,
    struct cerr *err)
{
	struct zstdconn	*zs = zstdconn_get(c);

	if (zs == NULL) {
		cerr_set(err, "%s: compression is off", conn_peer(c));
		return -1;
	}
	/*
	 * The frame spliced was complete: the next output starts a frame
	 * of its own, with nothing to reset (the last frame ended it).
	 */
	zs->spliced_raw += raw;
	if (level >= 0 && (size_t)level < ZSTDCONN_NELEM(zs->lvl_raw))
		zs->lvl_raw[level] += raw;
	/* Copying is not compressing: keep it out of the policy's view. */
	if (zs->meter.za != NULL)
		zconn_meter_zero(&zs->meter, c);
	return 0;
}

struct zstdconn_dict *
zstdconn_dict_new(const void *p, size_t len, struct cerr *err)
{
	struct zstdconn_dict	*d;
	unsigned		 id;

	if (len > ZSTDCONN_DICTMAX) {
		cerr_set(err, "zstd dictionary of %zu bytes: more than the "
		    "%d allowed", len, ZSTDCONN_DICTMAX);
		return NULL;
	}
	if ((id = ZSTD_getDictID_fromDict(p, len)) == 0) {
		cerr_set(err, "not a zstd dictionary (no dictionary header "
		    "and id)");
		return NULL;
	}
	d = xcalloc(1, sizeof(*d));
	d->data = xmalloc(len);
	memcpy(d->data, p, len);
	d->len = len;
	d->id = id;
	/* Its entropy tables are checked here, before any frame needs them. */
	if ((d->dd = ZSTD_createDDict_advanced(d->data, len, ZSTD_dlm_byRef,
	    ZSTD_dct_fullDict, ZSTD_defaultCMem)) == NULL) {
		cerr_set(err, "zstd dictionary %u: damaged (its tables do not "
		    "load)", id);
		zstdconn_dict_free(d);
		return NULL;
	}
	return d;
}

unsigned
zstdconn_dict_id(const struct zstdconn_dict *d)
{
	return d->id;
}

const void *
zstdconn_dict_data(const struct zstdconn_dict *d, size_t *len)
{
	*len = d->len;
	return d->data;
}

size_t
zstdconn_dict_memory(const struct zstdconn_dict *d)
{
	size_t	 n, l;

	if (d == NULL)
		return 0;
	n = d->len + ZSTD_sizeof_DDict(d->dd);
	for (l = 0; l < ZSTDCONN_NELEM(d->cd); l++)
		n += ZSTD_sizeof_CDict(d->cd[l]);
	return n;
}

const void *
zstdconn_dict_frame(struct zstdconn_dict *d, size_t *len, struct cerr *err)
{
	struct zstdconn_frame	*f;
	struct buf		*b;

	if (d->frame == NULL) {
		b = buf_new(ZSTD_compressBound(d->len) + 2 * ZSTDCONN_OUTCHUNK);
		if ((f = zstdconn_frame_new(ZSTDCONN_DICTLEVEL, NULL,
		    err)) == NULL)
			goto fail;
		if (zstdconn_frame_add(f, d->data, d->len, 1, b, err) == -1) {
			zstdconn_frame_free(f);
			goto fail;
		}
		zstdconn_frame_free(f);
		d->frame = b;
	}
	*len = buf_len(d->frame);
	return buf_data(d->frame);
fail:
	buf_free(b);
	return NULL;
}

void
zstdconn_dict_free(struct zstdconn_dict *d)
{
	size_t	 l;

	if (d == NULL)
		return;
	buf_free(d->frame);
	for (l = 0; l < ZSTDCONN_NELEM(d->cd); l++)
		ZSTD_freeCDict(d->cd[l]);
	ZSTD_freeDDict(d->dd);
	free(d->data);
	free(d);
}

int
zstdconn_dict_train(const void *samples, const size_t *sizes, unsigned n,
    void *dict, size_t cap, size_t *len, struct cerr *err)
{
	size_t	 r;

	r = ZDICT_trainFromBuffer(dict, cap, samples, sizes, n);
	if (ZDICT_isError(r)) {
		cerr_set(err, "zstd dictionary from %u samples: %s", n,
		    ZDICT_getErrorName(r));
		return -1;
	}
	*len = r;
	return 0;
}

int
zstdconn_use_dict(struct conn *c, struct zstdconn_dict *d, int encode,
    struct cerr *err)
{
	struct zstdconn	*zs = zstdconn_get(c);

	if (zs == NULL || zs->dict != NULL) {
		cerr_set(err, "%s: %s", conn_peer(c), zs == NULL ?
		    "zstd is off" : "a zstd dictionary is in use already");
		return -1;
	}
	zs->dict = d;
	zs->dictenc = encode;
	zs->dlevel = -1;
	__atomic_store_n(&zs->ddpend, d->dd, __ATOMIC_RELEASE);
	return 0;
}

unsigned
zstdconn_dict_used(const struct conn *c)
{
	struct zstdconn	*zs = zstdconn_get(c);

	return zs != NULL && zs->dict != NULL ? zs->dict->id : 0;
}

struct zstdconn_frame *
zstdconn_frame_new(int level, struct zstdconn_dict *d, struct cerr *err)
{
	struct zstdconn_frame	*f;

	f = xcalloc(1, sizeof(*f));
	if ((f->cc = ZSTD_createCCtx()) == NULL) {
		cerr_set(err, "zstd: out of memory");
		free(f);
		return NULL;
	}
	if (zstdconn_cparams(f->cc, level, err) == -1 ||
	    (d != NULL && zstdconn_refdict(f->cc, d, level, err) == -1)) {
		zstdconn_frame_free(f);
		return NULL;
	}
	return f;
}

int
zstdconn_frame_add(struct zstdconn_frame *f, const void *p, size_t len,
    int end, struct buf *out, struct cerr *err)
{
	/* Begun before it is ended, as the stream's (zstdconn_run). */
	if (end && len > 0) {
		if (zstdconn_compress(f->cc, p, len, ZSTD_e_continue, out,
		    err) == -1)
			return -1;
		p = NULL;
		len = 0;
	}
	return zstdconn_compress(f->cc, p, len, end ? ZSTD_e_end :
	    ZSTD_e_continue, out, err);
}

void
zstdconn_frame_free(struct zstdconn_frame *f)
{
	if (f == NULL)
		return;
	ZSTD_freeCCtx(f->cc);
	free(f);
}

#else /* !HAVE_ZSTD */

int
zstdconn_start(struct conn *c, int level, int ratio, struct cerr *err)
{
	(void)level;
	(void)ratio;
	cerr_set(err, "%s: zstd is not built in (configured --without-zstd)",
	    conn_peer(c));
	return -1;
}

int
zstdconn_on(const struct conn *c)
{
	(void)c;
	return 0;
}

int
zstdconn_set_level(struct conn *c, int level, struct cerr *err)
{
	(void)level;
	cerr_set(err, "%s: compression is off", conn_peer(c));
	return -1;
}

int
zstdconn_set_auto(struct conn *c, int cap, struct cerr *err)
{
	(void)cap;
	cerr_set(err, "%s: compression is off", conn_peer(c));
	return -1;
}

int
zstdconn_recall(struct conn *c, const struct zauto_memo *m, struct cerr *err)
{
	(void)c;
	(void)m;
	(void)err;
	return 0;
}

int
zstdconn_memo(const struct conn *c, struct zauto_memo *m)
{
	(void)c;
	(void)m;
	return -1;
}

int
zstdconn_pin_level(struct conn *c, int level, struct cerr *err)
{
	(void)c;
	(void)level;
	(void)err;
	return 0;
}

int
zstdconn_level(const struct conn *c)
{
	(void)c;
	return 0;
}

size_t
zstdconn_memory(const struct conn *c)
{
	(void)c;
	return 0;
}

void
zstdconn_set_capture(struct conn *c, zconn_capture_fn fn, void *arg)
{
	(void)c;
	(void)fn;
	(void)arg;
}

int
zstdconn_splice(struct conn *c, const void *p, size_t len, struct cerr *err)
{
	(void)p;
	(void)len;
	cerr_set(err, "%s: compression is off", conn_peer(c));
	return -1;
}

int
zstdconn_splice_end(struct conn *c, uint64_t raw, int level,
    struct cerr *err)
{
	(void)raw;
	(void)level;
	cerr_set(err, "%s: compression is off", conn_peer(c));
	return -1;
}

struct zstdconn_dict *
zstdconn_dict_new(const void *p, size_t len, struct cerr *err)
{
	(void)p;
	(void)len;
	cerr_set(err, "zstd is not built in (configured --without-zstd)");
	return NULL;
}

unsigned
zstdconn_dict_id(const struct zstdconn_dict *d)
{
	(void)d;
	return 0;
}

const void *
zstdconn_dict_data(const struct zstdconn_dict *d, size_t *len)
{
	(void)d;
	*len = 0;
	return NULL;
}

size_t
zstdconn_dict_memory(const struct zstdconn_dict *d)
{
	(void)d;
	return 0;
}

void
zstdconn_dict_free(struct zstdconn_dict *d)
{
	(void)d;
}

int
zstdconn_dict_train(const void *samples, const size_t *sizes, unsigned n,
    void *dict, size_t cap, size_t *len, struct cerr *err)
{
	(void)samples;
	(void)sizes;
	(void)n;
	(void)dict;
	(void)cap;
	*len = 0;
	cerr_set(err, "zstd is not built in (configured --without-zstd)");
	return -1;
}

int
zstdconn_use_dict(struct conn *c, struct zstdconn_dict *d, int encode,
    struct cerr *err)
{
	(void)d;
	(void)encode;
	cerr_set(err, "%s: zstd is off", conn_peer(c));
	return -1;
}

unsigned
zstdconn_dict_used(const struct conn *c)
{
	(void)c;
	return 0;
}

const void *
zstdconn_dict_frame(struct zstdconn_dict *d, size_t *len, struct cerr *err)
{
	(void)d;
	*len = 0;
	cerr_set(err, "zstd is not built in (configured --without-zstd)");
	return NULL;
}

int
zstdconn_dict_prepare(struct zstdconn_dict *d, int level, struct cerr *err)
{
	(void)d;
	(void)level;
	cerr_set(err, "zstd is not built in (configured --without-zstd)");
	return -1;
}

struct zstdconn_frame *
zstdconn_frame_new(int level, struct zstdconn_dict *d, struct cerr *err)
{
	(void)level;
	(void)d;
	cerr_set(err, "zstd is not built in (configured --without-zstd)");
	return NULL;
}

int
zstdconn_frame_add(struct zstdconn_frame *f, const void *p, size_t len,
    int end, struct buf *out, struct cerr *err)
{
	(void)f;
	(void)p;
	(void)len;
	(void)end;
	(void)out;
	cerr_set(err, "zstd is not built in (configured --without-zstd)");
	return -1;
}

void
zstdconn_frame_free(struct zstdconn_frame *f)
{
	(void)f;
}

#endif /* HAVE_ZSTD */
