/*
 * strlist.c: a small growing list of strings.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "strlist.h"
#include "xmalloc.h"

void
strlist_add(struct strlist *l, const char *s)
{
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = xstrdup(s);
}

int
strlist_has(const struct strlist *l, const char *s, int icase)
{
	size_t	 i;

	for (i = 0; i < l->n; i++)
		if ((icase ? strcasecmp(l->v[i], s) : strcmp(l->v[i], s)) == 0)
			return 1;
	return 0;
}

void
strlist_free(struct strlist *l)
{
	size_t	 i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}
