/*
 * cfgfile.c: the reader of the repository's "config" file
 * (docs/protocol.md section 6.1), shared by cairnd and cairn-publish.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "cfgfile.h"
#include "log.h"
#include "proto.h"
#include "xmalloc.h"

/*
 * One reading of config: every file opened so far, by device and inode,
 * with the least depth it was read at and whether it is being read now
 * (it is on the include path: including it again is a loop).
 *
 * A file read already is not read again when included as deep or
 * deeper: all that reading it again would give, this reading of config
 * has had already (a lookup, where the first match wins, found no match
 * there; the walks over every entry, specset.c and warm.c, have each of
 * its entries).  Else files that include each other many times over are
 * read exponentially often: eleven files each including the next three
 * times, 3^10 readings.  Included less deep, a file is read again: its
 * first reading may have skipped includes nested too deep then.  So a
 * file is read at most once per depth, the work grows with the number
 * of distinct files, and that number needs no bound of its own: each
 * costs one entry here.
 */
struct cfgseen {
	dev_t	 dev;
	ino_t	 ino;
	int	 depth;		/* least read at; INT_MAX: unread */
	int	 reading;	/* on the include path */
};

struct cfgscan {
	int		 dirfd;
	cfgfile_fn	 fn;
	void		*arg;
	struct cerr	*err;
	struct cfgseen	*seen;
	size_t		 nseen;
};

static int	cfgfile_scan(struct cfgscan *, FILE *, const char *, size_t);

/*
 * Open path below dirfd and take its device and inode into st.  Returns
 * NULL with errno set when it cannot.
 */
static FILE *
cfgfile_open(int dirfd, const char *path, struct stat *st)
{
	FILE	*fp;
	int	 fd, save;

	if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, st) == -1 || (fp = fdopen(fd, "r")) == NULL) {
		save = errno;
		close(fd);
		errno = save;
		return NULL;
	}
	return fp;
}

/* The index of the file st in cs->seen, added (not read yet) if new. */
static size_t
cfgfile_seen(struct cfgscan *cs, const struct stat *st)
{
	size_t	 i;

	for (i = 0; i < cs->nseen; i++)
		if (cs->seen[i].dev == st->st_dev &&
		    cs->seen[i].ino == st->st_ino)
			return i;
	cs->seen = xreallocarray(cs->seen, cs->nseen + 1, sizeof(*cs->seen));
	cs->seen[i].dev = st->st_dev;
	cs->seen[i].ino = st->st_ino;
	cs->seen[i].depth = INT_MAX;
	cs->seen[i].reading = 0;
	cs->nseen++;
	return i;
}

/*
 * The @include of name at line lineno of path (depth includes deep),
 * which the hook asked to read: read unless nested too deep, being read
 * already (a loop), or read already at the same depth or less.  Returns
 * as cfgfile_scan, 0 when skipped.
 */
static int
cfgfile_include(struct cfgscan *cs, const char *path, unsigned lineno,
    const char *name, int depth)
{
	FILE		*fp;
	struct stat	 st;
	size_t		 i;
	int		 rc = 0;

	if (depth >= CFGFILE_DEPTH) {
		log_warnx("%s: line %u: @include %s: nested deeper than %d, "
		    "skipped", path, lineno, name, CFGFILE_DEPTH);
		return 0;
	}
	if ((fp = cfgfile_open(cs->dirfd, name, &st)) == NULL) {
		cerr_errno(cs->err, "%s: line %u: @include %s", path, lineno,
		    name);
		return -1;
	}
	i = cfgfile_seen(cs, &st);
	if (cs->seen[i].reading)
		log_warnx("%s: line %u: @include %s: loop (being read "
		    "already), skipped", path, lineno, name);
	else if (cs->seen[i].depth > depth + 1) {
		cs->seen[i].depth = depth + 1;
		rc = cfgfile_scan(cs, fp, name, i);
	}
	fclose(fp);
	return rc;
}

/*
 * Read the lines of fp, the file cs->seen[i] (path, at the depth set
 * there), through the hook.  Returns 0 at its end, the hook's value
 * that stopped it, or -1 with cs->err.
 */
static int
cfgfile_scan(struct cfgscan *cs, FILE *fp, const char *path, size_t i)
{
	char		 line[CFGFILE_MAXLINE], *av[4];
	unsigned	 lineno = 0;
	size_t		 len;
	int		 depth = cs->seen[i].depth, ac, r, rc = 0;

	cs->seen[i].reading = 1;
	while (fgets(line, sizeof(line), fp) != NULL) {
		lineno++;
		len = strlen(line);
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (!feof(fp)) {
			log_warnx("%s: line %u: too long, skipped", path,
			    lineno);
			while (fgets(line, sizeof(line), fp) != NULL &&
			    strchr(line, '\n') == NULL)
				;
			continue;
		}
		if ((ac = proto_split(line, av, 4)) == -1)
			ac = 4;
		if (ac == 0 || av[0][0] == '#')
			continue;
		if (strcmp(av[0], "@include") == 0) {
			if (ac < 2 || ac > 3) {
				log_warnx("%s: line %u: bad @include", path,
				    lineno);
				continue;
			}
			r = cs->fn(cs->arg, CFGFILE_INCLUDE,
			    ac == 3 ? av[2] : NULL, av[1]);
			if (r == 1)
				r = cfgfile_include(cs, path, lineno, av[1],
				    depth);
			if (r != 0) {
				rc = r;
				break;
			}
			continue;
		}
		if (ac < 2)
			continue;
		if (ac > 2 && av[2][0] != '#') {
			log_warnx("%s: line %u: invalid entry, skipped", path,
			    lineno);
			continue;
		}
		if ((r = cs->fn(cs->arg, CFGFILE_ENTRY, av[0], av[1])) != 0) {
			rc = r;
			break;
		}
	}
	if (rc == 0 && ferror(fp)) {
		cerr_errno(cs->err, "%s", path);
		rc = -1;
	}
	/* By index: the includes may have moved cs->seen. */
	cs->seen[i].reading = 0;
	return rc;
}

int
cfgfile_read(int dirfd, const char *path, cfgfile_fn fn, void *arg,
    struct cerr *err)
{
	struct cfgscan	 cs;
	struct stat	 st;
	FILE		*fp;
	size_t		 i;
	int		 rc;

	if ((fp = cfgfile_open(dirfd, path, &st)) == NULL) {
		cerr_errno(err, "%s", path);
		return -1;
	}
	cs.dirfd = dirfd;
	cs.fn = fn;
	cs.arg = arg;
	cs.err = err;
	cs.seen = NULL;
	cs.nseen = 0;
	i = cfgfile_seen(&cs, &st);
	cs.seen[i].depth = 0;
	rc = cfgfile_scan(&cs, fp, path, i);
	fclose(fp);
	free(cs.seen);
	return rc;
}
