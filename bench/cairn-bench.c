/*
 * cairn-bench: sweep compression levels across network links and report
 * where compression stops paying off.
 *
 * For every link and level it runs the pull path an administrator runs
 * (ktcheck, fsdiff -A, lapply, all with -c sha1) into an empty root,
 * against a cairnd started for the run, through a relay that emulates
 * the link (bench/relay.c) and counts the bytes on the wire.  Server
 * CPU comes from wait4 on cairnd (its reaped session children included),
 * client CPU from wait4 on the tools.
 */
#include "config.h"

#include <sys/types.h>
#ifdef __linux__
#include <sys/mount.h>
#endif
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cerr.h"
#include "compat.h"
#include "fsutil.h"
#include "relay.h"
#include "xmalloc.h"

#ifndef CAIRN_SRCDIR
#define CAIRN_SRCDIR	""
#endif

#define MAXLEVEL	9
#define MAXLINKS	32
#define MAXREPS		99
#define TNAME		"bench.T"
#define KNAME		"bench.K"

enum {
	EXIT_OK = 0,
	EXIT_USAGE = 1,
	EXIT_FAIL = 2
};

struct profile {
	const char	*name;
	uint64_t	 rate;		/* bit/s, 0 = unshaped */
	uint64_t	 rtt_us;
};

static const struct profile profiles[] = {
	{ "loopback",		0,		0 },
	{ "10gbit",		10000000000ULL,	0 },
	{ "gigabit",		1000000000ULL,	0 },
	{ "fast-ethernet",	100000000ULL,	0 },
	{ "802.11g",		20000000ULL,	4000 },
	{ "dsl",		8000000ULL,	20000 },
	{ "3g",			2000000ULL,	100000 },
	{ "modem",		56000ULL,	150000 },
};
#define NPROFILES	(sizeof(profiles) / sizeof(profiles[0]))
#define DEFAULT_LINKS	"loopback gigabit fast-ethernet 802.11g dsl"

/* One measured run of the pull path. */
struct run {
	double		 wall;		/* ktcheck + fsdiff + lapply, s */
	double		 lapply;	/* lapply alone, s */
	double		 srv_cpu;	/* s, -1 when unknown (remote) */
	double		 cli_cpu;	/* s, the three tools */
	uint64_t	 wire_down, wire_up;
	uint64_t	 tool_raw_in;	/* from a tool's byte summary, 0 none */
	uint64_t	 srv_raw_out;	/* from cairnd's session lines, 0 none */
	uint64_t	 srv_wire_out;
};

/* Medians over the runs of one (link, level). */
struct cell {
	struct run	*runs;
	int		 nruns;
	double		 t_med, t_min, t_max, lapply_med;
	double		 srv_med, cli_med;
	uint64_t	 down_med, up_med, raw_med;
};

struct link {
	char		*name;
	uint64_t	 rate;		/* bit/s, 0 = unshaped */
	uint64_t	 rtt_us;
	/* Level-0 check of the link. */
	double		 delivered;	/* bit/s over the transfer */
	double		 busy_rate;	/* bit/s while the link had data */
	int		 flagged;
	int		 best;		/* index into levels */
	struct cell	 cells[MAXLEVEL + 1];
};

struct bench {
	/* Options. */
	int		 levels[MAXLEVEL + 1];
	int		 nlevels;
	struct link	 links[MAXLINKS];
	int		 nlinks;
	int		 reps;
	const char	*data;
	uint64_t	 corpus_size;
	const char	*csv, *svg, *runs_csv;
	const char	*bindir;
	const char	*server;	/* host:port of a remote cairnd */
	const char	*make_repo;
	char		*work;
	int		 keep, quiet;
	/* Tools. */
	char		*ktcheck, *fsdiff, *lapply, *cairnd;
	/* Repository. */
	char		*repo;
	uint64_t	 raw_bytes;	/* regular file bytes in the corpus */
	uint64_t	 nfiles;
	const char	*corpus_desc;
	struct sockaddr_in remote;
	/* --shaper tc: two network namespaces joined by a veth pair. */
	int		 tc;
	char		*ip, *tcbin;
	char		 ns_srv[32], ns_cli[32], veth_srv[16], veth_cli[16];
	struct in_addr	 addr_srv, addr_cli;
	int		 netns_fd;	/* the client namespace, or -1 */
	/* Progress. */
	int		 done, total;
	int		 tty;
};

static volatile sig_atomic_t	 server_pid_sig;
/* For teardown from die() and signal handlers: "ip" and the namespaces. */
static char			*tc_ip;
static char			 tc_ns[2][32];

static void	 tc_teardown(void);

static void	 usage(void) __attribute__((noreturn));
static void	 die(const char *, ...)
		    __attribute__((format(printf, 1, 2), noreturn));
static void	 baduse(const char *, ...)
		    __attribute__((format(printf, 1, 2), noreturn));
static void	 warnmsg(const char *, ...)
		    __attribute__((format(printf, 1, 2)));

static void
usage(void)
{
	fprintf(stderr,
	    "usage: cairn-bench [-kq] [-B bindir] [-d dir | -s size] "
	    "[-l levels]\n"
	    "\t[-L link]... [-n reps] [-w workdir] [--csv file] "
	    "[--svg file]\n"
	    "\t[--runs-csv file] [--shaper relay | tc] [--server host:port] "
	    "[--make-repo dir]\n");
	exit(EXIT_USAGE);
}

/* "cairn-bench: message" on stderr. */
static void
vmsg(const char *fmt, va_list ap)
{
	fputs("cairn-bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

static void
die(const char *fmt, ...)
{
	va_list	ap;

	if (server_pid_sig > 0)
		kill(server_pid_sig, SIGTERM);
	tc_teardown();
	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(EXIT_FAIL);
}

/* A usage error: the message, exit 1. */
static void
baduse(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(EXIT_USAGE);
}

static void
warnmsg(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

static void
on_signal(int sig)
{
	if (server_pid_sig > 0)
		kill(server_pid_sig, SIGTERM);
	tc_teardown();
	signal(sig, SIG_DFL);
	raise(sig);
}

static double
now_s(void)
{
	return relay_now_ns() / 1e9;
}

/* ------------------------------------------------------------------ */
/* Parsing of option values. */

/*
 * The number a unit-suffixed value starts with: finite, not negative.
 * *end points at the suffix.  Returns 0 or -1.
 */
static int
parse_leading(const char *s, double *v, char **end)
{
	errno = 0;
	*v = strtod(s, end);
	if (*end == s || errno != 0 || *v < 0 || !isfinite(*v))
		return -1;
	return 0;
}

/* "20mbit", "56kbit", "1gbit", "800bit" or a plain bit/s count. */
static int
parse_rate(const char *s, uint64_t *out)
{
	char	*end;
	double	 v;

	if (parse_leading(s, &v, &end) == -1)
		return -1;
	if (strcasecmp(end, "") == 0 || strcasecmp(end, "bit") == 0)
		;
	else if (strcasecmp(end, "kbit") == 0)
		v *= 1e3;
	else if (strcasecmp(end, "mbit") == 0)
		v *= 1e6;
	else if (strcasecmp(end, "gbit") == 0)
		v *= 1e9;
	else
		return -1;
	if (v > 1e12 || (v != 0 && v < 1000))
		return -1;
	*out = (uint64_t)(v + 0.5);
	return 0;
}

/* "4ms", "150ms", "500us", "1s", "0". */
static int
parse_time_us(const char *s, uint64_t *out)
{
	char	*end;
	double	 v;

	if (parse_leading(s, &v, &end) == -1)
		return -1;
	if (strcmp(end, "ms") == 0)
		v *= 1e3;
	else if (strcmp(end, "s") == 0)
		v *= 1e6;
	else if (strcmp(end, "us") == 0 || (*end == '\0' && v == 0))
		;
	else
		return -1;
	if (v > 10e6)
		return -1;
	*out = (uint64_t)(v + 0.5);
	return 0;
}

/* "16M", "500K", "1G" or bytes. */
static int
parse_size(const char *s, uint64_t *out)
{
	char	*end;
	double	 v;

	if (parse_leading(s, &v, &end) == -1 || v == 0)
		return -1;
	switch (toupper((unsigned char)*end)) {
	case '\0':
		break;
	case 'K':
		v *= 1024;
		end++;
		break;
	case 'M':
		v *= 1024 * 1024;
		end++;
		break;
	case 'G':
		v *= 1024.0 * 1024 * 1024;
		end++;
		break;
	default:
		return -1;
	}
	if (*end != '\0' && strcasecmp(end, "B") != 0)
		return -1;
	if (v < 1024 || v > 64.0 * 1024 * 1024 * 1024)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

/* "0-9", "0,1,6", "0-3,9": sorted, without duplicates. */
static int
parse_levels(struct bench *b, const char *s)
{
	int		 want[MAXLEVEL + 1] = { 0 };
	const char	*p = s;
	char		*end;
	long		 lo, hi, i;

	while (*p != '\0') {
		errno = 0;
		lo = strtol(p, &end, 10);
		if (end == p || lo < 0 || lo > MAXLEVEL)
			return -1;
		hi = lo;
		p = end;
		if (*p == '-') {
			p++;
			hi = strtol(p, &end, 10);
			if (end == p || hi < lo || hi > MAXLEVEL)
				return -1;
			p = end;
		}
		for (i = lo; i <= hi; i++)
			want[i] = 1;
		if (*p == ',')
			p++;
		else if (*p != '\0')
			return -1;
	}
	b->nlevels = 0;
	for (i = 0; i <= MAXLEVEL; i++)
		if (want[i])
			b->levels[b->nlevels++] = (int)i;
	return b->nlevels > 0 ? 0 : -1;
}

/*
 * A link: a profile name, "rate=R,rtt=T[,name=N]", or a profile name
 * followed by such overrides ("dsl,rtt=40ms").
 */
static int
parse_link(struct bench *b, const char *spec)
{
	struct link	*l;
	char		*copy, *tok, *save = NULL, *eq;
	char		 nm[96], rt[32], rtt[32];
	size_t		 i;
	int		 custom = 0, named = 0;

	if (b->nlinks == MAXLINKS)
		baduse("more than %d links", MAXLINKS);
	l = &b->links[b->nlinks];
	memset(l, 0, sizeof(*l));
	copy = xstrdup(spec);
	for (tok = strtok_r(copy, ",", &save); tok != NULL;
	    tok = strtok_r(NULL, ",", &save)) {
		if ((eq = strchr(tok, '=')) == NULL) {
			for (i = 0; i < NPROFILES; i++)
				if (strcasecmp(tok, profiles[i].name) == 0)
					break;
			if (i == NPROFILES || named || custom) {
				free(copy);
				return -1;
			}
			l->name = xstrdup(profiles[i].name);
			l->rate = profiles[i].rate;
			l->rtt_us = profiles[i].rtt_us;
			named = 1;
			continue;
		}
		*eq++ = '\0';
		custom = 1;
		if (strcmp(tok, "rate") == 0) {
			if (parse_rate(eq, &l->rate) == -1) {
				free(copy);
				return -1;
			}
		} else if (strcmp(tok, "rtt") == 0) {
			if (parse_time_us(eq, &l->rtt_us) == -1) {
				free(copy);
				return -1;
			}
		} else if (strcmp(tok, "name") == 0 && *eq != '\0' &&
		    strcspn(eq, " \t\",") == strlen(eq)) {
			free(l->name);
			l->name = xstrdup(eq);
			named = 2;
		} else {
			free(copy);
			return -1;
		}
	}
	free(copy);
	if (!named && !custom)
		return -1;
	if (named != 2 && custom) {
		/* A custom link is named by its setting. */
		if (l->rate == 0)
			snprintf(rt, sizeof(rt), "unshaped");
		else
			snprintf(rt, sizeof(rt), "%.4g%s",
			    l->rate >= 1000000000 ? l->rate / 1e9 :
			    l->rate >= 1000000 ? l->rate / 1e6 :
			    l->rate / 1e3, l->rate >= 1000000000 ? "gbit" :
			    l->rate >= 1000000 ? "mbit" : "kbit");
		if (l->rtt_us)
			snprintf(rtt, sizeof(rtt), "/%.4gms", l->rtt_us / 1e3);
		else
			rtt[0] = '\0';
		snprintf(nm, sizeof(nm), "%s%s%s%s", named ? l->name : "",
		    named ? "@" : "", rt, rtt);
		free(l->name);
		l->name = xstrdup(nm);
	}
	b->nlinks++;
	return 0;
}

/* ------------------------------------------------------------------ */
/* Files and processes. */

static int
exists_x(const char *p)
{
	struct stat	st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(p, X_OK) == 0;
}

/* The directory holding this executable, or NULL. */
static char *
self_dir(void)
{
	char	buf[PATH_MAX], *s;
	ssize_t	n;

	if ((n = readlink("/proc/self/exe", buf, sizeof(buf) - 1)) <= 0)
		return NULL;
	buf[n] = '\0';
	if ((s = strrchr(buf, '/')) == NULL)
		return NULL;
	*s = '\0';
	return xstrdup(buf);
}

/*
 * Find a tool: --bindir, next to cairn-bench (and ../server, ../sbin for
 * a build tree or an installed prefix), then PATH.  NULL if none.
 */
static char *
find_tool(const struct bench *b, const char *name)
{
	const char	*subs[] = { ".", "../server", "../sbin", "../client",
			    "../bin" };
	char		*dir, *p, *path, *tok, *save = NULL;
	size_t		 i;

	if (b->bindir != NULL) {
		for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
			xasprintf(&p, "%s/%s/%s", b->bindir, subs[i], name);
			if (exists_x(p))
				return p;
			free(p);
		}
	}
	if ((dir = self_dir()) != NULL) {
		for (i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
			xasprintf(&p, "%s/%s/%s", dir, subs[i], name);
			if (exists_x(p)) {
				free(dir);
				return p;
			}
			free(p);
		}
		free(dir);
	}
	if ((path = getenv("PATH")) == NULL)
		return NULL;
	path = xstrdup(path);
	for (tok = strtok_r(path, ":", &save); tok != NULL;
	    tok = strtok_r(NULL, ":", &save)) {
		xasprintf(&p, "%s/%s", *tok ? tok : ".", name);
		if (exists_x(p)) {
			free(path);
			return p;
		}
		free(p);
	}
	free(path);
	return NULL;
}

/* rm -rf, bounded by the tree; errors are reported and fatal. */
static void
rmtree(const char *path)
{
	if (fs_rmtreeat(AT_FDCWD, path) == -1)
		die("rm %s: %s", path, strerror(errno));
}

static void
xmkdir(const char *p)
{
	if (mkdir(p, 0755) == -1 && errno != EEXIST)
		die("mkdir %s: %s", p, strerror(errno));
}

/* mkdir -p. */
static void
xmkdir_p(const char *path)
{
	char	*p, *s;

	p = xstrdup(path);
	for (s = p + 1; *s != '\0'; s++)
		if (*s == '/') {
			*s = '\0';
			xmkdir(p);
			*s = '/';
		}
	xmkdir(p);
	free(p);
}

static void
write_file(const char *path, const char *text)
{
	FILE	*fp;

	if ((fp = fopen(path, "w")) == NULL)
		die("%s: %s", path, strerror(errno));
	if (fputs(text, fp) == EOF || fclose(fp) == EOF)
		die("%s: write: %s", path, strerror(errno));
}

static double
tv_s(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

/* Start argv in cwd with stdout and stderr to log.  Returns the pid. */
static pid_t
spawn(char *const argv[], const char *cwd, const char *log)
{
	pid_t	pid;
	int	fd;

	if ((pid = fork()) == -1)
		die("fork: %s", strerror(errno));
	if (pid == 0) {
		if (cwd != NULL && chdir(cwd) == -1)
			_exit(126);
		if ((fd = open("/dev/null", O_RDONLY)) != -1) {
			dup2(fd, 0);
			close(fd);
		}
		if ((fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644)) !=
		    -1) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/*
 * Run a tool to completion.  Returns its exit status (or 128 + signal);
 * *cpu gets its user + system time.
 */
static int
run_tool(char *const argv[], const char *cwd, const char *log, double *cpu)
{
	struct rusage	ru;
	pid_t		pid;
	int		st;

	pid = spawn(argv, cwd, log);
	while (wait4(pid, &st, 0, &ru) == -1)
		if (errno != EINTR)
			die("wait4: %s", strerror(errno));
	*cpu += tv_s(&ru.ru_utime) + tv_s(&ru.ru_stime);
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

/* Print the last lines of a log to stderr. */
static void
show_log(const char *log)
{
	char	buf[4096];
	FILE	*fp;
	long	len;
	size_t	n;

	if ((fp = fopen(log, "r")) == NULL)
		return;
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	fseek(fp, len > (long)sizeof(buf) - 1 ? len - (long)sizeof(buf) + 1 :
	    0, SEEK_SET);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	fprintf(stderr, "--- end of %s ---\n%s%s---\n", log, buf,
	    n > 0 && buf[n - 1] != '\n' ? "\n" : "");
}

/*
 * Scan a tool log for its byte summary, "bytes: sent raw N wire N,
 * received raw N wire N" (any case, spacing tolerated); returns the
 * received raw count, 0 if there is none.
 */
static uint64_t
log_raw_in(const char *log)
{
	char		 line[1024], *p;
	FILE		*fp;
	uint64_t	 v = 0;
	unsigned long long	rin, win, rout, wout;

	if ((fp = fopen(log, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp) != NULL) {
		if ((p = strstr(line, "bytes:")) == NULL)
			continue;
		/* "bytes: sent raw N wire N, received raw N wire N" */
		if (sscanf(p, "bytes: sent raw %llu wire %llu, received raw "
		    "%llu wire %llu", &rout, &wout, &rin, &win) == 4)
			v += rin;
	}
	/* lapply -v and ktcheck -v: "zlib stats +++ In: raw:wire ...". */
	rewind(fp);
	while (v == 0 && fgets(line, sizeof(line), fp) != NULL)
		if ((p = strstr(line, "zlib stats +++ In:")) != NULL &&
		    sscanf(p, "zlib stats +++ In: %llu:%llu", &rin, &win) == 2)
			v += rin;
	fclose(fp);
	return v;
}

/*
 * Sum the bytes cairnd says it sent in its "session end: zlib level N,
 * sent R bytes (W on the wire, ..." lines (printed in the foreground).
 */
static void
log_server_bytes(const char *log, uint64_t *raw, uint64_t *wire)
{
	char			 line[1024], *p;
	FILE			*fp;
	unsigned long long	 r, w;
	int			 lv;

	*raw = *wire = 0;
	if ((fp = fopen(log, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL)
		if ((p = strstr(line, "session end: zlib level ")) != NULL &&
		    sscanf(p, "session end: zlib level %d, sent %llu bytes "
		    "(%llu on the wire", &lv, &r, &w) == 3) {
			*raw += r;
			*wire += w;
		}
	fclose(fp);
}

/* ------------------------------------------------------------------ */
/* The server. */

static uint16_t
free_port(void)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);
	int			fd;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		die("socket: %s", strerror(errno));
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		die("bind 127.0.0.1: %s", strerror(errno));
	close(fd);
	return ntohs(sin.sin_port);
}

/*
 * Whether something in the network namespace of pid listens on
 * addr:port, from /proc/pid/net/tcp (so that no probe connection costs
 * the server a session).  -1 if the file cannot be read.
 */
static int
proc_listening(pid_t pid, struct in_addr addr, uint16_t port)
{
	char		 line[512];
	FILE		*fp;
	unsigned	 a, p, st;
	int		 found = 0;

	/* The table of pid's network namespace. */
	snprintf(line, sizeof(line), "/proc/%ld/net/tcp", (long)pid);
	if ((fp = fopen(line, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, " %*u: %8X:%4X %*8X:%*4X %2X", &a, &p,
		    &st) == 3 && p == port && st == 0x0A &&
		    a == addr.s_addr)
			found = 1;
	fclose(fp);
	return found;
}

static void
sleep_ms(int ms)
{
	struct timespec	ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Start cairnd on a free port; returns its pid, or -1 if it exited. */
static pid_t
server_start(struct bench *b, uint16_t *portp)
{
	char		*argv[16], pbuf[16], abuf[INET_ADDRSTRLEN], *log;
	struct in_addr	 addr;
	uint16_t	 port;
	pid_t		 pid;
	int		 i, st, r;

	port = free_port();
	snprintf(pbuf, sizeof(pbuf), "%u", port);
	addr.s_addr = htonl(INADDR_LOOPBACK);
	if (b->tc)
		addr = b->addr_srv;
	inet_ntop(AF_INET, &addr, abuf, sizeof(abuf));
	xasprintf(&log, "%s/cairnd.log", b->work);
	i = 0;
	if (b->tc) {
		/* ip netns exec runs the command in place: pid is cairnd. */
		argv[i++] = b->ip;
		argv[i++] = "netns";
		argv[i++] = "exec";
		argv[i++] = b->ns_srv;
	}
	argv[i++] = b->cairnd;
	argv[i++] = "-f";
	argv[i++] = "-Z";
	argv[i++] = "9";
	argv[i++] = "-D";
	argv[i++] = b->repo;
	argv[i++] = "-a";
	argv[i++] = abuf;
	argv[i++] = "-p";
	argv[i++] = pbuf;
	argv[i] = NULL;
	pid = spawn(argv, b->repo, log);
	server_pid_sig = pid;
	/* Bounded: 1000 x 5 ms. */
	for (i = 0; i < 1000; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			server_pid_sig = 0;
			free(log);
			return -1;
		}
		r = proc_listening(pid, addr, port);
		if (r == 1)
			break;
		if (r == -1 && !b->tc) {
			struct sockaddr_in	sin;
			int			fd;

			memset(&sin, 0, sizeof(sin));
			sin.sin_family = AF_INET;
			sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
			sin.sin_port = htons(port);
			fd = socket(AF_INET, SOCK_STREAM, 0);
			if (fd != -1 && connect(fd, (struct sockaddr *)&sin,
			    sizeof(sin)) == 0) {
				close(fd);
				break;
			}
			if (fd != -1)
				close(fd);
		}
		sleep_ms(5);
	}
	if (i == 1000) {
		kill(pid, SIGKILL);
		waitpid(pid, &st, 0);
		server_pid_sig = 0;
		show_log(log);
		die("cairnd did not listen on %s:%u within 5 s", abuf, port);
	}
	free(log);
	*portp = port;
	return pid;
}

/* Number of live or unreaped children of pid (from /proc). */
static int
count_children(pid_t pid)
{
	struct dirent	*de;
	char		 path[300], buf[512], *p;
	DIR		*d;
	FILE		*fp;
	long		 ppid;
	int		 n = 0;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		if (fgets(buf, sizeof(buf), fp) != NULL &&
		    (p = strrchr(buf, ')')) != NULL &&
		    sscanf(p + 1, " %*c %ld", &ppid) == 1 && ppid == pid)
			n++;
		fclose(fp);
	}
	closedir(d);
	return n;
}

/*
 * Stop cairnd once its session children are gone (so their CPU time has
 * been added to its own) and return its CPU seconds, -1 if some child
 * was still there after 5 s.
 */
static double
server_stop(pid_t pid)
{
	struct rusage	ru;
	int		i, st, left = 0;

	for (i = 0; i < 1000; i++) {
		if ((left = count_children(pid)) == 0)
			break;
		sleep_ms(5);
	}
	kill(pid, SIGTERM);
	while (wait4(pid, &st, 0, &ru) == -1)
		if (errno != EINTR)
			die("wait4 cairnd: %s", strerror(errno));
	server_pid_sig = 0;
	if (left > 0)
		return -1;
	return tv_s(&ru.ru_utime) + tv_s(&ru.ru_stime);
}

/* ------------------------------------------------------------------ */
/* The repository. */

/*
 * Mirror the regular files and directories of src under dst: hard links
 * where possible, copies otherwise.  Counts bytes of distinct files.
 */
static void
mirror(struct bench *b, const char *src, const char *dst)
{
	struct stat	 st;
	struct dirent	*de;
	DIR		*d;
	char		*s, *t, buf[65536];
	ssize_t		 n;
	int		 in, out;

	if ((d = opendir(src)) == NULL)
		die("%s: %s", src, strerror(errno));
	xmkdir(dst);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		xasprintf(&s, "%s/%s", src, de->d_name);
		xasprintf(&t, "%s/%s", dst, de->d_name);
		if (lstat(s, &st) == -1)
			die("%s: %s", s, strerror(errno));
		if (S_ISDIR(st.st_mode))
			mirror(b, s, t);
		else if (S_ISREG(st.st_mode)) {
			if (st.st_nlink == 1 || access(t, F_OK) != 0) {
				b->raw_bytes += (uint64_t)st.st_size;
				b->nfiles++;
			}
			if (link(s, t) == -1 && errno != EEXIST) {
				if ((in = open(s, O_RDONLY)) == -1)
					die("%s: %s", s, strerror(errno));
				if ((out = open(t, O_WRONLY | O_CREAT |
				    O_TRUNC, 0644)) == -1)
					die("%s: %s", t, strerror(errno));
				while ((n = read(in, buf, sizeof(buf))) > 0)
					if (write(out, buf, (size_t)n) != n)
						die("%s: write: %s", t,
						    strerror(errno));
				if (n == -1)
					die("%s: read: %s", s,
					    strerror(errno));
				close(in);
				if (close(out) == -1)
					die("%s: %s", t, strerror(errno));
			}
		}
		free(s);
		free(t);
	}
	closedir(d);
}

/* A small deterministic generator (xorshift64*). */
static uint64_t
rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/*
 * The built-in corpus, used when bench/gen-corpus is not found: by
 * bytes 25% configuration-like text, 25% C-like source, 30% log lines,
 * 20% random bytes (stand-in for media and archives).
 */
static void
gen_builtin(const char *dir, uint64_t size)
{
	static const char *words[] = { "the", "of", "and", "to", "in",
	    "server", "client", "file", "path", "buffer", "socket", "port",
	    "timeout", "enable", "disable", "allow", "deny", "kernel",
	    "module", "daemon", "process", "error", "warning", "config",
	    "transcript", "compression", "level", "stream", "block",
	    "size", "count", "limit", "memory", "owner", "flags", "if",
	    "return", "int", "char", "struct", "static", "void", "=",
	    "{", "}", ";", "(", ")", "0", "1", "NULL", "#", "\n", "\n\t" };
	static const struct {
		const char	*sub;
		int		 pct;
		uint64_t	 lo, hi;
		int		 random;
	} cls[] = {
		{ "etc", 25, 1024, 20480, 0 },
		{ "usr/src", 25, 2048, 40960, 0 },
		{ "var/log", 30, 65536, 1048576, 0 },
		{ "usr/share/media", 20, 16384, 262144, 1 },
	};
	uint64_t	 seed = 0x5eed5eedULL, share, made, len, i, r;
	char		*p, *q, *buf;
	size_t		 c, k, w, nw = sizeof(words) / sizeof(words[0]);
	FILE		*fp;
	int		 f;

	buf = xmalloc(1048576 + 64);
	xasprintf(&p, "%s/usr", dir);
	xmkdir(dir);
	xmkdir(p);
	free(p);
	for (c = 0; c < sizeof(cls) / sizeof(cls[0]); c++) {
		xasprintf(&p, "%s/%s", dir, cls[c].sub);
		xmkdir_p(p);
		share = size * (uint64_t)cls[c].pct / 100;
		for (made = 0, f = 0; made < share; f++) {
			len = cls[c].lo + rng_next(&seed) %
			    (cls[c].hi - cls[c].lo);
			if (len > share - made)
				len = share - made;
			if (cls[c].random)
				for (i = 0; i < len; i += 8) {
					r = rng_next(&seed);
					memcpy(buf + i, &r, 8);
				}
			else
				for (i = 0; i < len; ) {
					k = (size_t)(rng_next(&seed) % nw);
					/* Skewed: low words more often. */
					k = k * k / nw;
					w = strlen(words[k]);
					memcpy(buf + i, words[k], w);
					i += w;
					buf[i++] = ' ';
				}
			xasprintf(&q, "%s/f%04d%s", p, f,
			    cls[c].random ? ".bin" : ".txt");
			if ((fp = fopen(q, "w")) == NULL ||
			    fwrite(buf, 1, (size_t)len, fp) != len ||
			    fclose(fp) == EOF)
				die("%s: %s", q, strerror(errno));
			free(q);
			made += len;
		}
		free(p);
	}
	free(buf);
}

/* Build the corpus into dir with bench/gen-corpus, or the built-in one. */
static void
make_corpus(struct bench *b, const char *dir)
{
	char		*gen = NULL, *sd, *argv[6], *log, sz[32];
	const char	*env;
	double		 cpu = 0;
	int		 st;

	if ((env = getenv("CAIRN_GEN_CORPUS")) != NULL && exists_x(env))
		gen = xstrdup(env);
	if (gen == NULL && (sd = self_dir()) != NULL) {
		xasprintf(&gen, "%s/gen-corpus", sd);
		if (!exists_x(gen)) {
			free(gen);
			xasprintf(&gen, "%s/../bench/gen-corpus", sd);
		}
		if (!exists_x(gen)) {
			free(gen);
			gen = NULL;
		}
		free(sd);
	}
	if (gen == NULL && *CAIRN_SRCDIR != '\0') {
		xasprintf(&gen, "%s/bench/gen-corpus", CAIRN_SRCDIR);
		if (!exists_x(gen)) {
			free(gen);
			gen = NULL;
		}
	}
	if (gen == NULL)
		gen = find_tool(b, "gen-corpus");
	if (b->corpus_size < 1024 * 1024) {
		/* gen-corpus makes 1 MiB and more. */
		free(gen);
		gen = NULL;
	}
	if (gen == NULL) {
		b->corpus_desc = "built-in generated corpus";
		gen_builtin(dir, b->corpus_size);
		return;
	}
	snprintf(sz, sizeof(sz), "%" PRIu64, b->corpus_size);
	xasprintf(&log, "%s/gen-corpus.log", b->work);
	argv[0] = gen;
	argv[1] = (char *)dir;
	argv[2] = sz;
	argv[3] = NULL;
	if ((st = run_tool(argv, NULL, log, &cpu)) != 0) {
		show_log(log);
		die("%s exited with status %d", gen, st);
	}
	b->corpus_desc = "corpus from gen-corpus";
	free(log);
	free(gen);
}

/*
 * The repository: transcript/bench.T made by fsdiff -C -c sha1 of the
 * data, its files under file/bench.T/, command/bench.K and a config
 * giving bench.K to every host.
 */
static void
make_repo(struct bench *b, const char *repo)
{
	char	*data, *p, *k, *argv[10], *log;
	double	 cpu = 0;
	int	 st;

	if (b->data != NULL) {
		if ((data = realpath(b->data, NULL)) == NULL)
			die("%s: %s", b->data, strerror(errno));
		b->corpus_desc = "data";
	} else {
		xasprintf(&data, "%s/corpus", b->work);
		if (access(data, F_OK) != 0)
			make_corpus(b, data);
	}
	rmtree(repo);
	xmkdir(repo);
	xasprintf(&p, "%s/transcript", repo);
	xmkdir(p);
	free(p);
	xasprintf(&p, "%s/command", repo);
	xmkdir(p);
	free(p);
	xasprintf(&p, "%s/file", repo);
	xmkdir(p);
	free(p);
	xasprintf(&p, "%s/command/" KNAME, repo);
	write_file(p, "p " TNAME "\n");
	free(p);
	xasprintf(&p, "%s/config", repo);
	write_file(p, "* " KNAME "\n");
	free(p);

	xasprintf(&k, "%s/empty.K", b->work);
	write_file(k, "");
	xasprintf(&p, "%s/transcript/" TNAME, repo);
	xasprintf(&log, "%s/fsdiff-C.log", b->work);
	argv[0] = b->fsdiff;
	argv[1] = "-C";
	argv[2] = "-c";
	argv[3] = "sha1";
	argv[4] = "-K";
	argv[5] = k;
	argv[6] = "-o";
	argv[7] = p;
	argv[8] = ".";
	argv[9] = NULL;
	unlink(log);
	if ((st = run_tool(argv, data, log, &cpu)) != 0) {
		show_log(log);
		die("fsdiff -C of %s exited with status %d", data, st);
	}
	free(p);
	free(k);
	free(log);
	xasprintf(&p, "%s/file/" TNAME, repo);
	b->raw_bytes = b->nfiles = 0;
	mirror(b, data, p);
	free(p);
	free(data);
}

/* ------------------------------------------------------------------ */
/* --shaper tc: namespaces, veth and tbf. */

/* Run "ip"/"tc" with the given words; returns the exit status. */
static int
tc_run(struct bench *b, const char *tool, ...)
{
	va_list	 ap;
	char	*argv[24], *log;
	double	 cpu = 0;
	int	 i = 0, st;

	argv[i++] = (char *)tool;
	va_start(ap, tool);
	while (i < 23 && (argv[i] = va_arg(ap, char *)) != NULL)
		i++;
	va_end(ap);
	argv[i] = NULL;
	xasprintf(&log, "%s/tc.log", b->work);
	st = run_tool(argv, NULL, log, &cpu);
	free(log);
	return st;
}

/*
 * Remove the namespaces (their veth ends go with them).  "ip netns del"
 * first; if its file is still there (a mount left busy by a session
 * that is still exiting), detach and unlink it here, a few times over
 * 200 ms; a namespace that still stays is named on stderr.  Uses only
 * fork, execv, waitpid and plain system calls, so a signal handler may
 * call it.
 */
static void
tc_teardown(void)
{
	static const struct timespec pause = { 0, 200000000 };
	char	*argv[5], path[96];
	pid_t	 pid;
	int	 k, st, fd, tries;

	if (tc_ip == NULL)
		return;
	for (k = 0; k < 2; k++) {
		if (tc_ns[k][0] == '\0')
			continue;
		argv[0] = tc_ip;
		argv[1] = "netns";
		argv[2] = "del";
		argv[3] = tc_ns[k];
		argv[4] = NULL;
		if ((pid = fork()) == 0) {
			if ((fd = open("/dev/null", O_WRONLY)) != -1) {
				dup2(fd, 1);
				dup2(fd, 2);
			}
			execv(argv[0], argv);
			_exit(127);
		}
		if (pid > 0)
			while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
				;
		snprintf(path, sizeof(path), "/var/run/netns/%s", tc_ns[k]);
		for (tries = 0; tries < 3 && access(path, F_OK) == 0;
		    tries++) {
#ifdef __linux__
			(void)umount2(path, MNT_DETACH);
#endif
			if (unlink(path) == 0 || errno == ENOENT)
				break;
			nanosleep(&pause, NULL);
		}
		if (access(path, F_OK) == 0) {
			static const char m1[] = "cairn-bench: network "
			    "namespace left behind: ";
			static const char m2[] = " (remove it with ip netns "
			    "del)\n";

			(void)!write(STDERR_FILENO, m1, sizeof(m1) - 1);
			(void)!write(STDERR_FILENO, tc_ns[k],
			    strlen(tc_ns[k]));
			(void)!write(STDERR_FILENO, m2, sizeof(m2) - 1);
		}
		tc_ns[k][0] = '\0';
	}
}

/*
 * Two namespaces, server and client, joined by a veth pair with
 * 10.231.N.1 (server) and 10.231.N.2 (client), loopback up in both.
 */
static void
tc_setup(struct bench *b)
{
	char	*p, a[32];
	unsigned n = (unsigned)getpid() % 250 + 1;
	int	 st;

	if (geteuid() != 0)
		baduse("--shaper tc needs root (network namespaces, tc)");
	if ((b->ip = find_tool(b, "ip")) == NULL ||
	    (b->tcbin = find_tool(b, "tc")) == NULL)
		baduse("--shaper tc needs ip and tc (Debian package "
		    "iproute2)");
	tc_ip = b->ip;
	snprintf(b->ns_srv, sizeof(b->ns_srv), "cbench-%ld-srv",
	    (long)getpid());
	snprintf(b->ns_cli, sizeof(b->ns_cli), "cbench-%ld-cli",
	    (long)getpid());
	snprintf(b->veth_srv, sizeof(b->veth_srv), "cbs%ld",
	    (long)getpid() % 10000000);
	snprintf(b->veth_cli, sizeof(b->veth_cli), "cbc%ld",
	    (long)getpid() % 10000000);
	snprintf(a, sizeof(a), "10.231.%u.1", n);
	inet_pton(AF_INET, a, &b->addr_srv);
	snprintf(a, sizeof(a), "10.231.%u.2", n);
	inet_pton(AF_INET, a, &b->addr_cli);

	if (tc_run(b, b->ip, "netns", "add", b->ns_srv, NULL) != 0)
		goto fail;
	strlcpy(tc_ns[0], b->ns_srv, sizeof(tc_ns[0]));
	if (tc_run(b, b->ip, "netns", "add", b->ns_cli, NULL) != 0)
		goto fail;
	strlcpy(tc_ns[1], b->ns_cli, sizeof(tc_ns[1]));
	if (tc_run(b, b->ip, "link", "add", b->veth_srv, "netns", b->ns_srv,
	    "type", "veth", "peer", "name", b->veth_cli, "netns", b->ns_cli,
	    NULL) != 0)
		goto fail;
	snprintf(a, sizeof(a), "10.231.%u.1/30", n);
	st = tc_run(b, b->ip, "-n", b->ns_srv, "addr", "add", a, "dev",
	    b->veth_srv, NULL);
	snprintf(a, sizeof(a), "10.231.%u.2/30", n);
	st |= tc_run(b, b->ip, "-n", b->ns_cli, "addr", "add", a, "dev",
	    b->veth_cli, NULL);
	st |= tc_run(b, b->ip, "-n", b->ns_srv, "link", "set", b->veth_srv,
	    "up", NULL);
	st |= tc_run(b, b->ip, "-n", b->ns_cli, "link", "set", b->veth_cli,
	    "up", NULL);
	st |= tc_run(b, b->ip, "-n", b->ns_srv, "link", "set", "lo", "up",
	    NULL);
	st |= tc_run(b, b->ip, "-n", b->ns_cli, "link", "set", "lo", "up",
	    NULL);
	if (st != 0)
		goto fail;
	xasprintf(&p, "/var/run/netns/%s", b->ns_cli);
	if ((b->netns_fd = open(p, O_RDONLY | O_CLOEXEC)) == -1)
		die("%s: %s", p, strerror(errno));
	free(p);
	return;
fail:
	xasprintf(&p, "%s/tc.log", b->work);
	show_log(p);
	die("could not set up the network namespaces for --shaper tc");
}

/*
 * Shape both ends of the veth pair with tbf at the link's rate (or
 * remove the shaping for an unshaped link).  The delay stays with the
 * relay.
 */
static void
tc_shape(struct bench *b, const struct link *l)
{
	char		 rate[32], burst[32], *p;
	uint64_t	 bu;
	int		 k, st = 0;
	const char	*ns[2] = { b->ns_srv, b->ns_cli };
	const char	*dev[2] = { b->veth_srv, b->veth_cli };

	for (k = 0; k < 2; k++) {
		if (l->rate == 0) {
			tc_run(b, b->tcbin, "-n", ns[k], "qdisc", "del", "dev",
			    dev[k], "root", NULL);
			continue;
		}
		/* A bucket of 4 ms at the rate, at least two packets. */
		bu = l->rate / 8 / 250;
		if (bu < 3028)
			bu = 3028;
		snprintf(rate, sizeof(rate), "%" PRIu64 "bit", l->rate);
		snprintf(burst, sizeof(burst), "%" PRIu64, bu);
		st |= tc_run(b, b->tcbin, "-n", ns[k], "qdisc", "replace",
		    "dev", dev[k], "root", "tbf", "rate", rate, "burst", burst,
		    "latency", "100ms", NULL);
	}
	if (st != 0) {
		xasprintf(&p, "%s/tc.log", b->work);
		show_log(p);
		die("tc could not shape %s", l->name);
	}
}

/* ------------------------------------------------------------------ */
/* Runs. */

static void
progress(struct bench *b, const struct link *l, int level, int rep)
{
	char	bar[41];
	int	i, fill;

	if (b->quiet || !b->tty)
		return;
	fill = b->total ? b->done * 40 / b->total : 0;
	for (i = 0; i < 40; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[40] = '\0';
	fprintf(stderr, "\r\033[K[%s] %3d%% %d/%d %s -Z %d ", bar,
	    b->total ? b->done * 100 / b->total : 0, b->done, b->total,
	    l->name, level);
	if (rep)
		fprintf(stderr, "run %d/%d", rep, b->reps);
	else
		fprintf(stderr, "link check");
	fflush(stderr);
}

static void
progress_end(struct bench *b)
{
	if (!b->quiet && b->tty)
		fprintf(stderr, "\r\033[K");
}

/*
 * With --shaper tc, start argv with "ip netns exec <client namespace>"
 * (which execs the tool in place, so wait4 still sees the tool itself).
 * Returns the number of words put in.
 */
static int
ns_prefix(const struct bench *b, char *argv[])
{
	if (!b->tc)
		return 0;
	argv[0] = b->ip;
	argv[1] = "netns";
	argv[2] = "exec";
	argv[3] = (char *)b->ns_cli;
	return 4;
}

/*
 * One pull: ktcheck, fsdiff -A, lapply at level into an empty root.
 * *lst gets the relay counters of the lapply connection.
 */
static void
pull(struct bench *b, struct relay *r, int level, struct run *out,
    struct relay_stats *lst)
{
	struct relay_stats	 kst;
	struct sockaddr_in	 up;
	char			*run, *client, *root, *kfile, *apply, *log;
	char			*slog = NULL;
	char			 zb[4], pb[8], *argv[20];
	uint16_t		 port = 0;
	pid_t			 spid = -1;
	double			 t0, t1, t2, cpu = 0;
	int			 i, st;

	xasprintf(&run, "%s/run", b->work);
	rmtree(run);
	xmkdir(run);
	xasprintf(&client, "%s/client", run);
	xasprintf(&root, "%s/root", run);
	xasprintf(&kfile, "%s/command.K", client);
	xasprintf(&apply, "%s/apply.T", run);
	xasprintf(&log, "%s/tools.log", run);
	xmkdir(client);
	xmkdir(root);

	if (b->server == NULL) {
		/* One server log per run, for its byte counts. */
		xasprintf(&slog, "%s/cairnd.log", b->work);
		unlink(slog);
		for (i = 0; i < 3 && spid == -1; i++)
			spid = server_start(b, &port);
		if (spid == -1) {
			xasprintf(&run, "%s/cairnd.log", b->work);
			show_log(run);
			die("%s exited at start-up three times", b->cairnd);
		}
		memset(&up, 0, sizeof(up));
		up.sin_family = AF_INET;
		up.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (b->tc)
			up.sin_addr = b->addr_srv;
		up.sin_port = htons(port);
		relay_set_upstream(r, &up);
	}
	relay_stats(r, &kst, 1);
	snprintf(zb, sizeof(zb), "%d", level);
	snprintf(pb, sizeof(pb), "%u", relay_port(r));

	t0 = now_s();
	i = ns_prefix(b, argv);
	argv[i++] = b->ktcheck;
	argv[i++] = "-h";
	argv[i++] = "127.0.0.1";
	argv[i++] = "-p";
	argv[i++] = pb;
	argv[i++] = "-Z";
	argv[i++] = zb;
	argv[i++] = "-c";
	argv[i++] = "sha1";
	argv[i++] = "-K";
	argv[i++] = kfile;
	argv[i] = NULL;
	st = run_tool(argv, client, log, &cpu);
	if (st != 0 && st != 1) {
		show_log(log);
		die("ktcheck -Z %d exited with status %d (log: %s)", level,
		    st, log);
	}
	relay_stats(r, &kst, 1);

	i = 0;
	argv[i++] = b->fsdiff;
	argv[i++] = "-A";
	argv[i++] = "-c";
	argv[i++] = "sha1";
	argv[i++] = "-K";
	argv[i++] = kfile;
	argv[i++] = "-o";
	argv[i++] = apply;
	argv[i++] = ".";
	argv[i] = NULL;
	if ((st = run_tool(argv, root, log, &cpu)) != 0) {
		show_log(log);
		die("fsdiff -A exited with status %d (log: %s)", st, log);
	}

	t1 = now_s();
	i = ns_prefix(b, argv);
	argv[i++] = b->lapply;
	argv[i++] = "-h";
	argv[i++] = "127.0.0.1";
	argv[i++] = "-p";
	argv[i++] = pb;
	argv[i++] = "-Z";
	argv[i++] = zb;
	argv[i++] = "-c";
	argv[i++] = "sha1";
	argv[i++] = "-q";
	argv[i++] = apply;
	argv[i] = NULL;
	if ((st = run_tool(argv, root, log, &cpu)) != 0) {
		show_log(log);
		die("lapply -Z %d exited with status %d (log: %s)", level,
		    st, log);
	}
	t2 = now_s();
	relay_stats(r, lst, 1);

	out->wall = t2 - t0;
	out->lapply = t2 - t1;
	out->cli_cpu = cpu;
	out->srv_cpu = spid > 0 ? server_stop(spid) : -1;
	if (slog != NULL) {
		log_server_bytes(slog, &out->srv_raw_out, &out->srv_wire_out);
		free(slog);
	}
	if (spid > 0 && out->srv_cpu < 0)
		warnmsg("cairnd kept a session child for 5 s after the pull: "
		    "its CPU time is left out of this run");
	out->wire_down = kst.down.bytes + lst->down.bytes;
	out->wire_up = kst.up.bytes + lst->up.bytes;
	out->tool_raw_in = log_raw_in(log);
	if (kst.upstream_errors + lst->upstream_errors > 0)
		die("the relay could not reach the server");
	free(run);
	free(client);
	free(root);
	free(kfile);
	free(apply);
	free(log);
}

static int
cmp_double(const void *a, const void *b)
{
	double	x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static void
cell_summarize(struct cell *c)
{
	double	v[MAXREPS];
	int	i, n;

	for (i = 0; i < c->nruns; i++)
		v[i] = c->runs[i].wall;
	c->t_med = median(v, c->nruns);
	c->t_min = v[0];
	c->t_max = v[c->nruns - 1];
	for (i = 0; i < c->nruns; i++)
		v[i] = c->runs[i].lapply;
	c->lapply_med = median(v, c->nruns);
	for (i = 0; i < c->nruns; i++)
		v[i] = c->runs[i].cli_cpu;
	c->cli_med = median(v, c->nruns);
	for (i = n = 0; i < c->nruns; i++)
		if (c->runs[i].srv_cpu >= 0)
			v[n++] = c->runs[i].srv_cpu;
	c->srv_med = n ? median(v, n) : -1;
	for (i = 0; i < c->nruns; i++)
		v[i] = (double)c->runs[i].wire_down;
	c->down_med = (uint64_t)median(v, c->nruns);
	for (i = 0; i < c->nruns; i++)
		v[i] = (double)c->runs[i].wire_up;
	c->up_med = (uint64_t)median(v, c->nruns);
	for (i = 0; i < c->nruns; i++)
		v[i] = (double)(c->runs[i].srv_raw_out ?
		    c->runs[i].srv_raw_out : c->runs[i].tool_raw_in);
	c->raw_med = (uint64_t)median(v, c->nruns);
}

static void
sweep_link(struct bench *b, struct link *l)
{
	struct relay_link	 rl;
	struct relay_stats	 st;
	struct relay		*r;
	struct cerr		 err;
	struct run		 cal;
	double			 span, setting;
	int			 rep, li;

	memset(&rl, 0, sizeof(rl));
	rl.rate = l->rate;
	rl.rtt_us = l->rtt_us;
	if (b->tc) {
		/* tbf on the veth sets the rate; the relay adds the delay. */
		tc_shape(b, l);
		rl.rate = 0;
	}
	if ((r = relay_start(&rl, b->server ? &b->remote : NULL,
	    b->netns_fd, &err)) == NULL)
		die("%s", err.msg);
	for (li = 0; li < b->nlevels; li++) {
		l->cells[li].runs = xcalloc((size_t)b->reps,
		    sizeof(struct run));
		l->cells[li].nruns = 0;
	}

	/* Level-0 check of the link; also warms the caches. */
	progress(b, l, 0, 0);
	pull(b, r, 0, &cal, &st);
	b->done++;
	span = (st.down.last_ns - st.down.first_ns) / 1e9;
	l->delivered = span > 0 ? st.down.bytes * 8.0 / span : 0;
	l->busy_rate = st.down.busy_ns ?
	    st.down.bytes * 8.0 / (st.down.busy_ns / 1e9) : 0;
	setting = (double)l->rate;
	l->flagged = setting > 0 &&
	    fabs(l->delivered - setting) > 0.05 * setting;
	progress_end(b);
	printf("link %s: ", l->name);
	if (l->rate)
		printf("%.4g Mbit/s, ", setting / 1e6);
	else
		printf("unshaped, ");
	printf("rtt %.4g ms: level 0 delivered %.2f MB/s (%.4g Mbit/s)",
	    l->rtt_us / 1e3, l->delivered / 8e6, l->delivered / 1e6);
	if (setting > 0)
		printf(", %+.1f%% of its setting%s", 100 * (l->delivered -
		    setting) / setting, l->flagged ? " [OFF BY MORE THAN 5%]" :
		    "");
	printf("\n");
	if (l->flagged && b->tc)
		printf("  (tbf counts whole frames, about 4%% headers, and TCP "
		    "over a real queue rarely fills it)\n");
	else if (l->flagged && l->busy_rate > 0)
		printf("  while it had data the link carried %.4g Mbit/s "
		    "(%+.1f%%): %s\n", l->busy_rate / 1e6,
		    100 * (l->busy_rate - setting) / setting,
		    fabs(l->busy_rate - setting) <= 0.05 * setting ?
		    "the endpoints, not the link, set the pace" :
		    "the emulation could not keep up on this machine");
	fflush(stdout);

	/* Levels interleaved within each repetition (A B A B ...). */
	for (rep = 0; rep < b->reps; rep++)
		for (li = 0; li < b->nlevels; li++) {
			progress(b, l, b->levels[li], rep + 1);
			pull(b, r, b->levels[li],
			    &l->cells[li].runs[l->cells[li].nruns++], &st);
			b->done++;
		}
	progress_end(b);
	relay_stop(r);
	for (li = 0; li < b->nlevels; li++)
		cell_summarize(&l->cells[li]);
}

/* ------------------------------------------------------------------ */
/* The model and the report. */

/* Per level, medians over every link's runs. */
struct levelfit {
	double		 srv, cli;	/* CPU seconds; srv -1 unknown */
	double		 wire;		/* bytes both ways */
};

static void
fit_levels(const struct bench *b, struct levelfit *fit)
{
	double	 *sv, *cv, *wv;
	int	  li, k, i, ns, nc;
	const struct cell *c;

	sv = xcalloc((size_t)(b->nlinks * b->reps), sizeof(double));
	cv = xcalloc((size_t)(b->nlinks * b->reps), sizeof(double));
	wv = xcalloc((size_t)(b->nlinks * b->reps), sizeof(double));
	for (li = 0; li < b->nlevels; li++) {
		ns = nc = 0;
		for (k = 0; k < b->nlinks; k++) {
			c = &b->links[k].cells[li];
			for (i = 0; i < c->nruns; i++) {
				if (c->runs[i].srv_cpu >= 0)
					sv[ns++] = c->runs[i].srv_cpu;
				cv[nc] = c->runs[i].cli_cpu;
				wv[nc++] = (double)(c->runs[i].wire_down +
				    c->runs[i].wire_up);
			}
		}
		fit[li].srv = ns ? median(sv, ns) : -1;
		fit[li].cli = nc ? median(cv, nc) : 0;
		fit[li].wire = nc ? median(wv, nc) : 0;
	}
	free(sv);
	free(cv);
	free(wv);
}

/* Modelled time of level index li at rate (bit/s), without the rtt term. */
static double
model_time(const struct levelfit *f, double rate)
{
	double	t = f->wire * 8 / rate;

	if (f->srv > t)
		t = f->srv;
	if (f->cli > t)
		t = f->cli;
	return t;
}

#define GRID_LO		1e4	/* 10 kbit/s */
#define GRID_HI		1e11	/* 100 Gbit/s */
#define GRID_N		1400

static double
grid_rate(int i)
{
	return GRID_LO * pow(GRID_HI / GRID_LO, (double)i / (GRID_N - 1));
}

/*
 * The rate above which level index li stops paying off against the
 * lowest level (index 0): 0 if it never pays off, INFINITY if it still
 * does at GRID_HI.
 */
static double
crossover(const struct bench *b, const struct levelfit *fit, int li)
{
	double	last = 0;
	int	i;

	for (i = 0; i < GRID_N; i++)
		if (model_time(&fit[li], grid_rate(i)) <
		    model_time(&fit[0], grid_rate(i)))
			last = grid_rate(i);
	if (last == grid_rate(GRID_N - 1))
		return INFINITY;
	return last;
}

static const char *
fmt_rate(char *buf, size_t len, double bps)
{
	if (isinf(bps))
		snprintf(buf, len, "any rate");
	else if (bps >= 1e9)
		snprintf(buf, len, "%.3g Gbit/s", bps / 1e9);
	else if (bps >= 1e6)
		snprintf(buf, len, "%.3g Mbit/s", bps / 1e6);
	else
		snprintf(buf, len, "%.3g kbit/s", bps / 1e3);
	return buf;
}

/*
 * How well the model fits this link: its rtt term (the median of measured
 * minus modelled time over the levels) and the largest error left.
 */
static void
report_fit(const struct bench *b, const struct link *l,
    const struct levelfit *fit)
{
	double	d[MAXLEVEL + 1], rate, k, e, worst = 0;
	int	li;

	rate = l->rate ? (double)l->rate : l->delivered;
	if (!(rate > 0))
		return;
	for (li = 0; li < b->nlevels; li++)
		d[li] = l->cells[li].t_med - model_time(&fit[li], rate);
	k = median(d, b->nlevels);
	for (li = 0; li < b->nlevels; li++) {
		e = fabs(model_time(&fit[li], rate) + k - l->cells[li].t_med) /
		    l->cells[li].t_med;
		if (e > worst)
			worst = e;
	}
	printf("  model: rtt and per-file term %.3f s; with it the model is "
	    "within %.0f%% of every median here\n", k, 100 * worst);
}

static void
report_link(const struct bench *b, struct link *l, const struct levelfit *fit)
{
	const struct cell	*c, *c0 = &l->cells[0];
	double			 w0, ratio;
	int			 li, best, fastest = 0, bestc = -1, tie;

	printf("\n%s (", l->name);
	if (l->rate)
		printf("%.4g Mbit/s", l->rate / 1e6);
	else
		printf("unshaped");
	printf(", rtt %.4g ms; level 0 delivered %.4g Mbit/s%s)\n",
	    l->rtt_us / 1e3, l->delivered / 1e6,
	    l->flagged ? ", off by more than 5%" : "");
	printf("  %-5s %9s %19s %9s %9s %11s %9s %7s %10s\n", "level",
	    "time s", "min-max s", "srv cpu", "cli cpu", "wire MB", "raw MB",
	    "saved", "srv MB/s");
	w0 = (double)(c0->down_med + c0->up_med);
	for (li = 0; li < b->nlevels; li++) {
		c = &l->cells[li];
		printf("  %-5d %9.3f %9.3f-%-9.3f ", b->levels[li], c->t_med,
		    c->t_min, c->t_max);
		if (c->srv_med >= 0)
			printf("%9.3f ", c->srv_med);
		else
			printf("%9s ", "-");
		printf("%9.3f %11.3f %9.3f %6.1f%% ", c->cli_med,
		    (c->down_med + c->up_med) / 1e6,
		    (c->raw_med ? c->raw_med : b->raw_bytes) / 1e6,
		    w0 > 0 ? 100 * (w0 - (double)(c->down_med + c->up_med)) /
		    w0 : 0.0);
		if (c->srv_med > 0)
			printf("%10.1f\n", b->raw_bytes / 1e6 / c->srv_med);
		else
			printf("%10s\n", "-");
		if (c->t_med < l->cells[fastest].t_med)
			fastest = li;
		if (b->levels[li] > 0 && (bestc == -1 ||
		    c->t_med < l->cells[bestc].t_med))
			bestc = li;
	}
	/*
	 * The best level: the lowest (cheapest in server CPU) within 3% of
	 * the fastest; and no compression unless it wins by more than 5%
	 * and, with several runs, by more than the spread of the runs.
	 */
	for (best = 0; best < fastest; best++)
		if (l->cells[best].t_med <= l->cells[fastest].t_med * 1.03)
			break;
	tie = 0;
	if (b->levels[0] == 0 && best != 0 &&
	    (l->cells[best].t_med > 0.95 * c0->t_med ||
	    (b->reps > 1 && l->cells[best].t_max >= c0->t_min))) {
		tie = best;
		best = 0;
	}
	l->best = best;
	printf("  best: -Z %d. ", b->levels[best]);
	if (b->levels[0] != 0 || bestc == -1)
		printf("On %s, level %d is the fastest of those measured.\n",
		    l->name, b->levels[best]);
	else if (tie || (b->levels[best] == 0 &&
	    l->cells[bestc].t_med < 1.05 * c0->t_med)) {
		li = tie ? tie : bestc;
		ratio = l->cells[li].t_med / c0->t_med;
		printf("On %s, level %d takes %.2fx the time of off, within "
		    "the noise: leave it off (it only costs server CPU).\n",
		    l->name, b->levels[li], ratio);
	} else if (b->levels[best] == 0) {
		ratio = l->cells[bestc].t_med / c0->t_med;
		printf("On %s, compression costs %.1fx (level %d, the "
		    "fastest compressed one, takes %.1fx as long as off): "
		    "leave it off.\n", l->name, ratio, b->levels[bestc], ratio);
	} else {
		ratio = c0->t_med / l->cells[best].t_med;
		printf("On %s, level %d is %.1fx faster than off", l->name,
		    b->levels[best], ratio);
		if (best != fastest)
			printf(" (level %d is %.1f%% faster still, for %.1fx "
			    "the server CPU)", b->levels[fastest],
			    100 * (l->cells[best].t_med /
			    l->cells[fastest].t_med - 1),
			    l->cells[best].srv_med > 0 ?
			    l->cells[fastest].srv_med /
			    l->cells[best].srv_med : 0.0);
		printf(".\n");
	}
	report_fit(b, l, fit);
}

static void
report_model(const struct bench *b, const struct levelfit *fit,
    double *cross)
{
	char	r1[32], r2[32];
	int	li, i, lo, cur, prev;

	printf("\nModel: time(level, rate) = max(server cpu, client cpu, "
	    "wire bytes / rate) + a per-link rtt term,\nfitted per level "
	    "to the medians of every run on this data (%.1f MB of files).\n",
	    b->raw_bytes / 1e6);
	printf("  %-5s %12s %12s %11s %10s  pays off (vs -Z %d) below\n",
	    "level", "srv MB/s", "cli cpu s", "wire MB", "ratio",
	    b->levels[0]);
	for (li = 0; li < b->nlevels; li++) {
		cross[li] = li == 0 ? 0 : crossover(b, fit, li);
		printf("  %-5d ", b->levels[li]);
		if (fit[li].srv > 0)
			printf("%12.1f ", b->raw_bytes / 1e6 / fit[li].srv);
		else
			printf("%12s ", "-");
		printf("%12.3f %11.3f %10.3f  ", fit[li].cli,
		    fit[li].wire / 1e6, fit[0].wire > 0 ?
		    fit[li].wire / fit[0].wire : 0.0);
		if (li == 0)
			printf("-\n");
		else if (cross[li] == 0)
			printf("never\n");
		else
			printf("%s\n", fmt_rate(r1, sizeof(r1), cross[li]));
	}
	/* Bands of rate where each level is the model's best. */
	printf("  best level by link rate:");
	prev = -1;
	lo = 0;
	for (i = 0; i <= GRID_N; i++) {
		cur = -1;
		if (i < GRID_N)
			for (li = 0; li < b->nlevels; li++)
				if (cur == -1 || model_time(&fit[li],
				    grid_rate(i)) < model_time(&fit[cur],
				    grid_rate(i)) * 0.999)
					cur = li;
		if (i == GRID_N || (prev != -1 && cur != prev)) {
			printf(" %s-%s: -Z %d;",
			    lo == 0 ? "0" : fmt_rate(r1, sizeof(r1),
			    grid_rate(lo)), i == GRID_N ? "up" :
			    fmt_rate(r2, sizeof(r2), grid_rate(i)),
			    b->levels[prev]);
			lo = i;
		}
		prev = cur;
	}
	printf("\n");
}

static void
report_recommend(const struct bench *b)
{
	int	k, j, z, maxz = 0, done[MAXLINKS] = { 0 };

	for (k = 0; k < b->nlinks; k++)
		if (b->levels[b->links[k].best] > maxz)
			maxz = b->levels[b->links[k].best];
	printf("\nRecommendation (from the measured medians on this data):\n");
	printf("  # server: offer up to the highest level any link class "
	    "below wants\n");
	printf("  cairnd -Z %d\n", maxz > 0 ? maxz : 0);
	for (k = 0; k < b->nlinks; k++) {
		if (done[k])
			continue;
		z = b->levels[b->links[k].best];
		printf("  # clients on ");
		for (j = k; j < b->nlinks; j++)
			if (!done[j] && b->levels[b->links[j].best] == z) {
				printf("%s%s", j == k ? "" : ", ",
				    b->links[j].name);
				done[j] = 1;
			}
		printf("%s\n", z == 0 ? " (compression off)" : "");
		printf("  ktcheck -Z %d -c sha1 ...; lapply -Z %d -c sha1 "
		    "...\n", z, z);
	}
}

static void
write_csv(const struct bench *b, const double *cross)
{
	const struct link	*l;
	const struct cell	*c;
	FILE			*fp;
	int			 k, li;

	if ((fp = fopen(b->csv, "w")) == NULL)
		die("%s: %s", b->csv, strerror(errno));
	fprintf(fp, "link,rate_bit_s,rtt_ms,level,runs,time_median_s,"
	    "time_min_s,time_max_s,lapply_median_s,server_cpu_s,"
	    "client_cpu_s,raw_bytes,wire_down_bytes,wire_up_bytes,"
	    "wire_ratio,server_MB_s,delivered_bit_s,link_flagged,best_level,"
	    "crossover_bit_s\n");
	for (k = 0; k < b->nlinks; k++) {
		l = &b->links[k];
		for (li = 0; li < b->nlevels; li++) {
			c = &l->cells[li];
			fprintf(fp, "%s,%" PRIu64 ",%.3f,%d,%d,%.6f,%.6f,%.6f,"
			    "%.6f,", l->name, l->rate, l->rtt_us / 1e3,
			    b->levels[li], c->nruns, c->t_med, c->t_min,
			    c->t_max, c->lapply_med);
			if (c->srv_med >= 0)
				fprintf(fp, "%.6f,", c->srv_med);
			else
				fprintf(fp, ",");
			fprintf(fp, "%.6f,%" PRIu64 ",%" PRIu64 ",%" PRIu64
			    ",%.6f,", c->cli_med,
			    c->raw_med ? c->raw_med : b->raw_bytes,
			    c->down_med, c->up_med,
			    l->cells[0].down_med + l->cells[0].up_med ?
			    (double)(c->down_med + c->up_med) /
			    (double)(l->cells[0].down_med +
			    l->cells[0].up_med) : 0.0);
			if (c->srv_med > 0)
				fprintf(fp, "%.3f,", b->raw_bytes / 1e6 /
				    c->srv_med);
			else
				fprintf(fp, ",");
			fprintf(fp, "%.0f,%d,%d,", l->delivered, l->flagged,
			    b->levels[l->best]);
			if (li == 0)
				fprintf(fp, "-\n");
			else if (isinf(cross[li]))
				fprintf(fp, "inf\n");
			else
				fprintf(fp, "%.0f\n", cross[li]);
		}
	}
	if (fclose(fp) == EOF)
		die("%s: %s", b->csv, strerror(errno));
}

/* One line per run, in the order they ran within each link. */
static void
write_runs_csv(const struct bench *b)
{
	const struct run	*r;
	FILE			*fp;
	int			 k, li, i;

	if ((fp = fopen(b->runs_csv, "w")) == NULL)
		die("%s: %s", b->runs_csv, strerror(errno));
	fprintf(fp, "link,rate_bit_s,rtt_ms,level,run,time_s,lapply_s,"
	    "server_cpu_s,client_cpu_s,raw_bytes,wire_down_bytes,"
	    "wire_up_bytes\n");
	for (k = 0; k < b->nlinks; k++)
		for (i = 0; i < b->reps; i++)
			for (li = 0; li < b->nlevels; li++) {
				if (i >= b->links[k].cells[li].nruns)
					continue;
				r = &b->links[k].cells[li].runs[i];
				fprintf(fp, "%s,%" PRIu64 ",%.3f,%d,%d,%.6f,"
				    "%.6f,", b->links[k].name,
				    b->links[k].rate,
				    b->links[k].rtt_us / 1e3, b->levels[li],
				    i + 1, r->wall, r->lapply);
				if (r->srv_cpu >= 0)
					fprintf(fp, "%.6f,", r->srv_cpu);
				else
					fprintf(fp, ",");
				fprintf(fp, "%.6f,%" PRIu64 ",%" PRIu64 ",%"
				    PRIu64 "\n", r->cli_cpu, r->srv_raw_out ?
				    r->srv_raw_out : r->tool_raw_in ?
				    r->tool_raw_in : b->raw_bytes,
				    r->wire_down, r->wire_up);
			}
	if (fclose(fp) == EOF)
		die("%s: %s", b->runs_csv, strerror(errno));
	printf("CSV of every run: %s\n", b->runs_csv);
}

/* ------------------------------------------------------------------ */
/* SVG. */

static const char *colors[] = { "#1f77b4", "#d62728", "#2ca02c", "#9467bd",
    "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#7f7f7f", "#bcbd22" };
#define NCOLORS	(sizeof(colors) / sizeof(colors[0]))

static void
svg_text_escaped(FILE *fp, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '<':
			fputs("&lt;", fp);
			break;
		case '>':
			fputs("&gt;", fp);
			break;
		case '&':
			fputs("&amp;", fp);
			break;
		default:
			fputc(*s, fp);
		}
}

static void
write_svg(const struct bench *b, const struct levelfit *fit)
{
	const double	 W = 960, X0 = 80, X1 = 640, Y0 = 50, Y1 = 330;
	const double	 Z0 = 410, Z1 = 600;
	FILE		*fp;
	double		 tmin = INFINITY, tmax = 0, lo, hi, x, y, d, v;
	double		 smax = 1;
	char		*png, *cmd, *conv;
	int		 k, li, e, m, first;

	for (k = 0; k < b->nlinks; k++)
		for (li = 0; li < b->nlevels; li++) {
			if (b->links[k].cells[li].t_min < tmin)
				tmin = b->links[k].cells[li].t_min;
			if (b->links[k].cells[li].t_max > tmax)
				tmax = b->links[k].cells[li].t_max;
		}
	if (!(tmin > 0))
		tmin = 1e-3;
	if (tmax <= tmin)
		tmax = tmin * 10;
	lo = floor(log10(tmin));
	hi = ceil(log10(tmax));
	if (hi <= lo)
		hi = lo + 1;
	if ((fp = fopen(b->svg, "w")) == NULL)
		die("%s: %s", b->svg, strerror(errno));
	fprintf(fp, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" "
	    "height=\"660\" viewBox=\"0 0 %.0f 660\" "
	    "font-family=\"sans-serif\" font-size=\"12\">\n"
	    "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
	    W, W);
	fprintf(fp, "<text x=\"%.0f\" y=\"24\" font-size=\"15\" "
	    "font-weight=\"bold\">cairn-bench: pull time per compression "
	    "level (%.1f MB, median of %d)</text>\n", X0,
	    b->raw_bytes / 1e6, b->reps);
	/* Panel 1 axes. */
	fprintf(fp, "<g stroke=\"black\" fill=\"none\"><rect x=\"%.0f\" "
	    "y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/></g>\n", X0, Y0,
	    X1 - X0, Y1 - Y0);
	for (e = (int)lo; e <= (int)hi; e++)
		for (m = 1; m < 10; m++) {
			v = log10(m * pow(10, e));
			if (v > hi + 1e-9)
				break;
			y = Y1 - (v - lo) / (hi - lo) * (Y1 - Y0);
			fprintf(fp, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"%s\"/>\n", X0, X1, y, y,
			    m == 1 ? "#bbb" : "#eee");
			if (m == 1 || m == 2 || m == 5)
				fprintf(fp, "<text x=\"%.0f\" y=\"%.1f\" "
				    "text-anchor=\"end\">%g s</text>\n",
				    X0 - 6, y + 4, m * pow(10, e));
		}
	fprintf(fp, "<text x=\"20\" y=\"%.0f\" transform=\"rotate(-90 20 "
	    "%.0f)\" text-anchor=\"middle\">time (s, log scale)</text>\n",
	    (Y0 + Y1) / 2, (Y0 + Y1) / 2);
	/* x by level value; d is the width of one level step. */
	d = b->nlevels > 1 ? (X1 - X0 - 40) /
	    (b->levels[b->nlevels - 1] - b->levels[0]) : 0;
	for (li = 0; li < b->nlevels; li++) {
		x = X0 + 20 + (b->levels[li] - b->levels[0]) * d;
		fprintf(fp, "<text x=\"%.1f\" y=\"%.0f\" text-anchor=\"middle\">"
		    "%d</text>\n<text x=\"%.1f\" y=\"%.0f\" "
		    "text-anchor=\"middle\">%d</text>\n", x, Y1 + 16,
		    b->levels[li], x, Z1 + 16, b->levels[li]);
	}
	fprintf(fp, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">"
	    "compression level (-Z)</text>\n", (X0 + X1) / 2, Y1 + 34);
	/* One line per link, with min-max bars and the best level ringed. */
	for (k = 0; k < b->nlinks; k++) {
		const struct link *l = &b->links[k];

		fprintf(fp, "<polyline fill=\"none\" stroke-width=\"2\" "
		    "stroke=\"%s\" points=\"", colors[k % NCOLORS]);
		for (li = 0; li < b->nlevels; li++) {
			x = X0 + 20 + (b->levels[li] - b->levels[0]) * d;
			y = Y1 - (log10(l->cells[li].t_med) - lo) / (hi - lo) *
			    (Y1 - Y0);
			fprintf(fp, "%s%.1f,%.1f", li ? " " : "", x, y);
		}
		fprintf(fp, "\"/>\n");
		for (li = 0; li < b->nlevels; li++) {
			const struct cell *c = &l->cells[li];
			double ya, yb;

			x = X0 + 20 + (b->levels[li] - b->levels[0]) * d;
			y = Y1 - (log10(c->t_med) - lo) / (hi - lo) *
			    (Y1 - Y0);
			ya = Y1 - (log10(c->t_min) - lo) / (hi - lo) *
			    (Y1 - Y0);
			yb = Y1 - (log10(c->t_max) - lo) / (hi - lo) *
			    (Y1 - Y0);
			fprintf(fp, "<line x1=\"%.1f\" x2=\"%.1f\" y1=\"%.1f\" "
			    "y2=\"%.1f\" stroke=\"%s\"/>\n<circle cx=\"%.1f\" "
			    "cy=\"%.1f\" r=\"%d\" fill=\"%s\"/>\n", x, x, ya,
			    yb, colors[k % NCOLORS], x, y,
			    li == l->best ? 5 : 3,
			    li == l->best ? "white\" stroke-width=\"2\" "
			    "stroke=\"black" : colors[k % NCOLORS]);
		}
		/* Legend. */
		y = Y0 + 10 + k * 18;
		fprintf(fp, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.0f\" "
		    "y2=\"%.0f\" stroke=\"%s\" stroke-width=\"3\"/>\n"
		    "<text x=\"%.0f\" y=\"%.0f\">", X1 + 14, X1 + 34, y, y,
		    colors[k % NCOLORS], X1 + 40, y + 4);
		svg_text_escaped(fp, l->name);
		fprintf(fp, " (best -Z %d)%s</text>\n", b->levels[l->best],
		    l->flagged ? " *" : "");
	}
	fprintf(fp, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"10\">"
	    "ringed: best level; bars: min-max</text>\n", X1 + 14,
	    Y0 + 20 + b->nlinks * 18);
	if (b->nlinks > 0) {
		for (k = 0; k < b->nlinks && !b->links[k].flagged; k++)
			;
		if (k < b->nlinks)
			fprintf(fp, "<text x=\"%.0f\" y=\"%.0f\" "
			    "font-size=\"10\">* link delivered more than 5%% "
			    "off its setting</text>\n", X1 + 14,
			    Y0 + 34 + b->nlinks * 18);
	}

	/* Panel 2: bytes saved per level. */
	for (li = 0; li < b->nlevels; li++)
		if ((fit[0].wire - fit[li].wire) / 1e6 > smax)
			smax = (fit[0].wire - fit[li].wire) / 1e6;
	smax = ceil(smax * 1.15);	/* room for the labels */
	fprintf(fp, "<text x=\"%.0f\" y=\"%.0f\" font-size=\"14\" "
	    "font-weight=\"bold\">bytes saved on the wire vs level %d "
	    "(of %.1f MB)</text>\n", X0, Z0 - 14, b->levels[0],
	    fit[0].wire / 1e6);
	fprintf(fp, "<g stroke=\"black\" fill=\"none\"><rect x=\"%.0f\" "
	    "y=\"%.0f\" width=\"%.0f\" height=\"%.0f\"/></g>\n", X0, Z0,
	    X1 - X0, Z1 - Z0);
	for (m = 0; m <= 4; m++) {
		y = Z1 - m * (Z1 - Z0) / 4;
		fprintf(fp, "<line x1=\"%.0f\" x2=\"%.0f\" y1=\"%.1f\" "
		    "y2=\"%.1f\" stroke=\"#ddd\"/>\n<text x=\"%.0f\" "
		    "y=\"%.1f\" text-anchor=\"end\">%.3g MB</text>\n", X0, X1,
		    y, y, X0 - 6, y + 4, smax * m / 4);
	}
	fprintf(fp, "<polyline fill=\"none\" stroke=\"#333\" "
	    "stroke-width=\"2\" points=\"");
	first = 1;
	for (li = 0; li < b->nlevels; li++) {
		x = X0 + 20 + (b->levels[li] - b->levels[0]) * d;
		v = (fit[0].wire - fit[li].wire) / 1e6;
		y = Z1 - (v < 0 ? 0 : v) / smax * (Z1 - Z0);
		fprintf(fp, "%s%.1f,%.1f", first ? "" : " ", x, y);
		first = 0;
	}
	fprintf(fp, "\"/>\n");
	for (li = 0; li < b->nlevels; li++) {
		x = X0 + 20 + (b->levels[li] - b->levels[0]) * d;
		v = (fit[0].wire - fit[li].wire) / 1e6;
		y = Z1 - (v < 0 ? 0 : v) / smax * (Z1 - Z0);
		fprintf(fp, "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"3\" "
		    "fill=\"#333\"/>\n<text x=\"%.1f\" y=\"%.1f\" "
		    "text-anchor=\"middle\" font-size=\"10\">%.0f%%</text>\n",
		    x, y, x, y - 8, fit[0].wire > 0 ?
		    100 * (fit[0].wire - fit[li].wire) / fit[0].wire : 0.0);
	}
	fprintf(fp, "<text x=\"%.0f\" y=\"%.0f\" text-anchor=\"middle\">"
	    "compression level (-Z)</text>\n</svg>\n", (X0 + X1) / 2,
	    Z1 + 34);
	if (fclose(fp) == EOF)
		die("%s: %s", b->svg, strerror(errno));
	printf("SVG: %s\n", b->svg);

	/* A PNG beside it when a converter is installed. */
	xasprintf(&png, "%.*s.png", (int)(strlen(b->svg) -
	    (strlen(b->svg) > 4 && strcmp(b->svg + strlen(b->svg) - 4,
	    ".svg") == 0 ? 4 : 0)), b->svg);
	if ((conv = find_tool(b, "rsvg-convert")) != NULL) {
		char	*argv[] = { conv, "-o", png, (char *)b->svg, NULL };
		double	 cpu = 0;

		xasprintf(&cmd, "%s/convert.log", b->work);
		if (run_tool(argv, NULL, cmd, &cpu) == 0)
			printf("PNG: %s\n", png);
		free(cmd);
		free(conv);
	} else if ((conv = find_tool(b, "convert")) != NULL) {
		char	*argv[] = { conv, (char *)b->svg, png, NULL };
		double	 cpu = 0;

		xasprintf(&cmd, "%s/convert.log", b->work);
		if (run_tool(argv, NULL, cmd, &cpu) == 0 &&
		    access(png, F_OK) == 0)
			printf("PNG: %s\n", png);
		free(cmd);
		free(conv);
	}
	free(png);
}

/* ------------------------------------------------------------------ */

static void
resolve_remote(struct bench *b)
{
	struct addrinfo	 hints, *res;
	char		*host, *port;
	int		 e;

	host = xstrdup(b->server);
	if ((port = strrchr(host, ':')) == NULL || port[1] == '\0')
		baduse("--server %s: expected host:port", b->server);
	*port++ = '\0';
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_INET;
	hints.ai_socktype = SOCK_STREAM;
	if ((e = getaddrinfo(host, port, &hints, &res)) != 0)
		die("--server %s: %s", b->server, gai_strerror(e));
	memcpy(&b->remote, res->ai_addr, sizeof(b->remote));
	freeaddrinfo(res);
	free(host);
}

static void
bench_free(struct bench *b)
{
	int	k, li;

	for (k = 0; k < b->nlinks; k++) {
		free(b->links[k].name);
		for (li = 0; li < b->nlevels; li++)
			free(b->links[k].cells[li].runs);
	}
	free(b->ktcheck);
	free(b->fsdiff);
	free(b->lapply);
	free(b->cairnd);
	free(b->ip);
	free(b->tcbin);
	free(b->repo);
	free(b->work);
	if (b->netns_fd != -1)
		close(b->netns_fd);
}

int
main(int argc, char *argv[])
{
	static const struct option longopts[] = {
		{ "bindir",	required_argument,	NULL, 'B' },
		{ "data",	required_argument,	NULL, 'd' },
		{ "corpus",	required_argument,	NULL, 's' },
		{ "levels",	required_argument,	NULL, 'l' },
		{ "link",	required_argument,	NULL, 'L' },
		{ "reps",	required_argument,	NULL, 'n' },
		{ "work",	required_argument,	NULL, 'w' },
		{ "keep",	no_argument,		NULL, 'k' },
		{ "quiet",	no_argument,		NULL, 'q' },
		{ "csv",	required_argument,	NULL, 'C' },
		{ "svg",	required_argument,	NULL, 'S' },
		{ "server",	required_argument,	NULL, 'R' },
		{ "make-repo",	required_argument,	NULL, 'M' },
		{ "shaper",	required_argument,	NULL, 'T' },
		{ "runs-csv",	required_argument,	NULL, 'U' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	struct bench	 b;
	struct levelfit	 fit[MAXLEVEL + 1];
	double		 cross[MAXLEVEL + 1];
	const char	*es;
	char		*tmpl, *links, *tok, *save = NULL;
	int		 ch, k, own_work = 0;

	memset(&b, 0, sizeof(b));
	b.netns_fd = -1;
	b.reps = 3;
	b.corpus_size = 16 * 1024 * 1024;
	parse_levels(&b, "0-9");
	while ((ch = getopt_long(argc, argv, "B:d:s:l:L:n:w:kqh", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'B':
			b.bindir = optarg;
			break;
		case 'd':
			b.data = optarg;
			break;
		case 's':
			if (parse_size(optarg, &b.corpus_size) == -1)
				baduse("--corpus %s: expected a size from 1K to "
				    "64G, such as 16M", optarg);
			break;
		case 'l':
			if (parse_levels(&b, optarg) == -1)
				baduse("--levels %s: expected levels 0-9 such "
				    "as 0-9 or 0,1,6", optarg);
			break;
		case 'L':
			if (parse_link(&b, optarg) == -1)
				baduse("--link %s: expected a profile (loopback "
				    "10gbit gigabit fast-ethernet 802.11g dsl "
				    "3g modem) or rate=R[,rtt=T][,name=N]",
				    optarg);
			break;
		case 'n':
			b.reps = (int)strtonum(optarg, 1, MAXREPS, &es);
			if (es != NULL)
				baduse("--reps %s: %s", optarg, es);
			break;
		case 'w':
			b.work = xstrdup(optarg);
			break;
		case 'k':
			b.keep = 1;
			break;
		case 'q':
			b.quiet = 1;
			break;
		case 'C':
			b.csv = optarg;
			break;
		case 'S':
			b.svg = optarg;
			break;
		case 'R':
			b.server = optarg;
			break;
		case 'M':
			b.make_repo = optarg;
			break;
		case 'U':
			b.runs_csv = optarg;
			break;
		case 'T':
			if (strcmp(optarg, "tc") == 0)
				b.tc = 1;
			else if (strcmp(optarg, "relay") == 0)
				b.tc = 0;
			else
				baduse("--shaper %s: expected relay or tc",
				    optarg);
			break;
		case 'h':
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	if (b.data != NULL && access(b.data, R_OK | X_OK) != 0)
		baduse("--data %s: %s", b.data, strerror(errno));
	if (b.nlinks == 0) {
		if (b.server != NULL)
			parse_link(&b, "loopback");
		else {
			links = xstrdup(DEFAULT_LINKS);
			for (tok = strtok_r(links, " ", &save); tok != NULL;
			    tok = strtok_r(NULL, " ", &save))
				parse_link(&b, tok);
			free(links);
		}
	}
	if (b.server != NULL) {
		/* A real link: no emulation, the one link is the network. */
		for (k = 0; k < b.nlinks; k++)
			if (b.links[k].rate != 0 || b.links[k].rtt_us != 0)
				baduse("--server measures the real link: "
				    "--link does not apply");
		free(b.links[0].name);
		b.links[0].name = xstrdup(b.server);
		b.nlinks = 1;
		resolve_remote(&b);
	}

	b.fsdiff = find_tool(&b, "fsdiff");
	b.ktcheck = find_tool(&b, "ktcheck");
	b.lapply = find_tool(&b, "lapply");
	b.cairnd = find_tool(&b, "cairnd");
	if (b.fsdiff == NULL)
		die("fsdiff not found next to cairn-bench, in --bindir or in "
		    "PATH");
	if (b.make_repo == NULL) {
		if (b.ktcheck == NULL || b.lapply == NULL)
			die("ktcheck and lapply are needed: not found next "
			    "to cairn-bench, in --bindir or in PATH");
		if (b.server == NULL && b.cairnd == NULL)
			die("cairnd not found next to cairn-bench, in "
			    "--bindir or in PATH (or give --server)");
	}

	if (b.work == NULL) {
		xasprintf(&tmpl, "%s/cairn-bench.XXXXXX", getenv("TMPDIR") ?
		    getenv("TMPDIR") : "/tmp");
		if ((b.work = mkdtemp(tmpl)) == NULL)
			die("mkdtemp %s: %s", tmpl, strerror(errno));
		own_work = 1;
	} else
		xmkdir_p(b.work);
	if ((tmpl = realpath(b.work, NULL)) == NULL)
		die("%s: %s", b.work, strerror(errno));
	free(b.work);
	b.work = tmpl;
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	b.tty = isatty(STDERR_FILENO);

	if (b.make_repo != NULL) {
		make_repo(&b, b.make_repo);
		printf("repository in %s: %" PRIu64 " files, %.1f MB; serve "
		    "it with cairnd -Z 9 -D %s\n", b.make_repo, b.nfiles,
		    b.raw_bytes / 1e6, b.make_repo);
		if (own_work && !b.keep)
			rmtree(b.work);
		bench_free(&b);
		return EXIT_OK;
	}
	if (b.tc && b.server != NULL)
		baduse("--shaper tc and --server exclude each other");
	if (b.tc)
		tc_setup(&b);
	if (b.server == NULL) {
		xasprintf(&b.repo, "%s/repo", b.work);
		make_repo(&b, b.repo);
	} else {
		/* The remote serves its own data; count what arrives. */
		b.corpus_desc = "remote server's data";
	}
	printf("cairn-bench: %s", b.corpus_desc);
	if (b.server == NULL)
		printf(", %" PRIu64 " files, %.1f MB", b.nfiles,
		    b.raw_bytes / 1e6);
	printf("; levels");
	for (k = 0; k < b.nlevels; k++)
		printf("%s%d", k ? "," : " ", b.levels[k]);
	printf("; %d run%s each\n", b.reps, b.reps > 1 ? "s" : "");
	fflush(stdout);

	b.total = b.nlinks * (1 + b.reps * b.nlevels);
	for (k = 0; k < b.nlinks; k++)
		sweep_link(&b, &b.links[k]);
	if (b.server != NULL) {
		/* Raw bytes: what lapply wrote, i.e. the root's files. */
		b.raw_bytes = b.links[0].cells[0].raw_med ?
		    b.links[0].cells[0].raw_med :
		    b.links[0].cells[0].down_med;
	}

	fit_levels(&b, fit);
	for (k = 0; k < b.nlinks; k++)
		report_link(&b, &b.links[k], fit);
	report_model(&b, fit, cross);
	for (k = 0; k < b.nlinks; k++) {
		const struct link *l = &b.links[k];
		char		   r1[32];
		int		   li, first = 1, n = 0;

		printf("  %s: ", l->name);
		for (li = 1; li < b.nlevels; li++) {
			if (cross[li] == 0 || (!isinf(cross[li]) &&
			    l->rate > 0 && cross[li] < (double)l->rate))
				continue;
			if (l->rate == 0 && !isinf(cross[li]))
				continue;
			printf("%s-Z %d", first ? "the model says " : ", ",
			    b.levels[li]);
			first = 0;
			n++;
		}
		if (first)
			printf("the model says no level pays off at %s",
			    l->rate ? fmt_rate(r1, sizeof(r1),
			    (double)l->rate) : "loopback speed");
		else
			printf(" pay%s off at %s", n == 1 ? "s" : "",
			    l->rate ? fmt_rate(r1, sizeof(r1),
			    (double)l->rate) : "loopback speed");
		printf("\n");
	}
	report_recommend(&b);
	if (b.csv != NULL) {
		write_csv(&b, cross);
		printf("CSV: %s\n", b.csv);
	}
	if (b.runs_csv != NULL)
		write_runs_csv(&b);
	if (b.svg != NULL)
		write_svg(&b, fit);
	tc_teardown();
	if (own_work && !b.keep)
		rmtree(b.work);
	else
		printf("work directory kept: %s\n", b.work);
	bench_free(&b);
	return EXIT_OK;
}
