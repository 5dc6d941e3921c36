/*
 * wildcard.c: Radmind wildcard matching (docs/protocol.md section 10).
 *
 * '*' matches any run of bytes including '/', '?' one byte, '<a-b>' a run
 * of decimal digits whose value lies in [a, b], '{x,y}' one of the
 * literal alternatives, '[set]' one byte of the literal set (documented
 * semantics; Radmind 1.x's implementation differs), '\c' the byte c.
 */
#include "config.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "wildcard.h"

static int
wc_eq(unsigned char a, unsigned char b, int icase)
{
	if (icase)
		return tolower(a) == tolower(b);
	return a == b;
}

/* Parse "<min-max>" at p; on success set *end past '>' and return 1. */
static int
wc_range(const char *p, unsigned long long *min, unsigned long long *max,
    const char **end)
{
	char	*e;

	if (!isdigit((unsigned char)p[1]))
		return 0;
	*min = strtoull(p + 1, &e, 10);
	if (*e != '-' || !isdigit((unsigned char)e[1]))
		return 0;
	*max = strtoull(e + 1, &e, 10);
	if (*e != '>')
		return 0;
	*end = e + 1;
	return 1;
}

/*
 * Patterns with several '*' or '{,}' can retry the same (pattern,
 * string) positions exponentially often.  After WC_EASY steps a table
 * remembers, per position pair, the smallest depth at which the match
 * failed (a failure at depth d is a failure at any greater depth), so
 * the work stays polynomial.  Plain patterns never get that far.
 */
#define WC_EASY		4096
#define WC_MEMOMAX	(16 * 1024 * 1024)	/* table bytes at most */

struct wc {
	const char	*p0, *s0;
	size_t		 plen, slen;
	int		 icase;
	unsigned long	 steps;
	unsigned char	*memo;		/* failed depth + 1, 0: unknown */
	int		 nomemo;	/* too large for a table */
};

static int	wc_match(struct wc *, const char *p, const char *s, int depth);

static int
wc_try(struct wc *w, const char *p, const char *s, int depth)
{
	size_t	 i;
	int	 r;

	if (w->memo == NULL && !w->nomemo && ++w->steps > WC_EASY) {
		if ((w->plen + 1) * (w->slen + 1) > WC_MEMOMAX ||
		    (w->memo = calloc((w->plen + 1) * (w->slen + 1), 1)) ==
		    NULL)
			w->nomemo = 1;
	}
	if (w->memo == NULL)
		return wc_match(w, p, s, depth);
	i = (size_t)(p - w->p0) * (w->slen + 1) + (size_t)(s - w->s0);
	if (w->memo[i] != 0 && depth >= w->memo[i] - 1)
		return 0;
	if ((r = wc_match(w, p, s, depth)) == 0 &&
	    (w->memo[i] == 0 || depth < w->memo[i] - 1))
		w->memo[i] = (unsigned char)(depth + 1);
	return r;
}

static int
wc_match(struct wc *w, const char *p, const char *s, int depth)
{
	int			 icase = w->icase;
	unsigned long long	 min, max, v;
	const char		*end, *alt, *q;
	size_t			 n;
	int			 found;

	if (depth > 64)
		return 0;
	while (*p != '\0') {
		switch (*p) {
		case '*':
			while (*p == '*')
				p++;
			if (*p == '\0')
				return 1;
			for (; *s != '\0'; s++)
				if (wc_try(w, p, s, depth + 1))
					return 1;
			return wc_try(w, p, s, depth + 1);
		case '?':
			if (*s == '\0')
				return 0;
			p++;
			s++;
			break;
		case '<':
			if (!wc_range(p, &min, &max, &end))
				goto literal;
			if (!isdigit((unsigned char)*s))
				return 0;
			/* the whole run of digits is the number (as Radmind) */
			n = strspn(s, "0123456789");
			v = 0;
			for (size_t i = 0; i < n; i++)
				v = v > 1000000000000ULL ? v :
				    v * 10 + (unsigned)(s[i] - '0');
			if (v < min || v > max)
				return 0;
			p = end;
			s += n;
			break;
		case '{':
			if ((end = strchr(p, '}')) == NULL)
				goto literal;
			for (alt = p + 1; alt <= end; alt = q + 1) {
				q = alt;
				while (q < end && *q != ',')
					q++;
				n = (size_t)(q - alt);
				found = icase ? strncasecmp(s, alt, n) == 0 :
				    strncmp(s, alt, n) == 0;
				if (found && wc_try(w, end + 1, s + n,
				    depth + 1))
					return 1;
			}
			return 0;
		case '[':
			if ((end = strchr(p + 1, ']')) == NULL)
				goto literal;
			if (*s == '\0')
				return 0;
			found = 0;
			for (q = p + 1; q < end; q++)
				if (wc_eq((unsigned char)*q,
				    (unsigned char)*s, icase))
					found = 1;
			if (!found)
				return 0;
			p = end + 1;
			s++;
			break;
		case '\\':
			if (p[1] != '\0')
				p++;
			/* FALLTHROUGH */
		default:
		literal:
			if (*s == '\0' ||
			    !wc_eq((unsigned char)*p, (unsigned char)*s, icase))
				return 0;
			p++;
			s++;
			break;
		}
	}
	return *s == '\0';
}

int
wildcard(const char *pattern, const char *string, int icase)
{
	struct wc	 w;
	int		 r;

	memset(&w, 0, sizeof(w));
	w.p0 = pattern;
	w.s0 = string;
	w.plen = strlen(pattern);
	w.slen = strlen(string);
	w.icase = icase;
	r = wc_match(&w, pattern, string, 0);
	free(w.memo);
	return r;
}
