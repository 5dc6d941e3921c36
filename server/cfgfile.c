/*
 * cfgfile.c: the reader of the repository's "config" file
 * (docs/protocol.md section 6.1), shared by cairnd and cairn-publish.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "cfgfile.h"
#include "log.h"
#include "proto.h"

/*
 * One lookup: the files being read, outermost first, and how many were
 * opened in all.  A file that includes itself (directly or not) would
 * otherwise be read again at every depth, and one that includes
 * another twice doubles the work at every depth: 2^10 files.
 */
struct cfgscan {
	dev_t		 dev[CFGFILE_DEPTH + 1];
	ino_t		 ino[CFGFILE_DEPTH + 1];
	int		 nfiles;
};

static int
cfgfile_scan(struct cfgscan *cs, int dirfd, const char *path, int depth,
    cfgfile_fn fn, void *arg, struct cerr *err)
{
	FILE		*fp;
	struct stat	 st;
	char		 line[CFGFILE_MAXLINE], *av[4];
	unsigned	 lineno = 0;
	size_t		 len;
	int		 fd, ac, r, rc = 0, i;

	if (depth > CFGFILE_DEPTH) {
		log_warnx("%s: @include nesting deeper than %d",
		    path, CFGFILE_DEPTH);
		return 0;
	}
	if (cs->nfiles >= CFGFILE_MAXFILES) {
		log_warnx("%s: more than %d files read for one lookup, "
		    "skipped", path, CFGFILE_MAXFILES);
		return 0;
	}
	if ((fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC)) == -1 ||
	    fstat(fd, &st) == -1 || (fp = fdopen(fd, "r")) == NULL) {
		cerr_errno(err, "%s", path);
		if (fd != -1)
			close(fd);
		return -1;
	}
	for (i = 0; i < depth; i++)
		if (cs->dev[i] == st.st_dev && cs->ino[i] == st.st_ino) {
			log_warnx("%s: @include loop (the file includes "
			    "itself), skipped", path);
			fclose(fp);
			return 0;
		}
	cs->dev[depth] = st.st_dev;
	cs->ino[depth] = st.st_ino;
	cs->nfiles++;
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
			r = fn(arg, CFGFILE_INCLUDE, ac == 3 ? av[2] : NULL,
			    av[1]);
			if (r == 1)
				r = cfgfile_scan(cs, dirfd, av[1], depth + 1,
				    fn, arg, err);
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
		if ((r = fn(arg, CFGFILE_ENTRY, av[0], av[1])) != 0) {
			rc = r;
			break;
		}
	}
	if (rc == 0 && ferror(fp)) {
		cerr_errno(err, "%s", path);
		rc = -1;
	}
	fclose(fp);
	return rc;
}

int
cfgfile_read(int dirfd, const char *path, cfgfile_fn fn, void *arg,
    struct cerr *err)
{
	struct cfgscan	 cs;

	cs.nfiles = 0;
	return cfgfile_scan(&cs, dirfd, path, 0, fn, arg, err);
}
