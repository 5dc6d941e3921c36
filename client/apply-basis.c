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
 * A "+" line whose path holds nothing may still have a basis: the file
 * this transcript removes whose path is the same but for its numbers,
 * the version rule of common/dmove.h (a kernel's modules under
 * lib/modules/<version>/).  Such pairs are found once, when the run
 * starts.  A basis whose "-" line runs first is opened and digested
 * just before it is removed, and the descriptor is held until its new
 * file has been asked for: at most BASIS_HOLDMAX files and
 * BASIS_HOLDBYTES bytes, whose disk space is freed only then.  Past
 * those bounds the new file comes whole.
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
#include <sys/resource.h>
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
#include "delta.h"
#include "dmove.h"
#include "download.h"
#include "net.h"
#include "xmalloc.h"

/* A "+" line (plus) and the "-" line of its basis by the version rule. */
struct basis_pair {
	size_t		 plus, minus;
};

/* A basis removed before the line it serves: held once removed. */
struct basis_src {
	size_t		 minus;		/* its "-" line */
	size_t		 plus;		/* the first line it serves */
	unsigned	 users;		/* lines not yet asked for */
	int		 fd;		/* held, or -1 */
	int64_t		 size;
	char		 sum[CKSUM_B64MAX];
};

struct basis_moved {
	struct basis_pair *pair;	/* by plus */
	size_t		 npair;
	struct basis_src *src;		/* by minus */
	size_t		 nsrc;
	size_t		 nheld, holdmax;
	int64_t		 heldbytes;
};

static int
basis_paircmp(const void *a, const void *b)
{
	const struct basis_pair	*x = a, *y = b;

	return x->plus < y->plus ? -1 : x->plus > y->plus;
}

static int
basis_srccmp(const void *a, const void *b)
{
	const struct basis_src	*x = a, *y = b;

	return x->minus < y->minus ? -1 : x->minus > y->minus;
}

/* The pair of line i, or NULL. */
static struct basis_pair *
basis_pairof(const struct apply *ap, size_t i)
{
	struct basis_pair	 key;

	if (ap->mv == NULL || ap->mv->npair == 0)
		return NULL;
	key.plus = i;
	return bsearch(&key, ap->mv->pair, ap->mv->npair,
	    sizeof(key), basis_paircmp);
}

/* The held basis of "-" line i, or NULL. */
static struct basis_src *
basis_srcof(const struct apply *ap, size_t i)
{
	struct basis_src	 key;

	if (ap->mv == NULL || ap->mv->nsrc == 0)
		return NULL;
	key.minus = i;
	return bsearch(&key, ap->mv->src, ap->mv->nsrc, sizeof(key),
	    basis_srccmp);
}

/*
 * How many bases may be held: BASIS_HOLDMAX, within the descriptors
 * this process may open (the soft limit is raised towards the hard one
 * when it is lower than want), keeping BASIS_FDSPARE for the rest.
 */
static size_t
basis_holdmax(size_t want)
{
	struct rlimit	 rl;
	rlim_t		 need;

	if (want > BASIS_HOLDMAX)
		want = BASIS_HOLDMAX;
	if (getrlimit(RLIMIT_NOFILE, &rl) == -1)
		return 0;
	need = (rlim_t)want + BASIS_FDSPARE;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rl.rlim_cur = rl.rlim_max == RLIM_INFINITY ||
		    rl.rlim_max > need ? need : rl.rlim_max;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
		(void)getrlimit(RLIMIT_NOFILE, &rl);
	}
	if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= need)
		return want;
	return rl.rlim_cur > BASIS_FDSPARE ?
	    (size_t)(rl.rlim_cur - BASIS_FDSPARE) : 0;
}

/*
 * The version rule over the transcript: every "+" line that may go as
 * DELTA is paired with the last file of its version key that a "-" line
 * removes (dmove.h); a basis removed first is a source to hold.
 */
static void
basis_pairs(struct apply *ap)
{
	struct basis_moved	*mv;
	struct basis_src	*sp;
	struct dmove		*dm;
	const struct tline	*t;
	size_t			 i, m, n, cap = 0;

	dm = dmove_new();
	for (i = 0; i < ap->nent; i++) {
		t = &ap->ent[i].t;
		if (t->minus && t->type == 'f' && t->size >= 0 &&
		    t->size <= DELTA_MAXFILE)
			dmove_add(dm, t->path, i);
	}
	if (dmove_count(dm) == 0) {
		dmove_free(dm);
		return;
	}
	dmove_sort(dm);
	mv = xcalloc(1, sizeof(*mv));
	for (i = 0; i < ap->nent; i++) {
		if (!basis_wanted(ap, &ap->ent[i]) ||
		    !dmove_find(dm, ap->ent[i].t.path, &m))
			continue;
		if (mv->npair == cap) {
			cap = cap ? cap * 2 : 64;
			mv->pair = xreallocarray(mv->pair, cap,
			    sizeof(*mv->pair));
		}
		mv->pair[mv->npair].plus = i;
		mv->pair[mv->npair++].minus = m;
	}
	dmove_free(dm);
	/* The sources: bases whose "-" line comes first, and their users. */
	mv->src = xreallocarray(NULL, mv->npair + 1, sizeof(*mv->src));
	for (i = 0; i < mv->npair; i++) {
		if (mv->pair[i].minus > mv->pair[i].plus)
			continue;
		sp = &mv->src[mv->nsrc++];
		memset(sp, 0, sizeof(*sp));
		sp->minus = mv->pair[i].minus;
		sp->plus = mv->pair[i].plus;
		sp->users = 1;
		sp->fd = -1;
	}
	qsort(mv->src, mv->nsrc, sizeof(*mv->src), basis_srccmp);
	for (i = n = 0; i < mv->nsrc; i++) {
		if (n > 0 && mv->src[n - 1].minus == mv->src[i].minus) {
			mv->src[n - 1].users++;
			if (mv->src[i].plus < mv->src[n - 1].plus)
				mv->src[n - 1].plus = mv->src[i].plus;
		} else
			mv->src[n++] = mv->src[i];
	}
	mv->nsrc = n;
	mv->holdmax = n > 0 ? basis_holdmax(n) : 0;
	ap->mv = mv;
}

void
basis_init(struct apply *ap)
{
	/* Built without zstd, lapply never asks DELTA (delta.h). */
	ap->delta = delta_built() && ap->digest != NULL && ap->net != NULL &&
	    net_has_cap(ap->net, "DELTA");
	if (ap->delta && ap->bck == NULL)
		ap->bck = cksum_new(ap->digest);
	if (ap->bck == NULL)
		ap->delta = 0;
	if (ap->delta)
		basis_pairs(ap);
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

/* Open what is at (dfd, leaf), or with dfd -1 path from the root. */
static int
basis_openat(struct apply *ap, const char *path, int dfd, const char *leaf,
    int flags)
{
	flags |= O_NOFOLLOW | O_CLOEXEC;
	if (dfd != -1)
		return *leaf == '\0' ? -1 : openat(dfd, leaf, flags);
	return confine_open(afs_rootfd(ap->fs), path, flags, 0);
}

/*
 * Open the basis at (dfd, leaf) or path for the "+" line t and digest
 * it into sum: its descriptor, or -1 (errno ENOENT when nothing is
 * there).  *size is its size.
 */
static int
basis_get(struct apply *ap, const struct tline *t, const char *path,
    int dfd, const char *leaf, char *sum, int64_t *size)
{
	struct apply_planopt	 po;
	struct stat		 st, rst;
	int			 ref, fd;

	basis_planopt(ap, &po);
	/* A reference first: nothing but a regular file is opened. */
	if ((ref = basis_openat(ap, path, dfd, leaf, O_PATH)) == -1)
		return -1;
	if (fstat(ref, &st) == -1 || !apply_plan_basis(t, &st, &po)) {
		close(ref);
		errno = EINVAL;
		return -1;
	}
	close(ref);
	fd = basis_openat(ap, path, dfd, leaf,
	    O_RDONLY | O_NONBLOCK | O_NOCTTY);
	if (fd == -1)
		return -1;
	/* The very file looked at, not one put there since. */
	if (fstat(fd, &rst) == -1 || rst.st_dev != st.st_dev ||
	    rst.st_ino != st.st_ino || !apply_plan_basis(t, &rst, &po) ||
	    cksum_fd(ap->bck, fd, sum, size) == -1 || *size != rst.st_size) {
		close(fd);
		errno = EINVAL;
		return -1;
	}
	return fd;
}

/*
 * The basis of the "+" line i by the version rule: the held descriptor
 * of its "-" line, or the file of that line while it is there.
 */
static int
basis_moved(struct apply *ap, size_t i, char *sum)
{
	struct basis_pair	*p;
	struct basis_src	*sp;
	int64_t			 size;
	int			 fd;

	if ((p = basis_pairof(ap, i)) == NULL)
		return -1;
	if ((sp = basis_srcof(ap, p->minus)) != NULL && sp->fd != -1) {
		if ((fd = fcntl(sp->fd, F_DUPFD_CLOEXEC, 0)) == -1)
			return -1;
		memcpy(sum, sp->sum, CKSUM_B64MAX);
		return fd;
	}
	return basis_get(ap, &ap->ent[i].t, ap->ent[p->minus].t.path, -1,
	    NULL, sum, &size);
}

/* Close what a source holds. */
static void
basis_letgo(struct apply *ap, struct basis_src *sp)
{
	if (sp->fd == -1)
		return;
	close(sp->fd);
	sp->fd = -1;
	ap->mv->nheld--;
	ap->mv->heldbytes -= sp->size;
}

/* The "+" line i has been asked for: its source has one user less. */
static void
basis_asked(struct apply *ap, size_t i)
{
	struct basis_pair	*p;
	struct basis_src	*sp;

	if ((p = basis_pairof(ap, i)) == NULL ||
	    (sp = basis_srcof(ap, p->minus)) == NULL || sp->users == 0)
		return;
	if (--sp->users == 0)
		basis_letgo(ap, sp);
}

void
basis_hold(struct apply *ap, size_t i)
{
	struct basis_moved	*mv = ap->mv;
	struct basis_src	*sp;
	const struct tline	*t = &ap->ent[i].t;
	int64_t			 size;
	int			 fd;

	if ((sp = basis_srcof(ap, i)) == NULL || sp->users == 0 ||
	    sp->fd != -1 || mv->nheld >= mv->holdmax || ap->fs == NULL ||
	    t->size > BASIS_HOLDBYTES - mv->heldbytes)
		return;
	fd = basis_get(ap, &ap->ent[sp->plus].t, t->path, -1, NULL, sp->sum,
	    &size);
	if (fd == -1)
		return;
	if (size > BASIS_HOLDBYTES - mv->heldbytes) {
		close(fd);
		return;
	}
	sp->fd = fd;
	sp->size = size;
	mv->nheld++;
	mv->heldbytes += size;
}

int
basis_open(struct apply *ap, const struct apply_entry *e, int dfd,
    const char *leaf, struct dl_basis *b, char *sum)
{
	size_t	 i = (size_t)(e - ap->ent);
	int64_t	 size;
	int	 fd = -1;

	memset(b, 0, sizeof(*b));
	b->fd = -1;
	if (ap->nbasis < BASIS_MAX && basis_wanted(ap, e) && ap->fs != NULL) {
		fd = basis_get(ap, &e->t, e->t.path, dfd, leaf, sum, &size);
		if (fd == -1 && errno == ENOENT)
			fd = basis_moved(ap, i, sum);
	}
	basis_asked(ap, i);
	if (fd == -1)
		return -1;
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
	size_t		 i;

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
	if (ap->mv != NULL) {
		for (i = 0; i < ap->mv->nsrc; i++)
			basis_letgo(ap, &ap->mv->src[i]);
		free(ap->mv->pair);
		free(ap->mv->src);
		free(ap->mv);
		ap->mv = NULL;
	}
}
