/*
 * peer.h: what every verb of cairnd says of and to the client of its
 * session: the log lines that name it ("host[ip]: " and the message),
 * the reply lines sent to it, and its text made safe for either.
 *
 * The verbs (session.c, fetch.c, stor.c) call these; this module calls
 * none of them.
 */
#ifndef CAIRN_PEER_H
#define CAIRN_PEER_H

#include <stddef.h>

struct sess;

/*
 * Queue one reply line "<code> <text>\r\n".  Returns SESS_OK, or
 * SESS_CLOSE (with s->close and s->status set) if it cannot be sent.
 */
int	 peer_reply(struct sess *, int code, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/*
 * Log one line about the session at syslog priority pri: "host[ip]: "
 * and the message.  peer_logerr() appends ": strerror(errno)".
 */
void	 peer_log(const struct sess *, int pri, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
void	 peer_logerr(const struct sess *, int pri, const char *fmt, ...)
	    __attribute__((format(printf, 3, 4)));
/*
 * Copy src, text the peer sent, into dst (len bytes, always terminated)
 * for a log line or a reply: control bytes and non-ASCII become '?'.
 * dst may be src.
 */
void	 peer_logsafe(char *dst, size_t len, const char *src);

#endif
