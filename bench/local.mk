# bench/: benchmark corpus generator and `make bench`; also registers the
# conformance runner and the shared integration-test helpers.

dist_noinst_SCRIPTS += bench/gen-corpus bench/bench-fsdiff.sh quickstart
EXTRA_DIST += .ci/run tests/integ/lib.sh tests/integ/t-vectors.sh

# Conformance vectors (skipped when the vectors or root are not available).
TESTS += tests/integ/t-vectors.sh

# Generated benchmark trees are cached here between runs.
BENCH_DATA = $(abs_top_builddir)/bench-data

bench: all
	BENCH_DATA='$(BENCH_DATA)' top_builddir='$(abs_top_builddir)' \
	    top_srcdir='$(abs_top_srcdir)' \
	    $(SHELL) '$(abs_top_srcdir)/bench/bench-fsdiff.sh'

bench-clean:
	rm -rf '$(BENCH_DATA)'

.PHONY: bench bench-clean
