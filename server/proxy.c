/*
 * proxy.c: connections relayed by a load balancer (cairnd -X).  Which
 * peers are listed balancers, and reading the PROXY protocol header they
 * send before anything else (common/proxyhdr.c parses it).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "compat.h"
#include "conn.h"
#include "proxyhdr.h"
#include "server.h"
#include "xmalloc.h"

/*
 * The address of sa without its port, IPv4-mapped IPv6 as IPv4: family
 * and 4 or 16 bytes in addr.  Returns 0, or -1 for another family.
 */
int
proxy_addrof(const struct sockaddr *sa, int *family, unsigned char addr[16])
{
	const struct sockaddr_in6	*sin6;
	const struct sockaddr_in	*sin;

	memset(addr, 0, 16);
	if (sa->sa_family == AF_INET6) {
		sin6 = (const struct sockaddr_in6 *)(const void *)sa;
		if (IN6_IS_ADDR_V4MAPPED(&sin6->sin6_addr)) {
			*family = AF_INET;
			memcpy(addr, &sin6->sin6_addr.s6_addr[12], 4);
		} else {
			*family = AF_INET6;
			memcpy(addr, &sin6->sin6_addr, 16);
		}
		return 0;
	}
	if (sa->sa_family == AF_INET) {
		sin = (const struct sockaddr_in *)(const void *)sa;
		*family = AF_INET;
		memcpy(addr, &sin->sin_addr, 4);
		return 0;
	}
	return -1;
}

/* One "addr[/prefix]" into pl. */
static int
proxylist_one(struct proxylist *pl, const char *s, size_t n, struct cerr *err)
{
	struct proxynet	 net;
	char		 tmp[INET6_ADDRSTRLEN + 8], *slash;
	const char	*errstr;
	int		 max;

	if (n == 0 || n >= sizeof(tmp)) {
		cerr_set(err, "\"%.*s\": not an address", (int)n, s);
		return -1;
	}
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	memset(&net, 0, sizeof(net));
	if ((slash = strchr(tmp, '/')) != NULL)
		*slash++ = '\0';
	if (inet_pton(AF_INET, tmp, net.addr) == 1) {
		net.family = AF_INET;
		max = 32;
	} else if (inet_pton(AF_INET6, tmp, net.addr) == 1) {
		net.family = AF_INET6;
		max = 128;
		if (IN6_IS_ADDR_V4MAPPED((struct in6_addr *)(void *)net.addr)) {
			/* Peers are compared with mapped addresses as IPv4. */
			memmove(net.addr, net.addr + 12, 4);
			memset(net.addr + 4, 0, 12);
			net.family = AF_INET;
			max = 32;
		}
	} else {
		cerr_set(err, "\"%s\": not a numeric address", tmp);
		return -1;
	}
	net.prefix = max;
	if (slash != NULL) {
		net.prefix = (int)strtonum(slash, 0, max, &errstr);
		if (errstr != NULL) {
			cerr_set(err, "\"%s/%s\": prefix length %s (0..%d)",
			    tmp, slash, errstr, max);
			return -1;
		}
	}
	pl->nets = xreallocarray(pl->nets, pl->n + 1, sizeof(*pl->nets));
	pl->nets[pl->n++] = net;
	return 0;
}

int
proxylist_add(struct proxylist *pl, const char *spec, struct cerr *err)
{
	const char	*p = spec, *comma;
	size_t		 n;

	for (;;) {
		comma = strchr(p, ',');
		n = comma != NULL ? (size_t)(comma - p) : strlen(p);
		if (proxylist_one(pl, p, n, err) == -1)
			return -1;
		if (comma == NULL)
			return 0;
		p = comma + 1;
	}
}

int
proxylist_match(const struct proxylist *pl, const struct sockaddr *sa)
{
	unsigned char	 addr[16];
	size_t		 i;
	int		 family, bytes, bits;

	if (pl == NULL || proxy_addrof(sa, &family, addr) == -1)
		return 0;
	for (i = 0; i < pl->n; i++) {
		if (pl->nets[i].family != family)
			continue;
		bytes = pl->nets[i].prefix / 8;
		bits = pl->nets[i].prefix % 8;
		if (memcmp(addr, pl->nets[i].addr, (size_t)bytes) != 0)
			continue;
		if (bits != 0 && ((addr[bytes] ^ pl->nets[i].addr[bytes]) &
		    (0xff00 >> bits) & 0xff) != 0)
			continue;
		return 1;
	}
	return 0;
}

int
proxy_read(int fd, int timeout, struct proxyhdr *ph)
{
	unsigned char	 buf[PROXYHDR_MAX];
	struct pollfd	 pfd;
	size_t		 have = 0;
	int64_t		 deadline, left;
	ssize_t		 n;
	int		 r;

	deadline = conn_now() + timeout;
	/*
	 * Read no more than the parser asks for: the header ends where it
	 * says, and what follows belongs to the session.
	 */
	while ((r = proxyhdr_parse(buf, have, ph)) == PROXYHDR_MORE) {
		if (ph->need > sizeof(buf) - have) {
			ph->why = "header too long";
			return -1;
		}
		if ((left = deadline - conn_now()) <= 0) {
			ph->why = have == 0 ? "no PROXY header in time" :
			    "PROXY header incomplete in time";
			return -1;
		}
		pfd.fd = fd;
		pfd.events = POLLIN;
		if (poll(&pfd, 1, left > INT_MAX ? INT_MAX : (int)left) == -1) {
			if (errno == EINTR)
				continue;
			ph->why = "poll failed";
			return -1;
		}
		if (pfd.revents == 0)
			continue;
		n = read(fd, buf + have, ph->need);
		if (n == -1 && (errno == EINTR || errno == EAGAIN))
			continue;
		if (n <= 0) {
			ph->why = have == 0 ? "closed before a PROXY header" :
			    "closed inside the PROXY header";
			return -1;
		}
		have += (size_t)n;
	}
	return r == PROXYHDR_DONE ? 0 : -1;
}

int
proxy_sent_header(int fd)
{
	unsigned char	 buf[PROXYHDR_V2SIG];
	struct proxyhdr	 ph;
	ssize_t		 n;

	n = recv(fd, buf, sizeof(buf), MSG_PEEK | MSG_DONTWAIT);
	if (n < 6)
		return 0;
	return proxyhdr_parse(buf, (size_t)n, &ph) != PROXYHDR_BAD;
}
