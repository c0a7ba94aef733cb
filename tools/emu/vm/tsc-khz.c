// SPDX-License-Identifier: GPL-2.0
/*
 * tsc-khz - print the host's TSC frequency in kHz for the guests' command
 * line (tsc_early_khz=), or nothing and exit status 1 if it cannot be
 * measured well.
 *
 * Under TCG a guest's RDTSC reads the host's TSC (QEMU 7.2: cpu_get_ticks()
 * is the host's tick counter unless icount is on), so the host's frequency
 * is the guest's. A guest calibrates it at boot against the emulated PIT;
 * on a loaded host that calibration can fail or come out wrong ("tsc:
 * Unable to calibrate against PIT" once left a guest's clock running about
 * five times fast), and every timeout inside the guest with it. Given
 * tsc_early_khz the kernel skips that calibration.
 *
 * Method: TSC against CLOCK_MONOTONIC_RAW over 20 ms, five times. Each end
 * is a TSC read between two clock reads less than 20 us apart, so a
 * preemption between them cannot skew it; the median of the five is
 * printed if they agree within 0.1 %. Only with a constant, non-stop TSC
 * (the host CPU's flags): otherwise the rate is not one number.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TRIES		5
#define SPAN_NS		20000000LL
#define BRACKET_NS	20000LL
#define AGREE		1000	/* 1/1000 of the median */

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* A TSC read and the time it was taken, to within BRACKET_NS. */
static int stamp(uint64_t *tsc, long long *ns)
{
	int i;

	for (i = 0; i < 100; i++) {
		long long a = now_ns();
		uint64_t t = rdtsc();
		long long b = now_ns();

		if (b - a < BRACKET_NS) {
			*tsc = t;
			*ns = a + (b - a) / 2;
			return 0;
		}
	}
	return -1;
}

/* Whether /proc/cpuinfo's first flags line has both flags. */
static int constant_tsc(void)
{
	char line[8192];
	int ok = 0;
	FILE *f = fopen("/proc/cpuinfo", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f)) {
		if (strncmp(line, "flags", 5))
			continue;
		ok = strstr(line, " constant_tsc") && strstr(line, " nonstop_tsc");
		break;
	}
	fclose(f);
	return ok;
}

static int cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return (x > y) - (x < y);
}

int main(void)
{
	struct timespec span = { 0, SPAN_NS };
	long long khz[TRIES], med;
	int i;

	if (!constant_tsc())
		return 1;
	for (i = 0; i < TRIES; i++) {
		uint64_t t0, t1;
		long long n0, n1;

		if (stamp(&t0, &n0))
			return 1;
		nanosleep(&span, NULL);
		if (stamp(&t1, &n1) || n1 <= n0)
			return 1;
		khz[i] = (long long)((t1 - t0) * 1000000.0 / (n1 - n0) + 0.5);
	}
	qsort(khz, TRIES, sizeof(khz[0]), cmp);
	med = khz[TRIES / 2];
	if (med <= 0 || (khz[TRIES - 1] - khz[0]) * AGREE > med)
		return 1;
	printf("%lld\n", med);
	return 0;
}
