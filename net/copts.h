/*
 * copts.h: the options the tools share, parsed by one table (copts.c)
 * with one check for each: the network options (-h -p -w -x -P -y -z -Z
 * -r, and -v), the digest (-c), the Radmind directory (-D), the event
 * (-e), -I, -i, -q, the umask (-u) and -V.  A tool names the shared options
 * it takes (COPTS_*), its own getopt letters and a callback for them; a
 * letter the tool lists itself is the tool's, not the shared one
 * (lfdiff's -c and -D are diff's, lcksum's -P is a prefix).
 */
#ifndef CAIRN_COPTS_H
#define CAIRN_COPTS_H

struct netopts;

/* The shared options a tool takes, or'ed; every tool takes -V. */
#define COPTS_VERBOSE	0x01	/* -v, counted */
#define COPTS_NET	(0x02 | COPTS_VERBOSE)	/* -h -p -w -x -P -y -z -Z -r */
#define COPTS_DIGEST	0x04	/* -c digest; -V then lists the digests */
#define COPTS_DIR	0x08	/* -D path of the Radmind directory */
#define COPTS_EVENT	0x10	/* -e event, one word */
#define COPTS_QUIET	0x20	/* -q; with -v too, a usage error */
#define COPTS_UMASK	0x40	/* -u umask, read as C does (022 is octal) */
#define COPTS_UMASK8	0x80	/* -u umask, octal only (lfdiff(1)) */
#define COPTS_LINEBUF	0x100	/* -i: standard output line buffered */
#define COPTS_ICASE	0x200	/* -I: names compared regardless of case */
#define COPTS_KEYS	0x400	/* -k keys: the public keys pinned */

/*
 * What the shared options said.  A tool may set a default in digest,
 * dir or event between copts_init and copts_parse; a default digest is
 * checked like a given one.
 */
struct copts {
	int		 want;		/* COPTS_* */
	struct netopts	*no;		/* COPTS_NET: the network options */
	const char	*digest;	/* -c, a name cksum_new() takes */
	const char	*dir;		/* -D */
	const char	*event;		/* -e */
	int		 icase;		/* -I */
	int		 quiet;		/* -q */
	int		 verbose;	/* -v, also in no->verbose */
	const char	*keys;		/* -k, else the default (COPTS_KEYS) */
	int		 keys_given;	/* ... -k was given */
};

/*
 * Callback for a tool's own option, called only with one of the letters
 * the tool gave copts_parse: return 0, or -1 for a usage error.
 */
typedef int (*copts_fn)(int ch, const char *arg, void *ctx);

/*
 * Start co for a tool taking the shared options want (COPTS_*).  With
 * COPTS_NET, no gets the network defaults: host "radmind", no port
 * (service, then 6222), -w 0, -Z 0.
 */
void	copts_init(struct copts *co, int want, struct netopts *no);

/*
 * Parse argv with getopt.  Shared options fill co; the tool's letters
 * (extra, getopt syntax, e.g. "CK:n") go to fn.  -V prints the version
 * (version_print: with the digests when the tool takes -c) and exits 0;
 * a digest no one supports is fatal at once ("name: unsupported
 * checksum", exit 2), as in Radmind.  Returns optind, or -1 on a usage
 * error (unknown option, missing argument, bad -p, -w, -Z, -e or -u, -q
 * with -v, or fn refused) after saying what is wrong, -q with -v aside;
 * the tool then prints its synopsis and exits 2.
 */
int	copts_parse(int argc, char *argv[], struct copts *co,
	    const char *extra, copts_fn fn, void *ctx);

/*
 * COPTS_KEYS: the public keys pinned, loaded from -k (a file or a
 * directory, sig.h), else from the default directory CAIRN_KEYSDIR.  A
 * named path that is missing or holds no key is an error, a missing or
 * empty default directory pins none.  NULL with err on error; otherwise
 * a set (sigkeys_count 0: no key pinned), to be freed.
 */
struct cerr;
struct sigkeys	*copts_keys(const struct copts *co, struct cerr *err);

/* The shared options for a usage line, e.g. "[-h host] [-p port] ...". */
const char *copts_usage(void);

#endif
