// SPDX-License-Identifier: GPL-2.0
/*
 * snode: temperature and power sensors as a hwmon device.
 */

#include <linux/hwmon.h>
#include <linux/minmax.h>

#include <linux/snode.h>

#include "snode.h"

/**
 * DOC: hwmon
 *
 * With CAP.SENSORS the NIC's die temperature and power draw appear as a
 * hwmon device named "snode" under the PCI function: temp1_input,
 * temp1_max, temp1_crit, temp1_max_alarm, temp1_crit_alarm, power1_input,
 * power1_max and power1_max_alarm. The thresholds are writable (root only,
 * by file mode) and survive a reset: the driver remembers what was written
 * and programs it again in snode_reset_done().
 *
 * The device latches SENSOR_ALARM bits until software clears them. An
 * alarm file reads 1 while the bit is set, and reading has no side
 * effect: every reader sees the same alarm, so a monitor cannot hide an
 * excursion from another by reading first. The alarm ends when the
 * administrator acknowledges it by writing 0 to the alarm file (as
 * intrusion0_alarm is cleared; the file is writable by root only), which
 * clears the bit; a new crossing sets it again. THERMAL events notify
 * pollers of the alarm files through hwmon_notify_event().
 * Documentation/decisions/0008-permission-model.md says why.
 */

/* Limits on what userspace may program, in milli-degC and mW. */
#define SNODE_TEMP_MIN		(-55000)
#define SNODE_TEMP_MAX		150000
#define SNODE_POWER_MAX		1000000

/* Side-effect free: reading an alarm never clears it for other readers. */
static long snode_hwmon_alarm(struct snode_dev *sdev, u32 bit)
{
	return !!(snode_readl(sdev, SNODE_SENSOR_ALARM_OFFSET) & bit);
}

/* Which SENSOR_ALARM bit an alarm attribute shows, or 0. */
static u32 snode_hwmon_alarm_bit(enum hwmon_sensor_types type, u32 attr)
{
	if (type == hwmon_temp && attr == hwmon_temp_max_alarm)
		return SNODE_ALARM_TEMP_MAX;
	if (type == hwmon_temp && attr == hwmon_temp_crit_alarm)
		return SNODE_ALARM_TEMP_CRIT;
	if (type == hwmon_power && attr == hwmon_power_max_alarm)
		return SNODE_ALARM_POWER_MAX;
	return 0;
}

static int snode_hwmon_read(struct device *dev, enum hwmon_sensor_types type,
			    u32 attr, int channel, long *val)
{
	struct snode_dev *sdev = dev_get_drvdata(dev);
	int ret;

	ret = snode_lock_live(sdev);
	if (ret)
		return ret;

	ret = 0;
	switch (type) {
	case hwmon_temp:
		switch (attr) {
		case hwmon_temp_input:
			*val = (s32)snode_readl(sdev, SNODE_TEMP_OFFSET);
			break;
		case hwmon_temp_max:
			*val = (s32)snode_readl(sdev, SNODE_TEMP_MAX_OFFSET);
			break;
		case hwmon_temp_crit:
			*val = (s32)snode_readl(sdev, SNODE_TEMP_CRIT_OFFSET);
			break;
		case hwmon_temp_max_alarm:
			*val = snode_hwmon_alarm(sdev, SNODE_ALARM_TEMP_MAX);
			break;
		case hwmon_temp_crit_alarm:
			*val = snode_hwmon_alarm(sdev, SNODE_ALARM_TEMP_CRIT);
			break;
		default:
			ret = -EOPNOTSUPP;
		}
		break;
	case hwmon_power:
		switch (attr) {
		case hwmon_power_input:
			/* hwmon reports microwatts */
			*val = (long)snode_readl(sdev, SNODE_POWER_OFFSET) * 1000;
			break;
		case hwmon_power_max:
			*val = (long)snode_readl(sdev, SNODE_POWER_MAX_OFFSET) * 1000;
			break;
		case hwmon_power_max_alarm:
			*val = snode_hwmon_alarm(sdev, SNODE_ALARM_POWER_MAX);
			break;
		default:
			ret = -EOPNOTSUPP;
		}
		break;
	default:
		ret = -EOPNOTSUPP;
	}

	snode_unlock_live(sdev);
	return ret;
}

static int snode_hwmon_write(struct device *dev, enum hwmon_sensor_types type,
			     u32 attr, int channel, long val)
{
	struct snode_dev *sdev = dev_get_drvdata(dev);
	struct snode_sensors *s = &sdev->sensors;
	u32 bit = snode_hwmon_alarm_bit(type, attr);
	int ret;

	/* an alarm is acknowledged with 0; nothing else may be written */
	if (bit && val)
		return -EINVAL;
	ret = snode_lock_live(sdev);
	if (ret)
		return ret;

	mutex_lock(&s->lock);
	if (bit) {
		snode_writel(sdev, SNODE_SENSOR_ALARM_OFFSET, bit);
	} else if (type == hwmon_temp && attr == hwmon_temp_max) {
		s->temp_max = clamp_val(val, SNODE_TEMP_MIN, SNODE_TEMP_MAX);
		s->set |= SNODE_ALARM_TEMP_MAX;
		snode_writel(sdev, SNODE_TEMP_MAX_OFFSET, s->temp_max);
	} else if (type == hwmon_temp && attr == hwmon_temp_crit) {
		s->temp_crit = clamp_val(val, SNODE_TEMP_MIN, SNODE_TEMP_MAX);
		s->set |= SNODE_ALARM_TEMP_CRIT;
		snode_writel(sdev, SNODE_TEMP_CRIT_OFFSET, s->temp_crit);
	} else if (type == hwmon_power && attr == hwmon_power_max) {
		s->power_max = clamp_val(val, 0, SNODE_POWER_MAX * 1000L) / 1000;
		s->set |= SNODE_ALARM_POWER_MAX;
		snode_writel(sdev, SNODE_POWER_MAX_OFFSET, s->power_max);
	} else {
		ret = -EOPNOTSUPP;
	}
	mutex_unlock(&s->lock);

	snode_unlock_live(sdev);
	return ret;
}

static umode_t snode_hwmon_is_visible(const void *data,
				      enum hwmon_sensor_types type, u32 attr,
				      int channel)
{
	switch (type) {
	case hwmon_temp:
		switch (attr) {
		case hwmon_temp_max:
		case hwmon_temp_crit:
		case hwmon_temp_max_alarm:
		case hwmon_temp_crit_alarm:
			return 0644;
		case hwmon_temp_input:
			return 0444;
		}
		break;
	case hwmon_power:
		switch (attr) {
		case hwmon_power_max:
		case hwmon_power_max_alarm:
			return 0644;
		case hwmon_power_input:
			return 0444;
		}
		break;
	default:
		break;
	}
	return 0;
}

static const struct hwmon_channel_info *snode_hwmon_info[] = {
	HWMON_CHANNEL_INFO(temp, HWMON_T_INPUT | HWMON_T_MAX | HWMON_T_CRIT |
			   HWMON_T_MAX_ALARM | HWMON_T_CRIT_ALARM),
	HWMON_CHANNEL_INFO(power, HWMON_P_INPUT | HWMON_P_MAX |
			   HWMON_P_MAX_ALARM),
	NULL,
};

static const struct hwmon_ops snode_hwmon_ops = {
	.is_visible = snode_hwmon_is_visible,
	.read = snode_hwmon_read,
	.write = snode_hwmon_write,
};

static const struct hwmon_chip_info snode_hwmon_chip = {
	.ops = &snode_hwmon_ops,
	.info = snode_hwmon_info,
};

/**
 * snode_hwmon_init() - register the sensors with hwmon
 * @sdev: snode device
 *
 * Does nothing on a device without CAP.SENSORS.
 *
 * Context: Process context (probe).
 * Return: 0 or a negative errno.
 */
static int snode_hwmon_init(struct snode_dev *sdev)
{
	struct device *hwmon;

	if (!(snode_readl(sdev, SNODE_CAP_OFFSET) & SNODE_CAP_SENSORS))
		return 0;

	hwmon = devm_hwmon_device_register_with_info(&sdev->pdev->dev, "snode",
						     sdev, &snode_hwmon_chip,
						     NULL);
	if (IS_ERR(hwmon))
		return PTR_ERR(hwmon);
	sdev->hwmon = hwmon;
	return 0;
}

/**
 * __snode_hwmon_restore() - program the thresholds again after a reset
 * @sdev: snode device
 *
 * Context: Process context. Caller holds @sdev->rwsem for write.
 */
static void __snode_hwmon_restore(struct snode_dev *sdev)
{
	struct snode_sensors *s = &sdev->sensors;

	lockdep_assert_held_write(&sdev->rwsem);

	mutex_lock(&s->lock);
	if (s->set & SNODE_ALARM_TEMP_MAX)
		snode_writel(sdev, SNODE_TEMP_MAX_OFFSET, s->temp_max);
	if (s->set & SNODE_ALARM_TEMP_CRIT)
		snode_writel(sdev, SNODE_TEMP_CRIT_OFFSET, s->temp_crit);
	if (s->set & SNODE_ALARM_POWER_MAX)
		snode_writel(sdev, SNODE_POWER_MAX_OFFSET, s->power_max);
	mutex_unlock(&s->lock);
}

/**
 * snode_hwmon_event() - handle a THERMAL event
 * @sdev: snode device
 * @ev: the event
 *
 * Context: Event IRQ thread.
 */
static void snode_hwmon_event(struct snode_dev *sdev, const struct snode_event *ev)
{
	const struct snode_event_thermal *data = (const void *)ev->data;
	u32 alarm = le32_to_cpu(data->alarm);
	s32 temp = le32_to_cpu(data->temp);

	if (!sdev->hwmon)
		return;

	if (alarm & SNODE_ALARM_TEMP_CRIT)
		dev_warn_ratelimited(&sdev->pdev->dev,
				     "temperature %d mC above critical, throttling\n",
				     temp);
	if (alarm & SNODE_ALARM_TEMP_MAX)
		hwmon_notify_event(sdev->hwmon, hwmon_temp,
				   hwmon_temp_max_alarm, 0);
	if (alarm & SNODE_ALARM_TEMP_CRIT)
		hwmon_notify_event(sdev->hwmon, hwmon_temp,
				   hwmon_temp_crit_alarm, 0);
	if (alarm & SNODE_ALARM_POWER_MAX)
		hwmon_notify_event(sdev->hwmon, hwmon_power,
				   hwmon_power_max_alarm, 0);
}

const struct snode_feature_ops snode_hwmon_feature = {
	.name = "hwmon",
	.init = snode_hwmon_init,
	.reset_restore = __snode_hwmon_restore,
	.events = BIT(SNODE_EV_THERMAL),
	.event = snode_hwmon_event,
};
