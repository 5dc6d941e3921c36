/*
 * buf.c: capped growable buffer.
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "buf.h"
#include "xmalloc.h"

struct buf {
	char	*data;
	size_t	 off;		/* start of live data (consumed prefix) */
	size_t	 len;		/* live bytes after off */
	size_t	 alloc;		/* bytes allocated (data + NUL) */
	size_t	 max;
	char	*line;		/* storage handed out by buf_getline */
	size_t	 linealloc;
	int	 secret;	/* wiped before its storage is given back */
};

struct buf *
buf_new(size_t max)
{
	struct buf	*b;

	b = xcalloc(1, sizeof(*b));
	b->max = max;
	b->alloc = 64;
	b->data = xmalloc(b->alloc);
	b->data[0] = '\0';
	return b;
}

void
buf_free(struct buf *b)
{
	if (b == NULL)
		return;
	if (b->secret) {
		OPENSSL_cleanse(b->data, b->alloc);
		if (b->line != NULL)
			OPENSSL_cleanse(b->line, b->linealloc);
	}
	free(b->data);
	free(b->line);
	free(b);
}

void
buf_secret(struct buf *b)
{
	b->secret = 1;
}

void
buf_reset(struct buf *b)
{
	b->off = b->len = 0;
	b->data[0] = '\0';
}

size_t
buf_len(const struct buf *b)
{
	return b->len;
}

size_t
buf_max(const struct buf *b)
{
	return b->max;
}

const char *
buf_data(const struct buf *b)
{
	return b->data + b->off;
}

char *
buf_mutable(struct buf *b)
{
	return b->data + b->off;
}

/* Ensure room for n more bytes plus the NUL. */
static int
buf_grow(struct buf *b, size_t n)
{
	char	*p;
	size_t	 need, nalloc;

	if (n > b->max || b->len > b->max - n) {
		errno = EMSGSIZE;
		return -1;
	}
	need = b->len + n + 1;
	if (b->off + need <= b->alloc)
		return 0;
	if (b->off > 0) {
		memmove(b->data, b->data + b->off, b->len + 1);
		b->off = 0;
		if (need <= b->alloc)
			return 0;
	}
	nalloc = b->alloc;
	while (nalloc < need)
		nalloc = nalloc > ((size_t)-1) / 2 ? need : nalloc * 2;
	if (b->secret) {
		/* Not realloc: it would leave the old bytes behind. */
		p = xmalloc(nalloc);
		memcpy(p, b->data, b->len + 1);
		OPENSSL_cleanse(b->data, b->alloc);
		free(b->data);
		b->data = p;
	} else
		b->data = xreallocarray(b->data, 1, nalloc);
	b->alloc = nalloc;
	return 0;
}

void *
buf_reserve(struct buf *b, size_t n)
{
	if (buf_grow(b, n) == -1)
		return NULL;
	return b->data + b->off + b->len;
}

void
buf_commit(struct buf *b, size_t n)
{
	b->len += n;
	b->data[b->off + b->len] = '\0';
}

int
buf_add(struct buf *b, const void *p, size_t n)
{
	if (buf_grow(b, n) == -1)
		return -1;
	if (n > 0)
		memcpy(b->data + b->off + b->len, p, n);
	buf_commit(b, n);
	return 0;
}

int
buf_addc(struct buf *b, int c)
{
	unsigned char	ch = (unsigned char)c;

	return buf_add(b, &ch, 1);
}

int
buf_addstr(struct buf *b, const char *s)
{
	return buf_add(b, s, strlen(s));
}

int
buf_vprintf(struct buf *b, const char *fmt, va_list ap)
{
	va_list	 ap2;
	int	 n;

	va_copy(ap2, ap);
	n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	if (n < 0)
		return -1;
	if (buf_grow(b, (size_t)n) == -1)
		return -1;
	vsnprintf(b->data + b->off + b->len, (size_t)n + 1, fmt, ap);
	b->len += (size_t)n;
	return 0;
}

int
buf_printf(struct buf *b, const char *fmt, ...)
{
	va_list	 ap;
	int	 r;

	va_start(ap, fmt);
	r = buf_vprintf(b, fmt, ap);
	va_end(ap);
	return r;
}

void
buf_consume(struct buf *b, size_t n)
{
	if (n >= b->len) {
		buf_reset(b);
		return;
	}
	b->off += n;
	b->len -= n;
}

ssize_t
buf_getline(struct buf *b, char **line)
{
	char	*start = b->data + b->off, *nl;
	size_t	 n;

	if ((nl = memchr(start, '\n', b->len)) == NULL)
		return -1;
	n = (size_t)(nl - start);
	if (n + 1 > b->linealloc) {
		if (b->secret && b->line != NULL) {
			OPENSSL_cleanse(b->line, b->linealloc);
			free(b->line);
			b->line = NULL;
		}
		b->linealloc = n + 1;
		b->line = xreallocarray(b->line, 1, b->linealloc);
	}
	memcpy(b->line, start, n);
	b->line[n] = '\0';
	buf_consume(b, n + 1);
	*line = b->line;
	return (ssize_t)n;
}

char *
buf_steal(struct buf *b, size_t *len)
{
	char	*p;

	if (len != NULL)
		*len = b->len;
	p = xmalloc(b->len + 1);
	memcpy(p, b->data + b->off, b->len + 1);
	buf_reset(b);
	return p;
}
