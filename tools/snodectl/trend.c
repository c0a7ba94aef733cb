// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: snodectl link trend's arithmetic
 *
 * Rates, the BER slope and the rising and past-threshold flags of one link
 * from its samples in a record file (snodectl link diag --record), apart
 * from reading the file and printing so that the host tests can feed it
 * constructed series. snodectl(8) states the rules; they are:
 *
 * - events are the sum of the increases between consecutive samples; a
 *   counter that went down was cleared (link clear) or restarted with the
 *   driver, so the later reading counts from 0, never as a negative rate;
 * - rates are events over the window (first to last sample in it);
 * - the BER slope is the least-squares fit of BER against time, per day;
 * - rising: split the window at its middle and give each interval
 *   between samples to the half its midpoint falls in; a counter rises
 *   when the later half's rate is more than rising_factor times the
 *   earlier half's and the later half has at least rising_min events;
 * - past-threshold: the latest BER is at or above its alarm threshold
 *   (1e-12 without one, as link status's verdict), or a rate is above
 *   its max_rate.
 */
#include <math.h>
#include <stdlib.h>

#include "trend.h"

#define TREND_HOUR	3600.0
#define TREND_DAY	86400.0
/* As LINK_DEFAULT_BER_LIMIT of verdict.c: without a threshold, 1e-12. */
#define TREND_DEFAULT_BER_LIMIT	1000000ULL

const char *trend_counter_name(enum trend_counter c)
{
	static const char *const names[] = {
		[TREND_CRC] = "crc_errors",
		[TREND_REPLAYS] = "replays",
		[TREND_DOWN] = "down_events",
	};

	return c < TREND_NCOUNTERS ? names[c] : "unknown";
}

void trend_limits_default(struct trend_limits *l)
{
	/*
	 * A sound link sees CRC errors now and then and replays (each CRC
	 * error costs at least one) a little more often; one going down more
	 * than once a day is being reset or is failing.
	 */
	l->max_rate[TREND_CRC] = 10;
	l->max_rate[TREND_REPLAYS] = 100;
	l->max_rate[TREND_DOWN] = 1;
	l->rising_factor = 2;
	l->rising_min = 5;
}

uint64_t trend_delta(uint64_t prev, uint64_t cur)
{
	return cur >= prev ? cur - prev : cur;
}

static uint64_t trend_counter(const struct trend_sample *s,
			      enum trend_counter c)
{
	switch (c) {
	case TREND_CRC:
		return s->crc_errors;
	case TREND_REPLAYS:
		return s->replays;
	default:
		return s->down_events;
	}
}

/* crc errors and replays per hour, down events per day */
static double trend_unit(enum trend_counter c)
{
	return c == TREND_DOWN ? TREND_DAY : TREND_HOUR;
}

static double trend_slope(const struct trend_sample *s, unsigned int n)
{
	double mt = 0, mb = 0, stt = 0, stb = 0, t, b;
	unsigned int i;

	if (n < 2)
		return NAN;
	/* time relative to the first sample: unix seconds squared lose bits */
	for (i = 0; i < n; i++) {
		mt += (double)(s[i].time - s[0].time) / TREND_DAY;
		mb += (double)s[i].ber / 1e18;
	}
	mt /= n;
	mb /= n;
	for (i = 0; i < n; i++) {
		t = (double)(s[i].time - s[0].time) / TREND_DAY - mt;
		b = (double)s[i].ber / 1e18 - mb;
		stt += t * t;
		stb += t * b;
	}
	return stt > 0 ? stb / stt : NAN;
}

void trend_compute(const struct trend_sample *s, unsigned int n,
		   int64_t since, const struct trend_limits *l,
		   struct trend_result *r)
{
	uint64_t half[2][TREND_NCOUNTERS] = { { 0 } }, d;
	double span, mid, hlen[2] = { 0, 0 }, early, late, limit;
	unsigned int i, h, c;

	*r = (struct trend_result){ 0 };
	for (c = 0; c < TREND_NCOUNTERS; c++)
		r->rate[c] = NAN;
	r->ber_slope = NAN;
	while (n && s->time < since) {
		s++;
		n--;
	}
	r->samples = n;
	if (!n)
		return;
	r->first = s[0].time;
	r->last = s[n - 1].time;
	r->ber = s[n - 1].ber;
	r->ber_threshold = s[n - 1].ber_threshold;
	limit = r->ber_threshold ? r->ber_threshold : TREND_DEFAULT_BER_LIMIT;
	if (r->ber && r->ber >= limit)
		r->past |= TREND_PAST_BER;
	span = (double)(r->last - r->first);
	if (span <= 0)
		return;

	mid = (double)r->first + span / 2;
	for (i = 1; i < n; i++) {
		h = ((double)s[i - 1].time + (double)s[i].time) / 2 > mid;
		hlen[h] += (double)(s[i].time - s[i - 1].time);
		for (c = 0; c < TREND_NCOUNTERS; c++) {
			d = trend_delta(trend_counter(&s[i - 1], c),
					trend_counter(&s[i], c));
			half[h][c] += d;
			r->events[c] += d;
		}
	}
	for (c = 0; c < TREND_NCOUNTERS; c++) {
		r->rate[c] = (double)r->events[c] * trend_unit(c) / span;
		if (r->rate[c] > l->max_rate[c])
			r->past |= 1u << c;
		/* both halves hold an interval from three samples on */
		if (hlen[0] <= 0 || hlen[1] <= 0)
			continue;
		early = (double)half[0][c] / hlen[0];
		late = (double)half[1][c] / hlen[1];
		if (half[1][c] >= l->rising_min && late > l->rising_factor * early)
			r->rising |= 1u << c;
	}
	r->ber_slope = trend_slope(s, n);
}

int64_t trend_parse_duration(const char *s)
{
	static const struct {
		char unit;
		int64_t seconds;
	} units[] = {
		{ 's', 1 }, { 'm', 60 }, { 'h', 3600 }, { 'd', 86400 },
		{ 'w', 604800 },
	};
	unsigned long long v;
	unsigned int i;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -1;
	v = strtoull(s, &end, 10);
	if (!*end)
		return v > 0 && v <= INT64_MAX / 604800 ? (int64_t)v : -1;
	if (end[1])
		return -1;
	for (i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (*end == units[i].unit)
			/* capped so that any unit's product fits */
			return v > 0 && v <= INT64_MAX / 604800 ?
			       (int64_t)v * units[i].seconds : -1;
	return -1;
}
