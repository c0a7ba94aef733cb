// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libsnode netlink events: the "events" multicast group of the snode
 * family, on a socket of its own whose descriptor the caller polls.
 */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "nl.h"

/* Room for a burst: a node death notifies every NIC of every node. */
#define SNODE_EV_RCVBUF		(4 << 20)

static int lsn_ev_valid(struct nl_msg *msg, void *arg)
{
	struct snode_ctx *ctx = arg;
	struct lsn_nl *nl = ctx->nl;
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct genlmsghdr *gnlh = nlmsg_data(nlh);
	struct nlattr *tb[SNODE_A_EVENT_MAX + 1];
	struct snode_event *ev = nl->ev;
	int ret;

	if (nlh->nlmsg_type != nl->family)
		return NL_SKIP;
	if (genlmsg_parse(nlh, 0, tb, SNODE_A_EVENT_MAX, NULL) < 0)
		return NL_SKIP;

	/* zero at the caller's size too: fields it knows and we do not */
	memset(ev, 0, nl->ev_size > sizeof(*ev) ? nl->ev_size : sizeof(*ev));
	ev->type = gnlh->cmd;
	ev->dev_index = lsn_nl_u32(tb, SNODE_A_EVENT_DEV_INDEX, 0);
	lsn_nl_str(tb, SNODE_A_EVENT_DEV_NAME, ev->dev_name,
		   sizeof(ev->dev_name));
	ev->timestamp = lsn_nl_u64(tb, SNODE_A_EVENT_TIMESTAMP);
	ev->hw_timestamp = lsn_nl_u64(tb, SNODE_A_EVENT_HW_TIMESTAMP);
	ev->suppressed = lsn_nl_u32(tb, SNODE_A_EVENT_SUPPRESSED, 0);

	switch (ev->type) {
	case SNODE_NL_CMD_LINK_STATE_NTF:
	case SNODE_NL_CMD_LINK_BER_NTF:
	case SNODE_NL_CMD_LINK_ISOLATION_NTF:
	case SNODE_NL_CMD_LINK_UTIL_NTF:
		if (tb[SNODE_A_EVENT_LINK]) {
			struct nlattr *lt[SNODE_A_LINK_MAX + 1];

			if (nla_parse_nested(lt, SNODE_A_LINK_MAX,
					     tb[SNODE_A_EVENT_LINK], NULL) < 0)
				return NL_SKIP;
			lsn_nl_parse_link_info(lt, &ev->link);
		}
		ev->link.dev_index = ev->dev_index;
		memcpy(ev->link.dev_name, ev->dev_name, sizeof(ev->dev_name));
		break;
	case SNODE_NL_CMD_NODE_STATE_NTF:
		ev->node.route_port = SNODE_NONE;
		ev->node.prev_route_port = SNODE_NONE;
		if (tb[SNODE_A_EVENT_NODE]) {
			struct nlattr *nt[SNODE_A_NODE_MAX + 1];
			struct snode_node_info ni;

			if (nla_parse_nested(nt, SNODE_A_NODE_MAX,
					     tb[SNODE_A_EVENT_NODE], NULL) < 0)
				return NL_SKIP;
			lsn_nl_parse_node_info(nt, &ni);
			ev->node.id = ni.id;
			ev->node.state = ni.state;
			ev->node.route_port = ni.route_port;
			ev->node.topo = ni.topo;
			ev->node.hops = ni.hops;
			ev->node.switch_id = ni.switch_id;
			ev->node.plane = ni.plane;
			ev->node.rack = ni.rack;
			memcpy(ev->node.switch_name, ni.switch_name,
			       sizeof(ev->node.switch_name));
			memcpy(ev->node.rack_name, ni.rack_name,
			       sizeof(ev->node.rack_name));
			ev->node.prev_state =
				lsn_nl_u32(nt, SNODE_A_NODE_PREV_STATE, 0);
			ev->node.prev_route_port =
				lsn_nl_u32(nt, SNODE_A_NODE_PREV_ROUTE_PORT,
					   SNODE_NONE);
		}
		break;
	case SNODE_NL_CMD_WINDOW_REVOKED_NTF:
		if (tb[SNODE_A_EVENT_WINDOW]) {
			struct nlattr *wt[SNODE_A_WINDOW_MAX + 1];

			if (nla_parse_nested(wt, SNODE_A_WINDOW_MAX,
					     tb[SNODE_A_EVENT_WINDOW], NULL) < 0)
				return NL_SKIP;
			ev->window.att_index =
				lsn_nl_u32(wt, SNODE_A_WINDOW_INDEX, 0);
			ev->window.node = lsn_nl_u32(wt, SNODE_A_WINDOW_NODE, 0);
			ev->window.export_id =
				lsn_nl_u32(wt, SNODE_A_WINDOW_EXPORT_ID, 0);
			ev->window.epoch = lsn_nl_u32(wt, SNODE_A_WINDOW_EPOCH, 0);
			ev->window.reason =
				lsn_nl_u32(wt, SNODE_A_WINDOW_REVOKE_REASON, 0);
		}
		break;
	case SNODE_NL_CMD_ACCESS_VIOLATION_NTF:
		ev->access.offset = lsn_nl_u64(tb, SNODE_A_EVENT_ACCESS_OFFSET);
		ev->access.write = !!tb[SNODE_A_EVENT_ACCESS_WRITE];
		break;
	case SNODE_NL_CMD_THERMAL_NTF:
		if (tb[SNODE_A_EVENT_TEMP])
			ev->thermal.temp =
				(int32_t)nla_get_u32(tb[SNODE_A_EVENT_TEMP]);
		ev->thermal.power = lsn_nl_u32(tb, SNODE_A_EVENT_POWER, 0);
		ev->thermal.alarm = lsn_nl_u32(tb, SNODE_A_EVENT_THERMAL_ALARM,
					       0);
		break;
	default:
		break;	/* a newer kernel's event: the common part only */
	}

	nl->ev_count++;
	ret = nl->ev_fn(ctx, ev, nl->ev_arg);
	if (ret) {
		nl->ev_stop = ret;
		return NL_STOP;
	}
	return NL_OK;
}

/* Notifications carry no sequence number of ours. */
static int lsn_ev_seq(struct nl_msg *msg, void *arg)
{
	return NL_OK;
}

SNODE_EXPORT int snode_event_subscribe(struct snode_ctx *ctx,
				       snode_event_fn fn, void *arg,
				       size_t ev_size)
{
	struct lsn_nl *nl;
	int ret = 0, grp;

	if (!fn || ev_size < offsetof(struct snode_event, link) ||
	    ev_size > 65536)
		return -EINVAL;
	pthread_mutex_lock(&ctx->lock);
	nl = lsn_nl_get(ctx, &ret);
	if (!nl) {
		pthread_mutex_unlock(&ctx->lock);
		return ret;
	}
	if (nl->ev_sk) {
		pthread_mutex_unlock(&ctx->lock);
		return -EBUSY;
	}
	grp = genl_ctrl_resolve_grp(nl->sk, SNODE_FAMILY_NAME,
				    SNODE_MCGRP_EVENTS);
	pthread_mutex_unlock(&ctx->lock);
	if (grp < 0)
		return lsn_nl_errno(grp);

	nl->ev_sk = nl_socket_alloc();
	nl->ev_cb = nl_cb_alloc(NL_CB_DEFAULT);
	nl->ev = calloc(1, ev_size > sizeof(*nl->ev) ? ev_size :
						       sizeof(*nl->ev));
	nl->ev_size = ev_size;
	if (!nl->ev_sk || !nl->ev_cb || !nl->ev) {
		ret = -ENOMEM;
		goto err;
	}
	ret = genl_connect(nl->ev_sk);
	if (ret < 0)
		goto err_nl;
	nl_socket_enable_msg_peek(nl->ev_sk);
	nl_socket_set_buffer_size(nl->ev_sk, SNODE_EV_RCVBUF, 0);
	ret = nl_socket_add_membership(nl->ev_sk, grp);
	if (ret < 0)
		goto err_nl;
	ret = nl_socket_set_nonblocking(nl->ev_sk);
	if (ret < 0)
		goto err_nl;
	nl_cb_set(nl->ev_cb, NL_CB_SEQ_CHECK, NL_CB_CUSTOM, lsn_ev_seq, NULL);
	nl_cb_set(nl->ev_cb, NL_CB_VALID, NL_CB_CUSTOM, lsn_ev_valid, ctx);
	nl->ev_fn = fn;
	nl->ev_arg = arg;
	return nl_socket_get_fd(nl->ev_sk);

err_nl:
	ret = lsn_nl_errno(ret);
err:
	snode_event_unsubscribe(ctx);
	return ret;
}

SNODE_EXPORT int snode_event_process(struct snode_ctx *ctx)
{
	struct lsn_nl *nl = ctx->nl;
	int ret, n = 0;

	if (!nl || !nl->ev_sk)
		return -EINVAL;
	nl->ev_count = 0;
	nl->ev_stop = 0;
	for (;;) {
		ret = nl_recvmsgs(nl->ev_sk, nl->ev_cb);
		if (nl->ev_stop)
			return nl->ev_stop;
		n = nl->ev_count;
		if (ret == -NLE_AGAIN)
			return n;
		/* the kernel dropped events: the socket's buffer overran */
		if (ret == -NLE_NOMEM)
			return -ENOBUFS;
		if (ret < 0) {
			lsn_dbg(ctx, "events: %s\n", nl_geterror(ret));
			return lsn_nl_errno(ret);
		}
	}
}

SNODE_EXPORT void snode_event_unsubscribe(struct snode_ctx *ctx)
{
	struct lsn_nl *nl = ctx->nl;

	if (!nl)
		return;
	if (nl->ev_sk)
		nl_socket_free(nl->ev_sk);
	if (nl->ev_cb)
		nl_cb_put(nl->ev_cb);
	free(nl->ev);
	nl->ev_sk = NULL;
	nl->ev_cb = NULL;
	nl->ev = NULL;
	nl->ev_fn = NULL;
}
