/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snode: private header of the message engine (msg.c sends, ep.c and
 * ep_kernel.c receive).
 */
#ifndef _SNODE_MSG_H_
#define _SNODE_MSG_H_

#include <linux/interrupt.h>
#include <linux/types.h>
#include <linux/wait.h>

#include <linux/snode.h>

#include "snode.h"

#define SNODE_EP_ENTRIES_DEFAULT	256
/* A send spins this long for the device's answer before sleeping. */
#define SNODE_MSG_SPIN_US		200
/* ... reading MSG_STATUS this often (a PCIe read takes about as long). */
#define SNODE_MSG_SPIN_GAP_US		1
/* Retrying a send to a full ring: first and longest pause. */
#define SNODE_MSG_RETRY_MIN_US		20
#define SNODE_MSG_RETRY_MAX_US		1000
#define SNODE_MSG_TIMEOUT_DEFAULT_MS	1000
#define SNODE_MSG_TIMEOUT_MAX_MS	60000
#define SNODE_MSG_NR_VECS	(SNODE_VEC_EP_LAST - SNODE_VEC_EP_FIRST + 1)

struct snode_msg_dev;

/* Whether the device may hold an endpoint. */
enum snode_ep_hw {
	SNODE_EP_HW_NONE,	/* never set, or refused */
	SNODE_EP_HW_SET,	/* EP_SET succeeded */
	SNODE_EP_HW_UNKNOWN,	/* EP_SET timed out; it may turn valid */
};

/**
 * struct snode_msg_vec - one endpoint vector
 * @md: the device's message engine
 * @vector: MSI-X vector number, 3 to 7
 * @eps: live endpoints signalled by this vector (RCU list; writers hold
 *       &snode_msg_dev.lock)
 * @nr_eps: endpoint ids assigned to the vector (&snode_msg_dev.lock)
 */
struct snode_msg_vec {
	struct snode_msg_dev *md;
	unsigned int vector;
	struct list_head eps;
	unsigned int nr_eps;
};

/**
 * struct snode_ep_ring - an endpoint's receive ring in coherent memory
 * @slots: the ring
 * @tail: the word the device writes its producer index to, after @slots
 * @dma: bus address of @slots
 * @size: bytes allocated
 * @node: entry in &snode_msg_dev.stale while waiting to be freed
 */
struct snode_ep_ring {
	struct snode_msg_slot *slots;
	__le32 *tail;
	dma_addr_t dma;
	size_t size;
	struct list_head node;
};

/**
 * struct snode_ep - a receive endpoint
 * @md: the device's message engine
 * @sdev: the device; the endpoint holds a reference
 * @vec: the vector it signals
 * @vec_node: entry in &snode_msg_vec.eps while @live
 * @id: endpoint id
 * @entries: ring slots, a power of 2
 * @key: the key senders present
 * @owner: the creator
 * @ring: the receive ring; freed (after @dead_err is set and a grace
 *        period) with @read_lock held once the device was unbound. Lockless
 *        users hold rcu_read_lock().
 * @hw: whether the device may hold the endpoint, enum snode_ep_hw
 *      (&snode_msg_dev.lock)
 * @live: on &vec->eps, signalled (&snode_msg_dev.lock)
 * @was_live: was ever on &vec->eps: a vector handler may hold the endpoint
 *            until a grace period after it left, whoever took it off (a
 *            reset does, without waiting) (&snode_msg_dev.lock)
 * @dead_err: 0, or why the device no longer delivers: -ECONNRESET after a
 *            reset (written with &snode_dev.rwsem held for write, so that
 *            it is stable for holders of it), -ENODEV after an unbind;
 *            always with &md->lock held, and before a grace period that
 *            precedes freeing the ring
 * @dead_seq: &snode_msg_dev.reset_seq when the endpoint died
 * @wait: readers and pollers
 * @read_lock: serialises readers; protects @head and the counters
 * @head: consumer index
 * @msgs: messages read
 * @bytes: payload bytes read
 * @send_errors: sends from the endpoint's file that failed (atomic)
 * @notify: for an in-kernel endpoint (no file), called from the vector
 *          handler in hard interrupt context instead of waking readers
 * @notify_priv: its argument
 */
struct snode_ep {
	struct snode_msg_dev *md;
	struct snode_dev *sdev;
	struct snode_msg_vec *vec;
	struct list_head vec_node;
	u32 id;
	u32 entries;
	u64 key;
	struct snode_owner owner;
	struct snode_ep_ring *ring;
	enum snode_ep_hw hw;
	bool live;
	bool was_live;
	int dead_err;
	u64 dead_seq;
	wait_queue_head_t wait;

	/* serialises readers; protects head and the counters */
	struct mutex read_lock;
	u32 head;
	u64 msgs;
	u64 bytes;
	atomic64_t send_errors;
	void (*notify)(void *priv);
	void *notify_priv;
};

/**
 * struct snode_msg_dev - the message engine of one NIC
 * @sdev: the device
 * @nr_ids: endpoint ids, from LIMITS2
 * @nr_vecs: endpoint vectors the driver has, 0 to 5
 * @vecs: the vectors
 * @send_lock: serialises senders: owns the MSG_* registers from the first
 *             write until MSG_STATUS.BUSY clears
 * @send_wait: senders sleeping until the device answers
 * @send_retries: sends repeated because the destination's ring was full
 * @lock: protects @eps, @removed, @reset_seq, @stale and the members
 *        of endpoints documented as protected by it
 * @eps: endpoint id -> endpoint, NULL when the id is free
 * @removed: the device was unbound; no ring is left
 * @reset_seq: resets the device came back from
 * @stale: rings the device may still write, freed after its next reset
 */
struct snode_msg_dev {
	struct snode_dev *sdev;
	u32 nr_ids;
	unsigned int nr_vecs;
	struct snode_msg_vec vecs[SNODE_MSG_NR_VECS];

	/* serialises senders; owns the MSG_* registers */
	struct mutex send_lock;
	wait_queue_head_t send_wait;
	atomic64_t send_retries;

	/* protects the endpoint table, removed, reset_seq and stale */
	struct mutex lock;
	struct snode_ep **eps;
	bool removed;
	u64 reset_seq;
	struct list_head stale;
};

/* ep.c */
struct snode_ep *snode_ep_create(struct snode_msg_dev *md, u32 id,
				 u32 entries, u64 key);
int snode_ep_set(struct snode_msg_dev *md, struct snode_ep *ep, bool signal);
void snode_ep_destroy(struct snode_msg_dev *md, struct snode_ep *ep);
irqreturn_t snode_ep_irq(int irq, void *data);
void snode_ep_remove_all(void *data);
void __snode_msg_reset_prepare(struct snode_dev *sdev);
void __snode_msg_reset_done(struct snode_dev *sdev);
/* ep.c: for ep_kernel.c */
struct snode_ep *__snode_ep_create(struct snode_msg_dev *md, u32 id,
				   u32 entries, u64 key, bool kernel);
void snode_ep_copy_msg(struct snode_msg *msg,
		       const struct snode_msg_slot *slot);
void snode_ep_head_write(struct snode_ep *ep, bool live);
u32 snode_ep_avail(struct snode_ep *ep, struct snode_ep_ring *ring);

/*
 * ep_kernel.c: in-kernel endpoints (net.c): no file; the owner consumes the ring from one
 * context at a time (NAPI) and is told of arrivals by @notify.
 */
struct snode_ep *snode_ep_kernel_open(struct snode_msg_dev *md, u32 id,
				      u32 entries, u64 key,
				      void (*notify)(void *priv), void *priv);
int snode_ep_kernel_restart(struct snode_msg_dev *md, struct snode_ep *ep);
u32 snode_ep_kernel_read(struct snode_ep *ep, struct snode_msg *msgs, u32 max);
bool snode_ep_kernel_pending(struct snode_ep *ep);

/* msg.c */
int snode_msg_user_check(const struct snode_msg_send *cmd);
int snode_msg_send(struct snode_msg_dev *md, struct snode_msg_send *cmd,
		   u32 src_ep);

#endif /* _SNODE_MSG_H_ */
