/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * baseline.c: the sensor baseline file (snodectl sensor baseline record,
 * health --baseline), sensor limits as an operator types them, and the
 * drift rule. Pure: nothing here touches a device.
 */
#ifndef SNODECTL_BASELINE_H
#define SNODECTL_BASELINE_H

#include <stdbool.h>
#include <stdint.h>

#include "snodectl.h"

#define BASELINE_VERSION	1

/*
 * The drift rule (snodectl(8), BASELINE FILE): a NIC drifted when its
 * temperature is more than BASELINE_DRIFT_MC above a baseline taken at a
 * power within BASELINE_POWER_PCT percent of its power now.
 */
#define BASELINE_DRIFT_MC	8000
#define BASELINE_POWER_PCT	10

/*
 * What the driver programs (driver/hwmon.c clamps to it): -55..150 C,
 * power caps up to 1000 W; the device counts power in whole mW.
 */
#define SENSOR_TEMP_MIN_MC	(-55000L)
#define SENSOR_TEMP_MAX_MC	150000L
#define SENSOR_POWER_MAX_UW	1000000000L

/* A NIC's identity: its serial; fabric and node where it has no serial. */
struct baseline_id {
	char serial[33];
	bool have_node;
	uint32_t fabric, node;
};

struct baseline_entry {
	struct baseline_id id;
	char dev[32];
	char load[33];			/* "" when not given */
	long temp;			/* milli-degC */
	long power;			/* microwatts, > 0 */
	int64_t unix_time;
	unsigned int line;
};

struct baseline_file {
	const char *file;		/* the caller's, for messages */
	struct baseline_entry *e;
	unsigned int n, cap;
};

/* What health --baseline made of one NIC. */
struct baseline_cmp {
	const struct baseline_entry *e;	/* NULL: no entry for the NIC */
	bool compared;			/* power within BASELINE_POWER_PCT */
	bool drift;
	long delta;			/* temperature now minus e->temp, mC */
};

/*
 * "87.5" degrees C to milli-degC, "25" or "7.25" W to microwatts, in the
 * driver's range (whole mW). 0, or -1 with a reason in @why.
 */
int sensor_parse_temp(const char *s, long *mc, char *why, size_t len);
int sensor_parse_power(const char *s, long *uw, char *why, size_t len);

/* A load label: 1-32 of [A-Za-z0-9._%+-]. */
bool baseline_load_ok(const char *s);

/*
 * The file line of one NIC's reading at @now (unix seconds) on @host,
 * newline included, to be free()d; NULL if out of memory.
 */
char *baseline_line(const struct baseline_entry *e, int64_t now,
		    const char *host);
/*
 * Read b->file into b->e. Returns 0; TOOL_EXIT_USAGE after a
 * "FILE:LINE: ..." message naming the field on a line that is not a
 * baseline entry; SNODECTL_HEALTH_UNKNOWN after a message when the file
 * cannot be read. baseline_free() in every case.
 */
int baseline_read(struct baseline_file *b);
/* As baseline_read(), from text in memory (host tests). */
int baseline_parse(struct baseline_file *b, const char *text);
void baseline_free(struct baseline_file *b);

/*
 * Compare a NIC's reading (milli-degC, microwatts) with its entry of @b
 * whose power is nearest to @power (the latest of equals).
 */
void baseline_compare(const struct baseline_file *b,
		      const struct baseline_id *id, long temp, long power,
		      struct baseline_cmp *c);
/* The problems of a comparison: drift, or no entry for the NIC. */
void baseline_judge(struct health_dev *h, const struct baseline_file *b,
		    const struct baseline_id *id, const struct baseline_cmp *c);

#endif /* SNODECTL_BASELINE_H */
