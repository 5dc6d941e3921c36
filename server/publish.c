/*
 * cairn-publish: put a loadset uploaded with lcreate into service
 * (cairn-publish(8)).
 *
 * The upload is tmp/transcript/<T> and tmp/file/<T>/; in service it is
 * transcript/<T> and file/<T>/.  Clients find a loadset through its
 * transcript, so the files go first and the transcript last, each move a
 * rename(2) made durable before the next: whenever a client can read
 * transcript/<T>, file/<T> holds its files.  Every step is recognised
 * as done from the state of the repository alone, so running the same
 * command again after an interruption finishes the job.
 *
 * Once the new transcript is in service, the old versions of the files
 * it changes (from the tree -f replaced, or from -r's loadset) are kept
 * as bases in the store of deltas (dstore.h) and their deltas queued;
 * -d builds what is queued.
 *
 * After a publish (and alone with -m) a new release manifest of the
 * repository is written to release/pending/manifest; -s signs it at
 * once and installs it as release/current, -S installs a signature made
 * elsewhere (release.h, docs/signing.md).
 */
#include "config.h"

#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "bytesize.h"
#include "cerr.h"
#include "cksum.h"
#include "command.h"
#include "compat.h"
#include "confine.h"
#include "copts.h"
#include "delta.h"
#include "dmove.h"
#include "dstore.h"
#include "encode.h"
#include "fsutil.h"
#include "log.h"
#include "manifest.h"
#include "pathcmp.h"
#include "release.h"
#include "sig.h"
#include "specset.h"
#include "transcript.h"
#include "troot.h"
#include "tverify.h"
#include "xmalloc.h"

#define PUB_OK		0	/* published, or already was */
#define PUB_NOT		1	/* not published: bad upload or refused */
#define PUB_ERROR	2

#define CMDMAX		(16 << 20)	/* largest command file rewritten */

#define EXPIRY_DEF	(30 * 86400)	/* -E: a month */
#define EXPIRY_MIN	60
#define EXPIRY_MAX	(3650LL * 86400)	/* ten years */

/* A file the new version changes: its old version becomes a base. */
struct change {
	char		*path;		/* decoded transcript path */
	char		*opath;		/* the old version's, if it moved */
	char		 old[96];	/* checksum before */
	char		 new[96];	/* and after */
};

/* The changed files of one older loadset, and who owns their bases. */
struct changes {
	const char	*from;		/* the older loadset */
	struct change	*v;
	size_t		 n;
};

struct pub {
	const char	*dir;		/* -D */
	const char	*name;		/* the transcript name */
	const char	*digest;	/* -c */
	struct cksum	*ck;
	const char	*pred;		/* -r: the loadset this one succeeds */
	int64_t		 bases;		/* -O */
	int		 build;		/* -d */
	size_t		 unkept;	/* bases not kept: no deltas built in */
	int		 force;		/* -f */
	int		 dryrun;	/* -n */
	int		 verbose;	/* -v */
	int		 manifest;	/* -m */
	const char	**skeys;	/* -s: private keys to sign with */
	int		 nskeys;
	const char	*sigfile;	/* -S */
	int64_t		 expiry;	/* -E, seconds */
	int		 rootfd;
	int		 ttfd;		/* tmp/transcript */
	int		 tffd;		/* tmp/file */
	int		 ptfd;		/* transcript */
	int		 pffd;		/* file */
	int		 tofd;		/* tmp/old, -1: not opened */
	int		 oldleft;	/* a replaced tree in tmp/old/<T> */
	const char	*dryold;	/* -n: where old_recover would have put
					   the tree still in tmp/old/<T> */
};

static void
usage(void)
{
	fprintf(stderr, "usage: cairn-publish [ -fnVv ] [ -c checksum ] "
	    "[ -D path ] [ -E expiry ] [ -k command-file ] ... "
	    "[ -O bases-size ] [ -r old-transcript ] [ -s key ] ... "
	    "transcript\n"
	    "       cairn-publish -m [ -Vv ] [ -D path ] [ -E expiry ] "
	    "[ -s key ] ...\n"
	    "       cairn-publish -S signature [ -Vv ] [ -D path ]\n"
	    "       cairn-publish -d [ -Vv ] [ -c checksum ] [ -D path ] "
	    "[ transcript ]\n");
	exit(PUB_ERROR);
}

/* One step, said with -v, and with -n instead of being taken. */
static void
say(const struct pub *p, const char *fmt, ...)
{
	va_list	ap;

	if (!p->verbose && !p->dryrun)
		return;
	if (p->dryrun)
		printf("would ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

/* Open repository directory rel (no symbolic link on the way). */
static int
opendir_rel(const struct pub *p, const char *rel)
{
	int	fd;

	if ((fd = confine_open(p->rootfd, rel, O_RDONLY | O_DIRECTORY, 0)) ==
	    -1)
		fatal("%s/%s", p->dir, rel);
	return fd;
}

/*
 * Whether rel/<name> exists; if it does, it must be of type fmt (S_IFREG
 * for a transcript, S_IFDIR for a file tree): a symbolic link is not
 * followed but refused.
 */
static int
exists_as(const struct pub *p, int dfd, const char *rel, const char *name,
    mode_t fmt)
{
	struct stat	st;

	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno != ENOENT)
			fatal("%s/%s/%s", p->dir, rel, name);
		return 0;
	}
	if ((st.st_mode & S_IFMT) != fmt)
		fatalx("%s/%s/%s: not a %s", p->dir, rel, name,
		    fmt == S_IFDIR ? "directory" : "regular file");
	return 1;
}

static int
exists(const struct pub *p, int dfd, const char *rel, mode_t fmt)
{
	return exists_as(p, dfd, rel, p->name, fmt);
}

/* Make the renames in directory rel durable. */
static void
dsync(const struct pub *p, int dfd, const char *rel)
{
	if (fsync(dfd) == -1)
		fatal("fsync %s/%s", p->dir, rel);
}

/*
 * Check tmp/transcript/<T> against the file tree <froot>/<T> as lcksum -n
 * does: every line well formed and in order, every f and a file with the
 * size and checksum its line records.  With report, every problem is
 * reported, naming the transcript and the line.  Returns 0 if all is
 * right, else 1.
 */
static int
verify(const struct pub *p, const char *froot, int report)
{
	const struct tline	*t;
	struct treader		*r;
	struct troot		 tr;
	struct tvfile		 sf;
	struct cerr		 err;
	char			*tpath;
	int			 rc, bad = 0;

	xasprintf(&tpath, "%s/tmp/transcript/%s", p->dir, p->name);
	memset(&tr, 0, sizeof(tr));
	/* With -n, a tree old_recover did not move is still in tmp/old. */
	xasprintf(&tr.file_root, "%s/%s", p->dir, p->dryold != NULL &&
	    strcmp(froot, p->dryold) == 0 ? "tmp/old" : froot);
	tr.tran_name = xstrdup(p->name);
	if (p->verbose)
		printf("verify tmp/transcript/%s against %s/%s\n", p->name,
		    froot, p->name);
	if ((r = treader_open(tpath, NULL, 0, &err)) == NULL)
		fatalx("%s", err.msg);
	while ((rc = treader_next(r, &t, &err)) != 0 && (report || !bad)) {
		if (rc == -1) {
			if (treader_ioerror(r))
				fatalx("%s", err.msg);
			if (report)
				log_warnx("%s", err.msg);
			bad = 1;
			continue;
		}
		if (!tverify_wants(t))
			continue;
		if (tverify_line(p->ck, &tr, t, 0, &sf, &err) == -1) {
			if (report)
				log_warnx("%s: %s", tpath, err.msg);
			bad = 1;
			continue;
		}
		if (report && (sf.wrong & TV_SIZE))
			log_warnx("%s: line %u: %s: size wrong", tpath,
			    t->lineno, t->path);
		if (report && (sf.wrong & TV_CKSUM))
			log_warnx("%s: line %u: %s: checksum wrong", tpath,
			    t->lineno, t->path);
		if (sf.wrong)
			bad = 1;
		tvfile_clear(&sf);
	}
	treader_close(r);
	troot_clear(&tr);
	free(tpath);
	return bad;
}

/*
 * cairnd marks an upload it is receiving with the symbolic link
 * tmp/.stor.<pid> naming it (docs/formats.md 9): a live session writing
 * <T> means the upload is not complete yet.
 */
static int
upload_busy(const struct pub *p)
{
	struct dirent	*de;
	DIR		*d;
	char		 target[NAME_MAX + 1];
	ssize_t		 len;
	long		 pid;
	char		*end;
	int		 fd, busy = 0;

	fd = opendir_rel(p, "tmp");
	if ((d = fdopendir(fd)) == NULL)
		fatal("%s/tmp", p->dir);
	while (!busy && (de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, ".stor.", 6) != 0)
			continue;
		errno = 0;
		pid = strtol(de->d_name + 6, &end, 10);
		if (errno != 0 || *end != '\0' || pid <= 0)
			continue;
		len = readlinkat(dirfd(d), de->d_name, target,
		    sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (strcmp(target, p->name) == 0 &&
		    (kill((pid_t)pid, 0) == 0 || errno == EPERM))
			busy = 1;
	}
	closedir(d);
	return busy;
}

/* Remove the old file tree a replacement left in tmp/file/<T>. */
static void
remove_old(const struct pub *p)
{
	say(p, "remove tmp/file/%s (the replaced files)", p->name);
	if (p->dryrun)
		return;
	if (fs_rmtreeat(p->tffd, p->name) == -1)
		fatal("%s/tmp/file/%s", p->dir, p->name);
	dsync(p, p->tffd, "tmp/file");
}

/*
 * tmp/old, where a replaced tree waits while the new one moves in on a
 * file system that cannot exchange two directories; made if create.
 * Returns its descriptor, or -1 if it does not exist.
 */
static int
old_dir(struct pub *p, int create)
{
	int	tmpfd;

	if (p->tofd != -1)
		return p->tofd;
	if (create) {
		tmpfd = opendir_rel(p, "tmp");
		if (mkdirat(tmpfd, "old", 0700) == -1 && errno != EEXIST)
			fatal("%s/tmp/old", p->dir);
		/* Durable before a tree is moved into it. */
		dsync(p, tmpfd, "tmp");
		close(tmpfd);
	}
	if ((p->tofd = confine_open(p->rootfd, "tmp/old", O_RDONLY |
	    O_DIRECTORY, 0)) == -1 && (create || errno != ENOENT))
		fatal("%s/tmp/old", p->dir);
	return p->tofd;
}

/*
 * Replace file/<T> with tmp/file/<T> in three renames, where renameat2
 * cannot exchange them: file/<T> to tmp/old/<T>, tmp/file/<T> to
 * file/<T>, tmp/old/<T> to tmp/file/<T>.  Between the first two,
 * file/<T> is missing, and a client fetching from it fails (and repairs
 * at its next run).  An interrupted run is finished by old_recover.
 */
static void
replace_by_renames(struct pub *p)
{
	int	ofd;

	log_warnx("%s/file: no atomic exchange of directories on this file "
	    "system: file/%s is missing while it is replaced", p->dir,
	    p->name);
	ofd = old_dir(p, 1);
	if (renameat(p->pffd, p->name, ofd, p->name) == -1)
		fatal("rename file/%s to tmp/old/%s", p->name, p->name);
	dsync(p, ofd, "tmp/old");
	dsync(p, p->pffd, "file");
	if (renameat(p->tffd, p->name, p->pffd, p->name) == -1) {
		/* Put the old tree back in service rather than none. */
		int	 serrno = errno;

		if (renameat(ofd, p->name, p->pffd, p->name) == 0) {
			dsync(p, p->pffd, "file");
			dsync(p, ofd, "tmp/old");
		}
		errno = serrno;
		fatal("rename tmp/file/%s to file/%s", p->name, p->name);
	}
	/* Both directories: a crash must not find the tree in both. */
	dsync(p, p->pffd, "file");
	dsync(p, p->tffd, "tmp/file");
	if (renameat(ofd, p->name, p->tffd, p->name) == -1)
		fatal("rename tmp/old/%s to tmp/file/%s", p->name, p->name);
	/* Where it goes first, then where it left. */
	dsync(p, p->tffd, "tmp/file");
	dsync(p, ofd, "tmp/old");
}

/*
 * A tree left in tmp/old/<T> by an interrupted replace_by_renames: put
 * it back in file/<T> if that is still missing (the replacement starts
 * again), else where the replacement was to leave it, tmp/file/<T>.
 * Only that replacement puts a tree in tmp/old/<T>, and only it and
 * this put one in file/<T> afterwards: with file/<T> there, the one in
 * tmp/old/<T> is the replaced tree.  If tmp/file/<T> is taken too (a
 * new upload or replica staged since), the replaced tree stays until
 * that upload is verified and about to replace file/<T> (old_remove):
 * until then it may be the only tree that matches the transcript in
 * service.  Updates *tf and *pf.
 */
static void
old_recover(struct pub *p, int *tf, int *pf)
{
	int	ofd;

	if ((ofd = old_dir(p, 0)) == -1 ||
	    !exists(p, ofd, "tmp/old", S_IFDIR))
		return;
	if (*pf && *tf) {
		p->oldleft = 1;
		return;
	}
	say(p, "rename tmp/old/%s to %s/%s (an interrupted replacement)",
	    p->name, *pf ? "tmp/file" : "file", p->name);
	if (p->dryrun)
		/* The steps after are said as if it had been moved. */
		p->dryold = *pf ? "tmp/file" : "file";
	else {
		if (renameat(ofd, p->name, *pf ? p->tffd : p->pffd,
		    p->name) == -1)
			fatal("rename tmp/old/%s", p->name);
		dsync(p, *pf ? p->tffd : p->pffd, *pf ? "tmp/file" : "file");
		dsync(p, ofd, "tmp/old");
	}
	if (*pf)
		*tf = 1;
	else
		*pf = 1;
}

/* Remove the replaced tree old_recover left in tmp/old/<T>. */
static void
old_remove(struct pub *p)
{
	int	ofd;

	say(p, "remove tmp/old/%s (replaced by an interrupted replacement)",
	    p->name);
	if (p->dryrun)
		return;
	ofd = old_dir(p, 0);
	if (ofd == -1 || fs_rmtreeat(ofd, p->name) == -1)
		fatal("%s/tmp/old/%s", p->dir, p->name);
	dsync(p, ofd, "tmp/old");
	p->oldleft = 0;
}

/*
 * Put tmp/file/<T> in service as file/<T>.  A file tree already there (a
 * replacement, -f) is exchanged with it in one renameat2 call, so that
 * file/<T> is always a whole tree, old or new; the old one is left in
 * tmp/file/<T> until the new transcript is in place.  Where the file
 * system (or the C library) has no such exchange: replace_by_renames.
 */
static void
move_files(struct pub *p, int replace)
{
	say(p, "%s tmp/file/%s and file/%s", replace ? "exchange" : "rename",
	    p->name, p->name);
	if (p->dryrun)
		return;
	if (replace) {
#ifdef HAVE_RENAMEAT2
		if (renameat2(p->tffd, p->name, p->pffd, p->name,
		    RENAME_EXCHANGE) == -1) {
			if (errno != EINVAL && errno != ENOSYS &&
			    errno != EOPNOTSUPP)
				fatal("exchange tmp/file/%s and file/%s",
				    p->name, p->name);
			replace_by_renames(p);
		}
#else
		replace_by_renames(p);
#endif
	} else {
		/* file/<T> may not appear meanwhile: never rename over it. */
#ifdef HAVE_RENAMEAT2
		if (renameat2(p->tffd, p->name, p->pffd, p->name,
		    RENAME_NOREPLACE) == -1 && (errno != EINVAL ||
		    renameat(p->tffd, p->name, p->pffd, p->name) == -1))
#else
		if (renameat(p->tffd, p->name, p->pffd, p->name) == -1)
#endif
			fatal("rename tmp/file/%s to file/%s", p->name,
			    p->name);
	}
	dsync(p, p->tffd, "tmp/file");
	dsync(p, p->pffd, "file");
}

/* Put tmp/transcript/<T> in service as transcript/<T> (over the old). */
static void
move_transcript(const struct pub *p)
{
	say(p, "rename tmp/transcript/%s to transcript/%s", p->name, p->name);
	if (p->dryrun)
		return;
	if (renameat(p->ttfd, p->name, p->ptfd, p->name) == -1)
		fatal("rename tmp/transcript/%s to transcript/%s", p->name,
		    p->name);
	dsync(p, p->ttfd, "tmp/transcript");
	dsync(p, p->ptfd, "transcript");
}

/*
 * The digest of name below dfd (a transcript directory) into sum, and
 * its size; -1 if it is not a regular file that can be read.
 */
static int
tdigest(const struct pub *p, int dfd, char sum[CKSUM_B64MAX], int64_t *size)
{
	struct stat	st;
	int		fd, rc = -1;

	if ((fd = openat(dfd, p->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_CLOEXEC)) == -1)
		return -1;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    cksum_fd(p->ck, fd, sum, size) == 0)
		rc = 0;
	close(fd);
	return rc;
}

/*
 * Whether the upload is the loadset already in service: the same
 * transcript (size and digest), its files right in the upload's tree
 * (when there is one) and right in file/<T>.  Publishing it would change
 * nothing a client can see.
 */
static int
same_as_served(const struct pub *p, int tf)
{
	char	up[CKSUM_B64MAX], sv[CKSUM_B64MAX];
	int64_t	upsize, svsize;

	if (tdigest(p, p->ttfd, up, &upsize) == -1 ||
	    tdigest(p, p->ptfd, sv, &svsize) == -1 || upsize != svsize ||
	    strcmp(up, sv) != 0)
		return 0;
	if (tf && verify(p, "tmp/file", 0) != 0)
		return 0;
	return verify(p, "file", 0) == 0;
}

/*
 * The upload is the loadset in service (same_as_served): remove it from
 * tmp/, the files first, so that an interrupted run leaves an upload
 * that a new run recognises again.  Returns PUB_OK.
 */
static int
unchanged(const struct pub *p, int tf)
{
	say(p, "remove tmp/transcript/%s and tmp/file/%s (the same as in "
	    "service)", p->name, p->name);
	if (!p->dryrun) {
		if (tf && fs_rmtreeat(p->tffd, p->name) == -1)
			fatal("%s/tmp/file/%s", p->dir, p->name);
		dsync(p, p->tffd, "tmp/file");
		if (unlinkat(p->ttfd, p->name, 0) == -1 && errno != ENOENT)
			fatal("%s/tmp/transcript/%s", p->dir, p->name);
		dsync(p, p->ttfd, "tmp/transcript");
	}
	if (p->oldleft)
		log_warnx("%s/tmp/old/%s: left in place", p->dir, p->name);
	printf("%s: already published, the same as the upload: nothing "
	    "changed\n", p->name);
	return PUB_OK;
}

/* The next object line of r into dst: 1, 0 at the end, -1 and err. */
static int
tnext(struct treader *r, struct tline *dst, struct cerr *err)
{
	const struct tline	*t;
	int			 rc;

	if ((rc = treader_next(r, &t, err)) <= 0)
		return rc;
	treader_take(r, dst);
	return 1;
}

/* Whether a file's line t may be a base or a delta's target. */
static int
deltable(const struct tline *t)
{
	return t->type == 'f' && !t->minus && strcmp(t->cksum, "-") != 0 &&
	    t->size <= DELTA_MAXFILE;
}

/* One more change: new path (old path opath if it moved), checksums. */
static void
changes_add(struct changes *c, size_t *cap, const char *path,
    const char *opath, const char *old, const char *new)
{
	struct change	*ch;

	if (c->n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		c->v = xreallocarray(c->v, *cap, sizeof(*c->v));
	}
	ch = &c->v[c->n++];
	ch->path = xstrdup(path);
	ch->opath = opath != NULL ? xstrdup(opath) : NULL;
	strlcpy(ch->old, old, sizeof(ch->old));
	strlcpy(ch->new, new, sizeof(ch->new));
}

/* A file of one side only, kept for the version rule (dmove.h). */
struct onlyin {
	char	*path;
	char	 cksum[96];
};

static void
onlyin_add(struct onlyin **v, size_t *n, size_t *cap, const struct tline *t)
{
	if (*n == *cap) {
		*cap = *cap ? *cap * 2 : 64;
		*v = xreallocarray(*v, *cap, sizeof(**v));
	}
	(*v)[*n].path = xstrdup(t->path);
	strlcpy((*v)[*n].cksum, t->cksum, sizeof((*v)[*n].cksum));
	(*n)++;
}

static void
onlyin_free(struct onlyin *v, size_t n)
{
	while (n > 0)
		free(v[--n].path);
	free(v);
}

/*
 * The files the upload (tmp/transcript/<T>) changes from the loadset
 * from in service (transcript/<from>): the same path, a plain file in
 * both, another checksum; and the new files whose path moved, paired
 * with a file the upload no longer has by the version rule (dmove.h).
 * Both transcripts are read side by side in path order.  A transcript
 * that cannot be read gives no changes (a warning): bases save bytes,
 * publication does not depend on them.
 */
static void
changes_read(const struct pub *p, const char *from, struct changes *c)
{
	struct treader	*o = NULL, *n = NULL;
	struct tline	 ot, nt;
	struct cerr	 err;
	struct onlyin	*gone = NULL, *added = NULL;
	struct dmove	*mv;
	char		*opath, *npath;
	size_t		 cap = 0, ngone = 0, gcap = 0, nadded = 0, acap = 0;
	size_t		 i, id;
	int		 ro = -1, rn = -1, cmp;

	memset(c, 0, sizeof(*c));
	memset(&ot, 0, sizeof(ot));
	memset(&nt, 0, sizeof(nt));
	c->from = from;
	xasprintf(&opath, "%s/transcript/%s", p->dir, from);
	xasprintf(&npath, "%s/tmp/transcript/%s", p->dir, p->name);
	if ((o = treader_open(opath, NULL, 0, &err)) == NULL ||
	    (n = treader_open(npath, NULL, 0, &err)) == NULL)
		goto out;
	ro = tnext(o, &ot, &err);
	rn = ro == -1 ? 0 : tnext(n, &nt, &err);
	while (ro > 0 || rn > 0) {
		if (ro > 0 && rn > 0)
			cmp = pathcmp(ot.path, nt.path, 0);
		else
			cmp = ro > 0 ? -1 : 1;
		if (cmp == 0 && deltable(&ot) && deltable(&nt) &&
		    strcmp(ot.cksum, nt.cksum) != 0)
			changes_add(c, &cap, nt.path, NULL, ot.cksum,
			    nt.cksum);
		else if (cmp < 0 && deltable(&ot))
			onlyin_add(&gone, &ngone, &gcap, &ot);
		else if (cmp > 0 && deltable(&nt))
			onlyin_add(&added, &nadded, &acap, &nt);
		if (cmp <= 0 && (ro = tnext(o, &ot, &err)) == -1)
			break;
		if (cmp >= 0 && (rn = tnext(n, &nt, &err)) == -1)
			break;
	}
	if (ro == -1 || rn == -1 || ngone == 0 || nadded == 0)
		goto out;
	mv = dmove_new();
	for (i = 0; i < ngone; i++)
		dmove_add(mv, gone[i].path, i);
	dmove_sort(mv);
	for (i = 0; i < nadded; i++)
		if (dmove_find(mv, added[i].path, &id))
			changes_add(c, &cap, added[i].path, gone[id].path,
			    gone[id].cksum, added[i].cksum);
	dmove_free(mv);
out:
	if (o == NULL || n == NULL || ro == -1 || rn == -1) {
		log_warnx("%s: no bases kept", err.msg);
		while (c->n > 0) {
			free(c->v[--c->n].path);
			free(c->v[c->n].opath);
		}
	}
	onlyin_free(gone, ngone);
	onlyin_free(added, nadded);
	tline_clear(&ot);
	tline_clear(&nt);
	treader_close(o);
	treader_close(n);
	free(opath);
	free(npath);
}

static void
changes_free(struct changes *c)
{
	size_t	 i;

	for (i = 0; i < c->n; i++) {
		free(c->v[i].path);
		free(c->v[i].opath);
	}
	free(c->v);
	memset(c, 0, sizeof(*c));
}

/*
 * Keep the old versions of the changes as bases from the tree
 * <tree>/<from> (owners: the loadset they came from and this one), and
 * queue the deltas to this loadset's files for cairn-publish -d.  What
 * cannot be kept is said and skipped.  Returns the number queued.
 */
static size_t
keep_bases(struct pub *p, const struct changes *c, const char *tree)
{
	struct dstore	*ds;
	struct cerr	 err;
	char		*rel, *trel;
	size_t		 i, queued = 0;
	int		 r;

	if (c->n == 0)
		return 0;
	if (p->bases > 0 && !delta_built()) {
		p->unkept += c->n;
		return 0;
	}
	say(p, "keep the %zu files of %s/%s that %s changes as bases",
	    c->n, tree, c->from, p->name);
	if (p->bases <= 0)
		return 0;
	if (p->dryrun) {
		say(p, "queue %zu deltas for cairn-publish -d", c->n);
		return c->n;
	}
	if ((ds = dstore_open(p->rootfd, p->digest, p->bases, 1, &err)) ==
	    NULL) {
		log_warnx("%s/%s: no bases kept", p->dir, err.msg);
		return 0;
	}
	for (i = 0; i < c->n; i++) {
		xasprintf(&rel, "%s/%s/%s", tree, c->from,
		    c->v[i].opath != NULL ? c->v[i].opath : c->v[i].path);
		xasprintf(&trel, "file/%s/%s", p->name, c->v[i].path);
		r = dstore_put(ds, c->v[i].old, rel, c->from, &err);
		if (r == 1 && strcmp(c->from, p->name) != 0)
			r = dstore_put(ds, c->v[i].old, rel, p->name, &err);
		if (r == 1 && dstore_queue(ds, c->v[i].old, c->v[i].new, trel,
		    &err) == 0)
			queued++;
		else if (r != 0)
			log_warnx("%s/%s", p->dir, err.msg);
		free(rel);
		free(trel);
	}
	if (dstore_sync(ds, &err) == -1)
		log_warnx("%s/%s", p->dir, err.msg);
	dstore_close(ds);
	say(p, "queue %zu deltas for cairn-publish -d", queued);
	/* Kept within -O: the bases used least lately go first. */
	(void)dstore_trim(p->rootfd, p->bases, 0);
	return queued;
}

/*
 * Publish, from whatever state an earlier run was interrupted in.
 * Returns PUB_OK or PUB_NOT.
 */
static int
publish(struct pub *p)
{
	struct changes	 cf, cr;
	const char	*src = NULL;
	size_t		 queued = 0;
	int		 tt, tf, pt, pf;

	tt = exists(p, p->ttfd, "tmp/transcript", S_IFREG);
	tf = exists(p, p->tffd, "tmp/file", S_IFDIR);
	pt = exists(p, p->ptfd, "transcript", S_IFREG);
	pf = exists(p, p->pffd, "file", S_IFDIR);
	old_recover(p, &tf, &pf);

	if (!tt) {
		if (!pt)
			fatalx("%s/tmp/transcript/%s: no such upload", p->dir,
			    p->name);
		/*
		 * The transcript is in service: an earlier run got as far
		 * as its last rename.  With -f, what is left in tmp/file
		 * is the file tree it replaced.
		 */
		if (tf && p->force)
			remove_old(p);
		else if (tf)
			log_warnx("%s/tmp/file/%s: left in place", p->dir,
			    p->name);
		if (p->oldleft)
			log_warnx("%s/tmp/old/%s: left in place", p->dir,
			    p->name);
		printf("%s: already published\n", p->name);
		return PUB_OK;
	}
	if (upload_busy(p)) {
		log_warnx("%s: still being uploaded", p->name);
		return PUB_NOT;
	}
	if (!p->force && pt && same_as_served(p, tf))
		return unchanged(p, tf);
	if (!p->force && (pt || (pf && tf))) {
		log_warnx("%s: already published (%s exists); -f replaces it",
		    p->name, pt ? "transcript" : "file");
		return PUB_NOT;
	}

	/*
	 * Which tree does the transcript describe?  The upload's, or, when
	 * an earlier run was interrupted after moving the files, the one
	 * already in file/<T>.
	 */
	if ((tf || !pf) && verify(p, "tmp/file", 0) == 0)
		src = "tmp/file";
	if (src == NULL && pf && verify(p, "file", 0) == 0) {
		src = "file";
		if (p->verbose)
			printf("file/%s already holds the files\n", p->name);
	}
	if (src == NULL) {
		/* Again, saying all that is wrong with the upload. */
		verify(p, tf || !pf ? "tmp/file" : "file", 1);
		log_warnx("%s: verification failed: nothing published",
		    p->name);
		return PUB_NOT;
	}

	/* Verified, to be published: the tree it replaces may go. */
	if (p->oldleft)
		old_remove(p);
	/* What the new version changes, read while the old is in service. */
	memset(&cf, 0, sizeof(cf));
	memset(&cr, 0, sizeof(cr));
	if (p->force && pt)
		changes_read(p, p->name, &cf);
	if (p->pred != NULL)
		changes_read(p, p->pred, &cr);
	if (strcmp(src, "tmp/file") == 0) {
		if (tf)
			move_files(p, pf);
		/* After an exchange, tmp/file/<T> holds the old tree. */
		tf = tf && pf;
	}
	move_transcript(p);
	/*
	 * Published.  The old versions of the changed files are kept as
	 * bases: from the replaced tree, before it goes, and from -r's
	 * loadset, which stays in service.
	 */
	if (tf && p->force)
		queued += keep_bases(p, &cf, "tmp/file");
	queued += keep_bases(p, &cr, "file");
	changes_free(&cf);
	changes_free(&cr);
	/*
	 * Only now may the replaced tree go: until the rename above, the
	 * old transcript was in service.  (Without -f there is none: a
	 * tree in tmp/file beside one in file/ was refused above.)
	 */
	if (tf && p->force)
		remove_old(p);
	printf("%s: %spublished\n", p->name, p->dryrun ? "would be " : "");
	if (p->unkept > 0)
		printf("%s: no bases kept of the %zu changed files: delta "
		    "transfer is not built in (configured --without-zstd)\n",
		    p->name, p->unkept);
	/* With -v, and with -n, keep_bases said it. */
	if (queued > 0 && !p->verbose && !p->dryrun)
		printf("%s: %zu deltas to build (cairn-publish -d)\n",
		    p->name, queued);
	return PUB_OK;
}

/* Whether command file text buf (len bytes) already has "p <T>". */
static int
names_loadset(const struct pub *p, const char *kfile, char *buf, size_t len)
{
	struct cline	 c;
	struct cerr	 err;
	char		*line, *nl, *dec;
	unsigned	 lineno = 0;
	int		 rc, found = 0;

	for (line = buf; line < buf + len && !found; line = nl + 1) {
		if ((nl = memchr(line, '\n', buf + len - line)) == NULL)
			nl = buf + len;
		*nl = '\0';
		lineno++;
		if ((rc = cline_parse(&c, line, kfile, lineno, &err)) == -1)
			fatalx("%s", err.msg);
		if (rc == 1 && c.type == 'p' && !c.minus &&
		    decode_path(c.name, &dec) == 0) {
			found = strcmp(dec, p->name) == 0;
			free(dec);
		}
		if (rc == 1)
			free(c.name);
		if (nl < buf + len)
			*nl = '\n';
	}
	return found;
}

/*
 * Add "p <T>" to command/<kfile> unless it is there: the new text goes to
 * a temporary file beside it, made durable, then renamed over it.
 */
static void
add_command(struct pub *p, int cmdfd, const char *kfile)
{
	struct stat	 st;
	const char	*leaf;
	char		*buf = NULL, *tmp, *tpath, *enc;
	size_t		 badlen, len = 0;
	ssize_t		 r;
	mode_t		 mode = 0644;
	int		 pfd, fd, nl, found = 0;

	if ((pfd = confine_parent(cmdfd, kfile, NULL, NULL, &leaf,
	    &badlen)) == -1)
		fatal("%s/command/%.*s", p->dir, (int)badlen, kfile);
	if (*leaf == '\0' || strcmp(leaf, ".") == 0)
		fatalx("%s/command/%s: not a command file", p->dir, kfile);
	/*
	 * Two publishes adding to the same command file at once would each
	 * read the old text and one addition would be lost: the read, the
	 * rewrite and the rename happen under a lock on the directory
	 * (released when pfd is closed).
	 */
	if (!p->dryrun && flock(pfd, LOCK_EX) == -1)
		fatal("%s/command/%.*s", p->dir, (int)(leaf - kfile), kfile);
	if ((fd = openat(pfd, leaf, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) !=
	    -1) {
		if (fstat(fd, &st) == -1)
			fatal("%s/command/%s", p->dir, kfile);
		if (!S_ISREG(st.st_mode) || st.st_size > CMDMAX)
			fatalx("%s/command/%s: not a command file", p->dir,
			    kfile);
		mode = st.st_mode & 07777;
		found = 1;
		buf = xmalloc((size_t)st.st_size + 1);
		while (len < (size_t)st.st_size) {
			r = read(fd, buf + len, (size_t)st.st_size - len);
			if (r == -1 && errno == EINTR)
				continue;
			if (r == -1)
				fatal("%s/command/%s", p->dir, kfile);
			if (r == 0)
				break;
			len += (size_t)r;
		}
		close(fd);
	} else if (errno != ENOENT)
		fatal("%s/command/%s", p->dir, kfile);
	if (names_loadset(p, kfile, buf, len)) {
		if (p->verbose)
			printf("command/%s already names %s\n", kfile,
			    p->name);
		free(buf);
		close(pfd);
		return;
	}
	say(p, "add \"p %s\" to command/%s", p->name, kfile);
	if (p->dryrun) {
		free(buf);
		close(pfd);
		return;
	}

	/* One temporary name per command file: a re-run reuses it. */
	xasprintf(&tmp, ".%s.publish", leaf);
	xasprintf(&tpath, "%s/command/%.*s%s", p->dir, (int)(leaf - kfile),
	    kfile, tmp);
	if ((fd = openat(pfd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW |
	    O_CLOEXEC, mode)) == -1)
		fatal("%s", tpath);
	log_addcleanup(fs_unlink_hook, tpath);
	enc = encode_dup(p->name);
	nl = len > 0 && buf[len - 1] != '\n';
	/* root keeps the owner of the file it replaces */
	if (found && geteuid() == 0 && fchown(fd, st.st_uid, st.st_gid) == -1)
		fatal("%s", tpath);
	if (fchmod(fd, mode) == -1 ||
	    (len > 0 && fs_write_all(fd, buf, len) == -1) ||
	    (nl && fs_write_all(fd, "\n", 1) == -1) ||
	    fs_write_all(fd, "p ", 2) == -1 ||
	    fs_write_all(fd, enc, strlen(enc)) == -1 ||
	    fs_write_all(fd, "\n", 1) == -1 || fsync(fd) == -1 ||
	    close(fd) == -1)
		fatal("%s", tpath);
	if (renameat(pfd, tmp, pfd, leaf) == -1)
		fatal("rename %s to %s/command/%s", tpath, p->dir, kfile);
	log_delcleanup(fs_unlink_hook, tpath);
	if (fsync(pfd) == -1)
		fatal("fsync %s/command/%s", p->dir, kfile);
	close(pfd);
	free(enc);
	free(tpath);
	free(tmp);
	free(buf);
}

/* A transcript name is one path component, not "." or "..". */
static int
name_ok(const char *name)
{
	return *name != '\0' && strchr(name, '/') == NULL &&
	    strcmp(name, ".") != 0 && strcmp(name, "..") != 0 &&
	    !confine_badpath(name);
}

/* -d: how each queued delta went, and the totals. */
struct built {
	const struct pub *p;
	size_t		 n[4], failed;
	uint64_t	 tsize, dsize, zsize;	/* of the deltas kept */
};

static void
built_one(void *ctx, const char *rel, int outcome,
    const struct dstore_built *bt, const struct cerr *err)
{
	struct built	*b = ctx;

	if (outcome == -1) {
		log_warnx("%s/%s: %s", b->p->dir, rel, err->msg);
		b->failed++;
		return;
	}
	b->n[outcome]++;
	if (outcome == DSTORE_BUILT) {
		b->tsize += bt->tsize;
		b->dsize += bt->dsize;
		b->zsize += bt->zsize;
	}
	if (b->p->verbose && outcome == DSTORE_BUILT)
		printf("%s: delta of %llu bytes (%llu deflated whole)\n", rel,
		    (unsigned long long)bt->dsize,
		    (unsigned long long)bt->zsize);
	else if (b->p->verbose && outcome == DSTORE_WORSE)
		printf("%s: delta of %llu bytes not kept (%llu deflated "
		    "whole)\n", rel, (unsigned long long)bt->dsize,
		    (unsigned long long)bt->zsize);
}

/*
 * cairn-publish -d: build the deltas queued by publications (of the
 * loadset name only, if not NULL).  Returns PUB_OK, or PUB_NOT if any
 * failed.
 */
static int
build_deltas(struct pub *p, const char *name)
{
	struct dstore	*ds;
	struct built	 b;
	struct cerr	 err;

	memset(&b, 0, sizeof(b));
	b.p = p;
	if ((ds = dstore_open(p->rootfd, p->digest, p->bases, 0, &err)) ==
	    NULL) {
		if (errno != ENOENT)
			fatalx("%s/%s", p->dir, err.msg);
	} else {
		(void)dstore_drain(ds, name, built_one, &b);
		dstore_close(ds);
	}
	printf("deltas: %zu built (%llu bytes for %llu deflated whole, %llu "
	    "raw), %zu not worth keeping, %zu skipped, %zu failed\n",
	    b.n[DSTORE_BUILT], (unsigned long long)b.dsize,
	    (unsigned long long)b.zsize, (unsigned long long)b.tsize,
	    b.n[DSTORE_WORSE], b.n[DSTORE_KNOWN] + b.n[DSTORE_SKIP],
	    b.failed);
	return b.failed > 0 ? PUB_NOT : PUB_OK;
}

/*
 * -E: a number of seconds, or of minutes, hours or days with the suffix
 * m, h or d (s: seconds), from a minute to ten years.  0 or -1.
 */
static int
parse_expiry(const char *s, int64_t *secs)
{
	const char	*p;
	int64_t		 n = 0, unit = 1;

	for (p = s; *p >= '0' && *p <= '9'; p++) {
		if (n > EXPIRY_MAX)
			return -1;
		n = n * 10 + (*p - '0');
	}
	if (p == s)
		return -1;
	switch (*p) {
	case '\0':
	case 's':
		break;
	case 'm':
		unit = 60;
		break;
	case 'h':
		unit = 3600;
		break;
	case 'd':
		unit = 86400;
		break;
	default:
		return -1;
	}
	if (*p != '\0' && p[1] != '\0')
		return -1;
	if (n > EXPIRY_MAX || n * unit < EXPIRY_MIN || n * unit > EXPIRY_MAX)
		return -1;
	*secs = n * unit;
	return 0;
}

/*
 * Whether the signature file sig signs the manifest man for this
 * repository: well formed, and when release/keys/ holds public keys,
 * verified by one of them (required: with none there, refused).  0, or
 * -1 with the reason said.
 */
static int
release_check(const struct pub *p, const struct buf *man,
    const struct buf *sig, const char *source, int required)
{
	struct sigkeys	*keys;
	struct cerr	 err;
	char		*path, id[SIG_KEYIDLEN + 1];
	int		 rc;

	xasprintf(&path, "%s/%s", p->dir, RELEASE_KEYS);
	if ((keys = sigkeys_load(path, 0, &err)) == NULL)
		fatalx("%s", err.msg);
	if (sigkeys_count(keys) == 0) {
		sigkeys_free(keys);
		if (!required) {
			free(path);
			return 0;
		}
		log_warnx("%s: no public key: cannot tell that %s signs "
		    "%s/pending/manifest; copy the signing key's .pub file "
		    "there", path, source, RELEASE_DIR);
		free(path);
		return -1;
	}
	rc = sig_verify(keys, buf_data(sig), buf_len(sig), source,
	    buf_data(man), buf_len(man), id, &err);
	if (rc == -1)
		log_warnx("%s (keys: %s)", err.msg, path);
	else if (p->verbose)
		printf("%s: verified with key %s of %s\n", source, id, path);
	sigkeys_free(keys);
	free(path);
	return rc;
}

/* Time t as the manifest's reader sees it: UTC, ISO 8601. */
static const char *
utc(int64_t t)
{
	static char	 s[32];
	struct tm	 tm;
	time_t		 tt = (time_t)t;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(s, sizeof(s), "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(s, sizeof(s), "%lld", (long long)t);
	return s;
}

/*
 * Install man (serial) signed by sig as release/current.  Returns
 * PUB_OK or PUB_NOT (refused); errors are fatal.
 */
static int
release_put(const struct pub *p, int relfd, uint64_t serial,
    const struct buf *man, const struct buf *sig, const char *source,
    int required)
{
	struct cerr	 err;

	if (release_check(p, man, sig, source, required) == -1) {
		log_warnx("release %llu: not installed",
		    (unsigned long long)serial);
		return PUB_NOT;
	}
	if (release_install(relfd, serial, buf_data(man), buf_len(man),
	    buf_data(sig), buf_len(sig), &err) == -1)
		fatalx("%s/%s", p->dir, err.msg);
	printf("release %llu: installed as %s/current\n",
	    (unsigned long long)serial, RELEASE_DIR);
	return PUB_OK;
}

/*
 * Write a manifest of the repository as it is to release/pending/ and,
 * with -s, sign and install it.  PUB_OK or PUB_NOT; errors are fatal.
 */
static int
release_manifest(struct pub *p)
{
	struct manifest	 m;
	struct buf	*man, *sig;
	struct cerr	 err;
	uint64_t	 serial, cur;
	size_t		 nfiles;
	int		 relfd, i, loud, rc = PUB_OK;

	if (p->dryrun) {
		say(p, "write %s/pending/manifest", RELEASE_DIR);
		return PUB_OK;
	}
	if ((relfd = release_open(p->rootfd, 1, &err)) == -1 ||
	    release_current(relfd, &cur, NULL, &err) == -1 ||
	    release_next(relfd, &serial, &err) == -1)
		fatalx("%s/%s", p->dir, err.msg);
	/* a repository that has never been signed is not told of it */
	loud = p->manifest || p->nskeys > 0 || cur > 0;
	memset(&m, 0, sizeof(m));
	strlcpy(m.digest, MANIFEST_DIGEST, sizeof(m.digest));
	m.serial = serial;
	m.created = (int64_t)time(NULL);
	m.expires = m.created + p->expiry;
	if (manifest_build(p->rootfd, &m, &err) == -1 ||
	    specset_collect(p->rootfd, &m, &err) == -1)
		fatalx("%s/%s", p->dir, err.msg);
	manifest_sort(&m);
	man = buf_new(MANIFEST_MAX);
	if (manifest_write(&m, man, &err) == -1)
		fatalx("%s", err.msg);
	if (release_write_pending(relfd, man, &err) == -1)
		fatalx("%s/%s", p->dir, err.msg);
	say(p, "write %s/pending/manifest", RELEASE_DIR);
	/* files: the stat entries describe some of them again */
	for (i = 0, nfiles = 0; (size_t)i < m.nent; i++)
		if (m.ent[i].kind != MANIFEST_STAT)
			nfiles++;
	if (loud)
		printf("release %llu: manifest of %zu files, expires %s, "
		    "written to %s/pending/manifest\n",
		    (unsigned long long)serial, nfiles, utc(m.expires),
		    RELEASE_DIR);
	manifest_free(&m);
	if (p->nskeys > 0) {
		sig = buf_new(SIG_MAX);
		sig_file_begin(sig);
		for (i = 0; i < p->nskeys; i++)
			if (sig_sign(p->skeys[i], buf_data(man), buf_len(man),
			    sig, &err) == -1)
				fatalx("%s", err.msg);
		sig_file_end(sig, (size_t)p->nskeys);
		rc = release_put(p, relfd, serial, man, sig, "signature", 0);
		buf_free(sig);
	} else if (loud)
		printf("release %llu: waiting for its signature "
		    "(cairn-publish -S)\n", (unsigned long long)serial);
	buf_free(man);
	close(relfd);
	return rc;
}

/* -S: install the signature file p->sigfile for the pending manifest. */
static int
release_signed(struct pub *p)
{
	struct manifest	 m;
	struct buf	*man, *sig;
	struct cerr	 err;
	char		 shown[64];
	int		 relfd, rc;

	if ((relfd = release_open(p->rootfd, 0, &err)) == -1)
		fatalx("%s/%s", p->dir, err.msg);
	if (release_pending(relfd, &man, &err) == -1)
		fatalx("%s/%s", p->dir, err.msg);
	if (man == NULL)
		fatalx("%s/%s/pending/manifest: no manifest waiting for a "
		    "signature (cairn-publish -m writes one)", p->dir,
		    RELEASE_DIR);
	snprintf(shown, sizeof(shown), "%s/pending/manifest", RELEASE_DIR);
	if (manifest_parse(buf_data(man), buf_len(man), shown, &m,
	    &err) == -1)
		fatalx("%s/%s", p->dir, err.msg);
	if (fs_read_file(AT_FDCWD, p->sigfile, SIG_MAX, &sig) == -1) {
		if (errno == EFBIG)
			fatalx("%s: larger than %d bytes: not a signature "
			    "file", p->sigfile, SIG_MAX);
		fatal("%s", p->sigfile);
	}
	rc = release_put(p, relfd, m.serial, man, sig, p->sigfile, 1);
	manifest_free(&m);
	buf_free(man);
	buf_free(sig);
	close(relfd);
	return rc;
}

/* cairn-publish's own options; -c, -D, -V and -v are the shared ones. */
struct pubopts {
	struct pub	 *p;
	const char	**kfiles;	/* -k, argc at most */
	int		  nk;
	int		  ex;		/* -E given */
};

static int
pub_opt(int c, const char *arg, void *ctx)
{
	struct pubopts	*po = ctx;

	switch (c) {
	case 'd':
		po->p->build = 1;
		break;
	case 'f':
		po->p->force = 1;
		break;
	case 'O':
		if (bytesize_parse(arg, &po->p->bases) == -1) {
			log_warnx("-O %s: invalid size", arg);
			return -1;
		}
		break;
	case 'r':
		po->p->pred = arg;
		break;
	case 'k':
		po->kfiles[po->nk++] = arg;
		break;
	case 'n':
		po->p->dryrun = 1;
		break;
	case 'm':
		po->p->manifest = 1;
		break;
	case 'E':
		if (parse_expiry(arg, &po->p->expiry) == -1) {
			log_warnx("-E %s: invalid expiry (a minute to "
			    "ten years: 60s, 90m, 12h, 30d)", arg);
			return -1;
		}
		po->ex = 1;
		break;
	case 's':
		if (po->p->nskeys == SIG_LINESMAX) {
			log_warnx("-s: at most %d keys", SIG_LINESMAX);
			return -1;
		}
		po->p->skeys[po->p->nskeys++] = arg;
		break;
	case 'S':
		po->p->sigfile = arg;
		break;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct pub	  p;
	struct pubopts	  po;
	struct copts	  co;
	const char	**kfiles;
	int		  i, nk, rc, cmdfd;

	log_init("cairn-publish", LOG_TO_STDERR | LOG_PREFIX, 0);
	log_setfatalstatus(PUB_ERROR);
	memset(&p, 0, sizeof(p));
	po.p = &p;
	po.kfiles = xcalloc((size_t)argc, sizeof(*po.kfiles));
	po.nk = 0;
	po.ex = 0;
	p.skeys = xcalloc(SIG_LINESMAX, sizeof(*p.skeys));
	p.expiry = EXPIRY_DEF;
	copts_init(&co, COPTS_DIGEST | COPTS_DIR | COPTS_VERBOSE, NULL);
	co.dir = _RADMIND_PATH;
	co.digest = "sha1";
	p.bases = DSTORE_DEFBOUND;
	if (copts_parse(argc, argv, &co, "dE:fk:mnO:r:s:S:", pub_opt,
	    &po) == -1 ||
	    (!p.build && !p.manifest && p.sigfile == NULL &&
	    argc - optind != 1) ||
	    (p.build && (argc - optind > 1 || p.force || p.dryrun ||
	    po.nk > 0 || p.pred != NULL)) ||
	    (p.build + p.manifest + (p.sigfile != NULL) > 1) ||
	    ((p.manifest || p.sigfile != NULL) && (argc - optind != 0 ||
	    p.force || p.dryrun || po.nk > 0 || p.pred != NULL)) ||
	    ((p.build || p.sigfile != NULL) && (po.ex || p.nskeys > 0)))
		usage();
	if (p.build && !delta_built()) {
		log_warnx("-d: delta transfer is not built in (configured "
		    "--without-zstd)");
		exit(PUB_ERROR);
	}
	p.dir = co.dir;
	p.digest = co.digest;
	p.verbose = co.verbose > 0;
	p.ck = cksum_new(co.digest);
	kfiles = po.kfiles;
	nk = po.nk;
	p.name = argv[optind];
	if (p.name != NULL && !name_ok(p.name))
		fatalx("%s: not a transcript name", p.name);
	if (p.pred != NULL && (!name_ok(p.pred) ||
	    strcmp(p.pred, p.name) == 0))
		fatalx("-r %s: not the name of another transcript", p.pred);
	for (i = 0; i < nk; i++)
		if (*kfiles[i] == '\0' || confine_badpath(kfiles[i]))
			fatalx("%s: not a command file under command/",
			    kfiles[i]);

	if ((p.rootfd = open(p.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1)
		fatal("%s", p.dir);
	if (p.manifest || p.sigfile != NULL) {
		rc = p.manifest ? release_manifest(&p) : release_signed(&p);
		cksum_free(p.ck);
		free(kfiles);
		free(p.skeys);
		exit(rc);
	}
	if (p.build) {
		rc = build_deltas(&p, p.name);
		cksum_free(p.ck);
		free(kfiles);
		exit(rc);
	}
	p.ttfd = opendir_rel(&p, "tmp/transcript");
	p.tffd = opendir_rel(&p, "tmp/file");
	p.ptfd = opendir_rel(&p, "transcript");
	p.pffd = opendir_rel(&p, "file");
	p.tofd = -1;
	if (p.pred != NULL && (!exists_as(&p, p.ptfd, "transcript", p.pred,
	    S_IFREG) || !exists_as(&p, p.pffd, "file", p.pred, S_IFDIR)))
		fatalx("-r %s: not a published loadset", p.pred);

	rc = publish(&p);
	if (rc == PUB_OK && nk > 0) {
		cmdfd = opendir_rel(&p, "command");
		for (i = 0; i < nk; i++)
			add_command(&p, cmdfd, kfiles[i]);
		close(cmdfd);
	}
	/* the repository as it is now: a new release manifest */
	if (rc == PUB_OK)
		rc = release_manifest(&p);
	cksum_free(p.ck);
	free(kfiles);
	free(p.skeys);
	exit(rc);
}
