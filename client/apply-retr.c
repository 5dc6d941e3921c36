/*
 * apply-retr.c: lapply's download path.
 *
 * RETR requests for the upcoming "+" lines are queued ahead of
 * processing (a window bounded in count and in request bytes, so that
 * requests never fill the socket buffers while replies wait unread);
 * the server answers in request order.  Lines that download always run
 * in file order: lapply refuses transcripts whose lines below a
 * non-directory are anything but removals, so a deferred line (a
 * directory replaced by a file) cannot be overtaken by a later download.
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
#include "xmalloc.h"

/*
 * The window must cover the link's bandwidth-delay product in replies:
 * 100 Mbit/s and 50 ms hold some 600 KB, 200 small files.  Its request
 * bytes stay well inside the socket send buffer net_open() asks for, so
 * queueing requests never blocks while replies wait unread.
 */
#define RQ_MAXREQ	1024		/* requests in flight */
#define RQ_MAXBYTES	(64 * 1024)	/* request text in flight */

struct retrq {
	struct net		*net;
	struct apply_entry	*ent;
	size_t			*idx;		/* entries of "+" lines */
	size_t			*reqlen;	/* request size per idx */
	size_t			 nidx;
	size_t			 sent;		/* requests sent */
	size_t			 recv;		/* replies consumed */
	size_t			 outbytes;
};

struct retrq *
retrq_new(struct net *net, struct apply_entry *ent, size_t n)
{
	struct retrq	*rq;
	size_t		 i;

	rq = xcalloc(1, sizeof(*rq));
	rq->net = net;
	rq->ent = ent;
	rq->idx = xreallocarray(NULL, n + 1, sizeof(*rq->idx));
	rq->reqlen = xreallocarray(NULL, n + 1, sizeof(*rq->reqlen));
	for (i = 0; i < n; i++)
		if (ent[i].t.type != 0 && ent[i].t.plus)
			rq->idx[rq->nidx++] = i;
	return rq;
}

void
retrq_free(struct retrq *rq)
{
	if (rq == NULL)
		return;
	free(rq->idx);
	free(rq->reqlen);
	free(rq);
}

int
retrq_fill(struct retrq *rq, struct cerr *err)
{
	struct apply_entry	*e;
	size_t			 len;

	while (rq->sent < rq->nidx && rq->sent - rq->recv < RQ_MAXREQ) {
		e = &rq->ent[rq->idx[rq->sent]];
		len = 16 + strlen(e->t.epath) +
		    (e->special ? 0 : strlen(e->tname));
		if (rq->sent > rq->recv && rq->outbytes + len > RQ_MAXBYTES)
			break;
		if (e->special) {
			if (net_send_retr(rq->net, "SPECIAL", NULL,
			    e->t.epath, err) == -1)
				return -1;
		} else if (net_send_retr(rq->net, "FILE", e->tname,
		    e->t.epath, err) == -1)
			return -1;
		rq->reqlen[rq->sent++] = len;
		rq->outbytes += len;
	}
	return 0;
}

size_t
retrq_next(const struct retrq *rq)
{
	if (rq->recv >= rq->sent)
		return (size_t)-1;
	return rq->idx[rq->recv];
}

void
retrq_pop(struct retrq *rq)
{
	if (rq->recv < rq->sent)
		rq->outbytes -= rq->reqlen[rq->recv++];
}

int
retrq_drain(struct retrq *rq, int64_t max, struct cerr *err)
{
	int64_t	size;
	int	rc;

	while (rq->recv < rq->sent) {
		rc = net_retr_begin(rq->net, &size, err);
		if (rc == -1)
			return -1;
		retrq_pop(rq);
		if (rc == 1)
			continue;
		if (size > max) {
			cerr_set(err, "not draining a %lld byte reply",
			    (long long)size);
			return -1;
		}
		max -= size;
		if (dl_skipbody(rq->net, err) == -1)
			return -1;
	}
	return 0;
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
apply_download(struct apply *ap, struct apply_entry *e, int dfd,
    const char *leaf)
{
	const struct tline	*t = &e->t;
	struct dl_want		 w;
	struct retr_prog	 rp;
	struct cerr		 err;
	char			 where[32];
	char			*tmp;
	int			 fd, rc;

	if (t->type == 'a') {
		amsg_linewarn(&ap->msg, t, "%s: applefiles cannot be created "
		    "on this system", t->path);
		return -1;
	}
	if (ap->net == NULL || ap->net_dead) {
		amsg_linewarn(&ap->msg, t, "%s: no connection to the server",
		    t->path);
		return -1;
	}
	/* -j: one of the download connections receives it. */
	if (ap->jq != NULL)
		return jobq_add(ap, e, dfd, leaf);
	if (retrq_fill(ap->rq, &err) == -1) {
		apply_dlfail(ap, e, DL_DEAD, &err);
		ap->net_dead = 1;
		return -1;
	}
	if (retrq_next(ap->rq) != (size_t)(e - ap->ent)) {
		amsg_linewarn(&ap->msg, t, "%s: download out of order",
		    t->path);
		ap->net_dead = 1;
		return -1;
	}
	retrq_pop(ap->rq);

	snprintf(where, sizeof(where), "line %u", t->lineno);
	apply_want(e, &w, where, (unsigned char *)ap->iobuf, ap->iobufsz,
	    ap->ck);
	w.progress = retr_progress;
	w.arg = &rp;
	rp.prog = &ap->prog;
	rp.path = t->path;
	if ((rc = dl_file(ap->net, &w, dfd, leaf, &fd, &tmp, &err)) != DL_OK) {
		apply_dlfail(ap, e, rc, &err);
		if (rc == DL_DEAD)
			ap->net_dead = 1;
		return -1;
	}
	return apply_landed(ap, e, dfd, leaf, fd, tmp);
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
	if (apply_owner_mode(ap, fd, &st, t, msg, sizeof(msg), NULL,
	    &op) == -1)
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
