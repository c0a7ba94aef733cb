/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A raw generic-netlink client of the "snode" family, shared by the
 * selftests that talk to it (netlink_test, fail_nth_test): no libnl and no
 * libsnode, so that the kernel ABI is tested on its own. Requests are built
 * in &struct req, sent and answered by nl_do() (or nl_do_buf(), which
 * allocates nothing: fail_nth_test runs it with faults armed), and each
 * reply message is parsed into a &struct msg for a callback.
 *
 * Include after kselftest_harness.h and snode_test.h.
 */
#ifndef SNODE_NL_H
#define SNODE_NL_H

#include <errno.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/snode.h>

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define BUF_LEN		(64 * 1024)
#define MAX_ATTR	64

struct nl {
	int fd;
	uint16_t family;
	uint32_t events_grp;
	uint32_t seq;
	char extack[256];	/* message of the last error */
	unsigned int recvs;	/* recv() calls of the last request */
	bool intr;		/* the last dump was flagged NLM_F_DUMP_INTR */
};

/* One parsed message: its command and top-level attributes. */
struct msg {
	uint8_t cmd;
	struct nlattr *tb[MAX_ATTR + 1];
};

typedef int (*msg_fn)(const struct msg *m, void *arg);

static inline void parse_attrs(struct nlattr **tb, int max, void *data,
			       int len)
{
	struct nlattr *a;

	memset(tb, 0, sizeof(*tb) * (max + 1));
	for (a = data; len >= (int)sizeof(*a) && a->nla_len >= sizeof(*a) &&
	     a->nla_len <= len;
	     len -= NLA_ALIGN(a->nla_len),
	     a = (void *)((char *)a + NLA_ALIGN(a->nla_len))) {
		int type = a->nla_type & NLA_TYPE_MASK;

		if (type <= max)
			tb[type] = a;
	}
}

static inline void *nla_data(const struct nlattr *a)
{
	return (char *)a + NLA_HDRLEN;
}

static inline uint32_t get_u32(const struct msg *m, int attr)
{
	return m->tb[attr] ? *(uint32_t *)nla_data(m->tb[attr]) : UINT32_MAX;
}

static inline uint64_t get_u64(const struct msg *m, int attr)
{
	uint64_t v;

	if (!m->tb[attr])
		return UINT64_MAX;
	memcpy(&v, nla_data(m->tb[attr]), sizeof(v));
	return v;
}

/* A request under construction. */
struct req {
	struct nlmsghdr nlh;
	struct genlmsghdr genl;
	char attrs[512];
};

static inline void req_init(struct req *r, uint16_t type, uint8_t cmd,
			    uint16_t flags)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->genl.cmd = cmd;
	r->genl.version = 1;
}

static inline void req_put(struct req *r, uint16_t type, const void *data,
			   int len)
{
	struct nlattr *a = (void *)((char *)r + NLMSG_ALIGN(r->nlh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(nla_data(a), data, len);
	r->nlh.nlmsg_len = NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static inline void req_u32(struct req *r, uint16_t type, uint32_t v)
{
	req_put(r, type, &v, sizeof(v));
}

static inline void req_u64(struct req *r, uint16_t type, uint64_t v)
{
	req_put(r, type, &v, sizeof(v));
}

/* A request naming one link: port @port of NIC @dev. */
static inline void req_link(struct req *r, uint16_t family, uint8_t cmd,
			    uint32_t dev, uint32_t port)
{
	req_init(r, family, cmd, 0);
	req_u32(r, SNODE_A_LINK_DEV_INDEX, dev);
	req_u32(r, SNODE_A_LINK_PORT, port);
}

static inline int nl_open(struct nl *nl)
{
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };
	int one = 1;

	memset(nl, 0, sizeof(*nl));
	nl->fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (nl->fd < 0)
		return -errno;
	if (bind(nl->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	setsockopt(nl->fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	return 0;
}

static inline void nl_error(struct nl *nl, struct nlmsghdr *h)
{
	struct nlmsgerr *e = NLMSG_DATA(h);
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int off = sizeof(*e);

	nl->extack[0] = '\0';
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(h->nlmsg_flags & NLM_F_CAPPED))
		off += e->msg.nlmsg_len - sizeof(e->msg);
	parse_attrs(tb, NLMSGERR_ATTR_MAX, (char *)e + off,
		    h->nlmsg_len - NLMSG_HDRLEN - off);
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(nl->extack, sizeof(nl->extack), "%s",
			 (char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
}

/* The extended ack of a failed dump follows the error in its DONE. */
static inline void nl_error_done(struct nl *nl, struct nlmsghdr *h)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int off = sizeof(int);

	nl->extack[0] = '\0';
	if (!(h->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	parse_attrs(tb, NLMSGERR_ATTR_MAX, (char *)NLMSG_DATA(h) + off,
		    h->nlmsg_len - NLMSG_HDRLEN - off);
	if (tb[NLMSGERR_ATTR_MSG])
		snprintf(nl->extack, sizeof(nl->extack), "%s",
			 (char *)nla_data(tb[NLMSGERR_ATTR_MSG]));
}

/*
 * Send @r and read replies into @buf (@bufsize bytes) until the ack or the
 * end of the dump, calling @fn (may be NULL) for each. Returns 0 or -errno.
 * Allocates nothing in user space: with @buf resident, the only fault
 * points it reaches are the kernel's.
 */
static inline int nl_do_buf(struct nl *nl, struct req *r, char *buf,
			    size_t bufsize, msg_fn fn, void *arg)
{
	int ret = 0, done = 0;

	r->nlh.nlmsg_seq = ++nl->seq;
	nl->recvs = 0;
	nl->intr = false;
	nl->extack[0] = '\0';
	if (send(nl->fd, r, r->nlh.nlmsg_len, 0) < 0)
		return -errno;
	while (!done) {
		ssize_t n = recv(nl->fd, buf, bufsize, 0);
		struct nlmsghdr *h;

		if (n < 0) {
			ret = -errno;
			break;
		}
		nl->recvs++;
		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			struct msg m;

			if (h->nlmsg_seq != nl->seq)
				continue;
			if (h->nlmsg_flags & NLM_F_DUMP_INTR)
				nl->intr = true;
			if (h->nlmsg_type == NLMSG_DONE) {
				/* a dump that failed says so in its DONE */
				if (h->nlmsg_len >= NLMSG_LENGTH(sizeof(int)) &&
				    *(int *)NLMSG_DATA(h) < 0) {
					ret = *(int *)NLMSG_DATA(h);
					nl_error_done(nl, h);
				}
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				ret = ((struct nlmsgerr *)NLMSG_DATA(h))->error;
				if (ret)
					nl_error(nl, h);
				done = 1;
				break;
			}
			m.cmd = ((struct genlmsghdr *)NLMSG_DATA(h))->cmd;
			parse_attrs(m.tb, MAX_ATTR,
				    (char *)NLMSG_DATA(h) + GENL_HDRLEN,
				    h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
			if (fn && !ret)
				ret = fn(&m, arg);
		}
	}
	return ret;
}

/* nl_do_buf() with a buffer of @bufsize from malloc(). */
static inline int nl_do(struct nl *nl, struct req *r, size_t bufsize,
			msg_fn fn, void *arg)
{
	char *buf = malloc(bufsize);
	int ret;

	if (!buf)
		return -ENOMEM;
	ret = nl_do_buf(nl, r, buf, bufsize, fn, arg);
	free(buf);
	return ret;
}

struct family_arg {
	struct nl *nl;
};

static inline int family_cb(const struct msg *m, void *arg)
{
	struct nl *nl = arg;
	struct nlattr *grp;
	int len;

	if (!m->tb[CTRL_ATTR_FAMILY_ID])
		return -EPROTO;
	nl->family = *(uint16_t *)nla_data(m->tb[CTRL_ATTR_FAMILY_ID]);
	if (!m->tb[CTRL_ATTR_MCAST_GROUPS])
		return 0;
	grp = nla_data(m->tb[CTRL_ATTR_MCAST_GROUPS]);
	len = m->tb[CTRL_ATTR_MCAST_GROUPS]->nla_len - NLA_HDRLEN;
	while (len >= NLA_HDRLEN && grp->nla_len <= len) {
		struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1];

		parse_attrs(tb, CTRL_ATTR_MCAST_GRP_MAX, nla_data(grp),
			    grp->nla_len - NLA_HDRLEN);
		if (tb[CTRL_ATTR_MCAST_GRP_NAME] && tb[CTRL_ATTR_MCAST_GRP_ID] &&
		    !strcmp(nla_data(tb[CTRL_ATTR_MCAST_GRP_NAME]),
			    SNODE_MCGRP_EVENTS))
			nl->events_grp =
				*(uint32_t *)nla_data(tb[CTRL_ATTR_MCAST_GRP_ID]);
		len -= NLA_ALIGN(grp->nla_len);
		grp = (void *)((char *)grp + NLA_ALIGN(grp->nla_len));
	}
	return 0;
}

static inline int nl_resolve(struct nl *nl)
{
	struct req r;

	req_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	r.genl.version = 2;
	req_put(&r, CTRL_ATTR_FAMILY_NAME, SNODE_FAMILY_NAME,
		sizeof(SNODE_FAMILY_NAME));
	return nl_do(nl, &r, BUF_LEN, family_cb, nl);
}

static inline int nl_subscribe(struct nl *nl)
{
	int grp = nl->events_grp;

	return setsockopt(nl->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp,
			  sizeof(grp)) ? -errno : 0;
}

/*
 * Wait up to @ms for a notification @cmd about @port (any, for a command
 * without a link), skipping others; returns 1 and fills @out, 0 on timeout.
 */
static inline int nl_wait_event(struct nl *nl, uint8_t cmd, uint32_t port,
				int ms, struct msg *out, char *buf)
{
	struct timespec start, now;

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (;;) {
		struct pollfd pfd = { .fd = nl->fd, .events = POLLIN };
		struct nlmsghdr *h;
		int left, spent;
		ssize_t n;

		clock_gettime(CLOCK_MONOTONIC, &now);
		spent = (now.tv_sec - start.tv_sec) * 1000 +
			(now.tv_nsec - start.tv_nsec) / 1000000;
		left = ms - spent;
		if (left <= 0 || poll(&pfd, 1, left) <= 0)
			return 0;
		n = recv(nl->fd, buf, BUF_LEN, MSG_DONTWAIT);
		if (n <= 0)
			continue;
		for (h = (void *)buf; NLMSG_OK(h, n); h = NLMSG_NEXT(h, n)) {
			struct nlattr *lt[SNODE_A_LINK_MAX + 1];

			if (h->nlmsg_type != nl->family)
				continue;
			out->cmd = ((struct genlmsghdr *)NLMSG_DATA(h))->cmd;
			parse_attrs(out->tb, MAX_ATTR,
				    (char *)NLMSG_DATA(h) + GENL_HDRLEN,
				    h->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN));
			if (out->cmd != cmd)
				continue;
			if (!out->tb[SNODE_A_EVENT_LINK])
				return 1;
			parse_attrs(lt, SNODE_A_LINK_MAX,
				    nla_data(out->tb[SNODE_A_EVENT_LINK]),
				    out->tb[SNODE_A_EVENT_LINK]->nla_len -
				    NLA_HDRLEN);
			if (lt[SNODE_A_LINK_PORT] &&
			    *(uint32_t *)nla_data(lt[SNODE_A_LINK_PORT]) == port)
				return 1;
		}
	}
}

#define TEST_MAX_DEVS	16
#define TEST_MAX_LINKS	64
#define TEST_MAX_NODES	4096

struct dev_ent {
	uint32_t index;
	char name[32];
	uint32_t node_id;
	uint32_t nports;
	uint32_t max_nodes;
	uint64_t threshold;	/* ber-threshold, the NIC's default */
};

struct link_ent {
	uint32_t dev, port, admin, oper, lanes, speed, peer_node, peer_switch;
	uint64_t crc, replays, recoveries, down_events, ber, threshold;
	uint32_t alarm;
	/* auto-isolate: the policy, the isolation and its reason */
	uint32_t iso_on, iso_flaps, iso_window, isolation, iso_reason;
	uint64_t iso_ber;
	/* utilisation: threshold (%), last period (0.01 %), alarm, hysteresis */
	uint32_t util_threshold, util_tx, util_rx, util_alarm, util_hyst;
};

struct node_ent {
	uint32_t dev, id, state, route;
};

struct table {
	unsigned int n;
	struct dev_ent dev[TEST_MAX_DEVS];
	struct link_ent link[TEST_MAX_LINKS];
	struct node_ent node[TEST_MAX_NODES];
};

static inline int dev_cb(const struct msg *m, void *arg)
{
	struct table *t = arg;
	struct dev_ent *d;

	if (m->cmd != SNODE_NL_CMD_DEV_GET || t->n >= TEST_MAX_DEVS)
		return -EPROTO;
	d = &t->dev[t->n++];
	d->index = get_u32(m, SNODE_A_DEV_INDEX);
	snprintf(d->name, sizeof(d->name), "%s",
		 m->tb[SNODE_A_DEV_NAME] ?
		 (char *)nla_data(m->tb[SNODE_A_DEV_NAME]) : "");
	d->node_id = get_u32(m, SNODE_A_DEV_NODE_ID);
	d->nports = get_u32(m, SNODE_A_DEV_NPORTS);
	d->max_nodes = get_u32(m, SNODE_A_DEV_MAX_NODES);
	d->threshold = get_u64(m, SNODE_A_DEV_BER_THRESHOLD);
	return 0;
}

static inline void link_fill(struct link_ent *l, const struct msg *m)
{
	l->dev = get_u32(m, SNODE_A_LINK_DEV_INDEX);
	l->port = get_u32(m, SNODE_A_LINK_PORT);
	l->admin = get_u32(m, SNODE_A_LINK_ADMIN_STATE);
	l->oper = get_u32(m, SNODE_A_LINK_OPER_STATE);
	l->lanes = get_u32(m, SNODE_A_LINK_LANES);
	l->speed = get_u32(m, SNODE_A_LINK_SPEED);
	l->peer_node = get_u32(m, SNODE_A_LINK_PEER_NODE);
	l->peer_switch = get_u32(m, SNODE_A_LINK_PEER_SWITCH);
	l->crc = get_u64(m, SNODE_A_LINK_CRC_ERRORS);
	l->replays = get_u64(m, SNODE_A_LINK_REPLAYS);
	l->recoveries = get_u64(m, SNODE_A_LINK_RECOVERIES);
	l->down_events = get_u64(m, SNODE_A_LINK_DOWN_EVENTS);
	l->ber = get_u64(m, SNODE_A_LINK_BER);
	l->threshold = get_u64(m, SNODE_A_LINK_BER_THRESHOLD);
	l->alarm = get_u32(m, SNODE_A_LINK_BER_ALARM);
	l->iso_on = get_u32(m, SNODE_A_LINK_AUTO_ISOLATE);
	l->iso_ber = get_u64(m, SNODE_A_LINK_ISOLATE_BER);
	l->iso_flaps = get_u32(m, SNODE_A_LINK_ISOLATE_FLAPS);
	l->iso_window = get_u32(m, SNODE_A_LINK_ISOLATE_WINDOW);
	l->isolation = get_u32(m, SNODE_A_LINK_ISOLATION);
	l->iso_reason = get_u32(m, SNODE_A_LINK_ISOLATE_REASON);
	l->util_threshold = get_u32(m, SNODE_A_LINK_UTIL_THRESHOLD);
	l->util_tx = get_u32(m, SNODE_A_LINK_UTIL_TX);
	l->util_rx = get_u32(m, SNODE_A_LINK_UTIL_RX);
	l->util_alarm = get_u32(m, SNODE_A_LINK_UTIL_ALARM);
	l->util_hyst = get_u32(m, SNODE_A_LINK_UTIL_HYSTERESIS);
}

static inline int link_cb(const struct msg *m, void *arg)
{
	struct table *t = arg;

	if (m->cmd != SNODE_NL_CMD_LINK_GET || t->n >= TEST_MAX_LINKS)
		return -EPROTO;
	link_fill(&t->link[t->n++], m);
	return 0;
}

static inline int node_cb(const struct msg *m, void *arg)
{
	struct table *t = arg;
	struct node_ent *e;

	if (m->cmd != SNODE_NL_CMD_NODE_GET || t->n >= TEST_MAX_NODES)
		return -EPROTO;
	e = &t->node[t->n++];
	e->dev = get_u32(m, SNODE_A_NODE_DEV_INDEX);
	e->id = get_u32(m, SNODE_A_NODE_ID);
	e->state = get_u32(m, SNODE_A_NODE_STATE);
	e->route = get_u32(m, SNODE_A_NODE_ROUTE_PORT);
	return 0;
}

static inline int dump(struct nl *nl, uint8_t cmd, size_t bufsize,
		       msg_fn fn, struct table *t)
{
	struct req r;

	t->n = 0;
	req_init(&r, nl->family, cmd, NLM_F_DUMP);
	return nl_do(nl, &r, bufsize, fn, t);
}

static inline int link_get(struct nl *nl, uint32_t dev, uint32_t port,
			   struct link_ent *out)
{
	struct table *t = calloc(1, sizeof(*t));
	struct req r;
	int ret;

	req_link(&r, nl->family, SNODE_NL_CMD_LINK_GET, dev, port);
	ret = nl_do(nl, &r, BUF_LEN, link_cb, t);
	if (!ret && t->n != 1)
		ret = -EPROTO;
	if (!ret)
		*out = t->link[0];
	free(t);
	return ret;
}

static inline int link_op(struct nl *nl, uint8_t cmd, uint32_t dev,
			  uint32_t port)
{
	struct req r;

	req_link(&r, nl->family, cmd, dev, port);
	return nl_do(nl, &r, BUF_LEN, NULL, NULL);
}

static inline int link_set_u32(struct nl *nl, uint32_t dev, uint32_t port,
			       int attr, uint32_t v)
{
	struct req r;

	req_link(&r, nl->family, SNODE_NL_CMD_LINK_SET, dev, port);
	req_u32(&r, attr, v);
	return nl_do(nl, &r, BUF_LEN, NULL, NULL);
}

static inline int link_set_threshold(struct nl *nl, uint32_t dev,
				     uint32_t port, uint64_t v)
{
	struct req r;

	req_link(&r, nl->family, SNODE_NL_CMD_LINK_SET, dev, port);
	req_u64(&r, SNODE_A_LINK_BER_THRESHOLD, v);
	return nl_do(nl, &r, BUF_LEN, NULL, NULL);
}

static inline int dev_set_threshold(struct nl *nl, uint32_t dev, uint64_t v)
{
	struct req r;

	req_init(&r, nl->family, SNODE_NL_CMD_DEV_SET, 0);
	req_u32(&r, SNODE_A_DEV_INDEX, dev);
	req_u64(&r, SNODE_A_DEV_BER_THRESHOLD, v);
	return nl_do(nl, &r, BUF_LEN, NULL, NULL);
}

/* Wait until a get of the link says @oper, up to @ms. */
static inline int wait_oper(struct nl *nl, uint32_t dev, uint32_t port,
			    uint32_t oper, int ms)
{
	struct link_ent l;

	for (; ms > 0; ms -= 100) {
		if (!link_get(nl, dev, port, &l) && l.oper == oper)
			return 0;
		usleep(100 * 1000);
	}
	return -ETIMEDOUT;
}

/*
 * Listings of one NIC, as the ioctls of the first version gave them and
 * netlink dumps give them now (window-get, endpoint-get, queue-get): one
 * flat entry per object, with the fields the tests check.
 */
enum mem_list_type {
	MEM_LIST_ALLOCS = 1,
	MEM_LIST_EXPORTS,
	MEM_LIST_IMPORTS,
	MEM_LIST_ATT,
};

enum mem_ent_flags {
	MEM_ENT_WRITE = 1 << 0,
	MEM_ENT_NODES = 1 << 1,
	MEM_ENT_ZERO_PAGE = 1 << 2,
	MEM_ENT_KEY = 1 << 3,
	MEM_ENT_OWN = 1 << 4,
	MEM_ENT_HIDDEN = 1 << 5,
};

struct mem_ent {
	uint32_t type, flags, state, reason, node, export_id, att_index, epoch;
	uint64_t key, offset, length, aperture_offset;
	int pid;
	char comm[16];
};

enum obj_list_type {
	OBJ_LIST_ENDPOINTS = 1,
	OBJ_LIST_DMA_QUEUES,
};

enum obj_ent_flags {
	OBJ_ENT_KEY = 1 << 0,
	OBJ_ENT_OWN = 1 << 1,
	OBJ_ENT_DEAD = 1 << 2,
	OBJ_ENT_HIDDEN = 1 << 3,
};

struct obj_ent {
	uint32_t type, flags, id, vector, entries, pending;
	uint64_t key, count, bytes, errors;
	int pid;
	char comm[16];
};

/* Where a listing's callback puts entries: at most @max, @n counts all. */
struct list_arg {
	uint32_t type;
	void *e;
	uint32_t max, n;
	uint64_t pool_size, pool_free;
};

static inline void get_str(const struct msg *m, int attr, char *buf,
			   size_t len)
{
	buf[0] = '\0';
	if (m->tb[attr])
		snprintf(buf, len, "%s", (char *)nla_data(m->tb[attr]));
}

static inline uint32_t get_u32_or(const struct msg *m, int attr,
				  uint32_t dflt)
{
	return m->tb[attr] ? get_u32(m, attr) : dflt;
}

static inline uint64_t get_u64_or0(const struct msg *m, int attr)
{
	return m->tb[attr] ? get_u64(m, attr) : 0;
}

static inline int mem_ent_cb(const struct msg *m, void *arg)
{
	static const uint32_t kinds[] = {
		[MEM_LIST_ALLOCS] = SNODE_WINDOW_KIND_ALLOC,
		[MEM_LIST_EXPORTS] = SNODE_WINDOW_KIND_EXPORT,
		[MEM_LIST_IMPORTS] = SNODE_WINDOW_KIND_IMPORT,
		[MEM_LIST_ATT] = SNODE_WINDOW_KIND_ATT,
	};
	struct list_arg *l = arg;
	uint32_t kind = get_u32(m, SNODE_A_WINDOW_KIND);
	uint32_t wf = get_u32_or(m, SNODE_A_WINDOW_FLAGS, 0);
	bool pool = kind == SNODE_WINDOW_KIND_EXPORT ||
		    kind == SNODE_WINDOW_KIND_ALLOC;
	struct mem_ent *e;

	if (m->cmd != SNODE_NL_CMD_WINDOW_GET)
		return -EPROTO;
	if (kind != kinds[l->type] || l->n++ >= l->max || !l->e)
		return 0;
	e = (struct mem_ent *)l->e + l->n - 1;
	memset(e, 0, sizeof(*e));
	e->type = l->type;
	e->state = get_u32_or(m, SNODE_A_WINDOW_STATE, 0);
	e->reason = get_u32_or(m, SNODE_A_WINDOW_REVOKE_REASON, 0);
	e->node = get_u32(m, SNODE_A_WINDOW_NODE);
	e->epoch = get_u32_or(m, SNODE_A_WINDOW_EPOCH, 0);
	e->length = get_u64_or0(m, SNODE_A_WINDOW_LENGTH);
	e->export_id = kind == SNODE_WINDOW_KIND_EXPORT ?
		       get_u32(m, SNODE_A_WINDOW_INDEX) :
		       get_u32_or(m, SNODE_A_WINDOW_EXPORT_ID, 0);
	if (pool) {
		e->att_index = UINT32_MAX;
		e->offset = get_u64_or0(m, SNODE_A_WINDOW_OFFSET);
	} else {
		e->att_index = get_u32(m, SNODE_A_WINDOW_INDEX);
		e->offset = get_u64_or0(m, SNODE_A_WINDOW_EXPORT_OFFSET);
		e->aperture_offset = get_u64_or0(m, SNODE_A_WINDOW_OFFSET);
	}
	if (get_u32_or(m, SNODE_A_WINDOW_PERM, 0) & SNODE_WINDOW_PERM_WRITE)
		e->flags |= MEM_ENT_WRITE;
	if (wf & SNODE_WINDOW_FLAGS_NODES)
		e->flags |= MEM_ENT_NODES;
	if (wf & SNODE_WINDOW_FLAGS_ZERO_PAGE)
		e->flags |= MEM_ENT_ZERO_PAGE;
	if (wf & SNODE_WINDOW_FLAGS_OWN)
		e->flags |= MEM_ENT_OWN;
	if (wf & SNODE_WINDOW_FLAGS_HIDDEN)
		e->flags |= MEM_ENT_HIDDEN;
	if (m->tb[SNODE_A_WINDOW_KEY]) {
		e->key = get_u64(m, SNODE_A_WINDOW_KEY);
		e->flags |= MEM_ENT_KEY;
	}
	e->pid = (int)get_u32_or(m, SNODE_A_WINDOW_PID, 0);
	get_str(m, SNODE_A_WINDOW_COMM, e->comm, sizeof(e->comm));
	return 0;
}

static inline int obj_ent_cb(const struct msg *m, void *arg)
{
	struct list_arg *l = arg;
	bool ep = l->type == OBJ_LIST_ENDPOINTS;
	struct obj_ent *e;
	uint32_t f;

	if (m->cmd != (ep ? SNODE_NL_CMD_ENDPOINT_GET : SNODE_NL_CMD_QUEUE_GET))
		return -EPROTO;
	if (l->n++ >= l->max || !l->e)
		return 0;
	e = (struct obj_ent *)l->e + l->n - 1;
	memset(e, 0, sizeof(*e));
	e->type = l->type;
	if (ep) {
		f = get_u32_or(m, SNODE_A_ENDPOINT_FLAGS, 0);
		e->id = get_u32(m, SNODE_A_ENDPOINT_ID);
		e->vector = get_u32(m, SNODE_A_ENDPOINT_VECTOR);
		e->entries = get_u32(m, SNODE_A_ENDPOINT_ENTRIES);
		e->pending = get_u32(m, SNODE_A_ENDPOINT_PENDING);
		if (m->tb[SNODE_A_ENDPOINT_KEY]) {
			e->key = get_u64(m, SNODE_A_ENDPOINT_KEY);
			e->flags |= OBJ_ENT_KEY;
		}
		e->count = get_u64(m, SNODE_A_ENDPOINT_MSGS);
		e->bytes = get_u64(m, SNODE_A_ENDPOINT_BYTES);
		e->errors = get_u64(m, SNODE_A_ENDPOINT_ERRORS);
		e->pid = (int)get_u32_or(m, SNODE_A_ENDPOINT_PID, 0);
		get_str(m, SNODE_A_ENDPOINT_COMM, e->comm, sizeof(e->comm));
	} else {
		f = get_u32_or(m, SNODE_A_QUEUE_FLAGS, 0);
		e->id = get_u32(m, SNODE_A_QUEUE_ID);
		e->entries = get_u32(m, SNODE_A_QUEUE_DEPTH);
		e->pending = get_u32(m, SNODE_A_QUEUE_INFLIGHT);
		e->count = get_u64(m, SNODE_A_QUEUE_COMPLETED);
		e->bytes = get_u64(m, SNODE_A_QUEUE_BYTES);
		e->errors = get_u64(m, SNODE_A_QUEUE_ERRORS);
		e->pid = (int)get_u32_or(m, SNODE_A_QUEUE_PID, 0);
		get_str(m, SNODE_A_QUEUE_COMM, e->comm, sizeof(e->comm));
	}
	if (f & SNODE_OBJ_FLAGS_OWN)
		e->flags |= OBJ_ENT_OWN;
	if (f & SNODE_OBJ_FLAGS_DEAD)
		e->flags |= OBJ_ENT_DEAD;
	if (f & SNODE_OBJ_FLAGS_HIDDEN)
		e->flags |= OBJ_ENT_HIDDEN;
	return 0;
}

static inline int pool_cb(const struct msg *m, void *arg)
{
	struct list_arg *l = arg;

	l->pool_size = get_u64_or0(m, SNODE_A_DEV_POOL_SIZE);
	l->pool_free = get_u64_or0(m, SNODE_A_DEV_POOL_FREE);
	return 0;
}

/* The index N of the /dev/snodeN that @fd is open on, or -1. */
static inline int fd_dev_index(int fd)
{
	struct snode_info info = { .size = sizeof(info) };

	return ioctl(fd, SNODE_IOCTL_INFO, &info) ? -1 : (int)info.out_index;
}

/*
 * List one table of the NIC that @fd is open on: @l->type is a
 * MEM_LIST_* (@mem) or OBJ_LIST_*; up to @l->max entries go to @l->e, and
 * @l->n is the number that exist. Dumps the family on a socket of its own
 * (so a caller's ioctl fd is all a test needs). 0 or a negative errno.
 */
static inline int snode_list(int fd, bool mem, struct list_arg *l)
{
	int dev = fd_dev_index(fd);
	struct nl nl;
	struct req r;
	int ret;

	if (dev < 0)
		return -errno;
	if (mem ? l->type < MEM_LIST_ALLOCS || l->type > MEM_LIST_ATT :
		  l->type < OBJ_LIST_ENDPOINTS || l->type > OBJ_LIST_DMA_QUEUES)
		return -EINVAL;
	ret = nl_open(&nl);
	if (!ret)
		ret = nl_resolve(&nl);
	if (ret) {
		close(nl.fd);
		return ret;
	}
	l->n = 0;
	if (mem) {
		req_init(&r, nl.family, SNODE_NL_CMD_WINDOW_GET, NLM_F_DUMP);
		req_u32(&r, SNODE_A_WINDOW_DEV_INDEX, (uint32_t)dev);
		ret = nl_do(&nl, &r, BUF_LEN, mem_ent_cb, l);
		if (!ret) {
			req_init(&r, nl.family, SNODE_NL_CMD_DEV_GET, 0);
			req_u32(&r, SNODE_A_DEV_INDEX, (uint32_t)dev);
			ret = nl_do(&nl, &r, BUF_LEN, pool_cb, l);
		}
	} else {
		bool ep = l->type == OBJ_LIST_ENDPOINTS;

		req_init(&r, nl.family, ep ? SNODE_NL_CMD_ENDPOINT_GET :
					     SNODE_NL_CMD_QUEUE_GET, NLM_F_DUMP);
		req_u32(&r, ep ? SNODE_A_ENDPOINT_DEV_INDEX :
				 SNODE_A_QUEUE_DEV_INDEX, (uint32_t)dev);
		ret = nl_do(&nl, &r, BUF_LEN, obj_ent_cb, l);
	}
	close(nl.fd);
	return ret;
}

/*
 * snode_list() into @e, room *@count (0 with @e NULL just counts): 0 with
 * *@count set to the entries that exist, or -1 with errno.
 */
static inline int list_into(int fd, bool mem, uint32_t type, void *e,
			    uint32_t *count)
{
	struct list_arg l = { .type = type, .e = e, .max = e ? *count : 0 };
	int ret = snode_list(fd, mem, &l);

	if (ret) {
		errno = -ret;
		return -1;
	}
	*count = l.n;
	return 0;
}

/* A memory table (MEM_LIST_*) into struct mem_ent entries. */
static inline int mem_list(int fd, uint32_t type, struct mem_ent *e,
			   uint32_t *count)
{
	return list_into(fd, true, type, e, count);
}

/* Endpoints or DMA queues (OBJ_LIST_*) into struct obj_ent entries. */
static inline int obj_list(int fd, uint32_t type, struct obj_ent *e,
			   uint32_t *count)
{
	return list_into(fd, false, type, e, count);
}

/* The NIC's counters (stats-get) by attribute (dev-index too); UINT64_MAX
 * if absent. */
struct stats_arg {
	uint64_t v[SNODE_A_STATS_MAX + 1];
};

static inline int stats_cb(const struct msg *m, void *arg)
{
	struct stats_arg *st = arg;
	int i;

	if (m->cmd != SNODE_NL_CMD_STATS_GET)
		return -EPROTO;
	st->v[SNODE_A_STATS_DEV_INDEX] = m->tb[SNODE_A_STATS_DEV_INDEX] ?
		get_u32(m, SNODE_A_STATS_DEV_INDEX) : UINT64_MAX;
	for (i = SNODE_A_STATS_DEV_INDEX + 1; i <= SNODE_A_STATS_MAX; i++)
		if (i != SNODE_A_STATS_PAD)
			st->v[i] = get_u64(m, i);
	return 0;
}

/* The counters of the NIC that @fd is open on: 0 or a negative errno. */
static inline int stats_get(int fd, struct stats_arg *st)
{
	int dev = fd_dev_index(fd);
	struct nl nl;
	struct req r;
	int ret;

	if (dev < 0)
		return -errno;
	ret = nl_open(&nl);
	if (!ret)
		ret = nl_resolve(&nl);
	if (!ret) {
		req_init(&r, nl.family, SNODE_NL_CMD_STATS_GET, 0);
		req_u32(&r, SNODE_A_STATS_DEV_INDEX, (uint32_t)dev);
		ret = nl_do(&nl, &r, BUF_LEN, stats_cb, st);
	}
	close(nl.fd);
	return ret;
}

#endif /* SNODE_NL_H */
