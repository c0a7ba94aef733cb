/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snode-perf internals: the command table and what the benchmarks share.
 */
#ifndef SNODE_PERF_H
#define SNODE_PERF_H

#include <stdbool.h>
#include <stdint.h>

#include "libsnode.h"

struct perf {
	struct snode_ctx *ctx;
	struct snode_dev *dev;
	bool json;		/* JSON on stdout instead of text */
	const char *json_file;	/* and/or JSON into this file */
	int argc;
	char **argv;
};

struct perf_cmd {
	const char *name;
	const char *summary;
	int (*fn)(struct perf *p);
};

/* main.c */
double perf_now(void);
int perf_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int perf_lib_err(const char *what, int err);
const char *perf_arg_next(struct perf *p);

int perf_parse_size(const char *s, uint64_t *out);

/* One benchmark per file. */
int perf_mem(struct perf *p);

#endif /* SNODE_PERF_H */
