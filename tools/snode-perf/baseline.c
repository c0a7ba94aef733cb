// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * baseline.c: snode-perf link's baseline file and verdict, apart from any
 * device so that host tests can hold them.
 *
 * A baseline is what a link measured when it was known good, on the same
 * machine: under TCG every number is far below line rate, so the ratio to
 * lanes x speed informs and the baseline judges. The file is text, one
 * link a line, "DEV PORT MB/S"; blank lines and # comments are skipped.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

int perf_baseline_parse(FILE *f, struct perf_baseline *b, char *err,
			size_t errlen)
{
	char *line = NULL, dev[32], extra[2];
	unsigned int lineno = 0, port, i;
	size_t cap = 0;
	double mbs;
	int ret = 0;

	b->n = 0;
	while (getline(&line, &cap, f) > 0) {
		char *p = line;

		lineno++;
		p[strcspn(p, "#\n")] = '\0';
		p += strspn(p, " \t");
		if (!*p)
			continue;
		if (sscanf(p, "%31s %u %lf %1s", dev, &port, &mbs, extra) != 3 ||
		    strncmp(dev, "snode", 5)) {
			snprintf(err, errlen, "line %u: malformed (want DEV PORT MB/S, e.g. \"snode0 1 812.5\")",
				 lineno);
			ret = -EINVAL;
			break;
		}
		if (!isfinite(mbs) || mbs <= 0) {
			snprintf(err, errlen, "line %u: impossible bandwidth %g MB/s",
				 lineno, mbs);
			ret = -EINVAL;
			break;
		}
		for (i = 0; i < b->n; i++)
			if (!strcmp(b->e[i].dev, dev) && b->e[i].port == port)
				break;
		if (i < b->n) {
			snprintf(err, errlen, "line %u: %s port %u given twice",
				 lineno, dev, port);
			ret = -EINVAL;
			break;
		}
		if (b->n == PERF_BASELINE_MAX) {
			snprintf(err, errlen, "line %u: more than %d links",
				 lineno, PERF_BASELINE_MAX);
			ret = -E2BIG;
			break;
		}
		snprintf(b->e[b->n].dev, sizeof(b->e[b->n].dev), "%s", dev);
		b->e[b->n].port = port;
		b->e[b->n].mbs = mbs;
		b->n++;
	}
	free(line);
	if (ret)
		b->n = 0;
	return ret;
}

const struct perf_baseline_entry *
perf_baseline_find(const struct perf_baseline *b, const char *dev,
		   unsigned int port)
{
	unsigned int i;

	for (i = 0; i < b->n; i++)
		if (!strcmp(b->e[i].dev, dev) && b->e[i].port == port)
			return &b->e[i];
	return NULL;
}

bool perf_baseline_ok(double measured, double baseline, double tolerance)
{
	return measured >= baseline * (1.0 - tolerance / 100.0);
}
