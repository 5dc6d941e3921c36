# tests/fuzz/: libFuzzer targets over the parsers, built with clang and
# run by `make fuzz` (tests/fuzz/fuzz.sh), FUZZ_SECONDS each.
FUZZ_CC = clang
FUZZ_SECONDS = 30
FUZZ_TARGETS = request reply transcript command hostcfg encode inflate zstd proxy delta manifest signature

fuzz: config.h
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' \
	    FUZZ_CC='$(FUZZ_CC)' FUZZ_SECONDS='$(FUZZ_SECONDS)' \
	    FUZZ_TARGETS='$(FUZZ_TARGETS)' \
	    FUZZ_CPPFLAGS='$(OPENSSL_CFLAGS) $(ZLIB_CFLAGS) $(ZSTD_CFLAGS)' \
	    FUZZ_WARN='$(WARN_CFLAGS)' \
	    FUZZ_LIBS='$(OPENSSL_LIBS) $(ZLIB_LIBS) $(ZSTD_LIBS) $(PTHREAD_LIBS)' \
	    $(SHELL) '$(abs_top_srcdir)/tests/fuzz/fuzz.sh'

fuzz-clean:
	rm -rf tests/fuzz/obj tests/fuzz/bin tests/fuzz/run

clean-local: fuzz-clean

.PHONY: fuzz fuzz-clean

EXTRA_DIST += tests/fuzz/fuzz.sh tests/fuzz/fuzz.h \
	tests/fuzz/fuzz_request.c tests/fuzz/fuzz_reply.c \
	tests/fuzz/fuzz_transcript.c tests/fuzz/fuzz_command.c \
	tests/fuzz/fuzz_hostcfg.c tests/fuzz/fuzz_encode.c \
	tests/fuzz/fuzz_inflate.c tests/fuzz/fuzz_zstd.c tests/fuzz/corpus \
	tests/fuzz/fuzz_proxy.c tests/fuzz/fuzz_delta.c \
	tests/fuzz/fuzz_manifest.c tests/fuzz/fuzz_signature.c
