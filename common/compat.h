/*
 * compat.h: replacements for BSD functions missing from the C library.
 */
#ifndef CAIRN_COMPAT_H
#define CAIRN_COMPAT_H

#include <stddef.h>

#ifndef HAVE_STRLCPY
size_t	 strlcpy(char *, const char *, size_t);
#endif
#ifndef HAVE_STRLCAT
size_t	 strlcat(char *, const char *, size_t);
#endif
#ifndef HAVE_REALLOCARRAY
void	*reallocarray(void *, size_t, size_t);
#endif
#ifndef HAVE_STRTONUM
long long strtonum(const char *, long long, long long, const char **);
#endif

#endif
