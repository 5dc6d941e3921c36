/*
 * hostcfg.c: which command file a client gets (docs/protocol.md section 6)
 * and which names it may fetch (section 5, "authorized names").
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "cfgfile.h"
#include "command.h"
#include "encode.h"
#include "server.h"
#include "wildcard.h"
#include "xmalloc.h"

/*
 * Is pattern written for addresses: a ':' (IPv6), or digits with
 * nothing but '.' and wildcard characters ("192.168.1.*",
 * "10.1.2.<1-50>")?  Such a pattern is never tried against a name: a
 * name chosen by whoever holds a PTR record or a certificate, such as
 * "192.168.1.x.attacker.example", must not take the entry meant for an
 * address range.
 */
static int
hostcfg_addrpattern(const char *pattern)
{
	const char	*p;
	int		 digit = 0;

	if (strchr(pattern, ':') != NULL)
		return 1;
	for (p = pattern; *p != '\0'; p++) {
		if (*p >= '0' && *p <= '9')
			digit = 1;
		else if (strchr(".*?<>-{},[]\\", *p) == NULL)
			return 0;
	}
	return digit;
}

/*
 * Match pattern against the host's identities in order: certificate CN
 * (case-insensitive), host name (case-insensitive), IP (exact); an
 * address pattern only against the IP.  Returns the identity that
 * matched, or NULL.
 */
static const char *
hostcfg_try(const struct sess *s, const char *pattern)
{
	int	 names = !hostcfg_addrpattern(pattern);

	if (names && s->cn != NULL && wildcard(pattern, s->cn, 1))
		return s->cn;
	if (names && wildcard(pattern, s->host, 1))
		return s->host;
	if (wildcard(pattern, s->ip, 0))
		return s->ip;
	return NULL;
}

/*
 * cfgfile_read's hook: an @include is read when it has no pattern or
 * its pattern matches the host; the first entry that matches wins.
 */
static int
hostcfg_entry(void *arg, enum cfgfile_what what, const char *pattern,
    const char *name)
{
	struct sess	*s = arg;
	const char	*key;

	if (what == CFGFILE_INCLUDE)
		return pattern == NULL || hostcfg_try(s, pattern) != NULL;
	if ((key = hostcfg_try(s, pattern)) == NULL)
		return 0;
	s->cmdfile = xstrdup(name);
	s->key = xstrdup(key);
	return 1;
}

int
hostcfg_match(struct sess *s, struct cerr *err)
{
	return cfgfile_read(AT_FDCWD, CFGFILE_NAME, hostcfg_entry, s, err);
}

static void
hostcfg_add(struct sess *s, const char *name)
{
	char	*dec;

	/* Names are compared decoded; undecodable names can never match. */
	if (decode_path(name, &dec) == -1)
		return;
	s->acl = xreallocarray(s->acl, s->nacl + 1, sizeof(*s->acl));
	s->acl[s->nacl++] = dec;
}

int
hostcfg_load(struct sess *s, struct cerr *err)
{
	struct cmdset	*cs;
	const char	*slash;
	char		*kpath;
	size_t		 i, plen = strlen("command/");
	int		 r;

	xasprintf(&kpath, "command/%s", s->cmdfile);
	if (cmdset_load(kpath, "command/", 0, &cs, err) == -1) {
		r = access(kpath, F_OK) == -1 && errno == ENOENT ?
		    HOSTCFG_NOFILE : -1;
		free(kpath);
		return r;
	}
	free(kpath);
	/* kfiles[0] is the base file itself, reachable only as COMMAND. */
	for (i = 1; i < cs->nkfiles; i++)
		if (strncmp(cs->kfiles[i], "command/", plen) == 0)
			hostcfg_add(s, cs->kfiles[i] + plen);
	for (i = 0; i < cs->ntran; i++)
		hostcfg_add(s, cs->tran[i].name);
	cmdset_free(cs);

	if ((slash = strrchr(s->cmdfile, '/')) != NULL)
		xasprintf(&s->specialdir, "special/%.*s/%s",
		    (int)(slash - s->cmdfile), s->cmdfile, s->key);
	else
		xasprintf(&s->specialdir, "special/%s", s->key);
	return 0;
}

int
hostcfg_allowed(const struct sess *s, const char *name)
{
	size_t	 i;

	for (i = 0; i < s->nacl; i++)
		if (strcmp(s->acl[i], name) == 0)
			return 1;
	return 0;
}
