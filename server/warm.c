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
#include "cfgfile.h"
#include "command.h"
#include "encode.h"
#include "log.h"
#include "server.h"
#include "transcript.h"
#include "xmalloc.h"
#include "zauto.h"
#include "zcache.h"
#include "zlevel.h"

#define WARM_CHUNK	(256 * 1024)
/*
 * The samples a zstd dictionary is trained on: the first WARM_SAMPLE
 * bytes of files spread evenly over the repository, WARM_SAMPLES bytes
 * in all (about a hundred times the dictionary, as zstd advises).
 */
#define WARM_SAMPLE	(128 * 1024)
#define WARM_SAMPLES	(32 * 1024 * 1024)

struct warm {
	struct zcache	*zc;
	int		 rootfd;
	struct zlevel	 levels[ZLEVEL_LISTMAX];
	int		 nlevels;
	unsigned char	*chunk;
	struct buf	*out;
	/* Counts for the summary. */
	unsigned long	 files, made, had, stored, fresh, failed;
	unsigned long long raw, deflated;
	int		 late;		/* second pass: fresh files again */
	int		 dict;		/* zstd levels asked */
	unsigned	 dictid;	/* entries made with ZC_DICT, 0: none */
	/* The files a dictionary may be trained on, and their sizes. */
	char		**cand;
	int64_t		*candsz;
	size_t		 ncand, capcand;
	/*
	 * The transcripts every command file of config lists (the only
	 * ones a dictionary is trained on), with their stat; warm_walk
	 * walks only them when only is set.
	 */
	struct zcache_src *src;
	size_t		 nsrc;
	int		 only;
	/* Command files of config seen, for warm_sources. */
	char		**kf;
	size_t		 nkf;
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

	struct zstdconn_dict *d = NULL;

	if (zl->codec == ZLEVEL_ZSTD && w->dictid != 0)
		d = zcache_dict(w->zc);
	if ((f = zcache_fill_begin(w->zc, st, zl->codec, d != NULL ?
	    zstdconn_dict_id(d) : 0, zl->level)) == NULL)
		return -1;
	if (zlevel_entry_new(&e, zl->codec, zl->level, d, &err) == -1) {
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
	(void)zcache_find(w->zc, &st, ZLEVEL_ZLIB, 0, 1, 0, &h);
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
		    w->levels[i].codec == ZLEVEL_ZSTD ? w->dictid : 0,
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

/* A file the dictionary may be trained on: kept for warm_train. */
static void
warm_candidate(struct warm *w, const char *rel)
{
	struct stat	 st;

	if (fstatat(w->rootfd, rel, &st, AT_SYMLINK_NOFOLLOW) == -1 ||
	    !S_ISREG(st.st_mode) || st.st_size == 0)
		return;
	if (w->ncand == w->capcand) {
		w->capcand = w->capcand ? w->capcand * 2 : 1024;
		w->cand = xreallocarray(w->cand, w->capcand,
		    sizeof(*w->cand));
		w->candsz = xreallocarray(w->candsz, w->capcand,
		    sizeof(*w->candsz));
	}
	w->cand[w->ncand] = xstrdup(rel);
	w->candsz[w->ncand++] = st.st_size;
}

/*
 * Train the cache's zstd dictionary (ZC_DICT) on the files of the
 * repository, the first WARM_SAMPLE bytes of each file taken, evenly
 * spread, up to WARM_SAMPLES bytes; files that look incompressible are
 * left out, and the files after them make up for them.  Too little to
 * train on is no error: the cache has no dictionary then.
 */
static void
warm_train(struct warm *w)
{
	struct cerr	 err;
	unsigned char	*samples, *dict;
	size_t		*sizes, nsz = 0, used = 0, dlen;
	int64_t		 total = 0, seen = 0, take;
	ssize_t		 n;
	size_t		 i;
	int		 fd;

	for (i = 0; i < w->ncand; i++)
		total += w->candsz[i] < WARM_SAMPLE ? w->candsz[i] :
		    WARM_SAMPLE;
	samples = xmalloc(WARM_SAMPLES);
	sizes = xreallocarray(NULL, w->ncand + 1, sizeof(*sizes));
	for (i = 0; i < w->ncand && used < WARM_SAMPLES; i++) {
		take = w->candsz[i] < WARM_SAMPLE ? w->candsz[i] :
		    WARM_SAMPLE;
		seen += take;
		/*
		 * About WARM_SAMPLES bytes over the whole: a file is taken
		 * while what was taken is behind its share of what was
		 * seen (a stride of whole files took half as much).
		 */
		if (total > WARM_SAMPLES && (double)used >= (double)seen *
		    WARM_SAMPLES / (double)total)
			continue;
		if (take > (int64_t)(WARM_SAMPLES - used))
			take = (int64_t)(WARM_SAMPLES - used);
		if ((fd = safe_open(w->rootfd, w->cand[i])) == -1)
			continue;
		n = read(fd, samples + used, (size_t)take);
		close(fd);
		if (n <= 0 || zauto_incompressible(samples + used, (size_t)n))
			continue;
		sizes[nsz++] = (size_t)n;
		used += (size_t)n;
	}
	dict = xmalloc(ZSTDCONN_DICTSIZE);
	if (nsz == 0 || zstdconn_dict_train(samples, sizes, (unsigned)nsz,
	    dict, ZSTDCONN_DICTSIZE, &dlen, &err) == -1)
		log_info("no zstd dictionary: %s", nsz == 0 ? "nothing "
		    "compressible to train on" : err.msg);
	else if (zcache_set_dict(w->zc, dict, dlen, w->src, w->nsrc,
	    &err) == -1)
		log_warnx("zstd dictionary: %s", err.msg);
	else
		log_info("zstd dictionary %u: %zu bytes, trained on %zu "
		    "files (%zu bytes)", zstdconn_dict_id(zcache_dict(w->zc)),
		    dlen, nsz, used);
	free(dict);
	free(sizes);
	free(samples);
}

/* cfgfile_read's hook: every include, every entry's command file. */
static int
warm_kfile(void *arg, enum cfgfile_what what, const char *pattern,
    const char *name)
{
	struct warm	*w = arg;
	size_t		 i;

	(void)pattern;
	if (what == CFGFILE_INCLUDE)
		return 1;
	for (i = 0; i < w->nkf; i++)
		if (strcmp(w->kf[i], name) == 0)
			return 0;
	w->kf = xreallocarray(w->kf, w->nkf + 1, sizeof(*w->kf));
	w->kf[w->nkf++] = xstrdup(name);
	return 0;
}

/*
 * The transcripts a dictionary may hold pieces of: those every command
 * file that config gives a host lists (with what they include), so that
 * any host that may have the dictionary (zcache_dict_for) may fetch all
 * it was trained on.  Their stat is taken now, before any is read.
 * Returns the count (0: none common, or config unreadable, said why).
 */
static size_t
warm_sources(struct warm *w)
{
	struct cmdset	*cs;
	struct cerr	 err;
	struct stat	 st;
	char		*kpath, *dec, rel[PATH_MAX];
	char		**names = NULL;
	int		*seen = NULL;
	size_t		 nnames = 0, i, j, k;

	if (cfgfile_read(AT_FDCWD, CFGFILE_NAME, warm_kfile, w, &err) == -1) {
		log_warnx("no zstd dictionary: %s", err.msg);
		return 0;
	}
	for (k = 0; k < w->nkf; k++) {
		xasprintf(&kpath, "command/%s", w->kf[k]);
		if (cmdset_load(kpath, "command/", 0, &cs, &err) == -1) {
			/* No host is served from it: it limits nothing. */
			log_warnx("%s", err.msg);
			free(kpath);
			continue;
		}
		free(kpath);
		if (names == NULL) {
			/* The first: its transcripts, decoded, once each. */
			for (i = 0; i < cs->ntran; i++) {
				if (decode_path(cs->tran[i].name, &dec) == -1)
					continue;
				for (j = 0; j < nnames; j++)
					if (strcmp(names[j], dec) == 0)
						break;
				if (j < nnames || strchr(dec, '\n') != NULL ||
				    strchr(dec, '/') != NULL) {
					free(dec);
					continue;
				}
				names = xreallocarray(names, nnames + 1,
				    sizeof(*names));
				names[nnames++] = dec;
			}
			if (names == NULL)
				names = xreallocarray(NULL, 1, sizeof(*names));
		} else {
			/* The next: keep what it lists too. */
			seen = xreallocarray(seen, nnames + 1, sizeof(*seen));
			memset(seen, 0, (nnames + 1) * sizeof(*seen));
			for (i = 0; i < cs->ntran; i++) {
				if (decode_path(cs->tran[i].name, &dec) == -1)
					continue;
				for (j = 0; j < nnames; j++)
					if (strcmp(names[j], dec) == 0)
						seen[j] = 1;
				free(dec);
			}
			for (i = j = 0; i < nnames; i++) {
				if (seen[i])
					names[j++] = names[i];
				else
					free(names[i]);
			}
			nnames = j;
		}
		cmdset_free(cs);
	}
	for (i = 0; i < nnames; i++) {
		if ((size_t)snprintf(rel, sizeof(rel), "transcript/%s",
		    names[i]) < sizeof(rel) && fstatat(w->rootfd, rel, &st,
		    AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode)) {
			w->src = xreallocarray(w->src, w->nsrc + 1,
			    sizeof(*w->src));
			w->src[w->nsrc].name = names[i];
			w->src[w->nsrc].st = st;
			w->nsrc++;
		} else
			free(names[i]);
	}
	free(names);
	free(seen);
	if (w->nsrc == 0)
		log_info("no zstd dictionary: no transcript is listed by "
		    "every command file in %s", CFGFILE_NAME);
	return w->nsrc;
}

/* Nonzero if transcript name (in transcript/) is one of the sources. */
static int
warm_source(const struct warm *w, const char *name)
{
	size_t	 i;

	for (i = 0; i < w->nsrc; i++)
		if (strcmp(w->src[i].name, name) == 0)
			return 1;
	return 0;
}

/*
 * Every transcript (ktcheck fetches them), and every f/a line of each,
 * to fn; with w->only, only the sources'.  0, or -1 if one was
 * unreadable.
 */
static int
warm_walk(struct warm *w, void (*fn)(struct warm *, const char *))
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
		if (de->d_name[0] == '.' || (w->only &&
		    !warm_source(w, de->d_name)))
			continue;
		snprintf(path, sizeof(path), "transcript/%s", de->d_name);
		fn(w, path);
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
				fn(w, rel);
		}
		treader_close(r);
	}
	closedir(d);
	return rc;
}

int
cache_warm(struct zcache *zc, int rootfd, const char *levels)
{
	struct warm	 w;
	struct cerr	 err;
	int		 rc, i;

	memset(&w, 0, sizeof(w));
	w.zc = zc;
	w.rootfd = rootfd;
	if (zlevel_parse_list("-W", levels, w.levels, &w.nlevels, &err) == -1)
		fatalx("%s", err.msg);
	w.chunk = xmalloc(WARM_CHUNK);
	w.out = buf_new(4 * WARM_CHUNK);
	for (i = 0; i < w.nlevels; i++)
		if (w.levels[i].codec == ZLEVEL_ZSTD)
			w.dict = 1;
	/* A dictionary, unless the one there is still good for all. */
	if (w.dict && !zcache_dict_fresh(zc, rootfd) && warm_sources(&w) > 0) {
		if (zcache_dict(zc) != NULL)
			log_info("zstd dictionary %u: the transcripts it was "
			    "trained on changed: training a new one",
			    zstdconn_dict_id(zcache_dict(zc)));
		w.only = 1;
		(void)warm_walk(&w, warm_candidate);
		w.only = 0;
		warm_train(&w);
		for (i = 0; (size_t)i < w.ncand; i++)
			free(w.cand[i]);
		free(w.cand);
		free(w.candsz);
	}
	/* A dictionary no session would take makes no entries. */
	if (w.dict && zcache_dict_fresh(zc, rootfd))
		w.dictid = zstdconn_dict_id(zcache_dict(zc));
	for (i = 0; (size_t)i < w.nsrc; i++)
		free((char *)w.src[i].name);
	free(w.src);
	for (i = 0; (size_t)i < w.nkf; i++)
		free(w.kf[i]);
	free(w.kf);
	rc = warm_walk(&w, warm_file);
	if (w.fresh > 0) {
		/* Just published: wait until they may be trusted. */
		log_info("%lu files changed in the last %d seconds: waiting "
		    "for them", w.fresh, ZC_SETTLE);
		sleep(ZC_SETTLE + 1);
		w.late = 1;
		w.files = 0;
		if (warm_walk(&w, warm_file) == -1)
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
