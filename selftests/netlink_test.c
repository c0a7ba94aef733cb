// SPDX-License-Identifier: GPL-2.0
/*
 * snode netlink selftests: the "snode" generic-netlink family as a raw
 * netlink client sees it (no libnl, no libsnode, so that the kernel ABI is
 * tested on its own): dumps and gets of NICs, links and nodes, dumps that
 * span several buffers, errors and their extended-ack messages, admin
 * operations and their notifications, and what an unprivileged user may do.
 *
 * Runs as root in a guest with snode.ko loaded and a NIC attached to a
 * fabric. The link operations use the NIC's last port; on the emulator's
 * dual-plane topologies routes prefer port 0, so taking it down disturbs
 * nothing else.
 */
#include <dirent.h>
#include <grp.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/snode.h>

#include "kselftest_harness.h"

#ifndef SOL_NETLINK
#define SOL_NETLINK 270
#endif

#define SNODE_CLASS	"/sys/class/snode"
#define BUF_LEN		(64 * 1024)
#define MAX_ATTR	64
#define UNPRIV_UID	1000

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

static void parse_attrs(struct nlattr **tb, int max, void *data, int len)
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

static void *nla_data(const struct nlattr *a)
{
	return (char *)a + NLA_HDRLEN;
}

static uint32_t get_u32(const struct msg *m, int attr)
{
	return m->tb[attr] ? *(uint32_t *)nla_data(m->tb[attr]) : UINT32_MAX;
}

static uint64_t get_u64(const struct msg *m, int attr)
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

static void req_init(struct req *r, uint16_t type, uint8_t cmd, uint16_t flags)
{
	memset(r, 0, sizeof(*r));
	r->nlh.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	r->nlh.nlmsg_type = type;
	r->nlh.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | flags;
	r->genl.cmd = cmd;
	r->genl.version = 1;
}

static void req_put(struct req *r, uint16_t type, const void *data, int len)
{
	struct nlattr *a = (void *)((char *)r + NLMSG_ALIGN(r->nlh.nlmsg_len));

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy(nla_data(a), data, len);
	r->nlh.nlmsg_len = NLMSG_ALIGN(r->nlh.nlmsg_len) + NLA_ALIGN(a->nla_len);
}

static void req_u32(struct req *r, uint16_t type, uint32_t v)
{
	req_put(r, type, &v, sizeof(v));
}

static void req_u64(struct req *r, uint16_t type, uint64_t v)
{
	req_put(r, type, &v, sizeof(v));
}

static int nl_open(struct nl *nl)
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

static void nl_error(struct nl *nl, struct nlmsghdr *h)
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
static void nl_error_done(struct nl *nl, struct nlmsghdr *h)
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
 * Send @r and read replies with a @bufsize buffer until the ack or the end
 * of the dump, calling @fn (may be NULL) for each. Returns 0 or -errno.
 */
static int nl_do(struct nl *nl, struct req *r, size_t bufsize, msg_fn fn,
		 void *arg)
{
	char *buf = malloc(bufsize);
	int ret = 0, done = 0;

	if (!buf)
		return -ENOMEM;
	r->nlh.nlmsg_seq = ++nl->seq;
	nl->recvs = 0;
	nl->intr = false;
	nl->extack[0] = '\0';
	if (send(nl->fd, r, r->nlh.nlmsg_len, 0) < 0) {
		free(buf);
		return -errno;
	}
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
	free(buf);
	return ret;
}

struct family_arg {
	struct nl *nl;
};

static int family_cb(const struct msg *m, void *arg)
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

static int nl_resolve(struct nl *nl)
{
	struct req r;

	req_init(&r, GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 0);
	r.genl.version = 2;
	req_put(&r, CTRL_ATTR_FAMILY_NAME, SNODE_FAMILY_NAME,
		sizeof(SNODE_FAMILY_NAME));
	return nl_do(nl, &r, BUF_LEN, family_cb, nl);
}

static int nl_subscribe(struct nl *nl)
{
	int grp = nl->events_grp;

	return setsockopt(nl->fd, SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, &grp,
			  sizeof(grp)) ? -errno : 0;
}

/*
 * Wait up to @ms for a notification @cmd about @port, skipping others;
 * returns 1 and fills @out, 0 on timeout.
 */
static int nl_wait_event(struct nl *nl, uint8_t cmd, uint32_t port, int ms,
			 struct msg *out, char *buf)
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

/* ------------------------------------------------------------------ */

#define TEST_MAX_DEVS	16
#define TEST_MAX_LINKS	64
#define TEST_MAX_NODES	4096

struct dev_ent {
	uint32_t index;
	char name[32];
	uint32_t node_id;
	uint32_t nports;
	uint32_t max_nodes;
};

struct link_ent {
	uint32_t dev, port, admin, oper, lanes, speed, peer_node, peer_switch;
	uint64_t crc, replays, recoveries, down_events, ber, threshold;
	uint32_t alarm;
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

static int dev_cb(const struct msg *m, void *arg)
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
	return 0;
}

static void link_fill(struct link_ent *l, const struct msg *m)
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
}

static int link_cb(const struct msg *m, void *arg)
{
	struct table *t = arg;

	if (m->cmd != SNODE_CMD_LINK_GET || t->n >= TEST_MAX_LINKS)
		return -EPROTO;
	link_fill(&t->link[t->n++], m);
	return 0;
}

static int node_cb(const struct msg *m, void *arg)
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

static int dump(struct nl *nl, uint8_t cmd, size_t bufsize, msg_fn fn,
		struct table *t)
{
	struct req r;

	t->n = 0;
	req_init(&r, nl->family, cmd, NLM_F_DUMP);
	return nl_do(nl, &r, bufsize, fn, t);
}

static int link_get(struct nl *nl, uint32_t dev, uint32_t port,
		    struct link_ent *out)
{
	struct table *t = calloc(1, sizeof(*t));
	struct req r;
	int ret;

	req_init(&r, nl->family, SNODE_CMD_LINK_GET, 0);
	req_u32(&r, SNODE_A_LINK_DEV_INDEX, dev);
	req_u32(&r, SNODE_A_LINK_PORT, port);
	ret = nl_do(nl, &r, BUF_LEN, link_cb, t);
	if (!ret && t->n != 1)
		ret = -EPROTO;
	if (!ret)
		*out = t->link[0];
	free(t);
	return ret;
}

static int link_op(struct nl *nl, uint8_t cmd, uint32_t dev, uint32_t port)
{
	struct req r;

	req_init(&r, nl->family, cmd, 0);
	req_u32(&r, SNODE_A_LINK_DEV_INDEX, dev);
	req_u32(&r, SNODE_A_LINK_PORT, port);
	return nl_do(nl, &r, BUF_LEN, NULL, NULL);
}

static int link_set_u32(struct nl *nl, uint32_t dev, uint32_t port,
			int attr, uint32_t v)
{
	struct req r;

	req_init(&r, nl->family, SNODE_CMD_LINK_SET, 0);
	req_u32(&r, SNODE_A_LINK_DEV_INDEX, dev);
	req_u32(&r, SNODE_A_LINK_PORT, port);
	req_u32(&r, attr, v);
	return nl_do(nl, &r, BUF_LEN, NULL, NULL);
}

static int link_set_threshold(struct nl *nl, uint32_t dev, uint32_t port,
			      uint64_t v)
{
	struct req r;

	req_init(&r, nl->family, SNODE_CMD_LINK_SET, 0);
	req_u32(&r, SNODE_A_LINK_DEV_INDEX, dev);
	req_u32(&r, SNODE_A_LINK_PORT, port);
	req_u64(&r, SNODE_A_LINK_BER_THRESHOLD, v);
	return nl_do(nl, &r, BUF_LEN, NULL, NULL);
}

static int dev_set_threshold(struct nl *nl, uint32_t dev, uint64_t v)
{
	struct req r;

	req_init(&r, nl->family, SNODE_CMD_DEV_SET, 0);
	req_u32(&r, SNODE_A_DEV_INDEX, dev);
	req_u64(&r, SNODE_A_DEV_BER_THRESHOLD, v);
	return nl_do(nl, &r, BUF_LEN, NULL, NULL);
}

static int read_u32_file(const char *path, uint32_t *v)
{
	FILE *f = fopen(path, "r");
	int ok;

	if (!f)
		return -errno;
	ok = fscanf(f, "%u", v) == 1;
	fclose(f);
	return ok ? 0 : -EINVAL;
}

/* Wait until a get of the link says @oper, up to @ms. */
static int wait_oper(struct nl *nl, uint32_t dev, uint32_t port,
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

FIXTURE(nl) {
	struct nl nl;
	struct table *t;
	struct dev_ent dev;	/* the first NIC */
	char *buf;
};

FIXTURE_SETUP(nl)
{
	int ret;

	self->t = calloc(1, sizeof(*self->t));
	self->buf = malloc(BUF_LEN);
	ASSERT_NE(NULL, self->t);
	ASSERT_NE(NULL, self->buf);
	ASSERT_EQ(0, nl_open(&self->nl));
	ret = nl_resolve(&self->nl);
	if (ret == -ENOENT)
		SKIP(return, "the snode family is not registered (snode.ko not loaded)");
	ASSERT_EQ(0, ret);
	ASSERT_EQ(0, dump(&self->nl, SNODE_CMD_DEV_GET, BUF_LEN, dev_cb,
			  self->t));
	if (!self->t->n)
		SKIP(return, "no snode device");
	self->dev = self->t->dev[0];
	if (self->dev.node_id == UINT32_MAX)
		SKIP(return, "%s is not attached to a fabric", self->dev.name);
}

FIXTURE_TEARDOWN(nl)
{
	close(self->nl.fd);
	free(self->t);
	free(self->buf);
}

TEST_F(nl, family_has_events_group)
{
	EXPECT_NE(0, self->nl.family);
	EXPECT_NE(0, self->nl.events_grp);
}

/* Every /sys/class/snode/snodeN, once, with its node id. */
TEST_F(nl, dev_dump_matches_sysfs)
{
	unsigned int i, seen = 0;
	struct dirent *de;
	DIR *d = opendir(SNODE_CLASS);

	ASSERT_NE(NULL, d);
	while ((de = readdir(d))) {
		char path[300];
		uint32_t node;
		bool found = false;

		if (strncmp(de->d_name, "snode", 5))
			continue;
		seen++;
		snprintf(path, sizeof(path), SNODE_CLASS "/%s/node_id",
			 de->d_name);
		for (i = 0; i < self->t->n; i++) {
			if (strcmp(self->t->dev[i].name, de->d_name))
				continue;
			found = true;
			EXPECT_EQ((uint32_t)atoi(de->d_name + 5),
				  self->t->dev[i].index);
			if (!read_u32_file(path, &node))
				EXPECT_EQ(node, self->t->dev[i].node_id);
		}
		EXPECT_TRUE(found) TH_LOG("%s missing from the dump", de->d_name);
	}
	closedir(d);
	EXPECT_EQ(seen, self->t->n);
}

TEST_F(nl, dev_get)
{
	struct req r;

	self->t->n = 0;
	req_init(&r, self->nl.family, SNODE_CMD_DEV_GET, 0);
	req_u32(&r, SNODE_A_DEV_INDEX, self->dev.index);
	ASSERT_EQ(0, nl_do(&self->nl, &r, BUF_LEN, dev_cb, self->t));
	ASSERT_EQ(1, self->t->n);
	EXPECT_STREQ(self->dev.name, self->t->dev[0].name);
	EXPECT_EQ(self->dev.node_id, self->t->dev[0].node_id);

	req_init(&r, self->nl.family, SNODE_CMD_DEV_GET, 0);
	req_u32(&r, SNODE_A_DEV_INDEX, 999);
	EXPECT_EQ(-ENODEV, nl_do(&self->nl, &r, BUF_LEN, NULL, NULL));
	EXPECT_STREQ("no such snode device", self->nl.extack);

	req_init(&r, self->nl.family, SNODE_CMD_DEV_GET, 0);
	EXPECT_EQ(-EINVAL, nl_do(&self->nl, &r, BUF_LEN, NULL, NULL));
}

/* Each port of each NIC once, in order, with its required attributes. */
TEST_F(nl, link_dump_complete)
{
	struct table *devs = calloc(1, sizeof(*devs));
	unsigned int i, d, k = 0;

	ASSERT_EQ(0, dump(&self->nl, SNODE_CMD_DEV_GET, BUF_LEN, dev_cb, devs));
	ASSERT_EQ(0, dump(&self->nl, SNODE_CMD_LINK_GET, BUF_LEN, link_cb,
			  self->t));
	for (d = 0; d < devs->n; d++) {
		for (i = 0; i < devs->dev[d].nports; i++, k++) {
			struct link_ent *l = &self->t->link[k];

			ASSERT_LT(k, self->t->n);
			EXPECT_EQ(devs->dev[d].index, l->dev);
			EXPECT_EQ(i, l->port);
			EXPECT_NE(UINT32_MAX, l->oper);
			EXPECT_NE(UINT32_MAX, l->lanes);
			EXPECT_NE(UINT32_MAX, l->speed);
			EXPECT_NE(UINT64_MAX, l->crc);
			EXPECT_NE(UINT64_MAX, l->ber);
			EXPECT_EQ(l->crc, l->replays);
		}
	}
	EXPECT_EQ(k, self->t->n);
	free(devs);
}

/* A get asks the NIC too: what does not move agrees with the dump. */
TEST_F(nl, link_get_matches_dump)
{
	unsigned int i;

	ASSERT_EQ(0, dump(&self->nl, SNODE_CMD_LINK_GET, BUF_LEN, link_cb,
			  self->t));
	for (i = 0; i < self->t->n; i++) {
		struct link_ent *l = &self->t->link[i], g;

		ASSERT_EQ(0, link_get(&self->nl, l->dev, l->port, &g));
		EXPECT_EQ(l->admin, g.admin);
		EXPECT_EQ(l->oper, g.oper);
		EXPECT_EQ(l->lanes, g.lanes);
		EXPECT_EQ(l->speed, g.speed);
		EXPECT_EQ(l->peer_node, g.peer_node);
		EXPECT_EQ(l->peer_switch, g.peer_switch);
		EXPECT_LE(l->crc, g.crc);
	}
}

TEST_F(nl, link_get_errors)
{
	struct link_ent l;
	struct req r;

	EXPECT_EQ(-ENOENT, link_get(&self->nl, self->dev.index,
				    self->dev.nports, &l));
	EXPECT_STREQ("no such port on this snode device", self->nl.extack);
	EXPECT_EQ(-ENODEV, link_get(&self->nl, 999, 0, &l));
	EXPECT_STREQ("no such snode device", self->nl.extack);

	req_init(&r, self->nl.family, SNODE_CMD_LINK_GET, 0);
	req_u32(&r, SNODE_A_LINK_DEV_INDEX, self->dev.index);
	EXPECT_EQ(-EINVAL, nl_do(&self->nl, &r, BUF_LEN, NULL, NULL));

	/* a dump filtered by a NIC that does not exist */
	req_init(&r, self->nl.family, SNODE_CMD_LINK_GET, NLM_F_DUMP);
	req_u32(&r, SNODE_A_LINK_DEV_INDEX, 999);
	EXPECT_EQ(-ENODEV, nl_do(&self->nl, &r, BUF_LEN, NULL, NULL));
	EXPECT_STREQ("no such snode device", self->nl.extack);
}

/*
 * With a small receive buffer the kernel fills small skbs: a large node
 * table must arrive complete, in order and without duplicates over
 * several of them, and agree with a dump into a large buffer.
 */
TEST_F(nl, node_dump_spans_buffers)
{
	struct table *big = calloc(1, sizeof(*big));
	unsigned int i, tries;
	struct nl small;

	/*
	 * A socket remembers the largest buffer it was read with and sizes
	 * dump skbs after it: this one is only ever read with 4 KiB.
	 */
	ASSERT_EQ(0, nl_open(&small));
	small.family = self->nl.family;
	for (tries = 0; tries < 5; tries++) {
		ASSERT_EQ(0, dump(&small, SNODE_CMD_NODE_GET, 4096, node_cb,
				  self->t));
		if (!small.intr)
			break;
	}
	close(small.fd);
	ASSERT_FALSE(small.intr);
	TH_LOG("%u nodes in %u buffers", self->t->n, small.recvs);
	if (self->t->n > 100)
		EXPECT_GT(small.recvs, 2);
	for (i = 1; i < self->t->n; i++) {
		struct node_ent *a = &self->t->node[i - 1], *b = &self->t->node[i];

		EXPECT_TRUE(a->dev < b->dev || (a->dev == b->dev && a->id < b->id));
	}
	for (i = 0; i < self->t->n; i++) {
		EXPECT_NE(SNODE_NODE_STATE_UNKNOWN, self->t->node[i].state);
		if (self->t->node[i].state == SNODE_NODE_STATE_UP) {
			EXPECT_LT(self->t->node[i].route, 8);
		} else {
			EXPECT_EQ(UINT32_MAX, self->t->node[i].route);
		}
	}

	ASSERT_EQ(0, dump(&self->nl, SNODE_CMD_NODE_GET, BUF_LEN, node_cb, big));
	if (!self->nl.intr) {
		ASSERT_EQ(self->t->n, big->n);
		for (i = 0; i < big->n; i++) {
			EXPECT_EQ(self->t->node[i].id, big->node[i].id);
			EXPECT_EQ(self->t->node[i].state, big->node[i].state);
		}
	}
	free(big);
}

TEST_F(nl, node_get)
{
	struct table *one = calloc(1, sizeof(*one));
	struct req r;

	ASSERT_EQ(0, dump(&self->nl, SNODE_CMD_NODE_GET, BUF_LEN, node_cb,
			  self->t));
	if (!self->t->n)
		SKIP(free(one); return, "no other node in the fabric");
	req_init(&r, self->nl.family, SNODE_CMD_NODE_GET, 0);
	req_u32(&r, SNODE_A_NODE_DEV_INDEX, self->t->node[0].dev);
	req_u32(&r, SNODE_A_NODE_ID, self->t->node[0].id);
	ASSERT_EQ(0, nl_do(&self->nl, &r, BUF_LEN, node_cb, one));
	ASSERT_EQ(1, one->n);
	EXPECT_EQ(self->t->node[0].id, one->node[0].id);
	EXPECT_EQ(self->t->node[0].state, one->node[0].state);

	req_init(&r, self->nl.family, SNODE_CMD_NODE_GET, 0);
	req_u32(&r, SNODE_A_NODE_DEV_INDEX, self->dev.index);
	req_u32(&r, SNODE_A_NODE_ID, self->dev.max_nodes);
	EXPECT_EQ(-ENOENT, nl_do(&self->nl, &r, BUF_LEN, NULL, NULL));
	EXPECT_STREQ("node id out of range of the fabric", self->nl.extack);
	free(one);
}

/* The NIC's default threshold applies to links without their own. */
TEST_F(nl, ber_threshold_inherit)
{
	uint32_t port = self->dev.nports - 1;
	struct link_ent l;

	ASSERT_EQ(0, dev_set_threshold(&self->nl, self->dev.index, 5000));
	ASSERT_EQ(0, link_set_threshold(&self->nl, self->dev.index, port, 0));
	ASSERT_EQ(0, link_get(&self->nl, self->dev.index, port, &l));
	EXPECT_EQ(5000, l.threshold);
	ASSERT_EQ(0, link_set_threshold(&self->nl, self->dev.index, port, 77));
	ASSERT_EQ(0, link_get(&self->nl, self->dev.index, port, &l));
	EXPECT_EQ(77, l.threshold);
	ASSERT_EQ(0, link_set_threshold(&self->nl, self->dev.index, port, 0));
	ASSERT_EQ(0, dev_set_threshold(&self->nl, self->dev.index, 0));
	ASSERT_EQ(0, link_get(&self->nl, self->dev.index, port, &l));
	EXPECT_EQ(0, l.threshold);
}

TEST_F(nl, link_set_needs_something)
{
	struct req r;

	req_init(&r, self->nl.family, SNODE_CMD_LINK_SET, 0);
	req_u32(&r, SNODE_A_LINK_DEV_INDEX, self->dev.index);
	req_u32(&r, SNODE_A_LINK_PORT, 0);
	EXPECT_EQ(-EINVAL, nl_do(&self->nl, &r, BUF_LEN, NULL, NULL));
	/* the policy's range check */
	EXPECT_EQ(-ERANGE, link_set_u32(&self->nl, self->dev.index, 0,
					SNODE_A_LINK_ADMIN_STATE, 2));
}

/* Admin down and up: the link follows, and each change is notified. */
TEST_F(nl, link_down_up_notified)
{
	uint32_t port = self->dev.nports - 1, dev = self->dev.index;
	struct link_ent l;
	struct nl ev;
	struct msg m;

	ASSERT_EQ(0, nl_open(&ev));
	ev.family = self->nl.family;
	ev.events_grp = self->nl.events_grp;
	ASSERT_EQ(0, nl_subscribe(&ev));

	ASSERT_EQ(0, link_set_u32(&self->nl, dev, port,
				  SNODE_A_LINK_ADMIN_STATE,
				  SNODE_LINK_ADMIN_STATE_DOWN));
	ASSERT_EQ(1, nl_wait_event(&ev, SNODE_CMD_LINK_STATE_NTF, port, 10000,
				   &m, self->buf));
	EXPECT_NE(NULL, m.tb[SNODE_A_EVENT_TIMESTAMP]);
	EXPECT_NE(NULL, m.tb[SNODE_A_EVENT_HW_TIMESTAMP]);
	EXPECT_EQ(dev, get_u32(&m, SNODE_A_EVENT_DEV_INDEX));
	ASSERT_EQ(0, wait_oper(&self->nl, dev, port,
			       SNODE_LINK_OPER_STATE_DOWN, 5000));
	ASSERT_EQ(0, link_get(&self->nl, dev, port, &l));
	EXPECT_EQ(SNODE_LINK_ADMIN_STATE_DOWN, l.admin);

	/* a second notification within the second may be held back */
	ASSERT_EQ(0, link_set_u32(&self->nl, dev, port,
				  SNODE_A_LINK_ADMIN_STATE,
				  SNODE_LINK_ADMIN_STATE_UP));
	ASSERT_EQ(1, nl_wait_event(&ev, SNODE_CMD_LINK_STATE_NTF, port, 10000,
				   &m, self->buf));
	ASSERT_EQ(0, wait_oper(&self->nl, dev, port, SNODE_LINK_OPER_STATE_UP,
			       5000));
	ASSERT_EQ(0, link_get(&self->nl, dev, port, &l));
	EXPECT_EQ(SNODE_LINK_ADMIN_STATE_UP, l.admin);
	EXPECT_GE(l.down_events, 1);
	close(ev.fd);
}

/* Reset retrains: one more recovery. Clear zeroes every counter. */
TEST_F(nl, link_reset_and_clear)
{
	uint32_t port = self->dev.nports - 1, dev = self->dev.index;
	struct link_ent before, after;
	int i;

	ASSERT_EQ(0, link_get(&self->nl, dev, port, &before));
	ASSERT_EQ(0, link_op(&self->nl, SNODE_CMD_LINK_RESET, dev, port));
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(0, link_get(&self->nl, dev, port, &after));
		if (after.recoveries > before.recoveries &&
		    after.oper == SNODE_LINK_OPER_STATE_UP)
			break;
		usleep(100 * 1000);
	}
	EXPECT_EQ(before.recoveries + 1, after.recoveries);
	EXPECT_EQ(SNODE_LINK_OPER_STATE_UP, after.oper);

	ASSERT_EQ(0, link_op(&self->nl, SNODE_CMD_LINK_CLEAR, dev, port));
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(0, link_get(&self->nl, dev, port, &after));
		if (!after.recoveries)
			break;
		usleep(100 * 1000);
	}
	EXPECT_EQ(0, after.recoveries);
	EXPECT_EQ(0, after.down_events);
	EXPECT_EQ(0, after.crc);
	EXPECT_EQ(0, after.replays);
}

/* Anyone may read everything; changes need CAP_NET_ADMIN. */
TEST_F(nl, unprivileged_reads_but_cannot_change)
{
	uint32_t port = self->dev.nports - 1, dev = self->dev.index;
	int status;
	pid_t pid;

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct link_ent l;
		struct req r;

		if (setgroups(0, NULL) || setgid(UNPRIV_UID) ||
		    setuid(UNPRIV_UID))
			_exit(10);
		if (dump(&self->nl, SNODE_CMD_DEV_GET, BUF_LEN, dev_cb, self->t) ||
		    !self->t->n)
			_exit(11);
		if (dump(&self->nl, SNODE_CMD_LINK_GET, BUF_LEN, link_cb,
			 self->t) || !self->t->n)
			_exit(12);
		if (dump(&self->nl, SNODE_CMD_NODE_GET, BUF_LEN, node_cb,
			 self->t))
			_exit(13);
		if (link_get(&self->nl, dev, port, &l))
			_exit(14);
		if (link_set_u32(&self->nl, dev, port, SNODE_A_LINK_ADMIN_STATE,
				 SNODE_LINK_ADMIN_STATE_DOWN) != -EPERM)
			_exit(20);
		if (link_set_threshold(&self->nl, dev, port, 1) != -EPERM)
			_exit(21);
		if (link_op(&self->nl, SNODE_CMD_LINK_RESET, dev, port) != -EPERM)
			_exit(22);
		if (link_op(&self->nl, SNODE_CMD_LINK_CLEAR, dev, port) != -EPERM)
			_exit(23);
		if (dev_set_threshold(&self->nl, dev, 1) != -EPERM)
			_exit(24);
		req_init(&r, self->nl.family, SNODE_CMD_DEV_GET, 0);
		/* a subscription to the events group is open to all */
		if (nl_subscribe(&self->nl))
			_exit(30);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

struct window_arg {
	unsigned int n;
	bool found;
	uint32_t want_pid;
};

static int window_cb(const struct msg *m, void *arg)
{
	struct window_arg *w = arg;

	if (m->cmd != SNODE_CMD_WINDOW_GET)
		return -EPROTO;
	w->n++;
	if (get_u32(m, SNODE_A_WINDOW_KIND) == SNODE_WINDOW_KIND_IMPORT &&
	    get_u32(m, SNODE_A_WINDOW_NODE) == 1 &&
	    get_u32(m, SNODE_A_WINDOW_EXPORT_ID) == 0 &&
	    get_u64(m, SNODE_A_WINDOW_LENGTH) == 65536 &&
	    get_u32(m, SNODE_A_WINDOW_PID) == w->want_pid &&
	    get_u32(m, SNODE_A_WINDOW_STATE) == SNODE_WINDOW_STATE_ACTIVE &&
	    get_u32(m, SNODE_A_WINDOW_PERM) ==
	    (SNODE_WINDOW_PERM_READ | SNODE_WINDOW_PERM_WRITE) &&
	    m->tb[SNODE_A_WINDOW_COMM])
		w->found = true;
	return 0;
}

/*
 * An import of node 1's export 0 (the simulated fabrics export 64 KiB of
 * every node under key 0x5100) shows in the window dump with its owner.
 */
TEST_F(nl, window_dump_shows_import)
{
	struct snode_mem_import imp = {
		.size = sizeof(imp),
		.flags = SNODE_IMPORT_WRITE,
		.node = 1,
		.export_id = 0,
		.key = 0x5100,
		.length = 65536,
	};
	struct window_arg w = { .want_pid = getpid() };
	char path[64];
	struct req r;
	int fd;

	snprintf(path, sizeof(path), "/dev/%s", self->dev.name);
	fd = open(path, O_RDWR);
	ASSERT_LE(0, fd);
	if (ioctl(fd, SNODE_IOCTL_MEM_IMPORT, &imp))
		SKIP(close(fd); return, "no export 0 on node 1 to import (%s)",
		     strerror(errno));

	req_init(&r, self->nl.family, SNODE_CMD_WINDOW_GET, NLM_F_DUMP);
	req_u32(&r, SNODE_A_WINDOW_DEV_INDEX, self->dev.index);
	ASSERT_EQ(0, nl_do(&self->nl, &r, BUF_LEN, window_cb, &w));
	EXPECT_TRUE(w.found);
	EXPECT_GE(w.n, 2);	/* the import and its ATT entry */
	close(imp.out_fd);
	close(fd);
}

TEST_HARNESS_MAIN
