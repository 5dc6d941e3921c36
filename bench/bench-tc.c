/*
 * bench-tc.c: --shaper tc.  The server runs in a network namespace of its
 * own and the tools in another, joined by a veth pair whose ends tbf
 * shapes at the link rate (the relay, inside the client namespace, adds
 * only the delay).  The teardown is safe in a signal handler and removes
 * a namespace file left busy by a session that is still exiting.
 */
#include "config.h"

#include <sys/types.h>
#ifdef __linux__
#include <sys/mount.h>
#endif

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "log.h"
#include "xmalloc.h"

/* Run "ip"/"tc" with the given words; returns the exit status. */
static int
tc_run(struct bench *b, const char *tool, ...)
{
	va_list	 ap;
	char	*argv[24], *log;
	int	 i = 0, st;

	argv[i++] = (char *)tool;
	va_start(ap, tool);
	while (i < 23 && (argv[i] = va_arg(ap, char *)) != NULL)
		i++;
	va_end(ap);
	argv[i] = NULL;
	xasprintf(&log, "%s/tc.log", b->work);
	st = spawn_run(argv, NULL, log, NULL);
	free(log);
	return st;
}

/*
 * Remove the namespaces made so far (their veth ends go with them).
 * "ip netns del" first; if its file is still there (a mount left busy
 * by a session that is still exiting), detach and unlink it here, a few
 * times over 200 ms; a namespace that still stays is named on stderr.
 * Uses only fork, execv, waitpid and plain system calls (the message
 * too: write(2), not the log), so a signal handler may call it, as the
 * cleanup hook tc_setup registers.
 */
void
tc_teardown(struct bench *b)
{
	static const struct timespec pause = { 0, 200000000 };
	char	*argv[5], path[96], *ns[2];
	pid_t	 pid;
	int	 k, st, fd, tries;

	ns[0] = b->ns_srv;
	ns[1] = b->ns_cli;
	for (k = 0; k < 2; k++) {
		if (!b->ns_up[k])
			continue;
		argv[0] = b->ip;
		argv[1] = "netns";
		argv[2] = "del";
		argv[3] = ns[k];
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
		snprintf(path, sizeof(path), "/var/run/netns/%s", ns[k]);
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
			(void)!write(STDERR_FILENO, ns[k], strlen(ns[k]));
			(void)!write(STDERR_FILENO, m2, sizeof(m2) - 1);
		}
		b->ns_up[k] = 0;
	}
}

/* Cleanup hook: the namespaces go on any fatal exit and on a signal. */
static void
tc_cleanup(void *arg)
{
	tc_teardown(arg);
}

/*
 * Two namespaces, server and client, joined by a veth pair with
 * 10.231.N.1 (server) and 10.231.N.2 (client), loopback up in both.
 */
void
tc_setup(struct bench *b)
{
	char	*p, a[32];
	unsigned n = (unsigned)getpid() % 250 + 1;
	int	 st;

	if (geteuid() != 0)
		baduse("--shaper tc needs root (network namespaces, tc)");
	if ((b->ip = spawn_find(b, "ip")) == NULL ||
	    (b->tcbin = spawn_find(b, "tc")) == NULL)
		baduse("--shaper tc needs ip and tc (Debian package "
		    "iproute2)");
	log_addcleanup(tc_cleanup, b);
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
	b->ns_up[0] = 1;
	if (tc_run(b, b->ip, "netns", "add", b->ns_cli, NULL) != 0)
		goto fail;
	b->ns_up[1] = 1;
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
		fatal("%s", p);
	free(p);
	return;
fail:
	xasprintf(&p, "%s/tc.log", b->work);
	spawn_show_log(p);
	fatalx("could not set up the network namespaces for --shaper tc");
}

/*
 * Shape both ends of the veth pair with tbf at the link's rate (or
 * remove the shaping for an unshaped link).  The delay stays with the
 * relay.
 */
void
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
		spawn_show_log(p);
		fatalx("tc could not shape %s", l->name);
	}
}

/*
 * With --shaper tc, start argv with "ip netns exec <client namespace>"
 * (which execs the tool in place, so wait4 still sees the tool itself).
 * Returns the number of words put in.
 */
int
tc_ns_prefix(const struct bench *b, char *argv[])
{
	if (!b->tc)
		return 0;
	argv[0] = b->ip;
	argv[1] = "netns";
	argv[2] = "exec";
	argv[3] = (char *)b->ns_cli;
	return 4;
}
