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
 * alarm file reads 1 while the bit is set; reading it clears the bit once
 * the value is back below its threshold, so an alarm is seen at least once
 * and then ends with its cause. THERMAL events notify pollers of the alarm
 * files through hwmon_notify_event().
 */

/* Limits on what userspace may program, in milli-degC and mW. */
#define SNODE_TEMP_MIN		(-55000)
#define SNODE_TEMP_MAX		150000
#define SNODE_POWER_MAX		1000000

static int snode_hwmon_alarm(struct snode_dev *sdev, u32 bit, u32 value_reg,
			     u32 limit_reg, long *val)
{
	u32 alarm;
	s32 value, limit;

	mutex_lock(&sdev->sensors.lock);
	alarm = snode_readl(sdev, SNODE_SENSOR_ALARM_OFFSET) & bit;
	if (alarm) {
		value = snode_readl(sdev, value_reg);
		limit = snode_readl(sdev, limit_reg);
		if (value <= limit)
			snode_writel(sdev, SNODE_SENSOR_ALARM_OFFSET, bit);
	}
	mutex_unlock(&sdev->sensors.lock);
	*val = !!alarm;
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
			ret = snode_hwmon_alarm(sdev, SNODE_ALARM_TEMP_MAX,
						SNODE_TEMP_OFFSET,
						SNODE_TEMP_MAX_OFFSET, val);
			break;
		case hwmon_temp_crit_alarm:
			ret = snode_hwmon_alarm(sdev, SNODE_ALARM_TEMP_CRIT,
						SNODE_TEMP_OFFSET,
						SNODE_TEMP_CRIT_OFFSET, val);
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
			ret = snode_hwmon_alarm(sdev, SNODE_ALARM_POWER_MAX,
						SNODE_POWER_OFFSET,
						SNODE_POWER_MAX_OFFSET, val);
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
	int ret;

	ret = snode_lock_live(sdev);
	if (ret)
		return ret;

	mutex_lock(&s->lock);
	if (type == hwmon_temp && attr == hwmon_temp_max) {
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
			return 0644;
		case hwmon_temp_input:
		case hwmon_temp_max_alarm:
		case hwmon_temp_crit_alarm:
			return 0444;
		}
		break;
	case hwmon_power:
		switch (attr) {
		case hwmon_power_max:
			return 0644;
		case hwmon_power_input:
		case hwmon_power_max_alarm:
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
int snode_hwmon_init(struct snode_dev *sdev)
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
void __snode_hwmon_restore(struct snode_dev *sdev)
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
void snode_hwmon_event(struct snode_dev *sdev, const struct snode_event *ev)
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
