/*
 * check_reqwin.c: the requests kept in flight on top of the download
 * routine (net/reqwin.c over one session, net/reqpool.c over several),
 * against a scripted server on 127.0.0.1 that answers every RETR with
 * the name it asked for as the body ("no..." names are refused, "big..."
 * ones are 100000 bytes).  The ops count what the window sends and
 * check every body against its item, so the bounds, the order and the
 * draining are seen from both ends.
 */
#include "config.h"

#include <sys/types.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cerr.h"
#include "compat.h"
#include "download.h"
#include "net.h"
#include "reqpool.h"
#include "reqwin.h"
#include "unit.h"
#include "unitsrv.h"

#define BIGSIZE		100000

static pid_t	 srv = -1;
static char	 port[16];

static void
srv_puts(int fd, const char *s)
{
	unit_send(fd, s, strlen(s));
}

/* Answer one request line of a session; 1 once the session ends. */
static int
srv_answer(int fd, char *line, void *arg)
{
	static char	 big[BIGSIZE];
	char		 hdr[64], *name;

	(void)arg;
	if (strncmp(line, "QUIT", 4) == 0) {
		srv_puts(fd, "201 QUIT OK\r\n");
		return 1;
	}
	if (strncmp(line, "RETR ", 5) != 0) {
		srv_puts(fd, "500 Command unrecognized\r\n");
		return 0;
	}
	name = strrchr(line, ' ') + 1;
	if (strncmp(name, "no", 2) == 0) {
		srv_puts(fd, "543 No such file\r\n");
		return 0;
	}
	srv_puts(fd, "240 Retrieving file\r\n");
	if (strncmp(name, "big", 3) == 0) {
		memset(big, 'x', sizeof(big));
		snprintf(hdr, sizeof(hdr), "%d\r\n", BIGSIZE);
		srv_puts(fd, hdr);
		unit_send(fd, big, sizeof(big));
	} else {
		snprintf(hdr, sizeof(hdr), "%zu\r\n", strlen(name));
		srv_puts(fd, hdr);
		srv_puts(fd, name);
	}
	srv_puts(fd, ".\r\n");
	return 0;
}

static void
setup(void)
{
	srv = unit_server(port, sizeof(port), 1, srv_answer, NULL);
}

static void
teardown(void)
{
	unit_server_stop(&srv);
}

static struct netopts	 no;

static struct net *
connect_srv(void)
{
	return unit_connect(port, &no);
}

/* One item: the name asked for, and what came back. */
struct item {
	char	 name[32];
	int	 rc;		/* of recv, -9 before */
	char	 got[32];
	void	*ctx;		/* recv's */
	int	 order;		/* recv's, from 1 */
};

/* The ops' books: sends and receives, in order. */
struct books {
	int		 sent, recvd, dropped;
	struct item	*last;
};

static int
t_send(void *arg, struct net *net, void *item, struct cerr *err)
{
	struct books	*b = arg;
	struct item	*it = item;

	__atomic_add_fetch(&b->sent, 1, __ATOMIC_SEQ_CST);
	return net_send_retr(net, "FILE", "t.T", it->name, err);
}

static int
t_recv(void *arg, struct net *net, void *item, void *ctx, struct cerr *err)
{
	struct books	*b = arg;
	struct item	*it = item;
	char		 buf[4096];
	int64_t		 size;
	size_t		 have = 0, room, k;
	ssize_t		 n;
	int		 rc;

	it->ctx = ctx;
	if ((rc = net_retr_begin(net, &size, err)) != 0)
		return it->rc = rc == 1 ? DL_SERVER : DL_DEAD;
	while ((n = net_retr_read(net, buf, sizeof(buf), err)) > 0) {
		room = sizeof(it->got) - 1 - have;
		k = (size_t)n < room ? (size_t)n : room;
		memcpy(it->got + have, buf, k);
		have += k;
	}
	if (n == -1 || net_retr_end(net, err) == -1)
		return it->rc = DL_DEAD;
	it->got[have] = '\0';
	/* Workers of a pool count at once. */
	__atomic_add_fetch(&b->recvd, 1, __ATOMIC_SEQ_CST);
	return it->rc = DL_OK;
}

static void
t_drop(void *arg, void *item)
{
	struct books	*b = arg;

	(void)item;
	b->dropped++;
}

static const struct reqwin_ops t_ops = { t_send, t_recv, t_drop };

static void
items_init(struct item *v, size_t n, const char *prefix)
{
	size_t	i;

	memset(v, 0, n * sizeof(*v));
	for (i = 0; i < n; i++) {
		snprintf(v[i].name, sizeof(v[i].name), "%s%zu", prefix, i);
		v[i].rc = -9;
	}
}

START_TEST(window_count_bound)
{
	struct books	 b = { 0 };
	struct item	 v[10];
	struct reqwin	*w;
	struct cerr	 err;
	struct net	*net = connect_srv();
	size_t		 i;

	items_init(v, 10, "f");
	w = reqwin_new(net, 3, REQWIN_MAXBYTES, &t_ops, &b);
	for (i = 0; i < 10; i++)
		reqwin_add(w, &v[i], 20);
	ck_assert_int_eq(reqwin_fill(w, &err), 0);
	ck_assert_int_eq(b.sent, 3);
	ck_assert_uint_eq(reqwin_inflight(w), 3);
	ck_assert_uint_eq(reqwin_count(w), 10);
	/* Full: filling again sends nothing. */
	ck_assert_int_eq(reqwin_fill(w, &err), 0);
	ck_assert_int_eq(b.sent, 3);
	ck_assert_ptr_eq(reqwin_next(w), &v[0]);
	ck_assert_int_eq(reqwin_recv(w, NULL, &err), DL_OK);
	ck_assert_str_eq(v[0].got, "f0");
	ck_assert_int_eq(reqwin_fill(w, &err), 0);
	ck_assert_int_eq(b.sent, 4);
	/* Every reply in request order. */
	for (i = 1; i < 10; i++) {
		ck_assert_int_eq(reqwin_fill(w, &err), 0);
		ck_assert_uint_le(reqwin_inflight(w), 3);
		ck_assert_ptr_eq(reqwin_next(w), &v[i]);
		ck_assert_int_eq(reqwin_recv(w, NULL, &err), DL_OK);
		ck_assert_str_eq(v[i].got, v[i].name);
	}
	ck_assert_int_eq(b.sent, 10);
	ck_assert_ptr_null(reqwin_next(w));
	/* Nothing due: an error, not a read that would hang. */
	ck_assert_int_eq(reqwin_recv(w, NULL, &err), DL_DEAD);
	reqwin_free(w);
	ck_assert_int_eq(b.dropped, 0);
	ck_assert_int_eq(net_close(net, &err), 0);
}
END_TEST

START_TEST(window_byte_bound)
{
	struct books	 b = { 0 };
	struct item	 v[4];
	struct reqwin	*w;
	struct cerr	 err;
	struct net	*net = connect_srv();

	items_init(v, 4, "g");
	w = reqwin_new(net, 100, 64, &t_ops, &b);
	reqwin_add(w, &v[0], 30);
	reqwin_add(w, &v[1], 30);
	reqwin_add(w, &v[2], 30);
	ck_assert_int_eq(reqwin_fill(w, &err), 0);
	/* 60 bytes in flight: 30 more would pass 64. */
	ck_assert_int_eq(b.sent, 2);
	ck_assert_int_eq(reqwin_recvall(w, NULL, &err), 0);
	ck_assert_int_eq(b.recvd, 2);
	/* One larger than the bound still goes, alone. */
	reqwin_add(w, &v[3], 100);
	ck_assert_int_eq(reqwin_fill(w, &err), 0);
	ck_assert_int_eq(b.sent, 3);
	ck_assert_ptr_eq(reqwin_next(w), &v[2]);
	ck_assert_int_eq(reqwin_recv(w, NULL, &err), DL_OK);
	ck_assert_int_eq(reqwin_fill(w, &err), 0);
	ck_assert_int_eq(b.sent, 4);
	ck_assert_int_eq(reqwin_recvall(w, NULL, &err), 0);
	ck_assert_str_eq(v[3].got, "g3");
	reqwin_free(w);
	ck_assert_int_eq(net_close(net, &err), 0);
}
END_TEST

START_TEST(window_push_and_fetch)
{
	struct books	 b = { 0 };
	struct item	 v[6];
	struct reqwin	*w;
	struct cerr	 err;
	struct net	*net = connect_srv();
	size_t		 i;
	int		 ctx;

	items_init(v, 6, "p");
	w = reqwin_new(net, 2, REQWIN_MAXBYTES, &t_ops, &b);
	/* push makes room by receiving the oldest first. */
	for (i = 0; i < 5; i++) {
		ck_assert_int_eq(reqwin_push(w, &v[i], 20, &ctx, &err), 0);
		ck_assert_uint_le(reqwin_inflight(w), 2);
	}
	ck_assert_int_eq(b.sent, 5);
	ck_assert_int_eq(b.recvd, 3);
	ck_assert_ptr_eq(v[2].ctx, &ctx);
	ck_assert_int_eq(v[3].rc, -9);
	/* fetch: every reply up to its own. */
	ck_assert_int_eq(reqwin_fetch(w, &v[5], 20, &ctx, &err), DL_OK);
	ck_assert_uint_eq(reqwin_count(w), 0);
	for (i = 0; i < 6; i++)
		ck_assert_str_eq(v[i].got, v[i].name);
	reqwin_free(w);
	ck_assert_int_eq(net_close(net, &err), 0);
}
END_TEST

START_TEST(window_drain)
{
	struct books	 b = { 0 };
	struct item	 v[5], after;
	struct reqwin	*w;
	struct cerr	 err;
	struct net	*net = connect_srv();

	items_init(v, 5, "d");
	strlcpy(v[1].name, "no-such", sizeof(v[1].name));
	strlcpy(v[2].name, "big", sizeof(v[2].name));
	w = reqwin_new(net, 3, REQWIN_MAXBYTES, &t_ops, &b);
	for (int i = 0; i < 5; i++)
		reqwin_add(w, &v[i], 20);
	ck_assert_int_eq(reqwin_fill(w, &err), 0);
	ck_assert_int_eq(reqwin_recv(w, NULL, &err), DL_OK);
	ck_assert_int_eq(reqwin_fill(w, &err), 0);
	ck_assert_uint_eq(reqwin_inflight(w), 3);
	/* A refusal, a large body and a small one: read and dropped. */
	ck_assert_int_eq(reqwin_drain(w, BIGSIZE + 10, &err), 0);
	ck_assert_uint_eq(reqwin_inflight(w), 0);
	ck_assert_int_eq(b.dropped, 3);
	ck_assert_int_eq(b.recvd, 1);
	/* The session is still in step: the queued one comes through. */
	ck_assert_int_eq(reqwin_fill(w, &err), 0);
	ck_assert_int_eq(reqwin_recv(w, NULL, &err), DL_OK);
	ck_assert_str_eq(v[4].got, "d4");
	/* A body over the budget is not read: the session is given up. */
	items_init(&after, 1, "big");
	reqwin_add(w, &after, 20);
	ck_assert_int_eq(reqwin_fill(w, &err), 0);
	ck_assert_int_eq(reqwin_drain(w, 1000, &err), -1);
	ck_assert_msg(strstr(err.msg, "not draining a 100000 byte reply") !=
	    NULL, "%s", err.msg);
	reqwin_free(w);
	net_abort(net);
}
END_TEST

START_TEST(window_free_drops)
{
	struct books	 b = { 0 };
	struct item	 v[4];
	struct reqwin	*w;
	struct cerr	 err;
	struct net	*net = connect_srv();

	items_init(v, 4, "x");
	w = reqwin_new(net, 2, REQWIN_MAXBYTES, &t_ops, &b);
	for (int i = 0; i < 4; i++)
		reqwin_add(w, &v[i], 20);
	ck_assert_int_eq(reqwin_fill(w, &err), 0);
	reqwin_free(w);
	ck_assert_int_eq(b.dropped, 4);
	net_abort(net);
}
END_TEST

/* A pool of n sessions over ctx[n], cap items at most. */
static struct reqpool *
pool_start(struct net *net, struct books *b, void **ctx, int n, size_t cap)
{
	struct reqpool_conf	 conf;
	struct reqpool		*p;
	struct cerr		 err;

	memset(&conf, 0, sizeof(conf));
	conf.n = n;
	conf.cap = cap;
	conf.inflight = 2;
	conf.ops = &t_ops;
	conf.arg = b;
	conf.ctx = ctx;
	ck_assert_int_eq(reqpool_start(&p, net, &no, &conf, &err), 0);
	return p;
}

START_TEST(pool_in_order)
{
	struct books	 b = { 0 };
	struct item	 v[40], mark;
	struct reqpool	*p;
	struct netstats	 ns;
	struct cerr	 err;
	struct net	*net = connect_srv();
	void		*order[41], *it;
	int		 c[3], i, rc, nq = 0, nt = 0;
	void		*ctx[3] = { &c[0], &c[1], &c[2] };

	items_init(v, 40, "j");
	p = pool_start(net, &b, ctx, 3, 16);
	for (i = 0; i < 40; i++) {
		/* Keep the queue within its cap: take back the oldest. */
		if (reqpool_count(p) == reqpool_cap(p)) {
			ck_assert_ptr_eq(reqpool_take(p, &rc, &err),
			    order[nt++]);
			ck_assert_int_eq(rc, DL_OK);
		}
		reqpool_add(p, &v[i], 20);
		order[nq++] = &v[i];
		if (i == 20) {
			/* A mark: in its turn, with no request. */
			if (reqpool_count(p) == reqpool_cap(p))
				ck_assert_ptr_eq(reqpool_take(p, &rc, &err),
				    order[nt++]);
			reqpool_mark(p, &mark);
			order[nq++] = &mark;
			ck_assert_ptr_eq(reqpool_item(p, reqpool_count(p) - 1),
			    &mark);
			ck_assert_ptr_eq(reqpool_item(p, 0), order[nt]);
		}
	}
	while ((it = reqpool_take(p, &rc, &err)) != NULL) {
		ck_assert_ptr_eq(it, order[nt++]);
		ck_assert_int_eq(rc, DL_OK);
	}
	ck_assert_int_eq(nt, 41);
	ck_assert_int_eq(b.sent, 40);
	ck_assert_int_eq(b.recvd, 40);
	/* Each received on one of the sessions, with that session's ctx. */
	for (i = 0; i < 40; i++) {
		ck_assert_str_eq(v[i].got, v[i].name);
		ck_assert(v[i].ctx == ctx[0] || v[i].ctx == ctx[1] ||
		    v[i].ctx == ctx[2]);
	}
	reqpool_stats(p, &ns);
	ck_assert_uint_gt(ns.wire_in, 0);
	ck_assert_int_eq(reqpool_stop(p), 0);
	ck_assert_ptr_null(reqpool_unqueue(p));
	reqpool_free(p, NULL);
	ck_assert_int_eq(net_close(net, &err), 0);
}
END_TEST

START_TEST(pool_cancel_after_failure)
{
	struct books	 b = { 0 };
	struct item	 v[35], after;
	struct reqpool	*p;
	struct reqwin	*w;
	struct cerr	 err;
	struct net	*net = connect_srv();
	int		 c[2], i, rc, failed = 0;
	void		*ctx[2] = { &c[0], &c[1] }, *it;

	items_init(v, 35, "k");
	strlcpy(v[5].name, "no-such", sizeof(v[5].name));
	strlcpy(v[8].name, "big", sizeof(v[8].name));
	p = pool_start(net, &b, ctx, 2, 64);
	for (i = 0; i < 30; i++)
		reqpool_add(p, &v[i], 20);
	for (i = 0; i < 35; i++) {
		it = reqpool_take(p, &rc, &err);
		/* Strictly in order, whatever finished first. */
		ck_assert_ptr_eq(it, &v[i]);
		if (i >= 30) {
			/* Queued after the cancel: never requested. */
			ck_assert_int_eq(rc, DL_DEAD);
			ck_assert_str_eq(err.msg, "cancelled");
			ck_assert_int_eq(v[i].rc, -9);
		} else if (failed) {
			/* Done before the cancel, or dropped unseen. */
			ck_assert(rc == DL_OK || rc == DL_DEAD);
			if (rc == DL_DEAD)
				ck_assert_str_eq(err.msg, "cancelled");
		} else if (i == 5) {
			ck_assert_int_eq(rc, DL_SERVER);
			failed = 1;
			reqpool_cancel(p);
			for (int k = 30; k < 35; k++)
				reqpool_add(p, &v[k], 20);
		} else {
			ck_assert_int_eq(rc, DL_OK);
			ck_assert_str_eq(v[i].got, v[i].name);
		}
	}
	ck_assert_ptr_null(reqpool_take(p, &rc, &err));
	/* Replies to cancelled requests were read: both sessions in step. */
	ck_assert_int_eq(reqpool_stop(p), 0);
	reqpool_free(p, NULL);
	items_init(&after, 1, "after");
	w = reqwin_new(net, 4, REQWIN_MAXBYTES, &t_ops, &b);
	ck_assert_int_eq(reqwin_fetch(w, &after, 20, NULL, &err), DL_OK);
	ck_assert_str_eq(after.got, "after0");
	reqwin_free(w);
	ck_assert_int_eq(net_close(net, &err), 0);
}
END_TEST

START_TEST(pool_stop_unqueues)
{
	struct books	 b = { 0 };
	struct item	 v[12];
	struct reqpool	*p;
	struct net	*net = connect_srv();
	struct cerr	 err;
	int		 c[2], i, rc;
	void		*ctx[2] = { &c[0], &c[1] };

	items_init(v, 12, "s");
	p = pool_start(net, &b, ctx, 2, 12);
	for (i = 0; i < 12; i++)
		reqpool_add(p, &v[i], 20);
	ck_assert_ptr_eq(reqpool_take(p, &rc, &err), &v[0]);
	ck_assert_int_eq(reqpool_stop(p), 0);
	/* Not taken back: handed out latest first. */
	for (i = 11; i >= 1; i--)
		ck_assert_ptr_eq(reqpool_unqueue(p), &v[i]);
	ck_assert_ptr_null(reqpool_unqueue(p));
	reqpool_free(p, NULL);
	ck_assert_int_eq(net_close(net, &err), 0);
}
END_TEST

static Suite *
reqwin_suite(void)
{
	Suite	*s = suite_create("reqwin");
	TCase	*tc = tcase_create("window");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, window_count_bound);
	tcase_add_test(tc, window_byte_bound);
	tcase_add_test(tc, window_push_and_fetch);
	tcase_add_test(tc, window_drain);
	tcase_add_test(tc, window_free_drops);
	suite_add_tcase(s, tc);
	tc = tcase_create("pool");
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, pool_in_order);
	tcase_add_test(tc, pool_cancel_after_failure);
	tcase_add_test(tc, pool_stop_unqueues);
	suite_add_tcase(s, tc);
	return s;
}

int
main(void)
{
	return unit_run(reqwin_suite());
}
