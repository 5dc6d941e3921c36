/*
 * apply-jobs.c: lapply's downloads over several connections (-j).
 *
 * Where one TCP stream, or the one compressor core the server spends on
 * a session, limits a transfer, the files of consecutive "+" lines are
 * spread over n sessions with the same server: the pool of sessions of
 * net/reqpool.c, whose worker threads take the next unclaimed downloads,
 * a few at a time, send their RETR requests and receive each body
 * through dl_file into a temp file next to its destination (the ops
 * below, the only lapply code the workers run).
 *
 * Nothing else runs in the workers: the main thread lands the results
 * strictly in transcript order (metadata, then the batch of
 * apply-sync.c, which renames in that order) and prints every message.
 * Besides the "+" lines, only a line no earlier download can be in or
 * above that creates a new object (a directory, symbolic link, pipe or
 * device) or changes the owner, mode or mtime of one in place (see
 * run_ahead in apply.c) runs ahead of them; its messages wait in the
 * queue as a note, landed in its turn.  Any other line, and every
 * barrier of the batch (syncq_flush), first waits until every earlier
 * download is landed.  So the lines run, and fail, as with one
 * session: the first failed download in transcript order is reported
 * with the words one session would print and stops the run; the
 * downloads after it are thrown away unseen (temp files removed, their
 * replies read and dropped so the sessions stay usable) and the lines
 * run ahead of it are undone, latest first: new objects removed, old
 * ones given their metadata back.
 *
 * With DELTA in use, the main thread opens and digests a download's
 * basis when it queues it (apply-basis.c, at most BASIS_MAX open, the
 * rest asked whole); the worker sends DELTA and applies the delta, and
 * a delta that failed is fetched whole by the main thread when it lands
 * that download, in its turn.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "cerr.h"
#include "cksum.h"
#include "download.h"
#include "log.h"
#include "net.h"
#include "pathcmp.h"
#include "reqpool.h"
#include "reqwin.h"
#include "xmalloc.h"

#define JQ_INFLIGHT	2		/* requests in flight per session */
#define JQ_PERCONN	16		/* queued downloads per session */
#define JQ_BUFSZ	(256 * 1024)
#define JQ_FDRESERVE	1024		/* fds kept for the walk and batches */

/* A download, or a line run ahead (a note), in the pool's queue. */
struct job {
	struct apply_entry	*e;
	int			 dfd;		/* our dup of its directory */
	char			*leaf;
	int			 note;		/* a line run ahead, no download */
	int			 meta;		/* note: on an old object, ... */
	struct stat		 old;		/* ... whose metadata was this */
	char			*msg;		/* note: its messages, or NULL */
	int			 mod;		/* note: it changed the disk */
	int64_t			 prog;		/* note: its progress weight */
	int			 fd;		/* received: the temp file */
	char			*tmp;
	struct dl_basis		 b;		/* DELTA: its basis, else fd -1 */
	char			 bsum[CKSUM_B64MAX];
};

/* What a session's worker receives with. */
struct jconn {
	struct jobq		*jq;
	struct net		*net;		/* set by the worker */
	struct cksum		*ck;
	unsigned char		*buf;
};

struct jobq {
	const struct apply	*ap;		/* its options, for the workers */
	struct reqpool		*pool;
	struct jconn		*c;
	int			 nc;
	int			 stopped;
	int			 failed;	/* sticky */
	int			 landing;	/* main is in apply_landed */
	int			 ahead;		/* main runs a line ahead */
	int			 ahead_mod;	/* ... ap->modified before it */
	int			 ahead_lost;	/* ... an earlier one failed */
	int			 ahead_meta;	/* ... on an old object: */
	struct stat		 ahead_old;	/* ... its metadata before */
	char			*ahead_msg;	/* ... its messages so far */
	int64_t			 ahead_prog;	/* ... its progress so far */
	struct progress		*prog;		/* the status line's */
	/* Put back the metadata of an old object a line changed ahead. */
	void			(*undo)(struct apply *,
				    const struct apply_entry *, int,
				    const char *, const struct stat *);
};

/* dl_file's progress hook on a worker: data for the status line. */
static void
conn_progress(void *arg, int64_t n)
{
	struct jconn	*c = arg;

	progress_data(c->jq->prog, n);
	reqpool_publish(c->jq->pool, c->net);
}

/* The pool's ops, on a worker: the request and reply of one download. */
static int
job_send(void *arg, struct net *net, void *item, struct cerr *err)
{
	struct jobq	*jq = arg;
	struct job	*j = item;

	if (j->b.fd != -1)
		return basis_send(jq->ap, net, j->e, j->bsum, err);
	return retrq_send(net, j->e, err);
}

static int
job_recv(void *arg, struct net *net, void *item, void *ctx,
    struct cerr *err)
{
	struct jobq	*jq = arg;
	struct job	*j = item;
	struct jconn	*c = ctx;
	struct dl_want	 w;
	char		 where[32];

	snprintf(where, sizeof(where), "line %u", j->e->t.lineno);
	apply_want(j->e, &w, where, c->buf, JQ_BUFSZ, c->ck);
	if (jq->prog->mode == PROG_LINE) {
		c->net = net;
		w.onrecv = conn_progress;
		w.arg = c;
	}
	if (j->b.fd != -1)
		w.basis = &j->b;
	return dl_file(net, &w, j->dfd, j->leaf, &j->fd, &j->tmp, err);
}

static const struct reqwin_ops	job_ops = { job_send, job_recv, NULL };

/* While the main thread waits on a large file: the status line moves. */
static void
jobq_tick(void *arg)
{
	struct jobq	*jq = arg;

	progress_tick(jq->prog);
}

static void
jobq_conns_free(struct jobq *jq)
{
	int	k;

	for (k = 0; k < jq->nc; k++) {
		free(jq->c[k].buf);
		cksum_free(jq->c[k].ck);
	}
	free(jq->c);
}

int
jobq_start(struct apply *ap, int n, void (*undo)(struct apply *,
    const struct apply_entry *, int, const char *, const struct stat *),
    struct cerr *err)
{
	struct jobq		*jq;
	struct reqpool_conf	 conf;
	struct rlimit		 rl;
	void			**ctx;
	size_t			 room;
	int			 k, rc;

	jq = xcalloc(1, sizeof(*jq));
	jq->ap = ap;
	jq->nc = n;
	jq->prog = &ap->prog;
	jq->undo = undo;
	memset(&conf, 0, sizeof(conf));
	conf.n = n;
	conf.inflight = JQ_INFLIGHT;
	conf.ops = &job_ops;
	conf.arg = jq;
	if (ap->prog.mode == PROG_LINE)
		conf.tick = jobq_tick;
	/*
	 * A queued download holds up to three descriptors (its directory,
	 * its temp file, the directory common/intr keeps for it), four
	 * with a basis: keep the queue within what the directory walk and
	 * the batches of apply-sync.c leave.
	 */
	conf.cap = (size_t)n * JQ_PERCONN;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		room = rl.rlim_cur > JQ_FDRESERVE ?
		    (size_t)(rl.rlim_cur - JQ_FDRESERVE) /
		    (ap->delta ? 4 : 3) : 0;
		if (room < (size_t)n * JQ_INFLIGHT)
			room = (size_t)n * JQ_INFLIGHT;
		if (room < conf.cap)
			conf.cap = room;
	}
	jq->c = xcalloc((size_t)n, sizeof(*jq->c));
	ctx = xcalloc((size_t)n, sizeof(*ctx));
	for (k = 0; k < n; k++) {
		jq->c[k].jq = jq;
		jq->c[k].buf = xmalloc(JQ_BUFSZ);
		if (ap->digest != NULL)
			jq->c[k].ck = cksum_new(ap->digest);
		ctx[k] = &jq->c[k];
	}
	conf.ctx = ctx;
	rc = reqpool_start(&jq->pool, ap->net, ap->no, &conf, err);
	free(ctx);
	if (rc != 0) {
		/* 1: without threads, one session does it all. */
		jobq_conns_free(jq);
		free(jq);
		return rc;
	}
	ap->jq = jq;
	return 0;
}

/* Throw away a download that is done but will not be landed. */
static void
job_drop(struct job *j)
{
	if (j->fd != -1)
		close(j->fd);
	if (j->tmp != NULL)
		dl_tempdone(j->dfd, j->tmp);
	free(j->tmp);
	j->tmp = NULL;
	j->fd = -1;
}

/*
 * Undo a line run ahead that will not be landed (an earlier download
 * failed): an object that was there before gets its metadata back (old);
 * a new one is removed, since whatever is there is ours.
 */
static void
note_undo(struct apply *ap, const struct apply_entry *e, int dfd,
    const char *leaf, const struct stat *old)
{
	if (old != NULL)
		ap->jq->undo(ap, e, dfd, leaf, old);
	else if (e->t.type != 'd')
		(void)unlinkat(dfd, leaf, 0);
	else if (unlinkat(dfd, leaf, AT_REMOVEDIR) == 0 && ap->fs != NULL)
		afs_forget(ap->fs, e->t.path);
}

/* A new job for e into (a dup of dfd, leaf); NULL with the dup failed. */
static struct job *
job_new(struct apply_entry *e, int dfd, const char *leaf)
{
	struct job	*j;
	int		 d;

	if ((d = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return NULL;
	j = xcalloc(1, sizeof(*j));
	j->e = e;
	j->dfd = d;
	j->leaf = xstrdup(leaf);
	j->fd = -1;
	j->b.fd = -1;
	return j;
}

static void
job_free(struct apply *ap, struct job *j)
{
	basis_close(ap, &j->b);
	if (j->dfd != -1)
		close(j->dfd);
	free(j->msg);
	free(j->leaf);
	free(j);
}

/*
 * Land the oldest download, waiting for it.  -1 (message printed) if it
 * failed or could not be landed; every later one is then cancelled.
 */
static int
jobq_landone(struct apply *ap)
{
	struct jobq	*jq = ap->jq;
	struct job	*j;
	struct cerr	 err, why;
	int		 rc;

	j = reqpool_take(jq->pool, &rc, &err);
	if (j->note) {
		/* A line run ahead: now in its turn. */
		if (j->mod)
			ap->modified = 1;
		jq->landing = 1;
		if (j->msg != NULL)
			amsg_say(&ap->msg, "%s", j->msg);
		jq->landing = 0;
		if (j->prog > 0)
			progress_add(&ap->prog, j->prog, j->e->t.path);
		job_free(ap, j);
		return 0;
	}
	if (rc == DL_LOCAL && j->b.failed) {
		why = err;
		rc = retrq_refetch(ap, j->e, &why, j->dfd, j->leaf, &j->fd,
		    &j->tmp, &err);
	} else if (rc == DL_OK)
		basis_count(ap, j->e, &j->b);
	if (rc != DL_OK) {
		/* Cancel first: the flush inside the report waits for none. */
		jobq_cancel(ap);
		apply_dlfail(ap, j->e, rc, &err);
		job_free(ap, j);
		return -1;
	}
	progress_add(&ap->prog, j->e->t.size, j->e->t.path);
	jq->landing = 1;
	rc = apply_landed(ap, j->e, j->dfd, j->leaf, j->fd, j->tmp);
	jq->landing = 0;
	job_free(ap, j);
	if (rc == -1)
		jobq_cancel(ap);
	return rc;
}

/* Room for one more job: while the queue is full, land the oldest. */
static int
jobq_room(struct apply *ap)
{
	struct jobq	*jq = ap->jq;

	if (jq->failed)
		return -1;
	while (reqpool_count(jq->pool) >= reqpool_cap(jq->pool))
		if (jobq_landone(ap) == -1)
			return -1;
	return 0;
}

int
jobq_add(struct apply *ap, struct apply_entry *e, int dfd, const char *leaf)
{
	struct jobq	*jq = ap->jq;
	struct job	*j;

	if (jobq_room(ap) == -1)
		return -1;
	/*
	 * A file that may go as a delta waits for a basis while BASIS_MAX
	 * are open, as on one session: the oldest downloads land first,
	 * each closing its own.  The queue may hold more than BASIS_MAX.
	 */
	while (ap->nbasis >= BASIS_MAX && reqpool_count(jq->pool) > 0 &&
	    basis_wanted(ap, e))
		if (jobq_landone(ap) == -1)
			return -1;
	if ((j = job_new(e, dfd, leaf)) == NULL) {
		amsg_fail(&ap->msg, &e->t, "dup");
		return -1;
	}
	(void)basis_open(ap, e, dfd, leaf, &j->b, j->bsum);
	reqpool_add(jq->pool, j, retrq_len(e));
	/* Land what is already done, in order, to keep few files open. */
	while (reqpool_done(jq->pool))
		if (jobq_landone(ap) == -1)
			return -1;
	return 0;
}

int
apply_download(struct apply *ap, struct apply_entry *e, int dfd,
    const char *leaf)
{
	const struct tline	*t = &e->t;

	if (t->type == 'a') {
		amsg_linewarn(&ap->msg, t, "%s: applefiles cannot be "
		    "created on this system", t->path);
		return -1;
	}
	if (ap->net == NULL || ap->net_dead) {
		amsg_linewarn(&ap->msg, t, "%s: no connection to the "
		    "server", t->path);
		return -1;
	}
	/* -j: one of the download sessions receives it. */
	if (ap->jq != NULL)
		return jobq_add(ap, e, dfd, leaf);
	return retrq_download(ap, e, dfd, leaf);
}

int
jobq_pending(const struct apply *ap)
{
	const struct jobq	*jq = ap->jq;

	return jq != NULL && !jq->failed && !jq->landing &&
	    reqpool_count(jq->pool) > 0;
}

int
jobq_failed(const struct apply *ap)
{
	return ap->jq != NULL && ap->jq->failed;
}

int
jobq_under(const struct apply *ap, const char *path)
{
	const struct jobq	*jq = ap->jq;
	const struct job	*j;
	size_t			 i, n;

	/* Only the main thread queues and lands: e and note are stable. */
	n = reqpool_count(jq->pool);
	for (i = 0; i < n; i++) {
		j = reqpool_item(jq->pool, i);
		if (!j->note && ischildcase(path, j->e->t.path, ap->icase))
			return 1;
	}
	return 0;
}

int
jobq_ahead_begin(struct apply *ap, const struct stat *old)
{
	struct jobq	*jq = ap->jq;

	/* Its note will need a place in the queue: make it now. */
	if (jobq_room(ap) == -1)
		return -1;
	jq->ahead = 1;
	jq->ahead_lost = 0;
	jq->ahead_meta = old != NULL;
	if (old != NULL)
		jq->ahead_old = *old;
	jq->ahead_mod = ap->modified;
	jq->ahead_msg = NULL;
	jq->ahead_prog = 0;
	return 0;
}

int
jobq_ahead_progress(struct apply *ap, int64_t bytes)
{
	struct jobq	*jq = ap->jq;

	if (jq == NULL || !jq->ahead || jq->landing)
		return 0;
	jq->ahead_prog += bytes;
	return 1;
}

int
jobq_ahead_say(struct apply *ap, const char *fmt, va_list va)
{
	struct jobq	*jq = ap->jq;
	char		*msg, *all;

	if (jq == NULL || !jq->ahead || jq->landing)
		return 0;
	if (vasprintf(&msg, fmt, va) == -1)
		fatal("vasprintf");
	if (jq->ahead_msg == NULL)
		jq->ahead_msg = msg;
	else {
		if (asprintf(&all, "%s%s", jq->ahead_msg, msg) == -1)
			fatal("asprintf");
		free(jq->ahead_msg);
		free(msg);
		jq->ahead_msg = all;
	}
	return 1;
}

int
jobq_inorder(struct apply *ap)
{
	struct jobq	*jq = ap->jq;
	char		*msg;
	int		 mod, rc;

	if (jq == NULL || jq->landing)
		return 0;
	if (!jq->ahead)
		return jobq_pending(ap) ? jobq_wait(ap) : 0;
	/*
	 * The line run ahead has something to say out of turn (a warning):
	 * it now runs in its turn, after every earlier download is
	 * landed, or not at all if one of them failed.
	 */
	mod = ap->modified;
	ap->modified = jq->ahead_mod;
	jq->ahead = 0;
	msg = jq->ahead_msg;
	jq->ahead_msg = NULL;
	rc = jobq_wait(ap);
	if (rc == -1) {
		jq->ahead_lost = 1;
		free(msg);
		return -1;
	}
	if (mod)
		ap->modified = 1;
	if (msg != NULL)
		amsg_say(&ap->msg, "%s", msg);
	free(msg);
	return 0;
}

void
jobq_ahead_end(struct apply *ap, const struct apply_entry *e, int rc)
{
	struct jobq	*jq = ap->jq;
	struct job	*j = NULL;
	const char	*leaf;
	int		 dfd;

	/* Without a note to land it by, the line takes its turn now. */
	if (jq->ahead && (rc == -1 || afs_parent(ap->fs, e->t.path, 0, &dfd,
	    &leaf, NULL) != 0 || (j = job_new((struct apply_entry *)e, dfd,
	    leaf)) == NULL) && jobq_inorder(ap) == 0 && jq->ahead_prog > 0)
		progress_add(&ap->prog, jq->ahead_prog, e->t.path);
	if (!jq->ahead) {
		/* It went in its turn, or lost it to an earlier failure. */
		if (jq->ahead_lost && afs_parent(ap->fs, e->t.path, 0, &dfd,
		    &leaf, NULL) == 0)
			note_undo(ap, e, dfd, leaf, jq->ahead_meta ?
			    &jq->ahead_old : NULL);
		jq->ahead_lost = 0;
		return;
	}
	jq->ahead = 0;
	j->note = 1;
	j->meta = jq->ahead_meta;
	j->old = jq->ahead_old;
	j->msg = jq->ahead_msg;
	j->mod = ap->modified;
	j->prog = jq->ahead_prog;
	reqpool_mark(jq->pool, j);
	jq->ahead_msg = NULL;
	ap->modified = jq->ahead_mod;
}

int
jobq_wait(struct apply *ap)
{
	struct jobq	*jq = ap->jq;

	if (jq == NULL || jq->landing)
		return 0;
	while (!jq->failed && reqpool_count(jq->pool) > 0)
		if (jobq_landone(ap) == -1)
			return -1;
	return jq->failed ? -1 : 0;
}

void
jobq_cancel(struct apply *ap)
{
	struct jobq	*jq = ap->jq;

	if (jq == NULL || jq->failed)
		return;
	jq->failed = 1;
	reqpool_cancel(jq->pool);
}

void
jobq_stop(struct apply *ap)
{
	struct jobq	*jq = ap->jq;
	struct job	*j;

	if (jq == NULL || jq->stopped)
		return;
	jq->stopped = 1;
	if (reqpool_stop(jq->pool))
		ap->net_dead = 1;
	/*
	 * What was not landed, latest first: a download's temp file goes
	 * before the directory a line made ahead for it is removed.
	 */
	while ((j = reqpool_unqueue(jq->pool)) != NULL) {
		if (j->note)
			note_undo(ap, j->e, j->dfd, j->leaf, j->meta ?
			    &j->old : NULL);
		else
			job_drop(j);
		job_free(ap, j);
	}
}

void
jobq_wire(struct apply *ap, struct progwire *w)
{
	struct netstats	ns;

	/* ap->net is the pool's first session: every session once. */
	reqpool_stats(ap->jq->pool, &ns);
	w->raw += ns.raw_in;
	w->wire += ns.wire_in;
	if (ns.level > 0)
		w->zlib = 1;
}

void
jobq_free(struct apply *ap)
{
	struct jobq	*jq = ap->jq;

	if (jq == NULL)
		return;
	jobq_stop(ap);
	reqpool_free(jq->pool, ap->verbose ? stdout : NULL);
	jobq_conns_free(jq);
	free(jq->ahead_msg);
	free(jq);
	ap->jq = NULL;
}
