/*
 * lsort: sort transcript lines by path (docs/formats.md section 4).
 *
 * All inputs are read into memory once; each kept line is recorded as a
 * pointer into its input plus its decoded path, the array is sorted
 * (deterministically: equal keys in reverse input order, as Radmind
 * writes them) and the lines are written back byte for byte.  Blank and
 * comment lines are dropped.  A last line without LF gets one; a NUL or
 * CR byte anywhere is an error, as for every transcript reader.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "encode.h"
#include "pathcmp.h"
#include "version.h"
#include "xmalloc.h"

#define LSORT_EXIT_FORMAT	1	/* usage or bad input line */
#define LSORT_EXIT_IO		2	/* cannot read or write */

struct lsort_line {
	const char	*line;		/* verbatim, maybe without final LF */
	size_t		 len;
	const char	*key;		/* decoded path */
	size_t		 idx;		/* input order, breaks ties */
};

struct lsort {
	struct lsort_line	*lines;
	size_t			 nlines;
	size_t			 cap;
	int			 icase;
};

static int	lsort_icase;

static void
usage(void)
{
	fprintf(stderr, "Usage: lsort [ -IV ] [ -o file ] [ files... ]\n");
	exit(LSORT_EXIT_FORMAT);
}

/*
 * Read all of fd into a malloc'd buffer; *len receives its size.
 * Returns NULL with errno set on a read error.
 */
static char *
slurp(int fd, size_t *len)
{
	char	*data = NULL;
	size_t	 cap = 0, n = 0;
	ssize_t	 r;

	for (;;) {
		if (cap - n < 65536) {
			cap = cap == 0 ? 1 << 20 : cap * 2;
			data = xreallocarray(data, cap, 1);
		}
		r = read(fd, data + n, cap - n - 1);
		if (r == -1) {
			if (errno == EINTR)
				continue;
			free(data);
			return NULL;
		}
		if (r == 0)
			break;
		n += (size_t)r;
	}
	data[n] = '\0';
	*len = n;
	return data;
}

static int
isblank_tok(char c)
{
	return c == ' ' || c == '\t' || c == '\n';
}

/*
 * Find the next token at or after *p (bounded by end); returns its start
 * and length in *tlen, or NULL if none is left on the line.
 */
static const char *
next_token(const char **p, const char *end, size_t *tlen)
{
	const char	*s = *p, *t;

	while (s < end && isblank_tok(*s))
		s++;
	if (s == end)
		return NULL;
	t = s;
	while (s < end && !isblank_tok(*s))
		s++;
	*tlen = (size_t)(s - t);
	*p = s;
	return t;
}

/*
 * Split one input (already in memory) into lines and record every
 * object line.  name is used in messages.
 */
static void
add_input(struct lsort *ls, const char *data, size_t len, const char *name)
{
	const char	*p = data, *end = data + len, *eol, *q, *tok;
	char		*keys, *kp;
	size_t		 tlen, linelen;
	unsigned	 lineno = 0;

	/* Each key plus its NUL fits in its line, so len + 1 is enough. */
	keys = kp = xmalloc(len + 1);
	while (p < end) {
		lineno++;
		eol = memchr(p, '\n', (size_t)(end - p));
		linelen = eol != NULL ? (size_t)(eol - p) + 1 :
		    (size_t)(end - p);
		if (memchr(p, '\0', linelen) != NULL) {
			fprintf(stderr, "%s: line %u: NUL byte in line\n",
			    name, lineno);
			exit(LSORT_EXIT_FORMAT);
		}
		if (memchr(p, '\r', linelen) != NULL) {
			fprintf(stderr, "%s: line %u: carriage return in "
			    "line\n", name, lineno);
			exit(LSORT_EXIT_FORMAT);
		}
		q = p;
		tok = next_token(&q, p + linelen, &tlen);
		if (tok == NULL || *tok == '#')
			goto next;
		/* A leading "-" and/or "+" token is not part of the key. */
		if (tlen == 1 && *tok == '-')
			tok = next_token(&q, p + linelen, &tlen);
		if (tok != NULL && tlen == 1 && *tok == '+')
			tok = next_token(&q, p + linelen, &tlen);
		/* tok is now the type; the path must follow. */
		if (tok == NULL ||
		    (tok = next_token(&q, p + linelen, &tlen)) == NULL) {
			fprintf(stderr, "%s: line %u: not enough fields\n",
			    name, lineno);
			exit(LSORT_EXIT_FORMAT);
		}
		memcpy(kp, tok, tlen);
		kp[tlen] = '\0';
		if (decode_inplace(kp) == -1) {
			/* decode_inplace leaves kp half decoded: recopy */
			memcpy(kp, tok, tlen);
			fprintf(stderr, "%s: line %u: %s\n", name, lineno,
			    decode_badescape(kp) ? "bad path encoding" :
			    "path too long");
			exit(LSORT_EXIT_FORMAT);
		}
		if (ls->nlines == ls->cap) {
			ls->cap = ls->cap == 0 ? 4096 : ls->cap * 2;
			ls->lines = xreallocarray(ls->lines, ls->cap,
			    sizeof(*ls->lines));
		}
		ls->lines[ls->nlines].line = p;
		ls->lines[ls->nlines].len = linelen;
		ls->lines[ls->nlines].key = kp;
		ls->lines[ls->nlines].idx = ls->nlines;
		ls->nlines++;
		kp += strlen(kp) + 1;
	next:
		p += linelen;
	}
	/* keys stays allocated: the recorded lines point into it. */
	if (kp == keys)
		free(keys);
}

static void
read_input(struct lsort *ls, const char *arg)
{
	const char	*name;
	char		*data;
	size_t		 len;
	int		 fd;

	if (strcmp(arg, "-") == 0) {
		name = "(stdin)";
		fd = STDIN_FILENO;
	} else {
		name = arg;
		if ((fd = open(arg, O_RDONLY)) == -1) {
			fprintf(stderr, "%s: %s\n", arg, strerror(errno));
			exit(LSORT_EXIT_IO);
		}
	}
	if ((data = slurp(fd, &len)) == NULL) {
		fprintf(stderr, "%s: %s\n", name, strerror(errno));
		exit(LSORT_EXIT_IO);
	}
	if (fd != STDIN_FILENO)
		close(fd);
	add_input(ls, data, len, name);
	/* data stays allocated: the recorded lines point into it. */
}

static int
line_cmp(const void *a, const void *b)
{
	const struct lsort_line	*x = a, *y = b;
	int			 c;

	if ((c = pathcmp(x->key, y->key, lsort_icase)) != 0)
		return c;
	/*
	 * Equal keys come out in reverse input order, as Radmind's lsort
	 * does (it collects lines into a list by prepending, then sorts
	 * stably).
	 */
	return x->idx > y->idx ? -1 : x->idx < y->idx;
}

int
main(int argc, char *argv[])
{
	struct lsort	 ls;
	const char	*outname = NULL;
	FILE		*out = stdout;
	size_t		 i;
	int		 c, err = 0;

	memset(&ls, 0, sizeof(ls));
	while ((c = getopt(argc, argv, "Io:V")) != -1) {
		switch (c) {
		case 'I':
			ls.icase = 1;
			break;
		case 'o':
			outname = optarg;
			break;
		case 'V':
			version_print(0);
			exit(0);
		default:
			err++;
			break;
		}
	}
	if (err)
		usage();

	if (optind == argc)
		read_input(&ls, "-");
	for (; optind < argc; optind++)
		read_input(&ls, argv[optind]);

	lsort_icase = ls.icase;
	if (ls.nlines > 1)
		qsort(ls.lines, ls.nlines, sizeof(*ls.lines), line_cmp);

	/* Open the output only now, so "-o f f" sorts f in place. */
	if (outname != NULL && (out = fopen(outname, "w")) == NULL) {
		fprintf(stderr, "%s: %s\n", outname, strerror(errno));
		exit(LSORT_EXIT_IO);
	}
	for (i = 0; i < ls.nlines; i++) {
		fwrite(ls.lines[i].line, 1, ls.lines[i].len, out);
		if (ls.lines[i].line[ls.lines[i].len - 1] != '\n')
			putc('\n', out);
	}
	if (fflush(out) == EOF || ferror(out) ||
	    (out != stdout && fclose(out) == EOF)) {
		fprintf(stderr, "writing %s: %s\n",
		    outname != NULL ? outname : "stdout", strerror(errno));
		exit(LSORT_EXIT_IO);
	}
	exit(0);
}
