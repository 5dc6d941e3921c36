/*
 * version.c: what every tool prints for -V.
 */
#include "config.h"

#include <stdio.h>

#include "cksum.h"
#include "version.h"

void
version_print(int digests)
{
	printf("%s\n", CAIRN_VERSION);
	if (digests)
		cksum_list(stdout);
	fflush(stdout);
}
