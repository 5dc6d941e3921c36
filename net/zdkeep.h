/*
 * zdkeep.h: the zstd dictionaries a client keeps between sessions
 * (docs/protocol.md section 9.3).
 *
 * A dictionary taken with RETR ZDICT is kept in a directory of the
 * client's own, as a file named by its zstd ID and the server it came
 * from, so that a later session with that server offering that ID names
 * it (ZDICT <id> <sha256>) instead of fetching it again.  What is kept is only a cache: the server takes
 * it only when its SHA-256 is that of the server's dictionary, so a
 * damaged or foreign file costs a refusal, never a wrong byte.  The
 * directory is private (mode 0700, files 0600: a dictionary holds
 * pieces of the files it was trained on), and holds at most ZDKEEP_MAX
 * dictionaries, the least recently used going first.  A directory of
 * another user's is not used, nor a file in it this user did not write.
 */
#ifndef CAIRN_ZDKEEP_H
#define CAIRN_ZDKEEP_H

#include <stddef.h>

struct buf;
struct cerr;

#define ZDKEEP_MAX	4

/*
 * The directory: $CAIRN_ZDICTDIR when set (empty: keep none, NULL),
 * else CAIRN_ZDICTDIR, the build's default.
 */
const char	*zdkeep_dir(void);

/*
 * The dictionary of zstd ID id from server (the host name the user
 * gave, and port) kept in dir, in a new buffer *out (at most
 * ZSTDCONN_DICTMAX bytes), marked as just used.  0, or -1 with err when
 * there is none (errno ENOENT), or none this user may trust (EPERM).
 */
int		 zdkeep_load(const char *dir, const char *server, unsigned id,
		    struct buf **out, struct cerr *err);

/*
 * Keep len bytes at p as the dictionary of zstd ID id from server in
 * dir (made if missing, private), then forget all but the ZDKEEP_MAX
 * most recently used.  0, or -1 with err (errno EPERM: a directory
 * not to be used).
 */
int		 zdkeep_save(const char *dir, const char *server, unsigned id,
		    const void *p, size_t len, struct cerr *err);

#endif
