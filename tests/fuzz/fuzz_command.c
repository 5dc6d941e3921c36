/*
 * fuzz_command.c: command files (common/command.c).
 *
 * The input is one to four command files, separated by "%%" lines:
 * main.K (the base), a.K, b.K and c.K, written to a private scratch
 * directory and loaded from main.K, so "k a.K" lines include the other
 * parts.  Inputs with ".." are skipped: includes stay in the scratch
 * directory.  Checked:
 *   - every line cline_parse accepts has a known type and a name token
 *     with no separator in it;
 *   - the load succeeds or fails alike whether minus lines are applied
 *     or not; applying them only removes entries;
 *   - a loaded set names main.K first, only p/n transcripts, each from
 *     a command file it read.
 */
#include "config.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cerr.h"
#include "command.h"
#include "xmalloc.h"
#include "fuzz.h"

#define NPARTS	4

static const char *const names[NPARTS] = { "main.K", "a.K", "b.K", "c.K" };

static void
each_line(char *s)
{
	struct cline	 c;
	struct cerr	 err;
	char		*line, *nl;
	unsigned	 lineno = 0;
	int		 rc;

	for (line = s; line != NULL; line = nl) {
		if ((nl = strchr(line, '\n')) != NULL)
			*nl++ = '\0';
		rc = cline_parse(&c, line, "fuzz", ++lineno, &err);
		FUZZ_CHECK(rc >= -1 && rc <= 1);
		if (rc == 1) {
			FUZZ_CHECK(c.type != '\0' &&
			    strchr("kpnsx", c.type) != NULL);
			FUZZ_CHECK(c.name != NULL && c.name[0] != '\0');
			FUZZ_CHECK(strpbrk(c.name, " \t\r") == NULL);
			FUZZ_CHECK(c.lineno == lineno);
		} else
			FUZZ_CHECK(c.name == NULL);
		free(c.name);
	}
}

static int
listed(char **files, size_t n, const char *f)
{
	size_t	 i;

	for (i = 0; i < n; i++)
		if (strcmp(files[i], f) == 0)
			return 1;
	return 0;
}

static void
check_set(const struct cmdset *cs, const char *base)
{
	size_t	 i;

	FUZZ_CHECK(cs->nkfiles >= 1);
	FUZZ_CHECK(strcmp(cs->kfiles[0], base) == 0);
	for (i = 0; i < cs->ntran; i++) {
		FUZZ_CHECK(cs->tran[i].type == 'p' || cs->tran[i].type == 'n');
		FUZZ_CHECK(listed(cs->kfiles, cs->nkfiles,
		    cs->tran[i].kfile));
	}
	for (i = 0; i < cs->nkfiles; i++)
		FUZZ_CHECK(!listed(cs->kfiles, i, cs->kfiles[i]));
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t	*part[NPARTS];
	struct cmdset	*plain, *minus, *s;
	struct cerr	 err;
	const char	*dir;
	char		*path[NPARTS], *text;
	size_t		 len[NPARTS];
	int		 i, n, rp, rm;

	if (fuzz_escapes(data, size, 0))
		return 0;
	dir = fuzz_tmpdir();
	n = fuzz_parts(data, size, part, len, NPARTS);
	for (i = 0; i < NPARTS; i++)
		xasprintf(&path[i], "%s/%s", dir, names[i]);
	for (i = 0; i < n; i++) {
		fuzz_writefile(path[i], part[i], len[i]);
		text = fuzz_cstr(part[i], len[i]);
		each_line(text);
		free(text);
	}

	rp = cmdset_load(path[0], NULL, 0, &plain, &err);
	rm = cmdset_load(path[0], NULL, CMD_MINUS, &minus, &err);
	FUZZ_CHECK(rp == rm);
	if (rp == 0) {
		check_set(plain, path[0]);
		check_set(minus, path[0]);
		FUZZ_CHECK(minus->ntran <= plain->ntran);
		FUZZ_CHECK(minus->nspecial <= plain->nspecial);
		FUZZ_CHECK(minus->nexclude <= plain->nexclude);
		FUZZ_CHECK(minus->nkfiles == plain->nkfiles);
		cmdset_free(plain);
		cmdset_free(minus);
	}
	if (cmdset_load(path[0], NULL, CMD_MINUS_S | CMD_NOMINUSK, &s,
	    &err) == 0) {
		check_set(s, path[0]);
		cmdset_free(s);
	}

	for (i = 0; i < NPARTS; i++) {
		(void)unlink(path[i]);
		free(path[i]);
	}
	return 0;
}
