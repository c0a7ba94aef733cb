// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl health: one verdict per NIC from its state, its links, the
 * fabric nodes it sees and its sensors, and with --baseline FILE the
 * temperature against a recorded baseline (baseline.c); the exit status
 * says whether anything is wrong.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "baseline.h"
#include "snodectl.h"

static void health_help(FILE *f)
{
	fprintf(f,
		"Usage: snodectl health [ show ] [ DEV ] [ baseline FILE ]\n"
		"DEV := { snodeN | dev snodeN }\n"
		"baseline FILE: warn of a NIC more than 8 C above its baseline\n"
		"(snodectl sensor baseline record) at a power within 10 %%.\n"
		"Exit status: 0 ok, 1 warning, 2 critical, 3 unknown (no NIC, or\n"
		"one that cannot be read); 64 on a usage error or a malformed FILE.\n");
}

static void health_links(struct snodectl *sc, struct snode_dev *dev,
			 uint32_t node, struct health_dev *h,
			 struct health_down *down)
{
	const struct snode_link_info *li;
	struct health_links c = { 0 };
	struct snode_link_iter *iter;
	int ret;

	ret = snode_link_list(sc->ctx, snode_dev_get_index(dev), sizeof(*li),
			      &iter);
	if (ret < 0) {
		health_problem(h, HEALTH_CRITICAL, "links unreadable: %s",
			       strerror(-ret));
		return;
	}
	snode_link_iter_foreach(iter, li) {
		health_judge_link(h, &c, li);
		health_down_add(down, li);
	}
	snode_link_iter_free(iter);
	health_judge_links(h, &c, node);
	print_open_object("links");
	print_text("    links:");
	print_u64("total", " %llu", c.total);
	print_u64("ok", ", %llu ok", c.ok);
	print_u64("degraded", ", %llu degraded", c.degraded);
	print_u64("errors", ", %llu errors", c.errors);
	print_u64("down", ", %llu down", c.down);
	print_u64("isolated", c.isolated ? ", %llu isolated" : NULL,
		  c.isolated);
	print_u64("flapping", c.flapping ? ", %llu flapping" : NULL,
		  c.flapping);
	print_nl();
	print_close_object();
}

static void health_nodes(struct snodectl *sc, struct snode_dev *dev,
			 struct health_dev *h)
{
	const struct snode_node_info *ni;
	struct health_nodes c = { 0 };
	struct snode_node_iter *iter;
	int ret;

	ret = snode_node_list(sc->ctx, snode_dev_get_index(dev), sizeof(*ni),
			      &iter);
	if (ret < 0) {
		health_problem(h, HEALTH_CRITICAL, "nodes unreadable: %s",
			       strerror(-ret));
		return;
	}
	snode_node_iter_foreach(iter, ni)
		health_judge_node(h, &c, ni);
	snode_node_iter_free(iter);
	print_open_object("nodes");
	print_text("    nodes:");
	print_u64("up", " %llu up", c.up);
	print_u64("unreachable", ", %llu unreachable", c.unreachable);
	print_u64("dead", ", %llu dead", c.dead);
	print_nl();
	print_close_object();
}

/* A hwmon value: as read in JSON; in the text divided by @unit. */
static void health_print_sensor(bool have, const char *key, long val,
				const char *fmt, double unit)
{
	if (!have)
		return;
	print_u64(key, NULL, (uint64_t)val);
	print_text(fmt, val / unit);
}

/* The NIC against its baseline entry: the comparison and its problems. */
static void health_baseline(const struct baseline_file *b,
			    const struct snode_dev_status *st,
			    const struct health_sensors *s, struct health_dev *h)
{
	struct baseline_id id = { 0 };
	struct baseline_cmp c;

	if (!s->have_temp || !s->have_power) {
		health_problem(h, HEALTH_WARNING,
			       "no temperature and power readings to compare with %s",
			       b->file);
		return;
	}
	snprintf(id.serial, sizeof(id.serial), "%s", st->serial);
	id.fabric = st->fabric_id;
	id.have_node = st->node_id != SNODE_NODE_ID_NONE;
	id.node = st->node_id;
	baseline_compare(b, &id, s->temp, s->power, &c);
	baseline_judge(h, b, &id, &c);
	if (!c.e) {
		print_null("baseline", NULL);
		print_text("    baseline: none in %s\n", b->file);
		return;
	}
	print_open_object("baseline");
	print_str("file", NULL, b->file);
	print_u64("line", NULL, c.e->line);
	print_s64("temp", NULL, c.e->temp);
	print_text("    baseline: %.1f C", c.e->temp / 1000.0);
	print_s64("power", NULL, c.e->power);
	print_text(" at %.3f W", c.e->power / 1e6);
	if (c.e->load[0])
		print_str("load", " (load %s)", c.e->load);
	else
		print_null("load", NULL);
	print_bool("compared", NULL, c.compared);
	print_s64("delta", NULL, c.delta);
	print_bool("drift", NULL, c.drift);
	if (c.compared)
		print_text(": now %+.1f C%s", c.delta / 1000.0,
			   c.drift ? ", drift" : "");
	else
		print_text(": power now %.3f W is not within %d %%, not compared",
			   s->power / 1e6, BASELINE_POWER_PCT);
	print_nl();
	print_close_object();
}

static void health_sensors(const char *name, const struct snode_dev_status *st,
			   const struct baseline_file *b, struct health_dev *h)
{
	struct health_sensors s;

	sensor_read_all(name, &s);
	/* the throttle flag too, with or without hwmon */
	health_judge_sensors(h, &s, st->throttled);
	if (!s.have_temp && !s.have_power) {
		if (b)
			health_baseline(b, st, &s, h);
		return;
	}

	print_open_object("sensors");
	print_text("    sensors:");
	health_print_sensor(s.have_temp, "temp", s.temp, " temp %.1f C", 1e3);
	health_print_sensor(s.have_temp_max, "temp_max", s.temp_max,
			    " (max %.1f C", 1e3);
	health_print_sensor(s.have_temp_crit, "temp_crit", s.temp_crit,
			    ", crit %.1f C)", 1e3);
	/* hwmon power is in microwatts */
	health_print_sensor(s.have_power, "power", s.power, " power %.3f W",
			    1e6);
	health_print_sensor(s.have_power_max, "power_max", s.power_max,
			    " (max %.3f W)", 1e6);
	print_bool("throttled", st->throttled ? " throttled" : NULL,
		   st->throttled);
	print_nl();
	print_close_object();
	if (b)
		health_baseline(b, st, &s, h);
}

static enum health health_dev(struct snodectl *sc, struct snode_dev *dev,
			      const struct baseline_file *b,
			      struct health_down *down)
{
	const char *name = snode_dev_get_name(dev);
	struct snode_dev_status st;
	struct health_dev h = { .verdict = HEALTH_OK };
	unsigned int i;
	int ret;

	ret = snode_dev_get_status(dev, &st, sizeof(st));
	if (ret < 0) {
		snodectl_nl_err(name, ret);
		print_open_object(NULL);
		print_str("dev", "%s:", name);
		print_nl();
		print_str("verdict", "    verdict: %s",
			  health_name(HEALTH_UNKNOWN));
		print_nl();
		print_close_object();
		return HEALTH_UNKNOWN;
	}
	print_open_object(NULL);
	print_str("dev", "%s:", name);
	print_nl();
	print_text("    device:");
	print_str("state", " %s",
		  st.state == SNODE_DEV_STATE_LIVE ? "live" :
		  st.state == SNODE_DEV_STATE_RESETTING ? "resetting" :
		  st.state == SNODE_DEV_STATE_DEAD ? "dead" : "removed");
	health_judge_dev(&h, &st);
	if (st.node_id != SNODE_NODE_ID_NONE)
		print_u64("node", ", node %llu", st.node_id);
	else
		print_text(", not attached");
	print_nl();

	health_links(sc, dev, st.node_id, &h, down);
	health_nodes(sc, dev, &h);
	health_sensors(name, &st, b, &h);

	print_open_array("problems");
	for (i = 0; i < h.nproblems; i++) {
		print_text("    problem: ");
		print_str(NULL, "%s", h.problems[i]);
		print_nl();
	}
	print_close_array();
	if (h.more)
		print_text("    (%u more problems)\n", h.more);
	print_str("verdict", "    verdict: %s", health_name(h.verdict));
	print_nl();
	print_close_object();
	return h.verdict;
}

/*
 * What the links down on every NIC looked at share: a switch or a node
 * they all lead to is the likely common cause. The links were counted as
 * problems of their NICs already; this only names the cause.
 */
static void health_common_cause(const struct health_down *down)
{
	struct health_group g[HEALTH_MAX_DOWN];
	unsigned int i, n = health_down_groups(down, g, HEALTH_MAX_DOWN);

	print_open_array("common_causes");
	for (i = 0; i < n; i++) {
		print_open_object(NULL);
		print_str("text", "common cause: %s", g[i].text);
		print_u64("links", NULL, g[i].links);
		print_u64("links_down", NULL, g[i].of);
		if (!g[i].by_plane)
			print_u64(g[i].is_switch ? "switch" : "node", NULL,
				  g[i].id);
		/* the plane and the fabric's name (decision 0030) */
		if (g[i].plane != SNODE_NONE)
			print_u64("plane", NULL, g[i].plane);
		if (g[i].switch_name[0])
			print_str("switch_name", NULL, g[i].switch_name);
		print_nl();
		print_close_object();
	}
	print_close_array();
}

enum { HEALTH_OPT_BASELINE };

static const struct tool_opt health_opts[] = {
	{ "-baseline", HEALTH_OPT_BASELINE, true, true },
	{ NULL, 0, false, false }
};

static int health_run(struct snodectl *sc)
{
	struct baseline_file base = { 0 }, *b = NULL;
	const char *name = NULL, *val = NULL;
	enum health worst = HEALTH_OK;
	struct health_down down = { 0 };
	struct snode_dev *dev, *only;
	int ret, id;

	while (sc->argc > 0) {
		id = snodectl_next_opt(sc, health_opts, &val);
		if (id == -2)
			return TOOL_EXIT_USAGE;
		if (id == HEALTH_OPT_BASELINE) {
			if (base.file)
				return snodectl_usage("health", "health: %s given twice",
						      tool_opt_word());
			if (!*val)
				return snodectl_usage("health", "health: %s needs a file name",
						      tool_opt_word());
			base.file = val;
			continue;
		}
		ret = snodectl_dev_opt_last(sc, "health", &name);
		if (ret)
			return ret;
	}
	/* a malformed baseline is refused before anything is judged */
	if (base.file) {
		ret = baseline_read(&base);
		if (ret)
			return ret;
		b = &base;
	}
	ret = snodectl_dev_resolve(sc, name, &only);
	if (ret == 1) {	/* no such device: nothing to judge */
		baseline_free(&base);
		return SNODECTL_HEALTH_UNKNOWN;
	}
	if (!snode_dev_get_first(sc->ctx)) {
		snodectl_err("no snode devices (is snode.ko loaded?)");
		worst = HEALTH_UNKNOWN;
	}

	print_open_array("devices");
	snode_dev_foreach(sc->ctx, dev) {
		if (only && dev != only)
			continue;
		worst = health_worst(worst, health_dev(sc, dev, b, &down));
	}
	baseline_free(&base);
	print_close_array();
	health_common_cause(&down);
	print_str("verdict", "overall: %s", health_name(worst));
	print_nl();
	/* the report goes out whatever the verdict; the status tells it */
	if (print_flush(true))
		return SNODECTL_HEALTH_UNKNOWN;
	return health_exit_status(worst);
}

static const struct snodectl_cmd health_cmds[] = {
	{ "show", health_run },
	{ NULL, NULL }
};

int cmd_health(struct snodectl *sc)
{
	/* "snodectl health [DEV] [baseline FILE]": the verb is optional */
	if (sc->argc > 0 && !tool_matches(sc->argv[0], "show") &&
	    !tool_matches(sc->argv[0], "help"))
		return health_run(sc);
	return snodectl_dispatch(sc, "health", health_cmds, health_help);
}
