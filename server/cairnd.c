/*
 * cairnd: the Radmind-compatible server daemon.  Options, start-up,
 * listening sockets (IPv4 and IPv6), one child process per connection.
 *
 * main() is the sequence: parse_options() and check_options() fill the
 * settings; start() opens the repository, TLS and the sockets, then
 * detaches and drops privileges; serve() accepts until SIGTERM; stop().
 */
#include "config.h"

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netdb.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "bytesize.h"
#include "cerr.h"
#include "compat.h"
#include "dstore.h"
#include "fsutil.h"
#include "log.h"
#include "proto.h"
#include "proxyhdr.h"
#include "server.h"
#include "tls.h"
#include "version.h"
#include "xmalloc.h"
#include "linkmemo.h"
#include "zcache.h"

#define MAXLISTEN	8
#define BACKLOG		1024	/* default -b */
#define MAXPERSOURCE	32	/* default -s */
#define MAXSLOTS	4096	/* sessions counted per address, -X, no -m */
#define ACCEPTPAUSE	1000	/* ms without accepting after accept fails */

/* A peer address without its port; IPv4-mapped IPv6 counts as IPv4. */
struct srcaddr {
	int		 family;
	unsigned char	 addr[16];
};

/* A session child and the address it serves. */
struct kid {
	pid_t		 pid;
	struct srcaddr	 src;
	int		 slot;		/* in srcslots, -1: none */
	char		 peer[64];	/* numeric address, for log lines */
};

/*
 * -X: the client of a relayed connection is known only once its session
 * process has read the PROXY header, so the -s count is kept where both
 * the listener and the sessions see it: one slot per running session,
 * in memory shared by all.  The listener reserves a slot for each new
 * session and frees it when the session ends; the address is filled in
 * by the listener for a direct connection, by the session process for a
 * relayed one.  Each side publishes its address first and counts after,
 * so that two racing sessions from one client can both be refused but
 * never both admitted beyond the limit.
 */
struct srcslot {
	pid_t		 pid;		/* 0: free, -1: reserved */
	int		 ready;		/* src is filled in */
	struct srcaddr	 src;
};

/* What the options ask for. */
struct settings {
	struct sopts	 o;		/* what a session needs */
	struct tlsconf	 tc;		/* -C -P -x -y -z, and -w */
	const char	*addr;		/* -a, or NULL: every address */
	const char	*dir;		/* -D */
	const char	*pidfile;	/* -i, made absolute at start-up */
	char		*pidtmp;	/* ... written here, renamed when ready */
	int		 pidfd;
	int		 piddir;	/* its directory, to remove it after -j */
	const char	*pidbase;	/* ... by this name */
	const char	*user;		/* -g */
	const char	*port;		/* -p, a number once resolved */
	char		 portbuf[16];
	int		 backlog;	/* -b */
	int		 maxconn;	/* -m, 0 = no limit */
	int		 maxsrc;	/* -s, 0 = no limit */
	int		 fg;		/* -d, -f: do not detach */
	int		 facility;	/* -F */
	int		 level;		/* -L */
	int		 jail;		/* -j */
	int		 pam;		/* -U */
	const char	*cachedir;	/* -c */
	const char	*warm;		/* -W levels */
	int64_t		 cachesize;	/* -S: also the deltas' bound */
	int64_t		 basesize;	/* -O */
	struct proxylist proxies;	/* -X */
};

/* The listening sockets. */
struct listeners {
	int		 fd[MAXLISTEN];
	int		 n;
};

static volatile sig_atomic_t	got_term, got_chld, got_usr1;
static struct kid		*kids;
static size_t			 nkids, kidcap;
static int			 reap_rootfd = -1;	/* for stor_reap */
static struct zcache		*reap_zcache;		/* for zcache_trim */
static int			 reap_zstdmax;		/* -Y, if offered */
static time_t			 reap_trimmed;
static int64_t			 reap_bases, reap_deltas; /* dstore_trim */
static time_t			 reap_dtrimmed;
static struct srcslot		*srcslots;		/* -X */
static size_t			 nsrcslots;

/*
 * The zstd dictionary's digested form at the highest level offered, made
 * before the sessions fork so that they share it (zstdconn_dict_prepare).
 */
static void
zdict_prepare(struct zcache *zc, int level)
{
	struct zstdconn_dict	*d = zcache_dict(zc);
	struct cerr		 err;

	if (d != NULL && level >= 1 &&
	    zstdconn_dict_prepare(d, level, &err) == -1)
		log_warnx("%s", err.msg);
}

static void
usage(void)
{
	fprintf(stderr, "usage: cairnd [-dfjrUV] [-A auto | fixed] "
	    "[-a bind-address] [-b backlog] [-c cache-directory] "
	    "[-C crl] [-D path] [-E transfer-seconds] [-F syslog-facility] "
	    "[-g user] [-G grace-seconds] [-H confirm | reverse | off] "
	    "[-i pidfile] [-I idle-seconds] "
	    "[-L syslog-level] [-m max-connections] "
	    "[-M max-upload] [-n max-files] [-N min-free-megabytes] "
	    "[-O bases-size] [-p port] [-P ca-directory] [-s max-per-address] "
	    "[-S cache-size] [-t line-seconds] [-T max-bytes] [-W levels] "
	    "[-u umask] [-w auth-level] "
	    "[-X proxy-address[/prefix][,...]] "
	    "[-x ca-pem-file] [-Y zstd-max-level] [-y cert-pem-file] "
	    "[-z key-pem-file] [-Z max-compression-level]\n");
	exit(2);
}

static void
on_signal(int sig)
{
	if (sig == SIGCHLD)
		got_chld = 1;
	else if (sig == SIGUSR1)
		got_usr1 = 1;
	else
		got_term = 1;
}

static int
parse_int(const char *s, int min, int max, const char *what)
{
	const char	*errstr;
	long long	 v;

	v = strtonum(s, min, max, &errstr);
	if (errstr != NULL)
		fatalx("%s %s: %s (%d..%d)", what, s, errstr, min, max);
	return (int)v;
}

/* A byte count with an optional k, m or g suffix (powers of 1024). */
static int64_t
parse_bytes(const char *s, const char *what)
{
	int64_t	 v;

	if (bytesize_parse(s, &v) == -1)
		fatalx("%s %s: invalid size", what, s);
	return v;
}

static const struct {
	const char	*name;
	int		 value;
} facilities[] = {
	{ "daemon", LOG_DAEMON }, { "user", LOG_USER },
	{ "local0", LOG_LOCAL0 }, { "local1", LOG_LOCAL1 },
	{ "local2", LOG_LOCAL2 }, { "local3", LOG_LOCAL3 },
	{ "local4", LOG_LOCAL4 }, { "local5", LOG_LOCAL5 },
	{ "local6", LOG_LOCAL6 }, { "local7", LOG_LOCAL7 },
	{ "auth", LOG_AUTH }, { "syslog", LOG_SYSLOG },
}, levels[] = {
	{ "emerg", LOG_EMERG }, { "alert", LOG_ALERT }, { "crit", LOG_CRIT },
	{ "err", LOG_ERR }, { "warning", LOG_WARNING },
	{ "notice", LOG_NOTICE }, { "info", LOG_INFO },
	{ "debug", LOG_DEBUG },
};

static int
lookup_name(const char *s, int which, const char *what)
{
	size_t	 i, n;

	n = which ? sizeof(levels) / sizeof(levels[0]) :
	    sizeof(facilities) / sizeof(facilities[0]);
	for (i = 0; i < n; i++)
		if (strcasecmp(s, which ? levels[i].name :
		    facilities[i].name) == 0)
			return which ? levels[i].value : facilities[i].value;
	fatalx("%s: unknown syslog %s", s, what);
}

/* Create the repository directories that are missing (docs/formats.md 9). */
static void
make_layout(void)
{
	static const char *dirs[] = { "command", "file", "special", "tmp",
	    "tmp/file", "tmp/transcript", "transcript" };
	size_t	 i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		if (mkdir(dirs[i], 0750) == -1 && errno != EEXIST)
			fatal("mkdir %s", dirs[i]);
}

/* Open the listening sockets; returns how many. */
static int
listen_all(const char *addr, const char *port, int backlog, int *fds)
{
	struct addrinfo	 hints, *res, *ai;
	int		 n = 0, fd, one = 1, r;
	int		 fams[2] = { AF_INET6, AF_INET }, f;

	for (f = 0; f < 2; f++) {
		memset(&hints, 0, sizeof(hints));
		hints.ai_socktype = SOCK_STREAM;
		hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
		if (addr != NULL) {
			/* -a: only what that address is. */
			if (f == 1)
				break;
			hints.ai_family = AF_UNSPEC;
			hints.ai_flags |= AI_NUMERICHOST;
		} else
			hints.ai_family = fams[f];
		if ((r = getaddrinfo(addr, port, &hints, &res)) != 0) {
			if (addr == NULL)
				continue;
			fatalx("%s: %s", addr, gai_strerror(r));
		}
		for (ai = res; ai != NULL && n < MAXLISTEN; ai = ai->ai_next) {
			fd = socket(ai->ai_family, ai->ai_socktype |
			    SOCK_CLOEXEC, ai->ai_protocol);
			if (fd == -1)
				continue;	/* e.g. no IPv6 here */
			(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one,
			    sizeof(one));
			if (ai->ai_family == AF_INET6)
				(void)setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY,
				    &one, sizeof(one));
			if (bind(fd, ai->ai_addr, ai->ai_addrlen) == -1 ||
			    listen(fd, backlog) == -1) {
				if (addr == NULL && ai->ai_family == AF_INET6 &&
				    errno == EADDRNOTAVAIL) {
					close(fd);
					continue;
				}
				fatal("bind/listen port %s", port);
			}
			fds[n++] = fd;
		}
		freeaddrinfo(res);
	}
	if (n == 0)
		fatalx("no address to listen on");
	return n;
}

/* The address of a peer, for counting connections per address. */
static void
src_of(const struct sockaddr_storage *ss, struct srcaddr *src)
{
	memset(src, 0, sizeof(*src));
	if (proxy_addrof((const struct sockaddr *)ss, &src->family,
	    src->addr) == -1)
		src->family = ss->ss_family;
}

/* -X: a free slot, reserved; -1 if every one is taken. */
static int
slot_reserve(void)
{
	size_t	 i;

	for (i = 0; i < nsrcslots; i++)
		if (srcslots[i].pid == 0) {
			srcslots[i].pid = -1;
			__atomic_store_n(&srcslots[i].ready, 0,
			    __ATOMIC_SEQ_CST);
			return (int)i;
		}
	return -1;
}

static void
slot_free(int i)
{
	if (i < 0)
		return;
	__atomic_store_n(&srcslots[i].ready, 0, __ATOMIC_SEQ_CST);
	srcslots[i].pid = 0;
}

/*
 * -X: publish src in slot i, then count the sessions from src, this one
 * included.
 */
static size_t
slot_claim(int i, const struct srcaddr *src)
{
	size_t	 j, n = 0;

	srcslots[i].src = *src;
	__atomic_store_n(&srcslots[i].ready, 1, __ATOMIC_SEQ_CST);
	for (j = 0; j < nsrcslots; j++)
		if (__atomic_load_n(&srcslots[j].ready, __ATOMIC_SEQ_CST) &&
		    srcslots[j].src.family == src->family &&
		    memcmp(srcslots[j].src.addr, src->addr,
		    sizeof(src->addr)) == 0)
			n++;
	return n;
}

/* How many running sessions serve src. */
static size_t
src_count(const struct srcaddr *src)
{
	size_t	 i, n = 0;

	for (i = 0; i < nkids; i++)
		if (kids[i].src.family == src->family &&
		    memcmp(kids[i].src.addr, src->addr, sizeof(src->addr)) == 0)
			n++;
	return n;
}

static void
kid_add(pid_t pid, const struct srcaddr *src, int slot, const char *peer)
{
	if (nkids == kidcap) {
		kidcap = kidcap ? kidcap * 2 : 16;
		kids = xreallocarray(kids, kidcap, sizeof(*kids));
	}
	kids[nkids].pid = pid;
	kids[nkids].src = *src;
	kids[nkids].slot = slot;
	strlcpy(kids[nkids].peer, peer, sizeof(kids[nkids].peer));
	if (slot >= 0)
		srcslots[slot].pid = pid;
	nkids++;
}

/*
 * Refuse a connection the way -m does: "420 Server busy", without
 * waiting for the peer, then close.
 */
static void
refuse(int fd)
{
	static const char busy[] = "420 Server busy\r\n";

	(void)send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT);
	close(fd);
}

/* Reap finished children; only our own children change the count. */
static void
reap(void)
{
	char	 peer[sizeof(kids->peer)];
	pid_t	 pid;
	int	 status, n;
	size_t	 i;

	got_chld = 0;
	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		strlcpy(peer, "unknown", sizeof(peer));
		for (i = 0; i < nkids; i++)
			if (kids[i].pid == pid) {
				strlcpy(peer, kids[i].peer, sizeof(peer));
				slot_free(kids[i].slot);
				kids[i] = kids[--nkids];
				break;
			}
		if (reap_rootfd != -1)
			stor_reap(reap_rootfd, pid);
		if (WIFEXITED(status))
			log_debug("child %ld exited %d", (long)pid,
			    WEXITSTATUS(status));
		else if (WIFSIGNALED(status))
			log_warnx("child %ld killed by signal %d (connection "
			    "from %s)", (long)pid, WTERMSIG(status), peer);
	}
	/* Sessions add to the cache: bring it back under its bound. */
	if (reap_zcache != NULL && time(NULL) >= reap_trimmed + ZC_TRIMGAP) {
		reap_trimmed = time(NULL);
		if ((n = zcache_trim(reap_zcache)) > 0)
			log_info("compressed cache: %d entries removed to "
			    "stay under its size", n);
		/* A publish made the dictionary old; -W a new one. */
		if (reap_rootfd != -1 &&
		    zcache_dict_refresh(reap_zcache, reap_rootfd) == 1)
			zdict_prepare(reap_zcache, reap_zstdmax);
	}
	/* Sessions use bases and deltas, publications add them. */
	if (reap_rootfd != -1 && time(NULL) >= reap_dtrimmed + ZC_TRIMGAP) {
		reap_dtrimmed = time(NULL);
		if ((n = dstore_trim(reap_rootfd, reap_bases,
		    reap_deltas)) > 0)
			log_info("%s: %d files removed to stay under -O and "
			    "-S", DSTORE_DIR, n);
	}
}

/*
 * SIGUSR1: build a new TLS context from the same files; on failure keep
 * serving with the old one.
 */
static void
tls_reload(struct settings *st)
{
	struct tlsctx	*nctx;
	struct cerr	 err;

	got_usr1 = 0;
	if (st->o.tls == 0)
		return;
	if ((nctx = tlsctx_server(&st->tc, &err)) == NULL) {
		log_warnx("SIGUSR1: TLS material not reloaded, keeping the "
		    "old: %s", err.msg);
		return;
	}
	tlsctx_free(st->o.tlsctx);
	st->o.tlsctx = nctx;
	log_info("SIGUSR1: TLS material reloaded");
}

/*
 * -j: chroot into the repository (the working directory); -g: become
 * user.  Called once the sockets are bound, the keys loaded and the
 * pidfile written.
 */
static void
drop_privileges(const char *user, int jail)
{
	struct passwd	*pw = NULL;
	char		 host[NI_MAXHOST];
	struct sockaddr_in sin;
	struct addrinfo	*res;

	if (user != NULL) {
		if ((pw = getpwnam(user)) == NULL)
			fatalx("-g %s: no such user", user);
		if (initgroups(pw->pw_name, pw->pw_gid) == -1)
			fatal("-g %s: initgroups", user);
	}
	if (jail) {
		/* Load the resolver's modules while they are reachable. */
		memset(&sin, 0, sizeof(sin));
		sin.sin_family = AF_INET;
		sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		(void)getnameinfo((struct sockaddr *)&sin, sizeof(sin), host,
		    sizeof(host), NULL, 0, NI_NAMEREQD);
		if (getaddrinfo("localhost", NULL, NULL, &res) == 0)
			freeaddrinfo(res);
		if (chroot(".") == -1 || chdir("/") == -1)
			fatal("-j: chroot to the repository");
	}
	if (pw != NULL) {
		if (setgid(pw->pw_gid) == -1 || setuid(pw->pw_uid) == -1)
			fatal("-g %s: cannot change user", user);
		if (pw->pw_uid != 0 && (setuid(0) != -1 || getuid() == 0 ||
		    geteuid() == 0))
			fatalx("-g %s: still privileged", user);
		log_info("running as %s (uid %ld, gid %ld)%s", user,
		    (long)pw->pw_uid, (long)pw->pw_gid,
		    jail ? ", chrooted to the repository" : "");
	} else if (jail)
		log_info("chrooted to the repository");
}

/* A limit for the log: the number, or "unlimited" for 0. */
static void
limit_text(char *buf, size_t len, int64_t limit)
{
	if (limit > 0)
		snprintf(buf, len, "%lld", (long long)limit);
	else
		strlcpy(buf, "unlimited", len);
}

/* -u: a number from 0 to 0777 as C reads it (022 is octal), as lapply. */
static mode_t
parse_umask(const char *s)
{
	mode_t	 um;

	if (fs_parse_umask(s, 0, &um) == -1)
		fatalx("%s: invalid umask", s);
	return um;
}

/* The defaults of every option. */
static void
settings_init(struct settings *st)
{
	memset(st, 0, sizeof(*st));
	st->dir = _RADMIND_PATH;
	st->o.zlimit.autook = 1;
	st->cachesize = ZC_DEFSIZE;
	st->basesize = DSTORE_DEFBOUND;
	st->backlog = BACKLOG;
	st->maxsrc = MAXPERSOURCE;
	st->facility = LOG_LOCAL7;
	st->level = LOG_INFO;
	st->o.minfree = STOR_MINFREE;
	st->o.maxfiles = STOR_MAXFILES;
	st->o.maxbytes = STOR_MAXBYTES;
	st->o.grace = SESS_GRACE;
	st->o.linetime = SESS_LINETIME;
	st->o.idle = SESS_IDLE;
	st->o.iowait = SESS_IOWAIT;
	st->o.umask = umask(022);
	umask(st->o.umask);
}

/* Fill st from the command line; a usage error exits 2. */
static void
parse_options(int argc, char *argv[], struct settings *st)
{
	struct sopts	*o = &st->o;
	struct cerr	 cerr;
	int		 ch, zstdset = 0;

	settings_init(st);
	while ((ch = getopt(argc, argv,
	    "A:a:b:Bc:C:dD:E:fF:g:G:H:i:I:jL:m:M:n:N:O:p:P:rRs:S:t:T:u:UVw:W:x:X:Y:y:z:Z:"))
	    != -1) {
		switch (ch) {
		case 'A':
			if (strcmp(optarg, "auto") == 0)
				o->zlimit.autook = 1;
			else if (strcmp(optarg, "fixed") == 0)
				o->zlimit.autook = 0;
			else
				fatalx("-A %s: not auto or fixed", optarg);
			break;
		case 'c':
			st->cachedir = optarg;
			break;
		case 'S':
			st->cachesize = parse_bytes(optarg, "cache size");
			break;
		case 'O':
			st->basesize = parse_bytes(optarg, "bases size");
			break;
		case 'W':
			st->warm = optarg;
			break;
		case 'a':
			st->addr = optarg;
			break;
		case 'b':
			st->backlog = parse_int(optarg, 1, 65535, "backlog");
			break;
		case 'B':
		case 'R':
			fatalx("Bonjour registration is not supported on "
			    "this platform");
		case 'C':
			st->tc.crl = optarg;
			break;
		case 'd':
			o->debug = 1;
			st->fg = 1;
			break;
		case 'D':
			st->dir = optarg;
			break;
		case 'E':
			o->iowait = parse_int(optarg, 1, 24 * 3600,
			    "transfer time") * 1000;
			break;
		case 'f':
			st->fg = 1;
			break;
		case 'F':
			st->facility = lookup_name(optarg, 0, "facility");
			break;
		case 'g':
			st->user = optarg;
			break;
		case 'G':
			o->grace = parse_int(optarg, 1, 24 * 3600,
			    "grace time") * 1000;
			break;
		case 'H':
			if (strcmp(optarg, "confirm") == 0)
				o->names = SESS_NAMES_CONFIRM;
			else if (strcmp(optarg, "reverse") == 0)
				o->names = SESS_NAMES_REVERSE;
			else if (strcmp(optarg, "off") == 0)
				o->names = SESS_NAMES_OFF;
			else
				fatalx("-H %s: not confirm, reverse or off",
				    optarg);
			break;
		case 'i':
			st->pidfile = optarg;
			break;
		case 'I':
			o->idle = parse_int(optarg, 1, 7 * 24 * 3600,
			    "idle time") * 1000;
			break;
		case 'j':
			st->jail = 1;
			break;
		case 'L':
			st->level = lookup_name(optarg, 1, "level");
			break;
		case 'm':
			st->maxconn = parse_int(optarg, 0, INT_MAX,
			    "max connections");
			break;
		case 'M':
			o->maxupload = parse_bytes(optarg, "maximum upload");
			break;
		case 'n':
			o->maxfiles = parse_int(optarg, 0, INT_MAX,
			    "maximum files of a loadset");
			break;
		case 'N':
			o->minfree = parse_int(optarg, 0, INT_MAX,
			    "free space floor") * (int64_t)1024 * 1024;
			break;
		case 'p':
			st->port = optarg;
			break;
		case 'P':
			st->tc.cadir = optarg;
			break;
		case 's':
			st->maxsrc = parse_int(optarg, 0, INT_MAX,
			    "max connections per address");
			break;
		case 't':
			o->linetime = parse_int(optarg, 1, 24 * 3600,
			    "line time") * 1000;
			break;
		case 'T':
			o->maxbytes = parse_bytes(optarg,
			    "maximum bytes of a loadset");
			break;
		case 'X':
			if (proxylist_add(&st->proxies, optarg, &cerr) == -1)
				fatalx("-X %s: %s", optarg, cerr.msg);
			break;
		case 'x':
			st->tc.cafile = optarg;
			break;
		case 'y':
			st->tc.cert = optarg;
			break;
		case 'z':
			st->tc.key = optarg;
			break;
		case 'r':
			/* OpenSSL 3 seeds itself. */
			break;
		case 'u':
			o->umask = parse_umask(optarg);
			break;
		case 'U':
			st->pam = 1;
			break;
		case 'V':
			version_print(VERSION_ZSTD);
			exit(0);
		case 'w':
			o->tls = parse_int(optarg, 0, 4,
			    "authorization level");
			break;
		case 'Y':
			if (zlevel_parse(ZLEVEL_ZSTD, optarg,
			    ZLEVEL_ARG_OPTION, &o->zlimit.max[ZLEVEL_ZSTD],
			    &cerr) == -1)
				fatalx("-Y: %s", cerr.msg);
			zstdset = 1;
			break;
		case 'Z':
			if (zlevel_parse(ZLEVEL_ZLIB, optarg,
			    ZLEVEL_ARG_OPTION, &o->zlimit.max[ZLEVEL_ZLIB],
			    &cerr) == -1)
				fatalx("-Z: %s", cerr.msg);
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	/*
	 * zstd, between cairn peers, comes with compression under the
	 * default -A auto unless -Y says otherwise; -A fixed keeps
	 * Radmind's banner.
	 */
	if (!zstdset)
		o->zlimit.max[ZLEVEL_ZSTD] = zlevel_offered_auto(&o->zlimit) ?
		    zlevel_default_max(ZLEVEL_ZSTD) : 0;
	if (st->proxies.n > 0)
		o->proxies = &st->proxies;
}

/* -p: a number as given; a service name, or none, from services(5). */
static void
resolve_port(struct settings *st)
{
	struct servent	*se;

	if (st->port == NULL) {
		if ((se = getservbyname(PROTO_SERVICE, "tcp")) != NULL)
			snprintf(st->portbuf, sizeof(st->portbuf), "%d",
			    ntohs((uint16_t)se->s_port));
		else
			snprintf(st->portbuf, sizeof(st->portbuf), "%d",
			    PROTO_PORT);
		st->port = st->portbuf;
	} else if (st->port[0] != '\0' &&
	    strspn(st->port, "0123456789") == strlen(st->port))
		(void)parse_int(st->port, 1, 65535, "port");
	else {
		if ((se = getservbyname(st->port, "tcp")) == NULL)
			fatalx("-p %s: unknown service", st->port);
		snprintf(st->portbuf, sizeof(st->portbuf), "%d",
		    ntohs((uint16_t)se->s_port));
		st->port = st->portbuf;
	}
}

/* The options that need others, or that this build cannot honour. */
static void
check_options(struct settings *st)
{
	struct cerr	 err;
	struct zlevel	 lv[ZLEVEL_LISTMAX];
	int		 n;

	if (st->tc.crl != NULL && st->o.tls < 3)
		fatalx("-C requires -w 3 or higher");
	if (st->pam && st->o.tls < 1)
		fatalx("-U requires -w 1 or higher");
	if (st->pam)
		fatalx("-U: PAM login is not supported in this build");
	if (st->warm != NULL && st->cachedir == NULL)
		fatalx("-W requires -c");
	if (st->warm != NULL &&
	    zlevel_parse_list("-W", st->warm, lv, &n, &err) == -1)
		fatalx("%s", err.msg);
	resolve_port(st);
}

/* Fatal exits before the listener is ready leave no pid file behind. */
static void
pidtmp_unlink(void *arg)
{
	struct settings	*st = arg;

	if (st->pidtmp != NULL)
		(void)unlink(st->pidtmp);
}

static void
pidfile_unlink(void *arg)
{
	struct settings	*st = arg;

	(void)unlinkat(st->piddir, st->pidbase, 0);
}

/*
 * -i: create a temporary file beside the pid file while the start
 * directory is current (a relative name names a file there, not in -D),
 * so that an unwritable place fails the start at once.  The pid goes in
 * once the daemon has forked and listens (pidfile_ready).
 */
static void
pidfile_open(struct settings *st)
{
	char	 cwd[PATH_MAX], *abspid, *dir, *slash;

	st->pidfd = st->piddir = -1;
	if (st->pidfile == NULL)
		return;
	if (st->pidfile[0] != '/') {
		if (getcwd(cwd, sizeof(cwd)) == NULL)
			fatal("getcwd");
		xasprintf(&abspid, "%s/%s", cwd, st->pidfile);
		st->pidfile = abspid;
	}
	/* Removed through its directory: after -j its path names none. */
	dir = xstrdup(st->pidfile);
	slash = strrchr(dir, '/');
	st->pidbase = st->pidfile + (slash - dir) + 1;
	slash[slash == dir ? 1 : 0] = '\0';
	if ((st->piddir = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1)
		fatal("%s", st->pidfile);
	free(dir);
	xasprintf(&st->pidtmp, "%s.XXXXXX", st->pidfile);
	if ((st->pidfd = mkstemp(st->pidtmp)) == -1)
		fatal("%s", st->pidfile);
	log_addcleanup(pidtmp_unlink, st);
}

/*
 * The sockets listen: write the pid and rename the file into place, so
 * that whoever waits for the pid file to have content can connect once
 * it does (cairnd(8), "Starting").  Until the privileges are dropped a
 * fatal exit removes it again.
 */
static void
pidfile_ready(struct settings *st)
{
	char	 line[32];
	int	 n;

	if (st->pidfd == -1)
		return;
	n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
	if (write(st->pidfd, line, (size_t)n) != n ||
	    fchmod(st->pidfd, 0644) == -1 || close(st->pidfd) == -1)
		fatal("%s", st->pidtmp);
	st->pidfd = -1;
	if (rename(st->pidtmp, st->pidfile) == -1)
		fatal("%s", st->pidfile);
	log_delcleanup(pidtmp_unlink, st);
	free(st->pidtmp);
	st->pidtmp = NULL;
	log_addcleanup(pidfile_unlink, st);
}

/*
 * Under systemd (Type=notify), NOTIFY_SOCKET names a datagram socket,
 * a path or "@" and an abstract name, that waits for "READY=1"
 * (sd_notify(3)).  The socket is connected before a chroot (-j) hides
 * the path; the variable is removed so that no child sends as well.
 */
static int
notify_open(void)
{
	struct sockaddr_un	 sun;
	const char		*path;
	size_t			 len;
	int			 fd;

	if ((path = getenv("NOTIFY_SOCKET")) == NULL)
		return -1;
	len = strlen(path);
	if ((path[0] != '/' && path[0] != '@') || len < 2 ||
	    len >= sizeof(sun.sun_path)) {
		log_warnx("NOTIFY_SOCKET %s: not a socket name", path);
		(void)unsetenv("NOTIFY_SOCKET");
		return -1;
	}
	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	memcpy(sun.sun_path, path, len);
	if (path[0] == '@')
		sun.sun_path[0] = '\0';
	if ((fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0)) == -1 ||
	    connect(fd, (struct sockaddr *)&sun,
	    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len)) == -1) {
		log_warn("NOTIFY_SOCKET %s", path);
		if (fd != -1)
			close(fd);
		fd = -1;
	}
	(void)unsetenv("NOTIFY_SOCKET");
	return fd;
}

static void
notify_ready(int fd)
{
	static const char	 ready[] = "READY=1";

	if (fd == -1)
		return;
	if (send(fd, ready, sizeof(ready) - 1, MSG_NOSIGNAL) == -1)
		log_warn("NOTIFY_SOCKET: READY=1");
	close(fd);
}

/* -D: work in the repository, completing its layout. */
static void
enter_repository(struct settings *st)
{
	if (chdir(st->dir) == -1)
		fatal("%s", st->dir);
	make_layout();
	st->o.rootfd = open(".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (st->o.rootfd == -1)
		fatal("%s", st->dir);
	reap_rootfd = st->o.rootfd;
}

/* -W: fill the cache from the repository's transcripts, and exit. */
static int
warm(struct settings *st)
{
	struct cerr	 cerr;
	struct zcache	*zc;
	int		 rc;

	enter_repository(st);
	if ((zc = zcache_open(st->cachedir, st->cachesize, &cerr)) == NULL)
		fatalx("-c %s", cerr.msg);
	rc = cache_warm(zc, st->o.rootfd, st->warm);
	(void)zcache_trim(zc);
	zcache_close(zc);
	return rc == -1 ? 1 : 0;
}

/* Leave the terminal: a child in a session of its own, on /dev/null. */
static void
daemonize(void)
{
	int	 fd;

	switch (fork()) {
	case -1:
		fatal("fork");
	case 0:
		break;
	default:
		_exit(0);
	}
	if (setsid() == -1)
		fatal("setsid");
	if ((fd = open("/dev/null", O_RDWR)) != -1) {
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		if (fd > 2)
			close(fd);
	}
}

/*
 * Handle the signals the listener acts on: SIGCHLD, SIGTERM and SIGINT
 * with fn, SIGUSR1 with usr1 (no SA_RESTART: poll wakes up).
 */
static void
set_signals(void (*fn)(int), void (*usr1)(int))
{
	struct sigaction	 sa;

	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	sa.sa_handler = fn;
	sigaction(SIGCHLD, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	sa.sa_handler = usr1;
	sigaction(SIGUSR1, &sa, NULL);
}

/* The listener acts on its signals and ignores SIGHUP and SIGPIPE. */
static void
catch_signals(void)
{
	set_signals(on_signal, on_signal);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
}

/*
 * Everything up to the first accept: the repository, TLS, the sockets;
 * then the log moves to syslog (-f, -d: stays on stderr), the daemon
 * detaches, writes its pid file, drops its privileges and tells systemd
 * it is ready: both only once the sockets listen.
 */
static void
start(struct settings *st, struct listeners *l)
{
	struct cerr	 cerr;
	char		 nfiles[32], nbytes[32];
	int		 notifyfd;

	pidfile_open(st);
	enter_repository(st);
	if (st->o.tls > 0) {
		/* TLS file names are relative to the repository. */
		st->tc.level = st->o.tls;
		if ((st->o.tlsctx = tlsctx_server(&st->tc, &cerr)) == NULL)
			fatalx("-w %d: %s", st->o.tls, cerr.msg);
	}
	if (st->cachedir != NULL) {
		/* Relative to the repository, as the TLS files are. */
		if ((st->o.zcache = zcache_open(st->cachedir, st->cachesize,
		    &cerr)) == NULL)
			fatalx("-c %s", cerr.msg);
		reap_zcache = st->o.zcache;
		if (zlevel_offered(&st->o.zlimit, ZLEVEL_ZSTD))
			reap_zstdmax = st->o.zlimit.max[ZLEVEL_ZSTD];
		zdict_prepare(st->o.zcache, reap_zstdmax);
	}
	/*
	 * What sessions with the automatic level remember of each peer's
	 * link; without it each session starts afresh.
	 */
	if (st->o.zlimit.autook && zlevel_offered_any(&st->o.zlimit) &&
	    (st->o.links = linkmemo_open(st->o.rootfd, &cerr)) == NULL)
		log_warnx("%s: the automatic level starts afresh each session",
		    cerr.msg);
	/* The bases and deltas (dstore.h): -O, and -S as for the cache. */
	reap_bases = st->basesize;
	reap_deltas = st->cachesize;
	(void)dstore_trim(st->o.rootfd, reap_bases, reap_deltas);
	reap_dtrimmed = time(NULL);
	if (st->user != NULL && getpwnam(st->user) == NULL)
		fatalx("-g %s: no such user", st->user);
	if (gethostname(st->o.hostname, sizeof(st->o.hostname) - 1) == -1)
		strlcpy(st->o.hostname, "localhost", sizeof(st->o.hostname));
	l->n = listen_all(st->addr, st->port, st->backlog, l->fd);
	if (st->proxies.n > 0) {
		/* -m bounds the sessions, else MAXSLOTS does. */
		nsrcslots = st->maxconn > 0 ? (size_t)st->maxconn : MAXSLOTS;
		srcslots = mmap(NULL, nsrcslots * sizeof(*srcslots),
		    PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
		if (srcslots == MAP_FAILED)
			fatal("-X: shared memory for -s");
	}

	log_init("cairnd", st->fg ? LOG_TO_STDERR : LOG_TO_SYSLOG,
	    st->facility);
	log_setlevel(st->level);
	log_setverbose(st->o.debug || st->level == LOG_DEBUG);
	if (!st->fg)
		daemonize();
	/* A SIGTERM from whoever saw the pid file stops us cleanly. */
	catch_signals();
	pidfile_ready(st);
	notifyfd = notify_open();
	if (st->user != NULL || st->jail)
		drop_privileges(st->user, st->jail);
	/* Sessions never remove the listener's pid file. */
	log_delcleanup(pidfile_unlink, st);
	/* What sessions stopped with an earlier listener left. */
	stor_sweep(st->o.rootfd);
	notify_ready(notifyfd);
	log_info("cairnd %s listening on port %s (zlib max %d%s, zstd max "
	    "%d, max connections %d, TLS level %d)", CAIRN_VERSION, st->port,
	    st->o.zlimit.max[ZLEVEL_ZLIB], zlevel_offered_auto(&st->o.zlimit) ?
	    " or auto" : "", st->o.zlimit.max[ZLEVEL_ZSTD],
	    st->maxconn, st->o.tls);
	if (st->o.zcache != NULL)
		log_info("compressed cache in %s, up to %lld bytes",
		    st->cachedir, (long long)st->cachesize);
	if (st->proxies.n > 0)
		log_info("PROXY headers required from %zu listed address "
		    "ranges (-X), up to %zu sessions", st->proxies.n,
		    nsrcslots);
	limit_text(nfiles, sizeof(nfiles), st->o.maxfiles);
	limit_text(nbytes, sizeof(nbytes), st->o.maxbytes);
	log_debug("limits: %d connections per address, backlog %d, grace "
	    "%d s, line %d s, idle %d s, transfer %d s; a loadset %s files and "
	    "directories, %s bytes", st->maxsrc, st->backlog,
	    st->o.grace / 1000, st->o.linetime / 1000, st->o.idle / 1000,
	    st->o.iowait / 1000, nfiles, nbytes);
}

/* The numeric address of ss, for log lines. */
static void
numeric(const struct sockaddr_storage *ss, socklen_t sslen, char *ip,
    size_t len)
{
	if (getnameinfo((const struct sockaddr *)ss, sslen, ip, (socklen_t)len,
	    NULL, 0, NI_NUMERICHOST) != 0)
		strlcpy(ip, "unknown", len);
}

/*
 * -m and -s: may a connection from ss be served now?  If not, it is
 * refused and 0 returned.  With -X, *slot gets the session's slot; a
 * connection from a listed balancer (*relayed) is counted against -s by
 * its session, once the PROXY header names the client.
 */
static int
admit(const struct settings *st, int fd, const struct sockaddr_storage *ss,
    socklen_t sslen, struct srcaddr *src, int *slot, int *relayed)
{
	char	 ip[NI_MAXHOST];
	size_t	 nsrc;

	*slot = -1;
	*relayed = proxylist_match(st->o.proxies,
	    (const struct sockaddr *)ss);
	if (st->maxconn > 0 && nkids >= (size_t)st->maxconn) {
		log_notice("connection refused: server busy (%zu "
		    "connections)", nkids);
		refuse(fd);
		return 0;
	}
	if (srcslots != NULL && (*slot = slot_reserve()) == -1) {
		log_notice("connection refused: server busy (%zu "
		    "connections)", nkids);
		refuse(fd);
		return 0;
	}
	src_of(ss, src);
	if (*relayed || st->maxsrc <= 0)
		return 1;
	if (srcslots != NULL)
		nsrc = slot_claim(*slot, src) - 1;
	else
		nsrc = src_count(src);
	if (nsrc >= (size_t)st->maxsrc) {
		numeric(ss, sslen, ip, sizeof(ip));
		log_notice("connection from %s refused: %zu connections from "
		    "that address (-s %d)", ip, nsrc, st->maxsrc);
		slot_free(*slot);
		refuse(fd);
		return 0;
	}
	return 1;
}

/*
 * -X, in the session process of a connection from a listed balancer:
 * read its PROXY header, and count the client it names against -s.
 * Fills *ss with the client's address unless the header names none (a
 * health check: *check set).  Returns 0, or -1 after refusing.
 */
static int
relayed_client(const struct settings *st, int fd, int slot,
    struct sockaddr_storage *ss, socklen_t *sslen, const char *via,
    int *check)
{
	struct proxyhdr	 ph;
	struct srcaddr	 src;
	char		 ip[NI_MAXHOST];
	size_t		 nsrc;

	if (proxy_read(fd, st->o.grace, &ph) == -1) {
		log_notice("connection from %s refused: PROXY header: %s",
		    via, ph.why);
		close(fd);
		return -1;
	}
	*check = ph.local;
	if (!ph.local) {
		memcpy(ss, &ph.src, ph.srclen);
		*sslen = ph.srclen;
	}
	if (st->maxsrc <= 0)
		return 0;
	src_of(ss, &src);
	if ((nsrc = slot_claim(slot, &src) - 1) >= (size_t)st->maxsrc) {
		numeric(ss, *sslen, ip, sizeof(ip));
		log_notice("connection from %s via %s refused: %zu "
		    "connections from that address (-s %d)", ip, via, nsrc,
		    st->maxsrc);
		refuse(fd);
		return -1;
	}
	return 0;
}

/*
 * In a new child: give up what belongs to the listener (its sockets, its
 * signal handlers, SIGUSR1 reloads), serve the connection fd, exit.
 */
static void __attribute__((noreturn))
run_session(const struct settings *st, const struct listeners *l, int fd,
    struct sockaddr_storage *ss, socklen_t sslen, int slot, int relayed,
    const sigset_t *waitmask)
{
	char	 via[NI_MAXHOST];
	int	 i, check = 0;

	for (i = 0; i < l->n; i++)
		close(l->fd[i]);
	if (st->piddir != -1)
		close(st->piddir);
	set_signals(SIG_DFL, SIG_IGN);
	sigprocmask(SIG_SETMASK, waitmask, NULL);
	if (relayed) {
		/* Before anything is sent: the header comes first. */
		numeric(ss, sslen, via, sizeof(via));
		if (relayed_client(st, fd, slot, ss, &sslen, via,
		    &check) == -1)
			_exit(1);
	}
	_exit(sess_serve(fd, (const struct sockaddr *)ss, sslen,
	    relayed ? via : NULL, check, &st->o));
}

/*
 * Accept a connection on listening socket lfd and start its session.
 * Returns -1 if accept failed for want of descriptors or memory (the
 * connection is still queued), or fork did (the connection is refused):
 * trying again at once would fail the same way.
 */
static int
accept_one(struct settings *st, const struct listeners *l, int lfd,
    const sigset_t *waitmask)
{
	struct sockaddr_storage	 ss;
	struct srcaddr		 src;
	char			 ip[NI_MAXHOST];
	socklen_t		 sslen;
	pid_t			 pid;
	int			 fd, slot, relayed, e;

	sslen = sizeof(ss);
	fd = accept4(lfd, (struct sockaddr *)&ss, &sslen, SOCK_CLOEXEC);
	if (fd == -1) {
		if ((e = errno) == EINTR || e == EAGAIN || e == ECONNABORTED)
			return 0;
		log_warn("accept");
		return e == EMFILE || e == ENFILE || e == ENOBUFS ||
		    e == ENOMEM ? -1 : 0;
	}
	if (got_chld)
		reap();
	if (got_usr1)
		tls_reload(st);
	if (!admit(st, fd, &ss, sslen, &src, &slot, &relayed))
		return 0;
	numeric(&ss, sslen, ip, sizeof(ip));
	switch ((pid = fork())) {
	case -1:
		/*
		 * Out of processes or memory: the client is told so, as
		 * by -m, and the others wait in the listen queue for
		 * ACCEPTPAUSE.
		 */
		log_warn("connection from %s refused: fork", ip);
		slot_free(slot);
		refuse(fd);
		return -1;
	case 0:
		run_session(st, l, fd, &ss, sslen, slot, relayed, waitmask);
	default:
		kid_add(pid, &src, slot, ip);
		close(fd);
		break;
	}
	return 0;
}

static int64_t
now_ms(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Serve connections until SIGTERM or SIGINT. */
static void
serve(struct settings *st, const struct listeners *l)
{
	struct pollfd	 pfd[MAXLISTEN];
	struct timespec	 ts, *tsp;
	sigset_t	 block, waitmask;
	int64_t		 resume = -1, left;	/* -1: accepting */
	int		 i;

	for (i = 0; i < l->n; i++)
		pfd[i].events = POLLIN;
	/*
	 * The signals we act on stay blocked except inside ppoll(), so one
	 * that arrives between the flag checks and the wait still wakes it.
	 */
	sigemptyset(&block);
	sigaddset(&block, SIGCHLD);
	sigaddset(&block, SIGTERM);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGUSR1);
	sigprocmask(SIG_BLOCK, &block, &waitmask);
	while (!got_term) {
		if (got_chld)
			reap();
		if (got_usr1)
			tls_reload(st);
		/*
		 * Out of descriptors or memory: the connections wait in the
		 * listen queue for ACCEPTPAUSE, not to spin on accept.
		 */
		tsp = NULL;
		if (resume != -1 && (left = resume - now_ms()) > 0) {
			ts.tv_sec = left / 1000;
			ts.tv_nsec = (left % 1000) * 1000000;
			tsp = &ts;
		} else
			resume = -1;
		for (i = 0; i < l->n; i++)
			pfd[i].fd = resume == -1 ? l->fd[i] : -1;
		if (ppoll(pfd, (nfds_t)l->n, tsp, &waitmask) == -1) {
			/*
			 * Anything but a signal (ENOMEM): wait ACCEPTPAUSE,
			 * signals let in, not to spin.
			 */
			if (errno != EINTR) {
				log_warn("poll");
				ts.tv_sec = ACCEPTPAUSE / 1000;
				ts.tv_nsec = (ACCEPTPAUSE % 1000) * 1000000;
				(void)pselect(0, NULL, NULL, NULL, &ts,
				    &waitmask);
			}
			continue;
		}
		/*
		 * ppoll lets the signals in only when it has to wait: take
		 * them now, or while connections keep coming SIGTERM and
		 * SIGCHLD would wait for a lull.
		 */
		sigprocmask(SIG_SETMASK, &waitmask, NULL);
		sigprocmask(SIG_BLOCK, &block, NULL);
		for (i = 0; i < l->n && !got_term; i++)
			if ((pfd[i].revents & POLLIN) &&
			    accept_one(st, l, l->fd[i], &waitmask) == -1) {
				resume = now_ms() + ACCEPTPAUSE;
				break;
			}
	}
}

/* After SIGTERM: close the sockets, remove the pid file. */
static void
stop(const struct settings *st, const struct listeners *l)
{
	int	 i;

	log_info("shutting down (%zu sessions still running)", nkids);
	for (i = 0; i < l->n; i++)
		close(l->fd[i]);
	if (st->pidfile != NULL)
		(void)unlinkat(st->piddir, st->pidbase, 0);
}

int
main(int argc, char *argv[])
{
	struct settings		 st;
	struct listeners	 l;

	/* Until start() hands the log to syslog, errors go to stderr. */
	log_init("cairnd", LOG_TO_STDERR | LOG_PREFIX, 0);
	/* A bad command line exits 2; failing to start exits 1. */
	log_setfatalstatus(2);
	parse_options(argc, argv, &st);
	check_options(&st);
	log_setfatalstatus(1);
	if (st.warm != NULL)
		exit(warm(&st));
	start(&st, &l);
	serve(&st, &l);
	stop(&st, &l);
	exit(0);
}
