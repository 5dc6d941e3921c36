/*
 * lcksum: verify, and by default correct, the sizes and checksums that
 * server-side transcripts record for their stored files (lcksum(1)).
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "cksum.h"
#include "encode.h"
#include "pathcmp.h"
#include "transcript.h"
#include "troot.h"
#include "version.h"
#include "xmalloc.h"

#define LCK_OK		0	/* verified, nothing changed */
#define LCK_CHANGED	1	/* updated, or differences found with -n */
#define LCK_ERROR	2

#define PROGRESSUNIT	1024	/* progress weight of one transcript line */
#define AS_HEADERLEN	26	/* AppleSingle header (docs/formats.md 8) */
#define AS_ENTRYLEN	12

struct lck {
	struct cksum	*ck;
	int		 update;	/* not -n */
	int		 checkall;	/* -a */
	int		 verbose;	/* not -q */
	int		 icase;		/* -I */
	int		 progress;	/* -% */
	int		 checkapple;	/* -A */
	const char	*prefix;	/* -P */
	const char	*radmind_dir;	/* -D */
	/* progress state for the current transcript */
	int64_t		 ptotal;
	int64_t		 pdone;
	int		 plast;
};

/* Temporary transcript to remove if we die. */
static char	*lck_tmp;

static void __attribute__((noreturn))
die(void)
{
	if (lck_tmp != NULL)
		unlink(lck_tmp);
	exit(LCK_ERROR);
}

static void
usage(void)
{
	fprintf(stderr, "usage: lcksum [ -%%AiIqV ] [ -D path ] [ -n [ -a ] ] "
	    "[ -P prefix ] -c checksum transcript ...\n");
	exit(LCK_ERROR);
}

/* Split s in place on spaces and tabs; returns the token count. */
static int
split(char *s, char **tok, int max)
{
	int	n = 0;

	for (;;) {
		while (*s == ' ' || *s == '\t')
			s++;
		if (*s == '\0')
			return n;
		if (n == max)
			return max + 1;
		tok[n++] = s;
		while (*s != '\0' && *s != ' ' && *s != '\t')
			s++;
		if (*s != '\0')
			*s++ = '\0';
	}
}

/* Progress line "%NN path" each time the integer percentage grows. */
static void
progress(struct lck *l, int64_t bytes, const char *path)
{
	int	pct;

	if (!l->progress)
		return;
	l->pdone += bytes;
	pct = l->ptotal > 0 ? (int)(l->pdone * 100 / l->ptotal) : 100;
	if (pct > 100)
		pct = 100;
	if (pct > l->plast) {
		printf("%%%.2d %s\n", pct, path);
		l->plast = pct;
	}
}

/*
 * Total progress weight of a transcript: 1024 per line that will be
 * looked at (object lines within the -P prefix) plus the listed size of
 * each file to check.  The real sizes may differ; the last line of a
 * transcript then prints %100.
 */
static int64_t
loadset_size(FILE *fp, const char *prefix)
{
	char		*line = NULL, *tok[10], *dec;
	size_t		 cap = 0;
	int64_t		 total = 0, size;
	int		 n, off, match;

	while (getline(&line, &cap, fp) != -1) {
		line[strcspn(line, "\n")] = '\0';
		if ((n = split(line, tok, 9)) == 0 || tok[0][0] == '#')
			continue;
		for (off = 0; off < 2 && off < n &&
		    (strcmp(tok[off], "-") == 0 || strcmp(tok[off], "+") == 0);
		    off++)
			;
		if (n > 9 || n - off < 2)
			continue;	/* an error line: no progress */
		if (prefix != NULL) {
			if (decode_path(tok[off + 1], &dec) == -1)
				continue;
			match = strncmp(dec, prefix, strlen(prefix)) == 0;
			free(dec);
			if (!match)
				continue;
		}
		total += PROGRESSUNIT;
		if (off == 0 && n == 8 && (tok[0][0] == 'f' ||
		    tok[0][0] == 'a') && tok[0][1] == '\0' &&
		    (size = strtoll(tok[6], NULL, 10)) > 0)
			total += size;
	}
	free(line);
	rewind(fp);
	return total;
}

static int
get32(const unsigned char *p, uint32_t *v)
{
	*v = (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
	return 0;
}

/*
 * Check the AppleSingle structure of fd (docs/formats.md 8); returns the size
 * its header describes, or -1 (message printed) if it is malformed.
 */
static int64_t
check_applefile(const char *path, int fd)
{
	static const unsigned char magic[AS_HEADERLEN] = {
		0x00, 0x05, 0x16, 0x00, 0x00, 0x02, 0x00, 0x00,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x03 };
	static const uint32_t ids[3] = { 9, 2, 1 };
	unsigned char	 hdr[AS_HEADERLEN + 3 * AS_ENTRYLEN];
	uint32_t	 id, off[3], len[3];
	ssize_t		 r;
	size_t		 got = 0;
	int		 i;

	if (lseek(fd, 0, SEEK_SET) == -1) {
		fprintf(stderr, "%s: lseek failed: %s\n", path,
		    strerror(errno));
		return -1;
	}
	while (got < sizeof(hdr)) {
		r = read(fd, hdr + got, sizeof(hdr) - got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			fprintf(stderr, "%s: read failed: %s\n", path,
			    strerror(errno));
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	if (got != sizeof(hdr) || memcmp(hdr, magic, AS_HEADERLEN) != 0)
		goto invalid;
	for (i = 0; i < 3; i++) {
		get32(hdr + AS_HEADERLEN + i * AS_ENTRYLEN, &id);
		get32(hdr + AS_HEADERLEN + i * AS_ENTRYLEN + 4, &off[i]);
		get32(hdr + AS_HEADERLEN + i * AS_ENTRYLEN + 8, &len[i]);
		if (id != ids[i])
			goto invalid;
	}
	if (off[0] != sizeof(hdr)) {
		fprintf(stderr, "%s: invalid finder info offset\n", path);
		return -1;
	}
	if ((uint64_t)off[1] != (uint64_t)off[0] + len[0]) {
		fprintf(stderr, "%s: incorrect rsrc fork offset\n", path);
		return -1;
	}
	if ((uint64_t)off[2] != (uint64_t)off[1] + len[1]) {
		fprintf(stderr, "%s: incorrect data fork offset\n", path);
		return -1;
	}
	return (int64_t)sizeof(hdr) + len[0] + len[1] + len[2];
invalid:
	fprintf(stderr, "%s: invalid applesingle header\n", path);
	return -1;
}

/*
 * Check one transcript.  Returns LCK_OK or LCK_CHANGED; fatal errors
 * exit with LCK_ERROR.
 */
static int
do_lcksum(struct lck *l, const char *tpath)
{
	struct troot	 tr;
	struct tline	 t;
	struct cerr	 err;
	struct stat	 st, fst;
	FILE		*fp, *ufp = NULL;
	char		*line = NULL, *copy, *tok[9], *file, *prev = NULL;
	char		 sum[CKSUM_B64MAX];
	size_t		 cap = 0;
	int64_t		 size;
	unsigned	 lineno = 0;
	int		 fd, ufd, updateline, ucount = 0, exitval = 0;
	int		 prefixfound = 0, rc;

	memset(&t, 0, sizeof(t));
	if (troot_get(l->radmind_dir, tpath, &tr, &err) == -1) {
		fprintf(stderr, "%s\n", err.msg);
		die();
	}
	if (stat(tpath, &st) == -1) {
		fprintf(stderr, "%s: %s\n", tpath, strerror(errno));
		die();
	}
	if (!S_ISREG(st.st_mode)) {
		fprintf(stderr, "%s: not a regular file\n", tpath);
		die();
	}
	if (access(tpath, l->update ? R_OK | W_OK : R_OK) == -1 ||
	    (fp = fopen(tpath, "r")) == NULL) {
		fprintf(stderr, "%s: %s\n", tpath, strerror(errno));
		die();
	}
	if (l->update) {
		xasprintf(&lck_tmp, "%s.%d", tpath, (int)getpid());
		if ((ufd = open(lck_tmp, O_WRONLY | O_CREAT | O_EXCL,
		    st.st_mode & 07777)) == -1) {
			fprintf(stderr, "%s: %s\n", lck_tmp, strerror(errno));
			free(lck_tmp);
			lck_tmp = NULL;
			die();
		}
		if (fchmod(ufd, st.st_mode & 07777) == -1 ||
		    (ufp = fdopen(ufd, "w")) == NULL) {
			fprintf(stderr, "%s: %s\n", lck_tmp, strerror(errno));
			die();
		}
	}
	if (l->progress) {
		l->ptotal = loadset_size(fp, l->prefix);
		l->pdone = 0;
		l->plast = -1;
	}

	while ((rc = tline_getline(fp, &line, &cap, tpath, lineno + 1,
	    &err)) != 0) {
		lineno++;
		updateline = 0;
		copy = NULL;
		if (rc == -1) {
			fprintf(stderr, "%s\n", err.msg);
			if (ferror(fp))
				die();
			goto badline;
		}
		rc = tline_parse(&t, line, tpath, lineno, 0, &err);
		if (rc == -1) {
			fprintf(stderr, "%s\n", err.msg);
			goto badline;
		}
		if (rc == 0)
			goto copyline;
		if (l->prefix != NULL) {
			if (strncmp(t.path, l->prefix, strlen(l->prefix)) != 0)
				goto copyline;
			prefixfound = 1;
		}
		if (prev != NULL && pathcmp(t.path, prev, l->icase) <= 0) {
			fprintf(stderr, "%s: line %u: bad sort order\n", tpath,
			    lineno);
			die();
		}
		free(prev);
		prev = xstrdup(t.path);
		/* Plus lines are applicable-transcript lines: left alone. */
		if ((t.type != 'f' && t.type != 'a') || t.minus || t.plus) {
			progress(l, PROGRESSUNIT, t.path);
			goto copyline;
		}
		if (path_has_dotdot(t.path)) {
			fprintf(stderr, "line %u: %s: path contains \"..\"\n",
			    lineno, t.path);
			goto badline;
		}
		xasprintf(&file, "%s/%s/%s", tr.file_root, tr.tran_name,
		    t.path);
		if ((fd = open(file, O_RDONLY)) == -1) {
			fprintf(stderr, "line %u: open %s: %s\n", lineno,
			    t.path, strerror(errno));
			free(file);
			goto badline;
		}
		if (fstat(fd, &fst) == -1 ||
		    cksum_fd(l->ck, fd, sum, &size) == -1) {
			fprintf(stderr, "line %u: %s: %s\n", lineno, file,
			    strerror(errno));
			close(fd);
			free(file);
			goto badline;
		}
		if (size != t.size) {
			if (!l->update) {
				if (l->verbose)
					printf("line %u: %s: size wrong\n",
					    lineno, t.path);
				exitval = 1;
			} else {
				ucount++;
				if (l->verbose)
					printf("%s: size updated\n", t.path);
			}
			updateline = 1;
		}
		if (strcmp(sum, t.cksum) != 0) {
			if (!l->update) {
				if (l->verbose)
					printf("line %u: %s: checksum wrong\n",
					    lineno, t.path);
				exitval = 1;
			} else {
				ucount++;
				if (l->verbose)
					printf("%s: checksum updated\n",
					    t.path);
			}
			updateline = 1;
		}
		if (t.type == 'a' && l->checkapple &&
		    check_applefile(file, fd) != size) {
			fprintf(stderr, "%s: corrupted applefile\n", file);
			close(fd);
			free(file);
			goto badline;
		}
		close(fd);
		free(file);
		progress(l, size + PROGRESSUNIT, t.path);

		if (updateline && l->update) {
			/* lcksum's own layout (docs/formats.md 1.2). */
			copy = xstrdup(line);
			split(copy, tok, 8);
			if (strcmp(tok[7], "-") != 0)
				fprintf(ufp, "%s %-37s %4s %5s %5s %9lld %7lld "
				    "%s\n", tok[0], tok[1], tok[2], tok[3],
				    tok[4], (long long)fst.st_mtime,
				    (long long)size, sum);
			else
				fprintf(ufp, "%s %-37s %4s %5s %5s %9s %7lld "
				    "%s\n", tok[0], tok[1], tok[2], tok[3],
				    tok[4], tok[5], (long long)size, sum);
			free(copy);
			continue;
		}
	copyline:
		if (l->update)
			fprintf(ufp, "%s\n", line);
		continue;
	badline:
		exitval = 1;
		if (!l->checkall)
			die();
	}
	if (l->progress && l->plast < 100) {
		/* real sizes differed from the listed ones: finish anyway */
		l->pdone = l->ptotal;
		progress(l, 0, prev != NULL ? prev : "");
	}
	fclose(fp);
	free(line);
	free(prev);
	tline_clear(&t);

	if (!prefixfound && l->prefix != NULL && l->verbose)
		printf("warning: prefix \"%s\" not found\n", l->prefix);

	if (l->update) {
		if (fflush(ufp) == EOF || ferror(ufp) || fsync(fileno(ufp)) ||
		    fclose(ufp) == EOF) {
			fprintf(stderr, "%s: %s\n", lck_tmp, strerror(errno));
			die();
		}
		if (ucount) {
			if (rename(lck_tmp, tpath) == -1) {
				fprintf(stderr, "rename %s to %s failed: %s\n",
				    lck_tmp, tpath, strerror(errno));
				die();
			}
			rc = LCK_CHANGED;
		} else {
			if (unlink(lck_tmp) == -1) {
				fprintf(stderr, "%s: %s\n", lck_tmp,
				    strerror(errno));
				die();
			}
			rc = LCK_OK;
		}
		free(lck_tmp);
		lck_tmp = NULL;
		if (l->verbose)
			printf("%s: %s\n", tr.tran_name,
			    rc == LCK_CHANGED ? "updated" : "verified");
	} else {
		rc = exitval ? LCK_CHANGED : LCK_OK;
		if (l->verbose)
			printf("%s: %s\n", tr.tran_name,
			    rc == LCK_CHANGED ? "incorrect" : "verified");
	}
	troot_clear(&tr);
	return rc;
}

int
main(int argc, char *argv[])
{
	struct lck	 l;
	const char	*digest = NULL;
	int		 c, err = 0, rc = LCK_OK;

	memset(&l, 0, sizeof(l));
	l.update = 1;
	l.verbose = 1;
	l.radmind_dir = _RADMIND_PATH;
	while ((c = getopt(argc, argv, "%Aac:D:iInP:qV")) != -1) {
		switch (c) {
		case '%':
			l.progress = 1;
			break;
		case 'A':
			l.checkapple = 1;
			break;
		case 'a':
			l.checkall = 1;
			break;
		case 'c':
			if ((l.ck = cksum_new(optarg)) == NULL) {
				fprintf(stderr, "%s: unsupported checksum\n",
				    optarg);
				exit(LCK_ERROR);
			}
			digest = optarg;
			break;
		case 'D':
			l.radmind_dir = optarg;
			break;
		case 'i':
			setvbuf(stdout, NULL, _IOLBF, 0);
			break;
		case 'I':
			l.icase = 1;
			break;
		case 'n':
			l.update = 0;
			break;
		case 'P':
			l.prefix = optarg;
			break;
		case 'q':
			l.verbose = 0;
			break;
		case 'V':
			version_print(1);
			exit(0);
		default:
			err++;
			break;
		}
	}
	if (digest == NULL || (l.checkall && l.update) || optind == argc)
		err++;
	if (err)
		usage();

	for (; optind < argc; optind++) {
		if (do_lcksum(&l, argv[optind]) == LCK_CHANGED) {
			rc = LCK_CHANGED;
			if (!l.update)
				exit(rc);
		}
	}
	cksum_free(l.ck);
	exit(rc);
}
