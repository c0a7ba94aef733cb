// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * DOC: the sensor baseline file and the drift rule
 *
 * snodectl sensor baseline record appends one JSON object per NIC, on one
 * line (JSON Lines), with the NIC's identity, the temperature and power it
 * read and the load the operator says it was under; health --baseline
 * reads the file back and compares each NIC with its entry of the nearest
 * power. A baseline file is input: every fault is named by FILE:LINE and
 * the field. Nothing here touches a device, so the host tests hold the
 * writer, the reader and the rule together. snodectl(8) documents the
 * format and the rule.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <json-c/json.h>

#include "baseline.h"
#include "snodectl.h"

/*
 * A decimal with at most three places, as thousandths: "87.5" is 87500.
 * No exponent, no blanks; a sign only where @sign allows. 0 or -1.
 */
static int parse_milli(const char *s, bool sign, long long *out,
		       char *why, size_t len)
{
	long long v = 0;
	int places = -1;
	bool neg = false;
	const char *p = s;

	if (*p == '-' && sign) {
		neg = true;
		p++;
	}
	if (!isdigit((unsigned char)*p)) {
		snprintf(why, len, "\"%s\" is not a number", s);
		return -1;
	}
	for (; *p; p++) {
		if (*p == '.' && places < 0) {
			places = 0;
			continue;
		}
		if (!isdigit((unsigned char)*p)) {
			snprintf(why, len, "\"%s\" is not a number", s);
			return -1;
		}
		if (places >= 3) {
			snprintf(why, len, "\"%s\": at most three decimals", s);
			return -1;
		}
		if (v > LLONG_MAX / 100) {
			snprintf(why, len, "\"%s\" is out of range", s);
			return -1;
		}
		v = v * 10 + (*p - '0');
		if (places >= 0)
			places++;
	}
	if (places == 0) {
		snprintf(why, len, "\"%s\" is not a number", s);
		return -1;
	}
	for (places = places < 0 ? 0 : places; places < 3; places++)
		v *= 10;
	*out = neg ? -v : v;
	return 0;
}

int sensor_parse_temp(const char *s, long *mc, char *why, size_t len)
{
	long long v;

	if (parse_milli(s, true, &v, why, len))
		return -1;
	if (v < SENSOR_TEMP_MIN_MC || v > SENSOR_TEMP_MAX_MC) {
		snprintf(why, len, "%s C is out of range (%ld to %ld C)", s,
			 SENSOR_TEMP_MIN_MC / 1000, SENSOR_TEMP_MAX_MC / 1000);
		return -1;
	}
	*mc = (long)v;
	return 0;
}

int sensor_parse_power(const char *s, long *uw, char *why, size_t len)
{
	long long v;	/* mW */

	if (parse_milli(s, false, &v, why, len))
		return -1;
	if (v <= 0 || v > SENSOR_POWER_MAX_UW / 1000) {
		snprintf(why, len, "%s W is out of range (above 0, at most %ld W)",
			 s, SENSOR_POWER_MAX_UW / 1000000);
		return -1;
	}
	*uw = (long)v * 1000;
	return 0;
}

bool baseline_load_ok(const char *s)
{
	size_t n = strlen(s);

	if (!n || n > 32)
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && !strchr("._%+-", *s))
			return false;
	return true;
}

/* ------------------------------------------------------------------ */
/* the writer                                                          */

char *baseline_line(const struct baseline_entry *e, int64_t now,
		    const char *host)
{
	struct json_object *o;
	time_t t = (time_t)now;
	char stamp[32];
	struct tm tm;
	char *line;

	if (!gmtime_r(&t, &tm) ||
	    !strftime(stamp, sizeof(stamp), "%Y-%m-%dT%H:%M:%SZ", &tm))
		return NULL;
	o = json_object_new_object();
	json_object_object_add(o, "version",
			       json_object_new_int(BASELINE_VERSION));
	json_object_object_add(o, "time", json_object_new_string(stamp));
	json_object_object_add(o, "unix", json_object_new_int64(now));
	json_object_object_add(o, "host", json_object_new_string(host));
	json_object_object_add(o, "dev", json_object_new_string(e->dev));
	json_object_object_add(o, "serial",
			       json_object_new_string(e->id.serial));
	json_object_object_add(o, "fabric",
			       json_object_new_int64(e->id.fabric));
	json_object_object_add(o, "node", e->id.have_node ?
			       json_object_new_int64(e->id.node) : NULL);
	json_object_object_add(o, "load", e->load[0] ?
			       json_object_new_string(e->load) : NULL);
	json_object_object_add(o, "temp_mC", json_object_new_int64(e->temp));
	json_object_object_add(o, "power_uW",
			       json_object_new_int64(e->power));
	if (asprintf(&line, "%s\n", json_object_to_json_string_ext(
			     o, JSON_C_TO_STRING_PLAIN)) < 0)
		line = NULL;
	json_object_put(o);
	return line;
}

/* ------------------------------------------------------------------ */
/* the reader                                                          */

/* A fault of a line: FILE:LINE: what, a usage error (bad input, exit 64). */
#define baseline_bad(b, lineno, fmt, ...) \
	tool_usage_err("%s:%u: " fmt, (b)->file, (lineno), ##__VA_ARGS__)

void baseline_free(struct baseline_file *b)
{
	free(b->e);
	b->e = NULL;
	b->n = 0;
	b->cap = 0;
}

/* A whole number in [min, max] under @key; 0 or an exit status. */
static int baseline_int(struct baseline_file *b, unsigned int lineno,
			struct json_object *o, const char *key, int64_t min,
			int64_t max, int64_t *v)
{
	struct json_object *j;

	if (!json_object_object_get_ex(o, key, &j) ||
	    !json_object_is_type(j, json_type_int))
		return baseline_bad(b, lineno, "field \"%s\": missing or not a whole number",
				    key);
	errno = 0;
	*v = json_object_get_int64(j);
	if (errno || *v < min || *v > max)
		return baseline_bad(b, lineno, "field \"%s\": %s out of range (%lld to %lld)",
				    key, json_object_to_json_string(j),
				    (long long)min, (long long)max);
	return 0;
}

/*
 * A string of at most @size - 1 bytes under @key into @buf; absent or
 * null leaves "" where @optional. 0 or an exit status.
 */
static int baseline_str(struct baseline_file *b, unsigned int lineno,
			struct json_object *o, const char *key, bool optional,
			char *buf, size_t size)
{
	struct json_object *j = NULL;
	const char *s;

	buf[0] = '\0';
	if (!json_object_object_get_ex(o, key, &j) || !j) {
		if (optional)
			return 0;
		return baseline_bad(b, lineno, "field \"%s\": missing", key);
	}
	if (!json_object_is_type(j, json_type_string))
		return baseline_bad(b, lineno, "field \"%s\": not a string", key);
	s = json_object_get_string(j);
	if (strlen(s) >= size)
		return baseline_bad(b, lineno, "field \"%s\": longer than %zu characters",
				    key, size - 1);
	strcpy(buf, s);
	return 0;
}

static int baseline_entry(struct baseline_file *b, unsigned int lineno,
			  struct json_object *o, struct baseline_entry *e)
{
	struct json_object *j;
	int64_t v;
	int ret;

	memset(e, 0, sizeof(*e));
	e->line = lineno;
	ret = baseline_int(b, lineno, o, "version", 0, INT32_MAX, &v);
	if (ret)
		return ret;
	if (v != BASELINE_VERSION)
		return baseline_bad(b, lineno, "field \"version\": %lld, this snodectl reads version %d",
				    (long long)v, BASELINE_VERSION);
	ret = baseline_str(b, lineno, o, "serial", false, e->id.serial,
			   sizeof(e->id.serial));
	if (!ret)
		ret = baseline_str(b, lineno, o, "dev", true, e->dev,
				   sizeof(e->dev));
	if (!ret)
		ret = baseline_str(b, lineno, o, "load", true, e->load,
				   sizeof(e->load));
	if (ret)
		return ret;
	if (e->load[0] && !baseline_load_ok(e->load))
		return baseline_bad(b, lineno, "field \"load\": \"%s\" is not a load label ([A-Za-z0-9._%%+-])",
				    e->load);
	if (json_object_object_get_ex(o, "node", &j) && j) {
		ret = baseline_int(b, lineno, o, "node", 0, UINT32_MAX - 1, &v);
		if (ret)
			return ret;
		e->id.node = (uint32_t)v;
		ret = baseline_int(b, lineno, o, "fabric", 0, UINT32_MAX, &v);
		if (ret)
			return ret;
		e->id.fabric = (uint32_t)v;
		e->id.have_node = true;
	}
	if (!e->id.serial[0] && !e->id.have_node)
		return baseline_bad(b, lineno, "field \"serial\": empty, and no \"node\" to name the NIC by");
	ret = baseline_int(b, lineno, o, "temp_mC", SENSOR_TEMP_MIN_MC,
			   SENSOR_TEMP_MAX_MC, &v);
	if (ret)
		return ret;
	e->temp = (long)v;
	ret = baseline_int(b, lineno, o, "power_uW", 1, SENSOR_POWER_MAX_UW,
			   &v);
	if (ret)
		return ret;
	e->power = (long)v;
	if (json_object_object_get_ex(o, "unix", &j) && j) {
		ret = baseline_int(b, lineno, o, "unix", 0, INT64_MAX, &v);
		if (ret)
			return ret;
		e->unix_time = v;
	}
	return 0;
}

static int baseline_add_line(struct baseline_file *b, unsigned int lineno,
			     const char *line, size_t len)
{
	struct json_tokener *tok;
	struct baseline_entry *e;
	struct json_object *o;
	size_t i;
	int ret;

	for (i = 0; i < len && isspace((unsigned char)line[i]); i++)
		;
	if (i == len)
		return 0;	/* blank lines are allowed */
	tok = json_tokener_new();
	if (!tok)
		return baseline_bad(b, lineno, "out of memory");
	o = json_tokener_parse_ex(tok, line, (int)len);
	if (!o || json_tokener_get_error(tok) != json_tokener_success ||
	    json_tokener_get_parse_end(tok) != len) {
		enum json_tokener_error err = json_tokener_get_error(tok);
		size_t end = json_tokener_get_parse_end(tok);

		json_object_put(o);
		json_tokener_free(tok);
		if (err == json_tokener_continue)
			return baseline_bad(b, lineno, "not JSON: the object does not end on this line");
		if (err == json_tokener_success)
			return baseline_bad(b, lineno, "not one JSON object (column %zu)",
					    end + 1);
		return baseline_bad(b, lineno, "not JSON: %s (column %zu)",
				    json_tokener_error_desc(err), end + 1);
	}
	json_tokener_free(tok);
	if (!json_object_is_type(o, json_type_object)) {
		json_object_put(o);
		return baseline_bad(b, lineno, "not a JSON object");
	}
	if (b->n == b->cap) {
		e = reallocarray(b->e, b->cap ? b->cap * 2 : 8, sizeof(*e));
		if (!e) {
			json_object_put(o);
			return baseline_bad(b, lineno, "out of memory");
		}
		b->e = e;
		b->cap = b->cap ? b->cap * 2 : 8;
	}
	ret = baseline_entry(b, lineno, o, &b->e[b->n]);
	json_object_put(o);
	if (!ret)
		b->n++;
	return ret;
}

int baseline_parse(struct baseline_file *b, const char *text)
{
	unsigned int lineno = 0;
	const char *p = text, *nl;
	int ret;

	b->e = NULL;
	b->n = b->cap = 0;
	while (*p) {
		nl = strchr(p, '\n');
		lineno++;
		ret = baseline_add_line(b, lineno, p,
					nl ? (size_t)(nl - p) : strlen(p));
		if (ret) {
			baseline_free(b);
			return ret;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!b->n) {
		baseline_free(b);
		return tool_usage_err("%s: no baseline entries (snodectl sensor baseline record)",
				      b->file);
	}
	return 0;
}

int baseline_read(struct baseline_file *b)
{
	size_t len = 0, cap = 0, n;
	char *text = NULL, *t;
	FILE *f;
	int ret;

	b->e = NULL;
	b->n = b->cap = 0;
	f = fopen(b->file, "re");
	if (!f) {
		tool_err("cannot read baseline %s: %s", b->file,
			 strerror(errno));
		return SNODECTL_HEALTH_UNKNOWN;
	}
	for (;;) {
		if (cap - len < 4096) {
			t = realloc(text, cap + 65536);
			if (!t) {
				free(text);
				fclose(f);
				tool_err("baseline %s: out of memory", b->file);
				return SNODECTL_HEALTH_UNKNOWN;
			}
			text = t;
			cap += 65536;
		}
		n = fread(text + len, 1, cap - len - 1, f);
		len += n;
		if (!n)
			break;
	}
	if (ferror(f)) {
		tool_err("cannot read baseline %s: %s", b->file,
			 strerror(errno ? errno : EIO));
		free(text);
		fclose(f);
		return SNODECTL_HEALTH_UNKNOWN;
	}
	fclose(f);
	text[len] = '\0';
	if (strlen(text) != len) {
		free(text);
		return tool_usage_err("%s: not a baseline file (a NUL byte)",
				      b->file);
	}
	ret = baseline_parse(b, text);
	free(text);
	return ret;
}

/* ------------------------------------------------------------------ */
/* the rule                                                            */

static bool baseline_same_nic(const struct baseline_id *a,
			      const struct baseline_id *b)
{
	if (a->serial[0] && b->serial[0])
		return !strcmp(a->serial, b->serial);
	return a->have_node && b->have_node && a->fabric == b->fabric &&
	       a->node == b->node;
}

void baseline_compare(const struct baseline_file *b,
		      const struct baseline_id *id, long temp, long power,
		      struct baseline_cmp *c)
{
	long best = 0, d;
	unsigned int i;

	memset(c, 0, sizeof(*c));
	for (i = 0; i < b->n; i++) {
		if (!baseline_same_nic(&b->e[i].id, id))
			continue;
		d = labs(power - b->e[i].power);
		/* the latest of equals: a new record replaces an old one */
		if (!c->e || d <= best) {
			c->e = &b->e[i];
			best = d;
		}
	}
	if (!c->e)
		return;
	/* both below 1000 W in uW: no overflow in a long of 64 bits */
	c->compared = (long long)best * 100 <=
		      (long long)BASELINE_POWER_PCT * c->e->power;
	c->delta = temp - c->e->temp;
	c->drift = c->compared && c->delta > BASELINE_DRIFT_MC;
}

void baseline_judge(struct health_dev *h, const struct baseline_file *b,
		    const struct baseline_id *id, const struct baseline_cmp *c)
{
	if (!c->e) {
		if (id->serial[0])
			health_problem(h, HEALTH_WARNING,
				       "no baseline for serial %s in %s",
				       id->serial, b->file);
		else
			health_problem(h, HEALTH_WARNING,
				       "no baseline for fabric %u node %u in %s",
				       id->fabric, id->node, b->file);
		return;
	}
	if (c->drift)
		health_problem(h, HEALTH_WARNING,
			       "temperature drift: +%.1f C over baseline %.1f C at %.3f W (load %s)",
			       c->delta / 1000.0, c->e->temp / 1000.0,
			       c->e->power / 1e6,
			       c->e->load[0] ? c->e->load : "-");
}
