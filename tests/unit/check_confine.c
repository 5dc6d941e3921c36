/*
 * check_confine.c: the confined path walker (common/confine.c), run once
 * with openat2 (where the kernel has it) and once with the portable
 * component walk.  Every case plants "outside", a directory beside the
 * root, and checks nothing is opened or made there.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "compat.h"
#include "confine.h"
#include "unit.h"

static char	*top;		/* scratch: root/ and outside/ */
static int	 rootfd;
static char	 rootp[PATH_MAX / 2], outp[PATH_MAX / 2];

static void
at(const char *rel, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", rootp, rel);
}

static void
setup(int portable)
{
	char	p[PATH_MAX];

	confine_portable(portable);
	top = unit_mkdtemp();
	snprintf(rootp, sizeof(rootp), "%s/root", top);
	snprintf(outp, sizeof(outp), "%s/outside", top);
	ck_assert_int_eq(mkdir(rootp, 0755), 0);
	ck_assert_int_eq(mkdir(outp, 0755), 0);
	unit_write(outp, "secret", "outside bytes\n");
	at("a", p, sizeof(p));
	ck_assert_int_eq(mkdir(p, 0755), 0);
	at("a/b", p, sizeof(p));
	ck_assert_int_eq(mkdir(p, 0755), 0);
	unit_write(rootp, "a/b/f", "inside\n");
	/* a/up -> the outside directory, a/sl -> the outside file */
	at("a/up", p, sizeof(p));
	ck_assert_int_eq(symlink(outp, p), 0);
	at("a/sl", p, sizeof(p));
	ck_assert_int_eq(symlink("../../outside/secret", p), 0);
	unit_write(rootp, "a/plain", "not a dir\n");
	rootfd = open(rootp, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ne(rootfd, -1);
}

static void
teardown(void)
{
	struct stat	st;
	char		p[PATH_MAX];
	int		n = 0;

	/* outside holds exactly "secret", unchanged */
	snprintf(p, sizeof(p), "%s/secret", outp);
	ck_assert_int_eq(lstat(p, &st), 0);
	ck_assert_int_eq(st.st_size, 14);
	ck_assert_int_eq(st.st_nlink, 1);
	snprintf(p, sizeof(p), "ls -A '%s' | wc -l", outp);
	{
		FILE	*fp = popen(p, "r");

		ck_assert_ptr_nonnull(fp);
		ck_assert_int_eq(fscanf(fp, "%d", &n), 1);
		pclose(fp);
	}
	ck_assert_int_eq(n, 1);
	close(rootfd);
	unit_rmtree(top);
	free(top);
}

static void
readall(int fd, const char *want)
{
	char	buf[256];
	ssize_t	n;

	ck_assert_int_ne(fd, -1);
	n = read(fd, buf, sizeof(buf) - 1);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	ck_assert_str_eq(buf, want);
	close(fd);
}

START_TEST(test_open)
{
	struct stat	st;
	int		fd;

	setup(_i);
	readall(confine_open(rootfd, "a/b/f", O_RDONLY, 0), "inside\n");
	/* empty and "." components are skipped, a leading "/" too */
	readall(confine_open(rootfd, "./a//b/./f", O_RDONLY, 0), "inside\n");
	readall(confine_open(rootfd, "/a/b/f", O_RDONLY, 0), "inside\n");
	/* the root itself */
	fd = confine_open(rootfd, ".", O_RDONLY | O_DIRECTORY, 0);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	close(fd);
	/* creating */
	fd = confine_open(rootfd, "a/new", O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ne(fd, -1);
	close(fd);
	ck_assert_int_eq(confine_open(rootfd, "a/new", O_WRONLY | O_CREAT |
	    O_EXCL, 0600), -1);
	ck_assert_int_eq(errno, EEXIST);
	teardown();
}
END_TEST

START_TEST(test_symlinks)
{
	struct stat	st;
	int		fd;

	setup(_i);
	/* a symbolic link as a parent */
	ck_assert_int_eq(confine_open(rootfd, "a/up/secret", O_RDONLY, 0), -1);
	ck_assert_int_eq(errno, ELOOP);
	ck_assert_int_eq(confine_open(rootfd, "a/up/new", O_WRONLY | O_CREAT,
	    0600), -1);
	ck_assert_int_eq(errno, ELOOP);
	/* ... and as the leaf: refused, or opened as the link itself */
	ck_assert_int_eq(confine_open(rootfd, "a/sl", O_RDONLY, 0), -1);
	ck_assert_int_eq(errno, ELOOP);
	ck_assert_int_eq(confine_open(rootfd, "a/sl", O_WRONLY | O_CREAT |
	    O_TRUNC, 0600), -1);
	fd = confine_open(rootfd, "a/sl", O_PATH, 0);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(fstatat(fd, "", &st, AT_EMPTY_PATH), 0);
	ck_assert(S_ISLNK(st.st_mode));
	close(fd);
	/* a non-directory as a parent */
	ck_assert_int_eq(confine_open(rootfd, "a/plain/x", O_RDONLY, 0), -1);
	ck_assert_int_eq(errno, ENOTDIR);
	teardown();
}
END_TEST

START_TEST(test_lexical)
{
	char	 deep[CONFINE_MAXDEPTH * 2 + 8], longname[NAME_MAX + 2];
	size_t	 i;
	int	 fd;

	setup(_i);
	ck_assert_int_eq(confine_open(rootfd, "../outside/secret", O_RDONLY,
	    0), -1);
	ck_assert_int_eq(errno, EACCES);
	ck_assert_int_eq(confine_open(rootfd, "a/../../outside/secret",
	    O_RDONLY, 0), -1);
	ck_assert_int_eq(errno, EACCES);
	ck_assert_int_eq(confine_open(rootfd, "a/b/..", O_RDONLY, 0), -1);
	ck_assert_int_eq(errno, EACCES);
	ck_assert_int_eq(confine_open(rootfd, "..", O_RDONLY, 0), -1);
	ck_assert_int_eq(confine_badpath("a/b/c"), 0);
	/* depth */
	for (i = 0; i < CONFINE_MAXDEPTH + 1; i++)
		memcpy(deep + 2 * i, "d/", 2);
	deep[2 * CONFINE_MAXDEPTH + 1] = '\0';
	ck_assert_int_eq(confine_open(rootfd, deep, O_RDONLY, 0), -1);
	ck_assert_int_eq(errno, ENAMETOOLONG);
	deep[2 * CONFINE_MAXDEPTH - 1] = '\0';	/* exactly the maximum */
	ck_assert_int_eq(confine_badpath(deep), 0);
	/* a component longer than NAME_MAX */
	memset(longname, 'n', sizeof(longname) - 1);
	longname[sizeof(longname) - 1] = '\0';
	ck_assert_int_eq(confine_open(rootfd, longname, O_RDONLY, 0), -1);
	ck_assert_int_eq(errno, ENAMETOOLONG);
	/* a name with odd bytes is just a name */
	fd = confine_open(rootfd, "a/ sp\\ace\t", O_WRONLY | O_CREAT, 0600);
	ck_assert_int_ne(fd, -1);
	close(fd);
	teardown();
}
END_TEST

struct made {
	char	 rel[8][64];
	int	 n;
	int	 swap;		/* swap a for a link when making a/x */
};

static int
mk(void *ctx, int pfd, const char *name, const char *rel, size_t len)
{
	struct made	*m = ctx;
	char		 p[PATH_MAX], q[PATH_MAX];

	ck_assert_int_lt(m->n, 8);
	snprintf(m->rel[m->n++], sizeof(m->rel[0]), "%.*s", (int)len, rel);
	if (m->swap && strcmp(name, "x") == 0) {
		/* The walk holds "s"; swap it for a link to outside. */
		snprintf(p, sizeof(p), "%s/s", rootp);
		snprintf(q, sizeof(q), "%s/s-moved", rootp);
		ck_assert_int_eq(rename(p, q), 0);
		ck_assert_int_eq(symlink(outp, p), 0);
	}
	return mkdirat(pfd, name, 0700);
}

START_TEST(test_parent)
{
	struct made	 m;
	struct stat	 st, want;
	const char	*leaf;
	char		 p[PATH_MAX];
	size_t		 bad;
	int		 fd;

	setup(_i);
	fd = confine_parent(rootfd, "a/b/f", NULL, NULL, &leaf, &bad);
	ck_assert_int_ne(fd, -1);
	ck_assert_str_eq(leaf, "f");
	at("a/b", p, sizeof(p));
	ck_assert_int_eq(stat(p, &want), 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert(st.st_ino == want.st_ino);
	close(fd);
	/* the root: the leaf is empty */
	fd = confine_parent(rootfd, ".", NULL, NULL, &leaf, &bad);
	ck_assert_int_ne(fd, -1);
	ck_assert_str_eq(leaf, "");
	close(fd);
	/* missing, without and with mk */
	ck_assert_int_eq(confine_parent(rootfd, "x/y/z/f", NULL, NULL, &leaf,
	    &bad), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_uint_eq(bad, 1);		/* "x" */
	memset(&m, 0, sizeof(m));
	fd = confine_parent(rootfd, "x/y/z/f", mk, &m, &leaf, &bad);
	ck_assert_int_ne(fd, -1);
	ck_assert_str_eq(leaf, "f");
	close(fd);
	ck_assert_int_eq(m.n, 3);
	ck_assert_str_eq(m.rel[0], "x");
	ck_assert_str_eq(m.rel[1], "x/y");
	ck_assert_str_eq(m.rel[2], "x/y/z");
	/* a link on the way: not followed, nothing made beyond it */
	memset(&m, 0, sizeof(m));
	ck_assert_int_eq(confine_parent(rootfd, "a/up/new/f", mk, &m, &leaf,
	    &bad), -1);
	ck_assert_int_eq(errno, ELOOP);
	ck_assert_uint_eq(bad, 4);		/* "a/up" */
	ck_assert_int_eq(m.n, 0);
	/* a trailing empty or "." name has nothing to act on */
	ck_assert_int_eq(confine_parent(rootfd, "a/b/", NULL, NULL, &leaf,
	    &bad), -1);
	ck_assert_int_eq(errno, EACCES);
	teardown();
}
END_TEST

/*
 * A directory swapped for a symbolic link while the walk is below it:
 * the walk goes on in the directory it holds, never through the link.
 */
START_TEST(test_swap_midwalk)
{
	struct made	 m;
	const char	*leaf;
	char		 p[PATH_MAX];
	size_t		 bad;
	int		 fd, f;

	setup(_i);
	at("s", p, sizeof(p));
	ck_assert_int_eq(mkdir(p, 0755), 0);
	memset(&m, 0, sizeof(m));
	m.swap = 1;
	fd = confine_parent(rootfd, "s/x/y/f", mk, &m, &leaf, &bad);
	ck_assert_int_ne(fd, -1);
	f = openat(fd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0600);
	ck_assert_int_ne(f, -1);
	close(f);
	close(fd);
	/* It landed in the moved directory, inside the root. */
	at("s-moved/x/y/f", p, sizeof(p));
	ck_assert_int_eq(access(p, F_OK), 0);
	/* Now "s" is a link: a new walk through it is refused. */
	ck_assert_int_eq(confine_open(rootfd, "s/x/y/f", O_RDONLY, 0), -1);
	ck_assert_int_eq(errno, ELOOP);
	at("s", p, sizeof(p));
	ck_assert_int_eq(unlink(p), 0);		/* before outside is checked */
	teardown();
}
END_TEST

/* confine_walk's visitor: one line per entry, "sub type" with a 'stop'. */
struct walked {
	char	 text[1024];
	int	 stopat;		/* entries before stopping; -1: never */
};

static int
walk_visit(void *arg, int dirfd, const char *leaf, const char *path,
    const char *sub, const struct stat *st, struct cerr *err)
{
	struct walked	*w = arg;
	size_t		 n = strlen(w->text);

	(void)dirfd;
	(void)leaf;
	(void)path;
	if (w->stopat == 0) {
		cerr_set(err, "stopped at %s", sub);
		return -1;
	}
	w->stopat--;
	snprintf(w->text + n, sizeof(w->text) - n, "%s %c\n", sub,
	    S_ISLNK(st->st_mode) ? 'l' : S_ISREG(st->st_mode) ? 'f' : '?');
	return 0;
}

/* Sort the lines of text in place (readdir's order is not fixed). */
static void
walk_sort(char *text)
{
	char	*line[32], buf[1024], *p;
	size_t	 n = 0, i, j;

	strlcpy(buf, text, sizeof(buf));
	for (p = strtok(buf, "\n"); p != NULL && n < 32; p = strtok(NULL, "\n"))
		line[n++] = p;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && strcmp(line[j - 1], line[j]) > 0; j--) {
			p = line[j];
			line[j] = line[j - 1];
			line[j - 1] = p;
		}
	text[0] = '\0';
	for (i = 0; i < n; i++) {
		strlcat(text, line[i], 1024);
		strlcat(text, "\n", 1024);
	}
}

START_TEST(test_walk)
{
	struct walked	 w;
	struct cerr	 err;
	int		 fd;

	setup(_i);
	/* Every non-directory once, no symbolic link followed. */
	memset(&w, 0, sizeof(w));
	w.stopat = -1;
	fd = openat(rootfd, "a", O_RDONLY | O_DIRECTORY);
	ck_assert_int_eq(confine_walk(fd, "root/a", walk_visit, &w, &err),
	    0);
	walk_sort(w.text);
	ck_assert_str_eq(w.text, "b/f f\nplain f\nsl l\nup l\n");
	/* A visitor's error stops the walk and is the walk's. */
	memset(&w, 0, sizeof(w));
	w.stopat = 1;
	fd = openat(rootfd, "a", O_RDONLY | O_DIRECTORY);
	ck_assert_int_eq(confine_walk(fd, "root/a", walk_visit, &w, &err),
	    -1);
	ck_assert(strncmp(err.msg, "stopped at ", 11) == 0);
	teardown();
}
END_TEST

static Suite *
confine_suite(void)
{
	Suite	*s = suite_create("confine");
	TCase	*tc;

	/* _i: 0 with openat2 where the kernel has it, 1 portable walk */
	tc = tcase_create("walk");
	tcase_add_loop_test(tc, test_open, 0, 2);
	tcase_add_loop_test(tc, test_symlinks, 0, 2);
	tcase_add_loop_test(tc, test_lexical, 0, 2);
	tcase_add_loop_test(tc, test_parent, 0, 2);
	tcase_add_loop_test(tc, test_swap_midwalk, 0, 2);
	tcase_add_loop_test(tc, test_walk, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(confine_suite());
}
