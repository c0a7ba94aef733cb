// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-perf allreduce: a sum over N nodes, with windows and doorbells.
 *
 * Run "snode-perf allreduce nodes 0,1,2,3" on every node of the list. The
 * ranks form a ring in list order and run the ring algorithm: N-1
 * reduce-scatter steps, then N-1 allgather steps, each moving 1/N of the
 * vector. A step is a memcpy() into the right neighbour's inbox, a window
 * onto memory it exported, followed by a message to its endpoint saying
 * which step landed; the neighbour sleeps on its endpoint until then. The
 * inbox has a slot per step and per iteration parity, so a neighbour that
 * runs one iteration ahead never overwrites a slot still being read.
 *
 * Setup goes over messages too: every rank exports its inbox and sends the
 * handle to its left neighbour's endpoint, whose id and key are fixed.
 *
 * Reported as nccl-tests does: algbw = size / time, busbw = algbw *
 * 2(N-1)/N. Rank r contributes (r + 1) * (i % 1000 + 1) to element i, so
 * every element of the result is checked, and the checksum printed is the
 * same on every node when they agree.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"

#define AR_EP		50
#define AR_KEY		0xa11ed0c000000000ULL
#define AR_MAX_RANKS	64
#define AR_WARMUP	2
#define AR_STASH	64

enum { AR_HANDLE = 1, AR_STEP = 2 };

struct ar_msg {
	uint8_t type;
	uint8_t pad[3];
	uint32_t iter;
	uint32_t step;
	uint32_t node;		/* AR_HANDLE: the inbox's handle */
	uint32_t export_id;
	uint32_t pad2;
	uint64_t key;
};

struct ar {
	struct perf *p;
	uint32_t nodes[AR_MAX_RANKS];
	unsigned int n, rank, iters;
	uint64_t size;		/* bytes of the vector */
	uint64_t chunk;		/* bytes per step */
	uint64_t slots_len;	/* bytes of one parity's slots */
	struct snode_ep *ep;
	struct snode_ep_addr right;
	uint8_t *inbox;		/* my inbox, written by the left neighbour */
	uint8_t *win;		/* the right neighbour's inbox */
	double *data;
	/* steps the left neighbour sent while we still waited for a handle */
	struct snode_msg stash[AR_STASH];
	unsigned int stashed, unstashed;
};

struct ar_report {
	const struct ar *ar;
	double time_us, algbw, busbw, checksum;
	bool ok;
};

void perf_allreduce_help(FILE *f)
{
	fprintf(f,
		"Usage: snode-perf allreduce nodes LIST [ size BYTES ] [ iters N ]\n"
		"LIST := comma-separated node ids, this node among them (2 to %d)\n"
		"BYTES := vector size (default 4M); N default 10\n", AR_MAX_RANKS);
}

static int ar_send(struct ar *ar, const struct ar_msg *m, unsigned int tries)
{
	int ret;

	while ((ret = snode_ep_send(ar->ep, &ar->right, m, sizeof(*m), 0,
				    10000)) == -ENXIO && --tries)
		usleep(100000);
	return ret;
}

/* The next message from the left neighbour; it must be of @type. */
static int ar_recv(struct ar *ar, struct snode_msg *m, uint8_t type,
		   int timeout_ms)
{
	int n = 1;

	if (ar->unstashed < ar->stashed)
		*m = ar->stash[ar->unstashed++];
	else
		n = snode_ep_recv(ar->ep, m, 1, timeout_ms);
	if (n < 0)
		return n;
	if (!n)
		return -ETIMEDOUT;
	if (m->len != sizeof(struct ar_msg) || m->payload[0] != type)
		return -EPROTO;
	return 0;
}

/* Export the inbox, tell the left neighbour, import the right one's. */
static int ar_setup(struct ar *ar, struct snode_mem **mem,
		    struct snode_import **imp)
{
	uint64_t inbox_len = (2 * ar->slots_len + 4095) & ~4095ULL;
	struct snode_handle h;
	struct ar_msg m = { .type = AR_HANDLE };
	struct snode_msg in;
	int ret;

	ret = snode_ep_new(ar->p->dev, AR_EP, 256, 0,
			   AR_KEY | ar->nodes[ar->rank], &ar->ep);
	if (ret < 0)
		return ret;
	ret = snode_mem_alloc(ar->p->dev, inbox_len, mem);
	if (ret < 0)
		return ret;
	ret = snode_mem_map(*mem, (void **)&ar->inbox);
	if (ret < 0)
		return ret;
	ret = snode_export(*mem, 0, inbox_len, SNODE_EXPORT_WRITE |
			   SNODE_EXPORT_RANDOM_KEY, 0, NULL, 0, &h);
	if (ret < 0)
		return ret;

	/* my handle goes to the left neighbour, whose window I am */
	m.node = h.node;
	m.export_id = h.export_id;
	m.key = h.key;
	{
		struct snode_ep_addr left = {
			.node = ar->nodes[(ar->rank + ar->n - 1) % ar->n],
			.id = AR_EP,
		};

		left.key = AR_KEY | left.node;
		while ((ret = snode_ep_send(ar->ep, &left, &m, sizeof(m), 0,
					    10000)) == -ENXIO)
			usleep(100000);
		if (ret < 0)
			return ret;
	}
	/*
	 * The right neighbour's comes to me; the left one, done with its own
	 * setup, may have started sending steps already: keep them.
	 */
	for (;;) {
		ret = snode_ep_recv(ar->ep, &in, 1, 120000);
		if (ret <= 0)
			return ret ? ret : -ETIMEDOUT;
		if (in.len != sizeof(m))
			return -EPROTO;
		if (in.payload[0] == AR_HANDLE && in.src_node == ar->right.node)
			break;
		if (in.payload[0] != AR_STEP || ar->stashed == AR_STASH)
			return -EPROTO;
		ar->stash[ar->stashed++] = in;
	}
	memcpy(&m, in.payload, sizeof(m));
	h = (struct snode_handle){ m.node, m.export_id, m.key };
	ret = snode_import(ar->p->dev, &h, 0, inbox_len, SNODE_IMPORT_WRITE, imp);
	if (ret < 0)
		return ret;
	return snode_import_map(*imp, (void **)&ar->win);
}

static void ar_init_data(struct ar *ar)
{
	uint64_t i, count = ar->size / sizeof(double);

	for (i = 0; i < count; i++)
		ar->data[i] = (double)(ar->rank + 1) * (double)(i % 1000 + 1);
}

/* One allreduce, iteration @it. */
static int ar_run(struct ar *ar, uint32_t it)
{
	unsigned int n = ar->n, r = ar->rank, t, steps = 2 * (n - 1);
	uint64_t elems = ar->chunk / sizeof(double), i;
	uint8_t *slots_in = ar->inbox + (it % 2) * ar->slots_len;
	uint8_t *slots_out = ar->win + (it % 2) * ar->slots_len;
	struct snode_msg m;
	int ret;

	for (t = 0; t < steps; t++) {
		unsigned int s = t < n - 1 ? t : t - (n - 1);
		unsigned int send = t < n - 1 ? (r + n - s) % n : (r + 1 + n - s) % n;
		unsigned int recv = t < n - 1 ? (r + 2 * n - s - 1) % n : (r + n - s) % n;
		struct ar_msg out = { .type = AR_STEP, .iter = it, .step = t };
		const struct ar_msg *got = (const void *)m.payload;
		double *dst = ar->data + recv * elems;
		const double *src = (const double *)(slots_in + t * ar->chunk);

		memcpy(slots_out + t * ar->chunk, (uint8_t *)ar->data + send * ar->chunk,
		       ar->chunk);
		/* the stores land before the doorbell that announces them */
		__sync_synchronize();
		ret = ar_send(ar, &out, 1);
		if (ret < 0)
			return ret;
		ret = ar_recv(ar, &m, AR_STEP, 30000);
		if (ret < 0)
			return ret;
		if (got->iter != it || got->step != t)
			return -EPROTO;
		__sync_synchronize();
		if (t < n - 1)
			for (i = 0; i < elems; i++)
				dst[i] += src[i];
		else
			memcpy(dst, src, ar->chunk);
	}
	return 0;
}

static bool ar_check(const struct ar *ar, double *checksum)
{
	uint64_t i, count = ar->size / sizeof(double);
	double ranks = (double)ar->n * (ar->n + 1) / 2, sum = 0;
	bool ok = true;

	for (i = 0; i < count; i++) {
		if (ar->data[i] != ranks * (double)(i % 1000 + 1))
			ok = false;
		sum += ar->data[i];
	}
	*checksum = sum;
	return ok;
}

static void ar_json(const void *arg)
{
	const struct ar_report *r = arg;

	print_str("benchmark", NULL, "allreduce");
	print_u64("ranks", NULL, r->ar->n);
	print_u64("rank", NULL, r->ar->rank);
	print_u64("size", NULL, r->ar->size);
	print_u64("iters", NULL, r->ar->iters);
	print_double("time_us", NULL, r->time_us);
	print_double("algbw_GBps", NULL, r->algbw);
	print_double("busbw_GBps", NULL, r->busbw);
	print_double("checksum", NULL, r->checksum);
	print_bool("verified", NULL, r->ok);
}

static int ar_parse(struct ar *ar, uint32_t self)
{
	const char *w, *v;
	unsigned int i;
	char *s, *e;

	ar->size = 4 << 20;
	ar->iters = 10;
	while ((w = perf_arg_next(ar->p))) {
		v = perf_arg_next(ar->p);
		if (!v)
			return perf_usage(perf_allreduce_help);
		if (!strcmp(w, "nodes")) {
			for (s = (char *)v; *s && ar->n < AR_MAX_RANKS; s = e) {
				ar->nodes[ar->n++] = strtoul(s, &e, 0);
				if (*e == ',')
					e++;
				else if (*e)
					return perf_usage(perf_allreduce_help);
			}
		} else if (!strcmp(w, "size")) {
			if (perf_parse_size(v, &ar->size))
				return perf_usage(perf_allreduce_help);
		} else if (!strcmp(w, "iters")) {
			ar->iters = strtoul(v, NULL, 0);
		} else {
			return perf_usage(perf_allreduce_help);
		}
	}
	for (i = 0; i < ar->n && ar->nodes[i] != self; i++)
		;
	if (ar->n < 2 || i == ar->n || !ar->iters)
		return perf_err("this node (%u) must be in a list of 2 or more nodes",
				self);
	ar->rank = i;
	ar->right.node = ar->nodes[(i + 1) % ar->n];
	ar->right.id = AR_EP;
	ar->right.key = AR_KEY | ar->right.node;
	/* whole elements per step */
	ar->chunk = ar->size / ar->n / sizeof(double) * sizeof(double);
	ar->size = ar->chunk * ar->n;
	ar->slots_len = 2 * (ar->n - 1) * ar->chunk;
	return ar->chunk ? 0 : perf_usage(perf_allreduce_help);
}

int perf_allreduce(struct perf *p)
{
	struct ar ar = { .p = p };
	struct ar_report rep = { .ar = &ar };
	struct snode_import *imp = NULL;
	struct snode_mem *mem = NULL;
	struct snode_info info;
	double t0, total = 0;
	uint32_t it;
	int ret;

	ret = snode_dev_get_info(p->dev, &info, sizeof(info));
	if (ret < 0)
		return perf_lib_err("info", ret);
	ret = ar_parse(&ar, info.out_node_id);
	if (ret)
		return ret;
	ar.data = malloc(ar.size);
	if (!ar.data)
		return perf_err("out of memory");
	ret = ar_setup(&ar, &mem, &imp);
	if (ret < 0)
		goto out;
	for (it = 0; it < ar.iters + AR_WARMUP; it++) {
		ar_init_data(&ar);
		t0 = perf_now();
		ret = ar_run(&ar, it);
		if (ret < 0)
			goto out;
		if (it >= AR_WARMUP)
			total += perf_now() - t0;
	}
	rep.ok = ar_check(&ar, &rep.checksum);
	rep.time_us = total / ar.iters * 1e6;
	rep.algbw = ar.size / (total / ar.iters) / 1e9;
	rep.busbw = rep.algbw * 2 * (ar.n - 1) / ar.n;
	if (!p->json)
		printf("snode-perf allreduce: rank %u of %u (node %u), %llu bytes, %u iterations\n"
		       "  time %.1f us  algbw %.4f GB/s  busbw %.4f GB/s\n"
		       "  result %s, checksum %.17g\n",
		       ar.rank, ar.n, info.out_node_id,
		       (unsigned long long)ar.size, ar.iters, rep.time_us,
		       rep.algbw, rep.busbw, rep.ok ? "verified" : "WRONG",
		       rep.checksum);
	ret = perf_json_report(p, ar_json, &rep);
	if (!ret && !rep.ok)
		ret = 1;
out:
	snode_import_close(imp);
	if (mem)
		snode_mem_free(mem);
	snode_ep_free(ar.ep);
	free(ar.data);
	if (ret < 0)
		return perf_lib_err("allreduce", ret);
	return ret;
}
