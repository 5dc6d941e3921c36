/*
 * check_buf.c: the capped growable buffer (common/buf.c).
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "buf.h"
#include "unit.h"

START_TEST(test_empty)
{
	struct buf	*b = buf_new(100);

	ck_assert_uint_eq(buf_len(b), 0);
	ck_assert_uint_eq(buf_max(b), 100);
	ck_assert_str_eq(buf_data(b), "");
	buf_free(b);
	buf_free(NULL);
}
END_TEST

START_TEST(test_add_nul_terminated)
{
	struct buf	*b = buf_new(1024);

	ck_assert_int_eq(buf_add(b, "abc", 3), 0);
	ck_assert_int_eq(buf_addc(b, 'd'), 0);
	ck_assert_int_eq(buf_addstr(b, "efg"), 0);
	ck_assert_uint_eq(buf_len(b), 7);
	ck_assert_str_eq(buf_data(b), "abcdefg");
	ck_assert_int_eq(buf_add(b, "", 0), 0);
	ck_assert_uint_eq(buf_len(b), 7);
	/* binary data, including NUL and high bytes */
	ck_assert_int_eq(buf_addc(b, 0), 0);
	ck_assert_int_eq(buf_addc(b, 0xff), 0);
	ck_assert_uint_eq(buf_len(b), 9);
	ck_assert_mem_eq(buf_data(b), "abcdefg\0\xff", 9);
	ck_assert_int_eq(buf_data(b)[9], '\0');
	buf_reset(b);
	ck_assert_uint_eq(buf_len(b), 0);
	ck_assert_str_eq(buf_data(b), "");
	buf_free(b);
}
END_TEST

START_TEST(test_grow_large)
{
	struct buf	*b = buf_new(1 << 20);
	char		 chunk[1000];
	int		 i;

	memset(chunk, 'x', sizeof(chunk));
	for (i = 0; i < 1000; i++)
		ck_assert_int_eq(buf_add(b, chunk, sizeof(chunk)), 0);
	ck_assert_uint_eq(buf_len(b), 1000000);
	ck_assert_int_eq(buf_data(b)[999999], 'x');
	ck_assert_int_eq(buf_data(b)[1000000], '\0');
	buf_free(b);
}
END_TEST

START_TEST(test_cap_exact)
{
	struct buf	*b = buf_new(10);

	ck_assert_int_eq(buf_add(b, "0123456789", 10), 0);
	ck_assert_uint_eq(buf_len(b), 10);
	errno = 0;
	ck_assert_int_eq(buf_addc(b, 'x'), -1);
	ck_assert_int_eq(errno, EMSGSIZE);
	/* a failed add leaves the contents untouched */
	ck_assert_uint_eq(buf_len(b), 10);
	ck_assert_str_eq(buf_data(b), "0123456789");
	buf_free(b);
}
END_TEST

START_TEST(test_cap_single_oversize)
{
	struct buf	*b = buf_new(4);

	errno = 0;
	ck_assert_int_eq(buf_add(b, "hello", 5), -1);
	ck_assert_int_eq(errno, EMSGSIZE);
	ck_assert_uint_eq(buf_len(b), 0);
	errno = 0;
	ck_assert_int_eq(buf_addstr(b, "hello"), -1);
	ck_assert_int_eq(errno, EMSGSIZE);
	/* huge lengths must not wrap around the cap check */
	errno = 0;
	ck_assert_ptr_null(buf_reserve(b, (size_t)-1));
	ck_assert_int_eq(errno, EMSGSIZE);
	errno = 0;
	ck_assert_ptr_null(buf_reserve(b, (size_t)-1 / 2 + 2));
	ck_assert_int_eq(errno, EMSGSIZE);
	ck_assert_int_eq(buf_addstr(b, "hell"), 0);
	ck_assert_str_eq(buf_data(b), "hell");
	buf_free(b);
}
END_TEST

START_TEST(test_cap_after_consume)
{
	struct buf	*b = buf_new(8);

	ck_assert_int_eq(buf_addstr(b, "abcdefgh"), 0);
	buf_consume(b, 5);
	ck_assert_str_eq(buf_data(b), "fgh");
	/* the cap counts live bytes, not consumed ones */
	ck_assert_int_eq(buf_addstr(b, "12345"), 0);
	ck_assert_str_eq(buf_data(b), "fgh12345");
	errno = 0;
	ck_assert_int_eq(buf_addc(b, 'z'), -1);
	ck_assert_int_eq(errno, EMSGSIZE);
	buf_free(b);
}
END_TEST

START_TEST(test_printf)
{
	struct buf	*b = buf_new(64);

	ck_assert_int_eq(buf_printf(b, "%d %s", 42, "x"), 0);
	ck_assert_int_eq(buf_printf(b, "|%-5s|%05d", "ab", -7), 0);
	ck_assert_str_eq(buf_data(b), "42 x|ab   |-0007");
	ck_assert_uint_eq(buf_len(b), strlen("42 x|ab   |-0007"));
	ck_assert_int_eq(buf_printf(b, "%s", ""), 0);
	ck_assert_uint_eq(buf_len(b), 16);
	buf_free(b);
}
END_TEST

START_TEST(test_printf_cap)
{
	struct buf	*b = buf_new(10);

	ck_assert_int_eq(buf_printf(b, "%s", "12345"), 0);
	errno = 0;
	ck_assert_int_eq(buf_printf(b, "%s", "678901"), -1);
	ck_assert_int_eq(errno, EMSGSIZE);
	ck_assert_str_eq(buf_data(b), "12345");
	ck_assert_int_eq(buf_printf(b, "%s", "67890"), 0);
	ck_assert_str_eq(buf_data(b), "1234567890");
	buf_free(b);
}
END_TEST

START_TEST(test_printf_grows)
{
	struct buf	*b = buf_new(100000);
	char		 big[5001];

	memset(big, 'q', 5000);
	big[5000] = '\0';
	ck_assert_int_eq(buf_printf(b, "<%s>", big), 0);
	ck_assert_uint_eq(buf_len(b), 5002);
	ck_assert_int_eq(buf_data(b)[0], '<');
	ck_assert_int_eq(buf_data(b)[5001], '>');
	ck_assert_int_eq(buf_data(b)[5002], '\0');
	buf_free(b);
}
END_TEST

START_TEST(test_reserve_commit)
{
	struct buf	*b = buf_new(16);
	char		*p;

	ck_assert_int_eq(buf_addstr(b, "ab"), 0);
	p = buf_reserve(b, 10);
	ck_assert_ptr_nonnull(p);
	memcpy(p, "cdefghij", 8);
	buf_commit(b, 8);		/* may commit less than reserved */
	ck_assert_uint_eq(buf_len(b), 10);
	ck_assert_str_eq(buf_data(b), "abcdefghij");
	/* 6 left under the cap */
	ck_assert_ptr_nonnull(buf_reserve(b, 6));
	errno = 0;
	ck_assert_ptr_null(buf_reserve(b, 7));
	ck_assert_int_eq(errno, EMSGSIZE);
	ck_assert_str_eq(buf_data(b), "abcdefghij");
	buf_commit(b, 0);
	ck_assert_uint_eq(buf_len(b), 10);
	buf_free(b);
}
END_TEST

START_TEST(test_consume)
{
	struct buf	*b = buf_new(64);

	ck_assert_int_eq(buf_addstr(b, "hello world"), 0);
	buf_consume(b, 6);
	ck_assert_uint_eq(buf_len(b), 5);
	ck_assert_str_eq(buf_data(b), "world");
	buf_consume(b, 0);
	ck_assert_str_eq(buf_data(b), "world");
	buf_consume(b, 100);		/* more than present: empties */
	ck_assert_uint_eq(buf_len(b), 0);
	ck_assert_str_eq(buf_data(b), "");
	ck_assert_int_eq(buf_addstr(b, "again"), 0);
	ck_assert_str_eq(buf_data(b), "again");
	buf_free(b);
}
END_TEST

START_TEST(test_mutable)
{
	struct buf	*b = buf_new(64);

	ck_assert_int_eq(buf_addstr(b, "xabc"), 0);
	buf_consume(b, 1);
	buf_mutable(b)[0] = 'A';
	ck_assert_str_eq(buf_data(b), "Abc");
	buf_free(b);
}
END_TEST

START_TEST(test_getline)
{
	struct buf	*b = buf_new(256);
	char		*line;

	ck_assert_int_eq(buf_addstr(b, "one\ntwo\r\n\nthr"), 0);
	ck_assert_int_eq(buf_getline(b, &line), 3);
	ck_assert_str_eq(line, "one");
	/* CR is kept: callers decide about CRLF */
	ck_assert_int_eq(buf_getline(b, &line), 4);
	ck_assert_str_eq(line, "two\r");
	ck_assert_int_eq(buf_getline(b, &line), 0);
	ck_assert_str_eq(line, "");
	/* partial line stays until its LF arrives */
	ck_assert_int_eq(buf_getline(b, &line), -1);
	ck_assert_uint_eq(buf_len(b), 3);
	ck_assert_str_eq(buf_data(b), "thr");
	ck_assert_int_eq(buf_addstr(b, "ee\nfour"), 0);
	ck_assert_int_eq(buf_getline(b, &line), 5);
	ck_assert_str_eq(line, "three");
	ck_assert_str_eq(buf_data(b), "four");
	ck_assert_int_eq(buf_getline(b, &line), -1);
	buf_free(b);
}
END_TEST

START_TEST(test_getline_storage)
{
	struct buf	*b = buf_new(256);
	char		*line;

	/* the returned line survives changes to the buffer itself */
	ck_assert_int_eq(buf_addstr(b, "first\n"), 0);
	ck_assert_int_eq(buf_getline(b, &line), 5);
	ck_assert_int_eq(buf_addstr(b, "XXXXXXXXXXXX"), 0);
	ck_assert_str_eq(line, "first");
	buf_free(b);
}
END_TEST

START_TEST(test_getline_long)
{
	struct buf	*b = buf_new(100000);
	char		*big, *line;

	big = malloc(70001);
	ck_assert_ptr_nonnull(big);
	memset(big, 'L', 70000);
	big[70000] = '\n';
	ck_assert_int_eq(buf_addstr(b, "s\n"), 0);
	ck_assert_int_eq(buf_add(b, big, 70001), 0);
	ck_assert_int_eq(buf_getline(b, &line), 1);
	ck_assert_int_eq(buf_getline(b, &line), 70000);
	ck_assert_uint_eq(strlen(line), 70000);
	ck_assert_uint_eq(buf_len(b), 0);
	free(big);
	buf_free(b);
}
END_TEST

START_TEST(test_steal)
{
	struct buf	*b = buf_new(64);
	char		*s;
	size_t		 len;

	ck_assert_int_eq(buf_addstr(b, "..keep"), 0);
	buf_consume(b, 2);
	s = buf_steal(b, &len);
	ck_assert_uint_eq(len, 4);
	ck_assert_str_eq(s, "keep");
	ck_assert_uint_eq(buf_len(b), 0);
	free(s);
	s = buf_steal(b, NULL);
	ck_assert_str_eq(s, "");
	free(s);
	buf_free(b);
}
END_TEST

static Suite *
buf_suite(void)
{
	Suite	*s = suite_create("buf");
	TCase	*tc;

	tc = tcase_create("basic");
	tcase_add_test(tc, test_empty);
	tcase_add_test(tc, test_add_nul_terminated);
	tcase_add_test(tc, test_grow_large);
	tcase_add_test(tc, test_mutable);
	tcase_add_test(tc, test_steal);
	suite_add_tcase(s, tc);

	tc = tcase_create("cap");
	tcase_add_test(tc, test_cap_exact);
	tcase_add_test(tc, test_cap_single_oversize);
	tcase_add_test(tc, test_cap_after_consume);
	tcase_add_test(tc, test_printf_cap);
	suite_add_tcase(s, tc);

	tc = tcase_create("printf");
	tcase_add_test(tc, test_printf);
	tcase_add_test(tc, test_printf_grows);
	suite_add_tcase(s, tc);

	tc = tcase_create("reserve");
	tcase_add_test(tc, test_reserve_commit);
	suite_add_tcase(s, tc);

	tc = tcase_create("lines");
	tcase_add_test(tc, test_consume);
	tcase_add_test(tc, test_getline);
	tcase_add_test(tc, test_getline_storage);
	tcase_add_test(tc, test_getline_long);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(buf_suite());
}
