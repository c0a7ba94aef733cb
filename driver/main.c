// SPDX-License-Identifier: GPL-2.0
/*
 * snode: driver for the snode supernode interconnect NIC.
 */

#include <linux/fs.h>
#include <linux/module.h>

#include "snode.h"

/**
 * DOC: Module
 *
 * main.c is the module: it registers what all NICs share (the "snode"
 * class and the character device region, the debugfs root, the netlink
 * family) and the PCI driver, and names, in snode_features[], every part
 * a NIC's probe sets up. It is the one file that names them all; the core
 * (pci.c, queue.c) reaches them only through this table. Nothing calls
 * into main.c. See Documentation/driver/snode.rst, "Layers".
 */

/*
 * The order of every phase (struct snode_feature_ops): the links first (their
 * state outlives the event interrupt; registered before global memory), global
 * memory's windows revoked before the message endpoints die and before the
 * copies in flight fail on a reset, the user-visible parts after, devlink
 * last (its callbacks use all of the above; unregistered first).
 */
static const struct snode_feature_ops *const snode_features[] = {
	&snode_link_feature,
	&snode_mem_feature,
	&snode_msg_feature,
	&snode_dma_feature,
#if IS_ENABLED(CONFIG_HWMON)
	&snode_hwmon_feature,
#endif
	&snode_cdev_feature,
	&snode_debugfs_feature,
	&snode_net_feature,
#if IS_ENABLED(CONFIG_NET_DEVLINK)
	&snode_devlink_feature,
#endif
	NULL
};

/* who hears what the links observe (struct snode_listener_ops) */
static const struct snode_listener_ops *const snode_listeners[] = {
	&snode_nl_listener,
#if IS_ENABLED(CONFIG_NET_DEVLINK)
	&snode_devlink_listener,
#endif
	&snode_net_listener,
	NULL
};

static const struct snode_driver snode_driver = {
	.dev_alloc = snode_dev_alloc,
	.features = snode_features,
	.listeners = snode_listeners,
};

static int __init snode_init(void)
{
	int ret;

	ret = snode_cdev_init();
	if (ret)
		return ret;

	snode_debugfs_init();

	/* before any NIC probes: their events are notified to the family */
	ret = snode_nl_init();
	if (ret)
		goto err_debugfs;

	ret = snode_pci_init(&snode_driver);
	if (ret)
		goto err_nl;
	return 0;

err_nl:
	snode_nl_exit();
err_debugfs:
	snode_debugfs_exit();
	snode_cdev_exit();
	return ret;
}

static void __exit snode_exit(void)
{
	snode_pci_exit();
	snode_nl_exit();
	snode_debugfs_exit();
	snode_cdev_exit();
}

module_init(snode_init);
module_exit(snode_exit);

MODULE_DESCRIPTION("snode supernode interconnect NIC driver");
MODULE_LICENSE("GPL");
