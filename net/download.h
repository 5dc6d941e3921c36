/*
 * download.h: the one download routine of the clients (lapply, ktcheck,
 * cairn-replicate, and lfdiff's private copy through dl_tofd).
 *
 * A file arrives under a directory descriptor, never by path string:
 * the body of a RETR is received into a new temp file created
 * exclusively in that directory, its size is checked against what the
 * caller expects before a byte is written (and against the free space,
 * keeping FS_KEEPFREE), the digest is computed while bytes arrive, and
 * the verified temp file is handed back open, for the caller to set
 * metadata on the descriptor and make it durable: dl_commit at once, or
 * a batch (lapply's apply-sync.c).  The reply to a DELTA request may be
 * a delta instead of the file (docs/protocol.md section 5.11): it is
 * applied to the basis the caller holds, into the same temp file, with
 * the same checks.
 */
#ifndef CAIRN_DOWNLOAD_H
#define CAIRN_DOWNLOAD_H

#include <sys/types.h>
#include <stdint.h>

struct cerr;
struct cksum;
struct net;

/*
 * The basis a DELTA request named (net_send_delta): the caller's
 * regular file, open for reading, digested as the request says.  A
 * delta reply is applied to it (read again from its start, common/delta)
 * and dl_file says here how that went.
 */
struct dl_basis {
	int		 fd;
	/* Set by dl_file: */
	int		 delta;		/* the reply was a delta (241) */
	int		 failed;	/* ... that could not be applied, or
					   whose result is not the file: the
					   old file is as it was, the whole
					   file may be fetched (DL_LOCAL) */
	int64_t		 wire;		/* ... its bytes, once applied */
};

/* What the caller expects of one download. */
struct dl_want {
	const char	*path;		/* how messages name the object */
	const char	*where;		/* "line 12", or NULL */
	const char	*source;	/* of size and cksum: "transcript" */
	int64_t		 size;		/* the size it must have, -1: any */
	const char	*cksum;		/* base64 digest it must have */
	struct cksum	*ck;		/* ... computed with this, or NULL */
	unsigned	 lineno;	/* for the temp name of a long leaf */
	mode_t		 mode;		/* of the new temp file */
	unsigned char	*buf;		/* receive buffer, or NULL */
	size_t		 bufsz;
	struct dl_basis	*basis;		/* the request was DELTA, or NULL */
	/* Called with each count of bytes received (progress), or NULL. */
	void		(*onrecv)(void *, int64_t);
	void		*arg;
};

/* Outcome of dl_file. */
#define DL_OK		0	/* verified: *fd and *tmp are set */
#define DL_LOCAL	(-1)	/* failed here (room, write); session goes on */
#define DL_SERVER	(-2)	/* refused, or size or digest differ; same */
#define DL_DEAD		(-3)	/* the session is unusable */

/* Body bytes read and thrown away to keep a session after a refusal. */
#define DL_DRAINMAX	(64LL << 20)

/*
 * Read the reply to the oldest outstanding RETR and receive its body
 * into a new temp file next to leaf in dfd.  On DL_OK, *fd is the open
 * temp file (written, verified, its offset at the end) and *tmp its
 * malloc'd name in dfd.  Otherwise nothing is left in dfd and err names
 * the object (w->where or w->path) and the cause.
 *
 * With w->basis (the request was DELTA), the reply may be a delta: at
 * most delta_bound(w->size) bytes (a longer one is a session out of
 * step: DL_DEAD), applied to the basis as it arrives; the result must
 * have w->size bytes and the digest w->cksum.  A delta that fails is
 * DL_LOCAL with w->basis->failed set; the session goes on.
 */
int	 dl_file(struct net *, const struct dl_want *w, int dfd,
	    const char *leaf, int *fd, char **tmp, struct cerr *err);

/*
 * As dl_file, into the caller's open descriptor fd (a private file that
 * is no final path: lfdiff's copy); no room check, nothing to remove.
 */
int	 dl_tofd(struct net *, const struct dl_want *w, int fd,
	    struct cerr *err);

/*
 * As dl_file, into memory: the whole body of the reply to the oldest
 * RETR, of at most max bytes (a longer one is refused, DL_SERVER, and
 * read and dropped), in *data (malloc'd, *len bytes) on DL_OK.  For the
 * small files a client keeps in memory (the release manifest); path
 * names the object in err.
 */
int	 dl_tomem(struct net *, const char *path, int64_t max, char **data,
	    size_t *len, struct cerr *err);

/*
 * [cairn] Take the zstd dictionary the server offers (docs/protocol.md
 * section 9.3) when the caller is about to fetch expect bytes (more than
 * none).  One kept in keep (zdkeep.h; NULL: none kept) from an earlier
 * session is named (ZDICT) and costs nothing more.  Else, when expect is
 * at least DL_ZDICT_PAYS times its size, RETR ZDICT, into memory,
 * checked, used by the stream (net_use_zdict) and kept in keep (a failure
 * to keep it is only logged at -v).  Only with nothing outstanding.
 * *how says what was done (DL_ZDICT_*).  DL_OK (taken, or not worth
 * taking: nothing offered, not zstd, too little to fetch); DL_SERVER
 * when the server refuses, and the session goes on without one; DL_DEAD
 * when what came is no dictionary, or more than ZSTDCONN_DICTMAX bytes
 * (left unread): the server's next frames are made with it.
 */
#define DL_ZDICT_PAYS	16
#define DL_ZDICT_NONE	0	/* none taken */
#define DL_ZDICT_KEPT	1	/* the one kept, named */
#define DL_ZDICT_FETCHED 2	/* fetched, not kept */
#define DL_ZDICT_SAVED	3	/* fetched and kept */
int	 dl_zdict(struct net *, int64_t expect, const char *keep, int *how,
	    struct cerr *err);

/* Read and throw away the rest of the current RETR body and its ".". */
int	 dl_skipbody(struct net *, struct cerr *err);

/*
 * Make the temp file fd (named tmp in dfd) durable and rename it over
 * leaf: fsync, close, rename, fsync of the directory.  fd is closed
 * and, on failure, tmp removed.  Returns 0 or -1 with err naming path.
 */
int	 dl_commit(int fd, int dfd, const char *tmp, const char *leaf,
	    const char *path, struct cerr *err);

/*
 * One whole file to fetch, as ktcheck fetches command files and
 * transcripts and cairn-replicate fetches a repository's files: the
 * request RETR kind [tname] [epath], received into rel below dfd.  rel's
 * directory is reached through common/confine (missing directories made
 * with dmode), the body is received and verified by dl_file against w,
 * the server's mtime set when mtime >= 0, and the file made durable and
 * renamed over rel (dl_commit).  Flags: DL_NOSYNC renames without the
 * fsyncs (the caller makes a batch durable at once); DL_REPLACEDIR
 * removes a directory standing at rel first.
 */
#define DL_NOSYNC	0x01
#define DL_REPLACEDIR	0x02
struct dl_req {
	const char	*kind;
	const char	*tname;
	const char	*epath;
	int		 dfd;
	const char	*rel;
	mode_t		 dmode;
	struct dl_want	 w;
	int64_t		 mtime;
	int		 flags;
};

/*
 * The two halves of fetching the dl_req req, as the ops of a request
 * window (reqwin.h; arg and ctx are not used).  dl_req_send queues the
 * request: 0, or -1 with err.  dl_req_recv receives the reply to the
 * oldest request sent, which must be req's: 0, or a DL_* failure with
 * err naming req->w.path.  A local failure before the body (rel's
 * directory) still reads and drops the reply, so the next one stays in
 * step.
 */
int	 dl_req_send(void *arg, struct net *, void *req, struct cerr *err);
int	 dl_req_recv(void *arg, struct net *, void *req, void *ctx,
	    struct cerr *err);

/*
 * Temp names in the destination directory: "<leaf>.radmind.<pid>" (or
 * ".radmind.<pid>.<line>" for long names), malloc'd.  dl_opentemp
 * creates one exclusively with mode (a stale one of ours is replaced)
 * and returns its descriptor, or -1 with errno (*tmp set all the same;
 * EINTR: the process is being interrupted).  The temp file is
 * registered with common/intr, which removes it if the tool is
 * interrupted: once it is renamed or removed, dl_tempdone(-1, tmp)
 * forgets it, or dl_tempdone(dfd, tmp) removes it and forgets it, before
 * tmp is freed.  Every temp name in a client goes through here.
 * dl_istemp is nonzero if the component name[0..len) has the form of
 * such a name, ignoring case (where a file system does): a name a peer
 * gives that a temp file of this process could take, and remove.
 * dl_isowntemp is nonzero only if it has the number of this process
 * too: a name that a temp file of this very process may hold at once.
 */
char	*dl_tempname(const char *leaf, unsigned lineno);
int	 dl_istemp(const char *name, size_t len);
int	 dl_isowntemp(const char *name, size_t len);
int	 dl_opentemp(int dfd, const char *leaf, unsigned lineno, mode_t mode,
	    char **tmp);
void	 dl_tempdone(int dfd, const char *tmp);
/*
 * As dl_opentemp, for a temp object that make(dfd, name, arg) creates (a
 * symbolic link, a device; dl_opentemp's file is one too): what make
 * returns, or -1 with errno (*tmp set all the same).
 */
int	 dl_maketemp(int dfd, const char *leaf, unsigned lineno,
	    int (*make)(int, const char *, void *), void *arg, char **tmp);

#endif
