/*
 * copts.c: the options the tools share (copts.h): one row for each, one
 * check for each, whichever tool takes it.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "cksum.h"
#include "compat.h"
#include "copts.h"
#include "fsutil.h"
#include "log.h"
#include "net.h"
#include "sig.h"
#include "version.h"
#include "zlevel.h"

/* The network options proper; COPTS_NET adds -v. */
#define NETONLY		(COPTS_NET & ~COPTS_VERBOSE)

/* One row per shared option: the letter, and the tools it is for. */
static const struct copt {
	char		 ch;
	int		 hasarg;
	int		 want;		/* COPTS_* a tool asks for it with */
} copts[] = {
	{ 'h', 1, NETONLY },		/* server host(s) */
	{ 'p', 1, NETONLY },		/* port (number or service name) */
	{ 'w', 1, NETONLY },		/* TLS authorization level 0..2 */
	{ 'x', 1, NETONLY },		/* CA file */
	{ 'P', 1, NETONLY },		/* CA directory */
	{ 'y', 1, NETONLY },		/* client certificate */
	{ 'z', 1, NETONLY },		/* client private key */
	{ 'Z', 1, NETONLY },		/* 0..9, auto, zstd[:level] */
	{ 'r', 0, NETONLY },		/* OpenSSL random seed file: accepted */
	{ 'v', 0, COPTS_VERBOSE },	/* more detail (the protocol trace) */
	{ 'c', 1, COPTS_DIGEST },	/* digest name */
	{ 'D', 1, COPTS_DIR },		/* Radmind directory */
	{ 'e', 1, COPTS_EVENT },	/* event name for REPO */
	{ 'I', 0, COPTS_ICASE },	/* case-insensitive names */
	{ 'i', 0, COPTS_LINEBUF },	/* line-buffered stdout */
	{ 'q', 0, COPTS_QUIET },	/* quiet */
	{ 'u', 1, COPTS_UMASK | COPTS_UMASK8 },	/* umask */
	{ 'k', 1, COPTS_KEYS },		/* public keys pinned */
	{ 'V', 0, 0 },			/* version: every tool */
};
#define NCOPTS	(sizeof(copts) / sizeof(copts[0]))
#define COPTS_MAXHOSTS	16	/* servers in one -h list */

void
copts_init(struct copts *co, int want, struct netopts *no)
{
	memset(co, 0, sizeof(*co));
	co->want = want;
	if (want & COPTS_KEYS)
		co->keys = CAIRN_KEYSDIR;
	if ((want & COPTS_NET) == COPTS_NET) {
		co->no = no;
		memset(no, 0, sizeof(*no));
		no->host = "radmind";
	}
}

const char *
copts_usage(void)
{
	return "[-h host[,host...]] [-p port] [-P ca-pem-directory] "
	    "[-w auth-level] [-x ca-pem-file] [-y cert-pem-file] "
	    "[-z key-pem-file] "
	    "[-Z compression-level | auto | zstd[:level]]";
}

/*
 * -p: a port number (1..65535) or a TCP service name services(5) knows.
 * Checked here so that the message names the port, not the host the
 * connection would have failed to reach.
 */
static int
copts_port(const char *arg)
{
	const char	*errstr;

	if (arg[0] != '\0' && strspn(arg, "0123456789") == strlen(arg)) {
		(void)strtonum(arg, 1, 65535, &errstr);
		if (errstr == NULL)
			return 0;
	} else if (arg[0] != '\0' && getservbyname(arg, "tcp") != NULL)
		return 0;
	log_warnx("%s: invalid port (a number 1-65535 or a service name)",
	    arg);
	return -1;
}

/*
 * -h: one server, or several separated by commas, tried in that order
 * (net_open): no name may be empty, and at most COPTS_MAXHOSTS.
 */
static int
copts_hosts(const char *arg)
{
	const char	*p, *e;
	int		 n = 0;

	for (p = arg;; p = e + 1) {
		e = strchr(p, ',');
		if (e == p || *p == '\0') {
			log_warnx("%s: invalid server list (names separated "
			    "by commas, none empty)", arg);
			return -1;
		}
		if (++n > COPTS_MAXHOSTS) {
			log_warnx("%s: more than %d servers", arg,
			    COPTS_MAXHOSTS);
			return -1;
		}
		if (e == NULL)
			return 0;
	}
}

/*
 * -c: a digest the crypto library knows, or the tool ends here, before
 * any other usage error is looked at: Radmind's tools do the same, with
 * the same words (cksum_check).
 */
static void
copts_digest(const char *arg)
{
	struct cerr	 err;

	if (cksum_check(arg, &err) == -1)
		fatalx("%s", err.msg);
}

/* -e: an event name for REPO, one word. */
static int
copts_event(const char *arg)
{
	if (arg[0] == '\0' || strpbrk(arg, " \t\r\n") != NULL) {
		log_warnx("%s: event must be one word", arg);
		return -1;
	}
	return 0;
}

/*
 * -u: a number from 0 to 0777, read as C reads it (022 is octal) or,
 * for COPTS_UMASK8, in octal only; set at once.
 */
static int
copts_umask(const char *arg, int base)
{
	mode_t	 mask;

	if (fs_parse_umask(arg, base, &mask) == -1) {
		log_warnx("%s: invalid umask", arg);
		return -1;
	}
	umask(mask);
	return 0;
}

/* Set one shared option.  Returns 0 or -1 (usage error). */
static int
copts_set(struct copts *co, int ch, const char *arg)
{
	struct netopts	*no = co->no;
	struct cerr	 err;
	const char	*errstr;
	long long	 v;
	enum zlevel_codec codec;
	int		 lv;

	switch (ch) {
	case 'h':
		if (copts_hosts(arg) == -1)
			return -1;
		no->host = arg;
		break;
	case 'p':
		if (copts_port(arg) == -1)
			return -1;
		no->port = arg;
		break;
	case 'w':
		v = strtonum(arg, 0, 2, &errstr);
		if (errstr != NULL) {
			log_warnx("%s: invalid authorization level", arg);
			return -1;
		}
		no->tls = (int)v;
		break;
	case 'x':
		no->cafile = arg;
		break;
	case 'P':
		no->cadir = arg;
		break;
	case 'y':
		no->cert = arg;
		break;
	case 'z':
		no->key = arg;
		break;
	case 'Z':
		if (zlevel_parse_client(arg, &codec, &lv, &err) == -1) {
			log_warnx("%s", err.msg);
			return -1;
		}
		no->zcodec = (int)codec;
		no->zauto = lv == ZLEVEL_AUTO;
		no->zlevel = no->zauto ? 0 : lv;
		break;
	case 'r':
		break;
	case 'v':
		co->verbose++;
		break;
	case 'c':
		copts_digest(arg);
		co->digest = arg;
		break;
	case 'D':
		co->dir = arg;
		break;
	case 'e':
		if (copts_event(arg) == -1)
			return -1;
		co->event = arg;
		break;
	case 'I':
		co->icase = 1;
		break;
	case 'i':
		setvbuf(stdout, NULL, _IOLBF, 0);
		break;
	case 'q':
		co->quiet = 1;
		break;
	case 'u':
		return copts_umask(arg, co->want & COPTS_UMASK8 ? 8 : 0);
	case 'k':
		if (arg[0] == '\0') {
			log_warnx("-k: empty path");
			return -1;
		}
		co->keys = arg;
		co->keys_given = 1;
		break;
	case 'V':
		/* As Radmind's: the version, then the digests. */
		version_print((co->want & COPTS_DIGEST) ? VERSION_DIGESTS : 0);
		exit(0);
	}
	return 0;
}

struct sigkeys *
copts_keys(const struct copts *co, struct cerr *err)
{
	return sigkeys_load(co->keys, co->keys_given, err);
}

int
copts_parse(int argc, char *argv[], struct copts *co, const char *extra,
    copts_fn fn, void *ctx)
{
	char	 optstr[128];
	size_t	 i, len = 0;
	int	 ch, bad = 0;

	/* The tool's letters first; shared ones it takes, unclaimed, after. */
	if (strlcpy(optstr, extra != NULL ? extra : "", sizeof(optstr)) >=
	    sizeof(optstr))
		return -1;
	len = strlen(optstr);
	for (i = 0; i < NCOPTS; i++) {
		if (copts[i].want != 0 && (co->want & copts[i].want) == 0)
			continue;
		if (strchr(optstr, copts[i].ch) != NULL)
			continue;
		if (len + 3 >= sizeof(optstr))
			return -1;
		optstr[len++] = copts[i].ch;
		if (copts[i].hasarg)
			optstr[len++] = ':';
		optstr[len] = '\0';
	}
	while ((ch = getopt(argc, argv, optstr)) != -1) {
		if (ch == '?' || ch == ':') {
			bad = 1;
			continue;
		}
		if (extra != NULL && strchr(extra, ch) != NULL) {
			if (fn == NULL || fn(ch, optarg, ctx) == -1)
				bad = 1;
			continue;
		}
		if (copts_set(co, ch, optarg) == -1)
			bad = 1;
	}
	if (co->no != NULL)
		co->no->verbose = co->verbose;
	/* A default digest is held to the same check as a given one. */
	if ((co->want & COPTS_DIGEST) && co->digest != NULL)
		copts_digest(co->digest);
	/* -q and -v are opposites wherever both exist. */
	if ((co->want & COPTS_QUIET) && (co->want & COPTS_VERBOSE) &&
	    co->quiet && co->verbose)
		bad = 1;
	return bad ? -1 : optind;
}
