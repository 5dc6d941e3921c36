/*
 * log.c: stderr/syslog logging, the warn/warnx split of BSD.
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "log.h"

static int	 log_where = LOG_TO_STDERR;
static int	 log_verbose;
static int	 log_level = LOG_INFO;
static int	 log_fatalstatus = 2;
static const char *log_ident = "";	/* before every line, or "" */
static const char *log_name = "";	/* the program, for vlog_named */

static struct {
	void	(*fn)(void *);
	void	 *arg;
}		 log_hooks[LOG_MAXHOOKS];
static int	 log_nhooks;
static void	(*log_exitgate)(void);
/* The hooks may be run by another thread (common/intr.c's). */
static pthread_mutex_t log_hookmu = PTHREAD_MUTEX_INITIALIZER;

void
log_init(const char *ident, int where, int facility)
{
	log_where = where & LOG_TO_SYSLOG;
	log_ident = (where & LOG_PREFIX) ? ident : "";
	log_name = ident;
	if (log_where == LOG_TO_SYSLOG)
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

void
log_addcleanup(void (*fn)(void *), void *arg)
{
	pthread_mutex_lock(&log_hookmu);
	if (log_nhooks < LOG_MAXHOOKS) {
		log_hooks[log_nhooks].fn = fn;
		log_hooks[log_nhooks++].arg = arg;
	}
	pthread_mutex_unlock(&log_hookmu);
}

void
log_delcleanup(void (*fn)(void *), void *arg)
{
	int	i;

	pthread_mutex_lock(&log_hookmu);
	for (i = log_nhooks - 1; i >= 0; i--) {
		if (log_hooks[i].fn == fn && log_hooks[i].arg == arg) {
			memmove(&log_hooks[i], &log_hooks[i + 1],
			    (size_t)(log_nhooks - i - 1) * sizeof(log_hooks[0]));
			log_nhooks--;
			break;
		}
	}
	pthread_mutex_unlock(&log_hookmu);
}

void
log_cleanup(void)
{
	void	(*fn)(void *);
	void	 *arg;

	/* Pop before calling, so a hook that dies does not run twice. */
	for (;;) {
		pthread_mutex_lock(&log_hookmu);
		if (log_nhooks == 0) {
			pthread_mutex_unlock(&log_hookmu);
			break;
		}
		log_nhooks--;
		fn = log_hooks[log_nhooks].fn;
		arg = log_hooks[log_nhooks].arg;
		pthread_mutex_unlock(&log_hookmu);
		fn(arg);
	}
}

void
log_setexitgate(void (*fn)(void))
{
	log_exitgate = fn;
}

void
log_exit(int status)
{
	log_cleanup();
	if (log_exitgate != NULL)
		log_exitgate();
	exit(status);
}

/*
 * Emit one message, whole however long (a traced protocol line may be
 * longer than the usual buffer), with ident and ": " before it on
 * stderr (syslog names the program itself).  errno is preserved so
 * callers can log and then inspect it.
 */
static void	log_emit(int, int, const char *, const char *, va_list)
		    __attribute__((format(printf, 4, 0)));

static void
log_emit(int pri, int with_errno, const char *ident, const char *fmt,
    va_list ap)
{
	char	 small[4096], *msg = small;
	va_list	 ap2;
	int	 n, saved = errno;

	if (pri == LOG_DEBUG && log_verbose <= 0)
		return;
	va_copy(ap2, ap);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	/* Not xmalloc: it reports through here.  No memory: truncated. */
	if (n >= (int)sizeof(small) && (msg = malloc((size_t)n + 1)) != NULL)
		vsnprintf(msg, (size_t)n + 1, fmt, ap2);
	else
		msg = small;
	va_end(ap2);
	if (log_where == LOG_TO_SYSLOG) {
		if (pri > log_level)
			goto out;
		if (with_errno)
			syslog(pri, "%s: %s", msg, strerror(saved));
		else
			syslog(pri, "%s", msg);
	} else {
		if (with_errno)
			fprintf(stderr, "%s%s%s: %s\n", ident,
			    *ident ? ": " : "", msg, strerror(saved));
		else
			fprintf(stderr, "%s%s%s\n", ident,
			    *ident ? ": " : "", msg);
		fflush(stderr);
	}
out:
	if (msg != small)
		free(msg);
	errno = saved;
}

void
vlog(int pri, int with_errno, const char *fmt, va_list ap)
{
	log_emit(pri, with_errno, log_ident, fmt, ap);
}

void
vlog_named(int pri, const char *fmt, va_list ap)
{
	log_emit(pri, 0, log_name, fmt, ap);
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
	log_exit(log_fatalstatus);
}

void
fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vlog(LOG_CRIT, 0, fmt, ap);
	va_end(ap);
	log_exit(log_fatalstatus);
}
