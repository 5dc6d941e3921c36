/*
 * apply-progress.h: lapply's progress output (apply-progress.c), at the
 * bottom of the apply library: it calls nothing of it.
 */
#ifndef CAIRN_APPLY_PROGRESS_H
#define CAIRN_APPLY_PROGRESS_H

#include <pthread.h>
#include <stdint.h>

#define PROGRESSUNIT	1024	/* weight of one transcript line */

/*
 * Progress output (lapply(1), -% and PROGRESS).  The totals come from
 * apply_load: the weight of -% (PROGRESSUNIT a line plus the bytes to
 * download) and the downloads themselves.
 */
#define PROG_NONE	0
#define PROG_PERCENT	1	/* -%: "%NN path" lines on stdout */
#define PROG_LINE	2	/* one status line on stderr (a terminal) */

struct progtotal {
	int64_t		 weight;	/* -%: the whole work */
	int64_t		 files;		/* "+" lines to download */
	int64_t		 bytes;		/* ... their sizes */
};

/*
 * What the sessions carried so far, for the status line: bytes
 * received after inflate (raw) and before it (wire), and whether
 * compression is on.  Filled by the sample hook from the connections'
 * own counters.
 */
struct progwire {
	uint64_t	 raw, wire;
	int		 zlib;
};

struct progress {
	int		 mode;
	int64_t		 total;		/* weight */
	int64_t		 done;
	int		 last;		/* last percentage shown, -1 none */
	int		 drawn;		/* status line currently on screen */
	/* PROG_LINE */
	struct progtotal tot;
	int64_t		 files;		/* downloads landed */
	int64_t		 bytes;		/* file data received (any thread) */
	pthread_mutex_t	 mu;		/* ... guards bytes */
	int		 locked;	/* mu initialised */
	int64_t		 t0, tdraw;	/* ms: start, last drawn */
	int		 shared;	/* stdout is a terminal too */
	void		(*sample)(void *, struct progwire *);
	void		*arg;
};

void	progress_init(struct progress *, int mode,
	    const struct progtotal *);
/* Add weight (and show it); main thread only. */
void	progress_add(struct progress *, int64_t bytes, const char *path);
/* File data received: from any thread, drawn by the next add or tick. */
void	progress_data(struct progress *, int64_t bytes);
/* A download landed. */
void	progress_file(struct progress *);
/* Redraw the status line if it is due (main thread, while waiting). */
void	progress_tick(struct progress *);
void	progress_hide(struct progress *);	/* before other output */
void	progress_show(struct progress *);	/* after other output */
void	progress_end(struct progress *);

#endif
