/*
 * cerr.c: error messages built by library code for the caller to print.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "cerr.h"

void
cerr_set(struct cerr *e, const char *fmt, ...)
{
	va_list	ap;

	if (e == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
}

void
cerr_errno(struct cerr *e, const char *fmt, ...)
{
	va_list	 ap;
	int	 saved = errno;
	size_t	 n;

	if (e == NULL)
		return;
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	n = strlen(e->msg);
	snprintf(e->msg + n, sizeof(e->msg) - n, ": %s", strerror(saved));
	errno = saved;
}
