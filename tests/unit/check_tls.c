/*
 * check_tls.c: TLS contexts and sessions (common/tls.c).  The test makes
 * its own CAs and certificates with OpenSSL's library, then runs real
 * handshakes between a client and a server session over a socketpair
 * in one process: setup errors naming the file, verification failures,
 * the name of a verified peer, CRLs, and TLS 1.2 as the minimum.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#ifdef HAVE_SYS_XATTR_H
#include <sys/xattr.h>
#endif

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "cerr.h"
#include "tls.h"
#include "unit.h"

static char	*top;		/* scratch directory: the PEM files */
static long	 serial = 1000;

/* top/name.ext into buf. */
static const char *
file(const char *name, const char *ext, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s.%s", top, name, ext);
	return buf;
}

/*
 * A CA or leaf certificate.  The key pair is made here; the subject has
 * the CN given (cnlen bytes, ASN.1 type cntype; cn NULL: no CN, or two
 * CNs "first" and cn with cntype -1), san is a subjectAltName value
 * (NULL: none); issued by ca (NULL: self-signed), valid from now - 1 h
 * for days days (negative: expired).  Written to top/name.crt and
 * top/name.key.
 */
struct pki {
	X509		*x;
	EVP_PKEY	*k;
	char		 crt[PATH_MAX], key[PATH_MAX];
};

static void
pki_write(struct pki *p, const char *name)
{
	FILE	*fp;

	ck_assert_ptr_nonnull(fp = fopen(file(name, "crt", p->crt,
	    sizeof(p->crt)), "w"));
	ck_assert_int_eq(PEM_write_X509(fp, p->x), 1);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_ptr_nonnull(fp = fopen(file(name, "key", p->key,
	    sizeof(p->key)), "w"));
	ck_assert_int_eq(PEM_write_PrivateKey(fp, p->k, NULL, NULL, 0, NULL,
	    NULL), 1);
	ck_assert_int_eq(fclose(fp), 0);
	/* A private key is read only if no one else may read it. */
	ck_assert_int_eq(chmod(p->key, 0600), 0);
}

static void
add_ext(X509 *x, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX	 ctx;
	X509_EXTENSION	*e;

	X509V3_set_ctx(&ctx, issuer, x, NULL, NULL, 0);
	e = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	ck_assert_msg(e != NULL, "extension %s", value);
	ck_assert_int_eq(X509_add_ext(x, e, -1), 1);
	X509_EXTENSION_free(e);
}

static void
mkcert(struct pki *p, const char *name, const char *cn, int cnlen,
    int cntype, const char *san, const struct pki *ca, int isca, int days)
{
	X509_NAME	*subj;
	X509		*issuer;
	EVP_PKEY	*signer;

	memset(p, 0, sizeof(*p));
	ck_assert_ptr_nonnull(p->k = EVP_EC_gen("P-256"));
	ck_assert_ptr_nonnull(p->x = X509_new());
	ck_assert_int_eq(X509_set_version(p->x, X509_VERSION_3), 1);
	ck_assert_int_eq(ASN1_INTEGER_set(X509_get_serialNumber(p->x),
	    serial++), 1);
	ck_assert_ptr_nonnull(X509_gmtime_adj(X509_getm_notBefore(p->x),
	    days < 0 ? (long)days * 2 * 86400 : -3600));
	ck_assert_ptr_nonnull(X509_gmtime_adj(X509_getm_notAfter(p->x),
	    (long)days * 86400));
	ck_assert_int_eq(X509_set_pubkey(p->x, p->k), 1);
	subj = X509_get_subject_name(p->x);
	if (cntype == -1) {
		ck_assert_int_eq(X509_NAME_add_entry_by_NID(subj,
		    NID_commonName, MBSTRING_ASC, (const unsigned char *)"first",
		    -1, -1, 0), 1);
		cntype = MBSTRING_ASC;
	}
	if (cn != NULL)
		ck_assert_int_eq(X509_NAME_add_entry_by_NID(subj,
		    NID_commonName, cntype, (const unsigned char *)cn, cnlen,
		    -1, 0), 1);
	else
		ck_assert_int_eq(X509_NAME_add_entry_by_txt(subj, "O",
		    MBSTRING_ASC, (const unsigned char *)"cairn tests", -1, -1,
		    0), 1);
	issuer = ca != NULL ? ca->x : p->x;
	signer = ca != NULL ? ca->k : p->k;
	ck_assert_int_eq(X509_set_issuer_name(p->x,
	    X509_get_subject_name(issuer)), 1);
	if (isca) {
		add_ext(p->x, issuer, NID_basic_constraints, "critical,CA:TRUE");
		add_ext(p->x, issuer, NID_key_usage,
		    "critical,keyCertSign,cRLSign");
	} else
		add_ext(p->x, issuer, NID_basic_constraints, "CA:FALSE");
	if (san != NULL)
		add_ext(p->x, issuer, NID_subject_alt_name, san);
	ck_assert_int_gt(X509_sign(p->x, signer, EVP_sha256()), 0);
	pki_write(p, name);
}

#define CN(s)	(s), (int)sizeof(s) - 1, MBSTRING_ASC

static void
pki_free(struct pki *p)
{
	X509_free(p->x);
	EVP_PKEY_free(p->k);
}

/*
 * A CRL of ca revoking the certificate given (NULL: none), written to
 * top/name.pem, or added to it with mode "a".
 */
static const char *
mkcrl(const struct pki *ca, const char *name, const struct pki *revoked,
    const char *mode, char *buf, size_t len)
{
	X509_CRL	*crl;
	X509_REVOKED	*r;
	ASN1_TIME	*t;
	FILE		*fp;

	ck_assert_ptr_nonnull(crl = X509_CRL_new());
	ck_assert_int_eq(X509_CRL_set_version(crl, X509_CRL_VERSION_2), 1);
	ck_assert_int_eq(X509_CRL_set_issuer_name(crl,
	    X509_get_subject_name(ca->x)), 1);
	ck_assert_ptr_nonnull(t = X509_gmtime_adj(NULL, -3600));
	ck_assert_int_eq(X509_CRL_set1_lastUpdate(crl, t), 1);
	ASN1_TIME_free(t);
	ck_assert_ptr_nonnull(t = X509_gmtime_adj(NULL, 86400));
	ck_assert_int_eq(X509_CRL_set1_nextUpdate(crl, t), 1);
	ASN1_TIME_free(t);
	if (revoked != NULL) {
		ck_assert_ptr_nonnull(r = X509_REVOKED_new());
		ck_assert_int_eq(X509_REVOKED_set_serialNumber(r,
		    X509_get_serialNumber(revoked->x)), 1);
		ck_assert_ptr_nonnull(t = X509_gmtime_adj(NULL, -60));
		ck_assert_int_eq(X509_REVOKED_set_revocationDate(r, t), 1);
		ASN1_TIME_free(t);
		ck_assert_int_eq(X509_CRL_add0_revoked(crl, r), 1);
	}
	ck_assert_int_eq(X509_CRL_sort(crl), 1);
	ck_assert_int_gt(X509_CRL_sign(crl, ca->k, EVP_sha256()), 0);
	ck_assert_ptr_nonnull(fp = fopen(file(name, "pem", buf, len), mode));
	ck_assert_int_eq(PEM_write_X509_CRL(fp, crl), 1);
	ck_assert_int_eq(fclose(fp), 0);
	X509_CRL_free(crl);
	return buf;
}

/*
 * The fixtures every test shares: ca issues "server" (server.test and
 * 127.0.0.1) and "client" (CN client.test); other is a second CA that
 * issues "stranger".
 */
static struct pki	 ca, other, server, client, stranger;

static void
setup(void)
{
	top = unit_mkdtemp();
	mkcert(&ca, "ca", CN("cairn test CA"), NULL, NULL, 1, 30);
	mkcert(&other, "other", CN("another CA"), NULL, NULL, 1, 30);
	mkcert(&server, "server", CN("server.test"),
	    "DNS:server.test,IP:127.0.0.1", &ca, 0, 30);
	mkcert(&client, "client", CN("client.test"), NULL, &ca, 0, 30);
	mkcert(&stranger, "stranger", CN("server.test"),
	    "DNS:server.test,DNS:client.test", &other, 0, 30);
}

static void
teardown(void)
{
	pki_free(&ca);
	pki_free(&other);
	pki_free(&server);
	pki_free(&client);
	pki_free(&stranger);
	unit_rmtree(top);
	free(top);
}

static struct tlsctx *
srvctx(int level, const struct pki *leaf, const char *crl)
{
	struct tlsconf	 tc;
	struct cerr	 err = { "" };
	struct tlsctx	*t;

	memset(&tc, 0, sizeof(tc));
	tc.level = level;
	tc.cert = leaf->crt;
	tc.key = leaf->key;
	tc.cafile = ca.crt;
	tc.crl = crl;
	t = tlsctx_server(&tc, &err);
	ck_assert_msg(t != NULL, "server context: %s", err.msg);
	return t;
}

static struct tlsctx *
clictx(int level, const struct pki *leaf, const struct pki *trust)
{
	struct tlsconf	 tc;
	struct cerr	 err = { "" };
	struct tlsctx	*t;

	memset(&tc, 0, sizeof(tc));
	tc.level = level;
	tc.cafile = trust->crt;
	if (leaf != NULL) {
		tc.cert = leaf->crt;
		tc.key = leaf->key;
	}
	t = tlsctx_client(&tc, &err);
	ck_assert_msg(t != NULL, "client context: %s", err.msg);
	return t;
}

/* One end of a handshake: a session of ours, or a bare OpenSSL one. */
struct side {
	struct tls	*t;
	SSL		*raw;
	int		 fd;
	int		 rc;		/* 1 under way, 0 done, -1 failed */
	const char	*host;		/* what the client checks */
	struct cerr	 err;
};

static int
side_step(struct side *s)
{
	int	 r;

	if (s->raw == NULL)
		return tls_handshake(s->t, &s->err);
	if ((r = SSL_do_handshake(s->raw)) == 1)
		return 0;
	switch (SSL_get_error(s->raw, r)) {
	case SSL_ERROR_WANT_READ:
		return TLS_WANTREAD;
	case SSL_ERROR_WANT_WRITE:
		return TLS_WANTWRITE;
	default:
		ERR_clear_error();
		cerr_set(&s->err, "raw handshake failed");
		return -1;
	}
}

/*
 * Run both ends until each is done or has failed (a failed end shuts
 * its socket, so the other sees the end), within 2000 rounds and 30 s.
 */
static void
pump(struct side *c, struct side *s)
{
	struct side	*sd[2] = { c, s };
	struct pollfd	 pfd[2];
	time_t		 t0 = time(NULL);
	int		 round, i, r, moved;

	c->rc = s->rc = 1;
	for (round = 0; round < 2000 && time(NULL) - t0 < 30; round++) {
		moved = 0;
		for (i = 0; i < 2; i++) {
			if (sd[i]->rc != 1)
				continue;
			r = side_step(sd[i]);
			if (r == TLS_WANTREAD || r == TLS_WANTWRITE)
				continue;
			sd[i]->rc = r;
			moved = 1;
			if (r == -1)
				(void)shutdown(sd[i]->fd, SHUT_RDWR);
		}
		if (c->rc != 1 && s->rc != 1)
			return;
		if (!moved) {
			pfd[0].fd = c->fd;
			pfd[1].fd = s->fd;
			pfd[0].events = pfd[1].events = POLLIN;
			(void)poll(pfd, 2, 100);
		}
	}
	ck_abort_msg("handshake did not end: client %d, server %d", c->rc,
	    s->rc);
}

static int	 sv[2];

static void
sockets(void)
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	ck_assert_int_eq(fcntl(sv[0], F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
}

/*
 * A handshake between a client context (host name host) and a server
 * context; the sessions are left in c and s for the caller to free.
 */
static void
handshake(struct tlsctx *cctx, const char *host, struct tlsctx *sctx,
    struct side *c, struct side *s)
{
	struct cerr	 err;

	memset(c, 0, sizeof(*c));
	memset(s, 0, sizeof(*s));
	sockets();
	c->fd = sv[0];
	s->fd = sv[1];
	c->host = s->host = host;
	c->t = tls_new(cctx, sv[0], host, &err);
	ck_assert_msg(c->t != NULL, "tls_new: %s", err.msg);
	s->t = tls_new(sctx, sv[1], NULL, &err);
	ck_assert_msg(s->t != NULL, "tls_new: %s", err.msg);
	pump(c, s);
}

static void
sides_free(struct side *c, struct side *s)
{
	tls_free(c->t);
	tls_free(s->t);
	if (c->raw != NULL)
		SSL_free(c->raw);
	if (s->raw != NULL)
		SSL_free(s->raw);
	close(c->fd);
	close(s->fd);
}

/* Both ends succeed; or the client must fail with words in its message. */
static void
expect_ok(struct side *c, struct side *s)
{
	ck_assert_msg(c->rc == 0, "client: %s", c->err.msg);
	ck_assert_msg(s->rc == 0, "server: %s", s->err.msg);
}

static void
expect_fail(struct side *x, const char *who, const char *words)
{
	ck_assert_msg(x->rc == -1, "%s, host %s: handshake succeeded", who,
	    x->host);
	ck_assert_msg(strstr(x->err.msg, words) != NULL, "%s, host %s: \"%s\" "
	    "lacks \"%s\"", who, x->host, x->err.msg, words);
}

/* The message of a context that cannot be made. */
static const char *
srv_fails(int level, const char *cert, const char *key, const char *cafile,
    const char *cadir, const char *crl)
{
	static struct cerr	 err;
	struct tlsconf		 tc;

	memset(&tc, 0, sizeof(tc));
	tc.level = level;
	tc.cert = cert;
	tc.key = key;
	tc.cafile = cafile;
	tc.cadir = cadir;
	tc.crl = crl;
	err.msg[0] = '\0';
	ck_assert_ptr_null(tlsctx_server(&tc, &err));
	ck_assert_str_ne(err.msg, "");
	return err.msg;
}

static const char *
cli_fails(int level, const char *cert, const char *key, const char *cafile,
    const char *cadir)
{
	static struct cerr	 err;
	struct tlsconf		 tc;

	memset(&tc, 0, sizeof(tc));
	tc.level = level;
	tc.cert = cert;
	tc.key = key;
	tc.cafile = cafile;
	tc.cadir = cadir;
	err.msg[0] = '\0';
	ck_assert_ptr_null(tlsctx_client(&tc, &err));
	ck_assert_str_ne(err.msg, "");
	return err.msg;
}

/* msg begins with "path: " and holds words. */
static void
names(const char *msg, const char *path, const char *words)
{
	ck_assert_msg(strncmp(msg, path, strlen(path)) == 0 &&
	    msg[strlen(path)] == ':', "\"%s\" does not begin with %s", msg,
	    path);
	ck_assert_msg(strstr(msg, words) != NULL, "\"%s\" lacks \"%s\"", msg,
	    words);
}

/*
 * A private key another user may read or change is refused, and one
 * owned by another user (not root); its group may read it.
 */
#ifdef HAVE_SYS_XATTR_H
/*
 * Give path an access ACL (the kernel's xattr form, little-endian: a
 * version, then tag, permissions and id per entry, sorted by tag):
 * owner rw, user uid r, group r, mask r, others nothing.
 */
static int
acl_user_read(const char *path, unsigned uid)
{
	static const unsigned	 tag[5] = { 0x01, 0x02, 0x04, 0x10, 0x20 };
	static const unsigned	 perm[5] = { 6, 4, 4, 4, 0 };
	unsigned char		 b[4 + 5 * 8], *p;
	unsigned long		 id;
	int			 i, k;

	memset(b, 0, sizeof(b));
	b[0] = 2;
	for (i = 0; i < 5; i++) {
		p = b + 4 + 8 * i;
		p[0] = (unsigned char)tag[i];
		p[2] = (unsigned char)perm[i];
		id = tag[i] == 0x02 ? uid : 0xffffffffUL;
		for (k = 0; k < 4; k++)
			p[4 + k] = (unsigned char)(id >> (8 * k));
	}
	return setxattr(path, "system.posix_acl_access", b, sizeof(b), 0);
}
#endif

START_TEST(test_key_private)
{
	struct tlsconf	 tc;
	struct tlsctx	*t;
	struct cerr	 err;

	ck_assert_int_eq(chmod(server.key, 0644), 0);
	names(srv_fails(1, server.crt, server.key, NULL, NULL, NULL),
	    server.key, "readable by others (mode 0644): refused as a "
	    "private key");
	ck_assert_int_eq(chmod(server.key, 0620), 0);
	names(srv_fails(1, server.crt, server.key, NULL, NULL, NULL),
	    server.key, "writable by others (mode 0620)");
	ck_assert_int_eq(chmod(client.key, 0602), 0);
	names(cli_fails(2, client.crt, client.key, ca.crt, NULL), client.key,
	    "writable by others (mode 0602)");
	ck_assert_int_eq(chmod(client.key, 0600), 0);
	ck_assert_int_eq(chmod(server.key, 0640), 0);
	memset(&tc, 0, sizeof(tc));
	tc.level = 1;
	tc.cert = server.crt;
	tc.key = server.key;
	ck_assert_msg((t = tlsctx_server(&tc, &err)) != NULL, "%s", err.msg);
	tlsctx_free(t);
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(server.key, 65534, (gid_t)-1), 0);
		names(srv_fails(1, server.crt, server.key, NULL, NULL, NULL),
		    server.key, "owned by uid 65534, neither root nor this "
		    "user: refused as a private key");
		ck_assert_int_eq(chown(server.key, 0, (gid_t)-1), 0);
	}
	ck_assert_int_eq(chmod(server.key, 0600), 0);
#ifdef HAVE_SYS_XATTR_H
	/* Mode 0640, but an ACL lets uid 65534 read it. */
	if (acl_user_read(server.key, 65534) == 0) {
		names(srv_fails(1, server.crt, server.key, NULL, NULL, NULL),
		    server.key, "has an access ACL: refused as a private key");
		ck_assert_int_eq(removexattr(server.key,
		    "system.posix_acl_access"), 0);
		ck_assert_int_eq(chmod(server.key, 0600), 0);
	} else
		ck_assert_msg(errno == ENOTSUP || errno == EOPNOTSUPP,
		    "setxattr %s: %s", server.key, strerror(errno));
#endif
}
END_TEST

START_TEST(test_ctx_errors)
{
	struct tlsconf	 tc;
	struct tlsctx	*t;
	struct cerr	 err;
	char		 missing[PATH_MAX], junk[PATH_MAX];

	file("missing", "pem", missing, sizeof(missing));
	unit_write(top, "junk.pem", "-----BEGIN CERTIFICATE-----\nnot one\n"
	    "-----END CERTIFICATE-----\n");
	file("junk", "pem", junk, sizeof(junk));
	ck_assert_int_eq(chmod(junk, 0600), 0);

	ck_assert_str_eq(srv_fails(0, server.crt, server.key, NULL, NULL,
	    NULL), "0: invalid authorization level");
	ck_assert_str_eq(srv_fails(5, server.crt, server.key, NULL, NULL,
	    NULL), "5: invalid authorization level");
	ck_assert_str_eq(cli_fails(3, NULL, NULL, ca.crt, NULL),
	    "3: invalid authorization level");
	ck_assert_str_eq(cli_fails(0, NULL, NULL, ca.crt, NULL),
	    "0: invalid authorization level");

	/* The certificate, the key, a key of another certificate. */
	names(srv_fails(1, missing, server.key, NULL, NULL, NULL), missing,
	    "cannot load certificate");
	names(srv_fails(1, junk, server.key, NULL, NULL, NULL), junk,
	    "cannot load certificate");
	names(srv_fails(1, server.crt, missing, NULL, NULL, NULL), missing,
	    "No such file or directory");
	names(srv_fails(1, server.crt, junk, NULL, NULL, NULL), junk,
	    "private key");
	names(srv_fails(1, server.crt, client.key, NULL, NULL, NULL),
	    client.key, "private key");
	names(cli_fails(2, client.crt, server.key, ca.crt, NULL), server.key,
	    "private key");
	names(cli_fails(2, missing, client.key, ca.crt, NULL), missing,
	    "cannot load certificate");

	/* The CA file or directory. */
	names(srv_fails(2, server.crt, server.key, missing, NULL, NULL),
	    missing, "cannot load CA file");
	names(srv_fails(2, server.crt, server.key, junk, NULL, NULL), junk,
	    "cannot load CA file");
	names(cli_fails(1, NULL, NULL, missing, NULL), missing,
	    "cannot load CA file");
	names(cli_fails(1, NULL, NULL, NULL, ca.crt), ca.crt,
	    "not a directory");
	names(cli_fails(1, NULL, NULL, NULL, missing), missing,
	    "not a directory");

	/* A CRL that is not there, or no CRL. */
	names(srv_fails(3, server.crt, server.key, ca.crt, NULL, missing),
	    missing, "cannot load CRL");
	names(srv_fails(3, server.crt, server.key, ca.crt, NULL, junk), junk,
	    "cannot load CRL");

	/* The client's default CA file, when it is not there. */
	if (access(_RADMIND_PATH "/cert/ca.pem", F_OK) == -1)
		names(cli_fails(1, NULL, NULL, NULL, NULL),
		    _RADMIND_PATH "/cert/ca.pem", "cannot load CA file");

	/* What works: a CA directory, no CA at level 1. */
	memset(&tc, 0, sizeof(tc));
	tc.level = 1;
	tc.cadir = top;
	ck_assert_ptr_nonnull(t = tlsctx_client(&tc, &err));
	tlsctx_free(t);
	tc.cadir = NULL;
	tc.cert = server.crt;
	tc.key = server.key;
	ck_assert_ptr_nonnull(t = tlsctx_server(&tc, &err));
	/* A client session needs a name to check. */
	tlsctx_free(t);
	t = clictx(1, NULL, &ca);
	ck_assert_ptr_null(tls_new(t, 0, NULL, &err));
	ck_assert_str_eq(err.msg, "no host name to verify the server "
	    "certificate against");
	ck_assert_ptr_null(tls_new(t, 0, "", &err));
	tlsctx_free(t);
	tlsctx_free(NULL);
	tls_free(NULL);
	tls_close(NULL);
}
END_TEST

/* Read from t on fd, waiting for the socket (100 waits of 1 s at most). */
static ssize_t
read_wait(struct tls *t, int fd, char *buf, size_t len)
{
	struct pollfd	 pfd;
	struct cerr	 err;
	ssize_t		 n = TLS_WANTREAD;
	int		 i;

	for (i = 0; i < 100; i++) {
		if ((n = tls_read(t, buf, len, &err)) != TLS_WANTREAD)
			break;
		pfd.fd = fd;
		pfd.events = POLLIN;
		(void)poll(&pfd, 1, 1000);
	}
	return n;
}

/* A whole session: handshake, data both ways, close_notify. */
START_TEST(test_session)
{
	struct tlsctx	*cctx, *sctx;
	struct side	 c, s;
	struct cerr	 err;
	char		 buf[64], desc[128];

	cctx = clictx(1, NULL, &ca);
	sctx = srvctx(1, &server, NULL);
	handshake(cctx, "server.test", sctx, &c, &s);
	expect_ok(&c, &s);
	ck_assert_str_eq(tls_describe(c.t, desc, sizeof(desc)),
	    tls_describe(s.t, buf, sizeof(buf)));
	ck_assert_msg(strncmp(desc, "TLSv1.3 TLS_", 12) == 0, "%s", desc);
	/* The client knows the server's name; the server no client's. */
	ck_assert_str_eq(tls_peer_name(c.t), "server.test");
	ck_assert_ptr_null(tls_peer_name(s.t));

	ck_assert_int_eq(tls_write(c.t, "STAT a.T\r\n", 10, &err), 10);
	ck_assert_int_eq(read_wait(s.t, s.fd, buf, sizeof(buf)), 10);
	ck_assert_mem_eq(buf, "STAT a.T\r\n", 10);
	ck_assert_int_eq(tls_write(s.t, "230 ok\r\n", 8, &err), 8);
	ck_assert_int_eq(read_wait(c.t, c.fd, buf, sizeof(buf)), 8);
	ck_assert_mem_eq(buf, "230 ok\r\n", 8);
	/* Nothing more yet: wait, not end. */
	ck_assert_int_eq(tls_read(c.t, buf, sizeof(buf), &err), TLS_WANTREAD);

	/* close_notify: the end of the stream, 0. */
	tls_close(c.t);
	tls_close(c.t);
	ck_assert_int_eq(read_wait(s.t, s.fd, buf, sizeof(buf)), 0);
	sides_free(&c, &s);

	/* An IP literal is checked against the IP addresses named. */
	handshake(cctx, "127.0.0.1", sctx, &c, &s);
	expect_ok(&c, &s);
	sides_free(&c, &s);
	tlsctx_free(cctx);
	tlsctx_free(sctx);
}
END_TEST

/* The client refuses a server it cannot verify, saying why. */
START_TEST(test_verify_server)
{
	struct tlsctx	*cctx, *sctx;
	struct side	 c, s;
	struct pki	 p;

	cctx = clictx(1, NULL, &ca);

	/* Another CA's certificate. */
	sctx = srvctx(1, &stranger, NULL);
	handshake(cctx, "server.test", sctx, &c, &s);
	expect_fail(&c, "client", "certificate verification failed");
	ck_assert_int_eq(s.rc, -1);
	sides_free(&c, &s);
	tlsctx_free(sctx);

	sctx = srvctx(1, &server, NULL);
	/* Another name, another address. */
	handshake(cctx, "other.test", sctx, &c, &s);
	expect_fail(&c, "client", "hostname mismatch");
	sides_free(&c, &s);
	handshake(cctx, "127.0.0.2", sctx, &c, &s);
	expect_fail(&c, "client", "IP address mismatch");
	sides_free(&c, &s);
	handshake(cctx, "::1", sctx, &c, &s);
	expect_fail(&c, "client", "IP address mismatch");
	sides_free(&c, &s);
	/* The name is not matched by a prefix or a suffix. */
	handshake(cctx, "server.tes", sctx, &c, &s);
	expect_fail(&c, "client", "hostname mismatch");
	sides_free(&c, &s);
	handshake(cctx, "xserver.test", sctx, &c, &s);
	expect_fail(&c, "client", "hostname mismatch");
	sides_free(&c, &s);
	tlsctx_free(sctx);

	/* Wildcards: a whole label only. */
	mkcert(&p, "wild", CN("wild"), "DNS:*.example.test", &ca, 0, 30);
	sctx = srvctx(1, &p, NULL);
	handshake(cctx, "a.example.test", sctx, &c, &s);
	expect_ok(&c, &s);
	sides_free(&c, &s);
	handshake(cctx, "a.b.example.test", sctx, &c, &s);
	expect_fail(&c, "client", "hostname mismatch");
	sides_free(&c, &s);
	tlsctx_free(sctx);
	pki_free(&p);
	mkcert(&p, "partial", CN("partial"), "DNS:a*.example.test", &ca, 0, 30);
	sctx = srvctx(1, &p, NULL);
	handshake(cctx, "ab.example.test", sctx, &c, &s);
	expect_fail(&c, "client", "hostname mismatch");
	sides_free(&c, &s);
	tlsctx_free(sctx);
	pki_free(&p);

	/* Expired; self-signed. */
	mkcert(&p, "expired", CN("server.test"), "DNS:server.test", &ca, 0, -1);
	sctx = srvctx(1, &p, NULL);
	handshake(cctx, "server.test", sctx, &c, &s);
	expect_fail(&c, "client", "certificate has expired");
	sides_free(&c, &s);
	tlsctx_free(sctx);
	pki_free(&p);
	mkcert(&p, "self", CN("server.test"), "DNS:server.test", NULL, 0, 30);
	sctx = srvctx(1, &p, NULL);
	handshake(cctx, "server.test", sctx, &c, &s);
	expect_fail(&c, "client", "certificate verification failed");
	sides_free(&c, &s);
	tlsctx_free(sctx);
	pki_free(&p);
	tlsctx_free(cctx);
}
END_TEST

/* Server level 2: a client certificate is required and verified. */
START_TEST(test_verify_client)
{
	struct tlsctx	*cctx, *sctx;
	struct side	 c, s;
	char		 buf[16];

	sctx = srvctx(2, &server, NULL);

	cctx = clictx(2, &client, &ca);
	handshake(cctx, "server.test", sctx, &c, &s);
	expect_ok(&c, &s);
	ck_assert_str_eq(tls_peer_name(s.t), "client.test");
	ck_assert_str_eq(tls_peer_name(s.t), "client.test");
	sides_free(&c, &s);
	tlsctx_free(cctx);

	/*
	 * None at all (client level 1).  With TLS 1.3 the client is done
	 * before the server has judged it: it learns at its first read.
	 */
	cctx = clictx(1, NULL, &ca);
	handshake(cctx, "server.test", sctx, &c, &s);
	ck_assert_int_eq(s.rc, -1);
	ck_assert(s.err.msg[0] != '\0');
	if (c.rc == 0)
		ck_assert_int_eq(read_wait(c.t, c.fd, buf, sizeof(buf)), -1);
	sides_free(&c, &s);
	tlsctx_free(cctx);

	/* One from another CA. */
	cctx = clictx(2, &stranger, &ca);
	handshake(cctx, "server.test", sctx, &c, &s);
	expect_fail(&s, "server", "certificate verification failed");
	sides_free(&c, &s);
	tlsctx_free(cctx);
	tlsctx_free(sctx);

	/* Level 1 asks for none, and names none. */
	sctx = srvctx(1, &server, NULL);
	cctx = clictx(2, &client, &ca);
	handshake(cctx, "server.test", sctx, &c, &s);
	expect_ok(&c, &s);
	ck_assert_ptr_null(tls_peer_name(s.t));
	sides_free(&c, &s);
	tlsctx_free(cctx);
	tlsctx_free(sctx);
}
END_TEST

/* The name the server sees for a client certificate made as told. */
static const char *
client_name(const char *cn, int cnlen, int cntype, const char *san,
    char *buf, size_t len)
{
	struct tlsctx	*cctx, *sctx;
	struct side	 c, s;
	struct pki	 p;
	const char	*name;

	mkcert(&p, "peer", cn, cnlen, cntype, san, &ca, 0, 30);
	sctx = srvctx(2, &server, NULL);
	cctx = clictx(2, &p, &ca);
	handshake(cctx, "server.test", sctx, &c, &s);
	expect_ok(&c, &s);
	name = tls_peer_name(s.t);
	if (name != NULL)
		snprintf(buf, len, "%s", name);
	sides_free(&c, &s);
	tlsctx_free(cctx);
	tlsctx_free(sctx);
	pki_free(&p);
	return name != NULL ? buf : NULL;
}

START_TEST(test_peer_name)
{
	char	 b[300], big[256];

	/* The CN, also when there are DNS names; the last of several CNs. */
	ck_assert_str_eq(client_name(CN("host-1.example"), NULL, b,
	    sizeof(b)), "host-1.example");
	ck_assert_str_eq(client_name(CN("cn.example"),
	    "DNS:san.example", b, sizeof(b)), "cn.example");
	ck_assert_str_eq(client_name("second", 6, -1, NULL, b, sizeof(b)),
	    "second");
	ck_assert_str_eq(client_name("utf8.example", 12, V_ASN1_UTF8STRING,
	    NULL, b, sizeof(b)), "utf8.example");

	/* No CN: the first DNS name, past other kinds of name. */
	ck_assert_str_eq(client_name(NULL, 0, 0,
	    "IP:10.0.0.1,email:a@b.example,DNS:first.example,DNS:second.example",
	    b, sizeof(b)), "first.example");
	ck_assert_ptr_null(client_name(NULL, 0, 0, "IP:10.0.0.1", b,
	    sizeof(b)));
	ck_assert_ptr_null(client_name(NULL, 0, 0, NULL, b, sizeof(b)));

	/* A CN that is not printable ASCII: no name, no fallback. */
	ck_assert_ptr_null(client_name("bad\x1b[2Jname", 12,
	    V_ASN1_UTF8STRING, "DNS:ok.example", b, sizeof(b)));
	ck_assert_ptr_null(client_name("nul\0inside", 10, V_ASN1_UTF8STRING,
	    NULL, b, sizeof(b)));
	ck_assert_ptr_null(client_name("caf\xc3\xa9", 5, V_ASN1_UTF8STRING,
	    NULL, b, sizeof(b)));
	ck_assert_ptr_null(client_name("tab\there", 8, V_ASN1_UTF8STRING,
	    NULL, b, sizeof(b)));
	ck_assert_ptr_null(client_name("del\x7f", 4, V_ASN1_UTF8STRING,
	    NULL, b, sizeof(b)));
	ck_assert_ptr_null(client_name("", 0, V_ASN1_UTF8STRING,
	    "DNS:ok.example", b, sizeof(b)));
	/*
	 * Two or four bytes a character: no name, even when each byte is
	 * printable ("abcd" is two CJK characters in a BMPString).
	 */
	ck_assert_ptr_null(client_name("abcd", 4, V_ASN1_BMPSTRING, NULL,
	    b, sizeof(b)));
	ck_assert_ptr_null(client_name("\0a\0b", 4, V_ASN1_BMPSTRING, NULL,
	    b, sizeof(b)));
	ck_assert_ptr_null(client_name("\0\0\0a", 4, V_ASN1_UNIVERSALSTRING,
	    NULL, b, sizeof(b)));
	/* The same for the DNS name taken in its place. */
	ck_assert_ptr_null(client_name(NULL, 0, 0, "DNS:bad\x1b" "name", b,
	    sizeof(b)));

	/* 255 bytes is a name; 256 is none. */
	memset(big, 'a', sizeof(big));
	ck_assert_ptr_nonnull(client_name(big, 255, V_ASN1_UTF8STRING, NULL,
	    b, sizeof(b)));
	ck_assert_uint_eq(strlen(b), 255);
	ck_assert_ptr_null(client_name(big, 256, V_ASN1_UTF8STRING, NULL, b,
	    sizeof(b)));
}
END_TEST

/* Levels 3 and 4: the client's certificate against the CA's CRL. */
START_TEST(test_crl)
{
	struct tlsctx	*cctx, *sctx;
	struct side	 c, s;
	struct pki	 inter, leaf;
	char		 none[PATH_MAX], revoked[PATH_MAX], chain[PATH_MAX];
	FILE		*fp;

	mkcrl(&ca, "crl-none", NULL, "w", none, sizeof(none));
	mkcrl(&ca, "crl-client", &client, "w", revoked, sizeof(revoked));
	cctx = clictx(2, &client, &ca);

	sctx = srvctx(3, &server, none);
	handshake(cctx, "server.test", sctx, &c, &s);
	expect_ok(&c, &s);
	sides_free(&c, &s);
	tlsctx_free(sctx);

	sctx = srvctx(3, &server, revoked);
	handshake(cctx, "server.test", sctx, &c, &s);
	expect_fail(&s, "server", "certificate revoked");
	sides_free(&c, &s);
	tlsctx_free(sctx);

	sctx = srvctx(4, &server, revoked);
	handshake(cctx, "server.test", sctx, &c, &s);
	expect_fail(&s, "server", "certificate revoked");
	sides_free(&c, &s);
	tlsctx_free(sctx);

	/*
	 * A client certificate from an intermediate CA that the root has
	 * revoked: level 3 checks the leaf only, level 4 the whole chain.
	 */
	mkcert(&inter, "inter", CN("intermediate CA"), NULL, &ca, 1, 30);
	mkcert(&leaf, "leaf", CN("leaf.test"), NULL, &inter, 0, 30);
	ck_assert_ptr_nonnull(fp = fopen(leaf.crt, "a"));
	ck_assert_int_eq(PEM_write_X509(fp, inter.x), 1);
	ck_assert_int_eq(fclose(fp), 0);
	mkcrl(&inter, "crl-chain", NULL, "w", chain, sizeof(chain));
	mkcrl(&ca, "crl-chain", &inter, "a", chain, sizeof(chain));
	tlsctx_free(cctx);
	cctx = clictx(2, &leaf, &ca);
	sctx = srvctx(3, &server, chain);
	handshake(cctx, "server.test", sctx, &c, &s);
	expect_ok(&c, &s);
	ck_assert_str_eq(tls_peer_name(s.t), "leaf.test");
	sides_free(&c, &s);
	tlsctx_free(sctx);
	sctx = srvctx(4, &server, chain);
	handshake(cctx, "server.test", sctx, &c, &s);
	expect_fail(&s, "server", "certificate revoked");
	sides_free(&c, &s);
	tlsctx_free(sctx);
	pki_free(&inter);
	pki_free(&leaf);

	/* Level 3 with no CRL at all: no certificate passes. */
	sctx = srvctx(3, &server, NULL);
	handshake(cctx, "server.test", sctx, &c, &s);
	expect_fail(&s, "server", "unable to get certificate CRL");
	sides_free(&c, &s);
	tlsctx_free(sctx);
	tlsctx_free(cctx);
}
END_TEST

/*
 * A bare OpenSSL end limited to versions min..max, at security level 0
 * so that only our side can refuse.
 */
static SSL_CTX *
rawctx(int server_side, int min, int max)
{
	SSL_CTX	*ctx;

	ctx = SSL_CTX_new(server_side ? TLS_server_method() :
	    TLS_client_method());
	ck_assert_ptr_nonnull(ctx);
	SSL_CTX_set_security_level(ctx, 0);
	ck_assert_int_eq(SSL_CTX_set_cipher_list(ctx, "DEFAULT:@SECLEVEL=0"),
	    1);
	ck_assert_int_eq(SSL_CTX_set_min_proto_version(ctx, min), 1);
	ck_assert_int_eq(SSL_CTX_set_max_proto_version(ctx, max), 1);
	SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	if (server_side) {
		ck_assert_int_eq(SSL_CTX_use_certificate_file(ctx, server.crt,
		    SSL_FILETYPE_PEM), 1);
		ck_assert_int_eq(SSL_CTX_use_PrivateKey_file(ctx, server.key,
		    SSL_FILETYPE_PEM), 1);
	}
	return ctx;
}

/* Our end against a bare one; ours is the server if ours_server. */
static void
against_raw(struct tlsctx *ours, int ours_server, SSL_CTX *raw,
    struct side *c, struct side *s)
{
	struct side	*o = ours_server ? s : c, *r = ours_server ? c : s;
	struct cerr	 err;

	memset(c, 0, sizeof(*c));
	memset(s, 0, sizeof(*s));
	sockets();
	c->fd = sv[0];
	s->fd = sv[1];
	o->t = tls_new(ours, o->fd, "server.test", &err);
	ck_assert_msg(o->t != NULL, "tls_new: %s", err.msg);
	ck_assert_ptr_nonnull(r->raw = SSL_new(raw));
	ck_assert_int_eq(SSL_set_fd(r->raw, r->fd), 1);
	if (ours_server)
		SSL_set_connect_state(r->raw);
	else
		SSL_set_accept_state(r->raw);
	pump(c, s);
}

/* TLS 1.2 is the oldest either end speaks. */
START_TEST(test_min_version)
{
	struct tlsctx	*sctx, *cctx;
	struct side	 c, s;
	SSL_CTX		*raw;
	char		 desc[128];

	sctx = srvctx(1, &server, NULL);
	cctx = clictx(1, NULL, &ca);

	raw = rawctx(0, TLS1_VERSION, TLS1_1_VERSION);
	against_raw(sctx, 1, raw, &c, &s);
	ck_assert_int_eq(s.rc, -1);
	ck_assert_int_eq(c.rc, -1);
	sides_free(&c, &s);
	SSL_CTX_free(raw);

	raw = rawctx(1, TLS1_VERSION, TLS1_1_VERSION);
	against_raw(cctx, 0, raw, &c, &s);
	ck_assert_int_eq(c.rc, -1);
	ck_assert_int_eq(s.rc, -1);
	sides_free(&c, &s);
	SSL_CTX_free(raw);

	/* TLS 1.2 itself is spoken, by both. */
	raw = rawctx(0, TLS1_2_VERSION, TLS1_2_VERSION);
	against_raw(sctx, 1, raw, &c, &s);
	expect_ok(&c, &s);
	ck_assert_msg(strncmp(tls_describe(s.t, desc, sizeof(desc)),
	    "TLSv1.2 ", 8) == 0, "%s", desc);
	sides_free(&c, &s);
	SSL_CTX_free(raw);

	raw = rawctx(1, TLS1_2_VERSION, TLS1_2_VERSION);
	against_raw(cctx, 0, raw, &c, &s);
	expect_ok(&c, &s);
	ck_assert_msg(strncmp(tls_describe(c.t, desc, sizeof(desc)),
	    "TLSv1.2 ", 8) == 0, "%s", desc);
	sides_free(&c, &s);
	SSL_CTX_free(raw);

	tlsctx_free(sctx);
	tlsctx_free(cctx);
}
END_TEST

static Suite *
tls_suite(void)
{
	Suite	*s = suite_create("tls");
	TCase	*tc;

	tc = tcase_create("tls");
	tcase_add_checked_fixture(tc, setup, teardown);
	/* bounded work, but a loaded machine or valgrind is slow */
	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, test_ctx_errors);
	tcase_add_test(tc, test_key_private);
	tcase_add_test(tc, test_session);
	tcase_add_test(tc, test_verify_server);
	tcase_add_test(tc, test_verify_client);
	tcase_add_test(tc, test_peer_name);
	tcase_add_test(tc, test_crl);
	tcase_add_test(tc, test_min_version);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(tls_suite());
}
