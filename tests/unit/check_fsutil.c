/*
 * check_fsutil.c: the file-system helpers (common/fsutil.c): removing a
 * tree without following links, the output file that appears whole or
 * not at all, parent directories, the free-space floor, writing through
 * short writes, and metadata changes by descriptor.
 *
 * write(2) is wrapped (-Wl,--wrap=write): while wrap_on is set, each
 * call writes at most wrap_max bytes and every third call fails with
 * EINTR before writing, or the call after wrap_fail_after bytes fails
 * with EIO, so that fs_write_all meets short writes and interruptions
 * on every run.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "cerr.h"
#include "fsutil.h"
#include "log.h"
#include "unit.h"

ssize_t	 __real_write(int, const void *, size_t);
ssize_t	 __wrap_write(int, const void *, size_t);

static int	 wrap_on;		/* inject short writes and EINTR */
static size_t	 wrap_max = 3;		/* bytes per call at most */
static size_t	 wrap_fail_after;	/* then EIO (0: never) */
static size_t	 wrap_calls, wrap_eintr, wrap_done;

ssize_t
__wrap_write(int fd, const void *buf, size_t len)
{
	ssize_t	 n;

	if (!wrap_on)
		return __real_write(fd, buf, len);
	wrap_calls++;
	if (wrap_fail_after > 0 && wrap_done >= wrap_fail_after) {
		errno = EIO;
		return -1;
	}
	if (wrap_calls % 3 == 0) {
		wrap_eintr++;
		errno = EINTR;
		return -1;
	}
	n = __real_write(fd, buf, len < wrap_max ? len : wrap_max);
	if (n > 0)
		wrap_done += (size_t)n;
	return n;
}

/*
 * free(3) and reallocarray(3) wrapped too: while key_watch is set, a
 * block that still holds key_mark when it is freed, or moved by
 * reallocarray (which frees the old one), is counted in key_left.
 */
void	 __real_free(void *);
void	 __wrap_free(void *);
void	*__real_reallocarray(void *, size_t, size_t);
void	*__wrap_reallocarray(void *, size_t, size_t);

static const char	 key_mark[] = "PRIVATE-KEY-BYTES";
static int		 key_watch;
static size_t		 key_left;

static void
key_check(void *p)
{
	if (key_watch && p != NULL && memmem(p, malloc_usable_size(p),
	    key_mark, sizeof(key_mark) - 1) != NULL)
		key_left++;
}

void
__wrap_free(void *p)
{
	key_check(p);
	__real_free(p);
}

void *
__wrap_reallocarray(void *p, size_t n, size_t size)
{
	key_check(p);
	return __real_reallocarray(p, n, size);
}

static char	*top;		/* the scratch directory */
static int	 topfd;

static void
setup(void)
{
	top = unit_mkdtemp();
	topfd = open(top, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	ck_assert_int_ne(topfd, -1);
}

static void
teardown(void)
{
	close(topfd);
	unit_rmtree(top);
	free(top);
}

/* top/rel into buf. */
static const char *
at(const char *rel, char *buf, size_t len)
{
	snprintf(buf, len, "%s/%s", top, rel);
	return buf;
}

static int
exists(const char *rel)
{
	struct stat	 st;
	char		 p[PATH_MAX];

	return lstat(at(rel, p, sizeof(p)), &st) == 0;
}

/* The bytes of top/rel (at most 255), as a string. */
static const char *
slurp(const char *rel)
{
	static char	 text[256];
	char		 p[PATH_MAX];
	ssize_t		 n;
	int		 fd;

	fd = open(at(rel, p, sizeof(p)), O_RDONLY);
	ck_assert_msg(fd != -1, "%s: %s", p, strerror(errno));
	n = read(fd, text, sizeof(text) - 1);
	ck_assert_int_ge(n, 0);
	text[n] = '\0';
	close(fd);
	return text;
}

static void
mkdir_at(const char *rel)
{
	char	 p[PATH_MAX];

	ck_assert_msg(mkdir(at(rel, p, sizeof(p)), 0755) == 0, "mkdir %s: %s",
	    p, strerror(errno));
}

static void
symlink_at(const char *target, const char *rel)
{
	char	 p[PATH_MAX];

	ck_assert_int_eq(symlink(target, at(rel, p, sizeof(p))), 0);
}

static struct stat
stat_at(const char *rel)
{
	struct stat	 st;
	char		 p[PATH_MAX];

	ck_assert_msg(lstat(at(rel, p, sizeof(p)), &st) == 0, "%s: %s", p,
	    strerror(errno));
	return st;
}

/* How many entries top holds, "." and ".." aside. */
static int
count_entries(void)
{
	struct dirent	*de;
	DIR		*d;
	int		 n = 0;

	ck_assert_ptr_nonnull(d = opendir(top));
	while ((de = readdir(d)) != NULL)
		if (strcmp(de->d_name, ".") != 0 &&
		    strcmp(de->d_name, "..") != 0)
			n++;
	closedir(d);
	return n;
}

/*
 * A tree with files, a FIFO, an empty directory and links to outside:
 * all of it goes, and what the links point to stays.
 */
START_TEST(test_rmtree_nested)
{
	char	 p[PATH_MAX], rel[PATH_MAX];
	size_t	 i;

	mkdir_at("outside");
	unit_write(top, "outside/keep", "sentinel\n");
	mkdir_at("t");
	mkdir_at("t/a");
	mkdir_at("t/a/b");
	mkdir_at("t/a/b/c");
	mkdir_at("t/empty");
	unit_write(top, "t/a/b/c/file", "x\n");
	unit_write(top, "t/a/f", "y\n");
	ck_assert_int_eq(mkfifo(at("t/a/fifo", p, sizeof(p)), 0600), 0);
	symlink_at("../../outside", "t/a/dirlink");
	symlink_at(at("outside/keep", p, sizeof(p)), "t/a/b/filelink");
	symlink_at("nowhere", "t/dangling");
	/* Read-only directories and files are no obstacle to their owner. */
	ck_assert_int_eq(chmod(at("t/a/b", p, sizeof(p)), 0500), 0);

	/* Deep too: 40 levels below t/deep. */
	strcpy(rel, "t/deep");
	mkdir_at(rel);
	for (i = 0; i < 40; i++) {
		strcat(rel, "/d");
		mkdir_at(rel);
	}
	unit_write(top, strcat(rel, "/leaf"), "z\n");

	ck_assert_int_eq(fs_rmtreeat(topfd, "t"), 0);
	ck_assert(!exists("t"));
	ck_assert_str_eq(slurp("outside/keep"), "sentinel\n");
	ck_assert_int_eq(count_entries(), 1);

	/* A single file, and a missing name: not an error. */
	unit_write(top, "single", "s\n");
	ck_assert_int_eq(fs_rmtreeat(topfd, "single"), 0);
	ck_assert(!exists("single"));
	ck_assert_int_eq(fs_rmtreeat(topfd, "single"), 0);
	ck_assert_int_eq(fs_rmtreeat(topfd, "no/such/thing"), 0);

	/* AT_FDCWD with an absolute name. */
	mkdir_at("abs");
	unit_write(top, "abs/x", "x\n");
	ck_assert_int_eq(fs_rmtreeat(AT_FDCWD, at("abs", p, sizeof(p))), 0);
	ck_assert(!exists("abs"));
}
END_TEST

/* The name itself a link to a directory: the link goes, nothing else. */
START_TEST(test_rmtree_link_name)
{
	char	 p[PATH_MAX];

	mkdir_at("outside");
	unit_write(top, "outside/keep", "sentinel\n");
	symlink_at("outside", "link");
	ck_assert_int_eq(fs_rmtreeat(topfd, "link"), 0);
	ck_assert(!exists("link"));
	ck_assert_str_eq(slurp("outside/keep"), "sentinel\n");

	symlink_at(at("outside", p, sizeof(p)), "abslink");
	ck_assert_int_eq(fs_rmtreeat(topfd, "abslink"), 0);
	ck_assert(!exists("abslink"));
	ck_assert_str_eq(slurp("outside/keep"), "sentinel\n");

	/* A parent that is a file: the error, with errno. */
	unit_write(top, "file", "f\n");
	errno = 0;
	ck_assert_int_eq(fs_rmtreeat(topfd, "file/x"), -1);
	ck_assert_int_eq(errno, ENOTDIR);
	ck_assert_str_eq(slurp("file"), "f\n");
}
END_TEST

/* The cleanup hooks remove what they name, links not followed. */
START_TEST(test_hooks)
{
	char	 f[PATH_MAX], d[PATH_MAX];

	mkdir_at("outside");
	unit_write(top, "outside/keep", "sentinel\n");
	unit_write(top, "tmpfile", "t\n");
	mkdir_at("stage");
	unit_write(top, "stage/x", "x\n");
	symlink_at("../outside", "stage/out");
	at("tmpfile", f, sizeof(f));
	at("stage", d, sizeof(d));
	log_addcleanup(fs_unlink_hook, f);
	log_addcleanup(fs_rmtree_hook, d);
	log_cleanup();
	ck_assert(!exists("tmpfile"));
	ck_assert(!exists("stage"));
	ck_assert_str_eq(slurp("outside/keep"), "sentinel\n");
	/* Already gone: nothing happens. */
	fs_unlink_hook(f);
	fs_rmtree_hook(d);
}
END_TEST

/* A new output: made as "<path>.<pid>", renamed only by the commit. */
START_TEST(test_out_new)
{
	struct fs_out	 o;
	struct stat	 st;
	char		 p[PATH_MAX], tmp[PATH_MAX + 32];
	mode_t		 old;

	old = umask(027);
	at("out", p, sizeof(p));
	snprintf(tmp, sizeof(tmp), "%s.%ld", p, (long)getpid());
	ck_assert_int_eq(fs_out_open(&o, p), 0);
	umask(old);
	ck_assert_ptr_nonnull(o.fp);
	ck_assert_str_eq(o.tmp, tmp);
	ck_assert_str_eq(o.path, p);
	ck_assert(!exists("out"));
	ck_assert_int_eq(lstat(tmp, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	ck_assert_int_ge(fputs("whole\n", o.fp), 0);
	ck_assert_int_eq(fflush(o.fp), 0);
	/* Written, not yet committed: still nothing at path. */
	ck_assert(!exists("out"));

	ck_assert_int_eq(fs_out_commit(&o), 0);
	ck_assert_ptr_null(o.fp);
	ck_assert_str_eq(slurp("out"), "whole\n");
	ck_assert_uint_eq(stat_at("out").st_mode & 07777, 0640);
	ck_assert_int_eq(lstat(tmp, &st), -1);
	ck_assert_int_eq(count_entries(), 1);
	/* Committing again, or aborting, changes nothing. */
	ck_assert_int_eq(fs_out_commit(&o), 0);
	fs_out_abort(&o);
	ck_assert_str_eq(slurp("out"), "whole\n");
}
END_TEST

/*
 * An output over a regular file: a new file with its mode (set-id bits
 * too) when the old one is ours (root: another user's is not handed
 * back to them); the old file stays as it was until the
 * commit, and is never written in place.
 */
START_TEST(test_out_replace)
{
	struct fs_out	 o;
	struct stat	 before, after;
	char		 p[PATH_MAX], l[PATH_MAX];

	unit_write(top, "out", "old\n");
	at("out", p, sizeof(p));
	/* The owner first: a change of owner clears the set-id bits. */
	if (geteuid() == 0)
		ck_assert_int_eq(chown(p, 1234, 5678), 0);
	ck_assert_int_eq(chmod(p, 04751), 0);
	ck_assert_int_eq(link(p, at("out.link", l, sizeof(l))), 0);
	before = stat_at("out");

	ck_assert_int_eq(fs_out_open(&o, p), 0);
	ck_assert_int_ge(fputs("new\n", o.fp), 0);
	ck_assert_int_eq(fflush(o.fp), 0);
	ck_assert_str_eq(slurp("out"), "old\n");
	ck_assert_int_eq(fs_out_commit(&o), 0);

	after = stat_at("out");
	ck_assert_str_eq(slurp("out"), "new\n");
	ck_assert_uint_ne(after.st_ino, before.st_ino);
	if (geteuid() == 0) {
		/* Another user's file: replaced by root's, not handed over. */
		ck_assert_uint_eq(after.st_uid, 0);
		ck_assert_uint_eq(after.st_mode & 06022, 0);
	} else
		ck_assert_uint_eq(after.st_mode & 07777, 04751);
	/* The old inode was never touched. */
	ck_assert_str_eq(slurp("out.link"), "old\n");
	ck_assert_int_eq(count_entries(), 2);
}
END_TEST

/* Abort: the old file as it was, and nothing left beside it. */
START_TEST(test_out_abort)
{
	struct fs_out	 o;
	char		 p[PATH_MAX];

	unit_write(top, "out", "old\n");
	at("out", p, sizeof(p));
	ck_assert_int_eq(fs_out_open(&o, p), 0);
	ck_assert_int_ge(fputs("half", o.fp), 0);
	ck_assert_int_eq(fflush(o.fp), 0);
	ck_assert_int_eq(count_entries(), 2);
	errno = EBADMSG;
	fs_out_abort(&o);
	/* The caller's errno survives: it is what the caller reports. */
	ck_assert_int_eq(errno, EBADMSG);
	ck_assert_ptr_null(o.fp);
	ck_assert_str_eq(slurp("out"), "old\n");
	ck_assert_int_eq(count_entries(), 1);
	/* Again: harmless. */
	fs_out_abort(&o);

	/* No old file: nothing at all afterwards. */
	ck_assert_int_eq(fs_out_open(&o, at("new", p, sizeof(p))), 0);
	ck_assert_int_ge(fputs("half", o.fp), 0);
	fs_out_abort(&o);
	ck_assert(!exists("new"));
	ck_assert_int_eq(count_entries(), 1);
}
END_TEST

/*
 * A symbolic link, /dev/full: written through, as fopen(path, "w") does,
 * when ours or root's; commit only closes, and reports a write that
 * failed.
 */
START_TEST(test_out_not_regular)
{
	struct fs_out	 o;
	char		 p[PATH_MAX];

	unit_write(top, "target", "old\n");
	symlink_at("target", "link");
	ck_assert_int_eq(fs_out_open(&o, at("link", p, sizeof(p))), 0);
	ck_assert_int_eq(o.made, 0);
	ck_assert_int_ge(fputs("through\n", o.fp), 0);
	ck_assert_int_eq(count_entries(), 2);
	ck_assert_int_eq(fs_out_commit(&o), 0);
	ck_assert(S_ISLNK(stat_at("link").st_mode));
	ck_assert_str_eq(slurp("target"), "through\n");
	ck_assert_int_eq(count_entries(), 2);

	/* Abort only closes: the link stays. */
	ck_assert_int_eq(fs_out_open(&o, p), 0);
	fs_out_abort(&o);
	ck_assert_ptr_null(o.fp);
	ck_assert(S_ISLNK(stat_at("link").st_mode));
	ck_assert_int_eq(count_entries(), 2);

	/*
	 * Root, and a link another user put there (as in /tmp): not
	 * written through, and its target left as it was.
	 */
	if (geteuid() == 0) {
		unit_write(top, "target", "root's\n");
		ck_assert_int_eq(lchown(p, 1234, 5678), 0);
		errno = 0;
		ck_assert_int_eq(fs_out_open(&o, p), -1);
		ck_assert_int_eq(errno, EPERM);
		ck_assert_str_eq(slurp("target"), "root's\n");
		ck_assert_int_eq(count_entries(), 2);
		ck_assert_int_eq(lchown(p, 0, 0), 0);
	}

	/* A device that is full: the commit fails with the write's error. */
	if (access("/dev/full", W_OK) == 0) {
		ck_assert_int_eq(fs_out_open(&o, "/dev/full"), 0);
		ck_assert_int_eq(o.made, 0);
		(void)fputs("no room\n", o.fp);
		errno = 0;
		ck_assert_int_eq(fs_out_commit(&o), -1);
		ck_assert_int_eq(errno, ENOSPC);
		ck_assert_ptr_null(o.fp);
		ck_assert_str_eq(o.name, "/dev/full");
	}
}
END_TEST

/*
 * Someone made "<path>.<pid>" first, a link to a victim or a file: the
 * open fails naming it, and neither the victim nor the file is written.
 */
START_TEST(test_out_tmp_taken)
{
	struct fs_out	 o;
	char		 p[PATH_MAX], tmp[PATH_MAX + 32], victim[PATH_MAX];

	unit_write(top, "victim", "sentinel\n");
	at("out", p, sizeof(p));
	snprintf(tmp, sizeof(tmp), "%s.%ld", p, (long)getpid());
	ck_assert_int_eq(symlink(at("victim", victim, sizeof(victim)), tmp),
	    0);
	errno = 0;
	ck_assert_int_eq(fs_out_open(&o, p), -1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_str_eq(o.name, tmp);
	ck_assert_ptr_null(o.fp);
	ck_assert_str_eq(slurp("victim"), "sentinel\n");
	ck_assert(!exists("out"));

	ck_assert_int_eq(unlink(tmp), 0);
	symlink_at("nowhere", strrchr(tmp, '/') + 1);
	ck_assert_int_eq(fs_out_open(&o, p), -1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert(!exists("nowhere"));

	ck_assert_int_eq(unlink(tmp), 0);
	unit_write(top, strrchr(tmp, '/') + 1, "theirs\n");
	ck_assert_int_eq(fs_out_open(&o, p), -1);
	ck_assert_int_eq(errno, EEXIST);
	ck_assert_str_eq(slurp(strrchr(tmp, '/') + 1), "theirs\n");
	/* Its failure took nothing of theirs away. */
	ck_assert_int_eq(count_entries(), 2);
}
END_TEST

/* A fatal exit removes an open output's temp file, and only that. */
START_TEST(test_out_cleanup)
{
	struct fs_out	 o;
	char		 p[PATH_MAX], tmp[PATH_MAX + 32];

	at("out", p, sizeof(p));
	snprintf(tmp, sizeof(tmp), "%s.%ld", p, (long)getpid());
	ck_assert_int_eq(fs_out_open(&o, p), 0);
	ck_assert(access(tmp, F_OK) == 0);
	log_cleanup();
	ck_assert(access(tmp, F_OK) == -1);
	fs_out_abort(&o);

	/*
	 * Committed, or aborted, it is forgotten: a later file of the same
	 * name is not removed by a fatal exit.
	 */
	ck_assert_int_eq(fs_out_open(&o, p), 0);
	ck_assert_int_eq(fs_out_commit(&o), 0);
	unit_write(top, strrchr(tmp, '/') + 1, "later\n");
	log_cleanup();
	ck_assert(access(tmp, F_OK) == 0);
	ck_assert_int_eq(unlink(tmp), 0);

	ck_assert_int_eq(fs_out_open(&o, p), 0);
	fs_out_abort(&o);
	unit_write(top, strrchr(tmp, '/') + 1, "later\n");
	log_cleanup();
	ck_assert(access(tmp, F_OK) == 0);
	ck_assert_str_eq(slurp("out"), "");
}
END_TEST

START_TEST(test_out_errors)
{
	struct fs_out	 o;
	char		 p[PATH_MAX], longp[PATH_MAX + 16];

	/* No such directory: the temp file is what could not be made. */
	at("nodir/out", p, sizeof(p));
	errno = 0;
	ck_assert_int_eq(fs_out_open(&o, p), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_ptr_nonnull(o.name);
	ck_assert_ptr_nonnull(strstr(o.name, "nodir/out."));
	ck_assert_ptr_null(o.fp);

	/* A name with no room for the temp file's suffix. */
	memset(longp, 'a', sizeof(longp));
	longp[0] = '/';
	longp[PATH_MAX - 3] = '\0';
	errno = 0;
	ck_assert_int_eq(fs_out_open(&o, longp), -1);
	ck_assert_int_eq(errno, ENAMETOOLONG);
	longp[PATH_MAX + 8] = '\0';
	errno = 0;
	ck_assert_int_eq(fs_out_open(&o, longp), -1);
	ck_assert_int_eq(errno, ENAMETOOLONG);

	/* A directory in the way. */
	mkdir_at("dir");
	ck_assert_int_eq(fs_out_open(&o, at("dir", p, sizeof(p))), -1);
	ck_assert_int_eq(count_entries(), 1);
}
END_TEST

/* Every missing parent, with 0777 & ~umask; the last name not made. */
START_TEST(test_mkparents)
{
	char	 p[PATH_MAX];
	mode_t	 old;

	old = umask(027);
	ck_assert_int_eq(fs_mkparents(at("a/b/c/leaf", p, sizeof(p))), 0);
	umask(old);
	ck_assert(S_ISDIR(stat_at("a/b/c").st_mode));
	ck_assert_uint_eq(stat_at("a").st_mode & 07777, 0750);
	ck_assert_uint_eq(stat_at("a/b/c").st_mode & 07777, 0750);
	ck_assert(!exists("a/b/c/leaf"));
	/* Those that are there already are no error. */
	ck_assert_int_eq(fs_mkparents(p), 0);
	ck_assert_int_eq(fs_mkparents(at("a/b/x/leaf", p, sizeof(p))), 0);
	ck_assert(S_ISDIR(stat_at("a/b/x").st_mode));
	/* A trailing slash: the last directory too; doubled slashes. */
	ck_assert_int_eq(fs_mkparents(at("d/e/", p, sizeof(p))), 0);
	ck_assert(S_ISDIR(stat_at("d/e").st_mode));
	ck_assert_int_eq(fs_mkparents(at("f//g///leaf", p, sizeof(p))), 0);
	ck_assert(S_ISDIR(stat_at("f/g").st_mode));
	/* No slash: nothing to make. */
	ck_assert_int_eq(fs_mkparents("leaf"), 0);

	/* A file in the way. */
	unit_write(top, "file", "f\n");
	errno = 0;
	ck_assert_int_eq(fs_mkparents(at("file/x/leaf", p, sizeof(p))), -1);
	ck_assert_int_eq(errno, ENOTDIR);
	ck_assert_str_eq(slurp("file"), "f\n");
}
END_TEST

/*
 * The floor of free space: the answer agrees with the space it reports,
 * whatever other writers do to the file system meanwhile.
 */
static void
room_agrees(int fd, int64_t size)
{
	int64_t	 avail = -1;
	int	 r, want;

	r = fs_room(fd, size, &avail);
	ck_assert_int_ge(avail, 0);
	want = size >= 0 && size <= avail && avail - size >= FS_KEEPFREE ?
	    0 : 1;
	ck_assert_msg(r == want, "size %lld, avail %lld: %d", (long long)size,
	    (long long)avail, r);
}

START_TEST(test_room)
{
	struct statvfs	 sv;
	int64_t		 avail, d;
	int		 fd;

	ck_assert_int_ne(fs_room(topfd, 0, &avail), -1);
	ck_assert_int_eq(fstatvfs(topfd, &sv), 0);
	/* What users may use: no more than all the free blocks. */
	ck_assert(avail <= (int64_t)(sv.f_bfree * sv.f_frsize) ||
	    sv.f_bfree * sv.f_frsize > INT64_MAX);
	for (d = -3; d <= 3; d++) {
		room_agrees(topfd, avail - FS_KEEPFREE + d * 4096);
		room_agrees(topfd, avail + d);
	}
	room_agrees(topfd, 0);
	room_agrees(topfd, 1);
	room_agrees(topfd, -1);
	room_agrees(topfd, INT64_MIN);
	room_agrees(topfd, INT64_MAX);
	ck_assert_int_eq(fs_room(topfd, INT64_MAX, &avail), 1);
	ck_assert_int_eq(fs_room(topfd, -1, &avail), 1);

	/* Any descriptor on the file system will do; a bad one will not. */
	unit_write(top, "f", "f\n");
	fd = open(top, O_RDONLY);
	ck_assert_int_ne(fd, -1);
	room_agrees(fd, 0);
	close(fd);
	errno = 0;
	ck_assert_int_eq(fs_room(-1, 0, &avail), -1);
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

/* Every byte, in order, through short writes and EINTR. */
START_TEST(test_write_all)
{
	char		 buf[10000], back[10001];
	char		 p[PATH_MAX];
	size_t		 i;
	ssize_t		 n;
	int		 fd;

	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7 + i / 251);
	fd = open(at("w", p, sizeof(p)), O_RDWR | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ne(fd, -1);

	wrap_calls = wrap_eintr = wrap_done = 0;
	wrap_max = 3;
	wrap_fail_after = 0;
	wrap_on = 1;
	ck_assert_int_eq(fs_write_all(fd, buf, sizeof(buf)), 0);
	ck_assert_int_eq(fs_write_all(fd, buf, 0), 0);
	wrap_on = 0;
	ck_assert_uint_gt(wrap_calls, sizeof(buf) / 3);
	ck_assert_uint_gt(wrap_eintr, 0);
	ck_assert_uint_eq(wrap_done, sizeof(buf));
	n = pread(fd, back, sizeof(back), 0);
	ck_assert_int_eq(n, (ssize_t)sizeof(buf));
	ck_assert_mem_eq(back, buf, sizeof(buf));

	/* An error part way: -1 with that errno, what went before written. */
	ck_assert_int_eq(ftruncate(fd, 0), 0);
	ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
	wrap_calls = wrap_eintr = wrap_done = 0;
	wrap_max = 100;
	wrap_fail_after = 500;
	wrap_on = 1;
	errno = 0;
	ck_assert_int_eq(fs_write_all(fd, buf, sizeof(buf)), -1);
	wrap_on = 0;
	ck_assert_int_eq(errno, EIO);
	ck_assert_uint_eq(wrap_done, 500);
	n = pread(fd, back, sizeof(back), 0);
	ck_assert_int_eq(n, 500);
	ck_assert_mem_eq(back, buf, 500);
	close(fd);

	/* A real error: a bad descriptor. */
	errno = 0;
	ck_assert_int_eq(fs_write_all(-1, buf, 1), -1);
	ck_assert_int_eq(errno, EBADF);
}
END_TEST

/*
 * A private key file read whole, or refused as too large, leaves no copy
 * of its bytes in memory given back: not as its buffer grows, not when
 * the buffer is freed.
 */
START_TEST(test_read_private_wiped)
{
	struct buf	*b;
	struct cerr	 err;
	char		 p[PATH_MAX], chunk[4096];
	size_t		 i;
	int		 fd;

	for (i = 0; i + sizeof(key_mark) <= sizeof(chunk); i +=
	    sizeof(key_mark) - 1)
		memcpy(chunk + i, key_mark, sizeof(key_mark) - 1);
	memset(chunk + i, '\n', sizeof(chunk) - i);
	fd = open(at("key.pem", p, sizeof(p)), O_WRONLY | O_CREAT | O_EXCL,
	    0600);
	ck_assert_int_ne(fd, -1);
	for (i = 0; i < 64; i++)		/* 256 KiB: it grows */
		ck_assert_int_eq(fs_write_all(fd, chunk, sizeof(chunk)), 0);
	close(fd);

	key_left = 0;
	key_watch = 1;
	ck_assert_int_eq(fs_read_private(p, 1024 * 1024, &b, &err), 0);
	ck_assert_uint_eq(buf_len(b), 64 * sizeof(chunk));
	ck_assert_ptr_nonnull(memmem(buf_data(b), buf_len(b), key_mark,
	    sizeof(key_mark) - 1));
	ck_assert_uint_eq(key_left, 0);
	buf_free(b);
	key_watch = 0;
	ck_assert_uint_eq(key_left, 0);

	/* Too large: refused, what was read wiped all the same. */
	key_left = 0;
	key_watch = 1;
	ck_assert_int_eq(fs_read_private(p, 100 * 1024, &b, &err), -1);
	key_watch = 0;
	ck_assert_ptr_null(b);
	ck_assert_uint_eq(key_left, 0);
}
END_TEST

/* Mode, owner and mtime by descriptor: open, O_PATH, and O_PATH links. */
START_TEST(test_fd_meta)
{
	struct timespec	 ts[2], m;
	struct stat	 st;
	char		 p[PATH_MAX];
	int		 fd, root = geteuid() == 0;

	/* An ordinary descriptor; the access time is left alone. */
	unit_write(top, "f", "f\n");
	fd = open(at("f", p, sizeof(p)), O_RDONLY);
	ck_assert_int_ne(fd, -1);
	ts[0].tv_sec = 5000;
	ts[0].tv_nsec = 0;
	ts[1] = ts[0];
	ck_assert_int_eq(futimens(fd, ts), 0);
	ck_assert_int_eq(fd_chmod(fd, 0604), 0);
	ck_assert_int_eq(fd_setmtime(fd, 1000000000), 0);
	st = stat_at("f");
	ck_assert_uint_eq(st.st_mode & 07777, 0604);
	ck_assert_int_eq(st.st_mtim.tv_sec, 1000000000);
	ck_assert_int_eq(st.st_mtim.tv_nsec, 0);
	ck_assert_int_eq(st.st_atim.tv_sec, 5000);
	m.tv_sec = 1234567890;
	m.tv_nsec = 123456789;
	ck_assert_int_eq(fd_setmtim(fd, &m), 0);
	st = stat_at("f");
	ck_assert_int_eq(st.st_mtim.tv_sec, 1234567890);
	ck_assert_int_eq(st.st_mtim.tv_nsec, 123456789);
	if (root) {
		ck_assert_int_eq(fd_chown(fd, 1234, 5678), 0);
		st = stat_at("f");
		ck_assert_uint_eq(st.st_uid, 1234);
		ck_assert_uint_eq(st.st_gid, 5678);
	}
	close(fd);

	/* A FIFO held by an O_PATH descriptor (opening it would block). */
	ck_assert_int_eq(mkfifo(at("fifo", p, sizeof(p)), 0600), 0);
	fd = open(p, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(fd_chmod(fd, 0640), 0);
	ck_assert_int_eq(fd_setmtime(fd, 1500000000), 0);
	if (root)
		ck_assert_int_eq(fd_chown(fd, 4321, 8765), 0);
	st = stat_at("fifo");
	ck_assert(S_ISFIFO(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, 0640);
	ck_assert_int_eq(st.st_mtim.tv_sec, 1500000000);
	if (root) {
		ck_assert_uint_eq(st.st_uid, 4321);
		ck_assert_uint_eq(st.st_gid, 8765);
	}
	close(fd);

	/*
	 * An O_PATH descriptor of a symbolic link: the link changes, never
	 * what it points to, even through /proc/self/fd.
	 */
	unit_write(top, "target", "t\n");
	ck_assert_int_eq(chmod(at("target", p, sizeof(p)), 0644), 0);
	ts[1].tv_sec = 7000;
	ck_assert_int_eq(utimensat(AT_FDCWD, p, ts, 0), 0);
	symlink_at(p, "link");
	fd = open(at("link", p, sizeof(p)), O_PATH | O_NOFOLLOW | O_CLOEXEC);
	ck_assert_int_ne(fd, -1);
	ck_assert_int_eq(fd_setmtime(fd, 1600000000), 0);
	(void)fd_chmod(fd, 0600);	/* Linux has no mode for links */
	if (root)
		ck_assert_int_eq(fd_chown(fd, 2222, 3333), 0);
	close(fd);
	st = stat_at("link");
	ck_assert(S_ISLNK(st.st_mode));
	ck_assert_int_eq(st.st_mtim.tv_sec, 1600000000);
	if (root)
		ck_assert_uint_eq(st.st_uid, 2222);
	st = stat_at("target");
	ck_assert_uint_eq(st.st_mode & 07777, 0644);
	ck_assert_int_eq(st.st_mtim.tv_sec, 7000);
	ck_assert_uint_eq(st.st_uid, geteuid());

	/* A descriptor that is no descriptor. */
	ck_assert_int_eq(fd_chmod(-1, 0600), -1);
	ck_assert_int_eq(fd_setmtime(-1, 0), -1);
	ck_assert_int_eq(fd_chown(-1, 0, 0), -1);
}
END_TEST

static Suite *
fsutil_suite(void)
{
	Suite	*s = suite_create("fsutil");
	TCase	*tc;

	tc = tcase_create("rmtree");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_rmtree_nested);
	tcase_add_test(tc, test_rmtree_link_name);
	tcase_add_test(tc, test_hooks);
	suite_add_tcase(s, tc);

	tc = tcase_create("out");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_out_new);
	tcase_add_test(tc, test_out_replace);
	tcase_add_test(tc, test_out_abort);
	tcase_add_test(tc, test_out_not_regular);
	tcase_add_test(tc, test_out_tmp_taken);
	tcase_add_test(tc, test_out_cleanup);
	tcase_add_test(tc, test_out_errors);
	suite_add_tcase(s, tc);

	tc = tcase_create("misc");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_mkparents);
	tcase_add_test(tc, test_room);
	tcase_add_test(tc, test_write_all);
	tcase_add_test(tc, test_read_private_wiped);
	tcase_add_test(tc, test_fd_meta);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(fsutil_suite());
}
