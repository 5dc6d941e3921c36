/*
 * trust.c: the signed release as a client with keys pinned checks it
 * (trust.h): fetched over the session, verified with the pinned keys,
 * compared with the clock and with the release accepted before.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cerr.h"
#include "cksum.h"
#include "compat.h"
#include "download.h"
#include "fsutil.h"
#include "intr.h"
#include "manifest.h"
#include "net.h"
#include "trust.h"
#include "sig.h"
#include "xmalloc.h"

/* A decimal number, no sign, no leading zero, within max. */
static int
trust_num(const char *s, uint64_t max, uint64_t *out)
{
	uint64_t	 v = 0;

	if (*s == '\0' || (s[0] == '0' && s[1] != '\0'))
		return -1;
	for (; *s != '\0'; s++) {
		if (*s < '0' || *s > '9' || v > (max - (uint64_t)(*s - '0')) /
		    10)
			return -1;
		v = v * 10 + (uint64_t)(*s - '0');
	}
	*out = v;
	return 0;
}

int
trust_state_read(int dfd, const char *dir, struct trust_state *st,
    struct cerr *err)
{
	char		 text[TRUST_STATEMAX + 1], *line, *next, *sp;
	uint64_t	 v;
	ssize_t		 n;
	size_t		 len = 0;
	int		 fd, lineno = 0;

	memset(st, 0, sizeof(*st));
	if ((fd = openat(dfd, TRUST_STATE, O_RDONLY | O_NOFOLLOW |
	    O_NONBLOCK | O_CLOEXEC)) == -1) {
		if (errno == ENOENT)
			return 0;
		cerr_errno(err, "%s%s", dir, TRUST_STATE);
		return -1;
	}
	while (len < sizeof(text) && (n = read(fd, text + len,
	    sizeof(text) - len)) > 0)
		len += (size_t)n;
	close(fd);
	if (len == sizeof(text)) {
		cerr_set(err, "%s%s: more than %d bytes", dir, TRUST_STATE,
		    TRUST_STATEMAX);
		return -1;
	}
	text[len] = '\0';
	if (memchr(text, '\0', len) != NULL || len == 0 ||
	    text[len - 1] != '\n') {
		cerr_set(err, "%s%s: not a release state file", dir,
		    TRUST_STATE);
		return -1;
	}
	for (line = text; *line != '\0'; line = next) {
		next = strchr(line, '\n');
		*next++ = '\0';
		lineno++;
		if ((sp = strchr(line, ' ')) == NULL)
			goto bad;
		*sp++ = '\0';
		if (lineno == 1 && strcmp(line, "serial") == 0 &&
		    trust_num(sp, INT64_MAX, &v) == 0 && v > 0)
			st->serial = v;
		else if (lineno == 2 && strcmp(line, "digest") == 0 &&
		    strncmp(sp, "sha256 ", 7) == 0 &&
		    strlen(sp + 7) == 44 && strchr(sp + 7, ' ') == NULL)
			strlcpy(st->digest, sp + 7, sizeof(st->digest));
		else if (lineno == 3 && strcmp(line, "expires") == 0 &&
		    trust_num(sp, INT64_MAX, &v) == 0)
			st->expires = (int64_t)v;
		else
			goto bad;
	}
	if (lineno != 3) {
		lineno++;
		goto bad;
	}
	st->have = 1;
	return 0;
bad:
	cerr_set(err, "%s%s: line %d: not a release state file (remove it "
	    "to accept any release the keys verify)", dir, TRUST_STATE,
	    lineno);
	return -1;
}

int
trust_state_write(int dfd, const char *dir, const struct trust_state *st,
    struct cerr *err)
{
	char	 text[TRUST_STATEMAX], tmp[64];
	int	 fd = -1, n;

	n = snprintf(text, sizeof(text), "serial %" PRIu64 "\ndigest sha256 "
	    "%s\nexpires %" PRId64 "\n", st->serial, st->digest, st->expires);
	if (n < 0 || (size_t)n >= sizeof(text)) {
		cerr_set(err, "%s%s: state too long", dir, TRUST_STATE);
		return -1;
	}
	(void)snprintf(tmp, sizeof(tmp), "%s%ld", TRUST_STATETMP,
	    (long)getpid());
	/* An interrupt leaves the old state, never half of the new one. */
	(void)intr_hold();
	(void)unlinkat(dfd, tmp, 0);
	if ((fd = openat(dfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0644)) == -1 || fs_write_all(fd, text, (size_t)n) ==
	    -1 || fsync(fd) == -1) {
		cerr_errno(err, "%s%s", dir, tmp);
		goto fail;
	}
	if (close(fd) == -1) {
		fd = -1;
		cerr_errno(err, "%s%s", dir, tmp);
		goto fail;
	}
	fd = -1;
	if (renameat(dfd, tmp, dfd, TRUST_STATE) == -1) {
		cerr_errno(err, "%s%s: rename", dir, TRUST_STATE);
		goto fail;
	}
	intr_release();
	if (fsync(dfd) == -1) {
		cerr_errno(err, "%s", dir[0] != '\0' ? dir : ".");
		return -1;
	}
	return 0;
fail:
	if (fd != -1)
		close(fd);
	(void)unlinkat(dfd, tmp, 0);
	intr_release();
	return -1;
}

/* t as a date in UTC, for messages. */
static const char *
trust_date(int64_t t, char *out, size_t len)
{
	struct tm	 tm;
	time_t		 tt = (time_t)t;

	if (gmtime_r(&tt, &tm) == NULL ||
	    strftime(out, len, "%Y-%m-%d %H:%M:%S UTC", &tm) == 0)
		(void)snprintf(out, len, "%" PRId64, t);
	return out;
}

/* RETR <kind> into memory, at most max bytes. */
static int
trust_get(struct net *net, const char *kind, const char *what,
    int64_t max, char **data, size_t *len, struct cerr *err)
{
	struct cerr	 e;
	int		 rc;

	if (net_send_retr(net, kind, NULL, NULL, err) == -1)
		return TRUST_ERROR;
	if ((rc = dl_tomem(net, what, max, data, len, &e)) == DL_OK)
		return TRUST_OK;
	/* The server's refusal names the server only: say what it was. */
	if (strstr(e.msg, what) == NULL)
		cerr_set(err, "%s: %s", what, e.msg);
	else
		*err = e;
	return rc == DL_DEAD ? TRUST_ERROR : TRUST_REFUSED;
}

int
trust_fetch(struct net *net, const struct sigkeys *keys,
    const char *keypath, const struct trust_state *prev, int64_t now,
    struct manifest *m, struct trust_state *cur, struct cerr *err)
{
	struct cerr	 e;
	char		*man = NULL, *sig = NULL, src[128];
	char		 keyid[SIG_KEYIDLEN + 1], date[64];
	size_t		 manlen, siglen;
	int		 rc, parsed = 0;

	memset(cur, 0, sizeof(*cur));
	memset(m, 0, sizeof(*m));
	if (!net_has_cap(net, "MANIFEST")) {
		cerr_set(err, "%s: offers no signed release (keys pinned in "
		    "%s): refusing", net_peer(net), keypath);
		return TRUST_REFUSED;
	}
	(void)snprintf(src, sizeof(src), "release manifest");
	if ((rc = trust_get(net, "MANIFEST", src, MANIFEST_MAX, &man,
	    &manlen, &e)) != TRUST_OK) {
		cerr_set(err, "%s: refusing", e.msg);
		goto out;
	}
	(void)snprintf(src, sizeof(src), "release signature");
	if ((rc = trust_get(net, "SIGNATURE", src, SIG_MAX, &sig, &siglen,
	    &e)) != TRUST_OK) {
		cerr_set(err, "%s: refusing", e.msg);
		goto out;
	}
	rc = TRUST_REFUSED;
	if (sig_verify(keys, sig, siglen, src, man, manlen, keyid, &e) ==
	    -1) {
		cerr_set(err, "%s: release not signed by a key pinned in %s: "
		    "%s: refusing", net_peer(net), keypath, e.msg);
		goto out;
	}
	(void)snprintf(src, sizeof(src), "%s: release manifest",
	    net_peer(net));
	if (manifest_parse(man, manlen, src, m, &e) == -1) {
		cerr_set(err, "%s: refusing", e.msg);
		goto out;
	}
	parsed = 1;
	if (cksum_data("sha256", man, manlen, cur->digest) == -1) {
		cerr_set(err, "sha256: digest not supported");
		goto out;
	}
	cur->have = 1;
	cur->serial = m->serial;
	cur->expires = m->expires;
	if (now >= m->expires) {
		cerr_set(err, "%s: release %" PRIu64 " expired at %s: "
		    "refusing", net_peer(net), m->serial,
		    trust_date(m->expires, date, sizeof(date)));
		goto out;
	}
	if (prev->have && m->serial < prev->serial) {
		cerr_set(err, "%s: release %" PRIu64 " is older than release "
		    "%" PRIu64 " accepted before (rollback): refusing",
		    net_peer(net), m->serial, prev->serial);
		goto out;
	}
	if (prev->have && m->serial == prev->serial &&
	    strcmp(prev->digest, cur->digest) != 0) {
		cerr_set(err, "%s: release %" PRIu64 " is not the release "
		    "%" PRIu64 " accepted before (serial reused): refusing",
		    net_peer(net), m->serial, prev->serial);
		goto out;
	}
	rc = TRUST_OK;
out:
	if (rc != TRUST_OK && parsed)
		manifest_free(m);
	free(man);
	free(sig);
	return rc;
}
