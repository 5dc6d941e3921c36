# cairn-bench: compression level sweep over emulated links.

noinst_LIBRARIES += client/librelay.a
client_librelay_a_SOURCES = client/relay.c client/relay.h
client_librelay_a_CFLAGS = $(AM_CFLAGS) -pthread

check_PROGRAMS += tests/bench/relay-probe
tests_bench_relay_probe_SOURCES = tests/bench/relay-probe.c
tests_bench_relay_probe_CFLAGS = $(AM_CFLAGS) -pthread
tests_bench_relay_probe_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/client
tests_bench_relay_probe_LDFLAGS = -pthread
tests_bench_relay_probe_LDADD = client/librelay.a $(CAIRN_LIBS)

BENCH_TESTS = \
	tests/integ/t-bench-relay.sh \
	tests/integ/t-bench-sweep.sh \
	tests/integ/t-bench-tc.sh
TESTS += $(BENCH_TESTS)
EXTRA_DIST += $(BENCH_TESTS)

bin_PROGRAMS += client/cairn-bench
client_cairn_bench_SOURCES = client/cairn-bench.c
client_cairn_bench_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/client \
	-DCAIRN_SRCDIR='"$(abs_top_srcdir)"'
client_cairn_bench_CFLAGS = $(AM_CFLAGS) -pthread
client_cairn_bench_LDFLAGS = -pthread
client_cairn_bench_LDADD = client/librelay.a $(CAIRN_LIBS) -lm
