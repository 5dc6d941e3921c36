/*
 * fuzz.h: helpers shared by the libFuzzer targets of tests/fuzz/:
 * invariant checks, a private scratch directory, input split into
 * several files, and a connection fed from a byte string.
 */
#ifndef CAIRN_FUZZ_H
#define CAIRN_FUZZ_H

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int	LLVMFuzzerInitialize(int *, char ***);
int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);

/* An invariant of the code under test: abort (a crash to libFuzzer). */
#define FUZZ_CHECK(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: invariant broken: %s\n",	\
		    __FILE__, __LINE__, #cond);				\
		abort();						\
	}								\
} while (0)

/* Setup failures (no memory, no temp dir): not a finding, but fatal. */
#define FUZZ_SETUP(cond) do {						\
	if (!(cond)) {							\
		fprintf(stderr, "%s:%d: setup failed: %s: %s\n",	\
		    __FILE__, __LINE__, #cond, strerror(errno));	\
		exit(2);						\
	}								\
} while (0)

/* A NUL-terminated, malloc'd copy of the input. */
static inline char *
fuzz_cstr(const uint8_t *data, size_t size)
{
	char	*s;

	FUZZ_SETUP((s = malloc(size + 1)) != NULL);
	if (size > 0)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/*
 * Split the input into at most max parts at each "\n%%\n": a line
 * reading "%%" after the first line separates two parts (the newline
 * before it stays with the part it ends).  Returns the part count.
 */
static inline int
fuzz_parts(const uint8_t *data, size_t size, const uint8_t **part,
    size_t *len, int max)
{
	const uint8_t	*p = data, *end = data + size, *nl;
	int		 n = 0;

	part[0] = p;
	for (;;) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL || n + 1 == max)
			break;
		if (end - nl >= 4 && memcmp(nl + 1, "%%\n", 3) == 0) {
			len[n] = (size_t)(nl + 1 - part[n]);
			part[++n] = nl + 4;
			p = nl + 4;
			continue;
		}
		p = nl + 1;
	}
	len[n] = (size_t)(end - part[n]);
	return n + 1;
}

/*
 * Nonzero if the input could name a file outside the scratch directory:
 * a ".." anywhere, or (abs) a token that starts with '/'.  Such inputs
 * are skipped, so that file names taken from the input (includes) stay
 * inside the scratch directory.
 */
static inline int
fuzz_escapes(const uint8_t *data, size_t size, int abs)
{
	size_t	 i;

	for (i = 0; i < size; i++) {
		if (i + 1 < size && data[i] == '.' && data[i + 1] == '.')
			return 1;
		if (abs && data[i] == '/' && (i == 0 ||
		    strchr(" \t\n\r\v\f", data[i - 1]) != NULL ||
		    data[i - 1] == '\0'))
			return 1;
	}
	return 0;
}

/* Write len bytes to path (created or truncated). */
static inline void
fuzz_writefile(const char *path, const uint8_t *data, size_t len)
{
	int	 fd;

	FUZZ_SETUP((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC |
	    O_CLOEXEC, 0600)) != -1);
	FUZZ_SETUP(len == 0 || write(fd, data, len) == (ssize_t)len);
	FUZZ_SETUP(close(fd) == 0);
}

static char	*fuzz_tmp;

static inline int
fuzz_rm_cb(const char *path, const struct stat *st, int flag,
    struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	return remove(path);
}

static inline void
fuzz_tmpdir_rm(void)
{
	if (fuzz_tmp != NULL)
		(void)nftw(fuzz_tmp, fuzz_rm_cb, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * A private scratch directory for the whole run (made once, removed at
 * exit).  Each input must remove what it wrote, so that no run sees an
 * earlier one's files.
 */
static inline const char *
fuzz_tmpdir(void)
{
	const char	*tmp;

	if (fuzz_tmp != NULL)
		return fuzz_tmp;
	if ((tmp = getenv("TMPDIR")) == NULL || *tmp == '\0')
		tmp = "/tmp";
	FUZZ_SETUP(asprintf(&fuzz_tmp, "%s/cairn-fuzz.XXXXXX", tmp) != -1);
	FUZZ_SETUP(mkdtemp(fuzz_tmp) != NULL);
	atexit(fuzz_tmpdir_rm);
	return fuzz_tmp;
}

/*
 * A socket whose peer has sent the input and closed its sending side:
 * reads see the input, then end of stream.  Returns the reading end;
 * *peer gets the other end (still open for reading what is sent back),
 * or -1 if the caller does not want it (then it is closed).  Input the
 * socket buffer cannot hold is cut off.
 */
static inline int
fuzz_socket(const uint8_t *data, size_t size, int *peer)
{
	int	 sv[2];
	ssize_t	 r;
	size_t	 off = 0;

	FUZZ_SETUP(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0,
	    sv) == 0);
	while (off < size) {
		r = send(sv[1], data + off, size - off, MSG_DONTWAIT |
		    MSG_NOSIGNAL);
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		off += (size_t)r;
	}
	FUZZ_SETUP(shutdown(sv[1], SHUT_WR) == 0);
	if (peer != NULL)
		*peer = sv[1];
	else
		close(sv[1]);
	return sv[0];
}

#endif
