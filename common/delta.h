/*
 * delta.h: a file as its difference from a version the receiver already
 * has, the basis: one zstd frame made with the basis as its prefix and a
 * window reaching over basis and target, behind a small header that
 * names the basis by size and digest (docs/formats.md section 13).
 *
 * A delta is made once, by whoever holds both versions, and applied by
 * each receiver that holds the basis.  Everything a delta says is
 * checked before it is trusted: its sizes against DELTA_MAXFILE and the
 * basis, its zstd frame header against the limits below, its length
 * against what its target allows; the frame carries the target's size
 * and checksum, which zstd verifies, and the caller's own digest sees
 * every byte written.
 *
 * Memory: applying holds the basis (read, not mapped: a file another
 * process truncates under a mapping kills the reader with SIGBUS) and
 * zstd's window of the output, at most the target, plus about 0.4 MiB of
 * decoder state and buffers; so at most 2 * DELTA_MAXFILE + 1 MiB.
 * Making one holds both files, the delta and the encoder's tables (some
 * 100 MiB at DELTA_LEVEL).
 */
#ifndef CAIRN_DELTA_H
#define CAIRN_DELTA_H

#include <stddef.h>
#include <stdint.h>

/* The largest basis and the largest target a delta may have. */
#define DELTA_MAXFILE		(28LL << 20)
/* zstd window of a delta: 2^26 = 64 MiB covers basis and target. */
#define DELTA_WINDOWLOG_MAX	26
/* zstd level of delta_make (chosen on real package updates). */
#define DELTA_LEVEL		19
/* Longest header: 24 fixed bytes, a digest name, a base64 digest. */
#define DELTA_NAMEMAX		16
#define DELTA_DIGESTMAX		88
#define DELTA_HDRMAX		(24 + DELTA_NAMEMAX + DELTA_DIGESTMAX)

struct buf;
struct cerr;
struct cksum;
struct delta_apply;	/* opaque: one delta being applied */

/*
 * Nonzero if deltas can be made and applied: cairn was built with zstd.
 * Without it (configure --without-zstd) every function below that makes
 * or applies a delta fails saying so; cairnd offers no DELTA, lapply
 * asks none, cairn-publish keeps no bases.
 */
int	delta_built(void);

/*
 * The longest delta a target of size bytes may have: the header and
 * zstd's bound for the target.  A delta longer than that is refused.
 */
size_t	delta_bound(uint64_t size);

/*
 * Append to out the delta of target (tsize bytes) against basis (bsize
 * bytes) at zstd level (DELTA_LEVEL for the default).  digest names the
 * digest (cksum_new) of the basis the header carries, or is NULL for
 * none: then a basis of the right size but other content is found only
 * by the frame's checksum and the caller's digest of the result.  out
 * must be able to grow by delta_bound(tsize).  Returns 0, or -1 with err
 * set (a size over DELTA_MAXFILE, an unknown digest, an encoder error).
 */
int	delta_make(const void *basis, size_t bsize, const void *target,
	    size_t tsize, const char *digest, int level, struct buf *out,
	    struct cerr *err);

/*
 * The same between files: the basis and target files (read whole from
 * their start), the delta written to outfd.  Returns 0 or -1 with err.
 */
int	delta_make_fd(int basisfd, int targetfd, int outfd,
	    const char *digest, int level, struct cerr *err);

/*
 * Apply a delta fed in pieces.  delta_apply_new starts one against the
 * regular file basisfd (read from offset 0 once the header has named its
 * size); the result is written to outfd as it is decoded, and each byte
 * written is given to digest (may be NULL).  delta_apply_feed takes the
 * next len bytes of the delta; delta_apply_end says there are no more
 * and checks that the delta ended where its frame ends, with the target
 * whole.  feed and end return 0, or -1 with err set: the delta is then
 * spent (further calls fail) and what was written to outfd is to be
 * thrown away.  delta_apply_free (NULL is fine) frees all of it.
 */
struct delta_apply	*delta_apply_new(int basisfd, int outfd,
			    struct cksum *digest);
int			 delta_apply_feed(struct delta_apply *,
			    const void *, size_t, struct cerr *);
int			 delta_apply_end(struct delta_apply *, struct cerr *);
/* The target must be size bytes: another size in the header is an
   error before anything is decoded (call before the first feed). */
void			 delta_apply_want(struct delta_apply *, int64_t);
void			 delta_apply_free(struct delta_apply *);
/* The target's size once the header is read, else -1. */
int64_t			 delta_apply_size(const struct delta_apply *);

/*
 * Apply the delta read from deltafd (to its end) against basisfd into
 * outfd, as above.  Returns 0 or -1 with err set.
 */
int	delta_apply_fd(int basisfd, int deltafd, int outfd,
	    struct cksum *digest, struct cerr *err);

#endif
