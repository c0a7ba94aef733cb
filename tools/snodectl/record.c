// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: the link record file of snodectl link diag and link trend
 *
 * One snapshot of every link as one JSON object on one line (JSON Lines):
 * record_line() writes it from plain struct snode_link_info values, and
 * record_read() reads a file of them back into one series of samples per
 * link (host, device, port) for trend.c, checking each line: a record file
 * is input, so every fault is named by FILE:LINE. Neither touches the
 * device, so the host tests hold the writer and the reader together.
 * snodectl(8) documents the format.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "record.h"
#include "snodectl.h"

/* A double as the print path writes it: the shortest form that reads back. */
static struct json_object *record_double(double v)
{
	char buf[32];
	int prec;

	for (prec = 15; prec < 17; prec++) {
		snprintf(buf, sizeof(buf), "%.*g", prec, v);
		if (strtod(buf, NULL) == v)
			break;
	}
	return json_object_new_double_s(v, buf);
}

static void record_add_u64(struct json_object *o, const char *key,
			    uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

static struct json_object *record_link_json(const struct snode_link_info *li)
{
	struct json_object *o = json_object_new_object();

	json_object_object_add(o, "dev", json_object_new_string(li->dev_name));
	record_add_u64(o, "port", li->port);
	json_object_object_add(o, "admin", json_object_new_string(
				       li->admin_state ? "up" : "down"));
	json_object_object_add(o, "oper", json_object_new_string(
				       link_oper_name(li->oper_state)));
	record_add_u64(o, "lanes", li->lanes);
	record_add_u64(o, "max_lanes", li->max_lanes);
	record_add_u64(o, "speed", li->speed);
	record_add_u64(o, "crc_errors", li->crc_errors);
	record_add_u64(o, "replays", li->replays);
	record_add_u64(o, "recoveries", li->recoveries);
	record_add_u64(o, "down_events", li->down_events);
	record_add_u64(o, "tx_bytes", li->tx_bytes);
	record_add_u64(o, "rx_bytes", li->rx_bytes);
	json_object_object_add(o, "ber",
			       record_double(snode_ber_to_double(li->ber)));
	record_add_u64(o, "ber_e18", li->ber);
	json_object_object_add(o, "ber_threshold", record_double(
				       snode_ber_to_double(li->ber_threshold)));
	record_add_u64(o, "ber_threshold_e18", li->ber_threshold);
	json_object_object_add(o, "ber_alarm",
			       json_object_new_boolean(li->ber_alarm));
	/*
	 * Neither the netlink family nor struct snode_link_info says when
	 * the counters were last cleared: null rather than a guess.
	 */
	json_object_object_add(o, "counters_age", NULL);
	return o;
}

char *record_line(const struct snode_link_info *li, unsigned int n,
		  int64_t now, const char *host)
{
	struct json_object *rec, *links;
	time_t t = (time_t)now;
	char stamp[32];
	unsigned int i;
	struct tm tm;
	char *line;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return NULL;
	rec = json_object_new_object();
	json_object_object_add(rec, "version",
			       json_object_new_int(TREND_RECORD_VERSION));
	json_object_object_add(rec, "time", json_object_new_string(stamp));
	json_object_object_add(rec, "unix", json_object_new_int64(now));
	json_object_object_add(rec, "host", json_object_new_string(host));
	links = json_object_new_array();
	for (i = 0; i < n; i++)
		json_object_array_add(links, record_link_json(&li[i]));
	json_object_object_add(rec, "links", links);
	if (asprintf(&line, "%s\n", json_object_to_json_string_ext(
			     rec, JSON_C_TO_STRING_PLAIN)) < 0)
		line = NULL;
	json_object_put(rec);
	return line;
}


void record_free(struct record_file *h)
{
	unsigned int i;

	for (i = 0; i < h->n; i++) {
		free(h->links[i].host);
		free(h->links[i].dev);
		free(h->links[i].s);
	}
	free(h->links);
}

static void *record_grow(void *p, unsigned int *cap, unsigned int n,
			  size_t size)
{
	void *q;

	if (n < *cap)
		return p;
	q = reallocarray(p, *cap ? *cap * 2 : 8, size);
	if (q)
		*cap = *cap ? *cap * 2 : 8;
	return q;
}

static struct record_link *record_find(struct record_file *h, const char *host,
					 const char *dev, unsigned int port)
{
	struct record_link *l, *links;
	unsigned int i;

	for (i = 0; i < h->n; i++) {
		l = &h->links[i];
		if (l->port == port && !strcmp(l->dev, dev) &&
		    !strcmp(l->host, host))
			return l;
	}
	links = record_grow(h->links, &h->cap, h->n, sizeof(*links));
	if (!links)
		return NULL;
	h->links = links;
	l = &h->links[h->n];
	*l = (struct record_link){ .host = strdup(host), .dev = strdup(dev),
				    .port = port };
	if (!l->host || !l->dev) {
		free(l->host);
		free(l->dev);
		return NULL;
	}
	h->n++;
	return l;
}

/* Record errors: FILE:LINE: what, a usage error (bad input, exit 64). */
#define record_bad(h, lineno, fmt, ...) \
	tool_usage_err("%s:%u: " fmt, (h)->file, (lineno), ##__VA_ARGS__)

/* A whole number >= 0 under @key of @o; 0 or an exit status. */
static int record_u64(struct record_file *h, unsigned int lineno,
		       struct json_object *o, const char *what,
		       const char *key, uint64_t *v)
{
	struct json_object *j;

	if (!json_object_object_get_ex(o, key, &j) ||
	    !json_object_is_type(j, json_type_int) ||
	    json_object_get_int64(j) < 0)
		return record_bad(h, lineno, "%s\"%s\" missing or not a whole number >= 0",
				   what, key);
	*v = json_object_get_uint64(j);
	return 0;
}

static const char *record_str(struct json_object *o, const char *key)
{
	struct json_object *j;

	if (!json_object_object_get_ex(o, key, &j) ||
	    !json_object_is_type(j, json_type_string))
		return NULL;
	return json_object_get_string(j);
}

static int record_add_link(struct record_file *h, unsigned int lineno,
			    const char *host, int64_t t, unsigned int idx,
			    struct json_object *jl)
{
	struct trend_sample smp = { .time = t };
	struct record_link *l;
	struct trend_sample *s;
	char what[32];
	const char *dev;
	uint64_t port;
	int ret;

	snprintf(what, sizeof(what), "link %u: ", idx);
	if (!json_object_is_type(jl, json_type_object))
		return record_bad(h, lineno, "%snot a JSON object", what);
	dev = record_str(jl, "dev");
	if (!dev || !*dev)
		return record_bad(h, lineno, "%s\"dev\" missing or not a string",
				   what);
	ret = record_u64(h, lineno, jl, what, "port", &port);
	if (!ret)
		ret = record_u64(h, lineno, jl, what, "crc_errors",
				  &smp.crc_errors);
	if (!ret)
		ret = record_u64(h, lineno, jl, what, "replays", &smp.replays);
	if (!ret)
		ret = record_u64(h, lineno, jl, what, "down_events",
				  &smp.down_events);
	if (!ret)
		ret = record_u64(h, lineno, jl, what, "ber_e18", &smp.ber);
	if (!ret)
		ret = record_u64(h, lineno, jl, what, "ber_threshold_e18",
				  &smp.ber_threshold);
	if (ret)
		return ret;
	if (port > 255)
		return record_bad(h, lineno, "%sport %llu is not 0..255", what,
				   (unsigned long long)port);
	l = record_find(h, host, dev, port);
	if (!l)
		return tool_err("link trend: out of memory");
	if (l->n && t <= l->s[l->n - 1].time)
		return record_bad(h, lineno, "time %lld of %s%s%s/%u is not after line %u's (%lld)",
				   (long long)t, host, *host ? " " : "", dev,
				   l->port, l->line,
				   (long long)l->s[l->n - 1].time);
	s = record_grow(l->s, &l->cap, l->n, sizeof(*s));
	if (!s)
		return tool_err("link trend: out of memory");
	l->s = s;
	l->s[l->n++] = smp;
	l->line = lineno;
	return 0;
}

static int record_parse_line(struct record_file *h, unsigned int lineno,
			      const char *line, size_t len)
{
	struct json_object *rec, *j, *links;
	enum json_tokener_error jerr;
	struct json_tokener *tok;
	const char *host;
	size_t i, n, end;
	int64_t t, v;
	int ret = 0;

	if (line[strspn(line, " \t\r\n")] == '\0')
		return record_bad(h, lineno, "an empty line (one record a line)");
	tok = json_tokener_new();
	if (!tok)
		return tool_err("link trend: out of memory");
	rec = json_tokener_parse_ex(tok, line, len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!rec && jerr == json_tokener_continue)
		return record_bad(h, lineno, "the JSON object is cut short (a partial write?)");
	if (!rec)
		return record_bad(h, lineno, "not a JSON object (%s)",
				   json_tokener_error_desc(jerr));
	/* one record a line: two means a lost newline */
	end += strspn(line + end, " \t\r\n");
	if (end != len) {
		ret = record_bad(h, lineno, "text after the JSON object at column %zu",
				  end + 1);
		goto out;
	}
	if (!json_object_is_type(rec, json_type_object)) {
		ret = record_bad(h, lineno, "not a JSON object");
		goto out;
	}
	if (!json_object_object_get_ex(rec, "version", &j) ||
	    !json_object_is_type(j, json_type_int)) {
		ret = record_bad(h, lineno, "no format \"version\" (not a snodectl link diag record?)");
		goto out;
	}
	v = json_object_get_int64(j);
	if (v != TREND_RECORD_VERSION) {
		ret = record_bad(h, lineno, "format version %lld is unknown (this snodectl reads version %d)",
				  (long long)v, TREND_RECORD_VERSION);
		goto out;
	}
	if (!json_object_object_get_ex(rec, "unix", &j) ||
	    !json_object_is_type(j, json_type_int)) {
		ret = record_bad(h, lineno, "\"unix\" missing or not a whole number");
		goto out;
	}
	t = json_object_get_int64(j);
	host = record_str(rec, "host");
	if (!host) {
		ret = record_bad(h, lineno, "\"host\" missing or not a string");
		goto out;
	}
	if (!json_object_object_get_ex(rec, "links", &links) ||
	    !json_object_is_type(links, json_type_array)) {
		ret = record_bad(h, lineno, "\"links\" missing or not an array");
		goto out;
	}
	n = json_object_array_length(links);
	for (i = 0; i < n && !ret; i++)
		ret = record_add_link(h, lineno, host, t, i,
				       json_object_array_get_idx(links, i));
	if (!ret) {
		if (!h->records || t > h->newest)
			h->newest = t;
		h->records++;
	}
out:
	json_object_put(rec);
	return ret;
}

int record_read(struct record_file *h)
{
	unsigned int lineno = 0;
	size_t cap = 0;
	char *line = NULL;
	ssize_t len;
	int ret = 0;
	FILE *f;

	/* "-": standard input, e.g. several hosts' files through cat */
	f = strcmp(h->file, "-") ? fopen(h->file, "re") : stdin;
	if (!f) {
		tool_err("link trend: cannot open %s: %s", h->file,
			 strerror(errno));
		return SNODECTL_HEALTH_UNKNOWN;
	}
	while (!ret && (len = getline(&line, &cap, f)) >= 0) {
		lineno++;
		if ((size_t)len != strlen(line)) {
			ret = record_bad(h, lineno, "a NUL byte in the line");
			break;
		}
		ret = record_parse_line(h, lineno, line, len);
	}
	if (!ret && ferror(f)) {
		tool_err("link trend: reading %s failed", h->file);
		ret = SNODECTL_HEALTH_UNKNOWN;
	}
	free(line);
	if (f != stdin)
		fclose(f);
	return ret;
}

int record_link_cmp(const void *a, const void *b)
{
	const struct record_link *x = a, *y = b;
	int c = strcmp(x->host, y->host);

	if (!c)
		c = strcmp(x->dev, y->dev);
	return c ? c : (int)x->port - (int)y->port;
}
