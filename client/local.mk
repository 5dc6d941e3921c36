# client/: the client tools.

# fsdiff
bin_PROGRAMS += client/fsdiff
client_fsdiff_SOURCES = client/fsdiff.c
client_fsdiff_LDADD = $(CAIRN_LIBS)

# libclient.a: the network client library shared by the network tools.
noinst_LIBRARIES += client/libclient.a
client_libclient_a_SOURCES = \
	client/net.c client/net.h \
	client/copts.c client/copts.h

# ktcheck
bin_PROGRAMS += client/ktcheck
client_ktcheck_SOURCES = client/ktcheck.c
client_ktcheck_LDADD = client/libclient.a $(CAIRN_LIBS)

KTCHECK_TESTS = \
	tests/integ/t-ktcheck-basic.sh \
	tests/integ/t-ktcheck-zlib.sh \
	tests/integ/t-ktcheck-wire.sh
TESTS += $(KTCHECK_TESTS)
EXTRA_DIST += $(KTCHECK_TESTS)
