/*
 * reqpool.h: requests spread over several sessions with the same server
 * (lapply -j), on top of the request window of one session (reqwin.h).
 *
 * Where one TCP stream, or the one compressor core the server spends on
 * a session, limits a transfer, consecutive items go to n sessions: the
 * caller's, and n - 1 more opened as it was (same server and address,
 * TLS, compression).  One worker thread per session claims the next
 * unclaimed items, a few at a time so that the server works on the next
 * one while the current reply is received, sends their requests and
 * receives each reply through the caller's ops (reqwin_ops, called on
 * the worker with that session and its ctx).  Nothing else runs on the
 * workers: the caller queues items and takes the results back strictly
 * in the order it queued them, on its own thread.
 */
#ifndef CAIRN_REQPOOL_H
#define CAIRN_REQPOOL_H

#include <stddef.h>
#include <stdio.h>

struct cerr;
struct net;
struct netopts;
struct netstats;
struct reqpool;
struct reqwin_ops;

struct reqpool_conf {
	int			 n;		/* sessions, the first included */
	size_t			 cap;		/* items not taken back, at most */
	size_t			 inflight;	/* requests in flight a session */
	const struct reqwin_ops	*ops;		/* send, recv (no drop) */
	void			*arg;		/* ... their arg */
	void			**ctx;		/* n: recv's ctx, by session */
	/* Called with arg every 250 ms while reqpool_take waits, or NULL. */
	void			(*tick)(void *);
};

/*
 * Open n - 1 sessions beside first (opened from no, which is not kept)
 * and start a worker for each.  0 with *pool set; -1 with err if a
 * session cannot be opened; 1 if no thread could be started (nothing is
 * left open: the caller then does it all on first).  With fewer threads
 * than sessions, the others stay idle.
 */
int	 reqpool_start(struct reqpool **pool, struct net *first,
	    const struct netopts *no, const struct reqpool_conf *,
	    struct cerr *err);
/*
 * Queue item, whose request is len bytes (the caller keeps the queue
 * below cap: reqpool_count).  reqpool_mark queues an item that needs no
 * request, taken back in its turn as done (DL_OK).
 */
void	 reqpool_add(struct reqpool *, void *item, size_t len);
void	 reqpool_mark(struct reqpool *, void *item);
/* Items queued and not taken back; the i-th of them, oldest first. */
size_t	 reqpool_count(const struct reqpool *);
size_t	 reqpool_cap(const struct reqpool *);
void	*reqpool_item(const struct reqpool *, size_t i);
/* Nonzero if the oldest item is done (reqpool_take would not wait). */
int	 reqpool_done(struct reqpool *);
/*
 * Take back the oldest item, waiting for it: *rc its DL_* outcome, err
 * set unless DL_OK.  NULL if none is queued.
 */
void	*reqpool_take(struct reqpool *, int *rc, struct cerr *err);
/*
 * Every item not taken back now ends unreceived (DL_DEAD, "cancelled");
 * replies already requested are read and thrown away, up to
 * DL_DRAINMAX a session, so that the sessions stay usable.
 */
void	 reqpool_cancel(struct reqpool *);
/*
 * Cancel and end the workers: the caller's session is its own again.
 * Nonzero if that session is unusable.
 */
int	 reqpool_stop(struct reqpool *);
/* After reqpool_stop: the items not taken back, latest first, or NULL. */
void	*reqpool_unqueue(struct reqpool *);
/*
 * The byte counters of every session (the caller's among them) as each
 * worker last published them, summed (level: the highest): the caller
 * never reads a session a worker is using.  reqpool_publish, from a
 * worker's recv, publishes its session's counters now.
 */
void	 reqpool_stats(struct reqpool *, struct netstats *);
void	 reqpool_publish(struct reqpool *, const struct net *);
/*
 * Stop, close the sessions opened here (printing their counters on fp
 * first, unless NULL) and free the pool.
 */
void	 reqpool_free(struct reqpool *, FILE *fp);

#endif
