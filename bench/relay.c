/*
 * relay.c: a rate- and delay-shaping TCP relay on 127.0.0.1, see relay.h.
 *
 * One thread runs a ppoll loop over the listening socket, a wake-up pipe
 * and every relayed connection.  Each direction of a connection holds a
 * queue of chunks; a chunk read at time t is given a due time
 *
 *	start = max(t, link_free)
 *	link_free = start + len * 8 / rate
 *	due = link_free + rtt / 2
 *
 * and is written to the other socket once due.  A chunk is at most one
 * millisecond of link time (between 512 bytes and 256 KiB), so delivery is
 * smooth at any rate.  Reading stops while the queue holds qcap bytes, less
 * what the kernel's receive buffer holds in front of it.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cerr.h"
#include "relay.h"
#include "xmalloc.h"

#define RELAY_MAXCONN	32
#define RELAY_MAXIOV	64
#define RELAY_READS	64	/* chunks read per direction per loop */
#define NS		1000000000ULL

struct chunk {
	struct chunk	*next;
	uint64_t	 due;		/* ns: may be written from then on */
	size_t		 len, off;	/* bytes held, bytes already written */
	unsigned char	 data[];
};

struct dir {
	int		 from, to;
	struct chunk	*head, *tail;
	uint64_t	 qbytes;
	uint64_t	 qlim;		/* qbytes at which reading stops */
	uint64_t	 link_free;	/* ns: serializer idle from then on */
	uint64_t	 busy_start;	/* ns: queue became non-empty, 0 idle */
	int		 eof;		/* read end of file from "from" */
	int		 done;		/* "to" shut down after eof */
	int		 isdown;	/* upstream to client */
};

struct rconn {
	int		 used;
	int		 cfd, ufd;
	struct dir	 d[2];		/* 0: up (cfd to ufd), 1: down */
};

struct relay {
	struct relay_link	 link;
	uint64_t		 owd_ns;	/* one-way delay */
	size_t			 seg;		/* chunk size */
	int			 rcvbuf;	/* SO_RCVBUF asked, 0: none */
	uint64_t		 qlim;		/* the relay's own queue */
	uint64_t		 held;		/* and the kernel's in front */
	int			 lfd;
	uint16_t		 port;
	int			 wake[2];
	int			 netns_fd;
	pthread_t		 thr;
	pthread_mutex_t		 mtx;
	pthread_cond_t		 cond;
	int			 ready;		/* 1 ok, -1 failed */
	struct cerr		 starterr;
	struct sockaddr_in	 upstream;	/* under mtx */
	struct relay_stats	 st;		/* under mtx */
	struct rconn		 conns[RELAY_MAXCONN];
};

uint64_t
relay_now_ns(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NS + (uint64_t)ts.tv_nsec;
}

static int
set_nonblock(int fd)
{
	int	fl;

	if ((fl = fcntl(fd, F_GETFL)) == -1 ||
	    fcntl(fd, F_SETFL, fl | O_NONBLOCK) == -1)
		return -1;
	return 0;
}

static void
dir_free(struct dir *d)
{
	struct chunk	*c, *n;

	for (c = d->head; c != NULL; c = n) {
		n = c->next;
		free(c);
	}
	d->head = d->tail = NULL;
	d->qbytes = 0;
}

static void
conn_close(struct relay *r, struct rconn *c)
{
	dir_free(&c->d[0]);
	dir_free(&c->d[1]);
	close(c->cfd);
	close(c->ufd);
	memset(c, 0, sizeof(*c));
	(void)r;
}

/* Account the end of a busy period of d at now. */
static void
dir_idle(struct relay *r, struct dir *d, uint64_t now)
{
	struct relay_dirstats	*ds;
	uint64_t		 span;

	if (d->busy_start == 0)
		return;
	span = now - d->busy_start;
	span = span > r->owd_ns ? span - r->owd_ns : 0;
	pthread_mutex_lock(&r->mtx);
	ds = d->isdown ? &r->st.down : &r->st.up;
	ds->busy_ns += span;
	pthread_mutex_unlock(&r->mtx);
	d->busy_start = 0;
}

/*
 * Read what the queue has room for.  Returns 0, or -1 when the
 * connection failed.
 */
static int
dir_read(struct relay *r, struct dir *d)
{
	struct chunk	*c;
	uint64_t	 now, start, tx;
	size_t		 want;
	ssize_t		 n;
	int		 i;

	for (i = 0; i < RELAY_READS && !d->eof &&
	    d->qbytes < d->qlim; i++) {
		want = r->seg;
		if (d->qlim - d->qbytes < want)
			want = d->qlim - d->qbytes;
		c = xmalloc(sizeof(*c) + want);
		n = read(d->from, c->data, want);
		if (n <= 0) {
			free(c);
			if (n == 0) {
				d->eof = 1;
				break;
			}
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				break;
			return -1;
		}
		now = relay_now_ns();
		c->next = NULL;
		c->len = (size_t)n;
		c->off = 0;
		if (r->link.rate == 0)
			c->due = now + r->owd_ns;
		else {
			start = d->link_free > now ? d->link_free : now;
			tx = (uint64_t)n * 8 * NS / r->link.rate;
			d->link_free = start + tx;
			c->due = d->link_free + r->owd_ns;
		}
		if (d->head == NULL) {
			d->head = c;
			if (d->busy_start == 0)
				d->busy_start = now;
		} else
			d->tail->next = c;
		d->tail = c;
		d->qbytes += (uint64_t)n;
	}
	return 0;
}

/* Write every due chunk.  Returns 0, or -1 when the connection failed. */
static int
dir_write(struct relay *r, struct dir *d)
{
	struct iovec		 iov[RELAY_MAXIOV];
	struct msghdr		 mh;
	struct relay_dirstats	*ds;
	struct chunk		*c;
	uint64_t		 now;
	ssize_t			 n;
	size_t			 left, total;
	int			 niov;

	for (;;) {
		now = relay_now_ns();
		niov = 0;
		total = 0;
		for (c = d->head; c != NULL && c->due <= now &&
		    niov < RELAY_MAXIOV; c = c->next) {
			iov[niov].iov_base = c->data + c->off;
			iov[niov].iov_len = c->len - c->off;
			total += iov[niov].iov_len;
			niov++;
		}
		if (niov == 0)
			break;
		memset(&mh, 0, sizeof(mh));
		mh.msg_iov = iov;
		mh.msg_iovlen = (size_t)niov;
		n = sendmsg(d->to, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n == -1) {
			if (errno == EAGAIN || errno == EWOULDBLOCK ||
			    errno == EINTR)
				return 0;
			return -1;
		}
		pthread_mutex_lock(&r->mtx);
		ds = d->isdown ? &r->st.down : &r->st.up;
		if (ds->bytes == 0)
			ds->first_ns = now;
		ds->bytes += (uint64_t)n;
		ds->last_ns = now;
		pthread_mutex_unlock(&r->mtx);
		for (left = (size_t)n; left > 0 && d->head != NULL; ) {
			c = d->head;
			if (c->len - c->off > left) {
				c->off += left;
				break;
			}
			left -= c->len - c->off;
			d->qbytes -= c->len;
			d->head = c->next;
			if (d->head == NULL)
				d->tail = NULL;
			free(c);
		}
		if (d->head == NULL)
			dir_idle(r, d, relay_now_ns());
		if ((size_t)n < total)
			return 0;	/* short write: the socket is full */
	}
	if (d->eof && d->head == NULL && !d->done) {
		shutdown(d->to, SHUT_WR);
		d->done = 1;
	}
	return 0;
}

static void
relay_accept(struct relay *r)
{
	struct sockaddr_in	 up;
	struct rconn		*c = NULL;
	int			 cfd, ufd, i, one = 1;

	if ((cfd = accept(r->lfd, NULL, NULL)) == -1)
		return;
	for (i = 0; i < RELAY_MAXCONN; i++)
		if (!r->conns[i].used) {
			c = &r->conns[i];
			break;
		}
	pthread_mutex_lock(&r->mtx);
	up = r->upstream;
	pthread_mutex_unlock(&r->mtx);
	if (c == NULL || (ufd = socket(AF_INET, SOCK_STREAM, 0)) == -1) {
		close(cfd);
		return;
	}
	/* Before connect, so the window scale allows it (tcp(7)). */
	if (r->rcvbuf > 0)
		setsockopt(ufd, SOL_SOCKET, SO_RCVBUF, &r->rcvbuf,
		    sizeof(r->rcvbuf));
	if (connect(ufd, (struct sockaddr *)&up, sizeof(up)) == -1) {
		pthread_mutex_lock(&r->mtx);
		r->st.upstream_errors++;
		pthread_mutex_unlock(&r->mtx);
		close(ufd);
		close(cfd);
		return;
	}
	setsockopt(cfd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	setsockopt(ufd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	if (set_nonblock(cfd) == -1 || set_nonblock(ufd) == -1) {
		close(ufd);
		close(cfd);
		return;
	}
	memset(c, 0, sizeof(*c));
	c->used = 1;
	c->cfd = cfd;
	c->ufd = ufd;
	c->d[0].from = cfd;
	c->d[0].to = ufd;
	c->d[1].from = ufd;
	c->d[1].to = cfd;
	c->d[1].isdown = 1;
	c->d[0].qlim = c->d[1].qlim = r->qlim;
	pthread_mutex_lock(&r->mtx);
	r->st.conns++;
	pthread_mutex_unlock(&r->mtx);
}

static int
relay_setup(struct relay *r)
{
	struct sockaddr_in	sin;
	socklen_t		len;
	uint64_t		least;
	int			one = 1, kbuf;

	if (r->netns_fd >= 0 && setns(r->netns_fd, CLONE_NEWNET) == -1) {
		cerr_errno(&r->starterr, "relay: setns");
		return -1;
	}
	if ((r->lfd = socket(AF_INET, SOCK_STREAM, 0)) == -1) {
		cerr_errno(&r->starterr, "relay: socket");
		return -1;
	}
	setsockopt(r->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	r->qlim = r->held = r->link.qcap;
	if (r->link.rate != 0) {
		/*
		 * The kernel's receive buffer is a second queue in front
		 * of the relay's: keep it small (under 32 KB a loopback
		 * connection stalls on a closed window) and count it in.
		 * Accepted sockets inherit it from the listening one.
		 */
		r->rcvbuf = r->link.qcap / 8 > 1u << 20 ? 1 << 20 :
		    r->link.qcap / 8 < 32768 ? 32768 :
		    (int)(r->link.qcap / 8);
		kbuf = r->rcvbuf;
		len = sizeof(kbuf);
		if (setsockopt(r->lfd, SOL_SOCKET, SO_RCVBUF, &r->rcvbuf,
		    sizeof(r->rcvbuf)) == -1 || getsockopt(r->lfd, SOL_SOCKET,
		    SO_RCVBUF, &kbuf, &len) == -1)
			kbuf = 2 * r->rcvbuf;
		/*
		 * The relay's own part stays at least as large (it reads in
		 * small pieces otherwise, and the connection stalls again)
		 * and holds what is in flight for the delay: on slow links
		 * the whole is more than qcap.
		 */
		least = r->link.rate / 8 * (r->owd_ns / 1000) / 1000000 +
		    2 * r->seg;
		if (least < (uint64_t)kbuf)
			least = (uint64_t)kbuf;
		r->qlim = r->link.qcap > (uint64_t)kbuf + least ?
		    r->link.qcap - (uint64_t)kbuf : least;
		r->held = r->qlim + (uint64_t)kbuf;
	}
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = 0;
	len = sizeof(sin);
	if (bind(r->lfd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(r->lfd, 16) == -1 ||
	    getsockname(r->lfd, (struct sockaddr *)&sin, &len) == -1 ||
	    set_nonblock(r->lfd) == -1) {
		cerr_errno(&r->starterr, "relay: listen on 127.0.0.1");
		close(r->lfd);
		r->lfd = -1;
		return -1;
	}
	r->port = ntohs(sin.sin_port);
	return 0;
}

/* Add fd with events to the poll set, merging with an existing entry. */
static void
pfd_add(struct pollfd *pfd, int *npfd, int fd, short ev)
{
	int	i;

	for (i = 0; i < *npfd; i++)
		if (pfd[i].fd == fd) {
			pfd[i].events |= ev;
			return;
		}
	pfd[*npfd].fd = fd;
	pfd[*npfd].events = ev;
	pfd[*npfd].revents = 0;
	(*npfd)++;
}

static void *
relay_main(void *arg)
{
	struct relay	*r = arg;
	struct pollfd	 pfd[2 + 2 * RELAY_MAXCONN];
	struct timespec	 ts, *tsp;
	struct rconn	*c;
	struct dir	*d;
	uint64_t	 now, next;
	int		 npfd, i, k, fail;
	char		 junk[16];

	pthread_mutex_lock(&r->mtx);
	r->ready = relay_setup(r) == 0 ? 1 : -1;
	pthread_cond_broadcast(&r->cond);
	pthread_mutex_unlock(&r->mtx);
	if (r->ready != 1)
		return NULL;

	for (;;) {
		npfd = 0;
		pfd_add(pfd, &npfd, r->wake[0], POLLIN);
		pfd_add(pfd, &npfd, r->lfd, POLLIN);
		now = relay_now_ns();
		next = UINT64_MAX;
		for (i = 0; i < RELAY_MAXCONN; i++) {
			c = &r->conns[i];
			if (!c->used)
				continue;
			for (k = 0; k < 2; k++) {
				d = &c->d[k];
				if (!d->eof && d->qbytes < d->qlim)
					pfd_add(pfd, &npfd, d->from, POLLIN);
				if (d->head == NULL)
					continue;
				if (d->head->due <= now)
					pfd_add(pfd, &npfd, d->to, POLLOUT);
				else if (d->head->due < next)
					next = d->head->due;
			}
		}
		tsp = NULL;
		if (next != UINT64_MAX) {
			ts.tv_sec = (time_t)((next - now) / NS);
			ts.tv_nsec = (long)((next - now) % NS);
			tsp = &ts;
		}
		if (ppoll(pfd, (nfds_t)npfd, tsp, NULL) == -1 &&
		    errno != EINTR)
			break;
		if (pfd[0].revents & POLLIN) {
			if (read(r->wake[0], junk, sizeof(junk)) >= 0)
				break;
		}
		if (pfd[1].revents & POLLIN)
			relay_accept(r);
		/*
		 * Service every connection: reads are non-blocking, so
		 * trying a socket that was not reported costs one syscall.
		 */
		for (i = 0; i < RELAY_MAXCONN; i++) {
			c = &r->conns[i];
			if (!c->used)
				continue;
			fail = 0;
			for (k = 0; k < 2 && !fail; k++) {
				d = &c->d[k];
				if (dir_read(r, d) == -1 ||
				    dir_write(r, d) == -1)
					fail = 1;
			}
			if (fail || (c->d[0].done && c->d[1].done)) {
				dir_idle(r, &c->d[0], relay_now_ns());
				dir_idle(r, &c->d[1], relay_now_ns());
				conn_close(r, c);
			}
		}
	}
	for (i = 0; i < RELAY_MAXCONN; i++)
		if (r->conns[i].used)
			conn_close(r, &r->conns[i]);
	return NULL;
}

struct relay *
relay_start(const struct relay_link *link, const struct sockaddr_in *upstream,
    int netns_fd, struct cerr *err)
{
	struct relay	*r;
	uint64_t	 Bps, buf;
	int		 e;

	r = xcalloc(1, sizeof(*r));
	r->link = *link;
	r->lfd = -1;
	r->netns_fd = netns_fd;
	r->owd_ns = link->rtt_us * 1000 / 2;
	Bps = link->rate / 8;
	if (link->rate == 0)
		r->seg = 256 * 1024;
	else {
		r->seg = Bps / 1000;
		if (r->seg < 512)
			r->seg = 512;
		if (r->seg > 262144)
			r->seg = 262144;
	}
	if (r->link.qcap == 0) {
		if (link->rate == 0)
			r->link.qcap = 4u << 20;
		else {
			/* In flight for one-way delay, plus a 25 ms buffer. */
			buf = Bps / 40;
			if (buf < 32768)
				buf = 32768;
			if (buf > 4u << 20)
				buf = 4u << 20;
			r->link.qcap = Bps * (r->owd_ns / 1000) / 1000000 + buf;
		}
	}
	if (r->link.qcap < r->seg)
		r->link.qcap = r->seg;
	if (upstream != NULL)
		r->upstream = *upstream;
	if (pipe(r->wake) == -1) {
		cerr_errno(err, "relay: pipe");
		free(r);
		return NULL;
	}
	pthread_mutex_init(&r->mtx, NULL);
	pthread_cond_init(&r->cond, NULL);
	if ((e = pthread_create(&r->thr, NULL, relay_main, r)) != 0) {
		errno = e;
		cerr_errno(err, "relay: pthread_create");
		close(r->wake[0]);
		close(r->wake[1]);
		free(r);
		return NULL;
	}
	pthread_mutex_lock(&r->mtx);
	while (r->ready == 0)
		pthread_cond_wait(&r->cond, &r->mtx);
	pthread_mutex_unlock(&r->mtx);
	if (r->ready != 1) {
		cerr_set(err, "%s", r->starterr.msg);
		pthread_join(r->thr, NULL);
		close(r->wake[0]);
		close(r->wake[1]);
		free(r);
		return NULL;
	}
	return r;
}

uint16_t
relay_port(const struct relay *r)
{
	return r->port;
}

uint64_t
relay_qcap(const struct relay *r)
{
	return r->held;
}

void
relay_set_upstream(struct relay *r, const struct sockaddr_in *up)
{
	pthread_mutex_lock(&r->mtx);
	r->upstream = *up;
	pthread_mutex_unlock(&r->mtx);
}

void
relay_stats(struct relay *r, struct relay_stats *st, int reset)
{
	pthread_mutex_lock(&r->mtx);
	*st = r->st;
	if (reset)
		memset(&r->st, 0, sizeof(r->st));
	pthread_mutex_unlock(&r->mtx);
}

void
relay_stop(struct relay *r)
{
	if (r == NULL)
		return;
	if (write(r->wake[1], "x", 1) == -1) {
		/* The pipe cannot be full: one byte per stop. */
	}
	pthread_join(r->thr, NULL);
	if (r->lfd != -1)
		close(r->lfd);
	close(r->wake[0]);
	close(r->wake[1]);
	pthread_mutex_destroy(&r->mtx);
	pthread_cond_destroy(&r->cond);
	free(r);
}
