# server/: the cairnd daemon.
sbin_PROGRAMS += server/cairnd
server_cairnd_SOURCES = \
	server/cairnd.c server/session.c server/hostcfg.c server/fetch.c \
	server/stor.c server/server.h
server_cairnd_LDADD = $(CAIRN_LIBS)

CAIRND_TESTS = \
	tests/integ/t-cairnd-verbs.sh \
	tests/integ/t-cairnd-fetch.sh \
	tests/integ/t-cairnd-confine.sh \
	tests/integ/t-cairnd-comp.sh \
	tests/integ/t-cairnd-limits.sh \
	tests/integ/t-cairnd-stor.sh
TESTS += $(CAIRND_TESTS)
EXTRA_DIST += $(CAIRND_TESTS) tests/integ/netlib.sh tests/integ/rap.py \
	tests/integ/recproxy.py

# --- TLS (begin) ---
TLS_TESTS = \
	tests/integ/t-tls-ktcheck.sh \
	tests/integ/t-tls-verify.sh \
	tests/integ/t-tls-server.sh
TESTS += $(TLS_TESTS)
EXTRA_DIST += $(TLS_TESTS) tests/integ/tlslib.sh tests/integ/tlspeer.py \
	contrib/cairn-mkca
# --- TLS (end) ---
