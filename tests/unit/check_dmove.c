/*
 * check_dmove.c: the version rule that finds the basis of a moved file
 * (common/dmove.c, docs/formats.md section 14.1).
 */
#include "config.h"

#include <string.h>

#include "dmove.h"
#include "unit.h"

static void
key_is(const char *path, int which, const char *want)
{
	char	key[256];

	dmove_key(path, which, key);
	ck_assert_str_eq(key, want);
}

START_TEST(test_keys)
{
	key_is("lib/modules/6.1.0-55-amd64/kernel/md/raid10.ko", DMOVE_DIRS,
	    "lib/modules/#.#.#-#-amd#/kernel/md/raid10.ko");
	key_is("lib/modules/6.1.0-55-amd64/kernel/md/raid10.ko", DMOVE_ALL,
	    "lib/modules/#.#.#-#-amd#/kernel/md/raid#.ko");
	key_is("usr/lib/libssl.so.3", DMOVE_DIRS, "usr/lib/libssl.so.3");
	key_is("usr/lib/libssl.so.3", DMOVE_ALL, "usr/lib/libssl.so.#");
	key_is("README", DMOVE_ALL, "README");
	key_is("2024/1", DMOVE_DIRS, "#/1");
	key_is("", DMOVE_ALL, "");
}
END_TEST

START_TEST(test_find)
{
	struct dmove	*m = dmove_new();
	size_t		 id = 99;

	/* Removed files, in transcript order, ids their line numbers. */
	dmove_add(m, "lib/modules/6.1.0-54-amd64/kernel/md/raid1.ko", 1);
	dmove_add(m, "lib/modules/6.1.0-54-amd64/kernel/md/raid10.ko", 2);
	dmove_add(m, "lib/modules/6.1.0-55-amd64/kernel/md/raid1.ko", 3);
	dmove_add(m, "lib/modules/6.1.0-55-amd64/kernel/md/raid10.ko", 4);
	dmove_add(m, "usr/lib/libfoo.so.1.2", 5);
	dmove_add(m, "usr/lib/same.txt", 6);
	dmove_sort(m);
	ck_assert_uint_eq(dmove_count(m), 6);

	/* Its own name first, in the last directory of the key. */
	ck_assert(dmove_find(m, "lib/modules/6.1.0-56-amd64/kernel/md/raid1.ko",
	    &id));
	ck_assert_uint_eq(id, 3);
	ck_assert(dmove_find(m,
	    "lib/modules/6.1.0-56-amd64/kernel/md/raid10.ko", &id));
	ck_assert_uint_eq(id, 4);
	/* A new name: any number; the last removed of that key. */
	ck_assert(dmove_find(m, "lib/modules/6.1.0-56-amd64/kernel/md/raid5.ko",
	    &id));
	ck_assert_uint_eq(id, 4);
	ck_assert(dmove_find(m, "usr/lib/libfoo.so.1.3", &id));
	ck_assert_uint_eq(id, 5);
	/* Not a basis of itself; no key alike: none. */
	id = 99;
	ck_assert(!dmove_find(m, "usr/lib/same.txt", &id));
	ck_assert(!dmove_find(m, "usr/lib/other.txt", &id));
	ck_assert(!dmove_find(m, "lib/modules/6.1.0-56-amd64/kernel/md/raid1.o",
	    &id));
	ck_assert_uint_eq(id, 99);
	dmove_free(m);

	/* Nothing removed: nothing found. */
	m = dmove_new();
	dmove_sort(m);
	ck_assert(!dmove_find(m, "a1", &id));
	dmove_free(m);
	dmove_free(NULL);
}
END_TEST

static Suite *
dmove_suite(void)
{
	Suite	*s = suite_create("dmove");
	TCase	*tc;

	tc = tcase_create("version rule");
	tcase_add_test(tc, test_keys);
	tcase_add_test(tc, test_find);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(dmove_suite());
}
