// SPDX-License-Identifier: GPL-2.0
/*
 * maprace - MMIO on one vCPU while the other changes the memory map.
 *
 * A reader thread on CPU 1 keeps loading a read-only register (the snode
 * NIC's MAGIC, BAR0 offset 0) through a sysfs mapping of the BAR. A writer
 * thread on CPU 0 moves another PCI device's 32-bit BAR back and forth
 * across the NIC's BAR0 in the guest-physical address space (config-space
 * writes through sysfs), so every move changes the memory map and the
 * position of BAR0 among the map's regions. Every load must return MAGIC.
 *
 * QEMU 7.2 switched the reader's vCPU to the new map at once and flushed
 * its TLB only later: a load in between looked its old TLB entry up in the
 * new map and read another region (or crashed QEMU). Decision 0042's
 * addendum, tools/emu/qemu/patches/0002-tcg-commit-on-the-vcpu.patch.
 *
 * Usage: maprace NIC_BDF MOVE_BDF MOVE_BAR ALT_ADDR MOVES
 * Prints "maprace: M moves, R loads, W wrong" (and the first wrong value);
 * exit 0 when W is 0 and the reader ran during the moves.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define MAGIC 0x534e4f44u

static volatile uint32_t *regs;
static volatile int started, stop;
static volatile unsigned long loads;
static unsigned long wrong;
static uint32_t first_wrong;

static int pin(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *reader(void *arg)
{
	(void)arg;
	if (pin(1)) {
		fprintf(stderr, "maprace: cannot run on CPU 1\n");
		exit(2);
	}
	started = 1;
	while (!stop) {
		uint32_t v[16];
		int i;

		/* one straight run of loads: one translation block */
		v[0] = regs[0]; v[1] = regs[0]; v[2] = regs[0]; v[3] = regs[0];
		v[4] = regs[0]; v[5] = regs[0]; v[6] = regs[0]; v[7] = regs[0];
		v[8] = regs[0]; v[9] = regs[0]; v[10] = regs[0]; v[11] = regs[0];
		v[12] = regs[0]; v[13] = regs[0]; v[14] = regs[0]; v[15] = regs[0];
		for (i = 0; i < 16; i++) {
			if (v[i] != MAGIC) {
				if (!wrong)
					first_wrong = v[i];
				wrong++;
			}
		}
		loads += 16;
	}
	return NULL;
}

static int cfg_rw(int fd, int write, off_t off, uint32_t *val)
{
	ssize_t r = write ? pwrite(fd, val, 4, off) : pread(fd, val, 4, off);

	return r == 4 ? 0 : -1;
}

int main(int argc, char **argv)
{
	unsigned long bar, moves, m;
	uint32_t orig, alt, cmd;
	unsigned long before, during;
	char path[256];
	pthread_t thr;
	off_t off;
	int fd, cfg;

	if (argc != 6) {
		fprintf(stderr,
			"usage: %s NIC_BDF MOVE_BDF MOVE_BAR ALT_ADDR MOVES\n",
			argv[0]);
		return 2;
	}
	bar = strtoul(argv[3], NULL, 0);
	alt = (uint32_t)strtoul(argv[4], NULL, 0);
	moves = strtoul(argv[5], NULL, 0);
	if (bar > 5 || !moves || (alt & 0xfff)) {
		fprintf(stderr, "maprace: bad BAR, address or count\n");
		return 2;
	}
	if (sysconf(_SC_NPROCESSORS_ONLN) < 2) {
		fprintf(stderr, "maprace: needs CPUs 0 and 1\n");
		return 2;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0",
		 argv[1]);
	fd = open(path, O_RDONLY | O_SYNC);
	if (fd < 0) {
		fprintf(stderr, "maprace: %s: %s\n", path, strerror(errno));
		return 1;
	}
	regs = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, 0);
	if (regs == MAP_FAILED) {
		fprintf(stderr, "maprace: mmap %s: %s\n", path, strerror(errno));
		return 1;
	}
	if (regs[0] != MAGIC) {
		fprintf(stderr, "maprace: %s reads 0x%08x, not MAGIC\n", path,
			regs[0]);
		return 1;
	}
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/config", argv[2]);
	cfg = open(path, O_RDWR);
	off = 0x10 + 4 * bar;
	if (cfg < 0 || cfg_rw(cfg, 0, off, &orig) || cfg_rw(cfg, 0, 4, &cmd)) {
		fprintf(stderr, "maprace: %s: %s\n", path, strerror(errno));
		return 1;
	}
	if ((orig & 0x7) != 0 || !(cmd & 0x2)) {
		fprintf(stderr,
			"maprace: BAR %lu of %s is not a decoded 32-bit memory BAR (0x%08x, command 0x%04x)\n",
			bar, argv[2], orig, cmd & 0xffff);
		return 1;
	}
	alt |= orig & 0xf;
	if (pin(0)) {
		fprintf(stderr, "maprace: cannot run on CPU 0\n");
		return 2;
	}
	if (pthread_create(&thr, NULL, reader, NULL))
		return 1;
	while (!started)
		;
	before = loads;
	for (m = 0; m < moves; m++) {
		uint32_t v = m & 1 ? orig : alt;

		if (cfg_rw(cfg, 1, off, &v)) {
			fprintf(stderr, "maprace: config write: %s\n",
				strerror(errno));
			break;
		}
	}
	if (moves & 1)
		cfg_rw(cfg, 1, off, &orig);
	during = loads - before;
	stop = 1;
	pthread_join(thr, NULL);
	printf("maprace: %lu moves, %lu loads, %lu wrong", m, loads, wrong);
	if (wrong)
		printf(" (first 0x%08x)", first_wrong);
	printf("\n");
	if (m != moves)
		return 1;
	if (!during) {
		fprintf(stderr, "maprace: the reader made no load during the moves\n");
		return 1;
	}
	return wrong ? 1 : 0;
}
