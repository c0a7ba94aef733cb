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
	ret = lsn_dev_ioctl(dev, SNODE_IOCTL_EP_ALLOC, &cmd);
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
		ret = lsn_fd_wait(ep->fd, timeout_ms);
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
	return lsn_ioctl(ctx, fd, SNODE_IOCTL_MSG_SEND, &cmd);
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

LSN_ITER_FUNCS(msg, snode_msg_entry)
