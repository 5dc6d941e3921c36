/*
 * check_zauto.c: the automatic level (common/zauto.c), the judge of
 * incompressible data, and splicing ready-made deflate data into a
 * stream (common/zstream.c).
 */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "buf.h"
#include "cerr.h"
#include "zauto.h"
#include "zstream.h"
#include "unit.h"

/*
 * Feed policy windows of a simulated sender: deflate at speed[level]
 * plain bytes/s and ratio[level], over a link taking link compressed
 * bytes/s (0: unlimited).  Returns the level after n windows; *max gets
 * the highest level it ever chose.
 */
static int
simulate_recv(struct zauto *za, const double *speed, const double *ratio,
    double link, double recv, int n, int *max, int *at0)
{
	uint64_t	 raw = ZAUTO_WINDOW, zout, def, wall, stall;
	double		 tdef, tlink;
	int		 i, level = zauto_level(za);

	*max = level;
	*at0 = 0;
	for (i = 0; i < n; i++) {
		zout = (uint64_t)(raw * ratio[level]);
		tdef = raw / speed[level];
		tlink = link > 0 ? zout / link : 0;
		/* A receiver taking recv plain bytes/s is a link too. */
		if (recv > 0 && raw / recv > tlink)
			tlink = raw / recv;
		def = (uint64_t)(tdef * 1e9);
		wall = (uint64_t)((tdef > tlink ? tdef : tlink) * 1e9);
		stall = tlink > tdef ? (uint64_t)((tlink - tdef) * 1e9) : 0;
		if (level == 0)
			(*at0)++;
		/* At level 0 the sender tries level 1 on a sample. */
		if (level == 0 && zauto_wants_trial(za))
			zauto_trial(za, 1, ZAUTO_TRIAL,
			    (uint64_t)(ZAUTO_TRIAL * ratio[1]),
			    (uint64_t)(ZAUTO_TRIAL / speed[1] * 1e9));
		level = zauto_sample(za, level, raw, zout, def, wall, stall);
		if (level > *max)
			*max = level;
	}
	return level;
}

static int
simulate(struct zauto *za, const double *speed, const double *ratio,
    double link, int n, int *max)
{
	int	 at0;

	return simulate_recv(za, speed, ratio, link, 0, n, max, &at0);
}

/* Text-like data: zlib's usual shape, 100 MB/s at level 1. */
static const double speed[10] = {
	4e9, 100e6, 92e6, 80e6, 62e6, 45e6, 33e6, 27e6, 14e6, 9e6
};
static const double ratio[10] = {
	1.0, 0.30, 0.29, 0.285, 0.27, 0.26, 0.255, 0.254, 0.252, 0.25
};

START_TEST(test_fast_link_goes_cheap)
{
	struct zauto	*za = zauto_new(ZAUTO_ZLIB, 9, 1);
	int		 max;

	/* Nothing ever pushes back: the cheapest level, stored blocks. */
	ck_assert_int_eq(simulate(za, speed, ratio, 0, 80, &max), 0);
	ck_assert_int_le(max, 9);
	zauto_free(za);
}
END_TEST

START_TEST(test_slow_link_compresses_more)
{
	struct zauto	*za = zauto_new(ZAUTO_ZLIB, 9, 1);
	int		 max, l;

	/*
	 * 1 MB/s of compressed bytes: every level's deflate outruns it, so
	 * the best ratio pays (level 1: 3.3 MB/s of plain; 9: 4 MB/s).
	 */
	l = simulate(za, speed, ratio, 1e6, 60, &max);
	ck_assert_int_ge(l, 5);
	zauto_free(za);
}
END_TEST

START_TEST(test_middle_link)
{
	struct zauto	*za = zauto_new(ZAUTO_ZLIB, 9, 1);
	int		 max, l;

	/*
	 * 12.5 MB/s (100 Mbit): level 1 gives min(100, 41.7) = 41.7 MB/s
	 * of plain bytes, level 6 only 33: neither stored (12.5) nor high.
	 */
	l = simulate(za, speed, ratio, 12.5e6, 60, &max);
	ck_assert_int_ge(l, 1);
	ck_assert_int_le(l, 5);
	zauto_free(za);
}
END_TEST

/*
 * One window at level that got xput plain bytes/s on data that level
 * shrinks to r: with pushed, deflate took a fraction of the time and the
 * socket made the sender wait for the rest; else deflate took it all.
 */
static int
feed(struct zauto *za, int level, double xput, double r, int pushed)
{
	uint64_t	 raw = ZAUTO_WINDOW;
	double		 twall = raw / xput, tdef = pushed ? raw / 200e6 : twall;

	return zauto_sample(za, level, raw, (uint64_t)(raw * r),
	    (uint64_t)(tdef * 1e9), (uint64_t)(twall * 1e9),
	    (uint64_t)((twall - tdef) * 1e9));
}

START_TEST(test_equal_goes_cheaper)
{
	struct zauto	*za = zauto_new(ZAUTO_ZLIB, 3, 3);
	int		 l;

	/*
	 * Level 1 and level 3 (the cap) both deflate 60 MB/s and the
	 * socket never pushed back: the cheaper level costs both ends
	 * less for the same pace, so the policy goes down to it (once the
	 * link took enough to be believed).
	 */
	(void)feed(za, 1, 60e6, 0.30, 0);
	(void)feed(za, 3, 60e6, 0.285, 0);
	l = feed(za, 3, 60e6, 0.285, 0);
	ck_assert_int_le(l, 1);
	zauto_free(za);

	/*
	 * Not for a loss: with level 3 measured 20% better, level 1 is
	 * not taken (stored blocks may be: the link was never seen to
	 * end, and level 0 is a probe of it).
	 */
	za = zauto_new(ZAUTO_ZLIB, 3, 3);
	(void)feed(za, 1, 50e6, 0.30, 0);
	(void)feed(za, 3, 60e6, 0.285, 0);
	l = feed(za, 3, 60e6, 0.285, 0);
	ck_assert(l == 0 || l == 3);
	zauto_free(za);
}
END_TEST

START_TEST(test_pushed_back_judged_on_this_data)
{
	struct zauto	*za = zauto_new(ZAUTO_ZLIB, 3, 3);
	int		 l;

	/*
	 * The link sets the pace (15 MB/s).  Level 1 measured 60 MB/s of
	 * plain bytes on text that shrank to a quarter; level 3 then 45
	 * MB/s on binaries that shrink to a third.  Level 1 is not faster:
	 * it had easier data.  On this data it would send more bytes
	 * over the same link, so level 3 stays.
	 */
	(void)feed(za, 1, 60e6, 0.25, 1);
	l = feed(za, 3, 45e6, 0.333, 1);
	ck_assert_int_eq(l, 3);
	zauto_free(za);
}
END_TEST

START_TEST(test_small_gain_taken)
{
	struct zauto	*za = zauto_new(ZAUTO_ZLIB, 9, 1);
	/* The standard corpus: level 6 saves 6% more than level 1. */
	static const double cratio[10] = {
		1.0, 0.49, 0.48, 0.475, 0.465, 0.462, 0.46, 0.459, 0.458,
		0.457
	};
	int		 max, l;

	/*
	 * 2.5 MB/s (20 Mbit): every level's deflate outruns the link, so
	 * the best ratio pays, small as its gain over level 1 is: the
	 * policy ends within 2% of it.
	 */
	l = simulate(za, speed, cratio, 2.5e6, 80, &max);
	ck_assert(cratio[l] <= 1.02 * cratio[9]);
	zauto_free(za);
}
END_TEST

START_TEST(test_ample_cpu_best_ratio)
{
	/* The standard corpus again: 0.2% between level 8 and level 9. */
	static const double cratio[10] = {
		1.0, 0.49, 0.48, 0.475, 0.465, 0.462, 0.46, 0.459, 0.458,
		0.457
	};
	struct zauto	*za;
	int		 i, l, max, cap;

	/*
	 * 1 MB/s (8 Mbit): even level 9 deflates four times the plain
	 * bytes the link takes, so its CPU costs no time, and the best
	 * ratio is taken however small its gain: the cap, and it stays.
	 */
	for (cap = 6; cap <= 9; cap += 3) {
		za = zauto_new(ZAUTO_ZLIB, cap, 1);
		l = simulate(za, speed, cratio, 1e6, 40, &max);
		ck_assert_int_eq(l, cap);
		ck_assert_int_le(max, cap);
		for (i = 0; i < 40; i++) {
			l = simulate(za, speed, cratio, 1e6, 1, &max);
			ck_assert_int_eq(l, cap);
		}
		zauto_free(za);
	}

	/*
	 * 2.5 MB/s (20 Mbit): the link takes 5.5 MB/s of plain bytes.
	 * Levels 8 and 9 deflate less than four times that, and would
	 * set the pace on data that deflates slower than the average;
	 * level 7 (27 MB/s) has the margin, and is taken for its 0.6%.
	 */
	za = zauto_new(ZAUTO_ZLIB, 9, 1);
	l = simulate(za, speed, cratio, 2.5e6, 80, &max);
	ck_assert_int_eq(l, 7);
	zauto_free(za);

	/*
	 * 12.5 MB/s (100 Mbit): no level is ample, the usual gain is
	 * needed, and level 6 (33 MB/s) never gains it over level 1.
	 */
	za = zauto_new(ZAUTO_ZLIB, 9, 1);
	l = simulate(za, speed, ratio, 12.5e6, 60, &max);
	ck_assert_int_le(max, 5);
	zauto_free(za);
}
END_TEST

/*
 * A sender deflating at sp[level] plain bytes/s, writing stretches of
 * 64 KB of plain bytes into a path that
 * holds queue compressed bytes ahead of a link taking link bytes/s: the
 * socket pushes back only once the queue is full.  Feeds the policy
 * total plain bytes; returns the plain bytes it sent at level 0 and,
 * in *probes, how many times it went down to level 0.
 */
static double
simulate_queue(struct zauto *za, const double *sp, const double *r,
    double link, double queue, double total, int *probes)
{
	const double	 piece = 65536;
	double		 q = 0, sent, at0 = 0, tdef, zout, t, stall;
	int		 level = zauto_level(za), prev = level;

	*probes = 0;
	for (sent = 0; sent < total; sent += piece) {
		tdef = piece / sp[level];
		zout = piece * r[level];
		/* The link drains the queue while deflate works. */
		q -= link * tdef;
		if (q < 0)
			q = 0;
		stall = 0;
		if (q + zout > queue) {
			stall = (q + zout - queue) / link;
			q = queue;
		} else
			q += zout;
		t = tdef + stall;
		if (level == 0)
			at0 += piece;
		/* At level 0 the sender tries level 1 on a sample. */
		if (level == 0 && zauto_wants_trial(za))
			zauto_trial(za, 1, ZAUTO_TRIAL,
			    (uint64_t)(ZAUTO_TRIAL * r[1]),
			    (uint64_t)(ZAUTO_TRIAL / sp[1] * 1e9));
		prev = level;
		level = zauto_sample(za, level, (uint64_t)piece,
		    (uint64_t)zout, (uint64_t)(tdef * 1e9), (uint64_t)(t * 1e9),
		    (uint64_t)(stall * 1e9));
		if (level == 0 && prev != 0)
			(*probes)++;
	}
	return at0;
}

START_TEST(test_deep_queue_probe)
{
	struct zauto	*za = zauto_new(ZAUTO_ZLIB, 9, 1);
	/* Logs and text that shrink tenfold: level 1 makes 5 MB/s. */
	static const double cratio[10] = {
		1.0, 0.10, 0.098, 0.096, 0.092, 0.09, 0.088, 0.087, 0.086,
		0.085
	};
	double		 at0;
	int		 probes;

	/*
	 * 100 Mbit/s behind 1 MB of queues: level 1's output never fills
	 * the link, so the policy tries level 0, whose 12.5 MB/s of plain
	 * bytes lose to level 1's 50.  The probe ends once the queue is
	 * full and the socket pushed back, not a window later; each probe
	 * the link refused makes the next one wait twice as long.
	 */
	at0 = simulate_queue(za, speed, cratio, 12.5e6, 1024 * 1024,
	    200.0 * 1024 * 1024, &probes);
	ck_assert_int_ge(probes, 1);
	ck_assert_int_le(probes, 4);
	ck_assert(at0 / probes < 1.5 * 1024 * 1024);
	ck_assert_int_ge(zauto_level(za), 1);
	zauto_free(za);

	/* No queue to fill, gigabit: level 0 is found, and kept. */
	za = zauto_new(ZAUTO_ZLIB, 9, 1);
	at0 = simulate_queue(za, speed, cratio, 125e6, 256 * 1024,
	    100.0 * 1024 * 1024, &probes);
	ck_assert_int_eq(zauto_level(za), 0);
	ck_assert(at0 > 50.0 * 1024 * 1024);
	zauto_free(za);
}
END_TEST

/*
 * Started at 0 (the default): a fast link keeps it there; on a slow one
 * the trial of level 1 is what lets the policy go up, and it does.
 */
START_TEST(test_start_at_0)
{
	struct zauto	*za;
	int		 max, level;

	za = zauto_new(ZAUTO_ZLIB, 9, 0);
	ck_assert_int_eq(zauto_level(za), 0);
	ck_assert(zauto_wants_trial(za));
	level = simulate(za, speed, ratio, 0, 12, &max);
	ck_assert_int_eq(level, 0);
	ck_assert_int_eq(max, 0);
	zauto_free(za);

	za = zauto_new(ZAUTO_ZLIB, 9, 0);
	level = simulate(za, speed, ratio, 2e6, 12, &max);
	ck_assert_int_ge(level, 6);
	zauto_free(za);

	/* zstd's levels go to 19; the cap still holds. */
	za = zauto_new(ZAUTO_ZSTD, 3, 0);
	level = simulate(za, speed, ratio, 2e6, 12, &max);
	ck_assert_int_eq(level, 3);
	ck_assert_int_le(max, 3);
	zauto_free(za);
}
END_TEST

/*
 * A memo: the next session starts where the last one ended, with its
 * link; one from the other codec lands on a level of like speed.  The
 * codec: zstd unless a known slow link and zstd's low cap make zlib's
 * best level carry more.
 */
START_TEST(test_memo)
{
	struct zauto		*za;
	struct zauto_memo	 m, bad;
	int			 max, level, cap[ZAUTO_NCODECS];

	za = zauto_new(ZAUTO_ZLIB, 9, 1);
	ck_assert_int_eq(zauto_memo(za, &m), -1);	/* nothing learned */
	level = simulate(za, speed, ratio, 2e6, 16, &max);
	ck_assert_int_eq(zauto_memo(za, &m), 0);
	ck_assert_int_eq(m.codec, ZAUTO_ZLIB);
	ck_assert_int_eq(m.level, level);
	ck_assert(m.linkknown && m.link > 1.5e6 && m.link < 2.5e6);
	ck_assert(m.speed1 > 0 && m.ratio1 > 0.2 && m.ratio1 < 0.4);
	zauto_free(za);

	za = zauto_new(ZAUTO_ZLIB, 9, 0);
	zauto_recall(za, &m);
	ck_assert_int_eq(zauto_level(za), level);
	ck_assert(zauto_linkrate(za) == m.link);
	ck_assert(!zauto_wants_trial(za) || level > 0);
	zauto_free(za);
	/* Into zstd capped at 3: its top level. */
	za = zauto_new(ZAUTO_ZSTD, 3, 0);
	zauto_recall(za, &m);
	ck_assert_int_eq(zauto_level(za), 3);
	zauto_free(za);
	/* A memo out of range is ignored. */
	bad = m;
	bad.level = 42;
	za = zauto_new(ZAUTO_ZLIB, 9, 0);
	zauto_recall(za, &bad);
	ck_assert_int_eq(zauto_level(za), 0);
	bad = m;
	bad.ratio1 = 7;
	zauto_recall(za, &bad);
	ck_assert_int_eq(zauto_level(za), 0);
	zauto_free(za);

	cap[ZAUTO_ZLIB] = 9;
	cap[ZAUTO_ZSTD] = 3;
	ck_assert_int_eq(zauto_choose(cap, NULL), ZAUTO_ZSTD);
	ck_assert_int_eq(zauto_choose(cap, &m), ZAUTO_ZSTD);
	cap[ZAUTO_ZSTD] = 1;
	ck_assert_int_eq(zauto_choose(cap, NULL), ZAUTO_ZSTD);
	ck_assert_int_eq(zauto_choose(cap, &m), ZAUTO_ZLIB);
	/* On a link faster than level 1 of either: zstd's speed wins. */
	bad = m;
	bad.link = 1e9;
	ck_assert_int_eq(zauto_choose(cap, &bad), ZAUTO_ZSTD);
	cap[ZAUTO_ZSTD] = 0;
	ck_assert_int_eq(zauto_choose(cap, NULL), ZAUTO_ZLIB);
}
END_TEST

/*
 * A receiver that writes 40 MB/s of plain bytes whatever they came as
 * (no link to speak of): every level makes the socket wait, and the
 * compressed bytes it takes fall as the level compresses more.  That
 * is no link to compress for: the policy settles at level 0, trying a
 * dearer level now and then.  A real link of 12 MB/s, by contrast,
 * takes as many compressed bytes at every level: compression stays.
 */
START_TEST(test_receiver_not_link)
{
	struct zauto	*za;
	int		 max, at0, level;

	za = zauto_new(ZAUTO_ZLIB, 3, 0);
	level = simulate_recv(za, speed, ratio, 0, 40e6, 40, &max, &at0);
	ck_assert_int_ge(at0, 24);
	zauto_free(za);
	za = zauto_new(ZAUTO_ZSTD, 3, 0);
	level = simulate_recv(za, speed, ratio, 0, 40e6, 40, &max, &at0);
	ck_assert_int_ge(at0, 24);
	zauto_free(za);

	za = zauto_new(ZAUTO_ZLIB, 3, 0);
	level = simulate_recv(za, speed, ratio, 12e6, 0, 40, &max, &at0);
	ck_assert_int_ge(level, 1);
	ck_assert_int_le(at0, 4);
	zauto_free(za);
}
END_TEST

/*
 * Gigabit with zstd: level 0 is held to the link's 120 MB/s, level 1
 * deflates 300 MB/s of plain bytes into 96 MB/s, less than the link
 * drains, so its socket never pushes back.  Once level 0 has shown the
 * link, level 1's windows (which say nothing new of it) do not make the
 * session forget it and go back to probe level 0 again and again.
 */
START_TEST(test_known_link_kept)
{
	static const double zsp[4] = { 4e9, 300e6, 240e6, 180e6 };
	static const double zr[4] = { 1.0, 0.32, 0.30, 0.29 };
	struct zauto	*za;
	double		 at0;
	int		 probes;

	za = zauto_new(ZAUTO_ZSTD, 3, 0);
	at0 = simulate_queue(za, zsp, zr, 120e6, 256 * 1024,
	    80.0 * 1024 * 1024, &probes);
	ck_assert_int_eq(zauto_level(za), 1);
	ck_assert_int_le(probes, 1);
	ck_assert(at0 < 8.0 * 1024 * 1024);
	zauto_free(za);
}
END_TEST

/*
 * The memo names the level the session sent the most at lately, not the
 * level it happened to end at: a probe of level 0 at the end of a pull
 * on a link, or a try of level 1 at the end of one on loopback, does not
 * decide where the next session starts.
 */
START_TEST(test_memo_level_kept)
{
	struct zauto		*za;
	struct zauto_memo	 m;
	int			 i;

	za = zauto_new(ZAUTO_ZSTD, 3, 0);
	for (i = 0; i < 6; i++)
		(void)feed(za, 0, 300e6, 1.0, 1);
	ck_assert_int_eq(feed(za, 1, 320e6, 0.45, 1), 1);
	ck_assert_int_eq(zauto_memo(za, &m), 0);
	ck_assert_int_eq(m.level, 0);
	zauto_free(za);

	za = zauto_new(ZAUTO_ZSTD, 3, 1);
	for (i = 0; i < 6; i++)
		(void)feed(za, 1, 270e6, 0.45, 0);
	(void)feed(za, 0, 120e6, 1.0, 1);
	ck_assert_int_eq(zauto_memo(za, &m), 0);
	ck_assert_int_eq(m.level, 1);
	zauto_free(za);
}
END_TEST

/*
 * A session started from a memo of a known 10 MB/s link: its first
 * windows go into the buffers along the path at memory speed, the
 * socket not yet pushing back.  That is no news of the link: the level
 * the last session kept stays.  A memo gone stale (the link is now
 * unlimited) is dropped once the socket has taken, without pushing
 * back, a quarter of a second of the remembered link, and the session goes
 * down to stored blocks.
 */
/*
 * A memo of a zstd session that ended at level over a known link of
 * link B/s, zstd level 1 deflating 300 MB/s to 0.45.
 */
static void
memo_zstd(struct zauto_memo *m, int level, double link)
{
	memset(m, 0, sizeof(*m));
	m->codec = ZAUTO_ZSTD;
	m->level = level;
	m->link = link;
	m->linkknown = 1;
	m->speed1 = 300e6;
	m->ratio1 = 0.45;
}

START_TEST(test_memo_burst)
{
	static const double	 zsp[4] = { 4e9, 300e6, 240e6, 180e6 };
	static const double	 zr[4] = { 1.0, 0.45, 0.44, 0.43 };
	struct zauto		*za;
	struct zauto_memo	 m;
	int			 i, level, max;

	memo_zstd(&m, 3, 10e6);

	/* Two windows taken at 2 GB/s of plain bytes: the buffers. */
	za = zauto_new(ZAUTO_ZSTD, 3, 0);
	zauto_recall(za, &m);
	ck_assert_int_eq(zauto_level(za), 3);
	for (i = 0; i < 2; i++)
		ck_assert_int_eq(feed(za, 3, 2e9, 0.43, 0), 3);
	ck_assert(zauto_linkrate(za) == 10e6);
	/* Then the link: level 3 is still where the session belongs. */
	level = simulate(za, zsp, zr, 10e6, 12, &max);
	ck_assert_int_ge(level, 2);
	zauto_free(za);

	/* The same memo on a link that never pushes back. */
	za = zauto_new(ZAUTO_ZSTD, 3, 0);
	zauto_recall(za, &m);
	level = simulate(za, zsp, zr, 0, 16, &max);
	ck_assert_int_eq(level, 0);
	zauto_free(za);
}
END_TEST

/*
 * A remembered gigabit (150 MB/s) and a session that starts at level 0:
 * its first three windows go into the buffers along the path at 400 MB/s
 * without the socket pushing back.  Every level that compresses does so
 * slower than the link drains (it never pushes back either) and carries
 * more plain bytes than level 0 can over the link.  The burst is not
 * level 0's pace: once the session leaves level 0 it does not go back.
 */
START_TEST(test_burst_not_a_level)
{
	static const double	 zsp[4] = { 4e9, 300e6, 260e6, 220e6 };
	static const double	 zr[4] = { 1.0, 0.45, 0.44, 0.43 };
	struct zauto		*za;
	struct zauto_memo	 m;
	int			 i, level = 0, max, at0;

	memo_zstd(&m, 0, 150e6);
	za = zauto_new(ZAUTO_ZSTD, 3, 0);
	zauto_recall(za, &m);
	for (i = 0; i < 3 && level == 0; i++) {
		if (zauto_wants_trial(za))
			zauto_trial(za, 1, ZAUTO_TRIAL,
			    (uint64_t)(ZAUTO_TRIAL * zr[1]),
			    (uint64_t)(ZAUTO_TRIAL / zsp[1] * 1e9));
		level = feed(za, 0, 400e6, 1.0, 0);
	}
	level = simulate_recv(za, zsp, zr, 150e6, 0, 16, &max, &at0);
	ck_assert_int_ge(level, 1);
	ck_assert_int_le(at0, 1);
	zauto_free(za);
}
END_TEST

/*
 * Level 0 on a link of 100 MB/s, whose window began by refilling the
 * buffers along the path (emptied while a level compressed slower than
 * the link drains): 1.75 MB at memory speed, then 0.25 MB at the link's
 * pace.  Its throughput is the link's, not the
 * burst's: from level 2,
 * which carries 150 MB/s of plain bytes without filling the link, the
 * session does not go back to level 0.
 */
START_TEST(test_refill_not_a_level)
{
	const double	 piece = 256 * 1024;
	struct zauto	*za;
	double		 wall;
	int		 i, level;

	za = zauto_new(ZAUTO_ZSTD, 3, 0);
	(void)feed(za, 0, 100e6, 1.0, 1);
	for (i = 0; i < (int)(ZAUTO_WINDOW / piece); i++) {
		wall = i < 7 ? piece / 2e9 : piece / 100e6;
		(void)zauto_sample(za, 0, (uint64_t)piece, (uint64_t)piece,
		    (uint64_t)(piece / 4e9 * 1e9), (uint64_t)(wall * 1e9),
		    i < 7 ? 0 : (uint64_t)((wall - piece / 4e9) * 1e9));
	}
	level = feed(za, 2, 150e6, 0.44, 0);
	ck_assert_int_ge(level, 1);
	zauto_free(za);
}
END_TEST

/*
 * Loopback: the receiver takes 300 MB/s, but stops reading for 100 ms
 * once a window (making directories, syncing).  Summed, each window
 * would read as a 20 MB/s link, and send the session up to compress for
 * it; the link is the median of the stretches that waited, and level 0
 * stays.
 */
START_TEST(test_receiver_pause)
{
	const double	 piece = 65536, recv = 300e6;
	struct zauto	*za;
	double		 tdef, wall;
	int		 w, i, level = 0, max = 0;

	za = zauto_new(ZAUTO_ZSTD, 3, 0);
	for (w = 0; w < 16; w++)
		for (i = 0; i < (int)(ZAUTO_WINDOW / piece); i++) {
			if (level == 0 && zauto_wants_trial(za))
				zauto_trial(za, 1, ZAUTO_TRIAL,
				    (uint64_t)(ZAUTO_TRIAL * 0.45),
				    (uint64_t)(ZAUTO_TRIAL / 300e6 * 1e9));
			tdef = piece / (level == 0 ? 4e9 : 300e6);
			wall = piece / recv;
			if (wall < tdef)
				wall = tdef;
			if (i == 5)
				wall += 0.1;
			level = zauto_sample(za, level, (uint64_t)piece,
			    (uint64_t)(piece * (level == 0 ? 1.0 : 0.45)),
			    (uint64_t)(tdef * 1e9), (uint64_t)(wall * 1e9),
			    (uint64_t)((wall - tdef) * 1e9));
			if (level > max)
				max = level;
		}
	ck_assert(zauto_linkrate(za) > 150e6);
	ck_assert_int_eq(max, 0);
	zauto_free(za);
}
END_TEST

/*
 * Gigabit through a shaper that drains unevenly: once the socket is
 * full, of each eight stretches of 256 KiB the link could take, three
 * find room it had just drained and go at once, five wait half as long
 * again as the link's pace, 117 MB/s on the whole.  zstd level 1
 * (300 MB/s, ratio 0.435) fills the link, carrying 269 MB/s of plain
 * bytes; levels 2 and 3 deflate slower than that.  Judged by the
 * stretches that waited alone, the link would read as 78 MB/s, and
 * level 3 would seem to carry 6% more than level 1.
 */
START_TEST(test_uneven_link)
{
	static const double	 f[8] = {
		0.1, 1.5, 0.1, 1.7, 1.4, 0.1, 1.6, 1.5
	};
	static const double	 zspeed[4] = { 4e9, 300e6, 257e6, 192e6 };
	static const double	 zratio[4] = { 1.0, 0.435, 0.424, 0.41 };
	const double		 piece = 256 * 1024, link = 117e6;
	struct zauto		*za;
	double			 tdef, tlink, wall, zout;
	int			 w, i, k = 0, level = 0, above = 0;

	za = zauto_new(ZAUTO_ZSTD, 3, 0);
	for (w = 0; w < 40; w++)
		for (i = 0; i < (int)(ZAUTO_WINDOW / piece); i++) {
			if (level == 0 && zauto_wants_trial(za))
				zauto_trial(za, 1, ZAUTO_TRIAL,
				    (uint64_t)(ZAUTO_TRIAL * zratio[1]),
				    (uint64_t)(ZAUTO_TRIAL / zspeed[1] * 1e9));
			zout = piece * zratio[level];
			tdef = piece / zspeed[level];
			/* The link's share of the time, unevenly. */
			tlink = zout / link;
			wall = tdef;
			if (tlink > tdef)
				wall = tlink * f[k++ % 8];
			if (wall < tdef)
				wall = tdef;
			level = zauto_sample(za, level, (uint64_t)piece,
			    (uint64_t)zout, (uint64_t)(tdef * 1e9),
			    (uint64_t)(wall * 1e9),
			    (uint64_t)((wall - tdef) * 1e9));
			if (w >= 20 && level > 1)
				above++;
		}
	ck_assert_msg(zauto_linkrate(za) > 0.9 * link &&
	    zauto_linkrate(za) < 1.1 * link, "link %.1f MB/s",
	    zauto_linkrate(za) / 1e6);
	ck_assert_int_eq(level, 1);
	ck_assert_int_eq(above, 0);
	zauto_free(za);
}
END_TEST

/*
 * Gigabit with zstd, the server sharing its CPUs with the client: level 1
 * fills the link (123 MB/s at ratio 0.5: 246 MB/s of plain bytes), and
 * the model has level 2 carry 5% more (it deflates at 380 MB/s, to 0.95
 * of level 1's size).  It carries 150 MB/s: the client, whose CPU it
 * took, falls behind.  A loss that large is not retried two windows
 * later, but after 16 (2 MB each), the longest wait: over 40 windows
 * level 2 is tried three times at most, where it was tried five times.
 */
START_TEST(test_big_loss_waits)
{
	/* Per level: deflate speed, ratio, and plain bytes/s carried. */
	static const double	 zspeed[3] = { 4e9, 430e6, 380e6 };
	static const double	 zratio[3] = { 1.0, 0.5, 0.475 };
	const double		 raw = ZAUTO_WINDOW, link = 123e6;
	struct zauto		*za;
	double			 zout, tdef, wall, stall;
	int			 w, level = 1, tries = 0, was = 1;

	za = zauto_new(ZAUTO_ZSTD, 2, 1);
	for (w = 0; w < 40; w++) {
		zout = raw * zratio[level];
		tdef = raw / zspeed[level];
		if (level == 2) {
			/* The client falls behind: no wait, a slow window. */
			wall = raw / 150e6;
			stall = 0;
			tries += was != 2;
		} else {
			wall = zout / link > tdef ? zout / link : tdef;
			stall = wall - tdef;
		}
		was = level;
		level = zauto_sample(za, level, (uint64_t)raw, (uint64_t)zout,
		    (uint64_t)(tdef * 1e9), (uint64_t)(wall * 1e9),
		    (uint64_t)(stall * 1e9));
		ck_assert_int_ge(level, 1);
	}
	ck_assert_msg(tries <= 3, "level 2 tried %d times", tries);
	ck_assert_int_eq(level, 1);
	zauto_free(za);
}
END_TEST

/*
 * Loopback on two CPUs: at level 0 the receiver takes 280 MB/s, in
 * bursts: half of each window goes at once, the other half waits, as
 * for a link of 150 MB/s.  The model expects level 1 (a third of the
 * bytes) to carry more; it carries 213 MB/s, its CPU being the
 * receiver's too.  The policy goes back to level 0, and does not try
 * level 1 again while that measurement is recent.
 */
START_TEST(test_climb_refuted)
{
	const double	 piece = 128 * 1024;
	struct zauto	*za;
	double		 wall;
	int		 w, i, level = 0, above = 0;

	za = zauto_new(ZAUTO_ZSTD, 3, 0);
	for (w = 0; w < 24; w++) {
		if (level > 0) {
			above++;
			level = feed(za, level, 213e6, 0.31, 0);
			continue;
		}
		if (zauto_wants_trial(za))
			zauto_trial(za, 1, ZAUTO_TRIAL,
			    (uint64_t)(ZAUTO_TRIAL * 0.31),
			    (uint64_t)(ZAUTO_TRIAL / 400e6 * 1e9));
		for (i = 0; i < (int)(ZAUTO_WINDOW / piece) && level == 0;
		    i++) {
			wall = i % 2 ? piece / 150e6 : piece / 2e9;
			level = zauto_sample(za, 0, (uint64_t)piece,
			    (uint64_t)piece, (uint64_t)(piece / 4e9 * 1e9),
			    (uint64_t)(wall * 1e9), i % 2 ?
			    (uint64_t)((wall - piece / 4e9) * 1e9) : 0);
		}
	}
	ck_assert_int_le(above, 3);
	ck_assert_int_eq(level, 0);
	zauto_free(za);
}
END_TEST

/*
 * Gigabit with zstd, a pull that begins with many small files: the
 * receiver takes 90 MB/s of plain bytes whatever the level (it makes a
 * file and a directory for every few KB), so level 1 carries no more
 * than level 0 and the session goes back to 0.  Then the files grow and
 * the link (100 MB/s) sets the pace: level 0 carries 100 MB/s, more
 * than level 1 did among the small files.  That verdict was of other
 * data: the session tries level 1 again within three windows and stays
 * (it carries 220 MB/s), not level 0 for the rest of the pull.
 */
START_TEST(test_verdict_of_other_data)
{
	static const double	 zsp[4] = { 4e9, 300e6, 240e6, 180e6 };
	static const double	 zr[4] = { 1.0, 0.45, 0.44, 0.43 };
	struct zauto		*za;
	int			 small, level, max, at0;

	/*
	 * Then small files again, for 8 to 32 windows, and large files
	 * after them.  Among the small files level 1 costs no time (the
	 * client sets the pace), and having carried more than level 0's
	 * pace over the large files it may stay (test_receiver_among_link);
	 * if it goes down, then once level 0 carries more than it did when
	 * level 1 last lost, the receiver has changed, and level 1 is tried
	 * within three windows, however long the small files lasted.
	 */
	for (small = 8; small <= 32; small += 4) {
		za = zauto_new(ZAUTO_ZSTD, 3, 0);
		(void)simulate_recv(za, zsp, zr, 100e6, 90e6, 8, &max, &at0);
		ck_assert_int_ge(max, 1);
		ck_assert_int_ge(at0, 4);
		level = simulate_recv(za, zsp, zr, 100e6, 0, 12, &max, &at0);
		ck_assert_int_ge(level, 1);
		ck_assert_int_le(at0, 3);
		(void)simulate_recv(za, zsp, zr, 100e6, 90e6, small, &max,
		    &at0);
		level = simulate_recv(za, zsp, zr, 100e6, 0, 12, &max, &at0);
		ck_assert_int_ge(level, 1);
		ck_assert_int_le(at0, 3);
		zauto_free(za);
	}
}
END_TEST

/*
 * n pulls of 12 windows each over a 117 MB/s link, zstd up to cap, each
 * session starting from the memo *m the last one left.  Returns the
 * windows sent at level 0; *level gets where the last session ended.
 */
static int
memo_sessions(struct zauto_memo *m, int cap, const double *sp,
    const double *r, int n, int *level)
{
	struct zauto	*za;
	int		 i, max, at0, sum = 0;

	for (i = 0; i < n; i++) {
		za = zauto_new(ZAUTO_ZSTD, cap, 0);
		zauto_recall(za, m);
		*level = simulate_recv(za, sp, r, 117e6, 0, 12, &max, &at0);
		ck_assert_int_eq(zauto_memo(za, m), 0);
		zauto_free(za);
		sum += at0;
	}
	return sum;
}

/*
 * A remembered link no session has measured since goes stale.  The first
 * session met a client that read 154 MB/s of the socket's bytes (busy
 * at the time): level 0 pushed back at that pace, zstd level 1 carried
 * more, and the memo says so.  Now the client reads 300 MB/s, level 1
 * deflates 250 MB/s on the server and never makes the socket wait: it
 * measures nothing of the link, and level 0 is judged by the old link
 * alone, which level 1 beats by less than twice.  The link is believed
 * for two sessions that do not measure it; the third finds level 0, and
 * the memo keeps it.
 */
START_TEST(test_memo_goes_stale)
{
	static const double	 zsp[4] = { 4e9, 250e6, 200e6, 160e6 };
	static const double	 zr[4] = { 1.0, 0.435, 0.41, 0.40 };
	static const double	 gsp[4] = { 4e9, 365e6, 300e6, 270e6 };
	/* Text that shrinks to 0.31, level 1 deflating it at 250 MB/s. */
	static const double	 ssp[2] = { 4e9, 250e6 };
	static const double	 sr[2] = { 1.0, 0.31 };
	struct zauto		*za;
	struct zauto_memo	 m, sm;
	int			 i, level, max, at0;

	memo_zstd(&m, 1, 154e6);
	for (i = 0; i < 6; i++) {
		za = zauto_new(ZAUTO_ZSTD, 3, 0);
		zauto_recall(za, &m);
		level = simulate_recv(za, zsp, zr, 0, 300e6, 12, &max, &at0);
		ck_assert_int_eq(zauto_memo(za, &m), 0);
		zauto_free(za);
		/* Believed, not measured, by the first two. */
		if (i < 2) {
			ck_assert_int_eq(level, 1);
			ck_assert_int_eq(m.recalls, i + 1);
		}
		/*
		 * Each pull's short session before it (ktcheck's) decides
		 * nothing, and leaves the count as it was.
		 */
		za = zauto_new(ZAUTO_ZSTD, 3, 0);
		zauto_recall(za, &m);
		(void)zauto_sample(za, zauto_level(za), 117 * 1024,
		    50 * 1024, 400000, 400000, 0);
		if (zauto_memo(za, &sm) == 0)
			m = sm;
		zauto_free(za);
		if (i < 2)
			ck_assert_int_eq(m.recalls, i + 1);
	}
	ck_assert_int_eq(level, 0);
	ck_assert_int_ge(at0, 10);
	ck_assert_int_eq(m.level, 0);
	ck_assert_int_eq(m.recalls, 0);

	/*
	 * Gigabit: level 1 makes the socket wait, which measures the link
	 * in every session; none goes down to level 0 to probe it.
	 */
	memo_zstd(&m, 1, 117e6);
	ck_assert_int_eq(memo_sessions(&m, 1, gsp, zr, 6, &level), 0);
	ck_assert_int_eq(level, 1);

	/*
	 * Gigabit, zstd level 1 on text, which it deflates to 77 MB/s,
	 * slower than the link drains: no session measures the link at its
	 * level, but the level carries more than twice the link's rate, so
	 * a link up to twice as fast as remembered would not make level 0
	 * better.  The memo does not go stale, and no session probes level
	 * 0.
	 */
	memo_zstd(&m, 1, 117e6);
	ck_assert_int_eq(memo_sessions(&m, 1, ssp, sr, 6, &level), 0);
	ck_assert_int_eq(m.recalls, 0);
	ck_assert_int_ge(level, 1);
}
END_TEST

/*
 * Gigabit, a real tree: runs of large files, where the link sets the
 * pace and zstd level 1 carries three times the plain bytes level 0
 * can, and among them directories of small files, where the client
 * takes 110 MB/s of plain bytes at any level (about the link's rate).
 * Level 1's stretches that waited among the small files carry no more
 * plain bytes than level 0's did on the link: that is no receiver
 * setting the pace at both, since level 1 carried far more than
 * level 0 over the whole windows.  The session stays at level 1.
 */
START_TEST(test_receiver_among_link)
{
	static const double	 zsp[4] = { 4e9, 400e6, 340e6, 280e6 };
	static const double	 zr[4] = { 1.0, 0.31, 0.30, 0.28 };
	struct zauto		*za;
	int			 i, max, at0, sum = 0;

	za = zauto_new(ZAUTO_ZSTD, 3, 0);
	for (i = 0; i < 8; i++) {
		(void)simulate_recv(za, zsp, zr, 117e6, 0, 3, &max, &at0);
		sum += at0;
		(void)simulate_recv(za, zsp, zr, 117e6, 110e6, 1, &max, &at0);
		sum += at0;
	}
	ck_assert_int_le(sum, 3);
	zauto_free(za);
}
END_TEST

/*
 * A window of the bursty receiver of test_climb_refuted at level 0:
 * 280 MB/s over the window, its stretches that waited at 150 MB/s.
 */
static int
feed_bursty(struct zauto *za)
{
	const double	 piece = 128 * 1024;
	double		 wall;
	int		 i, level = 0;

	for (i = 0; i < (int)(ZAUTO_WINDOW / piece); i++) {
		wall = i % 2 ? piece / 150e6 : piece / 2e9;
		level = zauto_sample(za, 0, (uint64_t)piece, (uint64_t)piece,
		    (uint64_t)(piece / 4e9 * 1e9), (uint64_t)(wall * 1e9),
		    i % 2 ? (uint64_t)((wall - piece / 4e9) * 1e9) : 0);
	}
	return level;
}

/*
 * Level 0 is judged by what it carried over its windows, not by the
 * stretches that waited: once it has carried 280 MB/s for a few windows,
 * a level 1 whose trial deflates 260 MB/s is no gain, though the link
 * the stretches read (150 MB/s) would make it one.
 */
START_TEST(test_level_carried)
{
	struct zauto	*za;
	int		 i;

	za = zauto_new(ZAUTO_ZSTD, 3, 0);
	for (i = 0; i < 6; i++)
		ck_assert_int_eq(feed_bursty(za), 0);
	zauto_trial(za, 1, ZAUTO_TRIAL, (uint64_t)(ZAUTO_TRIAL * 0.31),
	    (uint64_t)(ZAUTO_TRIAL / 260e6 * 1e9));
	ck_assert_int_eq(feed_bursty(za), 0);
	zauto_free(za);
}
END_TEST

START_TEST(test_never_above_cap)
{
	struct zauto	*za;
	int		 cap, max;

	for (cap = 1; cap <= 9; cap++) {
		za = zauto_new(ZAUTO_ZLIB, cap, 1);
		(void)simulate(za, speed, ratio, 1e5, 60, &max);
		ck_assert_int_le(max, cap);
		zauto_free(za);
	}
	/* Out of range: clamped. */
	za = zauto_new(ZAUTO_ZLIB, 12, 20);
	ck_assert_int_le(zauto_level(za), 9);
	(void)simulate(za, speed, ratio, 1e5, 30, &max);
	ck_assert_int_le(max, 9);
	zauto_free(za);
}
END_TEST

START_TEST(test_incompressible)
{
	unsigned char	*p = malloc(65536);
	uint32_t	 x = 12345;
	size_t		 i;

	for (i = 0; i < 65536; i++) {
		x = x * 1103515245 + 12345;
		p[i] = (unsigned char)(x >> 23);
	}
	ck_assert_int_eq(zauto_incompressible(p, 65536), 1);
	/* Too short to judge. */
	ck_assert_int_eq(zauto_incompressible(p, 100), 0);
	/* Every byte value, repeated: entropy 8, but deflate shrinks it. */
	for (i = 0; i < 65536; i++)
		p[i] = (unsigned char)i;
	ck_assert_int_eq(zauto_incompressible(p, 65536), 0);
	for (i = 0; i < 65536; i++)
		p[i] = "configuration line\n"[i % 19];
	ck_assert_int_eq(zauto_incompressible(p, 65536), 0);
	free(p);
}
END_TEST

/* Inflate all of b with a fresh stream; the plain bytes in out. */
static void
inflate_all(struct buf *b, struct buf *out)
{
	struct zstream		*z;
	struct cerr		 err;
	const unsigned char	*in = (const unsigned char *)buf_data(b);
	size_t			 left = buf_len(b);
	unsigned char		 chunk[4096];
	ssize_t			 n;

	z = zstream_new(1, &err);
	ck_assert_ptr_nonnull(z);
	while (left > 0) {
		n = zstream_inflate(z, &in, &left, chunk, sizeof(chunk), &err);
		ck_assert_int_ge(n, 0);
		ck_assert_int_eq(buf_add(out, chunk, (size_t)n), 0);
	}
	zstream_free(z);
}

START_TEST(test_inflate_header)
{
	struct zstream		*z;
	struct buf		*wire = buf_new(1 << 20);
	struct cerr		 err;
	const unsigned char	*in;
	const char		*t = "a line of text, a line of text, a line\n";
	unsigned char		 out[256];
	size_t			 left, got = 0;
	ssize_t			 n;
	static const unsigned char gz[] = { 0x1f, 0x8b, 0x08, 0x00 };
	static const unsigned char dict[] = {
		0x78, 0xbb, 0x00, 0x00, 0x00, 0x01	/* and its id */
	};

	/* The stream fed one byte a time: header split, then the data. */
	z = zstream_new(6, &err);
	ck_assert_int_eq(zstream_deflate(z, t, strlen(t), ZS_SYNC, wire,
	    &err), 0);
	zstream_free(z);
	z = zstream_new(1, &err);
	in = (const unsigned char *)buf_data(wire);
	for (left = buf_len(wire); left > 0; ) {
		size_t	 one = 1, before = left;

		n = zstream_inflate(z, &in, &one, out + got,
		    sizeof(out) - got, &err);
		ck_assert_int_ge(n, 0);
		got += (size_t)n;
		left = before - (1 - one);
	}
	ck_assert_uint_eq(got, strlen(t));
	ck_assert_mem_eq(out, t, got);
	zstream_free(z);

	/*
	 * A finished stream (which no Radmind peer sends): what its final
	 * block holds comes out, then, once its trailer is in, the error.
	 */
	{
		unsigned char	 fin[256];
		uLongf		 finlen = sizeof(fin);

		ck_assert_int_eq(compress(fin, &finlen, (const Bytef *)t,
		    strlen(t)), Z_OK);
		z = zstream_new(1, &err);
		in = fin;
		left = finlen - 2;		/* the trailer cut short */
		n = zstream_inflate(z, &in, &left, out, sizeof(out), &err);
		ck_assert_int_eq(n, (ssize_t)strlen(t));
		ck_assert_mem_eq(out, t, strlen(t));
		ck_assert_int_eq(zstream_inflate(z, &in, &left, out,
		    sizeof(out), &err), 0);	/* wants the rest */
		left = 2;
		ck_assert_int_eq(zstream_inflate(z, &in, &left, out,
		    sizeof(out), &err), -1);
		ck_assert_str_eq(err.msg, "compressed stream ended by peer");
		zstream_free(z);
	}

	/* A gzip header, a preset dictionary: refused, named. */
	z = zstream_new(1, &err);
	in = gz;
	left = sizeof(gz);
	ck_assert_int_eq(zstream_inflate(z, &in, &left, out, sizeof(out),
	    &err), -1);
	ck_assert_str_eq(err.msg, "inflate: incorrect header check");
	zstream_free(z);
	z = zstream_new(1, &err);
	in = dict;
	left = sizeof(dict);
	ck_assert_int_eq(zstream_inflate(z, &in, &left, out, sizeof(out),
	    &err), -1);
	zstream_free(z);
	buf_free(wire);
}
END_TEST

START_TEST(test_splice)
{
	struct zstream	*live, *seg;
	struct buf	*wire = buf_new(1 << 20), *piece = buf_new(1 << 20);
	struct buf	*plain = buf_new(1 << 20);
	struct cerr	 err;
	const char	*a = "before the splice, before the splice\n";
	const char	*b = "the spliced body, the spliced body, again\n";
	const char	*c = "before the splice, after: no reference back\n";

	live = zstream_new(6, &err);
	ck_assert_ptr_nonnull(live);
	ck_assert_int_eq(zstream_fresh(live), 1);
	ck_assert_int_eq(zstream_deflate(live, a, strlen(a), ZS_NOFLUSH, wire,
	    &err), 0);
	/* Not on a byte boundary: refused. */
	ck_assert_int_eq(zstream_aligned(live), 0);
	ck_assert_int_eq(zstream_fresh(live), 0);
	ck_assert_int_eq(zstream_splice(live, "x", 1, wire, &err), -1);
	/* A sync flush aligns (enough to splice) but keeps the history. */
	ck_assert_int_eq(zstream_deflate(live, NULL, 0, ZS_SYNC, wire, &err),
	    0);
	ck_assert_int_eq(zstream_aligned(live), 1);
	ck_assert_int_eq(zstream_fresh(live), 0);

	/* The ready-made data: headless, from an empty window, full flush. */
	seg = zstream_new(9, &err);
	zstream_headless(seg);
	ck_assert_int_eq(zstream_deflate(seg, b, strlen(b), ZS_FULL, piece,
	    &err), 0);
	zstream_free(seg);
	ck_assert_uint_ne(buf_len(piece), 0);

	ck_assert_int_eq(zstream_splice(live, buf_data(piece),
	    buf_len(piece), wire, &err), 0);
	ck_assert_int_eq(zstream_resume(live, &err), 0);
	ck_assert_int_eq(zstream_fresh(live), 1);
	/* Level 0 (stored blocks) and back, then more text. */
	ck_assert_int_eq(zstream_setlevel(live, 0, wire, &err), 0);
	ck_assert_int_eq(zstream_deflate(live, c, strlen(c), ZS_NOFLUSH,
	    wire, &err), 0);
	ck_assert_int_eq(zstream_setlevel(live, 6, wire, &err), 0);
	ck_assert_int_eq(zstream_deflate(live, c, strlen(c), ZS_SYNC, wire,
	    &err), 0);
	ck_assert_int_eq(zstream_fresh(live), 0);
	/* Only a full flush forgets. */
	ck_assert_int_eq(zstream_deflate(live, NULL, 0, ZS_FULL, wire, &err),
	    0);
	ck_assert_int_eq(zstream_aligned(live), 1);
	ck_assert_int_eq(zstream_fresh(live), 1);
	zstream_free(live);

	/* One zlib stream, never finished: 78 9c for level 6. */
	ck_assert_int_eq((unsigned char)buf_data(wire)[0], 0x78);
	ck_assert_int_eq((unsigned char)buf_data(wire)[1], 0x9c);
	inflate_all(wire, plain);
	ck_assert_uint_eq(buf_len(plain), strlen(a) + strlen(b) +
	    2 * strlen(c));
	ck_assert_mem_eq(buf_data(plain), a, strlen(a));
	ck_assert_mem_eq(buf_data(plain) + strlen(a), b, strlen(b));
	ck_assert_mem_eq(buf_data(plain) + strlen(a) + strlen(b), c,
	    strlen(c));
	buf_free(wire);
	buf_free(piece);
	buf_free(plain);
}
END_TEST

static Suite *
zauto_suite(void)
{
	Suite	*s = suite_create("zauto");
	TCase	*tc;

	tc = tcase_create("policy");
	tcase_add_test(tc, test_fast_link_goes_cheap);
	tcase_add_test(tc, test_slow_link_compresses_more);
	tcase_add_test(tc, test_middle_link);
	tcase_add_test(tc, test_equal_goes_cheaper);
	tcase_add_test(tc, test_pushed_back_judged_on_this_data);
	tcase_add_test(tc, test_small_gain_taken);
	tcase_add_test(tc, test_ample_cpu_best_ratio);
	tcase_add_test(tc, test_never_above_cap);
	tcase_add_test(tc, test_start_at_0);
	tcase_add_test(tc, test_receiver_not_link);
	tcase_add_test(tc, test_memo);
	tcase_add_test(tc, test_deep_queue_probe);
	tcase_add_test(tc, test_known_link_kept);
	tcase_add_test(tc, test_memo_level_kept);
	tcase_add_test(tc, test_memo_burst);
	tcase_add_test(tc, test_burst_not_a_level);
	tcase_add_test(tc, test_refill_not_a_level);
	tcase_add_test(tc, test_receiver_pause);
	tcase_add_test(tc, test_uneven_link);
	tcase_add_test(tc, test_big_loss_waits);
	tcase_add_test(tc, test_climb_refuted);
	tcase_add_test(tc, test_verdict_of_other_data);
	tcase_add_test(tc, test_memo_goes_stale);
	tcase_add_test(tc, test_receiver_among_link);
	tcase_add_test(tc, test_level_carried);
	suite_add_tcase(s, tc);

	tc = tcase_create("judge");
	tcase_add_test(tc, test_incompressible);
	suite_add_tcase(s, tc);

	tc = tcase_create("splice");
	tcase_add_test(tc, test_splice);
	tcase_add_test(tc, test_inflate_header);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(zauto_suite());
}
