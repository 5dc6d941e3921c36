/*
 * ktcheck: make the local command directory match the server for this
 * host (ktcheck(1)).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "cerr.h"
#include "cksum.h"
#include "command.h"
#include "compat.h"
#include "confine.h"
#include "copts.h"
#include "download.h"
#include "fsutil.h"
#include "intr.h"
#include "log.h"
#include "net.h"
#include "pathcmp.h"
#include "proto.h"
#include "strlist.h"
#include "version.h"
#include "xmalloc.h"

#define KT_OK		0	/* no differences */
#define KT_CHANGED	1	/* differences (downloaded, or -n) */
#define KT_ERROR	2

#define KT_MAXSIZE	(1LL << 30)	/* largest command file or transcript */

struct kt {
	struct net	*net;
	struct netopts	 no;
	const char	*kfile;		/* -K */
	const char	*base;		/* ... its name in the directory */
	char		*kdir;		/* command directory ("" or ".../") */
	int		 kdirfd;	/* ... open: every name is below it */
	const char	*digest;	/* -c */
	struct cksum	*ck;		/* ... its state, or NULL */
	const char	*event;		/* -e */
	int		 nflag, qflag, clean, icase;
	int		 changed;
	int		 stop;		/* -n: first difference seen */
	struct strlist	 keep;		/* names to keep for -C */
	struct strlist	 special;	/* s paths (encoded) */
	struct cerr	 err;
};

static void
usage(void)
{
	fprintf(stderr, "usage: ktcheck [-CIinrV] [-q | -v] [-c checksum] "
	    "[-D path] [-e event] [-K command file] %s\n", copts_usage());
	exit(KT_ERROR);
}

/* Digest of an open local file with -c's algorithm. */
static int
local_digest(const struct kt *kt, int fd, char out[CKSUM_B64MAX])
{
	if (lseek(fd, 0, SEEK_SET) == -1)
		return -1;
	return cksum_fd(kt->ck, fd, out, NULL);
}

/* Open rel below the command directory for reading, confined. */
static int
kt_open(const struct kt *kt, const char *rel)
{
	return confine_open(kt->kdirfd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY,
	    0);
}

/*
 * Download kind/name into rel below the command directory (path is how
 * messages show it): the one download routine receives it into a temp
 * file in its directory (reached through common/confine) and checks
 * size and, with -c, digest; then the server's mtime is set and the
 * file made durable and renamed over the old one.
 */
static int
download(struct kt *kt, const char *kind, const char *name, const char *rel,
    const char *path, const struct net_stat *si)
{
	struct dl_want	 w;

	memset(&w, 0, sizeof(w));
	w.path = path;
	w.source = "STAT reply";
	w.size = si->size;
	w.cksum = si->cksum;
	w.ck = kt->ck;
	w.mode = 0666;
	return dl_fetch(kt->net, kind, name, NULL, kt->kdirfd, rel, 0777, &w,
	    si->mtime, DL_REPLACEDIR, &kt->err) == DL_OK ? 0 : -1;
}

/*
 * Compare one server file with its local copy and download it when it
 * differs.  Returns 0 same, 1 different (handled), -1 error.
 */
static int
check(struct kt *kt, const char *kind, const char *name, const char *rel,
    const char *path)
{
	struct net_stat	 si;
	struct stat	 st;
	char		 sum[CKSUM_B64MAX];
	const char	*why = NULL;
	int		 fd;

	if (net_stat(kt->net, kind, name, name != NULL ? name : path,
	    KT_MAXSIZE, &si, &kt->err) != 0)
		return -1;
	if ((fd = kt_open(kt, rel)) == -1) {
		if (errno == ENOENT)
			why = "missing";
		else if (errno == ELOOP || errno == EISDIR || errno == ENOTDIR)
			why = "out of date";	/* replaced by the download */
		else {
			cerr_errno(&kt->err, "%s", path);
			return -1;
		}
	} else {
		if (fstat(fd, &st) == -1) {
			cerr_errno(&kt->err, "%s", path);
			close(fd);
			return -1;
		}
		if (!S_ISREG(st.st_mode) || st.st_size != si.size)
			why = "out of date";
		else if (kt->digest != NULL) {
			if (local_digest(kt, fd, sum) == -1) {
				cerr_errno(&kt->err, "%s", path);
				close(fd);
				return -1;
			}
			if (strcmp(sum, si.cksum) != 0)
				why = "out of date";
		} else if ((int64_t)st.st_mtime != si.mtime)
			why = "out of date";
		close(fd);
	}
	if (why == NULL)
		return 0;
	kt->changed = 1;
	if (kt->nflag) {
		if (!kt->qflag)
			printf("%s: %s\n", path, why);
		kt->stop = 1;
		return 1;
	}
	if (download(kt, kind, name, rel, path, &si) == -1)
		return -1;
	if (!kt->qflag)
		printf("%s: updated\n", path);
	return 1;
}

/* Remember name and its parent directories for -C. */
static void
keep_name(struct kt *kt, const char *name)
{
	char	*s, *p;

	s = xstrdup(name);
	strlist_add(&kt->keep, s);
	while ((p = strrchr(s, '/')) != NULL) {
		*p = '\0';
		if (!strlist_has(&kt->keep, s, 0))
			strlist_add(&kt->keep, s);
	}
	free(s);
}

/* cmdset_walk's open hook: command files only below the directory. */
static int
kt_kopen(void *arg, const char *kpath, const char *name)
{
	struct kt	*kt = arg;

	(void)kpath;
	return kt_open(kt, name != NULL ? name : kt->base);
}

/*
 * cmdset_walk's entry hook: every k, p and n name is fetched or checked
 * as it comes, an included command file before it is read.
 */
static int
kt_entry(void *arg, const struct cline *c, const char *kpath,
    struct cerr *err)
{
	struct kt	*kt = arg;
	char		*sub;
	int		 r;

	(void)err;
	if (c->type != 'k' && c->type != 'p' && c->type != 'n')
		return 0;
	if (!command_name_ok(c->name)) {
		cerr_set(&kt->err, "command file %s: line %u: %s: name "
		    "outside the command directory", kpath, c->lineno,
		    c->name);
		return -1;
	}
	keep_name(kt, c->name);
	xasprintf(&sub, "%s%s", kt->kdir, c->name);
	r = check(kt, c->type == 'k' ? "COMMAND" : "TRANSCRIPT", c->name,
	    c->name, sub);
	free(sub);
	if (r == -1)
		return -1;
	return kt->stop ? 1 : 0;
}

/*
 * Walk the command file and what it includes (common/command.c, the
 * one loader), checking what they name; collect the specials.
 */
static int
read_kfile(struct kt *kt)
{
	struct cmdwalk	 w;
	struct cmdset	*cs;
	struct cerr	 err;
	size_t		 i;

	w.open = kt_kopen;
	w.entry = kt_entry;
	w.arg = kt;
	kt->err.msg[0] = '\0';
	if (cmdset_walk(kt->kfile, kt->kdir[0] != '\0' ? kt->kdir : "",
	    CMD_MINUS_S | (kt->icase ? CMD_ICASE : 0), &w, &cs, &err) == -1) {
		/* A hook's own message, else the loader's. */
		if (kt->err.msg[0] == '\0')
			kt->err = err;
		return -1;
	}
	for (i = 0; i < cs->nspecial; i++)
		if (!strlist_has(&kt->special, cs->special[i], kt->icase))
			strlist_add(&kt->special, cs->special[i]);
	cmdset_free(cs);
	return 0;
}

static int	 sort_icase;

static int
special_cmp(const void *a, const void *b)
{
	return pathcmp(*(char *const *)a, *(char *const *)b, sort_icase);
}

/* Nonzero if files a and b of the command directory differ in size or
 * -c digest. */
static int
files_differ(const struct kt *kt, const char *a, const char *b)
{
	struct stat	 sa, sb;
	char		 da[CKSUM_B64MAX], db[CKSUM_B64MAX];

	int		 fa, fb, r = 1;

	if ((fa = openat(kt->kdirfd, a, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) ==
	    -1)
		return 1;
	if ((fb = openat(kt->kdirfd, b, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) ==
	    -1) {
		close(fa);
		return 1;
	}
	if (fstat(fa, &sa) == 0 && fstat(fb, &sb) == 0 &&
	    sa.st_size == sb.st_size &&
	    local_digest(kt, fa, da) == 0 &&
	    local_digest(kt, fb, db) == 0)
		r = strcmp(da, db) != 0;
	close(fa);
	close(fb);
	return r;
}

/* Build special.T from STAT SPECIAL replies (docs/formats.md section 11). */
static int
do_specials(struct kt *kt)
{
	char		 path[PATH_MAX], *tmp, *line;
	const char	*why;
	struct stat	 st;
	FILE		*fp = NULL;
	size_t		 i;
	int		 r, exists, fd;

	snprintf(path, sizeof(path), "%sspecial.T", kt->kdir);
	sort_icase = kt->icase;
	if (kt->special.n > 1)
		qsort(kt->special.v, kt->special.n, sizeof(char *),
		    special_cmp);
	/* The one temp name: removed if ktcheck is interrupted. */
	if ((fd = dl_opentemp(kt->kdirfd, "special.T", 0, 0666, &tmp)) ==
	    -1 || (fp = fdopen(fd, "w")) == NULL) {
		cerr_errno(&kt->err, "%s%s", kt->kdir, tmp);
		if (fd != -1) {
			close(fd);
			dl_tempdone(kt->kdirfd, tmp);
		}
		free(tmp);
		return -1;
	}
	for (i = 0; i < kt->special.n; i++) {
		if (net_send_stat(kt->net, "SPECIAL", kt->special.v[i],
		    &kt->err) == -1 ||
		    (r = net_stat_reply(kt->net, &line, &kt->err)) != 0)
			goto fail;
		fprintf(fp, "%s\n", line);
	}
	if (fflush(fp) == EOF || fsync(fileno(fp)) == -1) {
		cerr_errno(&kt->err, "%s%s", kt->kdir, tmp);
		goto fail;
	}
	fclose(fp);
	fp = NULL;

	exists = fstatat(kt->kdirfd, "special.T", &st, 0) == 0;
	if (exists && kt->digest != NULL &&
	    !files_differ(kt, tmp, "special.T")) {
		dl_tempdone(kt->kdirfd, tmp);
		free(tmp);
		return 0;
	}
	kt->changed = 1;
	if (kt->nflag) {
		why = exists ? "out of date" : "missing";
		dl_tempdone(kt->kdirfd, tmp);
		kt->stop = 1;
	} else {
		why = exists ? "updated" : "created";
		if (renameat(kt->kdirfd, tmp, kt->kdirfd, "special.T") == -1) {
			cerr_errno(&kt->err, "rename %s", path);
			dl_tempdone(kt->kdirfd, tmp);
			free(tmp);
			return -1;
		}
		dl_tempdone(-1, tmp);
	}
	free(tmp);
	if (!kt->qflag)
		printf("%s: %s\n", path, why);
	return 0;
fail:
	if (fp != NULL)
		fclose(fp);
	dl_tempdone(kt->kdirfd, tmp);
	free(tmp);
	return -1;
}

/*
 * -C: remove what no command file names.  rel is the path below the
 * command directory ("" for the top).
 */
static int
clean_dir(struct kt *kt, int dfd, const char *rel, const char *base)
{
	DIR		*d;
	struct dirent	*de;
	char		 sub[PATH_MAX];
	int		 fd, rc = 0;
	struct stat	 st;

	if ((d = fdopendir(dfd)) == NULL) {
		close(dfd);
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if ((size_t)snprintf(sub, sizeof(sub), "%s%s%s", rel,
		    rel[0] != '\0' ? "/" : "", de->d_name) >= sizeof(sub))
			continue;
		if (strcmp(sub, base) == 0 || strcmp(sub, "special.T") == 0)
			continue;
		if (strlist_has(&kt->keep, sub, kt->icase)) {
			if (fstatat(dirfd(d), de->d_name, &st,
			    AT_SYMLINK_NOFOLLOW) == 0 && S_ISDIR(st.st_mode) &&
			    (fd = openat(dirfd(d), de->d_name, O_RDONLY |
			    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) != -1 &&
			    clean_dir(kt, fd, sub, base) == -1)
				rc = -1;
			continue;
		}
		if (fs_rmtreeat(dirfd(d), de->d_name) == -1) {
			cerr_errno(&kt->err, "%s%s", kt->kdir, sub);
			rc = -1;
			continue;
		}
		kt->changed = 1;
		if (!kt->qflag)
			printf("%s%s: deleted\n", kt->kdir, sub);
	}
	closedir(d);
	return rc;
}

static int
tool_opt(int ch, const char *arg, void *ctx)
{
	struct kt	*kt = ctx;

	switch (ch) {
	case 'C':
		kt->clean = 1;
		break;
	case 'c':
		if (cksum_check(arg, &kt->err) == -1)
			fatalx("%s", kt->err.msg);
		kt->digest = arg;
		break;
	case 'D':
		break;		/* accepted, unused (as in Radmind 1.x) */
	case 'e':
		if (copts_event(arg) == -1)
			return -1;
		kt->event = arg;
		break;
	case 'I':
		kt->icase = 1;
		break;
	case 'i':
		setvbuf(stdout, NULL, _IOLBF, 0);
		break;
	case 'K':
		kt->kfile = arg;
		break;
	case 'n':
		kt->nflag = 1;
		break;
	case 'q':
		kt->qflag = 1;
		break;
	case 'V':
		version_print(1);
		exit(0);
	default:
		return -1;
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct kt		 kt;
	struct cerr		 cerr;
	const char		*slash, *msg, *base;
	int			 rc, fd;

	log_init("ktcheck", LOG_TO_STDERR, 0);
	log_setfatalstatus(KT_ERROR);
	memset(&kt, 0, sizeof(kt));
	copts_init(&kt.no);
	kt.kfile = _RADMIND_PATH "/client/command.K";
	kt.event = "ktcheck";
	if (copts_parse(argc, argv, &kt.no, "Cc:D:e:IiK:nqV", tool_opt, &kt)
	    == -1 || optind != argc)
		usage();
	if (kt.qflag && kt.no.verbose)
		usage();
	/* Interrupted, it leaves no temp file (ktcheck(1), EXIT STATUS). */
	if (intr_init() == -1)
		fatal("signals");
	if (kt.digest != NULL)
		kt.ck = cksum_new(kt.digest);
	if ((slash = strrchr(kt.kfile, '/')) != NULL)
		kt.kdir = xstrndup(kt.kfile, (size_t)(slash - kt.kfile) + 1);
	else
		kt.kdir = xstrdup("");
	base = slash != NULL ? slash + 1 : kt.kfile;

	if (kt.kdir[0] != '\0')
		(void)fs_mkparents(kt.kfile);	/* the command directory */
	if ((kt.kdirfd = open(kt.kdir[0] != '\0' ? kt.kdir : ".", O_RDONLY |
	    O_DIRECTORY | O_CLOEXEC)) == -1)
		fatal("%s", kt.kdir[0] != '\0' ? kt.kdir : ".");
	if ((kt.net = net_open(&kt.no, &kt.err)) == NULL)
		fatalx("%s", kt.err.msg);
	rc = KT_ERROR;
	if (check(&kt, "COMMAND", NULL, base, kt.kfile) == -1)
		goto done;
	kt.base = base;
	if (!kt.stop && read_kfile(&kt) == -1)
		goto done;
	if (!kt.stop && do_specials(&kt) == -1)
		goto done;
	if (kt.clean && !kt.nflag) {
		if ((fd = open(kt.kdir[0] != '\0' ? kt.kdir : ".", O_RDONLY |
		    O_DIRECTORY | O_CLOEXEC)) == -1 ||
		    clean_dir(&kt, fd, "", base) == -1) {
			cerr_errno(&kt.err, "%s", kt.kdir[0] ? kt.kdir : ".");
			goto done;
		}
	}
	rc = kt.changed ? KT_CHANGED : KT_OK;
done:
	if (rc == KT_ERROR) {
		log_warnx("%s", kt.err.msg);
		msg = "Error";
	} else if (rc == KT_CHANGED)
		msg = kt.nflag ? "Updates available" : "Updates retrieved";
	else
		msg = "No updates needed";
	if (net_has_cap(kt.net, "REPO") &&
	    net_report(kt.net, kt.event, msg, &cerr) == -1) {
		log_warnx("%s", cerr.msg);
		rc = KT_ERROR;
	}
	if (kt.no.verbose)
		net_print_stats(kt.net, stdout);
	if (net_close(kt.net, &cerr) == -1) {
		log_warnx("%s", cerr.msg);
		rc = KT_ERROR;
	}
	if (rc == KT_OK && !kt.qflag)
		printf("No updates needed\n");
	strlist_free(&kt.keep);
	strlist_free(&kt.special);
	free(kt.kdir);
	cksum_free(kt.ck);
	close(kt.kdirfd);
	intr_exit(rc);
}
