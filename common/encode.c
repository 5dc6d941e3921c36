/*
 * encode.c: Radmind token encoding of paths and messages.
 */
#include "config.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "encode.h"
#include "xmalloc.h"

int
encode_path(struct buf *b, const char *s)
{
	const char	*esc;
	size_t		 run;

	while (*s != '\0') {
		run = strcspn(s, " \t\n\r\\");
		if (run > 0 && buf_add(b, s, run) == -1)
			return -1;
		s += run;
		if (*s == '\0')
			break;
		switch (*s) {
		case ' ':
			esc = "\\b";
			break;
		case '\t':
			esc = "\\t";
			break;
		case '\n':
			esc = "\\n";
			break;
		case '\r':
			esc = "\\r";
			break;
		default:
			esc = "\\\\";
			break;
		}
		if (buf_add(b, esc, 2) == -1)
			return -1;
		s++;
	}
	return 0;
}

char *
encode_dup(const char *s)
{
	struct buf	*b;
	char		*out;

	b = buf_new((size_t)-1 / 4);
	(void)encode_path(b, s);
	out = buf_steal(b, NULL);
	buf_free(b);
	return out;
}

int
decode_inplace(char *s)
{
	char	*start = s, *w = s;

	for (; *s != '\0'; s++) {
		if (*s != '\\') {
			*w++ = *s;
			continue;
		}
		switch (*++s) {
		case 'b':
			*w++ = ' ';
			break;
		case 't':
			*w++ = '\t';
			break;
		case 'n':
			*w++ = '\n';
			break;
		case 'r':
			*w++ = '\r';
			break;
		case '\\':
			*w++ = '\\';
			break;
		default:		/* unknown escape or trailing '\' */
			return -1;
		}
	}
	*w = '\0';
	if (w - start >= PATH_MAX)
		return -1;
	return 0;
}

int
decode_path(const char *s, char **out)
{
	char	*p;

	p = xstrdup(s);
	if (decode_inplace(p) == -1) {
		free(p);
		return -1;
	}
	*out = p;
	return 0;
}

int
decode_badescape(const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s != '\\')
			continue;
		if (*++s == '\0' || strchr("btnr\\", *s) == NULL)
			return 1;
	}
	return 0;
}
