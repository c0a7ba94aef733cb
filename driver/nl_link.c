// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the "snode" generic-netlink family: links (link-get, link-set,
 * link-reset, link-clear) and their notifications.
 */

#include <linux/netlink.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include <linux/snode.h>

#include "link.h"
#include "netlink.h"
#include "snode.h"

/**
 * DOC: Netlink: links
 *
 * link-get, link-set, link-reset and link-clear of the "snode" family, and
 * the link notifications (state, BER alarm, isolation, utilisation) that
 * link.c raises.
 */

/* The port named by SNODE_A_LINK_PORT, or a negative errno. */
static int snode_nl_port_get(struct genl_info *info, struct snode_dev *sdev)
{
	u32 port;

	if (GENL_REQ_ATTR_CHECK(info, SNODE_A_LINK_PORT))
		return -EINVAL;
	port = nla_get_u32(info->attrs[SNODE_A_LINK_PORT]);
	if (port >= sdev->link->nports) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[SNODE_A_LINK_PORT],
				    "no such port on this snode device");
		return -ENOENT;
	}
	return port;
}

/* The isolation state and its reason, in replies and notifications. */
static int snode_nl_put_isolation(struct sk_buff *skb,
				  const struct snode_isolate *iso)
{
	if (nla_put_u32(skb, SNODE_A_LINK_ISOLATION, iso->state) ||
	    (iso->reason &&
	     nla_put_u32(skb, SNODE_A_LINK_ISOLATE_REASON, iso->reason)))
		return -EMSGSIZE;
	return 0;
}

static int snode_nl_put_util(struct sk_buff *skb,
			     const struct snode_link_util *util)
{
	if (nla_put_u32(skb, SNODE_A_LINK_UTIL_THRESHOLD, util->threshold) ||
	    nla_put_u32(skb, SNODE_A_LINK_UTIL_TX, util->tx) ||
	    nla_put_u32(skb, SNODE_A_LINK_UTIL_RX, util->rx) ||
	    nla_put_u32(skb, SNODE_A_LINK_UTIL_ALARM, util->alarm) ||
	    nla_put_u32(skb, SNODE_A_LINK_UTIL_HYSTERESIS,
			snode_util_hysteresis(util->threshold)))
		return -EMSGSIZE;
	return 0;
}

/* The name and plane of the switch a link leads to (decision 0030). */
static int snode_nl_put_peer_switch(struct sk_buff *skb,
				    struct snode_link *link, u32 sw)
{
	const char *name;
	int ret = 0;
	u8 plane;

	mutex_lock(&link->lock);
	name = __snode_link_topo_name(link, SNODE_TOPO_SWITCHES, sw, &plane);
	if ((name && nla_put_string(skb, SNODE_A_LINK_PEER_SWITCH_NAME, name)) ||
	    (plane != SNODE_TOPO_NO_PLANE &&
	     nla_put_u32(skb, SNODE_A_LINK_PEER_PLANE, plane)))
		ret = -EMSGSIZE;
	mutex_unlock(&link->lock);
	return ret;
}

static int snode_nl_link_fill(struct sk_buff *skb, struct snode_dev *sdev,
			      unsigned int port, const struct snode_port *p,
			      u64 threshold, bool alarm,
			      const struct snode_isolate *iso, u32 portid,
			      u32 seq, int flags, struct netlink_callback *cb)
{
	bool to_switch = p->peer_port & SNODE_PORT_PEER_SWITCH;
	struct snode_link_util util;
	bool full;
	void *hdr;

	snode_link_util_get(sdev, port, &util);

	hdr = snode_nl_msg_put(skb, portid, seq, flags, SNODE_NL_CMD_LINK_GET,
			       cb);
	if (!hdr)
		return -EMSGSIZE;

	full = nla_put_u32(skb, SNODE_A_LINK_DEV_INDEX, sdev->index) ||
	       nla_put_string(skb, SNODE_A_LINK_DEV_NAME, dev_name(&sdev->dev)) ||
	       nla_put_u32(skb, SNODE_A_LINK_PORT, port) ||
	       nla_put_u32(skb, SNODE_A_LINK_ADMIN_STATE, p->admin_state) ||
	       nla_put_u32(skb, SNODE_A_LINK_OPER_STATE, p->oper_state) ||
	       nla_put_u32(skb, SNODE_A_LINK_LANES, p->lanes) ||
	       nla_put_u32(skb, SNODE_A_LINK_MAX_LANES, p->max_lanes) ||
	       nla_put_u32(skb, SNODE_A_LINK_SPEED, p->speed);
	if (p->peer_node != SNODE_NODE_ID_NONE)
		full = full ||
		       nla_put_u32(skb, SNODE_A_LINK_PEER_NODE, p->peer_node) ||
		       nla_put_u32(skb, SNODE_A_LINK_PEER_PORT, p->peer_port);
	else if (to_switch)
		full = full ||
		       nla_put_u32(skb, SNODE_A_LINK_PEER_SWITCH,
				   p->peer_port & ~SNODE_PORT_PEER_SWITCH) ||
		       snode_nl_put_peer_switch(skb, sdev->link,
						p->peer_port & ~SNODE_PORT_PEER_SWITCH);
	full = full ||
	       nla_put_u64_64bit(skb, SNODE_A_LINK_CRC_ERRORS, p->crc_errors,
				 SNODE_A_LINK_PAD) ||
	       nla_put_u64_64bit(skb, SNODE_A_LINK_REPLAYS, p->replays,
				 SNODE_A_LINK_PAD) ||
	       nla_put_u64_64bit(skb, SNODE_A_LINK_RECOVERIES, p->recoveries,
				 SNODE_A_LINK_PAD) ||
	       nla_put_u64_64bit(skb, SNODE_A_LINK_DOWN_EVENTS, p->down_events,
				 SNODE_A_LINK_PAD) ||
	       nla_put_u64_64bit(skb, SNODE_A_LINK_TX_BYTES, p->tx_bytes,
				 SNODE_A_LINK_PAD) ||
	       nla_put_u64_64bit(skb, SNODE_A_LINK_RX_BYTES, p->rx_bytes,
				 SNODE_A_LINK_PAD) ||
	       nla_put_u64_64bit(skb, SNODE_A_LINK_TX_MSGS, p->tx_msgs,
				 SNODE_A_LINK_PAD) ||
	       nla_put_u64_64bit(skb, SNODE_A_LINK_RX_MSGS, p->rx_msgs,
				 SNODE_A_LINK_PAD) ||
	       nla_put_u64_64bit(skb, SNODE_A_LINK_BER, p->ber,
				 SNODE_A_LINK_PAD) ||
	       nla_put_u64_64bit(skb, SNODE_A_LINK_BER_THRESHOLD, threshold,
				 SNODE_A_LINK_PAD) ||
	       nla_put_u32(skb, SNODE_A_LINK_BER_ALARM, alarm) ||
	       nla_put_u32(skb, SNODE_A_LINK_AUTO_ISOLATE, iso->on) ||
	       nla_put_u64_64bit(skb, SNODE_A_LINK_ISOLATE_BER, iso->ber,
				 SNODE_A_LINK_PAD) ||
	       nla_put_u32(skb, SNODE_A_LINK_ISOLATE_FLAPS, iso->flaps) ||
	       nla_put_u32(skb, SNODE_A_LINK_ISOLATE_WINDOW, iso->window) ||
	       snode_nl_put_isolation(skb, iso) ||
	       snode_nl_put_util(skb, &util);
	return snode_nl_msg_end(skb, hdr, full);
}

int snode_nl_link_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct snode_isolate iso;
	struct snode_nl_dev *nd;
	struct snode_port p;
	struct sk_buff *msg;
	int ret, port, locked;
	u64 threshold;
	bool alarm;

	nd = snode_nl_get_begin(skb, info, SNODE_A_LINK_DEV_INDEX, &msg);
	if (IS_ERR(nd))
		return PTR_ERR(nd);
	port = snode_nl_port_get(info, nd->sdev);
	if (port < 0) {
		ret = port;
		goto out;
	}
	locked = snode_nl_user_begin(nd, skb);
	if (locked < 0) {
		ret = locked;
		goto out;
	}
	/* a get asks the NIC; if it cannot answer, say so */
	snode_debug_delay(SNODE_DELAY_NL_DEVCMD);
	ret = snode_link_port_get(nd->sdev, port, &p, &threshold, &alarm,
				  &iso);
	/* names are extra: a NIC that cannot give them lists ids only */
	if (!ret)
		snode_link_topo_refresh(nd->sdev);
	snode_nl_user_end(nd, locked);
	if (ret)
		goto out;
	ret = snode_nl_link_fill(msg, nd->sdev, port, &p, threshold, alarm,
				 &iso, info->snd_portid, info->snd_seq, 0,
				 NULL);
out:
	return snode_nl_get_end(nd, msg, info, ret);
}

/* The links of one NIC in a dump, from ctx->pos on. */
static int snode_nl_link_dump_one(struct sk_buff *skb,
				  struct netlink_callback *cb,
				  struct snode_nl_dev *nd, const void *arg)
{
	struct snode_nl_dump_ctx *ctx = snode_nl_dump_ctx(cb);
	struct snode_dev *sdev = nd->sdev;
	struct snode_isolate iso;
	struct snode_port p;
	int locked, ret = 0;
	u64 threshold;
	bool alarm;

	locked = snode_nl_user_begin(nd, cb->skb);
	if (locked < 0)
		return locked;
	if (!ctx->pos)
		snode_link_topo_refresh(sdev);
	for (; ctx->pos < sdev->link->nports; ctx->pos++) {
		/*
		 * A NIC that cannot answer (being reset) still lists its
		 * links, as it last reported them.
		 */
		snode_link_port_get(sdev, ctx->pos, &p, &threshold, &alarm,
				    &iso);
		ret = snode_nl_link_fill(skb, sdev, ctx->pos, &p, threshold,
					 alarm, &iso,
					 NETLINK_CB(cb->skb).portid,
					 cb->nlh->nlmsg_seq, NLM_F_MULTI, cb);
		if (ret)
			break;
	}
	snode_nl_user_end(nd, locked);
	return ret;
}

int snode_nl_link_get_dumpit(struct sk_buff *skb,
			     struct netlink_callback *cb)
{
	return snode_nl_dumpit(skb, cb, SNODE_A_LINK_DEV_INDEX,
			       snode_nl_dev_gen_get, snode_nl_link_dump_one, NULL);
}

/*
 * The auto-isolate attributes of a link-set into @set. Returns 1 if the
 * request has any, 0 if it has none, or -EINVAL (with an extack) for a
 * flap limit without its window or a window without a flap limit. Their
 * ranges are the policy's.
 */
static int snode_nl_isolate_set(struct genl_info *info,
				struct snode_isolate_set *set)
{
	struct nlattr **tb = info->attrs;

	memset(set, 0, sizeof(*set));
	if (tb[SNODE_A_LINK_AUTO_ISOLATE]) {
		set->set_on = true;
		set->on = nla_get_u32(tb[SNODE_A_LINK_AUTO_ISOLATE]);
	}
	if (tb[SNODE_A_LINK_ISOLATE_BER]) {
		set->set_ber = true;
		set->ber = nla_get_u64(tb[SNODE_A_LINK_ISOLATE_BER]);
	}
	if (tb[SNODE_A_LINK_ISOLATE_FLAPS]) {
		set->set_flaps = true;
		set->flaps = nla_get_u32(tb[SNODE_A_LINK_ISOLATE_FLAPS]);
		if (tb[SNODE_A_LINK_ISOLATE_WINDOW])
			set->window = nla_get_u32(tb[SNODE_A_LINK_ISOLATE_WINDOW]);
		if (set->flaps && !set->window) {
			NL_SET_ERR_MSG_ATTR(info->extack,
					    tb[SNODE_A_LINK_ISOLATE_FLAPS],
					    "a flap limit needs isolate-window (seconds)");
			return -EINVAL;
		}
	} else if (tb[SNODE_A_LINK_ISOLATE_WINDOW]) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    tb[SNODE_A_LINK_ISOLATE_WINDOW],
				    "isolate-window goes with isolate-flaps");
		return -EINVAL;
	}
	return set->set_on || set->set_ber || set->set_flaps;
}

int snode_nl_link_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr **tb = info->attrs;
	struct snode_isolate_set iso;
	struct snode_nl_dev *nd;
	struct snode_dev *sdev;
	int ret, port, set_iso;

	set_iso = snode_nl_isolate_set(info, &iso);
	if (set_iso < 0)
		return set_iso;
	if (!tb[SNODE_A_LINK_ADMIN_STATE] && !tb[SNODE_A_LINK_BER_THRESHOLD] &&
	    !tb[SNODE_A_LINK_UTIL_THRESHOLD] && !set_iso) {
		GENL_SET_ERR_MSG(info,
				 "nothing to set: give admin-state, ber-threshold, util-threshold or auto-isolate");
		return -EINVAL;
	}

	nd = snode_nl_dev_get(info, SNODE_A_LINK_DEV_INDEX);
	if (IS_ERR(nd))
		return PTR_ERR(nd);
	sdev = nd->sdev;
	port = snode_nl_port_get(info, sdev);
	if (port < 0) {
		ret = port;
		goto out;
	}
	ret = 0;
	/* first, as the only change here that can be refused */
	if (set_iso) {
		ret = snode_link_set_isolate(sdev, port, &iso);
		if (ret == -EINVAL)
			GENL_SET_ERR_MSG(info,
					 "auto-isolate needs a limit: isolate-ber or isolate-flaps");
	}
	if (!ret && tb[SNODE_A_LINK_BER_THRESHOLD]) {
		u64 threshold = nla_get_u64(tb[SNODE_A_LINK_BER_THRESHOLD]);

		ret = snode_link_set_threshold(sdev, port, threshold);
	}
	if (!ret && tb[SNODE_A_LINK_UTIL_THRESHOLD]) {
		u32 pct = nla_get_u32(tb[SNODE_A_LINK_UTIL_THRESHOLD]);

		ret = snode_link_set_util_threshold(sdev, port, pct);
	}
	if (!ret && tb[SNODE_A_LINK_ADMIN_STATE]) {
		bool up = nla_get_u32(tb[SNODE_A_LINK_ADMIN_STATE]) ==
			  SNODE_LINK_ADMIN_STATE_UP;

		ret = snode_link_port_set(sdev, port, up ? SNODE_PORT_SET_UP :
							   SNODE_PORT_SET_DOWN);
		if (ret == -EBUSY)
			GENL_SET_ERR_MSG(info,
					 "the link is isolated by its auto-isolate policy: link-clear it first");
	}
out:
	snode_nl_put(nd);
	return ret;
}

static int snode_nl_link_action(struct genl_info *info, u32 action)
{
	struct snode_nl_dev *nd;
	int ret, port;

	nd = snode_nl_dev_get(info, SNODE_A_LINK_DEV_INDEX);
	if (IS_ERR(nd))
		return PTR_ERR(nd);
	port = snode_nl_port_get(info, nd->sdev);
	ret = port < 0 ? port : snode_link_port_set(nd->sdev, port, action);
	snode_nl_put(nd);
	return ret;
}

int snode_nl_link_reset_doit(struct sk_buff *skb,
			     struct genl_info *info)
{
	return snode_nl_link_action(info, SNODE_PORT_SET_RESET);
}

int snode_nl_link_clear_doit(struct sk_buff *skb,
			     struct genl_info *info)
{
	return snode_nl_link_action(info, SNODE_PORT_SET_CLEAR);
}

/**
 * snode_nl_link_ntf() - notify a link's state, BER alarm, isolation or
 * utilisation alarm
 * @sdev: snode device
 * @kind: SNODE_LINK_NTF_*
 * @port: the port
 * @lp: its cached state
 * @threshold: the BER alarm threshold in force
 * @meta: timestamps and suppressed count
 *
 * Context: Process context; the caller holds &snode_link.lock.
 */
void snode_nl_link_ntf(struct snode_dev *sdev, enum snode_link_ntf kind,
		       unsigned int port, const struct snode_link_port *lp,
		       u64 threshold, const struct snode_ev_meta *meta)
{
	const struct snode_port *p = &lp->port;
	struct snode_nl_ntf ntf;
	struct sk_buff *skb;

	static const u8 cmds[SNODE_LINK_NTF_NR] = {
		[SNODE_LINK_NTF_STATE] = SNODE_NL_CMD_LINK_STATE_NTF,
		[SNODE_LINK_NTF_BER] = SNODE_NL_CMD_LINK_BER_NTF,
		[SNODE_LINK_NTF_ISOLATION] = SNODE_NL_CMD_LINK_ISOLATION_NTF,
		[SNODE_LINK_NTF_UTIL] = SNODE_NL_CMD_LINK_UTIL_NTF,
	};

	if (!snode_nl_ntf_start(&ntf, sdev, cmds[kind], SNODE_A_EVENT_LINK,
				meta))
		return;
	skb = ntf.skb;
	snode_nl_ntf_send(&ntf,
			  nla_put_u32(skb, SNODE_A_LINK_PORT, port) ||
			  nla_put_u32(skb, SNODE_A_LINK_OPER_STATE, p->oper_state) ||
			  nla_put_u32(skb, SNODE_A_LINK_LANES, p->lanes) ||
			  (p->peer_node != SNODE_NODE_ID_NONE &&
			   nla_put_u32(skb, SNODE_A_LINK_PEER_NODE, p->peer_node)) ||
			  nla_put_u64_64bit(skb, SNODE_A_LINK_DOWN_EVENTS, p->down_events,
					    SNODE_A_LINK_PAD) ||
			  nla_put_u64_64bit(skb, SNODE_A_LINK_BER, p->ber,
					    SNODE_A_LINK_PAD) ||
			  nla_put_u64_64bit(skb, SNODE_A_LINK_BER_THRESHOLD, threshold,
					    SNODE_A_LINK_PAD) ||
			  nla_put_u32(skb, SNODE_A_LINK_BER_ALARM, lp->ber_alarm) ||
			  snode_nl_put_isolation(skb, &lp->iso) ||
			  snode_nl_put_util(skb, &lp->util));
}
