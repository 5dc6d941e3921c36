/*
 * tverify.c: check a server-side transcript line against its stored file
 * (lcksum(1)); shared by lcksum and cairn-publish.
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "cksum.h"
#include "confine.h"
#include "path.h"
#include "transcript.h"
#include "troot.h"
#include "tverify.h"
#include "xmalloc.h"

#define AS_HEADERLEN	26	/* AppleSingle header (docs/formats.md 8) */
#define AS_ENTRYLEN	12

static uint32_t
get32(const unsigned char *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
	    (uint32_t)p[2] << 8 | p[3];
}

/*
 * Check the AppleSingle structure of fd (docs/formats.md 8); returns the size
 * its header describes, or -1 with err if it is malformed.
 */
static int64_t
check_applefile(const char *path, int fd, struct cerr *err)
{
	static const unsigned char magic[AS_HEADERLEN] = {
		0x00, 0x05, 0x16, 0x00, 0x00, 0x02, 0x00, 0x00,
		0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x00, 0x03 };
	static const uint32_t ids[3] = { 9, 2, 1 };
	unsigned char	 hdr[AS_HEADERLEN + 3 * AS_ENTRYLEN];
	uint32_t	 off[3], len[3];
	ssize_t		 r;
	size_t		 got = 0;
	int		 i;

	if (lseek(fd, 0, SEEK_SET) == -1) {
		cerr_errno(err, "%s: lseek failed", path);
		return -1;
	}
	while (got < sizeof(hdr)) {
		r = read(fd, hdr + got, sizeof(hdr) - got);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			cerr_errno(err, "%s: read failed", path);
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	if (got != sizeof(hdr) || memcmp(hdr, magic, AS_HEADERLEN) != 0)
		goto invalid;
	for (i = 0; i < 3; i++) {
		if (get32(hdr + AS_HEADERLEN + i * AS_ENTRYLEN) != ids[i])
			goto invalid;
		off[i] = get32(hdr + AS_HEADERLEN + i * AS_ENTRYLEN + 4);
		len[i] = get32(hdr + AS_HEADERLEN + i * AS_ENTRYLEN + 8);
	}
	if (off[0] != sizeof(hdr)) {
		cerr_set(err, "%s: invalid finder info offset", path);
		return -1;
	}
	if ((uint64_t)off[1] != (uint64_t)off[0] + len[0]) {
		cerr_set(err, "%s: incorrect rsrc fork offset", path);
		return -1;
	}
	if ((uint64_t)off[2] != (uint64_t)off[1] + len[1]) {
		cerr_set(err, "%s: incorrect data fork offset", path);
		return -1;
	}
	return (int64_t)sizeof(hdr) + len[0] + len[1] + len[2];
invalid:
	cerr_set(err, "%s: invalid applesingle header", path);
	return -1;
}

int
tverify_wants(const struct tline *t)
{
	return (t->type == 'f' || t->type == 'a') && !t->minus && !t->plus;
}

int
tverify_line(struct cksum *ck, const struct troot *tr, const struct tline *t,
    int checkapple, struct tvfile *sf, struct cerr *err)
{
	char	*tree = NULL;
	int	 dfd = -1;

	memset(sf, 0, sizeof(*sf));
	sf->fd = -1;
	if (path_has_dotdot(t->path)) {
		cerr_set(err, "line %u: %s: path contains \"..\"", t->lineno,
		    t->path);
		return -1;
	}
	xasprintf(&sf->file, "%s/%s/%s", tr->file_root, tr->tran_name,
	    t->path);
	/*
	 * Beneath the transcript's own tree, never through a symbolic
	 * link: a link stored there must not have another file read (or
	 * a FIFO have us wait) in place of the one the line names.
	 */
	xasprintf(&tree, "%s/%s", tr->file_root, tr->tran_name);
	if ((dfd = open(tree, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) == -1 ||
	    (sf->fd = confine_open(dfd, t->path, O_RDONLY | O_NONBLOCK,
	    0)) == -1) {
		cerr_errno(err, "line %u: open %s", t->lineno, t->path);
		goto fail;
	}
	if (fstat(sf->fd, &sf->st) == -1) {
		cerr_errno(err, "line %u: %s", t->lineno, sf->file);
		goto fail;
	}
	if (!S_ISREG(sf->st.st_mode)) {
		cerr_set(err, "line %u: %s: not a regular file", t->lineno,
		    t->path);
		goto fail;
	}
	close(dfd);
	free(tree);
	if (cksum_fd(ck, sf->fd, sf->sum, &sf->size) == -1) {
		cerr_errno(err, "line %u: %s", t->lineno, sf->file);
		tvfile_clear(sf);
		return -1;
	}
	if (sf->size != t->size)
		sf->wrong |= TV_SIZE;
	if (strcmp(sf->sum, t->cksum) != 0)
		sf->wrong |= TV_CKSUM;
	if (t->type == 'a' && checkapple &&
	    check_applefile(sf->file, sf->fd, err) != sf->size)
		sf->wrong |= TV_APPLE;
	return 0;
fail:
	if (dfd != -1)
		close(dfd);
	free(tree);
	tvfile_clear(sf);
	return -1;
}

void
tvfile_clear(struct tvfile *sf)
{
	if (sf->fd != -1)
		close(sf->fd);
	sf->fd = -1;
	free(sf->file);
	sf->file = NULL;
}
