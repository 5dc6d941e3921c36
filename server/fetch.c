/*
 * fetch.c: STAT, RETR and DELTA (docs/protocol.md sections 5.4, 5.5, 5.11),
 * and the signed release they serve as MANIFEST and SIGNATURE (5.12).
 *
 * Every name and path from the client is decoded, checked component by
 * component ("..", empty decode, bad escapes refused) and then opened
 * below the repository one component at a time with O_NOFOLLOW, so no
 * request can reach outside the repository's directories, whatever
 * symlinks exist inside it.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

#include "cerr.h"
#include "cksum.h"
#include "confine.h"
#include "compat.h"
#include "conn.h"
#include "delta.h"
#include "dstore.h"
#include "encode.h"
#include "log.h"
#include "manifest.h"
#include "path.h"
#include "peer.h"
#include "proto.h"
#include "server.h"
#include "sig.h"
#include "specmeta.h"
#include "tindex.h"
#include "transcript.h"
#include "xmalloc.h"
#include "zconn.h"
#include "zlevel.h"
#include "zauto.h"
#include "zcache.h"

#define FETCH_CHUNK	(256 * 1024)
#define FETCH_WATCH	(1024 * 1024)	/* bytes deflated before judging */
#define FETCH_NOGAIN	0.97		/* ... and the ratio judged useless */

enum kind { K_COMMAND, K_TRANSCRIPT, K_SPECIAL, K_FILE, K_MANIFEST,
    K_SIGNATURE };

/* [cairn] The release served as MANIFEST and SIGNATURE (section 5.12). */
#define FETCH_RELEASE	"release"
#define FETCH_CURRENT	"current"

/* A parsed path description. */
struct pdesc {
	enum kind	 kind;
	const char	*name_raw;	/* COMMAND n, TRANSCRIPT t, FILE t */
	const char	*path_raw;	/* SPECIAL p, FILE p */
	char		*name;		/* decoded */
	char		*path;		/* decoded */
	char		 rel[PATH_MAX];	/* server-relative file */
};

#define PD_OK		0
#define PD_SYNTAX	(-1)
#define PD_TOOLONG	(-2)
#define PD_DENIED	(-3)

static void
pdesc_clear(struct pdesc *pd)
{
	free(pd->name);
	free(pd->path);
	pd->name = pd->path = NULL;
}

/* Decode a token and refuse empty results and ".." components. */
static int
decode_checked(const char *tok, char **out)
{
	if (decode_path(tok, out) == -1)
		return -1;
	if ((*out)[0] == '\0' || path_has_dotdot(*out)) {
		free(*out);
		*out = NULL;
		return -1;
	}
	return 0;
}

/*
 * Parse "<KEYWORD> [args]" from av[1..ac-1] (av[0] is the verb), do the
 * Radmind checks on the raw tokens, decode, check again, and build the
 * server-relative path.  Access to names is checked here too.
 */
static int
pdesc_parse(struct sess *s, int ac, char **av, int allow_file,
    struct pdesc *pd)
{
	int	 n;

	memset(pd, 0, sizeof(*pd));
	if (ac < 2)
		return PD_SYNTAX;
	if (strcasecmp(av[1], "COMMAND") == 0) {
		if (ac != 2 && ac != 3)
			return PD_SYNTAX;
		pd->kind = K_COMMAND;
		if (ac == 3)
			pd->name_raw = av[2];
	} else if (strcasecmp(av[1], "TRANSCRIPT") == 0) {
		if (ac != 3)
			return PD_SYNTAX;
		pd->kind = K_TRANSCRIPT;
		pd->name_raw = av[2];
	} else if (strcasecmp(av[1], "SPECIAL") == 0) {
		if (ac != 3)
			return PD_SYNTAX;
		pd->kind = K_SPECIAL;
		pd->path_raw = av[2];
	} else if (allow_file && strcasecmp(av[1], "FILE") == 0) {
		if (ac != 4)
			return PD_SYNTAX;
		pd->kind = K_FILE;
		pd->name_raw = av[2];
		pd->path_raw = av[3];
	} else if (strcasecmp(av[1], "MANIFEST") == 0 ||
	    strcasecmp(av[1], "SIGNATURE") == 0) {
		/* [cairn] The release's two files: no argument. */
		if (ac != 2)
			return PD_SYNTAX;
		pd->kind = strcasecmp(av[1], "MANIFEST") == 0 ? K_MANIFEST :
		    K_SIGNATURE;
		(void)snprintf(pd->rel, sizeof(pd->rel), "%s/%s/%s",
		    FETCH_RELEASE, FETCH_CURRENT, pd->kind == K_MANIFEST ?
		    "manifest" : "manifest.sig");
		return PD_OK;
	} else
		return PD_SYNTAX;

	/* The checks Radmind makes on the raw tokens. */
	if (ac >= 3 && strstr(av[2], "../") != NULL)
		return PD_SYNTAX;
	if (pd->kind == K_FILE && (strncmp(pd->path_raw, "../", 3) == 0 ||
	    strstr(pd->path_raw, "/../") != NULL))
		return PD_SYNTAX;
	/* Ours: decode, then no ".." component anywhere. */
	if (pd->name_raw != NULL && decode_checked(pd->name_raw,
	    &pd->name) == -1)
		return PD_SYNTAX;
	if (pd->path_raw != NULL && decode_checked(pd->path_raw,
	    &pd->path) == -1)
		return PD_SYNTAX;

	if (pd->name != NULL && !hostcfg_allowed(s, pd->name))
		return PD_DENIED;

	switch (pd->kind) {
	case K_COMMAND:
		n = snprintf(pd->rel, sizeof(pd->rel), "command/%s",
		    pd->name != NULL ? pd->name : s->cmdfile);
		break;
	case K_TRANSCRIPT:
		n = snprintf(pd->rel, sizeof(pd->rel), "transcript/%s",
		    pd->name);
		break;
	case K_SPECIAL:
		n = snprintf(pd->rel, sizeof(pd->rel), "%s/%s",
		    s->specialdir, pd->path);
		break;
	case K_FILE:
	default:
		n = snprintf(pd->rel, sizeof(pd->rel), "file/%s/%s",
		    pd->name, pd->path);
		break;
	}
	if (n < 0 || (size_t)n >= sizeof(pd->rel))
		return PD_TOOLONG;
	return PD_OK;
}

int
safe_open(int rootfd, const char *relpath)
{
	struct stat	 st;
	int		 fd, saved;

	fd = confine_open(rootfd, relpath, O_RDONLY | O_NONBLOCK | O_NOCTTY, 0);
	if (fd == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		if (fstat(fd, &st) == -1)
			saved = errno;
		else
			saved = S_ISDIR(st.st_mode) ? EISDIR : EACCES;
		close(fd);
		errno = saved;
		return -1;
	}
	/* Regular file: blocking reads are fine. */
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	return fd;
}

int
fetch_has_release(int rootfd)
{
	struct stat	 st;

	return fstatat(rootfd, FETCH_RELEASE "/" FETCH_CURRENT, &st, 0) ==
	    0 && S_ISDIR(st.st_mode);
}

/*
 * The directory of the release this session serves: release/current,
 * the publisher's symbolic link to one serial directory beside it
 * (a plain name, never a path), resolved and opened once, at the first
 * MANIFEST or SIGNATURE request, and kept: a publish that swaps current
 * meanwhile cannot pair one release's manifest with another's
 * signature.  Returns the descriptor (the session's), or -1 with errno.
 */
static int
fetch_release(struct sess *s)
{
	char	 target[NAME_MAX + 1];
	ssize_t	 n;
	int	 rfd = -1;

	if (s->relopen) {
		errno = s->relerr;
		return s->relfd;
	}
	s->relopen = 1;
	s->relfd = -1;
	if ((rfd = confine_open(s->opts->rootfd, FETCH_RELEASE, O_RDONLY |
	    O_DIRECTORY, 0)) == -1)
		goto out;
	if ((n = readlinkat(rfd, FETCH_CURRENT, target,
	    sizeof(target))) == -1) {
		if (errno != EINVAL)
			goto out;
		/* Not a link: a directory of that name is the release. */
		strlcpy(target, FETCH_CURRENT, sizeof(target));
	} else if ((size_t)n >= sizeof(target) || n == 0 ||
	    memchr(target, '/', (size_t)n) != NULL ||
	    memchr(target, '\0', (size_t)n) != NULL) {
		errno = EACCES;
		goto out;
	} else
		target[n] = '\0';
	if (strcmp(target, ".") == 0 || strcmp(target, "..") == 0) {
		errno = EACCES;
		goto out;
	}
	s->relfd = openat(rfd, target, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC);
out:
	s->relerr = errno;
	if (rfd != -1)
		close(rfd);
	errno = s->relerr;
	return s->relfd;
}

/*
 * Open the file of pd, a regular file reached without a symbolic link:
 * below the repository, or for MANIFEST and SIGNATURE in the session's
 * release, where a file larger than a client accepts (MANIFEST_MAX,
 * SIG_MAX) is the administrator's error, logged, and to the client
 * as missing.  Returns the descriptor with *st, or -1 with errno.
 */
static int
pdesc_open(struct sess *s, const struct pdesc *pd)
{
	struct stat	 st;
	off_t		 max;
	int		 rfd, fd;

	if (pd->kind != K_MANIFEST && pd->kind != K_SIGNATURE)
		return safe_open(s->opts->rootfd, pd->rel);
	if ((rfd = fetch_release(s)) == -1 ||
	    (fd = safe_open(rfd, pd->kind == K_MANIFEST ? "manifest" :
	    "manifest.sig")) == -1)
		return -1;
	if (fstat(fd, &st) == -1) {
		close(fd);
		return -1;
	}
	max = pd->kind == K_MANIFEST ? MANIFEST_MAX : SIG_MAX;
	if (st.st_size > max) {
		peer_log(s, LOG_ERR, "%s: %lld bytes, more than the %lld a "
		    "client accepts: not served", pd->rel,
		    (long long)st.st_size, (long long)max);
		close(fd);
		errno = EFBIG;
		return -1;
	}
	return fd;
}

/* The "syntax", "denied", "too long" replies of STAT and RETR. */
static int
pdesc_fail(struct sess *s, int r, int ac, char **av, int stat)
{
	char	 name[256], path[256];

	(void)ac;
	switch (r) {
	case PD_SYNTAX:
		s->errors++;
		if (stat)
			return peer_reply(s, RAP_STAT_SYNTAX,
			    "STAT Syntax error");
		return peer_reply(s, RAP_RETR_DENIED, "RETR Syntax error");
	case PD_TOOLONG:
		return peer_reply(s, RAP_RETR_DENIED, "Path too long");
	case PD_DENIED:
	default:
		if (strcasecmp(av[1], "FILE") == 0) {
			peer_logsafe(name, sizeof(name), av[2]);
			peer_logsafe(path, sizeof(path), av[3]);
			peer_log(s, LOG_INFO, "no access for %s:%s", name,
			    path);
			return peer_reply(s, RAP_RETR_DENIED,
			    "No access for %s:%s", av[2], av[3]);
		}
		peer_logsafe(name, sizeof(name), av[2]);
		peer_log(s, LOG_INFO, "no access for %s", name);
		return peer_reply(s, RAP_RETR_DENIED, "No access for %s", av[2]);
	}
}

int
cmd_stat(struct sess *s, int ac, char **av)
{
	struct pdesc	 pd;
	struct stat	 st;
	struct cksum	*ck;
	char		 meta[4][SPECMETA_FIELD], digest[CKSUM_B64MAX];
	char		 where[PATH_MAX];
	const char	*nm;
	int64_t		 size;
	int		 r, fd;

	if ((r = pdesc_parse(s, ac, av, 0, &pd)) != PD_OK) {
		pdesc_clear(&pd);
		return pdesc_fail(s, r, ac, av, 1);
	}
	/* Decoded names may hold CR, LF: never in a reply or a log line. */
	peer_logsafe(where, sizeof(where), pd.rel);
	if ((fd = pdesc_open(s, &pd)) == -1 || fstat(fd, &st) == -1) {
		peer_logerr(s, LOG_INFO, "stat %s", where);
		if (fd != -1)
			close(fd);
		r = peer_reply(s, RAP_STAT_ACCESS, "Access Error: %s", where);
		pdesc_clear(&pd);
		return r;
	}
	if ((ck = cksum_new("sha1")) == NULL ||
	    cksum_fd(ck, fd, digest, &size) == -1) {
		peer_logerr(s, LOG_ERR, "%s: checksum", where);
		cksum_free(ck);
		close(fd);
		r = peer_reply(s, RAP_UNRECOGNIZED, "Checksum Error: %s: %s",
		    where, strerror(errno));
		pdesc_clear(&pd);
		return r;
	}
	cksum_free(ck);
	close(fd);

	strlcpy(meta[0], "f", sizeof(meta[0]));
	strlcpy(meta[1], "444", sizeof(meta[1]));
	strlcpy(meta[2], "0", sizeof(meta[2]));
	strlcpy(meta[3], "0", sizeof(meta[3]));
	switch (pd.kind) {
	case K_COMMAND:
		nm = pd.name_raw != NULL ? pd.name_raw : "command";
		break;
	case K_MANIFEST:
		nm = "manifest";
		break;
	case K_SIGNATURE:
		nm = "signature";
		break;
	case K_SPECIAL:
		nm = pd.path_raw;
		(void)specmeta_lookup(s->opts->rootfd, s->specialdir,
		    pd.path, pd.path_raw, meta);
		break;
	default:
		nm = pd.name_raw;
		break;
	}
	(void)peer_reply(s, RAP_STAT_OK, "Returning STAT information");
	r = conn_printf(s->conn, NULL, "%s %s %s %s %s %lld %lld %s\r\n",
	    meta[0], nm, meta[1], meta[2], meta[3], (long long)st.st_mtime,
	    (long long)size, digest);
	pdesc_clear(&pd);
	return r == -1 ? SESS_CLOSE : SESS_OK;
}

/* Plain bytes deflated and compressed bytes made, so far. */
static void
zcounts(struct sess *s, uint64_t *raw, uint64_t *made)
{
	struct connstats	 st;
	int			 l;

	conn_stats(s->conn, &st);
	*raw = 0;
	for (l = 0; (size_t)l < sizeof(st.lvl_raw) / sizeof(st.lvl_raw[0]);
	    l++)
		*raw += st.lvl_raw[l];
	*made = st.zout;
}

/* Splice a cache entry in place of deflating the body. */
static int
send_cached(struct sess *s, struct zhit *h, int64_t size)
{
	struct cerr	 err;
	unsigned char	*chunk;
	uint64_t	 left;
	ssize_t		 n;

	chunk = xmalloc(FETCH_CHUNK);
	for (left = h->len; left > 0; left -= (uint64_t)n) {
		n = read(h->fd, chunk, left > FETCH_CHUNK ? FETCH_CHUNK :
		    (size_t)left);
		if (n <= 0) {
			/* The size line is out: the framing cannot recover. */
			peer_logerr(s, LOG_ERR, "compressed cache: read");
			free(chunk);
			return SESS_CLOSE;
		}
		if (zlevel_splice(s->conn, chunk, (size_t)n, &err) == -1) {
			log_warnx("%s", err.msg);
			free(chunk);
			return SESS_CLOSE;
		}
	}
	free(chunk);
	if (zlevel_splice_end(s->conn, (uint64_t)size, h->level, &err) ==
	    -1) {
		log_warnx("%s", err.msg);
		return SESS_CLOSE;
	}
	s->bodies.files[BODY_CACHED]++;
	s->bodies.raw[BODY_CACHED] += (uint64_t)size;
	s->bodies.wire[BODY_CACHED] += h->len;
	return SESS_OK;
}

/*
 * Send the body of the file open on fd (right after the size line and,
 * with compression under TLS, a full flush: apart, nonzero).  With
 * compression, the body is served from the cache when an entry for it
 * exists; otherwise it is sent as stored blocks when it looks
 * incompressible (the cache's record says so, or the entropy of its
 * first bytes is near 8 bits per byte, or deflating its first
 * FETCH_WATCH bytes saved nearly nothing; not under -A fixed, where
 * every byte goes at the session's level), else deflated, and kept in
 * the cache for next time.
 *
 * A delta (nonzero delta) is compressed already: it goes as stored
 * blocks, never through the cache, and is not counted among the bodies.
 *
 * Not apart, the stream flushes only where it must: a spliced entry
 * needs the output to end where an entry may start before it (zlib: a
 * sync flush, and the compressor is reset after it; zstd: the end of
 * the frame), and an entry being made needs a body compressed from an
 * empty history (a full flush before it) that ends where an entry may
 * (zlevel_flush_entry after it).  Everything else runs on with the
 * history of what came before, as Radmind's stream does.  The cache
 * holds each codec's entries apart: a session finds and makes only its
 * own codec's.
 */
static int
send_body(struct sess *s, int fd, const struct stat *st, int apart,
    int delta)
{
	struct zcache	*zc = s->opts->zcache;
	struct zfill	*fill = NULL;
	struct zhit	 h;
	struct cerr	 err;
	struct connstats cs;
	unsigned char	*chunk;
	uint64_t	 raw0, made0, raw1, made1, sw0;
	int64_t		 left, sent = 0;
	ssize_t		 n;
	int		 z = zlevel_on(s->conn), cls = BODY_DEFLATED;
	int		 judge = z && s->opts->zlimit.autook; /* -A fixed: no */
	int		 lo, hi, r = SESS_CLOSE;

	h.verdict = ZC_UNKNOWN;
	h.fd = -1;
	if (delta) {
		zc = NULL;
		judge = 0;
		cls = BODY_STORED;
	}
	if (z && zc != NULL && st->st_size > 0) {
		zlevel_span(&s->zl, s->conn, &lo, &hi);
		(void)zcache_find(zc, st, s->zl.codec,
		    zstdconn_dict_used(s->conn), lo, hi, &h);
		if (h.fd != -1) {
			if (!apart && zlevel_flush_entry(s->conn, &err) ==
			    -1) {
				log_warnx("%s", err.msg);
				close(h.fd);
				return SESS_CLOSE;
			}
			r = send_cached(s, &h, st->st_size);
			close(h.fd);
			return r;
		}
		if (h.verdict == ZC_STORED && judge)
			cls = BODY_STORED;
	}
	zcounts(s, &raw0, &made0);
	conn_stats(s->conn, &cs);
	sw0 = cs.zswitches;
	chunk = xmalloc(FETCH_CHUNK);
	for (left = st->st_size; left > 0; left -= n) {
		n = read(fd, chunk, left > FETCH_CHUNK ? FETCH_CHUNK :
		    (size_t)left);
		if (n <= 0) {
			/* The size is promised: the framing cannot recover. */
			if (n == 0)
				peer_log(s, LOG_ERR, "file shrank while "
				    "being sent");
			else
				peer_logerr(s, LOG_ERR, "read");
			goto out;
		}
		if (judge && sent == 0 && cls == BODY_DEFLATED &&
		    zauto_incompressible(chunk, (size_t)n))
			cls = BODY_STORED;
		if (z && sent == 0 && cls == BODY_STORED &&
		    zlevel_pin_stored(s->conn, &s->zl, &err) == -1)
			goto fail;
		if (z && sent == 0 && cls == BODY_DEFLATED && zc != NULL &&
		    zlevel_now(s->conn) > 0 &&
		    (fill = zcache_fill_begin(zc, st, s->zl.codec,
		    zstdconn_dict_used(s->conn), zlevel_now(s->conn))) !=
		    NULL) {
			if (!apart && conn_flush_full(s->conn, &err) == -1)
				goto fail;
			zlevel_capture(s->conn, zcache_fill_data, fill);
		}
		if (fill != NULL)
			zcache_fill_src(fill, chunk, (size_t)n);
		if (conn_write(s->conn, chunk, (size_t)n, &err) == -1)
			goto fail;
		sent += n;
		/*
		 * Deflate that saves nearly nothing: the rest goes stored.
		 * (Only deflate is judged: not stored blocks the automatic
		 * level chose, nor a mix of levels.)
		 */
		conn_stats(s->conn, &cs);
		if (judge && cls == BODY_DEFLATED && sent >= FETCH_WATCH &&
		    sent - n < FETCH_WATCH && zlevel_now(s->conn) > 0 &&
		    cs.zswitches == sw0) {
			zcounts(s, &raw1, &made1);
			if (raw1 > raw0 && (double)(made1 - made0) >
			    FETCH_NOGAIN * (double)(raw1 - raw0)) {
				cls = BODY_STORED;
				if (zlevel_pin_stored(s->conn, &s->zl,
				    &err) == -1)
					goto fail;
			}
		}
	}
	if (z && apart && conn_flush_full(s->conn, &err) == -1)
		goto fail;
	if (fill != NULL && !apart && zlevel_flush_entry(s->conn, &err) == -1)
		goto fail;
	if (z && !delta) {
		zcounts(s, &raw1, &made1);
		s->bodies.files[cls]++;
		s->bodies.raw[cls] += (uint64_t)st->st_size;
		s->bodies.wire[cls] += made1 - made0;
		if (cls == BODY_STORED && zc != NULL &&
		    h.verdict != ZC_STORED)
			zcache_stored(zc, st);
	}
	r = SESS_OK;
	goto out;
fail:
	log_warnx("%s", err.msg);
out:
	free(chunk);
	if (fill != NULL) {
		zlevel_capture(s->conn, NULL, NULL);
		conn_stats(s->conn, &cs);
		/* One level, one deflate run from flush to flush, or nothing. */
		(void)zcache_fill_end(fill, r == SESS_OK && cls ==
		    BODY_DEFLATED && cs.zswitches == sw0, fd);
	}
	return r;
}

/*
 * The delta store of algorithm alg (any case) for the session, opened
 * once; NULL if there is none.
 */
static struct dstore *
fetch_store(struct sess *s, const char *alg)
{
	struct sstore	*ss;
	struct cerr	 err;
	struct dstore	*ds;
	char		 name[sizeof(ss->alg)];
	size_t		 i;

	if (strlen(alg) >= sizeof(name))
		return NULL;
	for (i = 0; alg[i] != '\0'; i++)
		name[i] = (char)tolower((unsigned char)alg[i]);
	name[i] = '\0';
	for (i = 0; i < s->nstores; i++)
		if (strcmp(s->stores[i].alg, name) == 0)
			return s->stores[i].ds;
	/* The store's own check refuses any name that is not a digest. */
	ds = dstore_open(s->opts->rootfd, name, 0, 0, &err);
	if (s->nstores < SESS_NSTORES) {
		ss = &s->stores[s->nstores++];
		strlcpy(ss->alg, name, sizeof(ss->alg));
		ss->ds = ds;
	} else if (ds != NULL) {
		dstore_close(ds);	/* not kept: asked for again, opened again */
		ds = NULL;
	}
	return ds;
}

/*
 * The delta that serves the request pd (its file open as st) to a
 * client holding basis: a descriptor on it with its length in *len, or
 * -1 if the whole file is to go.  The target is what transcript <t>
 * says of <p>, read by the server itself; the store applies the access
 * rule to the basis.  Nothing here depends on what the client may not
 * read: every reason for no delta gives the same answer.
 */
static int
fetch_delta(struct sess *s, const struct pdesc *pd, const struct stat *st,
    const char *alg, const char *basis, uint64_t *len)
{
	struct dstore	*ds;
	char		 rel[PATH_MAX], target[CKSUM_B64MAX], name[PATH_MAX];
	int64_t		 tsize;
	int		 fd, n;

	if ((ds = fetch_store(s, alg)) == NULL)
		return -1;
	n = snprintf(rel, sizeof(rel), "transcript/%s", pd->name);
	if (n < 0 || (size_t)n >= sizeof(rel) ||
	    (fd = safe_open(s->opts->rootfd, rel)) == -1)
		return -1;
	if (s->tindex == NULL)
		s->tindex = tindex_new(TINDEX_MAXLINES);
	/* The name goes into log lines: no control bytes. */
	peer_logsafe(name, sizeof(name), pd->name);
	if (!tindex_find(s->tindex, fd, name, pd->path, target,
	    sizeof(target), &tsize))
		return -1;
	/* The file in service is not the transcript's: out of step. */
	if (tsize != st->st_size || tsize > DELTA_MAXFILE)
		return -1;
	if ((fd = dstore_delta_open(ds, basis, target, s->acl, s->nacl,
	    len)) == -1)
		return -1;
	/* Longer than a client takes for this file: the whole goes. */
	if (*len > delta_bound((uint64_t)tsize)) {
		close(fd);
		return -1;
	}
	return fd;
}

/*
 * RETR, and DELTA when basis is not NULL: av[0..ac) is "<verb>
 * <path-description>".  One path for both: parsing, the access check,
 * opening, the errors; then either the delta (241) or the whole file
 * (240), size, body, ".".
 */
static int
fetch_send(struct sess *s, int ac, char **av, const char *alg,
    const char *basis)
{
	struct pdesc	 pd;
	struct stat	 st, dst;
	struct cerr	 err;
	uint64_t	 dlen;
	char		 where[PATH_MAX];
	int		 r, fd, dfd = -1, apart;

	if ((r = pdesc_parse(s, ac, av, 1, &pd)) != PD_OK) {
		pdesc_clear(&pd);
		return pdesc_fail(s, r, ac, av, 0);
	}
	peer_logsafe(where, sizeof(where), pd.rel);
	if ((fd = pdesc_open(s, &pd)) == -1) {
		peer_logerr(s, LOG_INFO, "open %s", where);
		r = peer_reply(s, RAP_RETR_ACCESS, "Unable to access %s.",
		    where);
		pdesc_clear(&pd);
		return r;
	}
	if (fstat(fd, &st) == -1) {
		peer_logerr(s, LOG_ERR, "fstat %s", where);
		close(fd);
		r = peer_reply(s, RAP_RETR_ACCESS, "Access Error: %s", where);
		pdesc_clear(&pd);
		return r;
	}
	if (basis != NULL) {
		s->deltas.asked++;
		if ((dfd = fetch_delta(s, &pd, &st, alg, basis, &dlen)) !=
		    -1 && (fstat(dfd, &dst) == -1 ||
		    (uint64_t)dst.st_size != dlen)) {
			close(dfd);
			dfd = -1;
		}
	}
	pdesc_clear(&pd);
	if (dfd != -1) {
		peer_log(s, LOG_DEBUG, "retrieving %s as a delta of %llu "
		    "bytes", where, (unsigned long long)dlen);
		close(fd);
		fd = dfd;
		s->deltas.sent++;
		s->deltas.bytes += dlen;
		s->deltas.whole += (uint64_t)st.st_size;
		st = dst;
		r = peer_reply(s, RAP_DELTA_OK, "Retrieving delta");
	} else {
		peer_log(s, LOG_DEBUG, "retrieving %s", where);
		r = peer_reply(s, RAP_RETR_OK, "Retrieving file");
	}
	if (r == SESS_CLOSE || conn_printf(s->conn, &err, "%lld\r\n",
	    (long long)st.st_size) == -1) {
		close(fd);
		return SESS_CLOSE;
	}
	/*
	 * Under compression inside TLS, no file's bytes may be compressed
	 * against another's (docs/security.md D5): forget the history
	 * before and after the body.  In clear the bytes themselves are on
	 * the wire for anyone on the path to read, so their compressed size
	 * tells nothing more: the history runs on across files, as in
	 * Radmind's stream, and a pull costs no more bytes than there.
	 */
	apart = zlevel_on(s->conn) && conn_tls(s->conn) != NULL;
	if (apart && conn_flush_full(s->conn, &err) == -1) {
		log_warnx("%s", err.msg);
		close(fd);
		return SESS_CLOSE;
	}
	r = send_body(s, fd, &st, apart, dfd != -1);
	close(fd);
	if (r == SESS_CLOSE)
		return SESS_CLOSE;
	if (zlevel_on(s->conn) && ((apart &&
	    conn_flush_full(s->conn, &err) == -1) ||
	    zlevel_unpin(s->conn, &err) == -1)) {
		log_warnx("%s", err.msg);
		return SESS_CLOSE;
	}
	if (conn_printf(s->conn, &err, ".\r\n") == -1) {
		log_warnx("%s", err.msg);
		return SESS_CLOSE;
	}
	return SESS_OK;
}

static int
fetch_allowed(void *arg, const char *name)
{
	return hostcfg_allowed(arg, name);
}

static int
fetch_anything(void *arg, const char *name)
{
	(void)arg;
	(void)name;
	return 1;
}

int
fetch_zdict_ok(struct sess *s, int acl)
{
	return zcache_dict_for(s->opts->zcache, s->opts->rootfd,
	    acl ? fetch_allowed : fetch_anything, s);
}

/*
 * The cache's zstd dictionary, if this session may take it now: a zstd
 * session that has not taken it, of a host that may have it; else NULL,
 * refused (543), what the reply returned in *rc.
 */
static struct zstdconn_dict *
fetch_zdict_get(struct sess *s, int *rc)
{
	struct zstdconn_dict *d = zcache_dict(s->opts->zcache);

	if (d == NULL || !zstdconn_on(s->conn) ||
	    zstdconn_dict_used(s->conn) != 0 || !fetch_zdict_ok(s, 1)) {
		peer_log(s, LOG_INFO, "no zstd dictionary for this session");
		*rc = peer_reply(s, RAP_RETR_ACCESS, "Unable to access %s.",
		    ZC_DICT);
		return NULL;
	}
	return d;
}

/*
 * The reply that takes the dictionary has been sent: end its frame, and
 * make this side's frames with the dictionary from the next one on (its
 * cache entries are those made with it).
 */
static int
fetch_zdict_use(struct sess *s, struct zstdconn_dict *d, struct cerr *err)
{
	if (conn_flush_full(s->conn, err) == -1 ||
	    zstdconn_use_dict(s->conn, d, 1, err) == -1) {
		log_warnx("%s", err->msg);
		return SESS_CLOSE;
	}
	return SESS_OK;
}

/*
 * [cairn] RETR ZDICT (docs/protocol.md section 9.3): the cache's zstd
 * dictionary, to a zstd session that has not taken it yet, as RETR
 * sends a file.
 */
static int
fetch_zdict(struct sess *s)
{
	struct zstdconn_dict *d;
	struct cerr	 err;
	const void	*p;
	size_t		 len, flen;
	int		 rc;

	if ((d = fetch_zdict_get(s, &rc)) == NULL)
		return rc;
	(void)zstdconn_dict_data(d, &len);
	if ((p = zstdconn_dict_frame(d, &flen, &err)) == NULL) {
		log_warnx("%s", err.msg);
		return peer_reply(s, RAP_RETR_ACCESS, "Unable to access %s.",
		    ZC_DICT);
	}
	if (peer_reply(s, RAP_RETR_OK, "Retrieving file") == SESS_CLOSE)
		return SESS_CLOSE;
	/* Its frame, made once for every session: spliced as a cache entry. */
	if (conn_printf(s->conn, &err, "%zu\r\n", len) == -1 ||
	    zlevel_flush_entry(s->conn, &err) == -1 ||
	    zlevel_splice(s->conn, p, flen, &err) == -1 ||
	    zlevel_splice_end(s->conn, len, ZSTDCONN_DICTLEVEL, &err) == -1 ||
	    conn_printf(s->conn, &err, ".\r\n") == -1) {
		log_warnx("%s", err.msg);
		return SESS_CLOSE;
	}
	peer_log(s, LOG_DEBUG, "zstd dictionary %u sent (%zu bytes)",
	    zstdconn_dict_id(d), len);
	return fetch_zdict_use(s, d, &err);
}

/*
 * [cairn] ZDICT <id> <sha256> (docs/protocol.md section 9.3): the client
 * kept the dictionary of that ID from an earlier session, and names its
 * bytes by their SHA-256 in base64.  Taken as RETR ZDICT's would be when
 * it is the cache's, byte for byte; else refused as RETR ZDICT is.
 */
int
cmd_zdict(struct sess *s, int ac, char **av)
{
	struct zstdconn_dict *d;
	struct cerr	 err;
	const char	*sum;
	char		 id[16];
	int		 rc;

	if (ac != 3) {
		s->errors++;
		return peer_reply(s, RAP_SYNTAX, "Syntax error");
	}
	if ((d = fetch_zdict_get(s, &rc)) == NULL)
		return rc;
	(void)snprintf(id, sizeof(id), "%u", zstdconn_dict_id(d));
	if ((sum = zcache_dict_sum(s->opts->zcache)) == NULL ||
	    strcmp(av[1], id) != 0 || strcmp(av[2], sum) != 0) {
		peer_log(s, LOG_INFO, "zstd dictionary kept by the client is "
		    "not the cache's");
		return peer_reply(s, RAP_RETR_ACCESS, "Unable to access %s.",
		    ZC_DICT);
	}
	if (peer_reply(s, RAP_ZDICT_OK, "zstd dictionary %s in use", id) ==
	    SESS_CLOSE)
		return SESS_CLOSE;
	peer_log(s, LOG_DEBUG, "zstd dictionary %s kept by the client", id);
	return fetch_zdict_use(s, d, &err);
}

int
cmd_retr(struct sess *s, int ac, char **av)
{
	if (ac == 2 && strcasecmp(av[1], "ZDICT") == 0)
		return fetch_zdict(s);
	return fetch_send(s, ac, av, NULL, NULL);
}

/*
 * DELTA <alg> <basis> FILE <t> <p>: what follows the basis is RETR's
 * description, parsed and answered as RETR's, so the verb's errors are
 * RETR's; only FILE may be asked for.  The algorithm and the basis are
 * the client's word for what it holds, never more: one that is not a
 * digest the store knows, or not well formed, is answered like a basis
 * the store does not have, with the whole file.
 */
int
cmd_delta(struct sess *s, int ac, char **av)
{
	if (ac < 4 || strcasecmp(av[3], "FILE") != 0)
		return pdesc_fail(s, PD_SYNTAX, ac, av, 0);
	return fetch_send(s, ac - 2, av + 2, av[1], av[2]);
}

void
fetch_end(struct sess *s)
{
	size_t	 i;

	for (i = 0; i < s->nstores; i++)
		dstore_close(s->stores[i].ds);
	s->nstores = 0;
	tindex_free(s->tindex);
	s->tindex = NULL;
	if (s->relopen && s->relfd != -1)
		close(s->relfd);
	s->relopen = 0;
	s->relfd = -1;
}
