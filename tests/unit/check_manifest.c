/*
 * check_manifest.c: the release manifest (common/manifest.c,
 * docs/formats.md section 15): round trip, every malformed form refused
 * with its line, find and match, and the scan of a repository.
 */
#include "config.h"

#include <fcntl.h>
#include <stdint.h>

#include "buf.h"
#include "cerr.h"
#include "cksum.h"
#include "manifest.h"
#include "unit.h"

#define H	"cairn-manifest 1\nserial 42\ncreated 1795000000\n" \
		"expires 1797592000\ndigest sha256\n"
#define D	"47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU="
#define D512	"z4PhNX7vuL3xVChQ1m2AB9Yg5AULVxXcg/SpIdNs6c5H0NE8XYXysP+DGNK" \
		"HfuwvY7kxvUdBeoGlODJ6+SfaPg=="

static const char good[] = H
    "command 123 " D " default.K\n"
    "command 7 " D " sub/with\\bspace.K\n"
    "transcript 4567 " D " base.T\n"
    "transcript 0 " D " special.T\n"
    "special 9 " D " host1.T\n"
    "special 89 " D " host1/etc/hosts\n"
    "end 6\n";

static int
parse(const char *text, size_t len, struct manifest *m, struct cerr *e)
{
	memset(e, 0, sizeof(*e));
	return manifest_parse(text, len, "m", m, e);
}

START_TEST(test_parse_good)
{
	struct manifest		 m;
	struct cerr		 e;
	const struct manifest_ent	*ent;

	ck_assert_msg(parse(good, strlen(good), &m, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(m.serial, 42);
	ck_assert_int_eq(m.created, 1795000000);
	ck_assert_int_eq(m.expires, 1797592000);
	ck_assert_str_eq(m.digest, "sha256");
	ck_assert_uint_eq(m.nent, 6);
	ck_assert_int_eq(m.ent[1].kind, MANIFEST_COMMAND);
	ck_assert_str_eq(m.ent[1].name, "sub/with space.K");
	ck_assert_uint_eq(m.ent[1].size, 7);
	ck_assert_str_eq(m.ent[1].digest, D);
	ck_assert_int_eq(m.ent[5].kind, MANIFEST_SPECIAL);

	/* find: by kind and decoded name */
	ent = manifest_find(&m, MANIFEST_TRANSCRIPT, "base.T");
	ck_assert_ptr_nonnull(ent);
	ck_assert_uint_eq(ent->size, 4567);
	ck_assert_ptr_null(manifest_find(&m, MANIFEST_COMMAND, "base.T"));
	ck_assert_ptr_null(manifest_find(&m, MANIFEST_TRANSCRIPT, "nope"));
	ck_assert_ptr_nonnull(manifest_find(&m, MANIFEST_SPECIAL,
	    "host1/etc/hosts"));
	ck_assert_ptr_nonnull(manifest_find(&m, MANIFEST_COMMAND,
	    "default.K"));

	/* match: size and digest, by name or any of the kind */
	ck_assert_int_eq(manifest_match(&m, MANIFEST_TRANSCRIPT, "base.T",
	    4567, D), 1);
	ck_assert_int_eq(manifest_match(&m, MANIFEST_TRANSCRIPT, "base.T",
	    4568, D), 0);
	ck_assert_int_eq(manifest_match(&m, MANIFEST_TRANSCRIPT, "base.T",
	    4567, "x"), 0);
	ck_assert_int_eq(manifest_match(&m, MANIFEST_COMMAND, NULL, 7, D), 1);
	ck_assert_int_eq(manifest_match(&m, MANIFEST_COMMAND, NULL, 4567, D),
	    0);
	ck_assert_int_eq(manifest_match(&m, MANIFEST_SPECIAL, NULL, 9, D), 1);
	manifest_free(&m);
}
END_TEST

/* stat entries: a set by path, found and written back as they came. */
static const char goodstat[] = H
    "special 89 " D " host1/etc/hosts\n"
    "stat 0 " D " f 444 0 0 etc/a\n"
    "stat 2 " D " a 0600 -2 4294967294 etc/hostname\n"
    "stat 2 " D " f 0600 0 0 etc/hostname\n"
    "stat 2 " D " f 0644 0 0 etc/hostname\n"
    "stat 3 " D " f 0644 0 0 etc/hostname\n"
    "stat 3 " D " f 0644 0 0 etc/with\\bspace\n"
    "end 7\n";

START_TEST(test_parse_stat)
{
	struct manifest			 m;
	struct cerr			 e;
	struct buf			*b = buf_new(MANIFEST_MAX);
	const struct manifest_ent	*ent;
	char				*meta;

	ck_assert_msg(parse(goodstat, strlen(goodstat), &m, &e) == 0, "%s",
	    e.msg);
	ck_assert_uint_eq(m.nent, 7);
	ck_assert_ptr_null(m.ent[0].meta);
	ck_assert_int_eq(m.ent[1].kind, MANIFEST_STAT);
	ck_assert_str_eq(m.ent[1].meta, "f 444 0 0");
	ck_assert_str_eq(m.ent[2].meta, "a 0600 -2 4294967294");
	ck_assert_str_eq(m.ent[6].name, "etc/with space");
	/* find: the first of those sharing a path */
	ent = manifest_find(&m, MANIFEST_STAT, "etc/hostname");
	ck_assert_ptr_eq(ent, &m.ent[2]);
	ck_assert_ptr_null(manifest_find(&m, MANIFEST_STAT, "etc/hosts"));
	ck_assert_ptr_null(manifest_find(&m, MANIFEST_SPECIAL,
	    "etc/hostname"));
	ck_assert_int_eq(manifest_write(&m, b, &e), 0);
	ck_assert_uint_eq(buf_len(b), strlen(goodstat));
	ck_assert(memcmp(buf_data(b), goodstat, buf_len(b)) == 0);
	manifest_free(&m);
	buf_free(b);

	/* the metadata as a STAT reply or a transcript line has it */
	ck_assert_ptr_nonnull(meta = manifest_meta("f", "0644", "0", "10"));
	ck_assert_str_eq(meta, "f 0644 0 10");
	free(meta);
	ck_assert_ptr_null(manifest_meta("l", "0644", "0", "0"));
	ck_assert_ptr_null(manifest_meta("f", "rw-r--r--", "0", "0"));
	ck_assert_ptr_null(manifest_meta("f", "0644", "", "0"));
	ck_assert_ptr_null(manifest_meta("f", "0644", "0", "0 0"));
}
END_TEST

/* pushed in any order, sorted with their exact duplicates dropped */
START_TEST(test_sort_stat)
{
	static const char	*meta[] = { "f 0644 0 0", "f 0600 0 0",
	    "f 0644 0 0", "f 0644 0 0", NULL };
	static const char	*name[] = { "b", "b", "b", "a" };
	struct manifest		 m;
	struct manifest_ent	 ent;
	struct cerr		 e;
	struct buf		*b = buf_new(MANIFEST_MAX);
	int			 i;

	memset(&m, 0, sizeof(m));
	m.serial = 1;
	m.created = 1;
	m.expires = 2;
	strcpy(m.digest, "sha256");
	for (i = 0; meta[i] != NULL; i++) {
		memset(&ent, 0, sizeof(ent));
		ent.kind = MANIFEST_STAT;
		ent.name = strdup(name[i]);
		ent.meta = strdup(meta[i]);
		ent.size = 5;
		strcpy(ent.digest, D);
		ck_assert_int_eq(manifest_push(&m, &ent, &e), 0);
	}
	memset(&ent, 0, sizeof(ent));
	ent.kind = MANIFEST_SPECIAL;
	ent.name = strdup("z");
	strcpy(ent.digest, D);
	ck_assert_int_eq(manifest_push(&m, &ent, &e), 0);
	manifest_sort(&m);
	ck_assert_uint_eq(m.nent, 4);
	ck_assert_int_eq(manifest_write(&m, b, &e), 0);
	ck_assert_str_eq(buf_data(b), "cairn-manifest 1\nserial 1\n"
	    "created 1\nexpires 2\ndigest sha256\n"
	    "special 0 " D " z\n"
	    "stat 5 " D " f 0644 0 0 a\n"
	    "stat 5 " D " f 0600 0 0 b\n"
	    "stat 5 " D " f 0644 0 0 b\n"
	    "end 4\n");
	manifest_free(&m);
	buf_free(b);
}
END_TEST

START_TEST(test_parse_limits_ok)
{
	static const char *ok[] = {
		"cairn-manifest 1\nserial 9223372036854775807\ncreated 0\n"
		"expires 1\ndigest sha256\nend 0\n",
		"cairn-manifest 1\nserial 1\ncreated 0\nexpires 1\n"
		"digest sha512\ncommand 0 " D512 " a\nend 1\n",
		NULL
	};
	struct manifest	 m;
	struct cerr	 e;
	int		 i;

	for (i = 0; ok[i] != NULL; i++) {
		ck_assert_msg(parse(ok[i], strlen(ok[i]), &m, &e) == 0,
		    "%d: %s", i, e.msg);
		manifest_free(&m);
	}
}
END_TEST

/* Malformed manifests, each with the line and the words of its error. */
static const struct {
	const char	*text;
	int		 line;
	const char	*what;
} bad[] = {
	{ "", 1, "missing header" },
	{ "cairn-manifest 2\n", 1, "not a manifest" },
	{ "cairn-manifest 1 \n", 1, "not a manifest" },
	{ "cairn-manifest 1\ncreated 1\nexpires 2\ndigest sha256\nend 0\n",
	    2, "created out of order" },
	{ "cairn-manifest 1\nserial 1\ncreated 1\nexpires 2\nend 0\n",
	    5, "missing digest" },
	{ "cairn-manifest 1\nserial 1\nserial 2\n", 3, "duplicate serial" },
	{ "cairn-manifest 1\nserial 1\ncreated 1\nexpires 2\n"
	    "digest sha256\ndigest sha256\nend 0\n", 6, "duplicate digest" },
	{ "cairn-manifest 1\nserial 1\nexpires 2\ncreated 1\n", 3,
	    "expires out of order" },
	{ "cairn-manifest 1\nserial 1\ncreated 1\n", 4,
	    "missing expires (truncated)" },
	{ "cairn-manifest 1\nserial 0\n", 2, "bad serial" },
	{ "cairn-manifest 1\nserial 042\n", 2, "bad serial" },
	{ "cairn-manifest 1\nserial +42\n", 2, "bad serial" },
	{ "cairn-manifest 1\nserial 9223372036854775808\n", 2, "bad serial" },
	{ "cairn-manifest 1\nserial 99999999999999999999999\n", 2,
	    "bad serial" },
	{ "cairn-manifest 1\nserial \n", 2, "bad serial" },
	{ "cairn-manifest 1\nserial 1\ncreated 01\n", 3, "bad time" },
	{ "cairn-manifest 1\nserial 1\ncreated -1\n", 3, "bad time" },
	{ "cairn-manifest 1\nserial 1\ncreated 5\nexpires 5\n", 4,
	    "expires not after created" },
	{ "cairn-manifest 1\nserial 1\ncreated 5\nexpires 4\n", 4,
	    "expires not after created" },
	{ "cairn-manifest 1\nserial 1\ncreated 1\nexpires 2\ndigest sha1\n",
	    5, "too weak" },
	{ "cairn-manifest 1\nserial 1\ncreated 1\nexpires 2\ndigest md5\n",
	    5, "too weak" },
	{ "cairn-manifest 1\nserial 1\ncreated 1\nexpires 2\n"
	    "digest whirl\n", 5, "unsupported digest" },
	{ H "file 1 " D " a\nend 1\n", 6, "unknown kind" },
	{ H "Command 1 " D " a\nend 1\n", 6, "unknown kind" },
	{ H "transcript 1 " D " b\ncommand 1 " D " a\nend 2\n", 7,
	    "out of order" },
	{ H "command 1 " D " b\ncommand 1 " D " a\nend 2\n", 7,
	    "out of order" },
	{ H "command 1 " D " a\ncommand 2 " D " a\nend 2\n", 7,
	    "duplicate entry" },
	{ H "command 1 " D " a/../b\nend 1\n", 6, "'..'" },
	{ H "command 1 " D " ..\nend 1\n", 6, "'..'" },
	{ H "command 1 " D " ./a\nend 1\n", 6, "'.'" },
	{ H "command 1 " D " /etc/passwd\nend 1\n", 6, "begins with /" },
	{ H "command 1 " D " a//b\nend 1\n", 6, "empty component" },
	{ H "command 1 " D " a/\nend 1\n", 6, "empty component" },
	{ H "command 1 " D " \nend 1\n", 6, "empty name" },
	{ H "command 1 " D " a\\xb\nend 1\n", 6, "bad name encoding" },
	{ H "command 1 " D " a\tb\nend 1\n", 6, "bad name encoding" },
	{ H "command 1 " D " a\rb\nend 1\n", 6, "bad name encoding" },
	{ H "command 1 " D " a b\nend 1\n", 6, "too many fields" },
	{ H "command 1 " D "\nend 1\n", 6, "too few fields" },
	{ H "command 01 " D " a\nend 1\n", 6, "bad size" },
	{ H "command 9223372036854775808 " D " a\nend 1\n", 6, "bad size" },
	{ H "command  " D " a\nend 1\n", 6, "bad size" },
	{ H "command 1 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU a\nend 1\n",
	    6, "not a sha256 digest" },
	{ H "command 1 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU== a\n"
	    "end 1\n", 6, "not a sha256 digest" },
	{ H "command 1 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuF*= a\n"
	    "end 1\n", 6, "not a sha256 digest" },
	{ H "command 1 47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFV= a\n"
	    "end 1\n", 6, "not a sha256 digest" },	/* stray bits */
	{ H "command 1 " D512 " a\nend 1\n", 6, "not a sha256 digest" },
	{ H "command 1 - a\nend 1\n", 6, "not a sha256 digest" },
	{ H "command 1 " D " a\nend 2\n", 7, "end: 1 entries counted" },
	{ H "command 1 " D " a\nend 0\n", 7, "end: 1 entries counted" },
	{ H "command 1 " D " a\nend 01\n", 7, "end:" },
	{ H "command 1 " D " a\n", 7, "missing end (truncated)" },
	{ H "command 1 " D " a", 6, "no newline" },
	{ H "command 1 " D " a\nend 1", 7, "no newline" },
	{ H "command 1 " D " a\nend 1\nx\n", 8, "text after end" },
	{ H "command 1 " D " a\nend 1\n\n", 8, "text after end" },
	{ H "end 0\nend 0\n", 7, "text after end" },
	{ "cairn-manifest 1\r\nserial 1\n", 1, "not a manifest" },
	/* stat entries */
	{ H "stat 1 " D " f 0644 0 0\nend 1\n", 6, "too few fields" },
	{ H "stat 1 " D " f 0644 0 0 a b\nend 1\n", 6, "too many fields" },
	{ H "stat 1 " D " d 0755 0 0 a\nend 1\n", 6, "bad type" },
	{ H "stat 1 " D " ff 0644 0 0 a\nend 1\n", 6, "bad type" },
	{ H "stat 1 " D " f 0648 0 0 a\nend 1\n", 6, "bad type, mode" },
	{ H "stat 1 " D " f -644 0 0 a\nend 1\n", 6, "bad type, mode" },
	{ H "stat 1 " D " f  0 0 a\nend 1\n", 6, "bad type, mode" },
	{ H "stat 1 " D " f 0644 x 0 a\nend 1\n", 6, "uid or gid" },
	{ H "stat 1 " D " f 0644 0 - a\nend 1\n", 6, "uid or gid" },
	{ H "stat 1 " D " f 0644 0 1-2 a\nend 1\n", 6, "uid or gid" },
	{ H "stat 1 " D " f 0644 0 "
	    "1234567890123456789012345678901234567890123456789012345678901234"
	    " a\nend 1\n", 6, "uid or gid" },
	{ H "stat 1 " D " f 0644 0 0 ./etc/x\nend 1\n", 6, "'.'" },
	{ H "stat 1 " D " f 0644 0 0 /etc/x\nend 1\n", 6, "begins with /" },
	{ H "stat 1 - f 0644 0 0 a\nend 1\n", 6, "not a sha256 digest" },
	{ H "stat 1 " D " f 0644 0 0 b\nstat 1 " D " f 0644 0 0 a\nend 2\n",
	    7, "out of order" },
	{ H "stat 2 " D " f 0644 0 0 a\nstat 1 " D " f 0644 0 0 a\nend 2\n",
	    7, "out of order" },
	{ H "stat 1 " D " f 0644 0 1 a\nstat 1 " D " f 0644 0 0 a\nend 2\n",
	    7, "out of order" },
	{ H "stat 1 " D " f 0644 0 0 a\nstat 1 " D " f 0644 0 0 a\nend 2\n",
	    7, "duplicate entry" },
	{ H "stat 1 " D " f 0644 0 0 a\nspecial 1 " D " a\nend 2\n",
	    7, "out of order" },
};

START_TEST(test_parse_bad)
{
	struct manifest	 m;
	struct cerr	 e;
	char		 want[64];

	snprintf(want, sizeof(want), "m: line %d: ", bad[_i].line);
	ck_assert_msg(parse(bad[_i].text, strlen(bad[_i].text), &m,
	    &e) == -1, "case %d accepted", _i);
	ck_assert_msg(strncmp(e.msg, want, strlen(want)) == 0 &&
	    strstr(e.msg, bad[_i].what) != NULL,
	    "case %d: \"%s\" (want \"%s...%s\")", _i, e.msg, want,
	    bad[_i].what);
	ck_assert_ptr_null(m.ent);
	ck_assert_uint_eq(m.nent, 0);
}
END_TEST

START_TEST(test_parse_nul)
{
	static const char text[] = H "command 1 " D " a\0b\nend 1\n";
	struct manifest	 m;
	struct cerr	 e;

	ck_assert_int_eq(parse(text, sizeof(text) - 1, &m, &e), -1);
	ck_assert_str_eq(e.msg, "m: line 6: NUL byte");
}
END_TEST

/*
 * A manifest whose one entry has an encoded name of len bytes: escapes
 * (two bytes for one) in components of 200, so that the decoded name
 * stays a valid path.
 */
static void
longline(struct buf *b, size_t len)
{
	size_t	 n = 0, cnt = 0;

	buf_reset(b);
	ck_assert_int_eq(buf_addstr(b, H "command 1 " D " "), 0);
	while (len - n >= 2) {
		if (cnt == 200 && len - n > 2) {
			ck_assert_int_eq(buf_addc(b, '/'), 0);
			n++;
			cnt = 0;
			continue;
		}
		ck_assert_int_eq(buf_addstr(b, "\\b"), 0);
		n += 2;
		cnt++;
	}
	if (n < len)
		ck_assert_int_eq(buf_addc(b, 'a'), 0);
	ck_assert_int_eq(buf_addstr(b, "\nend 1\n"), 0);
}

START_TEST(test_parse_long_line)
{
	struct manifest	 m;
	struct cerr	 e;
	struct buf	*b = buf_new(2 * MANIFEST_LINEMAX);
	size_t		 fixed;

	/* exactly MANIFEST_LINEMAX bytes: accepted */
	fixed = strlen("command 1 " D " ");
	longline(b, MANIFEST_LINEMAX - fixed);
	ck_assert_msg(parse(buf_data(b), buf_len(b), &m, &e) == 0, "%s",
	    e.msg);
	ck_assert_uint_lt(strlen(m.ent[0].name), PATH_MAX);
	manifest_free(&m);

	/* one more: refused */
	longline(b, MANIFEST_LINEMAX - fixed + 1);
	ck_assert_int_eq(parse(buf_data(b), buf_len(b), &m, &e), -1);
	ck_assert_str_eq(e.msg, "m: line 6: longer than 8192 bytes");
	buf_free(b);
}
END_TEST

START_TEST(test_parse_too_big)
{
	struct manifest	 m;
	struct cerr	 e;
	char		*big;

	/* a valid start; the size alone refuses it, before any line */
	big = malloc(MANIFEST_MAX + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, '\n', MANIFEST_MAX + 1);
	memcpy(big, good, strlen(good));
	ck_assert_int_eq(parse(big, MANIFEST_MAX + 1, &m, &e), -1);
	ck_assert_str_eq(e.msg, "m: larger than 67108864 bytes");
	/* exactly MANIFEST_MAX: read, and refused for what follows end */
	ck_assert_int_eq(parse(big, MANIFEST_MAX, &m, &e), -1);
	ck_assert_str_eq(e.msg, "m: line 13: text after end");
	free(big);
}
END_TEST

/* Round trip: write, parse, write again: the same bytes and values. */
START_TEST(test_roundtrip)
{
	struct manifest_ent	 ent[4];
	struct manifest		 m, p;
	struct cerr		 e;
	struct buf		*b1 = buf_new(MANIFEST_MAX);
	struct buf		*b2 = buf_new(MANIFEST_MAX);
	size_t			 i;

	memset(&m, 0, sizeof(m));
	memset(ent, 0, sizeof(ent));
	m.serial = 7;
	m.created = 100;
	m.expires = 200;
	strcpy(m.digest, "sha256");
	ent[0].kind = MANIFEST_COMMAND;
	ent[0].name = (char *)"a b\\c\td.K";
	ent[1].kind = MANIFEST_COMMAND;
	ent[1].name = (char *)"z\n.K";
	ent[2].kind = MANIFEST_TRANSCRIPT;
	ent[2].name = (char *)"caf\xc3\xa9.T";
	ent[3].kind = MANIFEST_SPECIAL;
	ent[3].name = (char *)"h/etc/x";
	for (i = 0; i < 4; i++) {
		ent[i].size = i * 1000;
		ck_assert_int_eq(cksum_data("sha256", &i, sizeof(i),
		    ent[i].digest), 0);
	}
	m.ent = ent;
	m.nent = 4;
	ck_assert_msg(manifest_write(&m, b1, &e) == 0, "%s", e.msg);
	ck_assert_msg(parse(buf_data(b1), buf_len(b1), &p, &e) == 0, "%s: %s",
	    e.msg, buf_data(b1));
	ck_assert_uint_eq(p.serial, 7);
	ck_assert_int_eq(p.created, 100);
	ck_assert_int_eq(p.expires, 200);
	ck_assert_uint_eq(p.nent, 4);
	for (i = 0; i < 4; i++) {
		ck_assert_int_eq(p.ent[i].kind, ent[i].kind);
		ck_assert_str_eq(p.ent[i].name, ent[i].name);
		ck_assert_uint_eq(p.ent[i].size, ent[i].size);
		ck_assert_str_eq(p.ent[i].digest, ent[i].digest);
	}
	ck_assert_int_eq(manifest_write(&p, b2, &e), 0);
	ck_assert_uint_eq(buf_len(b1), buf_len(b2));
	ck_assert(memcmp(buf_data(b1), buf_data(b2), buf_len(b1)) == 0);
	ck_assert_ptr_nonnull(strstr(buf_data(b1),
	    "\ncommand 0 "));
	ck_assert_ptr_nonnull(strstr(buf_data(b1), " a\\bb\\\\c\\td.K\n"));
	manifest_free(&p);

	/* the writer refuses what the parser would */
	ent[1].name = (char *)"a b\\c\td.K";		/* duplicate */
	buf_reset(b1);
	ck_assert_int_eq(manifest_write(&m, b1, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "not sorted and unique"));
	ent[1].name = (char *)"A.K";			/* unsorted */
	ck_assert_int_eq(manifest_write(&m, b1, &e), -1);
	ent[1].name = (char *)"../x";
	ck_assert_int_eq(manifest_write(&m, b1, &e), -1);
	ck_assert_ptr_nonnull(strstr(e.msg, "'..'"));
	ent[1].name = (char *)"z.K";
	m.expires = 100;
	ck_assert_int_eq(manifest_write(&m, b1, &e), -1);
	m.expires = 200;
	strcpy(m.digest, "sha1");
	ck_assert_int_eq(manifest_write(&m, b1, &e), -1);
	strcpy(m.digest, "sha256");
	m.serial = 0;
	ck_assert_int_eq(manifest_write(&m, b1, &e), -1);
	buf_free(b1);
	buf_free(b2);
}
END_TEST

/* A repository scanned: every file of the three trees, sorted. */
START_TEST(test_build)
{
	struct manifest	 m;
	struct cerr	 e;
	char		*dir, path[PATH_MAX], d[CKSUM_B64MAX];
	const struct manifest_ent	*ent;
	int		 rootfd;

	dir = unit_mkdtemp();
	unit_write(dir, "command/default.K", "k default\n");
	unit_write(dir, "command/sub/b K", "b\n");
	unit_write(dir, "transcript/base.T", "f ./x 0644 0 0 1 1 -\n");
	unit_write(dir, "transcript/special.T", "");
	unit_write(dir, "special/host1.T", "t\n");
	snprintf(path, sizeof(path), "%s/special/host1", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	unit_write(dir, "special/host1/etc/hosts", "127.0.0.1 localhost\n");
	snprintf(path, sizeof(path), "%s/file", dir);
	ck_assert_int_eq(mkdir(path, 0755), 0);
	unit_write(dir, "file/base.T/x", "not in the manifest\n");
	snprintf(path, sizeof(path), "%s/command/link.K", dir);
	ck_assert_int_eq(symlink("sub/b K", path), 0);
	ck_assert((rootfd = open(dir, O_RDONLY | O_DIRECTORY)) != -1);

	memset(&m, 0, sizeof(m));
	strcpy(m.digest, "sha256");
	ck_assert_msg(manifest_build(rootfd, &m, &e) == 0, "%s", e.msg);
	ck_assert_uint_eq(m.nent, 7);
	ck_assert_str_eq(m.ent[0].name, "default.K");
	ck_assert_str_eq(m.ent[1].name, "link.K");
	ck_assert_str_eq(m.ent[2].name, "sub/b K");
	ck_assert_str_eq(m.ent[3].name, "base.T");
	ck_assert_str_eq(m.ent[4].name, "special.T");
	ck_assert_str_eq(m.ent[5].name, "host1.T");
	ck_assert_str_eq(m.ent[6].name, "host1/etc/hosts");
	ck_assert_int_eq(m.ent[6].kind, MANIFEST_SPECIAL);
	ck_assert_int_eq(cksum_data("sha256", "b\n", 2, d), 0);
	ent = manifest_find(&m, MANIFEST_COMMAND, "link.K");
	ck_assert_ptr_nonnull(ent);
	ck_assert_uint_eq(ent->size, 2);
	ck_assert_str_eq(ent->digest, d);
	ck_assert_int_eq(manifest_match(&m, MANIFEST_COMMAND, "sub/b K", 2,
	    d), 1);
	manifest_free(&m);

	/* a link out of the repository: refused, naming it */
	snprintf(path, sizeof(path), "%s/transcript/out.T", dir);
	ck_assert_int_eq(symlink("../../etc-outside", path), 0);
	ck_assert_int_eq(manifest_build(rootfd, &m, &e), -1);
	ck_assert_msg(strstr(e.msg, "transcript/out.T") != NULL &&
	    strstr(e.msg, "outside the repository") != NULL, "%s", e.msg);
	ck_assert_uint_eq(m.nent, 0);
	unlink(path);
	ck_assert_int_eq(symlink("/etc/passwd", path), 0);
	ck_assert_int_eq(manifest_build(rootfd, &m, &e), -1);
	ck_assert_msg(strstr(e.msg, "outside the repository") != NULL, "%s",
	    e.msg);
	close(rootfd);
	unit_rmtree(dir);
	free(dir);
}
END_TEST

static Suite *
manifest_suite(void)
{
	Suite	*s = suite_create("manifest");
	TCase	*tc;

	tc = tcase_create("parse");
	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_parse_good);
	tcase_add_test(tc, test_parse_stat);
	tcase_add_test(tc, test_sort_stat);
	tcase_add_test(tc, test_parse_limits_ok);
	tcase_add_loop_test(tc, test_parse_bad, 0,
	    (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_parse_nul);
	tcase_add_test(tc, test_parse_long_line);
	tcase_add_test(tc, test_parse_too_big);
	suite_add_tcase(s, tc);

	tc = tcase_create("write");
	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_build);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(manifest_suite());
}
