/*
 * apply-basis.c: lapply's DELTA requests (docs/protocol.md section 5.11).
 *
 * With -c and a server that lists DELTA, a "+" line whose path holds a
 * regular file is asked as the difference from that file, the basis,
 * which the server may have built once for the whole fleet.  The basis
 * is reached as any path below the apply root is: confined, never
 * through a symbolic link; it is first opened as a mere reference
 * (O_PATH: a FIFO or a device is never opened for reading), its type,
 * names and size are checked on that descriptor (apply_plan_basis),
 * then it is opened for reading, must be the same object, and is
 * digested once.  That descriptor is the one the delta is applied to
 * (download.c); it stays open until the reply is received, so at most
 * BASIS_MAX are open at once.
 *
 * What the server sends is never taken on its word: a delta's result is
 * held to the transcript's size and digest like any download.  When a
 * delta fails (corrupt, made from another basis, another result), the
 * old file is as it was and the whole file is fetched at once, with
 * RETR, on a session of its own with the same server (opened the first
 * time it is needed): the session the delta came on has later requests
 * in flight whose replies come first (apply-retr.c).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "apply.h"
#include "apply-plan.h"
#include "cerr.h"
#include "cksum.h"
#include "confine.h"
#include "download.h"
#include "net.h"

void
basis_init(struct apply *ap)
{
	ap->delta = ap->digest != NULL && ap->net != NULL &&
	    net_has_cap(ap->net, "DELTA");
	if (ap->delta && ap->bck == NULL)
		ap->bck = cksum_new(ap->digest);
	if (ap->bck == NULL)
		ap->delta = 0;
}

/* The options of the run that apply_plan_basis depends on. */
static void
basis_planopt(const struct apply *ap, struct apply_planopt *po)
{
	memset(po, 0, sizeof(*po));
	po->network = ap->network;
	po->delta = ap->delta;
}

int
basis_wanted(const struct apply *ap, const struct apply_entry *e)
{
	struct apply_planopt	 po;

	basis_planopt(ap, &po);
	return !e->special && apply_plan_basis(&e->t, NULL, &po);
}

/* Open what is at e's path: (dfd, leaf), or from the root by its path. */
static int
basis_openat(struct apply *ap, const struct apply_entry *e, int dfd,
    const char *leaf, int flags)
{
	flags |= O_NOFOLLOW | O_CLOEXEC;
	if (dfd != -1)
		return *leaf == '\0' ? -1 : openat(dfd, leaf, flags);
	return confine_open(afs_rootfd(ap->fs), e->t.path, flags, 0);
}

int
basis_open(struct apply *ap, const struct apply_entry *e, int dfd,
    const char *leaf, struct dl_basis *b, char *sum)
{
	struct apply_planopt	 po;
	struct stat		 st, rst;
	int64_t			 size;
	int			 ref, fd;

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	if (ap->nbasis >= BASIS_MAX || !basis_wanted(ap, e) ||
	    ap->fs == NULL)
		return -1;
	basis_planopt(ap, &po);
	/* A reference first: nothing but a regular file is opened. */
	if ((ref = basis_openat(ap, e, dfd, leaf, O_PATH)) == -1)
		return -1;
	if (fstat(ref, &st) == -1 || !apply_plan_basis(&e->t, &st, &po)) {
		close(ref);
		return -1;
	}
	close(ref);
	fd = basis_openat(ap, e, dfd, leaf, O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd == -1)
		return -1;
	/* The very file looked at, not one put there since. */
	if (fstat(fd, &rst) == -1 || rst.st_dev != st.st_dev ||
	    rst.st_ino != st.st_ino || !apply_plan_basis(&e->t, &rst, &po) ||
	    cksum_fd(ap->bck, fd, sum, &size) == -1 || size != rst.st_size) {
		close(fd);
		return -1;
	}
	b->fd = fd;
	ap->nbasis++;
	return 0;
}

void
basis_close(struct apply *ap, struct dl_basis *b)
{
	if (b->fd == -1)
		return;
	close(b->fd);
	b->fd = -1;
	ap->nbasis--;
}

int
basis_send(const struct apply *ap, struct net *net,
    const struct apply_entry *e,
    const char *sum, struct cerr *err)
{
	return net_send_delta(net, ap->digest, sum, e->tname, e->t.epath,
	    err);
}

void
basis_count(struct apply *ap, const struct apply_entry *e,
    const struct dl_basis *b)
{
	if (b->delta && !b->failed) {
		ap->dstat.files++;
		ap->dstat.wire += (uint64_t)b->wire;
		ap->dstat.whole += (uint64_t)e->t.size;
	}
}

void
basis_end(struct apply *ap, FILE *fp)
{
	struct cerr	 err;

	if (fp != NULL && ap->delta)
		fprintf(fp, "delta: %llu files by delta, %llu bytes on the "
		    "wire for %llu bytes whole; %llu fetched whole after a "
		    "failed delta\n", (unsigned long long)ap->dstat.files,
		    (unsigned long long)ap->dstat.wire,
		    (unsigned long long)ap->dstat.whole,
		    (unsigned long long)ap->dstat.fallbacks);
	if (ap->side != NULL) {
		if (fp != NULL)
			net_print_stats(ap->side, fp);
		(void)net_close(ap->side, &err);
		ap->side = NULL;
	}
	cksum_free(ap->bck);
	ap->bck = NULL;
}
