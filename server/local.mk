# server/: the cairnd daemon.
sbin_PROGRAMS += server/cairnd
server_cairnd_SOURCES = \
	server/cairnd.c server/session.c server/hostcfg.c server/fetch.c \
	server/stor.c server/server.h
server_cairnd_LDADD = $(CAIRN_LIBS)

TESTS += \
	tests/integ/t-cairnd-verbs.sh tests/integ/t-cairnd-fetch.sh
EXTRA_DIST += tests/integ/netlib.sh tests/integ/rap.py \
	tests/integ/t-cairnd-verbs.sh tests/integ/t-cairnd-fetch.sh
