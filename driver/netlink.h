/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snode: the "snode" generic-netlink family, shared by its core
 * (netlink.c) and its object files (nl_dev.c, nl_link.c, nl_node.c,
 * nl_window.c, nl_ep.c, nl_stats.c).
 */
#ifndef _SNODE_NETLINK_H_
#define _SNODE_NETLINK_H_

#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/jiffies.h>
#include <linux/mutex.h>
#include <linux/netlink.h>
#include <linux/refcount.h>
#include <linux/xarray.h>
#include <net/genetlink.h>

#include <linux/snode.h>

#include "link.h"
#include "snode.h"

/* How old a node table or counters a reader without CAP_NET_ADMIN gets */
#define SNODE_NL_USER_CACHE	HZ

/**
 * struct snode_nl_dev - a NIC in the family
 * @sdev: the NIC
 * @users: one for the table, one per request using the NIC
 * @idle: completed when the last reference is dropped
 * @user_lock: serialises the admin commands of readers without
 *             CAP_NET_ADMIN; protects the members below
 * @nodes_at: jiffies of the last node-table refresh for such a reader
 * @stats_at: jiffies when @stats was read
 * @stats_ok: @stats holds an answer
 * @stats: the last counters read for such a reader
 */
struct snode_nl_dev {
	struct snode_dev *sdev;
	refcount_t users;
	struct completion idle;

	/* one admin command at a time for readers without CAP_NET_ADMIN */
	struct mutex user_lock;
	unsigned long nodes_at;
	unsigned long stats_at;
	bool stats_ok;
	struct snode_dev_stats stats;
};

/**
 * struct snode_nl_dump_ctx - where a dump resumes
 * @index: the NIC (its index) to continue with
 * @pos: the port, node or table entry of that NIC to continue with
 * @table: window dumps: the table of snode_nl_window_tables[] listed
 * @refreshed: node dumps: the NIC's node table was read for this dump
 * @snap: window, endpoint and queue dumps: the snapshot of the table being
 *        listed, taken once per table and dump (kvfree()d when listed, or
 *        by snode_nl_snap_done() if the dump ends early)
 * @snap_n: entries in @snap
 * @snap_dev: index of the NIC @snap is of
 */
struct snode_nl_dump_ctx {
	unsigned long index;
	unsigned int pos;
	unsigned int table;
	bool refreshed;
	void *snap;
	u32 snap_n;
	u32 snap_dev;
};

static inline struct snode_nl_dump_ctx *
snode_nl_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct snode_nl_dump_ctx) > sizeof(cb->ctx));
	return (struct snode_nl_dump_ctx *)cb->ctx;
}

/**
 * struct snode_nl_ntf - a notification being put together
 * @skb: the message
 * @hdr: its header
 * @nest: the nest of the object it is about, or NULL
 */
struct snode_nl_ntf {
	struct sk_buff *skb;
	void *hdr;
	struct nlattr *nest;
};

/*
 * Puts one message about a NIC (dev-get, stats-get) for the request @req;
 * cb only in dumps.
 */
typedef int (*snode_nl_nic_fill_t)(struct sk_buff *skb, struct snode_nl_dev *nd,
				   const struct sk_buff *req, u32 portid,
				   u32 seq, int flags,
				   struct netlink_callback *cb);

/* A dump's generation and its messages of one NIC: see snode_nl_dumpit() */
typedef unsigned int (*snode_nl_dump_gen_t)(unsigned long last,
					    const void *arg);
typedef int (*snode_nl_dump_one_t)(struct sk_buff *skb,
				   struct netlink_callback *cb,
				   struct snode_nl_dev *nd, const void *arg);

/* netlink.c: the core */
extern struct genl_family snode_nl_family;
extern struct mutex snode_nl_lock;
extern struct xarray snode_nl_devs;
extern atomic_t snode_nl_dev_gen;
extern atomic_t snode_nl_node_gen;

int snode_nl_may_read(const struct sk_buff *skb,
		      struct netlink_ext_ack *extack);
int snode_nl_user_begin(struct snode_nl_dev *nd, const struct sk_buff *skb);
void snode_nl_user_end(struct snode_nl_dev *nd, int locked);
void snode_nl_put(struct snode_nl_dev *nd);
struct snode_nl_dev *snode_nl_hold_next(unsigned long *index,
					unsigned long last);
int snode_nl_snap_done(struct netlink_callback *cb);
int snode_nl_dump_filter(struct netlink_callback *cb, int type,
			 unsigned long *last);
struct snode_nl_dev *snode_nl_dev_get(struct genl_info *info, int type);
int snode_nl_reply(struct sk_buff *skb, struct genl_info *info);
struct snode_nl_dev *snode_nl_get_begin(struct sk_buff *skb,
					struct genl_info *info, int dev_attr,
					struct sk_buff **msg);
int snode_nl_get_end(struct snode_nl_dev *nd, struct sk_buff *msg,
		     struct genl_info *info, int ret);
void *snode_nl_msg_put(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		       u8 cmd, struct netlink_callback *cb);
int snode_nl_msg_end(struct sk_buff *skb, void *hdr, bool full);
int snode_nl_dumpit(struct sk_buff *skb, struct netlink_callback *cb,
		    int dev_attr, snode_nl_dump_gen_t gen,
		    snode_nl_dump_one_t one, const void *arg);
unsigned int snode_nl_dev_gen_get(unsigned long last, const void *arg);
unsigned int snode_nl_gen_sum(unsigned long last,
			      unsigned int (*gen)(struct snode_dev *sdev));
int snode_nl_nic_doit(struct sk_buff *skb, struct genl_info *info,
		      int dev_attr, snode_nl_nic_fill_t fill);
int snode_nl_nic_dumpit(struct sk_buff *skb, struct netlink_callback *cb,
			int dev_attr, snode_nl_nic_fill_t fill);
void snode_nl_viewer(struct netlink_callback *cb, struct snode_viewer *viewer);
bool snode_nl_ntf_start(struct snode_nl_ntf *ntf, struct snode_dev *sdev,
			u8 cmd, int nest, const struct snode_ev_meta *meta);
void snode_nl_ntf_send(struct snode_nl_ntf *ntf, bool full);

/* nl_dev.c */
int snode_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info);
int snode_nl_dev_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int snode_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info);

/* nl_link.c */
int snode_nl_link_get_doit(struct sk_buff *skb, struct genl_info *info);
int snode_nl_link_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);
int snode_nl_link_set_doit(struct sk_buff *skb, struct genl_info *info);
int snode_nl_link_reset_doit(struct sk_buff *skb, struct genl_info *info);
int snode_nl_link_clear_doit(struct sk_buff *skb, struct genl_info *info);

/* nl_node.c */
int snode_nl_node_get_doit(struct sk_buff *skb, struct genl_info *info);
int snode_nl_node_get_dumpit(struct sk_buff *skb, struct netlink_callback *cb);

/* nl_window.c */
int snode_nl_window_get_dumpit(struct sk_buff *skb,
			       struct netlink_callback *cb);

/* nl_ep.c: endpoints and DMA queues */
int snode_nl_endpoint_get_dumpit(struct sk_buff *skb,
				 struct netlink_callback *cb);
int snode_nl_queue_get_dumpit(struct sk_buff *skb,
			      struct netlink_callback *cb);

/* nl_stats.c */
int snode_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info);
int snode_nl_stats_get_dumpit(struct sk_buff *skb,
			      struct netlink_callback *cb);

/* netlink.c and nl_*.c: the family, its notifications */
int snode_nl_dev_add(struct snode_dev *sdev);
void snode_nl_dev_del(struct snode_dev *sdev);
void snode_nl_nodes_changed(struct snode_dev *sdev);
void snode_nl_link_ntf(struct snode_dev *sdev, enum snode_link_ntf kind,
		       unsigned int port, const struct snode_link_port *lp,
		       u64 threshold, const struct snode_ev_meta *meta);
void snode_nl_node_ntf(struct snode_dev *sdev, u32 id,
		       const struct snode_link_node *ln,
		       const struct snode_ev_meta *meta);
void snode_nl_revoked_ntf(struct snode_dev *sdev, u32 att_index, u32 reason,
			  u32 epoch, u32 node, u32 export_id,
			  const struct snode_ev_meta *meta);
void snode_nl_access_ntf(struct snode_dev *sdev, u64 offset, bool write,
			 const struct snode_ev_meta *meta);
void snode_nl_thermal_ntf(struct snode_dev *sdev, s32 temp, u32 power,
			  u32 alarm, const struct snode_ev_meta *meta);

#endif /* _SNODE_NETLINK_H_ */
