/*
 * stor.c: STOR uploads (docs/protocol.md section 5.6).  Everything lands
 * below tmp/, created exclusively, reached one component at a time
 * without following symlinks.  An upload larger than -M, or one that
 * would leave less than -N free on the file system, is refused before
 * its data is accepted; so is a file or directory beyond -n, or bytes
 * beyond -T, for one loadset.  A file whose upload fails is removed, and
 * so is the whole upload of a session that does not end with QUIT.
 *
 * Durability is paid for per group of files, not per file: a stored file
 * joins a batch (a large one starts its writeback at once), and its
 * "250 File stored" (with every reply after it) is held until the batch
 * is synced: the files, then every directory given a new entry (or their
 * whole file system at once).  A batch is synced
 * when it is full, when the session is about to wait for the client
 * (the idle hook of conn.h), before any other verb and before the next
 * STOR TRANSCRIPT.  So a 250 still means the file and its name are on
 * disk, and a pipelining client gets the replies of a batch together.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

#include "cerr.h"
#include "compat.h"
#include "conn.h"
#include "encode.h"
#include "confine.h"
#include "fsutil.h"
#include "log.h"
#include "path.h"
#include "peer.h"
#include "proto.h"
#include "server.h"
#include "transcript.h"
#include "xmalloc.h"

#define STOR_CHUNK	(256 * 1024)
/*
 * The space of an upload is reserved this much at a time, ahead of what
 * was received (stor_reserve): a client sending slowly holds no more.
 */
#define STOR_RESERVE	(64LL << 20)
#define STOR_BATCH	128		/* files synced together */
#define STOR_BATCHBYTES	(32LL << 20)	/* ... or this much data */
#define STOR_BATCHDIRS	128		/* directories held for a sync */
#define STOR_KICKBYTES	(256 * 1024)	/* writeback started at once from */

/* Stored files and directories not yet synced, and the replies held. */
struct storq {
	int		 fd[STOR_BATCH];	/* stored files, open */
	char		*name[STOR_BATCH];	/* ... for messages */
	size_t		 nfiles;
	int64_t		 bytes;
	int		 dfd[STOR_BATCHDIRS];	/* given new entries */
	dev_t		 ddev[STOR_BATCHDIRS];
	ino_t		 dino[STOR_BATCHDIRS];
	size_t		 ndirs;
	int		 held[2 * STOR_BATCH + 2];	/* reply codes */
	size_t		 nheld;
	int		 tmpfd;		/* tmp/, for syncfs; -1: none */
	dev_t		 tmpdev;
	/*
	 * The batch before this one, being made durable by a thread of
	 * its own while this one is received (NULL: none).  Its replies
	 * go out, before any of this one's, once it is.
	 */
	struct storq	*fly;
	pthread_t	 flyth;
	int		 flyjoined;	/* its thread is done and joined */
	int		 flyrc;		/* 0 durable, -1: flymsg says why */
	char		 flymsg[PATH_MAX + 128];
};

/*
 * What stor_mkdir needs: the mode, the batch to note parents in, and the
 * session whose loadset the directories count in (-n; NULL: not counted).
 */
struct stormk {
	mode_t		 mode;
	struct storq	*q;
	struct sess	*s;
	int		 over;		/* refused: -n reached */
	int		 lowino;	/* refused: inode floor reached */
	uint64_t	 nfree, floor;	/* ... inodes found, and the floor */
};

/*
 * Free inodes an upload leaves on the file system of tmp/: 1% of them
 * and STOR_INOMIN more, as -N leaves blocks, so that a loadset of empty
 * files cannot take the last inodes of the repository's file system.
 */
#define STOR_INOMIN	64

static int	stor_dirty(struct storq *, int dfd);
static void	stor_drop(struct storq *);
static int	stor_fatal(struct sess *, int, const char *);
static int	stor_idle(void *, struct cerr *);

/*
 * May the session's loadset have one more file or directory (-n)?
 * rel[0..len) names it, for the log.  Returns 1 if so, 0 after logging
 * the refusal.
 */
static int
stor_roomfor(struct sess *s, const char *rel, size_t len)
{
	char	 up[PATH_MAX], name[PATH_MAX];

	if (s->opts->maxfiles == 0 || s->storfiles < s->opts->maxfiles)
		return 1;
	snprintf(up, sizeof(up), "%.*s", (int)len, rel);
	peer_logsafe(up, sizeof(up), up);
	peer_logsafe(name, sizeof(name), s->storname);
	peer_log(s, LOG_NOTICE, "STOR %s: refused, loadset %s has %lld files "
	    "and directories, limit %lld (-n)", up, name,
	    (long long)s->storfiles, (long long)s->opts->maxfiles);
	return 0;
}

/*
 * Refuse what would take the session's loadset beyond the limit of
 * option opt (-n: what is "file", -T: "byte"), and end the session.  The
 * reply names the limit and the loadset, not where the server keeps it.
 */
static int
stor_limited(struct sess *s, const char *what, int opt, int64_t limit)
{
	char	 name[PATH_MAX], msg[PATH_MAX + 128];

	peer_logsafe(name, sizeof(name), s->storname);
	snprintf(msg, sizeof(msg), "%s: loadset %s limit (%lld, cairnd -%c) "
	    "reached", name, what, (long long)limit, opt);
	return stor_fatal(s, RAP_STOR_DATA, msg);
}

/*
 * Nonzero if one more inode on the file system of fd would go below the
 * inode floor (STOR_INOMIN); *freep and *floorp say what was found.  A
 * file system that counts no inodes (f_files 0) has no floor.
 */
static int
stor_inodes_low(int fd, uint64_t *freep, uint64_t *floorp)
{
	struct statvfs	 sv;

	if (fstatvfs(fd, &sv) == -1 || sv.f_files == 0)
		return 0;
	*freep = (uint64_t)sv.f_favail;
	*floorp = (uint64_t)sv.f_files / 100 + STOR_INOMIN;
	return *freep <= *floorp;
}

/*
 * Refuse an upload that would go below the inode floor, and end the
 * session; up names it.
 */
static int
stor_noinodes(struct sess *s, const char *up, uint64_t nfree, uint64_t floor)
{
	char	 msg[PATH_MAX + 128];

	peer_log(s, LOG_NOTICE, "STOR %s: refused, %llu inodes free, floor "
	    "%llu", up, (unsigned long long)nfree, (unsigned long long)floor);
	/* The cause in words, never a server path. */
	snprintf(msg, sizeof(msg), "%s: %s (the server keeps 1%% of its "
	    "inodes free)", up, strerror(ENOSPC));
	return stor_fatal(s, RAP_STOR_DATA, msg);
}

/*
 * Make a missing directory of an upload path (confine_parent), if the
 * loadset may have one more and the inode floor allows; its parent now
 * has a new entry to sync.
 */
static int
stor_mkdir(void *ctx, int pfd, const char *name, const char *rel, size_t len)
{
	struct stormk	*mk = ctx;

	if (mk->s != NULL && !stor_roomfor(mk->s, rel, len)) {
		mk->over = 1;
		errno = EDQUOT;
		return -1;
	}
	if (stor_inodes_low(pfd, &mk->nfree, &mk->floor)) {
		mk->lowino = 1;
		errno = ENOSPC;
		return -1;
	}
	if (mkdirat(pfd, name, mk->mode) == -1)
		return -1;
	if (mk->s != NULL)
		mk->s->storfiles++;
	return mk->q != NULL ? stor_dirty(mk->q, pfd) : 0;
}

/*
 * Open the directory holding the last component of rel (relative to
 * rootfd, confined), making missing directories with mk (NULL: none are
 * made).  *leaf points into rel at the last component.  Returns a
 * directory fd or -1.
 */
static int
stor_parent(int rootfd, const char *rel, struct stormk *mk,
    const char **leaf)
{
	size_t		 bad;
	int		 fd;

	fd = confine_parent(rootfd, rel, mk != NULL ? stor_mkdir : NULL, mk,
	    leaf, &bad);
	if (fd != -1 && **leaf == '\0') {
		close(fd);
		errno = EACCES;
		return -1;
	}
	return fd;
}

/*
 * Set (name) or clear (NULL) the marker tmp/.stor.<pid>, a symbolic link
 * to the name of the upload session pid is making.  Should the session
 * be killed before it can remove an incomplete upload, the daemon does
 * when it reaps the session (stor_reap).
 */
static void
stor_mark(int rootfd, pid_t pid, const char *name)
{
	char		 rel[64];
	const char	*leaf;
	int		 dfd;

	snprintf(rel, sizeof(rel), "tmp/.stor.%ld", (long)pid);
	if ((dfd = stor_parent(rootfd, rel, NULL, &leaf)) == -1) {
		log_warn("%s", rel);
		return;
	}
	if ((unlinkat(dfd, leaf, 0) == -1 && errno != ENOENT) ||
	    (name != NULL && symlinkat(name, dfd, leaf) == -1))
		log_warn("%s", rel);
	close(dfd);
}

/*
 * Note that directory dfd got a new entry, to be synced with the batch.
 * Returns 0, or -1 with errno set.
 */
static int
stor_dirty(struct storq *q, int dfd)
{
	struct stat	 st;
	size_t		 i;
	int		 fd;

	if (fstat(dfd, &st) == -1)
		return -1;
	for (i = 0; i < q->ndirs; i++)
		if (q->ddev[i] == st.st_dev && q->dino[i] == st.st_ino)
			return 0;
	/* No room to hold it open: sync it now. */
	if (q->ndirs == STOR_BATCHDIRS)
		return fsync(dfd);
	if ((fd = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return -1;
	q->dfd[q->ndirs] = fd;
	q->ddev[q->ndirs] = st.st_dev;
	q->dino[q->ndirs] = st.st_ino;
	q->ndirs++;
	return 0;
}

/* Close everything of the batch and forget its held replies. */
static void
stor_drop(struct storq *q)
{
	size_t	 i;

	if (q == NULL)
		return;
	for (i = 0; i < q->nfiles; i++) {
		close(q->fd[i]);
		free(q->name[i]);
	}
	for (i = 0; i < q->ndirs; i++)
		close(q->dfd[i]);
	q->nfiles = q->ndirs = q->nheld = 0;
	q->bytes = 0;
}

/*
 * Send reply code (350 or 250 of STOR) now, or hold it behind the replies
 * already held, which wait for the batch to be synced.
 */
static int
stor_reply(struct sess *s, int code)
{
	struct storq	*q = s->storq;

	if (q != NULL && (q->nheld > 0 || q->fly != NULL)) {
		q->held[q->nheld++] = code;
		return SESS_OK;
	}
	return peer_reply(s, code, "%s", code == RAP_STOR_GO ?
	    "Storing file" : "File stored");
}

/* Send the replies held for batch q.  Returns SESS_OK or SESS_CLOSE. */
static int
stor_release1(struct sess *s, struct storq *q)
{
	size_t		 i;
	int		 r = SESS_OK;

	for (i = 0; q != NULL && i < q->nheld && r == SESS_OK; i++)
		r = peer_reply(s, q->held[i], "%s", q->held[i] == RAP_STOR_GO ?
		    "Storing file" : "File stored");
	if (q != NULL)
		q->nheld = 0;
	return r;
}

/*
 * Wait until the batch in flight, if any, is as durable as it will get
 * (its flyrc and flymsg say how); it stays in q->fly for its replies.
 */
static void
stor_flywait(struct storq *q)
{
	if (q == NULL || q->fly == NULL || q->flyjoined)
		return;
	(void)pthread_join(q->flyth, NULL);
	q->flyjoined = 1;
}

/* Wait for the batch in flight and forget it, replies and all. */
static void
stor_flydrop(struct storq *q)
{
	if (q == NULL || q->fly == NULL)
		return;
	stor_flywait(q);
	stor_drop(q->fly);
	free(q->fly);
	q->fly = NULL;
	q->flyjoined = 0;
}

/*
 * Send the replies held: those of the batch in flight first (it is
 * waited for), then this batch's.  Returns SESS_OK or SESS_CLOSE.
 */
static int
stor_release(struct sess *s)
{
	struct storq	*q = s->storq, *f;
	int		 r = SESS_OK;

	if (q != NULL && (f = q->fly) != NULL) {
		stor_flywait(q);
		r = stor_release1(s, f);
		stor_flydrop(q);
	}
	if (r == SESS_OK)
		r = stor_release1(s, q);
	return r;
}

/*
 * Reply and end the session.  The session's upload is removed first, so
 * a client that sees the refusal finds nothing of it left.  The replies
 * held for earlier files go out before the refusal, as they would have
 * without the batch: the refusal discards those files with the rest of
 * the upload.  Once the session is ending (a sync failed while a read
 * waited) nothing more is said.
 */
static int
stor_fatal(struct sess *s, int code, const char *msg)
{
	if (s->close)
		return SESS_CLOSE;
	s->status = 1;
	(void)stor_release(s);
	stor_finish(s);
	peer_reply(s, code, "%s", msg);
	s->close = 1;
	return SESS_CLOSE;
}

/*
 * Make batch q durable.  Touches nothing but q's descriptors (it runs on
 * a thread of its own beside the session): 0, or -1 with msg.
 */
static int
stor_durable(struct storq *q, char *msg, size_t msglen)
{
	size_t		 i;

#ifdef HAVE_SYNCFS
	/*
	 * When everything of the batch is on the file system of tmp/, one
	 * syncfs makes it all durable, for one journal commit and one cache
	 * flush of the disk instead of one per file and per directory.
	 * Writeback errors since tmpfd was opened (by this session) are
	 * reported by it.
	 */
	for (i = 0; q->tmpfd != -1 && i < q->ndirs; i++)
		if (q->ddev[i] != q->tmpdev)
			break;
	if (q->tmpfd != -1 && i == q->ndirs) {
		if (syncfs(q->tmpfd) == -1) {
			snprintf(msg, msglen, "%s: %s",
			    q->nfiles > 0 ? q->name[q->nfiles - 1] : "tmp",
			    strerror(errno));
			return -1;
		}
		return 0;
	}
#endif
	/*
	 * Writeback of each file began when it was stored; the first fsync
	 * commits the metadata of the whole batch, so the others mostly
	 * wait for data already under way.
	 */
	for (i = 0; i < q->nfiles; i++)
		if (fsync(q->fd[i]) == -1) {
			snprintf(msg, msglen, "%s: %s", q->name[i],
			    strerror(errno));
			return -1;
		}
	for (i = 0; i < q->ndirs; i++)
		if (fsync(q->dfd[i]) == -1) {
			snprintf(msg, msglen, "%s: %s",
			    q->nfiles > 0 ? q->name[q->nfiles - 1] : "tmp",
			    strerror(errno));
			return -1;
		}
	return 0;
}

static void *
stor_flyer(void *arg)
{
	struct storq	*q = arg;

	q->flyrc = stor_durable(q, q->flymsg, sizeof(q->flymsg));
	return NULL;
}

/*
 * Land the batch in flight: wait for it; if it is durable send its
 * replies, if not end the session as a failed sync does.  Returns
 * SESS_OK or SESS_CLOSE.
 */
static int
stor_land(struct sess *s)
{
	struct storq	*q = s->storq, *f;
	char		 msg[PATH_MAX + 128];
	int		 r;

	if (q == NULL || (f = q->fly) == NULL)
		return SESS_OK;
	stor_flywait(q);
	if (f->flyrc == 0) {
		/* Its replies only: this batch's wait for its own sync. */
		r = stor_release1(s, f);
		stor_flydrop(q);
		return r;
	}
	/*
	 * Not durable: nothing of it may be confirmed, nor anything
	 * received since; the refusal takes the place of its first reply.
	 */
	snprintf(msg, sizeof(msg), "%s", f->flymsg);
	peer_log(s, LOG_ERR, "%s", msg);
	f->nheld = 0;
	stor_flydrop(q);
	stor_drop(q);
	return stor_fatal(s, RAP_STOR_DATA, msg);
}

int
stor_sync(struct sess *s)
{
	struct storq	*q = s->storq;
	char		 msg[PATH_MAX + 128];
	int		 r;

	if (stor_land(s) == SESS_CLOSE)
		return SESS_CLOSE;
	if (q == NULL || (q->nfiles == 0 && q->ndirs == 0 && q->nheld == 0))
		return SESS_OK;
	if (stor_durable(q, msg, sizeof(msg)) == -1) {
		/* Not durable: nothing held may be confirmed. */
		peer_log(s, LOG_ERR, "%s", msg);
		stor_drop(q);
		return stor_fatal(s, RAP_STOR_DATA, msg);
	}
	r = stor_release(s);
	stor_drop(q);
	return r;
}

/*
 * The batch is full: land the one in flight, then send this one to be
 * made durable by a thread while the next is received.  Without a
 * thread, sync it here.  Returns SESS_OK or SESS_CLOSE.
 */
static int
stor_launch(struct sess *s)
{
	struct storq	*q = s->storq, *n;
	sigset_t	 all, old;
	int		 rc;

	if (stor_land(s) == SESS_CLOSE)
		return SESS_CLOSE;
	n = xcalloc(1, sizeof(*n));
	n->tmpfd = q->tmpfd;		/* shared; closed by the session */
	n->tmpdev = q->tmpdev;
	/* Signals stay with the session's thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	rc = pthread_create(&n->flyth, NULL, stor_flyer, q);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc != 0) {
		free(n);
		return stor_sync(s);
	}
	n->fly = q;
	s->storq = n;
	return SESS_OK;
}

/*
 * The session's batch.  tmp/ is opened afresh (not dup'ed from the
 * shared root) so that syncfs reports the writeback errors that happen
 * from now on to this session.
 */
static void
stor_qnew(struct sess *s)
{
	struct storq	*q;
	struct stat	 st;

	q = xcalloc(1, sizeof(*q));
	q->tmpfd = -1;
#ifdef HAVE_SYNCFS
	if ((q->tmpfd = openat(s->opts->rootfd, "tmp", O_RDONLY | O_DIRECTORY |
	    O_NOFOLLOW | O_CLOEXEC)) != -1 && fstat(q->tmpfd, &st) == 0)
		q->tmpdev = st.st_dev;
	else if (q->tmpfd != -1) {
		close(q->tmpfd);
		q->tmpfd = -1;
	}
#else
	(void)st;
#endif
	s->storq = q;
	conn_set_idle(s->conn, stor_idle, s);
}

/*
 * conn idle hook: the client has nothing more for now, sync.  The time
 * it takes is ours, not the client's (stor_body).
 */
static int
stor_idle(void *arg, struct cerr *err)
{
	struct sess	*s = arg;
	int64_t		 t0 = conn_now();
	int		 r;

	r = stor_sync(s);
	s->storown += conn_now() - t0;
	if (r == SESS_CLOSE) {
		cerr_set(err, "upload could not be made durable");
		return -1;
	}
	return 0;
}

/*
 * Add the file fd just stored (named up, size bytes) to the batch, its
 * 250 held, and sync the batch when it is full.
 */
static int
stor_hold(struct sess *s, int fd, int dfd, const char *up, int64_t size)
{
	struct storq	*q = s->storq;
	char		 msg[PATH_MAX + 128];
	struct cerr	 err;

#ifdef HAVE_SYNC_FILE_RANGE
	/*
	 * Start writing a large file out now, while more is received; small
	 * ones are left to the sync, which writes them out together for
	 * less than a call each costs.
	 */
	if (size >= STOR_KICKBYTES)
		(void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
	if (stor_dirty(q, dfd) == -1) {
		snprintf(msg, sizeof(msg), "%s: %s", up, strerror(errno));
		close(fd);
		return stor_fatal(s, RAP_STOR_DATA, msg);
	}
	q->fd[q->nfiles] = fd;
	q->name[q->nfiles] = xstrdup(up);
	q->nfiles++;
	q->bytes += size;
	q->held[q->nheld++] = RAP_STOR_DONE;
	if (q->nfiles < STOR_BATCH && q->bytes < STOR_BATCHBYTES &&
	    q->ndirs < STOR_BATCHDIRS)
		return SESS_OK;
	if (stor_launch(s) == SESS_CLOSE)
		return SESS_CLOSE;
	/*
	 * Push the replies now instead of when the client's data runs dry:
	 * a pipelining client keeps a window of uploads in flight and waits
	 * for the oldest one's reply, and a reply held back while data is
	 * queued would stall it until everything sent so far was stored,
	 * so that the two sides took turns instead of working together.
	 */
	if (conn_flush(s->conn, &err) == -1) {
		log_warnx("%s", err.msg);
		s->status = 1;
		s->close = 1;
		return SESS_CLOSE;
	}
	return SESS_OK;
}

/*
 * Reserve len bytes of fd from off on (its size unchanged), and check the
 * -N floor again with this and every other upload's reservation counted:
 * uploads side by side each fit above the floor alone, not all together.
 * A file system that cannot reserve has the check before the upload
 * began alone.  Returns 0, or -1 (no room to reserve: errno set) or -2
 * (below the floor once reserved: errno ENOSPC), after logging why.
 */
static int
stor_reserve(struct sess *s, int fd, int64_t off, int64_t len,
    const char *upload)
{
#if defined(HAVE_FALLOCATE) && defined(FALLOC_FL_KEEP_SIZE)
	struct statvfs	 sv;
	uint64_t	 avail;
	int		 e;

	if (len <= 0 || s->opts->minfree <= 0)
		return 0;
	if (fallocate(fd, FALLOC_FL_KEEP_SIZE, (off_t)off, (off_t)len) == -1) {
		if (errno == EOPNOTSUPP || errno == ENOSYS)
			return 0;
		e = errno;
		peer_log(s, LOG_NOTICE, "STOR %s: %lld bytes refused, cannot "
		    "reserve them: %s", upload, (long long)len, strerror(e));
		errno = e;
		return -1;
	}
	if (fstatvfs(fd, &sv) == -1) {
		e = errno;
		peer_logerr(s, LOG_ERR, "%s: fstatvfs", upload);
		errno = e;
		return -1;
	}
	avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	if (avail < (uint64_t)s->opts->minfree) {
		peer_log(s, LOG_NOTICE, "STOR %s: %lld bytes refused, %llu "
		    "bytes free once reserved, floor %lld (-N)", upload,
		    (long long)len, (unsigned long long)avail,
		    (long long)s->opts->minfree);
		errno = ENOSPC;
		return -2;
	}
#else
	(void)s;
	(void)fd;
	(void)off;
	(void)len;
	(void)upload;
#endif
	return 0;
}

/*
 * May an upload of size bytes go to the file system of fd?  If so, the
 * first STOR_RESERVE bytes of it are reserved (stor_reserve; stor_body
 * reserves the rest as it comes, so that a client sending slowly holds
 * no more than that ahead of what it sent).  Returns 0, or -1 with errno
 * EFBIG (over -M) or ENOSPC (more than is free, or no room to reserve),
 * -2 with errno ENOSPC (it would leave less than -N free), or -3 (it
 * would take the session's loadset over -T), after logging why.
 */
static int
stor_room(struct sess *s, int fd, int64_t size, const char *upload)
{
	struct statvfs	 sv;
	uint64_t	 avail;
	char		 name[PATH_MAX];

	if (s->opts->maxupload > 0 && size > s->opts->maxupload) {
		peer_log(s, LOG_NOTICE, "STOR %s: %lld bytes refused, limit "
		    "%lld (-M)", upload, (long long)size,
		    (long long)s->opts->maxupload);
		errno = EFBIG;
		return -1;
	}
	if (s->opts->maxbytes > 0 &&
	    size > s->opts->maxbytes - s->storbytes) {
		peer_logsafe(name, sizeof(name), s->storname);
		peer_log(s, LOG_NOTICE, "STOR %s: %lld bytes refused, loadset "
		    "%s has %lld bytes, limit %lld (-T)", upload,
		    (long long)size, name, (long long)s->storbytes,
		    (long long)s->opts->maxbytes);
		return -3;
	}
	if (fstatvfs(fd, &sv) == -1) {
		peer_logerr(s, LOG_ERR, "%s: fstatvfs", upload);
		return -1;
	}
	avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	if ((uint64_t)size > avail ||
	    avail - (uint64_t)size < (uint64_t)s->opts->minfree) {
		peer_log(s, LOG_NOTICE, "STOR %s: %lld bytes refused, %llu "
		    "bytes free, floor %lld (-N)", upload,
		    (long long)size, (unsigned long long)avail,
		    (long long)s->opts->minfree);
		errno = ENOSPC;
		/* -2: it would fit, but not above the floor. */
		return (uint64_t)size > avail ? -1 : -2;
	}
	return stor_reserve(s, fd, 0, size < STOR_RESERVE ? size :
	    STOR_RESERVE, upload);
}

/*
 * The reply that refuses an upload for stor_room's or stor_reserve's
 * result r (errno e): the cause in words, never a server path.
 */
static void
stor_refuse(struct sess *s, const char *upload, int r, int e)
{
	char	 msg[PATH_MAX + 128];

	if (r == -3) {
		stor_limited(s, "byte", 'T', s->opts->maxbytes);
		return;
	}
	snprintf(msg, sizeof(msg), r == -2 ? "%s: %s (the server keeps %lld "
	    "MiB free: cairnd -N)" : "%s: %s", upload, strerror(e),
	    (long long)(s->opts->minfree >> 20));
	stor_fatal(s, RAP_STOR_DATA, msg);
}

/*
 * Receive "<size>" CRLF, size bytes, "." CRLF into fd.  Returns 0, or -1
 * after the reply that ends the session.
 */
static int
stor_body(struct sess *s, int fd, int dfd, const char *leaf,
    const char *upload, int64_t *sizep)
{
	struct cerr	 err;
	char		*line, *chunk, msg[PATH_MAX + 128];
	int64_t		 size, left, deadline, t0, reserved, next;
	ssize_t		 n;
	size_t		 want, got;
	int		 r, e;

	if (conn_getline(s->conn, &line, &err) == -1) {
		log_warnx("%s", err.msg);
		goto bad;
	}
	if (proto_parse_size(line, &size) == -1) {
		peer_log(s, LOG_ERR, "STOR %s: bad size line", upload);
		goto bad;
	}
	if ((r = stor_room(s, fd, size, upload)) != 0) {
		e = errno;
		unlinkat(dfd, leaf, 0);
		stor_refuse(s, upload, r, e);
		return -1;
	}
	s->storbytes += size;
	chunk = xmalloc(STOR_CHUNK);
	/*
	 * -E bounds each STOR_CHUNK of the body as a whole, not each read:
	 * a client trickling a byte at a time cannot hold the session.
	 * What the server spends on its own meanwhile (writing, syncing
	 * earlier uploads while it waits) moves the deadline on.
	 */
	deadline = -1;
	got = 0;
	reserved = size < STOR_RESERVE ? size : STOR_RESERVE;
	for (left = size; left > 0; left -= n) {
		if (got == 0)
			deadline = conn_deadline(s->conn);
		else if (deadline != -1)
			deadline += s->storown;
		s->storown = 0;
		/* The next STOR_RESERVE bytes, once the last are written. */
		if (size - left >= reserved && reserved < size) {
			next = size - reserved < STOR_RESERVE ?
			    size - reserved : STOR_RESERVE;
			if ((r = stor_reserve(s, fd, reserved, next,
			    upload)) != 0) {
				e = errno;
				free(chunk);
				unlinkat(dfd, leaf, 0);
				stor_refuse(s, upload, r, e);
				return -1;
			}
			reserved += next;
		}
		want = STOR_CHUNK - got;
		if ((int64_t)want > left)
			want = (size_t)left;
		if ((n = conn_read_until(s->conn, chunk, want, deadline,
		    &err)) == -1) {
			log_warnx("%s, in the body of %s (-E %d: seconds for "
			    "each 256 KiB)", err.msg, upload,
			    s->opts->iowait / 1000);
			free(chunk);
			goto bad;
		}
		t0 = conn_now();
		errno = 0;	/* a short write sets none: ENOSPC below */
		r = write(fd, chunk, (size_t)n) != n;
		e = errno;
		s->storown += conn_now() - t0;
		if (r) {
			errno = e;
			peer_logerr(s, LOG_ERR, "%s", upload);
			free(chunk);
			unlinkat(dfd, leaf, 0);
			snprintf(msg, sizeof(msg), "%s: %s", upload,
			    strerror(errno ? errno : ENOSPC));
			stor_fatal(s, RAP_STOR_DATA, msg);
			return -1;
		}
		if ((got += (size_t)n) == STOR_CHUNK)
			got = 0;
	}
	free(chunk);
	if (conn_getline(s->conn, &line, &err) == -1 || strcmp(line, ".") != 0)
		goto bad;
	*sizep = size;
	return 0;
bad:
	unlinkat(dfd, leaf, 0);
	snprintf(msg, sizeof(msg), "Length doesn't match sent data %s", upload);
	stor_fatal(s, RAP_STOR_DATA, msg);
	return -1;
}

int
cmd_stor(struct sess *s, int ac, char **av)
{
	char		 rel[PATH_MAX], up[PATH_MAX], msg[2 * PATH_MAX];
	char		*name = NULL, *path = NULL;
	const char	*leaf;
	struct stormk	 mk;
	int64_t		 size;
	uint64_t	 nfree, floor;
	int		 dfd, fd, n, r = SESS_CLOSE, istran;

	if (ac < 2)
		return stor_fatal(s, RAP_STOR_SYNTAX, "STOR Syntax error");
	istran = strcasecmp(av[1], "TRANSCRIPT") == 0;
	if (!(istran && ac == 3) &&
	    !(strcasecmp(av[1], "FILE") == 0 && ac == 4))
		return stor_fatal(s, RAP_STOR_SYNTAX, "STOR Syntax error");
	if (strstr(av[2], "../") != NULL || decode_path(av[2], &name) == -1 ||
	    name[0] == '\0' || path_has_dotdot(name) ||
	    strchr(name, '\n') != NULL)
		goto syntax;
	/*
	 * One component, as lcreate sends it (the transcript's base name):
	 * tmp/file/a.T/b would be made inside another session's upload,
	 * and its files among that upload's.  Radmind takes it.
	 */
	if (istran && strchr(name, '/') != NULL)
		goto syntax;
	if (!istran) {
		if (strncmp(av[3], "../", 3) == 0 ||
		    strstr(av[3], "/../") != NULL ||
		    decode_path(av[3], &path) == -1 || path[0] == '\0')
			goto syntax;
		if (path_has_dotdot(path))
			goto syntax;
	}

	if (s->storq == NULL)
		stor_qnew(s);
	if (istran) {
		/* A new transcript: the previous upload is complete. */
		if (stor_sync(s) == SESS_CLOSE)
			goto out;
		free(s->storname);
		s->storname = NULL;
		s->stormade = 0;
		/* -n and -T count afresh for each loadset. */
		s->storfiles = s->storbytes = 0;
		stor_mark(s->opts->rootfd, getpid(), NULL);
		n = snprintf(rel, sizeof(rel), "tmp/file/%s", name);
		if (n < 0 || (size_t)n >= sizeof(rel))
			goto syntax;
		if ((dfd = stor_parent(s->opts->rootfd, rel, NULL, &leaf))
		    == -1 || mkdirat(dfd, leaf, 0777) == -1) {
			if (errno == EEXIST)
				r = stor_fatal(s, RAP_STOR_FAIL,
				    "Transcript exists");
			else {
				peer_logsafe(up, sizeof(up), rel);
				snprintf(msg, sizeof(msg), "%s: %s", up,
				    strerror(errno));
				r = stor_fatal(s, RAP_STOR_FAIL, msg);
			}
			if (dfd != -1)
				close(dfd);
			goto out;
		}
		stor_mark(s->opts->rootfd, getpid(), name);
		s->storname = xstrdup(name);
		s->stormade = STOR_MADE_DIR;
		free(s->stortran);
		s->stortran = xstrdup(av[2]);
		if (stor_dirty(s->storq, dfd) == -1) {
			peer_logsafe(up, sizeof(up), rel);
			snprintf(msg, sizeof(msg), "%s: %s", up,
			    strerror(errno));
			close(dfd);
			r = stor_fatal(s, RAP_STOR_FAIL, msg);
			goto out;
		}
		close(dfd);
		n = snprintf(rel, sizeof(rel), "tmp/transcript/%s", name);
	} else {
		if (s->stortran == NULL || strcmp(s->stortran, av[2]) != 0) {
			snprintf(msg, sizeof(msg), "Incorrect Transcript %s",
			    av[2]);
			r = stor_fatal(s, RAP_STOR_TRAN, msg);
			goto out;
		}
		n = snprintf(rel, sizeof(rel), "tmp/file/%s%s%s", name,
		    path[0] == '/' ? "" : "/", path);
	}
	if (n < 0 || (size_t)n >= sizeof(rel))
		goto syntax;
	peer_logsafe(up, sizeof(up), rel);
	/*
	 * -n counts what a loadset makes in tmp/file/<t>: its files and the
	 * directories made for them, each refused before it is made.
	 */
	memset(&mk, 0, sizeof(mk));
	mk.mode = 0777 & ~s->opts->umask;
	mk.q = s->storq;
	mk.s = istran ? NULL : s;
	if ((dfd = stor_parent(s->opts->rootfd, rel, &mk, &leaf)) == -1) {
		if (mk.over)
			r = stor_limited(s, "file", 'n', s->opts->maxfiles);
		else if (mk.lowino)
			r = stor_noinodes(s, up, mk.nfree, mk.floor);
		else {
			snprintf(msg, sizeof(msg), "%s: %s", up,
			    strerror(errno));
			r = stor_fatal(s, RAP_STOR_DATA, msg);
		}
		goto out;
	}
	if (!istran && !stor_roomfor(s, up, strlen(up))) {
		close(dfd);
		r = stor_limited(s, "file", 'n', s->opts->maxfiles);
		goto out;
	}
	if (stor_inodes_low(dfd, &nfree, &floor)) {
		close(dfd);
		r = stor_noinodes(s, up, nfree, floor);
		goto out;
	}
	fd = openat(dfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0666 & ~s->opts->umask);
	if (fd == -1) {
		snprintf(msg, sizeof(msg), "%s: %s", up, strerror(errno));
		r = stor_fatal(s, RAP_STOR_DATA, msg);
		close(dfd);
		goto out;
	}
	if (istran)
		s->stormade |= STOR_MADE_TRAN;
	else
		s->storfiles++;
	if (stor_reply(s, RAP_STOR_GO) == SESS_CLOSE ||
	    stor_body(s, fd, dfd, leaf, up, &size) == -1) {
		close(fd);
		close(dfd);
		goto out;
	}
	peer_log(s, LOG_INFO, "stored %s", up);
	r = stor_hold(s, fd, dfd, up, size);
	close(dfd);
	goto out;
syntax:
	r = stor_fatal(s, RAP_STOR_SYNTAX, "STOR Syntax error");
out:
	free(name);
	free(path);
	return r;
}

/* Remove relpath (below the repository), a tree if rmtree is set. */
static int
stor_remove(int rootfd, const char *rel, int rmtree)
{
	const char	*leaf;
	int		 dfd, r;

	if ((dfd = stor_parent(rootfd, rel, NULL, &leaf)) == -1)
		return errno == ENOENT ? 0 : -1;
	if (rmtree)
		r = fs_rmtreeat(dfd, leaf);
	else if ((r = unlinkat(dfd, leaf, 0)) == -1 && errno == ENOENT)
		r = 0;
	close(dfd);
	return r;
}

void
stor_finish(struct sess *s)
{
	char	 rel[PATH_MAX], safe[PATH_MAX];
	int	 n;

	/*
	 * Kept: what is still unsynced is made durable (no one to tell).
	 * The batch in flight is, once its thread is done.
	 */
	stor_flydrop(s->storq);
	if (s->status == 0 && s->storq != NULL && s->storq->nheld > 0) {
		s->storq->nheld = 0;
		(void)stor_sync(s);
	}
	stor_drop(s->storq);
	/* The session ends after this: no more syncs. */
	if (s->storq != NULL && s->storq->tmpfd != -1) {
		close(s->storq->tmpfd);
		s->storq->tmpfd = -1;
	}
	if (s->storname == NULL || s->stormade == 0 || s->status == 0)
		goto out;
	peer_logsafe(safe, sizeof(safe), s->storname);
	if (s->stormade & STOR_MADE_TRAN) {
		n = snprintf(rel, sizeof(rel), "tmp/transcript/%s",
		    s->storname);
		if (n > 0 && (size_t)n < sizeof(rel) &&
		    stor_remove(s->opts->rootfd, rel, 0) == -1)
			peer_logerr(s, LOG_ERR, "tmp/transcript/%s: removing "
			    "incomplete upload", safe);
	}
	if (s->stormade & STOR_MADE_DIR) {
		n = snprintf(rel, sizeof(rel), "tmp/file/%s", s->storname);
		if (n > 0 && (size_t)n < sizeof(rel) &&
		    stor_remove(s->opts->rootfd, rel, 1) == -1)
			peer_logerr(s, LOG_ERR, "tmp/file/%s: removing "
			    "incomplete upload", safe);
	}
	peer_log(s, LOG_NOTICE, "upload of %s did not end with QUIT: removed",
	    safe);
out:
	if (s->storname != NULL)
		stor_mark(s->opts->rootfd, getpid(), NULL);
	free(s->storname);
	s->storname = NULL;
	s->stormade = 0;
}

void
stor_reap(int rootfd, pid_t pid)
{
	char		 rel[PATH_MAX], name[PATH_MAX], safe[PATH_MAX];
	const char	*leaf;
	ssize_t		 len;
	int		 dfd, n;

	snprintf(rel, sizeof(rel), "tmp/.stor.%ld", (long)pid);
	if ((dfd = stor_parent(rootfd, rel, NULL, &leaf)) == -1)
		return;
	len = readlinkat(dfd, leaf, name, sizeof(name) - 1);
	close(dfd);
	if (len <= 0)
		return;
	name[len] = '\0';
	/* The session checked the name before it made the upload. */
	peer_logsafe(safe, sizeof(safe), name);
	n = snprintf(rel, sizeof(rel), "tmp/transcript/%s", name);
	if (n > 0 && (size_t)n < sizeof(rel) &&
	    stor_remove(rootfd, rel, 0) == -1)
		log_warn("tmp/transcript/%s: removing incomplete upload", safe);
	n = snprintf(rel, sizeof(rel), "tmp/file/%s", name);
	if (n > 0 && (size_t)n < sizeof(rel) &&
	    stor_remove(rootfd, rel, 1) == -1)
		log_warn("tmp/file/%s: removing incomplete upload", safe);
	stor_mark(rootfd, pid, NULL);
	log_notice("upload of %s by session %ld, which did not finish: "
	    "removed", safe, (long)pid);
}

void
stor_sweep(int rootfd)
{
	struct dirent	*de;
	DIR		*d;
	char		*end;
	long		 pid;
	int		 fd;

	if ((fd = openat(rootfd, "tmp", O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return;
	if ((d = fdopendir(fd)) == NULL) {
		close(fd);
		return;
	}
	while ((de = readdir(d)) != NULL) {
		if (strncmp(de->d_name, ".stor.", 6) != 0)
			continue;
		errno = 0;
		pid = strtol(de->d_name + 6, &end, 10);
		if (errno != 0 || *end != '\0' || pid <= 0 || pid > INT_MAX)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		stor_reap(rootfd, (pid_t)pid);
	}
	closedir(d);
}
