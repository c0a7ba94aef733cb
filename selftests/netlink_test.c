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
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/snode.h>

#include "kselftest_harness.h"
#include "snode_test.h"
#include "snode_nl.h"

#define SNODE_CLASS	"/sys/class/snode"
#define UNPRIV_UID	1000

/* ------------------------------------------------------------------ */


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
	ASSERT_EQ(0, dump(&self->nl, SNODE_NL_CMD_DEV_GET, BUF_LEN, dev_cb,
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
	req_init(&r, self->nl.family, SNODE_NL_CMD_DEV_GET, 0);
	req_u32(&r, SNODE_A_DEV_INDEX, self->dev.index);
	ASSERT_EQ(0, nl_do(&self->nl, &r, BUF_LEN, dev_cb, self->t));
	ASSERT_EQ(1, self->t->n);
	EXPECT_STREQ(self->dev.name, self->t->dev[0].name);
	EXPECT_EQ(self->dev.node_id, self->t->dev[0].node_id);

	req_init(&r, self->nl.family, SNODE_NL_CMD_DEV_GET, 0);
	req_u32(&r, SNODE_A_DEV_INDEX, 999);
	EXPECT_EQ(-ENODEV, nl_do(&self->nl, &r, BUF_LEN, NULL, NULL));
	EXPECT_STREQ("no such snode device", self->nl.extack);

	req_init(&r, self->nl.family, SNODE_NL_CMD_DEV_GET, 0);
	EXPECT_EQ(-EINVAL, nl_do(&self->nl, &r, BUF_LEN, NULL, NULL));
}

/* Each port of each NIC once, in order, with its required attributes. */
TEST_F(nl, link_dump_complete)
{
	struct table *devs = calloc(1, sizeof(*devs));
	unsigned int i, d, k = 0;

	ASSERT_EQ(0, dump(&self->nl, SNODE_NL_CMD_DEV_GET, BUF_LEN, dev_cb, devs));
	ASSERT_EQ(0, dump(&self->nl, SNODE_NL_CMD_LINK_GET, BUF_LEN, link_cb,
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

	ASSERT_EQ(0, dump(&self->nl, SNODE_NL_CMD_LINK_GET, BUF_LEN, link_cb,
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

	req_init(&r, self->nl.family, SNODE_NL_CMD_LINK_GET, 0);
	req_u32(&r, SNODE_A_LINK_DEV_INDEX, self->dev.index);
	EXPECT_EQ(-EINVAL, nl_do(&self->nl, &r, BUF_LEN, NULL, NULL));

	/* a dump filtered by a NIC that does not exist */
	req_init(&r, self->nl.family, SNODE_NL_CMD_LINK_GET, NLM_F_DUMP);
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
		ASSERT_EQ(0, dump(&small, SNODE_NL_CMD_NODE_GET, 4096, node_cb,
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

	ASSERT_EQ(0, dump(&self->nl, SNODE_NL_CMD_NODE_GET, BUF_LEN, node_cb, big));
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

	ASSERT_EQ(0, dump(&self->nl, SNODE_NL_CMD_NODE_GET, BUF_LEN, node_cb,
			  self->t));
	if (!self->t->n)
		SKIP(free(one); return, "no other node in the fabric");
	req_init(&r, self->nl.family, SNODE_NL_CMD_NODE_GET, 0);
	req_u32(&r, SNODE_A_NODE_DEV_INDEX, self->t->node[0].dev);
	req_u32(&r, SNODE_A_NODE_ID, self->t->node[0].id);
	ASSERT_EQ(0, nl_do(&self->nl, &r, BUF_LEN, node_cb, one));
	ASSERT_EQ(1, one->n);
	EXPECT_EQ(self->t->node[0].id, one->node[0].id);
	EXPECT_EQ(self->t->node[0].state, one->node[0].state);

	req_init(&r, self->nl.family, SNODE_NL_CMD_NODE_GET, 0);
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

	req_link(&r, self->nl.family, SNODE_NL_CMD_LINK_SET, self->dev.index, 0);
	EXPECT_EQ(-EINVAL, nl_do(&self->nl, &r, BUF_LEN, NULL, NULL));
	/* the policy's range check */
	EXPECT_EQ(-ERANGE, link_set_u32(&self->nl, self->dev.index, 0,
					SNODE_A_LINK_ADMIN_STATE, 2));
}

/*
 * The utilisation threshold: 80 by default with 10 points of hysteresis,
 * 1..100 (the policy's range; nothing changes on a refusal), per link,
 * the hysteresis half a low threshold; 80 again at the end. An idle link
 * is not in alarm.
 */
TEST_F(nl, link_util_threshold)
{
	uint32_t port = self->dev.nports - 1, dev = self->dev.index;
	struct link_ent l;

	ASSERT_EQ(0, link_get(&self->nl, dev, port, &l));
	EXPECT_EQ(80, l.util_threshold);
	EXPECT_EQ(10, l.util_hyst);
	EXPECT_EQ(0, l.util_alarm);
	EXPECT_GE(10000u, l.util_tx);
	EXPECT_GE(10000u, l.util_rx);
	EXPECT_EQ(-ERANGE, link_set_u32(&self->nl, dev, port,
					SNODE_A_LINK_UTIL_THRESHOLD, 0));
	EXPECT_EQ(-ERANGE, link_set_u32(&self->nl, dev, port,
					SNODE_A_LINK_UTIL_THRESHOLD, 101));
	ASSERT_EQ(0, link_get(&self->nl, dev, port, &l));
	EXPECT_EQ(80, l.util_threshold);
	ASSERT_EQ(0, link_set_u32(&self->nl, dev, port,
				  SNODE_A_LINK_UTIL_THRESHOLD, 9));
	ASSERT_EQ(0, link_get(&self->nl, dev, port, &l));
	EXPECT_EQ(9, l.util_threshold);
	EXPECT_EQ(4, l.util_hyst);
	EXPECT_EQ(0, l.util_alarm);
	if (port) {
		ASSERT_EQ(0, link_get(&self->nl, dev, 0, &l));
		EXPECT_EQ(80, l.util_threshold);
	}
	EXPECT_EQ(-ENOENT, link_set_u32(&self->nl, dev, self->dev.nports,
					SNODE_A_LINK_UTIL_THRESHOLD, 50));
	ASSERT_EQ(0, link_set_u32(&self->nl, dev, port,
				  SNODE_A_LINK_UTIL_THRESHOLD, 80));
	ASSERT_EQ(0, link_get(&self->nl, dev, port, &l));
	EXPECT_EQ(80, l.util_threshold);
}

/*
 * The auto-isolate policy: off by default, what link-set refuses (with
 * the reason), what link-get reports back; off again at the end.
 */
TEST_F(nl, link_auto_isolate_policy)
{
	uint32_t port = self->dev.nports - 1, dev = self->dev.index;
	struct link_ent l;
	struct req r;

	ASSERT_EQ(0, link_get(&self->nl, dev, port, &l));
	EXPECT_EQ(0, l.iso_on);
	EXPECT_EQ(0, l.iso_flaps);
	EXPECT_EQ(0, l.iso_ber);
	EXPECT_EQ(SNODE_LINK_ISOLATION_NONE, l.isolation);
	EXPECT_EQ(UINT32_MAX, l.iso_reason);

	/* on without a limit */
	EXPECT_EQ(-EINVAL, link_set_u32(&self->nl, dev, port,
					SNODE_A_LINK_AUTO_ISOLATE, 1));
	EXPECT_STREQ("auto-isolate needs a limit: isolate-ber or isolate-flaps",
		     self->nl.extack);
	/* a flap limit without its window, a window alone */
	EXPECT_EQ(-EINVAL, link_set_u32(&self->nl, dev, port,
					SNODE_A_LINK_ISOLATE_FLAPS, 5));
	EXPECT_STREQ("a flap limit needs isolate-window (seconds)",
		     self->nl.extack);
	EXPECT_EQ(-EINVAL, link_set_u32(&self->nl, dev, port,
					SNODE_A_LINK_ISOLATE_WINDOW, 60));
	/* the policy's ranges */
	EXPECT_EQ(-ERANGE, link_set_u32(&self->nl, dev, port,
					SNODE_A_LINK_AUTO_ISOLATE, 2));
	req_link(&r, self->nl.family, SNODE_NL_CMD_LINK_SET, dev, port);
	req_u32(&r, SNODE_A_LINK_ISOLATE_FLAPS, 65);
	req_u32(&r, SNODE_A_LINK_ISOLATE_WINDOW, 60);
	EXPECT_EQ(-ERANGE, nl_do(&self->nl, &r, BUF_LEN, NULL, NULL));
	req_link(&r, self->nl.family, SNODE_NL_CMD_LINK_SET, dev, port);
	req_u32(&r, SNODE_A_LINK_ISOLATE_FLAPS, 5);
	req_u32(&r, SNODE_A_LINK_ISOLATE_WINDOW, 86401);
	EXPECT_EQ(-ERANGE, nl_do(&self->nl, &r, BUF_LEN, NULL, NULL));
	ASSERT_EQ(0, link_get(&self->nl, dev, port, &l));
	EXPECT_EQ(0, l.iso_on);

	/* a policy far from anything the emulated link does (BER 0.5) */
	req_link(&r, self->nl.family, SNODE_NL_CMD_LINK_SET, dev, port);
	req_u32(&r, SNODE_A_LINK_AUTO_ISOLATE, 1);
	req_u64(&r, SNODE_A_LINK_ISOLATE_BER, 500000000000000000ULL);
	req_u32(&r, SNODE_A_LINK_ISOLATE_FLAPS, 64);
	req_u32(&r, SNODE_A_LINK_ISOLATE_WINDOW, 86400);
	ASSERT_EQ(0, nl_do(&self->nl, &r, BUF_LEN, NULL, NULL));
	ASSERT_EQ(0, link_get(&self->nl, dev, port, &l));
	EXPECT_EQ(1, l.iso_on);
	EXPECT_EQ(500000000000000000ULL, l.iso_ber);
	EXPECT_EQ(64, l.iso_flaps);
	EXPECT_EQ(86400, l.iso_window);
	EXPECT_EQ(SNODE_LINK_ISOLATION_NONE, l.isolation);
	/* a limit changed without auto-isolate leaves it on */
	ASSERT_EQ(0, link_set_u32(&self->nl, dev, port,
				  SNODE_A_LINK_ISOLATE_FLAPS, 0));
	ASSERT_EQ(0, link_get(&self->nl, dev, port, &l));
	EXPECT_EQ(1, l.iso_on);
	EXPECT_EQ(0, l.iso_flaps);
	EXPECT_EQ(0, l.iso_window);
	EXPECT_EQ(500000000000000000ULL, l.iso_ber);
	/* ... and the last limit cannot go while it is on */
	req_link(&r, self->nl.family, SNODE_NL_CMD_LINK_SET, dev, port);
	req_u64(&r, SNODE_A_LINK_ISOLATE_BER, 0);
	EXPECT_EQ(-EINVAL, nl_do(&self->nl, &r, BUF_LEN, NULL, NULL));
	ASSERT_EQ(0, link_set_u32(&self->nl, dev, port,
				  SNODE_A_LINK_AUTO_ISOLATE, 0));
	ASSERT_EQ(0, link_get(&self->nl, dev, port, &l));
	EXPECT_EQ(0, l.iso_on);
	EXPECT_EQ(SNODE_LINK_ISOLATION_NONE, l.isolation);
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
	ASSERT_EQ(1, nl_wait_event(&ev, SNODE_NL_CMD_LINK_STATE_NTF, port, 10000,
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
	ASSERT_EQ(1, nl_wait_event(&ev, SNODE_NL_CMD_LINK_STATE_NTF, port, 10000,
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
	ASSERT_EQ(0, link_op(&self->nl, SNODE_NL_CMD_LINK_RESET, dev, port));
	for (i = 0; i < 50; i++) {
		ASSERT_EQ(0, link_get(&self->nl, dev, port, &after));
		if (after.recoveries > before.recoveries &&
		    after.oper == SNODE_LINK_OPER_STATE_UP)
			break;
		usleep(100 * 1000);
	}
	EXPECT_EQ(before.recoveries + 1, after.recoveries);
	EXPECT_EQ(SNODE_LINK_OPER_STATE_UP, after.oper);

	ASSERT_EQ(0, link_op(&self->nl, SNODE_NL_CMD_LINK_CLEAR, dev, port));
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

/*
 * Anyone may read the tables; changes and the events group need
 * CAP_NET_ADMIN.
 */
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
		if (dump(&self->nl, SNODE_NL_CMD_DEV_GET, BUF_LEN, dev_cb, self->t) ||
		    !self->t->n)
			_exit(11);
		if (dump(&self->nl, SNODE_NL_CMD_LINK_GET, BUF_LEN, link_cb,
			 self->t) || !self->t->n)
			_exit(12);
		if (dump(&self->nl, SNODE_NL_CMD_NODE_GET, BUF_LEN, node_cb,
			 self->t))
			_exit(13);
		if (link_get(&self->nl, dev, port, &l))
			_exit(14);
		if (link_set_u32(&self->nl, dev, port, SNODE_A_LINK_ADMIN_STATE,
				 SNODE_LINK_ADMIN_STATE_DOWN) != -EPERM)
			_exit(20);
		if (link_set_threshold(&self->nl, dev, port, 1) != -EPERM)
			_exit(21);
		if (link_op(&self->nl, SNODE_NL_CMD_LINK_RESET, dev, port) != -EPERM)
			_exit(22);
		if (link_op(&self->nl, SNODE_NL_CMD_LINK_CLEAR, dev, port) != -EPERM)
			_exit(23);
		if (dev_set_threshold(&self->nl, dev, 1) != -EPERM)
			_exit(24);
		req_init(&r, self->nl.family, SNODE_NL_CMD_DEV_GET, 0);
		/* events name other users' objects: CAP_NET_ADMIN only */
		if (nl_subscribe(&self->nl) != -EPERM)
			_exit(30);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
}

#define READ_GID_PARAM	"/sys/module/snode/parameters/read_gid"
#define SNODE_GID	900	/* group "snode" in the guests' /etc/group */

/* Become uid UNPRIV_UID, in group snode if @member: 0 or -1. */
static int become(bool member)
{
	gid_t g = SNODE_GID;

	return setgroups(member ? 1 : 0, &g) || setgid(UNPRIV_UID) ||
	       setuid(UNPRIV_UID) ? -1 : 0;
}

/* A stats-get of NIC @dev on @nl into @st. */
static int stats_on(struct nl *nl, uint32_t dev, struct stats_arg *st)
{
	struct req r;

	req_init(&r, nl->family, SNODE_NL_CMD_STATS_GET, 0);
	req_u32(&r, SNODE_A_STATS_DEV_INDEX, dev);
	return nl_do(nl, &r, BUF_LEN, stats_cb, st);
}

/*
 * With read_gid set, reading needs CAP_NET_ADMIN or the group: an outsider
 * gets EPERM for gets and dumps, a member reads, and a member reading
 * through a socket an outsider opened gets EPERM. A member's stats-gets
 * within a second share one STATS command (the NIC's admin_cmds counter,
 * which counts every command, does not move between them).
 */
TEST_F(nl, reads_for_group_members_only)
{
	uint32_t dev = self->dev.index;
	int status, i;
	char old[32];
	pid_t pid;

	if (read_file(READ_GID_PARAM, old, sizeof(old)) <= 0)
		SKIP(return, "no %s", READ_GID_PARAM);
	ASSERT_EQ(0, write_file(READ_GID_PARAM, "900"));
	for (i = 0; i < 3; i++) {
		pid = fork();
		ASSERT_LE(0, pid);
		if (!pid) {
			struct stats_arg a, b;
			struct link_ent l;
			struct nl nl = self->nl;

			if (i == 2) {
				/* an outsider's socket, then a member reads */
				if (setgroups(0, NULL) || setegid(UNPRIV_UID) ||
				    seteuid(UNPRIV_UID) || nl_open(&nl) ||
				    seteuid(0))
					_exit(10);
				nl.family = self->nl.family;
			}
			if (become(i != 0))
				_exit(10);
			if (i != 1) {
				if (dump(&nl, SNODE_NL_CMD_DEV_GET, BUF_LEN,
					 dev_cb, self->t) != -EPERM)
					_exit(11);
				if (dump(&nl, SNODE_NL_CMD_NODE_GET, BUF_LEN,
					 node_cb, self->t) != -EPERM)
					_exit(12);
				if (link_get(&nl, dev, 0, &l) != -EPERM)
					_exit(13);
				if (stats_on(&nl, dev, &a) != -EPERM)
					_exit(14);
				_exit(0);
			}
			if (dump(&nl, SNODE_NL_CMD_DEV_GET, BUF_LEN, dev_cb,
				 self->t) || !self->t->n)
				_exit(21);
			if (link_get(&nl, dev, 0, &l))
				_exit(22);
			if (stats_on(&nl, dev, &a) || stats_on(&nl, dev, &b))
				_exit(23);
			if (a.v[SNODE_A_STATS_ADMIN_CMDS] !=
			    b.v[SNODE_A_STATS_ADMIN_CMDS])
				_exit(24);
			_exit(0);
		}
		ASSERT_EQ(pid, waitpid(pid, &status, 0));
		EXPECT_TRUE(WIFEXITED(status));
		EXPECT_EQ(0, WEXITSTATUS(status))
			TH_LOG("%s: step %d failed",
			       i == 0 ? "outsider" : i == 1 ? "member" :
			       "member on an outsider's socket",
			       WEXITSTATUS(status));
	}
	/* root, without the group */
	EXPECT_EQ(0, dump(&self->nl, SNODE_NL_CMD_DEV_GET, BUF_LEN, dev_cb,
			  self->t));
	EXPECT_EQ(0, write_file(READ_GID_PARAM, "-1"));
}

struct window_arg {
	unsigned int n;
	bool found;
	uint32_t want_pid;
};

static int window_cb(const struct msg *m, void *arg)
{
	struct window_arg *w = arg;

	if (m->cmd != SNODE_NL_CMD_WINDOW_GET)
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
 * Open NIC @name into *fd and import node 1's export 0 there, writable
 * (the simulated fabrics export 64 KiB of every node under key 0x5100).
 * Returns the import's fd, or -1 with the test skipped (and *fd closed)
 * if there is no such export.
 */
static int import_node1(struct __test_metadata *_metadata, const char *name,
			int *fd)
{
	struct snode_mem_import imp = {
		.size = sizeof(imp),
		.flags = SNODE_IMPORT_WRITE,
		.node = 1,
		.export_id = 0,
		.key = 0x5100,
		.length = 65536,
	};
	char path[64];

	snprintf(path, sizeof(path), "/dev/%s", name);
	*fd = open(path, O_RDWR);
	ASSERT_LE(0, *fd);
	if (ioctl(*fd, SNODE_IOCTL_MEM_IMPORT, &imp)) {
		SKIP(close(*fd), "no export 0 on node 1 to import (%s)",
		     strerror(errno));
		return -1;
	}
	return imp.out_fd;
}

/*
 * An import of node 1's export 0 (the simulated fabrics export 64 KiB of
 * every node under key 0x5100) shows in the window dump with its owner.
 */
TEST_F(nl, window_dump_shows_import)
{
	struct window_arg w = { .want_pid = getpid() };
	struct req r;
	int fd, ifd;

	ifd = import_node1(_metadata, self->dev.name, &fd);
	if (ifd < 0)
		return;

	req_init(&r, self->nl.family, SNODE_NL_CMD_WINDOW_GET, NLM_F_DUMP);
	req_u32(&r, SNODE_A_WINDOW_DEV_INDEX, self->dev.index);
	ASSERT_EQ(0, nl_do(&self->nl, &r, BUF_LEN, window_cb, &w));
	EXPECT_TRUE(w.found);
	EXPECT_GE(w.n, 2);	/* the import and its ATT entry */
	close(ifd);
	close(fd);
}

struct hidden_arg {
	unsigned int n;
	unsigned int leaks;
	unsigned int hidden;	/* windows flagged hidden */
};

/* Count windows, and those that show an owner or a pool offset. */
static int window_hidden_cb(const struct msg *m, void *arg)
{
	struct hidden_arg *h = arg;

	if (m->cmd != SNODE_NL_CMD_WINDOW_GET)
		return -EPROTO;
	h->n++;
	if (m->tb[SNODE_A_WINDOW_PID] || m->tb[SNODE_A_WINDOW_COMM] ||
	    m->tb[SNODE_A_WINDOW_EXPORT_OFFSET] || m->tb[SNODE_A_WINDOW_KEY] ||
	    ((get_u32(m, SNODE_A_WINDOW_KIND) == SNODE_WINDOW_KIND_EXPORT ||
	      get_u32(m, SNODE_A_WINDOW_KIND) == SNODE_WINDOW_KIND_ALLOC) &&
	     m->tb[SNODE_A_WINDOW_OFFSET]))
		h->leaks++;
	if (m->tb[SNODE_A_WINDOW_FLAGS] &&
	    (get_u32(m, SNODE_A_WINDOW_FLAGS) & SNODE_WINDOW_FLAGS_HIDDEN))
		h->hidden++;
	return 0;
}

/* A window dump by @uid on @nl, in a child; 0 or the step that failed. */
static int window_dump_as(struct nl *parent, uint32_t dev, uid_t uid,
			  bool own_socket, struct hidden_arg *out)
{
	struct hidden_arg *h;
	int status;
	pid_t pid;

	h = mmap(NULL, sizeof(*h), PROT_READ | PROT_WRITE,
		 MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (h == MAP_FAILED)
		return 1;
	memset(h, 0, sizeof(*h));
	pid = fork();
	if (pid < 0)
		return 2;
	if (!pid) {
		struct nl nl = *parent;
		struct req r;

		if (setgroups(0, NULL) || setgid(uid) || setuid(uid))
			_exit(10);
		if (own_socket) {
			if (nl_open(&nl))
				_exit(11);
			nl.family = parent->family;
		}
		req_init(&r, nl.family, SNODE_NL_CMD_WINDOW_GET, NLM_F_DUMP);
		req_u32(&r, SNODE_A_WINDOW_DEV_INDEX, dev);
		_exit(nl_do(&nl, &r, BUF_LEN, window_hidden_cb, h) ? 12 : 0);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return 3;
	*out = *h;
	munmap(h, sizeof(*h));
	return WEXITSTATUS(status);
}

/*
 * Another user sees that root's windows exist, not who owns them or where
 * they sit in the pool; root sees both. A root socket handed to the
 * unprivileged process shows it no more.
 */
TEST_F(nl, window_dump_hides_other_users_owners)
{
	struct hidden_arg h;
	int fd, ifd;

	ifd = import_node1(_metadata, self->dev.name, &fd);
	if (ifd < 0)
		return;

	ASSERT_EQ(0, window_dump_as(&self->nl, self->dev.index, 0, false, &h));
	EXPECT_GE(h.leaks, 2);	/* the import and its ATT entry */
	EXPECT_EQ(0, h.hidden);
	ASSERT_EQ(0, window_dump_as(&self->nl, self->dev.index, UNPRIV_UID,
				    true, &h));
	EXPECT_GE(h.n, 2);
	EXPECT_EQ(0, h.leaks);
	EXPECT_GE(h.hidden, 2);
	ASSERT_EQ(0, window_dump_as(&self->nl, self->dev.index, UNPRIV_UID,
				    false, &h));
	EXPECT_GE(h.n, 2);
	EXPECT_EQ(0, h.leaks);
	EXPECT_GE(h.hidden, 2);
	close(ifd);
	close(fd);
}

/* Endpoints (@ep) or DMA queues of NIC @dev dumped on @nl into @e. */
static int obj_dump_on(struct nl *nl, uint32_t dev, bool ep,
		       struct obj_ent *e, uint32_t max, uint32_t *n)
{
	struct list_arg l = {
		.type = ep ? OBJ_LIST_ENDPOINTS : OBJ_LIST_DMA_QUEUES,
		.e = e,
		.max = max,
	};
	struct req r;
	int ret;

	req_init(&r, nl->family, ep ? SNODE_NL_CMD_ENDPOINT_GET :
				      SNODE_NL_CMD_QUEUE_GET, NLM_F_DUMP);
	req_u32(&r, ep ? SNODE_A_ENDPOINT_DEV_INDEX : SNODE_A_QUEUE_DEV_INDEX,
		dev);
	ret = nl_do(nl, &r, BUF_LEN, obj_ent_cb, &l);
	*n = l.n;
	return ret;
}

/*
 * Own objects and keys are judged from the socket's opener and the reader
 * together: root reading through a socket an unprivileged uid opened sees
 * its own endpoint and DMA queue as another user's (hidden, not its own,
 * no key), never both own and hidden; through its own socket, as its own.
 */
TEST_F(nl, own_and_keys_judged_by_socket_too)
{
	struct snode_ep_alloc ep = {
		.size = sizeof(ep),
		.flags = SNODE_EP_RANDOM_KEY,
		.entries = 64,
	};
	struct snode_dma_open dq = { .size = sizeof(dq) };
	struct obj_ent e[64];
	struct nl other;
	uint32_t n, i, kind;
	char path[64];
	int fd, mine;

	snprintf(path, sizeof(path), "/dev/%s", self->dev.name);
	fd = open(path, O_RDWR);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, SNODE_IOCTL_EP_ALLOC, &ep));
	ASSERT_EQ(0, ioctl(fd, SNODE_IOCTL_DMA_OPEN, &dq));
	/* a socket opened by another uid, then read by root */
	ASSERT_EQ(0, seteuid(UNPRIV_UID));
	ASSERT_EQ(0, nl_open(&other));
	ASSERT_EQ(0, seteuid(0));
	other.family = self->nl.family;

	for (kind = 0; kind < 2; kind++) {
		uint32_t id = kind ? (uint32_t)-1 : ep.out_id;

		ASSERT_EQ(0, obj_dump_on(&other, self->dev.index, !kind, e,
					 64, &n));
		ASSERT_GE(64, n);
		for (i = 0, mine = 0; i < n; i++) {
			EXPECT_FALSE((e[i].flags & OBJ_ENT_OWN) &&
				     (e[i].flags & OBJ_ENT_HIDDEN));
			EXPECT_EQ(0, e[i].flags & OBJ_ENT_KEY);
			EXPECT_EQ(0, e[i].flags & OBJ_ENT_OWN);
			EXPECT_NE(getpid(), e[i].pid);
			if (kind ? !!(e[i].flags & OBJ_ENT_HIDDEN) :
				   e[i].id == id)
				mine++;
		}
		EXPECT_LE(1, mine);
		ASSERT_EQ(0, obj_dump_on(&self->nl, self->dev.index, !kind, e,
					 64, &n));
		for (i = 0, mine = 0; i < n; i++) {
			if (!(e[i].flags & OBJ_ENT_OWN))
				continue;
			mine++;
			EXPECT_EQ(0, e[i].flags & OBJ_ENT_HIDDEN);
			EXPECT_EQ(getpid(), e[i].pid);
			if (!kind) {
				EXPECT_NE(0, e[i].flags & OBJ_ENT_KEY);
				EXPECT_EQ(ep.out_key, e[i].key);
			}
		}
		EXPECT_LE(1, mine);
	}
	close(other.fd);
	close(dq.out_fd);
	close(ep.out_fd);
	close(fd);
}

/* ---- the family is never serialised by one NIC ------------------------- */

/*
 * A request that waits for a NIC (here held 5 s at the point where
 * LINK_GET asks the device, as a NIC that does not answer would) does not
 * hold up other requests: any user could otherwise stall the family.
 */
TEST_F(nl, slow_nic_does_not_serialise_family)
{
	uint64_t t0, took;
	struct link_ent l;
	int status;
	pid_t pid;
	struct req r;

	if (set_delay("nl_devcmd", 0))
		SKIP(return, "no race-point delays in debugfs");
	ASSERT_EQ(0, set_delay("nl_devcmd", 5000 * 1000));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct nl nl;

		if (nl_open(&nl))
			_exit(2);
		nl.family = self->nl.family;
		_exit(link_get(&nl, self->dev.index, 0, &l) ? 1 : 0);
	}
	usleep(500 * 1000);	/* the child is inside LINK_GET now */
	t0 = now_ms();
	self->t->n = 0;
	req_init(&r, self->nl.family, SNODE_NL_CMD_DEV_GET, 0);
	req_u32(&r, SNODE_A_DEV_INDEX, self->dev.index);
	EXPECT_EQ(0, nl_do(&self->nl, &r, BUF_LEN, dev_cb, self->t));
	took = now_ms() - t0;
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	set_delay("nl_devcmd", 0);
	TH_LOG("DEV_GET took %llu ms beside a 5 s LINK_GET",
	       (unsigned long long)took);
	/* serialised, it would wait about 4.5 s */
	EXPECT_LT(took, 2500);
	EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

/* ---- a window dump that a table change cuts is flagged -------------------- */

#define DUMP_IMPORTS	40

struct intr_arg {
	int close_fd;		/* closed on the first message: a change */
	unsigned int n;
};

static int intr_cb(const struct msg *m, void *arg)
{
	struct intr_arg *a = arg;

	if (a->close_fd >= 0) {
		close(a->close_fd);
		a->close_fd = -1;
	}
	a->n++;
	return 0;
}

/*
 * A window dump over several buffers, with an import closed after the
 * first one arrived, reports NLM_F_DUMP_INTR; one without a change does not.
 */
TEST_F(nl, window_dump_flags_change)
{
	struct snode_mem_import imp = {
		.size = sizeof(imp),
		.node = 1,
		.export_id = 0,
		.key = 0x5100,
		.length = 65536,
	};
	struct intr_arg a = { .close_fd = -1 };
	int fds[DUMP_IMPORTS], fd, i, tries;
	char path[64];
	struct req r;
	struct nl small;

	snprintf(path, sizeof(path), "/dev/%s", self->dev.name);
	fd = open(path, O_RDWR);
	ASSERT_LE(0, fd);
	for (i = 0; i < DUMP_IMPORTS; i++) {
		if (ioctl(fd, SNODE_IOCTL_MEM_IMPORT, &imp))
			break;
		fds[i] = imp.out_fd;
	}
	if (i < DUMP_IMPORTS) {
		while (i--)
			close(fds[i]);
		close(fd);
		SKIP(return, "cannot import node 1's export 0 %d times (%s)",
		     DUMP_IMPORTS, strerror(errno));
	}
	/* read with 4 KiB only, so that the dump takes several buffers */
	ASSERT_EQ(0, nl_open(&small));
	small.family = self->nl.family;
	for (tries = 0; tries < 5; tries++) {
		req_init(&r, small.family, SNODE_NL_CMD_WINDOW_GET, NLM_F_DUMP);
		req_u32(&r, SNODE_A_WINDOW_DEV_INDEX, self->dev.index);
		a.n = 0;
		ASSERT_EQ(0, nl_do(&small, &r, 4096, intr_cb, &a));
		if (!small.intr)
			break;
	}
	EXPECT_FALSE(small.intr);
	EXPECT_LT(2, small.recvs);
	TH_LOG("%u windows in %u buffers", a.n, small.recvs);

	a.close_fd = fds[DUMP_IMPORTS - 1];
	req_init(&r, small.family, SNODE_NL_CMD_WINDOW_GET, NLM_F_DUMP);
	req_u32(&r, SNODE_A_WINDOW_DEV_INDEX, self->dev.index);
	ASSERT_EQ(0, nl_do(&small, &r, 4096, intr_cb, &a));
	EXPECT_TRUE(small.intr);
	close(small.fd);
	for (i = 0; i < DUMP_IMPORTS - 1; i++)
		close(fds[i]);
	close(fd);
}

/* Count the messages of a dump. */
static int count_cb(const struct msg *m, void *arg)
{
	(*(unsigned int *)arg)++;
	return 0;
}

/*
 * dev-get and stats-get dumps list only the NIC their dev-index filter
 * names, and fail with ENODEV for a NIC that does not exist.
 */
TEST_F(nl, nic_dumps_honour_filter)
{
	static const struct {
		uint8_t cmd;
		uint16_t attr;
	} ops[] = {
		{ SNODE_NL_CMD_DEV_GET, SNODE_A_DEV_INDEX },
		{ SNODE_NL_CMD_STATS_GET, SNODE_A_STATS_DEV_INDEX },
	};
	unsigned int i, n;
	struct req r;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		n = 0;
		req_init(&r, self->nl.family, ops[i].cmd, NLM_F_DUMP);
		req_u32(&r, ops[i].attr, self->dev.index);
		EXPECT_EQ(0, nl_do(&self->nl, &r, BUF_LEN, count_cb, &n));
		EXPECT_EQ(1, n) TH_LOG("cmd %u: %u NICs for one", ops[i].cmd, n);
		n = 0;
		req_init(&r, self->nl.family, ops[i].cmd, NLM_F_DUMP);
		req_u32(&r, ops[i].attr, 4000);
		EXPECT_EQ(-ENODEV, nl_do(&self->nl, &r, BUF_LEN, count_cb, &n));
		EXPECT_EQ(0, n);
	}
}

#define DUMP_QUEUES	100
#define DUMP_EPS	44

/*
 * Endpoint and DMA-queue dumps over several buffers report
 * NLM_F_DUMP_INTR when an object is destroyed mid-dump, and not without.
 */
TEST_F(nl, obj_dumps_flag_change)
{
	struct snode_ep_alloc ep = { .size = sizeof(ep), .entries = 64 };
	struct snode_dma_open dq = { .size = sizeof(dq) };
	int qfd[DUMP_QUEUES], efd[DUMP_EPS];
	struct intr_arg a = { .close_fd = -1 };
	int fd, fd2, i, kind, tries;
	long cap_eps, cap_queues;
	char path[64];
	struct nl small;
	struct req r;

	snprintf(path, sizeof(path), "/dev/%s", self->dev.name);
	/* more than one user's caps: lift them meanwhile */
	cap_eps = set_param("max_endpoints", 0);
	ASSERT_LE(0, cap_eps);
	cap_queues = set_param("max_dma_queues", 0);
	ASSERT_LE(0, cap_queues);
	fd = open(path, O_RDWR);
	ASSERT_LE(0, fd);
	fd2 = open(path, O_RDWR);
	ASSERT_LE(0, fd2);
	for (i = 0; i < DUMP_QUEUES; i++) {
		ASSERT_EQ(0, ioctl(i % 2 ? fd2 : fd, SNODE_IOCTL_DMA_OPEN, &dq));
		qfd[i] = dq.out_fd;
	}
	for (i = 0; i < DUMP_EPS; i++) {
		ASSERT_EQ(0, ioctl(i % 2 ? fd2 : fd, SNODE_IOCTL_EP_ALLOC, &ep))
			TH_LOG("endpoint %d: %s", i, strerror(errno));
		efd[i] = ep.out_fd;
	}
	ASSERT_EQ(0, nl_open(&small));
	small.family = self->nl.family;
	for (kind = 0; kind < 2; kind++) {
		uint8_t cmd = kind ? SNODE_NL_CMD_QUEUE_GET :
				     SNODE_NL_CMD_ENDPOINT_GET;
		uint16_t attr = kind ? SNODE_A_QUEUE_DEV_INDEX :
				       SNODE_A_ENDPOINT_DEV_INDEX;

		for (tries = 0; tries < 5; tries++) {
			req_init(&r, small.family, cmd, NLM_F_DUMP);
			req_u32(&r, attr, self->dev.index);
			a.n = 0;
			ASSERT_EQ(0, nl_do(&small, &r, 4096, intr_cb, &a));
			if (!small.intr)
				break;
		}
		EXPECT_FALSE(small.intr);
		EXPECT_LE(kind ? DUMP_QUEUES : DUMP_EPS, a.n);
		TH_LOG("cmd %u: %u objects in %u buffers", cmd, a.n,
		       small.recvs);
		/* the queues take three; the endpoints (at most 63) may fit */
		if (kind) {
			EXPECT_LT(2, small.recvs);
		} else if (small.recvs <= 2) {
			continue;
		}
		a.close_fd = kind ? qfd[DUMP_QUEUES - 1] : efd[DUMP_EPS - 1];
		req_init(&r, small.family, cmd, NLM_F_DUMP);
		req_u32(&r, attr, self->dev.index);
		ASSERT_EQ(0, nl_do(&small, &r, 4096, intr_cb, &a));
		EXPECT_TRUE(small.intr);
	}
	close(small.fd);
	/* the last of each was closed by the dump, or is closed here */
	for (i = 0; i < DUMP_QUEUES - 1; i++)
		close(qfd[i]);
	for (i = 0; i < DUMP_EPS; i++)
		close(efd[i]);
	close(fd2);
	close(fd);
	EXPECT_LE(0, set_param("max_endpoints", cap_eps));
	EXPECT_LE(0, set_param("max_dma_queues", cap_queues));
}

TEST_HARNESS_MAIN
