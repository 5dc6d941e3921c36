/*
 * hostname.h: the one check every peer-supplied name passes before it
 * becomes a key in config or a component of a path in the repository:
 * a reverse-DNS name, a certificate CN or subjectAltName.
 */
#ifndef CAIRN_HOSTNAME_H
#define CAIRN_HOSTNAME_H

#include <stddef.h>

#define HOSTNAME_MAX	253	/* longest name accepted, without a dot */

/*
 * Nonzero if the len bytes at name are a host name in the strict sense
 * of RFC 952 and RFC 1123: labels of 1 to 63 letters, digits and '-',
 * neither beginning nor ending with '-', separated by single dots; no
 * leading or trailing dot; at most HOSTNAME_MAX bytes; and a last label
 * that is not all digits, so that no name can pass for an IPv4 address
 * ("10.0.0.1" from a PTR record would otherwise match the entry meant
 * for that address).  Everything else fails: ".", "..", "*", "a..b",
 * "a_b", "a/b", spaces, NUL and non-ASCII bytes.
 */
int	hostname_valid(const char *name, size_t len);

#endif
