// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libsnode DMA: queues, batches of copies, their completions, and the
 * synchronous copy for simple use.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "private.h"

struct snode_dma_queue {
	struct snode_dev *dev;
	int fd;
};

SNODE_EXPORT int snode_dma_queue_new(struct snode_dev *dev, unsigned int depth,
				     struct snode_dma_queue **out)
{
	struct snode_dma_open cmd = {
		.size = sizeof(cmd),
		.flags = SNODE_DMA_NONBLOCK,
		.depth = depth,
	};
	struct snode_dma_queue *q;
	int ret;

	q = calloc(1, sizeof(*q));
	if (!q)
		return -ENOMEM;
	ret = lsn_dev_ioctl(dev, SNODE_IOCTL_DMA_OPEN, &cmd);
	if (ret < 0) {
		free(q);
		return ret;
	}
	q->dev = dev;
	q->fd = cmd.out_fd;
	*out = q;
	return 0;
}

SNODE_EXPORT int snode_dma_queue_free(struct snode_dma_queue *q)
{
	int ret = 0;

	if (!q)
		return 0;
	if (close(q->fd))
		ret = -errno;
	free(q);
	return ret;
}

SNODE_EXPORT int snode_dma_queue_get_fd(struct snode_dma_queue *q)
{
	return q->fd;
}

static int dma_submit(struct snode_dma_queue *q, struct snode_dma_req *reqs,
		      unsigned int n, unsigned int flags)
{
	struct snode_dma_submit cmd = {
		.size = sizeof(cmd),
		.flags = flags,
		.count = n,
		.req_size = sizeof(*reqs),
		.reqs = (uintptr_t)reqs,
	};
	int ret;

	ret = lsn_ioctl(snode_dev_get_ctx(q->dev), q->fd,
			     SNODE_IOCTL_DMA_SUBMIT, &cmd);
	return ret < 0 ? ret : (int)cmd.out_submitted;
}

SNODE_EXPORT int snode_dma_submit(struct snode_dma_queue *q,
				  struct snode_dma_req *reqs, unsigned int n)
{
	return dma_submit(q, reqs, n, 0);
}

SNODE_EXPORT int snode_dma_reap(struct snode_dma_queue *q,
				struct snode_dma_cpl *cpls, unsigned int max,
				int timeout_ms)
{
	ssize_t n;
	int ret;

	if (!max)
		return -EINVAL;
	for (;;) {
		n = read(q->fd, cpls, (size_t)max * sizeof(*cpls));
		if (n >= 0)
			return n / sizeof(*cpls);
		if (errno != EAGAIN)
			return -errno;
		ret = lsn_fd_wait(q->fd, timeout_ms);
		if (ret == -EAGAIN)
			return 0;
		if (ret < 0)
			return ret;
	}
}

SNODE_EXPORT int snode_dma_copy(struct snode_dma_queue *q, unsigned int flags,
				struct snode_import *imp, uint64_t offset,
				void *buf, uint64_t length)
{
	struct snode_dma_req req = {
		.flags = flags,
		.import_fd = snode_import_get_fd(imp),
		.offset = offset,
		.addr = (uintptr_t)buf,
		.length = length,
	};
	int ret;

	ret = dma_submit(q, &req, 1, SNODE_DMA_SUBMIT_WAIT);
	if (ret < 0)
		return ret;
	return req.out_status;
}
