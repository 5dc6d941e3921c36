/*
 * connfilter.h: the stream filter of a connection (conn.h): the
 * interface between the connection and a codec (compression: zconn.h),
 * shared by the connection, its output side (connout.h) and its
 * read-ahead thread (connra.h).
 */
#ifndef CAIRN_CONNFILTER_H
#define CAIRN_CONNFILTER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct buf;
struct cerr;
struct connstats;

/*
 * Stream filter: a layer that codes every byte between the connection's
 * buffers and the transport (compression: zconn.h).  Data path:
 *   queued plain output --encode--> wire output --> transport
 *   transport --> wire input --decode--> plain input --> lines, blocks
 * conn calls the operations below with arg; they may use conn's public
 * API (a filter keeps its connection), but not read or write.  Errors
 * come back in err without the peer's name, which conn adds.
 *
 * encode: code len plain bytes (len 0: none) onto out, then end the
 *	coded data as flush says (CONN_FLUSH_*); with nothing to code and
 *	nothing to end it adds nothing.
 * decode: code from *in (*inlen bytes; both advanced past what was
 *	used) into out (at most outlen bytes); returns the count made,
 *	0 when it needs more input, -1 on bad data.  Under conn_readahead
 *	it runs in the connection's thread, concurrently with encode and
 *	the rest: it must share no state with them.
 * sent: what encode made has just been written (may add to out).
 * lines: n plain bytes of lines were read; used is how many wire
 *	bytes decode had consumed when their last byte was made; -1 (err)
 *	fails the line read.  NULL: nothing to check.
 * stats: add the filter's figures to st (conn_stats).
 * free: the connection ends.
 */
#define CONN_FLUSH_NONE	0	/* let the filter buffer as it likes */
#define CONN_FLUSH_SYNC	1	/* end on a byte boundary */
#define CONN_FLUSH_FULL	2	/* as SYNC, and forget history */
struct conn_filter {
	int	 (*encode)(void *arg, const void *p, size_t len, int flush,
		    struct buf *out, struct cerr *err);
	ssize_t	 (*decode)(void *arg, const unsigned char **in,
		    size_t *inlen, void *out, size_t outlen,
		    struct cerr *err);
	int	 (*sent)(void *arg, struct buf *out, struct cerr *err);
	int	 (*lines)(void *arg, size_t n, uint64_t used,
		    struct cerr *err);
	void	 (*stats)(void *arg, struct connstats *st);
	void	 (*free)(void *arg);
};

#endif
