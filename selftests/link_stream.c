// SPDX-License-Identifier: GPL-2.0
/*
 * link_stream: stream through a remote window while the fabric changes
 * under it, and check every byte.
 *
 *   link_stream NODE EXPORT KEY LENGTH SECONDS [READY_FILE [HOLD_SECONDS]]
 *
 * Imports LENGTH bytes of export EXPORT of NODE (key KEY, read-write) on
 * /dev/snode0, maps it, and for SECONDS (or until the window is revoked)
 * writes a pattern that changes every round through the window and reads
 * it back. Creates READY_FILE once the window is mapped, so that a driver
 * script knows when to inject faults. With HOLD_SECONDS, keeps the window
 * mapped and untouched that long after the stream (an idle window, for the
 * utilisation tests), then prints one line:
 *
 *   rounds R bytes B mismatches M state active|revoked reason N
 *
 * and exits 0 if no byte read back differed from what was written while
 * the window was active. A round that a revocation cuts short is not a
 * mismatch: the import's status tells the two apart.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/snode.h>

static sigjmp_buf bus_jmp;

static void on_sigbus(int sig)
{
	siglongjmp(bus_jmp, 1);
}

static int import_state(int fd, uint32_t *reason)
{
	struct snode_import_status st = { .size = sizeof(st) };

	if (ioctl(fd, SNODE_IOCTL_IMPORT_STATUS, &st))
		return -errno;
	*reason = st.out_reason;
	return st.out_state;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The device revokes a window before the driver hears of it (the
 * WINDOW_REVOKED event): an access in between hits the aperture hole, whose
 * reads return all-ones. Give the event a bounded time to arrive.
 */
static int import_state_settled(int fd, uint32_t *reason)
{
	double until = now() + 2.0;
	int state;

	while ((state = import_state(fd, reason)) == SNODE_WINDOW_STATE_ACTIVE &&
	       now() < until)
		usleep(1000);
	return state;
}

int main(int argc, char **argv)
{
	struct snode_mem_import imp = { .size = sizeof(imp) };
	volatile uint64_t rounds = 0, mismatches = 0;
	volatile uint64_t *win;
	uint32_t reason = 0;
	double deadline;
	uint64_t words, i;
	int dev, state;

	if (argc < 6) {
		fprintf(stderr, "usage: %s NODE EXPORT KEY LENGTH SECONDS [READY_FILE [HOLD_SECONDS]]\n",
			argv[0]);
		return 2;
	}
	imp.flags = SNODE_IMPORT_WRITE | SNODE_IMPORT_ZERO_PAGE_ON_REVOKE;
	imp.node = strtoul(argv[1], NULL, 0);
	imp.export_id = strtoul(argv[2], NULL, 0);
	imp.key = strtoull(argv[3], NULL, 0);
	imp.length = strtoull(argv[4], NULL, 0);
	deadline = now() + strtod(argv[5], NULL);
	words = imp.length / sizeof(uint64_t);

	dev = open("/dev/snode0", O_RDWR | O_CLOEXEC);
	if (dev < 0 || ioctl(dev, SNODE_IOCTL_MEM_IMPORT, &imp)) {
		perror("link_stream: import");
		return 2;
	}
	win = mmap(NULL, imp.length, PROT_READ | PROT_WRITE, MAP_SHARED,
		   imp.out_fd, 0);
	if (win == MAP_FAILED) {
		perror("link_stream: mmap");
		return 2;
	}
	if (argc > 6) {
		FILE *f = fopen(argv[6], "w");

		if (f) {
			fprintf(f, "ready epoch %u\n", imp.out_epoch);
			fclose(f);
		}
	}
	signal(SIGBUS, on_sigbus);

	if (sigsetjmp(bus_jmp, 1))
		goto out;	/* a store after the revocation */
	while (now() < deadline) {
		uint64_t bad = 0, foreign = 0;

		for (i = 0; i < words; i++)
			win[i] = (rounds << 40) ^ (i * 0x9e3779b97f4a7c15ULL);
		for (i = 0; i < words; i++) {
			uint64_t v = win[i];

			if (v == ((rounds << 40) ^ (i * 0x9e3779b97f4a7c15ULL)))
				continue;
			bad++;
			if (v != ~0ULL)
				foreign++;	/* neither our data nor a hole */
		}
		if (bad && import_state_settled(imp.out_fd, &reason) !=
			   SNODE_WINDOW_STATE_ACTIVE) {
			/*
			 * The revocation cut this round short: its reads are
			 * undefined to the application, which learns of the
			 * revocation from the import's status. They are
			 * all-ones (the hole) on hardware; in the emulator a
			 * thread that moves to a vCPU whose TLB flush is still
			 * pending can also read an older round's data.
			 */
			if (foreign)
				fprintf(stderr, "cut round: %llu of %llu words neither written nor all-ones\n",
					(unsigned long long)foreign,
					(unsigned long long)bad);
			break;
		}
		mismatches += bad;
		rounds++;
		if (import_state(imp.out_fd, &reason) != SNODE_WINDOW_STATE_ACTIVE)
			break;
	}
out:
	if (argc > 7)
		usleep(strtod(argv[7], NULL) * 1e6);
	state = import_state(imp.out_fd, &reason);
	printf("rounds %llu bytes %llu mismatches %llu state %s reason %u\n",
	       (unsigned long long)rounds,
	       (unsigned long long)(rounds * imp.length),
	       (unsigned long long)mismatches,
	       state == SNODE_WINDOW_STATE_ACTIVE ? "active" : "revoked", reason);
	return mismatches ? 1 : 0;
}
