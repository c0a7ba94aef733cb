/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libsnode internals shared between the library's files.
 */
#ifndef LIBSNODE_PRIVATE_H
#define LIBSNODE_PRIVATE_H

#include <syslog.h>

#include "libsnode.h"

#define SNODE_EXPORT __attribute__((visibility("default")))

struct snode_dev {
	struct snode_ctx *ctx;
	struct snode_dev *next;
	int index;		/* N of /dev/snodeN */
	int fd;			/* opened on first use, -1 before */
	char name[32];		/* "snodeN" */
};

struct snode_ctx {
	int refcount;
	int log_priority;
	snode_log_fn log_fn;
	struct snode_dev *devs;	/* sorted by index */
	const char *sysfs_class;	/* /sys/class/snode, or $SNODE_SYSFS */
	const char *dev_dir;		/* /dev, or $SNODE_DEVDIR */
	struct snode_nl *nl;		/* netlink state (nl.c), on first use */
};

void snode_log(struct snode_ctx *ctx, int priority, const char *file,
	       int line, const char *fn, const char *format, ...)
	__attribute__((format(printf, 6, 7)));

#define snode_log_cond(ctx, prio, ...)					\
	do {								\
		if ((ctx)->log_priority >= (prio))			\
			snode_log(ctx, prio, __FILE__, __LINE__,	\
				  __func__, __VA_ARGS__);		\
	} while (0)
#define snode_dbg(ctx, ...)  snode_log_cond(ctx, LOG_DEBUG, __VA_ARGS__)
#define snode_info(ctx, ...) snode_log_cond(ctx, LOG_INFO, __VA_ARGS__)
#define snode_err(ctx, ...)  snode_log_cond(ctx, LOG_ERR, __VA_ARGS__)

int snode_dev_ioctl(struct snode_dev *dev, unsigned long cmd, void *arg);

/* msg.c: the files the driver hands out (endpoints, DMA queues) */
int snode_fd_ioctl(struct snode_ctx *ctx, int fd, unsigned long cmd, void *arg);
int snode_fd_wait(int fd, int timeout_ms);

/* nl.c */
void snode_nl_free(struct snode_ctx *ctx);

#endif /* LIBSNODE_PRIVATE_H */
