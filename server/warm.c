/*
 * warm.c: cairnd -W, filling the compressed cache ahead of the clients
 * (cairnd(8)).
 *
 * Every transcript in transcript/ (ktcheck fetches them) and every file
 * one lists ("f" and "a" lines) is opened as RETR would open it
 * (transcript/<name>, file/<transcript>/<path>, confined to the
 * repository), judged as a body sent under -A auto would be, and
 * compressed afresh at each codec and level asked for into an entry of
 * the cache (zlevel_entry_new), unless the cache has one already.  A
 * file changed too recently to be trusted is tried again once it has
 * settled.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "log.h"
#include "server.h"
#include "transcript.h"
#include "xmalloc.h"
#include "zauto.h"
#include "zcache.h"
#include "zlevel.h"

#define WARM_CHUNK	(256 * 1024)

struct warm {
	struct zcache	*zc;
	int		 rootfd;
	struct zlevel	 levels[CACHE_WARM_MAX];
	int		 nlevels;
	unsigned char	*chunk;
	struct buf	*out;
	/* Counts for the summary. */
	unsigned long	 files, made, had, stored, fresh, failed;
	unsigned long long raw, deflated;
	int		 late;		/* second pass: fresh files again */
};

/* Compress the file on fd afresh at zl into a cache entry. */
static int
warm_one(struct warm *w, int fd, const struct stat *st,
    const struct zlevel *zl)
{
	struct zlevel_entry e;
	struct zfill	*f;
	struct cerr	 err;
	ssize_t		 n;
	int		 ok = 0;

	if ((f = zcache_fill_begin(w->zc, st, zl->codec, zl->level)) == NULL)
		return -1;
	if (zlevel_entry_new(&e, zl->codec, zl->level, &err) == -1) {
		(void)zcache_fill_end(f, 0, fd);
		return -1;
	}
	if (lseek(fd, 0, SEEK_SET) == -1)
		goto out;
	for (;;) {
		if ((n = read(fd, w->chunk, WARM_CHUNK)) == -1)
			goto out;
		buf_reset(w->out);
		if (zlevel_entry_add(&e, w->chunk, (size_t)n, n == 0, w->out,
		    &err) == -1)
			goto out;
		zcache_fill_data(f, buf_data(w->out), buf_len(w->out));
		w->deflated += buf_len(w->out);
		if (n == 0)
			break;
		zcache_fill_src(f, w->chunk, (size_t)n);
	}
	ok = 1;
out:
	zlevel_entry_free(&e);
	return zcache_fill_end(f, ok, fd);
}

/*
 * The file at rel (under the repository), as RETR would serve it: every
 * level it still lacks.
 */
static void
warm_file(struct warm *w, const char *rel)
{
	struct stat	 st;
	struct zhit	 h;
	ssize_t		 n;
	int		 fd, i, fresh = 0;

	if ((fd = safe_open(w->rootfd, rel)) == -1 || fstat(fd, &st) == -1) {
		if (fd != -1)
			close(fd);
		/* Radmind serves what exists; a missing file is no error. */
		return;
	}
	w->files++;
	if (!zcache_settled(&st)) {
		if (!w->late) {
			w->fresh++;
			close(fd);
			return;
		}
		fresh = 1;
	}
	if (st.st_size == 0 || fresh) {
		close(fd);
		return;
	}
	/* No level asked: the verdict alone, which is every codec's. */
	(void)zcache_find(w->zc, &st, ZLEVEL_ZLIB, 1, 0, &h);
	if (h.verdict == ZC_STORED) {
		w->stored++;
		close(fd);
		return;
	}
	if ((n = read(fd, w->chunk, WARM_CHUNK)) > 0 &&
	    zauto_incompressible(w->chunk, (size_t)n)) {
		zcache_stored(w->zc, &st);
		w->stored++;
		close(fd);
		return;
	}
	for (i = 0; i < w->nlevels; i++) {
		(void)zcache_find(w->zc, &st, w->levels[i].codec,
		    w->levels[i].level, w->levels[i].level, &h);
		if (h.fd != -1) {
			close(h.fd);
			w->had++;
			continue;
		}
		if (warm_one(w, fd, &st, &w->levels[i]) == -1) {
			log_warnx("%s: cannot cache it at level %s%s%d", rel,
			    w->levels[i].codec == ZLEVEL_ZLIB ? "" :
			    zlevel_label(w->levels[i].codec),
			    w->levels[i].codec == ZLEVEL_ZLIB ? "" : ":",
			    w->levels[i].level);
			w->failed++;
		} else {
			w->made++;
			w->raw += (unsigned long long)st.st_size;
		}
	}
	close(fd);
}

/*
 * Every transcript (ktcheck fetches them), and every f/a line of each;
 * 0, or -1 if one was unreadable.
 */
static int
warm_pass(struct warm *w)
{
	struct treader		*r;
	const struct tline	*t;
	struct dirent		*de;
	struct cerr		 err;
	DIR			*d;
	char			 path[PATH_MAX], rel[PATH_MAX];
	int			 rc = 0, n;

	if ((d = opendir("transcript")) == NULL) {
		log_warn("transcript");
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "transcript/%s", de->d_name);
		warm_file(w, path);
		if ((r = treader_open(path, path, TR_NOSORT, &err)) == NULL) {
			log_warnx("%s", err.msg);
			rc = -1;
			continue;
		}
		while ((n = treader_next(r, &t, &err)) != 0) {
			if (n == -1) {
				log_warnx("%s", err.msg);
				if (treader_ioerror(r)) {
					rc = -1;
					break;
				}
				continue;
			}
			if (n == TL_OBJECT && !t->minus &&
			    (t->type == 'f' || t->type == 'a') &&
			    (size_t)snprintf(rel, sizeof(rel), "file/%s/%s",
			    de->d_name, t->path) < sizeof(rel))
				warm_file(w, rel);
		}
		treader_close(r);
	}
	closedir(d);
	return rc;
}

/* The "-W <spec>: levels are ..." error: every codec built in. */
static void
warm_badlevels(const char *spec, struct cerr *err)
{
	char	 ranges[128];
	size_t	 off = 0;
	int	 c, lo, hi;

	ranges[0] = '\0';
	for (c = 0; c < ZLEVEL_NCODECS && off < sizeof(ranges); c++) {
		if (!zlevel_built((enum zlevel_codec)c))
			continue;
		zlevel_range((enum zlevel_codec)c, &lo, &hi);
		/* zlib's levels are bare numbers, as in a client's -Z. */
		if (c == ZLEVEL_ZLIB)
			off += (size_t)snprintf(ranges + off, sizeof(ranges) -
			    off, "%d to %d", lo + 1, hi);
		else
			off += (size_t)snprintf(ranges + off, sizeof(ranges) -
			    off, "%s%s:%d to %s:%d", off > 0 ? ", or " : "",
			    zlevel_label((enum zlevel_codec)c), lo + 1,
			    zlevel_label((enum zlevel_codec)c), hi);
	}
	cerr_set(err, "-W %s: levels are %s", spec, ranges);
}

int
cache_warm_levels(const char *spec, struct zlevel levels[CACHE_WARM_MAX],
    int *n, struct cerr *err)
{
	enum zlevel_codec codec;
	struct cerr	 perr;
	char		*s, *p, *tok;
	int		 l, i, bad, rc = 0;

	*n = 0;
	s = xstrdup(spec);
	for (p = s; (tok = strsep(&p, ",")) != NULL; ) {
		/* A client's -Z, less "auto" and the stored levels. */
		bad = zlevel_parse_client(tok, &codec, &l, &perr) == -1;
		if (bad || l == ZLEVEL_AUTO || !zlevel_deflates(codec, l)) {
			if (bad && !zlevel_built(codec))
				cerr_set(err, "-W %s: %s", spec, perr.msg);
			else
				warm_badlevels(spec, err);
			rc = -1;
			break;
		}
		for (i = 0; i < *n; i++)
			if (levels[i].codec == codec && levels[i].level == l)
				break;
		if (i == *n && *n < CACHE_WARM_MAX) {
			levels[*n].codec = codec;
			levels[*n].level = l;
			levels[*n].zauto = 0;
			(*n)++;
		}
	}
	free(s);
	return rc;
}

int
cache_warm(struct zcache *zc, int rootfd, const char *levels)
{
	struct warm	 w;
	struct cerr	 err;
	int		 rc;

	memset(&w, 0, sizeof(w));
	w.zc = zc;
	w.rootfd = rootfd;
	if (cache_warm_levels(levels, w.levels, &w.nlevels, &err) == -1)
		fatalx("%s", err.msg);
	w.chunk = xmalloc(WARM_CHUNK);
	w.out = buf_new(4 * WARM_CHUNK);
	rc = warm_pass(&w);
	if (w.fresh > 0) {
		/* Just published: wait until they may be trusted. */
		log_info("%lu files changed in the last %d seconds: waiting "
		    "for them", w.fresh, ZC_SETTLE);
		sleep(ZC_SETTLE + 1);
		w.late = 1;
		w.files = 0;
		if (warm_pass(&w) == -1)
			rc = -1;
	}
	log_info("cache warmed: %lu files, %lu entries made (%llu bytes "
	    "compressed to %llu), %lu present already, %lu incompressible, "
	    "%lu failed", w.files, w.made, w.raw, w.deflated, w.had,
	    w.stored, w.failed);
	buf_free(w.out);
	free(w.chunk);
	return rc == -1 || w.failed > 0 ? -1 : 0;
}
