// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * snodectl dev: the NICs of this host, as the snode netlink family
 * reports them.
 */
#include <stdio.h>

#include "snodectl.h"

static void dev_help(FILE *f)
{
	fprintf(f,
		"Usage: snodectl dev show [ DEV ]\n"
		"       snodectl dev set DEV [ temp-max C ] [ temp-crit C ] [ power-max W ]\n"
		"DEV := { snodeN | dev snodeN }\n"
		"C := degrees Celsius, -55 to 150 (e.g. 87.5); W := watts, above 0, at most 1000\n"
		"Setting needs root (the limits are the NIC's hwmon files).\n");
}

static void dev_print_caps(uint32_t caps)
{
	static const char *const names[] = {
		"att", "export", "dma", "msg", "sensors", "coherent", "flr",
		"ev-topo",
	};
	unsigned int i;

	print_open_array("caps");
	print_text(" caps");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (caps & (1u << i))
			print_str(NULL, " %s", names[i]);
	print_close_array();
}

static int dev_print(struct snode_dev *dev)
{
	struct snode_dev_status st;
	int ret = snode_dev_get_status(dev, &st, sizeof(st));

	if (ret < 0)
		return snodectl_nl_err(snode_dev_get_name(dev), ret);
	print_open_object(NULL);
	print_str("dev", "%s:", snode_dev_get_name(dev));
	if (st.node_id == SNODE_NODE_ID_NONE)
		print_str("state", " %s", "detached");
	else
		print_str("state", " %s", "attached");
	if (st.node_id != SNODE_NODE_ID_NONE)
		print_u64("node", " node %llu", st.node_id);
	print_u64("fabric", " fabric %llu", st.fabric_id);
	print_u64("ports", " ports %llu", st.nports);
	print_text(" fw %u.%u.%u", st.fw_version >> 24,
		   (st.fw_version >> 16) & 0xff, st.fw_version & 0xffff);
	print_u64("fw_version", NULL, st.fw_version);
	print_str("serial", " serial %s", st.serial);
	print_nl();
	print_text("    ");
	print_u64("pool_size", "pool %llu", st.pool_size);
	print_u64("aperture_size", " aperture %llu", st.aperture_size);
	print_u64("att_entries", " att %llu", st.att_entries);
	print_u64("export_entries", " exports %llu", st.export_entries);
	print_u64("max_nodes", " max_nodes %llu", st.max_nodes);
	dev_print_caps(st.caps);
	print_bool("throttled", NULL, st.throttled);
	print_nl();
	print_close_object();
	return 0;
}

static int dev_show(struct snodectl *sc)
{
	struct snode_dev *dev;
	int ret;

	ret = snodectl_dev_only(sc, "dev", &dev);
	if (ret)
		return ret;
	if (dev) {
		print_open_array("devices");
		ret = dev_print(dev);
		print_close_array();
		return ret;
	}
	/*
	 * No NIC is an empty list, as health reports it: the document
	 * (devices []) and status 0, with a hint on stderr.
	 */
	if (!snode_dev_get_first(sc->ctx))
		snodectl_err("no snode devices (is snode.ko loaded?)");
	print_open_array("devices");
	snode_dev_foreach(sc->ctx, dev)
		ret |= dev_print(dev);
	print_close_array();
	return ret;
}

static const struct snodectl_cmd dev_cmds[] = {
	{ "show", dev_show },
	{ "list", dev_show },
	{ "set", sensor_dev_set },
	{ NULL, NULL }
};

int cmd_dev(struct snodectl *sc)
{
	return snodectl_dispatch(sc, "dev", dev_cmds, dev_help);
}
