// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-perf allreduce, bcast, barrier, alltoall: libsnode's collectives
 * over N nodes (snode_comm_new(3)).
 *
 * Run "snode-perf allreduce nodes 0,1,2,3" on every node of the list. The
 * library sets up a communicator (its setup goes over messages) and each
 * iteration runs one collective; the data is re-initialised before each
 * and every element of the result is checked after each.
 *
 * Reported as nccl-tests does: algbw = size / time; busbw = algbw *
 * 2(N-1)/N for allreduce, algbw * (N-1)/N for alltoall (size is what
 * each rank sends), algbw for bcast. The baseline of the same run is a
 * memcpy() of the same size from local memory into a window onto this
 * node's pool, by every rank at once, so that it shares the host's CPUs
 * as the collective does: make bench prints the ratio busbw / memcpy, and
 * busbw against snode-perf mem's memcpy on one node alone. allreduce sums doubles: rank r contributes
 * (r + 1) * (i % 1000 + 1) to element i, and the checksum printed is the
 * same on every node when they agree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"

#define COLL_WARMUP	2

enum coll_kind { COLL_ALLREDUCE, COLL_BCAST, COLL_BARRIER, COLL_ALLTOALL };

static const char *const coll_names[] = {
	[COLL_ALLREDUCE] = "allreduce",
	[COLL_BCAST] = "bcast",
	[COLL_BARRIER] = "barrier",
	[COLL_ALLTOALL] = "alltoall",
};

struct coll {
	struct perf *p;
	enum coll_kind kind;
	uint32_t nodes[SNODE_COMM_MAX_RANKS];
	unsigned int n, rank, iters;
	bool list_order;
	bool baseline;
	uint64_t size;		/* bytes: the vector, the buffer, per rank sent */
	struct snode_comm *comm;
	uint8_t *sbuf, *rbuf;
};

struct coll_report {
	const struct coll *c;
	double time_us, algbw, busbw, memcpy_bw, checksum;
	bool ok;
};

static void coll_help(FILE *f, const char *name, const char *def)
{
	fprintf(f,
		"Usage: snode-perf %s nodes LIST [ size BYTES ] [ iters N ]\n"
		"                  [ order { topo | list } ] [ baseline { on | off } ]\n"
		"LIST := comma-separated node ids, this node among them (2 to %d)\n"
		"BYTES := %s (default %s); N default 10\n",
		name, SNODE_COMM_MAX_RANKS,
		!strcmp(name, "alltoall") ? "bytes each rank sends" : "buffer size",
		def);
}

void perf_allreduce_help(FILE *f)
{
	coll_help(f, "allreduce", "4M");
}

void perf_bcast_help(FILE *f)
{
	coll_help(f, "bcast", "4M");
}

void perf_barrier_help(FILE *f)
{
	coll_help(f, "barrier", "ignored");
}

void perf_alltoall_help(FILE *f)
{
	coll_help(f, "alltoall", "4M");
}

static void (*const coll_helps[])(FILE *f) = {
	[COLL_ALLREDUCE] = perf_allreduce_help,
	[COLL_BCAST] = perf_bcast_help,
	[COLL_BARRIER] = perf_barrier_help,
	[COLL_ALLTOALL] = perf_alltoall_help,
};

/* ---- data and its check ----------------------------------------------------- */

static uint8_t coll_byte(unsigned int from, unsigned int to, uint64_t i,
			 uint32_t it)
{
	return (uint8_t)(from * 131 + to * 31 + i * 7 + (i >> 12) + it);
}

static void coll_init(struct coll *c, uint32_t it)
{
	uint64_t i, count = c->size / sizeof(double), blk = c->size / c->n;
	double *d = (double *)c->sbuf;

	switch (c->kind) {
	case COLL_ALLREDUCE:
		for (i = 0; i < count; i++)
			d[i] = (double)(c->rank + 1) * (double)(i % 1000 + 1);
		break;
	case COLL_BCAST:
		for (i = 0; i < c->size; i++)
			c->sbuf[i] = c->rank ? 0 : coll_byte(0, 0, i, it);
		break;
	case COLL_ALLTOALL:
		for (i = 0; i < c->size; i++)
			c->sbuf[i] = coll_byte(c->rank, i / blk, i % blk, it);
		memset(c->rbuf, 0, c->size);
		break;
	case COLL_BARRIER:
		break;
	}
}

static bool coll_check(const struct coll *c, uint32_t it, double *checksum)
{
	uint64_t i, count = c->size / sizeof(double), blk = c->size / c->n;
	double ranks = (double)c->n * (c->n + 1) / 2, sum = 0;
	const double *d = (const double *)c->sbuf;
	bool ok = true;

	switch (c->kind) {
	case COLL_ALLREDUCE:
		for (i = 0; i < count; i++) {
			if (d[i] != ranks * (double)(i % 1000 + 1))
				ok = false;
			sum += d[i];
		}
		break;
	case COLL_BCAST:
		for (i = 0; i < c->size; i++) {
			if (c->sbuf[i] != coll_byte(0, 0, i, it))
				ok = false;
			sum += c->sbuf[i];
		}
		break;
	case COLL_ALLTOALL:
		/* block j came from rank j, made for me */
		for (i = 0; i < c->size; i++) {
			if (c->rbuf[i] != coll_byte(i / blk, c->rank, i % blk, it))
				ok = false;
			sum += c->rbuf[i];
		}
		break;
	case COLL_BARRIER:
		break;
	}
	*checksum = sum;
	return ok;
}

static int coll_run(struct coll *c)
{
	switch (c->kind) {
	case COLL_ALLREDUCE:
		return snode_allreduce(c->comm, c->sbuf, c->size / sizeof(double),
				       SNODE_COLL_DOUBLE, SNODE_COLL_SUM);
	case COLL_BCAST:
		return snode_bcast(c->comm, c->sbuf, c->size, 0);
	case COLL_ALLTOALL:
		return snode_alltoall(c->comm, c->sbuf, c->rbuf, c->size / c->n);
	case COLL_BARRIER:
		break;
	}
	return snode_barrier(c->comm);
}

/*
 * The baseline: memcpy() from local memory into a window onto this node's
 * pool (the path snode-perf mem takes without a handle), by every rank at
 * once for COLL_BASE_TIME seconds between two barriers, so that the ranks
 * share the host's CPUs as they do in the collective.
 */
#define COLL_BASE_TIME	0.5

static int coll_memcpy_bw(struct coll *c, double *bw)
{
	struct snode_import *imp = NULL;
	struct snode_mem *mem = NULL;
	struct snode_handle h;
	uint32_t self = c->nodes[c->rank];
	bool exported = false;
	double t0, t;
	uint64_t bytes = 0;
	void *win;
	int ret;

	ret = snode_mem_alloc(c->p->dev, c->size, &mem);
	if (ret < 0)
		return ret;
	ret = snode_export(mem, 0, c->size, SNODE_EXPORT_WRITE |
			   SNODE_EXPORT_RANDOM_KEY, 0, &self, 1, &h);
	if (ret < 0)
		goto out;
	exported = true;
	ret = snode_import(c->p->dev, &h, 0, c->size, SNODE_IMPORT_WRITE, &imp);
	if (ret < 0)
		goto out;
	ret = snode_import_map(imp, &win);
	if (ret < 0)
		goto out;
	memcpy(win, c->sbuf, c->size);		/* map and warm */
	ret = snode_barrier(c->comm);
	if (ret < 0)
		goto out;
	t0 = perf_now();
	do {
		memcpy(win, c->sbuf, c->size);
		bytes += c->size;
		t = perf_now() - t0;
	} while (t < COLL_BASE_TIME);
	ret = snode_barrier(c->comm);
	*bw = bytes / t / 1e9;
out:
	snode_import_close(imp);
	if (exported)
		snode_unexport(c->p->dev, &h);
	snode_mem_free(mem);
	return ret;
}

static void coll_json(const void *arg)
{
	const struct coll_report *r = arg;
	const struct coll *c = r->c;

	print_str("benchmark", NULL, coll_names[c->kind]);
	print_u64("ranks", NULL, c->n);
	print_u64("rank", NULL, c->rank);
	print_str("order", NULL, c->list_order ? "list" : "topo");
	print_u64("size", NULL, c->kind == COLL_BARRIER ? 0 : c->size);
	print_u64("iters", NULL, c->iters);
	print_double("time_us", NULL, r->time_us);
	if (c->kind != COLL_BARRIER) {
		print_double("algbw_GBps", NULL, r->algbw);
		print_double("busbw_GBps", NULL, r->busbw);
		print_double("checksum", NULL, r->checksum);
	}
	if (r->memcpy_bw > 0) {
		print_double("memcpy_GBps", NULL, r->memcpy_bw);
		print_double("ratio", NULL, r->busbw / r->memcpy_bw);
	}
	print_bool("verified", NULL, r->ok);
}

static int coll_parse(struct coll *c)
{
	void (*help)(FILE *f) = coll_helps[c->kind];
	const char *w, *v;
	char *s, *e;

	c->size = 4 << 20;
	c->iters = 10;
	c->baseline = true;
	while ((w = perf_arg_next(c->p))) {
		v = perf_arg_next(c->p);
		if (!v)
			return perf_usage(help);
		if (tool_matches(w, "nodes")) {
			for (s = (char *)v; *s; s = e) {
				if (c->n == SNODE_COMM_MAX_RANKS)
					return perf_usage(help);
				c->nodes[c->n++] = strtoul(s, &e, 0);
				if (*e == ',')
					e++;
				else if (*e)
					return perf_usage(help);
			}
		} else if (tool_matches(w, "size")) {
			if (perf_parse_size(v, &c->size))
				return perf_usage(help);
		} else if (tool_matches(w, "iters")) {
			c->iters = strtoul(v, NULL, 0);
		} else if (tool_matches(w, "order") &&
			   (!strcmp(v, "list") || !strcmp(v, "topo"))) {
			c->list_order = !strcmp(v, "list");
		} else if (tool_matches(w, "baseline") &&
			   (!strcmp(v, "on") || !strcmp(v, "off"))) {
			c->baseline = !strcmp(v, "on");
		} else {
			return perf_usage(help);
		}
	}
	if (c->n < 2 || !c->iters)
		return perf_usage(help);
	/* whole elements, and blocks of whole elements for alltoall */
	c->size -= c->size % (c->n * sizeof(double));
	return c->size ? 0 : perf_usage(help);
}

static int perf_coll(struct perf *p, enum coll_kind kind)
{
	struct coll c = { .p = p, .kind = kind };
	struct coll_report rep = { .c = &c, .ok = true };
	struct snode_comm_params params = { 0 };
	double t0, total = 0, sum;
	uint32_t it;
	int ret;

	ret = coll_parse(&c);
	if (!ret)
		ret = perf_dev_open(p);
	if (ret)
		return ret;
	c.sbuf = malloc(c.size);
	c.rbuf = malloc(c.size);
	if (!c.sbuf || !c.rbuf) {
		ret = perf_err("out of memory");
		goto out_free;
	}
	params.flags = c.list_order ? SNODE_COMM_LIST_ORDER : 0;
	ret = snode_comm_new(p->dev, c.nodes, c.n, &params, sizeof(params),
			     &c.comm);
	if (ret < 0) {
		ret = perf_lib_err(ret == -EINVAL ?
			"communicator (is this node in the list?)" :
			"communicator", ret);
		goto out_free;
	}
	c.rank = (unsigned int)snode_comm_get_rank(c.comm);
	for (it = 0; it < c.iters + COLL_WARMUP; it++) {
		coll_init(&c, it);
		t0 = perf_now();
		ret = coll_run(&c);
		if (ret < 0)
			goto out;
		if (it >= COLL_WARMUP)
			total += perf_now() - t0;
		if (!coll_check(&c, it, &sum))
			rep.ok = false;
		rep.checksum = sum;
	}
	rep.time_us = total / c.iters * 1e6;
	rep.algbw = c.size / (total / c.iters) / 1e9;
	rep.busbw = kind == COLL_ALLREDUCE ? rep.algbw * 2 * (c.n - 1) / c.n :
		    kind == COLL_ALLTOALL ? rep.algbw * (c.n - 1) / c.n :
		    rep.algbw;
	if (c.baseline && kind != COLL_BARRIER) {
		ret = coll_memcpy_bw(&c, &rep.memcpy_bw);
		if (ret < 0)
			goto out;
	}
	if (!p->json) {
		printf("snode-perf %s: rank %u of %u (node %u), %s order, %llu bytes, %u iterations\n",
		       coll_names[kind], c.rank, c.n, c.nodes[c.rank],
		       c.list_order ? "list" : "topology",
		       (unsigned long long)(kind == COLL_BARRIER ? 0 : c.size),
		       c.iters);
		if (kind == COLL_BARRIER)
			printf("  time %.1f us\n", rep.time_us);
		else
			printf("  time %.1f us  algbw %.4f GB/s  busbw %.4f GB/s\n",
			       rep.time_us, rep.algbw, rep.busbw);
		if (rep.memcpy_bw > 0)
			printf("  memcpy into a window, every rank at once %.4f GB/s: busbw %.2fx\n",
			       rep.memcpy_bw, rep.busbw / rep.memcpy_bw);
		if (kind == COLL_BARRIER)
			printf("  result %s\n", rep.ok ? "verified" : "WRONG");
		else
			printf("  result %s, checksum %.17g\n",
			       rep.ok ? "verified" : "WRONG", rep.checksum);
	}
	ret = perf_json_report(p, coll_json, &rep);
	if (!ret && !rep.ok)
		ret = 1;
out:
	snode_comm_free(c.comm);
	if (ret < 0)
		ret = perf_lib_err(coll_names[kind], ret);
out_free:
	free(c.sbuf);
	free(c.rbuf);
	return ret;
}

int perf_allreduce(struct perf *p)
{
	return perf_coll(p, COLL_ALLREDUCE);
}

int perf_bcast(struct perf *p)
{
	return perf_coll(p, COLL_BCAST);
}

int perf_barrier(struct perf *p)
{
	return perf_coll(p, COLL_BARRIER);
}

int perf_alltoall(struct perf *p)
{
	return perf_coll(p, COLL_ALLTOALL);
}
