// SPDX-License-Identifier: GPL-2.0
/*
 * snode: fabric nodes as the NIC reports them, and the fabric's switch
 * and rack names.
 */

#include <linux/bitfield.h>
#include <linux/ktime.h>
#include <linux/slab.h>

#include <linux/snode.h>

#include "link.h"
#include "snode.h"

/**
 * DOC: Fabric nodes
 *
 * link_node.c keeps what the NIC last said about the other nodes of the
 * fabric (&struct snode_link_node): their state and route from
 * NODE_STATE events and NODE_TOPO, the switch and rack names of
 * TOPO_NAMES (decision 0030), and passes node changes to the listeners
 * of the "snode" family and to the network interface. The rate limit,
 * the resync after lost events and the locking are link.c's.
 */

static u8 snode_node_state(struct snode_link *link, u8 hw, u8 *route)
{
	BUILD_BUG_ON(SNODE_NODE_UNKNOWN != SNODE_NODE_STATE_UNKNOWN);
	BUILD_BUG_ON(SNODE_NODE_UP != SNODE_NODE_STATE_UP);
	BUILD_BUG_ON(SNODE_NODE_UNREACHABLE != SNODE_NODE_STATE_UNREACHABLE);
	BUILD_BUG_ON(SNODE_NODE_DEAD != SNODE_NODE_STATE_DEAD);

	if (hw > SNODE_NODE_DEAD)
		hw = SNODE_NODE_UNKNOWN;
	/* only a node that is up has a route, and only through a real port */
	if (hw != SNODE_NODE_UP || *route >= link->nports)
		*route = SNODE_LINK_NO_ROUTE;
	return hw;
}

void __snode_node_send(struct snode_link *link, u32 id,
		       const struct snode_ev_meta *meta)
{
	struct snode_link_node *ln = &link->nodes[id];

	snode_tell_node_ntf(link->sdev, id, ln, meta);
	ln->sent_state = ln->state;
	ln->sent_route = ln->route;
}

/* A node changed state or route: notify, through the rate limit. */
static void __snode_node_changed(struct snode_link *link, u32 id,
				 const struct snode_ev_meta *meta)
{
	struct snode_link_node *ln = &link->nodes[id];

	lockdep_assert_held(&link->lock);
	snode_tell_nodes_changed(link->sdev);
	snode_tell_node_changed(link->sdev, id,
				ln->state == SNODE_NODE_STATE_UP);
	if (!link->live) {
		/* before registration the state is the starting point */
		ln->sent_state = ln->state;
		ln->sent_route = ln->route;
		return;
	}
	if (__snode_rl_admit(link, &ln->rl, meta))
		__snode_node_send(link, id, meta);
}

/**
 * snode_link_net_attach() - attach the network interface to node changes
 * @sdev: snode device
 * @net: the interface, or NULL to detach it
 * @up: with @net, a bitmap of &snode_link.max_nodes bits to set for every
 *      node that is up now
 *
 * From here on every node change reaches the interface (its
 * &snode_listener_ops.node_changed) with &snode_link.lock held; detaching
 * waits for the one in progress.
 *
 * Context: Process context.
 */
void snode_link_net_attach(struct snode_dev *sdev, struct snode_net *net,
			   unsigned long *up)
{
	struct snode_link *link = sdev->link;
	u32 i;

	mutex_lock(&link->lock);
	/* read without the lock by snode_net_reset_done() */
	WRITE_ONCE(sdev->net, net);
	for (i = 0; net && i < link->max_nodes; i++)
		if (link->nodes[i].state == SNODE_NODE_STATE_UP)
			set_bit(i, up);
	mutex_unlock(&link->lock);
}

/**
 * snode_link_topo_refresh() - read the switch and rack names from the NIC
 * @sdev: snode device
 *
 * Issues TOPO_NAMES for switches and racks once per attach (the fabric
 * sends the names when the NIC attaches; a resync reads them again).
 * Names are what operators read; the ids in NODE_TOPO and PORT_QUERY
 * index them (decision 0030).
 *
 * Context: Process context, sleeps. Must not hold &snode_link.lock.
 * Return: 0 or the errno of a command; the names are unchanged on error.
 */
int snode_link_topo_refresh(struct snode_dev *sdev)
{
	struct snode_link *link = sdev->link;
	struct snode_topo_name *buf;
	u32 count[2];
	unsigned int kind;
	int ret = 0;

	mutex_lock(&link->lock);
	if (link->topo->valid) {
		mutex_unlock(&link->lock);
		return 0;
	}
	mutex_unlock(&link->lock);

	buf = kvcalloc(2 * SNODE_TOPO_MAX_NAMES, sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	for (kind = SNODE_TOPO_SWITCHES; kind <= SNODE_TOPO_RACKS; kind++) {
		struct snode_admin_req req = {
			.cmd.opcode = SNODE_OP_TOPO_NAMES,
			.cmd.topo_names.kind = cpu_to_le32(kind),
			.data = buf + kind * SNODE_TOPO_MAX_NAMES,
			.len = SNODE_TOPO_MAX_NAMES * sizeof(*buf),
			.dir = DMA_FROM_DEVICE,
		};

		ret = snode_admin_exec(sdev, &req);
		if (ret)
			goto out;
		count[kind] = le32_to_cpu(req.cpl.topo_names.count);
		/* clamp if the device misbehaves: no more than the buffer holds */
		count[kind] = min_t(u32, count[kind], SNODE_TOPO_MAX_NAMES);
	}
	mutex_lock(&link->lock);
	for (kind = SNODE_TOPO_SWITCHES; kind <= SNODE_TOPO_RACKS; kind++) {
		u32 i;

		memcpy(link->topo->names[kind], buf + kind * SNODE_TOPO_MAX_NAMES,
		       count[kind] * sizeof(*buf));
		/* NUL terminated whatever the device wrote */
		for (i = 0; i < count[kind]; i++)
			link->topo->names[kind][i].name[SNODE_TOPO_NAME_LEN - 1] = 0;
		link->topo->count[kind] = count[kind];
	}
	/* a detached NIC has none yet: ask again next time */
	link->topo->valid = count[SNODE_TOPO_SWITCHES] || count[SNODE_TOPO_RACKS];
	mutex_unlock(&link->lock);
out:
	kvfree(buf);
	return ret;
}

/**
 * __snode_link_topo_name() - the fabric's name of a switch or rack
 * @link: link state of the NIC
 * @kind: SNODE_TOPO_SWITCHES or SNODE_TOPO_RACKS
 * @id: the switch or rack id
 * @plane: if not NULL, set to the switch's plane (SNODE_TOPO_NO_PLANE: none)
 *
 * Context: &snode_link.lock held.
 * Return: the name, or NULL if the NIC has none for @id.
 */
const char *__snode_link_topo_name(struct snode_link *link, unsigned int kind,
				   u32 id, u8 *plane)
{
	const struct snode_topo_name *n;

	lockdep_assert_held(&link->lock);
	if (plane)
		*plane = SNODE_TOPO_NO_PLANE;
	if (kind > SNODE_TOPO_RACKS || id >= link->topo->count[kind])
		return NULL;
	n = &link->topo->names[kind][id];
	if (plane)
		*plane = n->plane;
	return n->name[0] ? n->name : NULL;
}

/**
 * snode_link_nodes_refresh() - read the node table from the NIC
 * @sdev: snode device
 *
 * Issues NODE_TOPO, which holds each node's NODE_LIST byte and the route
 * topology (decision 0030), and merges the answer into the cache; a node
 * whose state differs without an event having said so is notified. One
 * command for the whole table, never one per node: under emulation an
 * admin command costs milliseconds, and a dump of 1024 nodes has a 20 ms
 * budget. The names are read first if they were not yet.
 *
 * Context: Process context, sleeps. Must not hold &snode_link.lock.
 * Return: 0 or the errno of the command; the cache is unchanged on error.
 */
int snode_link_nodes_refresh(struct snode_dev *sdev)
{
	struct snode_link *link = sdev->link;
	struct snode_admin_req req = {
		.cmd.opcode = SNODE_OP_NODE_TOPO,
		.len = link->max_nodes * sizeof(struct snode_node_topo),
		.dir = DMA_FROM_DEVICE,
	};
	struct snode_ev_meta meta = {};
	struct snode_node_topo *topo;
	u32 before;
	u32 i;
	int ret;

	if (!link->max_nodes)
		return 0;
	ret = snode_link_topo_refresh(sdev);
	if (ret)
		return ret;
	topo = kvcalloc(link->max_nodes, sizeof(*topo), GFP_KERNEL);
	if (!topo)
		return -ENOMEM;
	req.data = topo;

	mutex_lock(&link->lock);
	before = link->events;
	mutex_unlock(&link->lock);

	ret = snode_admin_exec(sdev, &req);
	if (ret)
		goto out;

	meta.ts = ktime_get_real_ns();
	mutex_lock(&link->lock);
	for (i = 0; i < link->max_nodes; i++) {
		struct snode_link_node *ln = &link->nodes[i];
		u8 route = FIELD_GET(SNODE_NODE_LIST_ROUTE_MASK, topo[i].state);
		u8 state;

		/* the topology follows the route; ids checked when named */
		ln->hops = topo[i].hops;
		ln->plane = topo[i].plane;
		ln->sw = le16_to_cpu(topo[i].sw);
		ln->rack = le16_to_cpu(topo[i].rack);
		/* an event after the question is newer than the answer */
		if ((s32)(ln->stamp - before) > 0)
			continue;
		state = snode_node_state(link,
					 FIELD_GET(SNODE_NODE_LIST_STATE_MASK,
						   topo[i].state),
					 &route);
		if (state == ln->state && route == ln->route)
			continue;
		ln->state = state;
		ln->route = route;
		__snode_node_changed(link, i, &meta);
	}
	mutex_unlock(&link->lock);
out:
	kvfree(topo);
	return ret;
}

void snode_link_node_event(struct snode_link *link,
			   const struct snode_event_node_state *d,
			   const struct snode_ev_meta *meta)
{
	struct snode_link_node *ln;
	u32 id = le32_to_cpu(d->node);
	u8 route = d->route_port;
	struct snode_id ident;
	u8 state;

	if (id >= link->max_nodes) {
		dev_warn_ratelimited(&link->sdev->pdev->dev,
				     "event for node %u, the fabric has %u\n",
				     id, link->max_nodes);
		return;
	}
	snode_id_get(link->sdev, &ident);
	mutex_lock(&link->lock);
	ln = &link->nodes[id];
	ln->stamp = ++link->events;
	/* the route's topology, so that the notification says where it goes */
	if (ident.caps & SNODE_CAP_EV_TOPO) {
		ln->hops = d->hops;
		ln->plane = d->plane;
		ln->sw = le16_to_cpu(d->sw);
		ln->rack = le16_to_cpu(d->rack);
	}
	state = snode_node_state(link, d->state, &route);
	/* after a reset the fabric repeats what it said before */
	if (state != ln->state || route != ln->route) {
		ln->state = state;
		ln->route = route;
		__snode_node_changed(link, id, meta);
	}
	mutex_unlock(&link->lock);
}
