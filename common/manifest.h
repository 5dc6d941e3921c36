/*
 * manifest.h: the release manifest (docs/formats.md section 15): a
 * serial that only grows, a creation and an expiry time, and the size
 * and digest of every command file, transcript and special file the
 * server hands out, and the answers a STAT SPECIAL may truthfully get
 * (kind stat: a special file's content with its type, mode and owners).
 * Written by cairn-publish, signed (sig.h), checked by ktcheck before
 * anything changes.
 *
 * The parser is bounded (MANIFEST_MAX bytes, MANIFEST_LINEMAX a line,
 * MANIFEST_ENTMAX entries) and strict: anything but the exact format is
 * an error "<source>: line N: <what>".
 */
#ifndef CAIRN_MANIFEST_H
#define CAIRN_MANIFEST_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct cerr;

#define MANIFEST_MAX		(64 << 20)
#define MANIFEST_LINEMAX	8192
#define MANIFEST_ENTMAX		(4 << 20)
#define MANIFEST_DIGEST		"sha256"	/* what cairn-publish writes */

enum manifest_kind {
	MANIFEST_COMMAND = 0,	/* under command/ */
	MANIFEST_TRANSCRIPT,	/* under transcript/ */
	MANIFEST_SPECIAL,	/* under special/ */
	MANIFEST_STAT		/* a special file as a host is given it */
};

/* Each of a stat entry's mode, uid and gid: at most this many bytes. */
#define MANIFEST_METAMAX	63

struct manifest_ent {
	enum manifest_kind	 kind;
	char			*name;		/* decoded, relative */
	uint64_t		 size;
	char			 digest[96];	/* base64, as transcripts */
	char			*meta;		/* stat: "<type> <mode> <uid>
						   <gid>", else NULL */
};

struct manifest {
	uint64_t		 serial;	/* 1 .. 2^63-1 */
	int64_t			 created;	/* seconds since the epoch */
	int64_t			 expires;	/* > created */
	char			 digest[16];	/* sha256, sha384, sha512 */
	struct manifest_ent	*ent;		/* sorted: kind, then name
						   (stat: then size, digest,
						   meta) */
	size_t			 nent;
	size_t			 cap;		/* ent's room */
};

/*
 * Parse len bytes at p (a whole manifest file); source names it in
 * errors.  Returns 0 with *m filled (manifest_free it), or -1 with err.
 */
int	manifest_parse(const void *p, size_t len, const char *source,
	    struct manifest *m, struct cerr *err);
void	manifest_free(struct manifest *);

/*
 * The entry of kind and decoded name, or NULL.  O(log n).  Several stat
 * entries may share a name: the first of them is returned, the others
 * follow it in m->ent.
 */
const struct manifest_ent *manifest_find(const struct manifest *,
	    enum manifest_kind kind, const char *name);

/*
 * Does content of size bytes and digest (base64, of m->digest) match the
 * entry of kind and name (name NULL: any entry of that kind)?  1 yes, 0
 * no.
 */
int	manifest_match(const struct manifest *, enum manifest_kind kind,
	    const char *name, uint64_t size, const char *digest);

/*
 * Write m to out in the exact format (entries must be sorted and unique:
 * -1 with err otherwise).  manifest_build scans the repository at rootfd
 * (command/, transcript/, special/, through the confined walker, never
 * following a symbolic link out of the repository) into m's entries,
 * digesting each file with m->digest.  Both return 0 or -1 with err.
 */
int	manifest_write(const struct manifest *, struct buf *out,
	    struct cerr *err);
int	manifest_build(int rootfd, struct manifest *m, struct cerr *err);

/*
 * A stat entry's metadata from the four fields of a STAT reply or a
 * transcript line: type "f" or "a", mode 1 to MANIFEST_METAMAX octal
 * digits, uid and gid as many decimal digits, perhaps after a "-"; each
 * kept as written ("0644" is not "644").  Returns the malloc'd
 * "<type> <mode> <uid> <gid>", or NULL when a field is not of that form.
 */
char	*manifest_meta(const char *type, const char *mode, const char *uid,
	    const char *gid);

/*
 * Append the entry e (m takes its name and meta) to m's entries: 0, or
 * -1 with err when m holds MANIFEST_ENTMAX already (e's strings are then
 * freed).  manifest_sort puts the entries in their order and drops the
 * exact duplicates of stat entries (other duplicates stay, for
 * manifest_write to refuse).
 */
int	manifest_push(struct manifest *, struct manifest_ent *e,
	    struct cerr *err);
void	manifest_sort(struct manifest *);

#endif
