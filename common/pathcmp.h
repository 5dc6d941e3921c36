/*
 * pathcmp.h: Radmind's path ordering (docs/formats.md section 4): '/' sorts
 * before every other byte so a directory's subtree precedes its siblings.
 */
#ifndef CAIRN_PATHCMP_H
#define CAIRN_PATHCMP_H

/* Compare decoded paths; <0, 0, >0.  icase: compare tolower() bytes. */
int	pathcmp(const char *, const char *, int icase);
/* Nonzero if child is inside (strictly below) dir under pathcmp rules. */
int	ischildcase(const char *child, const char *dir, int icase);

#endif
