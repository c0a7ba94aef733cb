// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the core every feature file builds on - device state, ioctl
 * dispatch, answers, new descriptors and the NIC's counters.
 */

#include <linux/delay.h>
#include <linux/fault-inject.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include <linux/snode.h>

#include "snode.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/**
 * DOC: Core
 *
 * core.c and fs.c are the layer the feature files (mem.c, export.c,
 * import.c, msg.c, ep.c, dma.c, link.c, ...) build on; a feature file uses
 * the core and the interfaces declared in snode.h, never another feature
 * file's internals.
 *
 * Every file the driver hands out (/dev/snodeN, an import, an endpoint, a
 * DMA queue) dispatches its ioctls through snode_ioctl_dispatch() and a
 * table of &struct snode_ioctl_op indexed by command number, each carrying
 * the size of the structure the kernel knows, the smallest size it accepts
 * (offsetofend() of the last member of the first version) and flags.
 * The dispatcher reads the structure with copy_struct_from_user(), which
 * zero-extends older, shorter structures and rejects newer ones with a
 * non-zero unknown tail (E2BIG), and then checks the flags: an operation
 * marked %SNODE_IOCTL_WRITE on a file not opened for writing fails with
 * EPERM before it looks at any field.
 */

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

/**
 * snode_ucmd_install_fd() - finish an ioctl that hands out a new file
 * @ucmd: the ioctl call
 * @cmd_len: size of the structure the kernel knows
 * @file: the new file; from here on its release undoes everything
 * @fd: the descriptor reserved for it with get_unused_fd_flags(), or the
 *      negative errno that reservation failed with
 * @ret: 0 if the object behind @file is ready, else the errno of its setup
 *
 * On success the answer, with the descriptor number the caller stored in
 * it, is copied out, and only then the descriptor installed: once
 * installed, another thread may close it and release the object, so the
 * caller must not touch the object after this returns 0. On any failure
 * the descriptor is freed unused and the file put.
 *
 * Context: Process context.
 * Return: 0, @ret, @fd if negative, or -EFAULT.
 */
int snode_ucmd_install_fd(struct snode_ucmd *ucmd, size_t cmd_len,
			  struct file *file, int fd, int ret)
{
	if (fd < 0)
		ret = fd;
	if (!ret)
		ret = snode_ucmd_respond(ucmd, cmd_len);
	if (ret) {
		if (fd >= 0)
			put_unused_fd(fd);
		fput(file);
		return ret;
	}
	fd_install(fd, file);
	return 0;
}

/**
 * snode_ioctl_dispatch() - run one ioctl of any of the driver's files
 * @filp: the file the ioctl was made on
 * @ops: the file's operations, indexed by command number - SNODE_CMD_BASE
 * @nr_ops: entries in @ops
 * @ucmd: the call, with @ucmd->sdev, @ucmd->sfile and @ucmd->obj set by
 *        the file's ioctl handler
 * @cmd: the ioctl number
 * @arg: the user's structure
 *
 * Context: Process context.
 * Return: what the operation returns, or -ENOTTY (not an ioctl of this
 * file), -EFAULT, -EINVAL (shorter than the first version), -E2BIG (a
 * non-zero byte past the structure the kernel knows, or a size above
 * %SNODE_IOCTL_SIZE_MAX), -EPERM (needs a file opened for writing).
 */
long snode_ioctl_dispatch(struct file *filp, const struct snode_ioctl_op *ops,
			  size_t nr_ops, struct snode_ucmd *ucmd,
			  unsigned int cmd, unsigned long arg)
{
	u64 buf[SNODE_UCMD_MAX / sizeof(u64)];
	const struct snode_ioctl_op *op;
	unsigned int nr;
	int ret;

	nr = _IOC_NR(cmd);
	if (cmd != _IO(SNODE_TYPE, nr) || nr < SNODE_CMD_BASE ||
	    nr - SNODE_CMD_BASE >= nr_ops)
		return -ENOTTY;
	op = &ops[nr - SNODE_CMD_BASE];
	if (!op->execute)
		return -ENOTTY;

	ucmd->ubuffer = (void __user *)arg;
	if (get_user(ucmd->user_size, (u32 __user *)ucmd->ubuffer))
		return -EFAULT;
	if (ucmd->user_size < op->min_size)
		return -EINVAL;
	/* else copy_struct_from_user() would scan up to 4 GiB for non-zero */
	if (ucmd->user_size > SNODE_IOCTL_SIZE_MAX)
		return -E2BIG;
	ucmd->cmd = buf;
	ret = copy_struct_from_user(ucmd->cmd, op->size, ucmd->ubuffer,
				    ucmd->user_size);
	if (ret)
		return ret;
	if ((op->flags & SNODE_IOCTL_WRITE) && !(filp->f_mode & FMODE_WRITE))
		return -EPERM;
	return op->execute(ucmd);
}

/*
 * Test hooks: the knobs debugfs.c exposes under /sys/kernel/debug/snode/
 * (its DOC: debugfs says what each does) live here, in the core, because
 * every layer consults them: a feature calling into the debugfs front end
 * for them made a cycle (issue 33). debugfs.c only creates the files.
 */

u32 snode_delays[SNODE_DELAY_NR];
u32 snode_dma_wait_ms = 60 * MSEC_PER_SEC;
u32 snode_skip_reset;
u32 snode_dma_stop_stuck;
u32 snode_net_rx_stall;

/* Take one of the N a test asked for in @counter, if any is left. */
static bool snode_debug_take(u32 *counter)
{
	u32 n;

	do {
		n = READ_ONCE(*counter);
		if (likely(!n))
			return false;
	} while (cmpxchg(counter, n, n - 1) != n);
	return true;
}

/**
 * snode_debug_dma_stop_stuck() - whether a test asked for a stuck engine
 *
 * Context: Any context.
 * Return: true, and one fewer is left, if the test asked for it.
 */
bool snode_debug_dma_stop_stuck(void)
{
	return snode_debug_take(&snode_dma_stop_stuck);
}

/**
 * snode_debug_skip_reset() - whether a test asked to skip this reset
 *
 * Context: Any context.
 * Return: true, and one skip fewer is left, if the test asked for it.
 */
bool snode_debug_skip_reset(void)
{
	return snode_debug_take(&snode_skip_reset);
}

/**
 * snode_debug_net_rx_stall() - whether a test stopped the receive rings
 *
 * Context: Any context.
 * Return: true while the network interfaces are to leave the window rings
 * they granted undrained, as a peer that hangs or means harm would.
 */
bool snode_debug_net_rx_stall(void)
{
	return READ_ONCE(snode_net_rx_stall);
}

/**
 * snode_debug_dma_wait() - how long a synchronous DMA batch is waited for
 *
 * Context: Any context.
 * Return: the limit in jiffies, at least one.
 */
unsigned long snode_debug_dma_wait(void)
{
	return msecs_to_jiffies(READ_ONCE(snode_dma_wait_ms)) ?: 1;
}

const struct snode_delay_point_info snode_delay_points[SNODE_DELAY_NR] = {
	[SNODE_DELAY_DMA_OPEN] = { "dma_open" },
	[SNODE_DELAY_DMA_BATCH_DONE] = { "dma_batch_done" },
	[SNODE_DELAY_EP_IRQ] = { "ep_irq", true },
	[SNODE_DELAY_NL_DEVCMD] = { "nl_devcmd" },
	[SNODE_DELAY_ADMIN_SLOT] = { "admin_slot" },
	[SNODE_DELAY_FABRIC_EVENT] = { "fabric_event" },
	[SNODE_DELAY_IDENTIFY_WORK] = { "identify_work" },
	[SNODE_DELAY_REMOVE_END] = { "remove_end" },
	[SNODE_DELAY_NET_GRANT] = { "net_grant" },
	[SNODE_DELAY_NET_RING_PUT] = { "net_ring_put" },
};

/* A hard-IRQ point busy-waits; keep a typo from locking up the CPU. */
#define SNODE_DELAY_ATOMIC_MAX_US	USEC_PER_SEC

/**
 * snode_debug_delay() - wait at a race point if a test asked for it
 * @point: where the driver is
 *
 * Context: Any context; sleeps only at points not marked atomic.
 */
void snode_debug_delay(enum snode_delay_point point)
{
	u32 us = READ_ONCE(snode_delays[point]);

	if (likely(!us))
		return;
	if (!snode_delay_points[point].atomic) {
		fsleep(us);
		return;
	}
	for (us = min_t(u32, us, SNODE_DELAY_ATOMIC_MAX_US); us; ) {
		u32 step = min_t(u32, us, USEC_PER_MSEC);

		udelay(step);
		us -= step;
	}
}

#ifdef CONFIG_FAULT_INJECTION_DEBUG_FS
DECLARE_FAULT_ATTR(snode_fail_admin);
bool snode_fail_admin_timeout;

/**
 * snode_should_fail_admin() - whether to fail this admin command
 * @time_out: out: the command is to time out rather than fail with -EIO
 *
 * Context: Any context.
 * Return: true if fault injection says so.
 */
bool snode_should_fail_admin(bool *time_out)
{
	if (!should_fail(&snode_fail_admin, 1))
		return false;
	*time_out = READ_ONCE(snode_fail_admin_timeout);
	return true;
}

#else
bool snode_should_fail_admin(bool *time_out)
{
	return false;
}

#endif
