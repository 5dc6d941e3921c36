/*
 * check_transcript.c: transcript lines (docs/formats.md section 1): parsing,
 * canonical formatting, the sorted reader and the precedence merge.
 */
#include "config.h"

#include <stdint.h>
#include <string.h>

#include "buf.h"
#include "cerr.h"
#include "compat.h"
#include "path.h"
#include "transcript.h"
#include "unit.h"

/* Parse line as line 2 of "bad.T"; the result must be an object line. */
static void
parse_ok(struct tline *t, const char *line)
{
	struct cerr	err = { "" };
	int		rc;

	rc = tline_parse(t, line, "bad.T", 2, 0, &err);
	ck_assert_msg(rc == TL_OBJECT, "\"%s\": rc %d: %s", line, rc, err.msg);
}

/* The line must be rejected with exactly msg. */
static void
parse_err(const char *line, const char *msg)
{
	struct tline	t;
	struct cerr	err = { "" };
	int		rc;

	memset(&t, 0, sizeof(t));
	rc = tline_parse(&t, line, "bad.T", 2, 0, &err);
	ck_assert_msg(rc == -1, "\"%s\" accepted (rc %d)", line, rc);
	ck_assert_str_eq(err.msg, msg);
	ck_assert_ptr_null(t.path);
	tline_clear(&t);
}

/* Canonical form of t as a malloc'd string. */
static char *
fmt(const struct tline *t, int prefixes)
{
	struct buf	*b = buf_new(TRAN_MAXLINE * 2);
	char		*s;

	ck_assert_int_eq(tline_format(b, t, prefixes), 0);
	s = buf_steal(b, NULL);
	buf_free(b);
	return s;
}

static void
assert_same(const struct tline *a, const struct tline *b)
{
	ck_assert_int_eq(a->type, b->type);
	ck_assert_int_eq(a->minus, b->minus);
	ck_assert_int_eq(a->plus, b->plus);
	ck_assert_str_eq(a->path, b->path);
	ck_assert_str_eq(a->epath, b->epath);
	if (a->target != NULL || b->target != NULL) {
		ck_assert_ptr_nonnull(a->target);
		ck_assert_ptr_nonnull(b->target);
		ck_assert_str_eq(a->target, b->target);
		ck_assert_str_eq(a->etarget, b->etarget);
	}
	ck_assert_uint_eq(a->mode, b->mode);
	ck_assert_uint_eq(a->uid, b->uid);
	ck_assert_uint_eq(a->gid, b->gid);
	ck_assert_int_eq(a->mtime, b->mtime);
	ck_assert_int_eq(a->size, b->size);
	ck_assert_str_eq(a->cksum, b->cksum);
	ck_assert_uint_eq(a->major, b->major);
	ck_assert_uint_eq(a->minor, b->minor);
}

/*
 * parse(in) formats (with prefixes) to exactly canon, and canon parses
 * back to the same object and formats to itself.
 */
static void
roundtrip(const char *in, const char *canon)
{
	struct tline	 t1, t2;
	char		*s1, *s2, *line;
	size_t		 n;

	memset(&t1, 0, sizeof(t1));
	memset(&t2, 0, sizeof(t2));
	parse_ok(&t1, in);
	s1 = fmt(&t1, 1);
	ck_assert_str_eq(s1, canon);
	n = strlen(s1);
	ck_assert_int_eq(s1[n - 1], '\n');
	line = strndup(s1, n - 1);
	parse_ok(&t2, line);
	assert_same(&t1, &t2);
	s2 = fmt(&t2, 1);
	ck_assert_str_eq(s2, canon);
	free(line);
	free(s1);
	free(s2);
	tline_clear(&t1);
	tline_clear(&t2);
}

static const struct {
	const char	*in, *canon;
} rt[] = {
	{ "d ./etc 0755 0 0",
	  "d ./etc                                \t0755     0     0\n" },
	{ "f ./etc/motd 0644 0 0 1718000000 12 Zm9vYmFyYmF6cXV4MTIzNDU2Nzg=",
	  "f ./etc/motd                           \t0644     0     0 "
	  "1718000000      12 Zm9vYmFyYmF6cXV4MTIzNDU2Nzg=\n" },
	{ "l ./etc/localtime 0777 0 0 /usr/share/zoneinfo/UTC",
	  "l ./etc/localtime                      \t0777     0     0 "
	  "/usr/share/zoneinfo/UTC\n" },
	{ "h ./usr/bin/python3 ./usr/bin/python3.12",
	  "h ./usr/bin/python3                    \t./usr/bin/python3.12\n" },
	{ "c ./dev/null 0666 0 0 1 3",
	  "c ./dev/null                           \t0666     0     0     1"
	  "     3\n" },
	{ "b ./dev/sda 0660 0 6 8 0",
	  "b ./dev/sda                            \t0660     0     6     8"
	  "     0\n" },
	{ "p ./run/fifo 0600 1000 1000",
	  "p ./run/fifo                           \t0600  1000  1000\n" },
	{ "s ./run/sock 0755 0 0",
	  "s ./run/sock                           \t0755     0     0\n" },
	{ "D ./run/door 0444 0 0",
	  "D ./run/door                           \t0444     0     0\n" },
	{ "a ./Mac/file 0644 501 20 1718000000 94 -",
	  "a ./Mac/file                           \t0644   501    20 "
	  "1718000000      94 -\n" },
	/* prefixes come before "<type> <path padded to 37>" */
	{ "+ f ./var/www/index\\bpage.html 0644 33 33 1718000500 512 -",
	  "+ f ./var/www/index\\bpage.html           \t0644    33    33 "
	  "1718000500     512 -\n" },
	{ "- f ./tmp/stale.lock 0600 0 0 1717000000 0 -",
	  "- f ./tmp/stale.lock                     \t0600     0     0 "
	  "1717000000       0 -\n" },
	{ "- d ./added 0700 0 0",
	  "- d ./added                              \t0700     0     0\n" },
	{ "- h ./etc/motd.hl ./etc/motd",
	  "- h ./etc/motd.hl                        \t./etc/motd\n" },
	{ "- + f ./x 0644 0 0 1 2 -",
	  "- + f ./x                                  \t0644     0     0"
	  "         1       2 -\n" },
	/* absolute style, root entries */
	{ "d / 0755 0 0",
	  "d /                                    \t0755     0     0\n" },
	{ "d . 0755 0 0",
	  "d .                                    \t0755     0     0\n" },
	/* any whitespace between tokens; canonical output regardless */
	{ "f\t./a  \t 0644\t0 0   5 6\t-  ",
	  "f ./a                                  \t0644     0     0"
	  "         5       6 -\n" },
	/* lcksum's single-space form with a 3-digit mode */
	{ "f ./etc/hostname 444 0 0 1700000000 9 er2RszQ32sErklenBNyCDAhX+6Q=",
	  "f ./etc/hostname                       \t0444     0     0 "
	  "1700000000       9 er2RszQ32sErklenBNyCDAhX+6Q=\n" },
	/* special bits */
	{ "d ./tmp 1777 0 0",
	  "d ./tmp                                \t1777     0     0\n" },
	{ "f ./bin/su 4755 0 0 0 0 -",
	  "f ./bin/su                             \t4755     0     0"
	  "         0       0 -\n" },
	{ "p ./x 7 0 0",
	  "p ./x                                  \t0007     0     0\n" },
	/* ids printed signed 32-bit, as fsdiff does */
	{ "f ./u 0600 4000000000 4294967294 0 0 -",
	  "f ./u                                  \t0600 -294967296    -2"
	  "         0       0 -\n" },
	{ "d ./big 0755 2147483647 -2147483648",
	  "d ./big                                \t0755 2147483647 "
	  "-2147483648\n" },
	/* 64-bit times and sizes */
	{ "f ./huge 0644 0 0 4102444800 10000000000 -",
	  "f ./huge                               \t0644     0     0 "
	  "4102444800 10000000000 -\n" },
	{ "f ./old 0644 0 0 0 5 -",
	  "f ./old                                \t0644     0     0"
	  "         0       5 -\n" },
	/* device numbers */
	{ "c ./dev/big 0600 0 0 4095 1048575",
	  "c ./dev/big                            \t0600     0     0  4095"
	  " 1048575\n" },
	/* a path longer than 37 bytes gets no padding */
	{ "f ./a/very/long/path/that/exceeds/the/column 0644 0 0 1 1 -",
	  "f ./a/very/long/path/that/exceeds/the/column\t0644     0     0"
	  "         1       1 -\n" },
	{ "d ./exactly-37-bytes-long-path-name-xxx 0755 0 0",
	  "d ./exactly-37-bytes-long-path-name-xxx\t0755     0     0\n" },
	/* legacy 3-field link: mode 0777, ids 0, written in 6-field form */
	{ "l ./lnk target",
	  "l ./lnk                                \t0777     0     0 target\n" },
	/* Mac finder info on d is accepted and never written */
	{ "d ./Mac 0755 0 0 AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
	  "d ./Mac                                \t0755     0     0\n" },
	/* hostile names: every escape, leading '-', '#', UTF-8 */
	{ "f ./a\\bb\\tc\\nd\\re\\\\f 0644 0 0 1 1 -",
	  "f ./a\\bb\\tc\\nd\\re\\\\f                   \t0644     0     0"
	  "         1       1 -\n" },
	{ "f ./-rf 0644 0 0 1 1 -",
	  "f ./-rf                                \t0644     0     0"
	  "         1       1 -\n" },
	{ "f ./#not-a-comment 0644 0 0 1 1 -",
	  "f ./#not-a-comment                     \t0644     0     0"
	  "         1       1 -\n" },
	{ "d ./caf\xc3\xa9 0755 0 0",
	  "d ./caf\xc3\xa9                              \t0755     0     0\n" },
	{ "l ./l\\bink 0777 0 0 ../a\\bb\\\\c",
	  "l ./l\\bink                             \t0777     0     0 "
	  "../a\\bb\\\\c\n" },
	{ "h ./h\\tard ./t\\barget",
	  "h ./h\\tard                             \t./t\\barget\n" },
};

START_TEST(test_roundtrip)
{
	roundtrip(rt[_i].in, rt[_i].canon);
}
END_TEST

START_TEST(test_fields)
{
	struct tline	t;

	memset(&t, 0, sizeof(t));
	parse_ok(&t, "f ./etc/motd 0644 12 34 1718000000 12 "
	    "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg=");
	ck_assert_int_eq(t.type, 'f');
	ck_assert_int_eq(t.minus, 0);
	ck_assert_int_eq(t.plus, 0);
	ck_assert_str_eq(t.path, "./etc/motd");
	ck_assert_uint_eq(t.mode, 0644);
	ck_assert_uint_eq(t.uid, 12);
	ck_assert_uint_eq(t.gid, 34);
	ck_assert_int_eq(t.mtime, 1718000000);
	ck_assert_int_eq(t.size, 12);
	ck_assert_str_eq(t.cksum, "Zm9vYmFyYmF6cXV4MTIzNDU2Nzg=");
	ck_assert_uint_eq(t.lineno, 2);
	ck_assert_int_eq(t.nfields, 8);

	parse_ok(&t, "- + c ./dev/null 0666 0 0 1 3");
	ck_assert_int_eq(t.minus, 1);
	ck_assert_int_eq(t.plus, 1);
	ck_assert_int_eq(t.type, 'c');
	ck_assert_uint_eq(t.major, 1);
	ck_assert_uint_eq(t.minor, 3);
	ck_assert_int_eq(t.nfields, 7);

	parse_ok(&t, "l ./lnk ../t\\bx");
	ck_assert_uint_eq(t.mode, 0777);
	ck_assert_uint_eq(t.uid, 0);
	ck_assert_uint_eq(t.gid, 0);
	ck_assert_str_eq(t.target, "../t x");
	ck_assert_str_eq(t.etarget, "../t\\bx");
	ck_assert_int_eq(t.nfields, 3);

	parse_ok(&t, "l ./lnk 0755 5 6 /x");
	ck_assert_uint_eq(t.mode, 0755);
	ck_assert_uint_eq(t.uid, 5);
	ck_assert_uint_eq(t.gid, 6);
	ck_assert_str_eq(t.target, "/x");
	ck_assert_int_eq(t.nfields, 6);

	parse_ok(&t, "h ./b ./a");
	ck_assert_str_eq(t.target, "./a");

	parse_ok(&t, "d ./Mac 0755 0 0 AAAA");
	ck_assert_int_eq(t.nfields, 6);
	tline_clear(&t);
	ck_assert_ptr_null(t.path);
}
END_TEST

START_TEST(test_escapes_decoded)
{
	struct tline	t;

	memset(&t, 0, sizeof(t));
	parse_ok(&t, "f ./a\\bb\\tc\\nd\\re\\\\f 0644 0 0 1 1 -");
	ck_assert_str_eq(t.path, "./a b\tc\nd\re\\f");
	ck_assert_str_eq(t.epath, "./a\\bb\\tc\\nd\\re\\\\f");
	parse_ok(&t, "f ./\\\\b 0644 0 0 1 1 -");	/* backslash then 'b' */
	ck_assert_str_eq(t.path, "./\\b");
	parse_ok(&t, "d ./\xe2\x98\x83\xff 0755 0 0");	/* bytes verbatim */
	ck_assert_str_eq(t.path, "./\xe2\x98\x83\xff");
	tline_clear(&t);
}
END_TEST

START_TEST(test_long_component)
{
	struct tline	 t;
	char		 name[256], line[600], canon[600], *s;

	memset(name, 'n', 255);
	name[255] = '\0';
	name[100] = ' ';	/* encoded as \b: 256 bytes in the token */
	memset(&t, 0, sizeof(t));
	snprintf(line, sizeof(line), "f ./d/%.100s\\b%s 0644 0 0 1 2 -",
	    name, name + 101);
	parse_ok(&t, line);
	ck_assert_uint_eq(strlen(t.path), 4 + 255);
	ck_assert_str_eq(t.path + 4, name);
	snprintf(canon, sizeof(canon), "f ./d/%.100s\\b%s\t0644     0     0"
	    "         1       2 -\n", name, name + 101);
	s = fmt(&t, 1);
	ck_assert_str_eq(s, canon);
	free(s);
	tline_clear(&t);
}
END_TEST

START_TEST(test_format_raw_struct)
{
	struct tline	 t;
	char		*s;

	/* a line built by a walker (no encoded copies) is encoded on output */
	memset(&t, 0, sizeof(t));
	t.type = 'f';
	t.path = strdup("./new file\n");
	t.mode = 0640;
	t.uid = 4000000000U;
	t.gid = 20;
	t.mtime = 1;
	t.size = 2;
	strcpy(t.cksum, "-");
	t.minus = 1;
	s = fmt(&t, 1);
	ck_assert_str_eq(s, "- f ./new\\bfile\\n                        \t0640"
	    " -294967296    20         1       2 -\n");
	free(s);
	/* without prefixes the minus is not written */
	s = fmt(&t, 0);
	ck_assert_str_eq(s, "f ./new\\bfile\\n                        \t0640"
	    " -294967296    20         1       2 -\n");
	free(s);
	tline_clear(&t);

	t.type = 'l';
	t.path = strdup("./l");
	t.target = strdup("a b\\");
	t.mode = 0777;
	s = fmt(&t, 1);
	ck_assert_str_eq(s, "l ./l                                  \t0777"
	    "     0     0 a\\bb\\\\\n");
	free(s);
	tline_clear(&t);
}
END_TEST

START_TEST(test_print)
{
	struct tline	 t;
	char		*text = NULL;
	size_t		 len = 0;
	FILE		*fp;

	memset(&t, 0, sizeof(t));
	parse_ok(&t, "+ f ./x 0644 0 0 1 2 -");
	fp = open_memstream(&text, &len);
	ck_assert_ptr_nonnull(fp);
	ck_assert_int_eq(tline_print(fp, &t, 1), 0);
	ck_assert_int_eq(tline_print(fp, &t, 0), 0);
	ck_assert_int_eq(fclose(fp), 0);
	ck_assert_str_eq(text,
	    "+ f ./x                                  \t0644     0     0"
	    "         1       2 -\n"
	    "f ./x                                  \t0644     0     0"
	    "         1       2 -\n");
	free(text);
	tline_clear(&t);
}
END_TEST

START_TEST(test_copy)
{
	struct tline	t, u;

	memset(&t, 0, sizeof(t));
	memset(&u, 0, sizeof(u));
	parse_ok(&t, "l ./a 0777 1 2 ./b\\bc");
	tline_copy(&u, &t);
	ck_assert_ptr_ne(u.path, t.path);
	ck_assert_ptr_ne(u.target, t.target);
	tline_clear(&t);
	ck_assert_str_eq(u.path, "./a");
	ck_assert_str_eq(u.target, "./b c");
	ck_assert_str_eq(u.etarget, "./b\\bc");
	ck_assert_uint_eq(u.uid, 1);
	tline_clear(&u);
}
END_TEST

START_TEST(test_mode_digits)
{
	struct tline	t;

	/* octal digits only, fewer than 4 accepted, at most 07777 */
	memset(&t, 0, sizeof(t));
	parse_ok(&t, "d ./etc 444 0 0");
	ck_assert_uint_eq(t.mode, 0444);
	parse_ok(&t, "d ./etc 0 0 0");
	ck_assert_uint_eq(t.mode, 0);
	parse_ok(&t, "d ./etc 7777 0 0");
	ck_assert_uint_eq(t.mode, 07777);
	parse_ok(&t, "d ./etc 00755 0 0");
	ck_assert_uint_eq(t.mode, 0755);
	tline_clear(&t);
	/*
	 * Radmind reads "0x44" as 0 and "0789" as 07 (strtol stops at the
	 * first non-octal byte); docs/formats.md allows rejecting them, and
	 * we do.
	 */
	parse_err("f ./etc 0x44 0 0 1 1 -", "bad.T: line 2: bad mode 0x44");
	parse_err("d ./etc 0789 0 0", "bad.T: line 2: bad mode 0789");
	parse_err("d ./etc 9 0 0", "bad.T: line 2: bad mode 9");
	parse_err("d ./etc 0755junk 0 0", "bad.T: line 2: bad mode 0755junk");
	parse_err("d ./etc -755 0 0", "bad.T: line 2: bad mode -755");
	parse_err("d ./etc +755 0 0", "bad.T: line 2: bad mode +755");
	parse_err("d ./etc 10000 0 0", "bad.T: line 2: bad mode 10000");
	parse_err("f ./x 0100644 0 0 0 0 -", "bad.T: line 2: bad mode 0100644");
	parse_err("l ./l x 0 0 t", "bad.T: line 2: bad mode x");
	parse_err("c ./c 06x6 0 0 1 3", "bad.T: line 2: bad mode 06x6");
}
END_TEST

START_TEST(test_blank_comment_header)
{
	static const char *const blank[] = {
		"", " \t ", "# comment", "#f ./x 0644 0 0 1 1 -", "  #indented"
	};
	struct tline	t;
	struct cerr	err = { "" };
	size_t		i;

	memset(&t, 0, sizeof(t));
	for (i = 0; i < sizeof(blank) / sizeof(blank[0]); i++)
		ck_assert_int_eq(tline_parse(&t, blank[i], "x.T", 1, 0, &err),
		    TL_BLANK);
	/* a comment's words are counted (lapply weighs them) */
	ck_assert_int_eq(tline_parse(&t, "# two words", "x.T", 1, 0, &err),
	    TL_BLANK);
	ck_assert_int_eq(t.nfields, 3);
	/* applicable-transcript section headers */
	ck_assert_int_eq(tline_parse(&t, "base.T:", "x.T", 1, TL_HEADERS,
	    &err), TL_HEADER);
	ck_assert_str_eq(t.path, "base.T");
	ck_assert_int_eq(t.type, 0);
	ck_assert_int_eq(tline_parse(&t, "web/special.T:", "x.T", 1,
	    TL_HEADERS, &err), TL_HEADER);
	ck_assert_str_eq(t.path, "web/special.T");
	ck_assert_int_eq(tline_parse(&t, "base.T:", "x.T", 7, 0, &err), -1);
	ck_assert_str_eq(err.msg, "x.T: line 7: minimum 3 arguments, got 1");
	ck_assert_int_eq(tline_parse(&t, ":", "x.T", 7, TL_HEADERS, &err), -1);
	ck_assert_str_eq(err.msg, "x.T: line 7: minimum 3 arguments, got 1");
	ck_assert_int_eq(tline_parse(&t, "base.T", "x.T", 8, TL_HEADERS,
	    &err), -1);
	ck_assert_str_eq(err.msg, "x.T: line 8: minimum 3 arguments, got 1");
	tline_clear(&t);
}
END_TEST

static const struct {
	const char	*line, *msg;
} bad[] = {
	/* field counts (type and path included, prefixes excluded) */
	{ "f ./etc 0644 0 0 1", "bad.T: line 2: expected 8 arguments, got 6" },
	{ "f ./etc 0644 0 0 1 1 - x",
	  "bad.T: line 2: expected 8 arguments, got 9" },
	{ "a ./etc 0644 0 0 1 1", "bad.T: line 2: expected 8 arguments, got 7" },
	{ "- f ./etc 0644 0 0 1",
	  "bad.T: line 2: expected 8 arguments, got 6" },
	{ "d ./etc 0755 0", "bad.T: line 2: expected 5 or 6 arguments, got 4" },
	{ "d ./etc 0755 0 0 AAAA x",
	  "bad.T: line 2: expected 5 or 6 arguments, got 7" },
	{ "l ./l 0777 0 x", "bad.T: line 2: expected 3 or 6 arguments, got 5" },
	{ "l ./l 0777 0 0 t x",
	  "bad.T: line 2: expected 3 or 6 arguments, got 7" },
	{ "h ./h ./a ./b", "bad.T: line 2: expected 3 arguments, got 4" },
	{ "p ./p 0600 0", "bad.T: line 2: expected 5 arguments, got 4" },
	{ "s ./s 0600 0 0 0", "bad.T: line 2: expected 5 arguments, got 6" },
	{ "D ./D 0600", "bad.T: line 2: expected 5 arguments, got 3" },
	{ "b ./b 0600 0 0 1", "bad.T: line 2: expected 7 arguments, got 6" },
	{ "c ./c 0600 0 0 1 2 3", "bad.T: line 2: expected 7 arguments, got 8" },
	{ "d ./etc", "bad.T: line 2: minimum 3 arguments, got 2" },
	{ "d", "bad.T: line 2: minimum 3 arguments, got 1" },
	{ "- d ./etc", "bad.T: line 2: minimum 3 arguments, got 2" },
	{ "- + f ./x", "bad.T: line 2: minimum 3 arguments, got 2" },
	{ "f 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16",
	  "bad.T: line 2: too many arguments" },
	/* types */
	{ "q ./etc 0755 0 0", "bad.T: line 2: unknown file type 'q'" },
	{ "F ./etc 0644 0 0 1 1 -", "bad.T: line 2: unknown file type 'F'" },
	{ "+ + f ./x 0644 0 0 1 1 -", "bad.T: line 2: unknown file type '+'" },
	{ "- - f ./x 0644 0 0 1 1 -", "bad.T: line 2: unknown file type '-'" },
	{ "file ./etc 0644 0 0 1 1 -",
	  "bad.T: line 2: file is too long to be a type" },
	{ "- ff ./etc 0644 0 0 1 1 -",
	  "bad.T: line 2: ff is too long to be a type" },
	{ "-f ./etc 0644 0 0 1 1 -",
	  "bad.T: line 2: -f is too long to be a type" },
	/* ids */
	{ "f ./etc 0644 4294967296 0 1 1 -", "bad.T: line 2: bad uid 4294967296" },
	{ "f ./etc 0644 0 4294967296 1 1 -", "bad.T: line 2: bad gid 4294967296" },
	{ "d ./etc 0755 -2147483649 0", "bad.T: line 2: bad uid -2147483649" },
	{ "d ./etc 0755 root 0", "bad.T: line 2: bad uid root" },
	{ "d ./etc 0755 0 12x", "bad.T: line 2: bad gid 12x" },
	{ "d ./etc 0755 99999999999999999999 0",
	  "bad.T: line 2: bad uid 99999999999999999999" },
	/* times, sizes, checksums */
	{ "f ./etc 0644 0 0 1 -1 -", "bad.T: line 2: bad size -1" },
	{ "f ./etc 0644 0 0 1 1k -", "bad.T: line 2: bad size 1k" },
	{ "f ./etc 0644 0 0 1 99999999999999999999 -",
	  "bad.T: line 2: bad size 99999999999999999999" },
	{ "f ./etc 0644 0 0 yesterday 1 -", "bad.T: line 2: bad mtime yesterday" },
	{ "f ./etc 0644 0 0 -86400 1 -", "bad.T: line 2: bad mtime -86400" },
	{ "f ./etc 0644 0 0 1 1 abc!", "bad.T: line 2: bad checksum abc!" },
	{ "f ./etc 0644 0 0 1 1 --", "bad.T: line 2: bad checksum --" },
	/* base64 padding: only at the end, at most two, whole quads */
	{ "f ./etc 0644 0 0 1 1 ab=c", "bad.T: line 2: bad checksum ab=c" },
	{ "f ./etc 0644 0 0 1 1 =abc", "bad.T: line 2: bad checksum =abc" },
	{ "f ./etc 0644 0 0 1 1 ====", "bad.T: line 2: bad checksum ====" },
	{ "f ./etc 0644 0 0 1 1 a===", "bad.T: line 2: bad checksum a===" },
	{ "f ./etc 0644 0 0 1 1 abc==", "bad.T: line 2: bad checksum abc==" },
	{ "f ./etc 0644 0 0 1 1 2jmj7l5rSw0yVb/vlWAYkK/YBwk=x",
	  "bad.T: line 2: bad checksum 2jmj7l5rSw0yVb/vlWAYkK/YBwk=x" },
	/* device numbers */
	{ "c ./c 0600 0 0 -1 2", "bad.T: line 2: bad device number" },
	{ "b ./b 0600 0 0 1 x", "bad.T: line 2: bad device number" },
	{ "b ./b 0600 0 0 4294967296 0", "bad.T: line 2: bad device number" },
	/* encoding */
	{ "f ./a\\x 0644 0 0 1 1 -", "bad.T: line 2: bad path encoding" },
	{ "f ./a\\ 0644 0 0 1 1 -", "bad.T: line 2: bad path encoding" },
	{ "d ./a\\0 0755 0 0", "bad.T: line 2: bad path encoding" },
	/* paths that are not canonical could name something outside the root */
	{ "f ./../x 0644 0 0 1 1 -", "bad.T: line 2: path has a .. component" },
	{ "d ./a/.. 0755 0 0", "bad.T: line 2: path has a .. component" },
	{ "d /a/../../b 0755 0 0", "bad.T: line 2: path has a .. component" },
	{ "d ./a//b 0755 0 0", "bad.T: line 2: path has an empty or . component" },
	{ "d ./a/ 0755 0 0", "bad.T: line 2: path has an empty or . component" },
	{ "d ./ 0755 0 0", "bad.T: line 2: path has an empty or . component" },
	{ "d ./a/./b 0755 0 0",
	  "bad.T: line 2: path has an empty or . component" },
	{ "d a 0755 0 0", "bad.T: line 2: path must start with ./ or /" },
	{ "d .. 0755 0 0", "bad.T: line 2: path must start with ./ or /" },
	{ "d .a 0755 0 0", "bad.T: line 2: path must start with ./ or /" },
	{ "h ./h ./../x",
	  "bad.T: line 2: hard link target has a .. component" },
	{ "h ./h x", "bad.T: line 2: hard link target must start with ./ or /" },
	{ "h ./h /etc/shadow",
	  "bad.T: line 2: hard link target must start with ./" },
	{ "h /h ./x", "bad.T: line 2: hard link target must start with /" },
	/* line endings */
	{ "d ./a 0755 0 0\r", "bad.T: line 2: carriage return in line" },
	{ "l ./l 0777 0 0 t\r", "bad.T: line 2: carriage return in line" },
	{ "d ./a\rb 0755 0 0", "bad.T: line 2: carriage return in line" },
	{ "l ./l 0777 0 0 ../t\\q", "bad.T: line 2: bad link target encoding" },
	{ "l ./l ../t\\", "bad.T: line 2: bad link target encoding" },
	{ "h ./h ./t\\x", "bad.T: line 2: bad link target encoding" },
};

START_TEST(test_malformed)
{
	parse_err(bad[_i].line, bad[_i].msg);
}
END_TEST

START_TEST(test_line_too_long)
{
	char	*line;
	size_t	 n = TRAN_MAXLINE + 10;

	line = malloc(n + 1);
	ck_assert_ptr_nonnull(line);
	memset(line, 'a', n);
	memcpy(line, "f ./", 4);
	line[n] = '\0';
	parse_err(line, "bad.T: line 2: line too long");
	free(line);
}
END_TEST

START_TEST(test_path_too_long)
{
	char	*line;
	size_t	 n = PATH_MAX + 2;

	/* decoded path of PATH_MAX bytes */
	line = malloc(n + 64);
	ck_assert_ptr_nonnull(line);
	memcpy(line, "d ./", 4);
	memset(line + 4, 'p', n - 2);
	strcpy(line + n + 2, " 0755 0 0");
	parse_err(line, "bad.T: line 2: path too long");
	free(line);
}
END_TEST

START_TEST(test_uid_limits)
{
	struct tline	 t;
	char		*s;

	memset(&t, 0, sizeof(t));
	/* -294967296 is how fsdiff writes uid 4000000000 */
	parse_ok(&t, "d ./u 0755 -294967296 -294967296");
	ck_assert_uint_eq(t.uid, 4000000000U);
	ck_assert_uint_eq(t.gid, 4000000000U);
	s = fmt(&t, 1);
	ck_assert_str_eq(s, "d ./u                                  \t0755 "
	    "-294967296 -294967296\n");
	free(s);
	parse_ok(&t, "d ./u 0755 4294967294 -2");
	ck_assert_uint_eq(t.uid, 4294967294U);
	ck_assert_uint_eq(t.gid, 4294967294U);
	tline_clear(&t);
	/* (uid_t)-1, in either spelling, is never an owner */
	parse_err("d ./u 0755 4294967295 0", "bad.T: line 2: bad uid 4294967295");
	parse_err("d ./u 0755 -1 0", "bad.T: line 2: bad uid -1");
	parse_err("d ./u 0755 0 -1", "bad.T: line 2: bad gid -1");
	parse_err("d ./u 0755 0 4294967295", "bad.T: line 2: bad gid 4294967295");
}
END_TEST

/*
 * Every type and the field counts it takes (type and path included,
 * prefixes not), written out here independently of the parser's table,
 * with a valid line of each accepted count.
 */
static const struct {
	char		 type;
	int		 counts[2];	/* accepted; 0: none */
	const char	*line[2];	/* a valid line of each count */
} types[] = {
	{ 'f', { 8, 0 }, { "f ./x 0644 1 2 3 4 -" } },
	{ 'a', { 8, 0 }, { "a ./x 0644 1 2 3 4 -" } },
	{ 'd', { 5, 6 }, { "d ./x 0755 1 2", "d ./x 0755 1 2 AAAA" } },
	{ 'l', { 3, 6 }, { "l ./x t", "l ./x 0777 1 2 t" } },
	{ 'h', { 3, 0 }, { "h ./x ./y" } },
	{ 'p', { 5, 0 }, { "p ./x 0600 1 2" } },
	{ 's', { 5, 0 }, { "s ./x 0600 1 2" } },
	{ 'D', { 5, 0 }, { "D ./x 0600 1 2" } },
	{ 'b', { 7, 0 }, { "b ./x 0600 1 2 3 4" } },
	{ 'c', { 7, 0 }, { "c ./x 0600 1 2 3 4" } },
};

/* "<prefix><type> ./x" and n - 2 more tokens "7". */
static void
count_line(char *buf, size_t len, const char *prefix, char type, int n)
{
	int	i;

	snprintf(buf, len, "%s%c ./x", prefix, type);
	for (i = 2; i < n; i++)
		strlcat(buf, " 7", len);
}

START_TEST(test_type_counts)
{
	static const char *const prefixes[] = { "", "- ", "+ ", "- + " };
	const int	*ok = types[_i].counts;
	struct tline	 t;
	char		 line[128], msg[128];
	size_t		 p;
	int		 n, j;

	memset(&t, 0, sizeof(t));
	/* the valid lines: every prefix, the count excludes it */
	for (j = 0; j < 2 && ok[j] != 0; j++) {
		for (p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++) {
			snprintf(line, sizeof(line), "%s%s", prefixes[p],
			    types[_i].line[j]);
			parse_ok(&t, line);
			ck_assert_int_eq(t.type, types[_i].type);
			ck_assert_int_eq(t.nfields, ok[j]);
			ck_assert_int_eq(t.minus, prefixes[p][0] == '-');
			ck_assert_int_eq(t.plus, strchr(prefixes[p], '+') !=
			    NULL);
		}
	}
	tline_clear(&t);
	/* every other count up to the token limit, worded by the table */
	for (n = 2; n <= 16; n++) {
		if (n == ok[0] || n == ok[1])
			continue;
		for (p = 0; p < sizeof(prefixes) / sizeof(prefixes[0]); p++) {
			count_line(line, sizeof(line), prefixes[p],
			    types[_i].type, n);
			if (n < 3)
				snprintf(msg, sizeof(msg), "bad.T: line 2: "
				    "minimum 3 arguments, got %d", n);
			else if (ok[1] == 0)
				snprintf(msg, sizeof(msg), "bad.T: line 2: "
				    "expected %d arguments, got %d", ok[0], n);
			else
				snprintf(msg, sizeof(msg), "bad.T: line 2: "
				    "expected %d or %d arguments, got %d",
				    ok[0] < ok[1] ? ok[0] : ok[1],
				    ok[0] < ok[1] ? ok[1] : ok[0], n);
			if (n + (int)strlen(prefixes[p]) / 2 > 16)
				snprintf(msg, sizeof(msg), "bad.T: line 2: "
				    "too many arguments");
			parse_err(line, msg);
		}
	}
}
END_TEST

/* The field count of the form the formatter writes for types[i]. */
static int
full_count(int i)
{
	switch (types[i].type) {
	case 'd':
		return 5;
	case 'l':
		return 6;
	default:
		return types[i].counts[0];
	}
}

/*
 * Round trip of every type: parse, format (no prefixes), parse the
 * result again: the same object, in its full form, and the canonical
 * line formats to itself.
 */
START_TEST(test_format_every_type)
{
	struct tline	 t1, t2;
	char		*s1, *s2, *line;
	int		 j;

	for (j = 0; j < 2 && types[_i].counts[j] != 0; j++) {
		memset(&t1, 0, sizeof(t1));
		memset(&t2, 0, sizeof(t2));
		parse_ok(&t1, types[_i].line[j]);
		s1 = fmt(&t1, 0);
		line = strndup(s1, strlen(s1) - 1);
		parse_ok(&t2, line);
		assert_same(&t1, &t2);
		/* written in full: no short link, no finder info */
		ck_assert_int_eq(t2.nfields, full_count(_i));
		s2 = fmt(&t2, 0);
		ck_assert_str_eq(s1, s2);
		free(line);
		free(s1);
		free(s2);
		tline_clear(&t1);
		tline_clear(&t2);
	}
}
END_TEST

/* Parse line with flags (an object line expected). */
static void
parse_flags(struct tline *t, const char *line, int flags)
{
	struct cerr	err = { "" };
	int		rc;

	rc = tline_parse(t, line, "bad.T", 2, flags, &err);
	ck_assert_msg(rc == TL_OBJECT, "\"%s\": rc %d: %s", line, rc, err.msg);
}

START_TEST(test_keyonly)
{
	struct tline	 t;
	struct cerr	 err = { "" };

	/* a type token and a path: nothing else is looked at */
	memset(&t, 0, sizeof(t));
	parse_flags(&t, "f ./b 0x44 root 0 1", TL_KEYONLY);
	ck_assert_int_eq(t.type, 'f');
	ck_assert_str_eq(t.path, "./b");
	parse_flags(&t, "file ./a//c", TL_KEYONLY);
	ck_assert_str_eq(t.path, "./a//c");
	parse_flags(&t, "- x ./a\\bb", TL_KEYONLY);
	ck_assert_int_eq(t.minus, 1);
	ck_assert_str_eq(t.path, "./a b");
	ck_assert_str_eq(t.epath, "./a\\bb");
	parse_flags(&t, "f ./many 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16",
	    TL_KEYONLY);
	tline_clear(&t);
	/* too few tokens: worded as Radmind's lsort words it */
	ck_assert_int_eq(tline_parse(&t, "f", "k.T", 3, TL_KEYONLY, &err),
	    -1);
	ck_assert_str_eq(err.msg, "k.T: line 3: not enough fields");
	ck_assert_int_eq(tline_parse(&t, "- f", "k.T", 3, TL_KEYONLY, &err),
	    -1);
	ck_assert_str_eq(err.msg, "k.T: line 3: not enough fields");
	ck_assert_int_eq(tline_parse(&t, "base.T:", "k.T", 3, TL_KEYONLY,
	    &err), -1);
	ck_assert_str_eq(err.msg, "k.T: line 3: not enough fields");
	/* the path and the framing are checked as everywhere */
	ck_assert_int_eq(tline_parse(&t, "f ./a\\q", "k.T", 4, TL_KEYONLY,
	    &err), -1);
	ck_assert_str_eq(err.msg, "k.T: line 4: bad path encoding");
	ck_assert_int_eq(tline_parse(&t, "f ./a\r", "k.T", 5, TL_KEYONLY,
	    &err), -1);
	ck_assert_str_eq(err.msg, "k.T: line 5: carriage return in line");
	ck_assert_ptr_null(t.path);
}
END_TEST

START_TEST(test_raw)
{
	struct tline	t, u, v;

	memset(&t, 0, sizeof(t));
	memset(&u, 0, sizeof(u));
	memset(&v, 0, sizeof(v));
	parse_flags(&t, "f  ./a\t0644 0 0 1 2 -  ", TL_RAW);
	ck_assert_str_eq(t.raw, "f  ./a\t0644 0 0 1 2 -  ");
	tline_copy(&u, &t);
	ck_assert_ptr_ne(u.raw, t.raw);
	ck_assert_str_eq(u.raw, t.raw);
	tline_move(&v, &u);
	ck_assert_ptr_null(u.raw);
	ck_assert_ptr_null(u.path);
	ck_assert_str_eq(v.raw, t.raw);
	ck_assert_str_eq(v.path, "./a");
	/* without the flag no copy is kept */
	parse_ok(&t, "d ./d 0755 0 0");
	ck_assert_ptr_null(t.raw);
	tline_clear(&t);
	tline_clear(&u);
	tline_clear(&v);
}
END_TEST

/* Radmind lcksum's layout of a corrected line (TL_REWRITE). */
static char *
rewrite(const char *line, int64_t mtime, int64_t size, const char *sum)
{
	struct tline	 t;
	char		*s;

	memset(&t, 0, sizeof(t));
	parse_flags(&t, line, TL_RAW);
	t.mtime = mtime;
	t.size = size;
	strlcpy(t.cksum, sum, sizeof(t.cksum));
	s = fmt(&t, TL_REWRITE);
	tline_clear(&t);
	return s;
}

START_TEST(test_rewrite)
{
	struct tline	 t;
	struct buf	*b;
	char		*s, *again, *line;

	/* a line with a checksum takes the new mtime */
	s = rewrite("f ./etc/motd\t0644     0     0 1700000000 5 AAAA",
	    1800000000, 12, "BBBB");
	ck_assert_str_eq(s, "f ./etc/motd                            0644     0"
	    "     0 1800000000      12 BBBB\n");
	/* tokens as written: a 3-digit mode, ids with a sign */
	again = rewrite("a ./x 444 -2 +5 1 1 -", 99, 3, "CCCC");
	ck_assert_str_eq(again, "a ./x                                    444"
	    "    -2    +5         1       3 CCCC\n");
	free(again);
	/* rewriting the result unchanged gives the same bytes */
	line = strndup(s, strlen(s) - 1);
	again = rewrite(line, 1800000000, 12, "BBBB");
	ck_assert_str_eq(again, s);
	free(line);
	free(again);
	free(s);
	/* only unprefixed f and a lines parsed with TL_RAW */
	b = buf_new(TRAN_MAXLINE * 2);
	memset(&t, 0, sizeof(t));
	parse_ok(&t, "f ./x 0644 0 0 1 1 -");
	ck_assert_int_eq(tline_format(b, &t, TL_REWRITE), -1);
	parse_flags(&t, "d ./x 0755 0 0", TL_RAW);
	ck_assert_int_eq(tline_format(b, &t, TL_REWRITE), -1);
	parse_flags(&t, "+ f ./x 0644 0 0 1 1 -", TL_RAW);
	ck_assert_int_eq(tline_format(b, &t, TL_REWRITE), -1);
	ck_assert_uint_eq(buf_len(b), 0);
	tline_clear(&t);
	buf_free(b);
}
END_TEST

/* Transcript readers over temporary files. */

static char	*tdir;

static void
tdir_setup(void)
{
	tdir = unit_mkdtemp();
}

static void
tdir_teardown(void)
{
	unit_rmtree(tdir);
	free(tdir);
	tdir = NULL;
}

static struct treader *
open_text(const char *name, const char *text, int flags)
{
	struct treader	*r;
	struct cerr	 err = { "" };
	char		 path[PATH_MAX];

	unit_write(tdir, name, text);
	snprintf(path, sizeof(path), "%s/%s", tdir, name);
	r = treader_open(path, name, flags, &err);
	ck_assert_msg(r != NULL, "%s", err.msg);
	return r;
}

/* Read everything; return the number of objects, or -1 with err set. */
static int
read_all(struct treader *r, struct cerr *err)
{
	const struct tline	*t;
	int			 n = 0, rc;

	while ((rc = treader_next(r, &t, err)) == 1)
		n++;
	return rc == 0 ? n : -1;
}

static void
reader_err(const char *text, int flags, const char *msg)
{
	struct treader	*r;
	struct cerr	 err = { "" };

	r = open_text("bad.T", text, flags);
	ck_assert_int_eq(read_all(r, &err), -1);
	ck_assert_str_eq(err.msg, msg);
	treader_close(r);
}

START_TEST(test_reader_basic)
{
	struct treader		*r;
	const struct tline	*t;
	struct cerr		 err = { "" };

	r = open_text("ok.T",
	    "# made by hand\n"
	    "\n"
	    "d . 0755 0 0\n"
	    "d ./etc 0755 0 0\n"
	    "f ./etc/passwd 0644 0 0 1 2 -\n"
	    "   \n"
	    "f ./etc-x 0644 0 0 1 2 -\n"
	    "- f ./etc.old 0644 0 0 1 2 -\n"
	    "d ./Library 0755 0 0\n", 0);
	ck_assert_str_eq(treader_name(r), "ok.T");
	ck_assert_int_eq(treader_next(r, &t, &err), 1);
	ck_assert_str_eq(t->path, ".");
	ck_assert_uint_eq(t->lineno, 3);
	ck_assert_uint_eq(treader_lineno(r), 3);
	ck_assert_int_eq(treader_next(r, &t, &err), 1);
	ck_assert_str_eq(t->path, "./etc");
	ck_assert_int_eq(treader_next(r, &t, &err), 1);
	ck_assert_str_eq(t->path, "./etc/passwd");
	ck_assert_int_eq(treader_next(r, &t, &err), 1);
	ck_assert_str_eq(t->path, "./etc-x");
	ck_assert_uint_eq(t->lineno, 7);
	ck_assert_int_eq(treader_next(r, &t, &err), 1);
	ck_assert_str_eq(t->path, "./etc.old");
	ck_assert_int_eq(t->minus, 1);
	/*
	 * "./Library" after "./etc.old" is out of order ('L' < 'e'), so
	 * this is the error case, on line 9.
	 */
	ck_assert_int_eq(treader_next(r, &t, &err), -1);
	ck_assert_str_eq(err.msg, "ok.T: line 9: bad sort order");
	treader_close(r);
}
END_TEST

START_TEST(test_reader_eof_without_newline)
{
	struct treader		*r;
	const struct tline	*t;
	struct cerr		 err = { "" };

	/* a last line cut short is rejected, never half used */
	r = open_text("a.T", "d . 0755 0 0\nd ./x 0755 0 0", 0);
	ck_assert_int_eq(treader_next(r, &t, &err), 1);
	ck_assert_int_eq(treader_next(r, &t, &err), -1);
	ck_assert_str_eq(err.msg,
	    "a.T: line 2: incomplete last line (no newline)");
	treader_close(r);
	r = open_text("b.T", "d . 0755 0 0\n# comment", 0);
	ck_assert_int_eq(treader_next(r, &t, &err), 1);
	ck_assert_int_eq(treader_next(r, &t, &err), -1);
	ck_assert_str_eq(err.msg,
	    "b.T: line 2: incomplete last line (no newline)");
	treader_close(r);
	r = open_text("c.T", "d . 0755 0 0\r\n", 0);
	ck_assert_int_eq(treader_next(r, &t, &err), -1);
	ck_assert_str_eq(err.msg, "c.T: line 1: carriage return in line");
	treader_close(r);
	r = open_text("empty.T", "", 0);
	ck_assert_int_eq(treader_next(r, &t, &err), 0);
	treader_close(r);
}
END_TEST

START_TEST(test_reader_order_errors)
{
	reader_err("d . 0755 0 0\nd ./files 0755 0 0\nd ./etc 0755 0 0\n", 0,
	    "bad.T: line 3: bad sort order");
	reader_err("d . 0755 0 0\nd ./etc 0755 0 0\nd ./etc 0755 0 0\n", 0,
	    "bad.T: line 3: bad sort order");
	/* strcmp order instead of pathcmp order */
	reader_err("d . 0755 0 0\nd ./etc 0755 0 0\n"
	    "f ./etc-x 0644 0 0 1 1 -\nf ./etc/passwd 0644 0 0 1 1 -\n", 0,
	    "bad.T: line 4: bad sort order");
	/* line numbers count blank and comment lines */
	reader_err("d . 0755 0 0\n\n# c\nd ./b 0755 0 0\n\nd ./a 0755 0 0\n", 0,
	    "bad.T: line 6: bad sort order");
	/* a minus line for the same path is still a duplicate */
	reader_err("d ./a 0755 0 0\n- d ./a 0755 0 0\n", 0,
	    "bad.T: line 2: bad sort order");
	/* order is on decoded paths: "./a b" (0x20) sorts before "./a-" */
	reader_err("f ./a- 0644 0 0 1 1 -\nf ./a\\bb 0644 0 0 1 1 -\n", 0,
	    "bad.T: line 2: bad sort order");
	/* parse errors name the line too */
	reader_err("d . 0755 0 0\nd ./etc 0755 0\n", 0,
	    "bad.T: line 2: expected 5 or 6 arguments, got 4");
	reader_err("d . 0755 0 0\nfile ./etc 0644 0 0 1 1 -\n", 0,
	    "bad.T: line 2: file is too long to be a type");
	reader_err("d . 0755 0 0\nq ./etc 0755 0 0\n", 0,
	    "bad.T: line 2: unknown file type 'q'");
}
END_TEST

START_TEST(test_reader_decoded_order_ok)
{
	struct treader	*r;
	struct cerr	 err = { "" };

	r = open_text("ok.T",
	    "f ./a\\bb 0644 0 0 1 1 -\nf ./a- 0644 0 0 1 1 -\n"
	    "f ./a\\\\ 0644 0 0 1 1 -\n", 0);
	ck_assert_int_eq(read_all(r, &err), 3);
	treader_close(r);
}
END_TEST

START_TEST(test_reader_nul_byte)
{
	static const char data[] = "d . 0755 0 0\nd ./a\0b 0755 0 0\n";
	struct treader	*r;
	struct cerr	 err = { "" };
	char		 path[PATH_MAX];
	FILE		*fp;

	snprintf(path, sizeof(path), "%s/nul.T", tdir);
	fp = fopen(path, "w");
	ck_assert_ptr_nonnull(fp);
	ck_assert_uint_eq(fwrite(data, 1, sizeof(data) - 1, fp),
	    sizeof(data) - 1);
	fclose(fp);
	r = treader_open(path, "nul.T", 0, &err);
	ck_assert_ptr_nonnull(r);
	ck_assert_int_eq(read_all(r, &err), -1);
	ck_assert_str_eq(err.msg, "nul.T: line 2: NUL byte in line");
	treader_close(r);
}
END_TEST

START_TEST(test_reader_cksum)
{
	struct treader	*r;
	struct cerr	 err = { "" };

	reader_err("d . 0755 0 0\nf ./etc 0644 0 0 1 1 -\n", TR_CKSUM,
	    "bad.T: line 2: no cksums in transcript");
	reader_err("d . 0755 0 0\na ./etc 0644 0 0 1 1 -\n", TR_CKSUM,
	    "bad.T: line 2: no cksums in transcript");
	/* other types need none */
	r = open_text("ok.T", "d . 0755 0 0\n"
	    "f ./etc 0644 0 0 1 1 qZk+NkcGgWq6PiVxeFDCbJzQ2J0=\n"
	    "l ./l t\np ./p 0600 0 0\n", TR_CKSUM);
	ck_assert_int_eq(read_all(r, &err), 4);
	treader_close(r);
	/* without the flag "-" is fine */
	r = open_text("ok2.T", "f ./etc 0644 0 0 1 1 -\n", 0);
	ck_assert_int_eq(read_all(r, &err), 1);
	treader_close(r);
}
END_TEST

START_TEST(test_reader_icase)
{
	struct treader	*r;
	struct cerr	 err = { "" };
	const char	*text = "d ./a 0755 0 0\nd ./B 0755 0 0\nd ./c 0755 0 0\n";

	r = open_text("i.T", text, TR_ICASE);
	ck_assert_int_eq(read_all(r, &err), 3);
	treader_close(r);
	reader_err(text, 0, "bad.T: line 2: bad sort order");
	/* names equal up to case are duplicates under -I */
	reader_err("d ./A 0755 0 0\nd ./a 0755 0 0\n", TR_ICASE,
	    "bad.T: line 2: bad sort order");
}
END_TEST

START_TEST(test_reader_nosort_headers)
{
	struct treader		*r;
	const struct tline	*t;
	struct cerr		 err = { "" };

	r = open_text("n.T", "d ./b 0755 0 0\nd ./a 0755 0 0\n", TR_NOSORT);
	ck_assert_int_eq(read_all(r, &err), 2);
	treader_close(r);

	r = open_text("A.T", "special.T:\n+ f ./etc/hostname 0644 0 0 1 1 -\n"
	    "base.T:\n+ f ./etc/motd 0644 0 0 1 1 -\n", TR_HEADERS);
	ck_assert_int_eq(treader_next(r, &t, &err), 2);
	ck_assert_str_eq(t->path, "special.T");
	ck_assert_int_eq(treader_next(r, &t, &err), 1);
	ck_assert_int_eq(t->plus, 1);
	ck_assert_str_eq(t->path, "./etc/hostname");
	ck_assert_int_eq(treader_next(r, &t, &err), 2);
	ck_assert_str_eq(t->path, "base.T");
	ck_assert_int_eq(treader_next(r, &t, &err), 1);
	ck_assert_str_eq(t->path, "./etc/motd");
	ck_assert_int_eq(treader_next(r, &t, &err), 0);
	treader_close(r);
	/* headers are errors elsewhere */
	reader_err("base.T:\n", 0, "bad.T: line 1: minimum 3 arguments, got 1");
}
END_TEST

START_TEST(test_reader_open_errors)
{
	struct cerr	 err = { "" };
	char		 path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/nothere.T", tdir);
	ck_assert_ptr_null(treader_open(path, "../case/nothere.T", 0, &err));
	ck_assert_str_eq(err.msg,
	    "../case/nothere.T: No such file or directory");
	ck_assert_ptr_null(treader_open(path, NULL, 0, &err));
	ck_assert_int_eq(strncmp(err.msg, path, strlen(path)), 0);
	ck_assert_str_eq(err.msg + strlen(path),
	    ": No such file or directory");
}
END_TEST

START_TEST(test_reader_fdopen_keep)
{
	struct treader	*r;
	struct cerr	 err = { "" };
	FILE		*fp;

	fp = tmpfile();
	ck_assert_ptr_nonnull(fp);
	fputs("d . 0755 0 0\n", fp);
	rewind(fp);
	r = treader_fdopen(fp, "(stdin)", 0, 1);
	ck_assert_int_eq(read_all(r, &err), 1);
	treader_close(r);
	/* still open */
	ck_assert_int_eq(fseek(fp, 0, SEEK_SET), 0);
	ck_assert_int_eq(fgetc(fp), 'd');
	fclose(fp);
}
END_TEST

START_TEST(test_reader_comments_raw)
{
	struct treader		*r;
	const struct tline	*t;
	struct cerr		 err = { "" };

	r = open_text("c.T", "# made by hand\n\nd ./a  0755 0 0\n",
	    TR_COMMENTS | TR_RAW);
	ck_assert_int_eq(treader_next(r, &t, &err), TR_BLANK);
	ck_assert_int_eq(t->nfields, 4);
	ck_assert_str_eq(t->raw, "# made by hand");
	ck_assert_int_eq(treader_next(r, &t, &err), TR_BLANK);
	ck_assert_int_eq(t->nfields, 0);
	ck_assert_int_eq(treader_next(r, &t, &err), TL_OBJECT);
	ck_assert_str_eq(t->raw, "d ./a  0755 0 0");
	ck_assert_int_eq(treader_next(r, &t, &err), 0);
	treader_close(r);
}
END_TEST

START_TEST(test_reader_addlf_keyonly)
{
	struct treader		*r;
	const struct tline	*t;
	struct cerr		 err = { "" };

	/* lsort's reader: keys only, any order, a missing last LF added */
	r = open_text("k.T", "f ./b 0x44\nfile ./a", TR_KEYONLY | TR_NOSORT |
	    TR_ADDLF | TR_RAW);
	ck_assert_int_eq(treader_next(r, &t, &err), TL_OBJECT);
	ck_assert_str_eq(t->raw, "f ./b 0x44");
	ck_assert_int_eq(treader_next(r, &t, &err), TL_OBJECT);
	ck_assert_str_eq(t->raw, "file ./a");
	ck_assert_str_eq(t->path, "./a");
	ck_assert_int_eq(treader_next(r, &t, &err), 0);
	treader_close(r);
	reader_err("f ./b\n-\n", TR_KEYONLY | TR_NOSORT,
	    "bad.T: line 2: not enough fields");
}
END_TEST

START_TEST(test_reader_take_order)
{
	struct treader		*r;
	const struct tline	*t;
	struct tline		 mine;
	struct cerr		 err = { "" };

	memset(&mine, 0, sizeof(mine));
	r = open_text("o.T", "d ./b 0755 0 0\nd ./a 0755 0 0\n"
	    "d ./c 0755 0 0\n", TR_NOSORT);
	ck_assert_int_eq(treader_next(r, &t, &err), TL_OBJECT);
	ck_assert_int_eq(treader_order(r, &err), 0);
	treader_take(r, &mine);
	ck_assert_str_eq(mine.path, "./b");
	ck_assert_ptr_null(t->path);		/* moved, not copied */
	/* the caller checks the lines it wants, when it wants */
	ck_assert_int_eq(treader_next(r, &t, &err), TL_OBJECT);
	ck_assert_int_eq(treader_order(r, &err), -1);
	ck_assert_str_eq(err.msg, "o.T: line 2: bad sort order");
	ck_assert_int_eq(treader_next(r, &t, &err), TL_OBJECT);
	ck_assert_int_eq(treader_order(r, &err), 0);
	treader_close(r);
	ck_assert_str_eq(mine.path, "./b");
	tline_clear(&mine);
}
END_TEST

START_TEST(test_reader_goes_on)
{
	struct treader		*r;
	const struct tline	*t;
	struct cerr		 err = { "" };

	/* after a bad line the next call reads the next line (lcksum -a) */
	r = open_text("g.T", "d ./a 0755 0 0\nq ./b 0755 0 0\n"
	    "d ./c 0755 0\nd ./d 0755 0 0\nd ./e 0755 0 0", 0);
	ck_assert_int_eq(treader_next(r, &t, &err), TL_OBJECT);
	ck_assert_int_eq(treader_next(r, &t, &err), -1);
	ck_assert_str_eq(err.msg, "g.T: line 2: unknown file type 'q'");
	ck_assert_int_eq(treader_ioerror(r), 0);
	ck_assert_int_eq(treader_next(r, &t, &err), -1);
	ck_assert_str_eq(err.msg,
	    "g.T: line 3: expected 5 or 6 arguments, got 4");
	ck_assert_int_eq(treader_next(r, &t, &err), TL_OBJECT);
	ck_assert_str_eq(t->path, "./d");
	ck_assert_uint_eq(t->lineno, 4);
	ck_assert_int_eq(treader_next(r, &t, &err), -1);
	ck_assert_str_eq(err.msg,
	    "g.T: line 5: incomplete last line (no newline)");
	ck_assert_int_eq(treader_next(r, &t, &err), 0);
	treader_close(r);
}
END_TEST

START_TEST(test_reader_line_limit)
{
	struct treader	*r;
	struct cerr	 err = { "" };
	char		*text;
	size_t		 n = TRAN_MAXLINE - 1;	/* the longest line, no LF */

	/* the one limit of every reader, lsort's too */
	text = malloc(n + 3);
	ck_assert_ptr_nonnull(text);
	memset(text, 'y', n + 1);
	memcpy(text, "f ./x ", 6);
	text[n] = '\n';
	text[n + 1] = '\0';
	r = open_text("max.T", text, TR_KEYONLY);
	ck_assert_int_eq(read_all(r, &err), 1);
	treader_close(r);
	text[n] = 'y';
	text[n + 1] = '\n';
	text[n + 2] = '\0';
	reader_err(text, TR_KEYONLY, "bad.T: line 1: line too long");
	free(text);
}
END_TEST

/* Path style. */

START_TEST(test_restyle)
{
	static const struct {
		const char	*in;
		int		 style;
		const char	*out;
	} v[] = {
		{ ".", PATH_ABSOLUTE, "/" },
		{ "./a", PATH_ABSOLUTE, "/a" },
		{ "./a/b c", PATH_ABSOLUTE, "/a/b c" },
		{ "/", PATH_ABSOLUTE, "/" },
		{ "/a", PATH_ABSOLUTE, "/a" },
		{ "/", PATH_RELATIVE, "." },
		{ "/a", PATH_RELATIVE, "./a" },
		{ "/a/b", PATH_RELATIVE, "./a/b" },
		{ ".", PATH_RELATIVE, "." },
		{ "./a", PATH_RELATIVE, "./a" },
	};
	size_t	 i;
	char	*s;

	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++) {
		s = path_restyle(v[i].in, v[i].style);
		ck_assert_msg(strcmp(s, v[i].out) == 0, "%s -> %s, want %s",
		    v[i].in, s, v[i].out);
		free(s);
	}
	ck_assert_int_eq(path_style("/"), PATH_ABSOLUTE);
	ck_assert_int_eq(path_style("/etc"), PATH_ABSOLUTE);
	ck_assert_int_eq(path_style("."), PATH_RELATIVE);
	ck_assert_int_eq(path_style("./etc"), PATH_RELATIVE);
}
END_TEST

/* Precedence merge. */

struct got {
	char	path[64];
	int	idx;
	int	minus;
	char	type;
};

static int
merge_all(struct tmerge *m, struct got *g, int max, struct cerr *err)
{
	const struct tline	*t;
	int			 n = 0, idx, rc;

	while ((rc = tmerge_next(m, &t, &idx, err)) == 1) {
		ck_assert_int_lt(n, max);
		snprintf(g[n].path, sizeof(g[n].path), "%s", t->path);
		g[n].idx = idx;
		g[n].minus = t->minus;
		g[n].type = t->type;
		n++;
	}
	return rc == 0 ? n : -1;
}

START_TEST(test_merge_precedence)
{
	struct tmerge	*m;
	struct got	 g[16];
	struct cerr	 err = { "" };
	int		 n, tag[3] = { 10, 11, 12 };

	m = tmerge_new(0, -1);
	/* lowest first */
	tmerge_add(m, open_text("low.T",
	    "d . 0755 0 0\nf ./a 0644 0 0 1 1 -\nf ./b 0644 0 0 1 1 -\n"
	    "f ./c 0644 0 0 1 1 -\nf ./e 0644 0 0 1 1 -\n", 0), &tag[0], 0);
	tmerge_add(m, open_text("mid.T",
	    "d ./b 0755 0 0\nf ./d 0644 0 0 1 1 -\nf ./e 0600 0 0 1 1 -\n", 0),
	    &tag[1], 0);
	tmerge_add(m, open_text("high.T",
	    "- f ./b 0644 0 0 1 1 -\nf ./c 0644 0 0 1 1 -\n", 0), &tag[2], 0);
	n = merge_all(m, g, 16, &err);
	ck_assert_int_eq(n, 6);
	ck_assert_str_eq(g[0].path, ".");
	ck_assert_int_eq(g[0].idx, 0);
	ck_assert_str_eq(g[1].path, "./a");
	ck_assert_int_eq(g[1].idx, 0);
	/* the later input's minus line wins and is returned */
	ck_assert_str_eq(g[2].path, "./b");
	ck_assert_int_eq(g[2].idx, 2);
	ck_assert_int_eq(g[2].minus, 1);
	ck_assert_int_eq(g[2].type, 'f');
	ck_assert_str_eq(g[3].path, "./c");
	ck_assert_int_eq(g[3].idx, 2);
	ck_assert_str_eq(g[4].path, "./d");
	ck_assert_int_eq(g[4].idx, 1);
	ck_assert_str_eq(g[5].path, "./e");
	ck_assert_int_eq(g[5].idx, 1);
	ck_assert_ptr_eq(tmerge_udata(m, 0), &tag[0]);
	ck_assert_ptr_eq(tmerge_udata(m, 2), &tag[2]);
	tmerge_free(m);
}
END_TEST

START_TEST(test_merge_winner_fields)
{
	struct tmerge		*m;
	const struct tline	*t;
	struct cerr		 err = { "" };
	int			 idx;

	m = tmerge_new(0, -1);
	tmerge_add(m, open_text("1.T", "f ./x 0644 1 1 100 5 -\n", 0), NULL, 0);
	tmerge_add(m, open_text("2.T", "f ./x 0600 2 2 200 7 -\n", 0), NULL, 0);
	ck_assert_int_eq(tmerge_next(m, &t, &idx, &err), 1);
	ck_assert_int_eq(idx, 1);
	ck_assert_uint_eq(t->mode, 0600);
	ck_assert_uint_eq(t->uid, 2);
	ck_assert_int_eq(t->size, 7);
	ck_assert_int_eq(tmerge_next(m, &t, &idx, &err), 0);
	tmerge_free(m);
}
END_TEST

START_TEST(test_merge_peek)
{
	struct tmerge		*m;
	const struct tline	*t;
	struct cerr		 err = { "" };
	int			 idx;

	m = tmerge_new(0, -1);
	tmerge_add(m, open_text("1.T", "d ./a 0755 0 0\nd ./b 0755 0 0\n", 0),
	    NULL, 0);
	ck_assert_int_eq(tmerge_peek(m, &t, &idx, &err), 1);
	ck_assert_str_eq(t->path, "./a");
	ck_assert_int_eq(tmerge_peek(m, &t, &idx, &err), 1);
	ck_assert_str_eq(t->path, "./a");
	ck_assert_int_eq(tmerge_next(m, &t, NULL, &err), 1);
	ck_assert_str_eq(t->path, "./a");
	ck_assert_int_eq(tmerge_peek(m, &t, &idx, &err), 1);
	ck_assert_str_eq(t->path, "./b");
	ck_assert_int_eq(tmerge_next(m, &t, &idx, &err), 1);
	ck_assert_str_eq(t->path, "./b");
	ck_assert_int_eq(tmerge_peek(m, &t, &idx, &err), 0);
	ck_assert_int_eq(tmerge_next(m, &t, &idx, &err), 0);
	tmerge_free(m);
}
END_TEST

static int
skip_cache(const char *path, void *arg)
{
	int	*calls = arg;

	(*calls)++;
	return strncmp(path, "./var/cache", 11) == 0 ||
	    strncmp(path, "/var/cache", 10) == 0;
}

START_TEST(test_merge_skip)
{
	struct tmerge	*m;
	struct got	 g[16];
	struct cerr	 err = { "" };
	int		 n, calls = 0;

	m = tmerge_new(0, -1);
	tmerge_setskip(m, skip_cache, &calls);
	tmerge_add(m, open_text("base.T",
	    "d ./var 0755 0 0\nd ./var/cache 0755 0 0\n"
	    "f ./var/cache/a 0644 0 0 1 1 -\nf ./var/cache/b 0644 0 0 1 1 -\n"
	    "d ./var/log 0755 0 0\n", 0), NULL, 0);
	tmerge_add(m, open_text("over.T",
	    "f ./var/cache/a 0600 0 0 1 1 -\n", 0), NULL, 0);
	/* noskip (special.T): its entries are never excluded */
	tmerge_add(m, open_text("special.T",
	    "f ./var/cache/b 0600 0 0 1 1 -\n", 0), NULL, 1);
	n = merge_all(m, g, 16, &err);
	ck_assert_int_eq(n, 3);
	ck_assert_str_eq(g[0].path, "./var");
	ck_assert_str_eq(g[1].path, "./var/cache/b");
	ck_assert_int_eq(g[1].idx, 2);
	ck_assert_str_eq(g[2].path, "./var/log");
	ck_assert_int_eq(calls, 6);	/* never asked about special.T */
	tmerge_free(m);
}
END_TEST

START_TEST(test_merge_restyle)
{
	struct tmerge		*m;
	const struct tline	*t;
	struct cerr		 err = { "" };
	char			*s;
	int			 idx, calls = 0;

	/* relative and absolute inputs merged in absolute style */
	m = tmerge_new(0, PATH_ABSOLUTE);
	tmerge_setskip(m, skip_cache, &calls);
	tmerge_add(m, open_text("rel.T",
	    "d . 0755 0 0\nf ./a\\bb 0644 0 0 1 1 -\nh ./h ./a\\bb\n"
	    "f ./var/cache/x 0644 0 0 1 1 -\n", 0), NULL, 0);
	tmerge_add(m, open_text("abs.T", "d / 0700 0 0\n", 0), NULL, 0);
	ck_assert_int_eq(tmerge_next(m, &t, &idx, &err), 1);
	ck_assert_str_eq(t->path, "/");
	ck_assert_int_eq(idx, 1);
	ck_assert_uint_eq(t->mode, 0700);
	ck_assert_int_eq(tmerge_next(m, &t, &idx, &err), 1);
	ck_assert_str_eq(t->path, "/a b");
	ck_assert_str_eq(t->epath, "/a\\bb");
	s = fmt(t, 1);
	ck_assert_str_eq(s, "f /a\\bb                                \t0644"
	    "     0     0         1       1 -\n");
	free(s);
	/* hard link targets follow the path style */
	ck_assert_int_eq(tmerge_next(m, &t, &idx, &err), 1);
	ck_assert_str_eq(t->path, "/h");
	ck_assert_str_eq(t->target, "/a b");
	ck_assert_str_eq(t->etarget, "/a\\bb");
	/* the skip callback sees restyled paths */
	ck_assert_int_eq(tmerge_next(m, &t, &idx, &err), 0);
	tmerge_free(m);

	/* and back: absolute to relative */
	m = tmerge_new(0, PATH_RELATIVE);
	tmerge_add(m, open_text("abs2.T",
	    "d / 0755 0 0\nl /a 0777 0 0 /abs/target\nh /h /a\n", 0), NULL, 0);
	ck_assert_int_eq(tmerge_next(m, &t, &idx, &err), 1);
	ck_assert_str_eq(t->path, ".");
	ck_assert_int_eq(tmerge_next(m, &t, &idx, &err), 1);
	ck_assert_str_eq(t->path, "./a");
	/* symlink contents are not paths of the transcript */
	ck_assert_str_eq(t->target, "/abs/target");
	ck_assert_int_eq(tmerge_next(m, &t, &idx, &err), 1);
	ck_assert_str_eq(t->path, "./h");
	ck_assert_str_eq(t->target, "./a");
	ck_assert_int_eq(tmerge_next(m, &t, &idx, &err), 0);
	tmerge_free(m);
}
END_TEST

START_TEST(test_merge_icase)
{
	struct tmerge	*m;
	struct got	 g[8];
	struct cerr	 err = { "" };

	m = tmerge_new(1, -1);
	tmerge_add(m, open_text("1.T", "d ./A 0755 0 0\nd ./c 0755 0 0\n",
	    TR_ICASE), NULL, 0);
	tmerge_add(m, open_text("2.T", "d ./a 0700 0 0\nd ./B 0755 0 0\n",
	    TR_ICASE), NULL, 0);
	ck_assert_int_eq(merge_all(m, g, 8, &err), 3);
	ck_assert_str_eq(g[0].path, "./a");
	ck_assert_int_eq(g[0].idx, 1);
	ck_assert_str_eq(g[1].path, "./B");
	ck_assert_str_eq(g[2].path, "./c");
	tmerge_free(m);
}
END_TEST

START_TEST(test_merge_error)
{
	struct tmerge	*m;
	struct got	 g[8];
	struct cerr	 err = { "" };

	m = tmerge_new(0, -1);
	tmerge_add(m, open_text("good.T", "d ./a 0755 0 0\n", 0), NULL, 0);
	tmerge_add(m, open_text("bad.T", "d ./b 0755 0 0\nd ./a 0755 0 0\n",
	    0), NULL, 0);
	ck_assert_int_eq(merge_all(m, g, 8, &err), -1);
	ck_assert_str_eq(err.msg, "bad.T: line 2: bad sort order");
	tmerge_free(m);
}
END_TEST

START_TEST(test_merge_empty)
{
	struct tmerge		*m;
	const struct tline	*t;
	struct cerr		 err = { "" };

	m = tmerge_new(0, -1);
	ck_assert_int_eq(tmerge_next(m, &t, NULL, &err), 0);
	tmerge_free(m);
	tmerge_free(NULL);
	m = tmerge_new(0, -1);
	tmerge_add(m, open_text("null.T", "", 0), NULL, 0);
	ck_assert_int_eq(tmerge_next(m, &t, NULL, &err), 0);
	tmerge_free(m);
}
END_TEST

static Suite *
transcript_suite(void)
{
	Suite	*s = suite_create("transcript");
	TCase	*tc;

	tc = tcase_create("format");
	tcase_add_loop_test(tc, test_roundtrip, 0,
	    (int)(sizeof(rt) / sizeof(rt[0])));
	tcase_add_test(tc, test_fields);
	tcase_add_test(tc, test_escapes_decoded);
	tcase_add_test(tc, test_long_component);
	tcase_add_test(tc, test_format_raw_struct);
	tcase_add_test(tc, test_print);
	tcase_add_test(tc, test_copy);
	tcase_add_test(tc, test_mode_digits);
	tcase_add_test(tc, test_uid_limits);
	tcase_add_test(tc, test_blank_comment_header);
	suite_add_tcase(s, tc);

	tc = tcase_create("table");
	tcase_add_loop_test(tc, test_type_counts, 0,
	    (int)(sizeof(types) / sizeof(types[0])));
	tcase_add_loop_test(tc, test_format_every_type, 0,
	    (int)(sizeof(types) / sizeof(types[0])));
	tcase_add_test(tc, test_keyonly);
	tcase_add_test(tc, test_raw);
	tcase_add_test(tc, test_rewrite);
	suite_add_tcase(s, tc);

	tc = tcase_create("malformed");
	tcase_add_loop_test(tc, test_malformed, 0,
	    (int)(sizeof(bad) / sizeof(bad[0])));
	tcase_add_test(tc, test_line_too_long);
	tcase_add_test(tc, test_path_too_long);
	suite_add_tcase(s, tc);

	tc = tcase_create("reader");
	tcase_add_checked_fixture(tc, tdir_setup, tdir_teardown);
	tcase_add_test(tc, test_reader_basic);
	tcase_add_test(tc, test_reader_eof_without_newline);
	tcase_add_test(tc, test_reader_order_errors);
	tcase_add_test(tc, test_reader_decoded_order_ok);
	tcase_add_test(tc, test_reader_nul_byte);
	tcase_add_test(tc, test_reader_cksum);
	tcase_add_test(tc, test_reader_icase);
	tcase_add_test(tc, test_reader_nosort_headers);
	tcase_add_test(tc, test_reader_open_errors);
	tcase_add_test(tc, test_reader_fdopen_keep);
	tcase_add_test(tc, test_reader_comments_raw);
	tcase_add_test(tc, test_reader_addlf_keyonly);
	tcase_add_test(tc, test_reader_take_order);
	tcase_add_test(tc, test_reader_goes_on);
	tcase_add_test(tc, test_reader_line_limit);
	suite_add_tcase(s, tc);

	tc = tcase_create("merge");
	tcase_add_checked_fixture(tc, tdir_setup, tdir_teardown);
	tcase_add_test(tc, test_restyle);
	tcase_add_test(tc, test_merge_precedence);
	tcase_add_test(tc, test_merge_winner_fields);
	tcase_add_test(tc, test_merge_peek);
	tcase_add_test(tc, test_merge_skip);
	tcase_add_test(tc, test_merge_restyle);
	tcase_add_test(tc, test_merge_icase);
	tcase_add_test(tc, test_merge_error);
	tcase_add_test(tc, test_merge_empty);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(transcript_suite());
}
