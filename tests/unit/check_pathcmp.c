/*
 * check_pathcmp.c: transcript path order (docs/formats.md section 4).
 */
#include "config.h"

#include "pathcmp.h"
#include "unit.h"

/* Assert a < b strictly (and the reverse), in the given mode. */
#define LT(a, b, ic) do {						\
	ck_assert_msg(pathcmp((a), (b), (ic)) < 0,			\
	    "expected \"%s\" < \"%s\" (icase %d)", (a), (b), (ic));	\
	ck_assert_msg(pathcmp((b), (a), (ic)) > 0,			\
	    "expected \"%s\" > \"%s\" (icase %d)", (b), (a), (ic));	\
} while (0)
#define EQ(a, b, ic) do {						\
	ck_assert_msg(pathcmp((a), (b), (ic)) == 0,			\
	    "expected \"%s\" == \"%s\" (icase %d)", (a), (b), (ic));	\
	ck_assert_msg(pathcmp((b), (a), (ic)) == 0,			\
	    "expected \"%s\" == \"%s\" (icase %d)", (b), (a), (ic));	\
} while (0)

/* Every pair of a list that must be strictly increasing. */
static void
assert_order(const char **v, int icase)
{
	int	i, j;

	for (i = 0; v[i] != NULL; i++) {
		EQ(v[i], v[i], icase);
		for (j = i + 1; v[j] != NULL; j++)
			LT(v[i], v[j], icase);
	}
}

START_TEST(test_spec_example)
{
	static const char *v[] = { ".", "./etc", "./etc/passwd", "./etc-x",
	    "./etc.old", NULL };

	assert_order(v, 0);
	assert_order(v, 1);
}
END_TEST

START_TEST(test_subtree_before_siblings)
{
	static const char *v[] = { "/", "/a", "/a/b", "/a/b/c", "/a/b!",
	    "/a/b0", "/a!", "/a-", "/a.", "/a0", "/aa", "/b", NULL };

	assert_order(v, 0);
	/* strcmp would order these the other way */
	LT("./etc/passwd", "./etc-x", 0);
	LT("./a/zzz", "./a!", 0);
}
END_TEST

START_TEST(test_slash_before_every_byte)
{
	char	other[] = "./a?b";
	int	c;

	/* '/' sorts before every other byte, even control bytes */
	for (c = 1; c < 256; c++) {
		if (c == '/')
			continue;
		other[3] = (char)c;
		ck_assert_msg(pathcmp("./a/b", other, 0) < 0,
		    "./a/b not before byte 0x%02x", c);
		ck_assert_msg(pathcmp(other, "./a/b", 0) > 0,
		    "byte 0x%02x not after ./a/b", c);
		ck_assert_msg(pathcmp("./a/b", other, 1) < 0,
		    "icase: ./a/b not before byte 0x%02x", c);
	}
	/* but end of string is smaller than '/' */
	LT("./a", "./a/b", 0);
	LT("./a", "./a/", 0);
}
END_TEST

START_TEST(test_case_sensitive)
{
	static const char *v[] = { "./Library", "./Zeta", "./bin", "./zeta",
	    NULL };

	assert_order(v, 0);
	LT("./B", "./a", 0);
	LT("./a/Z", "./a/a", 0);
	ck_assert_int_ne(pathcmp("./A", "./a", 0), 0);
}
END_TEST

START_TEST(test_high_bytes_unsigned)
{
	/* bytes are unsigned: >= 0x80 after ASCII, in both modes */
	static const char *v[] = { "./Zeta", "./caf\xc3\xa9", "./zeta",
	    "./\x7f", "./\x80", "./\xc3\x89" "cole", "./\xff", NULL };

	assert_order(v, 0);
	LT("./zzz", "./\xc3\x89" "cole", 0);
}
END_TEST

START_TEST(test_icase)
{
	static const char *v[] = { "./a", "./B", "./c", "./D/x", "./d-", NULL };

	assert_order(v, 1);
	EQ("./ABC/def", "./abc/DEF", 1);
	EQ("./Library", "./library", 1);
	LT("./bin", "./Library", 1);
	/* icase order keeps '/' first */
	LT("./Etc/passwd", "./etc-x", 1);
	/* a sibling can sort between a directory and its contents */
	LT("./B", "./b", 0);
	LT("./b", "./B/c", 1);
	LT("./B", "./B/c", 1);
}
END_TEST

START_TEST(test_icase_high_bytes_after_ascii)
{
	/* the order observed from Radmind -I on glibc */
	LT("./cafe\xcc\x81", "./caf\xc3\xa9", 1);
	LT("./Zeta", "./\xc3\x89" "cole", 1);
	LT("./zeta", "./\xc3\x89" "cole", 1);
	LT("./~", "./\x80", 1);
	/* no case folding of non-ASCII bytes */
	ck_assert_int_ne(pathcmp("./\xc3\x89", "./\xc3\xa9", 1), 0);
	LT("./\xc3\x89", "./\xc3\xa9", 1);
}
END_TEST

START_TEST(test_ischildcase)
{
	ck_assert(ischildcase("./etc/passwd", "./etc", 0));
	ck_assert(ischildcase("./etc/ssl/certs", "./etc", 0));
	ck_assert(!ischildcase("./etc", "./etc", 0));
	ck_assert(!ischildcase("./etc-x", "./etc", 0));
	ck_assert(!ischildcase("./etcetera/x", "./etc", 0));
	ck_assert(!ischildcase("./et", "./etc", 0));
	ck_assert(!ischildcase("./usr/etc/x", "./etc", 0));
	ck_assert(ischildcase("./a", ".", 0));
	ck_assert(!ischildcase(".", ".", 0));
	ck_assert(ischildcase("/a", "/", 0));
	ck_assert(ischildcase("/a/b", "/", 0));
	ck_assert(!ischildcase("/", "/", 0));
	ck_assert(ischildcase("/a/b", "/a", 0));
	ck_assert(!ischildcase("/ab", "/a", 0));
	/* case */
	ck_assert(!ischildcase("./ETC/passwd", "./etc", 0));
	ck_assert(ischildcase("./ETC/passwd", "./etc", 1));
	ck_assert(ischildcase("./etc/x", "./Etc", 1));
	ck_assert(!ischildcase("./ETC-x", "./etc", 1));
}
END_TEST

static Suite *
pathcmp_suite(void)
{
	Suite	*s = suite_create("pathcmp");
	TCase	*tc;

	tc = tcase_create("order");
	tcase_add_test(tc, test_spec_example);
	tcase_add_test(tc, test_subtree_before_siblings);
	tcase_add_test(tc, test_slash_before_every_byte);
	tcase_add_test(tc, test_case_sensitive);
	tcase_add_test(tc, test_high_bytes_unsigned);
	suite_add_tcase(s, tc);

	tc = tcase_create("icase");
	tcase_add_test(tc, test_icase);
	tcase_add_test(tc, test_icase_high_bytes_after_ascii);
	suite_add_tcase(s, tc);

	tc = tcase_create("child");
	tcase_add_test(tc, test_ischildcase);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(pathcmp_suite());
}
