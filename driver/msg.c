// SPDX-License-Identifier: GPL-2.0
/*
 * snode: message endpoints, sending messages and doorbells.
 */

#include <linux/anon_inodes.h>
#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/poll.h>
#include <linux/random.h>
#include <linux/rculist.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/uaccess.h>

#include <linux/snode.h>

#include "mem.h"

/**
 * DOC: Messages and doorbells
 *
 * msg.c owns the NIC's message engine: the endpoint table (EP_SET,
 * EP_CLEAR, EP_HEAD), the receive rings, the endpoint vectors 3-7 and the
 * one set of MSG_* send registers.
 *
 * Receiving. An endpoint is a ring of 64-byte slots plus a tail word in
 * coherent DMA memory; the device writes a slot, then the tail word, then
 * raises the endpoint's vector. Endpoints share the vectors, each going to
 * the least loaded one. The vector handler runs in hard interrupt context
 * and only wakes the endpoints of its vector that have something to read,
 * found on an RCU list, so a sleeping reader is one wake-up away from a
 * message. read() copies whole messages out and hands the slots back with
 * the EP_HEAD register, which needs no lock: it is a single write.
 *
 * Sending. The MSG_* registers are latched by MSG_SEND and shared by every
 * sender of the device, so &snode_msg_dev.send_lock serialises senders from
 * the first register write until MSG_STATUS.BUSY clears. A send is a fabric
 * round trip; the sender spins on MSG_STATUS for SNODE_MSG_SPIN_US, which
 * covers a round trip on an idle fabric, and then sleeps until the device
 * raises INTR_CAUSE.MSG on vector 0 (snode_msg_send_irq()). The wait is
 * bounded: the device answers TIMEOUT after 2 s, and the driver gives up
 * after SNODE_ADMIN_TIMEOUT. A send the destination refuses with QUEUE_FULL
 * is retried with back-off, outside the lock, until the caller's timeout,
 * unless the caller asked for EAGAIN at once. The device keeps per-sender
 * order; a caller that sends one message at a time keeps its own.
 *
 * Lifetime. An endpoint belongs to its file. Its ring is freed only once
 * the device cannot write it any more: after EP_CLEAR succeeded, after a
 * reset of the device, or on unbind after the device was reset; until then
 * a ring whose endpoint could not be cleared waits on &snode_msg_dev.stale.
 * A reset removes every endpoint from the device: the endpoints are marked
 * dead (read() drains what arrived and then fails with ECONNRESET) and
 * their ids stay taken until their files are closed, so that no EP_CLEAR
 * of a dead endpoint can hit a newer one.
 *
 * Locking: &snode_dev.rwsem (read, to use the hardware) nests outside
 * &snode_msg_dev.lock, which nests outside &snode_ep.read_lock.
 * &snode_msg_dev.send_lock nests inside &snode_dev.rwsem and outside
 * nothing.
 */

/* Ring slots of an endpoint when the caller does not say. */
#define SNODE_EP_ENTRIES_DEFAULT	256
/* A send spins this long for the device's answer before sleeping. */
#define SNODE_MSG_SPIN_US		200
/* Retrying a send to a full ring: first and longest pause. */
#define SNODE_MSG_RETRY_MIN_US		20
#define SNODE_MSG_RETRY_MAX_US		1000
#define SNODE_MSG_TIMEOUT_DEFAULT_MS	1000
#define SNODE_MSG_TIMEOUT_MAX_MS	60000
#define SNODE_MSG_NR_VECS	(SNODE_VEC_EP_LAST - SNODE_VEC_EP_FIRST + 1)
/* Samples the debugfs raw round trip takes at most. */
#define SNODE_MSG_RAW_MAX	100000

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
	int dead_err;
	u64 dead_seq;
	wait_queue_head_t wait;

	/* serialises readers; protects head and the counters */
	struct mutex read_lock;
	u32 head;
	u64 msgs;
	u64 bytes;
	atomic64_t send_errors;
};

/**
 * struct snode_msg_raw - results of the debugfs raw round trip
 * @samples: round trips measured
 * @ack: send to MSG_STATUS done, ns: min, median, 99th percentile
 * @rtt: send to the echo in the ring, ns: min, median, 99th percentile
 */
struct snode_msg_raw {
	u32 samples;
	u64 ack[3];
	u64 rtt[3];
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
 * @lock: protects @eps, @removed, @reset_seq, @stale, @raw and the members
 *        of endpoints documented as protected by it
 * @eps: endpoint id -> endpoint, NULL when the id is free
 * @removed: the device was unbound; no ring is left
 * @reset_seq: resets the device came back from
 * @stale: rings the device may still write, freed after its next reset
 * @raw: results of the last debugfs raw round trip
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

	/* protects the endpoint table, removed, reset_seq, stale and raw */
	struct mutex lock;
	struct snode_ep **eps;
	bool removed;
	u64 reset_seq;
	struct list_head stale;
	struct snode_msg_raw raw;
};

/* ---- rings ---------------------------------------------------------------- */

static struct snode_ep_ring *snode_ep_ring_alloc(struct snode_dev *sdev,
						 u32 entries)
{
	size_t slots = entries * sizeof(struct snode_msg_slot);
	struct snode_ep_ring *ring;

	ring = kzalloc(sizeof(*ring), GFP_KERNEL);
	if (!ring)
		return NULL;
	/* coherent allocations are page aligned, as EP_SET wants */
	ring->size = PAGE_ALIGN(slots + sizeof(*ring->tail));
	ring->slots = dma_alloc_coherent(&sdev->pdev->dev, ring->size,
					 &ring->dma, GFP_KERNEL);
	if (!ring->slots) {
		kfree(ring);
		return NULL;
	}
	ring->tail = (__le32 *)((u8 *)ring->slots + slots);
	INIT_LIST_HEAD(&ring->node);
	return ring;
}

static void snode_ep_ring_free(struct snode_dev *sdev, struct snode_ep_ring *ring)
{
	dma_free_coherent(&sdev->pdev->dev, ring->size, ring->slots, ring->dma);
	kfree(ring);
}

/* Free @ring now if the device is done with it, else after its reset. */
static void __snode_ep_ring_retire(struct snode_msg_dev *md,
				   struct snode_ep_ring *ring, bool device_done)
{
	lockdep_assert_held(&md->lock);

	if (device_done)
		snode_ep_ring_free(md->sdev, ring);
	else
		list_add_tail(&ring->node, &md->stale);
}

static void __snode_msg_free_stale(struct snode_msg_dev *md)
{
	struct snode_ep_ring *ring, *tmp;

	lockdep_assert_held(&md->lock);

	list_for_each_entry_safe(ring, tmp, &md->stale, node) {
		list_del(&ring->node);
		snode_ep_ring_free(md->sdev, ring);
	}
}

/* Messages waiting in @ep's ring. Caller holds read_lock, or peeks. */
static u32 snode_ep_avail(struct snode_ep *ep, struct snode_ep_ring *ring)
{
	u32 tail = le32_to_cpu(READ_ONCE(*ring->tail));

	/* a device writing a wild index: ignore it rather than read junk */
	if (unlikely(tail >= ep->entries)) {
		dev_warn_ratelimited(&ep->sdev->pdev->dev,
				     "endpoint %u: device wrote tail %u of %u\n",
				     ep->id, tail, ep->entries);
		return 0;
	}
	return (tail - READ_ONCE(ep->head)) & (ep->entries - 1);
}

/* ---- the endpoint vectors --------------------------------------------------- */

static irqreturn_t snode_msg_irq(int irq, void *data)
{
	struct snode_msg_vec *vec = data;
	struct snode_ep *ep;

	rcu_read_lock();
	list_for_each_entry_rcu(ep, &vec->eps, vec_node) {
		/* the ring is stable while the endpoint is on the list */
		if (snode_ep_avail(ep, ep->ring))
			wake_up_interruptible_poll(&ep->wait,
						   EPOLLIN | EPOLLRDNORM);
	}
	rcu_read_unlock();
	return IRQ_HANDLED;
}

/* The endpoint vector with the fewest endpoints. Caller holds md->lock. */
static struct snode_msg_vec *__snode_msg_pick_vec(struct snode_msg_dev *md)
{
	struct snode_msg_vec *best = &md->vecs[0];
	unsigned int i;

	lockdep_assert_held(&md->lock);

	for (i = 1; i < md->nr_vecs; i++)
		if (md->vecs[i].nr_eps < best->nr_eps)
			best = &md->vecs[i];
	return best;
}

/*
 * Take @ep off its vector; the handler may see it until a grace period
 * ends. Returns whether it was on.
 */
static bool __snode_ep_unlink(struct snode_ep *ep)
{
	lockdep_assert_held(&ep->md->lock);

	if (!ep->live)
		return false;
	ep->live = false;
	list_del_rcu(&ep->vec_node);
	return true;
}

/* ---- sending ------------------------------------------------------------ */

static bool snode_msg_idle(struct snode_dev *sdev, u32 *status)
{
	*status = snode_readl(sdev, SNODE_MSG_STATUS_OFFSET);
	return !(*status & SNODE_MSG_STATUS_BUSY);
}

/*
 * Wait for MSG_STATUS.BUSY to clear: spin for a round trip, then sleep until
 * INTR_CAUSE.MSG. 0 with the register in *status, or -ETIMEDOUT / -ENODEV.
 */
static int snode_msg_wait_idle(struct snode_msg_dev *md, u32 *status)
{
	struct snode_dev *sdev = md->sdev;
	u32 val;
	int ret;

	ret = readl_poll_timeout_atomic(sdev->regs + SNODE_MSG_STATUS_OFFSET,
					val, !(val & SNODE_MSG_STATUS_BUSY), 0,
					SNODE_MSG_SPIN_US);
	if (ret && !wait_event_timeout(md->send_wait, snode_msg_idle(sdev, &val),
				       SNODE_ADMIN_TIMEOUT)) {
		dev_err_ratelimited(&sdev->pdev->dev,
				    "message engine busy for %u ms\n",
				    jiffies_to_msecs(SNODE_ADMIN_TIMEOUT));
		return -ETIMEDOUT;
	}
	if (val == ~0U)		/* surprise removal */
		return -ENODEV;
	*status = val;
	return 0;
}

/**
 * snode_msg_send_irq() - INTR_CAUSE.MSG: the device finished a send
 * @sdev: snode device
 *
 * Context: The admin interrupt thread (vector 0).
 */
void snode_msg_send_irq(struct snode_dev *sdev)
{
	if (sdev->msg)
		wake_up(&sdev->msg->send_wait);
}

/* Load the MSG_* registers; the caller owns them (send_lock). */
static void snode_msg_load(struct snode_dev *sdev,
			   const struct snode_msg_send *cmd, u32 src_ep)
{
	unsigned int i;
	__le32 word;

	snode_writel(sdev, SNODE_MSG_DST_OFFSET,
		     FIELD_PREP(SNODE_MSG_DST_EP_MASK, cmd->ep));
	snode_writel(sdev, SNODE_MSG_NODE_OFFSET, cmd->node);
	snode_writel(sdev, SNODE_MSG_KEY_LO_OFFSET, lower_32_bits(cmd->key));
	snode_writel(sdev, SNODE_MSG_KEY_HI_OFFSET, upper_32_bits(cmd->key));
	snode_writel(sdev, SNODE_MSG_LEN_OFFSET,
		     FIELD_PREP(SNODE_MSG_LEN_LEN_MASK, cmd->len) |
		     FIELD_PREP(SNODE_MSG_LEN_SRC_EP_MASK, src_ep));
	/* the payload is a byte string: byte i at MSG_DATA + i */
	for (i = 0; i < cmd->len; i += sizeof(word)) {
		memcpy(&word, cmd->payload + i, sizeof(word));
		snode_writel(sdev, SNODE_MSG_DATA_OFFSET + i, le32_to_cpu(word));
	}
}

/* One attempt: 0, or the errno of the device's answer. */
static int snode_msg_xmit(struct snode_msg_dev *md,
			  const struct snode_msg_send *cmd, u32 src_ep)
{
	struct snode_dev *sdev = md->sdev;
	u32 status;
	int ret;

	ret = snode_lock_live(sdev);
	if (ret)
		return ret;
	if (mutex_lock_interruptible(&md->send_lock)) {
		ret = -EINTR;
		goto out_unlock_live;
	}
	/* a send that timed out earlier may still hold the registers */
	ret = snode_msg_wait_idle(md, &status);
	if (ret)
		goto out_unlock;
	snode_msg_load(sdev, cmd, src_ep);
	snode_writel(sdev, SNODE_MSG_SEND_OFFSET, SNODE_MSG_SEND_GO);
	ret = snode_msg_wait_idle(md, &status);
	if (!ret)
		ret = snode_status_to_errno(FIELD_GET(SNODE_MSG_STATUS_STATUS_MASK,
						      status));
out_unlock:
	mutex_unlock(&md->send_lock);
out_unlock_live:
	snode_unlock_live(sdev);
	return ret;
}

/* Sleep before retrying a send to a full ring; -EINTR on a signal. */
static int snode_msg_backoff(unsigned int *pause_us, ktime_t deadline)
{
	ktime_t now = ktime_get();
	ktime_t until;

	if (ktime_after(now, deadline))
		return -EAGAIN;
	until = ktime_add_us(now, *pause_us);
	if (ktime_after(until, deadline))
		until = deadline;
	set_current_state(TASK_INTERRUPTIBLE);
	schedule_hrtimeout_range(&until, *pause_us * NSEC_PER_USEC / 4,
				 HRTIMER_MODE_ABS);
	if (signal_pending(current))
		return -EINTR;
	*pause_us = min(*pause_us * 2, SNODE_MSG_RETRY_MAX_US);
	return 0;
}

static int snode_msg_send(struct snode_msg_dev *md, struct snode_msg_send *cmd,
			  u32 src_ep)
{
	unsigned int pause_us = SNODE_MSG_RETRY_MIN_US;
	ktime_t deadline;
	u32 timeout_ms;
	int ret;

	if (cmd->flags & ~SNODE_MSG_SEND_NONBLOCK)
		return -EOPNOTSUPP;
	timeout_ms = cmd->timeout_ms ?: SNODE_MSG_TIMEOUT_DEFAULT_MS;
	if (cmd->len > SNODE_MSG_MAX_LEN || cmd->ep >= U16_MAX ||
	    timeout_ms > SNODE_MSG_TIMEOUT_MAX_MS)
		return -EINVAL;
	/* whole words go to MSG_DATA: what follows len must not leak */
	memset(cmd->payload + cmd->len, 0, SNODE_MSG_MAX_LEN - cmd->len);

	deadline = ktime_add_ms(ktime_get(), timeout_ms);
	for (;;) {
		ret = snode_msg_xmit(md, cmd, src_ep);
		if (ret != -EAGAIN || (cmd->flags & SNODE_MSG_SEND_NONBLOCK))
			return ret;
		/* -EAGAIN is also a device being reset: wait for either */
		ret = snode_msg_backoff(&pause_us, deadline);
		if (ret)
			return ret;
		atomic64_inc(&md->send_retries);
	}
}

/* ---- the endpoint's file ---------------------------------------------------- */

static void snode_ep_copy_msg(struct snode_msg *msg,
			      const struct snode_msg_slot *slot)
{
	memset(msg, 0, sizeof(*msg));
	msg->src_node = le32_to_cpu(slot->src_node);
	msg->src_ep = le16_to_cpu(slot->src_ep);
	/* clamp what a misbehaving device claims */
	msg->len = min_t(u16, le16_to_cpu(slot->len), SNODE_MSG_MAX_LEN);
	msg->seq = le64_to_cpu(slot->seq);
	memcpy(msg->payload, slot->payload, msg->len);
}

/* Hand consumed slots back to the device. Caller holds read_lock. */
static void snode_ep_head_write(struct snode_ep *ep)
{
	struct snode_dev *sdev = ep->sdev;

	if (snode_lock_live(sdev))
		return;
	/* a dead endpoint's id may be the device's no longer */
	if (!ep->dead_err)
		snode_writel(sdev, SNODE_EP_HEAD_OFFSET,
			     FIELD_PREP(SNODE_EP_HEAD_EP_MASK, ep->id) |
			     FIELD_PREP(SNODE_EP_HEAD_INDEX_MASK, ep->head));
	snode_unlock_live(sdev);
}

/*
 * With read_lock held: 0 if messages are waiting, -EAGAIN if none is, or
 * why none will come.
 */
static int snode_ep_ready(struct snode_ep *ep)
{
	if (!ep->ring)
		return ep->dead_err;
	if (snode_ep_avail(ep, ep->ring))
		return 0;
	return ep->dead_err ?: -EAGAIN;
}

/*
 * Without read_lock: EPOLLIN if messages are waiting, EPOLLERR if the
 * endpoint is dead. The RCU read section keeps an unbind from freeing the
 * ring under us (it sets dead_err, waits for a grace period, then frees).
 */
static __poll_t snode_ep_peek(struct snode_ep *ep)
{
	struct snode_ep_ring *ring;
	__poll_t mask = 0;

	rcu_read_lock();
	ring = READ_ONCE(ep->ring);
	if (READ_ONCE(ep->dead_err))
		mask |= EPOLLERR;
	else if (ring && snode_ep_avail(ep, ring))
		mask |= EPOLLIN;
	rcu_read_unlock();
	return mask;
}

static ssize_t snode_ep_read(struct file *file, char __user *buf,
			     size_t count, loff_t *ppos)
{
	struct snode_ep *ep = file->private_data;
	size_t n = count / sizeof(struct snode_msg);
	struct snode_msg msg;
	ssize_t done = 0;
	u32 avail, i;
	int ret;

	if (!n)
		return -EINVAL;
	for (;;) {
		ret = mutex_lock_interruptible(&ep->read_lock);
		if (ret)
			return ret;
		ret = snode_ep_ready(ep);
		if (ret != -EAGAIN || (file->f_flags & O_NONBLOCK))
			break;
		mutex_unlock(&ep->read_lock);
		ret = wait_event_interruptible(ep->wait, snode_ep_peek(ep));
		if (ret)
			return ret;
	}
	if (ret)
		goto out_unlock;

	avail = min_t(size_t, snode_ep_avail(ep, ep->ring), n);
	/* the slots were written before the tail word that announced them */
	dma_rmb();
	for (i = 0; i < avail; i++) {
		snode_ep_copy_msg(&msg, &ep->ring->slots[ep->head]);
		if (copy_to_user(buf + done, &msg, sizeof(msg))) {
			ret = -EFAULT;
			break;
		}
		done += sizeof(msg);
		ep->msgs++;
		ep->bytes += msg.len;
		WRITE_ONCE(ep->head, (ep->head + 1) & (ep->entries - 1));
	}
	if (done)
		snode_ep_head_write(ep);
out_unlock:
	mutex_unlock(&ep->read_lock);
	return done ?: ret;
}

static __poll_t snode_ep_poll(struct file *file, poll_table *wait)
{
	struct snode_ep *ep = file->private_data;
	__poll_t mask;

	poll_wait(file, &ep->wait, wait);
	mask = snode_ep_peek(ep);
	if (mask & EPOLLERR)
		return EPOLLIN | EPOLLRDNORM | EPOLLERR | EPOLLHUP;
	return mask;
}

static long snode_ep_ioctl(struct file *file, unsigned int cmd,
			   unsigned long arg)
{
	struct snode_ep *ep = file->private_data;
	void __user *uarg = (void __user *)arg;
	struct snode_msg_send send;
	u32 size;
	int ret;

	if (cmd != SNODE_IOCTL_MSG_SEND)
		return -ENOTTY;
	if (get_user(size, (u32 __user *)uarg))
		return -EFAULT;
	if (size < offsetofend(struct snode_msg_send, payload))
		return -EINVAL;
	ret = copy_struct_from_user(&send, sizeof(send), uarg, size);
	if (ret)
		return ret;
	ret = snode_msg_send(ep->md, &send, ep->id);
	if (ret)
		atomic64_inc(&ep->send_errors);
	return ret;
}

/* EP_CLEAR endpoint @id. Caller holds sdev->rwsem. */
static int __snode_ep_clear(struct snode_dev *sdev, u32 id)
{
	struct snode_admin_req req = {
		.opcode = SNODE_OP_EP_CLEAR,
		.cdw = { id },
	};

	return __snode_admin_exec(sdev, &req);
}

/*
 * Take @ep out of the device: clear it there unless it is dead or was never
 * set, then free its id and retire its ring. It must be off its vector's
 * list for a grace period already.
 */
static void snode_ep_retire(struct snode_msg_dev *md, struct snode_ep *ep)
{
	struct snode_dev *sdev = md->sdev;
	bool device_done = true;
	int ret = 0;

	/* rwsem keeps a reset from killing the endpoint under EP_CLEAR */
	if (ep->hw != SNODE_EP_HW_NONE) {
		ret = snode_lock_live(sdev);
		if (!ret) {
			if (!ep->dead_err)
				ret = __snode_ep_clear(sdev, ep->id);
			snode_unlock_live(sdev);
		}
	}

	mutex_lock(&md->lock);
	if (ep->hw == SNODE_EP_HW_NONE)
		device_done = true;
	else if (ep->dead_err)	/* a reset since it died wiped it */
		device_done = md->reset_seq != ep->dead_seq;
	else
		device_done = !ret;
	if (ep->ring) {
		if (!device_done)
			dev_warn_ratelimited(&sdev->pdev->dev,
					     "endpoint %u: not cleared (%d); its ring is freed after the next reset\n",
					     ep->id, ret);
		__snode_ep_ring_retire(md, ep->ring, device_done);
		ep->ring = NULL;
	}
	md->eps[ep->id] = NULL;
	ep->vec->nr_eps--;
	mutex_unlock(&md->lock);
}

static int snode_ep_release(struct inode *inode, struct file *file)
{
	struct snode_ep *ep = file->private_data;
	struct snode_msg_dev *md = ep->md;
	bool was_live;

	mutex_lock(&md->lock);
	was_live = __snode_ep_unlink(ep);
	mutex_unlock(&md->lock);
	/* the vector handler may be reading the ring's tail word */
	if (was_live)
		synchronize_rcu();

	snode_ep_retire(md, ep);
	snode_owner_put(&ep->owner);
	put_device(&ep->sdev->dev);
	kfree(ep);
	return 0;
}

static const struct file_operations snode_ep_fops = {
	.owner = THIS_MODULE,
	.read = snode_ep_read,
	.poll = snode_ep_poll,
	.unlocked_ioctl = snode_ep_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.release = snode_ep_release,
	.llseek = noop_llseek,
};

/* ---- setting endpoints up ---------------------------------------------------- */

/* Reserve endpoint id @id, or the lowest free one if @id is U32_MAX. */
static int snode_ep_reserve(struct snode_msg_dev *md, struct snode_ep *ep,
			    u32 id)
{
	int ret = 0;

	mutex_lock(&md->lock);
	if (md->removed) {
		ret = -ENODEV;
	} else if (id != U32_MAX) {
		if (md->eps[id])
			ret = -EBUSY;
	} else {
		for (id = 0; id < md->nr_ids && md->eps[id]; id++)
			;
		if (id == md->nr_ids)
			ret = -ENOSPC;
	}
	if (!ret) {
		ep->id = id;
		ep->vec = __snode_msg_pick_vec(md);
		ep->vec->nr_eps++;
		md->eps[id] = ep;
	}
	mutex_unlock(&md->lock);
	return ret;
}

/*
 * EP_SET the reserved @ep; on success, optionally let its vector signal it.
 * A device refusal leaves it unset; after a timeout the device may still
 * set it, which snode_ep_retire() takes care of.
 */
static int snode_ep_set(struct snode_msg_dev *md, struct snode_ep *ep,
			bool signal)
{
	dma_addr_t tail = ep->ring->dma +
			  ep->entries * sizeof(struct snode_msg_slot);
	struct snode_admin_req req = {
		.opcode = SNODE_OP_EP_SET,
		.addr = ep->ring->dma,
		.cdw = {
			ep->id,
			ep->vec->vector,
			lower_32_bits(ep->key),
			upper_32_bits(ep->key),
			ep->entries,
			lower_32_bits(tail),
			upper_32_bits(tail),
			0,
		},
		/* set by a completion: tells a device refusal from a timeout */
		.status = U16_MAX,
	};
	struct snode_dev *sdev = md->sdev;
	int ret;

	/* a reset must not wipe the endpoint between EP_SET and publishing */
	ret = snode_lock_live(sdev);
	if (ret)
		return ret;
	/* the device was reset since the id was reserved */
	if (ep->dead_err) {
		ret = -EAGAIN;
		goto out_unlock;
	}
	ret = __snode_admin_exec(sdev, &req);
	mutex_lock(&md->lock);
	if (!ret) {
		ep->hw = SNODE_EP_HW_SET;
		if (signal) {
			ep->live = true;
			list_add_tail_rcu(&ep->vec_node, &ep->vec->eps);
		}
	} else if (ret == -ETIMEDOUT && req.status == U16_MAX) {
		ep->hw = SNODE_EP_HW_UNKNOWN;
	}
	mutex_unlock(&md->lock);
out_unlock:
	snode_unlock_live(sdev);
	return ret;
}

/* Allocate an endpoint with its ring and reserve an id for it. */
static struct snode_ep *snode_ep_create(struct snode_msg_dev *md, u32 id,
					u32 entries, u64 key)
{
	struct snode_dev *sdev = md->sdev;
	struct snode_ep *ep;
	int ret;

	ep = kzalloc(sizeof(*ep), GFP_KERNEL);
	if (!ep)
		return ERR_PTR(-ENOMEM);
	ep->md = md;
	ep->sdev = sdev;
	get_device(&sdev->dev);
	ep->entries = entries;
	ep->key = key;
	snode_owner_init(&ep->owner);
	init_waitqueue_head(&ep->wait);
	mutex_init(&ep->read_lock);
	INIT_LIST_HEAD(&ep->vec_node);
	ep->ring = snode_ep_ring_alloc(sdev, entries);
	if (!ep->ring) {
		ret = -ENOMEM;
		goto err_free;
	}
	ret = snode_ep_reserve(md, ep, id);
	if (ret)
		goto err_free_ring;
	return ep;

err_free_ring:
	snode_ep_ring_free(sdev, ep->ring);
err_free:
	snode_owner_put(&ep->owner);
	put_device(&sdev->dev);
	kfree(ep);
	return ERR_PTR(ret);
}

/* Undo snode_ep_create() and whatever snode_ep_set() did. */
static void snode_ep_destroy(struct snode_msg_dev *md, struct snode_ep *ep)
{
	bool was_live;

	mutex_lock(&md->lock);
	was_live = __snode_ep_unlink(ep);
	mutex_unlock(&md->lock);
	if (was_live)
		synchronize_rcu();
	snode_ep_retire(md, ep);
	snode_owner_put(&ep->owner);
	put_device(&ep->sdev->dev);
	kfree(ep);
}

static int snode_ep_check(struct snode_msg_dev *md, struct snode_ep_alloc *cmd)
{
	if (cmd->flags & ~(SNODE_EP_ID | SNODE_EP_RANDOM_KEY | SNODE_EP_NONBLOCK))
		return -EOPNOTSUPP;
	if (!md || !md->nr_vecs)
		return -EOPNOTSUPP;
	if (!cmd->entries)
		cmd->entries = SNODE_EP_ENTRIES_DEFAULT;
	if (cmd->entries < SNODE_EP_ENTRIES_MIN ||
	    cmd->entries > SNODE_EP_ENTRIES_MAX ||
	    !is_power_of_2(cmd->entries))
		return -EINVAL;
	if ((cmd->flags & SNODE_EP_ID) ? cmd->id >= md->nr_ids : cmd->id)
		return -EINVAL;
	if ((cmd->flags & SNODE_EP_RANDOM_KEY) && cmd->key)
		return -EINVAL;
	return 0;
}

int snode_ioctl_ep_alloc(struct snode_ucmd *ucmd)
{
	struct snode_ep_alloc *cmd = ucmd->cmd;
	struct snode_dev *sdev = ucmd->sdev;
	struct snode_msg_dev *md = sdev->msg;
	struct snode_id id;
	struct snode_ep *ep;
	struct file *file;
	int fd, ret;

	ret = snode_ep_check(md, cmd);
	if (ret)
		return ret;
	if (!ucmd->can_write)
		return -EPERM;

	ep = snode_ep_create(md, cmd->flags & SNODE_EP_ID ? cmd->id : U32_MAX,
			     cmd->entries,
			     cmd->flags & SNODE_EP_RANDOM_KEY ? get_random_u64() :
								cmd->key);
	if (IS_ERR(ep))
		return PTR_ERR(ep);

	file = anon_inode_getfile("[snode-ep]", &snode_ep_fops, ep,
				  O_RDWR | (cmd->flags & SNODE_EP_NONBLOCK ?
					    O_NONBLOCK : 0));
	if (IS_ERR(file)) {
		snode_ep_destroy(md, ep);
		return PTR_ERR(file);
	}
	/* from here on, the file's release undoes everything */

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_fput;
	}
	ret = snode_ep_set(md, ep, true);
	if (ret)
		goto err_put_fd;

	snode_id_get(sdev, &id);
	cmd->out_fd = fd;
	cmd->out_node = id.node_id;
	cmd->out_id = ep->id;
	cmd->out_key = ep->key;
	cmd->out_vector = ep->vec->vector;
	ret = snode_ucmd_respond(ucmd, sizeof(*cmd));
	if (ret)
		goto err_put_fd;
	fd_install(fd, file);
	return 0;

err_put_fd:
	put_unused_fd(fd);
err_fput:
	fput(file);
	return ret;
}

int snode_ioctl_msg_send(struct snode_ucmd *ucmd)
{
	struct snode_msg_dev *md = ucmd->sdev->msg;

	if (!md)
		return -EOPNOTSUPP;
	if (!ucmd->can_write)
		return -EPERM;
	return snode_msg_send(md, ucmd->cmd, SNODE_EP_NONE);
}

/* ---- listing and counters ------------------------------------------------- */

/* Describe up to @max endpoints; returns how many there are. */
static u32 snode_msg_list_endpoints(struct snode_dev *sdev,
				    struct snode_msg_entry *entries, u32 max)
{
	struct snode_msg_dev *md = sdev->msg;
	bool admin = capable(CAP_SYS_ADMIN);
	u32 id, n = 0;

	if (!md)
		return 0;
	mutex_lock(&md->lock);
	for (id = 0; id < md->nr_ids; id++) {
		struct snode_ep *ep = md->eps[id];
		struct snode_msg_entry *e;

		if (!ep)
			continue;
		if (n++ >= max || !entries)
			continue;
		e = &entries[n - 1];
		e->type = SNODE_MSG_LIST_ENDPOINTS;
		e->id = ep->id;
		e->vector = ep->vec->vector;
		e->entries = ep->entries;
		if (ep->owner.pid == task_tgid(current))
			e->flags |= SNODE_MSG_ENTRY_OWN;
		if ((e->flags & SNODE_MSG_ENTRY_OWN) || admin) {
			e->flags |= SNODE_MSG_ENTRY_KEY;
			e->key = ep->key;
		}
		if (ep->dead_err)
			e->flags |= SNODE_MSG_ENTRY_DEAD;
		/* counters are a snapshot; read_lock would nest badly here */
		if (ep->ring)
			e->pending = snode_ep_avail(ep, ep->ring);
		e->count = READ_ONCE(ep->msgs);
		e->bytes = READ_ONCE(ep->bytes);
		e->errors = atomic64_read(&ep->send_errors);
		e->pid = pid_vnr(ep->owner.pid);
		strscpy(e->comm, ep->owner.comm, sizeof(e->comm));
	}
	mutex_unlock(&md->lock);
	return n;
}

int snode_ioctl_msg_list(struct snode_ucmd *ucmd)
{
	struct snode_msg_list *cmd = ucmd->cmd;
	struct snode_msg_entry *entries = NULL;
	u32 n, max, i, esize;
	int ret = 0;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	if (cmd->type != SNODE_MSG_LIST_ENDPOINTS &&
	    cmd->type != SNODE_MSG_LIST_DMA_QUEUES)
		return -EINVAL;
	esize = cmd->entry_size;
	if (cmd->count && (!esize || esize > PAGE_SIZE))
		return -EINVAL;
	max = min_t(u32, cmd->count, SNODE_EP_ENTRIES_MAX);
	if (max) {
		entries = kvcalloc(max, sizeof(*entries), GFP_KERNEL);
		if (!entries)
			return -ENOMEM;
	}
	if (cmd->type == SNODE_MSG_LIST_ENDPOINTS)
		n = snode_msg_list_endpoints(ucmd->sdev, entries, max);
	else
		n = snode_dma_list_queues(ucmd->sdev, entries, max);

	for (i = 0; i < min(n, max); i++) {
		void __user *dst = u64_to_user_ptr(cmd->entries) + (u64)i * esize;
		size_t len = min_t(size_t, esize, sizeof(*entries));

		if (copy_to_user(dst, &entries[i], len) ||
		    (esize > len && clear_user(dst + len, esize - len))) {
			ret = -EFAULT;
			goto out;
		}
	}
	cmd->count = n;
	ret = snode_ucmd_respond(ucmd, sizeof(*cmd));
out:
	kvfree(entries);
	return ret;
}

int snode_ioctl_stats(struct snode_ucmd *ucmd)
{
	struct snode_stats *cmd = ucmd->cmd;
	struct snode_hw_stats hw;
	struct snode_admin_req req = {
		.opcode = SNODE_OP_STATS,
		.data = &hw,
		.len = sizeof(hw),
		.dir = DMA_FROM_DEVICE,
	};
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;
	ret = snode_admin_exec(ucmd->sdev, &req);
	if (ret)
		return ret;
	cmd->out_admin_cmds = le64_to_cpu(hw.admin_cmds);
	cmd->out_events = le64_to_cpu(hw.events);
	cmd->out_events_dropped = le64_to_cpu(hw.events_dropped);
	cmd->out_access_violations = le64_to_cpu(hw.access_violations);
	cmd->out_msgs_sent = le64_to_cpu(hw.msgs_sent);
	cmd->out_msgs_received = le64_to_cpu(hw.msgs_received);
	cmd->out_msgs_rejected = le64_to_cpu(hw.msgs_rejected);
	cmd->out_dma_reqs = le64_to_cpu(hw.dma_reqs);
	cmd->out_dma_bytes = le64_to_cpu(hw.dma_bytes);
	cmd->out_dma_errors = le64_to_cpu(hw.dma_errors);
	cmd->out_att_sets = le64_to_cpu(hw.att_sets);
	cmd->out_att_revokes = le64_to_cpu(hw.att_revokes);
	cmd->out_resets = le64_to_cpu(hw.resets);
	cmd->out_send_retries = ucmd->sdev->msg ?
		atomic64_read(&ucmd->sdev->msg->send_retries) : 0;
	return snode_ucmd_respond(ucmd, sizeof(*cmd));
}

/* ---- debugfs: the raw round trip ------------------------------------------- */

static int snode_u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

static void snode_msg_percentiles(u64 *samples, u32 n, u64 out[3])
{
	sort(samples, n, sizeof(*samples), snode_u64_cmp, NULL);
	out[0] = samples[0];
	out[1] = samples[n / 2];
	out[2] = samples[min(n - 1, n * 99 / 100)];
}

/*
 * Round trips to the echo endpoint 0 of a simulated node, on the registers
 * alone: the baseline the driver's message path is measured against. The
 * echo comes back into a private endpoint whose tail word is polled.
 */
static int snode_msg_raw_run(struct snode_msg_dev *md, u32 node, u32 count)
{
	struct snode_dev *sdev = md->sdev;
	struct snode_msg_send cmd = { .node = node, .len = 8 };
	u64 *ack, *rtt;
	struct snode_ep *ep;
	u32 i, status;
	int ret;

	ack = kvmalloc_array(count, sizeof(*ack), GFP_KERNEL);
	rtt = kvmalloc_array(count, sizeof(*rtt), GFP_KERNEL);
	if (!ack || !rtt) {
		ret = -ENOMEM;
		goto out_free;
	}
	ep = snode_ep_create(md, U32_MAX, SNODE_EP_ENTRIES_MIN,
			     get_random_u64());
	if (IS_ERR(ep)) {
		ret = PTR_ERR(ep);
		goto out_free;
	}
	/* off the vector's list: nobody is woken, the tail word is polled */
	ret = snode_ep_set(md, ep, false);
	if (ret)
		goto out_destroy;
	ret = snode_lock_live(sdev);
	if (ret)
		goto out_destroy;
	/* the sim node echoes to src_ep with the key the sender used */
	cmd.key = ep->key;

	mutex_lock(&md->send_lock);
	for (i = 0; i < count && !ret; i++) {
		u32 head = ep->head, tail;
		u64 t0, t1, t2;

		memcpy(cmd.payload, &i, sizeof(i));
		snode_msg_load(sdev, &cmd, ep->id);
		t0 = ktime_get_ns();
		snode_writel(sdev, SNODE_MSG_SEND_OFFSET, SNODE_MSG_SEND_GO);
		ret = snode_msg_wait_idle(md, &status);
		t1 = ktime_get_ns();
		if (!ret)
			ret = snode_status_to_errno(FIELD_GET(SNODE_MSG_STATUS_STATUS_MASK,
							      status));
		if (ret)
			break;
		ret = read_poll_timeout_atomic(le32_to_cpu, tail, tail != head,
					       0, 2 * USEC_PER_SEC, false,
					       READ_ONCE(*ep->ring->tail));
		t2 = ktime_get_ns();
		ep->head = tail;
		snode_writel(sdev, SNODE_EP_HEAD_OFFSET,
			     FIELD_PREP(SNODE_EP_HEAD_EP_MASK, ep->id) |
			     FIELD_PREP(SNODE_EP_HEAD_INDEX_MASK, ep->head));
		ack[i] = t1 - t0;
		rtt[i] = t2 - t0;
		cond_resched();
	}
	mutex_unlock(&md->send_lock);
	snode_unlock_live(sdev);

	if (!ret) {
		mutex_lock(&md->lock);
		md->raw.samples = count;
		snode_msg_percentiles(ack, count, md->raw.ack);
		snode_msg_percentiles(rtt, count, md->raw.rtt);
		mutex_unlock(&md->lock);
	}
out_destroy:
	snode_ep_destroy(md, ep);
out_free:
	kvfree(rtt);
	kvfree(ack);
	return ret;
}

static ssize_t snode_msg_raw_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct snode_msg_dev *md = file_inode(file)->i_private;
	char buf[32];
	u32 node, n;
	int ret;

	if (count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (sscanf(buf, "%u %u", &node, &n) != 2 || !n ||
	    n > SNODE_MSG_RAW_MAX)
		return -EINVAL;
	ret = snode_msg_raw_run(md, node, n);
	return ret ?: count;
}

static int snode_msg_raw_show(struct seq_file *s, void *unused)
{
	struct snode_msg_dev *md = s->private;

	mutex_lock(&md->lock);
	seq_printf(s, "samples %u\nack_ns %llu %llu %llu\nrtt_ns %llu %llu %llu\n",
		   md->raw.samples, md->raw.ack[0], md->raw.ack[1],
		   md->raw.ack[2], md->raw.rtt[0], md->raw.rtt[1],
		   md->raw.rtt[2]);
	mutex_unlock(&md->lock);
	return 0;
}

static int snode_msg_raw_open(struct inode *inode, struct file *file)
{
	return single_open(file, snode_msg_raw_show, inode->i_private);
}

static const struct file_operations snode_msg_raw_fops = {
	.owner = THIS_MODULE,
	.open = snode_msg_raw_open,
	.read = seq_read,
	.write = snode_msg_raw_write,
	.llseek = seq_lseek,
	.release = single_release,
};

/**
 * snode_msg_debugfs_add() - the message engine's debugfs files
 * @sdev: snode device with its debugfs directory
 *
 * ``msg_raw_rtt``: write "NODE COUNT" to time COUNT round trips to the echo
 * endpoint 0 of simulated node NODE through the registers alone; read
 * "samples N", "ack_ns MIN MEDIAN P99" (MSG_SEND until the sender's device
 * has the destination's answer) and "rtt_ns MIN MEDIAN P99" (until the echo
 * is in the ring).
 *
 * Context: Process context (probe).
 */
void snode_msg_debugfs_add(struct snode_dev *sdev)
{
	if (sdev->msg && sdev->debugfs)
		debugfs_create_file("msg_raw_rtt", 0600, sdev->debugfs,
				    sdev->msg, &snode_msg_raw_fops);
}

/* ---- reset, setup, teardown --------------------------------------------------- */

/* Kill every endpoint: the device lost them (reset) or is gone (unbind). */
static void __snode_msg_kill(struct snode_msg_dev *md, int err)
{
	u32 id;

	lockdep_assert_held(&md->lock);

	for (id = 0; id < md->nr_ids; id++) {
		struct snode_ep *ep = md->eps[id];

		if (!ep || ep->dead_err)
			continue;
		__snode_ep_unlink(ep);
		WRITE_ONCE(ep->dead_err, err);
		ep->dead_seq = md->reset_seq;
		wake_up_interruptible_poll(&ep->wait, EPOLLIN | EPOLLERR | EPOLLHUP);
	}
}

/**
 * __snode_msg_reset_prepare() - a reset is about to wipe the endpoints
 * @sdev: snode device
 *
 * Context: Process context; caller holds @sdev->rwsem for write.
 */
void __snode_msg_reset_prepare(struct snode_dev *sdev)
{
	struct snode_msg_dev *md = sdev->msg;

	lockdep_assert_held_write(&sdev->rwsem);

	if (!md)
		return;
	mutex_lock(&md->lock);
	__snode_msg_kill(md, -ECONNRESET);
	mutex_unlock(&md->lock);
}

/**
 * __snode_msg_reset_done() - the device came back from a reset
 * @sdev: snode device
 *
 * The reset ended every DMA of the old endpoints: their rings may go.
 *
 * Context: Process context; caller holds @sdev->rwsem for write.
 */
void __snode_msg_reset_done(struct snode_dev *sdev)
{
	struct snode_msg_dev *md = sdev->msg;

	lockdep_assert_held_write(&sdev->rwsem);

	if (!md)
		return;
	mutex_lock(&md->lock);
	md->reset_seq++;
	__snode_msg_free_stale(md);
	mutex_unlock(&md->lock);
}

/* Unbind, after the device was reset: free every ring. */
static void snode_msg_remove(void *data)
{
	struct snode_msg_dev *md = data;
	u32 id;

	mutex_lock(&md->lock);
	md->removed = true;
	__snode_msg_kill(md, -ENODEV);
	mutex_unlock(&md->lock);
	/* no vector handler looks at a ring any more */
	synchronize_rcu();

	mutex_lock(&md->lock);
	for (id = 0; id < md->nr_ids; id++) {
		struct snode_ep *ep = md->eps[id];

		if (!ep || !ep->ring)
			continue;
		mutex_lock(&ep->read_lock);
		snode_ep_ring_free(md->sdev, ep->ring);
		WRITE_ONCE(ep->ring, NULL);
		mutex_unlock(&ep->read_lock);
	}
	__snode_msg_free_stale(md);
	mutex_unlock(&md->lock);
}

/**
 * snode_msg_init() - set up the message engine of a device
 * @sdev: snode device with MSI-X vectors, not yet enabled
 *
 * Without CAP.MSG the device has no message engine (@sdev->msg stays
 * NULL); without a vector or an id for endpoints, allocating one fails. On
 * unbind, which happens after the device was reset, every ring is freed;
 * endpoint files may stay open, and the structure lives until
 * snode_msg_free().
 *
 * Context: Process context (probe).
 * Return: 0 or a negative errno.
 */
int snode_msg_init(struct snode_dev *sdev)
{
	struct device *dev = &sdev->pdev->dev;
	struct snode_msg_dev *md;
	unsigned int i;
	char *name;
	int ret;

	if (!(snode_readl(sdev, SNODE_CAP_OFFSET) & SNODE_CAP_MSG) ||
	    pci_resource_len(sdev->pdev, SNODE_BAR_REGS) < SNODE_MSG_REGS_END)
		return 0;

	/* endpoint files may outlive the unbind: freed with the device */
	md = kzalloc(sizeof(*md), GFP_KERNEL);
	if (!md)
		return -ENOMEM;
	sdev->msg = md;
	md->sdev = sdev;
	md->nr_ids = FIELD_GET(SNODE_LIMITS2_ENDPOINTS_MASK,
			       snode_readl(sdev, SNODE_LIMITS2_OFFSET));
	md->nr_vecs = clamp(sdev->nr_vecs - SNODE_VEC_EP_FIRST, 0,
			    SNODE_MSG_NR_VECS);
	mutex_init(&md->send_lock);
	init_waitqueue_head(&md->send_wait);
	mutex_init(&md->lock);
	INIT_LIST_HEAD(&md->stale);
	if (!md->nr_ids || !md->nr_vecs) {
		dev_info(dev, "messages disabled: %u endpoints, %u vectors\n",
			 md->nr_ids, md->nr_vecs);
		md->nr_ids = 0;
		md->nr_vecs = 0;
		return 0;
	}
	md->eps = kcalloc(md->nr_ids, sizeof(*md->eps), GFP_KERNEL);
	if (!md->eps)
		return -ENOMEM;

	for (i = 0; i < md->nr_vecs; i++) {
		struct snode_msg_vec *vec = &md->vecs[i];

		vec->md = md;
		vec->vector = SNODE_VEC_EP_FIRST + i;
		INIT_LIST_HEAD(&vec->eps);
		name = devm_kasprintf(dev, GFP_KERNEL, "snode%d-ep%u",
				      sdev->index, vec->vector);
		if (!name)
			return -ENOMEM;
		ret = devm_request_irq(dev, pci_irq_vector(sdev->pdev, vec->vector),
				       snode_msg_irq, 0, name, vec);
		if (ret)
			return ret;
	}

	/* runs after the device was reset on unbind (snode_hw_stop()) */
	return devm_add_action_or_reset(dev, snode_msg_remove, md);
}

/**
 * snode_msg_free() - free the message engine with the device structure
 * @sdev: snode device; no endpoint file is left
 *
 * Context: Process context.
 */
void snode_msg_free(struct snode_dev *sdev)
{
	struct snode_msg_dev *md = sdev->msg;

	if (!md)
		return;
	kfree(md->eps);
	kfree(md);
	sdev->msg = NULL;
}
