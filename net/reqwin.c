/*
 * reqwin.c: the requests in flight over one session (reqwin.h).
 *
 * A ring of the caller's items: [first, first + nsent) are requested and
 * wait for their replies, in order; the rest are queued.  Bounded in
 * count and in request bytes, so that requests never fill the socket
 * buffers while replies wait unread.
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cerr.h"
#include "download.h"
#include "net.h"
#include "reqwin.h"
#include "xmalloc.h"

struct reqwin_item {
	void	*item;
	size_t	 len;		/* its request's text */
};

struct reqwin {
	struct net		*net;
	const struct reqwin_ops	*ops;
	void			*arg;
	size_t			 maxreq, maxbytes;
	struct reqwin_item	*v;	/* a ring of cap */
	size_t			 cap;
	size_t			 first;	/* oldest */
	size_t			 n;	/* items in the ring */
	size_t			 nsent;	/* ... of them requested */
	size_t			 bytes;	/* their requests' text */
};

#define REQWIN_AT(w, i)	(&(w)->v[((w)->first + (i)) % (w)->cap])

struct reqwin *
reqwin_new(struct net *net, size_t maxreq, size_t maxbytes,
    const struct reqwin_ops *ops, void *arg)
{
	struct reqwin	*w;

	w = xcalloc(1, sizeof(*w));
	w->net = net;
	w->ops = ops;
	w->arg = arg;
	w->maxreq = maxreq > 0 ? maxreq : 1;
	w->maxbytes = maxbytes;
	return w;
}

void
reqwin_free(struct reqwin *w)
{
	if (w == NULL)
		return;
	while (w->n > 0)
		reqwin_pop(w);
	free(w->v);
	free(w);
}

void
reqwin_add(struct reqwin *w, void *item, size_t len)
{
	struct reqwin_item	*v;
	size_t			 i, cap;

	if (w->n == w->cap) {
		cap = w->cap > 0 ? w->cap * 2 : 16;
		v = xreallocarray(NULL, cap, sizeof(*v));
		for (i = 0; i < w->n; i++)
			v[i] = *REQWIN_AT(w, i);
		free(w->v);
		w->v = v;
		w->cap = cap;
		w->first = 0;
	}
	REQWIN_AT(w, w->n)->item = item;
	REQWIN_AT(w, w->n)->len = len;
	w->n++;
}

/* Room to request one more of len bytes. */
static int
reqwin_room(const struct reqwin *w, size_t len)
{
	return w->nsent == 0 || (w->nsent < w->maxreq &&
	    w->bytes + len <= w->maxbytes);
}

int
reqwin_fill(struct reqwin *w, struct cerr *err)
{
	struct reqwin_item	*it;
	int			 r;

	while (w->nsent < w->n) {
		it = REQWIN_AT(w, w->nsent);
		if (!reqwin_room(w, it->len))
			break;
		if ((r = w->ops->send(w->arg, w->net, it->item, err)) == -1)
			return -1;
		/* Not now: it waits for a reply to be received. */
		if (r == 1)
			break;
		w->nsent++;
		w->bytes += it->len;
	}
	return 0;
}

int
reqwin_push(struct reqwin *w, void *item, size_t len, void *ctx,
    struct cerr *err)
{
	while (!reqwin_room(w, len))
		if (reqwin_recv(w, ctx, err) != DL_OK)
			return -1;
	reqwin_add(w, item, len);
	return reqwin_fill(w, err);
}

int
reqwin_fetch(struct reqwin *w, void *item, size_t len, void *ctx,
    struct cerr *err)
{
	void	*it;
	int	 rc;

	reqwin_add(w, item, len);
	do {
		if (reqwin_fill(w, err) == -1)
			return DL_DEAD;
		it = reqwin_next(w);
		if ((rc = reqwin_recv(w, ctx, err)) != DL_OK)
			return rc;
	} while (it != item);
	return DL_OK;
}

void *
reqwin_next(const struct reqwin *w)
{
	return w->nsent > 0 ? REQWIN_AT(w, 0)->item : NULL;
}

void *
reqwin_oldest(const struct reqwin *w)
{
	return w->n > 0 ? REQWIN_AT(w, 0)->item : NULL;
}

size_t
reqwin_inflight(const struct reqwin *w)
{
	return w->nsent;
}

size_t
reqwin_count(const struct reqwin *w)
{
	return w->n;
}

/* Take the oldest item out of the ring. */
static void *
reqwin_shift(struct reqwin *w)
{
	struct reqwin_item	*it = REQWIN_AT(w, 0);

	if (w->nsent > 0) {
		w->nsent--;
		w->bytes -= it->len;
	}
	w->first = (w->first + 1) % w->cap;
	w->n--;
	return it->item;
}

void
reqwin_pop(struct reqwin *w)
{
	void	*item;

	if (w->n == 0)
		return;
	item = reqwin_shift(w);
	if (w->ops->drop != NULL)
		w->ops->drop(w->arg, item);
}

int
reqwin_recv(struct reqwin *w, void *ctx, struct cerr *err)
{
	void	*item;

	if (w->nsent == 0) {
		cerr_set(err, "%s: no reply is due", net_peer(w->net));
		return DL_DEAD;
	}
	item = reqwin_shift(w);
	return w->ops->recv(w->arg, w->net, item, ctx, err);
}

int
reqwin_recvall(struct reqwin *w, void *ctx, struct cerr *err)
{
	while (w->nsent > 0)
		if (reqwin_recv(w, ctx, err) != DL_OK)
			return -1;
	return 0;
}

int
reqwin_skip(struct reqwin *w, int64_t *budget, struct cerr *err)
{
	int64_t	size;
	int	rc;

	if (w->nsent == 0)
		return 0;
	rc = net_retr_begin(w->net, &size, err);
	reqwin_pop(w);
	if (rc != 0)
		return rc == 1 ? 0 : -1;
	if (size > *budget) {
		cerr_set(err, "not draining a %lld byte reply",
		    (long long)size);
		return -1;
	}
	*budget -= size;
	return dl_skipbody(w->net, err);
}

int
reqwin_drain(struct reqwin *w, int64_t max, struct cerr *err)
{
	while (w->nsent > 0)
		if (reqwin_skip(w, &max, err) == -1)
			return -1;
	return 0;
}
