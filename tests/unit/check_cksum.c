/*
 * check_cksum.c: EVP digests printed in base64 (docs/formats.md section 1.1).
 */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cksum.h"
#include "unit.h"

static const struct {
	const char	*alg, *in, *b64;
} vec[] = {
	{ "sha1", "", "2jmj7l5rSw0yVb/vlWAYkK/YBwk=" },
	{ "sha1", "abc", "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=" },
	{ "md5", "", "1B2M2Y8AsgTpgAmY7PhCfg==" },
	{ "md5", "abc", "kAFQmDzST7DWlj99KOF/cg==" },
	{ "sha256", "abc",
	    "ungWv48Bz+pBQUDeXa4iI7ADYaOWF3qctBD/YfIAFa0=" },
};

START_TEST(test_known_vectors)
{
	struct cksum	*c;
	char		 out[CKSUM_B64MAX];

	c = cksum_new(vec[_i].alg);
	ck_assert_ptr_nonnull(c);
	cksum_update(c, vec[_i].in, strlen(vec[_i].in));
	cksum_final(c, out);
	ck_assert_str_eq(out, vec[_i].b64);
	cksum_free(c);
}
END_TEST

START_TEST(test_lengths)
{
	struct cksum	*c;
	char		 out[CKSUM_B64MAX];

	/* SHA-1: 28 chars, one '='; MD5: 24 chars, "==" */
	c = cksum_new("sha1");
	cksum_update(c, "x", 1);
	cksum_final(c, out);
	ck_assert_uint_eq(strlen(out), 28);
	ck_assert_int_eq(out[27], '=');
	ck_assert_int_ne(out[26], '=');
	cksum_free(c);
	c = cksum_new("md5");
	cksum_final(c, out);
	ck_assert_uint_eq(strlen(out), 24);
	ck_assert_str_eq(out + 22, "==");
	cksum_free(c);
	/* the largest digest fits the buffer */
	c = cksum_new("sha512");
	ck_assert_ptr_nonnull(c);
	cksum_final(c, out);
	ck_assert_uint_eq(strlen(out), 88);
	ck_assert_uint_lt(strlen(out), CKSUM_B64MAX);
	cksum_free(c);
}
END_TEST

START_TEST(test_streaming_and_reset)
{
	struct cksum	*c = cksum_new("sha1");
	char		 out[CKSUM_B64MAX];

	/* split updates give the digest of the whole */
	cksum_update(c, "a", 1);
	cksum_update(c, "", 0);
	cksum_update(c, "bc", 2);
	cksum_final(c, out);
	ck_assert_str_eq(out, "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=");
	/* final leaves the context ready for the next digest */
	cksum_final(c, out);
	ck_assert_str_eq(out, "2jmj7l5rSw0yVb/vlWAYkK/YBwk=");
	cksum_update(c, "junk", 4);
	cksum_reset(c);
	cksum_update(c, "abc", 3);
	cksum_final(c, out);
	ck_assert_str_eq(out, "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=");
	cksum_free(c);
	cksum_free(NULL);
}
END_TEST

START_TEST(test_fd)
{
	struct cksum	*c = cksum_new("sha1");
	char		*dir, path[PATH_MAX], out[CKSUM_B64MAX];
	int64_t		 size = -1;
	int		 fd;

	dir = unit_mkdtemp();
	snprintf(path, sizeof(path), "%s/f", dir);
	unit_write(dir, "f", "abc");
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(cksum_fd(c, fd, out, &size), 0);
	ck_assert_str_eq(out, "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=");
	ck_assert_int_eq(size, 3);
	/* from the current offset: at EOF now, so the empty digest */
	ck_assert_int_eq(cksum_fd(c, fd, out, &size), 0);
	ck_assert_str_eq(out, "2jmj7l5rSw0yVb/vlWAYkK/YBwk=");
	ck_assert_int_eq(size, 0);
	ck_assert_int_eq(lseek(fd, 1, SEEK_SET), 1);
	ck_assert_int_eq(cksum_fd(c, fd, out, NULL), 0);
	close(fd);
	/* SHA-1 of "bc" */
	ck_assert_str_eq(out, "WyUFA5rFr54Zf12tBBE5BqnPmio=");
	/* stale state from a partial update is discarded */
	cksum_update(c, "zzz", 3);
	unit_write(dir, "e", "");
	snprintf(path, sizeof(path), "%s/e", dir);
	fd = open(path, O_RDONLY);
	ck_assert_int_eq(cksum_fd(c, fd, out, &size), 0);
	ck_assert_str_eq(out, "2jmj7l5rSw0yVb/vlWAYkK/YBwk=");
	ck_assert_int_eq(size, 0);
	close(fd);
	/* a bad descriptor is an error, not a digest */
	errno = 0;
	ck_assert_int_eq(cksum_fd(c, fd, out, &size), -1);
	ck_assert_int_eq(errno, EBADF);
	cksum_free(c);
	unit_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(test_fd_large)
{
	struct cksum	*a = cksum_new("md5"), *b = cksum_new("md5");
	char		*dir, path[PATH_MAX], o1[CKSUM_B64MAX], o2[CKSUM_B64MAX];
	char		*data;
	size_t		 n = 3 * 256 * 1024 + 17, i;
	int64_t		 size;
	int		 fd;
	FILE		*fp;

	/* larger than one read: the digest matches a single update */
	data = malloc(n);
	ck_assert_ptr_nonnull(data);
	for (i = 0; i < n; i++)
		data[i] = (char)(i * 131 + 7);
	dir = unit_mkdtemp();
	snprintf(path, sizeof(path), "%s/big", dir);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(data, 1, n, fp), n);
	ck_assert_int_eq(fclose(fp), 0);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(cksum_fd(a, fd, o1, &size), 0);
	close(fd);
	ck_assert_int_eq(size, (int64_t)n);
	cksum_update(b, data, n);
	cksum_final(b, o2);
	ck_assert_str_eq(o1, o2);
	free(data);
	cksum_free(a);
	cksum_free(b);
	unit_rmtree(dir);
	free(dir);
}
END_TEST

START_TEST(test_unsupported)
{
	ck_assert(cksum_supported("sha1"));
	ck_assert(cksum_supported("md5"));
	ck_assert(cksum_supported("sha256"));
	ck_assert(!cksum_supported("nosuchdigest"));
	ck_assert(!cksum_supported(""));
	ck_assert_ptr_null(cksum_new("nosuchdigest"));
	ck_assert_ptr_null(cksum_new(""));
}
END_TEST

START_TEST(test_data)
{
	char	 out[CKSUM_B64MAX];

	ck_assert_int_eq(cksum_data("sha1", "abc", 3, out), 0);
	ck_assert_str_eq(out, "qZk+NkcGgWq6PiVxeFDCbJzQ2J0=");
	ck_assert_int_eq(cksum_data("md5", "", 0, out), 0);
	ck_assert_str_eq(out, "1B2M2Y8AsgTpgAmY7PhCfg==");
	ck_assert_int_eq(cksum_data("nosuchdigest", "abc", 3, out), -1);
}
END_TEST

/*
 * Names OpenSSL knows but may not compute: md4 and others live in its
 * legacy provider, not loaded by default.  Supported means a digest can
 * be made (no fatal error); otherwise cksum_new says no.
 */
static const char *known[] = { "md4", "mdc2", "whirlpool", "ripemd160",
    "sm3", "blake2b512", "sha3-256", "shake256", "sha1" };

START_TEST(test_known_but_unavailable)
{
	struct cksum	*c;
	char		 out[CKSUM_B64MAX];

	c = cksum_new(known[_i]);
	ck_assert_int_eq(c != NULL, cksum_supported(known[_i]));
	if (c != NULL) {
		cksum_update(c, "abc", 3);
		cksum_final(c, out);
		ck_assert_uint_gt(strlen(out), 0);
		cksum_reset(c);
	}
	cksum_free(c);
}
END_TEST

START_TEST(test_list)
{
	char	*text = NULL;
	size_t	 len = 0;
	FILE	*fp;

	fp = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(fp);
	cksum_list(fp);
	ck_assert_int_eq(fclose(fp), 0);
	/* sha1 first, one name per line */
	ck_assert_int_eq(strncmp(text, "sha1\nmd5\n", 9), 0);
	ck_assert(strstr(text, "\nsha256\n") != NULL);
	ck_assert_int_eq(text[len - 1], '\n');
	free(text);
}
END_TEST

static Suite *
cksum_suite(void)
{
	Suite	*s = suite_create("cksum");
	TCase	*tc;

	tc = tcase_create("digest");
	tcase_add_loop_test(tc, test_known_vectors, 0,
	    (int)(sizeof(vec) / sizeof(vec[0])));
	tcase_add_test(tc, test_lengths);
	tcase_add_test(tc, test_streaming_and_reset);
	tcase_add_test(tc, test_unsupported);
	tcase_add_test(tc, test_data);
	tcase_add_loop_test(tc, test_known_but_unavailable, 0,
	    (int)(sizeof(known) / sizeof(known[0])));
	tcase_add_test(tc, test_list);
	suite_add_tcase(s, tc);

	tc = tcase_create("fd");
	tcase_add_test(tc, test_fd);
	tcase_add_test(tc, test_fd_large);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(cksum_suite());
}
