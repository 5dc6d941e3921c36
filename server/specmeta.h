/*
 * specmeta.h: the metadata of special files (docs/protocol.md sections
 * 5.4 and 6.2): the type, mode, uid and gid a STAT SPECIAL answers with,
 * looked up in the special transcripts of the repository.  cairnd's
 * STAT and cairn-publish (specset.h: the set of those answers a signed
 * release vouches for) both use this one lookup.  Nothing here knows a session: a repository
 * descriptor, a host's special directory and a path.
 */
#ifndef CAIRN_SPECMETA_H
#define CAIRN_SPECMETA_H

#define SPECMETA_FIELD	64	/* each field, NUL included */

/*
 * The metadata of the special file path (decoded, relative to the
 * host's special directory specialdir, "special/[<dir>/]<key>"), asked
 * for with the token etok (encoded, as the client sent it): the first
 * "f" or "a" line of exactly 8 tokens whose path token is byte for byte
 * etok, in the first of these files that has one:
 *	<specialdir>/<path>.T (or <specialdir>/<path> itself when it ends
 *	in ".T"),
 *	<specialdir>.T,
 *	transcript/special.T;
 * each opened below rootfd without a symbolic link (one that cannot be
 * opened is passed over).  meta gets type, mode, uid and gid as written
 * (a field of SPECMETA_FIELD bytes or more makes its line not match).
 * Returns 1 when a line gave them, 0 when none did: meta is then the
 * default "f", "444", "0", "0".
 */
int	specmeta_lookup(int rootfd, const char *specialdir, const char *path,
	    const char *etok, char meta[4][SPECMETA_FIELD]);

#endif
