// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libsnode netlink: the "snode" generic-netlink family over libnl-genl-3.
 *
 * Every request goes through lsn_nl_request(): it opens the socket and
 * resolves the family on first use, sends one message, feeds each reply
 * to a parser, retries a dump the kernel flagged as interrupted, and turns
 * the kernel's error (with its extended-ack message, logged) into a
 * negative errno. The request socket is the context's, so a request holds
 * the context's lock from send to last reply: threads sharing a context
 * take turns instead of reading each other's replies.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include "nl.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

/* A dump that keeps being interrupted by changes gives up after this. */
#define LSN_NL_DUMP_TRIES	5

/* One request: what to parse replies with, and how it ended. */
struct lsn_nl_req {
	struct snode_ctx *ctx;
	int (*parse)(struct lsn_nl_req *req, struct nlattr **tb);
	void *arg;
	int maxattr;
	int err;
	int done;
	int intr;
	int stopped;	/* a parser stopped before the last reply */
};

void lsn_nl_free(struct snode_ctx *ctx)
{
	struct lsn_nl *nl = ctx->nl;

	if (!nl)
		return;
	snode_event_unsubscribe(ctx);
	if (nl->sk)
		nl_socket_free(nl->sk);
	free(nl);
	ctx->nl = NULL;
}

/* libnl's own errors, for the few that are not the kernel's errno */
int lsn_nl_errno(int nlerr)
{
	switch (-nlerr) {
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_PERM:
		return -EPERM;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_OBJ_NOTFOUND:
		return -EPROTONOSUPPORT;
	default:
		return -EIO;
	}
}

/*
 * The netlink state of a context, connected and with the family resolved;
 * NULL with *err set when that fails. Called with ctx->lock held.
 */
struct lsn_nl *lsn_nl_get(struct snode_ctx *ctx, int *err)
{
	struct lsn_nl *nl = ctx->nl;
	int one = 1, ret;

	if (nl && nl->sk)
		return nl;
	if (!nl) {
		nl = calloc(1, sizeof(*nl));
		if (!nl) {
			*err = -ENOMEM;
			return NULL;
		}
		ctx->nl = nl;
	}
	nl->sk = nl_socket_alloc();
	if (!nl->sk) {
		*err = -ENOMEM;
		return NULL;
	}
	ret = genl_connect(nl->sk);
	if (ret < 0)
		goto err;
	/* the kernel's messages on errors, for the log */
	setsockopt(nl_socket_get_fd(nl->sk), SOL_NETLINK, NETLINK_EXT_ACK,
		   &one, sizeof(one));
	nl_socket_enable_msg_peek(nl->sk);
	ret = genl_ctrl_resolve(nl->sk, SNODE_FAMILY_NAME);
	if (ret < 0) {
		lsn_dbg(ctx, "family %s: %s\n", SNODE_FAMILY_NAME,
			  nl_geterror(ret));
		goto err;
	}
	nl->family = ret;
	return nl;

err:
	nl_socket_free(nl->sk);
	nl->sk = NULL;
	*err = lsn_nl_errno(ret);
	return NULL;
}

static int lsn_nl_valid(struct nl_msg *msg, void *arg)
{
	struct lsn_nl_req *req = arg;
	struct nlattr *tb[req->maxattr + 1];
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	int ret;

	if (!req->parse)
		return NL_OK;
	ret = genlmsg_parse(nlh, 0, tb, req->maxattr, NULL);
	if (ret < 0) {
		req->err = lsn_nl_errno(ret);
		req->stopped = 1;
		return NL_STOP;
	}
	ret = req->parse(req, tb);
	if (ret < 0) {
		req->err = ret;
		req->stopped = 1;
		return NL_STOP;
	}
	return NL_OK;
}

static int lsn_nl_error(struct sockaddr_nl *nla, struct nlmsgerr *e,
			  void *arg)
{
	struct nlmsghdr *nlh = (struct nlmsghdr *)((char *)e - NLMSG_HDRLEN);
	struct lsn_nl_req *req = arg;
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t off = sizeof(*e);

	req->err = e->error;
	req->done = 1;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return NL_STOP;
	/* the request is echoed unless NLM_F_CAPPED; the TLVs follow it */
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	if (NLMSG_HDRLEN + off > nlh->nlmsg_len)
		return NL_STOP;
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, (struct nlattr *)((char *)e + off),
		      nlh->nlmsg_len - NLMSG_HDRLEN - off, NULL) == 0 &&
	    tb[NLMSGERR_ATTR_MSG])
		lsn_info(req->ctx, "kernel: %s\n",
			  nla_get_string(tb[NLMSGERR_ATTR_MSG]));
	return NL_STOP;
}

static int lsn_nl_finish(struct nl_msg *msg, void *arg)
{
	struct nlmsghdr *nlh = nlmsg_hdr(msg);
	struct lsn_nl_req *req = arg;

	/* a dump that failed carries its errno in the DONE message */
	if (nlh->nlmsg_type == NLMSG_DONE &&
	    nlmsg_datalen(nlh) >= (int)sizeof(int) &&
	    *(int *)nlmsg_data(nlh) < 0)
		req->err = *(int *)nlmsg_data(nlh);
	req->done = 1;
	return NL_STOP;
}

static int lsn_nl_intr(struct nl_msg *msg, void *arg)
{
	struct lsn_nl_req *req = arg;

	/* read the rest, then start over */
	req->intr = 1;
	return NL_OK;
}

/*
 * The one request helper: send @cmd with the attributes @fill puts (may be
 * NULL), as a dump if @dump, and parse every reply with req->parse. A dump
 * the kernel flags as interrupted is retried, after req->reset (if any).
 */
static int lsn_nl_request(struct snode_ctx *ctx, uint8_t cmd, int dump,
			    int (*fill)(struct nl_msg *msg, void *arg),
			    void *fill_arg, struct lsn_nl_req *req,
			    void (*reset)(struct lsn_nl_req *req))
{
	struct lsn_nl *nl;
	struct nl_msg *msg;
	struct nl_cb *cb;
	int ret = 0, tries;

	cb = nl_cb_alloc(NL_CB_DEFAULT);
	if (!cb)
		return -ENOMEM;
	pthread_mutex_lock(&ctx->lock);
	nl = lsn_nl_get(ctx, &ret);
	if (!nl) {
		pthread_mutex_unlock(&ctx->lock);
		nl_cb_put(cb);
		return ret;
	}
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, lsn_nl_valid, req);
	nl_cb_set(cb, NL_CB_FINISH, NL_CB_CUSTOM, lsn_nl_finish, req);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, lsn_nl_finish, req);
	nl_cb_set(cb, NL_CB_DUMP_INTR, NL_CB_CUSTOM, lsn_nl_intr, req);
	nl_cb_err(cb, NL_CB_CUSTOM, lsn_nl_error, req);
	req->ctx = ctx;

	for (tries = 0; tries < LSN_NL_DUMP_TRIES; tries++) {
		req->err = 0;
		req->done = 0;
		req->intr = 0;
		msg = nlmsg_alloc();
		if (!msg) {
			ret = -ENOMEM;
			break;
		}
		if (!genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, nl->family, 0,
				 dump ? NLM_F_DUMP : 0, cmd,
				 SNODE_FAMILY_VERSION) ||
		    (fill && fill(msg, fill_arg) < 0)) {
			nlmsg_free(msg);
			ret = -EMSGSIZE;
			break;
		}
		ret = nl_send_auto(nl->sk, msg);
		nlmsg_free(msg);
		if (ret < 0) {
			ret = lsn_nl_errno(ret);
			break;
		}
		ret = 0;
		req->stopped = 0;
		while (!req->done && !req->stopped && ret >= 0)
			ret = nl_recvmsgs(nl->sk, cb);
		if (ret < 0 && !req->err)
			req->err = lsn_nl_errno(ret);
		/*
		 * A request that ended before its last message (a parser
		 * failed, a receive error) leaves replies on the socket, which
		 * the next request would take for its own: its ack, a dump's
		 * DONE. Start the next one on a new socket.
		 */
		if (!req->done || req->stopped) {
			nl_socket_free(nl->sk);
			nl->sk = NULL;
			ret = req->err ? req->err : -EIO;
			break;
		}
		ret = req->err;
		if (ret || !req->intr)
			break;
		lsn_dbg(ctx, "dump of command %u interrupted, again\n", cmd);
		if (reset)
			reset(req);
	}
	pthread_mutex_unlock(&ctx->lock);
	if (!ret && req->intr)
		ret = -EAGAIN;
	nl_cb_put(cb);
	return ret;
}

/* Attributes of the request: dev-index and port, or dev-index alone. */
struct lsn_nl_obj {
	int dev_attr;
	int dev_index;		/* < 0: none */
	int sub_attr;
	uint32_t sub;
	int has_sub;
	int u64_attr;
	uint64_t u64;
	int has_u64;
	int u32_attr;
	uint32_t u32;
	int has_u32;
};

static int lsn_nl_fill_obj(struct nl_msg *msg, void *arg)
{
	struct lsn_nl_obj *o = arg;

	if (o->dev_index >= 0 &&
	    nla_put_u32(msg, o->dev_attr, (uint32_t)o->dev_index) < 0)
		return -1;
	if (o->has_sub && nla_put_u32(msg, o->sub_attr, o->sub) < 0)
		return -1;
	if (o->has_u64 && nla_put_u64(msg, o->u64_attr, o->u64) < 0)
		return -1;
	if (o->has_u32 && nla_put_u32(msg, o->u32_attr, o->u32) < 0)
		return -1;
	return 0;
}

/* ------------------------------------------------------------------ */

SNODE_EXPORT double snode_ber_to_double(uint64_t ber)
{
	return (double)ber / (double)SNODE_BER_ONE;
}

SNODE_EXPORT uint64_t snode_ber_from_double(double ber)
{
	if (!(ber > 0))
		return 0;
	if (ber >= 18.0)	/* beyond what fits; no BER is above 1 */
		return UINT64_MAX;
	return (uint64_t)(ber * (double)SNODE_BER_ONE + 0.5);
}

/* ------------------------------------------------------------------ */
/* devices                                                             */

static int lsn_nl_parse_dev(struct lsn_nl_req *req, struct nlattr **tb)
{
	struct snode_dev_status *st = req->arg;

	memset(st, 0, sizeof(*st));
	st->state = lsn_nl_u32(tb, SNODE_A_DEV_STATE, 0);
	st->node_id = lsn_nl_u32(tb, SNODE_A_DEV_NODE_ID, SNODE_NODE_ID_NONE);
	st->fabric_id = lsn_nl_u32(tb, SNODE_A_DEV_FABRIC_ID, 0);
	st->hw_version = lsn_nl_u32(tb, SNODE_A_DEV_HW_VERSION, 0);
	st->fw_version = lsn_nl_u32(tb, SNODE_A_DEV_FW_VERSION, 0);
	st->caps = lsn_nl_u32(tb, SNODE_A_DEV_CAPS, 0);
	st->nports = lsn_nl_u32(tb, SNODE_A_DEV_NPORTS, 0);
	st->max_nodes = lsn_nl_u32(tb, SNODE_A_DEV_MAX_NODES, 0);
	st->att_entries = lsn_nl_u32(tb, SNODE_A_DEV_ATT_ENTRIES, 0);
	st->export_entries = lsn_nl_u32(tb, SNODE_A_DEV_EXPORT_ENTRIES, 0);
	st->pool_size = lsn_nl_u64(tb, SNODE_A_DEV_POOL_SIZE);
	st->aperture_size = lsn_nl_u64(tb, SNODE_A_DEV_APERTURE_SIZE);
	st->ber_threshold = lsn_nl_u64(tb, SNODE_A_DEV_BER_THRESHOLD);
	st->throttled = !!tb[SNODE_A_DEV_THROTTLED];
	lsn_nl_str(tb, SNODE_A_DEV_SERIAL, st->serial, sizeof(st->serial));
	lsn_nl_str(tb, SNODE_A_DEV_FW_NAME, st->fw_name, sizeof(st->fw_name));
	return 0;
}

SNODE_EXPORT int snode_dev_get_status(struct snode_dev *dev,
				      struct snode_dev_status *out,
				      size_t size)
{
	struct snode_dev_status st;
	int ret;

	struct lsn_nl_obj o = {
		.dev_attr = SNODE_A_DEV_INDEX,
		.dev_index = dev->index,
	};
	struct lsn_nl_req req = {
		.parse = lsn_nl_parse_dev,
		.arg = &st,
		.maxattr = SNODE_A_DEV_MAX,
	};

	ret = lsn_nl_request(dev->ctx, SNODE_NL_CMD_DEV_GET, 0, lsn_nl_fill_obj,
			     &o, &req, NULL);
	if (ret < 0)
		return ret;
	lsn_copy_out(out, size, &st, sizeof(st));
	return 0;
}

SNODE_EXPORT int snode_dev_set_ber_threshold(struct snode_dev *dev,
					     uint64_t ber)
{
	struct lsn_nl_obj o = {
		.dev_attr = SNODE_A_DEV_INDEX,
		.dev_index = dev->index,
		.u64_attr = SNODE_A_DEV_BER_THRESHOLD,
		.u64 = ber,
		.has_u64 = 1,
	};
	struct lsn_nl_req req = { .maxattr = SNODE_A_DEV_MAX };

	return lsn_nl_request(dev->ctx, SNODE_NL_CMD_DEV_SET, 0,
				lsn_nl_fill_obj, &o, &req, NULL);
}

/* ------------------------------------------------------------------ */
/* links                                                               */

/* Link attributes, as replies and notifications carry them. */
void lsn_nl_parse_link_info(struct nlattr **tb, struct snode_link_info *li)
{
	memset(li, 0, sizeof(*li));
	li->dev_index = lsn_nl_u32(tb, SNODE_A_LINK_DEV_INDEX, 0);
	lsn_nl_str(tb, SNODE_A_LINK_DEV_NAME, li->dev_name,
		     sizeof(li->dev_name));
	li->port = lsn_nl_u32(tb, SNODE_A_LINK_PORT, 0);
	li->admin_state = lsn_nl_u32(tb, SNODE_A_LINK_ADMIN_STATE, 0);
	li->oper_state = lsn_nl_u32(tb, SNODE_A_LINK_OPER_STATE, 0);
	li->lanes = lsn_nl_u32(tb, SNODE_A_LINK_LANES, 0);
	li->max_lanes = lsn_nl_u32(tb, SNODE_A_LINK_MAX_LANES, 0);
	li->speed = lsn_nl_u32(tb, SNODE_A_LINK_SPEED, 0);
	li->peer_node = lsn_nl_u32(tb, SNODE_A_LINK_PEER_NODE, SNODE_NONE);
	li->peer_port = lsn_nl_u32(tb, SNODE_A_LINK_PEER_PORT, SNODE_NONE);
	li->peer_switch = lsn_nl_u32(tb, SNODE_A_LINK_PEER_SWITCH,
				       SNODE_NONE);
	li->crc_errors = lsn_nl_u64(tb, SNODE_A_LINK_CRC_ERRORS);
	li->replays = lsn_nl_u64(tb, SNODE_A_LINK_REPLAYS);
	li->recoveries = lsn_nl_u64(tb, SNODE_A_LINK_RECOVERIES);
	li->down_events = lsn_nl_u64(tb, SNODE_A_LINK_DOWN_EVENTS);
	li->tx_bytes = lsn_nl_u64(tb, SNODE_A_LINK_TX_BYTES);
	li->rx_bytes = lsn_nl_u64(tb, SNODE_A_LINK_RX_BYTES);
	li->tx_msgs = lsn_nl_u64(tb, SNODE_A_LINK_TX_MSGS);
	li->rx_msgs = lsn_nl_u64(tb, SNODE_A_LINK_RX_MSGS);
	li->ber = lsn_nl_u64(tb, SNODE_A_LINK_BER);
	li->ber_threshold = lsn_nl_u64(tb, SNODE_A_LINK_BER_THRESHOLD);
	li->ber_alarm = lsn_nl_u32(tb, SNODE_A_LINK_BER_ALARM, 0) != 0;
	li->auto_isolate = lsn_nl_u32(tb, SNODE_A_LINK_AUTO_ISOLATE, 0) != 0;
	li->isolate_ber = lsn_nl_u64(tb, SNODE_A_LINK_ISOLATE_BER);
	li->isolate_flaps = lsn_nl_u32(tb, SNODE_A_LINK_ISOLATE_FLAPS, 0);
	li->isolate_window = lsn_nl_u32(tb, SNODE_A_LINK_ISOLATE_WINDOW, 0);
	li->isolation = lsn_nl_u32(tb, SNODE_A_LINK_ISOLATION, 0);
	li->isolate_reason = lsn_nl_u32(tb, SNODE_A_LINK_ISOLATE_REASON, 0);
	li->util_threshold = lsn_nl_u32(tb, SNODE_A_LINK_UTIL_THRESHOLD, 0);
	li->util_tx = lsn_nl_u32(tb, SNODE_A_LINK_UTIL_TX, 0);
	li->util_rx = lsn_nl_u32(tb, SNODE_A_LINK_UTIL_RX, 0);
	li->util_alarm = lsn_nl_u32(tb, SNODE_A_LINK_UTIL_ALARM, 0) != 0;
	li->util_hysteresis = lsn_nl_u32(tb, SNODE_A_LINK_UTIL_HYSTERESIS, 0);
	if (tb[SNODE_A_LINK_PEER_PLANE]) {
		li->topo |= SNODE_TOPO_HAS_PLANE;
		li->peer_plane = lsn_nl_u32(tb, SNODE_A_LINK_PEER_PLANE, 0);
	}
	lsn_nl_str(tb, SNODE_A_LINK_PEER_SWITCH_NAME, li->peer_switch_name,
		   sizeof(li->peer_switch_name));
}

/* Every list parser appends to the snapshot that is req->arg. */
static void lsn_nl_reset_list(struct lsn_nl_req *req)
{
	lsn_iter_clear(req->arg);
}

static int lsn_nl_parse_link(struct lsn_nl_req *req, struct nlattr **tb)
{
	struct snode_link_info li;

	lsn_nl_parse_link_info(tb, &li);
	return lsn_iter_append(req->arg, &li, sizeof(li));
}

/* A dump (or one object) into a new snapshot of @entry_size entries. */
static int lsn_nl_list(struct snode_ctx *ctx, uint8_t cmd, int dump,
		       struct lsn_nl_obj *o, int maxattr,
		       int (*parse)(struct lsn_nl_req *req, struct nlattr **tb),
		       size_t entry_size, struct lsn_iter **out)
{
	struct lsn_iter *it = lsn_iter_new(entry_size);
	struct lsn_nl_req req = {
		.parse = parse,
		.arg = it,
		.maxattr = maxattr,
	};
	int ret;

	if (!it)
		return entry_size ? -ENOMEM : -EINVAL;
	ret = lsn_nl_request(ctx, cmd, dump, lsn_nl_fill_obj, o, &req,
			     lsn_nl_reset_list);
	if (ret < 0) {
		lsn_iter_free(it);
		return ret;
	}
	*out = it;
	return (int)it->count;
}

/* A get of one object into @info (@size bytes, the sized copy-out rule). */
static int lsn_nl_get_one(struct snode_ctx *ctx, uint8_t cmd,
			  struct lsn_nl_obj *o, int maxattr,
			  int (*parse)(struct lsn_nl_req *req, struct nlattr **tb),
			  size_t entry_size, void *info, size_t size)
{
	struct lsn_iter *it;
	int ret;

	ret = lsn_nl_list(ctx, cmd, 0, o, maxattr, parse, entry_size, &it);
	if (ret < 0)
		return ret;
	if (ret)
		lsn_copy_out(info, size, it->entries, it->entry_size);
	lsn_iter_free(it);
	return ret ? 0 : -EPROTO;
}

/* A dump of one kind of object, of every NIC or (@dev_index >= 0) of one. */
static int lsn_nl_list_dev(struct snode_ctx *ctx, uint8_t cmd, int dev_attr,
			   int dev_index, int maxattr,
			   int (*parse)(struct lsn_nl_req *req,
					struct nlattr **tb),
			   size_t entry_size, struct lsn_iter **out)
{
	struct lsn_nl_obj o = {
		.dev_attr = dev_attr,
		.dev_index = dev_index,
	};

	return lsn_nl_list(ctx, cmd, 1, &o, maxattr, parse, entry_size, out);
}

SNODE_EXPORT int snode_link_list(struct snode_ctx *ctx, int dev_index,
				 size_t info_size,
				 struct snode_link_iter **iter)
{
	return lsn_nl_list_dev(ctx, SNODE_NL_CMD_LINK_GET, SNODE_A_LINK_DEV_INDEX,
			       dev_index, SNODE_A_LINK_MAX, lsn_nl_parse_link,
			       info_size, (struct lsn_iter **)iter);
}

LSN_ITER_FUNCS(link, snode_link_info)

SNODE_EXPORT int snode_link_get(struct snode_ctx *ctx, unsigned int dev_index,
				unsigned int port, struct snode_link_info *info,
				size_t size)
{
	struct lsn_nl_obj o = {
		.dev_attr = SNODE_A_LINK_DEV_INDEX,
		.dev_index = (int)dev_index,
		.sub_attr = SNODE_A_LINK_PORT,
		.sub = port,
		.has_sub = 1,
	};

	return lsn_nl_get_one(ctx, SNODE_NL_CMD_LINK_GET, &o, SNODE_A_LINK_MAX,
			      lsn_nl_parse_link, sizeof(struct snode_link_info),
			      info, size);
}

static int lsn_nl_link_op(struct snode_ctx *ctx, uint8_t cmd,
			    struct lsn_nl_obj *o)
{
	struct lsn_nl_req req = { .maxattr = SNODE_A_LINK_MAX };

	o->dev_attr = SNODE_A_LINK_DEV_INDEX;
	o->sub_attr = SNODE_A_LINK_PORT;
	o->has_sub = 1;
	return lsn_nl_request(ctx, cmd, 0, lsn_nl_fill_obj, o, &req, NULL);
}

SNODE_EXPORT int snode_link_set_state(struct snode_ctx *ctx,
				      unsigned int dev_index,
				      unsigned int port, int up)
{
	struct lsn_nl_obj o = {
		.dev_index = (int)dev_index,
		.sub = port,
		.u32_attr = SNODE_A_LINK_ADMIN_STATE,
		.u32 = up ? SNODE_LINK_ADMIN_STATE_UP :
			    SNODE_LINK_ADMIN_STATE_DOWN,
		.has_u32 = 1,
	};

	return lsn_nl_link_op(ctx, SNODE_NL_CMD_LINK_SET, &o);
}

SNODE_EXPORT int snode_link_set_ber_threshold(struct snode_ctx *ctx,
					      unsigned int dev_index,
					      unsigned int port, uint64_t ber)
{
	struct lsn_nl_obj o = {
		.dev_index = (int)dev_index,
		.sub = port,
		.u64_attr = SNODE_A_LINK_BER_THRESHOLD,
		.u64 = ber,
		.has_u64 = 1,
	};

	return lsn_nl_link_op(ctx, SNODE_NL_CMD_LINK_SET, &o);
}

/* The whole policy in one link-set: what is not given is no limit. */
struct lsn_nl_isolate {
	unsigned int dev_index;
	unsigned int port;
	int on;
	uint64_t ber;
	unsigned int flaps;
	unsigned int window;
};

static int lsn_nl_fill_isolate(struct nl_msg *msg, void *arg)
{
	const struct lsn_nl_isolate *p = arg;

	if (nla_put_u32(msg, SNODE_A_LINK_DEV_INDEX, p->dev_index) < 0 ||
	    nla_put_u32(msg, SNODE_A_LINK_PORT, p->port) < 0 ||
	    nla_put_u32(msg, SNODE_A_LINK_AUTO_ISOLATE, !!p->on) < 0 ||
	    nla_put_u64(msg, SNODE_A_LINK_ISOLATE_BER, p->ber) < 0 ||
	    nla_put_u32(msg, SNODE_A_LINK_ISOLATE_FLAPS, p->flaps) < 0 ||
	    (p->flaps &&
	     nla_put_u32(msg, SNODE_A_LINK_ISOLATE_WINDOW, p->window) < 0))
		return -1;
	return 0;
}

SNODE_EXPORT int snode_link_set_auto_isolate(struct snode_ctx *ctx,
					     unsigned int dev_index,
					     unsigned int port, int on,
					     uint64_t ber, unsigned int flaps,
					     unsigned int window)
{
	struct lsn_nl_isolate p = {
		.dev_index = dev_index,
		.port = port,
		.on = on,
		.ber = ber,
		.flaps = flaps,
		.window = window,
	};
	struct lsn_nl_req req = { .maxattr = SNODE_A_LINK_MAX };

	return lsn_nl_request(ctx, SNODE_NL_CMD_LINK_SET, 0, lsn_nl_fill_isolate,
			      &p, &req, NULL);
}

struct lsn_nl_util {
	unsigned int dev_index;
	unsigned int port;
	unsigned int percent;
};

static int lsn_nl_fill_util(struct nl_msg *msg, void *arg)
{
	const struct lsn_nl_util *p = arg;

	if (nla_put_u32(msg, SNODE_A_LINK_DEV_INDEX, p->dev_index) < 0 ||
	    nla_put_u32(msg, SNODE_A_LINK_PORT, p->port) < 0 ||
	    nla_put_u32(msg, SNODE_A_LINK_UTIL_THRESHOLD, p->percent) < 0)
		return -1;
	return 0;
}

SNODE_EXPORT int snode_link_set_util_threshold(struct snode_ctx *ctx,
					       unsigned int dev_index,
					       unsigned int port,
					       unsigned int percent)
{
	struct lsn_nl_util p = {
		.dev_index = dev_index,
		.port = port,
		.percent = percent,
	};
	struct lsn_nl_req req = { .maxattr = SNODE_A_LINK_MAX };

	if (!percent || percent > 100)
		return -EINVAL;
	return lsn_nl_request(ctx, SNODE_NL_CMD_LINK_SET, 0, lsn_nl_fill_util,
			      &p, &req, NULL);
}

SNODE_EXPORT int snode_link_reset(struct snode_ctx *ctx,
				  unsigned int dev_index, unsigned int port)
{
	struct lsn_nl_obj o = { .dev_index = (int)dev_index, .sub = port };

	return lsn_nl_link_op(ctx, SNODE_NL_CMD_LINK_RESET, &o);
}

SNODE_EXPORT int snode_link_clear(struct snode_ctx *ctx,
				  unsigned int dev_index, unsigned int port)
{
	struct lsn_nl_obj o = { .dev_index = (int)dev_index, .sub = port };

	return lsn_nl_link_op(ctx, SNODE_NL_CMD_LINK_CLEAR, &o);
}

/* ------------------------------------------------------------------ */
/* nodes                                                               */

/* A node's attributes (a node get or dump, or a node event's nest). */
void lsn_nl_parse_node_info(struct nlattr **tb, struct snode_node_info *ni)
{
	*ni = (struct snode_node_info){
		.dev_index = lsn_nl_u32(tb, SNODE_A_NODE_DEV_INDEX, 0),
		.id = lsn_nl_u32(tb, SNODE_A_NODE_ID, 0),
		.state = lsn_nl_u32(tb, SNODE_A_NODE_STATE, 0),
		.route_port = lsn_nl_u32(tb, SNODE_A_NODE_ROUTE_PORT,
					 SNODE_NONE),
		.hops = lsn_nl_u32(tb, SNODE_A_NODE_HOPS, 0),
	};
	if (tb[SNODE_A_NODE_SWITCH]) {
		ni->topo |= SNODE_TOPO_HAS_SWITCH;
		ni->switch_id = lsn_nl_u32(tb, SNODE_A_NODE_SWITCH, 0);
	}
	if (tb[SNODE_A_NODE_PLANE]) {
		ni->topo |= SNODE_TOPO_HAS_PLANE;
		ni->plane = lsn_nl_u32(tb, SNODE_A_NODE_PLANE, 0);
	}
	if (tb[SNODE_A_NODE_RACK]) {
		ni->topo |= SNODE_TOPO_HAS_RACK;
		ni->rack = lsn_nl_u32(tb, SNODE_A_NODE_RACK, 0);
	}
	lsn_nl_str(tb, SNODE_A_NODE_SWITCH_NAME, ni->switch_name,
		   sizeof(ni->switch_name));
	lsn_nl_str(tb, SNODE_A_NODE_RACK_NAME, ni->rack_name,
		   sizeof(ni->rack_name));
}

static int lsn_nl_parse_node(struct lsn_nl_req *req, struct nlattr **tb)
{
	struct snode_node_info ni;

	lsn_nl_parse_node_info(tb, &ni);
	return lsn_iter_append(req->arg, &ni, sizeof(ni));
}

SNODE_EXPORT int snode_node_get(struct snode_ctx *ctx, unsigned int dev_index,
				uint32_t id, struct snode_node_info *info,
				size_t size)
{
	struct lsn_nl_obj o = {
		.dev_attr = SNODE_A_NODE_DEV_INDEX,
		.dev_index = (int)dev_index,
		.sub_attr = SNODE_A_NODE_ID,
		.sub = id,
		.has_sub = 1,
	};

	if (!ctx || !info)
		return -EINVAL;
	return lsn_nl_get_one(ctx, SNODE_NL_CMD_NODE_GET, &o, SNODE_A_NODE_MAX,
			      lsn_nl_parse_node, sizeof(struct snode_node_info),
			      info, size);
}

SNODE_EXPORT int snode_node_list(struct snode_ctx *ctx, int dev_index,
				 size_t info_size,
				 struct snode_node_iter **iter)
{
	return lsn_nl_list_dev(ctx, SNODE_NL_CMD_NODE_GET, SNODE_A_NODE_DEV_INDEX,
			       dev_index, SNODE_A_NODE_MAX, lsn_nl_parse_node,
			       info_size, (struct lsn_iter **)iter);
}

LSN_ITER_FUNCS(node, snode_node_info)

/* ------------------------------------------------------------------ */
/* windows                                                             */

static int lsn_nl_parse_window(struct lsn_nl_req *req, struct nlattr **tb)
{
	struct snode_window_info wi;

	memset(&wi, 0, sizeof(wi));
	wi.dev_index = lsn_nl_u32(tb, SNODE_A_WINDOW_DEV_INDEX, 0);
	wi.kind = lsn_nl_u32(tb, SNODE_A_WINDOW_KIND, 0);
	wi.index = lsn_nl_u32(tb, SNODE_A_WINDOW_INDEX, SNODE_NONE);
	wi.node = lsn_nl_u32(tb, SNODE_A_WINDOW_NODE, SNODE_NONE);
	wi.export_id = lsn_nl_u32(tb, SNODE_A_WINDOW_EXPORT_ID, SNODE_NONE);
	wi.offset = lsn_nl_u64(tb, SNODE_A_WINDOW_OFFSET);
	wi.export_offset = lsn_nl_u64(tb, SNODE_A_WINDOW_EXPORT_OFFSET);
	wi.length = lsn_nl_u64(tb, SNODE_A_WINDOW_LENGTH);
	wi.perm = lsn_nl_u32(tb, SNODE_A_WINDOW_PERM, 0);
	wi.epoch = lsn_nl_u32(tb, SNODE_A_WINDOW_EPOCH, 0);
	wi.state = lsn_nl_u32(tb, SNODE_A_WINDOW_STATE, 0);
	wi.reason = lsn_nl_u32(tb, SNODE_A_WINDOW_REVOKE_REASON, 0);
	wi.pid = (int)lsn_nl_u32(tb, SNODE_A_WINDOW_PID, 0);
	lsn_nl_str(tb, SNODE_A_WINDOW_COMM, wi.comm, sizeof(wi.comm));
	return lsn_iter_append(req->arg, &wi, sizeof(wi));
}

SNODE_EXPORT int snode_window_list(struct snode_ctx *ctx, int dev_index,
				   size_t info_size,
				   struct snode_window_iter **iter)
{
	return lsn_nl_list_dev(ctx, SNODE_NL_CMD_WINDOW_GET,
			       SNODE_A_WINDOW_DEV_INDEX, dev_index,
			       SNODE_A_WINDOW_MAX, lsn_nl_parse_window,
			       info_size, (struct lsn_iter **)iter);
}

LSN_ITER_FUNCS(window, snode_window_info)

/* ------------------------------------------------------------------ */
/* listings of one NIC, in the layout of the library's first version  */

/* A listing of one kind of window into a snapshot of snode_mem_entry. */
struct lsn_nl_mem {
	struct lsn_iter *it;
	unsigned int type;	/* enum snode_mem_list_type */
	uint32_t kind;		/* the window kind it lists */
};

static void lsn_nl_reset_mem(struct lsn_nl_req *req)
{
	struct lsn_nl_mem *l = req->arg;

	lsn_iter_clear(l->it);
}

static int lsn_nl_parse_mem(struct lsn_nl_req *req, struct nlattr **tb)
{
	static const struct {
		uint32_t window;
		uint32_t entry;
	} flags[] = {
		{ SNODE_WINDOW_FLAGS_OWN, SNODE_MEM_ENTRY_OWN },
		{ SNODE_WINDOW_FLAGS_NODES, SNODE_MEM_ENTRY_NODES },
		{ SNODE_WINDOW_FLAGS_ZERO_PAGE, SNODE_MEM_ENTRY_ZERO_PAGE },
		{ SNODE_WINDOW_FLAGS_HIDDEN, SNODE_MEM_ENTRY_HIDDEN },
	};
	struct lsn_nl_mem *l = req->arg;
	uint32_t kind = lsn_nl_u32(tb, SNODE_A_WINDOW_KIND, SNODE_NONE);
	uint32_t wflags = lsn_nl_u32(tb, SNODE_A_WINDOW_FLAGS, 0);
	int pool = kind == SNODE_WINDOW_KIND_EXPORT ||
		   kind == SNODE_WINDOW_KIND_ALLOC;
	struct snode_mem_entry e;
	unsigned int i;

	if (kind != l->kind)
		return 0;
	memset(&e, 0, sizeof(e));
	e.type = l->type;
	e.state = lsn_nl_u32(tb, SNODE_A_WINDOW_STATE, 0);
	e.reason = lsn_nl_u32(tb, SNODE_A_WINDOW_REVOKE_REASON, 0);
	e.node = lsn_nl_u32(tb, SNODE_A_WINDOW_NODE, SNODE_NONE);
	e.epoch = lsn_nl_u32(tb, SNODE_A_WINDOW_EPOCH, 0);
	e.length = lsn_nl_u64(tb, SNODE_A_WINDOW_LENGTH);
	if (kind == SNODE_WINDOW_KIND_EXPORT)
		e.export_id = lsn_nl_u32(tb, SNODE_A_WINDOW_INDEX, 0);
	else
		e.export_id = lsn_nl_u32(tb, SNODE_A_WINDOW_EXPORT_ID, 0);
	if (pool) {
		e.att_index = SNODE_NONE;
		e.offset = lsn_nl_u64(tb, SNODE_A_WINDOW_OFFSET);
	} else {
		e.att_index = lsn_nl_u32(tb, SNODE_A_WINDOW_INDEX, SNODE_NONE);
		e.offset = lsn_nl_u64(tb, SNODE_A_WINDOW_EXPORT_OFFSET);
		e.aperture_offset = lsn_nl_u64(tb, SNODE_A_WINDOW_OFFSET);
	}
	if (lsn_nl_u32(tb, SNODE_A_WINDOW_PERM, 0) & SNODE_WINDOW_PERM_WRITE)
		e.flags |= SNODE_MEM_ENTRY_WRITE;
	for (i = 0; i < sizeof(flags) / sizeof(flags[0]); i++)
		if (wflags & flags[i].window)
			e.flags |= flags[i].entry;
	if (tb[SNODE_A_WINDOW_KEY]) {
		e.key = nla_get_u64(tb[SNODE_A_WINDOW_KEY]);
		e.flags |= SNODE_MEM_ENTRY_KEY;
	}
	e.pid = (int)lsn_nl_u32(tb, SNODE_A_WINDOW_PID, 0);
	lsn_nl_str(tb, SNODE_A_WINDOW_COMM, e.comm, sizeof(e.comm));
	return lsn_iter_append(l->it, &e, sizeof(e));
}

static int lsn_nl_parse_pool(struct lsn_nl_req *req, struct nlattr **tb)
{
	struct lsn_iter *it = req->arg;

	it->pool_size = lsn_nl_u64(tb, SNODE_A_DEV_POOL_SIZE);
	it->pool_free = lsn_nl_u64(tb, SNODE_A_DEV_POOL_FREE);
	return 0;
}

SNODE_EXPORT int snode_mem_list(struct snode_dev *dev, unsigned int type,
				size_t entry_size, struct snode_mem_iter **out)
{
	static const uint32_t kinds[] = {
		[SNODE_MEM_LIST_ALLOCS] = SNODE_WINDOW_KIND_ALLOC,
		[SNODE_MEM_LIST_EXPORTS] = SNODE_WINDOW_KIND_EXPORT,
		[SNODE_MEM_LIST_IMPORTS] = SNODE_WINDOW_KIND_IMPORT,
		[SNODE_MEM_LIST_ATT] = SNODE_WINDOW_KIND_ATT,
	};
	struct lsn_nl_obj o = {
		.dev_attr = SNODE_A_WINDOW_DEV_INDEX,
		.dev_index = dev->index,
	};
	struct lsn_nl_mem l = { .type = type };
	struct lsn_nl_req req = {
		.parse = lsn_nl_parse_mem,
		.arg = &l,
		.maxattr = SNODE_A_WINDOW_MAX,
	};
	int ret;

	/* the first version's entry at least, as the ioctl took it */
	if (type < SNODE_MEM_LIST_ALLOCS || type > SNODE_MEM_LIST_ATT ||
	    entry_size < sizeof(struct snode_mem_entry))
		return -EINVAL;
	l.kind = kinds[type];
	l.it = lsn_iter_new(entry_size);
	if (!l.it)
		return entry_size ? -ENOMEM : -EINVAL;
	ret = lsn_nl_request(dev->ctx, SNODE_NL_CMD_WINDOW_GET, 1,
			     lsn_nl_fill_obj, &o, &req, lsn_nl_reset_mem);
	if (ret >= 0) {
		struct lsn_nl_req dreq = {
			.parse = lsn_nl_parse_pool,
			.arg = l.it,
			.maxattr = SNODE_A_DEV_MAX,
		};

		o.dev_attr = SNODE_A_DEV_INDEX;
		ret = lsn_nl_request(dev->ctx, SNODE_NL_CMD_DEV_GET, 0,
				     lsn_nl_fill_obj, &o, &dreq, NULL);
	}
	if (ret < 0) {
		lsn_iter_free(l.it);
		return ret;
	}
	*out = (struct snode_mem_iter *)l.it;
	return (int)l.it->count;
}

static uint32_t lsn_nl_msg_flags(uint32_t f)
{
	return (f & SNODE_OBJ_FLAGS_OWN ? SNODE_MSG_ENTRY_OWN : 0) |
	       (f & SNODE_OBJ_FLAGS_DEAD ? SNODE_MSG_ENTRY_DEAD : 0) |
	       (f & SNODE_OBJ_FLAGS_HIDDEN ? SNODE_MSG_ENTRY_HIDDEN : 0);
}

static int lsn_nl_parse_ep(struct lsn_nl_req *req, struct nlattr **tb)
{
	struct snode_msg_entry e;

	memset(&e, 0, sizeof(e));
	e.type = SNODE_MSG_LIST_ENDPOINTS;
	e.flags = lsn_nl_msg_flags(lsn_nl_u32(tb, SNODE_A_ENDPOINT_FLAGS, 0));
	e.id = lsn_nl_u32(tb, SNODE_A_ENDPOINT_ID, 0);
	e.vector = lsn_nl_u32(tb, SNODE_A_ENDPOINT_VECTOR, 0);
	e.entries = lsn_nl_u32(tb, SNODE_A_ENDPOINT_ENTRIES, 0);
	e.pending = lsn_nl_u32(tb, SNODE_A_ENDPOINT_PENDING, 0);
	if (tb[SNODE_A_ENDPOINT_KEY]) {
		e.key = nla_get_u64(tb[SNODE_A_ENDPOINT_KEY]);
		e.flags |= SNODE_MSG_ENTRY_KEY;
	}
	e.count = lsn_nl_u64(tb, SNODE_A_ENDPOINT_MSGS);
	e.bytes = lsn_nl_u64(tb, SNODE_A_ENDPOINT_BYTES);
	e.errors = lsn_nl_u64(tb, SNODE_A_ENDPOINT_ERRORS);
	e.pid = (int)lsn_nl_u32(tb, SNODE_A_ENDPOINT_PID, 0);
	lsn_nl_str(tb, SNODE_A_ENDPOINT_COMM, e.comm, sizeof(e.comm));
	return lsn_iter_append(req->arg, &e, sizeof(e));
}

static int lsn_nl_parse_queue(struct lsn_nl_req *req, struct nlattr **tb)
{
	struct snode_msg_entry e;

	memset(&e, 0, sizeof(e));
	e.type = SNODE_MSG_LIST_DMA_QUEUES;
	e.flags = lsn_nl_msg_flags(lsn_nl_u32(tb, SNODE_A_QUEUE_FLAGS, 0));
	e.id = lsn_nl_u32(tb, SNODE_A_QUEUE_ID, 0);
	e.entries = lsn_nl_u32(tb, SNODE_A_QUEUE_DEPTH, 0);
	e.pending = lsn_nl_u32(tb, SNODE_A_QUEUE_INFLIGHT, 0);
	e.count = lsn_nl_u64(tb, SNODE_A_QUEUE_COMPLETED);
	e.bytes = lsn_nl_u64(tb, SNODE_A_QUEUE_BYTES);
	e.errors = lsn_nl_u64(tb, SNODE_A_QUEUE_ERRORS);
	e.pid = (int)lsn_nl_u32(tb, SNODE_A_QUEUE_PID, 0);
	lsn_nl_str(tb, SNODE_A_QUEUE_COMM, e.comm, sizeof(e.comm));
	return lsn_iter_append(req->arg, &e, sizeof(e));
}

SNODE_EXPORT int snode_msg_list(struct snode_dev *dev, unsigned int type,
				size_t entry_size, struct snode_msg_iter **out)
{
	struct lsn_nl_obj o = { .dev_index = dev->index };

	if (entry_size < sizeof(struct snode_msg_entry))
		return -EINVAL;
	if (type == SNODE_MSG_LIST_ENDPOINTS) {
		o.dev_attr = SNODE_A_ENDPOINT_DEV_INDEX;
		return lsn_nl_list(dev->ctx, SNODE_NL_CMD_ENDPOINT_GET, 1, &o,
				   SNODE_A_ENDPOINT_MAX, lsn_nl_parse_ep,
				   entry_size, (struct lsn_iter **)out);
	}
	if (type == SNODE_MSG_LIST_DMA_QUEUES) {
		o.dev_attr = SNODE_A_QUEUE_DEV_INDEX;
		return lsn_nl_list(dev->ctx, SNODE_NL_CMD_QUEUE_GET, 1, &o,
				   SNODE_A_QUEUE_MAX, lsn_nl_parse_queue,
				   entry_size, (struct lsn_iter **)out);
	}
	return -EINVAL;
}

static int lsn_nl_parse_stats(struct lsn_nl_req *req, struct nlattr **tb)
{
	struct snode_stats *st = req->arg;

	st->out_admin_cmds = lsn_nl_u64(tb, SNODE_A_STATS_ADMIN_CMDS);
	st->out_events = lsn_nl_u64(tb, SNODE_A_STATS_EVENTS);
	st->out_events_dropped = lsn_nl_u64(tb, SNODE_A_STATS_EVENTS_DROPPED);
	st->out_access_violations =
		lsn_nl_u64(tb, SNODE_A_STATS_ACCESS_VIOLATIONS);
	st->out_msgs_sent = lsn_nl_u64(tb, SNODE_A_STATS_MSGS_SENT);
	st->out_msgs_received = lsn_nl_u64(tb, SNODE_A_STATS_MSGS_RECEIVED);
	st->out_msgs_rejected = lsn_nl_u64(tb, SNODE_A_STATS_MSGS_REJECTED);
	st->out_dma_reqs = lsn_nl_u64(tb, SNODE_A_STATS_DMA_REQS);
	st->out_dma_bytes = lsn_nl_u64(tb, SNODE_A_STATS_DMA_BYTES);
	st->out_dma_errors = lsn_nl_u64(tb, SNODE_A_STATS_DMA_ERRORS);
	st->out_att_sets = lsn_nl_u64(tb, SNODE_A_STATS_ATT_SETS);
	st->out_att_revokes = lsn_nl_u64(tb, SNODE_A_STATS_ATT_REVOKES);
	st->out_resets = lsn_nl_u64(tb, SNODE_A_STATS_RESETS);
	st->out_send_retries = lsn_nl_u64(tb, SNODE_A_STATS_SEND_RETRIES);
	return 0;
}

SNODE_EXPORT int snode_dev_get_stats(struct snode_dev *dev,
				     struct snode_stats *stats, size_t size)
{
	struct snode_stats st;
	struct lsn_nl_obj o = {
		.dev_attr = SNODE_A_STATS_DEV_INDEX,
		.dev_index = dev->index,
	};
	struct lsn_nl_req req = {
		.parse = lsn_nl_parse_stats,
		.arg = &st,
		.maxattr = SNODE_A_STATS_MAX,
	};
	int ret;

	/* the first version's size: the structure has not grown since */
	if (size < sizeof(st))
		return -EINVAL;
	memset(&st, 0, sizeof(st));
	ret = lsn_nl_request(dev->ctx, SNODE_NL_CMD_STATS_GET, 0,
			     lsn_nl_fill_obj, &o, &req, NULL);
	if (ret < 0)
		return ret;
	st.size = (uint32_t)size;
	lsn_copy_out(stats, size, &st, sizeof(st));
	return 0;
}
