/*
 * reqwin.h: the requests a client keeps in flight over one session
 * (lapply, ktcheck, cairn-replicate), on top of the one download routine
 * (download.h).  The server answers in request order, so the window is a
 * queue: items wait to be requested, are requested while the window has
 * room, and their replies are received oldest first.  The window knows
 * nothing of what an item is: the caller's ops send an item's request
 * and receive its reply (through dl_file or dl_req_recv).  Over
 * several sessions at once, see reqpool.h.
 */
#ifndef CAIRN_REQWIN_H
#define CAIRN_REQWIN_H

#include <stddef.h>
#include <stdint.h>

struct cerr;
struct net;
struct reqwin;

/*
 * The window must cover the link's bandwidth-delay product in replies:
 * 100 Mbit/s and 50 ms hold some 600 KB, 200 small files.  Its request
 * bytes stay well inside the socket send buffer net_open() asks for, so
 * queueing requests never blocks while replies wait unread.
 */
#define REQWIN_MAXREQ	1024		/* requests in flight */
#define REQWIN_MAXBYTES	(64 * 1024)	/* request text in flight */

/* What the window does with the caller's items, called with arg. */
struct reqwin_ops {
	/*
	 * Send item's request (net_send_retr): 0, or -1 with err; or 1,
	 * sending nothing, for "not now" while other requests are in
	 * flight: the window stops filling, and item is the first sent
	 * by a later reqwin_fill (so never return it with nothing in
	 * flight).
	 */
	int	(*send)(void *arg, struct net *, void *item,
		    struct cerr *err);
	/*
	 * Receive the reply to item's request, the oldest outstanding,
	 * through the download routine: its DL_* outcome, err set unless
	 * DL_OK.  ctx is what the caller of reqwin_recv passed.
	 */
	int	(*recv)(void *arg, struct net *, void *item, void *ctx,
		    struct cerr *err);
	/*
	 * An item leaves the window without recv (dropped by reqwin_skip,
	 * reqwin_pop or reqwin_free), or NULL.
	 */
	void	(*drop)(void *arg, void *item);
};

/*
 * A window over net of at most maxreq requests and maxbytes of request
 * text in flight (one request is always let go, whatever its size).
 */
struct reqwin	*reqwin_new(struct net *, size_t maxreq, size_t maxbytes,
		    const struct reqwin_ops *, void *arg);
/* Free the window; items still in it are dropped (ops drop). */
void		 reqwin_free(struct reqwin *);
/* Queue item, whose request is len bytes: requested by reqwin_fill. */
void		 reqwin_add(struct reqwin *, void *item, size_t len);
/*
 * Request queued items, in order, while the window has room.  0, or -1
 * with err if a request could not be sent (the session is unusable).
 */
int		 reqwin_fill(struct reqwin *, struct cerr *err);
/*
 * Queue item and request it at once, first receiving the oldest replies
 * (reqwin_recv with ctx) until it fits.  0, or -1 with err if a reply
 * failed or the request could not be sent.
 */
int		 reqwin_push(struct reqwin *, void *item, size_t len, void *ctx,
		    struct cerr *err);
/*
 * Request item (queued behind any others) and receive every reply up to
 * its own: the DL_* outcome of item, or of the first failure before it.
 */
int		 reqwin_fetch(struct reqwin *, void *item, size_t len,
		    void *ctx, struct cerr *err);
/* The item whose reply comes next, or NULL if none is in flight. */
void		*reqwin_next(const struct reqwin *);
/* The oldest item, requested or not, or NULL if the window is empty. */
void		*reqwin_oldest(const struct reqwin *);
/* Requests in flight; items in the window, requested or not. */
size_t		 reqwin_inflight(const struct reqwin *);
size_t		 reqwin_count(const struct reqwin *);
/*
 * Receive the reply of the oldest request (ops recv with ctx), which
 * leaves the window: its DL_* outcome; DL_DEAD with err if none is in
 * flight.
 */
int		 reqwin_recv(struct reqwin *, void *ctx, struct cerr *err);
/* reqwin_recv until no request is in flight: 0, or -1 at a failure. */
int		 reqwin_recvall(struct reqwin *, void *ctx, struct cerr *err);
/* The oldest item leaves the window unreceived (never requested). */
void		 reqwin_pop(struct reqwin *);
/*
 * Read and throw away the reply of the oldest request, which leaves the
 * window, so that the session stays in step: *budget is the body bytes
 * still allowed and is spent.  0, or -1 with err on a session error or
 * a body larger than *budget.
 */
int		 reqwin_skip(struct reqwin *, int64_t *budget, struct cerr *err);
/*
 * reqwin_skip every reply in flight so the session can still carry a
 * report: gives up (-1) after max body bytes in all.
 */
int		 reqwin_drain(struct reqwin *, int64_t max, struct cerr *err);

#endif
