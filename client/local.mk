# client/: the client tools, one file each, and libclient.a, the apply
# library lapply is made of.  Every tool compiles with $(NET_CPPFLAGS)
# and links net/libnet.a: the network tools (ktcheck, lapply, lcreate,
# lfdiff, repo) for the session with a server, the others (fsdiff,
# lsort, lmerge, twhich, lcksum) for the options the tools share
# (net/copts.c), which is all they take from it.

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
TESTS += tests/integ/t-lsort.sh tests/integ/t-lmerge.sh \
	tests/integ/t-twhich.sh tests/integ/t-lcksum.sh
EXTRA_DIST += tests/integ/t-lsort.sh tests/integ/t-lmerge.sh \
	tests/integ/t-twhich.sh tests/integ/t-lcksum.sh
# --- transcript tools (end) ---

# --- network client: libclient.a, ktcheck (begin) ---
# libclient.a: the apply library (apply*.c) that lapply is made of, on
# top of net/libnet.a (the session with the server, the download
# routine, the shared network options).
noinst_LIBRARIES += client/libclient.a
client_libclient_a_SOURCES = \
	client/apply.c client/apply.h \
	client/apply-fs.c client/apply-retr.c client/apply-progress.c \
	client/apply-sync.c client/apply-jobs.c
client_libclient_a_CPPFLAGS = $(NET_CPPFLAGS)
client_libclient_a_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)

# ktcheck
bin_PROGRAMS += client/ktcheck
client_ktcheck_SOURCES = client/ktcheck.c
client_ktcheck_CPPFLAGS = $(NET_CPPFLAGS)
client_ktcheck_LDADD = net/libnet.a $(CAIRN_LIBS)

KTCHECK_TESTS = \
	tests/integ/t-ktcheck-basic.sh \
	tests/integ/t-ktcheck-zlib.sh \
	tests/integ/t-ktcheck-wire.sh \
	tests/integ/t-ktcheck-hostile.sh \
	tests/integ/t-client-failover.sh \
	tests/integ/t-ktcheck-stage.sh \
	tests/integ/t-client-signals.sh
TESTS += $(KTCHECK_TESTS)
EXTRA_DIST += $(KTCHECK_TESTS)
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
TESTS += $(UPLOAD_TESTS)
EXTRA_DIST += $(UPLOAD_TESTS) tests/integ/slowproxy.py
# --- lcreate lfdiff repo (end) ---

# --- lapply (begin) ---
# lapply: apply an applicable transcript.
bin_PROGRAMS += client/lapply
client_lapply_SOURCES = client/lapply.c
client_lapply_CPPFLAGS = $(NET_CPPFLAGS)
client_lapply_LDADD = client/libclient.a net/libnet.a $(CAIRN_LIBS) \
	$(PTHREAD_LIBS)

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
	tests/integ/t-lapply-faults.sh \
	tests/integ/t-lapply-trace.sh \
	tests/integ/t-lapply-race.sh \
	tests/integ/t-lapply-jobs.sh \
	tests/integ/t-lapply-progress.sh \
	tests/integ/t-lapply-signals.sh \
	tests/integ/t-lapply-fserrors.sh
TESTS += $(LAPPLY_TESTS)
EXTRA_DIST += $(LAPPLY_TESTS) tests/integ/lapply-lib.sh \
	tests/integ/lapply-srv.py tests/integ/crashcheck.py \
	tests/integ/tracecheck.py tests/integ/dropproxy.py \
	tests/integ/ptyrun.py tests/integ/sigcheck.py
# --- lapply (end) ---
