/*
 * zconn.c: zlib compression of a connection (zconn.h).
 *
 * A struct zconn is the filter's arg (conn.h, struct conn_filter): the
 * zlib streams, the inflate guard, the capture, the counters and the
 * level state.  The decode side (zconn_decode) touches only z's inflate
 * stream, which the read-ahead thread may run beside everything else.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <netinet/tcp.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "buf.h"
#include "cerr.h"
#include "conn.h"
#include "xmalloc.h"
#include "zauto.h"
#include "zconn.h"
#include "zstream.h"

#define ZCONN_SCRATCH	(8 * CONN_IOSIZE + 65536)	/* level changes, splices */
#define ZCONN_NELEM(a)	(sizeof(a) / sizeof((a)[0]))

struct zconn {
	struct conn	*c;
	struct zstream	*z;
	struct buf	*tmp;		/* output made outside encode */
	int		 dirty;		/* deflated since the last flush */
	int		 base;		/* the level when not pinned, fixed */
	int		 pin;		/* pinned level, -1: none */
	struct zconn_meter meter;	/* the automatic level, if on */
	zconn_capture_fn capfn;		/* sees compressed output, NULL */
	void		*caparg;

	struct zconn_guard guard;	/* inflate guard on lines */

	/* Counters (struct connstats). */
	uint64_t	 zout, lvl_raw[ZS_MAXLEVEL + 1];
	uint64_t	 spliced_raw, spliced_wire;
};

static const struct conn_filter zconn_ops;

static uint64_t
now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static struct zconn *
zconn_get(const struct conn *c)
{
	return conn_filter(c, &zconn_ops);
}

void
zconn_meter_zero(struct zconn_meter *m, struct conn *c)
{
	m->mark = now_ns();
	m->raw = m->made = m->def = 0;
	conn_waits(c, &m->stall0, &m->idle0);
}

void
zconn_meter_start(struct zconn_meter *m, struct conn *c, int codec, int cap,
    int level)
{
	zauto_free(m->za);
	m->za = zauto_new(codec, cap, level);
#ifdef TCP_NOTSENT_LOWAT
	/*
	 * Keep little unsent data in the socket, so that the link pushes
	 * back within ZAUTO_LOWAT of what it has in flight, not after the
	 * megabytes a send buffer grows to: that push-back is what the
	 * policy measures the link by.  Not a socket (a test's pipe): no
	 * matter.
	 */
	{
		int	lowat = ZAUTO_LOWAT;

		(void)setsockopt(conn_fd(c), IPPROTO_TCP, TCP_NOTSENT_LOWAT,
		    &lowat, sizeof(lowat));
	}
#endif
	conn_set_timing(c, 1);
	zconn_meter_zero(m, c);
}

void
zconn_meter_stop(struct zconn_meter *m, struct conn *c)
{
	if (m->za == NULL)
		return;
	zauto_free(m->za);
	m->za = NULL;
	conn_set_timing(c, 0);
}

uint64_t
zconn_meter_now(const struct zconn_meter *m)
{
	return m->za != NULL ? now_ns() : 0;
}

void
zconn_meter_add(struct zconn_meter *m, uint64_t raw, uint64_t made,
    uint64_t t0)
{
	if (m->za == NULL)
		return;
	m->def += now_ns() - t0;
	m->raw += raw;
	m->made += made;
}

void
zconn_meter_trial(struct zconn_meter *m, const void *p, size_t len,
    ssize_t (*trial)(void *, const void *, size_t), void *arg)
{
	uint64_t	 t0;
	ssize_t		 n;

	/* A sample too short says little: wait for a larger write. */
	if (m->za == NULL || len < ZAUTO_TRIAL / 4 ||
	    !zauto_wants_trial(m->za))
		return;
	if (len > ZAUTO_TRIAL)
		len = ZAUTO_TRIAL;
	t0 = now_ns();
	if ((n = trial(arg, p, len)) > 0)
		zauto_trial(m->za, 1, len, (uint64_t)n, now_ns() - t0);
}

int
zconn_meter_sample(struct zconn_meter *m, struct conn *c, int level,
    const char *label)
{
	uint64_t	 now, wall, stall, idle;
	char		 note[256];
	int		 want, n;

	now = now_ns();
	conn_waits(c, &stall, &idle);
	idle -= m->idle0;
	stall -= m->stall0;
	wall = now - m->mark;
	wall = wall > idle ? wall - idle : 0;
	want = zauto_sample(m->za, level, m->raw, m->made, m->def, wall,
	    stall);
	if (want != level) {
		m->switches++;
		n = snprintf(note, sizeof(note), "%s auto: level %d -> %d: ",
		    label, level, want);
		if (n > 0 && (size_t)n < sizeof(note))
			zauto_explain(m->za, note + n, sizeof(note) - (size_t)n);
		conn_note(c, note);
	}
	zconn_meter_zero(m, c);
	return want;
}

/* A trial deflate at level 1 of a sample (zauto.h): in pieces zlib's
   trial takes. */
static ssize_t
zconn_trial(void *arg, const void *p, size_t len)
{
	const unsigned char	*q = p;
	ssize_t			 n, made = 0;
	size_t			 k;

	(void)arg;
	for (; len > 0; q += k, len -= k) {
		k = len > ZS_TRIALMAX ? ZS_TRIALMAX : len;
		if ((n = zstream_trial(q, k)) == -1)
			return -1;
		made += n;
	}
	return made;
}

/* Output made (onto out from before on): capture and count it. */
static void
zconn_made(struct zconn *zc, struct buf *out, size_t before)
{
	if (zc->capfn != NULL && buf_len(out) > before)
		zc->capfn(zc->caparg, (const unsigned char *)buf_data(out) +
		    before, buf_len(out) - before);
	zc->zout += buf_len(out) - before;
}

static int
zconn_encode(void *arg, const void *p, size_t len, int flush,
    struct buf *out, struct cerr *err)
{
	struct zconn	*zc = arg;
	size_t		 before = buf_len(out);
	uint64_t	 t0;

	if (len == 0 && (flush == CONN_FLUSH_NONE || !zc->dirty) &&
	    (flush != CONN_FLUSH_FULL || zstream_fresh(zc->z)))
		return 0;
	if (zstream_level(zc->z) == 0 && zc->pin < 0)
		zconn_meter_trial(&zc->meter, p, len, zconn_trial, NULL);
	t0 = zconn_meter_now(&zc->meter);
	if (zstream_deflate(zc->z, p, len, flush == CONN_FLUSH_FULL ?
	    ZS_FULL : flush == CONN_FLUSH_SYNC ? ZS_SYNC : ZS_NOFLUSH, out,
	    err) == -1)
		return -1;
	zconn_meter_add(&zc->meter, len, buf_len(out) - before, t0);
	zc->dirty = flush == CONN_FLUSH_NONE;
	zconn_made(zc, out, before);
	zc->lvl_raw[zstream_level(zc->z)] += len;
	return 0;
}

static ssize_t
zconn_decode(void *arg, const unsigned char **in, size_t *inlen, void *out,
    size_t outlen, struct cerr *err)
{
	struct zconn	*zc = arg;

	return zstream_inflate(zc->z, in, inlen, out, outlen, err);
}

/* Change the deflate level; any output goes to out. */
static int
zconn_zlevel(struct zconn *zc, int level, struct buf *out, struct cerr *err)
{
	size_t	 before = buf_len(out);

	if (level == zstream_level(zc->z))
		return 0;
	if (zstream_setlevel(zc->z, level, out, err) == -1)
		return -1;
	zconn_made(zc, out, before);
	return 0;
}

/* As zconn_zlevel, outside encode: the output joins the connection's. */
static int
zconn_relevel(struct zconn *zc, int level, struct cerr *err)
{
	struct cerr	 zerr;
	int		 r;

	buf_reset(zc->tmp);
	if (zconn_zlevel(zc, level, zc->tmp, &zerr) == -1) {
		cerr_set(err, "%s: %s", conn_peer(zc->c), zerr.msg);
		return -1;
	}
	r = conn_wire_queue(zc->c, buf_data(zc->tmp), buf_len(zc->tmp), err);
	buf_reset(zc->tmp);
	return r;
}

/*
 * After output was deflated and written: give the automatic level what
 * was measured since the last time, and take its choice (any output of
 * the change goes to out).  Output pinned to a level (a body sent
 * stored) is not the policy's to judge.
 */
static int
zconn_sent(void *arg, struct buf *out, struct cerr *err)
{
	struct zconn	*zc = arg;
	int		 level;

	if (zc->meter.za == NULL || zc->meter.raw == 0)
		return 0;
	/*
	 * Not while pinned; and while output is captured (a cache keeps
	 * one level's deflate data) the level stays: the sample waits.
	 */
	if (zc->capfn != NULL)
		return 0;
	if (zc->pin >= 0) {
		zconn_meter_zero(&zc->meter, zc->c);
		return 0;
	}
	level = zconn_meter_sample(&zc->meter, zc->c, zstream_level(zc->z),
	    "zlib");
	return zconn_zlevel(zc, level, out, err);
}

/*
 * Count n bytes of lines against the inflate bound: over each window of
 * ZCONN_WINDOW line bytes, the lines may be at most ratio times the
 * compressed bytes inflated meanwhile.
 */
int
zconn_guard_lines(struct zconn_guard *g, size_t n, uint64_t used,
    struct cerr *err)
{
	uint64_t	 wire;

	if (g->ratio <= 0)
		return 0;
	g->wline += n;
	if (g->wline < ZCONN_WINDOW)
		return 0;
	wire = used - g->wmark;
	if (g->wline > (uint64_t)g->ratio * wire) {
		cerr_set(err, "compressed lines inflate more than %d:1 "
		    "(%llu bytes from %llu)", g->ratio,
		    (unsigned long long)g->wline, (unsigned long long)wire);
		return -1;
	}
	g->wline = 0;
	g->wmark = used;
	return 0;
}

static int
zconn_lines(void *arg, size_t n, uint64_t used, struct cerr *err)
{
	struct zconn	*zc = arg;

	return zconn_guard_lines(&zc->guard, n, used, err);
}

static void
zconn_stats(void *arg, struct connstats *st)
{
	struct zconn	*zc = arg;
	int		 i;

	st->level = zstream_level(zc->z);
	st->zout = zc->zout;
	for (i = 0; (size_t)i < ZCONN_NELEM(zc->lvl_raw); i++)
		st->lvl_raw[i] = zc->lvl_raw[i];
	st->spliced_raw = zc->spliced_raw;
	st->spliced_wire = zc->spliced_wire;
	st->zswitches = zc->meter.switches;
	/* Spliced bodies are plain bytes sent that conn never saw. */
	st->raw_out += zc->spliced_raw;
}

static void
zconn_free(void *arg)
{
	struct zconn	*zc = arg;

	if (zc == NULL)
		return;
	zstream_free(zc->z);
	zauto_free(zc->meter.za);
	buf_free(zc->tmp);
	free(zc);
}

static const struct conn_filter zconn_ops = {
	zconn_encode,
	zconn_decode,
	zconn_sent,
	zconn_lines,
	zconn_stats,
	zconn_free
};

int
zconn_start(struct conn *c, int level, int ratio, struct cerr *err)
{
	struct zconn	*zc;
	struct cerr	 zerr;

	if (conn_filtered(c)) {
		cerr_set(err, "%s: compression already on", conn_peer(c));
		return -1;
	}
	zc = xcalloc(1, sizeof(*zc));
	if ((zc->z = zstream_new(level, &zerr)) == NULL) {
		cerr_set(err, "%s: %s", conn_peer(c), zerr.msg);
		free(zc);
		return -1;
	}
	zc->c = c;
	zc->tmp = buf_new(ZCONN_SCRATCH);
	zc->base = level;
	zc->pin = -1;
	zc->guard.ratio = ratio;
	if (conn_set_filter(c, &zconn_ops, zc, err) == -1) {
		zconn_free(zc);
		return -1;
	}
	return 0;
}

int
zconn_on(const struct conn *c)
{
	return zconn_get(c) != NULL;
}

int
zconn_set_level(struct conn *c, int level, struct cerr *err)
{
	struct zconn	*zc = zconn_get(c);

	if (zc == NULL) {
		cerr_set(err, "%s: compression is off", conn_peer(c));
		return -1;
	}
	zconn_meter_stop(&zc->meter, c);
	zc->base = level;
	if (zc->pin >= 0 || level == zstream_level(zc->z))
		return 0;
	/* What was queued belongs to the level it was queued under. */
	if (conn_drain(c, err) == -1)
		return -1;
	return zconn_relevel(zc, level, err);
}

int
zconn_set_auto(struct conn *c, int cap, struct cerr *err)
{
	struct zconn	*zc = zconn_get(c);

	if (zc == NULL) {
		cerr_set(err, "%s: compression is off", conn_peer(c));
		return -1;
	}
	zconn_meter_start(&zc->meter, c, ZAUTO_ZLIB, cap,
	    zstream_level(zc->z));
	return 0;
}

int
zconn_recall(struct conn *c, const struct zauto_memo *m, struct cerr *err)
{
	struct zconn	*zc = zconn_get(c);

	if (zc == NULL || zc->meter.za == NULL)
		return 0;
	zauto_recall(zc->meter.za, m);
	if (zc->pin >= 0)
		return 0;
	return zconn_relevel(zc, zauto_level(zc->meter.za), err);
}

int
zconn_memo(const struct conn *c, struct zauto_memo *m)
{
	struct zconn	*zc = zconn_get(c);

	if (zc == NULL || zc->meter.za == NULL)
		return -1;
	return zauto_memo(zc->meter.za, m);
}

int
zconn_pin_level(struct conn *c, int level, struct cerr *err)
{
	struct zconn	*zc = zconn_get(c);
	struct cerr	 zerr;
	int		 want;

	if (zc == NULL)
		return 0;
	if (level == zc->pin)
		return 0;
	/* What was queued belongs to the level it was queued under. */
	if (conn_drain(c, err) == -1)
		return -1;
	buf_reset(zc->tmp);
	if (zconn_sent(zc, zc->tmp, &zerr) == -1) {
		cerr_set(err, "%s: %s", conn_peer(c), zerr.msg);
		return -1;
	}
	if (conn_wire_queue(c, buf_data(zc->tmp), buf_len(zc->tmp),
	    err) == -1)
		return -1;
	zc->pin = level < 0 ? -1 : level;
	if (level >= 0)
		want = level;
	else
		want = zc->meter.za != NULL ? zauto_level(zc->meter.za) :
		    zc->base;
	return zconn_relevel(zc, want, err);
}

int
zconn_level(const struct conn *c)
{
	struct zconn	*zc = zconn_get(c);

	return zc != NULL ? zstream_level(zc->z) : 0;
}

void
zconn_set_capture(struct conn *c, zconn_capture_fn fn, void *arg)
{
	struct zconn	*zc = zconn_get(c);

	if (zc == NULL)
		return;
	zc->capfn = fn;
	zc->caparg = arg;
}

int
zconn_splice(struct conn *c, const void *p, size_t len, struct cerr *err)
{
	struct zconn	*zc = zconn_get(c);
	struct cerr	 zerr;
	int		 r;

	if (zc == NULL || conn_queued(c) > 0) {
		cerr_set(err, "%s: splice outside a flushed stream",
		    conn_peer(c));
		return -1;
	}
	buf_reset(zc->tmp);
	if (zstream_splice(zc->z, p, len, zc->tmp, &zerr) == -1) {
		cerr_set(err, "%s: %s", conn_peer(c), zerr.msg);
		return -1;
	}
	zc->zout += len;
	zc->spliced_wire += len;
	r = conn_wire_queue(c, buf_data(zc->tmp), buf_len(zc->tmp), err);
	buf_reset(zc->tmp);
	return r;
}

int
zconn_splice_end(struct conn *c, uint64_t raw, int level, struct cerr *err)
{
	struct zconn	*zc = zconn_get(c);
	struct cerr	 zerr;

	if (zc == NULL) {
		cerr_set(err, "%s: compression is off", conn_peer(c));
		return -1;
	}
	if (zstream_resume(zc->z, &zerr) == -1) {
		cerr_set(err, "%s: %s", conn_peer(c), zerr.msg);
		return -1;
	}
	zc->spliced_raw += raw;
	if (level >= 0 && (size_t)level < ZCONN_NELEM(zc->lvl_raw))
		zc->lvl_raw[level] += raw;
	/* Copying is not deflating: keep it out of the policy's view. */
	zconn_meter_zero(&zc->meter, c);
	return 0;
}
