/*
 * bytesize.h: a byte count as administrators write it on a command line
 * (cairnd -M -S -T -O, cairn-publish -O): digits with an optional k, m
 * or g suffix, in either case, for powers of 1024.
 */
#ifndef CAIRN_BYTESIZE_H
#define CAIRN_BYTESIZE_H

#include <stdint.h>

/* Parse s into *v.  Returns 0, or -1 if it is not such a count. */
int	bytesize_parse(const char *s, int64_t *v);

#endif
