/*
 * apply-plan.c: what lapply does with one transcript line.
 *
 * For each line, the path is made, replaced (removed and made anew, or
 * downloaded over), updated in place, removed (at once, or a directory
 * once the input leaves it, since its entries come after it), left with
 * a warning, or the run fails.  The decision depends only on the line,
 * on what lstat found at its path and on -F, -C and the network; apply.c
 * carries it out, with the messages of each case.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#ifdef HAVE_SYS_SYSMACROS_H
#include <sys/sysmacros.h>
#endif
#include <string.h>

#include "apply-plan.h"
#include "delta.h"
#include "transcript.h"

/* A "+" line without a network does nothing here (lapply -n). */
static int
plan_skipped(const struct tline *t, const struct apply_planopt *po)
{
	return t->plus && !po->network;
}

/* A name like the temp files of downloads (download.c). */
static int
plan_tempname(const struct tline *t)
{
	return strstr(t->path, ".radmind.") != NULL;
}

/* Nothing at the path, or what the transcript calls it already removed. */
static enum apply_act
plan_absent(const struct tline *t, const struct apply_planopt *po)
{
	if (t->minus)
		return po->force ? APLAN_GONE_WARN : APLAN_GONE_FAIL;
	if (t->plus)
		return APLAN_DOWNLOAD;
	switch (t->type) {
	case 'f':
		return APLAN_NOFILE;
	case 'd':
	case 'l':
	case 'h':
	case 'p':
	case 'b':
	case 'c':
		return APLAN_CREATE;
	case 's':
	case 'D':
		return APLAN_NOTMADE;
	default:
		return APLAN_BADTYPE;
	}
}

enum apply_act
apply_plan(const struct tline *t, const struct stat *st,
    const struct apply_planopt *po)
{
	int	disktype;

	if (plan_skipped(t, po))
		return APLAN_SKIP;
	if (st == NULL)
		return plan_absent(t, po);
	disktype = tline_typeof(st->st_mode);
	if (t->minus)
		return disktype == 'd' ? APLAN_REMOVE_DIR : APLAN_REMOVE;
	/* A hard link is never of the type lstat sees: always replaced. */
	if (disktype != t->type)
		return disktype == 'd' ? APLAN_REPLACE_DIR : APLAN_REPLACE;
	if (t->plus)
		return APLAN_DOWNLOAD;
	switch (t->type) {
	case 'l':
		return APLAN_RELINK;
	case 'b':
	case 'c':
		if (major(st->st_rdev) != t->major ||
		    minor(st->st_rdev) != t->minor)
			return APLAN_REMAKE;
		return APLAN_UPDATE;
	default:
		return APLAN_UPDATE;
	}
}

int
apply_plan_order(const struct tline *t, const struct apply_planopt *po)
{
	int	order = 0;

	if (plan_skipped(t, po))
		return APLAN_NOTHING;
	/* A download is queued in its turn: it waits for none. */
	if (!t->plus)
		order |= APLAN_WAITJOBS;
	if (t->minus || t->type == 'h' || plan_tempname(t))
		order |= APLAN_WAITBATCH;
	return order;
}

int
apply_plan_mayahead(const struct tline *t, const struct apply_planopt *po)
{
	if (t->minus || t->plus || po->create_prefix || plan_tempname(t))
		return 0;
	switch (t->type) {
	case 'd':
	case 'l':
	case 'p':
	case 'b':
	case 'c':
	case 'f':
		return 1;
	default:
		return 0;
	}
}

int
apply_plan_ahead(const struct tline *t, const struct stat *st,
    const struct apply_planopt *po)
{
	if (!apply_plan_mayahead(t, po))
		return 0;
	/* A new object can be removed again: not a file, which is none. */
	if (st == NULL)
		return t->type != 'f';
	/*
	 * Metadata changed in place can be put back: on a directory, or a
	 * file or pipe with no other name (otherwise a copy replaces it).
	 * A symbolic link is made anew, a device of other numbers too.
	 */
	if (tline_typeof(st->st_mode) != t->type)
		return 0;
	switch (t->type) {
	case 'd':
		return 1;
	case 'f':
	case 'p':
		return st->st_nlink == 1;
	default:
		return 0;
	}
}

int
apply_plan_basis(const struct tline *t, const struct stat *st,
    const struct apply_planopt *po)
{
	if (!po->delta || !po->network || !t->plus || t->type != 'f' ||
	    t->size < 0 || t->size > DELTA_MAXFILE)
		return 0;
	if (st == NULL)
		return 1;
	/* A hard link is read through no more than a symbolic one. */
	return S_ISREG(st->st_mode) && st->st_nlink == 1 &&
	    st->st_size <= DELTA_MAXFILE;
}
