/*
 * check_log.c: the one reporting API (common/log.c): bare or prefixed
 * messages, the errno suffix, and the cleanup hooks a fatal exit runs
 * (fsutil.h's among them).
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>

#include <signal.h>
#include <time.h>

#include "fsutil.h"
#include "intr.h"
#include "log.h"
#include "unit.h"

/*
 * Run fn in a child with stderr on a pipe; return what it printed and
 * its exit status in *status.
 */
static char *
run_child(void (*fn)(void), int *status)
{
	static char	out[16384];
	size_t		len = 0;
	ssize_t		n;
	pid_t		pid;
	int		p[2];

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ne(pid, -1);
	if (pid == 0) {
		close(p[0]);
		dup2(p[1], 2);
		fn();
		_exit(0);
	}
	close(p[1]);
	while (len < sizeof(out) - 1 &&
	    (n = read(p[0], out + len, sizeof(out) - 1 - len)) > 0)
		len += (size_t)n;
	out[len] = '\0';
	close(p[0]);
	ck_assert_int_eq(waitpid(pid, status, 0), pid);
	return out;
}

/* Run fn in a child: it must print exactly want and exit with status. */
static void
expect_child(void (*fn)(void), const char *want, int status)
{
	int	 st;
	char	*out = run_child(fn, &st);

	ck_assert_str_eq(out, want);
	ck_assert(WIFEXITED(st));
	ck_assert_int_eq(WEXITSTATUS(st), status);
}

static void
bare(void)
{
	log_init("tool", LOG_TO_STDERR, 0);
	log_warnx("%s: line %d: bad", "a.T", 3);
	errno = ENOENT;
	log_warn("%s", "b.T");
}

START_TEST(test_bare)
{
	expect_child(bare, "a.T: line 3: bad\nb.T: " "No such file or "
	    "directory\n", 0);
}
END_TEST

static void
prefixed(void)
{
	log_init("cairn-bench", LOG_TO_STDERR | LOG_PREFIX, 0);
	log_warnx("no corpus");
	log_debug("hidden");
	log_setverbose(1);
	log_debug("shown");
}

START_TEST(test_prefix_and_debug)
{
	int	 st;
	char	*out = run_child(prefixed, &st);

	ck_assert_str_eq(out, "cairn-bench: no corpus\ncairn-bench: shown\n");
}
END_TEST

/* A daemon prefixes its start-up errors, then logs bare lines. */
static void
reinit(void)
{
	log_init("cairnd", LOG_TO_STDERR | LOG_PREFIX, 0);
	log_warnx("-C requires -w 3 or higher");
	log_init("cairnd", LOG_TO_STDERR, 0);
	log_info("listening");
}

START_TEST(test_reinit_drops_prefix)
{
	int	 st;
	char	*out = run_child(reinit, &st);

	ck_assert_str_eq(out, "cairnd: -C requires -w 3 or higher\n"
	    "listening\n");
}
END_TEST

static void
say(void *arg)
{
	fprintf(stderr, "cleanup %s\n", (const char *)arg);
}

static void
hooks(void)
{
	log_init("tool", LOG_TO_STDERR, 0);
	log_setfatalstatus(7);
	log_addcleanup(say, "first");
	log_addcleanup(say, "dropped");
	log_addcleanup(say, "last");
	log_delcleanup(say, "dropped");
	fatalx("%s: gone", "x.T");
}

START_TEST(test_fatal_runs_hooks_newest_first)
{
	expect_child(hooks, "x.T: gone\ncleanup last\ncleanup first\n", 7);
}
END_TEST

static void
die_in_hook(void *arg)
{
	(void)arg;
	fatalx("hook failed");
}

static void
reentry(void)
{
	log_init("tool", LOG_TO_STDERR, 0);
	log_addcleanup(say, "once");
	log_addcleanup(die_in_hook, NULL);
	log_exit(3);
}

START_TEST(test_hook_that_dies_runs_the_rest_once)
{
	/* The failing hook's fatalx runs the remaining hook, then exits. */
	expect_child(reentry, "hook failed\ncleanup once\n", 2);
}
END_TEST

static void
long_line(void)
{
	static char	 big[9001];

	memset(big, 'x', sizeof(big) - 1);
	log_init("tool", LOG_TO_STDERR, 0);
	log_info(">>> %s", big);
}

/* A message longer than any fixed buffer comes out whole. */
START_TEST(test_long_message_whole)
{
	int	 st;
	char	*out = run_child(long_line, &st);
	size_t	 i;

	ck_assert_uint_eq(strlen(out), 4 + 9000 + 1);
	ck_assert(strncmp(out, ">>> x", 5) == 0);
	for (i = 4; i < 4 + 9000; i++)
		ck_assert_int_eq(out[i], 'x');
	ck_assert_int_eq(out[i], '\n');
}
END_TEST

static void
cleanup_now(void)
{
	log_init("tool", LOG_TO_STDERR, 0);
	log_addcleanup(say, "older");
	log_addcleanup(say, "newer");
	log_cleanup();
	log_warnx("after");
	log_exit(4);
}

/* log_cleanup runs the hooks at once, and only once. */
START_TEST(test_cleanup_without_exit)
{
	expect_child(cleanup_now, "cleanup newer\ncleanup older\nafter\n", 4);
}
END_TEST

/* The file-system hooks: a fatal exit removes a temp file and a tree. */
static char	*hookdir, *hookfile, *hooktree;

static void
fs_hooks(void)
{
	log_init("tool", LOG_TO_STDERR, 0);
	log_addcleanup(fs_rmtree_hook, hooktree);
	log_addcleanup(fs_unlink_hook, hookfile);
	fatalx("gone");
}

START_TEST(test_fs_hooks)
{
	struct stat	 sb;
	int		 st;
	char		*out;

	hookdir = unit_mkdtemp();
	unit_write(hookdir, "t.T.123", "d . 0755 0 0\n");
	ck_assert_int_eq(asprintf(&hookfile, "%s/t.T.123", hookdir) == -1, 0);
	ck_assert_int_eq(asprintf(&hooktree, "%s/tree", hookdir) == -1, 0);
	ck_assert_int_eq(mkdir(hooktree, 0700), 0);
	unit_write(hooktree, "f", "x");
	out = run_child(fs_hooks, &st);
	ck_assert_str_eq(out, "gone\n");
	ck_assert_int_eq(lstat(hookfile, &sb), -1);
	ck_assert_int_eq(lstat(hooktree, &sb), -1);
	ck_assert_int_eq(lstat(hookdir, &sb), 0);
	unit_rmtree(hookdir);
	free(hookdir);
	free(hookfile);
	free(hooktree);
}
END_TEST

/*
 * A tool that ends while the signal thread is running the hooks (it
 * runs them and forgets them) still dies of the signal: the exit gate
 * waits however far the signal thread has gone.
 */
static int	gatepipe[2];

static void
slow_onexit(void *arg)
{
	struct timespec	ts = { 0, 300 * 1000 * 1000 };

	(void)arg;
	(void)write(gatepipe[1], "h", 1);
	(void)nanosleep(&ts, NULL);	/* the tool reaches its exit */
}

static void
interrupted_exit(void)
{
	char	c;

	log_init("tool", LOG_TO_STDERR, 0);
	ck_assert_int_eq(pipe(gatepipe), 0);
	ck_assert_int_eq(intr_init(), 0);
	intr_onexit(slow_onexit, NULL);
	log_addcleanup(say, "hook");
	ck_assert_int_eq(kill(getpid(), SIGTERM), 0);
	/* The signal thread has run the hooks and forgotten them. */
	ck_assert_int_eq(read(gatepipe[0], &c, 1), 1);
	intr_exit(1);
}

START_TEST(test_exit_while_interrupted_dies_of_signal)
{
	int	 st;
	char	*out = run_child(interrupted_exit, &st);

	ck_assert_str_eq(out, "cleanup hook\n");
	ck_assert_msg(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM,
	    "status 0x%x: not killed by SIGTERM", st);
}
END_TEST

static Suite *
log_suite(void)
{
	Suite	*s = suite_create("log");
	TCase	*tc;

	tc = tcase_create("stderr");
	tcase_add_test(tc, test_bare);
	tcase_add_test(tc, test_prefix_and_debug);
	tcase_add_test(tc, test_reinit_drops_prefix);
	tcase_add_test(tc, test_long_message_whole);
	suite_add_tcase(s, tc);

	tc = tcase_create("cleanup");
	tcase_add_test(tc, test_fatal_runs_hooks_newest_first);
	tcase_add_test(tc, test_hook_that_dies_runs_the_rest_once);
	tcase_add_test(tc, test_fs_hooks);
	tcase_add_test(tc, test_cleanup_without_exit);
	tcase_add_test(tc, test_exit_while_interrupted_dies_of_signal);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(log_suite());
}
