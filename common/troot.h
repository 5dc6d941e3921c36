/*
 * troot.h: where a server-side transcript keeps its file tree
 * (lcksum(1)): inside <D>/tmp/transcript/... the files are under
 * <D>/tmp/file/..., inside <D>/transcript/... under <D>/file/..., and
 * anywhere else under <transcript dir>/../file.
 */
#ifndef CAIRN_TROOT_H
#define CAIRN_TROOT_H

struct cerr;

struct troot {
	char	*file_root;	/* directory holding <tran_name>/<path> */
	char	*tran_root;	/* directory holding the transcript */
	char	*tran_name;	/* last component of the transcript path */
};

/*
 * Resolve tpath (which must exist) with realpath(3) and fill tr (strings
 * malloc'd; free with troot_clear).  radmind_dir is the working
 * directory (-D); it need not exist.  Returns 0, or -1 with err.
 */
int	troot_get(const char *radmind_dir, const char *tpath,
	    struct troot *tr, struct cerr *err);
void	troot_clear(struct troot *);

#endif
