// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-perf - benchmarks of the snode stack, run inside a node.
 *
 * snode-perf [ -j ] [ -o FILE ] [ -d DEV ] BENCHMARK [ ARGS ]: text on
 * stdout, or JSON with -j, and JSON into FILE with -o. Each benchmark lives in
 * its own file and registers in perf_cmds[]; a benchmark measures the
 * snode path and a local baseline side by side in one run and reports
 * both and their ratio, and never fails on a timing.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf.h"

static const struct perf_cmd perf_cmds[] = {
	{ "mem", "global memory: remote window vs local memory", perf_mem },
	{ "ping", "message round trip between two nodes, and vs the raw doorbell", perf_ping },
	{ "notify", "ring-to-wake latency of a sleeping receiver", perf_notify },
	{ "dma", "DMA bandwidth vs CPU memcpy through the window", perf_dma },
	{ "events", "link fault to netlink notification; node and link dumps", perf_events },
	{ "allreduce", "sum over N nodes with windows and doorbells", perf_allreduce },
	{ NULL, NULL, NULL }
};

static void usage(void)
{
	const struct perf_cmd *c;

	fprintf(stderr,
		"Usage: snode-perf [ -j ] [ -o FILE ] [ -d DEV ] BENCHMARK [ ARGS ]\n"
		"       snode-perf BENCHMARK help\n"
		"BENCHMARK :=\n");
	for (c = perf_cmds; c->name; c++)
		fprintf(stderr, "    %-8s %s\n", c->name, c->summary);
}

double perf_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int perf_err(const char *fmt, ...)
{
	va_list ap;

	fputs("snode-perf: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int perf_lib_err(const char *what, int err)
{
	return perf_err("%s: %s", what, strerror(-err));
}

/* A byte count with an optional K, M or G suffix, a multiple of 4 KiB. */
int perf_parse_size(const char *s, uint64_t *out)
{
	char *end;
	uint64_t v = strtoull(s, &end, 0);

	switch (*end) {
	case 'G': v <<= 10; /* fall through */
	case 'M': v <<= 10; /* fall through */
	case 'K': v <<= 10; end++; break;
	}
	if (*end || !v || v % 4096)
		return -EINVAL;
	*out = v;
	return 0;
}

const char *perf_arg_next(struct perf *p)
{
	if (p->argc <= 0)
		return NULL;
	p->argc--;
	return *p->argv++;
}

int main(int argc, char **argv)
{
	const char *devname = NULL, *name;
	const struct perf_cmd *c;
	struct perf p = { 0 };
	int opt, ret;

	while ((opt = getopt(argc, argv, "+jo:d:h")) != -1) {
		switch (opt) {
		case 'j':
			p.json = true;
			break;
		case 'o':
			p.json_file = optarg;
			break;
		case 'd':
			devname = optarg;
			break;
		default:
			usage();
			return opt == 'h' ? 0 : 2;
		}
	}
	p.argc = argc - optind;
	p.argv = argv + optind;
	name = perf_arg_next(&p);
	if (!name) {
		usage();
		return 2;
	}
	for (c = perf_cmds; c->name; c++)
		if (!strcmp(c->name, name))
			break;
	if (!c->name) {
		usage();
		return perf_err("unknown benchmark \"%s\"", name);
	}

	ret = snode_new(&p.ctx);
	if (ret < 0)
		return perf_lib_err("snode_new", ret);
	p.dev = devname ? snode_dev_get_by_name(p.ctx, devname) :
			  snode_dev_get_first(p.ctx);
	if (!p.dev) {
		snode_unref(p.ctx);
		return perf_err("no snode device %s(is snode.ko loaded?)",
				devname ? devname : "");
	}
	ret = c->fn(&p);
	snode_unref(p.ctx);
	return ret;
}
