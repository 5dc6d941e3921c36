/*
 * ktcheck: make the local command directory match the server for this
 * host (ktcheck(1)).
 *
 * All or nothing: what differs is fetched into a staging directory in
 * the command directory, .ktcheck.<pid>, and only once every file named
 * arrived and was verified are they renamed into place, transcripts and
 * special.T first, included command files next, the base command file
 * last (stage_commit), so that the command files on disk never name a
 * transcript that is not there.  A failed run removes the staging
 * directory and leaves the command directory as it was.
 *
 * With public keys pinned (-k, or the default key directory), the
 * server's signed release is fetched and verified first, and every
 * command file and transcript this run uses, fetched or already in
 * place, must be what the release lists, before anything is renamed
 * into place; only then is the release recorded in release.state
 * (net/trust.h).  A refusal changes nothing and exits KT_REFUSED.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/file.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cerr.h"
#include "cksum.h"
#include "command.h"
#include "compat.h"
#include "confine.h"
#include "copts.h"
#include "download.h"
#include "encode.h"
#include "fsutil.h"
#include "intr.h"
#include "log.h"
#include "manifest.h"
#include "net.h"
#include "pathcmp.h"
#include "proto.h"
#include "trust.h"
#include "reqwin.h"
#include "sig.h"
#include "strlist.h"
#include "xmalloc.h"

#define KT_OK		0	/* no differences */
#define KT_CHANGED	1	/* differences (downloaded, or -n) */
#define KT_ERROR	2
#define KT_REFUSED	3	/* keys pinned: the release is refused */

#define KT_MAXSIZE	(1LL << 30)	/* largest command file or transcript */
#define KT_SPECIALMAX	(64LL << 20)	/* largest special file, keys pinned */

#define KT_STAGE	".ktcheck."	/* staging directory: KT_STAGE<pid> */
#define KT_STAGEYOUNG	600	/* seconds a live run may take to lock it */

/* One file fetched into the staging directory, in the order fetched. */
struct kt_staged {
	char		*rel;		/* below the command directory */
	char		*path;		/* as messages show it */
	const char	*why;		/* "updated", "created" */
	int		 kind;		/* KS_* */
	int		 done;		/* renamed into place */
};
#define KS_FILE		0	/* transcript, special.T: committed first */
#define KS_COMMAND	1	/* an included command file: next */
#define KS_BASE		2	/* the base command file: last */

/* With keys pinned: a file this run uses, to check against the release. */
struct kt_used {
	enum manifest_kind kind;
	char		*name;		/* as the release names it (rel
					   decoded); NULL: the base command
					   file (any command) */
	char		*rel;		/* below the command directory */
	char		*path;		/* as messages show it */
	int		 verified;	/* found as the release lists it */
};

struct kt {
	struct net	*net;
	struct reqwin	*win;		/* its downloads, one at a time */
	struct netopts	 no;
	const char	*kfile;		/* -K */
	const char	*base;		/* ... its name in the directory */
	char		*kdir;		/* command directory ("" or ".../") */
	int		 kdirfd;	/* ... open: every name is below it
					   (-1: -n, and it is not there) */
	const char	*digest;	/* -c */
	struct cksum	*ck;		/* ... its state, or NULL */
	const char	*event;		/* -e */
	int		 nflag, qflag, clean, icase;
	int		 changed;
	int		 stop;		/* -n: first difference seen */
	struct strlist	 keep;		/* names to keep for -C */
	struct strlist	 special;	/* s paths (encoded) */
	char		 stage[32];	/* staging directory's name, or "" */
	char		*stagepath;	/* ... its path, for the exit hook */
	int		 stagefd;	/* ... open and locked, or -1 */
	struct kt_staged *staged;	/* what it holds */
	size_t		 nstaged;
	struct sigkeys	*keys;		/* pinned, or NULL: none */
	const char	*keypath;	/* ... where they came from */
	struct manifest	 man;		/* the release, verified */
	struct trust_state prev, cur;	/* accepted before, and now */
	struct kt_used	*used;		/* files to check against it */
	size_t		 nused;
	struct cksum	*rck;		/* digests with the release's */
	int		 refused;	/* the release was refused */
	struct cerr	 err;
};

static void
usage(void)
{
	fprintf(stderr, "usage: ktcheck [-CIinrV] [-q | -v] [-c checksum] "
	    "[-D path] [-e event] [-k keys] [-K command file] %s\n",
	    copts_usage());
	exit(KT_ERROR);
}

/* Digest of an open local file with -c's algorithm. */
static int
local_digest(const struct kt *kt, int fd, char out[CKSUM_B64MAX])
{
	if (lseek(fd, 0, SEEK_SET) == -1)
		return -1;
	return cksum_fd(kt->ck, fd, out, NULL);
}

/* The staged file at rel (ignoring case with -I), or NULL. */
static struct kt_staged *
staged(const struct kt *kt, const char *rel)
{
	size_t	i;

	for (i = 0; i < kt->nstaged; i++)
		if ((kt->icase ? strcasecmp(kt->staged[i].rel, rel) :
		    strcmp(kt->staged[i].rel, rel)) == 0)
			return &kt->staged[i];
	return NULL;
}

/*
 * Open rel below the command directory for reading, confined: its copy
 * in the staging directory if this run fetched it (as it was staged,
 * with -I perhaps in another case), else the one in place.
 */
static int
kt_open(const struct kt *kt, const char *rel)
{
	const struct kt_staged	*e;

	if ((e = staged(kt, rel)) != NULL)
		return confine_open(kt->stagefd, e->rel, O_RDONLY |
		    O_NONBLOCK | O_NOCTTY, 0);
	if (kt->kdirfd == -1) {
		/* -n, no command directory yet: it holds nothing. */
		errno = ENOENT;
		return -1;
	}
	return confine_open(kt->kdirfd, rel, O_RDONLY | O_NONBLOCK |
	    O_NOCTTY, 0);
}

/*
 * The staging directory.  stage_create makes this run's, KT_STAGE<pid>
 * in the command directory (the same file system, so that the commit is
 * renames), when the first file is to be fetched; it holds an exclusive
 * flock(2) on it as long as the run lives, and registers it to be
 * removed by a fatal exit.  stage_remove removes it and all it holds
 * (nothing, after a commit).  stage_clean removes those of runs that
 * died: any KT_STAGE<digits> directory whose lock nobody holds.
 */
static int
stage_create(struct kt *kt)
{
	int	fd;

	if (kt->stagefd != -1)
		return 0;
	snprintf(kt->stage, sizeof(kt->stage), "%s%ld", KT_STAGE,
	    (long)getpid());
	xasprintf(&kt->stagepath, "%s%s", kt->kdir, kt->stage);
	/* Made and registered at once: an interrupt removes it (intr.h). */
	(void)intr_hold();
	/* Our name, left by a run before a reboot: nobody else's. */
	if (mkdirat(kt->kdirfd, kt->stage, 0700) == -1 && (errno != EEXIST ||
	    fs_rmtreeat(kt->kdirfd, kt->stage) == -1 ||
	    mkdirat(kt->kdirfd, kt->stage, 0700) == -1)) {
		intr_release();
		goto fail;
	}
	log_addcleanup(fs_rmtree_hook, kt->stagepath);
	intr_release();
	if ((fd = openat(kt->kdirfd, kt->stage, O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) == -1 ||
	    flock(fd, LOCK_EX | LOCK_NB) == -1) {
		cerr_errno(&kt->err, "%s", kt->stagepath);
		if (fd != -1)
			close(fd);
		log_delcleanup(fs_rmtree_hook, kt->stagepath);
		(void)fs_rmtreeat(kt->kdirfd, kt->stage);
		goto out;
	}
	kt->stagefd = fd;
	return 0;
fail:
	cerr_errno(&kt->err, "%s", kt->stagepath);
out:
	free(kt->stagepath);
	kt->stagepath = NULL;
	kt->stage[0] = '\0';
	return -1;
}

static void
stage_remove(struct kt *kt)
{
	size_t	i;

	if (kt->stagefd != -1) {
		(void)intr_hold();
		if (fs_rmtreeat(kt->kdirfd, kt->stage) == -1)
			log_warn("%s", kt->stagepath);
		close(kt->stagefd);
		kt->stagefd = -1;
		log_delcleanup(fs_rmtree_hook, kt->stagepath);
		intr_release();
		free(kt->stagepath);
		kt->stagepath = NULL;
		kt->stage[0] = '\0';
	}
	for (i = 0; i < kt->nstaged; i++) {
		free(kt->staged[i].rel);
		free(kt->staged[i].path);
	}
	free(kt->staged);
	kt->staged = NULL;
	kt->nstaged = 0;
}

/*
 * Nonzero if the staging directory fd, of the run with process id pid
 * (digits), may belong to a run that has not locked it yet: its process
 * lives and the directory is less than KT_STAGEYOUNG seconds old.
 */
static int
stage_young(int fd, const char *pid)
{
	struct stat	 st;
	long long	 n;
	char		*end;

	errno = 0;
	n = strtoll(pid, &end, 10);
	if (errno != 0 || *end != '\0' || n <= 0 || n > INT_MAX ||
	    fstat(fd, &st) == -1)
		return 0;
	if (kill((pid_t)n, 0) == -1 && errno != EPERM)
		return 0;
	return time(NULL) - st.st_ctime < KT_STAGEYOUNG;
}

static void
stage_clean(struct kt *kt)
{
	DIR		*d;
	struct dirent	*de;
	const char	*p;
	int		 dfd, fd;

	if ((dfd = dup(kt->kdirfd)) == -1 || (d = fdopendir(dfd)) == NULL) {
		if (dfd != -1)
			close(dfd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, KT_STAGE, strlen(KT_STAGE)) != 0)
			continue;
		p = de->d_name + strlen(KT_STAGE);
		if (*p == '\0' || strspn(p, "0123456789") != strlen(p))
			continue;
		if ((fd = openat(dirfd(d), de->d_name, O_RDONLY | O_DIRECTORY |
		    O_NOFOLLOW | O_CLOEXEC)) == -1)
			continue;
		/*
		 * Locked: a run still going.  Unlocked but new, of a process
		 * that lives: a run between its mkdir and its lock.
		 */
		if (flock(fd, LOCK_EX | LOCK_NB) == 0 &&
		    !stage_young(fd, p) &&
		    fs_rmtreeat(dirfd(d), de->d_name) == -1)
			log_warn("%s%s", kt->kdir, de->d_name);
		close(fd);
	}
	closedir(d);
}

/* Nonzero if name (canonical) would lead into a staging directory. */
static int
stage_name(const char *name)
{
	return strncasecmp(name, KT_STAGE, strlen(KT_STAGE)) == 0;
}

/* Remember a file fetched into the staging directory. */
static void
stage_add(struct kt *kt, const char *rel, const char *path, const char *why,
    int kind)
{
	struct kt_staged	*e;

	if (staged(kt, rel) != NULL)
		return;
	kt->staged = xreallocarray(kt->staged, kt->nstaged + 1,
	    sizeof(*kt->staged));
	e = &kt->staged[kt->nstaged++];
	e->rel = xstrdup(rel);
	e->path = xstrdup(path);
	e->why = why;
	e->kind = kind;
	e->done = 0;
}

/* confine_parent's hook: a missing directory, made durable at once. */
static int
kt_mkdir(void *ctx, int pfd, const char *name, const char *rel,
    size_t len)
{
	(void)ctx;
	(void)rel;
	(void)len;
	if (mkdirat(pfd, name, 0777) == -1)
		return -1;
	return fsync(pfd);
}

/*
 * Move the staged file e into place: make it durable, make the missing
 * directories on its way, remove a directory standing in its place, and
 * rename it.  Its directory in place goes to dirs, to be made durable.
 */
static int
commit_one(struct kt *kt, struct kt_staged *e, struct strlist *dirs)
{
	const char	*sleaf, *lleaf, *slash;
	struct stat	 st;
	size_t		 bad;
	char		*dir;
	int		 spfd = -1, lpfd = -1, fd, rc = -1;

	if ((spfd = confine_parent(kt->stagefd, e->rel, NULL, NULL, &sleaf,
	    &bad)) == -1 || (fd = openat(spfd, sleaf, O_RDONLY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1) {
		cerr_errno(&kt->err, "%s%s/%s", kt->kdir, kt->stage, e->rel);
		goto out;
	}
	if (fsync(fd) == -1) {
		cerr_errno(&kt->err, "%s%s/%s", kt->kdir, kt->stage, e->rel);
		close(fd);
		goto out;
	}
	close(fd);
	if ((lpfd = confine_parent(kt->kdirfd, e->rel, kt_mkdir, NULL,
	    &lleaf, &bad)) == -1) {
		cerr_errno(&kt->err, "%s", e->path);
		goto out;
	}
	if (fstatat(lpfd, lleaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode) && fs_rmtreeat(lpfd, lleaf) == -1) {
		cerr_errno(&kt->err, "%s: remove directory", e->path);
		goto out;
	}
	if (renameat(spfd, sleaf, lpfd, lleaf) == -1) {
		cerr_errno(&kt->err, "%s: rename", e->path);
		goto out;
	}
	e->done = 1;
	slash = strrchr(e->rel, '/');
	dir = slash != NULL ? xstrndup(e->rel, (size_t)(slash - e->rel)) :
	    xstrdup("");
	if (!strlist_has(dirs, dir, 0))
		strlist_add(dirs, dir);
	free(dir);
	rc = 0;
out:
	if (spfd != -1)
		close(spfd);
	if (lpfd != -1)
		close(lpfd);
	return rc;
}

/* Make the directories renamed into durable; dirs is emptied. */
static int
commit_sync(struct kt *kt, struct strlist *dirs)
{
	size_t	i;
	int	fd, rc = 0;

	for (i = 0; i < dirs->n && rc == 0; i++) {
		if ((fd = confine_open(kt->kdirfd, dirs->v[i], O_RDONLY |
		    O_DIRECTORY, 0)) == -1 || fsync(fd) == -1) {
			cerr_errno(&kt->err, "%s%s", kt->kdir, dirs->v[i]);
			rc = -1;
		}
		if (fd != -1)
			close(fd);
	}
	strlist_free(dirs);
	return rc;
}

/*
 * Before anything is renamed: every staged file's directory in place
 * must be there or can be made, so that a file or a symbolic link in
 * its way fails the run while the command directory is as it was.  A
 * missing directory is made by commit_one, and all below it with it.
 */
static int
commit_check(struct kt *kt)
{
	const char	*leaf;
	size_t		 i, bad;
	int		 fd;

	for (i = 0; i < kt->nstaged; i++) {
		if ((fd = confine_parent(kt->kdirfd, kt->staged[i].rel, NULL,
		    NULL, &leaf, &bad)) == -1 && errno != ENOENT) {
			cerr_errno(&kt->err, "%s", kt->staged[i].path);
			return -1;
		}
		if (fd != -1)
			close(fd);
	}
	return 0;
}

/*
 * Commit what was fetched: transcripts and special.T, then the included
 * command files (the last fetched first, so that an including file comes
 * after what it includes), then the base command file, each group made
 * durable before the next begins.  Then say what was updated, in the
 * order fetched (only what is in place, if the commit failed halfway).
 */
static int
stage_commit(struct kt *kt)
{
	struct strlist	 dirs;
	size_t		 i, j;
	int		 rc = 0, kind;

	if (commit_check(kt) == -1)
		return -1;
	memset(&dirs, 0, sizeof(dirs));
	/* An interrupt waits until every staged file is in place. */
	(void)intr_hold();
	for (kind = KS_FILE; kind <= KS_BASE && rc == 0; kind++) {
		for (j = 0; j < kt->nstaged && rc == 0; j++) {
			i = kind == KS_COMMAND ? kt->nstaged - 1 - j : j;
			if (kt->staged[i].kind == kind &&
			    commit_one(kt, &kt->staged[i], &dirs) == -1)
				rc = -1;
		}
		if (commit_sync(kt, &dirs) == -1)
			rc = -1;
	}
	intr_release();
	strlist_free(&dirs);
	for (i = 0; i < kt->nstaged; i++)
		if (kt->staged[i].done && !kt->qflag)
			printf("%s: %s\n", kt->staged[i].path,
			    kt->staged[i].why);
	return rc;
}

/* ktcheck's downloads: whole files, through the one download routine. */
static const struct reqwin_ops	kt_fetch = {
	dl_req_send, dl_req_recv, NULL
};

/*
 * Download kind/name into rel below the staging directory (path is how
 * messages show it): the one download routine receives it into a temp
 * file in its directory (reached through common/confine) and checks
 * size and, with -c, digest; then the server's mtime is set and the
 * file renamed into the staging directory, to be made durable and
 * committed with the rest.
 */
static int
download(struct kt *kt, const char *kind, const char *name, const char *rel,
    const char *path, const struct net_stat *si)
{
	const struct kt_staged	*e;
	struct dl_req		 r;

	if (stage_create(kt) == -1)
		return -1;
	/* Staged already (-I: in another case): it replaces that file. */
	if ((e = staged(kt, rel)) != NULL)
		rel = e->rel;
	memset(&r, 0, sizeof(r));
	r.kind = kind;
	r.tname = name;
	r.dfd = kt->stagefd;
	r.rel = rel;
	r.dmode = 0777;
	r.w.path = path;
	r.w.source = "STAT reply";
	r.w.size = si->size;
	r.w.cksum = si->cksum;
	r.w.ck = kt->ck;
	r.w.mode = 0666;
	r.mtime = si->mtime;
	r.flags = DL_REPLACEDIR | DL_NOSYNC;
	/* Its STAT and RETR in turn: nothing else is in flight. */
	if (reqwin_fetch(kt->win, &r, 16 + (name != NULL ? strlen(name) : 0),
	    NULL, &kt->err) != DL_OK)
		return -1;
	stage_add(kt, rel, path, "updated", name == NULL ? KS_BASE :
	    strcmp(kind, "COMMAND") == 0 ? KS_COMMAND : KS_FILE);
	return 0;
}

/* Remember a file this run uses, to be checked against the release. */
static struct kt_used *
used_add(struct kt *kt, enum manifest_kind kind, const char *name,
    const char *rel, const char *path)
{
	struct kt_used	*u;

	kt->used = xreallocarray(kt->used, kt->nused + 1, sizeof(*kt->used));
	u = &kt->used[kt->nused++];
	u->kind = kind;
	u->name = name != NULL ? xstrdup(name) : NULL;
	u->rel = xstrdup(rel);
	u->path = xstrdup(path);
	u->verified = 0;
	return u;
}

static void
used_free(struct kt *kt)
{
	size_t	 i;

	for (i = 0; i < kt->nused; i++) {
		free(kt->used[i].name);
		free(kt->used[i].rel);
		free(kt->used[i].path);
	}
	free(kt->used);
	kt->used = NULL;
	kt->nused = 0;
}

/*
 * With keys pinned, before anything is renamed into place: every
 * command file and transcript this run uses, as it will be once the
 * staged files are in place (fetched now or already there), must have
 * the size and digest the release gives its name (the base command
 * file, whose name on the server the client does not know: those of
 * some command file of the release).  Special files were checked as
 * special.T was built (special_verify).  Returns 0, or -1 with kt->err
 * (kt->refused set when the release refuses a file).
 */
static int
release_verify(struct kt *kt)
{
	const struct kt_used	*u;
	struct cksum		*ck;
	struct stat		 st;
	char			 sum[CKSUM_B64MAX];
	int64_t			 size;
	size_t			 i;
	int			 fd, ok;

	if ((ck = cksum_new(kt->man.digest)) == NULL) {
		cerr_set(&kt->err, "%s: unsupported checksum", kt->man.digest);
		return -1;
	}
	for (i = 0; i < kt->nused; i++) {
		u = &kt->used[i];
		if (u->verified)
			continue;
		if ((fd = kt_open(kt, u->rel)) == -1 || fstat(fd, &st) == -1 ||
		    !S_ISREG(st.st_mode) || cksum_fd(ck, fd, sum, &size) ==
		    -1) {
			cerr_errno(&kt->err, "%s", u->path);
			if (fd != -1)
				close(fd);
			cksum_free(ck);
			return -1;
		}
		close(fd);
		ok = manifest_match(&kt->man, u->kind, u->name,
		    (uint64_t)size, sum);
		if (!ok) {
			kt->refused = 1;
			if (u->name != NULL && manifest_find(&kt->man, u->kind,
			    u->name) == NULL)
				cerr_set(&kt->err, "%s: not in release %llu "
				    "(keys pinned in %s): refusing", u->path,
				    (unsigned long long)kt->man.serial,
				    kt->keypath);
			else
				cerr_set(&kt->err, "%s: not the file release "
				    "%llu lists (size or %s digest differs; "
				    "keys pinned in %s): refusing", u->path,
				    (unsigned long long)kt->man.serial,
				    kt->man.digest, kt->keypath);
			cksum_free(ck);
			return -1;
		}
	}
	cksum_free(ck);
	return 0;
}

/*
 * Nonzero if the release accepted now is the one release.state records
 * already: the everyday run, where rewriting it (a temp file, two
 * fsyncs and a rename) would change nothing.
 */
static int
release_unchanged(const struct trust_state *prev,
    const struct trust_state *cur)
{
	return prev->have && cur->have && prev->serial == cur->serial &&
	    prev->expires == cur->expires &&
	    strcmp(prev->digest, cur->digest) == 0;
}

/*
 * With keys pinned, is the local file u (open as fd, st its fstat) what
 * the release lists under its name?  1 yes (u->verified set), 0 no, -1
 * with errno on a read error.
 */
static int
signed_same(struct kt *kt, struct kt_used *u, int fd, const struct stat *st)
{
	const struct manifest_ent	*me;
	char				 sum[CKSUM_B64MAX];
	int64_t				 size;

	if ((me = manifest_find(&kt->man, u->kind, u->name)) == NULL ||
	    (uint64_t)st->st_size != me->size)
		return 0;
	if (kt->rck == NULL && (kt->rck = cksum_new(kt->man.digest)) == NULL)
		return 0;
	if (lseek(fd, 0, SEEK_SET) == -1 ||
	    cksum_fd(kt->rck, fd, sum, &size) == -1)
		return -1;
	if ((uint64_t)size != me->size || strcmp(sum, me->digest) != 0)
		return 0;
	u->verified = 1;
	return 1;
}

/*
 * With keys pinned, before a file the release names (u) is fetched: the
 * release must list it, with the size the server's STAT reply gives (as
 * messages show it: path), or the download would only be refused once
 * received, after up to KT_MAXSIZE bytes the server chose.  0, or -1
 * with kt->err (kt->refused set).
 */
static int
signed_fetch(struct kt *kt, const struct kt_used *u, int64_t size,
    const char *path)
{
	const struct manifest_ent	*me;
	unsigned long long		 serial = kt->man.serial;

	if (u == NULL || u->name == NULL)
		return 0;
	if ((me = manifest_find(&kt->man, u->kind, u->name)) != NULL &&
	    (uint64_t)size == me->size)
		return 0;
	kt->refused = 1;
	if (me == NULL)
		cerr_set(&kt->err, "%s: not in release %llu (keys pinned in "
		    "%s): refusing", path, serial, kt->keypath);
	else
		cerr_set(&kt->err, "%s: the server's is not the file release "
		    "%llu lists (size differs; keys pinned in %s): refusing",
		    path, serial, kt->keypath);
	return -1;
}

/*
 * Compare one server file with its local copy and download it when it
 * differs.  Returns 0 same, 1 different (handled), -1 error.
 */
static int
check(struct kt *kt, const char *kind, const char *name, const char *rel,
    const char *path)
{
	struct net_stat	 si;
	struct stat	 st;
	struct kt_used	*u;
	char		 sum[CKSUM_B64MAX], *mname = NULL;
	const char	*why = NULL;
	int		 fd, r;

	if (net_stat(kt->net, kind, name, name != NULL ? name : path,
	    KT_MAXSIZE, &si, &kt->err) != 0)
		return -1;
	u = NULL;
	/*
	 * The release names a file canonically ("./a.T" is "a.T"), as rel
	 * is, and decoded, as the server reads the name it was asked for
	 * ("a\bb.T" is "a b.T"): never by the encoded spelling taken
	 * literally, which may be another file's name.
	 */
	if (kt->keys != NULL) {
		if (name != NULL && decode_path(rel, &mname) == -1) {
			kt->refused = 1;
			cerr_set(&kt->err, "%s: not in release %llu (keys "
			    "pinned in %s): refusing", path,
			    (unsigned long long)kt->man.serial, kt->keypath);
			return -1;
		}
		u = used_add(kt, strcmp(kind, "COMMAND") == 0 ?
		    MANIFEST_COMMAND : MANIFEST_TRANSCRIPT, mname, rel, path);
		free(mname);
	}
	if ((fd = kt_open(kt, rel)) == -1) {
		if (errno == ENOENT)
			why = "missing";
		else if (errno == ELOOP || errno == EISDIR || errno == ENOTDIR)
			why = "out of date";	/* replaced by the download */
		else {
			cerr_errno(&kt->err, "%s", path);
			return -1;
		}
	} else {
		if (fstat(fd, &st) == -1) {
			cerr_errno(&kt->err, "%s", path);
			close(fd);
			return -1;
		}
		if (u != NULL && u->name != NULL && S_ISREG(st.st_mode)) {
			/*
			 * Keys pinned, a file the release names: up to date
			 * when it is what the release lists, whatever the
			 * server says now; digested once, and not again by
			 * release_verify.
			 */
			if ((r = signed_same(kt, u, fd, &st)) == -1) {
				cerr_errno(&kt->err, "%s", path);
				close(fd);
				return -1;
			}
			if (r == 0)
				why = "out of date";
			else if (st.st_size != si.size) {
				/*
				 * What the server would send now is not what
				 * the release lists (a file of the same size
				 * goes unseen here: it is never taken).
				 */
				kt->refused = 1;
				cerr_set(&kt->err, "%s: the server's is not "
				    "the file release %llu lists (size "
				    "differs; keys pinned in %s): refusing",
				    path, (unsigned long long)kt->man.serial,
				    kt->keypath);
				close(fd);
				return -1;
			}
		} else if (!S_ISREG(st.st_mode) || st.st_size != si.size)
			why = "out of date";
		else if (kt->digest != NULL) {
			if (local_digest(kt, fd, sum) == -1) {
				cerr_errno(&kt->err, "%s", path);
				close(fd);
				return -1;
			}
			if (strcmp(sum, si.cksum) != 0)
				why = "out of date";
		} else if ((int64_t)st.st_mtime != si.mtime)
			why = "out of date";
		close(fd);
	}
	if (why == NULL)
		return 0;
	kt->changed = 1;
	if (kt->nflag) {
		if (!kt->qflag)
			printf("%s: %s\n", path, why);
		kt->stop = 1;
		return 1;
	}
	if (signed_fetch(kt, u, si.size, path) == -1 ||
	    download(kt, kind, name, rel, path, &si) == -1)
		return -1;
	return 1;
}

/* Remember name and its parent directories for -C. */
static void
keep_name(struct kt *kt, const char *name)
{
	char	*s, *p;

	s = xstrdup(name);
	strlist_add(&kt->keep, s);
	while ((p = strrchr(s, '/')) != NULL) {
		*p = '\0';
		if (!strlist_has(&kt->keep, s, 0))
			strlist_add(&kt->keep, s);
	}
	free(s);
}

/* cmdset_walk's open hook: command files only below the directory. */
static int
kt_kopen(void *arg, const char *kpath, const char *name)
{
	struct kt	*kt = arg;

	char		*rel;
	int		 fd, e;

	(void)kpath;
	if (name == NULL)
		return kt_open(kt, kt->base);
	rel = command_name_canon(name);
	fd = kt_open(kt, rel);
	e = errno;
	free(rel);
	errno = e;
	return fd;
}

/*
 * Nonzero if rel (canonical, below the command directory) is one of
 * ktcheck's own files there or leads through one: the base command
 * file, special.T, the release state, or a staging directory, ignoring
 * case with or without -I (a file system that ignores case has them
 * under every spelling); or if any component of it has the form of a
 * temporary name of ktcheck's (a download's, the release state's),
 * which the run would remove as it goes.  A command file naming one
 * would have this run overwrite or remove it, or fail halfway through
 * its commit.
 */
static int
own_name(const struct kt *kt, const char *rel)
{
	const char	*own[3], *p;
	size_t		 i, n;

	own[0] = kt->base;
	own[1] = "special.T";
	own[2] = TRUST_STATE;
	for (i = 0; i < sizeof(own) / sizeof(own[0]); i++)
		if (strcasecmp(rel, own[i]) == 0 ||
		    ischildcase(rel, own[i], 1))
			return 1;
	if (stage_name(rel))
		return 1;
	for (p = rel;; p += n + 1) {
		n = strcspn(p, "/");
		if (dl_istemp(p, n) || strncasecmp(p, TRUST_STATETMP,
		    strlen(TRUST_STATETMP)) == 0)
			return 1;
		if (p[n] == '\0')
			return 0;
	}
}

/*
 * cmdset_walk's entry hook: every k, p and n name is fetched or checked
 * as it comes, an included command file before it is read.
 */
static int
kt_entry(void *arg, const struct cline *c, const char *kpath,
    struct cerr *err)
{
	struct kt	*kt = arg;
	char		*sub, *rel;
	int		 r;

	(void)err;
	if (c->type != 'k' && c->type != 'p' && c->type != 'n')
		return 0;
	/*
	 * One file, one name: "./a.T" is "a.T" for staging, reading and
	 * -C; the server is asked for the name as written.
	 */
	rel = command_name_canon(c->name);
	if (own_name(kt, rel)) {
		cerr_set(&kt->err, "command file %s: line %u: %s: name "
		    "reserved for ktcheck's own files", kpath, c->lineno,
		    c->name);
		free(rel);
		return -1;
	}
	keep_name(kt, rel);
	xasprintf(&sub, "%s%s", kt->kdir, rel);
	r = check(kt, c->type == 'k' ? "COMMAND" : "TRANSCRIPT", c->name,
	    rel, sub);
	free(sub);
	free(rel);
	if (r == -1)
		return -1;
	return kt->stop ? 1 : 0;
}

/*
 * Walk the command file and what it includes (common/command.c, the
 * one loader), checking what they name; collect the specials.
 */
static int
read_kfile(struct kt *kt)
{
	struct cmdwalk	 w;
	struct cmdset	*cs;
	struct cerr	 err;
	size_t		 i;

	w.open = kt_kopen;
	w.entry = kt_entry;
	w.arg = kt;
	kt->err.msg[0] = '\0';
	if (cmdset_walk(kt->kfile, kt->kdir[0] != '\0' ? kt->kdir : "",
	    CMD_MINUS_S | (kt->icase ? CMD_ICASE : 0), &w, &cs, &err) == -1) {
		/* A hook's own message, else the loader's. */
		if (kt->err.msg[0] == '\0')
			kt->err = err;
		return -1;
	}
	for (i = 0; i < cs->nspecial; i++)
		if (!strlist_has(&kt->special, cs->special[i], kt->icase))
			strlist_add(&kt->special, cs->special[i]);
	cmdset_free(cs);
	return 0;
}

static int	 sort_icase;

static int
special_cmp(const void *a, const void *b)
{
	return pathcmp(*(char *const *)a, *(char *const *)b, sort_icase);
}

/*
 * With keys pinned, the special file asked for as tok, whose STAT reply
 * is line: fetch it (RETR SPECIAL, at most its STAT size and
 * KT_SPECIALMAX bytes, into memory), digest it with the release's
 * algorithm, and require a stat entry of its path (tok decoded, without
 * its "./" or "/") with exactly the type, mode, uid, gid, size and
 * digest seen.  Then its special.T line, with that digest in place of
 * the reply's SHA-1, goes to fp.  Returns 0, or -1 with kt->err
 * (kt->refused set when the release refuses the file).
 */
static int
special_verify(struct kt *kt, const char *tok, const char *line, FILE *fp)
{
	const struct manifest_ent	*e, *end, *same = NULL;
	struct cksum			*ck = NULL;
	char				 copy[8192], *av[9], q[1024];
	char				 sum[CKSUM_B64MAX], *dec = NULL;
	char				*meta = NULL, *data = NULL;
	const char			*name = NULL;
	unsigned long long		 serial = kt->man.serial;
	int64_t				 mtime, size;
	size_t				 len;
	int				 rc = -1;

	if (strlcpy(copy, line, sizeof(copy)) >= sizeof(copy) ||
	    proto_split(copy, av, 9) != 8 || strcmp(av[1], tok) != 0 ||
	    proto_parse_size(av[5], &mtime) == -1 ||
	    proto_parse_size(av[6], &size) == -1) {
		proto_quote(q, sizeof(q), line, 200);
		cerr_set(&kt->err, "%s: special file %s: bad STAT reply "
		    "\"%s\"", net_peer(kt->net), tok, q);
		return -1;
	}
	if (decode_path(tok, &dec) == 0)
		name = strncmp(dec, "./", 2) == 0 ? dec + 2 :
		    dec[0] == '/' ? dec + 1 : NULL;
	kt->refused = 1;
	if (name == NULL || (e = manifest_find(&kt->man, MANIFEST_STAT,
	    name)) == NULL) {
		cerr_set(&kt->err, "%s: special file %s: not in release %llu "
		    "(keys pinned in %s): refusing", kt->kfile, tok, serial,
		    kt->keypath);
		goto out;
	}
	if ((meta = manifest_meta(av[0], av[2], av[3], av[4])) == NULL) {
		proto_quote(q, sizeof(q), line, 200);
		cerr_set(&kt->err, "%s: special file %s: served as \"%s\", "
		    "which no release lists (keys pinned in %s): refusing",
		    kt->kfile, tok, q, kt->keypath);
		goto out;
	}
	if (size > KT_SPECIALMAX) {
		cerr_set(&kt->err, "%s: special file %s: %lld bytes, more "
		    "than the %lld a client with keys pinned fetches (keys "
		    "pinned in %s): refusing", kt->kfile, tok, (long long)size,
		    (long long)KT_SPECIALMAX, kt->keypath);
		goto out;
	}
	kt->refused = 0;
	if (net_send_retr(kt->net, "SPECIAL", NULL, tok, &kt->err) == -1 ||
	    dl_tomem(kt->net, tok, size, &data, &len, &kt->err) != DL_OK)
		goto out;
	if ((ck = cksum_new(kt->man.digest)) == NULL) {
		cerr_set(&kt->err, "%s: unsupported checksum", kt->man.digest);
		goto out;
	}
	cksum_update(ck, data, len);
	cksum_final(ck, sum);
	kt->refused = 1;
	end = kt->man.ent + kt->man.nent;
	for (; e < end && e->kind == MANIFEST_STAT &&
	    strcmp(e->name, name) == 0; e++) {
		if (e->size != (uint64_t)len || strcmp(e->digest, sum) != 0)
			continue;
		if (strcmp(e->meta, meta) == 0)
			break;
		if (same == NULL)
			same = e;
	}
	if (e < end && e->kind == MANIFEST_STAT && strcmp(e->name,
	    name) == 0) {
		kt->refused = 0;
		fprintf(fp, "%s %s %s %s %s %lld %lld %s\n", av[0], tok, av[2],
		    av[3], av[4], (long long)mtime, (long long)len, sum);
		rc = 0;
	} else if (same != NULL)
		cerr_set(&kt->err, "%s: special file %s: served as %s, "
		    "release %llu lists it as %s (keys pinned in %s): "
		    "refusing", kt->kfile, tok, meta, serial, same->meta,
		    kt->keypath);
	else
		cerr_set(&kt->err, "%s: special file %s: not the file "
		    "release %llu lists (size or %s digest differs; keys "
		    "pinned in %s): refusing", kt->kfile, tok, serial,
		    kt->man.digest, kt->keypath);
out:
	cksum_free(ck);
	free(data);
	free(meta);
	free(dec);
	return rc;
}

/*
 * Build special.T from STAT SPECIAL replies (docs/formats.md section 11)
 * in memory (with keys pinned, each special file checked against the
 * release and described with its digest: special_verify), compare it with the one in place (size and, with -c,
 * digest; without -c it always counts as changed) and, if it differs,
 * write it into the staging directory.
 */
static int
do_specials(struct kt *kt)
{
	char		 path[PATH_MAX], sum[CKSUM_B64MAX], lsum[CKSUM_B64MAX];
	char		*line, *text = NULL;
	const char	*why;
	struct stat	 st;
	size_t		 i, len = 0;
	FILE		*fp;
	int		 fd, exists, rc = -1;

	snprintf(path, sizeof(path), "%sspecial.T", kt->kdir);
	sort_icase = kt->icase;
	if (kt->special.n > 1)
		qsort(kt->special.v, kt->special.n, sizeof(char *),
		    special_cmp);
	if ((fp = open_memstream(&text, &len)) == NULL)
		fatal("open_memstream");
	for (i = 0; i < kt->special.n; i++) {
		if (net_send_stat(kt->net, "SPECIAL", kt->special.v[i],
		    &kt->err) == -1 ||
		    net_stat_reply(kt->net, &line, &kt->err) != 0) {
			fclose(fp);
			goto out;
		}
		if (kt->keys == NULL)
			fprintf(fp, "%s\n", line);
		else if (special_verify(kt, kt->special.v[i], line,
		    fp) == -1) {
			fclose(fp);
			goto out;
		}
	}
	if (fclose(fp) == EOF)
		fatal("open_memstream");

	exists = 1;
	if ((fd = kt_open(kt, "special.T")) == -1)
		exists = errno != ENOENT;
	else if (kt->digest != NULL && fstat(fd, &st) == 0 &&
	    S_ISREG(st.st_mode) && (size_t)st.st_size == len &&
	    local_digest(kt, fd, lsum) == 0) {
		cksum_reset(kt->ck);
		cksum_update(kt->ck, text, len);
		cksum_final(kt->ck, sum);
		if (strcmp(sum, lsum) == 0) {
			close(fd);
			rc = 0;
			goto out;
		}
	}
	if (fd != -1)
		close(fd);
	kt->changed = 1;
	if (kt->nflag) {
		kt->stop = 1;
		if (!kt->qflag)
			printf("%s: %s\n", path, exists ? "out of date" :
			    "missing");
		rc = 0;
		goto out;
	}
	why = exists ? "updated" : "created";
	if (stage_create(kt) == -1)
		goto out;
	/* Not while an interrupt removes the staging directory. */
	(void)intr_hold();
	if ((fd = openat(kt->stagefd, "special.T", O_WRONLY | O_CREAT |
	    O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0666)) == -1 ||
	    fs_write_all(fd, text, len) == -1) {
		cerr_errno(&kt->err, "%s%s/special.T", kt->kdir, kt->stage);
		if (fd != -1)
			close(fd);
		intr_release();
		goto out;
	}
	intr_release();
	if (close(fd) == -1) {
		cerr_errno(&kt->err, "%s%s/special.T", kt->kdir, kt->stage);
		goto out;
	}
	stage_add(kt, "special.T", path, why, KS_FILE);
	rc = 0;
out:
	free(text);
	return rc;
}

/*
 * -C: remove what no command file names.  rel is the path below the
 * command directory ("" for the top).
 */
static int
clean_dir(struct kt *kt, int dfd, const char *rel, const char *base)
{
	DIR		*d;
	struct dirent	*de;
	char		 sub[PATH_MAX];
	int		 fd, rc = 0;
	struct stat	 st;

	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s", rel,
		    rel[0] != '\0' ? "/" : "", de->d_name) >= sizeof(sub))
			continue;
		/* The release state is ktcheck's own: never "unnamed". */
		if (strcmp(sub, base) == 0 || strcmp(sub, "special.T") == 0 ||
		    strcmp(sub, TRUST_STATE) == 0)
			continue;
		if (strlist_has(&kt->keep, sub, kt->icase)) {
			if (fstatat(dirfd(d), de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
			    (fd = openat(dirfd(d), de->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) != -1 &&
			    clean_dir(kt, fd, sub, base) == -1)
				rc = -1;
			continue;
		}
		if (fs_rmtreeat(dirfd(d), de->d_name) == -1) {
			cerr_errno(&kt->err, "%s%s", kt->kdir, sub);
			rc = -1;
			continue;
		}
		kt->changed = 1;
		if (!kt->qflag)
			printf("%s%s: deleted\n", kt->kdir, sub);
	}
	closedir(d);
	return rc;
}

static int
tool_opt(int ch, const char *arg, void *ctx)
{
	struct kt	*kt = ctx;

	switch (ch) {
	case 'C':
		kt->clean = 1;
		break;
	case 'K':
		kt->kfile = arg;
		break;
	case 'n':
		kt->nflag = 1;
		break;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct kt		 kt;
	struct copts		 co;
	struct cerr		 cerr;
	const char		*slash, *msg, *base;
	int			 rc, fd, r, haveman = 0;

	log_init("ktcheck", LOG_TO_STDERR, 0);
	log_setfatalstatus(KT_ERROR);
	memset(&kt, 0, sizeof(kt));
	kt.stagefd = -1;
	/* -D is accepted and unused, as in Radmind 1.x. */
	copts_init(&co, COPTS_NET | COPTS_DIGEST | COPTS_DIR | COPTS_EVENT |
	    COPTS_ICASE | COPTS_LINEBUF | COPTS_QUIET | COPTS_KEYS, &kt.no);
	kt.kfile = _RADMIND_PATH "/client/command.K";
	co.event = "ktcheck";
	if (copts_parse(argc, argv, &co, "CK:n", tool_opt, &kt) == -1 ||
	    optind != argc)
		usage();
	kt.digest = co.digest;
	kt.event = co.event;
	kt.qflag = co.quiet;
	kt.icase = co.icase;
	/* Interrupted, it leaves no temp file (ktcheck(1), EXIT STATUS). */
	if (intr_init() == -1)
		fatal("signals");
	if (kt.digest != NULL)
		kt.ck = cksum_new(kt.digest);
	if ((kt.keys = copts_keys(&co, &cerr)) == NULL)
		fatalx("%s", cerr.msg);
	kt.keypath = co.keys;
	if (sigkeys_count(kt.keys) == 0) {
		/* No key pinned: as before signed releases. */
		sigkeys_free(kt.keys);
		kt.keys = NULL;
	}
	if ((slash = strrchr(kt.kfile, '/')) != NULL)
		kt.kdir = xstrndup(kt.kfile, (size_t)(slash - kt.kfile) + 1);
	else
		kt.kdir = xstrdup("");
	base = slash != NULL ? slash + 1 : kt.kfile;

	/* -n writes nothing, not even the command directory. */
	if (kt.kdir[0] != '\0' && !kt.nflag)
		(void)fs_mkparents(kt.kfile);	/* the command directory */
	if ((kt.kdirfd = open(kt.kdir[0] != '\0' ? kt.kdir : ".", O_RDONLY |
	    O_DIRECTORY | O_CLOEXEC)) == -1 && (!kt.nflag || errno != ENOENT))
		fatal("%s", kt.kdir[0] != '\0' ? kt.kdir : ".");
	if (!kt.nflag)
		stage_clean(&kt);
	/* No command directory (-n): no release accepted before. */
	if (kt.keys != NULL && kt.kdirfd != -1 && trust_state_read(kt.kdirfd,
	    kt.kdir, &kt.prev, &cerr) == -1)
		fatalx("%s", cerr.msg);
	if ((kt.net = net_open(&kt.no, &kt.err)) == NULL)
		fatalx("%s", kt.err.msg);
	kt.win = reqwin_new(kt.net, 1, REQWIN_MAXBYTES, &kt_fetch, NULL);
	rc = KT_ERROR;
	if (kt.keys != NULL) {
		r = trust_fetch(kt.net, kt.keys, kt.keypath, &kt.prev,
		    (int64_t)time(NULL), &kt.man, &kt.cur, &kt.err);
		if (r != TRUST_OK) {
			kt.refused = r == TRUST_REFUSED;
			goto done;
		}
		haveman = 1;
	}
	if (check(&kt, "COMMAND", NULL, base, kt.kfile) == -1)
		goto done;
	kt.base = base;
	if (!kt.stop && read_kfile(&kt) == -1)
		goto done;
	if (!kt.stop && do_specials(&kt) == -1)
		goto done;
	/* -n changes nothing: the release is checked, not the files. */
	if (kt.keys != NULL && !kt.nflag && release_verify(&kt) == -1)
		goto done;
	if (kt.nstaged > 0 && stage_commit(&kt) == -1)
		goto done;
	stage_remove(&kt);
	if (kt.keys != NULL && !kt.nflag &&
	    !release_unchanged(&kt.prev, &kt.cur) &&
	    trust_state_write(kt.kdirfd, kt.kdir, &kt.cur, &kt.err) == -1)
		goto done;
	if (kt.clean && !kt.nflag) {
		if ((fd = open(kt.kdir[0] != '\0' ? kt.kdir : ".", O_RDONLY |
		    O_DIRECTORY | O_CLOEXEC)) == -1 ||
		    clean_dir(&kt, fd, "", base) == -1) {
			cerr_errno(&kt.err, "%s", kt.kdir[0] ? kt.kdir : ".");
			goto done;
		}
	}
	rc = kt.changed ? KT_CHANGED : KT_OK;
done:
	stage_remove(&kt);
	if (rc == KT_ERROR && kt.refused) {
		rc = KT_REFUSED;
		log_warnx("%s", kt.err.msg);
		msg = "Release refused";
	} else if (rc == KT_ERROR) {
		log_warnx("%s", kt.err.msg);
		msg = "Error";
	} else if (rc == KT_CHANGED)
		msg = kt.nflag ? "Updates available" : "Updates retrieved";
	else
		msg = "No updates needed";
	if (net_has_cap(kt.net, "REPO") &&
	    net_report(kt.net, kt.event, msg, &cerr) == -1) {
		log_warnx("%s", cerr.msg);
		if (rc != KT_REFUSED)
			rc = KT_ERROR;
	}
	if (kt.no.verbose)
		net_print_stats(kt.net, stdout);
	reqwin_free(kt.win);
	if (net_close(kt.net, &cerr) == -1) {
		log_warnx("%s", cerr.msg);
		if (rc != KT_REFUSED)
			rc = KT_ERROR;
	}
	if (rc == KT_OK && !kt.qflag)
		printf("No updates needed\n");
	strlist_free(&kt.keep);
	strlist_free(&kt.special);
	used_free(&kt);
	if (haveman)
		manifest_free(&kt.man);
	sigkeys_free(kt.keys);
	free(kt.kdir);
	cksum_free(kt.ck);
	cksum_free(kt.rck);
	if (kt.kdirfd != -1)
		close(kt.kdirfd);
	intr_exit(rc);
}
