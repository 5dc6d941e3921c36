/*
 * peer.c: the log lines about a session's client and the replies sent
 * to it (peer.h).
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "cerr.h"
#include "conn.h"
#include "log.h"
#include "peer.h"
#include "proto.h"
#include "server.h"

void
peer_logsafe(char *dst, size_t len, const char *src)
{
	size_t	 i;

	for (i = 0; i + 1 < len && src[i] != '\0'; i++)
		dst[i] = isprint((unsigned char)src[i]) ? src[i] : '?';
	dst[i] = '\0';
}

static void	log_args(int, int, const char *, ...)
		    __attribute__((format(printf, 3, 4)));
static void	peer_vlog(const struct sess *, int, int, const char *,
		    va_list) __attribute__((format(printf, 4, 0)));

/* vlog() with its arguments given in place. */
static void
log_args(int pri, int with_errno, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	vlog(pri, with_errno, fmt, ap);
	va_end(ap);
}

/* The message behind "host[ip]: "; errno is kept for with_errno. */
static void
peer_vlog(const struct sess *s, int pri, int with_errno, const char *fmt,
    va_list ap)
{
	char	 msg[4096];
	int	 saved = errno;

	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	errno = saved;
	log_args(pri, with_errno, "%s: %s", s->peer, msg);
}

void
peer_log(const struct sess *s, int pri, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	peer_vlog(s, pri, 0, fmt, ap);
	va_end(ap);
}

void
peer_logerr(const struct sess *s, int pri, const char *fmt, ...)
{
	va_list	 ap;

	va_start(ap, fmt);
	peer_vlog(s, pri, 1, fmt, ap);
	va_end(ap);
}

int
peer_reply(struct sess *s, int code, const char *fmt, ...)
{
	char	 text[PROTO_REQMAX + 512];
	va_list	 ap;
	struct cerr err;

	va_start(ap, fmt);
	(void)vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	if (conn_printf(s->conn, &err, "%d %s\r\n", code, text) == -1) {
		log_warnx("%s", err.msg);
		s->close = 1;
		s->status = 1;
		return SESS_CLOSE;
	}
	return SESS_OK;
}
