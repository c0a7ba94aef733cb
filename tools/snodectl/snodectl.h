/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snodectl internals: command tables and the one print path.
 */
#ifndef SNODECTL_H
#define SNODECTL_H

#include <stdbool.h>
#include <stdint.h>

#include "libsnode.h"

struct snodectl {
	struct snode_ctx *ctx;
	bool json;
	bool pretty;
	int argc;
	char **argv;
};

struct snodectl_cmd {
	const char *name;
	int (*fn)(struct snodectl *sc);
};

/* Run the command named by the next argument; "help" and none call help. */
int snodectl_dispatch(struct snodectl *sc, const struct snodectl_cmd *cmds,
		      int (*help)(void));
bool snodectl_arg_is(struct snodectl *sc, const char *word);
const char *snodectl_arg_next(struct snodectl *sc);
int snodectl_err(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Turn a library error into a message that says what to do; returns 1. */
int snodectl_lib_err(const char *what, int err);
struct snode_dev *snodectl_dev_arg(struct snodectl *sc);
/* As snodectl_lib_err(), for the netlink family's errors; returns 1. */
int snodectl_nl_err(const char *what, int err);

/*
 * One print path for text and JSON: every value goes through print_*(),
 * which adds it to the current JSON object in -j mode and prints it with
 * the text format otherwise (a NULL format prints nothing in text mode).
 */
void print_init(struct snodectl *sc);
int print_flush(bool emit);
void print_open_array(const char *key);
void print_close_array(void);
void print_open_object(const char *key);
void print_close_object(void);
void print_str(const char *key, const char *fmt, const char *val);
void print_u64(const char *key, const char *fmt, uint64_t val);
void print_hex(const char *key, const char *fmt, uint64_t val);
void print_bool(const char *key, const char *fmt, bool val);
void print_double(const char *key, const char *fmt, double val);
void print_text(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void print_nl(void);

int cmd_dev(struct snodectl *sc);
int cmd_dma(struct snodectl *sc);
int cmd_health(struct snodectl *sc);
int cmd_link(struct snodectl *sc);
int cmd_mem(struct snodectl *sc);
int cmd_monitor(struct snodectl *sc);
int cmd_msg(struct snodectl *sc);
int cmd_node(struct snodectl *sc);

/* link.c: shared by health.c */
const char *link_oper_name(unsigned int state);
const char *link_verdict(const struct snode_link_info *li);
const char *node_state_name(unsigned int state);

#endif /* SNODECTL_H */
