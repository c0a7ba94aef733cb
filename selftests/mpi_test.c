// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * mpi_test - an MPI job's checks and numbers across snode nodes, run by
 * selftests/vm/mpi.sh and tools/snode-perf/bench-mpi.sh under Debian's
 * OpenMPI (Documentation/admin-guide/mpi.rst).
 *
 * Usage: mpirun ... mpi_test [-l LARGE] [-i ITERS] [-b BW_BYTES] [-w WINDOW]
 *                            [-a ALLREDUCE_BYTES] [-r REPEAT]
 *
 * Every rank takes part in every check; rank 0 prints one line per check,
 * "ok - NAME" or "not ok - NAME (N ranks wrong)", agreed through an
 * allreduce of the ranks' verdicts. Then the numbers, measured between
 * ranks 0 and 1 (latency, bandwidth) and over all ranks (allreduce bus
 * bandwidth), as "# " lines and one JSON line "# mpi-json {...}", which
 * also holds the point-to-point payload each node sent (so that the suite
 * can hold the NIC's counters against it). -r repeats the large-message
 * ring, so that a job lasts long enough for a fault injected in the middle.
 * Exit status 0 when every check passed, 1 otherwise; MPI's own errors
 * abort the job (MPI_ERRORS_ARE_FATAL) with a non-zero status.
 */
#include <mpi.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int rank, nranks, failures;
/* point-to-point payload this rank sent, for the NIC counter check */
static uint64_t p2p_sent;

static void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p) {
		fprintf(stderr, "mpi_test: rank %d: out of memory (%zu bytes)\n", rank, n);
		MPI_Abort(MPI_COMM_WORLD, 2);
	}
	return p;
}

/* one TAP line for a check every rank took part in */
static void result(bool good, const char *fmt, ...)
{
	int bad = !good, nbad = 0;
	va_list ap;

	MPI_Allreduce(&bad, &nbad, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	if (nbad)
		failures++;
	if (rank)
		return;
	printf("%s - ", nbad ? "not ok" : "ok");
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	if (nbad)
		printf(" (%d of %d ranks wrong)", nbad, nranks);
	printf("\n");
	fflush(stdout);
}

/* byte i of message seq from rank src: differs between neighbours */
static uint8_t pattern(int src, unsigned int seq, size_t i)
{
	return (uint8_t)(i * 131 + i / 251 + (size_t)src * 7 + seq * 29 + 1);
}

static void fill(uint8_t *buf, size_t n, int src, unsigned int seq)
{
	for (size_t i = 0; i < n; i++)
		buf[i] = pattern(src, seq, i);
}

/* the first wrong byte's index, or -1 */
static long verify(const uint8_t *buf, size_t n, int src, unsigned int seq)
{
	for (size_t i = 0; i < n; i++)
		if (buf[i] != pattern(src, seq, i))
			return (long)i;
	return -1;
}

static int next_rank(void) { return (rank + 1) % nranks; }
static int prev_rank(void) { return (rank + nranks - 1) % nranks; }

/* Sizes around the NIC's 48-byte message and a few eager-sized ones. */
static const size_t ring_sizes[] = { 0, 1, 46, 47, 48, 49, 95, 1000, 4096, 20000 };
#define NSIZES (sizeof(ring_sizes) / sizeof(ring_sizes[0]))

/* each size to the next rank, all in flight at once, each on its own tag */
static void check_ring_small(void)
{
	uint8_t *tx[NSIZES], *rx[NSIZES];
	MPI_Request req[2 * NSIZES];
	MPI_Status st[2 * NSIZES];
	bool good = true;
	unsigned int k;
	int count;

	for (k = 0; k < NSIZES; k++) {
		tx[k] = xmalloc(ring_sizes[k]);
		rx[k] = xmalloc(ring_sizes[k]);
		fill(tx[k], ring_sizes[k], rank, k);
		memset(rx[k], 0, ring_sizes[k]);
		MPI_Irecv(rx[k], (int)ring_sizes[k], MPI_BYTE, prev_rank(), 100 + k,
			  MPI_COMM_WORLD, &req[k]);
	}
	/* sent in reverse so that tag matching, not arrival, pairs them */
	for (k = NSIZES; k-- > 0;) {
		MPI_Isend(tx[k], (int)ring_sizes[k], MPI_BYTE, next_rank(), 100 + k,
			  MPI_COMM_WORLD, &req[NSIZES + k]);
		p2p_sent += ring_sizes[k];
	}
	MPI_Waitall(2 * NSIZES, req, st);
	for (k = 0; k < NSIZES; k++) {
		MPI_Get_count(&st[k], MPI_BYTE, &count);
		if (count != (int)ring_sizes[k] || st[k].MPI_SOURCE != prev_rank() ||
		    verify(rx[k], ring_sizes[k], prev_rank(), k) >= 0) {
			fprintf(stderr, "rank %d: ring size %zu: count %d source %d\n",
				rank, ring_sizes[k], count, st[k].MPI_SOURCE);
			good = false;
		}
		free(tx[k]);
		free(rx[k]);
	}
	result(good, "point-to-point: %zu tagged messages of 0 to 20000 bytes to the next rank, sent in reverse tag order, every byte verified",
	       NSIZES);
}

/* rank 0 receives from everyone with MPI_ANY_SOURCE and MPI_ANY_TAG */
static void check_any_source(void)
{
	bool good = true;
	int r, got[1024] = { 0 };
	uint8_t buf[64];

	if (rank) {
		fill(buf, sizeof(buf), rank, 500);
		MPI_Send(buf, (int)sizeof(buf), MPI_BYTE, 0, 500 + rank, MPI_COMM_WORLD);
		p2p_sent += sizeof(buf);
	} else {
		for (r = 1; r < nranks; r++) {
			MPI_Status st;
			int count;

			MPI_Recv(buf, (int)sizeof(buf), MPI_BYTE, MPI_ANY_SOURCE, MPI_ANY_TAG,
				 MPI_COMM_WORLD, &st);
			MPI_Get_count(&st, MPI_BYTE, &count);
			if (st.MPI_SOURCE < 1 || st.MPI_SOURCE >= nranks || st.MPI_SOURCE >= 1024 ||
			    st.MPI_TAG != 500 + st.MPI_SOURCE || count != (int)sizeof(buf) ||
			    got[st.MPI_SOURCE]++ || verify(buf, sizeof(buf), st.MPI_SOURCE, 500) >= 0)
				good = false;
		}
	}
	result(good, "point-to-point: MPI_ANY_SOURCE/MPI_ANY_TAG receives name each sender and tag once");
}

/* LARGE bytes to the next rank, from the previous one, every byte checked */
static void check_large(size_t large, int repeat)
{
	uint8_t *tx = xmalloc(large), *rx = xmalloc(large);
	bool good = true;
	int i;

	for (i = 0; i < repeat; i++) {
		MPI_Request req[2];
		MPI_Status st[2];
		long bad;
		int count;

		fill(tx, large, rank, 1000 + i);
		memset(rx, 0, large);
		MPI_Irecv(rx, (int)large, MPI_BYTE, prev_rank(), 7, MPI_COMM_WORLD, &req[0]);
		MPI_Isend(tx, (int)large, MPI_BYTE, next_rank(), 7, MPI_COMM_WORLD, &req[1]);
		MPI_Waitall(2, req, st);
		p2p_sent += large;
		MPI_Get_count(&st[0], MPI_BYTE, &count);
		bad = verify(rx, large, prev_rank(), 1000 + i);
		if (count != (int)large || bad >= 0) {
			fprintf(stderr, "rank %d: large message %d: count %d, first wrong byte %ld\n",
				rank, i, count, bad);
			good = false;
		}
	}
	result(good, "point-to-point: %zu bytes to the next rank%s, every byte verified",
	       large, repeat > 1 ? " (repeated)" : "");
	free(tx);
	free(rx);
}

static void check_allreduce(void)
{
	enum { N = 10000 };
	int *in = xmalloc(N * sizeof(int)), *out = xmalloc(N * sizeof(int));
	double din = rank + 0.5, dmax = 0;
	long long tri = (long long)nranks * (nranks + 1) / 2;
	bool good = true;
	int i;

	for (i = 0; i < N; i++)
		in[i] = (rank + 1) * (i % 1000 + 1);
	MPI_Allreduce(in, out, N, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
	for (i = 0; i < N; i++)
		if (out[i] != tri * (i % 1000 + 1))
			good = false;
	MPI_Allreduce(&din, &dmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	if (dmax != nranks - 0.5)
		good = false;
	result(good, "allreduce: sum of %d ints and max of a double", N);
	free(in);
	free(out);
}

static void check_alltoall(void)
{
	enum { B = 100 };	/* ints per block */
	int *in = xmalloc((size_t)nranks * B * sizeof(int));
	int *out = xmalloc((size_t)nranks * B * sizeof(int));
	bool good = true;
	int j, k;

	for (j = 0; j < nranks; j++)
		for (k = 0; k < B; k++)
			in[j * B + k] = rank * 1000000 + j * 1000 + k;
	MPI_Alltoall(in, B, MPI_INT, out, B, MPI_INT, MPI_COMM_WORLD);
	for (j = 0; j < nranks; j++)
		for (k = 0; k < B; k++)
			if (out[j * B + k] != j * 1000000 + rank * 1000 + k)
				good = false;
	result(good, "alltoall: %d ints from every rank to every rank", B);
	free(in);
	free(out);
}

static void check_bcast(void)
{
	const size_t n = 10000;
	uint8_t *buf = xmalloc(n);
	bool good = true;
	int root;

	for (root = 0; root < nranks; root++) {
		if (rank == root)
			fill(buf, n, root, 2000);
		else
			memset(buf, 0, n);
		MPI_Bcast(buf, (int)n, MPI_BYTE, root, MPI_COMM_WORLD);
		if (verify(buf, n, root, 2000) >= 0)
			good = false;
	}
	result(good, "bcast: %zu bytes from each rank in turn", n);
	free(buf);
}

/*
 * Nobody leaves the barrier before the last rank (rank 0, late on purpose)
 * entered it. Each rank times from its own exit of the barrier before, and
 * the ranks do not leave that one at once: the last message of it can
 * reach a rank a latency or more after rank 0 left (a plane failing under
 * the 4-rank job: 30 ms and more, which made a 0.9 x 300 ms bound fail
 * once). So rank 0 is a second late and every rank must wait half of it;
 * a barrier that let ranks through would return within its own latency.
 */
static void check_barrier(void)
{
	const double late = 1.0;
	double t0, waited;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	if (rank == 0)
		usleep((useconds_t)(late * 1e6));
	MPI_Barrier(MPI_COMM_WORLD);
	waited = MPI_Wtime() - t0;
	result(waited >= late / 2, "barrier: no rank leaves before the last one (%.0f ms late) arrived",
	       late * 1e3);
}

struct numbers {
	double rtt_us, bw_MBps, busbw_MBps;
};

/* ranks 0 and 1: round trip of 8 bytes, mean over ITERS */
static double latency(int iters)
{
	char buf[8] = "snode";
	double t0, t;
	int i;

	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < iters && rank < 2; i++) {
		if (rank == 0) {
			MPI_Send(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD);
			MPI_Recv(buf, 8, MPI_BYTE, 1, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		} else {
			MPI_Recv(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
			MPI_Send(buf, 8, MPI_BYTE, 0, 1, MPI_COMM_WORLD);
		}
		p2p_sent += 8;
	}
	t = MPI_Wtime() - t0;
	return iters ? t / iters * 1e6 : 0;
}

/* rank 0 to rank 1: WINDOW messages of BYTES in flight, then a 1-byte ack */
static double bandwidth(size_t bytes, int window)
{
	uint8_t *buf = xmalloc(bytes * (size_t)window);
	MPI_Request *req = xmalloc(sizeof(*req) * (size_t)window);
	double t0, t;
	char ack = 0;
	int i;

	memset(buf, 0x5a, bytes * (size_t)window);
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	if (rank == 0) {
		for (i = 0; i < window; i++)
			MPI_Isend(buf + bytes * i, (int)bytes, MPI_BYTE, 1, 2, MPI_COMM_WORLD, &req[i]);
		MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
		MPI_Recv(&ack, 1, MPI_BYTE, 1, 3, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
		p2p_sent += bytes * (size_t)window;
	} else if (rank == 1) {
		for (i = 0; i < window; i++)
			MPI_Irecv(buf + bytes * i, (int)bytes, MPI_BYTE, 0, 2, MPI_COMM_WORLD, &req[i]);
		MPI_Waitall(window, req, MPI_STATUSES_IGNORE);
		MPI_Send(&ack, 1, MPI_BYTE, 0, 3, MPI_COMM_WORLD);
		p2p_sent += 1;
	}
	t = MPI_Wtime() - t0;
	free(buf);
	free(req);
	/* every rank gets rank 0's figure */
	MPI_Bcast(&t, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
	return t > 0 ? bytes * (double)window / t / 1e6 : 0;
}

/* bus bandwidth as nccl-tests define it: 2(n-1)/n * bytes / time */
static double allreduce_busbw(size_t bytes, int iters)
{
	size_t n = bytes / sizeof(double);
	double *in = xmalloc(n * sizeof(double)), *out = xmalloc(n * sizeof(double));
	double t0, t;
	int i;

	for (size_t k = 0; k < n; k++)
		in[k] = rank + k;
	MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);	/* warm-up */
	MPI_Barrier(MPI_COMM_WORLD);
	t0 = MPI_Wtime();
	for (i = 0; i < iters; i++)
		MPI_Allreduce(in, out, (int)n, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
	t = (MPI_Wtime() - t0) / iters;
	MPI_Allreduce(MPI_IN_PLACE, &t, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
	free(in);
	free(out);
	return t > 0 ? 2.0 * (nranks - 1) / nranks * (double)(n * sizeof(double)) / t / 1e6 : 0;
}

/* the JSON line: numbers, and each node's point-to-point payload */
static void report(const struct numbers *num, int iters, size_t bw_bytes, int window,
		   size_t ar_bytes)
{
	char name[MPI_MAX_PROCESSOR_NAME] = "", *names = NULL;
	unsigned long long sent = p2p_sent, *all = NULL;
	int len, r;

	MPI_Get_processor_name(name, &len);
	if (rank == 0) {
		names = xmalloc((size_t)nranks * MPI_MAX_PROCESSOR_NAME);
		all = xmalloc((size_t)nranks * sizeof(*all));
	}
	MPI_Gather(name, MPI_MAX_PROCESSOR_NAME, MPI_CHAR, names, MPI_MAX_PROCESSOR_NAME,
		   MPI_CHAR, 0, MPI_COMM_WORLD);
	MPI_Gather(&sent, 1, MPI_UNSIGNED_LONG_LONG, all, 1, MPI_UNSIGNED_LONG_LONG, 0,
		   MPI_COMM_WORLD);
	if (rank)
		return;
	printf("# mpi round trip 8 bytes: %.1f us (%d iterations, ranks 0 and 1)\n",
	       num->rtt_us, iters);
	printf("# mpi bandwidth %zu bytes x %d: %.3f MB/s (rank 0 to rank 1)\n",
	       bw_bytes, window, num->bw_MBps);
	printf("# mpi allreduce %zu bytes on %d ranks: bus bandwidth %.3f MB/s\n",
	       ar_bytes, nranks, num->busbw_MBps);
	printf("# mpi-json {\"ranks\": %d, \"rtt_us\": %.2f, \"bw_bytes\": %zu, \"bw_MBps\": %.4f, "
	       "\"allreduce_bytes\": %zu, \"allreduce_busbw_MBps\": %.4f, \"p2p_sent\": [",
	       nranks, num->rtt_us, bw_bytes, num->bw_MBps, ar_bytes, num->busbw_MBps);
	for (r = 0; r < nranks; r++)
		printf("%s{\"rank\": %d, \"host\": \"%s\", \"bytes\": %llu}", r ? ", " : "", r,
		       names + (size_t)r * MPI_MAX_PROCESSOR_NAME, all[r]);
	printf("]}\n");
	fflush(stdout);
	free(names);
	free(all);
}

static size_t size_arg(const char *s, const char *what)
{
	char *end;
	unsigned long long v = strtoull(s, &end, 0);

	if (end == s || *end || v > (1ULL << 30)) {
		if (rank == 0)
			fprintf(stderr, "mpi_test: bad %s '%s' (a number of at most 1 GiB)\n", what, s);
		MPI_Finalize();
		exit(2);
	}
	return (size_t)v;
}

int main(int argc, char **argv)
{
	size_t large = 1 << 20, bw_bytes = 65536, ar_bytes = 65536;
	int iters = 100, window = 4, repeat = 1, opt;
	struct numbers num;

	MPI_Init(&argc, &argv);
	MPI_Comm_rank(MPI_COMM_WORLD, &rank);
	MPI_Comm_size(MPI_COMM_WORLD, &nranks);
	while ((opt = getopt(argc, argv, "l:i:b:w:a:r:")) != -1) {
		switch (opt) {
		case 'l': large = size_arg(optarg, "-l LARGE"); break;
		case 'i': iters = (int)size_arg(optarg, "-i ITERS"); break;
		case 'b': bw_bytes = size_arg(optarg, "-b BW_BYTES"); break;
		case 'w': window = (int)size_arg(optarg, "-w WINDOW"); break;
		case 'a': ar_bytes = size_arg(optarg, "-a ALLREDUCE_BYTES"); break;
		case 'r': repeat = (int)size_arg(optarg, "-r REPEAT"); break;
		default:
			if (rank == 0)
				fprintf(stderr, "usage: mpi_test [-l LARGE] [-i ITERS] [-b BW_BYTES] [-w WINDOW] [-a ALLREDUCE_BYTES] [-r REPEAT]\n");
			MPI_Finalize();
			return 2;
		}
	}
	if (nranks < 2 || window < 1 || repeat < 1 || ar_bytes < sizeof(double)) {
		if (rank == 0)
			fprintf(stderr, "mpi_test: needs 2 or more ranks, WINDOW, REPEAT >= 1, ALLREDUCE_BYTES >= 8\n");
		MPI_Finalize();
		return 2;
	}
	if (rank == 0)
		printf("# mpi_test: %d ranks\n", nranks);

	check_ring_small();
	check_any_source();
	check_large(large, repeat);
	check_allreduce();
	check_alltoall();
	check_bcast();
	check_barrier();

	num.rtt_us = latency(iters);
	num.bw_MBps = bandwidth(bw_bytes, window);
	num.busbw_MBps = allreduce_busbw(ar_bytes, 3);
	report(&num, iters, bw_bytes, window, ar_bytes);

	MPI_Finalize();
	return failures ? 1 : 0;
}
