/*
 * net.h: the client side of the pull path, shared by ktcheck, lapply,
 * lfdiff, lcreate, repo and cairn-replicate.  Tools never touch fds,
 * SSL or zlib: they hold a struct net and use these calls.
 *
 * Requests may be pipelined: net_send_* queue a request line without
 * waiting; replies come back in request order and are read with
 * net_retr_begin / net_retr_read / net_retr_end (or net_stat_reply).
 * Queued output is flushed automatically before any call that waits for
 * the server.  All functions return 0 on success, -1 on error with a
 * message naming the peer in err (the session is then unusable unless
 * the error was a per-request failure reply, see net_retr_begin).
 */
#ifndef CAIRN_NET_H
#define CAIRN_NET_H

#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <sys/types.h>

struct cerr;
struct net;

/* Options shared by every network client, parsed by one table (copts). */
struct netopts {
	/*
	 * The servers, in the order they are tried: names separated by
	 * commas ("a.example,b.example"), default "radmind".
	 */
	const char	*host;
	const char	*addr;		/* set by net_pin, else NULL */
	const char	*port;		/* NULL: service "radmind" else 6222 */
	int		 zlevel;	/* -Z 0..9 requested (zstd: 1..19) */
	int		 zauto;		/* -Z auto */
	int		 zcodec;	/* -Z's codec (zlevel.h): zstd when
					   "-Z zstd[:level]" */
	int		 tls;		/* -w 0..2 */
	const char	*cafile, *cadir, *cert, *key;
	int		 verbose;	/* -v: protocol trace on stderr */
	int		 readahead;	/* inflate ahead on a thread */
};

/* Byte counters of one session (before/after compression). */
struct netstats {
	uint64_t	 raw_out, wire_out;	/* sent: before / after deflate */
	uint64_t	 raw_in, wire_in;	/* received: after / before inflate */
	int		 level;			/* negotiated level, 0 = none */
	int		 zauto;			/* automatic, up to level */
	uint64_t	 lvl_raw[20];		/* sent, by level (zstd: to 19) */
	uint64_t	 stored_files, stored_bytes;	/* uploads sent stored */
	/*
	 * With -v (netopts verbose): file bodies received, as the sender's
	 * judge of incompressible data (zauto_incompressible) sees them:
	 * [0] data that shrinks, [1] data that does not (which a cairn
	 * sender sends as stored blocks).
	 */
	uint64_t	 recv_files[2], recv_bytes[2];
};

/*
 * Connect, read the banner, STARTTLS and COMP as configured.  Each server
 * of the host list is tried in order, each of its addresses in turn
 * (getaddrinfo's order, each on the default and then the legacy port
 * when no port is given), until one greets: the next is tried when a
 * connection is refused or times out, when the peer sends no RAP
 * greeting within 30 s or closes, and when it greets with a 4xx reply
 * (420 Server busy, 421 Service not available).  A 5xx greeting (500 No
 * access), a refused STARTTLS, a certificate that does not verify and a
 * failed COMP end the attempt there with that reason.  With verbose
 * set, each attempt and why the last one failed are logged.  When every
 * server failed, err names each with its reason.
 */
struct net	*net_open(const struct netopts *, struct cerr *err);
/*
 * Make o name only the server and address n is connected to (o->host
 * and o->addr then borrow from n): for more sessions with the same one.
 */
void		 net_pin(const struct net *, struct netopts *o);
/* Send QUIT (if still usable), read its reply, close and free. */
int		 net_close(struct net *, struct cerr *err);
void		 net_stats(const struct net *, struct netstats *);
/*
 * Listed in the banner: "ZLIB", "REPO" (Radmind's rule), "DELTA" and
 * "MANIFEST" (the whole word).
 */
int		 net_has_cap(const struct net *, const char *cap);
/* The server as messages name it: "host[address]". */
const char	*net_peer(const struct net *);
/*
 * The server as the user named it, "host:port" (whichever of its
 * addresses answered): what a client keeps for a server is keyed by it.
 */
const char	*net_server(const struct net *);
/*
 * [cairn] The size of the zstd dictionary the server offers to this
 * zstd session (docs/protocol.md section 9.3), rounded up to KiB; 0
 * when there is none to take (no offer, not zstd, taken already).  And
 * the dictionary received (RETR ZDICT, dl_zdict), checked and used by
 * the stream from the next frame on each way.
 */
int64_t		 net_zdict_size(const struct net *);
int		 net_use_zdict(struct net *, const void *p, size_t len,
		    struct cerr *err);
/* The id of the dictionary in use, 0: none. */
unsigned	 net_zdict_id(const struct net *);
/* The zstd ID of the dictionary offered (ZDICTID=), 0: none named. */
unsigned	 net_zdict_offer(const struct net *);
/*
 * Name the dictionary of zstd ID id kept from an earlier session, len
 * bytes at p (ZDICT <id> <sha256>): taken by the server, it is used as
 * net_use_zdict's.  0 when taken, 1 when refused (not the server's, err
 * says so; the session goes on without one), -1 when the session is
 * unusable (a 421 reply too: the server is closing).
 */
int		 net_zdict_reuse(struct net *, unsigned id, const void *p,
		    size_t len, struct cerr *err);
/*
 * End the session (QUIT and its reply, as net_close would), then print
 * its byte counters (for -v): Radmind's "zlib stats" line when
 * compression is on, then one line of bytes before and after compression
 * in both directions and what compression saved, and the file bodies
 * received by class (with netopts verbose, which sorts them).  The counts thus cover
 * the bytes cairnd's "session end" line counts.  net_close still frees n
 * and reports how the QUIT went.
 */
void		 net_print_stats(struct net *, FILE *);

/* Queue "STAT <kind> [<name>]" (kind: COMMAND TRANSCRIPT SPECIAL). */
int	 net_send_stat(struct net *, const char *kind, const char *name,
	    struct cerr *err);
/*
 * Read a STAT reply.  Returns 0 with the raw reply line (the second line,
 * borrowed until the next call) in *line, 1 if the server refused that
 * one request (message in err, session still usable), -1 on a session
 * error.
 */
int	 net_stat_reply(struct net *, char **line, struct cerr *err);

/* The fields of a STAT reply "f <name> <mode> <uid> <gid> <mtime> <size>
 * <cksum>" that a client acts on. */
struct net_stat {
	int64_t		 mtime, size;
	char		 cksum[128];	/* as the server sent it */
};

/*
 * STAT <kind> [<name>] and parse the reply into *st.  A reply that is not
 * eight fields with a decimal mtime and size, or a size above max, is an
 * error naming the peer (label: how the object is named there, NULL for
 * name).  Returns 0, 1 if the server refused that one request (message in
 * err, session still usable), -1 on any other error.
 */
int	 net_stat(struct net *, const char *kind, const char *name,
	    const char *label, int64_t max, struct net_stat *st,
	    struct cerr *err);

/*
 * Queue "RETR <kind> [<tname>] [<epath>]": kind FILE (tname + encoded
 * path), SPECIAL (encoded path), COMMAND (optional name), TRANSCRIPT.
 * For SPECIAL, COMMAND and TRANSCRIPT the one name may be passed in
 * either tname or epath (the other NULL).  Tokens must not be empty or
 * contain whitespace (encode paths first).
 */
int	 net_send_retr(struct net *, const char *kind, const char *tname,
	    const char *epath, struct cerr *err);
/*
 * [cairn] Queue "DELTA <alg> <basis> FILE <tname> <epath>"
 * (docs/protocol.md section 5.11): the file as for RETR FILE, asked as
 * a delta from the regular file whose digest (named as -c names it) is
 * basis.  Only to a server that lists DELTA (net_has_cap).  Its reply
 * is read as a RETR's: a delta (241, net_retr_delta) or the whole file
 * (240).
 */
int	 net_send_delta(struct net *, const char *alg, const char *basis,
	    const char *tname, const char *epath, struct cerr *err);
/*
 * Read the reply header of the oldest outstanding RETR (or DELTA): *size
 * gets the announced length.  Returns 0, 1 if the server refused this
 * request (session still usable), -1 on a session error.
 */
int	 net_retr_begin(struct net *, int64_t *size, struct cerr *err);
/* Nonzero while the body begun is a delta (a 241 reply to DELTA). */
int	 net_retr_delta(const struct net *);
/* Read up to len data bytes of the current RETR body (0 when done). */
ssize_t	 net_retr_read(struct net *, void *buf, size_t len, struct cerr *err);
/* Read the terminating "." line of the current RETR. */
int	 net_retr_end(struct net *, struct cerr *err);

/*
 * Uploads (STOR, docs/protocol.md section 5.6), pipelined as Radmind's
 * lcreate does: net_stor_begin queues "STOR <kind> <tname> [<epath>]"
 * and "<size>" (kind TRANSCRIPT with tname, or FILE with tname and the
 * encoded path), net_stor_data queues body bytes, net_stor_end queues
 * the "." line once exactly size bytes were given.  None of these wait
 * for the server; each upload's replies (350 then 250) are read later,
 * oldest first, with net_stor_reply.  A failed send (the server closed
 * after refusing an earlier upload) leaves the replies readable, so the
 * caller can still collect the refusal.
 */
int	 net_stor_begin(struct net *, const char *kind, const char *tname,
	    const char *epath, int64_t size, struct cerr *err);
int	 net_stor_data(struct net *, const void *, size_t, struct cerr *err);
int	 net_stor_end(struct net *, struct cerr *err);
/*
 * Read both replies of the oldest outstanding upload.  Returns 0 when
 * stored, 1 if the server refused it (its reply line in err; the server
 * ends the session after a refused STOR), -1 on a session error.
 */
int	 net_stor_reply(struct net *, struct cerr *err);
/* Uploads queued whose replies were not read yet. */
size_t	 net_stor_pending(const struct net *);
/* Nonzero once no more requests can be sent or replies read. */
int	 net_broken(const struct net *);
/*
 * End the session without QUIT: send what is queued, close our side and
 * wait (at most 10 s, reading at most 1 MB of replies still due) for the
 * server to close; an unfinished upload is discarded by the server.
 * Frees n.
 */
void	 net_abort(struct net *);

/* Send "REPO <event> <encoded message>" and read the reply. */
int	 net_report(struct net *, const char *event, const char *msg,
	    struct cerr *err);

#endif
