// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * coll_test - libsnode's collectives on the nodes of an emulated supernode.
 *
 * Run the same command on every node of LIST (selftests/vm/msg.sh does):
 *
 *   coll_test nodes LIST
 *	every collective for sizes 0, 1, not divisible by the number of
 *	ranks, one slot and many slots (a communicator with 4 KiB slots
 *	makes most sizes take several steps), several types and operations
 *	and every root, each result checked element by element; bad
 *	arguments fail with EINVAL and leave the communicator working.
 *   coll_test nodes LIST victim NODE
 *	allreduce in a loop; NODE's process kills itself with SIGKILL in
 *	the middle of one. Every other rank's call must fail with EPIPE or
 *	ETIMEDOUT within the communicator's timeout (20 s) plus a margin,
 *	never hang, and later calls must fail with EPIPE.
 *
 * One TAP line per check, prefixed with the rank; the exit status is 1 if
 * any failed.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "libsnode.h"

static unsigned int tests, failures, rank, nranks;

static void check(int ok, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void check(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %u - rank %u: ", ok ? "" : "not ", ++tests, rank);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	if (!ok)
		failures++;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * rank r's item i: integers from 1 to 11, so every op is exact in every
 * type for up to 4 ranks (11^4 fits a float's mantissa)
 */
static long long item(unsigned int r, size_t i)
{
	return (long long)((r * 5 + i * 3) % 11) + 1;
}

static long long expect(unsigned int op, size_t i)
{
	long long v = item(0, i), x;
	unsigned int r;

	for (r = 1; r < nranks; r++) {
		x = item(r, i);
		if (op == SNODE_COLL_SUM)
			v += x;
		else if (op == SNODE_COLL_PROD)
			v *= x;
		else if (op == SNODE_COLL_MIN)
			v = x < v ? x : v;
		else
			v = x > v ? x : v;
	}
	return v;
}

#define FILL_CHECK(T)							\
static void fill_##T(void *buf, size_t count)				\
{									\
	T *b = buf;							\
	size_t i;							\
									\
	for (i = 0; i < count; i++)					\
		b[i] = (T)item(rank, i);				\
}									\
static size_t bad_##T(const void *buf, size_t count, unsigned int op)	\
{									\
	const T *b = buf;						\
	size_t i;							\
									\
	for (i = 0; i < count; i++)					\
		if (b[i] != (T)expect(op, i))				\
			return i + 1;					\
	return 0;							\
}
FILL_CHECK(int32_t)
FILL_CHECK(uint64_t)
FILL_CHECK(float)
FILL_CHECK(double)

struct type_case {
	unsigned int type, op;
	size_t size;
	const char *name;
	void (*fill)(void *buf, size_t count);
	size_t (*bad)(const void *buf, size_t count, unsigned int op);
};

static const struct type_case type_cases[] = {
	{ SNODE_COLL_DOUBLE, SNODE_COLL_SUM, 8, "double sum", fill_double, bad_double },
	{ SNODE_COLL_INT32, SNODE_COLL_SUM, 4, "int32 sum", fill_int32_t, bad_int32_t },
	{ SNODE_COLL_UINT64, SNODE_COLL_MAX, 8, "uint64 max", fill_uint64_t, bad_uint64_t },
	{ SNODE_COLL_INT32, SNODE_COLL_MIN, 4, "int32 min", fill_int32_t, bad_int32_t },
	{ SNODE_COLL_FLOAT, SNODE_COLL_PROD, 4, "float prod", fill_float, bad_float },
};

static uint8_t pat(unsigned int from, unsigned int to, size_t i, unsigned int salt)
{
	return (uint8_t)(from * 97 + to * 13 + i * 7 + (i >> 8) + salt);
}

static void test_allreduce(struct snode_comm *comm, const char *what)
{
	size_t counts[] = { 0, 1, nranks - 1, nranks + 1, 1000, 1537, 100003 };
	unsigned int t, k;
	size_t bad;
	void *buf;
	int ret;

	buf = malloc(100003 * 8);
	for (t = 0; t < sizeof(type_cases) / sizeof(type_cases[0]); t++) {
		const struct type_case *tc = &type_cases[t];

		for (k = 0; k < sizeof(counts) / sizeof(counts[0]); k++) {
			tc->fill(buf, counts[k]);
			ret = snode_allreduce(comm, counts[k] ? buf : NULL,
					      counts[k], tc->type, tc->op);
			bad = ret ? 0 : tc->bad(buf, counts[k], tc->op);
			check(!ret && !bad, "%s: allreduce %s, %zu items (ret %d%s%zu)",
			      what, tc->name, counts[k], ret,
			      bad ? ", first wrong item " : "", bad ? bad - 1 : 0);
		}
	}
	free(buf);
}

static void test_bcast(struct snode_comm *comm, const char *what)
{
	size_t lens[] = { 0, 1, 3, 4097, 70001, (1 << 20) + 13 };
	unsigned int k, root;
	uint8_t *buf;
	size_t i, bad;
	int ret;

	buf = malloc((1 << 20) + 13);
	for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		for (root = 0; root < nranks; root++) {
			/* every root for the small ones, one root for the big */
			if (lens[k] > 70001 && root != nranks - 1)
				continue;
			for (i = 0; i < lens[k]; i++)
				buf[i] = rank == root ? pat(root, 0, i, k) : 0xee;
			ret = snode_bcast(comm, lens[k] ? buf : NULL, lens[k], root);
			for (bad = 0, i = 0; !ret && i < lens[k] && !bad; i++)
				if (buf[i] != pat(root, 0, i, k))
					bad = i + 1;
			check(!ret && !bad, "%s: bcast %zu bytes from rank %u (ret %d, first wrong byte %zd)",
			      what, lens[k], root, ret, (ssize_t)bad - 1);
		}
	}
	free(buf);
}

static void test_alltoall(struct snode_comm *comm, const char *what)
{
	size_t lens[] = { 0, 1, 5, 4099, 100000 };
	uint8_t *s, *d;
	size_t i, bad, len;
	unsigned int k;
	int ret;

	s = malloc(100000 * nranks);
	d = malloc(100000 * nranks);
	for (k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		len = lens[k];
		for (i = 0; i < len * nranks; i++) {
			s[i] = pat(rank, i / len, i % len, k);
			d[i] = 0xee;
		}
		ret = snode_alltoall(comm, s, d, len);
		for (bad = 0, i = 0; !ret && i < len * nranks && !bad; i++)
			if (d[i] != pat(i / len, rank, i % len, k))
				bad = i + 1;
		check(!ret && !bad, "%s: alltoall %zu bytes per rank (ret %d, first wrong byte %zd)",
		      what, len, ret, (ssize_t)bad - 1);
	}
	free(s);
	free(d);
}

static void test_barrier(struct snode_comm *comm, const char *what)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < 20 && !ret; i++)
		ret = snode_barrier(comm);
	check(!ret, "%s: 20 barriers (ret %d)", what, ret);
}

/* Bad arguments fail at once, on this rank alone, and change nothing. */
static void test_bad_args(struct snode_dev *dev, struct snode_comm *comm,
			  const uint32_t *nodes)
{
	struct snode_comm_params p = { 0 };
	struct snode_comm *c = NULL;
	uint32_t dup[2] = { nodes[0], nodes[0] }, stranger = 0xfffffffeU;
	double v[4] = { 0 };
	uint8_t b[64];

	check(snode_comm_new(NULL, nodes, nranks, NULL, 0, &c) == -EINVAL && !c,
	      "comm_new without a device: EINVAL");
	check(snode_comm_new(dev, NULL, nranks, NULL, 0, &c) == -EINVAL && !c,
	      "comm_new without nodes: EINVAL");
	check(snode_comm_new(dev, nodes, 0, NULL, 0, &c) == -EINVAL && !c,
	      "comm_new of 0 nodes: EINVAL");
	check(snode_comm_new(dev, nodes, SNODE_COMM_MAX_RANKS + 1, NULL, 0, &c) == -EINVAL,
	      "comm_new of too many nodes: EINVAL");
	check(snode_comm_new(dev, dup, 2, NULL, 0, &c) == -EINVAL && !c,
	      "comm_new with a node twice: EINVAL");
	check(snode_comm_new(dev, &stranger, 1, NULL, 0, &c) == -EINVAL && !c,
	      "comm_new of a list without this node: EINVAL");
	p.flags = 0x80;
	check(snode_comm_new(dev, nodes, nranks, &p, sizeof(p), &c) == -EINVAL && !c,
	      "comm_new with an unknown flag: EINVAL");
	p.flags = 0;
	p.slot_size = 4095;
	check(snode_comm_new(dev, nodes, nranks, &p, sizeof(p), &c) == -EINVAL && !c,
	      "comm_new with a slot size not a multiple of 4096: EINVAL");
	p.slot_size = 0;
	check(snode_comm_new(dev, nodes, nranks, &p, 4, &c) == -EINVAL && !c,
	      "comm_new with a truncated params size: EINVAL");

	check(snode_allreduce(NULL, v, 4, SNODE_COLL_DOUBLE, SNODE_COLL_SUM) == -EINVAL,
	      "allreduce without a communicator: EINVAL");
	check(snode_allreduce(comm, v, 4, 0, SNODE_COLL_SUM) == -EINVAL &&
	      snode_allreduce(comm, v, 4, 99, SNODE_COLL_SUM) == -EINVAL,
	      "allreduce of an unknown type: EINVAL");
	check(snode_allreduce(comm, v, 4, SNODE_COLL_DOUBLE, 0) == -EINVAL &&
	      snode_allreduce(comm, v, 4, SNODE_COLL_DOUBLE, 99) == -EINVAL,
	      "allreduce with an unknown op: EINVAL");
	check(snode_allreduce(comm, NULL, 4, SNODE_COLL_DOUBLE, SNODE_COLL_SUM) == -EINVAL,
	      "allreduce of a NULL buffer: EINVAL");
	check(snode_allreduce(comm, v, SIZE_MAX / 4, SNODE_COLL_DOUBLE,
			      SNODE_COLL_SUM) == -EINVAL,
	      "allreduce of a size that overflows: EINVAL");
	check(snode_bcast(comm, b, sizeof(b), nranks) == -EINVAL,
	      "bcast from a root past the last rank: EINVAL");
	check(snode_bcast(comm, NULL, 8, 0) == -EINVAL,
	      "bcast of a NULL buffer: EINVAL");
	check(snode_alltoall(comm, b, b + 1, 8) == -EINVAL,
	      "alltoall with overlapping buffers: EINVAL");
	check(snode_alltoall(comm, NULL, b, 8) == -EINVAL,
	      "alltoall of a NULL buffer: EINVAL");
	check(snode_barrier(NULL) == -EINVAL, "barrier without a communicator: EINVAL");
	check(snode_comm_get_rank(comm) == (int)rank &&
	      snode_comm_get_size(comm) == (int)nranks,
	      "rank and size of the communicator");
}

static int run_tests(struct snode_dev *dev, const uint32_t *nodes)
{
	struct snode_comm_params small = { .slot_size = 4096 };
	struct snode_comm *comm, *tiny;
	int ret;

	ret = snode_comm_new(dev, nodes, nranks, NULL, 0, &comm);
	if (!ret)
		rank = (unsigned int)snode_comm_get_rank(comm);
	check(ret == 0, "comm_new of %u nodes (ret %d)", nranks, ret);
	if (ret)
		return 1;
	test_bad_args(dev, comm, nodes);
	test_barrier(comm, "default slots");
	test_allreduce(comm, "default slots");
	test_bcast(comm, "default slots");
	test_alltoall(comm, "default slots");

	/* another endpoint id: both communicators exist at once */
	small.ep_id = SNODE_COMM_EP_DEFAULT + 1;
	ret = snode_comm_new(dev, nodes, nranks, &small, sizeof(small), &tiny);
	check(ret == 0, "comm_new with 4 KiB slots (ret %d)", ret);
	if (!ret) {
		test_allreduce(tiny, "4 KiB slots");
		test_bcast(tiny, "4 KiB slots");
		test_alltoall(tiny, "4 KiB slots");
		test_barrier(tiny, "4 KiB slots");
		check(snode_comm_free(tiny) == 0, "comm_free of the second");
	}
	/* still in step after all of that */
	test_barrier(comm, "default slots, again");
	check(snode_comm_free(comm) == 0, "comm_free");
	return 0;
}

/*
 * The communicator's timeout in the victim test: it bounds the setup too,
 * which a loaded host can make slow; a dead peer is noticed at once anyway
 * (its window is revoked), the timeout only bounds what is not.
 */
#define TIMEOUT_S	20

static void *killer(void *arg)
{
	usleep(1500 * 1000);
	printf("# rank %u: killing myself mid-collective\n", rank);
	fflush(stdout);
	kill(getpid(), SIGKILL);
	return arg;
}

static int run_victim(struct snode_dev *dev, const uint32_t *nodes,
		      uint32_t victim)
{
	struct snode_comm_params p = { .timeout_ms = TIMEOUT_S * 1000 };
	size_t count = 256 << 10, i;
	struct snode_comm *comm;
	unsigned int iters = 0;
	double *buf, t0 = 0;
	pthread_t th;
	int ret;

	ret = snode_comm_new(dev, nodes, nranks, &p, sizeof(p), &comm);
	if (!ret)
		rank = (unsigned int)snode_comm_get_rank(comm);
	check(ret == 0, "comm_new of %u nodes (ret %d)", nranks, ret);
	if (ret)
		return 1;
	buf = calloc(count, sizeof(*buf));
	/* everybody set up before the victim's clock starts */
	ret = snode_barrier(comm);
	check(ret == 0, "barrier after the setup (ret %d)", ret);
	if (ret)
		return 1;
	if (nodes[rank] == victim)
		pthread_create(&th, NULL, killer, NULL);
	/* the victim dies within 1.5 s; 600 s of calls means nobody noticed */
	for (ret = 0; !ret && iters < 100000; iters++) {
		for (i = 0; i < count; i++)
			buf[i] = 1;
		t0 = now();
		ret = snode_allreduce(comm, buf, count, SNODE_COLL_DOUBLE,
				      SNODE_COLL_SUM);
		if (!ret && buf[count - 1] != nranks)
			ret = 1;
		if (now() - t0 > 600)
			break;
	}
	check(ret == -EPIPE || ret == -ETIMEDOUT,
	      "allreduce with node %u killed failed with EPIPE or ETIMEDOUT after %u calls (ret %d)",
	      victim, iters, ret);
	check(now() - t0 < TIMEOUT_S + 25,
	      "... within the %d s timeout plus a margin (%.1f s)", TIMEOUT_S,
	      now() - t0);
	ret = snode_allreduce(comm, buf, count, SNODE_COLL_DOUBLE, SNODE_COLL_SUM);
	check(ret == -EPIPE, "the next allreduce fails with EPIPE at once (ret %d)", ret);
	check(snode_comm_free(comm) == 0, "comm_free of the broken communicator");
	free(buf);
	return 0;
}

int main(int argc, char **argv)
{
	uint32_t nodes[SNODE_COMM_MAX_RANKS], victim = 0;
	struct snode_ctx *ctx;
	struct snode_dev *dev;
	int have_victim = 0, i, ret;
	char *s, *e;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 1; i + 1 < argc; i += 2) {
		if (!strcmp(argv[i], "nodes")) {
			for (s = argv[i + 1]; *s && nranks < SNODE_COMM_MAX_RANKS; s = e) {
				nodes[nranks++] = strtoul(s, &e, 0);
				if (*e == ',')
					e++;
			}
		} else if (!strcmp(argv[i], "victim")) {
			victim = strtoul(argv[i + 1], NULL, 0);
			have_victim = 1;
		}
	}
	if (nranks < 2 || i != argc) {
		fprintf(stderr, "usage: coll_test nodes LIST [ victim NODE ]\n");
		return 2;
	}
	ret = snode_new(&ctx);
	dev = ret ? NULL : snode_dev_get_first(ctx);
	if (!dev) {
		printf("not ok 1 - no snode device (snode_new %d)\n", ret);
		return 1;
	}
	ret = have_victim ? run_victim(dev, nodes, victim) : run_tests(dev, nodes);
	printf("# coll_test rank %u: %u tests, %u failed\n", rank, tests,
	       failures + (unsigned int)ret);
	snode_unref(ctx);
	return failures || ret;
}
