/*
 * check_sig.c: Ed25519 signatures of manifests (common/sig.c,
 * docs/formats.md section 15.2): signing and verifying with keys made
 * here with OpenSSL, keys that are not pinned, bad signatures, malformed
 * signature files, and key sets.
 */
#include "config.h"

#include <sys/stat.h>

#include <openssl/evp.h>
#include <openssl/pem.h>

#include "buf.h"
#include "cerr.h"
#include "compat.h"
#include "sig.h"
#include "unit.h"

static char	*dir;
static char	 k1[PATH_MAX / 2], p1[PATH_MAX / 2], k2[PATH_MAX / 2];
static char	 p2[PATH_MAX / 2], pec[PATH_MAX / 2], kec[PATH_MAX / 2];

static const char manifest[] = "cairn-manifest 1\nserial 1\ncreated 1\n"
    "expires 2\ndigest sha256\nend 0\n";

/* Make a key pair of type (EVP_PKEY_ED25519, EVP_PKEY_EC) into PEMs. */
static void
mkkey(int type, const char *priv, const char *pub)
{
	EVP_PKEY_CTX	*ctx;
	EVP_PKEY	*pkey = NULL;
	FILE		*fp;

	ck_assert_ptr_nonnull(ctx = EVP_PKEY_CTX_new_id(type, NULL));
	ck_assert_int_eq(EVP_PKEY_keygen_init(ctx), 1);
	if (type == EVP_PKEY_EC)
		ck_assert_int_eq(EVP_PKEY_CTX_set_ec_paramgen_curve_nid(ctx,
		    NID_X9_62_prime256v1), 1);
	ck_assert_int_eq(EVP_PKEY_keygen(ctx, &pkey), 1);
	ck_assert_ptr_nonnull(fp = fopen(priv, "w"));
	ck_assert_int_eq(PEM_write_PrivateKey(fp, pkey, NULL, NULL, 0, NULL,
	    NULL), 1);
	fclose(fp);
	/* A private key is read only if no one else may read it. */
	ck_assert_int_eq(chmod(priv, 0600), 0);
	ck_assert_ptr_nonnull(fp = fopen(pub, "w"));
	ck_assert_int_eq(PEM_write_PUBKEY(fp, pkey), 1);
	fclose(fp);
	EVP_PKEY_free(pkey);
	EVP_PKEY_CTX_free(ctx);
}

static void
setup(void)
{
	dir = unit_mkdtemp();
	snprintf(k1, sizeof(k1), "%s/one.key", dir);
	snprintf(p1, sizeof(p1), "%s/one.pub", dir);
	snprintf(k2, sizeof(k2), "%s/two.key", dir);
	snprintf(p2, sizeof(p2), "%s/two.pub", dir);
	snprintf(kec, sizeof(kec), "%s/ec.key", dir);
	snprintf(pec, sizeof(pec), "%s/ec.pem", dir);
	mkkey(EVP_PKEY_ED25519, k1, p1);
	mkkey(EVP_PKEY_ED25519, k2, p2);
	mkkey(EVP_PKEY_EC, kec, pec);
}

static void
teardown(void)
{
	unit_rmtree(dir);
	free(dir);
}

static struct sigkeys *
load(const char *path, int required)
{
	struct sigkeys	*ks;
	struct cerr	 e;

	ks = sigkeys_load(path, required, &e);
	ck_assert_msg(ks != NULL, "%s", e.msg);
	return ks;
}

/* A signature file with a line by each key in keys (NULL ended). */
static struct buf *
sign(const char **keys, const void *p, size_t len)
{
	struct buf	*b = buf_new(SIG_MAX);
	struct cerr	 e;
	size_t		 n;

	sig_file_begin(b);
	for (n = 0; keys[n] != NULL; n++)
		ck_assert_msg(sig_sign(keys[n], p, len, b, &e) == 0, "%s",
		    e.msg);
	sig_file_end(b, n);
	return b;
}

static int
verify(const struct sigkeys *ks, const char *sig, size_t siglen,
    char *id, struct cerr *e)
{
	memset(e, 0, sizeof(*e));
	return sig_verify(ks, sig, siglen, "s", manifest,
	    sizeof(manifest) - 1, id, e);
}

START_TEST(test_sign_verify)
{
	const char	*keys[] = { k1, NULL };
	struct sigkeys	*ks = load(p1, 1);
	struct buf	*b = sign(keys, manifest, sizeof(manifest) - 1);
	struct cerr	 e;
	char		 id[SIG_KEYIDLEN + 1], id1[SIG_KEYIDLEN + 1];
	char		 idk[SIG_KEYIDLEN + 1];

	ck_assert_uint_eq(sigkeys_count(ks), 1);
	ck_assert_int_eq(sig_keyid_file(p1, id1, &e), 0);
	ck_assert_int_eq(sig_keyid_file(k1, idk, &e), 0);
	ck_assert_str_eq(id1, idk);
	ck_assert_uint_eq(strlen(id1), SIG_KEYIDLEN);
	ck_assert_msg(verify(ks, buf_data(b), buf_len(b), id, &e) == 0, "%s",
	    e.msg);
	ck_assert_str_eq(id, id1);
	/* the file: magic, one line, end 1 */
	ck_assert(strncmp(buf_data(b), "cairn-signature 1\ned25519 ",
	    26) == 0);
	ck_assert(strncmp(buf_data(b) + 26, id1, SIG_KEYIDLEN) == 0);
	ck_assert_ptr_nonnull(strstr(buf_data(b), "==\nend 1\n"));
	ck_assert_uint_eq(buf_len(b), 18 + 8 + 16 + 1 + 88 + 1 + 6);
	buf_free(b);
	sigkeys_free(ks);

	/* A private key others may read is not used. */
	ck_assert_int_eq(chmod(k1, 0644), 0);
	b = buf_new(SIG_MAX);
	ck_assert_int_eq(sig_sign(k1, manifest, sizeof(manifest) - 1, b, &e),
	    -1);
	ck_assert_msg(strstr(e.msg, "one.key: readable by others (mode "
	    "0644): refused as a private key") != NULL, "%s", e.msg);
	ck_assert_uint_eq(buf_len(b), 0);
	buf_free(b);
	ck_assert_int_eq(chmod(k1, 0600), 0);
}
END_TEST

START_TEST(test_unpinned)
{
	const char	*keys[] = { k2, NULL };
	struct sigkeys	*ks = load(p1, 1), *none;
	struct buf	*b = sign(keys, manifest, sizeof(manifest) - 1);
	struct cerr	 e;

	ck_assert_int_eq(verify(ks, buf_data(b), buf_len(b), NULL, &e), -1);
	ck_assert_str_eq(e.msg, "s: not signed by a pinned key");
	/* no key at all: nothing verifies */
	none = load("/nonexistent/cairn/keys", 0);
	ck_assert_uint_eq(sigkeys_count(none), 0);
	ck_assert_int_eq(verify(none, buf_data(b), buf_len(b), NULL, &e), -1);
	buf_free(b);
	sigkeys_free(ks);
	sigkeys_free(none);
}
END_TEST

/* Two lines: an unknown key's is ignored; a pinned key's must verify. */
START_TEST(test_rotation_and_bad)
{
	const char	*both[] = { k1, k2, NULL };
	struct sigkeys	*ks1 = load(p1, 1), *ks12;
	struct buf	*good, *other, *mixed;
	struct cerr	 e;
	char		 id2[SIG_KEYIDLEN + 1], want[128];
	const char	*l2, *o2;

	good = sign(both, manifest, sizeof(manifest) - 1);
	ck_assert_msg(verify(ks1, buf_data(good), buf_len(good), NULL,
	    &e) == 0, "%s", e.msg);

	/* key two's line signs another text: bad for whoever pins two */
	other = sign(both, "other", 5);
	mixed = buf_new(SIG_MAX);
	l2 = strchr(strchr(buf_data(good), '\n') + 1, '\n') + 1;
	o2 = strchr(strchr(buf_data(other), '\n') + 1, '\n') + 1;
	ck_assert_int_eq(buf_add(mixed, buf_data(good),
	    (size_t)(l2 - buf_data(good))), 0);
	ck_assert_int_eq(buf_add(mixed, o2, (size_t)(strchr(o2, '\n') + 1 -
	    o2)), 0);
	ck_assert_int_eq(buf_addstr(mixed, "end 2\n"), 0);
	ck_assert_msg(verify(ks1, buf_data(mixed), buf_len(mixed), NULL,
	    &e) == 0, "%s", e.msg);

	unit_write(dir, "both/a.pub", "");	/* makes the directory */
	ck_assert_int_eq(sig_keyid_file(p2, id2, &e), 0);
	{
		char	path[PATH_MAX], cmd[4 * PATH_MAX + 64];

		snprintf(path, sizeof(path), "%s/both", dir);
		snprintf(cmd, sizeof(cmd), "cat %s %s > %s/a.pub", p1, p2,
		    path);
		ck_assert_int_eq(system(cmd), 0);
		ks12 = load(path, 1);
	}
	ck_assert_uint_eq(sigkeys_count(ks12), 2);
	ck_assert_int_eq(verify(ks12, buf_data(mixed), buf_len(mixed), NULL,
	    &e), -1);
	snprintf(want, sizeof(want), "s: bad signature by key %s", id2);
	ck_assert_str_eq(e.msg, want);
	ck_assert_msg(verify(ks12, buf_data(good), buf_len(good), NULL,
	    &e) == 0, "%s", e.msg);
	buf_free(good);
	buf_free(other);
	buf_free(mixed);
	sigkeys_free(ks1);
	sigkeys_free(ks12);
}
END_TEST

START_TEST(test_manifest_changed)
{
	const char	*keys[] = { k1, NULL };
	struct sigkeys	*ks = load(p1, 1);
	struct buf	*b = sign(keys, manifest, sizeof(manifest) - 1);
	struct cerr	 e;
	char		 m2[sizeof(manifest)];
	size_t		 i;

	for (i = 0; i < sizeof(manifest) - 1; i += 7) {
		memcpy(m2, manifest, sizeof(m2));
		m2[i] ^= 0x01;
		ck_assert_int_eq(sig_verify(ks, buf_data(b), buf_len(b), "s",
		    m2, sizeof(m2) - 1, NULL, &e), -1);
		ck_assert_ptr_nonnull(strstr(e.msg, "bad signature by key"));
	}
	/* one byte more or less */
	ck_assert_int_eq(sig_verify(ks, buf_data(b), buf_len(b), "s",
	    manifest, sizeof(manifest) - 2, NULL, &e), -1);
	ck_assert_int_eq(sig_verify(ks, buf_data(b), buf_len(b), "s",
	    manifest, sizeof(manifest), NULL, &e), -1);
	buf_free(b);
	sigkeys_free(ks);
}
END_TEST

/* Replace the first occurrence of from in s by to, into out. */
static void
edit(const char *s, const char *from, const char *to, struct buf *out)
{
	const char	*p = strstr(s, from);

	ck_assert_ptr_nonnull(p);
	buf_reset(out);
	ck_assert_int_eq(buf_add(out, s, (size_t)(p - s)), 0);
	ck_assert_int_eq(buf_addstr(out, to), 0);
	ck_assert_int_eq(buf_addstr(out, p + strlen(from)), 0);
}

START_TEST(test_malformed)
{
	const char	*keys[] = { k1, NULL };
	struct sigkeys	*ks = load(p1, 1);
	struct buf	*b = sign(keys, manifest, sizeof(manifest) - 1);
	struct buf	*x = buf_new(4 * SIG_MAX);
	struct cerr	 e;
	char		 line[256], id[SIG_KEYIDLEN + 1], *sigpart;
	const char	*s = buf_data(b);
	int		 i;

	ck_assert_int_eq(sig_keyid_file(p1, id, &e), 0);
	sigpart = strchr(s + 18 + 8, ' ') + 1;

	edit(s, "cairn-signature 1", "cairn-signature 2", x);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_str_eq(e.msg, "s: line 1: not a signature file "
	    "(\"cairn-signature 1\" expected)");

	edit(s, "ed25519 ", "ed448 ", x);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_str_eq(e.msg, "s: line 2: not an ed25519 signature");

	/* base64: a bad character, a missing pad, stray bits, too short */
	strlcpy(line, sigpart, 89);
	line[10] = '*';
	strlcat(line, "\nend 1\n", sizeof(line));
	edit(s, sigpart, line, x);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "s: line 2: bad signature"));
	edit(s, "==\n", "=\n", x);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "s: line 2: bad signature"));
	edit(s, "==\n", "AA\n", x);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "s: line 2: bad signature"));
	edit(s, sigpart, "AAAA\nend 1\n", x);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "s: line 2: bad signature"));

	/* key ids: too short, too long, upper case */
	snprintf(line, sizeof(line), "%.15s ", id);
	edit(s, id, line, x);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "s: line 2: bad key id"));
	snprintf(line, sizeof(line), "%s0", id);
	edit(s, id, line, x);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "s: line 2: bad key id"));
	snprintf(line, sizeof(line), "%s", id);
	for (i = 0; line[i] != '\0'; i++)
		if (line[i] >= 'a' && line[i] <= 'f')
			line[i] -= 'a' - 'A';
	if (strcmp(line, id) != 0) {
		edit(s, id, line, x);
		ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL,
		    &e), -1);
	}

	/* end: wrong count, missing (truncated), 0, text after it */
	edit(s, "end 1\n", "end 2\n", x);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_str_eq(e.msg, "s: line 3: end: 1 signatures counted");
	edit(s, "end 1\n", "", x);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_str_eq(e.msg, "s: line 3: missing end (truncated)");
	edit(s, "end 1\n", "end 1", x);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "s: line 3: no newline"));
	edit(s, "end 1\n", "end 1\nend 1\n", x);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_str_eq(e.msg, "s: line 4: text after end");
	ck_assert_int_eq(verify(ks, "cairn-signature 1\nend 0\n", 24, NULL,
	    &e), -1);
	ck_assert_str_eq(e.msg, "s: line 2: no signature");
	ck_assert_int_eq(verify(ks, "", 0, NULL, &e), -1);

	/* SIG_LINESMAX lines: fine; one more: refused */
	{
		struct buf	*lines = buf_new(SIG_MAX);

		for (i = 0; i < SIG_LINESMAX; i++)
			ck_assert_int_eq(sig_sign(k1, manifest,
			    sizeof(manifest) - 1, lines, &e), 0);
		buf_reset(x);
		sig_file_begin(x);
		ck_assert_int_eq(buf_add(x, buf_data(lines),
		    buf_len(lines)), 0);
		sig_file_end(x, SIG_LINESMAX);
		ck_assert_msg(verify(ks, buf_data(x), buf_len(x), NULL,
		    &e) == 0, "%s", e.msg);
		ck_assert_int_eq(sig_sign(k1, manifest, sizeof(manifest) - 1,
		    lines, &e), 0);
		buf_reset(x);
		sig_file_begin(x);
		ck_assert_int_eq(buf_add(x, buf_data(lines),
		    buf_len(lines)), 0);
		sig_file_end(x, SIG_LINESMAX + 1);
		buf_free(lines);
	}
	ck_assert_uint_le(buf_len(x), SIG_MAX);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_str_eq(e.msg, "s: line 18: more than 16 signatures");

	/* over SIG_MAX: refused before a line is read */
	buf_reset(x);
	ck_assert_int_eq(buf_add(x, s, buf_len(b)), 0);
	while (buf_len(x) <= SIG_MAX)
		ck_assert_int_eq(buf_addc(x, '\n'), 0);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_str_eq(e.msg, "s: larger than 4096 bytes");

	/* a NUL byte */
	buf_reset(x);
	ck_assert_int_eq(buf_add(x, "cairn-signature 1\0\n", 19), 0);
	ck_assert_int_eq(verify(ks, buf_data(x), buf_len(x), NULL, &e), -1);
	ck_assert_str_eq(e.msg, "s: line 1: NUL byte");
	buf_free(x);
	buf_free(b);
	sigkeys_free(ks);
}
END_TEST

START_TEST(test_keysets)
{
	struct sigkeys	*ks;
	struct cerr	 e;
	char		 path[PATH_MAX], cmd[8 * PATH_MAX + 256];

	/* a file with two keys */
	snprintf(path, sizeof(path), "%s/two.pem", dir);
	snprintf(cmd, sizeof(cmd), "cat %s %s > %s", p1, p2, path);
	ck_assert_int_eq(system(cmd), 0);
	ks = load(path, 1);
	ck_assert_uint_eq(sigkeys_count(ks), 2);
	sigkeys_free(ks);

	/* a directory: *.pub only */
	snprintf(path, sizeof(path), "%s/keys", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	snprintf(cmd, sizeof(cmd), "cp %s %s/a.pub && cp %s %s/b.pub && "
	    "cp %s %s/c.pem && echo junk > %s/README && "
	    "echo junk > %s/b.pub.old", p1, path, p2, path, pec, path, path,
	    path);
	ck_assert_int_eq(system(cmd), 0);
	ks = load(path, 1);
	ck_assert_uint_eq(sigkeys_count(ks), 2);
	sigkeys_free(ks);

	/* a *.pub that does not parse: an error naming it */
	unit_write(dir, "keys/bad.pub", "not a key\n");
	ck_assert_ptr_null(sigkeys_load(path, 0, &e));
	ck_assert_msg(strstr(e.msg, "/keys/bad.pub: ") != NULL, "%s", e.msg);
	snprintf(cmd, sizeof(cmd), "%s/bad.pub", path);
	unlink(cmd);
	/* a private key where a public one is expected */
	snprintf(cmd, sizeof(cmd), "cp %s %s/priv.pub", k1, path);
	ck_assert_int_eq(system(cmd), 0);
	ck_assert_ptr_null(sigkeys_load(path, 1, &e));
	ck_assert_msg(strstr(e.msg, "/keys/priv.pub: PRIVATE KEY is not a "
	    "public key") != NULL, "%s", e.msg);

	/* an empty directory: no key; an error only if named */
	snprintf(path, sizeof(path), "%s/empty", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	ks = load(path, 0);
	ck_assert_uint_eq(sigkeys_count(ks), 0);
	sigkeys_free(ks);
	ck_assert_ptr_null(sigkeys_load(path, 1, &e));
	ck_assert_msg(strstr(e.msg, "/empty: no public key") != NULL, "%s",
	    e.msg);

	/* a missing path: likewise */
	snprintf(path, sizeof(path), "%s/missing", dir);
	ks = load(path, 0);
	ck_assert_uint_eq(sigkeys_count(ks), 0);
	sigkeys_free(ks);
	ck_assert_ptr_null(sigkeys_load(path, 1, &e));
	ck_assert_msg(strstr(e.msg, "/missing: No such file") != NULL, "%s",
	    e.msg);

	/* a PEM key that is not Ed25519, an empty file */
	ck_assert_ptr_null(sigkeys_load(pec, 1, &e));
	ck_assert_msg(strstr(e.msg, "/ec.pem: not an Ed25519 key") != NULL,
	    "%s", e.msg);
	ck_assert_ptr_null(sigkeys_load(pec, 0, &e));
	unit_write(dir, "empty.pem", "");
	snprintf(path, sizeof(path), "%s/empty.pem", dir);
	ck_assert_ptr_null(sigkeys_load(path, 1, &e));
	ck_assert_msg(strstr(e.msg, "/empty.pem: no PEM public key") != NULL,
	    "%s", e.msg);

	/* signing needs an Ed25519 private key */
	{
		struct buf	*b = buf_new(SIG_MAX);

		ck_assert_int_eq(sig_sign(kec, "x", 1, b, &e), -1);
		ck_assert_msg(strstr(e.msg, "ec.key: not an Ed25519 key") !=
		    NULL, "%s", e.msg);
		ck_assert_int_eq(sig_sign(p1, "x", 1, b, &e), -1);
		ck_assert_msg(strstr(e.msg, "one.pub: readable by others "
		    "(mode 0644): refused as a private key") != NULL, "%s",
		    e.msg);
		ck_assert_int_eq(chmod(p1, 0600), 0);
		ck_assert_int_eq(sig_sign(p1, "x", 1, b, &e), -1);
		ck_assert_msg(strstr(e.msg, "one.pub: no PEM private key") !=
		    NULL, "%s", e.msg);
		ck_assert_int_eq(chmod(p1, 0644), 0);
		ck_assert_uint_eq(buf_len(b), 0);
		buf_free(b);
	}
}
END_TEST

static Suite *
sig_suite(void)
{
	Suite	*s = suite_create("sig");
	TCase	*tc;

	tc = tcase_create("sig");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_sign_verify);
	tcase_add_test(tc, test_unpinned);
	tcase_add_test(tc, test_rotation_and_bad);
	tcase_add_test(tc, test_manifest_changed);
	tcase_add_test(tc, test_malformed);
	tcase_add_test(tc, test_keysets);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(sig_suite());
}
