/*
 * apply-msg.h: the messages of an apply run (apply-msg.c), at the
 * bottom of the apply library: stdout lines for the objects changed,
 * errors and warnings through the log.  It calls nothing above it: a
 * message that must wait its turn (a line run ahead of downloads, or
 * behind downloads not in place yet) is handed to the hooks the upper
 * layer sets.
 */
#ifndef CAIRN_APPLY_MSG_H
#define CAIRN_APPLY_MSG_H

#include <stdarg.h>

struct progress;
struct tline;

struct amsg {
	int		 quiet;		/* -q: no stdout messages */
	const char	*name;		/* the transcript, in line messages */
	struct progress	*prog;		/* off the terminal while we print */
	/*
	 * Hooks, NULL when unset, called with arg.  hold: a stdout
	 * message that must wait its turn; 1 if it took it (and prints it
	 * later), 0 to print it now.  turn: before an error, what comes
	 * earlier goes first; -1 to say nothing (the run stops there).
	 */
	int		(*hold)(void *, const char *, va_list);
	int		(*turn)(void *);
	void		*arg;
};

/* stdout message for one object (suppressed by -q and -%). */
void	amsg_say(struct amsg *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* An error or warning, through the log (status line hidden first). */
void	amsg_warn(struct amsg *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* As amsg_warn, named after the program: "lapply: " first. */
void	amsg_named(struct amsg *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/*
 * A failure of the transcript line t as it is applied, named as
 * "lapply: transcript: line N: " then the message (amsg_linewarn); for
 * a failed file-system operation op ("mkdir", "chown", "set times",
 * ...) on t's path, the message is "path: op: strerror(errno)"
 * (amsg_fail).  lapply(1), DIAGNOSTICS, describes the form.
 */
void	amsg_linewarn(struct amsg *, const struct tline *,
	    const char *, ...) __attribute__((format(printf, 3, 4)));
void	amsg_fail(struct amsg *, const struct tline *, const char *op);

#endif
