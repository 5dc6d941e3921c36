/*
 * bench-corpus.c: the generated corpus.
 */
#include "config.h"

#include <sys/types.h>

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "xmalloc.h"

/* A small deterministic generator (xorshift64*). */
static uint64_t
rng_next(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * 2685821657736338717ULL;
}

/*
 * The built-in corpus, used when bench/gen-corpus is not found: by
 * bytes 25% configuration-like text, 25% C-like source, 30% log lines,
 * 20% random bytes (stand-in for media and archives).
 */
static void
gen_builtin(const char *dir, uint64_t size)
{
	static const char *words[] = { "the", "of", "and", "to", "in",
	    "server", "client", "file", "path", "buffer", "socket", "port",
	    "timeout", "enable", "disable", "allow", "deny", "kernel",
	    "module", "daemon", "process", "error", "warning", "config",
	    "transcript", "compression", "level", "stream", "block",
	    "size", "count", "limit", "memory", "owner", "flags", "if",
	    "return", "int", "char", "struct", "static", "void", "=",
	    "{", "}", ";", "(", ")", "0", "1", "NULL", "#", "\n", "\n\t" };
	static const struct {
		const char	*sub;
		int		 pct;
		uint64_t	 lo, hi;
		int		 random;
	} cls[] = {
		{ "etc", 25, 1024, 20480, 0 },
		{ "usr/src", 25, 2048, 40960, 0 },
		{ "var/log", 30, 65536, 1048576, 0 },
		{ "usr/share/media", 20, 16384, 262144, 1 },
	};
	uint64_t	 seed = 0x5eed5eedULL, share, made, len, i, r;
	char		*p, *q, *buf;
	size_t		 c, k, w, nw = sizeof(words) / sizeof(words[0]);
	FILE		*fp;
	int		 f;

	buf = xmalloc(1048576 + 64);
	xasprintf(&p, "%s/usr", dir);
	util_mkdir(dir);
	util_mkdir(p);
	free(p);
	for (c = 0; c < sizeof(cls) / sizeof(cls[0]); c++) {
		xasprintf(&p, "%s/%s", dir, cls[c].sub);
		util_mkdir_p(p);
		share = size * (uint64_t)cls[c].pct / 100;
		for (made = 0, f = 0; made < share; f++) {
			len = cls[c].lo + rng_next(&seed) %
			    (cls[c].hi - cls[c].lo);
			if (len > share - made)
				len = share - made;
			if (cls[c].random)
				for (i = 0; i < len; i += 8) {
					r = rng_next(&seed);
					memcpy(buf + i, &r, 8);
				}
			else
				for (i = 0; i < len; ) {
					k = (size_t)(rng_next(&seed) % nw);
					/* Skewed: low words more often. */
					k = k * k / nw;
					w = strlen(words[k]);
					memcpy(buf + i, words[k], w);
					i += w;
					buf[i++] = ' ';
				}
			xasprintf(&q, "%s/f%04d%s", p, f,
			    cls[c].random ? ".bin" : ".txt");
			if ((fp = fopen(q, "w")) == NULL ||
			    fwrite(buf, 1, (size_t)len, fp) != len ||
			    fclose(fp) == EOF)
				die("%s: %s", q, strerror(errno));
			free(q);
			made += len;
		}
		free(p);
	}
	free(buf);
}

/* Build the corpus into dir with bench/gen-corpus, or the built-in one. */
void
corpus_make(struct bench *b, const char *dir)
{
	char		*gen = NULL, *argv[6], *log, sz[32];
	const char	*env;
	double		 cpu = 0;
	int		 st;

	if ((env = getenv("CAIRN_GEN_CORPUS")) != NULL &&
	    access(env, X_OK) == 0)
		gen = xstrdup(env);
	if (gen == NULL)
		gen = spawn_find(b, "gen-corpus");
	if (b->corpus_size < 1024 * 1024) {
		/* gen-corpus makes 1 MiB and more. */
		free(gen);
		gen = NULL;
	}
	if (gen == NULL) {
		b->corpus_desc = "built-in generated corpus";
		gen_builtin(dir, b->corpus_size);
		return;
	}
	snprintf(sz, sizeof(sz), "%" PRIu64, b->corpus_size);
	xasprintf(&log, "%s/gen-corpus.log", b->work);
	argv[0] = gen;
	argv[1] = (char *)dir;
	argv[2] = sz;
	argv[3] = NULL;
	if ((st = spawn_run(argv, NULL, log, &cpu)) != 0) {
		spawn_show_log(log);
		die("%s exited with status %d", gen, st);
	}
	b->corpus_desc = "corpus from gen-corpus";
	free(log);
	free(gen);
}
