/*
 * fuzz_transcript.c: transcript lines (common/transcript.c).
 *
 * Each line of the input goes through tline_parse; then the whole input
 * is read as a transcript file by the sorted reader, with and without
 * its options.  Every object line either accepts is checked:
 *   - its path and target tokens are the canonical encodings of the
 *     decoded names;
 *   - tline_format writes one line that tline_parse reads back into the
 *     same fields, and formatting that again gives the same bytes;
 *   - tline_copy copies every field.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cerr.h"
#include "encode.h"
#include "transcript.h"
#include "xmalloc.h"
#include "fuzz.h"

static int
streq(const char *a, const char *b)
{
	if (a == NULL || b == NULL)
		return a == b;
	return strcmp(a, b) == 0;
}

/* Nonzero if a and b describe the same object (formatting aside). */
static int
same(const struct tline *a, const struct tline *b)
{
	return a->type == b->type && a->minus == b->minus &&
	    a->plus == b->plus && streq(a->path, b->path) &&
	    streq(a->target, b->target) && a->mode == b->mode &&
	    a->uid == b->uid && a->gid == b->gid && a->mtime == b->mtime &&
	    a->size == b->size && strcmp(a->cksum, b->cksum) == 0 &&
	    a->major == b->major && a->minor == b->minor;
}

static void
check_encoded(const char *dec, const char *enc)
{
	char	*e;

	FUZZ_CHECK((dec == NULL) == (enc == NULL));
	if (dec == NULL)
		return;
	e = encode_dup(dec);
	FUZZ_CHECK(strcmp(e, enc) == 0);
	free(e);
}

static void
roundtrip(const struct tline *t)
{
	struct tline	 u, c;
	struct buf	*b, *b2;
	struct cerr	 err;
	char		*line;
	size_t		 len;

	FUZZ_CHECK(t->path != NULL && t->path[0] != '\0');
	FUZZ_CHECK(strchr("fdlhpsDbca", t->type) != NULL);
	FUZZ_CHECK(t->mode <= 07777);
	check_encoded(t->path, t->epath);
	check_encoded(t->target, t->etarget);
	FUZZ_CHECK((t->target != NULL) == (t->type == 'l' || t->type == 'h'));

	b = buf_new(2 * TRAN_MAXLINE);
	FUZZ_CHECK(tline_format(b, t, 1) == 0);
	len = buf_len(b);
	FUZZ_CHECK(len > 0 && buf_data(b)[len - 1] == '\n');
	FUZZ_CHECK(memchr(buf_data(b), '\n', len - 1) == NULL);
	line = xstrndup(buf_data(b), len - 1);
	/* Padding can push a line near the cap over it: not a round trip. */
	if (len - 1 < TRAN_MAXLINE) {
		memset(&u, 0, sizeof(u));
		FUZZ_CHECK(tline_parse(&u, line, "format", 1, 1, &err) == 1);
		FUZZ_CHECK(same(t, &u));
		b2 = buf_new(2 * TRAN_MAXLINE);
		FUZZ_CHECK(tline_format(b2, &u, 1) == 0);
		FUZZ_CHECK(buf_len(b2) == len);
		FUZZ_CHECK(memcmp(buf_data(b2), buf_data(b), len) == 0);
		buf_free(b2);
		tline_clear(&u);
	}
	free(line);
	buf_free(b);

	memset(&c, 0, sizeof(c));
	tline_copy(&c, t);
	FUZZ_CHECK(same(t, &c));
	FUZZ_CHECK(streq(t->epath, c.epath) && streq(t->etarget, c.etarget));
	tline_clear(&c);
}

static void
each_line(char *s)
{
	struct tline	 t;
	struct cerr	 err;
	char		*line, *nl;
	unsigned	 lineno = 0;
	int		 rc;

	memset(&t, 0, sizeof(t));
	for (line = s; line != NULL; line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		rc = tline_parse(&t, line, "fuzz", ++lineno, 1, &err);
		FUZZ_CHECK(rc >= -1 && rc <= 2);
		if (rc == 1)
			roundtrip(&t);
		if (rc == 2)
			FUZZ_CHECK(t.path != NULL && t.path[0] != '\0');
		if (rc == -1)
			FUZZ_CHECK(t.path == NULL && t.epath == NULL);
		tline_clear(&t);
	}
}

static void
reader(const uint8_t *data, size_t size, int flags)
{
	struct treader		*r;
	const struct tline	*t;
	struct cerr		 err;
	FILE			*fp;
	int			 rc;

	FUZZ_SETUP((fp = fmemopen((void *)(uintptr_t)data, size, "r")) !=
	    NULL);
	r = treader_fdopen(fp, "fuzz", flags, 0);
	while ((rc = treader_next(r, &t, &err)) > 0) {
		FUZZ_CHECK(rc == 1 || (rc == 2 && (flags & TR_HEADERS)));
		if (rc == 1)
			roundtrip(t);
	}
	treader_close(r);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char	*s;

	s = fuzz_cstr(data, size);
	each_line(s);
	free(s);
	if (size > 0) {
		reader(data, size, TR_HEADERS);
		reader(data, size, TR_ICASE | TR_CKSUM | TR_NOSORT);
	}
	return 0;
}
