/*
 * zlevel.c: which codec and which level a session's compression may
 * use, and which it uses now (see zlevel.h).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cerr.h"
#include "compat.h"
#include "xmalloc.h"
#include "zauto.h"
#include "zlevel.h"
#include "zstdconn.h"
#include "zstream.h"

/* One row per codec: a second codec is a second row. */
struct zlevel_row {
	const char	*name;		/* on the wire: COMP <name> */
	const char	*label;		/* in messages and -Z */
	int		 lo, hi;	/* levels; lo: stored blocks */
	int		 autostart;	/* the automatic level starts here */
	int		 fallback;	/* -Z auto, server without it */
	int		 deflt;		/* -Z <label> without a level */
	int		 hasauto;	/* COMP <name> AUTO exists */
	int		 defmax;	/* what cairnd offers by default */
	int		 built;		/* 0: its library is not built in */
};

/*
 * The automatic level of either codec starts at 0 and measures what a
 * trial of level 1 would give (zauto.h): a fast link then costs nothing
 * from the first byte, and a slow one pushes back within the first
 * quarter window.  zstd's levels are faster and smaller than zlib's at
 * every point measured (zauto.c's shapes), so -Z auto asks for zstd
 * where the server offers it.  "-Z zstd" is zstd's own default level,
 * 3, which is also the most cairnd offers by default: a session's zstd
 * contexts then hold about 6 MiB, under 8 (cairnd(8), "Compression").
 * Built without zstd (configure --without-zstd), its row says so: no
 * level but 0 (not offered), offered by no cairnd, asked by no client.
 */
static const struct zlevel_row zlevel_rows[ZLEVEL_NCODECS] = {
	[ZLEVEL_ZLIB] = { "ZLIB", "zlib", 0, ZS_MAXLEVEL, 0, 1, 6, 1, 0, 1 },
#ifdef HAVE_ZSTD
	[ZLEVEL_ZSTD] = { "ZSTD", "zstd", 0, ZSTDCONN_MAXLEVEL, 0, 1, 3, 1, 3,
			  1 },
#else
	[ZLEVEL_ZSTD] = { "ZSTD", "zstd", 0, 0, 0, 0, 0, 0, 0, 0 },
#endif
};

/* zauto.h names the codecs as zlevel.h does. */
typedef char zlevel_zauto_zlib[ZAUTO_ZLIB == ZLEVEL_ZLIB ? 1 : -1];
typedef char zlevel_zauto_zstd[ZAUTO_ZSTD == ZLEVEL_ZSTD ? 1 : -1];

static const struct zlevel_row *
zlevel_row(enum zlevel_codec codec)
{
	return &zlevel_rows[codec];
}

int
zlevel_codec(const char *name)
{
	int	 i;

	for (i = 0; i < ZLEVEL_NCODECS; i++)
		if (strcasecmp(name, zlevel_rows[i].name) == 0)
			return i;
	return -1;
}

const char *
zlevel_name(enum zlevel_codec codec)
{
	return zlevel_row(codec)->name;
}

const char *
zlevel_label(enum zlevel_codec codec)
{
	return zlevel_row(codec)->label;
}

int
zlevel_built(enum zlevel_codec codec)
{
	return zlevel_row(codec)->built;
}

/* The error of a level of a codec that is not built in. */
static int
zlevel_notbuilt(const struct zlevel_row *r, const char *s, struct cerr *err)
{
	cerr_set(err, "%s: %s is not built in (configured --without-%s)", s,
	    r->label, r->label);
	return -1;
}

int
zlevel_default(enum zlevel_codec codec)
{
	return zlevel_row(codec)->deflt;
}

int
zlevel_default_max(enum zlevel_codec codec)
{
	return zlevel_row(codec)->defmax;
}

void
zlevel_range(enum zlevel_codec codec, int *lo, int *hi)
{
	*lo = zlevel_row(codec)->lo;
	*hi = zlevel_row(codec)->hi;
}

int
zlevel_parse(enum zlevel_codec codec, const char *s, int flags, int *level,
    struct cerr *err)
{
	const struct zlevel_row	*r = zlevel_row(codec);
	const char		*errstr;
	long long		 v;

	if ((flags & ZLEVEL_ARG_AUTO) && strcmp(s, "auto") == 0) {
		*level = ZLEVEL_AUTO;
		return 0;
	}
	v = strtonum(s, r->lo, r->hi, &errstr);
	if (errstr == NULL && (flags & ZLEVEL_ARG_DEFLATE) && v == r->lo)
		errstr = "too small";
	if (errstr == NULL) {
		*level = (int)v;
		return 0;
	}
	if (!r->built)
		return zlevel_notbuilt(r, s, err);
	if (flags & ZLEVEL_ARG_OPTION)
		cerr_set(err, "compression level %s: %s (%d..%d)", s, errstr,
		    r->lo, r->hi);
	else if (flags & ZLEVEL_ARG_AUTO)
		cerr_set(err, "%s: invalid compression level (%d to %d, or "
		    "auto)", s, r->lo, r->hi);
	else
		cerr_set(err, "%s: invalid compression level", s);
	return -1;
}

int
zlevel_parse_client(const char *s, enum zlevel_codec *codec, int *level,
    struct cerr *err)
{
	const struct zlevel_row	*r = zlevel_row(ZLEVEL_ZSTD);
	const char		*errstr;
	size_t			 n = strlen(r->label);
	long long		 v;

	if (strncmp(s, r->label, n) != 0 || (s[n] != '\0' && s[n] != ':')) {
		*codec = ZLEVEL_ZLIB;
		if (zlevel_parse(ZLEVEL_ZLIB, s, ZLEVEL_ARG_AUTO, level,
		    err) == 0)
			return 0;
		/* Name every form -Z takes, zstd's too where built in. */
		if (r->built)
			cerr_set(err, "%s: invalid compression level (%d to "
			    "%d, auto, %s or %s:%d to %d)", s,
			    zlevel_row(ZLEVEL_ZLIB)->lo,
			    zlevel_row(ZLEVEL_ZLIB)->hi, r->label, r->label,
			    r->lo + 1, r->hi);
		return -1;
	}
	*codec = ZLEVEL_ZSTD;
	if (!r->built)
		return zlevel_notbuilt(r, s, err);
	if (s[n] == '\0') {
		*level = r->deflt;
		return 0;
	}
	v = strtonum(s + n + 1, r->lo + 1, r->hi, &errstr);
	if (errstr != NULL) {
		cerr_set(err, "%s: invalid zstd level (%d to %d)", s,
		    r->lo + 1, r->hi);
		return -1;
	}
	*level = (int)v;
	return 0;
}

int
zlevel_check(enum zlevel_codec codec, int level, struct cerr *err)
{
	const struct zlevel_row	*r = zlevel_row(codec);

	if (level < r->lo || level > r->hi) {
		cerr_set(err, "%d: invalid compression level", level);
		return -1;
	}
	return 0;
}

int
zlevel_deflates(enum zlevel_codec codec, int level)
{
	return zlevel_check(codec, level, NULL) == 0 &&
	    level > zlevel_row(codec)->lo;
}

int
zlevel_offered(const struct zlevel_limit *lim, enum zlevel_codec codec)
{
	return lim->max[codec] > 0;
}

int
zlevel_offered_any(const struct zlevel_limit *lim)
{
	int	 i;

	for (i = 0; i < ZLEVEL_NCODECS; i++)
		if (lim->max[i] > 0)
			return 1;
	return 0;
}

int
zlevel_offered_auto(const struct zlevel_limit *lim)
{
	return lim->max[ZLEVEL_ZLIB] > 0 && lim->autook;
}

void
zlevel_grant(const struct zlevel_limit *lim, enum zlevel_codec codec,
    const char *arg, struct zlevel *zl)
{
	long	 lv;

	zl->codec = codec;
	zl->zauto = 0;
	if (arg == NULL) {
		zl->level = lim->max[codec];
		return;
	}
	if (lim->autook && zlevel_row(codec)->hasauto &&
	    strcasecmp(arg, "AUTO") == 0) {
		zl->level = lim->max[codec];
		zl->zauto = 1;
		return;
	}
	errno = 0;
	lv = strtol(arg, NULL, 10);
	if (lv < zlevel_row(codec)->lo + 1)
		lv = zlevel_row(codec)->lo + 1;
	if (lv > lim->max[codec])
		lv = lim->max[codec];
	zl->level = (int)lv;
}

void
zlevel_ask(enum zlevel_codec codec, int level, int zauto, int srvauto,
    struct zlevel *zl)
{
	zl->codec = codec;
	zl->zauto = zauto && srvauto && zlevel_row(codec)->hasauto;
	if (zl->zauto)
		zl->level = 0;
	else if (zauto)
		zl->level = zlevel_row(codec)->fallback;
	else
		zl->level = level;
}

int
zlevel_cap(struct zlevel *zl, long cap)
{
	if (cap < 0 || cap > INT_MAX || !zlevel_deflates(zl->codec, (int)cap))
		return -1;
	zl->level = (int)cap;
	return 0;
}

void
zlevel_choose(const struct zlevel_limit *lim, const struct zauto_memo *m,
    struct zlevel *zl)
{
	int	 cap[ZAUTO_NCODECS];

	if (!zl->zauto || zl->codec != ZLEVEL_ZSTD ||
	    !zlevel_offered_auto(lim))
		return;
	cap[ZAUTO_ZLIB] = lim->max[ZLEVEL_ZLIB];
	cap[ZAUTO_ZSTD] = zl->level;
	if (zauto_choose(cap, m) == ZAUTO_ZLIB) {
		zl->codec = ZLEVEL_ZLIB;
		zl->level = lim->max[ZLEVEL_ZLIB];
	}
}

int
zlevel_autostart(enum zlevel_codec codec)
{
	return zlevel_row(codec)->autostart;
}

/* The "<opt> <spec>: levels are ..." error: every codec built in. */
static void
zlevel_badlist(const char *opt, const char *spec, struct cerr *err)
{
	char	 ranges[128];
	size_t	 off = 0;
	int	 c, lo, hi;

	ranges[0] = '\0';
	for (c = 0; c < ZLEVEL_NCODECS && off < sizeof(ranges); c++) {
		if (!zlevel_built((enum zlevel_codec)c))
			continue;
		zlevel_range((enum zlevel_codec)c, &lo, &hi);
		/* zlib's levels are bare numbers, as in a client's -Z. */
		if (c == ZLEVEL_ZLIB)
			off += (size_t)snprintf(ranges + off, sizeof(ranges) -
			    off, "%d to %d", lo + 1, hi);
		else
			off += (size_t)snprintf(ranges + off, sizeof(ranges) -
			    off, "%s%s:%d to %s:%d", off > 0 ? ", or " : "",
			    zlevel_label((enum zlevel_codec)c), lo + 1,
			    zlevel_label((enum zlevel_codec)c), hi);
	}
	cerr_set(err, "%s %s: levels are %s", opt, spec, ranges);
}

int
zlevel_parse_list(const char *opt, const char *spec,
    struct zlevel levels[ZLEVEL_LISTMAX], int *n, struct cerr *err)
{
	enum zlevel_codec codec;
	struct cerr	 perr;
	char		*s, *p, *tok;
	int		 l, i, bad, rc = 0;

	*n = 0;
	s = xstrdup(spec);
	for (p = s; (tok = strsep(&p, ",")) != NULL; ) {
		/* A client's -Z, less "auto" and the stored levels. */
		bad = zlevel_parse_client(tok, &codec, &l, &perr) == -1;
		if (bad || l == ZLEVEL_AUTO || !zlevel_deflates(codec, l)) {
			if (bad && !zlevel_built(codec))
				cerr_set(err, "%s %s: %s", opt, spec,
				    perr.msg);
			else
				zlevel_badlist(opt, spec, err);
			rc = -1;
			break;
		}
		for (i = 0; i < *n; i++)
			if (levels[i].codec == codec && levels[i].level == l)
				break;
		if (i == *n && *n < ZLEVEL_LISTMAX) {
			levels[*n].codec = codec;
			levels[*n].level = l;
			levels[*n].zauto = 0;
			(*n)++;
		}
	}
	free(s);
	return rc;
}
