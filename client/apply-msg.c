/*
 * apply-msg.c: the messages of an apply run.
 *
 * An object's message goes to stdout (none with -q or -%), an error or
 * a warning through the log, bare as Radmind prints it or named after
 * the program.  A status line on the terminal is taken off while either
 * is printed.  When a message must wait its turn, the upper layer's
 * hooks (struct amsg) keep it or first let earlier work finish; this
 * module knows nothing of downloads or of the run.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "apply-msg.h"
#include "apply-progress.h"
#include "compat.h"
#include "log.h"
#include "transcript.h"

void
amsg_say(struct amsg *m, const char *fmt, ...)
{
	va_list	 va;
	int	 held;

	if (m->quiet || (m->prog != NULL && m->prog->mode == PROG_PERCENT))
		return;
	if (m->hold != NULL) {
		va_start(va, fmt);
		held = m->hold(m->arg, fmt, va);
		va_end(va);
		if (held)
			return;
	}
	/* The status line shares the terminal: off it while we print. */
	if (m->prog != NULL && m->prog->shared)
		progress_hide(m->prog);
	va_start(va, fmt);
	vprintf(fmt, va);
	va_end(va);
	if (m->prog != NULL && m->prog->shared) {
		fflush(stdout);
		progress_show(m->prog);
	}
}

/* An error: bare as Radmind prints it, or named after the program. */
static void
amsg_vwarn(struct amsg *m, int named, const char *fmt, va_list va)
{
	if (m->turn != NULL && m->turn(m->arg) == -1)
		return;
	if (m->prog != NULL)
		progress_hide(m->prog);
	fflush(stdout);
	if (named)
		vlog_named(LOG_ERR, fmt, va);
	else
		vlog(LOG_ERR, 0, fmt, va);
	if (m->prog != NULL)
		progress_show(m->prog);
}

void
amsg_warn(struct amsg *m, const char *fmt, ...)
{
	va_list	va;

	va_start(va, fmt);
	amsg_vwarn(m, 0, fmt, va);
	va_end(va);
}

void
amsg_named(struct amsg *m, const char *fmt, ...)
{
	va_list	va;

	va_start(va, fmt);
	amsg_vwarn(m, 1, fmt, va);
	va_end(va);
}

void
amsg_linewarn(struct amsg *m, const struct tline *t, const char *fmt, ...)
{
	va_list	 va;
	char	*msg;

	va_start(va, fmt);
	if (vasprintf(&msg, fmt, va) == -1)
		fatal("vasprintf");
	va_end(va);
	amsg_named(m, "%s: line %u: %s", m->name, t->lineno, msg);
	free(msg);
}

void
amsg_fail(struct amsg *m, const struct tline *t, const char *op)
{
	int	e = errno;

	amsg_linewarn(m, t, "%s: %s: %s", t->path, op, strerror(e));
}
