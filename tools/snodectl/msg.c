// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl msg, snodectl dma: message endpoints, DMA queues and the NIC's
 * message and DMA counters. Per-link message and byte counters are in
 * "snodectl link stats".
 */
#include <stdio.h>
#include <string.h>

#include "snodectl.h"

static void msg_help(FILE *f)
{
	fprintf(f,
		"Usage: snodectl msg list [ DEV ] [ WHAT... ]\n"
		"       snodectl msg stats [ DEV ]\n"
		"WHAT := { endpoints | dma }  (default: both)\n"
		"DEV := { snodeN | dev snodeN }\n");
}

static void dma_help(FILE *f)
{
	fprintf(f,
		"Usage: snodectl dma list [ DEV ]\n"
		"DEV := { snodeN | dev snodeN }\n");
}

static void msg_print_entry(const struct snode_msg_entry *e)
{
	char buf[32];

	print_open_object(NULL);
	if (e->type == SNODE_MSG_LIST_ENDPOINTS) {
		print_u64("id", "  endpoint %llu", e->id);
		print_u64("vector", " vector %llu", e->vector);
		print_u64("entries", " slots %llu", e->entries);
		print_u64("pending", " waiting %llu", e->pending);
		print_u64("msgs", " read %llu", e->count);
		print_u64("bytes", " bytes %llu", e->bytes);
		print_u64("send_errors", " send_errors %llu", e->errors);
		if (e->flags & SNODE_MSG_ENTRY_KEY) {
			snprintf(buf, sizeof(buf), "%016llx",
				 (unsigned long long)e->key);
			print_str("key", " key %s", buf);
		}
	} else {
		print_u64("id", "  dma-queue %llu", e->id);
		print_u64("depth", " depth %llu", e->entries);
		print_u64("inflight", " in-flight %llu", e->pending);
		print_u64("copies", " copies %llu", e->count);
		print_u64("bytes", " bytes %llu", e->bytes);
		print_u64("errors", " errors %llu", e->errors);
	}
	print_bool("dead", e->flags & SNODE_MSG_ENTRY_DEAD ? " dead" : NULL,
		   e->flags & SNODE_MSG_ENTRY_DEAD);
	if (e->pid)
		print_u64("pid", " pid %llu", (uint64_t)e->pid);
	if (e->comm[0])
		print_str("comm", " comm %s", e->comm);
	print_nl();
	print_close_object();
}

static const struct {
	const char *name;
	unsigned int type;
} msg_lists[] = {
	{ "endpoints", SNODE_MSG_LIST_ENDPOINTS },
	{ "dma", SNODE_MSG_LIST_DMA_QUEUES },
};

#define MSG_NLISTS (sizeof(msg_lists) / sizeof(msg_lists[0]))

static int msg_print_dev(struct snode_dev *dev, const bool *want)
{
	const char *name = snode_dev_get_name(dev);
	const struct snode_msg_entry *e;
	struct snode_msg_iter *iter;
	unsigned int i;
	int ret;

	print_open_object(NULL);
	print_str("dev", "%s:", name);
	print_nl();
	for (i = 0; i < MSG_NLISTS; i++) {
		if (!want[i])
			continue;
		ret = snode_msg_list(dev, msg_lists[i].type, sizeof(*e), &iter);
		if (ret < 0) {
			print_close_object();
			return snodectl_lib_err(name, ret);
		}
		print_open_array(msg_lists[i].name);
		snode_msg_iter_foreach(iter, e)
			msg_print_entry(e);
		print_close_array();
		snode_msg_iter_free(iter);
	}
	print_close_object();
	return 0;
}

/* Run @fn on the device named by "dev DEV", or on every device. */
static int msg_foreach_dev(struct snodectl *sc, struct snode_dev *dev,
			   int (*fn)(struct snode_dev *dev, const bool *want),
			   const bool *want)
{
	int ret = 0;

	print_open_array("devices");
	if (dev) {
		ret = fn(dev, want);
	} else {
		/* no NIC: an empty list and a hint, as dev show */
		if (!snode_dev_get_first(sc->ctx))
			snodectl_err("no snode devices (is snode.ko loaded?)");
		snode_dev_foreach(sc->ctx, dev)
			ret |= fn(dev, want);
	}
	print_close_array();
	return ret;
}

/* [ DEV ] [ WHAT... ]; dma list takes no WHAT (@what false) */
static int msg_list_args(struct snodectl *sc, const char *object, bool *want,
			 bool what)
{
	struct snode_dev *dev = NULL;
	const char *name = NULL;
	bool chosen = false;
	unsigned int i;
	int ret;

	while (sc->argc > 0) {
		int left = sc->argc;

		ret = snodectl_dev_opt(sc, object, &name);
		if (ret)
			return ret;
		if (sc->argc != left)
			continue;
		for (i = 0; what && i < MSG_NLISTS; i++)
			if (snodectl_arg_match(sc, msg_lists[i].name))
				break;
		if (!what || i == MSG_NLISTS)
			return snodectl_usage(object, "%s list: unknown argument \"%s\"",
					      object, sc->argv[0]);
		if (!chosen)
			memset(want, 0, MSG_NLISTS * sizeof(*want));
		chosen = true;
		want[i] = true;
	}
	ret = snodectl_dev_resolve(sc, name, &dev);
	if (ret)
		return ret;
	return msg_foreach_dev(sc, dev, msg_print_dev, want);
}

static int msg_list(struct snodectl *sc)
{
	bool want[MSG_NLISTS] = { true, true };

	return msg_list_args(sc, "msg", want, true);
}

static int msg_print_stats(struct snode_dev *dev, const bool *unused)
{
	const char *name = snode_dev_get_name(dev);
	struct snode_stats st;
	int ret;

	ret = snode_dev_get_stats(dev, &st, sizeof(st));
	if (ret < 0)
		return snodectl_lib_err(name, ret);
	print_open_object(NULL);
	print_str("dev", "%s:", name);
	print_nl();
	print_u64("msgs_sent", "  msgs sent %llu", st.out_msgs_sent);
	print_u64("msgs_received", " received %llu", st.out_msgs_received);
	print_u64("msgs_rejected", " rejected %llu", st.out_msgs_rejected);
	print_u64("send_retries", " retried-full %llu", st.out_send_retries);
	print_nl();
	print_u64("dma_reqs", "  dma descriptors %llu", st.out_dma_reqs);
	print_u64("dma_bytes", " bytes %llu", st.out_dma_bytes);
	print_u64("dma_errors", " errors %llu", st.out_dma_errors);
	print_nl();
	print_u64("admin_cmds", "  admin commands %llu", st.out_admin_cmds);
	print_u64("events", " events %llu", st.out_events);
	print_u64("events_dropped", " dropped %llu", st.out_events_dropped);
	print_u64("access_violations", " access-violations %llu",
		  st.out_access_violations);
	print_nl();
	print_u64("att_sets", "  windows set %llu", st.out_att_sets);
	print_u64("att_revokes", " revoked %llu", st.out_att_revokes);
	print_u64("resets", " resets %llu", st.out_resets);
	print_nl();
	print_close_object();
	return 0;
}

static int msg_stats(struct snodectl *sc)
{
	struct snode_dev *dev;
	int ret;

	ret = snodectl_dev_only(sc, "msg", &dev);
	if (ret)
		return ret;
	return msg_foreach_dev(sc, dev, msg_print_stats, NULL);
}

static const struct snodectl_cmd msg_cmds[] = {
	{ "list", msg_list },
	{ "show", msg_list },
	{ "stats", msg_stats },
	{ NULL, NULL }
};

int cmd_msg(struct snodectl *sc)
{
	return snodectl_dispatch(sc, "msg", msg_cmds, msg_help);
}

static int dma_list(struct snodectl *sc)
{
	bool want[MSG_NLISTS] = { false, true };

	return msg_list_args(sc, "dma", want, false);
}

static const struct snodectl_cmd dma_cmds[] = {
	{ "list", dma_list },
	{ "show", dma_list },
	{ NULL, NULL }
};

int cmd_dma(struct snodectl *sc)
{
	return snodectl_dispatch(sc, "dma", dma_cmds, dma_help);
}
