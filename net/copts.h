/*
 * copts.h: the network options every client tool shares (-h -p -w -x -P
 * -y -z -Z -v -r), parsed by one table.  A tool passes its own getopt
 * letters and a callback for them; a letter the tool lists itself is the
 * tool's, not the shared one.
 */
#ifndef CAIRN_COPTS_H
#define CAIRN_COPTS_H

struct netopts;

/* Callback for a tool's own option: return 0, or -1 for a usage error. */
typedef int (*copts_fn)(int ch, const char *arg, void *ctx);

/* Defaults: host "radmind", no port (service, then 6222), -w 0, -Z 0. */
void	copts_init(struct netopts *);

/*
 * Parse argv with getopt.  Shared options fill no; the tool's letters
 * (extra, getopt syntax, e.g. "Cc:K:nq") go to fn.  Returns optind, or
 * -1 on a usage error (unknown option, missing argument, bad -p, -w or
 * -Z, or fn refused) after saying what is wrong; the tool then prints
 * its synopsis and exits 2.
 */
int	copts_parse(int argc, char *argv[], struct netopts *no,
	    const char *extra, copts_fn fn, void *ctx);

/*
 * Options several tools take alike, for their callbacks: each returns 0,
 * or -1 (a usage error) after saying what is wrong with arg.
 * copts_event: an event name for REPO (-e), one word.
 * copts_umask: a umask (-u) in base (strtol: 0 for C style, 8), set.
 */
int	copts_event(const char *arg);
int	copts_umask(const char *arg, int base);

/* The shared options for a usage line, e.g. "[-h host] [-p port] ...". */
const char *copts_usage(void);

#endif
