/*
 * repo: send an event report to the server's log (repo(1);
 * docs/protocol.md section 5.9).
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "compat.h"
#include "copts.h"
#include "encode.h"
#include "log.h"
#include "net.h"
#include "proto.h"
#include "xmalloc.h"

#define REPO_OK		0
#define REPO_ERROR	2
#define REPO_USAGE	2	/* as every tool's usage errors */

#define REPO_MAXMSG	(8 * 1024)	/* decoded message, bytes */

static void
usage(void)
{
	fprintf(stderr, "usage: repo -e event [-rVv] %s [message ...]\n",
	    copts_usage());
	exit(REPO_USAGE);
}

/* The message: the arguments joined by spaces, or stdin's first line. */
static char *
message(int argc, char *argv[])
{
	char	*line = NULL, *msg;
	size_t	 cap = 0, len = 0, n;
	ssize_t	 r;
	int	 i;

	if (argc > 0) {
		for (i = 0; i < argc; i++)
			len += strlen(argv[i]) + 1;
		msg = xmalloc(len);
		msg[0] = '\0';
		for (i = 0; i < argc; i++) {
			if (i > 0)
				strlcat(msg, " ", len);
			strlcat(msg, argv[i], len);
		}
		return msg;
	}
	if ((r = getline(&line, &cap, stdin)) == -1) {
		free(line);
		if (ferror(stdin))
			fatal("stdin");
		log_warnx("repo: no message (none given, stdin empty)");
		log_exit(REPO_USAGE);
	}
	n = (size_t)r;
	if (n > 0 && line[n - 1] == '\n')
		line[--n] = '\0';
	if (strlen(line) != n)
		fatalx("repo: stdin: message contains a NUL byte");
	return line;
}

int
main(int argc, char *argv[])
{
	struct netopts	 no;
	struct copts	 co;
	struct net	*net;
	struct cerr	 err;
	char		*msg;
	int		 rc = REPO_OK;

	log_init("repo", LOG_TO_STDERR, 0);
	log_setfatalstatus(REPO_ERROR);
	copts_init(&co, COPTS_NET | COPTS_EVENT, &no);
	if (copts_parse(argc, argv, &co, NULL, NULL, NULL) == -1 ||
	    co.event == NULL)
		usage();
	msg = message(argc - optind, argv + optind);
	if (msg[0] == '\0') {
		log_warnx("repo: empty message");
		log_exit(REPO_USAGE);
	}
	if (strlen(msg) > REPO_MAXMSG)
		fatalx("repo: message longer than %d bytes", REPO_MAXMSG);
	if ((net = net_open(&no, &err)) == NULL)
		fatalx("%s", err.msg);
	if (!net_has_cap(net, "REPO")) {
		log_warnx("%s: server does not support reporting", no.host);
		rc = REPO_ERROR;
	} else if (net_report(net, co.event, msg, &err) == -1) {
		log_warnx("%s", err.msg);
		rc = REPO_ERROR;
	}
	if (net_close(net, &err) == -1) {
		log_warnx("%s", err.msg);
		rc = REPO_ERROR;
	}
	free(msg);
	return rc;
}
