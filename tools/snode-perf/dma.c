// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-perf dma: the NIC's copy engine against the CPU.
 *
 * For copies of 4 KiB to 64 MiB, in both directions, side by side in one
 * run: bandwidth of DMA copies between local memory and an imported window
 * (a batch of copies kept in flight on one queue) and of a CPU memcpy()
 * between the same buffers. Without a handle it exports from this node's
 * pool and imports that, which takes the same path through the aperture.
 *
 * A stream instead: DMA copies, or CPU stores or loads through the window,
 * for some seconds at the rate they reach, for comparing the link
 * counters with (decisions 0027 and 0035).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "perf.h"

#define MIB		(1ULL << 20)
#define MIN_TIME	0.3	/* seconds per sample */
#define ROUNDS		3	/* best of */
#define DMA_DEPTH	64
#define MAX_SIZES	16

struct dma_row {
	uint64_t size;
	double dma_to, cpu_to, dma_from, cpu_from;	/* MB/s */
};

struct dma_report {
	uint32_t node;
	const char *handle;
	unsigned int n;
	struct dma_row rows[MAX_SIZES];
};

void perf_dma_help(FILE *f)
{
	fprintf(f,
		"Usage: snode-perf dma [ handle HANDLE ] [ max BYTES ]\n"
		"                      [ stream SECONDS [ by { dma | store | load } ] ]\n"
		"HANDLE := snode:v1:NODE:EXPORT:KEY (default: export from this node)\n"
		"BYTES  := largest copy, 4K to 256M (default 64M)\n"
		"stream: for SECONDS (1..3600), and its rate; nothing else:\n"
		"        by dma (default): DMA copies of min(BYTES, 256K) to the window\n"
		"        by store, by load: CPU memcpy() to or from BYTES of the window,\n"
		"        in pieces of min(BYTES, 256K), over and over\n");
}

/*
 * Up to DMA_DEPTH copies of @size from @span of @buf, each to (@to) or
 * from its own range of the window: the batch's length.
 */
static unsigned int dma_reqs_fill(struct snode_dma_req *reqs,
				  struct snode_import *imp, uint8_t *buf,
				  uint64_t size, uint64_t span, bool to)
{
	unsigned int batch = span / size, i;

	if (batch > DMA_DEPTH)
		batch = DMA_DEPTH;
	for (i = 0; i < batch; i++)
		reqs[i] = (struct snode_dma_req){
			.flags = to ? SNODE_DMA_TO_GLOBAL : SNODE_DMA_FROM_GLOBAL,
			.import_fd = snode_import_get_fd(imp),
			.offset = i * size,
			.addr = (uintptr_t)(buf + i * size),
			.length = size,
		};
	return batch;
}

/*
 * Reap what completed (10 s at most) into @cpls, its bytes added to @bytes:
 * how many, or a negative errno (a failed copy's status, -ETIMEDOUT).
 */
static int dma_reap_some(struct snode_dma_queue *q, struct snode_dma_cpl *cpls,
			 uint64_t *bytes)
{
	int n, i;

	n = snode_dma_reap(q, cpls, DMA_DEPTH, 10000);
	if (n <= 0)
		return n ? n : -ETIMEDOUT;
	for (i = 0; i < n; i++) {
		if (cpls[i].status)
			return cpls[i].status;
		*bytes += cpls[i].bytes;
	}
	return n;
}

/* dma_reap_some(), the completions counted off *inflight. */
static int dma_reap_inflight(struct snode_dma_queue *q,
			     struct snode_dma_cpl *cpls, uint64_t *bytes,
			     unsigned int *inflight)
{
	int n = dma_reap_some(q, cpls, bytes);

	if (n > 0)
		*inflight -= n;
	return n;
}

/* MB/s of DMA copies of @size, as many in flight as the queue allows. */
static int dma_sample(struct snode_dma_queue *q, struct snode_import *imp,
		      uint8_t *buf, uint64_t size, uint64_t span, bool to,
		      double *mbs)
{
	struct snode_dma_req reqs[DMA_DEPTH];
	struct snode_dma_cpl cpls[DMA_DEPTH];
	unsigned int batch, inflight = 0;
	double t0 = perf_now(), t;
	uint64_t bytes = 0;
	int n;

	batch = dma_reqs_fill(reqs, imp, buf, size, span, to);
	do {
		n = snode_dma_submit(q, reqs, batch);
		if (n < 0)
			return n;
		inflight += n;
		while (inflight) {
			n = dma_reap_inflight(q, cpls, &bytes, &inflight);
			if (n < 0)
				return n;
		}
		t = perf_now() - t0;
	} while (t < MIN_TIME);
	*mbs = bytes / t / 1e6;
	return 0;
}

/*
 * The line a sampler of the link (ops.sh: snodectl link status -s) waits
 * for, so that its interval lies inside the timed part of a stream and
 * not in the setup and untimed pass before it.
 */
static void stream_timing_starts(void)
{
	fputs("snode-perf dma stream: timing from now\n", stderr);
	fflush(stderr);
}

/*
 * A stream for @secs: @span in copies of @size kept in flight, each one
 * that completes submitted again at once, so that the queue never runs
 * dry between batches; then drained. Bytes and the time to the last
 * completion.
 */
static int dma_stream_run(struct snode_dma_queue *q, struct snode_import *imp,
			  uint8_t *buf, uint64_t size, uint64_t span,
			  double secs, uint64_t *total, double *took)
{
	struct snode_dma_req reqs[DMA_DEPTH];
	struct snode_dma_cpl cpls[DMA_DEPTH];
	unsigned int batch, inflight;
	double t0, t = 0;
	uint64_t bytes = 0;
	int n;

	batch = dma_reqs_fill(reqs, imp, buf, size, span, true);
	stream_timing_starts();
	t0 = perf_now();
	n = snode_dma_submit(q, reqs, batch);
	if (n < 0)
		return n;
	inflight = n;
	while (inflight) {
		n = dma_reap_inflight(q, cpls, &bytes, &inflight);
		if (n < 0)
			return n;
		t = perf_now() - t0;
		if (t < secs) {
			/* any n of the requests: their ranges are not in flight */
			n = snode_dma_submit(q, reqs, n);
			if (n < 0)
				return n;
			inflight += n;
		}
	}
	*total = bytes;
	*took = t;
	return 0;
}

/*
 * Copy @span bytes to (@to) or from the window in pieces of @size, pass
 * after pass, for at least @secs. Bytes copied and the time taken.
 */
static void cpu_copy_for(uint8_t *win, uint8_t *buf, uint64_t size,
			 uint64_t span, bool to, double secs,
			 uint64_t *total, double *took)
{
	double t0 = perf_now(), t;
	uint64_t bytes = 0, off;

	do {
		for (off = 0; off + size <= span; off += size) {
			if (to)
				memcpy(win + off, buf + off, size);
			else
				memcpy(buf + off, win + off, size);
			bytes += size;
		}
		t = perf_now() - t0;
	} while (t < secs);
	*total = bytes;
	*took = t;
}

/*
 * A CPU stream for @secs: memcpy() to (@to) or from @span of the window in
 * pieces of @size, pass after pass, after one pass untimed that maps the
 * window's pages (page faults are not the stream). Bytes and the time taken.
 */
static void cpu_stream_run(uint8_t *win, uint8_t *buf, uint64_t size,
			   uint64_t span, bool to, double secs,
			   uint64_t *total, double *took)
{
	if (to)
		memcpy(win, buf, span);
	else
		memcpy(buf, win, span);
	stream_timing_starts();
	cpu_copy_for(win, buf, size, span, to, secs, total, took);
}

static double cpu_sample(uint8_t *win, uint8_t *buf, uint64_t size,
			 uint64_t span, bool to)
{
	uint64_t bytes;
	double t;

	cpu_copy_for(win, buf, size, span, to, MIN_TIME, &bytes, &t);
	return bytes / t / 1e6;
}

/*
 * A DMA copy then a CPU copy of @size bytes in one direction, each kept in
 * *dma_best and *cpu_best (MB/s) if faster than the rounds before.
 */
static int dma_round(struct snode_dma_queue *q, struct snode_import *imp,
		     uint8_t *win, uint8_t *buf, uint64_t size, uint64_t span,
		     bool to, double *dma_best, double *cpu_best)
{
	double d;
	int ret;

	ret = dma_sample(q, imp, buf, size, span, to, &d);
	if (ret < 0)
		return ret;
	if (d > *dma_best)
		*dma_best = d;
	d = cpu_sample(win, buf, size, span, to);
	if (d > *cpu_best)
		*cpu_best = d;
	return 0;
}

static void dma_json(const void *arg)
{
	const struct dma_report *r = arg;
	unsigned int i;

	print_str("benchmark", NULL, "dma");
	print_u64("node", NULL, r->node);
	print_str("window", NULL, r->handle);
	print_str("unit", NULL, "MB/s");
	print_open_array("rows");
	for (i = 0; i < r->n; i++) {
		const struct dma_row *w = &r->rows[i];

		print_open_object(NULL);
		print_u64("size", NULL, w->size);
		print_double("dma_to", NULL, w->dma_to);
		print_double("memcpy_to", NULL, w->cpu_to);
		print_double("ratio_to", NULL, w->dma_to / w->cpu_to);
		print_double("dma_from", NULL, w->dma_from);
		print_double("memcpy_from", NULL, w->cpu_from);
		print_double("ratio_from", NULL, w->dma_from / w->cpu_from);
		print_close_object();
	}
	print_close_array();
}

enum { BY_DMA, BY_STORE, BY_LOAD };

static const char *const stream_by[] = {
	[BY_DMA] = "dma", [BY_STORE] = "store", [BY_LOAD] = "load",
};

struct dma_stream {
	const char *handle;
	int by;
	uint64_t size, bytes;
	double secs, mbs;
};

static void dma_stream_json(const void *arg)
{
	const struct dma_stream *r = arg;
	char name[16];

	snprintf(name, sizeof(name), "%s-stream", stream_by[r->by]);
	print_str("benchmark", NULL, name);
	print_str("window", NULL, r->handle);
	print_u64("size", NULL, r->size);
	print_u64("bytes", NULL, r->bytes);
	print_double("seconds", NULL, r->secs);
	print_double("mbps", NULL, r->mbs);
	print_double("gbps", NULL, r->mbs * 8 / 1000);
}

/* The window: imported from @handle, or exported from this node first. */
static int dma_window(struct perf *p, struct snode_handle *h, bool have,
		      uint64_t span, struct snode_mem **mem,
		      struct snode_import **imp)
{
	int ret;

	if (!have) {
		ret = snode_mem_alloc(p->dev, span, mem);
		if (ret < 0)
			return ret;
		ret = snode_export(*mem, 0, span, SNODE_EXPORT_WRITE |
				   SNODE_EXPORT_RANDOM_KEY, 0, NULL, 0, h);
		if (ret < 0)
			return ret;
	}
	return snode_import(p->dev, h, 0, span, SNODE_IMPORT_WRITE, imp);
}

int perf_dma(struct perf *p)
{
	struct dma_report rep = { 0 };
	struct snode_handle h = { 0 };
	struct snode_dma_queue *q = NULL;
	struct snode_import *imp = NULL;
	struct snode_mem *mem = NULL;
	char hstr[SNODE_HANDLE_STR_MAX];
	uint64_t max = 64 * MIB, size, span, stream = 0;
	struct snode_info info;
	bool have = false;
	int by = BY_DMA;
	uint8_t *buf, *win;
	const char *w, *v;
	unsigned int r;
	int ret;

	while ((w = perf_arg_next(p))) {
		v = perf_arg_next(p);
		if (!v)
			return perf_usage(perf_dma_help);
		if (tool_matches(w, "handle")) {
			if (snode_handle_from_str(v, &h) < 0)
				return tool_usage_err("dma: \"%s\" is not a handle", v);
			have = true;
		} else if (tool_matches(w, "max")) {
			if (perf_parse_size(v, &max) || max > 256 * MIB)
				return perf_usage(perf_dma_help);
		} else if (tool_matches(w, "stream")) {
			if (tool_parse_u64(v, 3600, &stream) || !stream)
				return perf_usage(perf_dma_help);
		} else if (tool_matches(w, "by")) {
			for (by = 0; by < (int)(sizeof(stream_by) / sizeof(stream_by[0])); by++)
				if (!strcmp(v, stream_by[by]))
					break;
			if (by == (int)(sizeof(stream_by) / sizeof(stream_by[0])))
				return tool_usage_err("dma: bad stream \"by %s\": dma, store or load", v);
		} else {
			return perf_usage(perf_dma_help);
		}
	}
	if (by != BY_DMA && !stream)
		return tool_usage_err("dma: \"by\" is for a stream");
	ret = perf_dev_open(p);
	if (ret)
		return ret;
	span = max;
	ret = snode_dev_get_info(p->dev, &info, sizeof(info));
	if (ret < 0)
		return perf_lib_err("info", ret);
	rep.node = info.out_node_id;
	ret = dma_window(p, &h, have, span, &mem, &imp);
	if (ret < 0)
		return perf_lib_err("window", ret);
	snode_handle_to_str(&h, hstr, sizeof(hstr));
	rep.handle = hstr;
	ret = snode_import_map(imp, (void **)&win);
	if (ret < 0)
		return perf_lib_err("map", ret);
	ret = snode_dma_queue_new(p->dev, DMA_DEPTH, &q);
	if (ret < 0)
		return perf_lib_err("DMA queue", ret);
	/* huge pages make for long DMA segments, as for any real buffer */
	if (posix_memalign((void **)&buf, 2 * MIB, span))
		return perf_err("out of memory");
	madvise(buf, span, MADV_HUGEPAGE);
	memset(buf, 0x5a, span);

	if (stream) {
		struct dma_stream st = { .handle = hstr, .by = by };

		/* the engine's chunk: many in flight keep the line busy */
		st.size = max < MIB / 4 ? max : MIB / 4;
		if (by == BY_DMA) {
			ret = dma_stream_run(q, imp, buf, st.size, span, stream,
					     &st.bytes, &st.secs);
			if (ret < 0)
				goto out;
		} else {
			cpu_stream_run(win, buf, st.size, span, by == BY_STORE,
				       stream, &st.bytes, &st.secs);
		}
		st.mbs = st.bytes / st.secs / 1e6;
		if (!p->json)
			printf("snode-perf dma stream by %s: window %s, %llu bytes in copies of %llu in %.3f s: %.1f MB/s, %.3f Gbit/s\n",
			       stream_by[by], hstr, (unsigned long long)st.bytes,
			       (unsigned long long)st.size, st.secs, st.mbs,
			       st.mbs * 8 / 1000);
		ret = perf_json_report(p, dma_stream_json, &st);
		goto out;
	}

	for (size = 4096; size <= max && rep.n < MAX_SIZES; size *= 4) {
		struct dma_row *row = &rep.rows[rep.n++];

		row->size = size;
		for (r = 0; r < ROUNDS; r++) {
			ret = dma_round(q, imp, win, buf, size, span, true,
					&row->dma_to, &row->cpu_to);
			if (ret < 0)
				goto out;
			ret = dma_round(q, imp, win, buf, size, span, false,
					&row->dma_from, &row->cpu_from);
			if (ret < 0)
				goto out;
		}
	}
	if (!p->json) {
		unsigned int i;

		printf("snode-perf dma: node %u, window %s, MB/s (best of %d)\n",
		       rep.node, hstr, ROUNDS);
		printf("%10s %10s %10s %7s %10s %10s %7s\n", "size", "dma-to",
		       "memcpy-to", "ratio", "dma-from", "memcpy-fr", "ratio");
		for (i = 0; i < rep.n; i++) {
			const struct dma_row *x = &rep.rows[i];

			printf("%10llu %10.1f %10.1f %7.2f %10.1f %10.1f %7.2f\n",
			       (unsigned long long)x->size, x->dma_to, x->cpu_to,
			       x->dma_to / x->cpu_to, x->dma_from, x->cpu_from,
			       x->dma_from / x->cpu_from);
		}
	}
	ret = perf_json_report(p, dma_json, &rep);
out:
	free(buf);
	snode_dma_queue_free(q);
	snode_import_close(imp);
	if (mem)
		snode_mem_free(mem);
	if (ret < 0)
		return perf_lib_err("dma", ret);
	return ret;
}
