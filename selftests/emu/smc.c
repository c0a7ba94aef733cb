// SPDX-License-Identifier: GPL-2.0
/*
 * smc - cross-modifying code between two vCPUs, as the x86 protocol allows
 * it: a writer on CPU 0 patches the immediate of "mov $imm, %eax; ret" in a
 * page it also maps executable, serialises every CPU of the process with
 * membarrier(SYNC_CORE) and then publishes the new value; a reader on CPU 1,
 * which kept calling the function all along, must get the new value from
 * then on. Under QEMU 7.2's MTTCG it did not (decision 0042): a translation
 * that read the old bytes was made visible after the store.
 *
 * Usage: smc [PATCHES]    (default 20000)
 * Exit status: 0 every patch seen, 1 a stale execution, 2 cannot run here
 * (fewer than two CPUs, no membarrier SYNC_CORE).
 */
#define _GNU_SOURCE
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#define FN_OFFSET 64	/* the function's place in the page */
#define IMM_VALUE(k) ((k) & 0x7fffffff)

static int (*fn)(void);
static atomic_long published;	/* the last patch made visible; -1: stop */
static atomic_long checked;	/* the last patch the reader checked */
static long stale;

static int membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static void *reader(void *arg)
{
	long k = 0;

	(void)arg;
	if (pin(1))
		abort();	/* checked in main() */
	for (;;) {
		/* keep executing the code while the writer patches it */
		while (atomic_load(&published) == k)
			fn();
		k = atomic_load(&published);
		if (k < 0)
			return NULL;
		int got = fn();
		if (got != IMM_VALUE(k) && stale++ < 5)
			fprintf(stderr, "smc: patch %ld: executed the old code (%d, want %ld)\n",
				k, got, IMM_VALUE(k));
		atomic_store(&checked, k);
	}
}

int main(int argc, char **argv)
{
	/* mov $0, %eax; ret */
	static const unsigned char code[] = { 0xb8, 0, 0, 0, 0, 0xc3 };
	long patches = argc > 1 ? atol(argv[1]) : 20000, k;
	unsigned char *rw, *rx;
	pthread_t thread;
	int fd;

	if (pin(1) || pin(0)) {
		printf("smc: needs CPUs 0 and 1 online\n");
		return 2;
	}
	if (membarrier(MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED_SYNC_CORE)) {
		perror("smc: membarrier SYNC_CORE");
		return 2;
	}
	fd = memfd_create("smc", 0);
	if (fd < 0 || ftruncate(fd, 4096)) {
		perror("smc: memfd");
		return 2;
	}
	rw = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	rx = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_SHARED, fd, 0);
	if (rw == MAP_FAILED || rx == MAP_FAILED) {
		perror("smc: mmap");
		return 2;
	}
	memcpy(rw + FN_OFFSET, code, sizeof(code));
	fn = (int (*)(void))(rx + FN_OFFSET);
	if (pthread_create(&thread, NULL, reader, NULL)) {
		fprintf(stderr, "smc: cannot start the reader\n");
		return 2;
	}
	for (k = 1; k <= patches; k++) {
		int v = IMM_VALUE(k);

		/* an unaligned 4-byte store: byte by byte in QEMU's slow path */
		memcpy(rw + FN_OFFSET + 1, &v, sizeof(v));
		membarrier(MEMBARRIER_CMD_PRIVATE_EXPEDITED_SYNC_CORE);
		atomic_store(&published, k);
		while (atomic_load(&checked) != k)
			;
	}
	atomic_store(&published, -1);
	pthread_join(thread, NULL);
	printf("smc: %ld patches, %ld executed stale\n", patches, stale);
	return stale ? 1 : 0;
}
