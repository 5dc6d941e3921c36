# tests/: unit suites (Check) and shell integration tests.
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(SHELL)
AM_TESTS_ENVIRONMENT = \
	top_builddir='$(abs_top_builddir)'; top_srcdir='$(abs_top_srcdir)'; \
	export top_builddir top_srcdir;

# The shared helpers of the integration tests, the conformance runner
# (skipped when the vectors or root are not available), the CI driver and
# the quickstart.
EXTRA_DIST += tests/integ/lib.sh .ci/run
dist_noinst_SCRIPTS += quickstart
TESTS += tests/integ/t-vectors.sh
EXTRA_DIST += tests/integ/t-vectors.sh

TESTS += tests/integ/t-fsdiff-tree.sh
EXTRA_DIST += tests/integ/t-fsdiff-tree.sh

include tests/unit/local.mk

# The slow scenario tests: race loops, scale runs, long fault sweeps.
# `make check` leaves them out; `make check-slow` runs them with the same
# harness, each with its log beside it, the summary in
# test-suite-slow.log.  .ci/run runs both.  One of them:
# make check TESTS=tests/integ/t-lapply-raceloop.sh, as for any test.
SLOW_TESTS = \
	tests/integ/t-lapply-raceloop.sh \
	tests/integ/t-publish-kill.sh \
	tests/integ/t-scale-small.sh
EXTRA_DIST += $(SLOW_TESTS)

check-slow:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(SLOW_TESTS)' \
	    TEST_SUITE_LOG=test-suite-slow.log

.PHONY: check-slow

TESTS += tests/integ/t-hostile-transcripts.sh
EXTRA_DIST += tests/integ/t-hostile-transcripts.sh
TESTS += tests/integ/t-fsdiff-progress.sh
EXTRA_DIST += tests/integ/t-fsdiff-progress.sh
TESTS += tests/integ/t-fsdiff-output.sh
EXTRA_DIST += tests/integ/t-fsdiff-output.sh
TESTS += tests/integ/t-tools-version.sh
EXTRA_DIST += tests/integ/t-tools-version.sh

# Radmind's observed outputs for our inputs, and wire traces: the
# conformance vectors (tests/vectors/README.md).
EXTRA_DIST += tests/vectors
EXTRA_DIST += tests/valgrind-check
EXTRA_DIST += tests/integ/peer.py tests/integ/testnet.py tests/integ/zrecv.py
TESTS += tests/integ/t-cairnd-zauto.sh
EXTRA_DIST += tests/integ/t-cairnd-zauto.sh

# The LD_PRELOAD fault injector of the fault and crash tests.  Built
# plainly, without sanitizer flags, even in a sanitizer build.
check_DATA = tests/integ/shim.so
tests/integ/shim.so: $(srcdir)/tests/integ/shim.c
	@mkdir -p tests/integ
	$(CC) -shared -fPIC -O2 $(WARN_CFLAGS) -o $@ $(srcdir)/tests/integ/shim.c -ldl
CLEANFILES += tests/integ/shim.so
EXTRA_DIST += tests/integ/shim.c
TESTS += tests/integ/t-fsdiff-paths.sh
EXTRA_DIST += tests/integ/t-fsdiff-paths.sh

# cairnd -X: the PROXY protocol from a balancer.
TESTS += tests/integ/t-cairnd-proxy.sh
EXTRA_DIST += tests/integ/t-cairnd-proxy.sh tests/integ/pxfwd.py
TESTS += tests/integ/t-cairnd-haproxy.sh
EXTRA_DIST += tests/integ/t-cairnd-haproxy.sh
TESTS += tests/integ/t-cairnd-ready.sh
EXTRA_DIST += tests/integ/t-cairnd-ready.sh
TESTS += tests/integ/t-tools-usage.sh
EXTRA_DIST += tests/integ/t-tools-usage.sh
TESTS += tests/integ/t-session-bytes.sh
EXTRA_DIST += tests/integ/t-session-bytes.sh
TESTS += tests/integ/t-cairnd-zbytes.sh
EXTRA_DIST += tests/integ/t-cairnd-zbytes.sh
TESTS += tests/integ/t-cairnd-logdoc.sh
EXTRA_DIST += tests/integ/t-cairnd-logdoc.sh
TESTS += tests/integ/t-quickstart-demo.sh
EXTRA_DIST += tests/integ/t-quickstart-demo.sh
TESTS += tests/integ/t-readme-walkthrough.sh
EXTRA_DIST += tests/integ/t-readme-walkthrough.sh
TESTS += tests/integ/t-readme-fuzz.sh
EXTRA_DIST += tests/integ/t-readme-fuzz.sh
TESTS += tests/integ/t-catalogue-tls.sh
EXTRA_DIST += tests/integ/t-catalogue-tls.sh
TESTS += tests/integ/t-cairnd-flood.sh
EXTRA_DIST += tests/integ/t-cairnd-flood.sh
TESTS += tests/integ/t-cairnd-stall.sh
EXTRA_DIST += tests/integ/t-cairnd-stall.sh
# Names from the resolver and certificates as config keys.
TESTS += tests/integ/t-cairnd-hostname.sh
EXTRA_DIST += tests/integ/t-cairnd-hostname.sh
# A server name with several addresses (a private /etc/hosts).
TESTS += tests/integ/t-client-failover-addrs.sh
EXTRA_DIST += tests/integ/t-client-failover-addrs.sh
# Every program the build makes is ignored by git (in a git checkout).
TESTS += tests/integ/t-build-ignored.sh
EXTRA_DIST += tests/integ/t-build-ignored.sh
