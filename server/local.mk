# server/: the cairnd daemon (its files are listed in server/server.h),
# and two programs of one file each for the repository's host:
# cairn-publish (common/libcairn.a only) and cairn-replicate, which pulls
# from its primary as a client does (net/libnet.a).  Both cairnd and
# cairn-publish link server/libdstore.a, the store of bases and deltas
# (dstore.h).  Nothing here compiles a file of client/ or includes its
# headers.
noinst_LIBRARIES += server/libdstore.a
server_libdstore_a_SOURCES = server/dstore.c server/dstore.h
# What config gives a host (cfgfile.h, the one reader of config) and the
# metadata of its special files (specmeta.h): cairnd's STAT SPECIAL and
# the stat entries of cairn-publish's release manifest.
noinst_LIBRARIES += server/libspecial.a
server_libspecial_a_SOURCES = server/cfgfile.c server/cfgfile.h \
	server/specmeta.c server/specmeta.h
# The signed releases of a repository (release.h): written by
# cairn-publish.
noinst_LIBRARIES += server/librelease.a
server_librelease_a_SOURCES = server/release.c server/release.h

sbin_PROGRAMS += server/cairnd
server_cairnd_SOURCES = \
	server/cairnd.c server/session.c server/peer.c server/peer.h \
	server/hostcfg.c server/fetch.c server/stor.c server/zcache.c \
	server/zcache.h server/warm.c server/server.h server/proxy.c \
	server/tindex.c server/tindex.h server/linkmemo.c server/linkmemo.h
# stor.c syncs a full batch of uploads on a thread while the next arrives.
server_cairnd_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
server_cairnd_LDADD = server/libspecial.a server/libdstore.a $(CAIRN_LIBS) \
	$(PTHREAD_LIBS)

# The tests of the programs here are listed in tests/local.mk.

# --- TLS (begin) ---
# Service files: an init script and a systemd unit, with the installed
# paths filled in.
server/init.d/cairnd: $(srcdir)/server/cairnd.init.in Makefile
	$(AM_V_GEN)$(MKDIR_P) server/init.d && \
	$(path_subst) <$(srcdir)/server/cairnd.init.in >$@.tmp && \
	chmod +x $@.tmp && mv $@.tmp $@
server/cairnd.service: $(srcdir)/server/cairnd.service.in Makefile
	$(AM_V_GEN)$(MKDIR_P) server && \
	$(path_subst) <$(srcdir)/server/cairnd.service.in >$@.tmp && \
	mv $@.tmp $@
if INSTALL_INIT_SCRIPT
initd_SCRIPTS = server/init.d/cairnd
initddir = $(initdir)
else
noinst_SCRIPTS = server/init.d/cairnd
endif
if INSTALL_SYSTEMD_UNIT
systemdsystemunit_DATA = server/cairnd.service
else
noinst_DATA = server/cairnd.service
endif
CLEANFILES += server/init.d/cairnd server/cairnd.service
EXTRA_DIST += server/cairnd.init.in server/cairnd.service.in

# The test-CA helper.
dist_sbin_SCRIPTS = contrib/cairn-mkca
# --- TLS (end) ---

# --- cairn-publish (begin) ---
# It checks an upload with lcksum's own line check (common/tverify.c),
# and takes the options the tools share from net/libnet.a (copts.c).
sbin_PROGRAMS += server/cairn-publish
server_cairn_publish_SOURCES = server/publish.c server/specset.c \
	server/specset.h
server_cairn_publish_CPPFLAGS = $(NET_CPPFLAGS)
server_cairn_publish_LDADD = server/librelease.a server/libspecial.a \
	server/libdstore.a net/libnet.a $(CAIRN_LIBS)
# cairn-sign: keys, signatures of release manifests (offline).
sbin_PROGRAMS += server/cairn-sign
server_cairn_sign_SOURCES = server/sign.c
server_cairn_sign_CPPFLAGS = $(NET_CPPFLAGS)
server_cairn_sign_LDADD = net/libnet.a $(CAIRN_LIBS)
# --- cairn-publish (end) ---
# An example balancer in front of cairnd -X (cairnd(8)).
EXTRA_DIST += contrib/haproxy.cfg

# --- cairn-replicate (begin) ---
# cairn-replicate: keep a replica's repository in step with the primary.
sbin_PROGRAMS += server/cairn-replicate
server_cairn_replicate_SOURCES = server/replicate.c
server_cairn_replicate_CPPFLAGS = $(NET_CPPFLAGS) -DSBINDIR='"$(sbindir)"'
server_cairn_replicate_LDADD = server/librelease.a net/libnet.a $(CAIRN_LIBS)
# --- cairn-replicate (end) ---
