/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libsnode - the supported way into the snode driver.
 *
 * A thin library over the snode ioctls and generic-netlink family. Every
 * function that can fail returns 0 or a positive value on success and a
 * negative errno on failure; errno itself is never the result.
 */
#ifndef LIBSNODE_H
#define LIBSNODE_H

#include <stdarg.h>
#include <stdint.h>
#include <linux/snode.h>

#ifdef __cplusplus
extern "C" {
#endif

struct snode_ctx;
struct snode_dev;

/* Context: owns the device list and the log hook. */
int snode_new(struct snode_ctx **ctx);
struct snode_ctx *snode_ref(struct snode_ctx *ctx);
struct snode_ctx *snode_unref(struct snode_ctx *ctx);

typedef void (*snode_log_fn)(struct snode_ctx *ctx, int priority,
			     const char *file, int line, const char *fn,
			     const char *format, va_list args);
void snode_set_log_fn(struct snode_ctx *ctx, snode_log_fn log_fn);
int snode_get_log_priority(struct snode_ctx *ctx);
void snode_set_log_priority(struct snode_ctx *ctx, int priority);

/* Devices: one per NIC, /dev/snodeN. */
struct snode_dev *snode_dev_get_first(struct snode_ctx *ctx);
struct snode_dev *snode_dev_get_next(struct snode_dev *dev);
#define snode_dev_foreach(ctx, dev) \
	for ((dev) = snode_dev_get_first(ctx); (dev); \
	     (dev) = snode_dev_get_next(dev))
struct snode_dev *snode_dev_get_by_name(struct snode_ctx *ctx,
					const char *name);
struct snode_ctx *snode_dev_get_ctx(struct snode_dev *dev);
int snode_dev_get_index(struct snode_dev *dev);
const char *snode_dev_get_name(struct snode_dev *dev);
int snode_dev_get_fd(struct snode_dev *dev);
int snode_dev_get_info(struct snode_dev *dev, struct snode_info *info);

/*
 * Global memory (see Documentation/driver/global-memory.rst). A process
 * allocates from its NIC's pool, maps the allocation, and exports ranges of
 * it under a handle; another process, on any node, imports the handle and
 * maps the window. Allocations and exports belong to the device's file
 * descriptor in the context and go away with it. Functions return 0 or a
 * negative errno (see <linux/snode.h> for the meaning of each).
 */
struct snode_mem;
int snode_mem_alloc(struct snode_dev *dev, uint64_t length,
		    struct snode_mem **mem);
int snode_mem_free(struct snode_mem *mem);
int snode_mem_map(struct snode_mem *mem, void **addr);
int snode_mem_unmap(struct snode_mem *mem);
uint64_t snode_mem_get_length(struct snode_mem *mem);
uint64_t snode_mem_get_offset(struct snode_mem *mem);
struct snode_dev *snode_mem_get_dev(struct snode_mem *mem);

/* What an importer needs: printable as "snode:v1:NODE:EXPORT:KEYHEX". */
struct snode_handle {
	uint32_t node;
	uint32_t export_id;
	uint64_t key;
};
#define SNODE_HANDLE_STR_MAX 48
int snode_handle_to_str(const struct snode_handle *handle, char *buf,
			size_t len);
int snode_handle_from_str(const char *str, struct snode_handle *handle);

int snode_export(struct snode_mem *mem, uint64_t offset, uint64_t length,
		 unsigned int flags, uint64_t key, const uint32_t *nodes,
		 unsigned int nr_nodes, struct snode_handle *handle);
int snode_unexport(struct snode_dev *dev, const struct snode_handle *handle);

struct snode_import;
int snode_import(struct snode_dev *dev, const struct snode_handle *handle,
		 uint64_t offset, uint64_t length, unsigned int flags,
		 struct snode_import **imp);
int snode_import_close(struct snode_import *imp);
int snode_import_map(struct snode_import *imp, void **addr);
int snode_import_unmap(struct snode_import *imp);
int snode_import_get_fd(struct snode_import *imp);
uint64_t snode_import_get_length(struct snode_import *imp);
int snode_import_status(struct snode_import *imp,
			struct snode_import_status *status);

/* A snapshot of SNODE_MEM_LIST_ALLOCS, _EXPORTS, _IMPORTS or _ATT. */
struct snode_mem_iter;
int snode_mem_list(struct snode_dev *dev, unsigned int type,
		   struct snode_mem_iter **iter);
const struct snode_mem_entry *
snode_mem_iter_get_first(struct snode_mem_iter *iter);
const struct snode_mem_entry *
snode_mem_iter_get_next(struct snode_mem_iter *iter,
			const struct snode_mem_entry *entry);
#define snode_mem_iter_foreach(iter, entry) \
	for ((entry) = snode_mem_iter_get_first(iter); (entry); \
	     (entry) = snode_mem_iter_get_next(iter, entry))
void snode_mem_iter_get_pool(struct snode_mem_iter *iter, uint64_t *size,
			     uint64_t *free_bytes);
void snode_mem_iter_free(struct snode_mem_iter *iter);

#ifdef __cplusplus
}
#endif

#endif /* LIBSNODE_H */
