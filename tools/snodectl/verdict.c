// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The judgements behind snodectl link's and snodectl health's verdicts
 * and the names of link and node states, kept apart from reading the device and printing so that the host tests
 * (tools/testing/cli/unit.c) can feed them constructed links, nodes and
 * sensor values.
 */
#include <stdarg.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#include "snodectl.h"
#include "trend.h"

const char *link_oper_name(unsigned int state)
{
	static const char *const names[] = {
		[SNODE_LINK_OPER_STATE_DOWN] = "down",
		[SNODE_LINK_OPER_STATE_UP] = "up",
		[SNODE_LINK_OPER_STATE_DEGRADED] = "degraded",
		[SNODE_LINK_OPER_STATE_TRAINING] = "training",
	};

	return state < sizeof(names) / sizeof(names[0]) ? names[state] :
							    "unknown";
}

const char *node_state_name(unsigned int state)
{
	static const char *const names[] = {
		[SNODE_NODE_STATE_UNKNOWN] = "unknown",
		[SNODE_NODE_STATE_UP] = "up",
		[SNODE_NODE_STATE_UNREACHABLE] = "unreachable",
		[SNODE_NODE_STATE_DEAD] = "dead",
	};

	return state < sizeof(names) / sizeof(names[0]) ? names[state] :
							    "unknown";
}

const char *link_isolation_name(unsigned int isolation)
{
	static const char *const names[] = {
		[SNODE_LINK_ISOLATION_NONE] = "none",
		[SNODE_LINK_ISOLATION_FLAPPING] = "flapping",
		[SNODE_LINK_ISOLATION_ISOLATED] = "isolated",
	};

	return isolation < sizeof(names) / sizeof(names[0]) ?
	       names[isolation] : "unknown";
}

const char *link_isolate_reason_name(unsigned int reason)
{
	static const char *const names[] = {
		[SNODE_ISOLATE_REASON_NONE] = "none",
		[SNODE_ISOLATE_REASON_FLAPS] = "flaps",
		[SNODE_ISOLATE_REASON_BER] = "ber",
	};

	return reason < sizeof(names) / sizeof(names[0]) ? names[reason] :
							     "unknown";
}

int link_parse_flaps(const char *s, unsigned int *flaps,
		     unsigned int *window)
{
	const char *slash = s ? strchr(s, '/') : NULL;
	char n[16];
	int64_t secs;
	uint64_t v;

	if (!slash || slash == s || (size_t)(slash - s) >= sizeof(n))
		return -1;
	memcpy(n, s, slash - s);
	n[slash - s] = '\0';
	if (n[0] < '0' || n[0] > '9' || tool_parse_u64(n, LINK_MAX_FLAPS, &v) ||
	    !v)
		return -1;
	secs = trend_parse_duration(slash + 1);
	if (secs <= 0 || secs > LINK_MAX_FLAP_WINDOW)
		return -1;
	*flaps = v;
	*window = secs;
	return 0;
}

int link_parse_interval(const char *s, double *secs)
{
	char *end;
	double v;

	if (!s || !*s || (*s < '0' || *s > '9'))
		return -1;
	v = strtod(s, &end);
	if (end[0] == 's')
		end++;
	if (*end || !(v >= LINK_MIN_INTERVAL && v <= LINK_MAX_INTERVAL))
		return -1;
	*secs = v;
	return 0;
}

int link_parse_util(const char *s, unsigned int *pct)
{
	char n[8];
	size_t len = s ? strlen(s) : 0;
	uint64_t v;

	if (len && s[len - 1] == '%')
		len--;
	if (!len || len >= sizeof(n) || s[0] < '0' || s[0] > '9')
		return -1;
	memcpy(n, s, len);
	n[len] = '\0';
	if (tool_parse_u64(n, 100, &v) || !v)
		return -1;
	*pct = v;
	return 0;
}

int link_rate(uint64_t before, uint64_t after, double secs,
	      unsigned int lanes, unsigned int speed, double *gbps,
	      double *pct)
{
	double cap = (double)lanes * speed;

	if (after < before || !(secs > 0))
		return -1;
	*gbps = (double)(after - before) * 8 / secs / 1e9;
	*pct = cap > 0 ? *gbps / cap * 100 : 0;
	return 0;
}

/* Without an alarm threshold, a link at or above this BER is in errors. */
#define LINK_DEFAULT_BER_LIMIT	1e-12

/*
 * down: not carrying traffic; errors: the BER is at or above the alarm
 * threshold (or, without one, LINK_DEFAULT_BER_LIMIT); degraded: fewer
 * lanes than it has, or retraining; ok otherwise. Before all of these,
 * what the link's auto-isolate policy made of it: isolated (taken down)
 * or flapping, which stay until an operator clears them.
 */
const char *link_verdict(const struct snode_link_info *li)
{
	double limit = li->ber_threshold ?
		       snode_ber_to_double(li->ber_threshold) :
		       LINK_DEFAULT_BER_LIMIT;

	if (li->isolation == SNODE_LINK_ISOLATION_ISOLATED)
		return "isolated";
	if (li->isolation == SNODE_LINK_ISOLATION_FLAPPING)
		return "flapping";
	if (li->oper_state == SNODE_LINK_OPER_STATE_DOWN ||
	    li->admin_state == SNODE_LINK_ADMIN_STATE_DOWN)
		return "down";
	if (li->ber_alarm || (li->ber && snode_ber_to_double(li->ber) >= limit))
		return "errors";
	if (li->oper_state != SNODE_LINK_OPER_STATE_UP)
		return "degraded";
	return "ok";
}

const char *health_name(enum health v)
{
	static const char *const names[] = {
		[HEALTH_OK] = "ok",
		[HEALTH_WARNING] = "warning",
		[HEALTH_UNKNOWN] = "unknown",
		[HEALTH_CRITICAL] = "critical",
	};

	return names[v];
}

/* The monitoring-plugin convention. */
int health_exit_status(enum health v)
{
	static const int status[] = {
		[HEALTH_OK] = SNODECTL_HEALTH_OK,
		[HEALTH_WARNING] = SNODECTL_HEALTH_WARNING,
		[HEALTH_UNKNOWN] = SNODECTL_HEALTH_UNKNOWN,
		[HEALTH_CRITICAL] = SNODECTL_HEALTH_CRITICAL,
	};

	return status[v];
}

enum health health_worst(enum health a, enum health b)
{
	return a > b ? a : b;
}

void health_problem(struct health_dev *h, enum health level,
		    const char *fmt, ...)
{
	va_list ap;

	h->verdict = health_worst(h->verdict, level);
	if (h->nproblems == HEALTH_MAX_PROBLEMS) {
		h->more++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(h->problems[h->nproblems++], sizeof(h->problems[0]), fmt, ap);
	va_end(ap);
}

void health_judge_dev(struct health_dev *h, const struct snode_dev_status *st)
{
	if (st->state != SNODE_DEV_STATE_LIVE)
		health_problem(h, HEALTH_CRITICAL, "device not live");
	if (st->node_id == SNODE_NODE_ID_NONE)
		health_problem(h, HEALTH_CRITICAL, "not attached to a fabric");
}

void health_judge_link(struct health_dev *h, struct health_links *c,
		       const struct snode_link_info *li)
{
	const char *v = link_verdict(li);
	bool isolated = !strcmp(v, "isolated");
	bool down = li->oper_state == SNODE_LINK_OPER_STATE_DOWN ||
		    li->admin_state == SNODE_LINK_ADMIN_STATE_DOWN;

	c->total++;
	if (li->util_alarm)
		health_problem(h, HEALTH_WARNING,
			       "link %u utilisation %.0f%% (alarm at %u%%)",
			       li->port,
			       (li->util_tx > li->util_rx ? li->util_tx :
							    li->util_rx) / 100.0,
			       li->util_threshold);
	if (!strcmp(v, "ok")) {
		c->ok++;
		return;
	}
	if (isolated || !strcmp(v, "flapping")) {
		if (isolated)
			c->isolated++;
		else
			c->flapping++;
		if (down || isolated) {
			if (c->down < HEALTH_MAX_PORTS)
				c->down_port[c->down] = li->port;
			c->down++;
		} else if (!c->flapping_up++) {
			c->flapping_port = li->port;
		}
		health_problem(h, HEALTH_WARNING, "link %u %s (%s)", li->port, v,
			       link_isolate_reason_name(li->isolate_reason));
		return;
	}
	if (!strcmp(v, "down")) {
		if (c->down < HEALTH_MAX_PORTS)
			c->down_port[c->down] = li->port;
		c->down++;
	} else if (!strcmp(v, "errors"))
		c->errors++;
	else
		c->degraded++;
	health_problem(h, HEALTH_WARNING, "link %u %s", li->port, v);
}

void health_judge_links(struct health_dev *h, const struct health_links *c,
			uint32_t node)
{
	char ports[64], nodename[24] = "this node";
	unsigned int i, len = 0;

	if (c->total && c->down == c->total) {
		health_problem(h, HEALTH_CRITICAL, "no link is up");
		return;
	}
	/* past its policy, but isolating it would cut the node off */
	if (c->flapping_up && c->total - c->down == 1)
		health_problem(h, HEALTH_CRITICAL,
			       "link %u flapping and the last link up: not isolated",
			       c->flapping_port);
	/* a degraded link or one with errors still carries traffic */
	if (c->total < 2 || c->total - c->down != 1)
		return;
	ports[0] = '\0';
	for (i = 0; i < c->down && i < HEALTH_MAX_PORTS; i++)
		len += snprintf(ports + len, len < sizeof(ports) ?
				sizeof(ports) - len : 0, "%s%u", i ? ", " : "",
				c->down_port[i]);
	if (node != SNODE_NODE_ID_NONE)
		snprintf(nodename, sizeof(nodename), "node %u", node);
	health_problem(h, HEALTH_WARNING, "%s: one path left (link%s %s down)",
		       nodename, c->down > 1 ? "s" : "", ports);
}

void health_down_add(struct health_down *d, const struct snode_link_info *li)
{
	if (strcmp(link_verdict(li), "down"))
		return;
	if (d->n < HEALTH_MAX_DOWN) {
		d->link[d->n].peer_switch = li->peer_switch;
		d->link[d->n].peer_node = li->peer_node;
		d->link[d->n].plane = li->peer_switch != SNODE_NONE &&
				      (li->topo & SNODE_TOPO_HAS_PLANE) ?
				      li->peer_plane : SNODE_NONE;
		snprintf(d->link[d->n].switch_name,
			 sizeof(d->link[d->n].switch_name), "%s",
			 li->peer_switch != SNODE_NONE ? li->peer_switch_name : "");
	}
	d->n++;
}

enum health_by { HEALTH_BY_SWITCH, HEALTH_BY_NODE, HEALTH_BY_PLANE };

static uint32_t health_down_key(const struct health_down *d, unsigned int i,
				enum health_by by)
{
	switch (by) {
	case HEALTH_BY_SWITCH:
		return d->link[i].peer_switch;
	case HEALTH_BY_NODE:
		return d->link[i].peer_node;
	default:
		return d->link[i].plane;
	}
}

/* The links down (of those kept) that lead to switch, node or plane @id. */
static unsigned int health_down_count(const struct health_down *d,
				      enum health_by by, uint32_t id)
{
	unsigned int i, n = 0, kept = d->n < HEALTH_MAX_DOWN ? d->n :
						       HEALTH_MAX_DOWN;

	for (i = 0; i < kept; i++)
		n += health_down_key(d, i, by) == id;
	return n;
}

/* The switches (names, else ids) of the plane's links down, for the text. */
static void health_plane_switches(const struct health_down *d, uint32_t plane,
				  char *s, size_t len)
{
	unsigned int i, j, kept = d->n < HEALTH_MAX_DOWN ? d->n :
						   HEALTH_MAX_DOWN;
	size_t at = 0;

	s[0] = 0;
	for (i = 0; i < kept && at < len; i++) {
		bool seen = false;

		if (d->link[i].plane != plane)
			continue;
		for (j = 0; j < i; j++)
			seen |= d->link[j].plane == plane &&
				d->link[j].peer_switch == d->link[i].peer_switch;
		if (seen)
			continue;
		if (d->link[i].switch_name[0])
			at += snprintf(s + at, len - at, "%s%s", at ? ", " : "",
				       d->link[i].switch_name);
		else
			at += snprintf(s + at, len - at, "%s%u", at ? ", " : "",
				       d->link[i].peer_switch);
	}
}

static void health_group_set(struct health_group *g, const struct health_down *d,
			     enum health_by by, uint32_t id, unsigned int first,
			     unsigned int links, unsigned int of)
{
	char what[128], sw[96];

	memset(g, 0, sizeof(*g));
	g->links = links;
	g->of = of;
	g->is_switch = by == HEALTH_BY_SWITCH;
	g->by_plane = by == HEALTH_BY_PLANE;
	g->id = id;
	g->plane = SNODE_NONE;
	if (by == HEALTH_BY_NODE) {
		snprintf(what, sizeof(what), "to node %u", id);
	} else if (by == HEALTH_BY_PLANE) {
		/* several switches of one plane */
		g->plane = id;
		health_plane_switches(d, id, sw, sizeof(sw));
		snprintf(what, sizeof(what), "on plane %u (switches %s)", id, sw);
	} else {
		g->plane = d->link[first].plane;
		snprintf(g->switch_name, sizeof(g->switch_name), "%s",
			 d->link[first].switch_name);
		if (g->plane == SNODE_NONE)
			snprintf(what, sizeof(what), "on switch %u", id);
		else if (g->switch_name[0])
			snprintf(what, sizeof(what), "on plane %u (switch %s)",
				 g->plane, g->switch_name);
		else
			snprintf(what, sizeof(what), "on plane %u (switch %u)",
				 g->plane, id);
	}
	if (links == of && of == 1)
		snprintf(g->text, sizeof(g->text), "1 link down, %s", what);
	else if (links == of)
		snprintf(g->text, sizeof(g->text), "%u links down, all %s",
			 links, what);
	else
		snprintf(g->text, sizeof(g->text), "%u of %u links down %s",
			 links, of, what);
}

/*
 * What the links down share, narrowest first: one switch, one node, then
 * one plane (several switches of it, e.g. a plane's leaves); failing that,
 * each switch, node or plane that two or more of them lead to. A plane
 * group is only named when it spans more than one switch: one switch of a
 * plane is already said by the switch group, with its plane.
 */
unsigned int health_down_groups(const struct health_down *d,
				struct health_group *g, unsigned int max)
{
	unsigned int i, j, n = 0, kept = d->n < HEALTH_MAX_DOWN ? d->n :
							    HEALTH_MAX_DOWN;
	static const enum health_by order[] = {
		HEALTH_BY_SWITCH, HEALTH_BY_NODE, HEALTH_BY_PLANE
	};
	unsigned int pass;

	if (!kept || !max)
		return 0;
	for (pass = 0; pass < 3; pass++) {
		uint32_t id = health_down_key(d, 0, order[pass]);

		if (id != SNODE_NONE && d->n == kept &&
		    health_down_count(d, order[pass], id) == kept) {
			health_group_set(&g[0], d, order[pass], id, 0, kept, d->n);
			return 1;
		}
	}
	for (pass = 0; pass < 3; pass++) {
		enum health_by by = order[pass];

		for (i = 0; i < kept && n < max; i++) {
			uint32_t id = health_down_key(d, i, by);
			unsigned int k, switches = 0;
			bool seen = false;

			if (id == SNODE_NONE)
				continue;
			for (j = 0; j < i; j++)
				seen |= health_down_key(d, j, by) == id;
			k = health_down_count(d, by, id);
			if (seen || k < 2)
				continue;
			if (by == HEALTH_BY_PLANE) {
				/* distinct switches of the plane among them */
				for (j = 0; j < kept; j++) {
					unsigned int m;
					bool dup = false;

					if (d->link[j].plane != id)
						continue;
					for (m = 0; m < j; m++)
						dup |= d->link[m].plane == id &&
						       d->link[m].peer_switch ==
						       d->link[j].peer_switch;
					switches += !dup;
				}
				if (switches < 2)
					continue;
			}
			health_group_set(&g[n++], d, by, id, i, k, d->n);
		}
	}
	return n;
}

void health_judge_node(struct health_dev *h, struct health_nodes *c,
		       const struct snode_node_info *ni)
{
	switch (ni->state) {
	case SNODE_NODE_STATE_UP:
		c->up++;
		break;
	case SNODE_NODE_STATE_UNREACHABLE:
		c->unreachable++;
		health_problem(h, HEALTH_WARNING, "node %u unreachable", ni->id);
		break;
	case SNODE_NODE_STATE_DEAD:
		c->dead++;
		health_problem(h, HEALTH_WARNING, "node %u dead", ni->id);
		break;
	}
}

/*
 * Compare with the thresholds rather than read the *_alarm files: those
 * latch an excursion until root acknowledges it, and health reports the
 * present state. The throttle flag is the device's own (the STATUS
 * register), judged whether or not the NIC has hwmon sensors.
 */
void health_judge_sensors(struct health_dev *h,
			  const struct health_sensors *s, int throttled)
{
	if (s->have_temp && s->have_temp_max && s->temp > s->temp_max)
		health_problem(h, HEALTH_WARNING,
			       "temperature %.1f C above max %.1f C",
			       s->temp / 1000.0, s->temp_max / 1000.0);
	if (s->have_temp && s->have_temp_crit && s->temp > s->temp_crit)
		health_problem(h, HEALTH_CRITICAL,
			       "temperature %.1f C above critical %.1f C",
			       s->temp / 1000.0, s->temp_crit / 1000.0);
	/* hwmon power is in microwatts */
	if (s->have_power && s->have_power_max && s->power > s->power_max)
		health_problem(h, HEALTH_WARNING,
			       "power %.3f W above max %.3f W",
			       s->power / 1e6, s->power_max / 1e6);
	if (throttled)
		health_problem(h, HEALTH_CRITICAL, "throttled (too hot)");
}
