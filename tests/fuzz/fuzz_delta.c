/*
 * fuzz_delta.c: applying a delta (common/delta.c, docs/formats.md
 * section 13) to a basis.
 *
 * The input is a basis and a delta, split at the first "\n%%\n" line
 * (fuzz_parts; without one, the basis is empty and the input is the
 * delta).  The delta is applied twice, fed whole and fed in pieces of
 * varying size, and:
 *   - both runs succeed or both fail, and when they succeed they write
 *     the same bytes, as many as delta_apply_size said, never more than
 *     DELTA_MAXFILE;
 *   - a result is a target the basis can make again: delta_make of it
 *     against the basis, applied, gives it back (for results up to
 *     64 KiB, to keep runs fast).
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "delta.h"
#include "xmalloc.h"
#include "fuzz.h"

#define REMAKE_MAX	(64 * 1024)

static int	 basisfd = -1, outfd = -1, out2fd = -1;

static int
scratch(const char *name)
{
	char	*path;
	int	 fd;

	FUZZ_SETUP(asprintf(&path, "%s/%s", fuzz_tmpdir(), name) != -1);
	FUZZ_SETUP((fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC,
	    0600)) != -1);
	unlink(path);
	free(path);
	return fd;
}

static void
refill(int fd, const void *p, size_t len)
{
	FUZZ_SETUP(ftruncate(fd, 0) == 0);
	FUZZ_SETUP(lseek(fd, 0, SEEK_SET) == 0);
	FUZZ_SETUP(len == 0 || write(fd, p, len) == (ssize_t)len);
	FUZZ_SETUP(lseek(fd, 0, SEEK_SET) == 0);
}

/*
 * Apply delta into fd (emptied first), fed in pieces of the sizes in
 * piece[] in turn (NULL: all at once).  Returns 0 or -1 as the module
 * does; *size gets delta_apply_size.
 */
static int
run(const uint8_t *delta, size_t len, int fd, const size_t *piece,
    int64_t *size)
{
	struct delta_apply	*d;
	struct cerr		 err;
	size_t			 off = 0, n, i = 0;
	int			 rc = 0;

	refill(fd, NULL, 0);
	d = delta_apply_new(basisfd, fd, NULL);
	while (rc == 0 && off < len) {
		n = piece == NULL ? len - off : piece[i++ % 6];
		if (n > len - off)
			n = len - off;
		rc = delta_apply_feed(d, delta + off, n, &err);
		off += n;
	}
	if (rc == 0)
		rc = delta_apply_end(d, &err);
	*size = delta_apply_size(d);
	delta_apply_free(d);
	return rc;
}

static unsigned char *
contents(int fd, size_t *len)
{
	off_t		 end;
	unsigned char	*p;

	FUZZ_SETUP((end = lseek(fd, 0, SEEK_END)) != -1);
	*len = (size_t)end;
	p = xmalloc(*len + 1);
	FUZZ_SETUP(pread(fd, p, *len, 0) == (ssize_t)*len);
	return p;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const size_t	 piece[] = { 1, 7, 4096, 3, 13, 512 };
	const uint8_t		*part[2];
	size_t			 plen[2], alen, blen;
	unsigned char		*a, *b;
	struct buf		*again;
	struct cerr		 err;
	int64_t			 s1, s2;
	int			 r1, r2, n;

	if (basisfd == -1) {
		basisfd = scratch("basis");
		outfd = scratch("out");
		out2fd = scratch("out2");
	}
	n = fuzz_parts(data, size, part, plen, 2);
	if (n == 1) {
		part[1] = part[0];
		plen[1] = plen[0];
		plen[0] = 0;
	}
	refill(basisfd, part[0], plen[0]);
	r1 = run(part[1], plen[1], outfd, NULL, &s1);
	r2 = run(part[1], plen[1], out2fd, piece, &s2);
	FUZZ_CHECK(r1 == r2);
	if (r1 == -1)
		return 0;
	a = contents(outfd, &alen);
	b = contents(out2fd, &blen);
	FUZZ_CHECK(s1 == s2 && s1 >= 0 && (uint64_t)s1 == alen);
	FUZZ_CHECK(alen <= (size_t)DELTA_MAXFILE);
	FUZZ_CHECK(alen == blen && memcmp(a, b, alen) == 0);
	free(b);
	if (alen <= REMAKE_MAX) {
		again = buf_new(delta_bound(alen));
		FUZZ_CHECK(delta_make(part[0], plen[0], a, alen, "sha1", 1,
		    again, &err) == 0);
		FUZZ_CHECK(run((const uint8_t *)buf_data(again),
		    buf_len(again), out2fd, piece, &s2) == 0);
		b = contents(out2fd, &blen);
		FUZZ_CHECK(blen == alen && memcmp(a, b, alen) == 0);
		free(b);
		buf_free(again);
	}
	free(a);
	return 0;
}
