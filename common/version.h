/* version.h: the one place the version string comes from. */
#ifndef CAIRN_VERSION_H
#define CAIRN_VERSION_H

#define CAIRN_VERSION	PACKAGE_VERSION

/*
 * -V of every tool: print the version on stdout and, when digests is
 * nonzero, the digest names -c accepts, one per line (sha1 first).
 */
void	version_print(int digests);

#endif
