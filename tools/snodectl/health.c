// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl health: one verdict per NIC from its state, its links, the
 * fabric nodes it sees and its sensors; the exit status says whether
 * anything is wrong.
 */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snodectl.h"

enum health {
	HEALTH_OK,
	HEALTH_WARNING,
	HEALTH_CRITICAL,
};

static const char *const health_names[] = { "ok", "warning", "critical" };

#define HEALTH_MAX_PROBLEMS	16

struct health_dev {
	enum health verdict;
	unsigned int nproblems;
	unsigned int more;
	char problems[HEALTH_MAX_PROBLEMS][96];
};

static int health_help(void)
{
	fprintf(stderr,
		"Usage: snodectl health [ DEV ]\n"
		"Exit status 0 if every NIC is ok, 1 if not or on error.\n");
	return 0;
}

static void health_problem(struct health_dev *h, enum health level,
			   const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void health_problem(struct health_dev *h, enum health level,
			   const char *fmt, ...)
{
	va_list ap;

	if (level > h->verdict)
		h->verdict = level;
	if (h->nproblems == HEALTH_MAX_PROBLEMS) {
		h->more++;
		return;
	}
	va_start(ap, fmt);
	vsnprintf(h->problems[h->nproblems++], sizeof(h->problems[0]), fmt, ap);
	va_end(ap);
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
			 struct health_dev *h)
{
	unsigned int n = 0, ok = 0, degraded = 0, errors = 0, down = 0;
	const struct snode_link_info *li;
	struct snode_link *link;
	int ret;

	ret = snode_link_list(sc->ctx, snode_dev_get_index(dev));
	if (ret < 0) {
		health_problem(h, HEALTH_CRITICAL, "links unreadable: %s",
			       strerror(-ret));
		return;
	}
	snode_link_foreach(sc->ctx, link) {
		const char *v;

		li = snode_link_get_info(link);
		v = link_verdict(li);
		n++;
		if (!strcmp(v, "ok")) {
			ok++;
			continue;
		}
		if (!strcmp(v, "down"))
			down++;
		else if (!strcmp(v, "errors"))
			errors++;
		else
			degraded++;
		health_problem(h, HEALTH_WARNING, "link %u %s", li->port, v);
	}
	if (n && down == n)
		health_problem(h, HEALTH_CRITICAL, "no link is up");
	print_open_object("links");
	print_text("    links:");
	print_u64("total", " %llu", n);
	print_u64("ok", ", %llu ok", ok);
	print_u64("degraded", ", %llu degraded", degraded);
	print_u64("errors", ", %llu errors", errors);
	print_u64("down", ", %llu down", down);
	print_nl();
	print_close_object();
}

static void health_nodes(struct snodectl *sc, struct snode_dev *dev,
			 struct health_dev *h)
{
	unsigned int up = 0, unreachable = 0, dead = 0;
	const struct snode_node_info *ni;
	struct snode_node *node;
	int ret;

	ret = snode_node_list(sc->ctx, snode_dev_get_index(dev));
	if (ret < 0) {
		health_problem(h, HEALTH_CRITICAL, "nodes unreadable: %s",
			       strerror(-ret));
		return;
	}
	snode_node_foreach(sc->ctx, node) {
		ni = snode_node_get_info(node);
		switch (ni->state) {
		case SNODE_NODE_STATE_UP:
			up++;
			break;
		case SNODE_NODE_STATE_UNREACHABLE:
			unreachable++;
			health_problem(h, HEALTH_WARNING, "node %u unreachable",
				       ni->id);
			break;
		case SNODE_NODE_STATE_DEAD:
			dead++;
			health_problem(h, HEALTH_WARNING, "node %u dead", ni->id);
			break;
		}
	}
	print_open_object("nodes");
	print_text("    nodes:");
	print_u64("up", " %llu up", up);
	print_u64("unreachable", ", %llu unreachable", unreachable);
	print_u64("dead", ", %llu dead", dead);
	print_nl();
	print_close_object();
}

static void health_sensors(const char *name, const struct snode_dev_status *st,
			   struct health_dev *h)
{
	long temp, temp_max, temp_crit, power, power_max;
	int have_temp, have_power;

	have_temp = health_hwmon(name, "temp1_input", &temp);
	have_power = health_hwmon(name, "power1_input", &power);
	if (!have_temp && !have_power)
		return;
	print_open_object("sensors");
	print_text("    sensors:");
	/*
	 * Compare with the thresholds rather than read the *_alarm files:
	 * reading those acknowledges the alarm.
	 */
	if (have_temp) {
		print_u64("temp", NULL, (uint64_t)temp);
		print_text(" temp %.1f C", temp / 1000.0);
		if (health_hwmon(name, "temp1_max", &temp_max)) {
			print_u64("temp_max", NULL, (uint64_t)temp_max);
			print_text(" (max %.1f C", temp_max / 1000.0);
			if (temp > temp_max)
				health_problem(h, HEALTH_WARNING,
					       "temperature %.1f C above max %.1f C",
					       temp / 1000.0, temp_max / 1000.0);
		}
		if (health_hwmon(name, "temp1_crit", &temp_crit)) {
			print_u64("temp_crit", NULL, (uint64_t)temp_crit);
			print_text(", crit %.1f C)", temp_crit / 1000.0);
			if (temp > temp_crit)
				health_problem(h, HEALTH_CRITICAL,
					       "temperature %.1f C above critical %.1f C",
					       temp / 1000.0, temp_crit / 1000.0);
		}
	}
	if (have_power) {
		print_u64("power", NULL, (uint64_t)power);
		/* hwmon power is in microwatts */
		print_text(" power %.3f W", power / 1e6);
		if (health_hwmon(name, "power1_max", &power_max)) {
			print_u64("power_max", NULL, (uint64_t)power_max);
			print_text(" (max %.3f W)", power_max / 1e6);
			if (power > power_max)
				health_problem(h, HEALTH_WARNING,
					       "power %.3f W above max %.3f W",
					       power / 1e6, power_max / 1e6);
		}
	}
	print_bool("throttled", st->throttled ? " throttled" : NULL,
		   st->throttled);
	if (st->throttled)
		health_problem(h, HEALTH_CRITICAL, "throttled (too hot)");
	print_nl();
	print_close_object();
}

static enum health health_dev(struct snodectl *sc, struct snode_dev *dev,
			      int *err)
{
	const char *name = snode_dev_get_name(dev);
	struct snode_dev_status st;
	struct health_dev h = { .verdict = HEALTH_OK };
	unsigned int i;
	int ret;

	ret = snode_dev_get_status(dev, &st);
	if (ret < 0) {
		*err = snodectl_nl_err(name, ret);
		return HEALTH_CRITICAL;
	}
	print_open_object(NULL);
	print_str("dev", "%s:", name);
	print_nl();
	print_text("    device:");
	print_str("state", " %s",
		  st.state == SNODE_DEV_STATE_LIVE ? "live" :
		  st.state == SNODE_DEV_STATE_RESETTING ? "resetting" :
		  st.state == SNODE_DEV_STATE_DEAD ? "dead" : "removed");
	if (st.state != SNODE_DEV_STATE_LIVE)
		health_problem(&h, HEALTH_CRITICAL, "device not live");
	if (st.node_id != SNODE_NODE_ID_NONE) {
		print_u64("node", ", node %llu", st.node_id);
	} else {
		print_text(", not attached");
		health_problem(&h, HEALTH_CRITICAL, "not attached to a fabric");
	}
	print_nl();

	health_links(sc, dev, &h);
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
	print_str("verdict", "    verdict: %s", health_names[h.verdict]);
	print_nl();
	print_close_object();
	return h.verdict;
}

static int health_run(struct snodectl *sc)
{
	enum health worst = HEALTH_OK, v;
	struct snode_dev *dev, *only = NULL;
	int err = 0;

	if (sc->argc > 0) {
		only = snodectl_dev_arg(sc);
		if (!only)
			return 1;
	}
	if (!snode_dev_get_first(sc->ctx))
		return snodectl_err("no snode devices (is snode.ko loaded?)");

	print_open_array("devices");
	snode_dev_foreach(sc->ctx, dev) {
		if (only && dev != only)
			continue;
		v = health_dev(sc, dev, &err);
		if (v > worst)
			worst = v;
	}
	print_close_array();
	print_str("verdict", "overall: %s", health_names[worst]);
	print_nl();
	if (err)
		return 1;
	/* the report goes out either way; the status tells the verdict */
	print_flush(true);
	return worst == HEALTH_OK ? 0 : 1;
}

static const struct snodectl_cmd health_cmds[] = {
	{ "show", health_run },
	{ NULL, NULL }
};

int cmd_health(struct snodectl *sc)
{
	if (sc->argc > 0 && strcmp(sc->argv[0], "show") &&
	    strcmp(sc->argv[0], "help"))
		return health_run(sc);
	return snodectl_dispatch(sc, health_cmds, health_help);
}
