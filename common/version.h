/* version.h: the one place the version string comes from. */
#ifndef CAIRN_VERSION_H
#define CAIRN_VERSION_H
#define CAIRN_VERSION	PACKAGE_VERSION
#endif
