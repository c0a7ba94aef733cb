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

void perf_lat_json(const char *key, const struct perf_lat *lat)
{
	print_open_object(key);
	print_u64("n", NULL, lat->n);
	print_double("min_us", NULL, lat->min);
	print_double("median_us", NULL, lat->median);
	print_double("p99_us", NULL, lat->p99);
	print_double("mean_us", NULL, lat->mean);
	print_close_object();
}

void perf_lat_print(const char *label, const struct perf_lat *lat)
{
	printf("%-28s %10.1f %10.1f %10.1f %10.1f   (%u samples)\n", label,
	       lat->min, lat->median, lat->p99, lat->mean, lat->n);
}

/*
 * Build the JSON report with @fn through the tools' print path and hand it
 * to stdout (-j) and to the -o file (always pretty); text goes to stdout
 * otherwise, printed by the caller.
 */
int perf_json_report(struct perf *p, void (*fn)(const void *arg),
		     const void *arg)
{
	int ret = 0;
	FILE *f;

	if (!p->json && !p->json_file)
		return 0;
	print_init(true, p->pretty);
	fn(arg);
	if (p->json_file) {
		f = fopen(p->json_file, "w");
		if (!f) {
			print_flush(false);
			return perf_err("%s: %s", p->json_file, strerror(errno));
		}
		if (print_json_to(f, true) | fclose(f))
			ret = perf_err("%s: %s", p->json_file, strerror(errno));
	}
	if (print_flush(p->json) && !ret)
		ret = perf_err("writing the report failed");
	return ret;
}
