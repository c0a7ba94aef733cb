// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the "snode" generic-netlink family: message endpoints and DMA
 * queues (endpoint-get and queue-get dumps).
 */

#include <linux/mm.h>
#include <linux/netlink.h>
#include <linux/slab.h>
#include <net/genetlink.h>

#include <linux/snode.h>

#include "link.h"
#include "netlink.h"
#include "snode.h"

/**
 * DOC: Netlink: endpoints and DMA queues
 *
 * endpoint-get and queue-get dumps of the "snode" family, one snapshot of
 * a NIC's table per dump (snode_ep_list(), snode_dma_list_queues()).
 */

static u32 snode_nl_obj_flags(const struct snode_obj_entry *e)
{
	return (e->flags & SNODE_ENTRY_OWN ? SNODE_OBJ_FLAGS_OWN : 0) |
	       (e->flags & SNODE_ENTRY_DEAD ? SNODE_OBJ_FLAGS_DEAD : 0) |
	       (e->flags & SNODE_ENTRY_HIDDEN ? SNODE_OBJ_FLAGS_HIDDEN : 0);
}

static int snode_nl_ep_fill(struct sk_buff *skb, struct snode_dev *sdev,
			    const struct snode_obj_entry *e)
{
	u32 flags = snode_nl_obj_flags(e);

	if (nla_put_u32(skb, SNODE_A_ENDPOINT_DEV_INDEX, sdev->index) ||
	    nla_put_u32(skb, SNODE_A_ENDPOINT_ID, e->id) ||
	    nla_put_u32(skb, SNODE_A_ENDPOINT_VECTOR, e->vector) ||
	    nla_put_u32(skb, SNODE_A_ENDPOINT_ENTRIES, e->entries) ||
	    nla_put_u32(skb, SNODE_A_ENDPOINT_PENDING, e->pending) ||
	    ((e->flags & SNODE_ENTRY_KEY) &&
	     nla_put_u64_64bit(skb, SNODE_A_ENDPOINT_KEY, e->key,
			       SNODE_A_ENDPOINT_PAD)) ||
	    nla_put_u64_64bit(skb, SNODE_A_ENDPOINT_MSGS, e->count,
			      SNODE_A_ENDPOINT_PAD) ||
	    nla_put_u64_64bit(skb, SNODE_A_ENDPOINT_BYTES, e->bytes,
			      SNODE_A_ENDPOINT_PAD) ||
	    nla_put_u64_64bit(skb, SNODE_A_ENDPOINT_ERRORS, e->errors,
			      SNODE_A_ENDPOINT_PAD) ||
	    (e->pid > 0 && nla_put_u32(skb, SNODE_A_ENDPOINT_PID, e->pid)) ||
	    (e->comm[0] &&
	     nla_put_string(skb, SNODE_A_ENDPOINT_COMM, e->comm)) ||
	    (flags && nla_put_u32(skb, SNODE_A_ENDPOINT_FLAGS, flags)))
		return -EMSGSIZE;
	return 0;
}

static int snode_nl_queue_fill(struct sk_buff *skb, struct snode_dev *sdev,
			       const struct snode_obj_entry *e)
{
	u32 flags = snode_nl_obj_flags(e);

	if (nla_put_u32(skb, SNODE_A_QUEUE_DEV_INDEX, sdev->index) ||
	    nla_put_u32(skb, SNODE_A_QUEUE_ID, e->id) ||
	    nla_put_u32(skb, SNODE_A_QUEUE_DEPTH, e->entries) ||
	    nla_put_u32(skb, SNODE_A_QUEUE_INFLIGHT, e->pending) ||
	    nla_put_u64_64bit(skb, SNODE_A_QUEUE_COMPLETED, e->count,
			      SNODE_A_QUEUE_PAD) ||
	    nla_put_u64_64bit(skb, SNODE_A_QUEUE_BYTES, e->bytes,
			      SNODE_A_QUEUE_PAD) ||
	    nla_put_u64_64bit(skb, SNODE_A_QUEUE_ERRORS, e->errors,
			      SNODE_A_QUEUE_PAD) ||
	    (e->pid > 0 && nla_put_u32(skb, SNODE_A_QUEUE_PID, e->pid)) ||
	    (e->comm[0] && nla_put_string(skb, SNODE_A_QUEUE_COMM, e->comm)) ||
	    (flags && nla_put_u32(skb, SNODE_A_QUEUE_FLAGS, flags)))
		return -EMSGSIZE;
	return 0;
}

/**
 * struct snode_nl_obj_kind - what an endpoint or DMA-queue dump lists
 * @cmd: the command of its messages
 * @dev_attr: its dev-index attribute, the dump's filter
 * @list: snapshots the objects of a NIC (snode_ep_list() and the like)
 * @gen: the generation of a NIC's table: it changes with every object
 *       created or destroyed
 * @fill: puts the attributes of one object
 */
struct snode_nl_obj_kind {
	u8 cmd;
	int dev_attr;
	u32 (*list)(struct snode_dev *sdev, struct snode_obj_entry *entries,
		    u32 max, const struct snode_viewer *viewer);
	unsigned int (*gen)(struct snode_dev *sdev);
	int (*fill)(struct sk_buff *skb, struct snode_dev *sdev,
		    const struct snode_obj_entry *e);
};

static const struct snode_nl_obj_kind snode_nl_eps = {
	.cmd = SNODE_NL_CMD_ENDPOINT_GET,
	.dev_attr = SNODE_A_ENDPOINT_DEV_INDEX,
	.list = snode_ep_list,
	.gen = snode_ep_gen,
	.fill = snode_nl_ep_fill,
};

static const struct snode_nl_obj_kind snode_nl_queues = {
	.cmd = SNODE_NL_CMD_QUEUE_GET,
	.dev_attr = SNODE_A_QUEUE_DEV_INDEX,
	.list = snode_dma_list_queues,
	.gen = snode_dma_gen,
	.fill = snode_nl_queue_fill,
};

/* Emit the objects (@arg: their kind) of @nd from ctx->pos on. */
static int snode_nl_obj_table(struct sk_buff *skb, struct netlink_callback *cb,
			      struct snode_nl_dev *nd, const void *arg)
{
	struct snode_nl_dump_ctx *ctx = snode_nl_dump_ctx(cb);
	const struct snode_nl_obj_kind *kind = arg;
	struct snode_dev *sdev = nd->sdev;
	struct snode_obj_entry *entries = ctx->snap;
	struct snode_viewer viewer;
	u32 n = ctx->snap_n;
	void *hdr;
	int ret;

	/* one snapshot per NIC and dump, as for windows */
	if (entries && ctx->snap_dev != sdev->index) {
		snode_nl_snap_done(cb);
		entries = NULL;
	}
	if (!entries) {
		snode_nl_viewer(cb, &viewer);
		n = kind->list(sdev, NULL, 0, &viewer);
		if (!n)
			return 0;
		entries = kvcalloc(n, sizeof(*entries), GFP_KERNEL_ACCOUNT);
		if (!entries)
			return -ENOMEM;
		n = min(n, kind->list(sdev, entries, n, &viewer));
		ctx->snap = entries;
		ctx->snap_n = n;
		ctx->snap_dev = sdev->index;
		ctx->pos = 0;
	}
	for (; ctx->pos < n; ctx->pos++) {
		hdr = snode_nl_msg_put(skb, NETLINK_CB(cb->skb).portid,
				       cb->nlh->nlmsg_seq, NLM_F_MULTI,
				       kind->cmd, cb);
		if (!hdr)
			return -EMSGSIZE;
		ret = kind->fill(skb, sdev, &entries[ctx->pos]);
		if (ret) {
			genlmsg_cancel(skb, hdr);
			return ret;
		}
		genlmsg_end(skb, hdr);
	}
	snode_nl_snap_done(cb);
	return 0;
}

static unsigned int snode_nl_obj_gen(unsigned long last, const void *arg)
{
	const struct snode_nl_obj_kind *kind = arg;

	return snode_nl_gen_sum(last, kind->gen);
}

/*
 * Dump the endpoints or DMA queues of every NIC, or of the one the filter
 * names. A dump that spans the creation or destruction of one, or a NIC's
 * arrival or departure, is flagged NLM_F_DUMP_INTR.
 */
static int snode_nl_obj_dump(struct sk_buff *skb, struct netlink_callback *cb,
			     const struct snode_nl_obj_kind *kind)
{
	return snode_nl_dumpit(skb, cb, kind->dev_attr, snode_nl_obj_gen,
			       snode_nl_obj_table, kind);
}

int snode_nl_endpoint_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb)
{
	return snode_nl_obj_dump(skb, cb, &snode_nl_eps);
}

int snode_nl_queue_get_dumpit(struct sk_buff *skb,
			      struct netlink_callback *cb)
{
	return snode_nl_obj_dump(skb, cb, &snode_nl_queues);
}
