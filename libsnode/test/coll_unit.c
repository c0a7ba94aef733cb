// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * coll_unit - host unit test of libsnode's collectives: how a buffer is
 * split into blocks, the reductions, the topology order, and the
 * arguments every public function refuses before it touches a device.
 * Built with the library's sources (its internal lsn_coll_* helpers);
 * run by "make libsnode-test". TAP output; exit status 1 on a failure.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "private.h"

static unsigned int tests, failures;

static void check(int ok, const char *what)
{
	printf("%sok %u - %s\n", ok ? "" : "not ", ++tests, what);
	if (!ok)
		failures++;
}

/* blocks tile [0, count) in order, and differ in length by at most one */
static void test_blocks(void)
{
	size_t count, start, len, next, min, max;
	unsigned int n, b;
	int ok = 1;

	for (count = 0; count < 70; count++) {
		for (n = 1; n <= 9; n++) {
			next = 0;
			min = SIZE_MAX;
			max = 0;
			for (b = 0; b < n; b++) {
				len = lsn_coll_block(count, n, b, &start);
				ok &= start == next;
				next = start + len;
				min = len < min ? len : min;
				max = len > max ? len : max;
			}
			ok &= next == count && max - min <= 1;
		}
	}
	check(ok, "blocks tile the buffer for 0-69 items over 1-9 ranks, +-1 item");
	len = lsn_coll_block(1, 4, 0, &start);
	check(len == 1 && start == 0 && lsn_coll_block(1, 4, 3, &start) == 0,
	      "1 item over 4 ranks: rank 0 has it, rank 3 none");
}

static void test_reduce(void)
{
	double d[3] = { 1, -2, 3.5 }, ds[3] = { 4, 5, -6 };
	int32_t i[3] = { 1, -2, 7 }, is[3] = { 4, 5, -6 };
	uint64_t u[2] = { 1, UINT64_MAX }, us[2] = { 2, 3 };
	float f[2] = { 1.5f, 2 }, fs[2] = { 2, 0.25f };
	uint32_t w[2] = { 9, 0 };

	check(!lsn_coll_reduce(d, ds, 3, SNODE_COLL_DOUBLE, SNODE_COLL_SUM) &&
	      d[0] == 5 && d[1] == 3 && d[2] == -2.5, "double sum");
	check(!lsn_coll_reduce(i, is, 3, SNODE_COLL_INT32, SNODE_COLL_MIN) &&
	      i[0] == 1 && i[1] == -2 && i[2] == -6, "int32 min");
	check(!lsn_coll_reduce(u, us, 2, SNODE_COLL_UINT64, SNODE_COLL_MAX) &&
	      u[0] == 2 && u[1] == UINT64_MAX, "uint64 max");
	check(!lsn_coll_reduce(f, fs, 2, SNODE_COLL_FLOAT, SNODE_COLL_PROD) &&
	      f[0] == 3 && f[1] == 0.5f, "float prod");
	check(lsn_coll_reduce(w, w, 2, 0, SNODE_COLL_SUM) == -EINVAL &&
	      lsn_coll_reduce(w, w, 2, 7, SNODE_COLL_SUM) == -EINVAL &&
	      lsn_coll_reduce(w, w, 2, SNODE_COLL_UINT32, 0) == -EINVAL &&
	      lsn_coll_reduce(w, w, 2, SNODE_COLL_UINT32, 5) == -EINVAL &&
	      w[0] == 9 && w[1] == 0, "unknown type or op: EINVAL, nothing written");
	check(lsn_coll_type_size(SNODE_COLL_INT32) == 4 &&
	      lsn_coll_type_size(SNODE_COLL_DOUBLE) == 8 &&
	      lsn_coll_type_size(0) == 0, "element sizes");
}

static void test_order(void)
{
	/* ranks 0-5 on nodes 10-15; racks and switches interleaved */
	const uint32_t nodes[6] = { 10, 11, 12, 13, 14, 15 };
	const uint32_t rack[6] = { 1, 0, 1, 0, 0xffffffffU, 0 };
	const uint32_t sw[6] = { 5, 2, 4, 3, 1, 2 };
	const unsigned int want[6] = { 1, 5, 3, 2, 0, 4 };
	unsigned int order[6], i;
	int ok = 1;

	lsn_coll_order(6, nodes, rack, sw, order);
	for (i = 0; i < 6; i++)
		ok &= order[i] == want[i];
	check(ok, "topology order: by rack, switch, node; unreported last");
	lsn_coll_order(6, nodes, NULL, NULL, order);
	for (ok = 1, i = 0; i < 6; i++)
		ok &= order[i] == i;
	check(ok, "list order without topology");
}

/* Refused before any device access: no device is needed. */
static void test_args(void)
{
	struct snode_comm *c = (struct snode_comm *)0x1;
	uint32_t nodes[2] = { 0, 1 };
	double v = 0;

	check(snode_comm_new(NULL, nodes, 2, NULL, 0, &c) == -EINVAL &&
	      c == (struct snode_comm *)0x1, "comm_new without a device: EINVAL, *comm untouched");
	check(snode_allreduce(NULL, &v, 1, SNODE_COLL_DOUBLE, SNODE_COLL_SUM) == -EINVAL,
	      "allreduce without a communicator: EINVAL");
	check(snode_bcast(NULL, &v, 8, 0) == -EINVAL, "bcast without a communicator: EINVAL");
	check(snode_alltoall(NULL, &v, &v, 8) == -EINVAL,
	      "alltoall without a communicator: EINVAL");
	check(snode_barrier(NULL) == -EINVAL, "barrier without a communicator: EINVAL");
	check(snode_comm_get_rank(NULL) == -EINVAL && snode_comm_get_size(NULL) == -EINVAL,
	      "rank and size without a communicator: EINVAL");
	check(snode_comm_free(NULL) == 0, "comm_free(NULL) is a no-op");
}

int main(void)
{
	test_blocks();
	test_reduce();
	test_order();
	test_args();
	printf("1..%u\n", tests);
	return failures ? 1 : 0;
}
