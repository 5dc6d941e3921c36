/*
 * apply-progress.c: lapply's progress output.
 *
 * The total is the sum of the sizes of the files to download plus
 * PROGRESSUNIT per transcript line; each finished line adds
 * PROGRESSUNIT, each received data chunk its size.  With -% a line
 * "%NN <path>" goes to stdout whenever the integer percentage grows
 * (the format GUI wrappers parse); on a terminal a bar is drawn on
 * stderr instead.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "apply.h"

#define BARWIDTH	40

void
progress_init(struct progress *p, int mode, int64_t total)
{
	memset(p, 0, sizeof(*p));
	p->mode = total > 0 ? mode : PROG_NONE;
	p->total = total;
	p->last = -1;
}

static void
progress_draw(struct progress *p)
{
	char	bar[BARWIDTH + 1];
	int	fill, pct = p->last < 0 ? 0 : p->last;

	if (pct > 100)
		pct = 100;
	fill = pct * BARWIDTH / 100;
	memset(bar, '#', (size_t)fill);
	memset(bar + fill, '.', (size_t)(BARWIDTH - fill));
	bar[BARWIDTH] = '\0';
	fprintf(stderr, "\r[%s] %3d%%", bar, pct);
	fflush(stderr);
	p->drawn = 1;
}

void
progress_add(struct progress *p, int64_t bytes, const char *path)
{
	int	pct;

	if (p->mode == PROG_NONE || bytes < 0)
		return;
	p->done += bytes;
	/* Computed in float, as the format's original consumers expect. */
	pct = (int)(((float)p->done / (float)p->total) * 100);
	if (pct <= p->last)
		return;
	p->last = pct;
	if (p->mode == PROG_PERCENT) {
		printf("%%%.2d %s\n", pct, path);
	} else
		progress_draw(p);
}

void
progress_hide(struct progress *p)
{
	if (p->mode != PROG_BAR || !p->drawn)
		return;
	fprintf(stderr, "\r%*s\r", BARWIDTH + 8, "");
	fflush(stderr);
	p->drawn = 0;
}

void
progress_show(struct progress *p)
{
	if (p->mode == PROG_BAR && p->last >= 0)
		progress_draw(p);
}

void
progress_end(struct progress *p)
{
	progress_hide(p);
	p->mode = PROG_NONE;
}
