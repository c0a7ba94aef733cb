// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the "snode" generic-netlink family: NICs (dev-get, dev-set) and
 * their thermal notifications.
 */

#include <linux/netlink.h>
#include <net/genetlink.h>

#include <linux/snode.h>

#include "link.h"
#include "netlink.h"
#include "snode.h"

/**
 * DOC: Netlink: devices
 *
 * dev-get and dev-set of the "snode" family, and the notification of a
 * sensor threshold crossing, the NIC's own event.
 */

static int snode_nl_dev_fill(struct sk_buff *skb, struct snode_nl_dev *nd,
			     const struct sk_buff *req, u32 portid, u32 seq,
			     int flags, struct netlink_callback *cb)
{
	struct snode_dev *sdev = nd->sdev;
	bool throttled = false, full;
	enum snode_state state;
	struct snode_id id;
	u64 threshold;
	void *hdr;

	BUILD_BUG_ON((int)SNODE_STATE_LIVE != SNODE_DEV_STATE_LIVE);
	BUILD_BUG_ON((int)SNODE_STATE_RESETTING != SNODE_DEV_STATE_RESETTING);
	BUILD_BUG_ON((int)SNODE_STATE_DEAD != SNODE_DEV_STATE_DEAD);
	BUILD_BUG_ON((int)SNODE_STATE_REMOVED != SNODE_DEV_STATE_REMOVED);

	snode_id_get(sdev, &id);
	down_read(&sdev->rwsem);
	state = sdev->state;
	up_read(&sdev->rwsem);
	if (!snode_lock_live(sdev)) {
		throttled = snode_readl(sdev, SNODE_STATUS_OFFSET) &
			    SNODE_STATUS_THROTTLED;
		snode_unlock_live(sdev);
	}
	mutex_lock(&sdev->link->lock);
	threshold = sdev->link->ber_threshold;
	mutex_unlock(&sdev->link->lock);

	hdr = snode_nl_msg_put(skb, portid, seq, flags, SNODE_NL_CMD_DEV_GET,
			       cb);
	if (!hdr)
		return -EMSGSIZE;

	full = nla_put_u32(skb, SNODE_A_DEV_INDEX, sdev->index) ||
	       nla_put_string(skb, SNODE_A_DEV_NAME, dev_name(&sdev->dev)) ||
	       nla_put_u32(skb, SNODE_A_DEV_STATE, state) ||
	       (id.node_id != SNODE_NODE_ID_NONE &&
		nla_put_u32(skb, SNODE_A_DEV_NODE_ID, id.node_id)) ||
	       nla_put_u32(skb, SNODE_A_DEV_FABRIC_ID, id.fabric_id) ||
	       nla_put_u32(skb, SNODE_A_DEV_HW_VERSION, id.hw_version) ||
	       nla_put_u32(skb, SNODE_A_DEV_FW_VERSION, id.fw_version) ||
	       nla_put_string(skb, SNODE_A_DEV_FW_NAME, id.fw_name) ||
	       nla_put_string(skb, SNODE_A_DEV_SERIAL, id.serial) ||
	       nla_put_u32(skb, SNODE_A_DEV_CAPS, id.caps) ||
	       nla_put_u32(skb, SNODE_A_DEV_NPORTS, id.nports) ||
	       nla_put_u32(skb, SNODE_A_DEV_MAX_NODES, id.max_nodes) ||
	       nla_put_u32(skb, SNODE_A_DEV_ATT_ENTRIES, id.att_entries) ||
	       nla_put_u32(skb, SNODE_A_DEV_EXPORT_ENTRIES, id.export_entries) ||
	       nla_put_u64_64bit(skb, SNODE_A_DEV_POOL_SIZE, id.pool_size,
				 SNODE_A_DEV_PAD) ||
	       nla_put_u64_64bit(skb, SNODE_A_DEV_APERTURE_SIZE, id.aperture_size,
				 SNODE_A_DEV_PAD) ||
	       (throttled && nla_put_flag(skb, SNODE_A_DEV_THROTTLED)) ||
	       nla_put_u64_64bit(skb, SNODE_A_DEV_BER_THRESHOLD, threshold,
				 SNODE_A_DEV_PAD) ||
	       (sdev->mem &&
		nla_put_u64_64bit(skb, SNODE_A_DEV_POOL_FREE,
				  snode_mem_pool_free(sdev), SNODE_A_DEV_PAD));
	return snode_nl_msg_end(skb, hdr, full);
}

int snode_nl_dev_get_doit(struct sk_buff *skb, struct genl_info *info)
{
	return snode_nl_nic_doit(skb, info, SNODE_A_DEV_INDEX,
				 snode_nl_dev_fill);
}

int snode_nl_dev_get_dumpit(struct sk_buff *skb,
			    struct netlink_callback *cb)
{
	return snode_nl_nic_dumpit(skb, cb, SNODE_A_DEV_INDEX, snode_nl_dev_fill);
}

int snode_nl_dev_set_doit(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *threshold = info->attrs[SNODE_A_DEV_BER_THRESHOLD];
	struct snode_nl_dev *nd;
	int ret;

	if (GENL_REQ_ATTR_CHECK(info, SNODE_A_DEV_BER_THRESHOLD))
		return -EINVAL;

	nd = snode_nl_dev_get(info, SNODE_A_DEV_INDEX);
	if (IS_ERR(nd))
		return PTR_ERR(nd);
	ret = snode_link_set_threshold(nd->sdev, -1, nla_get_u64(threshold));
	snode_nl_put(nd);
	return ret;
}

/**
 * snode_nl_thermal_ntf() - notify a sensor threshold crossing
 * @sdev: snode device
 * @temp: die temperature, milli-degC
 * @power: power draw, mW
 * @alarm: SENSOR_ALARM bits, enum snode_thermal_alarm
 * @meta: timestamps
 *
 * Context: Process context.
 */
void snode_nl_thermal_ntf(struct snode_dev *sdev, s32 temp, u32 power,
			  u32 alarm, const struct snode_ev_meta *meta)
{
	struct snode_nl_ntf ntf;

	BUILD_BUG_ON(SNODE_ALARM_TEMP_MAX != SNODE_THERMAL_ALARM_TEMP_MAX);
	BUILD_BUG_ON(SNODE_ALARM_TEMP_CRIT != SNODE_THERMAL_ALARM_TEMP_CRIT);
	BUILD_BUG_ON(SNODE_ALARM_POWER_MAX != SNODE_THERMAL_ALARM_POWER_MAX);

	if (!snode_nl_ntf_start(&ntf, sdev, SNODE_NL_CMD_THERMAL_NTF, 0, meta))
		return;
	snode_nl_ntf_send(&ntf,
			  nla_put_s32(ntf.skb, SNODE_A_EVENT_TEMP, temp) ||
			  nla_put_u32(ntf.skb, SNODE_A_EVENT_POWER, power) ||
			  nla_put_u32(ntf.skb, SNODE_A_EVENT_THERMAL_ALARM,
				      alarm));
}
