/*
 * zauto.c: the automatic compression level (see zauto.h).
 */
#include "config.h"

#include <sys/types.h>

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "xmalloc.h"
#include "zauto.h"
#include "zstream.h"

/*
 * The levels the model knows: zlib's and zstd's.  The cap comes checked
 * (zlevel.h); these bounds only keep every index inside the tables.
 */
#define ZA_LEVELS	ZAUTO_MAXLEVELS

/*
 * The usual shape of each codec's levels on file-system data: speed and
 * compressed size relative to zlib's level 1, measured on this project's
 * machines over text and shared libraries (zstd with its window bounded
 * to 2 MiB, as the stream bounds it).  Within a codec only ratios
 * between levels are used, and only until a level has been measured;
 * between codecs, the choice of a session's codec (zauto_choose).
 * Level 0 sends stored blocks (zlib) or raw blocks (zstd), at memory
 * speed.
 */
struct za_shape {
	int		 nlevels;
	double		 speed[ZA_LEVELS];
	double		 size[ZA_LEVELS];
};

static const struct za_shape za_shapes[ZAUTO_NCODECS] = {
	[ZAUTO_ZLIB] = { 10,
	    { 40.0, 1.0, 0.92, 0.80, 0.62, 0.45, 0.33, 0.27, 0.14, 0.09 },
	    { 0.0, 1.0, 0.97, 0.95, 0.90, 0.87, 0.85, 0.845, 0.84, 0.838 } },
	[ZAUTO_ZSTD] = { 20,
	    { 40.0, 3.5, 3.0, 2.24, 1.86, 1.05, 0.77, 0.66, 0.54, 0.46,
	      0.33, 0.22, 0.21, 0.091, 0.077, 0.070, 0.042, 0.038, 0.032,
	      0.030 },
	    { 0.0, 0.91, 0.865, 0.83, 0.825, 0.80, 0.765, 0.76, 0.745, 0.745,
	      0.74, 0.74, 0.74, 0.735, 0.735, 0.735, 0.69, 0.68, 0.66,
	      0.66 } },
};

#define ZA_WEIGHT	0.5	/* weight of a new measurement */
#define ZA_PROBE	2.0	/* growth of an unbounded link estimate */
#define ZA_FORGET	8	/* windows a level's own throughput is kept */
#define ZA_LINKMAX	1e12	/* B/s: an unbounded link, for the sums */
#define ZA_DECAY	0.8	/* weight of a window against the next */
#define ZA_PUSHED	16	/* pushed-back windows the link rate is from */
#define ZA_LINKKEPT	32	/* windows a link is known without pushing */
/* Plain bytes (decayed) a level's windows need for their rate to count. */
#define ZA_CARRIED	(2.0 * ZAUTO_WINDOW)
/*
 * Compressed bytes the socket must have taken without pushing back
 * before the policy believes a link it never saw the end of, and moves
 * to cheaper levels (more bytes); twice as many after each probe the
 * link answered by pushing back.  The sender keeps at most ZAUTO_LOWAT
 * unsent (zconn_set_auto), but what is in flight and in the queues along
 * the path is not bounded by it: a path may hold a megabyte or more
 * before it pushes back.
 */
#define ZA_PROVEN	(640 * 1024)
/*
 * A link remembered as known (zauto_recall) stands until this session's
 * socket pushes back, or has taken without pushing back what the link
 * carries in this many seconds (ZA_PROVEN at least): the first burst of
 * a session goes into the buffers along the path (socket buffers of
 * several MB at each end) at memory speed, and would pass for a link
 * much faster than the one the last session measured.
 */
#define ZA_RECALLSEC	0.25
/*
 * Sessions in a row that may start from a remembered link without
 * measuring it (their socket never pushed back: they compressed slower
 * than the link drains, or the pull was shorter than ZA_RECALLSEC of
 * it).  The next one starts from it as a lower bound, and goes down to
 * cheaper levels to probe it as a session with no memo does: a link
 * measured once, when the client was busy, would otherwise hold every
 * later session at a level the client no longer needs.
 */
#define ZA_RECALLS	2
/*
 * Such a session counts only if the level it sent the most at carried
 * less than this many times the remembered link: a link up to that much
 * faster than remembered would then have made a cheaper level better.
 * One that carried more would have kept its level on a link that much
 * faster too, and a probe (stored blocks filling the buffers along the
 * path until the socket pushes back) costs more than it could find.
 */
#define ZA_STALEGAIN	2.0
/*
 * A level is ample when the link sets the pace by this margin: it
 * deflates this many times the plain bytes the link takes at its ratio.
 * Then its CPU costs no time, and a move up to it is taken for any gain
 * above ZA_AMPLEGAIN instead of ZAUTO_HYSTERESIS.
 */
#define ZA_AMPLE	4.0
#define ZA_AMPLEGAIN	1.001
/*
 * A level whose held-back windows drained less than this share of the
 * compressed bytes a second a cheaper level's did is limited by plain
 * bytes (the receiver), not by the link.
 */
#define ZA_RECEIVER	0.75
/* A probe pushed back is judged on no less than this (ns) of link time. */
#define ZA_PROBENS	20000000
/* A stretch that waited for the socket: compressed bytes it must have. */
#define ZA_DRAINMIN	(64 * 1024)
#define ZA_DRAINS	32	/* such stretches a window keeps the rate of */
/*
 * A window that took compressed bytes this many times faster than the
 * known link, without the socket pushing back, only filled buffers.
 */
#define ZA_FILL		1.25
/*
 * A level the session left on a link it knows, because a cheaper one
 * carried as much (za_receiver, or the model on what was measured), is
 * judged on its own measurements for ZA_AGAIN windows, twice as many each
 * time it loses again (ZA_AGAINMAX doublings at most, and none once it
 * was kept for ZA_AGAIN windows); then they are forgotten and the model
 * decides whether to try it again.  What it measured may have been of
 * data a receiver took slower than the rest (many small files and
 * directories to make): once the data change, the verdict is stale.  A
 * retry that loses costs a window.
 */
#define ZA_AGAIN	2
#define ZA_AGAINMAX	3
/*
 * A level that carried less than this share of what the cheaper one
 * does, when the receiver's pace was not the reason (the CPUs the two
 * ends share, on one machine), lost by more than a change of data
 * explains: it waits the longest (ZA_AGAINMAX doublings) at once.
 */
#define ZA_LOSTBIG	0.85

struct zauto {
	const struct za_shape *shape;	/* the codec's levels */
	int		 cap, cur;
	/*
	 * Per level, sums over its recent windows (each window's weight
	 * ZA_DECAY of the next one's): plain bytes, compressed bytes, ns
	 * deflating and ns of wall time.  Ratios of sums, not averages of
	 * ratios: with large socket buffers a window is either a burst
	 * that costs nothing or a long wait, and only sums weigh them
	 * right.  From them: deflate speed (B/s), ratio, and the plain
	 * bytes per second achieved at the level whatever held it back
	 * (deflate, the link, or a receiver slower than both) -- truth
	 * that beats the model, until it is ZA_FORGET windows old.
	 */
	double		 sraw[ZA_LEVELS], szout[ZA_LEVELS], sdef[ZA_LEVELS];
	double		 swall[ZA_LEVELS];
	/*
	 * The plain bytes and wall time the throughput is from: of a
	 * window in which the socket pushed back, only the part from its
	 * first wait on.  What went before filled the buffers along the
	 * path (emptied while a level compressed slower than the link
	 * drains, or at the start of the session) at memory speed, once.
	 */
	double		 sxraw[ZA_LEVELS], sxwall[ZA_LEVELS];
	double		 speed[ZA_LEVELS], ratio[ZA_LEVELS], xput[ZA_LEVELS];
	uint64_t	 xwhen[ZA_LEVELS], windows;
	/*
	 * Per level, the plain bytes sent at it, each window's weight
	 * ZA_DECAY of the next one's: where the policy has kept the
	 * session lately, for the memo.
	 */
	double		 spent[ZA_LEVELS];
	/*
	 * Per level, the same sums over the stretches that waited for the
	 * socket in its recent windows that it held back (a quarter of
	 * their time or more): plain and compressed bytes and wall time.  A link takes about as many
	 * compressed bytes a second at every level; a receiver that
	 * writes plain bytes at its own pace takes about as many plain
	 * bytes, so fewer compressed ones the more a level compresses.
	 */
	double		 braw[ZA_LEVELS], bzout[ZA_LEVELS], bwall[ZA_LEVELS];
	uint64_t	 bwhen[ZA_LEVELS];
	/* The same sums for the link, over every level. */
	double		 lzout, lwall, lstall;
	double		 link;		/* compressed B/s the link takes */
	/*
	 * The rates of the last ZA_PUSHED windows in which the socket
	 * pushed back; the link is taken to carry their median.  One
	 * window alone misleads both ways: a receiver pausing (creating
	 * files, syncing) looks like a slow link, and a window that began
	 * with buffers to fill like a fast one.
	 */
	double		 pushed[ZA_PUSHED];
	unsigned	 npushed;
	/*
	 * The rate of the window's stretches that waited for the socket
	 * half their time or more (ZA_DRAINMIN compressed bytes at least):
	 * the socket was full, and what it took is what the link drained.
	 * Buffers along the path that take a burst at memory speed make a
	 * whole window's rate read high; these stretches do not.
	 */
	double		 draw, dzout, dwall;
	/*
	 * And each such stretch's rate (the last ZA_DRAINS of them): the
	 * link is their median.  A receiver that stops reading for a
	 * while (creating files, syncing) makes one stretch wait long for
	 * little; a slow link makes every stretch slow.
	 */
	double		 drains[ZA_DRAINS];
	unsigned	 ndrains;
	/*
	 * The compressed bytes and wall time (s) of the window's stretches
	 * from its first wait on (the last ZA_DRAINS of them).
	 */
	double		 pzs[ZA_DRAINS], pws[ZA_DRAINS];
	unsigned	 nps;
	int		 linkknown;	/* link measured while it pushed back */
	uint64_t	 linkwhen;	/* windows when it last did */
	int		 probing;	/* went cheaper on a link not known */
	int		 recalled;	/* link known from a memo, not here */
	int		 recalls;	/* the memo's, when recalled */
	double		 rlink;		/* that link (B/s), 0: none */
	int		 bound;		/* the link held the last window back */
	double		 free;		/* compressed bytes since it did */
	double		 proven;	/* free needed to go cheaper */
	/*
	 * The window being gathered; and its part from the first stretch
	 * that waited for the socket on, when the buffers along the path
	 * were full and the link set the pace.
	 */
	uint64_t	 raw, zout, def, wall, stall;
	uint64_t	 praw, pzout, pdef, pwall, pstall;
	int		 wlevel;
	uint64_t	 trialwhen;	/* windows at the last trial, +1 */
	/*
	 * Per level, the window from which what it measured is forgotten
	 * (0: never), how often the session lost it to a cheaper one, and
	 * for how many windows in a row it was last kept.
	 */
	uint64_t	 againwhen[ZA_LEVELS];
	unsigned	 lost[ZA_LEVELS];
	unsigned	 kept[ZA_LEVELS];
	/*
	 * Per level lost while a receiver set the pace, the plain B/s the
	 * cheaper level it was lost to had measured then (0: none).
	 */
	double		 lostpace[ZA_LEVELS];
};

struct zauto *
zauto_new(int codec, int cap, int start)
{
	struct zauto	*za;

	za = xcalloc(1, sizeof(*za));
	za->shape = &za_shapes[codec == ZAUTO_ZSTD ? ZAUTO_ZSTD : ZAUTO_ZLIB];
	za->cap = cap < 1 ? 1 : cap >= za->shape->nlevels ?
	    za->shape->nlevels - 1 : cap;
	za->cur = start < 0 ? 0 : start > za->cap ? za->cap : start;
	za->wlevel = za->cur;
	za->proven = ZA_PROVEN;
	/*
	 * Starting at level 0 is a probe of a link not yet known: judged
	 * as soon as the socket pushes back.
	 */
	za->probing = za->cur == 0;
	return za;
}

int
zauto_wants_trial(const struct zauto *za)
{
	return za->cur == 0 && (za->trialwhen == 0 ||
	    za->windows + 1 - za->trialwhen >= ZA_FORGET);
}

void
zauto_trial(struct zauto *za, int level, uint64_t raw, uint64_t zout,
    uint64_t ns)
{
	if (level < 1 || level > za->cap || raw == 0 || zout == 0)
		return;
	za->trialwhen = za->windows + 1;
	/* A level's own measurements beat a trial's. */
	if (za->sraw[level] > 0 && za->windows - za->xwhen[level] < ZA_FORGET)
		return;
	za->speed[level] = (double)raw / ((double)(ns > 0 ? ns : 1) / 1e9);
	za->ratio[level] = (double)zout / (double)raw;
	if (za->ratio[level] > 1.0)
		za->ratio[level] = 1.0;
}

void
zauto_free(struct zauto *za)
{
	free(za);
}

int
zauto_incompressible(const void *p, size_t n)
{
	const unsigned char	*q = p;
	unsigned		 count[4][256];
	double			 e = 0, f;
	ssize_t			 t;
	size_t			 i;
	unsigned		 c, distinct = 0;

	if (n < ZAUTO_MINSAMPLE)
		return 0;
	if (n > ZAUTO_SAMPLE)
		n = ZAUTO_SAMPLE;
	/*
	 * Four tables, so that a run of one byte value does not make each
	 * increment wait for the last: this runs on the first bytes of
	 * every file sent.
	 */
	memset(count, 0, sizeof(count));
	for (i = 0; i + 4 <= n; i += 4) {
		count[0][q[i]]++;
		count[1][q[i + 1]]++;
		count[2][q[i + 2]]++;
		count[3][q[i + 3]]++;
	}
	for (; i < n; i++)
		count[0][q[i]]++;
	for (i = 0; i < 256; i++) {
		count[0][i] += count[1][i] + count[2][i] + count[3][i];
		distinct += count[0][i] != 0;
	}
	/* Fewer values than 2^ZAUTO_ENTROPY cannot have more entropy. */
	if ((double)distinct <= exp2(ZAUTO_ENTROPY))
		return 0;
	for (i = 0; i < 256; i++) {
		if ((c = count[0][i]) == 0)
			continue;
		f = (double)c / (double)n;
		e -= f * log2(f);
	}
	if (e <= ZAUTO_ENTROPY)
		return 0;
	/* Only for data that looks random: the cheap test said maybe. */
	t = zstream_trial(p, n);
	return t > 0 && (double)t > 0.97 * (double)(n > ZS_TRIALMAX ?
	    ZS_TRIALMAX : n);
}

int
zauto_level(const struct zauto *za)
{
	return za->cur;
}

double
zauto_linkrate(const struct zauto *za)
{
	return za->link;
}

/* Nearest measured level at 1 or above (deflating levels), -1: none. */
static int
za_nearest(const struct zauto *za, int level)
{
	int	 d, l;

	for (d = 0; d < ZA_LEVELS; d++) {
		l = level - d;
		if (l >= 1 && za->speed[l] > 0)
			return l;
		l = level + d;
		if (l < ZA_LEVELS && l >= 1 && za->speed[l] > 0)
			return l;
	}
	return -1;
}

/* Estimated speed and ratio of level; 0 when nothing is known. */
static void
za_estimate(const struct zauto *za, int level, double *speed, double *ratio)
{
	int	 m;

	*speed = *ratio = 0;
	if (level == 0) {
		*ratio = 1.0;
		if (za->speed[0] > 0)
			*speed = za->speed[0];
		else if ((m = za_nearest(za, 1)) != -1)
			*speed = za->speed[m] * za->shape->speed[0] /
			    za->shape->speed[m];
		return;
	}
	if (za->speed[level] > 0) {
		*speed = za->speed[level];
		*ratio = za->ratio[level];
		return;
	}
	if ((m = za_nearest(za, level)) == -1)
		return;
	*speed = za->speed[m] * za->shape->speed[level] / za->shape->speed[m];
	*ratio = za->ratio[m] * za->shape->size[level] / za->shape->size[m];
	if (*ratio > 1.0)
		*ratio = 1.0;
}

/* The model's plain bytes per second at level, 0: unknown. */
static double
za_model(const struct zauto *za, int level)
{
	double	 speed, ratio, bylink;

	za_estimate(za, level, &speed, &ratio);
	if (speed <= 0 || ratio <= 0)
		return 0;
	if (za->link <= 0)
		return speed;
	bylink = za->link / ratio;
	return speed < bylink ? speed : bylink;
}

static int
za_fresh(const struct zauto *za, int level)
{
	return za->xput[level] > 0 && za->windows - za->xwhen[level] <
	    ZA_FORGET;
}

/*
 * The compressed bytes a second the link takes: its rate, or more if
 * the current level carried more over windows enough that buffers along
 * the path cannot account for it.  A receiver that reads in bursts makes
 * the stretches that waited read slower than the pipe is.
 */
static double
za_carried(const struct zauto *za)
{
	double	 c;

	if (!za_fresh(za, za->cur) || za->sraw[za->cur] < ZA_CARRIED)
		return za->link;
	c = za->xput[za->cur] * (za->cur == 0 ? 1.0 : za->ratio[za->cur]);
	return c > za->link ? c : za->link;
}

static int	za_bfresh(const struct zauto *, int);

/*
 * Estimated plain bytes per second at level, 0: unknown.  Measured if
 * it was lately; else the model, scaled down by what the nearest level
 * measured against its model: the model knows deflate and the link,
 * not the receiver or the rest of the pipeline, and an estimate that
 * ignores them would always beat a measurement that does not.
 */
static double
za_throughput(const struct zauto *za, int level)
{
	double	 t, mt, speed, ratio;
	int	 d, m;

	if (za->bound && za->linkknown && (za->cur == 0 ||
	    za->ratio[za->cur] > 0)) {
		/*
		 * The link sets the pace: a level gives the link rate over
		 * its ratio, unless it compresses slower than that.  Every
		 * level is judged on the data now sent (the ratio the
		 * current level gets, scaled by the codec's usual shape):
		 * what a level measured in other windows was measured on
		 * other data, and text after binaries would pass for a
		 * better level.  At level 0 the estimates (a trial's) are
		 * all there is; what level 0 itself measured before the
		 * link pushed back went into buffers along the path.
		 */
		za_estimate(za, level, &speed, &ratio);
		if (speed <= 0)
			return 0;
		if (level == 0)
			ratio = 1.0;
		else if (za->cur >= 1)
			ratio = za->ratio[za->cur] * za->shape->size[level] /
			    za->shape->size[za->cur];
		if (ratio <= 0)
			return 0;
		if (ratio > 1.0)
			ratio = 1.0;
		t = za_carried(za) / ratio;
		return speed < t ? speed : t;
	}
	if (za_fresh(za, level)) {
		/*
		 * A level the socket never pushed back at lately carries no
		 * more than a known link does at its ratio: what it took
		 * beyond that (level 0 most of all, at the start of a
		 * session) went into the buffers along the path, and would
		 * pass for a level faster than any that compresses.  One
		 * that was pushed back measured the link, or a receiver
		 * (za_receiver): that stands.
		 */
		t = za->xput[level];
		ratio = level == 0 ? 1.0 : za->ratio[level];
		if (za->linkknown && level != za->cur && !za_bfresh(za, level) &&
		    ratio > 0 && t > (mt = za_carried(za) / ratio))
			t = mt;
		return t;
	}
	if ((t = za_model(za, level)) <= 0)
		return 0;
	for (d = 1; d < ZA_LEVELS; d++) {
		m = level - d;
		if (m < 0 || !za_fresh(za, m))
			m = level + d;
		if (m >= ZA_LEVELS || !za_fresh(za, m))
			continue;
		if ((mt = za_model(za, m)) > za->xput[m])
			t *= za->xput[m] / mt;
		break;
	}
	return t;
}

int
zauto_memo(const struct zauto *za, struct zauto_memo *m)
{
	double	 speed, ratio, best;
	int	 l;

	memset(m, 0, sizeof(*m));
	if (za->windows == 0 && !za->linkknown)
		return -1;
	m->link = za->link;
	m->linkknown = za->linkknown;
	m->codec = za->shape == &za_shapes[ZAUTO_ZSTD] ? ZAUTO_ZSTD :
	    ZAUTO_ZLIB;
	/*
	 * Not the level the session ended at, a moment of whatever it was
	 * trying when the files ran out, but the one it sent the most at
	 * lately: where the policy kept it, probes and trials aside.
	 */
	m->level = za->cur;
	for (l = 0, best = 0; l <= za->cap; l++)
		if (za->spent[l] > best) {
			best = za->spent[l];
			m->level = l;
		}
	/*
	 * A session that believed a remembered link without measuring it
	 * counts towards ZA_RECALLS if it decided anything from it, and
	 * its level did not carry ZA_STALEGAIN times the link; one too
	 * short to decide (a ktcheck's) neither counts nor resets the
	 * count.
	 */
	m->recalls = 0;
	if (za->linkknown && za->recalled) {
		m->recalls = za->recalls;
		if (za->windows > 0 && m->level > 0 &&
		    za_fresh(za, m->level) &&
		    za->xput[m->level] < ZA_STALEGAIN * za->link)
			m->recalls++;
	}
	za_estimate(za, 1, &speed, &ratio);
	if (speed > 0 && ratio > 0 && ratio <= 1.0) {
		m->speed1 = speed;
		m->ratio1 = ratio;
	}
	return 0;
}

/* Is the memo's content within what a policy could have made? */
static int
za_memo_sane(const struct zauto_memo *m)
{
	return (m->codec == ZAUTO_ZLIB || m->codec == ZAUTO_ZSTD) &&
	    m->level >= 0 && m->level < za_shapes[m->codec].nlevels &&
	    m->link >= 0 && m->link <= ZA_LINKMAX &&
	    m->speed1 >= 0 && m->speed1 <= ZA_LINKMAX &&
	    m->ratio1 >= 0 && m->ratio1 <= 1.0 && m->recalls >= 0;
}

void
zauto_recall(struct zauto *za, const struct zauto_memo *m)
{
	const struct za_shape	*from;
	int			 level;

	if (m == NULL || !za_memo_sane(m))
		return;
	from = &za_shapes[m->codec];
	if (m->link > 0) {
		za->link = m->link;
		/* Stale: a lower bound (ZA_RECALLS). */
		za->linkknown = m->linkknown != 0 && m->recalls < ZA_RECALLS;
		/* Believed until the socket says otherwise (ZA_RECALLSEC). */
		if (za->linkknown) {
			za->recalled = 1;
			za->recalls = m->recalls;
			za->rlink = m->link;
			za->proven = m->link * ZA_RECALLSEC;
			if (za->proven < ZA_PROVEN)
				za->proven = ZA_PROVEN;
			if (za->proven > 64 * ZA_PROVEN)
				za->proven = 64 * ZA_PROVEN;
		}
	}
	/*
	 * Level 1's estimates, carried over from the memo's codec by the
	 * two codecs' shapes (relative to zlib's level 1).
	 */
	if (m->speed1 > 0 && m->ratio1 > 0) {
		za->speed[1] = m->speed1 * za->shape->speed[1] / from->speed[1];
		za->ratio[1] = m->ratio1 * za->shape->size[1] / from->size[1];
		if (za->ratio[1] > 1.0)
			za->ratio[1] = 1.0;
		za->trialwhen = 1;
	}
	/*
	 * The level the last session ended at; from the other codec, the
	 * level of this one closest in speed.
	 */
	level = m->level;
	if (from != za->shape && level > 0) {
		for (level = za->cap; level > 1; level--)
			if (za->shape->speed[level] >= from->speed[m->level])
				break;
	}
	if (level > za->cap)
		level = za->cap;
	za->cur = za->wlevel = level;
	za->probing = 0;
}

/* The model's best throughput of a codec up to cap over link, in plain
   bytes/s per zlib-level-1 speed unit, on data whose zlib level 1 ratio
   is ratio1. */
static double
za_best(int codec, int cap, double link, double ratio1)
{
	const struct za_shape	*sh = &za_shapes[codec];
	double			 best = 0, t, r;
	int			 l;

	for (l = 1; l <= cap && l < sh->nlevels; l++) {
		r = ratio1 * sh->size[l];
		t = link / (r < 1.0 ? r : 1.0);
		if (t > sh->speed[l])
			t = sh->speed[l];
		if (t > best)
			best = t;
	}
	return best;
}

int
zauto_choose(const int cap[ZAUTO_NCODECS], const struct zauto_memo *m)
{
	const struct za_shape	*from;
	double			 unit, link, ratio1;

	if (cap[ZAUTO_ZSTD] <= 0)
		return ZAUTO_ZLIB;
	if (cap[ZAUTO_ZLIB] <= 0 || m == NULL || !za_memo_sane(m) ||
	    !m->linkknown || m->link <= 0 || m->speed1 <= 0 || m->ratio1 <= 0)
		return ZAUTO_ZSTD;
	/*
	 * In units of zlib level 1's speed on this server, and of its
	 * ratio on this data, as the memo measured them.
	 */
	from = &za_shapes[m->codec];
	unit = m->speed1 / from->speed[1];
	ratio1 = m->ratio1 / from->size[1];
	link = m->link / unit;
	return za_best(ZAUTO_ZLIB, cap[ZAUTO_ZLIB], link, ratio1) >
	    za_best(ZAUTO_ZSTD, cap[ZAUTO_ZSTD], link, ratio1) *
	    ZAUTO_HYSTERESIS ? ZAUTO_ZLIB : ZAUTO_ZSTD;
}

void
zauto_explain(const struct zauto *za, char *buf, size_t len)
{
	size_t	 o;
	int	 l, n;

	if (len == 0)
		return;
	if (za->link > 0)
		n = snprintf(buf, len, "link %s %.1f MB/s; plain MB/s",
		    za->linkknown ? "=" : ">", za->link / 1e6);
	else
		n = snprintf(buf, len, "link unknown; plain MB/s");
	for (l = 0; l <= za->cap && n > 0 && (o = (size_t)n) < len; l++)
		n += snprintf(buf + o, len - o, " %d%s%.1f", l,
		    za_fresh(za, l) ? "=" : "~", za_throughput(za, l) / 1e6);
}

/*
 * Is level ample: does the link, known and holding the session back,
 * take at level's ratio (on the data now sent) less than 1/ZA_AMPLE of
 * what level deflates?  Then deflate is idle three quarters of the time
 * or more at level, even on data that deflates slower than the average,
 * and its CPU costs no time.  Deflate speed is measured in wall
 * time, so a server whose CPUs are busy with other sessions sees its
 * levels slower, and fewer of them ample.
 */
static int
za_ample(const struct zauto *za, int level)
{
	double	 speed, ratio;

	if (level < 1 || !za->bound || !za->linkknown || za->cur < 1 ||
	    za->ratio[za->cur] <= 0)
		return 0;
	za_estimate(za, level, &speed, &ratio);
	ratio = za->ratio[za->cur] * za->shape->size[level] / za->shape->size[za->cur];
	if (ratio > 1.0)
		ratio = 1.0;
	return speed >= ZA_AMPLE * za->link / ratio;
}

/*
 * Were level's held-back windows recent enough to count?  A receiver's
 * pace lasts (it is the client's machine): twice as long as a level's
 * own throughput.
 */
static int
za_bfresh(const struct zauto *za, int level)
{
	return za->bwall[level] > 0 && za->windows - za->bwhen[level] <
	    2 * ZA_FORGET;
}

/*
 * Is the pace at level b (over cheaper level a) set by plain bytes, by
 * what both measured while the socket held them back: b's compressed
 * bytes a second markedly fewer than a's, and its plain bytes a second
 * no more (up to gain)?  Then the "link" is a receiver writing plain
 * bytes at its own pace, and b's CPU buys nothing.
 */
static int
za_receiver(const struct zauto *za, int a, int b, double gain)
{
	double	 apace;

	if (!za_bfresh(za, a) || !za_bfresh(za, b))
		return 0;
	apace = za->braw[a] / za->bwall[a];
	/*
	 * Unless b carried markedly more than that over its whole windows
	 * lately: then b was held back by the receiver only in some
	 * stretches (directories of small files among large ones), and a
	 * by the link.
	 */
	if (za_fresh(za, b) && za->xput[b] > ZAUTO_HYSTERESIS * apace)
		return 0;
	return za->bzout[b] / za->bwall[b] < ZA_RECEIVER * za->bzout[a] /
	    za->bwall[a] && za->braw[b] / za->bwall[b] <= gain * apace;
}

/*
 * Did the dearer level b, when the session last tried it (within
 * 2 * ZA_FORGET windows), carry fewer plain bytes a second than level
 * a carries now?  Then what the model promised for b did not happen:
 * something the model does not see (a receiver, the CPUs the two ends
 * share) set the pace, and b is not tried again until that is old.
 */
static int
za_refuted(const struct zauto *za, int a, int b)
{
	return za->xput[b] > 0 && za->windows - za->xwhen[b] <
	    2 * ZA_FORGET && za_fresh(za, a) && za->xput[b] < za->xput[a];
}

/*
 * Forget what level carried, and what it carried while held back: from
 * now on the model and the level's speed and ratio stand for it, until
 * it is measured again.
 */
static void
za_forget(struct zauto *za, int level)
{
	za->sxraw[level] = za->sxwall[level] = za->xput[level] = 0;
	za->braw[level] = za->bzout[level] = za->bwall[level] = 0;
}

/*
 * The session leaves level cur for the cheaper level pick: a loss of cur
 * (ZA_AGAIN) unless the link is not known yet (a probe of pick); recv
 * if the receiver set the pace at both (za_receiver).
 */
static void
za_leave(struct zauto *za, int pick, int recv)
{
	unsigned	 n;

	if (za->linkknown) {
		n = za->lost[za->cur] < ZA_AGAINMAX ? za->lost[za->cur] :
		    ZA_AGAINMAX;
		if (!recv && za_fresh(za, za->cur) && za_fresh(za, pick) &&
		    za->xput[za->cur] < ZA_LOSTBIG * za->xput[pick])
			n = ZA_AGAINMAX;
		za->againwhen[za->cur] = za->windows + ((uint64_t)ZA_AGAIN << n);
		za->lost[za->cur]++;
		za->lostpace[za->cur] = recv && za_fresh(za, pick) ?
		    za->xput[pick] : 0;
	}
	za->kept[za->cur] = 0;
	za->cur = pick;
}

static void
za_decide(struct zauto *za)
{
	double	 t, best, cur, give;
	int	 l, pick, blocked;

	/*
	 * Up only for a gain of more than ZAUTO_HYSTERESIS; down for a
	 * loss of less than ZAUTO_GIVE: a cheaper level costs both ends
	 * less CPU, and when something else than deflate and the link
	 * sets the pace (the receiver) every level measures about the
	 * same.  The two cannot both hold for one pair: no oscillation.
	 *
	 * On a link far slower than deflate the CPU a level costs is
	 * free: up to an ample level for any gain above ZA_AMPLEGAIN (a
	 * fraction of a percent is as much time on a slow link), and from
	 * an ample level down for no loss at all.  Again the two cannot
	 * both hold.
	 */
	/*
	 * Dearer levels whose verdict is stale (ZA_AGAIN): old, or made by
	 * a receiver's pace when the current level carried markedly less
	 * than it does now (the receiver or the data changed).
	 */
	for (l = za->cur + 1; l <= za->cap; l++)
		if (za->againwhen[l] != 0 && (za->windows >= za->againwhen[l] ||
		    (za->lostpace[l] > 0 && za_fresh(za, za->cur) &&
		    za->xput[za->cur] > za->lostpace[l] * ZAUTO_HYSTERESIS))) {
			za->againwhen[l] = 0;
			za_forget(za, l);
		}
	cur = za_throughput(za, za->cur);
	pick = za->cur;
	/*
	 * Measured truth first: a cheaper level that carried as many plain
	 * bytes while the receiver, not the link, set the pace is taken,
	 * and a dearer one that carried no more is not tried again (until
	 * its measurements are ZA_FORGET windows old).
	 */
	for (l = 0; l < za->cur; l++)
		if (za_receiver(za, l, za->cur, 1.0 / ZAUTO_GIVE)) {
			za->probing = 0;
			za_leave(za, l, 1);
			return;
		}
	best = 0;
	/* A level that bought nothing: no dearer one will either. */
	for (l = za->cur + 1, blocked = 0; l <= za->cap; l++) {
		if (blocked || za_receiver(za, za->cur, l, ZAUTO_HYSTERESIS) ||
		    za_refuted(za, za->cur, l)) {
			blocked = 1;
			continue;
		}
		t = za_throughput(za, l);
		if (t > best && t > cur * (za_ample(za, l) ? ZA_AMPLEGAIN :
		    ZAUTO_HYSTERESIS)) {
			best = t;
			pick = l;
		}
	}
	if (pick == za->cur) {
		give = za_ample(za, za->cur) ? 1.0 : ZAUTO_GIVE;
		for (l = 0; l < za->cur; l++) {
			/* Cheaper levels only on a link known to take it. */
			if (!za->linkknown && za->free < za->proven)
				break;
			if ((t = za_throughput(za, l)) >= cur * give) {
				pick = l;
				break;
			}
		}
	}
	za->probing = pick < za->cur && !za->linkknown;
	if (pick < za->cur)
		za_leave(za, pick, 0);
	else
		za->cur = pick;
}

/* The median of v[0..n-1], n >= 1 (v is left as it was). */
static double
za_median(const double *v, unsigned n)
{
	double		 w[ZA_DRAINS > ZA_PUSHED ? ZA_DRAINS : ZA_PUSHED], t;
	unsigned	 i, j;

	memcpy(w, v, n * sizeof(w[0]));
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && w[j - 1] > w[j]; j--) {
			t = w[j];
			w[j] = w[j - 1];
			w[j - 1] = t;
		}
	return n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
}

/*
 * What the link drained over the window's stretches from its first wait
 * on: their compressed bytes over their time, less the stretches that
 * took under a quarter of the median stretch's rate.  Those waited for
 * the receiver (making a directory, syncing), not for the link; the
 * others, whether they waited or found room the link had just drained,
 * are the link's pace together.
 */
static double
za_drained(const struct zauto *za)
{
	double		 rate[ZA_DRAINS] = { 0 }, med, z = 0, w = 0;
	unsigned	 i, n = za->nps < ZA_DRAINS ? za->nps : ZA_DRAINS;

	for (i = 0; i < n; i++)
		rate[i] = za->pzs[i] / za->pws[i];
	med = za_median(rate, n);
	for (i = 0; i < n; i++)
		if (rate[i] * 4 >= med) {
			z += za->pzs[i];
			w += za->pws[i];
		}
	return z / w;
}

/* Start gathering a window anew. */
static void
za_restart(struct zauto *za)
{
	za->draw = za->dzout = za->dwall = 0;
	za->ndrains = za->nps = 0;
	za->raw = za->zout = za->def = za->wall = za->stall = 0;
	za->praw = za->pzout = za->pdef = za->pwall = za->pstall = 0;
}

int
zauto_sample(struct zauto *za, int level, uint64_t raw, uint64_t zout,
    uint64_t def_ns, uint64_t wall_ns, uint64_t stall_ns)
{
	double	 rate, floor, sample;
	int	 l;

	if (level < 0 || level >= ZA_LEVELS)
		return za->cur;
	if (level != za->wlevel) {
		/* A stretch at another level: start the window again. */
		za_restart(za);
		za->wlevel = level;
	}
	za->raw += raw;
	za->zout += zout;
	za->def += def_ns;
	za->wall += wall_ns;
	za->stall += stall_ns;
	if (stall_ns * 2 >= wall_ns && zout >= ZA_DRAINMIN && wall_ns > 0) {
		za->draw += (double)raw;
		za->dzout += (double)zout;
		za->dwall += (double)wall_ns / 1e9;
		za->drains[za->ndrains++ % ZA_DRAINS] = (double)zout /
		    ((double)wall_ns / 1e9);
	}
	if (stall_ns > 0 || za->pwall > 0) {
		if (zout >= ZA_DRAINMIN && wall_ns > 0) {
			za->pzs[za->nps % ZA_DRAINS] = (double)zout;
			za->pws[za->nps++ % ZA_DRAINS] = (double)wall_ns / 1e9;
		}
		za->praw += raw;
		za->pzout += zout;
		za->pdef += def_ns;
		za->pwall += wall_ns;
		za->pstall += stall_ns;
	}
	/*
	 * The first decisions come sooner (a quarter, then half a window):
	 * the level the session starts at is a guess, and most of what
	 * it costs on the wrong link is paid before the first decision.
	 * A probe of a cheaper level ends as soon as the socket pushes
	 * back: the link has answered, and every byte more at the cheaper
	 * level costs the difference.
	 */
	if (za->def == 0 || za->wall == 0)
		return za->cur;
	if (za->raw < (za->windows < 2 ? ZAUTO_WINDOW / 4 : za->windows < 3 ?
	    ZAUTO_WINDOW / 2 : ZAUTO_WINDOW)) {
		if (!za->probing || za->raw < ZAUTO_PROBEMIN ||
		    za->pzout < ZAUTO_PROBEMIN / 2 || za->pwall < ZA_PROBENS ||
		    za->pdef == 0 || za->pstall * 10 <= za->pwall)
			return za->cur;
		/*
		 * The probe ends: judge the level by the part since the
		 * socket first pushed back.  What went before only filled
		 * the buffers along the path, at no cost in time.
		 */
		za->raw = za->praw;
		za->zout = za->pzout;
		/* And the next probe needs twice the proof. */
		if (za->proven < 64 * ZA_PROVEN)
			za->proven *= 2;
		za->def = za->pdef;
		za->wall = za->pwall;
		za->stall = za->pstall;
	}

	za->windows++;
	if (za->windows - za->xwhen[level] >= ZA_FORGET)
		za->sraw[level] = za->szout[level] = za->sdef[level] =
		    za->swall[level] = za->sxraw[level] = za->sxwall[level] = 0;
	za->sraw[level] = za->sraw[level] * ZA_DECAY + (double)za->raw;
	za->szout[level] = za->szout[level] * ZA_DECAY + (double)za->zout;
	za->sdef[level] = za->sdef[level] * ZA_DECAY + (double)za->def / 1e9;
	za->swall[level] = za->swall[level] * ZA_DECAY +
	    (double)za->wall / 1e9;
	za->xwhen[level] = za->windows;
	/* Measured anew: no older verdict is left to forget. */
	za->againwhen[level] = 0;
	for (l = 0; l < ZA_LEVELS; l++)
		za->spent[l] *= ZA_DECAY;
	za->spent[level] += (double)za->raw;
	za->speed[level] = za->sraw[level] / za->sdef[level];
	if (level > 0)
		za->ratio[level] = za->szout[level] / za->sraw[level];
	if (za->stall > 0 && za->pwall > 0 && za->praw >= ZA_DRAINMIN) {
		za->sxraw[level] = za->sxraw[level] * ZA_DECAY +
		    (double)za->praw;
		za->sxwall[level] = za->sxwall[level] * ZA_DECAY +
		    (double)za->pwall / 1e9;
	} else if (za->linkknown && za->sxwall[level] > 0 &&
	    (double)za->zout / ((double)za->wall / 1e9) > ZA_FILL * za->link) {
		/*
		 * Faster than the known link, and never held back: all of
		 * it went into the buffers along the path.  Not the level's
		 * pace; should the link be faster now, the link's own
		 * estimate learns it (below), and then this does too.
		 */
	} else {
		za->sxraw[level] = za->sxraw[level] * ZA_DECAY +
		    (double)za->raw;
		za->sxwall[level] = za->sxwall[level] * ZA_DECAY +
		    (double)za->wall / 1e9;
	}
	za->xput[level] = za->sxraw[level] / za->sxwall[level];

	za->lzout = za->lzout * ZA_DECAY + (double)za->zout;
	za->lwall = za->lwall * ZA_DECAY + (double)za->wall / 1e9;
	za->lstall = za->lstall * ZA_DECAY + (double)za->stall / 1e9;
	rate = za->lzout / za->lwall;
	/* Held back for a quarter of its time or more: the link's pace. */
	za->bound = za->stall * 4 > za->wall;
	/*
	 * Only the stretches that waited: a burst taken by buffers along
	 * the path would make a level's pace read high.
	 */
	if (za->bound && za->dwall > 0) {
		if (za->windows - za->bwhen[level] >= 2 * ZA_FORGET)
			za->braw[level] = za->bzout[level] =
			    za->bwall[level] = 0;
		za->braw[level] = za->braw[level] * ZA_DECAY + za->draw;
		za->bzout[level] = za->bzout[level] * ZA_DECAY + za->dzout;
		za->bwall[level] = za->bwall[level] * ZA_DECAY + za->dwall;
		za->bwhen[level] = za->windows;
	}
	if (za->stall * 10 > za->wall)
		za->free = 0;
	else
		za->free += (double)za->zout;
	if (za->lstall * 10 > za->lwall) {
		/*
		 * The socket pushed back: the link takes about what it
		 * took in the recent windows that pushed back.  Only this
		 * window's rate, if it pushed back itself: one that did not
		 * (a level compressing slower than the link drains, after
		 * windows that pushed back) measured the level, not the
		 * link.  Of a window that waited for most of its time since
		 * it first did, what all its stretches from then on took
		 * (za_drained): of only those that waited, the slowest would
		 * be chosen (a link that drains unevenly, as a shaper does).
		 * Else the median of the stretches that waited, or the rate
		 * if it waited for most of its time.  A window that waited
		 * less, and in none of its stretches long (replies waiting
		 * behind what went before) says nothing of the link, unless
		 * nothing else has.
		 */
		sample = 0;
		if (za->pstall * 2 >= za->pwall && za->nps >= 4)
			sample = za_drained(za);
		else if (za->ndrains > 0)
			sample = za_median(za->drains, za->ndrains <
			    ZA_DRAINS ? za->ndrains : ZA_DRAINS);
		else if (za->stall * 2 >= za->wall ||
		    (za->npushed == 0 && za->stall * 10 > za->wall))
			sample = (double)za->zout / ((double)za->wall / 1e9);
		if (sample > 0) {
			za->pushed[za->npushed++ % ZA_PUSHED] = sample;
			za->link = za_median(za->pushed, za->npushed <
			    ZA_PUSHED ? za->npushed : ZA_PUSHED);
			/*
			 * Until a few windows pushed back, one pause of
			 * the receiver (making directories, syncing) would
			 * pass for a slow link: the link takes at least
			 * what the windows took, or what the last session
			 * measured, if it was remembered (the windows'
			 * rate still holds the session's first burst).
			 */
			floor = za->rlink > 0 ? za->rlink : rate;
			if (za->npushed < 3 && za->link < floor)
				za->link = floor;
			za->linkwhen = za->windows;
		}
		za->linkknown = 1;
		/* Measured here now: what the memo said is replaced. */
		if (za->recalled) {
			za->recalled = 0;
			za->proven = ZA_PROVEN;
		}
	} else if (za->recalled && za->free < za->proven) {
		/*
		 * The link the last session measured, and this one has
		 * not yet seen the socket push back: what it took so far
		 * went into the buffers along the path.
		 */
	} else if (za->linkknown && (double)za->zout / ((double)za->wall /
	    1e9) <= ZA_FILL * za->link &&
	    za->windows - za->linkwhen < ZA_LINKKEPT) {
		/*
		 * It took all we gave in this window, but about no more
		 * than the link it pushed back at lately carries (the
		 * recent windows' rate may still hold the session's first
		 * burst; the link's estimate is a median, and a window may
		 * beat it by a little): a level that compresses slower
		 * than the link drains says nothing new of the link.
		 * Forgetting it would send the session back to probe a
		 * cheaper level the link already refused.  Kept for
		 * ZA_LINKKEPT windows: a link may get faster.
		 */
	} else {
		/* It took all we gave: at least this, maybe much more. */
		if (za->link < rate || za->linkknown)
			za->link = rate;
		if (za->recalled) {
			za->recalled = 0;
			za->proven = ZA_PROVEN;
		}
		/* Grows until the socket pushes back; bounded all the same. */
		if (za->link < ZA_LINKMAX)
			za->link *= ZA_PROBE;
		za->linkknown = 0;
	}
	za_restart(za);
	za_decide(za);
	/* Kept (or left for a dearer one) long enough: no longer a loser. */
	if (za->cur >= level && ++za->kept[level] >= ZA_AGAIN)
		za->lost[level] = 0;
	za->wlevel = za->cur;
	return za->cur;
}
