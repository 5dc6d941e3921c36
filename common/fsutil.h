/*
 * fsutil.h: small file-system helpers shared by tools and the daemon.
 */
#ifndef CAIRN_FSUTIL_H
#define CAIRN_FSUTIL_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

/*
 * Remove name below the directory dfd (AT_FDCWD: the current directory)
 * and, if it is a directory, everything it holds, never following
 * symbolic links.  A missing name is not an error.  Returns 0, or -1 with
 * errno set from the first failure (the rest is still removed if it can).
 */
int	fs_rmtreeat(int dfd, const char *name);

/*
 * Cleanup hooks for log_addcleanup(): on a fatal exit, remove the file
 * (fs_unlink_hook) or the tree (fs_rmtree_hook) named by path, a char *.
 */
void	fs_unlink_hook(void *path);
void	fs_rmtree_hook(void *path);

/*
 * Create the missing parent directories of path (mode 0777 & ~umask).
 * Returns 0, or -1 with errno set.
 */
int	fs_mkparents(const char *path);

/*
 * Free space a client keeps on the file system it writes to: a download
 * that would leave less than this is refused before its first byte.
 */
#define FS_KEEPFREE	(16LL << 20)

/*
 * Whether size more bytes fit on the file system of the open directory
 * dfd and still leave FS_KEEPFREE free (counting only the space an
 * unprivileged user may use: root's reserve is a floor too).  Returns 0
 * if they fit, 1 if not (*avail gets the bytes free for users), -1 with
 * errno if the file system cannot tell.
 */
int	fs_room(int dfd, int64_t size, int64_t *avail);

/*
 * write(2) all of buf, through short writes and EINTR.  Returns 0, or -1
 * with errno.
 */
int	fs_write_all(int fd, const void *buf, size_t len);

/*
 * Owner, mode and mtime changes on an open object, by descriptor (an
 * O_PATH descriptor goes through its /proc/self/fd entry, which names
 * the very inode that was opened).  Return 0 or -1 with errno.
 */
int	fd_chown(int fd, uid_t, gid_t);
int	fd_chmod(int fd, mode_t);
int	fd_setmtime(int fd, int64_t mtime);
int	fd_setmtim(int fd, const struct timespec *mtime);

#endif
