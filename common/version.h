/* version.h: the one place the version string comes from. */
#ifndef CAIRN_VERSION_H
#define CAIRN_VERSION_H

#define CAIRN_VERSION	PACKAGE_VERSION

/* What -V prints besides the version, or'ed. */
#define VERSION_DIGESTS	0x01	/* the digest names -c accepts */
#define VERSION_ZSTD	0x02	/* whether zstd is built in */

/*
 * -V of every tool: print the version on stdout; with VERSION_DIGESTS
 * the digest names -c accepts, one per line (sha1 first); then, with
 * VERSION_ZSTD (cairnd and the tools that talk to it), one line saying
 * whether zstd is built in, and with it delta transfer:
 *
 *	with zstd: delta transfer, zstd compression
 *	without zstd: no delta transfer, no zstd compression
 */
void	version_print(int flags);

#endif
