/*
 * confine.h: the one way cairn opens a path that a peer named.
 *
 * A path from the network or a transcript is resolved beneath a
 * directory descriptor the caller holds, never following a symbolic link
 * and never leaving that directory.  Where the kernel has openat2(2),
 * one call with RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS does the walk;
 * otherwise (chosen at run time, the first time openat2 is refused) each
 * component is opened from the previous one with O_NOFOLLOW|O_DIRECTORY.
 * Either way a component swapped for a symbolic link while the walk runs
 * stops it instead of being followed.
 *
 * Paths are relative: components separated by '/', where empty and "."
 * components are skipped (so "./a//b" is "a/b") and a ".." component is
 * refused (EACCES) before anything is opened.  At most CONFINE_MAXDEPTH
 * components and NAME_MAX bytes each (ENAMETOOLONG).  A symbolic link
 * where a directory is needed fails with ELOOP, any other non-directory
 * with ENOTDIR.
 */
#ifndef CAIRN_CONFINE_H
#define CAIRN_CONFINE_H

#include <sys/types.h>
#include <sys/stat.h>
#include <stddef.h>

#define CONFINE_MAXDEPTH	256

/*
 * Creates the missing directory name in the open directory pfd, where
 * rel[0..len) is the path of the new directory (for messages).  Returns
 * 0 (the directory exists now) or -1 with errno set.
 */
typedef int	(*confine_mkdir_fn)(void *ctx, int pfd, const char *name,
		    const char *rel, size_t len);

/*
 * Open rel beneath dfd.  flags are open(2) flags for the last component
 * (O_NOFOLLOW and O_CLOEXEC are always added; O_CREAT with mode works;
 * with O_PATH a symbolic link itself is opened).  An empty rel, or one of
 * only "." components, opens dfd itself again.  Returns a descriptor or
 * -1 with errno.
 */
int	confine_open(int dfd, const char *rel, int flags, mode_t mode);

/*
 * Open the directory that holds the last component of rel beneath dfd,
 * and point *leaf at that component in rel ("" when rel names dfd
 * itself, whose descriptor is then duplicated).  With mk, missing
 * directories on the way are made by mk, outermost first.  Returns a
 * descriptor or -1 with errno; *badlen then gets the length of the
 * prefix of rel that could not be opened or made (the whole directory
 * part if that is not known), for messages.
 */
int	confine_parent(int dfd, const char *rel, confine_mkdir_fn mk,
	    void *ctx, const char **leaf, size_t *badlen);

/*
 * Nonzero if rel would be refused before any system call (a ".."
 * component, too deep, a component too long); errno is then set.
 */
int	confine_badpath(const char *rel);

/*
 * Walk the tree below the directory dfd (closed when the walk ends),
 * named path in messages, depth first, never through a symbolic link and
 * at most CONFINE_MAXDEPTH directories deep.  visit is called for every
 * entry that is not a directory ("." and ".." passed over), with the
 * descriptor of its directory, its name there, its path (path/...) and
 * its path below dfd (sub), and its lstat; it returns 0 to go on, -1 to
 * stop (err set).  Returns 0, or -1 with err (a directory that cannot be
 * read, a path too long or too deep, or visit's error).
 */
struct cerr;
typedef int	(*confine_visit_fn)(void *arg, int dirfd, const char *leaf,
		    const char *path, const char *sub, const struct stat *st,
		    struct cerr *err);
int	confine_walk(int dfd, const char *path, confine_visit_fn visit,
	    void *arg, struct cerr *err);

/*
 * Force the portable component walk even where openat2 exists (tests
 * run both); returns the previous setting.
 */
int	confine_portable(int on);

#endif
