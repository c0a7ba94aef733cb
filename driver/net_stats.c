// SPDX-License-Identifier: GPL-2.0
/*
 * snode: the network interface's counters, as the stack reads them
 * (ndo_get_stats64) and as ethtool -S shows them. Each counter struct of
 * net.h has one writer (the poll, @tx_work, the doorbell work); a reader
 * takes a consistent copy of each through its u64_stats_sync.
 */

#include <linux/ethtool.h>
#include <linux/netdevice.h>
#include <linux/pci.h>
#include <linux/string.h>

#include "net.h"

static void snode_net_read(const struct snode_net_stats *st,
			   struct snode_net_stats *out)
{
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(&st->syncp);
		memcpy(out, st, sizeof(*out));
	} while (u64_stats_fetch_retry(&st->syncp, start));
}

void snode_net_get_stats64(struct net_device *ndev, struct rtnl_link_stats64 *s)
{
	struct snode_net *net = netdev_priv(ndev);
	struct snode_net_stats rx, tx;

	snode_net_read(&net->rxs, &rx);
	snode_net_read(&net->txs, &tx);
	s->rx_packets = rx.packets;
	s->rx_bytes = rx.bytes;
	s->rx_errors = rx.errors;
	s->rx_length_errors = rx.length_errors;
	s->rx_frame_errors = rx.frame_errors;
	s->rx_dropped = rx.dropped;
	s->multicast = rx.multicast;
	s->tx_packets = tx.packets;
	s->tx_bytes = tx.bytes;
	s->tx_errors = tx.errors;
	s->tx_carrier_errors = tx.carrier_errors;
	s->tx_fifo_errors = tx.fifo_errors;
	s->tx_dropped = atomic64_read(&net->tx_bad_len);
}

static const char snode_net_stat_names[][ETH_GSTRING_LEN] = {
	"rx_msgs", "tx_msgs", "tx_broadcast_copies", "tx_no_path",
	"tx_ring_full", "tx_broadcast_refused", "rx_truncated",
	"rx_orphan_fragments", "rx_no_memory", "peers_up",
	"rx_msg_frames", "tx_msg_frames", "rx_ring_frames", "tx_ring_frames",
	"tx_doorbells", "rx_ring_errors", "tx_ring_errors", "ring_grants",
	"rx_rings", "tx_rings", "tx_ring_waits", "tx_ring_stuck",
	"tx_broadcast_dropped",
};

static void snode_net_get_drvinfo(struct net_device *ndev,
				  struct ethtool_drvinfo *info)
{
	struct snode_net *net = netdev_priv(ndev);

	strscpy(info->driver, KBUILD_MODNAME, sizeof(info->driver));
	strscpy(info->bus_info, pci_name(net->sdev->pdev),
		sizeof(info->bus_info));
}

static int snode_net_get_sset_count(struct net_device *ndev, int sset)
{
	return sset == ETH_SS_STATS ? ARRAY_SIZE(snode_net_stat_names) :
				      -EOPNOTSUPP;
}

static void snode_net_get_strings(struct net_device *ndev, u32 sset, u8 *buf)
{
	if (sset == ETH_SS_STATS)
		memcpy(buf, snode_net_stat_names, sizeof(snode_net_stat_names));
}

static void snode_net_get_ethtool_stats(struct net_device *ndev,
					struct ethtool_stats *stats, u64 *data)
{
	struct snode_net *net = netdev_priv(ndev);
	struct snode_net_stats rx, tx, db;
	unsigned int i = 0;

	snode_net_read(&net->rxs, &rx);
	snode_net_read(&net->txs, &tx);
	snode_net_read(&net->dbs, &db);
	data[i++] = rx.msgs;
	data[i++] = tx.msgs + db.msgs;
	data[i++] = tx.copies;
	data[i++] = tx.carrier_errors;
	data[i++] = tx.fifo_errors;
	data[i++] = tx.no_iface;
	data[i++] = rx.length_errors;
	data[i++] = rx.frame_errors;
	data[i++] = rx.dropped;
	data[i++] = bitmap_weight(net->up, net->max_nodes);
	data[i++] = rx.msg_frames;
	data[i++] = tx.msg_frames;
	data[i++] = rx.ring_frames;
	data[i++] = tx.ring_frames;
	data[i++] = db.doorbells;
	data[i++] = rx.ring_errors + tx.export_errors;
	data[i++] = tx.ring_errors;
	data[i++] = tx.grants;
	data[i++] = snode_net_ring_rx_rings(net);
	data[i++] = READ_ONCE(net->tx_rings);
	data[i++] = tx.waits;
	data[i++] = tx.stuck;
	data[i++] = tx.bcast_drops;
}

const struct ethtool_ops snode_net_ethtool_ops = {
	.get_drvinfo = snode_net_get_drvinfo,
	.get_link = ethtool_op_get_link,
	.get_sset_count = snode_net_get_sset_count,
	.get_strings = snode_net_get_strings,
	.get_ethtool_stats = snode_net_get_ethtool_stats,
};
