/*
 * manifest.c: the release manifest (docs/formats.md section 15): its
 * strict, bounded parser, its writer and the scan of a repository that
 * makes one.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "cksum.h"
#include "compat.h"
#include "confine.h"
#include "encode.h"
#include "manifest.h"
#include "xmalloc.h"

#define MANIFEST_MAGIC	"cairn-manifest 1"

static const char *manifest_kinds[] = { "command", "transcript", "special",
    "stat" };
#define MANIFEST_NKIND	4
static const char *manifest_dirs[] = { "command", "transcript", "special" };

/* The headers, in the order they must come. */
enum manifest_hdr { HDR_SERIAL, HDR_CREATED, HDR_EXPIRES, HDR_DIGEST, NHDR };
static const char *manifest_hdrs[NHDR] = { "serial", "created", "expires",
    "digest" };

/* The digests a manifest may use: at least 256 bits. */
static const char *manifest_digests[] = { "sha256", "sha384", "sha512",
    NULL };

/*
 * Parse the decimal number s (no sign, no leading zero but "0" itself)
 * into *v if it is at most max.  Returns 0 or -1.
 */
static int
manifest_num(const char *s, uint64_t max, uint64_t *v)
{
	uint64_t	 n = 0;
	const char	*p;

	if (*s == '\0' || (s[0] == '0' && s[1] != '\0'))
		return -1;
	for (p = s; *p != '\0'; p++) {
		if (*p < '0' || *p > '9')
			return -1;
		if (n > (max - (uint64_t)(*p - '0')) / 10)
			return -1;
		n = n * 10 + (uint64_t)(*p - '0');
	}
	*v = n;
	return 0;
}

/*
 * Is digest name acceptable in a manifest?  0 yes, else -1 with why in
 * err (prefixed by pfx).
 */
static int
manifest_digest_ok(const char *name, const char *pfx, struct cerr *err)
{
	size_t	 i, n;

	for (i = 0; manifest_digests[i] != NULL; i++)
		if (strcmp(name, manifest_digests[i]) == 0)
			return 0;
	n = strlen(name) < 16 ? cksum_size(name) : 0;
	if (n > 0 && n < 32)
		cerr_set(err, "%sdigest %s is too weak (at least 256 bits: "
		    "sha256, sha384, sha512)", pfx, name);
	else
		cerr_set(err, "%sunsupported digest (sha256, sha384, sha512)",
		    pfx);
	return -1;
}

/*
 * Is the decoded name acceptable: not empty, relative, no empty, "." or
 * ".." component?  Returns NULL or what is wrong.
 */
static const char *
manifest_badname(const char *name)
{
	const char	*p, *e;
	size_t		 n;

	if (*name == '\0')
		return "empty name";
	if (*name == '/')
		return "name begins with /";
	for (p = name;; p = e + 1) {
		e = strchr(p, '/');
		n = e != NULL ? (size_t)(e - p) : strlen(p);
		if (n == 0)
			return "empty component in name";
		if ((n == 1 && p[0] == '.') ||
		    (n == 2 && p[0] == '.' && p[1] == '.'))
			return "'.' or '..' component in name";
		if (n > NAME_MAX)
			return "component too long in name";
		if (e == NULL)
			break;
	}
	return NULL;
}

/* Entry order: kind, then name bytewise. */
static int
manifest_cmp(enum manifest_kind ka, const char *na, enum manifest_kind kb,
    const char *nb)
{
	if (ka != kb)
		return ka < kb ? -1 : 1;
	return strcmp(na, nb);
}

/*
 * The whole order: kind, name, and for stat entries (which may share a
 * name) then size, digest and metadata.
 */
static int
manifest_entcmp(const void *a, const void *b)
{
	const struct manifest_ent	*x = a, *y = b;
	int				 c;

	if ((c = manifest_cmp(x->kind, x->name, y->kind, y->name)) != 0 ||
	    x->kind != MANIFEST_STAT)
		return c;
	if (x->size != y->size)
		return x->size < y->size ? -1 : 1;
	if ((c = strcmp(x->digest, y->digest)) != 0)
		return c;
	return strcmp(x->meta != NULL ? x->meta : "",
	    y->meta != NULL ? y->meta : "");
}

/* Is s 1 to MANIFEST_METAMAX bytes, of the characters in set? */
static int
manifest_field(const char *s, const char *set)
{
	size_t	 n = strlen(s);

	return n > 0 && n <= MANIFEST_METAMAX && strspn(s, set) == n;
}

char *
manifest_meta(const char *type, const char *mode, const char *uid,
    const char *gid)
{
	char		*meta;
	const char	*id[2] = { uid, gid };
	int		 i;

	if ((strcmp(type, "f") != 0 && strcmp(type, "a") != 0) ||
	    !manifest_field(mode, "01234567"))
		return NULL;
	for (i = 0; i < 2; i++)
		if (!manifest_field(id[i], "-0123456789") ||
		    strchr(id[i] + 1, '-') != NULL || (id[i][0] == '-' &&
		    id[i][1] == '\0'))
			return NULL;
	xasprintf(&meta, "%s %s %s %s", type, mode, uid, gid);
	return meta;
}

void
manifest_free(struct manifest *m)
{
	size_t	 i;

	if (m == NULL)
		return;
	for (i = 0; i < m->nent; i++) {
		free(m->ent[i].name);
		free(m->ent[i].meta);
	}
	free(m->ent);
	m->ent = NULL;
	m->nent = 0;
	m->cap = 0;
}

/* Append e to m's entries (which grow by doubling). */
static void
manifest_add(struct manifest *m, const struct manifest_ent *e)
{
	if (m->nent == m->cap) {
		m->cap = m->cap == 0 ? 64 : m->cap * 2;
		m->ent = xreallocarray(m->ent, m->cap, sizeof(*m->ent));
	}
	m->ent[m->nent++] = *e;
}

int
manifest_push(struct manifest *m, struct manifest_ent *e, struct cerr *err)
{
	if (m->nent >= MANIFEST_ENTMAX) {
		cerr_set(err, "%s: more than %d entries", e->name,
		    MANIFEST_ENTMAX);
		free(e->name);
		free(e->meta);
		e->name = e->meta = NULL;
		return -1;
	}
	manifest_add(m, e);
	return 0;
}

void
manifest_sort(struct manifest *m)
{
	size_t	 i, j;

	if (m->nent > 1)
		qsort(m->ent, m->nent, sizeof(*m->ent), manifest_entcmp);
	for (i = j = 0; i < m->nent; i++) {
		if (j > 0 && m->ent[i].kind == MANIFEST_STAT &&
		    manifest_entcmp(&m->ent[j - 1], &m->ent[i]) == 0) {
			free(m->ent[i].name);
			free(m->ent[i].meta);
			continue;
		}
		m->ent[j++] = m->ent[i];
	}
	m->nent = j;
}

/*
 * Parse one entry line (NUL terminated, no LF) into e.  0, or -1 with
 * what is wrong in err (prefixed by pfx).
 */
static int
manifest_parse_ent(struct manifest *m, char *line, const char *pfx,
    struct manifest_ent *e, struct cerr *err)
{
	char		*f[8], *p, *name, *meta = NULL;
	const char	*why;
	size_t		 nf = 0, want, dlen;
	int		 k;

	memset(e, 0, sizeof(*e));
	if ((p = strchr(line, ' ')) != NULL)
		*p = '\0';
	for (k = 0; k < MANIFEST_NKIND; k++)
		if (strcmp(line, manifest_kinds[k]) == 0)
			break;
	if (k == MANIFEST_NKIND) {
		cerr_set(err, "%sunknown kind", pfx);
		return -1;
	}
	e->kind = (enum manifest_kind)k;
	/* kind size digest [type mode uid gid] name */
	want = e->kind == MANIFEST_STAT ? 8 : 4;
	f[nf++] = line;
	while (p != NULL && nf < want) {
		f[nf++] = ++p;
		if (nf < want && (p = strchr(p, ' ')) != NULL)
			*p = '\0';
	}
	if (nf < want || strchr(f[want - 1], ' ') != NULL) {
		cerr_set(err, "%s%s", pfx, nf < want ? "too few fields" :
		    "too many fields");
		return -1;
	}
	if (manifest_num(f[1], INT64_MAX, &e->size) == -1) {
		cerr_set(err, "%sbad size", pfx);
		return -1;
	}
	dlen = strlen(f[2]);
	if (dlen >= sizeof(e->digest) ||
	    cksum_b64ok(f[2], dlen, cksum_size(m->digest)) == -1) {
		cerr_set(err, "%snot a %s digest", pfx, m->digest);
		return -1;
	}
	memcpy(e->digest, f[2], dlen + 1);
	if (e->kind == MANIFEST_STAT && (meta = manifest_meta(f[3], f[4],
	    f[5], f[6])) == NULL) {
		cerr_set(err, "%sbad type, mode, uid or gid", pfx);
		return -1;
	}
	if (decode_path(f[want - 1], &name) == -1) {
		free(meta);
		cerr_set(err, "%sbad name encoding", pfx);
		return -1;
	}
	/* one encoding per name: "a\tb" with a real tab is not it */
	p = encode_dup(name);
	why = strcmp(p, f[want - 1]) != 0 ? "bad name encoding" :
	    manifest_badname(name);
	free(p);
	if (why != NULL) {
		free(name);
		free(meta);
		cerr_set(err, "%s%s", pfx, why);
		return -1;
	}
	e->name = name;
	e->meta = meta;
	return 0;
}

int
manifest_parse(const void *data, size_t len, const char *source,
    struct manifest *m, struct cerr *err)
{
	const char	*p = data, *end, *nl;
	char		*line = NULL, pfx[PATH_MAX + 64];
	struct manifest_ent	 e;
	uint64_t	 v;
	size_t		 lineno = 0, ll;
	int		 h, hdr = 0, ended = 0, i;

	memset(m, 0, sizeof(*m));
	if (len > MANIFEST_MAX) {
		cerr_set(err, "%s: larger than %d bytes", source, MANIFEST_MAX);
		return -1;
	}
	line = xmalloc(MANIFEST_LINEMAX + 1);
	end = p + len;
	while (p < end) {
		lineno++;
		snprintf(pfx, sizeof(pfx), "%s: line %zu: ", source, lineno);
		if (ended) {
			cerr_set(err, "%stext after end", pfx);
			goto fail;
		}
		nl = memchr(p, '\n', (size_t)(end - p));
		ll = (nl != NULL ? nl : end) - p;
		if (ll > MANIFEST_LINEMAX) {
			cerr_set(err, "%slonger than %d bytes", pfx,
			    MANIFEST_LINEMAX);
			goto fail;
		}
		if (nl == NULL) {
			cerr_set(err, "%sno newline at the end (truncated)",
			    pfx);
			goto fail;
		}
		if (memchr(p, '\0', ll) != NULL) {
			cerr_set(err, "%sNUL byte", pfx);
			goto fail;
		}
		memcpy(line, p, ll);
		line[ll] = '\0';
		p = nl + 1;

		if (lineno == 1) {
			if (strcmp(line, MANIFEST_MAGIC) != 0) {
				cerr_set(err, "%snot a manifest (\"%s\" "
				    "expected)", pfx, MANIFEST_MAGIC);
				goto fail;
			}
			continue;
		}
		if (hdr < NHDR) {
			/* which header is it, if any? */
			for (h = 0; h < NHDR; h++) {
				ll = strlen(manifest_hdrs[h]);
				if (strncmp(line, manifest_hdrs[h], ll) == 0 &&
				    line[ll] == ' ')
					break;
			}
			if (h != hdr) {
				if (h < hdr)
					cerr_set(err, "%sduplicate %s", pfx,
					    manifest_hdrs[h]);
				else if (h < NHDR)
					cerr_set(err, "%s%s out of order "
					    "(%s expected)", pfx,
					    manifest_hdrs[h],
					    manifest_hdrs[hdr]);
				else
					cerr_set(err, "%smissing %s", pfx,
					    manifest_hdrs[hdr]);
				goto fail;
			}
			hdr++;
			ll = strlen(manifest_hdrs[h]) + 1;
			switch (h) {
			case HDR_SERIAL:
				if (manifest_num(line + ll, INT64_MAX,
				    &m->serial) == -1 || m->serial == 0) {
					cerr_set(err, "%sbad serial (1 to "
					    "%lld)", pfx, (long long)INT64_MAX);
					goto fail;
				}
				break;
			case HDR_CREATED:
			case HDR_EXPIRES:
				if (manifest_num(line + ll, INT64_MAX,
				    &v) == -1) {
					cerr_set(err, "%sbad time", pfx);
					goto fail;
				}
				if (h == HDR_CREATED)
					m->created = (int64_t)v;
				else if ((m->expires = (int64_t)v) <=
				    m->created) {
					cerr_set(err, "%sexpires not after "
					    "created", pfx);
					goto fail;
				}
				break;
			case HDR_DIGEST:
				if (manifest_digest_ok(line + ll, pfx,
				    err) == -1)
					goto fail;
				strlcpy(m->digest, line + ll,
				    sizeof(m->digest));
				break;
			}
			continue;
		}
		if (strncmp(line, "end ", 4) == 0) {
			if (manifest_num(line + 4, SIZE_MAX, &v) == -1 ||
			    v != m->nent) {
				cerr_set(err, "%send: %zu entries counted",
				    pfx, m->nent);
				goto fail;
			}
			ended = 1;
			continue;
		}
		for (h = 0; h < NHDR; h++) {
			ll = strlen(manifest_hdrs[h]);
			if (strncmp(line, manifest_hdrs[h], ll) == 0 &&
			    line[ll] == ' ') {
				cerr_set(err, "%sduplicate %s", pfx,
				    manifest_hdrs[h]);
				goto fail;
			}
		}
		if (m->nent >= MANIFEST_ENTMAX) {
			cerr_set(err, "%smore than %d entries", pfx,
			    MANIFEST_ENTMAX);
			goto fail;
		}
		if (manifest_parse_ent(m, line, pfx, &e, err) == -1)
			goto fail;
		if (m->nent > 0 && (i = manifest_entcmp(&m->ent[m->nent - 1],
		    &e)) >= 0) {
			cerr_set(err, "%s%s", pfx, i == 0 ?
			    "duplicate entry" : "entry out of order");
			free(e.name);
			free(e.meta);
			goto fail;
		}
		manifest_add(m, &e);
	}
	if (!ended) {
		if (hdr < NHDR)
			cerr_set(err, "%s: line %zu: missing %s (truncated)",
			    source, lineno + 1, lineno == 0 ? "header" :
			    manifest_hdrs[hdr]);
		else
			cerr_set(err, "%s: line %zu: missing end (truncated)",
			    source, lineno + 1);
		goto fail;
	}
	free(line);
	return 0;
fail:
	free(line);
	manifest_free(m);
	return -1;
}

const struct manifest_ent *
manifest_find(const struct manifest *m, enum manifest_kind kind,
    const char *name)
{
	size_t	 lo = 0, hi = m->nent, mid;

	/* The first entry not before (kind, name). */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (manifest_cmp(kind, name, m->ent[mid].kind,
		    m->ent[mid].name) <= 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	if (lo < m->nent && manifest_cmp(kind, name, m->ent[lo].kind,
	    m->ent[lo].name) == 0)
		return &m->ent[lo];
	return NULL;
}

int
manifest_match(const struct manifest *m, enum manifest_kind kind,
    const char *name, uint64_t size, const char *digest)
{
	const struct manifest_ent	*e;
	size_t				 i;

	if (name != NULL) {
		/* stat entries may share a name: any of them */
		for (e = manifest_find(m, kind, name); e != NULL &&
		    e < m->ent + m->nent && e->kind == kind &&
		    strcmp(e->name, name) == 0; e++)
			if (e->size == size && strcmp(e->digest, digest) == 0)
				return 1;
		return 0;
	}
	for (i = 0; i < m->nent; i++)
		if (m->ent[i].kind == kind && m->ent[i].size == size &&
		    strcmp(m->ent[i].digest, digest) == 0)
			return 1;
	return 0;
}

int
manifest_write(const struct manifest *m, struct buf *out, struct cerr *err)
{
	const struct manifest_ent	*e;
	const char			*why;
	size_t				 i, start;
	int				 rc = 0;

	if (m->serial == 0 || m->serial > INT64_MAX) {
		cerr_set(err, "manifest: bad serial %llu",
		    (unsigned long long)m->serial);
		return -1;
	}
	if (m->created < 0 || m->expires <= m->created) {
		cerr_set(err, "manifest: expires not after created");
		return -1;
	}
	if (manifest_digest_ok(m->digest, "manifest: ", err) == -1)
		return -1;
	if (m->nent > MANIFEST_ENTMAX) {
		cerr_set(err, "manifest: more than %d entries",
		    MANIFEST_ENTMAX);
		return -1;
	}
	rc |= buf_printf(out, "%s\nserial %llu\ncreated %lld\nexpires %lld\n"
	    "digest %s\n", MANIFEST_MAGIC, (unsigned long long)m->serial,
	    (long long)m->created, (long long)m->expires, m->digest);
	for (i = 0; i < m->nent && rc == 0; i++) {
		e = &m->ent[i];
		if ((unsigned)e->kind >= MANIFEST_NKIND ||
		    (e->kind == MANIFEST_STAT) != (e->meta != NULL)) {
			cerr_set(err, "manifest: unknown kind");
			return -1;
		}
		if ((why = manifest_badname(e->name)) != NULL) {
			cerr_set(err, "manifest: %s %s: %s",
			    manifest_kinds[e->kind], e->name, why);
			return -1;
		}
		if (i > 0 && manifest_entcmp(&m->ent[i - 1], e) >= 0) {
			cerr_set(err, "manifest: %s %s: entries not sorted "
			    "and unique", manifest_kinds[e->kind], e->name);
			return -1;
		}
		if (e->size > INT64_MAX || cksum_b64ok(e->digest,
		    strlen(e->digest), cksum_size(m->digest)) == -1) {
			cerr_set(err, "manifest: %s %s: bad size or digest",
			    manifest_kinds[e->kind], e->name);
			return -1;
		}
		start = buf_len(out);
		rc |= buf_printf(out, "%s %llu %s ", manifest_kinds[e->kind],
		    (unsigned long long)e->size, e->digest);
		if (e->meta != NULL)
			rc |= buf_printf(out, "%s ", e->meta);
		rc |= encode_path(out, e->name);
		if (rc == 0 && buf_len(out) - start > MANIFEST_LINEMAX) {
			cerr_set(err, "manifest: %s %s: line longer than %d "
			    "bytes", manifest_kinds[e->kind], e->name,
			    MANIFEST_LINEMAX);
			return -1;
		}
		rc |= buf_addc(out, '\n');
	}
	rc |= buf_printf(out, "end %zu\n", m->nent);
	if (rc != 0 || buf_len(out) > MANIFEST_MAX) {
		cerr_set(err, "manifest: larger than %d bytes", MANIFEST_MAX);
		return -1;
	}
	return 0;
}

/* The scan of a repository (manifest_build). */
struct mscan {
	struct manifest		*m;
	enum manifest_kind	 kind;		/* the directory walked */
	int			 rootfd;
	struct cksum		*ck;
	char			 root[PATH_MAX];	/* rootfd's path, or "" */
	struct cerr		*err;
};

/*
 * Resolve the target of the symbolic link at rel (a path below the
 * root) lexically into out, a path below the root.  0, or -1 with err
 * when the target leaves the repository.
 */
static int
manifest_linkpath(struct mscan *s, const char *rel, const char *target,
    char *out, size_t outsz)
{
	char		 tmp[PATH_MAX * 2], *comp, *save, *slash;
	size_t		 n, rl;
	int		 len;

	if (target[0] == '/') {
		rl = strlen(s->root);
		if (rl == 0 || strncmp(target, s->root, rl) != 0 ||
		    (target[rl] != '/' && target[rl] != '\0'))
			goto out_of_repo;
		len = snprintf(tmp, sizeof(tmp), "%s", target + rl);
	} else {
		slash = strrchr(rel, '/');
		n = slash != NULL ? (size_t)(slash - rel) : 0;
		len = snprintf(tmp, sizeof(tmp), "%.*s/%s", (int)n, rel,
		    target);
	}
	if (len < 0 || (size_t)len >= sizeof(tmp))
		goto out_of_repo;
	out[0] = '\0';
	n = 0;
	for (comp = strtok_r(tmp, "/", &save); comp != NULL;
	    comp = strtok_r(NULL, "/", &save)) {
		if (strcmp(comp, ".") == 0)
			continue;
		if (strcmp(comp, "..") == 0) {
			if (n == 0)
				goto out_of_repo;
			slash = strrchr(out, '/');
			n = slash != NULL ? (size_t)(slash - out) : 0;
			out[n] = '\0';
			continue;
		}
		len = snprintf(out + n, outsz - n, "%s%s", n > 0 ? "/" : "",
		    comp);
		if (len < 0 || (size_t)len >= outsz - n)
			goto out_of_repo;
		n += (size_t)len;
	}
	if (n == 0)
		goto out_of_repo;
	return 0;
out_of_repo:
	cerr_set(s->err, "%s: symbolic link to %s, outside the repository",
	    rel, target);
	return -1;
}

/*
 * Digest the regular file at fd (named rel) into an entry of kind under
 * name.  0 or -1 with err.
 */
static int
manifest_addfile(struct mscan *s, enum manifest_kind kind, const char *name,
    const char *rel, int fd)
{
	struct manifest_ent	 e;
	char			 out[CKSUM_B64MAX];
	int64_t			 size;

	if (s->m->nent >= MANIFEST_ENTMAX) {
		cerr_set(s->err, "%s: more than %d files", rel,
		    MANIFEST_ENTMAX);
		return -1;
	}
	cksum_reset(s->ck);
	if (cksum_fd(s->ck, fd, out, &size) == -1) {
		cerr_errno(s->err, "%s", rel);
		return -1;
	}
	memset(&e, 0, sizeof(e));
	e.kind = kind;
	e.name = xstrdup(name);
	e.size = (uint64_t)size;
	strlcpy(e.digest, out, sizeof(e.digest));
	manifest_add(s->m, &e);
	return 0;
}

/*
 * confine_walk's visitor: a regular file below the kind's directory, or
 * a symbolic link to one inside the repository, becomes an entry under
 * its name there (sub); FIFOs and sockets have nothing to serve.
 */
static int
manifest_visit(void *arg, int dirfd, const char *leaf, const char *crel,
    const char *name, const struct stat *st, struct cerr *err)
{
	struct mscan	*s = arg;
	struct stat	 lst;
	char		 target[PATH_MAX], lrel[PATH_MAX];
	ssize_t		 tl;
	int		 fd, rc;

	(void)err;
	if (S_ISLNK(st->st_mode)) {
		tl = readlinkat(dirfd, leaf, target, sizeof(target) - 1);
		if (tl == -1) {
			cerr_errno(s->err, "%s", crel);
			return -1;
		}
		target[tl] = '\0';
		if (manifest_linkpath(s, crel, target, lrel,
		    sizeof(lrel)) == -1)
			return -1;
		fd = confine_open(s->rootfd, lrel, O_RDONLY | O_NONBLOCK |
		    O_NOCTTY, 0);
		if (fd == -1) {
			cerr_errno(s->err, "%s: symbolic link to %s", crel,
			    target);
			return -1;
		}
		if (fstat(fd, &lst) == -1 || !S_ISREG(lst.st_mode)) {
			close(fd);
			cerr_set(s->err, "%s: symbolic link to %s: not a "
			    "regular file", crel, target);
			return -1;
		}
	} else if (S_ISREG(st->st_mode)) {
		if ((fd = openat(dirfd, leaf, O_RDONLY | O_NOFOLLOW |
		    O_NONBLOCK | O_NOCTTY | O_CLOEXEC)) == -1) {
			cerr_errno(s->err, "%s", crel);
			return -1;
		}
	} else
		return 0;
	rc = manifest_addfile(s, s->kind, name, crel, fd);
	close(fd);
	return rc;
}

int
manifest_build(int rootfd, struct manifest *m, struct cerr *err)
{
	struct mscan	 s;
	char		 proc[64];
	ssize_t		 n;
	int		 k, dfd;

	if (manifest_digest_ok(m->digest, "manifest: ", err) == -1)
		return -1;
	memset(&s, 0, sizeof(s));
	s.m = m;
	s.rootfd = rootfd;
	s.err = err;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", rootfd);
	if ((n = readlink(proc, s.root, sizeof(s.root) - 1)) > 0)
		s.root[n] = '\0';
	else
		s.root[0] = '\0';
	if ((s.ck = cksum_new(m->digest)) == NULL) {
		cerr_set(err, "%s: unsupported checksum", m->digest);
		return -1;
	}
	for (k = 0; k < 3; k++) {
		dfd = confine_open(rootfd, manifest_dirs[k], O_RDONLY |
		    O_DIRECTORY, 0);
		if (dfd == -1) {
			if (errno == ENOENT)
				continue;
			cerr_errno(err, "%s", manifest_dirs[k]);
			goto fail;
		}
		s.kind = (enum manifest_kind)k;
		if (confine_walk(dfd, manifest_dirs[k], manifest_visit, &s,
		    err) == -1)
			goto fail;
	}
	cksum_free(s.ck);
	manifest_sort(m);
	return 0;
fail:
	cksum_free(s.ck);
	manifest_free(m);
	return -1;
}
