/*
 * zlevel.h: which codec and which level a session's compression may
 * use, and which it uses now (docs/protocol.md section 9).
 *
 * The one owner of a compression level.  Each codec is a row of one
 * table: its name on the wire, its levels (lowest to highest; the
 * lowest sends the data as they are, framed), the level the automatic
 * level starts at, and the fixed level a client that wants the
 * automatic level asks of a server without it.  From that row alone
 * come the parsing of a level argument (a tool's -Z "0".."9" or "auto",
 * cairnd's -Z and -W) and its error messages, what a client asks for
 * (COMP <codec> <level> or AUTO), what a server grants (the level asked
 * for clamped to its maximum, or the automatic level up to that maximum
 * when it allows it), the start of the stream fixed or automatic,
 * pinning the output to stored blocks around a body, the current level
 * as the stream reports it, and cairnd's cache entries of either codec
 * (made, captured and spliced: zlevel_entry_new, zlevel_splice).  No
 * other file checks a level's number.
 *
 * A client's -Z reaches deflate on the server through three files:
 * zlevel.c (parsed, asked for, granted and started), zconn.c (the
 * compressed stream of the connection, at the level granted, pinned or
 * left to the automatic level, zauto.h) and zstream.c (deflate at that
 * level).  A zstd session's stream is zstdconn.c's instead (between
 * cairn peers only, section 9.2).  copts.c, net.c and session.c only
 * hand over the argument and the words of COMP.
 *
 * Dependencies run one way: zlevel uses zconn, zstdconn and zstream;
 * none of them uses zlevel.
 */
#ifndef CAIRN_ZLEVEL_H
#define CAIRN_ZLEVEL_H

#include "conn.h"
#include "zconn.h"
#include "zstdconn.h"
#include "zstream.h"

struct buf;
struct cerr;
struct conn;

enum zlevel_codec {
	ZLEVEL_ZLIB,		/* "ZLIB": one zlib stream, levels 0 to 9 */
	ZLEVEL_ZSTD,		/* "ZSTD": zstd frames, levels 0 to 19;
				   cairn peers only */
	ZLEVEL_NCODECS
};

/* The most levels zlib has: arrays of zlib levels are this long. */
#define ZLEVEL_NLEVELS		(ZS_MAXLEVEL + 1)

/* The codec named (any case) on the wire, or -1. */
int		 zlevel_codec(const char *name);
const char	*zlevel_name(enum zlevel_codec);
/* Its name in messages: "zlib", "zstd". */
const char	*zlevel_label(enum zlevel_codec);
/* Its levels: lo sends stored blocks, lo + 1 to hi deflate. */
void		 zlevel_range(enum zlevel_codec, int *lo, int *hi);

/*
 * A level argument s, lo to hi of the codec's range, into *level;
 * -1 with a message in err.  flags:
 *   0			"<s>: invalid compression level"
 *   ZLEVEL_ARG_AUTO	also "auto" (*level = ZLEVEL_AUTO); the message
 *			is "<s>: invalid compression level (0 to 9, or
 *			auto)", as every client tool's -Z says it
 *   ZLEVEL_ARG_OPTION	cairnd's options' wording: "compression level
 *			<s>: too large (0..9)" (or invalid, too small)
 *   ZLEVEL_ARG_DEFLATE	a level that deflates (not the stored one)
 */
#define ZLEVEL_AUTO		(-1)
#define ZLEVEL_ARG_AUTO		0x01
#define ZLEVEL_ARG_OPTION	0x02
#define ZLEVEL_ARG_DEFLATE	0x04
int		 zlevel_parse(enum zlevel_codec, const char *s, int flags,
		    int *level, struct cerr *err);
/*
 * A client tool's -Z argument: "0".."9" or "auto" (zlib, as
 * zlevel_parse with ZLEVEL_ARG_AUTO), "zstd" (zstd at its default
 * level) or "zstd:<level>" (1 to 19).  -1 with a message in err,
 * which names every form: "<s>: invalid compression level (0 to 9,
 * auto, zstd or zstd:1 to 19)" (without zstd built in, as
 * zlevel_parse's ZLEVEL_ARG_AUTO).
 */
int		 zlevel_parse_client(const char *s, enum zlevel_codec *codec,
		    int *level, struct cerr *err);
/*
 * Nonzero if the codec is built in.  zstd is not with configure
 * --without-zstd: then its only level is 0 (not offered), its default
 * max is 0, and a level argument other than 0 is refused, "<s>: zstd is
 * not built in (configured --without-zstd)".
 */
int		 zlevel_built(enum zlevel_codec);
/* The level "-Z <codec>" without a number asks for. */
int		 zlevel_default(enum zlevel_codec);
/* The most cairnd offers of the codec by default (0: not offered). */
int		 zlevel_default_max(enum zlevel_codec);
/* 0 if level is one of the codec's; else -1, "<level>: invalid ...". */
int		 zlevel_check(enum zlevel_codec, int level, struct cerr *err);
/* Nonzero if level is one of the codec's that deflates. */
int		 zlevel_deflates(enum zlevel_codec, int level);

/*
 * What a server allows: cairnd -Z max-level (zlib), -Y max-level (zstd)
 * and -A auto|fixed.
 */
struct zlevel_limit {
	int		 max[ZLEVEL_NCODECS];	/* per codec, 0: not offered */
	int		 autook;	/* the automatic level may be asked */
};
/*
 * Nonzero if the server offers the codec; ... any codec; ... zlib's
 * automatic level (the only codec with one).
 */
int		 zlevel_offered(const struct zlevel_limit *, enum zlevel_codec);
int		 zlevel_offered_any(const struct zlevel_limit *);
int		 zlevel_offered_auto(const struct zlevel_limit *);

/* What a session uses, agreed by both ends (zeroed: no compression). */
struct zlevel {
	enum zlevel_codec codec;
	int		 level;		/* fixed level, or the automatic's cap */
	int		 zauto;		/* automatic level, from lo to level */
};

/*
 * A list of levels that compress ("9", "1,6,9", "9,zstd:19"; cairnd -W,
 * cairn-bench --cache), each as a client's -Z gives it
 * (zlevel_parse_client), into levels[0 .. *n) without duplicates; -1
 * with "<opt> <spec>: levels are 1 to 9, or zstd:1 to zstd:19" in err
 * for "auto", a level that stores, or one that is no level.
 */
#define ZLEVEL_LISTMAX	(ZS_MAXLEVEL + ZSTDCONN_MAXLEVEL)
int		 zlevel_parse_list(const char *opt, const char *spec,
		    struct zlevel levels[ZLEVEL_LISTMAX], int *n,
		    struct cerr *err);

/*
 * The server's answer to COMP <codec> [arg]: no arg, the limit's max;
 * "AUTO" (any case) where the limit allows it for the codec, the
 * automatic level up to the max; any other arg read as a number (atoi,
 * as Radmind reads it, without its overflow) and clamped to lo + 1 ..
 * max.  The limit must offer the codec.
 */
void		 zlevel_grant(const struct zlevel_limit *, enum zlevel_codec,
		    const char *arg, struct zlevel *);
/*
 * The codec of an automatic level granted for zstd (COMP ZSTD AUTO,
 * which leaves the codec to the server): zlib instead, at its max, when
 * the limit offers its automatic level too and the last session's memo
 * m (NULL: none) says it carries more over the peer's link
 * (zauto_choose).
 */
struct zauto_memo;
void		 zlevel_choose(const struct zlevel_limit *,
		    const struct zauto_memo *m, struct zlevel *);

/*
 * What a client asks for: -Z level, or with zauto the automatic level
 * of a server that offers it (srvauto), else the codec's fallback.
 */
void		 zlevel_ask(enum zlevel_codec, int level, int zauto,
		    int srvauto, struct zlevel *);
/* The cap a server named for the automatic level: 0, or -1 if invalid. */
int		 zlevel_cap(struct zlevel *, long cap);

/* The level the automatic level of the codec starts at. */
int		 zlevel_autostart(enum zlevel_codec);

/*
 * The stream of a connection at the agreed level (zconn.h, zstdconn.h),
 * inline here so that a tool that only parses a level (copts.c) links
 * no connection.
 *
 * zlevel_start: start the compressed stream of c as agreed
 * (zconn_start, zstdconn_start): at the fixed level, or at the codec's
 * first automatic level with the automatic level on up to the cap.
 * ratio: as zconn_start's.
 */
static inline int
zlevel_start(struct conn *c, const struct zlevel *zl, int ratio,
    struct cerr *err)
{
	if (zl->codec == ZLEVEL_ZSTD) {
		if (!zl->zauto)
			return zstdconn_start(c, zl->level, ratio, err);
		if (zstdconn_start(c, zlevel_autostart(zl->codec), ratio,
		    err) == -1)
			return -1;
		return zstdconn_set_auto(c, zl->level, err);
	}
	if (!zl->zauto)
		return zconn_start(c, zl->level, ratio, err);
	if (zconn_start(c, zlevel_autostart(zl->codec), ratio, err) == -1)
		return -1;
	return zconn_set_auto(c, zl->level, err);
}

/*
 * Pin the output to stored blocks (a body that does not shrink), and
 * end that pin: the fixed or automatic level applies again.  Nothing
 * without compression.
 */
static inline int
zlevel_pin_stored(struct conn *c, const struct zlevel *zl, struct cerr *err)
{
	int	lo, hi;

	zlevel_range(zl->codec, &lo, &hi);
	if (zstdconn_on(c))
		return zstdconn_pin_level(c, lo, err);
	return zconn_pin_level(c, lo, err);
}

static inline int
zlevel_unpin(struct conn *c, struct cerr *err)
{
	if (zstdconn_on(c))
		return zstdconn_pin_level(c, -1, err);
	return zconn_pin_level(c, -1, err);
}

/*
 * The automatic level's memo (zauto.h) of the connection's stream:
 * start from one (before anything is sent), and take one at the end.
 */
static inline int
zlevel_recall(struct conn *c, const struct zauto_memo *m, struct cerr *err)
{
	if (zstdconn_on(c))
		return zstdconn_recall(c, m, err);
	return zconn_recall(c, m, err);
}

static inline int
zlevel_memo(const struct conn *c, struct zauto_memo *m)
{
	if (zstdconn_on(c))
		return zstdconn_memo(c, m);
	return zconn_memo(c, m);
}

/* Nonzero when the connection's output is compressed, by any codec. */
static inline int
zlevel_on(const struct conn *c)
{
	return zconn_on(c) || zstdconn_on(c);
}

/* The level the output uses now, as the stream reports it; 0: none. */
static inline int
zlevel_now(const struct conn *c)
{
	return zstdconn_on(c) ? zstdconn_level(c) : zconn_level(c);
}

/*
 * The levels a body sent now may be deflated at, lo to hi: the
 * automatic level's deflating ones up to its cap, else the current.
 */
static inline void
zlevel_span(const struct zlevel *zl, const struct conn *c, int *lo, int *hi)
{
	int	top;

	if (zl->zauto) {
		zlevel_range(zl->codec, lo, &top);
		*lo += 1;
		*hi = zl->level;
	} else
		*lo = *hi = zlevel_now(c);
}

/*
 * cairnd's cache of compressed bodies (zcache.h) in a session's stream,
 * whatever its codec.  An entry of the codec is spliced, or captured
 * while it is made, between two points where the output ends as
 * zlevel_flush_entry ends it: for zlib a sync flush (a byte boundary:
 * an entry never refers back, and the compressor is reset after one
 * spliced); for zstd the end of the frame, since an entry is a complete
 * frame of its own.  (An entry being made must also start from an empty
 * history: a full flush before it, whatever the codec.)
 */
static inline int
zlevel_flush_entry(struct conn *c, struct cerr *err)
{
	if (zstdconn_on(c))
		return conn_flush_full(c, err);
	return conn_flush(c, err);
}

/* As zconn_set_capture, zstdconn_set_capture. */
static inline void
zlevel_capture(struct conn *c, zconn_capture_fn fn, void *arg)
{
	if (zstdconn_on(c))
		zstdconn_set_capture(c, fn, arg);
	else
		zconn_set_capture(c, fn, arg);
}

/* As zconn_splice, zstdconn_splice ... */
static inline int
zlevel_splice(struct conn *c, const void *p, size_t len, struct cerr *err)
{
	if (zstdconn_on(c))
		return zstdconn_splice(c, p, len, err);
	return zconn_splice(c, p, len, err);
}

/* ... and zconn_splice_end, zstdconn_splice_end. */
static inline int
zlevel_splice_end(struct conn *c, uint64_t raw, int level, struct cerr *err)
{
	if (zstdconn_on(c))
		return zstdconn_splice_end(c, raw, level, err);
	return zconn_splice_end(c, raw, level, err);
}

/*
 * The maker of a cache entry of codec at level (one that compresses),
 * apart from any connection (cairnd -W): data compressed alone, from an
 * empty history; zlevel_entry_add appends the output of len bytes at p
 * to out, and with end nonzero ends the entry (zlib: a full flush of a
 * headless stream, zstream_headless; zstd: the end of the frame,
 * zstdconn_frame_new).
 */
struct zlevel_entry {
	struct zstream		*z;	/* zlib's, or NULL */
	struct zstdconn_frame	*f;	/* zstd's, or NULL */
};

static inline int
zlevel_entry_new(struct zlevel_entry *e, enum zlevel_codec codec, int level,
    struct zstdconn_dict *d, struct cerr *err)
{
	e->z = NULL;
	e->f = NULL;
	if (codec == ZLEVEL_ZSTD)
		return (e->f = zstdconn_frame_new(level, d, err)) == NULL ?
		    -1 : 0;
	if ((e->z = zstream_new(level, err)) == NULL)
		return -1;
	zstream_headless(e->z);
	return 0;
}

static inline int
zlevel_entry_add(struct zlevel_entry *e, const void *p, size_t len, int end,
    struct buf *out, struct cerr *err)
{
	if (e->f != NULL)
		return zstdconn_frame_add(e->f, p, len, end, out, err);
	return zstream_deflate(e->z, p, len, end ? ZS_FULL : ZS_NOFLUSH, out,
	    err);
}

static inline void
zlevel_entry_free(struct zlevel_entry *e)
{
	zstream_free(e->z);
	zstdconn_frame_free(e->f);
	e->z = NULL;
	e->f = NULL;
}

#endif
