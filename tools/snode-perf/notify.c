// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-perf notify: how long a doorbell takes to wake a sleeping receiver.
 *
 * A receiver thread sleeps in poll(2) on an endpoint; the sender rings it
 * (a zero-length message through the fabric, to this node) once the
 * receiver has surely gone to sleep, and the receiver timestamps its
 * wake-up. Side by side in the same run: the same wake-up through an
 * eventfd, the kernel's own floor for waking a sleeping thread, and how
 * long the sender's ring took to return (the destination NIC had written
 * the doorbell by then).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "perf.h"

#define NOTIFY_GAP_US	2000	/* let the receiver fall asleep */

struct notify_run {
	struct snode_ep *ep;	/* NULL: the eventfd */
	int efd;
	unsigned int iters;
	double *t_ring;		/* when ring i started */
	double *wake;		/* ring-to-wake of ring i, us */
	int err;
};

struct notify_report {
	uint32_t node;
	struct perf_lat doorbell, ring_return, eventfd;
};

void perf_notify_help(FILE *f)
{
	fprintf(f, "Usage: snode-perf notify [ iters N ]  (default 2000)\n");
}

static void *notify_receiver(void *arg)
{
	struct notify_run *r = arg;
	struct pollfd pfd = { .events = POLLIN };
	struct snode_msg m;
	unsigned int i;
	uint64_t v;
	int n;

	pfd.fd = r->ep ? snode_ep_get_fd(r->ep) : r->efd;
	for (i = 0; i < r->iters; i++) {
		if (poll(&pfd, 1, 5000) != 1) {
			r->err = -ETIMEDOUT;
			return NULL;
		}
		r->wake[i] = perf_now();
		if (r->ep) {
			n = snode_ep_recv(r->ep, &m, 1, 0);
			if (n != 1 || m.seq != i + 1) {
				r->err = n < 0 ? n : -EPROTO;
				return NULL;
			}
		} else if (read(r->efd, &v, sizeof(v)) != sizeof(v)) {
			r->err = -errno;
			return NULL;
		}
		r->wake[i] = (r->wake[i] - r->t_ring[i]) * 1e6;
	}
	return NULL;
}

/* Ring @r->iters times; @ret_us gets how long each ring took to return. */
static int notify_run(struct perf *p, struct notify_run *r,
		      const struct snode_ep_addr *dst, double *ret_us)
{
	uint64_t one = 1;
	pthread_t t;
	unsigned int i;
	int ret = 0;

	if (pthread_create(&t, NULL, notify_receiver, r))
		return -EAGAIN;
	for (i = 0; i < r->iters && !r->err; i++) {
		usleep(NOTIFY_GAP_US);
		r->t_ring[i] = perf_now();
		if (r->ep)
			ret = snode_msg_send(p->dev, dst, NULL, 0, 0, 0);
		else if (write(r->efd, &one, sizeof(one)) != sizeof(one))
			ret = -errno;
		if (ret < 0)
			break;
		if (ret_us)
			ret_us[i] = (perf_now() - r->t_ring[i]) * 1e6;
	}
	if (ret < 0)
		r->err = ret;
	pthread_join(t, NULL);
	return r->err;
}

static void notify_json(const void *arg)
{
	const struct notify_report *r = arg;

	print_str("benchmark", NULL, "notify");
	print_u64("node", NULL, r->node);
	perf_lat_json("doorbell_wake", &r->doorbell);
	perf_lat_json("ring_return", &r->ring_return);
	perf_lat_json("eventfd_wake", &r->eventfd);
	print_double("ratio", NULL, r->doorbell.median / r->eventfd.median);
}

int perf_notify(struct perf *p)
{
	struct notify_report rep = { 0 };
	struct notify_run r = { .efd = -1 };
	struct snode_ep_addr dst;
	double *ret_us;
	const char *w;
	int ret;

	r.iters = 2000;
	while ((w = perf_arg_next(p))) {
		const char *v = perf_arg_next(p);

		if (!v || !tool_matches(w, "iters"))
			return perf_usage(perf_notify_help);
		r.iters = strtoul(v, NULL, 0);
		if (!r.iters)
			return perf_usage(perf_notify_help);
	}
	ret = perf_dev_open(p);
	if (ret)
		return ret;
	r.t_ring = calloc(r.iters, sizeof(double));
	r.wake = calloc(r.iters, sizeof(double));
	ret_us = calloc(r.iters, sizeof(double));
	if (!r.t_ring || !r.wake || !ret_us)
		return perf_err("out of memory");

	ret = snode_ep_new(p->dev, SNODE_EP_ANY, 0, SNODE_EP_RANDOM_KEY, 0, &r.ep);
	if (ret < 0)
		return perf_lib_err("endpoint", ret);
	snode_ep_get_addr(r.ep, &dst);
	rep.node = dst.node;
	ret = notify_run(p, &r, &dst, ret_us);
	snode_ep_free(r.ep);
	if (ret < 0)
		return perf_lib_err("doorbell", ret);
	perf_lat_compute(r.wake, r.iters, &rep.doorbell);
	perf_lat_compute(ret_us, r.iters, &rep.ring_return);

	r.ep = NULL;
	/* one read per ring, even if the receiver is late for one */
	r.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC | EFD_SEMAPHORE);
	if (r.efd < 0)
		return perf_err("eventfd: %s", strerror(errno));
	ret = notify_run(p, &r, NULL, NULL);
	close(r.efd);
	if (ret < 0)
		return perf_lib_err("eventfd", ret);
	perf_lat_compute(r.wake, r.iters, &rep.eventfd);

	if (!p->json) {
		printf("snode-perf notify: node %u rings itself through the fabric, %u times\n",
		       rep.node, r.iters);
		printf("%-28s %10s %10s %10s %10s\n", "microseconds", "min",
		       "median", "p99", "mean");
		perf_lat_print("doorbell ring-to-wake", &rep.doorbell);
		perf_lat_print("  ring returned", &rep.ring_return);
		perf_lat_print("eventfd ring-to-wake", &rep.eventfd);
	}
	free(r.t_ring);
	free(r.wake);
	free(ret_us);
	return perf_json_report(p, notify_json, &rep);
}
