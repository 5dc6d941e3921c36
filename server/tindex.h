/*
 * tindex.h: what a session's transcripts say of a path, found without
 * reading them again for each request.
 *
 * The first time a transcript is asked about, it is read once with the
 * one transcript reader (common/transcript.h), and every "f" line that
 * carries a checksum is indexed by a hash of its decoded path and its
 * place in the file: 16 bytes a line, nothing of the line itself.  A
 * lookup reads back the few lines whose hash matches and parses them
 * again, so the answer is always the line's own; a path given by two
 * lines, or by more lines of one hash than TINDEX_PROBE, has no answer.
 * An index stands while its file is the same one (device, inode, size,
 * modification time); a transcript replaced under the session is read
 * anew.  The session's indexes together hold at most the lines given to
 * tindex_new (the least recently used go first); a transcript that
 * alone has more answers nothing, and is not read again while it stays
 * the same.
 */
#ifndef CAIRN_TINDEX_H
#define CAIRN_TINDEX_H

#include <stddef.h>
#include <stdint.h>

#define TINDEX_MAXLINES	(2U << 20)	/* a session's lines: 32 MiB */
#define TINDEX_PROBE	8		/* lines read back for one lookup */

struct tindex;

struct tindex	*tindex_new(size_t maxlines);
void		 tindex_free(struct tindex *);	/* NULL is fine */

/*
 * The checksum (as printed, into cksum of len bytes) and the size that
 * the one "f" line for the decoded path gives in the transcript open on
 * fd (regular, at any offset; the index takes it, and closes it when it
 * is not needed), named name in messages.  Returns 1, or 0 if there is
 * none to be trusted (no such line, two of them, no checksum, a line
 * that does not parse, a transcript over the bound or unreadable).
 */
int		 tindex_find(struct tindex *, int fd, const char *name,
		    const char *path, char *cksum, size_t len, int64_t *size);

#endif
