// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the network interface's window rings - frames through global
 * memory, a message as the doorbell.
 */

#include <linux/bitmap.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/jiffies.h>
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
 * Missed doorbells cannot happen: the sender stores prod, then (full
 * barrier) loads armed; the receiver stores armed, then (full barrier)
 * loads prod before it stops; one of the two sees the other's store.
 *
 * Broadcast and multicast frames always go as messages.
 *
 * Context: the ring's control work (ASK, GRANT, exports and imports, which
 * sleep) runs in @tx_work under &snode_net.ring_mutex; the poll only notes
 * the control messages in bitmaps and drains the receive rings.
 */

static bool snode_net_rings = true;
module_param_named(net_rings, snode_net_rings, bool, 0644);
MODULE_PARM_DESC(net_rings,
		 "network interfaces: unicast frames through window rings (default on; off: messages only, as interfaces opened from now on)");

/* the interface's rings fit in the reserve users leave free (fs.c) */
static_assert(SNODE_NET_RINGS <= SNODE_RESERVE_EXPORTS);
static_assert(SNODE_NET_RINGS <= SNODE_RESERVE_IMPORTS);
static_assert((u64)SNODE_NET_RINGS * SNODE_NET_RING_SIZE <= SNODE_RESERVE_POOL);

/* a REFUSE, or a failed window, makes us ask again after this */
#define SNODE_NET_REFUSED_MS	10000
/* an ASK unanswered for this long is asked again */
#define SNODE_NET_ASK_MS	2000

static struct snode_net_ring_hdr *snode_net_rxhdr(struct snode_net *net,
						  u32 r)
{
	return (void *)(net->rx_va + r * SNODE_NET_RING_SIZE);
}

/* Send control message @c to @node, counted in @st (its writer's). */
static int snode_net_ctrl_send(struct snode_net *net, u32 node,
			       const struct snode_net_ctrl *c,
			       struct snode_net_stats *st)
{
	struct snode_msg_send cmd = {
		.node = node,
		.ep = SNODE_NET_EP,
		.key = SNODE_NET_KEY,
		.timeout_ms = SNODE_NET_SEND_MS,
		.len = sizeof(*c),
	};
	int ret;

	memcpy(cmd.payload, c, sizeof(*c));
	ret = snode_msg_send(net->sdev->msg, &cmd, SNODE_NET_SRC_CTRL);
	if (!ret)
		snode_net_stat_add(st, &st->msgs, 1);
	return ret;
}

static void snode_net_ctrl_kick(struct snode_net *net)
{
	set_bit(0, &net->ctrl);
	queue_work(net->wq, &net->tx_work);
}

/* ---- receiver: rings for the peers ------------------------------------------ */

/* Withdraw ring @r from its node. Caller holds ring_mutex. */
static void snode_net_rxring_drop(struct snode_net *net, u32 r)
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

/* The ring for @node: its own, a free one, or one of a node that is down. */
static u32 snode_net_rxring_pick(struct snode_net *net, u32 node)
{
	u32 r, free = U32_MAX;

	for (r = 0; r < SNODE_NET_RINGS; r++) {
		u32 owner = net->rxr[r].node;

		if (owner == node)
			return r;
		if (free == U32_MAX &&
		    (owner == U32_MAX || !test_bit(owner, net->up)))
			free = r;
	}
	return free;
}

/*
 * Answer @node's latest ASK. An ASK answered already (the same seq: the
 * bit was set again while we answered it) gets its GRANT again and leaves
 * the ring alone: the asker may be using it. Caller holds ring_mutex.
 */
static void snode_net_rxring_grant(struct snode_net *net, u32 node)
{
	struct snode_net_ctrl c = {
		.type = SNODE_NET_CTRL_REFUSE,
		.version = SNODE_NET_VERSION,
	};
	struct snode_net_ring_hdr *hdr;
	struct snode_export *exp;
	u32 r = U32_MAX, seq;

	snode_debug_delay(SNODE_DELAY_NET_GRANT);
	spin_lock_bh(&net->ctrl_lock);
	seq = net->peer[node].asked_seq;
	spin_unlock_bh(&net->ctrl_lock);
	c.seq = cpu_to_le32(seq);
	if (net->rx_alloc)
		r = snode_net_rxring_pick(net, node);
	if (r == U32_MAX)
		goto send;
	if (net->rxr[r].node == node && net->rxr[r].seq == seq &&
	    net->rxr[r].exp &&
	    READ_ONCE(net->rxr[r].exp->state) == SNODE_WINDOW_STATE_ACTIVE)
		goto grant;
	if (net->rxr[r].node != node ||
	    (net->rxr[r].exp &&
	     READ_ONCE(net->rxr[r].exp->state) != SNODE_WINDOW_STATE_ACTIVE))
		snode_net_rxring_drop(net, r);
	if (!net->rxr[r].exp) {
		/*
		 * A ring another node had: its frames go before the new
		 * holder can map the ring (the old one's window is revoked).
		 */
		if (net->rxr[r].held != U32_MAX && net->rxr[r].held != node) {
			memset(snode_net_rxhdr(net, r), 0, SNODE_NET_RING_SIZE);
			net->rxr[r].held = U32_MAX;
		}
		exp = snode_kexport(net->rx_alloc, (u64)r * SNODE_NET_RING_SIZE,
				    SNODE_NET_RING_SIZE, node);
		if (IS_ERR(exp)) {
			netdev_warn_once(net->ndev,
					 "no receive ring for node %u: export failed (%ld); messages only\n",
					 node, PTR_ERR(exp));
			/* counted as rx_ring_errors; @txs is this writer's */
			snode_net_stat_add(&net->txs, &net->txs.export_errors,
					   1);
			goto send;
		}
		net->rxr[r].exp = exp;
	}
	/* the node asked again: its last window is gone, start empty */
	hdr = snode_net_rxhdr(net, r);
	spin_lock_bh(&net->ring_lock);
	WRITE_ONCE(hdr->prod, 0);
	WRITE_ONCE(hdr->cons, 0);
	WRITE_ONCE(hdr->armed, cpu_to_le32(1));
	net->rxr[r].cons = 0;
	WRITE_ONCE(net->rxr[r].node, node);
	spin_unlock_bh(&net->ring_lock);
	net->rxr[r].seq = seq;
	net->rxr[r].held = node;
grant:
	c.type = SNODE_NET_CTRL_GRANT;
	c.slots = cpu_to_le16(SNODE_NET_SLOTS);
	c.export_id = cpu_to_le32(net->rxr[r].exp->id);
	c.key = cpu_to_le64(net->rxr[r].exp->key);
	c.length = cpu_to_le32(SNODE_NET_RING_SIZE);
	c.slot_size = cpu_to_le32(SNODE_NET_SLOT_SIZE);
send:
	if (!snode_net_ctrl_send(net, node, &c, &net->txs) &&
	    c.type == SNODE_NET_CTRL_GRANT)
		snode_net_stat_add(&net->txs, &net->txs.grants, 1);
}

/* Free the ring of a node that went down. Caller holds ring_mutex. */
static void snode_net_rxring_gone(struct snode_net *net, u32 node)
{
	u32 r;

	for (r = 0; r < SNODE_NET_RINGS; r++)
		if (net->rxr[r].node == node)
			snode_net_rxring_drop(net, r);
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
	spin_lock(&net->ring_lock);
	for (r = 0; r < SNODE_NET_RINGS && done < budget; r++)
		if (net->rxr[r].node != U32_MAX)
			done += snode_net_rxring_drain(net, r, budget - done);
	spin_unlock(&net->ring_lock);
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
	return idle;
}

/* ---- sender: windows onto the peers' rings --------------------------------------- */

static void snode_net_peer_set(struct snode_net_peer *peer, u8 state, u32 ms)
{
	peer->state = state;
	peer->until = jiffies + msecs_to_jiffies(ms);
}

/* End every frame waiting for @node's ring with @ret. */
static void snode_net_txring_flush(struct snode_net *net, u32 node, int ret)
{
	struct snode_net_peer *peer = &net->peer[node];
	struct sk_buff *skb;

	while ((skb = __skb_dequeue(&peer->waiting)))
		snode_net_tx_done(net, skb, node, ret);
	clear_bit(node, net->tx_waiting);
}

/* Drop the window onto @node's ring. Caller holds ring_mutex. */
static void snode_net_txring_drop(struct snode_net *net, u32 node)
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

/* Map the ring @node granted. Caller holds ring_mutex. */
static void snode_net_txring_map(struct snode_net *net, u32 node)
{
	struct snode_net_peer *peer = &net->peer[node];
	struct snode_import *imp;
	struct snode_net_ctrl g;

	spin_lock_bh(&net->ctrl_lock);
	g = peer->grant;
	spin_unlock_bh(&net->ctrl_lock);
	if (peer->state != SNODE_NET_TX_ASKED ||
	    le32_to_cpu(g.seq) != peer->ask_seq)
		return;		/* a late answer to an ASK given up on */
	if (le16_to_cpu(g.slots) != SNODE_NET_SLOTS ||
	    le32_to_cpu(g.length) != SNODE_NET_RING_SIZE ||
	    le32_to_cpu(g.slot_size) != SNODE_NET_SLOT_SIZE ||
	    net->tx_rings >= SNODE_NET_RINGS) {
		/* another layout, or no ATT entry left for the interface */
		snode_net_peer_set(peer, SNODE_NET_TX_REFUSED,
				   SNODE_NET_REFUSED_MS);
		return;
	}
	imp = snode_kimport(net->sdev, node, le32_to_cpu(g.export_id),
			    le64_to_cpu(g.key), SNODE_NET_RING_SIZE);
	if (IS_ERR(imp)) {
		netdev_dbg(net->ndev, "window onto node %u's ring: %ld\n",
			   node, PTR_ERR(imp));
		snode_net_stat_add(&net->txs, &net->txs.ring_errors, 1);
		snode_net_peer_set(peer, SNODE_NET_TX_REFUSED,
				   SNODE_NET_REFUSED_MS);
		return;
	}
	peer->imp = imp;
	peer->hdr = snode_kimport_va(imp);
	peer->slots = (u8 *)peer->hdr + SNODE_NET_SLOT0;
	peer->prod = 0;
	peer->state = SNODE_NET_TX_RING;
	net->tx_rings++;
}

/*
 * Ring @node's doorbell from @db_work, so that @tx_work goes on filling the
 * ring during the fabric round trip of the message.
 */
static void snode_net_doorbell(struct snode_net *net, u32 node)
{
	set_bit(node, net->db_pending);
	queue_work(system_highpri_wq, &net->db_work);
}

static void snode_net_db_work(struct work_struct *work)
{
	struct snode_net *net = container_of(work, struct snode_net, db_work);
	struct snode_net_ctrl c = {
		.type = SNODE_NET_CTRL_DOORBELL,
		.version = SNODE_NET_VERSION,
	};
	u32 node;

	for_each_set_bit(node, net->db_pending, net->max_nodes) {
		if (!test_and_clear_bit(node, net->db_pending))
			continue;
		if (snode_net_ctrl_send(net, node, &c, &net->dbs))
			/* ring it again with the next frame */
			set_bit(node, net->db_failed);
		else
			snode_net_stat_add(&net->dbs, &net->dbs.doorbells, 1);
	}
}

/* Ask @node for a ring. Caller holds ring_mutex. */
static void snode_net_txring_ask(struct snode_net *net, u32 node)
{
	struct snode_net_peer *peer = &net->peer[node];
	struct snode_net_ctrl c = {
		.type = SNODE_NET_CTRL_ASK,
		.version = SNODE_NET_VERSION,
	};

	/* a new number: the answer to an earlier ASK is not this one's */
	peer->ask_seq = peer->ask_seq + 1 ?: 1;
	c.seq = cpu_to_le32(peer->ask_seq);
	if (net->tx_rings >= SNODE_NET_RINGS || net->tx_no_rings ||
	    !net->sdev->mem || !net->sdev->mem->ap_va) {
		snode_net_peer_set(peer, SNODE_NET_TX_REFUSED,
				   SNODE_NET_REFUSED_MS);
		return;
	}
	if (snode_net_ctrl_send(net, node, &c, &net->txs))
		snode_net_peer_set(peer, SNODE_NET_TX_REFUSED,
				   SNODE_NET_REFUSED_MS);
	else
		snode_net_peer_set(peer, SNODE_NET_TX_ASKED, SNODE_NET_ASK_MS);
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
 */
static int snode_net_txring_room(struct snode_net *net, u32 node)
{
	struct snode_net_peer *peer = &net->peer[node];
	u32 used;

	if (!snode_kimport_live(peer->imp) || !test_bit(node, net->up))
		return -ECONNRESET;
	used = peer->prod - le32_to_cpu(READ_ONCE(peer->hdr->cons));
	if (used < SNODE_NET_SLOTS)
		return 1;
	if (used > SNODE_NET_SLOTS)
		return -ECONNRESET;
	/* the receiver is busy with the ring, unless a doorbell failed */
	if (test_and_clear_bit(node, net->db_failed) ||
	    READ_ONCE(peer->hdr->armed))
		snode_net_doorbell(net, node);
	return 0;
}

/* Put @skb into the free slot of @node's ring: 0 or -EFAULT. */
static int snode_net_txring_put(struct snode_net *net, struct sk_buff *skb,
				u32 node)
{
	struct snode_net_peer *peer = &net->peer[node];
	struct snode_net_stats *st = &net->txs;
	u32 slot = peer->prod % SNODE_NET_SLOTS;
	int ret;

	ret = skb_copy_bits(skb, 0, peer->slots + slot * SNODE_NET_SLOT_SIZE,
			    skb->len);
	if (ret)
		return ret;
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

/* ---- control ------------------------------------------------------------------ */

/**
 * snode_net_ring_ctrl_msg() - a control message arrived
 * @net: the interface
 * @m: the message, from source endpoint SNODE_NET_SRC_CTRL
 *
 * A doorbell needs nothing: the poll drains every ring after the messages.
 *
 * Context: NAPI poll.
 */
void snode_net_ring_ctrl_msg(struct snode_net *net, const struct snode_msg *m)
{
	struct snode_net_ctrl c = {};
	u32 node = m->src_node;

	memcpy(&c, m->payload, min_t(u32, m->len, sizeof(c)));
	if (m->len < sizeof(c) || c.version != SNODE_NET_VERSION) {
		snode_net_stat_add(&net->rxs, &net->rxs.frame_errors, 1);
		snode_net_stat_add(&net->rxs, &net->rxs.errors, 1);
		return;
	}
	switch (c.type) {
	case SNODE_NET_CTRL_ASK:
		spin_lock(&net->ctrl_lock);
		net->peer[node].asked_seq = le32_to_cpu(c.seq);
		spin_unlock(&net->ctrl_lock);
		set_bit(node, net->rx_ask);
		break;
	case SNODE_NET_CTRL_GRANT:
		spin_lock(&net->ctrl_lock);
		net->peer[node].grant = c;
		spin_unlock(&net->ctrl_lock);
		set_bit(node, net->tx_granted);
		break;
	case SNODE_NET_CTRL_REFUSE:
		spin_lock(&net->ctrl_lock);
		net->peer[node].refuse_seq = le32_to_cpu(c.seq);
		spin_unlock(&net->ctrl_lock);
		set_bit(node, net->tx_refused);
		break;
	case SNODE_NET_CTRL_DOORBELL:
		return;
	default:
		snode_net_stat_add(&net->rxs, &net->rxs.frame_errors, 1);
		snode_net_stat_add(&net->rxs, &net->rxs.errors, 1);
		return;
	}
	snode_net_ctrl_kick(net);
}

/**
 * snode_net_ring_node_down() - a node went down: its ring is freed
 * @net: the interface
 * @node: the node
 *
 * Its window (our side) goes at the next frame to it, or at stop.
 *
 * Context: Caller holds &snode_link.lock.
 */
void snode_net_ring_node_down(struct snode_net *net, u32 node)
{
	set_bit(node, net->rx_gone);
	snode_net_ctrl_kick(net);
}

/* Process every noted bit of @map with @fn. Caller holds ring_mutex. */
static void snode_net_ring_each(struct snode_net *net, unsigned long *map,
				void (*fn)(struct snode_net *net, u32 node))
{
	u32 node;

	for_each_set_bit(node, map, net->max_nodes)
		if (test_and_clear_bit(node, map))
			fn(net, node);
}

static void snode_net_txring_refused(struct snode_net *net, u32 node)
{
	struct snode_net_peer *peer = &net->peer[node];
	u32 seq;

	spin_lock_bh(&net->ctrl_lock);
	seq = peer->refuse_seq;
	spin_unlock_bh(&net->ctrl_lock);
	if (peer->state == SNODE_NET_TX_ASKED && seq == peer->ask_seq)
		snode_net_peer_set(peer, SNODE_NET_TX_REFUSED,
				   SNODE_NET_REFUSED_MS);
}

static void snode_net_txring_gone(struct snode_net *net, u32 node)
{
	snode_net_rxring_gone(net, node);
	snode_net_txring_drop(net, node);
}

/**
 * snode_net_ring_work() - the rings' control work
 * @net: the interface
 *
 * Answers ASKs, maps GRANTs, notes REFUSEs, frees the rings and windows of
 * nodes that went down.
 *
 * Context: @tx_work, which holds &snode_net.ring_mutex.
 */
void snode_net_ring_work(struct snode_net *net)
{
	lockdep_assert_held(&net->ring_mutex);

	if (!test_and_clear_bit(0, &net->ctrl))
		return;
	snode_net_ring_each(net, net->rx_gone, snode_net_txring_gone);
	snode_net_ring_each(net, net->rx_ask, snode_net_rxring_grant);
	snode_net_ring_each(net, net->tx_refused, snode_net_txring_refused);
	snode_net_ring_each(net, net->tx_granted, snode_net_txring_map);
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
