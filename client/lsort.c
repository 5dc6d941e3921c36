/*
 * lsort: sort transcript lines by path (docs/formats.md section 4).
 *
 * Every input is read through a transcript reader that asks of a line
 * only a type token and a path (TR_KEYONLY), takes no order for granted
 * (TR_NOSORT), keeps the line as written (TR_RAW) and supplies a missing
 * final LF (TR_ADDLF); the framing and its errors (NUL, CR, line length,
 * path encoding) are those of every transcript reader.  The kept lines
 * are sorted (deterministically: equal keys in reverse input order, as
 * Radmind writes them) and written back byte for byte.  Blank and comment
 * lines are dropped.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "copts.h"
#include "fsutil.h"
#include "intr.h"
#include "log.h"
#include "pathcmp.h"
#include "transcript.h"
#include "xmalloc.h"

#define LSORT_EXIT_FORMAT	1	/* bad input line */
#define LSORT_EXIT_IO		2	/* cannot read or write */
#define LSORT_EXIT_USAGE	2

#define LSORT_FLAGS	(TR_KEYONLY | TR_NOSORT | TR_RAW | TR_ADDLF)

struct lsort_line {
	char		*line;		/* verbatim, without LF */
	char		*key;		/* decoded path */
	size_t		 idx;		/* input order, breaks ties */
};

struct lsort {
	struct lsort_line	*lines;
	size_t			 nlines;
	size_t			 cap;
	int			 icase;		/* -I */
	const char		*outname;	/* -o */
};

static int	lsort_icase;

static void
usage(void)
{
	fprintf(stderr, "Usage: lsort [ -IV ] [ -o file ] [ files... ]\n");
	exit(LSORT_EXIT_USAGE);
}

/* Record every object line of one input ("-": standard input). */
static void
read_input(struct lsort *ls, const char *arg)
{
	struct treader		*r;
	const struct tline	*t;
	struct lsort_line	*l;
	struct cerr		 err;
	int			 rc;

	if (strcmp(arg, "-") == 0)
		r = treader_fdopen(stdin, "(stdin)", LSORT_FLAGS, 1);
	else if ((r = treader_open(arg, NULL, LSORT_FLAGS, &err)) == NULL)
		fatalx("%s", err.msg);
	while ((rc = treader_next(r, &t, &err)) == TL_OBJECT) {
		if (ls->nlines == ls->cap) {
			ls->cap = ls->cap == 0 ? 4096 : ls->cap * 2;
			ls->lines = xreallocarray(ls->lines, ls->cap,
			    sizeof(*ls->lines));
		}
		l = &ls->lines[ls->nlines];
		l->line = xstrdup(t->raw);
		l->key = xstrdup(t->path);
		l->idx = ls->nlines++;
	}
	if (rc == -1) {
		if (!treader_ioerror(r))
			log_setfatalstatus(LSORT_EXIT_FORMAT);
		fatalx("%s", err.msg);
	}
	treader_close(r);
}

static int
line_cmp(const void *a, const void *b)
{
	const struct lsort_line	*x = a, *y = b;
	int			 c;

	if ((c = pathcmp(x->key, y->key, lsort_icase)) != 0)
		return c;
	/*
	 * Equal keys come out in reverse input order, as Radmind's lsort
	 * does (it collects lines into a list by prepending, then sorts
	 * stably).
	 */
	return x->idx > y->idx ? -1 : x->idx < y->idx;
}

/* lsort's own options; -I and -V are the shared ones (copts.h). */
static int
lsort_opt(int c, const char *arg, void *ctx)
{
	struct lsort	*ls = ctx;

	switch (c) {
	case 'o':
		ls->outname = arg;
		break;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct lsort	 ls;
	struct copts	 co;
	const char	*outname;
	struct fs_out	 o;
	FILE		*out = stdout;
	size_t		 i;

	log_init("lsort", LOG_TO_STDERR, 0);
	log_setfatalstatus(LSORT_EXIT_IO);
	memset(&ls, 0, sizeof(ls));
	copts_init(&co, COPTS_ICASE, NULL);
	if (copts_parse(argc, argv, &co, "o:", lsort_opt, &ls) == -1)
		usage();
	ls.icase = co.icase;
	outname = ls.outname;
	/* Interrupted, it leaves no temporary file (common/intr.h). */
	if (intr_init() == -1)
		fatal("signals");

	if (optind == argc)
		read_input(&ls, "-");
	for (; optind < argc; optind++)
		read_input(&ls, argv[optind]);

	lsort_icase = ls.icase;
	if (ls.nlines > 1)
		qsort(ls.lines, ls.nlines, sizeof(*ls.lines), line_cmp);

	/*
	 * Open the output only now, so "-o f f" sorts f in place; it is
	 * replaced only once all of it is written.
	 */
	if (outname != NULL) {
		if (fs_out_open(&o, outname) == -1)
			fatal("%s", o.name);
		out = o.fp;
	}
	for (i = 0; i < ls.nlines; i++)
		fprintf(out, "%s\n", ls.lines[i].line);
	if (outname == NULL) {
		if (fflush(out) == EOF || ferror(out))
			fatal("writing stdout");
	} else if (fs_out_commit(&o) == -1)
		fatal("writing %s", o.name);
	exit(0);
}
