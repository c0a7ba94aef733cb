// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the "snode" generic-netlink family: counters (stats-get).
 */

#include <linux/jiffies.h>
#include <linux/netlink.h>
#include <net/genetlink.h>

#include <linux/snode.h>

#include "link.h"
#include "netlink.h"
#include "snode.h"

/**
 * DOC: Netlink: counters
 *
 * stats-get of the "snode" family: the NIC's counters (STATS) and the
 * driver's own.
 */

/* Ask the NIC for its counters and put them; a negative errno if it fails. */
static int snode_nl_stats_fill(struct sk_buff *skb, struct snode_nl_dev *nd,
			       const struct sk_buff *req, u32 portid, u32 seq,
			       int flags, struct netlink_callback *cb)
{
	struct snode_dev *sdev = nd->sdev;
	static const struct {
		int attr;
		size_t off;
	} hw[] = {
#define SNODE_NL_STAT(a, f) \
	{ SNODE_A_STATS_##a, offsetof(struct snode_hw_stats, f) }
		SNODE_NL_STAT(ADMIN_CMDS, admin_cmds),
		SNODE_NL_STAT(EVENTS, events),
		SNODE_NL_STAT(EVENTS_DROPPED, events_dropped),
		SNODE_NL_STAT(ACCESS_VIOLATIONS, access_violations),
		SNODE_NL_STAT(MSGS_SENT, msgs_sent),
		SNODE_NL_STAT(MSGS_RECEIVED, msgs_received),
		SNODE_NL_STAT(MSGS_REJECTED, msgs_rejected),
		SNODE_NL_STAT(DMA_REQS, dma_reqs),
		SNODE_NL_STAT(DMA_BYTES, dma_bytes),
		SNODE_NL_STAT(DMA_ERRORS, dma_errors),
		SNODE_NL_STAT(ATT_SETS, att_sets),
		SNODE_NL_STAT(ATT_REVOKES, att_revokes),
		SNODE_NL_STAT(RESETS, resets),
#undef SNODE_NL_STAT
	};
	struct snode_dev_stats st;
	unsigned int i;
	bool full;
	void *hdr;
	int ret;

	ret = snode_nl_user_begin(nd, req);
	if (ret < 0)
		return ret;
	if (ret && nd->stats_ok &&
	    time_before(jiffies, nd->stats_at + SNODE_NL_USER_CACHE)) {
		/* another reader's answer, less than SNODE_NL_USER_CACHE old */
		st = nd->stats;
		snode_nl_user_end(nd, ret);
	} else {
		int locked = ret;

		ret = snode_dev_stats(sdev, &st);
		if (!ret)
			st.send_retries = snode_msg_send_retries(sdev);
		if (!ret && locked) {
			nd->stats = st;
			nd->stats_at = jiffies;
			nd->stats_ok = true;
		}
		snode_nl_user_end(nd, locked);
		if (ret)
			return ret;
	}
	hdr = snode_nl_msg_put(skb, portid, seq, flags, SNODE_NL_CMD_STATS_GET,
			       cb);
	if (!hdr)
		return -EMSGSIZE;
	full = nla_put_u32(skb, SNODE_A_STATS_DEV_INDEX, sdev->index) ||
	       nla_put_u64_64bit(skb, SNODE_A_STATS_SEND_RETRIES,
				 st.send_retries, SNODE_A_STATS_PAD);
	for (i = 0; i < ARRAY_SIZE(hw) && !full; i++) {
		__le64 *v = (void *)&st.hw + hw[i].off;

		full = nla_put_u64_64bit(skb, hw[i].attr, le64_to_cpu(*v),
					 SNODE_A_STATS_PAD);
	}
	return snode_nl_msg_end(skb, hdr, full);
}

int snode_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return snode_nl_nic_doit(skb, info, SNODE_A_STATS_DEV_INDEX,
				 snode_nl_stats_fill);
}

int snode_nl_stats_get_dumpit(struct sk_buff *skb,
			      struct netlink_callback *cb)
{
	return snode_nl_nic_dumpit(skb, cb, SNODE_A_STATS_DEV_INDEX,
				   snode_nl_stats_fill);
}
