/*
 * stor.c: STOR uploads (docs/protocol.md section 5.6).  Everything lands
 * below tmp/, created exclusively, reached one component at a time
 * without following symlinks.  An upload larger than -M, or one that
 * would leave less than -N free on the file system, is refused before
 * its data is accepted; a file whose upload fails is removed, and so is
 * the whole upload of a session that does not end with QUIT.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include <dirent.h>
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
#include "compat.h"
#include "conn.h"
#include "encode.h"
#include "confine.h"
#include "fsutil.h"
#include "log.h"
#include "proto.h"
#include "server.h"
#include "transcript.h"
#include "xmalloc.h"

#define STOR_CHUNK	(256 * 1024)

/* Make a missing directory of an upload path (confine_parent). */
static int
stor_mkdir(void *ctx, int pfd, const char *name, const char *rel, size_t len)
{
	(void)rel;
	(void)len;
	return mkdirat(pfd, name, *(mode_t *)ctx);
}

/*
 * Open the directory holding the last component of rel (relative to
 * rootfd, confined), creating missing directories when mkparents is set.
 * *leaf points into rel at the last component.  Returns a directory fd
 * or -1.
 */
static int
stor_parent(int rootfd, const char *rel, int mkparents, mode_t mode,
    const char **leaf)
{
	size_t	 bad;
	int	 fd;

	fd = confine_parent(rootfd, rel, mkparents ? stor_mkdir : NULL, &mode,
	    leaf, &bad);
	if (fd != -1 && **leaf == '\0') {
		close(fd);
		errno = EACCES;
		return -1;
	}
	return fd;
}

/*
 * Set (name) or clear (NULL) the marker tmp/.stor.<pid>, a symbolic link
 * to the name of the upload session pid is making.  Should the session
 * be killed before it can remove an incomplete upload, the daemon does
 * when it reaps the session (stor_reap).
 */
static void
stor_mark(int rootfd, pid_t pid, const char *name)
{
	char		 rel[64];
	const char	*leaf;
	int		 dfd;

	snprintf(rel, sizeof(rel), "tmp/.stor.%ld", (long)pid);
	if ((dfd = stor_parent(rootfd, rel, 0, 0, &leaf)) == -1) {
		log_warn("%s", rel);
		return;
	}
	if ((unlinkat(dfd, leaf, 0) == -1 && errno != ENOENT) ||
	    (name != NULL && symlinkat(name, dfd, leaf) == -1))
		log_warn("%s", rel);
	close(dfd);
}

/*
 * Reply and end the session.  The session's upload is removed first, so
 * a client that sees the refusal finds nothing of it left.
 */
static int
stor_fatal(struct sess *s, int code, const char *msg)
{
	s->status = 1;
	stor_finish(s);
	sess_reply(s, code, "%s", msg);
	s->close = 1;
	return SESS_CLOSE;
}

/*
 * May an upload of size bytes go to the file system of fd?  Returns 0,
 * or -1 with errno EFBIG (over -M) or ENOSPC (it would leave less than
 * -N free), after logging why.
 */
static int
stor_room(struct sess *s, int fd, int64_t size, const char *upload)
{
	struct statvfs	 sv;
	uint64_t	 avail;

	if (s->opts->maxupload > 0 && size > s->opts->maxupload) {
		sess_log(s, LOG_NOTICE, "STOR %s: %lld bytes refused, limit "
		    "%lld (-M)", upload, (long long)size,
		    (long long)s->opts->maxupload);
		errno = EFBIG;
		return -1;
	}
	if (fstatvfs(fd, &sv) == -1) {
		log_warn("%s: fstatvfs", upload);
		return -1;
	}
	avail = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	if ((uint64_t)size > avail ||
	    avail - (uint64_t)size < (uint64_t)s->opts->minfree) {
		sess_log(s, LOG_NOTICE, "STOR %s: %lld bytes refused, %llu "
		    "bytes free, floor %lld (-N)", upload,
		    (long long)size, (unsigned long long)avail,
		    (long long)s->opts->minfree);
		errno = ENOSPC;
		return -1;
	}
	return 0;
}

/*
 * Receive "<size>" CRLF, size bytes, "." CRLF into fd.  Returns 0, or -1
 * after the reply that ends the session.
 */
static int
stor_body(struct sess *s, int fd, int dfd, const char *leaf,
    const char *upload)
{
	struct cerr	 err;
	char		*line, *chunk, msg[PATH_MAX + 128];
	int64_t		 size, left;
	ssize_t		 n;
	size_t		 want;

	if (conn_getline(s->conn, &line, &err) == -1) {
		log_warnx("%s", err.msg);
		goto bad;
	}
	if (proto_parse_size(line, &size) == -1) {
		sess_log(s, LOG_ERR, "STOR %s: bad size line", upload);
		goto bad;
	}
	if (stor_room(s, fd, size, upload) == -1) {
		unlinkat(dfd, leaf, 0);
		snprintf(msg, sizeof(msg), "%s: %s", upload, strerror(errno));
		stor_fatal(s, RAP_STOR_DATA, msg);
		return -1;
	}
	chunk = xmalloc(STOR_CHUNK);
	for (left = size; left > 0; left -= n) {
		want = left > STOR_CHUNK ? STOR_CHUNK : (size_t)left;
		if ((n = conn_read(s->conn, chunk, want, &err)) == -1) {
			log_warnx("%s", err.msg);
			free(chunk);
			goto bad;
		}
		if (write(fd, chunk, (size_t)n) != n) {
			log_warn("%s", upload);
			free(chunk);
			unlinkat(dfd, leaf, 0);
			snprintf(msg, sizeof(msg), "%s: %s", upload,
			    strerror(errno ? errno : ENOSPC));
			stor_fatal(s, RAP_STOR_DATA, msg);
			return -1;
		}
	}
	free(chunk);
	if (conn_getline(s->conn, &line, &err) == -1 || strcmp(line, ".") != 0)
		goto bad;
	return 0;
bad:
	unlinkat(dfd, leaf, 0);
	snprintf(msg, sizeof(msg), "Length doesn't match sent data %s", upload);
	stor_fatal(s, RAP_STOR_DATA, msg);
	return -1;
}

int
cmd_stor(struct sess *s, int ac, char **av)
{
	struct cerr	 err;
	char		 rel[PATH_MAX], up[PATH_MAX], msg[2 * PATH_MAX];
	char		*name = NULL, *path = NULL;
	const char	*leaf;
	int		 dfd, fd, n, r = SESS_CLOSE, istran;

	if (ac < 2)
		return stor_fatal(s, RAP_STOR_SYNTAX, "STOR Syntax error");
	istran = strcasecmp(av[1], "TRANSCRIPT") == 0;
	if (!(istran && ac == 3) &&
	    !(strcasecmp(av[1], "FILE") == 0 && ac == 4))
		return stor_fatal(s, RAP_STOR_SYNTAX, "STOR Syntax error");
	if (strstr(av[2], "../") != NULL || decode_path(av[2], &name) == -1 ||
	    name[0] == '\0' || path_has_dotdot(name) ||
	    strchr(name, '\n') != NULL)
		goto syntax;
	if (!istran) {
		if (strncmp(av[3], "../", 3) == 0 ||
		    strstr(av[3], "/../") != NULL ||
		    decode_path(av[3], &path) == -1 || path[0] == '\0')
			goto syntax;
		if (path_has_dotdot(path))
			goto syntax;
	}

	if (istran) {
		/* A new transcript: the previous upload is complete. */
		free(s->storname);
		s->storname = NULL;
		s->stormade = 0;
		stor_mark(s->opts->rootfd, getpid(), NULL);
		n = snprintf(rel, sizeof(rel), "tmp/file/%s", name);
		if (n < 0 || (size_t)n >= sizeof(rel))
			goto syntax;
		if ((dfd = stor_parent(s->opts->rootfd, rel, 0, 0, &leaf))
		    == -1 || mkdirat(dfd, leaf, 0777) == -1) {
			if (errno == EEXIST)
				r = stor_fatal(s, RAP_STOR_FAIL,
				    "Transcript exists");
			else {
				sess_logsafe(up, sizeof(up), rel);
				snprintf(msg, sizeof(msg), "%s: %s", up,
				    strerror(errno));
				r = stor_fatal(s, RAP_STOR_FAIL, msg);
			}
			if (dfd != -1)
				close(dfd);
			goto out;
		}
		close(dfd);
		stor_mark(s->opts->rootfd, getpid(), name);
		s->storname = xstrdup(name);
		s->stormade = STOR_MADE_DIR;
		free(s->stortran);
		s->stortran = xstrdup(av[2]);
		n = snprintf(rel, sizeof(rel), "tmp/transcript/%s", name);
	} else {
		if (s->stortran == NULL || strcmp(s->stortran, av[2]) != 0) {
			snprintf(msg, sizeof(msg), "Incorrect Transcript %s",
			    av[2]);
			r = stor_fatal(s, RAP_STOR_TRAN, msg);
			goto out;
		}
		n = snprintf(rel, sizeof(rel), "tmp/file/%s%s%s", name,
		    path[0] == '/' ? "" : "/", path);
	}
	if (n < 0 || (size_t)n >= sizeof(rel))
		goto syntax;
	sess_logsafe(up, sizeof(up), rel);
	if ((dfd = stor_parent(s->opts->rootfd, rel, 1, 0777 & ~s->opts->umask,
	    &leaf)) == -1) {
		snprintf(msg, sizeof(msg), "%s: %s", up, strerror(errno));
		r = stor_fatal(s, RAP_STOR_DATA, msg);
		goto out;
	}
	fd = openat(dfd, leaf, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
	    O_CLOEXEC, 0666 & ~s->opts->umask);
	if (fd == -1) {
		snprintf(msg, sizeof(msg), "%s: %s", up, strerror(errno));
		r = stor_fatal(s, RAP_STOR_DATA, msg);
		close(dfd);
		goto out;
	}
	if (istran)
		s->stormade |= STOR_MADE_TRAN;
	if (sess_reply(s, RAP_STOR_GO, "Storing file") == SESS_CLOSE ||
	    stor_body(s, fd, dfd, leaf, up) == -1) {
		close(fd);
		close(dfd);
		goto out;
	}
	if (close(fd) == -1) {
		unlinkat(dfd, leaf, 0);
		snprintf(msg, sizeof(msg), "%s: %s", up, strerror(errno));
		r = stor_fatal(s, RAP_STOR_DATA, msg);
		close(dfd);
		goto out;
	}
	close(dfd);
	sess_log(s, LOG_INFO, "stored %s", up);
	r = sess_reply(s, RAP_STOR_DONE, "File stored");
	/*
	 * Push the replies now instead of when the client's data runs dry: a
	 * pipelining client keeps a window of uploads in flight and waits
	 * for the oldest one's reply, and a reply held back while data is
	 * queued would stall it until everything sent so far was stored,
	 * so that the two sides took turns instead of working together.
	 */
	if (r == SESS_OK && conn_flush(s->conn, &err) == -1) {
		log_warnx("%s", err.msg);
		s->status = 1;
		s->close = 1;
		r = SESS_CLOSE;
	}
	goto out;
syntax:
	r = stor_fatal(s, RAP_STOR_SYNTAX, "STOR Syntax error");
out:
	free(name);
	free(path);
	return r;
}

/* Remove relpath (below the repository), a tree if rmtree is set. */
static int
stor_remove(int rootfd, const char *rel, int rmtree)
{
	const char	*leaf;
	int		 dfd, r;

	if ((dfd = stor_parent(rootfd, rel, 0, 0, &leaf)) == -1)
		return errno == ENOENT ? 0 : -1;
	if (rmtree)
		r = fs_rmtreeat(dfd, leaf);
	else if ((r = unlinkat(dfd, leaf, 0)) == -1 && errno == ENOENT)
		r = 0;
	close(dfd);
	return r;
}

void
stor_finish(struct sess *s)
{
	char	 rel[PATH_MAX], safe[PATH_MAX];
	int	 n;

	if (s->storname == NULL || s->stormade == 0 || s->status == 0)
		goto out;
	sess_logsafe(safe, sizeof(safe), s->storname);
	if (s->stormade & STOR_MADE_TRAN) {
		n = snprintf(rel, sizeof(rel), "tmp/transcript/%s",
		    s->storname);
		if (n > 0 && (size_t)n < sizeof(rel) &&
		    stor_remove(s->opts->rootfd, rel, 0) == -1)
			log_warn("tmp/transcript/%s: removing incomplete upload",
			    safe);
	}
	if (s->stormade & STOR_MADE_DIR) {
		n = snprintf(rel, sizeof(rel), "tmp/file/%s", s->storname);
		if (n > 0 && (size_t)n < sizeof(rel) &&
		    stor_remove(s->opts->rootfd, rel, 1) == -1)
			log_warn("tmp/file/%s: removing incomplete upload",
			    safe);
	}
	sess_log(s, LOG_NOTICE, "upload of %s did not end with QUIT: removed",
	    safe);
out:
	if (s->storname != NULL)
		stor_mark(s->opts->rootfd, getpid(), NULL);
	free(s->storname);
	s->storname = NULL;
	s->stormade = 0;
}

void
stor_reap(int rootfd, pid_t pid)
{
	char		 rel[PATH_MAX], name[PATH_MAX], safe[PATH_MAX];
	const char	*leaf;
	ssize_t		 len;
	int		 dfd, n;

	snprintf(rel, sizeof(rel), "tmp/.stor.%ld", (long)pid);
	if ((dfd = stor_parent(rootfd, rel, 0, 0, &leaf)) == -1)
		return;
	len = readlinkat(dfd, leaf, name, sizeof(name) - 1);
	close(dfd);
	if (len <= 0)
		return;
	name[len] = '\0';
	/* The session checked the name before it made the upload. */
	sess_logsafe(safe, sizeof(safe), name);
	n = snprintf(rel, sizeof(rel), "tmp/transcript/%s", name);
	if (n > 0 && (size_t)n < sizeof(rel) &&
	    stor_remove(rootfd, rel, 0) == -1)
		log_warn("tmp/transcript/%s: removing incomplete upload", safe);
	n = snprintf(rel, sizeof(rel), "tmp/file/%s", name);
	if (n > 0 && (size_t)n < sizeof(rel) &&
	    stor_remove(rootfd, rel, 1) == -1)
		log_warn("tmp/file/%s: removing incomplete upload", safe);
	stor_mark(rootfd, pid, NULL);
	log_notice("upload of %s by session %ld, which did not finish: "
	    "removed", safe, (long)pid);
}
