/*
 * troot.c: locate a transcript's file tree (see troot.h).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "cerr.h"
#include "troot.h"
#include "xmalloc.h"

void
troot_clear(struct troot *tr)
{
	free(tr->file_root);
	free(tr->tran_root);
	free(tr->tran_name);
	memset(tr, 0, sizeof(*tr));
}

/*
 * If dir is base/sub or base/sub/..., return the part after base/sub
 * ("" or "/..."), else NULL.
 */
static const char *
under(const char *dir, const char *base, const char *sub)
{
	size_t	blen = strlen(base), slen = strlen(sub);

	if (strncmp(dir, base, blen) != 0 || dir[blen] != '/' ||
	    strncmp(dir + blen + 1, sub, slen) != 0)
		return NULL;
	dir += blen + 1 + slen;
	return *dir == '\0' || *dir == '/' ? dir : NULL;
}

int
troot_get(const char *radmind_dir, const char *tpath, struct troot *tr,
    struct cerr *err)
{
	char		*real, *rdir, *slash;
	const char	*rest;

	memset(tr, 0, sizeof(*tr));
	if ((real = realpath(tpath, NULL)) == NULL) {
		cerr_errno(err, "%s", tpath);
		return -1;
	}
	if ((slash = strrchr(real, '/')) == NULL || slash == real ||
	    slash[1] == '\0') {
		cerr_set(err, "%s: invalid transcript location", real);
		free(real);
		return -1;
	}
	*slash = '\0';
	tr->tran_name = xstrdup(slash + 1);
	tr->tran_root = xstrdup(real);
	/* An absent working directory simply matches nothing. */
	rdir = realpath(radmind_dir, NULL);
	if (rdir != NULL && (rest = under(real, rdir, "tmp/transcript")) !=
	    NULL)
		xasprintf(&tr->file_root, "%s/tmp/file%s", rdir, rest);
	else if (rdir != NULL && (rest = under(real, rdir, "transcript")) !=
	    NULL)
		xasprintf(&tr->file_root, "%s/file%s", rdir, rest);
	else
		xasprintf(&tr->file_root, "%s/../file", real);
	free(rdir);
	free(real);
	return 0;
}
