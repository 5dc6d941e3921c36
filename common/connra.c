/*
 * connra.c: the read-ahead thread of a connection (connra.h).
 */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cerr.h"
#include "connfilter.h"
#include "connra.h"
#include "transport.h"
#include "xmalloc.h"

#define CONNRA_STEP	(32 * 1024)	/* plain bytes per decode call */
#define CONNRA_MARKS	(CONNRA_SIZE / CONNRA_STEP + 2)

/*
 * The read-ahead: the thread reads the socket and decodes
 * into ring; the reader takes from it.  Under mu: everything but the
 * ring's bytes, which belong to the thread from tail to head + size and
 * to the reader from head to tail.
 */
struct connra {
	pthread_t	 th;
	pthread_mutex_t	 mu;
	pthread_cond_t	 cv;		/* the reader's: data, an end */
	pthread_cond_t	 rcv;		/* the thread's: room, stop */
	int		 wake[2];	/* a byte: stop waiting for the peer */
	int		 stop;
	int		 end;		/* 1: peer closed, -1: error in err */
	struct cerr	 err;
	unsigned char	*ring;
	/* The thread's alone: the socket, the filter, coded input. */
	int		 fd;
	char		*peer;
	const struct conn_filter *fops;
	void		*farg;
	unsigned char	*win;
	size_t		 wcap, woff, wlen;
	uint64_t	 head, tail;	/* plain bytes taken, made */
	uint64_t	 wire_in;	/* read by the thread */
	uint64_t	 wused;		/* coded bytes it decoded */
	/* Where the plain bytes end that wused coded bytes made. */
	struct {
		uint64_t	 end, wused;
	}		 mark[CONNRA_MARKS];
	size_t		 mfirst, nmark;
};

static void	connra_free(struct connra *);

/*
 * The read-ahead thread: read the socket and decode into the ring until
 * the peer closes, an error, or connra_end.  It alone touches the
 * socket, win and the filter's decode side.
 */
static void *
connra_main(void *arg)
{
	struct connra	*ra = arg;
	const unsigned char *zp;
	struct pollfd	 pfd[2];
	struct cerr	 zerr, err;
	uint64_t	 room;
	size_t		 at, n, zlen;
	ssize_t		 r;
	char		 ch;
	int		 end = 0;

	memset(&err, 0, sizeof(err));
	for (;;) {
		pthread_mutex_lock(&ra->mu);
		while (!ra->stop && ra->tail - ra->head == CONNRA_SIZE)
			pthread_cond_wait(&ra->rcv, &ra->mu);
		if (ra->stop) {
			pthread_mutex_unlock(&ra->mu);
			break;
		}
		room = CONNRA_SIZE - (ra->tail - ra->head);
		at = (size_t)(ra->tail % CONNRA_SIZE);
		pthread_mutex_unlock(&ra->mu);
		n = CONNRA_SIZE - at;
		if (n > room)
			n = (size_t)room;
		if (n > CONNRA_STEP)
			n = CONNRA_STEP;

		zp = ra->win + ra->woff;
		zlen = ra->wlen;
		r = ra->fops->decode(ra->farg, &zp, &ra->wlen, ra->ring + at, n,
		    &zerr);
		if (r == -1) {
			cerr_set(&err, "%s: %s", ra->peer, zerr.msg);
			end = -1;
			break;
		}
		ra->woff = (size_t)(zp - ra->win);
		pthread_mutex_lock(&ra->mu);
		ra->wused += zlen - ra->wlen;
		if (r > 0) {
			ra->tail += (uint64_t)r;
			/* Full: the newest mark covers more (coarser). */
			if (ra->nmark == CONNRA_MARKS)
				ra->nmark--;
			n = (ra->mfirst + ra->nmark++) % CONNRA_MARKS;
			ra->mark[n].end = ra->tail;
			ra->mark[n].wused = ra->wused;
			pthread_cond_signal(&ra->cv);
		}
		pthread_mutex_unlock(&ra->mu);
		if (r > 0)
			continue;

		/* Inflate wants input. */
		if (ra->wlen == 0)
			ra->woff = 0;
		if (ra->woff + ra->wlen == ra->wcap) {
			memmove(ra->win, ra->win + ra->woff, ra->wlen);
			ra->woff = 0;
		}
		r = read(ra->fd, ra->win + ra->woff + ra->wlen,
		    ra->wcap - ra->woff - ra->wlen);
		if (r > 0) {
			ra->wlen += (size_t)r;
			pthread_mutex_lock(&ra->mu);
			ra->wire_in += (uint64_t)r;
			pthread_mutex_unlock(&ra->mu);
			continue;
		}
		if (r == 0) {
			end = 1;
			break;
		}
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			cerr_errno(&err, "%s: read", ra->peer);
			end = -1;
			break;
		}
		/* No deadline here: the reader keeps its own. */
		pfd[0].fd = ra->fd;
		pfd[0].events = POLLIN;
		pfd[1].fd = ra->wake[0];
		pfd[1].events = POLLIN;
		pfd[0].revents = pfd[1].revents = 0;
		if (poll(pfd, 2, -1) == -1 && errno != EINTR) {
			cerr_errno(&err, "%s: poll", ra->peer);
			end = -1;
			break;
		}
		if (pfd[1].revents != 0)
			(void)read(ra->wake[0], &ch, 1);
	}
	pthread_mutex_lock(&ra->mu);
	if (end != 0) {
		ra->end = end;
		ra->err = err;
	}
	pthread_cond_signal(&ra->cv);
	pthread_mutex_unlock(&ra->mu);
	return NULL;
}

int
connra_start(struct connra **rap, int fd, const struct conn_filter *ops,
    void *arg, const char *peer, const void *pending, size_t n,
    uint64_t used, struct cerr *err)
{
	struct connra		*ra;
	pthread_condattr_t	 ca;
	sigset_t		 all, old;
	int			 rc;

	ra = xcalloc(1, sizeof(*ra));
	if (pipe2(ra->wake, O_CLOEXEC | O_NONBLOCK) == -1) {
		cerr_errno(err, "%s: pipe", peer);
		free(ra);
		return -1;
	}
	ra->ring = xmalloc(CONNRA_SIZE);
	ra->wused = used;
	ra->fd = fd;
	ra->peer = xstrdup(peer);
	ra->fops = ops;
	ra->farg = arg;
	ra->wcap = n > TRANSPORT_IOSIZE ? n : TRANSPORT_IOSIZE;
	ra->win = xmalloc(ra->wcap);
	if (n > 0)
		memcpy(ra->win, pending, n);
	ra->wlen = n;
	pthread_mutex_init(&ra->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&ra->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_cond_init(&ra->rcv, NULL);
	/* Signals stay with the program's threads. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&ra->th, NULL, connra_main, ra);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		connra_free(ra);
		return 1;	/* reads stay in the caller's thread */
	}
	*rap = ra;
	return 0;
}

static void
connra_free(struct connra *ra)
{
	pthread_cond_destroy(&ra->rcv);
	pthread_cond_destroy(&ra->cv);
	pthread_mutex_destroy(&ra->mu);
	close(ra->wake[0]);
	close(ra->wake[1]);
	free(ra->ring);
	free(ra->win);
	free(ra->peer);
	free(ra);
}

void
connra_end(struct connra *ra, uint64_t *wire_in, uint64_t *used)
{
	char	 ch = 0;

	if (ra == NULL)
		return;
	pthread_mutex_lock(&ra->mu);
	ra->stop = 1;
	pthread_cond_signal(&ra->rcv);
	pthread_mutex_unlock(&ra->mu);
	(void)write(ra->wake[1], &ch, 1);
	pthread_join(ra->th, NULL);
	*wire_in += ra->wire_in;
	*used = ra->wused;
	connra_free(ra);
}

size_t
connra_pending(struct connra *ra)
{
	size_t	 n;

	pthread_mutex_lock(&ra->mu);
	n = (size_t)(ra->tail - ra->head);
	pthread_mutex_unlock(&ra->mu);
	return n;
}

uint64_t
connra_wire_in(struct connra *ra)
{
	uint64_t	 n;

	pthread_mutex_lock(&ra->mu);
	n = ra->wire_in;
	pthread_mutex_unlock(&ra->mu);
	return n;
}

ssize_t
connra_take(struct connra *ra, void *p, size_t n, int64_t deadline,
    int wait, uint64_t *used, struct cerr *err)
{
	struct timespec	 ts;
	uint64_t	 avail;
	size_t		 at;
	int		 end;

	pthread_mutex_lock(&ra->mu);
	while (ra->tail == ra->head && ra->end == 0) {
		if (!wait) {
			pthread_mutex_unlock(&ra->mu);
			return CONNRA_WAIT;
		}
		if (deadline < 0) {
			pthread_cond_wait(&ra->cv, &ra->mu);
			continue;
		}
		ts.tv_sec = (time_t)(deadline / 1000);
		ts.tv_nsec = (long)(deadline % 1000) * 1000000L;
		if (pthread_cond_timedwait(&ra->cv, &ra->mu, &ts) != 0 &&
		    ra->tail == ra->head && ra->end == 0 &&
		    transport_now() >= deadline) {
			pthread_mutex_unlock(&ra->mu);
			return CONNRA_TIMEOUT;
		}
	}
	avail = ra->tail - ra->head;
	if (avail == 0) {
		/* Everything it made is taken: the end it met is ours. */
		end = ra->end;
		if (end == -1)
			*err = ra->err;
		pthread_mutex_unlock(&ra->mu);
		return end == 1 ? 0 : -1;
	}
	at = (size_t)(ra->head % CONNRA_SIZE);
	if (n > avail)
		n = (size_t)avail;
	if (n > CONNRA_SIZE - at)
		n = CONNRA_SIZE - at;
	pthread_mutex_unlock(&ra->mu);
	/* Ours from head to tail: copy outside the lock. */
	memcpy(p, ra->ring + at, n);
	pthread_mutex_lock(&ra->mu);
	ra->head += n;
	/* The line bound counts the coded bytes of what we took. */
	while (ra->nmark > 0 && ra->mark[ra->mfirst].end <= ra->head) {
		*used = ra->mark[ra->mfirst].wused;
		ra->mfirst = (ra->mfirst + 1) % CONNRA_MARKS;
		ra->nmark--;
	}
	pthread_cond_signal(&ra->rcv);
	pthread_mutex_unlock(&ra->mu);
	return (ssize_t)n;
}

