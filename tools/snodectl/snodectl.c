// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl - operate snode supernode interconnect NICs.
 *
 * iproute2 style: snodectl [OPTIONS] OBJECT COMMAND [ARGS]. Each object
 * lives in its own file with a command table and a help function.
 */
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "snodectl.h"

static int main_help(void)
{
	fprintf(stderr,
		"Usage: snodectl [ OPTIONS ] OBJECT { COMMAND | help }\n"
		"where  OBJECT := { dev | link | mem | msg | dma | node | monitor | health }\n"
		"       OPTIONS := { -j[son] | -p[retty] | -V[ersion] | -h[elp] }\n");
	return 0;
}

int snodectl_err(const char *fmt, ...)
{
	va_list ap;

	fputs("snodectl: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 1;
}

int snodectl_lib_err(const char *what, int err)
{
	switch (-err) {
	case ENOENT:
	case ENODEV:
		return snodectl_err("%s: no such snode device (is snode.ko loaded? see 'snodectl dev show')",
				    what);
	case EACCES:
	case EPERM:
		return snodectl_err("%s: not permitted (needs root, or membership of group snode for /dev/snode*)",
				    what);
	default:
		return snodectl_err("%s: %s", what, strerror(-err));
	}
}

int snodectl_nl_err(const char *what, int err)
{
	switch (-err) {
	case EPROTONOSUPPORT:
		return snodectl_err("%s: snode.ko not loaded (the snode netlink family is missing; modprobe snode)",
				    what);
	case EPERM:
		return snodectl_err("%s: not permitted: needs CAP_NET_ADMIN (root)",
				    what);
	case ENODEV:
		return snodectl_err("%s: no such snode device (see 'snodectl dev show')",
				    what);
	case ENOENT:
		return snodectl_err("%s: no such port or node on this device",
				    what);
	default:
		return snodectl_lib_err(what, err);
	}
}

bool snodectl_arg_is(struct snodectl *sc, const char *word)
{
	return sc->argc > 0 && !strcmp(sc->argv[0], word);
}

const char *snodectl_arg_next(struct snodectl *sc)
{
	if (sc->argc <= 0)
		return NULL;
	sc->argc--;
	return *sc->argv++;
}

int snodectl_dispatch(struct snodectl *sc, const struct snodectl_cmd *cmds,
		      int (*help)(void))
{
	const struct snodectl_cmd *c;
	const char *word = snodectl_arg_next(sc);

	if (!word) {
		/* No verb: the first entry is the default ("show"). */
		return cmds[0].fn(sc);
	}
	if (!strcmp(word, "help")) {
		help();
		return 0;
	}
	for (c = cmds; c->name; c++)
		if (!strcmp(c->name, word))
			return c->fn(sc);
	help();
	return snodectl_err("unknown command \"%s\"", word);
}

/* The device named by the next argument, or an error message and NULL. */
struct snode_dev *snodectl_dev_arg(struct snodectl *sc)
{
	const char *name = snodectl_arg_next(sc);
	struct snode_dev *dev;

	if (!name) {
		snodectl_err("missing device name (e.g. snode0)");
		return NULL;
	}
	dev = snode_dev_get_by_name(sc->ctx, name);
	if (!dev)
		snodectl_err("no device \"%s\" (see 'snodectl dev show')", name);
	return dev;
}

static const struct snodectl_cmd snodectl_objects[] = {
	{ "dev", cmd_dev },
	{ "dma", cmd_dma },
	{ "health", cmd_health },
	{ "link", cmd_link },
	{ "mem", cmd_mem },
	{ "monitor", cmd_monitor },
	{ "msg", cmd_msg },
	{ "node", cmd_node },
	{ NULL, NULL }
};

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "pretty", no_argument, NULL, 'p' },
		{ "Version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 }
	};
	struct snodectl sc = { 0 };
	int opt, ret;

	while ((opt = getopt_long(argc, argv, "+jpVh", opts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			sc.json = true;
			break;
		case 'p':
			sc.pretty = true;
			break;
		case 'V':
			printf("snodectl %s\n", SNODE_VERSION);
			return 0;
		case 'h':
			main_help();
			return 0;
		default:
			main_help();
			return 1;
		}
	}
	sc.argc = argc - optind;
	sc.argv = argv + optind;
	if (sc.argc == 0) {
		main_help();
		return 1;
	}
	ret = snode_new(&sc.ctx);
	if (ret < 0)
		return snodectl_lib_err("snode_new", ret);
	print_init(&sc);
	ret = snodectl_dispatch(&sc, snodectl_objects, main_help);
	if (print_flush(!ret) && !ret)
		ret = 1;
	snode_unref(sc.ctx);
	return ret ? 1 : 0;
}
