/*
 * release.h: the signed releases of a repository (docs/formats.md
 * section 15, docs/signing.md):
 *
 *	release/current		symbolic link to "<serial>"
 *	release/<serial>/manifest, manifest.sig
 *	release/pending/manifest	waiting for its signature
 *	release/keys/		public keys an installed signature must
 *				verify with (optional)
 *
 * Only a signed release is installed as current: the serial directory
 * is written and made durable first, then a symbolic link to it renamed
 * over current, so that a reader of current sees the old release or the
 * new one, whole.  The two newest serial directories are kept.
 */
#ifndef CAIRN_SERVER_RELEASE_H
#define CAIRN_SERVER_RELEASE_H

#include <stddef.h>
#include <stdint.h>

struct buf;
struct cerr;

#define RELEASE_DIR	"release"
#define RELEASE_KEYS	"release/keys"
#define RELEASE_KEEP	2		/* serial directories kept */

/*
 * Open rootfd's release/ (made if create and missing), locked
 * exclusively against other writers until it is closed.  Returns the
 * descriptor or -1 with err.
 */
int	release_open(int rootfd, int create, struct cerr *err);

/*
 * The serial of the installed release in *serial (0: none), and with
 * man not NULL its manifest's bytes (NULL when none; buf_free them).
 * 0, or -1 with err (current is not a well-formed signed release).
 */
int	release_current(int relfd, uint64_t *serial, struct buf **man,
	    struct cerr *err);

/*
 * The pending manifest's bytes in *man (NULL when there is none; a file
 * that does not parse is an error).  0 or -1 with err.
 */
int	release_pending(int relfd, struct buf **man, struct cerr *err);

/*
 * The serial the next manifest gets: 1 + the largest of the installed
 * release's, the pending manifest's and any serial directory's.
 */
int	release_next(int relfd, uint64_t *serial, struct cerr *err);

/* Write man as release/pending/manifest (whole, durable).  0 or -1. */
int	release_write_pending(int relfd, const struct buf *man,
	    struct cerr *err);

/*
 * Install the manifest (its bytes as signed) and its signature file as
 * release <serial> and make it current; then remove the pending
 * manifest if it is the same one, and the serial directories older
 * than the RELEASE_KEEP newest.  0 or -1 with err.
 */
int	release_install(int relfd, uint64_t serial, const void *man,
	    size_t mlen, const void *sig, size_t siglen, struct cerr *err);

#endif
