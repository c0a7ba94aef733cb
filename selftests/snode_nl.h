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

	if (m->cmd != SNODE_CMD_DEV_GET || t->n >= TEST_MAX_DEVS)
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
}

static inline int link_cb(const struct msg *m, void *arg)
{
	struct table *t = arg;

	if (m->cmd != SNODE_CMD_LINK_GET || t->n >= TEST_MAX_LINKS)
		return -EPROTO;
	link_fill(&t->link[t->n++], m);
	return 0;
}

static inline int node_cb(const struct msg *m, void *arg)
{
	struct table *t = arg;
	struct node_ent *e;

	if (m->cmd != SNODE_CMD_NODE_GET || t->n >= TEST_MAX_NODES)
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

	req_link(&r, nl->family, SNODE_CMD_LINK_GET, dev, port);
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

	req_link(&r, nl->family, SNODE_CMD_LINK_SET, dev, port);
	req_u32(&r, attr, v);
	return nl_do(nl, &r, BUF_LEN, NULL, NULL);
}

static inline int link_set_threshold(struct nl *nl, uint32_t dev,
				     uint32_t port, uint64_t v)
{
	struct req r;

	req_link(&r, nl->family, SNODE_CMD_LINK_SET, dev, port);
	req_u64(&r, SNODE_A_LINK_BER_THRESHOLD, v);
	return nl_do(nl, &r, BUF_LEN, NULL, NULL);
}

static inline int dev_set_threshold(struct nl *nl, uint32_t dev, uint64_t v)
{
	struct req r;

	req_init(&r, nl->family, SNODE_CMD_DEV_SET, 0);
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

#endif /* SNODE_NL_H */
