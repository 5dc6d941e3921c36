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
	char		 type;		/* f d l h p s D b c a */
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
	int		 nfields;	/* tokens after prefixes */
};

void	tline_clear(struct tline *);
void	tline_copy(struct tline *dst, const struct tline *src);

/*
 * Parse one line (NUL terminated, no LF).  Returns 1 for an object line,
 * 0 for blank/comment lines, 2 for a one-token "name:" header (its name,
 * without the colon, in t->path; only when allow_header), -1 on error
 * with "<name>: line N: <problem>" in err.  name is used only for messages.
 * A carriage return anywhere in the line is an error (writers encode CR
 * in paths as \r, so a raw one means CRLF line endings or corruption).
 */
int	tline_parse(struct tline *t, const char *line, const char *name,
	    unsigned lineno, int allow_header, struct cerr *err);

/*
 * Read the line numbered lineno from fp into *line (getline(3) buffer
 * *line, *cap), without its LF.  Returns 1, 0 at end of file, or -1 with
 * "<name>: line N: <problem>" in err: a read error (ferror(fp) is then
 * set), a NUL byte, or a last line cut short (no LF at end of file).
 */
int	tline_getline(FILE *fp, char **line, size_t *cap, const char *name,
	    unsigned lineno, struct cerr *err);

/*
 * Append the canonical fsdiff form of t (docs/formats.md 1.2) plus LF to b.
 * prefixes: honour t->minus / t->plus.
 */
int	tline_format(struct buf *b, const struct tline *t, int prefixes);
/* Same, onto a stdio stream. */
int	tline_print(FILE *fp, const struct tline *t, int prefixes);

/* Sorted, validated reader over one transcript file. */
struct treader;

#define TR_ICASE	0x01	/* -I: case-insensitive order check */
#define TR_CKSUM	0x02	/* every f/a line must carry a checksum */
#define TR_HEADERS	0x04	/* accept "name:" header lines (applicable) */
#define TR_NOSORT	0x08	/* do not check order */

/* Open path; name is used in messages (NULL: path).  NULL + err on error. */
struct treader	*treader_open(const char *path, const char *name, int flags,
		    struct cerr *err);
/* Read from an open stream (not closed by treader_close if keep). */
struct treader	*treader_fdopen(FILE *fp, const char *name, int flags,
		    int keep);
/*
 * Next object line (and header lines with TR_HEADERS: return 2).
 * Returns 1 and a borrowed line valid until the next call, 0 at EOF, -1
 * on a parse or order error (err filled).
 */
int		 treader_next(struct treader *, const struct tline **,
		    struct cerr *err);
const char	*treader_name(const struct treader *);
unsigned	 treader_lineno(const struct treader *);
void		 treader_close(struct treader *);

/* Path style (docs/formats.md 3): convert between "./a" and "/a" forms. */
#define PATH_RELATIVE	0
#define PATH_ABSOLUTE	1
/* Return a malloc'd copy of decoded path p in the given style. */
char	*path_restyle(const char *p, int style);
/* Style of a (canonical) path. */
int	 path_style(const char *p);
/* Nonzero if decoded path p has a ".." component. */
int	 path_has_dotdot(const char *p);
/* Transcript type letter of a file mode (f d l p s c b), 0 if none. */
int	 tline_typeof(mode_t m);

/*
 * Precedence merge over several sorted transcripts.  Inputs are added
 * from lowest to highest precedence.  tmerge_next returns, in path order,
 * the winning line for each path and the index of its input (lower inputs'
 * lines for that path are skipped).  Minus lines are returned like other
 * lines (caller decides); style restyles every path to that style (-1:
 * leave as is).  skip(path, arg) != 0 drops an entry (excludes) unless
 * the input was added with noskip.
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
void		 tmerge_free(struct tmerge *);	/* closes the readers */

#endif
