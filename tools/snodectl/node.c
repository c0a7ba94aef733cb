// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl node: the fabric's nodes as this host's NICs see them.
 */
#include <errno.h>
#include <stdio.h>

#include "snodectl.h"
#include "util.h"

static void node_help(FILE *f)
{
	fprintf(f,
		"Usage: snodectl node list [ DEV ]\n"
		"       snodectl node show [ DEV ] [ node ID ]\n"
		"DEV := { snodeN | dev snodeN }\n");
}

/*
 * Where the node sits and how the route reaches it, for schedulers
 * (decision 0030): the rack, then the plane, the switch that delivers to
 * it and the hops. Names when the fabric gave them, else ids; only what
 * the NIC reported. Before the state, so each line still ends with the
 * route port as it always did.
 */
void node_print_topo(const struct snode_node_info *ni)
{
	if (ni->topo & SNODE_TOPO_HAS_RACK) {
		print_u64("rack_id", NULL, ni->rack);
		if (ni->rack_name[0])
			print_str("rack", " rack %s", ni->rack_name);
		else
			print_text(" rack %u", ni->rack);
	}
	if (ni->topo & SNODE_TOPO_HAS_PLANE)
		print_u64("plane", " plane %llu", ni->plane);
	if (ni->topo & SNODE_TOPO_HAS_SWITCH) {
		print_u64("switch_id", NULL, ni->switch_id);
		if (ni->switch_name[0])
			print_str("switch", " switch %s", ni->switch_name);
		else
			print_text(" switch %u", ni->switch_id);
	}
	if (ni->hops)
		print_u64("hops", " hops %llu", ni->hops);
}

static void node_print(const struct snode_node_info *ni)
{
	char dev[32];

	snprintf(dev, sizeof(dev), "snode%u", ni->dev_index);
	print_open_object(NULL);
	print_str("dev", "%s", dev);
	print_u64("node", " node %llu", ni->id);
	node_print_topo(ni);
	print_str("state", " %s", node_state_name(ni->state));
	if (ni->route_port != SNODE_NONE)
		print_u64("route_port", " route-port %llu", ni->route_port);
	else
		print_text(" route-port -");
	print_nl();
	print_close_object();
}

/* Every node as @d sees it, or as each NIC does (@d NULL). */
static int node_list_of(struct snodectl *sc, struct snode_dev *d)
{
	const struct snode_node_info *ni;
	struct snode_node_iter *iter;
	int dev_index = d ? snode_dev_get_index(d) : -1;
	int ret;

	ret = snode_node_list(sc->ctx, dev_index, sizeof(*ni), &iter);
	if (ret < 0)
		return snodectl_nl_err("node list", ret);

	print_open_array("nodes");
	snode_node_iter_foreach(iter, ni)
		node_print(ni);
	print_close_array();
	snode_node_iter_free(iter);
	return 0;
}

static int node_list(struct snodectl *sc)
{
	struct snode_dev *d;
	int ret = snodectl_dev_only(sc, "node", &d);

	return ret ? ret : node_list_of(sc, d);
}

/*
 * One node, as one NIC or as each NIC sees it: a scheduler asking where a
 * single node sits need not dump the whole fabric (1024 nodes). Without
 * "node ID" it is "node list".
 */
static int node_show(struct snodectl *sc)
{
	struct snode_node_info ni;
	const char *name = NULL, *word;
	struct snode_dev *d, *dev;
	uint64_t id = 0;
	bool has_id = false;
	int ret;

	while (sc->argc > 0) {
		ret = snodectl_dev_opt(sc, "node", &name);
		if (ret)
			return ret;
		if (!snodectl_arg_match(sc, "node"))
			break;
		word = snodectl_arg_next(sc);
		if (!word)
			return snodectl_usage("node", "node show: \"node\" needs a node id");
		if (has_id)
			return snodectl_usage("node", "node show: more than one node (\"%s\")",
					      word);
		if (tool_parse_u64(word, UINT32_MAX, &id))
			return snodectl_usage("node", "node show: \"%s\" is not a node id",
					      word);
		has_id = true;
	}
	ret = snodectl_no_more(sc);
	if (!ret)
		ret = snodectl_dev_resolve(sc, name, &d);
	if (ret)
		return ret;
	if (!has_id)
		return node_list_of(sc, d);
	if (!snode_dev_get_first(sc->ctx))
		return snodectl_err("no snode devices (is snode.ko loaded?)");

	print_open_array("nodes");
	snode_dev_foreach(sc->ctx, dev) {
		if (d && dev != d)
			continue;
		ret = snode_node_get(sc->ctx, snode_dev_get_index(dev),
				     (uint32_t)id, &ni, sizeof(ni));
		if (ret < 0)
			break;
		node_print(&ni);
	}
	print_close_array();
	return ret < 0 ? snodectl_nl_err("node show", ret) : 0;
}

static const struct snodectl_cmd node_cmds[] = {
	{ "list", node_list },
	{ "show", node_show },
	{ NULL, NULL }
};

int cmd_node(struct snodectl *sc)
{
	return snodectl_dispatch(sc, "node", node_cmds, node_help);
}
