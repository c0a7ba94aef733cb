// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl health: one verdict per NIC from its state, its links, the
 * fabric nodes it sees and its sensors; the exit status says whether
 * anything is wrong.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snodectl.h"

static void health_help(FILE *f)
{
	fprintf(f,
		"Usage: snodectl health [ show ] [ DEV ]\n"
		"DEV := { snodeN | dev snodeN }\n"
		"Exit status: 0 ok, 1 warning, 2 critical, 3 unknown (no NIC, or\n"
		"one that cannot be read); 64 on a usage error.\n");
}

/* A value of the NIC's hwmon directory; 0 if it has none. */
static int health_hwmon(const char *dev, const char *file, long *val)
{
	const char *class = getenv("SNODE_SYSFS");
	char path[512];
	struct dirent *de;
	int found = 0;
	FILE *f;
	DIR *d;

	snprintf(path, sizeof(path), "%s/%s/device/hwmon",
		 class ? class : "/sys/class/snode", dev);
	d = opendir(path);
	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		if (strncmp(de->d_name, "hwmon", 5))
			continue;
		snprintf(path, sizeof(path), "%s/%s/device/hwmon/%s/%s",
			 class ? class : "/sys/class/snode", dev, de->d_name,
			 file);
		f = fopen(path, "r");
		if (!f)
			continue;
		found = fscanf(f, "%ld", val) == 1;
		fclose(f);
	}
	closedir(d);
	return found;
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

static void health_sensors(const char *name, const struct snode_dev_status *st,
			   struct health_dev *h)
{
	struct health_sensors s = { 0 };

	s.have_temp = health_hwmon(name, "temp1_input", &s.temp);
	s.have_power = health_hwmon(name, "power1_input", &s.power);
	if (s.have_temp) {
		s.have_temp_max = health_hwmon(name, "temp1_max", &s.temp_max);
		s.have_temp_crit = health_hwmon(name, "temp1_crit",
						&s.temp_crit);
	}
	if (s.have_power)
		s.have_power_max = health_hwmon(name, "power1_max",
						&s.power_max);
	/* the throttle flag too, with or without hwmon */
	health_judge_sensors(h, &s, st->throttled);
	if (!s.have_temp && !s.have_power)
		return;

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
}

static enum health health_dev(struct snodectl *sc, struct snode_dev *dev,
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
	health_sensors(name, &st, &h);

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

static int health_run(struct snodectl *sc)
{
	enum health worst = HEALTH_OK;
	struct health_down down = { 0 };
	struct snode_dev *dev, *only;
	int ret;

	ret = snodectl_dev_only(sc, "health", &only);
	if (ret == 1)	/* no such device: nothing to judge */
		return SNODECTL_HEALTH_UNKNOWN;
	if (ret)
		return ret;
	if (!snode_dev_get_first(sc->ctx)) {
		snodectl_err("no snode devices (is snode.ko loaded?)");
		worst = HEALTH_UNKNOWN;
	}

	print_open_array("devices");
	snode_dev_foreach(sc->ctx, dev) {
		if (only && dev != only)
			continue;
		worst = health_worst(worst, health_dev(sc, dev, &down));
	}
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
	/* "snodectl health [DEV]": the verb is optional */
	if (sc->argc > 0 && !tool_matches(sc->argv[0], "show") &&
	    !tool_matches(sc->argv[0], "help"))
		return health_run(sc);
	return snodectl_dispatch(sc, "health", health_cmds, health_help);
}
