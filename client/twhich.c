/*
 * twhich: report which transcript of a command file provides a path
 * (twhich(1)).  Transcripts are searched from the highest precedence
 * (special.T, then the last listed) to the lowest.
 */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "command.h"
#include "copts.h"
#include "log.h"
#include "path.h"
#include "pathcmp.h"
#include "transcript.h"
#include "wildcard.h"
#include "xmalloc.h"

#define TW_FOUND	0
#define TW_NOTFOUND	1
#define TW_ERROR	2

#define TW_POSITIVE	'p'
#define TW_NEGATIVE	'n'
#define TW_SPECIAL	's'

struct tw_tran {
	char		 type;		/* p n s */
	char		*name;		/* short name, as in the command file */
	char		*kfile;		/* command file that listed it */
	char		*path;		/* file opened */
	struct treader	*r;
	int		 eof;
	int		 have;		/* cur holds the next unconsumed line */
	const struct tline *cur;
};

struct twhich {
	struct tw_tran	*tran;		/* highest precedence first */
	size_t		 ntran;
	char		**exclude;	/* converted to the run's path style */
	size_t		 nexclude;
	int		 style;		/* PATH_RELATIVE/ABSOLUTE, or -1 */
	int		 icase;
	int		 all;		/* -a */
	const struct tw_tran *lastheader; /* last "<transcript>:" printed */
};

static void
usage(void)
{
	fprintf(stderr, "Usage: twhich [ -aIrV ] [ -K command file ] file\n");
	fprintf(stderr, "Usage: twhich -s -K command [ -aIrV ] file\n");
	exit(TW_ERROR);
}

static void
tw_add(struct twhich *tw, char type, const char *name, const char *kfile,
    const char *path, int flags)
{
	struct tw_tran	*t;
	struct cerr	 err;

	tw->tran = xreallocarray(tw->tran, tw->ntran + 1, sizeof(*tw->tran));
	t = &tw->tran[tw->ntran++];
	memset(t, 0, sizeof(*t));
	t->type = type;
	t->name = xstrdup(name);
	t->kfile = xstrdup(kfile);
	t->path = xstrdup(path);
	if ((t->r = treader_open(path, NULL, flags, &err)) == NULL)
		fatalx("%s", err.msg);
}

/* Convert a decoded path to the run's style (docs/formats.md 3). */
static char *
restyle(const struct twhich *tw, const char *p)
{
	if (tw->style == -1)
		return xstrdup(p);
	return path_restyle(p, tw->style);
}

/*
 * Next line of t in the run's path style, or NULL at EOF.  The line
 * stays current until tw_consume.
 */
static const struct tline *
tw_peek(struct twhich *tw, struct tw_tran *t)
{
	struct cerr		 err;
	const struct tline	*l;
	int			 rc;

	(void)tw;
	if (t->eof)
		return NULL;
	if (!t->have) {
		if ((rc = treader_next(t->r, &l, &err)) == -1)
			fatalx("%s", err.msg);
		if (rc == 0) {
			t->eof = 1;
			return NULL;
		}
		t->cur = l;
		t->have = 1;
	}
	return t->cur;
}

/* Print a hit in the transcript's run style. */
static void
tw_print(struct twhich *tw, const struct tw_tran *t, const struct tline *l)
{
	struct tline	 c;

	memset(&c, 0, sizeof(c));
	tline_copy(&c, l);
	free(c.path);
	free(c.epath);
	c.path = restyle(tw, l->path);
	c.epath = NULL;			/* re-encoded from path */
	if (c.type == 'h') {
		free(c.target);
		free(c.etarget);
		c.target = restyle(tw, l->target);
		c.etarget = NULL;
	}
	switch (t->type) {
	case TW_POSITIVE:
		printf("# Positive\n");
		break;
	case TW_NEGATIVE:
		printf("# Negative\n");
		break;
	default:
		printf("# Special\n");
		break;
	}
	printf("# %s:\n", t->kfile);
	if (l->minus) {
		/* Always named; does not count as the last header. */
		printf("%s:\n", t->name);
		fputs("- ", stdout);
	} else {
		if (tw->lastheader != t) {
			printf("%s:\n", t->name);
			tw->lastheader = t;
		}
		if (c.type == 'f' || c.type == 'a')
			fputs("+ ", stdout);
	}
	if (tline_print(stdout, &c, 0) == -1)
		fatalx("%s: line %u: line too long to print", t->path,
		    l->lineno);
	tline_clear(&c);
}

/* Look up one path; returns TW_FOUND or TW_NOTFOUND. */
static int
twhich(struct twhich *tw, const char *path)
{
	struct tw_tran		*t;
	const struct tline	*l;
	char			*p;
	size_t			 i;
	int			 match = 0, cmp;

	for (i = 0; i < tw->nexclude; i++) {
		if (wildcard(tw->exclude[i], path, tw->icase)) {
			printf("# Exclude\n");
			printf("# exclude pattern: %s\n", tw->exclude[i]);
			if (!tw->all)
				return TW_NOTFOUND;
		}
	}
	for (i = 0; i < tw->ntran; i++) {
		t = &tw->tran[i];
		for (;;) {
			if ((l = tw_peek(tw, t)) == NULL)
				break;
			p = restyle(tw, l->path);
			cmp = pathcmp(p, path, tw->icase);
			free(p);
			if (cmp >= 0)
				break;
			t->have = 0;
		}
		if (l == NULL || cmp > 0)
			continue;
		match++;
		tw_print(tw, t, l);
		if (!tw->all)
			break;
	}
	return match ? TW_FOUND : TW_NOTFOUND;
}

/* twhich's own options; -I and -V are the shared ones (copts.h). */
struct twopts {
	struct twhich	*tw;
	const char	*kfile;		/* -K */
	int		 defaultk;	/* no -K */
	int		 recursive;	/* -r */
	int		 server;	/* -s */
};

static int
twhich_opt(int c, const char *arg, void *ctx)
{
	struct twopts	*to = ctx;

	switch (c) {
	case 'a':
		to->tw->all = 1;
		break;
	case 'K':
		to->kfile = arg;
		to->defaultk = 0;
		break;
	case 'r':
		to->recursive = 1;
		break;
	case 's':
		to->server = 1;
		break;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct twhich	 tw;
	struct twopts	 to;
	struct copts	 co;
	struct cmdset	*cs;
	struct cerr	 err;
	const char	*kfile;
	char		*pattern, *p, *path, *kdir = NULL;
	size_t		 i, len;
	int		 server, recursive;
	int		 flags, rc;

	log_init("twhich", LOG_TO_STDERR, 0);
	log_setfatalstatus(TW_ERROR);
	memset(&tw, 0, sizeof(tw));
	memset(&to, 0, sizeof(to));
	to.tw = &tw;
	to.kfile = _RADMIND_PATH "/client/command.K";
	to.defaultk = 1;
	copts_init(&co, COPTS_ICASE, NULL);
	if (copts_parse(argc, argv, &co, "aK:rs", twhich_opt, &to) == -1 ||
	    argc - optind != 1 || (to.server && to.defaultk))
		usage();
	kfile = to.kfile;
	server = to.server;
	recursive = to.recursive;
	tw.icase = co.icase;

	pattern = xstrdup(argv[optind]);
	len = strlen(pattern);
	if (len > 1 && pattern[len - 1] == '/')
		pattern[--len] = '\0';
	/* "." and "./..." are relative; names starting with "." are not. */
	if (pattern[0] == '.') {
		if (len == 1 || pattern[1] == '/')
			tw.style = PATH_RELATIVE;
		else
			tw.style = -1;
	} else
		tw.style = PATH_ABSOLUTE;

	if (server)
		xasprintf(&kdir, "%s/command/", _RADMIND_PATH);
	if (cmdset_load(kfile, kdir, CMD_MINUS | CMD_NOMINUSK, &cs,
	    &err) == -1)
		fatalx("%s", err.msg);
	flags = TR_ONESTYLE | (tw.icase ? TR_ICASE : 0);
	if (cs->nspecial > 0 && !server) {
		xasprintf(&path, "%sspecial.T", cs->kdir);
		tw_add(&tw, TW_SPECIAL, "special.T", "special", path, flags);
		free(path);
	}
	for (i = cs->ntran; i-- > 0; ) {
		if (server)
			xasprintf(&path, "%s/transcript/%s", _RADMIND_PATH,
			    cs->tran[i].name);
		else
			xasprintf(&path, "%s%s", cs->kdir, cs->tran[i].name);
		tw_add(&tw, cs->tran[i].type == 'n' ? TW_NEGATIVE :
		    TW_POSITIVE, cs->tran[i].name, cs->tran[i].kfile, path,
		    flags);
		free(path);
	}
	for (i = 0; i < cs->nexclude; i++) {
		tw.exclude = xreallocarray(tw.exclude, tw.nexclude + 1,
		    sizeof(*tw.exclude));
		tw.exclude[tw.nexclude++] = restyle(&tw, cs->exclude[i]);
	}

	if (recursive) {
		/* Each leading component first: "./etc", "./etc/ssh", ... */
		for (p = pattern; *p == '/'; p++)
			;
		for (p = strchr(p, '/'); p != NULL; p = strchr(p, '/')) {
			*p = '\0';
			if (twhich(&tw, pattern) != TW_FOUND)
				printf("# %s: not found\n", pattern);
			*p++ = '/';
		}
	}
	rc = twhich(&tw, pattern);
	if (fflush(stdout) == EOF || ferror(stdout))
		fatal("stdout");
	exit(rc);
}
