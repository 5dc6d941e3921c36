/*
 * check_dstore.c: the repository's store of bases and deltas
 * (server/dstore.c, docs/formats.md section 14): bases kept and found,
 * the access rule, deltas built once and applied, the verdict on deltas
 * not worth keeping, bounds and eviction, state kept across a reopen,
 * and hostile input: malformed digests, a base whose content changed,
 * before or while a delta is built from it.
 */
#include "config.h"

#include <sys/inotify.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "cksum.h"
#include "compat.h"
#include "delta.h"
#include "dstore.h"
#include "unit.h"

static char	*dir;		/* the repository */
static int	 rootfd;

static void
setup(void)
{
	dir = unit_mkdtemp();
	rootfd = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ne(rootfd, -1);
}

static void
teardown(void)
{
	close(rootfd);
	unit_rmtree(dir);
	free(dir);
}

/* Write len bytes at p to the repository's rel; its sha1 into sum. */
static void
put_file(const char *rel, const void *p, size_t len, char sum[CKSUM_B64MAX])
{
	char	 path[PATH_MAX], *s;
	FILE	*fp;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	for (s = path + strlen(dir) + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		(void)mkdir(path, 0755);
		*s = '/';
	}
	ck_assert_ptr_nonnull(fp = fopen(path, "w"));
	ck_assert_uint_eq(fwrite(p, 1, len, fp), len);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_int_eq(cksum_data("sha1", p, len, sum), 0);
}

/* A file of text-like content, seed making each one different. */
static char *
gen(size_t len, unsigned seed)
{
	char	*p = malloc(len);
	size_t	 i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < len; i++)
		p[i] = (char)("abcdefgh \n"[(i * 7 + i / 97 * seed) % 10]);
	return p;
}

/* Noise: a file no delta and no zlib can shrink. */
static char *
noise(size_t len, uint64_t seed)
{
	char	*p = malloc(len);
	size_t	 i;

	ck_assert_ptr_nonnull(p);
	for (i = 0; i < len; i++) {
		seed ^= seed << 13;
		seed ^= seed >> 7;
		seed ^= seed << 17;
		p[i] = (char)(seed >> 24);
	}
	return p;
}

static int
exists(const char *rel)
{
	char	 path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	return access(path, F_OK) == 0;
}

/* The repository path of sum in store part sub ('/' as '_'). */
static const char *
spath(const char *sub, const char *sum, const char *suffix)
{
	static char	 path[256];
	char		 n[CKSUM_B64MAX], *p;

	strlcpy(n, sum, sizeof(n));
	for (p = n; *p != '\0'; p++)
		if (*p == '/')
			*p = '_';
	snprintf(path, sizeof(path), "delta/sha1/%s/%s%s", sub, n, suffix);
	return path;
}

/* The repository path of the pair b, t in store part sub. */
static const char *
pairpath(const char *sub, const char *b, const char *t, const char *suffix)
{
	static char	 path[512];
	char		 tn[256];

	strlcpy(tn, spath("", t, suffix), sizeof(tn));
	snprintf(path, sizeof(path), "%s.%s", spath(sub, b, ""),
	    tn + strlen("delta/sha1//"));
	return path;
}

/* Noise with byte k at a few places: every two are a small delta apart. */
static char *
variant(size_t len, int k)
{
	char	*p = noise(len, 42);

	memset(p + 100, k, 8);
	return p;
}

static struct dstore *
open_store(int64_t bound)
{
	struct dstore	*ds;
	struct cerr	 err;

	ds = dstore_open(rootfd, "sha1", bound, 1, &err);
	ck_assert_msg(ds != NULL, "%s", err.msg);
	return ds;
}

START_TEST(test_digests)
{
	struct dstore	*ds = open_store(DSTORE_DEFBOUND);
	struct cerr	 err;
	char		 sum[CKSUM_B64MAX];
	char		*acl[] = { "T" };
	uint64_t	 len;
	size_t		 i;
	const char	*bad[] = { "", "A", "AAAAAAAAAAAAAAAAAAAAAAAAAAA",
	    "AAAAAAAAAAAAAAAAAAAAAAAAAAAA=", "AAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
	    "../../../../../../etc/passwd", "AAAAAAAAAAAAAAAAAAAAAAAAAA==",
	    "AAAAAAAAAAAAAA=AAAAAAAAAAAA=", "AAAAAAAAAAAAAAAAAAAAAAAAAA_=",
	    "AAAAAAAAAAAAAAAAAAAAAAAAAA.=", "AAAAAAAAAAAAAAAAAAAAAAAAAA\n=",
	    "AAAAAAAAAAAAAAAAAAAAAAAAAAA" "\0", "..AAAAAAAAAAAAAAAAAAAAAAAAA=",
	    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=" };

	put_file("file/T/a", "one\n", 4, sum);
	ck_assert(dstore_digest_ok(ds, sum));
	ck_assert(dstore_digest_ok(ds, "ab/+AAAAAAAAAAAAAAAAAAAAAAA="));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		ck_assert_msg(!dstore_digest_ok(ds, bad[i]), "%s", bad[i]);
		ck_assert_int_eq(dstore_put(ds, bad[i], "file/T/a", "T", &err),
		    -1);
		ck_assert(!dstore_allowed(ds, bad[i], acl, 1));
		ck_assert_int_eq(dstore_delta_open(ds, bad[i], sum, acl, 1,
		    &len), -1);
		ck_assert_int_eq(dstore_delta_open(ds, sum, bad[i], acl, 1,
		    &len), -1);
		ck_assert_int_eq(dstore_queue(ds, sum, bad[i], "file/T/a",
		    &err), -1);
		ck_assert_int_eq(dstore_base_open(ds, bad[i]), -1);
	}
	/* Nothing became a name in the store. */
	ck_assert(!exists("etc"));
	dstore_close(ds);
	/* An algorithm that is not one cannot name a store. */
	ck_assert_ptr_null(dstore_open(rootfd, "../x", 1, 1, &err));
	ck_assert_ptr_null(dstore_open(rootfd, "nosuch", 1, 1, &err));
	ck_assert_ptr_null(dstore_open(rootfd, "SHA1", 1, 1, &err));
}
END_TEST

START_TEST(test_put_and_rule)
{
	struct dstore	*ds = open_store(DSTORE_DEFBOUND);
	struct cerr	 err;
	struct stat	 st;
	char		 sum[CKSUM_B64MAX], sum2[CKSUM_B64MAX], path[PATH_MAX];
	char		*t[] = { "T" }, *u[] = { "U" }, *both[] = { "x", "U" };
	char		*sp[] = { "app 2.T" };
	FILE		*fp;
	int		 lines = 0, c;

	put_file("file/T/a", "one\n", 4, sum);
	ck_assert(!dstore_allowed(ds, sum, t, 1));
	ck_assert_int_eq(dstore_put(ds, sum, "file/T/a", "T", &err), 1);
	ck_assert_int_eq(dstore_put(ds, sum, "file/T/a", "T", &err), 1);
	ck_assert_int_eq(dstore_sync(ds, &err), 0);
	ck_assert(exists(spath("base", sum, "")));
	ck_assert(dstore_allowed(ds, sum, t, 1));
	ck_assert(!dstore_allowed(ds, sum, u, 1));
	ck_assert(!dstore_allowed(ds, sum, both, 2));
	ck_assert(!dstore_allowed(ds, sum, t, 0));
	/* A second owner, with a space in its name (encoded). */
	ck_assert_int_eq(dstore_put(ds, sum, "file/T/a", "U", &err), 1);
	ck_assert_int_eq(dstore_put(ds, sum, "file/T/a", "app 2.T", &err),
	    1);
	ck_assert(dstore_allowed(ds, sum, both, 2));
	ck_assert(dstore_allowed(ds, sum, sp, 1));
	snprintf(path, sizeof(path), "%s/%s", dir, spath("owner", sum, ""));
	ck_assert_ptr_nonnull(fp = fopen(path, "r"));
	while ((c = getc(fp)) != EOF)
		lines += c == '\n';
	fclose(fp);
	ck_assert_int_eq(lines, 3);
	/* An owner is no owner of another base. */
	put_file("file/T/b", "two\n", 4, sum2);
	ck_assert(!dstore_allowed(ds, sum2, u, 1));
	/* Not a regular file, a symbolic link on the way, too large. */
	ck_assert_int_eq(dstore_put(ds, sum2, "file/T", "T", &err), -1);
	snprintf(path, sizeof(path), "%s/file/L", dir);
	ck_assert_int_eq(symlink("T", path), 0);
	ck_assert_int_eq(dstore_put(ds, sum2, "file/L/b", "T", &err), -1);
	ck_assert(!exists(spath("base", sum2, "")));
	dstore_close(ds);
	ds = open_store(3);
	ck_assert_int_eq(dstore_put(ds, sum2, "file/T/b", "T", &err), 0);
	dstore_close(ds);
	ds = open_store(0);
	ck_assert_int_eq(dstore_put(ds, sum2, "file/T/b", "T", &err), 0);
	ck_assert(!exists(spath("base", sum2, "")));
	/* Kept by a link: the file's own inode, no copy. */
	snprintf(path, sizeof(path), "%s/%s", dir, spath("base", sum, ""));
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(st.st_nlink, 2);
	dstore_close(ds);
}
END_TEST

/* Apply the delta at dfd to base b, and compare with want. */
static void
apply_eq(int bfd, int dfd, const char *want, size_t wlen)
{
	struct cerr	 err;
	char		 out[PATH_MAX], *got;
	int		 ofd;
	ssize_t		 n;

	snprintf(out, sizeof(out), "%s/applied", dir);
	ck_assert_int_ne(ofd = open(out, O_RDWR | O_CREAT | O_TRUNC, 0600),
	    -1);
	ck_assert_msg(delta_apply_fd(bfd, dfd, ofd, NULL, &err) == 0, "%s",
	    err.msg);
	got = malloc(wlen + 1);
	ck_assert_int_eq(lseek(ofd, 0, SEEK_SET), 0);
	n = read(ofd, got, wlen + 1);
	ck_assert_int_eq(n, (ssize_t)wlen);
	ck_assert(memcmp(got, want, wlen) == 0);
	free(got);
	close(ofd);
}

static int
open_rel(const char *rel)
{
	char	 path[PATH_MAX];
	int	 fd;

	snprintf(path, sizeof(path), "%s/%s", dir, rel);
	ck_assert_int_ne(fd = open(path, O_RDONLY), -1);
	return fd;
}

START_TEST(test_build)
{
	struct dstore		*ds = open_store(DSTORE_DEFBOUND);
	struct dstore_built	 bt;
	struct cerr		 err;
	char			 b[CKSUM_B64MAX], t[CKSUM_B64MAX];
	char			 n1[CKSUM_B64MAX], n2[CKSUM_B64MAX];
	char			*acl[] = { "T" }, *other[] = { "U" };
	char			*v1, *v2, *r1, *r2;
	size_t			 len = 200000;
	uint64_t		 dlen;
	int			 bfd, tfd, dfd;

	v1 = noise(len, 1);
	v2 = malloc(len);
	memcpy(v2, v1, len);
	memcpy(v2 + 1000, "a change", 8);
	memcpy(v2 + 150000, "another change", 14);
	put_file("file/T/a", v1, len, b);
	put_file("file/T2/a", v2, len, t);
	ck_assert_int_eq(dstore_put(ds, b, "file/T/a", "T", &err), 1);
	ck_assert_int_ne(bfd = dstore_base_open(ds, b), -1);
	tfd = open_rel("file/T2/a");
	ck_assert_int_eq(dstore_build(ds, b, bfd, t, tfd, &bt, &err),
	    DSTORE_BUILT);
	ck_assert_uint_eq(bt.tsize, len);
	ck_assert_uint_lt(bt.dsize, 1000);
	ck_assert_uint_gt(bt.zsize, len);
	/* Built once: the second time it is known. */
	ck_assert_int_eq(dstore_build(ds, b, bfd, t, tfd, &bt, &err),
	    DSTORE_KNOWN);
	ck_assert_int_ne(dfd = dstore_delta_open(ds, b, t, acl, 1, &dlen),
	    -1);
	ck_assert_uint_lt(dlen, 1000);
	close(bfd);
	bfd = open_rel("file/T/a");
	apply_eq(bfd, dfd, v2, len);
	close(dfd);
	/* Not for a client none of whose loadsets owns the base. */
	ck_assert_int_eq(dstore_delta_open(ds, b, t, other, 1, &dlen), -1);
	ck_assert_int_eq(dstore_delta_open(ds, b, t, acl, 0, &dlen), -1);
	/* No delta from the target to the base was built. */
	ck_assert_int_eq(dstore_delta_open(ds, t, b, acl, 1, &dlen), -1);
	/* A target that is not what its digest says is refused. */
	ck_assert_int_eq(dstore_build(ds, b, bfd, b, tfd, &bt, &err), -1);
	ck_assert(strstr(err.msg, "does not match") != NULL);
	ck_assert(exists(spath("base", b, "")));
	close(bfd);
	close(tfd);

	/* Unrelated noise: not worth it, and remembered. */
	r1 = noise(len, 7);
	r2 = noise(len, 9);
	put_file("file/R/a", r1, len, n1);
	put_file("file/R2/a", r2, len, n2);
	ck_assert_int_eq(dstore_put(ds, n1, "file/R/a", "T", &err), 1);
	ck_assert_int_ne(bfd = dstore_base_open(ds, n1), -1);
	tfd = open_rel("file/R2/a");
	ck_assert_int_eq(dstore_build(ds, n1, bfd, n2, tfd, &bt, &err),
	    DSTORE_WORSE);
	ck_assert_int_eq(dstore_delta_open(ds, n1, n2, acl, 1, &dlen), -1);
	ck_assert_int_eq(dstore_build(ds, n1, bfd, n2, tfd, &bt, &err),
	    DSTORE_KNOWN);
	ck_assert_int_eq(dstore_queue(ds, n1, n2, "file/R2/a", &err), 0);
	ck_assert(!exists(spath("queue", n1, "")));
	close(bfd);
	close(tfd);

	/* The state is the directory: all of it holds after a reopen. */
	dstore_close(ds);
	ds = open_store(DSTORE_DEFBOUND);
	ck_assert(dstore_allowed(ds, b, acl, 1));
	ck_assert_int_ne(dfd = dstore_delta_open(ds, b, t, acl, 1, &dlen),
	    -1);
	close(dfd);
	bfd = dstore_base_open(ds, n1);
	tfd = open_rel("file/R2/a");
	ck_assert_int_eq(dstore_build(ds, n1, bfd, n2, tfd, &bt, &err),
	    DSTORE_KNOWN);
	close(bfd);
	close(tfd);
	dstore_close(ds);
	free(v1);
	free(v2);
	free(r1);
	free(r2);
}
END_TEST

START_TEST(test_corrupt_base)
{
	struct dstore		*ds = open_store(DSTORE_DEFBOUND);
	struct dstore_built	 bt;
	struct cerr		 err;
	char			 b[CKSUM_B64MAX], t[CKSUM_B64MAX], x[CKSUM_B64MAX];
	char			 path[PATH_MAX], tmp[PATH_MAX];
	char			*acl[] = { "T" }, *v1, *v2;
	size_t			 len = 100000;
	int			 bfd, tfd;

	v1 = variant(len, 3);
	v2 = variant(len, 4);
	put_file("file/T/a", v1, len, b);
	put_file("file/T2/a", v2, len, t);
	ck_assert_int_eq(dstore_put(ds, b, "file/T/a", "T", &err), 1);
	ck_assert_int_eq(dstore_queue(ds, b, t, "file/T2/a", &err), 0);
	/* The base swapped for other content of the same size. */
	v1[10] ^= 1;
	put_file("other", v1, len, x);
	snprintf(tmp, sizeof(tmp), "%s/other", dir);
	snprintf(path, sizeof(path), "%s/%s", dir, spath("base", b, ""));
	ck_assert_int_eq(rename(tmp, path), 0);
	ck_assert_int_ne(bfd = dstore_base_open(ds, b), -1);
	tfd = open_rel("file/T2/a");
	ck_assert_int_eq(dstore_build(ds, b, bfd, t, tfd, &bt, &err), -1);
	ck_assert(strstr(err.msg, "content does not match its digest") !=
	    NULL);
	close(bfd);
	close(tfd);
	/* Removed, with its queued build, and never used. */
	ck_assert(!exists(spath("base", b, "")));
	ck_assert(!exists(spath("owner", b, "")));
	ck_assert(!dstore_allowed(ds, b, acl, 1));
	ck_assert_int_eq(dstore_base_open(ds, b), -1);
	ck_assert_int_eq(dstore_drain(ds, NULL, NULL, NULL), 0);
	ck_assert(!exists(pairpath("delta", b, t, "")));
	ck_assert(!exists(pairpath("delta", b, t, ".none")));
	dstore_close(ds);
	free(v1);
	free(v2);
}
END_TEST

/* What changes the base once the target is first read. */
struct changer {
	int		 ifd;		/* inotify, watching the target */
	char		 path[PATH_MAX];	/* the base, by another name */
	int		 changed;
};

static void *
changer_run(void *arg)
{
	struct changer	*c = arg;
	struct pollfd	 pfd;
	char		 ev[4096];
	int		 fd;

	pfd.fd = c->ifd;
	pfd.events = POLLIN;
	if (poll(&pfd, 1, 20000) != 1 || read(c->ifd, ev, sizeof(ev)) <= 0)
		return NULL;
	/* The same size, other bytes: written in place. */
	if ((fd = open(c->path, O_WRONLY)) == -1)
		return NULL;
	c->changed = pwrite(fd, "changed in place", 16, 5000) == 16;
	close(fd);
	return NULL;
}

/*
 * A base changed in place while its delta is built (after its digest
 * was checked, while the target is read): the delta kept is the one
 * from the bytes that were checked, and applies to them.
 */
START_TEST(test_base_changed_while_built)
{
	struct dstore		*ds = open_store(DSTORE_DEFBOUND);
	struct dstore_built	 bt;
	struct changer		 c;
	struct cerr		 err;
	pthread_t		 th;
	char			 b[CKSUM_B64MAX], t[CKSUM_B64MAX];
	char			 path[PATH_MAX];
	char			*acl[] = { "T" }, *v1, *v2;
	size_t			 len = 4 << 20;
	uint64_t		 dlen;
	int			 bfd, tfd, dfd;

	v1 = variant(len, 3);
	v2 = variant(len, 4);
	put_file("file/T/a", v1, len, b);
	put_file("file/T2/a", v2, len, t);
	ck_assert_int_eq(dstore_put(ds, b, "file/T/a", "T", &err), 1);
	ck_assert_int_ne(bfd = dstore_base_open(ds, b), -1);
	tfd = open_rel("file/T2/a");
	memset(&c, 0, sizeof(c));
	snprintf(c.path, sizeof(c.path), "%s/file/T/a", dir);
	snprintf(path, sizeof(path), "%s/file/T2/a", dir);
	ck_assert_int_ne(c.ifd = inotify_init1(IN_CLOEXEC), -1);
	ck_assert_int_ne(inotify_add_watch(c.ifd, path, IN_ACCESS), -1);
	ck_assert_int_eq(pthread_create(&th, NULL, changer_run, &c), 0);
	ck_assert_int_eq(dstore_build(ds, b, bfd, t, tfd, &bt, &err),
	    DSTORE_BUILT);
	ck_assert_int_eq(pthread_join(th, NULL), 0);
	ck_assert(c.changed);
	close(c.ifd);
	close(bfd);
	close(tfd);
	ck_assert_int_ne(dfd = dstore_delta_open(ds, b, t, acl, 1, &dlen),
	    -1);
	put_file("orig", v1, len, path);
	bfd = open_rel("orig");
	apply_eq(bfd, dfd, v2, len);
	close(bfd);
	close(dfd);
	dstore_close(ds);
	free(v1);
	free(v2);
}
END_TEST

struct drained {
	int	 n, built, worse, skip, failed;
};

static void
drained(void *ctx, const char *rel, int outcome,
    const struct dstore_built *bt, const struct cerr *err)
{
	struct drained	*d = ctx;

	(void)rel;
	(void)bt;
	(void)err;
	d->n++;
	d->built += outcome == DSTORE_BUILT;
	d->worse += outcome == DSTORE_WORSE;
	d->skip += outcome == DSTORE_SKIP;
	d->failed += outcome == -1;
}

START_TEST(test_drain)
{
	struct dstore	*ds = open_store(DSTORE_DEFBOUND);
	struct drained	 d;
	struct cerr	 err;
	char		 b[CKSUM_B64MAX], t[CKSUM_B64MAX];
	char		 b2[CKSUM_B64MAX], t2[CKSUM_B64MAX], pair[512];
	char		*acl[] = { "T" }, *v1, *v2;
	size_t		 len = 100000;
	uint64_t	 dlen;
	int		 fd;

	v1 = gen(len, 3);
	v2 = malloc(len);
	memcpy(v2, v1, len);
	v2[500] = 'X';
	put_file("file/T/a", v1, len, b);
	put_file("file/U/a", v2, len, t);
	v1[5] = 'Y';
	v2[5] = 'Z';
	put_file("old/b", v1, len, b2);
	put_file("file/V/b", v2, len, t2);
	ck_assert_int_eq(dstore_put(ds, b, "file/T/a", "T", &err), 1);
	ck_assert_int_eq(dstore_put(ds, b2, "old/b", "V", &err), 1);
	ck_assert_int_eq(dstore_queue(ds, b, t, "file/U/a", &err), 0);
	ck_assert_int_eq(dstore_queue(ds, b2, t2, "file/V/b", &err), 0);
	/* An entry nobody wrote whole, and one that is not a pair. */
	strlcpy(pair, pairpath("queue", b, t2, ""), sizeof(pair));
	unit_write(dir, pair, "file/V/b");
	unit_write(dir, "delta/sha1/queue/junk", "file/V/b\n");
	/* Only loadset U's. */
	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(dstore_drain(ds, "U", drained, &d), 0);
	ck_assert_int_eq(d.n, 1);
	ck_assert_int_eq(d.built, 1);
	ck_assert_int_ne(fd = dstore_delta_open(ds, b, t, acl, 1, &dlen),
	    -1);
	close(fd);
	ck_assert(exists(pairpath("queue", b2, t2, "")));
	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(dstore_drain(ds, NULL, drained, &d), 0);
	ck_assert_int_eq(d.built, 1);
	ck_assert(!exists(pair));
	ck_assert(!exists("delta/sha1/queue/junk"));
	/* A target replaced before its turn: nothing to build. */
	ck_assert_int_eq(dstore_queue(ds, b, t2, "file/gone/b", &err), 0);
	memset(&d, 0, sizeof(d));
	ck_assert_int_eq(dstore_drain(ds, NULL, drained, &d), 0);
	ck_assert_int_eq(d.skip, 1);
	dstore_close(ds);
	free(v1);
	free(v2);
}
END_TEST

/* Set the last use of base sum to when. */
static void
used_at(const char *sum, time_t when)
{
	struct timespec	 ts[2];
	char		 path[PATH_MAX];

	ts[0].tv_sec = ts[1].tv_sec = when;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, spath("owner", sum, ""));
	ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
}

START_TEST(test_bounds)
{
	struct dstore		*ds;
	struct dstore_built	 bt;
	struct cerr		 err;
	struct timespec		 ts[2];
	struct stat		 st;
	int64_t			 dbound;
	char			 sum[5][CKSUM_B64MAX], t[CKSUM_B64MAX];
	char			 rel[64], path[PATH_MAX], *v;
	char			*acl[] = { "T" };
	size_t			 len = 10000;
	uint64_t		 dlen;
	int			 i, bfd, tfd, fd;

	/* Five bases of 10000 bytes under a bound of 35000. */
	ds = open_store(35000);
	for (i = 0; i < 5; i++) {
		v = variant(len, 'a' + i);
		snprintf(rel, sizeof(rel), "file/T/%d", i);
		put_file(rel, v, len, sum[i]);
		free(v);
		ck_assert_int_eq(dstore_put(ds, sum[i], rel, "T", &err), 1);
		/* Used in the order 3 0 4 1 2 (oldest first). */
		used_at(sum[i], 1000000 + (time_t)"\1\3\4\0\2"[i] * 1000);
	}
	v = variant(len, 'z');
	put_file("file/T2/x", v, len, t);
	free(v);
	bfd = dstore_base_open(ds, sum[0]);
	tfd = open_rel("file/T2/x");
	ck_assert_int_eq(dstore_build(ds, sum[0], bfd, t, tfd, &bt, &err),
	    DSTORE_BUILT);
	close(bfd);
	close(tfd);
	used_at(sum[0], 1001000);
	ck_assert_int_eq(dstore_trim(rootfd, 1000000, 0), 0);
	/* 50000 > 35000: down to 31500, the two used least lately go. */
	ck_assert_int_ge(dstore_trim(rootfd, 35000, 0), 2);
	ck_assert(!exists(spath("base", sum[3], "")));
	ck_assert(!exists(spath("base", sum[0], "")));
	ck_assert(!exists(spath("owner", sum[0], "")));
	ck_assert(exists(spath("base", sum[4], "")));
	ck_assert(exists(spath("base", sum[1], "")));
	ck_assert(exists(spath("base", sum[2], "")));
	/* With base 0 went its delta or verdict. */
	ck_assert_int_eq(dstore_delta_open(ds, sum[0], t, acl, 1, &dlen), -1);
	ck_assert_int_eq(dstore_trim(rootfd, 35000, 0), 0);

	/* Deltas over their own bound: the oldest used goes. */
	bfd = dstore_base_open(ds, sum[1]);
	tfd = open_rel("file/T2/x");
	ck_assert_int_eq(dstore_build(ds, sum[1], bfd, t, tfd, &bt, &err),
	    DSTORE_BUILT);
	close(bfd);
	bfd = dstore_base_open(ds, sum[2]);
	ck_assert_int_eq(lseek(tfd, 0, SEEK_SET), 0);
	ck_assert_int_eq(dstore_build(ds, sum[2], bfd, t, tfd, &bt, &err),
	    DSTORE_BUILT);
	close(bfd);
	close(tfd);
	ts[0].tv_sec = ts[1].tv_sec = 1000;
	ts[0].tv_nsec = ts[1].tv_nsec = 0;
	snprintf(path, sizeof(path), "%s/%s", dir, pairpath("delta", sum[2],
	    t, ""));
	ck_assert_int_eq(stat(path, &st), 0);
	dbound = st.st_size;
	snprintf(path, sizeof(path), "%s/%s", dir, pairpath("delta", sum[1],
	    t, ""));
	ck_assert_int_eq(stat(path, &st), 0);
	dbound += st.st_size - 1;
	ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	ck_assert_int_eq(dstore_trim(rootfd, 35000, dbound + 1), 0);
	ck_assert_int_eq(dstore_trim(rootfd, 35000, dbound), 1);
	ck_assert_int_eq(access(path, F_OK), -1);
	ck_assert_int_ne(fd = dstore_delta_open(ds, sum[2], t, acl, 1,
	    &dlen), -1);
	close(fd);

	/* Orphans, and temporary files left by a writer that died. */
	snprintf(path, sizeof(path), "%s/%s", dir, spath("owner", sum[4],
	    ""));
	ck_assert_int_eq(unlink(path), 0);
	unit_write(dir, "delta/sha1/delta/.tmp.1.1", "old");
	unit_write(dir, "delta/sha1/delta/.tmp.1.2", "new");
	snprintf(path, sizeof(path), "%s/delta/sha1/delta/.tmp.1.1", dir);
	ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
	ck_assert_int_eq(dstore_trim(rootfd, 35000, 0), 2);
	ck_assert(!exists(spath("base", sum[4], "")));
	ck_assert(!exists("delta/sha1/delta/.tmp.1.1"));
	ck_assert(exists("delta/sha1/delta/.tmp.1.2"));

	/* A bound of 0 keeps no base. */
	ck_assert_int_ge(dstore_trim(rootfd, 0, 0), 2);
	ck_assert(!exists(spath("base", sum[1], "")));
	ck_assert(!exists(spath("base", sum[2], "")));
	ck_assert_int_eq(dstore_delta_open(ds, sum[2], t, acl, 1, &dlen), -1);
	dstore_close(ds);
}
END_TEST

static Suite *
dstore_suite(void)
{
	Suite	*s = suite_create("dstore");
	TCase	*tc;

	tc = tcase_create("store");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_digests);
	tcase_add_test(tc, test_put_and_rule);
	tcase_add_test(tc, test_build);
	tcase_add_test(tc, test_corrupt_base);
	tcase_add_test(tc, test_base_changed_while_built);
	tcase_add_test(tc, test_drain);
	tcase_add_test(tc, test_bounds);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	if (!delta_built())
		return unit_skip(UNIT_NOZSTD);
	return unit_run(dstore_suite());
}
