/*
 * sig.h: Ed25519 signatures of release manifests (docs/formats.md
 * section 15.2), through OpenSSL 3: key sets, signing, the detached
 * signature file, verification.
 */
#ifndef CAIRN_SIG_H
#define CAIRN_SIG_H

#include <stddef.h>

struct buf;
struct cerr;
struct sigkeys;		/* a set of public keys */

#define SIG_MAX		4096	/* the largest signature file */
#define SIG_LINESMAX	16	/* signatures in one file */
#define SIG_KEYIDLEN	16	/* hex digits of a key id */

/*
 * Load a key set: path is a PEM file of one or more public keys, or a
 * directory whose *.pub files are.  required: the path was named by the
 * user (missing or keyless is an error); otherwise (a default path) a
 * missing or empty directory gives an empty set.  NULL with err on error
 * (naming the file).  sigkeys_count: how many keys (0: none pinned).
 */
struct sigkeys	*sigkeys_load(const char *path, int required,
		    struct cerr *err);
size_t		 sigkeys_count(const struct sigkeys *);
void		 sigkeys_free(struct sigkeys *);	/* NULL is fine */

/*
 * Sign len bytes at p with the private key in PEM file keyfile, and
 * append one signature line ("ed25519 <keyid> <base64>\n") to out.
 * sig_file_begin/sig_file_end write the first and the last lines of a
 * signature file around such lines (end counts them).
 */
int	sig_sign(const char *keyfile, const void *p, size_t len,
	    struct buf *out, struct cerr *err);
void	sig_file_begin(struct buf *out);
void	sig_file_end(struct buf *out, size_t nlines);

/*
 * Verify the signature file (sig, siglen bytes; source names it in
 * errors) over the manifest bytes (p, len) with keys: 0 when a line by a
 * pinned key verifies and no line by a pinned key fails; keyid (if not
 * NULL, SIG_KEYIDLEN + 1 bytes) receives the first key that verified.
 * -1 with err otherwise ("not signed by a pinned key", "bad signature by
 * key <id>", a malformed file: "<source>: line N: ...").
 */
int	sig_verify(const struct sigkeys *keys, const void *sig, size_t siglen,
	    const char *source, const void *p, size_t len, char *keyid,
	    struct cerr *err);

/*
 * Make a new Ed25519 key pair: the private key in PEM file priv (mode
 * 0600) and its public key in pub, both new files (an existing file is
 * an error, never overwritten).  0 or -1 with err.
 */
int	sig_keygen(const char *priv, const char *pub, struct cerr *err);

/*
 * The key id of the public key in PEM file path (for cairn-sign -l); a
 * private key's file gives the id of its public key.
 */
int	sig_keyid_file(const char *path, char keyid[SIG_KEYIDLEN + 1],
	    struct cerr *err);

#endif
