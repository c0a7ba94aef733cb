// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libsnode devices: iteration, the character device, and the one ioctl
 * helper every ioctl wrapper funnels through.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "private.h"

SNODE_EXPORT struct snode_dev *snode_dev_get_first(struct snode_ctx *ctx)
{
	return ctx->devs;
}

SNODE_EXPORT struct snode_dev *snode_dev_get_next(struct snode_dev *dev)
{
	return dev->next;
}

/* NAME is "snodeN", "/dev/snodeN" or just "N". */
SNODE_EXPORT struct snode_dev *snode_dev_get_by_name(struct snode_ctx *ctx,
						     const char *name)
{
	struct snode_dev *dev;
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	snode_dev_foreach(ctx, dev) {
		if (!strcmp(dev->name, base) || !strcmp(dev->name + 5, base))
			return dev;
	}
	return NULL;
}

SNODE_EXPORT struct snode_ctx *snode_dev_get_ctx(struct snode_dev *dev)
{
	return dev->ctx;
}

SNODE_EXPORT int snode_dev_get_index(struct snode_dev *dev)
{
	return dev->index;
}

SNODE_EXPORT const char *snode_dev_get_name(struct snode_dev *dev)
{
	return dev->name;
}

/*
 * Open /dev/snodeN on first use. Read-only access is enough for queries, so
 * a user outside group snode still gets EACCES only for what needs more.
 */
/*
 * The descriptor is opened once under the context's lock, so threads
 * racing to first use share one; later calls read it without the lock.
 */
SNODE_EXPORT int snode_dev_get_fd(struct snode_dev *dev)
{
	struct snode_ctx *ctx = dev->ctx;
	char path[256];
	int fd;

	fd = __atomic_load_n(&dev->fd, __ATOMIC_ACQUIRE);
	if (fd >= 0)
		return fd;
	pthread_mutex_lock(&ctx->lock);
	fd = dev->fd;
	if (fd >= 0)
		goto out;
	snprintf(path, sizeof(path), "%s/%s", ctx->dev_dir, dev->name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM))
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		fd = -errno;
		goto out;
	}
	__atomic_store_n(&dev->fd, fd, __ATOMIC_RELEASE);
out:
	pthread_mutex_unlock(&ctx->lock);
	/* the hook runs without the lock: it may call into the library */
	if (fd < 0)
		lsn_dbg(ctx, "%s/%s: %s\n", ctx->dev_dir, dev->name,
			strerror(-fd));
	return fd;
}

/* The one ioctl helper: every ioctl of the library goes through here. */
int lsn_ioctl(struct snode_ctx *ctx, int fd, unsigned long cmd, void *arg)
{
	if (ioctl(fd, cmd, arg) < 0) {
		int err = errno;

		lsn_dbg(ctx, "fd %d: ioctl 0x%lx: %s\n", fd, cmd, strerror(err));
		return -err;
	}
	return 0;
}

int lsn_dev_ioctl(struct snode_dev *dev, unsigned long cmd, void *arg)
{
	int fd = snode_dev_get_fd(dev);

	if (fd < 0)
		return fd;
	return lsn_ioctl(dev->ctx, fd, cmd, arg);
}

/*
 * Wait up to @timeout_ms (-1: forever, 0: not at all) for @fd to be
 * readable; 0 if it is, -EAGAIN if not, or -errno.
 */
int lsn_fd_wait(int fd, int timeout_ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	int n;

	do {
		n = poll(&p, 1, timeout_ms);
	} while (n < 0 && errno == EINTR && timeout_ms < 0);
	if (n < 0)
		return -errno;
	return n ? 0 : -EAGAIN;
}

/*
 * A growable kernel struct (size first) at the caller's size: the kernel
 * accepts any size from its first version's up and zero-fills past its
 * own, so the caller's size goes to the kernel as it is; a size below the
 * first version's is the kernel's EINVAL, as for a direct ioctl.
 */
int lsn_ioctl_sized(struct snode_ctx *ctx, int fd, unsigned long cmd,
		    void *arg, size_t size)
{
	if (size < sizeof(uint32_t) || size > UINT32_MAX)
		return -EINVAL;
	memset(arg, 0, size);
	*(uint32_t *)arg = (uint32_t)size;
	return lsn_ioctl(ctx, fd, cmd, arg);
}

static int lsn_dev_ioctl_sized(struct snode_dev *dev, unsigned long cmd,
			       void *arg, size_t size)
{
	int fd = snode_dev_get_fd(dev);

	if (fd < 0)
		return fd;
	return lsn_ioctl_sized(dev->ctx, fd, cmd, arg, size);
}

SNODE_EXPORT int snode_dev_get_info(struct snode_dev *dev,
				    struct snode_info *info, size_t size)
{
	return lsn_dev_ioctl_sized(dev, SNODE_IOCTL_INFO, info, size);
}
