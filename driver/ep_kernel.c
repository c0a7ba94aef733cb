// SPDX-License-Identifier: GPL-2.0
/*
 * snode: in-kernel message endpoints - endpoints the driver owns (net.c's).
 */

#include <linux/slab.h>

#include "msg.h"
#include "trace.h"

/**
 * DOC: In-kernel endpoints
 *
 * ep_kernel.c opens, restarts and reads the endpoints the driver owns
 * itself (the network interface's, net.c): no file; the owner consumes
 * the ring from one context at a time and is told of arrivals by its
 * notify callback. The rings, vectors and lifetime are ep.c's.
 */

/**
 * snode_ep_kernel_open() - set up an endpoint owned by the driver itself
 * @md: the message engine
 * @id: endpoint id
 * @entries: ring slots, a power of 2
 * @key: the key senders present
 * @notify: called in hard interrupt context when messages are waiting
 * @priv: its argument
 *
 * Close it with snode_ep_destroy().
 *
 * Context: Process context; takes &snode_dev.rwsem for read.
 * Return: the endpoint or an ERR_PTR().
 */
struct snode_ep *snode_ep_kernel_open(struct snode_msg_dev *md, u32 id,
				      u32 entries, u64 key,
				      void (*notify)(void *priv), void *priv)
{
	struct snode_ep *ep;
	int ret;

	/* the driver's, not the process that ran `ip link set up` */
	ep = __snode_ep_create(md, id, entries, key, true);
	if (IS_ERR(ep))
		return ep;
	ep->notify = notify;
	ep->notify_priv = priv;
	ret = snode_ep_set(md, ep, true);
	if (ret) {
		snode_ep_destroy(md, ep);
		return ERR_PTR(ret);
	}
	return ep;
}

/**
 * snode_ep_kernel_restart() - set an in-kernel endpoint up again after a reset
 * @md: the message engine
 * @ep: the endpoint, dead since a reset; its owner stopped consuming it
 *
 * The reset ended the device's writes to the ring, so the same ring is
 * cleared and set again under the same id, which stayed reserved.
 *
 * Context: Process context; takes &snode_dev.rwsem for read.
 * Return: 0, -EAGAIN if the device has not come back yet (or was reset
 * again), -ENODEV after an unbind, or the errno of EP_SET.
 */
int snode_ep_kernel_restart(struct snode_msg_dev *md, struct snode_ep *ep)
{
	struct snode_ep_ring *ring = ep->ring;

	mutex_lock(&md->lock);
	if (md->removed || !ring) {
		mutex_unlock(&md->lock);
		return -ENODEV;
	}
	if (!ep->dead_err) {
		mutex_unlock(&md->lock);
		return 0;
	}
	if (md->reset_seq == ep->dead_seq) {
		/* still resetting: the device may write the ring */
		mutex_unlock(&md->lock);
		return -EAGAIN;
	}
	mutex_unlock(&md->lock);
	/* a vector handler may still walk past the old list entry */
	synchronize_rcu();

	mutex_lock(&md->lock);
	memset(ring->slots, 0, ring->size);
	WRITE_ONCE(ep->head, 0);
	ep->hw = SNODE_EP_HW_NONE;
	WRITE_ONCE(ep->dead_err, 0);
	mutex_unlock(&md->lock);
	return snode_ep_set(md, ep, true);
}

/**
 * snode_ep_kernel_pending() - whether an in-kernel endpoint has messages
 * @ep: the endpoint
 *
 * Context: Any context.
 */
bool snode_ep_kernel_pending(struct snode_ep *ep)
{
	return !READ_ONCE(ep->dead_err) && snode_ep_avail(ep, ep->ring);
}

/**
 * snode_ep_kernel_read() - take waiting messages off an in-kernel endpoint
 * @ep: the endpoint; the caller is its only consumer
 * @msgs: room for @max messages
 * @max: at most this many
 *
 * The slots go back to the device at once. Nothing is read from an
 * endpoint a reset killed: its ring is the device's again after a restart.
 *
 * Context: Any context, one caller at a time (NAPI).
 * Return: the number of messages copied.
 */
u32 snode_ep_kernel_read(struct snode_ep *ep, struct snode_msg *msgs, u32 max)
{
	u32 avail, i;

	if (READ_ONCE(ep->dead_err))
		return 0;
	avail = min(snode_ep_avail(ep, ep->ring), max);
	/* the slots were written before the tail word that announced them */
	dma_rmb();
	for (i = 0; i < avail; i++) {
		snode_ep_copy_msg(&msgs[i], &ep->ring->slots[ep->head]);
		trace_snode_msg_recv(ep->sdev, ep->id, msgs[i].src_node,
				     msgs[i].src_ep, msgs[i].len, msgs[i].seq);
		ep->bytes += msgs[i].len;
		WRITE_ONCE(ep->head, (ep->head + 1) & (ep->entries - 1));
	}
	if (avail) {
		WRITE_ONCE(ep->msgs, ep->msgs + avail);
		/* a reset racing this write wipes the endpoint anyway */
		snode_ep_head_write(ep, true);
	}
	return avail;
}
