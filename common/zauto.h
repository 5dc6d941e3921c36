/*
 * zauto.h: the automatic compression level (docs/protocol.md sections
 * 9.1 and 9.2), of zlib and of zstd.
 *
 * A sender that may choose its own level within a cap feeds
 * this policy what it measures while it sends: for each stretch of
 * output, the level used, the bytes before and after deflate, the time
 * spent deflating, the wall time of the stretch and how much of it was
 * spent waiting for the socket to drain.  From that it keeps, per level,
 * an estimate of the deflate speed and of the ratio the current data
 * gets, and of how fast the link takes compressed bytes; it picks the
 * level whose estimated throughput of plain bytes, the smaller of
 * "deflate speed" and "link rate / ratio", is highest.
 *
 * A level never measured is estimated from a measured one by the shape
 * the codec's levels usually have (each level slower and a little better
 * than the one below); level 0 sends the data as they are, at memory
 * speed, and is where a session starts: at level 0 a trial of level 1
 * on a sample (zauto_trial) stands for a measurement.  The link rate is
 * read from the stretches that waited for the socket.  When the
 * socket never made the sender wait, the link is at least as fast as
 * the output so far; the estimate of its rate then grows each stretch,
 * so that the policy tries cheaper levels until the socket pushes back.
 * Going up needs an estimated gain of more than ZAUTO_HYSTERESIS; going
 * down, a loss of less than 1 - ZAUTO_GIVE.  While the socket held the
 * last window back (a quarter of its time or more), levels are compared
 * by the model alone, on the ratio the current level gets now (scaled by
 * the shape): a level's own measurements were made on other data.  A
 * cheaper level tried on a link not yet seen to push back is judged as
 * soon as the socket does (after ZAUTO_PROBEMIN plain bytes at least),
 * not after a whole window.  A dearer level the session left because it
 * carried no more than a cheaper one is not tried again while that
 * measurement stands: a few windows, more each time it loses again.
 *
 * Pure computation: no I/O, no clock.  The connection's filters
 * (zconn.c's meter, for zlib and zstd alike) measure and ask; a server
 * keeps what a session learned for the next one with the same peer
 * (struct zauto_memo).
 */
#ifndef CAIRN_ZAUTO_H
#define CAIRN_ZAUTO_H

#include <stddef.h>
#include <stdint.h>

#define ZAUTO_WINDOW		(2048 * 1024)	/* plain bytes per decision */
#define ZAUTO_HYSTERESIS	1.04		/* gain needed to go up */
#define ZAUTO_GIVE		0.98		/* loss allowed going down */
#define ZAUTO_LOWAT		(256 * 1024)	/* unsent bytes a socket holds */
#define ZAUTO_PROBEMIN		(256 * 1024)	/* shortest probe of a level */

struct zauto;

/* The codecs whose levels the policy knows (zlevel.h's, same order). */
#define ZAUTO_ZLIB		0
#define ZAUTO_ZSTD		1
#define ZAUTO_NCODECS		2
#define ZAUTO_MAXLEVELS		20	/* levels of the codec with most */

/*
 * A policy choosing from the codec's levels 0 to cap (a compressing
 * level, as zlevel.h grants it), starting at start.  Started at 0, the
 * first choice is a probe, judged as soon as the socket pushes back.
 */
struct zauto	*zauto_new(int codec, int cap, int start);
void		 zauto_free(struct zauto *);	/* NULL is fine */

/*
 * One stretch of output at level: raw plain bytes became zout
 * compressed bytes in def_ns of deflating, within wall_ns of sending
 * (idle waits for the peer's requests left out), of which stall_ns
 * were spent waiting for the socket.  Returns the level to use from
 * now on (the current one until a window's worth has been seen).
 */
int		 zauto_sample(struct zauto *, int level, uint64_t raw,
		    uint64_t zout, uint64_t def_ns, uint64_t wall_ns,
		    uint64_t stall_ns);

/*
 * At level 0 nothing says what compressing would give.  While
 * zauto_wants_trial says so (at level 0, once every few windows), the
 * sender compresses a sample of what it sends at level 1 apart from the
 * stream (ZAUTO_TRIAL bytes at most) and reports the plain and
 * compressed bytes and the ns it took: an estimate of level 1 until the
 * level is measured for itself.
 */
#define ZAUTO_TRIAL		(64 * 1024)
int		 zauto_wants_trial(const struct zauto *);
void		 zauto_trial(struct zauto *, int level, uint64_t raw,
		    uint64_t zout, uint64_t ns);

/*
 * Nonzero if n bytes from the start of a body say it will not shrink:
 * at least ZAUTO_MINSAMPLE of them, an order-0 entropy of the first
 * ZAUTO_SAMPLE above ZAUTO_ENTROPY bits per byte (deflated, encrypted
 * and most media data), and, since repeated high-entropy data has that
 * entropy too, a trial deflate of the first bytes (zstream_trial) that
 * saves less than 3%.  Senders then send the body as stored blocks.
 */
#define ZAUTO_SAMPLE		(16 * 1024)
#define ZAUTO_MINSAMPLE		512
#define ZAUTO_ENTROPY		7.5
int		 zauto_incompressible(const void *p, size_t n);

/*
 * Why the current choice, in one line into buf: the link rate as the
 * policy believes it (measured while the socket pushed back, or a
 * lower bound it is probing), and each level's plain MB/s, measured
 * ("=") or estimated ("~").  For a trace (cairnd -d).
 */
void		 zauto_explain(const struct zauto *, char *buf, size_t len);

/*
 * What a session learned of its link and data, to start the next one
 * with the same peer from (a server keeps it per peer): the link rate
 * (compressed bytes/s, and whether it was measured while the socket
 * pushed back or only bounds it from below), the level the session
 * ended at and its codec, the speed and ratio of level 1 of that
 * codec (0: not known), and how many sessions in a row believed a
 * known link without measuring it themselves.  zauto_memo fills m and
 * returns 0 when the
 * session measured enough to be worth remembering (a window decided,
 * or the link known), -1 otherwise.  zauto_recall starts a policy from
 * m (made by either codec): its level, link and level 1's estimates;
 * what it measures from then on overrides them.
 */
struct zauto_memo {
	double		 link;
	int		 linkknown;
	int		 codec;		/* ZAUTO_ZLIB, ZAUTO_ZSTD */
	int		 level;
	double		 speed1, ratio1;
	int		 recalls;	/* sessions since link was measured */
};
int		 zauto_memo(const struct zauto *, struct zauto_memo *m);
void		 zauto_recall(struct zauto *, const struct zauto_memo *m);
/*
 * The codec a session with the automatic level should use, of those
 * offered with the caps cap[ZAUTO_NCODECS] (0: not offered), from the
 * last session's memo m (NULL: none).  With a link known, the one whose
 * best level up to its cap carries more plain bytes over that link by
 * the model (each codec's levels' speed and size relative to zlib's
 * level 1, scaled by the speed and ratio m measured), zlib only for a
 * gain above ZAUTO_HYSTERESIS: a slow link, and zstd capped low.
 * Otherwise zstd where it is offered: its levels are faster and
 * smaller than zlib's at every point measured.
 */
int		 zauto_choose(const int cap[ZAUTO_NCODECS],
		    const struct zauto_memo *m);

/* The current choice, and the estimated link rate (bytes/s, 0: none). */
int		 zauto_level(const struct zauto *);
double		 zauto_linkrate(const struct zauto *);

#endif
