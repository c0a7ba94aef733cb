// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the DMA engine - copies between user memory and global memory.
 */

#include <linux/anon_inodes.h>
#include <linux/bitfield.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/mm.h>
#include <linux/sched/mm.h>
#include <linux/poll.h>
#include <linux/scatterlist.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <linux/snode.h>

#include "snode.h"
#include "trace.h"

/**
 * DOC: DMA engine
 *
 * dma.c owns the DMA submission and completion rings (DSQ, DCQ), vector 2,
 * and the DMA queue files through which processes submit copies.
 *
 * A copy names a buffer of the process and a range of an import's window.
 * Submitting it charges the buffer's pages to the submitter's
 * RLIMIT_MEMLOCK (account_locked_vm(), as vfio does; ENOMEM beyond it,
 * with nothing pinned), pins them (pin_user_pages_fast(), short-term like
 * O_DIRECT: the pin ends with the copy, which the device finishes in
 * bounded time), maps them with dma_map_sgtable() and holds the import
 * (snode_import_dma_get()), whose aperture range then cannot be handed to
 * another window while a descriptor may name it. The copy is then cut into
 * descriptors at DMA segment and max_dma_len boundaries; descriptors go to
 * the one device-wide DSQ in submission order, copies waiting for room on
 * &snode_dma_dev.pending. Only every SNODE_DMA_IRQ_EVERY-th descriptor, the
 * last of each copy and the one that fills the ring ask for an interrupt.
 *
 * The device completes descriptors in order. The vector 2 handler (a
 * thread: unpinning may sleep) retires them, refills the DSQ and finishes
 * copies whose descriptors all completed: unmap, unpin (dirtying pages the
 * device wrote), release the import, and post the result to the queue's
 * completion ring, or to the waiter of a synchronous submission. A
 * descriptor that fails stops its copy: the copy's remaining descriptors
 * are not queued, those already queued fail or complete harmlessly (the
 * device checks every one against the ATT).
 *
 * The copy's bookkeeping (the copy, its page array and scatterlist) is
 * charged to the submitter's memory cgroup; a queue holds at most its
 * depth of copies, and the pins of all of them count against the
 * submitter's RLIMIT_MEMLOCK until each copy is finished.
 *
 * A copy keeps its queue alive. When the queue's file is released (the
 * process closed it or exited), the copies not yet on the device are
 * cancelled (-ECANCELED, their pages released at once); those with
 * descriptors in the DSQ finish when the device retires them, and the last
 * frees the queue. A reset or unbind stops the engine without completions:
 * once the device is disabled, __snode_dma_stop() fails every copy. An
 * engine that does not stop keeps only the pages its descriptors name: the
 * copies waiting for room are released, the others parked on
 * &snode_dma_dev.stuck until a later stop succeeds.
 *
 * Locking: &snode_dma_dev.lock (a spinlock, taken in process context only)
 * protects the rings, the descriptor slots and the pending list;
 * &snode_dma_queue.lock a queue's completion ring and counters;
 * &snode_dma_dev.queues_lock the list of queues. None nests in another,
 * except that &snode_mem.lock (snode_import_dma_put()) is taken with none
 * of them held.
 */

#define SNODE_DSQ_DEPTH		256
#define SNODE_DCQ_DEPTH		SNODE_DSQ_DEPTH
/* A descriptor asks for an interrupt at least this often. */
#define SNODE_DMA_IRQ_EVERY	(SNODE_DSQ_DEPTH / 4)
#define SNODE_DMA_DEPTH_DEFAULT	64
#define SNODE_DMA_DEPTH_MAX	4096
/* How long a disabled device may take to stop its engine. */
#define SNODE_DMA_STOP_US	(1000 * USEC_PER_MSEC)

struct snode_dma_queue;

/**
 * struct snode_dma_batch - the waiter of a synchronous submission
 * @refs: held by the waiter and by every copy of the batch; the last
 *        holder frees it, so a waiter that gave up (timeout, fatal signal)
 *        leaves it to the copies still in flight
 * @left: copies not yet finished
 * @done: completed when the last copy finished
 * @res: result per copy: status, bytes
 */
struct snode_dma_batch {
	refcount_t refs;
	atomic_t left;
	struct completion done;
	struct {
		int status;
		u64 bytes;
	} res[];
};

/**
 * struct snode_dma_copy - one copy being done
 * @node: entry in &snode_dma_dev.pending while descriptors remain to queue
 * @q: the queue it was submitted to; the copy holds a reference
 * @imp: the import; held with snode_import_dma_get()
 * @batch: the synchronous waiter, or NULL
 * @batch_idx: the copy's index in @batch
 * @user_data: for the completion
 * @to_global: the device reads the buffer and writes the window
 * @ap_start: aperture offset of the copy's first byte
 * @length: bytes
 * @pages: the pinned pages
 * @nr_pages: how many
 * @mm: the submitter's mm, grabbed while @locked pages are charged to it
 * @locked: pages charged with account_locked_vm()
 * @sgt: their DMA mapping
 * @sg: next DMA segment to cut descriptors from
 * @sg_off: bytes of @sg already cut
 * @queued: bytes put into descriptors
 * @descs: descriptors in the DSQ
 * @done: bytes the device copied
 * @status: 0 or the errno of the first failed descriptor
 */
struct snode_dma_copy {
	struct list_head node;
	struct snode_dma_queue *q;
	struct snode_import *imp;
	struct snode_dma_batch *batch;
	u32 batch_idx;
	u64 user_data;
	bool to_global;
	u64 ap_start;
	u64 length;
	struct page **pages;
	unsigned int nr_pages;
	struct mm_struct *mm;
	unsigned long locked;
	struct sg_table sgt;
	struct scatterlist *sg;
	u32 sg_off;
	u64 queued;
	u32 descs;
	u64 done;
	int status;
};

/**
 * struct snode_dma_slot - a DSQ entry in flight
 * @copy: the copy the descriptor belongs to
 * @len: its length
 */
struct snode_dma_slot {
	struct snode_dma_copy *copy;
	u32 len;
};

/**
 * struct snode_dma_dev - the DMA engine of one NIC
 * @sdev: the device
 * @max_len: longest descriptor, bytes (LIMITS2)
 * @sq: DSQ ring
 * @cq: DCQ ring
 * @sq_dma: bus address of @sq
 * @cq_dma: bus address of @cq
 * @lock: protects the members below it down to @pending
 * @enabled: descriptors may be queued: the device is live
 * @sq_tail: producer index of @sq
 * @cq_head: consumer index of @cq
 * @cq_phase: phase bit of the next new completion
 * @sq_head: the oldest descriptor in flight (completions come in order)
 * @inflight: descriptors in the DSQ
 * @slots: per DSQ index, the descriptor in flight there
 * @pending: copies with descriptors still to queue, in submission order
 * @stuck: copies whose descriptors an engine that did not stop may still
 *         hold; released once a later stop succeeds
 * @descs: descriptors completed since load
 * @queues_lock: protects @queues and @next_id
 * @queues: the open DMA queues
 * @next_id: id of the next queue
 * @gen: changes with every queue opened or closed, for dumps
 */
struct snode_dma_dev {
	struct snode_dev *sdev;
	u32 max_len;
	struct snode_dma_desc *sq;
	struct snode_dma_cqe *cq;
	dma_addr_t sq_dma;
	dma_addr_t cq_dma;

	/* protects the rings, the slots and the pending copies */
	spinlock_t lock;
	bool enabled;
	u16 sq_tail;
	u16 cq_head;
	bool cq_phase;
	u16 sq_head;
	u32 inflight;
	struct snode_dma_slot slots[SNODE_DSQ_DEPTH];
	struct list_head pending;
	struct list_head stuck;
	u64 descs;

	/* protects the list of queues */
	struct mutex queues_lock;
	struct list_head queues;
	u32 next_id;
	atomic_t gen;
};

/**
 * struct snode_dma_queue - a DMA queue: the file processes submit to
 * @kref: held by the file and by every copy submitted to it
 * @dd: the device's DMA engine
 * @sdev: the device; the queue holds a reference
 * @node: entry in &snode_dma_dev.queues while the file is open
 * @id: unique on the device, for listings
 * @depth: copies in flight plus completions unread, at most
 * @owner: the creator
 * @read_lock: serialises readers
 * @lock: protects the members below
 * @busy: copies in flight plus completions unread
 * @inflight: copies in flight
 * @closed: the file was released: completions go nowhere
 * @cpls: completion ring of @depth entries
 * @cpl_head: oldest completion
 * @cpl_count: completions unread
 * @completed: copies completed
 * @bytes: bytes copied
 * @errors: copies that failed
 * @wait: readers and pollers
 */
struct snode_dma_queue {
	struct kref kref;
	struct snode_dma_dev *dd;
	struct snode_dev *sdev;
	struct list_head node;
	u32 id;
	u32 depth;
	struct snode_owner owner;
	/* serialises readers */
	struct mutex read_lock;

	/* protects the completion ring and the counters */
	spinlock_t lock;
	u32 busy;
	u32 inflight;
	bool closed;
	struct snode_dma_cpl *cpls;
	u32 cpl_head;
	u32 cpl_count;
	u64 completed;
	u64 bytes;
	u64 errors;
	wait_queue_head_t wait;
};

/* ---- queues ---------------------------------------------------------- */

static void snode_dma_queue_free(struct kref *kref)
{
	struct snode_dma_queue *q = container_of(kref, struct snode_dma_queue,
						 kref);

	put_device(&q->sdev->dev);
	snode_owner_put(&q->owner);
	kvfree(q->cpls);
	kfree(q);
}

static void snode_dma_queue_put(struct snode_dma_queue *q)
{
	kref_put(&q->kref, snode_dma_queue_free);
}

static void snode_dma_batch_put(struct snode_dma_batch *b)
{
	if (b && refcount_dec_and_test(&b->refs))
		kfree(b);
}

/* Post the result of a finished copy. */
static void snode_dma_post(struct snode_dma_copy *c)
{
	struct snode_dma_queue *q = c->q;
	struct snode_dma_batch *b = c->batch;

	trace_snode_dma_complete(q->sdev, q->id, c->user_data, c->status,
				 c->done);
	spin_lock(&q->lock);
	q->inflight--;
	q->completed++;
	q->bytes += c->done;
	if (c->status)
		q->errors++;
	if (b || q->closed) {
		q->busy--;
	} else {
		struct snode_dma_cpl *cpl;

		/* busy counts it, so the ring has room */
		cpl = &q->cpls[(q->cpl_head + q->cpl_count) % q->depth];
		cpl->user_data = c->user_data;
		cpl->status = c->status;
		cpl->__reserved = 0;
		cpl->bytes = c->done;
		q->cpl_count++;
	}
	spin_unlock(&q->lock);

	if (b) {
		b->res[c->batch_idx].status = c->status;
		b->res[c->batch_idx].bytes = c->done;
		/* the copy's reference keeps b alive across the wake-up */
		if (atomic_dec_and_test(&b->left)) {
			snode_debug_delay(SNODE_DELAY_DMA_BATCH_DONE);
			complete(&b->done);
		}
		snode_dma_batch_put(b);
	} else {
		wake_up_interruptible_poll(&q->wait, EPOLLIN | EPOLLRDNORM);
	}
}

static enum dma_data_direction snode_dma_dir(const struct snode_dma_copy *c)
{
	return c->to_global ? DMA_TO_DEVICE : DMA_FROM_DEVICE;
}

/* Release the pages, the mapping and the import of a copy. */
static void snode_dma_copy_unmap(struct snode_dma_copy *c)
{
	struct device *dev = &c->q->sdev->pdev->dev;

	if (c->sgt.orig_nents) {
		dma_sync_sgtable_for_cpu(dev, &c->sgt, snode_dma_dir(c));
		dma_unmap_sgtable(dev, &c->sgt, snode_dma_dir(c),
				  DMA_ATTR_SKIP_CPU_SYNC);
		sg_free_table(&c->sgt);
	}
	if (c->nr_pages)
		unpin_user_pages_dirty_lock(c->pages, c->nr_pages,
					    !c->to_global && c->done);
	kvfree(c->pages);
	if (c->mm) {
		/* the mm may have exited: its counter is then moot but valid */
		account_locked_vm(c->mm, c->locked, false);
		mmdrop(c->mm);
	}
	if (c->imp)
		snode_import_dma_put(c->imp);
}

/* Free a copy and its reference to the queue. */
static void snode_dma_copy_free(struct snode_dma_copy *c)
{
	snode_dma_queue_put(c->q);
	kfree(c);
}

/* Drop a copy that never reached the device. */
static void snode_dma_copy_release(struct snode_dma_copy *c)
{
	snode_dma_copy_unmap(c);
	snode_dma_copy_free(c);
}

/*
 * The device is done with a copy: release its pages and import, then
 * report it, so that whoever sees the completion finds the pages unpinned
 * and can close the import and find it gone.
 */
static void snode_dma_copy_finish(struct snode_dma_copy *c)
{
	snode_dma_copy_unmap(c);
	snode_dma_post(c);
	snode_dma_copy_free(c);
}

/* ---- the rings --------------------------------------------------------- */

/*
 * Queue descriptors of the pending copies while the DSQ has room. Returns
 * whether any was queued. Caller holds dd->lock.
 */
static bool __snode_dma_fill(struct snode_dma_dev *dd)
{
	bool any = false;

	lockdep_assert_held(&dd->lock);

	while (dd->enabled && dd->inflight < SNODE_DSQ_DEPTH - 1 &&
	       !list_empty(&dd->pending)) {
		struct snode_dma_copy *c = list_first_entry(&dd->pending,
							    struct snode_dma_copy,
							    node);
		struct snode_dma_desc *d = &dd->sq[dd->sq_tail];
		dma_addr_t host = sg_dma_address(c->sg) + c->sg_off;
		u64 ap = c->ap_start + c->queued;
		u32 len;
		u16 flags;

		len = min_t(u64, sg_dma_len(c->sg) - c->sg_off,
			    min_t(u64, dd->max_len, c->length - c->queued));
		c->sg_off += len;
		c->queued += len;
		if (c->sg_off == sg_dma_len(c->sg)) {
			c->sg = sg_next(c->sg);
			c->sg_off = 0;
		}
		flags = c->to_global ? SNODE_DMA_DST_APERTURE :
				       SNODE_DMA_SRC_APERTURE;
		dd->inflight++;
		if (c->queued == c->length) {
			list_del_init(&c->node);
			flags |= SNODE_DMA_INTERRUPT;
		} else if (dd->inflight == SNODE_DSQ_DEPTH - 1 ||
			   dd->sq_tail % SNODE_DMA_IRQ_EVERY == 0) {
			flags |= SNODE_DMA_INTERRUPT;
		}
		d->src = cpu_to_le64(c->to_global ? host : ap);
		d->dst = cpu_to_le64(c->to_global ? ap : host);
		d->len = cpu_to_le32(len);
		d->flags = cpu_to_le16(flags);
		d->rsvd = 0;
		d->tag = cpu_to_le64(dd->sq_tail);
		dd->slots[dd->sq_tail].copy = c;
		dd->slots[dd->sq_tail].len = len;
		c->descs++;
		dd->sq_tail = (dd->sq_tail + 1) % SNODE_DSQ_DEPTH;
		any = true;
	}
	return any;
}

/* Queue what fits and ring the doorbell. Caller holds dd->lock. */
static void __snode_dma_kick(struct snode_dma_dev *dd)
{
	lockdep_assert_held(&dd->lock);

	/* writel orders the descriptors before the doorbell */
	if (__snode_dma_fill(dd))
		snode_writel(dd->sdev, SNODE_DSQ_OFFSET + SNODE_Q_INDEX,
			     dd->sq_tail);
}

/*
 * Account one completed descriptor to its copy; returns the copy if it is
 * finished. Caller holds dd->lock.
 */
static struct snode_dma_copy *__snode_dma_retire(struct snode_dma_dev *dd,
						 u16 status, u32 bytes)
{
	struct snode_dma_slot *slot = &dd->slots[dd->sq_head];
	struct snode_dma_copy *c = slot->copy;

	lockdep_assert_held(&dd->lock);

	slot->copy = NULL;
	dd->sq_head = (dd->sq_head + 1) % SNODE_DSQ_DEPTH;
	dd->inflight--;
	dd->descs++;
	c->descs--;
	if (!c->status) {
		/* clamp what a misbehaving device claims */
		c->done += min(bytes, slot->len);
		if (status != SNODE_SC_SUCCESS) {
			/*
			 * The range was checked against the window at
			 * submission: the device finding no window there
			 * means that it was revoked before the descriptor.
			 */
			c->status = status == SNODE_SC_OUT_OF_RANGE ?
				    -ECONNRESET : snode_status_to_errno(status);
			/* queue nothing more of it */
			list_del_init(&c->node);
		}
	}
	if (c->descs || !list_empty(&c->node) ||
	    (!c->status && c->queued < c->length))
		return NULL;
	return c;
}

static irqreturn_t snode_dma_irq(int irq, void *data)
{
	struct snode_dma_dev *dd = data;
	struct snode_dma_copy *c, *tmp;
	LIST_HEAD(finished);
	bool any = false;
	u32 cause;

	cause = snode_readl(dd->sdev, SNODE_INTR_CAUSE_OFFSET);
	if (cause == ~0U)	/* surprise removal or reset in progress */
		return IRQ_NONE;
	/* before reading the ring: a later completion raises it again */
	snode_writel(dd->sdev, SNODE_INTR_CAUSE_OFFSET, cause & SNODE_INTR_DMA);

	spin_lock(&dd->lock);
	while (dd->enabled) {
		struct snode_dma_cqe *cqe = &dd->cq[dd->cq_head];
		u16 word = le16_to_cpu(READ_ONCE(cqe->status));
		u64 tag;

		if (FIELD_GET(SNODE_CQE_PHASE_MASK, word) != dd->cq_phase)
			break;
		/* read the entry only after seeing its phase bit */
		dma_rmb();
		tag = le64_to_cpu(cqe->tag);
		if (++dd->cq_head == SNODE_DCQ_DEPTH) {
			dd->cq_head = 0;
			dd->cq_phase = !dd->cq_phase;
		}
		any = true;
		if (unlikely(tag != dd->sq_head || !dd->inflight)) {
			dev_warn_ratelimited(&dd->sdev->pdev->dev,
					     "DMA completion for tag %llu, expected %u\n",
					     tag, dd->sq_head);
			continue;
		}
		c = __snode_dma_retire(dd, FIELD_GET(SNODE_CQE_STATUS_MASK, word),
				       le32_to_cpu(cqe->bytes_done));
		if (c)
			list_add_tail(&c->node, &finished);
	}
	if (any) {
		snode_writel(dd->sdev, SNODE_DCQ_OFFSET + SNODE_Q_INDEX,
			     dd->cq_head);
		__snode_dma_kick(dd);
	}
	spin_unlock(&dd->lock);

	list_for_each_entry_safe(c, tmp, &finished, node) {
		list_del(&c->node);
		snode_dma_copy_finish(c);
	}
	return IRQ_HANDLED;
}

/* Fail every copy in flight; the device is disabled and does no DMA. */
static void snode_dma_fail_all(struct snode_dma_dev *dd, int err)
{
	struct snode_dma_copy *c, *tmp;
	LIST_HEAD(finished);
	unsigned int i;

	spin_lock(&dd->lock);
	dd->enabled = false;
	for (i = 0; i < SNODE_DSQ_DEPTH; i++) {
		c = dd->slots[i].copy;
		if (!c)
			continue;
		dd->slots[i].copy = NULL;
		if (!c->status)
			c->status = err;
		list_del_init(&c->node);
		if (!--c->descs)
			list_add_tail(&c->node, &finished);
	}
	list_for_each_entry_safe(c, tmp, &dd->pending, node) {
		if (!c->status)
			c->status = err;
		list_del_init(&c->node);
		if (!c->descs)
			list_add_tail(&c->node, &finished);
	}
	/* an earlier stop gave up on these; the engine is stopped now */
	list_splice_tail_init(&dd->stuck, &finished);
	dd->inflight = 0;
	spin_unlock(&dd->lock);

	list_for_each_entry_safe(c, tmp, &finished, node) {
		list_del(&c->node);
		snode_dma_copy_finish(c);
	}
}

/*
 * The engine did not stop: the descriptors in the DSQ may still be read
 * or written, so the copies they belong to keep their pages, parked on
 * dd->stuck; the copies with none there are failed and released now, and
 * the ring starts empty at the next __snode_dma_start().
 */
static void snode_dma_park_all(struct snode_dma_dev *dd, int err)
{
	struct snode_dma_copy *c, *tmp;
	LIST_HEAD(finished);
	unsigned int i;

	spin_lock(&dd->lock);
	dd->enabled = false;
	for (i = 0; i < SNODE_DSQ_DEPTH; i++) {
		c = dd->slots[i].copy;
		if (!c)
			continue;
		dd->slots[i].copy = NULL;
		if (!c->status)
			c->status = err;
		/* off pending, or already parked by an earlier slot */
		list_del_init(&c->node);
		c->descs = 0;
		list_add_tail(&c->node, &dd->stuck);
	}
	list_for_each_entry_safe(c, tmp, &dd->pending, node) {
		/* the copies with descriptors in the DSQ went to stuck */
		if (!c->status)
			c->status = err;
		list_move_tail(&c->node, &finished);
	}
	dd->inflight = 0;
	spin_unlock(&dd->lock);

	list_for_each_entry_safe(c, tmp, &finished, node) {
		list_del(&c->node);
		snode_dma_copy_finish(c);
	}
}

/*
 * The queue's file is gone: cancel its copies that wait for room in the
 * DSQ. Those with descriptors there finish when the device retires them.
 */
static void snode_dma_cancel(struct snode_dma_queue *q)
{
	struct snode_dma_dev *dd = q->dd;
	struct snode_dma_copy *c, *tmp;
	LIST_HEAD(finished);

	spin_lock(&dd->lock);
	list_for_each_entry_safe(c, tmp, &dd->pending, node) {
		if (c->q != q)
			continue;
		if (!c->status)
			c->status = -ECANCELED;
		list_del_init(&c->node);
		if (!c->descs)
			list_add_tail(&c->node, &finished);
	}
	spin_unlock(&dd->lock);

	list_for_each_entry_safe(c, tmp, &finished, node) {
		list_del(&c->node);
		snode_dma_copy_finish(c);
	}
}

/**
 * __snode_dma_start() - program the DMA rings into a freshly reset device
 * @sdev: snode device; CTRL.ENABLE must be clear
 *
 * Context: Process context; caller holds @sdev->rwsem for write, or is
 * probing.
 */
void __snode_dma_start(struct snode_dev *sdev)
{
	struct snode_dma_dev *dd = sdev->dma;

	if (!dd)
		return;
	memset(dd->sq, 0, SNODE_DSQ_DEPTH * sizeof(*dd->sq));
	memset(dd->cq, 0, SNODE_DCQ_DEPTH * sizeof(*dd->cq));
	spin_lock(&dd->lock);
	dd->sq_tail = 0;
	dd->sq_head = 0;
	dd->cq_head = 0;
	dd->cq_phase = true;
	dd->inflight = 0;
	dd->enabled = true;
	spin_unlock(&dd->lock);

	snode_writel(sdev, SNODE_DSQ_OFFSET + SNODE_Q_BASE_LO, lower_32_bits(dd->sq_dma));
	snode_writel(sdev, SNODE_DSQ_OFFSET + SNODE_Q_BASE_HI, upper_32_bits(dd->sq_dma));
	snode_writel(sdev, SNODE_DSQ_OFFSET + SNODE_Q_SIZE, SNODE_DSQ_DEPTH);
	snode_writel(sdev, SNODE_DCQ_OFFSET + SNODE_Q_BASE_LO, lower_32_bits(dd->cq_dma));
	snode_writel(sdev, SNODE_DCQ_OFFSET + SNODE_Q_BASE_HI, upper_32_bits(dd->cq_dma));
	snode_writel(sdev, SNODE_DCQ_OFFSET + SNODE_Q_SIZE, SNODE_DCQ_DEPTH);
}

/**
 * __snode_dma_stop() - the device stopped: fail every copy in flight
 * @sdev: snode device with CTRL.ENABLE clear, or reset
 * @err: status of the failed copies: -ECONNRESET for a reset, -ENODEV for
 *       an unbind
 *
 * The device stops its engine without completions when disabled; pages
 * are released only once STATUS.ENABLED says it did. If it does not stop,
 * the copies with descriptors in the DSQ keep their pages until a later
 * stop succeeds (the device may still use them); the others are released.
 *
 * Context: Process context; caller holds @sdev->rwsem for write, or the
 * device is being unbound.
 */
void __snode_dma_stop(struct snode_dev *sdev, int err)
{
	struct snode_dma_dev *dd = sdev->dma;
	u32 status;

	if (!dd)
		return;
	spin_lock(&dd->lock);
	dd->enabled = false;
	spin_unlock(&dd->lock);
	synchronize_irq(pci_irq_vector(sdev->pdev, SNODE_VEC_DMA));

	if (snode_debug_dma_stop_stuck() ||
	    readl_poll_timeout(sdev->regs + SNODE_STATUS_OFFSET, status,
			       !(status & SNODE_STATUS_ENABLED), 100,
			       SNODE_DMA_STOP_US)) {
		dev_err(&sdev->pdev->dev,
			"DMA engine did not stop; its copies in the ring keep their pages\n");
		snode_dma_park_all(dd, err);
		return;
	}
	snode_dma_fail_all(dd, err);
}

/* ---- submitting -------------------------------------------------------- */

/* Pin and map the buffer of @c. */
static int snode_dma_copy_map(struct snode_dma_copy *c, u64 addr)
{
	struct device *dev = &c->q->sdev->pdev->dev;
	unsigned long first = addr & PAGE_MASK;
	unsigned int nr, off = offset_in_page(addr);
	int pinned, ret;

	/* pin_user_pages_fast() says EOVERFLOW past the top on 6.12 */
	if (!access_ok(u64_to_user_ptr(addr), c->length))
		return -EFAULT;
	nr = DIV_ROUND_UP(off + c->length, PAGE_SIZE);
	/* charge first: a copy beyond RLIMIT_MEMLOCK pins nothing */
	ret = account_locked_vm(current->mm, nr, true);
	if (ret)
		return ret;
	c->mm = current->mm;
	mmgrab(c->mm);
	c->locked = nr;
	c->pages = kvmalloc_array(nr, sizeof(*c->pages), GFP_KERNEL_ACCOUNT);
	if (!c->pages)
		return -ENOMEM;
	while (c->nr_pages < nr) {
		pinned = pin_user_pages_fast(first + c->nr_pages * PAGE_SIZE,
					     nr - c->nr_pages,
					     c->to_global ? 0 : FOLL_WRITE,
					     c->pages + c->nr_pages);
		if (pinned <= 0)
			return pinned ?: -EFAULT;
		c->nr_pages += pinned;
	}
	ret = sg_alloc_table_from_pages(&c->sgt, c->pages, nr, off, c->length,
					GFP_KERNEL_ACCOUNT);
	if (ret)
		return ret;
	/*
	 * Two copies in flight may name the same user pages (a process that
	 * reads two ranges into one buffer). The syncs, not the mapping,
	 * carry the cache maintenance, so dma-debug allows such overlapping
	 * mappings (DMA_ATTR_SKIP_CPU_SYNC); which copy's data the overlap
	 * holds afterwards is undefined, as for two concurrent read()s into
	 * one buffer.
	 */
	ret = dma_map_sgtable(dev, &c->sgt, snode_dma_dir(c),
			      DMA_ATTR_SKIP_CPU_SYNC);
	if (ret) {
		sg_free_table(&c->sgt);
		c->sgt.orig_nents = 0;
		return ret;
	}
	dma_sync_sgtable_for_device(dev, &c->sgt, snode_dma_dir(c));
	c->sg = c->sgt.sgl;
	return 0;
}

/* Check a request and make a copy of it, ready to queue. */
static struct snode_dma_copy *snode_dma_prepare(struct snode_dma_queue *q,
						const struct snode_dma_req *r)
{
	u32 dir = r->flags & (SNODE_DMA_TO_GLOBAL | SNODE_DMA_FROM_GLOBAL);
	struct snode_dma_copy *c;
	struct snode_import *imp;
	int ret;

	if (r->flags & ~(SNODE_DMA_TO_GLOBAL | SNODE_DMA_FROM_GLOBAL) ||
	    r->__reserved)
		return ERR_PTR(-EOPNOTSUPP);
	if (dir != SNODE_DMA_TO_GLOBAL && dir != SNODE_DMA_FROM_GLOBAL)
		return ERR_PTR(-EINVAL);
	if (!r->length || r->length > SNODE_DMA_MAX_LEN ||
	    r->addr + r->length < r->addr)
		return ERR_PTR(-EINVAL);

	c = kzalloc(sizeof(*c), GFP_KERNEL_ACCOUNT);
	if (!c)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&c->node);
	c->q = q;
	kref_get(&q->kref);
	c->user_data = r->user_data;
	c->to_global = dir == SNODE_DMA_TO_GLOBAL;
	c->length = r->length;

	imp = snode_import_dma_get(q->sdev, r->import_fd, r->offset, r->length,
				   c->to_global, &c->ap_start);
	if (IS_ERR(imp)) {
		ret = PTR_ERR(imp);
		goto err_release;
	}
	c->imp = imp;
	ret = snode_dma_copy_map(c, r->addr);
	if (ret)
		goto err_release;
	return c;

err_release:
	snode_dma_copy_release(c);
	return ERR_PTR(ret);
}

/* Take a slot of the queue's depth for one copy; false if it is full. */
static bool snode_dma_queue_reserve(struct snode_dma_queue *q)
{
	bool ok;

	spin_lock(&q->lock);
	ok = q->busy < q->depth;
	if (ok) {
		q->busy++;
		q->inflight++;
	}
	spin_unlock(&q->lock);
	return ok;
}

static void snode_dma_queue_unreserve(struct snode_dma_queue *q)
{
	spin_lock(&q->lock);
	q->busy--;
	q->inflight--;
	spin_unlock(&q->lock);
}

/* Put prepared copies on the engine, all or none. */
static int snode_dma_queue_copies(struct snode_dma_dev *dd,
				  struct list_head *copies)
{
	struct snode_dma_copy *c;
	int ret = 0;

	spin_lock(&dd->lock);
	if (dd->enabled) {
		list_for_each_entry(c, copies, node)
			trace_snode_dma_submit(dd->sdev, c->q->id, c->user_data,
					       c->ap_start, c->length,
					       c->to_global);
		list_splice_tail_init(copies, &dd->pending);
		__snode_dma_kick(dd);
	} else {
		ret = -EIO;
	}
	spin_unlock(&dd->lock);
	return ret;
}

/* A synchronous submission gives up waiting after 60 s (debugfs may lower it). */
static int snode_dma_wait(struct snode_dma_batch *b)
{
	long left;

	left = wait_for_completion_killable_timeout(&b->done,
						    snode_debug_dma_wait());
	if (left > 0)
		return 0;
	return left ?: -ETIMEDOUT;
}

/* Copy the results of a synchronous batch to the requests. */
static int snode_dma_batch_report(struct snode_dma_batch *b,
				  const struct snode_dma_submit *cmd, u32 n)
{
	u32 i;

	if (cmd->req_size < offsetofend(struct snode_dma_req, out_bytes))
		return 0;
	for (i = 0; i < n; i++) {
		struct snode_dma_req __user *ureq =
			u64_to_user_ptr(cmd->reqs) + (u64)i * cmd->req_size;

		if (put_user(b->res[i].status, &ureq->out_status) ||
		    put_user(b->res[i].bytes, &ureq->out_bytes))
			return -EFAULT;
	}
	return 0;
}

/*
 * Prepare up to cmd->count copies onto @copies; returns how many, with
 * *err the error of the first request that could not be prepared.
 */
static u32 snode_dma_prepare_all(struct snode_dma_queue *q,
				 const struct snode_dma_submit *cmd,
				 struct snode_dma_batch *b,
				 struct list_head *copies, int *err)
{
	struct snode_dma_copy *c;
	struct snode_dma_req r;
	u32 n;

	*err = 0;
	for (n = 0; n < cmd->count; n++) {
		void __user *ureq = u64_to_user_ptr(cmd->reqs) +
				    (u64)n * cmd->req_size;

		*err = copy_struct_from_user(&r, sizeof(r), ureq, cmd->req_size);
		if (*err)
			break;
		if (!snode_dma_queue_reserve(q)) {
			*err = -EBUSY;
			break;
		}
		c = snode_dma_prepare(q, &r);
		if (IS_ERR(c)) {
			snode_dma_queue_unreserve(q);
			*err = PTR_ERR(c);
			break;
		}
		if (b) {
			c->batch = b;
			c->batch_idx = n;
			refcount_inc(&b->refs);
			atomic_inc(&b->left);
		}
		list_add_tail(&c->node, copies);
	}
	return n;
}

static int snode_dma_submit(struct snode_ucmd *ucmd)
{
	struct snode_dma_batch *b = NULL;
	struct snode_dma_copy *c, *tmp;
	struct snode_dma_submit *cmd = ucmd->cmd;
	struct snode_dma_queue *q = ucmd->obj;
	LIST_HEAD(copies);
	u32 n;
	int ret, err;

	if (cmd->flags & ~SNODE_DMA_SUBMIT_WAIT || cmd->__reserved)
		return -EOPNOTSUPP;
	if (!cmd->count || cmd->count > q->depth ||
	    cmd->req_size < offsetofend(struct snode_dma_req, user_data) ||
	    cmd->req_size > PAGE_SIZE)
		return -EINVAL;

	if (cmd->flags & SNODE_DMA_SUBMIT_WAIT) {
		b = kzalloc(struct_size(b, res, cmd->count), GFP_KERNEL_ACCOUNT);
		if (!b)
			return -ENOMEM;
		refcount_set(&b->refs, 1);
		init_completion(&b->done);
	}

	/* mapping for a device being reset or gone is pointless */
	ret = snode_lock_live(q->sdev);
	if (ret)
		goto out;
	snode_unlock_live(q->sdev);
	/*
	 * Read the requests and pin their buffers before taking rwsem: a
	 * buffer backed by userfaultfd or FUSE may stall, and must not stall
	 * a reset or an unbind with it.
	 */
	n = snode_dma_prepare_all(q, cmd, b, &copies, &err);
	ret = err;
	if (n) {
		ret = snode_lock_live(q->sdev);
		if (!ret) {
			ret = snode_dma_queue_copies(q->dd, &copies);
			snode_unlock_live(q->sdev);
		}
	}
	if (n && ret) {
		/* nothing reached the engine: no completion is posted */
		list_for_each_entry_safe(c, tmp, &copies, node) {
			list_del_init(&c->node);
			snode_dma_queue_unreserve(q);
			if (c->batch) {
				atomic_dec(&b->left);
				refcount_dec(&b->refs);
			}
			snode_dma_copy_release(c);
		}
	}
	if (ret)
		goto out;

	/* queued: whatever happens next, tell how many */
	if (b) {
		ret = snode_dma_wait(b);
		if (!ret)
			ret = snode_dma_batch_report(b, cmd, n);
	}
	cmd->out_submitted = n;
	if (snode_ucmd_respond(ucmd, sizeof(*cmd)))
		ret = -EFAULT;
out:
	snode_dma_batch_put(b);
	return ret;
}

/* ---- the queue's file ---------------------------------------------------- */

static ssize_t snode_dma_read(struct file *file, char __user *buf,
			      size_t count, loff_t *ppos)
{
	struct snode_dma_queue *q = file->private_data;
	size_t n = count / sizeof(struct snode_dma_cpl);
	struct snode_dma_cpl cpl;
	ssize_t done = 0;
	int ret;

	if (!n)
		return -EINVAL;
	for (;;) {
		ret = mutex_lock_interruptible(&q->read_lock);
		if (ret)
			return ret;
		if (READ_ONCE(q->cpl_count) || (file->f_flags & O_NONBLOCK))
			break;
		mutex_unlock(&q->read_lock);
		ret = wait_event_interruptible(q->wait, READ_ONCE(q->cpl_count));
		if (ret)
			return ret;
	}
	/* producers only append, so the oldest entry is ours to copy */
	while (n--) {
		spin_lock(&q->lock);
		if (!q->cpl_count) {
			spin_unlock(&q->lock);
			break;
		}
		cpl = q->cpls[q->cpl_head];
		spin_unlock(&q->lock);
		if (copy_to_user(buf + done, &cpl, sizeof(cpl))) {
			ret = -EFAULT;
			break;
		}
		spin_lock(&q->lock);
		q->cpl_head = (q->cpl_head + 1) % q->depth;
		q->cpl_count--;
		q->busy--;
		spin_unlock(&q->lock);
		done += sizeof(cpl);
	}
	mutex_unlock(&q->read_lock);
	return done ?: ret ?: -EAGAIN;
}

static __poll_t snode_dma_poll(struct file *file, poll_table *wait)
{
	struct snode_dma_queue *q = file->private_data;

	poll_wait(file, &q->wait, wait);
	return READ_ONCE(q->cpl_count) ? EPOLLIN | EPOLLRDNORM : 0;
}

static const struct snode_ioctl_op snode_dma_ioctl_ops[] = {
	SNODE_IOCTL_OP(SNODE_IOCTL_DMA_SUBMIT, snode_dma_submit,
		       struct snode_dma_submit, __reserved, 0),
};

static long snode_dma_ioctl(struct file *file, unsigned int cmd,
			    unsigned long arg)
{
	struct snode_dma_queue *q = file->private_data;
	struct snode_ucmd ucmd = {
		.sdev = q->sdev,
		.obj = q,
	};

	return snode_ioctl_dispatch(file, snode_dma_ioctl_ops,
				    ARRAY_SIZE(snode_dma_ioctl_ops), &ucmd, cmd,
				    arg);
}

static int snode_dma_release(struct inode *inode, struct file *file)
{
	struct snode_dma_queue *q = file->private_data;
	struct snode_dma_dev *dd = q->dd;

	mutex_lock(&dd->queues_lock);
	list_del(&q->node);
	atomic_inc(&dd->gen);
	mutex_unlock(&dd->queues_lock);
	spin_lock(&q->lock);
	q->closed = true;
	q->busy -= q->cpl_count;
	q->cpl_count = 0;
	spin_unlock(&q->lock);
	/*
	 * Copies on the device finish on their own and drop their
	 * references; the others go now, with their pins and charges.
	 */
	snode_dma_cancel(q);
	snode_dma_queue_put(q);
	return 0;
}

static const struct file_operations snode_dma_fops = {
	.owner = THIS_MODULE,
	.read = snode_dma_read,
	.poll = snode_dma_poll,
	.unlocked_ioctl = snode_dma_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.release = snode_dma_release,
	.llseek = noop_llseek,
};

int snode_ioctl_dma_open(struct snode_ucmd *ucmd)
{
	struct snode_dma_open *cmd = ucmd->cmd;
	struct snode_dev *sdev = ucmd->sdev;
	struct snode_dma_dev *dd = sdev->dma;
	struct snode_dma_queue *q;
	struct file *file;
	int fd, ret;

	if (cmd->flags & ~SNODE_DMA_NONBLOCK)
		return -EOPNOTSUPP;
	if (!dd)
		return -EOPNOTSUPP;
	if (!cmd->depth)
		cmd->depth = SNODE_DMA_DEPTH_DEFAULT;
	if (cmd->depth > SNODE_DMA_DEPTH_MAX)
		return -EINVAL;

	q = kzalloc(sizeof(*q), GFP_KERNEL_ACCOUNT);
	if (!q)
		return -ENOMEM;
	kref_init(&q->kref);
	q->dd = dd;
	q->sdev = sdev;
	get_device(&sdev->dev);
	q->depth = cmd->depth;
	snode_owner_init(&q->owner);
	spin_lock_init(&q->lock);
	mutex_init(&q->read_lock);
	init_waitqueue_head(&q->wait);
	INIT_LIST_HEAD(&q->node);
	ret = snode_owner_charge(&q->owner, ucmd->sfile,
				 SNODE_QUOTA_DMA_QUEUES);
	if (ret) {
		snode_dma_queue_put(q);
		return ret;
	}
	q->cpls = kvcalloc(q->depth, sizeof(*q->cpls), GFP_KERNEL_ACCOUNT);
	if (!q->cpls) {
		snode_dma_queue_put(q);
		return -ENOMEM;
	}

	file = anon_inode_getfile("[snode-dma]", &snode_dma_fops, q,
				  O_RDWR |
				  (cmd->flags & SNODE_DMA_NONBLOCK ? O_NONBLOCK : 0));
	if (IS_ERR(file)) {
		snode_dma_queue_put(q);
		return PTR_ERR(file);
	}
	/* from here on, the file's release unlists and puts q */
	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd >= 0) {
		mutex_lock(&dd->queues_lock);
		q->id = dd->next_id++;
		list_add_tail(&q->node, &dd->queues);
		atomic_inc(&dd->gen);
		mutex_unlock(&dd->queues_lock);
		snode_debug_delay(SNODE_DELAY_DMA_OPEN);
		cmd->out_fd = fd;
	}
	/* nothing may touch q once the descriptor is installed */
	return snode_ucmd_install_fd(ucmd, sizeof(*cmd), file, fd, 0);
}

/**
 * snode_dma_gen() - the generation of a device's DMA queue table
 * @sdev: snode device
 *
 * It changes whenever a queue is opened or closed, so a queue dump
 * spanning the change is flagged NLM_F_DUMP_INTR.
 *
 * Context: Any context.
 * Return: the generation.
 */
unsigned int snode_dma_gen(struct snode_dev *sdev)
{
	return sdev->dma ? atomic_read(&sdev->dma->gen) : 0;
}

/**
 * snode_dma_list_queues() - describe the DMA queues of a device
 * @sdev: snode device
 * @entries: array of @max zeroed entries to fill, or NULL to count
 * @max: room in @entries
 * @viewer: who asks; owner details of other users' queues are withheld
 *
 * Context: Process context.
 * Return: the number of queues (possibly more than @max).
 */
u32 snode_dma_list_queues(struct snode_dev *sdev,
			  struct snode_obj_entry *entries, u32 max,
			  const struct snode_viewer *viewer)
{
	struct snode_dma_dev *dd = sdev->dma;
	struct snode_dma_queue *q;
	u32 n = 0;

	if (!dd)
		return 0;
	mutex_lock(&dd->queues_lock);
	list_for_each_entry(q, &dd->queues, node) {
		struct snode_obj_entry *e = &entries[n];

		if (n++ >= max)
			continue;
		e->id = q->id;
		e->entries = q->depth;
		if (snode_owner_is_viewer(&q->owner, viewer))
			e->flags |= SNODE_ENTRY_OWN;
		spin_lock(&q->lock);
		e->pending = q->inflight;
		e->count = q->completed;
		e->bytes = q->bytes;
		e->errors = q->errors;
		spin_unlock(&q->lock);
		if (!snode_owner_visible(&q->owner, viewer)) {
			e->flags |= SNODE_ENTRY_HIDDEN;
			continue;
		}
		e->pid = pid_vnr(q->owner.pid);
		strscpy(e->comm, q->owner.comm, sizeof(e->comm));
	}
	mutex_unlock(&dd->queues_lock);
	return n;
}

/* ---- setup ------------------------------------------------------------- */

/* Unbind, after the device was reset: nothing is in flight any more. */
static void snode_dma_remove(void *data)
{
	struct snode_dev *sdev = data;

	__snode_dma_stop(sdev, -ENODEV);
}

/**
 * snode_dma_init() - set up the DMA engine of a device
 * @sdev: snode device with MSI-X vectors, not yet enabled
 *
 * Without CAP.DMA or vector 2 the device has no DMA engine (@sdev->dma
 * stays NULL). The rings are device-managed; queues may outlive an unbind,
 * and the structure lives until snode_dma_free().
 *
 * Context: Process context (probe).
 * Return: 0 or a negative errno.
 */
int snode_dma_init(struct snode_dev *sdev)
{
	struct device *dev = &sdev->pdev->dev;
	struct snode_dma_dev *dd;
	u32 kib;
	char *name;
	int ret;

	if (!(snode_readl(sdev, SNODE_CAP_OFFSET) & SNODE_CAP_DMA) ||
	    sdev->nr_vecs <= SNODE_VEC_DMA)
		return 0;

	dd = kzalloc(sizeof(*dd), GFP_KERNEL);
	if (!dd)
		return -ENOMEM;
	dd->sdev = sdev;
	sdev->dma = dd;
	spin_lock_init(&dd->lock);
	INIT_LIST_HEAD(&dd->pending);
	INIT_LIST_HEAD(&dd->stuck);
	mutex_init(&dd->queues_lock);
	INIT_LIST_HEAD(&dd->queues);
	kib = FIELD_GET(SNODE_LIMITS2_MAX_DMA_KIB_MASK,
			snode_readl(sdev, SNODE_LIMITS2_OFFSET));
	/* 0 means 65536 KiB; descriptors count bytes in 32 bits */
	dd->max_len = (kib ?: 65536) * SZ_1K;
	dma_set_max_seg_size(dev, dd->max_len);

	/* coherent allocations of a page or more are page aligned */
	dd->sq = dmam_alloc_coherent(dev, PAGE_ALIGN(SNODE_DSQ_DEPTH * sizeof(*dd->sq)),
				     &dd->sq_dma, GFP_KERNEL);
	dd->cq = dmam_alloc_coherent(dev, PAGE_ALIGN(SNODE_DCQ_DEPTH * sizeof(*dd->cq)),
				     &dd->cq_dma, GFP_KERNEL);
	if (!dd->sq || !dd->cq)
		return -ENOMEM;

	name = devm_kasprintf(dev, GFP_KERNEL, "snode%d-dma", sdev->index);
	if (!name)
		return -ENOMEM;
	ret = devm_request_threaded_irq(dev, pci_irq_vector(sdev->pdev, SNODE_VEC_DMA),
					NULL, snode_dma_irq, IRQF_ONESHOT, name, dd);
	if (ret)
		return ret;
	/* runs after the device was reset on unbind (snode_hw_stop()) */
	return devm_add_action_or_reset(dev, snode_dma_remove, sdev);
}

/**
 * snode_dma_free() - free the DMA engine with the device structure
 * @sdev: snode device; no DMA queue file and no copy is left
 *
 * Context: Process context.
 */
void snode_dma_free(struct snode_dev *sdev)
{
	kfree(sdev->dma);
	sdev->dma = NULL;
}
