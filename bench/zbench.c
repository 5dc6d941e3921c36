/*
 * zbench: in-process zlib deflate throughput of a tree of files, the
 * reference the pull benchmark compares the daemon's compression with.
 *
 *	zbench LEVEL FILE...
 *
 * Reads every file once into memory, then deflates all of them into one
 * stream (never finished, sync-flushed every 256 KiB as the daemon's
 * stream is) and prints: level, raw bytes, compressed bytes, CPU seconds
 * of the deflate calls alone, and MB/s.
 */
#include "config.h"

#include <sys/resource.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <zlib.h>

#include "cerr.h"
#include "log.h"
#include "xmalloc.h"
#include "zlevel.h"

#define CHUNK	(256 * 1024)

static double
cpu_now(void)
{
	struct timespec	ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int
main(int argc, char *argv[])
{
	z_stream	 z;
	struct cerr	 err;
	unsigned char	*data = NULL, *out;
	size_t		 len = 0, cap = 0, off;
	unsigned long long zbytes = 0;
	double		 t0, t1;
	int		 level, i, fd, flush;
	ssize_t		 n;
	struct stat	 st;

	log_init("zbench", LOG_TO_STDERR | LOG_PREFIX, 0);
	log_setfatalstatus(2);
	if (argc < 3) {
		fprintf(stderr, "usage: zbench level file...\n");
		return 2;
	}
	if (zlevel_parse(ZLEVEL_ZLIB, argv[1], 0, &level, &err) == -1)
		fatalx("%s", err.msg);
	for (i = 2; i < argc; i++) {
		if ((fd = open(argv[i], O_RDONLY)) == -1 ||
		    fstat(fd, &st) == -1)
			fatal("%s", argv[i]);
		if (len + (size_t)st.st_size + 1 > cap) {
			cap = (len + (size_t)st.st_size + 1) * 2;
			data = xreallocarray(data, cap, 1);
		}
		while ((n = read(fd, data + len, cap - len)) > 0)
			len += (size_t)n;
		close(fd);
	}
	out = xmalloc(CHUNK * 2);
	memset(&z, 0, sizeof(z));
	if (deflateInit(&z, level) != Z_OK)
		fatalx("deflateInit failed");
	t0 = cpu_now();
	for (off = 0; off < len; off += CHUNK) {
		z.next_in = data + off;
		z.avail_in = (uInt)(len - off < CHUNK ? len - off : CHUNK);
		flush = Z_SYNC_FLUSH;
		do {
			z.next_out = out;
			z.avail_out = CHUNK * 2;
			if (deflate(&z, flush) == Z_STREAM_ERROR)
				fatalx("deflate failed");
			zbytes += CHUNK * 2 - z.avail_out;
		} while (z.avail_out == 0);
	}
	t1 = cpu_now();
	deflateEnd(&z);
	printf("%d %zu %llu %.3f %.1f\n", level, len, zbytes, t1 - t0,
	    t1 > t0 ? (double)len / 1e6 / (t1 - t0) : 0.0);
	free(data);
	free(out);
	return 0;
}
