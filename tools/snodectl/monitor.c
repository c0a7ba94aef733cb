// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl monitor: the snode family's events as they happen, one line
 * (or, with -j, one JSON object) each.
 */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "snodectl.h"

struct monitor {
	struct snodectl *sc;
	long count;		/* stop after this many; 0: never */
	long seen;
};

static void monitor_help(FILE *f)
{
	fprintf(f,
		"Usage: snodectl monitor [ events ] [ count N ] [ timeout SECONDS ]\n"
		"Prints link, BER alarm, link isolation, utilisation alarm, node,\n"
		"window, access-violation and thermal events of every NIC as they happen.\n");
}

/* What a node event means to an operator. */
static const char *monitor_node_change(const struct snode_event *ev)
{
	unsigned int state = ev->node.state, prev = ev->node.prev_state;

	switch (state) {
	case SNODE_NODE_STATE_UP:
		if (prev == SNODE_NODE_STATE_UP)
			return ev->node.route_port != ev->node.prev_route_port ?
			       "failover" : "flap";
		if (prev == SNODE_NODE_STATE_UNREACHABLE)
			return "reachable";
		return "join";
	case SNODE_NODE_STATE_UNREACHABLE:
		return "unreachable";
	case SNODE_NODE_STATE_DEAD:
		return "dead";
	default:
		return "leave";
	}
}

static void monitor_time(uint64_t ns)
{
	time_t secs = ns / 1000000000ULL;
	char buf[64];
	struct tm tm;

	localtime_r(&secs, &tm);
	strftime(buf, sizeof(buf), "%Y-%m-%dT%H:%M:%S", &tm);
	print_text("[%s.%06llu] ", buf,
		   (unsigned long long)(ns % 1000000000ULL) / 1000);
}

static void monitor_route(const char *key, const char *label, uint32_t port)
{
	if (port != SNODE_NONE)
		print_u64(key, label, port);
}

static int monitor_event(struct snode_ctx *ctx, const struct snode_event *ev,
			 void *arg)
{
	struct monitor *m = arg;
	const struct snode_link_info *li = &ev->link;

	print_init(m->sc->json, m->sc->pretty);
	print_u64("timestamp", NULL, ev->timestamp);
	if (ev->hw_timestamp)
		print_u64("hw_timestamp", NULL, ev->hw_timestamp);
	monitor_time(ev->timestamp);
	print_str("dev", "%s", ev->dev_name);

	switch (ev->type) {
	case SNODE_NL_CMD_LINK_STATE_NTF:
		print_str("event", " %s", "link-state");
		print_u64("port", " port %llu", li->port);
		print_str("state", " %s", link_oper_name(li->oper_state));
		print_u64("lanes", " lanes %llu", li->lanes);
		if (li->peer_node != SNODE_NONE)
			print_u64("peer_node", " peer node %llu", li->peer_node);
		print_u64("down_events", " down_events %llu", li->down_events);
		break;
	case SNODE_NL_CMD_LINK_BER_NTF:
		print_str("event", " %s", "link-ber");
		print_u64("port", " port %llu", li->port);
		print_str("alarm", " alarm %s", li->ber_alarm ? "raised" :
								"cleared");
		print_double("ber", " ber %.3g", snode_ber_to_double(li->ber));
		print_double("ber_threshold", " threshold %.3g",
			     snode_ber_to_double(li->ber_threshold));
		break;
	case SNODE_NL_CMD_LINK_ISOLATION_NTF:
		print_str("event", " %s", "link-isolation");
		print_u64("port", " port %llu", li->port);
		print_str("isolation", " %s", link_isolation_name(li->isolation));
		if (li->isolation != SNODE_LINK_ISOLATION_NONE)
			print_str("reason", " reason %s",
				  link_isolate_reason_name(li->isolate_reason));
		else
			print_text(" (cleared)");
		print_str("state", " (link %s",
			  link_oper_name(li->oper_state));
		print_u64("down_events", ", down_events %llu)",
			  li->down_events);
		break;
	case SNODE_NL_CMD_LINK_UTIL_NTF:
		print_str("event", " %s", "link-util");
		print_u64("port", " port %llu", li->port);
		print_str("alarm", " alarm %s", li->util_alarm ? "raised" :
								 "cleared");
		print_double("tx_pct", " tx %.1f%%", li->util_tx / 100.0);
		print_double("rx_pct", " rx %.1f%%", li->util_rx / 100.0);
		print_u64("util_threshold", " threshold %llu%%",
			  li->util_threshold);
		print_u64("util_hysteresis", " hysteresis %llu",
			  li->util_hysteresis);
		break;
	case SNODE_NL_CMD_NODE_STATE_NTF: {
		/* where the route goes now, as node list says it */
		struct snode_node_info topo = {
			.topo = ev->node.topo, .hops = ev->node.hops,
			.switch_id = ev->node.switch_id, .plane = ev->node.plane,
			.rack = ev->node.rack,
		};

		memcpy(topo.switch_name, ev->node.switch_name,
		       sizeof(topo.switch_name));
		memcpy(topo.rack_name, ev->node.rack_name,
		       sizeof(topo.rack_name));
		print_str("event", " %s", "node-state");
		print_u64("node", " node %llu", ev->node.id);
		node_print_topo(&topo);
		print_str("state", " %s", node_state_name(ev->node.state));
		monitor_route("route_port", " route-port %llu",
			      ev->node.route_port);
		print_str("prev_state", " (was %s",
			  node_state_name(ev->node.prev_state));
		monitor_route("prev_route_port", " route-port %llu",
			      ev->node.prev_route_port);
		print_text(")");
		print_str("change", ": %s", monitor_node_change(ev));
		break;
	}
	case SNODE_NL_CMD_WINDOW_REVOKED_NTF:
		print_str("event", " %s", "window-revoked");
		print_u64("att_index", " att %llu", ev->window.att_index);
		print_u64("node", " node %llu", ev->window.node);
		print_u64("export_id", " export %llu", ev->window.export_id);
		print_u64("epoch", " epoch %llu", ev->window.epoch);
		print_str("reason", " reason %s",
			  revoke_reason_name(ev->window.reason));
		break;
	case SNODE_NL_CMD_ACCESS_VIOLATION_NTF:
		print_str("event", " %s", "access-violation");
		print_hex("aperture_offset", " aperture offset 0x%llx",
			  ev->access.offset);
		print_str("access", " %s", ev->access.write ? "write" : "read");
		break;
	case SNODE_NL_CMD_THERMAL_NTF:
		print_str("event", " %s", "thermal");
		print_s64("temp", NULL, ev->thermal.temp);
		print_text(" temp %.1f C", ev->thermal.temp / 1000.0);
		print_u64("power", NULL, ev->thermal.power);
		print_text(" power %.3f W", ev->thermal.power / 1000.0);
		print_open_array("alarms");
		print_text(" alarms");
		if (ev->thermal.alarm & SNODE_THERMAL_ALARM_TEMP_MAX)
			print_str(NULL, " %s", "temp-max");
		if (ev->thermal.alarm & SNODE_THERMAL_ALARM_TEMP_CRIT)
			print_str(NULL, " %s", "temp-crit");
		if (ev->thermal.alarm & SNODE_THERMAL_ALARM_POWER_MAX)
			print_str(NULL, " %s", "power-max");
		print_close_array();
		break;
	default:
		print_str("event", " %s", "unknown");
		print_u64("cmd", " cmd %llu", ev->type);
		break;
	}
	if (ev->suppressed)
		print_u64("suppressed", " (+%llu suppressed)", ev->suppressed);
	print_nl();
	if (print_flush(true))
		return -EIO;
	m->seen++;
	return m->count && m->seen >= m->count ? 1 : 0;
}

static int monitor_run(struct snodectl *sc)
{
	struct monitor m = { .sc = sc };
	long timeout_ms = -1;
	struct timespec start, now;
	struct pollfd pfd;
	const char *w;
	int fd, ret;

	while ((w = snodectl_arg_next(sc))) {
		const char *v = snodectl_arg_next(sc);
		uint64_t n;

		if (!tool_matches(w, "count") && !tool_matches(w, "timeout"))
			return snodectl_usage("monitor", "monitor: unknown argument \"%s\"",
					      w);
		if (!v)
			return snodectl_usage("monitor", "monitor: %s needs a value",
					      w);
		if (tool_parse_u64(v, 1000000000, &n))
			return snodectl_usage("monitor", "monitor: %s: bad value \"%s\"",
					      w, v);
		if (tool_matches(w, "count"))
			m.count = n;
		else
			timeout_ms = n * 1000;
	}

	/* each event is its own document; nothing is printed at the end */
	print_flush(false);
	fd = snode_event_subscribe(sc->ctx, monitor_event, &m,
				   sizeof(struct snode_event));
	if (fd < 0)
		return snodectl_nl_err("monitor", fd);
	/* as udevadm monitor: say when events will be seen (scripts wait) */
	fprintf(stderr, "snodectl: monitoring snode events\n");

	clock_gettime(CLOCK_MONOTONIC, &start);
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		int wait = -1;

		if (timeout_ms >= 0) {
			long spent;

			clock_gettime(CLOCK_MONOTONIC, &now);
			spent = (now.tv_sec - start.tv_sec) * 1000 +
				(now.tv_nsec - start.tv_nsec) / 1000000;
			if (spent >= timeout_ms)
				break;
			wait = timeout_ms - spent;
		}
		ret = poll(&pfd, 1, wait);
		if (ret < 0 && errno == EINTR)
			continue;
		if (ret < 0)
			return snodectl_err("monitor: poll: %s", strerror(errno));
		if (!ret)
			continue;
		ret = snode_event_process(sc->ctx);
		if (ret == 1 && m.count && m.seen >= m.count)
			return 0;
		if (ret == -ENOBUFS) {
			fprintf(stderr, "snodectl: monitor: events lost, the receive buffer overran\n");
			continue;
		}
		if (ret < 0)
			return snodectl_nl_err("monitor", ret);
	}
	if (m.count && m.seen < m.count)
		return snodectl_err("monitor: timed out after %ld of %ld events",
				    m.seen, m.count);
	return 0;
}

static const struct snodectl_cmd monitor_cmds[] = {
	{ "events", monitor_run },
	{ NULL, NULL }
};

int cmd_monitor(struct snodectl *sc)
{
	/* "snodectl monitor [count N]": no verb, straight to the options */
	if (sc->argc > 0 && !tool_matches(sc->argv[0], "events") &&
	    !tool_matches(sc->argv[0], "help"))
		return monitor_run(sc);
	return snodectl_dispatch(sc, "monitor", monitor_cmds, monitor_help);
}
