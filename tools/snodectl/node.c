// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl node: the fabric's nodes as this host's NICs see them.
 */
#include <stdio.h>

#include "snodectl.h"

static void node_help(FILE *f)
{
	fprintf(f,
		"Usage: snodectl node list [ DEV ]\n"
		"DEV := { snodeN | dev snodeN }\n");
}

/*
 * Where the node sits and how the route reaches it, for schedulers
 * (decision 0030): the rack, then the plane, the switch that delivers to
 * it and the hops. Names when the fabric gave them, else ids; only what
 * the NIC reported. Before the state, so each line still ends with the
 * route port as it always did.
 */
static void node_print_topo(const struct snode_node_info *ni)
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

static int node_list(struct snodectl *sc)
{
	const struct snode_node_info *ni;
	struct snode_node_iter *iter;
	int dev_index = -1, ret;
	struct snode_dev *d;
	char dev[32];

	ret = snodectl_dev_only(sc, "node", &d);
	if (ret)
		return ret;
	if (d)
		dev_index = snode_dev_get_index(d);
	ret = snode_node_list(sc->ctx, dev_index, sizeof(*ni), &iter);
	if (ret < 0)
		return snodectl_nl_err("node list", ret);

	print_open_array("nodes");
	snode_node_iter_foreach(iter, ni) {
		snprintf(dev, sizeof(dev), "snode%u", ni->dev_index);
		print_open_object(NULL);
		print_str("dev", "%s", dev);
		print_u64("node", " node %llu", ni->id);
		node_print_topo(ni);
		print_str("state", " %s", node_state_name(ni->state));
		if (ni->route_port != SNODE_NONE)
			print_u64("route_port", " route-port %llu",
				  ni->route_port);
		else
			print_text(" route-port -");
		print_nl();
		print_close_object();
	}
	print_close_array();
	snode_node_iter_free(iter);
	return 0;
}

static const struct snodectl_cmd node_cmds[] = {
	{ "list", node_list },
	{ "show", node_list },
	{ NULL, NULL }
};

int cmd_node(struct snodectl *sc)
{
	return snodectl_dispatch(sc, "node", node_cmds, node_help);
}
