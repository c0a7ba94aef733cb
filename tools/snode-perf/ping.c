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
 * node NODE and, in the same run, the raw doorbell round trip the driver's
 * path is measured against: a third pass of the same round trips with the
 * driver's tracepoints recording (trace.c), each timed from the doorbell
 * (snode_msg_submit) to the first sign of the echo in the ring (the
 * endpoint interrupt's snode_msg_arrive, or the snode_msg_recv of a read
 * that got there first), and its acknowledgement to snode_msg_send.
 * Documentation/decisions/0025-raw-round-trip-from-tracepoints.md.
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
	struct perf_lat raw_rtt, raw_ack;	/* echo, from the trace */
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
	perf_lat_json("raw_rtt", &r->raw_rtt);
	perf_lat_json("raw_ack", &r->raw_ack);
	print_double("ratio_poll", NULL, r->echo_poll.median / r->raw_rtt.median);
	print_double("ratio_sleep", NULL, r->echo_sleep.median / r->raw_rtt.median);
}

/* What one round trip of the traced pass saw, in trace time (ns). */
struct ping_sample {
	uint64_t submit, ack, echo;	/* 0: not seen */
};

/*
 * Pair the events of the traced pass: every snode_msg_submit starts a
 * round trip; the first snode_msg_send after it is its acknowledgement,
 * the first snode_msg_arrive or snode_msg_recv its echo. The filters let
 * through only this endpoint's events, and a round trip ends before the
 * next one starts. The number of complete round trips, the last @max.
 */
static unsigned int ping_pair(char *trace, struct ping_sample *s,
			      unsigned int max)
{
	struct ping_sample cur = { 0 };
	unsigned int total = 0;
	char *line, *save = NULL;
	char event[64];
	uint64_t ns;

	for (line = strtok_r(trace, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (perf_trace_parse(line, &ns, event, sizeof(event)))
			continue;
		if (!strcmp(event, "snode_msg_submit")) {
			cur = (struct ping_sample){ .submit = ns };
		} else if (!cur.submit) {
			continue;
		} else if (!strcmp(event, "snode_msg_send")) {
			if (!cur.ack)
				cur.ack = ns;
		} else if (!cur.echo && (!strcmp(event, "snode_msg_arrive") ||
					 !strcmp(event, "snode_msg_recv"))) {
			cur.echo = ns;
		}
		if (cur.ack && cur.echo) {
			s[total++ % max] = cur;
			cur.submit = 0;
		}
	}
	/* s[] is a ring: the order does not matter to the statistics */
	return total < max ? total : max;
}

/*
 * The raw round trip: the loop again, endpoint @ep to @dst, with the
 * driver's message tracepoints recording in a private tracefs instance.
 * Needs root and tracefs; a negative errno without them.
 */
static int ping_raw(struct perf *p, struct snode_ep *ep,
		    const struct snode_ep_addr *dst, const struct ping_args *a,
		    double *rtt, struct ping_report *r)
{
	unsigned int rounds = a->iters + PING_WARMUP, n, i;
	struct perf_trace *t = NULL;
	struct ping_sample *s;
	struct snode_ep_addr me;
	char send[128], recv[64];
	double *ack;
	char *trace;
	int ret, dev = snode_dev_get_index(p->dev);

	snode_ep_get_addr(ep, &me);
	snprintf(send, sizeof(send),
		 "dev == %d && node == %u && ep == %u && src_ep == %u",
		 dev, dst->node, dst->id, me.id);
	snprintf(recv, sizeof(recv), "dev == %d && ep == %u", dev, me.id);
	/* four events a round trip, under 64 bytes each in the ring buffer */
	ret = perf_trace_open(&t, rounds * 4 * 64 / 1024 * 2 + 1024);
	if (!ret)
		ret = perf_trace_event(t, "snode_msg_submit", send);
	if (!ret)
		ret = perf_trace_event(t, "snode_msg_send", send);
	if (!ret)
		ret = perf_trace_event(t, "snode_msg_arrive", recv);
	if (!ret)
		ret = perf_trace_event(t, "snode_msg_recv", recv);
	if (!ret)
		ret = perf_trace_on(t, true);
	if (!ret)
		ret = ping_loop(ep, dst, a, false, rtt, 1);
	if (ret) {
		perf_trace_close(t);
		return ret;
	}
	perf_trace_on(t, false);
	trace = perf_trace_read(t);
	perf_trace_close(t);
	if (!trace)
		return -errno;
	s = calloc(a->iters, sizeof(*s));
	ack = calloc(a->iters, sizeof(*ack));
	if (!s || !ack) {
		ret = -ENOMEM;
		goto out;
	}
	n = ping_pair(trace, s, a->iters);
	if (n < a->iters)
		fprintf(stderr, "snode-perf: the trace holds %u complete round trips of %u\n",
			n, a->iters);
	for (i = 0; i < n; i++) {
		rtt[i] = (s[i].echo - s[i].submit) / 1e3;
		ack[i] = (s[i].ack - s[i].submit) / 1e3;
	}
	perf_lat_compute(rtt, n, &r->raw_rtt);
	perf_lat_compute(ack, n, &r->raw_ack);
	r->have_raw = n > 0;
	ret = n ? 0 : -ENODATA;
out:
	free(ack);
	free(s);
	free(trace);
	return ret;
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
		if (tool_matches(w, "iters"))
			a->iters = strtoul(v, NULL, 0);
		else if (tool_matches(w, "size"))
			a->size = strtoul(v, NULL, 0);
		else if (tool_matches(w, "mode") && (!strcmp(v, "poll") ||
						 !strcmp(v, "sleep")))
			a->sleep = !strcmp(v, "sleep");
		else
			return perf_usage(perf_ping_help);
	}
	if (!a->iters || a->size < sizeof(unsigned int) ||
	    a->size > SNODE_MSG_MAX_LEN)
		return tool_usage_err("ping: iters must be > 0 and size 4 to %u",
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
	if (!ret)
		ret = perf_dev_open(p);
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
		if (!ret) {
			int err = ping_raw(p, ep, &dst, &a, rtt, &r);

			if (err < 0)
				fprintf(stderr, "snode-perf: no raw baseline: %s (needs root and tracefs with snode's events)\n",
					strerror(-err));
		}
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
				perf_lat_print("raw doorbell round trip", &r.raw_rtt);
				perf_lat_print("raw doorbell ack", &r.raw_ack);
				printf("driver/raw (median): poll %.2fx, sleep %.2fx\n",
				       r.echo_poll.median / r.raw_rtt.median,
				       r.echo_sleep.median / r.raw_rtt.median);
			}
		}
	}
	return perf_json_report(p, ping_json, &r);
}
