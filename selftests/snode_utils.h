/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the snode selftests and their helper programs (mem_peer,
 * campaign_traffic) share without the kselftest harness: the usual macros
 * and one wrapper per ioctl call they all make. A wrapper returns what the
 * ioctl returns (-1 with errno on failure) or the new descriptor; the
 * harness extras are in snode_test.h, which includes this.
 */
#ifndef SNODE_UTILS_H
#define SNODE_UTILS_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/snode.h>

#ifndef offsetofend
#define offsetofend(TYPE, MEMBER) \
	(offsetof(TYPE, MEMBER) + sizeof(((TYPE *)0)->MEMBER))
#endif

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/* Open @dev read-write and read its INFO into @info: the fd, or -1. */
static inline int sn_open_info(const char *dev, struct snode_info *info)
{
	int fd = open(dev, O_RDWR);

	if (fd < 0)
		return -1;
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	if (ioctl(fd, SNODE_IOCTL_INFO, info)) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	return fd;
}

/* MEM_IMPORT: the import's fd, or -1 with errno. */
static inline int sn_import(int fd, uint32_t flags, uint32_t node,
			    uint32_t export_id, uint64_t key, uint64_t offset,
			    uint64_t length)
{
	struct snode_mem_import cmd = {
		.size = sizeof(cmd),
		.flags = flags,
		.node = node,
		.export_id = export_id,
		.key = key,
		.offset = offset,
		.length = length,
	};

	if (ioctl(fd, SNODE_IOCTL_MEM_IMPORT, &cmd))
		return -1;
	return cmd.out_fd;
}

/* DMA_OPEN: the queue's fd, or -1 with errno. */
static inline int sn_dma_open(int fd, uint32_t depth, uint32_t flags)
{
	struct snode_dma_open cmd = {
		.size = sizeof(cmd),
		.flags = flags,
		.depth = depth,
	};

	if (ioctl(fd, SNODE_IOCTL_DMA_OPEN, &cmd))
		return -1;
	return cmd.out_fd;
}

/*
 * One synchronous copy (DMA_SUBMIT_WAIT of one request): the request's
 * status (0 or -errno), or the ioctl's -errno; the bytes copied in
 * *@bytes if @bytes is not NULL.
 */
static inline int sn_dma_copy(int q, uint32_t flags, int ifd, uint64_t off,
			      void *buf, uint64_t len, uint64_t *bytes)
{
	struct snode_dma_req r = {
		.flags = flags,
		.import_fd = ifd,
		.offset = off,
		.addr = (uintptr_t)buf,
		.length = len,
	};
	struct snode_dma_submit cmd = {
		.size = sizeof(cmd),
		.flags = SNODE_DMA_SUBMIT_WAIT,
		.count = 1,
		.req_size = sizeof(r),
		.reqs = (uintptr_t)&r,
	};

	if (ioctl(q, SNODE_IOCTL_DMA_SUBMIT, &cmd))
		return -errno;
	if (cmd.out_submitted != 1)
		return -EIO;
	if (bytes)
		*bytes = r.out_bytes;
	return r.out_status;
}

/* EP_ALLOC of @ep (its size set if 0): 0, or -1 with errno. */
static inline int sn_ep_alloc(int fd, struct snode_ep_alloc *ep)
{
	if (!ep->size)
		ep->size = sizeof(*ep);
	return ioctl(fd, SNODE_IOCTL_EP_ALLOC, ep);
}

/* MSG_SEND of @len bytes of @payload: 0, or -1 with errno. */
static inline int sn_msg_send(int fd, uint32_t node, uint32_t ep, uint64_t key,
			      uint32_t flags, const void *payload, uint32_t len,
			      uint32_t timeout_ms)
{
	struct snode_msg_send s = {
		.size = sizeof(s),
		.flags = flags,
		.node = node,
		.ep = ep,
		.key = key,
		.len = len,
		.timeout_ms = timeout_ms,
	};

	if (len <= sizeof(s.payload))
		memcpy(s.payload, payload, len);
	return ioctl(fd, SNODE_IOCTL_MSG_SEND, &s);
}

#endif /* SNODE_UTILS_H */
