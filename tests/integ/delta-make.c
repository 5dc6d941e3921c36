/*
 * delta-make: make the delta of a target file from a basis file
 * (common/delta.c), named by its sha1, for the tests of the clients
 * that receive deltas: delta-apply's sibling.
 *
 *	delta-make BASIS TARGET OUT
 *
 * Exit 0 with OUT written, 1 (a message on stderr) on failure, 2 on a
 * usage error.
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
	int		 bfd, tfd, ofd;

	if (argc != 4) {
		fprintf(stderr, "usage: delta-make basis target out\n");
		return 2;
	}
	if ((bfd = open(argv[1], O_RDONLY)) == -1 ||
	    (tfd = open(argv[2], O_RDONLY)) == -1 ||
	    (ofd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644)) == -1) {
		perror("delta-make");
		return 1;
	}
	if (delta_make_fd(bfd, tfd, ofd, "sha1", 3, &err) == -1 ||
	    close(ofd) == -1) {
		fprintf(stderr, "delta-make: %s\n", err.msg);
		return 1;
	}
	return 0;
}
