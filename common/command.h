/*
 * command.h: Radmind command files (docs/formats.md section 5).
 */
#ifndef CAIRN_COMMAND_H
#define CAIRN_COMMAND_H

#include <stddef.h>

struct cerr;

/* One command-file line. */
struct cline {
	char	 type;		/* k p n s x */
	int	 minus;
	char	*name;		/* token as written (still encoded) */
	unsigned lineno;
};

/*
 * Parse one line.  Returns 1 for an entry, 0 for blank/comment, -1 on
 * error ("command file <file>: line N: ..." in err).  c->name is malloc'd.
 */
int	cline_parse(struct cline *c, const char *line, const char *file,
	    unsigned lineno, struct cerr *err);

/* A transcript named by a command file, in precedence order. */
struct centry {
	char	 type;		/* 'p' or 'n' */
	char	*name;		/* as written in the command file */
	char	*kfile;		/* command file that listed it */
};

/* A fully expanded command file. */
struct cmdset {
	struct centry	*tran;		/* lowest precedence first */
	size_t		 ntran;
	char		**special;	/* s paths as written (encoded), file order */
	size_t		 nspecial;
	char		**exclude;	/* x patterns, decoded */
	size_t		 nexclude;
	char		**kfiles;	/* command files read (paths as opened) */
	size_t		 nkfiles;
	char		*kdir;		/* command directory, ends in '/' */
};

#define CMD_MINUS	0x01	/* apply "- type name" lines (fsdiff) */
#define CMD_MINUS_S	0x02	/* apply only "- s" (ktcheck) */
#define CMD_NOMINUSK	0x04	/* "- k" is an error (fsdiff) */
#define CMD_ICASE	0x08	/* "- s" matches ignoring case (-I) */

/*
 * Read base command file kfile and everything it includes (k lines,
 * relative to kdir; kdir NULL: the directory of kfile, or "./").
 * Loops and nesting deeper than 64 are errors.  Returns 0, or -1 with err.
 */
int	cmdset_load(const char *kfile, const char *kdir, int flags,
	    struct cmdset **out, struct cerr *err);
void	cmdset_free(struct cmdset *);

/*
 * The same walk with hooks, for a reader that must act on each entry
 * as it comes (ktcheck fetches an included command file before it is
 * read).  open (NULL: by path) opens the command file kpath, name as
 * its k line wrote it (NULL for the base file), and returns a
 * descriptor or -1 with errno.  entry (may be NULL) sees every entry
 * line that is not a "-" line, in file order, before a k line is
 * followed; it returns 0 to go on, 1 to end the walk there (the walk
 * then succeeds with what was read), -1 to fail it (message in err).
 */
struct cmdwalk {
	int	(*open)(void *arg, const char *kpath, const char *name);
	int	(*entry)(void *arg, const struct cline *c, const char *kpath,
		    struct cerr *err);
	void	*arg;
};

int	cmdset_walk(const char *kfile, const char *kdir, int flags,
	    const struct cmdwalk *w, struct cmdset **out, struct cerr *err);

/*
 * A name from a k line becomes a path below the command directory:
 * nonzero if it is relative with no empty or ".." component, so it
 * cannot leave that directory, and names more than the directory
 * itself (not only "." components).
 */
int	command_name_ok(const char *name);

/*
 * The one spelling of a name command_name_ok accepts: its "."
 * components dropped ("./a/./b.T" is "a/b.T"), so that two spellings
 * of one file are one name.  Allocated.
 */
char	*command_name_canon(const char *name);

/* Command directory of kfile: its directory with '/', or "./". */
char	*command_dir(const char *kfile);

#endif
