// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-perf events: how long a link fault takes to reach a listener of the
 * snode netlink family, and how long reading the fabric's state takes.
 *
 * The fault is injected through the NIC itself (admin down and up of its
 * last port: the fabric manager takes the cable down and tells both ends),
 * so that one clock times the whole path: the request, the fabric manager,
 * the device's LINK_STATE event, the driver, the multicast and libsnode.
 * Injections are spaced by more than the driver's rate-limit interval (one
 * notification per link per second), which would otherwise hold them back.
 * The same path seen from the host, from "snode-fm ctl link down" to a line
 * of "snodectl monitor", is measured by selftests/vm/link-bench.sh.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"

#define EVENTS_DEFAULT_COUNT	20
#define EVENTS_SPACING		1.1	/* s, above the rate-limit interval */
#define EVENTS_TIMEOUT		10.0	/* s for one notification */
#define DUMPS			20

struct events_wait {
	unsigned int dev_index;
	unsigned int port;
	unsigned int oper;	/* wanted SNODE_LINK_OPER_STATE_* */
	bool seen;
};

struct events_report {
	unsigned int nodes;
	unsigned int links;
	struct perf_lat event;
	struct perf_lat node_dump;
	struct perf_lat link_dump;
};

static int events_cb(struct snode_ctx *ctx, const struct snode_event *ev,
		     void *arg)
{
	struct events_wait *w = arg;

	if (ev->type == SNODE_NL_CMD_LINK_STATE_NTF &&
	    ev->dev_index == w->dev_index && ev->link.port == w->port &&
	    ev->link.oper_state == w->oper)
		w->seen = true;
	return 0;
}

/* Wait for the notification @w describes; 0 once seen. */
static int events_wait(struct perf *p, int fd, struct events_wait *w)
{
	double deadline = perf_now() + EVENTS_TIMEOUT;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int ret;

	while (!w->seen) {
		int left = (deadline - perf_now()) * 1000;

		if (left <= 0)
			return -ETIMEDOUT;
		ret = poll(&pfd, 1, left);
		if (ret < 0 && errno != EINTR)
			return -errno;
		ret = snode_event_process(p->ctx);
		if (ret < 0 && ret != -ENOBUFS)
			return ret;
	}
	return 0;
}

static void events_json(const void *arg)
{
	const struct events_report *r = arg;

	print_u64("nodes", NULL, r->nodes);
	print_u64("links", NULL, r->links);
	perf_lat_json("event_latency", &r->event);
	perf_lat_json("node_dump", &r->node_dump);
	perf_lat_json("link_dump", &r->link_dump);
}

void perf_events_help(FILE *f)
{
	fprintf(f,
		"Usage: snode-perf events [ count N ]  (default %d)\n"
		"Times a link fault injected through the fabric to its netlink\n"
		"notification, and the node and link dumps.\n",
		EVENTS_DEFAULT_COUNT);
}

int perf_events(struct perf *p)
{
	unsigned int count = EVENTS_DEFAULT_COUNT, i;
	struct events_wait w = { 0 };
	struct events_report r = { 0 };
	struct snode_dev_status st;
	struct snode_node_iter *nodes;
	struct snode_link_iter *links;
	double *lat, last = 0;
	const char *a;
	int fd, ret;

	while ((a = perf_arg_next(p))) {
		if (tool_matches(a, "count") && (a = perf_arg_next(p)))
			count = strtoul(a, NULL, 0);
		else
			return perf_usage(perf_events_help);
	}
	if (!count)
		return perf_usage(perf_events_help);
	ret = perf_dev_open(p);
	if (ret)
		return ret;
	ret = snode_dev_get_status(p->dev, &st, sizeof(st));
	if (ret < 0)
		return perf_lib_err("snode_dev_get_status", ret);
	lat = calloc(2 * count + DUMPS, sizeof(*lat));
	if (!lat)
		return perf_err("out of memory");

	fd = snode_event_subscribe(p->ctx, events_cb, &w,
				   sizeof(struct snode_event));
	if (fd < 0) {
		free(lat);
		return perf_lib_err("snode_event_subscribe", fd);
	}
	w.dev_index = snode_dev_get_index(p->dev);
	w.port = st.nports - 1;

	/* down, up, down, ...: every injection is one notification */
	for (i = 0; i < 2 * count; i++) {
		double t0, wait = last + EVENTS_SPACING - perf_now();

		if (wait > 0)
			usleep(wait * 1e6);
		w.oper = i % 2 ? SNODE_LINK_OPER_STATE_UP :
				 SNODE_LINK_OPER_STATE_DOWN;
		w.seen = false;
		t0 = perf_now();
		ret = snode_link_set_state(p->ctx, w.dev_index, w.port, i % 2);
		if (!ret)
			ret = events_wait(p, fd, &w);
		last = perf_now();
		if (ret < 0) {
			snode_link_set_state(p->ctx, w.dev_index, w.port, 1);
			free(lat);
			return perf_lib_err("link state notification", ret);
		}
		lat[i] = (last - t0) * 1e6;
	}
	perf_lat_compute(lat, 2 * count, &r.event);

	for (i = 0; i < DUMPS; i++) {
		double t0 = perf_now();

		ret = snode_node_list(p->ctx, -1, sizeof(struct snode_node_info),
				      &nodes);
		lat[i] = (perf_now() - t0) * 1e6;
		if (ret < 0)
			break;
		snode_node_iter_free(nodes);
		r.nodes = ret;
	}
	if (ret >= 0)
		perf_lat_compute(lat, DUMPS, &r.node_dump);
	for (i = 0; ret >= 0 && i < DUMPS; i++) {
		double t0 = perf_now();

		ret = snode_link_list(p->ctx, -1, sizeof(struct snode_link_info),
				      &links);
		lat[i] = (perf_now() - t0) * 1e6;
		if (ret >= 0) {
			snode_link_iter_free(links);
			r.links = ret;
		}
	}
	if (ret >= 0)
		perf_lat_compute(lat, DUMPS, &r.link_dump);
	free(lat);
	if (ret < 0)
		return perf_lib_err("dump", ret);

	if (!p->json) {
		printf("snode netlink family, %s port %u, %u nodes, %u links (us)\n",
		       snode_dev_get_name(p->dev), w.port, r.nodes, r.links);
		printf("%-28s %10s %10s %10s %10s\n", "", "min", "median",
		       "p99", "mean");
		perf_lat_print("link fault -> notification", &r.event);
		perf_lat_print("node dump (all nodes)", &r.node_dump);
		perf_lat_print("link dump (all links)", &r.link_dump);
	}
	return perf_json_report(p, events_json, &r);
}
