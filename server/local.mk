# server/: the cairnd daemon.
sbin_PROGRAMS += server/cairnd
server_cairnd_SOURCES = \
	server/cairnd.c server/session.c server/hostcfg.c server/fetch.c \
	server/stor.c server/server.h
server_cairnd_LDADD = $(CAIRN_LIBS)
