/*
 * check_hostname.c: the strict host-name check that every peer-supplied
 * name passes before it becomes a config key or a path component.
 */
#include "config.h"

#include <string.h>

#include "hostname.h"
#include "unit.h"

#define YES(n)	ck_assert_msg(hostname_valid((n), strlen(n)),		\
	"\"%s\" should be a valid host name", (n))
#define NO(n)	ck_assert_msg(!hostname_valid((n), strlen(n)),		\
	"\"%s\" should not be a valid host name", (n))

START_TEST(test_valid)
{
	YES("a");
	YES("localhost");
	YES("client-01.example.org");
	YES("CLIENT-01.Example.ORG");
	YES("3com.example");
	YES("a.b.c.d.e");
	YES("x1");
	YES("10.0.0.1a");
}
END_TEST

START_TEST(test_path_tricks)
{
	NO("");
	NO(".");
	NO("..");
	NO("./x");
	NO("a/b");
	NO("../otherhost");
	NO("*");
	NO("*.example.org");
	NO("host?");
	NO("[ab]");
	NO("{a,b}");
	NO("a\\b");
}
END_TEST

START_TEST(test_shape)
{
	NO(".example.org");
	NO("example.org.");
	NO("a..b");
	NO("-a.example");
	NO("a-.example");
	NO("a.-b");
	NO("a_b.example");
	NO("a b");
	NO("a\tb");
	NO("caf\xc3\xa9.example");
	NO("a\nb");
	/* Names that would pass for an IPv4 address. */
	NO("10.0.0.1");
	NO("127.0.0.1");
	NO("4294967295");
	NO("a.123");
}
END_TEST

START_TEST(test_lengths)
{
	char	 label[65], name[300];
	size_t	 i;

	memset(label, 'a', 63);
	label[63] = '\0';
	YES(label);
	label[63] = 'a';
	label[64] = '\0';
	NO(label);

	/* 253 bytes in labels of 63: accepted; 254: refused. */
	name[0] = '\0';
	for (i = 0; i < 3; i++) {
		memset(name + i * 64, 'b', 63);
		name[i * 64 + 63] = '.';
	}
	memset(name + 192, 'c', 61);
	name[253] = '\0';
	ck_assert_uint_eq(strlen(name), 253);
	YES(name);
	name[253] = 'c';
	name[254] = '\0';
	NO(name);

	/* An embedded NUL is not a shorter name. */
	ck_assert(!hostname_valid("ab\0cd", 5));
	ck_assert(hostname_valid("ab\0cd", 2));
}
END_TEST

static Suite *
hostname_suite(void)
{
	Suite	*s = suite_create("hostname");
	TCase	*tc;

	tc = tcase_create("check");
	tcase_add_test(tc, test_valid);
	tcase_add_test(tc, test_path_tricks);
	tcase_add_test(tc, test_shape);
	tcase_add_test(tc, test_lengths);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(hostname_suite());
}
