// SPDX-License-Identifier: GPL-2.0
/*
 * snode: link auto-isolate: the per-link policy, flap counting and the
 * isolate work.
 */

#include <linux/ktime.h>
#include <linux/string.h>
#include <linux/workqueue.h>

#include <linux/snode.h>

#include "link.h"
#include "snode.h"

/**
 * DOC: Link auto-isolate
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
 */

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
void __snode_link_flaps_reset(struct snode_link *link,
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

void __snode_link_isolation(struct snode_link *link, unsigned int port,
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
void __snode_link_check_isolate(struct snode_link *link,
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
void snode_link_isolate_work(struct work_struct *work)
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
			snode_tell_link_error(sdev, port,
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
