/*
 * compat.c: BSD functions for C libraries that lack them.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compat.h"

#ifndef HAVE_STRLCPY
size_t
strlcpy(char *dst, const char *src, size_t dsize)
{
	size_t	len = strlen(src);

	if (dsize != 0) {
		size_t n = len >= dsize ? dsize - 1 : len;
		memcpy(dst, src, n);
		dst[n] = '\0';
	}
	return len;
}
#endif

#ifndef HAVE_STRLCAT
size_t
strlcat(char *dst, const char *src, size_t dsize)
{
	size_t	dlen = strnlen(dst, dsize);

	if (dlen == dsize)
		return dlen + strlen(src);
	return dlen + strlcpy(dst + dlen, src, dsize - dlen);
}
#endif

#ifndef HAVE_REALLOCARRAY
void *
reallocarray(void *ptr, size_t n, size_t size)
{
	if (size != 0 && n > SIZE_MAX / size) {
		errno = ENOMEM;
		return NULL;
	}
	return realloc(ptr, n * size);
}
#endif

#ifndef HAVE_STRTONUM
long long
strtonum(const char *s, long long min, long long max, const char **errstr)
{
	long long	 v;
	char		*end;

	*errstr = NULL;
	if (min > max) {
		*errstr = "invalid";
		return 0;
	}
	errno = 0;
	v = strtoll(s, &end, 10);
	if (s == end || *end != '\0')
		*errstr = "invalid";
	else if ((v == LLONG_MIN && errno == ERANGE) || v < min)
		*errstr = "too small";
	else if ((v == LLONG_MAX && errno == ERANGE) || v > max)
		*errstr = "too large";
	if (*errstr != NULL)
		v = 0;
	return v;
}
#endif
