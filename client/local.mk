# client/: the client tools.

# fsdiff
bin_PROGRAMS += client/fsdiff
client_fsdiff_SOURCES = client/fsdiff.c
client_fsdiff_LDADD = $(CAIRN_LIBS)

# --- transcript tools: lsort lmerge twhich lcksum (begin) ---
bin_PROGRAMS += client/lsort client/lmerge client/twhich client/lcksum
client_lsort_SOURCES = client/lsort.c
client_lsort_LDADD = $(CAIRN_LIBS)
client_lmerge_SOURCES = client/lmerge.c client/troot.c client/troot.h
client_lmerge_LDADD = $(CAIRN_LIBS)
client_twhich_SOURCES = client/twhich.c
client_twhich_LDADD = $(CAIRN_LIBS)
client_lcksum_SOURCES = client/lcksum.c client/troot.c client/troot.h
client_lcksum_LDADD = $(CAIRN_LIBS)
TESTS += tests/integ/t-lsort.sh tests/integ/t-lmerge.sh \
	tests/integ/t-twhich.sh tests/integ/t-lcksum.sh
EXTRA_DIST += tests/integ/t-lsort.sh tests/integ/t-lmerge.sh \
	tests/integ/t-twhich.sh tests/integ/t-lcksum.sh
# --- transcript tools (end) ---
