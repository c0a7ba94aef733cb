// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hw-contract-dump: print what driver/hw.h and the device model's
 * snode-nic.h define (see hc.h), one row a line:
 *   SIDE KIND NAME VALUE EXTRA
 * hw-contract.py compares the two sides and the hardware document.
 */
#include <stdio.h>

#include "hc.h"

static void dump(const char *side, const struct hc_def *d)
{
	for (; d->kind; d++)
		printf("%s %s %s %llu %llu\n", side, d->kind, d->name,
		       d->value, d->extra);
}

int main(void)
{
	dump("driver", hc_driver);
	dump("device", hc_device);
	return 0;
}
