/*
 * connin.c: buffered input of a connection, lines and blocks (connin.h).
 *
 * Plain input not yet consumed is in[ioff .. ioff+ilen); iscan bytes
 * after ioff are known to hold no end of line, so that a line arriving
 * in pieces is scanned once.
 */
#include "config.h"

#include <sys/types.h>

#include <stdlib.h>
#include <string.h>

#include "cerr.h"
#include "connin.h"
#include "transport.h"
#include "xmalloc.h"

struct connin {
	const struct transport *tp;	/* names the peer */
	connin_produce_fn produce;
	void		*arg;
	size_t		 maxline;
	int		 linewait;	/* ms to wait for a line to begin, -1 */
	int		 linetime;	/* ms for a line once begun, -1 */
	int		 bounded;	/* fill no more than a line may hold */

	unsigned char	*in;
	size_t		 icap, ioff, ilen;
	size_t		 iscan;		/* bytes after ioff with no EOL */
	int		 skiplf;	/* last line ended in CR: eat one LF */
	int		 eof, toolong;
};

struct connin *
connin_new(const struct transport *tp, connin_produce_fn produce, void *arg)
{
	struct connin	*in;

	in = xcalloc(1, sizeof(*in));
	in->tp = tp;
	in->produce = produce;
	in->arg = arg;
	in->linewait = -1;
	in->linetime = -1;
	return in;
}

void
connin_free(struct connin *in)
{
	if (in == NULL)
		return;
	free(in->in);
	free(in);
}

void
connin_set_maxline(struct connin *in, size_t max)
{
	in->maxline = max;
}

void
connin_set_linetimes(struct connin *in, int wait, int line)
{
	in->linewait = wait;
	in->linetime = line;
}

void
connin_set_bounded(struct connin *in, int on)
{
	in->bounded = on;
}

int
connin_eof(const struct connin *in)
{
	return in->eof;
}

int
connin_toolong(const struct connin *in)
{
	return in->toolong;
}

/* Make sure the buffer exists and has room at its end. */
static size_t
connin_space(struct connin *in)
{
	size_t	 want = in->maxline + 1 + TRANSPORT_IOSIZE;

	if (in->icap < want) {
		if (in->ioff > 0 && in->ilen > 0)
			memmove(in->in, in->in + in->ioff, in->ilen);
		in->ioff = 0;
		in->in = xreallocarray(in->in, 1, want);
		in->icap = want;
	}
	if (in->ioff > 0 && (in->ioff + in->ilen == in->icap ||
	    in->ioff >= in->icap / 2)) {
		memmove(in->in, in->in + in->ioff, in->ilen);
		in->ioff = 0;
	}
	return in->icap - in->ioff - in->ilen;
}

/*
 * Append more input to the buffer: produce's result.  Bounded, ask for
 * at most lim bytes: a line reader asks for no more than could still
 * belong to a line within its cap.
 */
static ssize_t
connin_fill(struct connin *in, int64_t deadline, size_t lim,
    struct cerr *err)
{
	size_t	 space;
	ssize_t	 r;

	space = connin_space(in);
	if (in->bounded && space > lim)
		space = lim;
	r = in->produce(in->arg, in->in + in->ioff + in->ilen, space,
	    deadline, err);
	if (r > 0)
		in->ilen += (size_t)r;
	return r;
}

void
connin_consume(struct connin *in, size_t n)
{
	in->ioff += n;
	in->ilen -= n;
	in->iscan = 0;
	if (in->ilen == 0)
		in->ioff = 0;
}

ssize_t
connin_line(struct connin *in, char **line, size_t *took, int64_t deadline,
    size_t max, struct cerr *err)
{
	unsigned char	*p, ch = 0;
	size_t		 i, len;
	ssize_t		 r;
	int64_t		 waitd = -1, lined = -1, d, phase;
	int		 begun = 0;

	if (max > in->maxline)
		max = in->maxline;
	if (in->linewait >= 0)
		waitd = transport_now() + in->linewait;
	for (;;) {
		if (in->skiplf && in->ilen > 0) {
			in->skiplf = 0;
			if (in->in[in->ioff] == '\n')
				connin_consume(in, 1);
		}
		for (i = in->iscan; i < in->ilen; i++) {
			ch = in->in[in->ioff + i];
			if (ch == '\n' || ch == '\r' || ch == '\0')
				break;
		}
		if (i < in->ilen) {
			p = in->in + in->ioff;
			if (i > max)
				goto toolong;
			len = i;
			p[len] = '\0';
			if (ch == '\r') {
				if (len + 1 < in->ilen) {
					if (p[len + 1] == '\n')
						i++;
				} else
					in->skiplf = 1;
			}
			*line = (char *)p;
			*took = i + 1;
			return (ssize_t)len;
		}
		in->iscan = in->ilen;
		if (in->ilen > max)
			goto toolong;
		/*
		 * Until the line begins, wait at most linewait; from its
		 * first byte, the rest must follow within linetime.  The
		 * caller's deadline holds throughout.
		 */
		if (!begun && in->ilen > 0) {
			begun = 1;
			if (in->linetime >= 0)
				lined = transport_now() + in->linetime;
		}
		phase = begun ? lined : waitd;
		d = deadline;
		if (phase != -1 && (d < 0 || phase < d))
			d = phase;
		if ((r = connin_fill(in, d, max + 1 - in->ilen, err)) < 0) {
			if (r == CONNIN_TIMEOUT && d == phase &&
			    d != deadline && transport_now() >= phase)
				cerr_set(err, begun ? "%s: line not complete "
				    "%g s after it began" : "%s: no line in %g s",
				    transport_peer(in->tp), (begun ?
				    in->linetime : in->linewait) / 1000.0);
			return -1;
		}
		if (r == 0) {
			if (in->ilen > 0)
				cerr_set(err, "%s: connection closed in the "
				    "middle of a line",
				    transport_peer(in->tp));
			else {
				in->eof = 1;
				cerr_set(err, "%s: connection closed",
				    transport_peer(in->tp));
			}
			return -1;
		}
	}
toolong:
	in->toolong = 1;
	cerr_set(err, "%s: line longer than %zu bytes",
	    transport_peer(in->tp), max);
	return -1;
}

ssize_t
connin_read(struct connin *in, void *buf, size_t len, int64_t deadline,
    struct cerr *err)
{
	ssize_t	 r;

	if (len == 0)
		return 0;
	if (in->skiplf) {
		if (in->ilen == 0) {
			if ((r = connin_fill(in, deadline, (size_t)-1,
			    err)) < 0)
				return -1;
			if (r == 0)
				goto eof;
		}
		in->skiplf = 0;
		if (in->in[in->ioff] == '\n')
			connin_consume(in, 1);
	}
	if (in->ilen > 0) {
		if (len > in->ilen)
			len = in->ilen;
		memcpy(buf, in->in + in->ioff, len);
		connin_consume(in, len);
		return (ssize_t)len;
	}
	/* Nothing buffered: straight into the caller's buffer. */
	if ((r = in->produce(in->arg, buf, len, deadline, err)) < 0)
		return -1;
	if (r > 0)
		return r;
eof:
	in->eof = 1;
	cerr_set(err, "%s: connection closed", transport_peer(in->tp));
	return -1;
}

int
connin_lf(struct connin *in)
{
	if (!in->skiplf)
		return 0;
	in->skiplf = 0;
	if (in->ilen == 0)
		return 1;
	if (in->in[in->ioff] == '\n')
		connin_consume(in, 1);
	return 0;
}

size_t
connin_buffered(const struct connin *in, const unsigned char **p)
{
	if (p != NULL)
		*p = in->in != NULL ? in->in + in->ioff : NULL;
	return in->ilen;
}

size_t
connin_pending(const struct connin *in)
{
	if (in->skiplf && in->ilen > 0 && in->in[in->ioff] == '\n')
		return in->ilen - 1;
	return in->ilen;
}
