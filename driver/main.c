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
 * main.c registers what all NICs share: the "snode" device class, the
 * character device region for /dev/snode0 to /dev/snode255, the debugfs
 * root, and the PCI driver. See Documentation/driver/snode.rst.
 */

struct class snode_class = {
	.name = "snode",
};

dev_t snode_devt;

static int __init snode_init(void)
{
	int ret;

	ret = class_register(&snode_class);
	if (ret)
		return ret;

	ret = alloc_chrdev_region(&snode_devt, 0, SNODE_MAX_DEVS, "snode");
	if (ret)
		goto err_class;

	snode_debugfs_init();

	/* before any NIC probes: their events are notified to the family */
	ret = snode_nl_init();
	if (ret)
		goto err_debugfs;

	ret = snode_pci_init();
	if (ret)
		goto err_nl;
	return 0;

err_nl:
	snode_nl_exit();
err_debugfs:
	snode_debugfs_exit();
	unregister_chrdev_region(snode_devt, SNODE_MAX_DEVS);
err_class:
	class_unregister(&snode_class);
	return ret;
}

static void __exit snode_exit(void)
{
	snode_pci_exit();
	snode_nl_exit();
	snode_debugfs_exit();
	unregister_chrdev_region(snode_devt, SNODE_MAX_DEVS);
	class_unregister(&snode_class);
}

module_init(snode_init);
module_exit(snode_exit);

MODULE_DESCRIPTION("snode supernode interconnect NIC driver");
MODULE_LICENSE("GPL");
