/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The fault knobs the fail-nth sweeps share (fail_nth_test.c,
 * probe_nth_test.c): /proc/thread-self/fail-nth counts every fault point of
 * the calling thread (failslab, fail_page_alloc and snode's fail_admin),
 * made quiet and made to count GFP_KERNEL allocations too.
 */
#ifndef SNODE_FAIL_NTH_H
#define SNODE_FAIL_NTH_H

#include <stdlib.h>

#include "kselftest_harness.h"
#include "snode_test.h"

#define FAILSLAB	"/sys/kernel/debug/failslab/"
#define FAIL_PAGE	"/sys/kernel/debug/fail_page_alloc/"
#define FAIL_ADMIN	"/sys/kernel/debug/snode/fail_admin/"
#define FAIL_ADMIN_TIMEOUT "/sys/kernel/debug/snode/fail_admin_timeout"

/* ---- the fault knobs ------------------------------------------------------- */

static inline long read_long(const char *path)
{
	char buf[64];

	if (read_file(path, buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

/*
 * Quiet fault attributes that count every allocation of this thread: a
 * failure report would print a stack (and a "Call Trace:" the runners take
 * for a splat), and failslab/fail_page_alloc ignore GFP_KERNEL by default.
 */
static inline int faults_setup(struct __test_metadata *_metadata)
{
	static const char *const knobs[][2] = {
		{ FAILSLAB "ignore-gfp-wait", "N" },
		{ FAILSLAB "verbose", "0" },
		{ FAIL_PAGE "ignore-gfp-wait", "N" },
		{ FAIL_PAGE "ignore-gfp-highmem", "N" },
		{ FAIL_PAGE "min-order", "0" },
		{ FAIL_PAGE "verbose", "0" },
		{ FAIL_ADMIN "verbose", "0" },
		{ FAIL_ADMIN "probability", "0" },
		{ FAIL_ADMIN_TIMEOUT, "N" },
	};
	size_t i;
	int ret;

	for (i = 0; i < sizeof(knobs) / sizeof(knobs[0]); i++) {
		ret = write_file(knobs[i][0], knobs[i][1]);
		if (ret) {
			TH_LOG("%s: %s", knobs[i][0], strerror(-ret));
			return ret;
		}
	}
	return 0;
}

/* /proc/thread-self/fail-nth, opened once: opening it allocates. */
static int nth_fd = -1;

static inline void nth_arm(unsigned int n)
{
	char buf[16];
	int len = snprintf(buf, sizeof(buf), "%u", n);

	if (pwrite(nth_fd, buf, len, 0) != len)
		abort();
}

/* Disarm; returns whether the n-th fault point was reached (it failed). */
static inline int nth_disarm(void)
{
	char buf[16] = "";
	long left;

	if (pread(nth_fd, buf, sizeof(buf) - 1, 0) <= 0)
		abort();
	left = strtol(buf, NULL, 10);
	if (pwrite(nth_fd, "0", 1, 0) != 1)
		abort();
	return left == 0;
}

#endif /* SNODE_FAIL_NTH_H */
