/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snode: the network interface, shared by net.c (the interface and the
 * message path), net_ring.c (the window rings), net_ctrl.c (the rings'
 * control messages) and net_stats.c (its counters for the stack and
 * ethtool).
 */
#ifndef _SNODE_NET_H_
#define _SNODE_NET_H_

#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>

#include "msg.h"

#define SNODE_NET_SRC_FIRST	(0x8000 | SNODE_NET_EP)
#define SNODE_NET_SRC_NEXT	SNODE_NET_EP
/* control messages of the ring (frame format v2): struct snode_net_ctrl */
#define SNODE_NET_SRC_CTRL	(0x4000 | SNODE_NET_EP)
#define SNODE_NET_SEND_MS	200
#define SNODE_NET_BATCH		64

/*
 * Receive rings per NIC, and windows onto other nodes' rings (ATT entries)
 * per NIC: the first SNODE_NET_RINGS peers that ask get one, the others
 * use messages.
 */
#define SNODE_NET_RINGS		8
#define SNODE_NET_RING_SIZE	SZ_2M
#define SNODE_NET_SLOT_SIZE	SZ_64K
#define SNODE_NET_SLOT0		SZ_4K
#define SNODE_NET_SLOTS		((SNODE_NET_RING_SIZE - SNODE_NET_SLOT0) / \
				 SNODE_NET_SLOT_SIZE)
/*
 * Frames that wait for a slot of one peer's ring, at most: what the one
 * transmit queue held for all peers before each had its own (net.c's
 * SNODE_NET_TXQ_STOP), so that a stream to one peer is not cut shorter.
 */
#define SNODE_NET_WAIT_MAX	128

/**
 * struct snode_net_ring_hdr - the head of a ring, in the receiver's pool
 * @prod: frames the sender has put in, written by the sender through its
 *        window
 * @__pad0: @prod alone in its cache line
 * @__pad1: the receiver's words alone in theirs
 * @cons: frames the receiver has taken out, written by the receiver
 * @armed: non-zero while the receiver does not poll the ring: the sender
 *         rings the doorbell for a frame it puts in (receiver)
 * @len: per slot, the length of the frame in it (sender)
 * @csum: per slot, 0 if the frame's checksums are complete, else where the
 *        one the sender left to fill starts (bits 31:16, from the frame's
 *        start) and where it goes (15:0, from there), as the stack's
 *        CHECKSUM_PARTIAL says; the receiver hands it on as such (sender)
 *
 * Slot k holds its frame at SNODE_NET_SLOT0 + k * SNODE_NET_SLOT_SIZE.
 */
struct snode_net_ring_hdr {
	__le32 prod;
	__le32 __pad0[15];
	__le32 cons;
	__le32 armed;
	__le32 __pad1[14];
	__le32 len[SNODE_NET_SLOTS];
	__le32 csum[SNODE_NET_SLOTS];
};

/* Types of control messages. */
enum {
	SNODE_NET_CTRL_ASK = 1,		/* sender: give me a ring */
	SNODE_NET_CTRL_GRANT,		/* receiver: here it is */
	SNODE_NET_CTRL_REFUSE,		/* receiver: no ring for you */
	SNODE_NET_CTRL_DOORBELL,	/* sender: my ring has frames */
};

#define SNODE_NET_VERSION	3

/**
 * struct snode_net_ctrl - payload of a control message
 * @type: SNODE_NET_CTRL_*
 * @version: SNODE_NET_VERSION
 * @slots: GRANT: slots of the ring
 * @export_id: GRANT: the export of the ring
 * @key: GRANT: its key
 * @length: GRANT: bytes of the ring
 * @slot_size: GRANT: bytes per slot
 * @seq: ASK: the asker's number for this ASK (never 0); GRANT and REFUSE:
 *       the number of the ASK they answer, so that the asker takes only
 *       the answer to its latest ASK
 */
struct snode_net_ctrl {
	u8 type;
	u8 version;
	__le16 slots;
	__le32 export_id;
	__le64 key;
	__le32 length;
	__le32 slot_size;
	__le32 seq;
};

struct snode_net_rx;

struct snode_net_stats {
	struct u64_stats_sync syncp;
	u64 packets;
	u64 bytes;
	u64 msgs;
	u64 errors;
	u64 length_errors;	/* rx: cut short or oversized */
	u64 frame_errors;	/* rx: a fragment without its frame */
	u64 dropped;		/* rx: no memory */
	u64 carrier_errors;	/* tx: no such node, node down, no endpoint */
	u64 fifo_errors;	/* tx: the destination's ring stayed full */
	u64 waits;		/* tx: frames that waited for a ring slot */
	u64 stuck;		/* tx: rings that stayed full: back-off */
	u64 multicast;
	u64 copies;		/* tx: broadcast copies sent */
	u64 no_iface;		/* tx: broadcast copies a node refused */
	u64 bcast_drops;	/* tx: broadcast copies over the budget */
	u64 msg_frames;		/* frames as messages */
	u64 ring_frames;	/* frames through a ring */
	u64 doorbells;		/* tx: doorbells sent */
	u64 ring_errors;	/* rings that failed or were refused */
	u64 grants;		/* tx: rings granted to peers */
	u64 export_errors;	/* tx: a receive ring not exported */
};

/* Sender's state of the ring at one peer (enum). */
enum {
	SNODE_NET_TX_IDLE,	/* no ring: ask with the next frame */
	SNODE_NET_TX_ASKED,	/* asked, until @until */
	SNODE_NET_TX_RING,	/* frames go through the ring */
	SNODE_NET_TX_REFUSED,	/* messages only, until @until */
};

/**
 * struct snode_net_peer - one peer: the sender's side of the ring at it,
 *                         and the number of its last ASK to us
 * @state: SNODE_NET_TX_* (@tx_work)
 * @until: jiffies at which ASKED or REFUSED ends
 * @imp: the window onto the peer's ring (RING)
 * @hdr: its head
 * @slots: its first slot
 * @prod: frames put in
 * @grant: the peer's last GRANT, from the poll (&snode_net.ctrl_lock)
 * @refuse_seq: the seq of the peer's last REFUSE (&snode_net.ctrl_lock)
 * @ask_seq: the seq of our last ASK to the peer
 * @asked_seq: the seq of the peer's last ASK to us (&snode_net.ctrl_lock)
 * @waiting: frames for the ring that wait for a free slot, in order (RING;
 *           @tx_work, without the queue's lock)
 * @wait_until: jiffies at which the first of @waiting is given up on,
 *              SNODE_NET_SEND_MS after the ring last took a frame
 * @stuck: the ring stayed full for SNODE_NET_SEND_MS: frames to the peer
 *         do not wait, they go if a slot is free and are dropped if not,
 *         until one goes (@tx_work)
 */
struct snode_net_peer {
	u8 state;
	bool stuck;
	unsigned long until;
	struct snode_import *imp;
	struct snode_net_ring_hdr *hdr;
	u8 *slots;
	u32 prod;
	struct snode_net_ctrl grant;
	u32 refuse_seq;
	u32 ask_seq;
	u32 asked_seq;
	struct sk_buff_head waiting;
	unsigned long wait_until;
};

/**
 * struct snode_net_rxring - one receive ring
 * @exp: its export to @node (@ring_mutex)
 * @node: the node it belongs to, U32_MAX if none (written under
 *        &snode_net.ring_lock, read by the poll)
 * @cons: frames taken out (the poll, under &snode_net.ring_lock)
 * @seq: the ASK of @node it was last granted for (@ring_mutex)
 * @held: the node whose frames the ring may still hold, U32_MAX if none
 *        (@ring_mutex)
 */
struct snode_net_rxring {
	struct snode_export *exp;
	u32 node;
	u32 cons;
	u32 seq;
	u32 held;
};

/**
 * struct snode_net - the network interface of one NIC
 * @sdev: the NIC
 * @ndev: its net_device
 * @napi: the receive poll
 * @ep: the receiving endpoint while the interface is up (RTNL)
 * @node_id: this node's id, SNODE_NODE_ID_NONE while detached (RTNL)
 * @mac_node: the node id the MAC was last made of (RTNL)
 * @mac_fabric: the fabric id it was made of (RTNL)
 * @max_nodes: node ids are below this
 * @up: nodes other than this one that are up, as link_node.c last said
 * @skip_until: per node, jiffies until which a node that timed out is
 *              skipped (@tx_work)
 * @rx: per source node, the frame being reassembled (the poll)
 * @rxbuf: the poll's messages
 * @txq: frames waiting for @tx_work
 * @tx_work: sends the frames and does the rings' control work
 * @restart_work: sets the endpoint up again after a reset
 * @id_work: follows the NIC's attach, detach and reset (RTNL)
 * @wq: ordered workqueue of @tx_work
 * @rxs: receive counters (the poll)
 * @txs: transmit counters (@tx_work)
 * @tx_bad_len: frames refused for their length (ndo_start_xmit)
 * @bcast_left: ns broadcast copies may still take in this interval;
 *              below 0 when the last copy overdrew it (@tx_work)
 * @bcast_until: jiffies at which the interval ends (@tx_work)
 * @bcast_next: the node the next broadcast frame starts with (@tx_work)
 * @ring_mutex: held by @tx_work while it runs and by open and stop while
 *              they set up or tear down the rings
 * @ring_lock: protects the receive rings' @node and @cons against the poll
 * @ctrl_lock: protects &snode_net_peer.grant, .refuse_seq and .asked_seq
 * @ctrl: bit 0: one of the bitmaps below has a bit set for @tx_work
 * @rx_ask: nodes that asked for a ring (the poll sets, @tx_work clears)
 * @rx_gone: nodes that went down: free their rings (link_node.c, @tx_work)
 * @tx_granted: nodes whose GRANT is in &snode_net_peer.grant
 * @tx_refused: nodes that refused us a ring
 * @db_work: rings the doorbells of @db_pending
 * @db_pending: nodes whose doorbell is to be rung (@tx_work sets)
 * @db_failed: nodes whose last doorbell failed: ring with the next frame
 * @dbs: doorbell counters (@db_work)
 * @peer: per node, the sender's side (@tx_work)
 * @tx_waiting: nodes with frames in &snode_net_peer.waiting (@tx_work)
 * @tx_rings: peers in state RING (@tx_work)
 * @tx_no_rings: the net_rings parameter was off at open: ask nobody
 * @hw_blocked: the NIC is being reset (or its reset failed): no access to
 *              the receive rings (BAR4) or the windows (BAR2); set by
 *              snode_net_reset_prepare(), which then waits for the RCU
 *              read-side sections every such access is made in, cleared
 *              by snode_net_reset_done()
 * @rx_alloc: pool memory of the receive rings, while up (@ring_mutex)
 * @rx_va: its mapping
 * @rxr: the receive rings
 */
struct snode_net {
	struct snode_dev *sdev;
	struct net_device *ndev;
	struct napi_struct napi;
	struct snode_ep *ep;
	u32 node_id;
	u32 mac_node;
	u32 mac_fabric;
	u32 max_nodes;
	unsigned long *up;
	unsigned long *skip_until;
	struct snode_net_rx *rx;
	struct snode_msg rxbuf[SNODE_NET_BATCH];
	struct sk_buff_head txq;
	struct work_struct tx_work;
	struct work_struct restart_work;
	struct work_struct id_work;
	struct workqueue_struct *wq;
	struct snode_net_stats rxs;
	struct snode_net_stats txs;
	atomic64_t tx_bad_len;
	s64 bcast_left;
	unsigned long bcast_until;
	u32 bcast_next;

	/* held by tx_work, and by open and stop around the rings */
	struct mutex ring_mutex;
	/* protects rxr[].node and rxr[].cons against the poll */
	spinlock_t ring_lock;
	/* protects peer[].grant */
	spinlock_t ctrl_lock;
	unsigned long ctrl;
	unsigned long *rx_ask;
	unsigned long *rx_gone;
	unsigned long *tx_granted;
	unsigned long *tx_refused;
	struct work_struct db_work;
	unsigned long *db_pending;
	unsigned long *db_failed;
	struct snode_net_stats dbs;
	struct snode_net_peer *peer;
	unsigned long *tx_waiting;
	u32 tx_rings;
	bool tx_no_rings;
	bool hw_blocked;
	struct snode_alloc *rx_alloc;
	u8 *rx_va;
	struct snode_net_rxring rxr[SNODE_NET_RINGS];
};

/* The head of receive ring @r, in the pool (while @rx_va is set). */
static inline struct snode_net_ring_hdr *
snode_net_rxhdr(struct snode_net *net, u32 r)
{
	return (void *)(net->rx_va + r * SNODE_NET_RING_SIZE);
}

static inline void snode_net_stat_add(struct snode_net_stats *st, u64 *ctr,
				      u64 n)
{
	u64_stats_update_begin(&st->syncp);
	*ctr += n;
	u64_stats_update_end(&st->syncp);
}

/* net.c */
void snode_net_rx_deliver(struct snode_net *net, struct sk_buff *skb,
			  u32 src_node);
void snode_net_tx_done(struct snode_net *net, struct sk_buff *skb, u32 node,
		       int ret);

/* net_ctrl.c */
void snode_net_doorbell(struct snode_net *net, u32 node);
void snode_net_db_work(struct work_struct *work);
void snode_net_txring_ask(struct snode_net *net, u32 node);
void snode_net_ring_ctrl_msg(struct snode_net *net, const struct snode_msg *m);
void snode_net_ring_node_down(struct snode_net *net, u32 node);
void snode_net_ring_work(struct snode_net *net);

/* net_ring.c */
void snode_net_rxring_drop(struct snode_net *net, u32 r);
void snode_net_txring_drop(struct snode_net *net, u32 node);
int snode_net_ring_init(struct snode_net *net);
void snode_net_ring_free(struct snode_net *net);
void snode_net_ring_open(struct snode_net *net);
void snode_net_ring_stop(struct snode_net *net);
int snode_net_ring_xmit(struct snode_net *net, struct sk_buff *skb, u32 node);
bool snode_net_ring_tx_waiting(struct snode_net *net);
int snode_net_ring_rx(struct snode_net *net, int budget);
bool snode_net_ring_rx_idle(struct snode_net *net);
u32 snode_net_ring_rx_rings(struct snode_net *net);

/* net_stats.c */
void snode_net_get_stats64(struct net_device *ndev,
			   struct rtnl_link_stats64 *s);
extern const struct ethtool_ops snode_net_ethtool_ops;

#endif /* _SNODE_NET_H_ */
