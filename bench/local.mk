# bench/: benchmark corpus generator and `make bench`; also registers the
# conformance runner and the shared integration-test helpers.

dist_noinst_SCRIPTS += bench/gen-corpus bench/bench-fsdiff.sh bench/bench-pull.sh bench/bench-upload.sh \
	bench/bench-load.sh quickstart
EXTRA_DIST += .ci/run tests/integ/lib.sh tests/integ/t-vectors.sh bench/benchlib.sh \
	bench/load-flood.py bench/load-trickle.py

# Conformance vectors (skipped when the vectors or root are not available).
TESTS += tests/integ/t-vectors.sh

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
	$(MAKE) $(AM_MAKEFLAGS) bench-load

# Concurrent pulls under a connection flood; BENCH_LOAD_CLIENTS etc. in
# the environment change its size (see bench/bench-load.sh).
bench-load: all
	BENCH_DATA='$(CAIRN_BENCH_DIR)' top_builddir='$(abs_top_builddir)' \
	    top_srcdir='$(abs_top_srcdir)' \
	    $(SHELL) '$(abs_top_srcdir)/bench/bench-load.sh'

bench-clean:
	rm -rf '$(CAIRN_BENCH_DIR)'

.PHONY: bench bench-load bench-clean

# In-process deflate reference for the pull benchmark.
noinst_PROGRAMS += bench/zbench
bench_zbench_SOURCES = bench/zbench.c
bench_zbench_LDADD = $(ZLIB_LIBS)
