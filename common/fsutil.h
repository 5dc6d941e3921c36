/*
 * fsutil.h: small file-system helpers shared by tools and the daemon.
 */
#ifndef CAIRN_FSUTIL_H
#define CAIRN_FSUTIL_H

/*
 * Remove name below the directory dfd (AT_FDCWD: the current directory)
 * and, if it is a directory, everything it holds, never following
 * symbolic links.  A missing name is not an error.  Returns 0, or -1 with
 * errno set from the first failure (the rest is still removed if it can).
 */
int	fs_rmtreeat(int dfd, const char *name);

/*
 * Create the missing parent directories of path (mode 0777 & ~umask).
 * Returns 0, or -1 with errno set.
 */
int	fs_mkparents(const char *path);

#endif
