/*
 * tverify.h: the check lcksum(1) makes of one server-side transcript
 * line against its stored file: the size and checksum of the file must
 * be those the line records.  lcksum and cairn-publish both check
 * through here, so an upload that lcksum -n passes is one cairn-publish
 * accepts.
 */
#ifndef CAIRN_TVERIFY_H
#define CAIRN_TVERIFY_H

#include <sys/stat.h>

#include <stdint.h>

#include "cksum.h"

struct cerr;
struct tline;
struct troot;

/* What differs between a line and its stored file (tvfile.wrong). */
#define TV_SIZE		0x01
#define TV_CKSUM	0x02
#define TV_APPLE	0x04	/* not a well-formed AppleSingle file */

/* The stored file of one line, digested. */
struct tvfile {
	char		*file;		/* <file root>/<name>/<path> */
	int		 fd;
	struct stat	 st;
	char		 sum[CKSUM_B64MAX];
	int64_t		 size;		/* bytes digested */
	int		 wrong;		/* TV_SIZE | TV_CKSUM */
};

/*
 * Nonzero if line t has a stored file to check: an f or a line with
 * neither a "-" nor a "+" prefix (plus lines are applicable-transcript
 * lines, minus lines have nothing stored).
 */
int	tverify_wants(const struct tline *t);

/*
 * Open and digest with ck the stored file of line t, a line
 * tverify_wants, beneath tr (tr->file_root/tr->tran_name/t->path), and
 * say in sf->wrong what differs from the line.  With checkapple, an a
 * file must also be a well-formed AppleSingle file of the size digested
 * (else TV_APPLE, and err says what is wrong with it).  Returns 0 with sf
 * filled (release it with tvfile_clear), or -1 with "line N: ..." in err
 * when the file cannot be checked.  Nothing is printed.
 */
int	tverify_line(struct cksum *ck, const struct troot *tr,
	    const struct tline *t, int checkapple, struct tvfile *sf,
	    struct cerr *err);
void	tvfile_clear(struct tvfile *sf);

#endif
