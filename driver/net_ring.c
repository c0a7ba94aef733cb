// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the network interface's window rings - frames through global
 * memory, a message as the doorbell.
 */

#include <linux/bitmap.h>
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>

#include "link.h"
#include "mem.h"
#include "net.h"

/**
 * DOC: Window rings
 *
 * Frames cut into 48-byte messages cost one fabric round trip per 48
 * bytes. A ring moves a frame with CPU stores through a window onto the
 * receiver's pool and one message, at most, as the doorbell. Decision 0031
 * says why it looks like this, Documentation/driver/net.rst gives the
 * format.
 *
 * Receiver: while the interface is up, SNODE_NET_RINGS rings of
 * SNODE_NET_RING_SIZE bytes sit in one kernel allocation of the pool
 * (snode_kalloc()). A node that asks (ASK) gets a free ring, or the one it
 * had, or one whose node is down, each exported to that node alone
 * (snode_kexport(), a random key) and announced with GRANT; without one it
 * gets REFUSE. A ring changes hands only after its export is withdrawn,
 * which revokes the old owner's window first, and is cleared before the
 * new owner gets it, so no node reads frames another sent. A node that
 * goes down loses its ring.
 *
 * Sender: the first unicast frame to a node asks for its ring and goes as
 * messages; a GRANT becomes a window (snode_kimport(), one ATT entry), and
 * from then on every unicast frame to that node goes through the ring:
 * frame into slot prod % SNODE_NET_SLOTS, its length, then prod + 1, then
 * the doorbell if the receiver armed the ring (it stopped polling): a
 * receiver that still polls finds the frame anyway. Doorbells leave from
 * @db_work, so that filling the ring goes on during their round trip; a
 * doorbell still pending covers later frames too. A frame for a full ring
 * waits in the peer's own queue (&snode_net_peer.waiting, at most
 * SNODE_NET_WAIT_MAX frames) while frames to other nodes go on; a ring
 * that takes no frame for SNODE_NET_SEND_MS loses them, and its peer is
 * stuck: frames to it go if a slot is free and are dropped if not, without
 * waiting, until one goes. A peer that grants a ring and never drains it
 * thus costs the frames to itself and nobody else's (decision 0031,
 * amended). At most SNODE_NET_RINGS windows per NIC; more peers use
 * messages. A revoked window (the receiver's reset, stop or unload; a path
 * or the node lost; our own reset) is dropped at the next frame, which
 * asks again.
 *
 * A reset of our NIC: no CPU access may reach a device while it resets
 * (mem.c's rule for the pool mappings). snode_net_reset_prepare() sets
 * @hw_blocked and waits (synchronize_rcu()) for the accesses begun before;
 * every access to a receive ring (BAR4) or a window (BAR2) is made inside
 * an RCU read-side section that tests @hw_blocked first, so none begins
 * until snode_net_reset_done() clears it, and none if the reset fails.
 *
 * Missed doorbells cannot happen: the sender stores prod, then (full
 * barrier) loads armed; the receiver stores armed, then (full barrier)
 * loads prod before it stops; one of the two sees the other's store.
 *
 * Broadcast and multicast frames always go as messages.
 *
 * Context: the ring's control work (ASK, GRANT, exports and imports, which
 * sleep; net_ctrl.c) runs in @tx_work under &snode_net.ring_mutex; the
 * poll only notes the control messages in bitmaps and drains the receive
 * rings.
 */

static bool snode_net_rings = true;
module_param_named(net_rings, snode_net_rings, bool, 0644);
MODULE_PARM_DESC(net_rings,
		 "network interfaces: unicast frames through window rings (default on; off: messages only, as interfaces opened from now on)");

/* the interface's rings fit in the reserve users leave free (fs.c) */
static_assert(SNODE_NET_RINGS <= SNODE_RESERVE_EXPORTS);
static_assert(SNODE_NET_RINGS <= SNODE_RESERVE_IMPORTS);
static_assert((u64)SNODE_NET_RINGS * SNODE_NET_RING_SIZE <= SNODE_RESERVE_POOL);

/* ---- receiver: rings for the peers ------------------------------------------ */

/**
 * snode_net_rxring_drop() - withdraw receive ring @r from its node
 * @net: the interface
 * @r: the ring
 *
 * Context: Caller holds &snode_net.ring_mutex.
 */
void snode_net_rxring_drop(struct snode_net *net, u32 r)
{
	struct snode_net_rxring *rr = &net->rxr[r];

	lockdep_assert_held(&net->ring_mutex);

	spin_lock_bh(&net->ring_lock);
	WRITE_ONCE(rr->node, U32_MAX);
	spin_unlock_bh(&net->ring_lock);
	rr->seq = 0;
	if (rr->exp) {
		snode_kunexport(rr->exp);
		rr->exp = NULL;
	}
}

/**
 * snode_net_ring_rx_rings() - receive rings that belong to a node now
 * @net: the interface
 *
 * Context: Any context.
 * Return: the number of them.
 */
u32 snode_net_ring_rx_rings(struct snode_net *net)
{
	u32 r, n = 0;

	for (r = 0; r < SNODE_NET_RINGS; r++)
		n += READ_ONCE(net->rxr[r].node) != U32_MAX;
	return n;
}

/* Hand one frame of a ring to the stack: 1, or 0 if it was dropped. */
static int snode_net_rxring_frame(struct snode_net *net, u32 node,
				  const u8 *data, u32 len, u32 csum)
{
	struct snode_net_stats *st = &net->rxs;
	struct sk_buff *skb;

	if (len < ETH_HLEN || len > SNODE_NET_SLOT_SIZE ||
	    len > net->ndev->max_mtu + ETH_HLEN)
		goto err_len;
	skb = napi_alloc_skb(&net->napi, len);
	if (!skb) {
		snode_net_stat_add(st, &st->dropped, 1);
		return 0;
	}
	skb_put_data(skb, data, len);
	/* the checksum the sender left to fill stays to be filled */
	if (csum && !skb_partial_csum_set(skb, csum >> 16, csum & 0xffff)) {
		dev_kfree_skb_any(skb);
		goto err_len;
	}
	snode_net_stat_add(st, &st->ring_frames, 1);
	snode_net_rx_deliver(net, skb, node);
	return 1;

err_len:
	snode_net_stat_add(st, &st->length_errors, 1);
	snode_net_stat_add(st, &st->errors, 1);
	return 0;
}

/* Take up to @budget frames off ring @r. Caller holds ring_lock. */
static int snode_net_rxring_drain(struct snode_net *net, u32 r, int budget)
{
	struct snode_net_ring_hdr *hdr = snode_net_rxhdr(net, r);
	struct snode_net_rxring *rr = &net->rxr[r];
	struct snode_net_stats *st = &net->rxs;
	u32 cons = rr->cons, prod, len, csum;
	int done = 0;

	/* polling: the sender need not ring */
	if (READ_ONCE(hdr->armed))
		WRITE_ONCE(hdr->armed, 0);
	while (done < budget) {
		prod = le32_to_cpu(READ_ONCE(hdr->prod));
		if (prod == cons)
			break;
		if (prod - cons > SNODE_NET_SLOTS) {
			/* if the sender misbehaves: drop what it claims */
			snode_net_stat_add(st, &st->ring_errors, 1);
			snode_net_stat_add(st, &st->errors, 1);
			cons = prod;
			WRITE_ONCE(hdr->cons, cpu_to_le32(cons));
			break;
		}
		/* the length and the frame after prod */
		rmb();
		len = le32_to_cpu(READ_ONCE(hdr->len[cons % SNODE_NET_SLOTS]));
		csum = le32_to_cpu(READ_ONCE(hdr->csum[cons % SNODE_NET_SLOTS]));
		done += snode_net_rxring_frame(net, rr->node, (u8 *)hdr +
					       SNODE_NET_SLOT0 +
					       (cons % SNODE_NET_SLOTS) *
					       SNODE_NET_SLOT_SIZE, len, csum);
		cons++;
		/* the slot is free for the sender at once */
		WRITE_ONCE(hdr->cons, cpu_to_le32(cons));
	}
	rr->cons = cons;
	return done;
}

/**
 * snode_net_ring_rx() - take frames off the receive rings
 * @net: the interface
 * @budget: at most this many frames
 *
 * Context: NAPI poll.
 * Return: frames handed to the stack.
 */
int snode_net_ring_rx(struct snode_net *net, int budget)
{
	int done = 0;
	u32 r;

	/* a test's stalled receiver (debugfs net_rx_stall) leaves them full */
	if (!READ_ONCE(net->rx_va) || snode_debug_net_rx_stall())
		return 0;
	/* not while the NIC resets: snode_net_reset_prepare() waits for us */
	rcu_read_lock();
	if (!READ_ONCE(net->hw_blocked)) {
		spin_lock(&net->ring_lock);
		for (r = 0; r < SNODE_NET_RINGS && done < budget; r++)
			if (net->rxr[r].node != U32_MAX)
				done += snode_net_rxring_drain(net, r,
							       budget - done);
		spin_unlock(&net->ring_lock);
	}
	rcu_read_unlock();
	return done;
}

/**
 * snode_net_ring_rx_idle() - may the poll stop?
 * @net: the interface
 *
 * Every ring is armed (its sender rings the doorbell for the next frame)
 * and looked at once more: the armed store before the prod load, against
 * the sender's prod store before its armed load, so that no frame is left
 * without a doorbell. (Polling on for a while after a stream's last frame,
 * to save doorbells, measured no better under TCG: decision 0031.)
 *
 * While the NIC resets the rings are not looked at: the poll completes,
 * and the interface's restart after the reset polls again.
 *
 * Context: NAPI poll.
 * Return: true if the poll may complete.
 */
bool snode_net_ring_rx_idle(struct snode_net *net)
{
	struct snode_net_ring_hdr *hdr;
	bool idle = true;
	u32 r;

	if (!READ_ONCE(net->rx_va))
		return true;
	rcu_read_lock();
	if (READ_ONCE(net->hw_blocked)) {
		rcu_read_unlock();
		return true;
	}
	spin_lock(&net->ring_lock);
	for (r = 0; r < SNODE_NET_RINGS; r++)
		if (net->rxr[r].node != U32_MAX)
			WRITE_ONCE(snode_net_rxhdr(net, r)->armed, cpu_to_le32(1));
	/* armed before prod, against the sender's prod before armed */
	mb();
	/* stalled (debugfs net_rx_stall): armed, so a doorbell ends it */
	for (r = 0; r < SNODE_NET_RINGS && !snode_debug_net_rx_stall(); r++) {
		hdr = snode_net_rxhdr(net, r);
		if (net->rxr[r].node != U32_MAX &&
		    le32_to_cpu(READ_ONCE(hdr->prod)) != net->rxr[r].cons)
			idle = false;
	}
	spin_unlock(&net->ring_lock);
	rcu_read_unlock();
	return idle;
}

/* ---- sender: windows onto the peers' rings --------------------------------------- */

/* End every frame waiting for @node's ring with @ret. */
static void snode_net_txring_flush(struct snode_net *net, u32 node, int ret)
{
	struct snode_net_peer *peer = &net->peer[node];
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(&peer->waiting)))
		snode_net_tx_done(net, skb, node, ret);
	clear_bit(node, net->tx_waiting);
}

/**
 * snode_net_txring_drop() - drop the window onto @node's ring
 * @net: the interface
 * @node: the node
 *
 * Context: Caller holds &snode_net.ring_mutex.
 */
void snode_net_txring_drop(struct snode_net *net, u32 node)
{
	struct snode_net_peer *peer = &net->peer[node];

	lockdep_assert_held(&net->ring_mutex);

	/* frames that waited for the ring are lost with it */
	snode_net_txring_flush(net, node, -EHOSTUNREACH);
	peer->stuck = false;
	if (peer->state == SNODE_NET_TX_RING) {
		snode_kimport_release(peer->imp);
		peer->imp = NULL;
		peer->hdr = NULL;
		peer->slots = NULL;
		net->tx_rings--;
	}
	peer->state = SNODE_NET_TX_IDLE;
}

/* The slot's csum word for @skb: its checksum to fill, or 0. */
static u32 snode_net_csum(const struct sk_buff *skb)
{
	if (skb->ip_summed != CHECKSUM_PARTIAL)
		return 0;
	return skb_checksum_start_offset(skb) << 16 | skb->csum_offset;
}

/*
 * Is a slot of @node's ring free? 1, 0 (full: the doorbell is rung if the
 * receiver wants it), or -ECONNRESET (the window or the node is gone, or
 * the receiver claims to have taken out more than we put in).
 *
 * The window is looked at only while it is live (snode_kimport()'s rule):
 * frames that wait for a ring are put in from here, up to
 * SNODE_NET_SEND_MS after the ring was revoked (our reset, the receiver's,
 * a path lost), and a revoked window reads all-ones, so without the check
 * a small prod would find "room" and copy whole frames into the aperture
 * hole, each store a trapped access while the device changes its windows.
 * Nor while our NIC resets (@hw_blocked, in an RCU read-side section that
 * snode_net_reset_prepare() waits for): its windows are gone and no CPU
 * access may reach it then.
 */
static int snode_net_txring_room(struct snode_net *net, u32 node)
{
	struct snode_net_peer *peer = &net->peer[node];
	int ret = 0;
	u32 used;

	rcu_read_lock();
	if (READ_ONCE(net->hw_blocked) || !snode_kimport_live(peer->imp) ||
	    !test_bit(node, net->up)) {
		ret = -ECONNRESET;
		goto out;
	}
	used = peer->prod - le32_to_cpu(READ_ONCE(peer->hdr->cons));
	if (used != SNODE_NET_SLOTS) {
		ret = used < SNODE_NET_SLOTS ? 1 : -ECONNRESET;
		goto out;
	}
	/* the receiver is busy with the ring, unless a doorbell failed */
	if (test_and_clear_bit(node, net->db_failed) ||
	    READ_ONCE(peer->hdr->armed))
		snode_net_doorbell(net, node);
out:
	rcu_read_unlock();
	return ret;
}

/*
 * Put @skb into the free slot of @node's ring: 0, -EFAULT, or -ENOLINK if
 * the window went, or our NIC began a reset, since snode_net_txring_room()
 * looked (send it as messages; the next frame drops the window).
 */
static int snode_net_txring_put(struct snode_net *net, struct sk_buff *skb,
				u32 node)
{
	struct snode_net_peer *peer = &net->peer[node];
	struct snode_net_stats *st = &net->txs;
	u32 slot = peer->prod % SNODE_NET_SLOTS;
	int ret;

	snode_debug_delay(SNODE_DELAY_NET_RING_PUT);
	/* every store below, or none, before a reset of our NIC begins */
	rcu_read_lock();
	if (READ_ONCE(net->hw_blocked) || !snode_kimport_live(peer->imp)) {
		rcu_read_unlock();
		return -ENOLINK;
	}
	ret = skb_copy_bits(skb, 0, peer->slots + slot * SNODE_NET_SLOT_SIZE,
			    skb->len);
	if (ret) {
		rcu_read_unlock();
		return ret;
	}
	WRITE_ONCE(peer->hdr->len[slot], cpu_to_le32(skb->len));
	WRITE_ONCE(peer->hdr->csum[slot], cpu_to_le32(snode_net_csum(skb)));
	/* the frame and its length before prod */
	wmb();
	WRITE_ONCE(peer->hdr->prod, cpu_to_le32(peer->prod + 1));
	/* prod before reading armed: see the DOC block */
	mb();
	if (test_and_clear_bit(node, net->db_failed) ||
	    READ_ONCE(peer->hdr->armed))
		snode_net_doorbell(net, node);
	rcu_read_unlock();
	peer->prod++;
	/* the receiver drains: the next frame may wait the full time again */
	peer->stuck = false;
	peer->wait_until = jiffies + msecs_to_jiffies(SNODE_NET_SEND_MS);
	snode_net_stat_add(st, &st->ring_frames, 1);
	return 0;
}

/**
 * snode_net_ring_xmit() - send a unicast frame through @node's ring
 * @net: the interface
 * @skb: the frame
 * @node: its destination, up
 *
 * Asks for a ring when there is none. A frame for a full ring waits in
 * the peer's own queue, behind the frames waiting there already, and
 * snode_net_ring_tx_waiting() puts it in when the receiver frees a slot;
 * frames to other nodes go on meanwhile. A ring that took no frame for
 * SNODE_NET_SEND_MS makes the peer stuck: its waiting frames are dropped,
 * and a frame to it goes if a slot is free and is dropped if not, without
 * waiting, until one goes.
 *
 * Context: @tx_work, which holds &snode_net.ring_mutex.
 * Return: 0 if the frame went into the ring; -EINPROGRESS if it waits (it
 * is the ring's now: snode_net_tx_done() ends it); -ENOLINK if there is no
 * ring (send it as messages); -EAGAIN if the ring is full and the peer
 * stuck, or too many frames wait for it (the frame is lost).
 */
int snode_net_ring_xmit(struct snode_net *net, struct sk_buff *skb, u32 node)
{
	struct snode_net_peer *peer = &net->peer[node];
	struct snode_net_stats *st = &net->txs;
	int ret;

	switch (peer->state) {
	case SNODE_NET_TX_IDLE:
		snode_net_txring_ask(net, node);
		return -ENOLINK;
	case SNODE_NET_TX_ASKED:
	case SNODE_NET_TX_REFUSED:
		if (time_after(jiffies, peer->until))
			peer->state = SNODE_NET_TX_IDLE;
		return -ENOLINK;
	default:
		break;
	}
	if (!snode_kimport_live(peer->imp)) {
		/* ask again with the next frame */
		snode_net_txring_drop(net, node);
		return -ENOLINK;
	}
	if (skb_queue_empty(&peer->waiting)) {
		ret = snode_net_txring_room(net, node);
		if (ret == -ECONNRESET) {
			snode_net_stat_add(st, &st->ring_errors, 1);
			snode_net_txring_drop(net, node);
			return -ENOLINK;
		}
		if (ret)
			return snode_net_txring_put(net, skb, node);
		if (peer->stuck)
			return -EAGAIN;
		peer->wait_until = jiffies + msecs_to_jiffies(SNODE_NET_SEND_MS);
	} else if (skb_queue_len(&peer->waiting) >= SNODE_NET_WAIT_MAX) {
		return -EAGAIN;
	}
	/* behind the frames to @node that wait already: their order holds */
	__skb_queue_tail(&peer->waiting, skb);
	set_bit(node, net->tx_waiting);
	snode_net_stat_add(st, &st->waits, 1);
	return -EINPROGRESS;
}

/**
 * snode_net_ring_tx_waiting() - put waiting frames into rings with room
 * @net: the interface
 *
 * Frames for a ring that took none for SNODE_NET_SEND_MS are dropped
 * (-EAGAIN: tx_fifo_errors) and the peer is stuck from then on; frames for
 * a window that broke are dropped too (its node is down or it was
 * revoked).
 *
 * Context: @tx_work, which holds &snode_net.ring_mutex.
 * Return: true if frames still wait (look again soon).
 */
bool snode_net_ring_tx_waiting(struct snode_net *net)
{
	struct snode_net_stats *st = &net->txs;
	bool waiting = false;
	struct sk_buff *skb;
	u32 node;
	int ret;

	lockdep_assert_held(&net->ring_mutex);

	for_each_set_bit(node, net->tx_waiting, net->max_nodes) {
		struct snode_net_peer *peer = &net->peer[node];

		ret = 0;
		while ((skb = skb_peek(&peer->waiting))) {
			ret = snode_net_txring_room(net, node);
			if (ret <= 0)
				break;
			__skb_unlink(skb, &peer->waiting);
			snode_net_tx_done(net, skb, node,
					  snode_net_txring_put(net, skb, node));
		}
		if (ret < 0) {
			snode_net_stat_add(st, &st->ring_errors, 1);
			/* drops the waiting frames, counted as no path */
			snode_net_txring_drop(net, node);
		} else if (!skb) {
			clear_bit(node, net->tx_waiting);
		} else if (time_after(jiffies, peer->wait_until)) {
			/* from now on the peer stalls nobody but itself */
			peer->stuck = true;
			snode_net_stat_add(st, &st->stuck, 1);
			snode_net_txring_flush(net, node, -EAGAIN);
		} else {
			waiting = true;
		}
	}
	return waiting;
}

/* ---- open, stop, setup ----------------------------------------------------------- */

/**
 * snode_net_ring_open() - set up the receive rings
 * @net: the interface, being opened
 *
 * Without pool memory, a coherent device or an ATT the interface runs on
 * messages alone.
 *
 * Context: RTNL held.
 */
void snode_net_ring_open(struct snode_net *net)
{
	struct snode_alloc *alloc;
	u32 r;

	mutex_lock(&net->ring_mutex);
	/* snode_kalloc() hands out zeroed memory */
	for (r = 0; r < SNODE_NET_RINGS; r++) {
		net->rxr[r].node = U32_MAX;
		net->rxr[r].held = U32_MAX;
	}
	net->tx_no_rings = !READ_ONCE(snode_net_rings);
	if (net->tx_no_rings)
		alloc = ERR_PTR(-EPERM);
	else
		alloc = snode_kalloc(net->sdev, (u64)SNODE_NET_RINGS *
					       SNODE_NET_RING_SIZE);
	if (IS_ERR(alloc)) {
		netdev_info(net->ndev, "no receive rings (%ld): frames as messages only\n",
			    PTR_ERR(alloc));
	} else {
		net->rx_alloc = alloc;
		WRITE_ONCE(net->rx_va, snode_kalloc_va(alloc));
	}
	mutex_unlock(&net->ring_mutex);
}

/**
 * snode_net_ring_stop() - tear down the rings and windows
 * @net: the interface, being stopped: the poll is off, @tx_work idle
 *
 * Withdrawing the exports revokes the peers' windows; they ask again when
 * the interface is up again.
 *
 * Context: RTNL held.
 */
void snode_net_ring_stop(struct snode_net *net)
{
	u32 r, node;

	cancel_work_sync(&net->db_work);
	mutex_lock(&net->ring_mutex);
	for (node = 0; node < net->max_nodes; node++)
		snode_net_txring_drop(net, node);
	for (r = 0; r < SNODE_NET_RINGS; r++)
		snode_net_rxring_drop(net, r);
	WRITE_ONCE(net->rx_va, NULL);
	if (net->rx_alloc)
		snode_kfree(net->rx_alloc);
	net->rx_alloc = NULL;
	bitmap_zero(net->rx_ask, net->max_nodes);
	bitmap_zero(net->rx_gone, net->max_nodes);
	bitmap_zero(net->tx_granted, net->max_nodes);
	bitmap_zero(net->tx_refused, net->max_nodes);
	bitmap_zero(net->db_pending, net->max_nodes);
	bitmap_zero(net->db_failed, net->max_nodes);
	mutex_unlock(&net->ring_mutex);
}

/**
 * snode_net_ring_init() - allocate the rings' bookkeeping
 * @net: the interface, @max_nodes set
 *
 * Context: Process context (probe).
 * Return: 0 or -ENOMEM; snode_net_ring_free() frees what was allocated.
 */
int snode_net_ring_init(struct snode_net *net)
{
	u32 r, node;

	mutex_init(&net->ring_mutex);
	spin_lock_init(&net->ring_lock);
	spin_lock_init(&net->ctrl_lock);
	for (r = 0; r < SNODE_NET_RINGS; r++) {
		net->rxr[r].node = U32_MAX;
		net->rxr[r].held = U32_MAX;
	}
	net->rx_ask = bitmap_zalloc(net->max_nodes, GFP_KERNEL);
	net->rx_gone = bitmap_zalloc(net->max_nodes, GFP_KERNEL);
	net->tx_granted = bitmap_zalloc(net->max_nodes, GFP_KERNEL);
	net->tx_refused = bitmap_zalloc(net->max_nodes, GFP_KERNEL);
	net->db_pending = bitmap_zalloc(net->max_nodes, GFP_KERNEL);
	net->db_failed = bitmap_zalloc(net->max_nodes, GFP_KERNEL);
	net->tx_waiting = bitmap_zalloc(net->max_nodes, GFP_KERNEL);
	net->peer = kvcalloc(net->max_nodes, sizeof(*net->peer), GFP_KERNEL);
	INIT_WORK(&net->db_work, snode_net_db_work);
	u64_stats_init(&net->dbs.syncp);
	if (!net->rx_ask || !net->rx_gone || !net->tx_granted ||
	    !net->tx_refused || !net->db_pending || !net->db_failed ||
	    !net->tx_waiting || !net->peer)
		return -ENOMEM;
	for (node = 0; node < net->max_nodes; node++)
		__skb_queue_head_init(&net->peer[node].waiting);
	return 0;
}

/**
 * snode_net_ring_free() - free the rings' bookkeeping
 * @net: the interface, stopped
 *
 * Context: Process context.
 */
void snode_net_ring_free(struct snode_net *net)
{
	cancel_work_sync(&net->db_work);
	kvfree(net->peer);
	bitmap_free(net->tx_waiting);
	bitmap_free(net->db_failed);
	bitmap_free(net->db_pending);
	bitmap_free(net->tx_refused);
	bitmap_free(net->tx_granted);
	bitmap_free(net->rx_gone);
	bitmap_free(net->rx_ask);
	mutex_destroy(&net->ring_mutex);
}
