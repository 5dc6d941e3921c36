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

/* The codec of a level of the sweep: zstd for LEVEL_ZSTD(n), else zlib. */
enum zlevel_codec
level_codec(int level)
{
	if (level > MAXLEVEL && level < LEVEL_AUTO)
		return ZLEVEL_ZSTD;
	return ZLEVEL_ZLIB;
}

/* Its number among the codec's levels (-1 for auto). */
int
level_number(int level)
{
	if (level == LEVEL_AUTO)
		return -1;
	return level_codec(level) == ZLEVEL_ZSTD ? level - LEVEL_ZSTD(0) :
	    level;
}

/*
 * The name of a level as -Z takes it and as every part of the report
 * prints it: zlib's digit, "zstd:N", or "auto" for LEVEL_AUTO.
 */
const char *
level_name(int level)
{
	static char	names[NLEVELS][12];

	if (level < 0 || level >= NLEVELS)
		return "?";
	if (names[level][0] == '\0') {
		if (level == LEVEL_AUTO)
			snprintf(names[level], sizeof(names[level]), "auto");
		else if (level_codec(level) == ZLEVEL_ZSTD)
			snprintf(names[level], sizeof(names[level]),
			    "%s:%d", zlevel_label(ZLEVEL_ZSTD),
			    level_number(level));
		else
			snprintf(names[level], sizeof(names[level]), "%d",
			    level);
	}
	return names[level];
}

/*
 * A level in the advice's words, naming its codec: "zlib level 6",
 * "zstd level 3", "zlib's automatic level".
 */
const char *
level_desc(int level)
{
	static char	descs[NLEVELS][32];

	if (level < 0 || level >= NLEVELS)
		return "?";
	if (descs[level][0] == '\0') {
		if (level == LEVEL_AUTO)
			snprintf(descs[level], sizeof(descs[level]),
			    "%s's automatic level", zlevel_label(ZLEVEL_ZLIB));
		else
			snprintf(descs[level], sizeof(descs[level]),
			    "%s level %d", zlevel_label(level_codec(level)),
			    level_number(level));
	}
	return descs[level];
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
