/*
 * lapply: apply an applicable transcript (fsdiff -A output) to the
 * file system, downloading "+" files from the server (lapply(1)).
 * The options and the session are here; the work is the receive side
 * library of libclient.a (apply.h, apply.c).
 */
#include "config.h"

#include <sys/types.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "cerr.h"
#include "cksum.h"
#include "compat.h"
#include "copts.h"
#include "download.h"
#include "intr.h"
#include "log.h"
#include "net.h"
#include "sig.h"
#include "transcript.h"
#include "zdkeep.h"

#define MAXJOBS		16	/* -j: download connections at most */

static void __attribute__((noreturn))
usage(void)
{
	fprintf(stderr, "usage: lapply [-CFiInrV] [-%% | -q | -v] "
	    "[-c checksum] [-e event] [-j connections] [-k keys] "
	    "[-u umask] %s "
	    "[appliable-transcript]\n", copts_usage());
	exit(APPLY_FAIL);
}

/* The shortest digest a signed release vouches for: SHA-256, in base64. */
#define LAPPLY_KEYSUM	44

/* lapply's own options; the shared network ones go through copts. */
struct lopts {
	struct apply	*ap;
	int		 percent;
};

static int
lapply_opt(int c, const char *arg, void *ctx)
{
	struct lopts	*lo = ctx;
	struct apply	*ap = lo->ap;
	const char	*errstr;

	switch (c) {
	case '%':
		lo->percent = 1;
		break;
	case 'C':
		ap->create_prefix = 1;
		break;
	case 'F':
		ap->force = 1;
		break;
	case 'j':
		ap->jobs = (int)strtonum(arg, 1, MAXJOBS, &errstr);
		if (errstr != NULL) {
			log_warnx("%s: invalid number of connections "
			    "(1 to %d)", arg, MAXJOBS);
			return -1;
		}
		break;
	case 'n':
		ap->network = 0;
		break;
	}
	return 0;
}

/*
 * With public keys pinned, every file lapply downloads must be checked
 * against a digest a signed release can vouch for: -c must be SHA-256
 * or stronger, and so must the checksum of each "+" line (else its
 * file would go unchecked or fail halfway).  Refused before anything
 * changes.  Returns 0, or -1 after saying why.
 */
static int
keys_check(const struct apply *ap, const char *keypath)
{
	const struct tline	*t;
	char			 sum[CKSUM_B64MAX];
	size_t			 i, want;

	if (ap->digest == NULL || cksum_data(ap->digest, "", 0, sum) == -1 ||
	    (want = strlen(sum)) < LAPPLY_KEYSUM) {
		log_warnx("keys pinned in %s: lapply needs -c sha256 or "
		    "stronger (sha384, sha512), not %s: refusing", keypath,
		    ap->digest != NULL ? ap->digest : "none");
		return -1;
	}
	for (i = 0; i < ap->nent; i++) {
		t = &ap->ent[i].t;
		if (!t->plus || (t->type != 'f' && t->type != 'a'))
			continue;
		if (strlen(t->cksum) != want) {
			log_warnx("%s: line %u: %s: keys pinned in %s: lapply "
			    "needs -c sha256 or stronger, and this file's "
			    "checksum \"%s\" is not a %s digest: refusing",
			    ap->name, t->lineno, t->path, keypath, t->cksum,
			    ap->digest);
			return -1;
		}
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct apply	 a, *ap = &a;
	struct netopts	 no;
	struct copts	 co;
	struct lopts	 lo;
	struct cerr	 err;
	struct progtotal total;
	FILE		*fp;
	struct sigkeys	*keys;
	const char	*zdir;
	int		 first, percent, bad = 0, mode, pinned, rc, how;

	log_init("lapply", LOG_TO_STDERR, 0);
	log_setfatalstatus(APPLY_FAIL);
	/* Past a file size limit, write fails with EFBIG: no signal. */
	signal(SIGXFSZ, SIG_IGN);
	/* Interrupted, it leaves no temp file (lapply(1), EXIT STATUS). */
	if (intr_init() == -1)
		fatal("signals");
	memset(ap, 0, sizeof(*ap));
	copts_init(&co, COPTS_NET | COPTS_DIGEST | COPTS_EVENT | COPTS_ICASE |
	    COPTS_LINEBUF | COPTS_QUIET | COPTS_UMASK | COPTS_KEYS, &no);
	ap->network = 1;
	co.event = "lapply";
	ap->jobs = 1;
	ap->no = &no;
	no.readahead = 1;
	lo.ap = ap;
	lo.percent = 0;
	if ((first = copts_parse(argc, argv, &co, "%CFj:n", lapply_opt,
	    &lo)) == -1)
		usage();
	ap->icase = co.icase;
	optind = first;
	percent = lo.percent;
	ap->digest = co.digest;
	ap->event = co.event;
	ap->quiet = co.quiet;
	ap->verbose = co.verbose > 0;

	if (ap->quiet && percent)
		bad++;
	if (ap->verbose && percent)
		bad++;
	if (argc - optind > 1)
		bad++;
	if (bad)
		usage();
	if ((keys = copts_keys(&co, &err)) == NULL)
		fatalx("%s", err.msg);
	pinned = sigkeys_count(keys) > 0;
	sigkeys_free(keys);
	if (pinned && keys_check(ap, co.keys) == -1)
		exit(APPLY_FAIL);

	if (argc - optind == 1) {
		ap->name = argv[optind];
		if ((fp = fopen(ap->name, "r")) == NULL)
			fatal("%s", ap->name);
	} else {
		ap->name = "(stdin)";
		fp = stdin;
		percent = 0;		/* the total is not known ahead */
	}
	if (!ap->network)
		no.tls = 0;
	if (ap->digest != NULL)
		ap->ck = cksum_new(ap->digest);

	if (ap->network) {
		if ((ap->net = net_open(&no, &err)) == NULL)
			fatalx("%s", err.msg);
	} else if (!ap->quiet)
		printf("No network connection\n");

	if (apply_load(ap, fp, &total) == -1 ||
	    (pinned && keys_check(ap, co.keys) == -1))
		intr_exit(apply_finish(ap, 0));
	/*
	 * Something to fetch: the server's zstd dictionary, kept from an
	 * earlier session, or fetched when it pays for itself.
	 */
	if (ap->net != NULL) {
		zdir = zdkeep_dir();
		if ((rc = dl_zdict(ap->net, total.bytes, zdir, &how,
		    &err)) == DL_DEAD)
			fatalx("%s", err.msg);
		/* Refused (not for this host): no matter, but -v says so. */
		if (rc != DL_OK && co.verbose > 0)
			log_info("%s: going on without it", err.msg);
		else if (how != DL_ZDICT_NONE && co.verbose > 0)
			log_info("%s: zstd dictionary %u in use (%s%s)",
			    net_peer(ap->net), net_zdict_id(ap->net),
			    how == DL_ZDICT_KEPT ? "kept from an earlier "
			    "session" : how == DL_ZDICT_SAVED ? "fetched, kept "
			    "in " : "fetched", how == DL_ZDICT_SAVED ? zdir :
			    "");
	}

	if (fp != stdin)
		fclose(fp);

	/*
	 * The status line goes to stderr, so stdout keeps only the
	 * messages: it is drawn whenever stderr is a terminal, also with
	 * stdout sent elsewhere.  The trace of -v has stderr to itself.
	 */
	if (percent)
		mode = PROG_PERCENT;
	else if (isatty(STDERR_FILENO) && !ap->quiet && !ap->verbose)
		mode = PROG_LINE;
	else
		mode = PROG_NONE;
	intr_exit(apply_finish(ap, apply_run(ap, mode, &total) == 0));
}
