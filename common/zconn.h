/*
 * zconn.h: zlib compression of a connection (docs/protocol.md section 9).
 *
 * The compressed stream is a stream filter of the connection (conn.h,
 * struct conn_filter): conn hands it the plain bytes it queued and the
 * bytes it read, and writes and reads what the filter makes of them;
 * conn itself knows nothing of compression.  This module implements
 * that interface with zstream.h (one continuous zlib stream each way),
 * and owns what is zlib's alone: the inflate guard on lines, splicing
 * ready-made deflate data, the capture of deflate output, the per-level
 * counters, and which level the output uses now (fixed, pinned, or
 * chosen by the automatic level, zauto.h, from what is measured while
 * sending).  A second codec is another module implementing the same
 * interface.
 *
 * Levels come checked: which level a session uses, fixed or automatic,
 * and when output is pinned, is zlevel.h's to decide (it calls these).
 *
 * Dependencies run one way: zconn uses conn, zstream and zauto; none of
 * them use zconn (conn calls it only through the filter's operations),
 * and zconn does not use zlevel.
 *
 * Functions return 0 on success and -1 with a message naming the peer
 * in err on failure.
 */
#ifndef CAIRN_ZCONN_H
#define CAIRN_ZCONN_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

struct cerr;
struct conn;

/*
 * Start compression in both directions: push what is queued uncompressed,
 * then deflate all later output at level; every input byte not yet
 * consumed (read-ahead) is treated as compressed.  ratio bounds how
 * much lines may inflate: over a window of ZCONN_WINDOW bytes of lines,
 * a line read fails when the lines are more than ratio times the
 * compressed bytes inflated meanwhile (a decompression bomb); 0: no
 * bound.
 */
#define ZCONN_WINDOW	(64 * 1024)	/* line bytes per inflate-ratio check */
int		 zconn_start(struct conn *, int level, int ratio,
		    struct cerr *err);

/*
 * The inflate bound on lines, for any codec's filter (zstdconn.h too):
 * count n bytes of lines read, used being the wire bytes the filter had
 * decoded when their last byte was made; -1 with a message in err when
 * a window of ZCONN_WINDOW line bytes came from fewer than 1/ratio as
 * many wire bytes.  Zeroed with ratio set: ready; ratio 0: no bound.
 */
struct zconn_guard {
	int		 ratio;
	uint64_t	 wline, wmark;	/* line bytes in the window, wire at
					   its start */
};
int		 zconn_guard_lines(struct zconn_guard *, size_t n,
		    uint64_t used, struct cerr *err);
/*
 * The automatic level's meter, for any codec's filter (zstdconn.h
 * too): the policy (zauto.h), and what it is fed, gathered since the
 * last sample -- plain bytes compressed, the bytes they made, the ns
 * spent compressing -- and the connection's waits then.
 *
 * zconn_meter_start: the policy over the codec's (ZAUTO_*) levels 0 to
 * cap, starting at level; the connection times its waits, and a socket
 * keeps little unsent data (the push-back the link is measured by).
 * zconn_meter_now: the clock for zconn_meter_add's t0 (0 without the
 * automatic level, which needs none).  zconn_meter_add: raw bytes
 * became made bytes, compressing from t0 on.  zconn_meter_sample:
 * after output was written, give the policy what was measured and
 * return the level it wants from now on (a change is noted in the
 * connection's trace, "<label> auto: level a -> b: why").
 * zconn_meter_trial: at level 0, when the policy wants it, compress a
 * sample of p at level 1 apart from the stream with trial (returning
 * the bytes it made, -1: none) and tell the policy.
 */
struct zconn_meter {
	struct zauto	*za;		/* NULL: a fixed level */
	uint64_t	 mark;		/* ns clock at the last sample */
	uint64_t	 raw, made;	/* bytes compressed, bytes they made */
	uint64_t	 def;		/* ns compressing */
	uint64_t	 stall0, idle0;	/* conn_waits at the last sample */
	uint64_t	 switches;	/* changes of level the policy made */
};
void		 zconn_meter_start(struct zconn_meter *, struct conn *,
		    int codec, int cap, int level);
void		 zconn_meter_stop(struct zconn_meter *, struct conn *);
void		 zconn_meter_zero(struct zconn_meter *, struct conn *);
uint64_t	 zconn_meter_now(const struct zconn_meter *);
void		 zconn_meter_add(struct zconn_meter *, uint64_t raw,
		    uint64_t made, uint64_t t0);
int		 zconn_meter_sample(struct zconn_meter *, struct conn *,
		    int level, const char *label);
void		 zconn_meter_trial(struct zconn_meter *, const void *p,
		    size_t len, ssize_t (*trial)(void *, const void *, size_t),
		    void *arg);

/*
 * The automatic level's memo (zauto.h): zconn_recall starts the policy
 * from m, the output at the level it says (before anything is sent);
 * zconn_memo fills m, -1 when there is nothing to remember (or no
 * automatic level).
 */
struct zauto_memo;
int		 zconn_recall(struct conn *, const struct zauto_memo *m,
		    struct cerr *err);
int		 zconn_memo(const struct conn *, struct zauto_memo *m);

/* Nonzero when compression is on. */
int		 zconn_on(const struct conn *);

/*
 * Fix the output level (0: stored blocks) mid-stream, ending any
 * automatic level (compression must be on).
 */
int		 zconn_set_level(struct conn *, int level, struct cerr *err);
/*
 * Automatic level (zauto.h): from now on the output level is chosen
 * between 0 and cap from what the connection measures while it sends.
 * Its decisions are noted in the connection's trace (CONN_TRACE_NOTE).
 */
int		 zconn_set_auto(struct conn *, int cap, struct cerr *err);
/*
 * Pin the output level to level whatever the policy, until
 * called with -1: then the fixed or automatic level applies again.
 * Output queued before the call is deflated at the level it was queued
 * under.  Does nothing without compression.
 */
int		 zconn_pin_level(struct conn *, int level, struct cerr *err);
int		 zconn_level(const struct conn *);	/* current, 0: none */

/*
 * Capture: fn(arg, p, n) sees every compressed byte deflated from now
 * on, as it is made (fn NULL: none).  A cache keeps a body's deflate
 * data so.  While a capture is on the automatic level stays put.
 */
typedef void	(*zconn_capture_fn)(void *arg, const void *p, size_t n);
void		 zconn_set_capture(struct conn *, zconn_capture_fn, void *arg);

/*
 * Send ready-made deflate data (zstream.h, zstream_splice) in pieces:
 * only right after conn_flush() or conn_flush_full() with nothing
 * queued since (the data never refers to what came before it); then
 * zconn_splice_end(), which resets the compressor and counts the raw
 * plain bytes the data stood for, made at level.
 */
int		 zconn_splice(struct conn *, const void *, size_t,
		    struct cerr *err);
int		 zconn_splice_end(struct conn *, uint64_t raw, int level,
		    struct cerr *err);

#endif
