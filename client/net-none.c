/*
 * net-none.c: TEMPORARY stand-in for client/net.c, so that lapply links
 * before the network client library exists.  Every session fails to
 * open ("network not available"); lapply -n works fully.  Delete this
 * file (and its line in client/local.mk) when client/libclient.a lands.
 */
#include "config.h"

#include <stddef.h>

#include "cerr.h"
#include "net.h"

struct net *
net_open(const struct netopts *no, struct cerr *err)
{
	cerr_set(err, "%s: network not available", no->host);
	return NULL;
}

int
net_close(struct net *n, struct cerr *err)
{
	(void)n;
	(void)err;
	return 0;
}

void
net_stats(const struct net *n, struct netstats *ns)
{
	(void)n;
	ns->raw_out = ns->wire_out = ns->raw_in = ns->wire_in = 0;
	ns->level = 0;
}

int
net_has_cap(const struct net *n, const char *cap)
{
	(void)n;
	(void)cap;
	return 0;
}

int
net_send_stat(struct net *n, const char *kind, const char *name,
    struct cerr *err)
{
	(void)n;
	(void)kind;
	(void)name;
	cerr_set(err, "network not available");
	return -1;
}

int
net_stat_reply(struct net *n, char **line, struct cerr *err)
{
	(void)n;
	(void)line;
	cerr_set(err, "network not available");
	return -1;
}

int
net_send_retr(struct net *n, const char *kind, const char *tname,
    const char *epath, struct cerr *err)
{
	(void)n;
	(void)kind;
	(void)tname;
	(void)epath;
	cerr_set(err, "network not available");
	return -1;
}

int
net_retr_begin(struct net *n, int64_t *size, struct cerr *err)
{
	(void)n;
	(void)size;
	cerr_set(err, "network not available");
	return -1;
}

ssize_t
net_retr_read(struct net *n, void *buf, size_t len, struct cerr *err)
{
	(void)n;
	(void)buf;
	(void)len;
	cerr_set(err, "network not available");
	return -1;
}

int
net_retr_end(struct net *n, struct cerr *err)
{
	(void)n;
	cerr_set(err, "network not available");
	return -1;
}

int
net_report(struct net *n, const char *event, const char *msg,
    struct cerr *err)
{
	(void)n;
	(void)event;
	(void)msg;
	cerr_set(err, "network not available");
	return -1;
}
