/*
 * check_linkmemo.c: what cairnd remembers of each peer's link
 * (server/linkmemo.c): kept per address across openings of the table,
 * apart for every address, never for a name, a network's last for a
 * peer of it with none of its own, and an entry left half
 * written by a killed session dropped when the daemon opens the table.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>

#include "cerr.h"
#include "linkmemo.h"
#include "unit.h"

static char	*dir;
static int	 rootfd;

static void
setup(void)
{
	char	 path[PATH_MAX];

	dir = unit_mkdtemp();
	snprintf(path, sizeof(path), "%s/tmp", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	rootfd = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(rootfd, 0);
}

static void
teardown(void)
{
	close(rootfd);
	unit_rmtree(dir);
	free(dir);
}

static struct zauto_memo
memo(double link, int level)
{
	struct zauto_memo	 m;

	memset(&m, 0, sizeof(m));
	m.link = link;
	m.linkknown = 1;
	m.codec = ZAUTO_ZSTD;
	m.level = level;
	m.speed1 = 300e6;
	m.ratio1 = 0.4;
	m.recalls = 1;
	return m;
}

START_TEST(test_roundtrip)
{
	struct linkmemo		*lm;
	struct zauto_memo	 m, got;
	struct cerr		 err;
	struct stat		 st;
	char			 ip[64];
	int			 i;

	ck_assert_ptr_nonnull(lm = linkmemo_open(rootfd, &err));
	ck_assert_int_eq(linkmemo_get(lm, "192.0.2.7", &got), -1);
	m = memo(12.5e6, 3);
	linkmemo_put(lm, "192.0.2.7", &m);
	ck_assert_int_eq(linkmemo_get(lm, "192.0.2.7", &got), 0);
	ck_assert(got.link == 12.5e6 && got.level == 3 && got.linkknown &&
	    got.codec == ZAUTO_ZSTD && got.speed1 == 300e6 &&
	    got.ratio1 == 0.4 && got.recalls == 1);
	/* The same address written as IPv4-mapped IPv6 is the same peer. */
	ck_assert_int_eq(linkmemo_get(lm, "::ffff:192.0.2.7", &got), 0);
	/*
	 * Others are not (a neighbour gets it as its network's, below);
	 * nor is anything but a numeric address.
	 */
	ck_assert_int_eq(linkmemo_get(lm, "192.0.2.8", &got), 1);
	ck_assert_int_eq(linkmemo_get(lm, "192.0.3.7", &got), -1);
	ck_assert_int_eq(linkmemo_get(lm, "2001:db8::7", &got), -1);
	ck_assert_int_eq(linkmemo_get(lm, "client.example.net", &got), -1);
	linkmemo_put(lm, "client.example.net", &m);
	ck_assert_int_eq(linkmemo_get(lm, "client.example.net", &got), -1);
	/* A later session's memo replaces the earlier one. */
	m = memo(100e6, 0);
	linkmemo_put(lm, "192.0.2.7", &m);
	ck_assert_int_eq(linkmemo_get(lm, "192.0.2.7", &got), 0);
	ck_assert(got.link == 100e6 && got.level == 0);
	/* Many peers: each its own, the table never grows. */
	for (i = 0; i < 100; i++) {
		snprintf(ip, sizeof(ip), "2001:db8::%x", i + 1);
		m = memo(1e6 * (i + 1), i % 4);
		linkmemo_put(lm, ip, &m);
	}
	for (i = 0; i < 100; i++) {
		snprintf(ip, sizeof(ip), "2001:db8::%x", i + 1);
		ck_assert_int_eq(linkmemo_get(lm, ip, &got), 0);
		ck_assert(got.link == 1e6 * (i + 1) && got.level == i % 4);
	}
	linkmemo_close(lm);

	/* Kept across openings (a restart of the daemon). */
	ck_assert_int_eq(fstatat(rootfd, LINKMEMO_FILE, &st, 0), 0);
	ck_assert_uint_eq((unsigned)(st.st_mode & 07777), 0600);
	ck_assert_ptr_nonnull(lm = linkmemo_open(rootfd, &err));
	ck_assert_int_eq(linkmemo_get(lm, "192.0.2.7", &got), 0);
	ck_assert(got.link == 100e6);
	linkmemo_close(lm);
}
END_TEST

/*
 * A peer with no memo of its own starts from its network's: the last
 * memo of a peer in its /24 (IPv4) or /64 (IPv6).  Its own, once it
 * has one, comes first; other networks have nothing.
 */
START_TEST(test_network)
{
	struct linkmemo		*lm;
	struct zauto_memo	 m, got;
	struct cerr		 err;

	ck_assert_ptr_nonnull(lm = linkmemo_open(rootfd, &err));
	m = memo(12.5e6, 3);
	linkmemo_put(lm, "198.51.100.20", &m);
	ck_assert_int_eq(linkmemo_get(lm, "198.51.100.21", &got), 1);
	ck_assert(got.link == 12.5e6 && got.level == 3);
	ck_assert_int_eq(linkmemo_get(lm, "::ffff:198.51.100.200", &got), 1);
	ck_assert_int_eq(linkmemo_get(lm, "198.51.101.20", &got), -1);
	/* The network's is the last neighbour's. */
	m = memo(117e6, 1);
	linkmemo_put(lm, "198.51.100.30", &m);
	ck_assert_int_eq(linkmemo_get(lm, "198.51.100.21", &got), 1);
	ck_assert(got.link == 117e6 && got.level == 1);
	/* A peer's own memo comes before its network's. */
	ck_assert_int_eq(linkmemo_get(lm, "198.51.100.20", &got), 0);
	ck_assert(got.link == 12.5e6 && got.level == 3);
	/* The network's key is not its first address's. */
	ck_assert_int_eq(linkmemo_get(lm, "198.51.100.0", &got), 1);
	ck_assert(got.link == 117e6);
	/* IPv6: the /64. */
	m = memo(2.5e6, 9);
	linkmemo_put(lm, "2001:db8:1:2::10", &m);
	ck_assert_int_eq(linkmemo_get(lm, "2001:db8:1:2:a:b:c:d", &got), 1);
	ck_assert(got.link == 2.5e6 && got.level == 9);
	ck_assert_int_eq(linkmemo_get(lm, "2001:db8:1:3::10", &got), -1);
	ck_assert_int_eq(linkmemo_get(lm, "2001:db8:1:2::10", &got), 0);
	linkmemo_close(lm);
}
END_TEST

/* A file of another size is made anew; a half-written entry dropped. */
START_TEST(test_damaged)
{
	struct linkmemo		*lm;
	struct zauto_memo	 m, got;
	struct cerr		 err;
	unsigned char		 b[64];
	uint32_t		 seq;
	off_t			 off;
	int			 fd;

	fd = openat(rootfd, LINKMEMO_FILE, O_RDWR | O_CREAT, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "garbage", 7), 7);
	close(fd);
	ck_assert_ptr_nonnull(lm = linkmemo_open(rootfd, &err));
	m = memo(5e6, 2);
	linkmemo_put(lm, "198.51.100.1", &m);
	ck_assert_int_eq(linkmemo_get(lm, "198.51.100.1", &got), 0);
	linkmemo_close(lm);

	/*
	 * Make the entries (the peer's and its network's) odd (being
	 * written), as a killed writer leaves them.
	 */
	fd = openat(rootfd, LINKMEMO_FILE, O_RDWR);
	ck_assert_int_ge(fd, 0);
	for (off = 0; pread(fd, b, sizeof(b), off) == (ssize_t)sizeof(b);
	    off += (off_t)sizeof(b)) {
		memcpy(&seq, b, sizeof(seq));
		if (seq == 0)
			continue;
		seq |= 1;
		ck_assert_int_eq(pwrite(fd, &seq, sizeof(seq), off),
		    (ssize_t)sizeof(seq));
	}
	close(fd);
	ck_assert_ptr_nonnull(lm = linkmemo_open(rootfd, &err));
	ck_assert_int_eq(linkmemo_get(lm, "198.51.100.1", &got), -1);
	/* And its place takes a new memo. */
	linkmemo_put(lm, "198.51.100.1", &m);
	ck_assert_int_eq(linkmemo_get(lm, "198.51.100.1", &got), 0);
	linkmemo_close(lm);
}
END_TEST

/* A symbolic link in its place is refused, not followed. */
START_TEST(test_symlink)
{
	struct cerr	 err;

	ck_assert_int_eq(symlinkat("/etc/passwd", rootfd, LINKMEMO_FILE), 0);
	ck_assert_ptr_null(linkmemo_open(rootfd, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, LINKMEMO_FILE));
}
END_TEST

/*
 * A hard link in its place is refused, and what it links to is left as
 * it was: tmp/ is writable by the -g user, and the daemon opens the
 * table as root, which would otherwise truncate and map any file on
 * that file system.
 */
START_TEST(test_hardlink)
{
	static const char	 secret[] = "root:secret:19000:0:99999:7:::\n";
	struct cerr		 err;
	struct stat		 st;
	char			 buf[64];
	int			 fd;
	ssize_t			 n;

	fd = openat(rootfd, "victim", O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, secret, sizeof(secret) - 1),
	    (ssize_t)(sizeof(secret) - 1));
	close(fd);
	ck_assert_int_eq(linkat(rootfd, "victim", rootfd, LINKMEMO_FILE, 0),
	    0);
	ck_assert_ptr_null(linkmemo_open(rootfd, &err));
	ck_assert_ptr_nonnull(strstr(err.msg, LINKMEMO_FILE));
	ck_assert_int_eq(fstatat(rootfd, "victim", &st, 0), 0);
	ck_assert_int_eq(st.st_size, (off_t)(sizeof(secret) - 1));
	fd = openat(rootfd, "victim", O_RDONLY);
	ck_assert_int_ge(fd, 0);
	n = read(fd, buf, sizeof(buf));
	close(fd);
	ck_assert_int_eq(n, (ssize_t)(sizeof(secret) - 1));
	ck_assert_int_eq(memcmp(buf, secret, (size_t)n), 0);
}
END_TEST

static Suite *
linkmemo_suite(void)
{
	Suite	*s = suite_create("linkmemo");
	TCase	*tc;

	tc = tcase_create("table");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_network);
	tcase_add_test(tc, test_damaged);
	tcase_add_test(tc, test_symlink);
	tcase_add_test(tc, test_hardlink);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(linkmemo_suite());
}
