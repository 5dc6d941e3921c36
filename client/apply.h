/*
 * apply.h: the receive side of the clients, a library in libclient.a:
 * apply.c (load and check an applicable transcript, apply it), and its
 * modules apply-retr.c (downloads over one session, on the request
 * window of net/reqwin.c), apply-jobs.c (-j: over several sessions),
 * apply-sync.c (deferred durability of downloads), apply-basis.c (DELTA
 * requests: the bases, the counters, the fetch after a failed delta)
 * and, at the bottom
 * with headers of their own, apply-fs.c (confined file-system access
 * below the apply root), apply-msg.c (the run's messages),
 * apply-progress.c (progress output) and apply-plan.c (what each line
 * does, for apply.c alone).  Downloads land through download.h.
 * lapply(1) is this library plus its options; nothing here calls back
 * into a main.
 */
#ifndef CAIRN_APPLY_H
#define CAIRN_APPLY_H

#include <sys/types.h>
#include <sys/stat.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "apply-fs.h"
#include "apply-msg.h"
#include "apply-progress.h"
#include "transcript.h"

struct cerr;
struct net;
struct netopts;
struct cksum;
struct dl_basis;
struct dl_want;
struct apply;
struct apply_pending;
struct reqwin;
struct retr_bases;
struct basis_moved;

/* Exit status of lapply (lapply(1), EXIT STATUS). */
enum {
	APPLY_OK = 0,		/* everything applied */
	APPLY_PARTIAL = 1,	/* error after the system was modified */
	APPLY_FAIL = 2		/* error, nothing modified (also usage) */
};

/* One line of the applicable transcript, validated before anything runs. */
struct apply_entry {
	struct tline	 t;		/* type 0: a "name:" header line */
	const char	*tname;		/* header in force for this line */
	int		 special;	/* tname is special.T */
};


/*
 * The download path over one session (apply-retr.c): retrq_new makes
 * the request window (net/reqwin.h) over ap->net and queues every "+"
 * line of the run in it, for reqwin_fill to request them ahead; the
 * server answers in request order.  retrq_download receives the reply
 * of the "+" line e, the next one due, as apply_download says.
 * retrq_send sends the request of e, whose text is retrq_len(e) bytes,
 * over any session (-j too).  retrq_free frees the window.
 * retrq_refetch, after the delta of e failed (why), fetches the whole
 * file into a temp file in dfd as dl_file does, at once, on a session
 * of its own with the same server (ap->side, opened the first time):
 * DL_* (a failure of that session is DL_LOCAL).
 */
struct reqwin	*retrq_new(struct apply *);
void		 retrq_free(struct apply *);
int		 retrq_refetch(struct apply *, const struct apply_entry *e,
		    const struct cerr *why, int dfd, const char *leaf, int *fd,
		    char **tmp, struct cerr *err);
int		 retrq_download(struct apply *, struct apply_entry *e,
		    int dfd, const char *leaf);
int		 retrq_send(struct net *, const struct apply_entry *e,
		    struct cerr *err);
size_t		 retrq_len(const struct apply_entry *e);

/*
 * Deferred durability of verified downloads (apply-sync.c).  syncq_add
 * takes over the open temp file fd (metadata set) and tmp, created in
 * dfd: it is made durable and renamed over leaf by the next flush, which
 * then prints msg.  syncq_flush is the barrier: what first(ap) waits
 * for (the downloads still on their way with -j, landed in order:
 * jobq_wait) comes before it, and every pending file is durable and in
 * place (or discarded after an error) when it returns.
 * Both return -1 once any flush failed (message printed).
 */
struct syncq;

struct syncq	*syncq_new(int (*first)(struct apply *));
void		 syncq_free(struct syncq *);
int		 syncq_add(struct apply *, int fd, int dfd, char *tmp,
		    const char *leaf, const char *msg, const struct tline *t);
int		 syncq_flush(struct apply *);
/* Nonzero if files wait in the batch (and it is not being flushed). */
int		 syncq_pending(const struct apply *);
/* Queue stdout text (malloc'd, taken over) behind the pending files. */
int		 syncq_msg(struct apply *, char *msg);

/*
 * Downloads over several connections (apply-jobs.c, lapply -j, on the
 * pool of sessions of net/reqpool.h).  The main thread hands each "+"
 * line to the queue; one worker thread per connection sends RETR
 * requests for the next unclaimed lines (a few in flight each) and
 * receives their bodies into temp files through dl_file (the job ops
 * of apply-jobs.c).  The main thread takes the results back strictly in
 * transcript order and lands them (apply_landed: metadata, then the
 * batch of apply-sync.c), so renames and messages keep the order of
 * one connection.  The first failure in transcript order is reported
 * as one connection would report it; every later download is then
 * discarded.
 *
 * jobq_start opens n - 1 connections beside ap->net, set up from
 * ap->no as the first one was, and starts the workers: 0, -1 with err
 * if a connection cannot be opened, 1 if no thread could be started
 * (nothing is left open: one session then does it all).  undo puts
 * back the metadata of an old object a line changed ahead
 * (apply_meta_undo, below).
 * jobq_add queues the download of e into (dfd, leaf); it may first
 * land earlier ones.  jobq_wait is the barrier: every queued download
 * is landed when it returns 0; -1 once any failed (message printed).
 * jobq_pending: downloads queued and not landed.  jobq_cancel discards
 * what is not landed yet; jobq_stop also ends the workers (ap->net is
 * then free for the report); jobq_free closes the other connections.
 */
struct jobq;

int	jobq_start(struct apply *, int n, void (*undo)(struct apply *,
	    const struct apply_entry *, int, const char *,
	    const struct stat *), struct cerr *err);
int	jobq_add(struct apply *, struct apply_entry *e, int dfd,
	    const char *leaf);
int	jobq_wait(struct apply *);
int	jobq_pending(const struct apply *);
void	jobq_cancel(struct apply *);
void	jobq_stop(struct apply *);
void	jobq_free(struct apply *);
/*
 * A line that creates a new object at a path no queued download is in
 * or above, or changes an existing one's metadata in place, may run
 * ahead of the downloads (run_ahead in apply.c): jobq_under says
 * whether one is; between jobq_ahead_begin (0, or -1 once a download
 * failed; old: the object's stat before, NULL if it is new) and
 * jobq_ahead_end, with what the line returned, its messages
 * (jobq_ahead_say, 1 if it took one), its progress
 * (jobq_ahead_progress, likewise) and its change to ap->modified are
 * kept for its turn, landed in order with the downloads.  If an
 * earlier download fails, a new object is removed again and an old one
 * gets its metadata back (apply_meta_undo).  jobq_inorder, before a
 * warning: a line run ahead takes its turn now, after every earlier
 * download (-1: one failed, say nothing).
 */
int	jobq_under(const struct apply *, const char *path);
int	jobq_failed(const struct apply *);	/* a download failed */
int	jobq_ahead_begin(struct apply *, const struct stat *old);
int	jobq_ahead_say(struct apply *, const char *fmt, va_list);
int	jobq_ahead_progress(struct apply *, int64_t bytes);
void	jobq_ahead_end(struct apply *, const struct apply_entry *e, int rc);
int	jobq_inorder(struct apply *);
void	apply_meta_undo(struct apply *, const struct apply_entry *e,
	    int dfd, const char *leaf, const struct stat *old);
/*
 * The byte counters of every session of the queue (ap->net among them),
 * as each worker last published them: the main thread never reads a
 * connection a worker is using.
 */
void	jobq_wire(struct apply *, struct progwire *);

/*
 * DELTA requests (apply-basis.c, docs/protocol.md section 5.11).
 * basis_init, once the session is open, decides whether the run uses
 * DELTA (ap->delta: -c is set and the server lists it).  basis_wanted:
 * the "+" line e may go as DELTA, by the line alone.  basis_open opens
 * what is at e's path, from (dfd, leaf) or, with dfd -1, from the root
 * by e's path, never through a symbolic link, and digests it: 0 with
 * b->fd open and sum set, -1 when e goes as RETR (not a regular file
 * with no other name within the size limit, BASIS_MAX already open,
 * ...).  basis_close closes b->fd.  basis_send queues the DELTA request
 * of e.  basis_count counts the delta b received for e.  basis_end
 * prints the counters on fp (-v; NULL: not) and closes the session of
 * retrq_refetch.  basis_hold, just before the "-" line i removes its
 * file: if that file is the basis of a later "+" line by the version
 * rule (common/dmove.h), it is opened and digested, and held until that
 * line is asked for.
 */
#define BASIS_MAX	64	/* basis descriptors open at once */
#define BASIS_HOLDMAX	16384	/* removed bases held at most ... */
#define BASIS_HOLDBYTES	(1LL << 30)	/* ... and their bytes */
#define BASIS_FDSPARE	1024	/* descriptors left for the rest */

struct basis_stats {
	uint64_t	 files;		/* made from deltas */
	uint64_t	 wire;		/* ... the deltas' bytes */
	uint64_t	 whole;		/* ... the files' bytes */
	uint64_t	 fallbacks;	/* fetched whole after a failed delta */
};

void	basis_init(struct apply *);
int	basis_wanted(const struct apply *, const struct apply_entry *e);
int	basis_open(struct apply *, const struct apply_entry *e, int dfd,
	    const char *leaf, struct dl_basis *b, char *sum);
void	basis_close(struct apply *, struct dl_basis *b);
int	basis_send(const struct apply *, struct net *,
	    const struct apply_entry *e,
	    const char *sum, struct cerr *err);
void	basis_count(struct apply *, const struct apply_entry *e,
	    const struct dl_basis *b);
void	basis_hold(struct apply *, size_t i);
void	basis_end(struct apply *, FILE *fp);

/* Everything one run of lapply needs. */
struct apply {
	/* options */
	int		 quiet;
	int		 verbose;
	int		 network;
	int		 icase;
	int		 create_prefix;		/* -C */
	int		 force;			/* -F */
	const char	*digest;		/* -c, NULL: no verification */
	const char	*event;			/* -e */
	const char	*name;			/* input name for messages */
	int		 jobs;			/* -j: download connections */
	const struct netopts *no;		/* ... each opened with these */

	/* state */
	struct apply_entry *ent;
	size_t		 nent;
	struct afs	*fs;
	struct net	*net;
	int		 net_dead;		/* session unusable */
	struct reqwin	*rq;			/* one session's window */
	struct syncq	*sq;
	struct jobq	*jq;			/* -j 2 or more, else NULL */
	struct cksum	*ck;
	struct progress	 prog;
	struct amsg	 msg;			/* set up by apply_load */
	int		 modified;		/* something on disk changed */
	int		 style;
	char		*iobuf;
	size_t		 iobufsz;
	struct apply_pending *pend;		/* directories to remove */
	size_t		 npend, pendcap;
	/* DELTA (apply-basis.c) */
	int		 delta;			/* in use */
	int		 nbasis;		/* basis descriptors open */
	struct cksum	*bck;			/* digests bases */
	struct net	*side;			/* fetches after failed deltas */
	struct basis_stats dstat;
	struct retr_bases *rb;			/* one session's (apply-retr.c) */
	struct basis_moved *mv;			/* the version rule's pairs */
};

/*
 * A run: fill the options of a zeroed struct apply (and net, ck if
 * wanted), then apply_load reads and checks the whole transcript from
 * fp (ap->name names it in messages) and sets *total, the progress
 * totals; apply_run applies it with progress mode progmode (PROG_*);
 * apply_finish reports the outcome to the server, closes the session,
 * frees what the run holds and returns lapply's exit status.  ok is
 * nonzero if everything before it succeeded.  apply_load and apply_run
 * return 0, or -1 after printing the error.
 */
int	apply_load(struct apply *, FILE *fp, struct progtotal *total);
int	apply_run(struct apply *, int progmode,
	    const struct progtotal *total);
int	apply_finish(struct apply *, int ok);

/*
 * Download the "+" line e into a temp file in dfd (download.h), verify
 * it, set its metadata and queue it to be made durable and renamed over
 * leaf (syncq_add): over one session (retrq_download), or with -j
 * queued to the others (jobq_add), by apply-jobs.c.  Returns 0 or -1
 * (message printed).
 */
int	apply_download(struct apply *, struct apply_entry *e, int dfd,
	    const char *leaf);
/* What dl_file must check for the "+" line e (no progress hook). */
void	apply_want(const struct apply_entry *e, struct dl_want *w,
	    const char *where, unsigned char *buf, size_t bufsz,
	    struct cksum *ck);
/*
 * The verified temp file fd (tmp in dfd) of e: set its metadata and
 * queue it (syncq_add).  Takes fd and tmp.  Returns 0 or -1 (printed).
 */
int	apply_landed(struct apply *, const struct apply_entry *e, int dfd,
	    const char *leaf, int fd, char *tmp);
/* Report the download failure rc (DL_*) of e with its cause err. */
void	apply_dlfail(struct apply *, const struct apply_entry *e, int rc,
	    const struct cerr *err);

#endif
