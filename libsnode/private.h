/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libsnode internals shared between the library's files. Nothing here is
 * exported: internal functions are named lsn_*, the symbol map exports only
 * snode_*, and the objects are built with -fvisibility=hidden, so a static
 * link does not put internal names in the snode_ namespace either.
 */
#ifndef LIBSNODE_PRIVATE_H
#define LIBSNODE_PRIVATE_H

#include <pthread.h>
#include <stddef.h>
#include <syslog.h>

#include "libsnode.h"

#define SNODE_EXPORT __attribute__((visibility("default")))
#define LSN_HIDDEN __attribute__((visibility("hidden")))

struct snode_dev {
	struct snode_ctx *ctx;
	struct snode_dev *next;
	int index;		/* N of /dev/snodeN */
	int fd;			/* opened on first use under ctx->lock, -1 before */
	char name[32];		/* "snodeN" */
};

struct snode_ctx {
	int refcount;			/* atomic */
	int log_priority;		/* atomic */
	pthread_mutex_t lock;		/* protects dev->fd opening and nl */
	snode_log_fn log_fn;
	void *log_data;
	void *userdata;
	struct snode_dev *devs;		/* sorted by index, fixed after snode_new() */
	const char *sysfs_class;	/* /sys/class/snode, or $SNODE_SYSFS */
	const char *dev_dir;		/* /dev, or $SNODE_DEVDIR */
	struct lsn_nl *nl;		/* netlink state (nl.c), on first use */
};

LSN_HIDDEN void lsn_log(struct snode_ctx *ctx, int priority, const char *file,
			int line, const char *fn, const char *format, ...)
	__attribute__((format(printf, 6, 7)));

#define lsn_log_cond(ctx, prio, ...)					\
	do {								\
		if (__atomic_load_n(&(ctx)->log_priority,		\
				    __ATOMIC_RELAXED) >= (prio))	\
			lsn_log(ctx, prio, __FILE__, __LINE__,		\
				__func__, __VA_ARGS__);			\
	} while (0)
#define lsn_dbg(ctx, ...)  lsn_log_cond(ctx, LOG_DEBUG, __VA_ARGS__)
#define lsn_info(ctx, ...) lsn_log_cond(ctx, LOG_INFO, __VA_ARGS__)
#define lsn_err(ctx, ...)  lsn_log_cond(ctx, LOG_ERR, __VA_ARGS__)

/*
 * Copy a library-filled struct of @have bytes to the caller's @dst of
 * @size bytes: the common prefix, and zeroes past what the library knows.
 */
LSN_HIDDEN void lsn_copy_out(void *dst, size_t size, const void *src,
			     size_t have);

/* dev.c: the one ioctl helper, for /dev/snodeN and the files it hands out */
LSN_HIDDEN int lsn_ioctl(struct snode_ctx *ctx, int fd, unsigned long cmd,
			 void *arg);
LSN_HIDDEN int lsn_dev_ioctl(struct snode_dev *dev, unsigned long cmd,
			     void *arg);
LSN_HIDDEN int lsn_fd_wait(int fd, int timeout_ms);
/* a growable struct, size first, at the caller's @size (zeroed first) */
LSN_HIDDEN int lsn_ioctl_sized(struct snode_ctx *ctx, int fd,
			       unsigned long cmd, void *arg, size_t size);

/*
 * A snapshot: an array of @count entries of the caller's @entry_size each.
 * Every iterator type of the API is one of these.
 */
struct lsn_iter {
	void *entries;
	size_t entry_size;
	unsigned int count;
	unsigned int room;
	uint64_t pool_size;	/* snode_mem_iter only */
	uint64_t pool_free;
};

/* The public iterator types: the same snapshot, typed for the caller. */
struct snode_mem_iter { struct lsn_iter it; };
struct snode_msg_iter { struct lsn_iter it; };
struct snode_link_iter { struct lsn_iter it; };
struct snode_node_iter { struct lsn_iter it; };
struct snode_window_iter { struct lsn_iter it; };

/*
 * The public functions of one iterator type, all thin wrappers:
 * snode_<name>_iter_get_first(), snode_<name>_iter_get_next() and
 * snode_<name>_iter_free().
 */
#define LSN_ITER_FUNCS(name, entry)					\
SNODE_EXPORT const struct entry *					\
snode_##name##_iter_get_first(struct snode_##name##_iter *iter)	\
{									\
	return lsn_iter_first(&iter->it);				\
}									\
SNODE_EXPORT const struct entry *					\
snode_##name##_iter_get_next(struct snode_##name##_iter *iter,	\
			     const struct entry *prev)			\
{									\
	return lsn_iter_next(&iter->it, prev);				\
}									\
SNODE_EXPORT void snode_##name##_iter_free(struct snode_##name##_iter *iter) \
{									\
	if (iter)							\
		lsn_iter_free(&iter->it);				\
}

LSN_HIDDEN struct lsn_iter *lsn_iter_new(size_t entry_size);
LSN_HIDDEN int lsn_iter_append(struct lsn_iter *it, const void *src,
			       size_t have);
LSN_HIDDEN void lsn_iter_clear(struct lsn_iter *it);
LSN_HIDDEN const void *lsn_iter_first(const struct lsn_iter *it);
LSN_HIDDEN const void *lsn_iter_next(const struct lsn_iter *it,
				     const void *entry);
LSN_HIDDEN void lsn_iter_free(struct lsn_iter *it);

/*
 * The one count-then-fetch helper of the list ioctls: @cmd's struct has
 * its count and entries fields at @count and @entries; entries are fetched
 * at the iterator's entry size (the kernel zero-fills what it does not know).
 */

/* coll.c, for its host unit test */
LSN_HIDDEN size_t lsn_coll_type_size(unsigned int type);
LSN_HIDDEN int lsn_coll_reduce(void *dst, const void *src, size_t count,
			       unsigned int type, unsigned int op);
LSN_HIDDEN size_t lsn_coll_block(size_t count, unsigned int n, unsigned int b,
				 size_t *start);
LSN_HIDDEN void lsn_coll_order(unsigned int n, const uint32_t *nodes,
			       const uint32_t *rack, const uint32_t *sw,
			       unsigned int *order);

/* nl.c */
LSN_HIDDEN void lsn_nl_free(struct snode_ctx *ctx);

#endif /* LIBSNODE_PRIVATE_H */
