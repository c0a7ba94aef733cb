// SPDX-License-Identifier: GPL-2.0
/*
 * fail-nth sweep of the driver's probe: every allocation and admin command
 * a bind of the NIC makes fails once, in turn (selftests/fail_nth.h).
 *
 * Runs as root in a guest of the debug kernel with snode.ko loaded and
 * snode0 bound; leaves it bound. SKIP without fault injection.
 * PROBE_NTH_STRIDE=K in the environment tries only every K-th fault point
 * (1, 1+K, 1+2K, ...) for a quicker sample, PROBE_NTH_START=N starts at
 * the N-th (to look at one again); each n is logged to the kernel log
 * first, so a console shows where a sweep that hangs stopped; each failed probe under the
 * debug kernel costs seconds (its teardown unmaps BARs that DEBUG_OBJECTS
 * scans page by page).
 *
 * Only faults that snode.ko's own calls reach are injected: the fault
 * attributes' require range is snode.ko's text and their stack depth
 * PROBE_NTH_DEPTH frames (default 8; CONFIG_FAULT_INJECTION_STACKTRACE_FILTER),
 * so an allocation of the driver, or the first ones of a kernel function it
 * calls, fail; an allocation deep inside the kernel's own subsystems does
 * not. Injected there, the sweep found the kernel's bugs rather than the
 * driver's, on 6.12.118: ACPICA's _PRT evaluation leaves a freed namespace
 * object that a later unbind reads (KASAN slab-use-after-free in
 * acpi_ns_get_attached_object), and a failed /proc/irq/N registration
 * makes the unbind warn in remove_proc_entry().
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <linux/snode.h>

#include "kselftest_harness.h"
#include "snode_test.h"
#include "fail_nth.h"

#define SNODE_DRV	"/sys/bus/pci/drivers/snode/"
#define PROBE_MAX_NTH	20000

/* Whether anything of a bound snode0 is left: -1 if so, naming it. */
static int probe_leftover(char *what, size_t len)
{
	static const char *const paths[] = {
		"/sys/class/snode/snode0", "/dev/snode0", "/sys/class/net/snode0",
	};
	size_t i;

	for (i = 0; i < sizeof(paths) / sizeof(paths[0]); i++)
		if (!access(paths[i], F_OK)) {
			snprintf(what, len, "%s", paths[i]);
			return -1;
		}
	return 0;
}

/*
 * snode.ko's text in /proc/kallsyms (root sees the addresses): from its
 * first text symbol to 64 KiB past its last one, as the last function's
 * length is not listed (no other module is loaded in the emulated node).
 */
static int snode_text(uint64_t *start, uint64_t *end)
{
	char line[512], type, name[256];
	uint64_t addr, lo = UINT64_MAX, hi = 0;
	FILE *f = fopen("/proc/kallsyms", "re");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%" SCNx64 " %c %255s", &addr, &type, name) != 3 ||
		    (type != 't' && type != 'T') || !strstr(line, "[snode]"))
			continue;
		if (addr < lo)
			lo = addr;
		if (addr > hi)
			hi = addr;
	}
	fclose(f);
	if (!hi || !lo)		/* none, or addresses hidden (zeros) */
		return -ENOENT;
	*start = lo;
	*end = hi + 0x10000;
	return 0;
}

/*
 * Inject only where one of the innermost @depth frames lies in
 * [start, end); with depth 0 everywhere again (the defaults).
 */
static int faults_require(uint64_t start, uint64_t end, unsigned int depth)
{
	static const char *const dirs[] = { FAILSLAB, FAIL_PAGE };
	static const char *const knobs[] = {
		"require-start", "require-end", "stacktrace-depth",
	};
	char path[128], val[3][32];
	size_t i, k;
	int ret;

	snprintf(val[0], sizeof(val[0]), "0x%" PRIx64, depth ? start : 0);
	snprintf(val[1], sizeof(val[1]), "0x%" PRIx64, depth ? end : UINT64_MAX);
	snprintf(val[2], sizeof(val[2]), "%u", depth ? depth : 32);
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++)
		for (k = 0; k < sizeof(knobs) / sizeof(knobs[0]); k++) {
			snprintf(path, sizeof(path), "%s%s", dirs[i], knobs[k]);
			ret = write_file(path, val[k]);
			if (ret)
				return ret;
		}
	return 0;
}

/*
 * A line in the kernel log, before the kernel's own about the same n; the
 * log is only a help, so a failed write is ignored.
 */
static void kmsg(const char *fmt, unsigned int n)
{
	char buf[96];

	snprintf(buf, sizeof(buf), fmt, n);
	write_file("/dev/kmsg", buf);
}

/*
 * The console log scanner (tools/testing/log-scan.sh) takes the allocator's
 * warnings between these two lines for what they are: the faults injected.
 */
#define SWEEP_BEGIN	"snode fault sweep: begin (probe_nth_test)\n"
#define SWEEP_END	"snode fault sweep: end (probe_nth_test)\n"

/* Write @bdf to the driver's @file (bind or unbind): 0 or -errno. */
static int probe_write(int fd, const char *bdf)
{
	ssize_t len = strlen(bdf);

	return pwrite(fd, bdf, len, 0) == len ? 0 : -errno;
}

FIXTURE(probe) {
	char bdf[64];
	int bind, unbind;
	bool filtered;
};

FIXTURE_SETUP(probe)
{
	self->bind = self->unbind = -1;
	if (access("/proc/self/fail-nth", F_OK))
		SKIP(return, "no fault injection in this kernel (the debug kernel has it)");
	if (access(FAIL_ADMIN, F_OK))
		SKIP(return, "no %s (snode.ko without CONFIG_FAULT_INJECTION_DEBUG_FS)",
		     FAIL_ADMIN);
	ASSERT_EQ(0, snode_bdf(0, self->bdf, sizeof(self->bdf)));
	ASSERT_EQ(0, faults_setup(_metadata));
	if (access(FAILSLAB "require-start", F_OK))
		SKIP(return, "no require range in %s (CONFIG_FAULT_INJECTION_STACKTRACE_FILTER): the sweep would test the kernel's subsystems, not the driver",
		     FAILSLAB);
	{
		const char *env = getenv("PROBE_NTH_DEPTH");
		unsigned int depth = env ? strtoul(env, NULL, 10) : 8;
		uint64_t start, end;

		ASSERT_EQ(0, snode_text(&start, &end))
			TH_LOG("snode.ko's text not found in /proc/kallsyms");
		ASSERT_LT(0, depth);
		ASSERT_EQ(0, faults_require(start, end, depth));
		self->filtered = true;
		TH_LOG("faults within %u frames of snode.ko (0x%" PRIx64 "-0x%" PRIx64 ")",
		       depth, start, end);
	}
	if (nth_fd < 0)
		nth_fd = open("/proc/thread-self/fail-nth", O_RDWR);
	ASSERT_LE(0, nth_fd);
	/* opening allocates: open both before any fault is armed */
	self->bind = open(SNODE_DRV "bind", O_WRONLY);
	self->unbind = open(SNODE_DRV "unbind", O_WRONLY);
	ASSERT_LE(0, self->bind);
	ASSERT_LE(0, self->unbind);
	ASSERT_EQ(0, probe_write(self->unbind, self->bdf));
}

FIXTURE_TEARDOWN(probe)
{
	char path[128];

	if (self->filtered)
		faults_require(0, 0, 0);
	write_file("/dev/kmsg", SWEEP_END);
	if (self->bind < 0)
		return;
	/* leave the NIC bound for whatever runs next */
	snprintf(path, sizeof(path), SNODE_DRV "%s", self->bdf);
	if (access(path, F_OK))
		probe_write(self->bind, self->bdf);
	close(self->bind);
	close(self->unbind);
}

/*
 * Probe under fault injection: with snode0's NIC unbound, bind it with the
 * n-th fault point the binding thread reaches failing (allocations and
 * admin commands), n = 1, 2, ... until a bind reaches no fault. A bind that
 * hit its fault either fails with a clean errno and leaves nothing behind
 * (no snode class device, character device or network interface), or
 * succeeds because the driver tolerates that failure, and is unbound again.
 * Afterwards the NIC binds as snode0 again (an index leaked by a failed
 * probe would make it snode1) and answers. kmemleak and KASAN judge the
 * error paths' frees.
 */
TEST_F_TIMEOUT(probe, sweep, 2400)
{
	const char *env = getenv("PROBE_NTH_STRIDE"), *first = getenv("PROBE_NTH_START");
	unsigned int n, hits = 0, tolerated = 0, stride = 1, errs[128] = { 0 };
	struct snode_info info = { .size = sizeof(info) };
	uint64_t t0 = now_ms();
	char what[64];
	int ret, hit, fd;

	if (snode_test_skipped(_metadata))
		return;
	if (env)
		stride = strtoul(env, NULL, 10) ?: 1;
	write_file("/dev/kmsg", SWEEP_BEGIN);
	for (n = first ? strtoul(first, NULL, 10) ?: 1 : 1; n <= PROBE_MAX_NTH; n += stride) {
		kmsg("probe_nth_test: bind with fault point %u failing\n", n);
		nth_arm(n);
		ret = probe_write(self->bind, self->bdf);
		hit = nth_disarm();
		if (!hit) {
			EXPECT_EQ(0, ret) TH_LOG("n=%u: bind without a fault: %s",
						 n, strerror(-ret));
			break;
		}
		hits++;
		if (!ret) {
			tolerated++;
			ASSERT_EQ(0, probe_write(self->unbind, self->bdf))
				TH_LOG("n=%u: unbind after a tolerated fault", n);
		} else {
			/*
			 * Any errno: the kernel's APIs answer a failed
			 * allocation in their own words (the PCI core:
			 * EBUSY for a BAR's region, EINVAL for its
			 * mapping). What matters is that nothing is left
			 * and the next bind works; kmemleak and KASAN
			 * judge the frees.
			 */
			errs[-ret < 128 ? -ret : 0]++;
		}
		EXPECT_EQ(0, probe_leftover(what, sizeof(what)))
			TH_LOG("n=%u (%s): %s left behind", n,
			       ret ? strerror(-ret) : "tolerated", what);
		if (!snode_test_passed(_metadata))
			break;
	}
	ASSERT_GT(PROBE_MAX_NTH + 1, n) TH_LOG("still failing after %u faults",
					      PROBE_MAX_NTH);
	ASSERT_EQ(0, access("/sys/class/snode/snode0", F_OK))
		TH_LOG("the NIC bound again under another name");
	fd = open("/dev/snode0", O_RDWR);
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, ioctl(fd, SNODE_IOCTL_INFO, &info));
	close(fd);
	for (n = 0; n < 128; n++)
		if (errs[n])
			TH_LOG("%u failed bind(s) with %s", errs[n],
			       n ? strerror(n) : "an errno above 127");
	TH_LOG("%u fault(s) injected in probe, every %u%s point (%u tolerated), then the bind succeeded (%llu ms)",
	       hits, stride, stride == 1 ? "st" : "th", tolerated,
	       (unsigned long long)(now_ms() - t0));
}

TEST_HARNESS_MAIN
