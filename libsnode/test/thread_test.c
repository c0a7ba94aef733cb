// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * libsnode host test: several threads on one context, and the sized
 * copy-out rule. Runs without a device: a fake class directory and device
 * directory (SNODE_SYSFS, SNODE_DEVDIR) stand in for the driver's, so the
 * first-use open of a device, the shared netlink state (the host has no
 * snode family: every request ends in EPROTONOSUPPORT after a real
 * round trip to the kernel's genetlink controller), the reference count
 * and the log priority are raced for real. Built a second time with
 * -fsanitize=thread by libsnode.mk, which makes any unlocked access fail.
 *
 * With --device it runs on the real NICs of the host instead (an
 * emulated node: no fake directories), where every call must succeed:
 * device info, memory and message listings, netlink link/node/window
 * dumps and device status, and per-thread allocations and endpoints on the
 * shared device descriptor, all at once from eight threads.
 *
 * TAP output; exit 0 only if every test passed.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>

#include "libsnode.h"

#define THREADS	8
#define ROUNDS	40	/* fresh contexts: each first use is raced */
#define LOOPS	20

static char tmpdir[] = "/tmp/libsnode-test.XXXXXX";
static char devdir[PATH_MAX];
static int failed, testno, real_device;

static void tap(int ok, const char *name, const char *why)
{
	printf("%sok %d - %s%s%s\n", ok ? "" : "not ", ++testno, name,
	       why ? ": " : "", why ? why : "");
	if (!ok)
		failed++;
}

static int mkfile(const char *path)
{
	int fd = open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static int setup(void)
{
	char path[PATH_MAX + 32];
	int i;

	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(path, sizeof(path), "%s/class", tmpdir);
	if (mkdir(path, 0700))
		return -1;
	setenv("SNODE_SYSFS", path, 1);
	snprintf(devdir, sizeof(devdir), "%s/dev", tmpdir);
	if (mkdir(devdir, 0700))
		return -1;
	setenv("SNODE_DEVDIR", devdir, 1);
	for (i = 0; i < 2; i++) {
		snprintf(path, sizeof(path), "%s/class/snode%d", tmpdir, i);
		if (mkdir(path, 0700))
			return -1;
		snprintf(path, sizeof(path), "%s/snode%d", devdir, i);
		if (mkfile(path))
			return -1;
	}
	return 0;
}

static void cleanup(void)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	if (system(cmd))
		fprintf(stderr, "# could not remove %s\n", tmpdir);
}

/* Descriptors this process has open on the fake device files. */
static int count_dev_fds(void)
{
	char link[PATH_MAX + 32], target[PATH_MAX];
	struct dirent *de;
	int n = 0;
	DIR *d = opendir("/proc/self/fd");

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		ssize_t len;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", de->d_name);
		len = readlink(link, target, sizeof(target) - 1);
		if (len <= 0)
			continue;
		target[len] = '\0';
		if (!strncmp(target, devdir, strlen(devdir)))
			n++;
	}
	closedir(d);
	return n;
}

struct worker {
	pthread_t thread;
	struct snode_ctx *ctx;
	pthread_barrier_t *start;
	int fds[2];		/* what snode_dev_get_fd() gave, per device */
	int bad_fd;		/* a different descriptor for the same device */
	int bad_nl;		/* a netlink result other than expected */
	int nl_err;
	int bad_dev;		/* --device: a failed ioctl call */
	int dev_err;
};

/* --device: what one thread does on a real NIC, all of which must work. */
static void work_device(struct worker *w, struct snode_dev *dev)
{
	struct snode_window_iter *windows;
	struct snode_dev_status st;
	struct snode_mem_iter *mi;
	struct snode_msg_iter *gi;
	struct snode_info info;
	struct snode_mem *mem;
	struct snode_ep *ep;
	int ret;

#define DEV_CALL(call)							\
	do {								\
		ret = (call);						\
		if (ret < 0) {						\
			w->bad_dev++;					\
			w->dev_err = ret;				\
		}							\
	} while (0)

	DEV_CALL(snode_dev_get_info(dev, &info, sizeof(info)));
	DEV_CALL(snode_dev_get_status(dev, &st, sizeof(st)));
	DEV_CALL(snode_mem_alloc(dev, 4096, &mem));
	if (ret >= 0) {
		DEV_CALL(snode_mem_list(dev, SNODE_MEM_LIST_ALLOCS,
					sizeof(struct snode_mem_entry), &mi));
		if (ret >= 1)
			snode_mem_iter_free(mi);
		else if (ret >= 0)
			w->bad_dev++;	/* our own allocation is missing */
		DEV_CALL(snode_mem_free(mem));
	}
	DEV_CALL(snode_ep_new(dev, SNODE_EP_ANY, 0, SNODE_EP_RANDOM_KEY, 0,
			      &ep));
	if (ret >= 0) {
		DEV_CALL(snode_msg_list(dev, SNODE_MSG_LIST_ENDPOINTS,
					sizeof(struct snode_msg_entry), &gi));
		if (ret >= 1)
			snode_msg_iter_free(gi);
		else if (ret >= 0)
			w->bad_dev++;
		DEV_CALL(snode_ep_free(ep));
	}
	DEV_CALL(snode_window_list(w->ctx, snode_dev_get_index(dev),
				   sizeof(struct snode_window_info),
				   &windows));
	if (ret >= 0)
		snode_window_iter_free(windows);
#undef DEV_CALL
}

static void *work(void *arg)
{
	struct worker *w = arg;
	struct snode_dev *dev;
	int i;

	pthread_barrier_wait(w->start);
	for (i = 0; i < LOOPS; i++) {
		struct snode_link_iter *links;
		struct snode_node_iter *nodes;
		int ret;

		snode_ref(w->ctx);
		snode_set_log_priority(w->ctx, i & 1 ? LOG_ERR : LOG_CRIT);
		snode_dev_foreach(w->ctx, dev) {
			int idx = snode_dev_get_index(dev);
			int fd = snode_dev_get_fd(dev);

			if (idx > 1)
				continue;
			if (w->fds[idx] < 0)
				w->fds[idx] = fd;
			else if (w->fds[idx] != fd)
				w->bad_fd++;
			if (real_device)
				work_device(w, dev);
		}
		if (i % 10 == 0) {
			/* no snode family on the host; with it, a count */
			ret = snode_link_list(w->ctx, -1,
					      sizeof(struct snode_link_info),
					      &links);
			if (ret >= 0)
				snode_link_iter_free(links);
			if (ret < 0 &&
			    (real_device || ret != -EPROTONOSUPPORT))
				w->bad_nl++, w->nl_err = ret;
			ret = snode_node_list(w->ctx, -1,
					      sizeof(struct snode_node_info),
					      &nodes);
			if (ret >= 0)
				snode_node_iter_free(nodes);
			if (ret < 0 &&
			    (real_device || ret != -EPROTONOSUPPORT))
				w->bad_nl++, w->nl_err = ret;
		}
		snode_unref(w->ctx);
	}
	return NULL;
}

static void test_threads(void)
{
	int r, i, ret, bad_fd = 0, bad_nl = 0, nl_err = 0, leaks = 0, left = 0;
	int bad_dev = 0, dev_err = 0, ndevs = 0, rounds = real_device ? 4 : ROUNDS;
	struct snode_dev *dev;
	struct worker w[THREADS];
	pthread_barrier_t start;
	struct snode_ctx *ctx;
	char why[128];

	for (r = 0; r < rounds; r++) {
		ret = snode_new(&ctx);
		if (ret < 0) {
			tap(0, "threads: snode_new", strerror(-ret));
			return;
		}
		ndevs = 0;
		snode_dev_foreach(ctx, dev)
			ndevs += snode_dev_get_index(dev) < 2;
		pthread_barrier_init(&start, NULL, THREADS);
		for (i = 0; i < THREADS; i++) {
			w[i] = (struct worker){ .ctx = ctx, .start = &start,
						.fds = { -1, -1 } };
			if (pthread_create(&w[i].thread, NULL, work, &w[i])) {
				tap(0, "threads: pthread_create", NULL);
				exit(1);
			}
		}
		for (i = 0; i < THREADS; i++) {
			pthread_join(w[i].thread, NULL);
			bad_fd += w[i].bad_fd;
			bad_nl += w[i].bad_nl;
			bad_dev += w[i].bad_dev;
			if (w[i].nl_err)
				nl_err = w[i].nl_err;
			if (w[i].dev_err)
				dev_err = w[i].dev_err;
			if (w[i].fds[0] < 0 || (ndevs > 1 && w[i].fds[1] < 0) ||
			    w[i].fds[0] != w[0].fds[0] ||
			    w[i].fds[1] != w[0].fds[1])
				bad_fd++;
		}
		pthread_barrier_destroy(&start);
		leaks += count_dev_fds() != ndevs;
		/* every thread's references are gone: this is the last one */
		snode_unref(ctx);
		left += count_dev_fds() != 0;
	}

	snprintf(why, sizeof(why), "%d threads saw another descriptor", bad_fd);
	tap(!bad_fd, "threads: one descriptor per device", bad_fd ? why : NULL);
	snprintf(why, sizeof(why), "%d of %d rounds left other than %d open",
		 leaks, rounds, ndevs);
	tap(!leaks, "threads: first-use open races leak nothing",
	    leaks ? why : NULL);
	snprintf(why, sizeof(why), "%d netlink results not a count or EPROTONOSUPPORT, last %s",
		 bad_nl, strerror(-nl_err));
	tap(!bad_nl, "threads: netlink requests on one context",
	    bad_nl ? why : NULL);
	tap(!left, "threads: last unref closes the devices",
	    left ? "descriptors left open" : NULL);
	if (real_device) {
		snprintf(why, sizeof(why), "%d calls failed, last %s", bad_dev,
			 strerror(-dev_err));
		tap(!bad_dev, "threads: ioctls, allocations and endpoints on one device descriptor",
		    bad_dev ? why : NULL);
	}
}

/* A call that fills a struct never writes past the size it was given. */
static void test_sized(void)
{
	unsigned char buf[sizeof(struct snode_info) + 64];
	struct snode_ctx *ctx;
	struct snode_dev *dev;
	size_t i, small = 8;
	int ret, past = 0, zeroed = 1;

	if (snode_new(&ctx) < 0 || !(dev = snode_dev_get_first(ctx))) {
		tap(0, "sized: a device", NULL);
		return;
	}
	memset(buf, 0xaa, sizeof(buf));
	/* a regular file: the ioctl fails with ENOTTY, after the zeroing */
	ret = snode_dev_get_info(dev, (struct snode_info *)buf, small);
	for (i = small; i < sizeof(buf); i++)
		past += buf[i] != 0xaa;
	for (i = sizeof(uint32_t); i < small; i++)
		zeroed &= buf[i] == 0;
	tap(ret == -ENOTTY && !past && zeroed &&
	    *(uint32_t *)buf == small,
	    "sized: snode_dev_get_info() stays within the caller's size",
	    past ? "wrote past it" : NULL);
	ret = snode_dev_get_info(dev, (struct snode_info *)buf, 2);
	tap(ret == -EINVAL, "sized: a size without room for size is EINVAL",
	    NULL);
	snode_unref(ctx);
}

static void test_userdata(void)
{
	struct snode_ctx *ctx;
	int x;

	if (snode_new(&ctx) < 0) {
		tap(0, "userdata", NULL);
		return;
	}
	tap(!snode_get_userdata(ctx), "userdata: NULL at first", NULL);
	snode_set_userdata(ctx, &x);
	tap(snode_get_userdata(ctx) == &x, "userdata: set and got", NULL);
	snode_unref(ctx);
}

int main(int argc, char **argv)
{
	real_device = argc > 1 && !strcmp(argv[1], "--device");
	if (real_device) {
		/* the host's NICs, as a program sees them */
		strcpy(devdir, "/dev/snode");
		printf("TAP version 13\n1..5\n");
		alarm(300);
		test_threads();
		return failed ? 1 : 0;
	}
	printf("TAP version 13\n1..8\n");
	if (setup()) {
		perror("setup");
		cleanup();
		printf("Bail out! no temporary directory\n");
		return 1;
	}
	alarm(120);	/* a deadlock fails instead of hanging the suite */
	test_threads();
	test_sized();
	test_userdata();
	cleanup();
	return failed ? 1 : 0;
}
