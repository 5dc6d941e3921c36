/*
 * apply-fs.c: confined access to lapply's apply root.
 *
 * The root ("." for relative transcripts, "/" for absolute ones) is
 * opened once.  Every later path is reached one component at a time from
 * held directory descriptors with openat(O_NOFOLLOW | O_DIRECTORY), so a
 * symbolic link or a non-directory anywhere above the object stops the
 * walk instead of being followed.  Callers then act on the leaf with
 * *at() calls relative to the returned descriptor.
 *
 * Because transcripts are sorted, consecutive paths share most of their
 * parents: the chain of open directories of the previous path is kept
 * and only the part that differs is reopened.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "cerr.h"
#include "xmalloc.h"

struct afs_dir {
	char	*name;		/* component (NULL for the root) */
	int	 fd;
	int	 dirty;		/* renamed into: fsync before close */
};

/* A directory left dirty, waiting for its fsync. */
struct afs_defdir {
	int	 fd;
	dev_t	 dev;
	ino_t	 ino;
	char	*name;		/* for messages */
};

#define AFS_MAXDEFER	128

struct afs {
	struct apply	*ap;		/* for "created missing prefix" */
	int		 style;
	struct afs_dir	 chain[AFS_MAXDEPTH + 1];	/* [0] is the root */
	int		 depth;				/* entries in use */
	struct afs_defdir defer[AFS_MAXDEFER];
	int		 ndefer;
};

struct afs *
afs_open(struct apply *ap, int style, struct cerr *err)
{
	struct afs	*fs;
	const char	*root = style == PATH_ABSOLUTE ? "/" : ".";
	int		 fd;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1) {
		cerr_errno(err, "%s", root);
		return NULL;
	}
	fs = xcalloc(1, sizeof(*fs));
	fs->ap = ap;
	fs->style = style;
	fs->chain[0].fd = fd;
	fs->depth = 1;
	return fs;
}

/*
 * fsync and close every deferred directory.  The first fsync commits
 * the journal transaction holding all their changes, so the others are
 * cheap.  -1 if an fsync failed (all are still attempted).
 */
static int
afs_syncdirs(struct afs *fs, struct cerr *err)
{
	struct afs_defdir	*d;
	int			 i, rc = 0;

	for (i = 0; i < fs->ndefer; i++) {
		d = &fs->defer[i];
		if (fsync(d->fd) == -1 && rc == 0) {
			if (err != NULL)
				cerr_errno(err, "fsync %s", d->name);
			rc = -1;
		}
		close(d->fd);
		free(d->name);
	}
	fs->ndefer = 0;
	return rc;
}

/*
 * Take over fd, a directory that got new entries: it is fsynced (once,
 * however often it is handed over) by afs_syncdirs().  -1 (err set, fd
 * closed) if a flush of earlier directories failed.
 */
static int
afs_defer(struct afs *fs, int fd, const char *name, struct cerr *err)
{
	struct afs_defdir	*d;
	struct stat		 st;
	int			 i;

	if (fstat(fd, &st) == -1) {
		if (err != NULL)
			cerr_errno(err, "fsync %s", name);
		close(fd);
		return -1;
	}
	for (i = fs->ndefer - 1; i >= 0; i--)
		if (fs->defer[i].dev == st.st_dev &&
		    fs->defer[i].ino == st.st_ino) {
			close(fd);
			return 0;
		}
	if (fs->ndefer == AFS_MAXDEFER && afs_syncdirs(fs, err) == -1) {
		close(fd);
		return -1;
	}
	d = &fs->defer[fs->ndefer++];
	d->fd = fd;
	d->dev = st.st_dev;
	d->ino = st.st_ino;
	d->name = xstrdup(name);
	return 0;
}

/*
 * Close chain entries from index i on; dirty ones are deferred to
 * afs_syncdirs().  -1 if an fsync failed.
 */
static int
afs_truncate(struct afs *fs, int i, struct cerr *err)
{
	int	rc = 0;

	while (fs->depth > i) {
		struct afs_dir	*d = &fs->chain[--fs->depth];

		if (d->dirty) {
			if (afs_defer(fs, d->fd, d->name ? d->name : ".",
			    rc == 0 ? err : NULL) == -1)
				rc = -1;
		} else
			close(d->fd);
		free(d->name);
		memset(d, 0, sizeof(*d));
	}
	return rc;
}

int
afs_close(struct afs *fs, struct cerr *err)
{
	int	rc;

	if (fs == NULL)
		return 0;
	rc = afs_truncate(fs, 0, err);
	if (afs_syncdirs(fs, rc == 0 ? err : NULL) == -1)
		rc = -1;
	free(fs);
	return rc;
}

int
afs_rootfd(const struct afs *fs)
{
	return fs->chain[0].fd;
}

int
afs_isroot(const char *path)
{
	return strcmp(path, ".") == 0 || strcmp(path, "/") == 0;
}

/* Skip the style prefix: "./a/b" -> "a/b", "/a/b" -> "a/b", root -> "". */
static const char *
afs_rel(const char *path)
{
	if (afs_isroot(path))
		return "";
	if (path[0] == '.' && path[1] == '/')
		return path + 2;
	if (path[0] == '/')
		return path + 1;
	return path;
}

const char *
afs_checkpath(const char *path, int style)
{
	const char	*p, *slash;
	size_t		 len;

	if (style == PATH_RELATIVE) {
		if (strcmp(path, ".") == 0)
			return NULL;
		if (strncmp(path, "./", 2) != 0)
			return path[0] == '/' ?
			    "absolute path in a relative transcript" :
			    "path does not start with ./";
	} else {
		if (strcmp(path, "/") == 0)
			return NULL;
		if (path[0] != '/')
			return "relative path in an absolute transcript";
	}
	for (p = afs_rel(path);; p = slash + 1) {
		slash = strchr(p, '/');
		len = slash ? (size_t)(slash - p) : strlen(p);
		if (len == 0)
			return "empty path component";
		if (len == 1 && p[0] == '.')
			return "\".\" path component";
		if (len == 2 && p[0] == '.' && p[1] == '.')
			return "\"..\" path component";
		if (len > NAME_MAX)
			return "path component too long";
		if (slash == NULL)
			return NULL;
	}
}

/* Create a missing prefix directory like its nearest existing parent. */
static int
afs_mkprefix(int pfd, const char *name, const char *shown,
    struct cerr *err)
{
	struct stat	 pst;
	int		 fd;

	if (fstat(pfd, &pst) == -1) {
		cerr_errno(err, "%s", shown);
		return -1;
	}
	if (mkdirat(pfd, name, 0700) == -1) {
		cerr_errno(err, "%s", shown);
		return -1;
	}
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1) {
		cerr_errno(err, "%s", shown);
		return -1;
	}
	if (fchown(fd, pst.st_uid, pst.st_gid) == -1 ||
	    fchmod(fd, pst.st_mode & 07777) == -1) {
		cerr_errno(err, "%s", shown);
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

int
afs_parent(struct afs *fs, const char *path, int create, int *dfd,
    const char **leaf, struct cerr *err)
{
	const char	*rel = afs_rel(path), *p, *slash;
	char		 name[NAME_MAX + 1], *shown;
	size_t		 len;
	int		 i, fd;
	struct stat	 st;

	*leaf = rel;
	if (*rel == '\0') {
		*dfd = fs->chain[0].fd;
		return 0;
	}
	/* Walk the directory components (all but the last). */
	for (i = 1, p = rel; (slash = strchr(p, '/')) != NULL;
	    i++, p = slash + 1) {
		len = (size_t)(slash - p);
		if (len == 0 || len > NAME_MAX) {
			cerr_set(err, "%s: bad path component", path);
			return -1;
		}
		memcpy(name, p, len);
		name[len] = '\0';
		if (i < fs->depth) {
			if (strcmp(fs->chain[i].name, name) == 0)
				continue;
			if (afs_truncate(fs, i, err) == -1)
				return -1;
		}
		if (i > AFS_MAXDEPTH) {
			cerr_set(err, "%s: more than %d directory levels",
			    path, AFS_MAXDEPTH);
			return -1;
		}
		fd = openat(fs->chain[i - 1].fd, name, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1 && errno == ENOENT && create) {
			shown = xstrndup(path, (size_t)(slash - path));
			if (afs_mkprefix(fs->chain[i - 1].fd, name, shown,
			    err) == -1) {
				free(shown);
				return -1;
			}
			apply_say(fs->ap, "%s: created missing prefix\n", shown);
			free(shown);
			fd = openat(fs->chain[i - 1].fd, name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (fd == -1) {
			int	 e = errno;

			shown = xstrndup(path, (size_t)(slash - path));
			if (e == ENOENT) {
				free(shown);
				return 1;
			}
			if (fstatat(fs->chain[i - 1].fd, name, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISLNK(st.st_mode))
				cerr_set(err, "%s: refusing to follow symbolic "
				    "link %s", path, shown);
			else if (e == ENOTDIR || e == ELOOP)
				cerr_set(err, "%s: %s is not a directory",
				    path, shown);
			else {
				errno = e;
				cerr_errno(err, "%s: %s", path, shown);
			}
			free(shown);
			return -1;
		}
		fs->chain[i].fd = fd;
		fs->chain[i].name = xstrdup(name);
		fs->chain[i].dirty = 0;
		fs->depth = i + 1;
	}
	/* The parent is chain[i - 1]; anything deeper is stale. */
	if (fs->depth > i && afs_truncate(fs, i, err) == -1)
		return -1;
	*leaf = p;
	*dfd = fs->chain[i - 1].fd;
	return 0;
}

void
afs_dirty(struct afs *fs, int dfd)
{
	int	i;

	for (i = 0; i < fs->depth; i++)
		if (fs->chain[i].fd == dfd)
			fs->chain[i].dirty = 1;
}

void
afs_forget(struct afs *fs, const char *path)
{
	const char	*p = afs_rel(path);
	int		 i;

	/* Keep only the chain entries that are proper ancestors of path. */
	for (i = 1; i < fs->depth; i++) {
		size_t	len = strlen(fs->chain[i].name);

		if (strncmp(p, fs->chain[i].name, len) != 0 || p[len] != '/')
			break;
		p += len + 1;
	}
	(void)afs_truncate(fs, i, NULL);
}

/*
 * Descriptor-based metadata changes.  Objects that cannot be opened for
 * reading without side effects (devices, sockets, FIFOs) are held as
 * O_PATH descriptors, on which fchmod/futimens fail with EBADF: those go
 * through the descriptor's /proc/self/fd entry, which names the very
 * inode that was opened (never a path that could be swapped).
 */
static int
fd_procpath(int fd, char *buf, size_t len)
{
	int	n;

	n = snprintf(buf, len, "/proc/self/fd/%d", fd);
	return n < 0 || (size_t)n >= len ? -1 : 0;
}

int
fd_chown(int fd, uid_t uid, gid_t gid)
{
	if (fchown(fd, uid, gid) == 0)
		return 0;
	if (errno != EBADF)
		return -1;
	return fchownat(fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
}

int
fd_chmod(int fd, mode_t mode)
{
	char	p[64];

	if (fchmod(fd, mode) == 0)
		return 0;
	if (errno != EBADF || fd_procpath(fd, p, sizeof(p)) == -1)
		return -1;
	return chmod(p, mode);
}

int
fd_setmtime(int fd, int64_t mtime)
{
	struct timespec	 ts[2];
	char		 p[64];

	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;	/* atime unchanged */
	ts[1].tv_sec = (time_t)mtime;
	ts[1].tv_nsec = 0;
	if (futimens(fd, ts) == 0)
		return 0;
	if (errno != EBADF || fd_procpath(fd, p, sizeof(p)) == -1)
		return -1;
	return utimensat(AT_FDCWD, p, ts, 0);
}

