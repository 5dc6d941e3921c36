/*
 * bench-corpus.c: the benchmark corpus, the project's one generator of
 * benchmark trees (cairn-bench --make-corpus; bench/gen-corpus and the
 * bench scripts run that, and a sweep without --data makes one here).
 *
 * Corpus mode: about size bytes in a tree shaped like a Unix system
 * image, the shares by bytes:
 *
 *	15%  etc/                configuration text, 1-20 KB per file
 *	20%  usr/src/            C-like source text, 2-40 KB per file
 *	20%  var/log/            syslog-like text, up to 10 MB per file
 *	10%  usr/share/media/    random bytes (a stand-in for images)
 *	10%  usr/share/archives/ gzip-compressed generated text
 *	25%  usr/bin/, usr/lib/  copies of ELF files from /usr/bin, /usr/lib
 *
 * and a MANIFEST.txt.  Files mode: exactly n small files of the same
 * classes, the shares counted by files, each class under a directory of
 * its own and no directory holding more than 200 files or 50
 * subdirectories; the ELF class holds slices of ELF files there.
 *
 * The tree is a function of the size (or count) and the seed alone,
 * except for the ELF class, which takes what the host has installed
 * (picked from a sorted list with the seeded generator, so the same on
 * identical hosts).  The gzip files are compressed here, with zlib as
 * gzip(1) would at level 6.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/stat.h>

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <zlib.h>

#include "bench.h"
#include "buf.h"
#include "fsutil.h"
#include "log.h"
#include "xmalloc.h"

#define NITEMS(a)	(sizeof(a) / sizeof((a)[0]))
#define KB		((uint64_t)1 << 10)
#define MB		((uint64_t)1 << 20)

static const char *const vocab[] = {
	"access", "account", "active", "address", "agent", "alias", "allow",
	"archive", "attempt", "auth", "backup", "balance", "batch", "bind",
	"block", "boot", "bridge", "buffer", "bundle", "cache", "certificate",
	"channel", "check", "chunk", "client", "cluster", "command", "commit",
	"compress", "config", "connect", "console", "context", "counter",
	"cron", "daemon", "database", "deadline", "default", "delay", "deny",
	"device", "digest", "directory", "disable", "disk", "domain",
	"driver", "enable", "entry", "error", "event", "expire", "export",
	"failover", "feature", "fetch", "file", "filter", "flush", "format",
	"gateway", "group", "handler", "hash", "header", "host", "idle",
	"image", "index", "inode", "interface", "interval", "journal",
	"kernel", "key", "label", "latency", "level", "limit", "link",
	"listen", "local", "lock", "log", "mask", "master", "memory",
	"message", "mirror", "mode", "module", "mount", "name", "network",
	"node", "notify", "offset", "option", "owner", "packet", "page",
	"parent", "partition", "password", "path", "peer", "policy", "pool",
	"port", "prefix", "priority", "process", "profile", "protocol",
	"proxy", "queue", "quota", "range", "rate", "read", "record",
	"refresh", "region", "release", "remote", "replica", "request",
	"reset", "resolve", "retry", "route", "rule", "schedule", "secret",
	"section", "sector", "server", "service", "session", "shell",
	"signal", "size", "socket", "source", "spool", "stack", "state",
	"status", "storage", "stream", "subnet", "swap", "sync", "system",
	"table", "target", "task", "thread", "timeout", "token", "trace",
	"transcript", "transfer", "tunnel", "update", "upload", "user",
	"value", "version", "volume", "watch", "weight", "window", "worker",
	"write", "zone"
};
static const char *const ctypes[] = {
	"int", "unsigned int", "long", "size_t", "ssize_t", "off_t", "char *",
	"const char *", "uint8_t", "uint32_t", "uint64_t", "struct entry *",
	"struct conn *", "void *", "double"
};
static const char *const cvars[] = {
	"n", "i", "j", "len", "off", "rc", "fd", "sz", "buf", "line", "cur",
	"next", "prev", "head", "ent", "conn", "ctx", "flags", "mode",
	"count", "total", "path", "name", "key", "val", "res", "err", "tmp",
	"end", "p"
};
static const char *const ccalls[] = {
	"memcpy", "memset", "strlen", "strncmp", "strchr", "snprintf",
	"calloc", "free", "read", "write", "close", "open", "fstat", "lseek",
	"buf_append", "conn_getline", "conn_printf", "log_warnx", "log_debug",
	"xmalloc", "xstrdup", "pathcmp", "cksum_update", "deflate", "inflate"
};
static const char *const facilities[] = {
	"sshd", "cron", "kernel", "systemd", "postfix/qmgr", "cairnd",
	"dhclient", "chronyd", "sudo", "nginx", "rsyslogd", "login"
};
static const char *const hosts[] = {
	"node00", "node01", "node02", "node03", "node04", "node05", "node06",
	"node07", "node08", "node09", "node10", "node11", "node12", "node13",
	"node14", "node15", "gw", "files", "mx1", "ldap"
};
static const char *const accounts[] = {
	"root", "admin", "deploy", "backup", "www-data", "nobody", "ops"
};
static const char *const months[] = {
	"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct",
	"Nov", "Dec"
};
static const char *const includes[] = {
	"stdio.h", "stdlib.h", "string.h", "unistd.h", "errno.h"
};
static const char *const dir_suffixes[] = { "", "d", ".d", "s", "2" };

/* The classes, in the (alphabetical) order of the summary. */
enum corpus_class {
	C_CONFIG, C_ELF, C_GZIP, C_LOG, C_RANDOM, C_SOURCE, C_NCLASSES
};
static const char *const class_names[C_NCLASSES] = {
	"config", "elf", "gzip", "log", "random", "source"
};

/* Files mode: a class's share of the files, directory, names and sizes. */
static const struct fclass {
	enum corpus_class	 cls;
	int			 share;		/* percent of the files */
	const char		*top;
	const char		*exts[3];
	int			 nexts;
	uint64_t		 lo, hi;	/* bytes */
} fclasses[] = {
	{ C_CONFIG, 15, "etc", { ".conf", ".cfg", "" }, 3, 128, 4 * KB },
	{ C_SOURCE, 20, "usr/src", { ".c", ".c", ".h" }, 3, 256, 8 * KB },
	{ C_LOG, 20, "var/log", { ".log", ".1", "" }, 3, 256, 16 * KB },
	{ C_RANDOM, 10, "usr/share/media", { ".png", ".jpg" }, 2, 128,
	    8 * KB },
	{ C_GZIP, 10, "usr/share/archives", { ".gz" }, 1, 512, 16 * KB },
	{ C_ELF, 25, "usr/lib", { ".so", ".so.1", "" }, 3, 512, 16 * KB },
};
#define FILES_PER_DIR	200
#define DIRS_PER_DIR	50

/* A seeded generator: xoshiro256**, its state filled by splitmix64. */
struct rng {
	uint64_t	 s[4];
};

/* The line generators of the text classes. */
enum text_kind { T_CONFIG, T_SOURCE, T_LOG };
struct text {
	struct rng	*r;
	enum text_kind	 kind;
	int		 started;	/* source: the file header is out */
	int		 nsect;		/* config: sections so far */
	uint64_t	 t;		/* log: seconds since the first day */
};

/* A block of generated bytes; slices of it make cheap, distinct files. */
struct pool {
	unsigned char	*data;
	size_t		 len;
	int		 text;		/* slices start after a newline */
};

/* An ELF candidate: a regular file of 2 KB or more (magic not checked). */
struct elf {
	char		*path;
	uint64_t	 size;
};

/* The tree being written and what it holds. */
struct writer {
	const char	*root;
	char		*lastdir;	/* the last directory made */
	uint64_t	 files[C_NCLASSES], bytes[C_NCLASSES];
	struct buf	*line;		/* scratch for the text generators */
};

/* The next 64 bits of the generator. */
static uint64_t
rng_next(struct rng *r)
{
	uint64_t	*s = r->s, result, t;

	result = ((s[1] * 5) << 7 | (s[1] * 5) >> 57) * 9;
	t = s[1] << 17;
	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = s[3] << 45 | s[3] >> 19;
	return result;
}

/* The same seed gives the same sequence on every host. */
static void
rng_seed(struct rng *r, uint64_t seed)
{
	uint64_t	z;
	int		i;

	for (i = 0; i < 4; i++) {
		seed += 0x9e3779b97f4a7c15ULL;
		z = seed;
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
		z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
		r->s[i] = z ^ (z >> 31);
	}
}

/* A number from lo to hi, both included. */
static uint64_t
rng_int(struct rng *r, uint64_t lo, uint64_t hi)
{
	return lo + rng_next(r) % (hi - lo + 1);
}

/* A number in [0, 1). */
static double
rng_real(struct rng *r)
{
	return (rng_next(r) >> 11) * 0x1.0p-53;
}

#define PICK(r, a)	((a)[rng_int((r), 0, NITEMS(a) - 1)])

/* Put the n elements of size bytes at base in a seeded order. */
static void
rng_shuffle(struct rng *r, void *base, size_t n, size_t size)
{
	unsigned char	*p = base, tmp[64];
	size_t		 i, j;

	if (size > sizeof(tmp))
		fatalx("corpus: cannot shuffle elements of %zu bytes", size);
	for (i = n; i > 1; i--) {
		j = (size_t)rng_int(r, 0, i - 1);
		memcpy(tmp, p + (i - 1) * size, size);
		memcpy(p + (i - 1) * size, p + j * size, size);
		memcpy(p + j * size, tmp, size);
	}
}

/* n random bytes at p, the same on every host. */
static void
rng_bytes(struct rng *r, unsigned char *p, size_t n)
{
	uint64_t	v = 0;
	size_t		i;

	for (i = 0; i < n; i++) {
		if (i % 8 == 0)
			v = rng_next(r);
		p[i] = (unsigned char)(v >> (i % 8 * 8));
	}
}

/* Append, dying when the buffer's cap is reached (it is never). */
static void
out_printf(struct buf *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static void
out_printf(struct buf *b, const char *fmt, ...)
{
	va_list	ap;
	int	r;

	va_start(ap, fmt);
	r = buf_vprintf(b, fmt, ap);
	va_end(ap);
	if (r == -1)
		fatal("corpus: generated text");
}

/* lo to hi words of the vocabulary, separated by spaces. */
static void
text_words(struct text *x, struct buf *b, int lo, int hi)
{
	uint64_t	n, i;

	n = rng_int(x->r, lo, hi);
	for (i = 0; i < n; i++)
		out_printf(b, "%s%s", i ? " " : "", PICK(x->r, vocab));
}

static void
text_config(struct text *x, struct buf *b)
{
	static const char *const nums[] = { "0", "1", "8", "16", "30", "60",
	    "64", "128", "256", "300", "1024", "3600", "4096", "65536" };
	static const char *const bools[] = { "yes", "no", "true", "false",
	    "on", "off" };
	struct rng	*r = x->r;
	double		 p = rng_real(r), q;
	uint64_t	 n, i;
	size_t		 k;

	if (p < 0.06) {
		x->nsect++;
		out_printf(b, "\n[%s.%s%d]\n", PICK(r, vocab), PICK(r, vocab),
		    x->nsect);
		return;
	}
	if (p < 0.22) {
		out_printf(b, "# ");
		k = buf_len(b);
		text_words(x, b, 3, 12);
		buf_mutable(b)[k] = toupper((unsigned char)buf_data(b)[k]);
		out_printf(b, ".\n");
		return;
	}
	if (p < 0.30) {
		out_printf(b, "#%s_%s = %" PRIu64 "\n", PICK(r, vocab),
		    PICK(r, vocab), rng_int(r, 0, 9999));
		return;
	}
	out_printf(b, "%s%s_%s = ", x->nsect ? "    " : "", PICK(r, vocab),
	    PICK(r, vocab));
	if ((q = rng_real(r)) < 0.3)
		out_printf(b, "%s", PICK(r, nums));
	else if (q < 0.5)
		out_printf(b, "%s", PICK(r, bools));
	else if (q < 0.75) {
		n = rng_int(r, 1, 5);
		for (i = 0; i < n; i++)
			out_printf(b, "/%s", PICK(r, vocab));
	} else if (q < 0.85)
		out_printf(b, "10.%" PRIu64 ".%" PRIu64 ".%" PRIu64,
		    rng_int(r, 0, 255), rng_int(r, 0, 255),
		    rng_int(r, 1, 254));
	else {
		out_printf(b, "\"");
		text_words(x, b, 1, 6);
		out_printf(b, "\"");
	}
	out_printf(b, "\n");
}

/* The file header once, then one function per call. */
static void
text_source(struct text *x, struct buf *b)
{
	struct rng	*r = x->r;
	const char	*fn1, *fn2, *t, *a, *v, *w;
	size_t		 idx[NITEMS(ctypes)], k, j, tmp;
	uint64_t	 n, i;
	double		 p;

	if (!x->started) {
		x->started = 1;
		out_printf(b, "/*\n * ");
		text_words(x, b, 4, 10);
		out_printf(b, "\n */\n\n");
		for (k = 0; k < NITEMS(includes); k++)
			if (rng_real(r) < 0.7)
				out_printf(b, "#include <%s>\n", includes[k]);
		out_printf(b, "\n");
	}
	fn1 = PICK(r, vocab);
	fn2 = PICK(r, vocab);
	out_printf(b, "/* ");
	text_words(x, b, 4, 14);
	out_printf(b, " */\nstatic %s\n%s_%s(", PICK(r, ctypes), fn1, fn2);
	/* One to three distinct parameter types. */
	for (k = 0; k < NITEMS(ctypes); k++)
		idx[k] = k;
	n = rng_int(r, 1, 3);
	for (k = 0; k < n; k++) {
		j = k + (size_t)rng_int(r, 0, NITEMS(ctypes) - 1 - k);
		tmp = idx[k];
		idx[k] = idx[j];
		idx[j] = tmp;
		t = ctypes[idx[k]];
		out_printf(b, "%s%s%s%s", k ? ", " : "", t,
		    t[strlen(t) - 1] == '*' ? "" : " ", PICK(r, cvars));
	}
	out_printf(b, ")\n{\n");
	n = rng_int(r, 1, 4);
	for (i = 0; i < n; i++)
		out_printf(b, "\t%s\t%s;\n", PICK(r, ctypes), PICK(r, cvars));
	out_printf(b, "\n");
	n = rng_int(r, 3, 20);
	for (i = 0; i < n; i++) {
		p = rng_real(r);
		a = PICK(r, cvars);
		v = PICK(r, cvars);
		w = PICK(r, cvars);
		if (p < 0.25)
			out_printf(b, "\tif ((%s = %s(%s, %s)) == -1) {\n"
			    "\t\tlog_warn(\"%s_%s: %%s\", %s);\n"
			    "\t\treturn -1;\n\t}\n", a, PICK(r, ccalls), v, w,
			    fn1, fn2, v);
		else if (p < 0.45)
			out_printf(b, "\tfor (%s = 0; %s < %s; %s++)\n"
			    "\t\t%s += %s(%s[%s]);\n", a, a, v, a, w,
			    PICK(r, ccalls), v, a);
		else if (p < 0.60) {
			out_printf(b, "\t/* ");
			text_words(x, b, 3, 9);
			out_printf(b, " */\n");
		} else if (p < 0.75)
			out_printf(b, "\twhile (%s != NULL && %s->%s > %"
			    PRIu64 ")\n\t\t%s = %s->%s;\n", a, a, v,
			    rng_int(r, 0, 512), a, a, w);
		else
			out_printf(b, "\t%s = %s %c %" PRIu64 ";\n", a, v,
			    "+-*&|"[rng_int(r, 0, 4)], rng_int(r, 1, 4096));
	}
	p = rng_real(r);
	out_printf(b, "\treturn %s;\n}\n\n", p < 1.0 / 3 ? "0" :
	    p < 2.0 / 3 ? "-1" : PICK(r, cvars));
}

static void
text_log(struct text *x, struct buf *b)
{
	static const char *const ifs[] = { "eth0", "eth1", "bond0" };
	static const char *const levels[] = { "warning", "notice", "info" };
	static const int speeds[] = { 100, 1000, 10000 };
	static const int codes[] = { 200, 200, 200, 304, 404, 500 };
	struct rng	*r = x->r;
	char		 ip[32];
	uint64_t	 day, sec;
	double		 p;

	x->t += rng_int(r, 0, 30);
	day = x->t / 86400;
	sec = x->t % 86400;
	out_printf(b, "%s %2d %02d:%02d:%02d %s %s[%" PRIu64 "]: ",
	    months[(day / 30) % 12], (int)(day % 30 + 1), (int)(sec / 3600),
	    (int)(sec / 60 % 60), (int)(sec % 60), PICK(r, hosts),
	    PICK(r, facilities), rng_int(r, 2, 99999));
	snprintf(ip, sizeof(ip), "10.%d.%d.%d", (int)rng_int(r, 0, 255),
	    (int)rng_int(r, 0, 255), (int)rng_int(r, 1, 254));
	if ((p = rng_real(r)) < 0.2)
		out_printf(b, "Accepted publickey for %s from %s port %d ssh2",
		    PICK(r, accounts), ip, (int)rng_int(r, 1024, 65535));
	else if (p < 0.35)
		out_printf(b, "(%s) CMD (/usr/lib/%s/%s)", PICK(r, accounts),
		    PICK(r, vocab), PICK(r, vocab));
	else if (p < 0.5) {
		out_printf(b, "connection from %s: %s ", ip, PICK(r, vocab));
		text_words(x, b, 2, 6);
	} else if (p < 0.6)
		out_printf(b, "%s: link %s, %d Mbps", PICK(r, ifs),
		    rng_real(r) < 0.5 ? "up" : "down", PICK(r, speeds));
	else if (p < 0.75)
		out_printf(b, "GET /%s/%s HTTP/1.1 %d %d", PICK(r, vocab),
		    PICK(r, vocab), PICK(r, codes), (int)rng_int(r, 0, 99999));
	else {
		out_printf(b, "%s %s: ", PICK(r, levels), PICK(r, vocab));
		text_words(x, b, 3, 10);
	}
	out_printf(b, "\n");
}

static void
text_init(struct text *x, struct rng *r, enum text_kind kind)
{
	memset(x, 0, sizeof(*x));
	x->r = r;
	x->kind = kind;
	if (kind == T_LOG)
		x->t = rng_int(r, 0, 86400 * 300);
}

/*
 * n bytes of text in b (its previous content dropped): whole lines, the
 * last one cut where the n bytes end.  Returns the data.
 */
static const unsigned char *
text_take(struct text *x, struct buf *b, size_t n)
{
	buf_reset(b);
	while (buf_len(b) < n)
		switch (x->kind) {
		case T_CONFIG:
			text_config(x, b);
			break;
		case T_SOURCE:
			text_source(x, b);
			break;
		case T_LOG:
			text_log(x, b);
			break;
		}
	return (const unsigned char *)buf_data(b);
}

/* gzip of n bytes at level 6, no name and time 0; the caller frees it. */
static unsigned char *
gzip(const unsigned char *in, size_t n, size_t *outlen)
{
	z_stream	 z;
	unsigned char	*out;
	size_t		 cap;

	memset(&z, 0, sizeof(z));
	if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8,
	    Z_DEFAULT_STRATEGY) != Z_OK)
		fatalx("corpus: deflateInit2 failed");
	cap = deflateBound(&z, (uLong)n);
	out = xmalloc(cap);
	z.next_in = (unsigned char *)in;
	z.avail_in = (uInt)n;
	z.next_out = out;
	z.avail_out = (uInt)cap;
	if (deflate(&z, Z_FINISH) != Z_STREAM_END)
		fatalx("corpus: deflate did not finish");
	*outlen = cap - z.avail_out;
	deflateEnd(&z);
	return out;
}

/*
 * Write n bytes of data to root/rel, a file of class cls, making the
 * directories it needs.
 */
static void
put(struct writer *w, enum corpus_class cls, const char *rel,
    const void *data, size_t n, mode_t mode)
{
	char	*path, *dir;
	int	 fd;

	xasprintf(&path, "%s/%s", w->root, rel);
	dir = xstrndup(path, (size_t)(strrchr(path, '/') - path));
	if (w->lastdir == NULL || strcmp(dir, w->lastdir) != 0) {
		util_mkdir_p(dir);
		free(w->lastdir);
		w->lastdir = dir;
	} else
		free(dir);
	if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, mode)) == -1 ||
	    fs_write_all(fd, data, n) == -1 || close(fd) == -1)
		fatal("%s", path);
	free(path);
	w->files[cls]++;
	w->bytes[cls] += n;
}

/*
 * A relative path: top, then up to depth random directories, then a
 * random name ending in idx and ext.
 */
static char *
rand_path(struct rng *r, const char *top, int depth, const char *ext,
    uint64_t idx)
{
	struct buf	*b;
	char		*p;
	uint64_t	 n, i;

	b = buf_new(4096);
	out_printf(b, "%s", top);
	n = rng_int(r, 0, depth);
	for (i = 0; i < n; i++)
		out_printf(b, "/%s%s", PICK(r, vocab), PICK(r, dir_suffixes));
	out_printf(b, "/%s-%s%" PRIu64 "%s", PICK(r, vocab), PICK(r, vocab),
	    idx, ext);
	p = xstrdup(buf_data(b));
	buf_free(b);
	return p;
}

static int
cmp_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Add the regular files of 2 KB or more under dir to *list, the names of
 * each directory in byte order, a directory's files before its
 * subdirectories; symbolic links are not followed.
 */
static void
find_elves(const char *dir, int depth, struct elf **list, size_t *n,
    size_t *cap)
{
	struct dirent	 *de;
	struct stat	  st;
	DIR		 *d;
	char		**names = NULL, *p;
	size_t		  nn = 0, ns = 0, i;

	if (depth > 16 || (d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		names = xreallocarray(names, nn + 1, sizeof(*names));
		names[nn++] = xstrdup(de->d_name);
	}
	closedir(d);
	if (nn > 1)
		qsort(names, nn, sizeof(*names), cmp_name);
	for (i = 0; i < nn; i++) {
		xasprintf(&p, "%s/%s", dir, names[i]);
		free(names[i]);
		if (lstat(p, &st) == -1)
			st.st_mode = 0;
		if (S_ISDIR(st.st_mode)) {
			/* The front of names[] now holds the subdirectories. */
			names[ns++] = p;
			continue;
		}
		if (!S_ISREG(st.st_mode) || st.st_size < 2048) {
			free(p);
			continue;
		}
		if (*n == *cap) {
			*cap = *cap ? *cap * 2 : 1024;
			*list = xreallocarray(*list, *cap, sizeof(**list));
		}
		(*list)[*n].path = p;
		(*list)[(*n)++].size = (uint64_t)st.st_size;
	}
	for (i = 0; i < ns; i++) {
		find_elves(names[i], depth + 1, list, n, cap);
		free(names[i]);
	}
	free(names);
}

/* The ELF candidates of /usr/bin and /usr/lib, in a seeded order. */
static struct elf *
elves_shuffled(struct rng *r, size_t *n)
{
	struct elf	*list = NULL;
	size_t		 cap = 0;

	*n = 0;
	find_elves("/usr/bin", 0, &list, n, &cap);
	find_elves("/usr/lib", 0, &list, n, &cap);
	rng_shuffle(r, list, *n, sizeof(*list));
	return list;
}

static void
elves_free(struct elf *list, size_t n)
{
	size_t	i;

	for (i = 0; i < n; i++)
		free(list[i].path);
	free(list);
}

/*
 * Up to max bytes of the file at path into p if it is an ELF file.
 * Returns the bytes read, 0 if it is not ELF or cannot be read.
 */
static size_t
elf_read(const char *path, unsigned char *p, size_t max)
{
	ssize_t	n;
	size_t	got = 0;
	int	fd;

	if ((fd = open(path, O_RDONLY | O_NOFOLLOW)) == -1)
		return 0;
	while (got < max && (n = read(fd, p + got, max - got)) > 0)
		got += (size_t)n;
	close(fd);
	if (got < 4 || memcmp(p, "\177ELF", 4) != 0)
		return 0;
	return got;
}

/* The bytes of a class: pct percent of the size. */
static int64_t
class_bytes(const struct corpus_spec *spec, int pct)
{
	return (int64_t)(spec->size * (uint64_t)pct / 100);
}

/* One of the three text classes of corpus mode. */
static void
corpus_text(struct writer *w, struct rng *r, enum corpus_class cls,
    int64_t budget, uint64_t lo, uint64_t hi)
{
	static const char *const confext[] = { ".conf", ".cfg", "", ".rc" };
	static const char *const srcext[] = { ".c", ".c", ".h" };
	struct text	 x;
	char		*rel;
	uint64_t	 i, n;

	for (i = 0; budget > 0; i++) {
		n = rng_int(r, lo, hi);
		if ((int64_t)n > budget)
			n = (uint64_t)budget;
		if (cls == C_CONFIG) {
			rel = rand_path(r, "etc", 2, PICK(r, confext), i);
			text_init(&x, r, T_CONFIG);
		} else {
			rel = rand_path(r, "usr/src", 3, PICK(r, srcext), i);
			text_init(&x, r, T_SOURCE);
		}
		put(w, cls, rel, text_take(&x, w->line, n), n, 0644);
		free(rel);
		budget -= (int64_t)n;
	}
}

/* Logs: up to 10 MB each, made a megabyte at a time. */
static void
corpus_logs(struct writer *w, struct rng *r, int64_t budget)
{
	struct text	 x;
	char		*path;
	uint64_t	 i, n, left, k;
	int		 fd;

	xasprintf(&path, "%s/var/log", w->root);
	util_mkdir_p(path);
	free(path);
	for (i = 0; budget > 0; i++) {
		n = rng_int(r, 256 * KB, 10 * MB);
		if ((int64_t)n > budget)
			n = (uint64_t)budget;
		text_init(&x, r, T_LOG);
		xasprintf(&path, "%s/var/log/messages.%" PRIu64, w->root, i);
		if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644)) ==
		    -1)
			fatal("%s", path);
		for (left = n; left > 0; left -= k) {
			k = left < MB ? left : MB;
			if (fs_write_all(fd, text_take(&x, w->line, k), k) ==
			    -1)
				fatal("%s", path);
		}
		if (close(fd) == -1)
			fatal("%s", path);
		free(path);
		w->files[C_LOG]++;
		w->bytes[C_LOG] += n;
		budget -= (int64_t)n;
	}
}

static void
corpus_random(struct writer *w, struct rng *r, int64_t budget)
{
	static const char *const ext[] = { ".png", ".jpg", ".ogg" };
	unsigned char	*data;
	char		*rel;
	uint64_t	 i, n;

	for (i = 0; budget > 0; i++) {
		n = rng_real(r) < 0.7 ? rng_int(r, 8, 256) :
		    rng_int(r, 256, 4096);
		n *= KB;
		if ((int64_t)n > budget)
			n = (uint64_t)budget;
		rel = rand_path(r, "usr/share/media", 2, PICK(r, ext), i);
		data = xmalloc(n);
		rng_bytes(r, data, n);
		put(w, C_RANDOM, rel, data, n, 0644);
		free(data);
		free(rel);
		budget -= (int64_t)n;
	}
}

/* Compressed text, counted after compression (the last file cut). */
static void
corpus_gzip(struct writer *w, struct rng *r, int64_t budget)
{
	struct text	 x;
	unsigned char	*data;
	char		*rel;
	uint64_t	 i, raw;
	size_t		 n;

	for (i = 0; budget > 0; i++) {
		raw = rng_int(r, 64 * KB, 3 * MB);
		text_init(&x, r, rng_real(r) < 0.5 ? T_CONFIG : T_SOURCE);
		data = gzip(text_take(&x, w->line, raw), raw, &n);
		if ((int64_t)n > budget)
			n = (size_t)budget;
		rel = rand_path(r, "usr/share/archives", 1, ".gz", i);
		put(w, C_GZIP, rel, data, n, 0644);
		free(data);
		free(rel);
		budget -= (int64_t)n;
	}
}

/* Copies of ELF files, none over a quarter of the share. */
static void
corpus_elf(struct writer *w, struct rng *r, int64_t budget)
{
	struct elf	*list;
	unsigned char	*data;
	char		*rel;
	uint64_t	 cap;
	size_t		 n, i, got;

	list = elves_shuffled(r, &n);
	cap = (uint64_t)budget / 4 > 256 * KB ? (uint64_t)budget / 4 :
	    256 * KB;
	for (i = 0; i < n && budget > 0; i++) {
		if (list[i].size > cap || ((int64_t)list[i].size > budget &&
		    budget > (int64_t)(64 * KB)))
			continue;
		data = xmalloc(list[i].size);
		if ((got = elf_read(list[i].path, data, list[i].size)) ==
		    list[i].size) {
			if (strncmp(list[i].path, "/usr/bin/", 9) == 0 ||
			    strncmp(list[i].path, "/usr/lib/", 9) == 0)
				rel = xstrdup(list[i].path + 1);
			else
				xasprintf(&rel, "usr/lib%s", list[i].path);
			put(w, C_ELF, rel, data, got, 0755);
			free(rel);
			budget -= (int64_t)got;
		}
		free(data);
	}
	elves_free(list, n);
}

static void
pool_text(struct pool *p, struct rng *r, struct buf *b, enum text_kind kind)
{
	struct text	x;

	text_init(&x, r, kind);
	p->len = 2 * MB;
	p->data = xmalloc(p->len);
	memcpy(p->data, text_take(&x, b, p->len), p->len);
	p->text = 1;
}

/* Up to 4 MB of ELF files, a megabyte of each at most; else random. */
static void
pool_elf(struct pool *p, struct rng *r)
{
	struct elf	*list;
	size_t		 n, i;

	list = elves_shuffled(r, &n);
	p->data = xmalloc(5 * MB);
	p->len = 0;
	for (i = 0; i < n && p->len < 4 * MB; i++)
		p->len += elf_read(list[i].path, p->data + p->len, MB);
	elves_free(list, n);
	if (p->len == 0) {
		p->len = MB;
		rng_bytes(r, p->data, p->len);
	}
	p->text = 0;
}

/*
 * n bytes of the pool at a seeded offset (after a newline for text); the
 * pool repeated if it is too short.  The caller frees the copy.
 */
static unsigned char *
pool_slice(const struct pool *p, struct rng *r, size_t n)
{
	unsigned char	*out, *nl;
	size_t		 off, k;

	out = xmalloc(n ? n : 1);
	if (n >= p->len) {
		for (off = 0; off < n; off += k) {
			k = n - off < p->len ? n - off : p->len;
			memcpy(out + off, p->data, k);
		}
		return out;
	}
	off = (size_t)rng_int(r, 0, p->len - n - 1);
	if (p->text && (nl = memchr(p->data + off, '\n',
	    p->len - off < 200 ? p->len - off : 200)) != NULL &&
	    (size_t)(nl - p->data) + 1 + n <= p->len)
		off = (size_t)(nl - p->data) + 1;
	memcpy(out, p->data + off, n);
	return out;
}

/* Files mode: exactly spec->files small files. */
static void
corpus_files(struct writer *w, struct rng *r, const struct corpus_spec *spec)
{
	const struct fclass	*fc;
	struct pool		 pools[C_NCLASSES];
	unsigned char		*data, *gz;
	uint64_t		 seq[NITEMS(fclasses)] = { 0 }, i, leaf;
	size_t			*kinds, nk = 0, k, n, gzn;
	char			*rel;

	memset(pools, 0, sizeof(pools));
	pool_text(&pools[C_CONFIG], r, w->line, T_CONFIG);
	pool_text(&pools[C_SOURCE], r, w->line, T_SOURCE);
	pool_text(&pools[C_LOG], r, w->line, T_LOG);
	pool_elf(&pools[C_ELF], r);

	/* The class of each file: the shares by count, in seeded order. */
	kinds = xcalloc((size_t)spec->files, sizeof(*kinds));
	for (k = 0; k < NITEMS(fclasses); k++)
		for (i = 0; i < spec->files * (uint64_t)fclasses[k].share /
		    100; i++)
			kinds[nk++] = k;
	for (; nk < spec->files; nk++)
		kinds[nk] = nk % NITEMS(fclasses);
	rng_shuffle(r, kinds, nk, sizeof(*kinds));

	for (k = 0; k < nk; k++) {
		fc = &fclasses[kinds[k]];
		i = seq[kinds[k]]++;
		leaf = i / FILES_PER_DIR;
		xasprintf(&rel, "%s/g%03" PRIu64 "/d%02" PRIu64 "/%s-%s%"
		    PRIu64 "%s", fc->top, leaf / DIRS_PER_DIR,
		    leaf % DIRS_PER_DIR, PICK(r, vocab), PICK(r, vocab), i,
		    fc->exts[rng_int(r, 0, fc->nexts - 1)]);
		/* Sizes spread evenly on a logarithmic scale. */
		n = (size_t)exp(log((double)fc->lo) + rng_real(r) *
		    (log((double)fc->hi) - log((double)fc->lo)));
		if (fc->cls == C_RANDOM) {
			data = xmalloc(n);
			rng_bytes(r, data, n);
		} else if (fc->cls == C_GZIP) {
			data = pool_slice(&pools[rng_real(r) < 0.5 ?
			    C_CONFIG : C_SOURCE], r, n);
			gz = gzip(data, n, &gzn);
			free(data);
			data = gz;
			n = gzn;
		} else
			data = pool_slice(&pools[fc->cls], r, n);
		put(w, fc->cls, rel, data, n, 0644);
		free(data);
		free(rel);
	}
	free(kinds);
	for (k = 0; k < C_NCLASSES; k++)
		free(pools[k].data);
}

/*
 * The summary: the seed and the size (or the count of files), a line per
 * class that has files, then the total.
 */
static void
summary(const struct writer *w, const struct corpus_spec *spec, FILE *fp)
{
	uint64_t	tf = 0, tb = 0;
	int		c;

	if (spec->files > 0)
		fprintf(fp, "seed %" PRIu64 " files %" PRIu64 "\n", spec->seed,
		    spec->files);
	else
		fprintf(fp, "seed %" PRIu64 " size %" PRIu64 "\n", spec->seed,
		    spec->size);
	for (c = 0; c < C_NCLASSES; c++) {
		if (w->files[c] == 0)
			continue;
		tf += w->files[c];
		tb += w->bytes[c];
		fprintf(fp, "%-10s files %7" PRIu64 " bytes %12" PRIu64 "\n",
		    class_names[c], w->files[c], w->bytes[c]);
	}
	fprintf(fp, "%-10s files %7" PRIu64 " bytes %12" PRIu64 "\n",
	    "total", tf, tb);
}

/*
 * Make the corpus of spec in dir, which must be missing or empty.  The
 * summary (seed, size or count, then files and bytes per class) goes to
 * out unless it is NULL, and in corpus mode also to dir/MANIFEST.txt.
 */
void
corpus_make(const char *dir, const struct corpus_spec *spec, FILE *out)
{
	struct writer	 w;
	struct rng	 r;
	struct stat	 st;
	struct dirent	*de;
	DIR		*d;
	FILE		*fp;
	char		*path;

	if (stat(dir, &st) == 0) {
		if (!S_ISDIR(st.st_mode) || (d = opendir(dir)) == NULL)
			fatalx("%s exists and is not an empty directory", dir);
		while ((de = readdir(d)) != NULL)
			if (strcmp(de->d_name, ".") != 0 &&
			    strcmp(de->d_name, "..") != 0)
				fatalx("%s exists and is not an empty "
				    "directory", dir);
		closedir(d);
	}
	util_mkdir_p(dir);
	memset(&w, 0, sizeof(w));
	w.root = dir;
	w.line = buf_new(8 * MB);
	rng_seed(&r, spec->seed);
	if (spec->files > 0)
		corpus_files(&w, &r, spec);
	else {
		corpus_text(&w, &r, C_CONFIG, class_bytes(spec, 15), KB,
		    20 * KB);
		corpus_text(&w, &r, C_SOURCE, class_bytes(spec, 20), 2 * KB,
		    40 * KB);
		corpus_logs(&w, &r, class_bytes(spec, 20));
		corpus_random(&w, &r, class_bytes(spec, 10));
		corpus_gzip(&w, &r, class_bytes(spec, 10));
		corpus_elf(&w, &r, class_bytes(spec, 25));
		xasprintf(&path, "%s/MANIFEST.txt", dir);
		if ((fp = fopen(path, "w")) == NULL)
			fatal("%s", path);
		summary(&w, spec, fp);
		if (fclose(fp) == EOF)
			fatal("%s", path);
		free(path);
	}
	if (out != NULL)
		summary(&w, spec, out);
	free(w.lastdir);
	buf_free(w.line);
}
