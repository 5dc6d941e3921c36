/*
 * lfdiff: compare a local file with the server's copy (lfdiff(1)).
 * The server copy is fetched into a private temporary file,
 * unlinked at once, and given to diff(1) on its standard input:
 * "diff [options] -- - file", so the server copy is the left side.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "command.h"
#include "compat.h"
#include "copts.h"
#include "encode.h"
#include "download.h"
#include "log.h"
#include "net.h"
#include "path.h"
#include "pathcmp.h"
#include "transcript.h"
#include "wildcard.h"
#include "xmalloc.h"

#define LF_ERROR	2
#define LF_MAXDIFFARGS	64

struct lf {
	struct netopts	 no;
	const char	*kfile;		/* -K */
	const char	*tname;		/* -T */
	int		 special;	/* -S */
	int		 icase;		/* -I */
	const char	*diffargv[LF_MAXDIFFARGS];
	int		 ndiff;
	char		*xcopy;		/* -X strings, split in place */
};

static void
usage(void)
{
	fprintf(stderr, "usage: lfdiff [-IrvV] [-T transcript | -S] "
	    "[-K command file] [-u umask] %s [-bitcefns] [-C lines] "
	    "[-D name] [-X \"diff options\"] file\n", copts_usage());
	exit(LF_ERROR);
}

static void
diff_add(struct lf *lf, const char *arg)
{
	if (lf->ndiff >= LF_MAXDIFFARGS - 5)
		fatalx("lfdiff: too many diff options");
	lf->diffargv[lf->ndiff++] = arg;
}

static int
tool_opt(int ch, const char *arg, void *ctx)
{
	struct lf	*lf = ctx;
	char		*p, *tok, *opt;
	const char	*errstr;

	switch (ch) {
	case 'K':
		lf->kfile = arg;
		break;
	case 'S':
		lf->special = 1;
		break;
	case 'T':
		lf->tname = arg;
		break;
	case 'b': case 'i': case 't': case 'c': case 'e': case 'f':
	case 'n': case 's':
		xasprintf(&opt, "-%c", ch);
		diff_add(lf, opt);
		break;
	case 'C':
		(void)strtonum(arg, 0, INT_MAX, &errstr);
		if (errstr != NULL) {
			log_warnx("-C %s: %s", arg, errstr);
			return -1;
		}
		diff_add(lf, "-C");
		diff_add(lf, arg);
		break;
	case 'D':
		diff_add(lf, "-D");
		diff_add(lf, arg);
		break;
	case 'X':
		/* Split on whitespace (Radmind 1.x passed it as one word). */
		p = xstrdup(arg);
		while ((tok = strsep(&p, " \t\n")) != NULL)
			if (*tok != '\0')
				diff_add(lf, tok);
		break;
	}
	return 0;
}

/* One transcript to search, highest precedence first. */
struct cand {
	char		*name;		/* as in the command file */
	char		*path;		/* local copy */
	int		 special;	/* special.T */
};

/*
 * Find the highest-precedence transcript listing file (as twhich does):
 * *tname gets its name (NULL for special.T) and *epath the path token as
 * that transcript writes it.  Returns 0, or -1 after printing why.
 */
static int
lookup(struct lf *lf, const char *file, char **tname, char **epath,
    int *special)
{
	struct cmdset		*cs;
	struct cand		*c = NULL;
	struct treader		*r;
	const struct tline	*l;
	struct cerr		 err;
	char			*want, *p;
	size_t			 i, n = 0;
	int			 style, rc = -1, got, cmp;

	if (file[0] == '.' && (file[1] == '\0' || file[1] == '/'))
		style = PATH_RELATIVE;
	else if (file[0] == '/')
		style = PATH_ABSOLUTE;
	else {
		log_warnx("%s: path must start with \"/\" or \"./\"", file);
		return -1;
	}
	if (cmdset_load(lf->kfile, NULL, CMD_MINUS | CMD_NOMINUSK, &cs,
	    &err) == -1) {
		log_warnx("%s", err.msg);
		return -1;
	}
	want = xstrdup(file);
	for (i = 0; i < cs->nexclude; i++) {
		p = path_restyle(cs->exclude[i], style);
		got = wildcard(p, want, lf->icase);
		free(p);
		if (got) {
			log_warnx("%s: excluded by \"%s\"", file,
			    cs->exclude[i]);
			goto out;
		}
	}
	c = xcalloc(cs->ntran + 1, sizeof(*c));
	if (cs->nspecial > 0) {
		c[n].name = xstrdup("special.T");
		xasprintf(&c[n].path, "%sspecial.T", cs->kdir);
		c[n++].special = 1;
	}
	for (i = cs->ntran; i-- > 0; n++) {
		c[n].name = xstrdup(cs->tran[i].name);
		xasprintf(&c[n].path, "%s%s", cs->kdir, cs->tran[i].name);
	}
	for (i = 0; i < n; i++) {
		if ((r = treader_open(c[i].path, NULL, TR_ONESTYLE |
		    (lf->icase ? TR_ICASE : 0), &err)) == NULL) {
			log_warnx("%s", err.msg);
			goto out;
		}
		while ((got = treader_next(r, &l, &err)) == 1) {
			p = path_restyle(l->path, style);
			cmp = pathcmp(p, want, lf->icase);
			free(p);
			if (cmp < 0)
				continue;
			if (cmp > 0)
				break;
			if (l->minus)
				break;		/* hidden here: look lower */
			if (l->type != 'f' && l->type != 'a') {
				log_warnx("%s: not a file in %s", file,
				    c[i].name);
				treader_close(r);
				goto out;
			}
			*tname = c[i].special ? NULL : xstrdup(c[i].name);
			*epath = xstrdup(l->epath);
			*special = c[i].special;
			treader_close(r);
			rc = 0;
			goto out;
		}
		if (got == -1) {
			log_warnx("%s", err.msg);
			treader_close(r);
			goto out;
		}
		treader_close(r);
	}
	log_warnx("%s: not found in any transcript", file);
out:
	for (i = 0; i < n; i++) {
		free(c[i].name);
		free(c[i].path);
	}
	free(c);
	free(want);
	cmdset_free(cs);
	return rc;
}

/* A private temporary file, already unlinked.  Returns fd or -1. */
static int
private_tmp(void)
{
	const char	*dir = getenv("TMPDIR");
	char		*path;
	int		 fd;

	if (dir == NULL || dir[0] == '\0')
		dir = "/tmp";
	xasprintf(&path, "%s/lfdiff.radmind.XXXXXX", dir);
	if ((fd = mkstemp(path)) == -1) {
		log_warn("%s", path);
		free(path);
		return -1;
	}
	if (unlink(path) == -1) {
		log_warn("%s", path);
		close(fd);
		free(path);
		return -1;
	}
	(void)fchmod(fd, 0600);
	free(path);
	return fd;
}

/* Fetch the server copy into fd.  Returns 0 or -1 after printing why. */
static int
fetch(struct lf *lf, const char *tname, const char *epath, int special,
    int fd)
{
	struct dl_want	 w;
	struct net	*net;
	struct cerr	 err;
	int		 r, rc = -1;

	if ((net = net_open(&lf->no, &err)) == NULL) {
		log_warnx("%s", err.msg);
		return -1;
	}
	if (special)
		r = net_send_retr(net, "SPECIAL", NULL, epath, &err);
	else
		r = net_send_retr(net, "FILE", tname, epath, &err);
	memset(&w, 0, sizeof(w));
	w.path = epath;
	w.size = -1;
	if (r == -1 || dl_tofd(net, &w, fd, &err) != DL_OK) {
		log_warnx("%s", err.msg);
		goto out;
	}
	rc = 0;
out:
	if (net_close(net, &err) == -1 && rc == 0) {
		log_warnx("%s", err.msg);
		rc = -1;
	}
	return rc;
}

int
main(int argc, char *argv[])
{
	struct lf	 lf;
	struct copts	 co;
	struct stat	 st;
	const char	*file;
	char		*tname = NULL, *epath = NULL;
	int		 fd, special = 0;

	log_init("lfdiff", LOG_TO_STDERR, 0);
	log_setfatalstatus(LF_ERROR);
	memset(&lf, 0, sizeof(lf));
	/* -u is octal here (lfdiff(1)). */
	copts_init(&co, COPTS_NET | COPTS_ICASE | COPTS_UMASK8, &lf.no);
	lf.kfile = _RADMIND_PATH "/client/command.K";
	lf.diffargv[lf.ndiff++] = "diff";
	if (copts_parse(argc, argv, &co, "bC:cD:efiK:nSstT:X:", tool_opt,
	    &lf) == -1 || argc - optind != 1)
		usage();
	lf.icase = co.icase;
	if (lf.special && lf.tname != NULL)
		usage();
	file = argv[optind];
	if (stat(file, &st) == -1)
		fatal("%s", file);
	if (lf.special || lf.tname != NULL) {
		epath = encode_dup(file);
		special = lf.special;
		if (lf.tname != NULL)
			tname = xstrdup(lf.tname);
	} else if (lookup(&lf, file, &tname, &epath, &special) == -1)
		log_exit(LF_ERROR);

	if ((fd = private_tmp()) == -1)
		log_exit(LF_ERROR);
	if (fetch(&lf, tname, epath, special, fd) == -1)
		log_exit(LF_ERROR);
	if (lseek(fd, 0, SEEK_SET) == -1 || dup2(fd, STDIN_FILENO) == -1)
		fatal("lfdiff: temporary file");
	if (fd != STDIN_FILENO)
		close(fd);
	lf.diffargv[lf.ndiff++] = "--";
	lf.diffargv[lf.ndiff++] = "-";
	lf.diffargv[lf.ndiff++] = file;
	lf.diffargv[lf.ndiff] = NULL;
	fflush(stdout);
	execvp("diff", (char *const *)(uintptr_t)lf.diffargv);
	fatal("diff");
}
