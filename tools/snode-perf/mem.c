// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-perf mem: global memory through a window vs local memory.
 *
 * Side by side in one run: sequential read, write and memcpy bandwidth
 * (both ways) through an imported window and on local anonymous memory,
 * where memcpy "through the window" copies between the window and local
 * memory and its baseline between two local buffers; the time to
 * mmap() and touch every page of a large window and of anonymous memory
 * mapped with MAP_POPULATE; and the latency of one import + mmap + munmap
 * + close cycle. Without a handle it exports from this node's pool and
 * imports that, which takes the same path through the NIC's aperture.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "perf.h"

#define MIB		(1ULL << 20)
#define PAGE		4096
#define MIN_TIME	0.4	/* seconds per bandwidth sample */
#define ROUNDS		5	/* best of */

struct mem_args {
	struct snode_handle handle;
	bool have_handle;
	uint64_t size;		/* the map+touch window */
	uint64_t bw_size;	/* the bandwidth working set */
	unsigned int cycles;
};

void perf_mem_help(FILE *f)
{
	fprintf(f,
		"Usage: snode-perf mem [ handle HANDLE ] [ size BYTES ] [ bw-size BYTES ]\n"
		"                      [ cycles N ]\n"
		"HANDLE := snode:v1:NODE:EXPORT:KEY (default: export from this node)\n"
		"BYTES  := number with optional K, M or G (size: 1G, bw-size: 64M)\n");
}

static long minflt(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

/* ---- bandwidth ------------------------------------------------------------- */

struct mem_result {
	double remote, local;
};

static volatile uint64_t sink;

static void op_read(void *dst, void *src, size_t len)
{
	const uint64_t *p = src;
	uint64_t s = 0;
	size_t i;

	for (i = 0; i < len / 8; i++)
		s += p[i];
	sink = s;
}

static void op_write(void *dst, void *src, size_t len)
{
	memset(dst, (int)(sink++ & 0xff), len);
}

static void op_copy(void *dst, void *src, size_t len)
{
	memcpy(dst, src, len);
}

/* MB/s of one sample of @op over @len bytes, at least MIN_TIME long. */
static double bandwidth_sample(void (*op)(void *, void *, size_t), void *dst,
			       void *src, size_t len)
{
	double t0 = perf_now(), t;
	unsigned int n = 0;

	do {
		op(dst, src, len);
		n++;
		t = perf_now() - t0;
	} while (t < MIN_TIME);
	return (double)len * n / t / 1e6;
}

/*
 * Best of ROUNDS samples through the window and on local memory, taken
 * alternately so that both see the same background load.
 */
static void bandwidth(void (*op)(void *, void *, size_t), void *rdst,
		      void *rsrc, void *ldst, void *lsrc, size_t len,
		      struct mem_result *r)
{
	unsigned int i;
	double v;

	r->remote = r->local = 0;
	for (i = 0; i < ROUNDS; i++) {
		v = bandwidth_sample(op, rdst, rsrc, len);
		if (v > r->remote)
			r->remote = v;
		v = bandwidth_sample(op, ldst, lsrc, len);
		if (v > r->local)
			r->local = v;
	}
}

/* ---- mapping cost -------------------------------------------------------- */

static void touch(volatile uint8_t *p, uint64_t size)
{
	uint64_t off, s = 0;

	for (off = 0; off < size; off += PAGE)
		s += p[off];
	sink = s;
}

/*
 * Milliseconds to mmap() @fd (or anonymous memory, populated) and touch
 * every page, best of ROUNDS; 0 or a negative errno.
 */
static int map_touch(int fd, uint64_t size, double *ms, long *faults)
{
	double t0, t;
	unsigned int r;
	long f0;
	void *p;

	*ms = 1e12;
	for (r = 0; r < ROUNDS; r++) {
		f0 = minflt();
		t0 = perf_now();
		if (fd >= 0)
			p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED,
				 fd, 0);
		else
			p = mmap(NULL, size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE,
				 -1, 0);
		if (p == MAP_FAILED)
			return -errno;
		touch(p, size);
		t = (perf_now() - t0) * 1e3;
		*faults = minflt() - f0;
		munmap(p, size);
		if (t < *ms)
			*ms = t;
	}
	return 0;
}

/* ---- import cycles --------------------------------------------------------- */

static int cycle_latency(struct perf *p, const struct snode_handle *h,
			 unsigned int cycles, double *mean, double *min)
{
	struct snode_import *imp;
	double t0, t, sum = 0;
	unsigned int i;
	void *addr;
	int ret;

	*min = 1e9;
	for (i = 0; i < cycles; i++) {
		t0 = perf_now();
		ret = snode_import(p->dev, h, 0, 2 * MIB, SNODE_IMPORT_WRITE,
				   &imp);
		if (ret < 0)
			return ret;
		ret = snode_import_map(imp, &addr);
		if (ret < 0)
			return ret;
		snode_import_close(imp);	/* munmap + close */
		t = perf_now() - t0;
		sum += t;
		if (t < *min)
			*min = t;
	}
	*mean = sum / cycles;
	return 0;
}

/* ---- the benchmark --------------------------------------------------------- */

static int mem_parse(struct perf *p, struct mem_args *a)
{
	const char *w, *v;

	a->size = 1024 * MIB;
	a->bw_size = 64 * MIB;
	a->cycles = 100;
	while ((w = perf_arg_next(p))) {
		if (!strcmp(w, "help"))
			return perf_usage(perf_mem_help);
		v = perf_arg_next(p);
		if (!v)
			return perf_usage(perf_mem_help);
		if (tool_matches(w, "handle")) {
			if (snode_handle_from_str(v, &a->handle) < 0)
				return tool_usage_err("mem: \"%s\" is not a handle (snode:v1:NODE:EXPORT:KEY)",
						      v);
			a->have_handle = true;
		} else if (tool_matches(w, "size")) {
			if (perf_parse_size(v, &a->size))
				return tool_usage_err("mem: bad size \"%s\"", v);
		} else if (tool_matches(w, "bw-size")) {
			if (perf_parse_size(v, &a->bw_size))
				return tool_usage_err("mem: bad bw-size \"%s\"", v);
		} else if (tool_matches(w, "cycles")) {
			a->cycles = strtoul(v, NULL, 0);
			if (!a->cycles)
				return tool_usage_err("mem: bad cycles \"%s\"", v);
		} else {
			return perf_usage(perf_mem_help);
		}
	}
	if (a->bw_size > a->size)
		a->bw_size = a->size;
	return 0;
}

struct mem_report {
	const char *kernel;
	uint32_t node;
	const char *handle;
	uint64_t size, bw_size;
	struct mem_result rd, wr, cp_from, cp_to, map;
	long wfaults, afaults;
	double cyc_mean, cyc_min;
	unsigned int cycles;
};

static void json_row(const char *key, const char *unit, struct mem_result r)
{
	print_open_object(key);
	print_double("remote", NULL, r.remote);
	print_double("local", NULL, r.local);
	print_double("ratio", NULL, r.local ? r.remote / r.local : 0);
	print_str("unit", NULL, unit);
	print_close_object();
}

static void mem_report_json(const void *arg)
{
	const struct mem_report *m = arg;

	print_str("benchmark", NULL, "mem");
	print_str("kernel", NULL, m->kernel);
	print_u64("node", NULL, m->node);
	print_str("handle", NULL, m->handle);
	print_u64("window_bytes", NULL, m->size);
	print_u64("bw_bytes", NULL, m->bw_size);
	json_row("read", "MB/s", m->rd);
	json_row("write", "MB/s", m->wr);
	json_row("memcpy_from", "MB/s", m->cp_from);
	json_row("memcpy_to", "MB/s", m->cp_to);
	json_row("map_touch", "ms", m->map);
	print_open_object("map_touch_faults");
	print_s64("remote", NULL, m->wfaults);
	print_s64("local", NULL, m->afaults);
	print_close_object();
	print_open_object("import_cycle_us");
	print_double("mean", NULL, m->cyc_mean * 1e6);
	print_double("min", NULL, m->cyc_min * 1e6);
	print_u64("cycles", NULL, m->cycles);
	print_close_object();
}

static void text_row(const char *label, const char *unit, struct mem_result r)
{
	printf("%-26s %12.1f %12.1f %-4s %9.4f\n", label, r.remote, r.local,
	       unit, r.local ? r.remote / r.local : 0);
}

static void mem_report_text(const struct mem_report *m)
{
	printf("snode-perf mem: node %u, kernel %s, window %s, %llu MiB\n",
	       m->node, m->kernel, m->handle,
	       (unsigned long long)(m->size / MIB));
	printf("%-26s %12s %12s %-4s %9s\n", "", "window", "local", "",
	       "ratio");
	text_row("sequential read", "MB/s", m->rd);
	text_row("sequential write", "MB/s", m->wr);
	text_row("memcpy window -> local", "MB/s", m->cp_from);
	text_row("memcpy local -> window", "MB/s", m->cp_to);
	text_row("mmap + touch every page", "ms", m->map);
	printf("%-26s %12ld %12ld\n", "  page faults", m->wfaults,
	       m->afaults);
	printf("import+mmap+munmap+close   %.1f us per cycle (min %.1f us, %u cycles)\n",
	       m->cyc_mean * 1e6, m->cyc_min * 1e6, m->cycles);
}

int perf_mem(struct perf *p)
{
	struct mem_report m = { 0 };
	struct snode_import *imp = NULL;
	struct snode_mem *mem = NULL;
	char hs[SNODE_HANDLE_STR_MAX];
	struct snode_info info;
	struct utsname uts;
	struct mem_args a;
	void *win, *la, *lb;
	int ret, fd;

	memset(&a, 0, sizeof(a));
	ret = mem_parse(p, &a);
	if (!ret)
		ret = perf_dev_open(p);
	if (ret)
		return ret;
	ret = snode_dev_get_info(p->dev, &info, sizeof(info));
	if (ret < 0)
		return perf_lib_err("info", ret);

	if (!a.have_handle) {
		ret = snode_mem_alloc(p->dev, a.size, &mem);
		if (ret < 0)
			return perf_lib_err("allocate the window from this node's pool (try a smaller size, or a handle)",
					    ret);
		ret = snode_export(mem, 0, 0, SNODE_EXPORT_WRITE |
				   SNODE_EXPORT_RANDOM_KEY, 0, NULL, 0,
				   &a.handle);
		if (ret < 0)
			return perf_lib_err("export", ret);
	}
	snode_handle_to_str(&a.handle, hs, sizeof(hs));
	ret = snode_import(p->dev, &a.handle, 0, a.size, SNODE_IMPORT_WRITE,
			   &imp);
	if (ret < 0)
		return perf_lib_err(hs, ret);
	fd = snode_import_get_fd(imp);
	ret = snode_import_map(imp, &win);
	if (ret < 0)
		return perf_lib_err("map the window", ret);
	la = mmap(NULL, 2 * a.bw_size, PROT_READ | PROT_WRITE,
		  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (la == MAP_FAILED)
		return perf_lib_err("anonymous memory", -errno);
	lb = (char *)la + a.bw_size;
	memset(la, 1, 2 * a.bw_size);
	touch(win, a.bw_size);

	bandwidth(op_read, NULL, win, NULL, la, a.bw_size, &m.rd);
	bandwidth(op_write, win, NULL, la, NULL, a.bw_size, &m.wr);
	bandwidth(op_copy, lb, win, lb, la, a.bw_size, &m.cp_from);
	bandwidth(op_copy, win, lb, la, lb, a.bw_size, &m.cp_to);
	munmap(la, 2 * a.bw_size);
	snode_import_unmap(imp);

	ret = map_touch(fd, a.size, &m.map.remote, &m.wfaults);
	if (ret < 0)
		return perf_lib_err("map and touch the window", ret);
	ret = map_touch(-1, a.size, &m.map.local, &m.afaults);
	if (ret < 0)
		return perf_lib_err("map and touch anonymous memory", ret);
	snode_import_close(imp);

	ret = cycle_latency(p, &a.handle, a.cycles, &m.cyc_mean, &m.cyc_min);
	if (ret < 0)
		return perf_lib_err("import cycle", ret);
	snode_mem_free(mem);

	uname(&uts);
	m.kernel = uts.release;
	m.node = info.out_node_id;
	m.handle = hs;
	m.size = a.size;
	m.bw_size = a.bw_size;
	m.cycles = a.cycles;
	if (!p->json)
		mem_report_text(&m);
	return perf_json_report(p, mem_report_json, &m);
}
