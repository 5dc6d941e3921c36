/*
 * dmove.c: the version rule for the basis of a moved file (dmove.h).
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "dmove.h"
#include "xmalloc.h"

struct dmove_ent {
	char	*key[2];	/* DMOVE_DIRS, DMOVE_ALL */
	char	*path;
	size_t	 id;
	size_t	 seq;		/* order of dmove_add: transcript order */
};

/* An entry under one of its keys. */
struct dmove_ref {
	const char	*key;
	size_t		 ent;		/* in v */
	size_t		 seq;
};

struct dmove {
	struct dmove_ent *v;
	size_t		 n, cap;
	struct dmove_ref *by[2];	/* v in the order of each key */
	int		 sorted;
};

void
dmove_key(const char *path, int which, char *key)
{
	const char	*s = path, *base;
	char		*d = key;

	/* DMOVE_DIRS: the last name as it is. */
	base = which == DMOVE_ALL || (base = strrchr(path, '/')) == NULL ?
	    NULL : base + 1;
	while (*s != '\0') {
		if (*s >= '0' && *s <= '9' && (base == NULL || s < base)) {
			while (*s >= '0' && *s <= '9')
				s++;
			*d++ = '#';
		} else
			*d++ = *s++;
	}
	*d = '\0';
}

struct dmove *
dmove_new(void)
{
	return xcalloc(1, sizeof(struct dmove));
}

void
dmove_free(struct dmove *m)
{
	size_t	 i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++) {
		free(m->v[i].key[0]);
		free(m->v[i].key[1]);
		free(m->v[i].path);
	}
	free(m->v);
	free(m->by[0]);
	free(m->by[1]);
	free(m);
}

void
dmove_add(struct dmove *m, const char *path, size_t id)
{
	struct dmove_ent	*e;
	int			 k;

	if (m->n == m->cap) {
		m->cap = m->cap ? m->cap * 2 : 64;
		m->v = xreallocarray(m->v, m->cap, sizeof(*m->v));
	}
	e = &m->v[m->n];
	for (k = 0; k < 2; k++) {
		e->key[k] = xmalloc(strlen(path) + 1);
		dmove_key(path, k, e->key[k]);
	}
	e->path = xstrdup(path);
	e->id = id;
	e->seq = m->n++;
	m->sorted = 0;
}

size_t
dmove_count(const struct dmove *m)
{
	return m->n;
}

static int
dmove_cmp(const void *a, const void *b)
{
	const struct dmove_ref	*x = a, *y = b;
	int			 c;

	if ((c = strcmp(x->key, y->key)) != 0)
		return c;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

void
dmove_sort(struct dmove *m)
{
	struct dmove_ref	*r;
	size_t			 i;
	int			 k;

	for (k = 0; k < 2; k++) {
		free(m->by[k]);
		r = m->by[k] = xreallocarray(NULL, m->n + 1, sizeof(*r));
		for (i = 0; i < m->n; i++) {
			r[i].key = m->v[i].key[k];
			r[i].ent = i;
			r[i].seq = m->v[i].seq;
		}
		if (m->n > 1)
			qsort(r, m->n, sizeof(*r), dmove_cmp);
	}
	m->sorted = 1;
}

/* The last entry of key k equal to key, other than path: 1 and *id. */
static int
dmove_last(const struct dmove *m, int k, const char *key, const char *path,
    size_t *id)
{
	const struct dmove_ent	*e;
	size_t			 lo = 0, hi = m->n, mid;

	/* The first entry past the key: the last of the key is before it. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (strcmp(m->by[k][mid].key, key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return 0;
	e = &m->v[m->by[k][lo - 1].ent];
	if (strcmp(e->key[k], key) != 0 || strcmp(e->path, path) == 0)
		return 0;
	*id = e->id;
	return 1;
}

int
dmove_find(const struct dmove *m, const char *path, size_t *id)
{
	char	*key;
	int	 k, found = 0;

	if (!m->sorted || m->n == 0)
		return 0;
	key = xmalloc(strlen(path) + 1);
	for (k = 0; k < 2 && !found; k++) {
		dmove_key(path, k, key);
		found = dmove_last(m, k, key, path, id);
	}
	free(key);
	return found;
}
