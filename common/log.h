/*
 * log.h: one logging API for tools and the daemon.
 *
 * Tools: messages go to stderr exactly as given.  Radmind's tools print
 * bare messages and the conformance vectors pin that wording byte for
 * byte, so the tools with a Radmind counterpart stay bare; a tool of
 * cairn's own (cairn-bench) asks for a "prog: " prefix with LOG_PREFIX,
 * and a bare tool names itself in a message of its own with vlog_named.
 * Daemon: syslog, or stderr when log_init() was told to stay in the
 * foreground.
 *
 * Every message a tool prints on stderr goes through here: no tool
 * calls fprintf(stderr) for an error.  A tool that must undo something
 * before it dies (a temporary file) registers a cleanup hook; fatal(),
 * fatalx() and log_exit() run the hooks, newest first, then exit, and so
 * does an interrupted tool (common/intr.h) before it dies of the signal.
 */
#ifndef CAIRN_LOG_H
#define CAIRN_LOG_H

#include <stdarg.h>

#define LOG_TO_STDERR	0
#define LOG_TO_SYSLOG	1
#define LOG_PREFIX	2	/* or'ed into where: "ident: " before each line */

/*
 * Start logging as "ident"; where is LOG_TO_STDERR or LOG_TO_SYSLOG.  A
 * later call replaces all of it, the prefix too: cairnd reports its
 * start-up errors as "cairnd: ..." on stderr, then logs bare lines.
 */
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
/*
 * As vlog without errno, with "ident: " before the message on stderr
 * even in a tool that prints bare lines: for its own messages that no
 * Radmind counterpart pins (lapply's file-system failures).
 */
void	vlog_named(int pri, const char *, va_list)
	    __attribute__((format(printf, 2, 0)));

/* Exit status used by fatal()/fatalx(); default 2 (Radmind "error"). */
void	log_setfatalstatus(int status);

/*
 * Run fn(arg) before a fatal exit.  Hooks run newest first, each once;
 * at most LOG_MAXHOOKS are kept.  log_delcleanup() forgets one (matched
 * by fn and arg) once there is nothing left to undo.
 */
#define LOG_MAXHOOKS	8
void	log_addcleanup(void (*fn)(void *), void *arg);
void	log_delcleanup(void (*fn)(void *), void *arg);
/*
 * Run the cleanup hooks now, newest first, each once, and forget them.
 * Safe in a signal handler when every hook registered is.
 */
void	log_cleanup(void);
/*
 * fn() is run by log_exit after the hooks, just before exit, every time
 * and by every thread: it is never forgotten, so a hook run by another
 * thread meanwhile cannot take it away (common/intr.c's wait for a
 * signal being acted on).  NULL: none.
 */
void	log_setexitgate(void (*fn)(void));
/* Run the cleanup hooks and the exit gate, then exit(status). */
void	log_exit(int status) __attribute__((noreturn));

#endif
