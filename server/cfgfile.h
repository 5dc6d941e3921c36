/*
 * cfgfile.h: the one reader of the repository's "config" file
 * (docs/protocol.md section 6.1): its entries "<pattern> <command file>"
 * and its "@include <file> [<pattern>]" lines, in order, through the
 * caller's hook.  cairnd matches a host with it (hostcfg.c); cairn-publish
 * lists every command file it names (the special directories of a
 * release, specmeta.h).
 *
 * Lines longer than CFGFILE_MAXLINE, a bad @include and an invalid entry
 * are logged (log_warnx, naming the file and line) and skipped; so is an
 * @include nested deeper than CFGFILE_DEPTH or of a file being read
 * already (a loop), and the reading goes on.  An @include of a file read
 * already, as deep or less, is skipped quietly: it has nothing new to
 * give.  Comments ("#" first) and blank lines are skipped.
 */
#ifndef CAIRN_CFGFILE_H
#define CAIRN_CFGFILE_H

struct cerr;

#define CFGFILE_NAME	"config"
#define CFGFILE_DEPTH	10
#define CFGFILE_MAXLINE	(64 * 1024)

/*
 * What the hook is told: an entry (pattern and command file, both as
 * written), or an @include (file, and pattern or NULL).  For an entry
 * the hook returns 0 to go on, or anything else to stop the reading
 * with that value; for an @include, 0 to skip the file, 1 to read it
 * (its value, when not 0, stops the reading too), anything else to stop
 * with that value.
 */
enum cfgfile_what { CFGFILE_ENTRY, CFGFILE_INCLUDE };
typedef int	(*cfgfile_fn)(void *arg, enum cfgfile_what what,
		    const char *pattern, const char *name);

/*
 * Read the config file path (relative names below dirfd, AT_FDCWD for
 * the working directory, as every @include's).  Returns 0 once read to
 * its end, the hook's value that stopped it, or -1 with err when a file
 * cannot be opened or read.
 */
int	cfgfile_read(int dirfd, const char *path, cfgfile_fn fn, void *arg,
	    struct cerr *err);

#endif
