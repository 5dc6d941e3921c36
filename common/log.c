/*
 * log.c: stderr/syslog logging, the warn/warnx split of BSD.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "log.h"

static int	 log_where = LOG_TO_STDERR;
static int	 log_verbose;
static int	 log_level = LOG_INFO;
static int	 log_fatalstatus = 2;

void
log_init(const char *ident, int where, int facility)
{
	log_where = where;
	if (where == LOG_TO_SYSLOG)
		openlog(ident, LOG_PID | LOG_NDELAY, facility);
}

void
log_setverbose(int verbose)
{
	log_verbose = verbose;
}

int
log_getverbose(void)
{
	return log_verbose;
}

void
log_setlevel(int level)
{
	log_level = level;
}

void
log_setfatalstatus(int status)
{
	log_fatalstatus = status;
}

/*
 * Emit one message.  errno is preserved so callers can log and then
 * inspect it.
 */
void
vlog(int pri, int with_errno, const char *fmt, va_list ap)
{
	char	 msg[4096];
	int	 saved = errno;

	if (pri == LOG_DEBUG && log_verbose <= 0)
		return;
	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (log_where == LOG_TO_SYSLOG) {
		if (pri > log_level)
			goto out;
		if (with_errno)
			syslog(pri, "%s: %s", msg, strerror(saved));
		else
			syslog(pri, "%s", msg);
	} else {
		if (with_errno)
			fprintf(stderr, "%s: %s\n", msg, strerror(saved));
		else
			fprintf(stderr, "%s\n", msg);
		fflush(stderr);
	}
out:
	errno = saved;
}

#define LOG_FN(name, pri, err)				\
void							\
name(const char *fmt, ...)				\
{							\
	va_list ap;					\
	va_start(ap, fmt);				\
	vlog(pri, err, fmt, ap);			\
	va_end(ap);					\
}

LOG_FN(log_warn, LOG_ERR, 1)
LOG_FN(log_warnx, LOG_ERR, 0)
LOG_FN(log_info, LOG_INFO, 0)
LOG_FN(log_notice, LOG_NOTICE, 0)
LOG_FN(log_debug, LOG_DEBUG, 0)

void
fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_CRIT, 1, fmt, ap);
	va_end(ap);
	exit(log_fatalstatus);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_CRIT, 0, fmt, ap);
	va_end(ap);
	exit(log_fatalstatus);
}
