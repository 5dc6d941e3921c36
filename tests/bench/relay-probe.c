/*
 * relay-probe: measure what the benchmark relay delivers.
 *
 * usage: relay-probe rate-bit/s rtt-us bytes
 *
 * Starts a peer on 127.0.0.1 and a relay (bench/relay.c) in front of it,
 * then through the relay:
 *  1. 5 one-byte round trips: none may be shorter than the rtt;
 *  2. bytes sent to the peer: all of them arrive, and not before the link
 *     could carry them: from the first byte sent to the last one received
 *     takes at least bytes * 8 / rate plus half the rtt (less 2% for the
 *     rounding of the relay's per-chunk clock);
 *  3. the same from the peer to the client;
 *  4. the relay counted every byte and connection;
 *  5. while the client sends (2.), what it has written beyond what the
 *     link could have carried so far never exceeds what the relay says
 *     it holds (relay_qcap, its kernel buffers counted in) plus the
 *     client's own socket buffer, a chunk and a write: no hidden second
 *     queue delays the sender's back-pressure.  A late relay only
 *     lowers the figure.
 * Only lower bounds on time: a loaded machine makes the relay late, never
 * early, so no check depends on the speed of the machine.  Prints the
 * figures, one line per check, and exits 0 if every check held, 1
 * otherwise.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "compat.h"
#include "relay.h"

#define ROUNDS	5

struct peer {
	int		 lfd;
	uint64_t	 bytes;
	uint64_t	 last_ns, got;
};

static void
die(const char *what)
{
	fprintf(stderr, "relay-probe: %s: %s\n", what, strerror(errno));
	exit(2);
}

static int
xaccept(int lfd)
{
	int	fd, one = 1;

	if ((fd = accept(lfd, NULL, NULL)) == -1)
		die("accept");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

static void
writeall(int fd, const char *p, size_t n)
{
	ssize_t	w;

	while (n > 0) {
		if ((w = write(fd, p, n)) == -1) {
			if (errno == EINTR)
				continue;
			die("write");
		}
		p += w;
		n -= (size_t)w;
	}
}

/* Read to end of file: *got counts the bytes, *last times the last one. */
static void
sink(int fd, uint64_t *last, uint64_t *got)
{
	static char	buf[65536];
	ssize_t		n;

	*got = *last = 0;
	for (;;) {
		if ((n = read(fd, buf, sizeof(buf))) == -1) {
			if (errno == EINTR)
				continue;
			die("read");
		}
		if (n == 0)
			break;
		*last = relay_now_ns();
		*got += (uint64_t)n;
	}
}

/*
 * Send bytes and shut down.  If rate is not 0, *ahead gets the most
 * that was ever written beyond rate (bit/s) times the time since the
 * first write.
 */
static void
source(int fd, uint64_t bytes, uint64_t rate, double *ahead)
{
	static char	buf[16384];
	uint64_t	t0 = relay_now_ns(), sent = 0;
	double		a;
	size_t		n;

	memset(buf, 'x', sizeof(buf));
	while (bytes > 0) {
		n = bytes > sizeof(buf) ? sizeof(buf) : (size_t)bytes;
		writeall(fd, buf, n);
		bytes -= n;
		sent += n;
		if (rate == 0)
			continue;
		a = (double)sent - (relay_now_ns() - t0) / 1e9 * rate / 8;
		if (a > *ahead)
			*ahead = a;
	}
	shutdown(fd, SHUT_WR);
}

/* The peer: an echo connection, a sink, then a source. */
static void *
peer_main(void *arg)
{
	struct peer	*p = arg;
	char		 c;
	int		 fd, i;
	ssize_t		 n;

	fd = xaccept(p->lfd);
	for (i = 0; i < ROUNDS; i++) {
		if ((n = read(fd, &c, 1)) != 1)
			die("echo read");
		writeall(fd, &c, 1);
	}
	close(fd);

	fd = xaccept(p->lfd);
	sink(fd, &p->last_ns, &p->got);
	close(fd);

	fd = xaccept(p->lfd);
	source(fd, p->bytes, 0, NULL);
	close(fd);
	return NULL;
}

static int
dial(uint16_t port)
{
	struct sockaddr_in	sin;
	int			fd, one = 1;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		die("socket");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	sin.sin_port = htons(port);
	if (connect(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		die("connect to relay");
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

/*
 * Check that bytes took at least the time the link needs for them (t0 to
 * t1, ns); print a line; 0 if it held.
 */
static int
check_time(const char *what, uint64_t t0, uint64_t t1, uint64_t bytes,
    const struct relay_link *link)
{
	double	need, took = (t1 - t0) / 1e9;
	int	ok;

	need = 0.98 * bytes * 8.0 / link->rate + link->rtt_us / 2e6;
	ok = took >= need;
	printf("%s: %" PRIu64 " bytes in %.3f s, the link needs %.3f s "
	    "(%.3f Mbit/s): %s\n", what, bytes, took, need,
	    bytes * 8.0 / took / 1e6, ok ? "ok" : "FAIL (faster than the link)");
	return ok ? 0 : 1;
}

int
main(int argc, char *argv[])
{
	struct relay_link	 link;
	struct relay_stats	 st;
	struct sockaddr_in	 sin;
	socklen_t		 len;
	struct relay		*r;
	struct peer		 p;
	struct cerr		 err;
	pthread_t		 thr;
	const char		*es;
	uint64_t		 t0, t1, best, last, got;
	double			 ahead = 0, most;
	char			 c = 'p';
	int			 fd, i, sndbuf = 16384, bad = 0;

	if (argc != 4) {
		fprintf(stderr, "usage: relay-probe rate-bit/s rtt-us bytes\n");
		return 2;
	}
	memset(&link, 0, sizeof(link));
	link.rate = (uint64_t)strtonum(argv[1], 1000, 100000000000LL, &es);
	if (es != NULL)
		return fprintf(stderr, "rate %s: %s\n", argv[1], es), 2;
	link.rtt_us = (uint64_t)strtonum(argv[2], 0, 10000000, &es);
	if (es != NULL)
		return fprintf(stderr, "rtt %s: %s\n", argv[2], es), 2;
	memset(&p, 0, sizeof(p));
	p.bytes = (uint64_t)strtonum(argv[3], 1, 1LL << 32, &es);
	if (es != NULL)
		return fprintf(stderr, "bytes %s: %s\n", argv[3], es), 2;

	if ((p.lfd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		die("socket");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	len = sizeof(sin);
	if (bind(p.lfd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    listen(p.lfd, 4) == -1 ||
	    getsockname(p.lfd, (struct sockaddr *)&sin, &len) == -1)
		die("listen");
	if ((r = relay_start(&link, &sin, -1, &err)) == NULL) {
		fprintf(stderr, "relay-probe: %s\n", err.msg);
		return 2;
	}
	if (pthread_create(&thr, NULL, peer_main, &p) != 0)
		die("pthread_create");
	printf("link %.3f Mbit/s, rtt %.3f ms, queue %" PRIu64 " bytes\n",
	    link.rate / 1e6, link.rtt_us / 1e3, relay_qcap(r));

	/* 1. Round trips. */
	fd = dial(relay_port(r));
	best = UINT64_MAX;
	for (i = 0; i < ROUNDS; i++) {
		t0 = relay_now_ns();
		writeall(fd, &c, 1);
		if (read(fd, &c, 1) != 1)
			die("echo reply");
		t1 = relay_now_ns();
		if (t1 - t0 < best)
			best = t1 - t0;
	}
	close(fd);
	i = best >= link.rtt_us * 1000;
	printf("round trip: min %.3f ms over %d, configured %.3f ms: %s\n",
	    best / 1e6, ROUNDS, link.rtt_us / 1e3,
	    i ? "ok" : "FAIL (shorter than the rtt)");
	bad += !i;

	/* 2. Client to peer, with a small send buffer for 5. */
	fd = dial(relay_port(r));
	len = sizeof(sndbuf);
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf,
	    sizeof(sndbuf)) == -1 ||
	    getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len) == -1)
		die("SO_SNDBUF");
	t0 = relay_now_ns();
	source(fd, p.bytes, link.rate, &ahead);
	c = 0;
	if (read(fd, &c, 1) != 0)	/* the peer closes after its sink */
		die("sink close");
	close(fd);
	if (p.got != p.bytes) {
		printf("up: peer got %" PRIu64 " of %" PRIu64 " bytes: FAIL\n",
		    p.got, p.bytes);
		bad++;
	} else
		bad += check_time("up", t0, p.last_ns, p.bytes, &link);

	/*
	 * 5. Held ahead of the link: the queue, the client's send buffer
	 * (in flight and unsent), a chunk being written and one write.
	 */
	most = (double)relay_qcap(r) + sndbuf + link.rate / 8000.0 + 16384;
	i = ahead <= most;
	printf("backlog: at most %.0f bytes ahead of the link, queue %"
	    PRIu64 ", allowed %.0f: %s\n", ahead, relay_qcap(r), most,
	    i ? "ok" : "FAIL (the relay holds more than its queue)");
	bad += !i;

	/* 3. Peer to client; the peer starts once it is connected. */
	t0 = relay_now_ns();
	fd = dial(relay_port(r));
	sink(fd, &last, &got);
	close(fd);
	if (got != p.bytes) {
		printf("down: got %" PRIu64 " of %" PRIu64 " bytes: FAIL\n",
		    got, p.bytes);
		bad++;
	} else
		bad += check_time("down", t0, last, got, &link);
	pthread_join(thr, NULL);

	relay_stats(r, &st, 0);
	printf("relay counted up %" PRIu64 " down %" PRIu64 " bytes, "
	    "%u connections; busy rate down %.3f Mbit/s\n",
	    st.up.bytes, st.down.bytes, st.conns,
	    st.down.busy_ns ? st.down.bytes * 8.0 / (st.down.busy_ns / 1e9) /
	    1e6 : 0.0);
	if (st.up.bytes != p.bytes + ROUNDS || st.down.bytes != p.bytes +
	    ROUNDS || st.conns != 3) {
		printf("relay counters: FAIL (expected %" PRIu64
		    " each way, 3 connections)\n", p.bytes + ROUNDS);
		bad++;
	}
	relay_stop(r);
	close(p.lfd);
	printf("%s\n", bad ? "FAIL" : "ok");
	return bad ? 1 : 0;
}
