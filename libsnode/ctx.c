// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libsnode context: reference counting, logging, device discovery.
 */
#define _GNU_SOURCE		/* secure_getenv() */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "private.h"

static void lsn_log_stderr(struct snode_ctx *ctx, void *log_data,
			   int priority, const char *file, int line,
			   const char *fn, const char *format, va_list args)
{
	fprintf(stderr, "libsnode: %s: ", fn);
	vfprintf(stderr, format, args);
}

void lsn_log(struct snode_ctx *ctx, int priority, const char *file,
	     int line, const char *fn, const char *format, ...)
{
	va_list args;

	if (!ctx->log_fn)
		return;
	va_start(args, format);
	ctx->log_fn(ctx, ctx->log_data, priority, file, line, fn, format,
		    args);
	va_end(args);
}

void lsn_copy_out(void *dst, size_t size, const void *src, size_t have)
{
	size_t n = size < have ? size : have;

	memcpy(dst, src, n);
	if (size > n)
		memset((char *)dst + n, 0, size - n);
}

/*
 * SNODE_LOG may be a syslog priority number or name: err, info, debug. The
 * environment is read with secure_getenv(): a set-user-ID program linked
 * with the library does not let its caller redirect it.
 */
static int lsn_log_priority_from_env(void)
{
	const char *s = secure_getenv("SNODE_LOG");
	char *end;
	long prio;

	if (!s)
		return LOG_ERR;
	prio = strtol(s, &end, 10);
	if (end != s && *end == '\0')
		return (int)prio;
	if (!strcmp(s, "debug"))
		return LOG_DEBUG;
	if (!strcmp(s, "info"))
		return LOG_INFO;
	return LOG_ERR;
}

static int lsn_dev_cmp(const void *a, const void *b)
{
	const struct snode_dev *da = *(struct snode_dev *const *)a;
	const struct snode_dev *db = *(struct snode_dev *const *)b;

	return da->index - db->index;
}

static void lsn_devs_free(struct snode_ctx *ctx)
{
	struct snode_dev *dev, *next;

	for (dev = ctx->devs; dev; dev = next) {
		next = dev->next;
		if (dev->fd >= 0)
			close(dev->fd);
		free(dev);
	}
	ctx->devs = NULL;
}

/* Build the device list from the class directory, sorted by index. */
static int lsn_devs_scan(struct snode_ctx *ctx)
{
	struct snode_dev **arr = NULL, **tmp;
	size_t n = 0, i;
	struct dirent *de;
	DIR *dir;

	dir = opendir(ctx->sysfs_class);
	if (!dir) {
		/* No class directory: the driver is not loaded; no devices. */
		lsn_dbg(ctx, "%s: %s\n", ctx->sysfs_class, strerror(errno));
		return 0;
	}
	while ((de = readdir(dir))) {
		struct snode_dev *dev;
		char *end;
		long idx;

		if (strncmp(de->d_name, "snode", 5) || !isdigit(de->d_name[5]))
			continue;
		idx = strtol(de->d_name + 5, &end, 10);
		if (*end || idx < 0 || idx > 65535)
			continue;
		dev = calloc(1, sizeof(*dev));
		tmp = realloc(arr, (n + 1) * sizeof(*arr));
		if (!dev || !tmp) {
			free(dev);
			free(tmp ? tmp : arr);
			closedir(dir);
			return -ENOMEM;
		}
		arr = tmp;
		dev->ctx = ctx;
		dev->index = (int)idx;
		dev->fd = -1;
		snprintf(dev->name, sizeof(dev->name), "snode%ld", idx);
		arr[n++] = dev;
	}
	closedir(dir);
	if (n)
		qsort(arr, n, sizeof(*arr), lsn_dev_cmp);
	for (i = n; i-- > 0;) {
		arr[i]->next = ctx->devs;
		ctx->devs = arr[i];
	}
	free(arr);
	return 0;
}

SNODE_EXPORT unsigned int snode_version(void)
{
	return LIBSNODE_VERSION;
}

SNODE_EXPORT int snode_new(struct snode_ctx **out)
{
	struct snode_ctx *ctx;
	const char *s;
	int ret;

	ctx = calloc(1, sizeof(*ctx));
	if (!ctx)
		return -ENOMEM;
	ctx->refcount = 1;
	pthread_mutex_init(&ctx->lock, NULL);
	ctx->log_fn = lsn_log_stderr;
	ctx->log_priority = lsn_log_priority_from_env();
	s = secure_getenv("SNODE_SYSFS");
	ctx->sysfs_class = s ? s : "/sys/class/snode";
	s = secure_getenv("SNODE_DEVDIR");
	ctx->dev_dir = s ? s : "/dev";
	ret = lsn_devs_scan(ctx);
	if (ret < 0) {
		lsn_devs_free(ctx);
		pthread_mutex_destroy(&ctx->lock);
		free(ctx);
		return ret;
	}
	*out = ctx;
	return 0;
}

SNODE_EXPORT struct snode_ctx *snode_ref(struct snode_ctx *ctx)
{
	if (ctx)
		__atomic_add_fetch(&ctx->refcount, 1, __ATOMIC_RELAXED);
	return ctx;
}

SNODE_EXPORT struct snode_ctx *snode_unref(struct snode_ctx *ctx)
{
	/* the last reference's release sees every other thread's writes */
	if (!ctx || __atomic_sub_fetch(&ctx->refcount, 1, __ATOMIC_ACQ_REL) > 0)
		return NULL;
	lsn_nl_free(ctx);
	lsn_devs_free(ctx);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
	return NULL;
}

SNODE_EXPORT void snode_set_userdata(struct snode_ctx *ctx, void *userdata)
{
	__atomic_store_n(&ctx->userdata, userdata, __ATOMIC_RELEASE);
}

SNODE_EXPORT void *snode_get_userdata(struct snode_ctx *ctx)
{
	return __atomic_load_n(&ctx->userdata, __ATOMIC_ACQUIRE);
}

/* Not atomic with logging in other threads: set it before sharing ctx. */
SNODE_EXPORT void snode_set_log_fn(struct snode_ctx *ctx, snode_log_fn log_fn,
				   void *log_data)
{
	ctx->log_fn = log_fn;
	ctx->log_data = log_data;
}

SNODE_EXPORT int snode_get_log_priority(struct snode_ctx *ctx)
{
	return __atomic_load_n(&ctx->log_priority, __ATOMIC_RELAXED);
}

SNODE_EXPORT void snode_set_log_priority(struct snode_ctx *ctx, int priority)
{
	__atomic_store_n(&ctx->log_priority, priority, __ATOMIC_RELAXED);
}
