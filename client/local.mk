# client/: the client tools.

# fsdiff
bin_PROGRAMS += client/fsdiff
client_fsdiff_SOURCES = client/fsdiff.c
client_fsdiff_LDADD = $(CAIRN_LIBS)
