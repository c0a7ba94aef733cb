// SPDX-License-Identifier: GPL-2.0
/*
 * snode: PCI probe, remove, identify and reset.
 */

#include <linux/bitfield.h>
#include <linux/delay.h>
#include <linux/iopoll.h>
#include <linux/module.h>
#include <linux/string.h>

#include <linux/snode.h>

#include "snode.h"

/**
 * DOC: PCI function and reset
 *
 * pci.c binds the NIC's PCI function: it maps BAR0, records the BAR2
 * aperture and BAR4 pool for later use, allocates the MSI-X vectors, brings
 * the device from reset to enabled queues, identifies it and registers the
 * user-visible parts (hwmon, snodeN, debugfs).
 *
 * Bring-up always starts from a function reset (CTRL.RESET), because the
 * contract only defines the device's internal queue indices after a reset.
 * SCRATCH is cleared by every reset: the driver writes a cookie there so
 * that a reset is observable, and polls for the cookie to vanish after
 * asking for one.
 *
 * A function-level reset (sysfs ``reset``, or PCI error recovery) runs
 * snode_reset_prepare(), which moves the device to SNODE_STATE_RESETTING
 * and stops the queues, then snode_reset_done(), which starts the queues
 * again, restores the sensor thresholds and re-identifies. If that fails
 * the device is SNODE_STATE_DEAD until the next successful reset.
 */

#define SNODE_SCRATCH_COOKIE	0x736e6f64	/* "snod" */
#define SNODE_READY_TIMEOUT_US	(1000 * USEC_PER_MSEC)
#define SNODE_ATTACH_TIMEOUT_US	(1000 * USEC_PER_MSEC)
#define SNODE_POLL_US		1000

static bool snode_hw_gone(struct snode_dev *sdev)
{
	return snode_readl(sdev, SNODE_MAGIC_OFFSET) == ~0U;
}

/* Reset the function and wait until it can be programmed. */
static int snode_hw_reset(struct snode_dev *sdev)
{
	u32 val;
	int ret;

	/* a test's stand-in for a device that ignores CTRL.RESET */
	if (snode_debug_skip_reset())
		return -ETIMEDOUT;
	snode_writel(sdev, SNODE_SCRATCH_OFFSET, SNODE_SCRATCH_COOKIE);
	snode_writel(sdev, SNODE_CTRL_OFFSET, SNODE_CTRL_RESET);
	ret = readl_poll_timeout(sdev->regs + SNODE_SCRATCH_OFFSET, val,
				 val == 0, SNODE_POLL_US, SNODE_READY_TIMEOUT_US);
	if (ret)
		return ret;
	return readl_poll_timeout(sdev->regs + SNODE_STATUS_OFFSET, val,
				  val & SNODE_STATUS_READY, SNODE_POLL_US,
				  SNODE_READY_TIMEOUT_US);
}

/* the steps every feature may take part in after probe (snode_feature_ops) */
enum snode_step {
	SNODE_STEP_START,
	SNODE_STEP_RESET_PREPARE,
	SNODE_STEP_RESET_RESTORE,
	SNODE_STEP_RESET_DONE,
};

/* Run one step of every feature, in table order. */
static void snode_features_step(struct snode_dev *sdev, enum snode_step step)
{
	const struct snode_feature_ops *const *fp;

	for (fp = sdev->features; *fp; fp++) {
		void (*const hook[])(struct snode_dev *sdev) = {
			[SNODE_STEP_START] = (*fp)->start,
			[SNODE_STEP_RESET_PREPARE] = (*fp)->reset_prepare,
			[SNODE_STEP_RESET_RESTORE] = (*fp)->reset_restore,
			[SNODE_STEP_RESET_DONE] = (*fp)->reset_done,
		};

		if (hook[step])
			hook[step](sdev);
	}
}

/*
 * Program the queues of a device fresh out of reset and enable them.
 * Caller holds rwsem for write, or is probing.
 */
static int __snode_hw_start(struct snode_dev *sdev)
{
	struct device *dev = &sdev->pdev->dev;
	u32 status;
	int ret;

	ret = readl_poll_timeout(sdev->regs + SNODE_STATUS_OFFSET, status,
				 status & SNODE_STATUS_READY, SNODE_POLL_US,
				 SNODE_READY_TIMEOUT_US);
	if (ret) {
		dev_err(dev, "device not ready (STATUS 0x%08x)\n", status);
		return ret;
	}

	__snode_queues_start(sdev);
	snode_features_step(sdev, SNODE_STEP_START);
	snode_writel(sdev, SNODE_CTRL_OFFSET, SNODE_CTRL_ENABLE);
	ret = readl_poll_timeout(sdev->regs + SNODE_STATUS_OFFSET, status,
				 status & (SNODE_STATUS_ENABLED | SNODE_STATUS_FATAL),
				 SNODE_POLL_US, SNODE_READY_TIMEOUT_US);
	if (ret || (status & SNODE_STATUS_FATAL)) {
		dev_err(dev, "device refused to enable its queues (STATUS 0x%08x)\n",
			status);
		__snode_queues_stop(sdev);
		return ret ?: -EIO;
	}
	snode_writel(sdev, SNODE_SCRATCH_OFFSET, SNODE_SCRATCH_COOKIE);

	/*
	 * The reset detaches the device from the fabric; give it a moment to
	 * come back so that the identity carries a node id. Not attaching is
	 * not an error: a FABRIC event re-identifies when it does.
	 */
	readl_poll_timeout(sdev->regs + SNODE_STATUS_OFFSET, status,
			   status & SNODE_STATUS_ATTACHED, SNODE_POLL_US,
			   SNODE_ATTACH_TIMEOUT_US);
	return 0;
}

/* Stop the device's queues and DMA before their memory goes away. */
static void snode_hw_stop(void *data)
{
	struct snode_dev *sdev = data;
	int reset_err;

	/* the state is REMOVED, so no work item takes rwsem any more */
	cancel_work_sync(&sdev->identify_work);
	snode_writel(sdev, SNODE_CTRL_OFFSET, 0);
	reset_err = snode_hw_reset(sdev);
	/*
	 * A device that did not reset may still be using the rings and
	 * buffers freed next: take its bus mastering away first.
	 */
	pci_clear_master(sdev->pdev);
	if (reset_err)
		dev_warn(&sdev->pdev->dev, "device did not complete its reset on removal (%d)\n",
			 reset_err);
	__snode_queues_stop(sdev);
}

/*
 * The last teardown step: the event interrupt, which queues identify_work
 * on FABRIC events, is gone by now, so the work cannot come back.
 */
static void snode_identify_cancel(void *data)
{
	struct snode_dev *sdev = data;

	cancel_work_sync(&sdev->identify_work);
	/* everything is freed; the PCI core disables the function next */
	snode_debug_delay(SNODE_DELAY_REMOVE_END);
}

static void snode_id_decode(struct snode_id *id, const struct snode_identify *raw,
			    u32 status)
{
	id->node_id = le32_to_cpu(raw->node_id);
	id->fabric_id = le32_to_cpu(raw->fabric_id);
	id->hw_version = le32_to_cpu(raw->version);
	id->fw_version = le32_to_cpu(raw->fw_version);
	/* report only the capabilities this driver knows */
	id->caps = le32_to_cpu(raw->cap) & SNODE_CAP_MASK;
	id->attached = status & SNODE_STATUS_ATTACHED;
	id->nports = le16_to_cpu(raw->nports);
	id->max_nodes = le16_to_cpu(raw->max_nodes);
	id->att_entries = le16_to_cpu(raw->att_entries);
	id->export_entries = le16_to_cpu(raw->export_entries);
	id->endpoints = le16_to_cpu(raw->endpoints);
	id->max_dma_len = le32_to_cpu(raw->max_dma_len);
	id->max_host_extents = le32_to_cpu(raw->max_host_extents);
	id->aperture_size = le64_to_cpu(raw->aperture_size);
	id->pool_size = le64_to_cpu(raw->pool_size);
	/* the device NUL pads but need not terminate a full field */
	memcpy(id->serial, raw->serial, sizeof(raw->serial));
	id->serial[sizeof(raw->serial)] = '\0';
	memcpy(id->fw_name, raw->fw_name, sizeof(raw->fw_name));
	id->fw_name[sizeof(raw->fw_name)] = '\0';
	if (!id->attached)
		id->node_id = SNODE_NODE_ID_NONE;
}

/**
 * __snode_identify() - read the device's identity into @sdev->id
 * @sdev: snode device
 *
 * Context: Process context, sleeps. Caller holds @sdev->rwsem.
 * Return: 0, the errno of the IDENTIFY command, or -EPROTO if the device
 * answered with something that is not an snode identity.
 */
int __snode_identify(struct snode_dev *sdev)
{
	struct snode_admin_req req = {
		.cmd.opcode = SNODE_OP_IDENTIFY,
		.len = sizeof(struct snode_identify),
		.dir = DMA_FROM_DEVICE,
	};
	struct snode_identify *raw;
	struct snode_id id;
	u32 status;
	int ret;

	lockdep_assert_held(&sdev->rwsem);

	raw = kzalloc(sizeof(*raw), GFP_KERNEL);
	if (!raw)
		return -ENOMEM;
	req.data = raw;
	/* ATTACHED before IDENTIFY: a node id read after attaching is valid */
	status = snode_readl(sdev, SNODE_STATUS_OFFSET);
	ret = __snode_admin_exec(sdev, &req);
	if (ret)
		goto out;
	if (le32_to_cpu(raw->magic) != SNODE_MAGIC) {
		ret = -EPROTO;
		goto out;
	}

	snode_id_decode(&id, raw, status);
	spin_lock(&sdev->id_lock);
	sdev->id = id;
	sdev->identify = *raw;
	spin_unlock(&sdev->id_lock);
out:
	kfree(raw);
	return ret;
}

/**
 * snode_id_get() - snapshot the identity of a device
 * @sdev: snode device
 * @id: where to copy it
 *
 * Context: Any context that may take a spinlock.
 */
void snode_id_get(struct snode_dev *sdev, struct snode_id *id)
{
	spin_lock(&sdev->id_lock);
	*id = sdev->id;
	spin_unlock(&sdev->id_lock);
}

static void snode_print_identity(struct snode_dev *sdev, const char *what)
{
	struct snode_id id;

	snode_id_get(sdev, &id);
	if (id.node_id == SNODE_NODE_ID_NONE)
		dev_info(&sdev->pdev->dev,
			 "%s: %snot attached, fw %lu.%lu.%lu, %u ports\n",
			 dev_name(&sdev->dev), what,
			 FIELD_GET(SNODE_FW_MAJOR_MASK, id.fw_version),
			 FIELD_GET(SNODE_FW_MINOR_MASK, id.fw_version),
			 FIELD_GET(SNODE_FW_PATCH_MASK, id.fw_version),
			 id.nports);
	else
		dev_info(&sdev->pdev->dev,
			 "%s: %snode %u fabric %u fw %lu.%lu.%lu, %u ports\n",
			 dev_name(&sdev->dev), what, id.node_id, id.fabric_id,
			 FIELD_GET(SNODE_FW_MAJOR_MASK, id.fw_version),
			 FIELD_GET(SNODE_FW_MINOR_MASK, id.fw_version),
			 FIELD_GET(SNODE_FW_PATCH_MASK, id.fw_version),
			 id.nports);
}

static void snode_identify_work(struct work_struct *work)
{
	struct snode_dev *sdev = container_of(work, struct snode_dev,
					      identify_work);
	int ret;

	snode_debug_delay(SNODE_DELAY_IDENTIFY_WORK);
	if (snode_lock_live(sdev))
		return;
	ret = __snode_identify(sdev);
	snode_unlock_live(sdev);
	if (ret)
		dev_warn(&sdev->pdev->dev, "identify after fabric change failed: %d\n",
			 ret);
	else
		snode_print_identity(sdev, "fabric changed: ");
}

static int snode_check_hw(struct snode_dev *sdev)
{
	struct device *dev = &sdev->pdev->dev;
	u32 magic, version;

	magic = snode_readl(sdev, SNODE_MAGIC_OFFSET);
	if (magic == ~0U) {
		dev_err(dev, "device not responding (BAR0 reads all-ones)\n");
		return -ENODEV;
	}
	if (magic != SNODE_MAGIC) {
		dev_err(dev, "not an snode NIC (MAGIC 0x%08x)\n", magic);
		return -ENODEV;
	}
	version = snode_readl(sdev, SNODE_VERSION_OFFSET);
	if (FIELD_GET(SNODE_VERSION_MAJOR_MASK, version) !=
	    SNODE_VERSION_MAJOR_SUPPORTED) {
		dev_err(dev, "unsupported hardware contract %lu.%lu\n",
			FIELD_GET(SNODE_VERSION_MAJOR_MASK, version),
			FIELD_GET(SNODE_VERSION_MINOR_MASK, version));
		return -ENODEV;
	}
	return 0;
}

static const struct snode_driver *snode_driver;

/* the probe phases of a feature, in order (struct snode_feature_ops) */
enum snode_probe_phase {
	SNODE_PROBE_EARLY,
	SNODE_PROBE_INIT,
	SNODE_PROBE_ADD,
};

/* Run one probe phase of every feature, in table order. */
static int snode_features_probe(struct snode_dev *sdev,
				enum snode_probe_phase phase)
{
	const struct snode_feature_ops *const *fp;
	int ret;

	for (fp = sdev->features; *fp; fp++) {
		int (*const hook[])(struct snode_dev *sdev) = {
			[SNODE_PROBE_EARLY] = (*fp)->early_init,
			[SNODE_PROBE_INIT] = (*fp)->init,
			[SNODE_PROBE_ADD] = (*fp)->add,
		};

		if (!hook[phase])
			continue;
		ret = hook[phase](sdev);
		if (ret)
			return dev_err_probe(&sdev->pdev->dev, ret,
					     "cannot set up %s\n",
					     (*fp)->name);
	}
	return 0;
}

static int snode_probe(struct pci_dev *pdev, const struct pci_device_id *ent)
{
	struct device *dev = &pdev->dev;
	struct snode_dev *sdev;
	int ret;

	sdev = snode_driver->dev_alloc(pdev);
	if (IS_ERR(sdev))
		return PTR_ERR(sdev);
	sdev->features = snode_driver->features;
	sdev->listeners = snode_driver->listeners;
	INIT_WORK(&sdev->identify_work, snode_identify_work);
	pci_set_drvdata(pdev, sdev);

	ret = pcim_enable_device(pdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot enable the PCI device\n");
	pci_set_master(pdev);

	ret = dma_set_mask_and_coherent(dev, DMA_BIT_MASK(64));
	if (ret)
		return dev_err_probe(dev, ret, "no usable DMA configuration\n");

	ret = pcim_iomap_regions(pdev, BIT(SNODE_BAR_REGS), KBUILD_MODNAME);
	if (ret)
		return dev_err_probe(dev, ret, "cannot map BAR0\n");
	sdev->regs = pcim_iomap_table(pdev)[SNODE_BAR_REGS];
	if (pci_resource_len(pdev, SNODE_BAR_REGS) < SNODE_REGS_SIZE)
		return dev_err_probe(dev, -ENODEV, "BAR0 too small\n");

	/* BAR2 and BAR4 are claimed by the window and export code later. */
	sdev->aperture = pdev->resource[SNODE_BAR_APERTURE];
	sdev->pool = pdev->resource[SNODE_BAR_POOL];

	ret = snode_check_hw(sdev);
	if (ret)
		return ret;

	ret = snode_hw_reset(sdev);
	if (ret)
		return dev_err_probe(dev, ret, "device did not come out of reset\n");

	ret = pci_alloc_irq_vectors(pdev, SNODE_NR_VECS_MIN, SNODE_NR_VECS_MAX,
				    PCI_IRQ_MSIX);
	if (ret < 0)
		return dev_err_probe(dev, ret, "cannot allocate MSI-X vectors\n");
	sdev->nr_vecs = ret;

	/* before the queues: runs after the event interrupt was freed */
	ret = devm_add_action_or_reset(dev, snode_identify_cancel, sdev);
	if (ret)
		return ret;

	/* before the queues, so that it outlives the event interrupt */
	ret = snode_features_probe(sdev, SNODE_PROBE_EARLY);
	if (ret)
		return ret;

	ret = snode_queues_init(sdev);
	if (ret)
		return dev_err_probe(dev, ret, "cannot set up the queues\n");

	/*
	 * Before the device is enabled: torn down after its reset on unbind,
	 * and no event finds a half-gone feature (hwmon).
	 */
	ret = snode_features_probe(sdev, SNODE_PROBE_INIT);
	if (ret)
		return ret;

	ret = __snode_hw_start(sdev);
	if (ret)
		return ret;
	ret = devm_add_action_or_reset(dev, snode_hw_stop, sdev);
	if (ret)
		return ret;

	down_read(&sdev->rwsem);
	ret = __snode_identify(sdev);
	up_read(&sdev->rwsem);
	if (ret)
		return dev_err_probe(dev, ret, "device does not answer IDENTIFY\n");

	pci_save_state(pdev);

	/* devlink last: its callbacks use all of the above; unregistered first */
	ret = snode_features_probe(sdev, SNODE_PROBE_ADD);
	if (ret)
		return ret;

	snode_print_identity(sdev, "");
	return 0;
}

/* Stop the queues ahead of a reset. */
static void snode_quiesce(struct snode_dev *sdev)
{
	/* a pending re-identify is pointless, and it takes rwsem */
	cancel_work_sync(&sdev->identify_work);

	down_write(&sdev->rwsem);
	if (sdev->state == SNODE_STATE_LIVE ||
	    sdev->state == SNODE_STATE_DEAD) {
		sdev->state = SNODE_STATE_RESETTING;
		snode_writel(sdev, SNODE_CTRL_OFFSET, 0);
		__snode_queues_stop(sdev);
		/* windows, message endpoints, copies in flight */
		snode_features_step(sdev, SNODE_STEP_RESET_PREPARE);
	}
	up_write(&sdev->rwsem);
}

/* Bring the device back after a reset; 0 if it is live again. */
static int snode_restart(struct snode_dev *sdev)
{
	struct device *dev = &sdev->pdev->dev;
	int ret = 0;

	down_write(&sdev->rwsem);
	if (sdev->state != SNODE_STATE_RESETTING)
		goto out;

	if (snode_hw_gone(sdev)) {
		dev_err(dev, "device not responding after reset\n");
		ret = -ENODEV;
		goto err_dead;
	}
	ret = __snode_hw_start(sdev);
	if (ret)
		goto err_dead;
	snode_features_step(sdev, SNODE_STEP_RESET_RESTORE);
	ret = __snode_identify(sdev);
	if (ret) {
		dev_err(dev, "device does not answer IDENTIFY after reset: %d\n", ret);
		goto err_stop;
	}
	snode_features_step(sdev, SNODE_STEP_RESET_DONE);
	sdev->state = SNODE_STATE_LIVE;
	up_write(&sdev->rwsem);
	snode_print_identity(sdev, "reset done, ");
	return 0;

err_stop:
	snode_writel(sdev, SNODE_CTRL_OFFSET, 0);
	__snode_queues_stop(sdev);
err_dead:
	sdev->state = SNODE_STATE_DEAD;
out:
	up_write(&sdev->rwsem);
	return ret;
}

static void snode_reset_prepare(struct pci_dev *pdev)
{
	snode_quiesce(pci_get_drvdata(pdev));
}

static void snode_reset_done(struct pci_dev *pdev)
{
	snode_restart(pci_get_drvdata(pdev));
}

static pci_ers_result_t snode_error_detected(struct pci_dev *pdev,
					     pci_channel_state_t state)
{
	struct snode_dev *sdev = pci_get_drvdata(pdev);

	dev_err(&pdev->dev, "PCI error detected, channel state %d\n", state);
	snode_quiesce(sdev);
	if (state == pci_channel_io_perm_failure) {
		down_write(&sdev->rwsem);
		sdev->state = SNODE_STATE_DEAD;
		up_write(&sdev->rwsem);
		return PCI_ERS_RESULT_DISCONNECT;
	}
	return PCI_ERS_RESULT_NEED_RESET;
}

static pci_ers_result_t snode_slot_reset(struct pci_dev *pdev)
{
	struct snode_dev *sdev = pci_get_drvdata(pdev);

	pci_restore_state(pdev);
	pci_save_state(pdev);
	if (snode_restart(sdev))
		return PCI_ERS_RESULT_DISCONNECT;
	return PCI_ERS_RESULT_RECOVERED;
}

static void snode_resume(struct pci_dev *pdev)
{
	struct snode_dev *sdev = pci_get_drvdata(pdev);

	down_read(&sdev->rwsem);
	dev_info(&pdev->dev, "recovered from PCI error, device %s\n",
		 snode_state_name(sdev->state));
	up_read(&sdev->rwsem);
}

static const struct pci_error_handlers snode_err_handlers = {
	.error_detected = snode_error_detected,
	.slot_reset = snode_slot_reset,
	.resume = snode_resume,
	.reset_prepare = snode_reset_prepare,
	.reset_done = snode_reset_done,
};

static const struct pci_device_id snode_pci_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_SNODE, PCI_DEVICE_ID_SNODE_NIC) },
	{ }
};
MODULE_DEVICE_TABLE(pci, snode_pci_ids);

static struct pci_driver snode_pci_driver = {
	.name = KBUILD_MODNAME,
	.id_table = snode_pci_ids,
	.probe = snode_probe,
	.err_handler = &snode_err_handlers,
};

/**
 * snode_pci_init() - register the PCI driver
 * @drv: how to allocate a NIC's device and which features to set up
 *
 * Context: Module init.
 * Return: 0 or a negative errno.
 */
int snode_pci_init(const struct snode_driver *drv)
{
	snode_driver = drv;
	return pci_register_driver(&snode_pci_driver);
}

/**
 * snode_pci_exit() - unregister the PCI driver, unbinding every NIC
 *
 * Context: Module exit.
 */
void snode_pci_exit(void)
{
	pci_unregister_driver(&snode_pci_driver);
}
