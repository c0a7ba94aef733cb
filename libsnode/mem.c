// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libsnode global memory: pool allocations, exports, imports, handles and
 * listings, over the memory ioctls of <linux/snode.h>.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "private.h"

struct snode_mem {
	struct snode_dev *dev;
	uint64_t offset;	/* in the pool; the mmap offset */
	uint64_t length;
	void *addr;		/* NULL while not mapped */
};

struct snode_import {
	struct snode_dev *dev;
	int fd;
	unsigned int flags;	/* SNODE_IMPORT_* */
	uint64_t length;
	struct snode_handle handle;
	void *addr;		/* NULL while not mapped */
};

#define SNODE_HANDLE_PREFIX	"snode:v1:"

/*
 * The mapping of a pool allocation or an import, made on first use and kept
 * in *cached until unmapped: @length bytes of @fd from @offset.
 */
static int lsn_map(void **cached, size_t length, int prot, int fd,
		   off_t offset, void **addr)
{
	void *p;

	if (!*cached) {
		p = mmap(NULL, length, prot, MAP_SHARED, fd, offset);
		if (p == MAP_FAILED)
			return -errno;
		*cached = p;
	}
	*addr = *cached;
	return 0;
}

static int lsn_unmap(void **cached, size_t length)
{
	if (*cached && munmap(*cached, length))
		return -errno;
	*cached = NULL;
	return 0;
}

/*
 * The library's object (@size bytes, zeroed) for what ioctl @req of @dev
 * creates, allocated first so that a kernel object never needs undoing;
 * NULL with *err set if either fails.
 */
static void *lsn_new_obj(struct snode_dev *dev, size_t size, unsigned long req,
			 void *cmd, int *err)
{
	void *obj = calloc(1, size);

	if (!obj) {
		*err = -ENOMEM;
		return NULL;
	}
	*err = lsn_dev_ioctl(dev, req, cmd);
	if (*err < 0) {
		free(obj);
		return NULL;
	}
	return obj;
}

/* ---- pool memory ----------------------------------------------------------- */

SNODE_EXPORT int snode_mem_alloc(struct snode_dev *dev, uint64_t length,
				 struct snode_mem **out)
{
	struct snode_mem_alloc cmd = {
		.size = sizeof(cmd),
		.length = length,
	};
	struct snode_mem *mem;
	int ret;

	mem = lsn_new_obj(dev, sizeof(*mem), SNODE_IOCTL_MEM_ALLOC, &cmd, &ret);
	if (!mem)
		return ret;
	mem->dev = dev;
	mem->offset = cmd.out_offset;
	mem->length = length;
	*out = mem;
	return 0;
}

SNODE_EXPORT int snode_mem_map(struct snode_mem *mem, void **addr)
{
	int fd = -1;

	if (!mem->addr) {
		fd = snode_dev_get_fd(mem->dev);
		if (fd < 0)
			return fd;
	}
	return lsn_map(&mem->addr, mem->length, PROT_READ | PROT_WRITE, fd,
		       (off_t)mem->offset, addr);
}

SNODE_EXPORT int snode_mem_unmap(struct snode_mem *mem)
{
	return lsn_unmap(&mem->addr, mem->length);
}

SNODE_EXPORT int snode_mem_free(struct snode_mem *mem)
{
	struct snode_mem_free cmd = {
		.size = sizeof(cmd),
	};
	int ret;

	if (!mem)
		return 0;
	snode_mem_unmap(mem);
	cmd.offset = mem->offset;
	ret = lsn_dev_ioctl(mem->dev, SNODE_IOCTL_MEM_FREE, &cmd);
	free(mem);
	return ret;
}

SNODE_EXPORT uint64_t snode_mem_get_length(struct snode_mem *mem)
{
	return mem->length;
}

SNODE_EXPORT uint64_t snode_mem_get_offset(struct snode_mem *mem)
{
	return mem->offset;
}

SNODE_EXPORT struct snode_dev *snode_mem_get_dev(struct snode_mem *mem)
{
	return mem->dev;
}

/* ---- exports --------------------------------------------------------------- */

/* EXPORT @cmd on @dev and say where it is in @handle. */
static int lsn_export(struct snode_dev *dev, struct snode_mem_export *cmd,
		      struct snode_handle *handle)
{
	int ret;

	if (cmd->nodes && cmd->nr_nodes)
		cmd->flags |= SNODE_EXPORT_NODES;
	ret = lsn_dev_ioctl(dev, SNODE_IOCTL_MEM_EXPORT, cmd);
	if (ret < 0)
		return ret;
	handle->node = cmd->out_node;
	handle->export_id = cmd->out_export_id;
	handle->key = cmd->out_key;
	return 0;
}

SNODE_EXPORT int snode_export(struct snode_mem *mem, uint64_t offset,
			      uint64_t length, unsigned int flags,
			      uint64_t key, const uint32_t *nodes,
			      unsigned int nr_nodes,
			      struct snode_handle *handle)
{
	struct snode_mem_export cmd = {
		.size = sizeof(cmd),
		.flags = flags,
		.alloc = mem->offset,
		.offset = offset,
		.length = length ? length : mem->length - offset,
		.key = key,
		.nodes = (uintptr_t)nodes,
		.nr_nodes = nr_nodes,
	};

	return lsn_export(mem->dev, &cmd, handle);
}

SNODE_EXPORT int snode_export_mem(struct snode_dev *dev, void *addr,
				  uint64_t length, unsigned int flags,
				  uint64_t key, const uint32_t *nodes,
				  unsigned int nr_nodes,
				  struct snode_handle *handle)
{
	struct snode_mem_export cmd = {
		.size = sizeof(cmd),
		.flags = flags | SNODE_EXPORT_HOST,
		.offset = (uintptr_t)addr,
		.length = length,
		.key = key,
		.nodes = (uintptr_t)nodes,
		.nr_nodes = nr_nodes,
	};

	if (!dev || !handle || (flags & (SNODE_EXPORT_HOST | SNODE_EXPORT_NODES)))
		return -EINVAL;
	return lsn_export(dev, &cmd, handle);
}

SNODE_EXPORT int snode_unexport(struct snode_dev *dev,
				const struct snode_handle *handle)
{
	struct snode_mem_unexport cmd = {
		.size = sizeof(cmd),
		.export_id = handle->export_id,
	};

	return lsn_dev_ioctl(dev, SNODE_IOCTL_MEM_UNEXPORT, &cmd);
}

/* ---- imports --------------------------------------------------------------- */

SNODE_EXPORT int snode_import(struct snode_dev *dev,
			      const struct snode_handle *handle,
			      uint64_t offset, uint64_t length,
			      unsigned int flags, struct snode_import **out)
{
	struct snode_mem_import cmd = {
		.size = sizeof(cmd),
		.flags = flags,
		.node = handle->node,
		.export_id = handle->export_id,
		.key = handle->key,
		.offset = offset,
		.length = length,
	};
	struct snode_import *imp;
	int ret;

	imp = lsn_new_obj(dev, sizeof(*imp), SNODE_IOCTL_MEM_IMPORT, &cmd, &ret);
	if (!imp)
		return ret;
	imp->dev = dev;
	imp->fd = cmd.out_fd;
	imp->flags = flags;
	imp->length = length;
	imp->handle = *handle;
	*out = imp;
	return 0;
}

SNODE_EXPORT int snode_import_map(struct snode_import *imp, void **addr)
{
	int prot = PROT_READ;

	if (imp->flags & SNODE_IMPORT_WRITE)
		prot |= PROT_WRITE;
	return lsn_map(&imp->addr, imp->length, prot, imp->fd, 0, addr);
}

SNODE_EXPORT int snode_import_unmap(struct snode_import *imp)
{
	return lsn_unmap(&imp->addr, imp->length);
}

SNODE_EXPORT int snode_import_close(struct snode_import *imp)
{
	int ret;

	if (!imp)
		return 0;
	ret = snode_import_unmap(imp);
	if (close(imp->fd) && !ret)
		ret = -errno;
	free(imp);
	return ret;
}

SNODE_EXPORT int snode_import_get_fd(struct snode_import *imp)
{
	return imp->fd;
}

SNODE_EXPORT uint64_t snode_import_get_length(struct snode_import *imp)
{
	return imp->length;
}

SNODE_EXPORT int snode_import_status(struct snode_import *imp,
				     struct snode_import_status *status,
				     size_t size)
{
	return lsn_ioctl_sized(imp->dev->ctx, imp->fd,
			       SNODE_IOCTL_IMPORT_STATUS, status, size);
}

/* ---- handles --------------------------------------------------------------- */

SNODE_EXPORT int snode_handle_to_str(const struct snode_handle *handle,
				     char *buf, size_t len)
{
	int n = snprintf(buf, len, SNODE_HANDLE_PREFIX "%" PRIu32 ":%" PRIu32
			 ":%016" PRIx64, handle->node, handle->export_id,
			 handle->key);

	if (n < 0)
		return -EINVAL;
	if ((size_t)n >= len)
		return -ENOSPC;
	return n;
}

/* A decimal number of at most 10 digits that fits 32 bits; advances *s. */
static int parse_u32(const char **s, uint32_t *val)
{
	uint64_t v = 0;
	int digits = 0;

	while (**s >= '0' && **s <= '9' && digits < 11) {
		v = v * 10 + (uint64_t)(**s - '0');
		(*s)++;
		digits++;
	}
	if (!digits || digits > 10 || v > UINT32_MAX)
		return -EINVAL;
	*val = (uint32_t)v;
	return 0;
}

SNODE_EXPORT int snode_handle_from_str(const char *str,
				       struct snode_handle *handle)
{
	const char *s = str;
	struct snode_handle h;
	uint64_t key = 0;
	int digits = 0;

	if (!str || strncmp(s, SNODE_HANDLE_PREFIX, strlen(SNODE_HANDLE_PREFIX)))
		return -EINVAL;
	s += strlen(SNODE_HANDLE_PREFIX);
	if (parse_u32(&s, &h.node) || *s++ != ':' ||
	    parse_u32(&s, &h.export_id) || *s++ != ':')
		return -EINVAL;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
		s += 2;
	for (; *s; s++, digits++) {
		int d;

		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (*s >= 'a' && *s <= 'f')
			d = *s - 'a' + 10;
		else if (*s >= 'A' && *s <= 'F')
			d = *s - 'A' + 10;
		else
			return -EINVAL;
		if (digits == 16)
			return -EINVAL;
		key = key << 4 | (uint64_t)d;
	}
	if (!digits)
		return -EINVAL;
	h.key = key;
	*handle = h;
	return 0;
}

/* ---- listings -------------------------------------------------------------- */

LSN_ITER_FUNCS(mem, snode_mem_entry)

SNODE_EXPORT void snode_mem_iter_get_pool(struct snode_mem_iter *iter,
					  uint64_t *size, uint64_t *free_bytes)
{
	if (size)
		*size = iter->it.pool_size;
	if (free_bytes)
		*free_bytes = iter->it.pool_free;
}
