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
#include "fsutil.h"
#include "net.h"
#include "pathcmp.h"
#include "proto.h"
#include "version.h"
#include "xmalloc.h"

#define KT_OK		0	/* no differences */
#define KT_CHANGED	1	/* differences (downloaded, or -n) */
#define KT_ERROR	2

#define KT_CHUNK	(256 * 1024)
#define KT_MAXDEPTH	64
#define KT_MAXSIZE	(1LL << 30)	/* largest command file or transcript */

struct strlist {
	char	**v;
	size_t	 n;
};

struct kt {
	struct net	*net;
	struct netopts	 no;
	const char	*kfile;		/* -K */
	char		*kdir;		/* command directory ("" or ".../") */
	int		 kdirfd;	/* ... open: every name is below it */
	const char	*digest;	/* -c */
	const char	*event;		/* -e */
	int		 nflag, qflag, clean, icase;
	int		 changed;
	int		 stop;		/* -n: first difference seen */
	struct strlist	 seen;		/* command files read */
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

static void
sl_add(struct strlist *l, const char *s)
{
	l->v = xreallocarray(l->v, l->n + 1, sizeof(*l->v));
	l->v[l->n++] = xstrdup(s);
}

static int
sl_has(const struct strlist *l, const char *s, int icase)
{
	size_t	 i;

	for (i = 0; i < l->n; i++)
		if ((icase ? strcasecmp(l->v[i], s) : strcmp(l->v[i], s)) == 0)
			return 1;
	return 0;
}

static void
sl_del(struct strlist *l, const char *s, int icase)
{
	size_t	 i, j;

	for (i = j = 0; i < l->n; i++) {
		if ((icase ? strcasecmp(l->v[i], s) : strcmp(l->v[i], s)) == 0)
			free(l->v[i]);
		else
			l->v[j++] = l->v[i];
	}
	l->n = j;
}

static void
sl_free(struct strlist *l)
{
	size_t	 i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	l->v = NULL;
	l->n = 0;
}

/*
 * A name from a command file becomes a path under the command directory:
 * refuse anything that could leave it.
 */
static int
name_ok(const char *name)
{
	const char	*p = name;
	size_t		 n;

	if (name[0] == '\0' || name[0] == '/')
		return 0;
	for (;;) {
		n = strcspn(p, "/");
		if (n == 0 || (n == 2 && p[0] == '.' && p[1] == '.'))
			return 0;
		if (p[n] == '\0')
			return 1;
		p += n + 1;
	}
}

/* Parsed "f <name> <mode> <uid> <gid> <mtime> <size> <cksum>". */
struct statinfo {
	int64_t		 mtime, size;
	char		 cksum[CKSUM_B64MAX + 32];
};

static int
parse_stat(const char *line, struct statinfo *si, const char *peer,
    struct cerr *err)
{
	char	 copy[8192], *av[9];

	if (strlcpy(copy, line, sizeof(copy)) >= sizeof(copy) ||
	    proto_split(copy, av, 9) != 8 ||
	    proto_parse_size(av[5], &si->mtime) == -1 ||
	    proto_parse_size(av[6], &si->size) == -1 ||
	    strlcpy(si->cksum, av[7], sizeof(si->cksum)) >= sizeof(si->cksum)) {
		cerr_set(err, "%s: bad STAT reply: %.200s", peer, line);
		return -1;
	}
	return 0;
}

/* Digest of an open local file with -c's algorithm. */
static int
local_digest(const char *digest, int fd, char out[CKSUM_B64MAX])
{
	struct cksum	*ck;
	int64_t		 size;
	int		 r;

	if (lseek(fd, 0, SEEK_SET) == -1)
		return -1;
	ck = cksum_new(digest);
	r = ck != NULL ? cksum_fd(ck, fd, out, &size) : -1;
	cksum_free(ck);
	return r;
}

/* Open rel below the command directory for reading, confined. */
static int
kt_open(const struct kt *kt, const char *rel)
{
	return confine_open(kt->kdirfd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY,
	    0);
}

/* confine_parent's hook: missing directories of the command directory. */
static int
kt_mkdir(void *ctx, int pfd, const char *name, const char *rel, size_t len)
{
	(void)ctx;
	(void)rel;
	(void)len;
	return mkdirat(pfd, name, 0777);
}

/*
 * Download kind/name into rel below the command directory (path is how
 * messages show it): RETR into "<leaf>.radmind.<pid>" (exclusive, in
 * the same directory, reached through common/confine), check size (and
 * digest with -c), set the server's mtime, make it durable and rename it
 * over the old one.
 */
static int
download(struct kt *kt, const char *kind, const char *name, const char *rel,
    const char *path, const struct statinfo *si)
{
	char		 got[CKSUM_B64MAX], *tmp = NULL;
	struct cksum	*ck = NULL;
	struct timespec	 ts[2];
	struct stat	 st;
	const char	*leaf;
	unsigned char	*chunk = NULL;
	int64_t		 size, avail;
	size_t		 bad;
	ssize_t		 n;
	int		 fd = -1, dfd, r;

	if ((dfd = confine_parent(kt->kdirfd, rel, kt_mkdir, NULL, &leaf,
	    &bad)) == -1) {
		cerr_errno(&kt->err, "%s", path);
		return -1;
	}
	if (*leaf == '\0') {
		cerr_set(&kt->err, "%s: not a file name", path);
		goto fail;
	}
	if (fstatat(dfd, leaf, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    S_ISDIR(st.st_mode) && fs_rmtreeat(dfd, leaf) == -1) {
		cerr_errno(&kt->err, "%s: remove directory", path);
		goto fail;
	}
	if (net_send_retr(kt->net, kind, name, NULL, &kt->err) == -1)
		goto fail;
	if ((r = net_retr_begin(kt->net, &size, &kt->err)) != 0)
		goto fail;
	if (size != si->size) {
		cerr_set(&kt->err, "%s: size of download (%lld) does not match "
		    "STAT (%lld)", path, (long long)size, (long long)si->size);
		goto fail;
	}
	if (fs_room(dfd, size, &avail) == 1) {
		cerr_set(&kt->err, "%s: %lld bytes do not fit: %lld bytes free, "
		    "%lld kept free", path, (long long)size, (long long)avail,
		    (long long)FS_KEEPFREE);
		goto fail;
	}
	xasprintf(&tmp, "%s.radmind.%ld", leaf, (long)getpid());
	if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0666)) == -1) {
		cerr_errno(&kt->err, "%s.radmind.%ld", path, (long)getpid());
		free(tmp);
		tmp = NULL;
		goto fail;
	}
	if (kt->digest != NULL)
		ck = cksum_new(kt->digest);
	chunk = xmalloc(KT_CHUNK);
	while ((n = net_retr_read(kt->net, chunk, KT_CHUNK, &kt->err)) > 0) {
		if (ck != NULL)
			cksum_update(ck, chunk, (size_t)n);
		if (fs_write_all(fd, chunk, (size_t)n) == -1) {
			cerr_errno(&kt->err, "%s: write", path);
			goto fail;
		}
	}
	if (n == -1 || net_retr_end(kt->net, &kt->err) == -1)
		goto fail;
	if (ck != NULL) {
		cksum_final(ck, got);
		if (strcmp(got, si->cksum) != 0) {
			cerr_set(&kt->err, "%s: checksum mismatch", path);
			goto fail;
		}
	}
	ts[0].tv_sec = 0;
	ts[0].tv_nsec = UTIME_NOW;
	ts[1].tv_sec = (time_t)si->mtime;
	ts[1].tv_nsec = 0;
	if (futimens(fd, ts) == -1 || fsync(fd) == -1) {
		cerr_errno(&kt->err, "%s", path);
		goto fail;
	}
	if (close(fd) == -1) {
		fd = -1;
		cerr_errno(&kt->err, "%s", path);
		goto fail;
	}
	fd = -1;
	if (renameat(dfd, tmp, dfd, leaf) == -1) {
		cerr_errno(&kt->err, "rename %s", path);
		goto fail;
	}
	if (fsync(dfd) == -1) {
		cerr_errno(&kt->err, "%s: fsync of its directory", path);
		free(tmp);
		tmp = NULL;
		goto fail;
	}
	free(tmp);
	close(dfd);
	cksum_free(ck);
	free(chunk);
	return 0;
fail:
	if (fd != -1)
		close(fd);
	if (tmp != NULL) {
		(void)unlinkat(dfd, tmp, 0);
		free(tmp);
	}
	close(dfd);
	cksum_free(ck);
	free(chunk);
	return -1;
}

/*
 * Compare one server file with its local copy and download it when it
 * differs.  Returns 0 same, 1 different (handled), -1 error.
 */
static int
check(struct kt *kt, const char *kind, const char *name, const char *rel,
    const char *path)
{
	struct statinfo	 si;
	struct stat	 st;
	char		*line, sum[CKSUM_B64MAX];
	const char	*why = NULL;
	int		 r, fd;

	if (net_send_stat(kt->net, kind, name, &kt->err) == -1 ||
	    (r = net_stat_reply(kt->net, &line, &kt->err)) == -1)
		return -1;
	if (r == 1)
		return -1;
	if (parse_stat(line, &si, net_peer(kt->net), &kt->err) == -1)
		return -1;
	if (si.size > KT_MAXSIZE) {
		cerr_set(&kt->err, "%s: %s %s is %lld bytes, more than the "
		    "%lld a command file or transcript may have",
		    net_peer(kt->net), kind, name != NULL ? name : path,
		    (long long)si.size, (long long)KT_MAXSIZE);
		return -1;
	}
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
			if (local_digest(kt->digest, fd, sum) == -1) {
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
	sl_add(&kt->keep, s);
	while ((p = strrchr(s, '/')) != NULL) {
		*p = '\0';
		if (!sl_has(&kt->keep, s, 0))
			sl_add(&kt->keep, s);
	}
	free(s);
}

/* Read a command file: check what it names, collect specials. */
static int
read_kfile(struct kt *kt, const char *rel, const char *path, int depth)
{
	struct cline	 c;
	FILE		*fp;
	int		 fd;
	char		*line = NULL, *sub;
	size_t		 cap = 0;
	ssize_t		 len;
	unsigned	 lineno = 0;
	int		 r, rc = -1;

	if (sl_has(&kt->seen, path, 0)) {
		cerr_set(&kt->err, "%s: included twice (command file loop)",
		    path);
		return -1;
	}
	if (depth > KT_MAXDEPTH) {
		cerr_set(&kt->err, "%s: command files nested too deep", path);
		return -1;
	}
	sl_add(&kt->seen, path);
	if ((fd = kt_open(kt, rel)) == -1 || (fp = fdopen(fd, "r")) == NULL) {
		cerr_errno(&kt->err, "%s", path);
		if (fd != -1)
			close(fd);
		return -1;
	}
	while (!kt->stop && (len = getline(&line, &cap, fp)) != -1) {
		lineno++;
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if ((size_t)len != strlen(line)) {
			cerr_set(&kt->err, "%s: line %u: NUL byte", path,
			    lineno);
			goto out;
		}
		if ((r = cline_parse(&c, line, path, lineno, &kt->err)) == -1)
			goto out;
		if (r == 0)
			continue;
		if (c.minus) {
			if (c.type == 's')
				sl_del(&kt->special, c.name, kt->icase);
			free(c.name);
			continue;
		}
		switch (c.type) {
		case 'k':
		case 'p':
		case 'n':
			if (!name_ok(c.name)) {
				cerr_set(&kt->err, "%s: line %u: %s: name "
				    "outside the command directory", path,
				    lineno, c.name);
				free(c.name);
				goto out;
			}
			keep_name(kt, c.name);
			xasprintf(&sub, "%s%s", kt->kdir, c.name);
			r = check(kt, c.type == 'k' ? "COMMAND" : "TRANSCRIPT",
			    c.name, c.name, sub);
			if (r != -1 && c.type == 'k' && !kt->stop)
				r = read_kfile(kt, c.name, sub, depth + 1);
			free(sub);
			free(c.name);
			if (r == -1)
				goto out;
			break;
		case 's':
			if (!sl_has(&kt->special, c.name, kt->icase))
				sl_add(&kt->special, c.name);
			free(c.name);
			break;
		default:
			free(c.name);
			break;
		}
	}
	if (ferror(fp)) {
		cerr_errno(&kt->err, "%s", path);
		goto out;
	}
	rc = 0;
out:
	free(line);
	fclose(fp);
	return rc;
}

static int	 sort_icase;

static int
special_cmp(const void *a, const void *b)
{
	return pathcmp(*(char *const *)a, *(char *const *)b, sort_icase);
}

/* Nonzero if files a and b differ in size or -c digest. */
static int
files_differ(const struct kt *kt, const char *a, const char *b)
{
	struct stat	 sa, sb;
	char		 da[CKSUM_B64MAX], db[CKSUM_B64MAX];

	int		 fa, fb, r = 1;

	if ((fa = open(a, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1)
		return 1;
	if ((fb = open(b, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
		close(fa);
		return 1;
	}
	if (fstat(fa, &sa) == 0 && fstat(fb, &sb) == 0 &&
	    sa.st_size == sb.st_size &&
	    local_digest(kt->digest, fa, da) == 0 &&
	    local_digest(kt->digest, fb, db) == 0)
		r = strcmp(da, db) != 0;
	close(fa);
	close(fb);
	return r;
}

/* Build special.T from STAT SPECIAL replies (docs/formats.md section 11). */
static int
do_specials(struct kt *kt)
{
	char		 path[PATH_MAX], tmp[PATH_MAX], *line;
	const char	*why;
	struct stat	 st;
	FILE		*fp;
	size_t		 i;
	int		 r, exists;

	snprintf(path, sizeof(path), "%sspecial.T", kt->kdir);
	snprintf(tmp, sizeof(tmp), "%sspecial.T.%ld", kt->kdir,
	    (long)getpid());
	sort_icase = kt->icase;
	qsort(kt->special.v, kt->special.n, sizeof(char *), special_cmp);
	if ((fp = fopen(tmp, "wx")) == NULL) {
		cerr_errno(&kt->err, "%s", tmp);
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
		cerr_errno(&kt->err, "%s", tmp);
		goto fail;
	}
	fclose(fp);
	fp = NULL;

	exists = stat(path, &st) == 0;
	if (exists && kt->digest != NULL && !files_differ(kt, tmp, path)) {
		unlink(tmp);
		return 0;
	}
	kt->changed = 1;
	if (kt->nflag) {
		why = exists ? "out of date" : "missing";
		unlink(tmp);
		kt->stop = 1;
	} else {
		why = exists ? "updated" : "created";
		if (rename(tmp, path) == -1) {
			cerr_errno(&kt->err, "rename %s", path);
			unlink(tmp);
			return -1;
		}
	}
	if (!kt->qflag)
		printf("%s: %s\n", path, why);
	return 0;
fail:
	if (fp != NULL)
		fclose(fp);
	unlink(tmp);
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
		if (sl_has(&kt->keep, sub, kt->icase)) {
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
		if (!cksum_supported(arg)) {
			fprintf(stderr, "%s: unsupported checksum\n", arg);
			exit(KT_ERROR);
		}
		kt->digest = arg;
		break;
	case 'D':
		break;		/* accepted, unused (as in Radmind 1.x) */
	case 'e':
		if (arg[0] == '\0' || strpbrk(arg, " \t\r\n") != NULL) {
			fprintf(stderr, "%s: event must be one word\n", arg);
			return -1;
		}
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

	memset(&kt, 0, sizeof(kt));
	copts_init(&kt.no);
	kt.kfile = _RADMIND_PATH "/client/command.K";
	kt.event = "ktcheck";
	if (copts_parse(argc, argv, &kt.no, "Cc:D:e:IiK:nqV", tool_opt, &kt)
	    == -1 || optind != argc)
		usage();
	if (kt.qflag && kt.no.verbose)
		usage();
	if ((slash = strrchr(kt.kfile, '/')) != NULL)
		kt.kdir = xstrndup(kt.kfile, (size_t)(slash - kt.kfile) + 1);
	else
		kt.kdir = xstrdup("");
	base = slash != NULL ? slash + 1 : kt.kfile;

	if (kt.kdir[0] != '\0')
		(void)fs_mkparents(kt.kfile);	/* the command directory */
	if ((kt.kdirfd = open(kt.kdir[0] != '\0' ? kt.kdir : ".", O_RDONLY |
	    O_DIRECTORY | O_CLOEXEC)) == -1) {
		fprintf(stderr, "%s: %s\n", kt.kdir[0] != '\0' ? kt.kdir : ".",
		    strerror(errno));
		exit(KT_ERROR);
	}
	if ((kt.net = net_open(&kt.no, &kt.err)) == NULL) {
		fprintf(stderr, "%s\n", kt.err.msg);
		exit(KT_ERROR);
	}
	rc = KT_ERROR;
	if (check(&kt, "COMMAND", NULL, base, kt.kfile) == -1)
		goto done;
	if (!kt.stop && read_kfile(&kt, base, kt.kfile, 0) == -1)
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
	if (rc == KT_ERROR)
		fprintf(stderr, "%s\n", kt.err.msg);
	if (rc == KT_ERROR)
		msg = "Error";
	else if (rc == KT_CHANGED)
		msg = kt.nflag ? "Updates available" : "Updates retrieved";
	else
		msg = "No updates needed";
	if (net_has_cap(kt.net, "REPO") &&
	    net_report(kt.net, kt.event, msg, &cerr) == -1) {
		fprintf(stderr, "%s\n", cerr.msg);
		rc = KT_ERROR;
	}
	if (kt.no.verbose)
		net_print_stats(kt.net, stdout);
	if (net_close(kt.net, &cerr) == -1) {
		fprintf(stderr, "%s\n", cerr.msg);
		rc = KT_ERROR;
	}
	if (rc == KT_OK && !kt.qflag)
		printf("No updates needed\n");
	sl_free(&kt.seen);
	sl_free(&kt.keep);
	sl_free(&kt.special);
	free(kt.kdir);
	close(kt.kdirfd);
	return rc;
}
