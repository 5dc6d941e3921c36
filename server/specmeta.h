/*
 * specmeta.h: the metadata of special files (docs/protocol.md sections
 * 5.4 and 6.2): the type, mode, uid and gid a STAT SPECIAL answers with,
 * looked up in the special transcripts of the repository, and the set
 * of those answers a signed release vouches for (docs/formats.md
 * section 15, the stat entries).  cairnd's STAT and cairn-publish both
 * use this one lookup.  Nothing here knows a session: a repository
 * descriptor, a host's special directory and a path.
 */
#ifndef CAIRN_SPECMETA_H
#define CAIRN_SPECMETA_H

struct cerr;
struct manifest;

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

/*
 * Add to m the stat entries of the repository at rootfd (m->digest
 * digests the contents): for every host special directory
 * special/<dir>/<key> (<dir> the directory part of a command file named
 * in config, <key> each directory there) and every regular file below
 * it, reached without a symbolic link as cairnd reaches it, the path p
 * relative to the host's directory, the file's size and digest, and the
 * metadata specmeta_lookup gives it when asked as "./p" and as "/p"
 * (both when they differ and a transcript names the path in both
 * spellings; only the spelling a transcript names when it names one).
 * The entries are appended unsorted (manifest_sort).  No config file:
 * no entry.  Returns 0, or -1 with err.
 */
int	specmeta_collect(int rootfd, struct manifest *m, struct cerr *err);

#endif
