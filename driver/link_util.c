// SPDX-License-Identifier: GPL-2.0
/*
 * snode: link utilisation: byte counters sampled each period, the alarm.
 */

#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/workqueue.h>

#include <linux/snode.h>

#include "link.h"
#include "snode.h"

/**
 * DOC: Link utilisation
 *
 * Utilisation (decision 0027): the util work reads every port that is
 * not down each SNODE_UTIL_PERIOD_MS (PORT_QUERY, as link-get does) and
 * turns the growth of its byte counters into a share of lanes x speed per
 * direction. A link is in utilisation alarm once either direction reaches
 * its threshold, and leaves it when both are below the threshold by the
 * hysteresis; each of the two crossings sends one link-util-ntf, rate
 * limited as the others. A period in which the counters went back (link
 * clear, reset) or the NIC did not answer is no sample.
 */

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

void snode_link_util_work(struct work_struct *work)
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
