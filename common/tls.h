/*
 * tls.h: TLS contexts and sessions (docs/protocol.md section 7,
 * docs/security.md section 3).  tls.c is the only file that calls
 * OpenSSL's SSL layer; conn.c drives a session through the non-blocking
 * calls below and does all waiting itself.
 *
 * Server authorization levels (-w): 1 server certificate only, 2 client
 * certificate required and verified, 3 and the leaf checked against CRLs,
 * 4 and the whole chain.  Client levels: 1 verify the server (chain and
 * host name or IP), 2 and present a client certificate.  Every context
 * has TLS 1.2 as its minimum, security level 2, no renegotiation and no
 * TLS compression.
 *
 * Functions return 0 (or a count) on success and -1 with a message in
 * err on failure; the session calls may also return TLS_WANTREAD or
 * TLS_WANTWRITE: wait for the socket and call again with the same
 * arguments.
 */
#ifndef CAIRN_TLS_H
#define CAIRN_TLS_H

#include <stddef.h>
#include <sys/types.h>

struct cerr;
struct tls;
struct tlsctx;

#define TLS_WANTREAD	(-2)
#define TLS_WANTWRITE	(-3)

/* Where the certificates and keys are (NULL: the default of the role). */
struct tlsconf {
	int		 level;		/* server 1..4, client 1..2 */
	const char	*cafile;	/* -x */
	const char	*cadir;		/* -P: hashed directory */
	const char	*cert;		/* -y: certificate chain (PEM) */
	const char	*key;		/* -z: private key (PEM) */
	const char	*crl;		/* -C: CRL file or hashed directory */
};

/*
 * Server context.  Defaults, relative to the working directory:
 * cert/ca.pem (loaded at levels >= 2, or at 1 when -x/-P is given) and
 * cert/cert.pem for both certificate and key.
 */
struct tlsctx	*tlsctx_server(const struct tlsconf *, struct cerr *err);
/*
 * Client context.  Defaults: ca.pem and cert.pem in the cert directory
 * of the radmind directory; with a CA directory (-P) the default CA file
 * is not loaded.  The certificate and key are loaded at level 2 only.
 */
struct tlsctx	*tlsctx_client(const struct tlsconf *, struct cerr *err);
void		 tlsctx_free(struct tlsctx *);		/* NULL is fine */

/*
 * A session on connected socket fd (which the session does not own).
 * For a client, host is the name or IP literal the user gave: the
 * server's certificate must match it (OpenSSL's checks, RFC 6125, no
 * partial wildcards); it is also sent as SNI when it is a name.
 */
struct tls	*tls_new(struct tlsctx *, int fd, const char *host,
		    struct cerr *err);
void		 tls_free(struct tls *);		/* NULL is fine */

/* Run the handshake: 0 done, -1 failed, or TLS_WANT*. */
int		 tls_handshake(struct tls *, struct cerr *err);
/* Read: > 0 bytes, 0 at end of stream, -1, or TLS_WANT*. */
ssize_t		 tls_read(struct tls *, void *, size_t, struct cerr *err);
/* Write: > 0 bytes written (maybe fewer than n), -1, or TLS_WANT*. */
ssize_t		 tls_write(struct tls *, const void *, size_t,
		    struct cerr *err);
/* Send close_notify once, without waiting for the peer's. */
void		 tls_close(struct tls *);

/*
 * After the handshake: the verified peer certificate's name, the
 * subject CN, or else the first DNS subjectAltName; NULL without a
 * verified certificate, or if that name is empty or holds a byte
 * outside printable ASCII.  Not yet fit to be a key in config or a path
 * component: the caller checks it with hostname_valid() first.
 */
const char	*tls_peer_name(struct tls *);
/* "TLSv1.3 TLS_AES_256_GCM_SHA384" for log lines. */
const char	*tls_describe(struct tls *, char *buf, size_t len);

#endif
