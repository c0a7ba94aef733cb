// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libsnode collectives: a communicator of one process per node, and
 * allreduce, broadcast, barrier and all-to-all over it
 * (Documentation/decisions/0033-collectives.md).
 *
 * Every member exports one region of its pool: a control page with its
 * own two words, "seq" and "done", and two sets of slots, one per member.
 * Each imports and maps every peer's region. A collective is a series of
 * steps; in a step every member copies what it has for peer p into slot p
 * of its own region (or, when every peer gets the same, once into its own
 * slot), stores the step's number into its seq word, and polls every
 * peer's seq word through that peer's window until all reached the step;
 * then each reads (and reduces) what is for it straight from the peers'
 * windows. Steps alternate between the two sets: a member rewrites set s
 * in step k only after every peer's seq of step k - 1, which a peer
 * stores after it consumed step k - 2, the last use of set s; so no slot
 * needs an acknowledgement of its own. At the end of a collective each
 * member stores its last step into its done word; snode_comm_free() waits
 * until every peer's done word reached its own last step, so that nobody
 * still reads a region that is going away.
 *
 * The CPU stores only into its own memory and only loads from peers'
 * (imports are read-only and mapped with SNODE_IMPORT_ZERO_PAGE_ON_REVOKE,
 * so a load after a revocation reads zeros): a revoked window is an error
 * return, never a SIGBUS. A collective checks for revocations once its
 * reads are done, so data read as zeros from a dying peer is never
 * reported as a result.
 *
 * Messages carry only the setup: each member sends its export's handle to
 * every other member's endpoint. A wait polls the words, sleeping in
 * ppoll() on the peers' import descriptors, which wake on revocation: a
 * dead peer, whose exports the kernel withdraws, ends a wait at once with
 * -EPIPE; everything else ends at the timeout with -ETIMEDOUT.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "private.h"

#define COLL_MAGIC		0x534e4331U	/* "SNC1" */
#define COLL_SEQ		0		/* control page: my last step */
#define COLL_DONE		64		/* my last step whose data I read */
#define COLL_CTRL_LEN		4096ULL
#define COLL_SLOT_MAX		(1ULL << 20)
#define COLL_SLOT_MIN		4096ULL
#define COLL_REGION_BUDGET	(32ULL << 20)	/* default: both sets of slots */
#define COLL_TIMEOUT_MS		30000U
#define COLL_SPINS		256
#define COLL_SLEEP_MIN_NS	20000L
#define COLL_SLEEP_MAX_NS	1000000L
/* below this, bcast sends the whole buffer from the root in one step */
#define COLL_BCAST_DIRECT	(64U << 10)
#define COLL_NONE		0xffffffffU

#if defined(__x86_64__) || defined(__i386__)
#define lsn_cpu_relax()	__builtin_ia32_pause()
#else
#define lsn_cpu_relax()	__asm__ __volatile__("" ::: "memory")
#endif

/* The setup message: one per ordered pair of members. */
struct coll_hello {
	uint32_t magic;
	uint16_t rank;
	uint16_t n;
	uint32_t hash;		/* of the node list, slot size and order flag */
	uint32_t export_id;
	uint64_t key;
	uint32_t rack;		/* COLL_NONE: not reported */
	uint32_t sw;
};

struct coll_out {
	const void *ptr;
	uint64_t len;
};

struct snode_comm {
	struct snode_dev *dev;
	unsigned int n, rank;
	unsigned int pos;		/* of rank in order[] */
	unsigned int timeout_ms;
	unsigned int flags;
	uint64_t slot;			/* bytes per peer and set */
	uint64_t ctrl_len, region_len;
	uint32_t nodes[SNODE_COMM_MAX_RANKS];
	unsigned int order[SNODE_COMM_MAX_RANKS];	/* ranks, topology order */
	uint32_t rack[SNODE_COMM_MAX_RANKS], sw[SNODE_COMM_MAX_RANKS];
	struct snode_mem *mem;
	uint8_t *local;			/* my region */
	struct snode_handle handle;	/* its export */
	int exported;
	struct snode_import *imp[SNODE_COMM_MAX_RANKS];
	const uint8_t *win[SNODE_COMM_MAX_RANKS];	/* peers' regions */
	struct pollfd pfd[SNODE_COMM_MAX_RANKS];
	/* per peer; out[rank]: the same for every peer, sent once */
	struct coll_out out[SNODE_COMM_MAX_RANKS];
	uint64_t seq;			/* steps done */
	int broken;			/* the error that broke it, or 0 */
};

/* ---- helpers shared with the host unit test ------------------------------- */

/* T the element, A the type sums and products are taken in (they wrap) */
#define COLL_REDUCE(T, A)						\
static void coll_reduce_##T(void *dst, const void *src, size_t count,	\
			    unsigned int op)				\
{									\
	T *restrict d = dst;						\
	const T *restrict s = src;					\
	size_t i;							\
									\
	switch (op) {							\
	case SNODE_COLL_SUM:						\
		for (i = 0; i < count; i++)				\
			d[i] = (T)((A)d[i] + (A)s[i]);			\
		break;							\
	case SNODE_COLL_PROD:						\
		for (i = 0; i < count; i++)				\
			d[i] = (T)((A)d[i] * (A)s[i]);			\
		break;							\
	case SNODE_COLL_MIN:						\
		for (i = 0; i < count; i++)				\
			d[i] = s[i] < d[i] ? s[i] : d[i];		\
		break;							\
	case SNODE_COLL_MAX:						\
		for (i = 0; i < count; i++)				\
			d[i] = s[i] > d[i] ? s[i] : d[i];		\
		break;							\
	}								\
}									\
/* sums of three sources in one pass: one load and store of d, not 3 */ \
static void coll_sum3_##T(void *dst, const void *src_a,		\
			  const void *src_b, const void *src_c,		\
			  size_t count)					\
{									\
	T *restrict d = dst;						\
	const T *restrict a = src_a, *restrict b = src_b;		\
	const T *restrict c = src_c;					\
	size_t i;							\
									\
	for (i = 0; i < count; i++)					\
		d[i] = (T)((A)d[i] + (A)a[i] + (A)b[i] + (A)c[i]);	\
}
COLL_REDUCE(int32_t, uint32_t)
COLL_REDUCE(uint32_t, uint32_t)
COLL_REDUCE(int64_t, uint64_t)
COLL_REDUCE(uint64_t, uint64_t)
COLL_REDUCE(float, float)
COLL_REDUCE(double, double)

/* enum snode_coll_type: element size and reductions */
static const struct coll_type {
	size_t size;
	void (*reduce)(void *dst, const void *src, size_t count,
		       unsigned int op);
	void (*sum3)(void *dst, const void *a, const void *b, const void *c,
		     size_t count);
} coll_types[] = {
	[SNODE_COLL_INT32] = { 4, coll_reduce_int32_t, coll_sum3_int32_t },
	[SNODE_COLL_UINT32] = { 4, coll_reduce_uint32_t, coll_sum3_uint32_t },
	[SNODE_COLL_INT64] = { 8, coll_reduce_int64_t, coll_sum3_int64_t },
	[SNODE_COLL_UINT64] = { 8, coll_reduce_uint64_t, coll_sum3_uint64_t },
	[SNODE_COLL_FLOAT] = { 4, coll_reduce_float, coll_sum3_float },
	[SNODE_COLL_DOUBLE] = { 8, coll_reduce_double, coll_sum3_double },
};

static const struct coll_type *coll_type(unsigned int type)
{
	if (type >= sizeof(coll_types) / sizeof(coll_types[0]) ||
	    !coll_types[type].size)
		return NULL;
	return &coll_types[type];
}

size_t lsn_coll_type_size(unsigned int type)
{
	const struct coll_type *t = coll_type(type);

	return t ? t->size : 0;
}

/* dst[i] = dst[i] op src[i]; 0, or -EINVAL for an unknown type or op */
int lsn_coll_reduce(void *dst, const void *src, size_t count,
		    unsigned int type, unsigned int op)
{
	const struct coll_type *t = coll_type(type);

	if (!t || op < SNODE_COLL_SUM || op > SNODE_COLL_MAX)
		return -EINVAL;
	t->reduce(dst, src, count, op);
	return 0;
}

/* dst = dst op srcs[0] op ... op srcs[nsrc - 1], sums three at a time */
static void coll_reduce_all(void *dst, const void *const *srcs,
			    unsigned int nsrc, size_t count, unsigned int type,
			    unsigned int op)
{
	const struct coll_type *t = coll_type(type);
	unsigned int i = 0;

	for (; op == SNODE_COLL_SUM && i + 3 <= nsrc; i += 3)
		t->sum3(dst, srcs[i], srcs[i + 1], srcs[i + 2], count);
	for (; i < nsrc; i++)
		t->reduce(dst, srcs[i], count, op);
}

/*
 * Block @b of @count items split over @n members: the first count % n
 * blocks have one item more. Sets *@start and returns the block's length.
 */
size_t lsn_coll_block(size_t count, unsigned int n, unsigned int b,
		      size_t *start)
{
	size_t q = count / n, r = count % n;

	*start = b * q + (b < r ? b : r);
	return q + (b < r);
}

/*
 * Ranks in topology order: by rack, then by the switch delivering to the
 * node, then by node id, so members behind one switch are adjacent and
 * each member starts its exchanges with its neighbours there.
 */
void lsn_coll_order(unsigned int n, const uint32_t *nodes,
		    const uint32_t *rack, const uint32_t *sw,
		    unsigned int *order)
{
	unsigned int i, j, t;

	for (i = 0; i < n; i++)
		order[i] = i;
	if (!rack || !sw)
		return;
	/* insertion sort: n <= SNODE_COMM_MAX_RANKS, once per communicator */
	for (i = 1; i < n; i++) {
		for (j = i; j > 0; j--) {
			unsigned int a = order[j - 1], b = order[j];

			if (rack[a] < rack[b] ||
			    (rack[a] == rack[b] && (sw[a] < sw[b] ||
			     (sw[a] == sw[b] && nodes[a] <= nodes[b]))))
				break;
			t = order[j - 1];
			order[j - 1] = order[j];
			order[j] = t;
		}
	}
}

/* ---- setup ------------------------------------------------------------------ */

static uint64_t coll_now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

static uint32_t coll_hash(const struct snode_comm *c)
{
	uint32_t h = 2166136261U;
	const uint8_t *p = (const uint8_t *)c->nodes;
	size_t i;

	for (i = 0; i < c->n * sizeof(c->nodes[0]); i++)
		h = (h ^ p[i]) * 16777619U;
	h = (h ^ (uint32_t)(c->slot >> 12)) * 16777619U;
	return (h ^ (c->flags & SNODE_COMM_LIST_ORDER)) * 16777619U;
}

static int coll_params(struct snode_comm *c, const uint32_t *nodes,
		       unsigned int n, const struct snode_comm_params *in,
		       size_t size, struct snode_comm_params *p)
{
	unsigned int i, j;
	size_t k;

	memset(p, 0, sizeof(*p));
	if (in) {
		if (size < offsetof(struct snode_comm_params, slot_size) +
			   sizeof(p->slot_size))
			return -EINVAL;
		/* a newer caller's tail must be what we would do anyway */
		for (k = sizeof(*p); k < size; k++)
			if (((const uint8_t *)in)[k])
				return -E2BIG;
		memcpy(p, in, sizeof(*p));
	}
	if (p->flags & ~SNODE_COMM_LIST_ORDER || p->__reserved)
		return -EINVAL;
	if (p->slot_size % COLL_SLOT_MIN || p->slot_size > (256ULL << 20))
		return -EINVAL;
	for (i = 0; i < n; i++)
		for (j = 0; j < i; j++)
			if (nodes[i] == nodes[j])
				return -EINVAL;
	if (!p->ep_id)
		p->ep_id = SNODE_COMM_EP_DEFAULT;
	if (!p->timeout_ms)
		p->timeout_ms = COLL_TIMEOUT_MS;
	if (!p->slot_size) {
		p->slot_size = COLL_REGION_BUDGET / (2 * n) & ~(COLL_SLOT_MIN - 1);
		if (p->slot_size > COLL_SLOT_MAX)
			p->slot_size = COLL_SLOT_MAX;
		if (p->slot_size < COLL_SLOT_MIN)
			p->slot_size = COLL_SLOT_MIN;
	}
	c->timeout_ms = p->timeout_ms;
	c->flags = p->flags;
	c->slot = p->slot_size;
	return 0;
}

/* This node's rank, and the rack and switch the fabric reports for it. */
static int coll_self(struct snode_comm *c)
{
	struct snode_ctx *ctx = snode_dev_get_ctx(c->dev);
	unsigned int dev_index = (unsigned int)snode_dev_get_index(c->dev);
	const struct snode_link_info *li;
	struct snode_link_iter *it;
	struct snode_node_info ni;
	struct snode_info info;
	unsigned int r;
	int ret;

	ret = snode_dev_get_info(c->dev, &info, sizeof(info));
	if (ret < 0)
		return ret;
	/* a NIC not (yet) attached to the fabric has no node id */
	if (info.out_node_id == SNODE_NODE_ID_NONE) {
		lsn_err(ctx, "comm: %s is not attached to a fabric\n",
			snode_dev_get_name(c->dev));
		return -ENOLINK;
	}
	for (r = 0; r < c->n && c->nodes[r] != info.out_node_id; r++)
		;
	if (r == c->n) {
		lsn_err(ctx, "comm: this node (%u) is not in the list\n",
			info.out_node_id);
		return -EINVAL;
	}
	c->rank = r;
	c->rack[r] = COLL_NONE;
	c->sw[r] = COLL_NONE;
	if (c->flags & SNODE_COMM_LIST_ORDER)
		return 0;
	/*
	 * A NIC's node table may not list its own node; then the switch is
	 * the one its first working port is cabled to. No topology at all
	 * (no netlink family, an old kernel) sorts by node id.
	 */
	if (!snode_node_get(ctx, dev_index, info.out_node_id, &ni, sizeof(ni)) &&
	    ni.topo & SNODE_TOPO_HAS_SWITCH) {
		if (ni.topo & SNODE_TOPO_HAS_RACK)
			c->rack[r] = ni.rack;
		if (ni.topo & SNODE_TOPO_HAS_SWITCH)
			c->sw[r] = ni.switch_id;
		return 0;
	}
	if (snode_link_list(ctx, (int)dev_index, sizeof(*li), &it) < 0)
		return 0;
	snode_link_iter_foreach(it, li) {
		if (li->oper_state == SNODE_LINK_OPER_STATE_UP &&
		    li->peer_switch != SNODE_NONE) {
			c->sw[r] = li->peer_switch;
			break;
		}
	}
	snode_link_iter_free(it);
	return 0;
}

static void coll_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (long)(ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

/* Send my hello to every peer: they may not have their endpoint yet. */
static int coll_send_hellos(struct snode_comm *c, struct snode_ep *ep,
			    uint64_t key, uint32_t ep_id, uint64_t deadline)
{
	struct coll_hello h = {
		.magic = COLL_MAGIC,
		.rank = (uint16_t)c->rank,
		.n = (uint16_t)c->n,
		.hash = coll_hash(c),
		.export_id = c->handle.export_id,
		.key = c->handle.key,
		.rack = c->rack[c->rank],
		.sw = c->sw[c->rank],
	};
	unsigned int i;
	int ret;

	for (i = 0; i < c->n; i++) {
		struct snode_ep_addr dst = { c->nodes[i], ep_id, key };

		if (i == c->rank)
			continue;
		for (;;) {
			ret = snode_ep_send(ep, &dst, &h, sizeof(h), 0, 1000);
			if (ret != -ENXIO && ret != -EAGAIN &&
			    ret != -ETIMEDOUT)
				break;
			if (coll_now_ms() >= deadline)
				return -ETIMEDOUT;
			coll_sleep_ms(20);
		}
		if (ret < 0)
			return ret;
	}
	return 0;
}

static int coll_recv_hellos(struct snode_comm *c, struct snode_ep *ep,
			    uint64_t deadline)
{
	struct snode_handle h;
	struct snode_msg msgs[8];
	unsigned int got = 0, i;
	void *addr;
	uint64_t now;
	int m, ret;

	while (got < c->n - 1) {
		now = coll_now_ms();
		if (now >= deadline)
			return -ETIMEDOUT;
		m = snode_ep_recv(ep, msgs, 8, (int)(deadline - now));
		if (m < 0)
			return m;
		for (i = 0; i < (unsigned int)m; i++) {
			struct coll_hello hello;
			unsigned int r;

			if (msgs[i].len != sizeof(hello))
				return -EPROTO;
			memcpy(&hello, msgs[i].payload, sizeof(hello));
			r = hello.rank;
			if (hello.magic != COLL_MAGIC || hello.n != c->n ||
			    r >= c->n || r == c->rank ||
			    c->nodes[r] != msgs[i].src_node || c->imp[r])
				return -EPROTO;
			/* another node list, slot size or order: not ours */
			if (hello.hash != coll_hash(c)) {
				lsn_err(snode_dev_get_ctx(c->dev),
					"comm: node %u set up another list, slot size or order\n",
					c->nodes[r]);
				return -EINVAL;
			}
			c->rack[r] = hello.rack;
			c->sw[r] = hello.sw;
			h = (struct snode_handle){ c->nodes[r], hello.export_id,
						   hello.key };
			ret = snode_import(c->dev, &h, 0, c->region_len,
					   SNODE_IMPORT_ZERO_PAGE_ON_REVOKE,
					   &c->imp[r]);
			if (ret < 0)
				return ret;
			ret = snode_import_map(c->imp[r], &addr);
			if (ret < 0) {
				lsn_err(snode_dev_get_ctx(c->dev),
					"comm: mapping node %u's region: %s\n",
					c->nodes[r], strerror(-ret));
				return ret;
			}
			c->win[r] = addr;
			c->pfd[r].fd = snode_import_get_fd(c->imp[r]);
			got++;
		}
	}
	return 0;
}

static int coll_region(struct snode_comm *c)
{
	void *addr;
	int ret;

	c->ctrl_len = COLL_CTRL_LEN;
	c->region_len = c->ctrl_len + 2 * (uint64_t)c->n * c->slot;
	ret = snode_mem_alloc(c->dev, c->region_len, &c->mem);
	if (ret < 0)
		return ret;
	ret = snode_mem_map(c->mem, &addr);
	if (ret < 0) {
		lsn_err(snode_dev_get_ctx(c->dev), "comm: mapping the region: %s\n",
			strerror(-ret));
		return ret;
	}
	c->local = addr;
	/* the words start at 0: no step done */
	memset(c->local, 0, c->ctrl_len);
	ret = snode_export(c->mem, 0, c->region_len, SNODE_EXPORT_RANDOM_KEY,
			   0, c->nodes, c->n, &c->handle);
	if (ret < 0)
		return ret;
	c->exported = 1;
	return 0;
}

/* every peer's hello fits, in a power of two as the kernel wants */
static unsigned int coll_ep_entries(unsigned int n)
{
	unsigned int e = 16;

	while (e < n + 8)
		e *= 2;
	return e;
}

SNODE_EXPORT int snode_comm_new(struct snode_dev *dev, const uint32_t *nodes,
				unsigned int n,
				const struct snode_comm_params *params,
				size_t params_size, struct snode_comm **out)
{
	struct snode_comm_params p;
	struct snode_comm *c;
	struct snode_ep *ep = NULL;
	uint64_t deadline;
	unsigned int i;
	int ret;

	if (!dev || !nodes || !n || n > SNODE_COMM_MAX_RANKS || !out)
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->dev = dev;
	c->n = n;
	memcpy(c->nodes, nodes, n * sizeof(*nodes));
	for (i = 0; i < SNODE_COMM_MAX_RANKS; i++) {
		c->pfd[i].fd = -1;
		c->pfd[i].events = POLLIN | POLLPRI;
	}
	ret = coll_params(c, nodes, n, params, params_size, &p);
	if (ret < 0)
		goto err;
	deadline = coll_now_ms() + c->timeout_ms;
	/* the rank is where this node is in the list */
	ret = coll_self(c);
	if (ret < 0)
		goto err;
	ret = coll_region(c);
	if (ret < 0)
		goto err;
	if (n > 1) {
		ret = snode_ep_new(dev, p.ep_id, coll_ep_entries(n), 0, p.key,
				   &ep);
		if (ret < 0)
			goto err;
		ret = coll_send_hellos(c, ep, p.key, p.ep_id, deadline);
		if (ret < 0)
			goto err;
		ret = coll_recv_hellos(c, ep, deadline);
		if (ret < 0)
			goto err;
		/* every peer's hello is in: nobody sends to it any more */
		snode_ep_free(ep);
		ep = NULL;
	}
	lsn_coll_order(n, c->nodes, c->flags & SNODE_COMM_LIST_ORDER ?
		       NULL : c->rack, c->sw, c->order);
	for (i = 0; i < n; i++)
		if (c->order[i] == c->rank)
			c->pos = i;
	for (i = 0; i < n; i++)
		lsn_dbg(snode_dev_get_ctx(dev),
			"comm: rank %u of %u: order %u: rank %u node %u rack %d switch %d\n",
			c->rank, n, i, c->order[i], c->nodes[c->order[i]],
			(int)c->rack[c->order[i]], (int)c->sw[c->order[i]]);
	*out = c;
	return 0;
err:
	snode_ep_free(ep);
	snode_comm_free(c);
	return ret;
}

static int coll_wait(struct snode_comm *c, uint64_t word, uint64_t seq,
		     int leaving);

SNODE_EXPORT int snode_comm_free(struct snode_comm *c)
{
	unsigned int i;
	int ret = 0, r;

	if (!c)
		return 0;
	/* nobody may still poll my seq word when my region goes */
	if (c->seq && !c->broken)
		coll_wait(c, COLL_DONE, c->seq, 1);
	for (i = 0; i < c->n; i++)
		snode_import_close(c->imp[i]);
	if (c->exported) {
		r = snode_unexport(c->dev, &c->handle);
		if (r < 0)
			ret = r;
	}
	if (c->mem) {
		r = snode_mem_free(c->mem);
		if (r < 0 && !ret)
			ret = r;
	}
	free(c);
	return ret;
}

SNODE_EXPORT int snode_comm_get_rank(struct snode_comm *c)
{
	return c ? (int)c->rank : -EINVAL;
}

SNODE_EXPORT int snode_comm_get_size(struct snode_comm *c)
{
	return c ? (int)c->n : -EINVAL;
}

/* ---- one step --------------------------------------------------------------- */

/* @word (COLL_SEQ or COLL_DONE) of member @r: mine, or a peer's window */
static volatile uint64_t *coll_word(struct snode_comm *c, unsigned int r,
				    uint64_t word)
{
	return (volatile uint64_t *)((r == c->rank ? c->local : c->win[r]) +
				     word);
}

static uint64_t coll_slot_off(const struct snode_comm *c, unsigned int set,
			      unsigned int src)
{
	return c->ctrl_len + ((uint64_t)set * c->n + src) * c->slot;
}

/* What @src left for me in the step just done, in its window. */
static const void *coll_slot(struct snode_comm *c, unsigned int src)
{
	return c->win[src] + coll_slot_off(c, c->seq & 1, c->rank);
}

/* What @src left for everyone in the step just done. */
static const void *coll_slot_all(struct snode_comm *c, unsigned int src)
{
	return c->win[src] + coll_slot_off(c, c->seq & 1, src);
}

/* The i-th peer to exchange with: my successors in topology order. */
static unsigned int coll_peer(const struct snode_comm *c, unsigned int i)
{
	return c->order[(c->pos + i) % c->n];
}

/*
 * Until every peer's @word reached @seq, or the deadline. A revoked
 * window is a dead peer (-EPIPE), except when @leaving: a peer that left
 * first had seen my done word.
 */
static int coll_wait(struct snode_comm *c, uint64_t word, uint64_t seq,
		     int leaving)
{
	unsigned int i = 1, spins = 0, r;
	long sleep_ns = COLL_SLEEP_MIN_NS;
	uint8_t gone[SNODE_COMM_MAX_RANKS] = { 0 };
	uint64_t deadline = 0;
	int ret = 0, k;

	while (i < c->n) {
		r = coll_peer(c, i);
		if (gone[r] ||
		    __atomic_load_n(coll_word(c, r, word), __ATOMIC_ACQUIRE) >= seq) {
			i++;
			continue;
		}
		if (spins < COLL_SPINS) {
			spins++;
			lsn_cpu_relax();
			continue;
		}
		if (!deadline) {
			deadline = coll_now_ms() + c->timeout_ms;
		} else if (coll_now_ms() >= deadline) {
			ret = -ETIMEDOUT;
			break;
		}
		/* sleep, but wake at once if a peer's window is revoked */
		k = ppoll(c->pfd, c->n, &(struct timespec){ 0, sleep_ns }, NULL);
		if (k < 0 && errno != EINTR) {
			ret = -errno;
			break;
		}
		for (r = 0; k > 0 && r < c->n; r++) {
			struct snode_import_status st;

			if (c->pfd[r].fd < 0 || !c->pfd[r].revents)
				continue;
			if (snode_import_status(c->imp[r], &st, sizeof(st)) < 0 ||
			    st.out_state == SNODE_WINDOW_STATE_REVOKED) {
				ret = -EPIPE;
				if (!leaving)
					goto out;
				ret = 0;
				gone[r] = 1;
			}
			/* gone, or a spurious wake: stop polling it */
			c->pfd[r].fd = -1;
		}
		if (sleep_ns < COLL_SLEEP_MAX_NS)
			sleep_ns *= 2;
	}
out:
	/* poll every peer again in the next wait */
	for (r = 0; r < c->n; r++)
		c->pfd[r].fd = c->imp[r] ? snode_import_get_fd(c->imp[r]) : -1;
	return ret;
}

/*
 * One step: c->out[p] (at most a slot) for every peer p, or c->out[rank]
 * for all, then wait for every peer's. Afterwards coll_slot() and
 * coll_slot_all() point at what the peers left.
 */
static int coll_step(struct snode_comm *c)
{
	uint64_t seq = c->seq + 1;
	unsigned int p;
	int ret;

	for (p = 0; p < c->n; p++) {
		if (c->out[p].len)
			memcpy(c->local + coll_slot_off(c, seq & 1, p),
			       c->out[p].ptr, c->out[p].len);
		c->out[p].len = 0;
	}
	/* the slots before the word that announces them */
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(coll_word(c, c->rank, COLL_SEQ), seq, __ATOMIC_RELEASE);
	ret = coll_wait(c, COLL_SEQ, seq, 0);
	if (ret < 0) {
		c->broken = ret;
		lsn_err(snode_dev_get_ctx(c->dev), "comm: step %llu: %s\n",
			(unsigned long long)seq, strerror(-ret));
		return ret;
	}
	c->seq = seq;
	return 0;
}

/*
 * The end of a collective whose steps went well: a window revoked while
 * its data was read may have read as zeros, so a revocation now fails
 * the collective; then tell the peers this member is done reading.
 */
static int coll_finish(struct snode_comm *c, int ret)
{
	unsigned int r;

	if (ret < 0 || c->n == 1)
		return ret;
	if (ppoll(c->pfd, c->n, &(struct timespec){ 0, 0 }, NULL) > 0) {
		for (r = 0; r < c->n; r++) {
			struct snode_import_status st;

			if (c->pfd[r].fd < 0 || !c->pfd[r].revents)
				continue;
			if (snode_import_status(c->imp[r], &st, sizeof(st)) < 0 ||
			    st.out_state == SNODE_WINDOW_STATE_REVOKED) {
				c->broken = -EPIPE;
				lsn_err(snode_dev_get_ctx(c->dev),
					"comm: node %u's window was revoked\n",
					c->nodes[r]);
				return -EPIPE;
			}
		}
	}
	__atomic_store_n(coll_word(c, c->rank, COLL_DONE), c->seq,
			 __ATOMIC_RELEASE);
	return 0;
}

static int coll_usable(struct snode_comm *c)
{
	return c->broken ? -EPIPE : 0;
}

/* ---- collectives ------------------------------------------------------------ */

SNODE_EXPORT int snode_barrier(struct snode_comm *c)
{
	if (!c)
		return -EINVAL;
	if (c->broken)
		return -EPIPE;
	return c->n > 1 ? coll_finish(c, coll_step(c)) : 0;
}

/*
 * One allgather step over the blocks of @count items of @esz bytes at @b:
 * items [@off, @off + @seg) of my block once for everyone, the same of the
 * others' blocks in (unless !@take: a bcast's root has them all).
 */
static int coll_allgather(struct snode_comm *c, uint8_t *b, size_t count,
			  size_t esz, size_t off, size_t seg, int take)
{
	size_t start, len;
	unsigned int i, p;
	int ret;

	len = lsn_coll_block(count, c->n, c->rank, &start);
	len = len > off ? len - off : 0;
	c->out[c->rank].ptr = b + (start + off) * esz;
	c->out[c->rank].len = (len < seg ? len : seg) * esz;
	ret = coll_step(c);
	if (ret < 0 || !take)
		return ret;
	for (i = 1; i < c->n; i++) {
		p = coll_peer(c, i);
		len = lsn_coll_block(count, c->n, p, &start);
		len = len > off ? len - off : 0;
		len = len < seg ? len : seg;
		if (len)
			memcpy(b + (start + off) * esz, coll_slot_all(c, p),
			       len * esz);
	}
	return 0;
}

SNODE_EXPORT int snode_allreduce(struct snode_comm *c, void *buf,
				 size_t count, unsigned int type,
				 unsigned int op)
{
	size_t esz = lsn_coll_type_size(type), seg, segs, k, mine, my_start;
	const void *srcs[SNODE_COMM_MAX_RANKS];
	uint8_t *b = buf;
	unsigned int i, p;
	int ret;

	if (!c || !esz || op < SNODE_COLL_SUM || op > SNODE_COLL_MAX ||
	    (count && !buf) || count > SIZE_MAX / esz)
		return -EINVAL;
	ret = coll_usable(c);
	if (ret || !count || c->n == 1)
		return ret;
	seg = c->slot / esz;				/* items per step */
	mine = lsn_coll_block(count, c->n, c->rank, &my_start);
	segs = (lsn_coll_block(count, c->n, 0, &k) + seg - 1) / seg;
	for (k = 0; k < segs; k++) {
		size_t off = k * seg, start, len;

		/* reduce-scatter: block p's part to p, the others' of mine in */
		for (i = 1; i < c->n; i++) {
			p = coll_peer(c, i);
			len = lsn_coll_block(count, c->n, p, &start);
			len = len > off ? len - off : 0;
			c->out[p].ptr = b + (start + off) * esz;
			c->out[p].len = (len < seg ? len : seg) * esz;
		}
		ret = coll_step(c);
		if (ret < 0)
			return ret;
		len = mine > off ? mine - off : 0;
		len = len < seg ? len : seg;
		for (i = 1; i < c->n; i++)
			srcs[i - 1] = coll_slot(c, coll_peer(c, i));
		if (len)
			coll_reduce_all(b + (my_start + off) * esz, srcs,
					c->n - 1, len, type, op);

		/* allgather: my reduced part, once for everyone; theirs in */
		ret = coll_allgather(c, b, count, esz, off, seg, 1);
		if (ret < 0)
			return ret;
	}
	return coll_finish(c, 0);
}

/* Small buffers: the root sends the whole of each part to everyone. */
static int coll_bcast_direct(struct snode_comm *c, uint8_t *b, size_t len,
			     unsigned int root)
{
	size_t off, part;
	int ret;

	for (off = 0; off < len; off += c->slot) {
		part = len - off < c->slot ? len - off : c->slot;
		if (c->rank == root) {
			c->out[root].ptr = b + off;
			c->out[root].len = part;
		}
		ret = coll_step(c);
		if (ret < 0)
			return ret;
		if (c->rank != root)
			memcpy(b + off, coll_slot_all(c, root), part);
	}
	return coll_finish(c, 0);
}

SNODE_EXPORT int snode_bcast(struct snode_comm *c, void *buf, size_t len,
			     unsigned int root)
{
	size_t seg, segs, k, start, mine, my_start, part;
	uint8_t *b = buf;
	unsigned int i, p;
	int ret;

	if (!c || (len && !buf) || root >= c->n)
		return -EINVAL;
	ret = coll_usable(c);
	if (ret || !len || c->n == 1)
		return ret;
	if (len <= COLL_BCAST_DIRECT || c->n == 2)
		return coll_bcast_direct(c, b, len, root);
	/* large: scatter from the root, then allgather (van de Geijn) */
	seg = c->slot;
	mine = lsn_coll_block(len, c->n, c->rank, &my_start);
	segs = (lsn_coll_block(len, c->n, 0, &k) + seg - 1) / seg;
	for (k = 0; k < segs; k++) {
		size_t off = k * seg;

		for (i = 1; i < c->n && c->rank == root; i++) {
			p = coll_peer(c, i);
			part = lsn_coll_block(len, c->n, p, &start);
			part = part > off ? part - off : 0;
			c->out[p].ptr = b + start + off;
			c->out[p].len = part < seg ? part : seg;
		}
		ret = coll_step(c);
		if (ret < 0)
			return ret;
		part = mine > off ? mine - off : 0;
		part = part < seg ? part : seg;
		if (c->rank != root && part)
			memcpy(b + my_start + off, coll_slot(c, root), part);
		ret = coll_allgather(c, b, len, 1, off, seg, c->rank != root);
		if (ret < 0)
			return ret;
	}
	return coll_finish(c, 0);
}

SNODE_EXPORT int snode_alltoall(struct snode_comm *c, const void *sendbuf,
				void *recvbuf, size_t len)
{
	const uint8_t *s = sendbuf;
	uint8_t *d = recvbuf;
	size_t off, part;
	unsigned int i, p;
	int ret;

	if (!c || (len && (!sendbuf || !recvbuf)) || len > SIZE_MAX / c->n)
		return -EINVAL;
	/* the blocks of one would overwrite the other's before they are sent */
	if (len && s < d + len * c->n && d < s + len * c->n)
		return -EINVAL;
	ret = coll_usable(c);
	if (ret || !len)
		return ret;
	memcpy(d + c->rank * len, s + c->rank * len, len);
	for (off = 0; off < len; off += c->slot) {
		part = len - off < c->slot ? len - off : c->slot;
		for (i = 1; i < c->n; i++) {
			p = coll_peer(c, i);
			c->out[p].ptr = s + p * len + off;
			c->out[p].len = part;
		}
		ret = coll_step(c);
		if (ret < 0)
			return ret;
		for (i = 1; i < c->n; i++) {
			p = coll_peer(c, i);
			memcpy(d + p * len + off, coll_slot(c, p), part);
		}
	}
	return coll_finish(c, 0);
}
