/*
 * wildcard.h: Radmind's wildcard patterns (docs/protocol.md section 10):
 * '*' (crosses '/'), '?', '<min-max>', '{a,b}', '[set]', '\c'.
 * Whole-string match.
 */
#ifndef CAIRN_WILDCARD_H
#define CAIRN_WILDCARD_H

/* Nonzero if string matches pattern.  icase: case-insensitive. */
int	wildcard(const char *pattern, const char *string, int icase);

#endif
