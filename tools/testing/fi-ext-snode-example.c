// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * fi-ext-snode-example.c - a program of a libfabric user that reads the
 * provider's counters (fi_snode(7), <rdma/fi_ext_snode.h>), built by the
 * install and deb suites against the installed header alone: make
 * ofi-install's and libfabric-snode-dev's. Without a NIC it only prints
 * the extension's name and the size of its counters.
 */
#include <stdio.h>
#include <rdma/fabric.h>
#include <rdma/fi_domain.h>
#include <rdma/fi_ext_snode.h>

/* what a program calls after its transfers, on the domain they used */
int snode_stats_get(struct fid_domain *domain, struct fi_snode_stats *st)
{
	struct fi_snode_stats_ops *ops;
	int ret;

	ret = fi_open_ops(&domain->fid, FI_SNODE_STATS_OPS, 0, (void **)&ops,
			  NULL);
	if (ret)
		return ret;
	return ops->read(domain, st, sizeof(*st));
}

int main(void)
{
	printf("%s %zu\n", FI_SNODE_STATS_OPS, sizeof(struct fi_snode_stats));
	return 0;
}
