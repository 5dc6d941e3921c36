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
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
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

/* A transcript a dictionary was trained on, as it was then. */
struct zdsrc {
	char		*name;		/* in transcript/ */
	int64_t		 size;
	int64_t		 sec, nsec;	/* modification time */
	uint64_t	 ino;
};

struct zcache {
	int		 dfd;		/* the cache directory */
	int		 zfd, ifd;	/* its z/ and i/, held: never re-resolved */
	int64_t		 bound;
	unsigned	 seq;		/* temporary names */
	struct zstdconn_dict *dict;	/* ZC_DICT, or NULL */
	char		 dictsum[CKSUM_B64MAX];	/* its SHA-256 */
	struct zdsrc	*src;		/* ZC_DICTSRC */
	size_t		 nsrc;
	char		*dir;		/* as given, for messages */
};

struct zfill {
	struct zcache	*zc;
	struct stat	 st;
	enum zlevel_codec codec;
	int		 level;
	unsigned	 dict;		/* id of the dictionary, 0: none */
	int		 fd;		/* the temporary entry */
	char		 tmp[64];
	struct cksum	*ck;
	uint64_t	 raw, len;
	int		 failed;
};

static void
src_free(struct zcache *zc)
{
	size_t	 i;

	for (i = 0; i < zc->nsrc; i++)
		free(zc->src[i].name);
	free(zc->src);
	zc->src = NULL;
	zc->nsrc = 0;
}

/*
 * ZC_DICTSRC: "cairn-zdict 1 <id>", then per source transcript "<size>
 * <mtime s> <mtime ns> <inode> <name>".  0 when it is there, well formed
 * and of dictionary id; else -1 (and no sources).
 */
static int
src_load(struct zcache *zc, unsigned id)
{
	struct buf	*b;
	char		*line, *name;
	long long	 size, sec, nsec;
	unsigned long long ino;
	unsigned	 fid;
	int		 n, first = 1, ok = 1;

	if (fs_read_file(zc->dfd, ZC_DICTSRC, 4 * 1024 * 1024, &b) == -1)
		return -1;
	while (buf_getline(b, &line) > 0) {
		if (first) {
			first = 0;
			if (sscanf(line, "cairn-zdict 1 %u", &fid) != 1 ||
			    fid != id)
				ok = 0;
			continue;
		}
		if (sscanf(line, "%lld %lld %lld %llu %n", &size, &sec, &nsec,
		    &ino, &n) != 4 || line[n] == '\0' ||
		    strchr(line + n, '/') != NULL) {
			ok = 0;
			break;
		}
		name = line + n;
		zc->src = xreallocarray(zc->src, zc->nsrc + 1,
		    sizeof(*zc->src));
		zc->src[zc->nsrc].name = xstrdup(name);
		zc->src[zc->nsrc].size = size;
		zc->src[zc->nsrc].sec = sec;
		zc->src[zc->nsrc].nsec = nsec;
		zc->src[zc->nsrc].ino = ino;
		zc->nsrc++;
	}
	buf_free(b);
	if (first || zc->nsrc == 0)
		ok = 0;
	if (!ok)
		src_free(zc);
	return ok ? 0 : -1;
}

/*
 * The dictionary ZC_DICT of the cache in dir, if there is one: a regular
 * file of at most ZSTDCONN_DICTMAX bytes that zstdconn_dict_new takes.
 * Any other is an error naming the file: cairnd does not start on it.
 * Without its record of sources (ZC_DICTSRC, of its id) it is not used:
 * nothing says who may have it.
 */
static int
dict_load(struct zcache *zc, const char *dir, struct cerr *err)
{
	struct buf	*b;
	struct cerr	 derr;
	size_t		 len;

	if (fs_read_file(zc->dfd, ZC_DICT, ZSTDCONN_DICTMAX, &b) == -1) {
		if (errno == ENOENT)
			return 0;
		if (errno == EFBIG)
			cerr_set(err, "%s/%s: more than the %d bytes a zstd "
			    "dictionary may have", dir, ZC_DICT,
			    ZSTDCONN_DICTMAX);
		else
			cerr_errno(err, "%s/%s", dir, ZC_DICT);
		return -1;
	}
	zc->dict = zstdconn_dict_new(buf_data(b), buf_len(b), &derr);
	if (cksum_data("sha256", buf_data(b), buf_len(b), zc->dictsum) == -1)
		zc->dictsum[0] = '\0';
	buf_free(b);
	/* Its frame now, once, for the sessions to come. */
	if (zc->dict == NULL || zstdconn_dict_frame(zc->dict, &len,
	    &derr) == NULL) {
		cerr_set(err, "%s/%s: %s", dir, ZC_DICT, derr.msg);
		zstdconn_dict_free(zc->dict);
		zc->dict = NULL;
		return -1;
	}
	if (src_load(zc, zstdconn_dict_id(zc->dict)) == -1) {
		log_warnx("%s/%s: no record of the transcripts it was trained "
		    "on (%s): not used", dir, ZC_DICT, ZC_DICTSRC);
		zstdconn_dict_free(zc->dict);
		zc->dict = NULL;
	}
	return 0;
}

int
zcache_dict_fresh(const struct zcache *zc, int rootfd)
{
	struct stat	 st;
	char		 rel[PATH_MAX];
	size_t		 i;

	/* Without its record nothing says who may have it. */
	if (zc == NULL || zc->dict == NULL || zc->nsrc == 0)
		return 0;
	for (i = 0; i < zc->nsrc; i++) {
		if ((size_t)snprintf(rel, sizeof(rel), "transcript/%s",
		    zc->src[i].name) >= sizeof(rel) ||
		    fstatat(rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISREG(st.st_mode) || st.st_size != zc->src[i].size ||
		    st.st_mtim.tv_sec != zc->src[i].sec ||
		    st.st_mtim.tv_nsec != zc->src[i].nsec ||
		    (uint64_t)st.st_ino != zc->src[i].ino)
			return 0;
	}
	return 1;
}

int
zcache_dict_refresh(struct zcache *zc, int rootfd)
{
	struct cerr	 err;

	if (zc == NULL || zcache_dict_fresh(zc, rootfd))
		return 0;
	zstdconn_dict_free(zc->dict);
	zc->dict = NULL;
	src_free(zc);
	if (dict_load(zc, zc->dir, &err) == -1) {
		log_warnx("%s", err.msg);
		return 0;
	}
	/* (The same samples train the same dictionary, of the same id.) */
	if (!zcache_dict_fresh(zc, rootfd))
		return 0;
	log_info("zstd dictionary %u of %s/%s in use", zstdconn_dict_id(
	    zc->dict), zc->dir, ZC_DICT);
	return 1;
}

int
zcache_dict_for(const struct zcache *zc, int rootfd,
    int (*allowed)(void *, const char *), void *arg)
{
	size_t	 i;

	if (!zcache_dict_fresh(zc, rootfd))
		return 0;
	for (i = 0; i < zc->nsrc; i++)
		if (!allowed(arg, zc->src[i].name))
			return 0;
	return 1;
}

struct zstdconn_dict *
zcache_dict(const struct zcache *zc)
{
	return zc != NULL ? zc->dict : NULL;
}

const char *
zcache_dict_sum(const struct zcache *zc)
{
	return zc != NULL && zc->dict != NULL && zc->dictsum[0] != '\0' ?
	    zc->dictsum : NULL;
}

/* Write len bytes at p over name in the cache directory, durably. */
static int
put_file(struct zcache *zc, const char *name, const void *p, size_t len,
    struct cerr *err)
{
	char	 tmp[64];
	int	 fd;

	snprintf(tmp, sizeof(tmp), ".tmp.%ld.%u", (long)getpid(), zc->seq++);
	if ((fd = openat(zc->dfd, tmp, O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0600)) == -1 || fs_write_all(fd, p, len) == -1 ||
	    fdatasync(fd) == -1) {
		cerr_errno(err, "%s", name);
		if (fd != -1)
			(void)close(fd);
		(void)unlinkat(zc->dfd, tmp, 0);
		return -1;
	}
	/* Closed once, whatever close says. */
	if (close(fd) == -1 || renameat(zc->dfd, tmp, zc->dfd, name) == -1) {
		cerr_errno(err, "%s", name);
		(void)unlinkat(zc->dfd, tmp, 0);
		return -1;
	}
	return 0;
}

int
zcache_set_dict(struct zcache *zc, const void *p, size_t len,
    const struct zcache_src *src, size_t nsrc, struct cerr *err)
{
	struct zstdconn_dict *d;
	struct buf	*b;
	size_t		 i;
	int		 r;

	if ((d = zstdconn_dict_new(p, len, err)) == NULL)
		return -1;
	b = buf_new(4 * 1024 * 1024);
	r = buf_printf(b, "cairn-zdict 1 %u\n", zstdconn_dict_id(d));
	for (i = 0; i < nsrc && r == 0; i++)
		r = buf_printf(b, "%lld %lld %ld %llu %s\n",
		    (long long)src[i].st.st_size,
		    (long long)src[i].st.st_mtim.tv_sec,
		    (long)src[i].st.st_mtim.tv_nsec,
		    (unsigned long long)src[i].st.st_ino, src[i].name);
	/* The record first: a dictionary is never used without it. */
	if (r == -1 || nsrc == 0) {
		cerr_set(err, "%s: too many sources", ZC_DICTSRC);
		r = -1;
	} else if ((r = put_file(zc, ZC_DICTSRC, buf_data(b), buf_len(b),
	    err)) == 0)
		r = put_file(zc, ZC_DICT, p, len, err);
	if (r == 0) {
		src_free(zc);
		r = src_load(zc, zstdconn_dict_id(d));
		if (r == -1)
			cerr_set(err, "%s: unreadable once written", ZC_DICTSRC);
	}
	buf_free(b);
	if (r == -1) {
		zstdconn_dict_free(d);
		return -1;
	}
	zstdconn_dict_free(zc->dict);
	zc->dict = d;
	if (cksum_data("sha256", p, len, zc->dictsum) == -1)
		zc->dictsum[0] = '\0';
	return 0;
}

/* Remove the stale temporary files of the directory dfd. */
static void
tmp_sweep(int dfd)
{
	struct dirent	*de;
	DIR		*d;
	int		 fd;

	/* "." of the held descriptor: a description of its own. */
	if ((fd = openat(dfd, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (fs_tmp_stale(dirfd(d), de->d_name))
			(void)unlinkat(dirfd(d), de->d_name, 0);
	closedir(d);
}

/*
 * The directory name below dfd, opened without following a link and
 * made private (fs_dir_private); its descriptor, or -1.  The cache is
 * writable by the -g user, and this may run as root (start-up, -W): z/
 * and i/ are only ever used through these descriptors.
 */
static int
zc_private(int dfd, const char *name)
{
	uid_t	 uid;
	int	 fd, e;

	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fs_dir_private(fd, &uid) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

struct zcache *
zcache_open(const char *dir, int64_t bound, struct cerr *err)
{
	struct zcache	*zc;
	int		 dfd, zfd = -1, ifd = -1;
	uid_t		 uid;

	if (mkdir(dir, 0700) == -1 && errno != EEXIST) {
		cerr_errno(err, "%s: mkdir", dir);
		return NULL;
	}
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1) {
		cerr_errno(err, "%s", dir);
		return NULL;
	}
	if ((mkdirat(dfd, "z", 0700) == -1 && errno != EEXIST) ||
	    (mkdirat(dfd, "i", 0700) == -1 && errno != EEXIST)) {
		cerr_errno(err, "%s: mkdir", dir);
		close(dfd);
		return NULL;
	}
	/*
	 * One made by an earlier version (0755) is made private too: its
	 * entries, 0644, are then out of other users' reach.
	 */
	if (fs_dir_private(dfd, &uid) == -1 ||
	    (zfd = zc_private(dfd, "z")) == -1 ||
	    (ifd = zc_private(dfd, "i")) == -1) {
		cerr_errno(err, "%s: chmod", dir);
		if (zfd != -1)
			close(zfd);
		close(dfd);
		return NULL;
	}
	zc = xcalloc(1, sizeof(*zc));
	zc->dfd = dfd;
	zc->zfd = zfd;
	zc->ifd = ifd;
	zc->bound = bound;
	zc->dir = xstrdup(dir);
	/* What a killed writer left, before it is counted or read. */
	tmp_sweep(zc->dfd);
	tmp_sweep(zc->ifd);
	tmp_sweep(zc->zfd);
	if (dict_load(zc, dir, err) == -1) {
		zcache_close(zc);
		return NULL;
	}
	return zc;
}

void
zcache_close(struct zcache *zc)
{
	if (zc == NULL)
		return;
	zstdconn_dict_free(zc->dict);
	src_free(zc);
	free(zc->dir);
	close(zc->zfd);
	close(zc->ifd);
	close(zc->dfd);
	free(zc);
}

static void
rec_name(const struct stat *st, char *name, size_t len)
{
	snprintf(name, len, "%ju-%ju", (uintmax_t)st->st_dev,
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
	if ((fd = openat(zc->ifd, name, O_RDONLY | O_NOFOLLOW |
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
	snprintf(tmp, sizeof(tmp), ".tmp.%ld.%u", (long)getpid(),
	    zc->seq++);
	n = snprintf(line, sizeof(line), "1 %jd %jd %jd %jd %jd %d %s\n",
	    (intmax_t)st->st_size, (intmax_t)st->st_mtim.tv_sec,
	    (intmax_t)st->st_mtim.tv_nsec, (intmax_t)st->st_ctim.tv_sec,
	    (intmax_t)st->st_ctim.tv_nsec, verdict, digest);
	if ((fd = openat(zc->ifd, tmp, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
		return;
	if (fs_write_all(fd, line, (size_t)n) == -1) {
		(void)close(fd);
		(void)unlinkat(zc->ifd, tmp, 0);
		return;
	}
	if (close(fd) == -1 || renameat(zc->ifd, tmp, zc->ifd, name) == -1)
		(void)unlinkat(zc->ifd, tmp, 0);
}

/*
 * The name of an entry of codec at level: zlib's as before codecs were
 * named, "<digest>.<level>"; zstd's "<digest>.zstd<level>", and
 * "<digest>.zstd<level>d<id>" made with the dictionary of that id; all
 * in z/ (zc->zfd).
 */
static void
ent_name(const char *digest, enum zlevel_codec codec, int level,
    unsigned dict, char *name, size_t len)
{
	if (dict != 0)
		snprintf(name, len, "%s.%s%dd%u", digest,
		    zlevel_label(codec), level, dict);
	else
		snprintf(name, len, "%s.%s%d", digest, codec == ZLEVEL_ZLIB ?
		    "" : zlevel_label(codec), level);
}

/*
 * Read an entry's header (NUL-terminated, ZC_HEADER bytes at most):
 * 1 and its codec, level, plain and compressed sizes and dictionary
 * id (0: none) if it is one.  "cairn-zcache 1 <codec> <level> <raw>
 * <len> [<dict>]", or a zlib entry's "cairn-zcache 1 <level> <raw>
 * <len>" from before codecs were named.
 */
static int
ent_header(const char *hdr, enum zlevel_codec *codec, int *level,
    unsigned long long *raw, unsigned long long *len, unsigned *dict)
{
	char	 word[8];
	int	 c;

	*dict = 0;
	if (sscanf(hdr, "cairn-zcache 1 %d %llu %llu", level, raw,
	    len) == 3) {
		*codec = ZLEVEL_ZLIB;
		return 1;
	}
	if (sscanf(hdr, "cairn-zcache 1 %7s %d %llu %llu %u", word, level,
	    raw, len, dict) < 4)
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
    unsigned dict, int lo, int hi, struct zhit *h)
{
	char		 digest[ZC_NAMEMAX], name[ZC_NAMEMAX + 32];
	char		 hdr[ZC_HEADER + 1];
	unsigned long long raw, len;
	enum zlevel_codec hc;
	struct stat	 est;
	unsigned	 hd;
	int		 l, fd, hl;

	h->verdict = ZC_UNKNOWN;
	h->fd = -1;
	if (!rec_read(zc, st, &h->verdict, digest) ||
	    h->verdict != ZC_DEFLATE)
		return 0;
	for (l = hi; l >= lo; l--) {
		if (!zlevel_deflates(codec, l))
			continue;
		ent_name(digest, codec, l, dict, name, sizeof(name));
		if ((fd = openat(zc->zfd, name, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC)) == -1)
			continue;
		if (read(fd, hdr, ZC_HEADER) != ZC_HEADER ||
		    fstat(fd, &est) == -1) {
			close(fd);
			continue;
		}
		hdr[ZC_HEADER] = '\0';
		if (!ent_header(hdr, &hc, &hl, &raw, &len, &hd) ||
		    hc != codec || hd != dict || hl != l || raw != (uint64_t)st->st_size ||
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
    enum zlevel_codec codec, unsigned dict, int level)
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
	f->dict = dict;
	snprintf(f->tmp, sizeof(f->tmp), ".tmp.%ld.%u", (long)getpid(),
	    zc->seq++);
	if ((f->fd = openat(zc->zfd, f->tmp, O_RDWR | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, 0600)) == -1 || (f->ck = cksum_new("sha1")) == NULL) {
		if (f->fd != -1) {
			close(f->fd);
			(void)unlinkat(zc->zfd, f->tmp, 0);
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
	char		 name[ZC_NAMEMAX + 32], *p;
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
	if (f->dict != 0)
		n = snprintf(hdr, sizeof(hdr), "cairn-zcache 1 %s %d %llu "
		    "%llu %u", zlevel_label(f->codec), f->level,
		    (unsigned long long)f->raw, (unsigned long long)f->len,
		    f->dict);
	else
		n = snprintf(hdr, sizeof(hdr), "cairn-zcache 1 %s %d %llu "
		    "%llu", zlevel_label(f->codec), f->level,
		    (unsigned long long)f->raw, (unsigned long long)f->len);
	if (n < 0 || (size_t)n >= sizeof(hdr) - 1)
		goto out;
	hdr[n] = ' ';
	hdr[sizeof(hdr) - 1] = '\n';
	ent_name(digest, f->codec, f->level, f->dict, name, sizeof(name));
	if (pwrite(f->fd, hdr, sizeof(hdr), 0) != (ssize_t)sizeof(hdr) ||
	    fdatasync(f->fd) == -1)
		goto out;		/* closed there */
	n = close(f->fd);
	f->fd = -1;
	if (n == -1)
		goto out;
	if (renameat(zc->zfd, f->tmp, zc->zfd, name) == -1)
		goto out;
	rec_write(zc, &f->st, ZC_DEFLATE, digest);
	rc = 0;
out:
	if (f->fd != -1)
		close(f->fd);
	if (rc == -1)
		(void)unlinkat(zc->zfd, f->tmp, 0);
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
	if ((fd = openat(zc->zfd, ".", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return 0;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.') {
			/* A session killed while it filled an entry. */
			if (fs_tmp_stale(dirfd(d), de->d_name))
				(void)unlinkat(dirfd(d), de->d_name, 0);
			continue;
		}
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
