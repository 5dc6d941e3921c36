/*
 * check_cfgfile.c: the reader of the repository's config file
 * (server/cfgfile.c): entries in order through @include, every one of
 * many included files, and its bounds on what one reading does: the
 * nesting depth, a file that includes itself, and files that include
 * others many times over, each read once; what it logs of them names
 * the including file and line.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <unistd.h>

#include "cerr.h"
#include "cfgfile.h"
#include "unit.h"

static char	*dir;
static int	 dirfd_;

/*
 * What the reading saw: its entries' patterns, one after the other, and
 * what it logged.
 */
struct seen {
	char	 text[4096];
	int	 n;
	char	 log[4096];
};

static int
hook(void *arg, enum cfgfile_what what, const char *pattern,
    const char *name)
{
	struct seen	*s = arg;
	size_t		 len = strlen(s->text);

	(void)name;
	if (what == CFGFILE_INCLUDE)
		return 1;
	snprintf(s->text + len, sizeof(s->text) - len, "%s%s",
	    len > 0 ? " " : "", pattern);
	s->n++;
	return 0;
}

static void
setup(void)
{
	dir = unit_mkdtemp();
	dirfd_ = open(dir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(dirfd_, 0);
}

static void
teardown(void)
{
	close(dirfd_);
	unit_rmtree(dir);
	free(dir);
}

/* Read config, with what it logs (stderr) kept in s.log. */
static struct seen
lookup(void)
{
	struct seen	 s;
	struct cerr	 err;
	ssize_t		 n;
	int		 fd, saved, rc;

	memset(&s, 0, sizeof(s));
	fd = openat(dirfd_, "stderr.log", O_RDWR | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ne(saved = dup(2), -1);
	ck_assert_int_ne(dup2(fd, 2), -1);
	rc = cfgfile_read(dirfd_, "config", hook, &s, &err);
	ck_assert_int_ne(dup2(saved, 2), -1);
	close(saved);
	n = pread(fd, s.log, sizeof(s.log) - 1, 0);
	close(fd);
	ck_assert_int_ge(n, 0);
	s.log[n] = '\0';
	ck_assert_msg(rc == 0, "%s", err.msg);
	return s;
}

/* How many times text was logged; "" counts the lines logged. */
static int
logged(const struct seen *s, const char *text)
{
	const char	*p;
	int		 n = 0;

	if (*text == '\0')
		text = "\n";
	for (p = s->log; (p = strstr(p, text)) != NULL; p += strlen(text))
		n++;
	return n;
}

START_TEST(test_order)
{
	struct seen	 s;

	unit_write(dir, "config", "a.example a.K\n@include more\n"
	    "b.example b.K\n");
	unit_write(dir, "more", "# a comment\n\nm.example m.K\n");
	s = lookup();
	ck_assert_str_eq(s.text, "a.example m.example b.example");
}
END_TEST

/*
 * A file that includes itself is read once: the includes are skipped,
 * and each is logged with the line that makes the loop.
 */
START_TEST(test_loop)
{
	struct seen	 s;

	unit_write(dir, "config", "@include config\n@include other\n"
	    "@include config\nx x.K\n");
	unit_write(dir, "other", "@include config\no o.K\n@include other\n");
	s = lookup();
	ck_assert_str_eq(s.text, "o x");
	ck_assert_msg(logged(&s, "config: line 1: @include config: loop") ==
	    1 && logged(&s, "other: line 1: @include config: loop") == 1 &&
	    logged(&s, "other: line 3: @include other: loop") == 1 &&
	    logged(&s, "config: line 3: @include config: loop") == 1 &&
	    logged(&s, "loop") == 4, "%s", s.log);
}
END_TEST

/* A -> B -> A: B's include is the loop, and A is read once. */
START_TEST(test_loop_two)
{
	struct seen	 s;

	unit_write(dir, "config", "@include a\nc c.K\n");
	unit_write(dir, "a", "a a.K\n@include b\n");
	unit_write(dir, "b", "# A includes B, B includes A\n@include a\n"
	    "b b.K\n");
	s = lookup();
	ck_assert_str_eq(s.text, "a b c");
	ck_assert_msg(logged(&s, "b: line 2: @include a: loop") == 1 &&
	    logged(&s, "loop") == 1 && strstr(s.log, "itself") == NULL,
	    "%s", s.log);
}
END_TEST

/*
 * Files that each include the next three times: 3^10 files to read if
 * each @include were read again.  Each file is read once (one entry
 * each), and only the last one's includes, too deep, are logged.
 */
START_TEST(test_fanout)
{
	struct seen	 s;
	char		 name[16], text[128];
	int		 i;

	for (i = 0; i <= CFGFILE_DEPTH; i++) {
		snprintf(name, sizeof(name), i == 0 ? "config" : "f%d", i);
		snprintf(text, sizeof(text), "p%d x.K\n@include f%d\n"
		    "@include f%d\n@include f%d\n", i, i + 1, i + 1, i + 1);
		unit_write(dir, name, text);
	}
	s = lookup();
	ck_assert_int_eq(s.n, CFGFILE_DEPTH + 1);
	ck_assert_str_eq(s.text, "p0 p1 p2 p3 p4 p5 p6 p7 p8 p9 p10");
	ck_assert_msg(logged(&s, "f10: line 2: @include f11: nested deeper "
	    "than 10") == 1 && logged(&s, "f10: line 4: @include f11: "
	    "nested deeper than 10") == 1 && logged(&s, "") == 3,
	    "%s", s.log);
}
END_TEST

/*
 * Seventy labs, one included file each: all seventy are read, in order,
 * and nothing is logged.
 */
START_TEST(test_many)
{
	struct seen	 s;
	char		 name[32], text[64], want[1024];
	char		 cfg[2048];
	size_t		 len;
	int		 i;

	cfg[0] = want[0] = '\0';
	for (i = 1; i <= 70; i++) {
		snprintf(name, sizeof(name), "inc/lab%d", i);
		snprintf(text, sizeof(text), "lab%d lab%d.K\n", i, i);
		unit_write(dir, name, text);
		len = strlen(cfg);
		snprintf(cfg + len, sizeof(cfg) - len, "@include %s\n", name);
		len = strlen(want);
		snprintf(want + len, sizeof(want) - len, "%slab%d",
		    i > 1 ? " " : "", i);
	}
	unit_write(dir, "config", cfg);
	s = lookup();
	ck_assert_int_eq(s.n, 70);
	ck_assert_str_eq(s.text, want);
	ck_assert_str_eq(s.log, "");
}
END_TEST

/*
 * A file read first too deep for its own includes is read again when
 * included less deep, and its includes then are: g is read at depth 10
 * (h skipped), then from config at depth 1 (h read).
 */
START_TEST(test_depth_again)
{
	struct seen	 s;
	char		 name[16], text[64];
	int		 i;

	unit_write(dir, "config", "@include f1\n@include g\n");
	for (i = 1; i < CFGFILE_DEPTH; i++) {
		snprintf(name, sizeof(name), "f%d", i);
		if (i + 1 < CFGFILE_DEPTH)
			snprintf(text, sizeof(text), "@include f%d\n", i + 1);
		else
			snprintf(text, sizeof(text), "@include g\n");
		unit_write(dir, name, text);
	}
	unit_write(dir, "g", "@include h\ng g.K\n");
	unit_write(dir, "h", "h h.K\n");
	s = lookup();
	ck_assert_str_eq(s.text, "g h g");
	ck_assert_msg(logged(&s, "g: line 1: @include h: nested deeper") ==
	    1 && logged(&s, "") == 1, "%s", s.log);
}
END_TEST

/* Eleven files deep are read; the twelfth is not, and the rest is. */
START_TEST(test_depth)
{
	char		 name[16], text[128];
	struct seen	 s;
	int		 i;

	for (i = 0; i <= CFGFILE_DEPTH + 1; i++) {
		snprintf(name, sizeof(name), i == 0 ? "config" : "f%d", i);
		snprintf(text, sizeof(text), "@include f%d\np%d x.K\n", i + 1,
		    i);
		unit_write(dir, name, text);
	}
	s = lookup();
	ck_assert_str_eq(s.text, "p10 p9 p8 p7 p6 p5 p4 p3 p2 p1 p0");
	ck_assert_msg(logged(&s, "f10: line 1: @include f11: nested deeper "
	    "than 10, skipped") == 1 && logged(&s, "") == 1, "%s", s.log);
}
END_TEST

/*
 * An included file that cannot be read fails the reading, with the
 * line that names it.
 */
START_TEST(test_missing)
{
	struct seen	 s;
	struct cerr	 err;

	unit_write(dir, "config", "a a.K\n@include nothere\nb b.K\n");
	memset(&s, 0, sizeof(s));
	ck_assert_int_eq(cfgfile_read(dirfd_, "config", hook, &s, &err), -1);
	ck_assert_str_eq(err.msg, "config: line 2: @include nothere: "
	    "No such file or directory");
	ck_assert_str_eq(s.text, "a");
}
END_TEST

static Suite *
cfgfile_suite(void)
{
	Suite	*s = suite_create("cfgfile");
	TCase	*tc;

	tc = tcase_create("read");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_order);
	tcase_add_test(tc, test_loop);
	tcase_add_test(tc, test_loop_two);
	tcase_add_test(tc, test_fanout);
	tcase_add_test(tc, test_many);
	tcase_add_test(tc, test_depth);
	tcase_add_test(tc, test_depth_again);
	tcase_add_test(tc, test_missing);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(cfgfile_suite());
}
