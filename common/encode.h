/*
 * encode.h: token encoding of paths (docs/protocol.md section 8):
 * space -> \b, tab -> \t, LF -> \n, CR -> \r, backslash -> \\.
 */
#ifndef CAIRN_ENCODE_H
#define CAIRN_ENCODE_H

#include <stddef.h>

struct buf;

/* Append the encoding of s to b.  Returns 0, or -1 if b's cap is hit. */
int	encode_path(struct buf *b, const char *s);
/* Return a malloc'd encoded copy of s. */
char	*encode_dup(const char *s);
/*
 * Decode the token s into a malloc'd string stored in *out.  Returns 0,
 * or -1 on an unknown escape, a trailing backslash, or a decoded length
 * of PATH_MAX or more (*out untouched).
 */
int	decode_path(const char *s, char **out);
/* Decode in place (result is never longer).  Returns 0 or -1 as above. */
int	decode_inplace(char *s);
/*
 * Nonzero if token s holds an escape decode_path rejects; tells its two
 * failures apart (zero: a failure is a decoded length of PATH_MAX or more).
 */
int	decode_badescape(const char *s);

#endif
