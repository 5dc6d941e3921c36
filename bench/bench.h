/*
 * bench.h: what the files of cairn-bench share: the state of a sweep
 * (struct bench and the links, cells and runs it holds) and, under a
 * banner per file, the functions each file offers the others.
 *
 *	cairn-bench.c	main, options, --help and -V
 *	bench-util.c	the usage error and file helpers
 *	bench-spawn.c	finding and running the tools, cairnd, CPU time
 *	bench-tc.c	--shaper tc: network namespaces, veth pair, tbf
 *	bench-corpus.c	the generated corpus (--make-corpus)
 *	bench-repo.c	the repository the sweep serves (--make-repo)
 *	bench-sweep.c	the runs: one pull per link, level and repetition
 *	bench-update.c	--update: an update pulled whole and by delta
 *	bench-model.c	medians and the model fitted to them
 *	bench-report.c	the text report and the CSV files
 *	bench-svg.c	the figure
 *	relay.c		the link emulator (relay.h)
 */
#ifndef CAIRN_BENCH_H
#define CAIRN_BENCH_H

#include <sys/types.h>

#include <netinet/in.h>

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "zlevel.h"

#define MAXLEVEL	(ZLEVEL_NLEVELS - 1)	/* zlib's levels, zlevel.h */
/*
 * zstd's levels, 1 to ZSTD_MAXLEVEL (-Z zstd:N, between cairn peers):
 * a level of the sweep is one number, zlib's 0 to 9, then zstd's as
 * LEVEL_ZSTD(N), so that sorted they run zlib's then zstd's.
 * level_codec() and level_number() take it apart.
 */
#define ZSTD_MAXLEVEL	ZSTDCONN_MAXLEVEL
#define LEVEL_ZSTD(n)	(MAXLEVEL + (n))
/* Slots of a histogram of plain bytes by level, of either codec. */
#define HISTLEVELS	(ZSTD_MAXLEVEL + 1)
/*
 * -Z auto, measured beside the fixed levels: a pseudo-level that sorts
 * after them, so when it is asked for it is always the last level index.
 * It is named by level_name() and left out of the model.
 */
#define LEVEL_AUTO	(LEVEL_ZSTD(ZSTD_MAXLEVEL) + 1)
#define NLEVELS		(LEVEL_AUTO + 1)
#define MAXLINKS	32
#define MAXREPS		99
/* The -Z of the cairnd a sweep runs: the ceiling -Z auto works under. */
#define BENCH_SERVER_Z	MAXLEVEL
/*
 * Less data than this (bytes of files) cannot be measured: the pull is
 * timed by the tools' start-up, not by compression or the link.
 */
#define BENCH_MINDATA	1000000

enum {
	BENCH_EXIT_OK = 0,
	BENCH_EXIT_FAIL = 1,		/* a tool, a file, the server */
	BENCH_EXIT_USAGE = 2
};

/*
 * What cairnd said of the sessions of one codec in a run: its "session
 * end" lines (plain bytes sent and what they became on the wire) and
 * its "session bodies" lines (none without compression): file bodies
 * sent stored (the data would not shrink) and from the cache, plain
 * bytes compressed (or stored) at each level of the codec, and changes
 * of level.
 */
struct codecrun {
	int		 sessions;	/* "session end" lines */
	uint64_t	 raw, wire;
	int		 bodies;	/* "session bodies" lines */
	uint64_t	 stored_files, stored;
	uint64_t	 cached_files, cached;
	uint64_t	 lvl[HISTLEVELS];
	uint64_t	 changes;
};

/* One measured run of the pull path. */
struct run {
	double		 wall;		/* ktcheck + fsdiff + lapply, s */
	double		 lapply;	/* lapply alone, s */
	double		 srv_cpu;	/* s, -1 when unknown (remote) */
	double		 cli_cpu;	/* s, the three tools */
	long		 cli_rss;	/* KiB, lapply's peak RSS (wait4) */
	uint64_t	 wire_down, wire_up;
	uint64_t	 tool_raw_in;	/* from a tool's byte summary, 0 none */
	uint64_t	 srv_raw_out;	/* from cairnd's log, 0 none */
	uint64_t	 srv_wire_out;
	/* cairnd's session lines, by the codec each session used. */
	struct codecrun	 codec[ZLEVEL_NCODECS];
	/*
	 * Deltas (--update): lapply -v's "delta:" line (files by delta,
	 * their bytes on the wire and whole, files fetched whole after a
	 * failed delta), and the "delta requests" of cairnd's session-end
	 * lines summed over the run's sessions (asked, answered from the
	 * store of deltas with their bytes, answered with the whole file).
	 */
	int		 dline;		/* lapply's line found */
	uint64_t	 dfiles, dwire, dwhole, dfailed;
	uint64_t	 dasked, dhits, dbytes, dmisses;
};

/* Medians over the runs of one (link, level). */
struct cell {
	struct run	*runs;
	int		 nruns;
	/*
	 * The codec of the level (enum zlevel_codec): the body counters
	 * below are its sessions'; runs whose sessions used another codec
	 * (a cairnd that did not offer it) are counted in foreign.  -Z
	 * auto's cell (anycodec) takes the codec most of its sessions used:
	 * cairnd chooses it.
	 */
	int		 codec;
	int		 anycodec;
	int		 foreign;
	double		 t_med, t_min, t_max, lapply_med;
	double		 srv_med, cli_med;
	double		 rss_med;	/* KiB, of the runs' cli_rss */
	uint64_t	 down_med, up_med, raw_med;
	/* cairnd's body counters of the codec: medians, and means. */
	int		 bodies;	/* runs with them */
	uint64_t	 stored_med, stored_files_med;
	uint64_t	 cached_med, cached_files_med;
	uint64_t	 lvl_mean[HISTLEVELS];
	double		 changes_mean;
	/* The delta counters of struct run: medians. */
	int		 dlines;	/* runs with lapply's line */
	uint64_t	 dfiles_med, dwire_med, dwhole_med, dfailed_med;
	uint64_t	 dasked_med, dhits_med, dbytes_med, dmisses_med;
};

struct link {
	char		*name;
	uint64_t	 rate;		/* bit/s, 0 = unshaped */
	uint64_t	 rtt_us;
	/* Level-0 check of the link. */
	double		 delivered;	/* bit/s over the transfer */
	double		 busy_rate;	/* bit/s while the link had data */
	uint64_t	 wire0;		/* its wire bytes, both ways */
	int		 flagged;
	int		 best;		/* index of the best fixed level */
	int		 fastest;	/* index of the fastest fixed level */
	int		 autobest;	/* auto beat every fixed level */
	struct cell	 cells[NLEVELS];	/* --update: whole files */
	struct cell	 dcells[NLEVELS];	/* --update: by delta */
	struct cell	 rcell;		/* --update: rsync -z, if b->rsync */
};

/* What the corpus generator makes (bench-corpus.c). */
struct corpus_spec {
	uint64_t	 size;		/* bytes, in corpus mode */
	uint64_t	 files;		/* files mode when nonzero */
	uint64_t	 seed;
};

struct bench {
	/* Options. */
	int		 levels[NLEVELS];
	int		 nlevels;
	int		 nfixed;	/* levels[0..nfixed-1]; then auto */
	int		 zstd_max;	/* cairnd -Y: the highest zstd asked */
	struct link	 links[MAXLINKS];
	int		 nlinks;
	int		 reps;
	const char	*data;
	struct corpus_spec corpus;	/* without --data */
	const char	*size_arg;	/* -s as given, NULL: the default */
	const char	*csv, *svg, *runs_csv;
	char		*bindir;	/* -B, absolute */
	const char	*server;	/* host:port of a remote cairnd */
	const char	*cache;		/* --cache levels, NULL: no cache */
	char		*cachedir;	/* <work>/zcache */
	const char	*make_repo;
	const char	*make_corpus;
	/* --update OLD NEW: the two trees, and what the update costs. */
	int		 update, levels_set;
	const char	*old_tree, *new_tree;
	uint64_t	 old_files, old_bytes;
	double		 build_cpu, build_wall;	/* cairn-publish -d */
	char		*rsync;		/* rsync for its row, NULL: none */
	char		*rsyncd_conf;	/* the rsync daemon's configuration */
	char		*work;
	int		 keep, quiet;
	/* Tools. */
	char		*ktcheck, *fsdiff, *lapply, *cairnd, *publish;
	/* Repository. */
	char		*repo;
	uint64_t	 raw_bytes;	/* regular file bytes in the corpus */
	uint64_t	 nfiles;
	const char	*corpus_desc;
	struct sockaddr_in remote;
	/* --shaper tc: two network namespaces joined by a veth pair. */
	int		 tc;
	char		*ip, *tcbin;
	char		 ns_srv[32], ns_cli[32], veth_srv[16], veth_cli[16];
	struct in_addr	 addr_srv, addr_cli;
	int		 netns_fd;	/* the client namespace, or -1 */
	int		 ns_up[2];	/* ns_srv, ns_cli made (to remove) */
	/*
	 * The daemon of the current run (cairnd, or --update's rsync
	 * daemon), 0 none: a cleanup hook kills it.
	 */
	volatile sig_atomic_t daemon_pid;
	double		 daemon_cpu0;	/* its CPU s once it listened */
	/* Roots of finished runs, removed later (see run_retire). */
	unsigned	 nold;
	uint64_t	 oldbytes, oldmax;
	/* Progress. */
	int		 done, total;
	int		 tty;		/* the bar on stderr */
	int		 runlines;	/* a line per run on stdout */
};

/* Per level, medians over every link's runs. */
struct levelfit {
	double		 srv, cli;	/* CPU seconds; srv -1 unknown */
	double		 wire;		/* bytes both ways */
};

/*
 * bench-util.c.  Errors go through the log (log.h): fatal() and fatalx()
 * exit BENCH_EXIT_FAIL after the cleanup hooks, which the signal
 * handlers run too: every hook cairn-bench registers is safe in a
 * signal handler.
 */
void	 baduse(const char *, ...)
	    __attribute__((format(printf, 1, 2), noreturn));
void	 util_rmtree(const char *);
void	 util_mkdir(const char *);
void	 util_mkdir_p(const char *);
void	 util_write_file(const char *, const char *);
const char *level_name(int);
const char *level_desc(int);
enum zlevel_codec level_codec(int);
int	 level_number(int);

/* bench-spawn.c */
char	*spawn_find(const struct bench *, const char *);
char	*spawn_find_in(const char *, const char *);
int	 spawn_run(char *const [], const char *, const char *, double *);
int	 spawn_run_rss(char *const [], const char *, const char *, double *,
	    long *);
void	 spawn_show_log(const char *);
pid_t	 spawn_cairnd(struct bench *, uint16_t *);
pid_t	 spawn_rsyncd(struct bench *, const char *, const char *,
	    uint16_t *);
double	 spawn_daemon_stop(struct bench *);

/* bench-tc.c */
void	 tc_setup(struct bench *);
void	 tc_shape(struct bench *, const struct link *);
int	 tc_ns_prefix(const struct bench *, char *[]);
void	 tc_teardown(struct bench *);

/* bench-corpus.c */
void	 corpus_make(const char *, const struct corpus_spec *, FILE *);

/* bench-repo.c */
void	 repo_make(struct bench *, const char *);
void	 repo_publish(struct bench *, const char *, int);

/* bench-sweep.c */
struct relay;
struct relay_stats;
/* Where one pull runs: the client's directories and its options. */
struct pullspec {
	const char	*root;		/* the root lapply applies into */
	const char	*client;	/* ktcheck's command file goes here */
	const char	*dir;		/* apply.T and tools.log go here */
	int		 verbose;	/* lapply -v (its delta line), not -q */
};
void	 sweep_link(struct bench *, struct link *);
struct relay *sweep_relay(struct bench *, const struct link *);
void	 sweep_pull(struct bench *, struct relay *, int,
	    const struct pullspec *, struct run *, struct relay_stats *);
void	 sweep_progress(struct bench *, const struct link *, int, int,
	    const char *);
void	 sweep_progress_end(struct bench *);
void	 sweep_run_line(struct bench *, const struct link *, int, int,
	    const char *, const struct run *);
void	 sweep_retire(struct bench *, const char *);
void	 sweep_upstream(struct bench *, struct relay *, uint16_t);
/*
 * argv (10 slots) for "fsdiff -A -c sha1 -K kfile -o out .", the pull
 * path's fsdiff; returns the number of arguments.
 */
int	 sweep_fsdiff_argv(const struct bench *, char **argv,
	    const char *kfile, const char *out);
void	 run_retired_remove(struct bench *);

/* bench-update.c */
void	 update_sweep(struct bench *);

/* bench-model.c */
#define MODEL_GRID_N	1400
double	 model_median(double *, int);
void	 model_cell(struct cell *);
void	 model_fit(const struct bench *, struct levelfit *);
double	 model_time(const struct levelfit *, double);
double	 model_grid_rate(int);
double	 model_crossover(const struct levelfit *, int);

/* bench-report.c */
void	 report_text(struct bench *, const struct levelfit *, double *);
void	 report_csv(const struct bench *, const double *);
void	 report_runs_csv(const struct bench *);
void	 report_update(const struct bench *);
void	 report_update_csv(const struct bench *);

/* bench-svg.c */
void	 svg_write(const struct bench *, const struct levelfit *);

#endif
