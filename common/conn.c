/*
 * conn.c: one protocol connection (conn.h): its transport, its input
 * and output sides and the stream filter between them.
 *
 * Data path, bottom up:
 *   transport --> win --(filter decode)--> connin: lines / blocks
 *   connout: out --(filter encode)--> wout --> transport
 * Without a filter win is unused and bytes go straight between the
 * transport and the input side.  The transport is the socket, or after
 * conn_starttls a TLS session on it (so a filter, installed later,
 * sits above TLS: code, then encrypt).  After conn_readahead (filtered,
 * no TLS) a thread of the connection owns the read side below connin:
 * it reads and decodes into a ring ahead of the reader, and
 * conn_produce takes from the ring.
 *
 * The pieces below never call conn by name: connin asks for more input
 * through conn_produce, the transport runs conn_prewait before it
 * waits for the peer.
 */
#include "config.h"

#include <sys/types.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cerr.h"
#include "conn.h"
#include "connin.h"
#include "connout.h"
#include "connra.h"
#include "xmalloc.h"

#define CONN_TIMEOUT	60000		/* default per-call deadline, ms */

struct conn {
	struct transport *tp;
	struct connin	*in;
	struct connout	*out;
	int		 timeout;
	conn_trace_fn	 trace;		/* NULL: none */
	void		*tracearg;
	conn_idle_fn	 idle;		/* NULL: none */
	void		*idlearg;

	/* Coded input not yet decoded: win[woff .. woff+wlen). */
	unsigned char	*win;
	size_t		 wcap, woff, wlen;
	int		 wskiplf;	/* an LF owed from before the switch */
	uint64_t	 wused;		/* coded bytes decoded so far */
	const struct conn_filter *fops;	/* the filter, NULL: none */
	void		*farg;

	struct connra	*ra;		/* after conn_readahead, or NULL */
	uint64_t	 ra_in;		/* bytes read by ended read-aheads */
	uint64_t	 raw_in;	/* plain bytes produced */
};

static ssize_t	conn_produce(void *, void *, size_t, int64_t, struct cerr *);
static void	conn_ra_end(struct conn *);

int64_t
conn_now(void)
{
	return transport_now();
}

int64_t
conn_deadline(const struct conn *c)
{
	return c->timeout < 0 ? -1 : transport_now() + c->timeout;
}

/*
 * About to wait for the peer, who may be waiting for us: let the idle
 * hook do what it held back, and push what is queued.
 */
static int
conn_prewait(void *arg, struct cerr *err)
{
	struct conn	*c = arg;

	if (transport_failed(c->tp))
		return 0;
	if (c->idle != NULL && c->idle(c->idlearg, err) == -1)
		return -1;
	return conn_flush(c, err);
}

struct conn *
conn_new(int fd, const char *peer)
{
	struct conn	*c;

	c = xcalloc(1, sizeof(*c));
	c->tp = transport_new(fd, peer);
	transport_set_hook(c->tp, conn_prewait, c);
	c->in = connin_new(c->tp, conn_produce, c);
	connin_set_maxline(c->in, CONN_MAXLINE);
	c->out = connout_new(c->tp, CONN_IOSIZE + CONN_MAXLINE + 4096);
	c->timeout = CONN_TIMEOUT;
	return c;
}

void
conn_free(struct conn *c)
{
	if (c == NULL)
		return;
	conn_ra_end(c);
	transport_free(c->tp);
	if (c->fops != NULL)
		c->fops->free(c->farg);
	connout_free(c->out);
	connin_free(c->in);
	free(c->win);
	free(c);
}

void
conn_close(struct conn *c)
{
	if (c == NULL)
		return;
	conn_ra_end(c);
	(void)conn_flush(c, NULL);
	transport_shutdown(c->tp);
	conn_free(c);
}

const char *
conn_peer(const struct conn *c)
{
	return transport_peer(c->tp);
}

void
conn_set_peer(struct conn *c, const char *peer)
{
	transport_set_peer(c->tp, peer);
}

int
conn_fd(const struct conn *c)
{
	return transport_fd(c->tp);
}

void
conn_set_timeout(struct conn *c, int ms)
{
	c->timeout = ms;
}

void
conn_set_maxline(struct conn *c, size_t max)
{
	connin_set_maxline(c->in, max);
}

void
conn_set_linetimes(struct conn *c, int wait, int line)
{
	connin_set_linetimes(c->in, wait, line);
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
	return connin_eof(c->in);
}

int
conn_toolong(const struct conn *c)
{
	return connin_toolong(c->in);
}

void
conn_stats(const struct conn *c, struct connstats *st)
{
	memset(st, 0, sizeof(*st));
	transport_bytes(c->tp, &st->wire_in, &st->wire_out);
	st->wire_in += c->ra_in;
	st->raw_in = c->raw_in;
	st->raw_out = connout_raw(c->out);
	if (c->fops != NULL)
		c->fops->stats(c->farg, st);
	if (c->ra != NULL)
		st->wire_in += connra_wire_in(c->ra);
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
	r = transport_read(c->tp, c->win + c->woff + c->wlen,
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
		if (conn_prewait(c, err) == -1)
			return -1;
		r = connra_take(c->ra, p, n, deadline, 1, &c->wused, err);
	}
	if (r == CONNRA_TIMEOUT) {
		cerr_set(err, "%s: timed out waiting for data",
		    transport_peer(c->tp));
		return CONNIN_TIMEOUT;
	}
	if (r > 0)
		c->raw_in += (uint64_t)r;
	return r;
}

int
conn_readahead(struct conn *c, struct cerr *err)
{
	int	 r;

	/* TLS reads and writes one session object: not from two threads. */
	if (c->ra != NULL || c->fops == NULL ||
	    transport_tls(c->tp) != NULL || c->wskiplf)
		return 1;
	r = connra_start(&c->ra, transport_fd(c->tp), c->fops, c->farg,
	    transport_peer(c->tp), c->win + c->woff, c->wlen, c->wused, err);
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
	connra_end(c->ra, &c->ra_in, &c->wused);
	c->ra = NULL;
}

/* Plain input from the transport, through the filter if there is one. */
static ssize_t
conn_decode(struct conn *c, void *p, size_t n, int64_t deadline,
    struct cerr *err)
{
	const unsigned char	*zp;
	struct cerr		 zerr;
	size_t			 zlen;
	ssize_t			 r;

	if (c->fops == NULL)
		return transport_read(c->tp, p, n, deadline, err);
	for (;;) {
		zp = c->win + c->woff;
		zlen = c->wlen;
		r = c->fops->decode(c->farg, &zp, &c->wlen, p, n, &zerr);
		c->wused += zlen - c->wlen;
		if (r == -1) {
			cerr_set(err, "%s: %s", transport_peer(c->tp),
			    zerr.msg);
			return -1;
		}
		c->woff = (size_t)(zp - c->win);
		if (r > 0)
			return r;
		if ((r = conn_zread(c, deadline, err)) <= 0)
			return r;
	}
}

/*
 * The input side's produce (connin.h): up to n plain bytes at p.
 * A failure is CONNIN_TIMEOUT once a wait of the line read ran out of
 * time, whatever failed after it.
 */
static ssize_t
conn_produce(void *arg, void *p, size_t n, int64_t deadline,
    struct cerr *err)
{
	struct conn	*c = arg;
	ssize_t		 r;

	if (c->ra != NULL)
		r = conn_ra_take(c, p, n, deadline, err);
	else if ((r = conn_decode(c, p, n, deadline, err)) > 0)
		c->raw_in += (uint64_t)r;
	if (r == -1 && transport_timedout(c->tp))
		r = CONNIN_TIMEOUT;
	return r;
}

ssize_t
conn_getline(struct conn *c, char **line, struct cerr *err)
{
	return conn_getline_until(c, line, conn_deadline(c), SIZE_MAX, err);
}

ssize_t
conn_getline_until(struct conn *c, char **line, int64_t deadline, size_t max,
    struct cerr *err)
{
	struct cerr	 ferr;
	size_t		 took;
	ssize_t		 len;

	transport_timedout_reset(c->tp);
	if ((len = connin_line(c->in, line, &took, deadline, max, err)) == -1)
		return -1;
	if (c->fops != NULL && c->fops->lines != NULL &&
	    c->fops->lines(c->farg, took, c->wused, &ferr) == -1) {
		cerr_set(err, "%s: %s", transport_peer(c->tp), ferr.msg);
		return -1;
	}
	connin_consume(c->in, took);
	if (c->trace != NULL)
		c->trace(c->tracearg, CONN_TRACE_IN, *line, (size_t)len);
	return len;
}

ssize_t
conn_read(struct conn *c, void *buf, size_t len, struct cerr *err)
{
	return connin_read(c->in, buf, len, conn_deadline(c), err);
}

ssize_t
conn_read_until(struct conn *c, void *buf, size_t len, int64_t deadline,
    struct cerr *err)
{
	return connin_read(c->in, buf, len, deadline, err);
}

int
conn_flush(struct conn *c, struct cerr *err)
{
	return connout_push(c->out, CONN_FLUSH_SYNC, conn_deadline(c), err);
}

int
conn_flush_full(struct conn *c, struct cerr *err)
{
	return connout_push(c->out, c->fops != NULL ? CONN_FLUSH_FULL :
	    CONN_FLUSH_SYNC, conn_deadline(c), err);
}

int
conn_write(struct conn *c, const void *p, size_t n, struct cerr *err)
{
	return connout_write(c->out, p, n, conn_deadline(c), err);
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
		cerr_set(err, "%s: bad output format", transport_peer(c->tp));
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
	const unsigned char	*p;
	size_t			 n;

	if (c->fops != NULL) {
		cerr_set(err, "%s: a filter is on already",
		    transport_peer(c->tp));
		return -1;
	}
	if (connout_push(c->out, CONN_FLUSH_SYNC, conn_deadline(c), err) == -1)
		return -1;
	c->fops = ops;
	c->farg = arg;
	connout_set_filter(c->out, ops, arg);
	connin_set_bounded(c->in, 1);
	c->wskiplf = connin_lf(c->in);
	/* Read-ahead past the switch point is coded data. */
	n = connin_buffered(c->in, &p);
	c->wcap = n > CONN_IOSIZE ? n : CONN_IOSIZE;
	c->win = xmalloc(c->wcap);
	if (n > 0)
		memcpy(c->win, p, n);
	c->woff = 0;
	c->wlen = n;
	c->raw_in -= n;
	connin_consume(c->in, n);
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
	return connout_drain(c->out, err);
}

size_t
conn_queued(const struct conn *c)
{
	return connout_queued(c->out);
}

int
conn_wire_queue(struct conn *c, const void *p, size_t n, struct cerr *err)
{
	return connout_wire_queue(c->out, p, n, conn_deadline(c), err);
}

void
conn_set_timing(struct conn *c, int on)
{
	transport_set_timing(c->tp, on);
}

void
conn_waits(const struct conn *c, uint64_t *stall, uint64_t *idle)
{
	transport_waits(c->tp, stall, idle);
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
		return connin_buffered(c->in, NULL) + connra_pending(c->ra);
	if (c->fops != NULL)
		return connin_buffered(c->in, NULL) + c->wlen;
	return connin_pending(c->in);
}

struct tls *
conn_tls(const struct conn *c)
{
	return transport_tls(c->tp);
}

int
conn_starttls(struct conn *c, struct tlsctx *ctx, const char *host,
    struct cerr *err)
{
	int64_t	 deadline = conn_deadline(c);
	size_t	 n;

	if (transport_tls(c->tp) != NULL) {
		cerr_set(err, "%s: TLS already started", transport_peer(c->tp));
		return -1;
	}
	if (c->fops != NULL) {
		cerr_set(err, "%s: TLS cannot start under compression",
		    transport_peer(c->tp));
		return -1;
	}
	if (connout_push(c->out, CONN_FLUSH_SYNC, deadline, err) == -1)
		return -1;
	/*
	 * After a line that ended in a bare CR, the LF of its CRLF may
	 * still be on its way, in clear, in front of the peer's first TLS
	 * record: eat it.
	 */
	if (connin_lf(c->in) &&
	    transport_eatlf(c->tp, deadline, host == NULL, err) == -1)
		return -1;
	if ((n = connin_buffered(c->in, NULL)) > 0) {
		cerr_set(err, "%s: %zu bytes received in clear after STARTTLS "
		    "before the TLS handshake", transport_peer(c->tp), n);
		return -1;
	}
	/* From here on nothing in clear is read: the buffer is empty. */
	return transport_starttls(c->tp, ctx, host, deadline, err);
}
