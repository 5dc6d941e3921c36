/*
 * fsutil.c: recursive removal and parent creation.
 */
#include "config.h"

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fsutil.h"
#include "xmalloc.h"

int
fs_rmtreeat(int dfd, const char *name)
{
	struct dirent	*de;
	DIR		*d;
	int		 fd, r = 0, saved = 0;

	if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
		return 0;
	if (errno != EISDIR && errno != EPERM)
		return -1;
	if ((fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		return -1;
	if ((d = fdopendir(fd)) == NULL) {
		saved = errno;
		close(fd);
		errno = saved;
		return -1;
	}
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fs_rmtreeat(dirfd(d), de->d_name) == -1 && r == 0) {
			saved = errno;
			r = -1;
		}
	}
	closedir(d);
	if (unlinkat(dfd, name, AT_REMOVEDIR) == -1 && r == 0) {
		saved = errno;
		r = -1;
	}
	if (r == -1)
		errno = saved;
	return r;
}

int
fs_mkparents(const char *path)
{
	char	*p, *s;
	int	 saved;

	p = xstrdup(path);
	for (s = p + 1; (s = strchr(s, '/')) != NULL; s++) {
		*s = '\0';
		if (mkdir(p, 0777) == -1 && errno != EEXIST) {
			saved = errno;
			free(p);
			errno = saved;
			return -1;
		}
		*s = '/';
	}
	free(p);
	return 0;
}

int
fs_room(int dfd, int64_t size, int64_t *avail)
{
	struct statvfs	 sv;
	uint64_t	 free;

	if (fstatvfs(dfd, &sv) == -1)
		return -1;
	free = (uint64_t)sv.f_bavail * (uint64_t)sv.f_frsize;
	if (free > INT64_MAX)
		free = INT64_MAX;
	*avail = (int64_t)free;
	if (size < 0 || size > *avail || *avail - size < FS_KEEPFREE)
		return 1;
	return 0;
}

int
fs_write_all(int fd, const void *buf, size_t len)
{
	const char	*p = buf;
	ssize_t		 n;

	while (len > 0) {
		if ((n = write(fd, p, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}
