/*
 * specset.h: the stat entries of a signed release (docs/formats.md
 * section 15): for some host, what a STAT SPECIAL may truthfully answer,
 * with the content it would then send.  cairn-publish's.
 */
#ifndef CAIRN_SPECSET_H
#define CAIRN_SPECSET_H

struct cerr;
struct manifest;

/*
 * Add to m the stat entries of the repository at rootfd (m->digest
 * digests the contents): for every host special directory
 * special/<dir>/<key> (<dir> the directory part of a command file named
 * in config, <key> each directory there) and every regular file below
 * it, reached without a symbolic link as cairnd reaches it, the path p
 * relative to the host's directory, the file's size and digest, and the
 * metadata specmeta_lookup (specmeta.h) gives it when asked as "./p" and as "/p"
 * (both when they differ and a transcript names the path in both
 * spellings; only the spelling a transcript names when it names one).
 * The entries are appended unsorted (manifest_sort).  No config file:
 * no entry.  Returns 0, or -1 with err.
 */
int	specset_collect(int rootfd, struct manifest *m, struct cerr *err);

#endif
