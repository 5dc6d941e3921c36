/*
 * fuzz_hostcfg.c: the server's config file (server/hostcfg.c).
 *
 * Like cairnd, the target works in its repository: a private scratch
 * directory.  The input is up to four files separated by "%%" lines:
 * config, then command/a.K, command/b.K and command/c.K.  A client with
 * a certificate name, a host name and an address is looked up in config
 * (wildcards, @include), and on a match its command files are loaded.
 * Inputs with ".." or a token starting with '/' are skipped: every file
 * named stays in the scratch directory.  Checked: a match names one of
 * the client's identities as its key, and the special directory and the
 * access list follow from the command file.
 */
#include "config.h"

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "cerr.h"
#include "compat.h"
#include "log.h"
#include "server.h"
#include "xmalloc.h"
#include "fuzz.h"

#define NPARTS	4

static const char *const names[NPARTS] = {
	"config", "command/a.K", "command/b.K", "command/c.K"
};

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char	*dir;

	(void)argc;
	(void)argv;
	dir = fuzz_tmpdir();
	FUZZ_SETUP(chdir(dir) == 0);
	FUZZ_SETUP(mkdir("command", 0700) == 0);
	/* Format every message, send none (no priority is that urgent). */
	log_init("fuzz_hostcfg", LOG_TO_SYSLOG, LOG_DAEMON);
	log_setlevel(-1);
	return 0;
}

static void
sess_release(struct sess *s)
{
	size_t	 i;

	for (i = 0; i < s->nacl; i++)
		free(s->acl[i]);
	free(s->acl);
	free(s->cmdfile);
	free(s->key);
	free(s->specialdir);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t	*part[NPARTS];
	struct sess	 s;
	struct cerr	 err;
	const char	*slash;
	size_t		 len[NPARTS], i, klen;
	int		 n, r;

	if (fuzz_escapes(data, size, 1))
		return 0;
	n = fuzz_parts(data, size, part, len, NPARTS);
	for (r = 0; r < n; r++)
		fuzz_writefile(names[r], part[r], len[r]);

	memset(&s, 0, sizeof(s));
	s.cn = "web3.example.net";
	strlcpy(s.host, "client.example.edu", sizeof(s.host));
	strlcpy(s.ip, "192.0.2.10", sizeof(s.ip));
	r = hostcfg_match(&s, &err);
	FUZZ_CHECK(r >= -1 && r <= 1);
	FUZZ_CHECK((r == 1) == (s.cmdfile != NULL));
	if (r == 1) {
		FUZZ_CHECK(s.key != NULL);
		FUZZ_CHECK(strcmp(s.key, s.cn) == 0 ||
		    strcmp(s.key, s.host) == 0 || strcmp(s.key, s.ip) == 0);
		if (hostcfg_load(&s, &err) == 0) {
			FUZZ_CHECK(strncmp(s.specialdir, "special/", 8) == 0);
			klen = strlen(s.key);
			FUZZ_CHECK(strlen(s.specialdir) > klen &&
			    strcmp(s.specialdir + strlen(s.specialdir) - klen,
			    s.key) == 0);
			if ((slash = strrchr(s.cmdfile, '/')) == NULL)
				FUZZ_CHECK(strlen(s.specialdir) ==
				    8 + klen);
			for (i = 0; i < s.nacl; i++) {
				FUZZ_CHECK(strlen(s.acl[i]) < PATH_MAX);
				FUZZ_CHECK(hostcfg_allowed(&s, s.acl[i]));
			}
		}
	}
	sess_release(&s);

	for (r = 0; r < NPARTS; r++)
		(void)unlink(names[r]);
	return 0;
}
