/*
 * dstore.c: the repository's store for delta transfer (see dstore.h).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "cksum.h"
#include "compat.h"
#include "confine.h"
#include "delta.h"
#include "dstore.h"
#include "encode.h"
#include "fsutil.h"
#include "log.h"
#include "xmalloc.h"
#include "zstream.h"

#define DSTORE_ALGMAX	16		/* longest algorithm name */
#define DSTORE_PAIRMAX	(2 * CKSUM_B64MAX + 8)	/* "<b>.<t>.none" */
#define DSTORE_CHUNK	(1 << 20)	/* target read and deflated */
#define DSTORE_TMPAGE	3600		/* s before a .tmp.* is stale */
#define DSTORE_QUEUEMAX	(64 * 1024)	/* an encoded path and LF */
#define DSTORE_NONE	".none"

struct dstore {
	int		 rootfd;	/* the repository, not ours */
	int		 afd;		/* delta/<alg> */
	int		 bfd, ofd, dfd, qfd;	/* base owner delta queue */
	char		 alg[DSTORE_ALGMAX + 1];
	size_t		 dlen;		/* characters of a digest */
	size_t		 npad;		/* '=' at its end */
	int64_t		 bound;
	unsigned	 seq;		/* temporary names */
};

static const char *const dstore_subs[] = { "base", "owner", "delta",
	"queue" };

/* Nonzero if alg can name a store: a short [a-z0-9-] digest name. */
static int
dstore_alg_ok(const char *alg)
{
	size_t	 n = strlen(alg);

	return n > 0 && n <= DSTORE_ALGMAX &&
	    strspn(alg, "abcdefghijklmnopqrstuvwxyz0123456789-") == n &&
	    cksum_supported(alg);
}

static int
dstore_subdir(int pfd, const char *name, int create)
{
	if (create && mkdirat(pfd, name, 0750) == -1 && errno != EEXIST)
		return -1;
	return openat(pfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
}

struct dstore *
dstore_open(int rootfd, const char *alg, int64_t bound, int create,
    struct cerr *err)
{
	struct dstore	*ds;
	char		 empty[CKSUM_B64MAX];
	int		 topfd, serrno, *fds[4];
	size_t		 i;

	if (!dstore_alg_ok(alg) || cksum_data(alg, "", 0, empty) == -1) {
		cerr_set(err, "%s: unsupported checksum", alg);
		return NULL;
	}
	ds = xcalloc(1, sizeof(*ds));
	ds->rootfd = rootfd;
	ds->afd = ds->bfd = ds->ofd = ds->dfd = ds->qfd = -1;
	strlcpy(ds->alg, alg, sizeof(ds->alg));
	ds->dlen = strlen(empty);
	ds->npad = ds->dlen - strcspn(empty, "=");
	ds->bound = bound;
	if ((topfd = dstore_subdir(rootfd, DSTORE_DIR, create)) == -1) {
		cerr_errno(err, "%s", DSTORE_DIR);
		goto fail;
	}
	ds->afd = dstore_subdir(topfd, alg, create);
	close(topfd);
	if (ds->afd == -1) {
		cerr_errno(err, "%s/%s", DSTORE_DIR, alg);
		goto fail;
	}
	fds[0] = &ds->bfd;
	fds[1] = &ds->ofd;
	fds[2] = &ds->dfd;
	fds[3] = &ds->qfd;
	for (i = 0; i < 4; i++)
		if ((*fds[i] = dstore_subdir(ds->afd, dstore_subs[i],
		    create)) == -1) {
			cerr_errno(err, "%s/%s/%s", DSTORE_DIR, alg,
			    dstore_subs[i]);
			goto fail;
		}
	return ds;
fail:
	serrno = errno;
	dstore_close(ds);
	errno = serrno;
	return NULL;
}

void
dstore_close(struct dstore *ds)
{
	if (ds == NULL)
		return;
	if (ds->afd != -1)
		close(ds->afd);
	if (ds->bfd != -1)
		close(ds->bfd);
	if (ds->ofd != -1)
		close(ds->ofd);
	if (ds->dfd != -1)
		close(ds->dfd);
	if (ds->qfd != -1)
		close(ds->qfd);
	free(ds);
}

int
dstore_digest_ok(const struct dstore *ds, const char *s)
{
	size_t	 i, body = ds->dlen - ds->npad;

	if (strlen(s) != ds->dlen)
		return 0;
	for (i = 0; i < ds->dlen; i++)
		if (i < body ? strchr("ABCDEFGHIJKLMNOPQRSTUVWXYZ"
		    "abcdefghijklmnopqrstuvwxyz0123456789+/", s[i]) == NULL :
		    s[i] != '=')
			return 0;
	return 1;
}

/* The file name of digest d ('/' as '_'); -1 if d is not a digest. */
static int
dstore_name(const struct dstore *ds, const char *d, char out[CKSUM_B64MAX])
{
	char	*p;

	if (!dstore_digest_ok(ds, d))
		return -1;
	strlcpy(out, d, CKSUM_B64MAX);
	for (p = out; *p != '\0'; p++)
		if (*p == '/')
			*p = '_';
	return 0;
}

/* The file name of the pair b, t ("<b>.<t>"); -1 if either is not. */
static int
dstore_pair(const struct dstore *ds, const char *b, const char *t,
    char out[DSTORE_PAIRMAX], char bn[CKSUM_B64MAX])
{
	char	 tn[CKSUM_B64MAX];

	if (dstore_name(ds, b, bn) == -1 || dstore_name(ds, t, tn) == -1)
		return -1;
	snprintf(out, DSTORE_PAIRMAX, "%s.%s", bn, tn);
	return 0;
}

/*
 * Split a pair's file name back: the base's name in bn, and nonzero if
 * name is "<b>.<t>" or "<b>.<t>.none" of two well-formed digests.
 */
static int
dstore_unpair(const struct dstore *ds, const char *name,
    char bn[CKSUM_B64MAX])
{
	char	 d[CKSUM_B64MAX], *p;
	size_t	 n = strlen(name);

	if (n > ds->dlen * 2 + 1 && strcmp(name + n - strlen(DSTORE_NONE),
	    DSTORE_NONE) == 0)
		n -= strlen(DSTORE_NONE);
	if (n != ds->dlen * 2 + 1 || name[ds->dlen] != '.')
		return 0;
	memcpy(d, name, ds->dlen);
	d[ds->dlen] = '\0';
	memcpy(bn, d, ds->dlen + 1);
	for (p = d; *p != '\0'; p++)
		if (*p == '_')
			*p = '/';
	if (!dstore_digest_ok(ds, d))
		return 0;
	memcpy(d, name + ds->dlen + 1, ds->dlen);
	d[ds->dlen] = '\0';
	for (p = d; *p != '\0'; p++)
		if (*p == '_')
			*p = '/';
	return dstore_digest_ok(ds, d);
}

static void
dstore_lock(struct dstore *ds)
{
	while (flock(ds->afd, LOCK_EX) == -1 && errno == EINTR)
		;
}

static void
dstore_unlock(struct dstore *ds)
{
	(void)flock(ds->afd, LOCK_UN);
}

/* Start a temporary file in dirfd: its descriptor, its name in tmp. */
static int
dstore_tmp(struct dstore *ds, int dirfd, char tmp[64])
{
	snprintf(tmp, 64, ".tmp.%ld.%u", (long)getpid(), ds->seq++);
	return openat(dirfd, tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0640);
}

/*
 * Make temporary file tmp (fd, closed here) whole as name in dirfd;
 * with durable, its data reach the disk before its name does.
 */
static int
dstore_commit(int dirfd, int fd, const char *tmp, const char *name,
    int durable)
{
	if (durable && fdatasync(fd) == -1) {
		close(fd);
		(void)unlinkat(dirfd, tmp, 0);
		return -1;
	}
	if (close(fd) == -1 || renameat(dirfd, tmp, dirfd, name) == -1) {
		(void)unlinkat(dirfd, tmp, 0);
		return -1;
	}
	return 0;
}

/*
 * Write name in dirfd: n bytes at p, through a temporary file.  Owners
 * records and queue entries are not durable one by one (a publication
 * writes thousands): after a crash such a file may be empty, which
 * reads as no owner and as an entry not written whole, and is removed.
 */
static int
dstore_write(struct dstore *ds, int dirfd, const char *name, const void *p,
    size_t n, int durable)
{
	char	 tmp[64];
	int	 fd;

	if ((fd = dstore_tmp(ds, dirfd, tmp)) == -1)
		return -1;
	if (fs_write_all(fd, p, n) == -1) {
		close(fd);
		(void)unlinkat(dirfd, tmp, 0);
		return -1;
	}
	return dstore_commit(dirfd, fd, tmp, name, durable);
}

/*
 * The regular file name in dirfd, read whole if at most max bytes: a
 * new NUL-terminated buffer and its length; NULL with errno otherwise.
 */
static char *
dstore_read(int dirfd, const char *name, size_t max, size_t *len)
{
	struct stat	 st;
	char		*p;
	ssize_t		 n;
	int		 fd;

	if ((fd = openat(dirfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1) {
		close(fd);
		return NULL;
	}
	if (!S_ISREG(st.st_mode) || st.st_size > (off_t)max) {
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	p = xmalloc((size_t)st.st_size + 1);
	*len = 0;
	while (*len < (size_t)st.st_size) {
		n = read(fd, p + *len, (size_t)st.st_size - *len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		*len += (size_t)n;
	}
	close(fd);
	p[*len] = '\0';
	return p;
}

/*
 * Whether the owners record text (len bytes) names one of the n
 * names; a line that does not decode names nobody.
 */
static int
dstore_names(char *text, size_t len, char *const *names, size_t n)
{
	char	*line, *nl, *dec;
	size_t	 i;
	int	 found = 0;

	for (line = text; !found && line < text + len; line = nl + 1) {
		if ((nl = memchr(line, '\n', text + len - line)) == NULL)
			break;		/* no LF: not written whole */
		*nl = '\0';
		if (decode_path(line, &dec) == 0) {
			for (i = 0; i < n && !found; i++)
				found = strcmp(dec, names[i]) == 0;
			free(dec);
		}
		*nl = '\n';
	}
	return found;
}

/* Add owner to base bn's owners record, and mark it used now. */
static int
dstore_own(struct dstore *ds, const char *bn, const char *owner)
{
	struct buf	*b;
	char		*text, *enc, *own = (char *)owner;
	size_t		 len = 0;
	int		 rc;

	if ((text = dstore_read(ds->ofd, bn, DSTORE_OWNERMAX, &len)) ==
	    NULL && errno != ENOENT)
		return -1;
	if (text != NULL && dstore_names(text, len, &own, 1)) {
		free(text);
		return utimensat(ds->ofd, bn, NULL, AT_SYMLINK_NOFOLLOW);
	}
	enc = encode_dup(owner);
	b = buf_new(len + strlen(enc) + 2);
	if (text != NULL) {
		/* A last line without its LF was not written whole. */
		while (len > 0 && text[len - 1] != '\n')
			len--;
		buf_add(b, text, len);
	}
	buf_printf(b, "%s\n", enc);
	rc = len + strlen(enc) + 1 > DSTORE_OWNERMAX ? (errno = EFBIG, -1) :
	    dstore_write(ds, ds->ofd, bn, buf_data(b), buf_len(b), 0);
	buf_free(b);
	free(enc);
	free(text);
	return rc;
}

/* Copy the regular file fd to base bn through a temporary file. */
static int
dstore_copy(struct dstore *ds, int fd, const char *bn)
{
	char	 tmp[64], *p;
	ssize_t	 n;
	int	 out, rc = 0;

	if ((out = dstore_tmp(ds, ds->bfd, tmp)) == -1)
		return -1;
	p = xmalloc(DSTORE_CHUNK);
	while (rc == 0 && (n = read(fd, p, DSTORE_CHUNK)) != 0) {
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 || fs_write_all(out, p, (size_t)n) == -1)
			rc = -1;
	}
	free(p);
	if (rc == -1) {
		close(out);
		(void)unlinkat(ds->bfd, tmp, 0);
		return -1;
	}
	return dstore_commit(ds->bfd, out, tmp, bn, 1);
}

int
dstore_put(struct dstore *ds, const char *d, const char *rel,
    const char *owner, struct cerr *err)
{
	struct stat	 st;
	const char	*leaf;
	char		 bn[CKSUM_B64MAX];
	size_t		 badlen;
	int		 pfd, fd, rc = -1;

	if (dstore_name(ds, d, bn) == -1) {
		cerr_set(err, "%s: %s: not a %s digest", rel, d, ds->alg);
		return -1;
	}
	if ((pfd = confine_parent(ds->rootfd, rel, NULL, NULL, &leaf,
	    &badlen)) == -1) {
		cerr_errno(err, "%.*s", (int)badlen, rel);
		return -1;
	}
	if (fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		cerr_errno(err, "%s", rel);
		close(pfd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		cerr_set(err, "%s: not a regular file", rel);
		close(pfd);
		return -1;
	}
	if (ds->bound <= 0 || st.st_size > DELTA_MAXFILE ||
	    st.st_size > ds->bound) {
		close(pfd);
		return 0;
	}
	dstore_lock(ds);
	if (linkat(pfd, leaf, ds->bfd, bn, 0) == 0 || errno == EEXIST)
		rc = 0;
	else if ((fd = openat(pfd, leaf, O_RDONLY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC)) != -1) {
		/* Another file system, or links refused: a copy. */
		rc = dstore_copy(ds, fd, bn);
		close(fd);
	}
	if (rc == -1)
		cerr_errno(err, "%s: kept as %s/%s/base/%s", rel, DSTORE_DIR,
		    ds->alg, bn);
	else if ((rc = dstore_own(ds, bn, owner)) == -1)
		cerr_errno(err, "%s/%s/owner/%s", DSTORE_DIR, ds->alg, bn);
	dstore_unlock(ds);
	close(pfd);
	return rc == -1 ? -1 : 1;
}

int
dstore_sync(struct dstore *ds, struct cerr *err)
{
	if (fsync(ds->bfd) == -1 || fsync(ds->ofd) == -1 ||
	    fsync(ds->qfd) == -1 || fsync(ds->afd) == -1) {
		cerr_errno(err, "%s/%s: fsync", DSTORE_DIR, ds->alg);
		return -1;
	}
	return 0;
}

/* The access rule, on a base's file name. */
static int
dstore_allowed_name(struct dstore *ds, const char *bn, char *const *acl,
    size_t nacl)
{
	struct stat	 st;
	char		*text;
	size_t		 len;
	int		 ok;

	if (nacl == 0 || fstatat(ds->bfd, bn, &st, AT_SYMLINK_NOFOLLOW) ==
	    -1 || !S_ISREG(st.st_mode) ||
	    (text = dstore_read(ds->ofd, bn, DSTORE_OWNERMAX, &len)) == NULL)
		return 0;
	ok = dstore_names(text, len, acl, nacl);
	free(text);
	return ok;
}

int
dstore_allowed(struct dstore *ds, const char *d, char *const *acl,
    size_t nacl)
{
	char	 bn[CKSUM_B64MAX];

	if (dstore_name(ds, d, bn) == -1)
		return 0;
	return dstore_allowed_name(ds, bn, acl, nacl);
}

int
dstore_delta_open(struct dstore *ds, const char *b, const char *t,
    char *const *acl, size_t nacl, uint64_t *len)
{
	struct stat	 st;
	char		 pair[DSTORE_PAIRMAX], bn[CKSUM_B64MAX];
	int		 fd;

	if (dstore_pair(ds, b, t, pair, bn) == -1 ||
	    !dstore_allowed_name(ds, bn, acl, nacl))
		return -1;
	if ((fd = openat(ds->dfd, pair, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    st.st_size <= 0 ||
	    (uint64_t)st.st_size > delta_bound(DELTA_MAXFILE)) {
		close(fd);
		return -1;
	}
	/* Their modification times are their last use (dstore_trim). */
	(void)futimens(fd, NULL);
	(void)utimensat(ds->ofd, bn, NULL, AT_SYMLINK_NOFOLLOW);
	*len = (uint64_t)st.st_size;
	return fd;
}

int
dstore_base_open(struct dstore *ds, const char *d)
{
	char	 bn[CKSUM_B64MAX];

	if (dstore_name(ds, d, bn) == -1) {
		errno = EINVAL;
		return -1;
	}
	return openat(ds->bfd, bn, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC);
}

/* Remove from dirfd every entry whose name begins with prefix. */
static int
dstore_unlink_prefix(int dirfd, const char *prefix)
{
	struct dirent	*de;
	DIR		*dir;
	size_t		 n = strlen(prefix);
	int		 fd, removed = 0;

	if ((fd = dup(dirfd)) == -1 || (dir = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return 0;
	}
	rewinddir(dir);
	while ((de = readdir(dir)) != NULL)
		if (strncmp(de->d_name, prefix, n) == 0 &&
		    unlinkat(dirfd, de->d_name, 0) == 0)
			removed++;
	closedir(dir);
	return removed;
}

/* dstore_drop on a name, the lock held. */
static int
dstore_drop_name(struct dstore *ds, const char *bn)
{
	char	 prefix[CKSUM_B64MAX + 1];
	int	 removed = 0;

	/* The owners first: without them the base serves nobody. */
	if (unlinkat(ds->ofd, bn, 0) == 0)
		removed++;
	if (unlinkat(ds->bfd, bn, 0) == 0)
		removed++;
	snprintf(prefix, sizeof(prefix), "%s.", bn);
	removed += dstore_unlink_prefix(ds->dfd, prefix);
	removed += dstore_unlink_prefix(ds->qfd, prefix);
	return removed;
}

void
dstore_drop(struct dstore *ds, const char *d)
{
	char	 bn[CKSUM_B64MAX];

	if (dstore_name(ds, d, bn) == -1)
		return;
	dstore_lock(ds);
	(void)dstore_drop_name(ds, bn);
	dstore_unlock(ds);
}

/*
 * Read the regular file at fd, of size bytes when looked at, whole from
 * offset 0 into a new buffer; NULL with errno if it cannot be read, or
 * with EAGAIN if it is another size now.
 */
static char *
dstore_slurp(int fd, size_t size)
{
	char	*p, extra;
	size_t	 off = 0;
	ssize_t	 n;

	p = xmalloc(size > 0 ? size : 1);
	for (;;) {
		n = pread(fd, off < size ? p + off : &extra,
		    off < size ? size - off : 1, (off_t)off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			break;
		if (n == 0 && off == size)
			return p;
		if (n == 0 || off == size) {
			errno = EAGAIN;
			break;
		}
		off += (size_t)n;
	}
	free(p);
	return NULL;
}

/*
 * The size of the target (len bytes at p) deflated at DSTORE_ZLEVEL, as
 * a file is sent whole, in *zsize.  Returns 0, or -1 with err.
 */
static int
dstore_zsize(const char *p, size_t len, uint64_t *zsize, struct cerr *err)
{
	struct zstream	*z;
	struct buf	*out;
	size_t		 n;
	int		 rc = 0, last = 0;

	if ((z = zstream_new(DSTORE_ZLEVEL, err)) == NULL)
		return -1;
	/* zlib's output of a chunk is at most a little over the chunk. */
	out = buf_new(2 * DSTORE_CHUNK);
	*zsize = 0;
	while (rc == 0 && !last) {
		n = len > DSTORE_CHUNK ? DSTORE_CHUNK : len;
		last = n == 0;
		if (zstream_deflate(z, p, n, last ? ZS_SYNC : ZS_NOFLUSH, out,
		    err) == -1)
			rc = -1;
		*zsize += buf_len(out);
		buf_reset(out);
		p += n;
		len -= n;
	}
	buf_free(out);
	zstream_free(z);
	return rc;
}

int
dstore_build(struct dstore *ds, const char *b, int basisfd, const char *t,
    int targetfd, struct dstore_built *bt, struct cerr *err)
{
	struct stat	 bst, tst;
	struct buf	*out = NULL;
	char		 pair[DSTORE_PAIRMAX], none[DSTORE_PAIRMAX + 8];
	char		 bn[CKSUM_B64MAX], sum[CKSUM_B64MAX], verdict[128];
	char		*basis = NULL, *target = NULL;
	int		 n, rc = -1;

	memset(bt, 0, sizeof(*bt));
	if (dstore_pair(ds, b, t, pair, bn) == -1) {
		cerr_set(err, "%s, %s: not %s digests", b, t, ds->alg);
		return -1;
	}
	snprintf(none, sizeof(none), "%s%s", pair, DSTORE_NONE);
	if (faccessat(ds->dfd, pair, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
	    faccessat(ds->dfd, none, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return DSTORE_KNOWN;
	if (fstat(basisfd, &bst) == -1 || fstat(targetfd, &tst) == -1) {
		cerr_errno(err, "%s", pair);
		return -1;
	}
	if (!S_ISREG(bst.st_mode) || !S_ISREG(tst.st_mode)) {
		cerr_set(err, "%s: not regular files", pair);
		return -1;
	}
	bt->tsize = (uint64_t)tst.st_size;
	if (bst.st_size > DELTA_MAXFILE || tst.st_size > DELTA_MAXFILE)
		return DSTORE_SKIP;

	/*
	 * Each file is read once, and the delta is made from the very bytes
	 * whose digests were checked: a base or a target written in place
	 * meanwhile (a base is a link to a loadset's file) cannot give a
	 * delta kept under names it does not match.
	 */
	if ((basis = dstore_slurp(basisfd, (size_t)bst.st_size)) == NULL &&
	    errno != EAGAIN) {
		cerr_errno(err, "%s/%s/base/%s", DSTORE_DIR, ds->alg, bn);
		return -1;
	}
	if (basis == NULL || cksum_data(ds->alg, basis, (size_t)bst.st_size,
	    sum) == -1 || strcmp(sum, b) != 0) {
		cerr_set(err, "%s/%s/base/%s: content does not match its "
		    "digest: removed", DSTORE_DIR, ds->alg, bn);
		dstore_drop(ds, b);
		goto out;
	}
	if ((target = dstore_slurp(targetfd, (size_t)tst.st_size)) == NULL) {
		if (errno == EAGAIN)
			cerr_set(err, "target %s: changed size while read", t);
		else
			cerr_errno(err, "target %s", t);
		goto out;
	}
	if (cksum_data(ds->alg, target, (size_t)tst.st_size, sum) == -1 ||
	    strcmp(sum, t) != 0) {
		cerr_set(err, "target %s: content does not match its digest",
		    t);
		goto out;
	}
	if (dstore_zsize(target, (size_t)tst.st_size, &bt->zsize, err) == -1)
		goto out;
	out = buf_new(delta_bound((uint64_t)tst.st_size));
	if (delta_make(basis, (size_t)bst.st_size, target,
	    (size_t)tst.st_size, ds->alg, DELTA_LEVEL, out, err) == -1)
		goto out;
	bt->dsize = buf_len(out);

	if (bt->dsize * 100 < bt->zsize * (100 - DSTORE_MARGIN)) {
		if (dstore_write(ds, ds->dfd, pair, buf_data(out),
		    buf_len(out), 1) == -1) {
			cerr_errno(err, "%s/%s/delta/%s", DSTORE_DIR,
			    ds->alg, pair);
			goto out;
		}
		rc = DSTORE_BUILT;
		goto out;
	}
	/* Not worth it: remembered, so that it is not built again. */
	n = snprintf(verdict, sizeof(verdict), "delta %llu zlib %llu\n",
	    (unsigned long long)bt->dsize, (unsigned long long)bt->zsize);
	if (dstore_write(ds, ds->dfd, none, verdict, (size_t)n, 1) == -1) {
		cerr_errno(err, "%s/%s/delta/%s", DSTORE_DIR, ds->alg, none);
		goto out;
	}
	rc = DSTORE_WORSE;
out:
	buf_free(out);
	free(target);
	free(basis);
	return rc;
}

int
dstore_queue(struct dstore *ds, const char *b, const char *t,
    const char *rel, struct cerr *err)
{
	char	 pair[DSTORE_PAIRMAX], none[DSTORE_PAIRMAX + 8];
	char	 bn[CKSUM_B64MAX], *enc, *line;
	int	 n, rc;

	if (dstore_pair(ds, b, t, pair, bn) == -1) {
		cerr_set(err, "%s: %s, %s: not %s digests", rel, b, t,
		    ds->alg);
		return -1;
	}
	snprintf(none, sizeof(none), "%s%s", pair, DSTORE_NONE);
	if (faccessat(ds->dfd, pair, F_OK, AT_SYMLINK_NOFOLLOW) == 0 ||
	    faccessat(ds->dfd, none, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	enc = encode_dup(rel);
	n = xasprintf(&line, "%s\n", enc);
	rc = dstore_write(ds, ds->qfd, pair, line, (size_t)n, 0);
	if (rc == -1)
		cerr_errno(err, "%s/%s/queue/%s", DSTORE_DIR, ds->alg, pair);
	free(line);
	free(enc);
	return rc;
}

/* The names in dirfd that do not begin with '.'; *n of them. */
static char **
dstore_list(int dirfd, size_t *n)
{
	struct dirent	*de;
	DIR		*dir;
	char		**v = NULL;
	size_t		 cap = 0;
	int		 fd;

	*n = 0;
	if ((fd = dup(dirfd)) == -1 || (dir = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return NULL;
	}
	rewinddir(dir);
	while ((de = readdir(dir)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			v = xreallocarray(v, cap, sizeof(*v));
		}
		v[(*n)++] = xstrdup(de->d_name);
	}
	closedir(dir);
	return v;
}

static void
dstore_list_free(char **v, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/*
 * Build one queued entry, name, if it is under prefix (NULL: any).
 * Returns 0 if it was not taken, else 1 (and it is removed).
 */
static int
dstore_drain_one(struct dstore *ds, const char *name, const char *prefix,
    dstore_done_fn done, void *ctx, int *failed)
{
	struct dstore_built bt;
	struct cerr	 err;
	char		 bn[CKSUM_B64MAX], b[CKSUM_B64MAX], t[CKSUM_B64MAX];
	char		*text, *rel = NULL, *p;
	size_t		 len;
	int		 bfd = -1, tfd = -1, rc;

	memset(&bt, 0, sizeof(bt));
	err.msg[0] = '\0';
	text = NULL;
	rc = -1;
	/* Not one of ours, or not written whole: it goes. */
	if (dstore_unpair(ds, name, bn) && strchr(name + ds->dlen + 1,
	    '.') == NULL && (text = dstore_read(ds->qfd, name,
	    DSTORE_QUEUEMAX, &len)) != NULL && len > 0 &&
	    text[len - 1] == '\n') {
		text[len - 1] = '\0';
		rc = decode_path(text, &rel);
	}
	free(text);
	if (rc == -1) {
		(void)unlinkat(ds->qfd, name, 0);
		return 1;
	}
	if (prefix != NULL && strncmp(rel, prefix, strlen(prefix)) != 0) {
		free(rel);
		return 0;
	}
	memcpy(b, name, ds->dlen);
	b[ds->dlen] = '\0';
	strlcpy(t, name + ds->dlen + 1, sizeof(t));
	for (p = b; *p != '\0'; p++)
		if (*p == '_')
			*p = '/';
	for (p = t; *p != '\0'; p++)
		if (*p == '_')
			*p = '/';
	/* A base evicted, or a target replaced since: nothing to build. */
	if ((bfd = dstore_base_open(ds, b)) == -1 ||
	    (tfd = confine_open(ds->rootfd, rel, O_RDONLY | O_NONBLOCK,
	    0)) == -1) {
		if (errno == ENOENT)
			rc = DSTORE_SKIP;
		else {
			cerr_errno(&err, "%s", bfd == -1 ? name : rel);
			rc = -1;
		}
	} else
		rc = dstore_build(ds, b, bfd, t, tfd, &bt, &err);
	if (bfd != -1)
		close(bfd);
	if (tfd != -1)
		close(tfd);
	/*
	 * What was built (a delta, or the verdict that none is worth
	 * keeping) reaches the disk under its name before the queue entry
	 * leaves it: after a crash, one or the other is there, and what
	 * was queued is built at the latest by the next run.
	 */
	if (rc != -1 && rc != DSTORE_SKIP && fsync(ds->dfd) == -1) {
		cerr_errno(&err, "%s/%s/delta: fsync", DSTORE_DIR, ds->alg);
		rc = -1;
	}
	if (rc == -1)
		(*failed)++;
	(void)unlinkat(ds->qfd, name, 0);
	if (done != NULL)
		done(ctx, rel, rc, &bt, &err);
	free(rel);
	return 1;
}

int
dstore_drain(struct dstore *ds, const char *loadset, dstore_done_fn done,
    void *ctx)
{
	char	**v, *prefix = NULL;
	size_t	  n, i, taken;
	int	  failed = 0;

	if (loadset != NULL)
		xasprintf(&prefix, "file/%s/", loadset);
	while (flock(ds->qfd, LOCK_EX) == -1 && errno == EINTR)
		;
	/* Again while a pass took something: more may have been queued. */
	do {
		taken = 0;
		v = dstore_list(ds->qfd, &n);
		for (i = 0; i < n; i++)
			taken += (size_t)dstore_drain_one(ds, v[i], prefix,
			    done, ctx, &failed);
		dstore_list_free(v, n);
	} while (taken > 0);
	(void)flock(ds->qfd, LOCK_UN);
	free(prefix);
	return failed;
}

struct dstore_ent {
	char		*name;
	int64_t		 size;
	time_t		 used;
};

static int
dstore_ent_cmp(const void *a, const void *b)
{
	const struct dstore_ent	*x = a, *y = b;

	return x->used < y->used ? -1 : x->used > y->used;
}

/* Remove temporary files in dirfd that no live writer can own. */
static int
dstore_trim_tmp(int dirfd)
{
	struct dirent	*de;
	struct stat	 st;
	DIR		*dir;
	int		 fd, removed = 0;

	if ((fd = dup(dirfd)) == -1 || (dir = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return 0;
	}
	rewinddir(dir);
	while ((de = readdir(dir)) != NULL)
		if (strncmp(de->d_name, ".tmp.", 5) == 0 &&
		    fstatat(dirfd, de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == 0 &&
		    st.st_mtime + DSTORE_TMPAGE < time(NULL) &&
		    unlinkat(dirfd, de->d_name, 0) == 0)
			removed++;
	closedir(dir);
	return removed;
}

/*
 * The entries of dirfd as dstore_ents (size and modification time;
 * with timefd, the time of the same name there), oldest first; *total
 * gets the sum of their sizes.
 */
static struct dstore_ent *
dstore_ents(int dirfd, int timefd, size_t *n, int64_t *total)
{
	struct dstore_ent *v;
	struct stat	 st, ost;
	char		**names;
	size_t		 i, m = 0;

	names = dstore_list(dirfd, n);
	v = xcalloc(*n + 1, sizeof(*v));
	*total = 0;
	for (i = 0; i < *n; i++) {
		if (fstatat(dirfd, names[i], &st, AT_SYMLINK_NOFOLLOW) ==
		    -1) {
			free(names[i]);
			continue;
		}
		if (timefd != -1 && fstatat(timefd, names[i], &ost,
		    AT_SYMLINK_NOFOLLOW) == 0)
			st.st_mtime = ost.st_mtime;
		v[m].name = names[i];
		v[m].size = st.st_size;
		v[m].used = st.st_mtime;
		*total += st.st_size;
		m++;
	}
	free(names);
	*n = m;
	qsort(v, m, sizeof(*v), dstore_ent_cmp);
	return v;
}

static void
dstore_ents_free(struct dstore_ent *v, size_t n)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		free(v[i].name);
	free(v);
}

/* dstore_trim on one algorithm's store, its lock held. */
static int
dstore_trim_one(struct dstore *ds, int64_t dbound)
{
	struct dstore_ent *v;
	char		 bn[CKSUM_B64MAX];
	size_t		 n, i;
	int64_t		 total;
	int		 removed = 0, over, fds[4] = { ds->bfd, ds->ofd,
	    ds->dfd, ds->qfd };

	for (i = 0; i < 4; i++)
		removed += dstore_trim_tmp(fds[i]);

	/* Bases: a base or owners record alone goes; then the bound. */
	v = dstore_ents(ds->bfd, ds->ofd, &n, &total);
	/* Over the bound: down to nine tenths, so as not to trim often. */
	over = total > ds->bound;
	for (i = 0; i < n; i++) {
		if (faccessat(ds->ofd, v[i].name, F_OK,
		    AT_SYMLINK_NOFOLLOW) == -1 || ds->bound <= 0 ||
		    (over && total > ds->bound / 10 * 9)) {
			total -= v[i].size;
			removed += dstore_drop_name(ds, v[i].name);
		}
	}
	dstore_ents_free(v, n);
	v = dstore_ents(ds->ofd, -1, &n, &total);
	for (i = 0; i < n; i++)
		if (faccessat(ds->bfd, v[i].name, F_OK,
		    AT_SYMLINK_NOFOLLOW) == -1)
			removed += dstore_drop_name(ds, v[i].name);
	dstore_ents_free(v, n);

	/* Deltas and queued builds whose base has gone; then the bound. */
	v = dstore_ents(ds->qfd, -1, &n, &total);
	for (i = 0; i < n; i++)
		if (!dstore_unpair(ds, v[i].name, bn) ||
		    faccessat(ds->ofd, bn, F_OK, AT_SYMLINK_NOFOLLOW) == -1)
			removed += unlinkat(ds->qfd, v[i].name, 0) == 0;
	dstore_ents_free(v, n);
	v = dstore_ents(ds->dfd, -1, &n, &total);
	over = dbound > 0 && total > dbound;
	for (i = 0; i < n; i++) {
		if (!dstore_unpair(ds, v[i].name, bn) ||
		    faccessat(ds->ofd, bn, F_OK, AT_SYMLINK_NOFOLLOW) == -1 ||
		    (over && total > dbound / 10 * 9)) {
			total -= v[i].size;
			removed += unlinkat(ds->dfd, v[i].name, 0) == 0;
		}
	}
	dstore_ents_free(v, n);
	return removed;
}

int
dstore_trim(int rootfd, int64_t bound, int64_t dbound)
{
	struct dstore	*ds;
	struct cerr	 err;
	char		**algs;
	size_t		 n, i;
	int		 topfd, removed = 0;

	if ((topfd = openat(rootfd, DSTORE_DIR, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1)
		return 0;
	algs = dstore_list(topfd, &n);
	close(topfd);
	for (i = 0; i < n; i++) {
		if ((ds = dstore_open(rootfd, algs[i], bound, 0, &err)) ==
		    NULL)
			continue;
		/* Busy (a publication): its turn comes next time. */
		if (flock(ds->afd, LOCK_EX | LOCK_NB) == 0) {
			removed += dstore_trim_one(ds, dbound);
			dstore_unlock(ds);
		}
		dstore_close(ds);
	}
	dstore_list_free(algs, n);
	return removed;
}
