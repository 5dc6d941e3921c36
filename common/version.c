/*
 * version.c: what every tool prints for -V.
 */
#include "config.h"

#include <stdio.h>

#include "cksum.h"
#include "delta.h"
#include "version.h"
#include "zlevel.h"

void
version_print(int flags)
{
	printf("%s\n", CAIRN_VERSION);
	if (flags & VERSION_DIGESTS)
		cksum_list(stdout);
	if (flags & VERSION_ZSTD) {
		if (zlevel_built(ZLEVEL_ZSTD) && delta_built())
			printf("with zstd: delta transfer, zstd compression\n");
		else
			printf("without zstd: no delta transfer, no zstd "
			    "compression\n");
	}
	fflush(stdout);
}
