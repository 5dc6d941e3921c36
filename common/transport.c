/*
 * transport.c: a connection's socket and TLS session (transport.h).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "cerr.h"
#include "tls.h"
#include "transport.h"
#include "xmalloc.h"

#define TRANSPORT_DRAINTIME	2000		/* transport_shutdown, ms */
#define TRANSPORT_DRAINMAX	(1024 * 1024)

struct transport {
	int		 fd;
	char		*peer;
	struct tls	*tls;		/* after transport_starttls */
	transport_wait_fn hook;		/* NULL: none */
	void		*hookarg;
	int		 timing;	/* count waits (transport_set_timing) */
	uint64_t	 stall_ns, idle_ns; /* waiting to send, to receive */
	int		 timedout;	/* a wait ran out of time */
	int		 wfail;		/* a write failed */
	uint64_t	 in, out;	/* bytes received, sent */
};

int64_t
transport_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static uint64_t
now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

struct transport *
transport_new(int fd, const char *peer)
{
	struct transport	*t;
	int			 fl;

	t = xcalloc(1, sizeof(*t));
	t->fd = fd;
	t->peer = xstrdup(peer != NULL ? peer : "peer");
	if ((fl = fcntl(fd, F_GETFL)) != -1)
		(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	return t;
}

void
transport_free(struct transport *t)
{
	if (t == NULL)
		return;
	tls_free(t->tls);
	if (t->fd != -1)
		close(t->fd);
	free(t->peer);
	free(t);
}

/*
 * Wait until the socket is ready for events or the deadline passes.
 * Returns 0 when ready, -1 with err on timeout or poll failure.
 */
static int
transport_wait(struct transport *t, short events, int64_t deadline,
    struct cerr *err)
{
	struct pollfd	 pfd;
	int64_t		 left;
	uint64_t	 t0 = t->timing ? now_ns() : 0;
	int		 r;

	for (;;) {
		left = -1;
		if (deadline >= 0 && (left = deadline - transport_now()) < 0)
			left = 0;
		pfd.fd = t->fd;
		pfd.events = events;
		pfd.revents = 0;
		r = poll(&pfd, 1, left > 1000000000 ? 1000000000 : (int)left);
		if (r > 0) {
			if (!t->timing)
				return 0;
			/* Waiting to send is the link's; to read, idle. */
			if (events & POLLOUT)
				t->stall_ns += now_ns() - t0;
			else
				t->idle_ns += now_ns() - t0;
			return 0;
		}
		if (r == 0) {
			t->timedout = 1;
			cerr_set(err, "%s: timed out %s", t->peer,
			    events == POLLIN ? "waiting for data" :
			    "sending data");
			return -1;
		}
		if (errno != EINTR) {
			cerr_errno(err, "%s: poll", t->peer);
			return -1;
		}
	}
}

/* TLS: wait as the session asks.  Returns 0 or -1 (err). */
static int
transport_tlswait(struct transport *t, ssize_t r, int64_t deadline,
    struct cerr *err)
{
	return transport_wait(t, r == TLS_WANTWRITE ? POLLOUT : POLLIN,
	    deadline, err);
}

void
transport_shutdown(struct transport *t)
{
	unsigned char	 tmp[8192];
	int64_t		 deadline;
	size_t		 total = 0;
	ssize_t		 r;

	tls_close(t->tls);
	(void)shutdown(t->fd, SHUT_WR);
	deadline = transport_now() + TRANSPORT_DRAINTIME;
	while (total < TRANSPORT_DRAINMAX) {
		if (transport_wait(t, POLLIN, deadline, NULL) == -1)
			break;
		r = read(t->fd, tmp, sizeof(tmp));
		if (r == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (r <= 0)
			break;
		total += (size_t)r;
	}
}

const char *
transport_peer(const struct transport *t)
{
	return t->peer;
}

void
transport_set_peer(struct transport *t, const char *peer)
{
	free(t->peer);
	t->peer = xstrdup(peer);
}

int
transport_fd(const struct transport *t)
{
	return t->fd;
}

struct tls *
transport_tls(const struct transport *t)
{
	return t->tls;
}

void
transport_set_hook(struct transport *t, transport_wait_fn fn, void *arg)
{
	t->hook = fn;
	t->hookarg = arg;
}

ssize_t
transport_read(struct transport *t, void *p, size_t n, int64_t deadline,
    struct cerr *err)
{
	struct cerr	 terr;
	ssize_t		 r;
	int		 waited = 0;

	for (;;) {
		if (t->tls != NULL) {
			r = tls_read(t->tls, p, n, &terr);
			if (r == -1) {
				cerr_set(err, "%s: %s", t->peer, terr.msg);
				return -1;
			}
			if (r == TLS_WANTWRITE) {
				if (transport_tlswait(t, r, deadline,
				    err) == -1)
					return -1;
				continue;
			}
		} else
			r = read(t->fd, p, n);
		if (r >= 0) {
			t->in += (uint64_t)r;
			return r;
		}
		if (t->tls == NULL) {
			if (errno == EINTR)
				continue;
			if (errno != EAGAIN && errno != EWOULDBLOCK) {
				cerr_errno(err, "%s: read", t->peer);
				return -1;
			}
		}
		if (!waited && t->hook != NULL) {
			int64_t	 t0 = transport_now();

			if (t->hook(t->hookarg, err) == -1)
				return -1;
			if (deadline >= 0)
				deadline += transport_now() - t0;
		}
		waited = 1;
		if (transport_wait(t, POLLIN, deadline, err) == -1)
			return -1;
	}
}

int
transport_write(struct transport *t, const void *p, size_t n,
    int64_t deadline, struct cerr *err)
{
	const unsigned char	*q = p;
	struct cerr		 terr;
	ssize_t			 r;

	while (n > 0 && t->tls != NULL) {
		r = tls_write(t->tls, q, n, &terr);
		if (r > 0) {
			q += r;
			n -= (size_t)r;
			t->out += (uint64_t)r;
			continue;
		}
		if (r == -1) {
			cerr_set(err, "%s: %s", t->peer, terr.msg);
			return -1;
		}
		if (transport_tlswait(t, r, deadline, err) == -1)
			return -1;
	}
	while (n > 0) {
		r = send(t->fd, q, n, MSG_NOSIGNAL);
		if (r > 0) {
			q += r;
			n -= (size_t)r;
			t->out += (uint64_t)r;
			continue;
		}
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			if (transport_wait(t, POLLOUT, deadline, err) == -1)
				return -1;
			continue;
		}
		cerr_errno(err, "%s: write", t->peer);
		t->wfail = 1;
		return -1;
	}
	return 0;
}

int
transport_failed(const struct transport *t)
{
	return t->wfail;
}

int
transport_timedout(const struct transport *t)
{
	return t->timedout;
}

void
transport_timedout_reset(struct transport *t)
{
	t->timedout = 0;
}

int
transport_eatlf(struct transport *t, int64_t deadline, int wait,
    struct cerr *err)
{
	char	 ch;
	ssize_t	 r;

	for (;;) {
		r = recv(t->fd, &ch, 1, MSG_PEEK);
		if (r == 1) {
			if (ch == '\n')
				(void)recv(t->fd, &ch, 1, 0);
			return 0;
		}
		if (r == 0)
			return 0;	/* the handshake will say so */
		if (errno == EINTR)
			continue;
		if (errno != EAGAIN && errno != EWOULDBLOCK) {
			cerr_errno(err, "%s: read", t->peer);
			return -1;
		}
		if (!wait)
			return 0;
		if (transport_wait(t, POLLIN, deadline, err) == -1)
			return -1;
	}
}

int
transport_starttls(struct transport *t, struct tlsctx *ctx,
    const char *host, int64_t deadline, struct cerr *err)
{
	struct cerr	 terr;
	int		 r;

	if ((t->tls = tls_new(ctx, t->fd, host, &terr)) == NULL) {
		cerr_set(err, "%s: %s", t->peer, terr.msg);
		return -1;
	}
	for (;;) {
		r = tls_handshake(t->tls, &terr);
		if (r == 0)
			return 0;
		if (r == -1) {
			cerr_set(err, "%s: %s", t->peer, terr.msg);
			return -1;
		}
		if (transport_tlswait(t, r, deadline, err) == -1)
			return -1;
	}
}

void
transport_set_timing(struct transport *t, int on)
{
	t->timing = on;
}

void
transport_waits(const struct transport *t, uint64_t *stall, uint64_t *idle)
{
	*stall = t->stall_ns;
	*idle = t->idle_ns;
}

void
transport_bytes(const struct transport *t, uint64_t *in, uint64_t *out)
{
	*in = t->in;
	*out = t->out;
}
