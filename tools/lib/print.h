/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one print path of the snode tools (snodectl, snode-perf, the fabric
 * manager's ctl), after iproute2's json_print: every value goes through
 * print_*(), which adds it to the JSON document being built in JSON mode
 * and prints it with its text format otherwise (a NULL format prints
 * nothing in text mode). JSON is built with json-c and written whole by
 * print_flush(), so a failed command leaves no half document behind.
 *
 * State is per process (one document at a time), as in iproute2.
 */
#ifndef SNODE_TOOLS_PRINT_H
#define SNODE_TOOLS_PRINT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

/* Where text and the finished JSON go; NULL means stdout. */
typedef void (*print_sink_fn)(void *arg, const char *s);

struct print_opts {
	bool json;
	bool pretty;
	bool root_array;	/* the document is an array, not an object */
	print_sink_fn sink;
	void *sink_arg;
};

void print_begin(const struct print_opts *opts);
/* As print_begin() with an object root on stdout. */
void print_init(bool json, bool pretty);
bool print_is_json(void);
/*
 * Write the document built so far (if @emit) and drop it; a failed
 * command passes false. Returns 1 if the output failed, else 0.
 */
int print_flush(bool emit);
/* Write the document as it stands to @f (plus a newline); keeps it. */
int print_json_to(FILE *f, bool pretty);

void print_open_array(const char *key);
void print_close_array(void);
/*
 * @key names the object in an enclosing object and is NULL in an array; a
 * NULL @key in an object opens no new object: the members go to the
 * enclosing one (so a command can print one object at the root or in a
 * list alike). A scalar without a name in an object is dropped.
 */
void print_open_object(const char *key);
void print_close_object(void);
void print_str(const char *key, const char *fmt, const char *val);
void print_u64(const char *key, const char *fmt, uint64_t val);
void print_s64(const char *key, const char *fmt, int64_t val);
/* Hex in text (the format says so); a number in JSON. */
void print_hex(const char *key, const char *fmt, uint64_t val);
/* "yes"/"no" for a %s format in text; true/false in JSON. */
void print_bool(const char *key, const char *fmt, bool val);
/* In JSON the shortest form that reads back the same; null if not finite. */
void print_double(const char *key, const char *fmt, double val);
void print_null(const char *key, const char *fmt);
/* Text-only decoration: labels, separators. */
void print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void print_nl(void);

#endif /* SNODE_TOOLS_PRINT_H */
