/*
 * reqpool.c: requests over several sessions, one worker thread and one
 * request window each (reqpool.h).
 *
 * The queue is a ring of cap items: [head, tail) are not taken back,
 * [next, tail) not claimed by a worker yet.  A worker claims items into
 * its own window (reqwin), requests them and receives the oldest; it
 * then marks it done.  The caller takes items back at head, waiting
 * for each in turn.  A cancelled item still requested has its reply
 * read and dropped, so the session stays in step; a session that
 * failed ends every item it holds unreceived.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cerr.h"
#include "download.h"
#include "net.h"
#include "reqpool.h"
#include "reqwin.h"
#include "xmalloc.h"

#define REQPOOL_TICKNS	250000000L	/* reqpool_take's tick */

#define JOB_QUEUED	0
#define JOB_TAKEN	1
#define JOB_DONE	2

struct reqpool_job {
	void		*item;
	size_t		 len;
	int		 mark;		/* no request: done when queued */
	int		 state;
	int		 rc;		/* DL_* once done */
	struct cerr	 err;
};

struct reqpool_conn {
	struct reqpool		*pool;
	struct net		*net;
	int			 own;		/* opened here */
	int			 started;
	pthread_t		 th;
	struct reqwin		*win;		/* of reqpool_jobs */
	void			*ctx;
	int			 dead;		/* session unusable */
	int64_t			 drain;		/* budget for dropped bodies */
	struct netstats		 ns;		/* its counters (under mu) */
};

struct reqpool {
	struct reqpool_conf	 conf;
	struct reqpool_job	*v;
	size_t			 head;		/* oldest not taken back */
	size_t			 next;		/* oldest not claimed */
	size_t			 tail;		/* next to queue */
	struct reqpool_conn	*c;
	pthread_mutex_t		 mu;
	pthread_cond_t		 wcv;		/* work for the workers */
	pthread_cond_t		 mcv;		/* an item done */
	int			 cancel;
	int			 quit;
	int			 stopped;
};

#define JOB(p, i)	(&(p)->v[(i) % (p)->conf.cap])

/* An item cancelled before its reply was received. */
static void
job_cancel(struct reqpool_job *j)
{
	j->rc = DL_DEAD;
	cerr_set(&j->err, "cancelled");
}

/* The window's ops: the caller's, on the caller's item. */
static int
pool_send(void *arg, struct net *net, void *item, struct cerr *err)
{
	struct reqpool_conn	*c = arg;
	struct reqpool_job	*j = item;

	return c->pool->conf.ops->send(c->pool->conf.arg, net, j->item, err);
}

static int
pool_recv(void *arg, struct net *net, void *item, void *ctx,
    struct cerr *err)
{
	struct reqpool_conn	*c = arg;
	struct reqpool_job	*j = item;

	return c->pool->conf.ops->recv(c->pool->conf.arg, net, j->item, ctx,
	    err);
}

static const struct reqwin_ops pool_ops = { pool_send, pool_recv, NULL };

/* Publish the byte counters of c: the worker owns its session. */
static void
conn_publish(struct reqpool_conn *c)
{
	struct netstats	ns;

	net_stats(c->net, &ns);
	pthread_mutex_lock(&c->pool->mu);
	c->ns = ns;
	pthread_mutex_unlock(&c->pool->mu);
}

void
reqpool_publish(struct reqpool *p, const struct net *net)
{
	int	k;

	for (k = 0; k < p->conf.n; k++)
		if (p->c[k].net == net)
			conn_publish(&p->c[k]);
}

/*
 * The oldest item j of c's window, outside the lock (it is c's while
 * taken): received, or ended unreceived when cancelled or when the
 * session failed.  sendrc and senderr: how requesting went.
 */
static void
conn_one(struct reqpool_conn *c, struct reqpool_job *j, int cancel,
    int sendrc, const struct cerr *senderr)
{
	struct cerr	err;

	if (reqwin_inflight(c->win) == 0 && cancel) {
		/* Never requested: nothing to read. */
		job_cancel(j);
		reqwin_pop(c->win);
	} else if (c->dead || sendrc == -1) {
		/* As one session reports a request it could not send. */
		j->rc = DL_DEAD;
		if (sendrc == -1)
			j->err = *senderr;
		else
			cerr_set(&j->err, "%s: session unusable",
			    net_peer(c->net));
		c->dead = 1;
		reqwin_pop(c->win);
	} else if (cancel) {
		job_cancel(j);
		if (reqwin_skip(c->win, &c->drain, &err) == -1)
			c->dead = 1;
	} else if ((j->rc = reqwin_recv(c->win, c->ctx, &j->err)) == DL_DEAD)
		c->dead = 1;
}

static void *
worker(void *arg)
{
	struct reqpool_conn	*c = arg;
	struct reqpool		*p = c->pool;
	struct reqpool_job	*j;
	struct cerr		 err;
	int			 cancel, sendrc;

	pthread_mutex_lock(&p->mu);
	for (;;) {
		/*
		 * Marks below head are taken back already, their slots
		 * perhaps reused by later items: never look at them.
		 */
		if (p->next < p->head)
			p->next = p->head;
		while (!p->cancel && !c->dead &&
		    reqwin_count(c->win) < p->conf.inflight &&
		    p->next < p->tail) {
			j = JOB(p, p->next++);
			if (j->mark)
				continue;	/* done when queued */
			j->state = JOB_TAKEN;
			reqwin_add(c->win, j, j->len);
		}
		if (reqwin_count(c->win) == 0) {
			if (p->quit)
				break;
			pthread_cond_wait(&p->wcv, &p->mu);
			continue;
		}
		j = reqwin_oldest(c->win);
		cancel = p->cancel;
		pthread_mutex_unlock(&p->mu);

		sendrc = 0;
		if (!c->dead && !cancel)
			sendrc = reqwin_fill(c->win, &err);
		conn_one(c, j, cancel, sendrc, &err);
		conn_publish(c);

		pthread_mutex_lock(&p->mu);
		j->state = JOB_DONE;
		pthread_cond_broadcast(&p->mcv);
	}
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* Close what reqpool_start opened and free p. */
static void
pool_free(struct reqpool *p, FILE *fp)
{
	struct reqpool_conn	*c;
	int			 k;

	for (k = 0; k < p->conf.n; k++) {
		c = &p->c[k];
		if (c->own && c->net != NULL) {
			if (fp != NULL)
				net_print_stats(c->net, fp);
			(void)net_close(c->net, NULL);
		}
		reqwin_free(c->win);
	}
	free(p->c);
	free(p->v);
	free(p);
}

int
reqpool_start(struct reqpool **pool, struct net *first,
    const struct netopts *no, const struct reqpool_conf *conf,
    struct cerr *err)
{
	struct reqpool		*p;
	struct reqpool_conn	*c;
	struct netopts		 o;
	struct netstats		 ns;
	sigset_t		 all, old;
	char			*t;
	int			 k;

	*pool = NULL;
	p = xcalloc(1, sizeof(*p));
	p->conf = *conf;
	if (p->conf.cap < 1)
		p->conf.cap = 1;
	p->v = xcalloc(p->conf.cap, sizeof(*p->v));
	p->c = xcalloc((size_t)conf->n, sizeof(*p->c));
	/*
	 * The others as the first: with the compression it ended up with
	 * (a server without it is not asked again, nor warned about), on
	 * the server and address it reached.
	 */
	o = *no;
	net_pin(first, &o);
	net_stats(first, &ns);
	o.zlevel = ns.level;
	for (k = 0; k < conf->n; k++) {
		c = &p->c[k];
		c->pool = p;
		c->ctx = conf->ctx[k];
		c->drain = DL_DRAINMAX;
		if (k == 0)
			c->net = first;
		else if ((c->net = net_open(&o, err)) == NULL) {
			pool_free(p, NULL);
			return -1;
		} else
			c->own = 1;
		net_stats(c->net, &c->ns);
		c->win = reqwin_new(c->net, conf->inflight, SIZE_MAX,
		    &pool_ops, c);
	}
	p->conf.ctx = NULL;		/* the caller's array: copied */
	/* Temp names hold the pid, looked up once: before the threads. */
	t = dl_tempname("x", 0);
	free(t);

	if (pthread_mutex_init(&p->mu, NULL) != 0)
		goto nothread;
	if (pthread_cond_init(&p->wcv, NULL) != 0) {
		pthread_mutex_destroy(&p->mu);
		goto nothread;
	}
	if (pthread_cond_init(&p->mcv, NULL) != 0) {
		pthread_cond_destroy(&p->wcv);
		pthread_mutex_destroy(&p->mu);
		goto nothread;
	}
	/* Signals stay with the caller's thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	for (k = 0; k < conf->n; k++) {
		c = &p->c[k];
		if (pthread_create(&c->th, NULL, worker, c) != 0)
			break;
		c->started = 1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (k == 0) {
		pthread_cond_destroy(&p->mcv);
		pthread_cond_destroy(&p->wcv);
		pthread_mutex_destroy(&p->mu);
		goto nothread;
	}
	*pool = p;
	return 0;

nothread:
	/* Without threads, one session does it all. */
	pool_free(p, NULL);
	return 1;
}

/* The next slot at tail, for item. */
static struct reqpool_job *
pool_slot(struct reqpool *p, void *item)
{
	struct reqpool_job	*j = JOB(p, p->tail);

	memset(j, 0, sizeof(*j));
	j->item = item;
	return j;
}

void
reqpool_add(struct reqpool *p, void *item, size_t len)
{
	struct reqpool_job	*j;

	pthread_mutex_lock(&p->mu);
	j = pool_slot(p, item);
	j->len = len;
	j->state = JOB_QUEUED;
	if (p->cancel) {
		job_cancel(j);
		j->state = JOB_DONE;
	}
	p->tail++;
	pthread_cond_broadcast(&p->wcv);
	pthread_mutex_unlock(&p->mu);
}

void
reqpool_mark(struct reqpool *p, void *item)
{
	struct reqpool_job	*j;

	pthread_mutex_lock(&p->mu);
	j = pool_slot(p, item);
	j->mark = 1;
	j->rc = DL_OK;
	j->state = JOB_DONE;
	p->tail++;
	pthread_mutex_unlock(&p->mu);
}

size_t
reqpool_count(const struct reqpool *p)
{
	/* Only the caller's thread moves head and tail. */
	return p->tail - p->head;
}

size_t
reqpool_cap(const struct reqpool *p)
{
	return p->conf.cap;
}

void *
reqpool_item(const struct reqpool *p, size_t i)
{
	return JOB(p, p->head + i)->item;
}

int
reqpool_done(struct reqpool *p)
{
	int	done;

	pthread_mutex_lock(&p->mu);
	done = p->head < p->tail && JOB(p, p->head)->state == JOB_DONE;
	pthread_mutex_unlock(&p->mu);
	return done;
}

void *
reqpool_take(struct reqpool *p, int *rc, struct cerr *err)
{
	struct reqpool_job	*j;
	struct timespec		 ts;
	void			*item;

	pthread_mutex_lock(&p->mu);
	if (p->head == p->tail) {
		pthread_mutex_unlock(&p->mu);
		return NULL;
	}
	j = JOB(p, p->head);
	while (j->state != JOB_DONE) {
		if (p->conf.tick == NULL) {
			pthread_cond_wait(&p->mcv, &p->mu);
			continue;
		}
		/* Waiting on a large reply: let the caller show progress. */
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += REQPOOL_TICKNS;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		if (pthread_cond_timedwait(&p->mcv, &p->mu, &ts) != 0 &&
		    j->state != JOB_DONE) {
			pthread_mutex_unlock(&p->mu);
			p->conf.tick(p->conf.arg);
			pthread_mutex_lock(&p->mu);
		}
	}
	item = j->item;
	*rc = j->rc;
	if (j->rc != DL_OK)
		*err = j->err;
	memset(j, 0, sizeof(*j));
	p->head++;
	pthread_mutex_unlock(&p->mu);
	return item;
}

void
reqpool_cancel(struct reqpool *p)
{
	struct reqpool_job	*j;

	pthread_mutex_lock(&p->mu);
	p->cancel = 1;
	/* Not claimed by a worker: never will be. */
	if (p->next < p->head)
		p->next = p->head;
	for (; p->next < p->tail; p->next++)
		if ((j = JOB(p, p->next))->state == JOB_QUEUED) {
			job_cancel(j);
			j->state = JOB_DONE;
		}
	pthread_cond_broadcast(&p->wcv);
	pthread_mutex_unlock(&p->mu);
}

int
reqpool_stop(struct reqpool *p)
{
	int	k;

	if (!p->stopped) {
		pthread_mutex_lock(&p->mu);
		p->quit = 1;
		p->cancel = 1;
		pthread_cond_broadcast(&p->wcv);
		pthread_mutex_unlock(&p->mu);
		for (k = 0; k < p->conf.n; k++)
			if (p->c[k].started)
				pthread_join(p->c[k].th, NULL);
		p->stopped = 1;
		p->next = p->tail;
	}
	return p->c[0].dead || net_broken(p->c[0].net);
}

void *
reqpool_unqueue(struct reqpool *p)
{
	if (!p->stopped || p->tail == p->head)
		return NULL;
	return JOB(p, --p->tail)->item;
}

void
reqpool_stats(struct reqpool *p, struct netstats *sum)
{
	const struct netstats	*ns;
	int			 k;

	memset(sum, 0, sizeof(*sum));
	pthread_mutex_lock(&p->mu);
	for (k = 0; k < p->conf.n; k++) {
		ns = &p->c[k].ns;
		sum->raw_out += ns->raw_out;
		sum->wire_out += ns->wire_out;
		sum->raw_in += ns->raw_in;
		sum->wire_in += ns->wire_in;
		if (ns->level > sum->level)
			sum->level = ns->level;
	}
	pthread_mutex_unlock(&p->mu);
}

void
reqpool_free(struct reqpool *p, FILE *fp)
{
	if (p == NULL)
		return;
	(void)reqpool_stop(p);
	pthread_cond_destroy(&p->mcv);
	pthread_cond_destroy(&p->wcv);
	pthread_mutex_destroy(&p->mu);
	pool_free(p, fp);
}
