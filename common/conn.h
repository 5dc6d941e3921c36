/*
 * conn.h: one protocol connection: a socket (and, after STARTTLS, a TLS
 * session on it)
 * with buffered line and block I/O, deadlines, byte counters, an
 * optional line trace (a callback) and an optional stream filter in
 * both directions (struct conn_filter below: compression, zconn.h),
 * which conn calls for every byte but knows nothing else of.
 *
 * A connection is built of: its transport (transport.h: the socket and
 * the TLS session, which nothing else touches), its input side
 * (connin.h: lines and blocks), its output side (connout.h: the queue),
 * the filter between them and the transport (connfilter.h) and the
 * read-ahead thread (connra.h); callers use this header alone.  Line
 * rules follow docs/protocol.md section 2: a line ends at CRLF, LF, CR
 * or NUL; the terminator is stripped; a line longer than the cap is an
 * error.
 *
 * Output is buffered and pushed to the peer only when the connection is
 * about to wait for the peer (any read that finds no buffered input),
 * when conn_flush() is called, or when about 256 KiB are pending; with
 * a filter the push ends the coded data (CONN_FLUSH_SYNC: for zlib a
 * Z_SYNC_FLUSH) in the first two cases and not in the last.  So a sender never has to think about flushing
 * before it reads, and pipelined replies share flushes.
 *
 * Functions return 0 (or a count) on success and -1 with a message naming
 * the peer in err on failure.  After an error the connection is unusable
 * except for conn_free(), with one exception: after a failed write
 * (the peer closed), reads still return what the peer sent before it
 * closed (an uploader collects the refusal that made the server close),
 * and every later write fails at once.
 */
#ifndef CAIRN_CONN_H
#define CAIRN_CONN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "connfilter.h"
#include "transport.h"

struct cerr;
struct conn;
struct tls;
struct tlsctx;

#define CONN_MAXLINE	(1024 * 1024)	/* default line cap (libsnet) */
#define CONN_IOSIZE	TRANSPORT_IOSIZE /* read size and output push size */

/*
 * Byte counters: raw = application bytes, wire = bytes below the filter
 * (on the socket; with TLS, the TLS plaintext).  The rest are the
 * filter's (its stats operation fills them).
 */
struct connstats {
	uint64_t	 raw_out, wire_out;	/* sent: before / after deflate */
	uint64_t	 raw_in, wire_in;	/* received: after / before inflate */
	int		 level;			/* deflate level, 0 = none */
	/* With compression on: */
	uint64_t	 zout;		/* compressed bytes made (or spliced) */
	uint64_t	 lvl_raw[20];	/* plain bytes sent at each level */
	uint64_t	 spliced_raw;	/* plain bytes sent as ready-made */
	uint64_t	 spliced_wire;	/* ... deflate data (zconn_splice) */
	uint64_t	 zswitches;	/* level changes of the automatic level */
};

/*
 * Wrap connected socket fd (made non-blocking; closed by conn_free).
 * peer names the other side in messages ("host[ip]").
 */
struct conn	*conn_new(int fd, const char *peer);
void		 conn_free(struct conn *);		/* NULL is fine */
/*
 * Flush what is pending (bounded by the deadline), half-close, and drain
 * what the peer still sends for a short while so that the last reply is
 * not lost to a reset, then free.
 */
void		 conn_close(struct conn *);

const char	*conn_peer(const struct conn *);
/* Name the peer anew in later messages (before conn_readahead). */
void		 conn_set_peer(struct conn *, const char *peer);
int		 conn_fd(const struct conn *);

/*
 * Deadline for each call that may block: the whole call (a whole line, a
 * whole read, a whole flush) must finish within ms milliseconds; -1 means
 * no deadline.  Default 60000.
 */
void		 conn_set_timeout(struct conn *, int ms);
/*
 * Longest accepted input line, terminator excluded (default CONN_MAXLINE).
 * With a filter, a line read decodes no more than the line may still
 * hold, so a line that never ends costs no more than the cap.
 */
void		 conn_set_maxline(struct conn *, size_t);
/*
 * Deadlines of a line read besides the call's own: it waits at most
 * wait milliseconds for the first byte of the line, and from that byte
 * on at most line milliseconds for the rest (the wait no longer counts
 * then); -1 leaves out either.  Default: neither.
 */
void		 conn_set_linetimes(struct conn *, int wait, int line);
/*
 * Line trace: fn(arg, dir, line, len) sees every line conn_getline
 * returns (dir CONN_TRACE_IN) and every line conn_printf sends
 * (CONN_TRACE_OUT; its CR and LF stripped).  line need not end in a
 * NUL: len bytes.  The automatic level's decisions come as CONN_TRACE_NOTE:
 * which level it left for which, and what it measured and estimated.
 * fn NULL (the default): no trace.  conn itself never prints;
 * proto_trace (proto.h) prints the lines through the log.
 */
#define CONN_TRACE_IN	0
#define CONN_TRACE_OUT	1
#define CONN_TRACE_NOTE	2
typedef void	(*conn_trace_fn)(void *arg, int dir, const char *line,
		    size_t len);
void		 conn_set_trace(struct conn *, conn_trace_fn, void *arg);

/*
 * Idle hook: fn(arg, err) runs each time a read is about to wait for the
 * peer, before the queued output is pushed, so that work held back while
 * input kept coming (replies that wait for something) can be done and
 * its output go out with the rest.  It may queue output; returning -1
 * (err set) fails the read.  fn NULL (the default): none.
 */
typedef int	(*conn_idle_fn)(void *arg, struct cerr *err);
void		 conn_set_idle(struct conn *, conn_idle_fn, void *arg);

/*
 * Read one line.  Returns its length with a NUL terminated line in *line
 * (borrowed: valid until the next call on this connection), or -1: then
 * conn_eof() tells a clean end of stream (no partial line) from an error,
 * and conn_toolong() an over-long line.
 */
ssize_t		 conn_getline(struct conn *, char **line, struct cerr *err);
int		 conn_eof(const struct conn *);
/*
 * As conn_getline, with an absolute deadline (conn_now() clock, -1:
 * none) and a cap of its own (the smaller of max and the connection's
 * cap applies): for reading several lines under one budget.
 */
ssize_t		 conn_getline_until(struct conn *, char **line,
		    int64_t deadline, size_t max, struct cerr *err);
/* Monotonic clock in ms; the deadline a call starting now would get. */
int64_t		 conn_now(void);
int64_t		 conn_deadline(const struct conn *);
int		 conn_toolong(const struct conn *);

/*
 * Read up to len bytes of data (block I/O, for file bodies); returns the
 * count (> 0), or -1 on error or end of stream (an error here).
 */
ssize_t		 conn_read(struct conn *, void *buf, size_t len,
		    struct cerr *err);
/* As conn_read, with an absolute deadline (conn_now() clock, -1: none). */
ssize_t		 conn_read_until(struct conn *, void *buf, size_t len,
		    int64_t deadline, struct cerr *err);

/* Queue bytes / a formatted string (terminators are the caller's). */
int		 conn_write(struct conn *, const void *, size_t,
		    struct cerr *err);
int		 conn_printf(struct conn *, struct cerr *err, const char *, ...)
		    __attribute__((format(printf, 3, 4)));
/* Send everything queued now (CONN_FLUSH_SYNC through a filter). */
int		 conn_flush(struct conn *, struct cerr *err);
/*
 * As conn_flush, with CONN_FLUSH_FULL: coded data sent after this never
 * refers back to data before it.
 */
int		 conn_flush_full(struct conn *, struct cerr *err);

/*
 * Stream filter (connfilter.h, struct conn_filter).
 * Install a filter in both directions: push what is queued unfiltered,
 * then encode all later output; every input byte not yet consumed
 * (read-ahead) is treated as coded.  One filter per connection, for
 * good; on failure the filter is not installed (the caller frees arg).
 */
int		 conn_set_filter(struct conn *, const struct conn_filter *,
		    void *arg, struct cerr *err);
/* The installed filter's arg if its operations are ops, else NULL. */
void		*conn_filter(const struct conn *, const struct conn_filter *ops);
int		 conn_filtered(const struct conn *);
/*
 * Encode what is queued, without ending the coded data and without
 * writing it (a filter changing how it codes from here on).
 */
int		 conn_drain(struct conn *, struct cerr *err);
/* Plain output queued (not yet encoded or written). */
size_t		 conn_queued(const struct conn *);
/*
 * Queue coded bytes a filter made outside encode (ready-made data);
 * they are written at once when a push's worth is pending.
 */
int		 conn_wire_queue(struct conn *, const void *, size_t,
		    struct cerr *err);
/*
 * Wait accounting, for a filter that measures the link: while on, conn
 * adds the time spent waiting for the socket to take output (stall) and
 * for the peer's input (idle), in ns, to the counters conn_waits gives.
 */
void		 conn_set_timing(struct conn *, int on);
void		 conn_waits(const struct conn *, uint64_t *stall,
		    uint64_t *idle);
/* A note in the line trace (CONN_TRACE_NOTE), if there is one. */
void		 conn_note(struct conn *, const char *note);

void		 conn_stats(const struct conn *, struct connstats *);

/*
 * Read ahead: a thread of the connection reads and decodes the peer's
 * stream while the caller works on what came before, up to a bounded
 * ring (1 MB of plain bytes); reads, lines, deadlines, errors and the
 * counters stay as without it.  Only filtered plain-TCP connections
 * (a TLS session is not shared between threads); the thread ends with
 * the connection.  0: started, 1: not for this connection (or no
 * thread: reads stay in the caller's thread), -1 with err.
 */
int		 conn_readahead(struct conn *, struct cerr *err);

/*
 * STARTTLS (docs/protocol.md 5.7): push what is queued (the server's "220"),
 * then run the TLS handshake on the socket; all later I/O goes through
 * TLS, and compression started later is applied before encryption.
 * ctx is a server context (host NULL) or a client context (host: the
 * name or IP literal the server certificate must match).  Fails if any
 * input is left over in clear after the STARTTLS line or its reply (it
 * must never be taken for data that came through TLS), if TLS is on
 * already, or if a filter (compression) is on.  The deadline is the connection's.
 */
int		 conn_starttls(struct conn *, struct tlsctx *, const char *host,
		    struct cerr *err);
/* The TLS session (tls.h), NULL before conn_starttls. */
struct tls	*conn_tls(const struct conn *);
/*
 * Input received but not yet consumed (the LF of a CRLF whose CR ended
 * the last line excluded).
 */
size_t		 conn_pending(const struct conn *);

#endif
