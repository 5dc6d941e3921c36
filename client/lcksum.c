/*
 * lcksum: verify, and by default correct, the sizes and checksums that
 * server-side transcripts record for their stored files (lcksum(1)).
 */
#include "config.h"

#include <sys/stat.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "cksum.h"
#include "compat.h"
#include "copts.h"
#include "fsutil.h"
#include "intr.h"
#include "log.h"
#include "transcript.h"
#include "troot.h"
#include "tverify.h"
#include "xmalloc.h"

#define LCK_OK		0	/* verified, nothing changed */
#define LCK_CHANGED	1	/* updated, or differences found with -n */
#define LCK_ERROR	2

#define PROGRESSUNIT	1024	/* progress weight of one transcript line */

struct lck {
	struct cksum	*ck;
	int		 update;	/* not -n */
	int		 checkall;	/* -a */
	int		 verbose;	/* not -q */
	int		 icase;		/* -I */
	int		 progress;	/* -% */
	int		 checkapple;	/* -A */
	const char	*prefix;	/* -P */
	const char	*radmind_dir;	/* -D */
	/* -%: progress over all the transcripts of the run */
	int64_t		 ptotal;
	int64_t		 pdone;
	int		 plast;		/* last percentage printed, or -1 */
	char		*plastpath;	/* last path counted */
};

static void
usage(void)
{
	fprintf(stderr, "usage: lcksum [ -%%AiIqV ] [ -D path ] [ -n [ -a ] ] "
	    "[ -P prefix ] -c checksum transcript ...\n");
	exit(LCK_ERROR);
}

/*
 * The progress weight of a line looked at: 1024, plus the listed size of
 * a file to check.  The listed size, not the stored file's: the total is
 * made of listed sizes, so that the work done meets it exactly at the
 * end even where a size is wrong.
 */
static int64_t
line_weight(const struct tline *t)
{
	if (tverify_wants(t) && t->size > 0)
		return PROGRESSUNIT + t->size;
	return PROGRESSUNIT;
}

/* Progress line "%NN path" each time the integer percentage grows. */
static void
progress(struct lck *l, int64_t weight, const char *path)
{
	int	pct;

	if (!l->progress)
		return;
	free(l->plastpath);
	l->plastpath = xstrdup(path);
	l->pdone += weight;
	pct = l->ptotal > 0 ? (int)(l->pdone * 100 / l->ptotal) : 100;
	if (pct > 100)
		pct = 100;
	if (pct > l->plast) {
		printf("%%%.2d %s\n", pct, path);
		l->plast = pct;
	}
}

/*
 * The end of the run's work, a normal one: %100 if not yet printed
 * (nothing to look at, or a transcript that changed under us).
 */
static void
progress_end(struct lck *l)
{
	if (!l->progress || l->plast >= 100)
		return;
	printf("%%100 %s\n", l->plastpath != NULL ? l->plastpath : "");
	l->plast = 100;
}

/*
 * The total work of the run, so that the percentage grows from the first
 * transcript's first line to the last one's last line without starting
 * over: line_weight of every object line that will be looked at (within
 * the -P prefix) in every transcript.  Lines the reader rejects weigh
 * nothing here nor when met; an unreadable transcript is left to the
 * check proper, which dies on it.
 */
static void
progress_start(struct lck *l, char *const tpaths[], int n)
{
	struct treader		*r;
	const struct tline	*t;
	int			 i, rc;

	l->ptotal = 0;
	l->pdone = 0;
	l->plast = -1;
	for (i = 0; i < n; i++) {
		if ((r = treader_open(tpaths[i], NULL, TR_NOSORT |
		    TR_COMMENTS | (l->icase ? TR_ICASE : 0), NULL)) == NULL)
			continue;
		while ((rc = treader_next(r, &t, NULL)) != 0) {
			if (rc == -1 && treader_ioerror(r))
				break;
			if (rc == -1 || t->type == 0 || (l->prefix != NULL &&
			    strncmp(t->path, l->prefix,
			    strlen(l->prefix)) != 0))
				continue;
			l->ptotal += line_weight(t);
		}
		treader_close(r);
	}
}

/* One transcript being checked. */
struct lck_run {
	const char	*tpath;		/* as given */
	struct troot	 tr;
	struct treader	*r;
	char		*tmp;		/* its corrected copy (not -n): */
	FILE		*ufp;		/* <tpath>.<pid>, removed if we die */
	int		 ucount;	/* corrections made */
	int		 exitval;	/* 1: a difference or a bad line */
	int		 prefixfound;	/* -P matched a line */
};

/* What became of one line. */
#define LINE_COPY	0		/* written as it was */
#define LINE_DONE	1		/* corrected copy written */
#define LINE_BAD	2		/* cannot be checked (reported) */

/*
 * Open transcript tpath for checking and, unless -n, its corrected copy
 * <tpath>.<pid> with the transcript's mode.  Dies on errors.
 */
static void
run_open(struct lck *l, struct lck_run *run, const char *tpath)
{
	struct cerr	 err;
	struct stat	 st;
	int		 ufd;

	memset(run, 0, sizeof(*run));
	run->tpath = tpath;
	if (troot_get(l->radmind_dir, tpath, &run->tr, &err) == -1)
		fatalx("%s", err.msg);
	if (stat(tpath, &st) == -1)
		fatal("%s", tpath);
	if (!S_ISREG(st.st_mode))
		fatalx("%s: not a regular file", tpath);
	if (access(tpath, l->update ? R_OK | W_OK : R_OK) == -1)
		fatal("%s", tpath);
	if ((run->r = treader_open(tpath, NULL, TR_NOSORT | TR_RAW |
	    TR_COMMENTS | (l->icase ? TR_ICASE : 0), &err)) == NULL)
		fatalx("%s", err.msg);
	if (!l->update)
		return;
	xasprintf(&run->tmp, "%s.%d", tpath, (int)getpid());
	/* Made and registered at once: an interrupt removes it (intr.h). */
	(void)intr_hold();
	if ((ufd = open(run->tmp, O_WRONLY | O_CREAT | O_EXCL,
	    st.st_mode & 07777)) == -1)
		fatal("%s", run->tmp);		/* not ours: left alone */
	log_addcleanup(fs_unlink_hook, run->tmp);
	intr_release();
	if (fchmod(ufd, st.st_mode & 07777) == -1 ||
	    (run->ufp = fdopen(ufd, "w")) == NULL)
		fatal("%s", run->tmp);
}

/* A wrong size or checksum ("what"): reported, or counted for correction. */
static void
mismatch(struct lck *l, struct lck_run *run, const struct tline *t,
    const char *what)
{
	if (!l->update) {
		if (l->verbose)
			printf("line %u: %s: %s wrong\n", t->lineno, t->path,
			    what);
		run->exitval = 1;
	} else {
		run->ucount++;
		if (l->verbose)
			printf("%s: %s updated\n", t->path, what);
	}
}

/*
 * The line with the real size and checksum, in Radmind lcksum's layout
 * (which also takes the stored file's mtime if the line had a checksum).
 */
static void
rewrite(struct lck_run *run, const struct tline *t, const struct tvfile *sf)
{
	struct tline	u;

	memset(&u, 0, sizeof(u));
	tline_copy(&u, t);
	u.mtime = sf->st.st_mtime;
	u.size = sf->size;
	strlcpy(u.cksum, sf->sum, sizeof(u.cksum));
	if (tline_print(run->ufp, &u, TL_REWRITE) == -1)
		fatal("%s", run->tmp);
	tline_clear(&u);
}

/*
 * Check the size and checksum of the stored file of an f or a line and
 * write its corrected copy if need be.  Returns LINE_*.
 */
static int
check_stored(struct lck *l, struct lck_run *run, const struct tline *t)
{
	struct cerr	 err;
	struct tvfile	 sf;

	if (tverify_line(l->ck, &run->tr, t, l->checkapple, &sf, &err) == -1) {
		log_warnx("%s", err.msg);
		return LINE_BAD;
	}
	if (sf.wrong & TV_SIZE)
		mismatch(l, run, t, "size");
	if (sf.wrong & TV_CKSUM)
		mismatch(l, run, t, "checksum");
	if (sf.wrong & TV_APPLE) {
		log_warnx("%s", err.msg);
		log_warnx("%s: corrupted applefile", sf.file);
		tvfile_clear(&sf);
		return LINE_BAD;
	}
	tvfile_clear(&sf);
	if (sf.wrong == 0 || !l->update)
		return LINE_COPY;
	rewrite(run, t, &sf);
	return LINE_DONE;
}

/*
 * Check one line read: within -P, in order (dies otherwise), and for an
 * f or a line the size and checksum of its stored file.  Returns LINE_*.
 */
static int
check_line(struct lck *l, struct lck_run *run, const struct tline *t)
{
	struct cerr	 err;
	int		 rc;

	if (t->type == 0)
		return LINE_COPY;		/* blank or comment */
	if (l->prefix != NULL) {
		if (strncmp(t->path, l->prefix, strlen(l->prefix)) != 0)
			return LINE_COPY;
		run->prefixfound = 1;
	}
	if (treader_order(run->r, &err) == -1)
		fatalx("%s", err.msg);
	rc = tverify_wants(t) ? check_stored(l, run, t) : LINE_COPY;
	/* Counted once looked at, whatever came of it, as in the total. */
	progress(l, line_weight(t), t->path);
	return rc;
}

/*
 * Put the corrected copy in place of the transcript if anything was
 * corrected (else remove it), and say what became of the transcript.
 * Returns LCK_OK or LCK_CHANGED; dies on errors.
 */
static int
run_finish(struct lck *l, struct lck_run *run)
{
	int	rc;

	if (!run->prefixfound && l->prefix != NULL && l->verbose)
		printf("warning: prefix \"%s\" not found\n", l->prefix);
	if (!l->update) {
		rc = run->exitval ? LCK_CHANGED : LCK_OK;
		if (l->verbose)
			printf("%s: %s\n", run->tr.tran_name,
			    rc == LCK_CHANGED ? "incorrect" : "verified");
		return rc;
	}
	if (fflush(run->ufp) == EOF || ferror(run->ufp) ||
	    fsync(fileno(run->ufp)) || fclose(run->ufp) == EOF)
		fatal("%s", run->tmp);
	(void)intr_hold();
	if (run->ucount) {
		if (rename(run->tmp, run->tpath) == -1)
			fatal("rename %s to %s failed", run->tmp, run->tpath);
		log_delcleanup(fs_unlink_hook, run->tmp);
		if (fs_syncdir(run->tpath) == -1)
			fatal("%s: fsync of its directory", run->tpath);
		rc = LCK_CHANGED;
	} else {
		if (unlink(run->tmp) == -1)
			fatal("%s", run->tmp);
		log_delcleanup(fs_unlink_hook, run->tmp);
		rc = LCK_OK;
	}
	intr_release();
	free(run->tmp);
	if (l->verbose)
		printf("%s: %s\n", run->tr.tran_name,
		    rc == LCK_CHANGED ? "updated" : "verified");
	return rc;
}

/*
 * Check one transcript.  Returns LCK_OK or LCK_CHANGED; fatal errors
 * exit with LCK_ERROR.  A bad line is fatal too unless -a.
 */
static int
do_lcksum(struct lck *l, const char *tpath)
{
	struct lck_run		 run;
	const struct tline	*t;
	struct cerr		 err;
	int			 rc;

	run_open(l, &run, tpath);
	while ((rc = treader_next(run.r, &t, &err)) != 0) {
		if (rc == -1) {
			if (treader_ioerror(run.r))
				fatalx("%s", err.msg);
			log_warnx("%s", err.msg);
			rc = LINE_BAD;
		} else
			rc = check_line(l, &run, t);
		if (rc == LINE_BAD) {
			run.exitval = 1;
			if (!l->checkall)
				log_exit(LCK_ERROR);
		} else if (rc == LINE_COPY && l->update)
			fprintf(run.ufp, "%s\n", t->raw);
	}
	treader_close(run.r);
	rc = run_finish(l, &run);
	troot_clear(&run.tr);
	return rc;
}

/* lcksum's own options; -c, -D, -I, -i, -q and -V are the shared ones. */
static int
lcksum_opt(int c, const char *arg, void *ctx)
{
	struct lck	*l = ctx;

	switch (c) {
	case '%':
		l->progress = 1;
		break;
	case 'A':
		l->checkapple = 1;
		break;
	case 'a':
		l->checkall = 1;
		break;
	case 'n':
		l->update = 0;
		break;
	case 'P':
		l->prefix = arg;
		break;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct lck	 l;
	struct copts	 co;
	int		 rc = LCK_OK;

	log_init("lcksum", LOG_TO_STDERR, 0);
	log_setfatalstatus(LCK_ERROR);
	memset(&l, 0, sizeof(l));
	l.update = 1;
	copts_init(&co, COPTS_DIGEST | COPTS_DIR | COPTS_ICASE | COPTS_LINEBUF |
	    COPTS_QUIET, NULL);
	co.dir = _RADMIND_PATH;
	if (copts_parse(argc, argv, &co, "%AanP:", lcksum_opt, &l) == -1 ||
	    co.digest == NULL || (l.checkall && l.update) || optind == argc)
		usage();
	l.radmind_dir = co.dir;
	l.verbose = !co.quiet;
	l.icase = co.icase;
	l.ck = cksum_new(co.digest);
	/* Interrupted, it leaves no temporary file (common/intr.h). */
	if (intr_init() == -1)
		fatal("signals");

	if (l.progress)
		progress_start(&l, argv + optind, argc - optind);
	for (; optind < argc; optind++) {
		if (do_lcksum(&l, argv[optind]) == LCK_CHANGED) {
			rc = LCK_CHANGED;
			if (!l.update)
				break;	/* -n: the first difference ends it */
		}
	}
	progress_end(&l);
	free(l.plastpath);
	cksum_free(l.ck);
	exit(rc);
}
