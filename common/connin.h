/*
 * connin.h: the input side of a connection (conn.h): plain bytes
 * buffered and read as lines or as blocks.
 *
 * The reader does not know where its bytes come from: when it needs
 * more it calls its owner's produce function (the connection reads the
 * transport, decodes through its filter, or takes from the read-ahead
 * thread).  Line rules follow docs/protocol.md section 2: a line ends
 * at CRLF, LF, CR or NUL; the terminator is stripped; a line longer
 * than the cap is an error.  Messages name the transport's peer.
 */
#ifndef CAIRN_CONNIN_H
#define CAIRN_CONNIN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cerr;
struct connin;
struct transport;

/*
 * produce: put up to n plain bytes at p, waiting until the absolute
 * deadline (transport_now() clock, -1: none).  Returns the count (> 0),
 * 0 at a clean end of stream, -1 with err, or CONNIN_TIMEOUT with err
 * when a wait ran out of time.
 */
#define CONNIN_TIMEOUT	(-2)
typedef ssize_t	(*connin_produce_fn)(void *arg, void *p, size_t n,
		    int64_t deadline, struct cerr *err);

struct connin	*connin_new(const struct transport *, connin_produce_fn,
		    void *arg);
void		 connin_free(struct connin *);		/* NULL is fine */

/* Longest line, terminator excluded, and the line deadlines (conn.h). */
void		 connin_set_maxline(struct connin *, size_t);
void		 connin_set_linetimes(struct connin *, int wait, int line);
/*
 * Bounded: a line read asks produce for no more than the line may still
 * hold (a filter's output, so that a line that never ends costs no
 * more than the cap).
 */
void		 connin_set_bounded(struct connin *, int on);

/*
 * Find the next line (cap: the smaller of max and the reader's).
 * Returns its length with the NUL terminated line in *line and in *took
 * the bytes it and its terminator hold; it stays buffered until
 * connin_consume(took).  -1 with err: connin_eof() tells a clean end of
 * stream, connin_toolong() an over-long line.
 */
ssize_t		 connin_line(struct connin *, char **line, size_t *took,
		    int64_t deadline, size_t max, struct cerr *err);
void		 connin_consume(struct connin *, size_t n);
/* Read up to len bytes: the count (> 0), or -1 (the end is an error). */
ssize_t		 connin_read(struct connin *, void *buf, size_t len,
		    int64_t deadline, struct cerr *err);
int		 connin_eof(const struct connin *);
int		 connin_toolong(const struct connin *);

/*
 * The last line ended in a bare CR: eat the LF of its CRLF if it is
 * buffered.  Returns 1 when it is not buffered yet: the caller takes
 * over eating it (the reader forgets it); else 0.
 */
int		 connin_lf(struct connin *);
/* Bytes buffered (at *p if p is not NULL), a pending LF included. */
size_t		 connin_buffered(const struct connin *,
		    const unsigned char **p);
/* Bytes buffered, the LF of a CRLF whose CR ended the last line excluded. */
size_t		 connin_pending(const struct connin *);

#endif
