// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: tests/test-route.c - routing and failover
 */
#define _GNU_SOURCE
#include <string.h>

#include "tap.h"

static struct fm_link *link_of(struct fm_fabric *f, uint32_t node, uint32_t port)
{
	return fm_port_link(f, node, port);
}

static struct fm_link *isl(struct fm_fabric *f, const char *a, const char *b)
{
	int ia = fm_switch_find(f, a), ib = fm_switch_find(f, b);
	uint32_t i;

	for (i = 0; i < f->nlinks; i++)
		if (f->links[i].a.kind == FM_END_SWITCH &&
		    f->links[i].b.kind == FM_END_SWITCH &&
		    (int)f->links[i].a.id == ia && (int)f->links[i].b.id == ib)
			return &f->links[i];
	return NULL;
}

static void all_up(struct fm_fabric *f)
{
	for (uint32_t i = 0; i < FM_MAX_NODES; i++)
		if (f->node[i])
			f->node[i]->life = FM_LIFE_UP;
}

static void b2b(void)
{
	struct fm_fabric f;
	uint8_t r;

	if (tap_fabric(&f, "node 0-1\nlink 0.0 1.0\nlink 0.1 1.1\n"))
		return;
	all_up(&f);
	ok(fm_route_port(&f, 0, 1) == 0 && fm_route_port(&f, 1, 0) == 0,
	   "b2b: route is the lowest port");
	fm_link_set_admin(&f, link_of(&f, 0, 0), false);
	fm_sync(&f);
	ok(fm_route_port(&f, 0, 1) == 1 && fm_node_view(&f, 0, 1, &r) ==
	   SNODE_FM_NODE_UP && r == 1, "b2b: port 0 down moves the route to 1");
	fm_link_set_admin(&f, link_of(&f, 0, 1), false);
	fm_sync(&f);
	ok(!fm_reachable(&f, 0, 1) && fm_node_view(&f, 0, 1, &r) ==
	   SNODE_FM_NODE_UNREACHABLE && r == FM_NO_ROUTE,
	   "b2b: both down -> unreachable");
	fm_link_set_admin(&f, link_of(&f, 1, 1), true);
	fm_sync(&f);
	ok(fm_route_port(&f, 0, 1) == 1, "b2b: port 1 back -> route 1");
	fm_link_set_admin(&f, link_of(&f, 0, 0), true);
	fm_sync(&f);
	ok(fm_route_port(&f, 0, 1) == 0, "b2b: port 0 back -> route 0 again");
	fm_link_set_lanes(&f, link_of(&f, 0, 0), 1);
	fm_link_reset(&f, link_of(&f, 0, 1));
	fm_sync(&f);
	ok(fm_route_port(&f, 0, 1) == 0 &&
	   fm_link_oper(link_of(&f, 0, 0), f.now) == SNODE_FM_PORT_DEGRADED &&
	   fm_link_oper(link_of(&f, 0, 1), f.now) == SNODE_FM_PORT_TRAINING &&
	   fm_reachable(&f, 1, 0),
	   "b2b: degraded and training links still route");
	fm_fabric_free(&f);
}

static void dual_plane(void)
{
	struct fm_fabric f;
	uint8_t r;

	if (tap_fabric(&f, "switch p0\nswitch p1\nnode 0-3\nlink 0-3.0 p0\nlink 0-3.1 p1\n"))
		return;
	all_up(&f);
	fm_link_set_admin(&f, link_of(&f, 1, 0), false);
	fm_sync(&f);
	ok(fm_route_port(&f, 0, 1) == 1 && fm_route_port(&f, 0, 2) == 0 &&
	   fm_route_port(&f, 1, 2) == 1,
	   "dual plane: a node's plane-0 cable down moves only its routes");
	fm_link_set_admin(&f, link_of(&f, 1, 1), false);
	fm_sync(&f);
	ok(!fm_reachable(&f, 0, 1) && fm_reachable(&f, 0, 2) &&
	   fm_node_view(&f, 2, 1, &r) == SNODE_FM_NODE_UNREACHABLE,
	   "dual plane: isolated node unreachable, others fine");
	f.node[3]->life = FM_LIFE_DEAD;
	ok(fm_node_view(&f, 0, 3, &r) == SNODE_FM_NODE_DEAD,
	   "dual plane: dead beats reachable");
	f.node[3]->life = FM_LIFE_UNKNOWN;
	ok(fm_node_view(&f, 0, 3, &r) == SNODE_FM_NODE_UNKNOWN,
	   "dual plane: never attached is unknown");
	fm_fabric_free(&f);
}

static void two_racks(void)
{
	char path[4096], err[256];
	struct fm_fabric f;

	snprintf(path, sizeof(path), "%s/8-two-racks.topo", tap_topo_dir);
	fm_fabric_init(&f);
	if (fm_topo_parse_file(&f, path, err, sizeof(err))) {
		ok(0, "two racks: parse: %s", err);
		return;
	}
	all_up(&f);
	ok(fm_route_port(&f, 0, 5) == 0 && fm_route_port(&f, 0, 1) == 0,
	   "two racks: all routes on port 0");
	fm_link_set_admin(&f, isl(&f, "rack0p0", "rack1p0"), false);
	fm_sync(&f);
	ok(fm_route_port(&f, 0, 5) == 1 && fm_route_port(&f, 0, 1) == 0 &&
	   fm_route_port(&f, 6, 7) == 0,
	   "two racks: plane-0 inter-rack cut moves only cross-rack routes");
	fm_link_set_admin(&f, isl(&f, "rack0p1", "rack1p1"), false);
	fm_sync(&f);
	ok(!fm_reachable(&f, 0, 5) && fm_reachable(&f, 0, 3) &&
	   fm_reachable(&f, 4, 7), "two racks: both cut -> two islands");
	fm_fabric_free(&f);
}

/* fm_route_topo() agrees with fm_route_path() on every pair. */
static void topo_matches_paths(struct fm_fabric *f, const char *what)
{
	struct fm_topo topo[FM_MAX_NODES];
	uint32_t a, b, path[64], bad = 0, pairs = 0;

	for (a = 0; a < FM_MAX_NODES; a++) {
		if (!f->node[a])
			continue;
		fm_route_topo(f, f->node[a], topo);
		for (b = 0; b < FM_MAX_NODES; b++) {
			int n;

			if (!f->node[b] || a == b)
				continue;
			n = fm_route_path(f, a, b, path, 64);
			pairs++;
			if (n < 0) {
				bad += topo[b].hops != 0;
				continue;
			}
			bad += topo[b].hops != n;
			if (f->links[path[n - 1]].b.kind == FM_END_SWITCH)
				bad += topo[b].sw != f->links[path[n - 1]].b.id ||
				       topo[b].plane != f->sw_plane[topo[b].sw];
			else
				bad += topo[b].sw != SNODE_FM_NO_ID;
		}
	}
	ok(pairs && !bad, "%s: route topology matches the paths of %u pairs (%u differ)",
	   what, pairs, bad);
}

static void route_topology(void)
{
	char path[4096], err[256];
	struct fm_fabric f;
	struct fm_topo topo[FM_MAX_NODES];

	snprintf(path, sizeof(path), "%s/8-two-racks.topo", tap_topo_dir);
	fm_fabric_init(&f);
	if (fm_topo_parse_file(&f, path, err, sizeof(err))) {
		ok(0, "route topology: parse: %s", err);
		return;
	}
	all_up(&f);
	fm_route_topo(&f, f.node[0], topo);
	ok(topo[1].hops == 2 && topo[1].sw == fm_switch_find(&f, "rack0p0") &&
	   topo[1].plane == 0 && topo[5].hops == 3 &&
	   topo[5].sw == fm_switch_find(&f, "rack1p0") && topo[5].plane == 0 &&
	   topo[0].hops == 0, "route topology: own rack 2 hops, other rack 3, by plane 0");
	topo_matches_paths(&f, "two racks");
	fm_link_set_admin(&f, isl(&f, "rack0p0", "rack1p0"), false);
	fm_sync(&f);
	fm_route_topo(&f, f.node[0], topo);
	ok(topo[5].hops == 3 && topo[5].sw == fm_switch_find(&f, "rack1p1") &&
	   topo[5].plane == 1 && topo[1].plane == 0,
	   "route topology: plane-0 inter-rack cut moves node 5 to plane 1");
	topo_matches_paths(&f, "two racks, one cut");
	fm_link_set_admin(&f, isl(&f, "rack0p1", "rack1p1"), false);
	fm_sync(&f);
	fm_route_topo(&f, f.node[0], topo);
	ok(topo[5].hops == 0 && topo[5].sw == SNODE_FM_NO_ID &&
	   topo[5].plane == FM_NO_PLANE, "route topology: unreachable has none");
	fm_fabric_free(&f);
	if (tap_fabric(&f, "node 0-1\nlink 0.0 1.0\nlink 0.1 1.1\n"))
		return;
	all_up(&f);
	fm_route_topo(&f, f.node[0], topo);
	ok(topo[1].hops == 1 && topo[1].sw == SNODE_FM_NO_ID,
	   "route topology: back to back is 1 hop, no switch");
	fm_fabric_free(&f);
	snprintf(path, sizeof(path), "%s/1024-sim.topo", tap_topo_dir);
	fm_fabric_init(&f);
	if (fm_topo_parse_file(&f, path, err, sizeof(err))) {
		ok(0, "route topology: 1024: parse: %s", err);
		return;
	}
	all_up(&f);
	fm_route_topo(&f, f.node[0], topo);
	ok(topo[31].hops == 2 && topo[32].hops == 4 && topo[1023].hops == 4 &&
	   topo[1023].sw == fm_switch_find(&f, "r31p0") &&
	   f.node[1023]->rack == fm_rack_find(&f, "rack31"),
	   "route topology: 1024 nodes: own rack 2 hops, others 4 through the spine");
	fm_fabric_free(&f);
}

static void unreachable_revokes(void)
{
	struct fm_fabric f;
	struct snode_fm_grant g = {
		.att_index = 3, .perm = 1, .node = 2, .export_id = 0,
		.key = 9, .offset = 0, .len = 4096,
	};
	struct snode_fm_grant_reply r;

	if (tap_fabric(&f, "switch p0\nswitch p1\nnode 0-1\nnode 2 sim pool 1M\n"
		       "link 0-2.0 p0\nlink 0-2.1 p1\n"
		       "export 2 0 offset 0 len 64K key 9 perm r\n"))
		return;
	all_up(&f);
	ok(fm_grant_take(&f, 0, &g, &r) == SNODE_FM_OK, "grant onto a sim node");
	g.att_index = 4;
	ok(fm_grant_take(&f, 1, &g, &r) == SNODE_FM_OK, "second importer");
	fm_link_set_admin(&f, link_of(&f, 0, 0), false);
	fm_sync(&f);
	ok(f.ngrants == 2, "one path left: grants stay");
	fm_link_set_admin(&f, link_of(&f, 0, 1), false);
	fm_sync(&f);
	ok(f.ngrants == 1 && f.grants[0].importer == 1,
	   "no path left: only the cut-off importer's grant is revoked");
	fm_fabric_free(&f);
}

void test_route(void)
{
	route_topology();
	b2b();
	dual_plane();
	two_racks();
	unreachable_revokes();
}
