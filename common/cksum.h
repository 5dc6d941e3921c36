/*
 * cksum.h: content digests through OpenSSL EVP, printed in base64 as
 * Radmind writes them (docs/formats.md section 1.1).
 */
#ifndef CAIRN_CKSUM_H
#define CAIRN_CKSUM_H

#include <stddef.h>
#include <stdint.h>

#define CKSUM_B64MAX	(((64 + 2) / 3) * 4 + 1)	/* EVP_MAX_MD_SIZE */

struct cksum;		/* opaque streaming context */
struct cerr;

/* Nonzero if name is a digest OpenSSL supports here. */
int	 cksum_supported(const char *name);
/*
 * The same, as a check every tool words alike: 0, or -1 with
 * "<name>: unsupported checksum" in err.
 */
int	 cksum_check(const char *name, struct cerr *err);
/* Print names of supported digests (sha1 first), one per line, to fp. */
void	 cksum_list(void *fp);

struct cksum	*cksum_new(const char *name);	/* NULL if unsupported */
void		 cksum_free(struct cksum *);
void		 cksum_reset(struct cksum *);
void		 cksum_update(struct cksum *, const void *, size_t);
/* Finish into base64 text (NUL terminated, at most CKSUM_B64MAX bytes). */
void		 cksum_final(struct cksum *, char out[CKSUM_B64MAX]);

/*
 * Digest len bytes at p with the digest called name into out, at once.
 * Returns 0, or -1 if name is not a supported digest.
 */
int	 cksum_data(const char *name, const void *p, size_t len,
	    char out[CKSUM_B64MAX]);

/*
 * Digest the regular file at fd (read from its current offset to EOF, in
 * large reads; a short read is taken as the end) into out; *size receives the byte count.  Returns 0 or -1 with
 * errno set.
 */
int	 cksum_fd(struct cksum *, int fd, char out[CKSUM_B64MAX], int64_t *size);

/* Bytes of output of the digest called name; 0 if it is not supported. */
size_t	 cksum_size(const char *name);

/*
 * Base64 as digests are printed: cksum_b64 writes the encoding of len
 * bytes at p to out (4 * ((len + 2) / 3) + 1 bytes, NUL terminated).
 * cksum_unb64 decodes the slen characters at s into exactly n bytes at
 * out, only if they are the one canonical encoding of n bytes (length,
 * alphabet, '=' padding, no stray bits); returns 0 or -1.
 * cksum_b64ok: the same check without the bytes.
 */
void	 cksum_b64(const void *p, size_t len, char *out);
int	 cksum_unb64(const char *s, size_t slen, void *out, size_t n);
int	 cksum_b64ok(const char *s, size_t slen, size_t n);

#endif
