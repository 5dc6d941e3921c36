/*
 * connra.h: the read-ahead thread of a connection (conn_readahead in
 * conn.h).
 *
 * A thread reads the socket and decodes what it reads through the
 * connection's filter (connfilter.h, struct conn_filter: only its decode
 * operation, which shares no state with the rest) into a bounded ring
 * of CONNRA_SIZE plain bytes, while the connection's reader takes from
 * the ring.  The thread owns the coded input it was given at the start;
 * it has no deadline of its own (the reader keeps its own) and ends
 * when the peer closes, on an error, or at connra_end.
 *
 * Only plain sockets: a TLS session is not shared between threads.
 * conn.c is the only user; connra calls nothing of conn's but the
 * filter's decode.
 */
#ifndef CAIRN_CONNRA_H
#define CAIRN_CONNRA_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cerr;
struct conn_filter;
struct connra;

#define CONNRA_SIZE	(1024 * 1024)	/* plain bytes decoded ahead */
#define CONNRA_WAIT	(-2)		/* connra_take: would wait */
#define CONNRA_TIMEOUT	(-3)		/* connra_take: deadline passed */

/*
 * Start the thread on fd (non-blocking), decoding with ops and arg;
 * the n bytes at pending are coded input already read, and used is how
 * many coded bytes were decoded before them.  peer names the other side
 * in messages.  0: started (*rap), 1: no thread (the caller keeps
 * reading), -1 with err.
 */
int		 connra_start(struct connra **rap, int fd,
		    const struct conn_filter *ops, void *arg,
		    const char *peer, const void *pending, size_t n,
		    uint64_t used, struct cerr *err);
/*
 * Take up to n plain bytes into p.  Returns the count (> 0), 0 at the
 * peer's clean end of stream, -1 with err on the thread's error; when
 * nothing is there yet, CONNRA_WAIT if wait is 0, else it waits until
 * the absolute deadline (transport_now() clock, -1: none) and returns
 * CONNRA_TIMEOUT when it passes.  *used becomes the number of coded
 * bytes decoded up to the last byte taken (as far as the thread's marks
 * tell: at least up to it).
 */
ssize_t		 connra_take(struct connra *, void *p, size_t n,
		    int64_t deadline, int wait, uint64_t *used,
		    struct cerr *err);
/* Plain bytes decoded and not taken yet. */
size_t		 connra_pending(struct connra *);
/* Bytes the thread has read from the socket so far. */
uint64_t	 connra_wire_in(struct connra *);
/*
 * Stop the thread and free it, forgetting what it read ahead; add what
 * it read to *wire_in and give the coded bytes decoded in *used.
 * NULL is fine.
 */
void		 connra_end(struct connra *, uint64_t *wire_in,
		    uint64_t *used);

#endif
