/*
 * connout.c: queued, optionally coded output of a connection (connout.h).
 *
 *   out --(filter encode)--> wout --(transport_write)--> the peer
 * Without a filter wout is unused and out goes straight to the
 * transport.
 */
#include "config.h"

#include <sys/types.h>

#include <stdlib.h>

#include "buf.h"
#include "cerr.h"
#include "connfilter.h"
#include "connout.h"
#include "transport.h"
#include "xmalloc.h"

struct connout {
	struct transport *tp;
	struct buf	*out;		/* plain output queued */
	struct buf	*wout;		/* coded output not yet written */
	const struct conn_filter *fops;	/* the filter, NULL: none */
	void		*farg;
	uint64_t	 raw;		/* plain bytes written */
};

struct connout *
connout_new(struct transport *tp, size_t cap)
{
	struct connout	*o;

	o = xcalloc(1, sizeof(*o));
	o->tp = tp;
	o->out = buf_new(cap);
	o->wout = buf_new(8 * TRANSPORT_IOSIZE + 65536);
	return o;
}

void
connout_free(struct connout *o)
{
	if (o == NULL)
		return;
	buf_free(o->out);
	buf_free(o->wout);
	free(o);
}

void
connout_set_filter(struct connout *o, const struct conn_filter *ops,
    void *arg)
{
	o->fops = ops;
	o->farg = arg;
}

/* A write failed before: every later one fails at once. */
static int
connout_lost(struct connout *o, struct cerr *err)
{
	cerr_set(err, "%s: connection lost while sending",
	    transport_peer(o->tp));
	return -1;
}

/* The filter codes len bytes onto wout. */
static int
connout_encode(struct connout *o, const void *p, size_t len, int flush,
    struct cerr *err)
{
	struct cerr	 ferr;

	if (o->fops->encode(o->farg, p, len, flush, o->wout, &ferr) == -1) {
		cerr_set(err, "%s: %s", transport_peer(o->tp), ferr.msg);
		return -1;
	}
	return 0;
}

/* Write what the filter made, and tell it so. */
static int
connout_wire_push(struct connout *o, int64_t deadline, struct cerr *err)
{
	struct cerr	 ferr;

	if (transport_write(o->tp, buf_data(o->wout), buf_len(o->wout),
	    deadline, err) == -1)
		return -1;
	buf_reset(o->wout);
	if (o->fops->sent(o->farg, o->wout, &ferr) == -1) {
		cerr_set(err, "%s: %s", transport_peer(o->tp), ferr.msg);
		return -1;
	}
	return 0;
}

int
connout_push(struct connout *o, int flush, int64_t deadline,
    struct cerr *err)
{
	int		 r;

	if (transport_failed(o->tp)) {
		buf_reset(o->out);
		buf_reset(o->wout);
		return connout_lost(o, err);
	}
	if (o->fops == NULL) {
		if (buf_len(o->out) == 0)
			return 0;
		r = transport_write(o->tp, buf_data(o->out), buf_len(o->out),
		    deadline, err);
		buf_reset(o->out);
		return r;
	}
	if (buf_len(o->out) > 0 || flush != CONN_FLUSH_NONE) {
		if (connout_encode(o, buf_data(o->out), buf_len(o->out), flush,
		    err) == -1)
			return -1;
		buf_reset(o->out);
	}
	if (buf_len(o->wout) == 0)
		return 0;
	return connout_wire_push(o, deadline, err);
}

int
connout_write(struct connout *o, const void *p, size_t n, int64_t deadline,
    struct cerr *err)
{
	const unsigned char	*q = p;
	size_t			 piece;

	if (transport_failed(o->tp))
		return connout_lost(o, err);
	o->raw += n;
	if (buf_len(o->out) + n <= TRANSPORT_IOSIZE) {
		if (buf_add(o->out, p, n) == -1)
			goto full;
		if (buf_len(o->out) == TRANSPORT_IOSIZE)
			return connout_push(o, CONN_FLUSH_NONE, deadline, err);
		return 0;
	}
	if (connout_push(o, CONN_FLUSH_NONE, deadline, err) == -1)
		return -1;
	if (n < TRANSPORT_IOSIZE) {
		if (buf_add(o->out, p, n) == -1)
			goto full;
		return 0;
	}
	/* Large block: send it without copying it into the queue. */
	if (o->fops == NULL)
		return transport_write(o->tp, p, n, deadline, err);
	while (n > 0) {
		piece = n > TRANSPORT_IOSIZE ? TRANSPORT_IOSIZE : n;
		if (connout_encode(o, q, piece, CONN_FLUSH_NONE, err) == -1)
			return -1;
		q += piece;
		n -= piece;
		if (buf_len(o->wout) > 0) {
			if (connout_wire_push(o, deadline, err) == -1)
				return -1;
		}
	}
	return 0;
full:
	cerr_set(err, "%s: output buffer full", transport_peer(o->tp));
	return -1;
}

int
connout_drain(struct connout *o, struct cerr *err)
{
	if (buf_len(o->out) == 0)
		return 0;
	if (connout_encode(o, buf_data(o->out), buf_len(o->out),
	    CONN_FLUSH_NONE, err) == -1)
		return -1;
	buf_reset(o->out);
	return 0;
}

size_t
connout_queued(const struct connout *o)
{
	return buf_len(o->out);
}

int
connout_wire_queue(struct connout *o, const void *p, size_t n,
    int64_t deadline, struct cerr *err)
{
	if (n == 0)
		return 0;
	if (transport_failed(o->tp))
		return connout_lost(o, err);
	if (buf_add(o->wout, p, n) == -1) {
		cerr_set(err, "%s: coded output buffer full",
		    transport_peer(o->tp));
		return -1;
	}
	if (buf_len(o->wout) < TRANSPORT_IOSIZE)
		return 0;
	if (transport_write(o->tp, buf_data(o->wout), buf_len(o->wout),
	    deadline, err) == -1)
		return -1;
	buf_reset(o->wout);
	return 0;
}

uint64_t
connout_raw(const struct connout *o)
{
	return o->raw;
}
