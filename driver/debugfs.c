// SPDX-License-Identifier: GPL-2.0
/*
 * snode: debugfs internals and fault injection.
 */

#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fault-inject.h>
#include <linux/kstrtox.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "snode.h"

/**
 * DOC: debugfs
 *
 * /sys/kernel/debug/snode/snodeN/ holds, for developers and tests:
 *
 * - ``regs``: the BAR0 control registers
 * - ``queues``: admin and event queue state and counters
 * - ``identify``: the raw IDENTIFY data of the last identify
 * - ``echo``: write a 32-bit value; every read sends ECHO with it and
 *   returns "result0 result1", which checks the admin queue end to end.
 *   The value belongs to the open file, so tests may run in parallel.
 *
 * With CONFIG_FAULT_INJECTION_DEBUG_FS, /sys/kernel/debug/snode/fail_admin
 * is a fault attribute (Documentation/fault-injection/) that fails admin
 * commands with -EIO before they reach the device, on every NIC, including
 * the IDENTIFY of a probe. With /sys/kernel/debug/snode/fail_admin_timeout
 * set (Y), a command it selects times out instead: it is sent, and the
 * driver abandons it at once, as after SNODE_ADMIN_TIMEOUT without the
 * wait, so that the device applies it and answers too late.
 *
 * /sys/kernel/debug/snode/delay/ holds one file per &enum snode_delay_point,
 * a delay in microseconds (0, the default, for none) that the driver waits
 * at that point. Tests use them to make races deterministic: with a delay
 * in place, the other side of a race is sure to run inside the window.
 *
 * /sys/kernel/debug/snode/dma_wait_ms is how long a SUBMIT_WAIT waits for
 * its batch (60 s, as <linux/snode.h> documents); a test shortens it to
 * reach the timeout path.
 *
 * /sys/kernel/debug/snode/skip_reset: the next N function resets of any NIC
 * are not issued, and report -ETIMEDOUT as a device that never came back
 * would, leaving the device running: how a test reaches the paths of a
 * failed reset (an unbind's above all). A plain counter rather than a
 * fault attribute, so that it works on kernels without fault injection.
 *
 * /sys/kernel/debug/snode/dma_stop_stuck: the next N stops of a DMA engine
 * (a reset's, an unbind's) find it still running, as a device that ignores
 * CTRL.ENABLE would be: how a test reaches the parking of its copies.
 *
 * /sys/kernel/debug/snode/net_rx_stall: while non-zero, the network
 * interfaces of this host leave the window rings they granted undrained
 * (their poll arms them and looks no further), as a peer that hangs or
 * means harm would: how a test fills a sender's window ring and keeps it
 * full. Writing 0 lets the next doorbell drain them again.
 */

static struct dentry *snode_debugfs_root;

static void snode_delay_init(void)
{
	struct dentry *dir = debugfs_create_dir("delay", snode_debugfs_root);
	unsigned int i;

	for (i = 0; i < SNODE_DELAY_NR; i++)
		debugfs_create_u32(snode_delay_points[i].name, 0600, dir,
				   &snode_delays[i]);
}

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
static void snode_fault_init(void)
{
	fault_create_debugfs_attr("fail_admin", snode_debugfs_root,
				  &snode_fail_admin);
	debugfs_create_bool("fail_admin_timeout", 0600, snode_debugfs_root,
			    &snode_fail_admin_timeout);
}
#else
static void snode_fault_init(void)
{
}
#endif

#define SNODE_REG(_name) { .name = #_name, .offset = SNODE_##_name##_OFFSET }

static const struct debugfs_reg32 snode_regs[] = {
	SNODE_REG(MAGIC),
	SNODE_REG(VERSION),
	SNODE_REG(FW_VERSION),
	SNODE_REG(CAP),
	SNODE_REG(NODE_ID),
	SNODE_REG(FABRIC_ID),
	SNODE_REG(LIMITS0),
	SNODE_REG(LIMITS1),
	SNODE_REG(APERTURE_SIZE_LO),
	SNODE_REG(APERTURE_SIZE_HI),
	SNODE_REG(POOL_SIZE_LO),
	SNODE_REG(POOL_SIZE_HI),
	SNODE_REG(SCRATCH),
	SNODE_REG(LIMITS2),
	SNODE_REG(CTRL),
	SNODE_REG(STATUS),
	SNODE_REG(INTR_CAUSE),
	SNODE_REG(INTR_MASK),
	{ .name = "ASQ_BASE_LO", .offset = SNODE_ASQ_OFFSET + SNODE_Q_BASE_LO },
	{ .name = "ASQ_BASE_HI", .offset = SNODE_ASQ_OFFSET + SNODE_Q_BASE_HI },
	{ .name = "ASQ_SIZE", .offset = SNODE_ASQ_OFFSET + SNODE_Q_SIZE },
	{ .name = "ASQ_TAIL", .offset = SNODE_ASQ_OFFSET + SNODE_Q_INDEX },
	{ .name = "ACQ_BASE_LO", .offset = SNODE_ACQ_OFFSET + SNODE_Q_BASE_LO },
	{ .name = "ACQ_BASE_HI", .offset = SNODE_ACQ_OFFSET + SNODE_Q_BASE_HI },
	{ .name = "ACQ_SIZE", .offset = SNODE_ACQ_OFFSET + SNODE_Q_SIZE },
	{ .name = "ACQ_HEAD", .offset = SNODE_ACQ_OFFSET + SNODE_Q_INDEX },
	{ .name = "EQ_BASE_LO", .offset = SNODE_EQ_OFFSET + SNODE_Q_BASE_LO },
	{ .name = "EQ_BASE_HI", .offset = SNODE_EQ_OFFSET + SNODE_Q_BASE_HI },
	{ .name = "EQ_SIZE", .offset = SNODE_EQ_OFFSET + SNODE_Q_SIZE },
	{ .name = "EQ_HEAD", .offset = SNODE_EQ_OFFSET + SNODE_Q_INDEX },
	SNODE_REG(TEMP),
	SNODE_REG(TEMP_MAX),
	SNODE_REG(TEMP_CRIT),
	SNODE_REG(POWER),
	SNODE_REG(POWER_MAX),
	SNODE_REG(SENSOR_ALARM),
};

static int snode_queues_show(struct seq_file *s, void *unused)
{
	struct snode_dev *sdev = s->private;
	struct snode_aq *aq = &sdev->aq;
	struct snode_eq *eq = &sdev->eq;
	unsigned int i;

	down_read(&sdev->rwsem);
	seq_printf(s, "state: %s\n", snode_state_name(sdev->state));
	up_read(&sdev->rwsem);

	spin_lock(&aq->lock);
	seq_printf(s, "admin: enabled %d depth %u sq_tail %u cq_head %u cq_phase %d inflight %u\n",
		   aq->enabled, SNODE_AQ_DEPTH, aq->sq_tail, aq->cq_head,
		   aq->cq_phase, aq->inflight);
	seq_printf(s, "admin: submitted %llu completed %llu timeouts %llu\n",
		   aq->submitted, aq->completed, aq->timeouts);
	spin_unlock(&aq->lock);

	/* a racy snapshot of the event thread's counters is good enough */
	seq_printf(s, "event: depth %u head %u phase %d last_seq %u events %llu\n",
		   SNODE_EQ_DEPTH, READ_ONCE(eq->head), READ_ONCE(eq->phase),
		   READ_ONCE(eq->last_seq), READ_ONCE(eq->events));
	for (i = 0; i <= SNODE_EV_MAX; i++)
		if (READ_ONCE(eq->by_type[i]))
			seq_printf(s, "event: type %u count %llu\n", i,
				   READ_ONCE(eq->by_type[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(snode_queues);

static int snode_identify_show(struct seq_file *s, void *unused)
{
	struct snode_dev *sdev = s->private;
	struct snode_identify *raw;

	raw = kmalloc(sizeof(*raw), GFP_KERNEL);
	if (!raw)
		return -ENOMEM;
	spin_lock(&sdev->id_lock);
	*raw = sdev->identify;
	spin_unlock(&sdev->id_lock);
	seq_hex_dump(s, "", DUMP_PREFIX_OFFSET, 16, 4, raw, sizeof(*raw), true);
	kfree(raw);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(snode_identify);

/* Each open file has its own ECHO value, so tests can run in parallel. */
struct snode_echo_file {
	struct snode_dev *sdev;
	u32 value;
};

static int snode_echo_open(struct inode *inode, struct file *file)
{
	struct snode_echo_file *ef;
	int ret;

	ret = nonseekable_open(inode, file);
	if (ret)
		return ret;
	ef = kzalloc(sizeof(*ef), GFP_KERNEL);
	if (!ef)
		return -ENOMEM;
	ef->sdev = inode->i_private;
	file->private_data = ef;
	return 0;
}

static int snode_echo_release(struct inode *inode, struct file *file)
{
	kfree(file->private_data);
	return 0;
}

static ssize_t snode_echo_read(struct file *file, char __user *ubuf,
			       size_t count, loff_t *ppos)
{
	struct snode_echo_file *ef = file->private_data;
	struct snode_admin_req req = {
		.cmd.opcode = SNODE_OP_ECHO,
		.cmd.echo.value = cpu_to_le32(ef->value),
	};
	char buf[32];
	int len, ret;

	ret = snode_admin_exec(ef->sdev, &req);
	if (ret)
		return ret;
	len = scnprintf(buf, sizeof(buf), "0x%08x 0x%08x\n",
			le32_to_cpu(req.cpl.echo.value),
			le32_to_cpu(req.cpl.echo.inverse));
	if (count < len)
		return -EINVAL;
	if (copy_to_user(ubuf, buf, len))
		return -EFAULT;
	return len;
}

static ssize_t snode_echo_write(struct file *file, const char __user *ubuf,
				size_t count, loff_t *ppos)
{
	struct snode_echo_file *ef = file->private_data;
	int ret;

	ret = kstrtou32_from_user(ubuf, count, 0, &ef->value);
	if (ret)
		return ret;
	return count;
}

static const struct file_operations snode_echo_fops = {
	.owner = THIS_MODULE,
	.open = snode_echo_open,
	.release = snode_echo_release,
	.read = snode_echo_read,
	.write = snode_echo_write,
};

static void snode_debugfs_remove(void *data)
{
	struct snode_dev *sdev = data;

	debugfs_remove_recursive(sdev->debugfs);
}

/**
 * snode_debugfs_add() - create the debugfs directory of a device
 * @sdev: snode device
 *
 * debugfs failures are not errors; the directory is removed on unbind.
 * The features' files (snode_mem_debugfs_add()) follow the directory.
 *
 * Context: Process context (probe).
 * Return: 0 or -ENOMEM.
 */
static int snode_debugfs_add(struct snode_dev *sdev)
{
	struct device *dev = &sdev->pdev->dev;
	struct debugfs_regset32 *regset;
	int ret;

	regset = devm_kzalloc(dev, sizeof(*regset), GFP_KERNEL);
	if (!regset)
		return -ENOMEM;
	regset->regs = snode_regs;
	regset->nregs = ARRAY_SIZE(snode_regs);
	regset->base = sdev->regs;

	sdev->debugfs = debugfs_create_dir(dev_name(&sdev->dev),
					   snode_debugfs_root);
	debugfs_create_regset32("regs", 0400, sdev->debugfs, regset);
	debugfs_create_file("queues", 0400, sdev->debugfs, sdev,
			    &snode_queues_fops);
	debugfs_create_file("identify", 0400, sdev->debugfs, sdev,
			    &snode_identify_fops);
	debugfs_create_file("echo", 0600, sdev->debugfs, sdev,
			    &snode_echo_fops);

	ret = devm_add_action_or_reset(dev, snode_debugfs_remove, sdev);
	if (ret)
		return ret;
	/* global memory's files, here so the core need not call mem_list.c */
	snode_mem_debugfs_add(sdev);
	return 0;
}

/**
 * snode_debugfs_init() - create /sys/kernel/debug/snode
 *
 * Context: Module init.
 */
void snode_debugfs_init(void)
{
	snode_debugfs_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
	snode_fault_init();
	snode_delay_init();
	debugfs_create_u32("dma_wait_ms", 0600, snode_debugfs_root,
			   &snode_dma_wait_ms);
	debugfs_create_u32("skip_reset", 0600, snode_debugfs_root,
			   &snode_skip_reset);
	debugfs_create_u32("dma_stop_stuck", 0600, snode_debugfs_root,
			   &snode_dma_stop_stuck);
	debugfs_create_u32("net_rx_stall", 0600, snode_debugfs_root,
			   &snode_net_rx_stall);
}

/**
 * snode_debugfs_exit() - remove /sys/kernel/debug/snode
 *
 * Context: Module exit, after every device is gone.
 */
void snode_debugfs_exit(void)
{
	debugfs_remove_recursive(snode_debugfs_root);
}

const struct snode_feature_ops snode_debugfs_feature = {
	.name = "debugfs",
	.add = snode_debugfs_add,
};
