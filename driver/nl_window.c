// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the "snode" generic-netlink family: windows (window-get dumps)
 * and the notifications about them.
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
 * DOC: Netlink: windows
 *
 * window-get dumps of the "snode" family, from the global-memory tables
 * (exports, imports, ATT entries, pool allocations), and the notifications
 * of a revoked window and of an access that no window allowed.
 */

/* What a window dump lists, in this order, from the global-memory tables. */
static const struct {
	u32 type;
	u32 kind;
} snode_nl_window_tables[] = {
	{ SNODE_MEM_LIST_EXPORTS, SNODE_WINDOW_KIND_EXPORT },
	{ SNODE_MEM_LIST_IMPORTS, SNODE_WINDOW_KIND_IMPORT },
	{ SNODE_MEM_LIST_ATT, SNODE_WINDOW_KIND_ATT },
	{ SNODE_MEM_LIST_ALLOCS, SNODE_WINDOW_KIND_ALLOC },
};

static int snode_nl_window_fill(struct sk_buff *skb, struct snode_dev *sdev,
				u32 kind, const struct snode_mem_entry *e,
				u32 portid, u32 seq, int flags,
				struct netlink_callback *cb)
{
	bool export = kind == SNODE_WINDOW_KIND_EXPORT;
	bool pool = export || kind == SNODE_WINDOW_KIND_ALLOC;
	bool hidden = e->flags & SNODE_ENTRY_HIDDEN;
	u32 perm = SNODE_WINDOW_PERM_READ, wflags = 0;
	bool full;
	void *hdr;

	if (e->flags & SNODE_ENTRY_WRITE)
		perm |= SNODE_WINDOW_PERM_WRITE;
	if (e->flags & SNODE_ENTRY_OWN)
		wflags |= SNODE_WINDOW_FLAGS_OWN;
	if (e->flags & SNODE_ENTRY_NODES)
		wflags |= SNODE_WINDOW_FLAGS_NODES;
	if (e->flags & SNODE_ENTRY_ZERO_PAGE)
		wflags |= SNODE_WINDOW_FLAGS_ZERO_PAGE;
	if (hidden)
		wflags |= SNODE_WINDOW_FLAGS_HIDDEN;
	hdr = snode_nl_msg_put(skb, portid, seq, flags,
			       SNODE_NL_CMD_WINDOW_GET, cb);
	if (!hdr)
		return -EMSGSIZE;

	full = nla_put_u32(skb, SNODE_A_WINDOW_DEV_INDEX, sdev->index) ||
	       nla_put_u32(skb, SNODE_A_WINDOW_KIND, kind) ||
	       nla_put_u32(skb, SNODE_A_WINDOW_INDEX,
			   export ? e->export_id :
			   pool ? 0 : e->att_index) ||
	       nla_put_u32(skb, SNODE_A_WINDOW_NODE, e->node) ||
	       (!(pool && hidden) &&
		nla_put_u64_64bit(skb, SNODE_A_WINDOW_OFFSET,
				  pool ? e->offset : e->aperture_offset,
				  SNODE_A_WINDOW_PAD)) ||
	       nla_put_u64_64bit(skb, SNODE_A_WINDOW_LENGTH, e->length,
				 SNODE_A_WINDOW_PAD) ||
	       (kind != SNODE_WINDOW_KIND_ALLOC &&
		nla_put_u32(skb, SNODE_A_WINDOW_PERM, perm)) ||
	       nla_put_u32(skb, SNODE_A_WINDOW_STATE, e->state) ||
	       (e->pid > 0 && nla_put_u32(skb, SNODE_A_WINDOW_PID, e->pid)) ||
	       (e->comm[0] && nla_put_string(skb, SNODE_A_WINDOW_COMM, e->comm)) ||
	       ((e->flags & SNODE_ENTRY_KEY) &&
		nla_put_u64_64bit(skb, SNODE_A_WINDOW_KEY, e->key,
				  SNODE_A_WINDOW_PAD)) ||
	       (wflags && nla_put_u32(skb, SNODE_A_WINDOW_FLAGS, wflags));
	if (!pool)
		full = full ||
		       nla_put_u32(skb, SNODE_A_WINDOW_EXPORT_ID, e->export_id) ||
		       (!hidden &&
			nla_put_u64_64bit(skb, SNODE_A_WINDOW_EXPORT_OFFSET,
					  e->offset, SNODE_A_WINDOW_PAD)) ||
		       nla_put_u32(skb, SNODE_A_WINDOW_EPOCH, e->epoch) ||
		       (e->reason &&
			nla_put_u32(skb, SNODE_A_WINDOW_REVOKE_REASON,
				    e->reason));
	return snode_nl_msg_end(skb, hdr, full);
}

/*
 * The generation of the window tables a dump lists: a dump spanning a
 * change of a table reports NLM_F_DUMP_INTR.
 */
static unsigned int snode_nl_window_gen(unsigned long last, const void *arg)
{
	return snode_nl_gen_sum(last, snode_mem_gen);
}

/* Emit the entries of one table of @sdev from ctx->pos on. */
static int snode_nl_window_table(struct sk_buff *skb,
				 struct netlink_callback *cb,
				 struct snode_dev *sdev, unsigned int table)
{
	struct snode_nl_dump_ctx *ctx = snode_nl_dump_ctx(cb);
	u32 type = snode_nl_window_tables[table].type;
	struct snode_mem_entry *entries = ctx->snap;
	struct snode_viewer viewer;
	u32 n = ctx->snap_n;
	int ret = 0;

	/*
	 * One snapshot per table and dump, kept across skbs, so a dump costs
	 * O(n) and holds the table's lock twice per table, not per skb; a
	 * change since is reported by the generation (NLM_F_DUMP_INTR).
	 */
	/* the NIC left mid-dump: the dump goes on with the next one */
	if (entries && ctx->snap_dev != sdev->index) {
		snode_nl_snap_done(cb);
		entries = NULL;
	}
	if (!entries) {
		snode_nl_viewer(cb, &viewer);
		n = snode_mem_list(sdev, type, NULL, 0, &viewer);
		if (!n)
			return 0;
		entries = kvcalloc(n, sizeof(*entries), GFP_KERNEL_ACCOUNT);
		if (!entries)
			return -ENOMEM;
		n = min(n, snode_mem_list(sdev, type, entries, n, &viewer));
		ctx->snap = entries;
		ctx->snap_n = n;
		ctx->snap_dev = sdev->index;
		ctx->pos = 0;
	}
	for (; ctx->pos < n; ctx->pos++) {
		ret = snode_nl_window_fill(skb, sdev,
					   snode_nl_window_tables[table].kind,
					   &entries[ctx->pos],
					   NETLINK_CB(cb->skb).portid,
					   cb->nlh->nlmsg_seq, NLM_F_MULTI, cb);
		if (ret)
			return ret;
	}
	snode_nl_snap_done(cb);
	return 0;
}

/* The windows of one NIC in a dump, from ctx->table and ctx->pos on. */
static int snode_nl_window_dump_one(struct sk_buff *skb,
				    struct netlink_callback *cb,
				    struct snode_nl_dev *nd, const void *arg)
{
	struct snode_nl_dump_ctx *ctx = snode_nl_dump_ctx(cb);
	int ret;

	for (; ctx->table < ARRAY_SIZE(snode_nl_window_tables); ctx->table++) {
		ret = snode_nl_window_table(skb, cb, nd->sdev, ctx->table);
		if (ret)
			return ret;
		ctx->pos = 0;
	}
	ctx->table = 0;
	return 0;
}

int snode_nl_window_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb)
{
	return snode_nl_dumpit(skb, cb, SNODE_A_WINDOW_DEV_INDEX,
			       snode_nl_window_gen, snode_nl_window_dump_one,
			       NULL);
}

/**
 * snode_nl_revoked_ntf() - notify that the fabric revoked an ATT entry
 * @sdev: snode device
 * @att_index: the entry
 * @reason: enum snode_revoke_reason
 * @epoch: the entry's epoch
 * @node: the node it mapped
 * @export_id: the export it mapped
 * @meta: timestamps
 *
 * Context: Process context.
 */
void snode_nl_revoked_ntf(struct snode_dev *sdev, u32 att_index, u32 reason,
			  u32 epoch, u32 node, u32 export_id,
			  const struct snode_ev_meta *meta)
{
	struct snode_nl_ntf ntf;
	struct sk_buff *skb;

	if (!snode_nl_ntf_start(&ntf, sdev, SNODE_NL_CMD_WINDOW_REVOKED_NTF,
				SNODE_A_EVENT_WINDOW, meta))
		return;
	skb = ntf.skb;
	snode_nl_ntf_send(&ntf,
			  nla_put_u32(skb, SNODE_A_WINDOW_KIND,
				      SNODE_WINDOW_KIND_ATT) ||
			  nla_put_u32(skb, SNODE_A_WINDOW_INDEX, att_index) ||
			  nla_put_u32(skb, SNODE_A_WINDOW_NODE, node) ||
			  nla_put_u32(skb, SNODE_A_WINDOW_EXPORT_ID, export_id) ||
			  nla_put_u32(skb, SNODE_A_WINDOW_EPOCH, epoch) ||
			  nla_put_u32(skb, SNODE_A_WINDOW_REVOKE_REASON, reason));
}

/**
 * snode_nl_access_ntf() - notify an access that no window allowed
 * @sdev: snode device
 * @offset: aperture offset of the access
 * @write: it was a write
 * @meta: timestamps and suppressed count
 *
 * Context: Process context; the caller holds &snode_link.lock.
 */
void snode_nl_access_ntf(struct snode_dev *sdev, u64 offset, bool write,
			 const struct snode_ev_meta *meta)
{
	struct snode_nl_ntf ntf;

	if (!snode_nl_ntf_start(&ntf, sdev, SNODE_NL_CMD_ACCESS_VIOLATION_NTF,
				0, meta))
		return;
	snode_nl_ntf_send(&ntf,
			  nla_put_u64_64bit(ntf.skb, SNODE_A_EVENT_ACCESS_OFFSET,
					    offset, SNODE_A_EVENT_PAD) ||
			  (write &&
			   nla_put_flag(ntf.skb, SNODE_A_EVENT_ACCESS_WRITE)));
}
