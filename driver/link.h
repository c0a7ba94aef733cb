/* SPDX-License-Identifier: GPL-2.0 */
/*
 * snode: link and fabric node state, shared by the link files (link.c,
 * link_util.c, link_iso.c, link_node.c) and the netlink family (netlink.c,
 * nl_*.c).
 */
#ifndef _SNODE_LINK_H_
#define _SNODE_LINK_H_

#include <linux/mutex.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include <linux/snode.h>

#include "hw.h"
#include "snode.h"

struct snode_dev;
struct snode_net;

/* The contract allows 1 to 8 ports; LIMITS0 has room for 255. */
#define SNODE_LINK_MAX_PORTS	8

/* The family reports bit-error rates in units of 1e-18: this is 1.0. */
#define SNODE_BER_ONE		1000000000000000000ULL

/* Route port of a node that has none, in the cache and in notifications. */
#define SNODE_LINK_NO_ROUTE	0xff

/*
 * An auto-isolate flap limit is at most this many down events (the driver
 * keeps the time of each), counted over at most a day.
 */
#define SNODE_LINK_MAX_FLAPS		64
#define SNODE_LINK_MAX_FLAP_WINDOW	86400

/*
 * At most one notification per object (a link, a node, the access
 * violations of a NIC) and kind per interval; the rest are folded into the
 * next one, which carries the latest state and how many it replaces.
 */
#define SNODE_RL_INTERVAL_NS	NSEC_PER_SEC

/*
 * Utilisation (decision 0027): the driver samples every port's byte
 * counters each SNODE_UTIL_PERIOD_MS and expresses what crossed the link
 * in the period as hundredths of a percent of lanes x speed. The alarm
 * rises at the threshold (percent, SNODE_UTIL_DEFAULT unless set) and
 * clears below it by SNODE_UTIL_HYSTERESIS points (half the threshold if
 * that is less), so a link running at the threshold does not flap.
 */
#define SNODE_UTIL_PERIOD_MS	1000
#define SNODE_UTIL_DEFAULT	80
#define SNODE_UTIL_HYSTERESIS	10
#define SNODE_UTIL_MAX		1000000	/* clamp: 10000 %, a NIC gone mad */

/**
 * struct snode_port - what PORT_QUERY reports about a port, decoded
 * @admin_state: SNODE_LINK_ADMIN_STATE_*; events do not carry it
 * @oper_state: SNODE_LINK_OPER_STATE_*
 * @lanes: active lanes
 * @max_lanes: lanes of the link
 * @speed: per lane, Gb/s
 * @peer_node: node at the other end, SNODE_NODE_ID_NONE for a switch
 * @peer_port: port of @peer_node, or a switch id with SNODE_PORT_PEER_SWITCH
 * @crc_errors: CRC errors
 * @replays: link-level retransmissions
 * @recoveries: link retrains
 * @down_events: transitions to down
 * @tx_bytes: bytes sent
 * @rx_bytes: bytes received
 * @tx_msgs: messages sent
 * @rx_msgs: messages received
 * @ber: bit-error rate, units of 1e-18
 */
struct snode_port {
	u8 admin_state;
	u8 oper_state;
	u8 lanes;
	u8 max_lanes;
	u16 speed;
	u32 peer_node;
	u32 peer_port;
	u64 crc_errors;
	u64 replays;
	u64 recoveries;
	u64 down_events;
	u64 tx_bytes;
	u64 rx_bytes;
	u64 tx_msgs;
	u64 rx_msgs;
	u64 ber;
};

/**
 * struct snode_ev_meta - what every notification carries besides its object
 * @ts: CLOCK_REALTIME when the driver learnt of the event, ns
 * @hw_ts: the NIC's timestamp of the event (ns since it attached), 0 for
 *         events the driver raises itself
 * @suppressed: events folded into this one by the rate limit
 */
struct snode_ev_meta {
	u64 ts;
	u64 hw_ts;
	u32 suppressed;
};

/**
 * struct snode_rl - rate limit of one kind of notification about one object
 * @last: ktime_get_ns() when the last one was sent; 0: never
 * @held: events held back since; the flush work sends the latest state
 * @meta: timestamps of the newest held-back event
 */
struct snode_rl {
	u64 last;
	u32 held;
	struct snode_ev_meta meta;
};

/**
 * struct snode_isolate - auto-isolate policy of a link and what it did
 * @on: the policy is in force; off by default
 * @ber: bit-error rate limit, units of 1e-18; 0: none
 * @flaps: flap limit, down events within @window seconds; 0: none
 * @window: seconds, 1 to SNODE_LINK_MAX_FLAP_WINDOW with @flaps
 * @state: SNODE_LINK_ISOLATION_*; only rises until link-clear
 * @reason: SNODE_ISOLATE_REASON_* of @state
 */
struct snode_isolate {
	bool on;
	u64 ber;
	u32 flaps;
	u32 window;
	u8 state;
	u8 reason;
};

/**
 * struct snode_isolate_set - a link-set's changes to the policy
 * @set_on: change @on
 * @on: turn the policy on or off
 * @set_ber: change the BER limit to @ber
 * @ber: units of 1e-18; 0: none
 * @set_flaps: change the flap limit to @flaps within @window
 * @flaps: 0 to SNODE_LINK_MAX_FLAPS; 0: none
 * @window: seconds, 1 to SNODE_LINK_MAX_FLAP_WINDOW when @flaps is not 0
 */
struct snode_isolate_set {
	bool set_on;
	bool on;
	bool set_ber;
	u64 ber;
	bool set_flaps;
	u32 flaps;
	u32 window;
};

/**
 * struct snode_link_util - utilisation of a link and its alarm
 * @threshold: alarm threshold, percent of lanes x speed, 1 to 100
 * @tx: bytes sent in the last period, hundredths of a percent
 * @rx: bytes received in the last period, hundredths of a percent
 * @alarm: in alarm: reached @threshold, not yet below it by the hysteresis
 */
struct snode_link_util {
	u32 threshold;
	u32 tx;
	u32 rx;
	bool alarm;
};

/**
 * struct snode_link_port - cached state of one port
 * @port: as the NIC last reported it, in an event or to PORT_QUERY
 * @stamp: &snode_link.events when an event last changed @port
 * @ber_threshold: the link's own alarm threshold, 0: the NIC's
 * @ber_alarm: the BER is at or above the threshold in force
 * @rl: rate limits of the link-state, link-ber and link-isolation
 *      notifications
 * @iso: auto-isolate policy and state
 * @iso_pending: SNODE_ISOLATE_REASON_* the isolate work is to act on, 0:
 *               nothing to do
 * @iso_refused: past a limit but the last link up; said once until cleared
 * @flap_seen: @port.down_events already counted as flaps; a smaller value
 *             (the counters were cleared) is the new base
 * @flap_next: slot of @flap_times for the next down event
 * @flap_times: ktime_get_ns() of the last &snode_isolate.flaps down
 *              events, 0 for none
 * @util: utilisation and its alarm
 * @util_tx_bytes: tx_bytes at the last utilisation sample
 * @util_rx_bytes: rx_bytes at the last utilisation sample
 * @util_ns: ktime_get_ns() of the last sample; 0: none yet
 */
struct snode_link_port {
	struct snode_port port;
	u32 stamp;
	u64 ber_threshold;
	bool ber_alarm;
	struct snode_rl rl[SNODE_LINK_NTF_NR];
	struct snode_isolate iso;
	u8 iso_pending;
	bool iso_refused;
	u64 flap_seen;
	unsigned int flap_next;
	u64 flap_times[SNODE_LINK_MAX_FLAPS];
	struct snode_link_util util;
	u64 util_tx_bytes;
	u64 util_rx_bytes;
	u64 util_ns;
};

/**
 * struct snode_link_node - cached state of one fabric node
 * @state: SNODE_NODE_STATE_*
 * @route: route port, SNODE_LINK_NO_ROUTE if none
 * @sent_state: @state as the last notification reported it
 * @sent_route: @route as the last notification reported it
 * @stamp: &snode_link.events when an event last changed this node
 * @rl: rate limit of its node-state notifications
 * @hops: links of the route, 0: none (NODE_TOPO, decision 0030)
 * @plane: plane of @sw, SNODE_TOPO_NO_PLANE: none
 * @sw: switch delivering to the node, SNODE_TOPO_NONE16: none
 * @rack: the node's rack, SNODE_TOPO_NONE16: none
 */
struct snode_link_node {
	u8 state;
	u8 route;
	u8 sent_state;
	u8 sent_route;
	u32 stamp;
	struct snode_rl rl;
	u8 hops;
	u8 plane;
	u16 sw;
	u16 rack;
};

/**
 * struct snode_link_topo - the fabric's switch and rack names (TOPO_NAMES)
 * @names: per kind (SNODE_TOPO_SWITCHES, SNODE_TOPO_RACKS), by id
 * @count: ids of each kind
 * @valid: read since the NIC last attached; cleared by a resync
 */
struct snode_link_topo {
	struct snode_topo_name names[2][SNODE_TOPO_MAX_NAMES];
	u32 count[2];
	bool valid;
};

/**
 * struct snode_link - link health of one NIC
 * @sdev: the NIC
 * @nports: ports, at most SNODE_LINK_MAX_PORTS
 * @max_nodes: entries of @nodes
 * @flush_work: sends the notifications the rate limit held back
 * @resync_work: re-reads every port and node after events were lost
 * @isolate_work: takes down the links past their auto-isolate policy
 * @util_work: samples the byte counters of every port each period
 * @lock: protects the members below; held while their notifications are
 *        sent, so that they leave in the order of the events
 * @live: notifications and work may be scheduled; cleared on removal
 * @events: link and node events handled; orders what PORT_QUERY and
 *          NODE_LIST return against the events that arrive meanwhile
 * @ber_threshold: alarm threshold of links without their own, 0: none
 * @flush_due: jiffies when @flush_work runs, while it is pending
 * @ports: per port state
 * @nodes: per node state, indexed by node id
 * @av_rl: rate limit of access-violation notifications
 * @av_offset: aperture offset of the newest held-back violation
 * @av_write: whether it was a write
 * @av_suppressed: violations the NIC itself folded into the held-back ones
 * @topo: names of the fabric's switches and racks
 */
struct snode_link {
	struct snode_dev *sdev;
	unsigned int nports;
	unsigned int max_nodes;
	struct delayed_work flush_work;
	struct work_struct resync_work;
	struct work_struct isolate_work;
	struct delayed_work util_work;

	/* protects the members below; held while sending their notifications */
	struct mutex lock;
	bool live;
	u32 events;
	u64 ber_threshold;
	unsigned long flush_due;
	struct snode_link_port ports[SNODE_LINK_MAX_PORTS];
	struct snode_link_node *nodes;
	struct snode_rl av_rl;
	u64 av_offset;
	bool av_write;
	u32 av_suppressed;
	struct snode_link_topo *topo;
};

/* the link files: what the netlink family, devlink and net.c use */
u64 snode_ber_decode(u64 bits);
int snode_link_port_get(struct snode_dev *sdev, unsigned int port,
			struct snode_port *p, u64 *threshold, bool *alarm,
			struct snode_isolate *iso);
int snode_link_port_set(struct snode_dev *sdev, unsigned int port, u32 action);
int snode_link_set_threshold(struct snode_dev *sdev, int port, u64 threshold);
int snode_link_set_isolate(struct snode_dev *sdev, unsigned int port,
			   const struct snode_isolate_set *set);
int snode_link_set_util_threshold(struct snode_dev *sdev, unsigned int port,
				  u32 threshold);
void snode_link_util_get(struct snode_dev *sdev, unsigned int port,
			 struct snode_link_util *util);
u32 snode_util_of(u64 bytes, u64 ns, u32 lanes, u32 speed);
u32 snode_util_hysteresis(u32 threshold);
int snode_link_nodes_refresh(struct snode_dev *sdev);
int snode_link_topo_refresh(struct snode_dev *sdev);
const char *__snode_link_topo_name(struct snode_link *link, unsigned int kind,
				   u32 id, u8 *plane);
void snode_link_net_attach(struct snode_dev *sdev, struct snode_net *net,
			   unsigned long *up);

/* link.c, link_util.c, link_iso.c, link_node.c: between the link files */
u64 __snode_link_threshold(struct snode_link *link, struct snode_link_port *lp);
bool __snode_rl_admit(struct snode_link *link, struct snode_rl *rl,
		      const struct snode_ev_meta *meta);
void __snode_link_notify(struct snode_link *link, unsigned int port,
			 enum snode_link_ntf kind,
			 const struct snode_ev_meta *meta);
void snode_link_util_work(struct work_struct *work);
void __snode_link_flaps_reset(struct snode_link *link,
			      struct snode_link_port *lp);
void __snode_link_isolation(struct snode_link *link, unsigned int port,
			    u8 state, u8 reason,
			    const struct snode_ev_meta *meta);
void __snode_link_check_isolate(struct snode_link *link, unsigned int port,
				const struct snode_ev_meta *meta);
void snode_link_isolate_work(struct work_struct *work);
void __snode_node_send(struct snode_link *link, u32 id,
		       const struct snode_ev_meta *meta);
void snode_link_node_event(struct snode_link *link,
			   const struct snode_event_node_state *d,
			   const struct snode_ev_meta *meta);

/*
 * Tell every listener of the NIC (main.c's table: the netlink family,
 * devlink, the network interface) that has the hook.
 */
static inline void snode_tell_nodes_changed(struct snode_dev *sdev)
{
	const struct snode_listener_ops *const *ops;

	for (ops = sdev->listeners; *ops; ops++)
		if ((*ops)->nodes_changed)
			(*ops)->nodes_changed(sdev);
}

static inline void snode_tell_link_ntf(struct snode_dev *sdev,
				       enum snode_link_ntf kind,
				       unsigned int port,
				       const struct snode_link_port *lp,
				       u64 threshold,
				       const struct snode_ev_meta *meta)
{
	const struct snode_listener_ops *const *ops;

	for (ops = sdev->listeners; *ops; ops++)
		if ((*ops)->link_ntf)
			(*ops)->link_ntf(sdev, kind, port, lp, threshold, meta);
}

static inline void snode_tell_node_ntf(struct snode_dev *sdev, u32 id,
				       const struct snode_link_node *ln,
				       const struct snode_ev_meta *meta)
{
	const struct snode_listener_ops *const *ops;

	for (ops = sdev->listeners; *ops; ops++)
		if ((*ops)->node_ntf)
			(*ops)->node_ntf(sdev, id, ln, meta);
}

static inline void snode_tell_revoked_ntf(struct snode_dev *sdev, u32 att_index,
					  u32 reason, u32 epoch, u32 node,
					  u32 export_id,
					  const struct snode_ev_meta *meta)
{
	const struct snode_listener_ops *const *ops;

	for (ops = sdev->listeners; *ops; ops++)
		if ((*ops)->revoked_ntf)
			(*ops)->revoked_ntf(sdev, att_index, reason, epoch, node,
					    export_id, meta);
}

static inline void snode_tell_access_ntf(struct snode_dev *sdev, u64 offset,
					 bool write,
					 const struct snode_ev_meta *meta)
{
	const struct snode_listener_ops *const *ops;

	for (ops = sdev->listeners; *ops; ops++)
		if ((*ops)->access_ntf)
			(*ops)->access_ntf(sdev, offset, write, meta);
}

static inline void snode_tell_thermal_ntf(struct snode_dev *sdev, s32 temp,
					  u32 power, u32 alarm,
					  const struct snode_ev_meta *meta)
{
	const struct snode_listener_ops *const *ops;

	for (ops = sdev->listeners; *ops; ops++)
		if ((*ops)->thermal_ntf)
			(*ops)->thermal_ntf(sdev, temp, power, alarm, meta);
}

static inline void snode_tell_link_error(struct snode_dev *sdev,
					 unsigned int port, const char *reason,
					 const struct snode_port *state,
					 u64 threshold)
{
	const struct snode_listener_ops *const *ops;

	for (ops = sdev->listeners; *ops; ops++)
		if ((*ops)->link_error)
			(*ops)->link_error(sdev, port, reason, state, threshold);
}

static inline void snode_tell_thermal_alarm(struct snode_dev *sdev, s32 temp,
					    u32 power, u32 alarm)
{
	const struct snode_listener_ops *const *ops;

	for (ops = sdev->listeners; *ops; ops++)
		if ((*ops)->thermal_alarm)
			(*ops)->thermal_alarm(sdev, temp, power, alarm);
}

static inline void snode_tell_node_changed(struct snode_dev *sdev, u32 node,
					   bool up)
{
	const struct snode_listener_ops *const *ops;

	for (ops = sdev->listeners; *ops; ops++)
		if ((*ops)->node_changed)
			(*ops)->node_changed(sdev, node, up);
}

#endif /* _SNODE_LINK_H_ */
