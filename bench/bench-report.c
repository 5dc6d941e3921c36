/*
 * bench-report.c: the report of a sweep on standard output: per link a
 * table of the levels, the best level and how it compares with no
 * compression, and -Z auto against the fastest fixed level; the fitted
 * model (of the fixed levels), its crossovers and what it says of each
 * link; a recommendation to paste.  Also the CSV files (--csv,
 * --runs-csv).
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"
#include "log.h"

/* A rate in kbit/s, Mbit/s or Gbit/s ("any rate" if infinite). */
static const char *
fmt_rate(char *buf, size_t len, double bps)
{
	if (isinf(bps))
		snprintf(buf, len, "any rate");
	else if (bps >= 1e9)
		snprintf(buf, len, "%.3g Gbit/s", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, len, "%.3g Mbit/s", bps / 1e6);
	else
		snprintf(buf, len, "%.3g kbit/s", bps / 1e3);
	return buf;
}

/*
 * Server CPU seconds per GB (1e9 bytes) of files pulled, from srv CPU
 * seconds for the data; -1 when unknown.
 */
static double
cpu_per_gb(const struct bench *b, double srv)
{
	if (srv < 0 || b->raw_bytes == 0)
		return -1;
	return srv / (b->raw_bytes / 1e9);
}

/*
 * The best of the fixed levels on link l, fastest its fastest: for each
 * codec the lowest of its levels within 3% of the fastest (the cheapest
 * in server CPU of that codec), then of those the one with the least
 * server CPU (the lowest index when that is unknown).
 */
static int
best_level(const struct bench *b, const struct link *l, int fastest)
{
	const struct cell	*c;
	int			 cand[ZLEVEL_NCODECS], k, li, best = -1;

	for (k = 0; k < ZLEVEL_NCODECS; k++)
		cand[k] = -1;
	for (li = 0; li < b->nfixed; li++) {
		k = level_codec(b->levels[li]);
		if (cand[k] == -1 && l->cells[li].t_med <=
		    l->cells[fastest].t_med * 1.03)
			cand[k] = li;
	}
	for (k = 0; k < ZLEVEL_NCODECS; k++) {
		if ((li = cand[k]) == -1)
			continue;
		c = &l->cells[li];
		if (best == -1)
			best = li;
		else if (c->srv_med >= 0 && l->cells[best].srv_med >= 0 &&
		    c->srv_med < l->cells[best].srv_med)
			best = li;
		else if ((c->srv_med < 0 || l->cells[best].srv_med < 0) &&
		    li < best)
			best = li;
	}
	return best;
}

/*
 * How well the model fits this link: its rtt term (the median of measured
 * minus modelled time over the levels) and the largest error left.
 */
static void
report_fit(const struct bench *b, const struct link *l,
    const struct levelfit *fit)
{
	double	d[NLEVELS], rate, k, e, worst = 0;
	int	li;

	rate = l->rate ? (double)l->rate : l->delivered;
	if (!(rate > 0))
		return;
	for (li = 0; li < b->nfixed; li++)
		d[li] = l->cells[li].t_med - model_time(&fit[li], rate);
	k = model_median(d, b->nfixed);
	for (li = 0; li < b->nfixed; li++) {
		e = fabs(model_time(&fit[li], rate) + k - l->cells[li].t_med) /
		    l->cells[li].t_med;
		if (e > worst)
			worst = e;
	}
	printf("  model: rtt and per-file term %.3f s; with it the model is "
	    "within %.0f%% of every median here\n", k, 100 * worst);
}

/*
 * -Z auto on link l against the oracle: the fixed level that was fastest
 * on this link (l->fastest), known only once every level has run.
 */
static void
report_auto(const struct bench *b, const struct link *l)
{
	const struct cell	*ca, *cf = &l->cells[l->fastest];

	if (b->nlevels == b->nfixed)
		return;
	ca = &l->cells[b->nfixed];
	printf("  %s: %.3f s, best fixed -Z %s: %.3f s (%.2fx)\n",
	    level_name(LEVEL_AUTO), ca->t_med,
	    level_name(b->levels[l->fastest]),
	    cf->t_med, cf->t_med > 0 ? ca->t_med / cf->t_med : 0.0);
}

/*
 * The wire bytes of level 0 on link l, what "saved" and the wire ratio
 * are against: its median if it was measured, else the link check's.
 */
static uint64_t
wire_level0(const struct bench *b, const struct link *l)
{
	if (b->levels[0] == 0)
		return l->cells[0].down_med + l->cells[0].up_med;
	return l->wire0;
}

/*
 * One line of a body counter of cairnd's (what: the line's words), the
 * median per run of every level that has it: megabytes (files).
 */
static void
report_counter(const struct bench *b, const struct link *l, const char *what,
    int cached)
{
	const struct cell	*c;
	uint64_t		 v, nf;
	int			 li, n = 0;

	for (li = 0; li < b->nlevels; li++) {
		c = &l->cells[li];
		v = cached ? c->cached_med : c->stored_med;
		nf = cached ? c->cached_files_med : c->stored_files_med;
		if (!c->bodies || v == 0)
			continue;
		printf("%s%s %.2f (%" PRIu64 ")", n++ ? ", " : what,
		    level_name(b->levels[li]), v / 1e6, nf);
	}
	if (n > 0)
		printf("\n");
}

/*
 * What cairnd counted of the file bodies on link l: the megabytes a run
 * sent stored (data that would not shrink) and served from the cache,
 * per level; and auto's plain bytes by level and its changes of level.
 */
static void
report_counters(const struct bench *b, const struct link *l)
{
	const struct cell	*c;
	double			 tot = 0;
	int			 lv;

	report_counter(b, l, "  sent stored (would not shrink), MB (files) "
	    "per run: ", 0);
	report_counter(b, l, "  served from the cache, MB (files) per run: ",
	    1);
	for (lv = 0; lv < b->nlevels; lv++)
		if ((c = &l->cells[lv])->foreign > 0)
			printf("  warning: %d of the runs of -Z %s went by "
			    "another codec than %s (cairnd did not grant it): "
			    "its counters leave them out\n", c->foreign,
			    level_name(b->levels[lv]), zlevel_label(c->codec));
	if (b->nlevels == b->nfixed || !(c = &l->cells[b->nfixed])->bodies)
		return;
	for (lv = 0; lv < HISTLEVELS; lv++)
		tot += (double)c->lvl_mean[lv];
	if (!(tot > 0))
		return;
	printf("  %s (%s), plain bytes by level:", level_name(LEVEL_AUTO),
	    zlevel_label(c->codec));
	for (lv = 0; lv < HISTLEVELS; lv++)
		if (c->lvl_mean[lv] > 0)
			printf(" %d %.1f%%", lv, 100 * c->lvl_mean[lv] / tot);
	printf("; %.1f changes of level per run\n", c->changes_mean);
}

/*
 * A cell's (or a run's) plain bytes by level of its codec for the CSV,
 * "-": none.
 */
static void
csv_levels(FILE *fp, const uint64_t *lvl)
{
	int	lv, n = 0;

	for (lv = 0; lv < HISTLEVELS; lv++)
		if (lvl[lv] > 0)
			fprintf(fp, "%s%d:%" PRIu64, n++ ? " " : "", lv,
			    lvl[lv]);
	if (n == 0)
		fprintf(fp, "-");
}

/*
 * The table of link l, its best level (kept in l->best, the fastest
 * fixed one in l->fastest) and how that compares with no compression;
 * -Z auto against the fastest fixed level; then how well the model fits
 * the fixed levels.
 */
static void
report_link(const struct bench *b, struct link *l, const struct levelfit *fit)
{
	const struct cell	*c, *c0 = &l->cells[0], *ca = NULL, *cf = NULL;
	double			 w0, ratio;
	int			 li, best, fastest = 0, bestc = -1, tie;

	printf("\n%s (", l->name);
	if (l->rate)
		printf("%.4g Mbit/s", l->rate / 1e6);
	else
		printf("unshaped");
	printf(", rtt %.4g ms; level 0 delivered %.4g Mbit/s%s)\n",
	    l->rtt_us / 1e3, l->delivered / 1e6,
	    l->flagged ? ", off by more than 5%" : "");
	printf("  %-7s %9s %19s %9s %9s %11s %9s %7s %10s %9s\n", "level",
	    "time s", "min-max s", "srv cpu", "cli cpu", "wire MB", "raw MB",
	    "saved", "srv MB/s", "srv s/GB");
	w0 = (double)wire_level0(b, l);
	for (li = 0; li < b->nlevels; li++) {
		c = &l->cells[li];
		printf("  %-7s %9.3f %9.3f-%-9.3f ", level_name(b->levels[li]),
		    c->t_med, c->t_min, c->t_max);
		if (c->srv_med >= 0)
			printf("%9.3f ", c->srv_med);
		else
			printf("%9s ", "-");
		printf("%9.3f %11.3f %9.3f %6.1f%% ", c->cli_med,
		    (c->down_med + c->up_med) / 1e6,
		    (c->raw_med ? c->raw_med : b->raw_bytes) / 1e6,
		    w0 > 0 ? 100 * (w0 - (double)(c->down_med + c->up_med)) /
		    w0 : 0.0);
		if (c->srv_med > 0)
			printf("%10.1f ", b->raw_bytes / 1e6 / c->srv_med);
		else
			printf("%10s ", "-");
		if (c->srv_med >= 0)
			printf("%9.2f\n", cpu_per_gb(b, c->srv_med));
		else
			printf("%9s\n", "-");
		if (li >= b->nfixed)
			continue;	/* auto: not a level to pick */
		if (c->t_med < l->cells[fastest].t_med)
			fastest = li;
		if (b->levels[li] > 0 && (bestc == -1 ||
		    c->t_med < l->cells[bestc].t_med))
			bestc = li;
	}
	/*
	 * The best level: the cheapest in server CPU within 3% of the
	 * fastest (best_level); and no compression unless it wins by more
	 * than 5% and, with several runs, by more than the spread of the
	 * runs.
	 */
	best = best_level(b, l, fastest);
	tie = 0;
	if (b->levels[0] == 0 && best != 0 &&
	    (l->cells[best].t_med > 0.95 * c0->t_med ||
	    (b->reps > 1 && l->cells[best].t_max >= c0->t_min))) {
		tie = best;
		best = 0;
	}
	l->best = best;
	l->fastest = fastest;
	/*
	 * -Z auto, when measured, is the advice if it beat every fixed
	 * level by the same margin: more than 5% and, with several runs,
	 * more than the spread of the runs.  The best fixed level follows.
	 */
	l->autobest = 0;
	if (b->nlevels > b->nfixed) {
		ca = &l->cells[b->nfixed];
		cf = &l->cells[fastest];
		if (ca->t_med < 0.95 * cf->t_med &&
		    (b->reps == 1 || ca->t_max < cf->t_min))
			l->autobest = 1;
	}
	if (l->autobest) {
		printf("  best: -Z %s. On %s, auto is %.2fx faster than the "
		    "fastest fixed level, -Z %s (%.3f s against %.3f s).\n",
		    level_name(LEVEL_AUTO), l->name, cf->t_med / ca->t_med,
		    level_name(b->levels[fastest]), ca->t_med, cf->t_med);
		printf("  best fixed level: -Z %s. ",
		    level_name(b->levels[best]));
	} else
		printf("  best: -Z %s. ", level_name(b->levels[best]));
	if (b->levels[0] != 0 || bestc == -1)
		printf("On %s, %s is the fastest of those measured.\n",
		    l->name, level_desc(b->levels[best]));
	else if (tie || (b->levels[best] == 0 &&
	    l->cells[bestc].t_med < 1.05 * c0->t_med)) {
		li = tie ? tie : bestc;
		ratio = l->cells[li].t_med / c0->t_med;
		printf("On %s, %s takes %.2fx the time of off, within "
		    "the noise: leave it off (it only costs server CPU).\n",
		    l->name, level_desc(b->levels[li]), ratio);
	} else if (b->levels[best] == 0) {
		ratio = l->cells[bestc].t_med / c0->t_med;
		printf("On %s, compression costs %.1fx (%s, the "
		    "fastest compressed one, takes %.1fx as long as off): "
		    "leave it off.\n", l->name, ratio,
		    level_desc(b->levels[bestc]), ratio);
	} else {
		ratio = c0->t_med / l->cells[best].t_med;
		printf("On %s, %s is %.1fx faster than off", l->name,
		    level_desc(b->levels[best]), ratio);
		if (best != fastest)
			printf(" (%s is %.1f%% faster still, for %.1fx "
			    "the server CPU)", level_desc(b->levels[fastest]),
			    100 * (l->cells[best].t_med /
			    l->cells[fastest].t_med - 1),
			    l->cells[best].srv_med > 0 ?
			    l->cells[fastest].srv_med /
			    l->cells[best].srv_med : 0.0);
		printf(".\n");
	}
	report_auto(b, l);
	report_counters(b, l);
	report_fit(b, l, fit);
}

/*
 * The model per level, with the crossover of every level (filled in
 * cross), and the best level for each band of link rates.
 */
static void
report_model(const struct bench *b, const struct levelfit *fit,
    double *cross)
{
	char	r1[32], r2[32];
	int	li, i, lo, cur, prev;

	printf("\nModel: time(level, rate) = max(server cpu, client cpu, "
	    "wire bytes / rate) + a per-link rtt term,\nfitted per fixed "
	    "level to the medians of every run on this data (%.1f MB of "
	    "files).\n", b->raw_bytes / 1e6);
	printf("  %-7s %12s %9s %12s %11s %10s  pays off (vs -Z %s) below\n",
	    "level", "srv MB/s", "srv s/GB", "cli cpu s", "wire MB", "ratio",
	    level_name(b->levels[0]));
	for (li = 0; li < b->nfixed; li++) {
		cross[li] = li == 0 ? 0 : model_crossover(fit, li);
		printf("  %-7s ", level_name(b->levels[li]));
		if (fit[li].srv > 0)
			printf("%12.1f ", b->raw_bytes / 1e6 / fit[li].srv);
		else
			printf("%12s ", "-");
		if (fit[li].srv >= 0)
			printf("%9.2f ", cpu_per_gb(b, fit[li].srv));
		else
			printf("%9s ", "-");
		printf("%12.3f %11.3f %10.3f  ", fit[li].cli,
		    fit[li].wire / 1e6, fit[0].wire > 0 ?
		    fit[li].wire / fit[0].wire : 0.0);
		if (li == 0)
			printf("-\n");
		else if (cross[li] == 0)
			printf("never\n");
		else
			printf("%s\n", fmt_rate(r1, sizeof(r1), cross[li]));
	}
	/* Bands of rate where each level is the model's best. */
	printf("  best level by link rate:");
	prev = -1;
	lo = 0;
	for (i = 0; i <= MODEL_GRID_N; i++) {
		cur = -1;
		if (i < MODEL_GRID_N)
			for (li = 0; li < b->nfixed; li++)
				if (cur == -1 || model_time(&fit[li],
				    model_grid_rate(i)) < model_time(&fit[cur],
				    model_grid_rate(i)) * 0.999)
					cur = li;
		if (i == MODEL_GRID_N || (prev != -1 && cur != prev)) {
			printf(" %s-%s: -Z %s;",
			    lo == 0 ? "0" : fmt_rate(r1, sizeof(r1),
			    model_grid_rate(lo)), i == MODEL_GRID_N ? "up" :
			    fmt_rate(r2, sizeof(r2), model_grid_rate(i)),
			    level_name(b->levels[prev]));
			lo = i;
		}
		prev = cur;
	}
	printf("\n");
}

/* The -Z advised on link l: a fixed level, or LEVEL_AUTO. */
static int
advised(const struct bench *b, const struct link *l)
{
	return l->autobest ? LEVEL_AUTO : b->levels[l->best];
}

/*
 * The -Z for cairnd and for the clients on each class of link.  Where
 * -Z auto is advised, cairnd's -Z is the ceiling auto was measured
 * under (BENCH_SERVER_Z, with -A auto, cairnd's default).  Where a zstd
 * level is advised, cairnd's -Y offers up to the highest of them.
 */
static void
report_recommend(const struct bench *b)
{
	int	k, j, z, zs, maxz = 0, maxy = 0, anyauto = 0;
	int	done[MAXLINKS] = { 0 };

	for (k = 0; k < b->nlinks; k++) {
		z = advised(b, &b->links[k]);
		if (z == LEVEL_AUTO)
			anyauto = 1;
		if (level_codec(z) == ZLEVEL_ZSTD) {
			if (level_number(z) > maxy)
				maxy = level_number(z);
			continue;
		}
		zs = z == LEVEL_AUTO ? BENCH_SERVER_Z : z;
		if (zs > maxz)
			maxz = zs;
	}
	printf("\nRecommendation (from the measured medians on this data%s):"
	    "\n", b->raw_bytes < BENCH_MINDATA ? "; too little data to "
	    "trust them, see the warning above" : "");
	printf("  # server: offer up to the highest level any link class "
	    "below wants\n");
	if (anyauto)
		printf("  # (-Z auto was measured under cairnd -Z %d, with -A "
		    "auto, the default)\n", BENCH_SERVER_Z);
	printf("  cairnd -Z %s", level_name(maxz));
	if (maxy > 0)
		printf(" -Y %d", maxy);
	printf("\n");
	for (k = 0; k < b->nlinks; k++) {
		if (done[k])
			continue;
		z = advised(b, &b->links[k]);
		printf("  # clients on ");
		for (j = k; j < b->nlinks; j++)
			if (!done[j] && advised(b, &b->links[j]) == z) {
				printf("%s%s", j == k ? "" : ", ",
				    b->links[j].name);
				done[j] = 1;
			}
		printf("%s\n", z == 0 ? " (compression off)" :
		    z == LEVEL_AUTO ? " (the level follows the link)" :
		    level_codec(z) == ZLEVEL_ZSTD ? " (zstd: cairn's clients "
		    "and cairnd only)" : "");
		printf("  ktcheck -Z %s -c sha1 ...; lapply -Z %s -c sha1 "
		    "...\n", level_name(z), level_name(z));
	}
}

/* What the model says of each link's rate. */
static void
report_verdicts(const struct bench *b, const double *cross)
{
	const struct link	*l;
	char			 r1[32];
	int			 k, li, n;

	for (k = 0; k < b->nlinks; k++) {
		l = &b->links[k];
		printf("  %s: ", l->name);
		for (li = 1, n = 0; li < b->nfixed; li++) {
			if (cross[li] == 0 || (!isinf(cross[li]) &&
			    l->rate > 0 && cross[li] < (double)l->rate))
				continue;
			if (l->rate == 0 && !isinf(cross[li]))
				continue;
			printf("%s-Z %s", n == 0 ? "the model says " : ", ",
			    level_name(b->levels[li]));
			n++;
		}
		if (b->nfixed == 1)
			printf("one fixed level measured (-Z %s): nothing for "
			    "the model to compare", level_name(b->levels[0]));
		else {
			if (n == 0)
				printf("the model says no level pays off");
			else
				printf(" pay%s off", n == 1 ? "s" : "");
			printf(" at %s", l->rate ? fmt_rate(r1, sizeof(r1),
			    (double)l->rate) : "loopback speed");
		}
		/* The model is of the fixed levels only. */
		if (l->autobest)
			printf("; -Z auto, measured, beat every fixed level");
		printf("\n");
	}
}

/*
 * The text report: a warning when there is too little data to measure
 * (BENCH_MINDATA), every link (which sets its best level), the model
 * (which fills cross, the crossover rate of every level), the verdicts
 * and the recommendation.
 */
void
report_text(struct bench *b, const struct levelfit *fit, double *cross)
{
	int	k;

	if (b->raw_bytes < BENCH_MINDATA)
		printf("\nwarning: %.2f MB of files is too little to measure: "
		    "a pull this small is\ntimed by the tools' start-up, not "
		    "by compression or the link, and the\nlevels differ by "
		    "noise.  Measure at least %.0f MB (-s 16M, the default, or "
		    "more).\n", b->raw_bytes / 1e6, BENCH_MINDATA / 1e6);
	for (k = 0; k < b->nlinks; k++)
		report_link(b, &b->links[k], fit);
	report_model(b, fit, cross);
	report_verdicts(b, cross);
	report_recommend(b);
}

/*
 * --csv: one line per link and level; auto's level column reads "auto"
 * and, being no point of the model, it has no crossover ("-").
 */
void
report_csv(const struct bench *b, const double *cross)
{
	const struct link	*l;
	const struct cell	*c;
	FILE			*fp;
	int			 k, li;

	if ((fp = fopen(b->csv, "w")) == NULL)
		fatal("%s", b->csv);
	fprintf(fp, "link,rate_bit_s,rtt_ms,level,runs,time_median_s,"
	    "time_min_s,time_max_s,lapply_median_s,server_cpu_s,"
	    "client_cpu_s,raw_bytes,wire_down_bytes,wire_up_bytes,"
	    "wire_ratio,server_MB_s,delivered_bit_s,link_flagged,best_level,"
	    "crossover_bit_s,stored_bytes,stored_files,cached_bytes,"
	    "cached_files,level_bytes,level_changes,codec,"
	    "server_cpu_s_per_GB\n");
	for (k = 0; k < b->nlinks; k++) {
		l = &b->links[k];
		for (li = 0; li < b->nlevels; li++) {
			c = &l->cells[li];
			fprintf(fp, "%s,%" PRIu64 ",%.3f,%s,%d,%.6f,%.6f,%.6f,"
			    "%.6f,", l->name, l->rate, l->rtt_us / 1e3,
			    level_name(b->levels[li]), c->nruns, c->t_med, c->t_min,
			    c->t_max, c->lapply_med);
			if (c->srv_med >= 0)
				fprintf(fp, "%.6f,", c->srv_med);
			else
				fprintf(fp, ",");
			fprintf(fp, "%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
			    ",%.6f,", c->cli_med,
			    c->raw_med ? c->raw_med : b->raw_bytes,
			    c->down_med, c->up_med,
			    wire_level0(b, l) > 0 ?
			    (double)(c->down_med + c->up_med) /
			    (double)wire_level0(b, l) : 0.0);
			if (c->srv_med > 0)
				fprintf(fp, "%.3f,", b->raw_bytes / 1e6 /
				    c->srv_med);
			else
				fprintf(fp, ",");
			fprintf(fp, "%.0f,%d,%s,", l->delivered, l->flagged,
			    level_name(advised(b, l)));
			if (li == 0 || li >= b->nfixed)
				fprintf(fp, "-,");
			else if (isinf(cross[li]))
				fprintf(fp, "inf,");
			else
				fprintf(fp, "%.0f,", cross[li]);
			fprintf(fp, "%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
			    PRIu64 ",", c->stored_med, c->stored_files_med,
			    c->cached_med, c->cached_files_med);
			csv_levels(fp, c->lvl_mean);
			if (c->bodies)
				fprintf(fp, ",%.1f,", c->changes_mean);
			else
				fprintf(fp, ",-,");
			fprintf(fp, "%s,", zlevel_label(c->codec));
			if (c->srv_med >= 0)
				fprintf(fp, "%.3f\n",
				    cpu_per_gb(b, c->srv_med));
			else
				fprintf(fp, "\n");
		}
	}
	if (fclose(fp) == EOF)
		fatal("%s", b->csv);
}

/* One line per run, in the order they ran within each link. */
void
report_runs_csv(const struct bench *b)
{
	const struct cell	*c;
	const struct codecrun	*cr;
	const struct run	*r;
	FILE			*fp;
	int			 k, li, i;

	if ((fp = fopen(b->runs_csv, "w")) == NULL)
		fatal("%s", b->runs_csv);
	fprintf(fp, "link,rate_bit_s,rtt_ms,level,run,time_s,lapply_s,"
	    "server_cpu_s,client_cpu_s,raw_bytes,wire_down_bytes,"
	    "wire_up_bytes,stored_bytes,cached_bytes,level_bytes,"
	    "level_changes,codec\n");
	for (k = 0; k < b->nlinks; k++)
		for (i = 0; i < b->reps; i++)
			for (li = 0; li < b->nlevels; li++) {
				if (i >= b->links[k].cells[li].nruns)
					continue;
				c = &b->links[k].cells[li];
				r = &c->runs[i];
				cr = &r->codec[c->codec];
				fprintf(fp, "%s,%" PRIu64 ",%.3f,%s,%d,%.6f,"
				    "%.6f,", b->links[k].name,
				    b->links[k].rate,
				    b->links[k].rtt_us / 1e3,
				    level_name(b->levels[li]),
				    i + 1, r->wall, r->lapply);
				if (r->srv_cpu >= 0)
					fprintf(fp, "%.6f,", r->srv_cpu);
				else
					fprintf(fp, ",");
				fprintf(fp, "%.6f,%" PRIu64 ",%" PRIu64 ",%"
				    PRIu64 ",%" PRIu64 ",%" PRIu64 ",",
				    r->cli_cpu, r->srv_raw_out ?
				    r->srv_raw_out : r->tool_raw_in ?
				    r->tool_raw_in : b->raw_bytes,
				    r->wire_down, r->wire_up, cr->stored,
				    cr->cached);
				csv_levels(fp, cr->lvl);
				if (cr->bodies)
					fprintf(fp, ",%" PRIu64 ",",
					    cr->changes);
				else
					fprintf(fp, ",-,");
				fprintf(fp, "%s\n", zlevel_label(c->codec));
			}
	if (fclose(fp) == EOF)
		fatal("%s", b->runs_csv);
	printf("CSV of every run: %s\n", b->runs_csv);
}

/* --update: the cell of link l, level index li, whole or by delta. */
static const struct cell *
update_cell(const struct link *l, int li, int delta)
{
	return delta ? &l->dcells[li] : &l->cells[li];
}

/* a / b, or 0 when b is 0. */
static double
ratio_of(double a, double b)
{
	return b > 0 ? a / b : 0.0;
}

/* The index of level lv among b's levels, -1 if it was not measured. */
static int
level_index(const struct bench *b, int lv)
{
	int	li;

	for (li = 0; li < b->nlevels; li++)
		if (b->levels[li] == lv)
			return li;
	return -1;
}

/* The cells' bytes on the wire, both ways. */
static double
cell_wire(const struct cell *c)
{
	return (double)(c->down_med + c->up_med);
}

/* " WHAT a / b" as a plain figure, "-" when b is 0. */
static void
print_ratio(const char *what, double a, double b)
{
	if (b > 0)
		printf("%s %.3f", what, a / b);
	else
		printf("%s -", what);
}

/*
 * --update: the server CPU of each pull by delta, the deltas already
 * built, against the CPU of building them once for every client
 * (cairn-publish -d).
 */
static void
report_update_build(const struct bench *b, const struct link *l)
{
	const struct cell	*d;
	int			 li;

	printf("  server CPU by delta, the deltas built once in %.2f s of "
	    "CPU:", b->build_cpu);
	for (li = 0; li < b->nlevels; li++) {
		d = update_cell(l, li, 1);
		printf("%s -Z %s ", li ? ";" : "", level_name(b->levels[li]));
		if (d->srv_med < 0) {
			printf("unknown");
			continue;
		}
		printf("%.3f s", d->srv_med);
		if (b->build_cpu > 0)
			printf(" (%.4f of building them)",
			    d->srv_med / b->build_cpu);
	}
	printf("\n");
}

/*
 * --update: the ratios of the update, as plain figures: the bytes of
 * deltas at -Z 6 over those of whole files at -Z 6 and of rsync -z; the
 * time of deltas at -Z auto over whole files at -Z auto and at -Z 6;
 * the client's peak RSS by delta at -Z auto less whole at -Z 6.  A
 * figure whose level was not measured is left out.
 */
static void
report_update_ratios(const struct bench *b, const struct link *l)
{
	const struct cell	*w6, *d6, *wa, *da;
	int			 i6, ia, n = 0;

	i6 = level_index(b, 6);
	ia = level_index(b, LEVEL_AUTO);
	if (i6 == -1 && ia == -1)
		return;
	printf("  ratios:");
	if (i6 != -1) {
		w6 = update_cell(l, i6, 0);
		d6 = update_cell(l, i6, 1);
		print_ratio(" bytes, delta -Z 6 / whole -Z 6", cell_wire(d6),
		    cell_wire(w6));
		if (b->rsync != NULL)
			print_ratio(", / rsync -z", cell_wire(d6),
			    cell_wire(&l->rcell));
		n++;
	}
	if (ia != -1) {
		wa = update_cell(l, ia, 0);
		da = update_cell(l, ia, 1);
		printf("%s", n++ ? ";" : "");
		print_ratio(" time, delta -Z auto / whole -Z auto", da->t_med,
		    wa->t_med);
		if (i6 != -1) {
			print_ratio(", / whole -Z 6", da->t_med,
			    update_cell(l, i6, 0)->t_med);
			printf("; client peak RSS, delta -Z auto - whole -Z "
			    "6: %+.1f MiB", (da->rss_med -
			    update_cell(l, i6, 0)->rss_med) / 1024);
		}
	}
	printf("\n");
}

/*
 * --update: per link, a row per level and mode (median time, server CPU,
 * client CPU and peak RSS, wire bytes down and up; for deltas lapply's
 * counters and the store's hits and misses) and one of rsync -z if it
 * ran, what deltas cost against whole files at each level, the server
 * CPU of a pull by delta against that of building the deltas, the
 * ratios of the update, and the fastest of cairn's pulls.
 */
void
report_update(const struct bench *b)
{
	const struct link	*l;
	const struct cell	*c, *w, *d, *best;
	const char		*verdict;
	double			 tr;
	int			 k, li, mode, bestli, bestmode;

	for (k = 0; k < b->nlinks; k++) {
		l = &b->links[k];
		printf("\n%s (", l->name);
		if (l->rate)
			printf("%.4g Mbit/s", l->rate / 1e6);
		else
			printf("unshaped");
		printf(", rtt %.4g ms)\n", l->rtt_us / 1e3);
		printf("  %-7s %-5s %8s %8s %8s %7s %9s %7s %6s %8s %8s %6s "
		    "%6s %6s\n", "level", "mode", "time s", "srv cpu",
		    "cli cpu", "rss MiB", "down MB", "up MB", "deltas",
		    "delta MB", "whole MB", "failed", "hits", "misses");
		bestli = bestmode = 0;
		for (li = 0; li < b->nlevels + 1; li++)
			for (mode = 0; mode < 2; mode++) {
				if (li == b->nlevels && (mode ||
				    b->rsync == NULL))
					continue;
				c = li == b->nlevels ? &l->rcell :
				    update_cell(l, li, mode);
				printf("  %-7s %-5s %8.3f ", li == b->nlevels ?
				    "-" : level_name(b->levels[li]),
				    li == b->nlevels ? "rsync" : mode ?
				    "delta" : "whole", c->t_med);
				if (c->srv_med >= 0)
					printf("%8.3f ", c->srv_med);
				else
					printf("%8s ", "-");
				printf("%8.3f %7.1f %9.3f %7.3f", c->cli_med,
				    c->rss_med / 1024, c->down_med / 1e6,
				    c->up_med / 1e6);
				if (mode)
					printf(" %6" PRIu64 " %8.3f %8.3f %6"
					    PRIu64 " %6" PRIu64 " %6" PRIu64
					    "\n", c->dfiles_med,
					    c->dwire_med / 1e6,
					    c->dwhole_med / 1e6,
					    c->dfailed_med, c->dhits_med,
					    c->dmisses_med);
				else
					printf(" %6s %8s %8s %6s %6s %6s\n",
					    "-", "-", "-", "-", "-", "-");
				if (li < b->nlevels && c->t_med <
				    update_cell(l, bestli, bestmode)->t_med) {
					bestli = li;
					bestmode = mode;
				}
			}
		printf("  delta/whole:");
		for (li = 0; li < b->nlevels; li++) {
			w = update_cell(l, li, 0);
			d = update_cell(l, li, 1);
			tr = ratio_of(d->t_med, w->t_med);
			verdict = tr < 0.97 ? "faster" : tr > 1.03 ? "slower" :
			    "same time within 3%";
			printf("%s -Z %s %.3fx the bytes, %.3fx the time (%s)",
			    li ? ";" : "", level_name(b->levels[li]),
			    ratio_of(cell_wire(d), cell_wire(w)), tr, verdict);
		}
		printf("\n");
		report_update_build(b, l);
		report_update_ratios(b, l);
		best = update_cell(l, bestli, bestmode);
		printf("  best on %s: %s -Z %s, %.3f s", l->name,
		    bestmode ? "delta" : "whole", level_name(b->levels[bestli]),
		    best->t_med);
		c = update_cell(l, bestli, !bestmode);
		printf(" (%s at the same level: %.3f s, %.2fx)\n",
		    bestmode ? "whole" : "delta", c->t_med,
		    ratio_of(c->t_med, best->t_med));
	}
}

/*
 * --update --csv: one line per link, level and mode, and one per link
 * for rsync -z (level "-", mode "rsync") if it ran; the ratios of a
 * delta line are to the whole line of its link and level ("-" on the
 * other lines, and in the columns that do not apply to rsync).
 */
void
report_update_csv(const struct bench *b)
{
	const struct link	*l;
	const struct cell	*c, *w;
	FILE			*fp;
	int			 k, li, mode;

	if ((fp = fopen(b->csv, "w")) == NULL)
		fatal("%s", b->csv);
	fprintf(fp, "link,rate_bit_s,rtt_ms,level,mode,runs,time_median_s,"
	    "time_min_s,time_max_s,lapply_median_s,server_cpu_s,client_cpu_s,"
	    "wire_down_bytes,wire_up_bytes,delta_files,delta_wire_bytes,"
	    "delta_whole_bytes,delta_failed,store_requests,store_hits,"
	    "store_delta_bytes,store_misses,wire_ratio,time_ratio,"
	    "build_cpu_s,client_peak_rss_kib\n");
	for (k = 0; k < b->nlinks; k++) {
		l = &b->links[k];
		for (li = 0; li < b->nlevels; li++)
			for (mode = 0; mode < 2; mode++) {
				c = update_cell(l, li, mode);
				w = update_cell(l, li, 0);
				fprintf(fp, "%s,%" PRIu64 ",%.3f,%s,%s,%d,%.6f,"
				    "%.6f,%.6f,%.6f,", l->name, l->rate,
				    l->rtt_us / 1e3, level_name(b->levels[li]),
				    mode ? "delta" : "whole", c->nruns,
				    c->t_med, c->t_min, c->t_max,
				    c->lapply_med);
				if (c->srv_med >= 0)
					fprintf(fp, "%.6f,", c->srv_med);
				else
					fprintf(fp, ",");
				fprintf(fp, "%.6f,%" PRIu64 ",%" PRIu64 ",%"
				    PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
				    ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%"
				    PRIu64 ",", c->cli_med, c->down_med,
				    c->up_med, c->dfiles_med, c->dwire_med,
				    c->dwhole_med, c->dfailed_med,
				    c->dasked_med, c->dhits_med,
				    c->dbytes_med, c->dmisses_med);
				if (mode)
					fprintf(fp, "%.6f,%.6f,", ratio_of(
					    cell_wire(c), cell_wire(w)),
					    ratio_of(c->t_med, w->t_med));
				else
					fprintf(fp, "-,-,");
				fprintf(fp, "%.3f,%.0f\n", b->build_cpu,
				    c->rss_med);
			}
		if (b->rsync == NULL)
			continue;
		c = &l->rcell;
		fprintf(fp, "%s,%" PRIu64 ",%.3f,-,rsync,%d,%.6f,%.6f,%.6f,-,",
		    l->name, l->rate, l->rtt_us / 1e3, c->nruns, c->t_med,
		    c->t_min, c->t_max);
		if (c->srv_med >= 0)
			fprintf(fp, "%.6f,", c->srv_med);
		else
			fprintf(fp, ",");
		fprintf(fp, "%.6f,%" PRIu64 ",%" PRIu64 ",-,-,-,-,-,-,-,-,-,-,"
		    "-,%.0f\n", c->cli_med, c->down_med, c->up_med,
		    c->rss_med);
	}
	if (fclose(fp) == EOF)
		fatal("%s", b->csv);
}
