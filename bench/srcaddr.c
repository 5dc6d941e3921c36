/*
 * srcaddr.c: an LD_PRELOAD shim for bench/bench-scale.sh.  The clients
 * have no option to choose their source address, and a balancer that
 * keeps each client on one server by its address (balance source), and
 * a server that matches each host by it, need every simulated client to
 * come from its own address.  When CAIRN_BENCH_SRC names an IPv4
 * address, every TCP socket connected to a loopback IPv4 address is
 * first bound to it (port 0: any).  Linux routes all of 127/8 to lo, so
 * any 127.x.y.z will do.  Nothing else is changed.
 */
#define _GNU_SOURCE
#include <sys/types.h>
#include <sys/socket.h>

#include <netinet/in.h>
#include <arpa/inet.h>

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

int
connect(int fd, const struct sockaddr *sa, socklen_t len)
{
	static int		(*next)(int, const struct sockaddr *,
				    socklen_t);
	const struct sockaddr_in *to = (const struct sockaddr_in *)sa;
	struct sockaddr_in	 from;
	const char		*src;
	int			 type;
	socklen_t		 tl = sizeof(type);

	if (next == NULL)
		next = (int (*)(int, const struct sockaddr *, socklen_t))
		    dlsym(RTLD_NEXT, "connect");
	if ((src = getenv("CAIRN_BENCH_SRC")) != NULL && sa != NULL &&
	    len >= sizeof(*to) && sa->sa_family == AF_INET &&
	    (ntohl(to->sin_addr.s_addr) >> 24) == 127 &&
	    getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0 &&
	    type == SOCK_STREAM) {
		memset(&from, 0, sizeof(from));
		from.sin_family = AF_INET;
		if (inet_pton(AF_INET, src, &from.sin_addr) == 1)
			(void)bind(fd, (struct sockaddr *)&from, sizeof(from));
	}
	return next(fd, sa, len);
}
