/*
 * apply-fs.h: confined access to the apply root (apply-fs.c).  It
 * announces the directories it makes through the messages of the run
 * (apply-msg.h) and calls nothing else of the apply library.
 */
#ifndef CAIRN_APPLY_FS_H
#define CAIRN_APPLY_FS_H

#include <sys/types.h>
#include <sys/stat.h>

struct amsg;
struct cerr;
struct tline;

/*
 * Confined access to the apply root.  The root is opened once; every
 * path is reached component by component from held directory fds with
 * O_NOFOLLOW | O_DIRECTORY, so no symbolic link inside the root is ever
 * followed and nothing outside it can be named.
 */
struct afs;

#define AFS_MAXDEPTH	256	/* directory components we hold open */

/* Open "." (relative transcripts) or "/" (absolute ones). */
struct afs	*afs_open(struct amsg *, int style, struct cerr *err);
/* fsync every directory that had entries renamed into it, then close. */
int		 afs_close(struct afs *, struct cerr *err);

/*
 * Lexical check of a decoded path for the given style: "." or "./a/b"
 * (relative), "/" or "/a/b" (absolute); no empty, "." or ".."
 * components, none longer than NAME_MAX.  Returns NULL if fine, else a
 * static description of the problem.
 */
const char	*afs_checkpath(const char *path, int style);
/* Nonzero if path names the apply root itself ("." or "/"). */
int		 afs_isroot(const char *path);

/*
 * Resolve the directory containing path.  On success *dfd is a borrowed
 * descriptor (valid until the next afs call) and *leaf points into path
 * at the last component ("" for the root itself).  Returns 0, 1 if a
 * parent component does not exist (and create is 0), -1 with a message
 * in err (symbolic link or non-directory in the way, I/O errors).
 * With create, missing components are made with the mode and owner of
 * their nearest existing parent and announced with amsg_say().
 */
int		 afs_parent(struct afs *, const char *path, int create,
		    int *dfd, const char **leaf, struct cerr *err);
/* Directory dfd got a new entry: fsync it before it is closed. */
void		 afs_dirty(struct afs *, int dfd);
/* The directory path was removed: drop any descriptor held for it. */
void		 afs_forget(struct afs *, const char *path);
int		 afs_rootfd(const struct afs *);

/*
 * Nonzero if every name of the non-directory st is an entry of the
 * directory dfd (its link count is all there): no name of it lies
 * elsewhere, inside the root or out of it.
 */
int	 afs_names_here(int dfd, const struct stat *st);
/*
 * Nonzero if every name of the non-directory st (in the directory dfd)
 * lies inside the apply root: its own directory is looked at first, the
 * tree below the root only when that does not account for them all.
 */
int	 afs_names_inside(struct afs *, int dfd, const struct stat *st);

/*
 * Owner and mode of the open object fd (now st) as t declares, in an
 * order never more permissive than both the old and the new state;
 * appends " uid", " gid", " mode" to msg for what changed, and sets
 * *changed (unless NULL) if anything did.  Used by apply.c and
 * apply-retr.c.  Returns 0 or -1 with errno and *op the step that
 * failed ("chown" or "chmod").
 */
int	 afs_owner_mode(int fd, const struct stat *st, const struct tline *t,
	    char *msg, size_t msglen, int *changed, const char **op);

#endif
