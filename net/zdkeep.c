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

int
zdkeep_load(const char *dir, unsigned id, struct buf **out)
{
	char	name[16];
	int	dfd, r;

	*out = NULL;
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	(void)snprintf(name, sizeof(name), "%u", id);
	r = fs_read_file(dfd, name, ZSTDCONN_DICTMAX, out);
	/* Its time is its last use: the least recently used goes first. */
	if (r == 0)
		(void)utimensat(dfd, name, NULL, AT_SYMLINK_NOFOLLOW);
	close(dfd);
	return r;
}

/* The directory dir, made private if missing: a descriptor, or -1. */
static int
zdkeep_open(const char *dir, struct cerr *err)
{
	struct stat	 st;
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
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    fstat(dfd, &st) == -1) {
		cerr_errno(err, "%s", dir);
		if (dfd != -1)
			close(dfd);
		return -1;
	}
	if ((st.st_mode & 077) != 0 && st.st_uid == geteuid())
		(void)fchmod(dfd, 0700);
	return dfd;
}

struct kept {
	char	name[16];
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
		if (fs_tmp_stale(de->d_name)) {
			(void)unlinkat(dfd, de->d_name, 0);
			continue;
		}
		if (strspn(de->d_name, "0123456789") != strlen(de->d_name) ||
		    strlen(de->d_name) >= sizeof(v->name) ||
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
zdkeep_save(const char *dir, unsigned id, const void *p, size_t len,
    struct cerr *err)
{
	char	name[16], tmp[48];
	int	dfd, fd, r;

	if ((dfd = zdkeep_open(dir, err)) == -1)
		return -1;
	(void)snprintf(name, sizeof(name), "%u", id);
	(void)snprintf(tmp, sizeof(tmp), ".tmp.%ld.%u", (long)getpid(), id);
	/* A lost file is fetched again: no fsync. */
	if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, 0600)) == -1) {
		cerr_errno(err, "%s/%s", dir, tmp);
		close(dfd);
		return -1;
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
