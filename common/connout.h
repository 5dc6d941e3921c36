/*
 * connout.h: the output side of a connection (conn.h): plain output is
 * queued, coded by the connection's filter if it has one
 * (connfilter.h), and written to the transport (transport.h) when the
 * connection pushes it or about TRANSPORT_IOSIZE bytes are pending.
 *
 * Functions return 0 on success and -1 with a message naming the peer
 * in err on failure.  Once a write failed (transport_failed) what is
 * queued is dropped and every later write fails at once.
 */
#ifndef CAIRN_CONNOUT_H
#define CAIRN_CONNOUT_H

#include <stddef.h>
#include <stdint.h>

struct cerr;
struct conn_filter;
struct connout;
struct transport;

/* Output to t; cap: the most plain output queued. */
struct connout	*connout_new(struct transport *t, size_t cap);
void		 connout_free(struct connout *);	/* NULL is fine */
/* Code all later output with ops and arg (what is queued is pushed). */
void		 connout_set_filter(struct connout *,
		    const struct conn_filter *ops, void *arg);

/* Queue n bytes (a large block goes out without being copied). */
int		 connout_write(struct connout *, const void *, size_t n,
		    int64_t deadline, struct cerr *err);
/*
 * Push what is queued to the transport, ending the coded data as flush
 * says (CONN_FLUSH_*; CONN_FLUSH_NONE: just move what is queued).
 */
int		 connout_push(struct connout *, int flush, int64_t deadline,
		    struct cerr *err);
/* Code what is queued without ending the coded data or writing it. */
int		 connout_drain(struct connout *, struct cerr *err);
/* Plain output queued (not yet coded or written). */
size_t		 connout_queued(const struct connout *);
/*
 * Queue coded bytes made outside the filter's encode; they are written
 * at once when a push's worth is pending.
 */
int		 connout_wire_queue(struct connout *, const void *, size_t n,
		    int64_t deadline, struct cerr *err);
/* Plain bytes written so far. */
uint64_t	 connout_raw(const struct connout *);

#endif
