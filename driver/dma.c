// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the DMA engine - copies between user memory and global memory.
 */

#include <linux/bitfield.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/interrupt.h>
#include <linux/iopoll.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/scatterlist.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>

#include <linux/snode.h>

#include "dma.h"
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

/* ---- queues ---------------------------------------------------------- */

static void snode_dma_queue_free(struct kref *kref)
{
	struct snode_dma_queue *q = container_of(kref, struct snode_dma_queue,
						 kref);

	snode_owner_put(&q->owner);
	put_device(&q->sdev->dev);
	kvfree(q->cpls);
	kfree(q);
}

void snode_dma_queue_put(struct snode_dma_queue *q)
{
	kref_put(&q->kref, snode_dma_queue_free);
}

void snode_dma_batch_put(struct snode_dma_batch *b)
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

enum dma_data_direction snode_dma_dir(const struct snode_dma_copy *c)
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
void snode_dma_copy_release(struct snode_dma_copy *c)
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

/*
 * A copy ends with @err unless it failed already, off the list it is on
 * (pending, or parked by an earlier slot). Context: dd->lock held.
 */
static void __snode_dma_copy_fail(struct snode_dma_copy *c, int err)
{
	if (!c->status)
		c->status = err;
	list_del_init(&c->node);
}

/* Finish the copies on @finished, taken off their lists under dd->lock. */
static void snode_dma_finish_list(struct list_head *finished)
{
	struct snode_dma_copy *c, *tmp;

	list_for_each_entry_safe(c, tmp, finished, node) {
		list_del(&c->node);
		snode_dma_copy_finish(c);
	}
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
void __snode_dma_kick(struct snode_dma_dev *dd)
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
	struct snode_dma_copy *c;
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

	snode_dma_finish_list(&finished);
	return IRQ_HANDLED;
}

/*
 * Fail every copy in flight; the device is disabled and does no DMA. Or,
 * @park: the engine did not stop, so the descriptors in the DSQ may still
 * be read or written, and the copies they belong to keep their pages,
 * parked on dd->stuck; the copies with none there are failed and released
 * now. Either way the ring starts empty at the next __snode_dma_start().
 */
static void snode_dma_end_all(struct snode_dma_dev *dd, int err, bool park)
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
		__snode_dma_copy_fail(c, err);
		if (park) {
			c->descs = 0;
			list_add_tail(&c->node, &dd->stuck);
		} else if (!--c->descs) {
			list_add_tail(&c->node, &finished);
		}
	}
	list_for_each_entry_safe(c, tmp, &dd->pending, node) {
		/* parked: the copies with descriptors in the DSQ went to stuck */
		__snode_dma_copy_fail(c, err);
		if (park || !c->descs)
			list_add_tail(&c->node, &finished);
	}
	/* failed: an earlier stop gave up on these; the engine is stopped now */
	if (!park)
		list_splice_tail_init(&dd->stuck, &finished);
	dd->inflight = 0;
	spin_unlock(&dd->lock);

	snode_dma_finish_list(&finished);
}

/*
 * The queue's file is gone: cancel its copies that wait for room in the
 * DSQ. Those with descriptors there finish when the device retires them.
 */
void snode_dma_cancel(struct snode_dma_queue *q)
{
	struct snode_dma_dev *dd = q->dd;
	struct snode_dma_copy *c, *tmp;
	LIST_HEAD(finished);

	spin_lock(&dd->lock);
	list_for_each_entry_safe(c, tmp, &dd->pending, node) {
		if (c->q != q)
			continue;
		__snode_dma_copy_fail(c, -ECANCELED);
		if (!c->descs)
			list_add_tail(&c->node, &finished);
	}
	spin_unlock(&dd->lock);

	snode_dma_finish_list(&finished);
}

/**
 * __snode_dma_start() - program the DMA rings into a freshly reset device
 * @sdev: snode device; CTRL.ENABLE must be clear
 *
 * Context: Process context; caller holds @sdev->rwsem for write, or is
 * probing.
 */
static void __snode_dma_start(struct snode_dev *sdev)
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
static void __snode_dma_stop(struct snode_dev *sdev, int err)
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
		snode_dma_end_all(dd, err, true);
		return;
	}
	snode_dma_end_all(dd, err, false);
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
static int snode_dma_init(struct snode_dev *sdev)
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

/* the reset stopped the engine: fail the copies in flight */
static void __snode_dma_reset_prepare(struct snode_dev *sdev)
{
	__snode_dma_stop(sdev, -ECONNRESET);
}

const struct snode_feature_ops snode_dma_feature = {
	.name = "the DMA engine",
	.init = snode_dma_init,
	.start = __snode_dma_start,
	.reset_prepare = __snode_dma_reset_prepare,
};
