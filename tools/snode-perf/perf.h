/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snode-perf internals: the command table and what the benchmarks share.
 */
#ifndef SNODE_PERF_H
#define SNODE_PERF_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libsnode.h"
#include "print.h"
#include "util.h"

struct perf {
	struct snode_ctx *ctx;
	struct snode_dev *dev;	/* perf_dev_open(), after the arguments */
	const char *devname;	/* -d DEV, NULL: the first */
	bool json;		/* JSON on stdout instead of text */
	bool pretty;		/* ... indented */
	const char *json_file;	/* and/or JSON into this file */
	int argc;
	char **argv;
};

struct perf_cmd {
	const char *name;
	const char *summary;
	int (*fn)(struct perf *p);
	void (*help)(FILE *f);	/* usage, to stdout when asked */
};

/* main.c */
double perf_now(void);
/* An error message; returns 1, a failed benchmark's exit status. */
#define perf_err tool_err
int perf_lib_err(const char *what, int err);
const char *perf_arg_next(struct perf *p);
/*
 * Look up the NIC (-d DEV or the first) into p->dev. A benchmark calls it
 * once its arguments are parsed, so that a usage error is one (64) with or
 * without a device. Returns 0 or 1 with a message.
 */
int perf_dev_open(struct perf *p);
/* A usage error: @help to stderr; returns TOOL_EXIT_USAGE. */
int perf_usage(void (*help)(FILE *f));

int perf_parse_size(const char *s, uint64_t *out);

/* lat.c: latency statistics, in microseconds, and JSON reports */
struct perf_lat {
	unsigned int n;
	double min, median, p99, mean;
};
void perf_lat_compute(double *v, unsigned int n, struct perf_lat *lat);
void perf_lat_print(const char *label, const struct perf_lat *lat);
/* as an object named @key of the report being built */
void perf_lat_json(const char *key, const struct perf_lat *lat);
int perf_json_report(struct perf *p, void (*fn)(const void *arg),
		     const void *arg);

/* trace.c: the driver's tracepoints, in a private tracefs instance */
struct perf_trace;
int perf_trace_open(struct perf_trace **t, unsigned long buffer_kb);
int perf_trace_event(struct perf_trace *t, const char *event,
		     const char *filter);
int perf_trace_on(struct perf_trace *t, bool on);
char *perf_trace_read(struct perf_trace *t);
int perf_trace_parse(const char *line, uint64_t *ns, char *event,
		     size_t size);
void perf_trace_close(struct perf_trace *t);

/* baseline.c: snode-perf link's baseline file, one link a line */
#define PERF_BASELINE_MAX	64

struct perf_baseline_entry {
	char dev[32];
	unsigned int port;
	double mbs;
};

struct perf_baseline {
	unsigned int n;
	struct perf_baseline_entry e[PERF_BASELINE_MAX];
};

/*
 * Read "DEV PORT MB/S" lines from @f. 0, or a negative errno with the
 * line and what is wrong with it in @err (and no entry kept).
 */
int perf_baseline_parse(FILE *f, struct perf_baseline *b, char *err,
			size_t errlen);
const struct perf_baseline_entry *
perf_baseline_find(const struct perf_baseline *b, const char *dev,
		   unsigned int port);
/* @measured is within @tolerance percent below @baseline, or above it */
bool perf_baseline_ok(double measured, double baseline, double tolerance);

/* One benchmark per file (the collectives share coll.c), each with its help. */
int perf_allreduce(struct perf *p);
int perf_alltoall(struct perf *p);
int perf_barrier(struct perf *p);
int perf_bcast(struct perf *p);
int perf_dma(struct perf *p);
int perf_dump(struct perf *p);
int perf_events(struct perf *p);
int perf_link(struct perf *p);
int perf_mem(struct perf *p);
int perf_notify(struct perf *p);
int perf_ping(struct perf *p);
void perf_allreduce_help(FILE *f);
void perf_alltoall_help(FILE *f);
void perf_barrier_help(FILE *f);
void perf_bcast_help(FILE *f);
void perf_dma_help(FILE *f);
void perf_dump_help(FILE *f);
void perf_events_help(FILE *f);
void perf_link_help(FILE *f);
void perf_mem_help(FILE *f);
void perf_notify_help(FILE *f);
void perf_ping_help(FILE *f);

#endif /* SNODE_PERF_H */
