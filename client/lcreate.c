/*
 * lcreate: upload a transcript and the files it lists to the server's
 * tmp/ area (lcreate(1); docs/protocol.md section 5.6).
 *
 * The transcript is read and every f/a line checked (type, size) before
 * anything is sent, so a bad loadset uploads nothing.  Uploads are then
 * pipelined: requests, sizes and file bodies go out back to back, and the
 * 350/250 replies are collected in order, at most LC_WINDOW uploads
 * behind, so the replies never fill the socket buffers.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
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
#include "copts.h"
#include "intr.h"
#include "log.h"
#include "net.h"
#include "pathcmp.h"
#include "transcript.h"
#include "xmalloc.h"

#define LC_OK		0
#define LC_ERROR	2

#define LC_CHUNK	(1024 * 1024)	/* file read size */
/*
 * Uploads sent ahead of their replies.  Enough for the client to run well
 * ahead through a stretch of small files while the server catches up,
 * and past the replies a server holds for a batch it syncs (cairnd(8));
 * the replies themselves stay small (35 bytes an upload: about 18 KB).
 */
#define LC_WINDOW	512

struct lc {
	struct netopts	 no;
	const char	*tpath;		/* transcript argument */
	const char	*tname;		/* -t, else its last component */
	const char	*digest;	/* -c */
	int		 tonly, negative, nonet, force, quiet, progress;
	int		 dots;		/* -v with stdout a tty */

	struct tline	*items;		/* f/a lines to upload (-N: size 0) */
	size_t		*bases;		/* of each: its trusted prefix */
	size_t		 nitems;

	struct net	*net;
	/* Messages of uploads sent, printed when their 250 arrives. */
	char		**fifo;
	size_t		 fhead, fcount, fcap;

	int64_t		 ptotal, pdone;	/* -% */
	int		 ppct;
	struct cerr	 err;
};

static void
usage(void)
{
	fprintf(stderr, "usage: lcreate [-%%FlnNrTV] [-q | -v | -i] "
	    "[-c checksum] [-t stored-name] [-U user] %s "
	    "create-able-transcript\n", copts_usage());
	exit(LC_ERROR);
}

/* -%: "%NN path" each time the integer percentage grows. */
static void
progress(struct lc *lc, int64_t bytes, const char *path)
{
	int	 pct;

	if (!lc->progress)
		return;
	lc->pdone += bytes;
	if (lc->ptotal <= 0)
		pct = 100;
	else
		pct = (int)(lc->pdone * 100 / lc->ptotal);
	if (pct > 100)
		pct = 100;
	if (pct > lc->ppct) {
		lc->ppct = pct;
		printf("%%%.2d %s\n", pct, path);
	}
}

static void
fifo_push(struct lc *lc, char *msg)
{
	size_t	 i, n;
	char	**v;

	if (lc->fcount == lc->fcap) {
		n = lc->fcap == 0 ? LC_WINDOW + 2 : lc->fcap * 2;
		v = xcalloc(n, sizeof(*v));
		for (i = 0; i < lc->fcount; i++)
			v[i] = lc->fifo[(lc->fhead + i) % lc->fcap];
		free(lc->fifo);
		lc->fifo = v;
		lc->fcap = n;
		lc->fhead = 0;
	}
	lc->fifo[(lc->fhead + lc->fcount) % lc->fcap] = msg;
	lc->fcount++;
}

static char *
fifo_pop(struct lc *lc)
{
	char	*m;

	if (lc->fcount == 0)
		return NULL;
	m = lc->fifo[lc->fhead];
	lc->fhead = (lc->fhead + 1) % lc->fcap;
	lc->fcount--;
	return m;
}

/*
 * Read the replies of the oldest sent upload and print its message.
 * Returns 0, or -1 after printing why (a refusal is the server's line).
 */
static int
reply_one(struct lc *lc)
{
	char	*msg;
	int	 r;

	if ((r = net_stor_reply(lc->net, &lc->err)) != 0) {
		log_warnx("%s", lc->err.msg);
		return -1;
	}
	msg = fifo_pop(lc);
	if (msg != NULL && !lc->quiet && !lc->progress)
		printf("%s\n", msg);
	free(msg);
	return 0;
}

/* Collect the replies of every upload sent completely. */
static int
drain(struct lc *lc)
{
	while (lc->fcount > 0)
		if (reply_one(lc) == -1)
			return -1;
	return 0;
}

/*
 * A send failed: the server probably refused an earlier upload and
 * closed.  Show its refusal if it can still be read, else the error.
 */
static void
send_failed(struct lc *lc)
{
	struct cerr	 saved = lc->err;
	int		 r;

	while (net_stor_pending(lc->net) > 0) {
		if ((r = net_stor_reply(lc->net, &lc->err)) == 1) {
			log_warnx("%s", lc->err.msg);
			return;
		}
		if (r == -1)
			break;
		free(fifo_pop(lc));
	}
	log_warnx("%s", saved.msg);
}

/* Print "line N: ..." (with "warning: " first under -F). */
static void
mismatch(struct lc *lc, unsigned lineno, const char *what)
{
	log_warnx("%sline %u: %s", lc->force ? "warning: " : "", lineno,
	    what);
}

/*
 * Check one f/a line against the file system (lcreate(1): type, size; with
 * -n also readability or, with -c, the digest).  ck: the -c digest, or
 * NULL.  Returns 0 or -1 after printing why.
 */
static int
check_line(struct lc *lc, const struct tline *t, struct cksum *ck)
{
	struct stat	 st;
	char		 sum[CKSUM_B64MAX];
	int64_t		 size;
	int		 fd;

	if (lc->digest != NULL && strcmp(t->cksum, "-") == 0) {
		log_warnx("line %u: No checksum listed", t->lineno);
		return -1;
	}
	if (lc->negative)
		return 0;
	if (lstat(t->path, &st) == -1) {
		log_warn("%s", t->path);
		return -1;
	}
	/* Only Mac OS has applefiles ('a' never matches). */
	if (t->type != 'f' || !S_ISREG(st.st_mode)) {
		log_warnx("line %u: file type wrong", t->lineno);
		return -1;
	}
	/* Under -F the upload warns, with the live size. */
	if (st.st_size != t->size && (lc->nonet || !lc->force)) {
		mismatch(lc, t->lineno, "size in transcript does not match "
		    "size of file");
		if (!lc->force)
			return -1;
	}
	if (lc->nonet && ck != NULL) {
		if ((fd = open(t->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW))
		    == -1 ||
		    (cksum_reset(ck), cksum_fd(ck, fd, sum, &size)) == -1) {
			log_warn("%s", t->path);
			if (fd != -1)
				close(fd);
			return -1;
		}
		close(fd);
		if (strcmp(sum, t->cksum) != 0) {
			mismatch(lc, t->lineno, "checksum listed in "
			    "transcript wrong");
			if (!lc->force)
				return -1;
		}
	} else if (lc->nonet && access(t->path, R_OK) == -1) {
		log_warn("%s", t->path);
		return -1;
	}
	return 0;
}

/*
 * The prefix of the paths below the directory top (a d line of the
 * transcript with no listed directory above it) that is taken as it
 * is: top's parent, or top itself if it is "." or "/".  Below it the
 * transcript lists every directory, so none may be a symbolic link.
 */
static size_t
base_len(const char *top)
{
	const char	*slash;

	if (strcmp(top, ".") == 0 || strcmp(top, "/") == 0)
		return 1;
	slash = strrchr(top, '/');
	return (size_t)(slash - top);		/* 0: "/" */
}

/*
 * Read the whole transcript through the one transcript reader, as
 * lcksum, lapply and cairn-publish read it: every line well formed and
 * of a known type, the paths in sort order (a "name:" header means an
 * applicable transcript).  Unless only the transcript is sent (-T,
 * without -n), check every f/a line and keep them in lc->items.  All of
 * it happens before the first byte goes to the server.  Returns 0 or -1
 * after printing why ("<transcript>: line N: ...").
 */
static int
scan(struct lc *lc)
{
	struct treader		*r;
	const struct tline	*t;
	struct tline		*it;
	struct cksum		*ck = NULL;
	char			*top = NULL;
	int			 rc;

	if ((r = treader_open(lc->tpath, NULL, TR_HEADERS, &lc->err)) ==
	    NULL) {
		log_warnx("%s", lc->err.msg);
		return -1;
	}
	if (lc->digest != NULL)
		ck = cksum_new(lc->digest);
	while ((rc = treader_next(r, &t, &lc->err)) > 0) {
		if (rc == TL_HEADER) {
			log_warnx("Appliable transcripts cannot be uploaded.");
			break;
		}
		/* The outermost directory listed: the walk's root. */
		if (t->type == 'd' && !t->minus && !t->plus && (top == NULL ||
		    !ischildcase(t->path, top, 0))) {
			free(top);
			top = xstrdup(t->path);
		}
		if ((lc->tonly && !lc->nonet) || t->minus || t->plus ||
		    (t->type != 'f' && t->type != 'a'))
			continue;
		if (check_line(lc, t, ck) == -1)
			break;
		lc->items = xreallocarray(lc->items, lc->nitems + 1,
		    sizeof(*lc->items));
		lc->bases = xreallocarray(lc->bases, lc->nitems + 1,
		    sizeof(*lc->bases));
		lc->bases[lc->nitems] = top != NULL &&
		    ischildcase(t->path, top, 0) ? base_len(top) : SIZE_MAX;
		it = &lc->items[lc->nitems++];
		memset(it, 0, sizeof(*it));
		treader_take(r, it);
		if (lc->negative)
			it->size = 0;
		lc->ptotal += it->size;
	}
	/* rc > 0: stopped on a line already reported */
	if (rc == -1)
		log_warnx("%s", lc->err.msg);
	free(top);
	cksum_free(ck);
	treader_close(r);
	return rc == 0 ? 0 : -1;
}

/* An AppleSingle file with empty forks (-N placeholder for 'a' lines). */
static size_t
empty_applefile(unsigned char *p)
{
	static const unsigned char head[] = {
		0x00, 0x05, 0x16, 0x00,		/* magic */
		0x00, 0x02, 0x00, 0x00,		/* version 2 */
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0x00, 0x03,			/* three entries */
		0, 0, 0, 9, 0, 0, 0, 62, 0, 0, 0, 32,	/* finder info */
		0, 0, 0, 2, 0, 0, 0, 94, 0, 0, 0, 0,	/* resource fork */
		0, 0, 0, 1, 0, 0, 0, 94, 0, 0, 0, 0,	/* data fork */
	};

	memset(p, 0, 94);
	memcpy(p, head, sizeof(head));
	memcpy(p + 62 + 4, "RDMD", 4);		/* creator */
	return 94;
}

/*
 * Whether the open file st is the one path names with no symbolic link
 * on the way below its first base bytes (see base_len; SIZE_MAX: no
 * check): a directory the transcript lists, swapped for a link since
 * fsdiff saw it, must not have another file sent in its place.  Returns
 * 0, or -1 with errno (ELOOP: a link on the way; ESTALE: another file
 * is there now).
 */
static int
confined(const char *path, size_t base, const struct stat *st)
{
	struct stat	 cst;
	char		*dir;
	int		 dfd, fd = -1, saved;

	if (base == SIZE_MAX)
		return 0;
	dir = base == 0 ? xstrdup("/") : xstrndup(path, base);
	dfd = openat(AT_FDCWD, dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (dfd == -1)
		return -1;
	if ((fd = confine_open(dfd, path + base, O_PATH, 0)) == -1 ||
	    fstat(fd, &cst) == -1) {
		saved = errno;
		if (fd != -1)
			close(fd);
		close(dfd);
		errno = saved;
		return -1;
	}
	close(fd);
	close(dfd);
	if (cst.st_dev != st->st_dev || cst.st_ino != st->st_ino) {
		errno = ESTALE;
		return -1;
	}
	return 0;
}

/*
 * Send one upload: kind TRANSCRIPT (epath NULL) or FILE (base: see
 * confined).  The size is the open file's (the live file); a difference
 * from want is an error unless -F.  With -c the bytes sent are digested
 * and compared with sum before the final "." goes out, so a mismatch
 * never lands on the server.  Returns 0, or -1 after printing why (the connection is then
 * abandoned mid-upload if need be).
 */
static int
send_file(struct lc *lc, const char *kind, const char *path,
    const char *epath, size_t base, int64_t want, const char *sum,
    unsigned lineno, unsigned char *buf)
{
	struct stat	 st;
	struct cksum	*ck = NULL;
	char		 got[CKSUM_B64MAX];
	int64_t		 left, size;
	ssize_t		 n;
	int		 fd, rc = -1;

	/*
	 * A listed file is opened without following a symbolic link, as
	 * its path or on the way to it: one put in its place since the scan
	 * is refused, not uploaded as the file it points to.  Nor does a
	 * FIFO put there make us wait.
	 */
	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK |
	    (epath != NULL ? O_NOFOLLOW : 0))) == -1 ||
	    fstat(fd, &st) == -1) {
		log_warn("%s", path);
		if (fd != -1)
			close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		log_warnx("%s: not a regular file", path);
		goto out;
	}
	if (epath != NULL && confined(path, base, &st) == -1) {
		if (errno == ESTALE)
			log_warnx("%s: changed while being sent", path);
		else
			log_warn("%s", path);
		goto out;
	}
	size = st.st_size;
	if (want >= 0 && size != want) {
		mismatch(lc, lineno, "size in transcript does not match size "
		    "of file");
		if (!lc->force)
			goto out;
	}
	if (sum != NULL)
		ck = cksum_new(lc->digest);
	if (net_stor_begin(lc->net, kind, lc->tname, epath, size,
	    &lc->err) == -1) {
		send_failed(lc);
		goto out;
	}
	for (left = size; left > 0; left -= n) {
		n = read(fd, buf, left > LC_CHUNK ? LC_CHUNK : (size_t)left);
		if (n == -1 && errno == EINTR) {
			n = 0;
			continue;
		}
		if (n == -1) {
			log_warn("%s", path);
			goto out;
		}
		if (n == 0) {
			log_warnx("%s: file shrank while being sent", path);
			goto out;
		}
		if (ck != NULL)
			cksum_update(ck, buf, (size_t)n);
		if (net_stor_data(lc->net, buf, (size_t)n, &lc->err) == -1) {
			send_failed(lc);
			goto out;
		}
		if (lc->dots) {
			putchar('.');
			fflush(stdout);
		}
		progress(lc, n, path);
	}
	if (ck != NULL) {
		cksum_final(ck, got);
		if (strcmp(got, sum) != 0) {
			mismatch(lc, lineno, "checksum listed in transcript "
			    "wrong");
			if (!lc->force)
				goto out;
		}
	}
	if (net_stor_end(lc->net, &lc->err) == -1) {
		send_failed(lc);
		goto out;
	}
	if (lc->dots)
		putchar('\n');
	rc = 0;
out:
	cksum_free(ck);
	close(fd);
	return rc;
}

/* The zero-length (or empty applefile) upload of -N. */
static int
send_empty(struct lc *lc, const struct tline *it)
{
	unsigned char	 af[94];
	size_t		 len = 0;

	if (it->type == 'a')
		len = empty_applefile(af);
	if (net_stor_begin(lc->net, "FILE", lc->tname, it->epath,
	    (int64_t)len, &lc->err) == -1 ||
	    (len > 0 && net_stor_data(lc->net, af, len, &lc->err) == -1) ||
	    net_stor_end(lc->net, &lc->err) == -1) {
		send_failed(lc);
		return -1;
	}
	return 0;
}

/* After each upload sent: keep at most LC_WINDOW awaiting replies. */
static int
window(struct lc *lc, char *msg)
{
	fifo_push(lc, msg);
	while (lc->fcount > LC_WINDOW)
		if (reply_one(lc) == -1)
			return -1;
	return 0;
}

/*
 * Give up mid-way: collect the replies of the uploads sent completely
 * (their messages are true), then drop the connection without QUIT, so
 * the server discards the upload.
 */
static void
abandon(struct lc *lc)
{
	if (!net_broken(lc->net))
		(void)drain(lc);
	net_abort(lc->net);
	lc->net = NULL;
}

static int
upload(struct lc *lc)
{
	struct stat	 st;
	unsigned char	*buf;
	char		*msg;
	size_t		 i;
	int		 rc = LC_ERROR;

	if (stat(lc->tpath, &st) == -1) {
		log_warn("%s", lc->tpath);
		return LC_ERROR;
	}
	lc->ptotal += st.st_size;
	if ((lc->net = net_open(&lc->no, &lc->err)) == NULL) {
		log_warnx("%s", lc->err.msg);
		return LC_ERROR;
	}
	buf = xmalloc(LC_CHUNK);
	if (send_file(lc, "TRANSCRIPT", lc->tpath, NULL, SIZE_MAX, -1, NULL, 0,
	    buf) == -1)
		goto fail;
	xasprintf(&msg, "%s: stored", lc->tpath);
	if (window(lc, msg) == -1)
		goto fail;
	for (i = 0; !lc->tonly && i < lc->nitems; i++) {
		if (lc->negative) {
			if (send_empty(lc, &lc->items[i]) == -1)
				goto fail;
			xasprintf(&msg, "%s: stored as zero length %s",
			    lc->items[i].path, lc->items[i].type == 'a' ?
			    "applefile" : "file");
		} else {
			if (send_file(lc, "FILE", lc->items[i].path,
			    lc->items[i].epath, lc->bases[i], lc->items[i].size,
			    lc->digest != NULL ? lc->items[i].cksum : NULL,
			    lc->items[i].lineno, buf) == -1)
				goto fail;
			xasprintf(&msg, "%s: stored", lc->items[i].path);
		}
		if (window(lc, msg) == -1)
			goto fail;
	}
	if (drain(lc) == -1)
		goto fail;
	rc = LC_OK;
	if (lc->no.verbose)
		net_print_stats(lc->net, stdout);
	if (net_close(lc->net, &lc->err) == -1) {
		log_warnx("%s", lc->err.msg);
		rc = LC_ERROR;
	}
	lc->net = NULL;
	free(buf);
	return rc;
fail:
	if (lc->dots)
		putchar('\n');
	abandon(lc);
	free(buf);
	return LC_ERROR;
}

static void
lc_free(struct lc *lc)
{
	size_t	 i;

	for (i = 0; i < lc->nitems; i++)
		tline_clear(&lc->items[i]);
	free(lc->items);
	free(lc->bases);
	while (lc->fcount > 0)
		free(fifo_pop(lc));
	free(lc->fifo);
}

static int
tool_opt(int ch, const char *arg, void *ctx)
{
	struct lc	*lc = ctx;

	switch (ch) {
	case '%':
		lc->progress = 1;
		break;
	case 'F':
		lc->force = 1;
		break;
	case 'l':
		fatalx("lcreate: -l: LOGIN not supported (this cairn has no "
		    "PAM login)");
	case 'n':
		lc->nonet = 1;
		break;
	case 'N':
		lc->negative = 1;
		break;
	case 't':
		lc->tname = arg;
		break;
	case 'T':
		lc->tonly = 1;
		break;
	case 'U':
		break;		/* user for -l, which is refused */
	}
	return 0;
}

int
main(int argc, char *argv[])
{
	struct lc	 lc;
	struct copts	 co;
	const char	*slash;
	int		 rc;

	log_init("lcreate", LOG_TO_STDERR, 0);
	log_setfatalstatus(LC_ERROR);
	memset(&lc, 0, sizeof(lc));
	lc.ppct = -1;
	copts_init(&co, COPTS_NET | COPTS_DIGEST | COPTS_LINEBUF | COPTS_QUIET,
	    &lc.no);
	if (copts_parse(argc, argv, &co, "%FlnNt:TU:", tool_opt, &lc) == -1 ||
	    argc - optind != 1)
		usage();
	lc.digest = co.digest;
	lc.quiet = co.quiet;
	if (lc.quiet && lc.progress)
		usage();
	if (lc.progress && lc.no.verbose)
		usage();
	lc.tpath = argv[optind];
	if (lc.tname == NULL) {
		slash = strrchr(lc.tpath, '/');
		lc.tname = slash != NULL ? slash + 1 : lc.tpath;
	}
	if (lc.tname[0] == '\0' || strpbrk(lc.tname, " \t\r\n") != NULL)
		fatalx("%s: invalid transcript name", lc.tname);
	lc.dots = lc.no.verbose && isatty(STDOUT_FILENO);
	/* Interrupted, it dies of the signal (lcreate(1), EXIT STATUS). */
	if (intr_init() == -1)
		fatal("signals");

	if (scan(&lc) == -1)
		rc = LC_ERROR;
	else if (lc.nonet)
		rc = LC_OK;
	else if (signal(SIGPIPE, SIG_IGN) == SIG_ERR) {
		log_warn("signal");
		rc = LC_ERROR;
	} else
		rc = upload(&lc);
	if (fflush(stdout) == EOF)
		rc = LC_ERROR;
	lc_free(&lc);
	intr_exit(rc);
}
