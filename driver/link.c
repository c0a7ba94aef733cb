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
 * Auto-isolate (decision 0021) is link_iso.c's, utilisation (decision
 * 0027) link_util.c's, and the fabric's nodes and their topology names
 * link_node.c's; link.c keeps the ports, the rate limit, the events and
 * the life of &struct snode_link.
 *
 * Locking: &snode_link.lock (a mutex: events are handled in the event IRQ
 * thread, which may sleep) protects the cache, the policies and their
 * state, and is held while the notifications it causes are sent, so that
 * they leave in event order. It is never held across an admin command:
 * the reset path waits for the event thread while holding the device's
 * rwsem, which admin commands need. That is also why the event thread
 * does not isolate a link itself but leaves it to the isolate work.
 */

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

u64 __snode_link_threshold(struct snode_link *link,
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
bool __snode_rl_admit(struct snode_link *link, struct snode_rl *rl,
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

void __snode_link_notify(struct snode_link *link, unsigned int port,
			 enum snode_link_ntf kind,
			 const struct snode_ev_meta *meta)
{
	struct snode_link_port *lp = &link->ports[port];

	lockdep_assert_held(&link->lock);
	if (!link->live || !__snode_rl_admit(link, &lp->rl[kind], meta))
		return;
	snode_tell_link_ntf(link->sdev, kind, port, lp,
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
		snode_tell_link_error(link->sdev, port,
				      "bit-error rate above threshold",
				      &lp->port, threshold);
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
				snode_tell_link_ntf(link->sdev, k, i, lp,
						    __snode_link_threshold(link, lp),
						    &meta);
	}
	for (i = 0; i < link->max_nodes; i++)
		if (__snode_rl_due(&link->nodes[i].rl, now, &next, &meta))
			__snode_node_send(link, i, &meta);
	if (__snode_rl_due(&link->av_rl, now, &next, &meta)) {
		meta.suppressed += link->av_suppressed;
		link->av_suppressed = 0;
		snode_tell_access_ntf(link->sdev, link->av_offset,
				      link->av_write, &meta);
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
		snode_tell_link_error(link->sdev, d->port, error, &lp->port,
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
		snode_tell_access_ntf(link->sdev, link->av_offset,
				      link->av_write, meta);
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
static void snode_link_event(struct snode_dev *sdev, const struct snode_event *ev)
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
			snode_tell_revoked_ntf(sdev, le16_to_cpu(d->att_index),
					       le16_to_cpu(d->reason),
					       le32_to_cpu(d->epoch),
					       le32_to_cpu(d->node),
					       le32_to_cpu(d->export_id),
					       &meta);
		mutex_unlock(&link->lock);
		break;
	}
	case SNODE_EV_THERMAL: {
		const struct snode_event_thermal *d = data;

		mutex_lock(&link->lock);
		if (link->live)
			snode_tell_thermal_ntf(sdev, le32_to_cpu(d->temp),
					       le32_to_cpu(d->power),
					       le32_to_cpu(d->alarm), &meta);
		if (d->alarm)
			snode_tell_thermal_alarm(sdev, le32_to_cpu(d->temp),
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

/* Undo the dev_add of the listeners before @end, last first. */
static void snode_link_listeners_del(struct snode_dev *sdev,
				     const struct snode_listener_ops *const *end)
{
	const struct snode_listener_ops *const *lp = end;

	while (lp-- != sdev->listeners)
		if ((*lp)->dev_del)
			(*lp)->dev_del(sdev);
}

/* Tell every listener (the netlink family) that the NIC is there. */
static int snode_link_listeners_add(struct snode_dev *sdev)
{
	const struct snode_listener_ops *const *lp;
	int ret;

	for (lp = sdev->listeners; *lp; lp++) {
		if (!(*lp)->dev_add)
			continue;
		ret = (*lp)->dev_add(sdev);
		if (ret) {
			snode_link_listeners_del(sdev, lp);
			return ret;
		}
	}
	return 0;
}

static void snode_link_unregister(void *data)
{
	struct snode_dev *sdev = data;
	struct snode_link *link = sdev->link;
	const struct snode_listener_ops *const *end = sdev->listeners;

	while (*end)
		end++;
	snode_link_listeners_del(sdev, end);
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
 * its listeners (the netlink family). Undone on unbind.
 *
 * Context: Process context (probe).
 * Return: 0 or a negative errno.
 */
static int snode_link_register(struct snode_dev *sdev)
{
	struct snode_link *link = sdev->link;
	int ret;

	snode_link_resync(sdev);

	ret = snode_link_listeners_add(sdev);
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
static int snode_link_init(struct snode_dev *sdev)
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

const struct snode_feature_ops snode_link_feature = {
	.name = "the links",
	.early_init = snode_link_init,
	.add = snode_link_register,
	.event_report = snode_link_event,
};
