/*
 * bench-spawn.c: the processes of a sweep.  Finds the tools (--bindir,
 * next to cairn-bench, PATH), runs them to completion with their output
 * in a log and adds up their CPU time (and peak RSS) from wait4, and
 * starts and stops the daemon of each run, cairnd (or, for --update's
 * rsync -z row, an rsync daemon): on a free port, ready once it listens,
 * stopped once its session children are gone so that their CPU time is
 * its own.
 *
 * cairnd is started here as the shell scripts start it
 * (tests/integ/cairndlib.sh: cairnd_launch, for the tests and the
 * benchmark scripts): cairnd -f -a ADDR -p PORT -D REPO, then this
 * program's options, its output appended to a log, ready once the log
 * says "listening on port PORT " (lines logged before this start do not
 * count), given up after 10 s.  A change to one is made to the other.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "log.h"
#include "xmalloc.h"

/* Whether p is an executable regular file. */
static int
exists_x(const char *p)
{
	struct stat	st;

	return stat(p, &st) == 0 && S_ISREG(st.st_mode) &&
	    access(p, X_OK) == 0;
}

/* The directory holding this executable, or NULL. */
static char *
self_dir(void)
{
	char	buf[PATH_MAX], *s;
	ssize_t	n;

	if ((n = readlink("/proc/self/exe", buf, sizeof(buf) - 1)) <= 0)
		return NULL;
	buf[n] = '\0';
	if ((s = strrchr(buf, '/')) == NULL)
		return NULL;
	*s = '\0';
	return xstrdup(buf);
}

/* Where tools live below a build tree or an installation prefix. */
static const char *const tool_dirs[] = { "server", "sbin", "client", "bin" };

/*
 * dir/name, else dir/<up><tool_dir>/name for the first of tool_dirs that
 * holds an executable name; NULL if none does.
 */
static char *
find_near(const char *dir, const char *up, const char *name)
{
	char	*p;
	size_t	 i;

	xasprintf(&p, "%s/%s", dir, name);
	for (i = 0; !exists_x(p); i++) {
		free(p);
		if (i == sizeof(tool_dirs) / sizeof(tool_dirs[0]))
			return NULL;
		xasprintf(&p, "%s/%s%s/%s", dir, up, tool_dirs[i], name);
	}
	return p;
}

/*
 * p made absolute (p is freed).  The tools run with another working
 * directory (the repository, the client's root), so a path relative to
 * ours would name nothing there, or the wrong file.
 */
static char *
absolute(char *p)
{
	char	*abs;

	if (p == NULL || *p == '/')
		return p;
	if ((abs = realpath(p, NULL)) == NULL)
		fatal("%s", p);
	free(p);
	return abs;
}

/*
 * A tool in dir (an absolute --bindir) or in its server, sbin, client or
 * bin subdirectory; NULL if none holds it.
 */
char *
spawn_find_in(const char *dir, const char *name)
{
	return absolute(find_near(dir, "", name));
}

/*
 * Find a tool: in --bindir (or its server, sbin, client, bin), next to
 * cairn-bench (or in ../server, ../sbin, ... from there, for a build tree
 * or an installed prefix), then in PATH.  NULL if none.  The path is
 * absolute, whatever PATH holds.
 */
char *
spawn_find(const struct bench *b, const char *name)
{
	char	*dir, *p = NULL, *path, *tok, *save = NULL;

	if (b->bindir != NULL && (p = spawn_find_in(b->bindir, name)) != NULL)
		return p;
	if ((dir = self_dir()) != NULL) {
		p = find_near(dir, "../", name);
		free(dir);
		if (p != NULL)
			return p;
	}
	if ((path = getenv("PATH")) == NULL)
		return NULL;
	path = xstrdup(path);
	for (tok = strtok_r(path, ":", &save); tok != NULL;
	    tok = strtok_r(NULL, ":", &save)) {
		xasprintf(&p, "%s/%s", *tok ? tok : ".", name);
		if (exists_x(p))
			break;
		free(p);
		p = NULL;
	}
	free(path);
	return absolute(p);
}

/* A timeval in seconds. */
static double
tv_s(const struct timeval *tv)
{
	return tv->tv_sec + tv->tv_usec / 1e6;
}

/* Start argv in cwd with stdout and stderr to log.  Returns the pid. */
static pid_t
spawn_start(char *const argv[], const char *cwd, const char *log)
{
	pid_t	pid;
	int	fd;

	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid == 0) {
		if (cwd != NULL && chdir(cwd) == -1)
			_exit(126);
		if ((fd = open("/dev/null", O_RDONLY)) != -1) {
			dup2(fd, 0);
			close(fd);
		}
		if ((fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644)) !=
		    -1) {
			dup2(fd, 1);
			dup2(fd, 2);
			close(fd);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	return pid;
}

/*
 * Run a tool to completion.  Returns its exit status (or 128 + signal);
 * its user + system time is added to *cpu unless cpu is NULL, and its
 * peak resident set (wait4's ru_maxrss, KiB) is put in *rss unless rss
 * is NULL.
 */
int
spawn_run_rss(char *const argv[], const char *cwd, const char *log,
    double *cpu, long *rss)
{
	struct rusage	ru;
	pid_t		pid;
	int		st;

	pid = spawn_start(argv, cwd, log);
	while (wait4(pid, &st, 0, &ru) == -1)
		if (errno != EINTR)
			fatal("wait4");
	if (cpu != NULL)
		*cpu += tv_s(&ru.ru_utime) + tv_s(&ru.ru_stime);
	if (rss != NULL)
		*rss = ru.ru_maxrss;
	if (WIFEXITED(st))
		return WEXITSTATUS(st);
	return 128 + WTERMSIG(st);
}

/* spawn_run_rss without the resident set. */
int
spawn_run(char *const argv[], const char *cwd, const char *log, double *cpu)
{
	return spawn_run_rss(argv, cwd, log, cpu, NULL);
}

/* Show the last lines of a log (through the log, on stderr). */
void
spawn_show_log(const char *log)
{
	char	buf[4096];
	FILE	*fp;
	long	len;
	size_t	n;

	if ((fp = fopen(log, "r")) == NULL)
		return;
	fseek(fp, 0, SEEK_END);
	len = ftell(fp);
	fseek(fp, len > (long)sizeof(buf) - 1 ? len - (long)sizeof(buf) + 1 :
	    0, SEEK_SET);
	n = fread(buf, 1, sizeof(buf) - 1, fp);
	buf[n] = '\0';
	fclose(fp);
	log_info("--- end of %s ---\n%s%s---", log, buf,
	    n > 0 && buf[n - 1] != '\n' ? "\n" : "");
}

/* A TCP port free on 127.0.0.1 now. */
static uint16_t
free_port(void)
{
	struct sockaddr_in	sin;
	socklen_t		len = sizeof(sin);
	int			fd;

	if ((fd = socket(AF_INET, SOCK_STREAM, 0)) == -1)
		fatal("socket");
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (bind(fd, (struct sockaddr *)&sin, sizeof(sin)) == -1 ||
	    getsockname(fd, (struct sockaddr *)&sin, &len) == -1)
		fatal("bind 127.0.0.1");
	close(fd);
	return ntohs(sin.sin_port);
}

/*
 * Whether the log, from byte from on, has a line holding want (the line
 * of a daemon saying it listens).
 */
static int
log_listening(const char *log, off_t from, const char *want)
{
	char	 line[1024];
	FILE	*fp;
	int	 found = 0;

	if ((fp = fopen(log, "r")) == NULL)
		return 0;
	if (fseeko(fp, from, SEEK_SET) == 0)
		while (!found && fgets(line, sizeof(line), fp) != NULL)
			found = strstr(line, want) != NULL;
	fclose(fp);
	return found;
}

/* Sleep ms milliseconds, through signals. */
static void
sleep_ms(int ms)
{
	struct timespec	ts;

	ts.tv_sec = ms / 1000;
	ts.tv_nsec = (long)(ms % 1000) * 1000000L;
	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

/* Cleanup hook: stop the daemon of the run, if any (signal safe). */
static void
spawn_kill(void *arg)
{
	struct bench	*b = arg;

	if (b->daemon_pid > 0)
		kill(b->daemon_pid, SIGTERM);
}

/* The daemon of the run is gone: nothing for the hook to stop. */
static void
spawn_forget(struct bench *b)
{
	b->daemon_pid = 0;
	log_delcleanup(spawn_kill, b);
}

/*
 * The start of the command line of a daemon of the run: with --shaper tc
 * "ip netns exec <server namespace>" (which runs the command in place:
 * the pid is the daemon's).  abuf gets the address it is to listen on,
 * the server's end of the veth pair or 127.0.0.1.  Returns the number
 * of words put in argv.
 */
static int
daemon_prefix(const struct bench *b, char *argv[], char *abuf)
{
	struct in_addr	addr;
	int		i = 0;

	addr.s_addr = htonl(INADDR_LOOPBACK);
	if (b->tc)
		addr = b->addr_srv;
	inet_ntop(AF_INET, &addr, abuf, INET_ADDRSTRLEN);
	if (b->tc) {
		argv[i++] = b->ip;
		argv[i++] = "netns";
		argv[i++] = "exec";
		argv[i++] = (char *)b->ns_srv;
	}
	return i;
}

/*
 * The CPU seconds (user and system) pid and the children it waited for
 * have used so far, from /proc; 0 when it cannot be read.
 */
static double
proc_cpu(pid_t pid)
{
	char		 path[64], buf[1024], *p;
	unsigned long	 ut, st;
	long		 cut, cst, hz = sysconf(_SC_CLK_TCK);
	ssize_t		 n;
	int		 fd;

	snprintf(path, sizeof(path), "/proc/%ld/stat", (long)pid);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || hz <= 0)
		return 0;
	buf[n] = '\0';
	/* After the name, which may hold anything: fields 3 on. */
	if ((p = strrchr(buf, ')')) == NULL || sscanf(p + 1,
	    " %*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu %ld %ld",
	    &ut, &st, &cut, &cst) != 4)
		return 0;
	return (double)(ut + st + (unsigned long)cut + (unsigned long)cst) /
	    (double)hz;
}

/*
 * Start the daemon name, argv, in cwd, its output appended to log, and
 * wait until a line it logs from now on holds want (it listens on
 * abuf:port).
 * Returns its pid (also in b->daemon_pid, which a cleanup hook stops),
 * or -1 if it exited; gives up after 10 s.
 */
static pid_t
spawn_daemon(struct bench *b, const char *name, char *const argv[],
    const char *cwd, const char *log, const char *want, const char *abuf,
    uint16_t port)
{
	struct stat	 lst;
	off_t		 from;
	pid_t		 pid;
	int		 i, st;

	/* Only what this start logs counts: the log is appended to. */
	from = stat(log, &lst) == 0 ? lst.st_size : 0;
	pid = spawn_start(argv, cwd, log);
	b->daemon_pid = pid;
	log_addcleanup(spawn_kill, b);
	/* Bounded: 2000 x 5 ms. */
	for (i = 0; i < 2000; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid) {
			spawn_forget(b);
			return -1;
		}
		if (log_listening(log, from, want)) {
			/* What it did to start is not what it serves. */
			b->daemon_cpu0 = proc_cpu(pid);
			return pid;
		}
		sleep_ms(5);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	spawn_forget(b);
	spawn_show_log(log);
	fatalx("%s did not listen on %s:%u within 10 s", name, abuf, port);
}

/*
 * Start cairnd on a free port; returns its pid (also in b->daemon_pid,
 * which a cleanup hook stops), or -1 if it exited.
 */
pid_t
spawn_cairnd(struct bench *b, uint16_t *portp)
{
	char		*argv[20], pbuf[16], abuf[INET_ADDRSTRLEN], *log;
	char		 zcap[8], ycap[8], want[48];
	uint16_t	 port;
	pid_t		 pid;
	int		 i;

	port = free_port();
	snprintf(pbuf, sizeof(pbuf), "%u", port);
	snprintf(zcap, sizeof(zcap), "%d", BENCH_SERVER_Z);
	snprintf(ycap, sizeof(ycap), "%d", b->zstd_max);
	xasprintf(&log, "%s/cairnd.log", b->work);
	i = daemon_prefix(b, argv, abuf);
	argv[i++] = b->cairnd;
	argv[i++] = "-f";
	argv[i++] = "-a";
	argv[i++] = abuf;
	argv[i++] = "-p";
	argv[i++] = pbuf;
	argv[i++] = "-D";
	argv[i++] = b->repo;
	argv[i++] = "-Z";
	argv[i++] = zcap;
	/*
	 * zstd up to the highest of its levels the sweep asks for (a
	 * client's zstd:N is granted as asked up to it), none when only
	 * zlib's levels are measured.
	 */
	argv[i++] = "-Y";
	argv[i++] = ycap;
	if (b->cachedir != NULL) {
		argv[i++] = "-c";
		argv[i++] = b->cachedir;
	}
	argv[i] = NULL;
	/* Its line: "listening on port PORT (...)". */
	snprintf(want, sizeof(want), "listening on port %u ", port);
	pid = spawn_daemon(b, "cairnd", argv, b->repo, log, want, abuf,
	    port);
	free(log);
	if (pid != -1)
		*portp = port;
	return pid;
}

/*
 * Start an rsync daemon (b->rsync --daemon --no-detach) with the
 * configuration conf, whose "log file" is log, on a free port, where the
 * cairnd of a run would listen; returns its pid (in b->daemon_pid too),
 * or -1 if it exited.
 */
pid_t
spawn_rsyncd(struct bench *b, const char *conf, const char *log,
    uint16_t *portp)
{
	char		*argv[12], abuf[INET_ADDRSTRLEN], want[48];
	char		*aopt, *popt, *copt;
	uint16_t	 port;
	pid_t		 pid;
	int		 i;

	port = free_port();
	i = daemon_prefix(b, argv, abuf);
	xasprintf(&aopt, "--address=%s", abuf);
	xasprintf(&popt, "--port=%u", port);
	xasprintf(&copt, "--config=%s", conf);
	argv[i++] = b->rsync;
	argv[i++] = "--daemon";
	argv[i++] = "--no-detach";
	argv[i++] = aopt;
	argv[i++] = popt;
	argv[i++] = copt;
	argv[i] = NULL;
	/* Its line: "rsyncd version V starting, listening on port PORT". */
	snprintf(want, sizeof(want), "listening on port %u\n", port);
	pid = spawn_daemon(b, "the rsync daemon", argv, b->work, log, want,
	    abuf, port);
	free(aopt);
	free(popt);
	free(copt);
	if (pid != -1)
		*portp = port;
	return pid;
}

/* Number of live or unreaped children of pid (from /proc). */
static int
count_children(pid_t pid)
{
	struct dirent	*de;
	char		 path[300], buf[512], *p;
	DIR		*d;
	FILE		*fp;
	long		 ppid;
	int		 n = 0;

	if ((d = opendir("/proc")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", de->d_name);
		if ((fp = fopen(path, "r")) == NULL)
			continue;
		if (fgets(buf, sizeof(buf), fp) != NULL &&
		    (p = strrchr(buf, ')')) != NULL &&
		    sscanf(p + 1, " %*c %ld", &ppid) == 1 && ppid == pid)
			n++;
		fclose(fp);
	}
	closedir(d);
	return n;
}

/*
 * Stop the daemon of the run (cairnd, or the rsync daemon) once its
 * session children are gone (so their CPU time has been added to its
 * own) and return its CPU seconds, -1 if some child was still there
 * after 5 s.
 */
double
spawn_daemon_stop(struct bench *b)
{
	struct rusage	ru;
	pid_t		pid = b->daemon_pid;
	double		cpu;
	int		i, st, left = 0;

	for (i = 0; i < 1000; i++) {
		if ((left = count_children(pid)) == 0)
			break;
		sleep_ms(5);
	}
	kill(pid, SIGTERM);
	while (wait4(pid, &st, 0, &ru) == -1)
		if (errno != EINTR)
			fatal("wait4 daemon %ld", (long)pid);
	spawn_forget(b);
	if (left > 0)
		return -1;
	cpu = tv_s(&ru.ru_utime) + tv_s(&ru.ru_stime) - b->daemon_cpu0;
	return cpu > 0 ? cpu : 0;
}
