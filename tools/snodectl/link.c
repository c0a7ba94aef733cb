// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl link: the fabric links of this host's NICs, their health, and
 * what an administrator may do to them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "snodectl.h"

/* Without an alarm threshold, a link at or above this BER is in errors. */
#define LINK_DEFAULT_BER_LIMIT	1e-12

static int link_help(void)
{
	fprintf(stderr,
		"Usage: snodectl link status [ DEV ]\n"
		"       snodectl link show DEV PORT\n"
		"       snodectl link set DEV PORT { state { up | down } | ber-threshold BER }\n"
		"       snodectl link reset DEV PORT\n"
		"       snodectl link clear DEV PORT\n"
		"       snodectl link threshold DEV [ PORT ] { BER | off }\n"
		"DEV := snodeN    PORT := 0..7 (or DEV/PORT)    BER := e.g. 1e-12\n");
	return 0;
}

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

/*
 * down: not carrying traffic; errors: the BER is at or above the alarm
 * threshold (or, without one, LINK_DEFAULT_BER_LIMIT); degraded: fewer
 * lanes than it has, or retraining; ok otherwise.
 */
const char *link_verdict(const struct snode_link_info *li)
{
	double limit = li->ber_threshold ?
		       snode_ber_to_double(li->ber_threshold) :
		       LINK_DEFAULT_BER_LIMIT;

	if (li->oper_state == SNODE_LINK_OPER_STATE_DOWN ||
	    li->admin_state == SNODE_LINK_ADMIN_STATE_DOWN)
		return "down";
	if (li->ber_alarm || (li->ber && snode_ber_to_double(li->ber) >= limit))
		return "errors";
	if (li->oper_state != SNODE_LINK_OPER_STATE_UP)
		return "degraded";
	return "ok";
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
	} else {
		print_text(" peer -");
	}
}

/* One line: the operator's view of a link. */
static void link_print_status(const struct snode_link_info *li)
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
	print_nl();
	print_close_object();
}

/* "snode0 1" or "snode0/1": fills the device index and port. */
static int link_arg(struct snodectl *sc, unsigned int *dev_index,
		    unsigned int *port)
{
	const char *name = snodectl_arg_next(sc);
	const char *p = NULL;
	struct snode_dev *dev;
	char buf[64], *end;
	unsigned long v;

	if (!name)
		return snodectl_err("missing device (e.g. snode0)");
	snprintf(buf, sizeof(buf), "%s", name);
	end = strchr(buf, '/');
	if (end) {
		*end = '\0';
		p = end + 1;
	}
	dev = snode_dev_get_by_name(sc->ctx, buf);
	if (!dev) {
		if (!snode_dev_get_first(sc->ctx))
			return snodectl_err("no snode devices (is snode.ko loaded?)");
		return snodectl_err("no device \"%s\" (see 'snodectl dev show')",
				    buf);
	}
	*dev_index = snode_dev_get_index(dev);
	if (!p)
		p = snodectl_arg_next(sc);
	if (!p)
		return snodectl_err("missing port number after %s", buf);
	v = strtoul(p, &end, 10);
	if (*end || end == p || v > 255)
		return snodectl_err("bad port \"%s\"", p);
	*port = v;
	return 0;
}

static int link_status(struct snodectl *sc)
{
	struct snode_link *link;
	int dev_index = -1, ret;

	if (sc->argc > 0) {
		struct snode_dev *dev = snodectl_dev_arg(sc);

		if (!dev)
			return 1;
		dev_index = snode_dev_get_index(dev);
	}
	ret = snode_link_list(sc->ctx, dev_index);
	if (ret < 0)
		return snodectl_nl_err("link status", ret);
	print_open_array("links");
	snode_link_foreach(sc->ctx, link)
		link_print_status(snode_link_get_info(link));
	print_close_array();
	return 0;
}

static int link_show(struct snodectl *sc)
{
	const struct snode_link_info *li;
	unsigned int dev_index, port;
	struct snode_link *link;
	int ret;

	if (link_arg(sc, &dev_index, &port))
		return 1;
	ret = snode_link_get(sc->ctx, dev_index, port, &link);
	if (ret < 0)
		return snodectl_nl_err("link show", ret);
	li = snode_link_get_info(link);

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
	print_close_object();
	print_close_array();
	return 0;
}

/* BER: a number (1e-12), or "off"/"none"/0 for no threshold. */
static int link_ber_arg(const char *s, uint64_t *ber)
{
	char *end;
	double v;

	if (!s)
		return snodectl_err("missing BER (e.g. 1e-12, or off)");
	if (!strcmp(s, "off") || !strcmp(s, "none")) {
		*ber = 0;
		return 0;
	}
	v = strtod(s, &end);
	if (*end || end == s || v < 0 || v > 1)
		return snodectl_err("bad BER \"%s\" (a rate from 0 to 1, e.g. 1e-12)",
				    s);
	*ber = snode_ber_from_double(v);
	return 0;
}

static int link_set(struct snodectl *sc)
{
	unsigned int dev_index, port;
	const char *what, *val;
	uint64_t ber;
	int ret;

	if (link_arg(sc, &dev_index, &port))
		return 1;
	what = snodectl_arg_next(sc);
	val = snodectl_arg_next(sc);
	if (what && !strcmp(what, "state") && val &&
	    (!strcmp(val, "up") || !strcmp(val, "down"))) {
		ret = snode_link_set_state(sc->ctx, dev_index, port,
					   !strcmp(val, "up"));
	} else if (what && !strcmp(what, "ber-threshold")) {
		if (link_ber_arg(val, &ber))
			return 1;
		ret = snode_link_set_ber_threshold(sc->ctx, dev_index, port,
						   ber);
	} else {
		link_help();
		return snodectl_err("link set: expected state up|down or ber-threshold BER");
	}
	if (ret < 0)
		return snodectl_nl_err("link set", ret);
	return 0;
}

static int link_action(struct snodectl *sc, const char *what,
		       int (*fn)(struct snode_ctx *ctx, unsigned int dev_index,
				 unsigned int port))
{
	unsigned int dev_index, port;
	int ret;

	if (link_arg(sc, &dev_index, &port))
		return 1;
	ret = fn(sc->ctx, dev_index, port);
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
	unsigned int dev_index, port;
	struct snode_dev *dev;
	uint64_t ber;
	int ret;

	if (sc->argc == 2 && !strchr(sc->argv[0], '/')) {
		dev = snodectl_dev_arg(sc);
		if (!dev || link_ber_arg(snodectl_arg_next(sc), &ber))
			return 1;
		ret = snode_dev_set_ber_threshold(dev, ber);
	} else {
		if (link_arg(sc, &dev_index, &port) ||
		    link_ber_arg(snodectl_arg_next(sc), &ber))
			return 1;
		ret = snode_link_set_ber_threshold(sc->ctx, dev_index, port,
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
	{ NULL, NULL }
};

int cmd_link(struct snodectl *sc)
{
	return snodectl_dispatch(sc, link_cmds, link_help);
}
