/*
 * fsutil.c: small file-system helpers shared by tools and the daemon.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/statvfs.h>
#ifdef HAVE_SYS_XATTR_H
#include <sys/xattr.h>
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "compat.h"
#include "fsutil.h"
#include "intr.h"
#include "log.h"
#include "xmalloc.h"

int
fs_rmtreeat(int dfd, const char *name)
{
	struct dirent	*de;
	DIR		*d;
	int		 fd, r = 0, saved = 0;

	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fs_rmtreeat(dirfd(d), de->d_name) == -1 && r == 0) {
			saved = errno;
			r = -1;
		}
	}
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) == -1 && r == 0) {
		saved = errno;
		r = -1;
	}
	if (r == -1)
		errno = saved;
	return r;
}

void
fs_unlink_hook(void *path)
{
	(void)unlink(path);
}

void
fs_rmtree_hook(void *path)
{
	(void)fs_rmtreeat(AT_FDCWD, path);
}

int
fs_out_open(struct fs_out *o, const char *path)
{
	struct stat	 st;
	int		 fd, saved, exists = 0;

	memset(o, 0, sizeof(*o));
	o->name = path;
	if (strlcpy(o->path, path, sizeof(o->path)) >= sizeof(o->path) ||
	    (size_t)snprintf(o->tmp, sizeof(o->tmp), "%s.%ld", path,
	    (long)getpid()) >= sizeof(o->tmp)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	o->name = o->path;
	if (lstat(path, &st) == 0) {
		/*
		 * Written through (/dev/stdout, a FIFO) only when it is ours
		 * or root's: one another user put in a directory they may
		 * write (/tmp) would have us write where it points.
		 */
		if (!S_ISREG(st.st_mode)) {
			if (st.st_uid != geteuid() && st.st_uid != 0) {
				errno = EPERM;
				return -1;
			}
			return (o->fp = fopen(path, "w")) == NULL ? -1 : 0;
		}
		/* Another user's file is replaced, not handed back to them. */
		exists = st.st_uid == geteuid() || st.st_uid == 0;
	} else if (errno != ENOENT)
		return -1;

	/* Made and registered at once: an interrupt removes it (intr.h). */
	(void)intr_hold();
	if ((fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0666)) == -1) {
		intr_release();
		o->name = o->tmp;
		return -1;
	}
	o->made = 1;
	log_addcleanup(fs_unlink_hook, o->tmp);
	intr_release();
	/* The owner first: a change of owner clears set-id bits. */
	if ((exists && geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid) ==
	    -1 && errno != EPERM) ||
	    (exists && fchmod(fd, st.st_mode & 07777) == -1) ||
	    (o->fp = fdopen(fd, "w")) == NULL) {
		saved = errno;
		close(fd);
		fs_out_abort(o);
		errno = saved;
		return -1;
	}
	return 0;
}

int
fs_syncdir(const char *path)
{
	const char	*slash;
	char		*dir;
	int		 fd, rc, saved;

	if ((slash = strrchr(path, '/')) == NULL)
		dir = xstrdup(".");
	else if (slash == path)
		dir = xstrdup("/");
	else
		dir = xstrndup(path, (size_t)(slash - path));
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd == -1)
		return -1;
	rc = fsync(fd);
	saved = errno;
	close(fd);
	errno = saved;
	return rc;
}

int
fs_out_commit(struct fs_out *o)
{
	int	saved;

	if (o->fp == NULL)
		return 0;
	if (fflush(o->fp) == EOF || ferror(o->fp) ||
	    (o->made && fsync(fileno(o->fp)) == -1)) {
		saved = errno != 0 ? errno : EIO;
		fs_out_abort(o);
		errno = saved;
		return -1;
	}
	saved = fclose(o->fp) == EOF ? errno : 0;
	o->fp = NULL;
	(void)intr_hold();
	if (saved == 0 && o->made && rename(o->tmp, o->path) == -1)
		saved = errno;
	if (saved != 0) {
		fs_out_abort(o);
		intr_release();
		errno = saved;
		return -1;
	}
	if (o->made) {
		log_delcleanup(fs_unlink_hook, o->tmp);
		o->made = 0;
		/* The rename itself made durable. */
		if (fs_syncdir(o->path) == -1) {
			saved = errno;
			intr_release();
			errno = saved;
			return -1;
		}
	}
	intr_release();
	return 0;
}

void
fs_out_abort(struct fs_out *o)
{
	int	saved = errno;

	if (o->fp != NULL) {
		(void)fclose(o->fp);
		o->fp = NULL;
	}
	if (o->made) {
		(void)intr_hold();
		(void)unlink(o->tmp);
		log_delcleanup(fs_unlink_hook, o->tmp);
		o->made = 0;
		intr_release();
	}
	errno = saved;
}

int
fs_mkparents(const char *path)
{
	char	*p, *s;
	int	 saved;

	p = xstrdup(path);
	for (s = p + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(p, 0777) == -1 && errno != EEXIST) {
			saved = errno;
			free(p);
			errno = saved;
			return -1;
		}
		*s = '/';
	}
	free(p);
	return 0;
}

int
fs_room(int dfd, int64_t size, int64_t *avail)
{
	struct statvfs	 sv;
	uint64_t	 free;

	if (fstatvfs(dfd, &sv) == -1)
		return -1;
	free = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	if (free > INT64_MAX)
		free = INT64_MAX;
	*avail = (int64_t)free;
	if (size < 0 || size > *avail || *avail - size < FS_KEEPFREE)
		return 1;
	return 0;
}

int
fs_parse_umask(const char *s, int base, mode_t *mask)
{
	char	*end;
	long	 v;

	errno = 0;
	v = strtol(s, &end, base);
	if (errno != 0 || end == s || *end != '\0' || v < 0 || v > 0777)
		return -1;
	*mask = (mode_t)v;
	return 0;
}

int
fs_write_all(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		n = write(fd, p, len);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int
fs_dir_private(int dfd, uid_t *uid)
{
	struct stat	 st;

	if (fstat(dfd, &st) == -1)
		return -1;
	*uid = st.st_uid;
	if (st.st_uid == geteuid() && (st.st_mode & 077) != 0 &&
	    fchmod(dfd, 0700) == -1)
		return -1;
	return 0;
}

int
fs_tmp_stale(int dfd, const char *name)
{
	struct stat	 st;
	char		*end;
	long		 pid;

	if (strncmp(name, ".tmp.", 5) != 0)
		return 0;
	errno = 0;
	pid = strtol(name + 5, &end, 10);
	if (errno != 0 || end == name + 5 || (*end != '.' && *end != '\0') ||
	    pid <= 0 || pid > INT_MAX || pid == (long)getpid())
		return 0;
	if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
		return 0;
	return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    time(NULL) - st.st_mtime >= FS_TMP_AGE;
}

/*
 * Read the regular file open on fd (closed here) into a new buffer *out
 * if it holds at most max bytes.  st is its fstat.  A secret file's
 * buffer is wiped before its storage is given back (buf_secret).
 */
static int
fs_read_fd(int fd, const struct stat *st, size_t max, int secret,
    struct buf **out)
{
	struct buf	*b;
	void		*p;
	size_t		 room;
	ssize_t		 n;
	char		 extra;
	int		 saved;

	if (!S_ISREG(st->st_mode)) {
		errno = S_ISDIR(st->st_mode) ? EISDIR : EINVAL;
		goto fail;
	}
	b = buf_new(max);
	if (secret)
		buf_secret(b);
	for (;;) {
		room = buf_max(b) - buf_len(b);
		if (room > 65536)
			room = 65536;
		/* when full, one byte more tells a larger file */
		p = room > 0 ? buf_reserve(b, room) : &extra;
		if (p == NULL) {
			buf_free(b);
			goto fail;
		}
		n = read(fd, p, room > 0 ? room : 1);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 || (n > 0 && room == 0)) {
			buf_free(b);
			if (n > 0)
				errno = EFBIG;
			goto fail;
		}
		if (n == 0)
			break;
		buf_commit(b, (size_t)n);
	}
	close(fd);
	*out = b;
	return 0;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int
fs_read_file(int dfd, const char *path, size_t max, struct buf **out)
{
	struct stat	 st;
	int		 fd, saved;

	*out = NULL;
	if ((fd = openat(dfd, path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	return fs_read_fd(fd, &st, max, 0, out);
}

int
fs_read_private(const char *path, size_t max, struct buf **out,
    struct cerr *err)
{
	struct stat	 st;
	int		 fd;

	*out = NULL;
	if ((fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY |
	    O_CLOEXEC)) == -1 || fstat(fd, &st) == -1) {
		cerr_errno(err, "%s", path);
		if (fd != -1)
			close(fd);
		return -1;
	}
	if (S_ISREG(st.st_mode) && st.st_uid != 0 && st.st_uid != geteuid()) {
		cerr_set(err, "%s: owned by uid %lu, neither root nor this "
		    "user: refused as a private key", path,
		    (unsigned long)st.st_uid);
		close(fd);
		return -1;
	}
	if (S_ISREG(st.st_mode) && (st.st_mode & (S_IROTH | S_IWOTH |
	    S_IWGRP)) != 0) {
		cerr_set(err, "%s: %s by others (mode %04o): refused as a "
		    "private key (chmod o-rw,g-w)", path,
		    (st.st_mode & S_IROTH) != 0 ? "readable" : "writable",
		    (unsigned)(st.st_mode & 07777));
		close(fd);
		return -1;
	}
#ifdef HAVE_SYS_XATTR_H
	/*
	 * The mode says nothing of the users and groups an access ACL names
	 * (with one, the group bits are its mask): a key with one is
	 * refused.  The kernel keeps no ACL that the mode says all of.
	 */
	if (S_ISREG(st.st_mode) &&
	    fgetxattr(fd, "system.posix_acl_access", NULL, 0) >= 0) {
		cerr_set(err, "%s: has an access ACL: refused as a private "
		    "key (setfacl -b)", path);
		close(fd);
		return -1;
	}
#endif
	if (fs_read_fd(fd, &st, max, 1, out) == -1) {
		cerr_errno(err, "%s", path);
		return -1;
	}
	return 0;
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
	struct timespec	 m;

	m.tv_sec = (time_t)mtime;
	m.tv_nsec = 0;
	return fd_setmtim(fd, &m);
}

int
fd_setmtim(int fd, const struct timespec *mtime)
{
	struct timespec	 ts[2];
	char		 p[64];

	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_OMIT;	/* atime unchanged */
	ts[1] = *mtime;
	if (futimens(fd, ts) == 0)
		return 0;
	if (errno != EBADF || fd_procpath(fd, p, sizeof(p)) == -1)
		return -1;
	return utimensat(AT_FDCWD, p, ts, 0);
}
