/*
 * fsdiff: compare a file system with the transcripts a command file
 * names, and print a creatable (-C) or applicable (-A) transcript, or a
 * single object's line (-1).
 *
 * The walk visits objects depth first in transcript order and runs in
 * lockstep with the precedence-merged transcript stream, so memory grows
 * with the largest directory, not with the tree.  Several paths are
 * walked one after the other in transcript order (see setup_roots), so
 * the output still streams: only the list of paths is held, never the
 * output.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#ifdef HAVE_SYS_SYSMACROS_H
#include <sys/sysmacros.h>
#endif

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "cksum.h"
#include "command.h"
#include "compat.h"
#include "copts.h"
#include "encode.h"
#include "fsutil.h"
#include "intr.h"
#include "log.h"
#include "path.h"
#include "pathcmp.h"
#include "transcript.h"
#include "wildcard.h"
#include "xmalloc.h"

#ifndef _RADMIND_PATH
#define _RADMIND_PATH	"/var/radmind"
#endif
#define DEFAULT_KFILE	_RADMIND_PATH "/client/command.K"

enum fsd_exit {
	EXIT_OK = 0,
	EXIT_ERROR = 2,
};

enum fsd_mode {
	MODE_CREATABLE,
	MODE_APPLICABLE,
	MODE_SINGLE,
};

/* One transcript of the merge, by precedence index. */
struct tinfo {
	char	*name;		/* header name: as written in the command file */
	char	 kind;		/* 'p', 'n' or 's' (special.T) */
};

/* A file-system object as fsdiff records it. */
struct fsobj {
	char		*path;		/* decoded, run style */
	struct stat	 st;
	char		 type;
	char		*target;	/* l: link contents; h: first path */
	char		 cksum[CKSUM_B64MAX];
	int		 have_cksum;
};

/*
 * Hard-link table: first path seen for each (dev, ino) with nlink > 1,
 * and whether -A printed a line for that first name (see hl_touch).
 */
struct hlent {
	dev_t		 dev;
	ino_t		 ino;
	char		*path;
	int		 changed;
	struct hlent	*next;
};

#define HL_BUCKETS	1024

/* A path given on the command line, canonical, with its lstat data. */
struct root {
	char		*path;
	struct stat	 st;
};

struct fsd {
	enum fsd_mode	 mode;
	int		 icase;
	int		 tflag;
	int		 wflag;
	const char	*digest;
	struct cksum	*ck;
	FILE		*out;
	int		 progress;
	struct cmdset	*cs;
	struct tmerge	*tm;
	struct tinfo	*ti;
	int		 nti;
	int		 style;
	struct root	*roots;		/* sorted, none inside another */
	size_t		 nroots;
	char		*lasthdr;
	struct hlent	*hl[HL_BUCKETS];
	struct buf	*line;
	int		 lastpct;
	int		 failed;
	struct cerr	 err;
};

static void
usage(void)
{
	fprintf(stderr, "usage: fsdiff { -C | -A | -1 } [ -ItVW ] "
	    "[ -K command ] [ -c checksum ] [ -o file [ -%% ] ] path ...\n");
	exit(EXIT_ERROR);
}

/*
 * Stop on an error from library code (in f->err), after what was
 * written so far, so that 2>&1 keeps the order.
 */
static void __attribute__((noreturn))
fatal_err(struct fsd *f)
{
	fflush(f->out);
	fatalx("%s", f->err.msg);
}

static void
emit(struct fsd *f)
{
	if (fwrite(buf_data(f->line), 1, buf_len(f->line), f->out) !=
	    buf_len(f->line))
		fatal("write");
	buf_reset(f->line);
}

/*
 * Progress (-%), as Radmind's fsdiff: each object owns a share
 * [start, finish) of 0..100; a directory splits its share evenly among
 * its entries.  "%NN path" is printed when an object's share starts at a
 * percentage other than the last one printed.
 */
static void
progress(struct fsd *f, const char *path, int start, int finish)
{
	if (!f->progress || finish <= 0 || start == f->lastpct)
		return;
	f->lastpct = start;
	printf("%%%.2d %s\n", start, path);
	fflush(stdout);
}

static unsigned
hl_hash(dev_t dev, ino_t ino)
{
	return (unsigned)((ino * 2654435761u) ^ dev) % HL_BUCKETS;
}

static struct hlent *
hl_find(struct fsd *f, const struct stat *st)
{
	struct hlent	*e;

	for (e = f->hl[hl_hash(st->st_dev, st->st_ino)]; e != NULL;
	    e = e->next)
		if (e->dev == st->st_dev && e->ino == st->st_ino)
			return e;
	return NULL;
}

/* Return the first path recorded for this inode, or record path. */
static const char *
hl_check(struct fsd *f, const struct stat *st, const char *path)
{
	struct hlent	*e;
	unsigned	 h = hl_hash(st->st_dev, st->st_ino);

	if ((e = hl_find(f, st)) != NULL)
		return e->path;
	e = xcalloc(1, sizeof(*e));
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->path = xstrdup(path);
	e->next = f->hl[h];
	f->hl[h] = e;
	return NULL;
}

static void
fsobj_clear(struct fsobj *o)
{
	free(o->path);
	free(o->target);
	memset(o, 0, sizeof(*o));
}

/* Fill o from lstat data.  Returns 0, or -1 (message printed). */
static int
fsobj_init(struct fsd *f, struct fsobj *o, const char *path,
    const struct stat *st, int hardlinks)
{
	char		 lbuf[PATH_MAX + 1];
	ssize_t		 n;
	const char	*first;

	memset(o, 0, sizeof(*o));
	o->path = xstrdup(path);
	o->st = *st;
	o->type = (char)tline_typeof(st->st_mode);
	if (o->type == 0) {
		fflush(f->out);
		log_warnx("%s: unknown file type", path);
		return -1;
	}
	/* A later name of any non-directory, a symbolic link too, is h. */
	if (hardlinks && o->type != 'd' && st->st_nlink > 1 &&
	    (first = hl_check(f, st, path)) != NULL) {
		o->type = 'h';
		o->target = xstrdup(first);
	} else if (o->type == 'l') {
		if ((n = readlink(path, lbuf, sizeof(lbuf) - 1)) == -1) {
			fflush(f->out);
			log_warn("readlink: %s", path);
			return -1;
		}
		lbuf[n] = '\0';
		o->target = xstrdup(lbuf);
	}
	return 0;
}

/*
 * -A printed a line while o was the object on disk: a download, a type
 * change, a metadata repair or a removal of o, or a transcript entry
 * missing on disk just before o.  If o is the first name of an inode
 * with other names, the h lines of those names are then printed too
 * (compare), as Radmind's fsdiff does: lapply replaces a downloaded
 * file by a new inode, and relinking the other names keeps them on it.
 */
static void
hl_touch(struct fsd *f, const struct fsobj *o)
{
	struct hlent	*e;

	if (f->mode != MODE_APPLICABLE || o->type == 'd' || o->type == 'h' ||
	    o->st.st_nlink <= 1)
		return;
	if ((e = hl_find(f, &o->st)) != NULL)
		e->changed = 1;
}

/* Was a line printed for the first name of h object o (hl_touch)? */
static int
hl_changed(struct fsd *f, const struct fsobj *o)
{
	struct hlent	*e;

	return (e = hl_find(f, &o->st)) != NULL && e->changed;
}

/* Digest a regular file into o->cksum.  Returns 0 or -1 (printed). */
static int
fsobj_cksum(struct fsd *f, struct fsobj *o)
{
	struct stat	st;
	int		fd;
	int64_t		size;

	if (o->have_cksum || f->ck == NULL)
		return 0;
	/*
	 * The file scanned, not what was put in its place since: a FIFO
	 * there must not make fsdiff wait, nor a device be read.
	 */
	if ((fd = open(o->path, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC)) == -1 || fstat(fd, &st) == -1) {
		fflush(f->out);
		log_warn("%s", o->path);
		if (fd != -1)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode) || st.st_dev != o->st.st_dev ||
	    st.st_ino != o->st.st_ino) {
		fflush(f->out);
		log_warnx("%s: changed while being read", o->path);
		close(fd);
		return -1;
	}
	if (cksum_fd(f->ck, fd, o->cksum, &size) == -1) {
		fflush(f->out);
		log_warn("%s", o->path);
		close(fd);
		return -1;
	}
	close(fd);
	o->have_cksum = 1;
	return 0;
}

/* Convert an fs object to a transcript line (borrowing its strings). */
static void
fsobj_tline(const struct fsobj *o, struct tline *t, int want_cksum)
{
	memset(t, 0, sizeof(*t));
	t->type = o->type;
	t->path = o->path;
	t->target = o->target;
	t->mode = (uint32_t)(o->st.st_mode & 07777);
	t->uid = (uint32_t)o->st.st_uid;
	t->gid = (uint32_t)o->st.st_gid;
	t->mtime = (int64_t)o->st.st_mtime;
	t->size = (int64_t)o->st.st_size;
	t->major = (uint32_t)major(o->st.st_rdev);
	t->minor = (uint32_t)minor(o->st.st_rdev);
	strlcpy(t->cksum, want_cksum && o->have_cksum ? o->cksum : "-",
	    sizeof(t->cksum));
}

static void
print_fs(struct fsd *f, struct fsobj *o, int minus, int want_cksum)
{
	struct tline	t;

	if (want_cksum && o->type == 'f' && fsobj_cksum(f, o) == -1) {
		f->failed = 1;
		return;
	}
	fsobj_tline(o, &t, want_cksum);
	t.minus = minus;
	if (tline_format(f->line, &t, 1) == -1)
		fatalx("%s: line too long", o->path);
	emit(f);
}

static void
header(struct fsd *f, int idx)
{
	const char	*name = f->ti[idx].name;

	if (f->lasthdr != NULL && strcmp(f->lasthdr, name) == 0)
		return;
	free(f->lasthdr);
	f->lasthdr = xstrdup(name);
	if (buf_printf(f->line, "%s:\n", name) == -1)
		fatalx("header too long");
	emit(f);
}

static void
print_tran(struct fsd *f, const struct tline *t, int plus, int minus)
{
	struct tline	c = *t;

	c.plus = plus;
	c.minus = minus;
	if (tline_format(f->line, &c, 1) == -1)
		fatalx("%s: line too long", t->path);
	emit(f);
}

/* An object listed in a transcript but absent from disk. */
static void
tran_only(struct fsd *f, const struct tline *t, int idx)
{
	if (f->mode == MODE_APPLICABLE) {
		header(f, idx);
		print_tran(f, t, t->type == 'f' || t->type == 'a', 0);
	} else
		print_tran(f, t, 0, 1);
}

static int
excluded(struct fsd *f, const char *path)
{
	size_t	i;

	if (f->cs == NULL)
		return 0;
	for (i = 0; i < f->cs->nexclude; i++)
		if (wildcard(f->cs->exclude[i], path, f->icase))
			return 1;
	return 0;
}

static void
warn_excluded(struct fsd *f, const char *path)
{
	if (!f->wflag)
		return;
	/* on standard output, as Radmind: never into the -o transcript */
	printf("#! Warning: excluding %s\n", path);
}

/*
 * Is path one of the roots or inside one?  The roots are sorted and none
 * lies inside another, so only the last root ordered at or before path
 * can hold it (a subtree is contiguous in transcript order).
 */
static int
in_root(struct fsd *f, const char *path)
{
	const char	*r;
	size_t		 lo = 0, hi = f->nroots, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (pathcmp(f->roots[mid].path, path, f->icase) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	r = f->roots[lo - 1].path;
	return pathcmp(path, r, f->icase) == 0 ||
	    ischildcase(path, r, f->icase);
}

/* tmerge skip callback: excludes hide transcript entries. */
static int
skip_entry(const char *path, void *arg)
{
	struct fsd	*f = arg;

	if (!in_root(f, path))
		return 0;	/* dropped by tpeek without a warning */
	if (excluded(f, path)) {
		warn_excluded(f, path);
		return 1;
	}
	return 0;
}

/*
 * Next winning transcript entry inside the root, skipping winning minus
 * lines (a path hidden from everything below).  NULL at the end.
 */
static const struct tline *
tpeek(struct fsd *f, int *idx)
{
	const struct tline	*t;
	int			 rc;

	if (f->tm == NULL)
		return NULL;
	for (;;) {
		if ((rc = tmerge_peek(f->tm, &t, idx, &f->err)) == -1)
			fatal_err(f);
		if (rc == 0)
			return NULL;
		if (!t->minus && in_root(f, t->path))
			return t;
		tmerge_next(f->tm, &t, idx, &f->err);
	}
}

static void
tconsume(struct fsd *f)
{
	const struct tline	*t;
	int			 idx;

	if (tmerge_next(f->tm, &t, &idx, &f->err) == -1)
		fatal_err(f);
}

/*
 * Report every transcript entry ordered before path (missing on disk).
 * Returns how many were reported.
 */
static int
flush_before(struct fsd *f, const char *path)
{
	const struct tline	*t;
	int			 idx, n = 0;

	while ((t = tpeek(f, &idx)) != NULL &&
	    (path == NULL || pathcmp(t->path, path, f->icase) < 0)) {
		tran_only(f, t, idx);
		tconsume(f);
		n++;
	}
	return n;
}

static void	visit(struct fsd *, const char *, const struct stat *, int,
		    int, int);

/* A directory entry with its lstat data, for sorting siblings. */
struct dent {
	char		*path;
	struct stat	 st;
	const char	*name;
};

static int
dent_cmp(const void *a, const void *b)
{
	const struct dent	*x = a, *y = b;

	return strcmp(x->name, y->name);
}

/*
 * -I: names equal but for case keep Radmind's observed order: a directory
 * (and so its subtree) before the other objects of that name.
 */
static int
dent_casecmp(const void *a, const void *b)
{
	const struct dent	*x = a, *y = b;
	int			 c, xd, yd;

	if ((c = strcasecmp(x->name, y->name)) != 0)
		return c;
	xd = S_ISDIR(x->st.st_mode);
	yd = S_ISDIR(y->st.st_mode);
	if (xd != yd)
		return yd - xd;
	return strcmp(x->name, y->name);
}

/*
 * Walk the directory dir on disk; deleting: everything goes, no excludes.
 * start and finish: the progress share of dir's contents.
 */
static void
walk_dir(struct fsd *f, const char *dir, int deleting, int start, int finish)
{
	DIR		*dp;
	struct dirent	*de;
	struct dent	*ents = NULL;
	size_t		 n = 0, i, plen;
	double		 chunk, pos = start;

	if ((dp = opendir(dir)) == NULL) {
		fflush(f->out);
		fatal("opendir: %s", dir);
	}
	plen = strcmp(dir, "/") == 0 ? 1 : strlen(dir) + 1;
	while ((errno = 0, de = readdir(dp)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		ents = xreallocarray(ents, n + 1, sizeof(*ents));
		if (strcmp(dir, "/") == 0)
			xasprintf(&ents[n].path, "/%s", de->d_name);
		else
			xasprintf(&ents[n].path, "%s/%s", dir, de->d_name);
		ents[n].name = ents[n].path + plen;
		if (lstat(ents[n].path, &ents[n].st) == -1) {
			fflush(f->out);
			fatal("%s", ents[n].path);
		}
		n++;
	}
	if (errno != 0) {
		fflush(f->out);
		fatal("readdir: %s", dir);
	}
	closedir(dp);
	if (n > 1)
		qsort(ents, n, sizeof(*ents),
		    f->icase ? dent_casecmp : dent_cmp);
	chunk = n > 0 ? (finish - start) / (double)n : 0;
	for (i = 0; i < n; i++) {
		visit(f, ents[i].path, &ents[i].st, deleting, (int)pos,
		    (int)(pos + chunk));
		pos += chunk;
		free(ents[i].path);
	}
	free(ents);
}

/*
 * Negative directory: its contents are not walked; only children that
 * transcripts list are examined.
 */
static void
walk_negative(struct fsd *f, const char *dir, int start, int finish)
{
	const struct tline	*t;
	struct stat		 st;
	char			*path;
	int			 idx;

	while ((t = tpeek(f, &idx)) != NULL &&
	    ischildcase(t->path, dir, f->icase)) {
		if (lstat(t->path, &st) == -1) {
			if (errno != ENOENT && errno != ENOTDIR) {
				fflush(f->out);
				fatal("%s", t->path);
			}
			tran_only(f, t, idx);
			tconsume(f);
			continue;
		}
		path = xstrdup(t->path);
		visit(f, path, &st, 0, start, finish);
		free(path);
	}
}

/* Are two objects of the same type different in what the rules compare? */
static int
owner_mode_differ(const struct fsobj *o, const struct tline *t)
{
	return (uint32_t)o->st.st_uid != t->uid ||
	    (uint32_t)o->st.st_gid != t->gid ||
	    (uint32_t)(o->st.st_mode & 07777) != t->mode;
}

static int
dev_differ(const struct fsobj *o, const struct tline *t)
{
	return (uint32_t)major(o->st.st_rdev) != t->major ||
	    (uint32_t)minor(o->st.st_rdev) != t->minor;
}

#define DIFF_NONE	0
#define DIFF_META	1	/* metadata only */
#define DIFF_CONTENT	2	/* file must be downloaded / replaced */

static int
compare(struct fsd *f, struct fsobj *o, const struct tline *t, int neg)
{
	switch (t->type) {
	case 'f':
	case 'a':
		if (neg)
			return owner_mode_differ(o, t) ? DIFF_META : DIFF_NONE;
		if ((int64_t)o->st.st_size != t->size)
			return DIFF_CONTENT;
		if (f->ck != NULL) {
			if (fsobj_cksum(f, o) == -1)
				log_exit(EXIT_ERROR);
			if (strcmp(o->cksum, t->cksum) != 0)
				return DIFF_CONTENT;
			if (!f->tflag && (int64_t)o->st.st_mtime != t->mtime)
				return DIFF_META;
		} else if (!f->tflag && (int64_t)o->st.st_mtime != t->mtime)
			return DIFF_CONTENT;
		return owner_mode_differ(o, t) ? DIFF_META : DIFF_NONE;
	case 'd':
	case 'p':
	case 's':
	case 'D':
		return owner_mode_differ(o, t) ? DIFF_META : DIFF_NONE;
	case 'l':
		if (neg)
			return DIFF_NONE;
		return strcmp(o->target, t->target) != 0 ? DIFF_META :
		    DIFF_NONE;
	case 'h':
		/* Same target, but the target got a line: relink. */
		return strcmp(o->target, t->target) != 0 ||
		    hl_changed(f, o) ? DIFF_META : DIFF_NONE;
	case 'b':
		return owner_mode_differ(o, t) || dev_differ(o, t) ?
		    DIFF_META : DIFF_NONE;
	case 'c':
		if (neg)
			return dev_differ(o, t) ? DIFF_META : DIFF_NONE;
		return owner_mode_differ(o, t) || dev_differ(o, t) ?
		    DIFF_META : DIFF_NONE;
	}
	return DIFF_NONE;
}

/* Print the line for a negative-transcript fix (-A). */
static void
print_negfix(struct fsd *f, struct fsobj *o, const struct tline *t, int idx)
{
	struct tline	c = *t;

	header(f, idx);
	if (t->type == 'f' || t->type == 'a') {
		c.mtime = (int64_t)o->st.st_mtime;
		c.size = (int64_t)o->st.st_size;
		if (f->ck != NULL && fsobj_cksum(f, o) == 0)
			strlcpy(c.cksum, o->cksum, sizeof(c.cksum));
	}
	print_tran(f, &c, 0, 0);
}

/*
 * Handle one object on disk: report the transcript entries ordered
 * before it, compare it with its own entry, and descend if needed.
 */
static void
visit(struct fsd *f, const char *path, const struct stat *st, int deleting,
    int start, int finish)
{
	const struct tline	*t;
	struct tline		 tc;
	struct fsobj		 o;
	int			 idx = -1, neg = 0, diff, descend = 0, before;
	int			 applicable = f->mode == MODE_APPLICABLE;

	progress(f, path, start, finish);
	if (!deleting && excluded(f, path)) {
		warn_excluded(f, path);
		/* transcripts skip their excluded entries now, as Radmind's do */
		(void)tpeek(f, &idx);
		return;
	}
	before = flush_before(f, path);
	if (fsobj_init(f, &o, path, st, 1) == -1)
		log_exit(EXIT_ERROR);
	if (before > 0)
		hl_touch(f, &o);	/* as Radmind: o was its object on disk */
	memset(&tc, 0, sizeof(tc));
	if (!deleting && (t = tpeek(f, &idx)) != NULL &&
	    pathcmp(t->path, path, f->icase) == 0) {
		tline_copy(&tc, t);
		tconsume(f);
		neg = f->ti[idx].kind == 'n';
	} else
		idx = -1;

	if (idx == -1) {
		/* on disk, in no transcript */
		if (applicable) {
			print_fs(f, &o, 1, 0);
			hl_touch(f, &o);
			deleting = 1;
		} else
			print_fs(f, &o, 0, f->ck != NULL);
		descend = o.type == 'd';
	} else if (o.type != tc.type) {
		if (applicable) {
			header(f, idx);
			print_tran(f, &tc, tc.type == 'f' || tc.type == 'a', 0);
			hl_touch(f, &o);
			deleting = o.type == 'd';
		} else
			print_fs(f, &o, 0, f->ck != NULL);
		descend = o.type == 'd';
	} else {
		diff = compare(f, &o, &tc, neg);
		if (diff != DIFF_NONE) {
			if (!applicable)
				print_fs(f, &o, 0, f->ck != NULL);
			else if (neg)
				print_negfix(f, &o, &tc, idx);
			else if (diff == DIFF_CONTENT) {
				header(f, idx);
				print_tran(f, &tc, 1, 0);
			} else
				print_tran(f, &tc, 0, 0);
			hl_touch(f, &o);
		}
		if (o.type == 'd') {
			if (neg)
				walk_negative(f, path, start, finish);
			else
				descend = 1;
		}
	}
	if (descend)
		walk_dir(f, path, deleting, start, finish);
	tline_clear(&tc);
	fsobj_clear(&o);
}

/* Canonical root per docs/formats.md section 3. */
static char *
canon_root(const char *arg)
{
	char	*r;
	size_t	 len;

	if (arg[0] == '/' || strcmp(arg, ".") == 0 ||
	    strncmp(arg, "./", 2) == 0)
		r = xstrdup(arg);
	else
		xasprintf(&r, "./%s", arg);
	len = strlen(r);
	while (len > 1 && r[len - 1] == '/')
		r[--len] = '\0';
	return r;
}

/*
 * With several paths, overlaps are found by comparing the paths as
 * strings, so each must name its object one way only: no empty, "." or
 * ".." component (a relative path's leading "." aside).
 */
static int
plain_path(const char *p)
{
	const char	*e;
	size_t		 n;

	if (p[0] == '/')
		p++;
	else if (p[0] == '.' && (p[1] == '/' || p[1] == '\0'))
		p += p[1] == '/' ? 2 : 1;
	if (*p == '\0')
		return 1;
	for (;;) {
		e = strchr(p, '/');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		if (n == 0 || (n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (e == NULL)
			return 1;
		p = e + 1;
	}
}

static int	roots_icase;	/* for root_cmp, which qsort gives no argument */

static int
root_cmp(const void *a, const void *b)
{
	const struct root	*x = a, *y = b;
	int			 c;

	if ((c = pathcmp(x->path, y->path, roots_icase)) != 0)
		return c;
	return strcmp(x->path, y->path);	/* -I: one order for any input */
}

/*
 * Canonicalize the paths given, which must share one style (a transcript
 * is all relative or all absolute), and sort them in transcript order,
 * so that walking them one after the other writes one sorted transcript.
 * Duplicates are dropped, and with nest so is a path inside another
 * given path: that path's walk lists its objects already.  Under -I
 * paths equal but for case are one path, as they are in transcripts.
 * Every object of a kept root then sorts after those of the roots before
 * it (a subtree is contiguous in transcript order), which in_root relies on.
 */
static void
setup_roots(struct fsd *f, int argc, char *argv[], int nest)
{
	struct root	*r;
	size_t		 i, n, na = (size_t)argc;

	r = xcalloc(na, sizeof(*r));
	for (i = 0; i < na; i++) {
		r[i].path = canon_root(argv[i]);
		if (na > 1 && !plain_path(r[i].path)) {
			log_warnx("%s: with several paths, a path may not "
			    "have empty, . or .. components", argv[i]);
			usage();
		}
		if (path_style(r[i].path) != path_style(r[0].path)) {
			log_warnx("%s, %s: paths must be all relative or "
			    "all absolute", argv[0], argv[i]);
			usage();
		}
	}
	f->style = path_style(r[0].path);
	roots_icase = f->icase;
	qsort(r, na, sizeof(*r), root_cmp);
	for (i = n = 0; i < na; i++) {
		if (n > 0 && (pathcmp(r[i].path, r[n - 1].path,
		    f->icase) == 0 || (nest &&
		    ischildcase(r[i].path, r[n - 1].path, f->icase)))) {
			free(r[i].path);
			continue;
		}
		r[n++] = r[i];
	}
	f->roots = r;
	f->nroots = n;
}

/* Progress share of root i: the roots split 0..100 evenly. */
static int
root_share(struct fsd *f, size_t i)
{
	if (!f->progress)
		return 0;
	return (int)(i * 100 / f->nroots);
}

/* Load the command file and open the transcripts in precedence order. */
static void
load_transcripts(struct fsd *f, const char *kfile)
{
	struct treader	*r;
	char		*path;
	size_t		 i;
	int		 flags;

	if (cmdset_load(kfile, NULL, CMD_MINUS | CMD_NOMINUSK, &f->cs,
	    &f->err) == -1)
		fatal_err(f);
	f->tm = tmerge_new(f->icase, f->style);
	tmerge_setskip(f->tm, skip_entry, f);
	f->ti = xcalloc(f->cs->ntran + 1, sizeof(*f->ti));
	for (i = 0; i < f->cs->ntran; i++) {
		xasprintf(&path, "%s%s", f->cs->kdir, f->cs->tran[i].name);
		flags = TR_ONESTYLE | (f->icase ? TR_ICASE : 0);
		if (f->ck != NULL && f->cs->tran[i].type == 'p')
			flags |= TR_CKSUM;
		if ((r = treader_open(path, path, flags, &f->err)) == NULL)
			fatal_err(f);
		free(path);
		f->ti[f->nti].name = f->cs->tran[i].name;
		f->ti[f->nti].kind = f->cs->tran[i].type;
		tmerge_add(f->tm, r, NULL, 0);
		f->nti++;
	}
	if (f->cs->nspecial > 0) {
		xasprintf(&path, "%sspecial.T", f->cs->kdir);
		flags = TR_ONESTYLE | (f->icase ? TR_ICASE : 0) |
		    (f->ck != NULL ? TR_CKSUM : 0);
		if ((r = treader_open(path, path, flags, &f->err)) == NULL)
			fatal_err(f);
		free(path);
		f->ti[f->nti].name = "special.T";
		f->ti[f->nti].kind = 's';
		tmerge_add(f->tm, r, NULL, 1);
		f->nti++;
	}
}

/*
 * -1: one creatable line for path (or each stdin path with "-").  With
 * several paths (sorted, duplicates dropped) one line each; a later path
 * to an inode already printed is an h line, as in stdin mode.
 */
static int
single(struct fsd *f, int argc, char *argv[], const char *kfile)
{
	struct stat	 st;
	struct fsobj	 o;
	char		*line = NULL, *path;
	size_t		 cap = 0, i;
	ssize_t		 n;
	unsigned	 lineno = 0;
	int		 rc = EXIT_OK;

	if (argc > 1 || strcmp(argv[0], "-") != 0) {
		for (i = 0; i < (size_t)argc; i++)
			if (strcmp(argv[i], "-") == 0)
				usage();	/* stdin mode takes no paths */
		setup_roots(f, argc, argv, 0);
		for (i = 0; i < f->nroots; i++) {
			path = f->roots[i].path;
			progress(f, path, root_share(f, i),
			    root_share(f, i + 1));
			if (lstat(path, &st) == -1) {
				fflush(f->out);
				log_warn("%s", path);
				rc = EXIT_ERROR;
				continue;
			}
			if (fsobj_init(f, &o, path, &st, f->nroots > 1) == -1)
				rc = EXIT_ERROR;
			else
				print_fs(f, &o, 0, f->ck != NULL);
			fsobj_clear(&o);
		}
		return f->failed ? EXIT_ERROR : rc;
	}
	if (cmdset_load(kfile, NULL, CMD_MINUS | CMD_NOMINUSK, &f->cs,
	    &f->err) == -1)
		fatal_err(f);
	while ((n = getline(&line, &cap, stdin)) != -1) {
		lineno++;
		if (n > 0 && line[n - 1] == '\n')
			line[--n] = '\0';
		if ((size_t)n != strlen(line)) {
			/* a NUL would silently name another object */
			fflush(f->out);
			log_warnx("(stdin): line %u: NUL byte in line", lineno);
			rc = EXIT_ERROR;
			continue;
		}
		if (n == 0)
			continue;
		path = canon_root(line);
		if (excluded(f, path)) {
			warn_excluded(f, path);
			free(path);
			continue;
		}
		if (lstat(path, &st) == -1) {
			fflush(f->out);
			log_warn("Warning: %s", path);
			free(path);
			continue;
		}
		if (fsobj_init(f, &o, path, &st, 1) == -1)
			rc = EXIT_ERROR;
		else
			print_fs(f, &o, 0, f->ck != NULL);
		fsobj_clear(&o);
		free(path);
	}
	free(line);
	return f->failed ? EXIT_ERROR : rc;
}

/* fsdiff's own options; -c, -I and -V are the shared ones (copts.h). */
struct fsdopts {
	struct fsd	*f;
	const char	*kfile, *outfile;
	int		 nmodes;
};

static int
fsdiff_opt(int ch, const char *arg, void *ctx)
{
	struct fsdopts	*fo = ctx;
	struct fsd	*f = fo->f;

	switch (ch) {
	case '%':
	case 'v':
		f->progress = 1;
		break;
	case '1':
		f->mode = MODE_SINGLE;
		fo->nmodes++;
		break;
	case 'A':
		f->mode = MODE_APPLICABLE;
		fo->nmodes++;
		break;
	case 'C':
		f->mode = MODE_CREATABLE;
		fo->nmodes++;
		break;
	case 'K':
		fo->kfile = arg;
		break;
	case 'o':
		fo->outfile = arg;
		break;
	case 't':
		f->tflag = 1;
		break;
	case 'W':
		f->wflag = 1;
		break;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct fsd	 f;
	struct fsdopts	 fo;
	struct copts	 co;
	struct fs_out	 out;
	const char	*kfile, *outfile;
	size_t		 i;
	int		 rc, missing = 0;

	memset(&f, 0, sizeof(f));
	f.mode = MODE_CREATABLE;
	log_init("fsdiff", LOG_TO_STDERR, 0);
	log_setfatalstatus(EXIT_ERROR);
	f.lastpct = -1;

	memset(&fo, 0, sizeof(fo));
	fo.f = &f;
	fo.kfile = DEFAULT_KFILE;
	copts_init(&co, COPTS_DIGEST | COPTS_ICASE, NULL);
	if (copts_parse(argc, argv, &co, "%1ACK:o:tvW", fsdiff_opt, &fo) ==
	    -1)
		usage();
	f.icase = co.icase;
	argc -= optind;
	argv += optind;
	kfile = fo.kfile;
	outfile = fo.outfile;
	if (fo.nmodes > 1 || argc < 1 || (f.progress && outfile == NULL))
		usage();
	if (kfile[0] == '\0' || kfile[strlen(kfile) - 1] == '/')
		usage();
	/* Interrupted, it leaves no temporary file (common/intr.h). */
	if (intr_init() == -1)
		fatal("signals");
	if ((f.digest = co.digest) != NULL)
		f.ck = cksum_new(f.digest);
	/* -o: the file is replaced only by a run that succeeds. */
	f.out = stdout;
	if (outfile != NULL) {
		if (fs_out_open(&out, outfile) == -1)
			fatal("%s", out.name);
		f.out = out.fp;
	}
	f.line = buf_new(TRAN_MAXLINE * 2);

	if (f.mode == MODE_SINGLE) {
		rc = single(&f, argc, argv, kfile);
		if (f.progress)
			printf("%%100\n");
		goto done;
	}

	setup_roots(&f, argc, argv, 1);
	load_transcripts(&f, kfile);
	if (f.mode == MODE_APPLICABLE && f.nti == 0)
		fatalx("-A option requires a non-NULL transcript");
	/* every path is checked before any output: a typo costs no walk */
	for (i = 0; i < f.nroots; i++)
		if (lstat(f.roots[i].path, &f.roots[i].st) == -1) {
			log_warn("%s", f.roots[i].path);
			missing = 1;
		}
	if (missing)
		log_exit(EXIT_ERROR);
	/*
	 * In transcript order, each root after the last object of the one
	 * before; visit() first reports the transcript entries still due
	 * before it, so the output streams as for one path.
	 */
	for (i = 0; i < f.nroots; i++)
		visit(&f, f.roots[i].path, &f.roots[i].st, 0,
		    root_share(&f, i), root_share(&f, i + 1));
	flush_before(&f, NULL);
	if (f.progress)
		printf("%%100\n");
	rc = f.failed ? EXIT_ERROR : EXIT_OK;
done:
	if (outfile == NULL) {
		if (fflush(stdout) == EOF) {
			log_warn("stdout");
			rc = EXIT_ERROR;
		}
	} else if (rc != EXIT_OK)
		fs_out_abort(&out);
	else if (fs_out_commit(&out) == -1) {
		log_warn("%s", out.name);
		rc = EXIT_ERROR;
	}
	exit(rc);
}
