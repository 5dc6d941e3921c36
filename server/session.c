/*
 * session.c: one client connection of cairnd (docs/protocol.md sections 3-5).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

#include "cerr.h"
#include "compat.h"
#include "conn.h"
#include "delta.h"
#include "dstore.h"
#include "encode.h"
#include "hostname.h"
#include "log.h"
#include "peer.h"
#include "proto.h"
#include "server.h"
#include "tls.h"
#include "version.h"
#include "xmalloc.h"
#include "linkmemo.h"
#include "zauto.h"
#include "zcache.h"
#include "zlevel.h"

#define SESS_MAXERRORS	10			/* then the server hangs up */
#define SESS_MAXARGS	16

struct verb {
	const char	*name;		/* full name */
	size_t		 min;		/* shortest accepted abbreviation */
	int		 flags;
	int		 (*check)(struct sess *, int, char **);
	int		 (*act)(struct sess *, int, char **);
};
#define V_AUTH		0x01	/* only in an authorized session */
#define V_TLS		0x02	/* only when the server has TLS (-w >= 1) */
#define V_DELTA		0x04	/* only when deltas are built in (zstd) */

static int	check_noargs(struct sess *, int, char **);
static int	cmd_quit(struct sess *, int, char **);
static int	cmd_noop(struct sess *, int, char **);
static int	cmd_help(struct sess *, int, char **);
static int	cmd_comp(struct sess *, int, char **);
static int	cmd_repo(struct sess *, int, char **);
static int	cmd_starttls(struct sess *, int, char **);

/*
 * The verbs.  STARTTLS exists only when the server has TLS (-w >= 1;
 * at -w 0 it is "unrecognized", docs/protocol.md 5.7).  LOGIN is absent: this
 * build has no PAM, so it is always "unrecognized" (5.10).  DELTA exists
 * only when deltas are built in (delta_built(): not --without-zstd), and
 * so does ZDICT, the zstd dictionary a client kept.
 */
static const struct verb verbs[] = {
	{ "QUIT",	4, 0, check_noargs, cmd_quit },
	{ "NOOP",	4, 0, check_noargs, cmd_noop },
	{ "HELP",	4, 0, check_noargs, cmd_help },
	{ "STATUS",	4, V_AUTH, NULL, cmd_stat },
	{ "RETRIEVE",	4, V_AUTH, NULL, cmd_retr },
	{ "STORE",	4, V_AUTH, NULL, cmd_stor },
	{ "STARTTLS",	4, V_TLS, check_noargs, cmd_starttls },
	{ "REPORT",	4, V_AUTH, NULL, cmd_repo },
	{ "COMPRESS",	4, V_AUTH, NULL, cmd_comp },
	{ "DELTA",	4, V_AUTH | V_DELTA, NULL, cmd_delta },
	{ "ZDICT",	5, V_AUTH | V_DELTA, NULL, cmd_zdict },
};

static int
check_noargs(struct sess *s, int ac, char **av)
{
	(void)av;
	if (ac == 1)
		return SESS_OK;
	s->errors++;
	peer_reply(s, RAP_SYNTAX, "Syntax error (no parameters allowed)");
	return 1;
}

static int
cmd_quit(struct sess *s, int ac, char **av)
{
	(void)ac;
	(void)av;
	/*
	 * An upload ends with QUIT: it is made durable and its marker
	 * cleared before the reply, so that a client that has the reply
	 * finds it complete (cairn-publish right after lcreate).
	 */
	s->status = 0;
	stor_finish(s);
	peer_reply(s, RAP_QUIT_OK, "QUIT OK, closing connection");
	s->close = 1;
	return SESS_OK;
}

static int
cmd_noop(struct sess *s, int ac, char **av)
{
	(void)ac;
	(void)av;
	return peer_reply(s, RAP_NOOP_OK, "NOOP OK");
}

static int
cmd_help(struct sess *s, int ac, char **av)
{
	(void)ac;
	(void)av;
	return peer_reply(s, RAP_HELP, "What is this, SMTP?");
}

/*
 * COMP ZLIB [level] (docs/protocol.md section 9), and [cairn] COMP ZSTD
 * [level] (section 9.2).
 */
static int
cmd_comp(struct sess *s, int ac, char **av)
{
	struct cerr	 err;
	struct zlevel	 zl;
	struct zauto_memo m, *memo;
	char		 type[64];
	int		 codec, whose;

	if (!zlevel_offered_any(&s->opts->zlimit))
		return peer_reply(s, RAP_SYNTAX, "Compression not enabled");
	if (ac != 2 && ac != 3) {
		s->errors++;
		return peer_reply(s, RAP_SYNTAX, "Syntax error");
	}
	if (zlevel_on(s->conn))
		return peer_reply(s, RAP_SYNTAX,
		    "Compression already enabled");
	if ((codec = zlevel_codec(av[1])) == -1) {
		peer_logsafe(type, sizeof(type), av[1]);
		return peer_reply(s, RAP_ZLIB_TYPE,
		    "%s: unknown compression type", type);
	}
	if (!zlevel_offered(&s->opts->zlimit, codec))
		return peer_reply(s, RAP_SYNTAX, "%s compression not enabled",
		    zlevel_name(codec));
	/*
	 * [cairn] "AUTO" leaves the level to us, and the codec too (the
	 * reply names the one granted): start at 0 and let what we measure
	 * decide, within 0 to the cap (zlevel.h).
	 */
	zlevel_grant(&s->opts->zlimit, codec, ac == 3 ? av[2] : NULL, &zl);
	/*
	 * Where the last session with this peer left off (linkmemo.h):
	 * the codec to grant, and the automatic level's start.
	 */
	whose = zl.zauto ? linkmemo_get(s->opts->links, s->ip, &m) : -1;
	memo = whose >= 0 ? &m : NULL;
	if (zl.zauto)
		zlevel_choose(&s->opts->zlimit, memo, &zl);
	codec = zl.codec;
	if (peer_reply(s, RAP_ZLIB_READY, "Ready to start %s compression "
	    "level %d%s", zlevel_name(codec), zl.level, zl.zauto ? " auto" :
	    "") == SESS_CLOSE)
		return SESS_CLOSE;
	if (zlevel_start(s->conn, &zl, SESS_ZRATIO, &err) == -1 ||
	    (memo != NULL && zlevel_recall(s->conn, memo, &err) == -1)) {
		log_warnx("%s", err.msg);
		s->close = 1;
		s->status = 1;
		return SESS_CLOSE;
	}
	s->zl = zl;
	if (zl.zauto && memo != NULL)
		peer_log(s, LOG_DEBUG, "%s level auto, 0 to %d, from level %d "
		    "(remembered%s: link %s %.1f MB/s)", zlevel_label(codec),
		    zl.level, zlevel_now(s->conn), whose == 1 ?
		    " for its network" : "", memo->linkknown ? "=" : ">",
		    memo->link / 1e6);
	else if (zl.zauto)
		peer_log(s, LOG_DEBUG, "%s level auto, 0 to %d, from level %d "
		    "(no link remembered)", zlevel_label(codec), zl.level,
		    zlevel_now(s->conn));
	else
		peer_log(s, LOG_DEBUG, "%s level %d", zlevel_label(codec),
		    zl.level);
	return peer_reply(s, RAP_ZLIB_ON, "%s compression level %d%s enabled",
	    zlevel_name(codec), zl.level, zl.zauto ? " auto" : "");
}

/* REPO <event> <encoded message>: one NOTICE line in the log. */
static int
cmd_repo(struct sess *s, int ac, char **av)
{
	char	*msg, event[128], safe[2048];

	if (ac != 3) {
		s->errors++;
		return peer_reply(s, RAP_SYNTAX,
		    "Syntax error (invalid parameters)");
	}
	if (decode_path(av[2], &msg) == -1) {
		s->errors++;
		return peer_reply(s, RAP_SYNTAX,
		    "Syntax error (invalid parameter)");
	}
	peer_logsafe(event, sizeof(event), av[1]);
	peer_logsafe(safe, sizeof(safe), msg);
	free(msg);
	log_notice("report %s %s %s - %s %s", s->host, s->ip,
	    s->cn != NULL ? s->cn : "-", event, safe);
	return peer_reply(s, RAP_REPO_OK, "Report successful");
}

/*
 * Refuse service and end the session; why (NULL: Radmind's words) says
 * the cause to the client, never with a server path.
 */
static int
sess_unavailable(struct sess *s, const char *why)
{
	peer_reply(s, RAP_UNAVAILABLE, "Service not available, %s",
	    why != NULL ? why : "closing transmission channel");
	s->status = 1;
	return SESS_CLOSE;
}

/*
 * The host matched config: load its command files and authorize the
 * session.  Returns SESS_OK, or SESS_CLOSE after refusing service.
 */
static int
sess_authorize(struct sess *s)
{
	struct cerr	 err;
	int		 r;

	if ((r = hostcfg_load(s, &err)) != 0) {
		peer_log(s, LOG_ERR, "%s", err.msg);
		return sess_unavailable(s, r == HOSTCFG_NOFILE ?
		    "no command file for this host" : NULL);
	}
	peer_log(s, LOG_DEBUG, "command file %s, special directory %s",
	    s->cmdfile, s->specialdir);
	s->state = SESS_AUTH;
	return SESS_OK;
}

/*
 * STARTTLS (docs/protocol.md 5.7): handshake, then match the host again, now
 * with the certificate's name at -w >= 2.
 */
static int
cmd_starttls(struct sess *s, int ac, char **av)
{
	struct cerr	 err;
	char		 desc[128], safe[256];
	int64_t		 left;
	int		 r;

	(void)ac;
	(void)av;
	if (conn_tls(s->conn) != NULL) {
		s->errors++;
		return peer_reply(s, RAP_SYNTAX, "TLS already started");
	}
	if (conn_pending(s->conn) > 0) {
		/* Anything behind STARTTLS came in clear: never obey it. */
		peer_log(s, LOG_NOTICE, "data in clear after STARTTLS");
		peer_reply(s, RAP_SYNTAX, "Data after STARTTLS, closing "
		    "connection");
		s->status = 1;
		return SESS_CLOSE;
	}
	if (peer_reply(s, RAP_TLS_READY, "Ready to start TLS") == SESS_CLOSE)
		return SESS_CLOSE;
	/* The handshake is part of the pre-authentication time (-G). */
	left = s->grace - conn_now();
	conn_set_timeout(s->conn, left <= 0 ? 0 : left > INT_MAX ? INT_MAX :
	    (int)left);
	r = conn_starttls(s->conn, s->opts->tlsctx, NULL, &err);
	conn_set_timeout(s->conn, s->opts->iowait);
	if (r == -1) {
		if (conn_now() >= s->grace)
			peer_log(s, LOG_NOTICE, "not authorized within %d s "
			    "(TLS handshake)", s->opts->grace / 1000);
		else
			log_notice("%s", err.msg);
		s->status = 1;
		return SESS_CLOSE;
	}
	if (s->opts->tls >= 2 &&
	    (s->cn = tls_peer_name(conn_tls(s->conn))) != NULL &&
	    !hostname_valid(s->cn, strlen(s->cn))) {
		/* Like a reverse name: a key in config, a path in special/. */
		peer_logsafe(safe, sizeof(safe), s->cn);
		peer_log(s, LOG_NOTICE, "certificate name \"%s\" is not a "
		    "host name, not used", safe);
		s->cn = NULL;
	}
	peer_log(s, LOG_INFO, "TLS started (%s), certificate name %s",
	    tls_describe(conn_tls(s->conn), desc, sizeof(desc)),
	    s->cn != NULL ? s->cn : "-");
	if ((r = hostcfg_match(s, &err)) == -1) {
		log_warnx("%s", err.msg);
		return sess_unavailable(s, NULL);
	}
	if (r == 0) {
		peer_log(s, LOG_NOTICE, "host not in config (certificate name "
		    "%s)", s->cn != NULL ? s->cn : "-");
		s->state = SESS_UNKNOWN;
		return SESS_OK;
	}
	return sess_authorize(s);
}

static const struct verb *
verb_find(const char *tok)
{
	size_t	 i;

	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (proto_verb_is(tok, verbs[i].name, verbs[i].min))
			return &verbs[i];
	return NULL;
}

/* Handle one request line.  Returns SESS_OK or SESS_CLOSE. */
static int
sess_dispatch(struct sess *s, char *line)
{
	const struct verb	*v;
	char			*av[SESS_MAXARGS], verb[129];
	int			 ac, r;

	ac = proto_split(line, av, SESS_MAXARGS);
	if (ac != 0 && s->opts->proxies != NULL &&
	    strcmp(av[0], "PROXY") == 0) {
		/* A header after the banner is never one to obey. */
		if (s->via != NULL)
			peer_log(s, LOG_NOTICE,
			    "refused: a second PROXY header");
		else
			peer_log(s, LOG_NOTICE, "refused: PROXY header from "
			    "an address not listed in -X");
		s->status = 1;
		return SESS_CLOSE;
	}
	v = ac == 0 ? NULL : verb_find(av[0]);
	/* Replies held for unsynced uploads come first. */
	if ((v == NULL || v->act != cmd_stor) && stor_sync(s) == SESS_CLOSE)
		return SESS_CLOSE;
	if (ac == 0) {
		s->errors++;
		return peer_reply(s, RAP_SYNTAX, "Illegal null command");
	}
	if (v == NULL ||
	    ((v->flags & V_DELTA) && !delta_built()) ||
	    ((v->flags & V_TLS) && s->opts->tls == 0) ||
	    ((v->flags & V_TLS) && s->state == SESS_UNKNOWN)) {
		s->errors++;
		/* Echo at most 128 bytes of the verb. */
		strlcpy(verb, av[0], sizeof(verb));
		return peer_reply(s, RAP_UNRECOGNIZED,
		    "Command %s unrecognized", verb);
	}
	if (ac == -1) {
		s->errors++;
		return peer_reply(s, RAP_SYNTAX,
		    "Syntax error (too many arguments)");
	}
	if ((v->flags & V_AUTH) && s->state == SESS_PRETLS) {
		peer_log(s, LOG_NOTICE, "%s before STARTTLS", v->name);
		peer_reply(s, RAP_NEED_TLS,
		    "Must issue a STARTTLS command first");
		s->status = 1;
		return SESS_CLOSE;
	}
	if ((v->flags & V_AUTH) && s->state == SESS_UNKNOWN) {
		peer_reply(s, RAP_UNRECOGNIZED, "No access for %s", s->host);
		s->status = 1;
		return SESS_CLOSE;
	}
	if (v->check != NULL && (r = v->check(s, ac, av)) != SESS_OK)
		return r == SESS_CLOSE ? SESS_CLOSE : SESS_OK;
	return v->act(s, ac, av);
}

/*
 * Forward confirmation: does name resolve back to the peer's address?
 * (sa is never v4-mapped here: sess_identify converts it first.)
 */
static int
sess_confirm(const char *name, const struct sockaddr *sa)
{
	struct addrinfo		 hints, *res, *ai;
	const struct sockaddr_in *a4, *b4;
	const struct sockaddr_in6 *a6, *b6;
	int			 ok = 0;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = sa->sa_family;
	hints.ai_socktype = SOCK_STREAM;
	if (getaddrinfo(name, NULL, &hints, &res) != 0)
		return 0;
	for (ai = res; ai != NULL && !ok; ai = ai->ai_next) {
		if (ai->ai_family != sa->sa_family)
			continue;
		if (sa->sa_family == AF_INET) {
			a4 = (const struct sockaddr_in *)(const void *)sa;
			b4 = (const struct sockaddr_in *)(void *)ai->ai_addr;
			ok = a4->sin_addr.s_addr == b4->sin_addr.s_addr;
		} else if (sa->sa_family == AF_INET6) {
			a6 = (const struct sockaddr_in6 *)(const void *)sa;
			b6 = (const struct sockaddr_in6 *)(void *)ai->ai_addr;
			ok = memcmp(&a6->sin6_addr, &b6->sin6_addr,
			    sizeof(a6->sin6_addr)) == 0;
		}
	}
	freeaddrinfo(res);
	return ok;
}

/*
 * The peer's name from the resolver (-H): under "confirm" (the default)
 * only a name that passes hostname_valid() and resolves back to the
 * address; under "reverse" any name that passes hostname_valid(), as
 * Radmind trusts its PTR record; under "off" none.  A name refused is
 * logged, and the address stands in for it.  Returns 1 with the name in
 * host (lower-cased), or 0.
 */
static int
sess_revname(const struct sess *s, const struct sockaddr *sa,
    socklen_t salen, char *host, size_t len)
{
	char	 safe[256], *p;

	if (s->opts->names == SESS_NAMES_OFF ||
	    getnameinfo(sa, salen, host, len, NULL, 0, NI_NAMEREQD) != 0)
		return 0;
	for (p = host; *p != '\0'; p++)
		*p = (char)tolower((unsigned char)*p);
	if (!hostname_valid(host, strlen(host))) {
		peer_logsafe(safe, sizeof(safe), host);
		log_notice("%s: reverse name \"%s\" is not a host name, "
		    "using the address", s->ip, safe);
		return 0;
	}
	if (s->opts->names == SESS_NAMES_CONFIRM && !sess_confirm(host, sa)) {
		log_notice("%s: reverse name %s does not resolve back to the "
		    "address, using the address (cairnd -H)", s->ip, host);
		return 0;
	}
	return 1;
}

/* Fill s->ip, s->host and s->peer from the peer address. */
static void
sess_identify(struct sess *s, const struct sockaddr *sa, socklen_t salen)
{
	const struct sockaddr_in6	*sin6;
	struct sockaddr_in		 sin;

	s->ip[0] = '\0';
	if (sa->sa_family == AF_INET6) {
		sin6 = (const struct sockaddr_in6 *)(const void *)sa;
		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			/* Report v4 clients on a v6 socket as dotted quads. */
			memset(&sin, 0, sizeof(sin));
			sin.sin_family = AF_INET;
			sin.sin_port = sin6->sin6_port;
			memcpy(&sin.sin_addr, &sin6->sin6_addr.s6_addr[12], 4);
			sess_identify(s, (struct sockaddr *)&sin,
			    sizeof(sin));
			return;
		}
	}
	if (getnameinfo(sa, salen, s->ip, sizeof(s->ip), NULL, 0,
	    NI_NUMERICHOST) != 0)
		strlcpy(s->ip, "unknown", sizeof(s->ip));
	if (!sess_revname(s, sa, salen, s->host, sizeof(s->host)))
		strlcpy(s->host, s->ip, sizeof(s->host));
	snprintf(s->peer, sizeof(s->peer), "%s[%s]", s->host, s->ip);
}

static void
sess_free(struct sess *s)
{
	size_t	 i;

	for (i = 0; i < s->nacl; i++)
		free(s->acl[i]);
	free(s->acl);
	free(s->cmdfile);
	free(s->key);
	free(s->specialdir);
	free(s->stortran);
	free(s->storq);
	fetch_end(s);
}

/*
 * The session's traffic in syslog: one line of totals (with DELTA
 * requests, what was sent as deltas and as whole files), and with
 * compression one line of what was sent how: per class of file body
 * (deflated, sent stored, served from the cache) the plain bytes and
 * what they became on the wire, and the plain bytes per level.
 */
static void
sess_logstats(struct sess *s)
{
	struct connstats	 st;
	const struct bodystats	*b = &s->bodies;
	const struct deltastats	*d = &s->deltas;
	struct zauto_memo	 m;
	char			 hist[256], delta[160];
	size_t			 off = 0;
	double			 rin, rout;
	int			 l;

	conn_stats(s->conn, &st);
	/* What the automatic level learned, for the next session. */
	if (s->zl.zauto && zlevel_memo(s->conn, &m) == 0)
		linkmemo_put(s->opts->links, s->ip, &m);
	rout = st.wire_out > 0 ? (double)st.raw_out / (double)st.wire_out : 1;
	rin = st.wire_in > 0 ? (double)st.raw_in / (double)st.wire_in : 1;
	/* Only a session that asked for deltas says how they went. */
	delta[0] = '\0';
	if (d->asked > 0)
		(void)snprintf(delta, sizeof(delta), ", delta requests %llu: "
		    "%llu as deltas (%llu bytes, %llu whole), %llu as whole "
		    "files", (unsigned long long)d->asked,
		    (unsigned long long)d->sent, (unsigned long long)d->bytes,
		    (unsigned long long)d->whole,
		    (unsigned long long)(d->asked - d->sent));
	peer_log(s, LOG_INFO, "session end: %s level %s%d, sent %llu bytes "
	    "(%llu on the wire, ratio %.2f), received %llu bytes (%llu on "
	    "the wire, ratio %.2f)%s", zlevel_label(s->zl.codec),
	    s->zl.zauto ? "auto, now " : "",
	    st.level, (unsigned long long)st.raw_out,
	    (unsigned long long)st.wire_out, rout,
	    (unsigned long long)st.raw_in, (unsigned long long)st.wire_in, rin,
	    delta);
	if (!zlevel_on(s->conn))
		return;
	hist[0] = '\0';
	for (l = 0; (size_t)l < sizeof(st.lvl_raw) / sizeof(st.lvl_raw[0]) &&
	    off < sizeof(hist); l++)
		if (st.lvl_raw[l] > 0)
			off += (size_t)snprintf(hist + off, sizeof(hist) - off,
			    " %d:%llu", l, (unsigned long long)st.lvl_raw[l]);
	peer_log(s, LOG_INFO, "session bodies: deflated %llu files %llu -> "
	    "%llu bytes, stored %llu files %llu bytes, cached %llu files "
	    "%llu -> %llu bytes; bytes by level%s; level changes %llu",
	    (unsigned long long)b->files[BODY_DEFLATED],
	    (unsigned long long)b->raw[BODY_DEFLATED],
	    (unsigned long long)b->wire[BODY_DEFLATED],
	    (unsigned long long)b->files[BODY_STORED],
	    (unsigned long long)b->raw[BODY_STORED],
	    (unsigned long long)b->files[BODY_CACHED],
	    (unsigned long long)b->raw[BODY_CACHED],
	    (unsigned long long)b->wire[BODY_CACHED],
	    hist[0] != '\0' ? hist : " none",
	    (unsigned long long)st.zswitches);
}

/* Set up the session of the connection fd. */
static void
sess_open(struct sess *s, int fd, const struct sockaddr *sa,
    socklen_t salen, const char *via, const struct sopts *o)
{
	int	 one = 1;

	memset(s, 0, sizeof(*s));
	s->opts = o;
	s->status = 1;
	s->grace = conn_now() + o->grace;
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	sess_identify(s, sa, salen);
	s->conn = conn_new(fd, s->peer);
	conn_set_maxline(s->conn, PROTO_REQMAX);
	conn_set_timeout(s->conn, s->opts->iowait);
	conn_set_linetimes(s->conn, o->idle, o->linetime);
	conn_set_trace(s->conn, o->debug ? proto_trace : NULL, NULL);
	if (via != NULL)
		peer_log(s, LOG_INFO, "connect via %s", via);
	else
		peer_log(s, LOG_INFO, "connect");
}

/*
 * Can the repository serve anyone?  Its command directory and config
 * must be readable; a balancer's health check learns it from the reply
 * that replaces the banner.  Returns 0, or -1 with err.
 */
static int
sess_repo_ok(const struct sess *s, struct cerr *err)
{
	int	 fd;

	if ((fd = openat(s->opts->rootfd, "command", O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1) {
		cerr_errno(err, "command");
		return -1;
	}
	close(fd);
	if ((fd = openat(s->opts->rootfd, "config", O_RDONLY |
	    O_CLOEXEC)) == -1) {
		cerr_errno(err, "config");
		return -1;
	}
	close(fd);
	return 0;
}

/*
 * [cairn] DELTA is offered when the repository holds a store of bases
 * and deltas (cairn-publish made delta/); without one the banner is
 * the same as before DELTA existed, byte for byte.  So is it when
 * deltas are not built in (configured --without-zstd), whatever delta/
 * holds.
 */
static int
sess_delta_store(const struct sess *s)
{
	struct stat	 st;

	return delta_built() && fstatat(s->opts->rootfd, DSTORE_DIR, &st,
	    AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode);
}

/*
 * Without TLS (-w 0) the host is authorized now, by its address; then
 * the banner.  Returns SESS_OK, or SESS_CLOSE after the refusal.
 */
static int
sess_greet(struct sess *s)
{
	struct cerr	 err;
	char		 zstd[32], zdict[48];
	size_t		 dlen;
	int		 r;

	if (sess_repo_ok(s, &err) == -1) {
		peer_log(s, LOG_ERR, "repository unusable: %s", err.msg);
		peer_reply(s, RAP_UNAVAILABLE, "Service not available, "
		    "repository unusable (%s)", err.msg);
		s->status = 1;
		return SESS_CLOSE;
	}
	s->state = s->opts->tls > 0 ? SESS_PRETLS : SESS_AUTH;
	if (s->check) {
		/*
		 * A balancer's own connection (PROXY LOCAL): no host to
		 * match; the verbs that need none still answer.
		 */
		s->state = SESS_UNKNOWN;
	} else if (s->state == SESS_AUTH) {
		if ((r = hostcfg_match(s, &err)) == -1) {
			log_warnx("%s", err.msg);
			return sess_unavailable(s, NULL);
		}
		if (r == 0) {
			peer_log(s, LOG_NOTICE, "host not in config");
			peer_reply(s, RAP_UNRECOGNIZED, "No access for %s",
			    s->host);
			return SESS_CLOSE;
		}
		if (sess_authorize(s) == SESS_CLOSE)
			return SESS_CLOSE;
	}
	conn_printf(s->conn, NULL,
	    "200-RAP 1 %s %s radmind access protocol\r\n", s->opts->hostname,
	    CAIRN_VERSION);
	/* [cairn] ZSTD=<max>: neither ZLIB nor REPO to a Radmind client. */
	zstd[0] = '\0';
	if (zlevel_offered(&s->opts->zlimit, ZLEVEL_ZSTD))
		(void)snprintf(zstd, sizeof(zstd), " %s=%d",
		    zlevel_name(ZLEVEL_ZSTD),
		    s->opts->zlimit.max[ZLEVEL_ZSTD]);
	/* [cairn] ZDICT=<bytes>: the cache's zstd dictionary (9.3). */
	zdict[0] = '\0';
	if (zlevel_offered(&s->opts->zlimit, ZLEVEL_ZSTD) && !s->check &&
	    fetch_zdict_ok(s, s->state == SESS_AUTH)) {
		(void)zstdconn_dict_data(zcache_dict(s->opts->zcache), &dlen);
		(void)snprintf(zdict, sizeof(zdict), " ZDICT=%zu ZDICTID=%u",
		    dlen, zstdconn_dict_id(zcache_dict(s->opts->zcache)));
	}
	conn_printf(s->conn, NULL, "200 CAPA %sREPO%s%s%s%s%s\r\n",
	    zlevel_offered(&s->opts->zlimit, ZLEVEL_ZLIB) ? "ZLIB " : "",
	    zlevel_offered_auto(&s->opts->zlimit) ? " ZAUTO" : "", zstd,
	    zdict, sess_delta_store(s) ? " DELTA" : "",
	    fetch_has_release(s->opts->rootfd) ? " MANIFEST" : "");
	return SESS_OK;
}

/* No request line could be read: log why and say goodbye. */
static void
sess_readfail(struct sess *s, const struct cerr *err)
{
	if (s->close)
		return;		/* already refused, while the read waited */
	if (conn_eof(s->conn)) {
		peer_log(s, LOG_INFO, "connection closed by peer");
		s->status = 1;
	} else if (conn_toolong(s->conn)) {
		peer_log(s, LOG_NOTICE, "request line too long");
		conn_set_timeout(s->conn, s->opts->iowait);
		peer_reply(s, RAP_UNRECOGNIZED,
		    "Line too long, closing connection");
	} else {
		if (s->state != SESS_AUTH && conn_now() >= s->grace)
			peer_log(s, LOG_NOTICE, "not authorized within %d s",
			    s->opts->grace / 1000);
		else
			log_notice("%s", err->msg);
		conn_set_timeout(s->conn, s->opts->iowait);
		peer_reply(s, RAP_CLOSING, "Server closing connection");
	}
}

/* Read and obey requests until the session ends. */
static void
sess_loop(struct sess *s)
{
	struct cerr	 err;
	char		*line;
	int64_t		 deadline;

	while (!s->close) {
		/*
		 * A command may be idle for up to -I, and a line that has
		 * begun must be complete within -t; until it is authorized
		 * (-w >= 1: TLS and a config match) a client also has no
		 * more than what is left of the grace time (-G).
		 */
		deadline = s->state == SESS_AUTH ? -1 : s->grace;
		if (conn_getline_until(s->conn, &line, deadline, PROTO_REQMAX,
		    &err) == -1) {
			sess_readfail(s, &err);
			break;
		}
		conn_set_timeout(s->conn, s->opts->iowait);
		if (sess_dispatch(s, line) == SESS_CLOSE) {
			if (!s->close)
				s->status = 1;
			break;
		}
		if (s->errors >= SESS_MAXERRORS) {
			peer_log(s, LOG_NOTICE, "too many protocol errors");
			peer_reply(s, RAP_UNAVAILABLE, "Too many errors, "
			    "closing transmission channel");
			s->status = 1;
			break;
		}
	}
}

int
sess_serve(int fd, const struct sockaddr *sa, socklen_t salen,
    const char *via, int check, const struct sopts *o)
{
	struct sess	 s;
	int		 r;

	sess_open(&s, fd, sa, salen, via, o);
	s.via = via;
	s.check = check;
	if (via == NULL && o->proxies != NULL && proxy_sent_header(fd)) {
		/* Only a listed balancer may say who the client is. */
		peer_log(&s, LOG_NOTICE, "refused: PROXY header from an "
		    "address not listed in -X");
		s.status = 1;
	} else if (sess_greet(&s) == SESS_OK) {
		sess_loop(&s);
		/*
		 * The last reply is still buffered: send it first, so that
		 * it counts on the wire as it already does as sent.
		 */
		(void)conn_flush(s.conn, NULL);
		sess_logstats(&s);
	}
	r = s.status;
	stor_finish(&s);
	conn_close(s.conn);
	sess_free(&s);
	return r;
}
