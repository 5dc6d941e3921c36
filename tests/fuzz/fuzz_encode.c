/*
 * fuzz_encode.c: token encoding of paths (common/encode.c).
 *
 * The input, up to its first NUL, is used both ways:
 *   - as a token: when decode_path accepts it, encode(decode(x)) decodes
 *     back to the same bytes (and is x itself when x has no raw space,
 *     tab, LF or CR); when it refuses, the reason is a bad escape or a
 *     decoded length of PATH_MAX or more, as decode_badescape tells;
 *   - as raw bytes: encode(x) holds no separator, has no bad escape and
 *     decodes back to x exactly (x shorter than PATH_MAX), and fits a
 *     buffer capped at its length but not one byte less.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "encode.h"
#include "xmalloc.h"
#include "fuzz.h"

/* Decoded length of a token with no bad escape. */
static size_t
decoded_len(const char *s)
{
	size_t	 n = 0;

	for (; *s != '\0'; s++, n++)
		if (*s == '\\')
			s++;
	return n;
}

static void
as_token(const char *s)
{
	char	*d, *d2, *e, *t;
	int	 r;

	r = decode_path(s, &d);
	t = xstrdup(s);
	FUZZ_CHECK(decode_inplace(t) == r);
	if (r == -1) {
		FUZZ_CHECK(decode_badescape(s) ||
		    decoded_len(s) >= PATH_MAX);
		free(t);
		return;
	}
	FUZZ_CHECK(strcmp(t, d) == 0);
	free(t);
	FUZZ_CHECK(!decode_badescape(s));
	FUZZ_CHECK(strlen(d) < PATH_MAX);
	FUZZ_CHECK(strlen(d) == decoded_len(s));
	e = encode_dup(d);
	FUZZ_CHECK(decode_path(e, &d2) == 0);
	FUZZ_CHECK(strcmp(d, d2) == 0);
	if (strpbrk(s, " \t\n\r") == NULL)
		FUZZ_CHECK(strcmp(e, s) == 0);
	free(d2);
	free(e);
	free(d);
}

static void
as_raw(const char *s)
{
	struct buf	*b;
	char		*e, *d;
	size_t		 elen;
	int		 r;

	e = encode_dup(s);
	elen = strlen(e);
	FUZZ_CHECK(strpbrk(e, " \t\n\r") == NULL);
	FUZZ_CHECK(!decode_badescape(e));
	FUZZ_CHECK(elen >= strlen(s) && elen <= 2 * strlen(s));
	r = decode_path(e, &d);
	FUZZ_CHECK((r == 0) == (strlen(s) < PATH_MAX));
	if (r == 0) {
		FUZZ_CHECK(strcmp(d, s) == 0);
		free(d);
	}

	b = buf_new(elen);
	FUZZ_CHECK(encode_path(b, s) == 0);
	FUZZ_CHECK(buf_len(b) == elen);
	FUZZ_CHECK(memcmp(buf_data(b), e, elen) == 0);
	buf_free(b);
	if (elen > 0) {
		b = buf_new(elen - 1);
		FUZZ_CHECK(encode_path(b, s) == -1);
		buf_free(b);
	}
	free(e);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*s;

	s = fuzz_cstr(data, size);
	as_token(s);
	as_raw(s);
	free(s);
	return 0;
}
