// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the "snode" generic-netlink family.
 */

#include <linux/cred.h>
#include <linux/error-injection.h>
#include <linux/file.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include <linux/snode.h>

#include "link.h"
#include "snode.h"

/**
 * DOC: Generic netlink family
 *
 * netlink.c implements the "snode" generic-netlink family that
 * Documentation/netlink/specs/snode.yaml specifies: gets and dumps of
 * NICs, links, fabric nodes, windows, endpoints, DMA queues and counters
 * for CAP_NET_ADMIN and the members of group read_gid (a module
 * parameter; every user while it is -1), an object's owner and pool
 * offsets only for the owning uid and CAP_NET_ADMIN, keys only for the
 * owning process and CAP_SYS_ADMIN, each judged on the socket's opener and
 * the reader together (decision 0008). A reader without CAP_NET_ADMIN
 * waits for the other such readers of the NIC before its request issues
 * an admin command (PORT_QUERY, NODE_TOPO, STATS), so they hold at most
 * one of the NIC's admin slots, and gets node tables and counters from
 * what the driver read less than SNODE_NL_USER_CACHE ago. Link
 * operations for CAP_NET_ADMIN (GENL_ADMIN_PERM), and the "events"
 * multicast group (CAP_NET_ADMIN to join), whose notifications link.c
 * raises. The code is written by hand against
 * the spec so that it builds on kernels without split ops (6.1); the
 * policies are those ynl-gen-c would generate.
 *
 * NICs enter the family (snode_nl_devs) once probed and identified, and
 * leave on unbind. snode_nl_lock protects that table only: a request holds
 * the NIC it uses (&struct snode_nl_dev.users), not the lock, while it asks
 * the device, which may take seconds on a NIC that does not answer. So
 * requests run in parallel (the family has parallel_ops, so that they
 * never hold the global genetlink mutex either), and leaving the family
 * waits for the requests using the NIC.
 *
 * Dumps resume from &struct snode_nl_dump_ctx in cb->ctx. A dump whose
 * table changed while it ran is flagged NLM_F_DUMP_INTR: snode_nl_dev_gen
 * counts NIC arrivals and departures, snode_nl_node_gen those and every
 * change of a node's state or route, and window dumps add each NIC's
 * global-memory generation (snode_mem_gen()).
 */

static struct genl_family snode_nl_family;

enum {
	SNODE_NL_MCGRP_EVENTS,
};

/*
 * Room for the largest notification (a link's, about 200 bytes). Small
 * buffers matter: a failover notifies every node at once, and listeners'
 * receive buffers are charged by the buffer, not by what it holds.
 */
#define SNODE_NL_NTF_SIZE	512

/* How old a node table or counters a reader without CAP_NET_ADMIN gets */
#define SNODE_NL_USER_CACHE	HZ

/*
 * The group whose members (and CAP_NET_ADMIN) may read the family; -1:
 * everybody. udev/60-snode.rules sets it to group snode's at load.
 */
static int snode_nl_read_gid = -1;
module_param_named(read_gid, snode_nl_read_gid, int, 0644);
MODULE_PARM_DESC(read_gid,
		 "group whose members may read the snode netlink family besides CAP_NET_ADMIN (-1: every user, the default)");

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

/*
 * May the sender of @skb read the family? Yes if read_gid is -1; else
 * both the reader and the socket's opener must have CAP_NET_ADMIN or be
 * in group read_gid (each may qualify either way), as netlink_capable()
 * judges a capability on both, so a socket handed across users grants
 * nothing.
 */
static int snode_nl_may_read(const struct sk_buff *skb,
			     struct netlink_ext_ack *extack)
{
	int gid = READ_ONCE(snode_nl_read_gid);
	struct socket *sock = NETLINK_CB(skb).sk->sk_socket;
	const struct cred *old;
	bool ok;
	kgid_t g;

	if (gid < 0)
		return 0;
	g = make_kgid(&init_user_ns, gid);
	ok = capable(CAP_NET_ADMIN) || (gid_valid(g) && in_group_p(g));
	if (ok) {
		ok = sock && sock->file;
		if (ok && !file_ns_capable(sock->file, &init_user_ns,
					   CAP_NET_ADMIN)) {
			/* the opener's groups, as file_ns_capable() its caps */
			old = override_creds(sock->file->f_cred);
			ok = gid_valid(g) && in_group_p(g);
			revert_creds(old);
		}
	}
	if (!ok) {
		NL_SET_ERR_MSG(extack,
			       "snode: reading needs CAP_NET_ADMIN or the snode group (module parameter read_gid)");
		return -EPERM;
	}
	return 0;
}

/* A dump's start: may its sender read? */
static int snode_nl_dump_start(struct netlink_callback *cb)
{
	return snode_nl_may_read(cb->skb, cb->extack);
}

/* A reader whose admin commands wait for one another (no CAP_NET_ADMIN). */
static bool snode_nl_user(const struct sk_buff *skb)
{
	return !netlink_capable(skb, CAP_NET_ADMIN);
}

/*
 * Before a request of @skb's sender issues admin commands to @nd's NIC:
 * a reader without CAP_NET_ADMIN waits for the other such readers. Returns
 * whether it took @nd->user_lock (snode_nl_user_end()), or -EINTR.
 */
static int snode_nl_user_begin(struct snode_nl_dev *nd,
			       const struct sk_buff *skb)
{
	if (!snode_nl_user(skb))
		return 0;
	if (mutex_lock_killable(&nd->user_lock))
		return -EINTR;
	return 1;
}

static void snode_nl_user_end(struct snode_nl_dev *nd, int locked)
{
	if (locked > 0)
		mutex_unlock(&nd->user_lock);
}

/* protects snode_nl_devs: NICs in the family, &struct snode_nl_dev */
static DEFINE_MUTEX(snode_nl_lock);
static DEFINE_XARRAY(snode_nl_devs);
static atomic_t snode_nl_dev_gen = ATOMIC_INIT(1);
static atomic_t snode_nl_node_gen = ATOMIC_INIT(1);

static void snode_nl_put(struct snode_nl_dev *nd)
{
	if (refcount_dec_and_test(&nd->users))
		complete(&nd->idle);
}

/*
 * Hold the NIC with the lowest index in [*index, last] and set *index to
 * it; NULL if there is none. Dumps go through the NICs from ctx->index on
 * with it, each held in turn.
 */
static struct snode_nl_dev *snode_nl_hold_next(unsigned long *index,
					       unsigned long last)
{
	struct snode_nl_dev *nd;

	mutex_lock(&snode_nl_lock);
	nd = xa_find(&snode_nl_devs, index, last, XA_PRESENT);
	if (nd)
		refcount_inc(&nd->users);
	mutex_unlock(&snode_nl_lock);
	return nd;
}

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

static struct snode_nl_dump_ctx *snode_nl_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct snode_nl_dump_ctx) > sizeof(cb->ctx));
	return (struct snode_nl_dump_ctx *)cb->ctx;
}

/* A dump with a snapshot ends: free what it did not list. */
static int snode_nl_snap_done(struct netlink_callback *cb)
{
	struct snode_nl_dump_ctx *ctx = snode_nl_dump_ctx(cb);

	kvfree(ctx->snap);
	ctx->snap = NULL;
	return 0;
}

/*
 * The request attribute @type of a dump, or NULL. The core validated the
 * request against the op's policy; it keeps the parsed attributes in a
 * place that differs between kernels, so look them up in the message.
 */
static const struct nlattr *snode_nl_dump_attr(struct netlink_callback *cb,
					       int type)
{
	return nlmsg_find_attr(cb->nlh, GENL_HDRLEN, type);
}

/*
 * Apply a dump's filter attribute @type: *last is the index of the last
 * NIC to list (the filter's, or all). Fails if the filter names no NIC.
 */
static int snode_nl_dump_filter(struct netlink_callback *cb, int type,
				unsigned long *last)
{
	const struct nlattr *attr = snode_nl_dump_attr(cb, type);
	bool found;

	*last = ULONG_MAX;
	if (!attr)
		return 0;
	*last = nla_get_u32(attr);
	mutex_lock(&snode_nl_lock);
	found = xa_load(&snode_nl_devs, *last);
	mutex_unlock(&snode_nl_lock);
	if (!found) {
		NL_SET_ERR_MSG_ATTR(cb->extack, attr, "no such snode device");
		return -ENODEV;
	}
	return 0;
}

/*
 * Hold the NIC named by attribute @type of a request, or return an error;
 * snode_nl_put() it when done.
 */
static struct snode_nl_dev *snode_nl_dev_get(struct genl_info *info, int type)
{
	unsigned long index;
	struct snode_nl_dev *nd;

	if (GENL_REQ_ATTR_CHECK(info, type))
		return ERR_PTR(-EINVAL);
	index = nla_get_u32(info->attrs[type]);
	nd = snode_nl_hold_next(&index, index);
	if (!nd) {
		NL_SET_ERR_MSG_ATTR(info->extack, info->attrs[type],
				    "no such snode device");
		return ERR_PTR(-ENODEV);
	}
	return nd;
}

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

static int snode_nl_reply(struct sk_buff *skb, struct genl_info *info)
{
	return genlmsg_reply(skb, info);
}

/* ------------------------------------------------------------------ */
/* devices                                                             */

static int snode_nl_dev_fill(struct sk_buff *skb, struct snode_nl_dev *nd,
			     const struct sk_buff *req, u32 portid, u32 seq,
			     int flags, struct netlink_callback *cb)
{
	struct snode_dev *sdev = nd->sdev;
	bool throttled = false;
	enum snode_state state;
	struct snode_id id;
	u64 threshold;
	void *hdr;

	BUILD_BUG_ON((int)SNODE_STATE_LIVE != SNODE_DEV_STATE_LIVE);
	BUILD_BUG_ON((int)SNODE_STATE_RESETTING != SNODE_DEV_STATE_RESETTING);
	BUILD_BUG_ON((int)SNODE_STATE_DEAD != SNODE_DEV_STATE_DEAD);
	BUILD_BUG_ON((int)SNODE_STATE_REMOVED != SNODE_DEV_STATE_REMOVED);

	snode_id_get(sdev, &id);
	down_read(&sdev->rwsem);
	state = sdev->state;
	up_read(&sdev->rwsem);
	if (!snode_lock_live(sdev)) {
		throttled = snode_readl(sdev, SNODE_STATUS_OFFSET) &
			    SNODE_STATUS_THROTTLED;
		snode_unlock_live(sdev);
	}
	mutex_lock(&sdev->link->lock);
	threshold = sdev->link->ber_threshold;
	mutex_unlock(&sdev->link->lock);

	hdr = genlmsg_put(skb, portid, seq, &snode_nl_family, flags,
			  SNODE_NL_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);

	if (nla_put_u32(skb, SNODE_A_DEV_INDEX, sdev->index) ||
	    nla_put_string(skb, SNODE_A_DEV_NAME, dev_name(&sdev->dev)) ||
	    nla_put_u32(skb, SNODE_A_DEV_STATE, state) ||
	    (id.node_id != SNODE_NODE_ID_NONE &&
	     nla_put_u32(skb, SNODE_A_DEV_NODE_ID, id.node_id)) ||
	    nla_put_u32(skb, SNODE_A_DEV_FABRIC_ID, id.fabric_id) ||
	    nla_put_u32(skb, SNODE_A_DEV_HW_VERSION, id.hw_version) ||
	    nla_put_u32(skb, SNODE_A_DEV_FW_VERSION, id.fw_version) ||
	    nla_put_string(skb, SNODE_A_DEV_FW_NAME, id.fw_name) ||
	    nla_put_string(skb, SNODE_A_DEV_SERIAL, id.serial) ||
	    nla_put_u32(skb, SNODE_A_DEV_CAPS, id.caps) ||
	    nla_put_u32(skb, SNODE_A_DEV_NPORTS, id.nports) ||
	    nla_put_u32(skb, SNODE_A_DEV_MAX_NODES, id.max_nodes) ||
	    nla_put_u32(skb, SNODE_A_DEV_ATT_ENTRIES, id.att_entries) ||
	    nla_put_u32(skb, SNODE_A_DEV_EXPORT_ENTRIES, id.export_entries) ||
	    nla_put_u64_64bit(skb, SNODE_A_DEV_POOL_SIZE, id.pool_size,
			      SNODE_A_DEV_PAD) ||
	    nla_put_u64_64bit(skb, SNODE_A_DEV_APERTURE_SIZE, id.aperture_size,
			      SNODE_A_DEV_PAD) ||
	    (throttled && nla_put_flag(skb, SNODE_A_DEV_THROTTLED)) ||
	    nla_put_u64_64bit(skb, SNODE_A_DEV_BER_THRESHOLD, threshold,
			      SNODE_A_DEV_PAD) ||
	    (sdev->mem &&
	     nla_put_u64_64bit(skb, SNODE_A_DEV_POOL_FREE,
			       snode_mem_pool_free(sdev), SNODE_A_DEV_PAD)))
		goto nla_put_failure;

	genlmsg_end(skb, hdr);
	return 0;

nla_put_failure:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * Puts one message about a NIC (dev-get, stats-get) for the request @req;
 * cb only in dumps.
 */
typedef int (*snode_nl_nic_fill_t)(struct sk_buff *skb, struct snode_nl_dev *nd,
				   const struct sk_buff *req, u32 portid,
				   u32 seq, int flags,
				   struct netlink_callback *cb);

/* A get of one NIC, named by attribute @dev_attr: one message from @fill. */
static int snode_nl_nic_doit(struct sk_buff *skb, struct genl_info *info,
			     int dev_attr, snode_nl_nic_fill_t fill)
{
	struct snode_nl_dev *nd;
	struct sk_buff *msg;
	int ret;

	ret = snode_nl_may_read(skb, info->extack);
	if (ret)
		return ret;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	nd = snode_nl_dev_get(info, dev_attr);
	if (IS_ERR(nd)) {
		ret = PTR_ERR(nd);
	} else {
		ret = fill(msg, nd, skb, info->snd_portid, info->snd_seq, 0,
			   NULL);
		snode_nl_put(nd);
	}
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return snode_nl_reply(msg, info);
}

/*
 * A dump of one message per NIC from @fill, of every NIC or of the one
 * that the filter attribute @dev_attr names; it ends with the first error
 * (a NIC that cannot answer a stats-get fails the dump: its NLMSG_DONE
 * carries the errno).
 */
static int snode_nl_nic_dumpit(struct sk_buff *skb, struct netlink_callback *cb,
			       int dev_attr, snode_nl_nic_fill_t fill)
{
	struct snode_nl_dump_ctx *ctx = snode_nl_dump_ctx(cb);
	struct snode_nl_dev *nd;
	unsigned long last;
	int ret;

	ret = snode_nl_dump_filter(cb, dev_attr, &last);
	if (ret)
		return ret;
	cb->seq = atomic_read(&snode_nl_dev_gen);
	for (; (nd = snode_nl_hold_next(&ctx->index, last));
	     snode_nl_put(nd), ctx->index++) {
		ret = fill(skb, nd, cb->skb, NETLINK_CB(cb->skb).portid,
			   cb->nlh->nlmsg_seq, NLM_F_MULTI, cb);
		if (ret) {
			snode_nl_put(nd);
			break;
		}
	}
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret;
}

static int snode_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return snode_nl_nic_doit(skb, info, SNODE_A_DEV_INDEX,
				 snode_nl_dev_fill);
}

static int snode_nl_dev_get_dumpit(struct sk_buff *skb,
				   struct netlink_callback *cb)
{
	return snode_nl_nic_dumpit(skb, cb, SNODE_A_DEV_INDEX, snode_nl_dev_fill);
}

static int snode_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *threshold = info->attrs[SNODE_A_DEV_BER_THRESHOLD];
	struct snode_nl_dev *nd;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, SNODE_A_DEV_BER_THRESHOLD))
		return -EINVAL;

	nd = snode_nl_dev_get(info, SNODE_A_DEV_INDEX);
	if (IS_ERR(nd))
		return PTR_ERR(nd);
	ret = snode_link_set_threshold(nd->sdev, -1, nla_get_u64(threshold));
	snode_nl_put(nd);
	return ret;
}

/* ------------------------------------------------------------------ */
/* links                                                               */

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
	void *hdr;

	snode_link_util_get(sdev, port, &util);

	hdr = genlmsg_put(skb, portid, seq, &snode_nl_family, flags,
			  SNODE_NL_CMD_LINK_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);

	if (nla_put_u32(skb, SNODE_A_LINK_DEV_INDEX, sdev->index) ||
	    nla_put_string(skb, SNODE_A_LINK_DEV_NAME, dev_name(&sdev->dev)) ||
	    nla_put_u32(skb, SNODE_A_LINK_PORT, port) ||
	    nla_put_u32(skb, SNODE_A_LINK_ADMIN_STATE, p->admin_state) ||
	    nla_put_u32(skb, SNODE_A_LINK_OPER_STATE, p->oper_state) ||
	    nla_put_u32(skb, SNODE_A_LINK_LANES, p->lanes) ||
	    nla_put_u32(skb, SNODE_A_LINK_MAX_LANES, p->max_lanes) ||
	    nla_put_u32(skb, SNODE_A_LINK_SPEED, p->speed))
		goto nla_put_failure;
	if (p->peer_node != SNODE_NODE_ID_NONE) {
		if (nla_put_u32(skb, SNODE_A_LINK_PEER_NODE, p->peer_node) ||
		    nla_put_u32(skb, SNODE_A_LINK_PEER_PORT, p->peer_port))
			goto nla_put_failure;
	} else if (to_switch) {
		if (nla_put_u32(skb, SNODE_A_LINK_PEER_SWITCH,
				p->peer_port & ~SNODE_PORT_PEER_SWITCH) ||
		    snode_nl_put_peer_switch(skb, sdev->link,
					     p->peer_port & ~SNODE_PORT_PEER_SWITCH))
			goto nla_put_failure;
	}
	if (nla_put_u64_64bit(skb, SNODE_A_LINK_CRC_ERRORS, p->crc_errors,
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
	    snode_nl_put_util(skb, &util))
		goto nla_put_failure;

	genlmsg_end(skb, hdr);
	return 0;

nla_put_failure:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int snode_nl_link_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct snode_isolate iso;
	struct snode_nl_dev *nd;
	struct snode_port p;
	struct sk_buff *msg;
	int ret, port, locked;
	u64 threshold;
	bool alarm;

	ret = snode_nl_may_read(skb, info->extack);
	if (ret)
		return ret;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	nd = snode_nl_dev_get(info, SNODE_A_LINK_DEV_INDEX);
	if (IS_ERR(nd)) {
		nlmsg_free(msg);
		return PTR_ERR(nd);
	}
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
	snode_nl_put(nd);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return snode_nl_reply(msg, info);
}

static int snode_nl_link_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct snode_nl_dump_ctx *ctx = snode_nl_dump_ctx(cb);
	struct snode_isolate iso;
	struct snode_nl_dev *nd;
	unsigned long last;
	struct snode_port p;
	u64 threshold;
	bool alarm;
	int ret;

	ret = snode_nl_dump_filter(cb, SNODE_A_LINK_DEV_INDEX, &last);
	if (ret)
		return ret;
	cb->seq = atomic_read(&snode_nl_dev_gen);
	for (; (nd = snode_nl_hold_next(&ctx->index, last));
	     snode_nl_put(nd), ctx->index++) {
		struct snode_dev *sdev = nd->sdev;
		int locked = snode_nl_user_begin(nd, cb->skb);

		if (locked < 0) {
			ret = locked;
			snode_nl_put(nd);
			break;
		}
		if (!ctx->pos)
			snode_link_topo_refresh(sdev);
		for (; ctx->pos < sdev->link->nports; ctx->pos++) {
			/*
			 * A NIC that cannot answer (being reset) still lists
			 * its links, as it last reported them.
			 */
			snode_link_port_get(sdev, ctx->pos, &p, &threshold,
					    &alarm, &iso);
			ret = snode_nl_link_fill(skb, sdev, ctx->pos, &p,
						 threshold, alarm, &iso,
						 NETLINK_CB(cb->skb).portid,
						 cb->nlh->nlmsg_seq,
						 NLM_F_MULTI, cb);
			if (ret)
				break;
		}
		snode_nl_user_end(nd, locked);
		if (ret) {
			snode_nl_put(nd);
			break;
		}
		ctx->pos = 0;
	}
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret;
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

static int snode_nl_link_set_doit(struct sk_buff *skb, struct genl_info *info)
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

static int snode_nl_link_reset_doit(struct sk_buff *skb,
				    struct genl_info *info)
{
	return snode_nl_link_action(info, SNODE_PORT_SET_RESET);
}

static int snode_nl_link_clear_doit(struct sk_buff *skb,
				    struct genl_info *info)
{
	return snode_nl_link_action(info, SNODE_PORT_SET_CLEAR);
}

/* ------------------------------------------------------------------ */
/* nodes                                                               */

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
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &snode_nl_family, flags,
			  SNODE_NL_CMD_NODE_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);

	if (nla_put_u32(skb, SNODE_A_NODE_DEV_INDEX, sdev->index) ||
	    nla_put_u32(skb, SNODE_A_NODE_ID, id) ||
	    nla_put_u32(skb, SNODE_A_NODE_STATE, ln->state) ||
	    (ln->route != SNODE_LINK_NO_ROUTE &&
	     nla_put_u32(skb, SNODE_A_NODE_ROUTE_PORT, ln->route)) ||
	    __snode_nl_put_node_topo(skb, sdev->link, ln))
		goto nla_put_failure;

	genlmsg_end(skb, hdr);
	return 0;

nla_put_failure:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
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

static int snode_nl_node_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct snode_link_node ln;
	struct snode_link *link;
	struct snode_nl_dev *nd;
	struct snode_dev *sdev;
	struct sk_buff *msg;
	u32 id;
	int ret;

	ret = snode_nl_may_read(skb, info->extack);
	if (ret)
		return ret;
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	nd = snode_nl_dev_get(info, SNODE_A_NODE_DEV_INDEX);
	if (IS_ERR(nd)) {
		nlmsg_free(msg);
		return PTR_ERR(nd);
	}
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
	snode_nl_put(nd);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return snode_nl_reply(msg, info);
}

static int snode_nl_node_get_dumpit(struct sk_buff *skb,
				    struct netlink_callback *cb)
{
	struct snode_nl_dump_ctx *ctx = snode_nl_dump_ctx(cb);
	struct snode_link *link;
	struct snode_nl_dev *nd;
	struct snode_dev *sdev;
	unsigned long last;
	int ret;

	ret = snode_nl_dump_filter(cb, SNODE_A_NODE_DEV_INDEX, &last);
	if (ret)
		return ret;
	cb->seq = atomic_read(&snode_nl_node_gen);
	for (; (nd = snode_nl_hold_next(&ctx->index, last));
	     snode_nl_put(nd), ctx->index++) {
		sdev = nd->sdev;
		link = sdev->link;
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
						 cb->nlh->nlmsg_seq,
						 NLM_F_MULTI, cb);
			if (ret)
				break;
		}
		mutex_unlock(&link->lock);
		if (ret) {
			snode_nl_put(nd);
			break;
		}
		ctx->pos = 0;
		ctx->refreshed = false;
	}
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret;
}

/* ------------------------------------------------------------------ */
/* windows                                                             */

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

/* The reader of a dump, as snode_owner_visible() judges it. */
static void snode_nl_viewer(struct netlink_callback *cb,
			    struct snode_viewer *viewer)
{
	/*
	 * Owner details go to their uid and to CAP_NET_ADMIN only. Like
	 * netlink_capable(), both the socket's creator and the reader must
	 * qualify, so a socket handed to another process leaks nothing.
	 */
	viewer->uid = sock_i_uid(NETLINK_CB(cb->skb).sk);
	if (!uid_eq(viewer->uid, current_euid()))
		viewer->uid = INVALID_UID;
	/* the reader's own objects, only on a socket of its own uid */
	viewer->pid = uid_valid(viewer->uid) ? task_tgid(current) : NULL;
	viewer->admin = netlink_capable(cb->skb, CAP_NET_ADMIN);
	viewer->keys = netlink_capable(cb->skb, CAP_SYS_ADMIN);
}

static int snode_nl_window_fill(struct sk_buff *skb, struct snode_dev *sdev,
				u32 kind, const struct snode_mem_entry *e,
				u32 portid, u32 seq, int flags,
				struct netlink_callback *cb)
{
	bool export = kind == SNODE_WINDOW_KIND_EXPORT;
	bool pool = export || kind == SNODE_WINDOW_KIND_ALLOC;
	bool hidden = e->flags & SNODE_ENTRY_HIDDEN;
	u32 perm = SNODE_WINDOW_PERM_READ, wflags = 0;
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
	hdr = genlmsg_put(skb, portid, seq, &snode_nl_family, flags,
			  SNODE_NL_CMD_WINDOW_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);

	if (nla_put_u32(skb, SNODE_A_WINDOW_DEV_INDEX, sdev->index) ||
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
	    (wflags && nla_put_u32(skb, SNODE_A_WINDOW_FLAGS, wflags)))
		goto nla_put_failure;
	if (!pool &&
	    (nla_put_u32(skb, SNODE_A_WINDOW_EXPORT_ID, e->export_id) ||
	     (!hidden &&
	      nla_put_u64_64bit(skb, SNODE_A_WINDOW_EXPORT_OFFSET, e->offset,
				SNODE_A_WINDOW_PAD)) ||
	     nla_put_u32(skb, SNODE_A_WINDOW_EPOCH, e->epoch) ||
	     (e->reason &&
	      nla_put_u32(skb, SNODE_A_WINDOW_REVOKE_REASON, e->reason))))
		goto nla_put_failure;

	genlmsg_end(skb, hdr);
	return 0;

nla_put_failure:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/*
 * The generation of the window tables a dump lists (every NIC up to
 * @last): it changes with any NIC's arrival or departure and with any
 * change of a table, so a dump spanning one reports NLM_F_DUMP_INTR.
 */
static unsigned int snode_nl_window_gen(unsigned long last)
{
	unsigned int gen = atomic_read(&snode_nl_dev_gen);
	struct snode_nl_dev *nd;
	unsigned long index;

	mutex_lock(&snode_nl_lock);
	xa_for_each_range(&snode_nl_devs, index, nd, 0, last)
		gen += snode_mem_gen(nd->sdev);
	mutex_unlock(&snode_nl_lock);
	return gen;
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

static int snode_nl_window_get_dumpit(struct sk_buff *skb,
				      struct netlink_callback *cb)
{
	struct snode_nl_dump_ctx *ctx = snode_nl_dump_ctx(cb);
	struct snode_nl_dev *nd;
	unsigned long last;
	int ret;

	ret = snode_nl_dump_filter(cb, SNODE_A_WINDOW_DEV_INDEX, &last);
	if (ret)
		return ret;
	cb->seq = snode_nl_window_gen(last);
	for (; (nd = snode_nl_hold_next(&ctx->index, last));
	     snode_nl_put(nd), ctx->index++) {
		for (; ctx->table < ARRAY_SIZE(snode_nl_window_tables);
		     ctx->table++) {
			ret = snode_nl_window_table(skb, cb, nd->sdev,
						    ctx->table);
			if (ret)
				break;
			ctx->pos = 0;
		}
		if (ret) {
			snode_nl_put(nd);
			break;
		}
		ctx->table = 0;
	}
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret;
}

/* ------------------------------------------------------------------ */
/* endpoints and DMA queues                                            */

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

/* Emit the objects of @sdev from ctx->pos on. */
static int snode_nl_obj_table(struct sk_buff *skb, struct netlink_callback *cb,
			      struct snode_dev *sdev,
			      const struct snode_nl_obj_kind *kind,
			      const struct snode_viewer *viewer)
{
	struct snode_nl_dump_ctx *ctx = snode_nl_dump_ctx(cb);
	struct snode_obj_entry *entries = ctx->snap;
	u32 n = ctx->snap_n;
	void *hdr;
	int ret;

	/* one snapshot per NIC and dump, as for windows */
	if (entries && ctx->snap_dev != sdev->index) {
		snode_nl_snap_done(cb);
		entries = NULL;
	}
	if (!entries) {
		n = kind->list(sdev, NULL, 0, viewer);
		if (!n)
			return 0;
		entries = kvcalloc(n, sizeof(*entries), GFP_KERNEL_ACCOUNT);
		if (!entries)
			return -ENOMEM;
		n = min(n, kind->list(sdev, entries, n, viewer));
		ctx->snap = entries;
		ctx->snap_n = n;
		ctx->snap_dev = sdev->index;
		ctx->pos = 0;
	}
	for (; ctx->pos < n; ctx->pos++) {
		hdr = genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				  cb->nlh->nlmsg_seq, &snode_nl_family,
				  NLM_F_MULTI, kind->cmd);
		if (!hdr)
			return -EMSGSIZE;
		genl_dump_check_consistent(cb, hdr);
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

/*
 * The generation of the endpoint or queue tables a dump lists (every NIC
 * up to @last), as snode_nl_window_gen() for windows.
 */
static unsigned int snode_nl_obj_gen(const struct snode_nl_obj_kind *kind,
				     unsigned long last)
{
	unsigned int gen = atomic_read(&snode_nl_dev_gen);
	struct snode_nl_dev *nd;
	unsigned long index;

	mutex_lock(&snode_nl_lock);
	xa_for_each_range(&snode_nl_devs, index, nd, 0, last)
		gen += kind->gen(nd->sdev);
	mutex_unlock(&snode_nl_lock);
	return gen;
}

/*
 * Dump the endpoints or DMA queues of every NIC, or of the one the filter
 * names. A dump that spans the creation or destruction of one, or a NIC's
 * arrival or departure, is flagged NLM_F_DUMP_INTR.
 */
static int snode_nl_obj_dump(struct sk_buff *skb, struct netlink_callback *cb,
			     const struct snode_nl_obj_kind *kind)
{
	struct snode_nl_dump_ctx *ctx = snode_nl_dump_ctx(cb);
	struct snode_viewer viewer;
	struct snode_nl_dev *nd;
	unsigned long last;
	int ret;

	ret = snode_nl_dump_filter(cb, kind->dev_attr, &last);
	if (ret)
		return ret;
	snode_nl_viewer(cb, &viewer);
	cb->seq = snode_nl_obj_gen(kind, last);
	for (; (nd = snode_nl_hold_next(&ctx->index, last));
	     snode_nl_put(nd), ctx->index++, ctx->pos = 0) {
		ret = snode_nl_obj_table(skb, cb, nd->sdev, kind, &viewer);
		if (ret) {
			snode_nl_put(nd);
			break;
		}
	}
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret;
}

static int snode_nl_endpoint_get_dumpit(struct sk_buff *skb,
					struct netlink_callback *cb)
{
	return snode_nl_obj_dump(skb, cb, &snode_nl_eps);
}

static int snode_nl_queue_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
{
	return snode_nl_obj_dump(skb, cb, &snode_nl_queues);
}

/* ------------------------------------------------------------------ */
/* counters                                                            */

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
		if (!ret && locked) {
			nd->stats = st;
			nd->stats_at = jiffies;
			nd->stats_ok = true;
		}
		snode_nl_user_end(nd, locked);
		if (ret)
			return ret;
	}
	hdr = genlmsg_put(skb, portid, seq, &snode_nl_family, flags,
			  SNODE_NL_CMD_STATS_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);
	if (nla_put_u32(skb, SNODE_A_STATS_DEV_INDEX, sdev->index) ||
	    nla_put_u64_64bit(skb, SNODE_A_STATS_SEND_RETRIES, st.send_retries,
			      SNODE_A_STATS_PAD))
		goto nla_put_failure;
	for (i = 0; i < ARRAY_SIZE(hw); i++) {
		__le64 *v = (void *)&st.hw + hw[i].off;

		if (nla_put_u64_64bit(skb, hw[i].attr, le64_to_cpu(*v),
				      SNODE_A_STATS_PAD))
			goto nla_put_failure;
	}
	genlmsg_end(skb, hdr);
	return 0;

nla_put_failure:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

static int snode_nl_stats_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return snode_nl_nic_doit(skb, info, SNODE_A_STATS_DEV_INDEX,
				 snode_nl_stats_fill);
}

static int snode_nl_stats_get_dumpit(struct sk_buff *skb,
				     struct netlink_callback *cb)
{
	return snode_nl_nic_dumpit(skb, cb, SNODE_A_STATS_DEV_INDEX,
				   snode_nl_stats_fill);
}

/* ------------------------------------------------------------------ */
/* notifications                                                       */

static void *snode_nl_ntf_start(struct sk_buff **skbp, struct snode_dev *sdev,
				u8 cmd, const struct snode_ev_meta *meta)
{
	struct sk_buff *skb;
	void *hdr;

	*skbp = NULL;
	if (!genl_has_listeners(&snode_nl_family, &init_net,
				SNODE_NL_MCGRP_EVENTS))
		return NULL;
	skb = genlmsg_new(SNODE_NL_NTF_SIZE, GFP_KERNEL);
	if (!skb)
		return NULL;
	hdr = genlmsg_put(skb, 0, 0, &snode_nl_family, 0, cmd);
	if (!hdr)
		goto err_free;
	if (nla_put_u32(skb, SNODE_A_EVENT_DEV_INDEX, sdev->index) ||
	    nla_put_string(skb, SNODE_A_EVENT_DEV_NAME, dev_name(&sdev->dev)) ||
	    nla_put_u64_64bit(skb, SNODE_A_EVENT_TIMESTAMP, meta->ts,
			      SNODE_A_EVENT_PAD) ||
	    (meta->hw_ts &&
	     nla_put_u64_64bit(skb, SNODE_A_EVENT_HW_TIMESTAMP, meta->hw_ts,
			       SNODE_A_EVENT_PAD)) ||
	    (meta->suppressed &&
	     nla_put_u32(skb, SNODE_A_EVENT_SUPPRESSED, meta->suppressed)))
		goto err_free;
	*skbp = skb;
	return hdr;

err_free:
	nlmsg_free(skb);
	return NULL;
}

static void snode_nl_ntf_send(struct sk_buff *skb, void *hdr)
{
	genlmsg_end(skb, hdr);
	genlmsg_multicast(&snode_nl_family, skb, 0, SNODE_NL_MCGRP_EVENTS,
			  GFP_KERNEL);
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
	struct sk_buff *skb;
	struct nlattr *nest;
	void *hdr;

	static const u8 cmds[SNODE_LINK_NTF_NR] = {
		[SNODE_LINK_NTF_STATE] = SNODE_NL_CMD_LINK_STATE_NTF,
		[SNODE_LINK_NTF_BER] = SNODE_NL_CMD_LINK_BER_NTF,
		[SNODE_LINK_NTF_ISOLATION] = SNODE_NL_CMD_LINK_ISOLATION_NTF,
		[SNODE_LINK_NTF_UTIL] = SNODE_NL_CMD_LINK_UTIL_NTF,
	};

	hdr = snode_nl_ntf_start(&skb, sdev, cmds[kind], meta);
	if (!hdr)
		return;
	nest = nla_nest_start(skb, SNODE_A_EVENT_LINK);
	if (!nest ||
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
	    snode_nl_put_util(skb, &lp->util))
		goto err_free;
	nla_nest_end(skb, nest);
	snode_nl_ntf_send(skb, hdr);
	return;

err_free:
	nlmsg_free(skb);
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
	struct sk_buff *skb;
	struct nlattr *nest;
	void *hdr;

	hdr = snode_nl_ntf_start(&skb, sdev, SNODE_NL_CMD_NODE_STATE_NTF, meta);
	if (!hdr)
		return;
	nest = nla_nest_start(skb, SNODE_A_EVENT_NODE);
	if (!nest ||
	    nla_put_u32(skb, SNODE_A_NODE_ID, id) ||
	    nla_put_u32(skb, SNODE_A_NODE_STATE, ln->state) ||
	    (ln->route != SNODE_LINK_NO_ROUTE &&
	     nla_put_u32(skb, SNODE_A_NODE_ROUTE_PORT, ln->route)) ||
	    nla_put_u32(skb, SNODE_A_NODE_PREV_STATE, ln->sent_state) ||
	    (ln->sent_route != SNODE_LINK_NO_ROUTE &&
	     nla_put_u32(skb, SNODE_A_NODE_PREV_ROUTE_PORT, ln->sent_route)) ||
	    __snode_nl_put_node_topo(skb, sdev->link, ln))
		goto err_free;
	nla_nest_end(skb, nest);
	snode_nl_ntf_send(skb, hdr);
	return;

err_free:
	nlmsg_free(skb);
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
	struct sk_buff *skb;
	struct nlattr *nest;
	void *hdr;

	hdr = snode_nl_ntf_start(&skb, sdev, SNODE_NL_CMD_WINDOW_REVOKED_NTF, meta);
	if (!hdr)
		return;
	nest = nla_nest_start(skb, SNODE_A_EVENT_WINDOW);
	if (!nest ||
	    nla_put_u32(skb, SNODE_A_WINDOW_KIND, SNODE_WINDOW_KIND_ATT) ||
	    nla_put_u32(skb, SNODE_A_WINDOW_INDEX, att_index) ||
	    nla_put_u32(skb, SNODE_A_WINDOW_NODE, node) ||
	    nla_put_u32(skb, SNODE_A_WINDOW_EXPORT_ID, export_id) ||
	    nla_put_u32(skb, SNODE_A_WINDOW_EPOCH, epoch) ||
	    nla_put_u32(skb, SNODE_A_WINDOW_REVOKE_REASON, reason))
		goto err_free;
	nla_nest_end(skb, nest);
	snode_nl_ntf_send(skb, hdr);
	return;

err_free:
	nlmsg_free(skb);
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
	struct sk_buff *skb;
	void *hdr;

	hdr = snode_nl_ntf_start(&skb, sdev, SNODE_NL_CMD_ACCESS_VIOLATION_NTF,
				 meta);
	if (!hdr)
		return;
	if (nla_put_u64_64bit(skb, SNODE_A_EVENT_ACCESS_OFFSET, offset,
			      SNODE_A_EVENT_PAD) ||
	    (write && nla_put_flag(skb, SNODE_A_EVENT_ACCESS_WRITE))) {
		nlmsg_free(skb);
		return;
	}
	snode_nl_ntf_send(skb, hdr);
}

/**
 * snode_nl_thermal_ntf() - notify a sensor threshold crossing
 * @sdev: snode device
 * @temp: die temperature, milli-degC
 * @power: power draw, mW
 * @alarm: SENSOR_ALARM bits, enum snode_thermal_alarm
 * @meta: timestamps
 *
 * Context: Process context.
 */
void snode_nl_thermal_ntf(struct snode_dev *sdev, s32 temp, u32 power,
			  u32 alarm, const struct snode_ev_meta *meta)
{
	struct sk_buff *skb;
	void *hdr;

	BUILD_BUG_ON(SNODE_ALARM_TEMP_MAX != SNODE_THERMAL_ALARM_TEMP_MAX);
	BUILD_BUG_ON(SNODE_ALARM_TEMP_CRIT != SNODE_THERMAL_ALARM_TEMP_CRIT);
	BUILD_BUG_ON(SNODE_ALARM_POWER_MAX != SNODE_THERMAL_ALARM_POWER_MAX);

	hdr = snode_nl_ntf_start(&skb, sdev, SNODE_NL_CMD_THERMAL_NTF, meta);
	if (!hdr)
		return;
	if (nla_put_s32(skb, SNODE_A_EVENT_TEMP, temp) ||
	    nla_put_u32(skb, SNODE_A_EVENT_POWER, power) ||
	    nla_put_u32(skb, SNODE_A_EVENT_THERMAL_ALARM, alarm)) {
		nlmsg_free(skb);
		return;
	}
	snode_nl_ntf_send(skb, hdr);
}

/* ------------------------------------------------------------------ */
/* the family                                                          */

/* Policies as ynl-gen-c renders them from the spec. */
static const struct nla_policy snode_dev_get_nl_policy[SNODE_A_DEV_INDEX + 1] = {
	[SNODE_A_DEV_INDEX] = { .type = NLA_U32, },
};

static const struct nla_policy snode_dev_set_nl_policy[SNODE_A_DEV_BER_THRESHOLD + 1] = {
	[SNODE_A_DEV_INDEX] = { .type = NLA_U32, },
	[SNODE_A_DEV_BER_THRESHOLD] = { .type = NLA_U64, },
};

/* link-get: do takes dev-index and port, dump an optional dev-index */
static const struct nla_policy snode_link_get_nl_policy[SNODE_A_LINK_PORT + 1] = {
	[SNODE_A_LINK_DEV_INDEX] = { .type = NLA_U32, },
	[SNODE_A_LINK_PORT] = { .type = NLA_U32, },
};

/* a maximum above S16_MAX needs a range; 6.1 takes it without const */
static struct netlink_range_validation snode_a_link_isolate_window_range __ro_after_init = {
	.max	= SNODE_LINK_MAX_FLAP_WINDOW,
};

static const struct nla_policy snode_link_set_nl_policy[SNODE_A_LINK_UTIL_THRESHOLD + 1] = {
	[SNODE_A_LINK_DEV_INDEX] = { .type = NLA_U32, },
	[SNODE_A_LINK_PORT] = { .type = NLA_U32, },
	[SNODE_A_LINK_ADMIN_STATE] = NLA_POLICY_MAX(NLA_U32, 1),
	[SNODE_A_LINK_BER_THRESHOLD] = { .type = NLA_U64, },
	[SNODE_A_LINK_AUTO_ISOLATE] = NLA_POLICY_MAX(NLA_U32, 1),
	[SNODE_A_LINK_ISOLATE_BER] = { .type = NLA_U64, },
	[SNODE_A_LINK_ISOLATE_FLAPS] = NLA_POLICY_MAX(NLA_U32, SNODE_LINK_MAX_FLAPS),
	[SNODE_A_LINK_ISOLATE_WINDOW] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &snode_a_link_isolate_window_range),
	[SNODE_A_LINK_UTIL_THRESHOLD] = NLA_POLICY_RANGE(NLA_U32, 1, 100),
};

/* link-reset and link-clear */
static const struct nla_policy snode_link_port_nl_policy[SNODE_A_LINK_PORT + 1] = {
	[SNODE_A_LINK_DEV_INDEX] = { .type = NLA_U32, },
	[SNODE_A_LINK_PORT] = { .type = NLA_U32, },
};

static const struct nla_policy snode_node_get_nl_policy[SNODE_A_NODE_ID + 1] = {
	[SNODE_A_NODE_DEV_INDEX] = { .type = NLA_U32, },
	[SNODE_A_NODE_ID] = { .type = NLA_U32, },
};

static const struct nla_policy snode_window_get_nl_policy[SNODE_A_WINDOW_DEV_INDEX + 1] = {
	[SNODE_A_WINDOW_DEV_INDEX] = { .type = NLA_U32, },
};

/* endpoint-get, queue-get and stats-get: an optional or required dev-index */
static const struct nla_policy snode_endpoint_get_nl_policy[SNODE_A_ENDPOINT_DEV_INDEX + 1] = {
	[SNODE_A_ENDPOINT_DEV_INDEX] = { .type = NLA_U32, },
};

static const struct nla_policy snode_queue_get_nl_policy[SNODE_A_QUEUE_DEV_INDEX + 1] = {
	[SNODE_A_QUEUE_DEV_INDEX] = { .type = NLA_U32, },
};

static const struct nla_policy snode_stats_get_nl_policy[SNODE_A_STATS_DEV_INDEX + 1] = {
	[SNODE_A_STATS_DEV_INDEX] = { .type = NLA_U32, },
};

static const struct genl_ops snode_nl_ops[] = {
	{
		.cmd		= SNODE_NL_CMD_DEV_GET,
		.doit		= snode_nl_dev_get_doit,
		.start		= snode_nl_dump_start,
		.dumpit		= snode_nl_dev_get_dumpit,
		.policy		= snode_dev_get_nl_policy,
		.maxattr	= SNODE_A_DEV_INDEX,
	},
	{
		.cmd		= SNODE_NL_CMD_DEV_SET,
		.doit		= snode_nl_dev_set_doit,
		.policy		= snode_dev_set_nl_policy,
		.maxattr	= SNODE_A_DEV_BER_THRESHOLD,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= SNODE_NL_CMD_LINK_GET,
		.doit		= snode_nl_link_get_doit,
		.start		= snode_nl_dump_start,
		.dumpit		= snode_nl_link_get_dumpit,
		.policy		= snode_link_get_nl_policy,
		.maxattr	= SNODE_A_LINK_PORT,
	},
	{
		.cmd		= SNODE_NL_CMD_LINK_SET,
		.doit		= snode_nl_link_set_doit,
		.policy		= snode_link_set_nl_policy,
		.maxattr	= SNODE_A_LINK_UTIL_THRESHOLD,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= SNODE_NL_CMD_LINK_RESET,
		.doit		= snode_nl_link_reset_doit,
		.policy		= snode_link_port_nl_policy,
		.maxattr	= SNODE_A_LINK_PORT,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= SNODE_NL_CMD_LINK_CLEAR,
		.doit		= snode_nl_link_clear_doit,
		.policy		= snode_link_port_nl_policy,
		.maxattr	= SNODE_A_LINK_PORT,
		.flags		= GENL_ADMIN_PERM,
	},
	{
		.cmd		= SNODE_NL_CMD_NODE_GET,
		.doit		= snode_nl_node_get_doit,
		.start		= snode_nl_dump_start,
		.dumpit		= snode_nl_node_get_dumpit,
		.policy		= snode_node_get_nl_policy,
		.maxattr	= SNODE_A_NODE_ID,
	},
	{
		.cmd		= SNODE_NL_CMD_WINDOW_GET,
		.start		= snode_nl_dump_start,
		.dumpit		= snode_nl_window_get_dumpit,
		.done		= snode_nl_snap_done,
		.policy		= snode_window_get_nl_policy,
		.maxattr	= SNODE_A_WINDOW_DEV_INDEX,
	},
	{
		.cmd		= SNODE_NL_CMD_ENDPOINT_GET,
		.start		= snode_nl_dump_start,
		.dumpit		= snode_nl_endpoint_get_dumpit,
		.done		= snode_nl_snap_done,
		.policy		= snode_endpoint_get_nl_policy,
		.maxattr	= SNODE_A_ENDPOINT_DEV_INDEX,
	},
	{
		.cmd		= SNODE_NL_CMD_QUEUE_GET,
		.start		= snode_nl_dump_start,
		.dumpit		= snode_nl_queue_get_dumpit,
		.done		= snode_nl_snap_done,
		.policy		= snode_queue_get_nl_policy,
		.maxattr	= SNODE_A_QUEUE_DEV_INDEX,
	},
	{
		.cmd		= SNODE_NL_CMD_STATS_GET,
		.doit		= snode_nl_stats_get_doit,
		.start		= snode_nl_dump_start,
		.dumpit		= snode_nl_stats_get_dumpit,
		.policy		= snode_stats_get_nl_policy,
		.maxattr	= SNODE_A_STATS_DEV_INDEX,
	},
};

static const struct genl_multicast_group snode_nl_mcgrps[] = {
	/* events name other users' windows and endpoints: admins only */
	[SNODE_NL_MCGRP_EVENTS] = {
		.name = SNODE_MCGRP_EVENTS,
		.flags = GENL_MCAST_CAP_NET_ADMIN,
	},
};

static struct genl_family snode_nl_family __ro_after_init = {
	.name		= SNODE_FAMILY_NAME,
	.version	= SNODE_FAMILY_VERSION,
	.netnsok	= false,
	.parallel_ops	= true,
	.module		= THIS_MODULE,
	.ops		= snode_nl_ops,
	.n_ops		= ARRAY_SIZE(snode_nl_ops),
	.mcgrps		= snode_nl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(snode_nl_mcgrps),
};

/**
 * snode_nl_dev_add() - make a NIC visible in the family
 * @sdev: snode device with its link state registered
 *
 * Context: Process context.
 * Return: 0 or a negative errno.
 */
int snode_nl_dev_add(struct snode_dev *sdev)
{
	struct snode_nl_dev *nd;
	int ret;

	nd = kzalloc(sizeof(*nd), GFP_KERNEL);
	if (!nd)
		return -ENOMEM;
	nd->sdev = sdev;
	refcount_set(&nd->users, 1);
	init_completion(&nd->idle);
	mutex_init(&nd->user_lock);

	mutex_lock(&snode_nl_lock);
	ret = xa_insert(&snode_nl_devs, sdev->index, nd, GFP_KERNEL);
	if (!ret) {
		atomic_inc(&snode_nl_dev_gen);
		atomic_inc(&snode_nl_node_gen);
	}
	mutex_unlock(&snode_nl_lock);
	if (ret)
		kfree(nd);
	return ret;
}

/*
 * A fail_function point: failing it fails a probe late, after the NIC was
 * identified and its queues and link state were set up, which tests the
 * unwinding of all of that (devm actions, the queues, the link works).
 */
ALLOW_ERROR_INJECTION(snode_nl_dev_add, ERRNO);

/**
 * snode_nl_dev_del() - remove a NIC from the family
 * @sdev: snode device
 *
 * Waits for the request using the NIC, if any.
 *
 * Context: Process context.
 */
void snode_nl_dev_del(struct snode_dev *sdev)
{
	struct snode_nl_dev *nd;

	mutex_lock(&snode_nl_lock);
	nd = xa_erase(&snode_nl_devs, sdev->index);
	atomic_inc(&snode_nl_dev_gen);
	atomic_inc(&snode_nl_node_gen);
	mutex_unlock(&snode_nl_lock);
	if (!nd)
		return;
	snode_nl_put(nd);
	wait_for_completion(&nd->idle);
	kfree(nd);
}

/**
 * snode_nl_nodes_changed() - a node's state or route changed
 *
 * Makes node dumps that span the change report NLM_F_DUMP_INTR.
 *
 * Context: Any context.
 */
void snode_nl_nodes_changed(void)
{
	atomic_inc(&snode_nl_node_gen);
}

/**
 * snode_nl_init() - register the family
 *
 * Context: Module init.
 * Return: 0 or a negative errno.
 */
int snode_nl_init(void)
{
	return genl_register_family(&snode_nl_family);
}

/**
 * snode_nl_exit() - unregister the family
 *
 * Context: Module exit, after every NIC is gone.
 */
void snode_nl_exit(void)
{
	genl_unregister_family(&snode_nl_family);
}
