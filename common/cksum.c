/*
 * cksum.c: streaming digests through OpenSSL EVP, base64 as Radmind
 * prints them.  The only file in common/ calling EVP digest functions.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>

#include "cerr.h"
#include "cksum.h"
#include "log.h"
#include "xmalloc.h"

#define CKSUM_READSZ	(256 * 1024)

struct cksum {
	EVP_MD_CTX	*ctx;
	const EVP_MD	*md;
	char		*rbuf;		/* cksum_fd read buffer, lazily */
};

/*
 * The digest called name, if it can be computed here: OpenSSL knows
 * names (md4, whirlpool) whose code is in a provider that is not
 * loaded, and then fails only when a digest is started.
 */
static const EVP_MD *
cksum_md(const char *name)
{
	const EVP_MD	*md;
	EVP_MD_CTX	*ctx;
	int		 ok;

	if ((md = EVP_get_digestbyname(name)) == NULL)
		return NULL;
	if ((ctx = EVP_MD_CTX_new()) == NULL)
		fatalx("out of memory");
	ok = EVP_DigestInit_ex(ctx, md, NULL) == 1;
	EVP_MD_CTX_free(ctx);
	if (!ok)
		ERR_clear_error();
	return ok ? md : NULL;
}

int
cksum_supported(const char *name)
{
	return cksum_md(name) != NULL;
}

int
cksum_check(const char *name, struct cerr *err)
{
	if (cksum_supported(name))
		return 0;
	cerr_set(err, "%s: unsupported checksum", name);
	return -1;
}

void
cksum_list(void *arg)
{
	static const char *names[] = { "sha1", "md5", "sha224", "sha256",
	    "sha384", "sha512", "ripemd160", NULL };
	FILE	*fp = arg;
	int	 i;

	for (i = 0; names[i] != NULL; i++)
		if (cksum_supported(names[i]))
			fprintf(fp, "%s\n", names[i]);
}

struct cksum *
cksum_new(const char *name)
{
	struct cksum	*c;
	const EVP_MD	*md;

	if ((md = cksum_md(name)) == NULL)
		return NULL;
	c = xcalloc(1, sizeof(*c));
	c->md = md;
	if ((c->ctx = EVP_MD_CTX_new()) == NULL)
		fatalx("out of memory");
	cksum_reset(c);
	return c;
}

int
cksum_data(const char *name, const void *p, size_t len,
    char out[CKSUM_B64MAX])
{
	struct cksum	*c;

	if ((c = cksum_new(name)) == NULL)
		return -1;
	cksum_update(c, p, len);
	cksum_final(c, out);
	cksum_free(c);
	return 0;
}

void
cksum_free(struct cksum *c)
{
	if (c == NULL)
		return;
	EVP_MD_CTX_free(c->ctx);
	free(c->rbuf);
	free(c);
}

void
cksum_reset(struct cksum *c)
{
	if (EVP_DigestInit_ex(c->ctx, c->md, NULL) != 1)
		fatalx("EVP_DigestInit_ex failed");
}

void
cksum_update(struct cksum *c, const void *p, size_t n)
{
	if (n > 0 && EVP_DigestUpdate(c->ctx, p, n) != 1)
		fatalx("EVP_DigestUpdate failed");
}

void
cksum_final(struct cksum *c, char out[CKSUM_B64MAX])
{
	unsigned char	md[EVP_MAX_MD_SIZE];
	unsigned int	mdlen = 0;

	if (EVP_DigestFinal_ex(c->ctx, md, &mdlen) != 1)
		fatalx("EVP_DigestFinal_ex failed");
	EVP_EncodeBlock((unsigned char *)out, md, (int)mdlen);
	cksum_reset(c);
}

int
cksum_fd(struct cksum *c, int fd, char out[CKSUM_B64MAX], int64_t *size)
{
	ssize_t		 n;
	int64_t		 total = 0;

	if (c->rbuf == NULL)
		c->rbuf = xmalloc(CKSUM_READSZ);
	cksum_reset(c);
	for (;;) {
		n = read(fd, c->rbuf, CKSUM_READSZ);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		cksum_update(c, c->rbuf, (size_t)n);
		total += n;
		/* a short read of a regular file is its end: one read per file */
		if (n < CKSUM_READSZ)
			break;
	}
	cksum_final(c, out);
	if (size != NULL)
		*size = total;
	return 0;
}

size_t
cksum_size(const char *name)
{
	const EVP_MD	*md;
	int		 n;

	if ((md = cksum_md(name)) == NULL || (n = EVP_MD_get_size(md)) <= 0)
		return 0;
	return (size_t)n;
}

void
cksum_b64(const void *p, size_t len, char *out)
{
	if (len > INT_MAX / 2)
		fatalx("cksum_b64: %zu bytes", len);
	EVP_EncodeBlock((unsigned char *)out, p, (int)len);
}

/* The value of base64 character c, or -1. */
static int
cksum_b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

int
cksum_unb64(const char *s, size_t slen, void *out, size_t n)
{
	unsigned char	*o = out;
	size_t		 i, ndata, o_n = 0;
	uint32_t	 acc = 0;
	int		 v, bits = 0;

	if (n > SIZE_MAX / 4 - 3 || slen != 4 * ((n + 2) / 3))
		return -1;
	/* characters that carry data: the rest is '=' padding */
	ndata = (n * 8 + 5) / 6;
	for (i = 0; i < slen; i++) {
		if (i >= ndata) {
			if (s[i] != '=')
				return -1;
			continue;
		}
		if ((v = cksum_b64val((unsigned char)s[i])) == -1)
			return -1;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o != NULL)
				o[o_n] = (unsigned char)(acc >> bits);
			o_n++;
			acc &= (1U << bits) - 1;
		}
	}
	/* the bits left over must be zero: one encoding per value */
	if (o_n != n || acc != 0)
		return -1;
	return 0;
}

int
cksum_b64ok(const char *s, size_t slen, size_t n)
{
	return cksum_unb64(s, slen, NULL, n);
}
