// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: snodectl link diag and link trend: a link history on disk
 *
 * diag takes a snapshot of every link (of every NIC, or one) and appends
 * it to a record file as one line with a single write(2) under O_APPEND,
 * so that snapshots of several writers or hosts never interleave within a
 * line. trend reads such a file back (record.c) and judges each link with
 * trend.c. snodectl(8) has the format and the rules.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "record.h"
#include "snodectl.h"

/* The links of the dump, copied out of the iterator; NULL on ENOMEM. */
static char *history_snapshot(struct snode_link_iter *iter)
{
	const struct snode_link_info *li;
	struct snode_link_info *all = NULL, *p;
	unsigned int n = 0, cap = 0;
	char host[256] = "";
	char *line;

	snode_link_iter_foreach(iter, li) {
		if (n == cap) {
			p = reallocarray(all, cap ? cap * 2 : 16, sizeof(*all));
			if (!p) {
				free(all);
				return NULL;
			}
			all = p;
			cap = cap ? cap * 2 : 16;
		}
		all[n++] = *li;
	}
	if (gethostname(host, sizeof(host) - 1))
		host[0] = '\0';
	line = record_line(all, n, time(NULL), host);
	free(all);
	return line;
}

/* The whole line in one write(2): a short one would split a record. */
static int history_append(const char *file, const char *line)
{
	size_t len = strlen(line);
	ssize_t n;
	int fd, err = 0;

	fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return snodectl_err("link diag: cannot open %s: %s", file,
				    strerror(errno));
	n = write(fd, line, len);
	if (n < 0)
		err = errno;
	else if ((size_t)n != len)
		err = ENOSPC;
	/* weekly, and the history is the point: worth an fsync */
	if (!err && fsync(fd))
		err = errno;
	if (close(fd) && !err)
		err = errno;
	if (err)
		return snodectl_err("link diag: writing %s failed: %s%s", file,
				    strerror(err), n > 0 && (size_t)n != len ?
				    " (a partial last line; trend will name it)" : "");
	return 0;
}

enum { DIAG_OPT_RECORD };

static const struct tool_opt diag_opts[] = {
	{ "-record", DIAG_OPT_RECORD, true, true },
	{ NULL, 0, false, false }
};

/* link diag [ record FILE ] [ DEV ] */
int link_diag(struct snodectl *sc)
{
	const char *record = NULL, *name = NULL, *val = NULL;
	struct snode_link_iter *iter;
	struct snode_dev *dev;
	int id, ret;
	char *line;

	while (sc->argc > 0) {
		id = snodectl_next_opt(sc, diag_opts, &val);
		if (id == -2)
			return TOOL_EXIT_USAGE;
		if (id == DIAG_OPT_RECORD) {
			if (record)
				return snodectl_usage("link", "link diag: %s given twice",
						      tool_opt_word());
			if (!*val)
				return snodectl_usage("link", "link diag: %s needs a file name",
						      tool_opt_word());
			record = val;
			continue;
		}
		ret = snodectl_dev_opt_last(sc, "link", &name);
		if (ret)
			return ret;
	}
	ret = snodectl_dev_resolve(sc, name, &dev);
	if (ret)
		return ret;
	ret = snode_link_list(sc->ctx, dev ? (int)snode_dev_get_index(dev) : -1,
			      sizeof(struct snode_link_info), &iter);
	if (ret < 0)
		return snodectl_nl_err("link diag", ret);
	line = history_snapshot(iter);
	snode_link_iter_free(iter);
	if (!line)
		return snodectl_err("link diag: out of memory");
	if (record) {
		ret = history_append(record, line);
	} else {
		/* the record line itself, with or without -j */
		print_flush(false);
		ret = fputs(line, stdout) < 0 ? 1 : 0;
	}
	free(line);
	return ret;
}

/* "7d 3h", "90m", "40s": the window for text */
static void history_print_span(int64_t s)
{
	if (s >= 86400)
		print_text(" window %.1fd", s / 86400.0);
	else if (s >= 3600)
		print_text(" window %.1fh", s / 3600.0);
	else if (s >= 60)
		print_text(" window %.1fm", s / 60.0);
	else
		print_text(" window %llds", (long long)s);
}

static void history_print_flags(const char *key, const char *label,
				unsigned int bits, bool ber)
{
	unsigned int c;

	print_open_array(key);
	if (bits)
		print_text(" %s", label);
	if (ber && (bits & TREND_PAST_BER))
		print_str(NULL, " ber", "ber");
	for (c = 0; c < TREND_NCOUNTERS; c++)
		if (bits & (1u << c))
			print_str(NULL, " %s", trend_counter_name(c));
	print_close_array();
}

/* A rate or slope; "-" in text without one (a window of no length). */
static void history_print_rate(const char *key, const char *label,
			       const char *fmt, double v, const char *unit)
{
	print_double(key, NULL, v);
	if (isfinite(v)) {
		print_text(" %s ", label);
		print_text(fmt, v);
		print_text("%s", unit);
	} else {
		print_text(" %s -", label);
	}
}

static void history_print_link(const struct record_link *l)
{
	const struct trend_result *r = &l->r;

	print_open_object(NULL);
	print_str("host", *l->host ? "%s " : NULL, l->host);
	print_str("dev", "%s", l->dev);
	print_u64("port", "/%llu:", l->port);
	history_print_rate("crc_errors_per_hour", "crc", "%.3g",
			   r->rate[TREND_CRC], "/h");
	history_print_rate("replays_per_hour", "replays", "%.3g",
			   r->rate[TREND_REPLAYS], "/h");
	history_print_rate("down_events_per_day", "down", "%.3g",
			   r->rate[TREND_DOWN], "/day");
	print_double("ber", " ber %.3g", (double)r->ber / 1e18);
	print_double("ber_threshold", NULL, (double)r->ber_threshold / 1e18);
	history_print_rate("ber_slope_per_day", "slope", "%+.3g", r->ber_slope,
			   "/day");
	print_u64("samples", " samples %llu", r->samples);
	print_s64("first", NULL, r->first);
	print_s64("last", NULL, r->last);
	print_s64("window", NULL, r->last - r->first);
	history_print_span(r->last - r->first);
	history_print_flags("rising", "rising", r->rising, false);
	history_print_flags("past_threshold", "past-threshold", r->past, true);
	print_bool("flagged", NULL, r->rising || r->past);
	print_nl();
	print_close_object();
}

enum {
	TREND_OPT_SINCE,
	TREND_OPT_MAX_CRC,
	TREND_OPT_MAX_REPLAYS,
	TREND_OPT_MAX_DOWN,
	TREND_OPT_JSON,
	TREND_OPT_PRETTY,
};

static const struct tool_opt trend_opts[] = {
	{ "-since", TREND_OPT_SINCE, true, true },
	{ "-max-crc", TREND_OPT_MAX_CRC, true, true },
	{ "-max-replays", TREND_OPT_MAX_REPLAYS, true, true },
	{ "-max-down", TREND_OPT_MAX_DOWN, true, true },
	{ "-json", TREND_OPT_JSON, false, false },
	{ "-pretty", TREND_OPT_PRETTY, false, false },
	{ NULL, 0, false, false }
};

static int trend_rate_arg(const char *opt, const char *s, double *v)
{
	char *end;

	*v = strtod(s, &end);
	if (end == s || *end || !(*v >= 0) || !isfinite(*v))
		return snodectl_usage("link", "link trend: bad %s \"%s\" (a rate >= 0)",
				      opt, s);
	return 0;
}

/* link trend FILE [ since DUR ] [ max-crc N ] ... */
int link_trend(struct snodectl *sc)
{
	struct record_file h = { 0 };
	struct trend_limits lim;
	const char *val = NULL;
	int64_t since = 0, cutoff;
	unsigned int i, flagged = 0, judged = 0;
	bool json = sc->json, pretty = sc->pretty;
	int id, ret;

	trend_limits_default(&lim);
	while (sc->argc > 0) {
		id = snodectl_next_opt(sc, trend_opts, &val);
		switch (id) {
		case -2:
			return TOOL_EXIT_USAGE;
		case -1:
			if (h.file)
				return snodectl_no_more(sc);
			h.file = snodectl_arg_next(sc);
			break;
		case TREND_OPT_SINCE:
			since = trend_parse_duration(val);
			if (since < 0)
				return snodectl_usage("link", "link trend: bad %s \"%s\" (e.g. 90m, 24h, 7d, 2w)",
						      tool_opt_word(), val);
			break;
		case TREND_OPT_MAX_CRC:
		case TREND_OPT_MAX_REPLAYS:
		case TREND_OPT_MAX_DOWN:
			ret = trend_rate_arg(tool_opt_word(), val,
					     &lim.max_rate[id - TREND_OPT_MAX_CRC]);
			if (ret)
				return ret;
			break;
		case TREND_OPT_JSON:
			json = true;
			break;
		case TREND_OPT_PRETTY:
			pretty = true;
			break;
		}
	}
	if (!h.file)
		return snodectl_usage("link", "link trend: missing the record file (snodectl link diag record FILE)");
	/* -j after the command as well as before it */
	print_init(json, pretty);

	ret = record_read(&h);
	if (ret)
		goto out;
	/* the window ends at the newest record, not now (snodectl(8)) */
	cutoff = !since || h.newest < INT64_MIN + since ? INT64_MIN :
		 h.newest - since;
	for (i = 0; i < h.n; i++) {
		trend_compute(h.links[i].s, h.links[i].n, cutoff, &lim,
			      &h.links[i].r);
		if (h.links[i].r.samples)
			judged++;
	}
	if (!judged) {
		snodectl_err("link trend: %s: no samples%s", h.file,
			     h.records && since ? " in the since window" : "");
		ret = SNODECTL_HEALTH_UNKNOWN;
		goto out;
	}
	qsort(h.links, h.n, sizeof(*h.links), record_link_cmp);
	print_open_array("links");
	for (i = 0; i < h.n; i++) {
		if (!h.links[i].r.samples)
			continue;
		history_print_link(&h.links[i]);
		if (h.links[i].r.rising || h.links[i].r.past)
			flagged++;
	}
	print_close_array();
	if (since)
		print_s64("since", NULL, since);
	else
		print_null("since", NULL);
	print_u64("flagged", "%llu", flagged);
	print_text(" of %u links flagged\n", judged);
	/* health's warning: the document is printed, the status says it */
	if (print_flush(true))
		ret = snodectl_err("writing output failed");
	else
		ret = flagged ? SNODECTL_HEALTH_WARNING : SNODECTL_HEALTH_OK;
out:
	record_free(&h);
	return ret;
}
