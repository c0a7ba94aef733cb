// SPDX-License-Identifier: GPL-2.0
/*
 * fail-nth sweep of the snode ioctls and of the operations of the "snode"
 * generic-netlink family, the pattern of iommufd_fail_nth.c.
 *
 * Every operation (one variant each) runs again and again:
 *  - "nth": with the n-th fault point this thread reaches failing
 *    (/proc/thread-self/fail-nth; failslab, fail_page_alloc and snode's
 *    fail_admin attribute all count), n = 1, 2, ...
 *  - "admin": with only the n-th admin command this thread issues failing
 *    (/sys/kernel/debug/snode/fail_admin with task-filter, space = n)
 *  - "timeout": with only the n-th admin command this thread issues timing
 *    out (fail_admin as for "admin", and fail_admin_timeout set): the
 *    device applies it, the driver has given up on it and learns nothing
 * until it no longer reaches the n-th point; that last call must succeed.
 * A call that hit the fault must fail with a clean errno (ENOMEM, EIO,
 * ETIMEDOUT) or succeed, and afterwards the node must hold exactly what it
 * held before (allocations, exports, imports, ATT entries, endpoints, DMA
 * queues, free pool bytes; the BER thresholds and the admin and operational
 * state of the NIC's links): nothing half made is left behind. After a
 * timeout the driver reconciles what it left stale once the device has
 * answered (decision 0024): the node must get there within RECONCILE_MS,
 * without a reset. Leaks, locks
 * left held and use-after-free are for kmemleak, lockdep and KASAN of the
 * debug kernel this runs on.
 *
 * Runs as root in a guest of the debug kernel with snode.ko loaded and the
 * NIC on a fabric (self-imports need it). SKIP without fault injection.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/snode.h>

#include "kselftest_harness.h"
#include "snode_test.h"
#include "snode_nl.h"
#include "fail_nth.h"

#define SNODE_DEV	"/dev/snode0"
#define SZ_4K		4096ULL
#define SZ_2M		(2ULL << 20)
#define MAX_NTH		4000
#define EP_KEY		0xfa11
#define EXP_KEY		0xfa12
#define NTH_PORTS	8	/* ports of snode0 whose state is compared */
/* how long the driver may take to clear what a timeout left stale */
#define RECONCILE_MS	10000

static void admin_arm(unsigned int n, int timeout)
{
	char buf[16];

	snprintf(buf, sizeof(buf), "%u", n);
	if (write_file(FAIL_ADMIN_TIMEOUT, timeout ? "Y" : "N") ||
	    write_file(FAIL_ADMIN "task-filter", "Y") ||
	    write_file(FAIL_ADMIN "interval", "1") ||
	    write_file(FAIL_ADMIN "times", "1") ||
	    /* space counts calls before the failing one, see should_fail_ex() */
	    write_file(FAIL_ADMIN "space", buf) ||
	    write_file("/proc/thread-self/make-it-fail", "1") ||
	    write_file(FAIL_ADMIN "probability", "100"))
		abort();
}

static int admin_disarm(void)
{
	long times = read_long(FAIL_ADMIN "times");

	if (write_file(FAIL_ADMIN "probability", "0") ||
	    write_file("/proc/thread-self/make-it-fail", "0") ||
	    write_file(FAIL_ADMIN_TIMEOUT, "N"))
		abort();
	return times == 0;
}

/* ---- the node's state -------------------------------------------------------- */

struct node_state {
	uint32_t mem[5];	/* by enum snode_mem_list_type */
	uint32_t msg[3];	/* by enum snode_msg_list_type */
	uint64_t pool_free;
	/* what the netlink admin operations could change, on snode0 */
	uint64_t dev_threshold;
	uint32_t nports;
	uint32_t admin[NTH_PORTS];
	uint32_t oper[NTH_PORTS];
	uint64_t threshold[NTH_PORTS];	/* in force */
};

/* The NIC's threshold and its links, by a get and a dump on @nl (no faults). */
static int nl_state(struct nl *nl, uint32_t dev, struct node_state *s)
{
	struct table *t = calloc(1, sizeof(*t));
	struct req r;
	unsigned int i;
	int ret;

	if (!t)
		return -ENOMEM;
	req_init(&r, nl->family, SNODE_NL_CMD_DEV_GET, 0);
	req_u32(&r, SNODE_A_DEV_INDEX, dev);
	ret = nl_do(nl, &r, BUF_LEN, dev_cb, t);
	if (!ret && t->n != 1)
		ret = -EPROTO;
	if (!ret) {
		s->dev_threshold = t->dev[0].threshold;
		t->n = 0;
		req_init(&r, nl->family, SNODE_NL_CMD_LINK_GET, NLM_F_DUMP);
		req_u32(&r, SNODE_A_LINK_DEV_INDEX, dev);
		ret = nl_do(nl, &r, BUF_LEN, link_cb, t);
	}
	for (i = 0; !ret && i < t->n && i < NTH_PORTS; i++) {
		s->admin[i] = t->link[i].admin;
		s->oper[i] = t->link[i].oper;
		s->threshold[i] = t->link[i].threshold;
	}
	s->nports = t->n;
	free(t);
	return ret;
}

static int node_state(int fd, struct nl *nl, uint32_t dev,
		      struct node_state *s)
{
	struct list_arg l;
	uint32_t t;
	int ret;

	/* the dumps on sockets of their own, without faults */
	memset(s, 0, sizeof(*s));
	for (t = MEM_LIST_ALLOCS; t <= MEM_LIST_ATT; t++) {
		memset(&l, 0, sizeof(l));
		l.type = t;
		ret = snode_list(fd, true, &l);
		if (ret)
			return ret;
		s->mem[t] = l.n;
		s->pool_free = l.pool_free;
	}
	for (t = OBJ_LIST_ENDPOINTS; t <= OBJ_LIST_DMA_QUEUES; t++) {
		memset(&l, 0, sizeof(l));
		l.type = t;
		ret = snode_list(fd, false, &l);
		if (ret)
			return ret;
		s->msg[t] = l.n;
	}
	return nl_state(nl, dev, s);
}

/* ---- the operations ------------------------------------------------------------- */

/* What an operation works on: made by its prep, without faults. */
struct ctx {
	int fd;			/* /dev/snode0, O_RDWR */
	uint32_t node;
	uint64_t alloc;		/* an allocation of SZ_2M */
	int have_alloc;
	uint32_t export_id;	/* an export of all of it, writable */
	int have_export;
	int import_fd;		/* a writable import of that export */
	int ep_fd;		/* an endpoint */
	uint32_t ep_id;
	int dma_fd;		/* a DMA queue */
	void *buf;		/* SZ_4K of process memory */
	/* what the operation made, undone after a success */
	int new_fd;
	uint64_t new_alloc;
	uint32_t new_export;
	/* P_NL: a socket of its own, and what the NIC says without faults */
	struct nl nl;
	struct dev_ent dev;	/* snode0 */
	uint32_t port;		/* its last port, which routes prefer least */
	struct link_ent link[NTH_PORTS];	/* its links, by a dump */
	uint64_t own_threshold;	/* the last port's own (0: the NIC's) */
	/* entries of each dump, [cmd][filtered by snode0] */
	unsigned int count[SNODE_NL_CMD_MAX + 1][2];
	/* the replies of the operation, checked by its callback */
	unsigned int got;
	uint32_t last_dev, last_id;
};

enum prep {
	P_ALLOC = 1 << 0,
	P_EXPORT = 1 << 1,
	P_IMPORT = 1 << 2,
	P_EP = 1 << 3,
	P_DMA = 1 << 4,
	P_NL = 1 << 5,
};

static int do_alloc(int fd, uint64_t len, uint64_t *off)
{
	struct snode_mem_alloc a = { .size = sizeof(a), .length = len };

	if (ioctl(fd, SNODE_IOCTL_MEM_ALLOC, &a))
		return -errno;
	*off = a.out_offset;
	return 0;
}

static int do_free(int fd, uint64_t off)
{
	struct snode_mem_free f = { .size = sizeof(f), .offset = off };

	return ioctl(fd, SNODE_IOCTL_MEM_FREE, &f) ? -errno : 0;
}

static int do_export(struct ctx *c, uint32_t *id)
{
	struct snode_mem_export e = {
		.size = sizeof(e), .flags = SNODE_EXPORT_WRITE,
		.alloc = c->alloc, .length = SZ_2M, .key = EXP_KEY,
	};

	if (ioctl(c->fd, SNODE_IOCTL_MEM_EXPORT, &e))
		return -errno;
	*id = e.out_export_id;
	return 0;
}

static int do_unexport(int fd, uint32_t id)
{
	struct snode_mem_unexport u = { .size = sizeof(u), .export_id = id };

	return ioctl(fd, SNODE_IOCTL_MEM_UNEXPORT, &u) ? -errno : 0;
}

static int do_import(struct ctx *c, int *ifd)
{
	struct snode_mem_import i = {
		.size = sizeof(i), .flags = SNODE_IMPORT_WRITE, .node = c->node,
		.export_id = c->export_id, .key = EXP_KEY, .length = SZ_2M,
	};

	if (ioctl(c->fd, SNODE_IOCTL_MEM_IMPORT, &i))
		return -errno;
	*ifd = i.out_fd;
	return 0;
}

static int do_ep_alloc(int fd, int *efd, uint32_t *id)
{
	struct snode_ep_alloc e = {
		.size = sizeof(e), .flags = SNODE_EP_NONBLOCK, .entries = 16,
		.key = EP_KEY,
	};

	if (ioctl(fd, SNODE_IOCTL_EP_ALLOC, &e))
		return -errno;
	*efd = e.out_fd;
	if (id)
		*id = e.out_id;
	return 0;
}

static int do_dma_open(int fd, int *qfd)
{
	struct snode_dma_open o = { .size = sizeof(o), .depth = 4 };

	if (ioctl(fd, SNODE_IOCTL_DMA_OPEN, &o))
		return -errno;
	*qfd = o.out_fd;
	return 0;
}

static int op_open(struct ctx *c)
{
	c->new_fd = open(SNODE_DEV, O_RDWR);
	return c->new_fd < 0 ? -errno : 0;
}

static int op_info(struct ctx *c)
{
	struct snode_info i = { .size = sizeof(i) };

	return ioctl(c->fd, SNODE_IOCTL_INFO, &i) ? -errno : 0;
}

static int op_mem_alloc_4k(struct ctx *c)
{
	return do_alloc(c->fd, SZ_4K, &c->new_alloc);
}

static int op_mem_alloc_2m(struct ctx *c)
{
	return do_alloc(c->fd, SZ_2M, &c->new_alloc);
}

static int op_mem_free(struct ctx *c)
{
	int ret = do_free(c->fd, c->alloc);

	if (!ret)
		c->have_alloc = 0;
	return ret;
}

static int op_mem_export(struct ctx *c)
{
	return do_export(c, &c->new_export);
}

static int op_mem_unexport(struct ctx *c)
{
	int ret = do_unexport(c->fd, c->export_id);

	if (!ret)
		c->have_export = 0;
	return ret;
}

static int op_mem_import(struct ctx *c)
{
	return do_import(c, &c->new_fd);
}

static int op_import_status(struct ctx *c)
{
	struct snode_import_status s = { .size = sizeof(s) };

	return ioctl(c->import_fd, SNODE_IOCTL_IMPORT_STATUS, &s) ? -errno : 0;
}

static int op_ep_alloc(struct ctx *c)
{
	return do_ep_alloc(c->fd, &c->new_fd, NULL);
}

static int msg_send(struct ctx *c, int fd)
{
	struct snode_msg_send s = {
		.size = sizeof(s), .flags = SNODE_MSG_SEND_NONBLOCK,
		.node = c->node, .ep = c->ep_id, .key = EP_KEY, .len = 8,
		.payload = "fail-nth",
	};

	return ioctl(fd, SNODE_IOCTL_MSG_SEND, &s) ? -errno : 0;
}

static int op_msg_send(struct ctx *c)
{
	return msg_send(c, c->fd);
}

static int op_msg_send_ep(struct ctx *c)
{
	return msg_send(c, c->ep_fd);
}

static int op_dma_open(struct ctx *c)
{
	return do_dma_open(c->fd, &c->new_fd);
}

static int dma_copy(struct ctx *c, uint32_t dir)
{
	struct snode_dma_req r = {
		.flags = dir, .import_fd = c->import_fd, .addr = (uintptr_t)c->buf,
		.length = SZ_4K,
	};
	struct snode_dma_submit s = {
		.size = sizeof(s), .flags = SNODE_DMA_SUBMIT_WAIT, .count = 1,
		.req_size = sizeof(r), .reqs = (uintptr_t)&r,
	};

	if (ioctl(c->dma_fd, SNODE_IOCTL_DMA_SUBMIT, &s))
		return -errno;
	/* queued: the copy itself may fail, cleanly */
	return s.out_submitted == 1 ? r.out_status : -EPROTO;
}

static int op_dma_to_global(struct ctx *c)
{
	return dma_copy(c, SNODE_DMA_TO_GLOBAL);
}

static int op_dma_from_global(struct ctx *c)
{
	return dma_copy(c, SNODE_DMA_FROM_GLOBAL);
}

/* ---- the netlink operations ----------------------------------------------------- */

/*
 * The operations run nl_do_buf() into this buffer, made resident by the
 * prep: a page fault or a malloc() in the test itself would reach the
 * fault points too, and fail with SIGBUS or a user-space ENOMEM.
 */
static char nl_buf[BUF_LEN];

/*
 * Room for the stack the operations use, touched by the prep: the test
 * runs in a forked child, whose first write to a stack page copies it.
 */
static void __attribute__((noinline)) stack_touch(void)
{
	volatile char stack[64 * 1024];
	size_t i;

	for (i = 0; i < sizeof(stack); i += 1024)
		stack[i] = 0;
}

/* Whether @m has every attribute of @req (zero-terminated). */
static bool has_attrs(const struct msg *m, const int *req)
{
	for (; *req; req++)
		if (!m->tb[*req])
			return false;
	return true;
}

/*
 * The attributes every reply carries (the spec's reply lists less those
 * sent only sometimes: peer, throttled, pid, comm, offsets, epoch).
 */
static const int dev_attrs[] = {
	SNODE_A_DEV_INDEX, SNODE_A_DEV_NAME, SNODE_A_DEV_STATE,
	SNODE_A_DEV_FABRIC_ID, SNODE_A_DEV_HW_VERSION, SNODE_A_DEV_FW_VERSION,
	SNODE_A_DEV_FW_NAME, SNODE_A_DEV_SERIAL, SNODE_A_DEV_CAPS,
	SNODE_A_DEV_NPORTS, SNODE_A_DEV_MAX_NODES, SNODE_A_DEV_ATT_ENTRIES,
	SNODE_A_DEV_EXPORT_ENTRIES, SNODE_A_DEV_POOL_SIZE,
	SNODE_A_DEV_APERTURE_SIZE, SNODE_A_DEV_BER_THRESHOLD, 0
};
static const int link_attrs[] = {
	SNODE_A_LINK_DEV_INDEX, SNODE_A_LINK_DEV_NAME, SNODE_A_LINK_PORT,
	SNODE_A_LINK_ADMIN_STATE, SNODE_A_LINK_OPER_STATE, SNODE_A_LINK_LANES,
	SNODE_A_LINK_MAX_LANES, SNODE_A_LINK_SPEED, SNODE_A_LINK_CRC_ERRORS,
	SNODE_A_LINK_REPLAYS, SNODE_A_LINK_RECOVERIES,
	SNODE_A_LINK_DOWN_EVENTS, SNODE_A_LINK_TX_BYTES, SNODE_A_LINK_RX_BYTES,
	SNODE_A_LINK_TX_MSGS, SNODE_A_LINK_RX_MSGS, SNODE_A_LINK_BER,
	SNODE_A_LINK_BER_THRESHOLD, SNODE_A_LINK_BER_ALARM,
	SNODE_A_LINK_AUTO_ISOLATE, SNODE_A_LINK_ISOLATE_BER,
	SNODE_A_LINK_ISOLATE_FLAPS, SNODE_A_LINK_ISOLATE_WINDOW,
	SNODE_A_LINK_ISOLATION, SNODE_A_LINK_UTIL_THRESHOLD,
	SNODE_A_LINK_UTIL_TX, SNODE_A_LINK_UTIL_RX, SNODE_A_LINK_UTIL_ALARM,
	SNODE_A_LINK_UTIL_HYSTERESIS, 0
};

/* nothing sets a utilisation threshold before the sweep: the default */
#define NTH_UTIL_THRESHOLD	80
static const int node_attrs[] = {
	SNODE_A_NODE_DEV_INDEX, SNODE_A_NODE_ID, SNODE_A_NODE_STATE, 0
};
static const int window_attrs[] = {
	SNODE_A_WINDOW_DEV_INDEX, SNODE_A_WINDOW_KIND, SNODE_A_WINDOW_INDEX,
	SNODE_A_WINDOW_NODE, SNODE_A_WINDOW_LENGTH, SNODE_A_WINDOW_PERM,
	SNODE_A_WINDOW_STATE, 0
};

/* a pool allocation has no permission of its own */
static const int alloc_attrs[] = {
	SNODE_A_WINDOW_DEV_INDEX, SNODE_A_WINDOW_KIND, SNODE_A_WINDOW_INDEX,
	SNODE_A_WINDOW_NODE, SNODE_A_WINDOW_LENGTH, SNODE_A_WINDOW_STATE, 0
};

/*
 * A reply of snode0 (gets) or one entry of a dump, whole and in order; on
 * anything else the call fails with EPROTO, which no sweep accepts: a
 * fault must never make a reply short. What does not move without the
 * test (a link's admin state and threshold) must be what it was.
 */
static int nth_dev_cb(const struct msg *m, void *arg)
{
	struct ctx *c = arg;

	c->got++;
	if (m->cmd != SNODE_NL_CMD_DEV_GET || !has_attrs(m, dev_attrs))
		return -EPROTO;
	if (get_u32(m, SNODE_A_DEV_INDEX) == c->dev.index &&
	    get_u64(m, SNODE_A_DEV_BER_THRESHOLD) != c->dev.threshold)
		return -EPROTO;
	return 0;
}

static int nth_link_cb(const struct msg *m, void *arg)
{
	struct ctx *c = arg;
	uint32_t dev, port;

	c->got++;
	if (m->cmd != SNODE_NL_CMD_LINK_GET || !has_attrs(m, link_attrs))
		return -EPROTO;
	dev = get_u32(m, SNODE_A_LINK_DEV_INDEX);
	port = get_u32(m, SNODE_A_LINK_PORT);
	/* a dump: each port of each NIC once, in order */
	if (c->got > 1 && !(dev == c->last_dev && port == c->last_id + 1) &&
	    !(dev > c->last_dev && port == 0))
		return -EPROTO;
	c->last_dev = dev;
	c->last_id = port;
	if (dev == c->dev.index && port < NTH_PORTS &&
	    (get_u32(m, SNODE_A_LINK_ADMIN_STATE) != c->link[port].admin ||
	     get_u64(m, SNODE_A_LINK_BER_THRESHOLD) != c->link[port].threshold ||
	     get_u32(m, SNODE_A_LINK_UTIL_THRESHOLD) != NTH_UTIL_THRESHOLD))
		return -EPROTO;
	return 0;
}

static int nth_node_cb(const struct msg *m, void *arg)
{
	struct ctx *c = arg;
	uint32_t dev, id;

	c->got++;
	if (m->cmd != SNODE_NL_CMD_NODE_GET || !has_attrs(m, node_attrs))
		return -EPROTO;
	dev = get_u32(m, SNODE_A_NODE_DEV_INDEX);
	id = get_u32(m, SNODE_A_NODE_ID);
	if (c->got > 1 && !(dev > c->last_dev ||
			    (dev == c->last_dev && id > c->last_id)))
		return -EPROTO;
	c->last_dev = dev;
	c->last_id = id;
	return 0;
}

static int nth_window_cb(const struct msg *m, void *arg)
{
	struct ctx *c = arg;

	c->got++;
	if (m->cmd != SNODE_NL_CMD_WINDOW_GET ||
	    !has_attrs(m, get_u32(m, SNODE_A_WINDOW_KIND) ==
			  SNODE_WINDOW_KIND_ALLOC ? alloc_attrs : window_attrs))
		return -EPROTO;
	return 0;
}

/* endpoint, queue and stats dumps and gets: the command and the NIC */
static int nth_obj_cb(const struct msg *m, void *arg)
{
	struct ctx *c = arg;

	c->got++;
	if ((m->cmd != SNODE_NL_CMD_ENDPOINT_GET &&
	     m->cmd != SNODE_NL_CMD_QUEUE_GET &&
	     m->cmd != SNODE_NL_CMD_STATS_GET) || !m->tb[1])
		return -EPROTO;
	return 0;
}

static msg_fn nth_cb(uint8_t cmd)
{
	switch (cmd) {
	case SNODE_NL_CMD_ENDPOINT_GET:
	case SNODE_NL_CMD_QUEUE_GET:
	case SNODE_NL_CMD_STATS_GET:
		return nth_obj_cb;
	case SNODE_NL_CMD_DEV_GET:
		return nth_dev_cb;
	case SNODE_NL_CMD_LINK_GET:
		return nth_link_cb;
	case SNODE_NL_CMD_NODE_GET:
		return nth_node_cb;
	default:
		return nth_window_cb;
	}
}

static int nl_call(struct ctx *c, struct req *r)
{
	c->got = 0;
	return nl_do_buf(&c->nl, r, nl_buf, sizeof(nl_buf),
			 nth_cb(r->genl.cmd), c);
}

/* A get: exactly one whole reply, or the call failed. */
static int nl_get(struct ctx *c, struct req *r)
{
	int ret = nl_call(c, r);

	return ret ? ret : c->got == 1 ? 0 : -EPROTO;
}

/*
 * A dump, of snode0 only if @filter (its dev-index): as many entries as the same dump
 * without faults in the prep (a link dump lists a link the NIC could not
 * be asked about from the cache), unless the tables changed meanwhile
 * (NLM_F_DUMP_INTR).
 */
static int nl_dump_all(struct ctx *c, uint8_t cmd, int filter)
{
	struct req r;

	req_init(&r, c->nl.family, cmd, NLM_F_DUMP);
	if (filter)
		req_u32(&r, cmd == SNODE_NL_CMD_LINK_GET ? SNODE_A_LINK_DEV_INDEX :
			cmd == SNODE_NL_CMD_NODE_GET ? SNODE_A_NODE_DEV_INDEX :
			cmd == SNODE_NL_CMD_ENDPOINT_GET ?
			SNODE_A_ENDPOINT_DEV_INDEX :
			cmd == SNODE_NL_CMD_QUEUE_GET ? SNODE_A_QUEUE_DEV_INDEX :
			SNODE_A_WINDOW_DEV_INDEX, c->dev.index);
	return nl_call(c, &r);
}

static int nl_dump(struct ctx *c, uint8_t cmd, int filter)
{
	int ret = nl_dump_all(c, cmd, filter);

	if (ret || c->nl.intr)
		return ret;
	return c->got == c->count[cmd][filter] ? 0 : -EPROTO;
}

static int op_nl_dev_get(struct ctx *c)
{
	struct req r;

	req_init(&r, c->nl.family, SNODE_NL_CMD_DEV_GET, 0);
	req_u32(&r, SNODE_A_DEV_INDEX, c->dev.index);
	return nl_get(c, &r);
}

static int op_nl_dev_dump(struct ctx *c)
{
	return nl_dump(c, SNODE_NL_CMD_DEV_GET, 0);
}

static int op_nl_link_get(struct ctx *c)
{
	struct req r;

	req_link(&r, c->nl.family, SNODE_NL_CMD_LINK_GET, c->dev.index, c->port);
	return nl_get(c, &r);
}

static int op_nl_link_dump(struct ctx *c)
{
	return nl_dump(c, SNODE_NL_CMD_LINK_GET, 0);
}

static int op_nl_link_dump_dev(struct ctx *c)
{
	return nl_dump(c, SNODE_NL_CMD_LINK_GET, 1);
}

/* The node itself: on a one-node fabric the only one a get surely finds. */
static int op_nl_node_get(struct ctx *c)
{
	struct req r;

	req_init(&r, c->nl.family, SNODE_NL_CMD_NODE_GET, 0);
	req_u32(&r, SNODE_A_NODE_DEV_INDEX, c->dev.index);
	req_u32(&r, SNODE_A_NODE_ID, c->dev.node_id);
	return nl_get(c, &r);
}

static int op_nl_node_dump(struct ctx *c)
{
	return nl_dump(c, SNODE_NL_CMD_NODE_GET, 0);
}

static int op_nl_node_dump_dev(struct ctx *c)
{
	return nl_dump(c, SNODE_NL_CMD_NODE_GET, 1);
}

/* P_IMPORT: an export, an import and its ATT entry to list */
static int op_nl_window_dump(struct ctx *c)
{
	return nl_dump(c, SNODE_NL_CMD_WINDOW_GET, 0);
}

static int op_nl_window_dump_dev(struct ctx *c)
{
	return nl_dump(c, SNODE_NL_CMD_WINDOW_GET, 1);
}

/* P_EP | P_DMA: an endpoint and a DMA queue to list */
static int op_nl_endpoint_dump(struct ctx *c)
{
	return nl_dump(c, SNODE_NL_CMD_ENDPOINT_GET, 0);
}

static int op_nl_endpoint_dump_dev(struct ctx *c)
{
	return nl_dump(c, SNODE_NL_CMD_ENDPOINT_GET, 1);
}

static int op_nl_queue_dump(struct ctx *c)
{
	return nl_dump(c, SNODE_NL_CMD_QUEUE_GET, 0);
}

static int op_nl_queue_dump_dev(struct ctx *c)
{
	return nl_dump(c, SNODE_NL_CMD_QUEUE_GET, 1);
}

/* the NIC's counters: an admin command (STATS) per NIC */
static int op_nl_stats_get(struct ctx *c)
{
	struct req r;

	req_init(&r, c->nl.family, SNODE_NL_CMD_STATS_GET, 0);
	req_u32(&r, SNODE_A_STATS_DEV_INDEX, c->dev.index);
	return nl_get(c, &r);
}

static int op_nl_stats_dump(struct ctx *c)
{
	return nl_dump(c, SNODE_NL_CMD_STATS_GET, 0);
}

/* The admin operations, with arguments that change nothing (or are undone). */

/* The NIC's default threshold, to what it is. */
static int op_nl_dev_set(struct ctx *c)
{
	struct req r;

	req_init(&r, c->nl.family, SNODE_NL_CMD_DEV_SET, 0);
	req_u32(&r, SNODE_A_DEV_INDEX, c->dev.index);
	req_u64(&r, SNODE_A_DEV_BER_THRESHOLD, c->dev.threshold);
	return nl_call(c, &r);
}

/*
 * The last port's own threshold, its admin state, its auto-isolate policy
 * (off, as nothing before the sweep sets one) and its utilisation
 * threshold (the default), all to what they are.
 */
static int op_nl_link_set(struct ctx *c)
{
	struct req r;

	req_link(&r, c->nl.family, SNODE_NL_CMD_LINK_SET, c->dev.index, c->port);
	req_u32(&r, SNODE_A_LINK_ADMIN_STATE, c->link[c->port].admin);
	req_u64(&r, SNODE_A_LINK_BER_THRESHOLD, c->own_threshold);
	req_u32(&r, SNODE_A_LINK_AUTO_ISOLATE, 0);
	req_u64(&r, SNODE_A_LINK_ISOLATE_BER, 0);
	req_u32(&r, SNODE_A_LINK_ISOLATE_FLAPS, 0);
	req_u32(&r, SNODE_A_LINK_UTIL_THRESHOLD, NTH_UTIL_THRESHOLD);
	return nl_call(c, &r);
}

/*
 * A retrain of the last port; unprep() waits until it is back in the
 * state it had. One recovery more in its counters is what a reset leaves.
 */
static int op_nl_link_reset(struct ctx *c)
{
	struct req r;

	req_link(&r, c->nl.family, SNODE_NL_CMD_LINK_RESET, c->dev.index, c->port);
	return nl_call(c, &r);
}

/*
 * Zeroes the last port's counters, which cannot be undone; nothing the
 * sweep compares, and nothing that runs after it on this VM, reads them.
 */
static int op_nl_link_clear(struct ctx *c)
{
	struct req r;

	req_link(&r, c->nl.family, SNODE_NL_CMD_LINK_CLEAR, c->dev.index, c->port);
	return nl_call(c, &r);
}

/* Count what a dump lists, without faults, as nl_dump() will ask it. */
static int nl_count(struct ctx *c, uint8_t cmd, int filter)
{
	int ret, tries;

	for (tries = 0; tries < 5; tries++) {
		ret = nl_dump_all(c, cmd, filter);
		if (ret)
			return ret;
		if (!c->nl.intr)
			break;
	}
	c->count[cmd][filter] = c->got;
	return 0;
}

/* snode0 as a dev dump on @nl lists it. */
static int nl_snode0(struct nl *nl, struct dev_ent *out)
{
	struct table *t = calloc(1, sizeof(*t));
	unsigned int i;
	int ret;

	if (!t)
		return -ENOMEM;
	ret = dump(nl, SNODE_NL_CMD_DEV_GET, BUF_LEN, dev_cb, t);
	for (i = 0; !ret && i < t->n; i++)
		if (!strcmp(t->dev[i].name, "snode0"))
			break;
	if (!ret && i == t->n)
		ret = -ENODEV;
	if (!ret)
		*out = t->dev[i];
	free(t);
	return ret;
}

/*
 * The last port's own threshold: the one in force if it differs from the
 * NIC's, else none or the same; which, a move of the NIC's tells.
 */
static int nl_own_threshold(struct ctx *c)
{
	uint64_t in_force = c->link[c->port].threshold, d = c->dev.threshold;
	struct link_ent l = { .threshold = d };
	int ret, undo;

	if (in_force != d || !d) {
		c->own_threshold = in_force != d ? in_force : 0;
		return 0;
	}
	ret = dev_set_threshold(&c->nl, c->dev.index, d + 1);
	if (!ret)
		ret = link_get(&c->nl, c->dev.index, c->port, &l);
	undo = dev_set_threshold(&c->nl, c->dev.index, d);
	c->own_threshold = l.threshold == d + 1 ? 0 : d;
	return ret ?: undo;
}

static int nl_prep(struct ctx *c)
{
	struct timeval tv = { .tv_sec = 30 };
	struct table *t;
	unsigned int i;
	struct req r;
	int ret;

	ret = nl_open(&c->nl);
	if (ret)
		return ret;
	/* a reply that never comes fails the call, not the whole run */
	if (setsockopt(c->nl.fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)))
		return -errno;
	ret = nl_resolve(&c->nl) ?: nl_snode0(&c->nl, &c->dev);
	if (ret)
		return ret;
	if (!c->dev.nports || c->dev.nports > NTH_PORTS)
		return -ERANGE;
	c->port = c->dev.nports - 1;

	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	req_init(&r, c->nl.family, SNODE_NL_CMD_LINK_GET, NLM_F_DUMP);
	req_u32(&r, SNODE_A_LINK_DEV_INDEX, c->dev.index);
	ret = nl_do(&c->nl, &r, BUF_LEN, link_cb, t);
	if (!ret && t->n != c->dev.nports)
		ret = -EPROTO;
	for (i = 0; !ret && i < t->n; i++)
		c->link[i] = t->link[i];
	free(t);
	ret = ret ?: nl_own_threshold(c);
	if (ret)
		return ret;

	ret = nl_count(c, SNODE_NL_CMD_DEV_GET, 0) ?:
	      nl_count(c, SNODE_NL_CMD_LINK_GET, 0) ?:
	      nl_count(c, SNODE_NL_CMD_LINK_GET, 1) ?:
	      nl_count(c, SNODE_NL_CMD_NODE_GET, 0) ?:
	      nl_count(c, SNODE_NL_CMD_NODE_GET, 1) ?:
	      nl_count(c, SNODE_NL_CMD_WINDOW_GET, 0) ?:
	      nl_count(c, SNODE_NL_CMD_WINDOW_GET, 1) ?:
	      nl_count(c, SNODE_NL_CMD_ENDPOINT_GET, 0) ?:
	      nl_count(c, SNODE_NL_CMD_ENDPOINT_GET, 1) ?:
	      nl_count(c, SNODE_NL_CMD_QUEUE_GET, 0) ?:
	      nl_count(c, SNODE_NL_CMD_QUEUE_GET, 1) ?:
	      nl_count(c, SNODE_NL_CMD_STATS_GET, 0);
	if (ret)
		return ret;
	memset(nl_buf, 0, sizeof(nl_buf));
	stack_touch();
	return 0;
}

/*
 * Close the operation's socket (a dump a fault cut short may still be
 * running on it) and wait, on another, until the last port is back in the
 * state it had: a LINK_RESET retrains it, even one whose ack was lost.
 */
static void nl_unprep(struct ctx *c)
{
	struct nl nl;

	close(c->nl.fd);
	if (nl_open(&nl))
		return;
	nl.family = c->nl.family;
	wait_oper(&nl, c->dev.index, c->port, c->link[c->port].oper, 10000);
	close(nl.fd);
}

/* Undo what a successful operation made (no faults armed). */
static void undo(struct ctx *c)
{
	char drain[4096];

	if (c->new_fd >= 0)
		close(c->new_fd);
	c->new_fd = -1;
	if (c->new_alloc != UINT64_MAX)
		do_free(c->fd, c->new_alloc);
	c->new_alloc = UINT64_MAX;
	if (c->new_export != UINT32_MAX)
		do_unexport(c->fd, c->new_export);
	c->new_export = UINT32_MAX;
	if (c->ep_fd >= 0)
		while (read(c->ep_fd, drain, sizeof(drain)) > 0)
			;
}

static int prep(struct ctx *c, unsigned int what)
{
	int ret;

	memset(c, 0, sizeof(*c));
	c->fd = c->import_fd = c->ep_fd = c->dma_fd = c->new_fd = -1;
	c->nl.fd = -1;
	c->new_alloc = UINT64_MAX;
	c->new_export = UINT32_MAX;
	c->fd = open(SNODE_DEV, O_RDWR);
	if (c->fd < 0)
		return -errno;
	{
		struct snode_info i = { .size = sizeof(i) };

		if (ioctl(c->fd, SNODE_IOCTL_INFO, &i))
			return -errno;
		c->node = i.out_node_id;
	}
	if (what & (P_ALLOC | P_EXPORT | P_IMPORT)) {
		ret = do_alloc(c->fd, SZ_2M, &c->alloc);
		if (ret)
			return ret;
		c->have_alloc = 1;
	}
	if (what & (P_EXPORT | P_IMPORT)) {
		ret = do_export(c, &c->export_id);
		if (ret)
			return ret;
		c->have_export = 1;
	}
	if (what & P_IMPORT) {
		ret = do_import(c, &c->import_fd);
		if (ret)
			return ret;
	}
	if (what & P_EP) {
		ret = do_ep_alloc(c->fd, &c->ep_fd, &c->ep_id);
		if (ret)
			return ret;
	}
	if (what & P_DMA) {
		ret = do_dma_open(c->fd, &c->dma_fd);
		if (ret)
			return ret;
		c->buf = mmap(NULL, SZ_4K, PROT_READ | PROT_WRITE,
			      MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (c->buf == MAP_FAILED)
			return -errno;
	}
	if (what & P_NL) {
		ret = nl_prep(c);
		if (ret)
			return ret;
	}
	return 0;
}

/* Releasing the file releases all it owns; each step also by itself. */
static void unprep(struct ctx *c)
{
	if (c->nl.fd >= 0)
		nl_unprep(c);
	if (c->buf && c->buf != MAP_FAILED)
		munmap(c->buf, SZ_4K);
	if (c->dma_fd >= 0)
		close(c->dma_fd);
	if (c->ep_fd >= 0)
		close(c->ep_fd);
	if (c->import_fd >= 0)
		close(c->import_fd);
	if (c->have_export)
		do_unexport(c->fd, c->export_id);
	if (c->have_alloc)
		do_free(c->fd, c->alloc);
	if (c->fd >= 0)
		close(c->fd);
}

/* ---- the sweep ---------------------------------------------------------------------- */

static void log_links(struct __test_metadata *_metadata,
		      const struct node_state *a, const struct node_state *b)
{
	unsigned int i;

	TH_LOG("NIC threshold %llu->%llu, %u->%u ports",
	       (unsigned long long)a->dev_threshold,
	       (unsigned long long)b->dev_threshold, a->nports, b->nports);
	for (i = 0; i < NTH_PORTS; i++)
		if (a->admin[i] != b->admin[i] || a->oper[i] != b->oper[i] ||
		    a->threshold[i] != b->threshold[i])
			TH_LOG("port %u: admin %u->%u oper %u->%u threshold %llu->%llu",
			       i, a->admin[i], b->admin[i], a->oper[i], b->oper[i],
			       (unsigned long long)a->threshold[i],
			       (unsigned long long)b->threshold[i]);
}

FIXTURE(fail_nth) {
	struct node_state base;
	int ctl;		/* /dev/snode0 for the state, not used by ops */
	struct nl nl;		/* likewise, for the netlink side of it */
	struct dev_ent dev;	/* snode0 */
};

FIXTURE_VARIANT(fail_nth) {
	int (*op)(struct ctx *c);
	unsigned int prep;
	int admin;		/* the fail_admin sweep instead of fail-nth */
	int timeout;		/* with fail_admin_timeout: commands time out */
	int nl;			/* a netlink operation */
};

#define OP(_name, _op, _prep)						\
	FIXTURE_VARIANT_ADD(fail_nth, _name) {				\
		.op = _op, .prep = _prep,				\
	};								\
	FIXTURE_VARIANT_ADD(fail_nth, _name##_admin) {			\
		.op = _op, .prep = _prep, .admin = 1,			\
	};								\
	FIXTURE_VARIANT_ADD(fail_nth, _name##_timeout) {		\
		.op = _op, .prep = _prep, .admin = 1, .timeout = 1,	\
	}

OP(open, op_open, 0);
OP(info, op_info, 0);
OP(mem_alloc_4k, op_mem_alloc_4k, 0);
OP(mem_alloc_2m, op_mem_alloc_2m, 0);
OP(mem_free, op_mem_free, P_ALLOC);
OP(mem_export, op_mem_export, P_ALLOC);
OP(mem_unexport, op_mem_unexport, P_EXPORT);
OP(mem_import, op_mem_import, P_EXPORT);
OP(import_status, op_import_status, P_IMPORT);
OP(ep_alloc, op_ep_alloc, 0);
OP(msg_send, op_msg_send, P_EP);
OP(msg_send_from_ep, op_msg_send_ep, P_EP);
OP(dma_open, op_dma_open, 0);
OP(dma_to_global, op_dma_to_global, P_IMPORT | P_DMA);
OP(dma_from_global, op_dma_from_global, P_IMPORT | P_DMA);

/* the operations of the netlink family, each on a socket of its own */
#define NL_OP(_name, _op, _prep)					\
	FIXTURE_VARIANT_ADD(fail_nth, _name) {				\
		.op = _op, .prep = (_prep) | P_NL, .nl = 1,		\
	};								\
	FIXTURE_VARIANT_ADD(fail_nth, _name##_admin) {			\
		.op = _op, .prep = (_prep) | P_NL, .nl = 1, .admin = 1,	\
	};								\
	FIXTURE_VARIANT_ADD(fail_nth, _name##_timeout) {		\
		.op = _op, .prep = (_prep) | P_NL, .nl = 1, .admin = 1,	\
		.timeout = 1,						\
	}

NL_OP(nl_dev_get, op_nl_dev_get, 0);
NL_OP(nl_dev_dump, op_nl_dev_dump, 0);
NL_OP(nl_link_get, op_nl_link_get, 0);
NL_OP(nl_link_dump, op_nl_link_dump, 0);
NL_OP(nl_link_dump_dev, op_nl_link_dump_dev, 0);
NL_OP(nl_node_get, op_nl_node_get, 0);
NL_OP(nl_node_dump, op_nl_node_dump, 0);
NL_OP(nl_node_dump_dev, op_nl_node_dump_dev, 0);
NL_OP(nl_window_dump, op_nl_window_dump, P_IMPORT);
NL_OP(nl_window_dump_dev, op_nl_window_dump_dev, P_IMPORT);
NL_OP(nl_endpoint_dump, op_nl_endpoint_dump, P_EP | P_DMA);
NL_OP(nl_endpoint_dump_dev, op_nl_endpoint_dump_dev, P_EP | P_DMA);
NL_OP(nl_queue_dump, op_nl_queue_dump, P_EP | P_DMA);
NL_OP(nl_queue_dump_dev, op_nl_queue_dump_dev, P_EP | P_DMA);
NL_OP(nl_stats_get, op_nl_stats_get, 0);
NL_OP(nl_stats_dump, op_nl_stats_dump, 0);
NL_OP(nl_dev_set, op_nl_dev_set, 0);
NL_OP(nl_link_set, op_nl_link_set, 0);
NL_OP(nl_link_reset, op_nl_link_reset, 0);
NL_OP(nl_link_clear, op_nl_link_clear, 0);

FIXTURE_SETUP(fail_nth)
{
	struct snode_info info = { .size = sizeof(info) };

	self->ctl = -1;
	self->nl.fd = -1;
	if (access("/proc/self/fail-nth", F_OK))
		SKIP(return, "no fault injection in this kernel (the debug kernel has it)");
	if (access(FAIL_ADMIN, F_OK))
		SKIP(return, "no %s (snode.ko without CONFIG_FAULT_INJECTION_DEBUG_FS)",
		     FAIL_ADMIN);
	/* the same module creates both: one without the other is a bug */
	ASSERT_EQ(0, access(FAIL_ADMIN_TIMEOUT, F_OK));
	self->ctl = open(SNODE_DEV, O_RDWR);
	ASSERT_LE(0, self->ctl);
	ASSERT_EQ(0, ioctl(self->ctl, SNODE_IOCTL_INFO, &info));
	if (info.out_node_id == SNODE_NODE_ID_NONE)
		SKIP(return, "the NIC is not attached to a fabric");
	ASSERT_EQ(0, faults_setup(_metadata));
	if (nth_fd < 0)
		nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	ASSERT_LE(0, nth_fd);
	ASSERT_EQ(0, nl_open(&self->nl));
	ASSERT_EQ(0, nl_resolve(&self->nl));
	ASSERT_EQ(0, nl_snode0(&self->nl, &self->dev));
	ASSERT_EQ(0, node_state(self->ctl, &self->nl, self->dev.index,
				&self->base));
}

FIXTURE_TEARDOWN(fail_nth)
{
	if (self->ctl >= 0)
		close(self->ctl);
	if (self->nl.fd >= 0)
		close(self->nl.fd);
}

/*
 * ENOBUFS, for netlink operations only, is how the socket layer reports an
 * skb it could not allocate, before or after the driver's part, which is
 * then whole or not begun: netlink_sendmsg() fails the send with it when
 * the request's skb cannot be had; netlink_ack() that cannot allocate the
 * ack makes it the socket's error, which the next recv() returns (even
 * after a do whose reply is queued, or an admin operation that was
 * applied); and a dump whose skb cannot be had ends with it, in the
 * request's NLMSG_ERROR or as the socket's error on the recv() that would
 * have continued it. EMSGSIZE is not accepted: a dump skb that cannot be
 * had at the reader's size is allocated at NLMSG_GOODSIZE, which holds any
 * message of the family, so a fault never leaves an entry without room.
 */
static int clean_errno(int err, int nl)
{
	return err == -ENOMEM || err == -EIO || err == -ETIMEDOUT ||
	       (nl && err == -ENOBUFS);
}

TEST_F_TIMEOUT(fail_nth, sweep, 1800)
{
	unsigned int n, hits = 0, reconciled = 0, waited;
	uint64_t t0 = now_ms();
	struct node_state now;
	struct ctx c;
	int ret, hit;

	/* the 6.1 harness runs the body after a SKIP in the setup */
	if (snode_test_skipped(_metadata))
		return;
	for (n = 1; n <= MAX_NTH; n++) {
		ASSERT_EQ(0, prep(&c, variant->prep)) TH_LOG("prep for n=%u", n);
		if (variant->admin)
			admin_arm(n, variant->timeout);
		else
			nth_arm(n);
		ret = variant->op(&c);
		hit = variant->admin ? admin_disarm() : nth_disarm();
		if (!hit) {
			/* the n-th point was not reached: a plain call */
			EXPECT_EQ(0, ret) TH_LOG("n=%u: %s without a fault",
						 n, strerror(-ret));
		} else {
			hits++;
			EXPECT_TRUE(!ret || clean_errno(ret, variant->nl))
				TH_LOG("n=%u: failed with %s", n, strerror(-ret));
		}
		if (!ret)
			undo(&c);
		unprep(&c);
		ASSERT_EQ(0, node_state(self->ctl, &self->nl, self->dev.index,
					&now));
		/* what a timeout left stale, the reconcile clears, no reset */
		for (waited = 0; variant->timeout && hit &&
		     memcmp(&self->base, &now, sizeof(now)) &&
		     waited < RECONCILE_MS; waited += 20) {
			usleep(20000);
			ASSERT_EQ(0, node_state(self->ctl, &self->nl,
						self->dev.index, &now));
		}
		if (waited)
			reconciled++;
		EXPECT_EQ(0, memcmp(&self->base, &now, sizeof(now)))
			TH_LOG("n=%u (%s): left behind: allocs %u->%u exports %u->%u imports %u->%u att %u->%u eps %u->%u dmaq %u->%u free %llu->%llu",
			       n, hit ? strerror(-ret) : "no fault",
			       self->base.mem[1], now.mem[1], self->base.mem[2], now.mem[2],
			       self->base.mem[3], now.mem[3], self->base.mem[4], now.mem[4],
			       self->base.msg[1], now.msg[1], self->base.msg[2], now.msg[2],
			       (unsigned long long)self->base.pool_free,
			       (unsigned long long)now.pool_free);
		if (memcmp(&self->base, &now, sizeof(now)))
			log_links(_metadata, &self->base, &now);
		if (!hit || !snode_test_passed(_metadata))
			break;
	}
	ASSERT_GT(MAX_NTH + 1, n) TH_LOG("still failing after %u faults", MAX_NTH);
	/* the time of each sweep, for the debug lane's budget */
	if (variant->timeout)
		TH_LOG("%u timeout(s) injected, %u left entries to reconcile, then the call succeeded (%llu ms)",
		       hits, reconciled, (unsigned long long)(now_ms() - t0));
	else
		TH_LOG("%u fault(s) injected, then the call succeeded (%llu ms)",
		       hits, (unsigned long long)(now_ms() - t0));
}


TEST_HARNESS_MAIN
