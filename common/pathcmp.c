/*
 * pathcmp.c: Radmind's transcript path order.
 *
 * '/' sorts before every byte except end-of-string, so that a
 * directory's whole subtree sorts before its siblings ("./etc",
 * "./etc/passwd", "./etc-x").  Case-insensitive mode compares tolower()
 * of the unsigned byte (the order Radmind produces on glibc).
 */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "pathcmp.h"

static inline int
pc_byte(unsigned char c, int icase)
{
	if (icase && c < 0x80)
		return tolower(c);
	return c;
}

int
pathcmp(const char *a, const char *b, int icase)
{
	const unsigned char	*p = (const unsigned char *)a;
	const unsigned char	*q = (const unsigned char *)b;
	int			 c1, c2;

	for (;; p++, q++) {
		c1 = pc_byte(*p, icase);
		c2 = pc_byte(*q, icase);
		if (c1 == c2) {
			if (c1 == '\0')
				return 0;
			continue;
		}
		/* '/' sorts before everything but the end of the string */
		if (c1 == '/' && c2 != '\0')
			return -1;
		if (c2 == '/' && c1 != '\0')
			return 1;
		return c1 - c2;
	}
}

int
ischildcase(const char *child, const char *dir, int icase)
{
	size_t	len;

	if (strcmp(dir, "/") == 0)
		return child[0] == '/' && child[1] != '\0';
	len = strlen(dir);
	if (icase ? strncasecmp(child, dir, len) != 0 :
	    strncmp(child, dir, len) != 0)
		return 0;
	return child[len] == '/';
}
