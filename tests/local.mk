# tests/: every test of the tree is listed here, one group per area:
# the integration and bench tests (tests/integ/t-*.sh), the slow
# scenario tests, and the helpers they source or run.  The Check unit
# suites are listed in tests/unit/local.mk, included below, beside the
# build rule of each suite (a test there is a program).  A new test goes
# into the group of the tool it tests, and is shipped by that group's
# EXTRA_DIST line (make dist).
TEST_EXTENSIONS = .sh
SH_LOG_COMPILER = $(SHELL)
AM_TESTS_ENVIRONMENT = \
	top_builddir='$(abs_top_builddir)'; top_srcdir='$(abs_top_srcdir)'; \
	export top_builddir top_srcdir;

# --- unit suites ---
include tests/unit/local.mk

# --- what the tests run besides the programs ---
# The LD_PRELOAD fault injector of the fault and crash tests.  Built
# plainly, without sanitizer flags, even in a sanitizer build.
check_DATA = tests/integ/shim.so
tests/integ/shim.so: $(srcdir)/tests/integ/shim.c
	@mkdir -p tests/integ
	$(CC) -shared -fPIC -O2 $(WARN_CFLAGS) -o $@ $(srcdir)/tests/integ/shim.c -ldl
CLEANFILES += tests/integ/shim.so
EXTRA_DIST += tests/integ/shim.c

# A delta applied to its basis, written out (t-publish-bases).
check_PROGRAMS += tests/integ/delta-apply
tests_integ_delta_apply_SOURCES = tests/integ/delta-apply.c
tests_integ_delta_apply_LDADD = $(CAIRN_LIBS)
# ... and its sibling: a delta made from a basis (t-lapply-delta).
check_PROGRAMS += tests/integ/delta-make
tests_integ_delta_make_SOURCES = tests/integ/delta-make.c
tests_integ_delta_make_LDADD = $(CAIRN_LIBS)

# The link emulator alone (t-bench-relay), and cairn-bench's report and
# figure from figures given on stdin (t-bench-advice).
check_PROGRAMS += tests/bench/relay-probe
tests_bench_relay_probe_SOURCES = tests/bench/relay-probe.c
tests_bench_relay_probe_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
tests_bench_relay_probe_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench
tests_bench_relay_probe_LDADD = bench/librelay.a $(CAIRN_LIBS) $(PTHREAD_LIBS)
check_PROGRAMS += tests/bench/report-probe
tests_bench_report_probe_SOURCES = tests/bench/report-probe.c \
	bench/bench-util.c bench/bench-spawn.c bench/bench-model.c \
	bench/bench-report.c bench/bench-svg.c
tests_bench_report_probe_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
tests_bench_report_probe_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/bench
tests_bench_report_probe_LDADD = $(CAIRN_LIBS) $(PTHREAD_LIBS) -lm

# The shared helpers of the integration tests: lib.sh (every test),
# netlib.sh (a cairnd to talk to; cairndlib.sh, which starts it, for
# the benchmarks too), tlslib.sh, lapply-lib.sh, ralib.sh,
# and the Python peers, proxies and checkers.
EXTRA_DIST += tests/integ/lib.sh tests/integ/netlib.sh \
	tests/integ/cairndlib.sh \
	tests/integ/tlslib.sh tests/integ/lapply-lib.sh tests/integ/ralib.sh \
	tests/integ/releaselib.sh \
	tests/integ/testnet.py tests/integ/peer.py tests/integ/rap.py \
	tests/integ/limpeer.py tests/integ/tlspeer.py \
	tests/integ/lapply-srv.py tests/integ/recproxy.py \
	tests/integ/slowproxy.py tests/integ/dropproxy.py \
	tests/integ/pxfwd.py tests/integ/zrecv.py tests/integ/zstdrecv.py \
	tests/integ/crashcheck.py tests/integ/tracecheck.py \
	tests/integ/ptyrun.py tests/integ/sigcheck.py tests/integ/bannerwait.py \
	tests/integ/fetchpeer.py tests/integ/dstorelib.sh

# Radmind's observed outputs for our inputs, and wire traces: the
# conformance vectors (tests/vectors/README.md); the valgrind rerun of
# the integration tests; the CI driver and the quickstart.
EXTRA_DIST += tests/vectors tests/valgrind-check .ci/run
dist_noinst_SCRIPTS += quickstart

# --- integration tests, one group per area ---
# Conformance: the vectors (skipped when they or root are not there).
VECTOR_TESTS = \
	tests/integ/t-vectors.sh

# What every tool shares: -V, usage errors, the manual pages, the build.
TOOLS_TESTS = \
	tests/integ/t-tools-version.sh \
	tests/integ/t-tools-usage.sh \
	tests/integ/t-man-lint.sh \
	tests/integ/t-build-ignored.sh

# fsdiff and the transcript tools: lsort, lmerge, twhich, lcksum.
TRANSCRIPT_TESTS = \
	tests/integ/t-fsdiff-tree.sh \
	tests/integ/t-fsdiff-progress.sh \
	tests/integ/t-fsdiff-output.sh \
	tests/integ/t-fsdiff-paths.sh \
	tests/integ/t-hostile-transcripts.sh \
	tests/integ/t-lsort.sh \
	tests/integ/t-lmerge.sh \
	tests/integ/t-twhich.sh \
	tests/integ/t-lcksum.sh

# ktcheck and what every network client does (failover, signals).
KTCHECK_TESTS = \
	tests/integ/t-ktcheck-basic.sh \
	tests/integ/t-ktcheck-zlib.sh \
	tests/integ/t-zstd-pull.sh \
	tests/integ/t-zstd-hostile.sh \
	tests/integ/t-zstd-built.sh \
	tests/integ/t-ktcheck-wire.sh \
	tests/integ/t-ktcheck-hostile.sh \
	tests/integ/t-client-failover.sh \
	tests/integ/t-client-failover-addrs.sh \
	tests/integ/t-ktcheck-stage.sh \
	tests/integ/t-ktcheck-sign.sh \
	tests/integ/t-ktcheck-sign-names.sh \
	tests/integ/t-ktcheck-sign-lapply.sh \
	tests/integ/t-ktcheck-sign-ra.sh \
	tests/integ/t-client-signals.sh

# Uploads and the server-side helpers: lcreate, lfdiff, repo.
UPLOAD_TESTS = \
	tests/integ/t-lcreate-wire.sh \
	tests/integ/t-lcreate-basic.sh \
	tests/integ/t-lcreate-verify.sh \
	tests/integ/t-lcreate-limits.sh \
	tests/integ/t-lcreate-workflow.sh \
	tests/integ/t-lcreate-changed.sh \
	tests/integ/t-lcreate-check.sh \
	tests/integ/t-lfdiff.sh \
	tests/integ/t-repo.sh \
	tests/integ/t-tls-lcreate.sh

# lapply.
LAPPLY_TESTS = \
	tests/integ/t-lapply-local.sh \
	tests/integ/t-lapply-types.sh \
	tests/integ/t-lapply-hostile.sh \
	tests/integ/t-catalogue-apply.sh \
	tests/integ/t-lapply-errors.sh \
	tests/integ/t-lapply-vectors.sh \
	tests/integ/t-lapply-net.sh \
	tests/integ/t-lapply-roundtrip.sh \
	tests/integ/t-lapply-cairnd.sh \
	tests/integ/t-lapply-batch.sh \
	tests/integ/t-lapply-links.sh \
	tests/integ/t-lapply-hardlinks.sh \
	tests/integ/t-lapply-crash.sh \
	tests/integ/t-lapply-delta.sh \
	tests/integ/t-delta-e2e.sh tests/integ/t-delta-moved.sh \
	tests/integ/t-lapply-faults.sh \
	tests/integ/t-lapply-trace.sh \
	tests/integ/t-lapply-race.sh \
	tests/integ/t-lapply-jobs.sh \
	tests/integ/t-lapply-progress.sh \
	tests/integ/t-lapply-signals.sh \
	tests/integ/t-lapply-fserrors.sh

# cairnd: the verbs, uploads, limits, compression, its log, cairnd -X
# (the PROXY protocol from a balancer), names as config keys.
CAIRND_TESTS = \
	tests/integ/t-cairnd-verbs.sh \
	tests/integ/t-cairnd-stor-syncfail.sh \
	tests/integ/t-cairnd-stor-order.sh \
	tests/integ/t-cairnd-stor-room.sh \
	tests/integ/t-cairnd-fetch.sh \
	tests/integ/t-cairnd-confine.sh \
	tests/integ/t-cairnd-comp.sh \
	tests/integ/t-cairnd-limits.sh \
	tests/integ/t-cairnd-stor.sh \
	tests/integ/t-cairnd-stor-batch.sh \
	tests/integ/t-cairnd-inflate.sh \
	tests/integ/t-cairnd-deadlines.sh \
	tests/integ/t-cairnd-conncap.sh \
	tests/integ/t-cairnd-fork.sh \
	tests/integ/t-cairnd-nofile.sh \
	tests/integ/t-cairnd-sigready.sh \
	tests/integ/t-cairnd-privdrop.sh \
	tests/integ/t-cairnd-crash.sh \
	tests/integ/t-catalogue-wire.sh \
	tests/integ/t-catalogue-zlib.sh \
	tests/integ/t-cairnd-upload-crash.sh \
	tests/integ/t-cairnd-upload-stop.sh \
	tests/integ/t-cairnd-zauto.sh \
	tests/integ/t-zstd-zcache.sh \
	tests/integ/t-zstd-zdict.sh \
	tests/integ/t-cairnd-proxy.sh \
	tests/integ/t-cairnd-haproxy.sh \
	tests/integ/t-cairnd-ready.sh \
	tests/integ/t-session-bytes.sh \
	tests/integ/t-cairnd-zbytes.sh \
	tests/integ/t-cairnd-logdoc.sh \
	tests/integ/t-cairnd-flood.sh \
	tests/integ/t-cairnd-stall.sh \
	tests/integ/t-cairnd-hostname.sh \
	tests/integ/t-cairnd-delta.sh \
	tests/integ/t-cairnd-release.sh

# TLS, on both ends.
TLS_TESTS = \
	tests/integ/t-tls-ktcheck.sh \
	tests/integ/t-tls-verify.sh \
	tests/integ/t-tls-server.sh \
	tests/integ/t-tls-daemon.sh \
	tests/integ/t-tls-lapply.sh \
	tests/integ/t-catalogue-tls.sh

# cairn-publish and cairn-replicate.
PUBLISH_TESTS = \
	tests/integ/t-publish.sh \
	tests/integ/t-publish-bases.sh \
	tests/integ/t-publish-sign.sh \
	tests/integ/t-publish-stat.sh \
	tests/integ/t-replicate.sh \
	tests/integ/t-replicate-release.sh \
	tests/integ/t-replica-skew.sh \
	tests/integ/t-replicate-tls.sh

# cairn-ra, the client workflow command, and its units.
RA_TESTS = \
	tests/integ/t-ra-update.sh \
	tests/integ/t-ra-hooks.sh \
	tests/integ/t-ra-lock.sh \
	tests/integ/t-ra-trip.sh \
	tests/integ/t-ra-checkout.sh \
	tests/integ/t-ra-retry.sh \
	tests/integ/t-ra-reboot.sh \
	tests/integ/t-ra-units.sh \
	tests/integ/t-ra-usage.sh \
	tests/integ/t-ra-bindir.sh \
	tests/integ/t-ra-tls.sh

# What the README and the quickstart promise, run as written.
DOC_TESTS = \
	tests/integ/t-quickstart-demo.sh \
	tests/integ/t-readme-walkthrough.sh \
	tests/integ/t-readme-fuzz.sh

# cairn-bench: the corpus, the link relay, the sweep, its report, --update.
BENCH_TESTS = \
	tests/integ/t-bench-corpus.sh \
	tests/integ/t-bench-relay.sh \
	tests/integ/t-bench-sweep.sh \
	tests/integ/t-bench-tc.sh \
	tests/integ/t-bench-runlines.sh \
	tests/integ/t-bench-advice.sh \
	tests/integ/t-bench-delta.sh \
	tests/integ/t-bench-update.sh

INTEG_TESTS = $(VECTOR_TESTS) $(TOOLS_TESTS) $(TRANSCRIPT_TESTS) \
	$(KTCHECK_TESTS) $(UPLOAD_TESTS) $(LAPPLY_TESTS) $(CAIRND_TESTS) \
	$(TLS_TESTS) $(PUBLISH_TESTS) $(RA_TESTS) $(DOC_TESTS) $(BENCH_TESTS)
TESTS += $(INTEG_TESTS)
EXTRA_DIST += $(INTEG_TESTS)

# --- slow scenario tests ---
# Race loops, scale runs, long fault sweeps.  `make check` leaves them
# out; `make check-slow` runs them with the same harness, each with its
# log beside it, the summary in test-suite-slow.log.  .ci/run runs both.
# One of them: make check TESTS=tests/integ/t-lapply-raceloop.sh, as for
# any test.
SLOW_TESTS = \
	tests/integ/t-lapply-raceloop.sh \
	tests/integ/t-publish-kill.sh \
	tests/integ/t-scale-small.sh
EXTRA_DIST += $(SLOW_TESTS)

check-slow:
	$(MAKE) $(AM_MAKEFLAGS) check TESTS='$(SLOW_TESTS)' \
	    TEST_SUITE_LOG=test-suite-slow.log

.PHONY: check-slow

# --- what zstd decides ---
# The tests of the banner, deltas and zstd, which a build without zstd
# (configure --without-zstd) runs beside the unit suites: `make
# check-zstd`, the summary in test-suite-zstd.log.  Those that need zstd
# skip there saying "zstd is not built in"; .ci/run runs it in such a
# build.
ZSTD_TESTS = \
	tests/integ/t-zstd-built.sh \
	tests/integ/t-zstd-pull.sh \
	tests/integ/t-zstd-hostile.sh \
	tests/integ/t-tools-version.sh \
	tests/integ/t-cairnd-verbs.sh \
	tests/integ/t-cairnd-zauto.sh \
	tests/integ/t-zstd-zcache.sh \
	tests/integ/t-zstd-zdict.sh \
	tests/integ/t-cairnd-zbytes.sh \
	tests/integ/t-cairnd-limits.sh \
	tests/integ/t-cairnd-release.sh \
	tests/integ/t-cairnd-delta.sh \
	tests/integ/t-catalogue-wire.sh \
	tests/integ/t-ktcheck-wire.sh \
	tests/integ/t-lcreate-wire.sh \
	tests/integ/t-lapply-delta.sh \
	tests/integ/t-delta-e2e.sh \
	tests/integ/t-delta-moved.sh \
	tests/integ/t-publish.sh \
	tests/integ/t-publish-bases.sh \
	tests/integ/t-ra-update.sh \
	tests/integ/t-bench-delta.sh \
	tests/integ/t-bench-update.sh

check-zstd:
	$(MAKE) $(AM_MAKEFLAGS) check \
	    TESTS='$(UNIT_TESTS) $(UNIT_LAYER_TESTS) $(ZSTD_TESTS)' \
	    TEST_SUITE_LOG=test-suite-zstd.log

.PHONY: check-zstd
