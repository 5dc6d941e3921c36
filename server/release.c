/*
 * release.c: the signed releases of a repository (release.h).
 *
 * Every name here is ours and fixed; the directory is opened beneath
 * the repository without following a symbolic link, and inside it only
 * "current" is a symbolic link, which is read, never followed by a
 * path walk: its target must be a serial number.
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "confine.h"
#include "fsutil.h"
#include "manifest.h"
#include "release.h"
#include "xmalloc.h"

/* A serial directory's name: a decimal serial, as manifests write it. */
static int
release_serialname(const char *s, uint64_t *serial)
{
	uint64_t	 n = 0;
	const char	*p;

	if (*s == '\0' || *s == '0' || strlen(s) > 19)
		return -1;
	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	if (n > INT64_MAX)
		return -1;
	*serial = n;
	return 0;
}

int
release_open(int rootfd, int create, struct cerr *err)
{
	int	 fd;

	if (create && mkdirat(rootfd, RELEASE_DIR, 0755) == -1 &&
	    errno != EEXIST) {
		cerr_errno(err, "%s", RELEASE_DIR);
		return -1;
	}
	if ((fd = confine_open(rootfd, RELEASE_DIR, O_RDONLY | O_DIRECTORY,
	    0)) == -1) {
		cerr_errno(err, "%s", RELEASE_DIR);
		return -1;
	}
	while (flock(fd, LOCK_EX) == -1) {
		if (errno == EINTR)
			continue;
		cerr_errno(err, "%s: lock", RELEASE_DIR);
		close(fd);
		return -1;
	}
	return fd;
}

/* Read and parse rel/manifest below relfd into *man (and m's serial). */
static int
release_readman(int relfd, const char *rel, struct buf **man,
    uint64_t *serial, struct cerr *err)
{
	struct manifest	 m;
	char		 path[64], shown[128];
	int		 dfd;

	*man = NULL;
	snprintf(shown, sizeof(shown), "%s/%s/manifest", RELEASE_DIR, rel);
	if ((dfd = confine_open(relfd, rel, O_RDONLY | O_DIRECTORY, 0)) ==
	    -1) {
		cerr_errno(err, "%s/%s", RELEASE_DIR, rel);
		return -1;
	}
	snprintf(path, sizeof(path), "manifest");
	if (fs_read_file(dfd, path, MANIFEST_MAX, man) == -1) {
		cerr_errno(err, "%s", shown);
		close(dfd);
		return -1;
	}
	close(dfd);
	if (manifest_parse(buf_data(*man), buf_len(*man), shown, &m,
	    err) == -1) {
		buf_free(*man);
		*man = NULL;
		return -1;
	}
	*serial = m.serial;
	manifest_free(&m);
	return 0;
}

int
release_current(int relfd, uint64_t *serial, struct buf **man,
    struct cerr *err)
{
	struct buf	*b;
	char		 target[64];
	uint64_t	 n, ms;
	ssize_t		 len;

	*serial = 0;
	if (man != NULL)
		*man = NULL;
	if ((len = readlinkat(relfd, "current", target,
	    sizeof(target) - 1)) == -1) {
		if (errno == ENOENT)
			return 0;
		cerr_errno(err, "%s/current", RELEASE_DIR);
		return -1;
	}
	target[len] = '\0';
	if (release_serialname(target, &n) == -1) {
		cerr_set(err, "%s/current: links to %s, not a serial",
		    RELEASE_DIR, target);
		return -1;
	}
	if (release_readman(relfd, target, &b, &ms, err) == -1)
		return -1;
	if (ms != n) {
		cerr_set(err, "%s/%s/manifest: serial %llu in directory %s",
		    RELEASE_DIR, target, (unsigned long long)ms, target);
		buf_free(b);
		return -1;
	}
	*serial = n;
	if (man != NULL)
		*man = b;
	else
		buf_free(b);
	return 0;
}

int
release_pending(int relfd, struct buf **man, struct cerr *err)
{
	struct stat	 st;
	uint64_t	 serial;

	*man = NULL;
	if (fstatat(relfd, "pending/manifest", &st, AT_SYMLINK_NOFOLLOW) ==
	    -1) {
		if (errno == ENOENT)
			return 0;
		cerr_errno(err, "%s/pending/manifest", RELEASE_DIR);
		return -1;
	}
	return release_readman(relfd, "pending", man, &serial, err);
}

int
release_next(int relfd, uint64_t *serial, struct cerr *err)
{
	struct manifest	 m;
	struct buf	*b;
	struct dirent	*de;
	DIR		*d;
	uint64_t	 max, n;
	int		 fd;

	if (release_current(relfd, &max, NULL, err) == -1)
		return -1;
	if (release_pending(relfd, &b, err) == -1)
		return -1;
	if (b != NULL) {
		if (manifest_parse(buf_data(b), buf_len(b), "pending", &m,
		    err) == 0) {
			if (m.serial > max)
				max = m.serial;
			manifest_free(&m);
		}
		buf_free(b);
	}
	if ((fd = dup(relfd)) == -1 || (d = fdopendir(fd)) == NULL) {
		cerr_errno(err, "%s", RELEASE_DIR);
		if (fd != -1)
			close(fd);
		return -1;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL)
		if (release_serialname(de->d_name, &n) == 0 && n > max)
			max = n;
	closedir(d);
	if (max >= INT64_MAX) {
		cerr_set(err, "%s: serial %llu is the last there is",
		    RELEASE_DIR, (unsigned long long)max);
		return -1;
	}
	*serial = max + 1;
	return 0;
}

/*
 * Write len bytes as name below dfd, whole and durable: a temporary
 * file fsynced, then renamed over name (the directory is synced by the
 * caller).  shown names the directory in errors.
 */
static int
release_writefile(int dfd, const char *shown, const char *name,
    const void *p, size_t len, struct cerr *err)
{
	char	 tmp[64];
	int	 fd;

	snprintf(tmp, sizeof(tmp), ".%s.%ld", name, (long)getpid());
	(void)unlinkat(dfd, tmp, 0);
	if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1) {
		cerr_errno(err, "%s/%s", shown, tmp);
		return -1;
	}
	if (fs_write_all(fd, p, len) == -1 || fsync(fd) == -1) {
		cerr_errno(err, "%s/%s", shown, tmp);
		close(fd);
		(void)unlinkat(dfd, tmp, 0);
		return -1;
	}
	if (close(fd) == -1 || renameat(dfd, tmp, dfd, name) == -1) {
		cerr_errno(err, "%s/%s", shown, name);
		(void)unlinkat(dfd, tmp, 0);
		return -1;
	}
	return 0;
}

/* Open (made if missing) the directory name below relfd. */
static int
release_subdir(int relfd, const char *name, struct cerr *err)
{
	int	 fd;

	if (mkdirat(relfd, name, 0755) == -1 && errno != EEXIST) {
		cerr_errno(err, "%s/%s", RELEASE_DIR, name);
		return -1;
	}
	if ((fd = confine_open(relfd, name, O_RDONLY | O_DIRECTORY, 0)) ==
	    -1)
		cerr_errno(err, "%s/%s", RELEASE_DIR, name);
	return fd;
}

int
release_write_pending(int relfd, const struct buf *man, struct cerr *err)
{
	int	 fd, rc = -1;

	if ((fd = release_subdir(relfd, "pending", err)) == -1)
		return -1;
	if (release_writefile(fd, RELEASE_DIR "/pending", "manifest",
	    buf_data(man), buf_len(man), err) == -1)
		goto out;
	if (fsync(fd) == -1 || fsync(relfd) == -1) {
		cerr_errno(err, "fsync %s/pending", RELEASE_DIR);
		goto out;
	}
	rc = 0;
out:
	close(fd);
	return rc;
}

static int
release_u64cmp(const void *a, const void *b)
{
	uint64_t	 x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? 1 : x > y ? -1 : 0;	/* newest first */
}

/* Remove the serial directories but the RELEASE_KEEP newest and cur. */
static int
release_prune(int relfd, uint64_t cur, struct cerr *err)
{
	struct dirent	*de;
	DIR		*d;
	uint64_t	*v = NULL, n;
	size_t		 nv = 0, i;
	char		 name[32];
	int		 fd, rc = 0;

	if ((fd = dup(relfd)) == -1 || (d = fdopendir(fd)) == NULL) {
		cerr_errno(err, "%s", RELEASE_DIR);
		if (fd != -1)
			close(fd);
		return -1;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL)
		if (release_serialname(de->d_name, &n) == 0) {
			v = xreallocarray(v, nv + 1, sizeof(*v));
			v[nv++] = n;
		}
	closedir(d);
	if (nv > 0)
		qsort(v, nv, sizeof(*v), release_u64cmp);
	for (i = RELEASE_KEEP; i < nv; i++) {
		if (v[i] == cur)
			continue;
		snprintf(name, sizeof(name), "%llu", (unsigned long long)v[i]);
		if (fs_rmtreeat(relfd, name) == -1) {
			cerr_errno(err, "%s/%s", RELEASE_DIR, name);
			rc = -1;
		}
	}
	free(v);
	return rc;
}

int
release_install(int relfd, uint64_t serial, const void *man, size_t mlen,
    const void *sig, size_t siglen, struct cerr *err)
{
	struct buf	*cur, *pend;
	uint64_t	 cs;
	char		 name[32], shown[64];
	int		 fd;

	snprintf(name, sizeof(name), "%llu", (unsigned long long)serial);
	snprintf(shown, sizeof(shown), "%s/%s", RELEASE_DIR, name);
	if (release_current(relfd, &cs, &cur, err) == -1)
		return -1;
	if (cs >= serial) {
		cerr_set(err, "release %llu: release %llu is installed "
		    "already", (unsigned long long)serial,
		    (unsigned long long)cs);
		buf_free(cur);
		return -1;
	}
	buf_free(cur);
	/* a directory left by an interrupted install is made again */
	if (fs_rmtreeat(relfd, name) == -1) {
		cerr_errno(err, "%s", shown);
		return -1;
	}
	if ((fd = release_subdir(relfd, name, err)) == -1)
		return -1;
	if (release_writefile(fd, shown, "manifest", man, mlen, err) == -1 ||
	    release_writefile(fd, shown, "manifest.sig", sig, siglen,
	    err) == -1) {
		close(fd);
		return -1;
	}
	if (fsync(fd) == -1 || fsync(relfd) == -1) {
		cerr_errno(err, "fsync %s", shown);
		close(fd);
		return -1;
	}
	close(fd);
	(void)unlinkat(relfd, ".tmp.current", 0);
	if (symlinkat(name, relfd, ".tmp.current") == -1 ||
	    renameat(relfd, ".tmp.current", relfd, "current") == -1 ||
	    fsync(relfd) == -1) {
		cerr_errno(err, "%s/current", RELEASE_DIR);
		return -1;
	}
	/* installed: the pending manifest, if it is this one, is done */
	if (release_pending(relfd, &pend, NULL) == 0 && pend != NULL &&
	    buf_len(pend) == mlen && memcmp(buf_data(pend), man, mlen) == 0) {
		if (unlinkat(relfd, "pending/manifest", 0) == 0)
			(void)fsync(relfd);
	}
	buf_free(pend);
	return release_prune(relfd, serial, err);
}
