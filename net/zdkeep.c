/*
 * zdkeep.c: the zstd dictionaries a client keeps between sessions
 * (zdkeep.h).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "cksum.h"
#include "fsutil.h"
#include "xmalloc.h"
#include "zdkeep.h"
#include "zstdconn.h"

#ifndef CAIRN_ZDICTDIR
#define CAIRN_ZDICTDIR	"/var/cache/cairn/zdict"
#endif

const char *
zdkeep_dir(void)
{
	const char	*e = getenv("CAIRN_ZDICTDIR");

	if (e == NULL)
		return CAIRN_ZDICTDIR;
	return e[0] != '\0' ? e : NULL;
}

/*
 * The file name of the dictionary id of server: "<id>.<tag>", tag the
 * first ZDKEEP_TAG characters of the base64 of the SHA-256 of server,
 * made safe for a name ('+' and '/' as '-' and '_').  A dictionary is
 * named only to the server it came from: another, offering the same
 * ID, would learn from its digest which dictionaries this client holds.
 */
#define ZDKEEP_TAG	16
#define ZDKEEP_NAMELEN	(10 + 1 + ZDKEEP_TAG + 1)

static void
zdkeep_name(const char *server, unsigned id, char name[ZDKEEP_NAMELEN])
{
	char	 sum[CKSUM_B64MAX];
	size_t	 i;

	if (cksum_data("sha256", server, strlen(server), sum) == -1)
		abort();	/* sha256 is always there */
	sum[ZDKEEP_TAG] = '\0';
	for (i = 0; i < ZDKEEP_TAG; i++)
		if (sum[i] == '+')
			sum[i] = '-';
		else if (sum[i] == '/')
			sum[i] = '_';
	(void)snprintf(name, ZDKEEP_NAMELEN, "%u.%.*s", id, ZDKEEP_TAG, sum);
}

/* 1 if name is one zdkeep_name makes. */
static int
zdkeep_isname(const char *name)
{
	size_t	 n = strspn(name, "0123456789");

	return n > 0 && n <= 10 && name[n] == '.' &&
	    strspn(name + n + 1, "ABCDEFGHIJKLMNOPQRSTUVWXYZ"
	    "abcdefghijklmnopqrstuvwxyz0123456789-_") == ZDKEEP_TAG &&
	    name[n + 1 + ZDKEEP_TAG] == '\0';
}

/*
 * The directory dfd (named dir) may hold this user's dictionaries: its
 * own, and private (made so).  Another user's directory is not used: he
 * could put there, under a kept dictionary's name, a link to any file
 * this user can read, whose digest would go to the server.  0, or -1
 * with err (errno EPERM when it is not to be used).
 */
static int
zdkeep_trust(int dfd, const char *dir, struct cerr *err)
{
	uid_t	 uid;

	if (fs_dir_private(dfd, &uid) == -1) {
		cerr_errno(err, "%s", dir);
		return -1;
	}
	if (uid != geteuid()) {
		cerr_set(err, "%s: owned by uid %lu, not by this user: not "
		    "used", dir, (unsigned long)uid);
		errno = EPERM;
		return -1;
	}
	return 0;
}

int
zdkeep_load(const char *dir, const char *server, unsigned id,
    struct buf **out, struct cerr *err)
{
	struct stat	 st;
	char		 name[ZDKEEP_NAMELEN];
	int		 dfd, r = -1;

	*out = NULL;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		cerr_errno(err, "%s", dir);
		return -1;
	}
	if (zdkeep_trust(dfd, dir, err) == -1)
		goto out;
	zdkeep_name(server, id, name);
	/* A file this user wrote there, and no link to another. */
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		cerr_errno(err, "%s/%s", dir, name);
		goto out;
	}
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_uid != geteuid()) {
		cerr_set(err, "%s/%s: not a file of this user's own: not used",
		    dir, name);
		errno = EPERM;
		goto out;
	}
	if (fs_read_file(dfd, name, ZSTDCONN_DICTMAX, out) == -1) {
		cerr_errno(err, "%s/%s", dir, name);
		goto out;
	}
	/* Its time is its last use: the least recently used goes first. */
	(void)utimensat(dfd, name, NULL, AT_SYMLINK_NOFOLLOW);
	r = 0;
out:
	close(dfd);
	return r;
}

/* The directory dir, made private if missing: a descriptor, or -1. */
static int
zdkeep_open(const char *dir, struct cerr *err)
{
	char		*parent, *slash;
	int		 dfd;

	if (mkdir(dir, 0700) == -1 && errno == ENOENT) {
		/* One level more: /var/cache/cairn of /var/cache/cairn/zdict. */
		parent = xstrdup(dir);
		if ((slash = strrchr(parent, '/')) != NULL && slash != parent) {
			*slash = '\0';
			(void)mkdir(parent, 0755);
		}
		free(parent);
		(void)mkdir(dir, 0700);
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		cerr_errno(err, "%s", dir);
		return -1;
	}
	if (zdkeep_trust(dfd, dir, err) == -1) {
		close(dfd);
		return -1;
	}
	return dfd;
}

struct kept {
	char	name[ZDKEEP_NAMELEN];
	time_t	used;
};

static int
kept_cmp(const void *a, const void *b)
{
	const struct kept	*x = a, *y = b;

	return x->used > y->used ? -1 : x->used < y->used;
}

/* Forget all but the ZDKEEP_MAX most recently used, and stale temps. */
static void
zdkeep_prune(int dfd)
{
	struct kept	*v = NULL;
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	size_t		 n = 0, cap = 0, i;
	int		 fd;

	if ((fd = dup(dfd)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (fs_tmp_stale(dfd, de->d_name)) {
			(void)unlinkat(dfd, de->d_name, 0);
			continue;
		}
		/* An earlier version's, named by the ID alone: forgotten. */
		if (strspn(de->d_name, "0123456789") == strlen(de->d_name) &&
		    de->d_name[0] != '\0') {
			(void)unlinkat(dfd, de->d_name, 0);
			continue;
		}
		if (!zdkeep_isname(de->d_name) ||
		    fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 16;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		(void)snprintf(v[n].name, sizeof(v[n].name), "%s",
		    de->d_name);
		v[n++].used = st.st_mtime;
	}
	closedir(d);
	if (n > ZDKEEP_MAX) {
		qsort(v, n, sizeof(*v), kept_cmp);
		for (i = ZDKEEP_MAX; i < n; i++)
			(void)unlinkat(dfd, v[i].name, 0);
	}
	free(v);
}

int
zdkeep_save(const char *dir, const char *server, unsigned id, const void *p,
    size_t len, struct cerr *err)
{
	char	name[ZDKEEP_NAMELEN], tmp[48];
	int	dfd, fd, r, tries;

	if ((dfd = zdkeep_open(dir, err)) == -1)
		return -1;
	zdkeep_name(server, id, name);
	(void)snprintf(tmp, sizeof(tmp), ".tmp.%ld.%u", (long)getpid(), id);
	/*
	 * A new file, whatever was left under its name (a FIFO would hang
	 * the open, a link would be written through): that is removed, and
	 * the name taken once more.  A lost file is fetched again: no fsync.
	 */
	for (tries = 0;; tries++) {
		if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
		    O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600)) != -1)
			break;
		if (errno != EEXIST || tries > 0 ||
		    unlinkat(dfd, tmp, 0) == -1) {
			cerr_errno(err, "%s/%s", dir, tmp);
			close(dfd);
			return -1;
		}
	}
	r = fs_write_all(fd, p, len);
	if (close(fd) == -1)
		r = -1;
	if (r == -1 || renameat(dfd, tmp, dfd, name) == -1) {
		cerr_errno(err, "%s/%s", dir, name);
		(void)unlinkat(dfd, tmp, 0);
		close(dfd);
		return -1;
	}
	zdkeep_prune(dfd);
	close(dfd);
	return 0;
}
