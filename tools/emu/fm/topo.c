// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: topo.c - the topology file parser
 *
 * Reads the line-oriented format of Documentation/emu/topology.rst into a
 * struct fm_fabric. Every line is checked as it is read; the first problem
 * rejects the file with "FILE:LINE: reason". Names must be defined before
 * they are used (a link names nodes and switches declared above it), which
 * keeps every error attributable to one line.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "fm.h"

#define TOPO_MAX_TOK	64

struct topo_ctx {
	struct fm_fabric *f;
	const char *name;
	int line;
	char *err;
	size_t errlen;
	bool fabric_seen;
	/* defaults, applied to later node and link lines */
	uint64_t pool;
	uint32_t ports, lanes, speed;
	double ber;
};

static int topo_err(struct topo_ctx *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static int topo_err(struct topo_ctx *t, const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = fm_line_err(t->err, t->errlen, t->name, t->line, fmt, ap);
	va_end(ap);
	return ret;
}

static int topo_num(struct topo_ctx *t, const char *what, const char *s,
		    uint64_t max, uint64_t *out)
{
	if (!s)
		return topo_err(t, "missing value for %s", what);
	if (fm_parse_u64(s, out))
		return topo_err(t, "bad number '%s' for %s", s, what);
	if (*out > max)
		return topo_err(t, "%s %s out of range (max %llu)", what, s,
				(unsigned long long)max);
	return 0;
}

static int topo_size(struct topo_ctx *t, const char *what, const char *s,
		     uint64_t *out)
{
	if (!s)
		return topo_err(t, "missing value for %s", what);
	if (fm_parse_size(s, out))
		return topo_err(t, "bad size '%s' for %s", s, what);
	return 0;
}

static int topo_ber(struct topo_ctx *t, const char *s, double *out)
{
	char *end;

	if (!s)
		return topo_err(t, "missing value for ber");
	errno = 0;
	*out = strtod(s, &end);
	if (errno || *end || end == s || !isfinite(*out))
		return topo_err(t, "bad number '%s' for ber", s);
	if (*out < 0 || *out >= 1)
		return topo_err(t, "ber %s out of range [0, 1)", s);
	return 0;
}

static int topo_pool(struct topo_ctx *t, const char *s, uint64_t *out)
{
	if (topo_size(t, "pool", s, out))
		return -EINVAL;
	if (*out < FM_MIN_POOL || (*out & (*out - 1)))
		return topo_err(t, "pool %s is not a power of two >= 4K", s);
	return 0;
}

/* "A" or "A-B", node ids. */
static int topo_range(struct topo_ctx *t, const char *s, uint32_t *lo,
		      uint32_t *hi)
{
	char buf[64], *dash;
	uint64_t a, b;

	if (strlen(s) >= sizeof(buf))
		return topo_err(t, "bad node id '%s'", s);
	strcpy(buf, s);
	dash = strchr(buf, '-');
	if (dash)
		*dash = 0;
	if (fm_parse_u64(buf, &a) || (dash && fm_parse_u64(dash + 1, &b)))
		return topo_err(t, "bad node id '%s'", s);
	if (!dash)
		b = a;
	if (a >= FM_MAX_NODES || b >= FM_MAX_NODES)
		return topo_err(t, "node id %s >= %d", s, FM_MAX_NODES);
	if (b < a)
		return topo_err(t, "empty node range '%s'", s);
	*lo = a;
	*hi = b;
	return 0;
}

static bool topo_is_name(const char *s)
{
	if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_'))
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			return false;
	return true;
}

static int topo_fabric(struct topo_ctx *t, int n, char **tok)
{
	uint64_t v;

	if (n != 2)
		return topo_err(t, "usage: fabric ID");
	if (t->fabric_seen)
		return topo_err(t, "fabric given twice");
	if (topo_num(t, "fabric", tok[1], 65535, &v))
		return -EINVAL;
	t->f->fabric_id = v;
	t->fabric_seen = true;
	return 0;
}

static int topo_link_opts(struct topo_ctx *t, int n, char **tok, int i,
			  uint32_t *lanes, uint32_t *speed, double *ber)
{
	uint64_t v;

	for (; i < n; i += 2) {
		if (!strcmp(tok[i], "lanes")) {
			if (topo_num(t, "lanes", tok[i + 1], 32, &v))
				return -EINVAL;
			if (!v)
				return topo_err(t, "lanes must be >= 1");
			*lanes = v;
		} else if (!strcmp(tok[i], "speed")) {
			if (topo_num(t, "speed", tok[i + 1], 65535, &v))
				return -EINVAL;
			if (!v)
				return topo_err(t, "speed must be >= 1");
			*speed = v;
		} else if (!strcmp(tok[i], "ber")) {
			if (topo_ber(t, tok[i + 1], ber))
				return -EINVAL;
		} else {
			return topo_err(t, "unknown link option '%s'", tok[i]);
		}
	}
	return 0;
}

static int topo_defaults(struct topo_ctx *t, int n, char **tok)
{
	uint64_t v;
	int i;

	if (n < 3 || !(n & 1))
		return topo_err(t, "usage: defaults [pool SIZE] [ports N] [lanes N] [speed N] [ber RATE]");
	for (i = 1; i < n; i += 2) {
		if (!strcmp(tok[i], "pool")) {
			if (topo_pool(t, tok[i + 1], &t->pool))
				return -EINVAL;
		} else if (!strcmp(tok[i], "ports")) {
			if (topo_num(t, "ports", tok[i + 1], FM_MAX_PORTS, &v))
				return -EINVAL;
			if (!v)
				return topo_err(t, "ports must be >= 1");
			t->ports = v;
		} else if (topo_link_opts(t, i + 2, tok, i, &t->lanes,
					  &t->speed, &t->ber)) {
			if (strstr(t->err, "unknown link option"))
				return topo_err(t, "unknown defaults option '%s'",
						tok[i]);
			return -EINVAL;
		}
	}
	return 0;
}

/* A switch or rack name: a topology name short enough for the devices. */
static int topo_check_name(struct topo_ctx *t, const char *what, const char *s)
{
	if (!topo_is_name(s))
		return topo_err(t, "bad %s name '%s' (must start with a letter)",
				what, s);
	if (strlen(s) > FM_NAME_MAX)
		return topo_err(t, "%s name '%s' too long (max %d characters)",
				what, s, FM_NAME_MAX);
	return 0;
}

static int topo_switch(struct topo_ctx *t, int n, char **tok)
{
	struct fm_fabric *f = t->f;
	uint8_t plane = FM_NO_PLANE;
	uint64_t v;

	if (n != 2 && !(n == 4 && !strcmp(tok[2], "plane"))) {
		if (n >= 3 && strcmp(tok[2], "plane"))
			return topo_err(t, "unknown switch option '%s'", tok[2]);
		return topo_err(t, "usage: switch NAME [plane P]");
	}
	if (topo_check_name(t, "switch", tok[1]))
		return -EINVAL;
	if (n == 4) {
		if (topo_num(t, "plane", tok[3], FM_NO_PLANE - 1, &v))
			return -EINVAL;
		plane = v;
	}
	if (fm_switch_find(f, tok[1]) >= 0)
		return topo_err(t, "duplicate switch '%s'", tok[1]);
	if (fm_rack_find(f, tok[1]) >= 0)
		return topo_err(t, "switch '%s' has the name of a rack", tok[1]);
	if (f->nswitches >= FM_MAX_SWITCHES)
		return topo_err(t, "too many switches (max %d)", FM_MAX_SWITCHES);
	f->sw_name[f->nswitches] = strdup(tok[1]);
	if (!f->sw_name[f->nswitches])
		return topo_err(t, "out of memory");
	f->sw_plane[f->nswitches++] = plane;
	return 0;
}

static int topo_rack(struct topo_ctx *t, int n, char **tok)
{
	struct fm_fabric *f = t->f;

	if (n != 2)
		return topo_err(t, "usage: rack NAME");
	if (topo_check_name(t, "rack", tok[1]))
		return -EINVAL;
	if (fm_rack_find(f, tok[1]) >= 0)
		return topo_err(t, "duplicate rack '%s'", tok[1]);
	if (fm_switch_find(f, tok[1]) >= 0)
		return topo_err(t, "rack '%s' has the name of a switch", tok[1]);
	if (f->nracks >= FM_MAX_RACKS)
		return topo_err(t, "too many racks (max %d)", FM_MAX_RACKS);
	f->rack_name[f->nracks] = strdup(tok[1]);
	if (!f->rack_name[f->nracks])
		return topo_err(t, "out of memory");
	f->nracks++;
	return 0;
}

static int topo_node(struct topo_ctx *t, int n, char **tok)
{
	uint64_t pool = t->pool, v, host = 0;
	uint32_t ports = t->ports, lo, hi, id;
	bool sim = false, has_host = false;
	uint16_t rack = FM_NO_RACK;
	int i, r;

	if (n < 2)
		return topo_err(t, "usage: node ID|FIRST-LAST [host H] [pool SIZE] [ports N] [rack NAME] [sim]");
	if (topo_range(t, tok[1], &lo, &hi))
		return -EINVAL;
	for (i = 2; i < n; i++) {
		if (!strcmp(tok[i], "sim")) {
			sim = true;
		} else if (!strcmp(tok[i], "host")) {
			if (topo_num(t, "host", tok[++i], 65535, &host))
				return -EINVAL;
			has_host = true;
		} else if (!strcmp(tok[i], "pool")) {
			if (topo_pool(t, tok[++i], &pool))
				return -EINVAL;
		} else if (!strcmp(tok[i], "ports")) {
			if (topo_num(t, "ports", tok[++i], FM_MAX_PORTS, &v))
				return -EINVAL;
			if (!v)
				return topo_err(t, "ports must be >= 1");
			ports = v;
		} else if (!strcmp(tok[i], "rack")) {
			if (!tok[++i])
				return topo_err(t, "missing value for rack");
			r = fm_rack_find(t->f, tok[i]);
			if (r < 0)
				return topo_err(t, "unknown rack '%s'", tok[i]);
			rack = r;
		} else {
			return topo_err(t, "unknown node option '%s'", tok[i]);
		}
	}
	if (sim && has_host)
		return topo_err(t, "a sim node has no host");
	if (has_host && lo != hi)
		return topo_err(t, "host given for a range of nodes");
	for (id = lo; id <= hi; id++) {
		struct fm_node *nd;

		if (fm_node_get(t->f, id))
			return topo_err(t, "duplicate node %u", id);
		if (fm_node_add(t->f, id))
			return topo_err(t, "out of memory");
		nd = fm_node_get(t->f, id);
		nd->line = t->line;
		nd->sim = sim;
		nd->host = has_host ? host : id;
		nd->pool_size = pool;
		nd->nports = ports;
		nd->rack = rack;
		nd->life = sim ? FM_LIFE_UP : FM_LIFE_UNKNOWN;
	}
	return 0;
}

/* One end of a link: "SWITCH", "A.P" or "A-B.P". */
struct topo_end {
	bool sw;
	uint32_t id, lo, hi, port;
};

static int topo_end(struct topo_ctx *t, const char *s, struct topo_end *e)
{
	char buf[64], *dot;
	uint64_t p;
	int sw;

	memset(e, 0, sizeof(*e));
	if (topo_is_name(s)) {
		sw = fm_switch_find(t->f, s);
		if (sw < 0)
			return topo_err(t, "link to unknown switch '%s'", s);
		e->sw = true;
		e->id = sw;
		return 0;
	}
	if (strlen(s) >= sizeof(buf))
		return topo_err(t, "bad link end '%s'", s);
	strcpy(buf, s);
	dot = strchr(buf, '.');
	if (!dot)
		return topo_err(t, "bad link end '%s' (want NODE.PORT or a switch)", s);
	*dot = 0;
	if (topo_range(t, buf, &e->lo, &e->hi))
		return -EINVAL;
	if (fm_parse_u64(dot + 1, &p))
		return topo_err(t, "bad port in '%s'", s);
	if (p >= FM_MAX_PORTS)
		return topo_err(t, "port %llu out of range in '%s'",
				(unsigned long long)p, s);
	e->port = p;
	for (uint32_t id = e->lo; id <= e->hi; id++) {
		struct fm_node *nd = fm_node_get(t->f, id);

		if (!nd)
			return topo_err(t, "link to unknown node %u", id);
		if (p >= nd->nports)
			return topo_err(t, "port %u out of range for node %u (ports %u)",
					(unsigned int)p, id, nd->nports);
		if (nd->port_link[p] >= 0)
			return topo_err(t, "port %u.%u used twice (first on line %d)",
					id, (unsigned int)p,
					t->f->links[nd->port_link[p]].line);
	}
	return 0;
}

static int topo_add_link(struct topo_ctx *t, struct fm_end a, struct fm_end b,
			 uint32_t lanes, uint32_t speed, double ber)
{
	struct fm_fabric *f = t->f;
	struct fm_link *l;
	void *p;

	p = realloc(f->links, (f->nlinks + 1) * sizeof(*f->links));
	if (!p)
		return topo_err(t, "out of memory");
	f->links = p;
	l = &f->links[f->nlinks];
	memset(l, 0, sizeof(*l));
	l->a = a;
	l->b = b;
	l->line = t->line;
	fm_link_init(l, lanes, speed, ber);
	if (a.kind == FM_END_NODE)
		f->node[a.id]->port_link[a.port] = f->nlinks;
	if (b.kind == FM_END_NODE)
		f->node[b.id]->port_link[b.port] = f->nlinks;
	f->nlinks++;
	return 0;
}

static int topo_link(struct topo_ctx *t, int n, char **tok)
{
	uint32_t lanes = t->lanes, speed = t->speed, cnt, i;
	double ber = t->ber;
	struct topo_end a, b;

	if (n < 3 || (n & 1) == 0)
		return topo_err(t, "usage: link END END [lanes N] [speed N] [ber RATE]");
	if (topo_end(t, tok[1], &a) || topo_end(t, tok[2], &b))
		return -EINVAL;
	if (topo_link_opts(t, n, tok, 3, &lanes, &speed, &ber))
		return -EINVAL;
	if (a.sw && b.sw && a.id == b.id)
		return topo_err(t, "link from switch '%s' to itself", tok[1]);
	if (a.sw && !b.sw) {
		struct topo_end tmp = a;

		a = b;
		b = tmp;
	}
	cnt = a.sw ? 1 : a.hi - a.lo + 1;
	if (!b.sw && b.hi - b.lo + 1 != cnt)
		return topo_err(t, "node ranges of different lengths");
	if (!a.sw && !b.sw) {
		/* ranges pair up element by element; they must not meet */
		if (a.port == b.port && a.lo <= b.hi && b.lo <= a.hi)
			return topo_err(t, "link from a port to itself");
		if (cnt > 1 && a.lo <= b.hi && b.lo <= a.hi)
			return topo_err(t, "overlapping node ranges");
		if (a.lo == b.lo)
			return topo_err(t, "link from node %u to itself", a.lo);
	}
	for (i = 0; i < cnt; i++) {
		struct fm_end ea, eb;

		ea.kind = a.sw ? FM_END_SWITCH : FM_END_NODE;
		ea.id = a.sw ? a.id : a.lo + i;
		ea.port = a.port;
		eb.kind = b.sw ? FM_END_SWITCH : FM_END_NODE;
		eb.id = b.sw ? b.id : b.lo + i;
		eb.port = b.port;
		if (topo_add_link(t, ea, eb, lanes, speed, ber))
			return -EINVAL;
	}
	return 0;
}

static int topo_nodelist(struct topo_ctx *t, const char *s, uint8_t *mask)
{
	char *copy = strdup(s), *save = NULL, *it;
	uint32_t lo, hi;
	int ret = 0;

	if (!copy)
		return topo_err(t, "out of memory");
	for (it = strtok_r(copy, ",", &save); it; it = strtok_r(NULL, ",", &save)) {
		if (topo_range(t, it, &lo, &hi)) {
			ret = -EINVAL;
			break;
		}
		fm_nodemask_set(mask, lo, hi);
	}
	free(copy);
	return ret;
}

static int topo_export(struct topo_ctx *t, int n, char **tok)
{
	bool have_off = false, have_len = false, have_key = false, have_perm = false;
	struct fm_export e = { .all_nodes = true };
	uint32_t lo, hi, node;
	uint64_t id;
	int i;

	if (n < 3)
		return topo_err(t, "usage: export NODE|FIRST-LAST ID offset OFF len LEN key KEY perm r|rw [nodes LIST]");
	if (topo_range(t, tok[1], &lo, &hi))
		return -EINVAL;
	if (topo_num(t, "export id", tok[2], FM_MAX_EXPORTS - 1, &id))
		return -EINVAL;
	for (i = 3; i < n; i += 2) {
		const char *v = tok[i + 1];

		if (!v)
			return topo_err(t, "missing value for %s", tok[i]);
		if (!strcmp(tok[i], "offset")) {
			if (topo_size(t, "offset", v, &e.offset))
				return -EINVAL;
			have_off = true;
		} else if (!strcmp(tok[i], "len")) {
			if (topo_size(t, "len", v, &e.len))
				return -EINVAL;
			have_len = true;
		} else if (!strcmp(tok[i], "key")) {
			if (fm_parse_u64(v, &e.key))
				return topo_err(t, "bad number '%s' for key", v);
			have_key = true;
		} else if (!strcmp(tok[i], "perm")) {
			if (!strcmp(v, "r") || !strcmp(v, "ro"))
				e.perm = SNODE_FM_PERM_READ;
			else if (!strcmp(v, "rw"))
				e.perm = SNODE_FM_PERM_READ | SNODE_FM_PERM_WRITE;
			else
				return topo_err(t, "bad perm '%s' (r or rw)", v);
			have_perm = true;
		} else if (!strcmp(tok[i], "nodes")) {
			e.all_nodes = false;
			if (topo_nodelist(t, v, e.nodemask))
				return -EINVAL;
		} else {
			return topo_err(t, "unknown export option '%s'", tok[i]);
		}
	}
	if (!have_off || !have_len || !have_key || !have_perm)
		return topo_err(t, "export needs offset, len, key and perm");
	if ((e.offset | e.len) & (FM_PAGE - 1) || !e.len)
		return topo_err(t, "export offset and len must be 4K multiples, len > 0");
	for (node = lo; node <= hi; node++) {
		struct fm_node *nd = fm_node_get(t->f, node);

		if (!nd)
			return topo_err(t, "export on unknown node %u", node);
		if (!nd->sim)
			return topo_err(t, "export on node %u, which is not a sim node",
					node);
		if (nd->exports[id])
			return topo_err(t, "duplicate export %u on node %u",
					(unsigned int)id, node);
		if (e.offset >= nd->pool_size || e.len > nd->pool_size - e.offset)
			return topo_err(t, "export outside the pool of node %u",
					node);
		nd->exports[id] = malloc(sizeof(e));
		if (!nd->exports[id])
			return topo_err(t, "out of memory");
		*nd->exports[id] = e;
	}
	return 0;
}

static int topo_line(struct topo_ctx *t, char *line)
{
	char *tok[TOPO_MAX_TOK + 1], *save = NULL, *hash;
	int n = 0;

	hash = strchr(line, '#');
	if (hash)
		*hash = 0;
	for (char *p = strtok_r(line, " \t\r\n", &save); p;
	     p = strtok_r(NULL, " \t\r\n", &save)) {
		if (n == TOPO_MAX_TOK)
			return topo_err(t, "too many words");
		tok[n++] = p;
	}
	tok[n] = NULL;
	if (!n)
		return 0;
	if (!strcmp(tok[0], "fabric"))
		return topo_fabric(t, n, tok);
	if (!strcmp(tok[0], "defaults"))
		return topo_defaults(t, n, tok);
	if (!strcmp(tok[0], "switch"))
		return topo_switch(t, n, tok);
	if (!strcmp(tok[0], "rack"))
		return topo_rack(t, n, tok);
	if (!strcmp(tok[0], "node"))
		return topo_node(t, n, tok);
	if (!strcmp(tok[0], "link"))
		return topo_link(t, n, tok);
	if (!strcmp(tok[0], "export"))
		return topo_export(t, n, tok);
	return topo_err(t, "unknown keyword '%s'", tok[0]);
}

int fm_topo_parse_string(struct fm_fabric *f, const char *name,
			 const char *text, char *err, size_t errlen)
{
	struct topo_ctx t = {
		.f = f, .name = name, .err = err, .errlen = errlen,
		.pool = FM_DEF_POOL, .ports = FM_DEF_PORTS,
		.lanes = FM_DEF_LANES, .speed = FM_DEF_SPEED, .ber = 0,
	};
	char *copy = strdup(text), *line, *next;
	int ret = 0;

	if (!copy)
		return -ENOMEM;
	for (line = copy; line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = 0;
		else if (!*line)
			break;	/* after the last newline */
		t.line++;
		ret = topo_line(&t, line);
		if (ret)
			break;
	}
	free(copy);
	if (!ret && !f->nnodes) {
		t.line = t.line ? t.line : 1;
		ret = topo_err(&t, "no nodes defined");
	}
	if (!ret)
		fm_routes_compute(f);
	return ret;
}

int fm_topo_parse_file(struct fm_fabric *f, const char *path, char *err,
		       size_t errlen)
{
	FILE *fp = fopen(path, "r");
	struct fm_buf b = { 0 };
	char chunk[4096];
	size_t n;
	int ret;

	if (!fp) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -errno;
	}
	while ((n = fread(chunk, 1, sizeof(chunk), fp)) > 0) {
		if (memchr(chunk, 0, n)) {
			fclose(fp);
			fm_buf_free(&b);
			snprintf(err, errlen, "%s: binary file", path);
			return -EINVAL;
		}
		fm_buf_printf(&b, "%.*s", (int)n, chunk);
	}
	fclose(fp);
	ret = fm_topo_parse_string(f, path, b.s ? b.s : "", err, errlen);
	fm_buf_free(&b);
	return ret;
}

/*
 * The topology of "--nodes N": two nodes are cabled back to back on both
 * ports (as 2-b2b.topo); more form a dual-plane star (as 4-dual-plane.topo).
 */
int fm_topo_builtin(struct fm_fabric *f, unsigned int nodes, char *err,
		    size_t errlen)
{
	struct fm_buf b = { 0 };
	int ret;

	if (nodes < 1 || nodes > FM_MAX_NODES) {
		snprintf(err, errlen, "--nodes: 1..%d", FM_MAX_NODES);
		return -EINVAL;
	}
	fm_buf_printf(&b, "fabric 0\n");
	if (nodes == 2) {
		fm_buf_printf(&b, "node 0-1\nlink 0.0 1.0\nlink 0.1 1.1\n");
	} else {
		fm_buf_printf(&b, "switch plane0 plane 0\nswitch plane1 plane 1\nnode 0-%u\n",
			      nodes - 1);
		fm_buf_printf(&b, "link 0-%u.0 plane0\nlink 0-%u.1 plane1\n",
			      nodes - 1, nodes - 1);
	}
	ret = fm_topo_parse_string(f, "<builtin>", b.s, err, errlen);
	fm_buf_free(&b);
	return ret;
}

void fm_topo_hosts(const struct fm_fabric *f, struct fm_buf *b)
{
	static uint8_t done[65536];
	uint32_t i, j;

	memset(done, 0, sizeof(done));
	for (i = 0; i < FM_MAX_NODES; i++) {
		struct fm_node *n = f->node[i];

		if (!n || n->sim || done[n->host])
			continue;
		done[n->host] = 1;
		fm_buf_printf(b, "host %u", n->host);
		for (j = i; j < FM_MAX_NODES; j++) {
			struct fm_node *m = f->node[j];

			if (m && !m->sim && m->host == n->host)
				fm_buf_printf(b, " node %u", j);
		}
		fm_buf_printf(b, "\n");
	}
}

/* The distinct planes the switches are on. */
static uint32_t fm_topo_planes(const struct fm_fabric *f)
{
	uint8_t seen[256] = { 0 };
	uint32_t i, n = 0;

	for (i = 0; i < f->nswitches; i++)
		if (f->sw_plane[i] != FM_NO_PLANE && !seen[f->sw_plane[i]]++)
			n++;
	return n;
}

void fm_topo_summary(const struct fm_fabric *f, struct fm_buf *b)
{
	uint32_t vm = 0, sim = 0, exports = 0, hosts = 0, i, j;
	struct fm_buf h = { 0 };

	for (i = 0; i < FM_MAX_NODES; i++) {
		struct fm_node *n = f->node[i];

		if (!n)
			continue;
		if (n->sim)
			sim++;
		else
			vm++;
		for (j = 0; j < FM_MAX_EXPORTS; j++)
			exports += !!n->exports[j];
	}
	fm_topo_hosts(f, &h);
	for (i = 0; i < h.len; i++)
		hosts += h.s[i] == '\n';
	fm_buf_printf(b, "fabric %u: %u nodes (%u vm on %u hosts, %u sim), %u switches, %u links, %u exports\n",
		      f->fabric_id, f->nnodes, vm, hosts, sim, f->nswitches,
		      f->nlinks, exports);
	if (f->nracks || fm_topo_planes(f))
		fm_buf_printf(b, "topology: %u planes, %u racks\n",
			      fm_topo_planes(f), f->nracks);
	if (h.len)
		fm_buf_printf(b, "%s", h.s);
	fm_buf_free(&h);
}
