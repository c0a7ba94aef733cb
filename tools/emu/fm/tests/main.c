// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: tests/main.c - the snode-fm unit test runner (TAP)
 *
 * snode-fm-test --fm PATH/snode-fm --topologies DIR [GROUP...]
 * Groups: topo route link grant plan e2e (default: all).
 */
#define _GNU_SOURCE
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "tap.h"

const char *tap_fm_path, *tap_topo_dir;
static int tap_n, tap_failed;

void tap_ok(int pass, const char *fmt, ...)
{
	va_list ap;

	tap_n++;
	if (!pass)
		tap_failed++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

void tap_diag(const char *fmt, ...)
{
	va_list ap;

	printf("# ");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
}

int tap_fabric(struct fm_fabric *f, const char *text)
{
	char err[256];
	int ret;

	fm_fabric_init(f);
	ret = fm_topo_parse_string(f, "test.topo", text, err, sizeof(err));
	if (ret)
		tap_diag("unexpected parse error: %s", err);
	return ret;
}

static const struct {
	const char *name;
	void (*fn)(void);
} groups[] = {
	{ "topo", test_topo },
	{ "route", test_route },
	{ "link", test_link },
	{ "grant", test_grant },
	{ "grant-host", test_grant_host },
	{ "plan", test_plan },
	{ "proto", test_proto },
	{ "e2e", test_e2e },
};

int main(int argc, char **argv)
{
	int i, first = 1;
	size_t g;

	fm_log_stderr(false);
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--fm") && i + 1 < argc)
			tap_fm_path = argv[++i];
		else if (!strcmp(argv[i], "--topologies") && i + 1 < argc)
			tap_topo_dir = argv[++i];
		else
			break;
	}
	first = i;
	for (g = 0; g < sizeof(groups) / sizeof(groups[0]); g++) {
		bool run = first == argc;

		for (i = first; i < argc; i++)
			run |= !strcmp(argv[i], groups[g].name);
		if (!run)
			continue;
		tap_diag("%s", groups[g].name);
		groups[g].fn();
	}
	printf("1..%d\n", tap_n);
	if (tap_failed)
		printf("# %d of %d failed\n", tap_failed, tap_n);
	return tap_failed ? 1 : 0;
}
