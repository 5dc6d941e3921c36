/*
 * transport.h: the transport under a connection (conn.h): its socket,
 * or after transport_starttls a TLS session on that socket.
 *
 * This module alone reads, writes and waits on a connection's socket
 * and TLS session (the read-ahead thread, connra.h, reads a plain
 * socket that is handed to it).  A call that may block takes an
 * absolute deadline on the transport_now() clock (-1: none).  Before a
 * read first waits for the peer it runs its owner's wait hook: the
 * connection pushes its queued output then, as the peer may be waiting
 * for it.  The transport knows nothing of lines, queues or filters.
 *
 * Functions return 0 (or a count) on success and -1 with a message
 * naming the peer in err on failure.  After a failed write every later
 * write fails at once (transport_failed), while reads still return what
 * the peer sent before it closed.
 */
#ifndef CAIRN_TRANSPORT_H
#define CAIRN_TRANSPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cerr;
struct tls;
struct tlsctx;
struct transport;

#define TRANSPORT_IOSIZE	(256 * 1024)	/* read size, push size */

/* Monotonic clock in ms, the clock of every deadline. */
int64_t		 transport_now(void);

/*
 * Wrap connected socket fd (made non-blocking; closed by
 * transport_free).  peer names the other side in messages.
 */
struct transport *transport_new(int fd, const char *peer);
void		 transport_free(struct transport *);	/* NULL is fine */
/*
 * End the TLS session, half-close, and drain what the peer still sends
 * for a short while so that the last reply is not lost to a reset.
 */
void		 transport_shutdown(struct transport *);

const char	*transport_peer(const struct transport *);
void		 transport_set_peer(struct transport *, const char *peer);
int		 transport_fd(const struct transport *);
/* The TLS session (tls.h), NULL before transport_starttls. */
struct tls	*transport_tls(const struct transport *);

/*
 * Wait hook: fn(arg, err) runs when a read is about to wait for the
 * peer for the first time in the call; -1 (err set) fails the read.
 * The time it takes is this side's own work, not the peer's delay: it
 * moves the read's deadline on by as much.
 */
typedef int	(*transport_wait_fn)(void *arg, struct cerr *err);
void		 transport_set_hook(struct transport *, transport_wait_fn,
		    void *arg);

/* One read: returns > 0, 0 at the peer's end of stream, or -1. */
ssize_t		 transport_read(struct transport *, void *, size_t,
		    int64_t deadline, struct cerr *err);
/* Write all n bytes. */
int		 transport_write(struct transport *, const void *, size_t n,
		    int64_t deadline, struct cerr *err);
/* Nonzero once a write failed (the peer is gone). */
int		 transport_failed(const struct transport *);
/*
 * Nonzero when a wait ran out of time since transport_timedout_reset
 * (a caller that has several deadlines tells which one passed).
 */
int		 transport_timedout(const struct transport *);
void		 transport_timedout_reset(struct transport *);

/*
 * Eat one LF in clear if it is the next byte from the peer (the end of
 * a CRLF whose CR ended the line before STARTTLS).  wait: wait for a
 * byte until the deadline (a server does: its peer sends first; a
 * client must not, as its peer waits for the ClientHello).
 */
int		 transport_eatlf(struct transport *, int64_t deadline,
		    int wait, struct cerr *err);
/*
 * Run the TLS handshake on the socket (ctx and host as conn_starttls);
 * all later reads and writes go through TLS.
 */
int		 transport_starttls(struct transport *, struct tlsctx *,
		    const char *host, int64_t deadline, struct cerr *err);

/*
 * Wait accounting: while on, the time spent waiting for the socket to
 * take output (stall) and for the peer's input (idle), in ns.
 */
void		 transport_set_timing(struct transport *, int on);
void		 transport_waits(const struct transport *, uint64_t *stall,
		    uint64_t *idle);
/* Bytes received and sent (with TLS: its plaintext). */
void		 transport_bytes(const struct transport *, uint64_t *in,
		    uint64_t *out);

#endif
