/*
 * specmeta.c: the metadata of special files, as cairnd's STAT SPECIAL
 * answers it and as a signed release lists it (specmeta.h).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "compat.h"
#include "confine.h"
#include "proto.h"
#include "specmeta.h"
#include "xmalloc.h"

#define SPECMETA_TLINE	(4 * PATH_MAX + 512)

/*
 * Open the regular file rel below rootfd, without a symbolic link;
 * returns a stream or NULL.
 */
static FILE *
specmeta_open(int rootfd, const char *rel)
{
	struct stat	 st;
	FILE		*fp;
	int		 fd;

	if ((fd = confine_open(rootfd, rel, O_RDONLY | O_NONBLOCK | O_NOCTTY,
	    0)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) ||
	    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK) == -1 ||
	    (fp = fdopen(fd, "r")) == NULL) {
		close(fd);
		return NULL;
	}
	return fp;
}

/*
 * Look for the metadata of etok in the transcript file rel: the first
 * "f"/"a" line of exactly 8 tokens whose path token is byte-equal to
 * etok.  Copies type, mode, uid, gid.  Returns 1 found, 0 not (or the
 * file is unreadable).
 */
static int
specmeta_scan(int rootfd, const char *rel, const char *etok,
    char meta[4][SPECMETA_FIELD])
{
	char	 line[SPECMETA_TLINE], *av[9];
	FILE	*fp;
	size_t	 len;
	int	 ac, found = 0, i;

	if ((fp = specmeta_open(rootfd, rel)) == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), fp) != NULL) {
		len = strlen(line);
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		else if (!feof(fp)) {
			while (fgets(line, sizeof(line), fp) != NULL &&
			    strchr(line, '\n') == NULL)
				;
			continue;
		}
		if ((line[0] != 'f' && line[0] != 'a') || line[1] != ' ')
			continue;
		if ((ac = proto_split(line, av, 8)) != 8)
			continue;
		if (strcmp(av[1], etok) != 0)
			continue;
		for (i = 0; i < 4; i++)
			if (strlen(av[i == 0 ? 0 : i + 1]) >= SPECMETA_FIELD)
				break;
		if (i < 4)
			continue;
		for (i = 0; i < 4; i++)
			strlcpy(meta[i], av[i == 0 ? 0 : i + 1],
			    SPECMETA_FIELD);
		found = 1;
	}
	fclose(fp);
	return found;
}

int
specmeta_lookup(int rootfd, const char *specialdir, const char *path,
    const char *etok, char meta[4][SPECMETA_FIELD])
{
	char	*rel;
	size_t	 n;
	int	 found = 0;

	strlcpy(meta[0], "f", SPECMETA_FIELD);
	strlcpy(meta[1], "444", SPECMETA_FIELD);
	strlcpy(meta[2], "0", SPECMETA_FIELD);
	strlcpy(meta[3], "0", SPECMETA_FIELD);
	/* A special whose own name ends in ".T" is its own meta. */
	xasprintf(&rel, "%s/%s", specialdir, path);
	if ((n = strlen(rel)) + 2 < PATH_MAX) {
		if (n > 2 && strcmp(rel + n - 2, ".T") == 0)
			found = specmeta_scan(rootfd, rel, etok, meta);
		else {
			free(rel);
			xasprintf(&rel, "%s/%s.T", specialdir, path);
			found = specmeta_scan(rootfd, rel, etok, meta);
		}
	}
	free(rel);
	if (!found) {
		xasprintf(&rel, "%s.T", specialdir);
		found = specmeta_scan(rootfd, rel, etok, meta);
		free(rel);
	}
	if (!found)
		found = specmeta_scan(rootfd, "transcript/special.T", etok,
		    meta);
	return found;
}
