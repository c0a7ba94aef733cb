/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libsnode netlink internals shared by nl.c and nl-event.c.
 */
#ifndef LIBSNODE_NL_H
#define LIBSNODE_NL_H

#include <netlink/attr.h>
#include <netlink/handlers.h>
#include <netlink/socket.h>

#include "private.h"

/* A context's netlink state: the request socket and the event socket. */
struct lsn_nl {
	struct nl_sock *sk;	/* requests, under ctx->lock */
	int family;
	struct nl_sock *ev_sk;	/* events: one caller at a time */
	struct nl_cb *ev_cb;
	snode_event_fn ev_fn;
	void *ev_arg;
	struct snode_event *ev;	/* at max(caller's size, ours) */
	size_t ev_size;		/* the caller's */
	int ev_count;		/* events handled by this snode_event_process() */
	int ev_stop;		/* non-zero return of ev_fn */
};

LSN_HIDDEN struct lsn_nl *lsn_nl_get(struct snode_ctx *ctx, int *err);
LSN_HIDDEN int lsn_nl_errno(int nlerr);
LSN_HIDDEN void lsn_nl_parse_link_info(struct nlattr **tb, struct snode_link_info *li);
LSN_HIDDEN void lsn_nl_parse_node_info(struct nlattr **tb, struct snode_node_info *ni);

static inline uint32_t lsn_nl_u32(struct nlattr **tb, int attr,
				    uint32_t dflt)
{
	return tb[attr] ? nla_get_u32(tb[attr]) : dflt;
}

static inline uint64_t lsn_nl_u64(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u64(tb[attr]) : 0;
}

static inline void lsn_nl_str(struct nlattr **tb, int attr, char *buf,
				size_t len)
{
	buf[0] = '\0';
	if (tb[attr])
		nla_strlcpy(buf, tb[attr], len);
}

#endif /* LIBSNODE_NL_H */
