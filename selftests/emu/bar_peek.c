// SPDX-License-Identifier: GPL-2.0
/*
 * bar_peek - read 32-bit words of an snode NIC's BARs through sysfs.
 *
 * Used by the emulator test before (and independently of) the driver: it
 * maps /sys/bus/pci/devices/BDF/resourceBAR and prints each requested word
 * as "0xOFFSET 0xVALUE", so the test can compare registers and the aperture
 * with the hardware contract in Documentation/hw/snode-nic.rst.
 *
 * Usage: bar_peek BDF BAR OFFSET...
 */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>


int main(int argc, char **argv)
{
	volatile uint32_t *regs;
	unsigned long bar;
	char path[256];
	struct stat st;
	int fd, i;

	if (argc < 4) {
		fprintf(stderr, "usage: %s BDF BAR OFFSET...\n", argv[0]);
		return 2;
	}
	bar = strtoul(argv[2], NULL, 0);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource%lu",
		 argv[1], bar);
	fd = open(path, O_RDONLY | O_SYNC);
	if (fd < 0 || fstat(fd, &st) < 0) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return 1;
	}
	regs = mmap(NULL, st.st_size, PROT_READ, MAP_SHARED, fd, 0);
	if (regs == MAP_FAILED) {
		fprintf(stderr, "mmap %s: %s\n", path, strerror(errno));
		return 1;
	}
	for (i = 3; i < argc; i++) {
		char *end;
		unsigned long off = strtoul(argv[i], &end, 0);

		if (*end || off >= (unsigned long)st.st_size || off % 4) {
			fprintf(stderr, "bad offset '%s'\n", argv[i]);
			return 2;
		}
		printf("0x%03lx 0x%08x\n", off, regs[off / 4]);
	}
	return 0;
}
