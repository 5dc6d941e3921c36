/*
 * fuzz_proxy.c: the PROXY protocol header (common/proxyhdr.c) and the
 * -X list of balancers (server/proxy.c).
 *
 * The input is the start of a connection.  Checked: a complete header
 * is no longer than the input nor than the limits of its version; every
 * shorter prefix of it is a valid beginning whose request for more
 * bytes never reaches past the header's end (so a reader that reads
 * what is asked consumes nothing of the stream behind it); a header
 * with an address has an IPv4 or IPv6 one of the right length; parsing
 * is the same with bytes appended.  The input as text is also given to
 * proxylist_add(): each range it takes has a prefix within its family.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "cerr.h"
#include "proxyhdr.h"
#include "server.h"
#include "fuzz.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	return 0;
}

static void
check_header(const uint8_t *data, size_t size)
{
	struct proxyhdr	 ph, pp;
	size_t		 i;
	int		 r, rp;

	r = proxyhdr_parse(data, size, &ph);
	FUZZ_CHECK(r == PROXYHDR_BAD || r == PROXYHDR_MORE ||
	    r == PROXYHDR_DONE);
	if (r == PROXYHDR_BAD) {
		FUZZ_CHECK(ph.why != NULL);
		return;
	}
	if (r == PROXYHDR_MORE) {
		FUZZ_CHECK(ph.need >= 1);
		FUZZ_CHECK(size + ph.need <= PROXYHDR_MAX);
		return;
	}
	FUZZ_CHECK(ph.len >= 8 && ph.len <= size);
	FUZZ_CHECK(ph.version == 1 || ph.version == 2);
	FUZZ_CHECK(ph.len <= (ph.version == 1 ? (size_t)PROXYHDR_V1MAX :
	    (size_t)PROXYHDR_MAX));
	if (!ph.local) {
		FUZZ_CHECK(ph.src.ss_family == AF_INET ||
		    ph.src.ss_family == AF_INET6);
		FUZZ_CHECK(ph.srclen == (ph.src.ss_family == AF_INET ?
		    sizeof(struct sockaddr_in) : sizeof(struct sockaddr_in6)));
		FUZZ_CHECK(ph.dst.ss_family == ph.src.ss_family);
	}
	/* The header alone parses the same. */
	rp = proxyhdr_parse(data, ph.len, &pp);
	FUZZ_CHECK(rp == PROXYHDR_DONE && pp.len == ph.len &&
	    pp.local == ph.local &&
	    (ph.local || memcmp(&pp.src, &ph.src, ph.srclen) == 0));
	/* Each prefix asks for more, and no more than the rest. */
	for (i = 0; i < ph.len; i++) {
		rp = proxyhdr_parse(data, i, &pp);
		FUZZ_CHECK(rp == PROXYHDR_MORE);
		FUZZ_CHECK(pp.need >= 1 && i + pp.need <= ph.len);
	}
}

static void
check_list(const uint8_t *data, size_t size)
{
	struct proxylist	 pl;
	struct cerr		 err;
	char			*s;
	size_t			 i, before;
	int			 r;

	s = fuzz_cstr(data, size > 256 ? 256 : size);
	memset(&pl, 0, sizeof(pl));
	r = proxylist_add(&pl, s, &err);
	FUZZ_CHECK(r == 0 || r == -1);
	before = pl.n;
	for (i = 0; i < pl.n; i++) {
		FUZZ_CHECK(pl.nets[i].family == AF_INET ||
		    pl.nets[i].family == AF_INET6);
		FUZZ_CHECK(pl.nets[i].prefix >= 0 && pl.nets[i].prefix <=
		    (pl.nets[i].family == AF_INET ? 32 : 128));
	}
	FUZZ_CHECK(r == -1 || before >= 1);
	free(pl.nets);
	free(s);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_header(data, size);
	check_list(data, size);
	return 0;
}
