// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-perf link: the bandwidth of each link, one at a time.
 *
 * The contract gives no way to pin a window's traffic to a port: the NIC
 * routes to the peer over the port its route table names and fails over
 * when that link goes down. So to measure link P, every other link that
 * is up is taken down by the administrator's own switch (PORT_SET), the
 * route to the peer moves to P, DMA copies to and from the peer's window
 * run for a while, and the links taken down come back up. The link's own
 * byte counters must have counted the copies: that is the proof the
 * traffic took P, and a port that did not carry it fails.
 *
 * Each link's MB/s is set against lanes x speed (its line rate) and
 * against a baseline file from a known-good run (baseline.c); the verdict
 * is the baseline's. Under TCG copies run far below line rate, so the
 * line-rate ratio is reported and never judged. Needs CAP_NET_ADMIN, and
 * moves the node's traffic: run it when the fabric is quiet.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "perf.h"

#define MIB		(1ULL << 20)
#define LINK_DEPTH	16
#define LINK_MAX_PORTS	16
#define LINK_WAIT	20.0	/* seconds for a route or a link to settle */

struct link_row {
	unsigned int port;
	unsigned int lanes, speed;	/* as the link reported before */
	bool measured, steered, have_base, pass;
	double mbs, line_mbs, base_mbs;
	uint64_t bytes, counted, elsewhere;
	char reason[120];
};

struct link_report {
	const char *dev;
	uint32_t peer;
	const char *baseline;
	double tolerance;
	unsigned int n;
	bool pass;
	struct link_row rows[LINK_MAX_PORTS];
};

void perf_link_help(FILE *f)
{
	fprintf(f,
		"Usage: snode-perf link handle HANDLE [ ports LIST ] [ seconds N ]\n"
		"                       [ baseline FILE ] [ tolerance PCT ] [ save FILE ]\n"
		"HANDLE := snode:v1:NODE:EXPORT:KEY  a read-write window on a peer node\n"
		"LIST   := PORT[,PORT...]  (default: every link that is up)\n"
		"N      := seconds of copies per link, 1 to 60 (default 2)\n"
		"FILE   := \"DEV PORT MB/S\" lines; save writes this run's as one\n"
		"PCT    := how far below the baseline still passes (default 20)\n"
		"Takes the other links down while it measures one: needs CAP_NET_ADMIN.\n"
		"Exit status: 0 pass, 1 fail or error, 64 usage.\n");
}

static volatile sig_atomic_t link_stop;

static void link_on_signal(int sig)
{
	link_stop = 1;
}

static int link_get(struct perf *p, unsigned int port,
		    struct snode_link_info *li)
{
	return snode_link_get(p->ctx, snode_dev_get_index(p->dev), port, li,
			      sizeof(*li));
}

/* the port the NIC routes to @node over; SNODE_NONE if none */
static uint32_t link_route(struct perf *p, uint32_t node)
{
	const struct snode_node_info *ni;
	struct snode_node_iter *it;
	uint32_t route = SNODE_NONE;

	if (snode_node_list(p->ctx, snode_dev_get_index(p->dev), sizeof(*ni),
			    &it) < 0)
		return SNODE_NONE;
	snode_node_iter_foreach(it, ni)
		if (ni->id == node && ni->state == SNODE_NODE_STATE_UP)
			route = ni->route_port;
	snode_node_iter_free(it);
	return route;
}

static bool link_is_up(struct perf *p, unsigned int port)
{
	struct snode_link_info li;

	return !link_get(p, port, &li) &&
	       li.oper_state != SNODE_LINK_OPER_STATE_DOWN &&
	       li.admin_state == SNODE_LINK_ADMIN_STATE_UP;
}

/* copies to and from the window for @secs seconds; bytes moved in *bytes */
static int link_copy(struct snode_dma_queue *q, struct snode_import *imp,
		     uint8_t *buf, uint64_t span, double secs, uint64_t *bytes,
		     double *elapsed)
{
	struct snode_dma_req reqs[LINK_DEPTH];
	struct snode_dma_cpl cpls[LINK_DEPTH];
	uint64_t chunk = span / LINK_DEPTH;
	double t0 = perf_now();
	unsigned int i, inflight;
	bool to = true;
	int n;

	*bytes = 0;
	do {
		for (i = 0; i < LINK_DEPTH; i++)
			reqs[i] = (struct snode_dma_req){
				.flags = to ? SNODE_DMA_TO_GLOBAL : SNODE_DMA_FROM_GLOBAL,
				.import_fd = snode_import_get_fd(imp),
				.offset = i * chunk,
				.addr = (uintptr_t)(buf + i * chunk),
				.length = chunk,
			};
		n = snode_dma_submit(q, reqs, LINK_DEPTH);
		if (n < 0)
			return n;
		inflight = n;
		while (inflight) {
			n = snode_dma_reap(q, cpls, LINK_DEPTH, 10000);
			if (n <= 0)
				return n ? n : -ETIMEDOUT;
			for (i = 0; i < (unsigned int)n; i++) {
				if (cpls[i].status)
					return cpls[i].status;
				*bytes += cpls[i].bytes;
			}
			inflight -= n;
		}
		to = !to;
		*elapsed = perf_now() - t0;
	} while (*elapsed < secs && !link_stop);
	return 0;
}

/* one link: the others down, the route on it, copies, the others back up */
static int link_measure(struct perf *p, struct link_row *row,
			const unsigned int *up, unsigned int nup,
			uint32_t peer, struct snode_dma_queue *q,
			struct snode_import *imp, uint8_t *buf, uint64_t span,
			double secs)
{
	struct snode_link_info before[LINK_MAX_PORTS], after;
	unsigned int downed[LINK_MAX_PORTS], ndown = 0, i;
	double t, elapsed = 0;
	int ret = 0, r;

	for (i = 0; i < nup; i++) {
		if (up[i] == row->port)
			continue;
		r = snode_link_set_state(p->ctx, snode_dev_get_index(p->dev),
					 up[i], 0);
		if (r < 0) {
			snprintf(row->reason, sizeof(row->reason),
				 "cannot take port %u down: %s", up[i], strerror(-r));
			ret = r;
			goto restore;
		}
		downed[ndown++] = up[i];
	}
	for (t = perf_now(); link_route(p, peer) != row->port; usleep(100000))
		if (perf_now() - t > LINK_WAIT || link_stop) {
			snprintf(row->reason, sizeof(row->reason),
				 "the route to node %u did not move to port %u", peer,
				 row->port);
			ret = -ETIMEDOUT;
			goto restore;
		}
	for (i = 0; i < nup; i++)
		if (link_get(p, up[i], &before[i]) < 0)
			memset(&before[i], 0, sizeof(before[i]));
	r = link_copy(q, imp, buf, span, secs, &row->bytes, &elapsed);
	if (r < 0) {
		snprintf(row->reason, sizeof(row->reason), "copies failed: %s",
			 strerror(r < 0 ? -r : EIO));
		ret = r;
		goto restore;
	}
	for (i = 0; i < nup; i++) {
		if (link_get(p, up[i], &after) < 0)
			continue;
		t = (after.tx_bytes - before[i].tx_bytes) +
		    (after.rx_bytes - before[i].rx_bytes);
		if (up[i] == row->port) {
			row->counted = t;
			row->lanes = after.lanes;
			row->speed = after.speed;
		} else {
			row->elsewhere += t;
		}
	}
	row->measured = true;
	row->mbs = elapsed > 0 ? row->bytes / elapsed / 1e6 : 0;
	/* lanes x Gb/s per lane, in MB/s */
	row->line_mbs = row->lanes * (double)row->speed * 1e3 / 8;
	/* the link's counters saw (nearly) all of it, the others (almost) none */
	row->steered = row->counted >= row->bytes * 9 / 10 &&
		       row->elsewhere <= row->bytes / 10;
restore:
	for (i = 0; i < ndown; i++) {
		r = snode_link_set_state(p->ctx, snode_dev_get_index(p->dev),
					 downed[i], 1);
		if (r < 0)
			fprintf(stderr, "snode-perf: link: port %u left down: %s; bring it up with 'snodectl link set %s %u state up'\n",
				downed[i], strerror(-r), snode_dev_get_name(p->dev),
				downed[i]);
	}
	for (i = 0; i < ndown; i++)
		for (t = perf_now(); !link_is_up(p, downed[i]) &&
		     perf_now() - t < LINK_WAIT; usleep(100000))
			;
	return ret;
}

static void link_json(const void *arg)
{
	const struct link_report *r = arg;
	unsigned int i;

	print_str("benchmark", NULL, "link");
	print_str("dev", NULL, r->dev);
	print_u64("peer", NULL, r->peer);
	print_str("unit", NULL, "MB/s");
	if (r->baseline)
		print_str("baseline", NULL, r->baseline);
	else
		print_null("baseline", NULL);
	print_double("tolerance", NULL, r->tolerance);
	print_open_array("links");
	for (i = 0; i < r->n; i++) {
		const struct link_row *w = &r->rows[i];

		print_open_object(NULL);
		print_u64("port", NULL, w->port);
		print_bool("measured", NULL, w->measured);
		print_u64("lanes", NULL, w->lanes);
		print_u64("speed", NULL, w->speed);
		print_u64("bytes", NULL, w->bytes);
		print_u64("link_bytes", NULL, w->counted);
		print_u64("other_links_bytes", NULL, w->elsewhere);
		print_bool("steered", NULL, w->steered);
		print_double("mbs", NULL, w->mbs);
		print_double("line_mbs", NULL, w->line_mbs);
		print_double("line_ratio", NULL,
			     w->line_mbs > 0 ? w->mbs / w->line_mbs : 0);
		if (w->have_base) {
			print_double("baseline_mbs", NULL, w->base_mbs);
			print_double("baseline_ratio", NULL, w->mbs / w->base_mbs);
		} else {
			print_null("baseline_mbs", NULL);
			print_null("baseline_ratio", NULL);
		}
		print_str("verdict", NULL, w->pass ? "pass" : "fail");
		if (w->reason[0])
			print_str("reason", NULL, w->reason);
		else
			print_null("reason", NULL);
		print_close_object();
	}
	print_close_array();
	print_str("verdict", NULL, r->pass ? "pass" : "fail");
}

/* this run's numbers as a baseline file, replacing @file whole */
static int link_save(const struct link_report *r, const char *file)
{
	char tmp[4096];
	unsigned int i;
	FILE *f;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp", file) >= (int)sizeof(tmp))
		return -ENAMETOOLONG;
	f = fopen(tmp, "w");
	if (!f)
		return -errno;
	fprintf(f, "# snode-perf link baseline: DEV PORT MB/S (peer node %u)\n",
		r->peer);
	for (i = 0; i < r->n; i++)
		if (r->rows[i].measured && r->rows[i].steered)
			fprintf(f, "%s %u %.1f\n", r->dev, r->rows[i].port,
				r->rows[i].mbs);
	if (fclose(f) || rename(tmp, file)) {
		unlink(tmp);
		return -EIO;
	}
	return 0;
}

static int link_parse_ports(const char *s, unsigned int *ports)
{
	unsigned int n = 0, i;
	uint64_t v;
	char *copy = strdup(s), *tok, *save = NULL;

	if (!copy)
		return -ENOMEM;
	for (tok = strtok_r(copy, ",", &save); tok;
	     tok = strtok_r(NULL, ",", &save)) {
		if (tool_parse_u64(tok, LINK_MAX_PORTS - 1, &v) ||
		    n == LINK_MAX_PORTS) {
			free(copy);
			return -EINVAL;
		}
		for (i = 0; i < n; i++)
			if (ports[i] == v) {
				free(copy);
				return -EINVAL;
			}
		ports[n++] = v;
	}
	free(copy);
	return n ? (int)n : -EINVAL;
}

int perf_link(struct perf *p)
{
	struct link_report rep = { .tolerance = 20 };
	static struct perf_baseline base;
	unsigned int want[LINK_MAX_PORTS], up[LINK_MAX_PORTS], nwant = 0, nup = 0;
	const char *w, *v, *save = NULL, *base_file = NULL, *ports = NULL;
	struct snode_link_info li;
	struct snode_dma_queue *q = NULL;
	struct snode_import *imp = NULL;
	struct sigaction sa = { 0 };
	struct snode_handle h;
	struct snode_dev_status st;
	bool have = false;
	uint64_t secs = 2, span = 4 * MIB, len;
	uint8_t *buf = NULL;
	char err[160];
	unsigned int i, j;
	int ret, n;

	while ((w = perf_arg_next(p))) {
		v = perf_arg_next(p);
		if (!v) {
			fprintf(stderr, "snode-perf: link: \"%s\" needs a value\n", w);
			return perf_usage(perf_link_help);
		}
		if (tool_matches(w, "handle")) {
			if (snode_handle_from_str(v, &h) < 0)
				return tool_usage_err("link: \"%s\" is not a handle (snode:v1:NODE:EXPORT:KEY)", v);
			have = true;
		} else if (tool_matches(w, "ports")) {
			ports = v;
		} else if (tool_matches(w, "seconds")) {
			if (tool_parse_u64(v, 60, &secs) || !secs)
				return tool_usage_err("link: bad seconds \"%s\" (1 to 60)", v);
		} else if (tool_matches(w, "baseline")) {
			base_file = v;
		} else if (tool_matches(w, "tolerance")) {
			char *end;

			rep.tolerance = strtod(v, &end);
			if (*end || end == v || !(rep.tolerance >= 0 && rep.tolerance < 100))
				return tool_usage_err("link: bad tolerance \"%s\" (a percentage, 0 to 99)", v);
		} else if (tool_matches(w, "save")) {
			save = v;
		} else {
			fprintf(stderr, "snode-perf: link: unknown argument \"%s\"\n", w);
			return perf_usage(perf_link_help);
		}
	}
	if (!have)
		return tool_usage_err("link: handle HANDLE is required (a read-write window on a peer)");
	if (ports) {
		n = link_parse_ports(ports, want);
		if (n < 0)
			return tool_usage_err("link: bad ports \"%s\" (PORT[,PORT...], each once, below %d)",
					      ports, LINK_MAX_PORTS);
		nwant = n;
	}
	if (base_file) {
		FILE *f = fopen(base_file, "r");

		if (!f)
			return perf_err("link: baseline %s: %s", base_file, strerror(errno));
		ret = perf_baseline_parse(f, &base, err, sizeof(err));
		fclose(f);
		if (ret)
			return perf_err("link: baseline %s: %s", base_file, err);
		rep.baseline = base_file;
	}
	ret = perf_dev_open(p);
	if (ret)
		return ret;
	ret = snode_dev_get_status(p->dev, &st, sizeof(st));
	if (ret < 0)
		return perf_lib_err("link: status", ret);
	if (h.node == st.node_id)
		return tool_usage_err("link: the handle is this node's (%u): give a peer's window",
				      h.node);
	rep.dev = snode_dev_get_name(p->dev);
	rep.peer = h.node;
	for (i = 0; i < st.nports && i < LINK_MAX_PORTS; i++)
		if (link_is_up(p, i))
			up[nup++] = i;
	if (!nwant) {
		memcpy(want, up, sizeof(up));
		nwant = nup;
	}
	for (i = 0; i < nwant; i++) {
		if (want[i] >= st.nports)
			return perf_err("link: %s has no port %u (ports 0-%u)",
					rep.dev, want[i], st.nports - 1);
		for (j = 0; j < nup && up[j] != want[i]; j++)
			;
		if (j == nup)
			return perf_err("link: %s port %u is not up; bring it up first",
					rep.dev, want[i]);
	}
	if (!nwant)
		return perf_err("link: %s has no link up", rep.dev);
	if (link_route(p, h.node) == SNODE_NONE)
		return perf_err("link: node %u is not up or has no route from %s",
				h.node, rep.dev);

	/* the window: as large as the export allows, up to 4 MiB */
	for (len = span; len >= 4096; len /= 2) {
		ret = snode_import(p->dev, &h, 0, len, SNODE_IMPORT_WRITE, &imp);
		if (ret != -ERANGE)
			break;
	}
	if (ret < 0)
		return perf_lib_err("link: import", ret);
	span = len;
	ret = snode_dma_queue_new(p->dev, LINK_DEPTH, &q);
	if (ret < 0) {
		snode_import_close(imp);
		return perf_lib_err("link: DMA queue", ret);
	}
	if (posix_memalign((void **)&buf, 4096, span)) {
		ret = perf_err("link: out of memory");
		goto out;
	}
	memset(buf, 0x5a, span);

	sa.sa_handler = link_on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	rep.pass = true;
	for (i = 0; i < nwant; i++) {
		struct link_row *row = &rep.rows[rep.n++];
		const struct perf_baseline_entry *be;

		row->port = want[i];
		if (!link_get(p, want[i], &li)) {
			row->lanes = li.lanes;
			row->speed = li.speed;
		}
		ret = link_measure(p, row, up, nup, h.node, q, imp, buf, span,
				   secs);
		if (ret < 0 || link_stop) {
			if (!row->reason[0])
				snprintf(row->reason, sizeof(row->reason), "interrupted");
			rep.pass = false;
			if (link_stop)
				break;
			continue;
		}
		be = rep.baseline ? perf_baseline_find(&base, rep.dev, row->port) : NULL;
		if (be) {
			row->have_base = true;
			row->base_mbs = be->mbs;
		}
		row->pass = row->steered;
		if (!row->steered)
			snprintf(row->reason, sizeof(row->reason),
				 "the link counted %llu of %llu bytes: the traffic did not take it",
				 (unsigned long long)row->counted,
				 (unsigned long long)row->bytes);
		else if (rep.baseline && !be) {
			row->pass = false;
			snprintf(row->reason, sizeof(row->reason),
				 "no baseline for %s port %u", rep.dev, row->port);
		} else if (be && !perf_baseline_ok(row->mbs, be->mbs, rep.tolerance)) {
			row->pass = false;
			snprintf(row->reason, sizeof(row->reason),
				 "%.1f MB/s is more than %g%% below the baseline %.1f MB/s",
				 row->mbs, rep.tolerance, be->mbs);
		}
		if (!row->pass)
			rep.pass = false;
	}
	ret = 0;
	if (save && !link_stop) {
		ret = link_save(&rep, save);
		if (ret < 0) {
			ret = perf_err("link: saving the baseline %s: %s", save,
				       strerror(-ret));
			goto out;
		}
	}
	if (!p->json) {
		printf("snode-perf link: %s to node %u, MB/s of DMA copies per link%s%s\n",
		       rep.dev, rep.peer, rep.baseline ? ", baseline " : "",
		       rep.baseline ? rep.baseline : "");
		printf("%5s %10s %12s %7s %10s %7s  %s\n", "port", "MB/s",
		       "line MB/s", "ratio", "baseline", "ratio", "verdict");
		for (i = 0; i < rep.n; i++) {
			const struct link_row *x = &rep.rows[i];
			char bs[16] = "-", br[16] = "-";

			if (x->have_base) {
				snprintf(bs, sizeof(bs), "%.1f", x->base_mbs);
				snprintf(br, sizeof(br), "%.2f", x->mbs / x->base_mbs);
			}
			printf("%5u %10.1f %12.0f %7.4f %10s %7s  %s%s%s\n", x->port,
			       x->mbs, x->line_mbs,
			       x->line_mbs > 0 ? x->mbs / x->line_mbs : 0, bs, br,
			       x->pass ? "pass" : "FAIL", x->reason[0] ? ": " : "",
			       x->reason);
		}
		printf("link: %s\n", rep.pass ? "PASS" : "FAIL");
	}
	ret = perf_json_report(p, link_json, &rep);
	if (!ret && !rep.pass)
		ret = 1;
out:
	free(buf);
	snode_dma_queue_free(q);
	snode_import_close(imp);
	return ret;
}
