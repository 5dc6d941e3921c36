/*
 * cerr.h: an error message filled in by library code and printed (or
 * logged) by the caller.  Library code never prints; it describes the
 * problem, naming file and line, and returns -1.
 */
#ifndef CAIRN_CERR_H
#define CAIRN_CERR_H

struct cerr {
	char	msg[1024];
};

/* Format the message (NULL err is allowed: the message is dropped). */
void	cerr_set(struct cerr *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));
/* As cerr_set with ": strerror(errno)" appended. */
void	cerr_errno(struct cerr *, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
