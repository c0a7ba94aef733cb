// SPDX-License-Identifier: GPL-2.0
/*
 * mem_peer - the guest half of selftests/vm/mem.sh: small steps of global
 * memory that the host script strings together with fault injection in
 * the fabric manager between them.
 *
 *   mem_peer export KEY LEN [rw]
 *	allocate and export LEN bytes, filled with the sim pattern
 *	(word at pool offset o = node << 40 | o); print the handle, then
 *	wait for SIGTERM
 *   mem_peer hold NODE ID KEY LEN [rw] [zero] [TIMEOUT_S]
 *	import and map the handle, check it, print "mapped"; wait up to
 *	TIMEOUT_S (default 60) for the revocation; print
 *	"revoked reason R state S", then what a load and a store through
 *	the old mapping do: "load sigbus|zero|ok", "store sigbus|segv|ok"
 *   mem_peer check NODE ID KEY LEN
 *	import, map and check the sim pattern at the first and last word
 *	and at random words; print "pattern ok"
 *   mem_peer scale FIRST LAST ID KEY LEN
 *	import export ID of every node FIRST..LAST, check each one's pattern,
 *	then import one more and expect ENOSPC; print "scale N ok" and
 *	"full ENOSPC"
 *   mem_peer hbench LEN malloc|huge
 *	measure a host export of LEN bytes of this process's memory: the
 *	export (pin) and import (map, first touch) times, then reading and
 *	writing it through the window against the same memory directly;
 *	print "hbench KIND LEN export_ms E import_ms I read_win MBs ..."
 *   mem_peer stat
 *	print the pool size and free bytes and the import, export and ATT
 *	counts: "pool SIZE free FREE imports I exports E att A"
 *
 * Exit status 0 when the step did what it says, 1 otherwise.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include <linux/snode.h>

#include "snode_utils.h"
#include "snode_nl.h"

#define SNODE_DEV	"/dev/snode0"

static int dev_fd;

static void die(const char *what)
{
	printf("error %s: %s\n", what, strerror(errno));
	exit(1);
}

/* A number, with an optional K, M or G suffix. */
static uint64_t num(const char *s)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'G':
		v <<= 10;
		/* fall through */
	case 'M':
		v <<= 10;
		/* fall through */
	case 'K':
		v <<= 10;
	}
	return v;
}

static sigjmp_buf probe_jmp;

static void probe_handler(int sig)
{
	siglongjmp(probe_jmp, sig);
}

/* "ok", "sigbus" or "segv" for one access; *val is loaded or stored */
static const char *probe(volatile uint64_t *p, bool store, uint64_t *val)
{
	struct sigaction sa = { .sa_handler = probe_handler };
	int sig;

	sigaction(SIGBUS, &sa, NULL);
	sigaction(SIGSEGV, &sa, NULL);
	sig = sigsetjmp(probe_jmp, 1);
	if (!sig) {
		if (store)
			*p = *val;
		else
			*val = *p;
	}
	signal(SIGBUS, SIG_DFL);
	signal(SIGSEGV, SIG_DFL);
	return sig == SIGBUS ? "sigbus" : sig == SIGSEGV ? "segv" : "ok";
}

static int import(uint32_t node, uint32_t id, uint64_t key, uint64_t len,
		  uint32_t flags)
{
	int fd = sn_import(dev_fd, flags, node, id, key, 0, len);

	return fd < 0 ? -errno : fd;
}

/* Check the sim pattern of a window at export offset 0; 0 if it holds. */
static int check_pattern(volatile uint64_t *w, uint32_t node, uint64_t len)
{
	uint64_t words = len / 8, i, o;

	for (i = 0; i < 64; i++) {
		o = i == 0 ? 0 : i == 1 ? words - 1 : random() % words;
		if (w[o] != ((uint64_t)node << 40 | o * 8)) {
			printf("pattern bad: node %u word %llu: 0x%llx\n", node,
			       (unsigned long long)o,
			       (unsigned long long)w[o]);
			return -1;
		}
	}
	return 0;
}

static int cmd_export(int argc, char **argv)
{
	struct snode_mem_export exp = { .size = sizeof(exp) };
	struct snode_mem_alloc alloc = { .size = sizeof(alloc) };
	struct snode_info info = { .size = sizeof(info) };
	uint64_t *p, i;

	if (argc < 2)
		return 2;
	if (ioctl(dev_fd, SNODE_IOCTL_INFO, &info))
		die("info");
	alloc.length = num(argv[1]);
	if (ioctl(dev_fd, SNODE_IOCTL_MEM_ALLOC, &alloc))
		die("alloc");
	p = mmap(NULL, alloc.length, PROT_READ | PROT_WRITE, MAP_SHARED,
		 dev_fd, alloc.out_offset);
	if (p == MAP_FAILED)
		die("mmap");
	for (i = 0; i < alloc.length / 8; i++)
		p[i] = (uint64_t)info.out_node_id << 40 | (alloc.out_offset + i * 8);
	exp.alloc = alloc.out_offset;
	exp.length = alloc.length;
	exp.key = num(argv[0]);
	if (argc > 2 && !strcmp(argv[2], "rw"))
		exp.flags |= SNODE_EXPORT_WRITE;
	if (ioctl(dev_fd, SNODE_IOCTL_MEM_EXPORT, &exp))
		die("export");
	printf("export node %u id %u key 0x%llx pool 0x%llx\n", exp.out_node,
	       exp.out_export_id, (unsigned long long)exp.out_key,
	       (unsigned long long)alloc.out_offset);
	fflush(stdout);
	for (;;)
		pause();
}

static int cmd_hold(int argc, char **argv)
{
	struct snode_import_status st = { .size = sizeof(st) };
	uint32_t flags = 0;
	int timeout = 60, fd, i;
	struct pollfd pfd;
	uint64_t len, val;
	volatile uint64_t *w;

	if (argc < 4)
		return 2;
	for (i = 4; i < argc; i++) {
		if (!strcmp(argv[i], "rw"))
			flags |= SNODE_IMPORT_WRITE;
		else if (!strcmp(argv[i], "zero"))
			flags |= SNODE_IMPORT_ZERO_PAGE_ON_REVOKE;
		else
			timeout = atoi(argv[i]);
	}
	len = num(argv[3]);
	fd = import(num(argv[0]), num(argv[1]), num(argv[2]), len, flags);
	if (fd < 0) {
		errno = -fd;
		die("import");
	}
	w = mmap(NULL, len, PROT_READ | (flags & SNODE_IMPORT_WRITE ?
					 PROT_WRITE : 0), MAP_SHARED, fd, 0);
	if (w == MAP_FAILED)
		die("mmap");
	/* only the import pins the module from here on */
	close(dev_fd);
	val = w[0];
	printf("mapped first 0x%llx\n", (unsigned long long)val);
	fflush(stdout);

	pfd.fd = fd;
	pfd.events = POLLIN | POLLPRI;
	if (poll(&pfd, 1, timeout * 1000) != 1) {
		printf("timeout\n");
		return 1;
	}
	if (ioctl(fd, SNODE_IOCTL_IMPORT_STATUS, &st))
		die("status");
	printf("revoked reason %u state %u epoch %u pri %d err %d\n",
	       st.out_reason, st.out_state, st.out_epoch,
	       !!(pfd.revents & POLLPRI), !!(pfd.revents & POLLERR));
	val = 1;
	printf("load %s", probe(w, false, &val));
	printf("%s\n", !strcmp(probe(w, false, &val), "ok") && !val ?
		       " zero" : "");
	val = 1;
	printf("store %s\n", probe(w, true, &val));
	return st.out_state == SNODE_WINDOW_STATE_REVOKED ? 0 : 1;
}

static int cmd_check(int argc, char **argv)
{
	volatile uint64_t *w;
	uint64_t len;
	int fd;

	if (argc < 4)
		return 2;
	len = num(argv[3]);
	fd = import(num(argv[0]), num(argv[1]), num(argv[2]), len, 0);
	if (fd < 0) {
		errno = -fd;
		die("import");
	}
	w = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (w == MAP_FAILED)
		die("mmap");
	if (check_pattern(w, num(argv[0]), len))
		return 1;
	printf("pattern ok\n");
	return 0;
}

static int cmd_scale(int argc, char **argv)
{
	uint32_t first, last, node, id;
	uint64_t key, len;
	volatile uint64_t *w;
	int fd, bad = 0;

	if (argc < 5)
		return 2;
	first = num(argv[0]);
	last = num(argv[1]);
	id = num(argv[2]);
	key = num(argv[3]);
	len = num(argv[4]);
	for (node = first; node <= last; node++) {
		fd = import(node, id, key, len, 0);
		if (fd < 0) {
			printf("import node %u: %s\n", node, strerror(-fd));
			return 1;
		}
		w = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
		if (w == MAP_FAILED)
			die("mmap");
		bad |= check_pattern(w, node, len);
	}
	if (bad)
		return 1;
	printf("scale %u ok\n", last - first + 1);
	fd = import(first, id, key, len, 0);
	printf("full %s\n", fd == -ENOSPC ? "ENOSPC" :
			    fd < 0 ? strerror(-fd) : "imported");
	return fd == -ENOSPC ? 0 : 1;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* MB/s of reading (sum) or writing every word of @p, best of three */
static double stream(volatile uint64_t *p, uint64_t len, bool write)
{
	double best = 0, t;
	uint64_t i, sum = 0;
	int r;

	for (r = 0; r < 3; r++) {
		t = now_s();
		if (write)
			for (i = 0; i < len / 8; i++)
				p[i] = i;
		else
			for (i = 0; i < len / 8; i++)
				sum += p[i];
		t = now_s() - t;
		if (len / t / 1e6 > best)
			best = len / t / 1e6;
	}
	if (sum == 1)
		printf(" ");	/* keep the loads */
	return best;
}

static int cmd_hbench(int argc, char **argv)
{
	struct snode_mem_export exp = { .size = sizeof(exp) };
	bool huge = argc > 1 && !strcmp(argv[1], "huge");
	double t0, t_exp, t_imp;
	volatile uint64_t *w;
	uint64_t len, i;
	uint64_t *buf;
	int fd;

	if (argc < 2)
		return 2;
	len = num(argv[0]);
	buf = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE |
		   MAP_ANONYMOUS | (huge ? MAP_HUGETLB : 0), -1, 0);
	if (buf == MAP_FAILED)
		die("mmap");
	for (i = 0; i < len / 8; i += 512)
		buf[i] = i;
	t0 = now_s();
	exp.flags = SNODE_EXPORT_HOST | SNODE_EXPORT_WRITE;
	exp.offset = (uintptr_t)buf;
	exp.length = len;
	exp.key = 0xbe7c;
	if (ioctl(dev_fd, SNODE_IOCTL_MEM_EXPORT, &exp))
		die("export");
	t_exp = now_s() - t0;
	t0 = now_s();
	fd = import(exp.out_node, exp.out_export_id, exp.key, len,
		    SNODE_IMPORT_WRITE);
	if (fd < 0) {
		errno = -fd;
		die("import");
	}
	printf("import_ioctl_ms %.2f ", (now_s() - t0) * 1e3);
	w = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (w == MAP_FAILED)
		die("mmap window");
	for (i = 0; i < len / 8; i += 512)
		if (w[i] != i) {
			printf("error window word %llu\n", (unsigned long long)i);
			return 1;
		}
	t_imp = now_s() - t0;
	printf("hbench %s %llu export_ms %.2f import_map_touch_ms %.2f per_gib_ms %.1f %.1f",
	       huge ? "huge" : "malloc", (unsigned long long)len, t_exp * 1e3,
	       t_imp * 1e3, t_exp * 1e3 * (1ULL << 30) / len,
	       t_imp * 1e3 * (1ULL << 30) / len);
	for (i = 0; i < 2; i++)
		printf(" read_local %.0f read_win %.0f write_local %.0f write_win %.0f MB/s",
		       stream(buf, len, false), stream(w, len, false),
		       stream(buf, len, true), stream(w, len, true));
	printf("\n");
	return 0;
}

static uint32_t list_count(uint32_t type, struct list_arg *out)
{
	struct list_arg l = { .type = type };
	int ret = snode_list(dev_fd, true, &l);

	if (ret) {
		errno = -ret;
		die("list");
	}
	if (out)
		*out = l;
	return l.n;
}

static int cmd_stat(void)
{
	struct list_arg l;
	uint32_t imports = list_count(MEM_LIST_IMPORTS, &l);

	printf("pool %llu free %llu imports %u exports %u att %u\n",
	       (unsigned long long)l.pool_size,
	       (unsigned long long)l.pool_free, imports,
	       list_count(MEM_LIST_EXPORTS, NULL),
	       list_count(MEM_LIST_ATT, NULL));
	return 0;
}

int main(int argc, char **argv)
{
	int ret = 2;

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc < 2)
		goto usage;
	dev_fd = open(SNODE_DEV, O_RDWR);
	if (dev_fd < 0)
		die(SNODE_DEV);
	if (!strcmp(argv[1], "export"))
		ret = cmd_export(argc - 2, argv + 2);
	else if (!strcmp(argv[1], "hold"))
		ret = cmd_hold(argc - 2, argv + 2);
	else if (!strcmp(argv[1], "check"))
		ret = cmd_check(argc - 2, argv + 2);
	else if (!strcmp(argv[1], "scale"))
		ret = cmd_scale(argc - 2, argv + 2);
	else if (!strcmp(argv[1], "hbench"))
		ret = cmd_hbench(argc - 2, argv + 2);
	else if (!strcmp(argv[1], "stat"))
		ret = cmd_stat();
	if (ret != 2)
		return ret;
usage:
	fprintf(stderr, "usage: mem_peer export|hold|check|scale|stat ... (see the source)\n");
	return 2;
}
