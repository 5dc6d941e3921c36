/*
 * report-probe: cairn-bench's report and figure from figures given on
 * standard input instead of measured, so that what the report advises
 * can be checked on known numbers.
 *
 * usage: report-probe [svg-file [csv-file]]
 *
 * Input, one item a line (blank lines and lines starting with # are
 * skipped):
 *
 *	data RAW-BYTES FILES		the data pulled
 *	levels LIST			as -l takes it: 0,1,6,zstd:1,auto
 *	reps N				runs of every level on every link
 *	link NAME RATE-BIT/S RTT-MS [DELIVERED-BIT/S]
 *					a link (rate 0: unshaped) and what
 *					level 0 delivered on it (by default
 *					its rate); more than 5% off flags it
 *	run LINK LEVEL WALL-S SRV-CPU-S CLI-CPU-S WIRE-DOWN WIRE-UP
 *					one run of a level on a link
 *
 * Every level of every link needs reps runs.  The cells are summarized,
 * the model fitted and the report printed as after a sweep (the same
 * code: bench-model.c, bench-report.c); with svg-file the figure is
 * written too (bench-svg.c), and a PNG beside it when a converter is
 * installed; with csv-file, the CSV of --csv.  Exits 0, or 2 on input it
 * cannot read.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "log.h"
#include "xmalloc.h"

static struct bench	b;

static void
bad(unsigned lineno, const char *what)
{
	fprintf(stderr, "report-probe: line %u: %s\n", lineno, what);
	exit(2);
}

/* The index of level name s among b.levels, or -1. */
static int
level_index(const char *s)
{
	int	li;

	for (li = 0; li < b.nlevels; li++)
		if (strcmp(level_name(b.levels[li]), s) == 0)
			return li;
	return -1;
}

static void
parse_levels(char *list, unsigned lineno)
{
	char	*w;
	int	 v;

	for (w = strtok(list, ","); w != NULL; w = strtok(NULL, ",")) {
		if (b.nlevels == NLEVELS)
			bad(lineno, "too many levels");
		if (strcmp(w, "auto") == 0) {
			b.levels[b.nlevels++] = LEVEL_AUTO;
			continue;
		}
		if (b.nlevels > b.nfixed)
			bad(lineno, "auto must come last");
		for (v = 0; v < LEVEL_AUTO; v++)
			if (strcmp(level_name(v), w) == 0)
				break;
		if (v == LEVEL_AUTO ||
		    (b.nfixed > 0 && v <= b.levels[b.nfixed - 1]))
			bad(lineno, "levels: 0 to 9, then zstd:1 to zstd:19, "
			    "in order, then auto");
		b.levels[b.nlevels++] = v;
		b.nfixed++;
		if (level_codec(v) == ZLEVEL_ZSTD)
			b.zstd_max = level_number(v);
	}
	if (b.nfixed == 0)
		bad(lineno, "no fixed level");
}

static void
add_run(char *args, unsigned lineno)
{
	char			 name[64], lvl[16];
	struct link		*l = NULL;
	struct cell		*c;
	struct run		*r;
	double			 wall, srv, cli;
	unsigned long long	 down, up;
	int			 k, li;

	if (sscanf(args, "%63s %15s %lf %lf %lf %llu %llu", name, lvl, &wall,
	    &srv, &cli, &down, &up) != 7)
		bad(lineno, "run LINK LEVEL WALL SRV CLI DOWN UP");
	for (k = 0; k < b.nlinks; k++)
		if (strcmp(b.links[k].name, name) == 0)
			l = &b.links[k];
	if (l == NULL)
		bad(lineno, "no such link");
	if ((li = level_index(lvl)) == -1)
		bad(lineno, "no such level");
	if (!(wall > 0))
		bad(lineno, "a run takes some time");
	c = &l->cells[li];
	if (c->nruns == b.reps)
		bad(lineno, "more runs than reps");
	if (c->runs == NULL)
		c->runs = xcalloc((size_t)b.reps, sizeof(*c->runs));
	r = &c->runs[c->nruns++];
	r->wall = r->lapply = wall;
	r->srv_cpu = srv;
	r->cli_cpu = cli;
	r->wire_down = down;
	r->wire_up = up;
	r->tool_raw_in = b.raw_bytes;
}

int
main(int argc, char *argv[])
{
	struct levelfit	 fit[NLEVELS];
	double		 cross[NLEVELS], rtt, delivered = 0;
	struct link	*l;
	char		 line[512], name[64], *nl, *slash;
	unsigned long long rate, raw, files;
	unsigned	 lineno = 0;
	int		 k, li, n;

	log_init("report-probe", LOG_TO_STDERR | LOG_PREFIX, 0);
	if (argc > 3) {
		fprintf(stderr, "usage: report-probe [svg-file [csv-file]]\n");
		return 2;
	}
	b.reps = 1;
	b.netns_fd = -1;
	b.corpus_desc = "figures";
	while (fgets(line, sizeof(line), stdin) != NULL) {
		lineno++;
		if ((nl = strchr(line, '\n')) == NULL)
			bad(lineno, "line too long");
		*nl = '\0';
		if (line[0] == '\0' || line[0] == '#')
			continue;
		if (sscanf(line, "data %llu %llu", &raw, &files) == 2) {
			b.raw_bytes = raw;
			b.nfiles = files;
		} else if (strncmp(line, "levels ", 7) == 0 &&
		    b.nlevels == 0)
			parse_levels(line + 7, lineno);
		else if (sscanf(line, "reps %d", &b.reps) == 1) {
			if (b.reps < 1 || b.reps > MAXREPS || b.nlinks > 0)
				bad(lineno, "reps 1 to 99, before the links");
		} else if ((n = sscanf(line, "link %63s %llu %lf %lf", name,
		    &rate, &rtt, &delivered)) >= 3) {
			if (b.nlinks == MAXLINKS)
				bad(lineno, "too many links");
			l = &b.links[b.nlinks++];
			l->name = xstrdup(name);
			l->rate = rate;
			l->rtt_us = (uint64_t)(rtt * 1000);
			l->delivered = n == 4 ? delivered : (double)rate;
			l->flagged = rate > 0 && fabs(l->delivered -
			    (double)rate) > 0.05 * (double)rate;
		} else if (strncmp(line, "run ", 4) == 0)
			add_run(line + 4, lineno);
		else
			bad(lineno, "not an item of the input");
	}
	if (b.nlevels == 0 || b.nlinks == 0 || b.raw_bytes == 0)
		bad(lineno, "data, levels and a link are needed");
	for (k = 0; k < b.nlinks; k++)
		for (li = 0; li < b.nlevels; li++) {
			if (b.links[k].cells[li].nruns != b.reps)
				bad(lineno, "a level lacks runs");
			b.links[k].cells[li].codec =
			    level_codec(b.levels[li]);
			model_cell(&b.links[k].cells[li]);
		}
	model_fit(&b, fit);
	report_text(&b, fit, cross);
	if (argc == 3) {
		b.csv = argv[2];
		report_csv(&b, cross);
	}
	if (argc >= 2) {
		b.svg = argv[1];
		b.work = xstrdup(argv[1]);
		if ((slash = strrchr(b.work, '/')) != NULL)
			*slash = '\0';
		else {
			free(b.work);
			b.work = xstrdup(".");
		}
		svg_write(&b, fit);
	}
	return 0;
}
