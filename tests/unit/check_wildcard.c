/*
 * check_wildcard.c: wildcard patterns (docs/protocol.md section 10).
 */
#include "config.h"

#include "wildcard.h"
#include "unit.h"

#define YES(p, s, ic)	ck_assert_msg(wildcard((p), (s), (ic)),		\
	"\"%s\" should match \"%s\" (icase %d)", (p), (s), (ic))
#define NO(p, s, ic)	ck_assert_msg(!wildcard((p), (s), (ic)),		\
	"\"%s\" should not match \"%s\" (icase %d)", (p), (s), (ic))

START_TEST(test_literal_anchored)
{
	YES("", "", 0);
	NO("", "a", 0);
	NO("a", "", 0);
	YES("./etc/motd", "./etc/motd", 0);
	NO("./etc/motd", "./etc/motd2", 0);
	NO("./etc/motd", "x./etc/motd", 0);
	NO("./etc/motd", "./etc/mot", 0);
	NO("abc", "ABC", 0);
}
END_TEST

START_TEST(test_star)
{
	YES("*", "", 0);
	YES("*", "anything/at/all", 0);
	YES("a*", "a", 0);
	YES("a*c", "abbbc", 0);
	YES("a*c", "ac", 0);
	NO("a*c", "abcd", 0);
	YES("a*c*e", "abcde", 0);
	YES("**", "xyz", 0);
	YES("*.log", "./var/log/syslog.log", 0);
	NO("*.log", "./var/log/syslog.log.1", 0);
	/* '*' crosses '/' */
	YES("./var/cache/*", "./var/cache/apt/archives/x.deb", 0);
	YES("./var/cache*", "./var/cache", 0);
	YES("./var/cache*", "./var/cache/apt", 0);
	NO("./var/cache/*", "./var/cache", 0);
	YES("/*/tmp", "/home/user/tmp", 0);
	YES("*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaab", 0);
	NO("*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", 0);
}
END_TEST

START_TEST(test_question)
{
	YES("?", "x", 0);
	NO("?", "", 0);
	NO("?", "xy", 0);
	YES("a?c", "abc", 0);
	YES("a?c", "a/c", 0);		/* '?' matches '/' too */
	NO("a?c", "ac", 0);
	YES("???", "\xc3\xa9z", 0);	/* one byte each, not one character */
}
END_TEST

START_TEST(test_range)
{
	YES("<1-15>", "1", 0);
	YES("<1-15>", "15", 0);
	YES("<1-15>", "7", 0);
	YES("<1-15>", "07", 0);
	YES("<1-15>", "007", 0);
	NO("<1-15>", "0", 0);
	NO("<1-15>", "16", 0);
	NO("<1-15>", "", 0);
	NO("<1-15>", "a", 0);
	NO("<1-15>", "7a", 0);
	/* the whole digit run is the number, as Radmind reads it */
	NO("<1-15>5", "155", 0);
	YES("host<1-15>.x", "host12.x", 0);
	YES("host<01-10>.example", "host3.example", 0);
	YES("host<01-10>.example", "host010.example", 0);
	NO("host<01-10>.example", "host11.example", 0);
	NO("host<01-10>.example", "host.example", 0);
	YES("10.0.0.<0-255>", "10.0.0.200", 0);
	NO("10.0.0.<0-255>", "10.0.0.256", 0);
	YES("<0-0>", "000", 0);
	YES("a<2-3>b", "a3b", 0);
	NO("a<2-3>b", "a4b", 0);
	/* not a well-formed range: literal '<' */
	YES("<a>", "<a>", 0);
	YES("<1->", "<1->", 0);
}
END_TEST

START_TEST(test_braces)
{
	YES("{a,bc}", "a", 0);
	YES("{a,bc}", "bc", 0);
	NO("{a,bc}", "b", 0);
	NO("{a,bc}", "abc", 0);
	NO("{a,bc}", "", 0);
	YES("./etc/{passwd,group,shadow}", "./etc/group", 0);
	NO("./etc/{passwd,group,shadow}", "./etc/gshadow", 0);
	YES("x{a,ab}c", "xabc", 0);	/* second alternative then rest */
	YES("x{a,ab}c", "xac", 0);
	YES("{web,db}<1-3>.*", "db2.example.com", 0);
	NO("{web,db}<1-3>.*", "mail2.example.com", 0);
	YES("{,x}y", "y", 0);		/* empty alternative */
	YES("{,x}y", "xy", 0);
}
END_TEST

START_TEST(test_brackets_documented_set)
{
	/* documented semantics: one byte of the literal set */
	YES("[ab]", "a", 0);
	YES("[ab]", "b", 0);
	NO("[ab]", "x", 0);
	NO("[ab]", "", 0);
	NO("[ab]", "ab", 0);
	YES("[a]", "a", 0);
	NO("[a]", "b", 0);
	YES("file[12].txt", "file2.txt", 0);
	NO("file[12].txt", "file3.txt", 0);
	/* no ranges: '-' is a member like any other byte */
	YES("[a-c]", "a", 0);
	YES("[a-c]", "-", 0);
	YES("[a-c]", "c", 0);
	NO("[a-c]", "b", 0);
	/* no negation */
	YES("[!a]", "!", 0);
	NO("[!a]", "b", 0);
	NO("[^a]", "b", 0);
}
END_TEST

START_TEST(test_escape)
{
	YES("\\*", "*", 0);
	NO("\\*", "x", 0);
	NO("\\*", "", 0);
	YES("a\\?", "a?", 0);
	NO("a\\?", "ab", 0);
	YES("\\<1-2\\>", "<1-2>", 0);
	NO("\\<1-2\\>", "1", 0);
	YES("\\{a,b\\}", "{a,b}", 0);
	YES("\\[a]", "[a]", 0);
	YES("\\\\", "\\", 0);
	YES("\\x", "x", 0);
	YES("./tmp/\\*", "./tmp/*", 0);
	NO("./tmp/\\*", "./tmp/file", 0);
}
END_TEST

/*
 * Many '*' and empty '{,}' alternatives: the same positions are tried
 * again and again; the answer must come at once and be right.
 */
START_TEST(test_backtracking)
{
	char	pat[512], str[128];
	int	i;

	pat[0] = '\0';
	for (i = 0; i < 24; i++)
		strcat(pat, "{,}*");
	strcat(pat, "x");
	memset(str, 'a', 100);
	str[100] = '\0';
	ck_assert_int_eq(wildcard(pat, str, 0), 0);
	str[99] = 'x';
	ck_assert_int_eq(wildcard(pat, str, 0), 1);
	str[99] = 'X';
	ck_assert_int_eq(wildcard(pat, str, 1), 1);
	ck_assert_int_eq(wildcard(pat, str, 0), 0);
	/* a match that needs every group */
	ck_assert_int_eq(wildcard("{a,}*{b,}*{c,}*d", "abcd", 0), 1);
	ck_assert_int_eq(wildcard("*a*a*a*a*a*a*a*a*a*a*a*b",
	    "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
	    0), 0);
}
END_TEST

START_TEST(test_icase)
{
	NO("./Etc/*", "./etc/motd", 0);
	YES("./Etc/*", "./etc/motd", 1);
	YES("HOST.example.COM", "host.EXAMPLE.com", 1);
	YES("{WEB,db}1", "web1", 1);
	YES("{web,db}1", "DB1", 1);
	NO("{web,db}1", "DB1", 0);
	YES("[AB]", "b", 1);
	NO("[AB]", "b", 0);
	YES("\\A", "a", 1);
	YES("?x", "AX", 1);
	NO("abc", "abd", 1);
}
END_TEST

static Suite *
wildcard_suite(void)
{
	Suite	*s = suite_create("wildcard");
	TCase	*tc;

	tc = tcase_create("syntax");
	tcase_add_test(tc, test_literal_anchored);
	tcase_add_test(tc, test_star);
	tcase_add_test(tc, test_backtracking);
	tcase_add_test(tc, test_question);
	tcase_add_test(tc, test_range);
	tcase_add_test(tc, test_braces);
	tcase_add_test(tc, test_brackets_documented_set);
	tcase_add_test(tc, test_escape);
	suite_add_tcase(s, tc);

	tc = tcase_create("icase");
	tcase_add_test(tc, test_icase);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(wildcard_suite());
}
