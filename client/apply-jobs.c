/*
 * apply-jobs.c: lapply's downloads over several connections (-j).
 *
 * Where one TCP stream, or the one compressor core the server spends on
 * a session, limits a transfer, the files of consecutive "+" lines are
 * spread over n sessions with the same server, each opened by net_open
 * with the options of the first (same TLS, compression, certificates).
 * One worker thread per session takes the next unclaimed download, a
 * few at a time so that the server works on the next file while the
 * current one is received, sends the RETR requests and receives each
 * body through dl_file into a temp file next to its destination.
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
 */
#include "config.h"

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "apply.h"
#include "cerr.h"
#include "cksum.h"
#include "download.h"
#include "log.h"
#include "net.h"
#include "pathcmp.h"
#include "xmalloc.h"

#define JQ_INFLIGHT	2		/* requests in flight per session */
#define JQ_PERCONN	16		/* queued downloads per session */
#define JQ_BUFSZ	(256 * 1024)
#define JQ_FDRESERVE	1024		/* fds kept for the walk and batches */
#define JQ_TICKNS	250000000L	/* status line redraw while waiting */

#define JOB_QUEUED	0
#define JOB_TAKEN	1
#define JOB_DONE	2

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
	int			 state;
	int			 rc;		/* DL_* once done */
	struct cerr		 err;
	int			 fd;		/* DL_OK: the temp file */
	char			*tmp;
};

struct jconn {
	struct jobq		*jq;
	struct net		*net;
	int			 own;		/* opened here, not ap->net */
	int			 started;
	pthread_t		 th;
	struct cksum		*ck;
	unsigned char		*buf;
	size_t			 fly[JQ_INFLIGHT];	/* oldest first */
	size_t			 nfly;
	size_t			 nsent;		/* of fly, requested */
	int			 dead;		/* session unusable */
	int64_t			 drain;		/* budget for dropped bodies */
	struct netstats		 ns;		/* its counters (under mu) */
};

struct jobq {
	struct job		*v;
	size_t			 cap;
	size_t			 head;		/* oldest not landed */
	size_t			 next;		/* oldest not taken */
	size_t			 tail;		/* next to queue */
	struct jconn		*c;
	int			 nc;
	pthread_mutex_t		 mu;
	pthread_cond_t		 wcv;		/* work for the workers */
	pthread_cond_t		 mcv;		/* a download done */
	int			 cancel;	/* drop what is not landed */
	int			 quit;
	int			 failed;	/* sticky */
	int			 landing;	/* main is in apply_landed */
	int			 ahead;		/* main runs a line ahead */
	int			 ahead_mod;	/* ... ap->modified before it */
	int			 ahead_lost;	/* ... an earlier one failed */
	int			 ahead_meta;	/* ... on an old object: */
	struct stat		 ahead_old;	/* ... its metadata before */
	char			*ahead_msg;	/* ... its messages so far */
	int64_t			 ahead_prog;	/* ... its progress so far */
	const char		*digest;
	struct progress		*prog;		/* the status line's */
};

#define JOB(jq, i)	(&(jq)->v[(i) % (jq)->cap])

/*
 * Publish the byte counters of c for the status line (jobq_wire): the
 * worker owns its session, so only it reads them.
 */
static void
conn_publish(struct jconn *c)
{
	struct netstats	ns;

	net_stats(c->net, &ns);
	pthread_mutex_lock(&c->jq->mu);
	c->ns = ns;
	pthread_mutex_unlock(&c->jq->mu);
}

/* dl_file's progress hook on a worker: data for the status line. */
static void
conn_progress(void *arg, int64_t n)
{
	struct jconn	*c = arg;

	progress_data(c->jq->prog, n);
	conn_publish(c);
}

/* Read and drop the reply to the oldest request of c (cancelled). */
static void
conn_dropone(struct jconn *c)
{
	struct cerr	 err;
	int64_t		 size;
	int		 rc;

	if (c->dead)
		return;
	if ((rc = net_retr_begin(c->net, &size, &err)) == -1) {
		c->dead = 1;
		return;
	}
	if (rc == 1)
		return;
	if (size > c->drain || dl_skipbody(c->net, &err) == -1) {
		c->dead = 1;
		return;
	}
	c->drain -= size;
}

/* Request every taken download of c not requested yet. */
static int
conn_send(struct jconn *c, struct cerr *err)
{
	struct jobq	*jq = c->jq;
	struct job	*j;
	int		 rc;

	while (c->nsent < c->nfly) {
		j = JOB(jq, c->fly[c->nsent]);
		if (j->e->special)
			rc = net_send_retr(c->net, "SPECIAL", NULL,
			    j->e->t.epath, err);
		else
			rc = net_send_retr(c->net, "FILE", j->e->tname,
			    j->e->t.epath, err);
		if (rc == -1)
			return -1;
		c->nsent++;
	}
	return 0;
}

/*
 * Receive the oldest download of c (outside the lock: the job is ours
 * while taken).  sendrc is what sending the requests gave.
 */
static void
conn_recv(struct jconn *c, struct job *j, int cancel, int sendrc,
    const struct cerr *senderr)
{
	struct dl_want	 w;
	char		 where[32];

	j->fd = -1;
	j->tmp = NULL;
	if (c->dead || sendrc == -1) {
		/* As one session reports a request it could not send. */
		j->rc = DL_DEAD;
		if (sendrc == -1)
			j->err = *senderr;
		else
			cerr_set(&j->err, "%s: session unusable",
			    net_peer(c->net));
		c->dead = 1;
		return;
	}
	if (cancel) {
		j->rc = DL_DEAD;
		cerr_set(&j->err, "cancelled");
		conn_dropone(c);
		return;
	}
	snprintf(where, sizeof(where), "line %u", j->e->t.lineno);
	apply_want(j->e, &w, where, c->buf, JQ_BUFSZ, c->ck);
	if (c->jq->prog->mode == PROG_LINE) {
		w.progress = conn_progress;
		w.arg = c;
	}
	j->rc = dl_file(c->net, &w, j->dfd, j->leaf, &j->fd, &j->tmp,
	    &j->err);
	if (j->rc == DL_DEAD)
		c->dead = 1;
}

static void *
worker(void *arg)
{
	struct jconn	*c = arg;
	struct jobq	*jq = c->jq;
	struct job	*j;
	struct cerr	 err;
	size_t		 i;
	int		 cancel, sendrc;

	pthread_mutex_lock(&jq->mu);
	for (;;) {
		/*
		 * Notes below head are landed already, their slots perhaps
		 * reused by later jobs: never look at them.
		 */
		if (jq->next < jq->head)
			jq->next = jq->head;
		while (!jq->cancel && !c->dead && c->nfly < JQ_INFLIGHT &&
		    jq->next < jq->tail) {
			if (JOB(jq, jq->next)->note) {
				jq->next++;	/* done when queued */
				continue;
			}
			JOB(jq, jq->next)->state = JOB_TAKEN;
			c->fly[c->nfly++] = jq->next++;
		}
		if (c->nfly == 0) {
			if (jq->quit)
				break;
			pthread_cond_wait(&jq->wcv, &jq->mu);
			continue;
		}
		j = JOB(jq, c->fly[0]);
		cancel = jq->cancel;
		pthread_mutex_unlock(&jq->mu);

		sendrc = 0;
		if (!c->dead && !cancel)
			sendrc = conn_send(c, &err);
		if (c->nsent == 0 && cancel) {
			/* Never requested: nothing to read. */
			j->rc = DL_DEAD;
			cerr_set(&j->err, "cancelled");
			j->fd = -1;
			j->tmp = NULL;
		} else
			conn_recv(c, j, cancel, sendrc, &err);
		conn_publish(c);

		pthread_mutex_lock(&jq->mu);
		j->state = JOB_DONE;
		for (i = 1; i < c->nfly; i++)
			c->fly[i - 1] = c->fly[i];
		c->nfly--;
		if (c->nsent > 0)
			c->nsent--;
		pthread_cond_broadcast(&jq->mcv);
	}
	pthread_mutex_unlock(&jq->mu);
	return NULL;
}

int
jobq_start(struct apply *ap, int n, struct cerr *err)
{
	struct jobq	*jq;
	struct jconn	*c;
	struct netopts	 o;
	struct netstats	 ns;
	struct rlimit	 rl;
	sigset_t	 all, old;
	size_t		 room;
	char		*t;
	int		 i, rc = -1;

	jq = xcalloc(1, sizeof(*jq));
	jq->nc = n;
	jq->prog = &ap->prog;
	/*
	 * A queued download holds up to three descriptors (its directory,
	 * its temp file, the directory common/intr keeps for it): keep the
	 * queue within what the directory walk and the batches of
	 * apply-sync.c leave.
	 */
	jq->cap = (size_t)n * JQ_PERCONN;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
		room = rl.rlim_cur > JQ_FDRESERVE ?
		    (size_t)(rl.rlim_cur - JQ_FDRESERVE) / 3 : 0;
		if (room < (size_t)n * JQ_INFLIGHT)
			room = (size_t)n * JQ_INFLIGHT;
		if (room < jq->cap)
			jq->cap = room;
	}
	jq->v = xcalloc(jq->cap, sizeof(*jq->v));
	jq->c = xcalloc((size_t)n, sizeof(*jq->c));
	/*
	 * The others as the first: with the compression it ended up with
	 * (a server without it is not asked again, nor warned about), on
	 * the server and address it reached.
	 */
	o = *ap->no;
	net_pin(ap->net, &o);
	net_stats(ap->net, &ns);
	o.zlevel = ns.level;
	for (i = 0; i < n; i++) {
		c = &jq->c[i];
		c->jq = jq;
		c->drain = DL_DRAINMAX;
		if (i == 0)
			c->net = ap->net;
		else if ((c->net = net_open(&o, err)) == NULL)
			goto fail;
		else
			c->own = 1;
		net_stats(c->net, &c->ns);
		c->buf = xmalloc(JQ_BUFSZ);
		if (ap->digest != NULL)
			c->ck = cksum_new(ap->digest);
	}
	/* Temp names hold the pid, looked up once: before the threads. */
	t = dl_tempname("x", 0);
	free(t);

	if (pthread_mutex_init(&jq->mu, NULL) != 0)
		goto nothread;
	if (pthread_cond_init(&jq->wcv, NULL) != 0) {
		pthread_mutex_destroy(&jq->mu);
		goto nothread;
	}
	if (pthread_cond_init(&jq->mcv, NULL) != 0) {
		pthread_cond_destroy(&jq->wcv);
		pthread_mutex_destroy(&jq->mu);
		goto nothread;
	}
	ap->jq = jq;
	/* Signals stay with the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (i = 0; i < n; i++) {
		c = &jq->c[i];
		if (pthread_create(&c->th, NULL, worker, c) != 0)
			break;
		c->started = 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (i == 0) {
		ap->jq = NULL;
		pthread_cond_destroy(&jq->mcv);
		pthread_cond_destroy(&jq->wcv);
		pthread_mutex_destroy(&jq->mu);
		goto nothread;
	}
	/* Fewer threads than sessions: the others stay idle. */
	return 0;

nothread:
	/* Without threads, one session does it all, as without -j. */
	rc = 1;
fail:
	for (i = 0; i < n; i++) {
		c = &jq->c[i];
		if (c->own)
			(void)net_close(c->net, NULL);
		free(c->buf);
		cksum_free(c->ck);
	}
	free(jq->c);
	free(jq->v);
	free(jq);
	return rc;
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
		apply_meta_undo(ap, e, dfd, leaf, old);
	else if (e->t.type != 'd')
		(void)unlinkat(dfd, leaf, 0);
	else if (unlinkat(dfd, leaf, AT_REMOVEDIR) == 0 && ap->fs != NULL)
		afs_forget(ap->fs, e->t.path);
}

static void
job_clear(struct job *j)
{
	if (j->dfd != -1)
		close(j->dfd);
	free(j->msg);
	free(j->leaf);
	memset(j, 0, sizeof(*j));
	j->dfd = j->fd = -1;
}

/*
 * Land the oldest download, waiting for it.  -1 (message printed) if it
 * failed or could not be landed; every later one is then cancelled.
 */
static int
jobq_landone(struct apply *ap)
{
	struct jobq	*jq = ap->jq;
	struct job	*j, job;
	struct timespec	 ts;
	int		 rc;

	pthread_mutex_lock(&jq->mu);
	j = JOB(jq, jq->head);
	while (j->state != JOB_DONE) {
		if (ap->prog.mode != PROG_LINE) {
			pthread_cond_wait(&jq->mcv, &jq->mu);
			continue;
		}
		/* Waiting on a large file: keep the status line moving. */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += JQ_TICKNS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&jq->mcv, &jq->mu, &ts) != 0 &&
		    j->state != JOB_DONE) {
			pthread_mutex_unlock(&jq->mu);
			progress_tick(&ap->prog);
			pthread_mutex_lock(&jq->mu);
		}
	}
	job = *j;
	memset(j, 0, sizeof(*j));
	j->dfd = j->fd = -1;
	jq->head++;
	pthread_mutex_unlock(&jq->mu);

	if (job.note) {
		/* A line run ahead: now in its turn. */
		if (job.mod)
			ap->modified = 1;
		jq->landing = 1;
		if (job.msg != NULL)
			amsg_say(&ap->msg, "%s", job.msg);
		jq->landing = 0;
		if (job.prog > 0)
			progress_add(&ap->prog, job.prog, job.e->t.path);
		job_clear(&job);
		return 0;
	}
	if (job.rc != DL_OK) {
		/* Cancel first: the flush inside the report waits for none. */
		jobq_cancel(ap);
		apply_dlfail(ap, job.e, job.rc, &job.err);
		job_clear(&job);
		return -1;
	}
	progress_add(&ap->prog, job.e->t.size, job.e->t.path);
	jq->landing = 1;
	rc = apply_landed(ap, job.e, job.dfd, job.leaf, job.fd, job.tmp);
	jq->landing = 0;
	job_clear(&job);
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
	while (jq->tail - jq->head >= jq->cap)
		if (jobq_landone(ap) == -1)
			return -1;
	return 0;
}

int
jobq_add(struct apply *ap, struct apply_entry *e, int dfd, const char *leaf)
{
	struct jobq	*jq = ap->jq;
	struct job	*j;
	int		 d;

	if (jobq_room(ap) == -1)
		return -1;
	if ((d = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1) {
		amsg_fail(&ap->msg, &e->t, "dup");
		return -1;
	}
	pthread_mutex_lock(&jq->mu);
	j = JOB(jq, jq->tail);
	memset(j, 0, sizeof(*j));
	j->e = e;
	j->dfd = d;
	j->leaf = xstrdup(leaf);
	j->fd = -1;
	j->state = JOB_QUEUED;
	jq->tail++;
	pthread_cond_broadcast(&jq->wcv);
	pthread_mutex_unlock(&jq->mu);

	/* Land what is already done, in order, to keep few files open. */
	for (;;) {
		pthread_mutex_lock(&jq->mu);
		d = jq->head < jq->tail && JOB(jq, jq->head)->state == JOB_DONE;
		pthread_mutex_unlock(&jq->mu);
		if (!d)
			return 0;
		if (jobq_landone(ap) == -1)
			return -1;
	}
}

int
jobq_pending(const struct apply *ap)
{
	const struct jobq	*jq = ap->jq;

	return jq != NULL && !jq->failed && !jq->landing &&
	    jq->head < jq->tail;
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
	size_t			 i;

	/* Only the main thread queues and lands: e and note are stable. */
	for (i = jq->head; i < jq->tail; i++) {
		j = JOB(jq, i);
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
	struct job	*j;
	const char	*leaf;
	int		 dfd, d = -1;

	/* Without a note to land it by, the line takes its turn now. */
	if (jq->ahead && (rc == -1 || afs_parent(ap->fs, e->t.path, 0, &dfd,
	    &leaf, NULL) != 0 || (d = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1) &&
	    jobq_inorder(ap) == 0 && jq->ahead_prog > 0)
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
	pthread_mutex_lock(&jq->mu);
	j = JOB(jq, jq->tail);
	memset(j, 0, sizeof(*j));
	j->e = (struct apply_entry *)e;
	j->dfd = d;
	j->leaf = xstrdup(leaf);
	j->fd = -1;
	j->note = 1;
	j->meta = jq->ahead_meta;
	j->old = jq->ahead_old;
	j->msg = jq->ahead_msg;
	j->mod = ap->modified;
	j->prog = jq->ahead_prog;
	j->state = JOB_DONE;
	jq->tail++;
	pthread_mutex_unlock(&jq->mu);
	jq->ahead_msg = NULL;
	ap->modified = jq->ahead_mod;
}

int
jobq_wait(struct apply *ap)
{
	struct jobq	*jq = ap->jq;

	if (jq == NULL || jq->landing)
		return 0;
	while (!jq->failed && jq->head < jq->tail)
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
	pthread_mutex_lock(&jq->mu);
	jq->cancel = 1;
	pthread_cond_broadcast(&jq->wcv);
	pthread_mutex_unlock(&jq->mu);
}

void
jobq_stop(struct apply *ap)
{
	struct jobq	*jq = ap->jq;
	struct job	*j;
	size_t		 i;
	int		 k;

	if (jq == NULL || jq->quit)
		return;
	pthread_mutex_lock(&jq->mu);
	jq->quit = 1;
	jq->cancel = 1;
	pthread_cond_broadcast(&jq->wcv);
	pthread_mutex_unlock(&jq->mu);
	for (k = 0; k < jq->nc; k++)
		if (jq->c[k].started)
			pthread_join(jq->c[k].th, NULL);
	/* Not taken by a worker (none could run it) or not landed. */
	for (i = jq->head; i < jq->tail; i++) {
		j = JOB(jq, i);
		if (j->state == JOB_DONE && !j->note)
			job_drop(j);
	}
	/* Then what was made ahead, inside out: the latest first. */
	for (i = jq->tail; i > jq->head; i--) {
		j = JOB(jq, i - 1);
		if (j->note)
			note_undo(ap, j->e, j->dfd, j->leaf, j->meta ?
			    &j->old : NULL);
		job_clear(j);
	}
	jq->head = jq->next = jq->tail;
	if (jq->c[0].dead || net_broken(ap->net))
		ap->net_dead = 1;
}

void
jobq_wire(struct apply *ap, struct progwire *w)
{
	struct jobq	*jq = ap->jq;
	int		 k;

	/* jq->c[0] is ap->net: every session once. */
	pthread_mutex_lock(&jq->mu);
	for (k = 0; k < jq->nc; k++) {
		w->raw += jq->c[k].ns.raw_in;
		w->wire += jq->c[k].ns.wire_in;
		if (jq->c[k].ns.level > 0)
			w->zlib = 1;
	}
	pthread_mutex_unlock(&jq->mu);
}

void
jobq_free(struct apply *ap)
{
	struct jobq	*jq = ap->jq;
	struct jconn	*c;
	int		 k;

	if (jq == NULL)
		return;
	jobq_stop(ap);
	for (k = 0; k < jq->nc; k++) {
		c = &jq->c[k];
		if (c->own) {
			if (ap->verbose)
				net_print_stats(c->net, stdout);
			(void)net_close(c->net, NULL);
		}
		free(c->buf);
		cksum_free(c->ck);
	}
	pthread_cond_destroy(&jq->mcv);
	pthread_cond_destroy(&jq->wcv);
	pthread_mutex_destroy(&jq->mu);
	free(jq->c);
	free(jq->v);
	free(jq);
	ap->jq = NULL;
}
