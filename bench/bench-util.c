/*
 * bench-util.c: what every part of cairn-bench leans on: the usage
 * error, and file helpers that stop on error.  Messages go through the
 * log ("cairn-bench: ..."); a fatal error runs the cleanup hooks the
 * parts registered (a cairnd still running, the namespaces of --shaper
 * tc) and exits BENCH_EXIT_FAIL.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "bench.h"
#include "fsutil.h"
#include "log.h"
#include "xmalloc.h"

/* A usage error: the message, exit BENCH_EXIT_USAGE. */
void
baduse(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vlog(LOG_ERR, 0, fmt, ap);
	va_end(ap);
	log_exit(BENCH_EXIT_USAGE);
}

/*
 * The name of a level as -Z takes it and as every part of the report
 * prints it: the digit, or "auto" for LEVEL_AUTO.
 */
const char *
level_name(int level)
{
	static const char *names[NLEVELS] = { "0", "1", "2", "3", "4", "5",
	    "6", "7", "8", "9", "auto" };

	if (level < 0 || level >= NLEVELS)
		return "?";
	return names[level];
}

/* rm -rf, bounded by the tree; errors are reported and fatal. */
void
util_rmtree(const char *path)
{
	if (fs_rmtreeat(AT_FDCWD, path) == -1)
		fatal("rm %s", path);
}

/* mkdir; a directory already there is fine. */
void
util_mkdir(const char *p)
{
	if (mkdir(p, 0755) == -1 && errno != EEXIST)
		fatal("mkdir %s", p);
}

/* mkdir -p. */
void
util_mkdir_p(const char *path)
{
	char	*p, *s;

	p = xstrdup(path);
	for (s = p + 1; *s != '\0'; s++)
		if (*s == '/') {
			*s = '\0';
			util_mkdir(p);
			*s = '/';
		}
	util_mkdir(p);
	free(p);
}

/* A file at path holding text (replaced if it was there). */
void
util_write_file(const char *path, const char *text)
{
	FILE	*fp;

	if ((fp = fopen(path, "w")) == NULL)
		fatal("%s", path);
	if (fputs(text, fp) == EOF || fclose(fp) == EOF)
		fatal("%s: write", path);
}
