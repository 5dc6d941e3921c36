/*
 * bench-repo.c: the repository a sweep serves, built in the work
 * directory from --data or the generated corpus: transcript/bench.T made
 * by fsdiff -C -c sha1 of the data, its files hard-linked (or copied)
 * under file/bench.T/, command/bench.K reading "p bench.T" and a config
 * giving bench.K to every host.  --make-repo builds only this.
 * --update builds it with cairn-publish instead (repo_publish).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "log.h"
#include "xmalloc.h"

#define TNAME		"bench.T"
#define KNAME		"bench.K"

/*
 * Mirror the regular files and directories of src under dst: hard links
 * where possible, copies otherwise.  Counts bytes of distinct files.
 */
static void
repo_mirror(struct bench *b, const char *src, const char *dst)
{
	struct stat	 st;
	struct dirent	*de;
	DIR		*d;
	char		*s, *t, buf[65536];
	ssize_t		 n;
	int		 in, out;

	if ((d = opendir(src)) == NULL)
		fatal("%s", src);
	util_mkdir(dst);
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		xasprintf(&s, "%s/%s", src, de->d_name);
		xasprintf(&t, "%s/%s", dst, de->d_name);
		if (lstat(s, &st) == -1)
			fatal("%s", s);
		if (S_ISDIR(st.st_mode))
			repo_mirror(b, s, t);
		else if (S_ISREG(st.st_mode)) {
			if (st.st_nlink == 1 || access(t, F_OK) != 0) {
				b->raw_bytes += (uint64_t)st.st_size;
				b->nfiles++;
			}
			if (link(s, t) == -1 && errno != EEXIST) {
				if ((in = open(s, O_RDONLY)) == -1)
					fatal("%s", s);
				if ((out = open(t, O_WRONLY | O_CREAT |
				    O_TRUNC, 0644)) == -1)
					fatal("%s", t);
				while ((n = read(in, buf, sizeof(buf))) > 0)
					if (write(out, buf, (size_t)n) != n)
						fatal("%s: write", t);
				if (n == -1)
					fatal("%s: read", s);
				close(in);
				if (close(out) == -1)
					fatal("%s", t);
			}
		}
		free(s);
		free(t);
	}
	closedir(d);
}

/*
 * Make dir/name: a file holding text, or a directory when text is NULL.
 */
static void
repo_put(const char *dir, const char *name, const char *text)
{
	char	*p;

	xasprintf(&p, "%s/%s", dir, name);
	if (text != NULL)
		util_write_file(p, text);
	else
		util_mkdir(p);
	free(p);
}

/*
 * The loadset transcript of the tree data, written to out: fsdiff -C -c
 * sha1 run in data against an empty command file.
 */
static void
repo_transcript(struct bench *b, const char *data, const char *out)
{
	char	*k, *log, *argv[10];
	int	 st;

	repo_put(b->work, "empty.K", "");
	xasprintf(&k, "%s/empty.K", b->work);
	xasprintf(&log, "%s/fsdiff-C.log", b->work);
	argv[0] = b->fsdiff;
	argv[1] = "-C";
	argv[2] = "-c";
	argv[3] = "sha1";
	argv[4] = "-K";
	argv[5] = k;
	argv[6] = "-o";
	argv[7] = (char *)out;
	argv[8] = ".";
	argv[9] = NULL;
	unlink(log);
	if ((st = spawn_run(argv, data, log, NULL)) != 0) {
		spawn_show_log(log);
		fatalx("fsdiff -C of %s exited with status %d", data, st);
	}
	free(k);
	free(log);
}

/* Build the repository in repo (emptied first). */
void
repo_make(struct bench *b, const char *repo)
{
	char	*data, *p;

	if (b->data != NULL) {
		if ((data = realpath(b->data, NULL)) == NULL)
			fatal("%s", b->data);
		b->corpus_desc = "data";
	} else {
		xasprintf(&data, "%s/corpus", b->work);
		if (access(data, F_OK) != 0)
			corpus_make(data, &b->corpus, NULL);
		b->corpus_desc = "generated corpus";
	}
	util_rmtree(repo);
	util_mkdir(repo);
	repo_put(repo, "transcript", NULL);
	repo_put(repo, "command", NULL);
	repo_put(repo, "file", NULL);
	repo_put(repo, "command/" KNAME, "p " TNAME "\n");
	repo_put(repo, "config", "* " KNAME "\n");

	xasprintf(&p, "%s/transcript/" TNAME, repo);
	repo_transcript(b, data, p);
	free(p);
	xasprintf(&p, "%s/file/" TNAME, repo);
	b->raw_bytes = b->nfiles = 0;
	repo_mirror(b, data, p);
	free(p);
	free(data);
}

/*
 * --update: publish the tree data as the loadset bench.T of b->repo the
 * way an administrator does, with cairn-publish: the tree staged as an
 * upload in tmp/ (its transcript by fsdiff -C, its files hard-linked or
 * copied), then put into service, the first time (replace 0) named in
 * command/bench.K, which config gives to every host, and later in place
 * of the version in service (replace 1: cairn-publish -f, which keeps
 * the files it changes as bases for deltas).  b->nfiles and b->raw_bytes
 * count the tree.
 */
void
repo_publish(struct bench *b, const char *data, int replace)
{
	static const char *const dirs[] = { "transcript", "command", "file",
	    "special", "tmp", "tmp/transcript", "tmp/file" };
	char		*p, *log, *argv[10];
	size_t		 i;
	int		 st, n = 0;

	if (!replace) {
		util_rmtree(b->repo);
		util_mkdir(b->repo);
		for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
			repo_put(b->repo, dirs[i], NULL);
		repo_put(b->repo, "config", "* " KNAME "\n");
	}
	xasprintf(&p, "%s/tmp/transcript/" TNAME, b->repo);
	repo_transcript(b, data, p);
	free(p);
	xasprintf(&p, "%s/tmp/file/" TNAME, b->repo);
	util_rmtree(p);
	b->raw_bytes = b->nfiles = 0;
	repo_mirror(b, data, p);
	free(p);

	xasprintf(&log, "%s/publish.log", b->work);
	argv[n++] = b->publish;
	argv[n++] = "-D";
	argv[n++] = b->repo;
	if (replace)
		argv[n++] = "-f";
	else {
		argv[n++] = "-k";
		argv[n++] = KNAME;
	}
	argv[n++] = TNAME;
	argv[n] = NULL;
	if ((st = spawn_run(argv, b->repo, log, NULL)) != 0) {
		spawn_show_log(log);
		fatalx("cairn-publish%s of %s exited with status %d (log: %s)",
		    replace ? " -f" : "", data, st, log);
	}
	free(log);
}
