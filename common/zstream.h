/*
 * zstream.h: the zlib layer of a connection (docs/protocol.md section 9).
 *
 * One continuous zlib stream (RFC 1950, windowBits 15) per direction:
 * deflate on the way out, inflate on the way in.  The stream is never
 * finished (no Z_FINISH); output ends on a byte boundary whenever the
 * caller asks for a sync or full flush.  The compression level may be
 * changed between writes (deflateParams); the receiver needs no notice.
 *
 * Only zstream.c and conn.c call zlib.  Functions return 0 (or a byte
 * count) on success and -1 with a message in err on failure.
 */
#ifndef CAIRN_ZSTREAM_H
#define CAIRN_ZSTREAM_H

#include <stddef.h>
#include <sys/types.h>

struct buf;
struct cerr;
struct zstream;

#define ZS_NOFLUSH	0	/* let deflate buffer as it likes */
#define ZS_SYNC		1	/* Z_SYNC_FLUSH: byte boundary, 00 00 ff ff */
#define ZS_FULL		2	/* Z_FULL_FLUSH: as SYNC, and forget history */

/*
 * zlib's levels: 0 (stored blocks) to ZS_MAXLEVEL.  Which of them a
 * session may use, and the checks of a level's number, are zlevel.h's:
 * the functions below take a level it has checked (zlib itself refuses
 * any other).
 */
#define ZS_MAXLEVEL	9

/*
 * New pair of streams; the output side deflates at level (0 sends
 * stored blocks: the data as they are, framed).
 */
struct zstream	*zstream_new(int level, struct cerr *err);
void		 zstream_free(struct zstream *);	/* NULL is fine */

/* Current / new deflate level. */
int		 zstream_level(const struct zstream *);
/*
 * Change the level for data deflated from now on.  Input already given
 * to zstream_deflate is compressed at the old level; any output this
 * produces is appended to out.
 */
int		 zstream_setlevel(struct zstream *, int level, struct buf *out,
		    struct cerr *err);

/*
 * Compress len bytes of in and append the output to out (whose cap must
 * allow it).  flush is ZS_NOFLUSH, ZS_SYNC or ZS_FULL.
 */
int		 zstream_deflate(struct zstream *, const void *in, size_t len,
		    int flush, struct buf *out, struct cerr *err);

/*
 * Inflate from *in (*inlen bytes; both are advanced past what was used)
 * into out (at most outlen bytes).  Returns the number of bytes produced,
 * which may be 0 when more input is needed, or -1 on corrupt data or a
 * finished stream (the protocol never ends a stream).
 */
ssize_t		 zstream_inflate(struct zstream *, const unsigned char **in,
		    size_t *inlen, void *out, size_t outlen, struct cerr *err);

/*
 * Bytes that deflating p (n bytes, at most ZS_TRIALMAX are used) at
 * level 1 from an empty window gives; -1 if zlib fails.  A trial, for
 * judging data before sending it.
 */
#define ZS_TRIALMAX	(8 * 1024)
ssize_t		 zstream_trial(const void *p, size_t n);

/*
 * Splicing ready-made deflate data (a cache entry) into the stream.
 * zstream_aligned() is nonzero when the output so far ends in a sync or
 * full flush (ZS_SYNC, ZS_FULL) with nothing deflated since: only then
 * may zstream_splice() append len bytes of deflate blocks, which must be
 * self-contained (no reference to data before them), none of them final,
 * ending on a byte boundary with no history needed after them (as a raw
 * deflate stream made from an empty window and ended by a sync or full
 * flush, which write the same bytes).  The history before the splice
 * does not matter: the spliced data never refers to it.
 * zstream_resume() resets the compressor afterwards, so that nothing
 * deflated later refers back across the spliced bytes.
 * zstream_fresh() is nonzero when nothing deflated from now on can refer
 * to anything before: right after a full flush, zstream_resume() or
 * zstream_new().
 */
int		 zstream_aligned(const struct zstream *);
int		 zstream_fresh(const struct zstream *);
/*
 * Make z a maker of such data: no zlib header, output as from an empty
 * window (call right after zstream_new; end with a ZS_FULL deflate).
 */
void		 zstream_headless(struct zstream *);
int		 zstream_splice(struct zstream *, const void *, size_t,
		    struct buf *out, struct cerr *err);
int		 zstream_resume(struct zstream *, struct cerr *err);

#endif
