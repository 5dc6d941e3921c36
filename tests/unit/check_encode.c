/*
 * check_encode.c: token encoding of paths (docs/protocol.md section 8).
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

#include "buf.h"
#include "encode.h"
#include "unit.h"

static void
assert_encodes(const char *raw, const char *enc)
{
	char	*e, *d;

	e = encode_dup(raw);
	ck_assert_str_eq(e, enc);
	ck_assert_int_eq(decode_path(e, &d), 0);
	ck_assert_str_eq(d, raw);
	free(e);
	free(d);
}

START_TEST(test_each_escape)
{
	assert_encodes("a b", "a\\bb");
	assert_encodes("a\tb", "a\\tb");
	assert_encodes("a\nb", "a\\nb");
	assert_encodes("a\rb", "a\\rb");
	assert_encodes("a\\b", "a\\\\b");
	assert_encodes(" \t\n\r\\", "\\b\\t\\n\\r\\\\");
	assert_encodes("", "");
	assert_encodes("./plain/path-1.2_x", "./plain/path-1.2_x");
}
END_TEST

START_TEST(test_verbatim_bytes)
{
	/* UTF-8 and every other byte are copied unchanged */
	assert_encodes("./caf\xc3\xa9/\xe2\x98\x83", "./caf\xc3\xa9/\xe2\x98\x83");
	assert_encodes("%20+\"'`$*?[]{}<>#", "%20+\"'`$*?[]{}<>#");
	assert_encodes("\x01\x7f\x80\xff", "\x01\x7f\x80\xff");
	assert_encodes("-leading", "-leading");
	assert_encodes("\\b", "\\\\b");		/* literal backslash + b */
}
END_TEST

START_TEST(test_all_bytes_roundtrip)
{
	char	 raw[256], *e, *d;
	int	 i;

	for (i = 1; i < 256; i++)
		raw[i - 1] = (char)i;
	raw[255] = '\0';
	e = encode_dup(raw);
	ck_assert_ptr_null(strchr(e, ' '));
	ck_assert_ptr_null(strchr(e, '\t'));
	ck_assert_ptr_null(strchr(e, '\n'));
	ck_assert_ptr_null(strchr(e, '\r'));
	ck_assert_uint_eq(strlen(e), 255 + 5);
	ck_assert_int_eq(decode_path(e, &d), 0);
	ck_assert_str_eq(d, raw);
	free(e);
	free(d);
}
END_TEST

START_TEST(test_decode_rejects)
{
	static const char *bad[] = { "a\\x", "\\x41", "a\\", "\\", "a\\0b",
	    "\\B", "\\N", "\\ ", "a\\\\\\", NULL };
	char	*d = (char *)"untouched";
	int	 i;

	for (i = 0; bad[i] != NULL; i++) {
		ck_assert_msg(decode_path(bad[i], &d) == -1,
		    "decode_path accepted \"%s\"", bad[i]);
		ck_assert_str_eq(d, "untouched");
	}
}
END_TEST

START_TEST(test_decode_inplace)
{
	char	s1[] = "x\\by\\\\z\\n", s2[] = "bad\\q", s3[] = "end\\";

	ck_assert_int_eq(decode_inplace(s1), 0);
	ck_assert_str_eq(s1, "x y\\z\n");
	ck_assert_int_eq(decode_inplace(s2), -1);
	ck_assert_int_eq(decode_inplace(s3), -1);
}
END_TEST

START_TEST(test_decode_length_limit)
{
	char	*s, *d;

	/* PATH_MAX - 1 decoded bytes fit, PATH_MAX do not */
	s = malloc(2 * PATH_MAX + 1);
	ck_assert_ptr_nonnull(s);
	memset(s, 'a', PATH_MAX - 1);
	s[PATH_MAX - 1] = '\0';
	ck_assert_int_eq(decode_path(s, &d), 0);
	ck_assert_uint_eq(strlen(d), PATH_MAX - 1);
	free(d);
	memset(s, 'a', PATH_MAX);
	s[PATH_MAX] = '\0';
	ck_assert_int_eq(decode_path(s, &d), -1);
	/* the limit is on the decoded length: PATH_MAX-1 escaped spaces */
	for (int i = 0; i < PATH_MAX - 1; i++) {
		s[2 * i] = '\\';
		s[2 * i + 1] = 'b';
	}
	s[2 * (PATH_MAX - 1)] = '\0';
	ck_assert_int_eq(decode_path(s, &d), 0);
	ck_assert_uint_eq(strlen(d), PATH_MAX - 1);
	ck_assert_int_eq(d[0], ' ');
	free(d);
	free(s);
}
END_TEST

START_TEST(test_encode_path_buf)
{
	struct buf	*b = buf_new(64);

	ck_assert_int_eq(buf_addstr(b, "f "), 0);
	ck_assert_int_eq(encode_path(b, "./a b\\c"), 0);
	ck_assert_str_eq(buf_data(b), "f ./a\\bb\\\\c");
	buf_free(b);
}
END_TEST

START_TEST(test_encode_path_cap)
{
	struct buf	*b = buf_new(5);

	/* "a b" encodes to 4 bytes; two escapes need 6 */
	ck_assert_int_eq(encode_path(b, "a b"), 0);
	ck_assert_str_eq(buf_data(b), "a\\bb");
	buf_reset(b);
	errno = 0;
	ck_assert_int_eq(encode_path(b, "  \n"), -1);
	ck_assert_int_eq(errno, EMSGSIZE);
	buf_free(b);
}
END_TEST

static Suite *
encode_suite(void)
{
	Suite	*s = suite_create("encode");
	TCase	*tc;

	tc = tcase_create("encode");
	tcase_add_test(tc, test_each_escape);
	tcase_add_test(tc, test_verbatim_bytes);
	tcase_add_test(tc, test_all_bytes_roundtrip);
	tcase_add_test(tc, test_encode_path_buf);
	tcase_add_test(tc, test_encode_path_cap);
	suite_add_tcase(s, tc);

	tc = tcase_create("decode");
	tcase_add_test(tc, test_decode_rejects);
	tcase_add_test(tc, test_decode_inplace);
	tcase_add_test(tc, test_decode_length_limit);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(encode_suite());
}
