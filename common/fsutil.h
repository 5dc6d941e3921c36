/*
 * fsutil.h: small file-system helpers shared by tools and the daemon.
 */
#ifndef CAIRN_FSUTIL_H
#define CAIRN_FSUTIL_H

#include <sys/types.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
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
 * An output file that appears whole or not at all (fsdiff -o, lsort -o).  fs_out_open creates "<path>.<pid>"
 * exclusively (never through a symbolic link) in path's directory, with
 * the mode of the regular file at path if there is one (and, for root,
 * its owner and group), else 0666 & ~umask, and registers it to be
 * removed by a fatal exit (log_addcleanup: o must stay where it is until
 * it is committed or aborted).  fs_out_commit flushes it, makes it
 * durable (fsync) and renames it over path, then makes the rename
 * durable (fs_syncdir); fs_out_abort removes it.
 * Either closes it.  When path exists and is not a regular file (a
 * symbolic link, /dev/stdout, a FIFO), it is opened with fopen(path,
 * "w") and written directly, as before: commit and abort only close it.
 * fs_out_open and fs_out_commit return 0, or -1 with errno set and
 * o->name naming the file the error is about.
 */
struct fs_out {
	FILE		*fp;		/* write here */
	char		 path[PATH_MAX];	/* the output */
	char		 tmp[PATH_MAX];	/* "<path>.<pid>" */
	int		 made;		/* tmp is ours (else: direct) */
	const char	*name;		/* after a failure: path or tmp */
};
int	fs_out_open(struct fs_out *, const char *path);
int	fs_out_commit(struct fs_out *);
void	fs_out_abort(struct fs_out *);

/*
 * fsync(2) the directory holding path (its name up to the last '/',
 * "." if none), so that a rename to path survives a crash.  Returns 0,
 * or -1 with errno set.
 */
int	fs_syncdir(const char *path);

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
 * A umask (-u): s is a number from 0 to 0777 in base (0: as C reads it,
 * so 022 is octal; 8: octal only) and nothing else, not empty.  Returns 0
 * with *mask set, or -1.  The one check every tool and cairnd use.
 */
int	fs_parse_umask(const char *s, int base, mode_t *mask);

/*
 * write(2) all of buf, through short writes and EINTR.  Returns 0, or -1
 * with errno.
 */
int	fs_write_all(int fd, const void *buf, size_t len);

/*
 * Read the whole regular file path below dfd (AT_FDCWD: as named),
 * never through a symbolic link as its last component, into a new
 * buffer *out (buf_free it) if it holds at most max bytes.  Returns 0,
 * or -1 with errno set (EFBIG when it is larger, EINVAL when it is not a
 * regular file).
 */
struct buf;
int	fs_read_file(int dfd, const char *path, size_t max, struct buf **out);
/*
 * Read the private key file path (symbolic links followed) as
 * fs_read_file does, if no one but its owner, root or this user, can
 * change it and no other user can read it: the mode may give its group
 * read access (a key shared with a service's group), nothing more.
 * Returns 0, or -1 with err naming path and why.
 */
struct cerr;
int	fs_read_private(const char *path, size_t max, struct buf **out,
	    struct cerr *err);

/*
 * Make the open directory dfd private (mode 0700) if it is this user's
 * and group or others may enter it; its owner in *uid.  Returns 0, or
 * -1 with errno set.
 */
int	fs_dir_private(int dfd, uid_t *uid);

/*
 * 1 when name below dfd is ".tmp.<pid>.<anything>" (or ".tmp.<pid>") of
 * a process that is gone, unchanged for FS_TMP_AGE seconds: a temporary
 * file its writer, killed, left behind.  0 for a live process's (this
 * one's too), a file written to lately (a writer on another host or in
 * another PID namespace sharing the directory, whose number means
 * nothing here), and any other name.
 */
#define FS_TMP_AGE	60
int	fs_tmp_stale(int dfd, const char *name);

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
