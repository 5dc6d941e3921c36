/*
 * bench-sweep.c: the runs of a sweep.  For each link a relay emulates it
 * (bench/relay.c), one pull at level 0 checks the rate it delivers, then
 * every level runs once per repetition, the levels interleaved.  A pull
 * is what an administrator runs to bring a new client up to date:
 * ktcheck, fsdiff -A and lapply, with -c sha1, into an empty root,
 * against a cairnd started for the run; its time, CPU and bytes (on the
 * wire from the relay, raw from the logs) make one struct run.
 * --update (bench-update.c) runs the same pull, sweep_pull, into a root
 * restored from a snapshot, with lapply -v for its line on deltas.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/socket.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "cerr.h"
#include "log.h"
#include "../server/linkmemo.h"
#include "relay.h"
#include "xmalloc.h"

/* The monotonic clock in seconds. */
static double
now_s(void)
{
	return relay_now_ns() / 1e9;
}

/*
 * The progress bar on a terminal, unless -q: the link, the level, the
 * mode (--update: whole or delta; NULL otherwise; with a level of -1,
 * rsync's row, the mode alone) and the repetition (0: the link check).
 */
void
sweep_progress(struct bench *b, const struct link *l, int level, int rep,
    const char *mode)
{
	char	bar[41];
	int	i, fill;

	if (b->quiet || !b->tty)
		return;
	fill = b->total ? b->done * 40 / b->total : 0;
	for (i = 0; i < 40; i++)
		bar[i] = i < fill ? '#' : '.';
	bar[40] = '\0';
	fprintf(stderr, "\r\033[K[%s] %3d%% %d/%d %s ", bar,
	    b->total ? b->done * 100 / b->total : 0, b->done, b->total,
	    l->name);
	if (level >= 0)
		fprintf(stderr, "-Z %s%s", level_name(level), mode ? " " : "");
	fprintf(stderr, "%s ", mode ? mode : "");
	if (rep)
		fprintf(stderr, "run %d/%d", rep, b->reps);
	else
		fprintf(stderr, "link check");
	fflush(stderr);
}

/* Clear the bar: before the sweep's own lines, a warning or an error. */
void
sweep_progress_end(struct bench *b)
{
	if (!b->quiet && b->tty)
		fprintf(stderr, "\r\033[K");
}

/*
 * A line per finished run on stdout, where no bar shows how far the
 * sweep is (see main): a log or a pipe sees it advance run by run.
 * With --update the mode follows the level (rsync's row, level -1, has
 * its mode alone and no lapply), the client's peak RSS ends the line,
 * and a run by delta says how many files came as deltas.
 */
void
sweep_run_line(struct bench *b, const struct link *l, int level, int rep,
    const char *mode, const struct run *r)
{
	if (!b->runlines)
		return;
	printf("run %s ", l->name);
	if (level >= 0)
		printf("-Z %s%s", level_name(level), mode ? " " : "");
	printf("%s %d/%d: %.3f s", mode ? mode : "", rep, b->reps, r->wall);
	if (level >= 0)
		printf(" (lapply %.3f s)", r->lapply);
	printf(", wire %" PRIu64 " bytes (%" PRIu64 " down, %" PRIu64
	    " up), server CPU ", r->wire_down + r->wire_up, r->wire_down,
	    r->wire_up);
	if (r->srv_cpu >= 0)
		printf("%.3f s", r->srv_cpu);
	else
		printf("unknown");
	if (mode != NULL)
		printf(", client peak RSS %.1f MiB", r->cli_rss / 1024.0);
	if (r->dline)
		printf(", %" PRIu64 " files by delta", r->dfiles);
	printf("\n");
	fflush(stdout);
}

/*
 * Scan a tool log for its byte summary, "bytes: sent raw N wire N,
 * received raw N wire N" (any case, spacing tolerated); returns the
 * received raw count, 0 if there is none.
 */
static uint64_t
log_raw_in(const char *log)
{
	char		 line[1024], *p;
	FILE		*fp;
	uint64_t	 v = 0;
	unsigned long long	rin, win, rout, wout;

	if ((fp = fopen(log, "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), fp) != NULL) {
		if ((p = strstr(line, "bytes:")) == NULL)
			continue;
		/* "bytes: sent raw N wire N, received raw N wire N" */
		if (sscanf(p, "bytes: sent raw %llu wire %llu, received raw "
		    "%llu wire %llu", &rout, &wout, &rin, &win) == 4)
			v += rin;
	}
	/* lapply -v and ktcheck -v: "zlib stats +++ In: raw:wire ...". */
	rewind(fp);
	while (v == 0 && fgets(line, sizeof(line), fp) != NULL)
		if ((p = strstr(line, "zlib stats +++ In:")) != NULL &&
		    sscanf(p, "zlib stats +++ In: %llu:%llu", &rin, &win) == 2)
			v += rin;
	fclose(fp);
	return v;
}

/*
 * cairnd's "session bodies: deflated N files R -> W bytes, stored N files
 * B bytes, cached N files R -> W bytes; bytes by level L:B ...; level
 * changes N" line, added to out, the counters of the codec of the
 * session it ends (the "session end" line before it; zstd's levels run
 * to 19).  Returns 0, or -1 if p is not one.
 */
static int
log_bodies(const char *p, struct codecrun *out)
{
	unsigned long long	 df, dr, dw, sf, sb, cf, cr, cw, v;
	const char		*q;
	char			*end;
	uint64_t		 lvl[HISTLEVELS];
	int			 n, l;

	if (sscanf(p, "session bodies: deflated %llu files %llu -> %llu "
	    "bytes, stored %llu files %llu bytes, cached %llu files %llu -> "
	    "%llu bytes; bytes by level%n", &df, &dr, &dw, &sf, &sb, &cf, &cr,
	    &cw, &n) != 8)
		return -1;
	memset(lvl, 0, sizeof(lvl));
	q = p + n;
	if (strncmp(q, " none", 5) == 0)
		q += 5;
	else
		while (*q == ' ') {
			l = (int)strtol(q + 1, &end, 10);
			if (end == q + 1 || *end != ':' || l < 0 ||
			    l >= HISTLEVELS)
				return -1;
			errno = 0;
			v = strtoull(end + 1, &end, 10);
			if (errno != 0)
				return -1;
			lvl[l] += v;
			q = end;
		}
	if (sscanf(q, "; level changes %llu", &v) != 1)
		return -1;
	out->bodies++;
	out->stored_files += sf;
	out->stored += sb;
	out->cached_files += cf;
	out->cached += cr;
	for (l = 0; l < HISTLEVELS; l++)
		out->lvl[l] += lvl[l];
	out->changes += v;
	return 0;
}

/*
 * The head of a "session end" line of cairnd's, "session end: CODEC
 * level N, sent R bytes (W on the wire" (at the automatic level "CODEC
 * level auto, now N, ..."): the codec (-1: not such a line), R and W.
 */
static int
log_session_end(const char *p, unsigned long long *r, unsigned long long *w)
{
	char	name[16];
	int	lv, codec;

	if (sscanf(p, "session end: %15s level ", name) != 1 ||
	    (codec = zlevel_codec(name)) == -1)
		return -1;
	p += strlen("session end: ") + strlen(name);
	if (sscanf(p, " level %d, sent %llu bytes (%llu on the wire", &lv, r,
	    w) == 3 || sscanf(p, " level auto, now %d, sent %llu bytes (%llu "
	    "on the wire", &lv, r, w) == 3)
		return codec;
	return -1;
}

/*
 * The end of a "session end" line of cairnd's from a session that asked
 * for deltas, ", delta requests A: S as deltas (X bytes, Y whole), M as
 * whole files", added to out (S are the hits of the store of deltas, M
 * its misses).
 */
static void
log_delta_requests(const char *p, struct run *out)
{
	unsigned long long	a, s, x, y, m;

	if ((p = strstr(p, ", delta requests ")) == NULL ||
	    sscanf(p, ", delta requests %llu: %llu as deltas (%llu bytes, "
	    "%llu whole), %llu as whole files", &a, &s, &x, &y, &m) != 5)
		return;
	out->dasked += a;
	out->dhits += s;
	out->dbytes += x;
	out->dmisses += m;
}

/*
 * Sum what cairnd says of its sessions (printed in the foreground), by
 * the codec each used: the bytes it sent, from its "session end" lines
 * (log_session_end), and its "session bodies" lines (log_bodies), which
 * follow the "session end" of their session.
 */
static void
log_server(const char *log, struct run *out)
{
	char			 line[1024], *p;
	FILE			*fp;
	unsigned long long	 r, w;
	int			 codec, cur = ZLEVEL_ZLIB;

	out->srv_raw_out = out->srv_wire_out = 0;
	if ((fp = fopen(log, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL)
		if ((p = strstr(line, "session end: ")) != NULL &&
		    (codec = log_session_end(p, &r, &w)) != -1) {
			cur = codec;
			out->codec[cur].sessions++;
			out->codec[cur].raw += r;
			out->codec[cur].wire += w;
			out->srv_raw_out += r;
			out->srv_wire_out += w;
			log_delta_requests(p, out);
		} else if ((p = strstr(line, "session bodies: ")) != NULL)
			(void)log_bodies(p, &out->codec[cur]);
	fclose(fp);
}

/*
 * lapply -v's line on its deltas, "delta: N files by delta, W bytes on
 * the wire for B bytes whole; F fetched whole after a failed delta", in
 * the tool log, into out (out->dline says it was found).
 */
static void
log_delta_line(const char *log, struct run *out)
{
	char			 line[1024];
	FILE			*fp;
	unsigned long long	 n, w, b, f;

	if ((fp = fopen(log, "r")) == NULL)
		return;
	while (fgets(line, sizeof(line), fp) != NULL)
		if (sscanf(line, "delta: %llu files by delta, %llu bytes on "
		    "the wire for %llu bytes whole; %llu fetched whole after "
		    "a failed delta", &n, &w, &b, &f) == 4) {
			out->dline = 1;
			out->dfiles += n;
			out->dwire += w;
			out->dwhole += b;
			out->dfailed += f;
		}
	fclose(fp);
}

/*
 * Start the command line of ktcheck or lapply: the namespace prefix of
 * --shaper tc, the tool, and -h 127.0.0.1 -p port -Z level -c sha1 (-Z
 * auto for LEVEL_AUTO).  Returns the number of words put in argv.
 */
static int
pull_argv(const struct bench *b, char *argv[], char *tool, char *port,
    int level)
{
	int	i;

	i = tc_ns_prefix(b, argv);
	argv[i++] = tool;
	argv[i++] = "-h";
	argv[i++] = "127.0.0.1";
	argv[i++] = "-p";
	argv[i++] = port;
	argv[i++] = "-Z";
	argv[i++] = (char *)level_name(level);
	argv[i++] = "-c";
	argv[i++] = "sha1";
	return i;
}

/*
 * Run one tool of a pull, its CPU time added to *cpu, its peak RSS (KiB)
 * put in *rss unless rss is NULL; an exit status above okmax is fatal
 * and names the tool (with -Z level unless level is negative) and its
 * log.
 */
static void
pull_tool(struct bench *b, char *const argv[], const char *cwd,
    const char *log, double *cpu, long *rss, int okmax, const char *what,
    int level)
{
	int	st;

	if ((st = spawn_run_rss(argv, cwd, log, cpu, rss)) <= okmax)
		return;
	sweep_progress_end(b);
	spawn_show_log(log);
	if (level >= 0)
		fatalx("%s -Z %s exited with status %d (log: %s)", what,
		    level_name(level), st, log);
	fatalx("%s exited with status %d (log: %s)", what, st, log);
}

/*
 * Move the last run's directory out of the way instead of removing it:
 * a file system may make file creation pay for removals for a while
 * (ext4 skips inodes freed in the last 30 s, one by one, so that 10,000
 * files created after 10,000 were removed cost several times more), and
 * no client pulls into a tree it just removed.  The retired trees are
 * removed at the end, or when they hold a quarter of the space that was
 * free; the sweep then pauses until the file system has forgotten them.
 */
#define RETIRE_PAUSE	31	/* s: ext4's memory of freed inodes, and 1 */

/*
 * Point relay r at the server of a run listening on port: on the
 * loopback, or at the server's namespace with --shaper tc.
 */
void
sweep_upstream(struct bench *b, struct relay *r, uint16_t port)
{
	struct sockaddr_in	 up;

	memset(&up, 0, sizeof(up));
	up.sin_family = AF_INET;
	up.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (b->tc)
		up.sin_addr = b->addr_srv;
	up.sin_port = htons(port);
	relay_set_upstream(r, &up);
}

void
sweep_retire(struct bench *b, const char *run)
{
	struct statvfs	 sv;
	struct stat	 st;
	char		*old, *dst;

	if (lstat(run, &st) == -1)
		return;
	xasprintf(&old, "%s/retired", b->work);
	if (b->oldmax == 0)
		b->oldmax = statvfs(b->work, &sv) == 0 ?
		    (uint64_t)sv.f_bavail * sv.f_frsize / 4 : 1;
	if (b->nold > 0 && b->oldbytes + b->raw_bytes > b->oldmax) {
		sweep_progress_end(b);
		printf("removing the trees of %u runs, then waiting %d s for "
		    "the file system to settle\n", b->nold, RETIRE_PAUSE);
		fflush(stdout);
		util_rmtree(old);
		sync();
		sleep(RETIRE_PAUSE);
		b->nold = 0;
		b->oldbytes = 0;
	}
	util_mkdir(old);
	xasprintf(&dst, "%s/%u", old, b->nold++);
	if (rename(run, dst) == -1)
		fatal("rename %s to %s", run, dst);
	b->oldbytes += b->raw_bytes;
	free(dst);
	free(old);
}

/* Remove the retired runs (at the end of the sweep). */
void
run_retired_remove(struct bench *b)
{
	char	*old;

	xasprintf(&old, "%s/retired", b->work);
	util_rmtree(old);
	b->nold = 0;
	b->oldbytes = 0;
	free(old);
}

int
sweep_fsdiff_argv(const struct bench *b, char **argv, const char *kfile,
    const char *out)
{
	int	 i = 0;

	argv[i++] = b->fsdiff;
	argv[i++] = "-A";
	argv[i++] = "-c";
	argv[i++] = "sha1";
	argv[i++] = "-K";
	argv[i++] = (char *)(uintptr_t)kfile;
	argv[i++] = "-o";
	argv[i++] = (char *)(uintptr_t)out;
	argv[i++] = ".";
	argv[i] = NULL;
	return i;
}

/*
 * One pull at level, through relay r, with the directories of ps:
 * ktcheck into ps->client, fsdiff -A of ps->root, lapply into ps->root
 * (with -v if ps->verbose, for its line on deltas; else -q).  *lst gets
 * the relay counters of the lapply connection.
 */
void
sweep_pull(struct bench *b, struct relay *r, int level,
    const struct pullspec *ps, struct run *out, struct relay_stats *lst)
{
	struct relay_stats	 kst;
	char			*kfile, *apply, *log, *slog = NULL;
	char			 pb[8], *argv[20];
	uint16_t		 port = 0;
	pid_t			 spid = -1;
	double			 t0, t1, t2, cpu = 0;
	long			 rss = 0;
	int			 i;

	memset(out, 0, sizeof(*out));
	xasprintf(&kfile, "%s/command.K", ps->client);
	xasprintf(&apply, "%s/apply.T", ps->dir);
	xasprintf(&log, "%s/tools.log", ps->dir);

	if (b->server == NULL) {
		/* One server log per run, for its byte counts. */
		xasprintf(&slog, "%s/cairnd.log", b->work);
		unlink(slog);
		for (i = 0; i < 3 && spid == -1; i++)
			spid = spawn_cairnd(b, &port);
		if (spid == -1) {
			sweep_progress_end(b);
			spawn_show_log(slog);
			fatalx("%s exited at start-up three times", b->cairnd);
		}
		sweep_upstream(b, r, port);
	}
	relay_stats(r, &kst, 1);
	snprintf(pb, sizeof(pb), "%u", relay_port(r));

	t0 = now_s();
	i = pull_argv(b, argv, b->ktcheck, pb, level);
	argv[i++] = "-K";
	argv[i++] = kfile;
	argv[i] = NULL;
	pull_tool(b, argv, ps->client, log, &cpu, NULL, 1, "ktcheck",
	    level);
	relay_stats(r, &kst, 1);

	(void)sweep_fsdiff_argv(b, argv, kfile, apply);
	pull_tool(b, argv, ps->root, log, &cpu, NULL, 0, "fsdiff -A", -1);

	t1 = now_s();
	i = pull_argv(b, argv, b->lapply, pb, level);
	argv[i++] = ps->verbose ? "-v" : "-q";
	argv[i++] = apply;
	argv[i] = NULL;
	pull_tool(b, argv, ps->root, log, &cpu, &rss, 0, "lapply", level);
	t2 = now_s();
	relay_stats(r, lst, 1);

	out->wall = t2 - t0;
	out->lapply = t2 - t1;
	out->cli_cpu = cpu;
	out->cli_rss = rss;
	out->srv_cpu = spid > 0 ? spawn_daemon_stop(b) : -1;
	if (slog != NULL) {
		log_server(slog, out);
		free(slog);
	}
	if (spid > 0 && out->srv_cpu < 0) {
		sweep_progress_end(b);
		log_warnx("cairnd kept a session child for 5 s after the "
		    "pull: its CPU time is left out of this run");
	}
	out->wire_down = kst.down.bytes + lst->down.bytes;
	out->wire_up = kst.up.bytes + lst->up.bytes;
	out->tool_raw_in = log_raw_in(log);
	log_delta_line(log, out);
	if (kst.upstream_errors + lst->upstream_errors > 0) {
		sweep_progress_end(b);
		fatalx("the relay could not reach the server");
	}
	free(kfile);
	free(apply);
	free(log);
}

/* One pull into an empty root (sweep_pull in a fresh run directory). */
static void
pull(struct bench *b, struct relay *r, int level, struct run *out,
    struct relay_stats *lst)
{
	struct pullspec	 ps;
	char		*run, *client, *root;

	xasprintf(&run, "%s/run", b->work);
	sweep_retire(b, run);
	util_mkdir(run);
	xasprintf(&client, "%s/client", run);
	xasprintf(&root, "%s/root", run);
	util_mkdir(client);
	util_mkdir(root);
	memset(&ps, 0, sizeof(ps));
	ps.root = root;
	ps.client = client;
	ps.dir = run;
	sweep_pull(b, r, level, &ps, out, lst);
	free(run);
	free(client);
	free(root);
}

/*
 * The relay that emulates link l (with --shaper tc, tbf on the veth
 * pair imposes the rate and the relay only adds the delay).
 */
struct relay *
sweep_relay(struct bench *b, const struct link *l)
{
	struct relay_link	 rl;
	struct relay		*r;
	struct cerr		 err;

	memset(&rl, 0, sizeof(rl));
	rl.rate = l->rate;
	rl.rtt_us = l->rtt_us;
	if (b->tc) {
		tc_shape(b, l);
		rl.rate = 0;
	}
	if ((r = relay_start(&rl, b->server ? &b->remote : NULL,
	    b->netns_fd, &err)) == NULL)
		fatalx("%s", err.msg);
	return r;
}

/* Measure every level on link l. */
void
sweep_link(struct bench *b, struct link *l)
{
	struct relay_stats	 st;
	struct relay		*r;
	struct run		 cal;
	double			 span, setting;
	char			*memo;
	int			 rep, li;

	r = sweep_relay(b, l);
	/*
	 * Every link's client is one the server has not met: what the
	 * automatic level remembered of the last link's (linkmemo.h, keyed
	 * by address, and every link's client is 127.0.0.1 here) would
	 * start the first runs on this one from another link's rate.  Its
	 * later runs start from what its earlier ones left, as a machine
	 * that pulls from the same server over the same link does.
	 */
	if (b->server == NULL) {
		xasprintf(&memo, "%s/%s", b->repo, LINKMEMO_FILE);
		if (unlink(memo) == -1 && errno != ENOENT)
			fatal("unlink %s", memo);
		free(memo);
	}
	for (li = 0; li < b->nlevels; li++) {
		l->cells[li].runs = xcalloc((size_t)b->reps,
		    sizeof(struct run));
		l->cells[li].nruns = 0;
		l->cells[li].codec = level_codec(b->levels[li]);
		l->cells[li].anycodec = b->levels[li] == LEVEL_AUTO;
	}

	/* Level-0 check of the link; also warms the caches. */
	sweep_progress(b, l, 0, 0, NULL);
	pull(b, r, 0, &cal, &st);
	b->done++;
	l->wire0 = cal.wire_down + cal.wire_up;
	span = (st.down.last_ns - st.down.first_ns) / 1e9;
	l->delivered = span > 0 ? st.down.bytes * 8.0 / span : 0;
	l->busy_rate = st.down.busy_ns ?
	    st.down.bytes * 8.0 / (st.down.busy_ns / 1e9) : 0;
	setting = (double)l->rate;
	l->flagged = setting > 0 &&
	    fabs(l->delivered - setting) > 0.05 * setting;
	sweep_progress_end(b);
	printf("link %s: ", l->name);
	if (l->rate)
		printf("%.4g Mbit/s, ", setting / 1e6);
	else
		printf("unshaped, ");
	printf("rtt %.4g ms: level 0 delivered %.2f MB/s (%.4g Mbit/s)",
	    l->rtt_us / 1e3, l->delivered / 8e6, l->delivered / 1e6);
	if (setting > 0)
		printf(", %+.1f%% of its setting%s", 100 * (l->delivered -
		    setting) / setting, l->flagged ? " [OFF BY MORE THAN 5%]" :
		    "");
	printf("\n");
	if (l->flagged && b->tc)
		printf("  (tbf counts whole frames, about 4%% headers, and TCP "
		    "over a real queue rarely fills it)\n");
	else if (l->flagged && l->busy_rate > 0)
		printf("  while it had data the link carried %.4g Mbit/s "
		    "(%+.1f%%): %s\n", l->busy_rate / 1e6,
		    100 * (l->busy_rate - setting) / setting,
		    fabs(l->busy_rate - setting) <= 0.05 * setting ?
		    "the endpoints, not the link, set the pace" :
		    "the emulation could not keep up on this machine");
	fflush(stdout);

	/* Levels interleaved within each repetition (A B A B ...). */
	for (rep = 0; rep < b->reps; rep++)
		for (li = 0; li < b->nlevels; li++) {
			sweep_progress(b, l, b->levels[li], rep + 1, NULL);
			pull(b, r, b->levels[li],
			    &l->cells[li].runs[l->cells[li].nruns], &st);
			sweep_run_line(b, l, b->levels[li], rep + 1, NULL,
			    &l->cells[li].runs[l->cells[li].nruns++]);
			b->done++;
		}
	sweep_progress_end(b);
	relay_stop(r);
	for (li = 0; li < b->nlevels; li++)
		model_cell(&l->cells[li]);
}
