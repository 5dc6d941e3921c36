/*
 * tindex.c: a session's index of its transcripts' "f" lines (tindex.h).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "compat.h"
#include "log.h"
#include "tindex.h"
#include "transcript.h"
#include "xmalloc.h"

#define TINDEX_MAXT	16	/* transcripts a session keeps indexed */

/* One "f" line: the hash of its decoded path, where it starts. */
struct tient {
	uint64_t	 hash;
	off_t		 off;
};

/* One transcript file. */
struct tidx {
	dev_t		 dev;
	ino_t		 ino;
	off_t		 size;
	struct timespec	 mtim;
	FILE		*fp;		/* NULL: nothing to answer from it */
	struct treader	*r;		/* over fp */
	struct tient	*ents;		/* sorted by hash, then offset */
	size_t		 n;
	uint64_t	 used;		/* when last asked about */
};

struct tindex {
	struct tidx	 t[TINDEX_MAXT];
	size_t		 nt;
	size_t		 max;		/* lines, all indexes together */
	uint64_t	 tick;
};

/* FNV-1a, 64 bits. */
static uint64_t
tindex_hash(const char *s)
{
	uint64_t	 h = 0xcbf29ce484222325ULL;

	for (; *s != '\0'; s++) {
		h ^= (unsigned char)*s;
		h *= 0x100000001b3ULL;
	}
	return h;
}

static int
tindex_cmp(const void *a, const void *b)
{
	const struct tient	*x = a, *y = b;

	if (x->hash != y->hash)
		return x->hash < y->hash ? -1 : 1;
	return x->off < y->off ? -1 : x->off > y->off;
}

struct tindex *
tindex_new(size_t maxlines)
{
	struct tindex	*ti;

	ti = xcalloc(1, sizeof(*ti));
	ti->max = maxlines;
	return ti;
}

static void
tidx_clear(struct tidx *x)
{
	if (x->r != NULL)
		treader_close(x->r);	/* closes fp */
	else if (x->fp != NULL)
		fclose(x->fp);
	free(x->ents);
	memset(x, 0, sizeof(*x));
}

void
tindex_free(struct tindex *ti)
{
	size_t	 i;

	if (ti == NULL)
		return;
	for (i = 0; i < ti->nt; i++)
		tidx_clear(&ti->t[i]);
	free(ti);
}

/* Lines held by every index but x. */
static size_t
tindex_held(const struct tindex *ti, const struct tidx *x)
{
	size_t	 i, n = 0;

	for (i = 0; i < ti->nt; i++)
		if (&ti->t[i] != x)
			n += ti->t[i].n;
	return n;
}

/* The least recently used index other than x, or NULL. */
static struct tidx *
tindex_oldest(struct tindex *ti, const struct tidx *x, int withlines)
{
	struct tidx	*o = NULL;
	size_t		 i;

	for (i = 0; i < ti->nt; i++)
		if (&ti->t[i] != x && (!withlines || ti->t[i].n > 0) &&
		    (o == NULL || ti->t[i].used < o->used))
			o = &ti->t[i];
	return o;
}

/*
 * Make room for need lines in x within the bound: the others give way,
 * least used first.
 */
static void
tindex_room(struct tindex *ti, struct tidx *x, size_t need)
{
	struct tidx	*o;

	while (tindex_held(ti, x) + need > ti->max &&
	    (o = tindex_oldest(ti, x, 1)) != NULL) {
		tidx_clear(o);
		o->used = 0;	/* an empty slot: the first to be reused */
	}
}

/*
 * Read the transcript on fp from its start into x: the hash and offset
 * of every "f" line with a checksum.  Lines that do not parse are left
 * out.  Returns 0, or -1 (x answers nothing) on a read error or more
 * lines than the bound.
 */
static int
tidx_build(struct tindex *ti, struct tidx *x, const char *name)
{
	const struct tline	*t;
	struct cerr		 err;
	size_t			 cap = 0;
	off_t			 off;
	int			 rc;

	rewind(x->fp);
	x->r = treader_fdopen(x->fp, name, TR_NOSORT | TR_COMMENTS, 0);
	for (;;) {
		/* With TR_COMMENTS every call reads exactly one line. */
		if ((off = ftello(x->fp)) == -1)
			return -1;
		if ((rc = treader_next(x->r, &t, &err)) == 0)
			break;
		if (rc == -1) {
			if (treader_ioerror(x->r)) {
				log_warnx("%s", err.msg);
				return -1;
			}
			continue;
		}
		if (rc != TL_OBJECT || t->type != 'f' || t->minus ||
		    strcmp(t->cksum, "-") == 0)
			continue;
		if (x->n == ti->max) {
			log_info("%s: more than %zu lines with checksums: no "
			    "deltas from it", name, ti->max);
			return -1;
		}
		if (x->n == cap) {
			cap = cap == 0 ? 1024 : cap * 2;
			if (cap > ti->max)
				cap = ti->max;
			/* Within the bound while it grows, too. */
			tindex_room(ti, x, cap);
			x->ents = xreallocarray(x->ents, cap,
			    sizeof(*x->ents));
		}
		x->ents[x->n].hash = tindex_hash(t->path);
		x->ents[x->n++].off = off;
	}
	qsort(x->ents, x->n, sizeof(*x->ents), tindex_cmp);
	return 0;
}

/* The index of the transcript open on fd (taken), made if need be. */
static struct tidx *
tindex_get(struct tindex *ti, int fd, const char *name)
{
	struct stat	 st;
	struct tidx	*x;
	size_t		 i;

	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return NULL;
	}
	for (i = 0; i < ti->nt; i++) {
		x = &ti->t[i];
		if (x->dev == st.st_dev && x->ino == st.st_ino &&
		    x->size == st.st_size &&
		    x->mtim.tv_sec == st.st_mtim.tv_sec &&
		    x->mtim.tv_nsec == st.st_mtim.tv_nsec) {
			close(fd);
			x->used = ++ti->tick;
			return x;
		}
	}
	if (ti->nt < TINDEX_MAXT)
		x = &ti->t[ti->nt++];
	else {
		x = tindex_oldest(ti, NULL, 0);
		tidx_clear(x);
	}
	x->dev = st.st_dev;
	x->ino = st.st_ino;
	x->size = st.st_size;
	x->mtim = st.st_mtim;
	x->used = ++ti->tick;
	if ((x->fp = fdopen(fd, "r")) == NULL) {
		close(fd);
		return x;
	}
	if (tidx_build(ti, x, name) == -1) {
		/* Kept, answering nothing: not read again while it stands. */
		treader_close(x->r);
		x->r = NULL;
		x->fp = NULL;
		free(x->ents);
		x->ents = NULL;
		x->n = 0;
		return x;
	}
	return x;
}

int
tindex_find(struct tindex *ti, int fd, const char *name, const char *path,
    char *cksum, size_t len, int64_t *size)
{
	const struct tline	*t;
	struct tidx		*x;
	struct cerr		 err;
	uint64_t		 h;
	size_t			 lo, hi, mid, i;
	int			 found = 0;

	if ((x = tindex_get(ti, fd, name)) == NULL || x->r == NULL ||
	    x->n == 0)
		return 0;
	h = tindex_hash(path);
	for (lo = 0, hi = x->n; lo < hi; ) {
		mid = lo + (hi - lo) / 2;
		if (x->ents[mid].hash < h)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (i = lo; i < x->n && x->ents[i].hash == h; i++) {
		if (i - lo == TINDEX_PROBE)
			return 0;
		if (fseeko(x->fp, x->ents[i].off, SEEK_SET) == -1 ||
		    treader_next(x->r, &t, &err) != TL_OBJECT ||
		    t->type != 'f' || t->minus || strcmp(t->path, path) != 0)
			continue;
		if (strcmp(t->cksum, "-") == 0)
			return 0;
		/* Two lines for one path: neither is to be trusted. */
		if (found++ > 0 || strlcpy(cksum, t->cksum, len) >= len)
			return 0;
		*size = t->size;
	}
	return found == 1;
}
