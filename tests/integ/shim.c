/*
 * shim.c: an LD_PRELOAD fault injector for the integration tests.
 *
 * Wraps libc functions (dlsym(RTLD_NEXT)) and, driven by the
 * environment, perturbs them:
 *
 *	CAIRN_SHIM_CRASH=N	count every mutating file-system call
 *				(open and openat for writing or creating,
 *				unlink, rename, symlink, link, mkdir,
 *				mknod, chown, chmod, utimens, fsync,
 *				syncfs, ...)
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
 *	CAIRN_SHIM_STOPPATH=P	with NAME open, openat or their 64
 *				forms, only opens of a path ending in P
 *				count towards N.
 *	CAIRN_SHIM_FAIL=NAME:N:E[:K]  the Nth call of the wrapped
 *				function NAME (fallocate, fork or ppoll),
 *				and the K-1 after it (K 1 if not given),
 *				fail with errno E (a number) without doing
 *				anything.
 *	CAIRN_SHIM_TRACE=FILE	append one line per mutating call to FILE
 *				once it returned (so a call that needs
 *				another first, like a rename after an
 *				fsync, is always the later line):
 *
 *		NAME ARG... = RESULT [errno=N]
 *
 *				Paths are made absolute: a name relative to
 *				a directory descriptor or the working
 *				directory is joined to that directory's
 *				path, a descriptor is shown as the path it
 *				is open on (/proc/self/fd), and so is a
 *				/proc/self/fd/N path.  Bytes up to space,
 *				backslash and from DEL on are written as
 *				\xHH.  Other arguments: uid=N gid=N (-1:
 *				unchanged), mode=0NNN, flags=0xN, dev=N.
 *				Lines are written with one write(2) to an
 *				O_APPEND file, so threads do not mix them.
 *	CAIRN_SHIM_PTR=ADDR=NAME
 *				getnameinfo() asked for the name of the
 *				numeric address ADDR answers NAME, as a PTR
 *				record under someone else's control would;
 *				forward lookups are left alone.
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
#include <netdb.h>
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
static const char	*stop_path;
static char		 fail_name[64];
static unsigned long	 fail_at;
static int		 fail_errno;
static unsigned long	 fail_count;
static unsigned long	 n_fail;	/* atomic: calls of fail_name */
static const char	*tracefile;

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
	stop_path = getenv("CAIRN_SHIM_STOPPATH");
	tracefile = getenv("CAIRN_SHIM_TRACE");
	if ((s = getenv("CAIRN_SHIM_STOP")) != NULL &&
	    (colon = strchr(s, ':')) != NULL &&
	    (len = (size_t)(colon - s)) < sizeof(stop_name)) {
		memcpy(stop_name, s, len);
		stop_name[len] = '\0';
		stop_at = strtoul(colon + 1, NULL, 10);
	}
	if ((s = getenv("CAIRN_SHIM_FAIL")) != NULL &&
	    (colon = strchr(s, ':')) != NULL &&
	    (len = (size_t)(colon - s)) < sizeof(fail_name)) {
		memcpy(fail_name, s, len);
		fail_name[len] = '\0';
		fail_at = strtoul(colon + 1, (char **)&s, 10);
		fail_errno = EIO;
		fail_count = 1;
		if (*s == ':') {
			fail_errno = (int)strtol(s + 1, (char **)&s, 10);
			if (*s == ':')
				fail_count = strtoul(s + 1, NULL, 10);
		}
	}
	/*
	 * CAIRN_SHIM_STOPEXE names the one program the STOP hook is for: a
	 * program it starts (cairn-replicate's cairn-publish) inherits the
	 * environment but is not the one being interrupted.
	 */
	if ((s = getenv("CAIRN_SHIM_STOPEXE")) != NULL &&
	    strcmp(s, program_invocation_short_name) != 0)
		stop_at = 0;
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

/* enter() for an open of path: CAIRN_SHIM_STOPPATH may pass it by. */
static void
enter_open(const char *name, const char *path)
{
	size_t	n, m;

	shim_init();
	if (stop_path != NULL && (path == NULL ||
	    (n = strlen(path)) < (m = strlen(stop_path)) ||
	    strcmp(path + n - m, stop_path) != 0))
		return;
	enter(name);
}

/* Should this call of name fail (CAIRN_SHIM_FAIL)?  Then errno is set. */
static int
failing(const char *name)
{
	unsigned long	n;

	if (fail_at == 0 || strcmp(name, fail_name) != 0)
		return 0;
	n = __atomic_add_fetch(&n_fail, 1, __ATOMIC_SEQ_CST);
	if (n < fail_at || n - fail_at >= fail_count)
		return 0;
	errno = fail_errno;
	return 1;
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

/* --- the trace --- */

#define TRACE_MAX	16384

struct trace {
	char	buf[TRACE_MAX];
	size_t	len;
	int	on;
};

/* Append raw text (cut at the end of the buffer). */
static void
tr_raw(struct trace *tr, const char *s, size_t n)
{
	if (n > sizeof(tr->buf) - 2 - tr->len)	/* room for "\n" */
		n = sizeof(tr->buf) - 2 - tr->len;
	memcpy(tr->buf + tr->len, s, n);
	tr->len += n;
}

static void tr_fmt(struct trace *, const char *, ...)
    __attribute__((format(printf, 2, 3)));

static void
tr_fmt(struct trace *tr, const char *fmt, ...)
{
	va_list	ap;
	char	b[64];
	int	n;

	va_start(ap, fmt);
	n = vsnprintf(b, sizeof(b), fmt, ap);
	va_end(ap);
	if (n > 0)
		tr_raw(tr, b, (size_t)n < sizeof(b) ? (size_t)n : sizeof(b) - 1);
}

/* Append bytes, escaped, without the leading space. */
static void
tr_esc(struct trace *tr, const char *s, size_t n)
{
	unsigned char	c;
	char		b[8];
	size_t		i;

	for (i = 0; i < n; i++) {
		c = (unsigned char)s[i];
		if (c <= ' ' || c == '\\' || c >= 0x7f) {
			snprintf(b, sizeof(b), "\\x%02x", c);
			tr_raw(tr, b, 4);
		} else
			tr_raw(tr, (const char *)&c, 1);
	}
}

static void
tr_str(struct trace *tr, const char *s)
{
	tr_raw(tr, " ", 1);
	if (s == NULL)
		tr_raw(tr, "(null)", 6);
	else
		tr_esc(tr, s, strlen(s));
}

/* The path an open descriptor stands for, in b; its length or -1. */
static long
fdpath(int fd, char *b, size_t len)
{
	char	p[64];

	if (fd == AT_FDCWD)
		return syscall(SYS_getcwd, b, len) > 0 ? (long)strlen(b) : -1;
	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	return syscall(SYS_readlinkat, AT_FDCWD, p, b, len);
}

static void
tr_fd(struct trace *tr, int fd)
{
	char	b[4096];
	long	n;

	if ((n = fdpath(fd, b, sizeof(b))) <= 0) {
		tr_fmt(tr, " fd:%d", fd);
		return;
	}
	tr_raw(tr, " ", 1);
	tr_esc(tr, b, (size_t)n);
}

/* A path relative to dfd, made absolute; "" or NULL is dfd itself. */
static void
tr_at(struct trace *tr, int dfd, const char *path)
{
	char	b[4096];
	long	n;

	if (path == NULL || *path == '\0') {
		tr_fd(tr, dfd);
		return;
	}
	if (strncmp(path, "/proc/self/fd/", 14) == 0 &&
	    (n = syscall(SYS_readlinkat, AT_FDCWD, path, b, sizeof(b))) > 0) {
		tr_raw(tr, " ", 1);
		tr_esc(tr, b, (size_t)n);
		return;
	}
	if (*path == '/') {
		tr_str(tr, path);
		return;
	}
	if ((n = fdpath(dfd, b, sizeof(b))) <= 0) {
		tr_fmt(tr, " fd:%d/", dfd);
		tr_esc(tr, path, strlen(path));
		return;
	}
	tr_raw(tr, " ", 1);
	tr_esc(tr, b, (size_t)n);
	if (n > 1 || b[0] != '/')
		tr_raw(tr, "/", 1);
	tr_esc(tr, path, strlen(path));
}

static void
tr_ids(struct trace *tr, uid_t u, gid_t g)
{
	tr_fmt(tr, " uid=%d gid=%d", (int)u, (int)g);
}

static void
tr_mode(struct trace *tr, mode_t m)
{
	tr_fmt(tr, " mode=0%lo", (unsigned long)m);
}

static void
tr_flags(struct trace *tr, int f)
{
	tr_fmt(tr, " flags=0x%x", (unsigned)f);
}

/* Start a line for call name: nonzero if tracing. */
static int
tr_begin(struct trace *tr, const char *name)
{
	tr->on = tracefile != NULL;
	tr->len = 0;
	if (tr->on)
		tr_raw(tr, name, strlen(name));
	return tr->on;
}

/* The call returned r: finish the line and append it to the file. */
static void
tr_end(struct trace *tr, long r)
{
	int	fd, e = errno;

	if (!tr->on)
		return;
	tr_fmt(tr, " = %ld", r);
	if (r == -1)
		tr_fmt(tr, " errno=%d", e);
	tr->buf[tr->len++] = '\n';
	fd = (int)syscall(SYS_openat, AT_FDCWD, tracefile,
	    O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd != -1) {
		(void)syscall(SYS_write, fd, tr->buf, tr->len);
		(void)syscall(SYS_close, fd);
	}
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

#define OPEN_BODY(name, dfd, callreal) do {				\
	struct trace	tr;						\
	int		w = write_open(flags), r;			\
	if (w) {							\
		if (tr_begin(&tr, name)) {				\
			tr_at(&tr, dfd, path);				\
			tr_flags(&tr, flags);				\
			tr_mode(&tr, mode);				\
		}							\
		mutate();						\
	}								\
	r = callreal;							\
	if (w) {							\
		mutated();						\
		tr_end(&tr, r);						\
	}								\
	return r;							\
} while (0)

int
open(const char *path, int flags, ...)
{
	REAL(open);
	mode_t	mode;

	OPENMODE(flags, mode);
	enter_open("open", path);
	OPEN_BODY("open", AT_FDCWD, real_open(path, flags, mode));
}

int
open64(const char *path, int flags, ...)
{
	REAL(open64);
	mode_t	mode;

	OPENMODE(flags, mode);
	enter_open("open64", path);
	OPEN_BODY("open64", AT_FDCWD, real_open64(path, flags, mode));
}

int
openat(int dfd, const char *path, int flags, ...)
{
	REAL(openat);
	mode_t	mode;

	OPENMODE(flags, mode);
	enter_open("openat", path);
	OPEN_BODY("openat", dfd, real_openat(dfd, path, flags, mode));
}

int
openat64(int dfd, const char *path, int flags, ...)
{
	REAL(openat64);
	mode_t	mode;

	OPENMODE(flags, mode);
	enter_open("openat64", path);
	OPEN_BODY("openat64", dfd, real_openat64(dfd, path, flags, mode));
}

/* --- other mutating calls --- */

#define MUT(ret, name, params, args, targets)				\
ret									\
name params								\
{									\
	REAL(name);							\
	struct trace	tr;						\
	ret		r;						\
									\
	enter(#name);							\
	if (tr_begin(&tr, #name)) {					\
		targets;						\
	}								\
	mutate();							\
	r = real_##name args;						\
	mutated();							\
	tr_end(&tr, (long)r);						\
	return r;							\
}

#define P(d, p)		tr_at(&tr, d, p)
#define FD(f)		tr_fd(&tr, f)

MUT(int, unlink, (const char *a), (a), P(AT_FDCWD, a))
MUT(int, unlinkat, (int a, const char *b, int c), (a, b, c),
    P(a, b); tr_flags(&tr, c))
MUT(int, rename, (const char *a, const char *b), (a, b),
    P(AT_FDCWD, a); P(AT_FDCWD, b))
MUT(int, renameat, (int a, const char *b, int c, const char *d),
    (a, b, c, d), P(a, b); P(c, d))
MUT(int, renameat2, (int a, const char *b, int c, const char *d,
    unsigned int e), (a, b, c, d, e), P(a, b); P(c, d); tr_flags(&tr, (int)e))
MUT(int, symlink, (const char *a, const char *b), (a, b),
    tr_str(&tr, a); P(AT_FDCWD, b))
MUT(int, symlinkat, (const char *a, int b, const char *c), (a, b, c),
    tr_str(&tr, a); P(b, c))
MUT(int, link, (const char *a, const char *b), (a, b),
    P(AT_FDCWD, a); P(AT_FDCWD, b))
MUT(int, linkat, (int a, const char *b, int c, const char *d, int e),
    (a, b, c, d, e), P(a, b); P(c, d); tr_flags(&tr, e))
MUT(int, mkdir, (const char *a, mode_t b), (a, b),
    P(AT_FDCWD, a); tr_mode(&tr, b))
MUT(int, mkdirat, (int a, const char *b, mode_t c), (a, b, c),
    P(a, b); tr_mode(&tr, c))
MUT(int, mknod, (const char *a, mode_t b, dev_t c), (a, b, c),
    P(AT_FDCWD, a); tr_mode(&tr, b); tr_fmt(&tr, " dev=%lu", (unsigned long)c))
MUT(int, mknodat, (int a, const char *b, mode_t c, dev_t d), (a, b, c, d),
    P(a, b); tr_mode(&tr, c); tr_fmt(&tr, " dev=%lu", (unsigned long)d))
MUT(int, mkfifoat, (int a, const char *b, mode_t c), (a, b, c),
    P(a, b); tr_mode(&tr, c))
MUT(int, chown, (const char *a, uid_t b, gid_t c), (a, b, c),
    P(AT_FDCWD, a); tr_ids(&tr, b, c))
MUT(int, fchown, (int a, uid_t b, gid_t c), (a, b, c),
    FD(a); tr_ids(&tr, b, c))
MUT(int, fchownat, (int a, const char *b, uid_t c, gid_t d, int e),
    (a, b, c, d, e), P(a, b); tr_ids(&tr, c, d); tr_flags(&tr, e))
MUT(int, lchown, (const char *a, uid_t b, gid_t c), (a, b, c),
    P(AT_FDCWD, a); tr_ids(&tr, b, c))
MUT(int, chmod, (const char *a, mode_t b), (a, b),
    P(AT_FDCWD, a); tr_mode(&tr, b))
MUT(int, fchmod, (int a, mode_t b), (a, b), FD(a); tr_mode(&tr, b))
MUT(int, fchmodat, (int a, const char *b, mode_t c, int d), (a, b, c, d),
    P(a, b); tr_mode(&tr, c); tr_flags(&tr, d))
MUT(int, futimens, (int a, const struct timespec b[2]), (a, b), FD(a))
MUT(int, utimensat, (int a, const char *b, const struct timespec c[2], int d),
    (a, b, c, d), P(a, b); tr_flags(&tr, d))
MUT(int, fsync, (int a), (a), FD(a))
MUT(int, fdatasync, (int a), (a), FD(a))
MUT(int, syncfs, (int a), (a), FD(a))

#undef P
#undef FD

/* --- space --- */

int
fallocate(int fd, int mode, off_t off, off_t len)
{
	REAL(fallocate);

	enter("fallocate");
	if (failing("fallocate"))
		return -1;
	return real_fallocate(fd, mode, off, len);
}

int
fallocate64(int fd, int mode, off64_t off, off64_t len)
{
	REAL(fallocate64);

	enter("fallocate");
	if (failing("fallocate"))
		return -1;
	return real_fallocate64(fd, mode, off, len);
}

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
	if (poll_eintr() || failing("ppoll"))
		return -1;
	return real_ppoll(fds, n, ts, mask);
}

/* --- processes --- */

pid_t
fork(void)
{
	REAL(fork);

	enter("fork");
	if (failing("fork"))
		return -1;
	return real_fork();
}

int
getnameinfo(const struct sockaddr *sa, socklen_t salen, char *host,
    socklen_t hostlen, char *serv, socklen_t servlen, int flags)
{
	const char	*s = getenv("CAIRN_SHIM_PTR"), *eq;
	char		 num[64];
	size_t		 alen;
	REAL(getnameinfo);

	if (s == NULL || host == NULL || (flags & NI_NUMERICHOST) ||
	    (eq = strchr(s, '=')) == NULL || strlen(eq + 1) >= hostlen ||
	    real_getnameinfo(sa, salen, num, sizeof(num), NULL, 0,
	    NI_NUMERICHOST) != 0)
		return real_getnameinfo(sa, salen, host, hostlen, serv,
		    servlen, flags);
	alen = (size_t)(eq - s);
	if (strlen(num) != alen || memcmp(num, s, alen) != 0)
		return real_getnameinfo(sa, salen, host, hostlen, serv,
		    servlen, flags);
	if (serv != NULL && real_getnameinfo(sa, salen, NULL, 0, serv,
	    servlen, flags) != 0)
		return EAI_FAIL;
	memcpy(host, eq + 1, strlen(eq + 1) + 1);
	return 0;
}
