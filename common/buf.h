/*
 * buf.h: a growable byte buffer with a hard cap chosen by its creator, so
 * that a peer or a hostile file cannot grow it without bound.
 *
 * All pointer/length arithmetic on peer data happens here.  Functions that
 * can fail return 0 on success or -1 with errno set (EMSGSIZE when the
 * cap would be exceeded).  The data is always followed by a NUL byte that
 * is not counted in buf_len(), so text can be used as a C string.
 */
#ifndef CAIRN_BUF_H
#define CAIRN_BUF_H

#include <stddef.h>
#include <stdarg.h>
#include <sys/types.h>

struct buf;

/* Create an empty buffer that may hold at most max bytes. */
struct buf	*buf_new(size_t max);
void		 buf_free(struct buf *);		/* NULL is fine */
void		 buf_reset(struct buf *);		/* length 0 */
/*
 * Mark a buffer that holds a secret (a private key): from now on its
 * storage is wiped before it is given back, as it grows and when the
 * buffer is freed.  What buf_steal hands out is the caller's to wipe.
 */
void		 buf_secret(struct buf *);

size_t		 buf_len(const struct buf *);
size_t		 buf_max(const struct buf *);
/* Borrowed pointer to the data (NUL terminated); valid until next change. */
const char	*buf_data(const struct buf *);
char		*buf_mutable(struct buf *);

int		 buf_add(struct buf *, const void *, size_t);
int		 buf_addc(struct buf *, int);
int		 buf_addstr(struct buf *, const char *);
int		 buf_printf(struct buf *, const char *, ...)
		    __attribute__((format(printf, 2, 3)));
int		 buf_vprintf(struct buf *, const char *, va_list)
		    __attribute__((format(printf, 2, 0)));
/* Make room for n more bytes and return where to write them (commit with
 * buf_commit), or NULL with errno EMSGSIZE. */
void		*buf_reserve(struct buf *, size_t n);
void		 buf_commit(struct buf *, size_t n);
/* Drop n bytes from the front. */
void		 buf_consume(struct buf *, size_t n);
/*
 * If the buffer holds a complete line (ending in LF), copy it without the
 * LF into *line (NUL terminated, borrowed storage of the buffer until the
 * next call), consume it and return its length; return -1 when no full
 * line is present.
 */
ssize_t		 buf_getline(struct buf *, char **line);
/* Transfer ownership of the data to the caller (malloc'd, NUL terminated). */
char		*buf_steal(struct buf *, size_t *len);

#endif
