/*
 * sig.c: Ed25519 signatures of release manifests (docs/formats.md
 * section 15.2) through OpenSSL 3.  The only file calling EVP_PKEY and
 * PEM functions for signatures.
 *
 * A signature file:
 *
 *	cairn-signature 1
 *	ed25519 <keyid> <base64 of the 64-byte signature>
 *	end 1
 *
 * with 1 to SIG_LINESMAX ed25519 lines.  keyid: the first 8 bytes of
 * SHA-256 of the raw 32-byte public key, as 16 lowercase hex digits.
 */
#include "config.h"

#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "buf.h"
#include "cerr.h"
#include "cksum.h"
#include "compat.h"
#include "fsutil.h"
#include "log.h"
#include "sig.h"
#include "xmalloc.h"

#define SIG_MAGIC	"cairn-signature 1"
#define SIG_ALG		"ed25519"
#define SIG_RAWLEN	64		/* an Ed25519 signature */
#define SIG_B64LEN	88		/* its base64 */
#define SIG_PUBLEN	32		/* an Ed25519 public key */
#define SIG_KEYFILEMAX	(64 * 1024)	/* a PEM file of keys */
#define SIG_DIRMAX	1024		/* *.pub files in a key directory */

struct sigkey {
	EVP_PKEY	*pkey;
	char		 id[SIG_KEYIDLEN + 1];
};

struct sigkeys {
	struct sigkey	*k;
	size_t		 n;
};

/* The key id of an Ed25519 key (public or private). */
static int
sig_keyid(EVP_PKEY *pkey, char id[SIG_KEYIDLEN + 1])
{
	unsigned char	 raw[SIG_PUBLEN], md[32];
	char		 b64[CKSUM_B64MAX];
	size_t		 len = sizeof(raw), i;

	if (EVP_PKEY_get_raw_public_key(pkey, raw, &len) != 1 ||
	    len != SIG_PUBLEN) {
		ERR_clear_error();
		return -1;
	}
	if (cksum_data("sha256", raw, len, b64) == -1 ||
	    cksum_unb64(b64, strlen(b64), md, sizeof(md)) == -1)
		return -1;
	for (i = 0; i < SIG_KEYIDLEN / 2; i++)
		snprintf(id + 2 * i, 3, "%02x", md[i]);
	return 0;
}

/*
 * Read the PEM public keys of the file path into ks.  The file must
 * hold at least one, and nothing but Ed25519 public keys.  0, or -1 with
 * err naming path.
 */
static int
sig_loadfile(struct sigkeys *ks, int dfd, const char *path,
    const char *shown, struct cerr *err)
{
	struct buf	*b;
	BIO		*bio;
	EVP_PKEY	*pkey;
	char		*name = NULL, *hdr = NULL;
	unsigned char	*der = NULL;
	const unsigned char	*dp;
	long		 dlen;
	size_t		 nkeys = 0;
	unsigned long	 e;
	int		 rc = -1;

	if (fs_read_file(dfd, path, SIG_KEYFILEMAX, &b) == -1) {
		cerr_errno(err, "%s", shown);
		return -1;
	}
	if ((bio = BIO_new_mem_buf(buf_data(b), (int)buf_len(b))) == NULL)
		fatalx("out of memory");
	for (;;) {
		ERR_clear_error();
		if (PEM_read_bio(bio, &name, &hdr, &der, &dlen) != 1) {
			e = ERR_peek_last_error();
			ERR_clear_error();
			if (ERR_GET_LIB(e) == ERR_LIB_PEM &&
			    ERR_GET_REASON(e) == PEM_R_NO_START_LINE &&
			    nkeys > 0)
				break;
			cerr_set(err, "%s: %s", shown, nkeys > 0 ?
			    "bad PEM data after the keys" :
			    "no PEM public key");
			goto out;
		}
		if (strcmp(name, "PUBLIC KEY") != 0) {
			cerr_set(err, "%s: %s is not a public key", shown,
			    name);
			goto out;
		}
		dp = der;
		pkey = d2i_PUBKEY(NULL, &dp, dlen);
		if (pkey == NULL || dp != der + dlen) {
			ERR_clear_error();
			EVP_PKEY_free(pkey);
			cerr_set(err, "%s: bad public key", shown);
			goto out;
		}
		if (EVP_PKEY_get_id(pkey) != EVP_PKEY_ED25519) {
			EVP_PKEY_free(pkey);
			cerr_set(err, "%s: not an Ed25519 key", shown);
			goto out;
		}
		ks->k = xreallocarray(ks->k, ks->n + 1, sizeof(*ks->k));
		ks->k[ks->n].pkey = pkey;
		if (sig_keyid(pkey, ks->k[ks->n].id) == -1) {
			EVP_PKEY_free(pkey);
			cerr_set(err, "%s: bad public key", shown);
			goto out;
		}
		ks->n++;
		nkeys++;
		OPENSSL_free(name);
		OPENSSL_free(hdr);
		OPENSSL_free(der);
		name = hdr = NULL;
		der = NULL;
	}
	rc = 0;
out:
	OPENSSL_free(name);
	OPENSSL_free(hdr);
	OPENSSL_free(der);
	BIO_free(bio);
	buf_free(b);
	return rc;
}

static int
sig_namecmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Load every *.pub file of the directory path (in name order). */
static int
sig_loaddir(struct sigkeys *ks, const char *path, struct cerr *err)
{
	DIR		*d;
	struct dirent	*de;
	char		**names = NULL, shown[PATH_MAX + NAME_MAX + 2];
	size_t		 n = 0, i, l;
	int		 rc = -1;

	if ((d = opendir(path)) == NULL) {
		cerr_errno(err, "%s", path);
		return -1;
	}
	while ((errno = 0, de = readdir(d)) != NULL) {
		l = strlen(de->d_name);
		if (l <= 4 || strcmp(de->d_name + l - 4, ".pub") != 0)
			continue;
		if (n == SIG_DIRMAX) {
			cerr_set(err, "%s: more than %d key files", path,
			    SIG_DIRMAX);
			goto out;
		}
		names = xreallocarray(names, n + 1, sizeof(*names));
		names[n++] = xstrdup(de->d_name);
	}
	if (errno != 0) {
		cerr_errno(err, "%s", path);
		goto out;
	}
	if (n > 0)
		qsort(names, n, sizeof(*names), sig_namecmp);
	for (i = 0; i < n; i++) {
		snprintf(shown, sizeof(shown), "%s/%s", path, names[i]);
		if (sig_loadfile(ks, dirfd(d), names[i], shown, err) == -1)
			goto out;
	}
	rc = 0;
out:
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	closedir(d);
	return rc;
}

struct sigkeys *
sigkeys_load(const char *path, int required, struct cerr *err)
{
	struct sigkeys	*ks;
	struct stat	 st;

	ks = xcalloc(1, sizeof(*ks));
	if (stat(path, &st) == -1) {
		if (errno == ENOENT && !required)
			return ks;
		cerr_errno(err, "%s", path);
		goto fail;
	}
	if (S_ISDIR(st.st_mode)) {
		if (sig_loaddir(ks, path, err) == -1)
			goto fail;
		if (ks->n == 0 && required) {
			cerr_set(err, "%s: no public key (*.pub) in the "
			    "directory", path);
			goto fail;
		}
		return ks;
	}
	if (sig_loadfile(ks, AT_FDCWD, path, path, err) == -1)
		goto fail;
	return ks;
fail:
	sigkeys_free(ks);
	return NULL;
}

size_t
sigkeys_count(const struct sigkeys *ks)
{
	return ks != NULL ? ks->n : 0;
}

void
sigkeys_free(struct sigkeys *ks)
{
	size_t	 i;

	if (ks == NULL)
		return;
	for (i = 0; i < ks->n; i++)
		EVP_PKEY_free(ks->k[i].pkey);
	free(ks->k);
	free(ks);
}

/* The Ed25519 private key in the PEM text b (from keyfile), or NULL. */
static EVP_PKEY *
sig_readkey(const struct buf *b, const char *keyfile, struct cerr *err)
{
	BIO		*bio;
	EVP_PKEY	*pkey;

	if ((bio = BIO_new_mem_buf(buf_data(b), (int)buf_len(b))) == NULL)
		fatalx("out of memory");
	pkey = PEM_read_bio_PrivateKey(bio, NULL, NULL, NULL);
	BIO_free(bio);
	if (pkey == NULL) {
		ERR_clear_error();
		cerr_set(err, "%s: no PEM private key", keyfile);
		return NULL;
	}
	if (EVP_PKEY_get_id(pkey) != EVP_PKEY_ED25519) {
		EVP_PKEY_free(pkey);
		cerr_set(err, "%s: not an Ed25519 key", keyfile);
		return NULL;
	}
	return pkey;
}

int
sig_sign(const char *keyfile, const void *p, size_t len, struct buf *out,
    struct cerr *err)
{
	struct buf	*b;
	EVP_PKEY	*pkey = NULL;
	EVP_MD_CTX	*ctx = NULL;
	unsigned char	 sig[SIG_RAWLEN];
	char		 id[SIG_KEYIDLEN + 1], b64[SIG_B64LEN + 1];
	size_t		 siglen = sizeof(sig);
	int		 rc = -1;

	if (fs_read_private(keyfile, SIG_KEYFILEMAX, &b, err) == -1)
		return -1;
	pkey = sig_readkey(b, keyfile, err);
	OPENSSL_cleanse(buf_mutable(b), buf_len(b));
	buf_free(b);
	if (pkey == NULL)
		goto out;
	if (sig_keyid(pkey, id) == -1) {
		cerr_set(err, "%s: bad private key", keyfile);
		goto out;
	}
	if ((ctx = EVP_MD_CTX_new()) == NULL)
		fatalx("out of memory");
	if (EVP_DigestSignInit(ctx, NULL, NULL, NULL, pkey) != 1 ||
	    EVP_DigestSign(ctx, sig, &siglen, p, len) != 1 ||
	    siglen != SIG_RAWLEN) {
		ERR_clear_error();
		cerr_set(err, "%s: signing failed", keyfile);
		goto out;
	}
	cksum_b64(sig, siglen, b64);
	if (buf_printf(out, "%s %s %s\n", SIG_ALG, id, b64) == -1) {
		cerr_set(err, "signature file larger than %d bytes", SIG_MAX);
		goto out;
	}
	rc = 0;
out:
	EVP_MD_CTX_free(ctx);
	EVP_PKEY_free(pkey);
	return rc;
}

void
sig_file_begin(struct buf *out)
{
	(void)buf_printf(out, "%s\n", SIG_MAGIC);
}

void
sig_file_end(struct buf *out, size_t nlines)
{
	(void)buf_printf(out, "end %zu\n", nlines);
}

/* One parsed signature line. */
struct sigline {
	char		 id[SIG_KEYIDLEN + 1];
	unsigned char	 sig[SIG_RAWLEN];
};

/*
 * Parse the signature file into v (at most SIG_LINESMAX lines), *n the
 * count.  0, or -1 with "<source>: line N: <what>".
 */
static int
sig_parse(const char *s, size_t len, const char *source, struct sigline *v,
    size_t *n, struct cerr *err)
{
	const char	*p = s, *end = s + len, *nl, *f;
	char		 line[SIG_MAX + 1];
	size_t		 lineno = 0, ll, i, cnt;
	int		 ended = 0;

	*n = 0;
	while (p < end) {
		lineno++;
		if (ended) {
			cerr_set(err, "%s: line %zu: text after end", source,
			    lineno);
			return -1;
		}
		if ((nl = memchr(p, '\n', (size_t)(end - p))) == NULL) {
			cerr_set(err, "%s: line %zu: no newline at the end "
			    "(truncated)", source, lineno);
			return -1;
		}
		ll = (size_t)(nl - p);
		if (memchr(p, '\0', ll) != NULL) {
			cerr_set(err, "%s: line %zu: NUL byte", source,
			    lineno);
			return -1;
		}
		memcpy(line, p, ll);
		line[ll] = '\0';
		p = nl + 1;
		if (lineno == 1) {
			if (strcmp(line, SIG_MAGIC) != 0) {
				cerr_set(err, "%s: line 1: not a signature "
				    "file (\"%s\" expected)", source,
				    SIG_MAGIC);
				return -1;
			}
			continue;
		}
		if (strncmp(line, "end ", 4) == 0) {
			f = line + 4;
			cnt = 0;
			for (i = 0; f[i] >= '0' && f[i] <= '9' && i < 3; i++)
				cnt = cnt * 10 + (size_t)(f[i] - '0');
			if (i == 0 || f[i] != '\0' || (f[0] == '0' &&
			    i > 1) || cnt != *n) {
				cerr_set(err, "%s: line %zu: end: %zu "
				    "signatures counted", source, lineno, *n);
				return -1;
			}
			if (*n == 0) {
				cerr_set(err, "%s: line %zu: no signature",
				    source, lineno);
				return -1;
			}
			ended = 1;
			continue;
		}
		if (strncmp(line, SIG_ALG " ", sizeof(SIG_ALG)) != 0) {
			cerr_set(err, "%s: line %zu: not an %s signature",
			    source, lineno, SIG_ALG);
			return -1;
		}
		if (*n == SIG_LINESMAX) {
			cerr_set(err, "%s: line %zu: more than %d signatures",
			    source, lineno, SIG_LINESMAX);
			return -1;
		}
		f = line + sizeof(SIG_ALG);
		for (i = 0; i < SIG_KEYIDLEN; i++)
			if (!((f[i] >= '0' && f[i] <= '9') ||
			    (f[i] >= 'a' && f[i] <= 'f')))
				break;
		if (i != SIG_KEYIDLEN || f[i] != ' ') {
			cerr_set(err, "%s: line %zu: bad key id (%d lowercase "
			    "hex digits)", source, lineno, SIG_KEYIDLEN);
			return -1;
		}
		memcpy(v[*n].id, f, SIG_KEYIDLEN);
		v[*n].id[SIG_KEYIDLEN] = '\0';
		f += SIG_KEYIDLEN + 1;
		if (cksum_unb64(f, strlen(f), v[*n].sig, SIG_RAWLEN) == -1) {
			cerr_set(err, "%s: line %zu: bad signature (base64 of "
			    "%d bytes)", source, lineno, SIG_RAWLEN);
			return -1;
		}
		(*n)++;
	}
	if (!ended) {
		cerr_set(err, "%s: line %zu: missing end (truncated)", source,
		    lineno + 1);
		return -1;
	}
	return 0;
}

int
sig_verify(const struct sigkeys *keys, const void *sig, size_t siglen,
    const char *source, const void *p, size_t len, char *keyid,
    struct cerr *err)
{
	struct sigline	 v[SIG_LINESMAX];
	EVP_MD_CTX	*ctx;
	size_t		 n, i, j;
	int		 ok, good = 0;

	if (siglen > SIG_MAX) {
		cerr_set(err, "%s: larger than %d bytes", source, SIG_MAX);
		return -1;
	}
	if (sig_parse(sig, siglen, source, v, &n, err) == -1)
		return -1;
	for (i = 0; i < n; i++) {
		for (j = 0; keys != NULL && j < keys->n; j++) {
			if (strcmp(keys->k[j].id, v[i].id) != 0)
				continue;
			if ((ctx = EVP_MD_CTX_new()) == NULL)
				fatalx("out of memory");
			ok = EVP_DigestVerifyInit(ctx, NULL, NULL, NULL,
			    keys->k[j].pkey) == 1 &&
			    EVP_DigestVerify(ctx, v[i].sig, SIG_RAWLEN, p,
			    len) == 1;
			EVP_MD_CTX_free(ctx);
			ERR_clear_error();
			if (!ok) {
				cerr_set(err, "%s: bad signature by key %s",
				    source, v[i].id);
				return -1;
			}
			if (!good && keyid != NULL)
				memcpy(keyid, v[i].id, SIG_KEYIDLEN + 1);
			good = 1;
		}
	}
	if (!good) {
		cerr_set(err, "%s: not signed by a pinned key", source);
		return -1;
	}
	return 0;
}

int
sig_keyid_file(const char *path, char keyid[SIG_KEYIDLEN + 1],
    struct cerr *err)
{
	struct sigkeys	 ks;
	struct buf	*b;
	EVP_PKEY	*pkey;
	int		 rc = -1;

	memset(&ks, 0, sizeof(ks));
	if (fs_read_file(AT_FDCWD, path, SIG_KEYFILEMAX, &b) == -1) {
		cerr_errno(err, "%s", path);
		return -1;
	}
	if (strstr(buf_data(b), "-----BEGIN PRIVATE KEY-----") != NULL) {
		/* a private key: the id of its public half */
		pkey = sig_readkey(b, path, err);
		OPENSSL_cleanse(buf_mutable(b), buf_len(b));
		buf_free(b);
		if (pkey == NULL)
			return -1;
		rc = sig_keyid(pkey, keyid);
		EVP_PKEY_free(pkey);
		if (rc == -1)
			cerr_set(err, "%s: bad private key", path);
		return rc;
	}
	buf_free(b);
	if (sig_loadfile(&ks, AT_FDCWD, path, path, err) == -1)
		goto out;
	if (ks.n != 1) {
		cerr_set(err, "%s: %zu keys, one expected", path, ks.n);
		goto out;
	}
	memcpy(keyid, ks.k[0].id, SIG_KEYIDLEN + 1);
	rc = 0;
out:
	while (ks.n > 0)
		EVP_PKEY_free(ks.k[--ks.n].pkey);
	free(ks.k);
	return rc;
}

/* Write text to the new file path with mode. */
static int
sig_newfile(const char *path, mode_t mode, const char *text, size_t len,
    struct cerr *err)
{
	int	 fd;

	if ((fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, mode)) == -1) {
		cerr_errno(err, "%s", path);
		return -1;
	}
	if (fchmod(fd, mode) == -1 || fs_write_all(fd, text, len) == -1 ||
	    fsync(fd) == -1) {
		cerr_errno(err, "%s", path);
		close(fd);
		(void)unlink(path);
		return -1;
	}
	if (close(fd) == -1) {
		cerr_errno(err, "%s", path);
		(void)unlink(path);
		return -1;
	}
	return 0;
}

/* The PEM text of pkey's private (priv) or public key, malloc'd. */
static char *
sig_pem(EVP_PKEY *pkey, int priv, size_t *len)
{
	BIO	*bio;
	char	*data, *s;
	long	 n;

	if ((bio = BIO_new(BIO_s_mem())) == NULL)
		fatalx("out of memory");
	if ((priv ? PEM_write_bio_PrivateKey(bio, pkey, NULL, NULL, 0, NULL,
	    NULL) : PEM_write_bio_PUBKEY(bio, pkey)) != 1)
		fatalx("PEM_write_bio failed");
	n = BIO_get_mem_data(bio, &data);
	s = xmalloc((size_t)n + 1);
	memcpy(s, data, (size_t)n);
	s[n] = '\0';
	*len = (size_t)n;
	BIO_free(bio);
	return s;
}

int
sig_keygen(const char *priv, const char *pub, struct cerr *err)
{
	EVP_PKEY_CTX	*ctx;
	EVP_PKEY	*pkey = NULL;
	char		*ptext, *qtext;
	size_t		 plen, qlen;
	int		 rc = -1;

	if ((ctx = EVP_PKEY_CTX_new_id(EVP_PKEY_ED25519, NULL)) == NULL ||
	    EVP_PKEY_keygen_init(ctx) != 1 ||
	    EVP_PKEY_keygen(ctx, &pkey) != 1) {
		ERR_clear_error();
		EVP_PKEY_CTX_free(ctx);
		cerr_set(err, "Ed25519 key generation failed");
		return -1;
	}
	EVP_PKEY_CTX_free(ctx);
	ptext = sig_pem(pkey, 1, &plen);
	qtext = sig_pem(pkey, 0, &qlen);
	if (sig_newfile(priv, 0600, ptext, plen, err) == 0) {
		if (sig_newfile(pub, 0644, qtext, qlen, err) == 0)
			rc = 0;
		else
			(void)unlink(priv);
	}
	OPENSSL_cleanse(ptext, plen);
	free(ptext);
	free(qtext);
	EVP_PKEY_free(pkey);
	return rc;
}
