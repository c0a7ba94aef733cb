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

struct snode_link {
	struct snode_link *next;
	struct snode_link_info info;
};

struct snode_node {
	struct snode_node *next;
	struct snode_node_info info;
};

struct snode_window {
	struct snode_window *next;
	struct snode_window_info info;
};

/* A context's netlink state: the request socket and the event socket. */
struct snode_nl {
	struct nl_sock *sk;
	int family;
	struct snode_link *links;
	struct snode_node *nodes;
	struct snode_window *windows;
	struct nl_sock *ev_sk;
	struct nl_cb *ev_cb;
	snode_event_fn ev_fn;
	void *ev_arg;
	int ev_count;		/* events handled by this snode_event_process() */
	int ev_stop;		/* non-zero return of ev_fn */
};

struct snode_nl *snode_nl_get(struct snode_ctx *ctx, int *err);
int snode_nl_errno(int nlerr);
void snode_nl_parse_link_info(struct nlattr **tb, struct snode_link_info *li);

static inline uint32_t snode_nl_u32(struct nlattr **tb, int attr,
				    uint32_t dflt)
{
	return tb[attr] ? nla_get_u32(tb[attr]) : dflt;
}

static inline uint64_t snode_nl_u64(struct nlattr **tb, int attr)
{
	return tb[attr] ? nla_get_u64(tb[attr]) : 0;
}

static inline void snode_nl_str(struct nlattr **tb, int attr, char *buf,
				size_t len)
{
	buf[0] = '\0';
	if (tb[attr])
		nla_strlcpy(buf, tb[attr], len);
}

#endif /* LIBSNODE_NL_H */
