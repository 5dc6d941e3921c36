/*
 * apply-fs.c: confined access to lapply's apply root.
 *
 * The root ("." for relative transcripts, "/" for absolute ones) is
 * opened once.  The directory of every later path is opened beneath it
 * by common/confine (openat2 with RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS, or
 * a component walk with O_NOFOLLOW), so a symbolic link or a
 * non-directory anywhere above the object stops the walk instead of
 * being followed.  Callers then act on the leaf with *at() calls
 * relative to the returned descriptor.
 *
 * Because transcripts are sorted, consecutive paths mostly share their
 * directory: the directory of the previous path stays open.  Owner and
 * mode are set on the object once it is open (afs_owner_mode), in an
 * order that never grants more than the old and the new state.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply-fs.h"
#include "apply-msg.h"
#include "cerr.h"
#include "compat.h"
#include "confine.h"
#include "fsutil.h"
#include "intr.h"
#include "path.h"
#include "transcript.h"
#include "xmalloc.h"

/* The directory of the last path resolved. */
struct afs_dir {
	char	*name;		/* its path below the root, NULL: none */
	size_t	 len;
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
#define AFS_MAXINSIDE	64	/* remembered results of the name count */

struct afs_inode {
	dev_t	 dev;
	ino_t	 ino;
};

struct afs {
	struct amsg	*msg;		/* "created missing prefix" */
	int		 style;
	int		 rootfd;
	int		 rootdirty;
	struct afs_dir	 cur;
	struct afs_defdir defer[AFS_MAXDEFER];
	int		 ndefer;
	struct stat	 rootst;
	struct afs_inode *inside;	/* objects with all names inside */
	size_t		 ninside;
	const char	*path;		/* being resolved (for messages) */
	const char	*rel;		/* ... below the root */
	struct cerr	*err;
	int		 mkfailed;	/* afs_mkprefix set err */
};

struct afs *
afs_open(struct amsg *msg, int style, struct cerr *err)
{
	struct afs	*fs;
	const char	*root = style == PATH_ABSOLUTE ? "/" : ".";
	int		 fd;

	fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1) {
		cerr_errno(err, "%s: open", root);
		return NULL;
	}
	fs = xcalloc(1, sizeof(*fs));
	fs->msg = msg;
	fs->style = style;
	fs->rootfd = fd;
	fs->cur.fd = -1;
	if (fstat(fd, &fs->rootst) == -1) {
		cerr_errno(err, "%s: open", root);
		close(fd);
		free(fs);
		return NULL;
	}
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
				cerr_errno(err, "%s: fsync", d->name);
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
			cerr_errno(err, "%s: fsync", name);
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
 * Close the directory held for the last path; a dirty one is deferred to
 * afs_syncdirs().  -1 if an fsync failed.
 */
static int
afs_drop(struct afs *fs, struct cerr *err)
{
	struct afs_dir	*d = &fs->cur;
	int		 rc = 0;

	if (d->name == NULL)
		return 0;
	if (d->dirty)
		rc = afs_defer(fs, d->fd, d->name, err);
	else
		close(d->fd);
	free(d->name);
	memset(d, 0, sizeof(*d));
	d->fd = -1;
	return rc;
}

int
afs_close(struct afs *fs, struct cerr *err)
{
	int	rc;

	if (fs == NULL)
		return 0;
	rc = afs_drop(fs, err);
	if (fs->rootdirty) {
		if (afs_defer(fs, fs->rootfd, ".", rc == 0 ? err : NULL) == -1)
			rc = -1;
	} else
		close(fs->rootfd);
	if (afs_syncdirs(fs, rc == 0 ? err : NULL) == -1)
		rc = -1;
	free(fs->inside);
	free(fs);
	return rc;
}

int
afs_rootfd(const struct afs *fs)
{
	return fs->rootfd;
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

/*
 * Create a missing prefix directory like its nearest existing parent
 * (confine_parent's mkdir hook): mode, owner and group of pfd.
 */
static int
afs_mkprefix(void *ctx, int pfd, const char *name, const char *rel,
    size_t len)
{
	struct afs	*fs = ctx;
	struct stat	 pst;
	const char	*op = "stat";
	char		*shown;
	int		 fd, e;

	shown = xstrndup(fs->path, (size_t)(rel - fs->path) + len);
	/* Made whole, owner and mode included, or not at all (intr.h). */
	(void)intr_hold();
	if (fstat(pfd, &pst) == -1)
		goto fail;
	op = "mkdir";
	if (mkdirat(pfd, name, 0700) == -1)
		goto fail;
	op = "open";
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd == -1)
		goto fail;
	op = "chown";
	if (fchown(fd, pst.st_uid, pst.st_gid) == -1)
		goto failfd;
	op = "chmod";
	if (fchmod(fd, pst.st_mode & 07777) == -1)
		goto failfd;
	close(fd);
	intr_release();
	amsg_say(fs->msg, "%s: created missing prefix\n", shown);
	free(shown);
	return 0;
failfd:
	e = errno;
	close(fd);
	errno = e;
fail:
	intr_release();
	e = errno;
	cerr_errno(fs->err, "%s: %s", shown, op);
	free(shown);
	errno = e;
	fs->mkfailed = 1;
	return -1;
}

int
afs_parent(struct afs *fs, const char *path, int create, int *dfd,
    const char **leaf, struct cerr *err)
{
	const char	*rel = afs_rel(path), *slash, *l;
	char		*shown;
	size_t		 len, bad;
	int		 fd, e;

	*leaf = rel;
	if ((slash = strrchr(rel, '/')) == NULL) {
		*dfd = fs->rootfd;		/* the root or one of its entries */
		return 0;
	}
	len = (size_t)(slash - rel);
	*leaf = slash + 1;
	if (fs->cur.name != NULL && fs->cur.len == len &&
	    memcmp(fs->cur.name, rel, len) == 0) {
		*dfd = fs->cur.fd;
		return 0;
	}
	if (afs_drop(fs, err) == -1)
		return -1;
	fs->path = path;
	fs->rel = rel;
	fs->err = err;
	fs->mkfailed = 0;
	fd = confine_parent(fs->rootfd, rel, create ? afs_mkprefix : NULL, fs,
	    &l, &bad);
	if (fd == -1) {
		e = errno;
		if (fs->mkfailed)		/* afs_mkprefix said it */
			return -1;
		if (e == ENOENT && !create)
			return 1;
		if (bad == 0 || bad > len)
			bad = len;
		shown = xstrndup(path, (size_t)(rel - path) + bad);
		if (e == ELOOP)
			cerr_set(err, "%s: refusing to follow symbolic link %s",
			    path, shown);
		else if (e == ENOTDIR)
			cerr_set(err, "%s: %s is not a directory", path, shown);
		else if (e == ENAMETOOLONG)
			cerr_set(err, "%s: more than %d directory levels or a "
			    "name too long", path, CONFINE_MAXDEPTH);
		else {
			errno = e;
			cerr_errno(err, "%s: open directory %s", path, shown);
		}
		free(shown);
		return -1;
	}
	fs->cur.name = xstrndup(rel, len);
	fs->cur.len = len;
	fs->cur.fd = fd;
	fs->cur.dirty = 0;
	*dfd = fd;
	return 0;
}

void
afs_dirty(struct afs *fs, int dfd)
{
	if (dfd == fs->rootfd)
		fs->rootdirty = 1;
	else if (dfd == fs->cur.fd)
		fs->cur.dirty = 1;
}

void
afs_forget(struct afs *fs, const char *path)
{
	const char	*p = afs_rel(path);
	size_t		 n = strlen(p);

	/* The directory held is path or below it: it is gone. */
	if (fs->cur.name != NULL && strncmp(fs->cur.name, p, n) == 0 &&
	    (fs->cur.name[n] == '\0' || fs->cur.name[n] == '/'))
		(void)afs_drop(fs, NULL);
}

int
afs_names_here(int dfd, const struct stat *st)
{
	struct dirent	*de;
	struct stat	 est;
	DIR		*d;
	nlink_t		 n = 0;
	int		 fd;

	if (st->st_nlink <= 1)
		return 1;
	/* A description of our own: the held one's offset stays put. */
	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return 0;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return 0;
	}
	while (n < st->st_nlink && (de = readdir(d)) != NULL) {
		if (de->d_ino != st->st_ino)
			continue;
		if (fstatat(dirfd(d), de->d_name, &est,
		    AT_SYMLINK_NOFOLLOW) == 0 && est.st_dev == st->st_dev &&
		    est.st_ino == st->st_ino)
			n++;
	}
	closedir(d);
	return n == st->st_nlink;
}

/*
 * Count the names of st in the tree below the directory dfd, at most
 * st_nlink, never following a link and descending only into directories
 * on the root's device or the object's.
 */
static nlink_t
afs_count(const struct afs *fs, int dfd, const struct stat *st, int depth,
    nlink_t n)
{
	struct dirent	*de;
	struct stat	 est;
	DIR		*d;
	int		 fd, isdir;

	if (depth > CONFINE_MAXDEPTH)
		return n;
	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return n;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return n;
	}
	while (n < st->st_nlink && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (de->d_ino == st->st_ino && fstatat(dirfd(d), de->d_name,
		    &est, AT_SYMLINK_NOFOLLOW) == 0 &&
		    est.st_dev == st->st_dev && est.st_ino == st->st_ino) {
			n++;
			continue;
		}
		if (de->d_type == DT_DIR)
			isdir = 1;
		else if (de->d_type == DT_UNKNOWN)
			isdir = fstatat(dirfd(d), de->d_name, &est,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(est.st_mode);
		else
			isdir = 0;
		if (!isdir || (fd = openat(dirfd(d), de->d_name, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
			continue;
		if (fstat(fd, &est) == 0 && (est.st_dev == fs->rootst.st_dev ||
		    est.st_dev == st->st_dev))
			n = afs_count(fs, fd, st, depth + 1, n);
		close(fd);
	}
	closedir(d);
	return n;
}

int
afs_names_inside(struct afs *fs, int dfd, const struct stat *st)
{
	size_t	i;

	if (st->st_nlink <= 1 || afs_names_here(dfd, st))
		return 1;
	for (i = 0; i < fs->ninside; i++)
		if (fs->inside[i].dev == st->st_dev &&
		    fs->inside[i].ino == st->st_ino)
			return 1;
	/* Rare: a multiply linked object, names in other directories. */
	if (afs_count(fs, fs->rootfd, st, 0, 0) < st->st_nlink)
		return 0;
	if (fs->ninside == AFS_MAXINSIDE)
		fs->ninside = 0;
	if (fs->inside == NULL)
		fs->inside = xcalloc(AFS_MAXINSIDE, sizeof(*fs->inside));
	fs->inside[fs->ninside].dev = st->st_dev;
	fs->inside[fs->ninside++].ino = st->st_ino;
	return 1;
}

/*
 * Owner and mode, Radmind's rules: chown only if uid or gid differ;
 * chmod if the mode differs, or after a chown of a set-id object (chown
 * clears those bits), and always for FIFOs (Radmind compares a mode with
 * the FIFO type bit against the permission bits: kept for identical
 * output).  Appends " uid", " gid", " mode" to msg.
 *
 * The steps are ordered so that no state between them grants more than
 * both the old and the new one: when the owner changes, the mode is
 * first narrowed to the permissions both share, without set-id bits;
 * then the owner changes; then the new mode is set.  A crash between
 * them leaves the object with the old or new owner and at most the
 * shared permissions (never set-id with the old owner), which the next
 * run repairs.
 */
int
afs_owner_mode(int fd, const struct stat *st, const struct tline *t,
    char *msg, size_t msglen, int *changed, const char **op)
{
	uid_t	uid = (uid_t)t->uid;
	gid_t	gid = (gid_t)t->gid;
	mode_t	old = st->st_mode & 07777, narrow;
	int	owner, mode;

	owner = uid != st->st_uid || gid != st->st_gid;
	mode = t->mode != old ||
	    (owner && (t->mode & (S_ISUID | S_ISGID)) != 0) ||
	    t->type == 'p';
	if (owner) {
		narrow = old & (mode_t)t->mode & ~(mode_t)(S_ISUID | S_ISGID);
		*op = "chmod";
		if (narrow != old && fd_chmod(fd, narrow) == -1)
			return -1;
		*op = "chown";
		if (fd_chown(fd, uid, gid) == -1)
			return -1;
		if (uid != st->st_uid)
			strlcat(msg, " uid", msglen);
		if (gid != st->st_gid)
			strlcat(msg, " gid", msglen);
		if (narrow != (mode_t)t->mode && !mode) {
			/* Only narrowed: put the declared mode back. */
			*op = "chmod";
			if (fd_chmod(fd, (mode_t)t->mode) == -1)
				return -1;
		}
	}
	if (mode) {
		*op = "chmod";
		if (fd_chmod(fd, (mode_t)t->mode) == -1)
			return -1;
		strlcat(msg, " mode", msglen);
	}
	if (changed != NULL && (owner || mode))
		*changed = 1;
	return 0;
}
