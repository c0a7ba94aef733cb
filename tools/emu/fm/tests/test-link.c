// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: tests/test-link.c - link model arithmetic
 */
#define _GNU_SOURCE
#include <string.h>

#include "tap.h"

static int one_link(struct fm_fabric *f, const char *opts)
{
	char text[256];

	snprintf(text, sizeof(text), "node 0-1\nlink 0.0 1.0 %s\n", opts);
	return tap_fabric(f, text);
}

static void ber_exact(void)
{
	struct fm_fabric f;
	struct fm_link *l;
	int i;

	if (one_link(&f, "lanes 4 speed 100 ber 1e-9"))
		return;
	l = &f.links[0];
	fm_link_advance(l, 1000);
	ok(l->crc_errors == 400 && l->replays == 400,
	   "BER 1e-9 on 4x100G for 1 s: 400 CRC errors, 400 replays (got %llu)",
	   (unsigned long long)l->crc_errors);
	for (i = 1; i <= 10; i++)
		fm_link_advance(l, 1000 + i * 100);
	ok(l->crc_errors == 800, "same in ten 100 ms ticks: 800 after 2 s (got %llu)",
	   (unsigned long long)l->crc_errors);
	fm_fabric_free(&f);

	if (one_link(&f, "lanes 4 speed 100 ber 1e-12"))
		return;
	l = &f.links[0];
	for (i = 1; i <= 24; i++)
		fm_link_advance(l, i * 100);
	ok(l->crc_errors == 0, "BER 1e-12: 0.96 expected errors after 2.4 s -> 0");
	fm_link_advance(l, 2500);
	ok(l->crc_errors == 1, "BER 1e-12: the fraction carries: 1 error at 2.5 s");
	fm_fabric_free(&f);
}

static void epochs(void)
{
	struct fm_fabric f;
	struct fm_link *l;

	if (one_link(&f, "ber 1e-9"))
		return;
	l = &f.links[0];
	f.now = 500;
	fm_link_set_ber(&f, l, 2e-9);
	f.now = 1000;
	fm_links_tick(&f);
	ok(l->crc_errors == 600, "BER change: 200 + 400 = 600 (got %llu)",
	   (unsigned long long)l->crc_errors);
	fm_link_set_lanes(&f, l, 2);
	ok(fm_link_oper(l, f.now) == SNODE_FM_PORT_DEGRADED, "fewer lanes: degraded");
	f.now = 2000;
	fm_links_tick(&f);
	ok(l->crc_errors == 1000, "2 lanes halve the rate: +400 (got %llu)",
	   (unsigned long long)l->crc_errors);
	fm_link_set_admin(&f, l, false);
	f.now = 3000;
	fm_links_tick(&f);
	ok(l->crc_errors == 1000 && l->down_events == 1 &&
	   fm_link_oper(l, f.now) == SNODE_FM_PORT_DOWN,
	   "down: no errors counted, one down event");
	fm_link_set_admin(&f, l, false);
	ok(l->down_events == 1, "down again while down: still one down event");
	fm_link_set_admin(&f, l, true);
	fm_link_set_lanes(&f, l, l->max_lanes);
	ok(fm_link_oper(l, f.now) == SNODE_FM_PORT_UP, "up with all lanes: up");
	fm_link_set_speed(&f, l, l->speed / 2);
	ok(fm_link_oper(l, f.now) == SNODE_FM_PORT_UP && l->dirty,
	   "new speed: still up, the ends are told");
	f.now = 4000;
	fm_links_tick(&f);
	ok(l->crc_errors == 1400, "half the speed halves the rate: +400 (got %llu)",
	   (unsigned long long)l->crc_errors);
	fm_fabric_free(&f);
}

static void recoveries(void)
{
	struct fm_fabric f;
	struct fm_link *l;

	if (one_link(&f, "ber 1e-3"))
		return;
	l = &f.links[0];
	f.now = 10;
	fm_links_tick(&f);
	ok(l->crc_errors == 4000000 && l->recoveries == 4,
	   "4e6 CRC errors cost 4 recoveries (got %llu, %llu)",
	   (unsigned long long)l->crc_errors, (unsigned long long)l->recoveries);
	fm_link_reset(&f, l);
	ok(l->recoveries == 5 && fm_link_oper(l, f.now) == SNODE_FM_PORT_TRAINING,
	   "reset: one recovery, training");
	f.now += FM_TRAIN_MS;
	fm_links_timers(&f);
	ok(fm_link_oper(l, f.now) == SNODE_FM_PORT_UP && l->down_events == 0,
	   "training ends in FM_TRAIN_MS, no down event");
	fm_link_clear(l);
	ok(!l->crc_errors && !l->replays && !l->recoveries && !l->down_events,
	   "clear zeroes the counters");
	fm_fabric_free(&f);
}

static void flap(void)
{
	struct fm_fabric f;
	struct fm_link *l;
	struct snode_fm_port_state a, b;

	if (one_link(&f, ""))
		return;
	l = &f.links[0];
	fm_link_flap(&f, l, 3, 100);
	ok(fm_link_oper(l, f.now) == SNODE_FM_PORT_DOWN, "flap starts down");
	f.now = 150;
	fm_links_timers(&f);
	ok(fm_link_oper(l, f.now) == SNODE_FM_PORT_UP, "flap: up after one period");
	f.now = 600;
	fm_links_timers(&f);
	ok(l->down_events == 3 && !l->flap_left &&
	   fm_link_oper(l, f.now) == SNODE_FM_PORT_UP,
	   "flap count 3: three down events, ends up (got %llu)",
	   (unsigned long long)l->down_events);
	fm_port_state_fill(&f, f.node[0], 0, &a);
	fm_port_state_fill(&f, f.node[1], 0, &b);
	ok(a.down_events == 3 && b.down_events == 3 && a.peer_node == 1 &&
	   b.peer_node == 0 && a.peer_port == 0 && a.max_lanes == 4 &&
	   a.speed == 100, "both ends see the same counters and each other");
	fm_port_state_fill(&f, f.node[0], 1, &a);
	ok(a.oper_state == SNODE_FM_PORT_DOWN && a.peer_node == 0xffffffff,
	   "uncabled port: down, no peer");
	fm_fabric_free(&f);
}

void test_link(void)
{
	ber_exact();
	epochs();
	recoveries();
	flap();
}
