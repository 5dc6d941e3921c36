/*
 * delta-apply: apply a delta file to its basis (common/delta.c) and
 * write the result, for the tests of the deltas the repository keeps.
 *
 *	delta-apply BASIS DELTA OUT
 *
 * Exit 0 with OUT written, 1 (a message on stderr) if the delta does not
 * apply, 2 on a usage error.
 */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "cerr.h"
#include "delta.h"

int
main(int argc, char *argv[])
{
	struct cerr	 err;
	int		 bfd, dfd, ofd;

	if (argc != 4) {
		fprintf(stderr, "usage: delta-apply basis delta out\n");
		return 2;
	}
	if ((bfd = open(argv[1], O_RDONLY)) == -1 ||
	    (dfd = open(argv[2], O_RDONLY)) == -1 ||
	    (ofd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1) {
		perror("delta-apply");
		return 1;
	}
	if (delta_apply_fd(bfd, dfd, ofd, NULL, &err) == -1 ||
	    close(ofd) == -1) {
		fprintf(stderr, "delta-apply: %s\n", err.msg);
		return 1;
	}
	return 0;
}
