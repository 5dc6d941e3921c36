/*
 * relay.h: a link emulator for benchmarks.  A relay listens on
 * 127.0.0.1 (an ephemeral port) and forwards every accepted connection
 * to an upstream address, one direction at a time through a model of a
 * network link:
 *
 *  - a serializer paced at the link rate: a chunk of n bytes occupies
 *    the link for n * 8 / rate seconds, chunks leave in order, so no
 *    interval of time carries more than rate * interval + one chunk;
 *  - a propagation delay of rtt / 2 added to every chunk (a timestamped
 *    queue), in each direction, so a request and its reply take at least
 *    one rtt;
 *  - a bounded queue: when it is full the relay stops reading from the
 *    sending socket, so the sender's TCP sees back-pressure.
 *
 * The relay runs in a thread of its own (one poll loop for all
 * connections) and counts the bytes it forwards in each direction.
 * Works without privileges.  All functions but relay_start are safe to
 * call from any thread while the relay runs.
 */
#ifndef CAIRN_RELAY_H
#define CAIRN_RELAY_H

#include <stdint.h>
#include <netinet/in.h>

struct cerr;
struct relay;

struct relay_link {
	uint64_t	 rate;		/* bits per second, 0 = unlimited */
	uint64_t	 rtt_us;	/* round-trip time, microseconds */
	uint64_t	 qcap;		/* queue bytes per direction, 0 = auto */
};

/* Counters of one direction since the last reset. */
struct relay_dirstats {
	uint64_t	 bytes;		/* bytes delivered */
	uint64_t	 first_ns;	/* CLOCK_MONOTONIC of first delivery */
	uint64_t	 last_ns;	/* ... and of the last one */
	/*
	 * Time the link had data to carry (queued or in flight), less the
	 * propagation delay once per busy period: bytes / busy_ns is the
	 * rate the link delivered while the endpoints kept it fed.
	 */
	uint64_t	 busy_ns;
};

struct relay_stats {
	struct relay_dirstats	 up;	/* client to upstream */
	struct relay_dirstats	 down;	/* upstream to client */
	unsigned		 conns;	/* connections accepted */
	unsigned		 upstream_errors; /* failed upstream connects */
};

/*
 * Start a relay for link to upstream (which may be changed later with
 * relay_set_upstream).  If netns_fd >= 0 the relay thread enters that
 * network namespace before it creates any socket.  Returns NULL with a
 * message in err on failure.
 */
struct relay	*relay_start(const struct relay_link *link,
		    const struct sockaddr_in *upstream, int netns_fd,
		    struct cerr *err);
/* The port the relay listens on (host byte order). */
uint16_t	 relay_port(const struct relay *);
/* Forward connections accepted from now on to upstream. */
void		 relay_set_upstream(struct relay *, const struct sockaddr_in *);
/* Copy the counters; if reset, zero them afterwards. */
void		 relay_stats(struct relay *, struct relay_stats *, int reset);
/*
 * The bytes held ahead of the link per direction: the queue (auto-sized
 * when qcap was 0), counting the kernel's receive buffer in front of the
 * relay's own; more than qcap on slow links, where the smallest buffers
 * that keep a connection flowing are larger.
 */
uint64_t	 relay_qcap(const struct relay *);
/* Stop the thread, close every socket, free.  NULL is allowed. */
void		 relay_stop(struct relay *);

/* CLOCK_MONOTONIC in nanoseconds. */
uint64_t	 relay_now_ns(void);

#endif
