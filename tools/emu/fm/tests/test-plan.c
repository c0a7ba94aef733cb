// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: tests/test-plan.c - check --redundancy and plan
 *
 * Redundancy verdicts on the shipped and on constructed topologies with
 * the exact error lines; workload file errors with their line numbers;
 * the sizing formulas on the guide's worked example; per-link loads of a
 * ring allreduce and an all-to-all worked out by hand; the oversubscribed
 * inter-rack cable of 8-two-racks; single points of failure; and the
 * guide's example output, byte for byte, from the real binary.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tap.h"

static bool near(double a, double b)
{
	return fabs(a - b) <= 1e-6 * (fabs(b) + 1);
}

/* ---- redundancy ---- */

static const struct {
	const char *file;
	int pass;
	const char *err;	/* all error lines, NULL: not compared */
} red_shipped[] = {
	{ "2-b2b.topo", 0,
	  "T:8: node 0: 2 links, to node 1 (back to back) and node 1 (back to back) (no switch)\n"
	  "T:9: node 1: 2 links, to node 0 (back to back) and node 0 (back to back) (no switch)\n" },
	{ "bench-2.topo", 0, NULL },
	{ "4-dual-plane.topo", 1, NULL },
	{ "4-dual-plane-sim.topo", 1, NULL },
	{ "8-two-racks.topo", 1, NULL },
	{ "2nic-host.topo", 1, NULL },
	{ "256-sim.topo", 1, NULL },
	{ "mem-sim.topo", 1, NULL },
};

static const struct {
	const char *text;
	const char *err;	/* NULL: redundant */
} red_built[] = {
	{ "switch S1\nswitch S2\nnode 0-2\nnode 3\nlink 0-2.0 S1\nlink 0-2.1 S2\nlink 3.0 S1\n",
	  "r.topo:4: node 3: one link, to switch S1\n" },
	{ "switch s0\nnode 0\nnode 1\nlink 0.0 s0\nlink 0.1 s0\nlink 1.0 s0\n",
	  "r.topo:2: node 0: 2 links, to switch s0 and switch s0 (one switch)\n"
	  "r.topo:3: node 1: one link, to switch s0\n" },
	{ "switch a\nswitch b\nnode 0-1\nnode 2 sim ports 3\nlink 0-2.0 a\nlink 0-2.1 b\n",
	  NULL },
	{ "switch a\nnode 0 ports 3\nnode 1\nlink 0.0 a\nlink 0.1 1.1\nlink 1.0 a\n",
	  "r.topo:2: node 0: 2 links, to switch a and node 1 (back to back) (one switch)\n"
	  "r.topo:3: node 1: 2 links, to switch a and node 0 (back to back) (one switch)\n" },
	{ "switch a\nswitch b\nnode 0-1\nnode 5\nlink 0-1.0 a\nlink 0-1.1 b\n",
	  "r.topo:4: node 5: no links\n" },
};

static void check_redundancy(void)
{
	size_t i;

	for (i = 0; i < sizeof(red_shipped) / sizeof(red_shipped[0]); i++) {
		struct fm_buf out = { 0 }, err = { 0 };
		struct fm_fabric f;
		char path[4096], e[256];
		int ret;

		snprintf(path, sizeof(path), "%s/%s", tap_topo_dir, red_shipped[i].file);
		fm_fabric_init(&f);
		if (fm_topo_parse_file(&f, path, e, sizeof(e))) {
			ok(0, "redundancy %s: parses (%s)", red_shipped[i].file, e);
			continue;
		}
		ret = fm_redundancy_check(&f, "T", &out, &err);
		ok(red_shipped[i].pass ? !ret && out.s && strstr(out.s, "redundant: ") :
					 ret && err.s && !out.s,
		   "redundancy %s: %s", red_shipped[i].file,
		   red_shipped[i].pass ? "passes" : "fails");
		if (red_shipped[i].err)
			ok(err.s && !strcmp(err.s, red_shipped[i].err),
			   "redundancy %s: exact errors (got '%s')",
			   red_shipped[i].file, err.s ? err.s : "");
		fm_buf_free(&out);
		fm_buf_free(&err);
		fm_fabric_free(&f);
	}
	for (i = 0; i < sizeof(red_built) / sizeof(red_built[0]); i++) {
		struct fm_buf out = { 0 }, err = { 0 };
		struct fm_fabric f;
		char e[256];
		int ret;

		fm_fabric_init(&f);
		if (fm_topo_parse_string(&f, "r.topo", red_built[i].text, e, sizeof(e))) {
			ok(0, "redundancy snippet %zu parses (%s)", i, e);
			continue;
		}
		ret = fm_redundancy_check(&f, "r.topo", &out, &err);
		if (red_built[i].err)
			ok(ret && err.s && !strcmp(err.s, red_built[i].err),
			   "redundancy snippet %zu: exact errors (got '%s')", i,
			   err.s ? err.s : "");
		else
			ok(!ret && out.s &&
			   !strcmp(out.s, "redundant: 3 nodes, each with >= 2 paths via distinct switches\n"),
			   "redundancy snippet %zu: redundant line (got '%s')", i,
			   out.s ? out.s : "");
		fm_buf_free(&out);
		fm_buf_free(&err);
		fm_fabric_free(&f);
	}
}

/* ---- workload files ---- */

#define WL_OK	"jobs_per_day = 1920\nunits_per_job = 1000\nseconds_per_unit = 0.216\n" \
		"model_size = 10G\nsync_interval = 0.1\n"

static const struct {
	const char *text;
	const char *err;	/* the whole message */
} wl_bad[] = {
	{ WL_OK "data_per_sync = 1G\npattern = ring-allreduce\ncolour = red\n",
	  "w.wl:8: unknown key 'colour'" },
	{ "# c\n\njobs_per_day = 12x\n", "w.wl:3: bad number '12x' for jobs_per_day" },
	{ WL_OK "data_per_sync = 1Q\n", "w.wl:6: bad number '1Q' for data_per_sync" },
	{ WL_OK "data_per_sync = 1G\n", "w.wl:6: missing key 'pattern'" },
	{ WL_OK "pattern = all-to-all\n", "w.wl:6: missing key 'data_per_sync'" },
	{ "jobs_per_day = 1\njobs_per_day = 2\n",
	  "w.wl:2: jobs_per_day given twice (first on line 1)" },
	{ "sync_interval = 0\n",
	  "w.wl:1: sync_interval must be > 0 (a sync every 0 s needs infinite bandwidth)" },
	{ "utilisation = 1.5\n", "w.wl:1: utilisation 1.5 outside (0, 1]" },
	{ "\nutilization = 0\n", "w.wl:2: utilisation 0 outside (0, 1]" },
	{ "headroom = -0.1\n", "w.wl:1: headroom -0.1 outside [0, 1]" },
	{ "pattern = star\n",
	  "w.wl:1: bad pattern 'star' (all-to-all, ring-allreduce or matrix FILE)" },
	{ "jobs_per_day 5\n", "w.wl:1: want KEY = VALUE" },
	{ "model_size =\n", "w.wl:1: missing value for model_size" },
	{ "nodes = 3-1\n", "w.wl:1: bad node list '3-1'" },
	{ "pattern = matrix /nonexistent/m\n",
	  "w.wl:1: pattern matrix: /nonexistent/m: No such file or directory" },
};

static void check_workload_errors(void)
{
	struct fm_workload w;
	char err[512];
	size_t i;
	int ret;

	for (i = 0; i < sizeof(wl_bad) / sizeof(wl_bad[0]); i++) {
		err[0] = 0;
		ret = fm_workload_parse_string(&w, "w.wl", wl_bad[i].text, err,
					       sizeof(err));
		ok(ret && !strcmp(err, wl_bad[i].err),
		   "workload error %zu: '%s' (got '%s')", i, wl_bad[i].err, err);
		fm_workload_free(&w);
	}
	ret = fm_matrix_parse_string(&w, "m.tm", "0 1 1G\n# x\n2 2 5\n", err, sizeof(err));
	ok(ret && !strcmp(err, "m.tm:3: node 2 sends to itself"),
	   "matrix error with its line (got '%s')", err);
	fm_workload_free(&w);
	memset(&w, 0, sizeof(w));
	ret = fm_matrix_parse_string(&w, "m.tm", "0 1\n", err, sizeof(err));
	ok(ret && !strcmp(err, "m.tm:1: want SRC DST BYTES"),
	   "matrix line needs three fields (got '%s')", err);
	fm_workload_free(&w);
	ret = fm_workload_parse_string(&w, "w.wl", WL_OK "data_per_sync = 2TB\n"
				       "sync_interval2 = 1\n", err, sizeof(err));
	ok(ret && strstr(err, "w.wl:7: unknown key"), "unknown key after valid lines");
	fm_workload_free(&w);
	ret = fm_workload_parse_string(&w, "w.wl", WL_OK "data_per_sync = 2TB\n"
				       "pattern = ring-allreduce\nheadroom = 0.3\n"
				       "utilization = 0.8\n", err, sizeof(err));
	ok(!ret && w.sync_bytes == 2e12 && w.headroom == 0.3 &&
	   w.utilisation == 0.8 && w.pattern == FM_PAT_RING && w.sync_interval == 0.1 &&
	   w.model_bytes == 10e9,
	   "a good workload: decimal sizes, both spellings, overrides (%s)", ret ? err : "");
	fm_workload_free(&w);
	ret = fm_workload_parse_string(&w, "w.wl", "jobs_per_day = 1\nunits_per_job = 1\n"
				       "seconds_per_unit = 250ms\nmodel_size = 1GiB\n"
				       "data_per_sync = 1Ki\nsync_interval = 500us\n"
				       "pattern = all-to-all\n", err, sizeof(err));
	ok(!ret && w.utilisation == FM_PLAN_DEF_UTIL && w.headroom == FM_PLAN_DEF_HEADROOM &&
	   near(w.seconds_per_unit, 0.25) && w.model_bytes == 1073741824.0 &&
	   w.sync_bytes == 1024 && near(w.sync_interval, 0.0005),
	   "defaults 0.75 and 0.25; binary sizes; ms and us (%s)", ret ? err : "");
	fm_workload_free(&w);
}

/* ---- plans ---- */

static int plan_run(const char *topo, const char *wl, struct fm_fabric *f,
		    struct fm_workload *w, struct fm_plan *p, char *err, size_t len)
{
	fm_fabric_init(f);
	memset(w, 0, sizeof(*w));
	memset(p, 0, sizeof(*p));
	if (fm_topo_parse_string(f, "p.topo", topo, err, len) ||
	    fm_workload_parse_string(w, "p.wl", wl, err, len))
		return -1;
	return fm_plan_compute(f, "p.topo", w, p, err, len);
}

static void plan_done(struct fm_fabric *f, struct fm_workload *w, struct fm_plan *p)
{
	fm_plan_free(p);
	fm_workload_free(w);
	fm_fabric_free(f);
}

/* gigabits per second on link i, direction d */
static double gbps(const struct fm_plan *p, int i, int d)
{
	return p->load[i][d] * 8 / 1e9;
}

/*
 * Two switches of two nodes each, one 40 Gb/s cable between them:
 *   0,1 - s0 ==40G== s1 - 2,3        node links 4 x 100 = 400 Gb/s
 * links: 0 = 0.0-s0, 1 = 1.0-s0, 2 = 2.0-s1, 3 = 3.0-s1, 4 = s0-s1.
 * Every node puts 3 GB per 1 s sync on the wire: 24 Gb/s.
 * Ring 0>1>2>3>0: 1>2 crosses s0>s1, 3>0 crosses s1>s0; 24 Gb/s each way
 * on the cable (60 %), every node link 24 Gb/s each way (6 %).
 * All-to-all: 8 Gb/s per pair; 0,1 send 2 x 8 each across: 32 Gb/s each
 * way on the cable, exactly 80 %, which is not over 80 %.
 */
#define SMALL_TOPO	"switch s0\nswitch s1\nnode 0-3\nlink 0-1.0 s0\nlink 2-3.0 s1\n" \
			"link s0 s1 lanes 1 speed 40\n"
#define SMALL_WL	"jobs_per_day = 0\nunits_per_job = 1\nseconds_per_unit = 1\n" \
			"model_size = 1G\ndata_per_sync = 3G\nsync_interval = 1\n"

static void check_small(void)
{
	struct fm_fabric f;
	struct fm_workload w;
	struct fm_plan p;
	char err[512] = "";
	bool nodes_ok = true;
	int i;

	if (plan_run(SMALL_TOPO, SMALL_WL "pattern = ring-allreduce\n", &f, &w, &p,
		     err, sizeof(err))) {
		ok(0, "ring plan computes (%s)", err);
	} else {
		for (i = 0; i < 4; i++)
			nodes_ok &= near(gbps(&p, i, 0), 24) && near(gbps(&p, i, 1), 24);
		ok(nodes_ok, "ring: every node link 24 Gb/s each way");
		ok(near(gbps(&p, 4, 0), 24) && near(gbps(&p, 4, 1), 24) && p.nover == 0,
		   "ring: the s0-s1 cable 24 / 24 Gb/s (60 %%), nothing over 80 %% (%g / %g)",
		   gbps(&p, 4, 0), gbps(&p, 4, 1));
	}
	plan_done(&f, &w, &p);
	nodes_ok = true;
	if (plan_run(SMALL_TOPO, SMALL_WL "pattern = all-to-all\n", &f, &w, &p,
		     err, sizeof(err))) {
		ok(0, "all-to-all plan computes (%s)", err);
	} else {
		for (i = 0; i < 4; i++)
			nodes_ok &= near(gbps(&p, i, 0), 24) && near(gbps(&p, i, 1), 24);
		ok(nodes_ok, "all-to-all: every node link 24 Gb/s each way");
		ok(near(gbps(&p, 4, 0), 32) && near(gbps(&p, 4, 1), 32) && p.nover == 0,
		   "all-to-all: the cable 32 / 32 Gb/s, exactly 80 %%, not flagged (%g / %g)",
		   gbps(&p, 4, 0), gbps(&p, 4, 1));
		ok(p.nspof == 2 && p.spof[0].lost && p.spof[0].a == 0 && p.spof[0].b == 1 &&
		   p.spof[1].lost && p.spof[1].a == 0 && p.spof[1].b == 2,
		   "both switches are single points of failure (s0: 0 loses 1; s1: 0 loses 2)");
	}
	plan_done(&f, &w, &p);
	/* 1 GB more from node 0 to node 2 tips the cable over 80 % */
	{
		char path[] = "/tmp/snode-fm-test-matrixXXXXXX", wl[4096];
		int fd = mkstemp(path);
		static const char m[] = "0 1 3G\n0 2 4G # 4 GB: 32 Gb/s\n1 2 1G\n";

		if (fd < 0 || write(fd, m, sizeof(m) - 1) != (ssize_t)sizeof(m) - 1) {
			ok(0, "matrix temp file");
		} else {
			snprintf(wl, sizeof(wl), "jobs_per_day = 0\nunits_per_job = 1\n"
				 "seconds_per_unit = 1\nmodel_size = 1G\nsync_interval = 1\n"
				 "pattern = matrix %s\n", path);
			if (plan_run(SMALL_TOPO, wl, &f, &w, &p, err, sizeof(err)))
				ok(0, "matrix plan computes (%s)", err);
			else
				ok(near(gbps(&p, 4, 0), 40) && near(gbps(&p, 4, 1), 0) &&
				   near(gbps(&p, 0, 0), 56) && near(gbps(&p, 2, 1), 40) &&
				   p.nover == 1 && near(p.sync_bytes, 7e9),
				   "matrix: cable 40 Gb/s one way, 100 %%, flagged; node 0 sends 56 Gb/s");
			plan_done(&f, &w, &p);
		}
		if (fd >= 0) {
			close(fd);
			unlink(path);
		}
	}
}

static void check_formulas(void)
{
	struct fm_fabric f;
	struct fm_workload w;
	struct fm_plan p;
	char err[512] = "";

	if (plan_run(SMALL_TOPO, WL_OK "data_per_sync = 3.75G\npattern = all-to-all\n",
		     &f, &w, &p, err, sizeof(err))) {
		ok(0, "formula plan computes (%s)", err);
	} else {
		/* 1920 x 1000 x 0.216 / (86400 x 0.75) = 414720 / 64800 */
		ok(near(p.nodes_raw, 6.4), "nodes = Y X Z / (86400 u) = 6.4 (%g)", p.nodes_raw);
		ok(p.nodes_needed == 8, "6.4 x 1.25 = 8 nodes with headroom, not 9 (%u)",
		   p.nodes_needed);
		ok(p.mem_lo == 40e9 && p.mem_hi == 60e9, "memory 10 GB x 4-6 = 40-60 GB");
		ok(near(p.node_bps, 300e9), "3.75 GB / 0.1 s = 300 Gb/s per node (%g)",
		   p.node_bps);
	}
	plan_done(&f, &w, &p);
	ok(!plan_run(SMALL_TOPO, WL_OK "data_per_sync = 2TB\npattern = all-to-all\n",
		     &f, &w, &p, err, sizeof(err)) && near(p.node_bps, 160e12),
	   "2 TB per 0.1 s = 20 TB/s = 160 Tb/s");
	plan_done(&f, &w, &p);
	/* nodes 0-1 and 2-3 on separate switches with no cable between */
	ok(plan_run("switch a\nswitch b\nnode 0-3\nlink 0-1.0 a\nlink 2-3.0 b\n",
		    WL_OK "data_per_sync = 1G\npattern = ring-allreduce\n", &f, &w, &p,
		    err, sizeof(err)) &&
	   !strcmp(err, "p.topo: node 1 has no path to node 2; the pattern needs one (check the links)"),
	   "a pattern the topology cannot connect is an error (%s)", err);
	plan_done(&f, &w, &p);
	ok(plan_run(SMALL_TOPO, WL_OK "data_per_sync = 1G\npattern = ring-allreduce\nnodes = 0,9\n",
		    &f, &w, &p, err, sizeof(err)) &&
	   !strcmp(err, "workload: node 9 is not in p.topo"),
	   "a pattern node missing from the topology is an error (%s)", err);
	plan_done(&f, &w, &p);
	ok(!plan_run(SMALL_TOPO, WL_OK "data_per_sync = 1G\npattern = ring-allreduce\nnodes = 0,2\n",
		     &f, &w, &p, err, sizeof(err)) && p.npattern == 2 &&
	   near(gbps(&p, 4, 0), 80) && near(gbps(&p, 4, 1), 80) && p.nover == 1,
	   "nodes = 0,2: a two-node ring loads the 40 Gb/s cable 80 Gb/s each way, flagged");
	plan_done(&f, &w, &p);
}

static void check_spof_and_paths(void)
{
	struct fm_fabric f;
	uint32_t path[8];
	int n;

	/* every node on two switches, but the switches meet only at core c */
	if (!tap_fabric(&f, "switch a0\nswitch b0\nswitch a1\nswitch b1\nswitch c\n"
			"node 0-3\nlink 0-1.0 a0\nlink 0-1.1 b0\nlink 2-3.0 a1\n"
			"link 2-3.1 b1\nlink a0 c\nlink b0 c\nlink a1 c\nlink b1 c\n")) {
		struct fm_buf out = { 0 }, err = { 0 };
		struct fm_workload w = { .pattern = FM_PAT_RING, .utilisation = 1,
					 .sync_interval = 1, .sync_bytes = 1 };
		struct fm_plan p;
		char e[256];

		ok(!fm_redundancy_check(&f, "c.topo", &out, &err),
		   "core topology: redundant by the link rule");
		ok(!fm_plan_compute(&f, "c.topo", &w, &p, e, sizeof(e)) && p.nspof == 1 &&
		   p.spof[4].lost && !p.spof[0].lost && p.spof[4].a == 0 && p.spof[4].b == 2,
		   "core topology: switch c is the single point of failure (0 loses 2)");
		ok(fm_reachable(&f, 0, 2) && f.links[0].admin_up,
		   "the spof search leaves the routes and links as they were");
		n = fm_route_path(&f, 0, 2, path, 8);
		ok(n == 4 && path[0] == 0 && path[1] == 8 && path[2] == 10 && path[3] == 4,
		   "path 0>2: 0.0-a0, a0-c, c-a1, a1-2.0 (n %d)", n);
		fm_plan_free(&p);
		fm_buf_free(&out);
		fm_buf_free(&err);
		fm_fabric_free(&f);
	}
	if (!tap_fabric(&f, "switch p0\nswitch p1\nnode 0-3\nlink 0-3.0 p0\nlink 0-3.1 p1\n")) {
		struct fm_workload w = { .pattern = FM_PAT_ALL_TO_ALL, .utilisation = 1,
					 .sync_interval = 1, .sync_bytes = 1 };
		struct fm_plan p;
		char e[256];

		ok(!fm_plan_compute(&f, "d.topo", &w, &p, e, sizeof(e)) && p.nspof == 0,
		   "dual plane: no single point of failure");
		fm_plan_free(&p);
		fm_link_set_admin(&f, &f.links[0], false);
		fm_routes_compute(&f);
		n = fm_route_path(&f, 0, 1, path, 8);
		ok(n == 2 && path[0] == 4 && path[1] == 5,
		   "0.0 down: path 0>1 fails over to plane 1 (0.1-p1, p1-1.1)");
		ok(fm_route_path(&f, 0, 1, path, 1) == -E2BIG, "a short path buffer is -E2BIG");
		fm_fabric_free(&f);
	}
}

static void check_shipped_oversubscribed(void)
{
	struct fm_fabric f;
	struct fm_workload w;
	struct fm_plan p;
	char topo[4096], wl[4096], err[512] = "";
	uint32_t i;

	snprintf(topo, sizeof(topo), "%s/8-two-racks.topo", tap_topo_dir);
	snprintf(wl, sizeof(wl), "%s/8-two-racks.workload", tap_topo_dir);
	fm_fabric_init(&f);
	memset(&p, 0, sizeof(p));
	if (fm_topo_parse_file(&f, topo, err, sizeof(err)) ||
	    fm_workload_parse_file(&w, wl, err, sizeof(err)) ||
	    fm_plan_compute(&f, topo, &w, &p, err, sizeof(err))) {
		ok(0, "8-two-racks plan computes (%s)", err);
		fm_fabric_free(&f);
		return;
	}
	/* links 16 and 17 are the inter-rack cables (plane 0, plane 1) */
	ok(p.nover == 1 && near(gbps(&p, 16, 0), 16.0 / 7 * 300) &&
	   near(gbps(&p, 16, 1), 16.0 / 7 * 300) && gbps(&p, 17, 0) == 0,
	   "8-two-racks: rack0p0-rack1p0 flagged at 685.71 of 800 Gb/s, plane 1 idle (%g)",
	   gbps(&p, 16, 0));
	for (i = 0; i < 16; i++)
		if (!near(gbps(&p, i, 0), i / 4 % 2 ? 0 : 300))
			break;
	ok(i == 16, "8-two-racks: node links 300 Gb/s on port 0, 0 on port 1 (link %u)", i);
	plan_done(&f, &w, &p);
}

/* ---- the binary ---- */

static int run(const char *cmd, struct fm_buf *out)
{
	char chunk[4096];
	FILE *fp = popen(cmd, "r");
	size_t n;
	int st;

	if (!fp)
		return -1;
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0)
		fm_buf_printf(out, "%.*s", (int)n, chunk);
	st = pclose(fp);
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void check_cli(void)
{
	char fm[4096], top[4096], cmd[16384], *guide = NULL, *block = NULL;
	struct fm_buf out = { 0 }, g = { 0 }, want = { 0 };
	int st;

	if (!tap_fm_path || !tap_topo_dir || !realpath(tap_fm_path, fm) ||
	    !realpath(tap_topo_dir, top)) {
		ok(0, "plan cli: --fm and --topologies given");
		return;
	}
	/* TOP is two levels above tools/emu/topologies */
	*strrchr(top, '/') = 0;
	*strrchr(top, '/') = 0;
	*strrchr(top, '/') = 0;
	snprintf(cmd, sizeof(cmd), "cd %s && %s check --redundancy tools/emu/topologies/2-b2b.topo 2>&1",
		 top, fm);
	st = run(cmd, &out);
	ok(st == 1 && out.s &&
	   !strcmp(out.s, "tools/emu/topologies/2-b2b.topo:8: node 0: 2 links, to node 1 (back to back) and node 1 (back to back) (no switch)\n"
		   "tools/emu/topologies/2-b2b.topo:9: node 1: 2 links, to node 0 (back to back) and node 0 (back to back) (no switch)\n"),
	   "check --redundancy 2-b2b: exit 1, one line per node (%d)", st);
	fm_buf_free(&out);
	snprintf(cmd, sizeof(cmd), "cd %s && %s check tools/emu/topologies/4-dual-plane.topo --redundancy 2>&1",
		 top, fm);
	st = run(cmd, &out);
	ok(st == 0 && out.s && strstr(out.s, ": ok\n") &&
	   strstr(out.s, "\nredundant: 4 nodes, each with >= 2 paths via distinct switches\n"),
	   "check --redundancy 4-dual-plane: exit 0 and the redundant line (%d)", st);
	fm_buf_free(&out);
	snprintf(cmd, sizeof(cmd), "cd %s && printf 'sync_interval = 0s\\n' > /tmp/snode-fm-zero.wl && "
		 "%s plan tools/emu/topologies/2-b2b.topo --workload /tmp/snode-fm-zero.wl 2>&1; "
		 "st=$?; rm -f /tmp/snode-fm-zero.wl; exit $st", top, fm);
	st = run(cmd, &out);
	ok(st == 1 && out.s &&
	   !strcmp(out.s, "/tmp/snode-fm-zero.wl:1: sync_interval must be > 0 (a sync every 0 s needs infinite bandwidth)\n"),
	   "plan with a zero interval: exit 1, one line (%d)", st);
	fm_buf_free(&out);
	snprintf(cmd, sizeof(cmd), "cd %s && %s plan -j tools/emu/topologies/8-two-racks.topo "
		 "--workload tools/emu/topologies/8-two-racks.workload", top, fm);
	st = run(cmd, &out);
	ok(st == 0 && out.s && out.s[0] == '{' &&
	   strstr(out.s, "\"links_over\":1") && strstr(out.s, "\"needed\":8") &&
	   strstr(out.s, "\"single_points_of_failure\":[]"),
	   "plan -j: one JSON object with the same numbers (%d)", st);
	fm_buf_free(&out);

	/* the guide's worked example is what the binary prints */
	snprintf(cmd, sizeof(cmd), "cd %s && %s plan tools/emu/topologies/8-two-racks.topo "
		 "--workload tools/emu/topologies/8-two-racks.workload", top, fm);
	st = run(cmd, &out);
	snprintf(cmd, sizeof(cmd), "cat %s/Documentation/admin-guide/planning.rst", top);
	run(cmd, &g);
	guide = g.s;
	for (block = out.s; block && *block;) {
		char *nl = strchr(block, '\n');
		int len = nl ? (int)(nl - block) : (int)strlen(block);

		fm_buf_printf(&want, "   %.*s\n", len, block);
		block += len + !!nl;
	}
	ok(st == 0 && guide && want.s && strstr(guide, want.s),
	   "planning.rst shows the output of its worked example verbatim");
	if (!(guide && want.s && strstr(guide, want.s)))
		tap_diag("want in the guide:\n%s", want.s ? want.s : "");
	fm_buf_free(&out);
	fm_buf_free(&g);
	fm_buf_free(&want);
}

void test_plan(void)
{
	check_redundancy();
	check_workload_errors();
	check_formulas();
	check_small();
	check_spof_and_paths();
	check_shipped_oversubscribed();
	check_cli();
}
