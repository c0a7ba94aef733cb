// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: ctl.c - the control socket RUNDIR/ctl.sock and "snode-fm ctl"
 *
 * Wire format (SOCK_SEQPACKET): the client sends one packet, the command's
 * words separated by NUL bytes. The fm answers with any number of packets
 * whose first byte says what follows: 'o' text for stdout, 'e' text for
 * stderr, and one final 'x' followed by '0' (success) or '1' (failure).
 * wait-attached answers only when the node attached or the wait timed out.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "fm.h"
#include "print.h"

#define CTL_REQ_MAX	4096
#define CTL_CHUNK	16384
#define CTL_ARGS_MAX	64

struct fm_ctlc {
	int fd;
	int wait_node;		/* -1: not waiting */
	uint64_t deadline;
};

static struct fm_ctlc *ctlcs;
static uint32_t nctlcs;

static const char ctl_usage[] =
	"Usage: snode-fm ctl --dir RUNDIR COMMAND...\n"
	"  link down|up LINK              LINK: A.P (node A port P) or SW1/SW2\n"
	"  link flap LINK [count N] [period MS]\n"
	"  link ber LINK RATE\n"
	"  link lanes LINK N|max\n"
	"  link speed LINK GBPS           per lane, 1..65535\n"
	"  link reset LINK\n"
	"  switch down|up SWITCH          every link of SWITCH (a plane's failure)\n"
	"  node kill|isolate|join N\n"
	"  node temp N MILLIDEG\n"
	"  node power N MW\n"
	"  sim export N ID OFFSET LEN KEY r|rw [nodes LIST]\n"
	"  sim unexport N ID\n"
	"  show links|nodes|exports|grants [-j]   (show nodes [from N] [-j])\n"
	"  direct on|off                  direct links between devices (decision 0039)\n"
	"  wait-attached N [timeout MS]\n";

/*
 * "show": text and JSON from the same print_*() calls, the tools' one
 * print path (tools/lib/print.c), written into the reply buffer. The JSON
 * document is an array, one object per link, node, export or grant.
 */
static void show_sink(void *arg, const char *s)
{
	fm_buf_printf(arg, "%s", s);
}

static void show_links(const struct fm_fabric *f)
{
	uint32_t i;

	for (i = 0; i < f->nlinks; i++) {
		const struct fm_link *l = &f->links[i];
		char a[48], b[48];

		fm_end_name(f, &l->a, a, sizeof(a));
		fm_end_name(f, &l->b, b, sizeof(b));
		print_open_object(NULL);
		print_u64("id", NULL, i);
		print_str("a", "link %s", a);
		print_str("b", " %s", b);
		print_str("admin", " admin %s", l->admin_up ? "up" : "down");
		print_str("oper", " oper %s",
			  fm_oper_name(fm_link_oper(l, f->now)));
		print_u64("lanes", " lanes %llu", l->lanes);
		print_u64("max_lanes", "/%llu", l->max_lanes);
		print_u64("speed", " speed %llu", l->speed);
		print_double("ber", " ber %g", l->ber);
		print_u64("crc_errors", " crc %llu", l->crc_errors);
		print_u64("replays", " replays %llu", l->replays);
		print_u64("recoveries", " recoveries %llu", l->recoveries);
		print_u64("down_events", " down %llu", l->down_events);
		print_u64("tx_bytes", NULL, l->tx_bytes);
		print_u64("rx_bytes", NULL, l->rx_bytes);
		print_nl();
		print_close_object();
	}
}

static void show_nodes(const struct fm_fabric *f, int from)
{
	struct fm_topo topo[FM_MAX_NODES];
	uint32_t i, j;

	/* the route topology the devices are told (decision 0030) */
	if (from >= 0 && f->node[from])
		fm_route_topo(f, f->node[from], topo);

	for (i = 0; i < FM_MAX_NODES; i++) {
		const struct fm_node *n = f->node[i];
		uint32_t nexp = 0;
		uint8_t route = FM_NO_ROUTE, st = 0;
		char sz[32];

		if (!n)
			continue;
		for (j = 0; j < FM_MAX_EXPORTS; j++)
			nexp += !!n->exports[j];
		if (from >= 0)
			st = fm_node_view(f, from, i, &route);
		fm_size_str(n->pool_size, sz, sizeof(sz));
		print_open_object(NULL);
		print_u64("id", "node %llu", i);
		print_u64("host", " host %llu", n->host);
		print_bool("sim", NULL, n->sim);
		print_text(" %s", n->sim ? "sim" : "vm");
		print_str("state", " %s", fm_life_name(n->life));
		print_bool("attached", n->conn ? " attached" : NULL, n->conn);
		print_u64("pid", NULL, n->pid);
		print_u64("pool_size", NULL, n->pool_size);
		print_text(" pool %s", sz);
		print_u64("nports", " ports %llu", n->nports);
		print_u64("exports", " exports %llu", nexp);
		print_bool("direct", n->direct ? " direct" : NULL, n->direct);
		print_u64("msgs_relayed", NULL, n->msgs_relayed);
		if (n->pid)
			print_text(" pid %u", n->pid);
		print_str("path", NULL, n->path);
		if (n->rack != FM_NO_RACK)
			print_str("rack", " rack %s", f->rack_name[n->rack]);
		if (from >= 0 && (uint32_t)from != i) {
			print_str("view", " view %s", fm_view_name(st));
			print_s64("route_port", route == FM_NO_ROUTE ? NULL :
				  " route %lld",
				  route == FM_NO_ROUTE ? -1 : route);
		}
		if (from >= 0 && (uint32_t)from != i &&
		    st == SNODE_FM_NODE_UP && f->node[from]) {
			const struct fm_topo *t = &topo[i];

			print_u64("hops", " hops %llu", t->hops);
			if (t->sw != SNODE_FM_NO_ID)
				print_str("switch", " switch %s",
					  f->sw_name[t->sw]);
			if (t->plane != FM_NO_PLANE)
				print_u64("plane", " plane %llu", t->plane);
		}
		print_nl();
		print_close_object();
	}
}

static void show_export_nodes(const struct fm_export *e)
{
	bool first = true;
	uint32_t k;

	if (e->all_nodes) {
		print_str("nodes", " nodes %s", "all");
		return;
	}
	print_text(" nodes ");
	print_open_array("nodes");
	for (k = 0; k < FM_MAX_NODES; k++) {
		if (!(e->nodemask[k / 8] & (1 << (k % 8))))
			continue;
		print_u64(NULL, first ? "%llu" : ",%llu", k);
		first = false;
	}
	print_close_array();
}

static void show_exports(const struct fm_fabric *f)
{
	uint32_t i, j;

	for (i = 0; i < FM_MAX_NODES; i++) {
		const struct fm_node *n = f->node[i];

		if (!n)
			continue;
		for (j = 0; j < FM_MAX_EXPORTS; j++) {
			const struct fm_export *e = n->exports[j];

			if (!e)
				continue;
			print_open_object(NULL);
			print_u64("node", "export %llu", i);
			print_u64("id", " %llu", j);
			print_hex("offset", " offset 0x%llx", e->offset);
			print_hex("len", " len 0x%llx", e->len);
			print_hex("key", " key 0x%llx", e->key);
			print_str("perm", " perm %s",
				  e->perm & SNODE_FM_PERM_WRITE ? "rw" : "r");
			print_u64("importers", " importers %llu",
				  fm_export_importers(f, i, j));
			show_export_nodes(e);
			print_nl();
			print_close_object();
		}
	}
}

static void show_grants(const struct fm_fabric *f)
{
	uint32_t i;

	for (i = 0; i < f->ngrants; i++) {
		const struct fm_grant *g = &f->grants[i];

		print_open_object(NULL);
		print_u64("importer", "grant %llu", g->importer);
		print_u64("att_index", " att %llu", g->att_index);
		print_u64("exporter", " -> node %llu", g->exporter);
		print_u64("export_id", " export %llu", g->export_id);
		print_str("perm", " perm %s",
			  g->perm & SNODE_FM_PERM_WRITE ? "rw" : "r");
		print_hex("offset", " offset 0x%llx", g->offset);
		print_hex("len", " len 0x%llx", g->len);
		print_nl();
		print_close_object();
	}
}

void fm_ctl_show(const struct fm_fabric *f, const char *what, bool json,
		 int from, struct fm_buf *out)
{
	struct print_opts o = {
		.json = json,
		.root_array = true,
		.sink = show_sink,
		.sink_arg = out,
	};

	print_begin(&o);
	if (!strcmp(what, "links"))
		show_links(f);
	else if (!strcmp(what, "nodes"))
		show_nodes(f, from);
	else if (!strcmp(what, "exports"))
		show_exports(f);
	else if (!strcmp(what, "grants"))
		show_grants(f);
	print_flush(true);
}

static int ctl_node(struct fm_fabric *f, const char *s, struct fm_buf *err,
		    struct fm_node **n)
{
	uint64_t v;

	if (!s || fm_parse_u64(s, &v) || v >= FM_MAX_NODES) {
		fm_buf_printf(err, "bad node id '%s'\n", s ? s : "");
		return 1;
	}
	*n = fm_node_get(f, v);
	if (!*n) {
		fm_buf_printf(err, "node %llu is not in the topology\n",
			      (unsigned long long)v);
		return 1;
	}
	return 0;
}

/* "SW1/SW2": the inter-switch link between two switches, either order. */
static struct fm_link *ctl_isl(struct fm_fabric *f, const char *s)
{
	char buf[256], *slash;
	int a, b;
	uint32_t i;

	snprintf(buf, sizeof(buf), "%s", s);
	slash = strchr(buf, '/');
	*slash = 0;
	a = fm_switch_find(f, buf);
	b = fm_switch_find(f, slash + 1);
	if (a < 0 || b < 0)
		return NULL;
	for (i = 0; i < f->nlinks; i++) {
		struct fm_link *l = &f->links[i];

		if (l->a.kind == FM_END_SWITCH && l->b.kind == FM_END_SWITCH &&
		    (((int)l->a.id == a && (int)l->b.id == b) ||
		     ((int)l->a.id == b && (int)l->b.id == a)))
			return l;
	}
	return NULL;
}

static int ctl_link(struct fm_fabric *f, int argc, char **argv,
		    struct fm_buf *out, struct fm_buf *err)
{
	uint32_t node, port;
	struct fm_link *l;
	uint64_t v;

	if (argc < 3) {
		fm_buf_printf(err, "%s", ctl_usage);
		return 1;
	}
	if (strchr(argv[2], '/')) {
		l = ctl_isl(f, argv[2]);
		if (!l) {
			fm_buf_printf(err, "no inter-switch link '%s' (want SW1/SW2)\n",
				      argv[2]);
			return 1;
		}
	} else if (fm_parse_nodeport(argv[2], &node, &port)) {
		fm_buf_printf(err, "bad port '%s' (want NODE.PORT or SW1/SW2)\n",
			      argv[2]);
		return 1;
	} else {
		l = fm_port_link(f, node, port);
		if (!l) {
			fm_buf_printf(err, "no link on %u.%u\n", node, port);
			return 1;
		}
	}
	if (!strcmp(argv[1], "down") || !strcmp(argv[1], "up")) {
		if (argc != 3)
			goto usage;
		fm_link_set_admin(f, l, argv[1][0] == 'u');
	} else if (!strcmp(argv[1], "reset")) {
		if (argc != 3)
			goto usage;
		fm_link_reset(f, l);
	} else if (!strcmp(argv[1], "flap")) {
		uint64_t count = 1, period = 500;
		int i;

		for (i = 3; i < argc; i += 2) {
			if (i + 1 >= argc || fm_parse_u64(argv[i + 1], &v))
				goto usage;
			if (!strcmp(argv[i], "count") && v >= 1 && v <= 1000000)
				count = v;
			else if (!strcmp(argv[i], "period") && v >= 1 &&
				 v <= 3600000)
				period = v;
			else
				goto usage;
		}
		fm_link_flap(f, l, count, period);
	} else if (!strcmp(argv[1], "ber")) {
		char *end;
		double ber;

		if (argc != 4)
			goto usage;
		errno = 0;
		ber = strtod(argv[3], &end);
		if (errno || *end || end == argv[3] || !isfinite(ber) ||
		    ber < 0 || ber >= 1) {
			fm_buf_printf(err, "bad BER '%s' (0 <= BER < 1)\n", argv[3]);
			return 1;
		}
		fm_link_set_ber(f, l, ber);
	} else if (!strcmp(argv[1], "lanes")) {
		if (argc != 4)
			goto usage;
		if (!strcmp(argv[3], "max")) {
			v = l->max_lanes;
		} else if (fm_parse_u64(argv[3], &v) || !v || v > l->max_lanes) {
			fm_buf_printf(err, "bad lane count '%s' (1..%u or max)\n",
				      argv[3], l->max_lanes);
			return 1;
		}
		fm_link_set_lanes(f, l, v);
	} else if (!strcmp(argv[1], "speed")) {
		if (argc != 4)
			goto usage;
		if (fm_parse_u64(argv[3], &v) || !v || v > UINT16_MAX) {
			fm_buf_printf(err, "bad speed '%s' (1..65535 Gb/s per lane)\n",
				      argv[3]);
			return 1;
		}
		fm_link_set_speed(f, l, v);
	} else {
		goto usage;
	}
	fm_log("ctl: link %s %s%s%s", argv[1], argv[2], argc > 3 ? " " : "",
	       argc > 3 ? argv[3] : "");
	(void)out;
	return 0;
usage:
	fm_buf_printf(err, "%s", ctl_usage);
	return 1;
}

/*
 * "switch down NAME": a switch (a whole plane of 4-dual-plane.topo) fails,
 * so every link with an end on it goes down at once; "up" brings them back.
 */
static int ctl_switch(struct fm_fabric *f, int argc, char **argv,
		      struct fm_buf *err)
{
	uint32_t i, nl = 0;
	bool up;
	int sw;

	if (argc != 3 || (strcmp(argv[1], "down") && strcmp(argv[1], "up"))) {
		fm_buf_printf(err, "%s", ctl_usage);
		return 1;
	}
	sw = fm_switch_find(f, argv[2]);
	if (sw < 0) {
		fm_buf_printf(err, "no switch '%s' in the topology\n", argv[2]);
		return 1;
	}
	up = argv[1][0] == 'u';
	for (i = 0; i < f->nlinks; i++) {
		struct fm_link *l = &f->links[i];

		if ((l->a.kind == FM_END_SWITCH && (int)l->a.id == sw) ||
		    (l->b.kind == FM_END_SWITCH && (int)l->b.id == sw)) {
			fm_link_set_admin(f, l, up);
			nl++;
		}
	}
	fm_log("ctl: switch %s %s (%u links)", argv[1], argv[2], nl);
	return 0;
}

static void ctl_node_links(struct fm_fabric *f, struct fm_node *n, bool up)
{
	uint32_t p;

	for (p = 0; p < n->nports; p++) {
		struct fm_link *l = fm_port_link(f, n->id, p);

		if (l)
			fm_link_set_admin(f, l, up);
	}
}

static void send_sensor(struct fm_fabric *f, struct fm_node *n)
{
	struct snode_fm_sensor s = {
		.hdr = { .type = SNODE_FM_SENSOR, .len = sizeof(s) },
		.temp_mc = n->temp_mc,
		.power_mw = n->power_mw,
	};

	fm_emit_send(f, n, &s, sizeof(s));
}

static int ctl_nodecmd(struct fm_fabric *f, int argc, char **argv,
		       struct fm_buf *out, struct fm_buf *err)
{
	struct fm_node *n;
	uint64_t v;

	if (argc < 3)
		goto usage;
	if (ctl_node(f, argv[2], err, &n))
		return 1;
	if (!strcmp(argv[1], "kill") && argc == 3) {
		if (!n->sim) {
			if (!n->conn) {
				fm_buf_printf(err, "node %u is not attached\n", n->id);
				return 1;
			}
			if (n->pid > 1 && (pid_t)n->pid != getpid()) {
				if (kill(n->pid, SIGKILL))
					fm_buf_printf(out, "kill %u: %s\n", n->pid,
						      strerror(errno));
				else
					fm_buf_printf(out, "killed pid %u\n", n->pid);
			}
		}
		fm_node_dead(f, n, "killed by ctl");
	} else if (!strcmp(argv[1], "isolate") && argc == 3) {
		ctl_node_links(f, n, false);
	} else if (!strcmp(argv[1], "join") && argc == 3) {
		ctl_node_links(f, n, true);
		if (n->sim && n->life == FM_LIFE_DEAD)
			n->life = FM_LIFE_UP;
	} else if ((!strcmp(argv[1], "temp") || !strcmp(argv[1], "power")) &&
		   argc == 4) {
		if (!strcmp(argv[1], "temp")) {
			char *end;
			long t = strtol(argv[3], &end, 0);

			if (*end || end == argv[3] || t < -300000 || t > 1000000) {
				fm_buf_printf(err, "bad temperature '%s' (milli-degC)\n",
					      argv[3]);
				return 1;
			}
			n->temp_mc = t;
		} else {
			if (fm_parse_u64(argv[3], &v) || v > UINT32_MAX) {
				fm_buf_printf(err, "bad power '%s' (mW)\n", argv[3]);
				return 1;
			}
			n->power_mw = v;
		}
		if (!n->conn) {
			fm_buf_printf(err, "node %u is not attached\n", n->id);
			return 1;
		}
		send_sensor(f, n);
	} else {
		goto usage;
	}
	fm_log("ctl: node %s %s%s%s", argv[1], argv[2], argc > 3 ? " " : "",
	       argc > 3 ? argv[3] : "");
	return 0;
usage:
	fm_buf_printf(err, "%s", ctl_usage);
	return 1;
}

int fm_parse_nodelist(const char *s, uint8_t *mask)
{
	char *copy = strdup(s), *save = NULL, *it;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (it = strtok_r(copy, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
		char *dash = strchr(it, '-');
		uint64_t lo, hi;

		if (dash)
			*dash = 0;
		if (fm_parse_u64(it, &lo) || (dash && fm_parse_u64(dash + 1, &hi))) {
			ret = -EINVAL;
			break;
		}
		if (!dash)
			hi = lo;
		if (hi < lo || hi >= FM_MAX_NODES) {
			ret = -EINVAL;
			break;
		}
		fm_nodemask_set(mask, lo, hi);
	}
	free(copy);
	return ret;
}

static int ctl_sim(struct fm_fabric *f, int argc, char **argv,
		   struct fm_buf *out, struct fm_buf *err)
{
	struct fm_node *n;
	uint64_t id;
	int st;

	if (argc < 4)
		goto usage;
	if (ctl_node(f, argv[2], err, &n))
		return 1;
	if (!n->sim) {
		fm_buf_printf(err, "node %u is not a sim node\n", n->id);
		return 1;
	}
	if (fm_parse_u64(argv[3], &id) || id >= FM_MAX_EXPORTS) {
		fm_buf_printf(err, "bad export id '%s' (0..%d)\n", argv[3],
			      FM_MAX_EXPORTS - 1);
		return 1;
	}
	if (!strcmp(argv[1], "export") && (argc == 8 || argc == 10)) {
		struct fm_export e = { .all_nodes = true };

		if (fm_parse_size(argv[4], &e.offset) ||
		    fm_parse_size(argv[5], &e.len) ||
		    fm_parse_u64(argv[6], &e.key)) {
			fm_buf_printf(err, "bad offset, len or key\n");
			return 1;
		}
		if (!strcmp(argv[7], "r") || !strcmp(argv[7], "ro")) {
			e.perm = SNODE_FM_PERM_READ;
		} else if (!strcmp(argv[7], "rw")) {
			e.perm = SNODE_FM_PERM_READ | SNODE_FM_PERM_WRITE;
		} else {
			fm_buf_printf(err, "bad perm '%s' (r or rw)\n", argv[7]);
			return 1;
		}
		if (argc == 10) {
			if (strcmp(argv[8], "nodes") ||
			    fm_parse_nodelist(argv[9], e.nodemask)) {
				fm_buf_printf(err, "bad node list (nodes 0,2-5)\n");
				return 1;
			}
			e.all_nodes = false;
		}
		st = fm_sim_export(f, n, id, &e);
		if (st) {
			fm_buf_printf(err, "export refused: %s\n", fm_status_name(st));
			return 1;
		}
	} else if (!strcmp(argv[1], "unexport") && argc == 4) {
		uint32_t revoked;

		st = fm_export_clear(f, n, id, SNODE_FM_REVOKE_UNEXPORT, &revoked);
		if (st) {
			fm_buf_printf(err, "unexport failed: %s\n", fm_status_name(st));
			return 1;
		}
		fm_buf_printf(out, "revoked %u\n", revoked);
	} else {
		goto usage;
	}
	fm_log("ctl: sim %s %s %s", argv[1], argv[2], argv[3]);
	return 0;
usage:
	fm_buf_printf(err, "%s", ctl_usage);
	return 1;
}

/*
 * Run one command. Return 0 (done, success), 1 (done, failure) or 2: the
 * answer waits for *wait_node to attach, until *wait_ms from now.
 */
int fm_ctl_exec(struct fm_fabric *f, int argc, char **argv, struct fm_buf *out,
		struct fm_buf *err, int *wait_node, uint64_t *wait_ms)
{
	if (argc < 1)
		goto usage;
	if (!strcmp(argv[0], "link"))
		return ctl_link(f, argc, argv, out, err);
	if (!strcmp(argv[0], "node"))
		return ctl_nodecmd(f, argc, argv, out, err);
	if (!strcmp(argv[0], "switch"))
		return ctl_switch(f, argc, argv, err);
	if (!strcmp(argv[0], "sim"))
		return ctl_sim(f, argc, argv, out, err);
	if (!strcmp(argv[0], "show") && argc >= 2) {
		bool json = false;
		int from = -1, i;

		if (strcmp(argv[1], "links") && strcmp(argv[1], "nodes") &&
		    strcmp(argv[1], "exports") && strcmp(argv[1], "grants"))
			goto usage;
		for (i = 2; i < argc; i++) {
			if (!strcmp(argv[i], "-j")) {
				json = true;
			} else if (!strcmp(argv[i], "from") && i + 1 < argc &&
				   !strcmp(argv[1], "nodes")) {
				struct fm_node *n;

				if (ctl_node(f, argv[++i], err, &n))
					return 1;
				from = n->id;
			} else {
				goto usage;
			}
		}
		fm_ctl_show(f, argv[1], json, from, out);
		return 0;
	}
	if (!strcmp(argv[0], "wait-attached") && (argc == 2 || argc == 4)) {
		struct fm_node *n;
		uint64_t ms = 60000;

		if (ctl_node(f, argv[1], err, &n))
			return 1;
		if (n->sim) {
			fm_buf_printf(err, "node %u is a sim node\n", n->id);
			return 1;
		}
		if (argc == 4 && (strcmp(argv[2], "timeout") ||
				  fm_parse_u64(argv[3], &ms)))
			goto usage;
		if (n->conn)
			return 0;
		*wait_node = n->id;
		*wait_ms = ms;
		return 2;
	}
	if (!strcmp(argv[0], "direct") && argc == 2 &&
	    (!strcmp(argv[1], "on") || !strcmp(argv[1], "off"))) {
		fm_direct_set(f, !strcmp(argv[1], "on"));
		fm_log("ctl: direct %s", argv[1]);
		return 0;
	}
	if (!strcmp(argv[0], "help")) {
		fm_buf_printf(out, "%s", ctl_usage);
		return 0;
	}
usage:
	fm_buf_printf(err, "%s", ctl_usage);
	return 1;
}

/* ---- server side ---- */

int fm_ctl_listen(const char *path)
{
	return fm_listen_seqpacket(path);
}

static void ctl_send(int fd, char kind, const char *s, size_t len)
{
	char buf[CTL_CHUNK + 1];

	do {
		size_t n = len > CTL_CHUNK ? CTL_CHUNK : len;

		buf[0] = kind;
		memcpy(buf + 1, s, n);
		if (send(fd, buf, n + 1, MSG_NOSIGNAL) < 0)
			return;
		s += n;
		len -= n;
	} while (len);
}

static void ctl_finish(struct fm_ctlc *cc, int ret, struct fm_buf *out,
		       struct fm_buf *err)
{
	if (out && out->len)
		ctl_send(cc->fd, 'o', out->s, out->len);
	if (err && err->len)
		ctl_send(cc->fd, 'e', err->s, err->len);
	ctl_send(cc->fd, 'x', ret ? "1" : "0", 1);
	close(cc->fd);
	cc->fd = -1;
}

void fm_ctl_accept(int lfd)
{
	struct timeval tv = { .tv_sec = 2 };
	struct fm_ctlc *p;
	int fd;

	fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0)
		return;
	/* answers are written blocking, but never wait on a stuck client */
	setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	p = realloc(ctlcs, (nctlcs + 1) * sizeof(*p));
	if (!p) {
		close(fd);
		return;
	}
	ctlcs = p;
	ctlcs[nctlcs++] = (struct fm_ctlc){ .fd = fd, .wait_node = -1 };
}

static void ctl_input(struct fm_fabric *f, struct fm_ctlc *cc)
{
	char req[CTL_REQ_MAX + 1], *argv[CTL_ARGS_MAX];
	struct fm_buf out = { 0 }, err = { 0 };
	uint64_t wait_ms = 0;
	int argc = 0, ret, wait_node = -1;
	ssize_t n, i;

	n = recv(cc->fd, req, CTL_REQ_MAX, MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		close(cc->fd);
		cc->fd = -1;
		return;
	}
	if (cc->wait_node >= 0)	/* one request per connection */
		return;
	req[n] = 0;
	for (i = 0; i < n && argc < CTL_ARGS_MAX; i++) {
		argv[argc++] = req + i;
		i += strlen(req + i);
	}
	ret = fm_ctl_exec(f, argc, argv, &out, &err, &wait_node, &wait_ms);
	/*
	 * The devices hear of the change before the operator does: with
	 * direct links (decision 0039) a device applies a fault to what it
	 * sends itself, so "ctl link down" returning means the packets
	 * telling the devices are on their sockets.
	 */
	fm_sync(f);
	if (ret == 2) {
		cc->wait_node = wait_node;
		cc->deadline = f->now + wait_ms;
	} else {
		ctl_finish(cc, ret, &out, &err);
	}
	fm_buf_free(&out);
	fm_buf_free(&err);
}

/* Answer waiters whose node attached or whose time ran out. */
static void ctl_waiters(struct fm_fabric *f)
{
	uint32_t i;

	for (i = 0; i < nctlcs; i++) {
		struct fm_ctlc *cc = &ctlcs[i];
		struct fm_node *n;
		struct fm_buf err = { 0 };

		if (cc->fd < 0 || cc->wait_node < 0)
			continue;
		n = fm_node_get(f, cc->wait_node);
		if (n && n->conn) {
			ctl_finish(cc, 0, NULL, NULL);
		} else if (f->now >= cc->deadline) {
			fm_buf_printf(&err, "timed out waiting for node %d to attach\n",
				      cc->wait_node);
			ctl_finish(cc, 1, NULL, &err);
			fm_buf_free(&err);
		}
	}
}

/* The event loop's view of the control connections. */
uint32_t fm_ctl_count(void)
{
	return nctlcs;
}

int fm_ctl_fd(uint32_t i)
{
	return ctlcs[i].fd;
}

void fm_ctl_ready(struct fm_fabric *f, uint32_t i)
{
	ctl_input(f, &ctlcs[i]);
}

void fm_ctl_timers(struct fm_fabric *f)
{
	uint32_t i;

	ctl_waiters(f);
	for (i = 0; i < nctlcs;) {
		if (ctlcs[i].fd < 0)
			ctlcs[i] = ctlcs[--nctlcs];
		else
			i++;
	}
}

void fm_ctl_close_all(void)
{
	uint32_t i;

	for (i = 0; i < nctlcs; i++)
		if (ctlcs[i].fd >= 0)
			close(ctlcs[i].fd);
	free(ctlcs);
	ctlcs = NULL;
	nctlcs = 0;
}

/* ---- client side: snode-fm ctl ---- */

int fm_ctl_client(const char *dir, int argc, char **argv)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char req[CTL_REQ_MAX], buf[CTL_CHUNK + 2];
	size_t len = 0;
	int fd, i;

	if (argc < 1) {
		fputs(ctl_usage, stderr);
		return 1;
	}
	if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/ctl.sock",
			     dir) >= sizeof(sa.sun_path)) {
		fprintf(stderr, "snode-fm ctl: run directory path too long\n");
		return 1;
	}
	for (i = 0; i < argc; i++) {
		size_t n = strlen(argv[i]) + 1;

		if (len + n > sizeof(req)) {
			fprintf(stderr, "snode-fm ctl: command too long\n");
			return 1;
		}
		memcpy(req + len, argv[i], n);
		len += n;
	}
	fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
		fprintf(stderr, "snode-fm ctl: cannot connect to %s: %s (is 'snode-fm run --dir %s' running?)\n",
			sa.sun_path, strerror(errno), dir);
		if (fd >= 0)
			close(fd);
		return 1;
	}
	if (send(fd, req, len, MSG_NOSIGNAL) < 0) {
		fprintf(stderr, "snode-fm ctl: send: %s\n", strerror(errno));
		close(fd);
		return 1;
	}
	for (;;) {
		ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			fprintf(stderr, "snode-fm ctl: the fm closed the connection without an answer\n");
			close(fd);
			return 1;
		}
		if (buf[0] == 'o') {
			fwrite(buf + 1, 1, n - 1, stdout);
		} else if (buf[0] == 'e') {
			fputs("snode-fm ctl: ", stderr);
			fwrite(buf + 1, 1, n - 1, stderr);
		} else if (buf[0] == 'x') {
			close(fd);
			fflush(stdout);
			return n > 1 && buf[1] == '0' ? 0 : 1;
		}
	}
}
