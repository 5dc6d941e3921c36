/*
 * conn.c: buffered, optionally filtered I/O on one socket (conn.h).
 *
 * Data path, bottom up:
 *   fd --(io_read)--> win --(filter decode)--> in --> lines / blocks
 *   out --(filter encode)--> wout --(io_write)--> fd
 * Without a filter win/wout are unused and bytes go straight between
 * the fd and in/out.  io_read/io_write are the only places that touch the
 * transport: the socket, or after conn_starttls a TLS session on it (so
 * a filter, installed later, sits above TLS: code, then encrypt).
 * After conn_readahead (filtered, no TLS) a thread of the connection
 * owns the read side below "in": it reads and decodes into a ring
 * ahead of the reader, and conn_produce takes from the ring.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "conn.h"
#include "connra.h"
#include "tls.h"
#include "xmalloc.h"

#define CONN_TIMEOUT	60000		/* default per-call deadline, ms */
#define CONN_DRAINTIME	2000		/* conn_close: drain the peer, ms */
#define CONN_DRAINMAX	(1024 * 1024)

struct conn {
	int		 fd;
	char		*peer;
	int		 timeout;
	size_t		 maxline;
	int		 linewait;	/* ms to wait for a line to begin, -1 */
	int		 linetime;	/* ms for a line once begun, -1 */
	conn_trace_fn	 trace;		/* NULL: none */
	void		*tracearg;
	conn_idle_fn	 idle;		/* NULL: none */
	void		*idlearg;

	/* Plain input not yet consumed: in[ioff .. ioff+ilen). */
	unsigned char	*in;
	size_t		 icap, ioff, ilen;
	size_t		 iscan;		/* bytes after ioff known to hold no EOL */
	int		 skiplf;	/* last line ended in CR: eat one LF */

	/* Coded input not yet decoded: win[woff .. woff+wlen). */
	unsigned char	*win;
	size_t		 wcap, woff, wlen;
	int		 wskiplf;	/* skiplf carried across the switch */
	uint64_t	 wused;		/* coded bytes decoded so far */

	struct buf	*out;		/* plain output queued */
	struct buf	*wout;		/* coded output not yet written */
	const struct conn_filter *fops;	/* the filter, NULL: none */
	void		*farg;
	int		 timing;	/* count waits (conn_set_timing) */
	uint64_t	 stall_ns, idle_ns; /* waiting to send, to receive */

	struct tls	*tls;		/* after conn_starttls */
	struct connra	*ra;		/* after conn_readahead, or NULL */

	int		 eof, toolong;
	int		 timedout;	/* the last wait ran out of time */
	int		 wfail;		/* a write failed: drop later output */
	struct connstats st;
};


static void	conn_ra_end(struct conn *);

static int64_t
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint64_t
now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int64_t
conn_now(void)
{
	return now_ms();
}

int64_t
conn_deadline(const struct conn *c)
{
	return c->timeout < 0 ? -1 : now_ms() + c->timeout;
}

/*
 * Wait until fd is ready for events or the deadline passes.  Returns 0
 * when ready, -1 with err on timeout or poll failure.
 */
static int
conn_wait(struct conn *c, short events, int64_t deadline, struct cerr *err)
{
	struct pollfd	 pfd;
	int64_t		 left;
	uint64_t	 t0 = c->timing ? now_ns() : 0;
	int		 r;

	for (;;) {
		left = -1;
		if (deadline >= 0 && (left = deadline - now_ms()) < 0)
			left = 0;
		pfd.fd = c->fd;
		pfd.events = events;
		pfd.revents = 0;
		r = poll(&pfd, 1, left > 1000000000 ? 1000000000 : (int)left);
		if (r > 0) {
			if (!c->timing)
				return 0;
			/* Waiting to send is the link's; to read, idle. */
			if (events & POLLOUT)
				c->stall_ns += now_ns() - t0;
			else
				c->idle_ns += now_ns() - t0;
			return 0;
		}
		if (r == 0) {
			c->timedout = 1;
			cerr_set(err, "%s: timed out %s", c->peer,
			    events == POLLIN ? "waiting for data" :
			    "sending data");
			return -1;
		}
		if (errno != EINTR) {
			cerr_errno(err, "%s: poll", c->peer);
			return -1;
		}
	}
}

/* TLS: wait as the session asks.  Returns 0 or -1 (err). */
static int
io_tlswait(struct conn *c, ssize_t r, int64_t deadline, struct cerr *err)
{
	return conn_wait(c, r == TLS_WANTWRITE ? POLLOUT : POLLIN, deadline,
	    err);
}

/* The transport: one read.  Returns > 0, 0 at end of stream, -1 error. */
static ssize_t
io_read(struct conn *c, void *p, size_t n, int64_t deadline,
    struct cerr *err)
{
	struct cerr	 terr;
	ssize_t		 r;
	int		 waited = 0;

	for (;;) {
		if (c->tls != NULL) {
			r = tls_read(c->tls, p, n, &terr);
			if (r == -1) {
				cerr_set(err, "%s: %s", c->peer, terr.msg);
				return -1;
			}
			if (r == TLS_WANTWRITE) {
				if (io_tlswait(c, r, deadline, err) == -1)
					return -1;
				continue;
			}
		} else
			r = read(c->fd, p, n);
		if (r >= 0) {
			c->st.wire_in += (uint64_t)r;
			return r;
		}
		if (c->tls == NULL) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				cerr_errno(err, "%s: read", c->peer);
				return -1;
			}
		}
		/* About to wait for the peer: it may be waiting for us. */
		if (!waited && !c->wfail && ((c->idle != NULL &&
		    c->idle(c->idlearg, err) == -1) ||
		    conn_flush(c, err) == -1))
			return -1;
		waited = 1;
		if (conn_wait(c, POLLIN, deadline, err) == -1)
			return -1;
	}
}

/* The transport: write all n bytes. */
static int
io_write(struct conn *c, const void *p, size_t n, int64_t deadline,
    struct cerr *err)
{
	const unsigned char	*q = p;
	struct cerr		 terr;
	ssize_t			 r;

	while (n > 0 && c->tls != NULL) {
		r = tls_write(c->tls, q, n, &terr);
		if (r > 0) {
			q += r;
			n -= (size_t)r;
			c->st.wire_out += (uint64_t)r;
			continue;
		}
		if (r == -1) {
			cerr_set(err, "%s: %s", c->peer, terr.msg);
			return -1;
		}
		if (io_tlswait(c, r, deadline, err) == -1)
			return -1;
	}
	while (n > 0) {
		r = send(c->fd, q, n, MSG_NOSIGNAL);
		if (r > 0) {
			q += r;
			n -= (size_t)r;
			c->st.wire_out += (uint64_t)r;
			continue;
		}
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (conn_wait(c, POLLOUT, deadline, err) == -1)
				return -1;
			continue;
		}
		cerr_errno(err, "%s: write", c->peer);
		c->wfail = 1;
		return -1;
	}
	return 0;
}

struct conn *
conn_new(int fd, const char *peer)
{
	struct conn	*c;
	int		 fl;

	c = xcalloc(1, sizeof(*c));
	c->fd = fd;
	c->peer = xstrdup(peer != NULL ? peer : "peer");
	c->timeout = CONN_TIMEOUT;
	c->maxline = CONN_MAXLINE;
	c->linewait = -1;
	c->linetime = -1;
	c->out = buf_new(CONN_IOSIZE + CONN_MAXLINE + 4096);
	c->wout = buf_new(8 * CONN_IOSIZE + 65536);
	if ((fl = fcntl(fd, F_GETFL)) != -1)
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	return c;
}

void
conn_free(struct conn *c)
{
	if (c == NULL)
		return;
	conn_ra_end(c);
	tls_free(c->tls);
	if (c->fd != -1)
		close(c->fd);
	if (c->fops != NULL)
		c->fops->free(c->farg);
	buf_free(c->out);
	buf_free(c->wout);
	free(c->in);
	free(c->win);
	free(c->peer);
	free(c);
}

void
conn_close(struct conn *c)
{
	unsigned char	 tmp[8192];
	int64_t		 deadline;
	size_t		 total = 0;
	ssize_t		 r;

	if (c == NULL)
		return;
	conn_ra_end(c);
	(void)conn_flush(c, NULL);
	tls_close(c->tls);
	(void)shutdown(c->fd, SHUT_WR);
	deadline = now_ms() + CONN_DRAINTIME;
	while (total < CONN_DRAINMAX) {
		if (conn_wait(c, POLLIN, deadline, NULL) == -1)
			break;
		r = read(c->fd, tmp, sizeof(tmp));
		if (r == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			break;
		total += (size_t)r;
	}
	conn_free(c);
}

const char *
conn_peer(const struct conn *c)
{
	return c->peer;
}

void
conn_set_peer(struct conn *c, const char *peer)
{
	free(c->peer);
	c->peer = xstrdup(peer);
}

int
conn_fd(const struct conn *c)
{
	return c->fd;
}

void
conn_set_timeout(struct conn *c, int ms)
{
	c->timeout = ms;
}

void
conn_set_maxline(struct conn *c, size_t max)
{
	c->maxline = max;
}

void
conn_set_linetimes(struct conn *c, int wait, int line)
{
	c->linewait = wait;
	c->linetime = line;
}

void
conn_set_trace(struct conn *c, conn_trace_fn fn, void *arg)
{
	c->trace = fn;
	c->tracearg = arg;
}

void
conn_set_idle(struct conn *c, conn_idle_fn fn, void *arg)
{
	c->idle = fn;
	c->idlearg = arg;
}

int
conn_eof(const struct conn *c)
{
	return c->eof;
}

int
conn_toolong(const struct conn *c)
{
	return c->toolong;
}

void
conn_stats(const struct conn *c, struct connstats *st)
{
	*st = c->st;
	if (c->fops != NULL)
		c->fops->stats(c->farg, st);
	if (c->ra != NULL)
		st->wire_in += connra_wire_in(c->ra);
}

/* Make sure the input buffer exists and has room at its end. */
static size_t
conn_inspace(struct conn *c)
{
	size_t	 want = c->maxline + 1 + CONN_IOSIZE;

	if (c->icap < want) {
		if (c->ioff > 0 && c->ilen > 0)
			memmove(c->in, c->in + c->ioff, c->ilen);
		c->ioff = 0;
		c->in = xreallocarray(c->in, 1, want);
		c->icap = want;
	}
	if (c->ioff > 0 && (c->ioff + c->ilen == c->icap ||
	    c->ioff >= c->icap / 2)) {
		memmove(c->in, c->in + c->ioff, c->ilen);
		c->ioff = 0;
	}
	return c->icap - c->ioff - c->ilen;
}

/* Read more coded bytes into win.  Returns > 0, 0 at EOF, -1. */
static ssize_t
conn_zread(struct conn *c, int64_t deadline, struct cerr *err)
{
	ssize_t	 r;

	if (c->wlen == 0)
		c->woff = 0;
	if (c->woff + c->wlen == c->wcap) {
		memmove(c->win, c->win + c->woff, c->wlen);
		c->woff = 0;
	}
	r = io_read(c, c->win + c->woff + c->wlen,
	    c->wcap - c->woff - c->wlen, deadline, err);
	if (r <= 0)
		return r;
	if (c->wskiplf) {
		/* The LF of the CRLF ending the line before the switch. */
		c->wskiplf = 0;
		if (c->win[c->woff + c->wlen] == '\n') {
			memmove(c->win + c->woff + c->wlen,
			    c->win + c->woff + c->wlen + 1, (size_t)r - 1);
			r--;
			if (r == 0)
				return conn_zread(c, deadline, err);
		}
	}
	c->wlen += (size_t)r;
	return r;
}

/*
 * conn_produce under read-ahead: up to n plain bytes from the ring,
 * waiting for the thread until the deadline.
 */
static ssize_t
conn_ra_take(struct conn *c, void *p, size_t n, int64_t deadline,
    struct cerr *err)
{
	ssize_t	 r;

	r = connra_take(c->ra, p, n, deadline, 0, &c->wused, err);
	if (r == CONNRA_WAIT) {
		/* About to wait for the peer: it may wait for us. */
		if (!c->wfail && ((c->idle != NULL &&
		    c->idle(c->idlearg, err) == -1) ||
		    conn_flush(c, err) == -1))
			return -1;
		r = connra_take(c->ra, p, n, deadline, 1, &c->wused, err);
	}
	if (r == CONNRA_TIMEOUT) {
		c->timedout = 1;
		cerr_set(err, "%s: timed out waiting for data", c->peer);
		return -1;
	}
	if (r > 0)
		c->st.raw_in += (uint64_t)r;
	return r;
}

int
conn_readahead(struct conn *c, struct cerr *err)
{
	int	 r;

	/* TLS reads and writes one session object: not from two threads. */
	if (c->ra != NULL || c->fops == NULL || c->tls != NULL ||
	    c->wskiplf)
		return 1;
	r = connra_start(&c->ra, c->fd, c->fops, c->farg, c->peer,
	    c->win + c->woff, c->wlen, c->wused, err);
	if (r == 0)
		c->woff = c->wlen = 0;
	return r;
}

/* Stop the thread and forget what it read ahead (the connection ends). */
static void
conn_ra_end(struct conn *c)
{
	if (c->ra == NULL)
		return;
	connra_end(c->ra, &c->st.wire_in, &c->wused);
	c->ra = NULL;
}

/*
 * Produce up to n plain bytes at p, reading the transport as needed.
 * Returns > 0, 0 at a clean end of stream, -1 on error.
 */
static ssize_t
conn_produce(struct conn *c, void *p, size_t n, int64_t deadline,
    struct cerr *err)
{
	const unsigned char	*zp;
	struct cerr		 zerr;
	size_t			 zlen;
	ssize_t			 r;

	if (c->fops == NULL) {
		if ((r = io_read(c, p, n, deadline, err)) > 0)
			c->st.raw_in += (uint64_t)r;
		return r;
	}
	if (c->ra != NULL)
		return conn_ra_take(c, p, n, deadline, err);
	for (;;) {
		zp = c->win + c->woff;
		zlen = c->wlen;
		r = c->fops->decode(c->farg, &zp, &c->wlen, p, n, &zerr);
		c->wused += zlen - c->wlen;
		if (r == -1) {
			cerr_set(err, "%s: %s", c->peer, zerr.msg);
			return -1;
		}
		c->woff = (size_t)(zp - c->win);
		if (r > 0) {
			c->st.raw_in += (uint64_t)r;
			return r;
		}
		if ((r = conn_zread(c, deadline, err)) <= 0)
			return r;
	}
}

/*
 * Append more input to the line buffer.  Returns > 0, 0 at EOF, -1.
 * With a filter, decode at most lim bytes: a line reader asks for
 * no more than could still belong to a line within its cap.
 */
static ssize_t
conn_fill(struct conn *c, int64_t deadline, size_t lim, struct cerr *err)
{
	size_t	 space;
	ssize_t	 r;

	space = conn_inspace(c);
	if (c->fops != NULL && space > lim)
		space = lim;
	r = conn_produce(c, c->in + c->ioff + c->ilen, space, deadline, err);
	if (r > 0)
		c->ilen += (size_t)r;
	return r;
}

static void
conn_consume(struct conn *c, size_t n)
{
	c->ioff += n;
	c->ilen -= n;
	c->iscan = 0;
	if (c->ilen == 0)
		c->ioff = 0;
}

ssize_t
conn_getline(struct conn *c, char **line, struct cerr *err)
{
	return conn_getline_until(c, line, conn_deadline(c), c->maxline, err);
}

ssize_t
conn_getline_until(struct conn *c, char **line, int64_t deadline, size_t max,
    struct cerr *err)
{
	struct cerr	 ferr;
	unsigned char	*p, ch = 0;
	size_t		 i, len;
	ssize_t		 r;
	int64_t		 waitd = -1, lined = -1, d, phase;
	int		 begun = 0;

	if (max > c->maxline)
		max = c->maxline;
	if (c->linewait >= 0)
		waitd = now_ms() + c->linewait;
	c->timedout = 0;
	for (;;) {
		if (c->skiplf && c->ilen > 0) {
			c->skiplf = 0;
			if (c->in[c->ioff] == '\n')
				conn_consume(c, 1);
		}
		for (i = c->iscan; i < c->ilen; i++) {
			ch = c->in[c->ioff + i];
			if (ch == '\n' || ch == '\r' || ch == '\0')
				break;
		}
		if (i < c->ilen) {
			p = c->in + c->ioff;
			if (i > max)
				goto toolong;
			len = i;
			p[len] = '\0';
			if (ch == '\r') {
				if (len + 1 < c->ilen) {
					if (p[len + 1] == '\n')
						i++;
				} else
					c->skiplf = 1;
			}
			if (c->fops != NULL && c->fops->lines != NULL &&
			    c->fops->lines(c->farg, i + 1, c->wused,
			    &ferr) == -1) {
				cerr_set(err, "%s: %s", c->peer, ferr.msg);
				return -1;
			}
			conn_consume(c, i + 1);
			*line = (char *)p;
			if (c->trace != NULL)
				c->trace(c->tracearg, CONN_TRACE_IN, *line,
				    len);
			return (ssize_t)len;
		}
		c->iscan = c->ilen;
		if (c->ilen > max)
			goto toolong;
		/*
		 * Until the line begins, wait at most linewait; from its
		 * first byte, the rest must follow within linetime.  The
		 * caller's deadline holds throughout.
		 */
		if (!begun && c->ilen > 0) {
			begun = 1;
			if (c->linetime >= 0)
				lined = now_ms() + c->linetime;
		}
		phase = begun ? lined : waitd;
		d = deadline;
		if (phase != -1 && (d < 0 || phase < d))
			d = phase;
		if ((r = conn_fill(c, d, max + 1 - c->ilen, err)) == -1) {
			if (c->timedout && d == phase && d != deadline &&
			    now_ms() >= phase)
				cerr_set(err, begun ? "%s: line not complete "
				    "%g s after it began" : "%s: no line in %g s",
				    c->peer, (begun ? c->linetime :
				    c->linewait) / 1000.0);
			return -1;
		}
		if (r == 0) {
			if (c->ilen > 0)
				cerr_set(err, "%s: connection closed in the "
				    "middle of a line", c->peer);
			else {
				c->eof = 1;
				cerr_set(err, "%s: connection closed",
				    c->peer);
			}
			return -1;
		}
	}
toolong:
	c->toolong = 1;
	cerr_set(err, "%s: line longer than %zu bytes", c->peer, max);
	return -1;
}

ssize_t
conn_read(struct conn *c, void *buf, size_t len, struct cerr *err)
{
	int64_t	 deadline = conn_deadline(c);
	ssize_t	 r;

	if (len == 0)
		return 0;
	if (c->skiplf) {
		if (c->ilen == 0) {
			if ((r = conn_fill(c, deadline, (size_t)-1, err)) == -1)
				return -1;
			if (r == 0)
				goto eof;
		}
		c->skiplf = 0;
		if (c->in[c->ioff] == '\n')
			conn_consume(c, 1);
	}
	if (c->ilen > 0) {
		if (len > c->ilen)
			len = c->ilen;
		memcpy(buf, c->in + c->ioff, len);
		conn_consume(c, len);
		return (ssize_t)len;
	}
	if ((r = conn_produce(c, buf, len, deadline, err)) == -1)
		return -1;
	if (r > 0)
		return r;
eof:
	c->eof = 1;
	cerr_set(err, "%s: connection closed", c->peer);
	return -1;
}

/* The filter codes len bytes onto wout (conn_filter's encode). */
static int
conn_encode(struct conn *c, const void *p, size_t len, int flush,
    struct cerr *err)
{
	struct cerr	 ferr;

	if (c->fops->encode(c->farg, p, len, flush, c->wout, &ferr) == -1) {
		cerr_set(err, "%s: %s", c->peer, ferr.msg);
		return -1;
	}
	return 0;
}

/* Write what the filter made, and tell it so. */
static int
conn_wire_push(struct conn *c, int64_t deadline, struct cerr *err)
{
	struct cerr	 ferr;

	if (io_write(c, buf_data(c->wout), buf_len(c->wout), deadline,
	    err) == -1)
		return -1;
	buf_reset(c->wout);
	if (c->fops->sent(c->farg, c->wout, &ferr) == -1) {
		cerr_set(err, "%s: %s", c->peer, ferr.msg);
		return -1;
	}
	return 0;
}

/*
 * Push queued output towards the peer.  flush: CONN_FLUSH_NONE (just
 * move what is queued), CONN_FLUSH_SYNC or CONN_FLUSH_FULL (and end the
 * coded data on a byte boundary).
 */
static int
conn_push(struct conn *c, int flush, int64_t deadline, struct cerr *err)
{
	int		 r;

	if (c->wfail) {
		buf_reset(c->out);
		buf_reset(c->wout);
		cerr_set(err, "%s: connection lost while sending", c->peer);
		return -1;
	}
	if (c->fops == NULL) {
		if (buf_len(c->out) == 0)
			return 0;
		r = io_write(c, buf_data(c->out), buf_len(c->out), deadline,
		    err);
		buf_reset(c->out);
		return r;
	}
	if (buf_len(c->out) > 0 || flush != CONN_FLUSH_NONE) {
		if (conn_encode(c, buf_data(c->out), buf_len(c->out), flush,
		    err) == -1)
			return -1;
		buf_reset(c->out);
	}
	if (buf_len(c->wout) == 0)
		return 0;
	return conn_wire_push(c, deadline, err);
}

int
conn_flush(struct conn *c, struct cerr *err)
{
	return conn_push(c, CONN_FLUSH_SYNC, conn_deadline(c), err);
}

int
conn_flush_full(struct conn *c, struct cerr *err)
{
	return conn_push(c, c->fops != NULL ? CONN_FLUSH_FULL : CONN_FLUSH_SYNC,
	    conn_deadline(c), err);
}

int
conn_write(struct conn *c, const void *p, size_t n, struct cerr *err)
{
	const unsigned char	*q = p;
	int64_t			 deadline = conn_deadline(c);
	size_t			 piece;

	if (c->wfail) {
		cerr_set(err, "%s: connection lost while sending", c->peer);
		return -1;
	}
	c->st.raw_out += n;
	if (buf_len(c->out) + n <= CONN_IOSIZE) {
		if (buf_add(c->out, p, n) == -1)
			goto full;
		if (buf_len(c->out) == CONN_IOSIZE)
			return conn_push(c, CONN_FLUSH_NONE, deadline, err);
		return 0;
	}
	if (conn_push(c, CONN_FLUSH_NONE, deadline, err) == -1)
		return -1;
	if (n < CONN_IOSIZE) {
		if (buf_add(c->out, p, n) == -1)
			goto full;
		return 0;
	}
	/* Large block: send it without copying it into the queue. */
	if (c->fops == NULL)
		return io_write(c, p, n, deadline, err);
	while (n > 0) {
		piece = n > CONN_IOSIZE ? CONN_IOSIZE : n;
		if (conn_encode(c, q, piece, CONN_FLUSH_NONE, err) == -1)
			return -1;
		q += piece;
		n -= piece;
		if (buf_len(c->wout) > 0) {
			if (conn_wire_push(c, deadline, err) == -1)
				return -1;
		}
	}
	return 0;
full:
	cerr_set(err, "%s: output buffer full", c->peer);
	return -1;
}

int
conn_printf(struct conn *c, struct cerr *err, const char *fmt, ...)
{
	va_list	 ap;
	char	 small[1024], *s = small;
	int	 n, r;
	size_t	 len;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		cerr_set(err, "%s: bad output format", c->peer);
		return -1;
	}
	if ((size_t)n >= sizeof(small)) {
		s = xmalloc((size_t)n + 1);
		va_start(ap, fmt);
		(void)vsnprintf(s, (size_t)n + 1, fmt, ap);
		va_end(ap);
	}
	if (c->trace != NULL) {
		len = (size_t)n;
		while (len > 0 && (s[len - 1] == '\n' || s[len - 1] == '\r'))
			len--;
		c->trace(c->tracearg, CONN_TRACE_OUT, s, len);
	}
	r = conn_write(c, s, (size_t)n, err);
	if (s != small)
		free(s);
	return r;
}

int
conn_set_filter(struct conn *c, const struct conn_filter *ops, void *arg,
    struct cerr *err)
{
	size_t	 n;

	if (c->fops != NULL) {
		cerr_set(err, "%s: a filter is on already", c->peer);
		return -1;
	}
	if (conn_push(c, CONN_FLUSH_SYNC, conn_deadline(c), err) == -1)
		return -1;
	c->fops = ops;
	c->farg = arg;
	if (c->skiplf && c->ilen > 0) {
		c->skiplf = 0;
		if (c->in[c->ioff] == '\n')
			conn_consume(c, 1);
	}
	c->wskiplf = c->skiplf;
	c->skiplf = 0;
	/* Read-ahead past the switch point is coded data. */
	n = c->ilen;
	c->wcap = n > CONN_IOSIZE ? n : CONN_IOSIZE;
	c->win = xmalloc(c->wcap);
	if (n > 0)
		memcpy(c->win, c->in + c->ioff, n);
	c->woff = 0;
	c->wlen = n;
	c->st.raw_in -= n;
	conn_consume(c, n);
	return 0;
}

void *
conn_filter(const struct conn *c, const struct conn_filter *ops)
{
	return c->fops != NULL && c->fops == ops ? c->farg : NULL;
}

int
conn_filtered(const struct conn *c)
{
	return c->fops != NULL;
}

int
conn_drain(struct conn *c, struct cerr *err)
{
	if (buf_len(c->out) == 0)
		return 0;
	if (conn_encode(c, buf_data(c->out), buf_len(c->out),
	    CONN_FLUSH_NONE, err) == -1)
		return -1;
	buf_reset(c->out);
	return 0;
}

size_t
conn_queued(const struct conn *c)
{
	return buf_len(c->out);
}

int
conn_wire_queue(struct conn *c, const void *p, size_t n, struct cerr *err)
{
	if (n == 0)
		return 0;
	if (c->wfail) {
		cerr_set(err, "%s: connection lost while sending", c->peer);
		return -1;
	}
	if (buf_add(c->wout, p, n) == -1) {
		cerr_set(err, "%s: coded output buffer full", c->peer);
		return -1;
	}
	if (buf_len(c->wout) < CONN_IOSIZE)
		return 0;
	if (io_write(c, buf_data(c->wout), buf_len(c->wout),
	    conn_deadline(c), err) == -1)
		return -1;
	buf_reset(c->wout);
	return 0;
}

void
conn_set_timing(struct conn *c, int on)
{
	c->timing = on;
}

void
conn_waits(const struct conn *c, uint64_t *stall, uint64_t *idle)
{
	*stall = c->stall_ns;
	*idle = c->idle_ns;
}

void
conn_note(struct conn *c, const char *note)
{
	if (c->trace != NULL)
		c->trace(c->tracearg, CONN_TRACE_NOTE, note, strlen(note));
}

size_t
conn_pending(const struct conn *c)
{
	/* The thread's: no more to say than that it has some. */
	if (c->ra != NULL)
		return c->ilen + connra_pending(c->ra);
	if (c->fops != NULL)
		return c->ilen + c->wlen;
	if (c->skiplf && c->ilen > 0 && c->in[c->ioff] == '\n')
		return c->ilen - 1;
	return c->ilen;
}

struct tls *
conn_tls(const struct conn *c)
{
	return c->tls;
}

/*
 * After a line that ended in a bare CR, the LF of its CRLF may still be
 * on its way, in clear, in front of the peer's first TLS record: eat it.
 * wait: how long to wait for a byte (the server waits: its peer sends
 * first; a client must not, as its peer waits for the ClientHello).
 */
static int
conn_eatlf(struct conn *c, int64_t deadline, int wait, struct cerr *err)
{
	char	 ch;
	ssize_t	 r;

	if (!c->skiplf)
		return 0;
	if (c->ilen > 0) {
		c->skiplf = 0;
		if (c->in[c->ioff] == '\n')
			conn_consume(c, 1);
		return 0;
	}
	c->skiplf = 0;
	for (;;) {
		r = recv(c->fd, &ch, 1, MSG_PEEK);
		if (r == 1) {
			if (ch == '\n')
				(void)recv(c->fd, &ch, 1, 0);
			return 0;
		}
		if (r == 0)
			return 0;	/* the handshake will say so */
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			cerr_errno(err, "%s: read", c->peer);
			return -1;
		}
		if (!wait)
			return 0;
		if (conn_wait(c, POLLIN, deadline, err) == -1)
			return -1;
	}
}

int
conn_starttls(struct conn *c, struct tlsctx *ctx, const char *host,
    struct cerr *err)
{
	struct cerr	 terr;
	int64_t		 deadline = conn_deadline(c);
	int		 r;

	if (c->tls != NULL) {
		cerr_set(err, "%s: TLS already started", c->peer);
		return -1;
	}
	if (c->fops != NULL) {
		cerr_set(err, "%s: TLS cannot start under compression",
		    c->peer);
		return -1;
	}
	if (conn_push(c, CONN_FLUSH_SYNC, deadline, err) == -1)
		return -1;
	if (conn_eatlf(c, deadline, host == NULL, err) == -1)
		return -1;
	if (c->ilen > 0) {
		cerr_set(err, "%s: %zu bytes received in clear after STARTTLS "
		    "before the TLS handshake", c->peer, c->ilen);
		return -1;
	}
	/* From here on nothing in clear is read: the buffer is empty. */
	c->ioff = 0;
	c->iscan = 0;
	if ((c->tls = tls_new(ctx, c->fd, host, &terr)) == NULL) {
		cerr_set(err, "%s: %s", c->peer, terr.msg);
		return -1;
	}
	for (;;) {
		r = tls_handshake(c->tls, &terr);
		if (r == 0)
			return 0;
		if (r == -1) {
			cerr_set(err, "%s: %s", c->peer, terr.msg);
			return -1;
		}
		if (io_tlswait(c, r, deadline, err) == -1)
			return -1;
	}
}
