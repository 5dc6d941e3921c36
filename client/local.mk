# client/: the client tools, one file each, and libclient.a, the apply
# library lapply is made of.  Every tool compiles with $(NET_CPPFLAGS)
# and links net/libnet.a: the network tools (ktcheck, lapply, lcreate,
# lfdiff, repo) for the session with a server, the others (fsdiff,
# lsort, lmerge, twhich, lcksum) for the options the tools share
# (net/copts.c), which is all they take from it.  Their tests are listed
# in tests/local.mk.

# fsdiff
bin_PROGRAMS += client/fsdiff
client_fsdiff_SOURCES = client/fsdiff.c
client_fsdiff_CPPFLAGS = $(NET_CPPFLAGS)
client_fsdiff_LDADD = net/libnet.a $(CAIRN_LIBS)

# --- transcript tools: lsort lmerge twhich lcksum (begin) ---
bin_PROGRAMS += client/lsort client/lmerge client/twhich client/lcksum
client_lsort_SOURCES = client/lsort.c
client_lsort_CPPFLAGS = $(NET_CPPFLAGS)
client_lsort_LDADD = net/libnet.a $(CAIRN_LIBS)
client_lmerge_SOURCES = client/lmerge.c
client_lmerge_CPPFLAGS = $(NET_CPPFLAGS)
client_lmerge_LDADD = net/libnet.a $(CAIRN_LIBS)
client_twhich_SOURCES = client/twhich.c
client_twhich_CPPFLAGS = $(NET_CPPFLAGS)
client_twhich_LDADD = net/libnet.a $(CAIRN_LIBS)
client_lcksum_SOURCES = client/lcksum.c
client_lcksum_CPPFLAGS = $(NET_CPPFLAGS)
client_lcksum_LDADD = net/libnet.a $(CAIRN_LIBS)
# --- transcript tools (end) ---

# --- network client: libclient.a, ktcheck (begin) ---
# libclient.a: the apply library (apply*.c) that lapply is made of, on
# top of net/libnet.a (the session with the server, the download
# routine, the shared network options).
noinst_LIBRARIES += client/libclient.a
client_libclient_a_SOURCES = \
	client/apply.c client/apply.h client/apply-msg.c client/apply-msg.h \
	client/apply-fs.c client/apply-fs.h client/apply-retr.c \
	client/apply-progress.c client/apply-progress.h \
	client/apply-sync.c client/apply-jobs.c client/apply-basis.c \
	client/apply-plan.c client/apply-plan.h
client_libclient_a_CPPFLAGS = $(NET_CPPFLAGS)
client_libclient_a_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)

# ktcheck
bin_PROGRAMS += client/ktcheck
client_ktcheck_SOURCES = client/ktcheck.c
client_ktcheck_CPPFLAGS = $(NET_CPPFLAGS)
client_ktcheck_LDADD = net/libnet.a $(CAIRN_LIBS)
# --- network client (end) ---

# --- uploads and server-side helpers: lcreate lfdiff repo (begin) ---
bin_PROGRAMS += client/lcreate
client_lcreate_SOURCES = client/lcreate.c
client_lcreate_CPPFLAGS = $(NET_CPPFLAGS)
client_lcreate_LDADD = net/libnet.a $(CAIRN_LIBS)
bin_PROGRAMS += client/lfdiff client/repo
client_lfdiff_SOURCES = client/lfdiff.c
client_lfdiff_CPPFLAGS = $(NET_CPPFLAGS)
client_lfdiff_LDADD = net/libnet.a $(CAIRN_LIBS)
client_repo_SOURCES = client/repo.c
client_repo_CPPFLAGS = $(NET_CPPFLAGS)
client_repo_LDADD = net/libnet.a $(CAIRN_LIBS)
# --- lcreate lfdiff repo (end) ---

# --- lapply (begin) ---
# lapply: apply an applicable transcript.
bin_PROGRAMS += client/lapply
client_lapply_SOURCES = client/lapply.c
client_lapply_CPPFLAGS = $(NET_CPPFLAGS)
client_lapply_LDADD = client/libclient.a net/libnet.a $(CAIRN_LIBS) \
	$(PTHREAD_LIBS)
# --- lapply (end) ---
