/*
 * linkmemo.h: what cairnd's sessions remember of each peer's link, for
 * the automatic level of the next session with that peer (cairnd(8),
 * "Compression"; zauto.h, struct zauto_memo).
 *
 * A table of LINKMEMO_SLOTS entries in the file tmp/.links of the
 * repository, mapped shared by the daemon before it forks its sessions,
 * so that every session reads and writes it, and it outlives a restart.
 * An entry is keyed by the peer's numeric address (IPv4 as IPv4-mapped
 * IPv6), or by its network's: parsed, never a name a peer chose.  Each entry has a sequence
 * number (odd while it is written): a session that finds an entry
 * being written, or one that changed while it read, goes without; two
 * sessions writing one entry at once, the second goes without writing.
 * Full, the oldest of the few places a key may take is replaced.  What
 * an entry holds is checked again before use (zauto_recall): the file
 * is the server's, but a memo is only ever a hint.
 */
#ifndef CAIRN_LINKMEMO_H
#define CAIRN_LINKMEMO_H

#include "zauto.h"

struct cerr;
struct linkmemo;

#define LINKMEMO_FILE	"tmp/.links"
#define LINKMEMO_SLOTS	4096		/* entries (64 bytes each) */
#define LINKMEMO_WAYS	4		/* places a key may take */

/*
 * Map the table of the repository rootfd (creating or resizing the
 * file); NULL with a message in err.
 */
struct linkmemo	*linkmemo_open(int rootfd, struct cerr *err);
void		 linkmemo_close(struct linkmemo *);	/* NULL is fine */

/*
 * The memo of the peer at numeric address ip, no older than
 * LINKMEMO_MAXAGE seconds: 0 with m filled; else 1 with the last memo
 * of a peer of its network (its /24, or for IPv6 its /64), which shares
 * its link more often than not; -1 when there is neither (or ip is no
 * numeric address).
 */
#define LINKMEMO_MAXAGE	(7 * 24 * 3600)
int		 linkmemo_get(struct linkmemo *, const char *ip,
		    struct zauto_memo *m);
/*
 * Remember m for the peer at ip, and as the last of its network's (best
 * effort: nothing is reported).
 */
void		 linkmemo_put(struct linkmemo *, const char *ip,
		    const struct zauto_memo *m);

#endif
