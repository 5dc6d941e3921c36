/*
 * proto.h: the Radmind access protocol (RAP 1) on top of a conn:
 * reply codes, reply reading, banner/CAPA parsing, verb matching and
 * request tokenizing (docs/protocol.md sections 2-5, 12).
 */
#ifndef CAIRN_PROTO_H
#define CAIRN_PROTO_H

#include <stddef.h>
#include <stdint.h>

struct cerr;
struct conn;

#define PROTO_PORT		6222	/* IANA "radmind" */
#define PROTO_LEGACY_PORT	6662
#define PROTO_SERVICE		"radmind"
#define PROTO_REQMAX		(16 * 1024)	/* server: longest request */
#define PROTO_MAXARGS		8	/* more tokens than this: error */

/* Reply codes (docs/protocol.md section 12). */
#define RAP_BANNER		200
#define RAP_QUIT_OK		201
#define RAP_NOOP_OK		202
#define RAP_HELP		203
#define RAP_REPO_OK		215
#define RAP_ZLIB_ON		220
#define RAP_TLS_READY		220	/* STARTTLS: handshake follows */
#define RAP_STAT_OK		230
#define RAP_ZDICT_OK		225	/* [cairn] ZDICT: the dictionary in use */
#define RAP_RETR_OK		240
#define RAP_DELTA_OK		241	/* [cairn] DELTA: a delta follows */
#define RAP_STOR_DONE		250
#define RAP_ZLIB_READY		320
#define RAP_STOR_GO		350
#define RAP_BUSY		420
#define RAP_UNAVAILABLE		421
#define RAP_CLOSING		444
#define RAP_UNRECOGNIZED	500
#define RAP_SYNTAX		501
#define RAP_NOLOGIN		502
#define RAP_ZLIB_TYPE		525
#define RAP_STAT_SYNTAX		530
#define RAP_NEED_TLS		530	/* command before STARTTLS */
#define RAP_STAT_ACCESS		531
#define RAP_RETR_DENIED		540
#define RAP_RETR_ACCESS		543
#define RAP_STOR_SYNTAX		550
#define RAP_STOR_FAIL		551
#define RAP_STOR_TRAN		552
#define RAP_STOR_DATA		555

/* Capabilities listed in the banner's CAPA line. */
#define PROTO_CAP_ZLIB		0x01
#define PROTO_CAP_REPO		0x02
#define PROTO_CAP_ZAUTO		0x04	/* [cairn] COMP ZLIB AUTO */
#define PROTO_CAP_DELTA		0x08	/* [cairn] DELTA requests */
#define PROTO_CAP_MANIFEST	0x10	/* [cairn] a signed release */
#define PROTO_CAP_ZSTD		0x20	/* [cairn] COMP ZSTD, "ZSTD=<max>" */
/* The <max> of "ZSTD=<max>" (1 to 99), kept in the bits above. */
#define PROTO_CAP_ZSTDMAX(caps)	(((caps) >> 8) & 0xff)
#define PROTO_CAP_ZDICT		0x40	/* [cairn] RETR ZDICT, "ZDICT=<bytes>" */
/* The <bytes> of "ZDICT=<bytes>" in KiB, rounded up (1 to 1024). */
#define PROTO_CAP_ZDICTKB(caps)	((unsigned)((caps) >> 16) & 0x7ff)
/* [cairn] The <id> of "ZDICTID=<id>" (1 to 2^31 - 1), or 0: none. */
#define PROTO_CAP_ZDICTID(caps)	((unsigned)((caps) >> 32) & 0x7fffffff)

/*
 * Split a request or reply line in place into at most max tokens,
 * separated by runs of space, tab and LF.  Returns the token count, or
 * -1 if there are more than max tokens.
 */
int	proto_split(char *line, char **av, int max);

/*
 * Nonzero if tok names verb: case-insensitive, tok is the full verb or
 * an abbreviation of at least min characters ("STAT", "status").
 */
int	proto_verb_is(const char *tok, const char *verb, size_t min);

/*
 * What one reply may take, whatever the peer sends: it must be complete
 * by an absolute deadline (the connection's timeout from the start of
 * the reply, not from each line), in at most PROTO_REPLY_MAXLINES lines
 * and PROTO_REPLY_MAXBYTES bytes, continuation lines, banner lines and
 * the lines that follow a reply (a size, a STAT line, ".") included.
 */
#define PROTO_REPLY_MAXLINES	64
#define PROTO_REPLY_MAXBYTES	(64 * 1024)

struct proto_budget {
	int64_t		 deadline;	/* conn_now() clock, -1: none */
	size_t		 lines;		/* lines still allowed */
	size_t		 bytes;		/* bytes still allowed */
};

void	proto_budget_init(struct conn *, struct proto_budget *);
/*
 * Read one line within budget b.  Returns 0 with the line (borrowed
 * until the next read on c), -1 with a message naming the peer.
 */
int	proto_line(struct conn *, struct proto_budget *b, char **line,
	    struct cerr *err);

/*
 * Read one reply, following "NNN-" continuation lines.  *code gets the
 * code of the last line and *text that line (borrowed until the next
 * read on c).  Returns 0 (whatever the code), -1 on I/O error, a line
 * that is not a reply (quoted in err as proto_quote does, never raw), or
 * a reply over its budget.  proto_reply_in
 * reads it within b (shared with the lines that follow it); proto_reply
 * gives it a budget of its own.
 */
int	proto_reply(struct conn *, int *code, char **text, struct cerr *err);
int	proto_reply_in(struct conn *, struct proto_budget *b, int *code,
	    char **text, struct cerr *err);

/*
 * Read the server banner (docs/protocol.md section 3).  Every line must start
 * with '2'; the CAPA list is parsed as Radmind clients do.  *caps gets
 * PROTO_CAP_* bits.  The banner is one reply: it has the budget of one,
 * and must be complete within the connection's timeout.  Returns 0; the
 * code of a greeting that is a RAP reply refusing service (420 Server
 * busy, 421, 500), with that reply quoted in err; or -1 with err saying
 * why the peer is no RAP server: its first line is no reply (quoted,
 * escaped and cut short: "not a Radmind or cairn server (it sent
 * \"SSH-2.0-...\")"), nothing came within the timeout, it closed, or
 * the read failed.
 */
int	proto_banner(struct conn *, uint64_t *caps, struct cerr *err);

/*
 * Copy peer text src into dst (len bytes, NUL included) fit to print:
 * printable ASCII but '\\' and '"' as it is, every other byte as \xNN;
 * after max bytes of src (or when dst is full) "..." ends it.
 */
void	proto_quote(char *dst, size_t len, const char *src, size_t max);

/* Nonzero if CAPA list entry matches capability want (Radmind rules). */
int	proto_cap_match(const char *entry, const char *want);

/*
 * Parse a strictly decimal, non-negative 64-bit number (no sign, no
 * spaces, no trailing bytes).  Returns 0 or -1.
 */
int	proto_parse_size(const char *s, int64_t *out);

/*
 * A conn trace callback (conn_set_trace; arg unused) printing each line
 * through the log as "<<< line" (received) or ">>> line" (sent): what a
 * tool's -v and the daemon's -d show.
 */
void	proto_trace(void *arg, int dir, const char *line, size_t len);

#endif
