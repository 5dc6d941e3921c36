/*
 * proxyhdr.h: the PROXY protocol header a load balancer puts in front of
 * a relayed connection (HAProxy's proxy-protocol.txt, versions 1 and 2).
 *
 * proxyhdr_parse() is a pure function over the bytes received so far:
 * it never reads, so the caller reads exactly what it asks for and no
 * byte of the stream behind the header is consumed.
 */
#ifndef CAIRN_PROXYHDR_H
#define CAIRN_PROXYHDR_H

#include <sys/types.h>
#include <sys/socket.h>

#include <stddef.h>

#define PROXYHDR_V1MAX	107	/* longest v1 line, CRLF included */
#define PROXYHDR_V2SIG	12	/* v2 signature bytes */
#define PROXYHDR_V2HDR	16	/* signature, version/command, family, len */
#define PROXYHDR_MAX	1024	/* longest v2 header accepted (TLVs) */

/* Results of proxyhdr_parse(). */
#define PROXYHDR_BAD	(-1)	/* not a valid header: ph->why */
#define PROXYHDR_MORE	0	/* a valid start: ph->need more bytes */
#define PROXYHDR_DONE	1	/* a header of ph->len bytes */

struct proxyhdr {
	int			 version;	/* 1 or 2 */
	/*
	 * Nonzero when the header carries no client address to use: v1
	 * UNKNOWN, v2 LOCAL (a balancer's health check), v2 PROXY over
	 * UNSPEC, UDP or UNIX.  The connection's own addresses stand.
	 */
	int			 local;
	struct sockaddr_storage	 src;		/* the client, unless local */
	struct sockaddr_storage	 dst;		/* what it connected to */
	socklen_t		 srclen, dstlen;
	size_t			 len;		/* DONE: header length */
	size_t			 need;		/* MORE: bytes still needed */
	const char		*why;		/* BAD: the reason */
};

/*
 * Parse the len bytes of buf received so far.  PROXYHDR_MORE: they are
 * a valid beginning and at least ph->need more bytes are needed, never
 * more than the rest of the header; PROXYHDR_DONE: a complete header of
 * ph->len bytes (bytes after it are not looked at); PROXYHDR_BAD: not a
 * header, ph->why says why.
 */
int	proxyhdr_parse(const void *buf, size_t len, struct proxyhdr *ph);

#endif
