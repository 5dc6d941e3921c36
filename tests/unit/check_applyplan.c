/*
 * check_applyplan.c: what lapply does with each transcript line
 * (client/apply-plan.c), one row per case: the line, what is at its
 * path, the options; the act, the order among downloads, and whether it
 * may run ahead of -j downloads.  Then what may be the basis of a
 * DELTA request.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#ifdef HAVE_SYS_SYSMACROS_H
#include <sys/sysmacros.h>
#endif

#include "apply-plan.h"
#include "delta.h"
#include "transcript.h"
#include "unit.h"

/* Options of a row. */
#define NET	0x1		/* a network (not -n) */
#define FORCE	0x2		/* -F */
#define PREFIX	0x4		/* -C */

/* Order of a row. */
#define NOTHING	APLAN_NOTHING
#define JOBS	APLAN_WAITJOBS
#define BATCH	APLAN_WAITBATCH

struct row {
	const char	*line;		/* prefix and type: "f", "-d", "+f" */
	const char	*path;
	unsigned	 maj, min;	/* b, c */
	char		 disk;		/* type there, 0: nothing */
	nlink_t		 nlink;
	unsigned	 dmaj, dmin;	/* its device numbers */
	int		 opt;
	enum apply_act	 act;
	int		 order;
	int		 may;		/* apply_plan_mayahead */
	int		 ahead;		/* apply_plan_ahead */
};

static const struct row rows[] = {
	/* Nothing there. */
	{ "f", "./a", 0, 0, 0, 0, 0, 0, NET, APLAN_NOFILE, JOBS, 1, 0 },
	{ "d", "./a", 0, 0, 0, 0, 0, 0, NET, APLAN_CREATE, JOBS, 1, 1 },
	{ "l", "./a", 0, 0, 0, 0, 0, 0, NET, APLAN_CREATE, JOBS, 1, 1 },
	{ "h", "./a", 0, 0, 0, 0, 0, 0, NET, APLAN_CREATE, JOBS | BATCH,
	    0, 0 },
	{ "p", "./a", 0, 0, 0, 0, 0, 0, NET, APLAN_CREATE, JOBS, 1, 1 },
	{ "b", "./a", 8, 1, 0, 0, 0, 0, NET, APLAN_CREATE, JOBS, 1, 1 },
	{ "c", "./a", 1, 3, 0, 0, 0, 0, NET, APLAN_CREATE, JOBS, 1, 1 },
	{ "s", "./a", 0, 0, 0, 0, 0, 0, NET, APLAN_NOTMADE, JOBS, 0, 0 },
	{ "D", "./a", 0, 0, 0, 0, 0, 0, NET, APLAN_NOTMADE, JOBS, 0, 0 },
	{ "a", "./a", 0, 0, 0, 0, 0, 0, NET, APLAN_BADTYPE, JOBS, 0, 0 },
	/* -F does not make a missing file a warning. */
	{ "f", "./a", 0, 0, 0, 0, 0, 0, NET | FORCE, APLAN_NOFILE, JOBS,
	    1, 0 },
	/* Without a network only "+" lines change. */
	{ "d", "./a", 0, 0, 0, 0, 0, 0, 0, APLAN_CREATE, JOBS, 1, 1 },

	/* The same type there. */
	{ "f", "./a", 0, 0, 'f', 1, 0, 0, NET, APLAN_UPDATE, JOBS, 1, 1 },
	{ "f", "./a", 0, 0, 'f', 3, 0, 0, NET, APLAN_UPDATE, JOBS, 1, 0 },
	{ "d", "./a", 0, 0, 'd', 5, 0, 0, NET, APLAN_UPDATE, JOBS, 1, 1 },
	{ "l", "./a", 0, 0, 'l', 1, 0, 0, NET, APLAN_RELINK, JOBS, 1, 0 },
	{ "p", "./a", 0, 0, 'p', 1, 0, 0, NET, APLAN_UPDATE, JOBS, 1, 1 },
	{ "p", "./a", 0, 0, 'p', 2, 0, 0, NET, APLAN_UPDATE, JOBS, 1, 0 },
	{ "b", "./a", 8, 1, 'b', 1, 8, 1, NET, APLAN_UPDATE, JOBS, 1, 0 },
	{ "b", "./a", 8, 1, 'b', 1, 9, 1, NET, APLAN_REMAKE, JOBS, 1, 0 },
	{ "c", "./a", 1, 3, 'c', 1, 1, 3, NET, APLAN_UPDATE, JOBS, 1, 0 },
	{ "c", "./a", 1, 3, 'c', 1, 1, 5, NET, APLAN_REMAKE, JOBS, 1, 0 },
	{ "s", "./a", 0, 0, 's', 1, 0, 0, NET, APLAN_UPDATE, JOBS, 0, 0 },

	/* Another type there. */
	{ "f", "./a", 0, 0, 'd', 2, 0, 0, NET, APLAN_REPLACE_DIR, JOBS,
	    1, 0 },
	{ "d", "./a", 0, 0, 'f', 1, 0, 0, NET, APLAN_REPLACE, JOBS, 1, 0 },
	{ "l", "./a", 0, 0, 'f', 1, 0, 0, NET, APLAN_REPLACE, JOBS, 1, 0 },
	{ "p", "./a", 0, 0, 'c', 1, 1, 3, NET, APLAN_REPLACE, JOBS, 1, 0 },
	{ "b", "./a", 1, 3, 'c', 1, 1, 3, NET, APLAN_REPLACE, JOBS, 1, 0 },
	{ "f", "./a", 0, 0, 's', 1, 0, 0, NET, APLAN_REPLACE, JOBS, 1, 0 },
	/* lstat never sees a hard link or a door: always replaced. */
	{ "h", "./a", 0, 0, 'f', 2, 0, 0, NET, APLAN_REPLACE, JOBS | BATCH,
	    0, 0 },
	{ "h", "./a", 0, 0, 'd', 2, 0, 0, NET, APLAN_REPLACE_DIR,
	    JOBS | BATCH, 0, 0 },
	{ "D", "./a", 0, 0, 'f', 1, 0, 0, NET, APLAN_REPLACE, JOBS, 0, 0 },

	/* Removals. */
	{ "-f", "./a", 0, 0, 'f', 1, 0, 0, NET, APLAN_REMOVE, JOBS | BATCH,
	    0, 0 },
	{ "-l", "./a", 0, 0, 'l', 1, 0, 0, NET, APLAN_REMOVE, JOBS | BATCH,
	    0, 0 },
	{ "-d", "./a", 0, 0, 'd', 2, 0, 0, NET, APLAN_REMOVE_DIR,
	    JOBS | BATCH, 0, 0 },
	{ "-f", "./a", 0, 0, 'd', 2, 0, 0, NET, APLAN_REMOVE_DIR,
	    JOBS | BATCH, 0, 0 },
	{ "-d", "./a", 0, 0, 'f', 1, 0, 0, NET, APLAN_REMOVE, JOBS | BATCH,
	    0, 0 },
	{ "-f", "./a", 0, 0, 'f', 1, 0, 0, 0, APLAN_REMOVE, JOBS | BATCH,
	    0, 0 },
	{ "-f", "./a", 0, 0, 0, 0, 0, 0, NET, APLAN_GONE_FAIL, JOBS | BATCH,
	    0, 0 },
	{ "-f", "./a", 0, 0, 0, 0, 0, 0, NET | FORCE, APLAN_GONE_WARN,
	    JOBS | BATCH, 0, 0 },
	{ "-d", "./a", 0, 0, 0, 0, 0, 0, FORCE, APLAN_GONE_WARN,
	    JOBS | BATCH, 0, 0 },

	/* Downloads: queued in their turn, over a file, never ahead. */
	{ "+f", "./a", 0, 0, 0, 0, 0, 0, NET, APLAN_DOWNLOAD, 0, 0, 0 },
	{ "+f", "./a", 0, 0, 'f', 1, 0, 0, NET, APLAN_DOWNLOAD, 0, 0, 0 },
	{ "+f", "./a", 0, 0, 'f', 4, 0, 0, NET, APLAN_DOWNLOAD, 0, 0, 0 },
	{ "+f", "./a", 0, 0, 'l', 1, 0, 0, NET, APLAN_REPLACE, 0, 0, 0 },
	{ "+f", "./a", 0, 0, 'd', 2, 0, 0, NET, APLAN_REPLACE_DIR, 0,
	    0, 0 },
	{ "+f", "./a", 0, 0, 0, 0, 0, 0, 0, APLAN_SKIP, NOTHING, 0, 0 },
	{ "+f", "./a", 0, 0, 'd', 2, 0, 0, FORCE, APLAN_SKIP, NOTHING,
	    0, 0 },
	{ "+f", "./a.radmind.1", 0, 0, 0, 0, 0, 0, NET, APLAN_DOWNLOAD,
	    BATCH, 0, 0 },

	/* -C: missing parents are made, nothing runs ahead. */
	{ "d", "./a/b", 0, 0, 0, 0, 0, 0, NET | PREFIX, APLAN_CREATE, JOBS,
	    0, 0 },
	{ "f", "./a/b", 0, 0, 'f', 1, 0, 0, NET | PREFIX, APLAN_UPDATE,
	    JOBS, 0, 0 },
	{ "+f", "./a/b", 0, 0, 0, 0, 0, 0, NET | PREFIX, APLAN_DOWNLOAD, 0,
	    0, 0 },

	/* Names like a download's temp file wait for the renames. */
	{ "d", "./a/.radmind.x", 0, 0, 0, 0, 0, 0, NET, APLAN_CREATE,
	    JOBS | BATCH, 0, 0 },
	{ "f", "./.radmind.a", 0, 0, 'f', 1, 0, 0, NET, APLAN_UPDATE,
	    JOBS | BATCH, 0, 0 },
	{ "f", "./a.radmind", 0, 0, 'f', 1, 0, 0, NET, APLAN_UPDATE, JOBS,
	    1, 1 },
};

#define NROWS	((int)(sizeof(rows) / sizeof(rows[0])))

/* For messages, in the order of enum apply_act. */
static const char *const actname[] = {
	"SKIP", "CREATE", "DOWNLOAD", "RELINK", "REMAKE", "UPDATE",
	"REPLACE", "REPLACE_DIR", "REMOVE", "REMOVE_DIR", "GONE_WARN",
	"GONE_FAIL", "NOTMADE", "NOFILE", "BADTYPE"
};

static const char *
act_name(enum apply_act act)
{
	if ((size_t)act >= sizeof(actname) / sizeof(actname[0]))
		return "?";
	return actname[act];
}

static mode_t
disk_mode(char type)
{
	switch (type) {
	case 'f':
		return S_IFREG | 0644;
	case 'd':
		return S_IFDIR | 0755;
	case 'l':
		return S_IFLNK | 0777;
	case 'p':
		return S_IFIFO | 0644;
	case 'b':
		return S_IFBLK | 0600;
	case 'c':
		return S_IFCHR | 0600;
	case 's':
		return S_IFSOCK | 0755;
	}
	ck_abort_msg("no mode for disk type %c", type);
	return 0;
}

START_TEST(test_row)
{
	const struct row	*r = &rows[_i];
	struct apply_planopt	 po;
	struct tline		 t;
	struct stat		 st, *stp = NULL;
	const char		*p = r->line;
	char			 what[128];

	snprintf(what, sizeof(what), "row %d: \"%s %s\" on %c%s%s%s", _i,
	    r->line, r->path, r->disk ? r->disk : '-',
	    r->opt & NET ? "" : " -n", r->opt & FORCE ? " -F" : "",
	    r->opt & PREFIX ? " -C" : "");
	memset(&t, 0, sizeof(t));
	if (*p == '-' || *p == '+') {
		t.minus = *p == '-';
		t.plus = *p == '+';
		p++;
	}
	t.type = *p;
	t.path = (char *)r->path;
	t.mode = 0644;
	t.major = r->maj;
	t.minor = r->min;
	t.lineno = (unsigned)_i + 1;
	if (r->disk != 0) {
		memset(&st, 0, sizeof(st));
		st.st_mode = disk_mode(r->disk);
		st.st_nlink = r->nlink;
		st.st_rdev = makedev(r->dmaj, r->dmin);
		stp = &st;
	}
	memset(&po, 0, sizeof(po));
	po.network = (r->opt & NET) != 0;
	po.force = (r->opt & FORCE) != 0;
	po.create_prefix = (r->opt & PREFIX) != 0;

	ck_assert_msg(apply_plan(&t, stp, &po) == r->act,
	    "%s: %s, not %s", what, act_name(apply_plan(&t, stp, &po)),
	    act_name(r->act));
	ck_assert_msg(apply_plan_order(&t, &po) == r->order,
	    "%s: order %#x, not %#x", what, apply_plan_order(&t, &po),
	    r->order);
	ck_assert_msg(!apply_plan_mayahead(&t, &po) == !r->may,
	    "%s: may run ahead %d, not %d", what,
	    apply_plan_mayahead(&t, &po), r->may);
	ck_assert_msg(!apply_plan_ahead(&t, stp, &po) == !r->ahead,
	    "%s: runs ahead %d, not %d", what,
	    apply_plan_ahead(&t, stp, &po), r->ahead);
	/* What may not even be looked at never runs ahead. */
	ck_assert(r->may || !r->ahead);
}
END_TEST

/* A replaced path is planned again as empty: never replaced twice. */
START_TEST(test_replace_then_absent)
{
	struct apply_planopt	 po = { 1, 0, 0, 0 };
	const struct row	*r;
	enum apply_act		 act;
	struct tline		 t;
	int			 i;

	ck_assert_int_eq(sizeof(actname) / sizeof(actname[0]),
	    APLAN_BADTYPE + 1);
	for (i = 0; i < NROWS; i++) {
		r = &rows[i];
		if (r->act != APLAN_REPLACE && r->act != APLAN_REPLACE_DIR)
			continue;
		memset(&t, 0, sizeof(t));
		t.plus = r->line[0] == '+';
		t.type = r->line[t.plus ? 1 : 0];
		t.path = (char *)r->path;
		act = apply_plan(&t, NULL, &po);
		ck_assert_msg(act == APLAN_CREATE || act == APLAN_DOWNLOAD ||
		    act == APLAN_NOFILE || act == APLAN_NOTMADE,
		    "row %d: \"%s\" on an empty path: %s", i, r->line,
		    act_name(act));
	}
}
END_TEST

/*
 * The basis of a DELTA request: a "+ f" line of at most DELTA_MAXFILE
 * bytes, with DELTA in use and a network, over a regular file with no
 * other name of at most DELTA_MAXFILE bytes; nothing else.
 */
START_TEST(test_basis)
{
	struct apply_planopt	 po;
	struct tline		 t;
	struct stat		 st;

	memset(&po, 0, sizeof(po));
	po.network = 1;
	po.delta = 1;
	memset(&t, 0, sizeof(t));
	t.plus = 1;
	t.type = 'f';
	t.path = "./a";
	t.size = 100;
	memset(&st, 0, sizeof(st));
	st.st_mode = S_IFREG | 0644;
	st.st_nlink = 1;
	st.st_size = 90;
	ck_assert(apply_plan_basis(&t, NULL, &po));
	ck_assert(apply_plan_basis(&t, &st, &po));

	/* What is there now. */
	st.st_size = DELTA_MAXFILE;
	ck_assert(apply_plan_basis(&t, &st, &po));
	st.st_size = DELTA_MAXFILE + 1;
	ck_assert(!apply_plan_basis(&t, &st, &po));
	st.st_size = 90;
	st.st_nlink = 2;
	ck_assert(!apply_plan_basis(&t, &st, &po));
	st.st_nlink = 1;
	st.st_mode = S_IFLNK | 0777;
	ck_assert(!apply_plan_basis(&t, &st, &po));
	st.st_mode = S_IFIFO | 0644;
	ck_assert(!apply_plan_basis(&t, &st, &po));
	st.st_mode = S_IFCHR | 0644;
	ck_assert(!apply_plan_basis(&t, &st, &po));
	st.st_mode = S_IFDIR | 0755;
	ck_assert(!apply_plan_basis(&t, &st, &po));
	st.st_mode = S_IFREG | 0644;

	/* The line. */
	t.size = DELTA_MAXFILE;
	ck_assert(apply_plan_basis(&t, &st, &po));
	t.size = DELTA_MAXFILE + 1;
	ck_assert(!apply_plan_basis(&t, NULL, &po));
	ck_assert(!apply_plan_basis(&t, &st, &po));
	t.size = 100;
	t.plus = 0;
	ck_assert(!apply_plan_basis(&t, &st, &po));
	t.plus = 1;
	t.type = 'a';
	ck_assert(!apply_plan_basis(&t, &st, &po));
	t.type = 'f';

	/* The run: no -c or no DELTA offered, or -n. */
	po.delta = 0;
	ck_assert(!apply_plan_basis(&t, NULL, &po));
	ck_assert(!apply_plan_basis(&t, &st, &po));
	po.delta = 1;
	po.network = 0;
	ck_assert(!apply_plan_basis(&t, &st, &po));
}
END_TEST

static Suite *
applyplan_suite(void)
{
	Suite	*s = suite_create("applyplan");
	TCase	*tc;

	tc = tcase_create("plan");
	tcase_add_loop_test(tc, test_row, 0, NROWS);
	tcase_add_test(tc, test_replace_then_absent);
	tcase_add_test(tc, test_basis);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(applyplan_suite());
}
