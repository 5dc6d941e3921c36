/*
 * bench-util.c: what every part of cairn-bench leans on: its messages
 * and exits, the teardown that die() and the signal handlers share, and
 * file helpers that die on error.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "fsutil.h"
#include "xmalloc.h"

/* "cairn-bench: message" on stderr. */
static void
vmsg(const char *fmt, va_list ap)
{
	fputs("cairn-bench: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

/*
 * Stop a cairnd still running and remove the network namespaces of
 * --shaper tc.  Safe in a signal handler.
 */
void
util_teardown(void)
{
	if (spawn_cairnd_pid > 0)
		kill(spawn_cairnd_pid, SIGTERM);
	tc_teardown();
}

/* A failure: tear down, the message, exit BENCH_EXIT_FAIL. */
void
die(const char *fmt, ...)
{
	va_list	ap;

	util_teardown();
	if (isatty(STDERR_FILENO))
		fputs("\r\033[K", stderr);
	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(BENCH_EXIT_FAIL);
}

/* A usage error: the message, exit BENCH_EXIT_USAGE. */
void
baduse(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
	exit(BENCH_EXIT_USAGE);
}

void
warnmsg(const char *fmt, ...)
{
	va_list	ap;

	va_start(ap, fmt);
	vmsg(fmt, ap);
	va_end(ap);
}

/* rm -rf, bounded by the tree; errors are reported and fatal. */
void
util_rmtree(const char *path)
{
	if (fs_rmtreeat(AT_FDCWD, path) == -1)
		die("rm %s: %s", path, strerror(errno));
}

/* mkdir; a directory already there is fine. */
void
util_mkdir(const char *p)
{
	if (mkdir(p, 0755) == -1 && errno != EEXIST)
		die("mkdir %s: %s", p, strerror(errno));
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
		die("%s: %s", path, strerror(errno));
	if (fputs(text, fp) == EOF || fclose(fp) == EOF)
		die("%s: write: %s", path, strerror(errno));
}
