/*
 * cairn-bench: sweep compression levels across network links and report
 * where compression stops paying off.  This file holds main and the
 * options; bench.h lists the other files and what each does.
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
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <netdb.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cerr.h"
#include "compat.h"
#include "delta.h"
#include "log.h"
#include "version.h"
#include "xmalloc.h"
#include "zlevel.h"

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
/* zlib's levels, its automatic level, and zstd's fast and default. */
#define DEFAULT_LEVELS	"0-9,zstd:1,zstd:3,auto"

static const char usage_text[] =
    "usage: cairn-bench [-kq] [-B bindir] [-d dir | -s size] [-l levels]\n"
    "\t[-L link]... [-n reps] [-w workdir] [--csv file] [--svg file]\n"
    "\t[--runs-csv file] [--shaper relay | tc] [--server host:port]\n"
    "\t[--cache levels]\n"
    "       cairn-bench [-kq] [-B bindir] [-l levels] [-L link]... [-n reps]\n"
    "\t[-w workdir] [--csv file] [--shaper relay | tc] --update old new\n"
    "       cairn-bench [-B bindir] [-d dir | -s size] [--seed n] "
    "--make-repo dir\n"
    "       cairn-bench [--seed n] --make-corpus dir [size | --files n]\n"
    "       cairn-bench -V | -h\n";

/* The options for --help. */
static const struct {
	const char	*flags, *what;
} options_help[] = {
	{ "-B, --bindir=dir",
	    "look for ktcheck, fsdiff, lapply, cairnd in dir" },
	{ "-d, --data=dir", "serve the tree dir" },
	{ "-s, --corpus=size",
	    "else a generated corpus of size (16M; 1M at least)" },
	{ "-l, --levels=levels",
	    "levels: " DEFAULT_LEVELS " (default), 0,6,zstd:1-19 ..." },
	{ "-L, --link=link", "a profile below, or rate=R[,rtt=T][,name=N]" },
	{ "-n, --reps=n", "runs of every level on every link, 1-99 (3)" },
	{ "-w, --work=dir", "work in dir (kept), not in a temporary one" },
	{ "-k, --keep", "keep the temporary work directory" },
	{ "-q, --quiet", "no progress bar, no line per run" },
	{ "    --csv=file", "write a line per link and level" },
	{ "    --runs-csv=file", "write a line per run" },
	{ "    --svg=file", "draw the time and the bytes saved per level" },
	{ "    --shaper=relay|tc",
	    "impose the rate with the relay or with tc" },
	{ "    --server=host:port",
	    "measure the real link to a remote cairnd" },
	{ "    --make-repo=dir", "only build the repository in dir" },
	{ "    --cache=levels", "serve from a compressed cache warmed at levels" },
	{ "    --update old new",
	    "pull the update from tree old to new, whole and by delta" },
	{ "    --make-corpus=dir", "only generate the corpus in dir" },
	{ "    --files=n", "with --make-corpus: n small files" },
	{ "    --seed=n", "seed of the corpus generator (1)" },
	{ "-V", "print the version" },
	{ "-h, --help", "print this help" },
};

static void	 usage(void) __attribute__((noreturn));
static void	 help(void) __attribute__((noreturn));

/* A usage error: the synopsis on stderr, exit BENCH_EXIT_USAGE. */
static void
usage(void)
{
	fputs(usage_text, stderr);
	exit(BENCH_EXIT_USAGE);
}

/*
 * A rate as -L takes it and names a custom link: "20mbit", "1gbit",
 * "56kbit", or "unshaped" for 0.
 */
static const char *
rate_name(char *buf, size_t len, uint64_t rate)
{
	if (rate == 0)
		snprintf(buf, len, "unshaped");
	else if (rate >= 1000000000)
		snprintf(buf, len, "%.4ggbit", rate / 1e9);
	else if (rate >= 1000000)
		snprintf(buf, len, "%.4gmbit", rate / 1e6);
	else
		snprintf(buf, len, "%.4gkbit", rate / 1e3);
	return buf;
}

/* --help: the synopsis, the options and the link profiles; exit 0. */
static void
help(void)
{
	char	rate[32];
	size_t	i;

	fputs(usage_text, stdout);
	printf("\noptions:\n");
	for (i = 0; i < sizeof(options_help) / sizeof(options_help[0]); i++)
		printf("  %-24s %s\n", options_help[i].flags,
		    options_help[i].what);
	printf("\nlink profiles (-L):\n  %-14s %-10s %s\n", "name", "rate",
	    "rtt");
	for (i = 0; i < NPROFILES; i++)
		printf("  %-14s %-10s %gms\n", profiles[i].name,
		    rate_name(rate, sizeof(rate), profiles[i].rate),
		    profiles[i].rtt_us / 1e3);
	printf("default: %s\n", DEFAULT_LINKS);
	exit(BENCH_EXIT_OK);
}

/*
 * SIGINT, SIGTERM: run the cleanup hooks (all signal safe: stop cairnd,
 * remove the namespaces), then die of the signal.
 */
static void
on_signal(int sig)
{
	log_cleanup();
	signal(sig, SIG_DFL);
	raise(sig);
}

/* A unit a value may carry, and what it multiplies the number by. */
struct unit {
	const char	*suffix;	/* matched whatever the case */
	double		 scale;
};

/* "20mbit", "56kbit", "1gbit", "800bit" or a plain bit/s count. */
static const struct unit rate_units[] = {
	{ "", 1 }, { "bit", 1 }, { "kbit", 1e3 }, { "mbit", 1e6 },
	{ "gbit", 1e9 }, { NULL, 0 }
};
/* "4ms", "150ms", "500us", "1s", "0": microseconds. */
static const struct unit time_units[] = {
	{ "us", 1 }, { "ms", 1e3 }, { "s", 1e6 }, { NULL, 0 }
};
/* "16M", "500K", "1G", "64MB" or bytes. */
static const struct unit size_units[] = {
	{ "", 1 }, { "b", 1 }, { "k", 1024 }, { "kb", 1024 },
	{ "m", 1048576 }, { "mb", 1048576 }, { "g", 1073741824.0 },
	{ "gb", 1073741824.0 }, { NULL, 0 }
};

/*
 * A number, finite and not negative, followed by one of units (a bare 0
 * needs none), scaled by it and rounded into *out; it must be 0 or lie
 * between lo and hi.  Returns 0 or -1.
 */
static int
parse_unit(const char *s, const struct unit *u, double lo, double hi,
    uint64_t *out)
{
	char	*end;
	double	 v;

	errno = 0;
	v = strtod(s, &end);
	if (end == s || errno != 0 || v < 0 || !isfinite(v))
		return -1;
	for (; u->suffix != NULL; u++)
		if (strcasecmp(end, u->suffix) == 0)
			break;
	if (u->suffix != NULL)
		v *= u->scale;
	else if (*end != '\0' || v != 0)
		return -1;
	if (v > hi || (v != 0 && v < lo))
		return -1;
	*out = (uint64_t)(v + 0.5);
	return 0;
}

/*
 * One number of a level list at *pp, one of the codec's levels that
 * -l takes (zlib's 0 to 9, zstd's 1 to 19: -Z zstd:0 is no client's),
 * into *out; *pp moves past it.  Returns 0 or -1.
 */
static int
parse_level_number(const char **pp, enum zlevel_codec codec, long *out)
{
	char	*end;
	long	 v;

	if (**pp < '0' || **pp > '9')
		return -1;
	errno = 0;
	v = strtol(*pp, &end, 10);
	if (end == *pp || errno != 0 || v < 0 || v > INT_MAX ||
	    zlevel_check(codec, (int)v, NULL) == -1 ||
	    (codec == ZLEVEL_ZSTD && !zlevel_deflates(codec, (int)v)))
		return -1;
	*pp = end;
	*out = v;
	return 0;
}

/*
 * "0-9", "0,1,6", "0-3,9", "0,1,6,auto", "0-9,zstd:1,zstd:3",
 * "zstd:1-19": sorted, without duplicates, zlib's levels then zstd's
 * (LEVEL_ZSTD), auto (LEVEL_AUTO) last; auto is measured against the
 * fixed levels, so at least one of them is needed.  Sets b->zstd_max,
 * the -Y of the cairnd the sweep runs: the highest zstd level asked,
 * and with auto at least what cairnd offers by default, as auto would
 * get from a cairnd left at its defaults.
 */
static int
parse_levels(struct bench *b, const char *s)
{
	int			 want[NLEVELS] = { 0 };
	const char		*p = s, *zs = zlevel_label(ZLEVEL_ZSTD);
	enum zlevel_codec	 codec;
	long			 lo, hi, i;

	while (*p != '\0') {
		if (strncmp(p, "auto", 4) == 0) {
			want[LEVEL_AUTO] = 1;
			p += 4;
		} else {
			codec = ZLEVEL_ZLIB;
			if (strncmp(p, zs, strlen(zs)) == 0 &&
			    p[strlen(zs)] == ':') {
				codec = ZLEVEL_ZSTD;
				p += strlen(zs) + 1;
			}
			if (parse_level_number(&p, codec, &lo) == -1)
				return -1;
			hi = lo;
			if (*p == '-') {
				p++;
				if (parse_level_number(&p, codec, &hi) == -1 ||
				    hi < lo)
					return -1;
			}
			for (i = lo; i <= hi; i++)
				want[codec == ZLEVEL_ZSTD ?
				    LEVEL_ZSTD(i) : i] = 1;
		}
		if (*p == ',')
			p++;
		else if (*p != '\0')
			return -1;
	}
	b->nlevels = b->nfixed = 0;
	b->zstd_max = 0;
	for (i = 0; i < NLEVELS; i++)
		if (want[i]) {
			b->levels[b->nlevels++] = (int)i;
			if (i != LEVEL_AUTO)
				b->nfixed++;
			if (level_codec((int)i) == ZLEVEL_ZSTD)
				b->zstd_max = level_number((int)i);
		}
	if (want[LEVEL_AUTO] &&
	    b->zstd_max < zlevel_default_max(ZLEVEL_ZSTD))
		b->zstd_max = zlevel_default_max(ZLEVEL_ZSTD);
	return b->nfixed > 0 ? 0 : -1;
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
	int		 custom = 0, named = 0, r;

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
			if (i == NPROFILES || named || custom)
				goto bad;
			l->name = xstrdup(profiles[i].name);
			l->rate = profiles[i].rate;
			l->rtt_us = profiles[i].rtt_us;
			named = 1;
			continue;
		}
		*eq++ = '\0';
		custom = 1;
		if (strcmp(tok, "rate") == 0)
			r = parse_unit(eq, rate_units, 1e3, 1e12, &l->rate);
		else if (strcmp(tok, "rtt") == 0)
			r = parse_unit(eq, time_units, 0, 10e6, &l->rtt_us);
		else if (strcmp(tok, "name") == 0 && *eq != '\0' &&
		    strcspn(eq, " \t\",") == strlen(eq)) {
			free(l->name);
			l->name = xstrdup(eq);
			named = 2;
			r = 0;
		} else
			r = -1;
		if (r == -1)
			goto bad;
	}
	free(copy);
	if (!named && !custom)
		return -1;
	if (named != 2 && custom) {
		/* A custom link is named by its setting. */
		rate_name(rt, sizeof(rt), l->rate);
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
bad:
	free(copy);
	free(l->name);
	l->name = NULL;
	return -1;
}

/* -s and the size operand of --make-corpus. */
static void
opt_size(struct bench *b, const char *arg)
{
	if (parse_unit(arg, size_units, 1024, 64.0 * 1073741824,
	    &b->corpus.size) == -1 || b->corpus.size == 0)
		baduse("--corpus %s: expected a size from 1K to 64G, such as "
		    "16M", arg);
	b->size_arg = arg;
}

/* --server host:port: its IPv4 address. */
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
		fatalx("--server %s: %s", b->server, gai_strerror(e));
	memcpy(&b->remote, res->ai_addr, sizeof(b->remote));
	freeaddrinfo(res);
	free(host);
}

/* Free what b holds and close the namespace it keeps open. */
static void
bench_free(struct bench *b)
{
	int	k, li;

	for (k = 0; k < b->nlinks; k++) {
		free(b->links[k].name);
		for (li = 0; li < b->nlevels; li++) {
			free(b->links[k].cells[li].runs);
			free(b->links[k].dcells[li].runs);
		}
		free(b->links[k].rcell.runs);
	}
	free(b->ktcheck);
	free(b->fsdiff);
	free(b->lapply);
	free(b->cairnd);
	free(b->publish);
	free(b->rsync);
	free(b->rsyncd_conf);
	free(b->ip);
	free(b->tcbin);
	free(b->repo);
	free(b->cachedir);
	free(b->work);
	free(b->bindir);
	if (b->netns_fd != -1)
		close(b->netns_fd);
}

/*
 * -B dir, made absolute once and for all: the tools found there run in
 * other working directories (the repository, the client's root).
 */
static void
opt_bindir(struct bench *b, const char *dir)
{
	struct stat	st;
	char		*abs;

	if ((abs = realpath(dir, NULL)) == NULL)
		baduse("--bindir %s: %s", dir, strerror(errno));
	if (stat(abs, &st) == -1 || !S_ISDIR(st.st_mode))
		baduse("--bindir %s: not a directory", dir);
	free(b->bindir);
	b->bindir = abs;
}

/*
 * --update OLD NEW: the two trees (directories), and what goes with them:
 * the levels 6 and auto unless -l says otherwise; no other data, no
 * remote server, no figure.
 */
static void
opts_update(struct bench *b, int argc, char *argv[])
{
	struct stat	st;
	int		i;

	if (!delta_built())
		baduse("--update: delta transfer is not built in (configured "
		    "--without-zstd)");
	if (argc != 2)
		baduse("--update takes two trees, OLD and NEW (%d given)",
		    argc);
	for (i = 0; i < 2; i++)
		if (stat(argv[i], &st) == -1)
			baduse("--update %s: %s", argv[i], strerror(errno));
		else if (!S_ISDIR(st.st_mode))
			baduse("--update %s: not a directory", argv[i]);
	b->old_tree = argv[0];
	b->new_tree = argv[1];
	if (b->data != NULL || b->size_arg != NULL)
		baduse("--update pulls the trees it is given: -d and -s do not "
		    "apply");
	if (b->server != NULL || b->cache != NULL || b->svg != NULL ||
	    b->runs_csv != NULL || b->make_repo != NULL ||
	    b->make_corpus != NULL)
		baduse("--update goes without --server, --cache, --svg, "
		    "--runs-csv, --make-repo and --make-corpus");
	if (!b->levels_set)
		parse_levels(b, "6,auto");
}

/* The options, into b; exits on a usage error. */
static void
opts_parse(struct bench *b, int argc, char *argv[])
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
		{ "cache",	required_argument,	NULL, 'Z' },
		{ "make-corpus", required_argument,	NULL, 'G' },
		{ "files",	required_argument,	NULL, 'F' },
		{ "seed",	required_argument,	NULL, 'E' },
		{ "shaper",	required_argument,	NULL, 'T' },
		{ "runs-csv",	required_argument,	NULL, 'U' },
		{ "update",	no_argument,		NULL, 'P' },
		{ "help",	no_argument,		NULL, 'h' },
		{ NULL,		0,			NULL, 0 }
	};
	struct zlevel	 zl[ZLEVEL_LISTMAX];
	struct cerr	 zerr;
	const char	*es;
	int		 ch, nzl;

	while ((ch = getopt_long(argc, argv, "B:d:s:l:L:n:w:kqhV", longopts,
	    NULL)) != -1) {
		switch (ch) {
		case 'B':
			opt_bindir(b, optarg);
			break;
		case 'd':
			b->data = optarg;
			break;
		case 's':
			opt_size(b, optarg);
			break;
		case 'l':
			if (parse_levels(b, optarg) == -1)
				baduse("--levels %s: expected zlib's levels "
				    "0-9, zstd's zstd:1-19, and auto beside "
				    "one of them, such as 0-9,auto or "
				    "0,1,6,zstd:1,zstd:3", optarg);
			b->levels_set = 1;
			break;
		case 'L':
			if (parse_link(b, optarg) == -1)
				baduse("--link %s: expected a profile "
				    "(cairn-bench --help lists them) or "
				    "rate=R[,rtt=T][,name=N]", optarg);
			break;
		case 'n':
			b->reps = (int)strtonum(optarg, 1, MAXREPS, &es);
			if (es != NULL)
				baduse("--reps %s: %s", optarg, es);
			break;
		case 'w':
			b->work = xstrdup(optarg);
			break;
		case 'k':
			b->keep = 1;
			break;
		case 'q':
			b->quiet = 1;
			break;
		case 'C':
			b->csv = optarg;
			break;
		case 'S':
			b->svg = optarg;
			break;
		case 'R':
			b->server = optarg;
			break;
		case 'M':
			b->make_repo = optarg;
			break;
		case 'Z':
			/* As cairnd -W takes them, checked here: usage. */
			if (zlevel_parse_list("--cache", optarg, zl, &nzl,
			    &zerr) == -1)
				baduse("%s", zerr.msg);
			b->cache = optarg;
			break;
		case 'G':
			b->make_corpus = optarg;
			break;
		case 'F':
			b->corpus.files = (uint64_t)strtonum(optarg, 1,
			    100000000, &es);
			if (es != NULL)
				baduse("--files %s: %s", optarg, es);
			break;
		case 'E':
			b->corpus.seed = (uint64_t)strtonum(optarg, 0,
			    LLONG_MAX, &es);
			if (es != NULL)
				baduse("--seed %s: %s", optarg, es);
			break;
		case 'U':
			b->runs_csv = optarg;
			break;
		case 'P':
			b->update = 1;
			break;
		case 'T':
			if (strcmp(optarg, "tc") == 0)
				b->tc = 1;
			else if (strcmp(optarg, "relay") == 0)
				b->tc = 0;
			else
				baduse("--shaper %s: expected relay or tc",
				    optarg);
			break;
		case 'h':
			help();
		case 'V':
			version_print(0);
			exit(BENCH_EXIT_OK);
		default:
			usage();
		}
	}
	/* --make-corpus dir takes its size as an operand as well as -s. */
	if (b->make_corpus != NULL && optind == argc - 1 &&
	    b->corpus.files == 0)
		opt_size(b, argv[optind++]);
	if (b->update)
		opts_update(b, argc - optind, argv + optind);
	else if (optind != argc)
		usage();
	if (b->corpus.files > 0 && b->make_corpus == NULL)
		baduse("--files makes a corpus of small files: it goes with "
		    "--make-corpus");
	if (b->data != NULL && access(b->data, R_OK | X_OK) != 0)
		baduse("--data %s: %s", b->data, strerror(errno));
}

/* The links to measure: the default set, or the real link of --server. */
static void
opts_links(struct bench *b)
{
	char	*links, *tok, *save = NULL;
	int	 k;

	if (b->nlinks == 0) {
		if (b->server != NULL)
			parse_link(b, "loopback");
		else {
			links = xstrdup(DEFAULT_LINKS);
			for (tok = strtok_r(links, " ", &save); tok != NULL;
			    tok = strtok_r(NULL, " ", &save))
				parse_link(b, tok);
			free(links);
		}
	}
	if (b->server != NULL) {
		/* A real link: no emulation, the one link is the network. */
		for (k = 0; k < b->nlinks; k++)
			if (b->links[k].rate != 0 || b->links[k].rtt_us != 0)
				baduse("--server measures the real link: "
				    "--link does not apply");
		if (b->tc)
			baduse("--shaper tc and --server exclude each other");
		free(b->links[0].name);
		b->links[0].name = xstrdup(b->server);
		b->nlinks = 1;
		resolve_remote(b);
	}
}

/* The tools of the pull path and the server. */
static void
find_tools(struct bench *b)
{
	char	*where = NULL;

	/*
	 * With -B the tools measured are those of that tree and no other:
	 * falling back on the ones next to cairn-bench or in PATH would
	 * quietly measure something else than was asked.
	 */
	if (b->bindir != NULL) {
		xasprintf(&where, "in --bindir %s or in its server, sbin, "
		    "client or bin subdirectory", b->bindir);
		b->fsdiff = spawn_find_in(b->bindir, "fsdiff");
		b->ktcheck = spawn_find_in(b->bindir, "ktcheck");
		b->lapply = spawn_find_in(b->bindir, "lapply");
		b->cairnd = spawn_find_in(b->bindir, "cairnd");
		b->publish = spawn_find_in(b->bindir, "cairn-publish");
	} else {
		where = xstrdup("next to cairn-bench or in PATH");
		b->fsdiff = spawn_find(b, "fsdiff");
		b->ktcheck = spawn_find(b, "ktcheck");
		b->lapply = spawn_find(b, "lapply");
		b->cairnd = spawn_find(b, "cairnd");
		b->publish = spawn_find(b, "cairn-publish");
	}
	if (b->fsdiff == NULL)
		fatalx("fsdiff not found %s", where);
	if (b->make_repo == NULL) {
		if (b->ktcheck == NULL || b->lapply == NULL)
			fatalx("ktcheck and lapply are needed: not found %s",
			    where);
		if (b->server == NULL && b->cairnd == NULL)
			fatalx("cairnd not found %s (or give --server)",
			    where);
		if (b->update && b->publish == NULL)
			fatalx("cairn-publish is needed by --update: not found "
			    "%s", where);
	}
	free(where);
}

/*
 * The work directory: -w (made if missing), else a temporary one.
 * Returns whether it is temporary.
 */
static int
make_work(struct bench *b)
{
	char	*path;
	int	 own = 0;

	if (b->work == NULL) {
		xasprintf(&path, "%s/cairn-bench.XXXXXX", getenv("TMPDIR") ?
		    getenv("TMPDIR") : "/tmp");
		if ((b->work = mkdtemp(path)) == NULL)
			fatal("mkdtemp %s", path);
		own = 1;
	} else
		util_mkdir_p(b->work);
	if ((path = realpath(b->work, NULL)) == NULL)
		fatal("%s", b->work);
	free(b->work);
	b->work = path;
	return own;
}

/*
 * --cache: cairnd -W fills a compressed cache for the repository at the
 * levels given, before any run; every cairnd then serves from it (-c).
 */
static void
cache_warm(struct bench *b)
{
	char	*argv[10], *log;
	int	 i = 0;

	xasprintf(&b->cachedir, "%s/zcache", b->work);
	xasprintf(&log, "%s/cairnd-warm.log", b->work);
	argv[i++] = b->cairnd;
	argv[i++] = "-D";
	argv[i++] = b->repo;
	argv[i++] = "-c";
	argv[i++] = b->cachedir;
	argv[i++] = "-W";
	argv[i++] = (char *)b->cache;
	argv[i] = NULL;
	if (spawn_run(argv, b->repo, log, NULL) != 0) {
		spawn_show_log(log);
		fatalx("cairnd -W %s failed", b->cache);
	}
	free(log);
}

/* The sweep: every link, every level, then the report. */
static void
sweep(struct bench *b)
{
	struct levelfit	 fit[NLEVELS];
	double		 cross[NLEVELS];
	int		 k;

	if (b->tc)
		tc_setup(b);
	if (b->server == NULL) {
		xasprintf(&b->repo, "%s/repo", b->work);
		repo_make(b, b->repo);
		if (b->cache != NULL)
			cache_warm(b);
	} else {
		/* The remote serves its own data; count what arrives. */
		b->corpus_desc = "remote server's data";
	}
	printf("cairn-bench: %s", b->corpus_desc);
	if (b->server == NULL)
		printf(", %" PRIu64 " files, %.1f MB", b->nfiles,
		    b->raw_bytes / 1e6);
	printf("; levels");
	for (k = 0; k < b->nlevels; k++)
		printf("%s%s", k ? "," : " ", level_name(b->levels[k]));
	printf("; %d run%s each\n", b->reps, b->reps > 1 ? "s" : "");
	fflush(stdout);

	b->total = b->nlinks * (1 + b->reps * b->nlevels);
	for (k = 0; k < b->nlinks; k++)
		sweep_link(b, &b->links[k]);
	run_retired_remove(b);
	if (b->server != NULL) {
		/* Raw bytes: what lapply wrote, i.e. the root's files. */
		b->raw_bytes = b->links[0].cells[0].raw_med ?
		    b->links[0].cells[0].raw_med :
		    b->links[0].cells[0].down_med;
	}

	model_fit(b, fit);
	report_text(b, fit, cross);
	if (b->csv != NULL) {
		report_csv(b, cross);
		printf("CSV: %s\n", b->csv);
	}
	if (b->runs_csv != NULL)
		report_runs_csv(b);
	if (b->svg != NULL)
		svg_write(b, fit);
	tc_teardown(b);
}

int
main(int argc, char *argv[])
{
	struct bench	 b;
	char		*zdir;
	int		 own_work;

	log_init("cairn-bench", LOG_TO_STDERR | LOG_PREFIX, 0);
	log_setfatalstatus(BENCH_EXIT_FAIL);
	memset(&b, 0, sizeof(b));
	b.netns_fd = -1;
	b.reps = 3;
	b.corpus.size = 16 * 1024 * 1024;
	b.corpus.seed = 1;
	parse_levels(&b, DEFAULT_LEVELS);
	opts_parse(&b, argc, argv);
	/*
	 * A generated corpus too small to measure is refused: it would be
	 * timed by the tools' start-up (a tree of one's own, -d, is
	 * measured with a warning).
	 */
	if (b.make_corpus == NULL && b.make_repo == NULL && b.data == NULL &&
	    b.server == NULL && !b.update && b.corpus.size < BENCH_MINDATA)
		baduse("--corpus %s: too small to measure (the pull would be "
		    "timed by the tools' start-up); at least 1M", b.size_arg);
	if (b.make_corpus != NULL) {
		corpus_make(b.make_corpus, &b.corpus, stdout);
		return BENCH_EXIT_OK;
	}
	opts_links(&b);
	find_tools(&b);
	own_work = make_work(&b);
	/*
	 * lapply keeps the zstd dictionary it takes (lapply(1)) here, as a
	 * client of the fleet would between pulls: the first run fetches
	 * it, the later ones name it.
	 */
	xasprintf(&zdir, "%s/zdict", b.work);
	if (setenv("CAIRN_ZDICTDIR", zdir, 1) == -1)
		fatal("setenv");
	free(zdir);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGPIPE, SIG_IGN);
	/*
	 * The bar goes to stderr on a terminal.  Unless stdout is that
	 * terminal too, every finished run also gets a line on stdout, so
	 * that a sweep sent to a file or a pipe does not sit silent for
	 * minutes.  -q: neither.
	 */
	b.tty = isatty(STDERR_FILENO);
	b.runlines = !b.quiet && !(b.tty && isatty(STDOUT_FILENO));

	if (b.make_repo != NULL) {
		repo_make(&b, b.make_repo);
		printf("repository in %s: %" PRIu64 " files, %.1f MB; serve "
		    "it with cairnd -Z 9 -D %s\n", b.make_repo, b.nfiles,
		    b.raw_bytes / 1e6, b.make_repo);
	} else if (b.update)
		update_sweep(&b);
	else
		sweep(&b);
	if (own_work && !b.keep)
		util_rmtree(b.work);
	else if (b.make_repo == NULL)
		printf("work directory kept: %s\n", b.work);
	bench_free(&b);
	return BENCH_EXIT_OK;
}
