# bench/: cairn-bench (the compression level sweep over emulated links),
# its link relay, the corpus generator front end, and `make bench`.

# --- cairn-bench (begin) ---
# librelay.a: the link emulator, shared by cairn-bench and relay-probe.
noinst_LIBRARIES += bench/librelay.a
bench_librelay_a_SOURCES = bench/relay.c bench/relay.h
bench_librelay_a_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)

bin_PROGRAMS += bench/cairn-bench
bench_cairn_bench_SOURCES = bench/bench.h \
	bench/cairn-bench.c bench/bench-util.c bench/bench-spawn.c \
	bench/bench-tc.c bench/bench-corpus.c bench/bench-repo.c \
	bench/bench-sweep.c bench/bench-update.c bench/bench-model.c \
	bench/bench-report.c bench/bench-svg.c
bench_cairn_bench_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
bench_cairn_bench_LDADD = bench/librelay.a $(CAIRN_LIBS) $(PTHREAD_LIBS) -lm

# Its tests and their probes (tests/bench/) are in tests/local.mk.
# --- cairn-bench (end) ---

# --- make bench (begin) ---
dist_noinst_SCRIPTS += bench/gen-corpus bench/bench-fsdiff.sh \
	bench/bench-pull.sh bench/bench-upload.sh bench/bench-load.sh \
	bench/bench-jobs.sh bench/bench-sign.sh
EXTRA_DIST += bench/benchlib.sh bench/load-flood.py bench/load-trickle.py

# Generated benchmark trees are cached here between runs.
CAIRN_BENCH_DIR = $(abs_top_builddir)/bench-data

bench: all
	BENCH_DATA='$(CAIRN_BENCH_DIR)' top_builddir='$(abs_top_builddir)' \
	    top_srcdir='$(abs_top_srcdir)' \
	    $(SHELL) '$(abs_top_srcdir)/bench/bench-fsdiff.sh'
	BENCH_DATA='$(CAIRN_BENCH_DIR)' top_builddir='$(abs_top_builddir)' \
	    top_srcdir='$(abs_top_srcdir)' \
	    $(SHELL) '$(abs_top_srcdir)/bench/bench-pull.sh'
	BENCH_DATA='$(CAIRN_BENCH_DIR)' top_builddir='$(abs_top_builddir)' \
	    top_srcdir='$(abs_top_srcdir)' \
	    $(SHELL) '$(abs_top_srcdir)/bench/bench-upload.sh'
	$(MAKE) $(AM_MAKEFLAGS) bench-jobs
	$(MAKE) $(AM_MAKEFLAGS) bench-load
	$(MAKE) $(AM_MAKEFLAGS) bench-sign
	$(MAKE) $(AM_MAKEFLAGS) bench-update-links

# lapply -j 1 against -j 4 (BENCH_JOBS_N) pulling compressible text at
# -Z 6 (see bench/bench-jobs.sh).
bench-jobs: all
	BENCH_DATA='$(CAIRN_BENCH_DIR)' top_builddir='$(abs_top_builddir)' \
	    top_srcdir='$(abs_top_srcdir)' \
	    $(SHELL) '$(abs_top_srcdir)/bench/bench-jobs.sh'

# Signed releases: cairn-publish -m -s and cairn-sign on a repository of
# 100 transcripts and 100,000 files, and ktcheck with a key pinned against
# without (BENCH_SIGN_RUNS etc.: see bench/bench-sign.sh).
bench-sign: all
	BENCH_DATA='$(CAIRN_BENCH_DIR)' top_builddir='$(abs_top_builddir)' \
	    top_srcdir='$(abs_top_srcdir)' \
	    $(SHELL) '$(abs_top_srcdir)/bench/bench-sign.sh'

# Concurrent pulls under a connection flood; BENCH_LOAD_CLIENTS etc. in
# the environment change its size (see bench/bench-load.sh).
bench-load: all
	BENCH_DATA='$(CAIRN_BENCH_DIR)' top_builddir='$(abs_top_builddir)' \
	    top_srcdir='$(abs_top_srcdir)' \
	    $(SHELL) '$(abs_top_srcdir)/bench/bench-load.sh'

# Clients through HAProxy and three cairnd (a primary, two replicas) while
# a new generation is published and a daemon restarts, then one cairnd
# alone; BENCH_SCALE_CLIENTS etc. change its size (see
# bench/bench-scale.sh).
bench-scale: all
	BENCH_DATA='$(CAIRN_BENCH_DIR)' top_builddir='$(abs_top_builddir)' \
	    top_srcdir='$(abs_top_srcdir)' \
	    $(SHELL) '$(abs_top_srcdir)/bench/bench-scale.sh'

bench-clean:
	rm -rf '$(CAIRN_BENCH_DIR)'

.PHONY: bench bench-jobs bench-load bench-scale bench-sign bench-clean

# In-process deflate reference for the pull benchmark.
noinst_PROGRAMS += bench/zbench
bench_zbench_SOURCES = bench/zbench.c
bench_zbench_LDADD = $(CAIRN_LIBS)
# --- make bench (end) ---

# --- make bench-delta (begin) ---
# Deltas on a real update: bench/make-update-corpus fetches about 24
# Debian packages in two versions into $(CAIRN_BENCH_DIR)/update-corpus
# (OLD/ and NEW/), bench/delta-measure compares the trees.
# Without zstd (configure --without-zstd) there are no deltas to measure.
dist_noinst_SCRIPTS += bench/make-update-corpus
if HAVE_ZSTD
noinst_PROGRAMS += bench/delta-measure
bench_delta_measure_SOURCES = bench/delta-measure.c
bench_delta_measure_LDADD = $(CAIRN_LIBS)

bench-delta: bench/delta-measure
	BENCH_DATA='$(CAIRN_BENCH_DIR)' \
	    $(SHELL) '$(abs_top_srcdir)/bench/make-update-corpus'
	bench/delta-measure '$(CAIRN_BENCH_DIR)/update-corpus/OLD' \
	    '$(CAIRN_BENCH_DIR)/update-corpus/NEW'
else
EXTRA_DIST += bench/delta-measure.c

bench-delta:
	@echo "bench-delta: delta transfer is not built in (configured --without-zstd)" >&2
	@exit 1
endif

# The same update with cairn-bench --update (bench/bench-update-links.sh):
# cairn-publish -f and -d, then the real pull of the update whole and by
# delta at -Z 6 and -Z auto, and rsync -z when rsync is installed, on
# each link; the report and a CSV.  bench-update: --shaper tc (root),
# gigabit and 802.11g, CSV bench-update.csv; bench-update-links: the
# relay, gigabit, fast-ethernet and 802.11g, CSV bench-update-links.csv.
# BENCH_UPDATE_LINKS and BENCH_UPDATE_REPS change the links and runs.
dist_noinst_SCRIPTS += bench/bench-update-links.sh
bench-update: all
	BENCH_DATA='$(CAIRN_BENCH_DIR)' top_builddir='$(abs_top_builddir)' \
	    top_srcdir='$(abs_top_srcdir)' BENCH_UPDATE_SHAPER=tc \
	    $(SHELL) '$(abs_top_srcdir)/bench/bench-update-links.sh'

bench-update-links: all
	BENCH_DATA='$(CAIRN_BENCH_DIR)' top_builddir='$(abs_top_builddir)' \
	    top_srcdir='$(abs_top_srcdir)' BENCH_UPDATE_SHAPER=relay \
	    $(SHELL) '$(abs_top_srcdir)/bench/bench-update-links.sh'

.PHONY: bench-delta bench-update bench-update-links
# --- make bench-delta (end) ---

# --- make bench-scale (begin) ---
dist_noinst_SCRIPTS += bench/bench-scale.sh
EXTRA_DIST += bench/srcaddr.c
# --- make bench-scale (end) ---
