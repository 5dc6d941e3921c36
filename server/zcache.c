/*
 * zcache.c: cairnd's cache of compressed file bodies (see zcache.h).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cerr.h"
#include "cksum.h"
#include "compat.h"
#include "fsutil.h"
#include "log.h"
#include "xmalloc.h"
#include "zcache.h"
#include "zlevel.h"

#define ZC_RECORD	256	/* longest record line */
#define ZC_NAMEMAX	(CKSUM_B64MAX + 8)

struct zcache {
	int		 dfd;		/* the cache directory */
	int64_t		 bound;
	unsigned	 seq;		/* temporary names */
};

struct zfill {
	struct zcache	*zc;
	struct stat	 st;
	enum zlevel_codec codec;
	int		 level;
	int		 fd;		/* the temporary entry */
	char		 tmp[64];
	struct cksum	*ck;
	uint64_t	 raw, len;
	int		 failed;
};

struct zcache *
zcache_open(const char *dir, int64_t bound, struct cerr *err)
{
	struct zcache	*zc;
	int		 dfd;

	if (mkdir(dir, 0755) == -1 && errno != EEXIST) {
		cerr_errno(err, "%s: mkdir", dir);
		return NULL;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		cerr_errno(err, "%s", dir);
		return NULL;
	}
	if ((mkdirat(dfd, "z", 0755) == -1 && errno != EEXIST) ||
	    (mkdirat(dfd, "i", 0755) == -1 && errno != EEXIST)) {
		cerr_errno(err, "%s: mkdir", dir);
		close(dfd);
		return NULL;
	}
	zc = xcalloc(1, sizeof(*zc));
	zc->dfd = dfd;
	zc->bound = bound;
	return zc;
}

void
zcache_close(struct zcache *zc)
{
	if (zc == NULL)
		return;
	close(zc->dfd);
	free(zc);
}

static void
rec_name(const struct stat *st, char *name, size_t len)
{
	snprintf(name, len, "i/%ju-%ju", (uintmax_t)st->st_dev,
	    (uintmax_t)st->st_ino);
}

/* Read the record of st; 1 and its verdict and digest if it matches. */
static int
rec_read(struct zcache *zc, const struct stat *st, int *verdict,
    char digest[ZC_NAMEMAX])
{
	char		 name[64], line[ZC_RECORD], dg[ZC_NAMEMAX];
	intmax_t	 size, ms, mns, cs, cns;
	ssize_t		 n;
	int		 fd, v;

	rec_name(st, name, sizeof(name));
	if ((fd = openat(zc->dfd, name, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, line, sizeof(line) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	line[n] = '\0';
	if (sscanf(line, "1 %jd %jd %jd %jd %jd %d %43s", &size, &ms, &mns,
	    &cs, &cns, &v, dg) != 7)
		return 0;
	if (size != (intmax_t)st->st_size ||
	    ms != (intmax_t)st->st_mtim.tv_sec ||
	    mns != (intmax_t)st->st_mtim.tv_nsec ||
	    cs != (intmax_t)st->st_ctim.tv_sec ||
	    cns != (intmax_t)st->st_ctim.tv_nsec ||
	    (v != ZC_DEFLATE && v != ZC_STORED) || dg[0] == '.' ||
	    strchr(dg, '/') != NULL)
		return 0;
	*verdict = v;
	strlcpy(digest, dg, ZC_NAMEMAX);
	return 1;
}

/* Write st's record through a temporary file and a rename. */
static void
rec_write(struct zcache *zc, const struct stat *st, int verdict,
    const char *digest)
{
	char	 name[64], tmp[64], line[ZC_RECORD];
	int	 fd, n;

	rec_name(st, name, sizeof(name));
	snprintf(tmp, sizeof(tmp), "i/.tmp.%ld.%u", (long)getpid(),
	    zc->seq++);
	n = snprintf(line, sizeof(line), "1 %jd %jd %jd %jd %jd %d %s\n",
	    (intmax_t)st->st_size, (intmax_t)st->st_mtim.tv_sec,
	    (intmax_t)st->st_mtim.tv_nsec, (intmax_t)st->st_ctim.tv_sec,
	    (intmax_t)st->st_ctim.tv_nsec, verdict, digest);
	if ((fd = openat(zc->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0644)) == -1)
		return;
	if (fs_write_all(fd, line, (size_t)n) == -1 || close(fd) == -1 ||
	    renameat(zc->dfd, tmp, zc->dfd, name) == -1)
		(void)unlinkat(zc->dfd, tmp, 0);
}

/*
 * The name of an entry of codec at level: zlib's as before codecs were
 * named, "z/<digest>.<level>"; zstd's "z/<digest>.zstd<level>".
 */
static void
ent_name(const char *digest, enum zlevel_codec codec, int level,
    char *name, size_t len)
{
	snprintf(name, len, "z/%s.%s%d", digest, codec == ZLEVEL_ZLIB ? "" :
	    zlevel_label(codec), level);
}

/*
 * Read an entry's header (NUL-terminated, ZC_HEADER bytes at most):
 * 1 and its codec, level, plain and compressed sizes if it is one.
 * "cairn-zcache 1 <codec> <level> <raw> <len>", or a zlib entry's
 * "cairn-zcache 1 <level> <raw> <len>" from before codecs were named.
 */
static int
ent_header(const char *hdr, enum zlevel_codec *codec, int *level,
    unsigned long long *raw, unsigned long long *len)
{
	char	 word[8];
	int	 c;

	if (sscanf(hdr, "cairn-zcache 1 %d %llu %llu", level, raw,
	    len) == 3) {
		*codec = ZLEVEL_ZLIB;
		return 1;
	}
	if (sscanf(hdr, "cairn-zcache 1 %7s %d %llu %llu", word, level, raw,
	    len) != 4)
		return 0;
	for (c = 0; c < ZLEVEL_NCODECS; c++)
		if (strcmp(word, zlevel_label((enum zlevel_codec)c)) == 0) {
			*codec = (enum zlevel_codec)c;
			return 1;
		}
	return 0;
}

/* A source may be trusted once its change time has settled. */
int
zcache_settled(const struct stat *st)
{
	return st->st_ctim.tv_sec + ZC_SETTLE < time(NULL);
}

int
zcache_find(struct zcache *zc, const struct stat *st, enum zlevel_codec codec,
    int lo, int hi, struct zhit *h)
{
	char		 digest[ZC_NAMEMAX], name[ZC_NAMEMAX + 16];
	char		 hdr[ZC_HEADER + 1];
	unsigned long long raw, len;
	enum zlevel_codec hc;
	struct stat	 est;
	int		 l, fd, hl;

	h->verdict = ZC_UNKNOWN;
	h->fd = -1;
	if (!rec_read(zc, st, &h->verdict, digest) ||
	    h->verdict != ZC_DEFLATE)
		return 0;
	for (l = hi; l >= lo; l--) {
		if (!zlevel_deflates(codec, l))
			continue;
		ent_name(digest, codec, l, name, sizeof(name));
		if ((fd = openat(zc->dfd, name, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC)) == -1)
			continue;
		if (read(fd, hdr, ZC_HEADER) != ZC_HEADER ||
		    fstat(fd, &est) == -1) {
			close(fd);
			continue;
		}
		hdr[ZC_HEADER] = '\0';
		if (!ent_header(hdr, &hc, &hl, &raw, &len) || hc != codec ||
		    hl != l || raw != (uint64_t)st->st_size ||
		    (uint64_t)est.st_size != ZC_HEADER + len) {
			close(fd);
			continue;
		}
		/* Its modification time is its last use, for zcache_trim. */
		(void)futimens(fd, NULL);
		h->fd = fd;
		h->level = l;
		h->len = len;
		return 0;
	}
	return 0;
}

void
zcache_stored(struct zcache *zc, const struct stat *st)
{
	if (zcache_settled(st))
		rec_write(zc, st, ZC_STORED, "-");
}

struct zfill *
zcache_fill_begin(struct zcache *zc, const struct stat *st,
    enum zlevel_codec codec, int level)
{
	struct zfill	*f;
	char		 pad[ZC_HEADER];

	if (!zcache_settled(st) || !zlevel_deflates(codec, level))
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->zc = zc;
	f->st = *st;
	f->codec = codec;
	f->level = level;
	snprintf(f->tmp, sizeof(f->tmp), "z/.tmp.%ld.%u", (long)getpid(),
	    zc->seq++);
	if ((f->fd = openat(zc->dfd, f->tmp, O_RDWR | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0644)) == -1 || (f->ck = cksum_new("sha1")) == NULL) {
		if (f->fd != -1) {
			close(f->fd);
			(void)unlinkat(zc->dfd, f->tmp, 0);
		}
		free(f);
		return NULL;
	}
	/* The header is written last, over this. */
	memset(pad, ' ', sizeof(pad));
	if (fs_write_all(f->fd, pad, sizeof(pad)) == -1)
		f->failed = 1;
	return f;
}

void
zcache_fill_src(struct zfill *f, const void *p, size_t n)
{
	cksum_update(f->ck, p, n);
	f->raw += n;
}

void
zcache_fill_data(void *arg, const void *p, size_t n)
{
	struct zfill	*f = arg;

	if (f->failed)
		return;
	if (fs_write_all(f->fd, p, n) == -1)
		f->failed = 1;
	f->len += n;
}

int
zcache_fill_end(struct zfill *f, int ok, int srcfd)
{
	struct zcache	*zc = f->zc;
	struct stat	 now;
	char		 hdr[ZC_HEADER], digest[CKSUM_B64MAX];
	char		 name[ZC_NAMEMAX + 16], *p;
	int		 n, rc = -1;

	if (!ok || f->failed || f->raw != (uint64_t)f->st.st_size ||
	    fstat(srcfd, &now) == -1 || now.st_size != f->st.st_size ||
	    now.st_mtim.tv_sec != f->st.st_mtim.tv_sec ||
	    now.st_mtim.tv_nsec != f->st.st_mtim.tv_nsec ||
	    now.st_ctim.tv_sec != f->st.st_ctim.tv_sec ||
	    now.st_ctim.tv_nsec != f->st.st_ctim.tv_nsec)
		goto out;
	cksum_final(f->ck, digest);
	/* Base64 to a file name: '/' cannot be in one. */
	for (p = digest; *p != '\0'; p++)
		if (*p == '/')
			*p = '_';
	memset(hdr, ' ', sizeof(hdr));
	n = snprintf(hdr, sizeof(hdr), "cairn-zcache 1 %s %d %llu %llu",
	    zlevel_label(f->codec), f->level, (unsigned long long)f->raw,
	    (unsigned long long)f->len);
	if (n < 0 || (size_t)n >= sizeof(hdr) - 1)
		goto out;
	hdr[n] = ' ';
	hdr[sizeof(hdr) - 1] = '\n';
	ent_name(digest, f->codec, f->level, name, sizeof(name));
	if (pwrite(f->fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    fdatasync(f->fd) == -1 || close(f->fd) == -1) {
		f->fd = -1;
		goto out;
	}
	f->fd = -1;
	if (renameat(zc->dfd, f->tmp, zc->dfd, name) == -1)
		goto out;
	rec_write(zc, &f->st, ZC_DEFLATE, digest);
	rc = 0;
out:
	if (f->fd != -1)
		close(f->fd);
	if (rc == -1)
		(void)unlinkat(zc->dfd, f->tmp, 0);
	cksum_free(f->ck);
	free(f);
	return rc;
}

struct ent {
	char		*name;
	off_t		 size;
	time_t		 used;
};

static int
ent_cmp(const void *a, const void *b)
{
	const struct ent	*x = a, *y = b;

	return x->used < y->used ? -1 : x->used > y->used;
}

int
zcache_trim(struct zcache *zc)
{
	struct ent	*v = NULL;
	struct dirent	*de;
	struct stat	 st;
	DIR		*d;
	size_t		 n = 0, cap = 0, i;
	int64_t		 total = 0;
	int		 fd, removed = 0;

	if (zc->bound <= 0)
		return 0;
	if ((fd = openat(zc->dfd, "z", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1 || !S_ISREG(st.st_mode))
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 256;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[n].name = xstrdup(de->d_name);
		v[n].size = st.st_blocks * 512;
		v[n].used = st.st_mtim.tv_sec;
		total += v[n].size;
		n++;
	}
	if (total > zc->bound) {
		qsort(v, n, sizeof(*v), ent_cmp);
		/* Down to nine tenths, so that trimming is not constant. */
		for (i = 0; i < n && total > zc->bound / 10 * 9; i++) {
			if (unlinkat(dirfd(d), v[i].name, 0) == 0) {
				total -= v[i].size;
				removed++;
			}
		}
	}
	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
	closedir(d);
	return removed;
}
