/*
 * bench-svg.c: the figure of a sweep (--svg).  The upper panel draws the
 * pull time per level, one line per link on a logarithmic scale, with
 * the range of the runs and the best level ringed; the lower one the
 * wire bytes each level saves against the lowest.  zlib's levels are a
 * solid line with dots, zstd's, past a dashed rule right of them, a
 * dashed line with diamonds.  -Z auto, when
 * measured, stands one step right of the last fixed level, past a dashed
 * rule: per link a square (time; bytes saved) joined to the link's
 * fastest fixed level by a dashed line, with the ratio of their times
 * beside it, inside the frame, the labels of the links kept apart.  The
 * legend and its notes stand right of the time panel, one short line
 * each.  With too little data to measure (BENCH_MINDATA) the title says
 * so.  A PNG is written beside it when rsvg-convert or ImageMagick's
 * convert is installed.
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "log.h"
#include "xmalloc.h"

/* Page width; the plot area runs from X0 to X1. */
#define W	960.0
#define X0	80.0
#define X1	640.0
/* Room right of auto's squares for the ratio beside them. */
#define LABELW	40.0
/* Top and bottom of the time panel and of the savings panel. */
#define Y0	50.0
#define Y1	330.0
#define Z0	410.0
#define Z1	600.0

static const char *colors[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
    "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22" };
#define NCOLORS	(sizeof(colors) / sizeof(colors[0]))

/* The scales of the figure. */
struct svg {
	FILE		*fp;
	const struct bench *b;
	double		 d;		/* width of one level step */
	double		 lo, hi;	/* decades of the time axis */
	double		 label_y[MAXLINKS];	/* auto's ratios */
};

/* The colour of zstd's line on the savings panel (zlib's is #333). */
#define ZSTD_COLOR	"#b8860b"

/*
 * The fixed level indices of codec, [*lo, *hi) (empty when none): the
 * levels are sorted, zlib's then zstd's.
 */
static void
svg_span(const struct bench *b, int codec, int *lo, int *hi)
{
	int	li;

	for (li = 0; li < b->nfixed && (int)level_codec(b->levels[li]) <
	    codec; li++)
		;
	*lo = li;
	for (; li < b->nfixed && (int)level_codec(b->levels[li]) == codec;
	    li++)
		;
	*hi = li;
}

/*
 * Where level index li stands on the level axis, in level steps from the
 * lowest: zlib's levels by their number, zstd's one step apart past
 * them, auto one step past the last fixed level.
 */
static double
svg_pos(const struct bench *b, int li)
{
	int	lo, hi;

	if (li >= b->nfixed)
		return svg_pos(b, b->nfixed - 1) + 1;
	if (level_codec(b->levels[li]) == ZLEVEL_ZLIB)
		return b->levels[li] - b->levels[0];
	svg_span(b, ZLEVEL_ZLIB, &lo, &hi);
	return (hi > lo ? svg_pos(b, hi - 1) + 1 : 0) + li - hi;
}

/* x of level index li. */
static double
svg_x(const struct svg *g, int li)
{
	return X0 + 20 + svg_pos(g->b, li) * g->d;
}

/* The diamond that marks a zstd level's points. */
static void
svg_diamond(FILE *fp, double x, double y, double r, const char *fill,
    const char *stroke)
{
	fprintf(fp, "<polygon points=\"%.1f,%.1f %.1f,%.1f %.1f,%.1f "
	    "%.1f,%.1f\" fill=\"%s\" stroke=\"%s\" stroke-width=\"%d\"/>\n",
	    x, y - r, x + r, y, x, y + r, x - r, y, fill, stroke,
	    strcmp(fill, "white") == 0 ? 2 : 1);
}

/* The square that marks auto's points. */
static void
svg_square(FILE *fp, double x, double y, const char *color)
{
	fprintf(fp, "<rect x=\"%.1f\" y=\"%.1f\" width=\"8\" height=\"8\" "
	    "fill=\"white\" stroke=\"%s\" stroke-width=\"2\"/>\n", x - 4,
	    y - 4, color);
}

/* y of t seconds on the time panel. */
static double
svg_ty(const struct svg *g, double t)
{
	return Y1 - (log10(t) - g->lo) / (g->hi - g->lo) * (Y1 - Y0);
}

static void
svg_text_escaped(FILE *fp, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '&':
			fputs("&amp;", fp);
			break;
		default:
			fputc(*s, fp);
		}
}

/* The decades of the time axis: they hold every run of every cell. */
static void
svg_time_scale(struct svg *g)
{
	const struct bench	*b = g->b;
	double			 tmin = INFINITY, tmax = 0;
	int			 k, li;

	for (k = 0; k < b->nlinks; k++)
		for (li = 0; li < b->nlevels; li++) {
			if (b->links[k].cells[li].t_min < tmin)
				tmin = b->links[k].cells[li].t_min;
			if (b->links[k].cells[li].t_max > tmax)
				tmax = b->links[k].cells[li].t_max;
		}
	if (!(tmin > 0))
		tmin = 1e-3;
	if (tmax <= tmin)
		tmax = tmin * 10;
	g->lo = floor(log10(tmin));
	g->hi = ceil(log10(tmax));
	if (g->hi <= g->lo)
		g->hi = g->lo + 1;
}

/* The axes of the time panel and the level labels of both panels. */
static void
svg_axes(const struct svg *g)
{
	const struct bench	*b = g->b;
	FILE			*fp = g->fp;
	double			 v, x, y;
	int			 e, m, li, lo, hi;

	fprintf(fp, "<g stroke=\"black\" fill=\"none\"><rect x=\"%.0f\" "
	    "y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/></g>\n", X0, Y0,
	    X1 - X0, Y1 - Y0);
	for (e = (int)g->lo; e <= (int)g->hi; e++)
		for (m = 1; m < 10; m++) {
			v = log10(m * pow(10, e));
			if (v > g->hi + 1e-9)
				break;
			y = Y1 - (v - g->lo) / (g->hi - g->lo) * (Y1 - Y0);
			fprintf(fp, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"%s\"/>\n", X0, X1, y, y,
			    m == 1 ? "#bbb" : "#eee");
			if (m == 1 || m == 2 || m == 5)
				fprintf(fp, "<text x=\"%.0f\" y=\"%.1f\" "
				    "text-anchor=\"end\">%g s</text>\n",
				    X0 - 6, y + 4, m * pow(10, e));
		}
	fprintf(fp, "<text x=\"20\" y=\"%.0f\" transform=\"rotate(-90 20 "
	    "%.0f)\" text-anchor=\"middle\">time (s, log scale)</text>\n",
	    (Y0 + Y1) / 2, (Y0 + Y1) / 2);
	for (li = 0; li < b->nlevels; li++) {
		x = svg_x(g, li);
		fprintf(fp, "<text x=\"%.1f\" y=\"%.0f\" "
		    "text-anchor=\"middle\">%s</text>\n"
		    "<text x=\"%.1f\" y=\"%.0f\" "
		    "text-anchor=\"middle\">%s</text>\n", x, Y1 + 16,
		    level_name(b->levels[li]), x, Z1 + 16,
		    level_name(b->levels[li]));
	}
	svg_span(b, ZLEVEL_ZSTD, &lo, &hi);
	if (lo > 0 && hi > lo) {
		/* zstd's levels are another scale: a rule sets them apart. */
		x = (svg_x(g, lo - 1) + svg_x(g, lo)) / 2;
		fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" "
		    "y2=\"%.0f\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n"
		    "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" "
		    "stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n", x, x, Y0,
		    Y1, x, x, Z0, Z1);
	}
	if (b->nlevels > b->nfixed) {
		/* Auto is no level of the scale: a rule sets it apart. */
		x = (svg_x(g, b->nfixed - 1) + svg_x(g, b->nfixed)) / 2;
		fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" "
		    "y2=\"%.0f\" stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n"
		    "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.0f\" y2=\"%.0f\" "
		    "stroke=\"#999\" stroke-dasharray=\"4 3\"/>\n", x, x, Y0,
		    Y1, x, x, Z0, Z1);
	}
	fprintf(fp, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">"
	    "compression level (-Z)</text>\n", (X0 + X1) / 2, Y1 + 34);
}

/*
 * Auto (level index li) of link k: its square (ringed when it is the
 * advice), a dashed line from the fastest fixed level and, beside the
 * square at the height svg_auto_labels chose, its time over that
 * level's.
 */
static void
svg_auto_link(const struct svg *g, int k, int li, const char *color)
{
	const struct link	*l = &g->b->links[k];
	const struct cell	*ca = &l->cells[li], *cf = &l->cells[l->fastest];
	double			 x = svg_x(g, li), y = svg_ty(g, ca->t_med);

	fprintf(g->fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
	    "y2=\"%.1f\" stroke=\"%s\" stroke-width=\"1.5\" "
	    "stroke-dasharray=\"5 3\"/>\n", svg_x(g, l->fastest), x,
	    svg_ty(g, cf->t_med), y, color);
	if (l->autobest)
		fprintf(g->fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"9\" "
		    "fill=\"none\" stroke=\"black\" stroke-width=\"2\"/>\n",
		    x, y);
	svg_square(g->fp, x, y, color);
	fprintf(g->fp, "<text x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
	    "fill=\"%s\">%.2fx</text>\n", x + 12, g->label_y[k] + 4, color,
	    cf->t_med > 0 ? ca->t_med / cf->t_med : 0.0);
}

/*
 * Where the ratio beside each link's auto square goes: at the square's
 * height, but at least LABELH apart from the others' and within the
 * panel.
 */
#define LABELH	12.0
static void
svg_auto_labels(struct svg *g)
{
	const struct bench	*b = g->b;
	int			 order[MAXLINKS], i, j, t, n = b->nlinks;

	if (b->nlevels == b->nfixed)
		return;
	for (i = 0; i < n; i++) {
		g->label_y[i] = svg_ty(g, b->links[i].cells[b->nfixed].t_med);
		order[i] = i;
	}
	/* By height, top first (few links: an insertion sort). */
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && g->label_y[order[j]] <
		    g->label_y[order[j - 1]]; j--) {
			t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	for (i = 1; i < n; i++)
		if (g->label_y[order[i]] < g->label_y[order[i - 1]] + LABELH)
			g->label_y[order[i]] = g->label_y[order[i - 1]] +
			    LABELH;
	/* Pushed below the panel: the lot moves up, no higher than its top. */
	if (n > 0 && g->label_y[order[n - 1]] > Y1 - 6) {
		g->label_y[order[n - 1]] = Y1 - 6;
		for (i = n - 2; i >= 0; i--)
			if (g->label_y[order[i]] > g->label_y[order[i + 1]] -
			    LABELH)
				g->label_y[order[i]] =
				    g->label_y[order[i + 1]] - LABELH;
	}
}

/*
 * Link k on the time panel: a line through the medians of the fixed
 * levels, min-max bars, the best level ringed; auto as a square with a
 * dashed line to the fastest fixed level and the ratio of their times;
 * and its line of the legend.
 */
static void
svg_link(const struct svg *g, int k)
{
	const struct link	*l = &g->b->links[k];
	const struct cell	*c;
	const char		*color = colors[k % NCOLORS];
	FILE			*fp = g->fp;
	double			 x, y;
	int			 li, ringed, codec, lo, hi;

	/* A line per codec: zlib's solid, zstd's dashed. */
	for (codec = 0; codec < ZLEVEL_NCODECS; codec++) {
		svg_span(g->b, codec, &lo, &hi);
		if (hi == lo)
			continue;
		fprintf(fp, "<polyline fill=\"none\" stroke-width=\"2\" "
		    "stroke=\"%s\"%s points=\"", color,
		    codec == ZLEVEL_ZSTD ? " stroke-dasharray=\"6 3\"" : "");
		for (li = lo; li < hi; li++)
			fprintf(fp, "%s%.1f,%.1f", li > lo ? " " : "",
			    svg_x(g, li), svg_ty(g, l->cells[li].t_med));
		fprintf(fp, "\"/>\n");
	}
	for (li = 0; li < g->b->nlevels; li++) {
		c = &l->cells[li];
		x = svg_x(g, li);
		fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"%s\"/>\n", x, x,
		    svg_ty(g, c->t_min), svg_ty(g, c->t_max), color);
		if (li >= g->b->nfixed) {
			svg_auto_link(g, k, li, color);
			continue;
		}
		ringed = li == l->best && !l->autobest;
		if (level_codec(g->b->levels[li]) == ZLEVEL_ZSTD) {
			svg_diamond(fp, x, svg_ty(g, c->t_med), ringed ? 7 : 4,
			    ringed ? "white" : color, ringed ? "black" :
			    color);
			continue;
		}
		fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"%d\" "
		    "fill=\"%s\"/>\n", x, svg_ty(g, c->t_med),
		    ringed ? 5 : 3, ringed ? "white\" "
		    "stroke-width=\"2\" stroke=\"black" : color);
	}
	y = Y0 + 10 + k * 18;
	fprintf(fp, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" "
	    "y2=\"%.0f\" stroke=\"%s\" stroke-width=\"3\"/>\n"
	    "<text x=\"%.0f\" y=\"%.0f\">", X1 + 14, X1 + 34, y, y, color,
	    X1 + 40, y + 4);
	svg_text_escaped(fp, l->name);
	fprintf(fp, " (best -Z %s)%s</text>\n", level_name(l->autobest ?
	    LEVEL_AUTO : g->b->levels[l->best]), l->flagged ? " *" : "");
}

/*
 * The top of a scale holding v (> 0): a power of ten times one of steps,
 * whose quarters are round numbers.  A scale of nothing saved is one of
 * 1 MB.
 */
static double
svg_nice(double v)
{
	static const double	steps[] = { 1, 1.2, 1.6, 2, 2.4, 3.2, 4, 4.8,
	    6, 8, 10 };
	double			p;
	size_t			i;

	if (!(v > 0))
		return 1;
	p = pow(10, floor(log10(v)));
	for (i = 0; i < sizeof(steps) / sizeof(steps[0]); i++)
		if (steps[i] * p >= v * (1 - 1e-9))
			return steps[i] * p;
	return 10 * p;
}

/* MB that auto saved on link k against the lowest level's fit, or 0. */
static double
svg_auto_saved(const struct bench *b, const struct levelfit *fit, int k)
{
	const struct cell	*c;

	if (b->nlevels == b->nfixed)
		return 0;
	c = &b->links[k].cells[b->nfixed];
	return (fit[0].wire - (double)(c->down_med + c->up_med)) / 1e6;
}

/*
 * The lower panel: wire bytes saved per fixed level against the lowest,
 * from the model's medians over every link; auto per link.
 */
static void
svg_saved(const struct svg *g, const struct levelfit *fit)
{
	const struct bench	*b = g->b;
	FILE			*fp = g->fp;
	const char		*col;
	double			 smax, v, x, y;
	int			 li, m, pass, k, codec, lo, hi;

	for (li = 0, smax = 0; li < b->nfixed; li++)
		if ((fit[0].wire - fit[li].wire) / 1e6 > smax)
			smax = (fit[0].wire - fit[li].wire) / 1e6;
	for (k = 0; k < b->nlinks; k++)
		if ((v = svg_auto_saved(b, fit, k)) > smax)
			smax = v;
	smax = svg_nice(smax * 1.15);	/* room for the labels */
	fprintf(fp, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"14\" "
	    "font-weight=\"bold\">bytes saved on the wire vs level %s "
	    "(of %.1f MB)</text>\n", X0, Z0 - 14, level_name(b->levels[0]),
	    fit[0].wire / 1e6);
	fprintf(fp, "<g stroke=\"black\" fill=\"none\"><rect x=\"%.0f\" "
	    "y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/></g>\n", X0, Z0,
	    X1 - X0, Z1 - Z0);
	for (m = 0; m <= 4; m++) {
		y = Z1 - m * (Z1 - Z0) / 4;
		fprintf(fp, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"#ddd\"/>\n<text x=\"%.0f\" "
		    "y=\"%.1f\" text-anchor=\"end\">%.3g MB</text>\n", X0, X1,
		    y, y, X0 - 6, y + 4, smax * m / 4);
	}
	/*
	 * Per codec (zlib's dark, solid, with dots; zstd's coloured,
	 * dashed, with diamonds) first the line through the points, then
	 * the points.
	 */
	for (codec = 0; codec < ZLEVEL_NCODECS; codec++) {
		svg_span(b, codec, &lo, &hi);
		if (hi == lo)
			continue;
		col = codec == ZLEVEL_ZSTD ? ZSTD_COLOR : "#333";
		fprintf(fp, "<polyline fill=\"none\" stroke=\"%s\" "
		    "stroke-width=\"2\"%s points=\"", col,
		    codec == ZLEVEL_ZSTD ? " stroke-dasharray=\"6 3\"" : "");
		for (pass = 0; pass < 2; pass++) {
			for (li = lo; li < hi; li++) {
				x = svg_x(g, li);
				v = (fit[0].wire - fit[li].wire) / 1e6;
				y = Z1 - (v < 0 ? 0 : v) / smax * (Z1 - Z0);
				if (pass == 0) {
					fprintf(fp, "%s%.1f,%.1f",
					    li > lo ? " " : "", x, y);
					continue;
				}
				if (codec == ZLEVEL_ZSTD)
					svg_diamond(fp, x, y, 4, col, col);
				else
					fprintf(fp, "<circle cx=\"%.1f\" "
					    "cy=\"%.1f\" r=\"3\" fill=\"%s\"/>"
					    "\n", x, y, col);
				/* The level the others are against: no %. */
				if (li == 0)
					continue;
				fprintf(fp, "<text x=\"%.1f\" y=\"%.1f\" "
				    "text-anchor=\"middle\" font-size=\"10\" "
				    "fill=\"%s\">%.0f%%</text>\n", x, y - 8,
				    col, fit[0].wire > 0 ? 100 *
				    (fit[0].wire - fit[li].wire) /
				    fit[0].wire : 0.0);
			}
			if (pass == 0)
				fprintf(fp, "\"/>\n");
		}
		/* Its key, right of the panel. */
		y = Z0 + 14 + codec * 18;
		fprintf(fp, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" "
		    "y2=\"%.0f\" stroke=\"%s\" stroke-width=\"2\"%s/>\n"
		    "<text x=\"%.0f\" y=\"%.0f\">%s</text>\n", X1 + 14,
		    X1 + 34, y, y, col, codec == ZLEVEL_ZSTD ?
		    " stroke-dasharray=\"6 3\"" : "", X1 + 40, y + 4,
		    zlevel_label(codec));
	}
	/* Auto's level follows the link: a square per link. */
	for (k = 0; k < b->nlinks && b->nlevels > b->nfixed; k++) {
		v = svg_auto_saved(b, fit, k);
		svg_square(fp, svg_x(g, b->nfixed), Z1 - (v < 0 ? 0 : v) /
		    smax * (Z1 - Z0), colors[k % NCOLORS]);
	}
	fprintf(fp, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">"
	    "compression level (-Z)</text>\n", (X0 + X1) / 2, Z1 + 34);
}

/* A PNG beside the SVG (its .svg suffix replaced) if a converter is there. */
static void
svg_png(const struct bench *b)
{
	char	*png, *log, *conv, *argv[5];
	size_t	 n = strlen(b->svg);

	if (n > 4 && strcmp(b->svg + n - 4, ".svg") == 0)
		n -= 4;
	xasprintf(&png, "%.*s.png", (int)n, b->svg);
	if ((conv = spawn_find(b, "rsvg-convert")) != NULL) {
		argv[0] = conv;
		argv[1] = "-o";
		argv[2] = png;
		argv[3] = (char *)b->svg;
		argv[4] = NULL;
	} else if ((conv = spawn_find(b, "convert")) != NULL) {
		argv[0] = conv;
		argv[1] = (char *)b->svg;
		argv[2] = png;
		argv[3] = NULL;
	}
	if (conv != NULL) {
		xasprintf(&log, "%s/convert.log", b->work);
		if (spawn_run(argv, NULL, log, NULL) == 0 &&
		    access(png, F_OK) == 0)
			printf("PNG: %s\n", png);
		free(log);
		free(conv);
	}
	free(png);
}

/* The notes under the legend, one short line each. */
static void
svg_notes(const struct svg *g)
{
	const struct bench	*b = g->b;
	const char		*lines[10];
	int			 n = 0, i, k, lo, hi;

	lines[n++] = "ringed: the best level of a link";
	svg_span(b, ZLEVEL_ZSTD, &lo, &hi);
	if (hi > lo) {
		lines[n++] = "solid, dots: zlib's levels";
		lines[n++] = "dashed, diamonds: zstd's levels";
	}
	lines[n++] = "bars: the range of the runs";
	for (k = 0; k < b->nlinks && !b->links[k].flagged; k++)
		;
	if (k < b->nlinks)
		lines[n++] = "*: the link was more than 5% off its setting";
	if (b->nlevels > b->nfixed) {
		lines[n++] = "square: -Z auto, with a dashed line";
		lines[n++] = "to the fastest fixed level; beside it,";
		lines[n++] = "auto's time over that level's";
		lines[n++] = "(below 1: auto was faster)";
	}
	for (i = 0; i < n; i++) {
		fprintf(g->fp, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\">",
		    X1 + 14, Y0 + 20 + b->nlinks * 18 + i * 14);
		svg_text_escaped(g->fp, lines[i]);
		fprintf(g->fp, "</text>\n");
	}
}

/* Write the figure to b->svg (and the PNG). */
void
svg_write(const struct bench *b, const struct levelfit *fit)
{
	struct svg	g;
	int		k;

	memset(&g, 0, sizeof(g));
	g.b = b;
	svg_time_scale(&g);
	/* With auto, room inside the frame for the ratios beside it. */
	if (svg_pos(b, b->nlevels - 1) > 0)
		g.d = (X1 - X0 - 40 - (b->nlevels > b->nfixed ? LABELW : 0)) /
		    svg_pos(b, b->nlevels - 1);
	svg_auto_labels(&g);
	if ((g.fp = fopen(b->svg, "w")) == NULL)
		fatal("%s", b->svg);
	fprintf(g.fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
	    "height=\"660\" viewBox=\"0 0 %.0f 660\" "
	    "font-family=\"sans-serif\" font-size=\"12\">\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
	    W, W);
	fprintf(g.fp, "<text x=\"%.0f\" y=\"24\" font-size=\"15\" "
	    "font-weight=\"bold\">cairn-bench: pull time per compression "
	    "level (%.1f MB, median of %d)</text>\n", X0,
	    b->raw_bytes / 1e6, b->reps);
	if (b->raw_bytes < BENCH_MINDATA)
		fprintf(g.fp, "<text x=\"%.0f\" y=\"42\" font-size=\"12\" "
		    "fill=\"#c00000\">too little data to measure: these times "
		    "are mostly the tools' start-up (%.0f MB at least)"
		    "</text>\n", X0, BENCH_MINDATA / 1e6);
	svg_axes(&g);
	for (k = 0; k < b->nlinks; k++)
		svg_link(&g, k);
	svg_notes(&g);
	svg_saved(&g, fit);
	fprintf(g.fp, "</svg>\n");
	if (fclose(g.fp) == EOF)
		fatal("%s", b->svg);
	printf("SVG: %s\n", b->svg);
	svg_png(b);
}
