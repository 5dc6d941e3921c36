/*
 * fuzz_manifest.c: the release manifest's parser (common/manifest.c,
 * docs/formats.md section 15).
 *
 * The input is a manifest.  Checked, when it parses:
 *   - the values are in range: serial 1 to 2^63-1, created before
 *     expires, a digest of at least 256 bits, at most MANIFEST_ENTMAX
 *     entries, each with a valid name;
 *   - the format has one spelling per manifest: manifest_write gives
 *     back exactly the input bytes;
 *   - manifest_find finds every entry (the first of the stat entries
 *     that share its path), and manifest_match matches it by name and
 *     by kind alone.
 * An error always names the source.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cerr.h"
#include "manifest.h"
#include "fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct manifest			 m;
	struct cerr			 err;
	struct buf			*b;
	const struct manifest_ent	*e;
	size_t				 i;

	memset(&err, 0, sizeof(err));
	if (manifest_parse(data, size, "fz", &m, &err) == -1) {
		FUZZ_CHECK(strncmp(err.msg, "fz: ", 4) == 0);
		FUZZ_CHECK(m.ent == NULL && m.nent == 0);
		return 0;
	}
	FUZZ_CHECK(m.serial >= 1 && m.serial <= INT64_MAX);
	FUZZ_CHECK(m.created >= 0 && m.created < m.expires);
	FUZZ_CHECK(strcmp(m.digest, "sha256") == 0 ||
	    strcmp(m.digest, "sha384") == 0 ||
	    strcmp(m.digest, "sha512") == 0);
	FUZZ_CHECK(m.nent <= MANIFEST_ENTMAX);
	for (i = 0; i < m.nent; i++) {
		e = &m.ent[i];
		FUZZ_CHECK(e->name[0] != '\0' && e->name[0] != '/');
		FUZZ_CHECK(strstr(e->name, "//") == NULL);
		FUZZ_CHECK(strcmp(e->name, "..") != 0 &&
		    strncmp(e->name, "../", 3) != 0 &&
		    strstr(e->name, "/../") == NULL);
		if (e->kind != MANIFEST_STAT)
			FUZZ_CHECK(manifest_find(&m, e->kind, e->name) == e);
		else {
			/* the first of the stat entries of its path */
			FUZZ_CHECK(manifest_find(&m, e->kind, e->name) <= e);
			FUZZ_CHECK(e->meta != NULL);
		}
		FUZZ_CHECK(manifest_match(&m, e->kind, e->name, e->size,
		    e->digest) == 1);
		FUZZ_CHECK(manifest_match(&m, e->kind, NULL, e->size,
		    e->digest) == 1);
	}
	b = buf_new(MANIFEST_MAX);
	FUZZ_CHECK(manifest_write(&m, b, &err) == 0);
	FUZZ_CHECK(buf_len(b) == size &&
	    memcmp(buf_data(b), data, size) == 0);
	buf_free(b);
	manifest_free(&m);
	return 0;
}
