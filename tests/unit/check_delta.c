/*
 * check_delta.c: deltas made and applied (common/delta.c,
 * docs/formats.md section 13): round trips, and every way a delta or its
 * basis can be wrong ending in an error, never in a wrong result.
 */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "cksum.h"
#include "delta.h"
#include "unit.h"

#define KB	1024

static uint64_t	 rng_state;

static uint32_t
rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return (uint32_t)(rng_state >> 16);
}

/*
 * A file like a program: text (symbol names, messages) and code-like
 * noise, half and half, in runs.
 */
static unsigned char *
gen_file(size_t len, uint64_t seed)
{
	static const char	*word[] = { "cairn_", "transcript", "_init",
	    "error: ", "/usr/lib/", "lapply", " %s: %d\n", "GLIBC_2.34",
	    "x86_64", "libz.so.1", "delta", "\0\0\0\0", "main" };
	unsigned char		*p = malloc(len > 0 ? len : 1);
	size_t			 i = 0, n, w, k;

	ck_assert_ptr_nonnull(p);
	rng_state = seed;
	while (i < len) {
		if (rng() % 2) {
			n = 64 + rng() % 512;
			while (n-- > 0 && i < len)
				p[i++] = (unsigned char)rng();
		} else {
			n = 8 + rng() % 64;
			while (n-- > 0 && i < len) {
				k = rng() % 13;
				w = strlen(word[k]);
				if (w == 0)
					w = 4;
				if (w > len - i)
					w = len - i;
				memcpy(p + i, word[k], w);
				i += w;
			}
		}
	}
	return p;
}

/*
 * The next version of base: some bytes changed, a run inserted, one
 * deleted, some appended.  *outlen gets its length.
 */
static unsigned char *
gen_update(const unsigned char *base, size_t len, size_t *outlen)
{
	unsigned char	*p = malloc(len + 8 * KB);
	size_t		 i, o = 0, ins = len / 3, del = 2 * len / 3;

	ck_assert_ptr_nonnull(p);
	rng_state = 77;
	for (i = 0; i < len; i++) {
		if (i == ins) {
			memcpy(p + o, "inserted in the new version", 27);
			o += 27;
		}
		if (i == del && len - i > 2 * KB)
			i += 2 * KB;
		p[o++] = base[i];
	}
	for (i = 0; i < 100 && o > 0; i++)
		p[rng() % o] ^= 0x5a;
	for (i = 0; i < 3 * KB; i++)
		p[o++] = (unsigned char)rng();
	*outlen = o;
	return p;
}

/* An unlinked regular file holding len bytes of p, at offset 0. */
static int
tmpfd(const void *p, size_t len)
{
	const char	*tmp = getenv("TMPDIR");
	char		 path[PATH_MAX];
	int		 fd;

	snprintf(path, sizeof(path), "%s/check_delta.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp");
	fd = mkstemp(path);
	ck_assert_int_ne(fd, -1);
	unlink(path);
	ck_assert(len == 0 || write(fd, p, len) == (ssize_t)len);
	ck_assert_int_eq((int)lseek(fd, 0, SEEK_SET), 0);
	return fd;
}

static struct buf *
make(const void *basis, size_t blen, const void *target, size_t tlen,
    const char *digest, int level)
{
	struct buf	*d = buf_new(delta_bound(tlen));
	struct cerr	 err;

	ck_assert_msg(delta_make(basis, blen, target, tlen, digest, level, d,
	    &err) == 0, "delta_make: %s", err.msg);
	return d;
}

/*
 * Apply delta (dlen bytes) to basis, fed piece bytes at a time (0: all
 * at once).  Returns 0 with the result in *out (a new buf) and, if
 * digest is not NULL, its sha1 there; or -1 with the message in err.
 */
static int
apply(const void *basis, size_t blen, const void *delta, size_t dlen,
    size_t piece, struct buf **out, char *digest, struct cerr *err)
{
	struct delta_apply	*d;
	struct cksum		*c = cksum_new("sha1");
	struct stat		 st;
	size_t			 off = 0, n;
	ssize_t			 r;
	int			 bfd, ofd, rc = 0;
	char			*p;

	bfd = tmpfd(basis, blen);
	ofd = tmpfd(NULL, 0);
	d = delta_apply_new(bfd, ofd, c);
	while (rc == 0 && off < dlen) {
		n = piece == 0 || piece > dlen - off ? dlen - off : piece;
		rc = delta_apply_feed(d, (const char *)delta + off, n, err);
		off += n;
	}
	if (rc == 0)
		rc = delta_apply_end(d, err);
	delta_apply_free(d);
	*out = NULL;
	if (rc == 0) {
		ck_assert_int_eq(fstat(ofd, &st), 0);
		*out = buf_new((size_t)st.st_size + 1);
		p = buf_reserve(*out, (size_t)st.st_size);
		r = pread(ofd, p, (size_t)st.st_size, 0);
		ck_assert_int_eq(r, st.st_size);
		buf_commit(*out, (size_t)r);
		if (digest != NULL)
			cksum_final(c, digest);
	}
	cksum_free(c);
	close(bfd);
	close(ofd);
	return rc;
}

/* Apply must give exactly target, whatever the piece size. */
static void
assert_round_trip(const void *basis, size_t blen, const void *target,
    size_t tlen, const struct buf *d)
{
	static const size_t	 pieces[] = { 0, 1, 7, 4096 };
	struct buf		*out;
	struct cerr		 err;
	char			 got[CKSUM_B64MAX], want[CKSUM_B64MAX];
	size_t			 i;

	ck_assert_int_eq(cksum_data("sha1", target, tlen, want), 0);
	for (i = 0; i < sizeof(pieces) / sizeof(pieces[0]); i++) {
		if (pieces[i] == 1 && buf_len(d) > 64 * KB)
			continue;
		ck_assert_msg(apply(basis, blen, buf_data(d), buf_len(d),
		    pieces[i], &out, got, &err) == 0, "apply (pieces of %zu):"
		    " %s", pieces[i], err.msg);
		ck_assert_uint_eq(buf_len(out), tlen);
		ck_assert(tlen == 0 || memcmp(buf_data(out), target,
		    tlen) == 0);
		ck_assert_str_eq(got, want);
		buf_free(out);
	}
}

START_TEST(test_round_trip)
{
	unsigned char	*basis, *target;
	size_t		 blen = 512 * KB, tlen;
	struct buf	*d, *whole;

	basis = gen_file(blen, 1);
	target = gen_update(basis, blen, &tlen);
	d = make(basis, blen, target, tlen, "sha1", 3);
	assert_round_trip(basis, blen, target, tlen, d);
	/* the basis did the work: half the data is incompressible */
	whole = make(NULL, 0, target, tlen, NULL, 3);
	ck_assert_uint_gt(buf_len(whole), tlen / 3);
	ck_assert_msg(buf_len(d) < 12 * KB, "delta of %zu bytes",
	    buf_len(d));
	assert_round_trip(NULL, 0, target, tlen, whole);
	buf_free(whole);
	buf_free(d);
	/* the default level, without a basis digest */
	d = make(basis, blen, target, tlen, NULL, DELTA_LEVEL);
	assert_round_trip(basis, blen, target, tlen, d);
	buf_free(d);
	free(basis);
	free(target);
}
END_TEST

START_TEST(test_identical_and_empty)
{
	unsigned char	*basis = gen_file(100 * KB, 2);
	struct buf	*d;

	d = make(basis, 100 * KB, basis, 100 * KB, "sha256", 3);
	ck_assert_uint_lt(buf_len(d), 24 + 4 + 44 + 64);
	assert_round_trip(basis, 100 * KB, basis, 100 * KB, d);
	buf_free(d);
	/* an empty target, an empty basis, both */
	d = make(basis, 100 * KB, "", 0, "sha1", 3);
	assert_round_trip(basis, 100 * KB, "", 0, d);
	buf_free(d);
	d = make("", 0, basis, 100 * KB, "sha1", 3);
	assert_round_trip("", 0, basis, 100 * KB, d);
	buf_free(d);
	d = make("", 0, "", 0, NULL, 3);
	assert_round_trip("", 0, "", 0, d);
	buf_free(d);
	free(basis);
}
END_TEST

START_TEST(test_size_known_early)
{
	unsigned char	*basis = gen_file(10 * KB, 3);
	struct delta_apply *a;
	struct buf	*d;
	struct cerr	 err;
	int		 bfd, ofd;

	d = make(basis, 10 * KB, basis, 5 * KB, "sha1", 3);
	bfd = tmpfd(basis, 10 * KB);
	ofd = tmpfd(NULL, 0);
	a = delta_apply_new(bfd, ofd, NULL);
	ck_assert_int_eq(delta_apply_size(a), -1);
	ck_assert_int_eq(delta_apply_feed(a, buf_data(d), 24, &err), 0);
	ck_assert_int_eq(delta_apply_size(a), 5 * KB);
	ck_assert_int_eq(delta_apply_feed(a, buf_data(d) + 24,
	    buf_len(d) - 24, &err), 0);
	ck_assert_int_eq(delta_apply_end(a, &err), 0);
	/* spent: no more input, a second end fails */
	ck_assert_int_eq(delta_apply_feed(a, "x", 1, &err), -1);
	ck_assert_int_eq(delta_apply_end(a, &err), -1);
	delta_apply_free(a);
	delta_apply_free(NULL);
	ck_assert_int_eq((int)lseek(ofd, 0, SEEK_END), 5 * KB);
	close(bfd);
	close(ofd);
	buf_free(d);
	free(basis);
}
END_TEST

START_TEST(test_files)
{
	unsigned char	*basis, *target;
	size_t		 blen = 64 * KB, tlen;
	struct cksum	*c = cksum_new("sha1");
	struct cerr	 err;
	char		 got[CKSUM_B64MAX], want[CKSUM_B64MAX];
	int		 bfd, tfd, dfd, ofd;

	basis = gen_file(blen, 4);
	target = gen_update(basis, blen, &tlen);
	bfd = tmpfd(basis, blen);
	tfd = tmpfd(target, tlen);
	dfd = tmpfd(NULL, 0);
	ofd = tmpfd(NULL, 0);
	ck_assert_msg(delta_make_fd(bfd, tfd, dfd, "sha1", 3, &err) == 0,
	    "%s", err.msg);
	ck_assert_int_eq((int)lseek(dfd, 0, SEEK_SET), 0);
	ck_assert_msg(delta_apply_fd(bfd, dfd, ofd, c, &err) == 0, "%s",
	    err.msg);
	cksum_final(c, got);
	ck_assert_int_eq(cksum_data("sha1", target, tlen, want), 0);
	ck_assert_str_eq(got, want);
	ck_assert_int_eq((int)lseek(ofd, 0, SEEK_END), (int)tlen);
	/* a basis that is not a regular file */
	close(bfd);
	ck_assert_int_ne(bfd = open("/dev/null", O_RDONLY), -1);
	ck_assert_int_eq((int)lseek(dfd, 0, SEEK_SET), 0);
	ck_assert_int_eq(delta_apply_fd(bfd, dfd, ofd, NULL, &err), -1);
	ck_assert_str_eq(err.msg, "delta: basis is not a regular file");
	close(bfd);
	close(tfd);
	close(dfd);
	close(ofd);
	cksum_free(c);
	free(basis);
	free(target);
}
END_TEST

START_TEST(test_wrong_basis)
{
	unsigned char	*basis, *other, *target;
	size_t		 blen = 64 * KB, tlen;
	struct buf	*d, *out;
	struct cerr	 err;

	basis = gen_file(blen, 5);
	other = gen_file(blen, 6);
	target = gen_update(basis, blen, &tlen);
	d = make(basis, blen, target, tlen, "sha1", 3);
	/* a basis of another length */
	ck_assert_int_eq(apply(basis, blen - 1, buf_data(d), buf_len(d), 0,
	    &out, NULL, &err), -1);
	ck_assert_msg(strstr(err.msg, "basis is 65535 bytes, not 65536") !=
	    NULL, "%s", err.msg);
	/* the right length, other content: the basis digest tells */
	ck_assert_int_eq(apply(other, blen, buf_data(d), buf_len(d), 0,
	    &out, NULL, &err), -1);
	ck_assert_msg(strstr(err.msg, "not the one the delta was made "
	    "from") != NULL, "%s", err.msg);
	buf_free(d);
	/* without a basis digest: zstd's checksum of the target tells */
	d = make(basis, blen, target, tlen, NULL, 3);
	ck_assert_int_eq(apply(other, blen, buf_data(d), buf_len(d), 0,
	    &out, NULL, &err), -1);
	ck_assert_msg(strstr(err.msg, "corrupt") != NULL, "%s", err.msg);
	/* one byte of the basis changed */
	memcpy(other, basis, blen);
	other[blen / 2] ^= 1;
	ck_assert_int_eq(apply(other, blen, buf_data(d), buf_len(d), 0,
	    &out, NULL, &err), -1);
	buf_free(d);
	free(basis);
	free(other);
	free(target);
}
END_TEST

/*
 * Every byte of a delta flipped, every prefix of it, and bytes after
 * it: an error or, where zstd does not need that bit (a window larger
 * than needed), exactly the target; never anything else.
 */
START_TEST(test_corrupt_and_truncated)
{
	unsigned char	*basis, *target, *bad;
	size_t		 blen = 16 * KB, tlen, i, len;
	struct buf	*d, *out;
	struct cerr	 err;
	int		 failed = 0;

	basis = gen_file(blen, 7);
	target = gen_update(basis, blen, &tlen);
	d = make(basis, blen, target, tlen, "sha1", 3);
	len = buf_len(d);
	bad = malloc(len + 1);
	ck_assert_ptr_nonnull(bad);
	ck_assert_uint_lt(len, 8 * KB);
	for (i = 0; i < len; i++) {
		memcpy(bad, buf_data(d), len);
		bad[i] ^= (unsigned char)(1U << (i % 8));
		if (apply(basis, blen, bad, len, 0, &out, NULL, &err) == -1) {
			failed++;
			continue;
		}
		ck_assert_msg(buf_len(out) == tlen && memcmp(buf_data(out),
		    target, tlen) == 0, "byte %zu flipped: wrong result", i);
		buf_free(out);
	}
	/* all but a few bits of the window descriptor matter */
	ck_assert_int_ge(failed, (int)len - 4);
	for (i = 0; i < len; i++) {
		ck_assert_int_eq(apply(basis, blen, buf_data(d), i, 0, &out,
		    NULL, &err), -1);
		ck_assert_msg(strstr(err.msg, "truncated") != NULL,
		    "%zu bytes: %s", i, err.msg);
	}
	/* a byte after the frame */
	memcpy(bad, buf_data(d), len);
	bad[len] = 0;
	ck_assert_int_eq(apply(basis, blen, bad, len + 1, 0, &out, NULL,
	    &err), -1);
	ck_assert_str_eq(err.msg, "delta: corrupt: 1 bytes after its zstd "
	    "frame");
	ck_assert_int_eq(apply(basis, blen, bad, len + 1, 1, &out, NULL,
	    &err), -1);
	ck_assert_str_eq(err.msg, "delta: corrupt: 1 bytes after its zstd "
	    "frame");
	free(bad);
	buf_free(d);
	free(basis);
	free(target);
}
END_TEST

/* A header as delta_make writes it, with no basis digest. */
static void
header(unsigned char *h, uint64_t bsize, uint64_t tsize)
{
	int	 i;

	memcpy(h, "CDLT\1\0\0\0", 8);
	for (i = 0; i < 8; i++) {
		h[8 + i] = (unsigned char)(bsize >> (56 - 8 * i));
		h[16 + i] = (unsigned char)(tsize >> (56 - 8 * i));
	}
}

START_TEST(test_bad_headers)
{
	static const struct {
		const char	*what;
		size_t		 off;
		unsigned char	 val;
		const char	*msg;
	} bad[] = {
		{ "magic", 0, 'X', "not a delta" },
		{ "version", 4, 2, "version 2 is not supported" },
		{ "name without digest", 6, 0, "bad header" },
		{ "name too long", 5, 17, "bad header" },
		{ "digest too long", 6, 89, "bad header" },
		{ "reserved", 7, 1, "bad header" },
		{ "name char", 24, 'S', "bad header (digest name" },
		{ "digest char", 28, '!', "bad header (digest name" },
	};
	unsigned char	*basis = gen_file(4 * KB, 8), *h;
	struct buf	*d, *out;
	struct cerr	 err;
	size_t		 i;

	d = make(basis, 4 * KB, basis, 2 * KB, "sha1", 3);
	h = malloc(buf_len(d));
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		memcpy(h, buf_data(d), buf_len(d));
		h[bad[i].off] = bad[i].val;
		ck_assert_int_eq(apply(basis, 4 * KB, h, buf_len(d), 0, &out,
		    NULL, &err), -1);
		ck_assert_msg(strstr(err.msg, bad[i].msg) != NULL,
		    "%s: %s", bad[i].what, err.msg);
	}
	/* a digest this build does not know */
	memcpy(h, buf_data(d), buf_len(d));
	memcpy(h + 24, "shaz", 4);
	ck_assert_int_eq(apply(basis, 4 * KB, h, buf_len(d), 0, &out, NULL,
	    &err), -1);
	ck_assert_str_eq(err.msg, "delta: basis digest shaz: unsupported "
	    "checksum");
	buf_free(d);
	/* one OpenSSL names but does not compute without its legacy code */
	d = make(basis, 4 * KB, basis, 2 * KB, "md5", 3);
	memcpy(h, buf_data(d), buf_len(d));
	memcpy(h + 24, "md4", 3);
	ck_assert_int_eq(apply(basis, 4 * KB, h, buf_len(d), 0, &out, NULL,
	    &err), -1);
	if (!cksum_supported("md4"))
		ck_assert_str_eq(err.msg, "delta: basis digest md4: "
		    "unsupported checksum");
	free(h);
	buf_free(d);
	free(basis);
}
END_TEST

/*
 * The frame says other than the header, or is not a frame delta_make
 * writes: each refused before zstd decodes.
 */
START_TEST(test_bad_frames)
{
	unsigned char	*basis = gen_file(4 * KB, 9), *f;
	struct buf	*d, *out;
	struct cerr	 err;
	size_t		 len, fh = 24;

	d = make(basis, 4 * KB, basis, 3 * KB, NULL, 3);
	len = buf_len(d);
	f = malloc(len + 8);
	/* the header's target size lies (the frame's content size too) */
	memcpy(f, buf_data(d), len);
	f[22] = 0x0b;			/* 3071 */
	f[23] = 0xff;
	ck_assert_int_eq(apply(basis, 4 * KB, f, len, 0, &out, NULL,
	    &err), -1);
	ck_assert_msg(strstr(err.msg, "the zstd frame holds 3072 bytes, "
	    "the header says 3071") != NULL, "%s", err.msg);
	/* both lie alike: zstd finds more output than declared */
	ck_assert_int_eq(f[fh + 4] >> 6, 1);	/* a 2-byte content size */
	len = fh + 4 + 1 + !((f[fh + 4] >> 5) & 1);
	ck_assert_int_eq(f[len], 0x00);		/* 3072 - 256 */
	ck_assert_int_eq(f[len + 1], 0x0b);
	f[len] = 0xff;				/* 3071 - 256 */
	f[len + 1] = 0x0a;
	len = buf_len(d);
	ck_assert_int_eq(apply(basis, 4 * KB, f, len, 0, &out, NULL,
	    &err), -1);
	ck_assert_msg(strstr(err.msg, "corrupt") != NULL, "%s", err.msg);
	/* a skippable frame instead */
	memcpy(f, buf_data(d), len);
	f[fh] = 0x50;
	f[fh + 1] = 0x2a;
	f[fh + 2] = 0x4d;
	f[fh + 3] = 0x18;
	ck_assert_int_eq(apply(basis, 4 * KB, f, len, 0, &out, NULL,
	    &err), -1);
	ck_assert_str_eq(err.msg, "delta: no zstd frame after the header");
	/* no checksum; a dictionary ID; the reserved bit */
	memcpy(f, buf_data(d), len);
	f[fh + 4] &= ~0x04;
	ck_assert_int_eq(apply(basis, 4 * KB, f, len, 0, &out, NULL,
	    &err), -1);
	ck_assert_msg(strstr(err.msg, "without content size or checksum") !=
	    NULL, "%s", err.msg);
	memcpy(f, buf_data(d), len);
	f[fh + 4] |= 0x01;
	ck_assert_int_eq(apply(basis, 4 * KB, f, len, 0, &out, NULL,
	    &err), -1);
	memcpy(f, buf_data(d), len);
	f[fh + 4] |= 0x08;
	ck_assert_int_eq(apply(basis, 4 * KB, f, len, 0, &out, NULL,
	    &err), -1);
	/* no content size */
	memcpy(f, buf_data(d), len);
	f[fh + 4] &= 0x3f;
	f[fh + 4] &= ~0x20;
	ck_assert_int_eq(apply(basis, 4 * KB, f, len, 0, &out, NULL,
	    &err), -1);
	free(f);
	buf_free(d);
	free(basis);
}
END_TEST

/* A hand-made frame: header, zstd frame header, then blocks. */
static size_t
frame(unsigned char *p, uint64_t tsize, unsigned wd)
{
	header(p, 0, tsize);
	memcpy(p + 24, "\x28\xb5\x2f\xfd", 4);
	p[28] = 0x40 | 0x04;		/* 2-byte content size, checksum */
	p[29] = (unsigned char)wd;
	p[30] = (unsigned char)((tsize - 256) & 0xff);
	p[31] = (unsigned char)((tsize - 256) >> 8);
	return 32;
}

START_TEST(test_window_and_endless)
{
	unsigned char	 f[64], empty[3] = { 0, 0, 0 };
	struct delta_apply *a;
	struct cerr	 err;
	size_t		 len, n;
	int		 bfd, ofd, rc = 0;

	bfd = tmpfd(NULL, 0);
	ofd = tmpfd(NULL, 0);
	/* a window of 2^27 bytes: over DELTA_WINDOWLOG_MAX */
	len = frame(f, 300, (27 - 10) << 3);
	a = delta_apply_new(bfd, ofd, NULL);
	ck_assert_int_eq(delta_apply_feed(a, f, len, &err), -1);
	ck_assert_msg(strstr(err.msg, "window of 134217728 bytes") != NULL,
	    "%s", err.msg);
	delta_apply_free(a);
	/* empty blocks without end: refused past the bound */
	len = frame(f, 300, 0);
	a = delta_apply_new(bfd, ofd, NULL);
	ck_assert_int_eq(delta_apply_feed(a, f, len, &err), 0);
	for (n = 0; rc == 0 && n < delta_bound(300) / 3 + 2; n++)
		rc = delta_apply_feed(a, empty, 3, &err);
	ck_assert_int_eq(rc, -1);
	ck_assert_msg(strstr(err.msg, "longer than a delta of 300 bytes") !=
	    NULL, "%s", err.msg);
	ck_assert_uint_le(n * 3 + len, delta_bound(300) + 3);
	delta_apply_free(a);
	close(bfd);
	close(ofd);
}
END_TEST

START_TEST(test_maximum)
{
	unsigned char	*big, h[24];
	struct buf	*d, *out;
	struct cerr	 err;
	size_t		 max = (size_t)DELTA_MAXFILE;

	big = calloc(1, max + 1);
	ck_assert_ptr_nonnull(big);
	memcpy(big + max / 2, "middle", 6);
	/* at the maximum: made and applied */
	d = make(big, max, big, max, NULL, 1);
	ck_assert_int_eq(apply(big, max, buf_data(d), buf_len(d), 0, &out,
	    NULL, &err), 0);
	ck_assert_uint_eq(buf_len(out), max);
	ck_assert(memcmp(buf_data(out), big, max) == 0);
	buf_free(out);
	buf_free(d);
	/* one byte over: refused on both sides */
	d = buf_new(delta_bound(max + 1));
	ck_assert_int_eq(delta_make(big, max + 1, big, 1, NULL, 1, d, &err),
	    -1);
	ck_assert_msg(strstr(err.msg, "over the delta maximum") != NULL,
	    "%s", err.msg);
	ck_assert_int_eq(delta_make(big, 1, big, max + 1, NULL, 1, d, &err),
	    -1);
	ck_assert_uint_eq(buf_len(d), 0);
	buf_free(d);
	header(h, 1, max + 1);
	ck_assert_int_eq(apply(big, 1, h, sizeof(h), 0, &out, NULL, &err),
	    -1);
	ck_assert_msg(strstr(err.msg, "over the delta maximum") != NULL,
	    "%s", err.msg);
	header(h, UINT64_MAX, 1);
	ck_assert_int_eq(apply(big, 1, h, sizeof(h), 0, &out, NULL, &err),
	    -1);
	ck_assert_msg(strstr(err.msg, "over the delta maximum") != NULL,
	    "%s", err.msg);
	/* bad arguments to delta_make */
	d = buf_new(delta_bound(10));
	ck_assert_int_eq(delta_make(big, 10, big, 10, "nosuch", 1, d, &err),
	    -1);
	ck_assert_int_eq(delta_make(big, 10, big, 10, "SHA1", 1, d, &err),
	    -1);
	ck_assert_int_eq(delta_make(big, 10, big, 10, NULL, 99, d, &err),
	    -1);
	buf_free(d);
	/* an output buffer too small for the delta */
	d = buf_new(10);
	ck_assert_int_eq(delta_make(big, 10, big, 10, NULL, 1, d, &err), -1);
	ck_assert_str_eq(err.msg, "delta: the output buffer is too small");
	buf_free(d);
	free(big);
}
END_TEST

static Suite *
delta_suite(void)
{
	Suite	*s = suite_create("delta");
	TCase	*tc;

	tc = tcase_create("round trip");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_round_trip);
	tcase_add_test(tc, test_identical_and_empty);
	tcase_add_test(tc, test_size_known_early);
	tcase_add_test(tc, test_files);
	suite_add_tcase(s, tc);

	tc = tcase_create("hostile");
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_wrong_basis);
	tcase_add_test(tc, test_corrupt_and_truncated);
	tcase_add_test(tc, test_bad_headers);
	tcase_add_test(tc, test_bad_frames);
	tcase_add_test(tc, test_window_and_endless);
	tcase_add_test(tc, test_maximum);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	if (!delta_built())
		return unit_skip(UNIT_NOZSTD);
	return unit_run(delta_suite());
}
