/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * snodectl internals: command tables, argument helpers. Printing goes
 * through the tools' one print path (tools/lib/print.h).
 */
#ifndef SNODECTL_H
#define SNODECTL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "libsnode.h"
#include "print.h"
#include "util.h"

/* snodectl health's exit status; usage errors are TOOL_EXIT_USAGE (64) */
enum snodectl_health_status {
	SNODECTL_HEALTH_OK = 0,
	SNODECTL_HEALTH_WARNING = 1,
	SNODECTL_HEALTH_CRITICAL = 2,
	SNODECTL_HEALTH_UNKNOWN = 3,
};

struct snodectl {
	struct snode_ctx *ctx;
	bool json;
	bool pretty;
	bool stats;		/* -s: link status with rates */
	int argc;
	char **argv;
};

struct snodectl_cmd {
	const char *name;
	int (*fn)(struct snodectl *sc);
};

/* Prints an object's usage to @f: stdout when asked, stderr on errors. */
typedef void (*snodectl_help_fn)(FILE *f);

/*
 * Run the command named by the next argument: its name, or a prefix of
 * it; a prefix of several names is the first of them in table order, as
 * in iproute2, so new commands go at the end of a table and old
 * abbreviations keep their meaning. None runs the first entry, "help"
 * prints @help. Returns the command's exit status.
 */
int snodectl_dispatch(struct snodectl *sc, const char *object,
		      const struct snodectl_cmd *cmds, snodectl_help_fn help);
/*
 * tool_next_opt() over a command's options @opts, which also takes the
 * global -j, -p and -s among them ("link trend FILE -j") when @opts has no
 * option of that spelling: the global options go before the object, and
 * commands that take options accept them there too.
 */
int snodectl_next_opt(struct snodectl *sc, const struct tool_opt *opts,
		      const char **val);
/* The next argument is a prefix of WORD; consumes it if so. */
bool snodectl_arg_match(struct snodectl *sc, const char *word);
const char *snodectl_arg_next(struct snodectl *sc);
/* TOOL_EXIT_USAGE with a message if any argument is left, else 0. */
int snodectl_no_more(struct snodectl *sc);
/* An error message; returns 1, a failed command's exit status. */
#define snodectl_err tool_err
/* A usage error: message, a pointer to help; returns TOOL_EXIT_USAGE. */
int snodectl_usage(const char *object, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Turn a library error into a message that says what to do; returns 1. */
int snodectl_lib_err(const char *what, int err);
/* As snodectl_lib_err(), for the netlink family; shows the kernel's extack. */
int snodectl_nl_err(const char *what, int err);

/* "snode0", "/dev/snode0" or "0": looks like a device name. */
bool snodectl_is_dev_name(const char *word);
/*
 * The device named by @name, or an error message and NULL. With the
 * object, the one device syntax: "OBJECT VERB [ DEV | dev DEV ] ...".
 */
struct snode_dev *snodectl_dev_lookup(struct snodectl *sc, const char *name);
/*
 * An optional device: "dev DEV" or a word that looks like a device name,
 * stored in *name (a second one is an error). Returns 0 or an exit
 * status. The name is resolved after every argument has been parsed, so
 * usage errors come first, by snodectl_dev_resolve() (NULL name: NULL
 * device, 0).
 */
int snodectl_dev_opt(struct snodectl *sc, const char *object,
		     const char **name);
/*
 * The device (snodectl_dev_opt()) where the command's options end: 0 if
 * the next argument was one, else the usage error of an argument left
 * over (snodectl_no_more()). Called with arguments left.
 */
int snodectl_dev_opt_last(struct snodectl *sc, const char *object,
			  const char **name);
int snodectl_dev_resolve(struct snodectl *sc, const char *name,
			 struct snode_dev **dev);
/*
 * "[ DEV ]" and nothing else: parse, reject anything more, resolve.
 * Returns 0 (*dev NULL without a DEV) or an exit status.
 */
int snodectl_dev_only(struct snodectl *sc, const char *object,
		      struct snode_dev **dev);

int cmd_dev(struct snodectl *sc);
int cmd_diag(struct snodectl *sc);
int cmd_dma(struct snodectl *sc);
int cmd_health(struct snodectl *sc);
int cmd_link(struct snodectl *sc);
int cmd_mem(struct snodectl *sc);
int cmd_monitor(struct snodectl *sc);
int cmd_msg(struct snodectl *sc);
int cmd_node(struct snodectl *sc);
int cmd_sensor(struct snodectl *sc);

/* history.c: link diag and link trend, commands of link.c */
int link_diag(struct snodectl *sc);
int link_trend(struct snodectl *sc);


/*
 * errmsg.c: the text of a failed library call or netlink request, apart
 * from printing it. snodectl_nl_msg() returns true when the kernel gave
 * an extack: @buf then holds the whole line, "Error: TEXT.\n" as
 * iproute2 prints it; otherwise a message for snodectl_err().
 */
void snodectl_lib_msg(char *buf, size_t len, const char *what, int err);
bool snodectl_nl_msg(char *buf, size_t len, const char *what, int err,
		     const char *extack);
/*
 * libsnode hands the kernel's extack over only as a log line "kernel:
 * TEXT": true if @line is one, with TEXT (trailing blanks dropped) in @buf.
 */
bool snodectl_extack_from_log(const char *line, char *buf, size_t len);

/*
 * verdict.c: the judgements of snodectl link and health, on plain values.
 * Verdicts in rising order of severity: a NIC that could not be read at
 * all is "unknown", worse than a warning, less than a known critical.
 */
enum health {
	HEALTH_OK,
	HEALTH_WARNING,
	HEALTH_UNKNOWN,
	HEALTH_CRITICAL,
};

#define HEALTH_MAX_PROBLEMS	16

/* One NIC's verdict and the first HEALTH_MAX_PROBLEMS reasons for it. */
struct health_dev {
	enum health verdict;
	unsigned int nproblems;
	unsigned int more;
	char problems[HEALTH_MAX_PROBLEMS][96];
};

/* the ports of the first HEALTH_MAX_PORTS links down, for the paths verdict */
#define HEALTH_MAX_PORTS	8

struct health_links {
	unsigned int total, ok, degraded, errors, down;
	unsigned int down_port[HEALTH_MAX_PORTS];
	/*
	 * auto-isolate verdicts: isolated links count as down too, flapping
	 * ones as down while they are; those up, and the first one's port
	 */
	unsigned int isolated, flapping;
	unsigned int flapping_up, flapping_port;
};

/* Links down on all the NICs health looked at: what they lead to. */
#define HEALTH_MAX_DOWN		64

struct health_down {
	unsigned int n;		/* links down, also past HEALTH_MAX_DOWN */
	struct {
		uint32_t peer_switch;	/* SNODE_NONE: not to a switch */
		uint32_t peer_node;	/* SNODE_NONE: not to a node */
		uint32_t plane;		/* of peer_switch, SNODE_NONE: none */
		char switch_name[24];	/* "" if the fabric gave none */
	} link[HEALTH_MAX_DOWN];
};

/*
 * Links down that share a cause: @links of the @of links down lead to
 * switch or node @id, or (@by_plane) to switches of plane @plane. @text
 * says so ("3 links down, all on switch 1", "3 links down, all on plane 1
 * (switch S1)": a switch's plane when the fabric gave it one).
 */
struct health_group {
	unsigned int links, of;
	bool is_switch;
	bool by_plane;		/* several switches, one plane: @id unused */
	uint32_t id;
	uint32_t plane;		/* SNODE_NONE: none */
	char switch_name[24];	/* of switch @id, "" if none */
	char text[160];
};

struct health_nodes {
	unsigned int up, unreachable, dead;
};

/* hwmon values: millidegrees Celsius and microwatts */
struct health_sensors {
	bool have_temp, have_temp_max, have_temp_crit;
	bool have_power, have_power_max;
	long temp, temp_max, temp_crit;
	long power, power_max;
};

/*
 * sensor.c: the hwmon files of NIC @dev (snodeN). sensor_read() returns 1
 * with the value of @file, 0 if there is none; sensor_read_all() fills
 * @s with what the NIC has.
 */
int sensor_read(const char *dev, const char *file, long *val);
void sensor_read_all(const char *dev, struct health_sensors *s);
/* snodectl dev set DEV { temp-max C | temp-crit C | power-max W } ... */
int sensor_dev_set(struct snodectl *sc);

const char *link_oper_name(unsigned int state);
const char *node_state_name(unsigned int state);
struct snode_node_info;
void node_print_topo(const struct snode_node_info *ni);
/* "unexport", "node-dead", ...: enum snode_revoke_reason (mem.c) */
const char *revoke_reason_name(unsigned int reason);
/*
 * "ok", "degraded", "errors" or "down"; "isolated" or "flapping" as the
 * link's auto-isolate policy judged it
 */
const char *link_verdict(const struct snode_link_info *li);
/* "none", "flapping", "isolated"; the reason: "none", "flaps", "ber" */
const char *link_isolation_name(unsigned int isolation);
const char *link_isolate_reason_name(unsigned int reason);
/* the driver's bounds of an auto-isolate flap limit */
#define LINK_MAX_FLAPS		64
#define LINK_MAX_FLAP_WINDOW	86400
/*
 * "N/DUR" of link set ... auto-isolate flaps: N 1..LINK_MAX_FLAPS down
 * events within DUR (as trend_parse_duration(), at most a day). 0 or -1.
 */
int link_parse_flaps(const char *s, unsigned int *flaps,
		     unsigned int *window);
/* link status -s --interval S: seconds, LINK_MIN_INTERVAL..LINK_MAX_INTERVAL */
#define LINK_MIN_INTERVAL	0.1
#define LINK_MAX_INTERVAL	60
/* "2", "0.5", "2s": 0 and the seconds in @secs, or -1 */
int link_parse_interval(const char *s, double *secs);
/* util-threshold PCT: "80" or "80%", 1..100; 0 or -1 */
int link_parse_util(const char *s, unsigned int *pct);
/*
 * The rate of a byte counter that went from @before to @after in @secs,
 * in Gbit/s, and as a percentage of @lanes x @speed Gb/s (0 for a link
 * without lanes). -1 if the counter went back (cleared) or @secs is not
 * positive: no rate.
 */
int link_rate(uint64_t before, uint64_t after, double secs,
	      unsigned int lanes, unsigned int speed, double *gbps,
	      double *pct);
const char *health_name(enum health v);
/* snodectl health's exit status for a verdict */
int health_exit_status(enum health v);
enum health health_worst(enum health a, enum health b);
/* Raise @h to @level; past HEALTH_MAX_PROBLEMS only counted in ->more. */
void health_problem(struct health_dev *h, enum health level,
		    const char *fmt, ...) __attribute__((format(printf, 3, 4)));
void health_judge_dev(struct health_dev *h, const struct snode_dev_status *st);
/* Each link in turn, then health_judge_links() on the counts. */
void health_judge_link(struct health_dev *h, struct health_links *c,
		       const struct snode_link_info *li);
/*
 * After the links of the NIC attached as fabric node @node: none up is
 * critical; one left of several is a warning ("node 3: one path left
 * (link 1 down)").
 */
void health_judge_links(struct health_dev *h, const struct health_links *c,
			uint32_t node);
/* Count @li in @d if it is down. */
void health_down_add(struct health_down *d, const struct snode_link_info *li);
/*
 * What the links down share: one group when they all lead to the same
 * switch (or node), else one per switch or node that two or more of them
 * lead to; none for unrelated failures. Returns the groups in @g.
 */
unsigned int health_down_groups(const struct health_down *d,
				struct health_group *g, unsigned int max);
void health_judge_node(struct health_dev *h, struct health_nodes *c,
		       const struct snode_node_info *ni);
void health_judge_sensors(struct health_dev *h,
			  const struct health_sensors *s, int throttled);

#endif /* SNODECTL_H */
