/*
 * transcript.c: parse, print, read and merge Radmind transcripts.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "buf.h"
#include "cerr.h"
#include "compat.h"
#include "encode.h"
#include "path.h"
#include "pathcmp.h"
#include "transcript.h"
#include "xmalloc.h"

#define TL_MAXTOK	16

void
tline_clear(struct tline *t)
{
	free(t->path);
	free(t->epath);
	free(t->target);
	free(t->etarget);
	free(t->raw);
	memset(t, 0, sizeof(*t));
}

static char *
dupornull(const char *s)
{
	return s == NULL ? NULL : xstrdup(s);
}

void
tline_copy(struct tline *dst, const struct tline *src)
{
	tline_clear(dst);
	*dst = *src;
	dst->path = dupornull(src->path);
	dst->epath = dupornull(src->epath);
	dst->target = dupornull(src->target);
	dst->etarget = dupornull(src->etarget);
	dst->raw = dupornull(src->raw);
}

void
tline_move(struct tline *dst, struct tline *src)
{
	tline_clear(dst);
	*dst = *src;
	memset(src, 0, sizeof(*src));
}

/* Split line into whitespace-separated tokens; returns the count. */
static int
tokenize(char *line, char **tok, int max)
{
	int	n = 0;

	for (;;) {
		while (*line == ' ' || *line == '\t')
			line++;
		if (*line == '\0')
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = line;
		while (*line != '\0' && *line != ' ' && *line != '\t')
			line++;
		if (*line != '\0')
			*line++ = '\0';
	}
}

/* uid/gid: decimal, -2^31 .. 2^32-1 (fsdiff prints ids as signed). */
static int
parse_id(const char *s, uint32_t *out)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE ||
	    v < INT32_MIN || v > (long long)UINT32_MAX)
		return -1;
	/* (uid_t)-1 means "leave unchanged" to chown(2): never an owner */
	if (v == -1 || v == (long long)UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int
parse_i64(const char *s, int64_t *out, int allow_neg)
{
	char		*end;
	long long	 v;

	errno = 0;
	v = strtoll(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE ||
	    (!allow_neg && v < 0))
		return -1;
	*out = v;
	return 0;
}

static int
parse_dev(const char *s, uint32_t *out)
{
	char			*end;
	unsigned long long	 v;

	if (*s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (end == s || *end != '\0' || errno == ERANGE || v > UINT32_MAX)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

/*
 * Mode: octal digits only, at most 07777.  Radmind stops at the first
 * non-octal byte ("0x44" reads as 0); we reject such lines instead.
 */
static int
parse_mode(const char *s, uint32_t *out)
{
	char		*end;
	unsigned long	 v;

	if (*s < '0' || *s > '7')
		return -1;
	errno = 0;
	v = strtoul(s, &end, 8);
	if (*end != '\0' || errno == ERANGE || v > 07777)
		return -1;
	*out = (uint32_t)v;
	return 0;
}

static int
valid_cksum(const char *s)
{
	size_t	n = strlen(s), m;

	if (strcmp(s, "-") == 0)
		return 1;
	if (n == 0 || n >= sizeof(((struct tline *)0)->cksum))
		return 0;
	m = strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
	    "0123456789+/");
	if (m == n)
		return 1;
	/* Padding: one or two '=' that end a whole number of quads. */
	return m > 0 && n - m <= 2 && n % 4 == 0 &&
	    strspn(s + m, "=") == n - m;
}

/*
 * What is wrong with decoded path p, or NULL if it is canonical: "." or
 * "/" or "./" or "/" followed by components that are neither empty nor
 * "." nor "..".  Nothing a transcript names can then lie outside its root.
 */
static const char *
path_problem(const char *p)
{
	const char	*c, *e;
	size_t		 n;

	if (strcmp(p, ".") == 0 || strcmp(p, "/") == 0)
		return NULL;
	if (strncmp(p, "./", 2) == 0)
		c = p + 2;
	else if (p[0] == '/')
		c = p + 1;
	else
		return "must start with ./ or /";
	for (;;) {
		e = strchr(c, '/');
		n = e != NULL ? (size_t)(e - c) : strlen(c);
		if (n == 2 && c[0] == '.' && c[1] == '.')
			return "has a .. component";
		if (n == 0 || (n == 1 && c[0] == '.'))
			return "has an empty or . component";
		if (e == NULL)
			return NULL;
		c = e + 1;
	}
}

/*
 * What follows "<type> <path>" in the full form of a line (docs/formats.md
 * 1.1).  The short form of three fields has a link target instead.
 */
enum tl_tail {
	TAIL_NONE,		/* mode uid gid */
	TAIL_FILE,		/* mode uid gid mtime size cksum */
	TAIL_LINK,		/* mode uid gid target */
	TAIL_DEV,		/* mode uid gid major minor */
	TAIL_TARGET		/* target only (h) */
};

/* Line types and the field counts they accept (type and path included). */
static const struct tl_type {
	char		 type;
	int		 nfields;	/* the full form */
	int		 alt;		/* another count accepted, or 0 */
	enum tl_tail	 tail;
} tl_types[] = {
	{ 'f', 8, 0, TAIL_FILE },
	{ 'a', 8, 0, TAIL_FILE },	/* AppleSingle file */
	{ 'd', 5, 6, TAIL_NONE },	/* 6: Mac finder info, ignored */
	{ 'l', 6, 3, TAIL_LINK },	/* 3: "l path target", mode 0777 */
	{ 'h', 3, 0, TAIL_TARGET },
	{ 'p', 5, 0, TAIL_NONE },
	{ 's', 5, 0, TAIL_NONE },
	{ 'D', 5, 0, TAIL_NONE },	/* Solaris door */
	{ 'b', 7, 0, TAIL_DEV },
	{ 'c', 7, 0, TAIL_DEV },
};

static const struct tl_type *
tl_lookup(int type)
{
	size_t	i;

	for (i = 0; i < sizeof(tl_types) / sizeof(tl_types[0]); i++)
		if (tl_types[i].type == type)
			return &tl_types[i];
	return NULL;
}

/*
 * The type token and what must follow it: a path (TL_KEYONLY) or at
 * least a path and one more field, and a type of one byte.  Too few
 * tokens is worded as Radmind words it: lsort, the one reader of keys
 * only, says "not enough fields" (the conformance vectors pin both).
 */
static int
tl_typetok(char **av, int ac, int flags, const char *name, unsigned lineno,
    struct cerr *err)
{
	if (flags & TL_KEYONLY) {
		if (ac >= 2)
			return 0;
		cerr_set(err, "%s: line %u: not enough fields", name, lineno);
		return -1;
	}
	if (ac < 3) {
		cerr_set(err, "%s: line %u: minimum 3 arguments, got %d",
		    name, lineno, ac);
		return -1;
	}
	if (strlen(av[0]) != 1) {
		cerr_set(err, "%s: line %u: %s is too long to be a type",
		    name, lineno, av[0]);
		return -1;
	}
	return 0;
}

/* Decode token tok ("path" or "link target") into *dec, keep it in *enc. */
static int
tl_decode(const char *tok, char **dec, char **enc, const char *what,
    const char *name, unsigned lineno, struct cerr *err)
{
	*enc = xstrdup(tok);
	if (decode_path(tok, dec) == -1) {
		if (decode_badescape(tok))
			cerr_set(err, "%s: line %u: bad %s encoding", name,
			    lineno, what);
		else
			cerr_set(err, "%s: line %u: %s too long", name, lineno,
			    what);
		return -1;
	}
	return 0;
}

/* "h path target" and "l path target": the target of the short form. */
static int
tl_short(struct tline *t, char *target, const char *name, unsigned lineno,
    struct cerr *err)
{
	const char	*why;

	if (tl_decode(target, &t->target, &t->etarget, "link target", name,
	    lineno, err) == -1)
		return -1;
	if (t->type == 'l') {
		t->mode = 0777;
		t->uid = t->gid = 0;
		return 0;
	}
	if ((why = path_problem(t->target)) != NULL) {
		cerr_set(err, "%s: line %u: hard link target %s", name,
		    lineno, why);
		return -1;
	}
	if (path_style(t->target) != path_style(t->path)) {
		cerr_set(err, "%s: line %u: hard link target %s", name,
		    lineno, path_style(t->path) == PATH_RELATIVE ?
		    "must start with ./" : "must start with /");
		return -1;
	}
	return 0;
}

/* mode uid gid, then what the type's tail holds (av[0] is the mode). */
static int
tl_fields(struct tline *t, enum tl_tail tail, char **av, const char *name,
    unsigned lineno, struct cerr *err)
{
	if (parse_mode(av[0], &t->mode) == -1) {
		cerr_set(err, "%s: line %u: bad mode %s", name, lineno, av[0]);
		return -1;
	}
	if (parse_id(av[1], &t->uid) == -1) {
		cerr_set(err, "%s: line %u: bad uid %s", name, lineno, av[1]);
		return -1;
	}
	if (parse_id(av[2], &t->gid) == -1) {
		cerr_set(err, "%s: line %u: bad gid %s", name, lineno, av[2]);
		return -1;
	}
	switch (tail) {
	case TAIL_FILE:
		if (parse_i64(av[3], &t->mtime, 0) == -1) {
			cerr_set(err, "%s: line %u: bad mtime %s", name,
			    lineno, av[3]);
			return -1;
		}
		if (parse_i64(av[4], &t->size, 0) == -1) {
			cerr_set(err, "%s: line %u: bad size %s", name,
			    lineno, av[4]);
			return -1;
		}
		if (!valid_cksum(av[5])) {
			cerr_set(err, "%s: line %u: bad checksum %s", name,
			    lineno, av[5]);
			return -1;
		}
		strlcpy(t->cksum, av[5], sizeof(t->cksum));
		return 0;
	case TAIL_LINK:
		return tl_decode(av[3], &t->target, &t->etarget,
		    "link target", name, lineno, err);
	case TAIL_DEV:
		if (parse_dev(av[3], &t->major) == -1 ||
		    parse_dev(av[4], &t->minor) == -1) {
			cerr_set(err, "%s: line %u: bad device number", name,
			    lineno);
			return -1;
		}
		return 0;
	default:
		return 0;
	}
}

/* An object line: av[0] is the type token, ac counts from there. */
static int
tl_object(struct tline *t, char **av, int ac, int flags, const char *name,
    unsigned lineno, struct cerr *err)
{
	const struct tl_type	*tt;
	const char		*why;

	t->type = av[0][0];
	t->nfields = ac;
	if (flags & TL_KEYONLY)
		return tl_decode(av[1], &t->path, &t->epath, "path", name,
		    lineno, err);
	if ((tt = tl_lookup(t->type)) == NULL) {
		cerr_set(err, "%s: line %u: unknown file type '%c'", name,
		    lineno, t->type);
		return -1;
	}
	if (ac != tt->nfields && ac != tt->alt) {
		if (tt->alt == 0)
			cerr_set(err, "%s: line %u: expected %d arguments, "
			    "got %d", name, lineno, tt->nfields, ac);
		else
			cerr_set(err, "%s: line %u: expected %d or %d "
			    "arguments, got %d", name, lineno,
			    tt->alt < tt->nfields ? tt->alt : tt->nfields,
			    tt->alt < tt->nfields ? tt->nfields : tt->alt, ac);
		return -1;
	}
	if (tl_decode(av[1], &t->path, &t->epath, "path", name, lineno,
	    err) == -1)
		return -1;
	if (t->path[0] == '\0') {
		cerr_set(err, "%s: line %u: empty path", name, lineno);
		return -1;
	}
	if ((why = path_problem(t->path)) != NULL) {
		cerr_set(err, "%s: line %u: path %s", name, lineno, why);
		return -1;
	}
	if (ac == 3)
		return tl_short(t, av[2], name, lineno, err);
	return tl_fields(t, tt->tail, av + 2, name, lineno, err);
}

int
tline_parse(struct tline *t, const char *line, const char *name,
    unsigned lineno, int flags, struct cerr *err)
{
	char	*copy, *tok[TL_MAXTOK + 1], **av;
	int	 ac, rc = -1;
	size_t	 len;

	tline_clear(t);
	t->lineno = lineno;
	if (strlen(line) >= TRAN_MAXLINE) {
		cerr_set(err, "%s: line %u: line too long", name, lineno);
		return -1;
	}
	if (strchr(line, '\r') != NULL) {
		cerr_set(err, "%s: line %u: carriage return in line", name,
		    lineno);
		return -1;
	}
	copy = xstrdup(line);
	ac = tokenize(copy, tok, TL_MAXTOK);
	if (ac == 0 || tok[0][0] == '#') {
		t->nfields = ac;
		rc = TL_BLANK;
		goto out;
	}
	if (ac > TL_MAXTOK && !(flags & TL_KEYONLY)) {
		cerr_set(err, "%s: line %u: too many arguments", name, lineno);
		goto out;
	}
	if (ac == 1 && (flags & TL_HEADERS) && (len = strlen(tok[0])) > 1 &&
	    tok[0][len - 1] == ':') {
		tok[0][len - 1] = '\0';
		t->path = xstrdup(tok[0]);
		rc = TL_HEADER;
		goto out;
	}
	av = tok;
	if (tl_typetok(av, ac, flags, name, lineno, err) == -1)
		goto out;
	if (strcmp(av[0], "-") == 0) {
		t->minus = 1;
		av++;
		ac--;
	}
	if (strcmp(av[0], "+") == 0) {
		t->plus = 1;
		av++;
		ac--;
	}
	if (tl_typetok(av, ac, flags, name, lineno, err) == -1 ||
	    tl_object(t, av, ac, flags, name, lineno, err) == -1)
		goto out;
	rc = TL_OBJECT;
out:
	free(copy);
	if (rc == -1)
		tline_clear(t);
	else if (flags & TL_RAW)
		t->raw = xstrdup(line);
	return rc;
}

/* mode uid gid as fsdiff writes them. */
static int
fmt_owner(struct buf *b, const struct tline *t)
{
	return buf_printf(b, "%.4o %5d %5d", (unsigned)t->mode, (int)t->uid,
	    (int)t->gid);
}

/* The TL_REWRITE layout (see transcript.h). */
static int
fmt_rewrite(struct buf *b, const struct tline *t)
{
	char	*copy, *tok[TL_MAXTOK + 1];
	int	 r = -1;

	if (t->raw == NULL)
		return -1;
	copy = xstrdup(t->raw);
	if (tokenize(copy, tok, TL_MAXTOK) == 8 && strlen(tok[0]) == 1 &&
	    (tok[0][0] == 'f' || tok[0][0] == 'a')) {
		r = buf_printf(b, "%s %-37s %4s %5s %5s ", tok[0], tok[1],
		    tok[2], tok[3], tok[4]);
		if (strcmp(tok[7], "-") == 0)
			r |= buf_printf(b, "%9s", tok[5]);
		else
			r |= buf_printf(b, "%9lld", (long long)t->mtime);
		r |= buf_printf(b, " %7lld %s\n", (long long)t->size,
		    t->cksum);
	}
	free(copy);
	return r == 0 ? 0 : -1;
}

int
tline_format(struct buf *b, const struct tline *t, int flags)
{
	const struct tl_type	*tt;
	char			*ep = NULL, *et = NULL;
	const char		*target;
	int			 r = 0;

	if (flags & TL_REWRITE)
		return fmt_rewrite(b, t);
	if ((flags & TL_PREFIXES) && t->minus)
		r |= buf_addstr(b, "- ");
	if ((flags & TL_PREFIXES) && t->plus)
		r |= buf_addstr(b, "+ ");
	ep = t->epath != NULL ? NULL : encode_dup(t->path);
	r |= buf_printf(b, "%c %-37s\t", t->type, ep != NULL ? ep : t->epath);
	if (t->type == 'l' || t->type == 'h')
		et = t->etarget != NULL ? NULL : encode_dup(t->target);
	target = et != NULL ? et : t->etarget;
	tt = tl_lookup(t->type);
	switch (tt != NULL ? tt->tail : TAIL_NONE) {
	case TAIL_TARGET:
		r |= buf_printf(b, "%s\n", target);
		break;
	case TAIL_FILE:
		r |= fmt_owner(b, t);
		r |= buf_printf(b, " %9lld %7lld %s\n", (long long)t->mtime,
		    (long long)t->size, t->cksum);
		break;
	case TAIL_LINK:
		r |= fmt_owner(b, t);
		r |= buf_printf(b, " %s\n", target);
		break;
	case TAIL_DEV:
		r |= fmt_owner(b, t);
		r |= buf_printf(b, " %5u %5u\n", t->major, t->minor);
		break;
	default:
		r |= fmt_owner(b, t);
		r |= buf_addstr(b, "\n");
		break;
	}
	free(ep);
	free(et);
	return r == 0 ? 0 : -1;
}

int
tline_print(FILE *fp, const struct tline *t, int flags)
{
	static struct buf	*b;

	if (b == NULL)
		b = buf_new(TRAN_MAXLINE * 2);
	buf_reset(b);
	if (tline_format(b, t, flags) == -1)
		return -1;
	if (fwrite(buf_data(b), 1, buf_len(b), fp) != buf_len(b))
		return -1;
	return 0;
}

/*
 * Read the line numbered lineno from fp into *line (getline(3) buffer
 * *line, *cap), without its LF.  Returns 1, 0 at end of file, or -1 with
 * "<name>: line N: <problem>" in err: a read error (ferror(fp) is then
 * set), a NUL byte, or a last line cut short (no LF at end of file)
 * unless addlf.
 */
static int
tr_getline(FILE *fp, char **line, size_t *cap, const char *name,
    unsigned lineno, int addlf, struct cerr *err)
{
	ssize_t	n;

	errno = 0;
	if ((n = getline(line, cap, fp)) == -1) {
		if (ferror(fp)) {
			cerr_errno(err, "%s: line %u", name, lineno);
			return -1;
		}
		return 0;
	}
	if (memchr(*line, '\0', (size_t)n) != NULL) {
		cerr_set(err, "%s: line %u: NUL byte in line", name, lineno);
		return -1;
	}
	if ((*line)[n - 1] == '\n')
		(*line)[n - 1] = '\0';
	else if (!addlf) {
		cerr_set(err, "%s: line %u: incomplete last line (no newline)",
		    name, lineno);
		return -1;
	}
	return 1;
}

struct treader {
	FILE		*fp;
	int		 keep;
	char		*name;
	int		 flags;
	int		 ioerror;	/* the last error was a read error */
	unsigned	 lineno;
	char		*line;
	size_t		 linecap;
	struct tline	 cur;
	char		*prev;		/* previous path, for the order check */
	int		 style;		/* of the first object line, or -1 */
};

struct treader *
treader_fdopen(FILE *fp, const char *name, int flags, int keep)
{
	struct treader	*r;

	r = xcalloc(1, sizeof(*r));
	r->fp = fp;
	r->keep = keep;
	r->name = xstrdup(name);
	r->flags = flags;
	r->style = -1;
	return r;
}

struct treader *
treader_open(const char *path, const char *name, int flags, struct cerr *err)
{
	FILE	*fp;

	if ((fp = fopen(path, "r")) == NULL) {
		cerr_errno(err, "%s", name != NULL ? name : path);
		return NULL;
	}
	return treader_fdopen(fp, name != NULL ? name : path, flags, 0);
}

/* The tline_parse flags a reader's flags ask for. */
static int
tr_parseflags(int flags)
{
	return ((flags & TR_HEADERS) ? TL_HEADERS : 0) |
	    ((flags & TR_KEYONLY) ? TL_KEYONLY : 0) |
	    ((flags & TR_RAW) ? TL_RAW : 0);
}

int
treader_order(struct treader *r, struct cerr *err)
{
	if (r->prev != NULL && pathcmp(r->prev, r->cur.path,
	    r->flags & TR_ICASE) >= 0) {
		cerr_set(err, "%s: line %u: bad sort order", r->name,
		    r->lineno);
		return -1;
	}
	free(r->prev);
	r->prev = xstrdup(r->cur.path);
	return 0;
}

int
treader_next(struct treader *r, const struct tline **out, struct cerr *err)
{
	int	 rc;

	r->ioerror = 0;
	for (;;) {
		tline_clear(&r->cur);
		rc = tr_getline(r->fp, &r->line, &r->linecap, r->name,
		    r->lineno + 1, r->flags & TR_ADDLF, err);
		if (rc == -1 && ferror(r->fp)) {
			r->ioerror = 1;
			return -1;
		}
		if (rc == 0)
			return 0;
		r->lineno++;
		if (rc == -1)
			return -1;
		rc = tline_parse(&r->cur, r->line, r->name, r->lineno,
		    tr_parseflags(r->flags), err);
		if (rc == -1)
			return -1;
		if (rc == TL_BLANK && !(r->flags & TR_COMMENTS))
			continue;
		*out = &r->cur;
		if (rc == TL_BLANK)
			return TR_BLANK;
		if (rc == TL_HEADER)
			return TL_HEADER;
		break;
	}
	if (r->flags & TR_ONESTYLE) {
		if (r->style == -1)
			r->style = path_style(r->cur.path);
		else if (path_style(r->cur.path) != r->style) {
			cerr_set(err, "%s: line %u: %s", r->name, r->lineno,
			    r->style == PATH_RELATIVE ?
			    "absolute path in a relative transcript" :
			    "relative path in an absolute transcript");
			return -1;
		}
	}
	if ((r->flags & TR_CKSUM) && (r->cur.type == 'f' ||
	    r->cur.type == 'a') && strcmp(r->cur.cksum, "-") == 0) {
		cerr_set(err, "%s: line %u: no cksums in transcript", r->name,
		    r->lineno);
		return -1;
	}
	if (!(r->flags & TR_NOSORT) && treader_order(r, err) == -1)
		return -1;
	return TL_OBJECT;
}

void
treader_take(struct treader *r, struct tline *dst)
{
	tline_move(dst, &r->cur);
}

int
treader_ioerror(const struct treader *r)
{
	return r->ioerror;
}

const char *
treader_name(const struct treader *r)
{
	return r->name;
}

unsigned
treader_lineno(const struct treader *r)
{
	return r->lineno;
}

void
treader_close(struct treader *r)
{
	if (r == NULL)
		return;
	if (!r->keep && r->fp != NULL)
		fclose(r->fp);
	tline_clear(&r->cur);
	free(r->line);
	free(r->name);
	free(r->prev);
	free(r);
}

int
tline_typeof(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG:
		return 'f';
	case S_IFDIR:
		return 'd';
	case S_IFLNK:
		return 'l';
	case S_IFIFO:
		return 'p';
	case S_IFSOCK:
		return 's';
	case S_IFCHR:
		return 'c';
	case S_IFBLK:
		return 'b';
	default:
		return 0;
	}
}

/* Precedence merge. */
struct tm_input {
	struct treader	*r;
	void		*udata;
	int		 noskip;
	int		 eof;
	int		 have;		/* cur holds a line */
	struct tline	 cur;
	struct tline	 same;		/* its line for the winner's path */
};

struct tmerge {
	struct tm_input	*in;
	int		 n;
	int		 icase;
	int		 style;
	int		 (*skip)(const char *, void *);
	void		*skiparg;
	struct tline	 win;
	int		 winidx;
	int		 peeked;
	int		 peekrc;
};

struct tmerge *
tmerge_new(int icase, int style)
{
	struct tmerge	*m;

	m = xcalloc(1, sizeof(*m));
	m->icase = icase;
	m->style = style;
	return m;
}

void
tmerge_add(struct tmerge *m, struct treader *r, void *udata, int noskip)
{
	m->in = xreallocarray(m->in, (size_t)m->n + 1, sizeof(*m->in));
	memset(&m->in[m->n], 0, sizeof(m->in[m->n]));
	m->in[m->n].r = r;
	m->in[m->n].udata = udata;
	m->in[m->n].noskip = noskip;
	m->n++;
}

void
tmerge_setskip(struct tmerge *m, int (*skip)(const char *, void *), void *arg)
{
	m->skip = skip;
	m->skiparg = arg;
}

void *
tmerge_udata(struct tmerge *m, int idx)
{
	return m->in[idx].udata;
}

static void
restyle_field(char **dec, char **enc, int style)
{
	char	*p;

	if (*dec == NULL)
		return;
	p = path_restyle(*dec, style);
	if (strcmp(p, *dec) == 0) {
		free(p);
		return;
	}
	free(*dec);
	*dec = p;
	free(*enc);
	*enc = encode_dup(p);
}

/* Make sure input i holds its next usable line (or is at EOF). */
static int
tm_fill(struct tmerge *m, int i, struct cerr *err)
{
	struct tm_input		*in = &m->in[i];
	const struct tline	*t;
	int			 rc;

	while (!in->have && !in->eof) {
		rc = treader_next(in->r, &t, err);
		if (rc == -1)
			return -1;
		if (rc == 0) {
			in->eof = 1;
			break;
		}
		if (rc != TL_OBJECT)
			continue;
		tline_copy(&in->cur, t);
		if (m->style != -1) {
			restyle_field(&in->cur.path, &in->cur.epath, m->style);
			if (in->cur.type == 'h')
				restyle_field(&in->cur.target,
				    &in->cur.etarget, m->style);
		}
		if (!in->noskip && m->skip != NULL &&
		    m->skip(in->cur.path, m->skiparg)) {
			tline_clear(&in->cur);
			continue;
		}
		in->have = 1;
	}
	return 0;
}

static int
tm_advance(struct tmerge *m, struct cerr *err)
{
	const char	*minp = NULL;
	int		 i, win = -1, c;

	for (i = 0; i < m->n; i++)
		tline_clear(&m->in[i].same);
	for (i = 0; i < m->n; i++) {
		if (tm_fill(m, i, err) == -1)
			return -1;
		if (!m->in[i].have)
			continue;
		if (minp == NULL ||
		    (c = pathcmp(m->in[i].cur.path, minp, m->icase)) < 0 ||
		    c == 0) {
			minp = m->in[i].cur.path;
			win = i;	/* later (higher) inputs win ties */
		}
	}
	if (win == -1)
		return 0;
	tline_move(&m->win, &m->in[win].cur);
	m->in[win].have = 0;
	m->winidx = win;
	for (i = 0; i < m->n; i++) {
		if (m->in[i].have &&
		    pathcmp(m->in[i].cur.path, m->win.path, m->icase) == 0) {
			tline_move(&m->in[i].same, &m->in[i].cur);
			m->in[i].have = 0;
		}
	}
	return 1;
}

int
tmerge_peek(struct tmerge *m, const struct tline **out, int *idx,
    struct cerr *err)
{
	if (!m->peeked) {
		m->peekrc = tm_advance(m, err);
		m->peeked = 1;
	}
	if (m->peekrc == 1) {
		*out = &m->win;
		if (idx != NULL)
			*idx = m->winidx;
	}
	return m->peekrc;
}

const struct tline *
tmerge_line(struct tmerge *m, int idx)
{
	if (m->peekrc != 1 || idx < 0 || idx >= m->n)
		return NULL;
	if (idx == m->winidx)
		return &m->win;
	return m->in[idx].same.path != NULL ? &m->in[idx].same : NULL;
}

int
tmerge_next(struct tmerge *m, const struct tline **out, int *idx,
    struct cerr *err)
{
	int	rc;

	rc = tmerge_peek(m, out, idx, err);
	if (rc != -1)
		m->peeked = 0;
	return rc;
}

void
tmerge_free(struct tmerge *m)
{
	int	i;

	if (m == NULL)
		return;
	for (i = 0; i < m->n; i++) {
		tline_clear(&m->in[i].cur);
		tline_clear(&m->in[i].same);
		treader_close(m->in[i].r);
	}
	tline_clear(&m->win);
	free(m->in);
	free(m);
}
