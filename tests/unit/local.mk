# tests/unit/: one Check suite per module.  A suite is a program with
# its own build rule, so the list of suites stays here, beside the
# rules; every other test is listed in tests/local.mk, which includes
# this file.
#   UNIT_TESTS        the suites of the first common/ modules and of
#                     lapply's plan (pure functions, no I/O), which the
#                     Debian package build runs (debian/rules);
#   UNIT_LAYER_TESTS  the connection layers, the receive side of the
#                     clients, the PROXY header, RAP, TLS, the file
#                     system helpers and the server's store of deltas.
if HAVE_CHECK
UNIT_TESTS = \
	tests/unit/check_buf \
	tests/unit/check_encode \
	tests/unit/check_pathcmp \
	tests/unit/check_transcript \
	tests/unit/check_command \
	tests/unit/check_wildcard \
	tests/unit/check_hostname \
	tests/unit/check_cksum \
	tests/unit/check_delta \
	tests/unit/check_dmove \
	tests/unit/check_confine \
	tests/unit/check_log \
	tests/unit/check_applyplan \
	tests/unit/check_manifest \
	tests/unit/check_sig
UNIT_LAYER_TESTS = \
	tests/unit/check_zauto \
	tests/unit/check_zlevel \
	tests/unit/check_conn \
	tests/unit/check_zstdconn \
	tests/unit/check_download \
	tests/unit/check_reqwin \
	tests/unit/check_proxy \
	tests/unit/check_linkmemo \
	tests/unit/check_cfgfile \
	tests/unit/check_proto \
	tests/unit/check_fsutil \
	tests/unit/check_tls \
	tests/unit/check_dstore
check_PROGRAMS += $(UNIT_TESTS) $(UNIT_LAYER_TESTS)
TESTS += $(UNIT_TESTS) $(UNIT_LAYER_TESTS)

UNIT_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
UNIT_LDADD = $(CHECK_LIBS) $(CAIRN_LIBS)

tests_unit_check_buf_SOURCES = tests/unit/check_buf.c
tests_unit_check_buf_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_buf_LDADD = $(UNIT_LDADD)
tests_unit_check_encode_SOURCES = tests/unit/check_encode.c
tests_unit_check_encode_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_encode_LDADD = $(UNIT_LDADD)
tests_unit_check_pathcmp_SOURCES = tests/unit/check_pathcmp.c
tests_unit_check_pathcmp_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_pathcmp_LDADD = $(UNIT_LDADD)
tests_unit_check_transcript_SOURCES = tests/unit/check_transcript.c
tests_unit_check_transcript_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_transcript_LDADD = $(UNIT_LDADD)
tests_unit_check_command_SOURCES = tests/unit/check_command.c
tests_unit_check_command_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_command_LDADD = $(UNIT_LDADD)
tests_unit_check_wildcard_SOURCES = tests/unit/check_wildcard.c
tests_unit_check_wildcard_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_wildcard_LDADD = $(UNIT_LDADD)
tests_unit_check_hostname_SOURCES = tests/unit/check_hostname.c
tests_unit_check_hostname_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_hostname_LDADD = $(UNIT_LDADD)
tests_unit_check_cksum_SOURCES = tests/unit/check_cksum.c
tests_unit_check_cksum_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_cksum_LDADD = $(UNIT_LDADD)
tests_unit_check_delta_SOURCES = tests/unit/check_delta.c
tests_unit_check_delta_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_delta_LDADD = $(UNIT_LDADD)
tests_unit_check_dmove_SOURCES = tests/unit/check_dmove.c
tests_unit_check_dmove_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_dmove_LDADD = $(UNIT_LDADD)
tests_unit_check_confine_SOURCES = tests/unit/check_confine.c
tests_unit_check_confine_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_confine_LDADD = $(UNIT_LDADD)
tests_unit_check_log_SOURCES = tests/unit/check_log.c
tests_unit_check_log_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_log_LDADD = $(UNIT_LDADD)
tests_unit_check_manifest_SOURCES = tests/unit/check_manifest.c
tests_unit_check_manifest_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_manifest_LDADD = $(UNIT_LDADD)
tests_unit_check_sig_SOURCES = tests/unit/check_sig.c
tests_unit_check_sig_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_sig_LDADD = $(UNIT_LDADD)
# lapply's plan: client/apply-plan.c alone, out of libclient.a.
tests_unit_check_applyplan_SOURCES = tests/unit/check_applyplan.c
tests_unit_check_applyplan_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/client
tests_unit_check_applyplan_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_applyplan_LDADD = client/libclient.a $(UNIT_LDADD)
else
TESTS += tests/unit/no-check.sh
endif
EXTRA_DIST += tests/unit/no-check.sh tests/unit/unit.h tests/unit/unitsrv.h

# Connection layers (conn, zstream, proto).
if HAVE_CHECK
tests_unit_check_zauto_SOURCES = tests/unit/check_zauto.c
tests_unit_check_zauto_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_zauto_LDADD = $(UNIT_LDADD)
tests_unit_check_zlevel_SOURCES = tests/unit/check_zlevel.c
tests_unit_check_zlevel_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_zlevel_LDADD = $(UNIT_LDADD)
tests_unit_check_conn_SOURCES = tests/unit/check_conn.c
tests_unit_check_conn_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_conn_LDADD = $(UNIT_LDADD)
tests_unit_check_zstdconn_SOURCES = tests/unit/check_zstdconn.c
tests_unit_check_zstdconn_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_zstdconn_LDADD = $(UNIT_LDADD)
endif

# The receive side of the clients (net/libnet.a: download.c;
# client/libclient.a: apply*.c).
if HAVE_CHECK
tests_unit_check_download_SOURCES = tests/unit/check_download.c
tests_unit_check_download_CPPFLAGS = $(NET_CPPFLAGS) -I$(srcdir)/client
tests_unit_check_download_CFLAGS = $(UNIT_CFLAGS) $(PTHREAD_CFLAGS)
tests_unit_check_download_LDADD = client/libclient.a net/libnet.a \
	$(UNIT_LDADD) $(PTHREAD_LIBS)
endif

# What cairnd remembers of each peer's link.
if HAVE_CHECK
tests_unit_check_linkmemo_SOURCES = tests/unit/check_linkmemo.c \
	server/linkmemo.c
tests_unit_check_linkmemo_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/server
tests_unit_check_linkmemo_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_linkmemo_LDADD = $(UNIT_LDADD)
endif

# The config file's reader, shared by cairnd and cairn-publish.
if HAVE_CHECK
tests_unit_check_cfgfile_SOURCES = tests/unit/check_cfgfile.c \
	server/cfgfile.c
tests_unit_check_cfgfile_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/server
tests_unit_check_cfgfile_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_cfgfile_LDADD = $(UNIT_LDADD)
endif

# The PROXY protocol header and cairnd -X's list of balancers.
if HAVE_CHECK
tests_unit_check_proxy_SOURCES = tests/unit/check_proxy.c server/proxy.c
tests_unit_check_proxy_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/server
tests_unit_check_proxy_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_proxy_LDADD = $(UNIT_LDADD)
endif

# The RAP layer, TLS contexts and sessions, file-system helpers.
if HAVE_CHECK
tests_unit_check_proto_SOURCES = tests/unit/check_proto.c
tests_unit_check_proto_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_proto_LDADD = $(UNIT_LDADD)
# write(2) wrapped: short writes and EINTR on every run; free(3) and
# reallocarray(3): no private key bytes left in freed memory
# (check_fsutil.c).
tests_unit_check_fsutil_SOURCES = tests/unit/check_fsutil.c
tests_unit_check_fsutil_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_fsutil_LDFLAGS = -Wl,--wrap=write -Wl,--wrap=free \
	-Wl,--wrap=reallocarray
tests_unit_check_fsutil_LDADD = $(UNIT_LDADD)
tests_unit_check_tls_SOURCES = tests/unit/check_tls.c
tests_unit_check_tls_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_tls_LDADD = $(UNIT_LDADD)
endif

# The requests kept in flight (net/libnet.a: reqwin.c, reqpool.c).
if HAVE_CHECK
tests_unit_check_reqwin_SOURCES = tests/unit/check_reqwin.c
tests_unit_check_reqwin_CPPFLAGS = $(NET_CPPFLAGS)
tests_unit_check_reqwin_CFLAGS = $(UNIT_CFLAGS) $(PTHREAD_CFLAGS)
tests_unit_check_reqwin_LDADD = net/libnet.a $(UNIT_LDADD) $(PTHREAD_LIBS)
endif

# The repository's store of bases and deltas (server/libdstore.a).
if HAVE_CHECK
tests_unit_check_dstore_SOURCES = tests/unit/check_dstore.c
tests_unit_check_dstore_CPPFLAGS = $(AM_CPPFLAGS) -I$(srcdir)/server
tests_unit_check_dstore_CFLAGS = $(UNIT_CFLAGS)
tests_unit_check_dstore_LDADD = server/libdstore.a $(UNIT_LDADD)
endif
