/*
 * strlist.h: a small growing list of strings (names to keep, names
 * seen), searched linearly: the lists it serves hold the command files
 * and transcripts of one host, tens to hundreds of names.
 */
#ifndef CAIRN_STRLIST_H
#define CAIRN_STRLIST_H

#include <stddef.h>

struct strlist {
	char	**v;
	size_t	 n;
};

/* Append a copy of s. */
void	strlist_add(struct strlist *, const char *s);
/* Nonzero if s is in the list (icase: compared without case). */
int	strlist_has(const struct strlist *, const char *s, int icase);
/* Free the strings and empty the list. */
void	strlist_free(struct strlist *);

#endif
