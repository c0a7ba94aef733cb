// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl mem: global memory - pool allocations, exports, imports and the
 * address-translation table of each NIC.
 */
#include <stdio.h>
#include <string.h>

#include "snodectl.h"

static void mem_help(FILE *f)
{
	fprintf(f,
		"Usage: snodectl mem list [ DEV ] [ WHAT... ]\n"
		"WHAT := { allocs | exports | imports | att }  (default: all but allocs)\n"
		"DEV := { snodeN | dev snodeN }\n");
}

static const char *mem_state_name(unsigned int state)
{
	static const char *const names[] = {
		[SNODE_WINDOW_STATE_ACTIVE] = "active",
		[SNODE_WINDOW_STATE_REVOKED] = "revoked",
		[SNODE_WINDOW_STATE_FREED] = "freed",
		[SNODE_WINDOW_STATE_PENDING] = "pending",
		[SNODE_WINDOW_STATE_STALE] = "stale",
		[SNODE_WINDOW_STATE_LOST] = "lost",
	};

	if (state < sizeof(names) / sizeof(names[0]) && names[state])
		return names[state];
	return "unknown";
}

/* enum snode_revoke_reason, for mem list and monitor */
const char *revoke_reason_name(unsigned int reason)
{
	static const char *const names[] = {
		[SNODE_REVOKE_REASON_NONE] = "none",
		[SNODE_REVOKE_REASON_UNEXPORT] = "unexport",
		[SNODE_REVOKE_REASON_EXPORTER_RESET] = "exporter-reset",
		[SNODE_REVOKE_REASON_NODE_DEAD] = "node-dead",
		[SNODE_REVOKE_REASON_UNREACHABLE] = "unreachable",
		[SNODE_REVOKE_REASON_LOCAL_RESET] = "local-reset",
		[SNODE_REVOKE_REASON_LOCAL_REMOVE] = "local-remove",
	};

	if (reason < sizeof(names) / sizeof(names[0]))
		return names[reason];
	return "unknown";
}

static void mem_print_owner(const struct snode_mem_entry *e)
{
	if (e->pid)
		print_u64("pid", " pid %llu", (uint64_t)e->pid);
	if (e->comm[0])
		print_str("comm", " comm %s", e->comm);
}

static void mem_print_key(const struct snode_mem_entry *e)
{
	char buf[32];

	if (!(e->flags & SNODE_MEM_ENTRY_KEY))
		return;
	snprintf(buf, sizeof(buf), "%016llx", (unsigned long long)e->key);
	print_str("key", " key %s", buf);
}

static void mem_print_entry(unsigned int type, const struct snode_mem_entry *e)
{
	const char *perm = e->flags & SNODE_MEM_ENTRY_WRITE ? "rw" : "r";

	print_open_object(NULL);
	switch (type) {
	case SNODE_MEM_LIST_ALLOCS:
		print_text("  alloc");
		print_hex("offset", " offset 0x%llx", e->offset);
		print_u64("length", " length %llu", e->length);
		break;
	case SNODE_MEM_LIST_EXPORTS:
		print_u64("export_id", "  export %llu", e->export_id);
		print_hex("offset", " pool 0x%llx", e->offset);
		print_u64("length", " length %llu", e->length);
		print_str("perm", " %s", perm);
		print_str("nodes", " nodes %s",
			  e->flags & SNODE_MEM_ENTRY_NODES ? "some" : "all");
		mem_print_key(e);
		break;
	case SNODE_MEM_LIST_IMPORTS:
		print_u64("node", "  import node %llu", e->node);
		print_u64("export_id", " export %llu", e->export_id);
		print_hex("offset", " offset 0x%llx", e->offset);
		print_u64("length", " length %llu", e->length);
		print_str("perm", " %s", perm);
		print_bool("zero_page", NULL, e->flags & SNODE_MEM_ENTRY_ZERO_PAGE);
		if (e->att_index != UINT32_MAX)
			print_u64("att_index", " att %llu", e->att_index);
		print_u64("epoch", " epoch %llu", e->epoch);
		mem_print_key(e);
		break;
	case SNODE_MEM_LIST_ATT:
		print_u64("att_index", "  att %llu", e->att_index);
		print_hex("aperture_offset", " aperture 0x%llx",
			  e->aperture_offset);
		if (e->state != SNODE_WINDOW_STATE_STALE) {
			print_u64("node", " node %llu", e->node);
			print_u64("export_id", " export %llu", e->export_id);
			print_u64("length", " length %llu", e->length);
			print_str("perm", " %s", perm);
			print_u64("epoch", " epoch %llu", e->epoch);
		}
		break;
	}
	print_str("state", " %s", mem_state_name(e->state));
	if (type == SNODE_MEM_LIST_IMPORTS && e->state == SNODE_WINDOW_STATE_REVOKED)
		print_str("reason", " (%s)", revoke_reason_name(e->reason));
	if (type != SNODE_MEM_LIST_ATT)
		mem_print_owner(e);
	print_nl();
	print_close_object();
}

static const struct {
	const char *name;
	unsigned int type;
} mem_lists[] = {
	{ "allocs", SNODE_MEM_LIST_ALLOCS },
	{ "exports", SNODE_MEM_LIST_EXPORTS },
	{ "imports", SNODE_MEM_LIST_IMPORTS },
	{ "att", SNODE_MEM_LIST_ATT },
};

#define MEM_NLISTS (sizeof(mem_lists) / sizeof(mem_lists[0]))

static int mem_print_dev(struct snode_dev *dev, const bool *want)
{
	const char *name = snode_dev_get_name(dev);
	struct snode_mem_iter *iter;
	const struct snode_mem_entry *e;
	uint64_t size = 0, free_bytes = 0;
	bool header = false;
	unsigned int i;
	int ret;

	for (i = 0; i < MEM_NLISTS; i++) {
		if (!want[i])
			continue;
		ret = snode_mem_list(dev, mem_lists[i].type, sizeof(*e), &iter);
		if (ret < 0) {
			if (header)
				print_close_object();
			return snodectl_lib_err(name, ret);
		}
		if (!header) {
			print_open_object(NULL);
			print_str("dev", "%s:", name);
			snode_mem_iter_get_pool(iter, &size, &free_bytes);
			print_u64("pool_size", " pool %llu", size);
			print_u64("pool_free", " free %llu", free_bytes);
			print_nl();
			header = true;
		}
		print_open_array(mem_lists[i].name);
		snode_mem_iter_foreach(iter, e)
			mem_print_entry(mem_lists[i].type, e);
		print_close_array();
		snode_mem_iter_free(iter);
	}
	if (header)
		print_close_object();
	return 0;
}

static int mem_list(struct snodectl *sc)
{
	bool want[MEM_NLISTS] = { false, true, true, true };
	struct snode_dev *dev = NULL;
	const char *name = NULL;
	bool chosen = false;
	unsigned int i;
	int ret = 0;

	while (sc->argc > 0) {
		int left = sc->argc;

		ret = snodectl_dev_opt(sc, "mem", &name);
		if (ret)
			return ret;
		if (sc->argc != left)
			continue;
		for (i = 0; i < MEM_NLISTS; i++)
			if (snodectl_arg_match(sc, mem_lists[i].name))
				break;
		if (i == MEM_NLISTS)
			return snodectl_usage("mem", "mem list: unknown argument \"%s\"",
					      sc->argv[0]);
		if (!chosen)
			memset(want, 0, sizeof(want));
		chosen = true;
		want[i] = true;
	}
	ret = snodectl_dev_resolve(sc, name, &dev);
	if (ret)
		return ret;

	print_open_array("devices");
	if (dev) {
		ret = mem_print_dev(dev, want);
	} else {
		/* no NIC: an empty list and a hint, as dev show */
		if (!snode_dev_get_first(sc->ctx))
			snodectl_err("no snode devices (is snode.ko loaded?)");
		snode_dev_foreach(sc->ctx, dev)
			ret |= mem_print_dev(dev, want);
	}
	print_close_array();
	return ret;
}

static const struct snodectl_cmd mem_cmds[] = {
	{ "list", mem_list },
	{ "show", mem_list },
	{ NULL, NULL }
};

int cmd_mem(struct snodectl *sc)
{
	return snodectl_dispatch(sc, "mem", mem_cmds, mem_help);
}
