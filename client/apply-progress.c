/*
 * apply-progress.c: lapply's progress output.
 *
 * The weight of the work is the sum of the sizes of the files to
 * download plus PROGRESSUNIT per transcript line; each finished line
 * adds PROGRESSUNIT, each received data chunk its size.  With -% a line
 * "%NN <path>" goes to stdout whenever the integer percentage grows
 * (the format GUI wrappers parse, unchanged since Radmind).
 *
 * On a terminal (stderr) one status line is drawn there instead and
 * rewritten in place: files landed and bytes received out of the
 * downloads the transcript asks for, the rate, the time left, and with
 * compression what the sessions received before inflating against
 * what came over the wire (their own counters, through the sample
 * hook).  It is redrawn at most every LINE_MS, once more when the last
 * download lands, and cleared at the end.
 */
#include "config.h"

#include <sys/ioctl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "apply-progress.h"
#include "conn.h"
#include "intr.h"

#define LINE_MS		250	/* the status line at most 4 times a second */
#define STATUS_MAX	160	/* its longest form */

/*
 * The run is interrupted (common/intr.h, in the signal thread, the main
 * thread stopped outside held sections): the line goes.
 */
static void
progress_gone(void *arg)
{
	struct progress	*p = arg;

	if (p->drawn)
		fputs("\r\033[K", stderr);
}

void
progress_init(struct progress *p, int mode, const struct progtotal *tot)
{
	memset(p, 0, sizeof(*p));
	p->mode = tot->weight > 0 ? mode : PROG_NONE;
	p->total = tot->weight;
	p->tot = *tot;
	p->last = -1;
	if (p->mode == PROG_LINE) {
		if (pthread_mutex_init(&p->mu, NULL) != 0) {
			p->mode = PROG_NONE;
			return;
		}
		p->locked = 1;
		p->shared = isatty(STDOUT_FILENO);
		p->t0 = conn_now();
		intr_onexit(progress_gone, p);
	}
}

/* n bytes as people read them: "512 B", "1.5 KiB", "3.2 MiB". */
static void
fmt_bytes(char *buf, size_t len, double n)
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB" };
	int	 u = 0;

	if (n < 1024) {
		snprintf(buf, len, "%.0f B", n);
		return;
	}
	for (n /= 1024; n >= 1024 && u < 3; u++)
		n /= 1024;
	snprintf(buf, len, "%.1f %s", n, units[u]);
}

/* A duration in seconds as "m:ss" or "h:mm:ss". */
static void
fmt_time(char *buf, size_t len, double s)
{
	long	t = (long)(s + 0.5);

	if (t >= 3600)
		snprintf(buf, len, "%ld:%02ld:%02ld", t / 3600, t / 60 % 60,
		    t % 60);
	else
		snprintf(buf, len, "%ld:%02ld", t / 60, t % 60);
}

/* The columns of the terminal on stderr, 0 if unknown. */
static int
term_cols(void)
{
	struct winsize	ws;

	if (ioctl(STDERR_FILENO, TIOCGWINSZ, &ws) == -1)
		return 0;
	return ws.ws_col;
}

static void
progress_draw(struct progress *p)
{
	struct progwire	 w;
	char		 line[STATUS_MAX + 16], a[32], b[32], c[32];
	int64_t		 now = conn_now(), bytes;
	double		 secs, rate;
	size_t		 n;
	int		 pct, cols;

	pthread_mutex_lock(&p->mu);
	bytes = p->bytes;
	pthread_mutex_unlock(&p->mu);
	memset(&w, 0, sizeof(w));
	if (p->sample != NULL)
		p->sample(p->arg, &w);
	secs = (double)(now - p->t0) / 1000.0;
	rate = secs > 0 ? (double)bytes / secs : 0;

	/* Of the bytes to download; of the whole work when there are none. */
	if (p->tot.bytes > 0)
		pct = (int)(100 * bytes / p->tot.bytes);
	else
		pct = (int)(100 * p->done / p->total);
	if (pct > 100)
		pct = 100;
	n = (size_t)snprintf(line, sizeof(line), "%3d%%", pct);
	if (p->tot.files > 0) {
		fmt_bytes(a, sizeof(a), (double)bytes);
		fmt_bytes(b, sizeof(b), (double)p->tot.bytes);
		n += (size_t)snprintf(line + n, sizeof(line) - n,
		    "  %lld/%lld files  %s/%s", (long long)p->files,
		    (long long)p->tot.files, a, b);
	}
	/* A rate over less than a second says little, unless it is all. */
	if (n < sizeof(line) && bytes > 0 && rate > 0 &&
	    (secs >= 1 || bytes >= p->tot.bytes)) {
		fmt_bytes(a, sizeof(a), rate);
		n += (size_t)snprintf(line + n, sizeof(line) - n, "  %s/s", a);
		if (n < sizeof(line) && bytes < p->tot.bytes) {
			fmt_time(b, sizeof(b),
			    (double)(p->tot.bytes - bytes) / rate);
			n += (size_t)snprintf(line + n, sizeof(line) - n,
			    "  %s left", b);
		}
	} else if (n < sizeof(line) && p->tot.bytes > bytes)
		n += (size_t)snprintf(line + n, sizeof(line) - n,
		    "  --/s  --:-- left");
	if (n < sizeof(line) && w.zlib && w.raw > 0) {
		fmt_bytes(a, sizeof(a), (double)w.raw);
		fmt_bytes(b, sizeof(b), (double)w.wire);
		/* Data that does not compress costs a little more. */
		if (w.wire <= w.raw)
			snprintf(c, sizeof(c), "%.1f%% saved", 100.0 *
			    (double)(w.raw - w.wire) / (double)w.raw);
		else
			snprintf(c, sizeof(c), "%.1f%% more", 100.0 *
			    (double)(w.wire - w.raw) / (double)w.raw);
		n += (size_t)snprintf(line + n, sizeof(line) - n,
		    "  zlib %s -> %s (%s)", a, b, c);
	}
	if (n >= sizeof(line))
		n = sizeof(line) - 1;
	/* Never wrap: the carriage return must come back to this line. */
	if ((cols = term_cols()) > 1 && n > (size_t)cols - 1)
		n = (size_t)cols - 1;
	line[n] = '\0';
	/* Drawn and known to be (for progress_gone) at once. */
	(void)intr_hold();
	fprintf(stderr, "\r%s\033[K", line);
	fflush(stderr);
	p->drawn = 1;
	intr_release();
	p->tdraw = now;
}

/* Redraw the status line if it is due, or at once with force. */
static void
progress_due(struct progress *p, int force)
{
	if (p->mode != PROG_LINE)
		return;
	if (force || p->tdraw == 0 || conn_now() - p->tdraw >= LINE_MS)
		progress_draw(p);
}

void
progress_add(struct progress *p, int64_t bytes, const char *path)
{
	int	pct;

	if (p->mode == PROG_NONE || bytes < 0)
		return;
	p->done += bytes;
	if (p->mode == PROG_LINE) {
		progress_due(p, 0);
		return;
	}
	/* Computed in float, as the format's original consumers expect. */
	pct = (int)(((float)p->done / (float)p->total) * 100);
	if (pct <= p->last)
		return;
	p->last = pct;
	printf("%%%.2d %s\n", pct, path);
}

void
progress_data(struct progress *p, int64_t bytes)
{
	if (p->mode != PROG_LINE)
		return;
	pthread_mutex_lock(&p->mu);
	p->bytes += bytes;
	pthread_mutex_unlock(&p->mu);
}

void
progress_file(struct progress *p)
{
	if (p->mode != PROG_LINE)
		return;
	p->files++;
	/* The last one: the totals are shown complete. */
	if (p->files == p->tot.files)
		progress_due(p, 1);
}

void
progress_tick(struct progress *p)
{
	progress_due(p, 0);
}

void
progress_hide(struct progress *p)
{
	if (p->mode != PROG_LINE || !p->drawn)
		return;
	(void)intr_hold();
	fprintf(stderr, "\r\033[K");
	fflush(stderr);
	p->drawn = 0;
	intr_release();
}


/* Back after other output, when a redraw is due (else the next one). */
void
progress_show(struct progress *p)
{
	if (p->mode == PROG_LINE && !p->drawn)
		progress_due(p, 0);
}

void
progress_end(struct progress *p)
{
	progress_hide(p);
	if (p->mode == PROG_LINE)
		intr_onexit(NULL, NULL);
	if (p->locked)
		pthread_mutex_destroy(&p->mu);
	p->locked = 0;
	p->mode = PROG_NONE;
}
