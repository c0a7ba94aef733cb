// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-perf dump: how long a scheduler waits for the whole fabric's view,
 * a node dump (every node with its topology, decision 0030) and a link
 * dump, against the 20 ms target of issue 12 for 1024 nodes x 2 links.
 * The baseline beside it is the same netlink round trip with nothing to
 * list (a dev status), so the ratio says what the fabric's size costs.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

#define DUMP_DEFAULT_COUNT	50
#define DUMP_TARGET_MS		20.0

struct dump_report {
	unsigned int nodes, links, with_topo;
	struct perf_lat base, node_dump, link_dump, full;
};

static void dump_json(const void *arg)
{
	const struct dump_report *r = arg;

	print_u64("nodes", NULL, r->nodes);
	print_u64("links", NULL, r->links);
	print_u64("nodes_with_topology", NULL, r->with_topo);
	perf_lat_json("status", &r->base);
	perf_lat_json("node_dump", &r->node_dump);
	perf_lat_json("link_dump", &r->link_dump);
	perf_lat_json("full_dump", &r->full);
	print_double("target_ms", NULL, DUMP_TARGET_MS);
	print_double("full_vs_target", NULL,
		     r->full.median / 1e3 / DUMP_TARGET_MS);
}

void perf_dump_help(FILE *f)
{
	fprintf(f,
		"Usage: snode-perf dump [ count N ]  (default %d)\n"
		"Times a node dump and a link dump of every NIC, alone and back to\n"
		"back, beside a device status request, against %.0f ms.\n",
		DUMP_DEFAULT_COUNT, DUMP_TARGET_MS);
}

/* One node dump; the number of nodes, and how many had a topology. */
static int dump_nodes(struct perf *p, unsigned int *with_topo)
{
	const struct snode_node_info *ni;
	struct snode_node_iter *iter;
	int ret;

	ret = snode_node_list(p->ctx, -1, sizeof(*ni), &iter);
	if (ret < 0)
		return ret;
	*with_topo = 0;
	snode_node_iter_foreach(iter, ni)
		*with_topo += ni->hops && (ni->topo & SNODE_TOPO_HAS_SWITCH);
	snode_node_iter_free(iter);
	return ret;
}

static int dump_links(struct perf *p)
{
	struct snode_link_iter *iter;
	int ret;

	ret = snode_link_list(p->ctx, -1, sizeof(struct snode_link_info), &iter);
	if (ret >= 0)
		snode_link_iter_free(iter);
	return ret;
}

int perf_dump(struct perf *p)
{
	unsigned int count = DUMP_DEFAULT_COUNT, i;
	struct dump_report r = { 0 };
	struct snode_dev_status st;
	double *lat, t0;
	const char *a;
	char *end;
	int ret = 0;

	while ((a = perf_arg_next(p))) {
		if (tool_matches(a, "count") && (a = perf_arg_next(p))) {
			count = strtoul(a, &end, 0);
			if (*end || !count || count > 100000)
				return tool_usage_err("dump: count '%s': 1..100000", a);
		} else {
			return perf_usage(perf_dump_help);
		}
	}
	ret = perf_dev_open(p);
	if (ret)
		return ret;
	lat = calloc(count, sizeof(*lat));
	if (!lat)
		return perf_err("out of memory");
	/* warm: the first dump after attach also reads the fabric's names */
	ret = dump_nodes(p, &r.with_topo);
	for (i = 0; ret >= 0 && i < count; i++) {
		t0 = perf_now();
		ret = snode_dev_get_status(p->dev, &st, sizeof(st));
		lat[i] = (perf_now() - t0) * 1e6;
	}
	if (ret >= 0)
		perf_lat_compute(lat, count, &r.base);
	for (i = 0; ret >= 0 && i < count; i++) {
		t0 = perf_now();
		ret = dump_nodes(p, &r.with_topo);
		lat[i] = (perf_now() - t0) * 1e6;
		r.nodes = ret;
	}
	if (ret >= 0)
		perf_lat_compute(lat, count, &r.node_dump);
	for (i = 0; ret >= 0 && i < count; i++) {
		t0 = perf_now();
		ret = dump_links(p);
		lat[i] = (perf_now() - t0) * 1e6;
		r.links = ret;
	}
	if (ret >= 0)
		perf_lat_compute(lat, count, &r.link_dump);
	for (i = 0; ret >= 0 && i < count; i++) {
		unsigned int topo;

		t0 = perf_now();
		ret = dump_nodes(p, &topo);
		if (ret >= 0)
			ret = dump_links(p);
		lat[i] = (perf_now() - t0) * 1e6;
	}
	if (ret >= 0)
		perf_lat_compute(lat, count, &r.full);
	free(lat);
	if (ret < 0)
		return perf_lib_err("dump", ret);

	if (!p->json) {
		printf("fabric view: %u nodes (%u with a topology), %u links, %u rounds (us)\n",
		       r.nodes, r.with_topo, r.links, count);
		printf("%-28s %10s %10s %10s %10s\n", "", "min", "median",
		       "p99", "mean");
		perf_lat_print("dev status (baseline)", &r.base);
		perf_lat_print("node dump", &r.node_dump);
		perf_lat_print("link dump", &r.link_dump);
		perf_lat_print("node + link dump", &r.full);
		printf("node + link dump median %.2f ms, target %.0f ms: %.2fx the target; %.1fx the baseline\n",
		       r.full.median / 1e3, DUMP_TARGET_MS,
		       r.full.median / 1e3 / DUMP_TARGET_MS,
		       r.base.median > 0 ? r.full.median / r.base.median : 0);
	}
	return perf_json_report(p, dump_json, &r);
}
