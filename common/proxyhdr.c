/*
 * proxyhdr.c: the PROXY protocol header, versions 1 (a text line) and 2
 * (binary), as HAProxy's proxy-protocol.txt defines them.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <stdint.h>
#include <string.h>

#include "proxyhdr.h"

static const unsigned char v2sig[PROXYHDR_V2SIG] = {
	0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a
};
static const char v1sig[] = "PROXY ";

#define V1SIGLEN	(sizeof(v1sig) - 1)

static int
bad(struct proxyhdr *ph, const char *why)
{
	ph->why = why;
	return PROXYHDR_BAD;
}

static int
more(struct proxyhdr *ph, size_t need)
{
	ph->need = need;
	return PROXYHDR_MORE;
}

/*
 * A v1 port: decimal, 0 to 65535, no sign, no leading zero.  Returns
 * the port or -1.
 */
static long
v1_port(const char *s, size_t n)
{
	long	 v = 0;
	size_t	 i;

	if (n == 0 || n > 5 || (n > 1 && s[0] == '0'))
		return -1;
	for (i = 0; i < n; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	return v > 65535 ? -1 : v;
}

/* One v1 address of family af with port into ss. */
static int
v1_addr(int af, const char *a, size_t alen, const char *p, size_t plen,
    struct sockaddr_storage *ss, socklen_t *sslen)
{
	struct sockaddr_in	*sin;
	struct sockaddr_in6	*sin6;
	char			 tmp[INET6_ADDRSTRLEN + 1];
	long			 port;

	if (alen == 0 || alen >= sizeof(tmp) || (port = v1_port(p, plen)) < 0)
		return -1;
	memcpy(tmp, a, alen);
	tmp[alen] = '\0';
	memset(ss, 0, sizeof(*ss));
	if (af == AF_INET) {
		sin = (struct sockaddr_in *)(void *)ss;
		sin->sin_family = AF_INET;
		sin->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, tmp, &sin->sin_addr) != 1)
			return -1;
		*sslen = sizeof(*sin);
	} else {
		sin6 = (struct sockaddr_in6 *)(void *)ss;
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, tmp, &sin6->sin6_addr) != 1)
			return -1;
		*sslen = sizeof(*sin6);
	}
	return 0;
}

/*
 * "PROXY TCP4 src dst sport dport\r\n", TCP6 alike, or "PROXY UNKNOWN"
 * with anything up to the CRLF; single spaces, at most 107 bytes.
 */
static int
parse_v1(const char *b, size_t len, struct proxyhdr *ph)
{
	const char	*f[5], *end;
	size_t		 fl[5], i, n, llen;
	int		 af;

	ph->version = 1;
	for (i = 0; i < len && i < PROXYHDR_V1MAX; i++)
		if (b[i] == '\r' || b[i] == '\n')
			break;
	if (i == len && len < PROXYHDR_V1MAX)
		return more(ph, 1);
	if (i == PROXYHDR_V1MAX || (i == PROXYHDR_V1MAX - 1 && b[i] == '\r'))
		return bad(ph, "v1 header longer than 107 bytes");
	if (b[i] != '\r')
		return bad(ph, "v1 header not ended by CRLF");
	if (i + 1 == len)
		return more(ph, 1);
	if (b[i + 1] != '\n')
		return bad(ph, "v1 header not ended by CRLF");
	llen = i;			/* the line without CRLF */
	ph->len = i + 2;
	end = b + llen;

	/* Split what follows "PROXY " at single spaces. */
	n = 0;
	f[0] = b + V1SIGLEN;
	for (i = V1SIGLEN; i <= llen && n < 5; i++) {
		if (i == llen || b[i] == ' ') {
			fl[n] = (size_t)(b + i - f[n]);
			n++;
			if (i < llen && n < 5)
				f[n] = b + i + 1;
			if (i < llen && n == 5)
				break;
		}
	}
	if (n >= 1 && fl[0] == 7 && memcmp(f[0], "UNKNOWN", 7) == 0) {
		/* The rest of the line is to be ignored. */
		ph->local = 1;
		return PROXYHDR_DONE;
	}
	if (n < 1 || fl[0] != 4 || (memcmp(f[0], "TCP4", 4) != 0 &&
	    memcmp(f[0], "TCP6", 4) != 0))
		return bad(ph, "v1 header: protocol not TCP4, TCP6 or UNKNOWN");
	af = f[0][3] == '4' ? AF_INET : AF_INET6;
	if (n != 5 || f[4] + fl[4] != end)
		return bad(ph, "v1 header: not four fields after the protocol");
	if (v1_addr(af, f[1], fl[1], f[3], fl[3], &ph->src,
	    &ph->srclen) == -1)
		return bad(ph, "v1 header: bad source address or port");
	if (v1_addr(af, f[2], fl[2], f[4], fl[4], &ph->dst,
	    &ph->dstlen) == -1)
		return bad(ph, "v1 header: bad destination address or port");
	return PROXYHDR_DONE;
}

/*
 * The binary header: signature, version 2 and command, family and
 * transport, length of what follows (addresses, then TLVs, skipped).
 */
static int
parse_v2(const unsigned char *b, size_t len, struct proxyhdr *ph)
{
	struct sockaddr_in	*sin;
	struct sockaddr_in6	*sin6;
	size_t			 total;
	int			 cmd, fam;

	ph->version = 2;
	if (len < PROXYHDR_V2HDR)
		return more(ph, PROXYHDR_V2HDR - len);
	if ((b[12] >> 4) != 2)
		return bad(ph, "v2 header: version not 2");
	cmd = b[12] & 0x0f;
	if (cmd != 0 && cmd != 1)
		return bad(ph, "v2 header: unknown command");
	total = PROXYHDR_V2HDR + ((size_t)b[14] << 8 | b[15]);
	if (total > PROXYHDR_MAX)
		return bad(ph, "v2 header too long");
	if (len < total)
		return more(ph, total - len);
	ph->len = total;
	if (cmd == 0) {
		/* LOCAL: the balancer's own connection; ignore the block. */
		ph->local = 1;
		return PROXYHDR_DONE;
	}
	switch (fam = b[13]) {
	case 0x11:			/* TCP over IPv4 */
	case 0x21:			/* TCP over IPv6 */
		break;
	case 0x00:			/* UNSPEC */
	case 0x12:			/* UDP over IPv4 */
	case 0x22:			/* UDP over IPv6 */
	case 0x31:			/* UNIX stream */
	case 0x32:			/* UNIX datagram */
		/*
		 * Valid, but no TCP client to stand for: the spec has the
		 * receiver fall back to UNSPEC, the connection's own
		 * addresses.
		 */
		ph->local = 1;
		return PROXYHDR_DONE;
	default:
		return bad(ph, "v2 header: invalid address family or "
		    "transport");
	}
	fam >>= 4;
	memset(&ph->src, 0, sizeof(ph->src));
	memset(&ph->dst, 0, sizeof(ph->dst));
	if (fam == 1) {
		if (total < PROXYHDR_V2HDR + 12)
			return bad(ph, "v2 header: IPv4 address block too "
			    "short");
		sin = (struct sockaddr_in *)(void *)&ph->src;
		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, b + 16, 4);
		memcpy(&sin->sin_port, b + 24, 2);
		sin = (struct sockaddr_in *)(void *)&ph->dst;
		sin->sin_family = AF_INET;
		memcpy(&sin->sin_addr, b + 20, 4);
		memcpy(&sin->sin_port, b + 26, 2);
		ph->srclen = ph->dstlen = sizeof(*sin);
	} else {
		if (total < PROXYHDR_V2HDR + 36)
			return bad(ph, "v2 header: IPv6 address block too "
			    "short");
		sin6 = (struct sockaddr_in6 *)(void *)&ph->src;
		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, b + 16, 16);
		memcpy(&sin6->sin6_port, b + 48, 2);
		sin6 = (struct sockaddr_in6 *)(void *)&ph->dst;
		sin6->sin6_family = AF_INET6;
		memcpy(&sin6->sin6_addr, b + 32, 16);
		memcpy(&sin6->sin6_port, b + 50, 2);
		ph->srclen = ph->dstlen = sizeof(*sin6);
	}
	return PROXYHDR_DONE;
}

int
proxyhdr_parse(const void *buf, size_t len, struct proxyhdr *ph)
{
	const unsigned char	*b = buf;
	size_t			 n;

	memset(ph, 0, sizeof(*ph));
	if (len == 0)
		return more(ph, 1);
	if (b[0] == v2sig[0]) {
		n = len < PROXYHDR_V2SIG ? len : PROXYHDR_V2SIG;
		if (memcmp(b, v2sig, n) != 0)
			return bad(ph, "no PROXY header (bad v2 signature)");
		return parse_v2(b, len, ph);
	}
	n = len < V1SIGLEN ? len : V1SIGLEN;
	if (memcmp(b, v1sig, n) != 0)
		return bad(ph, "no PROXY header");
	if (len < V1SIGLEN)
		return more(ph, 1);
	return parse_v1(buf, len, ph);
}
