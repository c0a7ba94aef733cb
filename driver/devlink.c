// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the devlink instance of a NIC - dev info, ports, health.
 */

#include <linux/bitfield.h>
#include <linux/bitops.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include <linux/snode.h>

#include "devlink_compat.h"
#include "link.h"
#include "snode.h"

/**
 * DOC: devlink
 *
 * Every NIC registers one devlink instance, pci/<BDF>, for what devlink has
 * words for (Documentation/decisions/0014-genl-family-beside-devlink.md);
 * the "snode" family keeps the fabric. Documentation/driver/devlink.rst
 * describes what userspace sees.
 *
 * - dev info: the driver's name, the serial number and the firmware
 *   version from IDENTIFY, the PCI revision and the contract version
 *   (VERSION) as fixed versions.
 * - One port per link, flavour physical, numbered by link index.
 * - Health reporter "link": diagnose lists every link (PORT_QUERY, as a
 *   link-get does) with its auto-isolate state; link.c reports a link
 *   that went down or lost lanes without being asked to and a BER alarm
 *   being raised, link_iso.c a link its auto-isolate policy took out of
 *   service (decision 0021); recover resets the links reported since
 *   the last recovery with the PORT_SET RESET a link-reset of the "snode"
 *   family sends (snode_link_port_set()), except isolated ones: an
 *   isolation ends only with the operator's link-clear, never by a
 *   recovery.
 * - Health reporter "thermal": diagnose reads the sensors as hwmon does;
 *   every THERMAL event (a threshold crossed upwards) is reported. It has
 *   no recover: software cannot cool the die.
 *
 * Context of the reports: the event IRQ thread must never take the
 * devlink instance lock, which devlink_health_report() takes for the dump
 * (6.12). A devlink callback holds that lock and may wait for
 * &snode_dev.rwsem, which a reset holds for write while it waits for the
 * event thread: a report from the thread would close that circle. So
 * link.c and link_iso.c only record an error
 * (snode_devlink_link_error(), under &snode_link.lock) and @report_work
 * reports it. The dump of a report is made from what was recorded, never
 * from the device.
 *
 * Locking order: devlink instance lock, &snode_dev.rwsem (read, through
 * snode_lock_live()), &snode_link.lock, &snode_devlink.lock.
 *
 * Probe registers the instance last, once everything its callbacks use
 * exists; unbind unregisters it first: reports stop (@live, and
 * &snode_dev.dl cleared under &snode_link.lock), the report work is
 * cancelled, then devlink_unregister() waits for the callbacks in flight.
 * A callback that needs the device goes through snode_lock_live() (or
 * snode_admin_exec(), which does), so it fails with -EAGAIN while the
 * device is being reset and -ENODEV once it is removed.
 */

/* A link that keeps failing is reset at most once per this, automatically. */
#define SNODE_DL_LINK_GRACE_MS	10000

/**
 * struct snode_dl_link_err - a link error recorded for the link reporter
 * @port: the link
 * @reason: what happened, a static string
 * @state: the link as the NIC reported it with the error
 * @threshold: the BER alarm threshold in force
 * @ts: CLOCK_REALTIME when the driver learnt of the error, ns
 * @folded: later errors of the link folded into this one before it was
 *          reported
 * @errors: errors of the link reported since probe, this one included
 */
struct snode_dl_link_err {
	unsigned int port;
	const char *reason;
	struct snode_port state;
	u64 threshold;
	u64 ts;
	u32 folded;
	u64 errors;
};

/**
 * struct snode_dl_thermal_err - a THERMAL event for the thermal reporter
 * @temp: die temperature, milli-degC
 * @power: power draw, mW
 * @alarm: SENSOR_ALARM bits the event carried
 * @ts: CLOCK_REALTIME when the driver learnt of it, ns
 * @folded: later events folded into this one before it was reported
 */
struct snode_dl_thermal_err {
	s32 temp;
	u32 power;
	u32 alarm;
	u64 ts;
	u32 folded;
};

/**
 * struct snode_devlink - the devlink instance's private data
 * @sdev: the NIC
 * @nports: devlink ports registered
 * @ports: one per link
 * @link_rep: health reporter "link"
 * @thermal_rep: health reporter "thermal"
 * @report_work: reports what the event path recorded
 * @lock: protects the members below
 * @live: errors are recorded and reported; cleared on unbind
 * @link_pending: links with an error in @link_err not reported yet
 * @link_err: per link, the newest error not reported yet
 * @to_recover: links reported and not reset since
 * @link_errors: errors reported per link since probe
 * @thermal_pending: @thermal_err is not reported yet
 * @thermal_err: the newest THERMAL event not reported yet
 */
struct snode_devlink {
	struct snode_dev *sdev;
	unsigned int nports;
	struct devlink_port ports[SNODE_LINK_MAX_PORTS];
	struct devlink_health_reporter *link_rep;
	struct devlink_health_reporter *thermal_rep;
	struct work_struct report_work;

	/* protects the members below */
	spinlock_t lock;
	bool live;
	unsigned long link_pending;
	struct snode_dl_link_err link_err[SNODE_LINK_MAX_PORTS];
	unsigned long to_recover;
	u64 link_errors[SNODE_LINK_MAX_PORTS];
	bool thermal_pending;
	struct snode_dl_thermal_err thermal_err;
};

/* ------------------------------------------------------------------ */
/* dev info                                                            */

static int snode_dl_info_get(struct devlink *devlink,
			     struct devlink_info_req *req,
			     struct netlink_ext_ack *extack)
{
	struct snode_devlink *dl = devlink_priv(devlink);
	struct snode_dev *sdev = dl->sdev;
	struct snode_id id;
	char buf[32];
	int ret;

	/* the identity is a snapshot: nothing here touches the device */
	snode_id_get(sdev, &id);

	ret = snode_dl_info_driver_name_put(req);
	if (ret)
		return ret;
	if (id.serial[0]) {
		ret = devlink_info_serial_number_put(req, id.serial);
		if (ret)
			return ret;
	}

	snprintf(buf, sizeof(buf), "%u", sdev->pdev->revision);
	ret = devlink_info_version_fixed_put(req,
					     DEVLINK_INFO_VERSION_GENERIC_ASIC_REV,
					     buf);
	if (ret)
		return ret;
	snprintf(buf, sizeof(buf), "%lu.%lu",
		 FIELD_GET(SNODE_VERSION_MAJOR_MASK, id.hw_version),
		 FIELD_GET(SNODE_VERSION_MINOR_MASK, id.hw_version));
	ret = devlink_info_version_fixed_put(req, "snode.contract", buf);
	if (ret)
		return ret;

	snprintf(buf, sizeof(buf), "%lu.%lu.%lu",
		 FIELD_GET(SNODE_FW_MAJOR_MASK, id.fw_version),
		 FIELD_GET(SNODE_FW_MINOR_MASK, id.fw_version),
		 FIELD_GET(SNODE_FW_PATCH_MASK, id.fw_version));
	return devlink_info_version_running_put(req,
						DEVLINK_INFO_VERSION_GENERIC_FW,
						buf);
}

static const struct devlink_ops snode_dl_ops = {
	.info_get = snode_dl_info_get,
};

/* ------------------------------------------------------------------ */
/* the link reporter                                                   */

static const char *snode_dl_oper_name(u8 state)
{
	static const char *const names[] = {
		[SNODE_LINK_OPER_STATE_DOWN] = "down",
		[SNODE_LINK_OPER_STATE_UP] = "up",
		[SNODE_LINK_OPER_STATE_DEGRADED] = "degraded",
		[SNODE_LINK_OPER_STATE_TRAINING] = "training",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "unknown";
}

/* Whether all lanes carry traffic, some, or none. */
static const char *snode_dl_lane_state(const struct snode_port *p)
{
	if (p->oper_state == SNODE_LINK_OPER_STATE_DOWN || !p->lanes)
		return "down";
	return p->lanes < p->max_lanes ? "degraded" : "full";
}

static const char *snode_dl_isolation_name(u8 state)
{
	static const char *const names[] = {
		[SNODE_LINK_ISOLATION_NONE] = "none",
		[SNODE_LINK_ISOLATION_FLAPPING] = "flapping",
		[SNODE_LINK_ISOLATION_ISOLATED] = "isolated",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "unknown";
}

/* The pairs of one link, inside an object the caller opened. */
static void snode_dl_link_fill(struct snode_fmsg *m, unsigned int port,
			       const struct snode_port *p, u64 threshold,
			       bool alarm, u64 errors)
{
	snode_fmsg_u32(m, "port", port);
	snode_fmsg_str(m, "admin", p->admin_state == SNODE_LINK_ADMIN_STATE_UP ?
		       "up" : "down");
	snode_fmsg_str(m, "oper", snode_dl_oper_name(p->oper_state));
	snode_fmsg_pair_start(m, "lanes");
	snode_fmsg_obj_start(m);
	snode_fmsg_str(m, "state", snode_dl_lane_state(p));
	snode_fmsg_u32(m, "active", p->lanes);
	snode_fmsg_u32(m, "max", p->max_lanes);
	snode_fmsg_u32(m, "speed_gbps", p->speed);
	snode_fmsg_obj_end(m);
	snode_fmsg_pair_end(m);
	snode_fmsg_pair_start(m, "counters");
	snode_fmsg_obj_start(m);
	snode_fmsg_u64(m, "crc_errors", p->crc_errors);
	snode_fmsg_u64(m, "replays", p->replays);
	snode_fmsg_u64(m, "recoveries", p->recoveries);
	snode_fmsg_u64(m, "down_events", p->down_events);
	snode_fmsg_u64(m, "tx_bytes", p->tx_bytes);
	snode_fmsg_u64(m, "rx_bytes", p->rx_bytes);
	snode_fmsg_obj_end(m);
	snode_fmsg_pair_end(m);
	snode_fmsg_pair_start(m, "ber");
	snode_fmsg_obj_start(m);
	/* the family's unit: 1e-18, so that no floating point is needed */
	snode_fmsg_u64(m, "rate_e18", p->ber);
	snode_fmsg_u64(m, "threshold_e18", threshold);
	snode_fmsg_bool(m, "alarm", alarm);
	snode_fmsg_obj_end(m);
	snode_fmsg_pair_end(m);
	snode_fmsg_u64(m, "errors_reported", errors);
}

/* Every link as the NIC reports it now (as the cache has it if it cannot). */
static int snode_dl_links_fill(struct snode_devlink *dl, struct snode_fmsg *m)
{
	struct snode_dev *sdev = dl->sdev;
	struct snode_isolate iso = {};
	struct snode_port p;
	unsigned int i;
	u64 threshold;
	bool alarm;
	u64 errors;

	snode_fmsg_arr_start(m, "links");
	for (i = 0; i < dl->nports; i++) {
		bool stale;

		stale = snode_link_port_get(sdev, i, &p, &threshold, &alarm,
					    &iso) != 0;
		spin_lock(&dl->lock);
		errors = dl->link_errors[i];
		spin_unlock(&dl->lock);

		snode_fmsg_obj_start(m);
		snode_dl_link_fill(m, i, &p, threshold, alarm, errors);
		snode_fmsg_str(m, "isolation", snode_dl_isolation_name(iso.state));
		/* the NIC did not answer (being reset): what it said last */
		snode_fmsg_bool(m, "stale", stale);
		snode_fmsg_obj_end(m);
	}
	snode_fmsg_arr_end(m);
	return m->err;
}

static int snode_dl_link_diagnose(struct devlink_health_reporter *reporter,
				  struct devlink_fmsg *fmsg,
				  struct netlink_ext_ack *extack)
{
	struct snode_devlink *dl = devlink_health_reporter_priv(reporter);
	struct snode_fmsg m = { .fmsg = fmsg };

	return snode_dl_links_fill(dl, &m);
}

static int snode_dl_link_dump(struct devlink_health_reporter *reporter,
			      struct devlink_fmsg *fmsg, void *priv_ctx,
			      struct netlink_ext_ack *extack)
{
	struct snode_devlink *dl = devlink_health_reporter_priv(reporter);
	const struct snode_dl_link_err *e = priv_ctx;
	struct snode_fmsg m = { .fmsg = fmsg };

	/* asked for without an error stored: the links as they are now */
	if (!e)
		return snode_dl_links_fill(dl, &m);

	snode_fmsg_pair_start(&m, "error");
	snode_fmsg_obj_start(&m);
	snode_fmsg_str(&m, "reason", e->reason);
	snode_fmsg_u64(&m, "time_ns", e->ts);
	snode_fmsg_u32(&m, "folded", e->folded);
	snode_fmsg_obj_end(&m);
	snode_fmsg_pair_end(&m);
	snode_fmsg_pair_start(&m, "link");
	snode_fmsg_obj_start(&m);
	snode_dl_link_fill(&m, e->port, &e->state, e->threshold,
			   e->threshold && e->state.ber >= e->threshold,
			   e->errors);
	snode_fmsg_obj_end(&m);
	snode_fmsg_pair_end(&m);
	return m.err;
}

/* Whether the auto-isolate policy holds @port out of service. */
static bool snode_dl_link_isolated(struct snode_devlink *dl, unsigned int port)
{
	struct snode_isolate iso = {};
	struct snode_port p;
	u64 threshold;
	bool alarm;

	/* from the cache if the NIC cannot answer: the state is the driver's */
	snode_link_port_get(dl->sdev, port, &p, &threshold, &alarm, &iso);
	return iso.state == SNODE_LINK_ISOLATION_ISOLATED;
}

/*
 * Reset the link of the error being reported (auto-recovery), or every
 * link reported since the last recovery (devlink health recover). An
 * isolated link is left down: resetting it would retrain it, and only
 * link-clear ends an isolation.
 */
static int snode_dl_link_recover(struct devlink_health_reporter *reporter,
				 void *priv_ctx, struct netlink_ext_ack *extack)
{
	struct snode_devlink *dl = devlink_health_reporter_priv(reporter);
	const struct snode_dl_link_err *e = priv_ctx;
	unsigned long ports;
	unsigned int i;
	int ret;

	spin_lock(&dl->lock);
	ports = e ? BIT(e->port) : dl->to_recover;
	spin_unlock(&dl->lock);

	for_each_set_bit(i, &ports, dl->nports) {
		if (snode_dl_link_isolated(dl, i)) {
			spin_lock(&dl->lock);
			dl->to_recover &= ~BIT(i);
			spin_unlock(&dl->lock);
			continue;
		}
		/* the path a link-reset request of the "snode" family takes */
		ret = snode_link_port_set(dl->sdev, i, SNODE_PORT_SET_RESET);
		if (ret == -EAGAIN) {
			NL_SET_ERR_MSG_MOD(extack, "the NIC is being reset, try again");
			return ret;
		}
		if (ret) {
			NL_SET_ERR_MSG_MOD(extack, "the NIC did not reset the link");
			return ret;
		}
		spin_lock(&dl->lock);
		dl->to_recover &= ~BIT(i);
		spin_unlock(&dl->lock);
	}
	return 0;
}

static const struct devlink_health_reporter_ops snode_dl_link_ops = {
	.name = "link",
	.diagnose = snode_dl_link_diagnose,
	.dump = snode_dl_link_dump,
	.recover = snode_dl_link_recover,
};

/* ------------------------------------------------------------------ */
/* the thermal reporter                                                */

/*
 * An fmsg has no signed integer: temperatures are milli-degC clamped at 0.
 * hwmon's temp1_input has the signed value; a working NIC is not below 0 C.
 */
static u32 snode_dl_mdegc(s32 temp)
{
	return temp < 0 ? 0 : temp;
}

static void snode_dl_alarms_fill(struct snode_fmsg *m, u32 alarm)
{
	snode_fmsg_pair_start(m, "alarms");
	snode_fmsg_obj_start(m);
	snode_fmsg_bool(m, "temp_max", alarm & SNODE_ALARM_TEMP_MAX);
	snode_fmsg_bool(m, "temp_crit", alarm & SNODE_ALARM_TEMP_CRIT);
	snode_fmsg_bool(m, "power_max", alarm & SNODE_ALARM_POWER_MAX);
	snode_fmsg_obj_end(m);
	snode_fmsg_pair_end(m);
}

/* The sensors now, as hwmon reads them; the device must be live. */
static int snode_dl_sensors_fill(struct snode_devlink *dl, struct snode_fmsg *m,
				 struct netlink_ext_ack *extack)
{
	struct snode_dev *sdev = dl->sdev;
	s32 temp, temp_max, temp_crit;
	u32 power, power_max, alarm;
	bool throttled;
	int ret;

	ret = snode_lock_live(sdev);
	if (ret) {
		NL_SET_ERR_MSG_MOD(extack, "the NIC is not live (being reset or gone)");
		return ret;
	}
	temp = snode_readl(sdev, SNODE_TEMP_OFFSET);
	temp_max = snode_readl(sdev, SNODE_TEMP_MAX_OFFSET);
	temp_crit = snode_readl(sdev, SNODE_TEMP_CRIT_OFFSET);
	power = snode_readl(sdev, SNODE_POWER_OFFSET);
	power_max = snode_readl(sdev, SNODE_POWER_MAX_OFFSET);
	alarm = snode_readl(sdev, SNODE_SENSOR_ALARM_OFFSET);
	throttled = snode_readl(sdev, SNODE_STATUS_OFFSET) &
		    SNODE_STATUS_THROTTLED;
	snode_unlock_live(sdev);

	snode_fmsg_u32(m, "temperature_mC", snode_dl_mdegc(temp));
	snode_fmsg_u32(m, "temp_max_mC", snode_dl_mdegc(temp_max));
	snode_fmsg_u32(m, "temp_crit_mC", snode_dl_mdegc(temp_crit));
	snode_fmsg_u32(m, "power_mW", power);
	snode_fmsg_u32(m, "power_max_mW", power_max);
	snode_dl_alarms_fill(m, alarm);
	snode_fmsg_bool(m, "throttled", throttled);

	/*
	 * No recover: the reporter is healthy again once the alarms were
	 * acknowledged (hwmon) and the die is below its thresholds.
	 */
	if (!m->err && !alarm && !throttled && temp <= temp_max)
		devlink_health_reporter_state_update(dl->thermal_rep,
						     DEVLINK_HEALTH_REPORTER_STATE_HEALTHY);
	return m->err;
}

static int snode_dl_thermal_diagnose(struct devlink_health_reporter *reporter,
				     struct devlink_fmsg *fmsg,
				     struct netlink_ext_ack *extack)
{
	struct snode_fmsg m = { .fmsg = fmsg };

	return snode_dl_sensors_fill(devlink_health_reporter_priv(reporter), &m,
				     extack);
}

static int snode_dl_thermal_dump(struct devlink_health_reporter *reporter,
				 struct devlink_fmsg *fmsg, void *priv_ctx,
				 struct netlink_ext_ack *extack)
{
	const struct snode_dl_thermal_err *e = priv_ctx;
	struct snode_fmsg m = { .fmsg = fmsg };

	if (!e)
		return snode_dl_sensors_fill(devlink_health_reporter_priv(reporter),
					     &m, extack);

	snode_fmsg_pair_start(&m, "event");
	snode_fmsg_obj_start(&m);
	snode_fmsg_u64(&m, "time_ns", e->ts);
	snode_fmsg_u32(&m, "folded", e->folded);
	snode_fmsg_u32(&m, "temperature_mC", snode_dl_mdegc(e->temp));
	snode_fmsg_u32(&m, "power_mW", e->power);
	snode_dl_alarms_fill(&m, e->alarm);
	snode_fmsg_obj_end(&m);
	snode_fmsg_pair_end(&m);
	return m.err;
}

static const struct devlink_health_reporter_ops snode_dl_thermal_ops = {
	.name = "thermal",
	.diagnose = snode_dl_thermal_diagnose,
	.dump = snode_dl_thermal_dump,
};

/* ------------------------------------------------------------------ */
/* reports                                                             */

static void snode_dl_report_work(struct work_struct *work)
{
	struct snode_devlink *dl = container_of(work, struct snode_devlink,
						report_work);
	struct snode_dl_thermal_err te;
	struct snode_dl_link_err le;
	bool thermal;
	unsigned int i;

	for (;;) {
		spin_lock(&dl->lock);
		if (!dl->live || !dl->link_pending) {
			spin_unlock(&dl->lock);
			break;
		}
		i = __ffs(dl->link_pending);
		dl->link_pending &= ~BIT(i);
		le = dl->link_err[i];
		dl->link_errors[i] += 1 + le.folded;
		le.errors = dl->link_errors[i];
		dl->to_recover |= BIT(i);
		spin_unlock(&dl->lock);
		devlink_health_report(dl->link_rep, le.reason, &le);
	}

	spin_lock(&dl->lock);
	thermal = dl->live && dl->thermal_pending;
	dl->thermal_pending = false;
	te = dl->thermal_err;
	spin_unlock(&dl->lock);
	if (thermal)
		devlink_health_report(dl->thermal_rep,
				      te.alarm & SNODE_ALARM_TEMP_CRIT ?
				      "temperature above critical, throttling" :
				      "sensor above its threshold", &te);
}

/**
 * snode_devlink_link_error() - record a link error for the link reporter
 * @sdev: snode device
 * @port: the link
 * @reason: what happened, a static string
 * @state: the link's state with the error
 * @threshold: the BER alarm threshold in force
 *
 * An error of a link whose last one was not reported yet replaces it and
 * is counted in its @folded.
 *
 * Context: Any context that may sleep; the caller holds &snode_link.lock.
 */
static void snode_devlink_link_error(struct snode_dev *sdev, unsigned int port,
				     const char *reason, const struct snode_port *state,
				     u64 threshold)
{
	struct snode_devlink *dl = sdev->dl;
	struct snode_dl_link_err *e;
	u32 folded = 0;

	lockdep_assert_held(&sdev->link->lock);
	if (!dl || port >= dl->nports)
		return;

	spin_lock(&dl->lock);
	if (dl->live) {
		e = &dl->link_err[port];
		if (dl->link_pending & BIT(port))
			folded = e->folded + 1;
		*e = (struct snode_dl_link_err) {
			.port = port,
			.reason = reason,
			.state = *state,
			.threshold = threshold,
			.ts = ktime_get_real_ns(),
			.folded = folded,
		};
		dl->link_pending |= BIT(port);
		schedule_work(&dl->report_work);
	}
	spin_unlock(&dl->lock);
}

/**
 * snode_devlink_thermal() - record a THERMAL event for the thermal reporter
 * @sdev: snode device
 * @temp: die temperature, milli-degC
 * @power: power draw, mW
 * @alarm: SENSOR_ALARM bits of the event
 *
 * Context: Any context that may sleep; the caller holds &snode_link.lock.
 */
static void snode_devlink_thermal(struct snode_dev *sdev, s32 temp, u32 power,
				  u32 alarm)
{
	struct snode_devlink *dl = sdev->dl;

	lockdep_assert_held(&sdev->link->lock);
	if (!dl)
		return;

	spin_lock(&dl->lock);
	if (dl->live) {
		dl->thermal_err = (struct snode_dl_thermal_err) {
			.temp = temp,
			.power = power,
			.alarm = alarm,
			.ts = ktime_get_real_ns(),
			.folded = dl->thermal_pending ?
				  dl->thermal_err.folded + 1 : 0,
		};
		dl->thermal_pending = true;
		schedule_work(&dl->report_work);
	}
	spin_unlock(&dl->lock);
}

/* ------------------------------------------------------------------ */
/* the instance                                                        */

static void snode_dl_ports_unregister(struct snode_devlink *dl)
{
	while (dl->nports)
		devlink_port_unregister(&dl->ports[--dl->nports]);
}

static int snode_dl_ports_register(struct snode_devlink *dl)
{
	struct devlink *devlink = priv_to_devlink(dl);
	struct snode_link *link = dl->sdev->link;
	unsigned int i;
	int ret;

	for (i = 0; i < link->nports; i++) {
		struct devlink_port_attrs attrs = {
			.flavour = DEVLINK_PORT_FLAVOUR_PHYSICAL,
			.phys.port_number = i,
		};

		mutex_lock(&link->lock);
		attrs.lanes = link->ports[i].port.max_lanes;
		mutex_unlock(&link->lock);
		devlink_port_attrs_set(&dl->ports[i], &attrs);
		ret = devlink_port_register(devlink, &dl->ports[i], i);
		if (ret) {
			snode_dl_ports_unregister(dl);
			return ret;
		}
		dl->nports++;
	}
	return 0;
}

static void snode_dl_unregister(void *data)
{
	struct snode_devlink *dl = data;
	struct snode_dev *sdev = dl->sdev;

	/* no event reaches the instance from here on */
	mutex_lock(&sdev->link->lock);
	sdev->dl = NULL;
	mutex_unlock(&sdev->link->lock);
	spin_lock(&dl->lock);
	dl->live = false;
	spin_unlock(&dl->lock);
	cancel_work_sync(&dl->report_work);

	/* waits for the callbacks in flight */
	devlink_unregister(priv_to_devlink(dl));
	devlink_health_reporter_destroy(dl->thermal_rep);
	devlink_health_reporter_destroy(dl->link_rep);
	snode_dl_ports_unregister(dl);
	devlink_free(priv_to_devlink(dl));
}

/**
 * snode_devlink_register() - register the NIC's devlink instance
 * @sdev: snode device, fully probed: the last step of probe
 *
 * Undone first on unbind.
 *
 * Context: Process context (probe).
 * Return: 0 or a negative errno.
 */
static int snode_devlink_register(struct snode_dev *sdev)
{
	struct device *dev = &sdev->pdev->dev;
	struct snode_devlink *dl;
	struct devlink *devlink;
	int ret;

	devlink = devlink_alloc(&snode_dl_ops, sizeof(*dl), dev);
	if (!devlink)
		return -ENOMEM;
	dl = devlink_priv(devlink);
	dl->sdev = sdev;
	spin_lock_init(&dl->lock);
	INIT_WORK(&dl->report_work, snode_dl_report_work);

	ret = snode_dl_ports_register(dl);
	if (ret)
		goto err_free;

	dl->link_rep = devlink_health_reporter_create(devlink, &snode_dl_link_ops,
						      SNODE_DL_LINK_GRACE_MS, dl);
	if (IS_ERR(dl->link_rep)) {
		ret = PTR_ERR(dl->link_rep);
		goto err_ports;
	}
	dl->thermal_rep = devlink_health_reporter_create(devlink,
							 &snode_dl_thermal_ops,
							 0, dl);
	if (IS_ERR(dl->thermal_rep)) {
		ret = PTR_ERR(dl->thermal_rep);
		goto err_link_rep;
	}

	dl->live = true;
	devlink_register(devlink);
	mutex_lock(&sdev->link->lock);
	sdev->dl = dl;
	mutex_unlock(&sdev->link->lock);

	return devm_add_action_or_reset(dev, snode_dl_unregister, dl);

err_link_rep:
	devlink_health_reporter_destroy(dl->link_rep);
err_ports:
	snode_dl_ports_unregister(dl);
err_free:
	devlink_free(devlink);
	return ret;
}

const struct snode_feature_ops snode_devlink_feature = {
	.name = "devlink",
	.add = snode_devlink_register,
};

/* the health reporters hear what the links observe */
const struct snode_listener_ops snode_devlink_listener = {
	.link_error = snode_devlink_link_error,
	.thermal_alarm = snode_devlink_thermal,
};
