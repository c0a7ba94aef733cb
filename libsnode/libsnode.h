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

#ifdef __cplusplus
}
#endif

#endif /* LIBSNODE_H */
