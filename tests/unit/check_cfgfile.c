/*
 * check_cfgfile.c: the reader of the repository's config file
 * (server/cfgfile.c): entries in order through @include, and its bounds
 * on what one lookup reads: the nesting depth, a file that includes
 * itself, and files that include others many times over.
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

/* What the reading saw: its entries' patterns, one after the other. */
struct seen {
	char	 text[4096];
	int	 n;
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
	if (s->n < 64)
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

static struct seen
lookup(void)
{
	struct seen	 s;
	struct cerr	 err;

	memset(&s, 0, sizeof(s));
	ck_assert_msg(cfgfile_read(dirfd_, "config", hook, &s, &err) == 0,
	    "%s", err.msg);
	return s;
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

/* A file that includes itself is read once: the includes are skipped. */
START_TEST(test_loop)
{
	struct seen	 s;

	unit_write(dir, "config", "@include config\n@include other\n"
	    "@include config\nx x.K\n");
	unit_write(dir, "other", "@include config\no o.K\n@include other\n");
	s = lookup();
	ck_assert_str_eq(s.text, "o x");
}
END_TEST

/*
 * Files that each include the next three times: 3^10 files to read
 * without a bound on the whole lookup.  At most CFGFILE_MAXFILES are.
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
	ck_assert_int_eq(s.n, CFGFILE_MAXFILES);
	ck_assert_msg(strncmp(s.text, "p0 p1 p2 p3 p4 p5 p6 p7 p8 p9 p10 p10 ",
	    38) == 0, "%s", s.text);
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
	tcase_add_test(tc, test_fanout);
	tcase_add_test(tc, test_depth);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(cfgfile_suite());
}
