// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the "snode" generic-netlink family, its core: the family, its
 * policies and operations, who may read, the NICs in the family, the
 * plumbing of gets and dumps, and the sending of notifications. Each
 * object has its own file: nl_dev.c, nl_link.c, nl_node.c, nl_window.c,
 * nl_ep.c and nl_stats.c.
 */

#include <linux/cred.h>
#include <linux/error-injection.h>
#include <linux/file.h>
#include <linux/module.h>
#include <linux/net.h>
#include <linux/refcount.h>
#include <linux/slab.h>
#include <linux/xarray.h>
#include <net/genetlink.h>
#include <net/sock.h>

#include <linux/snode.h>

#include "link.h"
#include "netlink.h"
#include "snode.h"

/**
 * DOC: Generic netlink family
 *
 * netlink.c, with one file per object (nl_dev.c, nl_link.c, nl_node.c,
 * nl_window.c, nl_ep.c, nl_stats.c), implements the "snode"
 * generic-netlink family that
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
 * and link_node.c raise. The code is written by hand against
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

enum {
	SNODE_NL_MCGRP_EVENTS,
};

/*
 * Room for the largest notification (a link's, about 200 bytes). Small
 * buffers matter: a failover notifies every node at once, and listeners'
 * receive buffers are charged by the buffer, not by what it holds.
 */
#define SNODE_NL_NTF_SIZE	512

/*
 * The group whose members (and CAP_NET_ADMIN) may read the family; -1:
 * everybody. udev/60-snode.rules sets it to group snode's at load.
 */
static int snode_nl_read_gid = -1;
module_param_named(read_gid, snode_nl_read_gid, int, 0644);
MODULE_PARM_DESC(read_gid,
		 "group whose members may read the snode netlink family besides CAP_NET_ADMIN (-1: every user, the default)");

/*
 * May the sender of @skb read the family? Yes if read_gid is -1; else
 * both the reader and the socket's opener must have CAP_NET_ADMIN or be
 * in group read_gid (each may qualify either way), as netlink_capable()
 * judges a capability on both, so a socket handed across users grants
 * nothing.
 */
int snode_nl_may_read(const struct sk_buff *skb,
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
int snode_nl_user_begin(struct snode_nl_dev *nd,
			const struct sk_buff *skb)
{
	if (!snode_nl_user(skb))
		return 0;
	if (mutex_lock_killable(&nd->user_lock))
		return -EINTR;
	return 1;
}

void snode_nl_user_end(struct snode_nl_dev *nd, int locked)
{
	if (locked > 0)
		mutex_unlock(&nd->user_lock);
}

/* protects snode_nl_devs: NICs in the family, &struct snode_nl_dev */
DEFINE_MUTEX(snode_nl_lock);
DEFINE_XARRAY(snode_nl_devs);
atomic_t snode_nl_dev_gen = ATOMIC_INIT(1);
atomic_t snode_nl_node_gen = ATOMIC_INIT(1);

void snode_nl_put(struct snode_nl_dev *nd)
{
	if (refcount_dec_and_test(&nd->users))
		complete(&nd->idle);
}

/*
 * Hold the NIC with the lowest index in [*index, last] and set *index to
 * it; NULL if there is none. Dumps go through the NICs from ctx->index on
 * with it, each held in turn.
 */
struct snode_nl_dev *snode_nl_hold_next(unsigned long *index,
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

/* A dump with a snapshot ends: free what it did not list. */
int snode_nl_snap_done(struct netlink_callback *cb)
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
int snode_nl_dump_filter(struct netlink_callback *cb, int type,
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
struct snode_nl_dev *snode_nl_dev_get(struct genl_info *info, int type)
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

int snode_nl_reply(struct sk_buff *skb, struct genl_info *info)
{
	return genlmsg_reply(skb, info);
}

/**
 * snode_nl_get_begin() - the start of a get request: reader, reply, NIC
 * @skb: the request
 * @info: its attributes
 * @dev_attr: the attribute that names the NIC
 * @msg: set to the reply, to fill and give to snode_nl_get_end()
 *
 * Context: Process context.
 * Return: the NIC, held, or an ERR_PTR() (no reply left allocated).
 */
struct snode_nl_dev *snode_nl_get_begin(struct sk_buff *skb,
					struct genl_info *info, int dev_attr,
					struct sk_buff **msg)
{
	struct snode_nl_dev *nd;
	int ret;

	ret = snode_nl_may_read(skb, info->extack);
	if (ret)
		return ERR_PTR(ret);
	*msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!*msg)
		return ERR_PTR(-ENOMEM);
	nd = snode_nl_dev_get(info, dev_attr);
	if (IS_ERR(nd))
		nlmsg_free(*msg);
	return nd;
}

/**
 * snode_nl_get_end() - the end of a get request: the reply or the error
 * @nd: from snode_nl_get_begin(), released here
 * @msg: the reply from snode_nl_get_begin()
 * @info: the request's attributes
 * @ret: 0 if @msg is filled, else the error to answer with
 *
 * Context: Process context.
 * Return: what the request returns.
 */
int snode_nl_get_end(struct snode_nl_dev *nd, struct sk_buff *msg,
		     struct genl_info *info, int ret)
{
	snode_nl_put(nd);
	if (ret) {
		nlmsg_free(msg);
		return ret;
	}
	return snode_nl_reply(msg, info);
}

/**
 * snode_nl_msg_put() - start a message of the family
 * @skb: the reply or dump skb
 * @portid: the requester's port
 * @seq: the request's sequence number
 * @flags: NLM_F_MULTI in dumps
 * @cmd: the command the message answers
 * @cb: the dump, or NULL: a dump's message is checked against its
 *      generation (NLM_F_DUMP_INTR)
 *
 * Context: Any context.
 * Return: the message's header, or NULL if @skb has no room for it.
 */
void *snode_nl_msg_put(struct sk_buff *skb, u32 portid, u32 seq, int flags,
		       u8 cmd, struct netlink_callback *cb)
{
	void *hdr;

	hdr = genlmsg_put(skb, portid, seq, &snode_nl_family, flags, cmd);
	if (hdr && cb)
		genl_dump_check_consistent(cb, hdr);
	return hdr;
}

/**
 * snode_nl_msg_end() - end a message from snode_nl_msg_put()
 * @skb: its skb
 * @hdr: its header
 * @full: an attribute did not fit: the message is taken back out
 *
 * Context: Any context.
 * Return: 0, or -EMSGSIZE if @full.
 */
int snode_nl_msg_end(struct sk_buff *skb, void *hdr, bool full)
{
	if (full) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(skb, hdr);
	return 0;
}

/* A get of one NIC, named by attribute @dev_attr: one message from @fill. */
int snode_nl_nic_doit(struct sk_buff *skb, struct genl_info *info,
		      int dev_attr, snode_nl_nic_fill_t fill)
{
	struct snode_nl_dev *nd;
	struct sk_buff *msg;

	nd = snode_nl_get_begin(skb, info, dev_attr, &msg);
	if (IS_ERR(nd))
		return PTR_ERR(nd);
	return snode_nl_get_end(nd, msg, info,
				fill(msg, nd, skb, info->snd_portid,
				     info->snd_seq, 0, NULL));
}

/**
 * snode_nl_dumpit() - a dump over the NICs
 * @skb: the dump's skb
 * @cb: the dump
 * @dev_attr: the filter attribute that names one NIC to list
 * @gen: the generation of what is listed of the NICs up to a last index;
 *       a dump that spans a change of it is flagged NLM_F_DUMP_INTR
 * @one: puts the messages of one NIC from where cb->ctx says on; when done
 *       with that NIC, it resets what else of cb->ctx is per NIC (ctx->pos
 *       is reset here)
 * @arg: for @gen and @one
 *
 * Lists every NIC, or the one the filter names, each held while @one runs;
 * the dump ends with the first error (a NIC that cannot answer a stats-get
 * fails the dump: its NLMSG_DONE carries the errno).
 *
 * Context: Process context.
 * Return: what a dumpit returns.
 */
int snode_nl_dumpit(struct sk_buff *skb, struct netlink_callback *cb,
		    int dev_attr, snode_nl_dump_gen_t gen,
		    snode_nl_dump_one_t one, const void *arg)
{
	struct snode_nl_dump_ctx *ctx = snode_nl_dump_ctx(cb);
	struct snode_nl_dev *nd;
	unsigned long last;
	int ret;

	ret = snode_nl_dump_filter(cb, dev_attr, &last);
	if (ret)
		return ret;
	cb->seq = gen(last, arg);
	for (; (nd = snode_nl_hold_next(&ctx->index, last));
	     snode_nl_put(nd), ctx->index++) {
		ret = one(skb, cb, nd, arg);
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
 * The generation of what a dump lists of every NIC up to @last, from each
 * NIC's @gen: it changes with any NIC's arrival or departure and with any
 * change @gen counts, so a dump spanning one reports NLM_F_DUMP_INTR.
 */
unsigned int snode_nl_gen_sum(unsigned long last,
			      unsigned int (*gen)(struct snode_dev *sdev))
{
	unsigned int sum = atomic_read(&snode_nl_dev_gen);
	struct snode_nl_dev *nd;
	unsigned long index;

	mutex_lock(&snode_nl_lock);
	xa_for_each_range(&snode_nl_devs, index, nd, 0, last)
		sum += gen(nd->sdev);
	mutex_unlock(&snode_nl_lock);
	return sum;
}

/* The generation of the NIC table: for dumps of what each NIC has. */
unsigned int snode_nl_dev_gen_get(unsigned long last, const void *arg)
{
	return atomic_read(&snode_nl_dev_gen);
}

static int snode_nl_nic_one(struct sk_buff *skb, struct netlink_callback *cb,
			    struct snode_nl_dev *nd, const void *arg)
{
	const snode_nl_nic_fill_t *fill = arg;

	return (*fill)(skb, nd, cb->skb, NETLINK_CB(cb->skb).portid,
		       cb->nlh->nlmsg_seq, NLM_F_MULTI, cb);
}

/* A dump of one message per NIC from @fill. */
int snode_nl_nic_dumpit(struct sk_buff *skb, struct netlink_callback *cb,
			int dev_attr, snode_nl_nic_fill_t fill)
{
	return snode_nl_dumpit(skb, cb, dev_attr, snode_nl_dev_gen_get,
			       snode_nl_nic_one, &fill);
}

/* The reader of a dump, as snode_owner_visible() judges it. */
void snode_nl_viewer(struct netlink_callback *cb,
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

/* ------------------------------------------------------------------ */
/* notifications                                                       */

/**
 * snode_nl_ntf_start() - start a notification to the events group
 * @ntf: set to the message, to fill and give to snode_nl_ntf_send()
 * @sdev: the NIC it is about
 * @cmd: the notification
 * @nest: the attribute nesting the object it is about, or 0
 * @meta: timestamps and suppressed count
 *
 * Context: Process context.
 * Return: false if nobody listens or the message could not be put
 * together (nothing to send or free then).
 */
bool snode_nl_ntf_start(struct snode_nl_ntf *ntf, struct snode_dev *sdev,
			u8 cmd, int nest, const struct snode_ev_meta *meta)
{
	struct sk_buff *skb;

	if (!genl_has_listeners(&snode_nl_family, &init_net,
				SNODE_NL_MCGRP_EVENTS))
		return false;
	skb = genlmsg_new(SNODE_NL_NTF_SIZE, GFP_KERNEL);
	if (!skb)
		return false;
	ntf->skb = skb;
	ntf->nest = NULL;
	ntf->hdr = genlmsg_put(skb, 0, 0, &snode_nl_family, 0, cmd);
	if (!ntf->hdr)
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
	if (nest) {
		ntf->nest = nla_nest_start(skb, nest);
		if (!ntf->nest)
			goto err_free;
	}
	return true;

err_free:
	nlmsg_free(skb);
	return false;
}

/**
 * snode_nl_ntf_send() - send a notification from snode_nl_ntf_start()
 * @ntf: the notification
 * @full: an attribute did not fit: it is dropped instead
 *
 * Context: Process context.
 */
void snode_nl_ntf_send(struct snode_nl_ntf *ntf, bool full)
{
	if (full) {
		nlmsg_free(ntf->skb);
		return;
	}
	if (ntf->nest)
		nla_nest_end(ntf->skb, ntf->nest);
	genlmsg_end(ntf->skb, ntf->hdr);
	genlmsg_multicast(&snode_nl_family, ntf->skb, 0, SNODE_NL_MCGRP_EVENTS,
			  GFP_KERNEL);
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

struct genl_family snode_nl_family __ro_after_init = {
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
 * @sdev: the NIC that saw it (node dumps span every NIC)
 *
 * Makes node dumps that span the change report NLM_F_DUMP_INTR.
 *
 * Context: Any context.
 */
void snode_nl_nodes_changed(struct snode_dev *sdev)
{
	atomic_inc(&snode_nl_node_gen);
}

/* the family hears what the links observe (&struct snode_listener_ops) */
const struct snode_listener_ops snode_nl_listener = {
	.dev_add = snode_nl_dev_add,
	.dev_del = snode_nl_dev_del,
	.nodes_changed = snode_nl_nodes_changed,
	.link_ntf = snode_nl_link_ntf,
	.node_ntf = snode_nl_node_ntf,
	.revoked_ntf = snode_nl_revoked_ntf,
	.access_ntf = snode_nl_access_ntf,
	.thermal_ntf = snode_nl_thermal_ntf,
};

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
