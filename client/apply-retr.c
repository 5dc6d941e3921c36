/*
 * apply-retr.c: lapply's download path over one session.
 *
 * RETR requests for the upcoming "+" lines are queued ahead of
 * processing (the request window of net/reqwin.c, bounded in count and
 * in request bytes, so that requests never fill the socket buffers
 * while replies wait unread); the server answers in request order, and
 * each reply is received through dl_file.  Lines that download always
 * run in file order: lapply refuses transcripts whose lines below a
 * non-directory are anything but removals, so a deferred line (a
 * directory replaced by a file) cannot be overtaken by a later
 * download.  With -j, apply-jobs.c spreads the downloads over several
 * sessions; both land them with apply_landed.
 *
 * With DELTA in use (apply-basis.c), a line whose path holds a file
 * that may be its basis is requested as DELTA: the basis is opened and
 * digested when the request is sent and stays open until its reply is
 * received.  At most BASIS_MAX are in flight: the window then waits
 * with the next such line until one is received, rather than ask it
 * whole.  A delta that fails is fetched whole at once (retrq_refetch),
 * on a session of its own with the same server: the session the delta
 * came on has later replies due first.
 *
 * Each file lands in "<name>.radmind.<pid>", created O_EXCL mode 0600 in
 * the destination directory (relative to its held descriptor).  The
 * digest is updated while bytes arrive; size and digest are verified,
 * then mtime, owner and mode are set on the open descriptor (chmod after
 * chown so set-id bits survive) and the file joins the batch of
 * apply-sync.c, which fsyncs it before renaming it over the destination.
 * Any failure removes the temp file; the old object stays as it was.
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
#include <unistd.h>

#include "apply.h"
#include "cerr.h"
#include "cksum.h"
#include "download.h"
#include "compat.h"
#include "fsutil.h"
#include "net.h"
#include "reqwin.h"
#include "xmalloc.h"

/* The bases of the DELTA requests in flight, in request order. */
struct retr_basis {
	const struct apply_entry	*e;
	struct dl_basis			 b;
};

struct retr_bases {
	struct retr_basis	 v[BASIS_MAX];
	size_t			 first, n;
};

size_t
retrq_len(const struct apply_entry *e)
{
	return 16 + strlen(e->t.epath) + (e->special ? 0 : strlen(e->tname));
}

int
retrq_send(struct net *net, const struct apply_entry *e, struct cerr *err)
{
	if (e->special)
		return net_send_retr(net, "SPECIAL", NULL, e->t.epath, err);
	return net_send_retr(net, "FILE", e->tname, e->t.epath, err);
}

/* Where the reply of one line lands: dl_file's place and its result. */
struct retr_dst {
	int		 dfd;
	const char	*leaf;
	int		 fd;
	char		*tmp;
	int		 dfailed;	/* its delta failed: fetch it whole */
};

/* dl_file's progress hook: bytes received for one path. */
struct retr_prog {
	struct progress	*prog;
	const char	*path;
};

static void
retr_progress(void *arg, int64_t n)
{
	struct retr_prog	*rp = arg;

	progress_data(rp->prog, n);
	progress_add(rp->prog, n, rp->path);
}

/* dl_file's progress hook for a delta: data only, the file when done. */
static void
retr_data(void *arg, int64_t n)
{
	struct retr_prog	*rp = arg;

	progress_data(rp->prog, n);
}

/* The basis of e if its request was DELTA (the oldest in flight). */
static struct retr_basis *
retr_basis(struct apply *ap, const struct apply_entry *e)
{
	struct retr_bases	*rb = ap->rb;

	if (rb == NULL || rb->n == 0 || rb->v[rb->first].e != e)
		return NULL;
	return &rb->v[rb->first];
}

/* The oldest basis in flight is done with. */
static void
retr_basis_done(struct apply *ap)
{
	struct retr_bases	*rb = ap->rb;

	basis_close(ap, &rb->v[rb->first].b);
	rb->first = (rb->first + 1) % BASIS_MAX;
	rb->n--;
}

/*
 * The window's ops: items are the entries of "+" lines.  A line that
 * may go as DELTA waits (1) while BASIS_MAX bases are in flight.
 */
static int
retr_send(void *arg, struct net *net, void *item, struct cerr *err)
{
	struct apply		*ap = arg;
	struct apply_entry	*e = item;
	struct retr_bases	*rb = ap->rb;
	struct retr_basis	*rs;
	char			 sum[CKSUM_B64MAX];

	if (rb != NULL && basis_wanted(ap, e)) {
		if (rb->n == BASIS_MAX)
			return 1;
		rs = &rb->v[(rb->first + rb->n) % BASIS_MAX];
		if (basis_open(ap, e, -1, NULL, &rs->b, sum) == 0) {
			if (basis_send(ap, net, e, sum, err) == -1) {
				basis_close(ap, &rs->b);
				return -1;
			}
			rs->e = e;
			rb->n++;
			return 0;
		}
	}
	return retrq_send(net, e, err);
}

static void
retr_drop(void *arg, void *item)
{
	struct apply	*ap = arg;

	if (retr_basis(ap, item) != NULL)
		retr_basis_done(ap);
}

static int
retr_recv(void *arg, struct net *net, void *item, void *ctx,
    struct cerr *err)
{
	struct apply		*ap = arg;
	struct apply_entry	*e = item;
	struct retr_dst		*d = ctx;
	struct retr_basis	*rs = retr_basis(ap, e);
	struct retr_prog	 rp;
	struct dl_want		 w;
	char			 where[32];
	int			 rc;

	snprintf(where, sizeof(where), "line %u", e->t.lineno);
	apply_want(e, &w, where, (unsigned char *)ap->iobuf, ap->iobufsz,
	    ap->ck);
	w.onrecv = rs != NULL ? retr_data : retr_progress;
	w.arg = &rp;
	rp.prog = &ap->prog;
	rp.path = e->t.path;
	d->dfailed = 0;
	if (rs == NULL)
		return dl_file(net, &w, d->dfd, d->leaf, &d->fd, &d->tmp,
		    err);
	w.basis = &rs->b;
	rc = dl_file(net, &w, d->dfd, d->leaf, &d->fd, &d->tmp, err);
	if (rc == DL_OK) {
		basis_count(ap, e, &rs->b);
		progress_add(&ap->prog, e->t.size, e->t.path);
	}
	d->dfailed = rs->b.failed;
	retr_basis_done(ap);
	return rc;
}

static const struct reqwin_ops	retr_ops = { retr_send, retr_recv,
	retr_drop };

void
retrq_free(struct apply *ap)
{
	reqwin_free(ap->rq);
	ap->rq = NULL;
	free(ap->rb);
	ap->rb = NULL;
}

struct reqwin *
retrq_new(struct apply *ap)
{
	struct reqwin	*rq;
	size_t		 i;

	if (ap->delta)
		ap->rb = xcalloc(1, sizeof(*ap->rb));
	rq = reqwin_new(ap->net, REQWIN_MAXREQ, REQWIN_MAXBYTES, &retr_ops,
	    ap);
	for (i = 0; i < ap->nent; i++)
		if (ap->ent[i].t.type != 0 && ap->ent[i].t.plus)
			reqwin_add(rq, &ap->ent[i], retrq_len(&ap->ent[i]));
	return rq;
}

/* The request as Radmind's messages show it: "FILE <t> <path>". */
static void
retr_desc(const struct apply_entry *e, char *buf, size_t len)
{
	if (e->special)
		snprintf(buf, len, "SPECIAL %s", e->t.epath);
	else
		snprintf(buf, len, "FILE %s %s", e->tname, e->t.epath);
}

/*
 * The failure rc of dl_file (or of sending the request) for the line
 * of e, as Radmind reports it: the cause, then the request named after
 * what the server said.
 */
void
apply_dlfail(struct apply *ap, const struct apply_entry *e, int rc,
    const struct cerr *err)
{
	char	desc[2 * PATH_MAX + 64];

	retr_desc(e, desc, sizeof(desc));
	/*
	 * A failure here (room, create, write) is lapply's own: named as
	 * the file-system failures are; the server's are Radmind's words.
	 */
	if (rc == DL_LOCAL)
		amsg_named(&ap->msg, "%s: %s", ap->name, err->msg);
	else
		amsg_warn(&ap->msg, "%s", err->msg);
	/*
	 * The session is gone (reset, closed, a corrupt stream): say so in
	 * words, not with the request line.
	 */
	if (rc == DL_DEAD)
		amsg_linewarn(&ap->msg, &e->t, "%s: not downloaded, the "
		    "session with %s ended", e->t.path,
		    ap->net != NULL ? net_peer(ap->net) : "the server");
	else if (rc != DL_LOCAL)
		amsg_warn(&ap->msg, "%s", desc);
	/*
	 * The server refused the file or serves other bytes than the
	 * transcript says: behind a balancer, this server may be a
	 * replica not yet in step with the one the transcript came from.
	 * Name it, after Radmind's two lines.
	 */
	if (rc == DL_SERVER && ap->net != NULL)
		amsg_warn(&ap->msg, "%s: %s: the server's copy does not match "
		    "the transcript; if it is a replica not yet in step, "
		    "run again later", net_peer(ap->net), e->t.path);
}

int
retrq_download(struct apply *ap, struct apply_entry *e, int dfd,
    const char *leaf)
{
	const struct tline	*t = &e->t;
	struct retr_dst		 d;
	struct cerr		 err, why;
	int			 rc;

	if (reqwin_fill(ap->rq, &err) == -1) {
		apply_dlfail(ap, e, DL_DEAD, &err);
		ap->net_dead = 1;
		return -1;
	}
	if (reqwin_next(ap->rq) != e) {
		amsg_linewarn(&ap->msg, t, "%s: download out of order",
		    t->path);
		ap->net_dead = 1;
		return -1;
	}
	d.dfd = dfd;
	d.leaf = leaf;
	rc = reqwin_recv(ap->rq, &d, &err);
	if (rc == DL_LOCAL && d.dfailed) {
		why = err;
		rc = retrq_refetch(ap, e, &why, dfd, leaf, &d.fd, &d.tmp, &err);
		if (rc == DL_OK)
			progress_add(&ap->prog, t->size, t->path);
	}
	if (rc != DL_OK) {
		apply_dlfail(ap, e, rc, &err);
		if (rc == DL_DEAD)
			ap->net_dead = 1;
		return -1;
	}
	return apply_landed(ap, e, dfd, leaf, d.fd, d.tmp);
}

int
retrq_refetch(struct apply *ap, const struct apply_entry *e,
    const struct cerr *why, int dfd, const char *leaf, int *fd, char **tmp,
    struct cerr *err)
{
	struct netopts	 o;
	struct dl_want	 w;
	struct cerr	 why2;
	char		 where[32];
	int		 rc;

	ap->dstat.fallbacks++;
	if (ap->verbose)
		amsg_warn(&ap->msg, "%s: %s; fetching the whole file",
		    ap->name, why->msg);
	if (ap->side == NULL) {
		o = *ap->no;
		net_pin(ap->net, &o);
		if ((ap->side = net_open(&o, &why2)) == NULL)
			goto dead;
	}
	snprintf(where, sizeof(where), "line %u", e->t.lineno);
	apply_want(e, &w, where, NULL, 0, ap->ck);
	if (retrq_send(ap->side, e, &why2) == -1)
		goto dead;
	if ((rc = dl_file(ap->side, &w, dfd, leaf, fd, tmp, err)) != DL_DEAD)
		return rc;
	why2 = *err;
dead:
	/* The session of the run is not the one that failed. */
	if (ap->side != NULL)
		net_abort(ap->side);
	ap->side = NULL;
	cerr_set(err, "%s: the whole file could not be fetched after a "
	    "failed delta: %s", e->t.path, why2.msg);
	return DL_LOCAL;
}

void
apply_want(const struct apply_entry *e, struct dl_want *w, const char *where,
    unsigned char *buf, size_t bufsz, struct cksum *ck)
{
	const struct tline	*t = &e->t;

	memset(w, 0, sizeof(*w));
	w->path = t->path;
	w->where = where;
	w->source = "transcript";
	w->size = t->size;
	w->cksum = t->cksum;
	w->ck = ck;
	w->lineno = t->lineno;
	w->mode = 0600;
	w->buf = buf;
	w->bufsz = bufsz;
}

int
apply_landed(struct apply *ap, const struct apply_entry *e, int dfd,
    const char *leaf, int fd, char *tmp)
{
	const struct tline	*t = &e->t;
	struct stat		 st;
	char			 msg[PATH_MAX + 128];
	const char		*op = "stat";
	int			 changed = 0;

	/* Metadata on the open temp file, then make it durable. */
	if (fstat(fd, &st) == -1)
		goto syserr;
	snprintf(msg, sizeof(msg), "%s: created updating", t->path);
	if (t->mtime != (int64_t)st.st_mtime) {
		op = "set times";
		if (fd_setmtime(fd, t->mtime) == -1)
			goto syserr;
		changed = 1;
	}
	if (afs_owner_mode(fd, &st, t, msg, sizeof(msg), NULL, &op) == -1)
		goto syserr;
	if (changed)
		strlcat(msg, " time", sizeof(msg));
	/* Durable, then renamed: by the next flush of the batch. */
	progress_file(&ap->prog);
	progress_add(&ap->prog, PROGRESSUNIT, t->path);
	return syncq_add(ap, fd, dfd, tmp, leaf, msg, t);

syserr:
	amsg_fail(&ap->msg, t, op);
	close(fd);
	dl_tempdone(dfd, tmp);
	free(tmp);
	return -1;
}
