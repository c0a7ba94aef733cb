// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the network interface's control messages - ASK, GRANT, REFUSE
 * and DOORBELL between the two ends of a window ring.
 */

#include <linux/bitmap.h>
#include <linux/jiffies.h>
#include <linux/rcupdate.h>

#include "mem.h"
#include "net.h"

/**
 * DOC: Ring control messages
 *
 * A sender asks a node for a ring (ASK, snode_net_txring_ask()); the
 * receiver answers with GRANT or REFUSE (snode_net_rxring_grant()) from
 * @tx_work, and the sender maps a GRANT into a window
 * (snode_net_txring_map()). The poll only notes what arrived
 * (snode_net_ring_ctrl_msg()) in bitmaps; snode_net_ring_work() acts on
 * them under &snode_net.ring_mutex, since exports, imports and sends
 * sleep. DOORBELLs leave from @db_work. net_ring.c moves the frames;
 * Documentation/driver/net.rst gives the format.
 */

/* a REFUSE, or a failed window, makes us ask again after this */
#define SNODE_NET_REFUSED_MS	10000
/* an ASK unanswered for this long is asked again */
#define SNODE_NET_ASK_MS	2000

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
			/* not while the NIC resets (net_ring.c) */
			rcu_read_lock();
			if (READ_ONCE(net->hw_blocked)) {
				rcu_read_unlock();
				goto send;
			}
			memset(snode_net_rxhdr(net, r), 0, SNODE_NET_RING_SIZE);
			rcu_read_unlock();
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
	rcu_read_lock();
	if (READ_ONCE(net->hw_blocked)) {
		rcu_read_unlock();
		goto send;
	}
	spin_lock_bh(&net->ring_lock);
	WRITE_ONCE(hdr->prod, 0);
	WRITE_ONCE(hdr->cons, 0);
	WRITE_ONCE(hdr->armed, cpu_to_le32(1));
	net->rxr[r].cons = 0;
	WRITE_ONCE(net->rxr[r].node, node);
	spin_unlock_bh(&net->ring_lock);
	rcu_read_unlock();
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

static void snode_net_peer_set(struct snode_net_peer *peer, u8 state, u32 ms)
{
	peer->state = state;
	peer->until = jiffies + msecs_to_jiffies(ms);
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

/**
 * snode_net_doorbell() - ring @node's doorbell
 * @net: the interface
 * @node: the receiver of the ring we put a frame into
 *
 * From @db_work, so that @tx_work goes on filling the ring during the
 * fabric round trip of the message.
 *
 * Context: Any context.
 */
void snode_net_doorbell(struct snode_net *net, u32 node)
{
	set_bit(node, net->db_pending);
	queue_work(system_highpri_wq, &net->db_work);
}

/**
 * snode_net_db_work() - send the pending doorbells
 * @work: &snode_net.db_work
 *
 * Context: Process context (a work item).
 */
void snode_net_db_work(struct work_struct *work)
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

/**
 * snode_net_txring_ask() - ask @node for a ring
 * @net: the interface
 * @node: the node
 *
 * Context: @tx_work, which holds &snode_net.ring_mutex.
 */
void snode_net_txring_ask(struct snode_net *net, u32 node)
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

/* ---- the poll's side, and the work on what it noted ----------------------------- */

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
