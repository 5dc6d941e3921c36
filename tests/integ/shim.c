/*
 * shim.c: an LD_PRELOAD fault injector for the integration tests.
 *
 * Wraps libc functions (dlsym(RTLD_NEXT)) and, driven by the
 * environment, perturbs them:
 *
 *	CAIRN_SHIM_CRASH=N	count every mutating file-system call
 *				(open and openat for writing or creating,
 *				unlink, rename, symlink, link, mkdir,
 *				mknod, chown, chmod, utimens, fsync, ...)
 *				over all threads and raise SIGKILL just
 *				before performing the Nth; 0 only counts.
 *	CAIRN_SHIM_COUNT=FILE	write the count so far to FILE after each
 *				counted call and at exit.
 *	CAIRN_SHIM_SHORT=1	read, write, recv, send, readv and writev
 *				transfer at most one byte per call.
 *	CAIRN_SHIM_EINTR=K	every Kth of those calls fails with EINTR
 *				without doing anything; so does every Kth
 *				poll or ppoll.
 *	CAIRN_SHIM_STOP=NAME:N	just before the Nth call of the wrapped
 *	CAIRN_SHIM_RUN=CMD	function NAME, run CMD with /bin/sh -c and
 *				wait for it, then proceed.  NAME "mutate"
 *				stands for the Nth counted mutating call.
 *
 * Everything is thread-safe: counters are updated with atomic builtins.
 * The shim's own I/O goes through syscall(2), never through a wrapper.
 */
#define _GNU_SOURCE
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

static int		 inited;	/* 0 no, 1 busy, 2 done */
static unsigned long	 crash_at;	/* 0: never */
static const char	*countfile;
static int		 shortio;
static unsigned long	 eintr_every;
static char		 stop_name[64];
static unsigned long	 stop_at;
static const char	*stop_cmd;

static unsigned long	 n_mutate;	/* atomic */
static unsigned long	 n_io;		/* atomic */
static unsigned long	 n_poll;	/* atomic */
static unsigned long	 n_stop;	/* atomic: calls of stop_name */

static unsigned long
envnum(const char *name)
{
	const char	*s = getenv(name);

	return s != NULL ? strtoul(s, NULL, 10) : 0;
}

static void
shim_init(void)
{
	const char	*s, *colon;
	size_t		 len;
	int		 expect = 0;

	if (__atomic_load_n(&inited, __ATOMIC_ACQUIRE) == 2)
		return;
	if (!__atomic_compare_exchange_n(&inited, &expect, 1, 0,
	    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		while (__atomic_load_n(&inited, __ATOMIC_ACQUIRE) != 2)
			;
		return;
	}
	crash_at = envnum("CAIRN_SHIM_CRASH");
	countfile = getenv("CAIRN_SHIM_COUNT");
	shortio = envnum("CAIRN_SHIM_SHORT") != 0;
	eintr_every = envnum("CAIRN_SHIM_EINTR");
	stop_cmd = getenv("CAIRN_SHIM_RUN");
	if ((s = getenv("CAIRN_SHIM_STOP")) != NULL &&
	    (colon = strchr(s, ':')) != NULL &&
	    (len = (size_t)(colon - s)) < sizeof(stop_name)) {
		memcpy(stop_name, s, len);
		stop_name[len] = '\0';
		stop_at = strtoul(colon + 1, NULL, 10);
	}
	__atomic_store_n(&inited, 2, __ATOMIC_RELEASE);
}

static void *
real(void **slot, const char *name)
{
	void	*f;

	f = __atomic_load_n(slot, __ATOMIC_ACQUIRE);
	if (f == NULL) {
		f = dlsym(RTLD_NEXT, name);
		if (f == NULL) {
			static const char msg[] = "shim: missing symbol\n";

			(void)syscall(SYS_write, 2, msg, sizeof(msg) - 1);
			abort();
		}
		__atomic_store_n(slot, f, __ATOMIC_RELEASE);
	}
	return f;
}

#define REAL(name)							\
	static void *real_##name##_p;					\
	__typeof__(&name) real_##name =					\
	    (__typeof__(&name))real(&real_##name##_p, #name)

static void
write_count(unsigned long n)
{
	char	buf[32];
	int	fd, len;

	if (countfile == NULL)
		return;
	len = snprintf(buf, sizeof(buf), "%20lu\n", n);
	fd = (int)syscall(SYS_openat, AT_FDCWD, countfile,
	    O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
	if (fd == -1)
		return;
	(void)syscall(SYS_pwrite64, fd, buf, (size_t)len, (off_t)0);
	(void)syscall(SYS_close, fd);
}

__attribute__((destructor)) static void
shim_fini(void)
{
	shim_init();
	write_count(__atomic_load_n(&n_mutate, __ATOMIC_SEQ_CST));
}

/* Run stop_cmd with /bin/sh -c and wait for it. */
static void
run_hook(void)
{
	char	*argv[4], **env;
	size_t	 i, j, n;
	pid_t	 pid;
	int	 st, e = errno;

	if (stop_cmd == NULL)
		return;
	/* The hook runs without the shim. */
	for (n = 0; environ[n] != NULL; n++)
		;
	if ((env = calloc(n + 1, sizeof(*env))) == NULL)
		return;
	for (i = j = 0; i < n; i++)
		if (strncmp(environ[i], "LD_PRELOAD=", 11) != 0 &&
		    strncmp(environ[i], "CAIRN_SHIM_", 11) != 0)
			env[j++] = environ[i];
	argv[0] = (char *)"sh";
	argv[1] = (char *)"-c";
	argv[2] = (char *)stop_cmd;
	argv[3] = NULL;
	pid = fork();
	if (pid == 0) {
		execve("/bin/sh", argv, env);
		_exit(127);
	}
	if (pid > 0)
		while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
			;
	free(env);
	errno = e;
}

/* Called on entry of every wrapper: the STOP hook. */
static void
enter(const char *name)
{
	shim_init();
	if (stop_at == 0 || strcmp(name, stop_name) != 0)
		return;
	if (__atomic_add_fetch(&n_stop, 1, __ATOMIC_SEQ_CST) == stop_at)
		run_hook();
}

/* Before a mutating call: count it, maybe stop or die. */
static void
mutate(void)
{
	unsigned long	n;

	n = __atomic_add_fetch(&n_mutate, 1, __ATOMIC_SEQ_CST);
	if (stop_at != 0 && strcmp(stop_name, "mutate") == 0 && n == stop_at)
		run_hook();
	if (crash_at != 0 && n == crash_at) {
		write_count(n - 1);
		raise(SIGKILL);
	}
}

/* After a mutating call. */
static void
mutated(void)
{
	int	e = errno;

	write_count(__atomic_load_n(&n_mutate, __ATOMIC_SEQ_CST));
	errno = e;
}

/* An I/O call: 1 if it must fail with EINTR now. */
static int
io_eintr(void)
{
	if (eintr_every == 0 ||
	    __atomic_add_fetch(&n_io, 1, __ATOMIC_SEQ_CST) % eintr_every != 0)
		return 0;
	errno = EINTR;
	return 1;
}

static size_t
io_len(size_t len)
{
	return shortio && len > 1 ? 1 : len;
}

static int
write_open(int flags)
{
	return (flags & (O_CREAT | O_TRUNC)) != 0 ||
	    (flags & O_ACCMODE) != O_RDONLY;
}

/* --- open --- */

#define OPENMODE(flags, mode) do {					\
	mode = 0;							\
	if ((flags & O_CREAT) != 0 || (flags & O_TMPFILE) == O_TMPFILE) { \
		va_list	ap;						\
		va_start(ap, flags);					\
		mode = (mode_t)va_arg(ap, int);				\
		va_end(ap);						\
	}								\
} while (0)

#define OPEN_BODY(callreal) do {					\
	int	w = write_open(flags), r;				\
	if (w)								\
		mutate();						\
	r = callreal;							\
	if (w)								\
		mutated();						\
	return r;							\
} while (0)

int
open(const char *path, int flags, ...)
{
	REAL(open);
	mode_t	mode;

	OPENMODE(flags, mode);
	enter("open");
	OPEN_BODY(real_open(path, flags, mode));
}

int
open64(const char *path, int flags, ...)
{
	REAL(open64);
	mode_t	mode;

	OPENMODE(flags, mode);
	enter("open64");
	OPEN_BODY(real_open64(path, flags, mode));
}

int
openat(int dfd, const char *path, int flags, ...)
{
	REAL(openat);
	mode_t	mode;

	OPENMODE(flags, mode);
	enter("openat");
	OPEN_BODY(real_openat(dfd, path, flags, mode));
}

int
openat64(int dfd, const char *path, int flags, ...)
{
	REAL(openat64);
	mode_t	mode;

	OPENMODE(flags, mode);
	enter("openat64");
	OPEN_BODY(real_openat64(dfd, path, flags, mode));
}

/* --- other mutating calls --- */

#define MUT(ret, name, params, args)					\
ret									\
name params								\
{									\
	REAL(name);					\
	ret	r;							\
									\
	enter(#name);							\
	mutate();							\
	r = real_##name args;						\
	mutated();							\
	return r;							\
}

MUT(int, unlink, (const char *a), (a))
MUT(int, unlinkat, (int a, const char *b, int c), (a, b, c))
MUT(int, rename, (const char *a, const char *b), (a, b))
MUT(int, renameat, (int a, const char *b, int c, const char *d),
    (a, b, c, d))
MUT(int, renameat2, (int a, const char *b, int c, const char *d,
    unsigned int e), (a, b, c, d, e))
MUT(int, symlink, (const char *a, const char *b), (a, b))
MUT(int, symlinkat, (const char *a, int b, const char *c), (a, b, c))
MUT(int, link, (const char *a, const char *b), (a, b))
MUT(int, linkat, (int a, const char *b, int c, const char *d, int e),
    (a, b, c, d, e))
MUT(int, mkdir, (const char *a, mode_t b), (a, b))
MUT(int, mkdirat, (int a, const char *b, mode_t c), (a, b, c))
MUT(int, mknod, (const char *a, mode_t b, dev_t c), (a, b, c))
MUT(int, mknodat, (int a, const char *b, mode_t c, dev_t d), (a, b, c, d))
MUT(int, mkfifoat, (int a, const char *b, mode_t c), (a, b, c))
MUT(int, chown, (const char *a, uid_t b, gid_t c), (a, b, c))
MUT(int, fchown, (int a, uid_t b, gid_t c), (a, b, c))
MUT(int, fchownat, (int a, const char *b, uid_t c, gid_t d, int e),
    (a, b, c, d, e))
MUT(int, lchown, (const char *a, uid_t b, gid_t c), (a, b, c))
MUT(int, chmod, (const char *a, mode_t b), (a, b))
MUT(int, fchmod, (int a, mode_t b), (a, b))
MUT(int, fchmodat, (int a, const char *b, mode_t c, int d), (a, b, c, d))
MUT(int, futimens, (int a, const struct timespec b[2]), (a, b))
MUT(int, utimensat, (int a, const char *b, const struct timespec c[2], int d),
    (a, b, c, d))
MUT(int, fsync, (int a), (a))
MUT(int, fdatasync, (int a), (a))

/* --- data transfer --- */

ssize_t
read(int fd, void *buf, size_t len)
{
	REAL(read);

	enter("read");
	if (io_eintr())
		return -1;
	return real_read(fd, buf, io_len(len));
}

ssize_t
write(int fd, const void *buf, size_t len)
{
	REAL(write);

	enter("write");
	if (io_eintr())
		return -1;
	return real_write(fd, buf, io_len(len));
}

ssize_t
recv(int fd, void *buf, size_t len, int flags)
{
	REAL(recv);

	enter("recv");
	if (io_eintr())
		return -1;
	return real_recv(fd, buf, io_len(len), flags);
}

ssize_t
send(int fd, const void *buf, size_t len, int flags)
{
	REAL(send);

	enter("send");
	if (io_eintr())
		return -1;
	return real_send(fd, buf, io_len(len), flags);
}

/* The first non-empty element of iov, cut to one byte. */
static int
iov_short(const struct iovec *iov, int cnt, struct iovec *one)
{
	int	i;

	for (i = 0; i < cnt; i++)
		if (iov[i].iov_len > 0) {
			one->iov_base = iov[i].iov_base;
			one->iov_len = 1;
			return 1;
		}
	return 0;
}

ssize_t
readv(int fd, const struct iovec *iov, int cnt)
{
	REAL(readv);
	struct iovec	one;

	enter("readv");
	if (io_eintr())
		return -1;
	if (shortio && cnt > 0 && iov_short(iov, cnt, &one))
		return real_readv(fd, &one, 1);
	return real_readv(fd, iov, cnt);
}

ssize_t
writev(int fd, const struct iovec *iov, int cnt)
{
	REAL(writev);
	struct iovec	one;

	enter("writev");
	if (io_eintr())
		return -1;
	if (shortio && cnt > 0 && iov_short(iov, cnt, &one))
		return real_writev(fd, &one, 1);
	return real_writev(fd, iov, cnt);
}

/* --- waiting --- */

static int
poll_eintr(void)
{
	if (eintr_every == 0 ||
	    __atomic_add_fetch(&n_poll, 1, __ATOMIC_SEQ_CST) % eintr_every != 0)
		return 0;
	errno = EINTR;
	return 1;
}

int
poll(struct pollfd *fds, nfds_t n, int timeout)
{
	REAL(poll);

	enter("poll");
	if (poll_eintr())
		return -1;
	return real_poll(fds, n, timeout);
}

int
ppoll(struct pollfd *fds, nfds_t n, const struct timespec *ts,
    const sigset_t *mask)
{
	REAL(ppoll);

	enter("ppoll");
	if (poll_eintr())
		return -1;
	return real_ppoll(fds, n, ts, mask);
}
