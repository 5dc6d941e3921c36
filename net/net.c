/*
 * net.c: the client side of the pull path (net.h) on top of conn/proto.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <netinet/tcp.h>

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "cksum.h"
#include "compat.h"
#include "conn.h"
#include "encode.h"
#include "log.h"
#include "net.h"
#include "proto.h"
#include "tls.h"
#include "xmalloc.h"
#include "zauto.h"
#include "zlevel.h"

#define NET_TIMEOUT	60000	/* every reply, every transfer step */
#define NET_SNDBUF	(1024 * 1024)	/* socket send buffer asked for */
#define NET_CONNWAIT	30000	/* one connect attempt */
#define NET_GREETWAIT	30000	/* the greeting, once connected */
#define NET_ABORTWAIT	10000	/* net_abort: for the server to close */
#define NET_ABORTREAD	(1024 * 1024)	/* ... reading at most this */
#define NET_MAXLINE	PROTO_REPLY_MAXBYTES	/* no reply line is longer */

struct net {
	struct conn	*c;
	char		 addr[NI_MAXHOST];	/* the address that answered */
	char		 port[16];		/* ... and its port */
	char		*server;		/* "host:port" as named */
	struct tlsctx	*tls;
	uint64_t	 caps;
	struct zlevel	 zl;		/* compression agreed, zeroed: none */
	uint64_t	 st_stored;	/* uploads sent as stored blocks */
	uint64_t	 st_storedbytes;
	int		 dead;		/* unusable after a session error */
	int		 inbody;	/* inside a RETR body */
	int		 rcode;		/* ... begun with this reply code */
	int64_t		 left;		/* bytes of it still unread */
	int		 wdead;		/* a send failed: no more requests */
	int		 inup;		/* inside a STOR body */
	int		 upfirst;	/* no byte of it sent yet */
	int		 uppinned;	/* it goes as stored blocks */
	int		 upjudge;	/* -Z auto: judge each upload */
	int64_t		 upleft;	/* bytes of it still to send */
	size_t		 uppending;	/* uploads awaiting their replies */
	/* Sorting received bodies (-v): the first bytes of each. */
	int		 classify;
	int64_t		 bsize;		/* size of the body being read */
	size_t		 samplen;
	unsigned char	 sample[ZAUTO_SAMPLE];
	uint64_t	 recv_files[2], recv_bytes[2];
	int		 quit;		/* QUIT done: quitrc, quiterr */
	int		 quitrc;
	struct cerr	 quiterr;
	struct zstdconn_dict *zdict;	/* the stream's dictionary, or NULL */
};

/* Connect to one address with a deadline.  Returns fd or -1 (errno). */
static int
net_connect1(const struct addrinfo *ai)
{
	struct pollfd	 pfd;
	socklen_t	 len;
	int		 fd, fl, r, e;

	fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
	    ai->ai_protocol);
	if (fd == -1)
		return -1;
	fl = fcntl(fd, F_GETFL);
	(void)fcntl(fd, F_SETFL, fl | O_NONBLOCK);
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0)
		return fd;
	if (errno != EINPROGRESS)
		goto fail;
	pfd.fd = fd;
	pfd.events = POLLOUT;
	do
		r = poll(&pfd, 1, NET_CONNWAIT);
	while (r == -1 && errno == EINTR);
	if (r == 0) {
		errno = ETIMEDOUT;
		goto fail;
	}
	if (r == -1)
		goto fail;
	len = sizeof(e);
	if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &e, &len) == -1)
		goto fail;
	if (e != 0) {
		errno = e;
		goto fail;
	}
	return fd;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

/*
 * The codec to ask for: zstd when -Z asks for it, or -Z auto of a server
 * with an automatic level, and the banner offers it (docs/protocol.md
 * section 9.2); else zlib, exactly as with a Radmind server.  *zauto:
 * whether the automatic level is wanted (-Z auto, or -Z zstd of a
 * server without zstd).  -1 when nothing is offered to ask for.
 */
static int
net_codec(const struct net *n, const struct netopts *o, int *zauto)
{
	const char	*host = conn_peer(n->c);

	*zauto = o->zauto;
	if (o->zcodec == ZLEVEL_ZSTD) {
		if (n->caps & PROTO_CAP_ZSTD)
			return ZLEVEL_ZSTD;
		*zauto = 1;
		if (o->verbose > 0 && (n->caps & PROTO_CAP_ZLIB))
			log_info("%s offers no zstd: zlib", host);
	} else if (o->zauto && (n->caps & PROTO_CAP_ZSTD) &&
	    (n->caps & PROTO_CAP_ZAUTO))
		return ZLEVEL_ZSTD;
	if (n->caps & PROTO_CAP_ZLIB)
		return ZLEVEL_ZLIB;
	if (!*zauto || o->zcodec == ZLEVEL_ZSTD)
		log_warnx("compression capability mismatch, compression "
		    "disabled");
	else if (o->verbose > 0)
		log_info("%s offers no %s: compression level 0", host,
		    (n->caps & PROTO_CAP_ZSTD) ? "automatic level" :
		    "compression");
	return -1;
}

/*
 * The reply to COMP <codec> AUTO, "Ready to start <CODEC> compression
 * level <cap> auto": the codec the server chose (one it offers) and the
 * cap, into zl; -1 if the reply is not one.
 */
static int
net_comp_auto(const struct net *n, const char *text, struct zlevel *zl)
{
	const char	*p;
	char		 name[16];
	size_t		 len;
	long		 cap;
	int		 c;

	if ((p = strstr(text, "start ")) == NULL)
		return -1;
	p += 6;
	len = strcspn(p, " ");
	if (len == 0 || len >= sizeof(name))
		return -1;
	memcpy(name, p, len);
	name[len] = '\0';
	if ((c = zlevel_codec(name)) == -1 || !zlevel_built(c) ||
	    !(n->caps & (c == ZLEVEL_ZSTD ? PROTO_CAP_ZSTD : PROTO_CAP_ZLIB)))
		return -1;
	if ((p = strstr(p, "level ")) == NULL)
		return -1;
	cap = strtol(p + 6, NULL, 10);
	zl->codec = c;
	return zlevel_cap(zl, cap);
}

/*
 * COMP (docs/protocol.md section 9).  -Z zstd[:level] asks "COMP ZSTD
 * <level>" of a server that offers zstd; -Z auto asks "COMP ZSTD AUTO"
 * of a server that offers zstd and lists ZAUTO (the server chooses the
 * codec and names it), "COMP ZLIB AUTO" of one that lists ZAUTO alone,
 * and then lets the automatic level pick its own output level too,
 * within the cap the server names; any other server gets the codec's
 * fixed fallback level (zlevel.h).
 */
static int
net_comp(struct net *n, const struct netopts *o, struct cerr *err)
{
	const char	*host = conn_peer(n->c);
	const char	*codec;
	struct zlevel	 zl;
	char		*text;
	int		 code, c, zauto;

	if ((c = net_codec(n, o, &zauto)) == -1)
		return 0;
	codec = zlevel_name(c);
	if (c == ZLEVEL_ZSTD)
		zlevel_ask(c, zauto ? 0 : o->zlevel, zauto,
		    (n->caps & PROTO_CAP_ZAUTO) != 0, &zl);
	else {
		zlevel_ask(c, o->zcodec == ZLEVEL_ZLIB ? o->zlevel : 0, zauto,
		    (n->caps & PROTO_CAP_ZAUTO) != 0, &zl);
		if (zauto && !zl.zauto && o->verbose > 0)
			log_info("%s offers no automatic level: compression "
			    "level %d", host, zl.level);
	}
	if ((zl.zauto ? conn_printf(n->c, err, "COMP %s AUTO\r\n", codec) :
	    conn_printf(n->c, err, "COMP %s %d\r\n", codec, zl.level)) == -1 ||
	    proto_reply(n->c, &code, &text, err) == -1)
		return -1;
	if (code / 100 != 3) {
		cerr_set(err, "%s: COMP: %s", host, text);
		return -1;
	}
	if (zl.zauto && net_comp_auto(n, text, &zl) == -1) {
		cerr_set(err, "%s: COMP: %s", host, text);
		return -1;
	}
	if (zlevel_start(n->c, &zl, 0, err) == -1 ||
	    proto_reply(n->c, &code, &text, err) == -1)
		return -1;
	if (code / 100 != 2) {
		cerr_set(err, "%s: COMP: %s", host, text);
		return -1;
	}
	/*
	 * A client that writes what it receives (lapply) inflates on a
	 * thread of the session meanwhile, where there is no TLS.
	 */
	if (o->readahead && conn_readahead(n->c, err) == -1)
		return -1;
	n->zl = zl;
	n->upjudge = zl.zauto;
	if (zl.zauto && o->verbose > 0)
		log_info("%s: %s compression level auto, 0 to %d", host,
		    zlevel_label(zl.codec), zl.level);
	else if (c == ZLEVEL_ZSTD && o->verbose > 0)
		log_info("%s: zstd compression level %d", host, zl.level);
	return 0;
}

/* The servers net_open tries, and what became of those that failed. */
struct net_try {
	const struct netopts	*o;
	struct tlsctx		*tls;
	int			 nfail;
	struct cerr		 last;		/* the last failure */
	char			 all[sizeof(((struct cerr *)0)->msg)];
};

/* An attempt failed in a way that lets the next server be tried. */
static void
net_failed(struct net_try *t, const char *why)
{
	size_t	 len = strlen(t->all);

	if (t->nfail++ > 0 && len + 2 < sizeof(t->all)) {
		memcpy(t->all + len, "; ", 3);
		len += 2;
	}
	(void)strlcpy(t->all + len, why, sizeof(t->all) - len);
	(void)strlcpy(t->last.msg, why, sizeof(t->last.msg));
}

/* "name[address]:port", or "address:port" when name is the address. */
static void
net_label(char *dst, size_t len, const char *name,
    const struct addrinfo *ai, int port)
{
	char	 addr[NI_MAXHOST];

	if (getnameinfo(ai->ai_addr, ai->ai_addrlen, addr, sizeof(addr),
	    NULL, 0, NI_NUMERICHOST) != 0)
		(void)strlcpy(addr, "?", sizeof(addr));
	if (strcmp(name, addr) != 0)
		snprintf(dst, len, "%s[%s]:%d", name, addr, port);
	else if (ai->ai_family == AF_INET6)
		snprintf(dst, len, "[%s]:%d", addr, port);
	else
		snprintf(dst, len, "%s:%d", addr, port);
}

/*
 * One attempt: connect to ai (its port set), read the greeting within
 * NET_GREETWAIT, then STARTTLS and COMP as configured.  Returns the
 * session, or NULL: with *stop clear when the next server may be tried
 * (connection refused or timed out, no RAP greeting, a busy or
 * unavailable server: 4xx), else with the reason in err.  The session
 * owns t->tls once returned.
 */
static struct net *
net_attempt(struct net_try *t, const char *name, const struct addrinfo *ai,
    int port, int *stop, struct cerr *err)
{
	const struct netopts	*o = t->o;
	struct net		*n;
	struct cerr		 why;
	char			 label[NI_MAXHOST + 256], *text;
	int			 fd, r, one = 1, code, sndbuf = NET_SNDBUF;

	*stop = 0;
	net_label(label, sizeof(label), name, ai, port);
	if (o->verbose > 0) {
		if (t->nfail > 0)
			log_info("%s: trying %s", t->last.msg, label);
		else
			log_info("trying %s", label);
	}
	if ((fd = net_connect1(ai)) == -1) {
		cerr_errno(&why, "%s: connect", label);
		net_failed(t, why.msg);
		return NULL;
	}
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	/*
	 * Room for a window of pipelined requests (apply-retr.c) whatever
	 * the kernel's autotuning starts from (the kernel caps it at
	 * net.core.wmem_max, 208 KB by default, and doubles it).
	 */
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf));
	n = xcalloc(1, sizeof(*n));
	/* Named by its address until it proves to be a RAP server. */
	n->c = conn_new(fd, label);
	conn_set_timeout(n->c, NET_GREETWAIT);
	conn_set_maxline(n->c, NET_MAXLINE);
	/* -v: the protocol lines, through the log; bodies sorted. */
	if (o->verbose > 0)
		conn_set_trace(n->c, proto_trace, NULL);
	n->classify = o->verbose > 0;
	if ((r = proto_banner(n->c, &n->caps, &why)) != 0) {
		conn_free(n->c);
		free(n);
		if (r == -1 || r / 100 == 4) {
			net_failed(t, why.msg);
			return NULL;
		}
		/* Refused for good (500 No access): no other will do. */
		cerr_set(err, "%s", why.msg);
		*stop = 1;
		return NULL;
	}
	/*
	 * Past the greeting nothing fails over: a refused STARTTLS or a
	 * certificate that does not verify is for an administrator to see,
	 * not to be routed around.
	 */
	*stop = 1;
	conn_set_peer(n->c, name);
	conn_set_timeout(n->c, NET_TIMEOUT);
	n->tls = t->tls;
	if (n->tls != NULL) {
		/* Configured for TLS: no way on without it. */
		if (conn_printf(n->c, err, "STARTTLS\r\n") == -1 ||
		    proto_reply(n->c, &code, &text, err) == -1)
			goto fail;
		if (code / 100 != 2) {
			cerr_set(err, "%s: STARTTLS refused: %s (TLS is "
			    "required at -w %d: not continuing in clear)",
			    name, text, o->tls);
			goto fail;
		}
		if (conn_starttls(n->c, n->tls, name, err) == -1)
			goto fail;
	}
	if ((o->zlevel > 0 || o->zauto) && net_comp(n, o, err) == -1)
		goto fail;
	if (getnameinfo(ai->ai_addr, ai->ai_addrlen, n->addr,
	    sizeof(n->addr), NULL, 0, NI_NUMERICHOST) != 0)
		n->addr[0] = '\0';
	snprintf(n->port, sizeof(n->port), "%d", port);
	xasprintf(&n->server, "%s:%d", name, port);
	*stop = 0;
	return n;
fail:
	conn_free(n->c);
	free(n);
	return NULL;
}

/*
 * The port of address ai, after setting it to port (-1: as it is).
 * Returns -1 for an address of another family than IPv4 or IPv6.
 */
static int
net_port(const struct addrinfo *ai, int port)
{
	struct sockaddr_in	*sin;
	struct sockaddr_in6	*sin6;

	if (ai->ai_family == AF_INET) {
		sin = (struct sockaddr_in *)(void *)ai->ai_addr;
		if (port != -1)
			sin->sin_port = htons((uint16_t)port);
		return ntohs(sin->sin_port);
	}
	if (ai->ai_family == AF_INET6) {
		sin6 = (struct sockaddr_in6 *)(void *)ai->ai_addr;
		if (port != -1)
			sin6->sin6_port = htons((uint16_t)port);
		return ntohs(sin6->sin6_port);
	}
	return -1;
}

/* The ports to try: -p, else the service's and then the legacy one. */
static int
net_ports(const struct netopts *o, char ports[2][16])
{
	struct servent	*se;

	if (o->port != NULL) {
		(void)strlcpy(ports[0], o->port, sizeof(ports[0]));
		return 1;
	}
	if ((se = getservbyname(PROTO_SERVICE, "tcp")) != NULL)
		snprintf(ports[0], sizeof(ports[0]), "%d",
		    ntohs((uint16_t)se->s_port));
	else
		snprintf(ports[0], sizeof(ports[0]), "%d", PROTO_PORT);
	snprintf(ports[1], sizeof(ports[1]), "%d", PROTO_LEGACY_PORT);
	return 2;
}

/*
 * Every address of name (getaddrinfo's order), each on every port;
 * when no port was given, each address is also tried on the legacy
 * port (docs/protocol.md section 1).  addr: connect only there.
 */
static struct net *
net_try_name(struct net_try *t, const char *name, const char *addr,
    int *stop, struct cerr *err)
{
	struct addrinfo	 hints, *res, *ai;
	struct net	*n;
	struct cerr	 why;
	char		 ports[2][16];
	int		 r, i, np, port;

	np = net_ports(t->o, ports);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	if (addr != NULL)
		hints.ai_flags = AI_NUMERICHOST;
	if ((r = getaddrinfo(addr != NULL ? addr : name, ports[0], &hints,
	    &res)) != 0) {
		if (r == EAI_SERVICE) {
			cerr_set(err, "port %s: %s", ports[0],
			    gai_strerror(r));
			*stop = 1;
			return NULL;
		}
		cerr_set(&why, "%s: %s", name, gai_strerror(r));
		net_failed(t, why.msg);
		return NULL;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		if ((port = net_port(ai, -1)) == -1)
			continue;
		for (i = 0; i < np; i++) {
			/* Then the same address on the legacy port. */
			if (i == 1)
				port = net_port(ai, PROTO_LEGACY_PORT);
			n = net_attempt(t, name, ai, port, stop, err);
			if (n != NULL || *stop) {
				freeaddrinfo(res);
				return n;
			}
		}
	}
	freeaddrinfo(res);
	return NULL;
}

struct net *
net_open(const struct netopts *o, struct cerr *err)
{
	struct net_try	 t;
	struct net	*n = NULL;
	struct tlsconf	 tc;
	struct cerr	 terr;
	const char	*hosts = o->host != NULL ? o->host : "radmind";
	char		*list, *name, *last;
	int		 stop = 0;

	if (o->tls < 0 || o->tls > 2) {
		cerr_set(err, "%d: invalid authorization level", o->tls);
		return NULL;
	}
	if (zlevel_check(o->zcodec, o->zlevel, err) == -1)
		return NULL;
	memset(&t, 0, sizeof(t));
	t.o = o;
	if (o->tls > 0) {
		/* Certificates and keys first: their errors are local. */
		memset(&tc, 0, sizeof(tc));
		tc.level = o->tls;
		tc.cafile = o->cafile;
		tc.cadir = o->cadir;
		tc.cert = o->cert;
		tc.key = o->key;
		if ((t.tls = tlsctx_client(&tc, &terr)) == NULL) {
			cerr_set(err, "-w %d: %s", o->tls, terr.msg);
			return NULL;
		}
	}
	/* The servers in order, each name with all its addresses. */
	list = xstrdup(hosts);
	for (name = strtok_r(list, ",", &last); name != NULL && n == NULL &&
	    !stop; name = strtok_r(NULL, ",", &last))
		n = net_try_name(&t, name, o->addr, &stop, err);
	free(list);
	if (n != NULL)
		return n;
	tlsctx_free(t.tls);
	if (!stop) {
		if (t.nfail == 1)
			cerr_set(err, "%s", t.all);
		else
			cerr_set(err, "no server answered: %s", t.all);
	}
	return NULL;
}

void
net_pin(const struct net *n, struct netopts *o)
{
	o->host = conn_peer(n->c);
	o->addr = n->addr[0] != '\0' ? n->addr : NULL;
	o->port = n->port;
}

/* Send QUIT (if still usable) and read its reply, once. */
static int
net_quit(struct net *n)
{
	char	*text;
	int	 code;

	if (n->quit)
		return n->quitrc;
	n->quit = 1;
	if (!n->dead && !n->wdead && !n->inup) {
		if (conn_printf(n->c, &n->quiterr, "QUIT\r\n") == -1 ||
		    proto_reply(n->c, &code, &text, &n->quiterr) == -1)
			n->quitrc = -1;
		else if (code / 100 != 2) {
			cerr_set(&n->quiterr, "%s: QUIT: %s", conn_peer(n->c),
			    text);
			n->quitrc = -1;
		}
	}
	return n->quitrc;
}

int
net_close(struct net *n, struct cerr *err)
{
	int	 rc;

	if (n == NULL)
		return 0;
	if ((rc = net_quit(n)) == -1)
		cerr_set(err, "%s", n->quiterr.msg);
	conn_free(n->c);
	zstdconn_dict_free(n->zdict);
	tlsctx_free(n->tls);
	free(n->server);
	free(n);
	return rc;
}

void
net_stats(const struct net *n, struct netstats *st)
{
	struct connstats	 cs;

	conn_stats(n->c, &cs);
	st->raw_out = cs.raw_out;
	st->wire_out = cs.wire_out;
	st->raw_in = cs.raw_in;
	st->wire_in = cs.wire_in;
	st->level = n->zl.level;
	st->zauto = n->zl.zauto;
	memcpy(st->lvl_raw, cs.lvl_raw, sizeof(st->lvl_raw));
	st->stored_files = n->st_stored;
	st->stored_bytes = n->st_storedbytes;
	memcpy(st->recv_files, n->recv_files, sizeof(st->recv_files));
	memcpy(st->recv_bytes, n->recv_bytes, sizeof(st->recv_bytes));
}

void
net_print_stats(struct net *n, FILE *fp)
{
	struct netstats	 ns;
	uint64_t	 raw, wire;
	int		 l;

	(void)net_quit(n);
	net_stats(n, &ns);
	if (ns.level > 0)
		fprintf(fp, "%s stats +++ In: %llu:%llu (%.3f:1) "
		    "+++ Out: %llu:%llu (%.3f:1)\n", zlevel_label(n->zl.codec),
		    (unsigned long long)ns.raw_in,
		    (unsigned long long)ns.wire_in,
		    ns.wire_in ? (double)ns.raw_in / (double)ns.wire_in : 0.0,
		    (unsigned long long)ns.raw_out,
		    (unsigned long long)ns.wire_out,
		    ns.wire_out ? (double)ns.raw_out / (double)ns.wire_out :
		    0.0);
	raw = ns.raw_in + ns.raw_out;
	wire = ns.wire_in + ns.wire_out;
	fprintf(fp, "bytes: received %llu (%llu on the wire), sent %llu "
	    "(%llu on the wire), %s level %s%d, saved %.1f%%\n",
	    (unsigned long long)ns.raw_in, (unsigned long long)ns.wire_in,
	    (unsigned long long)ns.raw_out, (unsigned long long)ns.wire_out,
	    zlevel_label(n->zl.codec), ns.zauto ? "auto up to " : "", ns.level, raw > 0 && wire < raw ?
	    100.0 * (double)(raw - wire) / (double)raw : 0.0);
	if (ns.level > 0 && ns.raw_out > 0) {
		/* What we sent, by the level it was deflated at. */
		fprintf(fp, "bytes sent by level:");
		for (l = 0; (size_t)l < sizeof(ns.lvl_raw) /
		    sizeof(ns.lvl_raw[0]); l++)
			if (ns.lvl_raw[l] > 0)
				fprintf(fp, " %d:%llu", l,
				    (unsigned long long)ns.lvl_raw[l]);
		fprintf(fp, " (0: stored)\n");
		if (ns.stored_files > 0)
			fprintf(fp, "files sent stored (incompressible): "
			    "%llu, %llu bytes\n",
			    (unsigned long long)ns.stored_files,
			    (unsigned long long)ns.stored_bytes);
	}
	if (ns.recv_files[0] + ns.recv_files[1] > 0)
		fprintf(fp, "files received: %llu compressible (%llu bytes), "
		    "%llu incompressible (%llu bytes)\n",
		    (unsigned long long)ns.recv_files[0],
		    (unsigned long long)ns.recv_bytes[0],
		    (unsigned long long)ns.recv_files[1],
		    (unsigned long long)ns.recv_bytes[1]);
}

int
net_has_cap(const struct net *n, const char *cap)
{
	if (proto_cap_match(cap, "ZLIB"))
		return (n->caps & PROTO_CAP_ZLIB) != 0;
	if (proto_cap_match(cap, "REPO"))
		return (n->caps & PROTO_CAP_REPO) != 0;
	if (strcasecmp(cap, "DELTA") == 0)
		return (n->caps & PROTO_CAP_DELTA) != 0;
	if (strcasecmp(cap, "MANIFEST") == 0)
		return (n->caps & PROTO_CAP_MANIFEST) != 0;
	return 0;
}

int64_t
net_zdict_size(const struct net *n)
{
	if (!(n->caps & PROTO_CAP_ZDICT) || n->zl.codec != ZLEVEL_ZSTD ||
	    !zstdconn_on(n->c) || n->zdict != NULL)
		return 0;
	return (int64_t)PROTO_CAP_ZDICTKB(n->caps) * 1024;
}

unsigned
net_zdict_id(const struct net *n)
{
	return n->zdict != NULL ? zstdconn_dict_id(n->zdict) : 0;
}

int
net_use_zdict(struct net *n, const void *p, size_t len, struct cerr *err)
{
	struct zstdconn_dict	*d;
	struct cerr		 derr;

	if ((d = zstdconn_dict_new(p, len, &derr)) == NULL) {
		cerr_set(err, "%s: %s", conn_peer(n->c), derr.msg);
		return -1;
	}
	if (zstdconn_use_dict(n->c, d, 0, err) == -1) {
		zstdconn_dict_free(d);
		return -1;
	}
	n->zdict = d;
	return 0;
}

const char *
net_peer(const struct net *n)
{
	return conn_peer(n->c);
}

const char *
net_server(const struct net *n)
{
	return n->server;
}

static int
net_usable(struct net *n, struct cerr *err)
{
	if (n->dead) {
		cerr_set(err, "%s: connection unusable after an earlier error",
		    conn_peer(n->c));
		return -1;
	}
	return 0;
}

unsigned
net_zdict_offer(const struct net *n)
{
	return net_zdict_size(n) > 0 ? PROTO_CAP_ZDICTID(n->caps) : 0;
}

int
net_zdict_reuse(struct net *n, unsigned id, const void *p, size_t len,
    struct cerr *err)
{
	char	 sum[CKSUM_B64MAX], *text;
	int	 code;

	if (net_usable(n, err) == -1)
		return -1;
	if (cksum_data("sha256", p, len, sum) == -1) {
		cerr_set(err, "%s: ZDICT: no SHA-256 here", conn_peer(n->c));
		return 1;
	}
	if (conn_printf(n->c, err, "ZDICT %u %s\r\n", id, sum) == -1 ||
	    proto_reply(n->c, &code, &text, err) == -1) {
		n->dead = 1;
		return -1;
	}
	if (code != RAP_ZDICT_OK) {
		cerr_set(err, "%s: ZDICT: %s", conn_peer(n->c), text);
		/* Closing (421): no request more, RETR ZDICT neither. */
		if (code == RAP_UNAVAILABLE) {
			n->dead = 1;
			return -1;
		}
		return 1;
	}
	/* Taken: the server's next frames are made with it. */
	if (net_use_zdict(n, p, len, err) == -1) {
		n->dead = 1;
		return -1;
	}
	return 0;
}

/* A token we put on a request line must be non-empty and unbroken. */
static int
net_token_ok(struct net *n, const char *t, struct cerr *err)
{
	if (t[0] == '\0' || strpbrk(t, " \t\r\n") != NULL) {
		cerr_set(err, "%s: cannot send \"%s\": not one token",
		    conn_peer(n->c), t);
		return 0;
	}
	return 1;
}

/* Radmind clients end STAT and RETR lines with a bare LF. */
static int
net_send_req(struct net *n, const char *verb, const char *kind,
    const char *a, const char *b, struct cerr *err)
{
	int	 r;

	if (net_usable(n, err) == -1)
		return -1;
	if ((a != NULL && !net_token_ok(n, a, err)) ||
	    (b != NULL && !net_token_ok(n, b, err)))
		return -1;
	if (a != NULL && b != NULL)
		r = conn_printf(n->c, err, "%s %s %s %s\n", verb, kind, a, b);
	else if (a != NULL)
		r = conn_printf(n->c, err, "%s %s %s\n", verb, kind, a);
	else
		r = conn_printf(n->c, err, "%s %s\n", verb, kind);
	if (r == -1)
		n->dead = 1;
	return r;
}

int
net_send_stat(struct net *n, const char *kind, const char *name,
    struct cerr *err)
{
	return net_send_req(n, "STAT", kind, name, NULL, err);
}

/*
 * The reply to the oldest request, and the one line that follows a
 * success (STAT's data, RETR's size): 0 with *code and *line, 1 for a
 * refusal (err holds its text; a 4xx one ends the session), -1 with the
 * session dead.
 */
static int
net_reply_line(struct net *n, int *code, char **line, struct cerr *err)
{
	struct proto_budget	 b;
	char			*text;

	proto_budget_init(n->c, &b);
	if (proto_reply_in(n->c, &b, code, &text, err) == -1)
		goto dead;
	if (*code / 100 != 2) {
		cerr_set(err, "%s", text);
		if (*code / 100 == 4)
			n->dead = 1;
		return 1;
	}
	if (proto_line(n->c, &b, line, err) == -1)
		goto dead;
	return 0;
dead:
	n->dead = 1;
	return -1;
}

int
net_stat_reply(struct net *n, char **line, struct cerr *err)
{
	int	code;

	if (net_usable(n, err) == -1)
		return -1;
	return net_reply_line(n, &code, line, err);
}

int
net_stat(struct net *n, const char *kind, const char *name,
    const char *label, int64_t max, struct net_stat *st, struct cerr *err)
{
	char	*line, copy[8192], *av[9], q[1024];
	int	 r;

	if (net_send_stat(n, kind, name, err) == -1)
		return -1;
	if ((r = net_stat_reply(n, &line, err)) != 0)
		return r;
	if (strlcpy(copy, line, sizeof(copy)) >= sizeof(copy) ||
	    proto_split(copy, av, 9) != 8 ||
	    proto_parse_size(av[5], &st->mtime) == -1 ||
	    proto_parse_size(av[6], &st->size) == -1 ||
	    strlcpy(st->cksum, av[7], sizeof(st->cksum)) >=
	    sizeof(st->cksum)) {
		proto_quote(q, sizeof(q), line, 200);
		cerr_set(err, "%s: bad STAT reply \"%s\"", net_peer(n), q);
		return -1;
	}
	if (label == NULL)
		label = name != NULL ? name : "";
	if (st->size > max) {
		cerr_set(err, "%s: %s %s is %lld bytes, more than the %lld a "
		    "command file or transcript may have", net_peer(n), kind,
		    label, (long long)st->size, (long long)max);
		return -1;
	}
	return 0;
}

int
net_send_retr(struct net *n, const char *kind, const char *tname,
    const char *epath, struct cerr *err)
{
	if (tname != NULL && epath != NULL)
		return net_send_req(n, "RETR", kind, tname, epath, err);
	return net_send_req(n, "RETR", kind, tname != NULL ? tname : epath,
	    NULL, err);
}

int
net_send_delta(struct net *n, const char *alg, const char *basis,
    const char *tname, const char *epath, struct cerr *err)
{
	int	 r;

	if (net_usable(n, err) == -1)
		return -1;
	if (!net_token_ok(n, alg, err) || !net_token_ok(n, basis, err) ||
	    !net_token_ok(n, tname, err) || !net_token_ok(n, epath, err))
		return -1;
	if ((r = conn_printf(n->c, err, "DELTA %s %s FILE %s %s\n", alg,
	    basis, tname, epath)) == -1)
		n->dead = 1;
	return r;
}

int
net_retr_delta(const struct net *n)
{
	return n->inbody && n->rcode == RAP_DELTA_OK;
}

int
net_retr_begin(struct net *n, int64_t *size, struct cerr *err)
{
	char	*line, q[300];
	int	 code, r;

	if (net_usable(n, err) == -1)
		return -1;
	if (n->inbody) {
		cerr_set(err, "%s: previous file not finished",
		    conn_peer(n->c));
		goto dead;
	}
	if ((r = net_reply_line(n, &code, &line, err)) != 0)
		return r;
	if (proto_parse_size(line, size) == -1) {
		proto_quote(q, sizeof(q), line, 64);
		cerr_set(err, "%s: bad file size \"%s\"", conn_peer(n->c), q);
		goto dead;
	}
	n->inbody = 1;
	n->rcode = code;
	n->left = n->bsize = *size;
	n->samplen = 0;
	return 0;
dead:
	n->dead = 1;
	return -1;
}

ssize_t
net_retr_read(struct net *n, void *buf, size_t len, struct cerr *err)
{
	ssize_t	 r;

	if (net_usable(n, err) == -1)
		return -1;
	if (!n->inbody || n->left == 0)
		return 0;
	if ((int64_t)len > n->left)
		len = (size_t)n->left;
	if ((r = conn_read(n->c, buf, len, err)) == -1) {
		n->dead = 1;
		return -1;
	}
	n->left -= r;
	if (n->classify && n->samplen < ZAUTO_SAMPLE) {
		len = ZAUTO_SAMPLE - n->samplen;
		if (len > (size_t)r)
			len = (size_t)r;
		memcpy(n->sample + n->samplen, buf, len);
		n->samplen += len;
	}
	return r;
}

int
net_retr_end(struct net *n, struct cerr *err)
{
	struct proto_budget	 b;
	char			*line;
	int			 cls;

	if (net_usable(n, err) == -1)
		return -1;
	if (!n->inbody || n->left != 0) {
		cerr_set(err, "%s: file body not completely read",
		    conn_peer(n->c));
		goto dead;
	}
	n->inbody = 0;
	proto_budget_init(n->c, &b);
	if (proto_line(n->c, &b, &line, err) == -1)
		goto dead;
	if (strcmp(line, ".") != 0) {
		cerr_set(err, "%s: file not terminated by \".\"",
		    conn_peer(n->c));
		goto dead;
	}
	if (n->classify) {
		/* The judge the sender uses, on the bytes it would see. */
		cls = zauto_incompressible(n->sample, n->samplen) != 0;
		n->recv_files[cls]++;
		n->recv_bytes[cls] += (uint64_t)n->bsize;
	}
	return 0;
dead:
	n->dead = 1;
	return -1;
}

int
net_report(struct net *n, const char *event, const char *msg,
    struct cerr *err)
{
	char	*enc, *text;
	int	 code, r;

	if (net_usable(n, err) == -1)
		return -1;
	if (!net_token_ok(n, event, err))
		return -1;
	enc = encode_dup(msg);
	r = conn_printf(n->c, err, "REPO %s %s\r\n", event, enc);
	free(enc);
	if (r == -1 || proto_reply(n->c, &code, &text, err) == -1) {
		n->dead = 1;
		return -1;
	}
	if (code / 100 != 2) {
		cerr_set(err, "%s: REPO: %s", conn_peer(n->c), text);
		return -1;
	}
	return 0;
}

/* A send failed: requests are over, replies may still be read. */
static int
net_wfail(struct net *n)
{
	n->wdead = 1;
	return -1;
}

int
net_stor_begin(struct net *n, const char *kind, const char *tname,
    const char *epath, int64_t size, struct cerr *err)
{
	if (net_usable(n, err) == -1)
		return -1;
	if (n->wdead || n->inup) {
		cerr_set(err, "%s: %s", conn_peer(n->c), n->wdead ?
		    "connection lost while sending" :
		    "previous upload not finished");
		return -1;
	}
	if (size < 0 || !net_token_ok(n, tname, err) ||
	    (epath != NULL && !net_token_ok(n, epath, err)))
		return -1;
	if ((epath != NULL ? conn_printf(n->c, err, "STOR %s %s %s\r\n", kind,
	    tname, epath) : conn_printf(n->c, err, "STOR %s %s\r\n", kind,
	    tname)) == -1 ||
	    conn_printf(n->c, err, "%lld\r\n", (long long)size) == -1)
		return net_wfail(n);
	n->uppending++;
	n->inup = 1;
	n->upfirst = 1;
	n->upleft = size;
	return 0;
}

int
net_stor_data(struct net *n, const void *p, size_t len, struct cerr *err)
{
	if (!n->inup || (int64_t)len > n->upleft) {
		cerr_set(err, "%s: upload longer than announced",
		    conn_peer(n->c));
		return -1;
	}
	if (n->wdead) {
		cerr_set(err, "%s: connection lost while sending",
		    conn_peer(n->c));
		return -1;
	}
	/* -Z auto: a body that will not shrink goes as stored blocks. */
	if (n->upfirst && n->upjudge && zauto_incompressible(p, len)) {
		if (zlevel_pin_stored(n->c, &n->zl, err) == -1)
			return net_wfail(n);
		n->uppinned = 1;
		n->st_stored++;
		n->st_storedbytes += (uint64_t)n->upleft;
	}
	n->upfirst = 0;
	if (conn_write(n->c, p, len, err) == -1)
		return net_wfail(n);
	n->upleft -= (int64_t)len;
	return 0;
}

int
net_stor_end(struct net *n, struct cerr *err)
{
	if (!n->inup || n->upleft != 0) {
		cerr_set(err, "%s: upload shorter than announced",
		    conn_peer(n->c));
		return -1;
	}
	if (n->wdead) {
		cerr_set(err, "%s: connection lost while sending",
		    conn_peer(n->c));
		return -1;
	}
	n->inup = 0;
	if (n->uppinned) {
		n->uppinned = 0;
		if (zlevel_unpin(n->c, err) == -1)
			return net_wfail(n);
	}
	if (conn_printf(n->c, err, ".\r\n") == -1)
		return net_wfail(n);
	return 0;
}

int
net_stor_reply(struct net *n, struct cerr *err)
{
	char	*text;
	int	 code, i;

	if (net_usable(n, err) == -1)
		return -1;
	if (n->uppending == 0) {
		cerr_set(err, "%s: no upload awaits a reply", conn_peer(n->c));
		return -1;
	}
	for (i = 0; i < 2; i++) {
		if (proto_reply(n->c, &code, &text, err) == -1) {
			n->dead = 1;
			return -1;
		}
		if (code / 100 != (i == 0 ? 3 : 2)) {
			/* The server ends the session after a refusal. */
			cerr_set(err, "%s", text);
			n->dead = 1;
			n->uppending = 0;
			return 1;
		}
	}
	n->uppending--;
	return 0;
}

size_t
net_stor_pending(const struct net *n)
{
	return n->uppending;
}

int
net_broken(const struct net *n)
{
	return n->dead || n->wdead;
}

void
net_abort(struct net *n)
{
	char		 buf[4096];
	size_t		 left = NET_ABORTREAD;
	int64_t		 end, ms;
	ssize_t		 r;

	if (n == NULL)
		return;
	/*
	 * Send what is queued, end our side, and wait (bounded in time and
	 * bytes) for the server to close: by then it has dropped the
	 * unfinished upload.  Replies still due (a file asked for) are not
	 * worth their bytes: past NET_ABORTREAD, just close.
	 */
	end = conn_now() + NET_ABORTWAIT;
	conn_set_timeout(n->c, NET_ABORTWAIT);
	(void)conn_flush(n->c, NULL);
	(void)shutdown(conn_fd(n->c), SHUT_WR);
	while (left > 0) {
		if ((ms = end - conn_now()) <= 0)
			break;
		conn_set_timeout(n->c, (int)ms);
		if ((r = conn_read(n->c, buf, sizeof(buf), NULL)) <= 0)
			break;
		left -= (size_t)r < left ? (size_t)r : left;
	}
	conn_free(n->c);
	tlsctx_free(n->tls);
	free(n->server);
	free(n);
}
