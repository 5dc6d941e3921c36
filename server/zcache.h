/*
 * zcache.h: cairnd's cache of compressed file bodies (cairnd(8) -c).
 *
 * For a file served compressed, the compressed data its body became is
 * kept, per codec and level, under the file's SHA-1 (so equal files
 * share it), and spliced into later streams instead of compressing the
 * file again.  A zlib entry is self-contained deflate data made from an
 * empty window and ended by a sync or full flush (zstream.h), so
 * splicing it after a full flush is exactly what deflating the file
 * afresh would have sent, and after a sync flush it is still a valid
 * continuation of the stream.  A zstd entry is one complete zstd frame
 * made from an empty history with the stream's window bound
 * (zstdconn.h), spliced between two frames of the stream.  An entry is
 * only ever served to a session of its own codec and level.
 *
 * A source file is found again by device and inode; its record keeps
 * its size, modification and change times, and is believed only while
 * all of them are equal.  A record is only written for a file whose
 * change time was at least ZC_SETTLE seconds old before it was read and
 * is the same after: a later write to the file changes its change time,
 * so no entry is served once its source has changed.  Records also keep
 * the detector's verdict, so an incompressible file is sent stored next
 * time without looking at it; the verdict is the file's, whatever the
 * codec.
 *
 * A zstd entry may be made with the cache's dictionary (ZC_DICT,
 * docs/protocol.md section 9.3), for sessions that took it: its name
 * and header carry the dictionary's id, and it is only served to a
 * session using that dictionary.
 *
 * Layout under the cache directory: z/<digest>.<level> zlib entries and
 * z/<digest>.zstd<level>[d<dict id>] zstd entries (a 64-byte header line,
 * "cairn-zcache 1 <codec> <level> <plain bytes> <data bytes> [<dict
 * id>]", then the
 * compressed data; a zlib entry written before codecs were recorded has
 * no <codec> word, and is still read), i/<dev>-<ino> records, and
 * temporary files named ".tmp.<pid>.<n>" while they are written (those
 * of a process that is gone are removed by zcache_open, and in z/ by
 * zcache_trim too).  Entries are
 * the server's own files, trusted as the repository is, but an entry
 * whose header does not match its name and size is ignored.  They are
 * written by the session processes, and the whole is kept under its
 * size bound by the daemon (zcache_trim), oldest use first, whatever
 * the codec.
 */
#ifndef CAIRN_ZCACHE_H
#define CAIRN_ZCACHE_H

#include <sys/types.h>
#include <sys/stat.h>
#include <stdint.h>

#include "zlevel.h"

struct cerr;
struct zcache;
struct zfill;

#define ZC_SETTLE	2		/* s a source must be unchanged */
#define ZC_HEADER	64		/* entry header bytes */
#define ZC_DEFSIZE	(1LL << 30)	/* default bound (-S) */
#define ZC_TRIMGAP	10		/* s between trims */
#define ZC_DICT		"zdict"		/* the zstd dictionary, if any */
#define ZC_DICTSRC	"zdict.src"	/* ... the transcripts it is from */

/* What the cache knows of a source file, whatever the codec. */
#define ZC_UNKNOWN	0
#define ZC_DEFLATE	1	/* compressible; entries may exist */
#define ZC_STORED	2	/* judged incompressible */

struct zhit {
	int		 verdict;	/* ZC_* */
	int		 fd;		/* entry, at its data; -1: none */
	int		 level;		/* of the entry */
	uint64_t	 len;		/* compressed bytes in the entry */
};

/*
 * Open (creating z/ and i/ if needed) the cache in dir, bounded to
 * bound bytes (0: no bound).
 */
struct zcache	*zcache_open(const char *dir, int64_t bound, struct cerr *err);
void		 zcache_close(struct zcache *);		/* NULL is fine */

/*
 * Look up source st: h->verdict, and an entry of codec made at a level
 * from hi down to lo (the first found; levels outside the codec's that
 * compress are never looked for) with the dictionary of id dict (0:
 * without one).  Returns 0; h->fd -1 when no entry.
 */
int		 zcache_find(struct zcache *, const struct stat *st,
		    enum zlevel_codec codec, unsigned dict, int lo, int hi,
		    struct zhit *h);
/* Nonzero if source st changed long enough ago to be trusted. */
int		 zcache_settled(const struct stat *st);
/* Remember that source st was judged incompressible. */
void		 zcache_stored(struct zcache *, const struct stat *st);

/*
 * Start keeping the compressed data of source st made by codec at level
 * (one that compresses), with the dictionary of id dict (0: none); NULL when the source is too fresh to be
 * trusted (ZC_SETTLE) or the temporary file cannot be made.  Feed it the
 * plain bytes (zcache_fill_src) and the compressed data
 * (zcache_fill_data) as they pass, then end it: with ok and the source
 * unchanged (fstat of srcfd equal to st) the entry and its record are
 * committed, else everything is discarded.
 */
struct zfill	*zcache_fill_begin(struct zcache *, const struct stat *st,
		    enum zlevel_codec codec, unsigned dict, int level);
void		 zcache_fill_src(struct zfill *, const void *, size_t);
void		 zcache_fill_data(void *fill, const void *, size_t);
int		 zcache_fill_end(struct zfill *, int ok, int srcfd);

/*
 * The cache's zstd dictionary (ZC_DICT, read by zcache_open: a file
 * there that is not one is zcache_open's error), or NULL.  It holds
 * pieces of the files it was trained on: it is recorded with the
 * transcripts those files are from (ZC_DICTSRC; without that record it
 * is not used), and given only to a session that may fetch each of
 * them, while each is as it was then (zcache_dict_for: allowed(arg,
 * name) for each, and zcache_dict_fresh).
 */
struct zstdconn_dict *zcache_dict(const struct zcache *);
/* Its SHA-256, in base64, by which a client that kept it names it. */
const char	*zcache_dict_sum(const struct zcache *);
int		 zcache_dict_fresh(const struct zcache *, int rootfd);
/*
 * When the dictionary in use is no longer current (zcache_dict_fresh),
 * read ZC_DICT and ZC_DICTSRC again: a cairnd -W run since may have
 * trained a new one.  The daemon calls it now and then, so that the
 * sessions it starts next have it.  1 when a current one is in use
 * again (logged), else 0 (a damaged file is logged, and no dictionary
 * used).
 */
int		 zcache_dict_refresh(struct zcache *, int rootfd);
int		 zcache_dict_for(const struct zcache *, int rootfd,
		    int (*allowed)(void *, const char *), void *arg);
/*
 * A new dictionary from len bytes at p, trained on the transcripts src
 * (their names in transcript/ and their stat before training), checked,
 * written with its record over ZC_DICT and ZC_DICTSRC and used from now
 * on (entries made with the old one are left to zcache_trim).
 */
struct zcache_src {
	const char	*name;
	struct stat	 st;
};
int		 zcache_set_dict(struct zcache *, const void *p, size_t len,
		    const struct zcache_src *src, size_t nsrc,
		    struct cerr *err);

/*
 * Remove least recently used entries until the cache is under its
 * bound (records of sources go when their files are gone).  Returns
 * the number of entries removed.
 */
int		 zcache_trim(struct zcache *);

#endif
