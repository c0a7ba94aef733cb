// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-perf - benchmarks of the snode stack, run inside a node.
 *
 * snode-perf [ OPTIONS ] BENCHMARK [ ARGS ]: text on stdout, or JSON with
 * -j, and JSON into FILE with -o, through the tools' one print path
 * (tools/lib). Each benchmark lives in its own file and registers in
 * perf_cmds[]; a benchmark measures the snode path and a local baseline
 * side by side in one run and reports both and their ratio, and never
 * fails on a timing; link, a check rather than a benchmark, fails on a
 * link too far below its stored baseline. Help needs no device.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "perf.h"

static const struct perf_cmd perf_cmds[] = {
	{ "allreduce", "libsnode's allreduce over N nodes vs memcpy",
	  perf_allreduce, perf_allreduce_help },
	{ "alltoall", "libsnode's all-to-all over N nodes vs memcpy",
	  perf_alltoall, perf_alltoall_help },
	{ "barrier", "libsnode's barrier over N nodes",
	  perf_barrier, perf_barrier_help },
	{ "bcast", "libsnode's broadcast over N nodes vs memcpy",
	  perf_bcast, perf_bcast_help },
	{ "dma", "DMA bandwidth vs CPU memcpy through the window",
	  perf_dma, perf_dma_help },
	{ "dump", "node and link dumps of the whole fabric vs a 20 ms target",
	  perf_dump, perf_dump_help },
	{ "events", "link fault to netlink notification; node and link dumps",
	  perf_events, perf_events_help },
	{ "link", "per-link DMA bandwidth vs lanes x speed and a baseline",
	  perf_link, perf_link_help },
	{ "mem", "global memory: remote window vs local memory",
	  perf_mem, perf_mem_help },
	{ "notify", "ring-to-wake latency of a sleeping receiver",
	  perf_notify, perf_notify_help },
	{ "ping", "message round trip between two nodes, and vs the raw doorbell",
	  perf_ping, perf_ping_help },
	{ NULL, NULL, NULL, NULL }
};

static void usage(FILE *f)
{
	const struct perf_cmd *c;

	fprintf(f,
		"Usage: snode-perf [ OPTIONS ] BENCHMARK [ ARGS ]\n"
		"       snode-perf BENCHMARK help\n"
		"OPTIONS := { -j[son] | -p[retty] | -o FILE | -d DEV | -h[elp] | -V[ersion] }\n"
		"  -j  JSON on stdout instead of text    -p  indented JSON\n"
		"  -o  JSON report into FILE as well     -d  the NIC (default: the first)\n"
		"BENCHMARK := (a unique prefix will do)\n");
	for (c = perf_cmds; c->name; c++)
		fprintf(f, "    %-9s %s\n", c->name, c->summary);
}

double perf_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int perf_lib_err(const char *what, int err)
{
	return perf_err("%s: %s", what, strerror(-err));
}

int perf_usage(void (*help)(FILE *f))
{
	help(stderr);
	return TOOL_EXIT_USAGE;
}

/* A byte count with an optional K, M or G suffix, a multiple of 4 KiB. */
int perf_parse_size(const char *s, uint64_t *out)
{
	uint64_t v;

	if (tool_parse_size(s, &v) || !v || v % 4096)
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

int perf_dev_open(struct perf *p)
{
	p->dev = p->devname ? snode_dev_get_by_name(p->ctx, p->devname) :
			      snode_dev_get_first(p->ctx);
	if (p->dev)
		return 0;
	return perf_err("no snode device %s%s(is snode.ko loaded?)",
			p->devname ? p->devname : "", p->devname ? " " : "");
}

static bool perf_is_help(const char *w)
{
	return tool_matches(w, "help") || !strcmp(w, "-h") ||
	       !strcmp(w, "--help") || !strcmp(w, "-help");
}

enum { OPT_DEV, OPT_HELP, OPT_JSON, OPT_OUT, OPT_PRETTY, OPT_VERSION };

static const struct tool_opt perf_opts[] = {
	{ "-Version", OPT_VERSION, false, false },
	{ "-d", OPT_DEV, true, false },
	{ "-help", OPT_HELP, false, false },
	{ "-json", OPT_JSON, false, false },
	{ "-o", OPT_OUT, true, false },
	{ "-pretty", OPT_PRETTY, false, false },
	{ "-version", OPT_VERSION, false, false },
	{ NULL, 0, false, false }
};

int main(int argc, char **argv)
{
	const char *name, *val = NULL;
	struct perf p = { 0 };
	int opt, i, ret;

	tool_set_name("snode-perf");
	argc--;
	argv++;
	while ((opt = tool_next_opt(&argc, &argv, perf_opts, &val)) != -1) {
		switch (opt) {
		case OPT_VERSION:
			if (argc > 0)
				return tool_usage_err("-V takes no argument (\"%s\")",
						      argv[0]);
			printf("snode-perf %s\n", SNODE_VERSION);
			return 0;
		case OPT_HELP:
			usage(stdout);
			return 0;
		case OPT_JSON:
			p.json = true;
			break;
		case OPT_PRETTY:
			p.pretty = true;
			break;
		case OPT_OUT:
			p.json_file = val;
			break;
		case OPT_DEV:
			p.devname = val;
			break;
		default:
			usage(stderr);
			return TOOL_EXIT_USAGE;
		}
	}
	p.argc = argc;
	p.argv = argv;
	name = perf_arg_next(&p);
	if (!name) {
		usage(stderr);
		return TOOL_EXIT_USAGE;
	}
	if (!strcmp(name, "help")) {
		usage(stdout);
		return 0;
	}
	/* as snodectl: a prefix of several is the first in table order */
	i = tool_lookup_first(name, perf_cmds, sizeof(perf_cmds[0]));
	if (i < 0)
		return tool_usage_err("unknown benchmark \"%s\", try \"snode-perf help\"",
				      name);
	/* "snode-perf mem help": no device needed to read the usage */
	if (p.argc > 0 && perf_is_help(p.argv[0])) {
		perf_cmds[i].help(stdout);
		return 0;
	}

	ret = snode_new(&p.ctx);
	if (ret < 0)
		return perf_lib_err("snode_new", ret);
	/* the benchmark parses its arguments, then perf_dev_open() */
	ret = perf_cmds[i].fn(&p);
	snode_unref(p.ctx);
	return ret;
}
