// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl link: the fabric links of this host's NICs, their health, and
 * what an administrator may do to them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "snodectl.h"

static void link_help(FILE *f)
{
	fprintf(f,
		"Usage: snodectl link status [ DEV ]\n"
		"       snodectl -s link status [ interval S ] [ DEV ]\n"
		"       snodectl link show DEV PORT\n"
		"       snodectl link set DEV PORT { state { up | down } | ber-threshold BER |\n"
		"                                    util-threshold PCT |\n"
		"                                    auto-isolate { off | [ ber BER ] [ flaps N/DUR ] } }\n"
		"       snodectl link reset DEV PORT\n"
		"       snodectl link clear DEV PORT\n"
		"       snodectl link threshold DEV [ PORT ] { BER | off }\n"
		"       snodectl link diag [ record FILE ] [ DEV ]\n"
		"       snodectl link trend FILE [ since DUR ] [ max-crc N ]\n"
		"                              [ max-replays N ] [ max-down N ]\n"
		"DEV := { snodeN | dev snodeN }    PORT := 0..255 (or DEV/PORT)\n"
		"BER := a rate from 0 to 1, e.g. 1e-12    DUR := N{s|m|h|d|w}, e.g. 7d\n"
		"-s: rx/tx Gbit/s and %% of lanes x speed over S seconds (default 1, 0.1..60)\n"
		"PCT := 1..100, the utilisation alarm threshold (default 80)\n"
		"auto-isolate: take the link down past BER, or after N down events in DUR\n"
		"(flaps 5/60s; N 1..64, DUR up to 1d); link clear, then state up, brings it back\n");
}

static void link_print_ber(const char *key, const char *fmt, uint64_t ber)
{
	/* JSON gets the rate itself; text a compact exponent form */
	print_double(key, fmt, snode_ber_to_double(ber));
}

static void link_print_peer(const struct snode_link_info *li)
{
	if (li->peer_node != SNODE_NONE) {
		print_u64("peer_node", " peer node %llu", li->peer_node);
		print_u64("peer_port", " port %llu", li->peer_port);
	} else if (li->peer_switch != SNODE_NONE) {
		print_u64("peer_switch", " peer switch %llu", li->peer_switch);
		/* the fabric's name and plane of it (decision 0030) */
		if (li->peer_switch_name[0])
			print_str("peer_switch_name", " (%s)",
				  li->peer_switch_name);
		if (li->topo & SNODE_TOPO_HAS_PLANE)
			print_u64("peer_plane", " plane %llu", li->peer_plane);
	} else {
		print_text(" peer -");
	}
}

/* The auto-isolate policy: an object in JSON, "auto-isolate ..." in text. */
static void link_print_policy(const struct snode_link_info *li)
{
	print_open_object("auto_isolate");
	print_bool("enabled", li->auto_isolate ? " auto-isolate" : NULL,
		   li->auto_isolate);
	link_print_ber("ber", li->auto_isolate && li->isolate_ber ?
		       " ber %.3g" : NULL, li->isolate_ber);
	print_u64("flaps", li->auto_isolate && li->isolate_flaps ?
		  " flaps %llu" : NULL, li->isolate_flaps);
	print_u64("window", li->auto_isolate && li->isolate_flaps ?
		  "/%llus" : NULL, li->isolate_window);
	print_close_object();
}

/* The isolation (text: @fmt) and its reason, in text only if there is one. */
static void link_print_isolation(const struct snode_link_info *li,
				 const char *fmt)
{
	bool any = li->isolation != SNODE_LINK_ISOLATION_NONE;

	print_str("isolation", any ? fmt : NULL,
		  link_isolation_name(li->isolation));
	if (any)
		print_str("isolate_reason", " (%s)",
			  link_isolate_reason_name(li->isolate_reason));
	else
		print_null("isolate_reason", NULL);
}

/*
 * link status -s: what crossed the link between two readings @secs apart,
 * per direction, against lanes x speed; the driver's own utilisation
 * alarm beside it.
 */
static void link_print_rates(const struct snode_link_info *li,
			     const struct snode_link_info *before, double secs)
{
	double tx = 0, rx = 0, tx_pct = 0, rx_pct = 0;
	bool ok = before &&
		  !link_rate(before->tx_bytes, li->tx_bytes, secs, li->lanes,
			     li->speed, &tx, &tx_pct) &&
		  !link_rate(before->rx_bytes, li->rx_bytes, secs, li->lanes,
			     li->speed, &rx, &rx_pct);

	print_nl();
	print_text("    ");
	print_open_object("rate");
	print_double("interval", "over %.1fs:", secs);
	if (ok) {
		print_double("rx_gbps", " rx %.3f Gbit/s", rx);
		print_double("rx_pct", " (%.1f%%)", rx_pct);
		print_double("tx_gbps", " tx %.3f Gbit/s", tx);
		print_double("tx_pct", " (%.1f%%)", tx_pct);
	} else {
		/* counters cleared, or a link that came with the second reading */
		print_text(" no rate (counters cleared)");
		print_null("rx_gbps", NULL);
		print_null("rx_pct", NULL);
		print_null("tx_gbps", NULL);
		print_null("tx_pct", NULL);
	}
	print_close_object();
}

/* One line: the operator's view of a link; with -s, a second: its rates. */
static void link_print_status(const struct snode_link_info *li,
			      const struct snode_link_info *before,
			      double secs)
{
	print_open_object(NULL);
	print_str("dev", "%s", li->dev_name);
	print_u64("port", " port %llu", li->port);
	print_str("state", " %s", link_oper_name(li->oper_state));
	print_str("admin", li->admin_state ? NULL : " (admin down)",
		  li->admin_state ? "up" : "down");
	link_print_peer(li);
	print_u64("lanes", " %llu", li->lanes);
	print_u64("max_lanes", "/%llu", li->max_lanes);
	print_u64("speed", "x%lluG", li->speed);
	link_print_ber("ber", " ber %.3g", li->ber);
	print_u64("crc_errors", " crc %llu", li->crc_errors);
	print_u64("replays", " replays %llu", li->replays);
	print_u64("recoveries", " recoveries %llu", li->recoveries);
	print_u64("down_events", " down %llu", li->down_events);
	print_str("verdict", " %s", link_verdict(li));
	link_print_isolation(li, NULL);
	link_print_policy(li);
	print_u64("util_threshold", NULL, li->util_threshold);
	print_bool("util_alarm", li->util_alarm ? " util-alarm" : NULL,
		   li->util_alarm);
	if (secs > 0)
		link_print_rates(li, before, secs);
	print_nl();
	print_close_object();
}

/* The device and port a command names; resolved after parsing. */
struct link_target {
	char dev[64];
	unsigned int port;
};

/*
 * "snode0 1", "snode0/1" or "dev snode0 1". Returns 0 or an exit status.
 */
static int link_arg(struct snodectl *sc, struct link_target *t)
{
	const char *name, *p = NULL;
	char *slash;
	uint64_t v;

	if (sc->argc > 0 && !strcmp(sc->argv[0], "dev"))
		snodectl_arg_next(sc);
	name = snodectl_arg_next(sc);
	if (!name)
		return snodectl_usage("link", "link: missing device (e.g. snode0)");
	snprintf(t->dev, sizeof(t->dev), "%s", name);
	slash = strrchr(t->dev, '/');
	if (slash && strncmp(t->dev, "/dev/", 5)) {
		*slash = '\0';
		p = slash + 1;
	}
	if (!p)
		p = snodectl_arg_next(sc);
	if (!p)
		return snodectl_usage("link", "link: missing port number after %s",
				      t->dev);
	if (tool_parse_u64(p, 255, &v))
		return snodectl_usage("link", "link: bad port \"%s\" (0..255)",
				      p);
	t->port = v;
	return 0;
}

/* The device's index, once every argument was fine; 0 or 1. */
static int link_resolve(struct snodectl *sc, const struct link_target *t,
			unsigned int *dev_index)
{
	struct snode_dev *dev = snodectl_dev_lookup(sc, t->dev);

	if (!dev)
		return 1;
	*dev_index = snode_dev_get_index(dev);
	return 0;
}

/* "DEV PORT" and nothing else: parse, reject anything more, resolve. */
static int link_target_only(struct snodectl *sc, struct link_target *t,
			    unsigned int *dev_index)
{
	int ret = link_arg(sc, t);

	if (!ret)
		ret = snodectl_no_more(sc);
	if (!ret)
		ret = link_resolve(sc, t, dev_index);
	return ret;
}

enum { STATUS_OPT_STATS, STATUS_OPT_INTERVAL };

static const struct tool_opt status_opts[] = {
	{ "-s", STATUS_OPT_STATS, false, false },
	{ "-stats", STATUS_OPT_STATS, false, false },
	{ "-statistics", STATUS_OPT_STATS, false, false },
	{ "-interval", STATUS_OPT_INTERVAL, true, true },
	{ NULL, 0, false, false }
};

static double link_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The link @li was in the earlier snapshot @iter, or NULL. */
static const struct snode_link_info *
link_find(struct snode_link_iter *iter, const struct snode_link_info *li)
{
	const struct snode_link_info *b;

	snode_link_iter_foreach(iter, b)
		if (b->dev_index == li->dev_index && b->port == li->port)
			return b;
	return NULL;
}

/* [ -s ] link status [ interval S ] [ DEV ]; "link status -s" as well */
static int link_status(struct snodectl *sc)
{
	struct snode_link_iter *iter, *first = NULL;
	const struct snode_link_info *li;
	const char *name = NULL, *val;
	double secs = 1, t0 = 0, t1;
	const char *interval = NULL;
	bool stats;
	int dev_index = -1, id, ret;
	struct snode_dev *dev;

	while (sc->argc > 0) {
		id = snodectl_next_opt(sc, status_opts, &val);
		if (id == -2)
			return TOOL_EXIT_USAGE;
		if (id == STATUS_OPT_STATS) {
			sc->stats = true;
			continue;
		}
		if (id == STATUS_OPT_INTERVAL) {
			if (link_parse_interval(val, &secs))
				return snodectl_usage("link", "link status: bad interval \"%s\" (seconds, %g to %d, e.g. 2 or 0.5s)",
						      val, LINK_MIN_INTERVAL,
						      LINK_MAX_INTERVAL);
			interval = tool_opt_word();
			continue;
		}
		ret = snodectl_dev_opt_last(sc, "link", &name);
		if (ret)
			return ret;
	}
	stats = sc->stats;
	if (interval && !stats)
		return snodectl_usage("link", "link status: %s goes with -s (snodectl -s link status interval S)",
				      interval);
	ret = snodectl_dev_resolve(sc, name, &dev);
	if (ret)
		return ret;
	if (dev)
		dev_index = snode_dev_get_index(dev);
	if (stats) {
		ret = snode_link_list(sc->ctx, dev_index, sizeof(*li), &first);
		if (ret < 0)
			return snodectl_nl_err("link status", ret);
		t0 = link_now();
		nanosleep(&(struct timespec){ .tv_sec = (time_t)secs,
			.tv_nsec = (long)((secs - (time_t)secs) * 1e9) }, NULL);
	}
	ret = snode_link_list(sc->ctx, dev_index, sizeof(*li), &iter);
	if (ret < 0) {
		snode_link_iter_free(first);
		return snodectl_nl_err("link status", ret);
	}
	/* the time the readings were apart, not the one asked for */
	t1 = link_now();
	print_open_array("links");
	snode_link_iter_foreach(iter, li)
		link_print_status(li, stats ? link_find(first, li) : NULL,
				  stats ? t1 - t0 : 0);
	print_close_array();
	snode_link_iter_free(iter);
	snode_link_iter_free(first);
	return 0;
}

static int link_show(struct snodectl *sc)
{
	struct snode_link_info info;
	const struct snode_link_info *li = &info;
	struct link_target t;
	unsigned int dev_index;
	int ret;

	ret = link_target_only(sc, &t, &dev_index);
	if (ret)
		return ret;
	ret = snode_link_get(sc->ctx, dev_index, t.port, &info, sizeof(info));
	if (ret < 0)
		return snodectl_nl_err("link show", ret);

	print_open_array("links");
	print_open_object(NULL);
	print_str("dev", "%s", li->dev_name);
	print_u64("port", " port %llu:", li->port);
	print_str("state", " %s", link_oper_name(li->oper_state));
	print_str("admin", " admin %s", li->admin_state ? "up" : "down");
	print_str("verdict", " verdict %s", link_verdict(li));
	print_nl();
	print_text("    ");
	link_print_peer(li);
	print_u64("lanes", " lanes %llu", li->lanes);
	print_u64("max_lanes", "/%llu", li->max_lanes);
	print_u64("speed", " speed %lluG per lane", li->speed);
	print_nl();
	print_text("    ");
	link_print_ber("ber", "ber %.3g", li->ber);
	link_print_ber("ber_threshold", li->ber_threshold ?
		       " threshold %.3g" : NULL, li->ber_threshold);
	if (!li->ber_threshold)
		print_text(" threshold none");
	print_bool("ber_alarm", " alarm %s", li->ber_alarm);
	print_nl();
	print_text(li->auto_isolate ? "   " : "    auto-isolate off");
	link_print_policy(li);
	link_print_isolation(li, " isolation %s");
	print_nl();
	print_text("    ");
	print_u64("crc_errors", "crc_errors %llu", li->crc_errors);
	print_u64("replays", " replays %llu", li->replays);
	print_u64("recoveries", " recoveries %llu", li->recoveries);
	print_u64("down_events", " down_events %llu", li->down_events);
	print_nl();
	print_text("    ");
	print_u64("tx_bytes", "tx_bytes %llu", li->tx_bytes);
	print_u64("rx_bytes", " rx_bytes %llu", li->rx_bytes);
	print_u64("tx_msgs", " tx_msgs %llu", li->tx_msgs);
	print_u64("rx_msgs", " rx_msgs %llu", li->rx_msgs);
	print_nl();
	print_text("    ");
	print_double("util_tx_pct", "util tx %.1f%%", li->util_tx / 100.0);
	print_double("util_rx_pct", " rx %.1f%%", li->util_rx / 100.0);
	print_u64("util_threshold", " threshold %llu%%", li->util_threshold);
	print_u64("util_hysteresis", " hysteresis %llu", li->util_hysteresis);
	print_bool("util_alarm", " alarm %s", li->util_alarm);
	print_nl();
	print_close_object();
	print_close_array();
	return 0;
}

/* BER: a number (1e-12), or "off"/"none" for no threshold. */
static int link_ber_arg(const char *s, uint64_t *ber)
{
	char *end;
	double v;

	if (!s)
		return snodectl_usage("link", "link: missing BER (e.g. 1e-12, or off)");
	if (!strcmp(s, "off") || !strcmp(s, "none")) {
		*ber = 0;
		return 0;
	}
	v = strtod(s, &end);
	if (*end || end == s || !(v >= 0 && v <= 1))
		return snodectl_usage("link", "link: bad BER \"%s\" (a rate from 0 to 1, e.g. 1e-12)",
				      s);
	*ber = snode_ber_from_double(v);
	return 0;
}

/* auto-isolate { off | [ ber BER ] [ flaps N/DUR ] }: the whole policy */
struct link_policy {
	bool on;
	uint64_t ber;
	unsigned int flaps, window;
};

static int link_policy_arg(struct snodectl *sc, struct link_policy *pol)
{
	bool ber = false, flaps = false;
	const char *w;
	int ret;

	memset(pol, 0, sizeof(*pol));
	if (snodectl_arg_match(sc, "off"))
		return 0;
	pol->on = true;
	while (sc->argc > 0) {
		if (!ber && snodectl_arg_match(sc, "ber")) {
			ret = link_ber_arg(snodectl_arg_next(sc), &pol->ber);
			if (ret)
				return ret;
			if (!pol->ber)
				return snodectl_usage("link", "link set: auto-isolate ber wants a rate above 0 (leave ber out for none)");
			ber = true;
		} else if (!flaps && snodectl_arg_match(sc, "flaps")) {
			w = snodectl_arg_next(sc);
			if (link_parse_flaps(w, &pol->flaps, &pol->window))
				return snodectl_usage("link", "link set: bad flaps \"%s\" (N/DUR: N 1..%u down events within DUR, up to 1d, e.g. 5/60s)",
						      w ? w : "", LINK_MAX_FLAPS);
			flaps = true;
		} else {
			break;
		}
	}
	if (!ber && !flaps)
		return snodectl_usage("link", "link set: auto-isolate wants off, or ber BER and/or flaps N/DUR (e.g. ber 1e-9 flaps 5/60s)");
	return 0;
}

static int link_set(struct snodectl *sc)
{
	struct link_policy pol = { 0 };
	bool set_state = false, set_policy = false, set_util = false;
	unsigned int dev_index, util = 0;
	struct link_target t;
	const char *val = NULL;
	uint64_t ber = 0;
	int ret;

	ret = link_arg(sc, &t);
	if (ret)
		return ret;
	if (snodectl_arg_match(sc, "state")) {
		val = snodectl_arg_next(sc);
		if (!val || (strcmp(val, "up") && strcmp(val, "down")))
			return snodectl_usage("link", "link set: state wants up or down");
		set_state = true;
	} else if (snodectl_arg_match(sc, "ber-threshold")) {
		ret = link_ber_arg(snodectl_arg_next(sc), &ber);
		if (ret)
			return ret;
	} else if (snodectl_arg_match(sc, "util-threshold")) {
		val = snodectl_arg_next(sc);
		if (link_parse_util(val, &util))
			return snodectl_usage("link", "link set: bad util-threshold \"%s\" (percent of lanes x speed, 1..100)",
					      val ? val : "");
		set_util = true;
	} else if (snodectl_arg_match(sc, "auto-isolate")) {
		ret = link_policy_arg(sc, &pol);
		if (ret)
			return ret;
		set_policy = true;
	} else {
		return snodectl_usage("link", "link set: expected state up|down, ber-threshold BER, util-threshold PCT or auto-isolate ...");
	}
	ret = snodectl_no_more(sc);
	if (!ret)
		ret = link_resolve(sc, &t, &dev_index);
	if (ret)
		return ret;
	if (set_state)
		ret = snode_link_set_state(sc->ctx, dev_index, t.port,
					   !strcmp(val, "up"));
	else if (set_util)
		ret = snode_link_set_util_threshold(sc->ctx, dev_index, t.port,
						    util);
	else if (set_policy)
		ret = snode_link_set_auto_isolate(sc->ctx, dev_index, t.port,
						  pol.on, pol.ber, pol.flaps,
						  pol.window);
	else
		ret = snode_link_set_ber_threshold(sc->ctx, dev_index, t.port,
						   ber);
	if (ret < 0)
		return snodectl_nl_err("link set", ret);
	return 0;
}

static int link_action(struct snodectl *sc, const char *what,
		       int (*fn)(struct snode_ctx *ctx, unsigned int dev_index,
				 unsigned int port))
{
	struct link_target t;
	unsigned int dev_index;
	int ret;

	ret = link_target_only(sc, &t, &dev_index);
	if (ret)
		return ret;
	ret = fn(sc->ctx, dev_index, t.port);
	if (ret < 0)
		return snodectl_nl_err(what, ret);
	return 0;
}

static int link_reset(struct snodectl *sc)
{
	return link_action(sc, "link reset", snode_link_reset);
}

static int link_clear(struct snodectl *sc)
{
	return link_action(sc, "link clear", snode_link_clear);
}

/* link threshold DEV BER (the NIC's default) | DEV PORT BER (one link) */
static int link_threshold(struct snodectl *sc)
{
	struct snode_dev *dev = NULL;
	const char *name = NULL;
	struct link_target t;
	unsigned int dev_index;
	int n = sc->argc, ret;
	uint64_t ber;

	if (n > 0 && !strcmp(sc->argv[0], "dev"))
		n--;
	if (n == 2 && !strchr(sc->argv[sc->argc - 2], '/')) {
		ret = snodectl_dev_opt(sc, "link", &name);
		if (!ret && !name)
			ret = snodectl_usage("link", "link threshold: bad device \"%s\"",
					     sc->argv[0]);
		if (!ret)
			ret = link_ber_arg(snodectl_arg_next(sc), &ber);
		if (!ret)
			ret = snodectl_dev_resolve(sc, name, &dev);
		if (ret)
			return ret;
		ret = snode_dev_set_ber_threshold(dev, ber);
	} else {
		ret = link_arg(sc, &t);
		if (!ret)
			ret = link_ber_arg(snodectl_arg_next(sc), &ber);
		if (!ret)
			ret = snodectl_no_more(sc);
		if (!ret)
			ret = link_resolve(sc, &t, &dev_index);
		if (ret)
			return ret;
		ret = snode_link_set_ber_threshold(sc->ctx, dev_index, t.port,
						   ber);
	}
	if (ret < 0)
		return snodectl_nl_err("link threshold", ret);
	return 0;
}

static const struct snodectl_cmd link_cmds[] = {
	{ "status", link_status },
	{ "show", link_show },
	{ "set", link_set },
	{ "reset", link_reset },
	{ "clear", link_clear },
	{ "threshold", link_threshold },
	{ "diag", link_diag },
	{ "trend", link_trend },
	{ NULL, NULL }
};

int cmd_link(struct snodectl *sc)
{
	return snodectl_dispatch(sc, "link", link_cmds, link_help);
}
