// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libsnode devices: iteration, the character device, and the one ioctl
 * helper every ioctl wrapper funnels through.
 */
#include <errno.h>
#include <fcntl.h>
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
SNODE_EXPORT int snode_dev_get_fd(struct snode_dev *dev)
{
	char path[256];
	int fd;

	if (dev->fd >= 0)
		return dev->fd;
	snprintf(path, sizeof(path), "%s/%s", dev->ctx->dev_dir, dev->name);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0 && (errno == EACCES || errno == EPERM))
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int err = errno;

		snode_dbg(dev->ctx, "%s: %s\n", path, strerror(err));
		return -err;
	}
	dev->fd = fd;
	return fd;
}

int snode_dev_ioctl(struct snode_dev *dev, unsigned long cmd, void *arg)
{
	int fd = snode_dev_get_fd(dev);

	if (fd < 0)
		return fd;
	if (ioctl(fd, cmd, arg) < 0) {
		int err = errno;

		snode_dbg(dev->ctx, "%s: ioctl 0x%lx: %s\n", dev->name, cmd,
			  strerror(err));
		return -err;
	}
	return 0;
}

SNODE_EXPORT int snode_dev_get_info(struct snode_dev *dev,
				    struct snode_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return snode_dev_ioctl(dev, SNODE_IOCTL_INFO, info);
}
