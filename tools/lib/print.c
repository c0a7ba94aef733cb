// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The one print path of the snode tools: text and JSON (json-c) from the
 * same calls. See print.h.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "print.h"

#define PRINT_DEPTH 16

static struct print_opts print_o;
static struct json_object *print_stack[PRINT_DEPTH];
static int print_top = -1;
/* opens beyond PRINT_DEPTH, dropped with their contents */
static int print_lost;

static void print_vout(const char *fmt, va_list ap)
{
	char *s;

	if (!print_o.sink) {
		vprintf(fmt, ap);
		return;
	}
	if (vasprintf(&s, fmt, ap) < 0)
		return;
	print_o.sink(print_o.sink_arg, s);
	free(s);
}

static void print_out(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	print_vout(fmt, ap);
	va_end(ap);
}

static void print_drop(void)
{
	if (print_top >= 0)
		json_object_put(print_stack[0]);
	print_top = -1;
	print_lost = 0;
}

void print_begin(const struct print_opts *opts)
{
	print_drop();
	print_o = *opts;
	if (print_o.json)
		print_stack[++print_top] = print_o.root_array ?
					   json_object_new_array() :
					   json_object_new_object();
}

void print_init(bool json, bool pretty)
{
	struct print_opts o = { .json = json, .pretty = pretty };

	print_begin(&o);
}

bool print_is_json(void)
{
	return print_o.json;
}

/* Put a value into the innermost container; KEY is ignored in arrays. */
static void print_add(const char *key, struct json_object *val)
{
	struct json_object *top;

	if (print_top < 0 || print_lost) {
		json_object_put(val);
		return;
	}
	top = print_stack[print_top];
	if (json_object_is_type(top, json_type_array))
		json_object_array_add(top, val);
	else if (key)
		json_object_object_add(top, key, val);
	else
		json_object_put(val);	/* a value without a name in an object */
}

static void print_push(const char *key, struct json_object *obj)
{
	if (print_lost || print_top < 0 || print_top + 1 >= PRINT_DEPTH) {
		json_object_put(obj);
		print_lost++;
		return;
	}
	/* an object without a name in an object is that object: its members join */
	if (!key && json_object_is_type(obj, json_type_object) &&
	    json_object_is_type(print_stack[print_top], json_type_object)) {
		json_object_put(obj);
		obj = print_stack[print_top];
	} else {
		print_add(key, obj);
	}
	print_stack[++print_top] = obj;
}

static void print_pop(void)
{
	if (print_lost)
		print_lost--;
	else if (print_top > 0)
		print_top--;
}

void print_open_array(const char *key)
{
	if (print_o.json)
		print_push(key, json_object_new_array());
}

void print_close_array(void)
{
	if (print_o.json)
		print_pop();
}

void print_open_object(const char *key)
{
	if (print_o.json)
		print_push(key, json_object_new_object());
}

void print_close_object(void)
{
	if (print_o.json)
		print_pop();
}

static const char *print_json_string(bool pretty)
{
	int flags = pretty ? JSON_C_TO_STRING_PRETTY : JSON_C_TO_STRING_PLAIN;

	return json_object_to_json_string_ext(print_stack[0],
					      flags | JSON_C_TO_STRING_NOSLASHESCAPE);
}

int print_json_to(FILE *f, bool pretty)
{
	if (!print_o.json || print_top < 0)
		return 0;
	fputs(print_json_string(pretty), f);
	fputc('\n', f);
	return ferror(f) ? 1 : 0;
}

int print_flush(bool emit)
{
	if (print_o.json && print_top >= 0 && emit)
		print_out("%s\n", print_json_string(print_o.pretty));
	print_drop();
	if (print_o.sink)
		return 0;
	return fflush(stdout) || ferror(stdout) ? 1 : 0;
}

void print_str(const char *key, const char *fmt, const char *val)
{
	if (print_o.json)
		print_add(key, json_object_new_string(val));
	else if (fmt)
		print_out(fmt, val);
}

void print_u64(const char *key, const char *fmt, uint64_t val)
{
	if (print_o.json)
		print_add(key, json_object_new_uint64(val));
	else if (fmt)
		print_out(fmt, (unsigned long long)val);
}

void print_s64(const char *key, const char *fmt, int64_t val)
{
	if (print_o.json)
		print_add(key, json_object_new_int64(val));
	else if (fmt)
		print_out(fmt, (long long)val);
}

void print_hex(const char *key, const char *fmt, uint64_t val)
{
	print_u64(key, fmt, val);
}

void print_bool(const char *key, const char *fmt, bool val)
{
	if (print_o.json)
		print_add(key, json_object_new_boolean(val));
	else if (fmt)
		print_out(fmt, val ? "yes" : "no");
}

void print_double(const char *key, const char *fmt, double val)
{
	char buf[32];
	int prec;

	if (print_o.json && !isfinite(val)) {
		/* NaN and infinities have no JSON form */
		print_add(key, NULL);
	} else if (print_o.json) {
		for (prec = 15; prec < 17; prec++) {
			snprintf(buf, sizeof(buf), "%.*g", prec, val);
			if (strtod(buf, NULL) == val)
				break;
		}
		if (prec == 17)
			snprintf(buf, sizeof(buf), "%.17g", val);
		print_add(key, json_object_new_double_s(val, buf));
	} else if (fmt)
		print_out(fmt, val);
}

void print_null(const char *key, const char *fmt)
{
	if (print_o.json)
		print_add(key, NULL);
	else if (fmt)
		print_out("%s", fmt);
}

void print_text(const char *fmt, ...)
{
	va_list ap;

	if (print_o.json)
		return;
	va_start(ap, fmt);
	print_vout(fmt, ap);
	va_end(ap);
}

void print_nl(void)
{
	if (!print_o.json)
		print_out("\n");
}
