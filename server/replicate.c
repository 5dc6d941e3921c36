/*
 * cairn-replicate: keep a replica's repository identical to a primary's
 * by pulling over the cairn protocol (cairn-replicate(8)).
 *
 * The primary's config maps the replica to a command file that includes
 * every command file to replicate; that makes every command file,
 * transcript and file reachable through the access list.  Each run
 * stages what differs under tmp/ on the replica, puts each changed
 * loadset into service with cairn-publish (files before transcript),
 * and only then renames the command files into command/, so a client of
 * the replica never finds a command file naming a transcript that is
 * not in service, nor a transcript without its files.
 *
 * The primary's signed release (release/current: its manifest and
 * signature, docs/protocol.md 5.12) is copied last, byte for byte, as
 * a new release/<serial> directory and an atomic swap of current: a
 * replica needs no key, and serves exactly what the administrator
 * signed.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "cksum.h"
#include "command.h"
#include "compat.h"
#include "confine.h"
#include "copts.h"
#include "download.h"
#include "fsutil.h"
#include "intr.h"
#include "log.h"
#include "manifest.h"
#include "release.h"
#include "net.h"
#include "path.h"
#include "proto.h"
#include "reqwin.h"
#include "sig.h"
#include "strlist.h"
#include "transcript.h"
#include "xmalloc.h"

#define RP_OK		0	/* in step */
#define RP_CHANGED	1	/* something was brought up to date */
#define RP_ERROR	2

#define RP_MAXSIZE	(1LL << 30)	/* largest command file or transcript */
#define RP_STAGE	"tmp/replicate"	/* staged command files */
#define RP_WINDOW	64		/* file requests in flight */
#define RP_WINBYTES	REQWIN_MAXBYTES	/* ... and their text: well inside
					   the socket buffers, so sending
					   never waits on unread replies */

/* A file requested and not yet received: a request and its strings. */
struct rp_req {
	struct dl_req	 r;
	char		*name, *epath, *rel, *path, *cksum;
};

struct rp {
	struct net	*net;
	struct netopts	 no;
	const char	*dir;		/* -D */
	char		*kname;		/* -K: name of the base command file,
					   canonical (command_name_canon) */
	const char	*digest;	/* -c */
	struct cksum	*ck;
	struct reqwin	*win;		/* requests in flight (rp_req) */
	int		 rflag, nflag, qflag;
	int		 repofd;	/* the repository, open */
	int		 changed;
	struct strlist	 kfiles;	/* command files (names) */
	struct strlist	 trans;		/* transcripts (names) */
	/* The primary's release, fetched first (fetch_release). */
	char		*man, *sig;
	size_t		 manlen, siglen;
	uint64_t	 serial;
	int		 relnew;	/* not the one the replica serves */
	char		 publish[PATH_MAX + 32];	/* cairn-publish */
	struct cerr	 err;
};

static void
usage(void)
{
	fprintf(stderr, "usage: cairn-replicate [-nqrVv] [-c checksum] "
	    "[-D path] [-K command file] %s\n", copts_usage());
	exit(RP_ERROR);
}

/* A transcript name is one component, as cairn-publish requires. */
static int
tname_ok(const char *name)
{
	return name[0] != '\0' && strchr(name, '/') == NULL &&
	    strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

static int
rp_mkdir(void *ctx, int pfd, const char *name, const char *rel, size_t len)
{
	(void)ctx;
	(void)rel;
	(void)len;
	return mkdirat(pfd, name, 0755);
}

/* The server's copy of a command file or transcript: its STAT reply. */
static int
rp_stat(struct rp *rp, const char *kind, const char *name,
    struct net_stat *si)
{
	return net_stat(rp->net, kind, name, NULL, RP_MAXSIZE, si, &rp->err) ==
	    0 ? 0 : -1;
}

/*
 * Nonzero if rel below dfd is a regular file of size bytes whose digest
 * is cksum (the one checksum code, common/cksum.c).
 */
static int
same_file(struct rp *rp, int dfd, const char *rel, int64_t size,
    const char *cksum)
{
	struct stat	 st;
	char		 sum[CKSUM_B64MAX];
	int		 fd, same = 0;

	if ((fd = confine_open(dfd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY,
	    0)) == -1)
		return 0;
	if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
	    st.st_size == size && cksum_fd(rp->ck, fd, sum, NULL) == 0)
		same = strcmp(sum, cksum) == 0;
	close(fd);
	return same;
}

static void
rp_req_free(void *arg, void *item)
{
	struct rp_req	*q = item;

	(void)arg;
	free(q->name);
	free(q->epath);
	free(q->rel);
	free(q->path);
	free(q->cksum);
	free(q);
}

/* Receive the reply of q into its place, then forget q. */
static int
rp_req_recv(void *arg, struct net *net, void *item, void *ctx,
    struct cerr *err)
{
	int	rc;

	rc = dl_req_recv(arg, net, &((struct rp_req *)item)->r, ctx, err);
	rp_req_free(arg, item);
	return rc;
}

static int
rp_req_send(void *arg, struct net *net, void *item, struct cerr *err)
{
	return dl_req_send(arg, net, &((struct rp_req *)item)->r, err);
}

static const struct reqwin_ops	rp_ops = {
	rp_req_send, rp_req_recv, rp_req_free
};

/*
 * The request of kind name [epath] into rel below dfd, path naming it in
 * messages, checked against the size and digest source gives.
 */
static struct rp_req *
rp_req(struct rp *rp, const char *kind, const char *name, const char *epath,
    int dfd, const char *rel, const char *path, const char *source,
    int64_t size, const char *cksum)
{
	struct rp_req	*q;

	q = xcalloc(1, sizeof(*q));
	q->name = name != NULL ? xstrdup(name) : NULL;
	q->epath = epath != NULL ? xstrdup(epath) : NULL;
	q->rel = xstrdup(rel);
	q->path = xstrdup(path);
	q->cksum = xstrdup(cksum);
	q->r.kind = kind;
	q->r.tname = q->name;
	q->r.epath = q->epath;
	q->r.dfd = dfd;
	q->r.rel = q->rel;
	q->r.dmode = 0755;
	q->r.w.path = q->path;
	q->r.w.source = source;
	q->r.w.size = size;
	q->r.w.cksum = q->cksum;
	q->r.w.ck = rp->ck;
	q->r.w.mode = 0444;
	q->r.mtime = -1;
	return q;
}

/* The text of a request for name [epath]. */
static size_t
rp_reqlen(const char *name, const char *epath)
{
	return 16 + (name != NULL ? strlen(name) : 0) +
	    (epath != NULL ? strlen(epath) : 0);
}

/*
 * Fetch kind name (a command file or a transcript) into rel below dfd
 * through the one download routine, which checks size and digest
 * against what the STAT reply says; the verified file is made durable
 * and renamed into place.  path names it in messages.
 */
static int
fetch(struct rp *rp, const char *kind, const char *name, int dfd,
    const char *rel, const char *path, int64_t size, const char *cksum)
{
	return reqwin_fetch(rp->win, rp_req(rp, kind, name, NULL, dfd, rel,
	    path, "STAT reply", size, cksum), rp_reqlen(name, NULL), NULL,
	    &rp->err) == DL_OK ? 0 : -1;
}

/*
 * Request file epath of loadset tname for rel below the stage, keeping
 * up to RP_WINDOW requests (and RP_WINBYTES of their text) in flight,
 * oldest received first when the window is full: over a long path, one
 * round trip per file would dominate a tree of small files.  A file of
 * a staged loadset is made durable with the others at once (syncfs)
 * before cairn-publish, not one fsync each.
 */
static int
request(struct rp *rp, const char *tname, const char *epath, int stagefd,
    const char *rel, const char *path, int64_t size, const char *cksum)
{
	struct rp_req	*q;

	q = rp_req(rp, "FILE", tname, epath, stagefd, rel, path,
	    "transcript", size, cksum);
	q->r.flags = DL_NOSYNC;
	return reqwin_push(rp->win, q, rp_reqlen(tname, epath), NULL,
	    &rp->err);
}

/* Open (making it) the directory rel below the repository. */
static int
rp_opendir(struct rp *rp, const char *rel)
{
	const char	*leaf;
	size_t		 bad;
	int		 pfd, fd;

	if ((pfd = confine_parent(rp->repofd, rel, rp_mkdir, NULL, &leaf,
	    &bad)) == -1)
		return -1;
	if (mkdirat(pfd, leaf, 0755) == -1 && errno != EEXIST) {
		close(pfd);
		return -1;
	}
	fd = confine_open(pfd, leaf, O_RDONLY | O_DIRECTORY, 0);
	close(pfd);
	return fd;
}

/* cmdset_walk's open hook: the staged copies. */
static int
rp_kopen(void *arg, const char *kpath, const char *name)
{
	struct rp	*rp = arg;
	char		 rel[PATH_MAX], *k;

	(void)kpath;
	k = name != NULL ? command_name_canon(name) : xstrdup(rp->kname);
	snprintf(rel, sizeof(rel), RP_STAGE "/command/%s", k);
	free(k);
	return confine_open(rp->repofd, rel, O_RDONLY | O_NONBLOCK, 0);
}

/*
 * cmdset_walk's entry hook: fetch each included command file into the
 * stage before it is read, and collect the transcripts.
 */
static int
rp_entry(void *arg, const struct cline *c, const char *kpath,
    struct cerr *err)
{
	struct rp	*rp = arg;
	struct net_stat	 si;
	char		 rel[PATH_MAX], *k;
	int		 r;

	(void)err;
	if (c->type == 'p' || c->type == 'n') {
		if (!tname_ok(c->name)) {
			cerr_set(&rp->err, "command file %s: line %u: %s: "
			    "not a transcript name", kpath, c->lineno,
			    c->name);
			return -1;
		}
		strlist_add(&rp->trans, c->name);
		return 0;
	}
	if (c->type != 'k')
		return 0;
	/* One file, one name: "./a.K" is "a.K"; asked for as written. */
	k = command_name_canon(c->name);
	if (strcmp(k, rp->kname) == 0) {
		cerr_set(&rp->err, "command file %s: line %u: %s: name "
		    "reserved for the base command file", kpath, c->lineno,
		    c->name);
		free(k);
		return -1;
	}
	if (strlist_has(&rp->kfiles, k, 0)) {
		free(k);
		return 0;
	}
	strlist_add(&rp->kfiles, k);
	snprintf(rel, sizeof(rel), RP_STAGE "/command/%s", k);
	r = 0;
	if (rp_stat(rp, "COMMAND", c->name, &si) == -1 ||
	    fetch(rp, "COMMAND", c->name, rp->repofd, rel, k, si.size,
	    si.cksum) == -1)
		r = -1;
	free(k);
	return r;
}

/* Fetch the base command file and everything it includes into the stage. */
static int
fetch_commands(struct rp *rp)
{
	struct cmdwalk	 w;
	struct cmdset	*cs;
	struct cerr	 err;
	struct net_stat	 si;
	char		 rel[PATH_MAX];

	snprintf(rel, sizeof(rel), RP_STAGE "/command/%s", rp->kname);
	if (rp_stat(rp, "COMMAND", NULL, &si) == -1 ||
	    fetch(rp, "COMMAND", NULL, rp->repofd, rel, rp->kname, si.size,
	    si.cksum) == -1)
		return -1;
	strlist_add(&rp->kfiles, rp->kname);
	w.open = rp_kopen;
	w.entry = rp_entry;
	w.arg = rp;
	rp->err.msg[0] = '\0';
	if (cmdset_walk(rp->kname, "", 0, &w, &cs, &err) == -1) {
		if (rp->err.msg[0] == '\0')
			rp->err = err;
		return -1;
	}
	cmdset_free(cs);
	return 0;
}

/* The cairn-publish running, or 0 (written in held sections). */
static pid_t	 rp_child;

/*
 * Interrupted (common/intr.h): a cairn-publish under way is let finish
 * (one sent the terminal's signal with us stops on its own), so that
 * nothing of the run is still changing the repository after it ends.
 */
static void
rp_interrupted(void *arg)
{
	(void)arg;
	if (rp_child > 0)
		while (waitpid(rp_child, NULL, 0) == -1 && errno == EINTR)
			continue;
}

/*
 * Run cairn-publish on transcript name, staged in tmp/: a separate
 * program, the one place that knows how to put a loadset into service.
 */
static int
publish(struct rp *rp, const char *name, int force)
{
	char	*av[10];
	pid_t	 pid;
	int	 ac = 0, status, nfd;

	av[ac++] = "cairn-publish";
	if (force)
		av[ac++] = "-f";
	av[ac++] = "-c";
	av[ac++] = (char *)rp->digest;
	av[ac++] = "-D";
	av[ac++] = (char *)rp->dir;
	av[ac++] = "--";
	av[ac++] = (char *)name;
	av[ac] = NULL;
	fflush(stdout);
	(void)intr_hold();
	if ((pid = fork()) == -1) {
		intr_release();
		cerr_errno(&rp->err, "fork");
		return -1;
	}
	if (pid > 0) {
		rp_child = pid;
		intr_release();
	}
	if (pid == 0) {
		/* -q: cairn-publish's own report is not wanted either. */
		if (rp->qflag && (nfd = open("/dev/null", O_WRONLY)) != -1)
			(void)dup2(nfd, STDOUT_FILENO);
		/* cairn-publish gets the signals as we got them. */
		intr_child();
		execv(rp->publish, av);
		fprintf(stderr, "cairn-replicate: %s: %s\n", rp->publish,
		    strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) == -1)
		if (errno != EINTR) {
			cerr_errno(&rp->err, "waitpid");
			return -1;
		}
	(void)intr_hold();
	rp_child = 0;
	intr_release();
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		cerr_set(&rp->err, "%s: cairn-publish%s failed (status %d)",
		    name, force ? " -f" : "",
		    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
		return -1;
	}
	return 0;
}

static int
str_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Remove from the stage below dfd (prefix: its path there, "" at the
 * top) every file the transcript does not list (names: sorted): the
 * temporary file of a download an interruption cut short, or a file of
 * an earlier generation, must not go into service with the loadset.
 */
static int
prune(int dfd, const char *prefix, char **names, size_t n)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	char		 rel[PATH_MAX], *key = rel;
	int		 fd, sub, rc = 0;

	if ((fd = dup(dfd)) == -1 || (d = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return -1;
	}
	rewinddir(d);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if ((size_t)snprintf(rel, sizeof(rel), "%s%s%s", prefix,
		    prefix[0] != '\0' ? "/" : "", de->d_name) >= sizeof(rel))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if ((sub = openat(dirfd(d), de->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1)
				continue;
			if (prune(sub, rel, names, n) == -1)
				rc = -1;
			close(sub);
			continue;
		}
		if (bsearch(&key, names, n, sizeof(*names), str_cmp) != NULL)
			continue;
		if (unlinkat(dirfd(d), de->d_name, 0) == -1)
			rc = -1;
	}
	closedir(d);
	return rc;
}

/*
 * Bring one loadset in step.  The transcript from the network is
 * hostile input: it is read with the one transcript reader, and a path
 * that could leave file/<name>/ refuses the whole loadset.
 */
static int
do_transcript(struct rp *rp, const char *name)
{
	struct net_stat		 si;
	struct treader		*r = NULL;
	const struct tline	*t;
	char			 trel[PATH_MAX], frel[PATH_MAX], srel[PATH_MAX];
	char			 tpath[2 * PATH_MAX], path[PATH_MAX];
	char			**names = NULL;
	const char		*rel, *tsrc, *leaf;
	struct stat		 st;
	size_t			 nnames = 0, i, bad;
	int			 tdiff, fdiff = 0, rc, stagefd = -1, livefd = -1;
	int			 ret = -1, live, pfd;

	snprintf(trel, sizeof(trel), "transcript/%s", name);
	snprintf(srel, sizeof(srel), "tmp/transcript/%s", name);
	snprintf(frel, sizeof(frel), "tmp/file/%s", name);
	if (rp_stat(rp, "TRANSCRIPT", name, &si) == -1)
		return -1;
	tdiff = !same_file(rp, rp->repofd, trel, si.size, si.cksum);
	if (tdiff) {
		/* The new transcript, staged where cairn-publish takes it. */
		if (!same_file(rp, rp->repofd, srel, si.size, si.cksum) &&
		    fetch(rp, "TRANSCRIPT", name, rp->repofd, srel, name,
		    si.size, si.cksum) == -1)
			return -1;
		tsrc = srel;
	} else
		tsrc = trel;
	snprintf(tpath, sizeof(tpath), "%s/%s", rp->dir, tsrc);

	/* The files in service, and the stage of the new tree. */
	snprintf(path, sizeof(path), "file/%s", name);
	live = (livefd = confine_open(rp->repofd, path, O_RDONLY |
	    O_DIRECTORY, 0)) != -1;
	if ((r = treader_open(tpath, name, TR_CKSUM, &rp->err)) == NULL)
		goto out;
	while ((rc = treader_next(r, &t, &rp->err)) > 0) {
		if (rc != TL_OBJECT || t->minus ||
		    (t->type != 'f' && t->type != 'a'))
			continue;
		rel = t->path;
		if (path_has_dotdot(rel) || confine_badpath(rel)) {
			cerr_set(&rp->err, "%s: line %u: %s: path outside "
			    "the loadset, refused", name, t->lineno, t->epath);
			goto out;
		}
		while (rel[0] == '/' || (rel[0] == '.' && rel[1] == '/'))
			rel += rel[0] == '/' ? 1 : 2;
		if (rel[0] == '\0') {
			cerr_set(&rp->err, "%s: line %u: %s: not a file "
			    "name, refused", name, t->lineno, t->epath);
			goto out;
		}
		if (!tdiff && !fdiff && live &&
		    same_file(rp, livefd, rel, t->size, t->cksum))
			continue;
		if (!fdiff) {
			/*
			 * The first file that differs: from here on the
			 * whole tree is staged, unchanged files linked
			 * from the tree in service.
			 */
			fdiff = 1;
			treader_close(r);
			if ((r = treader_open(tpath, name, TR_CKSUM,
			    &rp->err)) == NULL)
				goto out;
			if ((stagefd = rp_opendir(rp, frel)) == -1) {
				cerr_errno(&rp->err, "%s/%s", rp->dir, frel);
				goto out;
			}
			continue;
		}
		names = xreallocarray(names, nnames + 1, sizeof(*names));
		names[nnames++] = xstrdup(rel);
		if (same_file(rp, stagefd, rel, t->size, t->cksum))
			continue;
		if (live && same_file(rp, livefd, rel, t->size, t->cksum)) {
			if ((pfd = confine_parent(stagefd, rel, rp_mkdir,
			    NULL, &leaf, &bad)) != -1) {
				(void)unlinkat(pfd, leaf, 0);
				rc = linkat(livefd, rel, pfd, leaf, 0);
				close(pfd);
				if (rc == 0)
					continue;
			}
			/* No link (another file system): fetch it. */
		}
		snprintf(path, sizeof(path), "%s: %s", name, t->path);
		if (request(rp, name, t->epath, stagefd, rel, path, t->size,
		    t->cksum) == -1)
			goto out;
	}
	if (rc == -1 || reqwin_recvall(rp->win, NULL, &rp->err) == -1)
		goto out;
	if (!tdiff && !fdiff) {
		/* In step; drop anything an interrupted run staged. */
		(void)fs_rmtreeat(rp->repofd, frel);
		(void)unlinkat(rp->repofd, srel, 0);
		ret = 0;
		goto out;
	}
	if (stagefd == -1 && (stagefd = rp_opendir(rp, frel)) == -1) {
		cerr_errno(&rp->err, "%s/%s", rp->dir, frel);
		goto out;
	}
	if (nnames > 1)
		qsort(names, nnames, sizeof(*names), str_cmp);
	if (prune(stagefd, "", names, nnames) == -1) {
		cerr_errno(&rp->err, "%s/%s", rp->dir, frel);
		goto out;
	}
	if (!tdiff) {
		/* Files repaired under an unchanged transcript. */
		(void)unlinkat(rp->repofd, srel, 0);
		if (linkat(rp->repofd, trel, rp->repofd, srel, 0) == -1) {
			cerr_errno(&rp->err, "%s/%s", rp->dir, srel);
			goto out;
		}
	}
	rp->changed = 1;
	if (rp->nflag) {
		printf("%s: out of date\n", name);
		ret = 0;
		goto out;
	}
	if (syncfs(stagefd) == -1) {
		cerr_errno(&rp->err, "%s/%s: syncfs", rp->dir, frel);
		goto out;
	}
	if (publish(rp, name, live || fstatat(rp->repofd, trel, &st,
	    AT_SYMLINK_NOFOLLOW) == 0) == -1)
		goto out;
	if (!rp->qflag)
		printf("%s: updated\n", name);
	ret = 0;
out:
	for (i = 0; i < nnames; i++)
		free(names[i]);
	free(names);
	if (r != NULL)
		treader_close(r);
	if (stagefd != -1)
		close(stagefd);
	if (livefd != -1)
		close(livefd);
	return ret;
}

/* Rename the staged command files into command/ (after the loadsets). */
static int
install_commands(struct rp *rp)
{
	struct stat	 st;
	char		 src[PATH_MAX], dst[PATH_MAX], sum[CKSUM_B64MAX];
	const char	*leaf;
	size_t		 i, bad;
	int		 pfd, sfd;

	for (i = 0; i < rp->kfiles.n; i++) {
		snprintf(src, sizeof(src), RP_STAGE "/command/%s",
		    rp->kfiles.v[i]);
		snprintf(dst, sizeof(dst), "command/%s", rp->kfiles.v[i]);
		if ((sfd = confine_open(rp->repofd, src, O_RDONLY, 0)) ==
		    -1 || fstat(sfd, &st) == -1) {
			cerr_errno(&rp->err, "%s/%s", rp->dir, src);
			if (sfd != -1)
				close(sfd);
			return -1;
		}
		if (cksum_fd(rp->ck, sfd, sum, NULL) == -1) {
			cerr_errno(&rp->err, "%s/%s", rp->dir, src);
			close(sfd);
			return -1;
		}
		close(sfd);
		if (same_file(rp, rp->repofd, dst, st.st_size, sum))
			continue;
		rp->changed = 1;
		if (rp->nflag) {
			printf("command/%s: out of date\n", rp->kfiles.v[i]);
			continue;
		}
		/*
		 * The stage is on the repository's file system: one
		 * rename puts the whole new command file in place.
		 */
		if ((pfd = confine_parent(rp->repofd, dst, rp_mkdir, NULL,
		    &leaf, &bad)) == -1) {
			cerr_errno(&rp->err, "%s/%s", rp->dir, dst);
			return -1;
		}
		if (renameat(rp->repofd, src, pfd, leaf) == -1 ||
		    fsync(pfd) == -1) {
			cerr_errno(&rp->err, "%s/%s", rp->dir, dst);
			close(pfd);
			return -1;
		}
		close(pfd);
		if (!rp->qflag)
			printf("command/%s: updated\n", rp->kfiles.v[i]);
	}
	return 0;
}

/*
 * -r: remove the loadsets no command file names any more; the command
 * files that named them were replaced first.
 */
static int
remove_stale(struct rp *rp)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	char		 rel[PATH_MAX];
	int		 dfd, rc = 0;

	if ((dfd = confine_open(rp->repofd, "transcript", O_RDONLY |
	    O_DIRECTORY, 0)) == -1 || (d = fdopendir(dfd)) == NULL) {
		cerr_errno(&rp->err, "%s/transcript", rp->dir);
		if (dfd != -1)
			close(dfd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		/* special.T: the server-wide special defaults (cairnd(8)). */
		if (de->d_name[0] == '.' ||
		    strlist_has(&rp->trans, de->d_name, 0) ||
		    strcmp(de->d_name, "special.T") == 0)
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
		    !S_ISREG(st.st_mode))
			continue;
		rp->changed = 1;
		if (rp->nflag) {
			printf("%s: would be removed\n", de->d_name);
			continue;
		}
		/* Transcript first: no transcript is left without files. */
		if (unlinkat(dfd, de->d_name, 0) == -1) {
			cerr_errno(&rp->err, "%s/transcript/%s", rp->dir,
			    de->d_name);
			rc = -1;
			continue;
		}
		snprintf(rel, sizeof(rel), "file/%s", de->d_name);
		if (fs_rmtreeat(rp->repofd, rel) == -1 && errno != ENOENT) {
			cerr_errno(&rp->err, "%s/%s", rp->dir, rel);
			rc = -1;
		}
		if (!rp->qflag)
			printf("%s: removed\n", de->d_name);
	}
	closedir(d);
	return rc;
}

/* Nonzero if file name in dfd holds exactly len bytes p. */
static int
rp_samebytes(int dfd, const char *name, const char *p, size_t len)
{
	char	*buf;
	ssize_t	 n;
	size_t	 got = 0;
	int	 fd, same = 0;

	if ((fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return 0;
	buf = xmalloc(len + 1);
	while (got < len + 1 && (n = read(fd, buf + got, len + 1 - got)) > 0)
		got += (size_t)n;
	close(fd);
	same = got == len && memcmp(buf, p, len) == 0;
	free(buf);
	return same;
}

/*
 * Fetch the primary's release (its manifest and signature; the size
 * each client bounds it), before anything else is fetched or installed:
 * one whose serial the replica has installed already (the primary went
 * back to an older release, or reused a serial) is refused while the
 * replica still serves its own release with the files that go with it.
 * Nothing to do when the primary has none or the replica serves the
 * same already.  Returns 0 or -1 with rp->err.
 */
static int
fetch_release(struct rp *rp)
{
	struct manifest	 m;
	struct cerr	 e;
	uint64_t	 cs;
	int		 rfd = -1, cfd = -1, rc = -1, parsed = 0;

	if (!net_has_cap(rp->net, "MANIFEST"))
		return 0;
	if (net_send_retr(rp->net, "MANIFEST", NULL, NULL, &rp->err) == -1 ||
	    dl_tomem(rp->net, "release manifest", MANIFEST_MAX, &rp->man,
	    &rp->manlen, &rp->err) != DL_OK ||
	    net_send_retr(rp->net, "SIGNATURE", NULL, NULL, &rp->err) == -1 ||
	    dl_tomem(rp->net, "release signature", SIG_MAX, &rp->sig,
	    &rp->siglen, &rp->err) != DL_OK)
		goto out;
	if (manifest_parse(rp->man, rp->manlen, "release manifest", &m,
	    &e) == -1) {
		cerr_set(&rp->err, "%s: %s", net_peer(rp->net), e.msg);
		goto out;
	}
	parsed = 1;
	rp->serial = m.serial;
	if ((rfd = release_open(rp->repofd, 1, &e)) == -1) {
		cerr_set(&rp->err, "%s/%s", rp->dir, e.msg);
		goto out;
	}
	if ((cfd = openat(rfd, "current", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) != -1 && rp_samebytes(cfd, "manifest", rp->man,
	    rp->manlen) && rp_samebytes(cfd, "manifest.sig", rp->sig,
	    rp->siglen)) {
		rc = 0;
		goto out;
	}
	if (release_current(rfd, &cs, NULL, &e) == -1) {
		cerr_set(&rp->err, "%s/%s", rp->dir, e.msg);
		goto out;
	}
	if (cs >= rp->serial) {
		cerr_set(&rp->err, "%s: release %llu: release %llu is "
		    "installed already: nothing replaced", net_peer(rp->net),
		    (unsigned long long)rp->serial, (unsigned long long)cs);
		goto out;
	}
	rp->relnew = 1;
	rc = 0;
out:
	if (parsed)
		manifest_free(&m);
	if (cfd != -1)
		close(cfd);
	if (rfd != -1)
		close(rfd);
	return rc;
}

/*
 * Install the release fetch_release took, last (it names what is in
 * service now), as cairn-publish installs one (release.h: release/
 * <serial>, then release/current swapped, the two newest serials kept).
 * Returns 0 or -1 with rp->err.
 */
static int
install_release(struct rp *rp)
{
	struct cerr	 e;
	int		 rfd, rc = -1;

	if (!rp->relnew)
		return 0;
	rp->changed = 1;
	if (rp->nflag) {
		printf("release %llu: out of date\n",
		    (unsigned long long)rp->serial);
		return 0;
	}
	if ((rfd = release_open(rp->repofd, 1, &e)) == -1) {
		cerr_set(&rp->err, "%s/%s", rp->dir, e.msg);
		return -1;
	}
	/* As cairn-publish installs one: durable, then current swapped. */
	if (release_install(rfd, rp->serial, rp->man, rp->manlen, rp->sig,
	    rp->siglen, &e) == -1)
		cerr_set(&rp->err, "%s/%s", rp->dir, e.msg);
	else {
		if (!rp->qflag)
			printf("release %llu: updated\n",
			    (unsigned long long)rp->serial);
		rc = 0;
	}
	close(rfd);
	return rc;
}

/* cairn-publish lives beside this program (the same bindir). */
static void
find_publish(struct rp *rp, const char *argv0)
{
	char	 self[PATH_MAX], *slash;
	ssize_t	 n;

	if ((n = readlink("/proc/self/exe", self, sizeof(self) - 1)) > 0) {
		self[n] = '\0';
	} else if (strchr(argv0, '/') != NULL)
		strlcpy(self, argv0, sizeof(self));
	else
		snprintf(self, sizeof(self), "%s/cairn-replicate", SBINDIR);
	if ((slash = strrchr(self, '/')) != NULL)
		*slash = '\0';
	snprintf(rp->publish, sizeof(rp->publish), "%s/cairn-publish", self);
}

static int
tool_opt(int ch, const char *arg, void *ctx)
{
	struct rp	*rp = ctx;

	switch (ch) {
	case 'K':
		if (!command_name_ok(arg))
			return -1;
		free(rp->kname);
		rp->kname = command_name_canon(arg);
		break;
	case 'n':
		rp->nflag = 1;
		break;
	case 'r':
		rp->rflag = 1;
		break;
	}
	return 0;
}

static const char	*layout[] = {
	"command", "transcript", "file", "tmp/transcript", "tmp/file"
};

int
main(int argc, char *argv[])
{
	struct rp	 rp;
	struct copts	 co;
	struct cerr	 cerr;
	size_t		 i;
	int		 rc = RP_ERROR, lockfd, fd;

	log_init("cairn-replicate", LOG_TO_STDERR, 0);
	log_setfatalstatus(RP_ERROR);
	memset(&rp, 0, sizeof(rp));
	copts_init(&co, COPTS_NET | COPTS_DIGEST | COPTS_DIR | COPTS_QUIET,
	    &rp.no);
	co.dir = _RADMIND_PATH;
	co.digest = "sha1";
	rp.kname = xstrdup("replica.K");
	if (copts_parse(argc, argv, &co, "K:nr", tool_opt, &rp) == -1 ||
	    optind != argc)
		usage();
	rp.dir = co.dir;
	rp.digest = co.digest;
	rp.qflag = co.quiet;
	/* Interrupted, it leaves no temp file (cairn-replicate(8)). */
	if (intr_init() == -1)
		fatal("signals");
	intr_onexit(rp_interrupted, NULL);
	rp.ck = cksum_new(rp.digest);
	find_publish(&rp, argv[0]);
	if ((rp.repofd = open(rp.dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) ==
	    -1)
		fatal("%s", rp.dir);
	/* A new replica starts empty: make the repository's layout. */
	for (i = 0; i < sizeof(layout) / sizeof(layout[0]); i++) {
		if ((fd = rp_opendir(&rp, layout[i])) == -1)
			fatal("%s/%s", rp.dir, layout[i]);
		close(fd);
	}
	/* One run at a time: a timer may start one while one is running. */
	if ((lockfd = openat(rp.repofd, "tmp/.replicate.lock", O_RDWR |
	    O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600)) == -1)
		fatal("%s/tmp/.replicate.lock", rp.dir);
	if (flock(lockfd, LOCK_EX | LOCK_NB) == -1)
		fatal("%s/tmp/.replicate.lock: another run", rp.dir);
	if ((rp.net = net_open(&rp.no, &rp.err)) == NULL)
		fatalx("%s", rp.err.msg);
	rp.win = reqwin_new(rp.net, RP_WINDOW, RP_WINBYTES, &rp_ops, NULL);
	/* A stage left by an interrupted run is fetched again. */
	(void)fs_rmtreeat(rp.repofd, RP_STAGE);
	if (fetch_release(&rp) == -1 || fetch_commands(&rp) == -1)
		goto done;
	for (i = 0; i < rp.trans.n; i++)
		if (do_transcript(&rp, rp.trans.v[i]) == -1)
			goto done;
	if (install_commands(&rp) == -1)
		goto done;
	if (rp.rflag && remove_stale(&rp) == -1)
		goto done;
	/* Last: the release names what is in service now. */
	if (install_release(&rp) == -1)
		goto done;
	(void)fs_rmtreeat(rp.repofd, RP_STAGE);
	rc = rp.changed ? RP_CHANGED : RP_OK;
done:
	if (rc == RP_ERROR)
		log_warnx("%s", rp.err.msg);
	if (reqwin_inflight(rp.win) > 0) {
		/* Replies still due: no QUIT after them, just end. */
		net_abort(rp.net);
	} else if (net_close(rp.net, &cerr) == -1) {
		log_warnx("%s", cerr.msg);
		rc = RP_ERROR;
	}
	if (rc == RP_OK && !rp.qflag)
		printf("In step\n");
	reqwin_free(rp.win);
	cksum_free(rp.ck);
	strlist_free(&rp.kfiles);
	strlist_free(&rp.trans);
	free(rp.man);
	free(rp.sig);
	free(rp.kname);
	close(rp.repofd);
	intr_exit(rc);
}
