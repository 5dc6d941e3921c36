/*
 * download.c: receive one RETR body into a verified temp file under a
 * directory descriptor (download.h), and make it durable.
 *
 * Nothing here trusts the server: the announced size must be the one
 * the caller expects before anything is created, the bytes must fit
 * with the floor kept free, the count received must be the count
 * announced and, with a digest, the digest must match.  A file that
 * fails any check is removed; the old object at leaf is never touched.
 * A delta is bounded by what a delta of the expected size can be, and
 * its result is held to the same size and digest as a whole file.
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
#include <strings.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "cksum.h"
#include "compat.h"
#include "confine.h"
#include "delta.h"
#include "download.h"
#include "fsutil.h"
#include "intr.h"
#include "log.h"
#include "net.h"
#include "xmalloc.h"
#include "zdkeep.h"
#include "zstdconn.h"

#define DL_BUFSZ	(256 * 1024)

/* The number in this process's temp names. */
static long
dl_pid(void)
{
	static long	 pid;

	if (pid == 0)
		pid = (long)getpid();
	return pid;
}

char *
dl_tempname(const char *leaf, unsigned lineno)
{
	char		*tmp;

	if (strlen(leaf) + 32 <= NAME_MAX)
		xasprintf(&tmp, "%s.radmind.%ld", leaf, dl_pid());
	else
		xasprintf(&tmp, ".radmind.%ld.%u", dl_pid(), lineno);
	return tmp;
}

/* How many digits name[0..len) ends in. */
static size_t
dl_digits(const char *name, size_t len)
{
	size_t	n = 0;

	while (n < len && name[len - n - 1] >= '0' && name[len - n - 1] <= '9')
		n++;
	return n;
}

/* Whether the digits d[0..n) are pid's (any digits if pid is NULL). */
static int
dl_pidis(const char *d, size_t n, const char *pid)
{
	return pid == NULL || (strlen(pid) == n && memcmp(d, pid, n) == 0);
}

/*
 * Whether name[0..len) has the form of a temp name, ignoring case, with
 * pid's number in it (any number if pid is NULL).
 */
static int
dl_tempform(const char *name, size_t len, const char *pid)
{
	static const char	 tag[] = ".radmind.";
	const size_t		 tlen = sizeof(tag) - 1;
	size_t			 n;

	/* <leaf>.radmind.<pid> */
	if ((n = dl_digits(name, len)) == 0)
		return 0;
	len -= n;
	if (len >= tlen && strncasecmp(name + len - tlen, tag, tlen) == 0 &&
	    dl_pidis(name + len, n, pid))
		return 1;
	/* .radmind.<pid>.<line> */
	if (len == 0 || name[len - 1] != '.' ||
	    (n = dl_digits(name, len - 1)) == 0)
		return 0;
	return len - 1 - n == tlen && strncasecmp(name, tag, tlen) == 0 &&
	    dl_pidis(name + tlen, n, pid);
}

int
dl_istemp(const char *name, size_t len)
{
	return dl_tempform(name, len, NULL);
}

int
dl_isowntemp(const char *name, size_t len)
{
	char	pid[32];

	(void)snprintf(pid, sizeof(pid), "%ld", dl_pid());
	return dl_tempform(name, len, pid);
}

/* An exclusively created file of mode *arg, for dl_maketemp. */
static int
dl_makefile(int dfd, const char *name, void *arg)
{
	const mode_t	*mode = arg;

	return openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, *mode);
}

int
dl_opentemp(int dfd, const char *leaf, unsigned lineno, mode_t mode,
    char **tmp)
{
	return dl_maketemp(dfd, leaf, lineno, dl_makefile, &mode, tmp);
}

int
dl_maketemp(int dfd, const char *leaf, unsigned lineno,
    int (*make)(int, const char *, void *), void *arg, char **tmp)
{
	int	rc, e;

	*tmp = dl_tempname(leaf, lineno);
	if (intr_hold() == -1)
		return -1;
	if (intr_tmp_add(dfd, *tmp) == -1) {
		e = errno;
		intr_release();
		errno = e;
		return -1;
	}
	/* A stale temp of ours (same name pattern): remove it, once. */
	if ((rc = make(dfd, *tmp, arg)) == -1 && errno == EEXIST &&
	    unlinkat(dfd, *tmp, 0) == 0)
		rc = make(dfd, *tmp, arg);
	e = errno;
	if (rc == -1)
		intr_tmp_del(*tmp);
	intr_release();
	errno = e;
	return rc;
}

void
dl_tempdone(int dfd, const char *tmp)
{
	if (dfd != -1)
		(void)unlinkat(dfd, tmp, 0);
	intr_tmp_del(tmp);
}

int
dl_skipbody(struct net *net, struct cerr *err)
{
	char	buf[65536];
	ssize_t	n;

	while ((n = net_retr_read(net, buf, sizeof(buf), err)) > 0)
		;
	if (n == -1)
		return -1;
	return net_retr_end(net, err);
}

/*
 * A body of size bytes is not wanted: read it and its terminator so the
 * session can go on (returning rc), unless it is too large to be worth
 * it (DL_DEAD).
 */
static int
dl_skip(struct net *net, int64_t size, int rc)
{
	struct cerr	 err;

	if (size > DL_DRAINMAX || dl_skipbody(net, &err) == -1)
		return DL_DEAD;
	return rc;
}

/*
 * Receive the body of the RETR begun with size bytes into fd (or only
 * count and digest it when fd is -1 because werr says why it could not
 * be made), then check the count and, with w->ck and w->cksum, the
 * digest.  full names the object in local errors, who in the server's.
 */
static int
dl_body(struct net *net, const struct dl_want *w, int fd, int werr,
    int64_t size, const char *full, const char *who, struct cerr *err)
{
	char		 sum[CKSUM_B64MAX];
	const char	*wop = "create";	/* what werr says failed */
	unsigned char	*buf = w->buf, *own = NULL;
	size_t		 bufsz = w->bufsz;
	int64_t		 got = 0;
	ssize_t		 n;

	if (buf == NULL)
		buf = own = xmalloc(bufsz = DL_BUFSZ);
	if (w->ck != NULL)
		cksum_reset(w->ck);
	while ((n = net_retr_read(net, buf, bufsz, err)) > 0) {
		got += n;
		if (fd != -1 && werr == 0 &&
		    fs_write_all(fd, buf, (size_t)n) == -1) {
			werr = errno;
			wop = "write";
		}
		if (w->ck != NULL)
			cksum_update(w->ck, buf, (size_t)n);
		if (w->onrecv != NULL)
			w->onrecv(w->arg, n);
	}
	free(own);
	if (n == -1 || net_retr_end(net, err) == -1)
		return DL_DEAD;
	if (werr != 0) {
		cerr_set(err, "%s: %s: %s", full, wop, strerror(werr));
		return DL_LOCAL;
	}
	if (got != size) {
		cerr_set(err, "%s: received %lld of %lld bytes", full,
		    (long long)got, (long long)size);
		return DL_LOCAL;
	}
	if (w->ck != NULL && w->cksum != NULL) {
		cksum_final(w->ck, sum);
		if (strcmp(sum, w->cksum) != 0) {
			cerr_set(err, "%s: checksum in %s does not match "
			    "checksum from server", who, w->source);
			return DL_SERVER;
		}
	}
	return DL_OK;
}

/*
 * As dl_body, for the delta of size bytes that the reply to a DELTA
 * request began: each piece is applied to w->basis as it arrives (once
 * the temp file fd exists), the rest of a delta that fails is read and
 * dropped, and the result must be w->size bytes of digest w->cksum.
 */
static int
dl_delta(struct net *net, const struct dl_want *w, int fd, int werr,
    int64_t size, const char *full, struct cerr *err)
{
	struct dl_basis		*b = w->basis;
	struct delta_apply	*d = NULL;
	struct cerr		 derr;
	char			 sum[CKSUM_B64MAX];
	unsigned char		*buf = w->buf, *own = NULL;
	size_t			 bufsz = w->bufsz;
	ssize_t			 n;
	int			 bad = 0;

	if (buf == NULL)
		buf = own = xmalloc(bufsz = DL_BUFSZ);
	if (w->ck != NULL)
		cksum_reset(w->ck);
	if (fd != -1 && werr == 0) {
		d = delta_apply_new(b->fd, fd, w->ck);
		delta_apply_want(d, w->size);
	}
	while ((n = net_retr_read(net, buf, bufsz, err)) > 0) {
		if (d != NULL && !bad &&
		    delta_apply_feed(d, buf, (size_t)n, &derr) == -1)
			bad = 1;
		if (w->onrecv != NULL)
			w->onrecv(w->arg, n);
	}
	free(own);
	if (n == -1 || net_retr_end(net, err) == -1) {
		delta_apply_free(d);
		return DL_DEAD;
	}
	if (werr != 0) {
		cerr_set(err, "%s: create: %s", full, strerror(werr));
		return DL_LOCAL;
	}
	if (!bad && delta_apply_end(d, &derr) == -1)
		bad = 1;
	if (!bad && delta_apply_size(d) != w->size) {
		cerr_set(&derr, "delta: makes %lld bytes, not the %lld of the "
		    "%s", (long long)delta_apply_size(d), (long long)w->size,
		    w->source);
		bad = 1;
	}
	delta_apply_free(d);
	if (!bad && w->ck != NULL && w->cksum != NULL) {
		cksum_final(w->ck, sum);
		if (strcmp(sum, w->cksum) != 0) {
			cerr_set(&derr, "delta: the result does not match the "
			    "checksum in %s", w->source);
			bad = 1;
		}
	}
	if (bad) {
		b->failed = 1;
		cerr_set(err, "%s: %s", full, derr.msg);
		return DL_LOCAL;
	}
	b->wire = size;
	return DL_OK;
}

/*
 * Read the reply to the oldest RETR; the size it announces must be
 * w->size (any size when w->size is -1), or for a delta at most what a
 * delta of w->size bytes can be.  Fills full and who.
 */
static int
dl_begin(struct net *net, const struct dl_want *w, int64_t *size,
    char *full, size_t fullsz, const char **who, struct cerr *err)
{
	int	rc;

	*who = w->where != NULL ? w->where : w->path;
	if (w->where != NULL)
		snprintf(full, fullsz, "%s: %s", w->where, w->path);
	else
		strlcpy(full, w->path, fullsz);
	if (w->basis != NULL)
		w->basis->delta = w->basis->failed = 0;
	if ((rc = net_retr_begin(net, size, err)) != 0)
		return rc == 1 ? DL_SERVER : DL_DEAD;
	if (w->basis != NULL && net_retr_delta(net)) {
		w->basis->delta = 1;
		if (w->size < 0 || w->size > DELTA_MAXFILE ||
		    (uint64_t)*size > delta_bound((uint64_t)w->size)) {
			cerr_set(err, "%s: bad delta size %lld for a file of "
			    "%lld bytes", net_peer(net), (long long)*size,
			    (long long)w->size);
			return DL_DEAD;
		}
		return DL_OK;
	}
	if (w->size != -1 && *size != w->size) {
		cerr_set(err, "%s: size in %s does not match size from server",
		    *who, w->source);
		return dl_skip(net, *size, DL_SERVER);
	}
	return DL_OK;
}

int
dl_tofd(struct net *net, const struct dl_want *w, int fd, struct cerr *err)
{
	const char	*who;
	char		 full[PATH_MAX + 64];
	int64_t		 size;
	int		 rc;

	if ((rc = dl_begin(net, w, &size, full, sizeof(full), &who,
	    err)) != DL_OK)
		return rc;
	return dl_body(net, w, fd, 0, size, full, who, err);
}

/*
 * dl_tomem and dl_zdict: the reply to the oldest RETR, at most max
 * bytes.  A longer body is left unread: DL_SERVER, with its size in
 * *over (else 0), for the caller to drop or to end the session.
 */
static int
dl_mem(struct net *net, const char *path, int64_t max, char **data,
    size_t *len, int64_t *over, struct cerr *err)
{
	struct dl_want	 w;
	const char	*who;
	char		 full[PATH_MAX + 64], *p;
	int64_t		 size, got = 0;
	ssize_t		 n;
	int		 rc;

	*data = NULL;
	*len = 0;
	*over = 0;
	memset(&w, 0, sizeof(w));
	w.path = path;
	w.size = -1;
	if ((rc = dl_begin(net, &w, &size, full, sizeof(full), &who,
	    err)) != DL_OK)
		return rc;
	if (size > max) {
		cerr_set(err, "%s: %lld bytes, more than the %lld accepted",
		    full, (long long)size, (long long)max);
		*over = size;
		return DL_SERVER;
	}
	/* One byte more: an empty body still has a buffer. */
	p = xmalloc((size_t)size + 1);
	while (got < size && (n = net_retr_read(net, p + got,
	    (size_t)(size - got), err)) > 0)
		got += n;
	if (got < size || net_retr_read(net, p, 1, err) != 0 ||
	    net_retr_end(net, err) == -1) {
		free(p);
		return DL_DEAD;
	}
	*data = p;
	*len = (size_t)size;
	return DL_OK;
}

int
dl_tomem(struct net *net, const char *path, int64_t max, char **data,
    size_t *len, struct cerr *err)
{
	int64_t	over;
	int	rc;

	rc = dl_mem(net, path, max, data, len, &over, err);
	return over > 0 ? dl_skip(net, over, rc) : rc;
}

int
dl_zdict(struct net *net, int64_t expect, const char *keep, int *how,
    struct cerr *err)
{
	struct cerr	 kerr;
	struct buf	*b;
	char		*data;
	size_t		 len;
	int64_t		 size = net_zdict_size(net), over;
	unsigned	 id = net_zdict_offer(net);
	int		 rc;

	*how = DL_ZDICT_NONE;
	if (size == 0 || expect <= 0)
		return DL_OK;
	/* Kept from an earlier session: named, not sent again. */
	if (keep != NULL && id != 0 && zdkeep_load(keep, net_server(net), id,
	    &b, &kerr) == -1) {
		if (errno == EPERM)
			log_warnx("%s", kerr.msg);
		else if (errno != ENOENT)
			log_debug("kept zstd dictionary: %s", kerr.msg);
	} else if (keep != NULL && id != 0) {
		rc = net_zdict_reuse(net, id, buf_data(b), buf_len(b), err);
		buf_free(b);
		if (rc == -1)
			return DL_DEAD;
		if (rc == 0) {
			*how = DL_ZDICT_KEPT;
			return DL_OK;
		}
		/* Refused: not the server's (any more); fetched if it pays. */
		if (expect / DL_ZDICT_PAYS < size)
			return DL_SERVER;
	}
	if (expect / DL_ZDICT_PAYS < size)
		return DL_OK;
	if (net_send_retr(net, "ZDICT", NULL, NULL, err) == -1)
		return DL_DEAD;
	rc = dl_mem(net, "zdict", ZSTDCONN_DICTMAX, &data, &len, &over, err);
	/*
	 * Sent, the dictionary is the server's from now on: one not taken
	 * (too large: not even read) leaves frames this end cannot read.
	 * Refused (543), it is not, and the session goes on without it.
	 */
	if (rc != DL_OK)
		return over ? DL_DEAD : rc;
	if (net_use_zdict(net, data, len, err) == -1) {
		free(data);
		return DL_DEAD;
	}
	*how = DL_ZDICT_FETCHED;
	/* For the sessions to come; a dictionary not kept is fetched again. */
	if (keep != NULL) {
		if (zdkeep_save(keep, net_server(net), net_zdict_id(net), data,
		    len, &kerr) == 0)
			*how = DL_ZDICT_SAVED;
		else if (errno == EPERM)
			log_warnx("%s", kerr.msg);
		else
			log_debug("cannot keep the zstd dictionary: %s",
			    kerr.msg);
	}
	free(data);
	return DL_OK;
}

int
dl_file(struct net *net, const struct dl_want *w, int dfd, const char *leaf,
    int *fdp, char **tmpp, struct cerr *err)
{
	const char	*who;
	char		 full[PATH_MAX + 64];
	char		*tmp = NULL;
	int64_t		 size, avail, room;
	int		 fd, rc, delta, werr = 0;

	*fdp = -1;
	*tmpp = NULL;
	if ((rc = dl_begin(net, w, &size, full, sizeof(full), &who,
	    err)) != DL_OK)
		return rc;
	/* A delta takes the room of the file it makes. */
	delta = w->basis != NULL && w->basis->delta;
	room = delta ? w->size : size;
	if (fs_room(dfd, room, &avail) == 1) {
		cerr_set(err, "%s: %lld bytes do not fit: %lld bytes free, "
		    "%lld kept free", full, (long long)room, (long long)avail,
		    (long long)FS_KEEPFREE);
		return dl_skip(net, size, DL_LOCAL);
	}

	if ((fd = dl_opentemp(dfd, leaf, w->lineno, w->mode, &tmp)) == -1)
		werr = errno;
	if (delta)
		rc = dl_delta(net, w, fd, werr, size, full, err);
	else
		rc = dl_body(net, w, fd, werr, size, full, who, err);
	if (rc != DL_OK) {
		if (fd != -1) {
			close(fd);
			dl_tempdone(dfd, tmp);
		}
		free(tmp);
		return rc;
	}
	*fdp = fd;
	*tmpp = tmp;
	return DL_OK;
}

int
dl_commit(int fd, int dfd, const char *tmp, const char *leaf,
    const char *path, struct cerr *err)
{
	if (fsync(fd) == -1) {
		cerr_errno(err, "%s", path);
		close(fd);
		goto fail;
	}
	if (close(fd) == -1) {
		cerr_errno(err, "%s", path);
		goto fail;
	}
	if (renameat(dfd, tmp, dfd, leaf) == -1) {
		cerr_errno(err, "%s: rename", path);
		goto fail;
	}
	dl_tempdone(-1, tmp);
	if (fsync(dfd) == -1) {
		cerr_errno(err, "%s: fsync of its directory", path);
		return -1;
	}
	return 0;
fail:
	dl_tempdone(dfd, tmp);
	return -1;
}

/* confine_parent's hook: a missing directory on the way, made with *ctx. */
static int
dl_mkdir(void *ctx, int pfd, const char *name, const char *rel, size_t len)
{
	(void)rel;
	(void)len;
	return mkdirat(pfd, name, *(const mode_t *)ctx);
}

/* The reply to the oldest RETR is not wanted: read and drop it. */
static int
dl_discard(struct net *n, const struct dl_want *w, int rc)
{
	struct cerr	 err;
	const char	*who;
	char		 full[PATH_MAX + 64];
	int64_t		 size;
	int		 r;

	if ((r = dl_begin(n, w, &size, full, sizeof(full), &who, &err)) !=
	    DL_OK)
		return r == DL_DEAD ? DL_DEAD : rc;
	return dl_skip(n, size, rc);
}

/* dl_req_recv, with the fields of the request. */
static int
dl_fetch_recv(struct net *n, int dfd, const char *rel, mode_t dmode,
    const struct dl_want *w, int64_t mtime, int flags, struct cerr *err)
{
	struct stat	 st;
	const char	*leaf;
	char		*tmp;
	size_t		 bad;
	int		 fd, pfd, rc;

	if ((pfd = confine_parent(dfd, rel, dl_mkdir, &dmode, &leaf,
	    &bad)) == -1) {
		cerr_errno(err, "%s", w->path);
		return dl_discard(n, w, DL_LOCAL);
	}
	rc = DL_LOCAL;
	if (*leaf == '\0') {
		cerr_set(err, "%s: not a file name", w->path);
		rc = dl_discard(n, w, DL_LOCAL);
		goto out;
	}
	if ((flags & DL_REPLACEDIR) &&
	    fstatat(pfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode) && fs_rmtreeat(pfd, leaf) == -1) {
		cerr_errno(err, "%s: remove directory", w->path);
		rc = dl_discard(n, w, DL_LOCAL);
		goto out;
	}
	if ((rc = dl_file(n, w, pfd, leaf, &fd, &tmp, err)) != DL_OK)
		goto out;
	rc = DL_LOCAL;
	if (mtime >= 0 && fd_setmtime(fd, mtime) == -1) {
		cerr_errno(err, "%s", w->path);
		close(fd);
		dl_tempdone(pfd, tmp);
	} else if (flags & DL_NOSYNC) {
		if (close(fd) == -1 || renameat(pfd, tmp, pfd, leaf) == -1) {
			cerr_errno(err, "%s", w->path);
			dl_tempdone(pfd, tmp);
		} else {
			dl_tempdone(-1, tmp);
			rc = DL_OK;
		}
	} else if (dl_commit(fd, pfd, tmp, leaf, w->path, err) == 0)
		rc = DL_OK;
	free(tmp);
out:
	close(pfd);
	return rc;
}

int
dl_req_send(void *arg, struct net *n, void *req, struct cerr *err)
{
	const struct dl_req	*r = req;

	(void)arg;
	return net_send_retr(n, r->kind, r->tname, r->epath, err);
}

int
dl_req_recv(void *arg, struct net *n, void *req, void *ctx,
    struct cerr *err)
{
	const struct dl_req	*r = req;

	(void)arg;
	(void)ctx;
	return dl_fetch_recv(n, r->dfd, r->rel, r->dmode, &r->w, r->mtime,
	    r->flags, err);
}
