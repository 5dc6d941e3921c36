/*
 * tls.c: OpenSSL 3 contexts and sessions (tls.h).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <netinet/in.h>
#include <arpa/inet.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "buf.h"
#include "cerr.h"
#include "compat.h"
#include "fsutil.h"
#include "log.h"
#include "tls.h"
#include "xmalloc.h"

#define TLS_SRV_CA	"cert/ca.pem"
#define TLS_SRV_CERT	"cert/cert.pem"
#define TLS_CLI_CA	_RADMIND_PATH "/cert/ca.pem"
#define TLS_CLI_CERT	_RADMIND_PATH "/cert/cert.pem"
#define TLS_KEYFILEMAX	(1024 * 1024)	/* a PEM file: certificates and a key */

struct tlsctx {
	SSL_CTX		*ctx;
	int		 server;
	int		 level;
};

struct tls {
	SSL		*ssl;
	int		 server;
	int		 closed;	/* close_notify sent */
	char		 name[256];	/* tls_peer_name */
};

/*
 * Append OpenSSL's error queue (most recent reason first) to what is
 * already in err, and clear the queue.
 */
static void
tls_errq(struct cerr *err, const char *what)
{
	char		 buf[256];
	unsigned long	 e;
	int		 first = 1;
	size_t		 len;

	if (err == NULL) {
		ERR_clear_error();
		return;
	}
	cerr_set(err, "%s", what);
	while ((e = ERR_get_error()) != 0) {
		len = strlen(err->msg);
		if (len + 4 >= sizeof(err->msg))
			continue;
		ERR_error_string_n(e, buf, sizeof(buf));
		/* "error:0A000086:SSL routines::certificate verify failed" */
		snprintf(err->msg + len, sizeof(err->msg) - len, "%s%s",
		    first ? ": " : "; ", ERR_reason_error_string(e) != NULL ?
		    ERR_reason_error_string(e) : buf);
		first = 0;
	}
}

static int
is_dir(const char *path)
{
	struct stat	 st;

	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* Settings every context shares. */
static SSL_CTX *
tls_ctx_base(const SSL_METHOD *method, struct cerr *err)
{
	SSL_CTX	*ctx;

	if ((ctx = SSL_CTX_new(method)) == NULL) {
		tls_errq(err, "SSL_CTX_new");
		return NULL;
	}
	SSL_CTX_set_security_level(ctx, 2);
	if (SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION) != 1) {
		tls_errq(err, "cannot set TLS 1.2 as the minimum version");
		SSL_CTX_free(ctx);
		return NULL;
	}
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION |
	    SSL_OP_NO_COMPRESSION | SSL_OP_NO_TICKET |
	    SSL_OP_IGNORE_UNEXPECTED_EOF);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
	    SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	return ctx;
}

/* Load the CA file and/or directory used to verify the peer. */
static int
tls_load_ca(SSL_CTX *ctx, const char *file, const char *dir,
    struct cerr *err)
{
	char	 what[PATH_MAX * 2 + 64];

	if (file != NULL && SSL_CTX_load_verify_file(ctx, file) != 1) {
		snprintf(what, sizeof(what), "%s: cannot load CA file", file);
		tls_errq(err, what);
		return -1;
	}
	if (dir != NULL) {
		if (!is_dir(dir)) {
			cerr_set(err, "%s: not a directory", dir);
			return -1;
		}
		if (SSL_CTX_load_verify_dir(ctx, dir) != 1) {
			snprintf(what, sizeof(what),
			    "%s: cannot use CA directory", dir);
			tls_errq(err, what);
			return -1;
		}
	}
	return 0;
}

/*
 * Load the private key of file key (fs_read_private: no other user may
 * read or change it), asking for its pass phrase as OpenSSL would.
 */
static int
tls_load_key(SSL_CTX *ctx, const char *key, struct cerr *err)
{
	struct buf	*b;
	BIO		*bio;
	EVP_PKEY	*pkey;
	char		 what[PATH_MAX + 64];
	int		 r;

	if (fs_read_private(key, TLS_KEYFILEMAX, &b, err) == -1)
		return -1;
	if ((bio = BIO_new_mem_buf(buf_data(b), (int)buf_len(b))) == NULL)
		fatalx("out of memory");
	pkey = PEM_read_bio_PrivateKey(bio, NULL,
	    SSL_CTX_get_default_passwd_cb(ctx),
	    SSL_CTX_get_default_passwd_cb_userdata(ctx));
	BIO_free(bio);
	OPENSSL_cleanse(buf_mutable(b), buf_len(b));
	buf_free(b);
	if (pkey == NULL) {
		snprintf(what, sizeof(what), "%s: cannot load private key",
		    key);
		tls_errq(err, what);
		return -1;
	}
	r = SSL_CTX_use_PrivateKey(ctx, pkey);
	EVP_PKEY_free(pkey);
	if (r != 1) {
		snprintf(what, sizeof(what), "%s: cannot load private key",
		    key);
		tls_errq(err, what);
		return -1;
	}
	return 0;
}

/* Load a certificate chain and its private key, and check they match. */
static int
tls_load_cert(SSL_CTX *ctx, const char *cert, const char *key,
    struct cerr *err)
{
	char	 what[PATH_MAX + 64];

	if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
		snprintf(what, sizeof(what), "%s: cannot load certificate",
		    cert);
		tls_errq(err, what);
		return -1;
	}
	if (tls_load_key(ctx, key, err) == -1)
		return -1;
	if (SSL_CTX_check_private_key(ctx) != 1) {
		snprintf(what, sizeof(what), "%s: private key does not match "
		    "certificate %s", key, cert);
		tls_errq(err, what);
		return -1;
	}
	return 0;
}

/* Add the CRLs of a file or hashed directory to the context's store. */
static int
tls_load_crl(SSL_CTX *ctx, const char *crl, int level, struct cerr *err)
{
	X509_STORE	*store = SSL_CTX_get_cert_store(ctx);
	X509_LOOKUP	*lu;
	char		 what[PATH_MAX + 64];
	unsigned long	 flags;

	if (crl != NULL) {
		if (is_dir(crl)) {
			if ((lu = X509_STORE_add_lookup(store,
			    X509_LOOKUP_hash_dir())) == NULL ||
			    X509_LOOKUP_add_dir(lu, crl,
			    X509_FILETYPE_PEM) != 1) {
				snprintf(what, sizeof(what),
				    "%s: cannot use CRL directory", crl);
				tls_errq(err, what);
				return -1;
			}
		} else {
			if ((lu = X509_STORE_add_lookup(store,
			    X509_LOOKUP_file())) == NULL ||
			    X509_load_crl_file(lu, crl,
			    X509_FILETYPE_PEM) < 1) {
				snprintf(what, sizeof(what),
				    "%s: cannot load CRL", crl);
				tls_errq(err, what);
				return -1;
			}
		}
	}
	flags = X509_V_FLAG_CRL_CHECK;
	if (level >= 4)
		flags |= X509_V_FLAG_CRL_CHECK_ALL;
	if (X509_STORE_set_flags(store, flags) != 1) {
		tls_errq(err, "cannot enable CRL checks");
		return -1;
	}
	return 0;
}

struct tlsctx *
tlsctx_server(const struct tlsconf *tc, struct cerr *err)
{
	struct tlsctx	*t;
	SSL_CTX		*ctx;
	STACK_OF(X509_NAME) *names;
	const char	*cafile = tc->cafile, *cert, *key;

	if (tc->level < 1 || tc->level > 4) {
		cerr_set(err, "%d: invalid authorization level", tc->level);
		return NULL;
	}
	if ((ctx = tls_ctx_base(TLS_server_method(), err)) == NULL)
		return NULL;
	cert = tc->cert != NULL ? tc->cert : TLS_SRV_CERT;
	key = tc->key != NULL ? tc->key : TLS_SRV_CERT;
	if (tls_load_cert(ctx, cert, key, err) == -1)
		goto fail;
	if (cafile == NULL && tc->level >= 2 && tc->cadir == NULL)
		cafile = TLS_SRV_CA;
	if (tls_load_ca(ctx, cafile, tc->cadir, err) == -1)
		goto fail;
	if (tc->level >= 2) {
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER |
		    SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
		/* Tell clients which CAs we take (best effort). */
		if (cafile != NULL &&
		    (names = SSL_load_client_CA_file(cafile)) != NULL)
			SSL_CTX_set_client_CA_list(ctx, names);
		ERR_clear_error();
	} else
		SSL_CTX_set_verify(ctx, SSL_VERIFY_NONE, NULL);
	if (tc->level >= 3 && tls_load_crl(ctx, tc->crl, tc->level,
	    err) == -1)
		goto fail;
	/* No session resumption: each connection is its own process. */
	SSL_CTX_set_num_tickets(ctx, 0);
	t = xcalloc(1, sizeof(*t));
	t->ctx = ctx;
	t->server = 1;
	t->level = tc->level;
	return t;
fail:
	SSL_CTX_free(ctx);
	return NULL;
}

struct tlsctx *
tlsctx_client(const struct tlsconf *tc, struct cerr *err)
{
	struct tlsctx	*t;
	SSL_CTX		*ctx;
	const char	*cafile = tc->cafile;

	if (tc->level < 1 || tc->level > 2) {
		cerr_set(err, "%d: invalid authorization level", tc->level);
		return NULL;
	}
	if ((ctx = tls_ctx_base(TLS_client_method(), err)) == NULL)
		return NULL;
	if (cafile == NULL && tc->cadir == NULL)
		cafile = TLS_CLI_CA;
	if (tls_load_ca(ctx, cafile, tc->cadir, err) == -1)
		goto fail;
	if (tc->level >= 2 && tls_load_cert(ctx, tc->cert != NULL ?
	    tc->cert : TLS_CLI_CERT, tc->key != NULL ? tc->key :
	    TLS_CLI_CERT, err) == -1)
		goto fail;
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
	t = xcalloc(1, sizeof(*t));
	t->ctx = ctx;
	t->server = 0;
	t->level = tc->level;
	return t;
fail:
	SSL_CTX_free(ctx);
	return NULL;
}

void
tlsctx_free(struct tlsctx *t)
{
	if (t == NULL)
		return;
	SSL_CTX_free(t->ctx);
	free(t);
}

/* Nonzero if host is an IPv4 or IPv6 literal. */
static int
is_ip(const char *host)
{
	unsigned char	 a[sizeof(struct in6_addr)];

	return inet_pton(AF_INET, host, a) == 1 ||
	    inet_pton(AF_INET6, host, a) == 1;
}

struct tls *
tls_new(struct tlsctx *t, int fd, const char *host, struct cerr *err)
{
	struct tls	*s;
	SSL		*ssl;

	ERR_clear_error();
	if ((ssl = SSL_new(t->ctx)) == NULL) {
		tls_errq(err, "SSL_new");
		return NULL;
	}
	if (SSL_set_fd(ssl, fd) != 1) {
		tls_errq(err, "SSL_set_fd");
		goto fail;
	}
	if (t->server)
		SSL_set_accept_state(ssl);
	else {
		if (host == NULL || host[0] == '\0') {
			cerr_set(err, "no host name to verify the server "
			    "certificate against");
			goto fail;
		}
		SSL_set_hostflags(ssl, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS);
		if (is_ip(host)) {
			if (X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl),
			    host) != 1) {
				tls_errq(err, host);
				goto fail;
			}
		} else if (SSL_set1_host(ssl, host) != 1 ||
		    SSL_set_tlsext_host_name(ssl, host) != 1) {
			tls_errq(err, host);
			goto fail;
		}
		SSL_set_connect_state(ssl);
	}
	s = xcalloc(1, sizeof(*s));
	s->ssl = ssl;
	s->server = t->server;
	return s;
fail:
	SSL_free(ssl);
	return NULL;
}

void
tls_free(struct tls *s)
{
	if (s == NULL)
		return;
	SSL_free(s->ssl);
	free(s);
}

/*
 * Map the result r of an SSL call to our return values, with a message
 * naming what failed (and, after a failed verification, why).
 */
static int
tls_result(struct tls *s, int r, const char *what, struct cerr *err)
{
	char	 buf[512];
	long	 vr;
	int	 e, saved = errno;

	e = SSL_get_error(s->ssl, r);
	switch (e) {
	case SSL_ERROR_WANT_READ:
		return TLS_WANTREAD;
	case SSL_ERROR_WANT_WRITE:
		return TLS_WANTWRITE;
	case SSL_ERROR_ZERO_RETURN:
		return 0;
	case SSL_ERROR_SYSCALL:
		if (ERR_peek_error() == 0) {
			if (saved == 0) {
				cerr_set(err, "%s: connection closed", what);
				return -1;
			}
			errno = saved;
			cerr_errno(err, "%s", what);
			return -1;
		}
		break;
	default:
		break;
	}
	vr = SSL_get_verify_result(s->ssl);
	if (vr != X509_V_OK) {
		snprintf(buf, sizeof(buf), "%s: certificate verification "
		    "failed: %s", what, X509_verify_cert_error_string(vr));
		ERR_clear_error();
		cerr_set(err, "%s", buf);
		return -1;
	}
	tls_errq(err, what);
	return -1;
}

int
tls_handshake(struct tls *s, struct cerr *err)
{
	long	 vr;
	int	 r;

	ERR_clear_error();
	errno = 0;
	if ((r = SSL_do_handshake(s->ssl)) != 1) {
		r = tls_result(s, r, "TLS handshake", err);
		if (r == 0) {
			cerr_set(err, "TLS handshake: connection closed");
			r = -1;
		}
		return r;
	}
	/* Belt and braces: a verified peer certificate where one is due. */
	if (!s->server || SSL_get_verify_mode(s->ssl) != SSL_VERIFY_NONE) {
		if (SSL_get0_peer_certificate(s->ssl) == NULL) {
			cerr_set(err, "TLS handshake: no peer certificate");
			return -1;
		}
		if ((vr = SSL_get_verify_result(s->ssl)) != X509_V_OK) {
			cerr_set(err, "TLS handshake: certificate "
			    "verification failed: %s",
			    X509_verify_cert_error_string(vr));
			return -1;
		}
	}
	return 0;
}

ssize_t
tls_read(struct tls *s, void *p, size_t n, struct cerr *err)
{
	size_t	 got = 0;
	int	 r;

	ERR_clear_error();
	errno = 0;
	if ((r = SSL_read_ex(s->ssl, p, n, &got)) == 1)
		return (ssize_t)got;
	return tls_result(s, r, "TLS read", err);
}

ssize_t
tls_write(struct tls *s, const void *p, size_t n, struct cerr *err)
{
	size_t	 done = 0;
	int	 r;

	ERR_clear_error();
	errno = 0;
	if ((r = SSL_write_ex(s->ssl, p, n, &done)) == 1)
		return (ssize_t)done;
	r = tls_result(s, r, "TLS write", err);
	if (r == 0) {
		cerr_set(err, "TLS write: connection closed");
		r = -1;
	}
	return r;
}

void
tls_close(struct tls *s)
{
	if (s == NULL || s->closed)
		return;
	s->closed = 1;
	ERR_clear_error();
	(void)SSL_shutdown(s->ssl);
	ERR_clear_error();
}

/*
 * Nonzero if the len bytes at p are printable ASCII, so that they can be
 * kept as a C string and logged.  Whether they name a host is for the
 * caller to decide (hostname_valid) before the name becomes a key.
 */
static int
name_ok(const unsigned char *p, size_t len)
{
	size_t	 i;

	if (len == 0 || len >= 256)
		return 0;
	for (i = 0; i < len; i++)
		if (p[i] < ' ' || p[i] >= 0x7f)
			return 0;
	return 1;
}

const char *
tls_peer_name(struct tls *s)
{
	X509			*x;
	X509_NAME		*subj;
	X509_NAME_ENTRY		*ne;
	ASN1_STRING		*as;
	GENERAL_NAMES		*gens;
	const GENERAL_NAME	*g;
	int			 i, idx;

	if (s->name[0] != '\0')
		return s->name;
	if ((x = SSL_get0_peer_certificate(s->ssl)) == NULL ||
	    SSL_get_verify_result(s->ssl) != X509_V_OK)
		return NULL;
	/* The (last) subject CN. */
	if ((subj = X509_get_subject_name(x)) != NULL) {
		idx = -1;
		for (i = -1; (i = X509_NAME_get_index_by_NID(subj,
		    NID_commonName, i)) >= 0; )
			idx = i;
		if (idx >= 0 && (ne = X509_NAME_get_entry(subj, idx)) != NULL &&
		    (as = X509_NAME_ENTRY_get_data(ne)) != NULL) {
			if (ASN1_STRING_type(as) != V_ASN1_BMPSTRING &&
			    ASN1_STRING_type(as) != V_ASN1_UNIVERSALSTRING &&
			    name_ok(ASN1_STRING_get0_data(as),
			    (size_t)ASN1_STRING_length(as))) {
				memcpy(s->name, ASN1_STRING_get0_data(as),
				    (size_t)ASN1_STRING_length(as));
				s->name[ASN1_STRING_length(as)] = '\0';
				return s->name;
			}
			return NULL;
		}
	}
	/* No CN: the first DNS subjectAltName. */
	gens = X509_get_ext_d2i(x, NID_subject_alt_name, NULL, NULL);
	for (i = 0; gens != NULL && i < sk_GENERAL_NAME_num(gens); i++) {
		g = sk_GENERAL_NAME_value(gens, i);
		if (g->type != GEN_DNS)
			continue;
		as = g->d.dNSName;
		if (name_ok(ASN1_STRING_get0_data(as),
		    (size_t)ASN1_STRING_length(as))) {
			memcpy(s->name, ASN1_STRING_get0_data(as),
			    (size_t)ASN1_STRING_length(as));
			s->name[ASN1_STRING_length(as)] = '\0';
		}
		break;
	}
	GENERAL_NAMES_free(gens);
	return s->name[0] != '\0' ? s->name : NULL;
}

const char *
tls_describe(struct tls *s, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s", SSL_get_version(s->ssl),
	    SSL_get_cipher_name(s->ssl));
	return buf;
}
