/*
 * check_command.c: command files (docs/formats.md section 5).
 */
#include "config.h"

#include <fcntl.h>
#include <string.h>

#include "cerr.h"
#include "command.h"
#include "compat.h"
#include "unit.h"

static char	*kd;		/* scratch command directory, ends in '/' */

static void
kd_setup(void)
{
	char	*d = unit_mkdtemp();

	ck_assert(asprintf(&kd, "%s/", d) != -1);
	free(d);
}

static void
kd_teardown(void)
{
	unit_rmtree(kd);
	free(kd);
	kd = NULL;
}

/* Path of name inside the scratch directory (static storage). */
static const char *
kp(const char *name)
{
	static char	path[PATH_MAX];

	snprintf(path, sizeof(path), "%s%s", kd, name);
	return path;
}

static struct cmdset *
load_ok(const char *kfile, int flags)
{
	struct cmdset	*cs = NULL;
	struct cerr	 err = { "" };
	char		*path = strdup(kp(kfile));

	ck_assert_msg(cmdset_load(path, NULL, flags, &cs, &err) == 0, "%s",
	    err.msg);
	ck_assert_ptr_nonnull(cs);
	free(path);
	return cs;
}

/* Loading must fail with exactly fmt, each "%s" in it replaced by kd. */
static void
load_err(const char *kfile, int flags, const char *fmt)
{
	struct cmdset	*cs = NULL;
	struct cerr	 err = { "" };
	char		*path = strdup(kp(kfile)), want[2048];
	const char	*p, *q;

	ck_assert_int_eq(cmdset_load(path, NULL, flags, &cs, &err), -1);
	ck_assert_ptr_null(cs);
	want[0] = '\0';
	for (p = fmt; (q = strstr(p, "%s")) != NULL; p = q + 2) {
		strncat(want, p, (size_t)(q - p));
		strcat(want, kd);
	}
	strcat(want, p);
	ck_assert_str_eq(err.msg, want);
	free(path);
}

/* The transcript list, as "p:name n:name ...". */
static char *
trans(const struct cmdset *cs)
{
	static char	s[1024];
	size_t		i;

	s[0] = '\0';
	for (i = 0; i < cs->ntran; i++) {
		if (i > 0)
			strcat(s, " ");
		strcat(s, cs->tran[i].type == 'p' ? "p:" : "n:");
		strcat(s, cs->tran[i].name);
	}
	return s;
}

static char *
join(char **v, size_t n)
{
	static char	s[1024];
	size_t		i;

	s[0] = '\0';
	for (i = 0; i < n; i++) {
		if (i > 0)
			strcat(s, "|");
		strcat(s, v[i]);
	}
	return s;
}

/* Line parsing. */

START_TEST(test_cline_entries)
{
	struct cline	c;
	struct cerr	err = { "" };

	ck_assert_int_eq(cline_parse(&c, "k base/linux.K", "c.K", 1, &err), 1);
	ck_assert_int_eq(c.type, 'k');
	ck_assert_int_eq(c.minus, 0);
	ck_assert_str_eq(c.name, "base/linux.K");
	ck_assert_uint_eq(c.lineno, 1);
	free(c.name);
	ck_assert_int_eq(cline_parse(&c, "p  web/nginx-1.24.T", "c.K", 2, &err),
	    1);
	ck_assert_int_eq(c.type, 'p');
	ck_assert_str_eq(c.name, "web/nginx-1.24.T");
	free(c.name);
	ck_assert_int_eq(cline_parse(&c, "n\tweb/logs-neg.T", "c.K", 3, &err),
	    1);
	ck_assert_int_eq(c.type, 'n');
	free(c.name);
	/* s names stay encoded as written */
	ck_assert_int_eq(cline_parse(&c, "s  ./etc/host\\bname", "c.K", 4, &err),
	    1);
	ck_assert_int_eq(c.type, 's');
	ck_assert_str_eq(c.name, "./etc/host\\bname");
	free(c.name);
	ck_assert_int_eq(cline_parse(&c, "  x  ./var/cache/*  ", "c.K", 5,
	    &err), 1);
	ck_assert_int_eq(c.type, 'x');
	ck_assert_str_eq(c.name, "./var/cache/*");
	free(c.name);
	ck_assert_int_eq(cline_parse(&c, "-  p  base/old-kernel.T", "c.K", 7,
	    &err), 1);
	ck_assert_int_eq(c.minus, 1);
	ck_assert_int_eq(c.type, 'p');
	ck_assert_str_eq(c.name, "base/old-kernel.T");
	ck_assert_uint_eq(c.lineno, 7);
	free(c.name);
	ck_assert_int_eq(cline_parse(&c, "-\tk\tx.K", "c.K", 8, &err), 1);
	ck_assert_int_eq(c.minus, 1);
	ck_assert_int_eq(c.type, 'k');
	free(c.name);
}
END_TEST

START_TEST(test_cline_blank_comment)
{
	struct cline	c;
	struct cerr	err = { "" };

	ck_assert_int_eq(cline_parse(&c, "", "c.K", 1, &err), 0);
	ck_assert_int_eq(cline_parse(&c, " \t ", "c.K", 1, &err), 0);
	ck_assert_int_eq(cline_parse(&c, "# web servers", "c.K", 1, &err), 0);
	ck_assert_int_eq(cline_parse(&c, "#p x.T", "c.K", 1, &err), 0);
	ck_assert_int_eq(cline_parse(&c, "   # indented", "c.K", 1, &err), 0);
}
END_TEST

static const struct {
	const char	*line, *msg;
} cbad[] = {
	{ "z foo", "command file ../case/command.K: line 2: 'z' invalid" },
	{ "P foo.T", "command file ../case/command.K: line 2: 'P' invalid" },
	{ "pp foo.T", "command file ../case/command.K: line 2: 'pp' invalid" },
	{ "- z foo", "command file ../case/command.K: line 2: 'z' invalid" },
	{ "- - foo", "command file ../case/command.K: line 2: '-' invalid" },
	{ "-p foo.T", "command file ../case/command.K: line 2: '-p' invalid" },
	{ "p", "command file ../case/command.K: line 2: "
	    "expected 2 arguments, got 1" },
	{ "p a.T b.T", "command file ../case/command.K: line 2: "
	    "expected 2 arguments, got 3" },
	{ "x a b c d e", "command file ../case/command.K: line 2: "
	    "expected 2 arguments, got 6" },
	{ "-", "command file ../case/command.K: line 2: "
	    "expected 3 arguments, got 1" },
	{ "- p", "command file ../case/command.K: line 2: "
	    "expected 3 arguments, got 2" },
	{ "- p a.T b.T", "command file ../case/command.K: line 2: "
	    "expected 3 arguments, got 4" },
};

START_TEST(test_cline_errors)
{
	struct cline	c;
	struct cerr	err = { "" };

	ck_assert_int_eq(cline_parse(&c, cbad[_i].line, "../case/command.K", 2,
	    &err), -1);
	ck_assert_str_eq(err.msg, cbad[_i].msg);
}
END_TEST

START_TEST(test_command_dir)
{
	char	*d;

	d = command_dir("command.K");
	ck_assert_str_eq(d, "./");
	free(d);
	d = command_dir("/var/radmind/client/command.K");
	ck_assert_str_eq(d, "/var/radmind/client/");
	free(d);
	d = command_dir("../case/command.K");
	ck_assert_str_eq(d, "../case/");
	free(d);
	d = command_dir("/command.K");
	ck_assert_str_eq(d, "/");
	free(d);
}
END_TEST

/* A k name stays below the command directory, and has one spelling. */
START_TEST(test_command_name)
{
	static const char *const ok[][2] = {
		{ "a.K", "a.K" }, { "./a.K", "a.K" }, { "././a.K", "a.K" },
		{ "sub/./b.T", "sub/b.T" }, { "sub/.", "sub" },
		{ ".a.K", ".a.K" }, { "..a", "..a" }, { "a/.../b", "a/.../b" },
	};
	static const char *const bad[] = {
		"", "/a.K", "..", "../a.K", "a/../b", "a//b", "a/", ".",
		"./.", "././",
	};
	size_t	 i;
	char	*c;

	for (i = 0; i < sizeof(ok) / sizeof(ok[0]); i++) {
		ck_assert_msg(command_name_ok(ok[i][0]), "%s", ok[i][0]);
		c = command_name_canon(ok[i][0]);
		ck_assert_str_eq(c, ok[i][1]);
		free(c);
	}
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(!command_name_ok(bad[i]), "%s", bad[i]);
}
END_TEST

/* Full expansion. */

START_TEST(test_load_basic)
{
	struct cmdset	*cs;
	char		 want[PATH_MAX];

	unit_write(kd, "command.K",
	    "# web servers\n"
	    "k  base/linux.K\n"
	    "p  web/nginx-1.24.T\n"
	    "\n"
	    "n  web/logs-neg.T\n"
	    "s  ./etc/hostname\n"
	    "s  ./etc/ssl/private/site\\bkey\n"
	    "x  ./var/cache/*\n"
	    "x  ./srv/a\\bb\\\\c\n");
	unit_write(kd, "base/linux.K", "p base/linux.T\np base/old-kernel.T\n");
	cs = load_ok("command.K", CMD_MINUS);
	ck_assert_str_eq(trans(cs), "p:base/linux.T p:base/old-kernel.T "
	    "p:web/nginx-1.24.T n:web/logs-neg.T");
	ck_assert_str_eq(cs->tran[0].kfile, kp("base/linux.K"));
	ck_assert_str_eq(cs->tran[2].kfile, kp("command.K"));
	/* specials stay encoded, excludes are decoded */
	ck_assert_str_eq(join(cs->special, cs->nspecial),
	    "./etc/hostname|./etc/ssl/private/site\\bkey");
	ck_assert_str_eq(join(cs->exclude, cs->nexclude),
	    "./var/cache/*|./srv/a b\\c");
	ck_assert_uint_eq(cs->nkfiles, 2);
	ck_assert_str_eq(cs->kfiles[0], kp("command.K"));
	ck_assert_str_eq(cs->kfiles[1], kp("base/linux.K"));
	snprintf(want, sizeof(want), "%s", kd);
	ck_assert_str_eq(cs->kdir, want);
	cmdset_free(cs);
	cmdset_free(NULL);
}
END_TEST

START_TEST(test_load_empty)
{
	struct cmdset	*cs;

	unit_write(kd, "command.K", "# nothing\n\n");
	cs = load_ok("command.K", CMD_MINUS);
	ck_assert_uint_eq(cs->ntran, 0);
	ck_assert_uint_eq(cs->nspecial, 0);
	ck_assert_uint_eq(cs->nexclude, 0);
	cmdset_free(cs);
}
END_TEST

START_TEST(test_include_relative_to_command_dir)
{
	struct cmdset	*cs;

	/* k names are relative to the command directory, not the includer */
	unit_write(kd, "command.K", "k sub/a.K\n");
	unit_write(kd, "sub/a.K", "p sub-a.T\nk b.K\n");
	unit_write(kd, "sub/b.K", "p wrong.T\n");
	unit_write(kd, "b.K", "p top-b.T\n");
	cs = load_ok("command.K", CMD_MINUS);
	ck_assert_str_eq(trans(cs), "p:sub-a.T p:top-b.T");
	ck_assert_str_eq(cs->tran[1].kfile, kp("b.K"));
	cmdset_free(cs);
}
END_TEST

START_TEST(test_include_explicit_kdir)
{
	struct cmdset	*cs = NULL;
	struct cerr	 err = { "" };
	char		*base, *dir;

	/* the base file elsewhere; includes come from the given kdir */
	unit_write(kd, "other/command.K", "k inc.K\n");
	unit_write(kd, "inc.K", "p from-kdir.T\n");
	unit_write(kd, "other/inc.K", "p from-other.T\n");
	base = strdup(kp("other/command.K"));
	dir = strdup(kd);
	ck_assert_msg(cmdset_load(base, dir, CMD_MINUS, &cs, &err) == 0, "%s",
	    err.msg);
	ck_assert_str_eq(trans(cs), "p:from-kdir.T");
	ck_assert_str_eq(cs->kdir, kd);
	cmdset_free(cs);
	free(base);
	free(dir);
}
END_TEST

START_TEST(test_include_order)
{
	struct cmdset	*cs;

	/* depth first, in place: precedence follows the expanded order */
	unit_write(kd, "command.K", "p 1.T\nk a.K\np 4.T\nk c.K\n");
	unit_write(kd, "a.K", "p 2.T\nk b.K\n");
	unit_write(kd, "b.K", "p 3.T\n");
	unit_write(kd, "c.K", "p 5.T\n");
	cs = load_ok("command.K", CMD_MINUS);
	ck_assert_str_eq(trans(cs), "p:1.T p:2.T p:3.T p:4.T p:5.T");
	cmdset_free(cs);
}
END_TEST

START_TEST(test_include_self_loop)
{
	unit_write(kd, "command.K", "p a.T\nk command.K\n");
	load_err("command.K", CMD_MINUS,
	    "command file %scommand.K: line 2: command.K: included twice "
	    "(loop)");
}
END_TEST

START_TEST(test_include_loop)
{
	unit_write(kd, "command.K", "k a.K\n");
	unit_write(kd, "a.K", "# a\nk b.K\n");
	unit_write(kd, "b.K", "\n\nk a.K\n");
	load_err("command.K", CMD_MINUS,
	    "command file %sb.K: line 3: a.K: included twice (loop)");
}
END_TEST

START_TEST(test_include_twice)
{
	/* not a loop, but the same file read twice is an error too */
	unit_write(kd, "command.K", "k a.K\nk b.K\n");
	unit_write(kd, "a.K", "k common.K\n");
	unit_write(kd, "b.K", "k common.K\n");
	unit_write(kd, "common.K", "p common.T\n");
	load_err("command.K", CMD_MINUS,
	    "command file %sb.K: line 1: common.K: included twice (loop)");
	unit_write(kd, "command.K", "k common.K\nk common.K\n");
	load_err("command.K", 0,
	    "command file %scommand.K: line 2: common.K: included twice "
	    "(loop)");
}
END_TEST

START_TEST(test_include_depth)
{
	char	name[32], text[64];
	int	i;

	/* command.K + 64 nested includes is fine */
	unit_write(kd, "command.K", "k k1.K\n");
	for (i = 1; i <= 64; i++) {
		snprintf(name, sizeof(name), "k%d.K", i);
		if (i < 64)
			snprintf(text, sizeof(text), "p t%d.T\nk k%d.K\n", i,
			    i + 1);
		else
			snprintf(text, sizeof(text), "p t%d.T\n", i);
		unit_write(kd, name, text);
	}
	{
		struct cmdset	*cs = load_ok("command.K", CMD_MINUS);

		ck_assert_uint_eq(cs->ntran, 64);
		ck_assert_uint_eq(cs->nkfiles, 65);
		ck_assert_str_eq(cs->tran[63].name, "t64.T");
		cmdset_free(cs);
	}
	/* one more level is refused, naming the file that tried */
	unit_write(kd, "k64.K", "p t64.T\nk k65.K\n");
	unit_write(kd, "k65.K", "p t65.T\n");
	load_err("command.K", CMD_MINUS,
	    "command file %sk64.K: line 2: include depth exceeds 64");
}
END_TEST

START_TEST(test_include_depth_exceeded)
{
	char	name[32], text[64];
	int	i;

	unit_write(kd, "command.K", "k k1.K\n");
	for (i = 1; i <= 70; i++) {
		snprintf(name, sizeof(name), "k%d.K", i);
		snprintf(text, sizeof(text), "k k%d.K\n", i + 1);
		unit_write(kd, name, text);
	}
	load_err("command.K", CMD_MINUS,
	    "command file %sk64.K: line 1: include depth exceeds 64");
}
END_TEST

START_TEST(test_missing_files)
{
	load_err("none.K", CMD_MINUS, "%snone.K: No such file or directory");
	unit_write(kd, "command.K", "p a.T\nk nothere.K\n");
	load_err("command.K", CMD_MINUS,
	    "%snothere.K: No such file or directory");
}
END_TEST

START_TEST(test_errors_name_included_file)
{
	unit_write(kd, "command.K", "p a.T\nk inc.K\n");
	unit_write(kd, "inc.K", "p b.T\nz nonsense\n");
	load_err("command.K", CMD_MINUS,
	    "command file %sinc.K: line 2: 'z' invalid");
	unit_write(kd, "inc.K", "x ./a\\q\n");
	load_err("command.K", CMD_MINUS,
	    "command file %sinc.K: line 1: bad encoding in './a\\q'");
}
END_TEST

/*
 * Every reader (fsdiff, twhich, lfdiff as ktcheck) keeps included command
 * files and transcripts in the command directory.
 */
START_TEST(test_names_outside)
{
	unit_write(kd, "command.K", "p a.T\nk inc.K\n");
	unit_write(kd, "inc.K", "n ../evil.T\n");
	load_err("command.K", CMD_MINUS, "command file %sinc.K: line 1: "
	    "../evil.T: name outside the command directory");
	unit_write(kd, "inc.K", "p /etc/evil.T\n");
	load_err("command.K", CMD_MINUS, "command file %sinc.K: line 1: "
	    "/etc/evil.T: name outside the command directory");
	unit_write(kd, "command.K", "k sub/../../evil.K\n");
	load_err("command.K", CMD_MINUS, "command file %scommand.K: line 1: "
	    "sub/../../evil.K: name outside the command directory");
	/* Specials and excludes are paths on the client, not names here. */
	unit_write(kd, "command.K", "p ./a.T\ns /etc/passwd\nx /tmp\n");
	cmdset_free(load_ok("command.K", CMD_MINUS));
}
END_TEST

START_TEST(test_nul_byte)
{
	FILE	*fp;

	fp = fopen(kp("command.K"), "w");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite("p a.T\np b\0.T\n", 1, 13, fp), 13);
	fclose(fp);
	load_err("command.K", CMD_MINUS,
	    "command file %scommand.K: line 2: NUL byte");
}
END_TEST

/* Minus lines. */

START_TEST(test_minus_p)
{
	struct cmdset	*cs;

	unit_write(kd, "command.K",
	    "p a.T\np b.T\nn a.T\np a.T\n- p a.T\n");
	cs = load_ok("command.K", CMD_MINUS);
	/* every p a.T goes; the n of the same name stays */
	ck_assert_str_eq(trans(cs), "p:b.T n:a.T");
	cmdset_free(cs);

	/* a later line adds it back, at its new (higher) position */
	unit_write(kd, "command.K", "p a.T\np b.T\n- p a.T\np c.T\np a.T\n");
	cs = load_ok("command.K", CMD_MINUS);
	ck_assert_str_eq(trans(cs), "p:b.T p:c.T p:a.T");
	cmdset_free(cs);

	/* - n */
	unit_write(kd, "command.K", "n a.T\np a.T\n- n a.T\n");
	cs = load_ok("command.K", CMD_MINUS);
	ck_assert_str_eq(trans(cs), "p:a.T");
	cmdset_free(cs);

	/* removing something never listed is harmless */
	unit_write(kd, "command.K", "- p ghost.T\np a.T\n");
	cs = load_ok("command.K", CMD_MINUS);
	ck_assert_str_eq(trans(cs), "p:a.T");
	cmdset_free(cs);
}
END_TEST

START_TEST(test_minus_across_includes)
{
	struct cmdset	*cs;

	unit_write(kd, "command.K", "k base.K\n- p base/old-kernel.T\n");
	unit_write(kd, "base.K", "p base/linux.T\np base/old-kernel.T\n");
	cs = load_ok("command.K", CMD_MINUS);
	ck_assert_str_eq(trans(cs), "p:base/linux.T");
	cmdset_free(cs);
	/* and from inside an include, on what the parent listed */
	unit_write(kd, "command.K", "p top.T\nk drop.K\n");
	unit_write(kd, "drop.K", "- p top.T\np other.T\n");
	cs = load_ok("command.K", CMD_MINUS);
	ck_assert_str_eq(trans(cs), "p:other.T");
	cmdset_free(cs);
}
END_TEST

START_TEST(test_minus_s_x)
{
	struct cmdset	*cs;

	unit_write(kd, "command.K",
	    "s ./etc/hostname\ns ./etc/motd\ns ./etc/host\\bname\n"
	    "x ./var/cache/*\nx ./tmp/a\\bb\nx ./keep\n"
	    "- s ./etc/hostname\n- x ./var/cache/*\n- x ./tmp/a\\bb\n");
	cs = load_ok("command.K", CMD_MINUS);
	/* s matches the token as written; x the decoded pattern */
	ck_assert_str_eq(join(cs->special, cs->nspecial),
	    "./etc/motd|./etc/host\\bname");
	ck_assert_str_eq(join(cs->exclude, cs->nexclude), "./keep");
	cmdset_free(cs);

	unit_write(kd, "command.K", "s ./a\n- s ./a\ns ./a\nx ./b\n- x ./b\n"
	    "x ./b\n");
	cs = load_ok("command.K", CMD_MINUS);
	ck_assert_str_eq(join(cs->special, cs->nspecial), "./a");
	ck_assert_str_eq(join(cs->exclude, cs->nexclude), "./b");
	cmdset_free(cs);
}
END_TEST

START_TEST(test_minus_modes)
{
	struct cmdset	*cs;

	unit_write(kd, "command.K",
	    "p a.T\ns ./s\nx ./x\n- p a.T\n- s ./s\n- x ./x\n- k other.K\n");
	/* server: minus lines ignored entirely */
	cs = load_ok("command.K", 0);
	ck_assert_str_eq(trans(cs), "p:a.T");
	ck_assert_uint_eq(cs->nspecial, 1);
	ck_assert_uint_eq(cs->nexclude, 1);
	cmdset_free(cs);
	/* ktcheck: only "- s" */
	cs = load_ok("command.K", CMD_MINUS_S);
	ck_assert_str_eq(trans(cs), "p:a.T");
	ck_assert_uint_eq(cs->nspecial, 0);
	ck_assert_uint_eq(cs->nexclude, 1);
	cmdset_free(cs);
	/* fsdiff without the "- k" check */
	cs = load_ok("command.K", CMD_MINUS);
	ck_assert_str_eq(trans(cs), "");
	ck_assert_uint_eq(cs->nspecial, 0);
	ck_assert_uint_eq(cs->nexclude, 0);
	cmdset_free(cs);
	/* fsdiff: "- k" is an error */
	load_err("command.K", CMD_MINUS | CMD_NOMINUSK,
	    "command file %scommand.K: line 7: minus 'k' not supported");
}
END_TEST

/* What the walk's hooks saw: "open:<name> entry:<type><name> ...". */
static char	walklog[1024];
static int	walkstop;	/* entry hook returns 1 at this entry */

static int
walk_open(void *arg, const char *kpath, const char *name)
{
	(void)arg;
	strlcat(walklog, "open:", sizeof(walklog));
	strlcat(walklog, name != NULL ? name : "-", sizeof(walklog));
	strlcat(walklog, " ", sizeof(walklog));
	return open(kpath, O_RDONLY);
}

static int
walk_entry(void *arg, const struct cline *c, const char *kpath,
    struct cerr *err)
{
	char	buf[256];

	(void)kpath;
	(void)err;
	snprintf(buf, sizeof(buf), "entry:%c%s ", c->type, c->name);
	strlcat(walklog, buf, sizeof(walklog));
	return --(*(int *)arg) == 0 ? 1 : 0;
}

/* Hooks see each entry before an include is read, in file order. */
START_TEST(test_walk_hooks)
{
	struct cmdwalk	 w = { walk_open, walk_entry, &walkstop };
	struct cmdset	*cs = NULL;
	struct cerr	 err = { "" };
	char		*path = strdup(kp("command.K"));

	unit_write(kd, "command.K", "p 1.T\nk a.K\n- s ./x\np 3.T\n");
	unit_write(kd, "a.K", "s ./x\np 2.T\n");
	walklog[0] = '\0';
	walkstop = -1;
	ck_assert_msg(cmdset_walk(path, NULL, CMD_MINUS_S, &w, &cs, &err) ==
	    0, "%s", err.msg);
	ck_assert_str_eq(walklog, "open:- entry:p1.T entry:ka.K open:a.K "
	    "entry:s./x entry:p2.T entry:p3.T ");
	ck_assert_str_eq(trans(cs), "p:1.T p:2.T p:3.T");
	ck_assert_int_eq((int)cs->nspecial, 0);
	cmdset_free(cs);

	/* The entry hook ends the walk: nothing after is read. */
	walklog[0] = '\0';
	walkstop = 2;
	ck_assert(cmdset_walk(path, NULL, 0, &w, &cs, &err) == 0);
	ck_assert_str_eq(walklog, "open:- entry:p1.T entry:ka.K ");
	cmdset_free(cs);
	free(path);
}
END_TEST

/* Through the open hook, a loop by another name is still a loop. */
START_TEST(test_walk_loop_other_name)
{
	struct cmdwalk	 w = { walk_open, NULL, NULL };
	struct cmdset	*cs = NULL;
	struct cerr	 err = { "" };
	char		*path = strdup(kp("command.K"));

	unit_write(kd, "command.K", "k ./command.K\n");
	ck_assert_int_eq(cmdset_walk(path, NULL, 0, &w, &cs, &err), -1);
	ck_assert_ptr_null(cs);
	ck_assert_msg(strstr(err.msg, "included twice (loop)") != NULL, "%s",
	    err.msg);
	free(path);
}
END_TEST

/* "- s" ignores case with CMD_ICASE. */
START_TEST(test_minus_s_icase)
{
	struct cmdset	*cs;

	unit_write(kd, "command.K", "s ./Dev/X\n- s ./dev/x\n");
	cs = load_ok("command.K", CMD_MINUS_S);
	ck_assert_int_eq((int)cs->nspecial, 1);
	cmdset_free(cs);
	cs = load_ok("command.K", CMD_MINUS_S | CMD_ICASE);
	ck_assert_int_eq((int)cs->nspecial, 0);
	cmdset_free(cs);
}
END_TEST

static Suite *
command_suite(void)
{
	Suite	*s = suite_create("command");
	TCase	*tc;

	tc = tcase_create("line");
	tcase_add_test(tc, test_cline_entries);
	tcase_add_test(tc, test_cline_blank_comment);
	tcase_add_loop_test(tc, test_cline_errors, 0,
	    (int)(sizeof(cbad) / sizeof(cbad[0])));
	tcase_add_test(tc, test_command_dir);
	tcase_add_test(tc, test_command_name);
	suite_add_tcase(s, tc);

	tc = tcase_create("load");
	tcase_add_checked_fixture(tc, kd_setup, kd_teardown);
	tcase_add_test(tc, test_load_basic);
	tcase_add_test(tc, test_load_empty);
	tcase_add_test(tc, test_include_relative_to_command_dir);
	tcase_add_test(tc, test_include_explicit_kdir);
	tcase_add_test(tc, test_include_order);
	tcase_add_test(tc, test_include_self_loop);
	tcase_add_test(tc, test_names_outside);
	tcase_add_test(tc, test_include_loop);
	tcase_add_test(tc, test_include_twice);
	tcase_add_test(tc, test_include_depth);
	tcase_add_test(tc, test_include_depth_exceeded);
	tcase_add_test(tc, test_missing_files);
	tcase_add_test(tc, test_errors_name_included_file);
	tcase_add_test(tc, test_nul_byte);
	tcase_add_test(tc, test_walk_hooks);
	tcase_add_test(tc, test_walk_loop_other_name);
	tcase_add_test(tc, test_minus_s_icase);
	suite_add_tcase(s, tc);

	tc = tcase_create("minus");
	tcase_add_checked_fixture(tc, kd_setup, kd_teardown);
	tcase_add_test(tc, test_minus_p);
	tcase_add_test(tc, test_minus_across_includes);
	tcase_add_test(tc, test_minus_s_x);
	tcase_add_test(tc, test_minus_modes);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(command_suite());
}
