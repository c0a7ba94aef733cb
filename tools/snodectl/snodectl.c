// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl - operate snode supernode interconnect NICs.
 *
 * iproute2 style: snodectl [ OPTIONS ] OBJECT { COMMAND | help } [ ARGS ].
 * Each object lives in its own file with a command table and a help
 * function; objects, commands and options may be abbreviated to a unique
 * prefix. Exit status: 0 success, 1 a command failed, 64 a usage error,
 * and snodectl health's verdicts 0-3 (see snodectl(8)).
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>

#include "snodectl.h"

#define SNODECTL_BATCH_ARGS	64

static void main_help(FILE *f)
{
	fprintf(f,
		"Usage: snodectl [ OPTIONS ] [ -- ] OBJECT { COMMAND | help }\n"
		"       snodectl [ OPTIONS ] [ -force ] -batch FILENAME\n"
		"where  OBJECT := { dev | diag | dma | health | link | mem | monitor | msg | node | sensor }\n"
		"       OPTIONS := { -V[ersion] | -j[son] | -p[retty] | -s[tatistics] |\n"
		"                    -h[elp] | -b[atch] FILENAME | -f[orce] }\n"
		"Objects, commands, keywords and options may be abbreviated (snodectl l st).\n");
}

int snodectl_usage(const char *object, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (object)
		return tool_usage_err("%s, try \"snodectl %s help\"", buf,
				      object);
	return tool_usage_err("%s, try \"snodectl help\"", buf);
}

/*
 * The kernel's extended ack of the last failed netlink request. libsnode
 * reports it only through its log hook, as "kernel: TEXT" at LOG_INFO, so
 * snodectl takes the log hook, keeps that text and passes everything else
 * on at the priority the user asked for (SNODE_LOG).
 */
static char snodectl_extack[512];
static int snodectl_log_prio = LOG_ERR;

static void snodectl_log(struct snode_ctx *ctx, void *log_data,
			 int priority, const char *file, int line,
			 const char *fn, const char *format, va_list args)
{
	char buf[512];

	vsnprintf(buf, sizeof(buf), format, args);
	snodectl_extack_from_log(buf, snodectl_extack, sizeof(snodectl_extack));
	if (priority <= snodectl_log_prio)
		fprintf(stderr, "libsnode: %s: %s", fn, buf);
}

static void snodectl_log_setup(struct snode_ctx *ctx)
{
	snodectl_log_prio = snode_get_log_priority(ctx);
	snode_set_log_fn(ctx, snodectl_log, NULL);
	if (snodectl_log_prio < LOG_INFO)
		snode_set_log_priority(ctx, LOG_INFO);
}

int snodectl_lib_err(const char *what, int err)
{
	char msg[512];

	snodectl_lib_msg(msg, sizeof(msg), what, err);
	return snodectl_err("%s", msg);
}

int snodectl_nl_err(const char *what, int err)
{
	char msg[600];

	if (snodectl_nl_msg(msg, sizeof(msg), what, err, snodectl_extack)) {
		fputs(msg, stderr);
		snodectl_extack[0] = '\0';
		return 1;
	}
	return snodectl_err("%s", msg);
}

/* the global options a command takes among its own, spelled out */
static const struct {
	const char *word;
	int what;		/* 'j', 'p', 's' */
} snodectl_globals[] = {
	{ "-j", 'j' }, { "-json", 'j' }, { "--json", 'j' },
	{ "-p", 'p' }, { "-pretty", 'p' }, { "--pretty", 'p' },
	{ "-s", 's' }, { "-stats", 's' }, { "-statistics", 's' },
	{ "--statistics", 's' },
};

int snodectl_next_opt(struct snodectl *sc, const struct tool_opt *opts,
		      const char **val)
{
	const char *w;
	unsigned int i;

	while (sc->argc > 0 && sc->argv[0][0] == '-') {
		w = sc->argv[0];
		/* the command's own spelling wins ("-s" is trend's -since) */
		if (tool_lookup(w[1] == '-' ? w + 1 : w, opts, sizeof(*opts),
				NULL, NULL, 0) != -1)
			break;
		for (i = 0; i < sizeof(snodectl_globals) /
			    sizeof(snodectl_globals[0]); i++)
			if (!strcmp(w, snodectl_globals[i].word))
				break;
		if (i == sizeof(snodectl_globals) / sizeof(snodectl_globals[0]))
			break;
		if (snodectl_globals[i].what == 'j')
			sc->json = true;
		else if (snodectl_globals[i].what == 'p')
			sc->pretty = true;
		else
			sc->stats = true;
		/* nothing is printed before the options are parsed */
		print_init(sc->json, sc->pretty);
		snodectl_arg_next(sc);
	}
	return tool_next_opt(&sc->argc, &sc->argv, opts, val);
}

const char *snodectl_arg_next(struct snodectl *sc)
{
	if (sc->argc <= 0)
		return NULL;
	sc->argc--;
	return *sc->argv++;
}

bool snodectl_arg_match(struct snodectl *sc, const char *word)
{
	if (sc->argc <= 0 || !tool_matches(sc->argv[0], word))
		return false;
	snodectl_arg_next(sc);
	return true;
}

int snodectl_no_more(struct snodectl *sc)
{
	if (sc->argc <= 0)
		return 0;
	return tool_usage_err("unexpected argument \"%s\"", sc->argv[0]);
}

/* Help is text even under -j: no JSON document after it. */
static int snodectl_help(snodectl_help_fn help)
{
	print_flush(false);
	help(stdout);
	return 0;
}

int snodectl_dispatch(struct snodectl *sc, const char *object,
		      const struct snodectl_cmd *cmds, snodectl_help_fn help)
{
	const struct snodectl_cmd *c;
	const char *word;
	int i;

	word = snodectl_arg_next(sc);
	if (!word) {
		/* No verb: the first entry is the default ("show"). */
		return cmds[0].fn(sc);
	}
	/* a prefix of several commands is the first one, as in iproute2 */
	i = tool_lookup_first(word, cmds, sizeof(*cmds));
	if (i < 0) {
		if (tool_matches(word, "help"))
			return snodectl_help(help);
		return snodectl_usage(object, "%s: unknown command \"%s\"",
				      object, word);
	}
	c = &cmds[i];
	/* "snodectl link set help": help at every level */
	if (sc->argc > 0 && !strcmp(sc->argv[0], "help"))
		return snodectl_help(help);
	return c->fn(sc);
}

bool snodectl_is_dev_name(const char *word)
{
	const char *p = strrchr(word, '/');

	p = p ? p + 1 : word;
	if (!strncmp(p, "snode", 5))
		p += 5;
	if (!*p)
		return false;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

struct snode_dev *snodectl_dev_lookup(struct snodectl *sc, const char *name)
{
	struct snode_dev *dev = snode_dev_get_by_name(sc->ctx, name);

	if (dev)
		return dev;
	if (!snode_dev_get_first(sc->ctx))
		snodectl_err("no device \"%s\": no snode devices (is snode.ko loaded?)",
			     name);
	else
		snodectl_err("no device \"%s\" (see 'snodectl dev show')", name);
	return NULL;
}

int snodectl_dev_opt(struct snodectl *sc, const char *object,
		     const char **name)
{
	const char *word;

	if (sc->argc <= 0)
		return 0;
	if (!strcmp(sc->argv[0], "dev")) {
		snodectl_arg_next(sc);
		word = snodectl_arg_next(sc);
		if (!word)
			return snodectl_usage(object, "%s: \"dev\" needs a device name (e.g. snode0)",
					      object);
	} else if (snodectl_is_dev_name(sc->argv[0])) {
		word = snodectl_arg_next(sc);
	} else {
		return 0;
	}
	if (*name)
		return snodectl_usage(object, "%s: more than one device (\"%s\")",
				      object, word);
	*name = word;
	return 0;
}

int snodectl_dev_opt_last(struct snodectl *sc, const char *object,
			  const char **name)
{
	int argc = sc->argc;
	int ret;

	ret = snodectl_dev_opt(sc, object, name);
	if (!ret && sc->argc == argc)
		ret = snodectl_no_more(sc);
	return ret;
}

int snodectl_dev_resolve(struct snodectl *sc, const char *name,
			 struct snode_dev **dev)
{
	*dev = NULL;
	if (!name)
		return 0;
	*dev = snodectl_dev_lookup(sc, name);
	return *dev ? 0 : 1;
}

int snodectl_dev_only(struct snodectl *sc, const char *object,
		      struct snode_dev **dev)
{
	const char *name = NULL;
	int ret;

	*dev = NULL;
	ret = snodectl_dev_opt(sc, object, &name);
	if (!ret)
		ret = snodectl_no_more(sc);
	if (!ret)
		ret = snodectl_dev_resolve(sc, name, dev);
	return ret;
}

static int cmd_help(struct snodectl *sc)
{
	int ret = snodectl_no_more(sc);

	return ret ? ret : snodectl_help(main_help);
}

static const struct snodectl_cmd snodectl_objects[] = {
	{ "dev", cmd_dev },
	{ "dma", cmd_dma },
	{ "health", cmd_health },
	{ "help", cmd_help },
	{ "link", cmd_link },
	{ "mem", cmd_mem },
	{ "monitor", cmd_monitor },
	{ "msg", cmd_msg },
	{ "node", cmd_node },
	{ "sensor", cmd_sensor },
	/* after the rest, so that "d" stays dev */
	{ "diag", cmd_diag },
	{ NULL, NULL }
};

/* One command line; every command starts with a fresh document. */
static int snodectl_run(struct snodectl *sc)
{
	const struct snodectl opts = *sc;
	int i, ret;

	/* as for commands: a prefix of several objects is the first one */
	i = tool_lookup_first(sc->argv[0], snodectl_objects,
			      sizeof(snodectl_objects[0]));
	if (i < 0)
		return snodectl_usage(NULL, "object \"%s\" is unknown",
				      sc->argv[0]);
	snodectl_arg_next(sc);
	snodectl_extack[0] = '\0';
	print_init(sc->json, sc->pretty);
	ret = snodectl_objects[i].fn(sc);
	if (print_flush(!ret) && !ret)
		ret = snodectl_err("writing output failed");
	/* -j after a command holds for that command (one batch line) only */
	sc->json = opts.json;
	sc->pretty = opts.pretty;
	sc->stats = opts.stats;
	return ret;
}

/*
 * -batch FILE: one command a line, as after "snodectl [OPTIONS]"; blank
 * lines and #comments skipped. The first failure stops the batch (its
 * status is the batch's) unless -force, which runs every line and exits
 * with the first failure's status.
 */
static int snodectl_batch(struct snodectl *sc, const char *file, bool force)
{
	char *argv[SNODECTL_BATCH_ARGS], *line = NULL, where[300];
	FILE *f = strcmp(file, "-") ? fopen(file, "r") : stdin;
	unsigned int lineno = 0;
	size_t cap = 0;
	int first = 0, ret;

	if (!f)
		return snodectl_err("%s: %s", file, strerror(errno));
	while (getline(&line, &cap, f) > 0) {
		lineno++;
		snprintf(where, sizeof(where), "%s:%u", file, lineno);
		tool_set_where(where);
		sc->argc = tool_split_line(line, argv, SNODECTL_BATCH_ARGS);
		sc->argv = argv;
		if (sc->argc == 0)
			continue;
		if (sc->argc < 0)
			ret = tool_usage_err("unclosed quote or more than %d words",
					     SNODECTL_BATCH_ARGS);
		else
			ret = snodectl_run(sc);
		if (ret && !first)
			first = ret;
		if (ret && !force)
			break;
	}
	tool_set_where(NULL);
	free(line);
	if (f != stdin)
		fclose(f);
	return first;
}

enum {
	OPT_BATCH, OPT_FORCE, OPT_HELP, OPT_JSON, OPT_PRETTY, OPT_STATS,
	OPT_VERSION
};

static const struct tool_opt snodectl_opts[] = {
	{ "-Version", OPT_VERSION, false, false },
	{ "-batch", OPT_BATCH, true, false },
	{ "-force", OPT_FORCE, false, false },
	{ "-help", OPT_HELP, false, false },
	{ "-json", OPT_JSON, false, false },
	{ "-pretty", OPT_PRETTY, false, false },
	{ "-statistics", OPT_STATS, false, false },
	{ "-stats", OPT_STATS, false, false },
	{ "-version", OPT_VERSION, false, false },
	{ NULL, 0, false, false }
};

int main(int argc, char **argv)
{
	struct snodectl sc = { 0 };
	const char *batch = NULL, *val = NULL;
	bool force = false;
	int opt, ret;

	tool_set_name("snodectl");
	argc--;
	argv++;
	while ((opt = tool_next_opt(&argc, &argv, snodectl_opts, &val)) != -1) {
		switch (opt) {
		case OPT_VERSION:
			if (argc > 0)
				return snodectl_usage(NULL, "-V takes no argument (\"%s\")",
						      argv[0]);
			printf("snodectl %s\n", SNODE_VERSION);
			return 0;
		case OPT_HELP:
			main_help(stdout);
			return 0;
		case OPT_JSON:
			sc.json = true;
			break;
		case OPT_PRETTY:
			sc.pretty = true;
			break;
		case OPT_STATS:
			sc.stats = true;
			break;
		case OPT_FORCE:
			force = true;
			break;
		case OPT_BATCH:
			batch = val;
			break;
		default:
			fputs("Try \"snodectl help\".\n", stderr);
			return TOOL_EXIT_USAGE;
		}
	}
	if (!batch && argc == 0) {
		main_help(stderr);
		return TOOL_EXIT_USAGE;
	}
	if (batch && argc > 0)
		return snodectl_usage(NULL, "-batch takes no command (\"%s\")",
				      argv[0]);
	ret = snode_new(&sc.ctx);
	if (ret < 0)
		return snodectl_lib_err("snode_new", ret);
	snodectl_log_setup(sc.ctx);
	if (batch) {
		ret = snodectl_batch(&sc, batch, force);
	} else {
		sc.argc = argc;
		sc.argv = argv;
		ret = snodectl_run(&sc);
	}
	snode_unref(sc.ctx);
	return ret;
}
