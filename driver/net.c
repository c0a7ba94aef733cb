// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the network interface - IP over the fabric's messages.
 */

#include <linux/bitmap.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/rcupdate.h>
#include <linux/rtnetlink.h>
#include <linux/skbuff.h>
#include <linux/slab.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#include "link.h"
#include "msg.h"
#include "net.h"

/**
 * DOC: Network interface
 *
 * Every NIC with a message engine registers an Ethernet-type interface,
 * snode<N>, so that the tools people already run (ping, iperf3, ssh, MPI
 * launchers) work across the fabric. Documentation/driver/net.rst describes
 * it for users, decisions 0018 and 0031 why it looks like this.
 *
 * Addresses: the MAC is locally administered, 02:53:4e:<fabric id & 0xff>:
 * <node id>, two bytes for the node, so the destination node of a unicast
 * frame is read off its MAC and no neighbour protocol of our own is needed;
 * ARP and IPv6 ND run over broadcast as on Ethernet. The NIC's node id can
 * change: it has none while detached from the fabric and may get another
 * when it attaches again. @id_work follows each FABRIC event (after the
 * core's re-identify) and each reset: a new node or fabric id becomes the
 * MAC (NETDEV_CHANGEADDR, so the stack and its neighbours' caches learn
 * it), and the carrier is off while detached. A NIC that was never
 * attached has a random MAC until it is.
 *
 * Frames travel as messages to endpoint SNODE_NET_EP of the destination
 * node, with key SNODE_NET_KEY: a frame is cut into 48-byte messages; the
 * first carries src_ep SNODE_NET_SRC_FIRST and a 4-byte header (frame
 * length, reserved) before 44 bytes of frame, the others src_ep
 * SNODE_NET_SRC_NEXT and 48 bytes, the last what is left. The device keeps
 * the order of one sender's messages to one endpoint, so the receiver
 * reassembles per source node; a frame cut short (its sender failed midway)
 * is dropped when the next frame's first message arrives, and counted.
 * Broadcast and multicast frames are sent to every node that is up, as
 * messages, within a budget: the copies sent take @tx_work at most
 * SNODE_NET_BCAST_BUSY_MS of every SNODE_NET_BCAST_MS (and one copy
 * over); the others are dropped and counted, and the next frame starts
 * with the nodes the last one left out (decision 0047).
 * Unicast frames to a node that granted us a window ring go through it
 * instead (net_ring.c); the first frames to a node, until it answers,
 * and every frame to a node without a ring, go as messages.
 *
 * Transmit: ndo_start_xmit() queues the frame and kicks @tx_work, since a
 * send sleeps (it owns the device's one set of send registers until the
 * destination answered); the queue stops at SNODE_NET_TXQ_STOP frames and
 * wakes below half of it. A frame for a full ring waits in its peer's own
 * queue (net_ring.c) while @tx_work goes on with the frames to other
 * nodes; a ring that takes no frame for SNODE_NET_SEND_MS loses the
 * frames waiting for it (tx_fifo_errors) and its peer stalls nobody but
 * itself from then on: frames to it go if a slot is free and are dropped
 * if not, until one goes (decision 0031). A node that does not answer the
 * fabric's messages is skipped for SNODE_NET_SKIP_MS after a timeout.
 *
 * Receive: the endpoint's vector calls snode_net_notify() in hard interrupt
 * context, which schedules NAPI; the poll reassembles frames and hands them
 * to GRO, then drains the rings (net_ring.c), and stops only once every
 * ring is armed and found empty. Carrier: on while the NIC is attached and
 * at least one other node is up (the links tell snode_net_node_changed(),
 * a listener of theirs).
 *
 * Reset: no CPU access may reach the NIC while it resets (the rule mem.c
 * states for the pool mappings): snode_net_reset_prepare(), the hook
 * every feature's reset runs through, stops the poll's and @tx_work's
 * accesses to the rings and windows (net_ring.c) and waits for those under
 * way. The reset kills the endpoint (ep.c); the poll then reads nothing.
 * @restart_work, queued by snode_net_reset_done(), stops NAPI, sets the
 * same endpoint up again and restarts NAPI, all under RTNL like open and
 * stop, so the three never overlap.
 *
 * Locking: RTNL serialises open, stop, @restart_work and @id_work; @ep is
 * set under RTNL and read by the poll and @tx_work, which run only while
 * the interface is up. @node_id is written under RTNL and read anywhere
 * (READ_ONCE()); a frame sent while the MAC changes may still name the old
 * one. @up is a bitmap of atomic bit operations. @tx_work
 * runs under &snode_net.ring_mutex, which open and stop take to set up
 * and tear down the rings.
 */

#define SNODE_NET_HDR		4
#define SNODE_NET_MTU_DEFAULT	9000
/* the frame length field is 16 bits */
#define SNODE_NET_MTU_MAX	(U16_MAX - ETH_HLEN)
#define SNODE_NET_RING		4096
#define SNODE_NET_TXQ_STOP	128
#define SNODE_NET_SKIP_MS	2000
/* a node without an interface gets broadcasts again after this */
#define SNODE_NET_NOIF_MS	10000
/* messages one poll takes off the ring at most */
#define SNODE_NET_POLL_MSGS	1024
/* broadcast copies: time of @tx_work per interval (decision 0047) */
#define SNODE_NET_BCAST_BUSY_MS	25
#define SNODE_NET_BCAST_MS	100

struct snode_net_rx {
	struct sk_buff *skb;
	u32 need;
};

static void snode_net_mac(u8 *mac, u32 fabric, u32 node)
{
	mac[0] = 0x02;		/* locally administered, unicast */
	mac[1] = 0x53;		/* 'S' */
	mac[2] = 0x4e;		/* 'N' */
	mac[3] = fabric & 0xff;
	mac[4] = node >> 8;
	mac[5] = node & 0xff;
}

/* The node a unicast MAC names, or U32_MAX (a detached NIC names none). */
static u32 snode_net_mac_node(struct snode_net *net, const u8 *mac)
{
	const u8 *own = net->ndev->dev_addr;
	u32 node;

	if (memcmp(mac, own, 4))
		return U32_MAX;
	node = mac[4] << 8 | mac[5];
	return node < net->max_nodes ? node : U32_MAX;
}

/* ---- transmit --------------------------------------------------------------- */

/* Send one frame to @node: 0, or the errno of the message that failed. */
static int snode_net_send_frame(struct snode_net *net, struct sk_buff *skb,
				u32 node)
{
	struct snode_msg_send cmd = {
		.node = node,
		.ep = SNODE_NET_EP,
		.key = SNODE_NET_KEY,
		.timeout_ms = SNODE_NET_SEND_MS,
	};
	u32 off = 0, src = SNODE_NET_SRC_FIRST, n = 0;
	int ret;

	/* messages carry no checksum offsets: fill the one left open */
	if (skb->ip_summed == CHECKSUM_PARTIAL) {
		ret = skb_checksum_help(skb);
		if (ret)
			return ret;
	}

	while (off < skb->len || src == SNODE_NET_SRC_FIRST) {
		u32 hdr = src == SNODE_NET_SRC_FIRST ? SNODE_NET_HDR : 0;
		u32 chunk = min_t(u32, skb->len - off, SNODE_MSG_MAX_LEN - hdr);

		if (hdr) {
			__le16 len = cpu_to_le16(skb->len);

			memset(cmd.payload, 0, hdr);
			memcpy(cmd.payload, &len, sizeof(len));
		}
		ret = skb_copy_bits(skb, off, cmd.payload + hdr, chunk);
		if (ret)
			return ret;
		cmd.len = hdr + chunk;
		ret = snode_msg_send(net->sdev->msg, &cmd, src);
		if (ret)
			break;
		n++;
		off += chunk;
		src = SNODE_NET_SRC_NEXT;
	}
	snode_net_stat_add(&net->txs, &net->txs.msgs, n);
	if (!ret)
		snode_net_stat_add(&net->txs, &net->txs.msg_frames, 1);
	return ret;
}

/* Count how sending a frame to @node ended. */
static void snode_net_tx_result(struct snode_net *net, u32 node, int ret)
{
	struct snode_net_stats *st = &net->txs;

	switch (ret) {
	case 0:
		return;
	case -EAGAIN:
		snode_net_stat_add(st, &st->fifo_errors, 1);
		break;
	case -ETIMEDOUT:
		WRITE_ONCE(net->skip_until[node],
			   jiffies + msecs_to_jiffies(SNODE_NET_SKIP_MS));
		fallthrough;
	case -ENXIO:		/* its interface is down */
	case -EKEYREJECTED:
	case -EHOSTUNREACH:
	case -ENOLINK:
		snode_net_stat_add(st, &st->carrier_errors, 1);
		break;
	default:
		break;
	}
	snode_net_stat_add(st, &st->errors, 1);
	netdev_dbg(net->ndev, "frame to node %u: %d\n", node, ret);
}

static bool snode_net_skipped(struct snode_net *net, u32 node)
{
	return time_before(jiffies, READ_ONCE(net->skip_until[node]));
}

static void snode_net_tx_sent(struct snode_net *net, struct sk_buff *skb)
{
	struct snode_net_stats *st = &net->txs;

	u64_stats_update_begin(&st->syncp);
	st->packets++;
	st->bytes += skb->len;
	u64_stats_update_end(&st->syncp);
}

/**
 * snode_net_tx_done() - end a unicast frame
 * @net: the interface
 * @skb: the frame, consumed
 * @node: its destination
 * @ret: how its ring took it: 0, -ENOLINK (no ring: send it as messages
 *       now), or the errno it was lost with
 *
 * Context: @tx_work, or stop once @tx_work is idle.
 */
void snode_net_tx_done(struct snode_net *net, struct sk_buff *skb, u32 node,
		       int ret)
{
	if (ret == -ENOLINK)
		ret = snode_net_send_frame(net, skb, node);
	snode_net_tx_result(net, node, ret);
	if (!ret)
		snode_net_tx_sent(net, skb);
	dev_consume_skb_any(skb);
}

/*
 * May a broadcast copy go? While the budget of this interval has time
 * left; the copy then spends what it takes (snode_net_bcast_copy()), and
 * the last one may overdraw it, so that a copy longer than the budget
 * goes at all; the overdraft is paid back from the next intervals.
 * Caller is @tx_work.
 */
static bool snode_net_bcast_may(struct snode_net *net)
{
	if (time_after_eq(jiffies, net->bcast_until)) {
		net->bcast_left = min_t(s64, net->bcast_left, 0) +
				  SNODE_NET_BCAST_BUSY_MS * NSEC_PER_MSEC;
		net->bcast_until = jiffies +
				   msecs_to_jiffies(SNODE_NET_BCAST_MS);
	}
	return net->bcast_left > 0;
}

/* A broadcast copy of @skb to @node, if the budget allows: 1 if it went. */
static u32 snode_net_bcast_copy(struct snode_net *net, struct sk_buff *skb,
				u32 node, bool *over)
{
	struct snode_net_stats *st = &net->txs;
	u64 t0;
	int ret;

	if (snode_net_skipped(net, node))
		return 0;
	if (!snode_net_bcast_may(net)) {
		/* the next frame starts with the first node left out */
		if (!*over)
			net->bcast_next = node;
		*over = true;
		snode_net_stat_add(st, &st->bcast_drops, 1);
		return 0;
	}
	t0 = ktime_get_ns();
	ret = snode_net_send_frame(net, skb, node);
	net->bcast_left -= ktime_get_ns() - t0;
	if (ret == -ENXIO || ret == -EKEYREJECTED) {
		/* no interface there: not this frame's error */
		WRITE_ONCE(net->skip_until[node], jiffies +
			   msecs_to_jiffies(SNODE_NET_NOIF_MS));
		snode_net_stat_add(st, &st->no_iface, 1);
		return 0;
	}
	snode_net_tx_result(net, node, ret);
	return !ret;
}

static void snode_net_xmit_one(struct snode_net *net, struct sk_buff *skb)
{
	const struct ethhdr *eth = (const struct ethhdr *)skb->data;
	struct snode_net_stats *st = &net->txs;
	u32 node, from, to, start, pass, sent = 0;
	bool over = false;
	int ret;

	if (!is_multicast_ether_addr(eth->h_dest)) {
		node = snode_net_mac_node(net, eth->h_dest);
		if (node == U32_MAX || node == READ_ONCE(net->node_id) ||
		    !test_bit(node, net->up) || snode_net_skipped(net, node)) {
			snode_net_stat_add(st, &st->carrier_errors, 1);
			snode_net_stat_add(st, &st->errors, 1);
			dev_consume_skb_any(skb);
			return;
		}
		ret = snode_net_ring_xmit(net, skb, node);
		/* else it waits for a slot of the ring, which ends it */
		if (ret != -EINPROGRESS)
			snode_net_tx_done(net, skb, node, ret);
		return;
	}

	/*
	 * broadcast and multicast: every node that is up gets a copy, as the
	 * budget allows, from @bcast_next on and around
	 */
	start = min(net->bcast_next, net->max_nodes);
	for (pass = 0; pass < 2; pass++) {
		from = pass ? 0 : start;
		to = pass ? start : net->max_nodes;
		for (node = find_next_bit(net->up, to, from); node < to;
		     node = find_next_bit(net->up, to, node + 1))
			sent += snode_net_bcast_copy(net, skb, node, &over);
	}
	snode_net_stat_add(st, &st->copies, sent);
	if (sent) {
		snode_net_stat_add(st, &st->multicast, 1);
		snode_net_tx_sent(net, skb);
	} else if (bitmap_empty(net->up, net->max_nodes)) {
		snode_net_stat_add(st, &st->carrier_errors, 1);
		snode_net_stat_add(st, &st->errors, 1);
	}
	dev_consume_skb_any(skb);
}

static void snode_net_tx_work(struct work_struct *work)
{
	struct snode_net *net = container_of(work, struct snode_net, tx_work);
	struct sk_buff *skb;
	bool waiting;

	mutex_lock(&net->ring_mutex);
	snode_net_ring_work(net);
	for (;;) {
		waiting = snode_net_ring_tx_waiting(net);
		skb = skb_dequeue(&net->txq);
		if (skb) {
			snode_net_xmit_one(net, skb);
			if (netif_queue_stopped(net->ndev) &&
			    skb_queue_len(&net->txq) < SNODE_NET_TXQ_STOP / 2)
				netif_wake_queue(net->ndev);
		} else if (waiting && netif_running(net->ndev)) {
			/* only frames for full rings left: look again soon */
			usleep_range(50, 200);
		} else {
			/* stop drops what still waits (snode_net_ring_stop()) */
			break;
		}
		snode_net_ring_work(net);
		cond_resched();
	}
	mutex_unlock(&net->ring_mutex);
}

static netdev_tx_t snode_net_start_xmit(struct sk_buff *skb,
					struct net_device *ndev)
{
	struct snode_net *net = netdev_priv(ndev);

	if (skb->len < ETH_HLEN || skb->len > U16_MAX) {
		atomic64_inc(&net->tx_bad_len);
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	skb_queue_tail(&net->txq, skb);
	if (skb_queue_len(&net->txq) >= SNODE_NET_TXQ_STOP)
		netif_stop_queue(ndev);
	queue_work(net->wq, &net->tx_work);
	return NETDEV_TX_OK;
}

/* ---- receive ---------------------------------------------------------------- */

static void snode_net_rx_drop(struct snode_net *net, struct snode_net_rx *rx,
			      u64 *ctr)
{
	dev_kfree_skb_any(rx->skb);
	rx->skb = NULL;
	snode_net_stat_add(&net->rxs, ctr, 1);
	snode_net_stat_add(&net->rxs, &net->rxs.errors, 1);
}

/* One message: 1 if it completed a frame handed to the stack. */
static int snode_net_rx_msg(struct snode_net *net, const struct snode_msg *m)
{
	struct snode_net_stats *st = &net->rxs;
	struct snode_net_rx *rx;
	const u8 *data = m->payload;
	u32 len = m->len;
	struct sk_buff *skb;

	if (m->src_node < net->max_nodes && m->src_ep == SNODE_NET_SRC_CTRL) {
		snode_net_ring_ctrl_msg(net, m);
		return 0;
	}
	if (m->src_node >= net->max_nodes ||
	    (m->src_ep != SNODE_NET_SRC_FIRST && m->src_ep != SNODE_NET_SRC_NEXT)) {
		snode_net_stat_add(st, &st->frame_errors, 1);
		snode_net_stat_add(st, &st->errors, 1);
		return 0;
	}
	rx = &net->rx[m->src_node];
	if (m->src_ep == SNODE_NET_SRC_FIRST) {
		__le16 flen_le;
		u32 flen;

		if (rx->skb)	/* its sender gave up on the last one */
			snode_net_rx_drop(net, rx, &st->length_errors);
		if (len < SNODE_NET_HDR) {
			snode_net_stat_add(st, &st->length_errors, 1);
			snode_net_stat_add(st, &st->errors, 1);
			return 0;
		}
		memcpy(&flen_le, data, sizeof(flen_le));
		flen = le16_to_cpu(flen_le);
		if (flen < ETH_HLEN ||
		    flen > net->ndev->max_mtu + ETH_HLEN) {
			snode_net_stat_add(st, &st->length_errors, 1);
			snode_net_stat_add(st, &st->errors, 1);
			return 0;
		}
		skb = napi_alloc_skb(&net->napi, flen);
		if (!skb) {
			snode_net_stat_add(st, &st->dropped, 1);
			return 0;
		}
		rx->skb = skb;
		rx->need = flen;
		data += SNODE_NET_HDR;
		len -= SNODE_NET_HDR;
	} else if (!rx->skb) {
		/* the rest of a frame whose start was lost or refused */
		snode_net_stat_add(st, &st->frame_errors, 1);
		snode_net_stat_add(st, &st->errors, 1);
		return 0;
	}
	/* every fragment but the last is full */
	if (len > rx->need || (len < rx->need && len + (data - m->payload) !=
						 SNODE_MSG_MAX_LEN)) {
		snode_net_rx_drop(net, rx, &st->length_errors);
		return 0;
	}
	skb_put_data(rx->skb, data, len);
	rx->need -= len;
	if (rx->need)
		return 0;

	skb = rx->skb;
	rx->skb = NULL;
	snode_net_stat_add(st, &st->msg_frames, 1);
	snode_net_rx_deliver(net, skb, m->src_node);
	return 1;
}

/**
 * snode_net_rx_deliver() - hand a received frame to the stack
 * @net: the interface
 * @skb: the frame, Ethernet header first
 * @src_node: the node it came from
 *
 * Context: NAPI poll.
 */
void snode_net_rx_deliver(struct snode_net *net, struct sk_buff *skb,
			  u32 src_node)
{
	struct snode_net_stats *st = &net->rxs;

	/* a node that sends frames has an interface: broadcast to it again */
	if (src_node < net->max_nodes &&
	    time_before(jiffies, READ_ONCE(net->skip_until[src_node])))
		WRITE_ONCE(net->skip_until[src_node], jiffies);
	skb->protocol = eth_type_trans(skb, net->ndev);
	u64_stats_update_begin(&st->syncp);
	st->packets++;
	st->bytes += skb->len + ETH_HLEN;
	if (skb->pkt_type == PACKET_BROADCAST ||
	    skb->pkt_type == PACKET_MULTICAST)
		st->multicast++;
	u64_stats_update_end(&st->syncp);
	napi_gro_receive(&net->napi, skb);
}

static int snode_net_poll(struct napi_struct *napi, int budget)
{
	struct snode_net *net = container_of(napi, struct snode_net, napi);
	struct snode_ep *ep = READ_ONCE(net->ep);
	u32 n, i, msgs = 0;
	int done = 0;

	while (ep && done < budget) {
		/* a frame is up to 1366 messages: bound the poll by those too */
		if (msgs >= SNODE_NET_POLL_MSGS)
			return budget;
		n = snode_ep_kernel_read(ep, net->rxbuf, SNODE_NET_BATCH);
		if (!n)
			break;
		msgs += n;
		snode_net_stat_add(&net->rxs, &net->rxs.msgs, n);
		for (i = 0; i < n; i++)
			done += snode_net_rx_msg(net, &net->rxbuf[i]);
		/* frames through the rings after the messages before them */
		if (done < budget)
			done += snode_net_ring_rx(net, budget - done);
	}
	/* and those whose doorbell the sender did not need to ring */
	if (ep && done < budget)
		done += snode_net_ring_rx(net, budget - done);
	/* frames that came while the rings were not armed: poll on */
	if (done >= budget || (ep && !snode_net_ring_rx_idle(net)))
		return budget;
	/* a message that arrived after the last read raised no new poll */
	if (napi_complete_done(napi, done) && ep && snode_ep_kernel_pending(ep))
		napi_schedule(napi);
	return done;
}

static void snode_net_notify(void *priv)
{
	struct snode_net *net = priv;

	napi_schedule(&net->napi);
}

/* Drop every half-reassembled frame (the poll is stopped). */
static void snode_net_rx_flush(struct snode_net *net)
{
	u32 i;

	for (i = 0; i < net->max_nodes; i++) {
		dev_kfree_skb_any(net->rx[i].skb);
		net->rx[i].skb = NULL;
	}
}

/* ---- open, stop, reset ------------------------------------------------------ */

static void snode_net_carrier(struct snode_net *net)
{
	if (READ_ONCE(net->node_id) < net->max_nodes &&
	    !bitmap_empty(net->up, net->max_nodes))
		netif_carrier_on(net->ndev);
	else
		netif_carrier_off(net->ndev);
}

/*
 * Follow the NIC's identity @id: its node id, the MAC made of it when it
 * differs from the one the MAC was last made of, the carrier. @notify:
 * the interface is registered, tell the stack of a new MAC. Caller holds
 * RTNL, or probes.
 */
static void snode_net_follow(struct snode_net *net, const struct snode_id *id,
			     bool notify)
{
	struct net_device *ndev = net->ndev;
	u32 node = id->node_id;
	u8 mac[ETH_ALEN];

	if (node >= net->max_nodes) {
		/* detached: the MAC stays the last attach's */
		WRITE_ONCE(net->node_id, SNODE_NODE_ID_NONE);
		snode_net_carrier(net);
		return;
	}
	if (node != net->mac_node || id->fabric_id != net->mac_fabric) {
		snode_net_mac(mac, id->fabric_id, node);
		eth_hw_addr_set(ndev, mac);
		ndev->addr_assign_type = NET_ADDR_PERM;
		net->mac_node = node;
		net->mac_fabric = id->fabric_id;
		if (notify) {
			call_netdevice_notifiers(NETDEV_CHANGEADDR, ndev);
			netdev_info(ndev, "attached as node %u of fabric %u: MAC %pM\n",
				    node, id->fabric_id, mac);
		}
	}
	/* frames to ourselves are not sent; our old id is another's now */
	clear_bit(node, net->up);
	WRITE_ONCE(net->node_id, node);
	snode_net_carrier(net);
}

static void snode_net_id_work(struct work_struct *work)
{
	struct snode_net *net = container_of(work, struct snode_net, id_work);
	struct snode_id id;

	/* the core's re-identify after the FABRIC event that queued us */
	flush_work(&net->sdev->identify_work);
	snode_id_get(net->sdev, &id);
	rtnl_lock();
	snode_net_follow(net, &id, true);
	rtnl_unlock();
}

/**
 * snode_net_fabric_event() - the NIC attached to or left the fabric
 * @sdev: snode device
 * @ev: FABRIC event
 *
 * Context: Event IRQ thread; in an RCU read-side section, which
 * snode_net_remove() waits for before it cancels @id_work.
 */
static void snode_net_fabric_event(struct snode_dev *sdev,
				   const struct snode_event *ev)
{
	struct snode_net *net;

	rcu_read_lock();
	net = READ_ONCE(sdev->net);
	if (net)
		schedule_work(&net->id_work);
	rcu_read_unlock();
}

static int snode_net_open(struct net_device *ndev)
{
	struct snode_net *net = netdev_priv(ndev);
	struct snode_ep *ep;

	ep = snode_ep_kernel_open(net->sdev->msg, SNODE_NET_EP, SNODE_NET_RING,
				  SNODE_NET_KEY, snode_net_notify, net);
	if (IS_ERR(ep)) {
		netdev_err(ndev, "cannot set up endpoint %u: %ld\n",
			   SNODE_NET_EP, PTR_ERR(ep));
		return PTR_ERR(ep);
	}
	WRITE_ONCE(net->ep, ep);
	snode_net_ring_open(net);
	napi_enable(&net->napi);
	snode_net_carrier(net);
	netif_start_queue(ndev);
	/* messages that came before NAPI was on raised no poll */
	napi_schedule(&net->napi);
	return 0;
}

static int snode_net_stop(struct net_device *ndev)
{
	struct snode_net *net = netdev_priv(ndev);
	struct snode_ep *ep = net->ep;

	netif_stop_queue(ndev);
	cancel_work_sync(&net->tx_work);
	skb_queue_purge(&net->txq);
	napi_disable(&net->napi);
	snode_net_rx_flush(net);
	snode_net_ring_stop(net);
	WRITE_ONCE(net->ep, NULL);
	snode_ep_destroy(net->sdev->msg, ep);
	return 0;
}

static void snode_net_restart_work(struct work_struct *work)
{
	struct snode_net *net = container_of(work, struct snode_net,
					     restart_work);
	int ret;

	rtnl_lock();
	if (netif_running(net->ndev) && net->ep) {
		napi_disable(&net->napi);
		snode_net_rx_flush(net);
		ret = snode_ep_kernel_restart(net->sdev->msg, net->ep);
		if (ret)
			netdev_warn(net->ndev,
				    "endpoint not set up again after reset: %d; bring the interface down and up\n",
				    ret);
		napi_enable(&net->napi);
		napi_schedule(&net->napi);
	}
	rtnl_unlock();
}

/**
 * snode_net_reset_prepare() - the device is about to be reset
 * @sdev: snode device, queues stopped
 *
 * From now until snode_net_reset_done() the poll and @tx_work keep off
 * the receive rings and the windows; the accesses begun before have ended
 * when this returns.
 *
 * Context: Process context; caller holds &snode_dev.rwsem for write.
 */
static void snode_net_reset_prepare(struct snode_dev *sdev)
{
	struct snode_net *net = READ_ONCE(sdev->net);

	if (!net)
		return;
	WRITE_ONCE(net->hw_blocked, true);
	synchronize_rcu();
}

/**
 * snode_net_reset_done() - the device is back from a reset
 * @sdev: snode device
 *
 * Context: Process context; caller holds &snode_dev.rwsem for write, so
 * the endpoint is set up again from a work item.
 */
static void snode_net_reset_done(struct snode_dev *sdev)
{
	struct snode_net *net = READ_ONCE(sdev->net);

	if (!net)
		return;
	WRITE_ONCE(net->hw_blocked, false);
	schedule_work(&net->restart_work);
	/* the reset detached the NIC, which may attach under another id */
	schedule_work(&net->id_work);
}

/**
 * snode_net_node_changed() - a node's state changed
 * @sdev: snode device
 * @node: the node
 * @up: whether it is up now
 *
 * Context: Caller holds &snode_link.lock (snode_link_net_attach()).
 */
static void snode_net_node_changed(struct snode_dev *sdev, u32 node, bool up)
{
	struct snode_net *net = sdev->net;

	if (!net || node >= net->max_nodes || node == READ_ONCE(net->node_id))
		return;
	if (up) {
		set_bit(node, net->up);
		WRITE_ONCE(net->skip_until[node], jiffies);
	} else if (test_and_clear_bit(node, net->up)) {
		snode_net_ring_node_down(net, node);
	}
	snode_net_carrier(net);
}

static const struct net_device_ops snode_net_ops = {
	.ndo_open = snode_net_open,
	.ndo_stop = snode_net_stop,
	.ndo_start_xmit = snode_net_start_xmit,
	.ndo_get_stats64 = snode_net_get_stats64,
	.ndo_set_mac_address = eth_mac_addr,
	.ndo_validate_addr = eth_validate_addr,
};

/* ---- setup and teardown ------------------------------------------------------ */

static void snode_net_free(struct snode_net *net)
{
	if (net->wq)
		destroy_workqueue(net->wq);
	snode_net_ring_free(net);
	bitmap_free(net->up);
	kfree(net->skip_until);
	kvfree(net->rx);
	free_netdev(net->ndev);
}

static void snode_net_remove(void *data)
{
	struct snode_net *net = data;
	struct snode_dev *sdev = net->sdev;

	/* no node change (link_node.c) or reset (pci.c) finds the interface now */
	snode_link_net_attach(sdev, NULL, NULL);
	down_read(&sdev->rwsem);
	up_read(&sdev->rwsem);
	/* nor does a FABRIC event (snode_net_fabric_event()) */
	synchronize_rcu();
	cancel_work_sync(&net->restart_work);
	cancel_work_sync(&net->id_work);
	unregister_netdev(net->ndev);
	cancel_work_sync(&net->restart_work);
	cancel_work_sync(&net->id_work);
	netif_napi_del(&net->napi);
	snode_net_free(net);
}

/**
 * snode_net_init() - register the NIC's network interface
 * @sdev: snode device, identified, links registered
 *
 * A NIC without a message engine, or with fewer endpoints than
 * SNODE_NET_EP needs, has no interface.
 *
 * Context: Process context (probe).
 * Return: 0 or a negative errno.
 */
static int snode_net_init(struct snode_dev *sdev)
{
	struct device *dev = &sdev->pdev->dev;
	struct snode_msg_dev *md = sdev->msg;
	struct net_device *ndev;
	struct snode_net *net;
	struct snode_id id;
	u32 node;
	int ret;

	if (!md || md->nr_ids <= SNODE_NET_EP || !md->nr_vecs) {
		dev_info(dev, "no network interface: endpoint %u not available\n",
			 SNODE_NET_EP);
		return 0;
	}
	snode_id_get(sdev, &id);

	ndev = alloc_netdev(sizeof(*net), "snode%d", NET_NAME_ENUM, ether_setup);
	if (!ndev)
		return -ENOMEM;
	net = netdev_priv(ndev);
	net->sdev = sdev;
	net->ndev = ndev;
	net->node_id = SNODE_NODE_ID_NONE;
	net->mac_node = SNODE_NODE_ID_NONE;
	net->max_nodes = min_t(u32, sdev->link->max_nodes, 1U << 16);
	skb_queue_head_init(&net->txq);
	INIT_WORK(&net->tx_work, snode_net_tx_work);
	INIT_WORK(&net->restart_work, snode_net_restart_work);
	INIT_WORK(&net->id_work, snode_net_id_work);
	u64_stats_init(&net->rxs.syncp);
	u64_stats_init(&net->txs.syncp);
	atomic64_set(&net->tx_bad_len, 0);
	net->up = bitmap_zalloc(net->max_nodes, GFP_KERNEL);
	net->skip_until = kcalloc(net->max_nodes, sizeof(*net->skip_until),
				  GFP_KERNEL);
	net->rx = kvcalloc(net->max_nodes, sizeof(*net->rx), GFP_KERNEL);
	net->wq = alloc_ordered_workqueue("snode%d-net", 0, sdev->index);
	ret = snode_net_ring_init(net);
	if (ret || !net->up || !net->skip_until || !net->rx || !net->wq) {
		snode_net_free(net);
		return -ENOMEM;
	}
	for (node = 0; node < net->max_nodes; node++)
		net->skip_until[node] = jiffies;
	net->bcast_until = jiffies;

	SET_NETDEV_DEV(ndev, dev);
	ndev->netdev_ops = &snode_net_ops;
	ndev->ethtool_ops = &snode_net_ethtool_ops;
	/*
	 * Checksums: frames through a ring carry the offsets of the one the
	 * stack left to fill (net_ring.c); frames as messages get it filled.
	 */
	ndev->hw_features = NETIF_F_SG | NETIF_F_HW_CSUM;
	ndev->features = ndev->hw_features;
	ndev->min_mtu = ETH_MIN_MTU;
	ndev->max_mtu = SNODE_NET_MTU_MAX;
	ndev->mtu = SNODE_NET_MTU_DEFAULT;
	ndev->tx_queue_len = SNODE_NET_TXQ_STOP;
	/* a NIC not attached yet gets its fabric MAC when it attaches */
	eth_hw_addr_random(ndev);
	netif_napi_add(ndev, &net->napi, snode_net_poll);
	netif_carrier_off(ndev);

	/* the nodes that are up now; link_node.c reports the changes from here on */
	snode_link_net_attach(sdev, net, net->up);
	snode_net_follow(net, &id, false);

	ret = register_netdev(ndev);
	if (ret) {
		snode_link_net_attach(sdev, NULL, NULL);
		netif_napi_del(&net->napi);
		snode_net_free(net);
		return ret;
	}
	return devm_add_action_or_reset(dev, snode_net_remove, net);
}

const struct snode_feature_ops snode_net_feature = {
	.name = "the network interface",
	.add = snode_net_init,
	.reset_prepare = snode_net_reset_prepare,
	.reset_done = snode_net_reset_done,
	.events = BIT(SNODE_EV_FABRIC),
	.event = snode_net_fabric_event,
};

/* the interface hears of nodes going up and down from the links */
const struct snode_listener_ops snode_net_listener = {
	.node_changed = snode_net_node_changed,
};
