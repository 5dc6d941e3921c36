/*
 * bench-update.c: --update OLD NEW, an update pulled whole and by delta.
 *
 * OLD is published as the loadset bench.T with cairn-publish, and a
 * client root is brought to it by the real pull once, then kept as a
 * snapshot (its command file directory too).  NEW is published over it
 * with cairn-publish -f, which keeps the files it changes as bases, and
 * cairn-publish -d builds the deltas (its CPU time is reported).  Then,
 * for every link, repetition, level and mode, the snapshot is restored
 * and the pull path (ktcheck, fsdiff -A, lapply -v, all with -c sha1)
 * brings it to NEW through the relay of the link: "whole" with the store
 * of deltas moved aside, so that cairnd's banner offers no DELTA and every
 * changed file comes whole, as before delta transfer; "delta" with it in
 * place.  After each pull fsdiff -A of the root against NEW's transcript
 * must find nothing to do: a root that is not NEW fails the run.
 *
 * When rsync is installed, each repetition on a link ends with the same
 * update by rsync -z for comparison: an rsync daemon serves NEW where
 * cairnd would listen, and the rsync client brings a copy of the
 * snapshot to it through the same relay (and, with --shaper tc, the
 * same namespaces), checked the same way.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "fsutil.h"
#include "log.h"
#include "relay.h"
#include "xmalloc.h"

#define TNAME		"bench.T"
#define KNAME		"bench.K"
/*
 * rsync's I/O and connection timeouts, in seconds: the deadline of a
 * call of the cairn tools (60 s, common/conn.c), so that a stalled rsync
 * pull ends as a stalled lapply does.
 */
#define RSYNC_TIMEOUT	"60"

/* The modes of an update, in the order each level runs them. */
#define MODE_WHOLE	0
#define MODE_DELTA	1
static const char *const mode_names[] = { "whole", "delta" };

/* The files of a tree already copied, for its hard links. */
struct copied {
	dev_t		 dev;
	ino_t		 ino;
	char		*path;		/* its copy */
};

struct copier {
	struct copied	*v;
	size_t		 n, cap;
};

/* The copy of the inode of st made earlier, or NULL. */
static const char *
copy_seen(const struct copier *c, const struct stat *st)
{
	size_t	i;

	for (i = 0; i < c->n; i++)
		if (c->v[i].dev == st->st_dev && c->v[i].ino == st->st_ino)
			return c->v[i].path;
	return NULL;
}

/* Copy the contents of the regular file src to dst (created 0600). */
static void
copy_file(const char *src, const char *dst)
{
	char	buf[65536];
	ssize_t	n;
	int	in, out;

	if ((in = open(src, O_RDONLY | O_NOFOLLOW)) == -1)
		fatal("%s", src);
	if ((out = open(dst, O_WRONLY | O_CREAT | O_EXCL, 0600)) == -1)
		fatal("%s", dst);
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (fs_write_all(out, buf, (size_t)n) == -1)
			fatal("%s: write", dst);
	if (n == -1)
		fatal("%s: read", src);
	close(in);
	if (close(out) == -1)
		fatal("%s", dst);
}

/*
 * Give dst the owner, mode and modification time of st (a symbolic link
 * its owner and time only).
 */
static void
copy_meta(const char *dst, const struct stat *st)
{
	struct timespec	ts[2];

	if (lchown(dst, st->st_uid, st->st_gid) == -1 && geteuid() == 0)
		fatal("chown %s", dst);
	if (!S_ISLNK(st->st_mode) && chmod(dst, st->st_mode & 07777) == -1)
		fatal("chmod %s", dst);
	ts[0] = st->st_atim;
	ts[1] = st->st_mtim;
	if (utimensat(AT_FDCWD, dst, ts, AT_SYMLINK_NOFOLLOW) == -1)
		fatal("utimensat %s", dst);
}

/*
 * Copy the tree src to dst (which must not exist) as it is: directories,
 * regular files, symbolic links, devices, FIFOs and sockets, with their
 * owners, modes and times, and hard links kept as such.  This is how the
 * snapshot of the client's root is restored before a run, so that a pull
 * finds every file as the last pull left it.
 */
static void
copy_tree(struct copier *c, const char *src, const char *dst)
{
	struct stat	 st;
	struct dirent	*de;
	DIR		*d;
	const char	*first;
	char		*s, *t, target[PATH_MAX];
	ssize_t		 n;

	if (lstat(src, &st) == -1)
		fatal("%s", src);
	if (S_ISDIR(st.st_mode)) {
		if (mkdir(dst, 0700) == -1)
			fatal("mkdir %s", dst);
		if ((d = opendir(src)) == NULL)
			fatal("%s", src);
		while ((errno = 0, de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 ||
			    strcmp(de->d_name, "..") == 0)
				continue;
			xasprintf(&s, "%s/%s", src, de->d_name);
			xasprintf(&t, "%s/%s", dst, de->d_name);
			copy_tree(c, s, t);
			free(s);
			free(t);
		}
		if (errno != 0)
			fatal("%s", src);
		closedir(d);
		copy_meta(dst, &st);	/* after its entries: its time */
		return;
	}
	if (!S_ISLNK(st.st_mode) && st.st_nlink > 1 &&
	    (first = copy_seen(c, &st)) != NULL) {
		if (link(first, dst) == -1)
			fatal("link %s to %s", first, dst);
		return;
	}
	if (S_ISREG(st.st_mode))
		copy_file(src, dst);
	else if (S_ISLNK(st.st_mode)) {
		if ((n = readlink(src, target, sizeof(target) - 1)) == -1)
			fatal("%s", src);
		target[n] = '\0';
		if (symlink(target, dst) == -1)
			fatal("symlink %s", dst);
	} else if (mknod(dst, st.st_mode, st.st_rdev) == -1)
		fatal("mknod %s", dst);
	copy_meta(dst, &st);
	if (!S_ISLNK(st.st_mode) && st.st_nlink > 1) {
		if (c->n == c->cap) {
			c->cap = c->cap ? c->cap * 2 : 64;
			c->v = xreallocarray(c->v, c->cap, sizeof(*c->v));
		}
		c->v[c->n].dev = st.st_dev;
		c->v[c->n].ino = st.st_ino;
		c->v[c->n++].path = xstrdup(dst);
	}
}

/* copy_tree of src to dst, forgetting its hard links afterwards. */
static void
update_copy(const char *src, const char *dst)
{
	struct copier	c;
	size_t		i;

	memset(&c, 0, sizeof(c));
	copy_tree(&c, src, dst);
	for (i = 0; i < c.n; i++)
		free(c.v[i].path);
	free(c.v);
}

/*
 * The reference a root is checked against: dir/bench.K reading
 * "p bench.T" and a copy of the repository's transcript in service,
 * taken now (the version just published).
 */
static void
update_reference(struct bench *b, const char *dir)
{
	char	*src, *dst;

	util_rmtree(dir);
	util_mkdir(dir);
	xasprintf(&src, "%s/transcript/" TNAME, b->repo);
	xasprintf(&dst, "%s/" TNAME, dir);
	copy_file(src, dst);
	free(src);
	free(dst);
	xasprintf(&dst, "%s/" KNAME, dir);
	util_write_file(dst, "p " TNAME "\n");
	free(dst);
}

/*
 * Check that root holds exactly the loadset of the reference in ref
 * (update_reference): fsdiff -A -c sha1 of it finds nothing to do, no
 * file to fetch, change or remove.  Otherwise the first differences are
 * shown and the run fails, named by what.
 */
static void
update_verify(struct bench *b, const char *root, const char *ref,
    const char *what)
{
	struct stat	 st;
	char		*k, *out, *log, *argv[10], line[512];
	FILE		*fp;
	int		 i, rc;

	xasprintf(&k, "%s/" KNAME, ref);
	xasprintf(&out, "%s/verify.T", ref);
	xasprintf(&log, "%s/verify.log", ref);
	unlink(log);
	(void)sweep_fsdiff_argv(b, argv, k, out);
	if ((rc = spawn_run(argv, root, log, NULL)) != 0) {
		sweep_progress_end(b);
		spawn_show_log(log);
		fatalx("%s: fsdiff -A of %s exited with status %d", what,
		    root, rc);
	}
	if (stat(out, &st) == -1)
		fatal("%s", out);
	if (st.st_size > 0) {
		sweep_progress_end(b);
		log_warnx("%s: %s differs from the loadset it should hold; "
		    "the first differences (fsdiff -A, in %s):", what, root,
		    out);
		if ((fp = fopen(out, "r")) != NULL) {
			for (i = 0; i < 10 && fgets(line, sizeof(line), fp) !=
			    NULL; i++)
				fprintf(stderr, "    %s", line);
			fclose(fp);
		}
		fatalx("%s: the pull did not leave the tree it should", what);
	}
	free(k);
	free(out);
	free(log);
}

/*
 * Move the store of deltas out of the way (MODE_WHOLE: cairnd then offers
 * no DELTA) or back into place.
 */
static void
update_mode(struct bench *b, int mode)
{
	char	*on, *off;

	xasprintf(&on, "%s/delta", b->repo);
	xasprintf(&off, "%s/delta.off", b->repo);
	if (mode == MODE_WHOLE) {
		if (rename(on, off) == -1)
			fatal("rename %s to %s", on, off);
	} else if (rename(off, on) == -1)
		fatal("rename %s to %s", off, on);
	free(on);
	free(off);
}

/*
 * A run's directory run made anew (the last one retired), with the
 * snapshot's root restored into root and, unless NULL, its client
 * directory into client: every pull finds the tree the last pull of OLD
 * left.
 */
static void
update_restore(struct bench *b, const char *run, const char *root,
    const char *client)
{
	char	*snap;

	sweep_retire(b, run);
	util_mkdir(run);
	xasprintf(&snap, "%s/snapshot/root", b->work);
	update_copy(snap, root);
	free(snap);
	if (client != NULL) {
		xasprintf(&snap, "%s/snapshot/client", b->work);
		update_copy(snap, client);
		free(snap);
	}
	sync();
}

/*
 * One pull of the update: the snapshot restored into <work>/run, then
 * the pull at level in mode through relay r, its root checked against
 * NEW (ref).
 */
static void
update_pull(struct bench *b, struct relay *r, const struct link *l,
    int level, int mode, const char *ref, struct run *out)
{
	struct relay_stats	 st;
	struct pullspec		 ps;
	char			*run, *root, *client, *what;

	xasprintf(&run, "%s/run", b->work);
	xasprintf(&root, "%s/root", run);
	xasprintf(&client, "%s/client", run);
	update_restore(b, run, root, client);

	if (mode == MODE_WHOLE)
		update_mode(b, MODE_WHOLE);
	memset(&ps, 0, sizeof(ps));
	ps.root = root;
	ps.client = client;
	ps.dir = run;
	ps.verbose = 1;
	sweep_pull(b, r, level, &ps, out, &st);
	if (mode == MODE_WHOLE)
		update_mode(b, MODE_DELTA);
	xasprintf(&what, "%s -Z %s %s", l->name, level_name(level),
	    mode_names[mode]);
	update_verify(b, root, ref, what);
	if (mode == MODE_DELTA && !out->dline) {
		sweep_progress_end(b);
		fatalx("%s: lapply -v printed no line on its deltas (log: "
		    "%s/tools.log): the server offered no DELTA", what, run);
	}
	free(what);
	free(run);
	free(root);
	free(client);
}

/*
 * The rsync daemon's configuration, <work>/rsyncd.conf: the module "new"
 * serving the tree new read-only, without chroot, its log in
 * <work>/rsyncd.log; run by root, it reads the tree as root (uid and
 * gid 0), as cairnd reads its repository.
 */
static void
update_rsync_conf(struct bench *b, const char *new)
{
	char	*text;

	/* The configuration takes a value to the end of its line. */
	if (strchr(new, '\n') != NULL)
		fatalx("%s: a newline in the name of the tree: rsync's "
		    "configuration cannot name it", new);
	xasprintf(&b->rsyncd_conf, "%s/rsyncd.conf", b->work);
	xasprintf(&text, "use chroot = no\n"
	    "log file = %s/rsyncd.log\n"
	    "[new]\n"
	    "path = %s\n"
	    "read only = yes\n"
	    "%s", b->work, new, geteuid() == 0 ? "uid = 0\ngid = 0\n" : "");
	util_write_file(b->rsyncd_conf, text);
	free(text);
}

/*
 * rsync --stats's "Total bytes sent: N" (or received) in the client's
 * log, into *v: an integer, its digits read through the thousands
 * separators rsync puts in (a comma, or a dot where the locale's decimal
 * point is a comma).
 * Returns 0, or -1 if the log has no such line.
 */
static int
update_rsync_total(const char *log, const char *key, uint64_t *v)
{
	char		 line[256];
	const char	*p;
	FILE		*fp;
	size_t		 klen = strlen(key);
	int		 found = -1, digits;

	if ((fp = fopen(log, "r")) == NULL)
		return -1;
	while (found == -1 && fgets(line, sizeof(line), fp) != NULL) {
		if (strncmp(line, key, klen) != 0)
			continue;
		*v = 0;
		for (p = line + klen, digits = 0; *p != '\0'; p++)
			if (*p >= '0' && *p <= '9' && *v < UINT64_MAX / 10) {
				*v = *v * 10 + (uint64_t)(*p - '0');
				digits++;
			} else if (*p != ',' && *p != '.')
				break;
		if (digits > 0 && (*p == '\n' || *p == '\0'))
			found = 0;
	}
	fclose(fp);
	return found;
}

/*
 * The update by rsync -z on link l: the snapshot restored into
 * <work>/run/root, an rsync daemon serving NEW started for the run, and
 * "rsync -a -H -z --delete --stats rsync://127.0.0.1:PORT/new/ ROOT/"
 * through relay r (-H: NEW's hard links are files of the loadset too),
 * its root checked against NEW (ref).  Wire bytes are rsync's --stats
 * (received down, sent up); time, CPU and peak RSS are the rsync
 * client's, the server CPU the daemon's, its session children's with it.
 */
static void
update_rsync(struct bench *b, struct relay *r, const struct link *l,
    const char *ref, struct run *out)
{
	struct relay_stats	 st;
	char			*run, *root, *dst, *log, *dlog, *url;
	char			*what, *argv[20];
	uint16_t		 port = 0;
	uint64_t		 sent, recv;
	double			 t0, cpu = 0;
	long			 rss = 0;
	pid_t			 spid = -1;
	int			 i, rc;

	memset(out, 0, sizeof(*out));
	xasprintf(&what, "%s rsync -z", l->name);
	xasprintf(&run, "%s/run", b->work);
	xasprintf(&root, "%s/root", run);
	xasprintf(&dst, "%s/", root);
	xasprintf(&log, "%s/rsync.log", run);
	xasprintf(&dlog, "%s/rsyncd.log", b->work);
	update_restore(b, run, root, NULL);

	for (i = 0; i < 3 && spid == -1; i++)
		spid = spawn_rsyncd(b, b->rsyncd_conf, dlog, &port);
	if (spid == -1) {
		sweep_progress_end(b);
		spawn_show_log(dlog);
		fatalx("%s: the rsync daemon exited at start-up three times "
		    "(log: %s)", what, dlog);
	}
	sweep_upstream(b, r, port);
	relay_stats(r, &st, 1);
	xasprintf(&url, "rsync://127.0.0.1:%u/new/", relay_port(r));

	i = tc_ns_prefix(b, argv);
	argv[i++] = b->rsync;
	argv[i++] = "-a";
	argv[i++] = "-H";
	argv[i++] = "-z";
	argv[i++] = "--delete";
	argv[i++] = "--stats";
	argv[i++] = "--timeout=" RSYNC_TIMEOUT;
	argv[i++] = "--contimeout=" RSYNC_TIMEOUT;
	argv[i++] = url;
	argv[i++] = dst;
	argv[i] = NULL;
	t0 = relay_now_ns() / 1e9;
	rc = spawn_run_rss(argv, run, log, &cpu, &rss);
	out->wall = out->lapply = relay_now_ns() / 1e9 - t0;
	relay_stats(r, &st, 1);
	out->srv_cpu = spawn_daemon_stop(b);
	if (rc != 0) {
		sweep_progress_end(b);
		spawn_show_log(log);
		fatalx("%s: rsync exited with status %d (log: %s; the "
		    "daemon's: %s)", what, rc, log, dlog);
	}
	if (st.upstream_errors > 0) {
		sweep_progress_end(b);
		fatalx("%s: the relay could not reach the rsync daemon", what);
	}
	if (update_rsync_total(log, "Total bytes sent: ", &sent) == -1 ||
	    update_rsync_total(log, "Total bytes received: ", &recv) == -1) {
		sweep_progress_end(b);
		spawn_show_log(log);
		fatalx("%s: no \"Total bytes\" lines of --stats in %s", what,
		    log);
	}
	if (out->srv_cpu < 0) {
		sweep_progress_end(b);
		log_warnx("%s: the rsync daemon kept a child for 5 s after the "
		    "pull: its CPU time is left out of this run", what);
	}
	out->cli_cpu = cpu;
	out->cli_rss = rss;
	out->wire_down = recv;
	out->wire_up = sent;
	update_verify(b, root, ref, what);
	free(what);
	free(run);
	free(root);
	free(dst);
	free(log);
	free(dlog);
	free(url);
}

/*
 * Every level of link l, whole and by delta, b->reps times; and rsync
 * -z once per repetition after them if rsync is installed.
 */
static void
update_link(struct bench *b, struct link *l, const char *ref)
{
	struct relay	*r;
	struct cell	*c;
	int		 rep, li, mode;

	r = sweep_relay(b, l);
	for (li = 0; li < b->nlevels; li++) {
		l->cells[li].runs = xcalloc((size_t)b->reps,
		    sizeof(struct run));
		l->dcells[li].runs = xcalloc((size_t)b->reps,
		    sizeof(struct run));
		l->cells[li].codec = l->dcells[li].codec =
		    level_codec(b->levels[li]);
		l->cells[li].anycodec = l->dcells[li].anycodec =
		    b->levels[li] == LEVEL_AUTO;
	}
	if (b->rsync != NULL)
		l->rcell.runs = xcalloc((size_t)b->reps, sizeof(struct run));
	/* Within a repetition: each level whole then by delta; rsync. */
	for (rep = 0; rep < b->reps; rep++) {
		for (li = 0; li < b->nlevels; li++)
			for (mode = MODE_WHOLE; mode <= MODE_DELTA; mode++) {
				c = mode == MODE_WHOLE ? &l->cells[li] :
				    &l->dcells[li];
				sweep_progress(b, l, b->levels[li], rep + 1,
				    mode_names[mode]);
				update_pull(b, r, l, b->levels[li], mode, ref,
				    &c->runs[c->nruns]);
				sweep_run_line(b, l, b->levels[li], rep + 1,
				    mode_names[mode], &c->runs[c->nruns++]);
				b->done++;
			}
		if (b->rsync == NULL)
			continue;
		c = &l->rcell;
		sweep_progress(b, l, -1, rep + 1, "rsync -z");
		update_rsync(b, r, l, ref, &c->runs[c->nruns]);
		sweep_run_line(b, l, -1, rep + 1, "rsync -z",
		    &c->runs[c->nruns++]);
		b->done++;
	}
	sweep_progress_end(b);
	relay_stop(r);
	for (li = 0; li < b->nlevels; li++) {
		model_cell(&l->cells[li]);
		model_cell(&l->dcells[li]);
	}
	if (b->rsync != NULL)
		model_cell(&l->rcell);
}

/*
 * The client brought to OLD: one real pull into an empty root, unshaped,
 * checked against OLD and kept as <work>/snapshot.
 */
static void
update_snapshot(struct bench *b)
{
	struct link		 lo;
	struct relay_stats	 st;
	struct relay		*r;
	struct pullspec		 ps;
	struct run		 run;
	char			*snap, *root, *client, *ref;

	xasprintf(&snap, "%s/snapshot", b->work);
	xasprintf(&root, "%s/root", snap);
	xasprintf(&client, "%s/client", snap);
	xasprintf(&ref, "%s/reference-old", b->work);
	util_rmtree(snap);
	util_mkdir(snap);
	util_mkdir(root);
	util_mkdir(client);
	memset(&lo, 0, sizeof(lo));
	lo.name = "loopback";
	r = sweep_relay(b, &lo);
	memset(&ps, 0, sizeof(ps));
	ps.root = root;
	ps.client = client;
	ps.dir = snap;
	sweep_pull(b, r, 0, &ps, &run, &st);
	relay_stop(r);
	update_reference(b, ref);
	update_verify(b, root, ref, "the pull of OLD");
	util_rmtree(ref);
	free(snap);
	free(root);
	free(client);
	free(ref);
}

/*
 * cairn-publish -d: the deltas from the bases kept to NEW's files,
 * built once for every client; its CPU and wall time into b.
 */
static void
update_build(struct bench *b)
{
	struct stat	 st;
	char		*argv[6], *log, *store;
	double		 t0;
	int		 rc;

	xasprintf(&log, "%s/publish-d.log", b->work);
	argv[0] = b->publish;
	argv[1] = "-D";
	argv[2] = b->repo;
	argv[3] = "-d";
	argv[4] = NULL;
	b->build_cpu = 0;
	t0 = relay_now_ns() / 1e9;
	if ((rc = spawn_run(argv, b->repo, log, &b->build_cpu)) != 0) {
		spawn_show_log(log);
		fatalx("cairn-publish -d exited with status %d (log: %s)", rc,
		    log);
	}
	b->build_wall = relay_now_ns() / 1e9 - t0;
	xasprintf(&store, "%s/delta", b->repo);
	if (stat(store, &st) == -1 || !S_ISDIR(st.st_mode)) {
		spawn_show_log(log);
		fatalx("%s: no store of deltas after cairn-publish -f and -d: "
		    "OLD and NEW have no changed file in common?", store);
	}
	free(store);
	free(log);
}

/* --update: the repository, the snapshot, every link, the report. */
void
update_sweep(struct bench *b)
{
	char	*old, *new, *ref;
	int	 k;

	if ((old = realpath(b->old_tree, NULL)) == NULL)
		fatal("%s", b->old_tree);
	if ((new = realpath(b->new_tree, NULL)) == NULL)
		fatal("%s", b->new_tree);
	if (b->tc)
		tc_setup(b);
	xasprintf(&b->repo, "%s/repo", b->work);
	xasprintf(&ref, "%s/reference", b->work);

	if (!b->quiet)
		log_info("publishing OLD, and pulling it once");
	repo_publish(b, old, 0);
	b->old_files = b->nfiles;
	b->old_bytes = b->raw_bytes;
	update_snapshot(b);
	if (!b->quiet)
		log_info("publishing NEW over it (-f), building its deltas "
		    "(-d)");
	repo_publish(b, new, 1);
	update_build(b);
	update_reference(b, ref);
	if ((b->rsync = spawn_find(b, "rsync")) != NULL)
		update_rsync_conf(b, new);

	printf("cairn-bench: update from %s (%" PRIu64 " files, %.1f MB) to "
	    "%s (%" PRIu64 " files, %.1f MB); levels", old, b->old_files,
	    b->old_bytes / 1e6, new, b->nfiles, b->raw_bytes / 1e6);
	for (k = 0; k < b->nlevels; k++)
		printf("%s%s", k ? "," : " ", level_name(b->levels[k]));
	printf("; whole and delta%s; %d run%s each\n", b->rsync != NULL ?
	    ", and rsync -z" : "", b->reps, b->reps > 1 ? "s" : "");
	printf("cairn-publish -d built the deltas in %.2f s of CPU (%.2f s "
	    "wall)\n", b->build_cpu, b->build_wall);
	if (b->rsync != NULL)
		printf("rsync -z: %s, from a daemon serving %s\n", b->rsync,
		    new);
	else
		printf("rsync not installed: no rsync -z row\n");
	if (b->raw_bytes < BENCH_MINDATA)
		printf("warning: NEW holds %.2f MB of files, too little to "
		    "measure: the times are those of the tools' start-up\n",
		    b->raw_bytes / 1e6);
	fflush(stdout);

	b->total = b->nlinks * b->reps * (b->nlevels * 2 +
	    (b->rsync != NULL));
	for (k = 0; k < b->nlinks; k++)
		update_link(b, &b->links[k], ref);
	run_retired_remove(b);
	report_update(b);
	if (b->csv != NULL) {
		report_update_csv(b);
		printf("CSV: %s\n", b->csv);
	}
	tc_teardown(b);
	free(old);
	free(new);
	free(ref);
}
