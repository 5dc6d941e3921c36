/*
 * trust.h: what a client with public keys pinned checks of the
 * server's signed release (docs/formats.md section 15, docs/protocol.md
 * section 5.12), before anything changes on disk: the server offers
 * one, its signature verifies with a pinned key, it has not expired, it
 * is not older than the release accepted before (the state file), and
 * then, file by file, the content the client uses is what it lists.
 *
 * The state file, <client dir>/release.state, holds the release last
 * accepted:
 *
 *	serial N
 *	digest sha256 <base64 of the manifest's SHA-256>
 *	expires T
 *
 * written whole or not at all (temp file, fsync, rename, fsync of the
 * directory).
 */
#ifndef CAIRN_TRUST_H
#define CAIRN_TRUST_H

#include <stdint.h>

#include "cksum.h"

struct cerr;
struct manifest;
struct net;
struct sigkeys;

#define TRUST_STATE	"release.state"
#define TRUST_STATETMP	".release.state."	/* its temp file: ...<pid> */
#define TRUST_STATEMAX 512		/* bytes of a state file */

/* The release accepted: as the state file records it. */
struct trust_state {
	int		 have;		/* 0: none accepted yet */
	uint64_t	 serial;
	char		 digest[CKSUM_B64MAX];	/* SHA-256 of the manifest */
	int64_t		 expires;
};

/* Outcomes of trust_fetch. */
#define TRUST_OK	0
#define TRUST_REFUSED	(-1)	/* not signed, expired, rollback... */
#define TRUST_ERROR	(-2)	/* the session failed */

/*
 * Read the state file TRUST_STATE in the directory dfd (dir: how
 * messages name that directory, "" or ending in "/").  0 with *st (have
 * 0 when there is none), or -1 with err naming the file and the line
 * (a state file that cannot be read is never taken as none: that would
 * let an older release in).
 */
int	trust_state_read(int dfd, const char *dir, struct trust_state *st,
	    struct cerr *err);

/* Write st as the state file in dfd, durably.  0, or -1 with err. */
int	trust_state_write(int dfd, const char *dir,
	    const struct trust_state *st, struct cerr *err);

/*
 * Ask the server on net for its release (RETR MANIFEST and SIGNATURE),
 * verify it with keys (loaded from keypath, for messages), refuse one
 * expired at now, older than prev or with prev's serial and another
 * manifest.  TRUST_OK with *m (manifest_free it) and *cur (the state
 * to record once every file checked); TRUST_REFUSED or TRUST_ERROR
 * with err.
 */
int	trust_fetch(struct net *, const struct sigkeys *keys,
	    const char *keypath, const struct trust_state *prev,
	    int64_t now, struct manifest *m, struct trust_state *cur,
	    struct cerr *err);

#endif
