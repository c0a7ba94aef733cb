// SPDX-License-Identifier: GPL-2.0
/*
 * snode: admin and event queues.
 */

#include <linux/bitfield.h>
#include <linux/error-injection.h>
#include <linux/interrupt.h>
#include <linux/sched.h>

#include "snode.h"
#include "trace.h"

/**
 * DOC: Admin and event queues
 *
 * queue.c owns the admin queue pair (ASQ/ACQ) and the event queue (EQ): the
 * rings in host memory, their registers, and the MSI-X vectors 0 (admin
 * completions) and 1 (events).
 *
 * Several admin commands may be in flight: fabric commands such as ATT_SET
 * wait up to 2 s for the fabric manager, and serialising every submitter
 * behind one of them would stall unrelated callers. The command id is the
 * index of a slot in &snode_aq.slots; at most SNODE_AQ_MAX_INFLIGHT ids are
 * handed out, so the submission ring can never overflow. A submitter waits
 * at most SNODE_ADMIN_TIMEOUT for a free id and again for its completion,
 * never longer. A command that times out is abandoned: its id and DMA buffer
 * stay reserved until the device completes it after all, or until the queue
 * is stopped by a reset or removal, so a late completion can neither be
 * mistaken for a newer command nor write to freed memory.
 *
 * The device may have applied an abandoned command, so the callers keep
 * what it named (an ATT entry, an export) stale. Once the device has
 * answered every abandoned command, nothing it was told before can still
 * change those entries: the ACQ handler then asks the features to
 * reconcile them (their &snode_feature_ops.admin_answered: global memory's,
 * decision 0024), which clears them on the device and frees them without
 * waiting for a reset. Other causes of vector 0 (a message send finished)
 * go to the feature whose &snode_feature_ops.intr names them.
 *
 * Completions and events are processed in threaded interrupt handlers, so
 * that event handlers may sleep. The core handles its own event types
 * through snode_event_handlers[] (EQ_OVERFLOW, FABRIC), then every feature
 * whose &snode_feature_ops.events has the type handles it, then every
 * &snode_feature_ops.event_report sees it (the links keep the link and
 * node state and notify the netlink family's listeners).
 */

/**
 * snode_fabric_event() - re-identify: the device attached to or left a fabric
 * @sdev: snode device
 * @ev: FABRIC event
 *
 * Context: Event IRQ thread.
 */
static void snode_fabric_event(struct snode_dev *sdev, const struct snode_event *ev)
{
	snode_debug_delay(SNODE_DELAY_FABRIC_EVENT);
	schedule_work(&sdev->identify_work);
}

typedef void (*snode_event_fn)(struct snode_dev *sdev,
			       const struct snode_event *ev);

static void snode_eq_overflow_event(struct snode_dev *sdev,
				    const struct snode_event *ev)
{
	const struct snode_event_overflow *data = (const void *)ev->data;

	dev_warn_ratelimited(&sdev->pdev->dev, "event queue overflowed, %u events lost\n",
			     le32_to_cpu(data->lost));
}

/* &snode_feature_ops.events is a u32 of BIT(type) */
static_assert(SNODE_EV_MAX < 32);

static const snode_event_fn snode_event_handlers[SNODE_EV_MAX + 1] = {
	[SNODE_EV_EQ_OVERFLOW] = snode_eq_overflow_event,
	[SNODE_EV_FABRIC] = snode_fabric_event,
};

static void snode_event_dispatch(struct snode_dev *sdev,
				 const struct snode_event *ev, u16 type)
{
	const struct snode_feature_ops *const *fp;

	if (snode_event_handlers[type])
		snode_event_handlers[type](sdev, ev);
	for (fp = sdev->features; *fp; fp++)
		if ((*fp)->events & BIT(type))
			(*fp)->event(sdev, ev);
}

/**
 * snode_status_to_errno() - map a device status code to an errno
 * @status: status code of an admin completion
 *
 * Context: Any context.
 * Return: 0 for SUCCESS, else a negative errno that callers may pass on to
 * userspace unchanged.
 */
int snode_status_to_errno(u16 status)
{
	switch (status) {
	case SNODE_SC_SUCCESS:
		return 0;
	case SNODE_SC_INVALID_OPCODE:
		return -EOPNOTSUPP;
	case SNODE_SC_INVALID_FIELD:
		return -EINVAL;
	case SNODE_SC_NO_RESOURCE:
		return -ENOSPC;
	case SNODE_SC_BAD_KEY:
		return -EKEYREJECTED;
	case SNODE_SC_NOT_ALLOWED:
		return -EACCES;
	case SNODE_SC_READ_ONLY:
		return -EROFS;
	case SNODE_SC_NO_EXPORT:
		return -ENOENT;
	case SNODE_SC_UNREACHABLE:
		return -EHOSTUNREACH;
	case SNODE_SC_BUSY:
		return -EBUSY;
	case SNODE_SC_TIMEOUT:
		return -ETIMEDOUT;
	case SNODE_SC_OUT_OF_RANGE:
		return -ERANGE;
	case SNODE_SC_NOT_ATTACHED:
		return -ENOLINK;
	case SNODE_SC_QUEUE_FULL:
		return -EAGAIN;
	case SNODE_SC_NO_ENDPOINT:
		return -ENXIO;
	case SNODE_SC_REVOKED:
		return -ECONNRESET;
	case SNODE_SC_INTERNAL:
	case SNODE_SC_DMA_ERROR:
	default:
		return -EIO;
	}
}

static void snode_q_program(struct snode_dev *sdev, u32 offset, dma_addr_t dma,
			    u32 entries)
{
	snode_writel(sdev, offset + SNODE_Q_BASE_LO, lower_32_bits(dma));
	snode_writel(sdev, offset + SNODE_Q_BASE_HI, upper_32_bits(dma));
	snode_writel(sdev, offset + SNODE_Q_SIZE, entries);
	snode_writel(sdev, offset + SNODE_Q_INDEX, 0);
}

/* Return a free command id, or -1 when SNODE_AQ_MAX_INFLIGHT are in use. */
static int snode_aq_get_slot(struct snode_aq *aq)
{
	int cid = -1;
	unsigned int i;

	spin_lock(&aq->lock);
	if (aq->inflight < SNODE_AQ_MAX_INFLIGHT) {
		for (i = 0; i < SNODE_AQ_DEPTH; i++) {
			if (!aq->slots[i].busy) {
				aq->slots[i].busy = true;
				aq->slots[i].abandoned = false;
				aq->inflight++;
				cid = i;
				break;
			}
		}
	}
	spin_unlock(&aq->lock);
	return cid;
}

static void __snode_aq_put_slot(struct snode_aq *aq, unsigned int cid)
{
	lockdep_assert_held(&aq->lock);

	aq->slots[cid].busy = false;
	aq->inflight--;
	wake_up(&aq->slot_wait);
}

/*
 * Free every abandoned slot. Only called with the device reset and the
 * queue stopped, so no late completion can race.
 */
static void snode_aq_reap_abandoned(struct snode_dev *sdev)
{
	struct snode_aq *aq = &sdev->aq;
	unsigned int i;

	for (i = 0; i < SNODE_AQ_DEPTH; i++) {
		struct snode_admin_slot *slot = &aq->slots[i];
		dma_addr_t buf_dma;
		size_t buf_len;
		void *buf;

		spin_lock(&aq->lock);
		if (!slot->busy || !slot->abandoned) {
			spin_unlock(&aq->lock);
			continue;
		}
		buf = slot->buf;
		buf_dma = slot->buf_dma;
		buf_len = slot->buf_len;
		slot->buf = NULL;
		slot->abandoned = false;
		aq->abandoned--;
		__snode_aq_put_slot(aq, i);
		spin_unlock(&aq->lock);

		if (buf)
			dma_free_coherent(&sdev->pdev->dev, buf_len, buf,
					  buf_dma);
	}
}

/**
 * __snode_queues_start() - program the rings into a freshly reset device
 * @sdev: snode device; CTRL.ENABLE must be clear
 *
 * Frees the commands abandoned before the reset, rewinds the rings to their
 * power-on state (indices 0, phase 1) and writes their registers. The
 * caller then sets CTRL.ENABLE.
 *
 * Context: Process context; caller holds @sdev->rwsem for write, or is
 * probing.
 */
void __snode_queues_start(struct snode_dev *sdev)
{
	struct snode_aq *aq = &sdev->aq;
	struct snode_eq *eq = &sdev->eq;

	snode_aq_reap_abandoned(sdev);
	memset(aq->sq, 0, SNODE_AQ_DEPTH * sizeof(*aq->sq));
	memset(aq->cq, 0, SNODE_AQ_DEPTH * sizeof(*aq->cq));
	memset(eq->ring, 0, SNODE_EQ_DEPTH * sizeof(*eq->ring));

	spin_lock(&aq->lock);
	aq->sq_tail = 0;
	aq->cq_head = 0;
	aq->cq_phase = true;
	WRITE_ONCE(aq->enabled, true);
	spin_unlock(&aq->lock);

	eq->head = 0;
	eq->phase = true;

	snode_q_program(sdev, SNODE_ASQ_OFFSET, aq->sq_dma, SNODE_AQ_DEPTH);
	snode_q_program(sdev, SNODE_ACQ_OFFSET, aq->cq_dma, SNODE_AQ_DEPTH);
	snode_q_program(sdev, SNODE_EQ_OFFSET, eq->dma, SNODE_EQ_DEPTH);
}

/**
 * __snode_queues_stop() - stop taking commands and processing completions
 * @sdev: snode device
 *
 * Refuses new submissions and waits for both interrupt threads. Abandoned
 * commands stay reserved: the device may still write their buffers until it
 * is reset, after which __snode_queues_start() or the teardown reaps them.
 *
 * Context: Process context, may sleep. The caller holds @sdev->rwsem for
 * write (reset) or has moved @sdev to SNODE_STATE_REMOVED, so no submitter
 * is waiting on a non-abandoned command.
 */
void __snode_queues_stop(struct snode_dev *sdev)
{
	struct snode_aq *aq = &sdev->aq;

	spin_lock(&aq->lock);
	WRITE_ONCE(aq->enabled, false);
	spin_unlock(&aq->lock);

	synchronize_irq(pci_irq_vector(sdev->pdev, SNODE_VEC_ADMIN));
	synchronize_irq(pci_irq_vector(sdev->pdev, SNODE_VEC_EVENT));
	wake_up_all(&aq->slot_wait);
}

/**
 * __snode_admin_exec() - run one admin command and wait for its completion
 * @sdev: snode device
 * @req: the command; status and results are filled in
 *
 * Context: Process context, sleeps up to twice SNODE_ADMIN_TIMEOUT. The
 * caller holds @sdev->rwsem, for read (a live device) or for write (reset).
 * Return: 0 on success; the errno of a device status code
 * (snode_status_to_errno(), @req->status is valid); -ETIMEDOUT if the device
 * did not answer (it may still apply the command); -EBUSY if no command slot
 * came free in time (the command was never sent); -EAGAIN if the queue is
 * stopped; -ENOMEM; -EIO if a fault was injected.
 */
noinline int __snode_admin_exec(struct snode_dev *sdev,
				struct snode_admin_req *req)
{
	struct device *dma_dev = &sdev->pdev->dev;
	struct snode_aq *aq = &sdev->aq;
	struct snode_admin_slot *slot;
	struct snode_admin_cmd *cmd;
	dma_addr_t buf_dma = 0;
	bool time_out = false;
	void *buf = NULL;
	long left;
	int cid, ret;

	lockdep_assert_held(&sdev->rwsem);

	if (snode_should_fail_admin(&time_out) && !time_out)
		return -EIO;

	if (req->len) {
		buf = dma_alloc_coherent(dma_dev, req->len, &buf_dma,
					 GFP_KERNEL);
		if (!buf)
			return -ENOMEM;
		if (req->dir == DMA_TO_DEVICE)
			memcpy(buf, req->data, req->len);
	}

	cid = -1;
	left = wait_event_timeout(aq->slot_wait,
				  (cid = snode_aq_get_slot(aq)) >= 0,
				  SNODE_ADMIN_TIMEOUT);
	if (!left) {
		/* never sent: unlike a timed-out command, nothing was applied */
		ret = -EBUSY;
		goto err_free_buf;
	}
	slot = &aq->slots[cid];
	snode_debug_delay(SNODE_DELAY_ADMIN_SLOT);

	spin_lock(&aq->lock);
	if (!aq->enabled) {
		__snode_aq_put_slot(aq, cid);
		spin_unlock(&aq->lock);
		ret = -EAGAIN;
		goto err_free_buf;
	}
	reinit_completion(&slot->done);
	slot->buf = buf;
	slot->buf_dma = buf_dma;
	slot->buf_len = req->len;

	cmd = &aq->sq[aq->sq_tail];
	*cmd = req->cmd;
	cmd->cid = cpu_to_le16(cid);
	cmd->rsvd = 0;
	cmd->addr = cpu_to_le64(req->len ? buf_dma : req->addr);
	cmd->len = cpu_to_le32(req->len);

	trace_snode_admin_cmd(sdev, cmd->opcode, cid, le32_to_cpu(cmd->cdw[0]),
			      le32_to_cpu(cmd->cdw[1]), req->len);
	aq->sq_tail = (aq->sq_tail + 1) % SNODE_AQ_DEPTH;
	aq->submitted++;
	/*
	 * An injected timeout: abandoned before the device can answer, so
	 * that it applies the command but the answer comes too late, exactly
	 * as after SNODE_ADMIN_TIMEOUT, only without the wait.
	 */
	if (time_out) {
		slot->abandoned = true;
		aq->abandoned++;
	}
	/* writel orders the ring write before the doorbell */
	snode_writel(sdev, SNODE_ASQ_OFFSET + SNODE_Q_INDEX, aq->sq_tail);
	spin_unlock(&aq->lock);

	left = time_out ? 0 : wait_for_completion_timeout(&slot->done,
							  SNODE_ADMIN_TIMEOUT);

	spin_lock(&aq->lock);
	if (time_out || (!left && !completion_done(&slot->done))) {
		if (!time_out) {
			slot->abandoned = true;
			aq->abandoned++;
		}
		aq->timeouts++;
		spin_unlock(&aq->lock);
		dev_err_ratelimited(dma_dev, "admin command 0x%02x (id %d) timed out\n",
				    req->cmd.opcode, cid);
		trace_snode_admin_cpl(sdev, req->cmd.opcode, cid, 0, 0, 0,
				      -ETIMEDOUT);
		return -ETIMEDOUT;
	}
	req->status = slot->status;
	req->cpl = slot->cqe;
	slot->buf = NULL;
	__snode_aq_put_slot(aq, cid);
	spin_unlock(&aq->lock);

	if (buf) {
		if (req->dir == DMA_FROM_DEVICE)
			memcpy(req->data, buf, req->len);
		dma_free_coherent(dma_dev, req->len, buf, buf_dma);
	}
	ret = snode_status_to_errno(req->status);
	trace_snode_admin_cpl(sdev, req->cmd.opcode, cid, req->status,
			      le32_to_cpu(req->cpl.result0),
			      le32_to_cpu(req->cpl.result1), ret);
	return ret;

err_free_buf:
	if (buf)
		dma_free_coherent(dma_dev, req->len, buf, buf_dma);
	return ret;
}

/*
 * A fail_function point (CONFIG_FUNCTION_ERROR_INJECTION): every admin
 * command goes through here, so an injected -EIO, -ETIMEDOUT or -ENOMEM
 * reaches every caller's error path without a misbehaving device, filtered
 * by task and by caller as fail_function allows, where the fail_admin
 * attribute above only returns -EIO. The command is then never sent.
 * noinline: snode_admin_exec() in this file would otherwise inline it, and
 * an injection at the entry of the out-of-line copy would miss that path.
 */
ALLOW_ERROR_INJECTION(__snode_admin_exec, ERRNO);

/**
 * snode_admin_exec() - run one admin command on a live device
 * @sdev: snode device
 * @req: the command; status and results are filled in
 *
 * Context: Process context, sleeps.
 * Return: as __snode_admin_exec(), or the errno of snode_lock_live() when
 * the device is not live.
 */
int snode_admin_exec(struct snode_dev *sdev, struct snode_admin_req *req)
{
	int ret;

	ret = snode_lock_live(sdev);
	if (ret)
		return ret;
	ret = __snode_admin_exec(sdev, req);
	snode_unlock_live(sdev);
	return ret;
}

/**
 * snode_admin_answered() - whether the device answered every command
 * @sdev: snode device
 *
 * A command the driver abandoned after a timeout may still be applied by
 * the device until it completes; an entry such a command named must not be
 * cleared before, or the late command could set it again afterwards.
 *
 * Context: Any context.
 * Return: true if no abandoned command is outstanding.
 */
bool snode_admin_answered(struct snode_dev *sdev)
{
	struct snode_aq *aq = &sdev->aq;
	bool answered;

	spin_lock(&aq->lock);
	answered = !aq->abandoned;
	spin_unlock(&aq->lock);
	return answered;
}

/*
 * Consume new completions. Returns the buffer of an abandoned command that
 * completed late, which the caller frees outside the lock and then calls
 * again; NULL once the ring is empty. Sets *@answered when that was the last
 * abandoned command.
 */
static void *snode_aq_process(struct snode_dev *sdev, dma_addr_t *stale_dma,
			      size_t *stale_len, bool *answered)
{
	struct snode_aq *aq = &sdev->aq;
	void *stale_buf = NULL;
	bool any = false;

	spin_lock(&aq->lock);
	while (aq->enabled && !stale_buf) {
		struct snode_admin_cqe *cqe = &aq->cq[aq->cq_head];
		u16 word = le16_to_cpu(READ_ONCE(cqe->status));
		struct snode_admin_slot *slot;
		u16 cid;

		if (FIELD_GET(SNODE_CQE_PHASE_MASK, word) != aq->cq_phase)
			break;
		/* read the entry only after seeing its phase bit */
		dma_rmb();
		cid = le16_to_cpu(cqe->cid);

		aq->cq_head++;
		if (aq->cq_head == SNODE_AQ_DEPTH) {
			aq->cq_head = 0;
			aq->cq_phase = !aq->cq_phase;
		}
		aq->completed++;
		any = true;

		if (cid >= SNODE_AQ_DEPTH || !aq->slots[cid].busy) {
			dev_warn_ratelimited(&sdev->pdev->dev,
					     "completion for unknown command id %u\n",
					     cid);
			continue;
		}
		slot = &aq->slots[cid];
		if (slot->abandoned) {
			stale_buf = slot->buf;
			*stale_dma = slot->buf_dma;
			*stale_len = slot->buf_len;
			slot->buf = NULL;
			slot->abandoned = false;
			if (!--aq->abandoned)
				*answered = true;
			__snode_aq_put_slot(aq, cid);
			continue;
		}
		slot->status = FIELD_GET(SNODE_CQE_STATUS_MASK, word);
		slot->cqe = *cqe;
		complete(&slot->done);
	}
	if (any)
		snode_writel(sdev, SNODE_ACQ_OFFSET + SNODE_Q_INDEX,
			     aq->cq_head);
	spin_unlock(&aq->lock);
	return stale_buf;
}

static irqreturn_t snode_aq_irq(int irq, void *data)
{
	const struct snode_feature_ops *const *fp;
	struct snode_dev *sdev = data;
	bool answered = false;
	dma_addr_t stale_dma;
	size_t stale_len;
	void *stale_buf;
	u32 cause;

	cause = snode_readl(sdev, SNODE_INTR_CAUSE_OFFSET);
	if (cause == ~0U)	/* surprise removal or reset in progress */
		return IRQ_NONE;
	snode_writel(sdev, SNODE_INTR_CAUSE_OFFSET,
		     cause & (SNODE_INTR_ADMIN | SNODE_INTR_FATAL | SNODE_INTR_MSG));
	/* vector 0 also tells that a message send finished (msg.c) */
	for (fp = sdev->features; *fp; fp++)
		if (cause & (*fp)->intr)
			(*fp)->irq(sdev);
	if (cause & SNODE_INTR_FATAL)
		dev_err_ratelimited(&sdev->pdev->dev,
				    "device reports a fatal error; it needs a reset\n");

	while ((stale_buf = snode_aq_process(sdev, &stale_dma, &stale_len,
					     &answered)))
		dma_free_coherent(&sdev->pdev->dev, stale_len, stale_buf,
				  stale_dma);
	/* nothing told to the device before can change its tables now */
	for (fp = sdev->features; answered && *fp; fp++)
		if ((*fp)->admin_answered)
			(*fp)->admin_answered(sdev);
	return IRQ_HANDLED;
}

static irqreturn_t snode_eq_irq(int irq, void *data)
{
	const struct snode_feature_ops *const *fp;
	struct snode_dev *sdev = data;
	struct snode_eq *eq = &sdev->eq;
	unsigned int budget = 0;
	u32 cause;

	cause = snode_readl(sdev, SNODE_INTR_CAUSE_OFFSET);
	if (cause == ~0U)
		return IRQ_NONE;
	snode_writel(sdev, SNODE_INTR_CAUSE_OFFSET, cause & SNODE_INTR_EVENT);

	for (;;) {
		struct snode_event *entry = &eq->ring[eq->head];
		struct snode_event ev;
		u16 type;

		if (!READ_ONCE(sdev->aq.enabled))
			break;
		if (FIELD_GET(SNODE_EVENT_PHASE_MASK,
			      le16_to_cpu(READ_ONCE(entry->flags))) != eq->phase)
			break;
		dma_rmb();
		ev = *entry;

		eq->head++;
		if (eq->head == SNODE_EQ_DEPTH) {
			eq->head = 0;
			eq->phase = !eq->phase;
		}
		/* hand the slot back before handling, so the device can post */
		snode_writel(sdev, SNODE_EQ_OFFSET + SNODE_Q_INDEX, eq->head);

		type = le16_to_cpu(ev.type);
		eq->events++;
		eq->last_seq = le32_to_cpu(ev.seq);
		trace_snode_event(sdev, type, eq->last_seq);
		if (type > SNODE_EV_MAX) {
			eq->by_type[0]++;
			dev_dbg(&sdev->pdev->dev, "unknown event type %u\n",
				type);
		} else {
			eq->by_type[type]++;
			snode_event_dispatch(sdev, &ev, type);
		}
		/* then the netlink family tells the operators */
		for (fp = sdev->features; *fp; fp++)
			if ((*fp)->event_report)
				(*fp)->event_report(sdev, &ev);

		if (++budget % 64 == 0)
			cond_resched();
	}
	return IRQ_HANDLED;
}

/* Runs after the device was reset for removal (snode_hw_stop()). */
static void snode_queues_release(void *data)
{
	snode_aq_reap_abandoned(data);
}

/**
 * snode_queues_init() - allocate the rings and request the queue vectors
 * @sdev: snode device with MSI-X vectors allocated
 *
 * Everything is device-managed and released on unbind.
 *
 * Context: Process context (probe).
 * Return: 0 or a negative errno.
 */
int snode_queues_init(struct snode_dev *sdev)
{
	struct device *dev = &sdev->pdev->dev;
	struct snode_aq *aq = &sdev->aq;
	struct snode_eq *eq = &sdev->eq;
	unsigned int i;
	char *name;
	int ret;

	snode_hw_static_checks();

	spin_lock_init(&aq->lock);
	init_waitqueue_head(&aq->slot_wait);
	for (i = 0; i < SNODE_AQ_DEPTH; i++)
		init_completion(&aq->slots[i].done);

	/* Coherent allocations of a page or more are page aligned. */
	aq->sq = dmam_alloc_coherent(dev, PAGE_ALIGN(SNODE_AQ_DEPTH * sizeof(*aq->sq)),
				     &aq->sq_dma, GFP_KERNEL);
	aq->cq = dmam_alloc_coherent(dev, PAGE_ALIGN(SNODE_AQ_DEPTH * sizeof(*aq->cq)),
				     &aq->cq_dma, GFP_KERNEL);
	eq->ring = dmam_alloc_coherent(dev, PAGE_ALIGN(SNODE_EQ_DEPTH * sizeof(*eq->ring)),
				       &eq->dma, GFP_KERNEL);
	if (!aq->sq || !aq->cq || !eq->ring)
		return -ENOMEM;

	ret = devm_add_action_or_reset(dev, snode_queues_release, sdev);
	if (ret)
		return ret;

	name = devm_kasprintf(dev, GFP_KERNEL, "snode%d-admin", sdev->index);
	if (!name)
		return -ENOMEM;
	ret = devm_request_threaded_irq(dev, pci_irq_vector(sdev->pdev, SNODE_VEC_ADMIN),
					NULL, snode_aq_irq, IRQF_ONESHOT, name, sdev);
	if (ret)
		return ret;

	name = devm_kasprintf(dev, GFP_KERNEL, "snode%d-event", sdev->index);
	if (!name)
		return -ENOMEM;
	return devm_request_threaded_irq(dev, pci_irq_vector(sdev->pdev, SNODE_VEC_EVENT),
					 NULL, snode_eq_irq, IRQF_ONESHOT, name, sdev);
}

/**
 * snode_dev_stats() - read the NIC's counters
 * @sdev: snode device
 * @st: @st->hw filled in: the STATS command's answer (little endian, as
 *      the NIC wrote it)
 *
 * Context: Process context; sleeps while the NIC answers.
 * Return: 0 or a negative errno of the admin command.
 */
int snode_dev_stats(struct snode_dev *sdev, struct snode_dev_stats *st)
{
	struct snode_admin_req req = {
		.cmd.opcode = SNODE_OP_STATS,
		.data = &st->hw,
		.len = sizeof(st->hw),
		.dir = DMA_FROM_DEVICE,
	};

	/*
	 * @st->send_retries is the message engine's, a feature's: the
	 * caller reads it (snode_msg_send_retries()), so that the core calls
	 * no feature (issue 33).
	 */
	return snode_admin_exec(sdev, &req);
}
