/*
 * log.h: one logging API for tools and the daemon.
 *
 * Tools: messages go to stderr exactly as given (Radmind's tools print
 * bare messages, no program prefix).  Daemon: syslog, or stderr when
 * log_init() was told to stay in the foreground.
 */
#ifndef CAIRN_LOG_H
#define CAIRN_LOG_H

#include <stdarg.h>

#define LOG_TO_STDERR	0
#define LOG_TO_SYSLOG	1

/* Start logging as "ident"; where is LOG_TO_STDERR or LOG_TO_SYSLOG. */
void	log_init(const char *ident, int where, int facility);
/* Messages of level >= LOG_DEBUG are shown only when verbose > 0. */
void	log_setverbose(int verbose);
int	log_getverbose(void);
/* Minimum syslog priority passed to syslog(3) (LOG_INFO default). */
void	log_setlevel(int level);

/* log_warn appends ": strerror(errno)"; the x variants do not. */
void	log_warn(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_warnx(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_info(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_notice(const char *, ...) __attribute__((format(printf, 1, 2)));
void	log_debug(const char *, ...) __attribute__((format(printf, 1, 2)));
void	fatal(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	fatalx(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	vlog(int pri, int with_errno, const char *, va_list)
	    __attribute__((format(printf, 3, 0)));

/* Exit status used by fatal()/fatalx(); default 2 (Radmind "error"). */
void	log_setfatalstatus(int status);

#endif
