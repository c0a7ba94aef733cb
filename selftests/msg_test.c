// SPDX-License-Identifier: GPL-2.0
/*
 * snode message selftests: endpoints, sending, back-pressure, keys,
 * lifetime, the ioctl ABI rules.
 *
 * Runs as root in a guest with snode.ko loaded and the NIC attached to a
 * fabric; /dev/snode0 must exist. Messages to this node's own endpoints go
 * through the fabric manager like any other.
 *
 * "msg_test pingpong server|client PEER_NODE COUNT" is the two-node half:
 * the client sends COUNT messages to the server's endpoint 20 and checks
 * every echo's content, sequence number and order; the server checks what
 * it gets and echoes it to the client's endpoint 21.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <net/if.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/snode.h>

#include "kselftest_harness.h"
#include "snode_test.h"
#include "snode_nl.h"

#define SNODE_DEV		"/dev/snode0"
#define SNODE_DEBUGFS		"/sys/kernel/debug/snode/snode0"
#define KEY			0x5eed0000cafe0001ULL
#define PINGPONG_SERVER_EP	20
#define PINGPONG_CLIENT_EP	21
#define PINGPONG_SERVER_KEY	0x5e47e700000000aaULL
#define PINGPONG_CLIENT_KEY	0xc11e470000000055ULL


/* Allocate an endpoint with @entries slots and @key; returns its fd. */
#define test_snode_ep_alloc(ep, _flags, _id, _entries, _key)		\
	({								\
		memset(ep, 0, sizeof(*(ep)));				\
		(ep)->flags = (_flags);					\
		(ep)->id = (_id);					\
		(ep)->entries = (_entries);				\
		(ep)->key = (_key);					\
		ASSERT_EQ(0, sn_ep_alloc(self->fd, ep));		\
		(ep)->out_fd;						\
	})

#define test_err_snode_ep_alloc(_errno, ep) \
	EXPECT_ERRNO(_errno, sn_ep_alloc(self->fd, ep))

#define test_snode_send(node, ep, key, flags, payload, len) \
	ASSERT_EQ(0, sn_msg_send(self->fd, node, ep, key, flags, payload, len, 0))
#define test_err_snode_send(_errno, node, ep, key, flags, payload, len)	\
	EXPECT_ERRNO(_errno, sn_msg_send(self->fd, node, ep, key, flags,	\
					 payload, len, 0))

/* Read exactly @n messages, each within @timeout_ms. */
static int read_msgs_to(int epfd, struct snode_msg *msgs, int n, int timeout_ms)
{
	int got = 0;

	while (got < n) {
		struct pollfd p = { .fd = epfd, .events = POLLIN };
		ssize_t r;

		if (poll(&p, 1, timeout_ms) != 1)
			return -ETIMEDOUT;
		r = read(epfd, msgs + got, (n - got) * sizeof(*msgs));
		if (r < 0)
			return -errno;
		if (r % sizeof(*msgs))
			return -EPROTO;
		got += r / sizeof(*msgs);
	}
	return got;
}

#define read_msgs(epfd, msgs, n) read_msgs_to(epfd, msgs, n, 5000)

static int poll_in(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	if (poll(&p, 1, timeout_ms) < 0)
		return -errno;
	return p.revents;
}

FIXTURE(msg) {
	int fd;
	struct snode_info info;
};

FIXTURE_SETUP(msg)
{
	self->fd = sn_open_info(SNODE_DEV, &self->info);
	ASSERT_LE(0, self->fd);
	ASSERT_TRUE(self->info.out_caps & SNODE_CAP_MSG);
	ASSERT_TRUE(self->info.out_flags & SNODE_INFO_OUT_ATTACHED);
}

FIXTURE_TEARDOWN(msg)
{
	close(self->fd);
}

TEST_F(msg, ep_alloc)
{
	struct snode_ep_alloc ep;
	int epfd;

	epfd = test_snode_ep_alloc(&ep, 0, 0, 0, KEY);
	EXPECT_LE(0, epfd);
	EXPECT_EQ(self->info.out_node_id, ep.out_node);
	EXPECT_GT(self->info.out_endpoints, ep.out_id);
	EXPECT_EQ(KEY, ep.out_key);
	EXPECT_LE(3, ep.out_vector);
	EXPECT_GE(7, ep.out_vector);
	EXPECT_EQ(FD_CLOEXEC, fcntl(epfd, F_GETFD) & FD_CLOEXEC);
	EXPECT_EQ(0, fcntl(epfd, F_GETFL) & O_NONBLOCK);
	close(epfd);

	epfd = test_snode_ep_alloc(&ep, SNODE_EP_NONBLOCK, 0, 2, KEY);
	EXPECT_EQ(O_NONBLOCK, fcntl(epfd, F_GETFL) & O_NONBLOCK);
	close(epfd);
}

TEST_F(msg, ep_alloc_abi)
{
	struct snode_ep_alloc ep = { .size = offsetofend(struct snode_ep_alloc, out_key) - 1 };
	char big[sizeof(ep) + 8] = {};

	test_err_snode_ep_alloc(EINVAL, &ep);

	memcpy(big, &(struct snode_ep_alloc){ .size = sizeof(big) }, sizeof(ep));
	big[sizeof(ep) + 3] = 1;
	EXPECT_ERRNO(E2BIG, ioctl(self->fd, SNODE_IOCTL_EP_ALLOC, big));

	ep = (struct snode_ep_alloc){ .flags = 1 << 31 };
	test_err_snode_ep_alloc(EOPNOTSUPP, &ep);
	ep = (struct snode_ep_alloc){ .entries = 3 };
	test_err_snode_ep_alloc(EINVAL, &ep);
	ep = (struct snode_ep_alloc){ .entries = 8192 };
	test_err_snode_ep_alloc(EINVAL, &ep);
	ep = (struct snode_ep_alloc){ .entries = 1 };
	test_err_snode_ep_alloc(EINVAL, &ep);
	ep = (struct snode_ep_alloc){ .flags = SNODE_EP_RANDOM_KEY, .key = 1 };
	test_err_snode_ep_alloc(EINVAL, &ep);
	ep = (struct snode_ep_alloc){ .flags = SNODE_EP_ID,
				      .id = self->info.out_endpoints };
	test_err_snode_ep_alloc(EINVAL, &ep);
	/* without SNODE_EP_ID the id must be 0 */
	ep = (struct snode_ep_alloc){ .id = 1 };
	test_err_snode_ep_alloc(EINVAL, &ep);
}

TEST_F(msg, ep_alloc_id)
{
	struct snode_ep_alloc a, b;
	int fa, fb;

	fa = test_snode_ep_alloc(&a, SNODE_EP_ID, 33, 0, KEY);
	EXPECT_EQ(33, a.out_id);
	b = (struct snode_ep_alloc){ .flags = SNODE_EP_ID, .id = 33 };
	test_err_snode_ep_alloc(EBUSY, &b);
	close(fa);
	/* the id is free again once the descriptor is closed */
	fb = test_snode_ep_alloc(&b, SNODE_EP_ID, 33, 0, KEY + 1);
	EXPECT_EQ(33, b.out_id);
	close(fb);
}

TEST_F(msg, ep_random_key)
{
	struct snode_ep_alloc a, b;
	int fa, fb;

	fa = test_snode_ep_alloc(&a, SNODE_EP_RANDOM_KEY, 0, 0, 0);
	fb = test_snode_ep_alloc(&b, SNODE_EP_RANDOM_KEY, 0, 0, 0);
	EXPECT_NE(a.out_key, b.out_key);
	EXPECT_NE(a.out_id, b.out_id);
	close(fa);
	close(fb);
}

TEST_F(msg, ep_table_full)
{
	int fds[4096], n = 0, i;
	struct snode_ep_alloc ep;
	long cap;

	/* one file fills the whole table: lift the per-file cap */
	cap = set_param("max_endpoints", 0);
	ASSERT_LE(0, cap);
	for (;;) {
		ep = (struct snode_ep_alloc){ .size = sizeof(ep), .entries = 2 };
		if (sn_ep_alloc(self->fd, &ep))
			break;
		ASSERT_GT(4096, n);
		fds[n++] = ep.out_fd;
	}
	EXPECT_EQ(ENOSPC, errno);
	EXPECT_GE(self->info.out_endpoints, n);
	for (i = 0; i < n; i++)
		close(fds[i]);
	ep = (struct snode_ep_alloc){ .size = sizeof(ep) };
	ASSERT_EQ(0, sn_ep_alloc(self->fd, &ep));
	close(ep.out_fd);
	EXPECT_LE(0, set_param("max_endpoints", cap));
}

/* As the member user: 0 if it can allocate an endpoint, else the step. */
static int member_ep_alloc(void *arg)
{
	struct snode_ep_alloc ep = { .size = sizeof(ep), .entries = 2 };
	int fd = open(SNODE_DEV, O_RDWR);

	(void)arg;
	if (fd < 0)
		return 1;
	if (sn_ep_alloc(fd, &ep))
		return errno == EMFILE ? 2 : 3;
	return 0;
}

/*
 * A user holds at most max_endpoints endpoints on a NIC (EMFILE beyond),
 * through however many files it opens; another user is not affected, and
 * closing an endpoint makes room.
 */
TEST_F(msg, ep_per_user_cap)
{
	struct snode_ep_alloc ep;
	int fds[3], other, i;
	long cap;

	cap = set_param("max_endpoints", 2);
	ASSERT_LE(0, cap);
	other = open(SNODE_DEV, O_RDWR);
	ASSERT_LE(0, other);
	for (i = 0; i < 2; i++) {
		ep = (struct snode_ep_alloc){ .size = sizeof(ep), .entries = 2 };
		ASSERT_EQ(0, sn_ep_alloc(other, &ep));
		fds[i] = ep.out_fd;
	}
	ep = (struct snode_ep_alloc){ .size = sizeof(ep), .entries = 2 };
	EXPECT_EQ(-1, sn_ep_alloc(other, &ep));
	EXPECT_EQ(EMFILE, errno);
	/* a second open of the same user counts against the same cap */
	ep = (struct snode_ep_alloc){ .size = sizeof(ep), .entries = 2 };
	EXPECT_EQ(-1, sn_ep_alloc(self->fd, &ep));
	EXPECT_EQ(EMFILE, errno);
	/* another user has a cap of its own */
	EXPECT_EQ(0, sn_run_member(SNODE_DEV, member_ep_alloc, NULL));
	close(fds[0]);
	ep = (struct snode_ep_alloc){ .size = sizeof(ep), .entries = 2 };
	ASSERT_EQ(0, sn_ep_alloc(self->fd, &ep));
	fds[0] = ep.out_fd;
	for (i = 0; i < 2; i++)
		close(fds[i]);
	close(other);
	EXPECT_LE(0, set_param("max_endpoints", cap));
}

TEST_F(msg, send_receive)
{
	char payload[SNODE_MSG_MAX_LEN];
	struct snode_ep_alloc ep;
	struct snode_msg m;
	int epfd, i;

	for (i = 0; i < SNODE_MSG_MAX_LEN; i++)
		payload[i] = 0xa0 + i;
	epfd = test_snode_ep_alloc(&ep, 0, 0, 0, KEY);
	EXPECT_EQ(0, poll_in(epfd, 0));
	test_snode_send(ep.out_node, ep.out_id, KEY, 0, payload, 13);
	EXPECT_EQ(POLLIN, poll_in(epfd, 1000));
	ASSERT_EQ(1, read_msgs(epfd, &m, 1));
	EXPECT_EQ(self->info.out_node_id, m.src_node);
	EXPECT_EQ(SNODE_EP_NONE, m.src_ep);
	EXPECT_EQ(13, m.len);
	EXPECT_EQ(1, m.seq);
	EXPECT_EQ(0, memcmp(m.payload, payload, 13));
	for (i = 13; i < SNODE_MSG_MAX_LEN; i++)
		EXPECT_EQ(0, m.payload[i]);

	/* a full-size message, the next in sequence */
	test_snode_send(ep.out_node, ep.out_id, KEY, 0, payload, SNODE_MSG_MAX_LEN);
	ASSERT_EQ(1, read_msgs(epfd, &m, 1));
	EXPECT_EQ(SNODE_MSG_MAX_LEN, m.len);
	EXPECT_EQ(2, m.seq);
	EXPECT_EQ(0, memcmp(m.payload, payload, SNODE_MSG_MAX_LEN));
	EXPECT_EQ(0, poll_in(epfd, 0));
	close(epfd);
}

TEST_F(msg, doorbell)
{
	struct snode_ep_alloc ep;
	struct snode_msg m;
	int epfd;

	epfd = test_snode_ep_alloc(&ep, 0, 0, 0, KEY);
	test_snode_send(ep.out_node, ep.out_id, KEY, 0, NULL, 0);
	ASSERT_EQ(1, read_msgs(epfd, &m, 1));
	EXPECT_EQ(0, m.len);
	EXPECT_EQ(1, m.seq);
	close(epfd);
}

TEST_F(msg, send_from_endpoint)
{
	struct snode_ep_alloc a, b;
	struct snode_msg m;
	int fa, fb;

	fa = test_snode_ep_alloc(&a, 0, 0, 0, KEY);
	fb = test_snode_ep_alloc(&b, 0, 0, 0, KEY + 1);
	/* sent on a's descriptor: b sees where to answer */
	ASSERT_EQ(0, sn_msg_send(fa, b.out_node, b.out_id, KEY + 1, 0, "hi", 2, 0));
	ASSERT_EQ(1, read_msgs(fb, &m, 1));
	EXPECT_EQ(a.out_id, m.src_ep);
	ASSERT_EQ(0, sn_msg_send(fb, m.src_node, m.src_ep, KEY, 0, "ho", 2, 0));
	ASSERT_EQ(1, read_msgs(fa, &m, 1));
	EXPECT_EQ(b.out_id, m.src_ep);
	EXPECT_EQ(0, memcmp(m.payload, "ho", 2));
	/* an endpoint's descriptor takes no other ioctl */
	EXPECT_ERRNO(ENOTTY, ioctl(fa, SNODE_IOCTL_INFO, &self->info));
	close(fa);
	close(fb);
}

/* A message's send and its receipt appear as snode tracepoints. */
TEST_F(msg, trace_send_receive)
{
	const char *send, *recv;
	struct snode_ep_alloc a, b;
	char to[64], from[64];
	struct snode_msg m;
	char *trace;
	int fa, fb, ret;

	ret = trace_start();
	if (ret == -ENOENT)
		SKIP(return, "this kernel has no event tracing");
	ASSERT_EQ(0, ret);
	fa = test_snode_ep_alloc(&a, 0, 0, 0, KEY);
	fb = test_snode_ep_alloc(&b, 0, 0, 0, KEY + 1);
	ASSERT_EQ(0, sn_msg_send(fa, b.out_node, b.out_id, KEY + 1, 0, "trace",
				 5, 0));
	ASSERT_EQ(1, read_msgs(fb, &m, 1));
	trace = trace_stop();
	ASSERT_NE(NULL, trace);
	snprintf(to, sizeof(to), "to node %u ep %u from ep %u len 5 err 0",
		 b.out_node, b.out_id, a.out_id);
	snprintf(from, sizeof(from), "ep %u from node %u ep %u len 5 seq %llu",
		 b.out_id, a.out_node, a.out_id, (unsigned long long)m.seq);
	send = trace_find(trace, 2, "snode_msg_send: ", to);
	recv = trace_find(trace, 2, "snode_msg_recv: ", from);
	trace_expect_order(_metadata, trace, send, recv);
	free(trace);
	close(fa);
	close(fb);
}

TEST_F(msg, wrong_key)
{
	struct snode_ep_alloc ep;
	int epfd;

	epfd = test_snode_ep_alloc(&ep, 0, 0, 0, KEY);
	test_err_snode_send(EKEYREJECTED, ep.out_node, ep.out_id, KEY ^ 1, 0,
			    "x", 1);
	test_err_snode_send(EKEYREJECTED, ep.out_node, ep.out_id, 0, 0, NULL, 0);
	/* nothing was delivered */
	EXPECT_EQ(0, poll_in(epfd, 100));
	close(epfd);
}

TEST_F(msg, no_endpoint)
{
	struct snode_ep_alloc ep;
	int epfd;

	epfd = test_snode_ep_alloc(&ep, 0, 0, 0, KEY);
	close(epfd);
	test_err_snode_send(ENXIO, ep.out_node, ep.out_id, KEY, 0, "x", 1);
}

TEST_F(msg, send_invalid)
{
	struct snode_msg_send s = { .size = sizeof(s), .node = self->info.out_node_id };
	struct snode_ep_alloc ep;
	int epfd;

	epfd = test_snode_ep_alloc(&ep, 0, 0, 0, KEY);
	s.ep = ep.out_id;
	s.key = KEY;
	s.len = SNODE_MSG_MAX_LEN + 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, SNODE_IOCTL_MSG_SEND, &s));
	s.len = 1;
	s.flags = 1 << 7;
	EXPECT_ERRNO(EOPNOTSUPP, ioctl(self->fd, SNODE_IOCTL_MSG_SEND, &s));
	s.flags = 0;
	s.timeout_ms = 60001;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, SNODE_IOCTL_MSG_SEND, &s));
	s.timeout_ms = 0;
	s.ep = 0x10000;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, SNODE_IOCTL_MSG_SEND, &s));
	s.ep = ep.out_id;
	s.size = offsetofend(struct snode_msg_send, payload) - 1;
	EXPECT_ERRNO(EINVAL, ioctl(self->fd, SNODE_IOCTL_MSG_SEND, &s));
	/* the device checks the node against max_nodes */
	test_err_snode_send(EINVAL, self->info.out_max_nodes, ep.out_id, KEY, 0,
			    "x", 1);
	EXPECT_EQ(0, poll_in(epfd, 0));
	close(epfd);
}

TEST_F(msg, read_rules)
{
	struct snode_ep_alloc ep;
	struct snode_msg m[16];
	int epfd, i;

	epfd = test_snode_ep_alloc(&ep, SNODE_EP_NONBLOCK, 0, 0, KEY);
	EXPECT_ERRNO(EAGAIN, read(epfd, m, sizeof(m)));
	test_snode_send(ep.out_node, ep.out_id, KEY, 0, "a", 1);
	EXPECT_EQ(POLLIN, poll_in(epfd, 1000));
	EXPECT_ERRNO(EINVAL, read(epfd, m, sizeof(m[0]) - 1));
	/* a message is never split: the buffer fits one, one is returned */
	EXPECT_EQ(sizeof(m[0]), read(epfd, m, sizeof(m[0]) + 10));

	/* a batch: everything waiting comes back in one read */
	for (i = 0; i < 10; i++)
		test_snode_send(ep.out_node, ep.out_id, KEY, 0, &i, sizeof(i));
	EXPECT_EQ(10 * sizeof(m[0]), read(epfd, m, sizeof(m)));
	for (i = 0; i < 10; i++) {
		EXPECT_EQ(i + 2, m[i].seq);
		EXPECT_EQ(0, memcmp(m[i].payload, &i, sizeof(i)));
	}
	EXPECT_ERRNO(EAGAIN, read(epfd, m, sizeof(m)));
	close(epfd);
}

TEST_F(msg, read_blocks_until_message)
{
	struct snode_ep_alloc ep;
	struct snode_msg m;
	unsigned long long t0;
	pid_t pid;
	int epfd, status;

	epfd = test_snode_ep_alloc(&ep, 0, 0, 0, KEY);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		usleep(300000);
		_exit(sn_msg_send(self->fd, ep.out_node, ep.out_id, KEY, 0,
				  "late", 4, 0) ? 1 : 0);
	}
	t0 = now_ms();
	ASSERT_EQ(sizeof(m), read(epfd, &m, sizeof(m)));
	EXPECT_LE(250, now_ms() - t0);
	EXPECT_EQ(0, memcmp(m.payload, "late", 4));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_EQ(0, status);
	close(epfd);
}

/* The ring holds entries - 1 messages; the next one is refused, not lost. */
TEST_F(msg, backpressure_nonblock)
{
	struct snode_ep_alloc ep;
	struct snode_msg m[4];
	int epfd, i;

	epfd = test_snode_ep_alloc(&ep, 0, 0, 4, KEY);
	for (i = 0; i < 3; i++)
		test_snode_send(ep.out_node, ep.out_id, KEY,
				SNODE_MSG_SEND_NONBLOCK, &i, sizeof(i));
	test_err_snode_send(EAGAIN, ep.out_node, ep.out_id, KEY,
			    SNODE_MSG_SEND_NONBLOCK, &i, sizeof(i));
	ASSERT_EQ(3, read_msgs(epfd, m, 3));
	for (i = 0; i < 3; i++) {
		EXPECT_EQ(i + 1, m[i].seq);
		EXPECT_EQ(0, memcmp(m[i].payload, &i, sizeof(i)));
	}
	/* room again; the refused message took no sequence number */
	test_snode_send(ep.out_node, ep.out_id, KEY, SNODE_MSG_SEND_NONBLOCK,
			&i, sizeof(i));
	ASSERT_EQ(1, read_msgs(epfd, m, 1));
	EXPECT_EQ(4, m[0].seq);
	close(epfd);
}

TEST_F(msg, backpressure_blocking_timeout)
{
	struct snode_ep_alloc ep;
	unsigned long long t0;
	int epfd, i;

	epfd = test_snode_ep_alloc(&ep, 0, 0, 2, KEY);
	test_snode_send(ep.out_node, ep.out_id, KEY, 0, "1", 1);
	t0 = now_ms();
	EXPECT_ERRNO(EAGAIN, sn_msg_send(self->fd, ep.out_node, ep.out_id, KEY,
					 0, "2", 1, 300));
	i = now_ms() - t0;
	EXPECT_LE(300, i);
	EXPECT_GT(3000, i);
	close(epfd);
}

static void sigalrm(int sig)
{
}

TEST_F(msg, backpressure_blocking_signal)
{
	struct sigaction sa = { .sa_handler = sigalrm };
	struct snode_ep_alloc ep;
	int epfd;

	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	epfd = test_snode_ep_alloc(&ep, 0, 0, 2, KEY);
	test_snode_send(ep.out_node, ep.out_id, KEY, 0, "1", 1);
	alarm(1);
	EXPECT_ERRNO(EINTR, sn_msg_send(self->fd, ep.out_node, ep.out_id, KEY,
					0, "2", 1, 10000));
	alarm(0);
	close(epfd);
}

struct flood {
	int fd;
	__u32 node, ep;
	int count;
	int tag;	/* or-ed into every message number */
	int err;
};

static void *flood_sender(void *arg)
{
	struct flood *f = arg;
	int i, v;

	for (i = 0; i < f->count; i++) {
		v = i | f->tag;
		if (sn_msg_send(f->fd, f->node, f->ep, KEY, 0, &v, sizeof(v),
				10000)) {
			f->err = errno;
			break;
		}
	}
	return NULL;
}

/*
 * A sender floods a 4-slot ring with blocking sends while the reader is
 * slow: every message arrives, once, in order.
 */
TEST_F(msg, flood_no_loss)
{
	struct snode_ep_alloc ep;
	struct stats_arg st0, st1;
	struct flood f = { .fd = self->fd, .count = 2000 };
	struct snode_msg m[8];
	pthread_t t;
	int epfd, got = 0, n, i;

	epfd = test_snode_ep_alloc(&ep, 0, 0, 4, KEY);
	f.node = ep.out_node;
	f.ep = ep.out_id;
	ASSERT_EQ(0, stats_get(self->fd, &st0));
	ASSERT_EQ(0, pthread_create(&t, NULL, flood_sender, &f));
	usleep(200000);		/* let the ring fill up */
	while (got < f.count) {
		ASSERT_EQ(POLLIN, poll_in(epfd, 5000));
		n = read(epfd, m, sizeof(m));
		ASSERT_LT(0, n);
		for (i = 0; i < n / (int)sizeof(m[0]); i++, got++) {
			ASSERT_EQ(got + 1, m[i].seq);
			ASSERT_EQ(0, memcmp(m[i].payload, &got, sizeof(got)));
		}
		if (got % 100 == 0)
			usleep(1000);
	}
	pthread_join(t, NULL);
	EXPECT_EQ(0, f.err);
	EXPECT_EQ(0, poll_in(epfd, 100));
	/* the sender did run into the full ring */
	ASSERT_EQ(0, stats_get(self->fd, &st1));
	EXPECT_LT(st0.v[SNODE_A_STATS_SEND_RETRIES],
		  st1.v[SNODE_A_STATS_SEND_RETRIES]);
	EXPECT_LE(st0.v[SNODE_A_STATS_MSGS_RECEIVED] + f.count,
		  st1.v[SNODE_A_STATS_MSGS_RECEIVED]);
	close(epfd);
}

/* Two senders into one endpoint: each one's messages stay in order. */
TEST_F(msg, order_per_sender)
{
	struct flood f[2] = {
		{ .fd = self->fd, .count = 500 },
		{ .count = 500, .tag = 1 << 30 },
	};
	int next[2] = { 0, 0 }, epfd, got = 0, i;
	struct snode_ep_alloc ep;
	struct snode_msg m[16];
	pthread_t t[2];

	epfd = test_snode_ep_alloc(&ep, 0, 0, 8, KEY);
	f[1].fd = open(SNODE_DEV, O_RDWR);
	ASSERT_LE(0, f[1].fd);
	for (i = 0; i < 2; i++) {
		f[i].node = ep.out_node;
		f[i].ep = ep.out_id;
	}
	ASSERT_EQ(0, pthread_create(&t[0], NULL, flood_sender, &f[0]));
	ASSERT_EQ(0, pthread_create(&t[1], NULL, flood_sender, &f[1]));
	while (got < 1000) {
		int n = read_msgs(epfd, m, 1);

		ASSERT_EQ(1, n);
		/* both threads are on this node: one sequence for both */
		ASSERT_EQ(got + 1, m[0].seq);
		got++;
		memcpy(&i, m[0].payload, sizeof(i));
		/* each sender's numbers arrive in the order it sent them */
		ASSERT_EQ(next[!!(i & f[1].tag)], i & ~f[1].tag);
		next[!!(i & f[1].tag)]++;
	}
	pthread_join(t[0], NULL);
	pthread_join(t[1], NULL);
	EXPECT_EQ(0, f[0].err);
	EXPECT_EQ(0, f[1].err);
	close(f[1].fd);
	close(epfd);
}

TEST_F(msg, endpoint_dies_with_process)
{
	struct snode_ep_alloc ep;
	int pipefd[2], status;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		ep = (struct snode_ep_alloc){ .size = sizeof(ep), .key = KEY };
		if (sn_ep_alloc(self->fd, &ep))
			_exit(1);
		if (write(pipefd[1], &ep, sizeof(ep)) != sizeof(ep))
			_exit(1);
		pause();	/* killed with the endpoint open */
		_exit(0);
	}
	close(pipefd[1]);
	ASSERT_EQ(sizeof(ep), read(pipefd[0], &ep, sizeof(ep)));
	test_snode_send(ep.out_node, ep.out_id, KEY, 0, "alive", 5);
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	test_err_snode_send(ENXIO, ep.out_node, ep.out_id, KEY, 0, "dead", 4);
	close(pipefd[0]);
}

TEST_F(msg, list_endpoints)
{
	struct obj_ent e[64];
	struct snode_ep_alloc ep;
	int epfd, i, found = 0;
	uint32_t n = 64;
	struct nl nl;
	struct req r;

	epfd = test_snode_ep_alloc(&ep, 0, 0, 16, KEY);
	test_snode_send(ep.out_node, ep.out_id, KEY, 0, "1", 1);
	test_snode_send(ep.out_node, ep.out_id, KEY, 0, "2", 1);
	ASSERT_EQ(0, obj_list(self->fd, OBJ_LIST_ENDPOINTS, e, &n));
	for (i = 0; i < (int)n && i < 64; i++) {
		if (e[i].id != ep.out_id)
			continue;
		found++;
		EXPECT_EQ(OBJ_LIST_ENDPOINTS, e[i].type);
		EXPECT_EQ(OBJ_ENT_OWN | OBJ_ENT_KEY, e[i].flags);
		EXPECT_EQ(KEY, e[i].key);
		EXPECT_EQ(16, e[i].entries);
		EXPECT_EQ(2, e[i].pending);
		EXPECT_EQ(ep.out_vector, e[i].vector);
		EXPECT_EQ(getpid(), e[i].pid);
	}
	EXPECT_EQ(1, found);

	/* the dump of a NIC that does not exist */
	ASSERT_EQ(0, nl_open(&nl));
	ASSERT_EQ(0, nl_resolve(&nl));
	req_init(&r, nl.family, SNODE_NL_CMD_ENDPOINT_GET, NLM_F_DUMP);
	req_u32(&r, SNODE_A_ENDPOINT_DEV_INDEX, 4000);
	EXPECT_EQ(-ENODEV, nl_do(&nl, &r, BUF_LEN, NULL, NULL));
	req_init(&r, nl.family, SNODE_NL_CMD_QUEUE_GET, NLM_F_DUMP);
	req_u32(&r, SNODE_A_QUEUE_DEV_INDEX, 4000);
	EXPECT_EQ(-ENODEV, nl_do(&nl, &r, BUF_LEN, NULL, NULL));
	close(nl.fd);
	close(epfd);
}

#define SNODE_GID	900	/* group "snode" in the guests' /etc/group */
#define MEMBER_UID	1000

/* In a child of uid MEMBER_UID in group snode: 0 if root's endpoint @id
 * and root's DMA queue (if @dma) list without owner, else the step. */
static int member_lists_hidden(uint32_t id, bool dma)
{
	struct obj_ent e[64];
	gid_t gid = SNODE_GID;
	int fd, i, seen = 0;
	uint32_t n = 64;

	if (setgroups(1, &gid) || setresgid(MEMBER_UID, MEMBER_UID, MEMBER_UID) ||
	    setresuid(MEMBER_UID, MEMBER_UID, MEMBER_UID))
		return 10;
	fd = open(SNODE_DEV, O_RDONLY);
	if (fd < 0)
		return 11;
	if (obj_list(fd, OBJ_LIST_ENDPOINTS, e, &n))
		return 12;
	for (i = 0; i < (int)n && i < 64; i++) {
		if (e[i].id != id)
			continue;
		seen++;
		if (!(e[i].flags & OBJ_ENT_HIDDEN) || e[i].pid ||
		    e[i].comm[0] || (e[i].flags & OBJ_ENT_KEY) ||
		    e[i].key)
			return 13;
	}
	if (seen != 1)
		return 14;
	if (!dma)
		return 0;
	n = 64;
	if (obj_list(fd, OBJ_LIST_DMA_QUEUES, e, &n) || !n)
		return 15;
	for (i = 0; i < (int)n && i < 64; i++)
		if (!(e[i].flags & OBJ_ENT_HIDDEN) || e[i].pid ||
		    e[i].comm[0])
			return 16;
	return 0;
}

/* Another uid sees root's endpoints and DMA queues, not who owns them. */
TEST_F(msg, list_hides_other_users_owners)
{
	struct snode_dma_open q = { .size = sizeof(q) };
	struct snode_ep_alloc ep;
	struct stat st;
	int epfd, status;
	bool dma;
	pid_t pid;

	ASSERT_EQ(0, stat(SNODE_DEV, &st));
	/* what udev/60-snode.rules sets; the guests have no udev */
	ASSERT_EQ(0, chown(SNODE_DEV, 0, SNODE_GID));
	ASSERT_EQ(0, chmod(SNODE_DEV, 0660));
	epfd = test_snode_ep_alloc(&ep, 0, 0, 16, KEY);
	dma = (self->info.out_caps & SNODE_CAP_DMA) &&
	      !ioctl(self->fd, SNODE_IOCTL_DMA_OPEN, &q);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(member_lists_hidden(ep.out_id, dma));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	if (dma)
		close(q.out_fd);
	close(epfd);
	EXPECT_EQ(0, chown(SNODE_DEV, st.st_uid, st.st_gid));
	EXPECT_EQ(0, chmod(SNODE_DEV, st.st_mode & 07777));
}

/* The network interface's endpoint id is never handed out. */
TEST_F(msg, net_ep_reserved)
{
	struct snode_ep_alloc ep = { .size = sizeof(ep), .flags = SNODE_EP_ID,
				     .id = SNODE_NET_EP };

	if (self->info.out_endpoints <= SNODE_NET_EP)
		SKIP(return, "the NIC has %u endpoints, no network interface",
		     self->info.out_endpoints);
	EXPECT_ERRNO(EBUSY, sn_ep_alloc(self->fd, &ep));
}

/* In a child of uid MEMBER_UID in group snode: the errno of a send to the
 * network interface's endpoint of this node, or 100 + the failed step. */
static int member_net_send(uint32_t node)
{
	gid_t gid = SNODE_GID;
	int fd;

	if (setgroups(1, &gid) || setresgid(MEMBER_UID, MEMBER_UID, MEMBER_UID) ||
	    setresuid(MEMBER_UID, MEMBER_UID, MEMBER_UID))
		return 100;
	fd = open(SNODE_DEV, O_RDWR);
	if (fd < 0)
		return 101;
	if (!sn_msg_send(fd, node, SNODE_NET_EP, SNODE_NET_KEY, 0, "x", 1, 0))
		return 0;
	return errno;
}

/* Sending to the network interface's endpoint needs CAP_NET_RAW. */
TEST_F(msg, net_ep_send_needs_cap_net_raw)
{
	struct stat st;
	int status;
	pid_t pid;

	ASSERT_EQ(0, stat(SNODE_DEV, &st));
	ASSERT_EQ(0, chown(SNODE_DEV, 0, SNODE_GID));
	ASSERT_EQ(0, chmod(SNODE_DEV, 0660));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		_exit(member_net_send(self->info.out_node_id));
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(EACCES, WEXITSTATUS(status));
	EXPECT_EQ(0, chown(SNODE_DEV, st.st_uid, st.st_gid));
	EXPECT_EQ(0, chmod(SNODE_DEV, st.st_mode & 07777));
}

/* The first NIC's network interface, in @name; false if it has none. */
static bool net_iface(char *name, size_t len)
{
	struct dirent *d;
	bool found = false;
	DIR *dir;

	dir = opendir("/sys/class/snode/snode0/device/net");
	if (!dir)
		return false;
	while (!found && (d = readdir(dir)))
		if (d->d_name[0] != '.') {
			snprintf(name, len, "%s", d->d_name);
			found = true;
		}
	closedir(dir);
	return found;
}

/*
 * Bring @iface up or down: 0 or -errno. SIOCSIFFLAGS on a UNIX socket, which
 * the kernel hands to the device layer: the debug kernel has no AF_INET
 * for busybox's ip to use.
 */
static int net_set_up(const char *iface, bool up)
{
	struct ifreq ifr = {};
	int fd, ret = 0;

	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	if (fd < 0)
		return -errno;
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", iface);
	if (ioctl(fd, SIOCGIFFLAGS, &ifr))
		ret = -errno;
	if (!ret) {
		ifr.ifr_flags = up ? ifr.ifr_flags | IFF_UP :
				     ifr.ifr_flags & ~IFF_UP;
		if (ioctl(fd, SIOCSIFFLAGS, &ifr))
			ret = -errno;
	}
	close(fd);
	return ret;
}

/* A counter of @iface, or -1. */
static long long net_stat(const char *iface, const char *counter)
{
	long long v = -1;
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/net/%s/statistics/%s", iface,
		 counter);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fscanf(f, "%lld", &v) != 1)
		v = -1;
	fclose(f);
	return v;
}

/*
 * Messages a privileged process sends to the interface's endpoint belong
 * to no frame: they are counted and dropped, and the interface keeps
 * working (its receive ring is drained).
 */
TEST_F(msg, net_stray_messages_counted)
{
	long long before, now = 0;
	char iface[IFNAMSIZ];
	int i;

	if (!net_iface(iface, sizeof(iface)))
		SKIP(return, "no network interface on snode0");
	ASSERT_EQ(0, net_set_up(iface, true));
	before = net_stat(iface, "rx_frame_errors");
	ASSERT_LE(0, before);
	/* more than the ring holds: the interface must drain it */
	for (i = 0; i < 5000; i++)
		ASSERT_EQ(0, sn_msg_send(self->fd, self->info.out_node_id,
					 SNODE_NET_EP, SNODE_NET_KEY, 0,
					 "stray", i % 49, 0));
	for (i = 0; i < 100; i++) {
		now = net_stat(iface, "rx_frame_errors");
		if (now >= before + 5000)
			break;
		usleep(20000);
	}
	EXPECT_EQ(before + 5000, now);
	test_err_snode_send(EKEYREJECTED, self->info.out_node_id, SNODE_NET_EP,
			    SNODE_NET_KEY + 1, 0, "x", 1);
	ASSERT_EQ(0, net_set_up(iface, false));
	/* down: the endpoint is gone */
	test_err_snode_send(ENXIO, self->info.out_node_id, SNODE_NET_EP,
			    SNODE_NET_KEY, 0, "x", 1);
}

TEST_F(msg, stats)
{
	struct stats_arg a, b;
	struct snode_ep_alloc ep;
	struct snode_msg m;
	struct nl nl;
	struct req r;
	int epfd, i;

	epfd = test_snode_ep_alloc(&ep, 0, 0, 0, KEY);
	ASSERT_EQ(0, stats_get(self->fd, &a));
	test_snode_send(ep.out_node, ep.out_id, KEY, 0, "1", 1);
	test_err_snode_send(EKEYREJECTED, ep.out_node, ep.out_id, 0, 0, "1", 1);
	ASSERT_EQ(1, read_msgs(epfd, &m, 1));
	ASSERT_EQ(0, stats_get(self->fd, &b));
	/* every counter of the spec is there */
	for (i = SNODE_A_STATS_DEV_INDEX; i < SNODE_A_STATS_PAD; i++) {
		EXPECT_NE(UINT64_MAX, b.v[i]) {
			TH_LOG("stats attribute %d missing", i);
		}
	}
	EXPECT_LE(a.v[SNODE_A_STATS_MSGS_SENT] + 2, b.v[SNODE_A_STATS_MSGS_SENT]);
	EXPECT_LE(a.v[SNODE_A_STATS_MSGS_RECEIVED] + 1,
		  b.v[SNODE_A_STATS_MSGS_RECEIVED]);
	/* the refused send counts twice: sender and receiver are this NIC */
	EXPECT_LE(a.v[SNODE_A_STATS_MSGS_REJECTED] + 1,
		  b.v[SNODE_A_STATS_MSGS_REJECTED]);

	/* a get needs the NIC, and the NIC must exist */
	ASSERT_EQ(0, nl_open(&nl));
	ASSERT_EQ(0, nl_resolve(&nl));
	req_init(&r, nl.family, SNODE_NL_CMD_STATS_GET, 0);
	EXPECT_EQ(-EINVAL, nl_do(&nl, &r, BUF_LEN, NULL, NULL));
	req_init(&r, nl.family, SNODE_NL_CMD_STATS_GET, 0);
	req_u32(&r, SNODE_A_STATS_DEV_INDEX, 4000);
	EXPECT_EQ(-ENODEV, nl_do(&nl, &r, BUF_LEN, NULL, NULL));
	/* a dump has every NIC of the node, this one included */
	memset(&b, 0, sizeof(b));
	req_init(&r, nl.family, SNODE_NL_CMD_STATS_GET, NLM_F_DUMP);
	EXPECT_EQ(0, nl_do(&nl, &r, BUF_LEN, stats_cb, &b));
	EXPECT_NE(0, b.v[SNODE_A_STATS_ADMIN_CMDS]);
	close(nl.fd);
	close(epfd);
}

/*
 * MSG_SEND on an endpoint's descriptor checks what it does on /dev/snodeN,
 * and a refused send delivers nothing.
 */
TEST_F(msg, send_on_endpoint_abi)
{
	struct snode_ep_alloc a, b;
	struct snode_msg_send s;
	struct {
		struct snode_msg_send s;
		__u64 tail;
	} big;
	struct snode_msg m;
	int fa, fb;

	fa = test_snode_ep_alloc(&a, 0, 0, 0, KEY);
	fb = test_snode_ep_alloc(&b, 0, 0, 0, KEY + 1);
	s = (struct snode_msg_send){
		.size = sizeof(s),
		.node = b.out_node,
		.ep = b.out_id,
		.key = KEY + 1,
		.len = 1,
	};

	s.size = offsetofend(struct snode_msg_send, payload) - 1;
	EXPECT_ERRNO(EINVAL, ioctl(fa, SNODE_IOCTL_MSG_SEND, &s));
	s.size = 0;
	EXPECT_ERRNO(EINVAL, ioctl(fa, SNODE_IOCTL_MSG_SEND, &s));
	s.size = sizeof(s);
	memset(&big, 0, sizeof(big));
	big.s = s;
	big.s.size = sizeof(big);
	big.tail = 1ULL << 63;
	EXPECT_ERRNO(E2BIG, ioctl(fa, SNODE_IOCTL_MSG_SEND, &big));
	s.flags = 1u << 31;
	EXPECT_ERRNO(EOPNOTSUPP, ioctl(fa, SNODE_IOCTL_MSG_SEND, &s));
	s.flags = SNODE_MSG_SEND_NONBLOCK << 1;
	EXPECT_ERRNO(EOPNOTSUPP, ioctl(fa, SNODE_IOCTL_MSG_SEND, &s));
	s.flags = 0;
	s.len = SNODE_MSG_MAX_LEN + 1;
	EXPECT_ERRNO(EINVAL, ioctl(fa, SNODE_IOCTL_MSG_SEND, &s));
	s.len = UINT32_MAX;
	EXPECT_ERRNO(EINVAL, ioctl(fa, SNODE_IOCTL_MSG_SEND, &s));
	s.len = 1;
	s.timeout_ms = 60001;
	EXPECT_ERRNO(EINVAL, ioctl(fa, SNODE_IOCTL_MSG_SEND, &s));
	s.timeout_ms = 0;
	s.ep = SNODE_EP_NONE;
	EXPECT_ERRNO(EINVAL, ioctl(fa, SNODE_IOCTL_MSG_SEND, &s));
	s.ep = 0x10000;
	EXPECT_ERRNO(EINVAL, ioctl(fa, SNODE_IOCTL_MSG_SEND, &s));
	s.ep = b.out_id;
	s.node = self->info.out_max_nodes;
	EXPECT_ERRNO(EINVAL, ioctl(fa, SNODE_IOCTL_MSG_SEND, &s));
	s.node = b.out_node;
	s.key = KEY;
	EXPECT_ERRNO(EKEYREJECTED, ioctl(fa, SNODE_IOCTL_MSG_SEND, &s));
	s.key = KEY + 1;
	EXPECT_ERRNO(EFAULT, ioctl(fa, SNODE_IOCTL_MSG_SEND, NULL));
	/* nothing arrived */
	EXPECT_EQ(0, poll_in(fb, 100));

	/* the same call, well formed, is sent from the endpoint */
	s.payload[0] = 'k';
	ASSERT_EQ(0, ioctl(fa, SNODE_IOCTL_MSG_SEND, &s));
	ASSERT_EQ(1, read_msgs(fb, &m, 1));
	EXPECT_EQ(a.out_id, m.src_ep);
	EXPECT_EQ('k', m.payload[0]);
	EXPECT_EQ(1, m.seq);
	close(fa);
	close(fb);
}

/*
 * The endpoint dump: each endpoint once with its own numbers, in a
 * snapshot taken after the others were made; closed ones are gone.
 */
TEST_F(msg, list_dump)
{
	struct snode_ep_alloc ep[3];
	struct obj_ent e[64];
	int fds[3], i, j, seen;
	uint32_t n = 64;

	for (i = 0; i < 3; i++)
		fds[i] = test_snode_ep_alloc(&ep[i], 0, 0, 2 << i, KEY + i);
	ASSERT_EQ(0, obj_list(self->fd, OBJ_LIST_ENDPOINTS, e, &n));
	for (i = 0; i < 3; i++) {
		seen = 0;
		for (j = 0; j < (int)n && j < 64; j++) {
			if (e[j].id != ep[i].out_id)
				continue;
			seen++;
			EXPECT_EQ(2u << i, e[j].entries);
			EXPECT_EQ(KEY + i, e[j].key);
		}
		EXPECT_EQ(1, seen);
	}
	close(fds[1]);
	n = 64;
	ASSERT_EQ(0, obj_list(self->fd, OBJ_LIST_ENDPOINTS, e, &n));
	for (j = 0; j < (int)n && j < 64; j++)
		EXPECT_NE(ep[1].out_id, e[j].id);
	close(fds[0]);
	close(fds[2]);
}

#define OVER_CAP	4200	/* queues; the kernel once wrote 4096 at most */

/*
 * More entries than the old ioctl's cap of 4096: the queue dump lists every
 * one of them, once.
 */
TEST_F(msg, list_count_over_cap)
{
	struct rlimit old, rl = { OVER_CAP + 64, OVER_CAP + 64 };
	struct obj_ent *e;
	static int q[OVER_CAP];
	__u32 count, i, n;
	long cap;

	if (!(self->info.out_caps & SNODE_CAP_DMA))
		SKIP(return, "the NIC has no DMA engine");
	/* one file opens them all: lift the per-file cap meanwhile */
	cap = set_param("max_dma_queues", 0);
	ASSERT_LE(0, cap);
	ASSERT_EQ(0, getrlimit(RLIMIT_NOFILE, &old));
	if (old.rlim_cur < rl.rlim_cur)
		ASSERT_EQ(0, setrlimit(RLIMIT_NOFILE, &rl));
	for (i = 0; i < OVER_CAP; i++) {
		struct snode_dma_open o = { .size = sizeof(o), .depth = 1 };

		ASSERT_EQ(0, ioctl(self->fd, SNODE_IOCTL_DMA_OPEN, &o)) {
			TH_LOG("queue %u: %s", i, strerror(errno));
		}
		q[i] = o.out_fd;
	}
	n = OVER_CAP + 100;
	e = calloc(n + 1, sizeof(*e));
	ASSERT_NE(NULL, e);

	count = n;
	ASSERT_EQ(0, obj_list(self->fd, OBJ_LIST_DMA_QUEUES, e, &count));
	ASSERT_LE(OVER_CAP, count);
	ASSERT_GE(n, count);
	/* the dump spans many messages: every queue once, ids unique */
	for (i = 0; i < count; i++) {
		__u32 j;

		if (e[i].type != OBJ_LIST_DMA_QUEUES || !(e[i].flags & OBJ_ENT_OWN))
			continue;
		for (j = i + 1; j < count; j++)
			if (e[j].id == e[i].id)
				break;
		EXPECT_EQ(count, j) {
			TH_LOG("queue %u listed twice", e[i].id);
			break;
		}
	}
	for (i = 0, n = 0; i < count; i++)
		n += !!(e[i].flags & OBJ_ENT_OWN);
	EXPECT_EQ(OVER_CAP, n);

	free(e);
	for (i = 0; i < OVER_CAP; i++)
		close(q[i]);
	setrlimit(RLIMIT_NOFILE, &old);
	EXPECT_LE(0, set_param("max_dma_queues", cap));
}

TEST_F(msg, read_only_file)
{
	struct snode_ep_alloc ep = { .size = sizeof(ep) };
	int ro;

	ro = open(SNODE_DEV, O_RDONLY);
	ASSERT_LE(0, ro);
	EXPECT_ERRNO(EPERM, ioctl(ro, SNODE_IOCTL_EP_ALLOC, &ep));
	EXPECT_ERRNO(EPERM, sn_msg_send(ro, self->info.out_node_id, 0, KEY, 0,
					NULL, 0, 0));
	close(ro);
}

/* A reset removes every endpoint: queued messages drain, then ECONNRESET. */
TEST_F(msg, reset_kills_endpoint)
{
	char path[128];
	struct snode_ep_alloc ep;
	struct snode_msg m;
	int epfd, fd;

	epfd = test_snode_ep_alloc(&ep, SNODE_EP_NONBLOCK, 0, 0, KEY);
	test_snode_send(ep.out_node, ep.out_id, KEY, 0, "before", 6);
	ASSERT_EQ(POLLIN, poll_in(epfd, 1000));

	snprintf(path, sizeof(path), "/sys/class/snode/snode0/device/reset");
	fd = open(path, O_WRONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, write(fd, "1", 1));
	close(fd);

	EXPECT_EQ(POLLIN | POLLERR | POLLHUP, poll_in(epfd, 0));
	ASSERT_EQ(sizeof(m), read(epfd, &m, sizeof(m)));
	EXPECT_EQ(0, memcmp(m.payload, "before", 6));
	EXPECT_ERRNO(ECONNRESET, read(epfd, &m, sizeof(m)));
	/* the id stays taken until the dead endpoint is closed */
	test_err_snode_send(ENXIO, ep.out_node, ep.out_id, KEY, 0, "after", 5);
	close(epfd);
	epfd = test_snode_ep_alloc(&ep, SNODE_EP_ID, ep.out_id, 0, KEY);
	test_snode_send(ep.out_node, ep.out_id, KEY, 0, "again", 5);
	ASSERT_EQ(1, read_msgs(epfd, &m, 1));
	EXPECT_EQ(1, m.seq);
	close(epfd);
}

/* ---- two nodes ---------------------------------------------------------- */

static int ep_alloc_fixed(int fd, __u32 id, __u64 key)
{
	struct snode_ep_alloc ep = {
		.size = sizeof(ep),
		.flags = SNODE_EP_ID,
		.id = id,
		.entries = 64,
		.key = key,
	};
	int i;

	/* a previous run's endpoint may still be going away */
	for (i = 0; i < 50; i++) {
		if (!sn_ep_alloc(fd, &ep))
			return ep.out_fd;
		if (errno != EBUSY)
			break;
		usleep(100000);
	}
	perror("SNODE_IOCTL_EP_ALLOC");
	return -1;
}

/* Send, retrying while the peer has not set its endpoint up yet. */
static int send_retry(int fd, __u32 node, __u32 ep, __u64 key,
		      const void *payload, int len, int tries)
{
	while (sn_msg_send(fd, node, ep, key, 0, payload, len, 5000)) {
		if (errno != ENXIO || --tries <= 0)
			return -1;
		usleep(100000);
	}
	return 0;
}

static void fill(__u8 *p, int i)
{
	int j;

	for (j = 0; j < SNODE_MSG_MAX_LEN; j++)
		p[j] = i * 7 + j;
}

static int pingpong(const char *role, __u32 peer, int count)
{
	bool server = !strcmp(role, "server");
	__u32 my_ep = server ? PINGPONG_SERVER_EP : PINGPONG_CLIENT_EP;
	__u64 my_key = server ? PINGPONG_SERVER_KEY : PINGPONG_CLIENT_KEY;
	__u8 want[SNODE_MSG_MAX_LEN];
	struct snode_msg m;
	int fd, epfd, i;

	fd = open(SNODE_DEV, O_RDWR);
	if (fd < 0) {
		perror(SNODE_DEV);
		return 1;
	}
	epfd = ep_alloc_fixed(fd, my_ep, my_key);
	if (epfd < 0)
		return 1;
	for (i = 0; i < count; i++) {
		int len = 1 + i % SNODE_MSG_MAX_LEN;

		fill(want, i);
		if (!server && send_retry(epfd, peer, PINGPONG_SERVER_EP,
					  PINGPONG_SERVER_KEY, want, len,
					  i ? 1 : 600)) {
			fprintf(stderr, "client: send %d: %s\n", i, strerror(errno));
			return 1;
		}
		/* the server waits up to a minute for the client to start */
		if (read_msgs_to(epfd, &m, 1, server && !i ? 60000 : 5000) != 1) {
			fprintf(stderr, "%s: no message %d\n", role, i);
			return 1;
		}
		if (m.src_node != peer || m.len != len ||
		    memcmp(m.payload, want, len) || m.seq != (__u64)i + 1 ||
		    m.src_ep != (server ? PINGPONG_CLIENT_EP : PINGPONG_SERVER_EP)) {
			fprintf(stderr, "%s: message %d: node %u ep %u len %u seq %llu: wrong\n",
				role, i, m.src_node, m.src_ep, m.len,
				(unsigned long long)m.seq);
			return 1;
		}
		if (server && send_retry(epfd, peer, PINGPONG_CLIENT_EP,
					 PINGPONG_CLIENT_KEY, want, len, 1)) {
			fprintf(stderr, "server: send %d: %s\n", i, strerror(errno));
			return 1;
		}
	}
	printf("%s: %d messages checked\n", role, count);
	close(epfd);
	close(fd);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 5 && !strcmp(argv[1], "pingpong"))
		return pingpong(argv[2], strtoul(argv[3], NULL, 0),
				atoi(argv[4]));
	/* without /dev/snode0 snode_test.h's snode_require_device() skipped it all */
	return test_harness_run(argc, argv);
}
