/*
 * linkmemo.c: the table of what sessions remember of each peer's link
 * (see linkmemo.h).
 */
#include "config.h"

#include <sys/types.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cerr.h"
#include "linkmemo.h"
#include "xmalloc.h"

/* One entry: 64 bytes. */
struct lm_slot {
	uint32_t	 seq;		/* even: stable; odd: being written */
	int32_t		 codec, level;
	int16_t		 linkknown, recalls;
	unsigned char	 key[16];	/* IPv6, or IPv4-mapped */
	int64_t		 when;		/* time of the write */
	double		 link, speed1, ratio1;
};

struct linkmemo {
	struct lm_slot	*slot;
	size_t		 size;
};

#define LM_SIZE	(LINKMEMO_SLOTS * sizeof(struct lm_slot))

struct linkmemo *
linkmemo_open(int rootfd, struct cerr *err)
{
	struct linkmemo	*lm;
	struct stat	 st;
	void		*p;
	size_t		 i;
	int		 fd;

	fd = openat(rootfd, LINKMEMO_FILE, O_RDWR | O_CREAT | O_NOFOLLOW |
	    O_CLOEXEC, 0600);
	if (fd == -1) {
		cerr_set(err, "%s: %s", LINKMEMO_FILE, strerror(errno));
		return NULL;
	}
	if (fstat(fd, &st) == -1) {
		cerr_set(err, "%s: %s", LINKMEMO_FILE, strerror(errno));
		close(fd);
		return NULL;
	}
	/*
	 * tmp/ is writable by the -g user, and this runs as root: a hard
	 * link put there would have root truncate and map its target.
	 */
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1 ||
	    st.st_uid != geteuid()) {
		cerr_set(err, "%s: not a regular file of our own with one "
		    "link: not used", LINKMEMO_FILE);
		close(fd);
		return NULL;
	}
	if (((size_t)st.st_size != LM_SIZE && ftruncate(fd, 0) == -1) ||
	    ftruncate(fd, (off_t)LM_SIZE) == -1) {
		cerr_set(err, "%s: %s", LINKMEMO_FILE, strerror(errno));
		close(fd);
		return NULL;
	}
	p = mmap(NULL, LM_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED) {
		cerr_set(err, "%s: %s", LINKMEMO_FILE, strerror(errno));
		return NULL;
	}
	lm = xcalloc(1, sizeof(*lm));
	lm->slot = p;
	lm->size = LM_SIZE;
	/*
	 * No session runs yet: an entry left half written (a session
	 * killed while it wrote) is dropped, and its place is free again.
	 */
	for (i = 0; i < LINKMEMO_SLOTS; i++)
		if (lm->slot[i].seq & 1)
			memset(&lm->slot[i], 0, sizeof(lm->slot[i]));
	return lm;
}

void
linkmemo_close(struct linkmemo *lm)
{
	if (lm == NULL)
		return;
	munmap(lm->slot, lm->size);
	free(lm);
}

/* The key of numeric address ip; -1 if it is none. */
static int
lm_key(const char *ip, unsigned char key[16])
{
	struct in_addr	 a4;

	if (inet_pton(AF_INET6, ip, key) == 1)
		return 0;
	if (inet_pton(AF_INET, ip, &a4) != 1)
		return -1;
	memset(key, 0, 10);
	key[10] = key[11] = 0xff;
	memcpy(key + 12, &a4, 4);
	return 0;
}

/* The first of the key's LINKMEMO_WAYS places (FNV-1a of the key). */
static size_t
lm_home(const unsigned char key[16])
{
	uint32_t	 h = 2166136261u;
	int		 i;

	for (i = 0; i < 16; i++) {
		h ^= key[i];
		h *= 16777619u;
	}
	return h % LINKMEMO_SLOTS;
}

/*
 * The key of the network of the address whose key is key, for a peer
 * with no memo of its own: an IPv4 address's /24, an IPv6 address's /64.
 * Apart from every peer's own key: a /64's is its subnet-router anycast
 * address (the prefix and zeros, never a source address), a /24's an
 * address of the reserved ::/8 (::1:ffff:a.b.c.0), never a peer's.
 */
static void
lm_netkey(const unsigned char key[16], unsigned char net[16])
{
	static const unsigned char	 v4[12] = {
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff
	};

	memcpy(net, key, 16);
	if (memcmp(key, v4, sizeof(v4)) == 0) {
		net[9] = 1;
		net[15] = 0;
	} else
		memset(net + 8, 0, 8);
}

/* The memo under key: 0 with m filled, -1 if there is none. */
static int
lm_find(struct linkmemo *lm, const unsigned char key[16],
    struct zauto_memo *m)
{
	struct lm_slot	 copy, *s;
	uint32_t	 seq;
	size_t		 home;
	int		 i;

	home = lm_home(key);
	for (i = 0; i < LINKMEMO_WAYS; i++) {
		s = &lm->slot[(home + (size_t)i) % LINKMEMO_SLOTS];
		seq = __atomic_load_n(&s->seq, __ATOMIC_ACQUIRE);
		if (seq & 1)
			continue;
		memcpy(&copy, s, sizeof(copy));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&s->seq, __ATOMIC_RELAXED) != seq)
			continue;
		if (memcmp(copy.key, key, 16) != 0 || copy.when == 0)
			continue;
		if (copy.when > (int64_t)time(NULL) + 60 ||
		    (int64_t)time(NULL) - copy.when > LINKMEMO_MAXAGE)
			return -1;
		memset(m, 0, sizeof(*m));
		m->link = copy.link;
		m->linkknown = copy.linkknown != 0;
		m->recalls = copy.recalls;
		m->codec = copy.codec;
		m->level = copy.level;
		m->speed1 = copy.speed1;
		m->ratio1 = copy.ratio1;
		return 0;
	}
	return -1;
}

int
linkmemo_get(struct linkmemo *lm, const char *ip, struct zauto_memo *m)
{
	unsigned char	 key[16], net[16];

	if (lm == NULL || lm_key(ip, key) == -1)
		return -1;
	if (lm_find(lm, key, m) == 0)
		return 0;
	lm_netkey(key, net);
	return lm_find(lm, net, m) == 0 ? 1 : -1;
}

/* Remember m under key (best effort). */
static void
lm_store(struct linkmemo *lm, const unsigned char key[16],
    const struct zauto_memo *m)
{
	struct lm_slot	*s, *pick = NULL;
	uint32_t	 seq;
	size_t		 home;
	int		 i;

	home = lm_home(key);
	/* The key's own place, else an empty one, else the oldest. */
	for (i = 0; i < LINKMEMO_WAYS; i++) {
		s = &lm->slot[(home + (size_t)i) % LINKMEMO_SLOTS];
		if (memcmp(s->key, key, 16) == 0) {
			pick = s;
			break;
		}
		if (pick == NULL || s->when < pick->when)
			pick = s;
	}
	seq = __atomic_load_n(&pick->seq, __ATOMIC_RELAXED);
	if ((seq & 1) || !__atomic_compare_exchange_n(&pick->seq, &seq,
	    seq + 1, 0, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
		return;
	memcpy(pick->key, key, 16);
	pick->when = (int64_t)time(NULL);
	pick->link = m->link;
	pick->linkknown = m->linkknown != 0;
	pick->recalls = m->recalls < 0 ? 0 : m->recalls > INT16_MAX ?
	    INT16_MAX : (int16_t)m->recalls;
	pick->codec = m->codec;
	pick->level = m->level;
	pick->speed1 = m->speed1;
	pick->ratio1 = m->ratio1;
	__atomic_store_n(&pick->seq, seq + 2, __ATOMIC_RELEASE);
}

void
linkmemo_put(struct linkmemo *lm, const char *ip, const struct zauto_memo *m)
{
	unsigned char	 key[16], net[16];

	if (lm == NULL || lm_key(ip, key) == -1)
		return;
	lm_store(lm, key, m);
	lm_netkey(key, net);
	lm_store(lm, net, m);
}
