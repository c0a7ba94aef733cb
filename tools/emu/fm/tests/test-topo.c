// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: tests/test-topo.c - topology parsing
 *
 * Every shipped example parses to the shape its comment promises; every
 * bad snippet is rejected with the right line number and reason.
 */
#define _GNU_SOURCE
#include <string.h>

#include "tap.h"

static const struct {
	const char *file;
	uint32_t nodes, sim, switches, links, exports;
	const char *hosts;
} examples[] = {
	{ "2-b2b.topo", 2, 0, 0, 2, 0, "host 0 node 0\nhost 1 node 1\n" },
	{ "4-dual-plane.topo", 4, 0, 2, 8, 0, NULL },
	{ "4-dual-plane-sim.topo", 4, 3, 2, 8, 3, "host 0 node 0\n" },
	{ "8-two-racks.topo", 8, 0, 4, 18, 0, NULL },
	{ "2nic-host.topo", 3, 0, 2, 6, 0, "host 0 node 0 node 1\nhost 1 node 2\n" },
	{ "256-sim.topo", 257, 256, 2, 514, 256, "host 0 node 0\n" },
	{ "1024-sim.topo", 1024, 1023, 66, 2112, 1023, "host 0 node 0\n" },
};

static const struct {
	const char *text;
	const char *line;	/* ":N:" */
	const char *reason;
} bad[] = {
	{ "fabric 1\nnodee 0\n", ":2:", "unknown keyword 'nodee'" },
	{ "node x\n", ":1:", "bad node id" },
	{ "node 0\n\nnode 0\n", ":3:", "duplicate node 0" },
	{ "node 0-2\nnode 1\n", ":2:", "duplicate node 1" },
	{ "node 0 ports 2\nnode 1\nlink 0.2 1.0\n", ":3:", "port 2 out of range" },
	{ "node 0 ports 9\n", ":1:", "ports 9 out of range" },
	{ "node 0-2\nlink 0.0 1.0\nlink 0.0 2.0\n", ":3:", "used twice" },
	{ "node 0\nlink 0.0 sw9\n", ":2:", "unknown switch 'sw9'" },
	{ "node 0\nlink 0.0 5.0\n", ":2:", "unknown node 5" },
	{ "node 0 pool 3M\n", ":1:", "not a power of two" },
	{ "node 0 pool 2K\n", ":1:", "not a power of two" },
	{ "node 0 pool 4x\n", ":1:", "bad size" },
	{ "node 1024\n", ":1:", ">= 1024" },
	{ "node 1000-1030 sim\n", ":1:", ">= 1024" },
	{ "node 1 sim pool 4M\nexport 1 0 offset 2M len 4M key 1 perm r\n", ":2:",
	  "outside the pool" },
	{ "node 0\nexport 0 0 offset 0 len 4K key 1 perm r\n", ":2:",
	  "not a sim node" },
	{ "node 1 sim\nexport 1 300 offset 0 len 4K key 1 perm r\n", ":2:",
	  "export id 300 out of range" },
	{ "node 1 sim\nexport 1 0 offset 0 len 4K key 1 perm x\n", ":2:",
	  "bad perm" },
	{ "node 1 sim\nexport 1 0 offset 1 len 4K key 1 perm r\n", ":2:",
	  "4K multiples" },
	{ "node 1 sim\nexport 1 0 offset 0 len 4K perm r\n", ":2:",
	  "needs offset, len, key and perm" },
	{ "node 1 sim\nexport 1 0 offset 0 len 4K key 1 perm r\nexport 1 0 offset 0 len 4K key 1 perm r\n",
	  ":3:", "duplicate export 0" },
	{ "fabric 1\n\n# comment\nswitch a\nswitch a\n", ":5:", "duplicate switch" },
	{ "switch 9x\n", ":1:", "bad switch name" },
	{ "node 0 sim host 3\n", ":1:", "no host" },
	{ "node 0\nlink 0.0 0.1\n", ":2:", "to itself" },
	{ "switch a\nlink a a\n", ":2:", "to itself" },
	{ "node 0-1\nlink 0.0 1.0 ber 2\n", ":2:", "ber 2 out of range" },
	{ "node 0-1\nlink 0.0 1.0 lanes x\n", ":2:", "bad number 'x' for lanes" },
	{ "node 0-1\nlink 0.0 1.0 speed 0\n", ":2:", "speed must be >= 1" },
	{ "node 0-1\nlink 0.0 1.0 colour red\n", ":2:", "unknown link option" },
	{ "node 0-1\nlink 0.0\n", ":2:", "usage: link" },
	{ "node 0-3\nswitch s\nlink 0-3.0 s\nlink 0-1.1 2.1\n", ":4:",
	  "different lengths" },
	{ "defaults pool 256M colour red\n", ":1:", "unknown defaults option" },
	{ "fabric 1\nfabric 2\n", ":2:", "fabric given twice" },
	{ "fabric 70000\n", ":1:", "fabric 70000 out of range" },
	{ "node 0 speed 3\n", ":1:", "unknown node option" },
	{ "# nothing\n", ":1:", "no nodes defined" },
	/* topology: planes and racks (decision 0030) */
	{ "switch a plane 255\n", ":1:", "plane 255 out of range" },
	{ "switch a plane x\n", ":1:", "bad number 'x' for plane" },
	{ "switch a plane\n", ":1:", "usage: switch NAME [plane P]" },
	{ "switch a colour 1\n", ":1:", "unknown switch option 'colour'" },
	{ "switch a_name_of_twenty_four_ch\n", ":1:", "too long" },
	{ "rack r0\nrack r0\n", ":2:", "duplicate rack 'r0'" },
	{ "rack 0r\n", ":1:", "bad rack name" },
	{ "rack\n", ":1:", "usage: rack NAME" },
	{ "switch s\nrack s\n", ":2:", "has the name of a switch" },
	{ "rack s\nswitch s\n", ":2:", "has the name of a rack" },
	{ "rack r0\nnode 0 rack r1\n", ":2:", "unknown rack 'r1'" },
	{ "rack r0\nnode 0 rack\n", ":2:", "missing value for rack" },
};

static void check_examples(void)
{
	size_t i;

	for (i = 0; i < sizeof(examples) / sizeof(examples[0]); i++) {
		struct fm_fabric f;
		struct fm_buf h = { 0 };
		char path[4096], err[256] = "";
		uint32_t sim = 0, exp = 0, n, e;
		int ret;

		snprintf(path, sizeof(path), "%s/%s", tap_topo_dir, examples[i].file);
		fm_fabric_init(&f);
		ret = fm_topo_parse_file(&f, path, err, sizeof(err));
		ok(!ret, "example %s parses%s%s", examples[i].file,
		   ret ? ": " : "", err);
		for (n = 0; n < FM_MAX_NODES; n++) {
			if (!f.node[n])
				continue;
			sim += f.node[n]->sim;
			for (e = 0; e < FM_MAX_EXPORTS; e++)
				exp += !!f.node[n]->exports[e];
		}
		ok(f.nnodes == examples[i].nodes && sim == examples[i].sim &&
		   f.nswitches == examples[i].switches &&
		   f.nlinks == examples[i].links && exp == examples[i].exports,
		   "example %s: %u nodes (%u sim), %u switches, %u links, %u exports",
		   examples[i].file, f.nnodes, sim, f.nswitches, f.nlinks, exp);
		if (examples[i].hosts) {
			fm_topo_hosts(&f, &h);
			ok(h.s && !strcmp(h.s, examples[i].hosts),
			   "example %s: hosts", examples[i].file);
			fm_buf_free(&h);
		}
		fm_fabric_free(&f);
	}
}

static void check_bad(void)
{
	size_t i;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct fm_fabric f;
		char err[256] = "";
		int ret;

		fm_fabric_init(&f);
		ret = fm_topo_parse_string(&f, "bad.topo", bad[i].text, err,
					   sizeof(err));
		ok(ret && !strncmp(err, "bad.topo", 8) && strstr(err, bad[i].line) &&
		   strstr(err, bad[i].reason),
		   "bad snippet %zu rejected with %s %s (got '%s')", i,
		   bad[i].line, bad[i].reason, err);
		fm_fabric_free(&f);
	}
}

static void check_details(void)
{
	struct fm_fabric f;
	char err[256];
	struct fm_buf h = { 0 };

	if (!tap_fabric(&f, "fabric 7\ndefaults pool 64M ports 3 lanes 2 speed 50 ber 1e-12\n"
			"switch sw0\nnode 0 host 4 pool 8M\nnode 1\nnode 2-3 sim\n"
			"link 0.0 sw0\nlink 1.0 sw0 lanes 4\nlink 0.2 1.2 speed 25\n"
			"link 2-3.1 sw0\n"
			"export 2-3 1 offset 4K len 8K key 0x1234 perm rw nodes 0,1\n")) {
		struct fm_node *n0 = f.node[0], *n2 = f.node[2];

		ok(f.fabric_id == 7 && n0->host == 4 && n0->pool_size == 8 << 20 &&
		   f.node[1]->pool_size == 64 << 20 && n0->nports == 3,
		   "defaults and node options apply");
		ok(f.links[0].max_lanes == 2 && f.links[1].max_lanes == 4 &&
		   f.links[2].speed == 25 && f.links[0].ber == 1e-12,
		   "defaults and link options apply");
		ok(n2->sim && n2->exports[1] && n2->exports[1]->key == 0x1234 &&
		   !n2->exports[1]->all_nodes && n2->exports[1]->nodemask[0] == 3 &&
		   n2->exports[1]->perm == 3 && f.node[3]->exports[1],
		   "export ranges, key, perm and node list");
		fm_topo_hosts(&f, &h);
		ok(h.s && !strcmp(h.s, "host 4 node 0\nhost 1 node 1\n"),
		   "hosts skips sim nodes and honours host");
		fm_buf_free(&h);
		fm_fabric_free(&f);
	}
	fm_fabric_init(&f);
	ok(!fm_topo_builtin(&f, 2, err, sizeof(err)) && f.nlinks == 2 &&
	   f.nswitches == 0 && f.links[1].a.port == 1 && f.links[1].b.port == 1,
	   "--nodes 2 is two back-to-back cables");
	fm_fabric_free(&f);
	fm_fabric_init(&f);
	ok(!fm_topo_builtin(&f, 5, err, sizeof(err)) && f.nlinks == 10 &&
	   f.nswitches == 2 && f.nnodes == 5 && f.sw_plane[0] == 0 &&
	   f.sw_plane[1] == 1, "--nodes 5 is a dual-plane star, planes 0 and 1");
	fm_fabric_free(&f);
	if (!tap_fabric(&f, "rack ra\nrack rb\nswitch s0 plane 3\nswitch s1\n"
			"node 0 rack rb\nnode 1-2 rack ra\nnode 3\n")) {
		ok(f.nracks == 2 && !strcmp(f.rack_name[1], "rb") &&
		   f.node[0]->rack == 1 && f.node[1]->rack == 0 &&
		   f.node[2]->rack == 0 && f.node[3]->rack == FM_NO_RACK,
		   "racks: declared in order, a node without one has none");
		ok(f.sw_plane[0] == 3 && f.sw_plane[1] == FM_NO_PLANE,
		   "planes: given, or none");
		fm_fabric_free(&f);
	}
}

void test_topo(void)
{
	check_examples();
	check_bad();
	check_details();
}
