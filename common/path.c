/*
 * path.c: the style of a transcript path and its ".." check (path.h).
 */
#include "config.h"

#include <string.h>

#include "path.h"
#include "xmalloc.h"

int
path_style(const char *p)
{
	return p[0] == '/' ? PATH_ABSOLUTE : PATH_RELATIVE;
}

int
path_has_dotdot(const char *p)
{
	size_t	n;

	for (;;) {
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 1;
		if (p[n] == '\0')
			return 0;
		p += n + 1;
	}
}

char *
path_restyle(const char *p, int style)
{
	char	*out;

	if (style == PATH_ABSOLUTE) {
		if (strcmp(p, ".") == 0)
			return xstrdup("/");
		if (strncmp(p, "./", 2) == 0)
			return xstrdup(p + 1);
	} else {
		if (strcmp(p, "/") == 0)
			return xstrdup(".");
		if (p[0] == '/') {
			xasprintf(&out, ".%s", p);
			return out;
		}
	}
	return xstrdup(p);
}
