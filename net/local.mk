# net/: libnet.a, the client end of the protocol, linked by every program
# that connects to a cairnd: ktcheck, lapply, lcreate, lfdiff and repo
# (client/) and cairn-replicate (server/).  It holds the session with a
# server (net.c: connect, TLS, compression, STAT/RETR/STOR), the one
# download routine (download.c) and the zstd dictionaries kept between
# sessions (zdkeep.c), the signed release as a client with
# keys pinned checks it (release.c), the requests kept in flight on top
# of it (reqwin.c over one session, reqpool.c over several) and the one
# table of the options the tools share (copts.c: the network options,
# -c, -D, -e, -I, -i, -q, -u, -V), for which the tools that never
# connect (fsdiff, lsort, lmerge, twhich, lcksum, cairn-publish) link
# it too.  A program that uses it compiles with $(NET_CPPFLAGS), to
# find these headers, and links net/libnet.a before $(CAIRN_LIBS).
noinst_LIBRARIES += net/libnet.a
net_libnet_a_SOURCES = \
	net/net.c net/net.h \
	net/download.c net/download.h \
	net/reqwin.c net/reqwin.h \
	net/reqpool.c net/reqpool.h \
	net/copts.c net/copts.h \
	net/trust.c net/trust.h \
	net/zdkeep.c net/zdkeep.h
net_libnet_a_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
# -k's default: the public keys pinned (ktcheck(1), lapply(1)); where
# lapply keeps the zstd dictionaries it took (lapply(1)).
net_libnet_a_CPPFLAGS = $(AM_CPPFLAGS) \
	-DCAIRN_KEYSDIR='"$(sysconfdir)/cairn/keys"' \
	-DCAIRN_ZDICTDIR='"$(localstatedir)/cache/cairn/zdict"'

NET_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/net
