/*
 * transcript.h: Radmind transcript lines (docs/formats.md section 1): parsing,
 * canonical formatting, a sorted reader and a precedence merge.
 */
#ifndef CAIRN_TRANSCRIPT_H
#define CAIRN_TRANSCRIPT_H

#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>

struct buf;
struct cerr;

#define TRAN_MAXLINE	(4 * 4096 + 512)	/* longest line we accept */

/* One parsed line.  Strings are owned by the struct (tline_clear frees). */
struct tline {
	char		 type;		/* f d l h p s D b c a; 0: comment */
	int		 minus;		/* "-" prefix */
	int		 plus;		/* "+" prefix */
	char		*path;		/* decoded path */
	char		*epath;		/* path token as written (encoded) */
	char		*target;	/* l, h: decoded target */
	char		*etarget;	/* l, h: target token as written */
	uint32_t	 mode;		/* & 07777 */
	uint32_t	 uid, gid;
	int64_t		 mtime;
	int64_t		 size;
	char		 cksum[96];	/* base64 or "-" */
	uint32_t	 major, minor;
	unsigned	 lineno;
	int		 nfields;	/* tokens after prefixes; of a comment:
					   its words, counted up to 17 */
	char		*raw;		/* the line as read, no LF (TL_RAW);
					   never restyled */
};

void	tline_clear(struct tline *);
void	tline_copy(struct tline *dst, const struct tline *src);
/* Move src into dst (dst cleared first); src is left empty. */
void	tline_move(struct tline *dst, struct tline *src);

/* What tline_parse and treader_next found. */
#define TL_BLANK	0	/* blank or comment line (tline_parse) */
#define TL_OBJECT	1	/* an object line */
#define TL_HEADER	2	/* "name:" header of an applicable transcript */
#define TR_BLANK	3	/* blank or comment line (treader_next) */

/* tline_parse flags. */
#define TL_HEADERS	0x01	/* accept "name:" header lines */
#define TL_KEYONLY	0x02	/* only prefixes, a type token and a path are
				   required, and only the path is checked */
#define TL_RAW		0x04	/* keep a copy of the line in t->raw */

/*
 * Parse one line (NUL terminated, no LF).  Returns TL_OBJECT, TL_BLANK
 * for blank/comment lines (t->nfields counts their words), TL_HEADER for
 * a one-token "name:" line (its name, without the colon, in t->path; only
 * with TL_HEADERS), or -1 with "<name>: line N: <problem>" in err.  name
 * is used only for messages.  A carriage return anywhere in the line is an
 * error (writers encode CR in paths as \r, so a raw one means CRLF line
 * endings or corruption), and so is a line of TRAN_MAXLINE bytes or more.
 */
int	tline_parse(struct tline *t, const char *line, const char *name,
	    unsigned lineno, int flags, struct cerr *err);

/* tline_format flags. */
#define TL_PREFIXES	0x01	/* write the "- " and "+ " prefixes */
#define TL_REWRITE	0x02	/* Radmind lcksum's layout, see below */

/*
 * Append one line plus LF to b.  Returns 0, or -1 if b is full or (with
 * TL_REWRITE) t->raw is not an unprefixed f or a line.
 *
 * By default the canonical fsdiff form (docs/formats.md 1.2): "<type> <path
 * padded to 37>", a TAB and the fields of the type in fixed columns;
 * paths are encoded from t->path when t->epath is NULL.
 *
 * TL_REWRITE: the corrected line Radmind's lcksum writes, from t->raw
 * (parsed with TL_RAW): single spaces, type, path, mode, uid and gid as
 * they were written, then the mtime (as written if the line had no
 * checksum, t->mtime otherwise), t->size and t->cksum.  Parsing such a
 * line and rewriting it unchanged gives the same bytes.
 */
int	tline_format(struct buf *b, const struct tline *t, int flags);
/* Same, onto a stdio stream. */
int	tline_print(FILE *fp, const struct tline *t, int flags);

/*
 * A validated reader over one transcript file: line framing (every line
 * ends in LF; no NUL byte), one tline_parse per line, and the order check.
 * Every error names the reader and the line: "<name>: line N: <problem>".
 *
 * Use (this is what a loader such as lapply's needs):
 *
 *	r = treader_open(path, name, TR_HEADERS | TR_COMMENTS, &err);
 *	while ((rc = treader_next(r, &t, &err)) > 0) {
 *		if (rc == TR_BLANK)	continue;	  (t->nfields: words)
 *		if (rc == TL_HEADER)	section = t->path; ...
 *		treader_take(r, &mine);		  (keep the line: no copy)
 *	}
 *	if (rc == -1) report err.msg (treader_ioerror(r): a read error);
 *	treader_close(r);
 *
 * After -1 for a bad line or order, the next call goes on with the next
 * line (lcksum -a reports them all); after a read error it fails again.
 */
struct treader;

#define TR_ICASE	0x01	/* -I: case-insensitive order check */
#define TR_CKSUM	0x02	/* every f/a line must carry a checksum */
#define TR_HEADERS	0x04	/* return "name:" header lines (applicable) */
#define TR_NOSORT	0x08	/* the caller checks order (treader_order) */
#define TR_RAW		0x10	/* keep each line as read in t->raw */
#define TR_KEYONLY	0x20	/* lines need only a type and a path (lsort) */
#define TR_COMMENTS	0x40	/* return blank and comment lines too */
#define TR_ADDLF	0x80	/* a last line without LF is read as if it had
				   one (lsort repairs hand-edited files) */
#define TR_ONESTYLE	0x100	/* every object line in the path style of the
				   first (docs/formats.md 3): a reader that
				   restyles paths would put the others out
				   of order */

/* Open path; name is used in messages (NULL: path).  NULL + err on error. */
struct treader	*treader_open(const char *path, const char *name, int flags,
		    struct cerr *err);
/* Read from an open stream (not closed by treader_close if keep). */
struct treader	*treader_fdopen(FILE *fp, const char *name, int flags,
		    int keep);
/*
 * Next line: TL_OBJECT, TL_HEADER (with TR_HEADERS), TR_BLANK (with
 * TR_COMMENTS) and a borrowed line valid until the next call; 0 at end of
 * file; -1 on a read, parse or order error (err filled).
 */
int		 treader_next(struct treader *, const struct tline **,
		    struct cerr *err);
/* Move the line last returned into *dst (cleared first); no copy. */
void		 treader_take(struct treader *, struct tline *dst);
/*
 * The order check on the line last returned: its path must sort after
 * that of the previous line so checked (TR_ICASE: case-insensitively).
 * treader_next does it for every object line unless TR_NOSORT; with
 * TR_NOSORT a caller checks only the lines it wants (lcksum -P).
 * Returns 0, or -1 with "<name>: line N: bad sort order" in err.
 */
int		 treader_order(struct treader *, struct cerr *err);
/* Nonzero if the last error was a read error (not a bad line). */
int		 treader_ioerror(const struct treader *);
const char	*treader_name(const struct treader *);
unsigned	 treader_lineno(const struct treader *);
void		 treader_close(struct treader *);

/* Transcript type letter of a file mode (f d l p s c b), 0 if none. */
int	 tline_typeof(mode_t m);

/*
 * Precedence merge over several sorted transcripts.  Inputs are added
 * from lowest to highest precedence.  tmerge_next returns, in path order,
 * the winning line for each path and the index of its input (lower inputs'
 * lines for that path are skipped).  Minus lines are returned like other
 * lines (caller decides); style restyles every path to that style
 * (PATH_RELATIVE or PATH_ABSOLUTE, path.h; -1: leave as is).
 * skip(path, arg) != 0 drops an entry (excludes) unless the input was
 * added with noskip.
 */
struct tmerge;

struct tmerge	*tmerge_new(int icase, int style);
void		 tmerge_add(struct tmerge *, struct treader *, void *udata,
		    int noskip);
void		 tmerge_setskip(struct tmerge *,
		    int (*skip)(const char *, void *), void *arg);
int		 tmerge_next(struct tmerge *, const struct tline **, int *idx,
		    struct cerr *err);
/* Peek at the next winning path without consuming (NULL at end). */
int		 tmerge_peek(struct tmerge *, const struct tline **, int *idx,
		    struct cerr *err);
void		*tmerge_udata(struct tmerge *, int idx);
/*
 * The line input idx has for the path tmerge_next (or tmerge_peek)
 * returned last, the winner's own for the winner's idx, or NULL if it has
 * none: lmerge decides from the lower lines.  Valid until the next
 * tmerge_next or tmerge_peek that moves on.
 */
const struct tline *tmerge_line(struct tmerge *, int idx);
void		 tmerge_free(struct tmerge *);	/* closes the readers */

#endif
