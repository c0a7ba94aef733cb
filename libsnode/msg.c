// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libsnode messages and doorbells: endpoints, sending, listings, the NIC's
 * counters.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "private.h"

struct snode_ep {
	struct snode_dev *dev;
	int fd;
	struct snode_ep_addr addr;
};

struct snode_msg_iter {
	struct snode_msg_entry *entries;
	size_t count;
};

/* The one ioctl helper for the files the driver hands out. */
int snode_fd_ioctl(struct snode_ctx *ctx, int fd, unsigned long cmd, void *arg)
{
	if (ioctl(fd, cmd, arg) < 0) {
		int err = errno;

		snode_dbg(ctx, "fd %d: ioctl 0x%lx: %s\n", fd, cmd, strerror(err));
		return -err;
	}
	return 0;
}

/*
 * Wait up to @timeout_ms (-1: forever, 0: not at all) for @fd to be
 * readable; 0 if it is, -EAGAIN if not, or -errno.
 */
int snode_fd_wait(int fd, int timeout_ms)
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

SNODE_EXPORT int snode_ep_new(struct snode_dev *dev, uint32_t id,
			      unsigned int entries, unsigned int flags,
			      uint64_t key, struct snode_ep **out)
{
	struct snode_ep_alloc cmd = {
		.size = sizeof(cmd),
		.flags = (flags & SNODE_EP_RANDOM_KEY) | SNODE_EP_NONBLOCK,
		.entries = entries,
		.key = key,
	};
	struct snode_ep *ep;
	int ret;

	if (flags & ~SNODE_EP_RANDOM_KEY)
		return -EINVAL;
	if (id != SNODE_EP_ANY) {
		cmd.flags |= SNODE_EP_ID;
		cmd.id = id;
	}
	ep = calloc(1, sizeof(*ep));
	if (!ep)
		return -ENOMEM;
	ret = snode_dev_ioctl(dev, SNODE_IOCTL_EP_ALLOC, &cmd);
	if (ret < 0) {
		free(ep);
		return ret;
	}
	ep->dev = dev;
	ep->fd = cmd.out_fd;
	ep->addr.node = cmd.out_node;
	ep->addr.id = cmd.out_id;
	ep->addr.key = cmd.out_key;
	*out = ep;
	return 0;
}

SNODE_EXPORT int snode_ep_free(struct snode_ep *ep)
{
	int ret = 0;

	if (!ep)
		return 0;
	if (close(ep->fd))
		ret = -errno;
	free(ep);
	return ret;
}

SNODE_EXPORT int snode_ep_get_fd(struct snode_ep *ep)
{
	return ep->fd;
}

SNODE_EXPORT void snode_ep_get_addr(struct snode_ep *ep,
				    struct snode_ep_addr *addr)
{
	*addr = ep->addr;
}

SNODE_EXPORT int snode_ep_recv(struct snode_ep *ep, struct snode_msg *msgs,
			       unsigned int max, int timeout_ms)
{
	ssize_t n;
	int ret;

	if (!max)
		return -EINVAL;
	for (;;) {
		n = read(ep->fd, msgs, (size_t)max * sizeof(*msgs));
		if (n >= 0)
			return n / sizeof(*msgs);
		if (errno != EAGAIN)
			return -errno;
		ret = snode_fd_wait(ep->fd, timeout_ms);
		if (ret == -EAGAIN)
			return 0;
		if (ret < 0)
			return ret;
	}
}

static int msg_send(struct snode_ctx *ctx, int fd, const struct snode_ep_addr *dst,
		    const void *buf, size_t len, unsigned int flags,
		    unsigned int timeout_ms)
{
	struct snode_msg_send cmd = {
		.size = sizeof(cmd),
		.flags = flags,
		.node = dst->node,
		.ep = dst->id,
		.key = dst->key,
		.len = len,
		.timeout_ms = timeout_ms,
	};

	if (len > SNODE_MSG_MAX_LEN)
		return -EMSGSIZE;
	if (len)
		memcpy(cmd.payload, buf, len);
	return snode_fd_ioctl(ctx, fd, SNODE_IOCTL_MSG_SEND, &cmd);
}

SNODE_EXPORT int snode_ep_send(struct snode_ep *ep,
			       const struct snode_ep_addr *dst,
			       const void *buf, size_t len, unsigned int flags,
			       unsigned int timeout_ms)
{
	return msg_send(snode_dev_get_ctx(ep->dev), ep->fd, dst, buf, len,
			flags, timeout_ms);
}

SNODE_EXPORT int snode_msg_send(struct snode_dev *dev,
				const struct snode_ep_addr *dst,
				const void *buf, size_t len,
				unsigned int flags, unsigned int timeout_ms)
{
	int fd = snode_dev_get_fd(dev);

	if (fd < 0)
		return fd;
	return msg_send(snode_dev_get_ctx(dev), fd, dst, buf, len, flags,
			timeout_ms);
}

SNODE_EXPORT int snode_dev_get_stats(struct snode_dev *dev,
				     struct snode_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	stats->size = sizeof(*stats);
	return snode_dev_ioctl(dev, SNODE_IOCTL_STATS, stats);
}

SNODE_EXPORT int snode_msg_list(struct snode_dev *dev, unsigned int type,
				struct snode_msg_iter **out)
{
	struct snode_msg_list cmd = {
		.size = sizeof(cmd),
		.type = type,
		.entry_size = sizeof(struct snode_msg_entry),
	};
	struct snode_msg_iter *iter;
	unsigned int tries;
	int ret;

	iter = calloc(1, sizeof(*iter));
	if (!iter)
		return -ENOMEM;
	/* count, then fetch; retry if entries appeared in between */
	for (tries = 0; tries < 8; tries++) {
		struct snode_msg_entry *e = NULL;
		uint32_t room = cmd.count;

		if (room) {
			e = calloc(room, sizeof(*e));
			if (!e) {
				ret = -ENOMEM;
				goto err;
			}
		}
		cmd.count = room;
		cmd.entries = (uintptr_t)e;
		ret = snode_dev_ioctl(dev, SNODE_IOCTL_MSG_LIST, &cmd);
		if (ret < 0) {
			free(e);
			goto err;
		}
		if (cmd.count <= room) {
			iter->entries = e;
			iter->count = cmd.count;
			*out = iter;
			return 0;
		}
		free(e);
	}
	ret = -EAGAIN;
err:
	free(iter);
	return ret;
}

SNODE_EXPORT const struct snode_msg_entry *
snode_msg_iter_get_first(struct snode_msg_iter *iter)
{
	return iter->count ? &iter->entries[0] : NULL;
}

SNODE_EXPORT const struct snode_msg_entry *
snode_msg_iter_get_next(struct snode_msg_iter *iter,
			const struct snode_msg_entry *entry)
{
	size_t i = (size_t)(entry - iter->entries) + 1;

	return i < iter->count ? &iter->entries[i] : NULL;
}

SNODE_EXPORT void snode_msg_iter_free(struct snode_msg_iter *iter)
{
	if (!iter)
		return;
	free(iter->entries);
	free(iter);
}
