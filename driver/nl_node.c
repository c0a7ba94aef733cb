// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the "snode" generic-netlink family: fabric nodes (node-get) and
 * their notifications.
 */

#include <linux/jiffies.h>
#include <linux/netlink.h>
#include <net/genetlink.h>

#include <linux/snode.h>

#include "link.h"
#include "netlink.h"
#include "snode.h"

/**
 * DOC: Netlink: fabric nodes
 *
 * node-get of the "snode" family, from the node table the NIC reports
 * (NODE_TOPO), and the node-state notifications that link_node.c raises.
 */

/*
 * Where the route to a node goes (decision 0030): ids and the fabric's
 * names; only what the NIC reported, and a name only for an id it named.
 */
static int __snode_nl_put_node_topo(struct sk_buff *skb,
				    struct snode_link *link,
				    const struct snode_link_node *ln)
{
	const char *sw_name = NULL, *rack_name = NULL;

	lockdep_assert_held(&link->lock);
	if (ln->sw != SNODE_TOPO_NONE16)
		sw_name = __snode_link_topo_name(link, SNODE_TOPO_SWITCHES,
						 ln->sw, NULL);
	if (ln->rack != SNODE_TOPO_NONE16)
		rack_name = __snode_link_topo_name(link, SNODE_TOPO_RACKS,
						   ln->rack, NULL);
	if ((ln->hops && nla_put_u32(skb, SNODE_A_NODE_HOPS, ln->hops)) ||
	    (ln->sw != SNODE_TOPO_NONE16 &&
	     nla_put_u32(skb, SNODE_A_NODE_SWITCH, ln->sw)) ||
	    (sw_name && nla_put_string(skb, SNODE_A_NODE_SWITCH_NAME, sw_name)) ||
	    (ln->plane != SNODE_TOPO_NO_PLANE &&
	     nla_put_u32(skb, SNODE_A_NODE_PLANE, ln->plane)) ||
	    (ln->rack != SNODE_TOPO_NONE16 &&
	     nla_put_u32(skb, SNODE_A_NODE_RACK, ln->rack)) ||
	    (rack_name && nla_put_string(skb, SNODE_A_NODE_RACK_NAME, rack_name)))
		return -EMSGSIZE;
	return 0;
}

/* Context: &snode_link.lock of @sdev held (for the names). */
static int snode_nl_node_fill(struct sk_buff *skb, struct snode_dev *sdev,
			      u32 id, const struct snode_link_node *ln,
			      u32 portid, u32 seq, int flags,
			      struct netlink_callback *cb)
{
	bool full;
	void *hdr;

	hdr = snode_nl_msg_put(skb, portid, seq, flags, SNODE_NL_CMD_NODE_GET,
			       cb);
	if (!hdr)
		return -EMSGSIZE;
	full = nla_put_u32(skb, SNODE_A_NODE_DEV_INDEX, sdev->index) ||
	       nla_put_u32(skb, SNODE_A_NODE_ID, id) ||
	       nla_put_u32(skb, SNODE_A_NODE_STATE, ln->state) ||
	       (ln->route != SNODE_LINK_NO_ROUTE &&
		nla_put_u32(skb, SNODE_A_NODE_ROUTE_PORT, ln->route)) ||
	       __snode_nl_put_node_topo(skb, sdev->link, ln);
	return snode_nl_msg_end(skb, hdr, full);
}

/*
 * Read @nd's node table from the NIC (NODE_TOPO, a 512 KiB answer) for the
 * sender of @req. A reader without CAP_NET_ADMIN gets the table as the
 * driver keeps it (events update it) if it was read less than
 * SNODE_NL_USER_CACHE ago for such a reader.
 */
static int snode_nl_nodes_refresh(struct snode_nl_dev *nd,
				  const struct sk_buff *req)
{
	int locked, ret = 0;

	locked = snode_nl_user_begin(nd, req);
	if (locked < 0)
		return locked;
	if (!locked || !nd->nodes_at ||
	    time_after_eq(jiffies, nd->nodes_at + SNODE_NL_USER_CACHE)) {
		ret = snode_link_nodes_refresh(nd->sdev);
		if (!ret && locked)
			nd->nodes_at = jiffies ?: 1;
	}
	snode_nl_user_end(nd, locked);
	return ret;
}

int snode_nl_node_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct snode_link_node ln;
	struct snode_link *link;
	struct snode_nl_dev *nd;
	struct snode_dev *sdev;
	struct sk_buff *msg;
	u32 id;
	int ret;

	nd = snode_nl_get_begin(skb, info, SNODE_A_NODE_DEV_INDEX, &msg);
	if (IS_ERR(nd))
		return PTR_ERR(nd);
	sdev = nd->sdev;
	link = sdev->link;
	ret = -EINVAL;
	if (GENL_REQ_ATTR_CHECK(info, SNODE_A_NODE_ID))
		goto out;
	id = nla_get_u32(info->attrs[SNODE_A_NODE_ID]);
	if (id >= link->max_nodes) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[SNODE_A_NODE_ID],
				    "node id out of range of the fabric");
		ret = -ENOENT;
		goto out;
	}
	ret = snode_nl_nodes_refresh(nd, skb);
	if (ret)
		goto out;
	mutex_lock(&link->lock);
	ln = link->nodes[id];
	ret = snode_nl_node_fill(msg, sdev, id, &ln, info->snd_portid,
				 info->snd_seq, 0, NULL);
	mutex_unlock(&link->lock);
out:
	return snode_nl_get_end(nd, msg, info, ret);
}

static unsigned int snode_nl_node_gen_get(unsigned long last,
					  const void *arg)
{
	return atomic_read(&snode_nl_node_gen);
}

/* The nodes one NIC knows in a dump, from ctx->pos on. */
static int snode_nl_node_dump_one(struct sk_buff *skb,
				  struct netlink_callback *cb,
				  struct snode_nl_dev *nd, const void *arg)
{
	struct snode_nl_dump_ctx *ctx = snode_nl_dump_ctx(cb);
	struct snode_dev *sdev = nd->sdev;
	struct snode_link *link = sdev->link;
	int ret = 0;

	if (!ctx->refreshed) {
		/* the NIC is the source; a NIC being reset: the cache */
		snode_nl_nodes_refresh(nd, cb->skb);
		ctx->refreshed = true;
		cb->seq = atomic_read(&snode_nl_node_gen);
	}
	mutex_lock(&link->lock);
	for (; ctx->pos < link->max_nodes; ctx->pos++) {
		const struct snode_link_node *ln = &link->nodes[ctx->pos];

		if (ln->state == SNODE_NODE_STATE_UNKNOWN)
			continue;
		ret = snode_nl_node_fill(skb, sdev, ctx->pos, ln,
					 NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI, cb);
		if (ret)
			break;
	}
	mutex_unlock(&link->lock);
	if (!ret)
		ctx->refreshed = false;
	return ret;
}

int snode_nl_node_get_dumpit(struct sk_buff *skb,
			     struct netlink_callback *cb)
{
	return snode_nl_dumpit(skb, cb, SNODE_A_NODE_DEV_INDEX,
			       snode_nl_node_gen_get, snode_nl_node_dump_one,
			       NULL);
}

/**
 * snode_nl_node_ntf() - notify a node's new state or route
 * @sdev: snode device
 * @id: node id
 * @ln: its cached state; sent_state and sent_route are the previous ones
 * @meta: timestamps and suppressed count
 *
 * Context: Process context; the caller holds &snode_link.lock.
 */
void snode_nl_node_ntf(struct snode_dev *sdev, u32 id,
		       const struct snode_link_node *ln,
		       const struct snode_ev_meta *meta)
{
	struct snode_nl_ntf ntf;
	struct sk_buff *skb;

	if (!snode_nl_ntf_start(&ntf, sdev, SNODE_NL_CMD_NODE_STATE_NTF,
				SNODE_A_EVENT_NODE, meta))
		return;
	skb = ntf.skb;
	snode_nl_ntf_send(&ntf,
			  nla_put_u32(skb, SNODE_A_NODE_ID, id) ||
			  nla_put_u32(skb, SNODE_A_NODE_STATE, ln->state) ||
			  (ln->route != SNODE_LINK_NO_ROUTE &&
			   nla_put_u32(skb, SNODE_A_NODE_ROUTE_PORT, ln->route)) ||
			  nla_put_u32(skb, SNODE_A_NODE_PREV_STATE, ln->sent_state) ||
			  (ln->sent_route != SNODE_LINK_NO_ROUTE &&
			   nla_put_u32(skb, SNODE_A_NODE_PREV_ROUTE_PORT, ln->sent_route)) ||
			  __snode_nl_put_node_topo(skb, sdev->link, ln));
}
