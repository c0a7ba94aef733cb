// SPDX-License-Identifier: GPL-2.0
/*
 * snode: sending messages and doorbells, and the message engine's setup.
 */

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/interrupt.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "msg.h"
#include "trace.h"

/**
 * DOC: Messages and doorbells
 *
 * msg.c owns the sending half of the NIC's message engine: the one set of
 * MSG_* send registers, MSG_SEND from /dev/snodeN and from an endpoint's
 * file, and the engine's setup and teardown; ep.c the endpoints that
 * receive (see there for lifetime and locking).
 *
 * The MSG_* registers are latched by MSG_SEND and shared by every
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
 */

/* ---- sending ------------------------------------------------------------ */

static bool snode_msg_idle(struct snode_dev *sdev, u32 *status)
{
	*status = snode_readl(sdev, SNODE_MSG_STATUS_OFFSET);
	return !(*status & SNODE_MSG_STATUS_BUSY);
}

/*
 * Spin on MSG_STATUS for SNODE_MSG_SPIN_US of wall-clock time, one read
 * every SNODE_MSG_SPIN_GAP_US. Not readl_poll_timeout_atomic() with no
 * delay: since 6.12 (and its stable backports) that macro counts its
 * timeout in loop iterations, a nanosecond each, so 200 us became 200000
 * register reads. Where a read costs microseconds (an emulated device takes
 * its global lock for every read) the spin then lasted as long as the send
 * and kept the emulator from delivering the very answer it waited for.
 */
static bool snode_msg_spin_idle(struct snode_dev *sdev, u32 *status)
{
	ktime_t end = ktime_add_us(ktime_get(), SNODE_MSG_SPIN_US);

	for (;;) {
		if (snode_msg_idle(sdev, status))
			return true;
		if (!ktime_before(ktime_get(), end))
			return false;
		udelay(SNODE_MSG_SPIN_GAP_US);
	}
}

/*
 * Wait for MSG_STATUS.BUSY to clear: spin for a round trip, then sleep until
 * INTR_CAUSE.MSG. 0 with the register in *status, or -ETIMEDOUT / -ENODEV.
 */
static int snode_msg_wait_idle(struct snode_msg_dev *md, u32 *status)
{
	struct snode_dev *sdev = md->sdev;
	u32 val;

	if (!snode_msg_spin_idle(sdev, &val) &&
	    !wait_event_timeout(md->send_wait, snode_msg_idle(sdev, &val),
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
static void snode_msg_send_irq(struct snode_dev *sdev)
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
	trace_snode_msg_submit(sdev, cmd->node, cmd->ep, src_ep, cmd->len, 0);
	snode_writel(sdev, SNODE_MSG_SEND_OFFSET, SNODE_MSG_SEND_GO);
	ret = snode_msg_wait_idle(md, &status);
	if (!ret)
		ret = snode_status_to_errno(FIELD_GET(SNODE_MSG_STATUS_STATUS_MASK,
						      status));
	trace_snode_msg_send(sdev, cmd->node, cmd->ep, src_ep, cmd->len, ret);
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

/**
 * snode_msg_user_check() - may a process send @cmd
 * @cmd: the send
 *
 * The network interface's endpoint takes frames only from the drivers of
 * the fabric's nodes, or from a process that may send raw frames anyway.
 *
 * Context: Process context.
 * Return: 0 or -EACCES.
 */
int snode_msg_user_check(const struct snode_msg_send *cmd)
{
	if (cmd->ep == SNODE_NET_EP && !capable(CAP_NET_RAW))
		return -EACCES;
	return 0;
}

int snode_msg_send(struct snode_msg_dev *md, struct snode_msg_send *cmd,
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

/**
 * snode_msg_send_retries() - sends that found the engine busy and retried
 * @sdev: snode device
 *
 * Context: Any context.
 * Return: the count since the device was set up.
 */
u64 snode_msg_send_retries(struct snode_dev *sdev)
{
	return sdev->msg ? atomic64_read(&sdev->msg->send_retries) : 0;
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
static int snode_msg_init(struct snode_dev *sdev)
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
				       snode_ep_irq, 0, name, vec);
		if (ret)
			return ret;
	}

	/* runs after the device was reset on unbind (snode_hw_stop()) */
	return devm_add_action_or_reset(dev, snode_ep_remove_all, md);
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

const struct snode_feature_ops snode_msg_feature = {
	.name = "messages",
	.init = snode_msg_init,
	.reset_prepare = __snode_msg_reset_prepare,
	.reset_restore = __snode_msg_reset_done,
	.intr = SNODE_INTR_MSG,
	.irq = snode_msg_send_irq,
};
