/*
 * lmerge: merge server-side transcripts and their file trees (lmerge(1)).
 *
 * The first transcript argument has the highest precedence.  For each
 * path the line of the highest input listing it is written verbatim;
 * its file is hard-linked (or copied with -C) from that input's file
 * tree into <file root>/<dest>.<pid>, and at the end the new tree and
 * transcript are renamed into place.  On error nothing partial is left
 * behind: the temporary transcript and tree are removed, and so is the
 * destination transcript if this run created it.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/time.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "confine.h"
#include "copts.h"
#include "fsutil.h"
#include "intr.h"
#include "log.h"
#include "path.h"
#include "transcript.h"
#include "troot.h"
#include "xmalloc.h"

#define LM_EXIT_ERROR	2

struct lm_in {
	const char	*arg;		/* path as given */
	struct troot	 tr;
	struct treader	*r;		/* until handed to the merge */
};

struct lm {
	struct lm_in	*in;		/* in[0] has the highest precedence */
	int		 nin;
	struct tmerge	*tm;		/* in[i] is its input nin - 1 - i */
	int		 force;		/* -f */
	int		 noupload;	/* -n */
	int		 transonly;	/* -T */
	int		 copy;		/* -C */
	int		 icase;		/* -I */
	int		 verbose;	/* -v */
	const char	*radmind_dir;	/* -D */
	const char	*dest;		/* last argument */
	char		*file_root;	/* of the destination */
	char		*tran_root;
	char		*tran_name;
	char		*tmptran;	/* <tran_root>/<name>.<pid> */
	char		*tmptree;	/* <file_root>/<name>.<pid> (not -f) */
	char		*newdest;	/* dest, if this run created it */
	FILE		*out;
	char		**dirs;		/* -f: directories to remove */
	size_t		 ndirs;
};

static void
usage(void)
{
	fprintf(stderr, "Usage: lmerge [-CIiTVv] [ -D path ] [ -u umask ] "
	    "transcript... dest\n");
	fprintf(stderr, "       lmerge -f [-CIiVv] [ -D path ] [ -u umask ] "
	    "transcript1 transcript2\n");
	fprintf(stderr, "       lmerge -n [-IiTVv] [ -D path ] [ -u umask ] "
	    "transcript1 transcript2 dest\n");
	exit(LM_EXIT_ERROR);
}

/* The line input i has for the current path, or NULL. */
static const struct tline *
lm_line(struct lm *lm, int i)
{
	return tmerge_line(lm->tm, lm->nin - 1 - i);
}

/* Lines are written as they were read. */
static void
lm_output(struct lm *lm, const struct tline *t)
{
	fprintf(lm->out, "%s\n", t->raw);
}

static int
isfile(const struct tline *t)
{
	return t->type == 'f' || t->type == 'a';
}

/*
 * Copy the regular file sleaf of directory sdfd to a new file dleaf of
 * directory ddfd with its mode, owner and times.
 */
static int
copy_file(int sdfd, const char *sleaf, int ddfd, const char *dleaf)
{
	struct timespec	 ts[2];
	struct stat	 st;
	char		 buf[65536];
	ssize_t		 r;
	int		 sfd, dfd = -1, saved;

	if ((sfd = openat(sdfd, sleaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fstat(sfd, &st) == -1)
		goto fail;
	if (!S_ISREG(st.st_mode)) {
		errno = EINVAL;
		goto fail;
	}
	if ((dfd = openat(ddfd, dleaf, O_WRONLY | O_CREAT | O_EXCL |
	    O_NOFOLLOW | O_CLOEXEC, st.st_mode & 07777)) == -1)
		goto fail;
	for (;;) {
		if ((r = read(sfd, buf, sizeof(buf))) == -1) {
			if (errno == EINTR)
				continue;
			goto faildst;
		}
		if (r == 0)
			break;
		if (fs_write_all(dfd, buf, (size_t)r) == -1)
			goto faildst;
	}
	ts[0] = st.st_atim;
	ts[1] = st.st_mtim;
	if (fchown(dfd, st.st_uid, st.st_gid) == -1 ||
	    fchmod(dfd, st.st_mode & 07777) == -1 ||
	    futimens(dfd, ts) == -1)
		goto faildst;
	if (close(dfd) == -1) {
		dfd = -1;
		goto faildst;
	}
	close(sfd);
	return 0;
faildst:
	saved = errno;
	if (dfd != -1)
		close(dfd);
	unlinkat(ddfd, dleaf, 0);
	errno = saved;
fail:
	saved = errno;
	close(sfd);
	errno = saved;
	return -1;
}

/* confine_parent's hook: the new tree's missing directories. */
static int
lm_mkdir(void *ctx, int pfd, const char *name, const char *rel, size_t len)
{
	(void)ctx;
	(void)rel;
	(void)len;
	return mkdirat(pfd, name, 0777);
}

/*
 * Open the directory holding path in the tree dir (making the missing
 * ones with mk), never through a symbolic link: a link in a tree must
 * not take a file from, or put one, outside it.  Returns a descriptor
 * with *leaf the last component of path, or -1 with errno.
 */
static int
lm_parent(const char *dir, const char *path, int mk, const char **leaf)
{
	size_t	bad;
	int	dfd, pfd, saved;

	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	pfd = confine_parent(dfd, path, mk ? lm_mkdir : NULL, NULL, leaf,
	    &bad);
	saved = errno;
	close(dfd);
	errno = saved;
	return pfd;
}

/*
 * The stored file of path in src (listed on line lineno there):
 * <file root>/<name>/<path>.  A ".." cannot get past the reader; this is
 * a second lock on the same door.
 */
static char *
lm_stored(const struct lm_in *src, const char *path, unsigned lineno)
{
	char	*p;

	if (path_has_dotdot(path))
		fatalx("%s: line %u: %s: path contains \"..\"",
		    src->tr.tran_name, lineno, path);
	xasprintf(&p, "%s/%s/%s", src->tr.file_root, src->tr.tran_name, path);
	return p;
}

/* Link (or copy) the file of path from src into the new tree, or die. */
static void
lm_place(struct lm *lm, const struct lm_in *src, const char *path,
    unsigned lineno)
{
	struct stat	 st;
	const char	*sleaf, *dleaf;
	char		*from, *to, *sdir, *ddir;
	int		 spfd, dpfd = -1, rc = -1;

	from = lm_stored(src, path, lineno);
	xasprintf(&sdir, "%s/%s", src->tr.file_root, src->tr.tran_name);
	if (lm->force)
		xasprintf(&ddir, "%s/%s", lm->file_root, lm->tran_name);
	else
		ddir = xstrdup(lm->tmptree);
	xasprintf(&to, "%s/%s", ddir, path);
	/* The source first: nothing is made for a file that is not there. */
	if ((spfd = lm_parent(sdir, path, 0, &sleaf)) != -1 &&
	    fstatat(spfd, sleaf, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISREG(st.st_mode))
			fatalx("%s %s to %s failed: not a regular file",
			    lm->copy ? "copy" : "link", from, to);
		if ((dpfd = lm_parent(ddir, path, 1, &dleaf)) != -1)
			rc = lm->copy ? copy_file(spfd, sleaf, dpfd, dleaf) :
			    linkat(spfd, sleaf, dpfd, dleaf, 0);
	}
	if (rc == -1)
		fatal("%s %s to %s failed", lm->copy ? "copy" : "link", from,
		    to);
	close(spfd);
	close(dpfd);		/* both open: rc is 0 */
	free(sdir);
	free(ddir);
	free(from);
	free(to);
}

/* -f: remove the file of a lower input's line t that the merge replaces. */
static void
lm_unlink_lower(struct lm *lm, const struct lm_in *in, const struct tline *t)
{
	const char	*leaf;
	char		*p, *dir;
	int		 pfd;

	p = lm_stored(in, t->path, t->lineno);
	xasprintf(&dir, "%s/%s", in->tr.file_root, in->tr.tran_name);
	if ((pfd = lm_parent(dir, t->path, 0, &leaf)) == -1 ||
	    unlinkat(pfd, leaf, 0) == -1)
		fatal("%s", p);
	close(pfd);
	free(dir);
	if (lm->verbose)
		printf("%s: %s: unlinked\n", in->tr.tran_name, t->path);
	free(p);
}

/*
 * Write (or drop) the line of input win for the current path; its file
 * comes from input fileloc.  match: a lower input lists the path too.
 */
static void
lm_put(struct lm *lm, int win, int fileloc, int match)
{
	const struct tline	*w = lm_line(lm, win);

	if (w->minus || (lm->noupload && win == 0 && fileloc == 0)) {
		if (match && lm->force && w->type == 'd') {
			lm->dirs = xreallocarray(lm->dirs, lm->ndirs + 1,
			    sizeof(*lm->dirs));
			lm->dirs[lm->ndirs++] = xstrdup(w->path);
		}
		/* A minus line that hid nothing is passed on. */
		if (w->minus && !match)
			lm_output(lm, w);
		return;
	}
	if (isfile(w) && !lm->transonly) {
		lm_place(lm, &lm->in[fileloc], w->path,
		    lm_line(lm, fileloc)->lineno);
		if (lm->verbose)
			printf("%s: %s: merged into: %s\n",
			    lm->in[win].tr.tran_name, w->path, lm->tran_name);
	}
	lm_output(lm, w);
}

/*
 * One path: win is the highest input listing it.  The lower inputs' lines
 * for it decide where its file comes from (-n) and what -f removes.
 */
static void
lm_path(struct lm *lm, int win)
{
	const struct tline	*w = lm_line(lm, win), *o;
	int			 j, fileloc = win, match = 0;

	/* -f: lines only in transcript2 are kept as they are. */
	if (lm->force && win == lm->nin - 1) {
		lm_output(lm, w);
		return;
	}
	for (j = win + 1; j < lm->nin; j++) {
		if ((o = lm_line(lm, j)) == NULL)
			continue;
		match = 1;
		if (lm->noupload && isfile(w)) {
			/*
			 * A hand-written file line survives only if the
			 * uploaded transcript has the same content; its file
			 * then comes from there.  Otherwise the lower line is
			 * kept instead.
			 */
			if (!isfile(o) || o->minus || w->size != o->size ||
			    strcmp(w->cksum, o->cksum) != 0) {
				lm_path(lm, j);
				return;
			}
			fileloc = j;
		}
		if (lm->force && isfile(o) && !o->minus)
			lm_unlink_lower(lm, &lm->in[j], o);
	}
	lm_put(lm, win, fileloc, match);
}

/* Walk all inputs together, one path at a time; dies on errors. */
static void
lm_merge(struct lm *lm)
{
	const struct tline	*t;
	struct cerr		 err;
	int			 rc, idx;

	while ((rc = tmerge_next(lm->tm, &t, &idx, &err)) == 1)
		lm_path(lm, lm->nin - 1 - idx);
	if (rc == -1)
		fatalx("%s", err.msg);
}

/* -f: remove the directories transcript1 deleted, deepest first. */
static void
lm_rmdirs(struct lm *lm)
{
	const char	*leaf;
	char		*p, *dir;
	size_t		 i;
	int		 pfd;

	xasprintf(&dir, "%s/%s", lm->file_root, lm->tran_name);
	for (i = lm->ndirs; i-- > 0; ) {
		if (path_has_dotdot(lm->dirs[i]))
			continue;
		xasprintf(&p, "%s/%s", dir, lm->dirs[i]);
		if ((pfd = lm_parent(dir, lm->dirs[i], 0, &leaf)) == -1 ||
		    unlinkat(pfd, leaf, AT_REMOVEDIR) == -1) {
			if (errno == EEXIST || errno == ENOTEMPTY)
				log_warnx("%s: %s: Not empty, continuing...",
				    lm->tran_name, lm->dirs[i]);
			else if (errno != ENOENT)
				fatal("%s", p);
		} else if (lm->verbose)
			printf("%s: %s: unlinked\n", lm->tran_name,
			    lm->dirs[i]);
		if (pfd != -1)
			close(pfd);
		free(p);
		free(lm->dirs[i]);
	}
	free(lm->dirs);
	free(dir);
}

/* lmerge's own options; -D, -I, -i, -u, -V and -v are the shared ones. */
static int
lm_opt(int c, const char *arg, void *ctx)
{
	struct lm	*lm = ctx;

	(void)arg;
	switch (c) {
	case 'C':
		lm->copy = 1;
		break;
	case 'f':
		lm->force = 1;
		break;
	case 'n':
		lm->noupload = 1;
		break;
	case 'T':
		lm->transonly = 1;
		break;
	}
	return 0;
}

/* Parse the options into lm; returns the number of inputs. */
static int
lm_options(struct lm *lm, int argc, char *argv[])
{
	struct copts	 co;
	int		 bad = 0, tcount;

	copts_init(&co, COPTS_DIR | COPTS_ICASE | COPTS_LINEBUF | COPTS_UMASK |
	    COPTS_VERBOSE, NULL);
	co.dir = _RADMIND_PATH;
	if (copts_parse(argc, argv, &co, "CfnT", lm_opt, lm) == -1)
		bad++;
	lm->radmind_dir = co.dir;
	lm->verbose = co.verbose > 0;
	lm->icase = co.icase;
	tcount = argc - optind - 1;	/* inputs, not counting dest */
	if ((lm->transonly && lm->force) || (lm->transonly && lm->copy) ||
	    (lm->noupload && lm->force) || (lm->noupload && tcount != 2) ||
	    (lm->force && tcount != 1) || (!lm->force && tcount < 2))
		bad++;
	if (bad)
		usage();
	lm->dest = argv[argc - 1];
	if (lm->force) {
		if (access(lm->dest, W_OK) == -1)
			fatal("%s", lm->dest);
		tcount++;		/* transcript2 is also an input */
	}
	return tcount;
}

/*
 * Find the file trees of the inputs and open their readers, then hand
 * them to the merge lowest precedence first.
 */
static void
lm_open_inputs(struct lm *lm, char **args, int n)
{
	struct cerr	 err;
	FILE		*fp;
	int		 i;

	lm->nin = n;
	lm->in = xcalloc((size_t)n, sizeof(*lm->in));
	for (i = 0; i < n; i++) {
		lm->in[i].arg = args[i];
		if (troot_get(lm->radmind_dir, args[i], &lm->in[i].tr,
		    &err) == -1)
			fatalx("%s", err.msg);
		if ((fp = fopen(args[i], "r")) == NULL)
			fatal("%s", args[i]);
		lm->in[i].r = treader_fdopen(fp, lm->in[i].tr.tran_name,
		    TR_RAW | (lm->icase ? TR_ICASE : 0), 0);
	}
	lm->tm = tmerge_new(lm->icase, -1);
	for (i = n; i-- > 0; ) {
		tmerge_add(lm->tm, lm->in[i].r, &lm->in[i], 0);
		lm->in[i].r = NULL;
	}
}

/*
 * Where the result goes: -f into transcript2's own tree; otherwise into
 * dest (created empty if missing) and, unless -T, a new tree
 * <file root>/<dest>.<pid> renamed into place at the end.
 */
static void
lm_open_dest(struct lm *lm)
{
	struct cerr	 err;
	struct troot	 dtr;
	int		 fd;

	if (lm->force) {
		lm->file_root = xstrdup(lm->in[1].tr.file_root);
		lm->tran_root = xstrdup(lm->in[1].tr.tran_root);
		lm->tran_name = xstrdup(lm->in[1].tr.tran_name);
		return;
	}
	/* Made and registered at once: an interrupt removes it (intr.h). */
	(void)intr_hold();
	if ((fd = open(lm->dest, O_WRONLY | O_CREAT | O_EXCL, 0666)) != -1) {
		lm->newdest = xstrdup(lm->dest);
		log_addcleanup(fs_unlink_hook, lm->newdest);
	}
	intr_release();		/* errno kept */
	if (fd == -1 && (errno != EEXIST ||
	    (fd = open(lm->dest, O_WRONLY)) == -1))
		fatal("%s", lm->dest);
	close(fd);
	if (troot_get(lm->radmind_dir, lm->dest, &dtr, &err) == -1)
		fatalx("%s", err.msg);
	lm->file_root = dtr.file_root;
	lm->tran_root = dtr.tran_root;
	lm->tran_name = dtr.tran_name;
	if (lm->transonly)
		return;
	xasprintf(&lm->tmptree, "%s/%s.%d", lm->file_root, lm->tran_name,
	    (int)getpid());
	(void)intr_hold();
	if (mkdir(lm->tmptree, 0777) == -1)
		fatal("%s", lm->tmptree);
	log_addcleanup(fs_rmtree_hook, lm->tmptree);
	intr_release();
}

/* The new transcript, <tran_root>/<name>.<pid> until renamed. */
static void
lm_open_out(struct lm *lm)
{
	int	fd;

	xasprintf(&lm->tmptran, "%s/%s.%d", lm->tran_root, lm->tran_name,
	    (int)getpid());
	(void)intr_hold();
	if ((fd = open(lm->tmptran, O_WRONLY | O_CREAT | O_EXCL, 0666)) ==
	    -1)
		fatal("%s", lm->tmptran);
	log_addcleanup(fs_unlink_hook, lm->tmptran);
	intr_release();
	if ((lm->out = fdopen(fd, "w")) == NULL)
		fatal("%s", lm->tmptran);
}

/* Flush the new transcript and rename the new tree and it into place. */
static void
lm_commit(struct lm *lm)
{
	char	*final;

	if (fflush(lm->out) == EOF || ferror(lm->out) ||
	    fsync(fileno(lm->out)) == -1)
		fatal("%s", lm->tmptran);
	/* An interrupt waits until both are in place. */
	(void)intr_hold();
	if (!lm->force && !lm->transonly) {
		xasprintf(&final, "%s/%s", lm->file_root, lm->tran_name);
		if (rename(lm->tmptree, final) == -1)
			fatal("%s", final);
		log_delcleanup(fs_rmtree_hook, lm->tmptree);
		if (fs_syncdir(final) == -1)
			fatal("%s: fsync of its directory", final);
		free(final);
	}
	xasprintf(&final, "%s/%s", lm->tran_root, lm->tran_name);
	if (rename(lm->tmptran, final) == -1)
		fatal("%s", final);
	/* Nothing is left to undo. */
	log_delcleanup(fs_unlink_hook, lm->tmptran);
	if (lm->newdest != NULL)
		log_delcleanup(fs_unlink_hook, lm->newdest);
	if (fs_syncdir(final) == -1)
		fatal("%s: fsync of its directory", final);
	intr_release();
	if (fclose(lm->out) == EOF)
		fatal("%s", final);
	free(final);
}

int
main(int argc, char *argv[])
{
	struct lm	lm;
	int		n;

	log_init("lmerge", LOG_TO_STDERR, 0);
	log_setfatalstatus(LM_EXIT_ERROR);
	memset(&lm, 0, sizeof(lm));
	n = lm_options(&lm, argc, argv);
	/* Interrupted, it leaves no temporary file (common/intr.h). */
	if (intr_init() == -1)
		fatal("signals");
	lm_open_inputs(&lm, argv + optind, n);
	lm_open_dest(&lm);
	lm_open_out(&lm);
	lm_merge(&lm);
	if (lm.force)
		lm_rmdirs(&lm);
	lm_commit(&lm);
	exit(0);
}
