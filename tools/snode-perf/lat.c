// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snode-perf latency statistics and report output, shared by the message
 * and DMA benchmarks.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "perf.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Sorts @v in place. */
void perf_lat_compute(double *v, unsigned int n, struct perf_lat *lat)
{
	unsigned int p99 = n * 99 / 100;
	double sum = 0;
	unsigned int i;

	memset(lat, 0, sizeof(*lat));
	if (!n)
		return;
	qsort(v, n, sizeof(*v), cmp_double);
	for (i = 0; i < n; i++)
		sum += v[i];
	lat->n = n;
	lat->min = v[0];
	lat->median = v[n / 2];
	lat->p99 = v[p99 < n ? p99 : n - 1];
	lat->mean = sum / n;
}

void perf_lat_json(FILE *f, const char *key, const struct perf_lat *lat,
		   bool last)
{
	fprintf(f, "  \"%s\": { \"n\": %u, \"min_us\": %.2f, \"median_us\": %.2f, \"p99_us\": %.2f, \"mean_us\": %.2f }%s\n",
		key, lat->n, lat->min, lat->median, lat->p99, lat->mean,
		last ? "" : ",");
}

void perf_lat_print(const char *label, const struct perf_lat *lat)
{
	printf("%-28s %10.1f %10.1f %10.1f %10.1f   (%u samples)\n", label,
	       lat->min, lat->median, lat->p99, lat->mean, lat->n);
}

/*
 * Hand a JSON report built by @fn to stdout (-j) and to the -o file; text
 * goes to stdout otherwise, printed by the caller.
 */
int perf_json_report(struct perf *p, void (*fn)(FILE *f, const void *arg),
		     const void *arg)
{
	FILE *f;

	if (p->json)
		fn(stdout, arg);
	if (!p->json_file)
		return 0;
	f = fopen(p->json_file, "w");
	if (!f)
		return perf_err("%s: %s", p->json_file, strerror(errno));
	fn(f, arg);
	if (fclose(f))
		return perf_err("%s: %s", p->json_file, strerror(errno));
	return 0;
}
