// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl print path: text and JSON (json-c) from the same calls, as
 * iproute2's json_print does.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <json-c/json.h>

#include "snodectl.h"

#define PRINT_DEPTH 16

static bool print_json;
static bool print_pretty;
static struct json_object *print_stack[PRINT_DEPTH];
static int print_top = -1;

void print_init(struct snodectl *sc)
{
	print_json = sc->json;
	print_pretty = sc->pretty;
	print_top = -1;
	if (print_json)
		print_stack[++print_top] = json_object_new_object();
}

/* Put a value into the innermost container; KEY is ignored in arrays. */
static void print_add(const char *key, struct json_object *val)
{
	struct json_object *top = print_stack[print_top];

	if (json_object_is_type(top, json_type_array))
		json_object_array_add(top, val);
	else
		json_object_object_add(top, key, val);
}

static void print_push(const char *key, struct json_object *obj)
{
	if (print_top + 1 >= PRINT_DEPTH) {
		json_object_put(obj);
		return;
	}
	print_add(key, obj);
	print_stack[++print_top] = obj;
}

void print_open_array(const char *key)
{
	if (print_json)
		print_push(key, json_object_new_array());
}

void print_close_array(void)
{
	if (print_json && print_top > 0)
		print_top--;
}

void print_open_object(const char *key)
{
	if (print_json)
		print_push(key, json_object_new_object());
}

void print_close_object(void)
{
	if (print_json && print_top > 0)
		print_top--;
}

/*
 * Print the JSON document built so far, or drop it when the command failed
 * (its error is on stderr; half a document on stdout helps nobody).
 * Returns 1 if stdout failed.
 */
int print_flush(bool emit)
{
	if (print_json && print_top >= 0 && !emit) {
		json_object_put(print_stack[0]);
		print_top = -1;
	}
	if (print_json && print_top >= 0) {
		int flags = print_pretty ? JSON_C_TO_STRING_PRETTY :
					   JSON_C_TO_STRING_PLAIN;

		puts(json_object_to_json_string_ext(print_stack[0], flags));
		json_object_put(print_stack[0]);
		print_top = -1;
	}
	return fflush(stdout) ? 1 : 0;
}

void print_str(const char *key, const char *fmt, const char *val)
{
	if (print_json)
		print_add(key, json_object_new_string(val));
	else if (fmt)
		printf(fmt, val);
}

void print_u64(const char *key, const char *fmt, uint64_t val)
{
	if (print_json)
		print_add(key, json_object_new_uint64(val));
	else if (fmt)
		printf(fmt, (unsigned long long)val);
}

/* Hex in text; in JSON a number, so scripts need no parsing. */
void print_hex(const char *key, const char *fmt, uint64_t val)
{
	print_u64(key, fmt, val);
}

void print_bool(const char *key, const char *fmt, bool val)
{
	if (print_json)
		print_add(key, json_object_new_boolean(val));
	else if (fmt)
		printf(fmt, val ? "yes" : "no");
}

void print_double(const char *key, const char *fmt, double val)
{
	if (print_json)
		print_add(key, json_object_new_double(val));
	else if (fmt)
		printf(fmt, val);
}

/* Text-only decoration: labels, separators. */
void print_text(const char *fmt, ...)
{
	va_list ap;

	if (print_json)
		return;
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
}

void print_nl(void)
{
	if (!print_json)
		putchar('\n');
}
