// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: plan.c - redundancy check and deployment sizing
 *
 * "snode-fm check --redundancy": every node (VM or sim) must have links to
 * at least two distinct switches. Back-to-back cables do not count: two
 * cables between the same two nodes survive a cable fault but not the loss
 * of either node's only peer, and a fabric without switches has no second
 * fault domain at all, so 2-b2b.topo and bench-2.topo fail by design.
 *
 * "snode-fm plan": the sizing formulas of
 * Documentation/admin-guide/planning.rst on a workload file, then the
 * workload's traffic pattern routed over the topology with fabric.c's own
 * routes (fm_route_path()), per-link load against lanes x speed, and the
 * switches whose loss disconnects a pair of nodes.
 *
 * The node formula as issue 12 gives it, Y / (X x Z x 86400 x u), is not
 * dimensionless with Z in seconds per unit; the work per day is Y x X x Z
 * node-seconds and a node supplies 86400 x u of them, so
 *   nodes = Y x X x Z / (86400 x u)
 * is what is computed (see the guide).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <libgen.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fm.h"
#include "print.h"

#define PLAN_OVER		0.80	/* flag links loaded above this */
#define PLAN_MEM_LO		4
#define PLAN_MEM_HI		6
#define PLAN_MAX_HOPS		(FM_MAX_SWITCHES + 2)


/* ---- redundancy ---- */

static void red_end(const struct fm_fabric *f, const struct fm_link *l,
		    uint32_t node, uint32_t port, struct fm_buf *b)
{
	const struct fm_end *o = (l->a.kind == FM_END_NODE && l->a.id == node &&
				  l->a.port == port) ? &l->b : &l->a;

	if (o->kind == FM_END_SWITCH)
		fm_buf_printf(b, "switch %s", f->sw_name[o->id]);
	else
		fm_buf_printf(b, "node %u (back to back)", o->id);
}

int fm_redundancy_check(const struct fm_fabric *f, const char *name,
			struct fm_buf *out, struct fm_buf *err)
{
	uint32_t i, p, bad = 0, good = 0;

	for (i = 0; i < FM_MAX_NODES; i++) {
		const struct fm_node *n = f->node[i];
		uint8_t seen[FM_MAX_SWITCHES] = { 0 };
		uint32_t nl = 0, nsw = 0, k = 0;

		if (!n)
			continue;
		for (p = 0; p < n->nports; p++) {
			const struct fm_link *l;

			if (n->port_link[p] < 0)
				continue;
			l = &f->links[n->port_link[p]];
			nl++;
			if (l->b.kind == FM_END_SWITCH && !seen[l->b.id]) {
				seen[l->b.id] = 1;
				nsw++;
			}
		}
		if (nsw >= 2) {
			good++;
			continue;
		}
		bad++;
		fm_buf_printf(err, "%s:%d: node %u: ", name, n->line, i);
		if (!nl) {
			fm_buf_printf(err, "no links\n");
			continue;
		}
		if (nl == 1)
			fm_buf_printf(err, "one link, to ");
		else
			fm_buf_printf(err, "%u links, to ", nl);
		for (p = 0; p < n->nports; p++) {
			if (n->port_link[p] < 0)
				continue;
			if (k++)
				fm_buf_printf(err, k == nl ? " and " : ", ");
			red_end(f, &f->links[n->port_link[p]], i, p, err);
		}
		if (nl > 1)
			fm_buf_printf(err, " (%s)", nsw ? "one switch" : "no switch");
		fm_buf_printf(err, "\n");
	}
	if (bad)
		return -EINVAL;
	fm_buf_printf(out, "redundant: %u nodes, each with >= 2 paths via distinct switches\n",
		      good);
	return 0;
}

/* ---- workload files ---- */

struct wl_ctx {
	struct fm_workload *w;
	const char *name;
	int line;
	char *err;
	size_t errlen;
};

static int wl_err(struct wl_ctx *c, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int wl_err(struct wl_ctx *c, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = fm_line_err(c->err, c->errlen, c->name, c->line, fmt, ap);
	va_end(ap);
	return ret;
}

/*
 * A number with an optional unit: sizes take K M G T P (powers of 1000)
 * or Ki Mi Gi Ti Pi (powers of 1024) and an optional B; times take s, ms
 * or us. Bandwidth is counted in decimal units, as links are.
 */
static int wl_number(const char *s, bool size, bool time, double *out)
{
	static const char sfx[] = "KMGTP";
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || !isfinite(v))
		return -EINVAL;
	if (size && *end) {
		const char *p = strchr(sfx, *end & ~0x20);
		double base = 1000;

		if (p) {
			end++;
			if (*end == 'i') {
				base = 1024;
				end++;
			}
			v *= pow(base, p - sfx + 1);
		}
		if (*end == 'B')
			end++;
	} else if (time && *end) {
		if (!strcmp(end, "s"))
			end++;
		else if (!strcmp(end, "ms"))
			v /= 1e3, end += 2;
		else if (!strcmp(end, "us"))
			v /= 1e6, end += 2;
	}
	if (*end)
		return -EINVAL;
	*out = v;
	return 0;
}

enum wl_key {
	WL_JOBS, WL_UNITS, WL_SECONDS, WL_UTIL, WL_MODEL, WL_SYNC_BYTES,
	WL_SYNC_INTERVAL, WL_HEADROOM, WL_PATTERN, WL_NODES, WL_NKEYS
};

_Static_assert(sizeof(((struct fm_workload *)0)->key_line) / sizeof(int) >= WL_NKEYS,
	       "a line per workload key");

static const struct {
	const char *name;
	bool size, time, required;
} wl_keys[WL_NKEYS] = {
	[WL_JOBS]		= { "jobs_per_day", false, false, true },
	[WL_UNITS]		= { "units_per_job", false, false, true },
	[WL_SECONDS]		= { "seconds_per_unit", false, true, true },
	[WL_UTIL]		= { "utilisation", false, false, false },
	[WL_MODEL]		= { "model_size", true, false, true },
	[WL_SYNC_BYTES]		= { "data_per_sync", true, false, false },
	[WL_SYNC_INTERVAL]	= { "sync_interval", false, true, true },
	[WL_HEADROOM]		= { "headroom", false, false, false },
	[WL_PATTERN]		= { "pattern", false, false, true },
	[WL_NODES]		= { "nodes", false, false, false },
};

static char *wl_trim(char *s)
{
	char *e;

	while (*s == ' ' || *s == '\t')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\t' || e[-1] == '\r' ||
			 e[-1] == '\n'))
		*--e = 0;
	return s;
}

static int wl_read(const char *path, struct fm_buf *b, char *err, size_t errlen)
{
	FILE *fp = fopen(path, "r");
	char chunk[4096];
	size_t n;

	if (!fp) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -ENOENT;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		if (memchr(chunk, 0, n)) {
			fclose(fp);
			snprintf(err, errlen, "%s: binary file", path);
			return -EINVAL;
		}
		fm_buf_printf(b, "%.*s", (int)n, chunk);
	}
	fclose(fp);
	return 0;
}

/* "SRC DST BYTES" per line: what SRC sends DST per sync. */
int fm_matrix_parse_string(struct fm_workload *w, const char *name,
			   const char *text, char *err, size_t errlen)
{
	struct wl_ctx c = { .w = w, .name = name, .err = err, .errlen = errlen };
	char *copy = strdup(text), *line, *next;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (line = copy; line && !ret; line = next) {
		char *tok[4], *save = NULL, *hash;
		uint64_t src, dst;
		double bytes;
		int n = 0;
		void *p;

		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else if (!*line)
			break;
		c.line++;
		hash = strchr(line, '#');
		if (hash)
			*hash = 0;
		for (char *t = strtok_r(line, " \t\r", &save); t && n < 4;
		     t = strtok_r(NULL, " \t\r", &save))
			tok[n++] = t;
		if (!n)
			continue;
		if (n != 3) {
			ret = wl_err(&c, "want SRC DST BYTES");
			break;
		}
		if (fm_parse_u64(tok[0], &src) || src >= FM_MAX_NODES ||
		    fm_parse_u64(tok[1], &dst) || dst >= FM_MAX_NODES) {
			ret = wl_err(&c, "bad node in '%s %s'", tok[0], tok[1]);
			break;
		}
		if (src == dst) {
			ret = wl_err(&c, "node %llu sends to itself",
				     (unsigned long long)src);
			break;
		}
		if (wl_number(tok[2], true, false, &bytes) || bytes < 0) {
			ret = wl_err(&c, "bad number '%s' for bytes", tok[2]);
			break;
		}
		p = realloc(w->flows, (w->nflows + 1) * sizeof(*w->flows));
		if (!p) {
			ret = -ENOMEM;
			break;
		}
		w->flows = p;
		w->flows[w->nflows].src = src;
		w->flows[w->nflows].dst = dst;
		w->flows[w->nflows].bytes = bytes;
		w->flows[w->nflows].line = c.line;
		w->nflows++;
	}
	free(copy);
	if (!ret && !w->nflows) {
		c.line = c.line ? c.line : 1;
		ret = wl_err(&c, "empty traffic matrix");
	}
	return ret;
}

static int wl_matrix(struct wl_ctx *c, const char *file)
{
	char path[4096], dir[4096], err[512];
	struct fm_buf b = { 0 };
	int ret;

	if (file[0] == '/') {
		snprintf(path, sizeof(path), "%s", file);
	} else {
		snprintf(dir, sizeof(dir), "%s", c->name);
		snprintf(path, sizeof(path), "%s/%s", dirname(dir), file);
	}
	snprintf(c->w->matrix, sizeof(c->w->matrix), "%s", path);
	if (wl_read(path, &b, err, sizeof(err)))
		return wl_err(c, "pattern matrix: %s", err);
	ret = fm_matrix_parse_string(c->w, path, b.s ? b.s : "", c->err,
				     c->errlen);
	fm_buf_free(&b);
	return ret;
}

static int wl_line(struct wl_ctx *c, char *line)
{
	struct fm_workload *w = c->w;
	char *eq, *key, *val, *hash = strchr(line, '#');
	double v;
	int k;

	if (hash)
		*hash = 0;
	line = wl_trim(line);
	if (!*line)
		return 0;
	eq = strchr(line, '=');
	if (!eq)
		return wl_err(c, "want KEY = VALUE");
	*eq = 0;
	key = wl_trim(line);
	val = wl_trim(eq + 1);
	if (!strcmp(key, "utilization"))
		key = "utilisation";
	for (k = 0; k < WL_NKEYS; k++)
		if (!strcmp(key, wl_keys[k].name))
			break;
	if (k == WL_NKEYS)
		return wl_err(c, "unknown key '%s'", key);
	if (w->key_line[k])
		return wl_err(c, "%s given twice (first on line %d)", key,
			      w->key_line[k]);
	if (!*val)
		return wl_err(c, "missing value for %s", key);
	w->key_line[k] = c->line;
	if (k == WL_PATTERN) {
		if (!strcmp(val, "all-to-all"))
			w->pattern = FM_PAT_ALL_TO_ALL;
		else if (!strcmp(val, "ring-allreduce"))
			w->pattern = FM_PAT_RING;
		else if (!strncmp(val, "matrix", 6) && (val[6] == ' ' || val[6] == '\t')) {
			w->pattern = FM_PAT_MATRIX;
			return wl_matrix(c, wl_trim(val + 6));
		} else
			return wl_err(c, "bad pattern '%s' (all-to-all, ring-allreduce or matrix FILE)",
				      val);
		return 0;
	}
	if (k == WL_NODES) {
		if (fm_parse_nodelist(val, w->nodemask))
			return wl_err(c, "bad node list '%s'", val);
		w->has_nodes = true;
		return 0;
	}
	if (wl_number(val, wl_keys[k].size, wl_keys[k].time, &v))
		return wl_err(c, "bad number '%s' for %s", val, key);
	switch (k) {
	case WL_JOBS:
		if (v < 0)
			return wl_err(c, "jobs_per_day must be >= 0");
		w->jobs_per_day = v;
		break;
	case WL_UNITS:
		if (v <= 0)
			return wl_err(c, "units_per_job must be > 0");
		w->units_per_job = v;
		break;
	case WL_SECONDS:
		if (v <= 0)
			return wl_err(c, "seconds_per_unit must be > 0");
		w->seconds_per_unit = v;
		break;
	case WL_UTIL:
		if (!(v > 0 && v <= 1))
			return wl_err(c, "utilisation %s outside (0, 1]", val);
		w->utilisation = v;
		break;
	case WL_MODEL:
		if (v < 0)
			return wl_err(c, "model_size must be >= 0");
		w->model_bytes = v;
		break;
	case WL_SYNC_BYTES:
		if (v < 0)
			return wl_err(c, "data_per_sync must be >= 0");
		w->sync_bytes = v;
		break;
	case WL_SYNC_INTERVAL:
		if (v <= 0)
			return wl_err(c, "sync_interval must be > 0 (a sync every 0 s needs infinite bandwidth)");
		w->sync_interval = v;
		break;
	case WL_HEADROOM:
		if (v < 0 || v > 1)
			return wl_err(c, "headroom %s outside [0, 1]", val);
		w->headroom = v;
		break;
	}
	return 0;
}

int fm_workload_parse_string(struct fm_workload *w, const char *name,
			     const char *text, char *err, size_t errlen)
{
	struct wl_ctx c = { .w = w, .name = name, .err = err, .errlen = errlen };
	char *copy = strdup(text), *line, *next;
	int ret = 0, k;

	if (!copy)
		return -ENOMEM;
	memset(w, 0, sizeof(*w));
	w->utilisation = FM_PLAN_DEF_UTIL;
	w->headroom = FM_PLAN_DEF_HEADROOM;
	for (line = copy; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else if (!*line)
			break;
		c.line++;
		ret = wl_line(&c, line);
		if (ret)
			break;
	}
	free(copy);
	if (ret)
		return ret;
	c.line = c.line ? c.line : 1;	/* missing keys: at the end of the file */
	for (k = 0; k < WL_NKEYS; k++)
		if (wl_keys[k].required && !w->key_line[k])
			return wl_err(&c, "missing key '%s'", wl_keys[k].name);
	if (w->pattern == FM_PAT_MATRIX && w->key_line[WL_SYNC_BYTES]) {
		c.line = w->key_line[WL_SYNC_BYTES];
		return wl_err(&c, "data_per_sync is not used with pattern = matrix (the matrix gives the bytes)");
	}
	if (w->pattern != FM_PAT_MATRIX && !w->key_line[WL_SYNC_BYTES])
		return wl_err(&c, "missing key 'data_per_sync'");
	w->nodes_line = w->key_line[WL_NODES];
	return 0;
}

int fm_workload_parse_file(struct fm_workload *w, const char *path,
			   char *err, size_t errlen)
{
	struct fm_buf b = { 0 };
	int ret;

	memset(w, 0, sizeof(*w));
	ret = wl_read(path, &b, err, errlen);
	if (!ret)
		ret = fm_workload_parse_string(w, path, b.s ? b.s : "", err,
					       errlen);
	fm_buf_free(&b);
	return ret;
}

void fm_workload_free(struct fm_workload *w)
{
	free(w->flows);
	w->flows = NULL;
	w->nflows = 0;
}

const char *fm_pattern_name(enum fm_pattern p)
{
	switch (p) {
	case FM_PAT_ALL_TO_ALL:	return "all-to-all";
	case FM_PAT_RING:	return "ring-allreduce";
	default:		return "matrix";
	}
}

/* ---- the plan ---- */

/* ceil() that does not turn 8.000000000000002 into 9 */
static uint32_t plan_ceil(double v)
{
	return (uint32_t)ceil(v - 1e-9);
}

static int plan_flow(struct fm_fabric *f, struct fm_plan *p, uint32_t src,
		     uint32_t dst, double bytes_per_s, char *err, size_t errlen)
{
	uint32_t path[PLAN_MAX_HOPS];
	struct fm_end cur = { .kind = FM_END_NODE, .id = src };
	int n, i;

	n = fm_route_path(f, src, dst, path, PLAN_MAX_HOPS);
	if (n < 0) {
		snprintf(err, errlen, "%s: node %u has no path to node %u; the pattern needs one (check the links)",
			 p->topo, src, dst);
		return -EHOSTUNREACH;
	}
	for (i = 0; i < n; i++) {
		const struct fm_link *l = &f->links[path[i]];
		bool fwd = l->a.kind == cur.kind && l->a.id == cur.id;

		p->load[path[i]][fwd ? 0 : 1] += bytes_per_s;
		cur = fwd ? l->b : l->a;
	}
	return 0;
}

/* Switches whose loss (every link on them down) disconnects a pair. */
static void plan_spof(struct fm_fabric *f, struct fm_plan *p)
{
	uint32_t s, i, j, k;
	bool *saved = calloc(f->nlinks ? f->nlinks : 1, sizeof(*saved));
	uint8_t *before = malloc((size_t)FM_MAX_NODES * FM_MAX_NODES);

	if (!saved || !before)
		abort();
	for (i = 0; i < FM_MAX_NODES; i++)
		for (j = 0; j < FM_MAX_NODES; j++)
			before[i * FM_MAX_NODES + j] = f->node[i] && f->node[j] &&
						      fm_reachable(f, i, j);
	for (s = 0; s < f->nswitches; s++) {
		p->spof[s].lost = false;
		for (k = 0; k < f->nlinks; k++) {
			struct fm_link *l = &f->links[k];

			saved[k] = l->admin_up;
			if ((l->a.kind == FM_END_SWITCH && l->a.id == s) ||
			    (l->b.kind == FM_END_SWITCH && l->b.id == s))
				l->admin_up = false;
		}
		fm_routes_compute(f);
		for (i = 0; i < FM_MAX_NODES && !p->spof[s].lost; i++)
			for (j = 0; j < FM_MAX_NODES; j++) {
				if (i == j || !before[i * FM_MAX_NODES + j] ||
				    fm_reachable(f, i, j))
					continue;
				p->spof[s].lost = true;
				p->spof[s].a = i;
				p->spof[s].b = j;
				p->nspof++;
				break;
			}
		for (k = 0; k < f->nlinks; k++)
			f->links[k].admin_up = saved[k];
	}
	fm_routes_compute(f);
	free(saved);
	free(before);
}

int fm_plan_compute(struct fm_fabric *f, const char *topo,
		    const struct fm_workload *w, struct fm_plan *p,
		    char *err, size_t errlen)
{
	uint32_t members[FM_MAX_NODES], n = 0, i, j;
	int ret;

	memset(p, 0, sizeof(*p));
	p->topo = topo;
	for (i = 0; i < FM_MAX_NODES; i++) {
		bool want = w->has_nodes ? !!(w->nodemask[i / 8] & (1 << (i % 8))) :
					   !!f->node[i];

		if (w->pattern == FM_PAT_MATRIX) {
			want = false;
			for (j = 0; j < w->nflows; j++)
				want |= w->flows[j].src == i || w->flows[j].dst == i;
		}
		if (!want)
			continue;
		if (!f->node[i]) {
			snprintf(err, errlen, "%s: node %u is not in %s",
				 w->pattern == FM_PAT_MATRIX ? w->matrix : "workload",
				 i, topo);
			return -EINVAL;
		}
		members[n++] = i;
	}
	if (n < 2) {
		snprintf(err, errlen, "workload: the pattern needs >= 2 nodes, has %u", n);
		return -EINVAL;
	}
	p->npattern = n;
	p->nodes_raw = w->jobs_per_day * w->units_per_job * w->seconds_per_unit /
		       (86400.0 * w->utilisation);
	p->nodes_needed = plan_ceil(p->nodes_raw * (1 + w->headroom));
	p->mem_lo = w->model_bytes * PLAN_MEM_LO;
	p->mem_hi = w->model_bytes * PLAN_MEM_HI;
	p->load = calloc(f->nlinks ? f->nlinks : 1, sizeof(*p->load));
	p->spof = calloc(f->nswitches ? f->nswitches : 1, sizeof(*p->spof));
	if (!p->load || !p->spof)
		abort();
	if (w->pattern == FM_PAT_MATRIX) {
		double *sent = calloc(FM_MAX_NODES, sizeof(*sent));

		if (!sent)
			abort();
		for (j = 0; j < w->nflows; j++) {
			const struct fm_flow *fl = &w->flows[j];

			sent[fl->src] += fl->bytes;
			ret = plan_flow(f, p, fl->src, fl->dst,
					fl->bytes / w->sync_interval, err, errlen);
			if (ret) {
				free(sent);
				return ret;
			}
		}
		for (i = 0; i < FM_MAX_NODES; i++)
			if (sent[i] > p->sync_bytes)
				p->sync_bytes = sent[i];
		free(sent);
	} else {
		double rate = w->sync_bytes / w->sync_interval;

		p->sync_bytes = w->sync_bytes;
		for (i = 0; i < n; i++) {
			if (w->pattern == FM_PAT_RING) {
				ret = plan_flow(f, p, members[i], members[(i + 1) % n],
						rate, err, errlen);
				if (ret)
					return ret;
				continue;
			}
			for (j = 0; j < n; j++) {
				if (i == j)
					continue;
				ret = plan_flow(f, p, members[i], members[j],
						rate / (n - 1), err, errlen);
				if (ret)
					return ret;
			}
		}
	}
	p->node_bps = p->sync_bytes * 8 / w->sync_interval;
	for (i = 0; i < f->nlinks; i++) {
		const struct fm_link *l = &f->links[i];
		double cap = (double)l->max_lanes * l->speed * 1e9;
		double hi = p->load[i][0] > p->load[i][1] ? p->load[i][0] :
							    p->load[i][1];

		if (hi * 8 / cap > PLAN_OVER)
			p->nover++;
	}
	plan_spof(f, p);
	return 0;
}

void fm_plan_free(struct fm_plan *p)
{
	free(p->load);
	free(p->spof);
	p->load = NULL;
	p->spof = NULL;
}

static void plan_sink(void *arg, const char *s)
{
	fm_buf_printf(arg, "%s", s);
}

/* decimal, as link speeds are */
static void plan_bytes_str(double v, char *s, size_t len)
{
	static const char *const sfx[] = { "B", "KB", "MB", "GB", "TB", "PB" };
	int i = 0;

	while (v >= 1000 && i < 5) {
		v /= 1000;
		i++;
	}
	snprintf(s, len, "%.2f %s", v, sfx[i]);
}

void fm_plan_print(const struct fm_fabric *f, const struct fm_workload *w,
		   const struct fm_plan *p, bool json, bool pretty,
		   struct fm_buf *out)
{
	struct print_opts o = {
		.json = json, .pretty = pretty,
		.sink = plan_sink, .sink_arg = out,
	};
	char s1[32], s2[32], s3[32], a[64], b[64];
	uint32_t i;

	print_begin(&o);
	print_str("topology", "plan for %s", p->topo);
	print_str("pattern", ": %s", fm_pattern_name(w->pattern));
	print_u64("pattern_nodes", " over %llu nodes", p->npattern);
	print_nl();

	print_open_object("nodes");
	print_double("jobs_per_day", NULL, w->jobs_per_day);
	print_double("units_per_job", NULL, w->units_per_job);
	print_double("seconds_per_unit", NULL, w->seconds_per_unit);
	print_double("utilisation", NULL, w->utilisation);
	print_double("headroom", NULL, w->headroom);
	print_double("raw", "nodes needed: %.2f", p->nodes_raw);
	print_text(" at %.0f%% utilisation, ", w->utilisation * 100);
	print_u64("needed", "%llu", p->nodes_needed);
	print_text(" with %.0f%% headroom", w->headroom * 100);
	print_u64("topology", " (topology: %llu nodes)", f->nnodes);
	print_bool("short", NULL, p->nodes_needed > f->nnodes);
	if (p->nodes_needed > f->nnodes)
		print_text(" SHORT by %u", p->nodes_needed - f->nnodes);
	print_nl();
	print_close_object();

	plan_bytes_str(w->model_bytes, s1, sizeof(s1));
	plan_bytes_str(p->mem_lo, s2, sizeof(s2));
	plan_bytes_str(p->mem_hi, s3, sizeof(s3));
	print_open_object("memory");
	print_double("model_bytes", NULL, w->model_bytes);
	print_double("low_bytes", NULL, p->mem_lo);
	print_double("high_bytes", NULL, p->mem_hi);
	print_text("memory per node: %s - %s (model %s x %d-%d)\n", s2, s3, s1,
		   PLAN_MEM_LO, PLAN_MEM_HI);
	print_close_object();

	plan_bytes_str(p->sync_bytes, s1, sizeof(s1));
	print_open_object("bandwidth");
	print_double("bytes_per_sync", NULL, p->sync_bytes);
	print_double("sync_interval_s", NULL, w->sync_interval);
	print_double("gbps", "bandwidth per node: %.2f Gb/s", p->node_bps / 1e9);
	print_text(" (%s per sync every %g s), ", s1, w->sync_interval);
	print_double("gbps_headroom", "%.2f Gb/s", p->node_bps * (1 + w->headroom) / 1e9);
	print_text(" with headroom\n");
	print_close_object();

	print_open_array("links");
	for (i = 0; i < f->nlinks; i++) {
		const struct fm_link *l = &f->links[i];
		double cap = (double)l->max_lanes * l->speed * 1e9;
		double ab = p->load[i][0] * 8, ba = p->load[i][1] * 8;
		double util = (ab > ba ? ab : ba) / cap;

		fm_end_name(f, &l->a, a, sizeof(a));
		fm_end_name(f, &l->b, b, sizeof(b));
		print_open_object(NULL);
		print_u64("line", "link line %llu", l->line);
		print_str("a", ": %s", a);
		print_str("b", " - %s", b);
		print_u64("capacity_gbps", ", %llu Gb/s:",
			  (uint64_t)l->max_lanes * l->speed);
		print_double("ab_gbps", " %.2f", ab / 1e9);
		print_double("ba_gbps", " / %.2f Gb/s", ba / 1e9);
		print_double("utilisation", NULL, util);
		print_text(", %.1f%%", util * 100);
		print_bool("over", NULL, util > PLAN_OVER);
		if (util > PLAN_OVER)
			print_text("  OVER %.0f%%", PLAN_OVER * 100);
		print_nl();
		print_close_object();
	}
	print_close_array();
	print_u64("links_over", "links over 80%%: %llu", p->nover);
	print_nl();

	print_open_array("single_points_of_failure");
	for (i = 0; i < f->nswitches; i++) {
		if (!p->spof[i].lost)
			continue;
		print_open_object(NULL);
		print_str("switch", "single point of failure: switch %s", f->sw_name[i]);
		print_u64("node", " (node %llu", p->spof[i].a);
		print_u64("loses", " loses node %llu)", p->spof[i].b);
		print_nl();
		print_close_object();
	}
	print_close_array();
	if (!p->nspof)
		print_text("single points of failure: none\n");
	print_flush(true);
}
