/*
 * confine.c: open peer-named paths beneath a held directory (confine.h).
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
#ifdef HAVE_LINUX_OPENAT2_H
#include <sys/syscall.h>
#include <linux/openat2.h>
#endif

#include "cerr.h"
#include "confine.h"

static int	forced;		/* confine_portable(1) */
static int	noopenat2;	/* the kernel refused openat2 */

int
confine_portable(int on)
{
	int	old = forced;

	forced = on;
	return old;
}

/*
 * Length of the component at p (up to '/' or NUL), and whether it is to
 * be skipped ("" or ".").
 */
static size_t
comp_len(const char *p, int *skip)
{
	size_t	n = strcspn(p, "/");

	*skip = n == 0 || (n == 1 && p[0] == '.');
	return n;
}

int
confine_badpath(const char *rel)
{
	const char	*p = rel;
	size_t		 n, depth = 0;
	int		 skip;

	for (;;) {
		n = comp_len(p, &skip);
		if (!skip) {
			if (n == 2 && p[0] == '.' && p[1] == '.') {
				errno = EACCES;
				return 1;
			}
			if (n > NAME_MAX || ++depth > CONFINE_MAXDEPTH) {
				errno = ENAMETOOLONG;
				return 1;
			}
		}
		if (p[n] == '\0')
			return 0;
		p += n + 1;
	}
}

/*
 * The canonical form of rel[0..len): its components joined by single
 * slashes, "" for none.  malloc'd, NULL with errno on failure.
 */
static char *
canon(const char *rel, size_t len)
{
	char		*out, *o;
	const char	*p = rel, *end = rel + len;
	size_t		 n;
	int		 skip;

	if ((out = malloc(len + 1)) == NULL)
		return NULL;
	o = out;
	while (p < end) {
		n = comp_len(p, &skip);
		if (p + n > end)
			n = (size_t)(end - p);
		if (!skip) {
			if (o != out)
				*o++ = '/';
			memcpy(o, p, n);
			o += n;
		}
		p += n + 1;
	}
	*o = '\0';
	return out;
}

/* Open one directory component from pfd without following a link. */
static int
open_comp(int pfd, const char *name)
{
	struct stat	st;
	int		fd, e;

	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
	if (fd != -1)
		return fd;
	e = errno;
	if (e == ENOTDIR || e == ELOOP)
		e = fstatat(pfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
		    S_ISLNK(st.st_mode) ? ELOOP : ENOTDIR;
	errno = e;
	return -1;
}

/*
 * The portable walk of the directory part rel[0..len) from dfd, making
 * missing directories with mk.  Returns a descriptor, or -1 with errno
 * and *badlen.
 */
static int
walk(int dfd, const char *rel, size_t len, confine_mkdir_fn mk, void *ctx,
    size_t *badlen)
{
	char		 name[NAME_MAX + 1];
	const char	*p = rel, *end = rel + len;
	size_t		 n;
	int		 cur, fd, skip, e;

	if ((cur = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1) {
		*badlen = 0;
		return -1;
	}
	while (p < end) {
		n = comp_len(p, &skip);
		if (p + n > end)
			n = (size_t)(end - p);
		if (skip) {
			p += n + 1;
			continue;
		}
		memcpy(name, p, n);
		name[n] = '\0';
		fd = open_comp(cur, name);
		if (fd == -1 && errno == ENOENT && mk != NULL) {
			if (mk(ctx, cur, name, rel, (size_t)(p + n - rel)) ==
			    -1 && errno != EEXIST)
				goto fail;
			fd = open_comp(cur, name);
		}
		if (fd == -1)
			goto fail;
		close(cur);
		cur = fd;
		p += n + 1;
	}
	return cur;
fail:
	e = errno;
	*badlen = (size_t)(p + n - rel);
	close(cur);
	errno = e;
	return -1;
}

#ifdef HAVE_LINUX_OPENAT2_H
/* openat2 beneath dfd; -2 if the kernel has none (then never again). */
static int
beneath(int dfd, const char *path, int flags, mode_t mode)
{
	struct open_how	how;
	long		r;

	if (forced || noopenat2)
		return -2;
	memset(&how, 0, sizeof(how));
	how.flags = (unsigned long long)flags;
	how.mode = (flags & O_CREAT) ? mode : 0;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
	    RESOLVE_NO_MAGICLINKS;
	do
		r = syscall(SYS_openat2, dfd, path, &how, sizeof(how));
	while (r == -1 && errno == EINTR);
	if (r == -1 && errno == ENOSYS) {
		noopenat2 = 1;
		return -2;
	}
	return (int)r;
}
#else
static int
beneath(int dfd, const char *path, int flags, mode_t mode)
{
	(void)dfd;
	(void)path;
	(void)flags;
	(void)mode;
	return -2;
}
#endif

/* Where the last component of rel starts ("" at the end if none). */
static const char *
last_comp(const char *rel)
{
	const char	*s = strrchr(rel, '/');

	return s != NULL ? s + 1 : rel;
}

/* Nonzero if rel names the starting directory itself. */
static int
names_self(const char *rel)
{
	const char	*p = rel;
	size_t		 n;
	int		 skip;

	for (;;) {
		n = comp_len(p, &skip);
		if (!skip)
			return 0;
		if (p[n] == '\0')
			return 1;
		p += n + 1;
	}
}

int
confine_parent(int dfd, const char *rel, confine_mkdir_fn mk, void *ctx,
    const char **leaf, size_t *badlen)
{
	const char	*l;
	char		*dir;
	size_t		 dlen, bad;
	int		 fd, e;

	*badlen = 0;
	if (confine_badpath(rel))
		return -1;
	if (names_self(rel)) {
		*leaf = rel + strlen(rel);
		return fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	}
	l = last_comp(rel);
	if (*l == '\0' || strcmp(l, ".") == 0) {
		errno = EACCES;		/* "a/" or "a/.": no name to act on */
		return -1;
	}
	dlen = (size_t)(l - rel);
	*leaf = l;
	if ((dir = canon(rel, dlen)) == NULL)
		return -1;
	if (*dir == '\0')
		fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	else
		fd = beneath(dfd, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC, 0);
	free(dir);
	if (fd >= 0)
		return fd;
	if (fd == -1 && errno != ENOENT && errno != ELOOP &&
	    errno != ENOTDIR && errno != EXDEV) {
		*badlen = dlen;
		return -1;
	}
	/*
	 * No openat2, a missing directory to make, or an error to pin on
	 * one component: the walk, one component at a time.
	 */
	if ((fd = walk(dfd, rel, dlen, mk, ctx, &bad)) == -1) {
		e = errno;
		*badlen = bad;
		errno = e;
	}
	return fd;
}

int
confine_open(int dfd, const char *rel, int flags, mode_t mode)
{
	const char	*leaf;
	char		*path;
	size_t		 bad;
	int		 pfd, fd, e;

	flags |= O_NOFOLLOW | O_CLOEXEC;
	if (confine_badpath(rel))
		return -1;
	if (names_self(rel))
		return openat(dfd, ".", flags & ~(O_CREAT | O_EXCL | O_NOFOLLOW),
		    mode);
	if ((path = canon(rel, strlen(rel))) == NULL)
		return -1;
	fd = beneath(dfd, path, flags, mode);
	free(path);
	if (fd != -2)
		return fd;
	if ((pfd = confine_parent(dfd, rel, NULL, NULL, &leaf, &bad)) == -1)
		return -1;
	fd = openat(pfd, leaf, flags, mode);
	e = errno;
	close(pfd);
	errno = e;
	return fd;
}

/* confine_walk below the directory dfd: path, sub (NULL at the top). */
static int
confine_walkdir(int dfd, const char *path, const char *sub, int depth,
    confine_visit_fn visit, void *arg, struct cerr *err)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	char		 cpath[PATH_MAX], csub[PATH_MAX];
	int		 cfd, rc = -1;

	if (depth > CONFINE_MAXDEPTH) {
		cerr_set(err, "%s: too deep", path);
		close(dfd);
		return -1;
	}
	if ((d = fdopendir(dfd)) == NULL) {
		cerr_errno(err, "%s", path);
		close(dfd);
		return -1;
	}
	while ((errno = 0, de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (snprintf(cpath, sizeof(cpath), "%s/%s", path,
		    de->d_name) >= (int)sizeof(cpath) ||
		    snprintf(csub, sizeof(csub), "%s%s%s", sub != NULL ?
		    sub : "", sub != NULL ? "/" : "",
		    de->d_name) >= (int)sizeof(csub)) {
			errno = ENAMETOOLONG;
			cerr_errno(err, "%s/%s", path, de->d_name);
			goto out;
		}
		if (fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1) {
			cerr_errno(err, "%s", cpath);
			goto out;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (visit(arg, dirfd(d), de->d_name, cpath, csub, &st,
			    err) == -1)
				goto out;
			continue;
		}
		if ((cfd = openat(dirfd(d), de->d_name, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
			cerr_errno(err, "%s", cpath);
			goto out;
		}
		if (confine_walkdir(cfd, cpath, csub, depth + 1, visit, arg,
		    err) == -1)
			goto out;
	}
	if (errno != 0) {
		cerr_errno(err, "%s", path);
		goto out;
	}
	rc = 0;
out:
	closedir(d);
	return rc;
}

int
confine_walk(int dfd, const char *path, confine_visit_fn visit, void *arg,
    struct cerr *err)
{
	return confine_walkdir(dfd, path, NULL, 1, visit, arg, err);
}
