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

int
tline_getline(FILE *fp, char **line, size_t *cap, const char *name,
    unsigned lineno, struct cerr *err)
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
	if ((*line)[n - 1] != '\n') {
		cerr_set(err, "%s: line %u: incomplete last line (no newline)",
		    name, lineno);
		return -1;
	}
	(*line)[n - 1] = '\0';
	return 1;
}

int
tline_parse(struct tline *t, const char *line, const char *name,
    unsigned lineno, int allow_header, struct cerr *err)
{
	char		*copy, *tok[TL_MAXTOK + 1], **av;
	const char	*why;
	int		 ac, rc = -1, want;
	size_t		 len;

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
		rc = 0;
		goto out;
	}
	if (ac > TL_MAXTOK) {
		cerr_set(err, "%s: line %u: too many arguments", name, lineno);
		goto out;
	}
	if (ac == 1 && allow_header && (len = strlen(tok[0])) > 1 &&
	    tok[0][len - 1] == ':') {
		tok[0][len - 1] = '\0';
		t->path = xstrdup(tok[0]);
		rc = 2;
		goto out;
	}
	if (ac < 3) {
		cerr_set(err, "%s: line %u: minimum 3 arguments, got %d",
		    name, lineno, ac);
		goto out;
	}
	av = tok;
	if (strlen(av[0]) != 1) {
		cerr_set(err, "%s: line %u: %s is too long to be a type",
		    name, lineno, av[0]);
		goto out;
	}
	if (av[0][0] == '-') {
		t->minus = 1;
		av++;
		ac--;
	}
	if (av[0][0] == '+') {
		t->plus = 1;
		av++;
		ac--;
	}
	if (ac < 3) {
		cerr_set(err, "%s: line %u: minimum 3 arguments, got %d",
		    name, lineno, ac);
		goto out;
	}
	if (strlen(av[0]) != 1) {
		cerr_set(err, "%s: line %u: %s is too long to be a type",
		    name, lineno, av[0]);
		goto out;
	}
	t->type = av[0][0];
	t->nfields = ac;
	switch (t->type) {
	case 'f':
	case 'a':
		if (ac != 8) {
			cerr_set(err, "%s: line %u: expected 8 arguments, "
			    "got %d", name, lineno, ac);
			goto out;
		}
		break;
	case 'd':
		if (ac != 5 && ac != 6) {
			cerr_set(err, "%s: line %u: expected 5 or 6 "
			    "arguments, got %d", name, lineno, ac);
			goto out;
		}
		break;
	case 'l':
		if (ac != 3 && ac != 6) {
			cerr_set(err, "%s: line %u: expected 3 or 6 "
			    "arguments, got %d", name, lineno, ac);
			goto out;
		}
		break;
	case 'h':
		want = 3;
		goto count;
	case 'p':
	case 's':
	case 'D':
		want = 5;
		goto count;
	case 'b':
	case 'c':
		want = 7;
	count:
		if (ac != want) {
			cerr_set(err, "%s: line %u: expected %d arguments, "
			    "got %d", name, lineno, want, ac);
			goto out;
		}
		break;
	default:
		cerr_set(err, "%s: line %u: unknown file type '%c'",
		    name, lineno, t->type);
		goto out;
	}

	t->epath = xstrdup(av[1]);
	if (decode_path(av[1], &t->path) == -1) {
		cerr_set(err, "%s: line %u: %s", name, lineno,
		    decode_badescape(av[1]) ? "bad path encoding" :
		    "path too long");
		goto out;
	}
	if (t->path[0] == '\0') {
		cerr_set(err, "%s: line %u: empty path", name, lineno);
		goto out;
	}
	if ((why = path_problem(t->path)) != NULL) {
		cerr_set(err, "%s: line %u: path %s", name, lineno, why);
		goto out;
	}
	if (t->type == 'h' || (t->type == 'l' && ac == 3)) {
		t->etarget = xstrdup(av[2]);
		if (decode_path(av[2], &t->target) == -1) {
			cerr_set(err, "%s: line %u: %s", name, lineno,
			    decode_badescape(av[2]) ? "bad link target encoding" :
			    "link target too long");
			goto out;
		}
		if (t->type == 'h' && (why = path_problem(t->target)) !=
		    NULL) {
			cerr_set(err, "%s: line %u: hard link target %s",
			    name, lineno, why);
			goto out;
		}
		if (t->type == 'h' && path_style(t->target) !=
		    path_style(t->path)) {
			cerr_set(err, "%s: line %u: hard link target %s",
			    name, lineno, path_style(t->path) == PATH_RELATIVE ?
			    "must start with ./" : "must start with /");
			goto out;
		}
		if (t->type == 'l') {
			t->mode = 0777;
			t->uid = t->gid = 0;
		}
		rc = 1;
		goto out;
	}
	if (parse_mode(av[2], &t->mode) == -1) {
		cerr_set(err, "%s: line %u: bad mode %s", name, lineno, av[2]);
		goto out;
	}
	if (parse_id(av[3], &t->uid) == -1) {
		cerr_set(err, "%s: line %u: bad uid %s", name, lineno, av[3]);
		goto out;
	}
	if (parse_id(av[4], &t->gid) == -1) {
		cerr_set(err, "%s: line %u: bad gid %s", name, lineno, av[4]);
		goto out;
	}
	switch (t->type) {
	case 'f':
	case 'a':
		if (parse_i64(av[5], &t->mtime, 0) == -1) {
			cerr_set(err, "%s: line %u: bad mtime %s", name,
			    lineno, av[5]);
			goto out;
		}
		if (parse_i64(av[6], &t->size, 0) == -1) {
			cerr_set(err, "%s: line %u: bad size %s", name,
			    lineno, av[6]);
			goto out;
		}
		if (!valid_cksum(av[7])) {
			cerr_set(err, "%s: line %u: bad checksum %s", name,
			    lineno, av[7]);
			goto out;
		}
		strlcpy(t->cksum, av[7], sizeof(t->cksum));
		break;
	case 'l':
		t->etarget = xstrdup(av[5]);
		if (decode_path(av[5], &t->target) == -1) {
			cerr_set(err, "%s: line %u: %s", name, lineno,
			    decode_badescape(av[5]) ? "bad link target encoding" :
			    "link target too long");
			goto out;
		}
		break;
	case 'b':
	case 'c':
		if (parse_dev(av[5], &t->major) == -1 ||
		    parse_dev(av[6], &t->minor) == -1) {
			cerr_set(err, "%s: line %u: bad device number", name,
			    lineno);
			goto out;
		}
		break;
	default:
		break;
	}
	rc = 1;
out:
	free(copy);
	if (rc == -1)
		tline_clear(t);
	return rc;
}

int
tline_format(struct buf *b, const struct tline *t, int prefixes)
{
	char	*ep = NULL, *et = NULL;
	int	 r = 0;

	if (prefixes && t->minus)
		r |= buf_addstr(b, "- ");
	if (prefixes && t->plus)
		r |= buf_addstr(b, "+ ");
	ep = t->epath != NULL ? NULL : encode_dup(t->path);
	r |= buf_printf(b, "%c %-37s\t", t->type, ep != NULL ? ep : t->epath);
	if (t->type == 'l' || t->type == 'h')
		et = t->etarget != NULL ? NULL : encode_dup(t->target);
	switch (t->type) {
	case 'f':
	case 'a':
		r |= buf_printf(b, "%.4o %5d %5d %9lld %7lld %s\n",
		    (unsigned)t->mode, (int)t->uid, (int)t->gid,
		    (long long)t->mtime, (long long)t->size, t->cksum);
		break;
	case 'l':
		r |= buf_printf(b, "%.4o %5d %5d %s\n", (unsigned)t->mode,
		    (int)t->uid, (int)t->gid, et != NULL ? et : t->etarget);
		break;
	case 'h':
		r |= buf_printf(b, "%s\n", et != NULL ? et : t->etarget);
		break;
	case 'b':
	case 'c':
		r |= buf_printf(b, "%.4o %5d %5d %5u %5u\n", (unsigned)t->mode,
		    (int)t->uid, (int)t->gid, t->major, t->minor);
		break;
	default:
		r |= buf_printf(b, "%.4o %5d %5d\n", (unsigned)t->mode,
		    (int)t->uid, (int)t->gid);
		break;
	}
	free(ep);
	free(et);
	return r == 0 ? 0 : -1;
}

int
tline_print(FILE *fp, const struct tline *t, int prefixes)
{
	static struct buf	*b;

	if (b == NULL)
		b = buf_new(TRAN_MAXLINE * 2);
	buf_reset(b);
	if (tline_format(b, t, prefixes) == -1)
		return -1;
	if (fwrite(buf_data(b), 1, buf_len(b), fp) != buf_len(b))
		return -1;
	return 0;
}

/* Sorted reader. */
struct treader {
	FILE		*fp;
	int		 keep;
	char		*name;
	int		 flags;
	unsigned	 lineno;
	char		*line;
	size_t		 linecap;
	struct tline	 cur;
	char		*prev;		/* previous path, for the order check */
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

int
treader_next(struct treader *r, const struct tline **out, struct cerr *err)
{
	int	 rc;

	for (;;) {
		rc = tline_getline(r->fp, &r->line, &r->linecap, r->name,
		    r->lineno + 1, err);
		if (rc != 1)
			return rc;
		r->lineno++;
		rc = tline_parse(&r->cur, r->line, r->name, r->lineno,
		    r->flags & TR_HEADERS, err);
		if (rc == -1)
			return -1;
		if (rc == 0)
			continue;
		if (rc == 2) {
			*out = &r->cur;
			return 2;
		}
		break;
	}
	if ((r->flags & TR_CKSUM) && (r->cur.type == 'f' ||
	    r->cur.type == 'a') && strcmp(r->cur.cksum, "-") == 0) {
		cerr_set(err, "%s: line %u: no cksums in transcript", r->name,
		    r->lineno);
		return -1;
	}
	if (!(r->flags & TR_NOSORT)) {
		if (r->prev != NULL && pathcmp(r->prev, r->cur.path,
		    r->flags & TR_ICASE) >= 0) {
			cerr_set(err, "%s: line %u: bad sort order", r->name,
			    r->lineno);
			return -1;
		}
		free(r->prev);
		r->prev = xstrdup(r->cur.path);
	}
	*out = &r->cur;
	return 1;
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
path_style(const char *p)
{
	return p[0] == '/' ? PATH_ABSOLUTE : PATH_RELATIVE;
}

int
path_has_dotdot(const char *p)
{
	size_t	n;

	for (;;) {
		n = strcspn(p, "/");
		if (n == 2 && p[0] == '.' && p[1] == '.')
			return 1;
		if (p[n] == '\0')
			return 0;
		p += n + 1;
	}
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

char *
path_restyle(const char *p, int style)
{
	char	*out;

	if (style == PATH_ABSOLUTE) {
		if (strcmp(p, ".") == 0)
			return xstrdup("/");
		if (strncmp(p, "./", 2) == 0)
			return xstrdup(p + 1);
	} else {
		if (strcmp(p, "/") == 0)
			return xstrdup(".");
		if (p[0] == '/') {
			xasprintf(&out, ".%s", p);
			return out;
		}
	}
	return xstrdup(p);
}

/* Precedence merge. */
struct tm_input {
	struct treader	*r;
	void		*udata;
	int		 noskip;
	int		 eof;
	int		 have;		/* cur holds a line */
	struct tline	 cur;
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
		if (rc == 2)
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
	tline_clear(&m->win);
	m->win = m->in[win].cur;	/* take ownership */
	memset(&m->in[win].cur, 0, sizeof(m->in[win].cur));
	m->in[win].have = 0;
	m->winidx = win;
	for (i = 0; i < m->n; i++) {
		if (m->in[i].have &&
		    pathcmp(m->in[i].cur.path, m->win.path, m->icase) == 0) {
			tline_clear(&m->in[i].cur);
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
		treader_close(m->in[i].r);
	}
	tline_clear(&m->win);
	free(m->in);
	free(m);
}
