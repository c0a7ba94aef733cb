/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * fi_ext_snode.h - extensions of the libfabric provider "snode", as
 * libfabric's own fi_ext_*.h: opened with fi_open_ops() on a domain.
 * Installed as <rdma/fi_ext_snode.h> (make ofi-install, libfabric-snode-dev).
 *
 * FI_SNODE_STATS_OPS: how the domain's bytes moved, so that a program (and
 * the provider's test) can tell a copy through a bounce region from a
 * zero-copy transfer on registered memory. Counters only grow; read them
 * before and after the operations of interest.
 */
#ifndef FI_EXT_SNODE_H
#define FI_EXT_SNODE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FI_SNODE_STATS_OPS	"snode_stats"

struct fi_snode_stats {
	/* user bytes copied into this side's bounce region (rendezvous
	 * sends, fi_write initiated, fi_read served): operations, bytes */
	uint64_t bounce_copies;
	uint64_t bounce_bytes;
	/* rendezvous sends announced from a registration (no bounce) */
	uint64_t zc_sends;
	/* rendezvous receives pulled straight from a peer's registration */
	uint64_t zc_pulls;
	/* fi_write and fi_read done on the target's registration through
	 * an import of it, without the target's provider */
	uint64_t rma_direct;
	/* peers' fi_write and fi_read requests this side served */
	uint64_t rma_served;
	/* exports of registrations to a node */
	uint64_t mr_exports;
};

struct fid_domain;
struct fi_snode_stats_ops {
	size_t size;	/* sizeof(struct fi_snode_stats_ops) */
	/* copies min(size, sizeof(*stats)) bytes of the domain's counters */
	int (*read)(struct fid_domain *domain, struct fi_snode_stats *stats,
		    size_t size);
};

#ifdef __cplusplus
}
#endif

#endif /* FI_EXT_SNODE_H */
