// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the character device and its ioctls.
 */

#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <linux/snode.h>

#include "snode.h"

/**
 * DOC: Character device
 *
 * Every NIC has one class device, snodeN, and one character device,
 * /dev/snodeN. The class device's reference count owns &struct snode_dev:
 * an open file holds a reference, so the structure outlives an unbind, and
 * ioctls on such a file fail with ENODEV. The cdev's owner is this module,
 * so an open file also pins the module and rmmod fails while one is open.
 *
 * Its ioctls are the device-wide ones: INFO, STATS and the listings here,
 * the rest in the feature files, all dispatched by the core
 * (snode_ioctl_dispatch()) through snode_ioctl_ops[].
 */

static DEFINE_IDA(snode_ida);

static struct class snode_class = {
	.name = "snode",
};

static dev_t snode_devt;

/**
 * snode_cdev_init() - register the "snode" class and the character device
 * region for /dev/snode0 to /dev/snode255
 *
 * Context: Module init.
 * Return: 0 or a negative errno.
 */
int snode_cdev_init(void)
{
	int ret;

	ret = class_register(&snode_class);
	if (ret)
		return ret;
	ret = alloc_chrdev_region(&snode_devt, 0, SNODE_MAX_DEVS, "snode");
	if (ret)
		class_unregister(&snode_class);
	return ret;
}

/**
 * snode_cdev_exit() - undo snode_cdev_init()
 *
 * Context: Module exit, every NIC unbound.
 */
void snode_cdev_exit(void)
{
	unregister_chrdev_region(snode_devt, SNODE_MAX_DEVS);
	class_unregister(&snode_class);
}

static int snode_ioctl_info(struct snode_ucmd *ucmd)
{
	struct snode_info *cmd = ucmd->cmd;
	struct snode_dev *sdev = ucmd->sdev;
	struct snode_id id;
	u32 status;
	int ret;

	if (cmd->flags || cmd->__reserved)
		return -EOPNOTSUPP;

	ret = snode_lock_live(sdev);
	if (ret)
		return ret;
	snode_id_get(sdev, &id);
	status = snode_readl(sdev, SNODE_STATUS_OFFSET);
	snode_unlock_live(sdev);

	cmd->out_index = sdev->index;
	cmd->out_node_id = id.node_id;
	cmd->out_fabric_id = id.fabric_id;
	cmd->out_hw_version = id.hw_version;
	cmd->out_fw_version = id.fw_version;
	cmd->out_caps = id.caps;
	cmd->out_flags = 0;
	if (id.attached)
		cmd->out_flags |= SNODE_INFO_OUT_ATTACHED;
	if (status & SNODE_STATUS_THROTTLED)
		cmd->out_flags |= SNODE_INFO_OUT_THROTTLED;
	cmd->out_nports = id.nports;
	cmd->out_max_nodes = id.max_nodes;
	cmd->out_att_entries = id.att_entries;
	cmd->out_export_entries = id.export_entries;
	cmd->out_endpoints = id.endpoints;
	cmd->out_max_dma_len = id.max_dma_len;
	cmd->out_aperture_size = id.aperture_size;
	cmd->out_pool_size = id.pool_size;
	strscpy(cmd->out_serial, id.serial, sizeof(cmd->out_serial));
	strscpy(cmd->out_fw_name, id.fw_name, sizeof(cmd->out_fw_name));

	return snode_ucmd_respond(ucmd, sizeof(*cmd));
}

static const struct snode_ioctl_op snode_ioctl_ops[] = {
	SNODE_IOCTL_OP(SNODE_IOCTL_INFO, snode_ioctl_info, struct snode_info,
		       out_fw_name, 0),
	SNODE_IOCTL_OP(SNODE_IOCTL_MEM_ALLOC, snode_ioctl_mem_alloc,
		       struct snode_mem_alloc, out_offset, SNODE_IOCTL_WRITE),
	SNODE_IOCTL_OP(SNODE_IOCTL_MEM_FREE, snode_ioctl_mem_free,
		       struct snode_mem_free, offset, SNODE_IOCTL_WRITE),
	SNODE_IOCTL_OP(SNODE_IOCTL_MEM_EXPORT, snode_ioctl_mem_export,
		       struct snode_mem_export, out_key, SNODE_IOCTL_WRITE),
	SNODE_IOCTL_OP(SNODE_IOCTL_MEM_UNEXPORT, snode_ioctl_mem_unexport,
		       struct snode_mem_unexport, out_revoked,
		       SNODE_IOCTL_WRITE),
	SNODE_IOCTL_OP(SNODE_IOCTL_MEM_IMPORT, snode_ioctl_mem_import,
		       struct snode_mem_import, out_epoch, SNODE_IOCTL_WRITE),
	SNODE_IOCTL_OP(SNODE_IOCTL_EP_ALLOC, snode_ioctl_ep_alloc,
		       struct snode_ep_alloc, out_key, SNODE_IOCTL_WRITE),
	SNODE_IOCTL_OP(SNODE_IOCTL_MSG_SEND, snode_ioctl_msg_send,
		       struct snode_msg_send, payload, SNODE_IOCTL_WRITE),
	SNODE_IOCTL_OP(SNODE_IOCTL_DMA_OPEN, snode_ioctl_dma_open,
		       struct snode_dma_open, out_fd, SNODE_IOCTL_WRITE),
};

static long snode_fops_ioctl(struct file *filp, unsigned int cmd,
			     unsigned long arg)
{
	struct snode_file *sfile = filp->private_data;
	struct snode_ucmd ucmd = {
		.sdev = sfile->sdev,
		.sfile = sfile,
	};

	return snode_ioctl_dispatch(filp, snode_ioctl_ops,
				    ARRAY_SIZE(snode_ioctl_ops), &ucmd, cmd,
				    arg);
}

static int snode_fops_open(struct inode *inode, struct file *filp)
{
	struct snode_dev *sdev = container_of(inode->i_cdev, struct snode_dev,
					      cdev);
	struct snode_file *sfile;
	int ret;

	sfile = kzalloc(sizeof(*sfile), GFP_KERNEL_ACCOUNT);
	if (!sfile)
		return -ENOMEM;
	sfile->sdev = sdev;
	sfile->quota = snode_quota_get(sdev, current_euid());
	if (!sfile->quota) {
		kfree(sfile);
		return -ENOMEM;
	}
	ret = snode_mem_open(sfile, filp);
	if (ret) {
		snode_quota_put(sfile->quota);
		kfree(sfile);
		return ret;
	}
	get_device(&sdev->dev);
	filp->private_data = sfile;
	return 0;
}

static int snode_fops_release(struct inode *inode, struct file *filp)
{
	struct snode_file *sfile = filp->private_data;
	struct snode_dev *sdev = sfile->sdev;

	snode_mem_release(sfile);
	snode_quota_put(sfile->quota);
	kfree(sfile);
	put_device(&sdev->dev);
	return 0;
}

static const struct file_operations snode_fops = {
	.owner = THIS_MODULE,
	.open = snode_fops_open,
	.release = snode_fops_release,
	.unlocked_ioctl = snode_fops_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.mmap = snode_mem_mmap,
	.get_unmapped_area = snode_mem_get_unmapped_area,
	.llseek = noop_llseek,
};

static void snode_dev_release(struct device *dev)
{
	struct snode_dev *sdev = to_snode_dev(dev);

	snode_mem_free(sdev);
	snode_msg_free(sdev);
	snode_dma_free(sdev);
	ida_free(&snode_ida, sdev->index);
	kfree(sdev);
}

static const struct device_type snode_dev_type = {
	.name = "snode",
	.release = snode_dev_release,
};

static void snode_dev_put(void *data)
{
	struct snode_dev *sdev = data;

	put_device(&sdev->dev);
}

/**
 * snode_dev_alloc() - allocate the device structure of a NIC
 * @pdev: the PCI function
 *
 * The structure is initialised but not registered; the reference is
 * dropped when @pdev unbinds.
 *
 * Context: Process context (probe).
 * Return: the new device or an ERR_PTR().
 */
struct snode_dev *snode_dev_alloc(struct pci_dev *pdev)
{
	struct snode_dev *sdev;
	struct device *dev;
	int index, ret;

	sdev = kzalloc(sizeof(*sdev), GFP_KERNEL);
	if (!sdev)
		return ERR_PTR(-ENOMEM);

	index = ida_alloc_max(&snode_ida, SNODE_MAX_DEVS - 1, GFP_KERNEL);
	if (index < 0) {
		kfree(sdev);
		return ERR_PTR(index);
	}
	sdev->index = index;
	sdev->pdev = pdev;
	init_rwsem(&sdev->rwsem);
	spin_lock_init(&sdev->id_lock);
	snode_quotas_init(sdev);
	mutex_init(&sdev->sensors.lock);

	dev = &sdev->dev;
	device_initialize(dev);
	/* from here on, put_device() frees sdev and the index */
	dev->parent = &pdev->dev;
	dev->class = &snode_class;
	dev->type = &snode_dev_type;
	dev->groups = snode_dev_groups;
	dev->devt = MKDEV(MAJOR(snode_devt), index);
	ret = dev_set_name(dev, "snode%d", index);
	if (ret)
		goto err_put;

	cdev_init(&sdev->cdev, &snode_fops);
	sdev->cdev.owner = THIS_MODULE;

	ret = devm_add_action_or_reset(&pdev->dev, snode_dev_put, sdev);
	if (ret)
		return ERR_PTR(ret);
	return sdev;

err_put:
	put_device(dev);
	return ERR_PTR(ret);
}

static void snode_cdev_del(void *data)
{
	struct snode_dev *sdev = data;

	down_write(&sdev->rwsem);
	sdev->state = SNODE_STATE_REMOVED;
	up_write(&sdev->rwsem);
	cdev_device_del(&sdev->cdev, &sdev->dev);
}

/**
 * snode_cdev_add() - make the NIC visible as snodeN and /dev/snodeN
 * @sdev: snode device
 *
 * On unbind the device is marked removed, so open files get ENODEV, and
 * deleted.
 *
 * Context: Process context (probe).
 * Return: 0 or a negative errno.
 */
static int snode_cdev_add(struct snode_dev *sdev)
{
	int ret;

	ret = cdev_device_add(&sdev->cdev, &sdev->dev);
	if (ret)
		return ret;
	return devm_add_action_or_reset(&sdev->pdev->dev, snode_cdev_del, sdev);
}

const struct snode_feature_ops snode_cdev_feature = {
	.name = "the character device",
	.add = snode_cdev_add,
};
