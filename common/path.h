/*
 * path.h: the two styles of a decoded transcript path (docs/formats.md
 * section 3), "./a" (relative) and "/a" (absolute), and the check for a
 * ".." component that every path from a peer or a transcript passes
 * before it is used.
 */
#ifndef CAIRN_PATH_H
#define CAIRN_PATH_H

#define PATH_RELATIVE	0
#define PATH_ABSOLUTE	1

/* Return a malloc'd copy of decoded path p in the given style. */
char	*path_restyle(const char *p, int style);
/* Style of a (canonical) path. */
int	 path_style(const char *p);
/* Nonzero if decoded path p has a ".." component. */
int	 path_has_dotdot(const char *p);

#endif
