/*
 * bytesize.c: byte counts with k, m, g suffixes (see bytesize.h).
 */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include "bytesize.h"

int
bytesize_parse(const char *s, int64_t *v)
{
	char			*end;
	unsigned long long	 n;
	int			 shift = 0;

	errno = 0;
	n = strtoull(s, &end, 10);
	if (end != s && end[0] != '\0' && end[1] == '\0') {
		switch (end[0]) {
		case 'k': case 'K':
			shift = 10;
			end++;
			break;
		case 'm': case 'M':
			shift = 20;
			end++;
			break;
		case 'g': case 'G':
			shift = 30;
			end++;
			break;
		}
	}
	if (errno != 0 || end == s || *end != '\0' || s[0] == '-' ||
	    n > ((unsigned long long)INT64_MAX >> shift))
		return -1;
	*v = (int64_t)(n << shift);
	return 0;
}
