/*
 * delta-measure: what deltas would save on a real update.  Walks the
 * tree NEW and, for each regular file, finds the file it replaces in the
 * tree OLD (its basis), then prints totals over the files that changed:
 * raw bytes, bytes deflated at level 6 each on its own (how a file goes
 * today), bytes as deltas (common/delta.c), CPU time to make and to
 * apply the deltas, and the peak memory of applying one.
 *
 *	delta-measure [-v] [-c digest] [-l level] OLD NEW
 *	delta-measure -a BASIS DELTA
 *
 * -c   the digest of the basis each delta carries (default sha1)
 * -l   zstd level of the deltas (default DELTA_LEVEL)
 * -v   one line per changed file
 * -a   apply DELTA to BASIS, the result thrown away, print the peak
 *      resident set (VmHWM, KiB) and exit: the run whose memory is
 *      measured (delta-measure runs itself so).
 *
 * The basis of NEW/p is OLD/p.  When a component of p is missing from
 * OLD (a directory or file named for its version, such as
 * lib/modules/6.1.0-50-amd64 becoming 6.1.0-56-amd64, or
 * boot/vmlinuz-...), it stands for the one entry of the same directory
 * in OLD that has the same name once every run of digits is taken as
 * one, and that NEW does not have; if no single entry fits, the file is
 * new and has no basis.  Every delta is applied and its result compared
 * with the file (by sha1): a delta that does not give the file back
 * makes the exit status 1.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "cksum.h"
#include "compat.h"
#include "delta.h"
#include "fsutil.h"
#include "log.h"
#include "version.h"
#include "xmalloc.h"
#include "zstream.h"

#define MEASURE_PIECE	(128 * 1024)	/* delta fed as the network would */
#define MEASURE_RSSRUNS	3		/* largest targets measured for RSS */
#define MIB		(1024.0 * 1024.0)

struct big {
	char		 basis[PATH_MAX];
	char		 target[PATH_MAX];
	uint64_t	 size;
};

struct measure {
	const char	*old, *new;
	const char	*digest;
	int		 level, verbose;
	int		 devnull;
	uint64_t	 files, unchanged, changed, moved, nobasis, over;
	uint64_t	 raw, zlib6, delta, newraw, newzlib6;
	double		 tmake, tapply;
	uint64_t	 wrong;
	struct big	 big[MEASURE_RSSRUNS];
};

static struct measure	*M;		/* for the nftw callback */

static double
cpu_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void
usage(void)
{
	fprintf(stderr, "usage: delta-measure [-v] [-c digest] [-l level] "
	    "OLD NEW\n       delta-measure -a BASIS DELTA\n");
	exit(2);
}

/* The whole file at path; NULL (errno set) if it cannot be read. */
static unsigned char *
slurp(const char *path, size_t *len)
{
	struct stat	 st;
	unsigned char	*p;
	size_t		 off = 0;
	ssize_t		 n;
	int		 fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return NULL;
	if (fstat(fd, &st) == -1) {
		close(fd);
		return NULL;
	}
	p = xmalloc((size_t)st.st_size + 1);
	while (off < (size_t)st.st_size &&
	    (n = read(fd, p + off, (size_t)st.st_size - off)) > 0)
		off += (size_t)n;
	close(fd);
	*len = off;
	return p;
}

/* Each run of digits as one '#': "6.1.0-56-amd64" -> "#.#.#-#-amd#". */
static void
shape(const char *s, char *out, size_t size)
{
	size_t	 o = 0;

	for (; *s != '\0' && o + 1 < size; s++) {
		if (*s >= '0' && *s <= '9') {
			if (o == 0 || out[o - 1] != '#')
				out[o++] = '#';
		} else
			out[o++] = *s;
	}
	out[o] = '\0';
}

/*
 * The entry of the directory olddir that stands for name, an entry of
 * newdir that olddir lacks: copied into found.  Returns 0, or -1 if not
 * exactly one entry fits.
 */
static int
moved_entry(const char *olddir, const char *newdir, const char *name,
    char *found, size_t size)
{
	char		 want[NAME_MAX + 1], got[NAME_MAX + 1];
	char		 path[PATH_MAX];
	struct stat	 st;
	struct dirent	*e;
	DIR		*d;
	int		 n = 0;

	shape(name, want, sizeof(want));
	if (strchr(want, '#') == NULL || (d = opendir(olddir)) == NULL)
		return -1;
	while ((e = readdir(d)) != NULL) {
		shape(e->d_name, got, sizeof(got));
		if (strcmp(got, want) != 0 || strcmp(e->d_name, name) == 0)
			continue;
		if (snprintf(path, sizeof(path), "%s/%s", newdir,
		    e->d_name) >= (int)sizeof(path) || lstat(path, &st) == 0)
			continue;
		if (n++ == 0 && strlcpy(found, e->d_name, size) >= size)
			n++;		/* cannot be named: none fits */
	}
	closedir(d);
	return n == 1 ? 0 : -1;
}

/*
 * The basis in OLD of rel (a path below NEW) into out; *moved is set
 * when a component was matched by the version rule.  Returns 0, or -1
 * if there is none (or it is not a regular file).
 */
static int
find_basis(const char *rel, char *out, size_t size, int *moved)
{
	char		 comp[PATH_MAX], newdir[PATH_MAX], alt[NAME_MAX + 1];
	char		 try[PATH_MAX * 2];
	const char	*p = rel, *slash;
	struct stat	 st;
	size_t		 n;

	*moved = 0;
	snprintf(out, size, "%s", M->old);
	snprintf(newdir, sizeof(newdir), "%s", M->new);
	while (*p != '\0') {
		slash = strchr(p, '/');
		n = slash != NULL ? (size_t)(slash - p) : strlen(p);
		if (n == 0 || n >= sizeof(comp))
			return -1;
		memcpy(comp, p, n);
		comp[n] = '\0';
		snprintf(try, sizeof(try), "%s/%s", out, comp);
		if (lstat(try, &st) == -1) {
			if (moved_entry(out, newdir, comp, alt,
			    sizeof(alt)) == -1)
				return -1;
			snprintf(try, sizeof(try), "%s/%s", out, alt);
			*moved = 1;
		}
		if (strlen(try) >= size)
			return -1;
		snprintf(out, size, "%s", try);
		snprintf(try, sizeof(try), "%s/%s", newdir, comp);
		snprintf(newdir, sizeof(newdir), "%s", try);
		p += n;
		while (*p == '/')
			p++;
	}
	return lstat(out, &st) == 0 && S_ISREG(st.st_mode) ? 0 : -1;
}

/* Bytes of p deflated at level 6 from an empty window, as sent today. */
static uint64_t
zlib6(const void *p, size_t len)
{
	struct zstream	*z;
	struct buf	*out;
	struct cerr	 err;
	uint64_t	 n;

	if ((z = zstream_new(6, &err)) == NULL)
		fatalx("%s", err.msg);
	out = buf_new(len + len / 8 + 256 * 1024);	/* zstream: 64 KiB steps */
	if (zstream_deflate(z, p, len, ZS_SYNC, out, &err) == -1)
		fatalx("%s", err.msg);
	n = buf_len(out);
	buf_free(out);
	zstream_free(z);
	return n;
}

/* Keep the MEASURE_RSSRUNS largest targets, largest first. */
static void
note_big(const char *basis, const char *target, uint64_t size)
{
	int	 i, j;

	for (i = 0; i < MEASURE_RSSRUNS; i++)
		if (size > M->big[i].size)
			break;
	if (i == MEASURE_RSSRUNS)
		return;
	for (j = MEASURE_RSSRUNS - 1; j > i; j--)
		M->big[j] = M->big[j - 1];
	snprintf(M->big[i].basis, PATH_MAX, "%s", basis);
	snprintf(M->big[i].target, PATH_MAX, "%s", target);
	M->big[i].size = size;
}

/* Make the delta of one changed file, apply it, count. */
static void
measure_file(const char *bpath, const char *tpath, const char *rel,
    const unsigned char *basis, size_t blen, const unsigned char *target,
    size_t tlen)
{
	struct delta_apply	*a;
	struct cksum		*c;
	struct buf		*d;
	struct cerr		 err;
	char			 want[CKSUM_B64MAX], got[CKSUM_B64MAX];
	uint64_t		 z;
	double			 t0, t1, t2;
	size_t			 off, n;
	int			 bfd, rc;

	z = zlib6(target, tlen);
	d = buf_new(delta_bound(tlen));
	t0 = cpu_now();
	if (delta_make(basis, blen, target, tlen, M->digest, M->level, d,
	    &err) == -1)
		fatalx("%s: %s", rel, err.msg);
	t1 = cpu_now();
	if ((bfd = open(bpath, O_RDONLY | O_CLOEXEC)) == -1)
		fatal("%s", bpath);
	c = cksum_new("sha1");
	a = delta_apply_new(bfd, M->devnull, c);
	for (off = 0, rc = 0; rc == 0 && off < buf_len(d); off += n) {
		n = buf_len(d) - off < MEASURE_PIECE ? buf_len(d) - off :
		    MEASURE_PIECE;
		rc = delta_apply_feed(a, buf_data(d) + off, n, &err);
	}
	if (rc == 0)
		rc = delta_apply_end(a, &err);
	t2 = cpu_now();
	delta_apply_free(a);
	close(bfd);
	cksum_final(c, got);
	cksum_free(c);
	(void)cksum_data("sha1", target, tlen, want);
	if (rc == -1 || strcmp(got, want) != 0) {
		log_warnx("%s: the delta does not give the file back%s%s",
		    rel, rc == -1 ? ": " : "", rc == -1 ? err.msg : "");
		M->wrong++;
	}
	M->changed++;
	M->raw += tlen;
	M->zlib6 += z;
	M->delta += buf_len(d);
	M->tmake += t1 - t0;
	M->tapply += t2 - t1;
	if (M->verbose)
		printf("  %s: %zu bytes, zlib-6 %llu, delta %zu (%.1f%%)\n",
		    rel, tlen, (unsigned long long)z, buf_len(d),
		    z > 0 ? 100.0 * (double)buf_len(d) / (double)z : 0.0);
	note_big(bpath, tpath, tlen);
	buf_free(d);
}

static int
visit(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	char		 bpath[PATH_MAX];
	const char	*rel = path + strlen(M->new);
	unsigned char	*basis, *target;
	size_t		 blen, tlen;
	int		 moved;

	(void)f;
	if (flag != FTW_F || !S_ISREG(st->st_mode))
		return 0;
	while (*rel == '/')
		rel++;
	M->files++;
	if (find_basis(rel, bpath, sizeof(bpath), &moved) == -1) {
		M->nobasis++;
		M->newraw += (uint64_t)st->st_size;
		if ((target = slurp(path, &tlen)) == NULL)
			fatal("%s", path);
		M->newzlib6 += zlib6(target, tlen);
		free(target);
		return 0;
	}
	if ((target = slurp(path, &tlen)) == NULL)
		fatal("%s", path);
	if ((basis = slurp(bpath, &blen)) == NULL)
		fatal("%s", bpath);
	if (blen == tlen && memcmp(basis, target, tlen) == 0)
		M->unchanged++;
	else if (blen > (size_t)DELTA_MAXFILE || tlen > (size_t)DELTA_MAXFILE)
		M->over++;
	else {
		if (moved)
			M->moved++;
		measure_file(bpath, path, rel, basis, blen, target, tlen);
	}
	free(basis);
	free(target);
	return 0;
}

/*
 * This process's peak resident set in KiB (VmHWM: since its exec, unlike
 * getrusage's ru_maxrss, which keeps what the process held before).
 */
static long
peak_rss(void)
{
	char	 line[256];
	FILE	*fp;
	long	 kb = -1;

	if ((fp = fopen("/proc/self/status", "r")) == NULL)
		fatal("/proc/self/status");
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "VmHWM: %ld kB", &kb) == 1)
			break;
	fclose(fp);
	if (kb == -1)
		fatalx("/proc/self/status: no VmHWM line");
	return kb;
}

/* -a: apply the delta in dpath to the basis in bpath, into /dev/null. */
static int
apply_only(const char *bpath, const char *dpath)
{
	struct cerr	 err;
	int		 bfd, dfd, ofd;

	if ((bfd = open(bpath, O_RDONLY | O_CLOEXEC)) == -1)
		fatal("%s", bpath);
	if ((dfd = open(dpath, O_RDONLY | O_CLOEXEC)) == -1)
		fatal("%s", dpath);
	if ((ofd = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1)
		fatal("/dev/null");
	if (delta_apply_fd(bfd, dfd, ofd, NULL, &err) == -1)
		fatalx("%s: %s", dpath, err.msg);
	printf("%ld\n", peak_rss());
	return 0;
}

/* A new file in TMPDIR holding len bytes of p; its name in path. */
static void
tmpfile_with(char *path, size_t size, const char *what, const void *p,
    size_t len)
{
	const char	*tmp = getenv("TMPDIR");
	int		 fd;

	snprintf(path, size, "%s/delta-measure.%s.XXXXXX",
	    tmp != NULL && *tmp != '\0' ? tmp : "/tmp", what);
	if ((fd = mkstemp(path)) == -1)
		fatal("%s", path);
	if (fs_write_all(fd, p, len) == -1 || close(fd) == -1)
		fatal("%s", path);
}

/*
 * Peak RSS in KiB of "delta-measure -a" applying the delta of target
 * against basis (files), run as a new process that reports its own.
 */
static long
apply_rss(const char *self, const char *bpath, const char *tpath)
{
	unsigned char	*basis, *target;
	struct buf	*d;
	struct cerr	 err;
	char		 dpath[PATH_MAX];
	size_t		 blen, tlen;
	FILE		*fp;
	long		 kb;
	pid_t		 pid;
	int		 status, fds[2];

	if ((basis = slurp(bpath, &blen)) == NULL)
		fatal("%s", bpath);
	if ((target = slurp(tpath, &tlen)) == NULL)
		fatal("%s", tpath);
	d = buf_new(delta_bound(tlen));
	if (delta_make(basis, blen, target, tlen, M->digest, M->level, d,
	    &err) == -1)
		fatalx("%s: %s", tpath, err.msg);
	free(basis);
	free(target);
	tmpfile_with(dpath, sizeof(dpath), "delta", buf_data(d),
	    buf_len(d));
	buf_free(d);
	fflush(stdout);
	if (pipe(fds) == -1)
		fatal("pipe");
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		if (dup2(fds[1], STDOUT_FILENO) == -1)
			_exit(127);
		execl(self, "delta-measure", "-a", bpath, dpath, (char *)NULL);
		_exit(127);
	}
	close(fds[1]);
	if ((fp = fdopen(fds[0], "r")) == NULL)
		fatal("fdopen");
	if (fscanf(fp, "%ld", &kb) != 1)
		kb = -1;
	fclose(fp);
	if (waitpid(pid, &status, 0) == -1)
		fatal("waitpid");
	unlink(dpath);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || kb == -1)
		fatalx("delta-measure -a %s %s failed", bpath, dpath);
	return kb;
}

/*
 * Peak RSS of applying at the limit: a basis and a target of
 * DELTA_MAXFILE bytes each, random, the target the basis with changes.
 */
static long
apply_rss_max(const char *self)
{
	unsigned char	*b, *t;
	char		 bpath[PATH_MAX], tpath[PATH_MAX];
	size_t		 n = (size_t)DELTA_MAXFILE, i;
	uint64_t	 x = 88172645463325252ULL;
	long		 rss;
	int		 level = M->level;

	b = xmalloc(n);
	t = xmalloc(n);
	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b[i] = t[i] = (unsigned char)x;
		if (i % 4096 == 0)
			t[i] ^= 0xff;
	}
	tmpfile_with(bpath, sizeof(bpath), "basis", b, n);
	tmpfile_with(tpath, sizeof(tpath), "target", t, n);
	free(b);
	free(t);
	M->level = 3;			/* memory does not depend on it */
	rss = apply_rss(self, bpath, tpath);
	M->level = level;
	unlink(bpath);
	unlink(tpath);
	return rss;
}

int
main(int argc, char *argv[])
{
	struct measure	 m;
	const char	*self = "/proc/self/exe";	/* even if relinked */
	char		 bpath[PATH_MAX];
	const char	*errstr;
	struct cerr	 err;
	long		 rss, base, max;
	int		 ch, i, applyonly = 0;

	log_init("delta-measure", LOG_TO_STDERR | LOG_PREFIX, 0);
	log_setfatalstatus(2);
	memset(&m, 0, sizeof(m));
	M = &m;
	m.digest = "sha1";
	m.level = DELTA_LEVEL;
	while ((ch = getopt(argc, argv, "ac:l:vV")) != -1) {
		switch (ch) {
		case 'a':
			applyonly = 1;
			break;
		case 'c':
			if (cksum_check(optarg, &err) == -1) {
				log_warnx("%s", err.msg);
				usage();
			}
			m.digest = optarg;
			break;
		case 'l':
			m.level = (int)strtonum(optarg, 1, 22, &errstr);
			if (errstr != NULL) {
				log_warnx("-l %s: level is %s (1 to 22)",
				    optarg, errstr);
				usage();
			}
			break;
		case 'v':
			m.verbose = 1;
			break;
		case 'V':
			version_print(0);
			return 0;
		default:
			usage();
		}
	}
	argc -= optind;
	argv += optind;
	if (argc != 2)
		usage();
	if (applyonly)
		return apply_only(argv[0], argv[1]);
	m.old = argv[0];
	m.new = argv[1];
	if ((m.devnull = open("/dev/null", O_WRONLY | O_CLOEXEC)) == -1)
		fatal("/dev/null");

	if (nftw(m.new, visit, 32, FTW_PHYS) == -1)
		fatal("%s", m.new);

	printf("delta-measure: %s against %s, zstd level %d, basis digest "
	    "%s\n", m.new, m.old, m.level, m.digest);
	printf("files in NEW                 %10llu\n",
	    (unsigned long long)m.files);
	printf("  unchanged                  %10llu\n",
	    (unsigned long long)m.unchanged);
	printf("  changed, with a basis      %10llu (%llu found by the "
	    "version rule)\n", (unsigned long long)m.changed,
	    (unsigned long long)m.moved);
	printf("  over DELTA_MAXFILE         %10llu\n",
	    (unsigned long long)m.over);
	printf("  new, no basis              %10llu (%llu bytes, %llu at "
	    "zlib-6)\n", (unsigned long long)m.nobasis,
	    (unsigned long long)m.newraw, (unsigned long long)m.newzlib6);
	printf("changed files, raw bytes     %10llu\n",
	    (unsigned long long)m.raw);
	printf("  zlib level 6, whole files  %10llu (%.1f%% of raw)\n",
	    (unsigned long long)m.zlib6,
	    m.raw > 0 ? 100.0 * (double)m.zlib6 / (double)m.raw : 0.0);
	printf("  deltas                     %10llu (%.1f%% of raw, %.1f%% "
	    "of zlib-6)\n", (unsigned long long)m.delta,
	    m.raw > 0 ? 100.0 * (double)m.delta / (double)m.raw : 0.0,
	    m.zlib6 > 0 ? 100.0 * (double)m.delta / (double)m.zlib6 : 0.0);
	printf("  delta build CPU            %10.2f s (%.1f MB/s)\n",
	    m.tmake, m.tmake > 0 ? (double)m.raw / 1e6 / m.tmake : 0.0);
	printf("  delta apply CPU            %10.2f s (%.1f MB/s)\n",
	    m.tapply, m.tapply > 0 ? (double)m.raw / 1e6 / m.tapply : 0.0);

	/* the program alone: an empty target against an empty basis */
	tmpfile_with(bpath, sizeof(bpath), "empty", "", 0);
	base = apply_rss(self, bpath, bpath);
	unlink(bpath);
	printf("apply peak RSS (delta-measure -a, a process of its own; "
	    "the program alone %.1f MiB):\n", (double)base * 1024 / MIB);
	for (i = 0; i < MEASURE_RSSRUNS && m.big[i].size > 0; i++) {
		rss = apply_rss(self, m.big[i].basis, m.big[i].target);
		printf("  %.1f MiB (+%.1f) for %s (%.1f MiB)\n",
		    (double)rss * 1024 / MIB,
		    (double)(rss - base) * 1024 / MIB,
		    m.big[i].target + strlen(m.new),
		    (double)m.big[i].size / MIB);
	}
	max = apply_rss_max(self);
	printf("  %.1f MiB (+%.1f) for a basis and target of DELTA_MAXFILE "
	    "(%.0f MiB)\n", (double)max * 1024 / MIB,
	    (double)(max - base) * 1024 / MIB, (double)DELTA_MAXFILE / MIB);
	if (m.wrong > 0) {
		log_warnx("%llu deltas did not give their file back",
		    (unsigned long long)m.wrong);
		return 1;
	}
	return 0;
}
