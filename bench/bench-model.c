/*
 * bench-model.c: the medians of each cell's runs, and the model of a
 * sweep.  Per level, the medians of the server CPU, client CPU and wire
 * bytes over every run; from them the modelled time of a level at a link
 * rate,
 *
 *	time(level, rate) = max(server cpu, client cpu, wire bytes / rate)
 *
 * (a per-link rtt term, the same for every level, is left out), and the
 * crossover rate above which a level stops paying off against the lowest.
 */
#include "config.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>

#include "bench.h"
#include "xmalloc.h"

#define GRID_LO		1e4	/* 10 kbit/s */
#define GRID_HI		1e11	/* 100 Gbit/s */

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* The median of the n values of v (which are sorted). */
double
model_median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* The median of one delta counter over the runs of c. */
static uint64_t
delta_median(const struct cell *c, size_t off)
{
	double	v[MAXREPS];
	int	i;

	for (i = 0; i < c->nruns; i++)
		v[i] = (double)*(const uint64_t *)(const void *)
		    ((const char *)&c->runs[i] + off);
	return (uint64_t)model_median(v, c->nruns);
}

/*
 * The medians of the delta counters of cell c over its runs (--update;
 * 0 for a run without them) and how many runs had lapply's line.
 */
static void
model_deltas(struct cell *c)
{
	int	i;

	for (i = c->dlines = 0; i < c->nruns; i++)
		c->dlines += c->runs[i].dline;
	c->dfiles_med = delta_median(c, offsetof(struct run, dfiles));
	c->dwire_med = delta_median(c, offsetof(struct run, dwire));
	c->dwhole_med = delta_median(c, offsetof(struct run, dwhole));
	c->dfailed_med = delta_median(c, offsetof(struct run, dfailed));
	c->dasked_med = delta_median(c, offsetof(struct run, dasked));
	c->dhits_med = delta_median(c, offsetof(struct run, dhits));
	c->dbytes_med = delta_median(c, offsetof(struct run, dbytes));
	c->dmisses_med = delta_median(c, offsetof(struct run, dmisses));
}

/*
 * The medians of cell c over its runs (and the means of auto's bytes by
 * level and its changes of level).
 */
void
model_cell(struct cell *c)
{
	const struct run	*r;
	const struct codecrun	*cr;
	double			 v[MAXREPS], vb[4][MAXREPS], sum;
	int			 i, n, l, k;

	for (i = 0; i < c->nruns; i++)
		v[i] = c->runs[i].wall;
	c->t_med = model_median(v, c->nruns);
	c->t_min = v[0];
	c->t_max = v[c->nruns - 1];
	for (i = 0; i < c->nruns; i++)
		v[i] = c->runs[i].lapply;
	c->lapply_med = model_median(v, c->nruns);
	for (i = 0; i < c->nruns; i++)
		v[i] = c->runs[i].cli_cpu;
	c->cli_med = model_median(v, c->nruns);
	for (i = 0; i < c->nruns; i++)
		v[i] = (double)c->runs[i].cli_rss;
	c->rss_med = model_median(v, c->nruns);
	for (i = n = 0; i < c->nruns; i++)
		if (c->runs[i].srv_cpu >= 0)
			v[n++] = c->runs[i].srv_cpu;
	c->srv_med = n ? model_median(v, n) : -1;
	for (i = 0; i < c->nruns; i++)
		v[i] = (double)c->runs[i].wire_down;
	c->down_med = (uint64_t)model_median(v, c->nruns);
	for (i = 0; i < c->nruns; i++)
		v[i] = (double)c->runs[i].wire_up;
	c->up_med = (uint64_t)model_median(v, c->nruns);
	for (i = 0; i < c->nruns; i++)
		v[i] = (double)(c->runs[i].srv_raw_out ?
		    c->runs[i].srv_raw_out : c->runs[i].tool_raw_in);
	c->raw_med = (uint64_t)model_median(v, c->nruns);
	model_deltas(c);

	/* Auto's codec: the one most of its sessions used. */
	if (c->anycodec) {
		unsigned long	 most = 0, sum2;

		for (k = 0; k < ZLEVEL_NCODECS; k++) {
			for (i = 0, sum2 = 0; i < c->nruns; i++)
				sum2 += c->runs[i].codec[k].sessions;
			if (sum2 > most) {
				most = sum2;
				c->codec = k;
			}
		}
	}
	/*
	 * The body counters of the cell's codec, over the runs that have
	 * them; runs that went by another codec are only counted.
	 */
	for (i = n = c->foreign = 0; i < c->nruns; i++) {
		r = &c->runs[i];
		for (k = 0; k < ZLEVEL_NCODECS; k++)
			if (k != c->codec && r->codec[k].sessions > 0)
				break;
		if (k < ZLEVEL_NCODECS)
			c->foreign++;
		cr = &r->codec[c->codec];
		if (!cr->bodies)
			continue;
		vb[0][n] = (double)cr->stored;
		vb[1][n] = (double)cr->stored_files;
		vb[2][n] = (double)cr->cached;
		vb[3][n++] = (double)cr->cached_files;
	}
	if ((c->bodies = n) == 0)
		return;
	c->stored_med = (uint64_t)model_median(vb[0], n);
	c->stored_files_med = (uint64_t)model_median(vb[1], n);
	c->cached_med = (uint64_t)model_median(vb[2], n);
	c->cached_files_med = (uint64_t)model_median(vb[3], n);
	for (l = 0; l < HISTLEVELS; l++) {
		for (i = 0, sum = 0; i < c->nruns; i++)
			sum += (double)c->runs[i].codec[c->codec].lvl[l];
		c->lvl_mean[l] = (uint64_t)(sum / n + 0.5);
	}
	for (i = 0, sum = 0; i < c->nruns; i++)
		sum += (double)c->runs[i].codec[c->codec].changes;
	c->changes_mean = sum / n;
}

/*
 * Fill fit[li] for every fixed level index li; auto, whose level changes
 * as the stream runs, is no point of the model and is left out.
 */
void
model_fit(const struct bench *b, struct levelfit *fit)
{
	double	 *sv, *cv, *wv;
	int	  li, k, i, ns, nc;
	const struct cell *c;

	sv = xcalloc((size_t)(b->nlinks * b->reps), sizeof(double));
	cv = xcalloc((size_t)(b->nlinks * b->reps), sizeof(double));
	wv = xcalloc((size_t)(b->nlinks * b->reps), sizeof(double));
	for (li = 0; li < b->nfixed; li++) {
		ns = nc = 0;
		for (k = 0; k < b->nlinks; k++) {
			c = &b->links[k].cells[li];
			for (i = 0; i < c->nruns; i++) {
				if (c->runs[i].srv_cpu >= 0)
					sv[ns++] = c->runs[i].srv_cpu;
				cv[nc] = c->runs[i].cli_cpu;
				wv[nc++] = (double)(c->runs[i].wire_down +
				    c->runs[i].wire_up);
			}
		}
		fit[li].srv = ns ? model_median(sv, ns) : -1;
		fit[li].cli = nc ? model_median(cv, nc) : 0;
		fit[li].wire = nc ? model_median(wv, nc) : 0;
	}
	free(sv);
	free(cv);
	free(wv);
}

/* Modelled time of a level (f) at rate (bit/s), without the rtt term. */
double
model_time(const struct levelfit *f, double rate)
{
	double	t = f->wire * 8 / rate;

	if (f->srv > t)
		t = f->srv;
	if (f->cli > t)
		t = f->cli;
	return t;
}

/* Point i of the grid of rates: MODEL_GRID_N from GRID_LO to GRID_HI. */
double
model_grid_rate(int i)
{
	return GRID_LO * pow(GRID_HI / GRID_LO,
	    (double)i / (MODEL_GRID_N - 1));
}

/*
 * The rate above which level index li stops paying off against the
 * lowest level (index 0): 0 if it never pays off, INFINITY if it still
 * does at GRID_HI.
 */
double
model_crossover(const struct levelfit *fit, int li)
{
	double	last = 0;
	int	i;

	for (i = 0; i < MODEL_GRID_N; i++)
		if (model_time(&fit[li], model_grid_rate(i)) <
		    model_time(&fit[0], model_grid_rate(i)))
			last = model_grid_rate(i);
	if (last == model_grid_rate(MODEL_GRID_N - 1))
		return INFINITY;
	return last;
}
