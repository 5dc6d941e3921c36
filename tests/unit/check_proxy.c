/*
 * check_proxy.c: the PROXY protocol header (common/proxyhdr.c) and the
 * list of balancers allowed to send it (cairnd -X, server/proxy.c).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include "cerr.h"
#include "proxyhdr.h"
#include "server.h"
#include "unit.h"

static const unsigned char sig[12] = {
	0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a
};

/* Parse a whole string; check every proper prefix asks for more. */
static int
parse_all(const void *buf, size_t len, struct proxyhdr *ph)
{
	size_t	 i;
	int	 r;

	for (i = 0; i < len; i++) {
		r = proxyhdr_parse(buf, i, ph);
		if (r == PROXYHDR_BAD)
			return r;
		ck_assert_int_eq(r, PROXYHDR_MORE);
		ck_assert_uint_ge(ph->need, 1);
		ck_assert_uint_le(i + ph->need, len);
	}
	return proxyhdr_parse(buf, len, ph);
}

static const char *
addr_of(const struct sockaddr_storage *ss, char *buf, size_t len,
    unsigned *port)
{
	const struct sockaddr_in	*sin;
	const struct sockaddr_in6	*sin6;

	if (ss->ss_family == AF_INET) {
		sin = (const struct sockaddr_in *)(const void *)ss;
		*port = ntohs(sin->sin_port);
		return inet_ntop(AF_INET, &sin->sin_addr, buf, (socklen_t)len);
	}
	sin6 = (const struct sockaddr_in6 *)(const void *)ss;
	*port = ntohs(sin6->sin6_port);
	return inet_ntop(AF_INET6, &sin6->sin6_addr, buf, (socklen_t)len);
}

#define SRC_IS(ph, a, p) do {						\
	char		 b_[INET6_ADDRSTRLEN];				\
	unsigned	 p_;						\
	ck_assert_str_eq(addr_of(&(ph).src, b_, sizeof(b_), &p_), (a));	\
	ck_assert_uint_eq(p_, (p));					\
} while (0)

START_TEST(test_v1_tcp4)
{
	const char	 h[] =
	    "PROXY TCP4 192.0.2.7 198.51.100.1 56324 6222\r\n";
	char		 buf[128];
	struct proxyhdr	 ph;

	ck_assert_int_eq(parse_all(h, strlen(h), &ph), PROXYHDR_DONE);
	ck_assert_uint_eq(ph.len, strlen(h));
	ck_assert_int_eq(ph.version, 1);
	ck_assert_int_eq(ph.local, 0);
	SRC_IS(ph, "192.0.2.7", 56324);
	ck_assert_uint_eq(ph.srclen, sizeof(struct sockaddr_in));
	/* What follows is not part of the header. */
	snprintf(buf, sizeof(buf), "%sQUIT\r\n", h);
	ck_assert_int_eq(proxyhdr_parse(buf, strlen(buf), &ph), PROXYHDR_DONE);
	ck_assert_uint_eq(ph.len, strlen(h));
}
END_TEST

START_TEST(test_v1_tcp6)
{
	const char	 h[] = "PROXY TCP6 2001:db8::7 2001:db8::1 65535 0\r\n";
	struct proxyhdr	 ph;

	ck_assert_int_eq(parse_all(h, strlen(h), &ph), PROXYHDR_DONE);
	ck_assert_int_eq(ph.local, 0);
	SRC_IS(ph, "2001:db8::7", 65535);
	ck_assert_uint_eq(ph.srclen, sizeof(struct sockaddr_in6));
}
END_TEST

START_TEST(test_v1_unknown)
{
	const char	*h[] = { "PROXY UNKNOWN\r\n",
	    "PROXY UNKNOWN ffff::1 ffff::2 1 2\r\n",
	    "PROXY UNKNOWN anything at all\r\n" };
	struct proxyhdr	 ph;
	size_t		 i;

	for (i = 0; i < 3; i++) {
		ck_assert_int_eq(parse_all(h[i], strlen(h[i]), &ph),
		    PROXYHDR_DONE);
		ck_assert_int_eq(ph.local, 1);
		ck_assert_uint_eq(ph.len, strlen(h[i]));
	}
}
END_TEST

START_TEST(test_v1_bad)
{
	const char	*h[] = {
	    "PROXY TCP4 192.0.2.7 198.51.100.1 56324 65536\r\n",
	    "PROXY TCP4 192.0.2.7 198.51.100.1 -1 6222\r\n",
	    "PROXY TCP4 192.0.2.7 198.51.100.1 056324 6222\r\n",
	    "PROXY TCP4 192.0.2.7 198.51.100.1 5a 6222\r\n",
	    "PROXY TCP4 192.0.2.7 198.51.100.1  6222\r\n",
	    "PROXY TCP4 192.0.2.7 198.51.100.1 1 2 3\r\n",
	    "PROXY TCP4 192.0.2.7 198.51.100.1 1\r\n",
	    "PROXY TCP4 2001:db8::7 2001:db8::1 1 2\r\n",
	    "PROXY TCP6 192.0.2.7 198.51.100.1 1 2\r\n",
	    "PROXY TCP4 192.0.2.300 198.51.100.1 1 2\r\n",
	    "PROXY TCP4 192.0.2.07 198.51.100.1 1 2\r\n",
	    "PROXY UDP4 192.0.2.7 198.51.100.1 1 2\r\n",
	    "PROXY TCP4 192.0.2.7 198.51.100.1 1 2\n",
	    "PROXY TCP4 192.0.2.7 198.51.100.1 1 2\rX",
	    "PROXY  TCP4 192.0.2.7 198.51.100.1 1 2\r\n",
	    "PROXY \r\n",
	    "proxy TCP4 192.0.2.7 198.51.100.1 1 2\r\n",
	    "RETR FILE x\r\n",
	};
	struct proxyhdr	 ph;
	size_t		 i;

	for (i = 0; i < sizeof(h) / sizeof(h[0]); i++) {
		ck_assert_msg(parse_all(h[i], strlen(h[i]), &ph) ==
		    PROXYHDR_BAD, "accepted: %s", h[i]);
		ck_assert_ptr_nonnull(ph.why);
	}
}
END_TEST

START_TEST(test_v1_oversized)
{
	char		 h[200];
	struct proxyhdr	 ph;

	/* 107 bytes with the CRLF is the most. */
	memset(h, 0, sizeof(h));
	memcpy(h, "PROXY UNKNOWN ", 14);
	memset(h + 14, 'x', 105 - 14);
	memcpy(h + 105, "\r\n", 2);
	ck_assert_int_eq(proxyhdr_parse(h, 107, &ph), PROXYHDR_DONE);
	ck_assert_uint_eq(ph.len, 107);
	memset(h + 14, 'x', 106 - 14);
	memcpy(h + 106, "\r\n", 2);
	ck_assert_int_eq(proxyhdr_parse(h, 108, &ph), PROXYHDR_BAD);
	/* No CRLF in sight: refused at 107 bytes, without waiting. */
	memset(h + 14, 'x', sizeof(h) - 14);
	ck_assert_int_eq(proxyhdr_parse(h, 106, &ph), PROXYHDR_MORE);
	ck_assert_int_eq(proxyhdr_parse(h, 107, &ph), PROXYHDR_BAD);
	ck_assert_int_eq(proxyhdr_parse(h, sizeof(h), &ph), PROXYHDR_BAD);
}
END_TEST

/* A v2 header: verb 0x20|cmd, fam, then alen address bytes, tlv bytes. */
static size_t
v2(unsigned char *b, int vc, int fam, const unsigned char *addr,
    size_t alen, size_t tlv)
{
	size_t	 n = alen + tlv;

	memcpy(b, sig, 12);
	b[12] = (unsigned char)vc;
	b[13] = (unsigned char)fam;
	b[14] = (unsigned char)(n >> 8);
	b[15] = (unsigned char)n;
	if (alen > 0)
		memcpy(b + 16, addr, alen);
	memset(b + 16 + alen, 0x04, tlv);
	return 16 + n;
}

static const unsigned char a4[12] = {
	192, 0, 2, 7,  198, 51, 100, 1,  0xdc, 0x04,  0x18, 0x4e
};

START_TEST(test_v2_proxy_ipv4)
{
	unsigned char	 b[256];
	struct proxyhdr	 ph;
	size_t		 n;

	n = v2(b, 0x21, 0x11, a4, sizeof(a4), 0);
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_DONE);
	ck_assert_int_eq(ph.version, 2);
	ck_assert_int_eq(ph.local, 0);
	ck_assert_uint_eq(ph.len, 28);
	SRC_IS(ph, "192.0.2.7", 56324);
	/* TLVs are skipped: the header ends after them. */
	n = v2(b, 0x21, 0x11, a4, sizeof(a4), 40);
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_DONE);
	ck_assert_uint_eq(ph.len, 68);
	SRC_IS(ph, "192.0.2.7", 56324);
}
END_TEST

START_TEST(test_v2_proxy_ipv6)
{
	unsigned char	 b[256], a6[36];
	struct proxyhdr	 ph;
	size_t		 n;

	memset(a6, 0, sizeof(a6));
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:db8::7", a6), 1);
	ck_assert_int_eq(inet_pton(AF_INET6, "2001:db8::1", a6 + 16), 1);
	a6[32] = 0x30;
	a6[33] = 0x39;
	n = v2(b, 0x21, 0x21, a6, sizeof(a6), 0);
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_DONE);
	ck_assert_int_eq(ph.local, 0);
	SRC_IS(ph, "2001:db8::7", 12345);
	ck_assert_uint_eq(ph.srclen, sizeof(struct sockaddr_in6));
	/* An IPv6 block too short for its addresses. */
	n = v2(b, 0x21, 0x21, a6, 20, 0);
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_BAD);
}
END_TEST

START_TEST(test_v2_local)
{
	unsigned char	 b[256], a6[36];
	struct proxyhdr	 ph;
	size_t		 n;

	/* LOCAL: the family block is ignored, whatever it says. */
	n = v2(b, 0x20, 0x00, NULL, 0, 0);
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_DONE);
	ck_assert_int_eq(ph.local, 1);
	ck_assert_uint_eq(ph.len, 16);
	n = v2(b, 0x20, 0x11, a4, sizeof(a4), 0);
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_DONE);
	ck_assert_int_eq(ph.local, 1);
	memset(a6, 0, sizeof(a6));
	n = v2(b, 0x20, 0x21, a6, sizeof(a6), 8);
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_DONE);
	ck_assert_int_eq(ph.local, 1);
	ck_assert_uint_eq(ph.len, 16 + 36 + 8);
	/*
	 * PROXY over UNSPEC carries no address either, nor over UDP or
	 * UNIX: valid, they fall back to UNSPEC.
	 */
	n = v2(b, 0x21, 0x00, NULL, 0, 0);
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_DONE);
	ck_assert_int_eq(ph.local, 1);
	n = v2(b, 0x21, 0x12, a4, sizeof(a4), 0);
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_DONE);
	ck_assert_int_eq(ph.local, 1);
	n = v2(b, 0x21, 0x31, NULL, 0, 216);
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_DONE);
	ck_assert_int_eq(ph.local, 1);
	ck_assert_uint_eq(ph.len, 16 + 216);
}
END_TEST

START_TEST(test_v2_bad)
{
	unsigned char	 b[2048];
	struct proxyhdr	 ph;
	size_t		 n;

	n = v2(b, 0x11, 0x11, a4, sizeof(a4), 0);	/* version 1 */
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_BAD);
	n = v2(b, 0x22, 0x11, a4, sizeof(a4), 0);	/* command 2 */
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_BAD);
	n = v2(b, 0x21, 0x13, a4, sizeof(a4), 0);	/* transport 3 */
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_BAD);
	n = v2(b, 0x21, 0x41, a4, sizeof(a4), 0);	/* family 4 */
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_BAD);
	n = v2(b, 0x21, 0x10, a4, sizeof(a4), 0);	/* not a valid pair */
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_BAD);
	n = v2(b, 0x21, 0x11, a4, 8, 0);		/* no ports */
	ck_assert_int_eq(parse_all(b, n, &ph), PROXYHDR_BAD);
	n = v2(b, 0x21, 0x11, a4, sizeof(a4), 0);
	b[7] = 'q';					/* signature */
	ck_assert_int_eq(proxyhdr_parse(b, 8, &ph), PROXYHDR_BAD);
	ck_assert_int_eq(proxyhdr_parse(b, n, &ph), PROXYHDR_BAD);
	/* Oversized: refused from the length field, before the rest. */
	n = v2(b, 0x21, 0x11, a4, sizeof(a4), PROXYHDR_MAX);
	ck_assert_int_eq(proxyhdr_parse(b, 16, &ph), PROXYHDR_BAD);
	ck_assert_int_eq(proxyhdr_parse(b, 15, &ph), PROXYHDR_MORE);
}
END_TEST

START_TEST(test_truncated)
{
	unsigned char	 b[64];
	const char	 h[] =
	    "PROXY TCP4 192.0.2.7 198.51.100.1 56324 6222\r\n";
	struct proxyhdr	 ph;
	size_t		 n;

	n = v2(b, 0x21, 0x11, a4, sizeof(a4), 0);
	ck_assert_int_eq(proxyhdr_parse(b, 0, &ph), PROXYHDR_MORE);
	ck_assert_int_eq(proxyhdr_parse(b, 5, &ph), PROXYHDR_MORE);
	ck_assert_uint_eq(ph.need, 11);
	ck_assert_int_eq(proxyhdr_parse(b, 16, &ph), PROXYHDR_MORE);
	ck_assert_uint_eq(ph.need, 12);
	ck_assert_int_eq(proxyhdr_parse(b, n - 1, &ph), PROXYHDR_MORE);
	ck_assert_uint_eq(ph.need, 1);
	ck_assert_int_eq(proxyhdr_parse(h, 3, &ph), PROXYHDR_MORE);
	ck_assert_int_eq(proxyhdr_parse(h, strlen(h) - 1, &ph),
	    PROXYHDR_MORE);
	ck_assert_uint_eq(ph.need, 1);
}
END_TEST

static int
match(const struct proxylist *pl, const char *ip)
{
	struct sockaddr_storage	 ss;
	struct sockaddr_in	*sin = (struct sockaddr_in *)(void *)&ss;
	struct sockaddr_in6	*sin6 = (struct sockaddr_in6 *)(void *)&ss;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, ip, &sin->sin_addr) == 1)
		sin->sin_family = AF_INET;
	else {
		ck_assert_int_eq(inet_pton(AF_INET6, ip, &sin6->sin6_addr),
		    1);
		sin6->sin6_family = AF_INET6;
	}
	return proxylist_match(pl, (struct sockaddr *)&ss);
}

START_TEST(test_list)
{
	struct proxylist	 pl;
	struct cerr		 err;

	memset(&pl, 0, sizeof(pl));
	ck_assert_int_eq(proxylist_add(&pl, "127.0.0.1", &err), 0);
	ck_assert_int_eq(proxylist_add(&pl, "10.1.0.0/17,2001:db8::/33",
	    &err), 0);
	ck_assert_uint_eq(pl.n, 3);
	ck_assert(match(&pl, "127.0.0.1"));
	ck_assert(!match(&pl, "127.0.0.2"));
	ck_assert(match(&pl, "::ffff:127.0.0.1"));
	ck_assert(match(&pl, "10.1.127.255"));
	ck_assert(!match(&pl, "10.1.128.0"));
	ck_assert(match(&pl, "2001:db8:7fff::1"));
	ck_assert(!match(&pl, "2001:db8:8000::1"));
	ck_assert(!match(&pl, "::1"));
	ck_assert_int_eq(proxylist_add(&pl, "10.0.0.0/33", &err), -1);
	ck_assert_int_eq(proxylist_add(&pl, "host.example", &err), -1);
	ck_assert_int_eq(proxylist_add(&pl, "10.0.0.1,", &err), -1);
	ck_assert_int_eq(proxylist_add(&pl, "10.0.0.1/", &err), -1);
	ck_assert_int_eq(proxylist_add(&pl, "::/0", &err), 0);
	ck_assert(match(&pl, "::1"));
	free(pl.nets);
}
END_TEST

static Suite *
proxy_suite(void)
{
	Suite	*s = suite_create("proxy");
	TCase	*tc;

	tc = tcase_create("v1");
	tcase_add_test(tc, test_v1_tcp4);
	tcase_add_test(tc, test_v1_tcp6);
	tcase_add_test(tc, test_v1_unknown);
	tcase_add_test(tc, test_v1_bad);
	tcase_add_test(tc, test_v1_oversized);
	suite_add_tcase(s, tc);
	tc = tcase_create("v2");
	tcase_add_test(tc, test_v2_proxy_ipv4);
	tcase_add_test(tc, test_v2_proxy_ipv6);
	tcase_add_test(tc, test_v2_local);
	tcase_add_test(tc, test_v2_bad);
	tcase_add_test(tc, test_truncated);
	suite_add_tcase(s, tc);
	tc = tcase_create("list");
	tcase_add_test(tc, test_list);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(proxy_suite());
}
