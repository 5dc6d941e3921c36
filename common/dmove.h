/*
 * dmove.h: the basis of a file whose path moved between two versions
 * (docs/formats.md section 14.1, the version rule).
 *
 * A delta needs a basis the receiver holds.  A file whose path holds an
 * older version is its own basis.  A new file at a path that held
 * nothing, when the same update removes a file of the same path but for
 * its numbers (lib/modules/6.1.0-55-amd64/kernel/fs/ext4/ext4.ko, then
 * lib/modules/6.1.0-56-amd64/...; libfoo.so.1.2 then libfoo.so.1.3),
 * takes that removed file as its basis.  A version key of a path is
 * the path with every run of decimal digits written as one '#': first
 * in its directories only, the last name as it is (a module keeps its
 * own name when its directory's version changes), then, when no removed
 * file has that key, in the whole path.  Among the removed files of the
 * same key, the last in transcript order is the basis.  cairn-publish pairs the files of two loadsets by this rule
 * and lapply the lines of an applicable transcript, so both sides name
 * the same basis; where they do not, the file simply comes whole.
 *
 * Use: dmove_new, dmove_add for every removed file in transcript order
 * (its path and an id of the caller's), dmove_sort once, then dmove_find
 * for each new file.  Memory: the keys of the removed files.
 */
#ifndef CAIRN_DMOVE_H
#define CAIRN_DMOVE_H

#include <stddef.h>

struct dmove;

struct dmove	*dmove_new(void);
void		 dmove_free(struct dmove *);		/* NULL is fine */
void		 dmove_add(struct dmove *, const char *path, size_t id);
void		 dmove_sort(struct dmove *);
size_t		 dmove_count(const struct dmove *);
/*
 * The basis of a new file at path: 1 with *id the removed file's id, 0
 * when none has path's version key (or the only one is path itself).
 */
int		 dmove_find(const struct dmove *, const char *path,
		    size_t *id);
/*
 * A version key of path into key (at most strlen(path) + 1 bytes):
 * DMOVE_DIRS, digits collapsed in the directories, or DMOVE_ALL.
 */
#define DMOVE_DIRS	0
#define DMOVE_ALL	1
void		 dmove_key(const char *path, int which, char *key);

#endif
