/*
 * apply-sync.c: lapply's deferred durability for downloaded files.
 *
 * A verified download (size, digest, metadata already set on its
 * descriptor) is not renamed at once: its still open temp file joins a
 * batch, and its writeback starts.  A full batch goes to a worker thread
 * while the main thread keeps receiving into the next one.  The worker
 * starts writeback of every temp file of the batch, fsyncs them all, and
 * only then renames them over their destinations, in transcript order,
 * and fsyncs the directories it renamed into; a large batch on one file
 * system gets one syncfs before the renames and one after instead
 * (batch_fs).  The main thread prints the messages of a finished batch
 * when it hands over the next one, or at a barrier (syncq_flush), which
 * waits until every pending file is in place.  Without a thread
 * (pthread_create failed) the main thread does the same work itself.
 *
 * Lines that cannot depend on a pending download (creating or repairing
 * an object at a new, later path) run without waiting; their stdout
 * messages join the batch so that output keeps transcript order.  What
 * could depend on one (hard links, removals, names like our temp files,
 * warnings) flushes first: see run() in lapply.c.
 *
 * With -j, syncq_flush first waits until every download still being
 * received on another session is landed (apply-jobs.c): a barrier
 * covers them too.
 *
 * A failure in a batch stops it: the failing file and every later one
 * are discarded (temp file removed, destination untouched), so is the
 * batch filled meanwhile, the failure sticks, and every later add or
 * flush reports it.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "download.h"
#include "xmalloc.h"

#define SQ_MAXFILES	64		/* temp files (and messages) per batch */
#define SQ_FDRESERVE	(AFS_MAXDEPTH + 160)	/* fds kept for everything else */
#define SQ_MAXBYTES	(8LL << 20)	/* file data per batch */
#define SQ_SYNCFS_MIN	16		/* files for one syncfs instead */
#define SQ_EARLY	(256 * 1024)	/* bytes for early writeback */

struct syncitem {
	int			 fd;		/* the temp file */
	int			 dfd;		/* its directory (our dup) */
	dev_t			 ddev;		/* ... which is */
	ino_t			 dino;
	char			*tmp;		/* temp name in dfd, NULL: message */
	char			*leaf;		/* destination name in dfd */
	char			*msg;		/* stdout message once renamed */
	const struct tline	*t;
};

struct batch {
	struct syncitem		 v[SQ_MAXFILES];
	size_t			 n;
	int64_t			 bytes;
	/* outcome, set by the worker */
	size_t			 bad;		/* first failed item, or n */
	int			 err;		/* its errno */
	const char		*op;		/* ... of this step */
	int			 renamed;	/* bad itself was renamed */
};

struct syncq {
	struct batch		 b[2];
	struct batch		*fill;		/* being filled (main) */
	struct batch		*out;		/* handed over, not reaped */
	size_t			 maxfiles;	/* per batch, fits the fd limit */
	int			 failed;	/* sticky */
	int			 flushing;
	int			(*first)(struct apply *);	/* before a flush */

	int			 threaded;
	int			 nothread;	/* pthread_create failed */
	pthread_t		 th;
	pthread_mutex_t		 mu;
	pthread_cond_t		 cv;
	struct batch		*work;		/* for the worker */
	int			 busy;		/* worker has a batch */
	int			 quit;
};

struct syncq *
syncq_new(int (*first)(struct apply *))
{
	struct syncq	*sq;

	struct rlimit	 rl;
	rlim_t		 room;

	sq = xcalloc(1, sizeof(*sq));
	sq->fill = &sq->b[0];
	sq->first = first;
	/*
	 * Each pending file holds three descriptors (its temp file, its
	 * directory, and the directory common/intr keeps to remove it if
	 * interrupted), and two batches can be pending: raise the soft
	 * limit if we may, and size the batches to what remains beside the
	 * directory walk.
	 */
	sq->maxfiles = SQ_MAXFILES;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0) {
		if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < 4096 &&
		    rl.rlim_max > rl.rlim_cur) {
			rl.rlim_cur = rl.rlim_max < 4096 ? rl.rlim_max : 4096;
			(void)setrlimit(RLIMIT_NOFILE, &rl);
			(void)getrlimit(RLIMIT_NOFILE, &rl);
		}
		if (rl.rlim_cur != RLIM_INFINITY) {
			room = rl.rlim_cur > SQ_FDRESERVE ?
			    (rl.rlim_cur - SQ_FDRESERVE) / 6 : 1;
			if (room < sq->maxfiles)
				sq->maxfiles = room > 0 ? (size_t)room : 1;
		}
	}
	return sq;
}

/* Close and remove a temp file that will not be renamed. */
static void
item_drop(struct syncitem *it)
{
	if (it->tmp == NULL)
		return;
	if (it->fd != -1)
		close(it->fd);
	dl_tempdone(it->dfd, it->tmp);
	close(it->dfd);
	it->fd = it->dfd = -1;
}

/*
 * fsync and close the directory of item i, which was renamed into it.
 * On failure item i becomes the batch's failure (if it is the first)
 * and no later file is renamed.
 */
static int
batch_syncdir(struct batch *b, size_t i)
{
	struct syncitem	*it = &b->v[i];
	int		 rc = 0;

	if (fsync(it->dfd) == -1) {
		if (i < b->bad) {
			b->bad = i;
			b->err = errno;
			b->renamed = 1;
		}
		rc = -1;
	}
	close(it->dfd);
	it->dfd = -1;
	return rc;
}

/*
 * Can one syncfs stand for the fsyncs of batch b?  On Linux, when it has
 * many files, all on one file system: that is one journal commit and
 * one flush of the disk's cache instead of one per file and directory.
 * Returns the descriptor to syncfs, or -1.
 */
static int
batch_fs(const struct batch *b)
{
#ifdef HAVE_SYNCFS
	size_t	 i, nfiles = 0;
	int	 fd = -1;
	dev_t	 dev = 0;

	for (i = 0; i < b->n; i++) {
		if (b->v[i].tmp == NULL)
			continue;
		if (fd == -1) {
			fd = b->v[i].fd;
			dev = b->v[i].ddev;
		} else if (b->v[i].ddev != dev)
			return -1;
		nfiles++;
	}
	return nfiles >= SQ_SYNCFS_MIN ? fd : -1;
#else
	(void)b;
	return -1;
#endif
}

/*
 * The worker's job (also run inline).  Only descriptors and names are
 * touched here; nothing is printed.
 */
static void
batch_run(struct batch *b)
{
	struct syncitem	*it;
	size_t		 i, pd = (size_t)-1;	/* renamed into, unsynced */
	size_t		 last = (size_t)-1;	/* last renamed */
	const char	*op;
	int		 fsfd;

	b->bad = b->n;
	b->renamed = 0;
	b->op = NULL;
#ifdef HAVE_SYNCFS
	/* Our own descriptor of the file system: the files get closed. */
	if ((fsfd = batch_fs(b)) != -1 &&
	    (fsfd = fcntl(fsfd, F_DUPFD_CLOEXEC, 0)) != -1) {
		/* The files' data and metadata, all at once. */
		if (syncfs(fsfd) == -1) {
			for (i = 0; i < b->n && b->v[i].tmp == NULL; i++)
				continue;
			b->bad = i;
			b->err = errno;
			b->op = "fsync";
		}
		for (i = 0; i < b->n; i++) {
			it = &b->v[i];
			if (it->tmp == NULL)
				continue;
			if (i >= b->bad) {
				item_drop(it);
				continue;
			}
			op = "close";
			if (close(it->fd) == -1) {
				it->fd = -1;
				goto fsfail;
			}
			it->fd = -1;
			op = "rename";
			if (renameat(it->dfd, it->tmp, it->dfd, it->leaf) == -1)
				goto fsfail;
			dl_tempdone(-1, it->tmp);
			close(it->dfd);
			it->dfd = -1;
			last = i;
			continue;
fsfail:
			b->bad = i;
			b->err = errno;
			b->op = op;
			item_drop(it);
		}
		/* The directories renamed into, all at once. */
		if (last != (size_t)-1 && syncfs(fsfd) == -1 &&
		    last < b->bad) {
			b->bad = last;
			b->err = errno;
			b->renamed = 1;
		}
		close(fsfd);
		return;
	}
#else
	(void)fsfd;
	(void)last;
	(void)op;
#endif
	/*
	 * Durable first.  Writeback of every file is started before the
	 * first fsync, so that they wait for I/O already under way.
	 */
#ifdef HAVE_SYNC_FILE_RANGE
	for (i = 0; i < b->n; i++)
		if (b->v[i].tmp != NULL)
			(void)sync_file_range(b->v[i].fd, 0, 0,
			    SYNC_FILE_RANGE_WRITE);
#endif
	for (i = 0; i < b->n; i++) {
		it = &b->v[i];
		if (it->tmp != NULL && fsync(it->fd) == -1) {
			b->bad = i;
			b->err = errno;
			b->op = "fsync";
			break;
		}
	}
	for (i = 0; i < b->n; i++) {
		it = &b->v[i];
		if (it->tmp == NULL)
			continue;
		if (i >= b->bad) {
			item_drop(it);
			continue;
		}
		/*
		 * The entries renamed into a directory are durable once it
		 * is: fsync it when the batch moves on to another one.
		 */
		if (pd != (size_t)-1 && (b->v[pd].ddev != it->ddev ||
		    b->v[pd].dino != it->dino)) {
			if (batch_syncdir(b, pd) == -1) {
				pd = (size_t)-1;
				item_drop(it);
				continue;
			}
			pd = (size_t)-1;
		}
		if (close(it->fd) == -1) {
			it->fd = -1;
			b->err = errno;
			b->op = "close";
			goto fail;
		}
		it->fd = -1;
		if (renameat(it->dfd, it->tmp, it->dfd, it->leaf) == -1) {
			b->err = errno;
			b->op = "rename";
			goto fail;
		}
		dl_tempdone(-1, it->tmp);
		if (pd != (size_t)-1) {
			close(b->v[pd].dfd);
			b->v[pd].dfd = -1;
		}
		pd = i;
		continue;
fail:
		b->bad = i;
		item_drop(it);
	}
	if (pd != (size_t)-1)
		(void)batch_syncdir(b, pd);
}

static void *
worker(void *arg)
{
	struct syncq	*sq = arg;
	struct batch	*b;

	pthread_mutex_lock(&sq->mu);
	for (;;) {
		while (sq->work == NULL && !sq->quit)
			pthread_cond_wait(&sq->cv, &sq->mu);
		if (sq->work == NULL)
			break;
		b = sq->work;
		pthread_mutex_unlock(&sq->mu);
		batch_run(b);
		pthread_mutex_lock(&sq->mu);
		sq->work = NULL;
		sq->busy = 0;
		pthread_cond_broadcast(&sq->cv);
	}
	pthread_mutex_unlock(&sq->mu);
	return NULL;
}

static void
syncq_start(struct syncq *sq)
{
	sigset_t	all, old;

	if (pthread_mutex_init(&sq->mu, NULL) != 0)
		return;
	if (pthread_cond_init(&sq->cv, NULL) != 0) {
		pthread_mutex_destroy(&sq->mu);
		return;
	}
	/* Signals stay with the main thread. */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	if (pthread_create(&sq->th, NULL, worker, sq) == 0)
		sq->threaded = 1;
	else {
		pthread_cond_destroy(&sq->cv);
		pthread_mutex_destroy(&sq->mu);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* Wait until the worker is idle. */
static void
syncq_wait(struct syncq *sq)
{
	if (!sq->threaded)
		return;
	pthread_mutex_lock(&sq->mu);
	while (sq->busy)
		pthread_cond_wait(&sq->cv, &sq->mu);
	pthread_mutex_unlock(&sq->mu);
}

/* Print the outcome of a finished batch and empty it. */
static void
batch_reap(struct apply *ap, struct batch *b)
{
	struct syncq	*sq = ap->sq;
	struct syncitem	*it;
	size_t		 i;

	for (i = 0; i < b->n; i++) {
		it = &b->v[i];
		if (it->tmp == NULL)
			amsg_say(&ap->msg, "%s", it->msg);
		else if (i < b->bad || (i == b->bad && b->renamed)) {
			ap->modified = 1;
			amsg_say(&ap->msg, "%s\n", it->msg);
		}
		if (it->tmp != NULL && i == b->bad) {
			errno = b->err;
			amsg_fail(&ap->msg, it->t, b->renamed ?
			    "fsync of its directory" : b->op);
			sq->failed = 1;
		}
		free(it->tmp);
		free(it->leaf);
		free(it->msg);
	}
	memset(b->v, 0, b->n * sizeof(b->v[0]));
	b->n = 0;
	b->bytes = 0;
}

/*
 * Discard a batch that was never handed over: no file of it is renamed.
 * Its messages still print: their lines did run.
 */
static void
batch_discard(struct apply *ap, struct batch *b)
{
	struct syncitem	*it;
	size_t		 i;

	for (i = 0; i < b->n; i++) {
		it = &b->v[i];
		if (it->tmp == NULL)
			amsg_say(&ap->msg, "%s", it->msg);
		item_drop(it);
		free(it->tmp);
		free(it->leaf);
		free(it->msg);
	}
	memset(b->v, 0, b->n * sizeof(b->v[0]));
	b->n = 0;
	b->bytes = 0;
}

/* Wait for the handed-over batch, if any, and report it. */
static void
syncq_reap(struct apply *ap)
{
	struct syncq	*sq = ap->sq;

	if (sq->out == NULL)
		return;
	syncq_wait(sq);
	batch_reap(ap, sq->out);
	sq->out = NULL;
}

/*
 * Hand the batch being filled to the worker (after reporting the one it
 * had).  -1 once a failure stuck; the batch is then discarded.
 */
static int
syncq_submit(struct apply *ap)
{
	struct syncq	*sq = ap->sq;
	struct batch	*b = sq->fill;

	syncq_reap(ap);
	if (sq->failed) {
		batch_discard(ap, b);
		return -1;
	}
	if (b->n == 0)
		return 0;
	if (!sq->threaded && !sq->nothread) {
		syncq_start(sq);
		sq->nothread = !sq->threaded;		/* never try again */
	}
	sq->fill = b == &sq->b[0] ? &sq->b[1] : &sq->b[0];
	sq->out = b;
	if (sq->threaded) {
		pthread_mutex_lock(&sq->mu);
		sq->work = b;
		sq->busy = 1;
		pthread_cond_broadcast(&sq->cv);
		pthread_mutex_unlock(&sq->mu);
	} else
		batch_run(b);
	return 0;
}

int
syncq_flush(struct apply *ap)
{
	struct syncq	*sq = ap->sq;
	int		 rc, jrc = 0;

	/* Downloads still on their way (-j) come first, in order. */
	if (sq != NULL && sq->first != NULL)
		jrc = sq->first(ap);
	if (sq == NULL || sq->flushing)
		return jrc == -1 || (sq != NULL && sq->failed) ? -1 : 0;
	sq->flushing = 1;
	rc = syncq_submit(ap);
	syncq_reap(ap);
	sq->flushing = 0;
	return rc == -1 || jrc == -1 || sq->failed ? -1 : 0;
}

/* Room for one more item in the batch being filled; -1: failure. */
static int
syncq_room(struct apply *ap)
{
	struct syncq	*sq = ap->sq;
	int		 rc;

	if (sq->fill->n < sq->maxfiles && sq->fill->bytes < SQ_MAXBYTES)
		return 0;
	sq->flushing = 1;
	rc = syncq_submit(ap);
	sq->flushing = 0;
	return rc;
}

int
syncq_add(struct apply *ap, int fd, int dfd, char *tmp, const char *leaf,
    const char *msg, const struct tline *t)
{
	struct syncq	*sq = ap->sq;
	struct syncitem	*it;
	struct stat	 st;
	int		 d = -1;

	if (syncq_room(ap) == -1 || sq->failed)
		goto drop;
	if (fstat(dfd, &st) == -1 ||
	    (d = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1) {
		amsg_fail(&ap->msg, t, "dup");
		goto drop;
	}
#ifdef HAVE_SYNC_FILE_RANGE
	/*
	 * Start a large file's writeback now rather than when the batch is
	 * handed over: the data then goes to disk while the next files
	 * arrive, and the worker's syncs find little left to wait for.  A
	 * small one is not worth a submission of its own on the thread that
	 * receives: the batch's sync writes it with the others.
	 */
	if (t->size >= SQ_EARLY)
		(void)sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#endif
	it = &sq->fill->v[sq->fill->n++];
	it->fd = fd;
	it->dfd = d;
	it->ddev = st.st_dev;
	it->dino = st.st_ino;
	it->tmp = tmp;
	it->leaf = xstrdup(leaf);
	it->msg = xstrdup(msg);
	it->t = t;
	sq->fill->bytes += t->size;
	return 0;
drop:
	close(fd);
	dl_tempdone(dfd, tmp);
	free(tmp);
	return -1;
}

int
syncq_msg(struct apply *ap, char *msg)
{
	struct syncq	*sq = ap->sq;
	struct syncitem	*it;
	int		 rc;

	rc = syncq_room(ap);
	if (!syncq_pending(ap)) {	/* all reported meanwhile */
		amsg_say(&ap->msg, "%s", msg);
		free(msg);
		return rc;
	}
	it = &sq->fill->v[sq->fill->n++];
	memset(it, 0, sizeof(*it));
	it->fd = it->dfd = -1;
	it->msg = msg;
	return rc;
}

int
syncq_pending(const struct apply *ap)
{
	const struct syncq	*sq = ap->sq;

	return sq != NULL && !sq->flushing &&
	    (sq->fill->n > 0 || sq->out != NULL);
}

void
syncq_free(struct syncq *sq)
{
	size_t	i, j;

	if (sq == NULL)
		return;
	if (sq->threaded) {
		syncq_wait(sq);
		pthread_mutex_lock(&sq->mu);
		sq->quit = 1;
		pthread_cond_broadcast(&sq->cv);
		pthread_mutex_unlock(&sq->mu);
		pthread_join(sq->th, NULL);
		pthread_cond_destroy(&sq->cv);
		pthread_mutex_destroy(&sq->mu);
	}
	for (j = 0; j < 2; j++)
		for (i = 0; i < sq->b[j].n; i++) {
			item_drop(&sq->b[j].v[i]);
			free(sq->b[j].v[i].tmp);
			free(sq->b[j].v[i].leaf);
			free(sq->b[j].v[i].msg);
		}
	free(sq);
}
