// SPDX-License-Identifier: GPL-2.0
/*
 * snode: link health, fabric nodes and their events.
 */

#include <linux/bitfield.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/slab.h>

#include <linux/snode.h>

#include "link.h"
#include "snode.h"

/**
 * DOC: Link health
 *
 * link.c keeps, per NIC, what the device last said about its ports and
 * about the other nodes of the fabric (&struct snode_link), turns the
 * device's LINK_STATE, LINK_BER, NODE_STATE, ACCESS_VIOLATION,
 * WINDOW_REVOKED and THERMAL events into notifications of the "snode"
 * generic-netlink family (netlink.c), and raises BER alarms against
 * thresholds the administrator sets per NIC or per link.
 *
 * The device is the source of truth: link-get and node-get ask it
 * (PORT_QUERY, NODE_TOPO) and the answer refreshes the cache. Events keep
 * the cache current in between; an answer never overwrites what an event
 * reported after the question was asked (&snode_link.events orders the
 * two). If events were lost (EQ_OVERFLOW) or the NIC re-attached to the
 * fabric (FABRIC), the resync work reads every port and node again and
 * notifies what changed.
 *
 * Rate limit: a flapping link or a node that comes and goes must not flood
 * the listeners. Each kind of notification about one object (a link's
 * state, a link's BER alarm, a node, the access violations of a NIC) is
 * sent at most once per SNODE_RL_INTERVAL_NS; events in between are held,
 * and when the interval is over the flush work sends one notification with
 * the latest state and the number of events it stands for in
 * SNODE_A_EVENT_SUPPRESSED. The last state always reaches the listeners.
 *
 * BER alarm: a link is in alarm while its bit-error rate is at or above
 * the threshold in force (the link's own, else the NIC's; 0 is none).
 * Every crossing, up or down, sends exactly one link-ber-ntf, whether a
 * new BER or a new threshold caused it.
 *
 * Auto-isolate (decision 0021): a link may carry a policy, off by
 * default: a BER limit and a flap limit (N down events within S seconds).
 * Flaps are counted from the deltas of the down_events counter that
 * LINK_STATE events and PORT_QUERY report, so a resync after lost events
 * loses no flap. A link more than half way to its flap limit becomes
 * "flapping"; a link past a limit is taken administratively down by the
 * isolate work, through snode_link_port_set() as an operator's link-set
 * does, and becomes "isolated" with the reason. Each change is a
 * link-isolation notification, rate limited as the others. The state is
 * latched: only link-clear sets it back to none, and admin up is refused
 * while it is isolated. The last link of the NIC that is up is never
 * isolated (the node would be cut off): past a limit it is only flapping.
 *
 * Utilisation (decision 0027): the util work reads every port that is
 * not down each SNODE_UTIL_PERIOD_MS (PORT_QUERY, as link-get does) and
 * turns the growth of its byte counters into a share of lanes x speed per
 * direction. A link is in utilisation alarm once either direction reaches
 * its threshold, and leaves it when both are below the threshold by the
 * hysteresis; each of the two crossings sends one link-util-ntf, rate
 * limited as the others. A period in which the counters went back (link
 * clear, reset) or the NIC did not answer is no sample.
 *
 * Locking: &snode_link.lock (a mutex: events are handled in the event IRQ
 * thread, which may sleep) protects the cache, the policies and their
 * state, and is held while the notifications it causes are sent, so that
 * they leave in event order. It is never held across an admin command:
 * the reset path waits for the event thread while holding the device's
 * rwsem, which admin commands need. That is also why the event thread
 * does not isolate a link itself but leaves it to the isolate work.
 */

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

/*
 * Decode the IEEE-754 binary64 bit-error rate the device reports into
 * units of 1e-18, without floating point: value = mant * 2^(exp - 1075).
 * Rounds to nearest, so that a BER of 1e-12 (not exact in binary) is
 * 1000000. Clamped to [0, 1] if the device misbehaves (negative, NaN,
 * above one); subnormals are 0.
 */
u64 snode_ber_decode(u64 bits)
{
	u64 frac = bits & GENMASK_ULL(51, 0);
	unsigned int exp = (bits >> 52) & 0x7ff;
	unsigned int shift;
	u64 mant, half;

	if (bits >> 63 || exp == 0)
		return 0;
	if (exp == 0x7ff)
		return frac ? 0 : SNODE_BER_ONE;
	if (exp >= 1023)
		return SNODE_BER_ONE;

	mant = frac | BIT_ULL(52);
	/* floor(mant * 1e18 / 2^(shift - 1)), in steps below 64 bits */
	shift = 1075 - exp - 1;
	if (shift < 64) {
		half = mul_u64_u64_shr(mant, SNODE_BER_ONE, shift);
	} else {
		half = mul_u64_u64_shr(mant, SNODE_BER_ONE, 63);
		shift -= 63;
		half = shift < 64 ? half >> shift : 0;
	}
	return (half + 1) >> 1;
}

static u8 snode_oper_state(u8 hw)
{
	/* the contract's encoding is the family's; an unknown one is down */
	BUILD_BUG_ON(SNODE_PORT_OPER_DOWN != SNODE_LINK_OPER_STATE_DOWN);
	BUILD_BUG_ON(SNODE_PORT_OPER_UP != SNODE_LINK_OPER_STATE_UP);
	BUILD_BUG_ON(SNODE_PORT_OPER_DEGRADED != SNODE_LINK_OPER_STATE_DEGRADED);
	BUILD_BUG_ON(SNODE_PORT_OPER_TRAINING != SNODE_LINK_OPER_STATE_TRAINING);
	return hw <= SNODE_PORT_OPER_TRAINING ? hw : SNODE_PORT_OPER_DOWN;
}

static u8 snode_node_state(struct snode_link *link, u8 hw, u8 *route)
{
	BUILD_BUG_ON(SNODE_NODE_UNKNOWN != SNODE_NODE_STATE_UNKNOWN);
	BUILD_BUG_ON(SNODE_NODE_UP != SNODE_NODE_STATE_UP);
	BUILD_BUG_ON(SNODE_NODE_UNREACHABLE != SNODE_NODE_STATE_UNREACHABLE);
	BUILD_BUG_ON(SNODE_NODE_DEAD != SNODE_NODE_STATE_DEAD);

	if (hw > SNODE_NODE_DEAD)
		hw = SNODE_NODE_UNKNOWN;
	/* only a node that is up has a route, and only through a real port */
	if (hw != SNODE_NODE_UP || *route >= link->nports)
		*route = SNODE_LINK_NO_ROUTE;
	return hw;
}

static void snode_port_decode(struct snode_port *p,
			      const struct snode_port_info *raw)
{
	p->admin_state = raw->admin_state ? SNODE_LINK_ADMIN_STATE_UP :
					    SNODE_LINK_ADMIN_STATE_DOWN;
	p->oper_state = snode_oper_state(raw->oper_state);
	p->lanes = raw->lanes;
	p->max_lanes = raw->max_lanes;
	p->speed = le16_to_cpu(raw->speed);
	p->peer_node = le32_to_cpu(raw->peer_node);
	p->peer_port = le32_to_cpu(raw->peer_port);
	p->crc_errors = le64_to_cpu(raw->crc_errors);
	p->replays = le64_to_cpu(raw->replays);
	p->recoveries = le64_to_cpu(raw->recoveries);
	p->down_events = le64_to_cpu(raw->down_events);
	p->tx_bytes = le64_to_cpu(raw->tx_bytes);
	p->rx_bytes = le64_to_cpu(raw->rx_bytes);
	p->tx_msgs = le64_to_cpu(raw->tx_msgs);
	p->rx_msgs = le64_to_cpu(raw->rx_msgs);
	p->ber = snode_ber_decode(le64_to_cpu(raw->ber));
}

static u64 __snode_link_threshold(struct snode_link *link,
				  struct snode_link_port *lp)
{
	lockdep_assert_held(&link->lock);
	return lp->ber_threshold ?: link->ber_threshold;
}

/* Schedule the flush work for @when (ktime_get_ns()) unless it runs sooner. */
static void __snode_link_flush_at(struct snode_link *link, u64 when, u64 now)
{
	unsigned long delay, due;

	lockdep_assert_held(&link->lock);
	if (!link->live)
		return;
	delay = nsecs_to_jiffies(when > now ? when - now : 0) + 1;
	due = jiffies + delay;
	if (delayed_work_pending(&link->flush_work) &&
	    time_before_eq(link->flush_due, due))
		return;
	link->flush_due = due;
	mod_delayed_work(system_wq, &link->flush_work, delay);
}

/* Whether a notification may go now; if not, it is held for the flush. */
static bool __snode_rl_admit(struct snode_link *link, struct snode_rl *rl,
			     const struct snode_ev_meta *meta)
{
	u64 now = ktime_get_ns();

	lockdep_assert_held(&link->lock);
	if (!rl->held && (!rl->last || now - rl->last >= SNODE_RL_INTERVAL_NS)) {
		rl->last = now;
		return true;
	}
	rl->held++;
	rl->meta = *meta;
	__snode_link_flush_at(link, rl->last + SNODE_RL_INTERVAL_NS, now);
	return false;
}

/*
 * Take back a held notification whose interval is over: true and its
 * metadata in @meta if it is due, else @next lowered to when it is.
 */
static bool __snode_rl_due(struct snode_rl *rl, u64 now, u64 *next,
			   struct snode_ev_meta *meta)
{
	if (!rl->held)
		return false;
	if (now - rl->last < SNODE_RL_INTERVAL_NS) {
		*next = min(*next, rl->last + SNODE_RL_INTERVAL_NS);
		return false;
	}
	*meta = rl->meta;
	meta->suppressed = rl->held - 1;
	rl->held = 0;
	rl->last = now;
	return true;
}

static void __snode_link_notify(struct snode_link *link, unsigned int port,
				enum snode_link_ntf kind,
				const struct snode_ev_meta *meta)
{
	struct snode_link_port *lp = &link->ports[port];

	lockdep_assert_held(&link->lock);
	if (!link->live || !__snode_rl_admit(link, &lp->rl[kind], meta))
		return;
	snode_nl_link_ntf(link->sdev, kind, port, lp,
			  __snode_link_threshold(link, lp), meta);
}

/* Re-evaluate the BER alarm of a port; a crossing is notified. */
static void __snode_link_check_ber(struct snode_link *link, unsigned int port,
				   const struct snode_ev_meta *meta)
{
	struct snode_link_port *lp = &link->ports[port];
	u64 threshold = __snode_link_threshold(link, lp);
	bool alarm = threshold && lp->port.ber >= threshold;

	if (alarm == lp->ber_alarm)
		return;
	lp->ber_alarm = alarm;
	__snode_link_notify(link, port, SNODE_LINK_NTF_BER, meta);
	if (alarm)
		snode_devlink_link_error(link->sdev, port,
					 "bit-error rate above threshold",
					 &lp->port, threshold);
}

/**
 * snode_util_of() - share of a link's capacity some traffic used
 * @bytes: bytes that crossed the link in one direction
 * @ns: over this many nanoseconds
 * @lanes: active lanes
 * @speed: Gb/s per lane
 *
 * Context: Any context.
 * Return: hundredths of a percent of lanes x speed (10000: full), at most
 * SNODE_UTIL_MAX; 0 for a link without lanes, speed or time.
 */
u32 snode_util_of(u64 bytes, u64 ns, u32 lanes, u32 speed)
{
	u64 cap = (u64)lanes * speed * ns;	/* bits the link could carry */
	u64 util;

	if (!cap)
		return 0;
	/* more bytes than fit in the clamp stay past it after the division */
	if (bytes > div64_u64(U64_MAX, 8 * 10000))
		return SNODE_UTIL_MAX;
	util = div64_u64(bytes * 8 * 10000 + cap / 2, cap);
	return min_t(u64, util, SNODE_UTIL_MAX);
}

/**
 * snode_util_hysteresis() - points below the threshold that clear an alarm
 * @threshold: percent
 *
 * Context: Any context.
 * Return: SNODE_UTIL_HYSTERESIS, or half @threshold if that is less.
 */
u32 snode_util_hysteresis(u32 threshold)
{
	return min_t(u32, SNODE_UTIL_HYSTERESIS, threshold / 2);
}

/* Re-evaluate the utilisation alarm of a port; a crossing is notified. */
static void __snode_link_check_util(struct snode_link *link, unsigned int port,
				    const struct snode_ev_meta *meta)
{
	struct snode_link_port *lp = &link->ports[port];
	struct snode_link_util *u = &lp->util;
	u32 top = max(u->tx, u->rx), on = u->threshold * 100;
	u32 off = (u->threshold - snode_util_hysteresis(u->threshold)) * 100;
	bool alarm = u->alarm ? top >= off : top >= on;

	lockdep_assert_held(&link->lock);
	if (alarm == u->alarm)
		return;
	u->alarm = alarm;
	__snode_link_notify(link, port, SNODE_LINK_NTF_UTIL, meta);
}

/* One utilisation sample of @port from the counters just read. */
static void __snode_link_util_sample(struct snode_link *link,
				     unsigned int port, u64 now)
{
	struct snode_link_port *lp = &link->ports[port];
	const struct snode_port *p = &lp->port;
	struct snode_ev_meta meta = { .ts = ktime_get_real_ns() };
	u64 ns = now - lp->util_ns;

	lockdep_assert_held(&link->lock);
	if (lp->util_ns && p->tx_bytes >= lp->util_tx_bytes &&
	    p->rx_bytes >= lp->util_rx_bytes) {
		lp->util.tx = snode_util_of(p->tx_bytes - lp->util_tx_bytes, ns,
					    p->lanes, p->speed);
		lp->util.rx = snode_util_of(p->rx_bytes - lp->util_rx_bytes, ns,
					    p->lanes, p->speed);
		__snode_link_check_util(link, port, &meta);
	}
	lp->util_tx_bytes = p->tx_bytes;
	lp->util_rx_bytes = p->rx_bytes;
	lp->util_ns = now;
}

/* A link that is down carries nothing: no sample, and no alarm. */
static void __snode_link_util_idle(struct snode_link *link, unsigned int port)
{
	struct snode_link_port *lp = &link->ports[port];
	struct snode_ev_meta meta = { .ts = ktime_get_real_ns() };

	lockdep_assert_held(&link->lock);
	lp->util.tx = 0;
	lp->util.rx = 0;
	lp->util_ns = 0;
	__snode_link_check_util(link, port, &meta);
}

static void snode_link_util_work(struct work_struct *work)
{
	struct snode_link *link = container_of(to_delayed_work(work),
					       struct snode_link, util_work);
	struct snode_dev *sdev = link->sdev;
	struct snode_port p;
	unsigned int port;
	bool alarm, down;
	u64 thr;

	for (port = 0; port < link->nports; port++) {
		mutex_lock(&link->lock);
		down = link->ports[port].port.oper_state ==
		       SNODE_LINK_OPER_STATE_DOWN;
		if (down)
			__snode_link_util_idle(link, port);
		mutex_unlock(&link->lock);
		if (down)
			continue;
		if (snode_link_port_get(sdev, port, &p, &thr, &alarm, NULL))
			continue;
		mutex_lock(&link->lock);
		__snode_link_util_sample(link, port, ktime_get_ns());
		mutex_unlock(&link->lock);
	}
	mutex_lock(&link->lock);
	if (link->live)
		schedule_delayed_work(&link->util_work,
				      msecs_to_jiffies(SNODE_UTIL_PERIOD_MS));
	mutex_unlock(&link->lock);
}

/*
 * Down events of @lp the NIC reported since the last look, into the ring
 * of flap times. A delta larger than the limit (events lost, then a
 * resync) fills the ring at once. A link taken down on request does not
 * flap.
 */
static void __snode_link_count_flaps(struct snode_link *link,
				     struct snode_link_port *lp, u64 now)
{
	u64 seen = lp->port.down_events, delta;

	lockdep_assert_held(&link->lock);
	if (seen < lp->flap_seen ||
	    lp->port.admin_state != SNODE_LINK_ADMIN_STATE_UP) {
		/* counters cleared, or down on request: start from here */
		lp->flap_seen = seen;
		return;
	}
	delta = min_t(u64, seen - lp->flap_seen, lp->iso.flaps);
	lp->flap_seen = seen;
	for (; delta; delta--) {
		lp->flap_times[lp->flap_next] = now;
		lp->flap_next = (lp->flap_next + 1) % lp->iso.flaps;
	}
}

/* Down events of @lp within its flap window. */
static unsigned int __snode_link_flaps(struct snode_link *link,
				       struct snode_link_port *lp, u64 now)
{
	u64 window = (u64)lp->iso.window * NSEC_PER_SEC;
	unsigned int i, n = 0;

	lockdep_assert_held(&link->lock);
	for (i = 0; i < lp->iso.flaps; i++)
		n += lp->flap_times[i] && now - lp->flap_times[i] < window;
	return n;
}

/* Forget the flaps counted so far; the next down_events is the base. */
static void __snode_link_flaps_reset(struct snode_link *link,
				     struct snode_link_port *lp)
{
	lockdep_assert_held(&link->lock);
	memset(lp->flap_times, 0, sizeof(lp->flap_times));
	lp->flap_next = 0;
	lp->flap_seen = lp->port.down_events;
}

/*
 * Whether a port other than @port carries traffic, so that taking @port
 * down leaves the node a path into the fabric.
 */
static bool __snode_link_other_up(struct snode_link *link, unsigned int port)
{
	unsigned int i;

	lockdep_assert_held(&link->lock);
	for (i = 0; i < link->nports; i++) {
		const struct snode_port *p = &link->ports[i].port;

		if (i != port && p->admin_state == SNODE_LINK_ADMIN_STATE_UP &&
		    p->oper_state != SNODE_LINK_OPER_STATE_DOWN)
			return true;
	}
	return false;
}

static void __snode_link_isolation(struct snode_link *link, unsigned int port,
				   u8 state, u8 reason,
				   const struct snode_ev_meta *meta)
{
	struct snode_link_port *lp = &link->ports[port];

	lockdep_assert_held(&link->lock);
	if (lp->iso.state == state && lp->iso.reason == reason)
		return;
	lp->iso.state = state;
	lp->iso.reason = reason;
	__snode_link_notify(link, port, SNODE_LINK_NTF_ISOLATION, meta);
}

/*
 * Apply the auto-isolate policy of @port after its down events, its BER
 * or the policy changed: count the new flaps, and past a limit leave the
 * link to the isolate work, or mark it flapping.
 */
static void __snode_link_check_isolate(struct snode_link *link,
				       unsigned int port,
				       const struct snode_ev_meta *meta)
{
	struct snode_link_port *lp = &link->ports[port];
	struct snode_isolate *iso = &lp->iso;
	u8 reason = SNODE_ISOLATE_REASON_NONE;
	u64 now = ktime_get_ns();
	unsigned int flaps = 0;

	lockdep_assert_held(&link->lock);
	if (!iso->on || !link->live)
		return;
	if (iso->flaps) {
		__snode_link_count_flaps(link, lp, now);
		flaps = __snode_link_flaps(link, lp, now);
	}
	if (iso->state == SNODE_LINK_ISOLATION_ISOLATED || lp->iso_pending)
		return;
	if (iso->flaps && flaps >= iso->flaps)
		reason = SNODE_ISOLATE_REASON_FLAPS;
	else if (iso->ber && lp->port.ber >= iso->ber)
		reason = SNODE_ISOLATE_REASON_BER;
	if (reason && __snode_link_other_up(link, port)) {
		lp->iso_pending = reason;
		lp->iso_refused = false;
		schedule_work(&link->isolate_work);
		return;
	}
	if (reason && !lp->iso_refused) {
		lp->iso_refused = true;
		dev_warn(&link->sdev->pdev->dev,
			 "port %u past its auto-isolate %s limit, not isolated: no other link is up\n",
			 port, reason == SNODE_ISOLATE_REASON_BER ? "BER" : "flap");
	} else if (!reason && iso->flaps && 2 * flaps > iso->flaps) {
		reason = SNODE_ISOLATE_REASON_FLAPS;
	}
	if (reason && iso->state == SNODE_LINK_ISOLATION_NONE)
		__snode_link_isolation(link, port, SNODE_LINK_ISOLATION_FLAPPING,
				       reason, meta);
}

/*
 * Take the links past their policy down, as an operator's link-set would,
 * outside &snode_link.lock; each is checked again first, and the last
 * link up is left up (another may have gone down meanwhile).
 */
static void snode_link_isolate_work(struct work_struct *work)
{
	struct snode_link *link = container_of(work, struct snode_link,
					       isolate_work);
	struct snode_dev *sdev = link->sdev;
	unsigned int port;

	for (port = 0; port < link->nports; port++) {
		struct snode_link_port *lp = &link->ports[port];
		struct snode_ev_meta meta = {};
		bool allowed;
		u8 reason;
		int ret = 0;

		mutex_lock(&link->lock);
		reason = lp->iso_pending;
		allowed = link->live && lp->iso.on &&
			  __snode_link_other_up(link, port);
		mutex_unlock(&link->lock);
		if (!reason)
			continue;
		if (allowed)
			ret = snode_link_port_set(sdev, port,
						  SNODE_PORT_SET_DOWN);

		mutex_lock(&link->lock);
		lp->iso_pending = 0;
		meta.ts = ktime_get_real_ns();
		if (allowed && !ret) {
			dev_warn(&sdev->pdev->dev,
				 "port %u isolated: past its auto-isolate %s limit\n",
				 port, reason == SNODE_ISOLATE_REASON_BER ?
				 "BER" : "flap");
			__snode_link_isolation(link, port,
					       SNODE_LINK_ISOLATION_ISOLATED,
					       reason, &meta);
			snode_devlink_link_error(sdev, port,
						 reason == SNODE_ISOLATE_REASON_BER ?
						 "isolated by auto-isolate (BER)" :
						 "isolated by auto-isolate (flaps)",
						 &lp->port,
						 __snode_link_threshold(link, lp));
		} else {
			if (ret)
				dev_warn(&sdev->pdev->dev,
					 "port %u past its auto-isolate limit, taking it down failed: %d\n",
					 port, ret);
			else if (!lp->iso_refused)
				dev_warn(&sdev->pdev->dev,
					 "port %u past its auto-isolate limit, not isolated: no other link is up\n",
					 port);
			lp->iso_refused = !ret;
			/* the next event tries again */
			if (lp->iso.state == SNODE_LINK_ISOLATION_NONE)
				__snode_link_isolation(link, port,
						       SNODE_LINK_ISOLATION_FLAPPING,
						       reason, &meta);
		}
		mutex_unlock(&link->lock);
	}
}

/*
 * A link error for the devlink link reporter: a link that is
 * administratively up went down, or lost lanes. Retraining after a reset
 * is not an error; a link taken down on request is not either.
 */
static const char *snode_link_error(const struct snode_port *p, u8 before)
{
	if (p->admin_state != SNODE_LINK_ADMIN_STATE_UP)
		return NULL;
	if (p->oper_state == SNODE_LINK_OPER_STATE_DOWN &&
	    before != SNODE_LINK_OPER_STATE_DOWN)
		return "link down";
	if (p->oper_state == SNODE_LINK_OPER_STATE_DEGRADED &&
	    before == SNODE_LINK_OPER_STATE_UP)
		return "lanes lost, link degraded";
	return NULL;
}

static void __snode_node_send(struct snode_link *link, u32 id,
			      const struct snode_ev_meta *meta)
{
	struct snode_link_node *ln = &link->nodes[id];

	snode_nl_node_ntf(link->sdev, id, ln, meta);
	ln->sent_state = ln->state;
	ln->sent_route = ln->route;
}

/* A node changed state or route: notify, through the rate limit. */
static void __snode_node_changed(struct snode_link *link, u32 id,
				 const struct snode_ev_meta *meta)
{
	struct snode_link_node *ln = &link->nodes[id];

	lockdep_assert_held(&link->lock);
	snode_nl_nodes_changed();
	snode_net_node_changed(link->sdev, id, ln->state == SNODE_NODE_STATE_UP);
	if (!link->live) {
		/* before registration the state is the starting point */
		ln->sent_state = ln->state;
		ln->sent_route = ln->route;
		return;
	}
	if (__snode_rl_admit(link, &ln->rl, meta))
		__snode_node_send(link, id, meta);
}

static void snode_link_flush_work(struct work_struct *work)
{
	struct snode_link *link = container_of(to_delayed_work(work),
					       struct snode_link, flush_work);
	u64 now = ktime_get_ns(), next = U64_MAX;
	struct snode_ev_meta meta;
	unsigned int i, k;

	mutex_lock(&link->lock);
	if (!link->live)
		goto out;

	for (i = 0; i < link->nports; i++) {
		struct snode_link_port *lp = &link->ports[i];

		for (k = 0; k < SNODE_LINK_NTF_NR; k++)
			if (__snode_rl_due(&lp->rl[k], now, &next, &meta))
				snode_nl_link_ntf(link->sdev, k, i, lp,
						  __snode_link_threshold(link, lp),
						  &meta);
	}
	for (i = 0; i < link->max_nodes; i++)
		if (__snode_rl_due(&link->nodes[i].rl, now, &next, &meta))
			__snode_node_send(link, i, &meta);
	if (__snode_rl_due(&link->av_rl, now, &next, &meta)) {
		meta.suppressed += link->av_suppressed;
		link->av_suppressed = 0;
		snode_nl_access_ntf(link->sdev, link->av_offset, link->av_write,
				    &meta);
	}

	if (next != U64_MAX)
		__snode_link_flush_at(link, next, now);
out:
	mutex_unlock(&link->lock);
}

/**
 * snode_link_port_get() - read a port from the NIC
 * @sdev: snode device
 * @port: port number
 * @p: the port's state
 * @threshold: the BER alarm threshold in force
 * @alarm: whether the link is in BER alarm
 * @iso: its auto-isolate policy and state, or NULL
 *
 * Issues PORT_QUERY and merges the answer into the cache; new down events
 * and BER count against the auto-isolate policy. If the NIC cannot
 * answer, @p is what it last reported.
 *
 * Context: Process context, sleeps. Must not hold &snode_link.lock.
 * Return: 0, -ENOENT for a port the NIC does not have, else -ENOMEM or
 * the errno of the command (@p, @threshold, @alarm and @iso are then from
 * the cache).
 */
int snode_link_port_get(struct snode_dev *sdev, unsigned int port,
			struct snode_port *p, u64 *threshold, bool *alarm,
			struct snode_isolate *iso)
{
	struct snode_link *link = sdev->link;
	struct snode_admin_req req = {
		.cmd.opcode = SNODE_OP_PORT_QUERY,
		.cmd.port_query.port = cpu_to_le32(port),
		.len = sizeof(struct snode_port_info),
		.dir = DMA_FROM_DEVICE,
	};
	struct snode_ev_meta meta = {};
	struct snode_link_port *lp;
	struct snode_port_info *raw;
	struct snode_port fresh;
	u32 stamp;
	int ret;

	if (port >= link->nports)
		return -ENOENT;
	lp = &link->ports[port];

	/*
	 * Without the buffer, fail like a NIC that cannot answer: @p from the
	 * cache. Link dumps list the links whatever this returns.
	 */
	raw = kzalloc(sizeof(*raw), GFP_KERNEL);
	req.data = raw;

	mutex_lock(&link->lock);
	stamp = lp->stamp;
	mutex_unlock(&link->lock);

	ret = raw ? snode_admin_exec(sdev, &req) : -ENOMEM;
	if (!ret)
		snode_port_decode(&fresh, raw);
	kfree(raw);

	mutex_lock(&link->lock);
	if (!ret) {
		bool changed = false;

		if (lp->stamp != stamp) {
			/* an event reported newer state since: keep it */
			fresh.oper_state = lp->port.oper_state;
			fresh.lanes = lp->port.lanes;
			fresh.peer_node = lp->port.peer_node;
			fresh.down_events = lp->port.down_events;
			fresh.ber = lp->port.ber;
		} else {
			/* a change no event told us of: events were lost */
			changed = fresh.oper_state != lp->port.oper_state ||
				  fresh.lanes != lp->port.lanes;
		}
		lp->port = fresh;
		meta.ts = ktime_get_real_ns();
		if (changed)
			__snode_link_notify(link, port, SNODE_LINK_NTF_STATE,
					    &meta);
		__snode_link_check_ber(link, port, &meta);
		__snode_link_check_isolate(link, port, &meta);
	}
	*p = lp->port;
	*threshold = __snode_link_threshold(link, lp);
	*alarm = lp->ber_alarm;
	if (iso)
		*iso = lp->iso;
	mutex_unlock(&link->lock);
	return ret;
}

/**
 * snode_link_port_set() - act on a port: admin down or up, reset, clear
 * @sdev: snode device
 * @port: port number
 * @action: SNODE_PORT_SET_*
 *
 * The NIC reports the resulting state changes as LINK_STATE events. A
 * clear also clears the link's auto-isolate state; an isolated link is
 * not brought up before that.
 *
 * Context: Process context, sleeps. Must not hold &snode_link.lock.
 * Return: 0, -ENOENT for a port the NIC does not have, -EBUSY to bring up
 * an isolated link, or the errno of the PORT_SET command.
 */
int snode_link_port_set(struct snode_dev *sdev, unsigned int port, u32 action)
{
	struct snode_link *link = sdev->link;
	struct snode_admin_req req = {
		.cmd.opcode = SNODE_OP_PORT_SET,
		.cmd.port_set = {
			.port = cpu_to_le32(port),
			.action = cpu_to_le32(action),
		},
	};
	struct snode_link_port *lp;
	struct snode_port *p;
	u8 before = 0;
	int ret;

	if (port >= link->nports)
		return -ENOENT;
	lp = &link->ports[port];
	p = &lp->port;

	if (action == SNODE_PORT_SET_UP) {
		mutex_lock(&link->lock);
		ret = lp->iso.state == SNODE_LINK_ISOLATION_ISOLATED ? -EBUSY : 0;
		mutex_unlock(&link->lock);
		if (ret)
			return ret;
	}

	/*
	 * No event carries the admin state. A link is admin down before the
	 * device reports it down, so that the LINK_STATE event it sends is
	 * not taken for a link error; back as it was if the command failed.
	 */
	if (action == SNODE_PORT_SET_DOWN) {
		mutex_lock(&link->lock);
		before = p->admin_state;
		p->admin_state = SNODE_LINK_ADMIN_STATE_DOWN;
		mutex_unlock(&link->lock);
	}
	ret = snode_admin_exec(sdev, &req);
	if (action == SNODE_PORT_SET_DOWN && ret) {
		mutex_lock(&link->lock);
		p->admin_state = before;
		mutex_unlock(&link->lock);
	}
	if (action == SNODE_PORT_SET_CLEAR && !ret) {
		struct snode_ev_meta meta = { .ts = ktime_get_real_ns() };

		mutex_lock(&link->lock);
		__snode_link_flaps_reset(link, lp);
		/* the NIC's down_events is 0 now; an older one is no flap */
		lp->flap_seen = U64_MAX;
		lp->iso_refused = false;
		__snode_link_isolation(link, port, SNODE_LINK_ISOLATION_NONE,
				       SNODE_ISOLATE_REASON_NONE, &meta);
		mutex_unlock(&link->lock);
	}
	if (ret || action != SNODE_PORT_SET_UP)
		return ret;

	mutex_lock(&link->lock);
	p->admin_state = SNODE_LINK_ADMIN_STATE_UP;
	mutex_unlock(&link->lock);
	return 0;
}

/**
 * snode_link_set_threshold() - set a BER alarm threshold
 * @sdev: snode device
 * @port: the port, or -1 for the NIC's default
 * @threshold: units of 1e-18; 0: none (for a port: use the NIC's)
 *
 * Links whose alarm state changes with the new threshold are notified.
 *
 * Context: Process context.
 * Return: 0, or -ENOENT for a port the NIC does not have.
 */
int snode_link_set_threshold(struct snode_dev *sdev, int port, u64 threshold)
{
	struct snode_link *link = sdev->link;
	struct snode_ev_meta meta = { .ts = ktime_get_real_ns() };
	unsigned int i;

	if (port >= (int)link->nports)
		return -ENOENT;

	mutex_lock(&link->lock);
	if (port < 0)
		link->ber_threshold = threshold;
	else
		link->ports[port].ber_threshold = threshold;
	for (i = 0; i < link->nports; i++)
		__snode_link_check_ber(link, i, &meta);
	mutex_unlock(&link->lock);
	return 0;
}

/**
 * snode_link_set_isolate() - change the auto-isolate policy of a link
 * @sdev: snode device
 * @port: port number
 * @set: what to change; limits the caller checked against their ranges
 *
 * A new flap limit starts counting afresh. The policy is applied at once
 * to the link as it is now (its BER); its isolation state is left as it
 * is, latched until link-clear.
 *
 * Context: Process context.
 * Return: 0, -ENOENT for a port the NIC does not have, or -EINVAL to turn
 * on a policy with no limit.
 */
int snode_link_set_isolate(struct snode_dev *sdev, unsigned int port,
			   const struct snode_isolate_set *set)
{
	struct snode_link *link = sdev->link;
	struct snode_ev_meta meta = { .ts = ktime_get_real_ns() };
	struct snode_link_port *lp;
	struct snode_isolate iso;

	if (port >= link->nports)
		return -ENOENT;
	lp = &link->ports[port];

	mutex_lock(&link->lock);
	iso = lp->iso;
	if (set->set_on)
		iso.on = set->on;
	if (set->set_ber)
		iso.ber = set->ber;
	if (set->set_flaps) {
		iso.flaps = set->flaps;
		iso.window = set->flaps ? set->window : 0;
	}
	if (iso.on && !iso.ber && !iso.flaps) {
		mutex_unlock(&link->lock);
		return -EINVAL;
	}
	if (iso.on != lp->iso.on || iso.flaps != lp->iso.flaps ||
	    iso.window != lp->iso.window)
		__snode_link_flaps_reset(link, lp);
	lp->iso = iso;
	__snode_link_check_isolate(link, port, &meta);
	mutex_unlock(&link->lock);
	return 0;
}

/**
 * snode_link_set_util_threshold() - set a link's utilisation alarm threshold
 * @sdev: snode device
 * @port: port number
 * @threshold: percent of lanes x speed, 1 to 100 (the caller checked)
 *
 * The alarm is re-evaluated at once against the last period; a crossing
 * is notified.
 *
 * Context: Process context.
 * Return: 0, -ENOENT for a port the NIC does not have, -EINVAL for a
 * threshold out of range.
 */
int snode_link_set_util_threshold(struct snode_dev *sdev, unsigned int port,
				  u32 threshold)
{
	struct snode_link *link = sdev->link;
	struct snode_ev_meta meta = { .ts = ktime_get_real_ns() };

	if (port >= link->nports)
		return -ENOENT;
	if (!threshold || threshold > 100)
		return -EINVAL;
	mutex_lock(&link->lock);
	link->ports[port].util.threshold = threshold;
	__snode_link_check_util(link, port, &meta);
	mutex_unlock(&link->lock);
	return 0;
}

/**
 * snode_link_util_get() - a link's utilisation as the last period saw it
 * @sdev: snode device
 * @port: port number, below the NIC's port count
 * @util: the utilisation, threshold and alarm
 *
 * Context: Process context. Must not hold &snode_link.lock.
 */
void snode_link_util_get(struct snode_dev *sdev, unsigned int port,
			 struct snode_link_util *util)
{
	struct snode_link *link = sdev->link;

	mutex_lock(&link->lock);
	*util = link->ports[port].util;
	mutex_unlock(&link->lock);
}

/**
 * snode_link_net_attach() - attach the network interface to node changes
 * @sdev: snode device
 * @net: the interface, or NULL to detach it
 * @up: with @net, a bitmap of &snode_link.max_nodes bits to set for every
 *      node that is up now
 *
 * From here on every node change is passed to snode_net_node_changed()
 * with &snode_link.lock held; detaching waits for the one in progress.
 *
 * Context: Process context.
 */
void snode_link_net_attach(struct snode_dev *sdev, struct snode_net *net,
			   unsigned long *up)
{
	struct snode_link *link = sdev->link;
	u32 i;

	mutex_lock(&link->lock);
	/* read without the lock by snode_net_reset_done() */
	WRITE_ONCE(sdev->net, net);
	for (i = 0; net && i < link->max_nodes; i++)
		if (link->nodes[i].state == SNODE_NODE_STATE_UP)
			set_bit(i, up);
	mutex_unlock(&link->lock);
}

/**
 * snode_link_topo_refresh() - read the switch and rack names from the NIC
 * @sdev: snode device
 *
 * Issues TOPO_NAMES for switches and racks once per attach (the fabric
 * sends the names when the NIC attaches; a resync reads them again).
 * Names are what operators read; the ids in NODE_TOPO and PORT_QUERY
 * index them (decision 0030).
 *
 * Context: Process context, sleeps. Must not hold &snode_link.lock.
 * Return: 0 or the errno of a command; the names are unchanged on error.
 */
int snode_link_topo_refresh(struct snode_dev *sdev)
{
	struct snode_link *link = sdev->link;
	struct snode_topo_name *buf;
	u32 count[2];
	unsigned int kind;
	int ret = 0;

	mutex_lock(&link->lock);
	if (link->topo->valid) {
		mutex_unlock(&link->lock);
		return 0;
	}
	mutex_unlock(&link->lock);

	buf = kvcalloc(2 * SNODE_TOPO_MAX_NAMES, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (kind = SNODE_TOPO_SWITCHES; kind <= SNODE_TOPO_RACKS; kind++) {
		struct snode_admin_req req = {
			.cmd.opcode = SNODE_OP_TOPO_NAMES,
			.cmd.topo_names.kind = cpu_to_le32(kind),
			.data = buf + kind * SNODE_TOPO_MAX_NAMES,
			.len = SNODE_TOPO_MAX_NAMES * sizeof(*buf),
			.dir = DMA_FROM_DEVICE,
		};

		ret = snode_admin_exec(sdev, &req);
		if (ret)
			goto out;
		count[kind] = le32_to_cpu(req.cpl.topo_names.count);
		/* clamp if the device misbehaves: no more than the buffer holds */
		count[kind] = min_t(u32, count[kind], SNODE_TOPO_MAX_NAMES);
	}
	mutex_lock(&link->lock);
	for (kind = SNODE_TOPO_SWITCHES; kind <= SNODE_TOPO_RACKS; kind++) {
		u32 i;

		memcpy(link->topo->names[kind], buf + kind * SNODE_TOPO_MAX_NAMES,
		       count[kind] * sizeof(*buf));
		/* NUL terminated whatever the device wrote */
		for (i = 0; i < count[kind]; i++)
			link->topo->names[kind][i].name[SNODE_TOPO_NAME_LEN - 1] = 0;
		link->topo->count[kind] = count[kind];
	}
	/* a detached NIC has none yet: ask again next time */
	link->topo->valid = count[SNODE_TOPO_SWITCHES] || count[SNODE_TOPO_RACKS];
	mutex_unlock(&link->lock);
out:
	kvfree(buf);
	return ret;
}

/**
 * __snode_link_topo_name() - the fabric's name of a switch or rack
 * @link: link state of the NIC
 * @kind: SNODE_TOPO_SWITCHES or SNODE_TOPO_RACKS
 * @id: the switch or rack id
 * @plane: if not NULL, set to the switch's plane (SNODE_TOPO_NO_PLANE: none)
 *
 * Context: &snode_link.lock held.
 * Return: the name, or NULL if the NIC has none for @id.
 */
const char *__snode_link_topo_name(struct snode_link *link, unsigned int kind,
				   u32 id, u8 *plane)
{
	const struct snode_topo_name *n;

	lockdep_assert_held(&link->lock);
	if (plane)
		*plane = SNODE_TOPO_NO_PLANE;
	if (kind > SNODE_TOPO_RACKS || id >= link->topo->count[kind])
		return NULL;
	n = &link->topo->names[kind][id];
	if (plane)
		*plane = n->plane;
	return n->name[0] ? n->name : NULL;
}

/**
 * snode_link_nodes_refresh() - read the node table from the NIC
 * @sdev: snode device
 *
 * Issues NODE_TOPO, which holds each node's NODE_LIST byte and the route
 * topology (decision 0030), and merges the answer into the cache; a node
 * whose state differs without an event having said so is notified. One
 * command for the whole table, never one per node: under emulation an
 * admin command costs milliseconds, and a dump of 1024 nodes has a 20 ms
 * budget. The names are read first if they were not yet.
 *
 * Context: Process context, sleeps. Must not hold &snode_link.lock.
 * Return: 0 or the errno of the command; the cache is unchanged on error.
 */
int snode_link_nodes_refresh(struct snode_dev *sdev)
{
	struct snode_link *link = sdev->link;
	struct snode_admin_req req = {
		.cmd.opcode = SNODE_OP_NODE_TOPO,
		.len = link->max_nodes * sizeof(struct snode_node_topo),
		.dir = DMA_FROM_DEVICE,
	};
	struct snode_ev_meta meta = {};
	struct snode_node_topo *topo;
	u32 before;
	u32 i;
	int ret;

	if (!link->max_nodes)
		return 0;
	ret = snode_link_topo_refresh(sdev);
	if (ret)
		return ret;
	topo = kvcalloc(link->max_nodes, sizeof(*topo), GFP_KERNEL);
	if (!topo)
		return -ENOMEM;
	req.data = topo;

	mutex_lock(&link->lock);
	before = link->events;
	mutex_unlock(&link->lock);

	ret = snode_admin_exec(sdev, &req);
	if (ret)
		goto out;

	meta.ts = ktime_get_real_ns();
	mutex_lock(&link->lock);
	for (i = 0; i < link->max_nodes; i++) {
		struct snode_link_node *ln = &link->nodes[i];
		u8 route = FIELD_GET(SNODE_NODE_LIST_ROUTE_MASK, topo[i].state);
		u8 state;

		/* the topology follows the route; ids checked when named */
		ln->hops = topo[i].hops;
		ln->plane = topo[i].plane;
		ln->sw = le16_to_cpu(topo[i].sw);
		ln->rack = le16_to_cpu(topo[i].rack);
		/* an event after the question is newer than the answer */
		if ((s32)(ln->stamp - before) > 0)
			continue;
		state = snode_node_state(link,
					 FIELD_GET(SNODE_NODE_LIST_STATE_MASK,
						   topo[i].state),
					 &route);
		if (state == ln->state && route == ln->route)
			continue;
		ln->state = state;
		ln->route = route;
		__snode_node_changed(link, i, &meta);
	}
	mutex_unlock(&link->lock);
out:
	kvfree(topo);
	return ret;
}

/* Read every port and the node table; errors leave the cache as it was. */
static void snode_link_resync(struct snode_dev *sdev)
{
	struct snode_link *link = sdev->link;
	struct snode_port p;
	unsigned int i;
	bool alarm;
	u64 thr;

	mutex_lock(&link->lock);
	link->topo->valid = false;	/* a re-attach may be to another fabric */
	mutex_unlock(&link->lock);
	for (i = 0; i < link->nports; i++)
		snode_link_port_get(sdev, i, &p, &thr, &alarm, NULL);
	snode_link_nodes_refresh(sdev);
}

static void snode_link_resync_work(struct work_struct *work)
{
	struct snode_link *link = container_of(work, struct snode_link,
					       resync_work);

	snode_link_resync(link->sdev);
}

static struct snode_link_port *snode_link_event_port(struct snode_link *link,
						     u8 port)
{
	if (port < link->nports)
		return &link->ports[port];
	dev_warn_ratelimited(&link->sdev->pdev->dev,
			     "event for port %u, the NIC has %u\n", port,
			     link->nports);
	return NULL;
}

static void snode_link_state_event(struct snode_link *link,
				   const struct snode_event_link_state *d,
				   const struct snode_ev_meta *meta)
{
	struct snode_link_port *lp = snode_link_event_port(link, d->port);
	const char *error;
	u8 before;

	if (!lp)
		return;
	mutex_lock(&link->lock);
	before = lp->port.oper_state;
	lp->port.oper_state = snode_oper_state(d->oper_state);
	lp->port.lanes = d->lanes;
	lp->port.peer_node = le32_to_cpu(d->peer_node);
	lp->port.down_events = le64_to_cpu(d->down_events);
	lp->stamp = ++link->events;
	__snode_link_notify(link, d->port, SNODE_LINK_NTF_STATE, meta);
	error = snode_link_error(&lp->port, before);
	if (error)
		snode_devlink_link_error(link->sdev, d->port, error, &lp->port,
					 __snode_link_threshold(link, lp));
	__snode_link_check_isolate(link, d->port, meta);
	mutex_unlock(&link->lock);
}

static void snode_link_ber_event(struct snode_link *link,
				 const struct snode_event_link_ber *d,
				 const struct snode_ev_meta *meta)
{
	struct snode_link_port *lp = snode_link_event_port(link, d->port);

	if (!lp)
		return;
	mutex_lock(&link->lock);
	lp->port.ber = snode_ber_decode(le64_to_cpu(d->ber));
	lp->stamp = ++link->events;
	__snode_link_check_ber(link, d->port, meta);
	__snode_link_check_isolate(link, d->port, meta);
	mutex_unlock(&link->lock);
}

static void snode_link_node_event(struct snode_link *link,
				  const struct snode_event_node_state *d,
				  const struct snode_ev_meta *meta)
{
	struct snode_link_node *ln;
	u32 id = le32_to_cpu(d->node);
	u8 route = d->route_port;
	struct snode_id ident;
	u8 state;

	if (id >= link->max_nodes) {
		dev_warn_ratelimited(&link->sdev->pdev->dev,
				     "event for node %u, the fabric has %u\n",
				     id, link->max_nodes);
		return;
	}
	snode_id_get(link->sdev, &ident);
	mutex_lock(&link->lock);
	ln = &link->nodes[id];
	ln->stamp = ++link->events;
	/* the route's topology, so that the notification says where it goes */
	if (ident.caps & SNODE_CAP_EV_TOPO) {
		ln->hops = d->hops;
		ln->plane = d->plane;
		ln->sw = le16_to_cpu(d->sw);
		ln->rack = le16_to_cpu(d->rack);
	}
	state = snode_node_state(link, d->state, &route);
	/* after a reset the fabric repeats what it said before */
	if (state != ln->state || route != ln->route) {
		ln->state = state;
		ln->route = route;
		__snode_node_changed(link, id, meta);
	}
	mutex_unlock(&link->lock);
}

static void snode_link_access_event(struct snode_link *link,
				    const struct snode_event_access_violation *d,
				    struct snode_ev_meta *meta)
{
	u32 suppressed = le32_to_cpu(d->suppressed);

	mutex_lock(&link->lock);
	link->av_offset = le64_to_cpu(d->aperture_offset);
	link->av_write = d->write;
	if (!link->live)
		goto out;
	if (__snode_rl_admit(link, &link->av_rl, meta)) {
		/* the NIC rate limits violations too; report its count */
		meta->suppressed = suppressed;
		snode_nl_access_ntf(link->sdev, link->av_offset, link->av_write,
				    meta);
	} else {
		link->av_suppressed += suppressed;
	}
out:
	mutex_unlock(&link->lock);
}

/**
 * snode_link_event() - turn a device event into state and notifications
 * @sdev: snode device
 * @ev: the event, after its type's own handler ran
 *
 * Context: Event IRQ thread.
 */
void snode_link_event(struct snode_dev *sdev, const struct snode_event *ev)
{
	struct snode_link *link = sdev->link;
	struct snode_ev_meta meta = {
		.ts = ktime_get_real_ns(),
		.hw_ts = le64_to_cpu(ev->timestamp),
	};
	const void *data = ev->data;

	if (!link)
		return;

	switch (le16_to_cpu(ev->type)) {
	case SNODE_EV_LINK_STATE:
		snode_link_state_event(link, data, &meta);
		break;
	case SNODE_EV_LINK_BER:
		snode_link_ber_event(link, data, &meta);
		break;
	case SNODE_EV_NODE_STATE:
		snode_link_node_event(link, data, &meta);
		break;
	case SNODE_EV_ACCESS_VIOLATION:
		snode_link_access_event(link, data, &meta);
		break;
	case SNODE_EV_WINDOW_REVOKED: {
		const struct snode_event_window_revoked *d = data;

		mutex_lock(&link->lock);
		if (link->live)
			snode_nl_revoked_ntf(sdev, le16_to_cpu(d->att_index),
					     le16_to_cpu(d->reason),
					     le32_to_cpu(d->epoch),
					     le32_to_cpu(d->node),
					     le32_to_cpu(d->export_id), &meta);
		mutex_unlock(&link->lock);
		break;
	}
	case SNODE_EV_THERMAL: {
		const struct snode_event_thermal *d = data;

		mutex_lock(&link->lock);
		if (link->live)
			snode_nl_thermal_ntf(sdev, le32_to_cpu(d->temp),
					     le32_to_cpu(d->power),
					     le32_to_cpu(d->alarm), &meta);
		if (d->alarm)
			snode_devlink_thermal(sdev, le32_to_cpu(d->temp),
					      le32_to_cpu(d->power),
					      le32_to_cpu(d->alarm));
		mutex_unlock(&link->lock);
		break;
	}
	case SNODE_EV_EQ_OVERFLOW:
	case SNODE_EV_FABRIC:
		/* events were lost, or the fabric starts over: read it all */
		mutex_lock(&link->lock);
		if (link->live)
			schedule_work(&link->resync_work);
		mutex_unlock(&link->lock);
		break;
	}
}

static void snode_link_unregister(void *data)
{
	struct snode_dev *sdev = data;
	struct snode_link *link = sdev->link;

	snode_nl_dev_del(sdev);
	mutex_lock(&link->lock);
	link->live = false;
	mutex_unlock(&link->lock);
	/* no work requeues itself or another once !live */
	cancel_delayed_work_sync(&link->flush_work);
	cancel_work_sync(&link->resync_work);
	cancel_work_sync(&link->isolate_work);
	cancel_delayed_work_sync(&link->util_work);
}

/**
 * snode_link_register() - make a NIC's links and nodes visible
 * @sdev: identified snode device with live queues
 *
 * Reads the starting state of every port and node, then adds the NIC to
 * the netlink family. Undone on unbind.
 *
 * Context: Process context (probe).
 * Return: 0 or a negative errno.
 */
int snode_link_register(struct snode_dev *sdev)
{
	struct snode_link *link = sdev->link;
	int ret;

	snode_link_resync(sdev);

	ret = snode_nl_dev_add(sdev);
	if (ret)
		return ret;
	mutex_lock(&link->lock);
	link->live = true;
	schedule_delayed_work(&link->util_work,
			      msecs_to_jiffies(SNODE_UTIL_PERIOD_MS));
	mutex_unlock(&link->lock);
	return devm_add_action_or_reset(&sdev->pdev->dev, snode_link_unregister,
					sdev);
}

static void snode_link_free(void *data)
{
	struct snode_dev *sdev = data;
	struct snode_link *link = sdev->link;

	sdev->link = NULL;
	mutex_destroy(&link->lock);
	kvfree(link->topo);
	kvfree(link->nodes);
	kfree(link);
}

/**
 * snode_link_init() - allocate the link state of a NIC
 * @sdev: snode device, out of reset, before its queues start
 *
 * Sized from LIMITS0, so that no event is ever dropped for lack of a
 * place to put it. Freed on unbind, after the event interrupt is gone.
 *
 * Context: Process context (probe).
 * Return: 0 or a negative errno.
 */
int snode_link_init(struct snode_dev *sdev)
{
	struct device *dev = &sdev->pdev->dev;
	struct snode_link *link;
	u32 limits;
	unsigned int i;

	link = kzalloc(sizeof(*link), GFP_KERNEL);
	if (!link)
		return -ENOMEM;

	limits = snode_readl(sdev, SNODE_LIMITS0_OFFSET);
	link->sdev = sdev;
	link->nports = FIELD_GET(SNODE_LIMITS0_PORTS_MASK, limits);
	if (link->nports > SNODE_LINK_MAX_PORTS) {
		dev_warn(dev, "%u ports reported, using the first %u\n",
			 link->nports, SNODE_LINK_MAX_PORTS);
		link->nports = SNODE_LINK_MAX_PORTS;
	}
	link->max_nodes = FIELD_GET(SNODE_LIMITS0_MAX_NODES_MASK, limits);
	link->nodes = kvcalloc(link->max_nodes, sizeof(*link->nodes),
			       GFP_KERNEL);
	link->topo = kvzalloc(sizeof(*link->topo), GFP_KERNEL);
	if (!link->nodes || !link->topo) {
		kvfree(link->topo);
		kvfree(link->nodes);
		kfree(link);
		return -ENOMEM;
	}
	for (i = 0; i < link->max_nodes; i++) {
		link->nodes[i].route = SNODE_LINK_NO_ROUTE;
		link->nodes[i].sent_route = SNODE_LINK_NO_ROUTE;
		link->nodes[i].plane = SNODE_TOPO_NO_PLANE;
		link->nodes[i].sw = SNODE_TOPO_NONE16;
		link->nodes[i].rack = SNODE_TOPO_NONE16;
	}
	mutex_init(&link->lock);
	INIT_DELAYED_WORK(&link->flush_work, snode_link_flush_work);
	INIT_WORK(&link->resync_work, snode_link_resync_work);
	INIT_WORK(&link->isolate_work, snode_link_isolate_work);
	INIT_DELAYED_WORK(&link->util_work, snode_link_util_work);
	for (i = 0; i < SNODE_LINK_MAX_PORTS; i++)
		link->ports[i].util.threshold = SNODE_UTIL_DEFAULT;
	sdev->link = link;

	return devm_add_action_or_reset(dev, snode_link_free, sdev);
}
