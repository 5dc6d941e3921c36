/*
 * unitsrv.h: a scripted server for the suites of the network clients
 * (check_download, check_reqwin): a server process on 127.0.0.1 and
 * an ephemeral port, each session's RAP banner and its request lines
 * handed to the suite's answer function, and a client session to it
 * (no TLS, no compression).
 */
#ifndef CAIRN_UNITSRV_H
#define CAIRN_UNITSRV_H

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <unistd.h>

#include "cerr.h"
#include "copts.h"
#include "net.h"
#include "unit.h"

/* A listening socket on 127.0.0.1; its port, in decimal, in port. */
static inline int
unit_listen(char *port, size_t len)
{
	struct sockaddr_in	 sin;
	socklen_t		 sl = sizeof(sin);
	int			 ls;

	ls = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ne(ls, -1);
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	ck_assert_int_eq(bind(ls, (struct sockaddr *)&sin, sizeof(sin)), 0);
	ck_assert_int_eq(listen(ls, 8), 0);
	ck_assert_int_eq(getsockname(ls, (struct sockaddr *)&sin, &sl), 0);
	snprintf(port, len, "%u", (unsigned)ntohs(sin.sin_port));
	return ls;
}

/* Write n bytes to the client, or end the server process. */
static inline void
unit_send(int fd, const void *p, size_t n)
{
	if (write(fd, p, n) != (ssize_t)n)
		_exit(1);
}

/*
 * Serve the session on fd in a server process: the banner, then each
 * request line (without its CR LF) to answer(fd, line, arg), until it
 * returns nonzero or the client closes.  Never returns.
 */
static inline void
unit_session(int fd, int (*answer)(int, char *, void *), void *arg)
{
	char	 line[4096], *nl;
	size_t	 len = 0;
	ssize_t	 got;
	int	 one = 1;

	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	unit_send(fd, "200-RAP 1 unit radmind access protocol\r\n"
	    "200 CAPA REPO\r\n", 55);
	for (;;) {
		while ((nl = memchr(line, '\n', len)) == NULL) {
			if (len == sizeof(line) ||
			    (got = read(fd, line + len, sizeof(line) - len)) <= 0)
				_exit(0);
			len += (size_t)got;
		}
		*nl = '\0';
		if (nl > line && nl[-1] == '\r')
			nl[-1] = '\0';
		if (answer(fd, line, arg))
			_exit(0);
		len -= (size_t)(nl + 1 - line);
		memmove(line, nl + 1, len);
	}
}

/*
 * Start a server process on 127.0.0.1 (its port in port) serving with
 * answer: one session, or with many a process for each; every process
 * ends within 30 s, so a test that goes wrong cannot hang.  Returns its
 * pid, for unit_server_stop.
 */
static inline pid_t
unit_server(char *port, size_t len, int many,
    int (*answer)(int, char *, void *), void *arg)
{
	pid_t	pid;
	int	ls, fd;

	ls = unit_listen(port, len);
	if ((pid = fork()) != 0) {
		ck_assert_int_ne(pid, -1);
		close(ls);
		return pid;
	}
	/* Check's handler would pass a SIGTERM on to the test itself. */
	signal(SIGTERM, SIG_DFL);
	signal(SIGCHLD, SIG_IGN);
	alarm(30);
	for (;;) {
		if ((fd = accept(ls, NULL, NULL)) == -1)
			_exit(1);
		if (!many)
			unit_session(fd, answer, arg);
		if (fork() == 0) {
			close(ls);
			alarm(30);
			unit_session(fd, answer, arg);
		}
		close(fd);
	}
}

/* End the server *pid (if started) and its sessions' processes. */
static inline void
unit_server_stop(pid_t *pid)
{
	int	st;

	if (*pid > 0) {
		kill(*pid, SIGTERM);
		(void)waitpid(*pid, &st, 0);
		*pid = -1;
	}
}

/* A session with the server on port; no is filled and used. */
static inline struct net *
unit_connect(const char *port, struct netopts *no)
{
	struct copts	 co;
	struct cerr	 err;
	struct net	*net;

	copts_init(&co, COPTS_NET, no);
	no->host = "127.0.0.1";
	no->port = port;
	no->zlevel = 0;
	no->tls = 0;
	net = net_open(no, &err);
	ck_assert_msg(net != NULL, "net_open: %s", err.msg);
	return net;
}

#endif
