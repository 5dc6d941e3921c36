/*
 * server.h: cairnd internals shared by the daemon's files.
 *
 *   cairnd.c   options, start-up, listening sockets, children
 *   session.c  one connection: banner, command loop, verb table,
 *              QUIT NOOP HELP COMP REPO STARTTLS
 *   peer.c     the log lines naming the client and the replies sent
 *              to it, for every verb (peer.h)
 *   hostcfg.c  config matching and the host's access list
 *   fetch.c    path descriptions, confined opening, STAT, RETR and
 *              DELTA
 *   tindex.c   what a transcript says of a path, for DELTA (tindex.h)
 *   stor.c     STOR uploads into tmp/
 *   zcache.c   -c: the cache of compressed file bodies (zcache.h)
 *   warm.c     -W: filling that cache ahead of the clients
 *   proxy.c    -X: listed balancers and their PROXY protocol header
 *
 * session.c calls the verbs of fetch.c and stor.c; they, and session.c,
 * speak to the client through peer.c, which calls none of them.
 *
 * The other programs built here are one file each: publish.c
 * (cairn-publish) and replicate.c (cairn-replicate, a client of its
 * primary through net/libnet.a).  cairnd and cairn-publish share one
 * module, dstore.c (dstore.h, libdstore.a): the bases and deltas kept
 * under the repository's delta/.
 */
#ifndef CAIRN_SERVER_H
#define CAIRN_SERVER_H

#include <sys/types.h>
#include <sys/socket.h>

#include <stddef.h>
#include <stdint.h>

#include "zlevel.h"

struct conn;
struct cerr;
struct zcache;
struct storq;
struct tlsctx;
struct proxyhdr;
struct dstore;
struct tindex;

/* -X: the balancers allowed (and required) to send a PROXY header. */
struct proxynet {
	int		 family;	/* AF_INET or AF_INET6 */
	unsigned char	 addr[16];
	int		 prefix;	/* bits */
};
struct proxylist {
	struct proxynet	*nets;
	size_t		 n;
};

/* Daemon settings a session needs (read only after start-up). */
struct sopts {
	struct zlevel_limit zlimit;	/* -Z max-level, -A auto|fixed */
	struct zcache	*zcache;	/* -c: compressed bodies, NULL: none */
	struct linkmemo	*links;		/* peers' links (linkmemo.h), or NULL */
	int		 debug;		/* -d: trace commands on stderr */
	int		 tls;		/* -w */
	struct tlsctx	*tlsctx;	/* -w > 0: the server context */
	mode_t		 umask;		/* -u, for uploads */
	int64_t		 maxupload;	/* -M: largest upload, 0 = any */
	int64_t		 minfree;	/* -N: bytes left free by uploads */
	int64_t		 maxfiles;	/* -n: entries a loadset, 0 = any */
	int64_t		 maxbytes;	/* -T: bytes a loadset, 0 = any */
	int		 grace;		/* -G: ms from connect to authorized */
	int		 linetime;	/* -t: ms for a line once begun */
	int		 idle;		/* -I: ms to wait for a command */
	int		 iowait;	/* -E: ms for each transfer step */
	int		 rootfd;	/* the repository (-D), O_DIRECTORY */
	const struct proxylist *proxies; /* -X, NULL: none */
	int		 names;		/* -H: SESS_NAMES_* */
	char		 hostname[256];	/* for the banner */
};

/* -H: which name from the resolver a client goes by. */
#define SESS_NAMES_CONFIRM	0	/* the reverse name, forward-confirmed */
#define SESS_NAMES_REVERSE	1	/* the reverse name alone (Radmind) */
#define SESS_NAMES_OFF		2	/* no lookup: the address */

/* Defaults of the deadlines (ms) and the inflate bound. */
#define SESS_GRACE	(30 * 1000)		/* -G */
#define SESS_LINETIME	(60 * 1000)		/* -t */
#define SESS_IDLE	(60 * 60 * 1000)	/* -I */
#define SESS_IOWAIT	(60 * 1000)		/* -E */
#define SESS_ZRATIO	100			/* lines : compressed bytes */

/* Session states (docs/protocol.md section 7). */
#define SESS_PRETLS	0	/* -w >= 1, before STARTTLS */
#define SESS_UNKNOWN	1	/* after STARTTLS, host not in config */
#define SESS_AUTH	2	/* host in config */

/* How file bodies were sent (RETR), per class. */
#define BODY_DEFLATED	0	/* deflated live */
#define BODY_STORED	1	/* judged incompressible: stored blocks */
#define BODY_CACHED	2	/* ready-made deflate data from the cache */
struct bodystats {
	uint64_t	 files[3], raw[3], wire[3];
};

/* DELTA requests: answered with a delta, and what those files weigh. */
struct deltastats {
	uint64_t	 asked;		/* DELTA requests served */
	uint64_t	 sent;		/* ... with a delta */
	uint64_t	 bytes;		/* the deltas' bytes */
	uint64_t	 whole;		/* their files' bytes */
};

/* A delta store the session opened, by algorithm (NULL: none). */
#define SESS_NSTORES	4
struct sstore {
	char		 alg[17];
	struct dstore	*ds;
};

/* Per-connection state. */
struct sess {
	struct conn		*conn;
	const struct sopts	*opts;
	char			 ip[64];	/* numeric peer address */
	char			 host[1025];	/* reverse name or ip */
	char			 peer[1100];	/* "host[ip]" for log lines */
	const char		*cn;		/* certificate CN, NULL */
	int			 state;		/* SESS_PRETLS ... */
	int64_t			 grace;		/* deadline to reach SESS_AUTH */
	char			*cmdfile;	/* base command file (config) */
	char			*key;		/* what matched in config */
	char			*specialdir;	/* special/[kdir/]key */
	char			**acl;		/* names the host may fetch */
	size_t			 nacl;
	int			 errors;	/* protocol errors so far */
	char			*stortran;	/* raw name of STOR TRANSCRIPT */
	char			*storname;	/* its decoded name */
	int			 stormade;	/* STOR_MADE_*: what we created */
	int64_t			 storfiles;	/* ... files, directories in it */
	int64_t			 storbytes;	/* ... bytes, transcript too */
	int64_t			 storown;	/* ms of our own in a body */
	struct zlevel		 zl;		/* compression agreed */
	struct bodystats	 bodies;
	struct deltastats	 deltas;
	struct sstore		 stores[SESS_NSTORES];
	size_t			 nstores;
	struct tindex		*tindex;	/* transcripts DELTA read */
	int			 relopen;	/* the release was looked for */
	int			 relfd;		/* ... its directory, or -1 */
	int			 relerr;	/* ... errno when -1 */
	struct storq		*storq;		/* stored, not yet synced */
	const char		*via;		/* -X: the balancer, or NULL */
	int			 check;		/* a balancer's check (LOCAL) */
	int			 close;		/* end the session */
	int			 status;	/* exit status of the child */
};

/* Outcome of a verb: continue, or close the connection. */
#define SESS_OK		0
#define SESS_CLOSE	(-1)

/* session.c */
/*
 * Serve the connection fd from the client at sa; via: the numeric
 * address of the balancer that relayed it (-X), or NULL; check: the
 * balancer's own connection (PROXY LOCAL), matched against no host.
 */
int	 sess_serve(int fd, const struct sockaddr *, socklen_t,
	    const char *via, int check, const struct sopts *);

/* hostcfg.c */
/*
 * Find the host in "config" (docs/protocol.md 6.1): on a match set s->cmdfile
 * and s->key and return 1; return 0 if not found, -1 if config cannot be
 * read (err).
 */
int	 hostcfg_match(struct sess *, struct cerr *err);
/*
 * Load the host's command files and build s->acl and s->specialdir.
 * Returns 0; HOSTCFG_NOFILE if the command file config names for the
 * host does not exist; -1 if it (or one it includes) cannot be loaded.
 * Both with err.
 */
#define HOSTCFG_NOFILE	(-2)
int	 hostcfg_load(struct sess *, struct cerr *err);
int	 hostcfg_allowed(const struct sess *, const char *name);

/* fetch.c */
int	 cmd_stat(struct sess *, int ac, char **av);
int	 cmd_retr(struct sess *, int ac, char **av);
/* DELTA <alg> <basis> FILE <t> <p> (docs/protocol.md 5.11). */
int	 cmd_delta(struct sess *, int ac, char **av);
int	 cmd_zdict(struct sess *, int ac, char **av);
/* At the end of a session: what DELTA and MANIFEST opened and read. */
void	 fetch_end(struct sess *);
/*
 * [cairn] May the session have the cache's zstd dictionary
 * (docs/protocol.md 9.3, zcache_dict_for): there is one, the
 * transcripts it was trained on are as they were, and the host may
 * fetch each of them (hostcfg_allowed); with acl 0 (the host's names
 * not loaded yet: the banner before TLS) the last is not asked.
 */
int	 fetch_zdict_ok(struct sess *, int acl);
/*
 * [cairn] Does the repository at rootfd hold a signed release
 * (release/current, docs/protocol.md 5.12)?  The banner lists MANIFEST
 * when it does.
 */
int	 fetch_has_release(int rootfd);
/*
 * Open relpath (relative to the repository) for reading, walking it one
 * component at a time without following symlinks; "..", and anything
 * but a regular file at the end, are refused.  Returns an fd or -1 with
 * errno set.
 */
int	 safe_open(int rootfd, const char *relpath);
/*
 * warm.c: cairnd -W levels ("9", "1,6,9", "9,zstd:19"; parsed by
 * zlevel_parse_list): cache_warm fills the cache: 0, or -1 if anything
 * could not be done.
 */
int	 cache_warm(struct zcache *, int rootfd, const char *levels);

/* proxy.c */
/* The address of sa without its port (IPv4-mapped as IPv4); -1: none. */
int	 proxy_addrof(const struct sockaddr *, int *family,
	    unsigned char addr[16]);
/* Add "addr[/prefix][,addr[/prefix]...]" to the list; -1 and err. */
int	 proxylist_add(struct proxylist *, const char *spec, struct cerr *);
/* Nonzero if sa is in the list (a NULL list has nothing). */
int	 proxylist_match(const struct proxylist *, const struct sockaddr *);
/*
 * Read the PROXY header that starts the connection fd, within timeout
 * ms, and not a byte beyond it.  Returns 0 with *ph filled, or -1 with
 * ph->why saying why not.
 */
int	 proxy_read(int fd, int timeout, struct proxyhdr *ph);
/*
 * Nonzero if what the peer has sent so far (looked at, not consumed,
 * without waiting) begins like a PROXY header.
 */
int	 proxy_sent_header(int fd);

/* stor.c */
#define STOR_MADE_DIR	0x01	/* tmp/file/<t> */
#define STOR_MADE_TRAN	0x02	/* tmp/transcript/<t> */
#define STOR_MINFREE	(16 * 1024 * 1024)	/* default -N, bytes */
#define STOR_MAXFILES	1000000			/* default -n */
#define STOR_MAXBYTES	(100LL << 30)		/* default -T, bytes */
int	 cmd_stor(struct sess *, int ac, char **av);
/*
 * Make the files stored so far durable (data, then the directories given
 * new entries) and send the replies held for them.  Called before any
 * verb other than STOR.  Returns SESS_OK, or SESS_CLOSE after the
 * refusal that ends the session.
 */
int	 stor_sync(struct sess *);
/*
 * At the end of a session: an upload is kept only if the session ended
 * with QUIT (s->status 0); otherwise what this session created for its
 * current transcript (tmp/transcript/<t>, tmp/file/<t>) is removed.
 */
void	 stor_finish(struct sess *);
/*
 * After session pid ended: if it was killed while making an upload (its
 * marker tmp/.stor.<pid> is left), remove that upload and the marker.
 */
void	 stor_reap(int rootfd, pid_t pid);
/*
 * At start-up: stor_reap every session whose marker is left in tmp/ and
 * that no longer runs (stopped with its listener, which could not reap
 * it); a session still running keeps its upload.
 */
void	 stor_sweep(int rootfd);

#endif
