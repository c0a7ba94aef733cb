// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: fabric.c - fabric lifetime, routing and node states
 *
 * Routing: the fabric is a graph of node ports, switches and links. Nodes
 * do not forward: a path from node A to node B leaves A through one of its
 * ports, crosses any number of switches joined by inter-switch links, and
 * enters B through one of B's ports (or is a single back-to-back cable).
 * Only routable links count (oper state up, degraded or training). The
 * route port from A to B is A's lowest-numbered port with a path to B.
 *
 * Node states as seen by node A about node B (NODE_STATE):
 *   UNKNOWN      B is a VM node that never attached
 *   DEAD         B died (heartbeat lost, socket closed, killed)
 *   UP           B is alive and A has a path to it
 *   UNREACHABLE  B is alive and A has no path to it
 * fm_sync() sends every attached node the difference between what it was
 * last told and the current state, so every event handler just changes the
 * model and calls fm_sync().
 *
 * The devices are told through f->emit (struct fm_emit, implemented by
 * proto.c); the fm_emit_*() helpers below build the domain's packets and
 * are the only way out of fabric.c, link.c, mem.c and sim.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fm.h"

void fm_fabric_init(struct fm_fabric *f)
{
	memset(f, 0, sizeof(*f));
}

void fm_fabric_free(struct fm_fabric *f)
{
	uint32_t i, j;

	for (i = 0; i < FM_MAX_NODES; i++) {
		struct fm_node *n = f->node[i];

		if (!n)
			continue;
		for (j = 0; j < FM_MAX_EXPORTS; j++)
			free(n->exports[j]);
		free(n->route);
		free(n->seen_state);
		free(n->seen_route);
		free(n->topo);
		free(n->seen_topo);
		free(n->echo_seq);
		free(n);
	}
	for (i = 0; i < f->nswitches; i++)
		free(f->sw_name[i]);
	for (i = 0; i < f->nracks; i++)
		free(f->rack_name[i]);
	free(f->links);
	free(f->grants);
	memset(f, 0, sizeof(*f));
}

/* ---- telling the devices ---- */

void fm_emit_send(struct fm_fabric *f, struct fm_node *n, const void *pkt,
		  uint32_t len)
{
	if (f->emit)
		f->emit->send(f, n, pkt, len);
}

void fm_emit_port_state(struct fm_fabric *f, struct fm_node *n, uint32_t port)
{
	struct snode_fm_port_state ps;

	fm_port_state_fill(f, n, port, &ps);
	fm_emit_send(f, n, &ps, sizeof(ps));
}

/* The importer's ATT entry att_index lost its grant. */
void fm_emit_revoke(struct fm_fabric *f, uint32_t importer,
		    uint32_t att_index, uint32_t reason)
{
	struct fm_node *n = fm_node_get(f, importer);
	struct snode_fm_revoke r = {
		.hdr = { .type = SNODE_FM_REVOKE, .len = sizeof(r) },
		.att_index = att_index,
		.reason = reason,
	};

	if (n)
		fm_emit_send(f, n, &r, sizeof(r));
}

void fm_emit_deliver(struct fm_fabric *f, struct fm_node *dst,
		     const struct snode_fm_msg *m)
{
	if (f->emit)
		f->emit->deliver(f, dst, m);
}

struct fm_node *fm_node_get(const struct fm_fabric *f, uint32_t id)
{
	return id < FM_MAX_NODES ? f->node[id] : NULL;
}

int fm_node_add(struct fm_fabric *f, uint32_t id)
{
	struct fm_node *n;
	int p;

	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->route = malloc(FM_MAX_NODES);
	if (!n->route) {
		free(n);
		return -ENOMEM;
	}
	memset(n->route, FM_NO_ROUTE, FM_MAX_NODES);
	n->id = id;
	n->memfd = -1;
	n->rack = FM_NO_RACK;
	/*
	 * The device's own power-on readings (Documentation/hw/snode-nic.rst
	 * section 11): "node temp" sends both values, so the one not being
	 * injected must stay what the device would report.
	 */
	n->temp_mc = FM_DEFAULT_TEMP_MC;
	n->power_mw = FM_DEFAULT_POWER_MW;
	for (p = 0; p < FM_MAX_PORTS; p++)
		n->port_link[p] = -1;
	f->node[id] = n;
	f->nnodes++;
	f->routes_dirty = true;
	return 0;
}

/* The index of @name among the @n first of @names, or -1. */
static int fm_name_find(char *const *names, uint32_t n, const char *name)
{
	uint32_t i;

	for (i = 0; i < n; i++)
		if (!strcmp(names[i], name))
			return i;
	return -1;
}

int fm_switch_find(const struct fm_fabric *f, const char *name)
{
	return fm_name_find(f->sw_name, f->nswitches, name);
}

int fm_rack_find(const struct fm_fabric *f, const char *name)
{
	return fm_name_find(f->rack_name, f->nracks, name);
}

static uint32_t uf_find(uint32_t *parent, uint32_t x)
{
	while (parent[x] != x) {
		parent[x] = parent[parent[x]];
		x = parent[x];
	}
	return x;
}

/*
 * Switches joined by routable inter-switch links form components; every
 * node port with a routable link into a component reaches every other
 * node port attached to it.
 */
void fm_routes_compute(struct fm_fabric *f)
{
	uint32_t parent[FM_MAX_SWITCHES], start[FM_MAX_SWITCHES + 1];
	uint32_t *members, nmem = 0, i, p;

	for (i = 0; i < f->nswitches; i++)
		parent[i] = i;
	for (i = 0; i < f->nlinks; i++) {
		struct fm_link *l = &f->links[i];

		if (l->a.kind == FM_END_SWITCH && l->b.kind == FM_END_SWITCH &&
		    fm_link_routable(l, f->now))
			parent[uf_find(parent, l->a.id)] = uf_find(parent, l->b.id);
	}
	/* bucket the attached nodes per component root (counting sort) */
	memset(start, 0, sizeof(start));
	for (i = 0; i < f->nlinks; i++) {
		struct fm_link *l = &f->links[i];

		if (l->b.kind == FM_END_SWITCH && l->a.kind == FM_END_NODE &&
		    fm_link_routable(l, f->now)) {
			start[uf_find(parent, l->b.id) + 1]++;
			nmem++;
		}
	}
	for (i = 0; i < f->nswitches; i++)
		start[i + 1] += start[i];
	members = malloc((nmem + 1) * sizeof(*members));
	if (!members)
		abort();
	{
		uint32_t fill[FM_MAX_SWITCHES];

		memcpy(fill, start, sizeof(fill));
		for (i = 0; i < f->nlinks; i++) {
			struct fm_link *l = &f->links[i];

			if (l->b.kind == FM_END_SWITCH &&
			    l->a.kind == FM_END_NODE &&
			    fm_link_routable(l, f->now))
				members[fill[uf_find(parent, l->b.id)]++] = l->a.id;
		}
	}
	for (i = 0; i < FM_MAX_NODES; i++) {
		struct fm_node *n = f->node[i];

		if (!n)
			continue;
		memset(n->route, FM_NO_ROUTE, FM_MAX_NODES);
		for (p = 0; p < n->nports; p++) {
			struct fm_link *l;
			const struct fm_end *o;
			uint32_t c, k;

			if (n->port_link[p] < 0)
				continue;
			l = &f->links[n->port_link[p]];
			if (!fm_link_routable(l, f->now))
				continue;
			o = (l->a.kind == FM_END_NODE && l->a.id == i &&
			     l->a.port == p) ? &l->b : &l->a;
			if (o->kind == FM_END_NODE) {
				if (n->route[o->id] == FM_NO_ROUTE)
					n->route[o->id] = p;
				continue;
			}
			c = uf_find(parent, o->id);
			for (k = start[c]; k < start[c + 1]; k++)
				if (members[k] != i &&
				    n->route[members[k]] == FM_NO_ROUTE)
					n->route[members[k]] = p;
		}
	}
	free(members);
	f->routes_dirty = false;
	f->route_gen++;
}

bool fm_reachable(const struct fm_fabric *f, uint32_t from, uint32_t to)
{
	if (from == to)
		return true;
	return fm_route_port(f, from, to) != FM_NO_ROUTE;
}

uint8_t fm_route_port(const struct fm_fabric *f, uint32_t from, uint32_t to)
{
	const struct fm_node *n = fm_node_get(f, from);

	if (!n || to >= FM_MAX_NODES)
		return FM_NO_ROUTE;
	return n->route[to];
}

/*
 * A breadth-first search over the routable inter-switch links from switch
 * @s0: @dist gets the hops to each switch (-1: not reached), @via (if not
 * NULL) the link that reached it (-1 for @s0), links taken in index order.
 */
static void fm_switch_bfs(const struct fm_fabric *f, uint32_t s0,
			  int32_t *dist, int32_t *via)
{
	uint32_t queue[FM_MAX_SWITCHES], qh = 0, qt = 0, sw, i;

	for (i = 0; i < f->nswitches; i++)
		dist[i] = -1;
	dist[s0] = 0;
	if (via)
		via[s0] = -1;
	queue[qt++] = s0;
	while (qh < qt) {
		sw = queue[qh++];
		for (i = 0; i < f->nlinks; i++) {
			const struct fm_link *e = &f->links[i];
			uint32_t o;

			if (e->a.kind != FM_END_SWITCH || e->b.kind != FM_END_SWITCH ||
			    !fm_link_routable(e, f->now))
				continue;
			if (e->a.id == sw)
				o = e->b.id;
			else if (e->b.id == sw)
				o = e->a.id;
			else
				continue;
			if (dist[o] >= 0)
				continue;
			dist[o] = dist[sw] + 1;
			if (via)
				via[o] = (int32_t)i;
			queue[qt++] = o;
		}
	}
}

/*
 * The links a message from @from to @to crosses, in order, as the routes
 * above choose them: it leaves @from through its route port; on a switch
 * it takes the fewest inter-switch hops (lowest link index first on a tie)
 * to the switch of @to's lowest-numbered port in the same component, the
 * same "lowest port" rule the route port follows. Only routable links.
 * Return: the number of links written to @path (at most @max), -ENOENT if
 * @to is not reachable, -E2BIG if the path is longer than @max.
 */
int fm_route_path(const struct fm_fabric *f, uint32_t from, uint32_t to,
		  uint32_t *path, uint32_t max)
{
	int32_t via[FM_MAX_SWITCHES];	/* link that reached the switch */
	int32_t dist[FM_MAX_SWITCHES];	/* -1: not reached */
	uint32_t sw, n = 0, p;
	const struct fm_node *a = fm_node_get(f, from), *b = fm_node_get(f, to);
	const struct fm_link *l;
	uint8_t port;
	int last = -1;

	port = fm_route_port(f, from, to);
	if (!a || !b || from == to || port == FM_NO_ROUTE || a->port_link[port] < 0)
		return -ENOENT;
	if (!max)
		return -E2BIG;
	l = &f->links[a->port_link[port]];
	path[n++] = a->port_link[port];
	if (l->a.kind == FM_END_NODE && l->b.kind == FM_END_NODE)
		return n;	/* back to back: the route port is the cable to @to */
	fm_switch_bfs(f, l->b.id, dist, via);
	for (p = 0; p < b->nports && last < 0; p++) {
		int li = b->port_link[p];

		if (li < 0 || !fm_link_routable(&f->links[li], f->now) ||
		    f->links[li].b.kind != FM_END_SWITCH ||
		    dist[f->links[li].b.id] < 0)
			continue;
		last = li;
	}
	if (last < 0)
		return -ENOENT;	/* cannot happen while the routes are current */
	/* walk back from @to's switch, then reverse the inter-switch part */
	{
		uint32_t hops[FM_MAX_SWITCHES], nh = 0;

		for (sw = f->links[last].b.id; via[sw] >= 0;) {
			const struct fm_link *e = &f->links[via[sw]];

			hops[nh++] = via[sw];
			sw = e->a.id == sw ? e->b.id : e->a.id;
		}
		if (n + nh + 1 > max)
			return -E2BIG;
		while (nh)
			path[n++] = hops[--nh];
	}
	path[n++] = last;
	return n;
}

/*
 * The topology of every route from @a at once (@topo: FM_MAX_NODES
 * entries), by the rules of fm_route_path() without walking each path:
 * one breadth-first search over the switches per port of @a gives the
 * inter-switch distance to every switch, and the destination is entered
 * from the switch of its lowest-numbered port in the component. So the
 * 1024-node fabric costs a few searches per sync, not one per node.
 */
void fm_route_topo(const struct fm_fabric *f, const struct fm_node *a,
		   struct fm_topo *topo)
{
	int32_t dist[FM_MAX_SWITCHES];	/* ISL hops from the port's switch, -1: unseen */
	uint32_t b, p, port;

	for (b = 0; b < FM_MAX_NODES; b++)
		topo[b] = (struct fm_topo){ .plane = FM_NO_PLANE,
					    .sw = SNODE_FM_NO_ID };
	for (port = 0; port < a->nports; port++) {
		const struct fm_link *l;

		if (a->port_link[port] < 0)
			continue;
		l = &f->links[a->port_link[port]];
		if (!fm_link_routable(l, f->now))
			continue;
		if (l->a.kind == FM_END_NODE && l->b.kind == FM_END_NODE) {
			const struct fm_end *o = (l->a.id == a->id &&
						  l->a.port == port) ? &l->b : &l->a;

			if (a->route[o->id] == port)
				topo[o->id].hops = 1;
			continue;
		}
		fm_switch_bfs(f, l->b.id, dist, NULL);
		for (b = 0; b < FM_MAX_NODES; b++) {
			const struct fm_node *n = f->node[b];

			if (!n || b == a->id || a->route[b] != port)
				continue;
			for (p = 0; p < n->nports; p++) {
				int li = n->port_link[p];
				const struct fm_link *e;

				if (li < 0)
					continue;
				e = &f->links[li];
				if (!fm_link_routable(e, f->now) ||
				    e->b.kind != FM_END_SWITCH || dist[e->b.id] < 0)
					continue;
				topo[b].hops = dist[e->b.id] + 2;
				topo[b].sw = e->b.id;
				topo[b].plane = f->sw_plane[e->b.id];
				break;
			}
		}
	}
}

uint8_t fm_node_view(const struct fm_fabric *f, uint32_t from, uint32_t to,
		     uint8_t *route)
{
	const struct fm_node *b = fm_node_get(f, to);
	uint8_t st;

	*route = FM_NO_ROUTE;
	if (!b || b->life == FM_LIFE_UNKNOWN)
		return SNODE_FM_NODE_UNKNOWN;
	if (b->life == FM_LIFE_DEAD)
		return SNODE_FM_NODE_DEAD;
	st = fm_reachable(f, from, to) ? SNODE_FM_NODE_UP :
					 SNODE_FM_NODE_UNREACHABLE;
	if (st == SNODE_FM_NODE_UP)
		*route = fm_route_port(f, from, to);
	return st;
}

const char *fm_life_name(enum fm_node_life l)
{
	switch (l) {
	case FM_LIFE_UP:	return "up";
	case FM_LIFE_DEAD:	return "dead";
	default:		return "unknown";
	}
}

const char *fm_view_name(uint8_t st)
{
	switch (st) {
	case SNODE_FM_NODE_UP:		return "up";
	case SNODE_FM_NODE_UNREACHABLE:	return "unreachable";
	case SNODE_FM_NODE_DEAD:	return "dead";
	default:			return "unknown";
	}
}

/* What NODE_STATE says about a route's topology, packed for comparing. */
static uint32_t fm_topo_key(const struct fm_topo *t)
{
	return t->hops | (uint32_t)t->sw << 8 | (uint32_t)t->plane << 24;
}

static void fm_sync_node_states(struct fm_fabric *f, struct fm_node *a)
{
	struct snode_fm_node_state ns;
	uint32_t b;

	if (a->topo_gen != f->route_gen) {
		fm_route_topo(f, a, a->topo);
		a->topo_gen = f->route_gen;
	}
	for (b = 0; b < FM_MAX_NODES; b++) {
		const struct fm_topo *t = &a->topo[b];
		uint8_t st, route;

		if (!f->node[b] || b == a->id)
			continue;
		st = fm_node_view(f, a->id, b, &route);
		if (st == a->seen_state[b] && route == a->seen_route[b] &&
		    fm_topo_key(t) == a->seen_topo[b])
			continue;
		a->seen_state[b] = st;
		a->seen_route[b] = route;
		a->seen_topo[b] = fm_topo_key(t);
		memset(&ns, 0, sizeof(ns));
		ns.hdr.type = SNODE_FM_NODE_STATE;
		ns.hdr.len = sizeof(ns);
		ns.node = b;
		ns.state = st;
		ns.route_port = route;
		ns.hops = st == SNODE_FM_NODE_UP ? t->hops : 0;
		ns.plane = st == SNODE_FM_NODE_UP ? t->plane : FM_NO_PLANE;
		ns.sw = st == SNODE_FM_NODE_UP ? t->sw : SNODE_FM_NO_ID;
		ns.rack = f->node[b]->rack;
		fm_emit_send(f, a, &ns, sizeof(ns));
		if (!a->conn)	/* the send failed and killed it */
			return;
	}
}

/* Tell n's device the names of the switches and racks (decision 0030). */
void fm_emit_topo_names(struct fm_fabric *f, struct fm_node *n)
{
	uint32_t i, len, cnt = f->nswitches + f->nracks;
	struct snode_fm_topo_names *tn;

	len = sizeof(*tn) + cnt * sizeof(tn->ent[0]);
	tn = calloc(1, len);
	if (!tn)
		abort();
	tn->hdr.type = SNODE_FM_TOPO_NAMES;
	tn->hdr.len = len;
	tn->nswitches = f->nswitches;
	tn->nracks = f->nracks;
	for (i = 0; i < f->nswitches; i++) {
		snprintf(tn->ent[i].name, sizeof(tn->ent[i].name), "%s",
			 f->sw_name[i]);
		tn->ent[i].plane = f->sw_plane[i];
	}
	for (i = 0; i < f->nracks; i++) {
		snprintf(tn->ent[f->nswitches + i].name,
			 sizeof(tn->ent[0].name), "%s", f->rack_name[i]);
		tn->ent[f->nswitches + i].plane = FM_NO_PLANE;
	}
	fm_emit_send(f, n, tn, len);
	free(tn);
}

/*
 * Bring every attached device up to date: routes (and the grants that lost
 * their path), node states, and port states of changed links. Idempotent.
 */
void fm_sync(struct fm_fabric *f)
{
	bool refresh = false;
	uint32_t i, p;

	if (f->routes_dirty) {
		fm_routes_compute(f);
		fm_grants_revoke_unreachable(f);
	}
	if (f->now >= f->next_refresh) {
		refresh = true;
		f->next_refresh = f->now + FM_REFRESH_MS;
	}
	for (i = 0; i < FM_MAX_NODES; i++) {
		struct fm_node *n = f->node[i];

		if (!n || !n->conn)
			continue;
		for (p = 0; p < n->nports && n->conn; p++) {
			int li = n->port_link[p];

			if (refresh || (li >= 0 && f->links[li].dirty))
				fm_emit_port_state(f, n, p);
		}
		if (n->conn)
			fm_sync_node_states(f, n);
	}
	for (i = 0; i < f->nlinks; i++)
		f->links[i].dirty = false;
}

/* A device said HELLO for n: it is up; tell it everything. */
void fm_node_attach(struct fm_fabric *f, struct fm_node *n)
{
	uint32_t p;

	if (!n->seen_state) {
		n->seen_state = malloc(FM_MAX_NODES);
		n->seen_route = malloc(FM_MAX_NODES);
		n->seen_topo = malloc(FM_MAX_NODES * sizeof(*n->seen_topo));
		n->topo = malloc(FM_MAX_NODES * sizeof(*n->topo));
		if (!n->seen_state || !n->seen_route || !n->seen_topo || !n->topo)
			abort();
	}
	/* 0xff is no state: the first sync sends every node */
	memset(n->seen_state, 0xff, FM_MAX_NODES);
	memset(n->seen_route, 0xff, FM_MAX_NODES);
	n->topo_gen = f->route_gen - 1;
	n->life = FM_LIFE_UP;
	if (n->conn)
		fm_emit_topo_names(f, n);
	for (p = 0; p < n->nports && n->conn; p++)
		fm_emit_port_state(f, n, p);
	fm_sync(f);
}

/*
 * Direct links (decision 0039): the fm is a switch's control plane, not its
 * data path. Every pair of attached devices that take direct links gets a
 * socketpair, one end each, when the second of them attaches; the devices
 * then send each other messages and doorbells over it while the routes the
 * fm pushes (NODE_STATE) say the peer is UP, and through the fm otherwise.
 * A link dies with either device (its end closes); a device that attaches
 * again gets new ones. Sim nodes have no device: they stay relayed.
 */
static bool fm_direct_ok(const struct fm_node *n)
{
	return n && !n->sim && n->direct && n->conn;
}

/*
 * n's device just attached (HELLO): link it to every other that can. Its
 * loopback is in the device unless the links are off ("a link to itself").
 */
void fm_direct_pair(struct fm_fabric *f, struct fm_node *n)
{
	uint32_t i;

	if (!f->emit || !fm_direct_ok(n))
		return;
	if (f->relay_only) {
		f->emit->peer(f, n, n, false);
		return;
	}
	for (i = 0; i < FM_MAX_NODES && n->conn; i++)
		if (f->node[i] != n && fm_direct_ok(f->node[i]))
			f->emit->peer(f, n, f->node[i], true);
}

/* "ctl direct on|off": link every pair, or end every link. */
void fm_direct_set(struct fm_fabric *f, bool on)
{
	uint32_t i, j;

	if (f->relay_only == !on)
		return;
	f->relay_only = !on;
	for (i = 0; f->emit && i < FM_MAX_NODES; i++) {
		if (!fm_direct_ok(f->node[i]))
			continue;
		f->emit->peer(f, f->node[i], f->node[i], on);
		for (j = i + 1; j < FM_MAX_NODES && f->node[i]->conn; j++)
			if (fm_direct_ok(f->node[j]))
				f->emit->peer(f, f->node[i], f->node[j], on);
	}
}

/*
 * n is gone: its connection closed, it went silent, or it was killed.
 * Everyone who mapped its memory loses the window, its own grants are
 * dropped. A VM node's export table dies with the device; a sim node keeps
 * its exports so that "node join" brings it back as it was.
 */
void fm_node_dead(struct fm_fabric *f, struct fm_node *n, const char *why)
{
	if (n->life == FM_LIFE_DEAD)
		return;
	fm_log("node %u dead: %s", n->id, why);
	n->life = FM_LIFE_DEAD;
	if (f->emit)
		f->emit->node_gone(f, n, why);
	if (n->sim) {
		uint32_t id;

		for (id = 0; id < FM_MAX_EXPORTS; id++)
			if (n->exports[id])
				fm_export_revoke(f, n->id, id,
						 SNODE_FM_REVOKE_NODE_DEAD);
	} else {
		fm_exports_drop(f, n, SNODE_FM_REVOKE_NODE_DEAD);
	}
	fm_grants_drop_importer(f, n->id);
	fm_sync(f);
}
