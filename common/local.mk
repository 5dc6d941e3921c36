# common/: the internal library every program links (see Makefile.am).
noinst_LIBRARIES += common/libcairn.a
common_libcairn_a_CFLAGS = $(AM_CFLAGS) $(PTHREAD_CFLAGS)
common_libcairn_a_SOURCES = \
	common/compat.c common/compat.h \
	common/log.c common/log.h \
	common/xmalloc.c common/xmalloc.h \
	common/buf.c common/buf.h \
	common/bytesize.c common/bytesize.h \
	common/path.c common/path.h \
	common/pathcmp.c common/pathcmp.h \
	common/encode.c common/encode.h \
	common/transcript.c common/transcript.h \
	common/troot.c common/troot.h \
	common/tverify.c common/tverify.h \
	common/cksum.c common/cksum.h \
	common/delta.c common/delta.h common/dmove.c common/dmove.h \
	common/wildcard.c common/wildcard.h \
	common/command.c common/command.h \
	common/cerr.c common/cerr.h \
	common/transport.c common/transport.h \
	common/connfilter.h \
	common/connin.c common/connin.h \
	common/connout.c common/connout.h \
	common/conn.c common/conn.h \
	common/connra.c common/connra.h \
	common/zconn.c common/zconn.h \
	common/zstdconn.c common/zstdconn.h \
	common/zlevel.c common/zlevel.h \
	common/zauto.c common/zauto.h \
	common/zstream.c common/zstream.h \
	common/proto.c common/proto.h \
	common/tls.c common/tls.h \
	common/fsutil.c common/fsutil.h \
	common/intr.c common/intr.h \
	common/confine.c common/confine.h \
	common/version.c common/version.h \
	common/proxyhdr.c common/proxyhdr.h \
	common/strlist.c common/strlist.h \
	common/hostname.c common/hostname.h \
	common/manifest.c common/manifest.h \
	common/sig.c common/sig.h
