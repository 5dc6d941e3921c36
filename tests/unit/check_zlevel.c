/*
 * check_zlevel.c: the owner of the compression level (common/zlevel.c):
 * parsing a level argument, the server's grant (clamp, AUTO allowed or
 * not), what a client asks for, and starting, pinning and reading the
 * level of a live stream over a socketpair.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/socket.h>

#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "conn.h"
#include "zauto.h"
#include "zlevel.h"
#include "unit.h"

/* Parse s with flags: 0 and the level, or -1 and the message. */
static int
parse(const char *s, int flags, int *lv, char *msg)
{
	struct cerr	 err;
	int		 r;

	err.msg[0] = '\0';
	*lv = -99;
	r = zlevel_parse(ZLEVEL_ZLIB, s, flags, lv, &err);
	strcpy(msg, err.msg);
	return r;
}

START_TEST(test_parse)
{
	char	 msg[1024];
	int	 lv;

	ck_assert_int_eq(parse("0", 0, &lv, msg), 0);
	ck_assert_int_eq(lv, 0);
	ck_assert_int_eq(parse("9", 0, &lv, msg), 0);
	ck_assert_int_eq(lv, 9);
	ck_assert_int_eq(parse("10", 0, &lv, msg), -1);
	ck_assert_str_eq(msg, "10: invalid compression level");
	ck_assert_int_eq(parse("-1", 0, &lv, msg), -1);
	ck_assert_int_eq(parse("", 0, &lv, msg), -1);
	ck_assert_int_eq(parse("6x", 0, &lv, msg), -1);
	ck_assert_int_eq(parse("auto", 0, &lv, msg), -1);
	ck_assert_str_eq(msg, "auto: invalid compression level");
	ck_assert_int_eq(lv, -99);
}
END_TEST

START_TEST(test_parse_auto)
{
	char	 msg[1024];
	int	 lv;

	ck_assert_int_eq(parse("auto", ZLEVEL_ARG_AUTO, &lv, msg), 0);
	ck_assert_int_eq(lv, ZLEVEL_AUTO);
	ck_assert_int_eq(parse("3", ZLEVEL_ARG_AUTO, &lv, msg), 0);
	ck_assert_int_eq(lv, 3);
	/* Every client tool's -Z says it so (t-ktcheck-basic.sh). */
	ck_assert_int_eq(parse("10", ZLEVEL_ARG_AUTO, &lv, msg), -1);
	ck_assert_str_eq(msg,
	    "10: invalid compression level (0 to 9, or auto)");
	ck_assert_int_eq(parse("AUTO", ZLEVEL_ARG_AUTO, &lv, msg), -1);
}
END_TEST

START_TEST(test_parse_option)
{
	char	 msg[1024];
	int	 lv;

	/* cairnd -Z, worded as cairnd's other numeric options. */
	ck_assert_int_eq(parse("10", ZLEVEL_ARG_OPTION, &lv, msg), -1);
	ck_assert_str_eq(msg, "compression level 10: too large (0..9)");
	ck_assert_int_eq(parse("-1", ZLEVEL_ARG_OPTION, &lv, msg), -1);
	ck_assert_str_eq(msg, "compression level -1: too small (0..9)");
	ck_assert_int_eq(parse("x", ZLEVEL_ARG_OPTION, &lv, msg), -1);
	ck_assert_str_eq(msg, "compression level x: invalid (0..9)");
	ck_assert_int_eq(parse("0", ZLEVEL_ARG_OPTION, &lv, msg), 0);
	ck_assert_int_eq(lv, 0);
	/* cairnd -W: only levels that deflate. */
	ck_assert_int_eq(parse("0", ZLEVEL_ARG_DEFLATE, &lv, msg), -1);
	ck_assert_int_eq(parse("1", ZLEVEL_ARG_DEFLATE, &lv, msg), 0);
	ck_assert_int_eq(lv, 1);
}
END_TEST

START_TEST(test_check)
{
	struct cerr	 err;
	int		 lo, hi;

	zlevel_range(ZLEVEL_ZLIB, &lo, &hi);
	ck_assert_int_eq(lo, 0);
	ck_assert_int_eq(hi, 9);
	ck_assert_int_eq(zlevel_check(ZLEVEL_ZLIB, 0, &err), 0);
	ck_assert_int_eq(zlevel_check(ZLEVEL_ZLIB, 9, &err), 0);
	ck_assert_int_eq(zlevel_check(ZLEVEL_ZLIB, -1, &err), -1);
	ck_assert_int_eq(zlevel_check(ZLEVEL_ZLIB, 10, &err), -1);
	ck_assert_str_eq(err.msg, "10: invalid compression level");
	ck_assert_int_eq(zlevel_deflates(ZLEVEL_ZLIB, 0), 0);
	ck_assert_int_ne(zlevel_deflates(ZLEVEL_ZLIB, 1), 0);
	ck_assert_int_ne(zlevel_deflates(ZLEVEL_ZLIB, 9), 0);
	ck_assert_int_eq(zlevel_deflates(ZLEVEL_ZLIB, 10), 0);
	ck_assert_int_eq(zlevel_codec("ZLIB"), ZLEVEL_ZLIB);
	ck_assert_int_eq(zlevel_codec("zlib"), ZLEVEL_ZLIB);
	ck_assert_int_eq(zlevel_codec("GZIP"), -1);
	ck_assert_str_eq(zlevel_name(ZLEVEL_ZLIB), "ZLIB");
}
END_TEST

/* The server's grant of COMP ZLIB arg under limit {max, autook}. */
static void
grant(int max, int autook, const char *arg, int level, int zauto)
{
	struct zlevel_limit	 lim = { { max, 0 }, autook };
	struct zlevel		 zl;

	memset(&zl, 0xff, sizeof(zl));
	zlevel_grant(&lim, ZLEVEL_ZLIB, arg, &zl);
	ck_assert_msg(zl.level == level && zl.zauto == zauto &&
	    zl.codec == ZLEVEL_ZLIB, "max %d auto %d, COMP ZLIB %s: level "
	    "%d auto %d, not %d %d", max, autook, arg ? arg : "(none)",
	    zl.level, zl.zauto, level, zauto);
}

START_TEST(test_grant)
{
	struct zlevel_limit	 off = { { 0, 0 }, 1 }, fixed = { { 6, 0 }, 0 };
	struct zlevel_limit	 all = { { 6, 3 }, 1 };

	ck_assert_int_eq(zlevel_offered(&off, ZLEVEL_ZLIB), 0);
	ck_assert_int_eq(zlevel_offered_any(&off), 0);
	ck_assert_int_eq(zlevel_offered_auto(&off), 0);
	ck_assert_int_ne(zlevel_offered(&fixed, ZLEVEL_ZLIB), 0);
	ck_assert_int_eq(zlevel_offered(&fixed, ZLEVEL_ZSTD), 0);
	ck_assert_int_ne(zlevel_offered(&all, ZLEVEL_ZSTD), 0);
	ck_assert_int_eq(zlevel_offered_auto(&fixed), 0);
	ck_assert_int_ne(zlevel_offered_auto(&all), 0);

	/* No level: the maximum; a level: clamped to 1 .. maximum. */
	grant(6, 1, NULL, 6, 0);
	grant(6, 1, "3", 3, 0);
	grant(6, 1, "9", 6, 0);
	grant(6, 1, "0", 1, 0);
	grant(6, 1, "-5", 1, 0);
	grant(6, 1, "99999999999999999999", 6, 0);
	grant(6, 1, "4x", 4, 0);	/* atoi, as Radmind reads it */
	grant(6, 1, "x", 1, 0);
	/* AUTO where allowed: the automatic level up to the maximum. */
	grant(6, 1, "AUTO", 6, 1);
	grant(9, 1, "auto", 9, 1);
	/* -A fixed: AUTO is just a word that reads as 0. */
	grant(6, 0, "AUTO", 1, 0);
	grant(3, 0, NULL, 3, 0);
}
END_TEST

/*
 * COMP ZSTD AUTO leaves the codec to the server: zstd, unless the memo
 * of the peer's link says zlib's top level carries more (a slow link,
 * zstd capped low); never zlib where its automatic level is not
 * offered; COMP ZLIB AUTO stays zlib.
 */
START_TEST(test_choose)
{
	struct zlevel_limit	 lim = { { 9, 1 }, 1 };
	struct zauto_memo	 slow;
	struct zlevel		 zl;

	memset(&slow, 0, sizeof(slow));
	slow.link = 1e6;
	slow.linkknown = 1;
	slow.codec = ZAUTO_ZSTD;
	slow.level = 1;
	slow.speed1 = 300e6;
	slow.ratio1 = 0.3;
	zlevel_grant(&lim, ZLEVEL_ZSTD, "AUTO", &zl);
	zlevel_choose(&lim, NULL, &zl);
	ck_assert(zl.codec == ZLEVEL_ZSTD && zl.level == 1 && zl.zauto);
	zlevel_choose(&lim, &slow, &zl);
	ck_assert(zl.codec == ZLEVEL_ZLIB && zl.level == 9 && zl.zauto);
	/* zstd offered up to 3: as small as zlib's 9, and faster. */
	lim.max[ZLEVEL_ZSTD] = 3;
	zlevel_grant(&lim, ZLEVEL_ZSTD, "AUTO", &zl);
	zlevel_choose(&lim, &slow, &zl);
	ck_assert(zl.codec == ZLEVEL_ZSTD && zl.level == 3);
	/* -A fixed: no automatic level of zlib's to grant. */
	lim.max[ZLEVEL_ZSTD] = 1;
	lim.autook = 0;
	zlevel_grant(&lim, ZLEVEL_ZSTD, "AUTO", &zl);
	zlevel_choose(&lim, &slow, &zl);
	ck_assert(zl.codec == ZLEVEL_ZSTD && !zl.zauto);
	lim.autook = 1;
	zlevel_grant(&lim, ZLEVEL_ZLIB, "AUTO", &zl);
	zlevel_choose(&lim, NULL, &zl);
	ck_assert(zl.codec == ZLEVEL_ZLIB && zl.level == 9);
}
END_TEST

/* zstd: its row, COMP ZSTD granted, and a client's -Z zstd[:level]. */
START_TEST(test_zstd)
{
	struct zlevel_limit	 lim = { { 6, 3 }, 1 };
	struct zlevel		 zl;
	struct cerr		 err;
	enum zlevel_codec	 codec;
	int			 lo, hi, level;

	ck_assert_int_eq(zlevel_codec("zstd"), ZLEVEL_ZSTD);
	ck_assert_str_eq(zlevel_name(ZLEVEL_ZSTD), "ZSTD");
	ck_assert_str_eq(zlevel_label(ZLEVEL_ZSTD), "zstd");
	zlevel_range(ZLEVEL_ZSTD, &lo, &hi);
	ck_assert_int_eq(lo, 0);
	ck_assert_int_eq(hi, 19);
	ck_assert_int_eq(zlevel_default_max(ZLEVEL_ZSTD), 3);
	ck_assert_int_eq(zlevel_default_max(ZLEVEL_ZLIB), 0);

	/* Clamped to 1 .. the -Y maximum; AUTO: up to the maximum. */
	zlevel_grant(&lim, ZLEVEL_ZSTD, "9", &zl);
	ck_assert(zl.codec == ZLEVEL_ZSTD && zl.level == 3 && !zl.zauto);
	zlevel_grant(&lim, ZLEVEL_ZSTD, "0", &zl);
	ck_assert(zl.level == 1 && !zl.zauto);
	zlevel_grant(&lim, ZLEVEL_ZSTD, "auto", &zl);
	ck_assert(zl.codec == ZLEVEL_ZSTD && zl.level == 3 && zl.zauto);
	zlevel_grant(&lim, ZLEVEL_ZSTD, NULL, &zl);
	ck_assert(zl.level == 3 && !zl.zauto);
	/* A client's -Z auto of zstd: AUTO where the server has it. */
	zlevel_ask(ZLEVEL_ZSTD, 0, 1, 1, &zl);
	ck_assert(zl.codec == ZLEVEL_ZSTD && zl.zauto);
	zlevel_ask(ZLEVEL_ZSTD, 0, 1, 0, &zl);
	ck_assert(zl.level == 1 && !zl.zauto);

	ck_assert_int_eq(zlevel_parse_client("zstd", &codec, &level, &err), 0);
	ck_assert(codec == ZLEVEL_ZSTD && level == 3);
	ck_assert_int_eq(zlevel_parse_client("zstd:19", &codec, &level, &err),
	    0);
	ck_assert(codec == ZLEVEL_ZSTD && level == 19);
	ck_assert_int_eq(zlevel_parse_client("6", &codec, &level, &err), 0);
	ck_assert(codec == ZLEVEL_ZLIB && level == 6);
	ck_assert_int_eq(zlevel_parse_client("auto", &codec, &level, &err), 0);
	ck_assert(codec == ZLEVEL_ZLIB && level == ZLEVEL_AUTO);
	ck_assert_int_eq(zlevel_parse_client("zstd:0", &codec, &level, &err),
	    -1);
	ck_assert_str_eq(err.msg, "zstd:0: invalid zstd level (1 to 19)");
	ck_assert_int_eq(zlevel_parse_client("zstd:20", &codec, &level, &err),
	    -1);
	ck_assert_int_eq(zlevel_parse_client("zstd:", &codec, &level, &err),
	    -1);
	ck_assert_int_eq(zlevel_parse_client("zstdx", &codec, &level, &err),
	    -1);
	ck_assert_str_eq(err.msg,
	    "zstdx: invalid compression level (0 to 9, auto, zstd or zstd:1 "
	    "to 19)");
	ck_assert_int_eq(zlevel_parse_client("ZSTD:3", &codec, &level, &err),
	    -1);
	ck_assert_str_eq(err.msg,
	    "ZSTD:3: invalid compression level (0 to 9, auto, zstd or "
	    "zstd:1 to 19)");
	ck_assert_int_eq(zlevel_parse_client("ZSTD", &codec, &level, &err),
	    -1);
	/* cairnd -Y. */
	ck_assert_int_eq(zlevel_parse(ZLEVEL_ZSTD, "20", ZLEVEL_ARG_OPTION,
	    &level, &err), -1);
	ck_assert_str_eq(err.msg, "compression level 20: too large (0..19)");
}
END_TEST

/*
 * Built --without-zstd, zstd's row says so: no level but 0, offered by
 * no cairnd, -Z zstd refused naming the reason, cairnd -Y only 0.
 */
START_TEST(test_zstd_notbuilt)
{
	struct zlevel_limit	 lim = { { 6, 0 }, 1 };
	struct cerr		 err;
	enum zlevel_codec	 codec;
	int			 lo, hi, level;

	ck_assert(!zlevel_built(ZLEVEL_ZSTD));
	ck_assert(zlevel_built(ZLEVEL_ZLIB));
	ck_assert_int_eq(zlevel_codec("zstd"), ZLEVEL_ZSTD);
	zlevel_range(ZLEVEL_ZSTD, &lo, &hi);
	ck_assert(lo == 0 && hi == 0);
	ck_assert_int_eq(zlevel_default_max(ZLEVEL_ZSTD), 0);
	ck_assert(!zlevel_offered(&lim, ZLEVEL_ZSTD));
	ck_assert(zlevel_check(ZLEVEL_ZSTD, 3, NULL) == -1);

	ck_assert_int_eq(zlevel_parse_client("zstd:3", &codec, &level, &err),
	    -1);
	ck_assert_str_eq(err.msg,
	    "zstd:3: zstd is not built in (configured --without-zstd)");
	ck_assert_int_eq(zlevel_parse_client("zstd", &codec, &level, &err),
	    -1);
	ck_assert_str_eq(err.msg,
	    "zstd: zstd is not built in (configured --without-zstd)");
	ck_assert_int_eq(zlevel_parse_client("6", &codec, &level, &err), 0);
	ck_assert(codec == ZLEVEL_ZLIB && level == 6);
	/* cairnd -Y: 0 (not offered) is what this build does anyway. */
	ck_assert_int_eq(zlevel_parse(ZLEVEL_ZSTD, "0", ZLEVEL_ARG_OPTION,
	    &level, &err), 0);
	ck_assert_int_eq(level, 0);
	ck_assert_int_eq(zlevel_parse(ZLEVEL_ZSTD, "3", ZLEVEL_ARG_OPTION,
	    &level, &err), -1);
	ck_assert_str_eq(err.msg,
	    "3: zstd is not built in (configured --without-zstd)");
}
END_TEST

START_TEST(test_ask)
{
	struct zlevel	 zl;

	zlevel_ask(ZLEVEL_ZLIB, 6, 0, 1, &zl);
	ck_assert_int_eq(zl.level, 6);
	ck_assert_int_eq(zl.zauto, 0);
	zlevel_ask(ZLEVEL_ZLIB, 0, 1, 1, &zl);
	ck_assert_int_eq(zl.zauto, 1);
	/* A server without the automatic level: the fixed fallback. */
	zlevel_ask(ZLEVEL_ZLIB, 0, 1, 0, &zl);
	ck_assert_int_eq(zl.zauto, 0);
	ck_assert_int_eq(zl.level, 1);
	/* The cap the server names must be a level that deflates. */
	zlevel_ask(ZLEVEL_ZLIB, 0, 1, 1, &zl);
	ck_assert_int_eq(zlevel_cap(&zl, 0), -1);
	ck_assert_int_eq(zlevel_cap(&zl, 10), -1);
	ck_assert_int_eq(zlevel_cap(&zl, -1), -1);
	ck_assert_int_eq(zlevel_cap(&zl, 4294967297L), -1);
	ck_assert_int_eq(zlevel_cap(&zl, 9), 0);
	ck_assert_int_eq(zl.level, 9);
}
END_TEST

/* A connection over a socketpair (the peer end is never read). */
static struct conn *
live(int sv[2])
{
	ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sv), 0);
	return conn_new(sv[0], "peer");
}

START_TEST(test_pin_fixed)
{
	struct zlevel_limit	 lim = { { 6, 0 }, 1 };
	struct zlevel		 zl;
	struct conn		*c;
	struct cerr		 err;
	int			 sv[2], lo, hi;

	c = live(sv);
	/* No compression: nothing to pin, level 0. */
	zlevel_grant(&lim, ZLEVEL_ZLIB, "5", &zl);
	ck_assert_int_eq(zlevel_pin_stored(c, &zl, &err), 0);
	ck_assert_int_eq(zlevel_now(c), 0);
	ck_assert_int_eq(zlevel_start(c, &zl, 0, &err), 0);
	ck_assert_int_eq(zlevel_now(c), 5);
	zlevel_span(&zl, c, &lo, &hi);
	ck_assert_int_eq(lo, 5);
	ck_assert_int_eq(hi, 5);
	ck_assert_int_eq(conn_printf(c, &err, "before\r\n"), 0);
	ck_assert_int_eq(zlevel_pin_stored(c, &zl, &err), 0);
	ck_assert_int_eq(zlevel_now(c), 0);
	ck_assert_int_eq(conn_printf(c, &err, "stored\r\n"), 0);
	ck_assert_int_eq(zlevel_unpin(c, &err), 0);
	ck_assert_int_eq(zlevel_now(c), 5);
	ck_assert_int_eq(conn_flush(c, &err), 0);
	conn_free(c);
	close(sv[1]);
}
END_TEST

START_TEST(test_pin_auto)
{
	struct zlevel_limit	 lim = { { 3, 0 }, 1 };
	struct zlevel		 zl;
	struct conn		*c;
	struct cerr		 err;
	int			 sv[2], lo, hi;

	c = live(sv);
	zlevel_grant(&lim, ZLEVEL_ZLIB, "AUTO", &zl);
	ck_assert_int_eq(zlevel_start(c, &zl, 0, &err), 0);
	/* The automatic level starts at 0, below its cap. */
	ck_assert_int_eq(zlevel_now(c), 0);
	zlevel_span(&zl, c, &lo, &hi);
	ck_assert_int_eq(lo, 1);
	ck_assert_int_eq(hi, 3);
	ck_assert_int_eq(zlevel_pin_stored(c, &zl, &err), 0);
	ck_assert_int_eq(zlevel_now(c), 0);
	ck_assert_int_eq(zlevel_unpin(c, &err), 0);
	ck_assert_int_eq(zlevel_now(c), 0);
	conn_free(c);
	close(sv[1]);
}
END_TEST

static Suite *
zlevel_suite(void)
{
	Suite	*s = suite_create("zlevel");
	TCase	*tc;

	tc = tcase_create("parse");
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_parse_auto);
	tcase_add_test(tc, test_parse_option);
	tcase_add_test(tc, test_check);
	suite_add_tcase(s, tc);

	tc = tcase_create("negotiate");
	tcase_add_test(tc, test_grant);
	/* One or the other, as the build has zstd or not. */
	if (zlevel_built(ZLEVEL_ZSTD)) {
		tcase_add_test(tc, test_zstd);
		tcase_add_test(tc, test_choose);
	} else
		tcase_add_test(tc, test_zstd_notbuilt);
	tcase_add_test(tc, test_ask);
	suite_add_tcase(s, tc);

	tc = tcase_create("stream");
	tcase_add_test(tc, test_pin_fixed);
	tcase_add_test(tc, test_pin_auto);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(zlevel_suite());
}
