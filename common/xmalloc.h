/*
 * xmalloc.h: allocation that dies on exhaustion (out of memory is fatal
 * everywhere; sizes a peer controls are capped by the caller first).
 */
#ifndef CAIRN_XMALLOC_H
#define CAIRN_XMALLOC_H

#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
int	 xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
