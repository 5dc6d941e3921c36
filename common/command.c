/*
 * command.c: Radmind command files: line parsing and full expansion with
 * includes, minus lines, specials and excludes.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cerr.h"
#include "command.h"
#include "encode.h"
#include "xmalloc.h"

#define CMD_MAXDEPTH	64

int
cline_parse(struct cline *c, const char *line, const char *file,
    unsigned lineno, struct cerr *err)
{
	char	*copy, *tok[4], *p;
	int	 n = 0, rc = -1;

	memset(c, 0, sizeof(*c));
	c->lineno = lineno;
	copy = xstrdup(line);
	for (p = strtok(copy, " \t\r"); p != NULL; p = strtok(NULL, " \t\r")) {
		if (n < 4)
			tok[n] = p;
		n++;
	}
	if (n == 0 || tok[0][0] == '#') {
		rc = 0;
		goto out;
	}
	if (strcmp(tok[0], "-") == 0) {
		if (n != 3) {
			cerr_set(err, "command file %s: line %u: expected 3 "
			    "arguments, got %d", file, lineno, n);
			goto out;
		}
		c->minus = 1;
		tok[0] = tok[1];
		tok[1] = tok[2];
		n = 2;
	}
	if (strlen(tok[0]) != 1 || strchr("kpnsx", tok[0][0]) == NULL) {
		cerr_set(err, "command file %s: line %u: '%s' invalid", file,
		    lineno, tok[0]);
		goto out;
	}
	if (n != 2) {
		cerr_set(err, "command file %s: line %u: expected 2 arguments, "
		    "got %d", file, lineno, n);
		goto out;
	}
	c->type = tok[0][0];
	c->name = xstrdup(tok[1]);
	rc = 1;
out:
	free(copy);
	return rc;
}

char *
command_dir(const char *kfile)
{
	const char	*slash;

	if ((slash = strrchr(kfile, '/')) == NULL)
		return xstrdup("./");
	return xstrndup(kfile, (size_t)(slash - kfile) + 1);
}

static void
push(char ***arr, size_t *n, char *s)
{
	*arr = xreallocarray(*arr, *n + 1, sizeof(**arr));
	(*arr)[(*n)++] = s;
}

/* Remove every element equal to s (ignoring case with icase). */
static void
drop(char **arr, size_t *n, const char *s, int icase)
{
	size_t	i, j;

	for (i = j = 0; i < *n; i++) {
		if ((icase ? strcasecmp(arr[i], s) : strcmp(arr[i], s)) == 0)
			free(arr[i]);
		else
			arr[j++] = arr[i];
	}
	*n = j;
}

/* Command files read so far, by inode: a second inclusion is a loop. */
struct kseen {
	dev_t	dev;
	ino_t	ino;
};

struct kctx {
	struct cmdset		*cs;
	struct kseen		*seen;
	size_t			 nseen;
	const struct cmdwalk	*w;
	int			 stop;		/* the entry hook said so */
};

static int
seen(const struct kctx *kc, const struct stat *st)
{
	size_t	i;

	for (i = 0; i < kc->nseen; i++)
		if (kc->seen[i].dev == st->st_dev &&
		    kc->seen[i].ino == st->st_ino)
			return 1;
	return 0;
}

/*
 * Open the command file kpath (name: as its k line wrote it, NULL for
 * the base file) through the walk's hook, or by path.
 */
static FILE *
cmd_open(struct kctx *kc, const char *kpath, const char *name)
{
	FILE	*fp;
	int	 fd;

	if (kc->w == NULL || kc->w->open == NULL)
		return fopen(kpath, "r");
	if ((fd = kc->w->open(kc->w->arg, kpath, name)) == -1)
		return NULL;
	if ((fp = fdopen(fd, "r")) == NULL)
		close(fd);
	return fp;
}

static int
cmd_read(struct kctx *kc, const char *kpath, const char *name, int flags,
    int depth, struct cerr *err)
{
	struct cmdset	*cs = kc->cs;
	FILE		*fp;
	char		*line = NULL, *path, *dec;
	size_t		 cap = 0, i, j;
	ssize_t		 len;
	unsigned	 lineno = 0;
	struct cline	 c;
	struct stat	 st;
	int		 rc = -1, r, icase = (flags & CMD_ICASE) != 0;

	if ((fp = cmd_open(kc, kpath, name)) == NULL) {
		cerr_errno(err, "%s", kpath);
		return -1;
	}
	if (fstat(fileno(fp), &st) == -1) {
		cerr_errno(err, "%s", kpath);
		fclose(fp);
		return -1;
	}
	/* The same file under another name: a loop all the same. */
	if (seen(kc, &st)) {
		cerr_set(err, "command file %s: included twice (loop)", kpath);
		fclose(fp);
		return -1;
	}
	kc->seen = xreallocarray(kc->seen, kc->nseen + 1, sizeof(*kc->seen));
	kc->seen[kc->nseen].dev = st.st_dev;
	kc->seen[kc->nseen].ino = st.st_ino;
	kc->nseen++;
	push(&cs->kfiles, &cs->nkfiles, xstrdup(kpath));
	while (!kc->stop && (len = getline(&line, &cap, fp)) != -1) {
		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if ((size_t)len != strlen(line)) {
			cerr_set(err, "command file %s: line %u: NUL byte",
			    kpath, lineno);
			goto out;
		}
		if ((r = cline_parse(&c, line, kpath, lineno, err)) == -1)
			goto out;
		if (r == 0)
			continue;
		if (c.minus) {
			if (c.type == 'k' && (flags & CMD_NOMINUSK)) {
				cerr_set(err, "command file %s: line %u: "
				    "minus 'k' not supported", kpath, lineno);
				free(c.name);
				goto out;
			}
			if ((flags & CMD_MINUS) ||
			    ((flags & CMD_MINUS_S) && c.type == 's')) {
				switch (c.type) {
				case 'p':
				case 'n':
					for (i = j = 0; i < cs->ntran; i++) {
						if (cs->tran[i].type == c.type &&
						    strcmp(cs->tran[i].name,
						    c.name) == 0) {
							free(cs->tran[i].name);
							free(cs->tran[i].kfile);
						} else
							cs->tran[j++] =
							    cs->tran[i];
					}
					cs->ntran = j;
					break;
				case 's':
					drop(cs->special, &cs->nspecial,
					    c.name, icase);
					break;
				case 'x':
					if (decode_path(c.name, &dec) == 0) {
						drop(cs->exclude,
						    &cs->nexclude, dec, 0);
						free(dec);
					}
					break;
				}
			}
			free(c.name);
			continue;
		}
		/*
		 * Included command files and transcripts are named relative
		 * to the command directory, and stay in it, for every
		 * reader: ktcheck fetches them there, fsdiff and the others
		 * read them from there.
		 */
		if ((c.type == 'k' || c.type == 'p' || c.type == 'n') &&
		    !command_name_ok(c.name)) {
			cerr_set(err, "command file %s: line %u: %s: name "
			    "outside the command directory", kpath, lineno,
			    c.name);
			free(c.name);
			goto out;
		}
		if (kc->w != NULL && kc->w->entry != NULL) {
			if ((r = kc->w->entry(kc->w->arg, &c, kpath, err)) ==
			    -1) {
				free(c.name);
				goto out;
			}
			if (r == 1) {
				free(c.name);
				kc->stop = 1;
				break;
			}
		}
		switch (c.type) {
		case 'k':
			if (depth >= CMD_MAXDEPTH) {
				cerr_set(err, "command file %s: line %u: "
				    "include depth exceeds %d", kpath, lineno,
				    CMD_MAXDEPTH);
				free(c.name);
				goto out;
			}
			xasprintf(&path, "%s%s", cs->kdir, c.name);
			for (i = 0; i < cs->nkfiles; i++)
				if (strcmp(cs->kfiles[i], path) == 0)
					break;
			/* the same file under another name is caught too */
			if (i < cs->nkfiles || (kc->w == NULL &&
			    stat(path, &st) == 0 && seen(kc, &st))) {
				cerr_set(err, "command file %s: line %u: %s: "
				    "included twice (loop)", kpath, lineno,
				    c.name);
				free(path);
				free(c.name);
				goto out;
			}
			r = cmd_read(kc, path, c.name, flags, depth + 1, err);
			free(c.name);
			free(path);
			if (r == -1)
				goto out;
			break;
		case 'p':
		case 'n':
			cs->tran = xreallocarray(cs->tran, cs->ntran + 1,
			    sizeof(*cs->tran));
			cs->tran[cs->ntran].type = c.type;
			cs->tran[cs->ntran].name = c.name;
			cs->tran[cs->ntran].kfile = xstrdup(kpath);
			cs->ntran++;
			break;
		case 's':
			push(&cs->special, &cs->nspecial, c.name);
			break;
		case 'x':
			if (decode_path(c.name, &dec) == -1) {
				cerr_set(err, "command file %s: line %u: bad "
				    "encoding in '%s'", kpath, lineno, c.name);
				free(c.name);
				goto out;
			}
			free(c.name);
			push(&cs->exclude, &cs->nexclude, dec);
			break;
		}
	}
	if (ferror(fp)) {
		cerr_errno(err, "%s", kpath);
		goto out;
	}
	rc = 0;
out:
	free(line);
	fclose(fp);
	return rc;
}

int
cmdset_load(const char *kfile, const char *kdir, int flags,
    struct cmdset **out, struct cerr *err)
{
	return cmdset_walk(kfile, kdir, flags, NULL, out, err);
}

int
cmdset_walk(const char *kfile, const char *kdir, int flags,
    const struct cmdwalk *w, struct cmdset **out, struct cerr *err)
{
	struct cmdset	*cs;
	struct kctx	 kc;
	int		 rc;

	cs = xcalloc(1, sizeof(*cs));
	cs->kdir = kdir != NULL ? xstrdup(kdir) : command_dir(kfile);
	memset(&kc, 0, sizeof(kc));
	kc.cs = cs;
	kc.w = w;
	rc = cmd_read(&kc, kfile, NULL, flags, 0, err);
	free(kc.seen);
	if (rc == -1) {
		cmdset_free(cs);
		return -1;
	}
	*out = cs;
	return 0;
}

void
cmdset_free(struct cmdset *cs)
{
	size_t	i;

	if (cs == NULL)
		return;
	for (i = 0; i < cs->ntran; i++) {
		free(cs->tran[i].name);
		free(cs->tran[i].kfile);
	}
	free(cs->tran);
	for (i = 0; i < cs->nspecial; i++)
		free(cs->special[i]);
	free(cs->special);
	for (i = 0; i < cs->nexclude; i++)
		free(cs->exclude[i]);
	free(cs->exclude);
	for (i = 0; i < cs->nkfiles; i++)
		free(cs->kfiles[i]);
	free(cs->kfiles);
	free(cs->kdir);
	free(cs);
}

int
command_name_ok(const char *name)
{
	const char	*p = name;
	size_t		 n;
	int		 named = 0;

	if (name[0] == '\0' || name[0] == '/')
		return 0;
	for (;;) {
		n = strcspn(p, "/");
		if (n == 0 || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (n != 1 || p[0] != '.')
			named = 1;
		if (p[n] == '\0')
			return named;
		p += n + 1;
	}
}

char *
command_name_canon(const char *name)
{
	const char	*p = name;
	char		*out, *o;
	size_t		 n;

	o = out = xmalloc(strlen(name) + 1);
	for (;;) {
		n = strcspn(p, "/");
		if (n != 1 || p[0] != '.') {
			if (o != out)
				*o++ = '/';
			memcpy(o, p, n);
			o += n;
		}
		if (p[n] == '\0')
			break;
		p += n + 1;
	}
	*o = '\0';
	return out;
}
