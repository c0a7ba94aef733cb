/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * trend.c: the arithmetic of snodectl link trend on plain samples, with no
 * libsnode or JSON behind it, so that the host tests feed it constructed
 * series (tools/testing/cli/unit.c).
 */
#ifndef SNODECTL_TREND_H
#define SNODECTL_TREND_H

#include <stdbool.h>
#include <stdint.h>

/* The record file's format version this snodectl writes and reads. */
#define TREND_RECORD_VERSION	1

/* One link at one time, as a record line holds it. */
struct trend_sample {
	int64_t time;			/* unix seconds */
	uint64_t crc_errors;
	uint64_t replays;
	uint64_t down_events;
	uint64_t ber;			/* units of 1e-18 */
	uint64_t ber_threshold;		/* 0: none */
};

/* The counters trend rates; bits of trend_result's rising and past. */
enum trend_counter {
	TREND_CRC,
	TREND_REPLAYS,
	TREND_DOWN,
	TREND_NCOUNTERS,
};
/* past-threshold because of the BER, beside the counters' bits */
#define TREND_PAST_BER		(1u << TREND_NCOUNTERS)

struct trend_limits {
	/* past-threshold above these; per hour, per hour, per day */
	double max_rate[TREND_NCOUNTERS];
	/* rising: later half's rate > factor x earlier's, >= min events */
	double rising_factor;
	uint64_t rising_min;
};

struct trend_result {
	unsigned int samples;
	int64_t first, last;		/* the window; last - first seconds */
	/* NAN when the window has no length (fewer than two samples) */
	double rate[TREND_NCOUNTERS];	/* crc and replays /h, down /day */
	uint64_t events[TREND_NCOUNTERS];
	double ber_slope;		/* BER per day, least squares; or NAN */
	uint64_t ber, ber_threshold;	/* the latest sample's */
	unsigned int rising;		/* 1 << enum trend_counter */
	unsigned int past;		/* the same, and TREND_PAST_BER */
};

/* The name of a counter in text and JSON: "crc_errors", ... */
const char *trend_counter_name(enum trend_counter c);
void trend_limits_default(struct trend_limits *l);
/* Events between two readings: a counter that went down restarted at 0. */
uint64_t trend_delta(uint64_t prev, uint64_t cur);
/*
 * Judge @n samples in rising time order, those before @since left out
 * (INT64_MIN: none). r->samples 0 when nothing is left.
 */
void trend_compute(const struct trend_sample *s, unsigned int n,
		   int64_t since, const struct trend_limits *l,
		   struct trend_result *r);
/* "90m", "24h", "7d", "2w", "3600s" or "3600": seconds > 0; -1 if bad. */
int64_t trend_parse_duration(const char *s);

#endif /* SNODECTL_TREND_H */
