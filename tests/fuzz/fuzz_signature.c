/*
 * fuzz_signature.c: signature files (common/sig.c, docs/formats.md
 * section 15.2) verified against one pinned Ed25519 key.
 *
 * The input is a manifest and a signature file, split at the first
 * "\n%%\n" line (fuzz_parts; without one, the manifest is empty and the
 * input is the signature file).  The pinned key is fixed (below); the
 * seeds carry signatures its private key made:
 *
 *	-----BEGIN PRIVATE KEY-----
 *	MC4CAQAwBQYDK2VwBCIEILNfddtDoBtMGwEOVeN7FNJlnTaxFim88LzBXJchvyen
 *	-----END PRIVATE KEY-----
 *
 * (openssl pkeyutl -sign -rawin -inkey that -in manifest | base64 -w0).
 * Checked: a verified file names the pinned key's id, was at most
 * SIG_MAX bytes, and verifies again the same way; an error names the
 * source.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cerr.h"
#include "sig.h"
#include "fuzz.h"

static const char pub[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MCowBQYDK2VwAyEAh+WxKNoKym8RiCSwDN9DHFJHfsQBY+dSMqdbUaitYXE=\n"
    "-----END PUBLIC KEY-----\n";

static struct sigkeys	*keys;
static char		 pinned[SIG_KEYIDLEN + 1];

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	struct cerr	 err;
	char		*path;

	(void)argc;
	(void)argv;
	FUZZ_SETUP(asprintf(&path, "%s/pinned.pub", fuzz_tmpdir()) != -1);
	fuzz_writefile(path, (const uint8_t *)pub, sizeof(pub) - 1);
	keys = sigkeys_load(path, 1, &err);
	if (keys == NULL || sig_keyid_file(path, pinned, &err) == -1) {
		fprintf(stderr, "fuzz_signature: %s\n", err.msg);
		exit(2);
	}
	FUZZ_CHECK(sigkeys_count(keys) == 1);
	free(path);
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t	*part[2];
	size_t		 len[2];
	struct cerr	 err;
	char		 id[SIG_KEYIDLEN + 1];
	const uint8_t	*man, *sig;
	size_t		 mlen, slen;
	int		 rc;

	if (fuzz_parts(data, size, part, len, 2) == 2) {
		man = part[0];
		mlen = len[0];
		sig = part[1];
		slen = len[1];
	} else {
		man = (const uint8_t *)"";
		mlen = 0;
		sig = data;
		slen = size;
	}
	memset(&err, 0, sizeof(err));
	memset(id, 0, sizeof(id));
	rc = sig_verify(keys, sig, slen, "fz", man, mlen, id, &err);
	if (rc == -1) {
		FUZZ_CHECK(strncmp(err.msg, "fz: ", 4) == 0);
		return 0;
	}
	FUZZ_CHECK(rc == 0);
	FUZZ_CHECK(slen <= SIG_MAX);
	FUZZ_CHECK(strcmp(id, pinned) == 0);
	FUZZ_CHECK(sig_verify(keys, sig, slen, "fz", man, mlen, NULL,
	    &err) == 0);
	return 0;
}
