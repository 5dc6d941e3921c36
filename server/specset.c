/*
 * specset.c: the stat entries of a signed release (specset.h), what a
 * STAT SPECIAL may truthfully answer for some host: cairn-publish's.
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
#include <unistd.h>

#include "cerr.h"
#include "cfgfile.h"
#include "cksum.h"
#include "compat.h"
#include "confine.h"
#include "encode.h"
#include "log.h"
#include "manifest.h"
#include "proto.h"
#include "specmeta.h"
#include "specset.h"
#include "strlist.h"
#include "xmalloc.h"

/* The state of specset_collect. */
struct specset {
	int			 rootfd;
	struct manifest		*m;
	struct cksum		*ck;
	struct strlist		 dirs;		/* <dir> of config's names */
	const char		*specialdir;	/* the host's, being walked */
	struct cerr		*err;
};

/* cfgfile_read's hook: every @include is read, every <dir> kept. */
static int
specset_cfg(void *arg, enum cfgfile_what what, const char *pattern,
    const char *name)
{
	struct specset	*ss = arg;
	const char	*slash;
	char		*dir;

	(void)pattern;
	if (what == CFGFILE_INCLUDE)
		return 1;
	slash = strrchr(name, '/');
	dir = slash != NULL ? xstrndup(name, (size_t)(slash - name)) :
	    xstrdup("");
	if (!strlist_has(&ss->dirs, dir, 0))
		strlist_add(&ss->dirs, dir);
	free(dir);
	return 0;
}

/*
 * The stat entries of the file at fd, p below the host's directory
 * specialdir (rel: its path below the repository, for messages).
 */
static int
specset_file(struct specset *ss, const char *specialdir, const char *p,
    const char *rel, int fd)
{
	struct manifest_ent	 e;
	char			 meta[2][4][SPECMETA_FIELD];
	char			 sum[CKSUM_B64MAX], *enc, *tok;
	int64_t			 size;
	int			 found[2], i;

	cksum_reset(ss->ck);
	if (cksum_fd(ss->ck, fd, sum, &size) == -1) {
		cerr_errno(ss->err, "%s", rel);
		return -1;
	}
	enc = encode_dup(p);
	for (i = 0; i < 2; i++) {
		xasprintf(&tok, "%s%s", i == 0 ? "./" : "/", enc);
		found[i] = specmeta_lookup(ss->rootfd, specialdir, p, tok,
		    meta[i]);
		free(tok);
	}
	free(enc);
	for (i = 0; i < 2; i++) {
		/*
		 * A spelling no transcript names gets the default, which
		 * is not listed when a transcript names the other one: a
		 * client asking so is refused rather than given 0444.
		 */
		if (!found[i] && found[1 - i])
			continue;
		memset(&e, 0, sizeof(e));
		e.kind = MANIFEST_STAT;
		e.size = (uint64_t)size;
		strlcpy(e.digest, sum, sizeof(e.digest));
		if ((e.meta = manifest_meta(meta[i][0], meta[i][1],
		    meta[i][2], meta[i][3])) == NULL) {
			log_warnx("%s: type, mode, uid, gid \"%s %s %s %s\" "
			    "are not a file's: not in the release", rel,
			    meta[i][0], meta[i][1], meta[i][2], meta[i][3]);
			continue;
		}
		e.name = xstrdup(p);
		if (manifest_push(ss->m, &e, ss->err) == -1)
			return -1;
	}
	return 0;
}

/*
 * confine_walk's visitor below the host's directory ss->specialdir: the
 * regular files, as cairnd reaches them (it follows no symbolic link:
 * nor does the release).
 */
static int
specset_visit(void *arg, int dirfd, const char *leaf, const char *crel,
    const char *name, const struct stat *st, struct cerr *err)
{
	struct specset	*ss = arg;
	int		 fd, rc;

	(void)err;
	if (!S_ISREG(st->st_mode))
		return 0;
	if ((fd = openat(dirfd, leaf, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
	    O_NOCTTY | O_CLOEXEC)) == -1) {
		cerr_errno(ss->err, "%s", crel);
		return -1;
	}
	rc = specset_file(ss, ss->specialdir, name, crel, fd);
	close(fd);
	return rc;
}

/*
 * The host directories special/<dir>/<key>: every directory in
 * special/<dir> (hosts, the path of that directory below the
 * repository).
 */
static int
specset_hosts(struct specset *ss, const char *hosts)
{
	DIR		*d;
	struct dirent	*de;
	struct stat	 st;
	char		*specialdir;
	int		 dfd, fd, rc = -1;

	if ((dfd = confine_open(ss->rootfd, hosts, O_RDONLY | O_DIRECTORY,
	    0)) == -1) {
		/* No such directory (or not one): no host there. */
		if (errno == ENOENT || errno == ENOTDIR || errno == ELOOP ||
		    errno == EACCES)
			return 0;
		cerr_errno(ss->err, "%s", hosts);
		return -1;
	}
	if ((d = fdopendir(dfd)) == NULL) {
		cerr_errno(ss->err, "%s", hosts);
		close(dfd);
		return -1;
	}
	while ((errno = 0, de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dirfd(d), de->d_name, &st,
		    AT_SYMLINK_NOFOLLOW) == -1) {
			cerr_errno(ss->err, "%s/%s", hosts, de->d_name);
			goto out;
		}
		if (!S_ISDIR(st.st_mode))
			continue;
		xasprintf(&specialdir, "%s/%s", hosts, de->d_name);
		if ((fd = openat(dirfd(d), de->d_name, O_RDONLY |
		    O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)) == -1) {
			cerr_errno(ss->err, "%s", specialdir);
			free(specialdir);
			goto out;
		}
		ss->specialdir = specialdir;
		if (confine_walk(fd, specialdir, specset_visit, ss,
		    ss->err) == -1) {
			free(specialdir);
			goto out;
		}
		free(specialdir);
	}
	if (errno != 0) {
		cerr_errno(ss->err, "%s", hosts);
		goto out;
	}
	rc = 0;
out:
	closedir(d);
	return rc;
}

int
specset_collect(int rootfd, struct manifest *m, struct cerr *err)
{
	struct specset	 ss;
	char		*hosts;
	size_t		 i;
	int		 rc = -1;

	if (faccessat(rootfd, CFGFILE_NAME, F_OK, AT_SYMLINK_NOFOLLOW) ==
	    -1 && errno == ENOENT)
		return 0;
	memset(&ss, 0, sizeof(ss));
	ss.rootfd = rootfd;
	ss.m = m;
	ss.err = err;
	if ((ss.ck = cksum_new(m->digest)) == NULL) {
		cerr_set(err, "%s: unsupported checksum", m->digest);
		return -1;
	}
	if (cfgfile_read(rootfd, CFGFILE_NAME, specset_cfg, &ss, err) != 0)
		goto out;
	for (i = 0; i < ss.dirs.n; i++) {
		if (ss.dirs.v[i][0] != '\0')
			xasprintf(&hosts, "special/%s", ss.dirs.v[i]);
		else
			hosts = xstrdup("special");
		if (specset_hosts(&ss, hosts) == -1) {
			free(hosts);
			goto out;
		}
		free(hosts);
	}
	rc = 0;
out:
	strlist_free(&ss.dirs);
	cksum_free(ss.ck);
	return rc;
}
