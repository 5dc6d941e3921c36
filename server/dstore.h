/*
 * dstore.h: the repository's store for delta transfer (docs/formats.md
 * section 14): old versions of files kept as bases, and the deltas
 * (common/delta.h) from a base to a newer version, each built once for
 * the whole fleet.
 *
 * Layout under the repository, one directory per digest algorithm (the
 * transcripts' checksum, cairn-publish -c):
 *
 *	delta/<alg>/base/<d>		a kept base: the file's bytes
 *	delta/<alg>/owner/<d>		its owners: loadset names, one a
 *					line, encoded as transcript paths;
 *					its modification time is the base's
 *					last use
 *	delta/<alg>/delta/<b>.<t>	the delta from base b to target t
 *	delta/<alg>/delta/<b>.<t>.none	the verdict that it is not worth
 *					keeping (DSTORE_MARGIN)
 *	delta/<alg>/queue/<b>.<t>	a delta to build: the target's path
 *					in the repository, encoded
 *
 * where <d>, <b>, <t> are digests in base64 as transcripts print them,
 * with '/' written '_'.  Files are written under ".tmp.*" names and
 * renamed into place when whole; nothing else is ever trusted.
 *
 * Every digest that becomes a name is checked first (dstore_digest_ok):
 * the base64 alphabet and the exact length of the algorithm's digest.
 * A base's content is checked against its digest before it is used; a
 * base that no longer matches is removed, with its deltas.
 *
 * The access rule: a client may have a base used for it only if one of
 * the base's owners is on its access list (the loadsets of its command
 * files).  Everything that answers a client answers "none" alike for a
 * malformed digest, an unknown base, a base it may not use and a delta
 * not built.
 *
 * Mutations (put, drop, trim) take a lock on delta/<alg>; building takes
 * another on delta/<alg>/queue, so one builder runs at a time.
 */
#ifndef CAIRN_DSTORE_H
#define CAIRN_DSTORE_H

#include <stddef.h>
#include <stdint.h>

struct cerr;
struct dstore;

#define DSTORE_DIR	"delta"		/* under the repository */
#define DSTORE_DEFBOUND	(2LL << 30)	/* default bound of the bases */
#define DSTORE_MARGIN	10		/* % a delta must save over zlib */
#define DSTORE_ZLEVEL	6		/* ... at this level, whole file */
#define DSTORE_OWNERMAX	(1 << 20)	/* largest owners record read */

/*
 * Open the store of algorithm alg (a digest cksum_new knows) under the
 * repository rootfd, creating its directories if create.  bound: the
 * most bytes of bases kept (0: none).  NULL with err on failure.
 */
struct dstore	*dstore_open(int rootfd, const char *alg, int64_t bound,
		    int create, struct cerr *err);
void		 dstore_close(struct dstore *);		/* NULL is fine */

/* Nonzero if s is a digest of the store's algorithm, as printed. */
int		 dstore_digest_ok(const struct dstore *, const char *s);

/*
 * Keep the regular file rel (beneath rootfd, no symbolic link on the
 * way) as the base of digest d, and add owner to its owners.  The file
 * is linked when it can be (no copy, no space until its loadset goes),
 * else copied.  A base already kept only gains the owner.  Its content
 * is not read here: it is checked when used.  Returns 1 if kept, 0 if
 * not (a bound of 0, a file over DELTA_MAXFILE or over the bound), or
 * -1 with err.  dstore_sync makes what was kept durable.
 */
int		 dstore_put(struct dstore *, const char *d, const char *rel,
		    const char *owner, struct cerr *err);
int		 dstore_sync(struct dstore *, struct cerr *err);

/*
 * The access rule: nonzero if base d is kept and one of its owners is
 * one of the nacl names in acl (decoded loadset names).
 */
int		 dstore_allowed(struct dstore *, const char *d,
		    char *const *acl, size_t nacl);

/*
 * The delta from base b to target t for a client with access list acl:
 * a descriptor at the start of the delta, and its length in *len; the
 * use is recorded.  -1 when there is none to send it, whatever the
 * reason (see above).  t is the caller's to vouch for: the checksum of
 * the file the client asked for, read from a transcript it may read.
 */
int		 dstore_delta_open(struct dstore *, const char *b,
		    const char *t, char *const *acl, size_t nacl,
		    uint64_t *len);

/*
 * Open base d for reading, at offset 0 (its content is checked by
 * dstore_build, which reads it whole); -1 with errno if there is none.
 */
int		 dstore_base_open(struct dstore *, const char *d);

/* Remove base d, its owners, its deltas and its queued builds. */
void		 dstore_drop(struct dstore *, const char *d);

/* What dstore_build did. */
#define DSTORE_BUILT	0	/* the delta is kept */
#define DSTORE_WORSE	1	/* not worth it: the verdict is kept */
#define DSTORE_KNOWN	2	/* delta or verdict there already */
#define DSTORE_SKIP	3	/* a file over DELTA_MAXFILE: none */
struct dstore_built {
	uint64_t	 tsize;		/* target bytes */
	uint64_t	 dsize;		/* delta bytes */
	uint64_t	 zsize;		/* target deflated (DSTORE_ZLEVEL) */
};

/*
 * Build the delta from base b (basisfd) to target t (targetfd), both
 * read whole from offset 0, once, and checked against their digests:
 * the delta is made from the very bytes checked.  Keep it, or the
 * verdict that it saves less than DSTORE_MARGIN percent of the target
 * deflated.  Memory: both files, the delta and zstd's tables
 * (delta.h).  Returns DSTORE_*, or -1 with err (a base that does not
 * match b is removed).
 */
int		 dstore_build(struct dstore *, const char *b, int basisfd,
		    const char *t, int targetfd, struct dstore_built *,
		    struct cerr *err);

/*
 * Queue the delta from base b to target t, whose file is rel in the
 * repository, for dstore_drain.  Returns 0, or -1 with err.
 */
int		 dstore_queue(struct dstore *, const char *b, const char *t,
		    const char *rel, struct cerr *err);

/*
 * Build what is queued (only the targets under file/<loadset>/ unless
 * loadset is NULL), one at a time, each entry removed once done.  done
 * is called after each with its outcome (DSTORE_* or -1 and err).
 * Returns the number that failed.
 */
typedef void	(*dstore_done_fn)(void *ctx, const char *rel, int outcome,
		    const struct dstore_built *, const struct cerr *err);
int		 dstore_drain(struct dstore *, const char *loadset,
		    dstore_done_fn done, void *ctx);

/*
 * Keep every algorithm's store under its bounds: bases over bound go
 * (0: all of them), then deltas over dbound (0: no bound), oldest use
 * first; and whatever has lost its base, and temporary files left by a
 * writer that died.  Returns the number of files removed.
 */
int		 dstore_trim(int rootfd, int64_t bound, int64_t dbound);

#endif
