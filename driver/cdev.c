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
 * ioctls are dispatched through snode_ioctl_ops[], indexed by command number
 * and carrying the size of the structure the kernel knows and the smallest
 * size it accepts (offsetofend() of the last member of the first version).
 * copy_struct_from_user() zero-extends older, shorter structures and
 * rejects newer ones with a non-zero unknown tail.
 */

static DEFINE_IDA(snode_ida);

/**
 * snode_state_name() - name of a device state, as sysfs shows it
 * @state: enum snode_state
 *
 * Context: Any context.
 * Return: a static string.
 */
const char *snode_state_name(enum snode_state state)
{
	static const char *const names[] = {
		[SNODE_STATE_LIVE] = "live",
		[SNODE_STATE_RESETTING] = "resetting",
		[SNODE_STATE_DEAD] = "dead",
		[SNODE_STATE_REMOVED] = "removed",
	};

	if (state >= ARRAY_SIZE(names))
		return "unknown";
	return names[state];
}

/**
 * snode_lock_live() - enter a section that uses the hardware
 * @sdev: snode device
 *
 * Context: Process context, may sleep.
 * Return: 0 with @sdev->rwsem held for read if the device is live, else
 * -EAGAIN while it is being reset, -EIO if it failed, -ENODEV once removed.
 */
int snode_lock_live(struct snode_dev *sdev)
{
	int ret;

	down_read(&sdev->rwsem);
	switch (sdev->state) {
	case SNODE_STATE_LIVE:
		return 0;
	case SNODE_STATE_RESETTING:
		ret = -EAGAIN;
		break;
	case SNODE_STATE_DEAD:
		ret = -EIO;
		break;
	default:
		ret = -ENODEV;
		break;
	}
	up_read(&sdev->rwsem);
	return ret;
}

/**
 * snode_unlock_live() - leave a section entered with snode_lock_live()
 * @sdev: snode device
 *
 * Context: Process context.
 */
void snode_unlock_live(struct snode_dev *sdev)
{
	up_read(&sdev->rwsem);
}

/**
 * snode_ucmd_respond() - copy an ioctl's structure back to userspace
 * @ucmd: the ioctl call
 * @cmd_len: size of the structure the kernel knows
 *
 * Context: Process context.
 * Return: 0 or -EFAULT.
 */
int snode_ucmd_respond(struct snode_ucmd *ucmd, size_t cmd_len)
{
	if (copy_to_user(ucmd->ubuffer, ucmd->cmd,
			 min_t(size_t, ucmd->user_size, cmd_len)))
		return -EFAULT;
	return 0;
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

union snode_ucmd_buffer {
	struct snode_info info;
	struct snode_mem_alloc mem_alloc;
	struct snode_mem_free mem_free;
	struct snode_mem_export mem_export;
	struct snode_mem_unexport mem_unexport;
	struct snode_mem_import mem_import;
	struct snode_mem_list mem_list;
	struct snode_ep_alloc ep_alloc;
	struct snode_msg_send msg_send;
	struct snode_msg_list msg_list;
	struct snode_stats stats;
	struct snode_dma_open dma_open;
};

/* Every snode ioctl is _IO(SNODE_TYPE, nr), indexed here by nr. */
struct snode_ioctl_op {
	unsigned int size;
	unsigned int min_size;
	int (*execute)(struct snode_ucmd *ucmd);
};

#define SNODE_IOCTL_OP(_ioctl, _fn, _struct, _last)			\
	[_IOC_NR(_ioctl) - SNODE_CMD_BASE] = {				\
		.size = sizeof(_struct) +				\
			BUILD_BUG_ON_ZERO(sizeof(union snode_ucmd_buffer) < \
					  sizeof(_struct)),		\
		.min_size = offsetofend(_struct, _last),		\
		.execute = _fn,						\
	}

static const struct snode_ioctl_op snode_ioctl_ops[] = {
	SNODE_IOCTL_OP(SNODE_IOCTL_INFO, snode_ioctl_info, struct snode_info,
		       out_fw_name),
	SNODE_IOCTL_OP(SNODE_IOCTL_MEM_ALLOC, snode_ioctl_mem_alloc,
		       struct snode_mem_alloc, out_offset),
	SNODE_IOCTL_OP(SNODE_IOCTL_MEM_FREE, snode_ioctl_mem_free,
		       struct snode_mem_free, offset),
	SNODE_IOCTL_OP(SNODE_IOCTL_MEM_EXPORT, snode_ioctl_mem_export,
		       struct snode_mem_export, out_key),
	SNODE_IOCTL_OP(SNODE_IOCTL_MEM_UNEXPORT, snode_ioctl_mem_unexport,
		       struct snode_mem_unexport, out_revoked),
	SNODE_IOCTL_OP(SNODE_IOCTL_MEM_IMPORT, snode_ioctl_mem_import,
		       struct snode_mem_import, out_epoch),
	SNODE_IOCTL_OP(SNODE_IOCTL_MEM_LIST, snode_ioctl_mem_list,
		       struct snode_mem_list, out_pool_free),
	SNODE_IOCTL_OP(SNODE_IOCTL_EP_ALLOC, snode_ioctl_ep_alloc,
		       struct snode_ep_alloc, out_key),
	SNODE_IOCTL_OP(SNODE_IOCTL_MSG_SEND, snode_ioctl_msg_send,
		       struct snode_msg_send, payload),
	SNODE_IOCTL_OP(SNODE_IOCTL_MSG_LIST, snode_ioctl_msg_list,
		       struct snode_msg_list, entries),
	SNODE_IOCTL_OP(SNODE_IOCTL_DMA_OPEN, snode_ioctl_dma_open,
		       struct snode_dma_open, out_fd),
	SNODE_IOCTL_OP(SNODE_IOCTL_STATS, snode_ioctl_stats,
		       struct snode_stats, out_send_retries),
};

static long snode_fops_ioctl(struct file *filp, unsigned int cmd,
			     unsigned long arg)
{
	const struct snode_ioctl_op *op;
	union snode_ucmd_buffer buf;
	struct snode_ucmd ucmd = {};
	unsigned int nr;
	int ret;

	nr = _IOC_NR(cmd);
	if (cmd != _IO(SNODE_TYPE, nr) || nr < SNODE_CMD_BASE ||
	    nr - SNODE_CMD_BASE >= ARRAY_SIZE(snode_ioctl_ops))
		return -ENOTTY;
	op = &snode_ioctl_ops[nr - SNODE_CMD_BASE];
	if (!op->execute)
		return -ENOTTY;

	ucmd.sfile = filp->private_data;
	ucmd.sdev = ucmd.sfile->sdev;
	ucmd.can_write = filp->f_mode & FMODE_WRITE;
	ucmd.ubuffer = (void __user *)arg;
	if (get_user(ucmd.user_size, (u32 __user *)ucmd.ubuffer))
		return -EFAULT;
	if (ucmd.user_size < op->min_size)
		return -EINVAL;

	ucmd.cmd = &buf;
	ret = copy_struct_from_user(ucmd.cmd, op->size, ucmd.ubuffer,
				    ucmd.user_size);
	if (ret)
		return ret;
	return op->execute(&ucmd);
}

static int snode_fops_open(struct inode *inode, struct file *filp)
{
	struct snode_dev *sdev = container_of(inode->i_cdev, struct snode_dev,
					      cdev);
	struct snode_file *sfile;
	int ret;

	sfile = kzalloc(sizeof(*sfile), GFP_KERNEL);
	if (!sfile)
		return -ENOMEM;
	sfile->sdev = sdev;
	ret = snode_mem_open(sfile, filp);
	if (ret) {
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
int snode_cdev_add(struct snode_dev *sdev)
{
	int ret;

	ret = cdev_device_add(&sdev->cdev, &sdev->dev);
	if (ret)
		return ret;
	return devm_add_action_or_reset(&sdev->pdev->dev, snode_cdev_del, sdev);
}
