// SPDX-License-Identifier: GPL-2.0
/*
 * snode: identity attributes of /sys/class/snode/snodeN.
 */

#include <linux/bitfield.h>
#include <linux/device.h>
#include <linux/sysfs.h>

#include <linux/snode.h>

#include "snode.h"

/**
 * DOC: sysfs identity
 *
 * The class device snodeN carries the identity the device reported at the
 * last IDENTIFY, read-only, one value per file, as documented in
 * Documentation/abi/sysfs-snode.rst. The values come from the cached
 * identity, so reading them never touches the hardware and works during a
 * reset. The PCI function's own ``reset`` attribute resets the NIC.
 */

/* A snapshot of the cached identity; small enough to return by value. */
static struct snode_id snode_sysfs_id(struct device *dev)
{
	struct snode_id id;

	snode_id_get(to_snode_dev(dev), &id);
	return id;
}

static ssize_t fabric_id_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", snode_sysfs_id(dev).fabric_id);
}
static DEVICE_ATTR_RO(fabric_id);

static ssize_t nports_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", snode_sysfs_id(dev).nports);
}
static DEVICE_ATTR_RO(nports);

static ssize_t max_nodes_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", snode_sysfs_id(dev).max_nodes);
}
static DEVICE_ATTR_RO(max_nodes);

static ssize_t att_entries_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", snode_sysfs_id(dev).att_entries);
}
static DEVICE_ATTR_RO(att_entries);

static ssize_t export_entries_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", snode_sysfs_id(dev).export_entries);
}
static DEVICE_ATTR_RO(export_entries);

static ssize_t endpoints_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", snode_sysfs_id(dev).endpoints);
}
static DEVICE_ATTR_RO(endpoints);

static ssize_t max_dma_len_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%u\n", snode_sysfs_id(dev).max_dma_len);
}
static DEVICE_ATTR_RO(max_dma_len);

static ssize_t aperture_size_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", snode_sysfs_id(dev).aperture_size);
}
static DEVICE_ATTR_RO(aperture_size);

static ssize_t pool_size_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", snode_sysfs_id(dev).pool_size);
}
static DEVICE_ATTR_RO(pool_size);

static ssize_t caps_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "0x%08x\n", snode_sysfs_id(dev).caps);
}
static DEVICE_ATTR_RO(caps);

static ssize_t serial_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", snode_sysfs_id(dev).serial);
}
static DEVICE_ATTR_RO(serial);

static ssize_t fw_name_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", snode_sysfs_id(dev).fw_name);
}
static DEVICE_ATTR_RO(fw_name);

static ssize_t node_id_show(struct device *dev, struct device_attribute *attr,
			    char *buf)
{
	struct snode_id id;

	snode_id_get(to_snode_dev(dev), &id);
	if (id.node_id == SNODE_NODE_ID_NONE)
		return sysfs_emit(buf, "none\n");
	return sysfs_emit(buf, "%u\n", id.node_id);
}
static DEVICE_ATTR_RO(node_id);

static ssize_t fw_version_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct snode_id id;

	snode_id_get(to_snode_dev(dev), &id);
	return sysfs_emit(buf, "%lu.%lu.%lu\n",
			  FIELD_GET(SNODE_FW_MAJOR_MASK, id.fw_version),
			  FIELD_GET(SNODE_FW_MINOR_MASK, id.fw_version),
			  FIELD_GET(SNODE_FW_PATCH_MASK, id.fw_version));
}
static DEVICE_ATTR_RO(fw_version);

static ssize_t hw_version_show(struct device *dev,
			       struct device_attribute *attr, char *buf)
{
	struct snode_id id;

	snode_id_get(to_snode_dev(dev), &id);
	return sysfs_emit(buf, "%lu.%lu\n",
			  FIELD_GET(SNODE_VERSION_MAJOR_MASK, id.hw_version),
			  FIELD_GET(SNODE_VERSION_MINOR_MASK, id.hw_version));
}
static DEVICE_ATTR_RO(hw_version);

static ssize_t state_show(struct device *dev, struct device_attribute *attr,
			  char *buf)
{
	struct snode_dev *sdev = to_snode_dev(dev);
	enum snode_state state;

	down_read(&sdev->rwsem);
	state = sdev->state;
	up_read(&sdev->rwsem);
	return sysfs_emit(buf, "%s\n", snode_state_name(state));
}
static DEVICE_ATTR_RO(state);

static struct attribute *snode_dev_attrs[] = {
	&dev_attr_aperture_size.attr,
	&dev_attr_att_entries.attr,
	&dev_attr_caps.attr,
	&dev_attr_endpoints.attr,
	&dev_attr_export_entries.attr,
	&dev_attr_fabric_id.attr,
	&dev_attr_fw_name.attr,
	&dev_attr_fw_version.attr,
	&dev_attr_hw_version.attr,
	&dev_attr_max_dma_len.attr,
	&dev_attr_max_nodes.attr,
	&dev_attr_node_id.attr,
	&dev_attr_nports.attr,
	&dev_attr_pool_size.attr,
	&dev_attr_serial.attr,
	&dev_attr_state.attr,
	NULL,
};

static const struct attribute_group snode_dev_group = {
	.attrs = snode_dev_attrs,
};

const struct attribute_group *snode_dev_groups[] = {
	&snode_dev_group,
	NULL,
};
