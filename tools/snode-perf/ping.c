// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-perf ping: message round trips.
 *
 * "ping client NODE" against "ping server" on node NODE times round trips
 * between two processes on two nodes, reported like perftest as half round
 * trips (one-way latency) and whole ones. The receivers busy-poll their
 * endpoints (mode poll, the default, as perftest polls its completion
 * queue) or sleep in poll(2) until the endpoint's interrupt wakes them
 * (mode sleep).
 *
 * "ping echo NODE" times round trips to the echo endpoint 0 of simulated
 * node NODE and, in the same run, the same round trip on the NIC's
 * registers alone (debugfs msg_raw_rtt): the raw doorbell round trip the
 * driver's path is measured against.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "perf.h"

#define PING_SERVER_EP	40
#define PING_CLIENT_EP	41
#define PING_KEY	0x70696e6700000000ULL	/* "ping" */
#define PING_WARMUP	100
#define PING_IDLE_MS	60000	/* a server gives up after this long */

struct ping_args {
	const char *role;
	uint32_t node;
	unsigned int iters;
	unsigned int size;
	bool sleep;
};

struct ping_report {
	const struct ping_args *a;
	uint32_t self;
	struct perf_lat half, rtt;		/* client: poll or sleep */
	struct perf_lat echo_poll, echo_sleep;	/* echo */
	unsigned int raw_n;
	double raw_rtt[3], raw_ack[3];		/* min, median, p99 */
	bool have_raw;
};

void perf_ping_help(FILE *f)
{
	fprintf(f,
		"Usage: snode-perf ping server [ mode MODE ]\n"
		"       snode-perf ping client NODE [ iters N ] [ size BYTES ] [ mode MODE ]\n"
		"       snode-perf ping echo SIMNODE [ iters N ] [ size BYTES ]\n"
		"MODE := { poll | sleep }  (default poll; iters 10000, size 8)\n");
}

/* The next message, busy-polling or sleeping; 1, or a negative errno. */
static int ping_recv(struct snode_ep *ep, struct snode_msg *m, bool sleep,
		     int timeout_ms)
{
	double t0 = perf_now();
	int n;

	if (sleep) {
		n = snode_ep_recv(ep, m, 1, timeout_ms);
		return n ? n : -ETIMEDOUT;
	}
	do {
		n = snode_ep_recv(ep, m, 1, 0);
		if (n)
			return n;
	} while ((perf_now() - t0) * 1e3 < timeout_ms);
	return -ETIMEDOUT;
}

static int ping_server(struct perf *p, const struct ping_args *a)
{
	struct snode_ep_addr back;
	struct snode_ep *ep;
	struct snode_msg m;
	unsigned int n = 0;
	int ret;

	ret = snode_ep_new(p->dev, PING_SERVER_EP, 0, 0, PING_KEY | 1, &ep);
	if (ret < 0)
		return perf_lib_err("endpoint", ret);
	printf("ping server: endpoint %u, waiting\n", PING_SERVER_EP);
	fflush(stdout);
	for (;;) {
		ret = ping_recv(ep, &m, a->sleep, PING_IDLE_MS);
		if (ret < 0)
			break;
		if (!m.len)		/* the client's doorbell: done */
			break;
		back.node = m.src_node;
		back.id = m.src_ep;
		back.key = PING_KEY | 2;
		ret = snode_ep_send(ep, &back, m.payload, m.len, 0, 0);
		if (ret < 0)
			break;
		n++;
	}
	snode_ep_free(ep);
	if (ret < 0)
		return perf_lib_err("ping server", ret);
	printf("ping server: %u messages echoed\n", n);
	return 0;
}

/* Round trips through @ep to @dst; @rtt gets one sample (us) per iteration. */
static int ping_loop(struct snode_ep *ep, const struct snode_ep_addr *dst,
		     const struct ping_args *a, bool sleep, double *rtt,
		     unsigned int first_tries)
{
	uint8_t payload[SNODE_MSG_MAX_LEN] = { 0 };
	unsigned int i, tries;
	struct snode_msg m;
	double t0;
	int ret;

	for (i = 0; i < a->iters + PING_WARMUP; i++) {
		memcpy(payload, &i, sizeof(i));
		t0 = perf_now();
		/* the first message waits for the peer to come up */
		for (tries = i ? 1 : first_tries; ; usleep(100000)) {
			ret = snode_ep_send(ep, dst, payload, a->size, 0, 0);
			if (ret != -ENXIO || --tries == 0)
				break;
			t0 = perf_now();
		}
		if (ret < 0)
			return ret;
		ret = ping_recv(ep, &m, sleep, 5000);
		if (ret < 0)
			return ret;
		if (m.len != a->size || memcmp(m.payload, &i, sizeof(i)))
			return -EPROTO;
		if (i >= PING_WARMUP)
			rtt[i - PING_WARMUP] = (perf_now() - t0) * 1e6;
	}
	return 0;
}

static void half_of(const struct perf_lat *rtt, struct perf_lat *half)
{
	half->n = rtt->n;
	half->min = rtt->min / 2;
	half->median = rtt->median / 2;
	half->p99 = rtt->p99 / 2;
	half->mean = rtt->mean / 2;
}

static void ping_json(const void *arg)
{
	const struct ping_report *r = arg;
	bool echo = !strcmp(r->a->role, "echo");

	print_str("benchmark", NULL, "ping");
	print_str("mode", NULL, echo ? "echo" : r->a->sleep ? "sleep" : "poll");
	print_u64("node", NULL, r->self);
	print_u64("peer", NULL, r->a->node);
	print_u64("size", NULL, r->a->size);
	if (!echo) {
		perf_lat_json("half_rtt", &r->half);
		perf_lat_json("rtt", &r->rtt);
		return;
	}
	perf_lat_json("driver_poll_rtt", &r->echo_poll);
	perf_lat_json("driver_sleep_rtt", &r->echo_sleep);
	if (!r->have_raw)
		return;
	print_open_object("raw_rtt");
	print_u64("n", NULL, r->raw_n);
	print_double("min_us", NULL, r->raw_rtt[0]);
	print_double("median_us", NULL, r->raw_rtt[1]);
	print_double("p99_us", NULL, r->raw_rtt[2]);
	print_close_object();
	print_open_object("raw_ack");
	print_double("min_us", NULL, r->raw_ack[0]);
	print_double("median_us", NULL, r->raw_ack[1]);
	print_double("p99_us", NULL, r->raw_ack[2]);
	print_close_object();
	print_double("ratio_poll", NULL, r->echo_poll.median / r->raw_rtt[1]);
	print_double("ratio_sleep", NULL, r->echo_sleep.median / r->raw_rtt[1]);
}

/* The raw round trip, timed by the driver on the registers (debugfs). */
static int ping_raw(struct perf *p, struct ping_report *r)
{
	unsigned long long a0, a1, a2, t0, t1, t2;
	char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/kernel/debug/snode/%s/msg_raw_rtt",
		 snode_dev_get_name(p->dev));
	f = fopen(path, "w");
	if (!f)
		return -errno;
	fprintf(f, "%u %u\n", r->a->node, r->a->iters);
	if (fclose(f))
		return -errno;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	if (fscanf(f, "samples %u ack_ns %llu %llu %llu rtt_ns %llu %llu %llu",
		   &r->raw_n, &a0, &a1, &a2, &t0, &t1, &t2) != 7) {
		fclose(f);
		return -EPROTO;
	}
	fclose(f);
	r->raw_ack[0] = a0 / 1e3;
	r->raw_ack[1] = a1 / 1e3;
	r->raw_ack[2] = a2 / 1e3;
	r->raw_rtt[0] = t0 / 1e3;
	r->raw_rtt[1] = t1 / 1e3;
	r->raw_rtt[2] = t2 / 1e3;
	r->have_raw = true;
	return 0;
}

static int ping_parse(struct perf *p, struct ping_args *a)
{
	const char *w, *v;

	a->iters = 10000;
	a->size = 8;
	a->role = perf_arg_next(p);
	if (!a->role || !strcmp(a->role, "help"))
		return perf_usage(perf_ping_help);
	if (strcmp(a->role, "server")) {
		if (strcmp(a->role, "client") && strcmp(a->role, "echo"))
			return perf_usage(perf_ping_help);
		v = perf_arg_next(p);
		if (!v)
			return perf_usage(perf_ping_help);
		a->node = strtoul(v, NULL, 0);
	}
	while ((w = perf_arg_next(p))) {
		v = perf_arg_next(p);
		if (!v)
			return perf_usage(perf_ping_help);
		if (!strcmp(w, "iters"))
			a->iters = strtoul(v, NULL, 0);
		else if (!strcmp(w, "size"))
			a->size = strtoul(v, NULL, 0);
		else if (!strcmp(w, "mode") && (!strcmp(v, "poll") ||
						 !strcmp(v, "sleep")))
			a->sleep = !strcmp(v, "sleep");
		else
			return perf_usage(perf_ping_help);
	}
	if (!a->iters || a->size < sizeof(unsigned int) ||
	    a->size > SNODE_MSG_MAX_LEN)
		return perf_err("iters must be > 0 and size 4 to %u",
				SNODE_MSG_MAX_LEN);
	return 0;
}

int perf_ping(struct perf *p)
{
	struct ping_args a = { 0 };
	struct ping_report r = { .a = &a };
	struct snode_ep_addr me, dst;
	struct snode_ep *ep;
	struct snode_info info;
	double *rtt;
	int ret;

	ret = ping_parse(p, &a);
	if (ret)
		return ret;
	if (!strcmp(a.role, "server"))
		return ping_server(p, &a);
	ret = snode_dev_get_info(p->dev, &info, sizeof(info));
	if (ret < 0)
		return perf_lib_err("info", ret);
	r.self = info.out_node_id;
	rtt = calloc(a.iters, sizeof(*rtt));
	if (!rtt)
		return perf_err("out of memory");

	if (!strcmp(a.role, "client")) {
		ret = snode_ep_new(p->dev, PING_CLIENT_EP, 0, 0, PING_KEY | 2, &ep);
		if (ret < 0)
			return perf_lib_err("endpoint", ret);
		dst = (struct snode_ep_addr){ a.node, PING_SERVER_EP, PING_KEY | 1 };
		ret = ping_loop(ep, &dst, &a, a.sleep, rtt, 600);
		if (ret == 0) {
			perf_lat_compute(rtt, a.iters, &r.rtt);
			half_of(&r.rtt, &r.half);
		}
		/* a doorbell tells the server to stop */
		snode_ep_send(ep, &dst, NULL, 0, 0, 0);
	} else {
		ret = snode_ep_new(p->dev, SNODE_EP_ANY, 0, SNODE_EP_RANDOM_KEY,
				   0, &ep);
		if (ret < 0)
			return perf_lib_err("endpoint", ret);
		/* the echo endpoint answers with the key the sender used */
		snode_ep_get_addr(ep, &me);
		dst = (struct snode_ep_addr){ a.node, 0, me.key };
		ret = ping_loop(ep, &dst, &a, false, rtt, 1);
		if (!ret) {
			perf_lat_compute(rtt, a.iters, &r.echo_poll);
			ret = ping_loop(ep, &dst, &a, true, rtt, 1);
		}
		if (!ret)
			perf_lat_compute(rtt, a.iters, &r.echo_sleep);
		if (!ret && ping_raw(p, &r) < 0)
			fprintf(stderr, "snode-perf: no raw baseline (needs root and debugfs)\n");
	}
	snode_ep_free(ep);
	free(rtt);
	if (ret < 0)
		return perf_lib_err(a.role, ret);

	if (!p->json) {
		printf("snode-perf ping %s: node %u -> node %u, %u bytes, %u round trips\n",
		       a.role, r.self, a.node, a.size, a.iters);
		printf("%-28s %10s %10s %10s %10s\n", "microseconds", "min",
		       "median", "p99", "mean");
		if (!strcmp(a.role, "client")) {
			perf_lat_print(a.sleep ? "half round trip (sleep)" :
						 "half round trip (poll)", &r.half);
			perf_lat_print("round trip", &r.rtt);
		} else {
			perf_lat_print("driver round trip (poll)", &r.echo_poll);
			perf_lat_print("driver round trip (sleep)", &r.echo_sleep);
			if (r.have_raw) {
				printf("%-28s %10.1f %10.1f %10.1f\n",
				       "raw doorbell round trip", r.raw_rtt[0],
				       r.raw_rtt[1], r.raw_rtt[2]);
				printf("driver/raw (median): poll %.2fx, sleep %.2fx\n",
				       r.echo_poll.median / r.raw_rtt[1],
				       r.echo_sleep.median / r.raw_rtt[1]);
			}
		}
	}
	return perf_json_report(p, ping_json, &r);
}
