// SPDX-License-Identifier: GPL-2.0
/*
 * DOC: link.c - the link model
 *
 * A link has one admin state, an oper state derived from it (down while
 * admin down or held down by a flap, training for FM_TRAIN_MS after a
 * reset, degraded with fewer active lanes than max, else up), a lane count,
 * a per-lane speed and a bit-error rate. Both ends see the same counters.
 *
 * CRC errors follow the expectation exactly: while the link carries traffic
 * (up or degraded) the expected error count grows by BER x line rate x dt,
 * line rate = active lanes x speed x 1e9 bit/s, and the counter is its
 * floor: errors(t) = floor(sum of BER x rate x dt). A change of BER or
 * lanes starts a new epoch, so each piece is exact. Each CRC error is one
 * link-level replay; each 1e6 CRC errors cost one recovery (retrain), as
 * does every link reset. down_events counts transitions into oper down.
 * Training (after a reset) is not counted as down and stays routable: a
 * retrain is shorter than route convergence, so routes do not move.
 */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "fm.h"

void fm_link_init(struct fm_link *l, uint8_t lanes, uint16_t speed, double ber)
{
	l->max_lanes = lanes;
	l->lanes = lanes;
	l->speed = speed;
	l->ber = ber;
	l->admin_up = true;
}

uint8_t fm_link_oper(const struct fm_link *l, uint64_t now)
{
	if (!l->admin_up || l->flap_down)
		return SNODE_FM_PORT_DOWN;
	if (l->train_until && now < l->train_until)
		return SNODE_FM_PORT_TRAINING;
	if (l->lanes < l->max_lanes)
		return SNODE_FM_PORT_DEGRADED;
	return SNODE_FM_PORT_UP;
}

bool fm_link_routable(const struct fm_link *l, uint64_t now)
{
	return fm_link_oper(l, now) != SNODE_FM_PORT_DOWN;
}

const char *fm_oper_name(uint8_t st)
{
	switch (st) {
	case SNODE_FM_PORT_UP:		return "up";
	case SNODE_FM_PORT_DEGRADED:	return "degraded";
	case SNODE_FM_PORT_TRAINING:	return "training";
	default:			return "down";
	}
}

/*
 * Expected errors of the current epoch. The 1e-12 relative tolerance makes
 * decimal BERs, which doubles only approximate, give exact integer counts
 * (1e-9 x 4e11 bits is 400, not 399.99...).
 */
static long double link_epoch_errors(const struct fm_link *l)
{
	long double bits = (long double)l->lanes * l->speed * 1e6L * l->epoch_ms;

	return (long double)l->ber * bits * (1.0L + 1e-12L);
}

static void link_count(struct fm_link *l)
{
	uint64_t crc = (uint64_t)floorl(l->err_base + link_epoch_errors(l));

	if (crc <= l->crc_errors)
		return;
	l->replays += crc - l->crc_errors;
	l->recoveries += crc / FM_RECOVERY_ERRORS -
			 l->crc_errors / FM_RECOVERY_ERRORS;
	l->crc_errors = crc;
	l->dirty = true;
}

/* Close the epoch: the rate or BER is about to change. */
static void link_fold(struct fm_link *l)
{
	l->err_base += link_epoch_errors(l);
	l->epoch_ms = 0;
}

/* Account the time since the last advance, at the state it had. */
void fm_link_advance(struct fm_link *l, uint64_t now)
{
	uint8_t st;

	if (now <= l->last)
		return;
	st = fm_link_oper(l, l->last);
	if (st == SNODE_FM_PORT_UP || st == SNODE_FM_PORT_DEGRADED) {
		l->epoch_ms += now - l->last;
		link_count(l);
	}
	l->last = now;
}

/* After a state change: count a down transition, reroute, tell the ends. */
void fm_link_note_state(struct fm_fabric *f, struct fm_link *l)
{
	bool down = fm_link_oper(l, f->now) == SNODE_FM_PORT_DOWN;

	if (down && !l->was_down)
		l->down_events++;
	l->was_down = down;
	l->dirty = true;
	f->routes_dirty = true;
}

void fm_link_set_ber(struct fm_fabric *f, struct fm_link *l, double ber)
{
	fm_link_advance(l, f->now);
	link_fold(l);
	l->ber = ber;
	l->dirty = true;
}

void fm_link_set_lanes(struct fm_fabric *f, struct fm_link *l, uint8_t lanes)
{
	fm_link_advance(l, f->now);
	link_fold(l);
	l->lanes = lanes;
	fm_link_note_state(f, l);
}

/* A retrain at another per-lane speed: the line rate changes, not the state. */
void fm_link_set_speed(struct fm_fabric *f, struct fm_link *l, uint16_t speed)
{
	fm_link_advance(l, f->now);
	link_fold(l);
	l->speed = speed;
	l->dirty = true;
}

void fm_link_set_admin(struct fm_fabric *f, struct fm_link *l, bool up)
{
	fm_link_advance(l, f->now);
	l->admin_up = up;
	if (up) {
		/* an admin up ends a flap in progress */
		l->flap_left = 0;
		l->flap_down = false;
	}
	fm_link_note_state(f, l);
}

void fm_link_reset(struct fm_fabric *f, struct fm_link *l)
{
	fm_link_advance(l, f->now);
	l->recoveries++;
	if (l->admin_up && !l->flap_down)
		l->train_until = f->now + FM_TRAIN_MS;
	fm_link_note_state(f, l);
}

void fm_link_clear(struct fm_link *l)
{
	l->err_base = 0;
	l->epoch_ms = 0;
	l->crc_errors = l->replays = l->recoveries = l->down_events = 0;
	l->tx_bytes = l->rx_bytes = 0;
	l->dirty = true;
}

/* Down for period_ms, up for period_ms, count times. */
void fm_link_flap(struct fm_fabric *f, struct fm_link *l, int count,
		  uint32_t period_ms)
{
	fm_link_advance(l, f->now);
	if (count <= 0)
		return;
	l->flap_left = count;
	l->flap_period = period_ms;
	l->flap_down = true;
	l->flap_next = f->now + period_ms;
	fm_link_note_state(f, l);
}

/* Flap transitions and ends of training that are due. */
void fm_links_timers(struct fm_fabric *f)
{
	uint32_t i;

	for (i = 0; i < f->nlinks; i++) {
		struct fm_link *l = &f->links[i];

		while (l->flap_left && f->now >= l->flap_next) {
			fm_link_advance(l, l->flap_next);
			if (l->flap_down) {
				l->flap_down = false;
				l->flap_left--;
			} else {
				l->flap_down = true;
			}
			l->flap_next += l->flap_period;
			fm_link_note_state(f, l);
		}
		if (l->train_until && f->now >= l->train_until) {
			fm_link_advance(l, l->train_until);
			l->train_until = 0;
			fm_link_note_state(f, l);
		}
	}
}

uint64_t fm_links_next_timer(const struct fm_fabric *f)
{
	uint64_t next = UINT64_MAX;
	uint32_t i;

	for (i = 0; i < f->nlinks; i++) {
		const struct fm_link *l = &f->links[i];

		if (l->flap_left && l->flap_next < next)
			next = l->flap_next;
		if (l->train_until && l->train_until < next)
			next = l->train_until;
	}
	return next;
}

/* The periodic tick: count errors up to now. */
void fm_links_tick(struct fm_fabric *f)
{
	uint32_t i;

	for (i = 0; i < f->nlinks; i++)
		fm_link_advance(&f->links[i], f->now);
}

struct fm_link *fm_port_link(const struct fm_fabric *f, uint32_t node,
			     uint32_t port)
{
	const struct fm_node *n = fm_node_get(f, node);

	if (!n || port >= n->nports || n->port_link[port] < 0)
		return NULL;
	return &f->links[n->port_link[port]];
}

void fm_end_name(const struct fm_fabric *f, const struct fm_end *e, char *s,
		 size_t len)
{
	if (e->kind == FM_END_SWITCH)
		snprintf(s, len, "%s", f->sw_name[e->id]);
	else
		snprintf(s, len, "%u.%u", e->id, e->port);
}

void fm_port_state_fill(const struct fm_fabric *f, const struct fm_node *n,
			uint32_t port, struct snode_fm_port_state *ps)
{
	const struct fm_link *l = fm_port_link(f, n->id, port);
	const struct fm_end *o;

	memset(ps, 0, sizeof(*ps));
	ps->hdr.type = SNODE_FM_PORT_STATE;
	ps->hdr.len = sizeof(*ps);
	ps->port = port;
	ps->peer_node = 0xffffffff;
	ps->peer_port = 0xffffffff;
	if (!l) {
		/* no cable: administratively up, never comes up */
		ps->admin_state = 1;
		ps->oper_state = SNODE_FM_PORT_DOWN;
		return;
	}
	ps->admin_state = l->admin_up;
	ps->oper_state = fm_link_oper(l, f->now);
	ps->lanes = ps->oper_state == SNODE_FM_PORT_DOWN ? 0 : l->lanes;
	ps->max_lanes = l->max_lanes;
	ps->speed = l->speed;
	o = (l->a.kind == FM_END_NODE && l->a.id == n->id && l->a.port == port) ?
		&l->b : &l->a;
	if (o->kind == FM_END_NODE) {
		ps->peer_node = o->id;
		ps->peer_port = o->port;
	} else {
		ps->peer_port = FM_SWITCH_BIT | o->id;
	}
	ps->crc_errors = l->crc_errors;
	ps->replays = l->replays;
	ps->recoveries = l->recoveries;
	ps->down_events = l->down_events;
	ps->ber = l->ber;
}
