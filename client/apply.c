/*
 * apply.c: the receive side, applying an applicable transcript (fsdiff
 * -A output) to the file system and downloading its "+" files (lapply(1)
 * is this plus its options).
 *
 * The whole transcript is read and checked first (syntax, sort order,
 * headers, confinement of every path), so a bad transcript changes
 * nothing.  Then lines are applied in file order: removals and type
 * changes first for each path (directories are removed deepest first,
 * never recursively), then creation, download or metadata repair, as
 * apply-plan.c decides for each line from what is at its path.
 * Every file-system access goes through apply-fs.c, relative to held
 * directory descriptors below the apply root; downloads go through
 * apply-retr.c (the request window) and download.c, or with -j through
 * apply-jobs.c (several sessions), durability through apply-sync.c.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#ifdef HAVE_SYS_SYSMACROS_H
#include <sys/sysmacros.h>
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "apply.h"
#include "apply-plan.h"
#include "cerr.h"
#include "cksum.h"
#include "compat.h"
#include "download.h"
#include "fsutil.h"
#include "intr.h"
#include "log.h"
#include "net.h"
#include "path.h"
#include "pathcmp.h"
#include "reqwin.h"
#include "transcript.h"
#include "xmalloc.h"

#define IOBUFSZ		(256 * 1024)
#define NOLINE		((size_t)-1)

/* A directory waiting to be removed once the input leaves it. */
struct apply_pending {
	char	*path;
	unsigned lineno;
	size_t	 doline;	/* entry to apply after the rmdir, or NOLINE */
};

static void	 apply_free(struct apply *);

/*
 * The hold hook of the messages: a stdout message waits its turn behind
 * the work that comes before it.  A line run ahead of the downloads (-j)
 * keeps it for its turn; otherwise it follows the messages of the
 * downloads still in the batch.  1 if taken.
 */
static int
apply_hold(void *arg, const char *fmt, va_list va)
{
	struct apply	*ap = arg;
	va_list		 va2;
	char		*msg;
	int		 held;

	va_copy(va2, va);
	held = jobq_ahead_say(ap, fmt, va2);
	va_end(va2);
	if (held)
		return 1;
	if (!syncq_pending(ap))
		return 0;
	if (vasprintf(&msg, fmt, va) == -1)
		fatal("vasprintf");
	(void)syncq_msg(ap, msg);	/* failure sticks */
	return 1;
}

/*
 * The turn hook, before an error or warning.  Downloads queued on other
 * sessions (-j) were requested before this line ran: if one of them
 * failed, one session would have stopped there, before this message
 * (the caller stops too): -1, say nothing.  Pending downloads come
 * first, with their messages.
 */
static int
apply_turn(void *arg)
{
	struct apply	*ap = arg;

	if (jobq_inorder(ap) == -1)
		return -1;
	if (syncq_pending(ap))
		(void)syncq_flush(ap);
	return 0;
}

/* The messages of the run: its options, its status line, the hooks. */
static void
apply_msginit(struct apply *ap)
{
	ap->msg.quiet = ap->quiet;
	ap->msg.name = ap->name;
	ap->msg.prog = &ap->prog;
	ap->msg.hold = apply_hold;
	ap->msg.turn = apply_turn;
	ap->msg.arg = ap;
}

/* What apply_load keeps while it reads. */
struct apply_loader {
	struct treader	*r;
	const char	*tname;		/* header in force, or NULL */
	int		 special;	/* ... and it is special.T */
	int		 styled;	/* ap->style set by the first object */
	const char	**anc;		/* ancestors of the current path */
	int		*ancdir;	/* ... that are directories */
	size_t		 nanc;
	size_t		 cap;		/* of ap->ent, anc and ancdir */
};

/* Room for one more entry; returns it, zeroed. */
static struct apply_entry *
load_slot(struct apply *ap, struct apply_loader *ld)
{
	struct apply_entry	*e;

	if (ap->nent == ld->cap) {
		ld->cap = ld->cap ? ld->cap * 2 : 256;
		ap->ent = xreallocarray(ap->ent, ld->cap, sizeof(*ap->ent));
		ld->anc = xreallocarray(ld->anc, ld->cap, sizeof(*ld->anc));
		ld->ancdir = xreallocarray(ld->ancdir, ld->cap,
		    sizeof(*ld->ancdir));
	}
	e = &ap->ent[ap->nent];
	memset(e, 0, sizeof(*e));
	return e;
}

/*
 * Add n (not negative) to the total *v, which stops at INT64_MAX: the
 * sizes of a transcript's lines may add up to more.
 */
static void
total_add(int64_t *v, int64_t n)
{
	*v = n > INT64_MAX - *v ? INT64_MAX : *v + n;
}

/*
 * A "+" line: it must follow a header and, with a network, be a file
 * that can be downloaded (with -c, one with a checksum).  Adds its size
 * to the weight and, with a network, counts the download.  Returns 0,
 * or -1 after printing why.
 */
static int
load_download(struct apply *ap, struct apply_loader *ld,
    const struct tline *t, struct progtotal *total)
{
	if (ld->tname == NULL) {
		amsg_warn(&ap->msg, "line %u: no transcript indicated",
		    t->lineno);
		return -1;
	}
	if (ap->network && t->type != 'f' && t->type != 'a') {
		amsg_warn(&ap->msg, "line %u: \"%c\" invalid download type",
		    t->lineno, t->type);
		return -1;
	}
	total_add(&total->weight, t->size);
	if (ap->network) {
		total->files++;
		total_add(&total->bytes, t->size);
	}
	if (ap->network && ap->digest != NULL && strcmp(t->cksum, "-") == 0) {
		amsg_warn(&ap->msg, "line %u: No checksum", t->lineno);
		if (ld->special)
			amsg_warn(&ap->msg, "SPECIAL %s", t->epath);
		else
			amsg_warn(&ap->msg, "FILE %s %s", ld->tname, t->epath);
		return -1;
	}
	return 0;
}

/*
 * Whether a component of path has the form of a temp name of this
 * process (download.h): the object of such a line could take the place
 * of a temp file of this run, or be removed by it as a stale one of
 * ours.  Another process's temp name (a killed run's leftover) is a
 * name like any other.
 */
static const char *
load_owntemp(const char *path)
{
	const char	*p;
	size_t		 n;

	for (p = path;; p += n + 1) {
		n = strcspn(p, "/");
		if (dl_isowntemp(p, n))
			return "name of a temporary file of this run";
		if (p[n] == '\0')
			return NULL;
	}
}

/*
 * Confinement: one path style for the whole transcript, no way out of
 * the apply root, none through a temp name of this run, the root itself
 * only a directory, a real owner.  Returns 0, or -1 after printing why.
 */
static int
load_confine(struct apply *ap, struct apply_loader *ld,
    const struct tline *t)
{
	const char	*why;

	if (!ld->styled) {
		ap->style = path_style(t->path);
		ld->styled = 1;
	}
	if ((why = afs_checkpath(t->path, ap->style)) != NULL ||
	    (why = load_owntemp(t->path)) != NULL) {
		amsg_warn(&ap->msg, "line %u: %s: %s", t->lineno, t->path, why);
		return -1;
	}
	if (t->type == 'h' &&
	    ((why = afs_checkpath(t->target, ap->style)) != NULL ||
	    (why = load_owntemp(t->target)) != NULL ||
	    (why = afs_isroot(t->target) ?
	    "link to the apply root" : NULL) != NULL)) {
		amsg_warn(&ap->msg, "line %u: %s: hard link target %s: %s",
		    t->lineno, t->path, t->target, why);
		return -1;
	}
	if (afs_isroot(t->path) && (t->type != 'd' || t->minus)) {
		amsg_warn(&ap->msg, "line %u: %s: the apply root can only be a "
		    "directory", t->lineno, t->path);
		return -1;
	}
	if (t->type != 'h' && (t->uid == UINT32_MAX || t->gid == UINT32_MAX)) {
		amsg_warn(&ap->msg, "line %u: %s: invalid owner %s", t->lineno,
		    t->path, t->uid == UINT32_MAX ? "uid" : "gid");
		return -1;
	}
	return 0;
}

/*
 * Order, and what may appear below a non-directory: only removals.
 * Returns 0, or -1 after printing why.
 */
static int
load_nest(struct apply *ap, struct apply_loader *ld, const struct tline *t)
{
	struct cerr	err;

	if (treader_order(ld->r, &err) == -1) {
		amsg_warn(&ap->msg, "%s", err.msg);
		return -1;
	}
	while (ld->nanc > 0 && !ischildcase(t->path, ld->anc[ld->nanc - 1],
	    ap->icase))
		ld->nanc--;
	if (ld->nanc > 0 && !ld->ancdir[ld->nanc - 1] && !t->minus) {
		amsg_warn(&ap->msg, "line %u: %s: %s is not a directory in "
		    "this transcript", t->lineno, t->path,
		    ld->anc[ld->nanc - 1]);
		return -1;
	}
	return 0;
}

/*
 * Check one object line and keep it as the next entry.  Returns 0, or -1
 * after printing why.
 */
static int
load_object(struct apply *ap, struct apply_loader *ld,
    const struct tline *t, struct progtotal *total)
{
	struct apply_entry	*e;

	total_add(&total->weight, PROGRESSUNIT);
	if (t->plus && load_download(ap, ld, t, total) == -1)
		return -1;
	if (t->type == 'a' && !t->minus) {
		amsg_warn(&ap->msg, "line %u: %s: applefiles are not "
		    "supported on this system", t->lineno, t->path);
		return -1;
	}
	if (load_confine(ap, ld, t) == -1 || load_nest(ap, ld, t) == -1)
		return -1;
	e = load_slot(ap, ld);
	treader_take(ld->r, &e->t);
	e->tname = ld->tname;
	e->special = ld->special;
	ld->anc[ld->nanc] = e->t.path;
	ld->ancdir[ld->nanc++] = e->t.type == 'd' && !e->t.minus;
	ap->nent++;
	return 0;
}

/* A "name:" header: the transcript of the "+" lines that follow. */
static void
load_header(struct apply *ap, struct apply_loader *ld)
{
	struct apply_entry	*e;

	e = load_slot(ap, ld);
	treader_take(ld->r, &e->t);		/* type 0, name in path */
	ld->tname = e->t.path;
	ld->special = strcmp(ld->tname, "special.T") == 0;
	ap->nent++;
}

/*
 * Read and check the whole applicable transcript through the one
 * transcript reader (framing, syntax; the order is checked here, after
 * the checks that come first).  Fills ap->ent and *total (progress
 * totals).  Returns 0, or -1 after printing the error.
 */
int
apply_load(struct apply *ap, FILE *fp, struct progtotal *total)
{
	struct apply_loader	 ld;
	const struct tline	*t;
	struct cerr		 err;
	int			 rc;

	apply_msginit(ap);
	memset(&ld, 0, sizeof(ld));
	memset(total, 0, sizeof(*total));
	ap->style = PATH_RELATIVE;
	ld.r = treader_fdopen(fp, ap->name, TR_HEADERS | TR_COMMENTS |
	    TR_NOSORT | (ap->icase ? TR_ICASE : 0), 1);
	while ((rc = treader_next(ld.r, &t, &err)) > 0) {
		if (rc == TR_BLANK) {
			if (t->nfields > 1)		/* as Radmind counts */
				total_add(&total->weight,
				    PROGRESSUNIT);
		} else if (rc == TL_HEADER)
			load_header(ap, &ld);
		else if (load_object(ap, &ld, t, total) == -1)
			break;
	}
	if (rc == -1)
		amsg_warn(&ap->msg, "%s", err.msg);
	treader_close(ld.r);
	free(ld.anc);
	free(ld.ancdir);
	return rc == 0 ? 0 : -1;
}

/* A pipe or device of mode and number dev, for dl_maketemp. */
struct mknode {
	mode_t	mode;
	dev_t	dev;
};

static int
make_node(int dfd, const char *name, void *arg)
{
	const struct mknode	*mk = arg;

	return mknodat(dfd, name, mk->mode, mk->dev);
}

/* A symbolic link to arg, for dl_maketemp. */
static int
make_symlink(int dfd, const char *name, void *arg)
{
	return symlinkat(arg, dfd, name);
}

/*
 * Replace the object open as fd at (dfd, leaf) by a copy of it that has
 * the declared metadata: t's owner, mode and (regular files) mtime; the
 * content is copied from fd and must have t's size (and, with -c and a
 * checksum, t's checksum).  The copy is made under a temp name, made
 * durable and renamed over leaf, so the old inode, and every other name
 * it has, is left as it was.  Used when the object has names outside
 * its directory: changing it in place would change them too.  Returns 0
 * or -1 (message printed).
 */
static int
replace_copy(struct apply *ap, const struct tline *t, int dfd,
    const char *leaf, int fd, const struct stat *now)
{
	struct mknode	 mk;
	char		*tmp = NULL, sum[CKSUM_B64MAX];
	const char	*op = "create";
	int64_t		 got = 0;
	ssize_t		 n;
	int		 nfd = -1, verify;

	switch (t->type) {
	case 'f':
		verify = ap->ck != NULL && strcmp(t->cksum, "-") != 0;
		if ((nfd = dl_opentemp(dfd, leaf, t->lineno, 0600,
		    &tmp)) == -1)
			goto syserr;
		if (verify)
			cksum_reset(ap->ck);
		while ((n = pread(fd, ap->iobuf, ap->iobufsz, got)) != 0) {
			if (n == -1) {
				if (errno == EINTR)
					continue;
				op = "read";
				goto syserr;
			}
			if (verify)
				cksum_update(ap->ck, ap->iobuf, (size_t)n);
			op = "write";
			if (fs_write_all(nfd, ap->iobuf, (size_t)n) == -1)
				goto syserr;
			got += n;
			if (got > t->size)
				break;
		}
		if (got != t->size) {
			amsg_linewarn(&ap->msg, t, "%s: size is not %lld: not "
			    "replacing it", t->path, (long long)t->size);
			goto fail;
		}
		if (verify) {
			cksum_final(ap->ck, sum);
			if (strcmp(sum, t->cksum) != 0) {
				amsg_linewarn(&ap->msg, t, "%s: checksum does "
				    "not match the transcript: not replacing "
				    "it", t->path);
				goto fail;
			}
		}
		op = "set times";
		if (fd_setmtime(nfd, t->mtime) == -1)
			goto syserr;
		break;
	case 'p':
	case 'b':
	case 'c':
		mk.mode = (t->type == 'p' ? S_IFIFO : t->type == 'b' ?
		    S_IFBLK : S_IFCHR) | 0600;
		mk.dev = now->st_rdev;
		op = "mknod";
		if (dl_maketemp(dfd, leaf, t->lineno, make_node, &mk,
		    &tmp) == -1) {
			free(tmp);
			tmp = NULL;
			goto syserr;
		}
		op = "open";
		if ((nfd = openat(dfd, tmp, O_PATH | O_NOFOLLOW |
		    O_CLOEXEC)) == -1)
			goto syserr;
		break;
	default:
		amsg_linewarn(&ap->msg, t, "%s: cannot be replaced by a copy "
		    "on this system", t->path);
		return -1;
	}
	op = "chown";
	if (fd_chown(nfd, (uid_t)t->uid, (gid_t)t->gid) == -1)
		goto syserr;
	op = "chmod";
	if (fd_chmod(nfd, (mode_t)t->mode) == -1)
		goto syserr;
	op = "fsync";
	if (t->type == 'f' && fsync(nfd) == -1)
		goto syserr;
	close(nfd);
	nfd = -1;
	op = "rename";
	if (renameat(dfd, tmp, dfd, leaf) == -1)
		goto syserr;
	dl_tempdone(-1, tmp);
	free(tmp);
	afs_dirty(ap->fs, dfd);
	ap->modified = 1;
	return 0;
syserr:
	amsg_fail(&ap->msg, t, op);
fail:
	if (nfd != -1)
		close(nfd);
	if (tmp != NULL) {
		dl_tempdone(dfd, tmp);
		free(tmp);
	}
	return -1;
}

/*
 * The words of an "updating" message for the differences between now
 * and t, as afs_owner_mode and the mtime step would print them.
 */
static void
meta_words(const struct stat *now, const struct tline *t, char *msg,
    size_t len)
{
	int	owner;

	owner = (uid_t)t->uid != now->st_uid || (gid_t)t->gid != now->st_gid;
	if ((uid_t)t->uid != now->st_uid)
		strlcat(msg, " uid", len);
	if ((gid_t)t->gid != now->st_gid)
		strlcat(msg, " gid", len);
	if (t->mode != (now->st_mode & 07777) ||
	    (owner && (t->mode & (S_ISUID | S_ISGID)) != 0) || t->type == 'p')
		strlcat(msg, " mode", len);
	if (t->type == 'f' && t->mtime != (int64_t)now->st_mtime)
		strlcat(msg, " time", len);
}

/*
 * Open the object at (dfd, leaf) for metadata changes without following
 * a symbolic link, and check it is of type `type` (and, if expect is
 * given, the very object lstat saw).  Regular files and directories are
 * opened for reading; other types only as O_PATH references.
 */
static int
meta_open(struct apply *ap, const struct tline *t, int dfd, const char *leaf,
    const struct stat *expect, struct stat *now)
{
	int	fd, flags;

	if (*leaf == '\0')
		fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0);
	else {
		flags = O_NOFOLLOW | O_CLOEXEC;
		if (t->type == 'f' || t->type == 'd') {
			fd = openat(dfd, leaf, flags | O_RDONLY | O_NONBLOCK |
			    O_NOCTTY | (t->type == 'd' ? O_DIRECTORY : 0));
			if (fd == -1 && errno == EACCES)
				fd = openat(dfd, leaf, flags | O_PATH);
		} else
			fd = openat(dfd, leaf, flags | O_PATH);
	}
	if (fd == -1) {
		amsg_fail(&ap->msg, t, "open");
		return -1;
	}
	if (fstat(fd, now) == -1) {
		amsg_fail(&ap->msg, t, "stat");
		close(fd);
		return -1;
	}
	if (tline_typeof(now->st_mode) != t->type || (expect != NULL &&
	    (now->st_dev != expect->st_dev || now->st_ino !=
	    expect->st_ino))) {
		amsg_linewarn(&ap->msg, t, "%s: changed while being updated",
		    t->path);
		close(fd);
		return -1;
	}
	return fd;
}

/* Resolve the parent of t's path for creating or changing it. */
static int
parent_of(struct apply *ap, const struct tline *t, const char *path,
    int create, int *dfd, const char **leaf)
{
	struct cerr	err;
	int		rc;

	rc = afs_parent(ap->fs, path, create, dfd, leaf, &err);
	if (rc == 1) {
		amsg_linewarn(&ap->msg, t, "%s: parent directory: %s", path,
		    strerror(ENOENT));
		return -1;
	}
	if (rc == -1) {
		amsg_linewarn(&ap->msg, t, "%s", err.msg);
		return -1;
	}
	return 0;
}

/* lstat the path of t, confined.  Returns 0 (see *present) or -1. */
static int
lookup(struct apply *ap, const struct tline *t, int *present,
    struct stat *st)
{
	struct cerr	 err;
	const char	*leaf;
	int		 dfd, rc;

	*present = 0;
	rc = afs_parent(ap->fs, t->path, 0, &dfd, &leaf, &err);
	if (rc == -1) {
		amsg_linewarn(&ap->msg, t, "%s", err.msg);
		return -1;
	}
	if (rc == 1)
		return 0;
	if (*leaf == '\0')
		rc = fstat(dfd, st);
	else
		rc = fstatat(dfd, leaf, st, AT_SYMLINK_NOFOLLOW);
	if (rc == -1) {
		if (errno == ENOENT)
			return 0;
		amsg_fail(&ap->msg, t, "stat");
		return -1;
	}
	if (tline_typeof(st->st_mode) == 0) {
		amsg_warn(&ap->msg, "%s is of an unknown type", t->path);
		return -1;
	}
	*present = 1;
	return 0;
}

/*
 * Before an "h" line links a new name to the target (tdfd, tleaf): if the
 * target has names outside the apply root, it
 * is first replaced by a copy of itself, same content and metadata, so
 * that the new name never joins an inode with names no transcript
 * declares.  Returns 0 or -1 (message printed).
 */
static int
link_target_own(struct apply *ap, const struct tline *t, int tdfd,
    const char *tleaf)
{
	struct tline	 tt;
	struct stat	 st;
	int		 fd, rc, e;

	if (fstatat(tdfd, tleaf, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		e = errno;
		amsg_linewarn(&ap->msg, t, "%s: hard link target %s: stat: %s",
		    t->path, t->target, strerror(e));
		return -1;
	}
	if (S_ISDIR(st.st_mode) || S_ISLNK(st.st_mode) ||
	    afs_names_inside(ap->fs, tdfd, &st))
		return 0;
	memset(&tt, 0, sizeof(tt));
	tt.type = tline_typeof(st.st_mode);
	tt.path = t->target;
	tt.lineno = t->lineno;
	tt.uid = st.st_uid;
	tt.gid = st.st_gid;
	tt.mode = st.st_mode & 07777;
	tt.mtime = st.st_mtime;
	tt.size = st.st_size;
	strlcpy(tt.cksum, "-", sizeof(tt.cksum));
	amsg_linewarn(&ap->msg, t, "%s: %s has %lu links, not all inside the "
	    "root: replacing it with a copy before linking", t->path,
	    t->target, (unsigned long)st.st_nlink);
	fd = openat(tdfd, tleaf, (S_ISREG(st.st_mode) ? O_RDONLY | O_NONBLOCK |
	    O_NOCTTY : O_PATH) | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1) {
		amsg_fail(&ap->msg, &tt, "open");
		return -1;
	}
	rc = replace_copy(ap, &tt, tdfd, tleaf, fd, &st);
	close(fd);
	if (rc == 0 && fsync(tdfd) == -1) {
		amsg_fail(&ap->msg, &tt, "fsync of its directory");
		return -1;
	}
	return rc;
}

/* Link the new name of the "h" line t to its target. */
static int
make_hardlink(struct apply *ap, const struct tline *t)
{
	const char	*leaf, *tleaf;
	int		 dfd, tdfd;

	/* Hold the target's directory while resolving the link's. */
	if (parent_of(ap, t, t->target, 0, &tdfd, &tleaf) == -1)
		return -1;
	if ((tdfd = fcntl(tdfd, F_DUPFD_CLOEXEC, 0)) == -1) {
		amsg_fail(&ap->msg, t, "dup");
		return -1;
	}
	if (link_target_own(ap, t, tdfd, tleaf) == -1) {
		close(tdfd);
		return -1;
	}
	if (parent_of(ap, t, t->path, ap->create_prefix, &dfd,
	    &leaf) == -1) {
		close(tdfd);
		return -1;
	}
	if (linkat(tdfd, tleaf, dfd, leaf, 0) == -1) {
		amsg_fail(&ap->msg, t, "link");
		close(tdfd);
		return -1;
	}
	close(tdfd);
	afs_dirty(ap->fs, dfd);
	ap->modified = 1;
	amsg_say(&ap->msg, "%s: hard linked to %s\n", t->path, t->target);
	return 0;
}

/*
 * Carry out act, the plan of one line that is not a removal
 * (apply-plan.h): st is what lstat found at its path, NULL if nothing.
 */
static int
do_line(struct apply *ap, struct apply_entry *e, enum apply_act act,
    const struct stat *st)
{
	const struct tline	*t = &e->t;
	const char		*leaf;
	struct stat		 now;
	char			 msg[PATH_MAX + 128], *tmp;
	const char		*op;
	int			 dfd, fd = -1, rc, newfile = 0, timeupd = 0;

	if (act == APLAN_DOWNLOAD) {
		/* Creating a missing prefix is not a plain download. */
		if (ap->create_prefix && (syncq_pending(ap) ||
		    jobq_pending(ap)) &&
		    afs_parent(ap->fs, t->path, 0, &dfd, &leaf, NULL) == 1 &&
		    syncq_flush(ap) == -1)
			return -1;
		return parent_of(ap, t, t->path, ap->create_prefix, &dfd,
		    &leaf) == -1 ? -1 : apply_download(ap, e, dfd, leaf);
	}
	if (act == APLAN_CREATE && t->type == 'h') {
		if (make_hardlink(ap, t) == -1)
			return -1;
		goto done;
	}

	if (parent_of(ap, t, t->path, ap->create_prefix && st == NULL, &dfd,
	    &leaf) == -1)
		return -1;

	/*
	 * From here until its owner, mode and mtime are set, the object is
	 * in neither its old state nor its new one: held, an interruption
	 * waits for the end (common/intr.h).
	 */
	(void)intr_hold();
	switch (act) {
	case APLAN_UPDATE:
		break;
	case APLAN_NOFILE:
		intr_release();
		errno = ENOENT;
		amsg_fail(&ap->msg, t, "open");
		return -1;
	case APLAN_NOTMADE:
		intr_release();
		amsg_warn(&ap->msg, "%u: Warning: %c %s not "
		    "created...continuing", t->lineno, t->type, t->path);
		return 0;
	case APLAN_REMAKE:
		op = "remove";
		if (unlinkat(dfd, leaf, 0) == -1)
			goto syserr;
		ap->modified = 1;
		/* FALLTHROUGH */
	case APLAN_CREATE:
		if (t->type != 'l') {
			switch (t->type) {
			case 'd':
				op = "mkdir";
				rc = mkdirat(dfd, leaf, (mode_t)t->mode);
				break;
			case 'p':
				op = "mkfifo";
				rc = mkfifoat(dfd, leaf, (mode_t)t->mode);
				break;
			default:
				op = "mknod";
				rc = mknodat(dfd, leaf, (t->type == 'b' ?
				    S_IFBLK : S_IFCHR) | (mode_t)t->mode,
				    makedev(t->major, t->minor));
				break;
			}
			if (rc == -1)
				goto syserr;
			afs_dirty(ap->fs, dfd);
			ap->modified = 1;
			newfile = 1;
			break;
		}
		/* A symbolic link is made as one that replaces another. */
		/* FALLTHROUGH */
	case APLAN_RELINK:
		/*
		 * Made under a temp name and renamed over the old link, so
		 * the path is never missing.
		 */
		op = "symlink";
		if (dl_maketemp(dfd, leaf, t->lineno, make_symlink,
		    t->target, &tmp) == -1) {
			free(tmp);
			goto syserr;
		}
		op = "rename";
		if (renameat(dfd, tmp, dfd, leaf) == -1) {
			int	saved = errno;

			dl_tempdone(dfd, tmp);
			free(tmp);
			errno = saved;
			goto syserr;
		}
		dl_tempdone(-1, tmp);
		free(tmp);
		afs_dirty(ap->fs, dfd);
		ap->modified = 1;
		intr_release();
		/* Symbolic link owner and mode are not set on this system. */
		amsg_say(&ap->msg, "%s: symbolic linked to %s\n", t->path,
		    t->target);
		goto done;
	default:
		intr_release();
		amsg_warn(&ap->msg, "%u: Unknown type %c", t->lineno, t->type);
		return -1;
	}

	if ((fd = meta_open(ap, t, dfd, leaf, newfile ? NULL : st,
	    &now)) == -1) {
		intr_release();
		return -1;
	}
	snprintf(msg, sizeof(msg), "%s: %s", t->path, newfile ?
	    "created updating" : "updating");
	if (!newfile && t->type != 'd' && !afs_names_inside(ap->fs, dfd,
	    &now)) {
		/*
		 * A name of this object lies outside the root: changing it
		 * in place would change what that name shows too.  A copy
		 * with the declared metadata replaces it.
		 */
		intr_release();
		amsg_linewarn(&ap->msg, t, "%s: %lu links, not all inside the "
		    "root: replacing it with a copy", t->path,
		    (unsigned long)now.st_nlink);
		meta_words(&now, t, msg, sizeof(msg));
		if (replace_copy(ap, t, dfd, leaf, fd, &now) == -1) {
			close(fd);
			return -1;
		}
		close(fd);
		amsg_say(&ap->msg, "%s\n", msg);
		goto done;
	}
	if (t->type == 'f' && t->mtime != (int64_t)now.st_mtime) {
		op = "set times";
		if (fd_setmtime(fd, t->mtime) == -1)
			goto syserr;
		ap->modified = 1;
		timeupd = 1;
	}
	if (afs_owner_mode(fd, &now, t, msg, sizeof(msg), &ap->modified,
	    &op) == -1)
		goto syserr;
	intr_release();
	if (timeupd)
		strlcat(msg, " time", sizeof(msg));
	close(fd);
	amsg_say(&ap->msg, "%s\n", msg);
done:
	/* A line run ahead counts in its turn (-% names its path then). */
	if (!jobq_ahead_progress(ap, PROGRESSUNIT))
		progress_add(&ap->prog, PROGRESSUNIT, t->path);
	return 0;

syserr:
	intr_release();
	amsg_fail(&ap->msg, t, op);
	if (fd != -1)
		close(fd);
	return -1;
}

/*
 * Put back what a line run ahead changed in place (run_ahead) on an
 * object that was there before: its owner and mode, and a regular
 * file's mtime, as old recorded them.  An earlier download failed, and
 * with one session the line would not have run.
 */
void
apply_meta_undo(struct apply *ap, const struct apply_entry *e, int dfd,
    const char *leaf, const struct stat *old)
{
	struct tline	 t = e->t;
	struct stat	 now;
	char		 msg[64];
	const char	*op;
	int		 fd, saved;

	/* Gone or replaced since: nothing of ours to put back, quietly. */
	if ((*leaf == '\0' ? fstat(dfd, &now) : fstatat(dfd, leaf, &now,
	    AT_SYMLINK_NOFOLLOW)) == -1 || now.st_dev != old->st_dev ||
	    now.st_ino != old->st_ino)
		return;
	msg[0] = '\0';
	t.uid = (uint32_t)old->st_uid;
	t.gid = (uint32_t)old->st_gid;
	t.mode = (uint32_t)(old->st_mode & 07777);
	if ((fd = meta_open(ap, &t, dfd, leaf, old, &now)) == -1)
		return;
	(void)intr_hold();
	if (afs_owner_mode(fd, &now, &t, msg, sizeof(msg), NULL, &op) == -1)
		goto fail;
	op = "set times";
	if (t.type == 'f' && (now.st_mtim.tv_sec != old->st_mtim.tv_sec ||
	    now.st_mtim.tv_nsec != old->st_mtim.tv_nsec) &&
	    fd_setmtim(fd, &old->st_mtim) == -1)
		goto fail;
	intr_release();
	close(fd);
	return;
fail:
	saved = errno;
	intr_release();
	amsg_linewarn(&ap->msg, &t, "%s: cannot put back its metadata: %s: %s",
	    t.path, op, strerror(saved));
	close(fd);
}

/* Remove the non-directory of line t (present on disk). */
static int
remove_object(struct apply *ap, const struct tline *t)
{
	const char	*leaf;
	int		 dfd;

	if (parent_of(ap, t, t->path, 0, &dfd, &leaf) == -1)
		return -1;
	if (unlinkat(dfd, leaf, 0) == -1) {
		if (errno == ENOENT && ap->force) {
			amsg_warn(&ap->msg, "line %u: Warning: %s already "
			    "removed...continuing", t->lineno, t->path);
			return 0;
		}
		amsg_fail(&ap->msg, t, "remove");
		return -1;
	}
	afs_dirty(ap->fs, dfd);
	ap->modified = 1;
	amsg_say(&ap->msg, "%s: deleted\n", t->path);
	progress_add(&ap->prog, PROGRESSUNIT, t->path);
	return 0;
}

/* The options of the run that its plan depends on (apply-plan.h). */
static void
run_planopt(const struct apply *ap, struct apply_planopt *po)
{
	memset(po, 0, sizeof(*po));
	po->network = ap->network;
	po->force = ap->force;
	po->create_prefix = ap->create_prefix;
	po->delta = ap->delta;
}

/* A directory to remove once the input leaves it (then doline). */
static void
pend_push(struct apply *ap, const char *path, unsigned lineno, size_t doline)
{
	struct apply_pending	*p;

	if (ap->npend == ap->pendcap) {
		ap->pendcap = ap->pendcap ? ap->pendcap * 2 : 16;
		ap->pend = xreallocarray(ap->pend, ap->pendcap,
		    sizeof(*ap->pend));
	}
	p = &ap->pend[ap->npend++];
	p->path = xstrdup(path);
	p->lineno = lineno;
	p->doline = doline;
}

/*
 * rmdir every pending directory that does not contain path (all of them
 * when path is NULL), deepest first, applying a replacement line right
 * after its directory is gone.
 */
static int
pend_flush(struct apply *ap, const char *path)
{
	struct apply_pending p;
	struct apply_planopt po;
	struct apply_entry *e;
	struct tline	 t;
	const char	*leaf;
	int		 dfd;

	while (ap->npend > 0 && (path == NULL ||
	    !ischildcase(path, ap->pend[ap->npend - 1].path, ap->icase))) {
		if (syncq_flush(ap) == -1)
			return -1;
		p = ap->pend[--ap->npend];
		memset(&t, 0, sizeof(t));
		t.path = p.path;
		t.lineno = p.lineno;
		if (parent_of(ap, &t, p.path, 0, &dfd, &leaf) == -1)
			goto fail;
		if (unlinkat(dfd, leaf, AT_REMOVEDIR) == -1) {
			amsg_fail(&ap->msg, &t, "remove");
			goto fail;
		}
		afs_dirty(ap->fs, dfd);
		afs_forget(ap->fs, p.path);
		ap->modified = 1;
		amsg_say(&ap->msg, "%s: deleted\n", p.path);
		progress_add(&ap->prog, PROGRESSUNIT, p.path);
		free(p.path);
		if (p.doline == NOLINE)
			continue;
		/* The line that replaces it, now on an empty path. */
		run_planopt(ap, &po);
		e = &ap->ent[p.doline];
		if (do_line(ap, e, apply_plan(&e->t, NULL, &po), NULL) == -1)
			return -1;
	}
	return 0;
fail:
	free(p.path);
	return -1;
}

/*
 * With -j, a line at a path no queued download is in or above that
 * creates a new directory, symbolic link, pipe or device, or changes
 * only the metadata of one already there, runs at once, ahead of the
 * downloads, so that they keep flowing (a tree has about as many
 * directories as files): apply_plan_ahead says which.  It is landed in
 * its turn: its messages then; if an earlier download fails, a new
 * object is removed again and an old one gets its metadata back.
 * Anything else waits.  1: done ahead, 0: not for ahead, -1: failed
 * (message printed).
 */
static int
run_ahead(struct apply *ap, struct apply_entry *e,
    const struct apply_planopt *po)
{
	const struct tline	*t = &e->t;
	struct stat		 st;
	const struct stat	*stp;
	int			 present, rc;

	if (!apply_plan_mayahead(t, po) || ap->npend > 0 ||
	    jobq_under(ap, t->path))
		return 0;
	if (lookup(ap, t, &present, &st) == -1)
		return -1;
	stp = present ? &st : NULL;
	if (!apply_plan_ahead(t, stp, po))
		return 0;
	if (jobq_ahead_begin(ap, stp) == -1)
		return -1;
	rc = do_line(ap, e, apply_plan(t, stp, po), stp);
	jobq_ahead_end(ap, e, rc);
	/* It took its turn at once, after an earlier failed download. */
	if (rc == -1 || jobq_failed(ap))
		return -1;
	return 1;
}

static int
run(struct apply *ap)
{
	struct apply_planopt	 po;
	struct apply_entry	*e;
	const struct tline	*t;
	struct stat		 st;
	enum apply_act		 act;
	size_t			 i;
	int			 present, order, rc;

	run_planopt(ap, &po);
	for (i = 0; i < ap->nent; i++) {
		e = &ap->ent[i];
		t = &e->t;
		if (t->type == 0) {
			if (ap->verbose && syncq_flush(ap) == -1)
				return -1;
			if (ap->verbose)
				printf("Transcript: %s\n", t->path);
			continue;
		}
		order = apply_plan_order(t, &po);
		if (order & APLAN_NOTHING)
			continue;
		/*
		 * With -j downloads are queued ahead, and new objects made
		 * ahead (run_ahead): any other line waits until every
		 * earlier download is landed, so that it runs (or, after a
		 * failed download, does not) as with one session.
		 */
		if ((order & APLAN_WAITJOBS) && jobq_pending(ap)) {
			if ((rc = run_ahead(ap, e, &po)) == -1)
				return -1;
			if (rc == 1)
				continue;
			if (jobq_wait(ap) == -1)
				return -1;
		}
		/*
		 * Downloads are renamed into place in batches.  A line that
		 * could see a pending one waits until every earlier
		 * download is in place.  Other lines create or repair their
		 * own, later path, which no earlier download can be in or
		 * above.
		 */
		if ((order & APLAN_WAITBATCH) && syncq_flush(ap) == -1)
			return -1;
		if (pend_flush(ap, t->path) == -1)
			return -1;
		if (lookup(ap, t, &present, &st) == -1)
			return -1;
		act = apply_plan(t, present ? &st : NULL, &po);
		switch (act) {
		case APLAN_GONE_WARN:
			amsg_warn(&ap->msg, "line %u: Warning: %s already "
			    "removed...continuing", t->lineno, t->path);
			continue;
		case APLAN_GONE_FAIL:
			errno = ENOENT;
			amsg_fail(&ap->msg, t, "remove");
			return -1;
		case APLAN_REMOVE_DIR:
		case APLAN_REPLACE_DIR:
			/* Removed, then replaced, once the input leaves it. */
			pend_push(ap, t->path, t->lineno,
			    act == APLAN_REMOVE_DIR ? NOLINE : i);
			continue;
		case APLAN_REMOVE:
		case APLAN_REPLACE:
			if (act == APLAN_REMOVE && ap->delta)
				basis_hold(ap, i);
			if (syncq_flush(ap) == -1 || remove_object(ap, t) == -1)
				return -1;
			if (act == APLAN_REMOVE)
				continue;
			present = 0;
			act = apply_plan(t, NULL, &po);
			break;
		default:
			break;
		}
		if (do_line(ap, e, act, present ? &st : NULL) == -1)
			return -1;
	}
	return pend_flush(ap, NULL);
}

/* The "+" lines the run may download. */
static size_t
count_downloads(const struct apply *ap)
{
	size_t	i, n = 0;

	for (i = 0; i < ap->nent; i++)
		if (ap->ent[i].t.type != 0 && ap->ent[i].t.plus)
			n++;
	return n;
}

/*
 * The status line's sample hook: what the sessions received so far,
 * from their own counters (through the queue while workers own them).
 */
static void
apply_wire(void *arg, struct progwire *w)
{
	struct apply	*ap = arg;
	struct netstats	 ns;

	memset(w, 0, sizeof(*w));
	if (ap->jq != NULL)
		jobq_wire(ap, w);
	else if (ap->net != NULL) {
		net_stats(ap->net, &ns);
		w->raw = ns.raw_in;
		w->wire = ns.wire_in;
		w->zlib = ns.level > 0;
	}
}

int
apply_run(struct apply *ap, int progmode, const struct progtotal *total)
{
	struct cerr	 err;
	size_t		 n;
	int		 ok;

	progress_init(&ap->prog, progmode, total);
	ap->prog.sample = apply_wire;
	ap->prog.arg = ap;
	ap->iobufsz = IOBUFSZ;
	ap->iobuf = xmalloc(ap->iobufsz);
	ap->sq = syncq_new(jobq_wait);
	if ((ap->fs = afs_open(&ap->msg, ap->style, &err)) == NULL) {
		amsg_named(&ap->msg, "%s", err.msg);
		return -1;
	}
	basis_init(ap);
	if (ap->net != NULL && ap->jobs > 1 && (n = count_downloads(ap)) > 1 &&
	    jobq_start(ap, n < (size_t)ap->jobs ? (int)n : ap->jobs,
	    apply_meta_undo, &err) == -1) {
		amsg_warn(&ap->msg, "%s", err.msg);
		(void)afs_close(ap->fs, NULL);
		ap->fs = NULL;
		return -1;
	}
	/* One session, or no thread for more: the request window. */
	if (ap->net != NULL && ap->jq == NULL) {
		ap->rq = retrq_new(ap);
		if (reqwin_fill(ap->rq, &err) == -1) {
			amsg_warn(&ap->msg, "%s", err.msg);
			ap->net_dead = 1;
			(void)afs_close(ap->fs, NULL);
			ap->fs = NULL;
			return -1;
		}
	}

	ok = run(ap) == 0;
	/* Nothing after a failure is landed... */
	if (!ok)
		jobq_cancel(ap);
	/* ... but verified downloads before it go in place all the same. */
	if (syncq_flush(ap) == -1)
		ok = 0;
	jobq_stop(ap);
	syncq_free(ap->sq);
	ap->sq = NULL;
	if (afs_close(ap->fs, &err) == -1) {
		amsg_named(&ap->msg, "%s", err.msg);
		ok = 0;
	}
	ap->fs = NULL;
	return ok ? 0 : -1;
}

int
apply_finish(struct apply *ap, int ok)
{
	struct cerr	 err;
	const char	*msg;

	/* The download sessions are done: ap->net carries the report. */
	jobq_stop(ap);
	/* The status line goes first: it reads the sessions closed below. */
	progress_end(&ap->prog);
	if (ap->net != NULL) {
		if (!ok && !ap->net_dead && ap->rq != NULL &&
		    reqwin_drain(ap->rq, DL_DRAINMAX, &err) == -1)
			ap->net_dead = 1;
		if (!ap->net_dead && net_has_cap(ap->net, "REPO")) {
			if (ok)
				msg = "Changes applied successfully";
			else if (ap->modified)
				msg = "Error, changes made";
			else
				msg = "Error, no changes made";
			if (net_report(ap->net, ap->event, msg, &err) == -1)
				amsg_warn(&ap->msg, "warning: could not report "
				    "event");
		}
		if (ap->verbose)
			net_print_stats(ap->net, stdout);
		jobq_free(ap);		/* the other sessions */
		basis_end(ap, ap->verbose ? stdout : NULL);
		if (net_close(ap->net, &err) == -1 && ok && !ap->net_dead)
			amsg_warn(&ap->msg, "%s", err.msg);
		ap->net = NULL;
	}
	jobq_free(ap);
	retrq_free(ap);
	syncq_free(ap->sq);
	ap->sq = NULL;
	fflush(stdout);
	apply_free(ap);
	if (ok)
		return APPLY_OK;
	return ap->modified ? APPLY_PARTIAL : APPLY_FAIL;
}

/* What a run holds, beyond the session: entries, pending, buffers. */
static void
apply_free(struct apply *ap)
{
	size_t	i;

	for (i = 0; i < ap->nent; i++)
		tline_clear(&ap->ent[i].t);
	free(ap->ent);
	ap->ent = NULL;
	ap->nent = 0;
	for (i = 0; i < ap->npend; i++)
		free(ap->pend[i].path);
	free(ap->pend);
	ap->pend = NULL;
	ap->npend = ap->pendcap = 0;
	free(ap->iobuf);
	ap->iobuf = NULL;
	cksum_free(ap->ck);
	ap->ck = NULL;
}
