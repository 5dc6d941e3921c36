/*
 * check_download.c: the receive side of the clients as libraries: the
 * one download routine (net/download.c, libnet.a) against a scripted
 * server on 127.0.0.1, and the apply library (client/apply.c,
 * libclient.a) on local transcripts.  Every case keeps "old", the file
 * a download would replace, and checks it is untouched when the
 * download fails, and that no temp file is left.  The DELTA cases use
 * "old" as the basis the request named.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "buf.h"
#include "cerr.h"
#include "cksum.h"
#include "compat.h"
#include "confine.h"
#include "copts.h"
#include "delta.h"
#include "download.h"
#include "net.h"
#include "unit.h"
#include "unitsrv.h"
#include "xmalloc.h"

/* One scripted answer to a request of the client. */
struct reply {
	const char	*bytes;
	size_t		 len;
	int		 trickle;	/* one byte per write */
	int		 close;		/* close the connection after it */
};

static char	*top;		/* scratch directory */
static int	 dirfd_;	/* ... open */
static pid_t	 srv = -1;
static char	 port[16];

static void
setup(void)
{
	top = unit_mkdtemp();
	unit_write(top, "old", "old bytes\n");
	dirfd_ = open(top, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ne(dirfd_, -1);
}

static void
teardown(void)
{
	unit_server_stop(&srv);
	close(dirfd_);
	unit_rmtree(top);
	free(top);
}

/* Send n bytes, one at a time if trickle. */
static void
srv_send(int fd, const char *p, size_t n, int trickle)
{
	size_t	step;

	while (n > 0) {
		step = trickle ? 1 : n;
		unit_send(fd, p, step);
		p += step;
		n -= step;
	}
}

static void
srv_puts(int fd, const char *s)
{
	srv_send(fd, s, strlen(s), 0);
}

/* The script of a session: the next reply to give. */
struct script {
	const struct reply	*r;
	size_t			 n, k;
};

/* QUIT and REPO get their usual answers, anything else the next reply. */
static int
srv_answer(int fd, char *line, void *arg)
{
	struct script	*sc = arg;

	if (strncmp(line, "QUIT", 4) == 0) {
		srv_puts(fd, "201 QUIT OK\r\n");
		return 1;
	} else if (strncmp(line, "REPO", 4) == 0)
		srv_puts(fd, "215 Report successful\r\n");
	else if (sc->k < sc->n) {
		srv_send(fd, sc->r[sc->k].bytes, sc->r[sc->k].len,
		    sc->r[sc->k].trickle);
		if (sc->r[sc->k++].close) {
			shutdown(fd, SHUT_RDWR);
			return 1;
		}
	} else
		srv_puts(fd, "500 Command unrecognized\r\n");
	return 0;
}

/* A server for one connection, answering by the script r. */
static void
srv_start(const struct reply *r, size_t n)
{
	struct script	 sc = { r, n, 0 };

	/* The server process serves from its own copy of sc. */
	srv = unit_server(port, sizeof(port), 0, srv_answer, &sc);
}

static struct net *
connect_srv(void)
{
	struct netopts	 no;

	return unit_connect(port, &no);
}

/* A RETR reply carrying body, whose size line says size. */
static char *
retr_reply(const char *body, size_t bodylen, long long size, size_t *len)
{
	char	*s;
	int	 n;

	n = asprintf(&s, "240 Retrieving file\r\n%lld\r\n%.*s.\r\n", size,
	    (int)bodylen, body);
	ck_assert_int_ne(n, -1);
	*len = (size_t)n;
	return s;
}

/* The sha1 of s as transcripts write it. */
static void
sha1_of(const char *s, char out[CKSUM_B64MAX])
{
	struct cksum	*ck = cksum_new("sha1");

	ck_assert_ptr_nonnull(ck);
	cksum_update(ck, s, strlen(s));
	cksum_final(ck, out);
	cksum_free(ck);
}

static void
want_init(struct dl_want *w, const char *body, struct cksum *ck, char *sum)
{
	memset(w, 0, sizeof(*w));
	w->path = "./old";
	w->where = "line 7";
	w->source = "transcript";
	w->size = (int64_t)strlen(body);
	sha1_of(body, sum);
	w->cksum = sum;
	w->ck = ck;
	w->lineno = 7;
	w->mode = 0600;
}

/* The scratch directory holds exactly "old" with its first bytes. */
static void
assert_old_only(void)
{
	struct dirent	*d;
	DIR		*dp;
	char		 p[PATH_MAX], buf[64];
	FILE		*fp;
	int		 n = 0;

	ck_assert_ptr_nonnull(dp = opendir(top));
	while ((d = readdir(dp)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 || strcmp(d->d_name, "..") == 0)
			continue;
		ck_assert_msg(strcmp(d->d_name, "old") == 0,
		    "left behind: %s", d->d_name);
		n++;
	}
	closedir(dp);
	ck_assert_int_eq(n, 1);
	snprintf(p, sizeof(p), "%s/old", top);
	ck_assert_ptr_nonnull(fp = fopen(p, "r"));
	ck_assert_ptr_nonnull(fgets(buf, sizeof(buf), fp));
	fclose(fp);
	ck_assert_str_eq(buf, "old bytes\n");
}

/* Read the whole of dirfd_/name into buf. */
static void
read_back(const char *name, char *buf, size_t len)
{
	ssize_t	n;
	int	fd;

	ck_assert_int_ne(fd = openat(dirfd_, name, O_RDONLY), -1);
	ck_assert_int_ge(n = read(fd, buf, len - 1), 0);
	buf[n] = '\0';
	close(fd);
}

/* Receive a good file, then make it durable over the old one. */
static void
receive(int trickle)
{
	const char	*body = "new content\nof the file\n";
	struct dl_want	 w;
	struct reply	 r;
	struct cksum	*ck = cksum_new("sha1");
	struct cerr	 err;
	struct net	*net;
	char		 sum[CKSUM_B64MAX], buf[256], *tmp;
	int		 fd;

	r.bytes = retr_reply(body, strlen(body), (long long)strlen(body),
	    &r.len);
	r.trickle = trickle;
	r.close = 0;
	srv_start(&r, 1);
	net = connect_srv();
	want_init(&w, body, ck, sum);
	ck_assert_int_eq(net_send_retr(net, "FILE", "t.T", "./old", &err), 0);
	ck_assert_int_eq(dl_file(net, &w, dirfd_, "old", &fd, &tmp, &err),
	    DL_OK);
	ck_assert_int_eq(strncmp(tmp, "old.radmind.", 12), 0);
	read_back(tmp, buf, sizeof(buf));
	ck_assert_str_eq(buf, body);
	read_back("old", buf, sizeof(buf));
	ck_assert_str_eq(buf, "old bytes\n");	/* untouched until commit */
	ck_assert_int_eq(dl_commit(fd, dirfd_, tmp, "old", "./old", &err), 0);
	read_back("old", buf, sizeof(buf));
	ck_assert_str_eq(buf, body);
	ck_assert_int_eq(faccessat(dirfd_, tmp, F_OK, 0), -1);
	free(tmp);
	ck_assert_int_eq(net_close(net, &err), 0);
	cksum_free(ck);
	free((char *)r.bytes);
}

START_TEST(test_receive)
{
	receive(0);
}
END_TEST

/* Short reads: the reply arrives one byte per segment. */
START_TEST(test_short_reads)
{
	receive(1);
}
END_TEST

/* Fails the download of body under reply r as rc with msg in err. */
static struct net *
fail_with(const char *body, struct reply *r, size_t nr, int rc,
    const char *msg)
{
	struct dl_want	 w;
	struct cksum	*ck = cksum_new("sha1");
	struct cerr	 err;
	struct net	*net;
	char		 sum[CKSUM_B64MAX], *tmp = NULL;
	int		 fd = 123;

	srv_start(r, nr);
	net = connect_srv();
	want_init(&w, body, ck, sum);
	ck_assert_int_eq(net_send_retr(net, "FILE", "t.T", "./old", &err), 0);
	ck_assert_int_eq(dl_file(net, &w, dirfd_, "old", &fd, &tmp, &err), rc);
	ck_assert_msg(strstr(err.msg, msg) != NULL, "message: %s", err.msg);
	ck_assert_int_eq(fd, -1);
	ck_assert_ptr_null(tmp);
	assert_old_only();
	cksum_free(ck);
	return net;
}

/* The next download on the same session still works. */
static void
session_goes_on(struct net *net)
{
	const char	*body = "second\n";
	struct dl_want	 w;
	struct cksum	*ck = cksum_new("sha1");
	struct cerr	 err;
	char		 sum[CKSUM_B64MAX], *tmp;
	int		 fd;

	want_init(&w, body, ck, sum);
	ck_assert_int_eq(net_send_retr(net, "FILE", "t.T", "./old", &err), 0);
	ck_assert_int_eq(dl_file(net, &w, dirfd_, "old", &fd, &tmp, &err),
	    DL_OK);
	close(fd);
	(void)unlinkat(dirfd_, tmp, 0);
	free(tmp);
	ck_assert_int_eq(net_close(net, &err), 0);
	cksum_free(ck);
}

/* The server announces a size other than the transcript's. */
/*
 * The server answers the first request with first (malloc'd, freed
 * here): the download of want fails with msg and the session carries a
 * second download.
 */
static void
fail_then_go_on(char *first, size_t len, const char *want, const char *msg)
{
	struct reply	 r[2];

	memset(r, 0, sizeof(r));
	r[0].bytes = first;
	r[0].len = len;
	r[1].bytes = retr_reply("second\n", 7, 7, &r[1].len);
	session_goes_on(fail_with(want, r, 2, DL_SERVER, msg));
	free(first);
	free((char *)r[1].bytes);
}

START_TEST(test_lying_size)
{
	size_t	len;
	char	*r = retr_reply("twenty bytes of data", 20, 20, &len);

	fail_then_go_on(r, len, "eleven byte",
	    "line 7: size in transcript does not match size from server");
}
END_TEST

/* The same size, other bytes: the digest catches it. */
START_TEST(test_bad_digest)
{
	size_t	len;
	char	*r = retr_reply("hello worle", 11, 11, &len);

	fail_then_go_on(r, len, "hello world", "line 7: checksum in "
	    "transcript does not match checksum from server");
}
END_TEST

/* A refusal is per request. */
START_TEST(test_refused)
{
	char	*r = strdup("540 File not found\r\n");

	fail_then_go_on(r, strlen(r), "hello world", "File not found");
}
END_TEST

/* The body ends early and the server closes: the session is gone. */
static char	 cut[] = "240 Retrieving file\r\n11\r\nhello";

/* A reply whose body ends after 5 of its 11 bytes, then the close. */
static void
cut_reply(struct reply *r)
{
	r->bytes = cut;
	r->len = strlen(cut);
	r->trickle = 0;
	r->close = 1;
}

START_TEST(test_cut_body)
{
	struct reply	 r;
	struct net	*net;

	cut_reply(&r);
	net = fail_with("hello world", &r, 1, DL_DEAD, "");
	net_abort(net);
}
END_TEST

/*
 * Serve the one reply r to a RETR received with dl_tofd into fd, which
 * must end in rc; the session is returned.
 */
static struct net *
tofd(struct reply *r, int fd, int rc, struct cerr *err)
{
	struct dl_want	 w;
	struct net	*net;

	srv_start(r, 1);
	net = connect_srv();
	memset(&w, 0, sizeof(w));
	w.path = "./old";
	w.size = -1;
	ck_assert_int_eq(net_send_retr(net, "FILE", "t.T", "./old", err), 0);
	ck_assert_int_eq(dl_tofd(net, &w, fd, err), rc);
	return net;
}

/*
 * dl_tofd (lfdiff's copy): any announced size, trickled, lands whole in
 * the caller's descriptor; nothing is created in any directory.
 */
START_TEST(test_tofd)
{
	const char	*body = "server copy\n";
	struct reply	 r;
	struct cerr	 err;
	struct net	*net;
	char		 buf[64];
	ssize_t		 n;
	int		 fd;

	r.bytes = retr_reply(body, strlen(body), (long long)strlen(body),
	    &r.len);
	r.trickle = 1;
	r.close = 0;
	ck_assert_int_ne(fd = openat(dirfd_, "private", O_RDWR | O_CREAT |
	    O_EXCL, 0600), -1);
	net = tofd(&r, fd, DL_OK, &err);
	ck_assert_int_eq(pread(fd, buf, sizeof(buf) - 1, 0),
	    (ssize_t)strlen(body));
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	buf[n] = '\0';
	ck_assert_str_eq(buf, body);
	close(fd);
	ck_assert_int_eq(unlinkat(dirfd_, "private", 0), 0);
	assert_old_only();
	ck_assert_int_eq(net_close(net, &err), 0);
	free((char *)r.bytes);
}
END_TEST

/* dl_tofd: a body cut short is reported, not taken for the file. */
START_TEST(test_tofd_cut)
{
	struct reply	 r;
	struct cerr	 err;
	struct net	*net;

	cut_reply(&r);
	net = tofd(&r, -1, DL_DEAD, &err);
	ck_assert_msg(err.msg[0] != '\0', "no message");
	net_abort(net);
}
END_TEST

/*
 * Temp names of both forms dl_tempname makes: for a short leaf (0), and
 * for one too long to take a suffix (1).
 */
static char *
temp_of(int longleaf)
{
	char	 leaf[256];

	if (!longleaf)
		return dl_tempname("x.T", 7);
	memset(leaf, 'a', 250);
	leaf[250] = '\0';
	return dl_tempname(leaf, 7);
}

/*
 * dl_istemp knows both forms of dl_tempname's names, in any case, and
 * looks at the component it is given only.
 */
START_TEST(test_istemp)
{
	static const char *const yes[] = {
		"x.T.radmind.123", "X.T.RADMIND.4", "a.Radmind.0",
		".radmind.6", ".radmind.6.0", ".RADMIND.12.34"
	};
	static const char *const no[] = {
		"x.T", "x.T.radmind", "x.T.radmind.", "x.T.radmind.1a",
		"radmind.1", "x.radmind1", "a.radmind.1.2", ".radmind..1",
		".radmind.1.", "x.radmind.-1", ""
	};
	char	*tmp;
	size_t	 i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		ck_assert_msg(dl_istemp(yes[i], strlen(yes[i])), "%s", yes[i]);
	for (i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		ck_assert_msg(!dl_istemp(no[i], strlen(no[i])), "%s", no[i]);
	ck_assert(dl_istemp("a.radmind.1/b", 11));
	ck_assert(!dl_istemp("a.radmind.1/b", 13));
	for (i = 0; i < 2; i++) {
		tmp = temp_of(i);
		ck_assert(i == 0 || strncmp(tmp, ".radmind.", 9) == 0);
		ck_assert(dl_istemp(tmp, strlen(tmp)));
		free(tmp);
	}
}
END_TEST

/*
 * dl_isowntemp knows both forms of this process's temp names only, in
 * any case: another number is another process's.
 */
START_TEST(test_isowntemp)
{
	char	 name[300], *tmp;
	long	 pid = (long)getpid();
	int	 i;

	for (i = 0; i < 2; i++) {
		tmp = temp_of(i);
		ck_assert(dl_isowntemp(tmp, strlen(tmp)));
		free(tmp);
	}
	snprintf(name, sizeof(name), "X.RADMIND.%ld", pid);
	ck_assert(dl_isowntemp(name, strlen(name)));
	snprintf(name, sizeof(name), ".RADMIND.%ld.0/b", pid);
	ck_assert(dl_isowntemp(name, strlen(name) - 2));
	ck_assert(!dl_isowntemp(name, strlen(name)));
	snprintf(name, sizeof(name), "x.radmind.%ld", pid + 1);
	ck_assert(!dl_isowntemp(name, strlen(name)));
	ck_assert(dl_istemp(name, strlen(name)));
	snprintf(name, sizeof(name), "x.radmind.0%ld", pid);
	ck_assert(!dl_isowntemp(name, strlen(name)));
	snprintf(name, sizeof(name), ".radmind.%ld1.2", pid);
	ck_assert(!dl_isowntemp(name, strlen(name)));
	snprintf(name, sizeof(name), "%ld.radmind.1.%ld", pid, pid);
	ck_assert(!dl_isowntemp(name, strlen(name)));
}
END_TEST

/* A declared size that cannot fit is refused before any byte lands. */
START_TEST(test_no_room)
{
	struct dl_want	 w;
	struct reply	 r;
	struct cerr	 err;
	struct net	*net;
	char		 sum[CKSUM_B64MAX], *tmp = NULL;
	int		 fd = 123;

	r.bytes = "240 Retrieving file\r\n1125899906842624\r\nxxxx";
	r.len = strlen(r.bytes);
	r.trickle = 0;
	r.close = 0;
	srv_start(&r, 1);
	net = connect_srv();
	want_init(&w, "x", NULL, sum);
	w.size = 1LL << 50;		/* the transcript agrees: 1 PiB */
	ck_assert_int_eq(net_send_retr(net, "FILE", "t.T", "./old", &err), 0);
	/* Too large to drain: the session cannot go on. */
	ck_assert_int_eq(dl_file(net, &w, dirfd_, "old", &fd, &tmp, &err),
	    DL_DEAD);
	ck_assert_msg(strstr(err.msg, "line 7: ./old: 1125899906842624 "
	    "bytes do not fit") != NULL, "message: %s", err.msg);
	ck_assert_ptr_null(tmp);
	assert_old_only();
	net_abort(net);
}
END_TEST

/* A failed rename leaves the destination and removes the temp file. */
START_TEST(test_failed_rename)
{
	const char	*body = "data\n";
	struct dl_want	 w;
	struct reply	 r;
	struct cksum	*ck = cksum_new("sha1");
	struct cerr	 err;
	struct net	*net;
	char		 sum[CKSUM_B64MAX], *tmp;
	int		 fd;

	r.bytes = retr_reply(body, strlen(body), 5, &r.len);
	r.trickle = 0;
	r.close = 0;
	srv_start(&r, 1);
	net = connect_srv();
	want_init(&w, body, ck, sum);
	ck_assert_int_eq(mkdirat(dirfd_, "full", 0755), 0);
	ck_assert_int_eq(mkdirat(dirfd_, "full/keep", 0755), 0);
	ck_assert_int_eq(net_send_retr(net, "FILE", "t.T", "./full", &err),
	    0);
	ck_assert_int_eq(dl_file(net, &w, dirfd_, "full", &fd, &tmp, &err),
	    DL_OK);
	/* A file cannot replace a directory that holds something. */
	ck_assert_int_eq(dl_commit(fd, dirfd_, tmp, "full", "./full", &err),
	    -1);
	ck_assert_msg(strstr(err.msg, "./full: rename") != NULL, "message: %s",
	    err.msg);
	ck_assert_int_eq(faccessat(dirfd_, tmp, F_OK, 0), -1);
	ck_assert_int_eq(faccessat(dirfd_, "full/keep", F_OK, 0), 0);
	free(tmp);
	ck_assert_int_eq(net_close(net, &err), 0);
	cksum_free(ck);
	free((char *)r.bytes);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The apply library on local transcripts (no network). */

static char	 outp[PATH_MAX / 2];

/* Directory levels of the depth case: past what the walker holds. */
#define CONFINE_DEPTH_TEST	(CONFINE_MAXDEPTH + 4)

/* Load and run text as an applicable transcript with root "top/root". */
static int
apply_text(const char *text, int *loaded)
{
	struct apply	 a;
	char		 rootp[PATH_MAX];
	struct progtotal total;
	FILE		*fp;
	int		 rc;

	snprintf(rootp, sizeof(rootp), "%s/root", top);
	ck_assert_int_eq(chdir(rootp), 0);
	ck_assert_ptr_nonnull(fp = fmemopen((void *)text, strlen(text), "r"));
	memset(&a, 0, sizeof(a));
	a.quiet = 1;
	a.name = "unit.T";
	a.event = "lapply";
	*loaded = apply_load(&a, fp, &total) == 0;
	fclose(fp);
	rc = *loaded ? apply_run(&a, PROG_NONE, &total) : -1;
	return apply_finish(&a, rc == 0);
}

static void
setup_apply(void)
{
	char	p[PATH_MAX];

	setup();
	snprintf(p, sizeof(p), "%s/root", top);
	ck_assert_int_eq(mkdir(p, 0755), 0);
	snprintf(outp, sizeof(outp), "%s/outside", top);
	ck_assert_int_eq(mkdir(outp, 0755), 0);
	unit_write(outp, "secret", "outside bytes\n");
}

/* The outside directory still holds only its secret. */
static void
assert_outside_intact(void)
{
	struct dirent	*d;
	DIR		*dp;
	int		 n = 0;

	ck_assert_ptr_nonnull(dp = opendir(outp));
	while ((d = readdir(dp)) != NULL)
		if (d->d_name[0] != '.') {
			ck_assert_str_eq(d->d_name, "secret");
			n++;
		}
	closedir(dp);
	ck_assert_int_eq(n, 1);
}

static char *
dirline(const char *path)
{
	char	*s;

	ck_assert_int_ne(asprintf(&s, "d %s 0755 %u %u\n", path,
	    (unsigned)getuid(), (unsigned)getgid()), -1);
	return s;
}

/* ".." in a path is refused at load: nothing is made. */
START_TEST(test_apply_dotdot)
{
	char	*l1 = dirline("./a"), *l2 = dirline("./a/../b"), *t;
	int	 loaded;

	ck_assert_int_ne(asprintf(&t, "%s%s", l1, l2), -1);
	ck_assert_int_eq(apply_text(t, &loaded), APPLY_FAIL);
	ck_assert_int_eq(loaded, 0);
	ck_assert_int_eq(access("a", F_OK), -1);
	ck_assert_int_eq(access("b", F_OK), -1);
	assert_outside_intact();
	free(l1);
	free(l2);
	free(t);
}
END_TEST

/*
 * A symbolic link where the transcript has a directory is replaced by
 * the directory; what is below is made there, never through the link.
 */
START_TEST(test_apply_symlink_parent)
{
	char		*l1 = dirline("./a"), *l2 = dirline("./a/b"), *t;
	char		 p[PATH_MAX];
	struct stat	 st;
	int		 loaded;

	snprintf(p, sizeof(p), "%s/root/a", top);
	ck_assert_int_eq(symlink(outp, p), 0);
	ck_assert_int_ne(asprintf(&t, "%s%s", l1, l2), -1);
	ck_assert_int_eq(apply_text(t, &loaded), APPLY_OK);
	ck_assert_int_eq(lstat("a", &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(lstat("a/b", &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	assert_outside_intact();
	free(l1);
	free(l2);
	free(t);
}
END_TEST

/* Deeper than the walker goes: an error naming the limit, no escape. */
START_TEST(test_apply_depth)
{
	char	 path[2 * CONFINE_DEPTH_TEST + 8], *t = NULL, *l;
	size_t	 n = 0, len = 0;
	int	 i, loaded;
	FILE	*fp;

	ck_assert_ptr_nonnull(fp = open_memstream(&t, &len));
	strlcpy(path, ".", sizeof(path));
	for (i = 0; i < CONFINE_DEPTH_TEST; i++) {
		n = strlen(path);
		snprintf(path + n, sizeof(path) - n, "/d");
		l = dirline(path);
		fputs(l, fp);
		free(l);
	}
	fclose(fp);
	ck_assert_int_eq(apply_text(t, &loaded), APPLY_PARTIAL);
	ck_assert_int_eq(loaded, 1);
	assert_outside_intact();
	free(t);
}
END_TEST


/*
 * DELTA: the reply to a DELTA request is a delta applied to the basis
 * the caller holds ("old"), or the whole file.
 */
static char	 d_old[2048], d_new[4096], d_other[2048];
#define D_OLD		d_old
#define D_NEW		d_new

/*
 * The basis "old" (its first line as the other cases have it), the new
 * file that extends it, and a basis of the same size and other bytes.
 */
static void
setup_delta(void)
{
	size_t	 len;
	int	 i;

	setup();
	strlcpy(d_old, "old bytes\n", sizeof(d_old));
	for (i = 0; i < 40; i++) {
		len = strlen(d_old);
		snprintf(d_old + len, sizeof(d_old) - len, "line %d of the "
		    "old file, %u\n", i, (unsigned)(i * 2654435761U));
	}
	unit_write(top, "old", d_old);
	snprintf(d_new, sizeof(d_new), "%sand a new line\n", d_old);
	strlcpy(d_other, d_old, sizeof(d_other));
	d_other[strlen(d_other) / 2] ^= 0x20;
}

/* A "241 Retrieving delta" reply: the delta of target from basis. */
static char *
delta_reply(const char *basis, const char *target, const char *digest,
    size_t *len)
{
	struct buf	*d = buf_new(1 << 20);
	struct cerr	 err;
	char		*s, head[64];
	int		 n;

	ck_assert_int_eq(delta_make(basis, strlen(basis), target,
	    strlen(target), digest, 3, d, &err), 0);
	n = snprintf(head, sizeof(head), "241 Retrieving delta\r\n%zu\r\n",
	    buf_len(d));
	s = xmalloc((size_t)n + buf_len(d) + 3);
	memcpy(s, head, (size_t)n);
	memcpy(s + n, buf_data(d), buf_len(d));
	memcpy(s + n + buf_len(d), ".\r\n", 3);
	*len = (size_t)n + buf_len(d) + 3;
	buf_free(d);
	return s;
}

/*
 * Ask for "./old" with DELTA against "old" (digest sum of the basis
 * as sent), the server answering r[0] then r[1]; dl_file of want must
 * end in rc.  On DL_OK the temp file must hold want and is removed.
 * The session is returned (r[1], if any, still due).
 */
static struct net *
delta_get(struct reply *r, size_t nr, const char *want, int rc,
    struct dl_basis *b, struct cerr *err)
{
	struct dl_want	 w;
	struct cksum	*ck = cksum_new("sha1");
	struct net	*net;
	char		 sum[CKSUM_B64MAX], bsum[CKSUM_B64MAX], buf[4096];
	char		*tmp = NULL;
	int		 fd = 123;

	srv_start(r, nr);
	net = connect_srv();
	want_init(&w, want, ck, sum);
	memset(b, 0, sizeof(*b));
	ck_assert_int_ne(b->fd = openat(dirfd_, "old", O_RDONLY), -1);
	w.basis = b;
	sha1_of(D_OLD, bsum);
	ck_assert_int_eq(net_send_delta(net, "sha1", bsum, "t.T", "./old",
	    err), 0);
	ck_assert_int_eq(dl_file(net, &w, dirfd_, "old", &fd, &tmp, err), rc);
	close(b->fd);
	if (rc == DL_OK) {
		read_back(tmp, buf, sizeof(buf));
		ck_assert_str_eq(buf, want);
		close(fd);
		ck_assert_int_eq(unlinkat(dirfd_, tmp, 0), 0);
		free(tmp);
	} else {
		ck_assert_int_eq(fd, -1);
		ck_assert_ptr_null(tmp);
	}
	assert_old_only();
	cksum_free(ck);
	return net;
}

/* A good delta makes the file; the session goes on. */
START_TEST(test_delta_good)
{
	struct reply	 r[2];
	struct dl_basis	 b;
	struct cerr	 err;

	memset(r, 0, sizeof(r));
	r[0].bytes = delta_reply(D_OLD, D_NEW, "sha1", &r[0].len);
	r[1].bytes = retr_reply("second\n", 7, 7, &r[1].len);
	session_goes_on(delta_get(r, 2, D_NEW, DL_OK, &b, &err));
	ck_assert_int_eq(b.delta, 1);
	ck_assert_int_eq(b.failed, 0);
	ck_assert_int_eq(b.wire, (int64_t)r[0].len - 3 -
	    (int64_t)(strchr(strchr(r[0].bytes, '\n') + 1, '\n') + 1 -
	    r[0].bytes));
	free((char *)r[0].bytes);
	free((char *)r[1].bytes);
}
END_TEST

/* The same delta, one byte per segment. */
START_TEST(test_delta_trickle)
{
	struct reply	 r;
	struct dl_basis	 b;
	struct cerr	 err;

	memset(&r, 0, sizeof(r));
	r.bytes = delta_reply(D_OLD, D_NEW, "sha1", &r.len);
	r.trickle = 1;
	ck_assert_int_eq(net_close(delta_get(&r, 1, D_NEW, DL_OK, &b, &err),
	    &err), 0);
	ck_assert_int_eq(b.delta, 1);
	free((char *)r.bytes);
}
END_TEST

/*
 * A delta that fails: a local failure with failed set, nothing left
 * behind, the old file as it was, and the session goes on.
 */
static void
delta_fails(char *first, size_t len, const char *want, const char *msg)
{
	struct reply	 r[2];
	struct dl_basis	 b;
	struct cerr	 err;
	struct net	*net;

	memset(r, 0, sizeof(r));
	r[0].bytes = first;
	r[0].len = len;
	r[1].bytes = retr_reply("second\n", 7, 7, &r[1].len);
	net = delta_get(r, 2, want, DL_LOCAL, &b, &err);
	ck_assert_msg(strstr(err.msg, msg) != NULL, "message: %s", err.msg);
	ck_assert_int_eq(b.delta, 1);
	ck_assert_int_eq(b.failed, 1);
	session_goes_on(net);
	free(first);
	free((char *)r[1].bytes);
}

/* A byte of the zstd frame changed: zstd or the digest finds it. */
START_TEST(test_delta_corrupt)
{
	size_t	 len;
	char	*r = delta_reply(D_OLD, D_NEW, "sha1", &len);

	r[len - 6] ^= 0x55;
	delta_fails(r, len, D_NEW, "line 7: ./old: delta: ");
}
END_TEST

/* A delta made from another basis: refused before it is applied. */
START_TEST(test_delta_wrong_basis)
{
	size_t	 len;
	char	*r = delta_reply(d_other, D_NEW, "sha1", &len);

	delta_fails(r, len, D_NEW, "the basis is not the one");
}
END_TEST

/*
 * A delta named by no digest, made from a basis of the right size and
 * other bytes (which its target shares): zstd's checksum finds it.
 */
START_TEST(test_delta_wrong_basis_nodigest)
{
	char	 want[sizeof(d_other) + 32];
	size_t	 len;
	char	*r;

	snprintf(want, sizeof(want), "%sand a new line\n", d_other);
	r = delta_reply(d_other, want, NULL, &len);
	delta_fails(r, len, want, "line 7: ./old: delta: corrupt");
}
END_TEST

/* A sound delta of another target than the transcript's. */
START_TEST(test_delta_other_target)
{
	size_t	 len;
	char	 other[sizeof(d_old) + 32];
	char	*r;

	snprintf(other, sizeof(other), "%sand a NEW line\n", D_OLD);
	r = delta_reply(D_OLD, other, "sha1", &len);

	delta_fails(r, len, D_NEW, "does not match the checksum in "
	    "transcript");
}
END_TEST

/* The delta ends early (its size line says so): truncated. */
START_TEST(test_delta_truncated)
{
	size_t	 len, n;
	char	*r = delta_reply(D_OLD, D_NEW, "sha1", &len), *s, *body;
	int	 h;

	body = strchr(strchr(r, '\n') + 1, '\n') + 1;
	n = len - 3 - (size_t)(body - r) - 4;
	s = xmalloc(len);
	h = snprintf(s, len, "241 Retrieving delta\r\n%zu\r\n", n);
	memcpy(s + h, body, n);
	memcpy(s + h + n, ".\r\n", 3);
	free(r);
	delta_fails(s, (size_t)h + n + 3, D_NEW, "truncated");
}
END_TEST

/* A size line over what a delta of the file can be: out of step. */
START_TEST(test_delta_oversized)
{
	struct reply	 r;
	struct dl_basis	 b;
	struct cerr	 err;
	char		*s;

	ck_assert_int_ne(asprintf(&s, "241 Retrieving delta\r\n%zu\r\n",
	    delta_bound(strlen(D_NEW)) + 1), -1);
	memset(&r, 0, sizeof(r));
	r.bytes = s;
	r.len = strlen(s);
	net_abort(delta_get(&r, 1, D_NEW, DL_DEAD, &b, &err));
	ck_assert_msg(strstr(err.msg, "bad delta size") != NULL,
	    "message: %s", err.msg);
	free(s);
}
END_TEST

/* 240 to a DELTA: the whole file, as for RETR. */
START_TEST(test_delta_whole)
{
	struct reply	 r[2];
	struct dl_basis	 b;
	struct cerr	 err;

	memset(r, 0, sizeof(r));
	r[0].bytes = retr_reply(D_NEW, strlen(D_NEW), (long long)strlen(D_NEW),
	    &r[0].len);
	r[1].bytes = retr_reply("second\n", 7, 7, &r[1].len);
	session_goes_on(delta_get(r, 2, D_NEW, DL_OK, &b, &err));
	ck_assert_int_eq(b.delta, 0);
	ck_assert_int_eq(b.failed, 0);
	free((char *)r[0].bytes);
	free((char *)r[1].bytes);
}
END_TEST

/* A refusal of a DELTA is per request, as for RETR. */
START_TEST(test_delta_refused)
{
	struct reply	 r[2];
	struct dl_basis	 b;
	struct cerr	 err;

	memset(r, 0, sizeof(r));
	r[0].bytes = "540 File not found\r\n";
	r[0].len = strlen(r[0].bytes);
	r[1].bytes = retr_reply("second\n", 7, 7, &r[1].len);
	session_goes_on(delta_get(r, 2, D_NEW, DL_SERVER, &b, &err));
	ck_assert_int_eq(b.failed, 0);
	free((char *)r[1].bytes);
}
END_TEST

static Suite *
download_suite(void)
{
	Suite	*s = suite_create("download");
	TCase	*tc = tcase_create("dl");
	TCase	*ta = tcase_create("apply");
	TCase	*tn = tcase_create("names");
	TCase	*td;

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_receive);
	tcase_add_test(tc, test_short_reads);
	tcase_add_test(tc, test_lying_size);
	tcase_add_test(tc, test_bad_digest);
	tcase_add_test(tc, test_refused);
	tcase_add_test(tc, test_cut_body);
	tcase_add_test(tc, test_no_room);
	tcase_add_test(tc, test_failed_rename);
	tcase_add_test(tc, test_tofd);
	tcase_add_test(tc, test_tofd_cut);
	suite_add_tcase(s, tc);

	tcase_add_test(tn, test_istemp);
	tcase_add_test(tn, test_isowntemp);
	suite_add_tcase(s, tn);

	/* Deltas only where they are built in (not --without-zstd). */
	if (delta_built()) {
		td = tcase_create("delta");
		tcase_add_checked_fixture(td, setup_delta, teardown);
		tcase_set_timeout(td, 60);
		tcase_add_test(td, test_delta_good);
		tcase_add_test(td, test_delta_trickle);
		tcase_add_test(td, test_delta_corrupt);
		tcase_add_test(td, test_delta_wrong_basis);
		tcase_add_test(td, test_delta_wrong_basis_nodigest);
		tcase_add_test(td, test_delta_other_target);
		tcase_add_test(td, test_delta_truncated);
		tcase_add_test(td, test_delta_oversized);
		tcase_add_test(td, test_delta_whole);
		tcase_add_test(td, test_delta_refused);
		suite_add_tcase(s, td);
	}

	tcase_add_checked_fixture(ta, setup_apply, teardown);
	tcase_set_timeout(ta, 60);
	tcase_add_test(ta, test_apply_dotdot);
	tcase_add_test(ta, test_apply_symlink_parent);
	tcase_add_test(ta, test_apply_depth);
	suite_add_tcase(s, ta);
	return s;
}

int
main(void)
{
	return unit_run(download_suite());
}
