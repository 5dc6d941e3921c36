/*
 * apply-plan.h: what lapply does with one transcript line (apply-plan.c).
 * Pure decisions on the line, what lstat saw at its path and the options
 * of the run: no I/O and no state, so that apply.c only carries them
 * out.  It calls nothing of the apply library.
 */
#ifndef CAIRN_APPLY_PLAN_H
#define CAIRN_APPLY_PLAN_H

#include <sys/types.h>
#include <sys/stat.h>

struct tline;

/* The options of the run that the plan depends on. */
struct apply_planopt {
	int	network;	/* "+" lines are downloaded (not -n) */
	int	force;		/* -F: a path already removed is a warning */
	int	create_prefix;	/* -C: missing parents are made */
	int	delta;		/* DELTA: -c set and offered by the server */
};

/* What happens to the path of a line. */
enum apply_act {
	APLAN_SKIP,		/* nothing: a "+" line without a network */
	APLAN_CREATE,		/* nothing there: make it, then its metadata */
	APLAN_DOWNLOAD,		/* a "+" line: download it (over a file) */
	APLAN_RELINK,		/* a symbolic link there: a new one over it */
	APLAN_REMAKE,		/* a device of other numbers: removed, made */
	APLAN_UPDATE,		/* there, same type: its metadata in place */
	APLAN_REPLACE,		/* another type there, not a directory:
				   removed now, then planned again as absent */
	APLAN_REPLACE_DIR,	/* a directory there, another type wanted:
				   removed when the input leaves it, then the
				   line planned again as absent */
	APLAN_REMOVE,		/* a "-" line, not a directory: removed now */
	APLAN_REMOVE_DIR,	/* a "-" line, a directory: removed when the
				   input leaves it */
	APLAN_GONE_WARN,	/* a "-" line, nothing there, -F: a warning */
	APLAN_GONE_FAIL,	/* a "-" line, nothing there: an error */
	APLAN_NOTMADE,		/* s or D, nothing there: cannot be made here,
				   a warning */
	APLAN_NOFILE,		/* f (no "+"), nothing there: an error */
	APLAN_BADTYPE		/* a type this system cannot make: an error */
};

/*
 * The act for line t given st, what lstat found at its path (NULL:
 * nothing).  The caller has refused objects of no transcript type.
 */
enum apply_act	apply_plan(const struct tline *t, const struct stat *st,
		    const struct apply_planopt *);

/*
 * How line t takes its turn among the downloads of earlier lines, before
 * its path is looked at: APLAN_NOTHING (a "+" line without a network:
 * nothing to do), or an or of APLAN_WAITJOBS (with -j, it waits until
 * the downloads queued on other sessions are landed, unless it may run
 * ahead of them) and APLAN_WAITBATCH (it could see a download not yet
 * renamed into place: a removal, a hard link, whose target is an earlier
 * path, or a name like a temp file's, waits until every one is).
 */
#define APLAN_NOTHING	0x1
#define APLAN_WAITJOBS	0x2
#define APLAN_WAITBATCH	0x4
int		apply_plan_order(const struct tline *t,
		    const struct apply_planopt *);

/*
 * With downloads pending on other sessions (-j), may line t run at once,
 * ahead of them?  Only a line that makes a new directory, symbolic link,
 * pipe or device, or changes nothing but the metadata of a directory, or
 * of a file or pipe with no other name, in place: what can be taken back
 * if an earlier download fails.  Never with -C, a removal or a name like
 * a temp file's.  apply_plan_mayahead answers before the path is looked
 * at (0: do not look), apply_plan_ahead with st as for apply_plan.
 */
int		apply_plan_mayahead(const struct tline *t,
		    const struct apply_planopt *);
int		apply_plan_ahead(const struct tline *t, const struct stat *st,
		    const struct apply_planopt *);

/*
 * May a "+" line t be asked as a delta (a DELTA request) from what is
 * at its path now?  Only with po->delta, for a file of at most
 * DELTA_MAXFILE bytes; st is fstat of the descriptor opened there
 * (never through a symbolic link): it must be a regular file with no
 * other name, of at most DELTA_MAXFILE bytes.  With st NULL the answer
 * is for the line alone (0: do not look).
 */
int		apply_plan_basis(const struct tline *t, const struct stat *st,
		    const struct apply_planopt *);

#endif
