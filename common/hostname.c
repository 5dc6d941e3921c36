/*
 * hostname.c: the strict host-name check (hostname.h).
 */
#include "config.h"

#include "hostname.h"

static int
hostname_alnum(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9');
}

int
hostname_valid(const char *name, size_t len)
{
	const unsigned char	*p = (const unsigned char *)name;
	size_t			 i, label = 0;
	int			 digits = 1;

	if (name == NULL || len == 0 || len > HOSTNAME_MAX)
		return 0;
	for (i = 0; i < len; i++) {
		if (p[i] == '.') {
			/* Empty label, or one ending in '-'. */
			if (label == 0 || p[i - 1] == '-')
				return 0;
			label = 0;
			digits = 1;
			continue;
		}
		if (p[i] == '-') {
			if (label == 0)
				return 0;
		} else if (!hostname_alnum(p[i]))
			return 0;
		if (p[i] < '0' || p[i] > '9')
			digits = 0;
		if (++label > 63)
			return 0;
	}
	/* The last label: not empty (trailing dot), no trailing '-'. */
	if (label == 0 || p[len - 1] == '-')
		return 0;
	return !digits;
}
