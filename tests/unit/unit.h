/*
 * unit.h: helpers shared by the Check unit suites: scratch directories,
 * fixture files and the common main().
 */
#ifndef CAIRN_UNIT_H
#define CAIRN_UNIT_H

#include <check.h>
#include <errno.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int
unit_rm_cb(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

/* Remove a scratch tree made by unit_mkdtemp. */
static inline void
unit_rmtree(const char *dir)
{
	nftw(dir, unit_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/* Create a private scratch directory; the result is malloc'd. */
static inline char *
unit_mkdtemp(void)
{
	const char	*tmp = getenv("TMPDIR");
	char		*d;

	if (tmp == NULL || *tmp == '\0')
		tmp = "/tmp";
	ck_assert(asprintf(&d, "%s/cairn-unit.XXXXXX", tmp) != -1);
	ck_assert_msg(mkdtemp(d) != NULL, "mkdtemp %s: %s", d,
	    strerror(errno));
	return d;
}

/* Write text to dir/name (creating one level of subdirectory if named). */
static inline void
unit_write(const char *dir, const char *name, const char *text)
{
	char	 path[PATH_MAX], *slash;
	FILE	*fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if ((slash = strrchr(path, '/')) != NULL &&
	    (size_t)(slash - path) > strlen(dir)) {
		*slash = '\0';
		(void)mkdir(path, 0700);
		*slash = '/';
	}
	fp = fopen(path, "w");
	ck_assert_msg(fp != NULL, "%s: %s", path, strerror(errno));
	ck_assert(fputs(text, fp) >= 0);
	ck_assert(fclose(fp) == 0);
}

/*
 * A suite (or the part of one) that needs zstd, delta transfer or the
 * zstd channel, in a build configured --without-zstd: it is skipped
 * (exit 77) with this reason, which .ci/run looks for.
 */
#define UNIT_NOZSTD	"zstd is not built in (configured --without-zstd)"

/* Skip the whole suite: exit status 77 for the automake harness. */
static inline int
unit_skip(const char *why)
{
	printf("SKIP: %s\n", why);
	return 77;
}

/* Run one suite; exit status for the automake harness. */
static inline int
unit_run(Suite *s)
{
	SRunner	*sr;
	int	 nfail;

	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	nfail = srunner_ntests_failed(sr);
	srunner_free(sr);
	return nfail == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}

#endif
